"""``ov install hooks`` / ``ov uninstall hooks``: wiring ``ov hook`` into each host's config, and out again.

======== ===================================================== ===================================
host     file (user scope / project scope)                     entries
======== ===================================================== ===================================
claude   ``~/.claude/settings.json`` / ``.claude/settings.json``  ``hooks.<Event>[].hooks[]``, timeout s
codex    ``~/.codex/hooks.json`` / ``.codex/hooks.json``          the same shape, timeout s
gemini   ``~/.gemini/settings.json`` / ``.gemini/settings.json``  the same shape, ``name``, timeout ms
cursor   ``~/.cursor/hooks.json`` / ``.cursor/hooks.json``        ``{"version": 1, "hooks": {event: [handler]}}``
opencode ``~/.config/opencode/plugins/ov-memory.js`` / ``.opencode/plugins/ov-memory.js``: ov's plugin file
======== ===================================================== ===================================

The rules users of such installers ask for, and how they hold here:

* **Only ov's entries change.** ov's handlers are recognised by their command (``… hook HOST
  EVENT``, whatever path of ``ov`` wrote them). A re-install removes those and appends fresh ones;
  every other entry keeps its place, and the file keeps its formatting and comments
  (:mod:`ov.hosts.jsonc` edits the text in place, :mod:`ov.hosts.tomltable` Codex's table). ov's
  MCP server entry is recognised the same way (``… ov mcp``): one named ``ov`` that runs something
  else is the user's, and is refused on install and left alone on uninstall.
* **A file that does not parse is refused** with its path, line and column, and nothing is written.
* **Writes are atomic**, and the file before ov's first write is kept beside it as ``<file>.ov.bak`` (a
  project's, beside its receipt in ov's home: :func:`backup_path`).
* **A receipt** (``$OV_HOME/installs/<host>-<scope>-<digest>.json``) records the file, what ov
  created (the file itself, the ``hooks`` key, an event's list) and the command installed.
  Uninstall removes ov's entries and then only what the receipt says ov created, so a file ov
  only added to comes back byte for byte.
* **The command** (:func:`entry_command`): in user scope the absolute path of the ``ov`` that runs
  the install, so a virtualenv's ``ov`` keeps working from any directory and for a host whose
  PATH is not the shell's. A project's files are committed and shared, so there it is a bare
  ``ov`` when the installer's PATH finds this very ``ov``; otherwise the absolute path, and the
  install warns that the file names a path on this machine. ``ov doctor`` flags entries whose
  ``ov`` moved, and bare ones that PATH does not find.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from ov.errors import InvalidInput, quote
from ov.files import atomic_write

HOSTS = ("claude", "codex", "gemini", "cursor", "opencode")
SCOPES = ("user", "project")
BACKUP_SUFFIX = ".ov.bak"
BARE_OV = "ov"  # what a project's entries run when PATH finds this ov (see entry_command)
# ov's own entries: whatever launched ov (a bare `ov`, its absolute path, `python -m ov`), a hook's
# command ends with `hook HOST EVENT`, and a server's command line with `mcp`.
_OV = r"(?:^|[\s/'\"])(?:ov|-m\s+ov)['\"]?\s+"
_OURS = re.compile(_OV + r"hook\s+(claude|codex|gemini|cursor|opencode)\s+(session-start|prompt-submit|stop|pre-compact|session-end)\s*$")
_OUR_SERVER = re.compile(_OV + r"mcp\s*$")


class HostConfigError(InvalidInput):
    """A host's config file holds something ov cannot safely add to (wrong types, a foreign plugin)."""

    code = "host_config"
    hint = "fix the file or move it aside, then run the command again (ov never rewrites what it cannot read)"


@dataclass(frozen=True)
class Spec:
    """How one host (in one scope) is wired: its file, its shape and its events."""

    host: str
    scope: str
    path: Path
    shape: str  # "nested" (Claude, Codex, Gemini) | "flat" (Cursor) | "plugin" (OpenCode)
    events: tuple[tuple[str, str, int], ...] = ()  # (host's event name, ov's event, timeout in the host's unit)
    comments: bool = False  # the file may hold comments (JSONC)
    trailing_commas: bool = False  # the host reads a comma after an object's or array's last item (OpenCode)
    named: bool = False  # handlers carry a "name" (Gemini)
    kind: str = "hooks"  # "hooks" | "mcp": what the receipt is about (Gemini keeps both in one file)


@dataclass
class Change:
    """What one install or uninstall does to one file."""

    spec: Spec
    before: bytes | None
    after: bytes | None
    receipt: dict | None  # written after the file (None: the receipt is removed)
    notes: list[str] = field(default_factory=list)
    spec_receipt: dict = field(default_factory=dict)  # the receipt as it was (what an uninstall undoes)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = (self.after or b"").decode("utf-8", "replace").splitlines(keepends=True)
        name = str(self.spec.path)
        return "".join(difflib.unified_diff(old, new, name if self.before is not None else "/dev/null", name if self.after is not None else "/dev/null"))


def is_ours(command: object) -> bool:
    return isinstance(command, str) and _OURS.search(command) is not None


def ov_command() -> list[str]:
    """How hosts should start this ``ov``: its console script's absolute path, else this Python with ``-m ov``."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name in ("ov", "ov.exe") and script.is_file():
        return [str(script.absolute())]
    beside = Path(sys.executable).parent / ("ov.exe" if os.name == "nt" else "ov")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "ov"]


def entry_command(scope: str, env=None) -> list[str]:
    """How ``scope``'s entries start ``ov``: :func:`ov_command`, or in a project a bare ``ov``.

    A project's files go into git, and this machine's path to ``ov`` means nothing on a
    teammate's. So a project gets ``ov`` by name when the installer's PATH finds the very ``ov``
    that would otherwise be written (each machine then runs its own). A user's files are personal:
    there the absolute path stays, which also works for a host whose PATH is not the shell's.
    """
    command = ov_command()
    if scope == "project" and len(command) == 1:
        found = on_path(BARE_OV, env)
        if found is not None and same_file(found, command[0]):
            return [BARE_OV]
    return command


def command_report(scope: str, command: list[str], *, mcp: bool = False, env=None) -> dict:
    """What an install's report says of the ``command`` it wrote into ``scope``'s files: the
    command, whether it names no path of this machine, and a warning when a project's files,
    which teammates share, name one, or (``mcp``) when the server entry leaves out the ov home or
    identity set here (:func:`pinned_env`)."""
    portable = command == [BARE_OV]
    warnings = []
    if scope == "project" and not portable:
        warnings.append(
            f"the project's entries run {shlex.join(command)}, a path on this machine that a teammate's checkout will not have; "
            "put ov on PATH and run the install again for a portable `ov` entry"
        )
    unpinned = sorted(server_env(env)) if mcp and scope == "project" else []
    if unpinned:
        warnings.append(
            f"{', '.join(unpinned)} set here are not written into the project's MCP entries, which teammates share; "
            "a host that starts servers with an environment of its own (Codex) runs ov's with ov's defaults: "
            "set them where the host starts, or register ov's server in user scope"
        )
    return {"command": command, "portable": portable, "warnings": warnings}


def on_path(program: str, env=None) -> str | None:
    """Where the bare ``program`` is found on PATH (``env``'s, else this process's), or None."""
    import shutil

    env = os.environ if env is None else env
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    # A relative PATH entry finds it only from one folder, which is no way for a host to start it.
    return found if found and os.path.isabs(found) else None


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (through links, or a shorter spelling of the same path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def hook_command(command: list[str], host: str, event: str) -> str:
    return shlex.join([*command, "hook", host, event])


# --- where each host keeps its hooks ---------------------------------------------------------


# Seconds (Gemini: milliseconds) each host gives ov's hook, by ov's event; an event a host is not
# wired for is absent. Codex clamps SessionEnd to 3 s (the hook only starts the commit job). Gemini
# gets no pre-compact: its PreCompress fires on ordinary turns, so it says nothing about compaction.
_TIMEOUTS = {
    "claude": {"session-start": 30, "prompt-submit": 10, "stop": 10, "pre-compact": 30, "session-end": 10},
    "codex": {"session-start": 30, "prompt-submit": 10, "stop": 10, "pre-compact": 30, "session-end": 3},
    "gemini": {"session-start": 30000, "prompt-submit": 10000, "stop": 10000, "session-end": 10000},
    "cursor": {"session-start": 30, "prompt-submit": 10, "stop": 10, "pre-compact": 30, "session-end": 10},
}


def config_dir(host: str, scope: str, project: Path, env=None) -> Path:
    """The host's own config folder: in HOME (or where its variable points) or in the project."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home())
    if host not in HOSTS:
        raise InvalidInput(f"unknown host {host!r}", hint=f"hosts are: {', '.join(HOSTS)}")
    if scope == "project":
        return project / f".{host}"
    override = {"claude": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME"}.get(host)
    if override and env.get(override):
        return Path(env[override])
    if host == "opencode":
        return (Path(env["XDG_CONFIG_HOME"]) if env.get("XDG_CONFIG_HOME") else home / ".config") / "opencode"
    return home / f".{host}"


def spec(host: str, scope: str, project: Path, env=None) -> Spec:
    from ov.hosts.host import load

    root = config_dir(host, scope, project, env)
    if host == "opencode":
        from ov.hosts.opencode import PLUGIN_FILE

        return Spec(host, scope, root / "plugins" / PLUGIN_FILE, "plugin")
    native = load(host).native_event
    events = tuple((native(event), event, timeout) for event, timeout in _TIMEOUTS[host].items())
    if host == "cursor":
        return Spec(host, scope, root / "hooks.json", "flat", events)
    name = "hooks.json" if host == "codex" else "settings.json"
    return Spec(host, scope, root / name, "nested", events, comments=host == "gemini", named=host == "gemini")


def detect(env=None) -> list[str]:
    """The hosts that look installed on this machine: their program on PATH or their config folder in HOME."""
    import shutil

    env = os.environ if env is None else env
    programs = {"cursor": ("cursor", "cursor-agent")}
    path = env.get("PATH")
    return [
        host
        for host in HOSTS
        if config_dir(host, "user", Path(), env).is_dir() or any(shutil.which(p, path=path) for p in programs.get(host, (host,)))
    ]


# --- planning ----------------------------------------------------------------------------------


def plan_install(spec_: Spec, command: list[str], receipts_dir: Path) -> Change:
    before = _read(spec_.path)
    receipt = _read_receipt(receipts_dir, spec_) or {}
    if spec_.shape == "plugin":
        return _plan_plugin(spec_, before, command, receipt)
    doc = _parse(spec_, before)
    created = [list(p) for p in receipt.get("created", [])] if before is not None else []
    _remove_ours(doc, spec_)
    if spec_.shape == "flat" and ("version",) not in doc:
        doc.set(("version",), 1)
        created.append(["version"])
    if ("hooks",) not in doc:
        created.append(["hooks"])
    for native, event, timeout in spec_.events:
        if ("hooks", native) not in doc:
            created.append(["hooks", native])
        doc.append(("hooks", native), _entry(spec_, command, native, event, timeout))
    after = doc.text().encode("utf-8")
    if before is None and not after.endswith(b"\n"):
        after += b"\n"
    valueless = _valueless(spec_, before, receipt)
    return Change(spec_, before, after, _receipt(spec_, receipt, before is None, created, command, valueless, events=[e for _n, e, _t in spec_.events]))


def plan_uninstall(spec_: Spec, receipts_dir: Path) -> Change:
    before = _read(spec_.path)
    receipt = _read_receipt(receipts_dir, spec_) or {}
    if before is None:
        return Change(spec_, None, None, None, spec_receipt=receipt)
    if spec_.shape == "plugin":
        from ov.hosts.opencode import PLUGIN_MARKER

        if not before.startswith(PLUGIN_MARKER.encode()):
            return Change(spec_, before, before, None, [f"{spec_.path} is not ov's plugin: left as it is"])
        return Change(spec_, before, None, None, spec_receipt=receipt)
    doc = _parse(spec_, before)
    _remove_ours(doc, spec_)
    for path in sorted((tuple(p) for p in receipt.get("created", [])), key=len, reverse=True):
        # What ov created goes: a list or object once empty, a value (Cursor's "version") always.
        if path in doc and (doc.get(path) in ({}, []) or not isinstance(doc.get(path), (dict, list))):
            doc.remove(path)
    after: bytes | None = _given_back(spec_, doc, receipt)
    if receipt.get("created_file") and doc.value() == {}:
        after = None  # ov made the file: it goes
    return Change(spec_, before, after, None, spec_receipt=receipt)


def apply(change: Change, receipts_dir: Path) -> None:
    """Write the file (atomically, the file before ov's first write kept at :func:`backup_path`)
    and then the receipt.

    An uninstall that gives the file back as it was before the install also takes the backup
    and the folders the install made away: nothing of ov's is left in the host's config. One
    that leaves the file to another receipt of ov's hands these over to it (:func:`_hand_over_file`).
    """
    path = change.spec.path
    backup = backup_path(change.spec, receipts_dir)
    # A settings file linked from a dotfiles folder: the file the link names is the one to change
    # (replacing the link by a file would cut it off from the user's dotfiles), and to remove when
    # ov made it (a link to a file not made yet stays the dangling link it was).
    target = path.resolve() if path.is_symlink() else path
    if change.changed:
        if change.after is None:
            _unlink(target)  # gone already when the hooks' uninstall of the same file took it (Gemini)
        else:
            made = _missing_parents(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            # The backup is the file before ov's first write: a re-install (from another ov, say),
            # or the server joining the hooks in one file, keeps it.
            if change.before is not None and change.receipt is not None and not _held(receipts_dir, change.spec):
                backup.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(backup, change.before, mode=0o600)
            existed = target.exists()
            mode = target.stat().st_mode & 0o777 if existed else (0o644 if change.spec.shape == "plugin" else 0o600)
            atomic_write(target, change.after, mode=mode)
            if existed:
                os.chmod(target, mode)  # as it was: the umask narrows what a new file is created with
            if change.receipt is not None and made:
                change.receipt["created_dirs"] = list(dict.fromkeys([*change.receipt.get("created_dirs", []), *map(str, made)]))
    # An uninstall undoes the receipt as it is now: one earlier in the same run may have handed it
    # a folder (`--with-mcp`: Codex's hooks.json went, and config.toml's receipt took .codex/).
    undone = _with_file_facts(change.spec_receipt, _read_receipt(receipts_dir, change.spec) or {}) if change.receipt is None else {}
    heir = _heir(receipts_dir, change.spec) if change.receipt is None and change.after is not None else None
    if heir is not None:
        _hand_over_file(receipts_dir, change.spec, undone, *heir)
    elif change.receipt is None:  # an uninstall, and no other receipt of ov's holds the file
        restored = change.after is None or (backup.exists() and backup.read_bytes() == change.after)
        if restored:
            _unlink(backup)
        beside = path.with_name(path.name + BACKUP_SUFFIX)  # where earlier builds kept a project's too
        if beside != backup and change.after is not None and beside.is_file() and beside.read_bytes() == change.after:
            _unlink(beside)
        if change.after is None:
            for folder in sorted((Path(p) for p in undone["created_dirs"]), key=lambda p: len(p.parts), reverse=True):
                try:
                    folder.rmdir()  # only when empty: whatever else is in it stays
                except OSError:
                    _hand_over_folder(receipts_dir, change.spec, folder)
    receipt_path = _receipt_path(receipts_dir, change.spec)
    if change.receipt is None:
        try:
            receipt_path.unlink()
        except FileNotFoundError:
            pass
    else:
        receipt_path.parent.mkdir(parents=True, exist_ok=True)
        _write_receipt(receipt_path, change.receipt)


def _write_receipt(path: Path, receipt: dict) -> None:
    atomic_write(path, (json.dumps(receipt, indent=2, sort_keys=True) + "\n").encode(), mode=0o600)


def _hand_over_folder(receipts_dir: Path, spec_: Spec, folder: Path) -> None:
    """A folder ov made that another of ov's files still holds (Codex's hooks.json and config.toml
    in one .codex/): the receipt of that file takes it over, so the last uninstall removes it."""
    if not folder.is_dir():
        return
    for path, receipt in _other_receipts(receipts_dir, spec_):
        if not Path(str(receipt.get("file", ""))).is_relative_to(folder):
            continue
        dirs = receipt.get("created_dirs") if isinstance(receipt.get("created_dirs"), list) else []
        if str(folder) not in dirs:
            receipt["created_dirs"] = [*dirs, str(folder)]
            _write_receipt(path, receipt)


def _hand_over_file(receipts_dir: Path, spec_: Spec, receipt: dict, heir_path: Path, heir: dict) -> None:
    """An uninstall that leaves the file to another receipt of ov's (Gemini's hooks and server
    share settings.json): that receipt takes over what ``receipt`` said of the file itself, and
    the backup, so the last uninstall gives the file back as it was and removes the folders."""
    _write_receipt(heir_path, _with_file_facts(heir, receipt))
    own, theirs = backup_path(spec_, receipts_dir), backup_path(replace(spec_, kind=str(heir.get("kind"))), receipts_dir)
    if own == theirs or not own.exists():
        return  # a user's file has one backup beside it, whichever receipt wrote it
    if theirs.exists() and str(heir.get("installed_at", "")) < str(receipt.get("installed_at", "")):
        _unlink(own)  # the older backup is the file before ov's first write
    else:
        os.replace(own, theirs)


def _with_file_facts(receipt: dict, other: dict) -> dict:
    """``receipt`` with what ``other``, a receipt of the same file, says of the file itself: that
    ov made it, the text it held when it held no value, the folders ov made for it."""
    merged = {**receipt, "created_file": bool(receipt.get("created_file") or other.get("created_file"))}
    if not isinstance(merged.get("valueless"), str) and isinstance(other.get("valueless"), str):
        merged["valueless"] = other["valueless"]
    dirs = [d for r in (receipt, other) if isinstance(r.get("created_dirs"), list) for d in r["created_dirs"]]
    merged["created_dirs"] = list(dict.fromkeys(dirs))
    return merged


def _other_receipts(receipts_dir: Path, spec_: Spec):
    """ov's receipts (path, receipt) other than ``spec_``'s own."""
    own = _receipt_path(receipts_dir, spec_)
    for path in sorted(receipts_dir.glob("*.json")):
        if path == own:
            continue
        try:
            receipt = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(receipt, dict):
            yield path, receipt


def _heir(receipts_dir: Path, spec_: Spec) -> tuple[Path, dict] | None:
    """Another receipt of ov's for ``spec_``'s very file, if any."""
    return next(((path, r) for path, r in _other_receipts(receipts_dir, spec_) if r.get("file") == str(spec_.path)), None)


def _held(receipts_dir: Path, spec_: Spec) -> bool:
    """Whether ov has written to ``spec_``'s file already (a receipt of either kind names it)."""
    return _receipt_path(receipts_dir, spec_).exists() or _heir(receipts_dir, spec_) is not None


def plugin_outdated(spec_: Spec) -> bool:
    """Whether ov's plugin at ``spec_.path`` differs from the one this ov writes for the same
    command: an upgrade changed the plugin, and the file keeps the old one until reinstalled."""
    from ov.hosts.opencode import plugin_source

    text = _plugin_text(_read(spec_.path))
    command = _plugin_command(text) if text is not None else None
    return command is not None and text != plugin_source(command)


def _plugin_text(before: bytes | None) -> str | None:
    """The text of ov's plugin from the file's bytes; None when there is no file, or it is not ov's."""
    from ov.hosts.opencode import PLUGIN_MARKER

    text = before.decode("utf-8", "replace") if before is not None else None
    return text if text is not None and text.startswith(PLUGIN_MARKER) else None


def _plugin_command(text: str) -> list[str] | None:
    """The ``ov`` command a plugin starts, from its ``const OV = [...]`` line."""
    match = re.search(r"^const OV = (\[.*\]);$", text, re.M)
    try:
        command = json.loads(match.group(1)) if match else None
    except ValueError:
        return None
    return command if isinstance(command, list) and command and all(isinstance(c, str) for c in command) else None


def installed_entries(spec_: Spec) -> dict[str, list[str]]:
    """ov's commands in the host's file, by the host's event name (empty when none or unreadable)."""
    before = _read(spec_.path)
    if before is None:
        return {}
    if spec_.shape == "plugin":
        text = _plugin_text(before)
        if text is None:
            return {}
        command = _plugin_command(text)
        return {"plugin": [shlex.join(command)] if command else []}
    try:
        doc = _parse(spec_, before)
    except InvalidInput:
        return {}
    found: dict[str, list[str]] = {}
    hooks = doc.get(("hooks",), {})
    for native, items in (hooks.items() if isinstance(hooks, dict) else []):
        for handler in _handlers(spec_, items):
            if is_ours(handler.get("command")):
                found.setdefault(native, []).append(handler["command"])
    return found


# --- the MCP server's registration ------------------------------------------------------------------

MCP_NAME = "ov"


def mcp_spec(host: str, scope: str, project: Path, env=None) -> Spec:
    """Where ``host`` registers MCP servers (``ov install mcp``)."""
    env = os.environ if env is None else env
    root = config_dir(host, scope, project, env)
    if host == "claude":
        # A user's servers are in .claude.json: in HOME, or with $CLAUDE_CONFIG_DIR set in that
        # folder (Claude Code then reads no other, and `claude mcp add -s user` writes there).
        home = root if env.get("CLAUDE_CONFIG_DIR") else Path(env.get("HOME") or Path.home())
        path = home / ".claude.json" if scope == "user" else project / ".mcp.json"
        return Spec(host, scope, path, "mcp-json", kind="mcp")
    if host == "codex":
        return Spec(host, scope, root / "config.toml", "mcp-toml", kind="mcp")
    if host == "opencode":
        folder = root if scope == "user" else project  # a project's opencode.json sits at its root
        name = "opencode.jsonc" if (folder / "opencode.jsonc").exists() and not (folder / "opencode.json").exists() else "opencode.json"
        # OpenCode reads both of its names as JSONC, trailing commas included; Claude Code and
        # Gemini CLI refuse a trailing comma (Gemini takes comments), and so does ov in their files.
        return Spec(host, scope, folder / name, "mcp-json", comments=True, trailing_commas=True, kind="mcp")
    name = "settings.json" if host == "gemini" else "mcp.json"
    return Spec(host, scope, root / name, "mcp-json", comments=host == "gemini", kind="mcp")


# What says which store and identity ov acts for, when it comes from the environment.
SERVER_ENV = ("OV_HOME", "OV_ACCOUNT", "OV_USER", "OV_PEER")


def pinned_env(scope: str, env=None) -> dict[str, str]:
    """What ``scope``'s server entry pins: :func:`server_env` in a user's file; nothing in a
    project's, which a team commits: this machine's ``OV_HOME`` means nothing on another, and an
    ``OV_USER`` there would have every teammate's server read and write as this user."""
    return server_env(env) if scope == "user" else {}


def server_env(env=None) -> dict[str, str]:
    """What the registered server must be told: the ov home and identity the install ran with,
    where they came from the environment. Hosts start MCP servers with an environment of their
    own (Codex passes a handful of variables), so these would not reach the server, and its
    tools would act on another store, or as another user, than the hooks."""
    env = os.environ if env is None else env
    out = {name: env[name] for name in SERVER_ENV if env.get(name)}
    if "OV_HOME" in out:
        out["OV_HOME"] = str(Path(out["OV_HOME"]).expanduser().absolute())
    return out


def mcp_entry(host: str, command: list[str], *, trust: bool = False, env: dict[str, str] | None = None) -> tuple[tuple[str, ...], dict]:
    """Where ov's server goes in the host's file, and its entry."""
    program, *args = [*command, "mcp"]
    if host == "opencode":
        entry: dict = {"type": "local", "command": [program, *args], "enabled": True}
        if env:
            entry["environment"] = env
        return ("mcp", MCP_NAME), entry
    entry = {"command": program, "args": args}
    if host == "claude":
        entry = {"type": "stdio", **entry}
    if host == "codex":
        # Codex waits for a required server before its first model request, so the tools are
        # there from the first turn (without it they were missing in 4 of 8 runs).
        entry["required"] = True
        # `codex exec` runs with approval "never": without this every tool call is refused.
        entry["default_tools_approval_mode"] = "approve"
    if env:
        entry["env"] = env
    if host == "gemini" and trust:
        entry["trust"] = True  # Gemini offers an untrusted server's tools only after asking
    return ("mcp_servers" if host == "codex" else "mcpServers", MCP_NAME), entry


def is_our_server(entry: object) -> bool:
    """Whether a host's server entry named ``ov`` is ov's: its command line ends with ``ov mcp``
    (a bare ``ov``, any path of it, ``python -m ov``), as the hooks' are recognised. An entry with
    neither a command nor a URL starts no server (Codex refuses to load one): it is what earlier
    builds' uninstall left of ov's Codex table (``[mcp_servers.ov.env]``), so it counts as ov's."""
    if not isinstance(entry, dict):
        return False
    line = _server_command(entry)
    if line is not None:
        return _OUR_SERVER.search(shlex.join(line)) is not None
    return not any(key in entry for key in ("command", "url", "httpUrl", "serverUrl"))


def _server_command(entry: dict) -> list[str] | None:
    """A server entry's command line: OpenCode's ``command`` list, or ``command`` and ``args``."""
    command, args = entry.get("command"), entry.get("args", [])
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        return command
    if isinstance(command, str) and isinstance(args, list) and all(isinstance(a, str) for a in args):
        return [command, *args]
    return None


def _not_ours(spec_: Spec, path: tuple[str, ...], entry: object) -> str | None:
    """What the entry at ``path`` is, when it is someone else's server named ``ov`` (None when it is ov's or absent)."""
    if entry is None or is_our_server(entry):
        return None
    where = f"[{'.'.join(path)}]" if spec_.shape == "mcp-toml" else ".".join(path)
    line = _server_command(entry) if isinstance(entry, dict) else None
    if line is not None:
        what = f"it runs {quote(shlex.join(line))}"
    elif isinstance(entry, dict) and isinstance(entry.get("url") or entry.get("httpUrl"), str):
        what = f"it connects to {quote(entry.get('url') or entry.get('httpUrl'))}"
    else:
        what = "it is not a server entry ov writes"
    return f"the MCP server {where} in {spec_.path} is not ov's ({what})"


def plan_mcp_install(spec_: Spec, command: list[str], receipts_dir: Path, *, trust: bool = False, along: Change | None = None) -> Change:
    """Register ov's server in ``spec_``'s file. ``along``: the hooks' install planned in the same
    run; when it writes the same file (Gemini keeps hooks and servers in one settings.json) the
    server goes into what it writes, and both changes write the same bytes, each with its own
    receipt (planned apart, the second write would drop the first one's entries).

    An entry named ``ov`` that is not ov's (:func:`is_our_server`) is refused, never replaced: it
    is the user's own server."""
    before = _read(spec_.path)
    receipt = _read_receipt(receipts_dir, spec_) or {}
    shared = along if along is not None and along.spec.path == spec_.path else None
    text = shared.after if shared is not None else before
    path, entry = mcp_entry(spec_.host, command, trust=trust, env=pinned_env(spec_.scope))
    if spec_.shape == "mcp-toml":
        from ov.hosts import tomltable

        source, values = tomltable.read(text, spec_.path) if text is not None else ("", {})
        _refuse_foreign(spec_, path, tomltable.get(values, path, spec_.path))
        after = tomltable.put(source, values, path, entry, spec_.path).encode("utf-8")
        created: list[list[str]] = []
    else:
        doc = _parse(spec_, text)
        _refuse_foreign(spec_, path, doc.get(path))
        created = [list(p) for p in receipt.get("created", [])] if before is not None else []
        if path[:1] not in doc:
            created.append(list(path[:1]))
        doc.set(path, entry)
        after = doc.text().encode("utf-8")
        if text is None and not after.endswith(b"\n"):
            after += b"\n"
    if shared is not None:
        shared.after = after
    valueless = _valueless(spec_, before, receipt) if spec_.shape != "mcp-toml" else None
    return Change(spec_, before, after, _receipt(spec_, receipt, before is None, created, command, valueless))


def _refuse_foreign(spec_: Spec, path: tuple[str, ...], entry: object) -> None:
    said = _not_ours(spec_, path, entry)
    if said is not None:
        raise HostConfigError(
            said,
            hint=f"rename your server (ov registers its own under the name `{MCP_NAME}`) or remove it, then run the command again; ov never replaces a server it did not write",
        )


def plan_mcp_uninstall(spec_: Spec, receipts_dir: Path, *, along: Change | None = None) -> Change:
    """Take ov's server out of ``spec_``'s file; an entry named ``ov`` that is not ov's stays, with
    a note. ``along``: the hooks' uninstall planned in the same run; when it writes the same file
    (Gemini) the server comes out of what it writes, both changes write the same bytes, and whether
    ov made the file is what either receipt says."""
    before = _read(spec_.path)
    receipt = _read_receipt(receipts_dir, spec_) or {}
    shared = along if along is not None and along.spec.path == spec_.path else None
    if shared is not None:
        receipt = _with_file_facts(receipt, shared.spec_receipt)
    data = shared.after if shared is not None else before
    if data is None:
        return Change(spec_, before, None, None, spec_receipt=receipt)
    path, _entry = mcp_entry(spec_.host, [])
    if spec_.shape == "mcp-toml":
        from ov.hosts import tomltable

        text, values = tomltable.read(data, spec_.path)
        said = _not_ours(spec_, path, tomltable.get(values, path, spec_.path))
        if said is None:
            text = tomltable.drop(text, values, path, spec_.path)
        after: bytes | None = text.encode("utf-8")
        empty = not text.strip()
    else:
        doc = _parse(spec_, data)
        said = _not_ours(spec_, path, doc.get(path))
        if said is None:
            doc.remove(path)
            for created in sorted((tuple(p) for p in receipt.get("created", [])), key=len, reverse=True):
                if created in doc and doc.get(created) in ({}, []):
                    doc.remove(created)
        after = _given_back(spec_, doc, receipt)
        empty = doc.value() == {}
    if said is not None:
        # The server's change is none: the file stays as it is, or as the hooks' change (``along``) leaves it.
        return Change(spec_, data, data, None, [f"{said}: left as it is"], spec_receipt=receipt)
    if receipt.get("created_file") and empty:
        after = None
    if shared is not None:
        shared.after = after
    return Change(spec_, before, after, None, spec_receipt=receipt)


def registered_mcp(spec_: Spec) -> list[str] | None:
    """The command line of ov's registered server in the host's file, or None."""
    entry = _registered_entry(spec_)
    return _server_command(entry) if entry is not None else None


def registered_mcp_env(spec_: Spec) -> dict[str, str]:
    """The ov home and identity the registered server is told (:func:`server_env`), if any."""
    entry = _registered_entry(spec_) or {}
    env = entry.get("environment" if spec_.host == "opencode" else "env")
    return {k: str(v) for k, v in env.items() if k in SERVER_ENV} if isinstance(env, dict) else {}


def _registered_entry(spec_: Spec) -> dict | None:
    """ov's server entry in the host's file, as parsed; None when there is none, or the entry
    named ``ov`` is someone else's (:func:`is_our_server`), or it starts nothing."""
    data = _read(spec_.path)
    if data is None:
        return None
    path, _entry = mcp_entry(spec_.host, [])
    try:
        if spec_.shape == "mcp-toml":
            from ov.hosts import tomltable

            entry = tomltable.get(tomltable.read(data, spec_.path)[1], path, spec_.path)
        else:
            entry = _parse(spec_, data).get(path)
    except InvalidInput:
        return None
    return entry if isinstance(entry, dict) and is_our_server(entry) and _server_command(entry) else None


# --- editing one file ------------------------------------------------------------------------------


def _entry(spec_: Spec, command: list[str], native: str, event: str, timeout: int) -> dict:
    handler: dict = {"type": "command", "command": hook_command(command, spec_.host, event), "timeout": timeout}
    if spec_.named:
        handler = {"name": f"ov-{event}", **handler}
    if spec_.shape == "flat":
        return {"command": handler["command"], "timeout": timeout}
    return {"hooks": [handler]}


def _handlers(spec_: Spec, items) -> list[dict]:
    if not isinstance(items, list):
        return []
    if spec_.shape == "flat":
        return [h for h in items if isinstance(h, dict)]
    return [h for group in items if isinstance(group, dict) and isinstance(group.get("hooks"), list) for h in group["hooks"] if isinstance(h, dict)]


def _remove_ours(doc, spec_: Spec) -> None:
    """Take every ov handler out of the file; a group left with no handler goes too."""
    hooks = doc.get(("hooks",))
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise HostConfigError(f"{spec_.path}: `hooks` is {type(hooks).__name__}, not an object", hint="fix the file, then run the command again")
    for native, items in hooks.items():
        if not isinstance(items, list):
            raise HostConfigError(f"{spec_.path}: `hooks.{native}` is not a list", hint="fix the file, then run the command again")
        for gi in range(len(items) - 1, -1, -1):
            item = items[gi]
            if spec_.shape == "flat":
                if isinstance(item, dict) and is_ours(item.get("command")):
                    doc.remove(("hooks", native, gi))
                continue
            handlers = item.get("hooks") if isinstance(item, dict) else None
            if not isinstance(handlers, list):
                continue
            ours = [hi for hi, h in enumerate(handlers) if isinstance(h, dict) and is_ours(h.get("command"))]
            if ours and len(ours) == len(handlers):
                doc.remove(("hooks", native, gi))  # a group that held only ov's handlers was ov's
            else:
                for hi in reversed(ours):
                    doc.remove(("hooks", native, gi, "hooks", hi))


def _plan_plugin(spec_: Spec, before: bytes | None, command: list[str], receipt: dict) -> Change:
    from ov.hosts.opencode import PLUGIN_MARKER, plugin_source

    if before is not None and not before.startswith(PLUGIN_MARKER.encode()):
        raise HostConfigError(
            f"{spec_.path} exists and is not ov's plugin",
            hint="move it aside (ov never overwrites a file it did not write), then run the command again",
        )
    after = plugin_source(command).encode("utf-8")
    return Change(spec_, before, after, _receipt(spec_, receipt, True, [], command, events=["session-start", "prompt-submit", "stop", "pre-compact"]))


def _parse(spec_: Spec, data: bytes | None):
    from ov.hosts import jsonc

    if data is None:
        return jsonc.parse("{}", name=spec_.path, comments=spec_.comments)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostConfigError(f"{spec_.path} is not UTF-8 text (byte {exc.start})", hint="fix the file or move it aside, then run the command again") from None
    doc = jsonc.parse(text, name=spec_.path, comments=spec_.comments, trailing_commas=spec_.trailing_commas, empty_as_object=True)  # ConfigFileInvalid: path, line, column
    if not isinstance(doc.value(), dict):
        raise HostConfigError(f"{spec_.path} holds {type(doc.value()).__name__}, not a JSON object", hint="fix the file or move it aside, then run the command again")
    return doc


def _valueless(spec_: Spec, before: bytes | None, old: dict) -> str | None:
    """The text of a file that held no value before ov's first write (empty, or only comments),
    for the uninstall to give back; a re-install keeps what ``old``, the receipt, says."""
    if old or before is None:
        return old.get("valueless") if isinstance(old.get("valueless"), str) else None
    return before.decode("utf-8") if () not in _parse(spec_, before) else None


def _given_back(spec_: Spec, doc, receipt: dict) -> bytes:
    """``doc``'s text once ov's entries are out; when that leaves only the ``{}`` ov's first
    write gave a file that held no value, the file's old text (an empty file stays empty)."""
    text = doc.text()
    old = receipt.get("valueless")
    if isinstance(old, str) and doc.value() == {}:
        probe = _parse(spec_, old.encode("utf-8"))
        probe.set((), {})  # what ov's first edit made of it: its comments, then `{}`
        if probe.text() == text:
            return old.encode("utf-8")
    return text.encode("utf-8")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HostConfigError(f"cannot read {path}: {exc.strerror}") from None


def backup_path(spec_: Spec, receipts_dir: Path) -> Path:
    """Where the file as it was before ov's last write is kept: beside it (``<file>.ov.bak``) in
    user scope; for a project, whose files a team commits, beside the receipt in ov's home, so that
    no copy of ov's making lands in the project (``git add -A`` would take it)."""
    if spec_.scope == "project":
        return _receipt_path(receipts_dir, spec_).with_suffix(".bak")
    return spec_.path.with_name(spec_.path.name + BACKUP_SUFFIX)


def _receipt_path(receipts_dir: Path, spec_: Spec) -> Path:
    digest = hashlib.sha256(str(spec_.path).encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return receipts_dir / f"{spec_.host}-{spec_.kind}-{spec_.scope}-{digest}.json"


def _read_receipt(receipts_dir: Path, spec_: Spec) -> dict | None:
    try:
        data = json.loads(_receipt_path(receipts_dir, spec_).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _unique(paths: list[list[str]]) -> list[list[str]]:
    seen, out = set(), []
    for p in paths:
        if tuple(p) not in seen:
            seen.add(tuple(p))
            out.append(p)
    return out


def _receipt(spec_: Spec, old: dict, new_file: bool, created: list[list[str]], command: list[str], valueless: str | None = None, **extra) -> dict:
    """The receipt of an install: what ov wrote where, and what it created (kept from ``old``)."""
    return {
        "host": spec_.host,
        "scope": spec_.scope,
        "kind": spec_.kind,
        "file": str(spec_.path),
        "created_file": True if new_file else old.get("created_file", False),
        "created": _unique(created),
        "command": command,
        **({"valueless": valueless} if valueless is not None else {}),
        **extra,
        "created_dirs": old.get("created_dirs", []),
        "installed_at": old.get("installed_at") or _now(),
        "updated_at": _now(),
    }


def _missing_parents(path: Path) -> list[Path]:
    """The folders above ``path`` that do not exist yet, outermost first."""
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(parent)
    return missing[::-1]


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
