"""ov's own command in a host's config: how hosts start this ``ov``, and how ov knows its entries.

* **Which command** (:func:`entry_command`): in user scope the absolute path of the ``ov`` that
  runs the install, so a virtualenv's ``ov`` keeps working from any directory and for a host whose
  PATH is not the shell's. A project's files are committed and shared, so there it is a bare
  ``ov`` when the installer's PATH finds this very ``ov``; otherwise the absolute path, and the
  install warns that the file names a path on this machine (:func:`command_report`).
* **Which entries are ov's** (:func:`is_ours`, :func:`is_our_server`): whatever launched ov (a
  bare ``ov``, its absolute path, a Windows ``ov.exe``, ``ov.cmd`` or ``ov.bat``, ``python -m ov``), a hook's command ends
  with ``hook HOST EVENT`` (Gemini's, guarded, with `` || exit 1`` after it: :func:`hook_command`)
  and a server's command line with ``mcp``. An install from another ov, or on another machine,
  or an older ov's entry, is replaced rather than doubled, and an uninstall finds it.
* **What the server is told** (:func:`server_env`, :func:`pinned_env`): the ov home and identity
  the install ran with, which a host's own environment would not carry.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

BARE_OV = "ov"  # what a project's entries run when PATH finds this ov (see entry_command)

# How ov was started, up to its first argument: a program named `ov` at the start, after a space
# or a path separator (`/`, or Windows' `\`), quoted or not; on Windows `ov.exe`, or the `ov.cmd`
# or `ov.bat` launcher a Windows install may put on PATH instead, in any case, as Windows reads
# names; or `-m ov`. A name that only holds "ov" (`nov`, `ov.exe.bak`, `C:\ov\tool.exe`) is not ov.
_OV = r"(?:^|[\s/\\'\"])(?:ov|(?i:ov\.(?:exe|cmd|bat))|-m\s+ov)['\"]?\s+"
# A hook entry that a host blocks on when ov cannot start (Gemini CLI takes a shell's 126 or 127
# with text on stderr for "deny", and refused every prompt) runs ov through a guard: `exec`, so
# that ov itself gets the host's signals (a timeout's SIGTERM) as an unguarded entry's ov does,
# and with bash's execfail a failed exec returns, and `|| exit 1` makes it the host's non-blocking
# error (the turn goes on; Gemini shows the shell's message as a warning). Bash only: Gemini runs
# hooks through `bash -c` everywhere but on Windows, where ov writes no guard.
GUARDED_HERE = os.name != "nt"
_GUARD_HEAD = "shopt -s execfail; exec "
_GUARD_TAIL = " || exit 1"
_GUARDED_TAIL = r"(?:\s*\|\|\s*exit\s+1)?"
_OURS = re.compile(_OV + r"hook\s+(claude|codex|gemini|cursor|opencode)\s+(session-start|prompt-submit|stop|pre-compact|session-end)" + _GUARDED_TAIL + r"\s*$")
_OUR_SERVER = re.compile(_OV + r"mcp\s*$")

# What says which store and identity ov acts for, when it comes from the environment.
SERVER_ENV = ("OV_HOME", "OV_ACCOUNT", "OV_USER", "OV_PEER")


def is_ours(command: object) -> bool:
    """Whether a hook handler's command is ov's (``… ov hook HOST EVENT``, guarded or not)."""
    return isinstance(command, str) and _OURS.search(command) is not None


def is_guarded(command: str) -> bool:
    """Whether ov's hook ``command`` has the guard that keeps a host from blocking when ov cannot start."""
    return command.startswith(_GUARD_HEAD) and command.rstrip().endswith(_GUARD_TAIL)


def hook_program(command: str) -> str | None:
    """The program ov's hook ``command`` starts (the ``ov``, or the Python of ``python -m ov``), guard or not."""
    if is_guarded(command):
        command = command[len(_GUARD_HEAD) : command.rstrip().rindex(_GUARD_TAIL)]
    try:
        parts = shlex.split(command)
    except ValueError:
        return None
    return parts[0] if parts else None


def is_our_server(entry: object) -> bool:
    """Whether a host's server entry named ``ov`` is ov's: its command line ends with ``ov mcp``
    (a bare ``ov``, any path of it, ``ov.exe``, ``ov.cmd``, ``ov.bat``, ``python -m ov``), as the hooks' are recognised. An entry with
    neither a command nor a URL starts no server (Codex refuses to load one): it is what earlier
    builds' uninstall left of ov's Codex table (``[mcp_servers.ov.env]``), so it counts as ov's."""
    if not isinstance(entry, dict):
        return False
    line = server_command(entry)
    if line is not None:
        return _OUR_SERVER.search(shlex.join(line)) is not None
    return not any(key in entry for key in ("command", "url", "httpUrl", "serverUrl"))


def server_command(entry: dict) -> list[str] | None:
    """A server entry's command line: OpenCode's ``command`` list, or ``command`` and ``args``."""
    command, args = entry.get("command"), entry.get("args", [])
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        return command
    if isinstance(command, str) and isinstance(args, list) and all(isinstance(a, str) for a in args):
        return [command, *args]
    return None


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


def hook_command(command: list[str], host: str, event: str, *, guard: bool = False) -> str:
    """The hook entry's command line; ``guard``: wrapped so that the host does not block on an
    ``ov`` that cannot start (not on Windows, where Gemini runs hooks through PowerShell)."""
    line = shlex.join([*command, "hook", host, event])
    return f"{_GUARD_HEAD}{line}{_GUARD_TAIL}" if guard and GUARDED_HERE else line


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
