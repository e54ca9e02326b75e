"""A stand-in for ``codex app-server``, for the tests of ``ov install hooks --trust``: the three
JSON-RPC calls ov makes (``initialize``, ``hooks/list``, ``config/batchWrite``), over stdin and
stdout as Codex speaks them, acting on the same files.

``hooks/list`` lists the handlers of ``$CODEX_HOME/hooks.json`` (default ``~/.codex``) and of
each cwd's ``.codex/hooks.json`` when the user's ``config.toml`` trusts that project, keyed
``<file>:<event>:<group>:<handler>`` with the hash Codex gives the handler, trusted when
``hooks.state`` holds that hash (``modified`` when it holds another). ``config/batchWrite`` upserts into the user's ``config.toml`` (tomlkit keeps
the rest of the file). :func:`install` puts it on PATH as ``codex``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tomllib
from pathlib import Path


def install(folder: Path) -> Path:
    """Write a ``codex`` program into ``folder`` that runs this stand-in; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    program = folder / "codex"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__).resolve()} \"$@\"\n")
    program.chmod(0o755)
    return folder


def _home() -> Path:
    return Path(os.environ["CODEX_HOME"]) if os.environ.get("CODEX_HOME") else Path(os.environ["HOME"]) / ".codex"


def _config() -> dict:
    try:
        return tomllib.loads((_home() / "config.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def _list(cwds: list[str]) -> dict:
    config = _config()
    state = config.get("hooks", {}).get("state", {})
    files = [_home() / "hooks.json"]
    for cwd in cwds:
        if config.get("projects", {}).get(cwd, {}).get("trust_level") == "trusted":
            files.append(Path(cwd) / ".codex" / "hooks.json")
    hooks = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        for event, groups in data.get("hooks", {}).items():
            for gi, group in enumerate(groups):
                for hi, handler in enumerate(group.get("hooks", [])):
                    key = f"{file}:{_snake(event)}:{gi}:{hi}"
                    current = _hash(_snake(event), handler, group.get("matcher"))
                    trusted = state.get(key, {}).get("trusted_hash")
                    status = "trusted" if trusted == current else "modified" if trusted else "untrusted"
                    hooks.append({"key": key, "currentHash": current, "trustStatus": status})
    return {"data": [{"cwd": cwds[0] if cwds else "", "hooks": hooks}]}


def _hash(event: str, handler: dict, matcher: str | None) -> str:
    """Codex's hash of a handler (as 0.171 computes it): the event, the matcher, and the handler
    with Codex's defaults, as compact JSON with sorted keys."""
    identity = {
        "event_name": event,
        "hooks": [{"async": handler.get("async", False), "command": handler["command"], "timeout": handler.get("timeout", 600), "type": "command"}],
    }
    if matcher is not None:
        identity["matcher"] = matcher
    return "sha256:" + hashlib.sha256(json.dumps(identity, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _batch_write(edits: list[dict]) -> dict:
    import tomlkit

    path = _home() / "config.toml"
    doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    for edit in edits:
        keys = list(_key_path(edit["keyPath"]))
        node = doc
        for key in keys[:-1]:
            node = node.setdefault(key, tomlkit.table(is_super_table=True))
        value = edit["value"]
        if isinstance(value, dict):
            # Codex writes the table's own header too (`[hooks.state]`), empty above its subtables.
            table = node.setdefault(keys[-1], tomlkit.table(is_super_table=False))
            for name, entry in value.items():
                sub = tomlkit.table()
                sub.update(entry)
                table[name] = sub
        else:
            node[keys[-1]] = value
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    return {}


def _key_path(dotted: str) -> tuple[str, ...]:
    """A dotted TOML key as its parts: ``projects."/p".trust_level`` -> ("projects", "/p", "trust_level")."""
    parts: list[str] = []
    node = tomllib.loads(f"{dotted} = 0")
    while isinstance(node, dict):
        (key, node), = node.items()
        parts.append(key)
    return tuple(parts)


def main() -> None:
    if sys.argv[1:] != ["app-server"]:
        sys.exit(f"fake codex: only app-server, not {sys.argv[1:]}")
    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue  # a notification
        method, params = message["method"], message.get("params", {})
        if method == "hooks/list":
            result = _list(params["cwds"])
        elif method == "config/batchWrite":
            result = _batch_write(params["edits"])
        else:
            result = {}  # initialize
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
