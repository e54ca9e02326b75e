"""Where each host keeps its config: the file ov's hooks, and ov's MCP server, go into.

======== ===================================================== ===================================
host     hooks: file (user scope / project scope)               entries
======== ===================================================== ===================================
claude   ``~/.claude/settings.json`` / ``.claude/settings.json``  ``hooks.<Event>[].hooks[]``, timeout s
codex    ``~/.codex/hooks.json`` / ``.codex/hooks.json``          the same shape, timeout s
gemini   ``~/.gemini/settings.json`` / ``.gemini/settings.json``  the same shape, ``name``, timeout ms
cursor   ``~/.cursor/hooks.json`` / ``.cursor/hooks.json``        ``{"version": 1, "hooks": {event: [handler]}}``
opencode ``~/.config/opencode/plugins/ov-memory.js`` / ``.opencode/plugins/ov-memory.js``: ov's plugin file
======== ===================================================== ===================================

A :class:`Spec` names one such file and how it is shaped; :func:`spec` gives the hooks' and
:func:`mcp_spec` the MCP server's. Nothing here reads or writes the files (:func:`detect` lists
what a host's folder holds).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ov.errors import InvalidInput
from ov.hosts.ovcommand import same_file

HOSTS = ("claude", "codex", "gemini", "cursor", "opencode")
SCOPES = ("user", "project")


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
    shape: str  # "nested" (Claude, Codex, Gemini) | "flat" (Cursor) | "plugin" (OpenCode) | "mcp-json" | "mcp-toml"
    events: tuple[tuple[str, str, int], ...] = ()  # (host's event name, ov's event, timeout in the host's unit)
    comments: bool = False  # the file may hold comments (JSONC)
    trailing_commas: bool = False  # the host reads a comma after an object's or array's last item (OpenCode)
    named: bool = False  # handlers carry a "name" (Gemini)
    guarded: bool = False  # the host blocks a turn on a hook that cannot start: ov's command is guarded (Gemini, ovcommand.hook_command)
    kind: str = "hooks"  # "hooks" | "mcp" | "trust" (Codex's reviews, which --trust wrote): what the change and its receipt are about


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
    home = _home(env)
    if host not in HOSTS:
        raise InvalidInput(f"unknown host {host!r}", hint=f"hosts are: {', '.join(HOSTS)}")
    if scope == "project":
        return project / f".{host}"
    override = {"claude": "CLAUDE_CONFIG_DIR", "codex": "CODEX_HOME"}.get(host)
    if override and env.get(override):
        return Path(env[override])
    if host == "opencode":
        # The XDG spec: a relative value is invalid and ignored. Taken from the current folder, the
        # plugin went where no opencode started elsewhere looks, nor an uninstall run elsewhere.
        xdg = env.get("XDG_CONFIG_HOME")
        return (Path(xdg) if xdg and os.path.isabs(xdg) else home / ".config") / "opencode"
    return home / f".{host}"


def spec(host: str, scope: str, project: Path, env=None) -> Spec:
    """Where ``host`` keeps its hooks (``ov install hooks``)."""
    from ov.hosts.host import load

    root = config_dir(host, scope, project, env)
    if host == "opencode":
        from ov.hosts.opencode import PLUGIN_FILE

        return Spec(host, scope, root / "plugins" / PLUGIN_FILE, "plugin")
    loaded = load(host)
    events = tuple((loaded.native_event(event), event, timeout) for event, timeout in _TIMEOUTS[host].items())
    events += tuple((native, event, _TIMEOUTS[host][event]) for native, event in loaded.extra_events)
    if host == "cursor":
        return Spec(host, scope, root / "hooks.json", "flat", events)
    name = "hooks.json" if host == "codex" else "settings.json"
    gemini = host == "gemini"
    return Spec(host, scope, root / name, "nested", events, comments=gemini, named=gemini, guarded=gemini)


def mcp_spec(host: str, scope: str, project: Path, env=None) -> Spec:
    """Where ``host`` registers MCP servers (``ov install mcp``)."""
    env = os.environ if env is None else env
    root = config_dir(host, scope, project, env)
    if host == "claude":
        # A user's servers are in .claude.json: in HOME, or with $CLAUDE_CONFIG_DIR set in that
        # folder (Claude Code then reads no other, and `claude mcp add -s user` writes there).
        home = root if env.get("CLAUDE_CONFIG_DIR") else _home(env)
        path = home / ".claude.json" if scope == "user" else project / ".mcp.json"
        return _claude_mcp(scope, path)
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


def former_mcp_specs(host: str, scope: str, project: Path, env=None) -> list[Spec]:
    """Files where an earlier ov registered ``host``'s server and where ov registers it no more.

    One so far: before ov followed $CLAUDE_CONFIG_DIR, a user's server went into
    ``~/.claude.json`` whatever the variable said. With the variable set, that is now
    :func:`mcp_spec`'s ``$CLAUDE_CONFIG_DIR/.claude.json``, and HOME's file is a former one."""
    env = os.environ if env is None else env
    if host != "claude" or scope != "user" or not env.get("CLAUDE_CONFIG_DIR"):
        return []
    current = mcp_spec(host, scope, project, env).path
    former = _home(env) / ".claude.json"
    if former == current or same_file(str(former), str(current)):
        return []  # $CLAUDE_CONFIG_DIR is HOME itself: one file
    return [_claude_mcp(scope, former)]


def _claude_mcp(scope: str, path: Path) -> Spec:
    return Spec("claude", scope, path, "mcp-json", kind="mcp")


def _home(env) -> Path:
    from ov.home import user_home

    home = user_home(env)
    if home is None:
        raise InvalidInput("HOME is empty and the user has no home folder in the password database", hint="set HOME to your home folder")
    return home


def detect(env=None, receipts_dir: Path | None = None) -> list[str]:
    """The hosts that look installed on this machine: their program on PATH, or their config folder in
    HOME, unless ov made that folder (``receipts_dir``: ov's install receipts say so) and it holds
    nothing but ov's files. ``ov install mcp --host codex`` makes ``~/.codex`` for its
    ``config.toml``, and that says nothing of Codex (``ov doctor`` warned that Codex lacked ov's
    hooks, and a plain ``ov install hooks`` wired them into it); a folder the host made, or one
    the host has written into since, does."""
    import shutil

    env = os.environ if env is None else env
    programs = {"cursor": ("cursor", "cursor-agent")}
    path = env.get("PATH")
    made: set[Path] = set()
    if receipts_dir is not None:
        from ov.hosts.receipts import made_folders  # deferred: receipts imports this module

        made = made_folders(receipts_dir)
    return [
        host
        for host in HOSTS
        if any(shutil.which(p, path=path) for p in programs.get(host, (host,))) or _host_folder(host, env, made)
    ]


def _host_folder(host: str, env, made: set[Path]) -> bool:
    """Whether ``host``'s user config folder is there and not ov's alone: a folder ov made counts
    once it holds an entry other than ov's files (its hooks, its MCP server, an interrupted write's
    temporary file)."""
    folder = config_dir(host, "user", Path(), env)
    if not folder.is_dir():
        return False
    if folder not in made:
        return True
    ours = {spec(host, "user", Path(), env).path, mcp_spec(host, "user", Path(), env).path}
    return _holds_other(folder, ours)


def _holds_other(folder: Path, ours: set[Path]) -> bool:
    from ov.files import is_replacement

    try:
        entries = list(folder.iterdir())
    except OSError:
        return False  # none to look into
    for entry in entries:
        if entry in ours or is_replacement(entry.name):
            continue
        # A folder ov made for its file (OpenCode's plugins/) is ov's while it holds nothing else.
        if entry.is_dir() and not entry.is_symlink() and any(entry in p.parents for p in ours) and not _holds_other(entry, ours):
            continue
        return True
    return False
