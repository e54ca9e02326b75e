"""ov's own command in a host's config: how hosts start this ``ov``, and how ov knows its entries.

* **Which command** (:func:`entry_command`): in user scope the absolute path of the ``ov`` that
  runs the install, so a virtualenv's ``ov`` keeps working from any directory and for a host whose
  PATH is not the shell's. A project's files are committed and shared, so there it is a bare
  ``ov`` when the installer's PATH finds this very ``ov``; otherwise the absolute path, and the
  install warns that the file names a path on this machine (:func:`command_report`).
* **Which entries are ov's** (:func:`is_ours`, :func:`is_our_server`, one rule: :func:`_ov_arguments`):
  an entry whose program is ov (a bare ``ov``, any path of it, a Windows ``ov.exe``, ``ov.cmd`` or
  ``ov.bat``, or a Python started with ``-m ov``), past what ov itself writes ahead of it (``env``
  and the pinned values, ``sh -c 'exec "$0" "$@"'``, Gemini's guard), and then exactly ``hook HOST
  EVENT`` (an entry a project got on 2026-12-05 with ``--scope project``) or ``mcp``. An install from another ov, or on
  another machine, or an older ov's entry, is replaced rather than doubled, and an uninstall finds
  it; a line that only ends like ov's (``bash -c '…' ov hook claude stop``) is someone else's.
* **What the entries are told** (:func:`server_env`, :func:`pinned_env`): the ov home and
  identity the install ran with, which a host's own environment would not carry: in the server
  entry's ``env``, and ahead of each hook's ``ov`` (``env OV_HOME=… ov hook …``, an ``ov`` whose
  path holds a ``=`` through ``sh``; Gemini's guarded command sets them in its own bash), so that one install's hooks and server use one store as one
  user. A project's files, which a team commits, pin nothing; their entries only say they are a
  project's (``env OV_HOOK_SCOPE=project ov hook …``, which any ov runs: :data:`PROJECT_MARK`).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from ov.home import expand_user
from ov.hosts.host import EVENTS, HOST_MODULES, SCOPE_ENV

BARE_OV = "ov"  # what a project's entries run when PATH finds this ov (see entry_command)

# A hook entry that a host blocks on when ov cannot start (Gemini CLI takes a shell's 126 or 127
# with text on stderr for "deny", and refused every prompt) runs ov through a guard: `exec`, so
# that ov itself gets the host's signals (a timeout's SIGTERM) as an unguarded entry's ov does,
# and with bash's execfail a failed exec returns, and `|| exit 1` makes it the host's non-blocking
# error (the turn goes on; Gemini shows the shell's message as a warning). Bash only: Gemini runs
# hooks through `bash -c` everywhere but on Windows, where ov writes no guard.
GUARDED_HERE = os.name != "nt"
_GUARD_START = "shopt -s execfail; "
_GUARD_HEAD = _GUARD_START + "exec "
_GUARD_TAIL = " || exit 1"
# The program that sets a pinned home and identity for the ov it starts, in every host's shell
# (fish and csh have no `NAME=value command`) and for OpenCode's spawn, which runs no shell.
_ENV = "env"
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# `env` takes each word holding a `=` ahead of its command for one more assignment (POSIX: the
# first word without one is the program), a path too: `env OV_HOME=… /opt/a=b/bin/ov hook …` set
# a variable named "/opt/a" and ran `hook`. Such a program is started by `sh`, whose
# `exec "$0" "$@"` runs its first argument as the program (single-quoted: literal in sh, bash,
# zsh, fish and csh alike, and no shell at all for OpenCode's spawn). A value may hold `=`: env
# splits an assignment at its first.
_BY_SH = ("sh", "-c", 'exec "$0" "$@"')
# Where no `env` program is there to carry them (Windows), the hooks follow the host's environment.
PINS_HOOKS_HERE = os.name != "nt"
# A project's entry says so in its environment (`env OV_HOOK_SCOPE=project ov hook …`, :data:`SCOPE_ENV`):
# where the user's own file holds ov's hook for the event too, the host runs both, and the
# project's defers (:func:`ov.hosts.hookentries.user_scope_answers`). An older ov ignores the
# variable and answers; the option that said it from 2026-12-05 (`--scope project`,
# :data:`PROJECT_MARK`) made every ov before it exit 2, which hosts read as "block the prompt",
# so it is only read (an entry installed then defers, and is replaced by an install), never written.
PROJECT_MARK = ("--scope", "project")
PROJECT_ASSIGNMENT = {SCOPE_ENV: "project"}
# An entry is ov's by its words, not by how its joined line ends: `bash -c '…' ov mcp` ends in
# `ov mcp` too, and runs whatever its `-c` says (`ov` and `mcp` are only its $0 and $1).
# So the program itself must be ov (any path of it, Windows' launchers), or a Python started with
# exactly `-m ov`. The separators are both systems': an entry written on Windows is read here too.
_OV_PROGRAM = re.compile(r"(?:^|.*[/\\])(?:ov|(?i:ov\.(?:exe|cmd|bat)))$")
_PYTHON_PROGRAM = re.compile(r"(?i:(?:^|.*[/\\])(?:python|pypy)[0-9.]*w?(?:\.exe)?)$")

# What says which store and identity ov acts for, when it comes from the environment.
SERVER_ENV = ("OV_HOME", "OV_ACCOUNT", "OV_USER", "OV_PEER")


def is_ours(command: object) -> bool:
    """Whether a hook handler's command is ov's: its program is ov (:func:`_ov_arguments`), run
    with ``hook HOST EVENT`` (or a 2026-12-05 project's ``--scope project``) and nothing more, pinned or not,
    guarded or not."""
    return _hook_arguments(command) is not None


def defers(command: object) -> bool:
    """Whether ov's hook ``command`` is a project's entry, which defers to a user's
    (``OV_HOOK_SCOPE=project`` ahead of it, or an entry of 2026-12-05's ``--scope project``)."""
    arguments = _hook_arguments(command)
    if arguments is None:
        return False
    return says_scope_by_option(command) or _assignments(command).get(SCOPE_ENV) == "project"


def says_scope_by_option(command: object) -> bool:
    """Whether ov's hook ``command`` is a project's entry of 2026-12-05 (``--scope project``), which
    an ov from before that option refuses with exit 2 (:data:`PROJECT_MARK`)."""
    arguments = _hook_arguments(command)
    return arguments is not None and tuple(arguments[3:]) == PROJECT_MARK


def _hook_arguments(command: object) -> list[str] | None:
    """ov's arguments in a hook entry of ov's (``hook HOST EVENT …``); None for anyone else's."""
    arguments = _ov_arguments(_launch(command)) if isinstance(command, str) else None
    if arguments is None or len(arguments) not in (3, 3 + len(PROJECT_MARK)) or arguments[0] != "hook":
        return None
    if arguments[1] not in HOST_MODULES or arguments[2] not in EVENTS or arguments[3:] not in ([], list(PROJECT_MARK)):
        return None
    return arguments


def _ov_arguments(line: list[str] | None) -> list[str] | None:
    """The arguments ov is started with by ``line``, a command line from its program on (past
    `env` and its assignments, and ov's own ``sh -c 'exec "$0" "$@"'`` for a path holding a `=`:
    what :func:`pinned_command` writes); None when its program is not ov: a bare ``ov``, any path
    of it, Windows' ``ov.exe``, ``ov.cmd``, ``ov.bat``, or a Python started with exactly ``-m ov``.
    The one rule that says whether a hook's or a server's entry is ov's."""
    line = _past_env(line or [])
    if len(line) >= 3 and line[1:3] == ["-m", "ov"] and _PYTHON_PROGRAM.match(line[0]):
        return line[3:]
    if line and _OV_PROGRAM.match(line[0]):
        return line[1:]
    return None


def _past_env(line: list[str]) -> list[str]:
    """``line`` from the program `env` starts on (past its assignments, and ov's ``sh -c`` for a
    path holding a `=`: :func:`pinned_command`); ``line`` itself when it does not start with `env`."""
    if line[:1] != [_ENV]:
        return line
    line = _after_assignments(line[1:])
    return line[len(_BY_SH) :] if tuple(line[: len(_BY_SH)]) == _BY_SH else line


def is_guarded(command: str) -> bool:
    """Whether ov's hook ``command`` has the guard that keeps a host from blocking when ov cannot start."""
    words = _words(command[len(_GUARD_START) :]) if command.startswith(_GUARD_START) and command.rstrip().endswith(_GUARD_TAIL) else None
    rest = _after_assignments(words or [])
    return bool(rest) and rest[0] == "exec"


def needs_posix_shell(command: str) -> bool:
    """Whether ov's hook ``command`` runs only in a POSIX shell: it starts with `env` (a pinned
    home or identity, a project's :data:`SCOPE_ENV`) or is Gemini's bash guard. Written on macOS
    or Linux; cmd.exe and PowerShell, which Codex and Gemini CLI run hooks through on Windows,
    have neither (docs/hosts.md, "On Windows")."""
    return is_guarded(command) or (_words(command) or [""])[:1] == [_ENV]


def hook_program(command: str) -> str | None:
    """The program ov's hook ``command`` starts (the ``ov``, or the Python of ``python -m ov``),
    guard or not, past the home and identity pinned ahead of it."""
    line = _past_env(_launch(command) or [])
    return line[0] if line else None


def hook_env(command: str) -> dict[str, str]:
    """The home and identity ov's hook ``command`` pins (``env NAME=value … ov hook …``), if any
    (a project's mark, :data:`SCOPE_ENV`, is no pin)."""
    return {name: value for name, value in _assignments(command).items() if name != SCOPE_ENV}


def _assignments(command: str) -> dict[str, str]:
    """What ov's hook ``command`` sets ahead of ov (``env NAME=value … ov hook …``)."""
    words = _words(_unguarded(command)) or []
    if words[:1] == [_ENV]:
        words = words[1:]
    out = {}
    for word in words:
        if not _ASSIGNMENT.match(word):
            break
        name, _, value = word.partition("=")
        out[name] = value
    return out


def _launch(command: str) -> list[str] | None:
    """The command line a hook entry's shell runs, past the guard and the shell's own assignments
    (``NAME=value exec …``); None when ``command`` is more than one plain command (an operator, a
    substitution, anything that runs code of its own). Read as POSIX shells read it; an entry
    written on Windows, whose paths' backslashes are no escapes there, as that system reads it."""
    text = _unguarded(command)
    if not _plain(text):
        return None
    readings = [_words(text)] + ([_words(text, escapes=False)] if "\\" in text else [])
    lines = [_after_exec(_after_assignments(words)) for words in readings if words is not None]
    return next((line for line in lines if _ov_arguments(line) is not None), lines[0] if lines else None)


def _after_exec(words: list[str]) -> list[str]:
    return words[1:] if words[:1] == ["exec"] else words


def _plain(text: str) -> bool:
    """Whether ``text`` holds nothing a shell would run beyond its words: no `$` or backquote (an
    expansion or a substitution: `/tmp/$(id)/ov`) and no operator (`;`, `&`, `|`, `<`, `>`, `(`,
    `)`, a newline) outside quotes. Single quotes keep all of it literal; double quotes keep the
    operators (a Windows path's parentheses)."""
    quote = None
    for char in text:
        if quote == "'":
            quote = None if char == "'" else quote
        elif char in "$`":
            return False
        elif quote == '"':
            quote = None if char == '"' else quote
        elif char in "'\"":
            quote = char
        elif char in ";&|<>()\n":
            return False
    return quote is None


def _unguarded(command: str) -> str:
    if is_guarded(command):
        return command[len(_GUARD_START) : command.rstrip().rindex(_GUARD_TAIL)]
    return command


def _words(text: str, *, escapes: bool = True) -> list[str] | None:
    try:
        if escapes:
            return shlex.split(text)
        lexer = shlex.shlex(text, posix=True)
        lexer.whitespace_split, lexer.escape = True, ""
        return list(lexer)
    except ValueError:
        return None


def _after_assignments(words: list[str]) -> list[str]:
    i = 0
    while i < len(words) and _ASSIGNMENT.match(words[i]):
        i += 1
    return words[i:]


def is_our_server(entry: object) -> bool:
    """Whether a host's server entry named ``ov`` is ov's: its program is ov and it runs ``mcp``
    and nothing else (:func:`_ov_arguments`, the rule hook entries follow too): a shell or an
    interpreter running code of its own, or anything more around it, is not ov's, whatever words
    follow. An entry with neither a command nor a URL starts no server (Codex refuses to load
    one): it is what earlier builds' uninstall left of ov's Codex table (``[mcp_servers.ov.env]``),
    so it counts as ov's."""
    if not isinstance(entry, dict):
        return False
    line = server_command(entry)
    if line is not None:
        return _ov_arguments(line) == ["mcp"]
    return not any(key in entry for key in ("command", "url", "httpUrl", "serverUrl"))


def is_installed_server(line: list[str], scope: str, env=None) -> bool:
    """Whether ``line`` is the command line an install of this very ov writes into ``scope``'s
    server entry (:func:`entry_command` with ``mcp``): so ``ov doctor`` may start it, as it would
    start ``ov mcp`` itself. A project's file comes with the repository, and what it names
    otherwise, even an entry :func:`is_our_server` takes for ov's (a script called ``ov`` in the
    checkout), is that repository's code."""
    expected = [*entry_command(scope, env), "mcp"]
    if len(line) != len(expected) or line[1:] != expected[1:]:
        return False
    return line[0] == expected[0] or (os.path.isabs(line[0]) and os.path.isabs(expected[0]) and same_file(line[0], expected[0]))


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


def command_report(scope: str, command: list[str], *, mcp: bool = False, hooks: bool = False, env=None) -> dict:
    """What an install's report says of the ``command`` it wrote into ``scope``'s files: the
    command, whether it names no path of this machine, and a warning when a project's files,
    which teammates share, name one, or when the entries (``hooks``, ``mcp``) leave out the ov
    home or identity set here (``env``: this process's environment with the install's
    ``--account``, ``--user``, ``--peer``; :func:`pinned_env`)."""
    portable = command == [BARE_OV]
    warnings = []
    if scope == "project" and not portable:
        warnings.append(
            f"the project's entries run {shlex.join(command)}, a path on this machine that a teammate's checkout will not have; "
            "put ov on PATH and run the install again for a portable `ov` entry"
        )
    unpinned = sorted(server_env(env)) if (mcp or hooks) and scope == "project" else []
    if unpinned:
        entries = "hook and MCP entries" if hooks and mcp else "hook entries" if hooks else "MCP entries"
        warnings.append(
            f"{', '.join(unpinned)} set here {'is' if len(unpinned) == 1 else 'are'} not written into the project's {entries}, which teammates share; "
            "a host started without them (from a desktop launcher, or Codex's servers, which get an environment of their own) uses ov's defaults: "
            "set them where the host starts, or install in user scope"
        )
    if hooks and scope == "user" and not PINS_HOOKS_HERE and server_env(env):
        warnings.append(
            f"{', '.join(sorted(server_env(env)))} cannot be written into the hook entries on this system (no `env` program): "
            "the hooks use the host's environment, which must set them too, or they use another store than the MCP server"
        )
    return {"command": command, "portable": portable, "warnings": warnings}


def on_path(program: str, env=None) -> str | None:
    """Where the bare ``program`` is found on PATH (``env``'s, else this process's), or None."""
    import shutil

    env = os.environ if env is None else env
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    # A relative PATH entry finds it only from one folder, which is no way for a host to start it.
    return found if found and os.path.isabs(found) else None


def starts(program: str, env=None) -> bool:
    """Whether a host could start ``program``, an entry's (:func:`hook_program`): a file that
    may be run, by its path, or found on PATH (``env``'s, else this process's) by its name."""
    path = program if os.path.isabs(program) else on_path(program, env)
    return path is not None and os.path.isfile(path) and os.access(path, os.X_OK)


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (through links, or a shorter spelling of the same path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def hook_command(command: list[str], host: str, event: str, *, guard: bool = False, env: dict[str, str] | None = None, scope: str = "user") -> str:
    """The hook entry's command line; ``guard``: wrapped so that the host does not block on an
    ``ov`` that cannot start (not on Windows, where Gemini runs hooks through PowerShell);
    ``env``: the home and identity pinned for it (:func:`pinned_command`); ``scope``: the file's,
    a project's entry saying so in its environment (:data:`PROJECT_ASSIGNMENT`)."""
    # NAME=value with the value quoted: a shell takes a word as an assignment only when the name
    # and `=` are bare (`'OV_HOME=/a b'` is a command name); `env` reads either.
    # A project's entry written where no `env` program is (Windows) says nothing: it answers
    # beside a user's entry, as an older ov's does, rather than carry a mark an older ov refuses.
    env = {**(env or {}), **(PROJECT_ASSIGNMENT if scope == "project" else {})}
    assignments = [f"{name}={shlex.quote(value)}" for name, value in sorted(env.items())] if PINS_HOOKS_HERE else []
    words = ["hook", host, event]
    line = shlex.join([*command, *words])
    if guard and GUARDED_HERE:
        # Set by bash itself: through `env`, an ov that cannot start would be env's 127 again,
        # the exit code Gemini takes for "deny", past the guard.
        return f"{_GUARD_START}{''.join(a + ' ' for a in assignments)}exec {line}{_GUARD_TAIL}"
    return " ".join([_ENV, *assignments, shlex.join([*_after_env(command), *words])]) if assignments else line


def pinned_command(command: list[str], env: dict[str, str] | None) -> list[str]:
    """``command`` started with ``env`` set (``env NAME=value … ov``): what a hook entry or
    OpenCode's plugin runs, so the hooks use the store and identity the server entry pins.
    Unchanged without ``env``, and where no ``env`` program is (Windows: see :func:`command_report`)."""
    if not env or not PINS_HOOKS_HERE:
        return list(command)
    return [_ENV, *(f"{name}={value}" for name, value in sorted(env.items())), *_after_env(command)]


def _after_env(command: list[str]) -> list[str]:
    """``command`` as `env` runs it after its assignments: a program whose path holds a `=` through `sh` (:data:`_BY_SH`)."""
    return [*_BY_SH, *command] if "=" in command[0] else list(command)


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
        out["OV_HOME"] = str(expand_user(out["OV_HOME"], env).absolute())
    return out
