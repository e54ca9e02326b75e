"""Trust Codex hooks without the TUI: ``codex exec`` silently skips hooks nobody reviewed.

The harness's stand-in for what ``ov install hooks --trust`` will do, kept apart from it: ask
``codex app-server`` (stdio JSON-RPC) what it sees and record Codex's own hash for each hook as
trusted, exactly what the TUI's ``/hooks`` review writes.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from tests.realhosts import INSTALL_HINT, hermetic_env, host_binary, kill_group


def codex_trust_all(
    home: Path,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    binary: Path | None = None,
    timeout: float = 30.0,
) -> list[str]:
    """Trust every hook Codex lists for ``cwd`` and return their keys.

    Speaks ``codex app-server``'s stdio JSON-RPC: ``hooks/list`` gives each handler's key and
    ``currentHash``; ``config/batchWrite`` upserts ``hooks.state.<key>.trusted_hash`` in
    ``$CODEX_HOME/config.toml`` (Codex computes the hash; nothing is hashed here). Keys are
    positional, so call this again after every rewrite of the hooks.
    """
    binary = binary or host_binary("codex")
    if binary is None:
        raise FileNotFoundError(f"codex is not installed: {INSTALL_HINT}")
    env = dict(env) if env is not None else hermetic_env(home.parent, home)
    env.setdefault("CODEX_HOME", str(home / ".codex"))
    with _JsonRpc([str(binary), "app-server"], env=env, cwd=cwd or home, timeout=timeout) as rpc:
        rpc.call("initialize", {"clientInfo": {"name": "ov-tests", "version": "0"}})
        rpc.notify("initialized")
        listing = rpc.call("hooks/list", {"cwds": [str(cwd or home)]})
        pending = {
            hook["key"]: {"trusted_hash": hook["currentHash"]}
            for entry in listing.get("data", [])
            for hook in entry.get("hooks", [])
            if hook.get("trustStatus") in ("untrusted", "modified")
        }
        if pending:
            rpc.call(
                "config/batchWrite",
                {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": pending}]},
            )
    return sorted(pending)


def codex_hooks(home: Path, *, cwd: Path, env: dict[str, str], binary: Path, timeout: float = 30.0) -> list[dict]:
    """What Codex's ``hooks/list`` says of each hook it sees for ``cwd``: ``key``, ``command``,
    ``currentHash``, ``trustStatus`` (``untrusted``, ``trusted``, ``modified``), ..."""
    env = dict(env)
    env.setdefault("CODEX_HOME", str(home / ".codex"))
    with _JsonRpc([str(binary), "app-server"], env=env, cwd=cwd, timeout=timeout) as rpc:
        rpc.call("initialize", {"clientInfo": {"name": "ov-tests", "version": "0"}})
        rpc.notify("initialized")
        listing = rpc.call("hooks/list", {"cwds": [str(cwd)]})
    return [hook for entry in listing.get("data", []) for hook in entry.get("hooks", [])]


class _JsonRpc:
    """Newline-delimited JSON-RPC with a child process over its stdin/stdout."""

    def __init__(self, argv: list[str], *, env: dict[str, str], cwd: Path, timeout: float) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._ids = itertools.count(1)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def _send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict | None = None) -> None:
        self._send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})

    def call(self, method: str, params: dict) -> Any:
        request_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(remaining, 0.01))
            except queue.Empty:
                raise TimeoutError(f"codex app-server: no answer to {method} in {self.timeout} s") from None
            if not line:
                raise RuntimeError(f"codex app-server exited before answering {method}")
            message = json.loads(line)
            if message.get("id") != request_id or "method" in message:
                continue  # a notification, or a request from the server
            if "error" in message:
                raise RuntimeError(f"codex app-server: {method} failed: {message['error']}")
            return message.get("result")

    def __enter__(self) -> _JsonRpc:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        kill_group(self.proc.pid)
        self.proc.wait()
