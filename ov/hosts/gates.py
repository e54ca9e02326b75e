"""Each host's own gate in front of new hooks, handled honestly after an install.

* **Codex** runs a new or changed hook only once the user has reviewed it (``/hooks``), and
  ``codex exec`` skips unreviewed ones without a word. ``--trust`` records the review for ov's own
  handlers through ``codex app-server`` (``hooks/list``, then ``config/batchWrite`` of
  ``hooks.state."<key>".trusted_hash``; Codex computes the hash itself). It is never the default:
  it grants trust on the user's behalf, so it happens only when asked, and says what it trusted.
  Keys are positional, so the trust is written after the hooks file, on every install.
* **Gemini CLI** runs project hooks only in a trusted folder, and warns once per changed hook.
* **Cursor** also runs Claude Code's hooks when its "Third-party skills" setting is on; the hook
  runtime answers only one of the two calls (:mod:`ov.hosts.runtime`).
* **Claude Code** holds back every hook of an interactive session until its workspace-trust
  dialog is accepted (``-p`` runs count as trusted).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

from ov.hosts.install import Spec

# Codex names events in trust keys in snake case.
_CODEX_EVENTS = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop", "PreCompact": "pre_compact", "SessionEnd": "session_end"}


def after_install(spec: Spec, *, trust: bool, dry_run: bool) -> list[str]:
    if spec.host == "codex":
        return _codex(spec, trust=trust, dry_run=dry_run)
    if spec.host == "gemini" and spec.scope == "project":
        return [f"gemini   runs project hooks only in a trusted folder: trust {spec.path.parent.parent} when Gemini CLI asks"]
    if spec.host == "claude" and spec.scope == "project":
        return ["claude   holds back project hooks until you accept its workspace-trust dialog"]
    if spec.host == "opencode":
        return ["opencode loads ov's plugin when it next starts"]
    return []


def _codex(spec: Spec, *, trust: bool, dry_run: bool) -> list[str]:
    if codex_hooks_off(spec):
        # The user turned hooks off on purpose: say so rather than flip it.
        return [f"codex    hooks are turned off in {spec.path.parent / 'config.toml'} ([features] hooks = false): ov's hooks will not run until you set it to true"]
    if not trust:
        return [
            "codex    runs new hooks only after you review them: open /hooks in Codex and trust ov's, "
            "or run `ov install hooks --host codex --trust`"
        ]
    if dry_run:
        return ["codex    --trust would mark ov's hooks as reviewed"]
    binary = shutil.which("codex")
    if binary is None:
        return ["codex    --trust needs the `codex` program on PATH; trust ov's hooks with /hooks in Codex instead"]
    try:
        trusted = codex_trust(spec, binary)
    except (OSError, RuntimeError, TimeoutError, ValueError) as exc:
        return [f"codex    could not record the review ({exc}); trust ov's hooks with /hooks in Codex"]
    return [f"codex    trusted ov's hooks: {', '.join(trusted) if trusted else 'already trusted'}"]


def codex_trust(spec: Spec, binary: str, *, cwd: Path | None = None, timeout: float = 30.0) -> list[str]:
    """Mark ov's handlers in ``spec.path`` reviewed in Codex; the trust keys written."""
    ours = _codex_positions(spec)
    env = dict(os.environ)
    if spec.scope == "user" and "CODEX_HOME" not in env:
        env["CODEX_HOME"] = str(spec.path.parent)
    with _JsonRpc([binary, "app-server"], env, cwd or spec.path.parent, timeout) as rpc:
        rpc.call("initialize", {"clientInfo": {"name": "ov", "version": "1"}})
        rpc.notify("initialized")
        listing = rpc.call("hooks/list", {"cwds": [str(cwd or Path.cwd())]})
        pending = {
            hook["key"]: {"trusted_hash": hook["currentHash"]}
            for entry in (listing or {}).get("data", [])
            for hook in entry.get("hooks", [])
            if _position(spec, hook.get("key")) in ours and hook.get("trustStatus") in ("untrusted", "modified") and hook.get("currentHash")
        }
        if pending:
            rpc.call("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "mergeStrategy": "upsert", "value": pending}]})
    return sorted(pending)


def codex_hooks_off(spec: Spec) -> bool:
    """True when Codex's ``config.toml`` turns its hooks off (``[features] hooks = false``, or the old ``codex_hooks``)."""
    features = (_codex_config(spec).get("features") or {})
    return features.get("hooks", features.get("codex_hooks")) is False


def _codex_config(spec: Spec) -> dict:
    try:
        import tomllib

        return tomllib.loads((spec.path.parent / "config.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def codex_untrusted(spec: Spec) -> int:
    """How many of ov's Codex handlers have no review recorded in ``config.toml`` (for ``ov doctor``)."""
    ours = _codex_positions(spec)
    if not ours:
        return 0
    state = (_codex_config(spec).get("hooks") or {}).get("state") or {}
    trusted = {_position(spec, key) for key, value in state.items() if isinstance(value, dict) and value.get("trusted_hash")}
    return len(ours - trusted)


def _codex_positions(spec: Spec) -> set[tuple[str, int, int]]:
    """``(event, group, handler)`` of ov's handlers in the file: the tail of Codex's trust keys."""
    from ov.hosts.install import is_ours

    try:
        data = json.loads(spec.path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    positions = set()
    for native, groups in (data.get("hooks") or {}).items():
        for gi, group in enumerate(groups if isinstance(groups, list) else []):
            for hi, handler in enumerate((group or {}).get("hooks") or []):
                if isinstance(handler, dict) and is_ours(handler.get("command")):
                    positions.add((_CODEX_EVENTS.get(native, native), gi, hi))
    return positions


def _position(spec: Spec, key: object) -> tuple[str, int, int] | None:
    """The position a Codex trust key (``<file>:<event>:<group>:<handler>``) names, if it is in ``spec``'s file."""
    if not isinstance(key, str) or key.count(":") < 3:
        return None
    path, event, group, handler = key.rsplit(":", 3)
    try:
        if Path(path).resolve() != spec.path.resolve():
            return None
        return event, int(group), int(handler)
    except (OSError, ValueError):
        return None


class _JsonRpc:
    """Newline-delimited JSON-RPC 2.0 with a child process over its stdin and stdout."""

    def __init__(self, argv: list[str], env: dict, cwd: Path, timeout: float) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(b"")

    def _send(self, message: dict) -> None:
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def notify(self, method: str) -> None:
        self._send({"method": method})

    def call(self, method: str, params: dict):
        self.next_id += 1
        self._send({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise TimeoutError(f"codex app-server did not answer {method} in {self.timeout:g} s") from None
            if not line:
                raise RuntimeError(f"codex app-server ended before answering {method}")
            message = json.loads(line)
            if message.get("id") != self.next_id or "method" in message:
                continue  # a notification or a request of the server's own
            if "error" in message:
                raise RuntimeError(f"codex app-server refused {method}: {message['error'].get('message', message['error'])}")
            return message.get("result")

    def __enter__(self) -> _JsonRpc:
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
