"""Reading ``config.yaml``: parsed, checked against the schema, what this ov cannot use left out
and reported, and the validated result cached (see :mod:`ov.config` for why and how).
"""

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ov.config.checks import ENV_NAME
from ov.config.schema import CONFIG_VERSION, Config, config_keys, value_at
from ov.errors import ConfigError, quote
from ov.files import atomic_write
from ov.home import Home
from ov.urls import has_userinfo

# Limits of what a config file may be. The real one is a few hundred bytes and four levels
# deep; these only stop a file that would cost every command seconds (a 30 MB comment) or
# expand into millions of values (a YAML "billion laughs" of nested aliases).
MAX_CONFIG_BYTES = 1024 * 1024
MAX_CONFIG_NODES = 10_000
MAX_CONFIG_DEPTH = 32


@dataclass(frozen=True)
class InvalidValue:
    """A value in the file this ov cannot use (out of its bounds, of another type, no longer one of
    the choices), most often one that an older or a newer ov accepted. Its default stands in."""

    key: str  # "retrieval.candidates", or a whole section ("hooks") that is not a mapping
    value: Any  # as the file holds it
    problem: str  # "must be at most 10000"
    default: Any

    @property
    def stops(self) -> bool:
        """Whether no default can stand in: a default identity reads and writes another account's
        or user's data, so an invalid one stops every command (see validate_config_text)."""
        return self.key.split(".")[0] == "identity"

    def describe(self) -> str:
        return f"{self.key} = {shown(self.value, self.key)}: {self.problem}"

    def as_dict(self) -> dict:
        """The fields for ``--json``, the value hidden where :func:`shown` hides it."""
        return {"key": self.key, "value": _hidden(self.value, self.key) or self.value, "problem": self.problem, "default": self.default}

    def outcome(self) -> str:
        if self.stops:
            return "every command stops until it is fixed"
        if isinstance(self.default, dict):
            return f"the defaults of {self.key}.* are used instead"
        return f"the default {shown(self.default)} is used instead"

    def fix(self) -> str:
        unset = f"`ov config unset {self.key}`"
        return f"{unset} (back to the default) or `ov config set {self.key} VALUE`" if self.key in config_keys() else unset


@dataclass(frozen=True)
class LoadedConfig:
    """A configuration as read: where from, whether the file exists, and what in it was left out."""

    config: Config
    path: Path
    exists: bool
    invalid: tuple[InvalidValue, ...] = ()  # values left out, their defaults used
    unknown: tuple[str, ...] = ()  # keys this ov does not know, left out

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line for each key left out, naming the file, what is wrong and how to fix it."""
        invalid = [f"{self.path}: {v.describe()}; {v.outcome()}. Fix: {v.fix()}" for v in self.invalid]
        return (*invalid, *(f"{self.path}: unknown key {quote(key)} ignored" for key in self.unknown))


def load_config(home: Home) -> LoadedConfig:
    """Read and validate the config, using the validated cache when neither the file nor the schema changed."""
    path = home.config_path
    raw = read_file(path)
    if raw is None:
        return LoadedConfig(Config(), path, exists=False)
    key = _cache_key(raw)
    cache_path = home.state_root / "config.cache.json"
    if key:
        try:
            cached = json.loads(cache_path.read_text(encoding="utf-8"))
            if isinstance(cached, dict) and cached.get("key") == key:
                invalid = tuple(InvalidValue(**value) for value in cached["invalid"])
                return LoadedConfig(_build(Config, cached["config"]), path, True, invalid, tuple(cached["unknown"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    loaded = validate_config_text(raw, path)
    cache_validated(home, raw, loaded)
    return loaded


def cache_validated(home: Home, raw: bytes, loaded: LoadedConfig) -> None:
    """Keep ``loaded``, what the file's bytes ``raw`` validated as, for the next load: `ov config
    set` calls it with what it wrote, or the first hook after a change paid pydantic's import and
    schema build (0.5 s, 2 s on a loaded machine) and ran past its deadline."""
    key = _cache_key(raw)
    if not key or any(value.stops for value in loaded.invalid):
        return
    try:
        invalid = [dataclasses.asdict(value) for value in loaded.invalid]
        payload = {"key": key, "config": loaded.config.as_dict(), "invalid": invalid, "unknown": list(loaded.unknown)}
        cache_path = home.state_root / "config.cache.json"
        home.ensure(cache_path.parent)
        atomic_write(cache_path, json.dumps(payload, sort_keys=True).encode())
    except OSError:
        pass  # the cache only saves time; a read-only home still works


def _cache_key(raw: bytes) -> str | None:
    schema = _schema_digest()
    return hashlib.sha256(raw + b"|" + schema.encode()).hexdigest() if schema else None


@functools.cache
def _schema_digest() -> str | None:
    """The SHA-256 of the code that decides what a file loads as, which the config cache is keyed on:
    the schema (fields, defaults), its checks (bounds, the id rules of :mod:`ov.identity`, the URL
    rule of :mod:`ov.urls`) and this module (parsing, what is left out).

    So a cache written by an ov with any other schema never answers: one an older ov wrote kept
    values today's bounds refuse, left out sections it did not know and froze its defaults. ov's
    version is not enough, as it is not bumped with each change. Reading and hashing these ~35 KB
    takes ~30 µs on every command's and hook's start; None (no cache: every load validates) when
    a module's bytes cannot be read.
    """
    from ov import identity, urls
    from ov.config import checks, schema

    digest = hashlib.sha256()
    try:
        for module in (schema.__file__, checks.__file__, __file__, identity.__file__, urls.__file__):
            data = Path(module).read_bytes()
            digest.update(f"{len(data)}:".encode() + data)  # the length first: no two sets of files hash alike
    except (OSError, TypeError):  # TypeError: a module without a file (a frozen build)
        return None
    return digest.hexdigest()


def validate_config_text(raw: bytes, path: Path) -> LoadedConfig:
    """Parse YAML and validate it: unknown keys and values this ov cannot use are left out and
    reported; an invalid identity is refused, since no default can stand in for it."""
    loaded = validate(parse_yaml(raw, path), path)
    stops = [value for value in loaded.invalid if value.stops]
    if stops:
        raise ConfigError(
            f"{path} is invalid: " + "; ".join(value.describe() for value in stops),
            hint="fix it with " + "; ".join(value.fix() for value in stops),
            problems={value.key: value.problem for value in stops},
        )
    return loaded


def shown(value: Any, key: str | None = None) -> str:
    """A value from the file as YAML writes it, cut to a message's length."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _hidden(value, key) or quote(value)


def _hidden(value: Any, key: str | None) -> str | None:
    """What stands for ``value`` of ``key`` when it must not be shown, else None: a key pasted
    where its variable's name goes, a password in a URL, shown, would land in terminals, logs,
    doctor reports and ``--json``."""
    if isinstance(value, str) and key is not None and key.endswith(".api_key_env") and not ENV_NAME.fullmatch(value):
        return "(not shown: it may be the key itself)"
    if isinstance(value, str) and key is not None and key.endswith(".api_base") and has_userinfo(value):
        return "(not shown: it holds a user name or password)"
    return None


def read_file(path: Path) -> bytes | None:
    """The config file's bytes, None when there is none; refused when it is not a small regular file."""
    import stat

    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{path} is not a regular file", hint="replace it with a YAML file, or remove it")
        if st.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path} is {st.st_size} bytes; a config file holds at most {MAX_CONFIG_BYTES}",
                hint="it holds a few settings; remove what is not one (`ov config show` lists them)",
            )
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}", hint="make it a file you may read, or remove it") from None


def parse_yaml(raw: bytes, path: Path) -> dict[str, Any]:
    import yaml  # Deferred: YAML is parsed only when the config cache is stale.

    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text", hint="save it as UTF-8, or remove it") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path} does not parse as YAML{where}: {problem}", hint="fix the file or remove it") from None
    except ValueError as exc:  # a well-formed scalar PyYAML cannot build, such as the date 2026-02-30
        raise ConfigError(f"{path} holds a value YAML cannot read: {exc}", hint="quote it, or fix it") from None
    except RecursionError:  # PyYAML composes nested collections by recursion
        raise ConfigError(f"{path} is nested more than {MAX_CONFIG_DEPTH} levels deep", hint="fix the file or remove it") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        # `ov config set` reads the file before it changes it: the file itself is what to fix.
        raise ConfigError(
            f"{path} must hold a mapping of settings, not {type(data).__name__}",
            hint="fix the file (`section:`, then indented `key: value` lines) or remove it",
        )
    data = _plain(data, path)
    version = data.get("version", CONFIG_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version > CONFIG_VERSION:
        raise ConfigError(
            f"{path} is format version {version}; this ov reads version {CONFIG_VERSION}",
            hint="upgrade ov, or restore the config a newer ov rewrote",
        )
    return data


def validate(data: dict[str, Any], path: Path) -> LoadedConfig:
    """Validate parsed data; unknown keys and invalid values are left out (their defaults apply)
    and listed, so that one value an older or newer ov accepted does not stop every command."""
    import pydantic  # Deferred: ~100 ms; only when the config changed (see module docstring).

    adapter = _adapter()
    unknown: list[str] = []
    invalid: dict[str, InvalidValue] = {}
    data = _plain(data, path)  # a private copy we may prune
    defaults = Config().as_dict()
    for _attempt in range(2):
        try:
            config = adapter.validate_python(data)
            return LoadedConfig(config, path, True, tuple(invalid.values()), tuple(unknown))
        except pydantic.ValidationError as exc:
            for error in exc.errors():
                if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
                    unknown.append(".".join(str(p) for p in error["loc"]))
                    _drop(data, list(error["loc"]))
                    continue
                parts = _schema_key(error["loc"])
                problem = error["msg"].removeprefix("Value error, ")  # our own validators' words: short
                if not parts:  # pragma: no cover - the top level is a mapping by then (parse_yaml)
                    raise ConfigError(f"{path} is invalid: {problem}") from None
                key = ".".join(parts)
                if key not in invalid:  # a union may report one value twice
                    invalid[key] = InvalidValue(key, value_at(data, parts), problem, value_at(defaults, parts))
                    _drop(data, parts)
    raise ConfigError(f"{path} is invalid")  # pragma: no cover - the second pass has nothing left out


def _schema_key(loc: tuple[Any, ...]) -> list[str]:
    """The setting a validation error is about: its location up to where the schema ends (pydantic
    may add a union member or a list index after the field)."""
    cls: Any = Config
    parts: list[str] = []
    for part in loc:
        fields = {f.name: f.type for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
        if part not in fields:
            break
        parts.append(part)
        cls = fields[part]
    return parts


def _plain(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of parsed YAML as plain JSON-like data: string keys, dates as text.

    YAML aliases make shared (even self-containing) nodes, so the copy is counted as it
    is made and refused past MAX_CONFIG_NODES or MAX_CONFIG_DEPTH: an alias bomb is
    stopped after ten thousand values, not after expanding a hundred million of them.
    """
    budget = [MAX_CONFIG_NODES]

    def copy(value: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise ConfigError(f"{path} holds more than {MAX_CONFIG_NODES} values (YAML aliases expand to copies)", hint="fix the file or remove it")
        if depth > MAX_CONFIG_DEPTH:
            raise ConfigError(f"{path} is nested more than {MAX_CONFIG_DEPTH} levels deep", hint="fix the file or remove it")
        if isinstance(value, dict):
            return {k if isinstance(k, str) else str(k): copy(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [copy(v, depth + 1) for v in value]
        if value is None or isinstance(value, (str, int, float)):
            return value
        return str(value)  # dates, timestamps, binary: pydantic reports them where a type is wrong

    return copy(data, 0)


_ADAPTER = None


def _adapter():
    global _ADAPTER
    if _ADAPTER is None:
        import pydantic

        _ADAPTER = pydantic.TypeAdapter(Config)
    return _ADAPTER


def _build(cls, data: dict[str, Any]):
    """Construct a (nested) config dataclass from already-validated plain data."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            value = data[f.name]
            kwargs[f.name] = _build(f.type, value) if dataclasses.is_dataclass(f.type) else value
    return cls(**kwargs)


def _drop(data: dict[str, Any], loc: list[Any]) -> None:
    node = value_at(data, loc[:-1])
    if isinstance(node, dict):
        node.pop(loc[-1], None)
