"""Changing ``config.yaml`` from the command line (``ov config set`` and ``unset``): one value at a
time, written atomically, and refused, with the file left as it was, when it would not load.
Each change reads, changes and writes the file holding ``config.lock`` beside it: two at once
each wrote the file as it read it, and one of the two settings was lost.
"""

import dataclasses
from typing import Any

from ov.config.loading import (
    LoadedConfig,
    cache_validated,
    parse_yaml,
    read_file,
    shown,
    validate,
)
from ov.config.schema import CONFIG_VERSION, is_text_field, require_key
from ov.errors import ConfigError
from ov.files import atomic_write, file_lock
from ov.home import Home

LOCK_NAME = "config.lock"  # in ov's home, beside config.yaml
LOCK_TIMEOUT = 10.0  # seconds: a change takes milliseconds; this is only for one stuck on a slow disk


def set_value(home: Home, key: str, text: str) -> LoadedConfig:
    """Set ``key`` to ``text`` (read as a YAML scalar) and write the file atomically.

    An invalid value is refused and the file left as it was. Values already in the file that
    this ov cannot use do not stop a change that adds no problem (it may fix one); the result
    lists what is still wrong. Unknown keys in the file are kept.
    """
    import yaml  # Deferred: only config writes need YAML's scalar rules.

    require_key(key)
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except (yaml.YAMLError, ValueError, RecursionError):  # ValueError: a date like 2026-02-30
        value = text
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{key} takes a single value, not {type(value).__name__}")
    if value is not None and not isinstance(value, str) and is_text_field(key):
        value = text  # `ov config set identity.user 1001`: an id made of digits is still text
    parts = key.split(".")

    def put(data: dict[str, Any]) -> bool:
        node = data
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        node[parts[-1]] = value
        return True

    return _rewrite(home, key, put, text)


def unset_value(home: Home, key: str) -> tuple[LoadedConfig, tuple[str, ...]]:
    """Take ``key`` out of the file, and the sections it leaves empty, so that its default applies.

    A key ov does not know (or a whole section) may be taken out too when the file holds it.
    Nothing is written when the file does not hold the key. Returns the config after, and the
    dotted keys taken out: a section's are each named, as a user of ``unset KEY`` expects one.
    """
    parts = key.split(".")
    removed: list[str] = []

    def remove(data: dict[str, Any]) -> bool:
        nodes = [data]
        for part in parts[:-1]:
            child = nodes[-1].get(part)
            if not isinstance(child, dict):
                break
            nodes.append(child)
        if len(nodes) < len(parts) or parts[-1] not in nodes[-1]:
            require_key(key)  # a known key that is not set is already unset
            return False
        removed.extend(_leaves(key, nodes[-1].pop(parts[-1])))
        for node, part in zip(reversed(nodes[:-1]), reversed(parts[:-1])):
            if node[part]:
                break
            del node[part]
        return True

    return _rewrite(home, key, remove, None), tuple(removed)


def _leaves(key: str, value: Any) -> list[str]:
    """The dotted keys of every value at or below ``key`` (``value`` is what the file holds there)."""
    if isinstance(value, dict) and value:
        return [leaf for name, child in value.items() for leaf in _leaves(f"{key}.{name}", child)]
    return [key]


def _rewrite(home: Home, key: str, change, text: str | None) -> LoadedConfig:
    """Apply ``change`` to the file's data and write it atomically, unless it leaves ``key`` invalid
    or makes a value invalid that was not (the file is then left as it was).

    A value that was already invalid does not stop the change: refusing every change while one
    value a newer ov accepted is in the file left no way to fix the others with `ov config`.
    """
    path = home.config_path
    home.ensure()  # the lock file's folder; the home is where the file is written anyway
    lock = home.root / LOCK_NAME
    with file_lock(lock, LOCK_TIMEOUT, f"another ov process is changing {path} (it holds {lock})", "try again in a moment"):
        return _change(home, key, change, text)


def _change(home: Home, key: str, change, text: str | None) -> LoadedConfig:
    """:func:`_rewrite`'s work, under its lock."""
    import yaml  # Deferred: only config writes need the YAML emitter.

    path = home.config_path
    raw = read_file(path)
    data: dict[str, Any] = {} if raw is None else parse_yaml(raw, path)
    before = {value.key for value in validate(data, path).invalid}
    changed = change(data)
    if changed:
        data.setdefault("version", CONFIG_VERSION)
    after = validate(data, path)
    added = [value for value in after.invalid if value.key == key or value.key not in before]
    if added:  # only a set gets here: taking a value out leaves its default, which is valid
        said = "; ".join(value.problem if value.key == key else value.describe() for value in added)
        raise ConfigError(f"{shown(text, key)} is not a valid value for {key}: {said}", hint=f"{path} is unchanged")
    if changed:
        home.ensure()
        # The user's alone when new (it may name keys, and sits in the home, whose fence a home
        # the user made is not); a file that exists keeps its permissions (atomic_write).
        written = yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode()
        atomic_write(path, written, mode=0o600)
        after = dataclasses.replace(after, exists=True)
        cache_validated(home, written, after)  # validated already: the next command need not
    return dataclasses.replace(after, exists=raw is not None or changed)
