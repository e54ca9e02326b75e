"""The ``ov`` program: the console script and ``python -m ov``.

Agents start ``ov hook HOST EVENT`` on every prompt of every session, and ``ov mcp`` at the
start of each; a host waits for either. Those two command lines skip the typer app (its import
and build cost more than a hook's own work, and would delay the MCP server's tool list): they
go straight to :mod:`ov.hosts.runtime` and :mod:`ov.mcp.server`. Every other command line
runs :func:`ov.cli.main.run`.
"""

from __future__ import annotations

import os
import sys


def entry() -> None:
    """Run the command line in ``sys.argv`` and end the process as soon as it is done.

    Unwinding the interpreter afterwards (freeing every module and object) costs ~20 ms of CPU
    and changes nothing on disk: ov closes what it writes before it returns. Hooks run ov on
    every prompt of several agents at once, so that time is skipped: the exit handlers run
    (logging's flush among them) and the process ends. With a thread still running, the
    normal exit waits for it instead.
    """
    _utf8_mode()
    args = sys.argv[1:]
    _closed_streams_to_devnull()
    _utf8_output()
    code = _hook(args)
    if code is None:
        code = _mcp(args)
    if code is None:
        _interrupt_once()
        from ov.cli.main import run

        code = run(args)
    import threading

    if threading.active_count() > 1:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a reader gone away or a closed stream: nothing more can be said
    os._exit(code)


_RESTARTED = "OV_UTF8_RESTARTED"  # set on the one re-exec, so that it happens once


def _utf8_mode() -> None:
    """Run in Python's UTF-8 mode where it is off and the locale's encoding is not UTF-8: start
    this command line again in it (one more interpreter start, ~20 ms), before anything is read.

    ov stores names in UTF-8 and reads them back as UTF-8; Python decodes file names, arguments
    and environment values in the file system encoding, which is the locale's. Under a legacy
    locale (ja_JP.eucJP, en_US.ISO-8859-1) or LC_ALL=C with PYTHONUTF8=0, a committed "café.md"
    came back from the disk as another name: `ov ls` left it out, `ov status` called it deleted,
    `ov find` failed on it, a UTF-8 argument was refused as not UTF-8, and a hook under a
    non-ASCII OV_HOME failed. Python's default already is UTF-8 mode under the C locale, and a
    UTF-8 locale's encoding is UTF-8: there, and on Windows (its file system encoding is UTF-8),
    this is two attribute reads. PYTHONUTF8=1 goes in the environment, so the background jobs
    and the MCP server ov starts run in UTF-8 mode too."""
    # The marker only stops a second start; children that are not ov (a host's app-server, the
    # MCP probe) need not see it. PYTHONUTF8 stays, for the jobs ov starts.
    restarted = os.environ.pop(_RESTARTED, None)
    if sys.flags.utf8_mode or os.name == "nt":
        return
    import codecs

    if codecs.lookup(sys.getfilesystemencoding()).name == "utf-8":
        return
    argv = getattr(sys, "orig_argv", None)
    if not argv or not sys.executable or restarted:
        # Embedded: nothing to start again; or started again and still not in UTF-8 mode (an
        # interpreter told `-X utf8=0` after ours): names stay the locale's rather than a loop.
        return
    env = dict(os.environ, PYTHONUTF8="1", **{_RESTARTED: "1"})
    try:
        # `-X utf8` as well: an interpreter started with -E or -I ignores PYTHONUTF8.
        os.execve(sys.executable, [sys.executable, "-X", "utf8", *argv[1:]], env)
    except OSError:
        pass  # the interpreter cannot be started again: go on as the locale says


def _interrupt_once() -> None:
    """Ctrl-C raises KeyboardInterrupt once; a second one (a user pressing it twice) is ignored.

    The first sets off the command's clean-up (a staging folder removed, a lock let go) and its
    one message; a second landing in that clean-up raised again where nothing catches it, and the
    process died by the signal with a traceback. A SIGINT the parent had ignored stays ignored."""
    import signal

    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return

    def interrupted(signum: int, frame: object) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupted)


def _closed_streams_to_devnull() -> None:
    """Give a standard stream the parent closed (`ov session add S -t M >&-`, a daemon's
    `<&-`) /dev/null in its place. Python sets such a stream to None, and the first file ov
    opens would take its descriptor: a library's write to "stdout" would land in a store file.
    Output sent to a closed stdout is dropped, as a reader gone away is (exit 0: the command
    did its work). A closed stdin stays None for Python: the commands that read it tell "no
    input" (`ov write` refuses to write an empty file) from an empty one."""
    for fd, name, mode in ((0, "stdin", os.O_RDONLY), (1, "stdout", os.O_WRONLY), (2, "stderr", os.O_WRONLY)):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        null = os.open(os.devnull, mode)  # the lowest free descriptor: this one, as 0-2 are filled in order
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        if fd and getattr(sys, name) is None:
            setattr(sys, name, open(fd, "w", encoding="utf-8", closefd=False))  # noqa: SIM115 - the process's stream from now on


def _utf8_output() -> None:
    """Write UTF-8 to a pipe or a file whatever the locale says, and never fail on a character a
    terminal's encoding lacks.

    Python opens a pipe in the locale's encoding: the ANSI code page on Windows (cp1252), Latin-1
    under an old POSIX locale. A hook's answer holding a Japanese note, a profile's "Łukasz" or
    `ov tree`'s box lines then raised UnicodeEncodeError: the hook failed, and the host read no
    context. Hosts and agents read ov's output as UTF-8 (JSON says so), as git's and ripgrep's.
    A terminal keeps its encoding (it draws with it), a character it cannot draw escaped."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if encoding is None or not hasattr(stream, "reconfigure"):
            continue
        import codecs

        if codecs.lookup(encoding).name == "utf-8":
            continue
        try:
            if stream.isatty():
                stream.reconfigure(errors="backslashreplace")
            else:
                stream.reconfigure(encoding="utf-8")
        except (OSError, ValueError):
            pass  # a closed or detached stream: nothing will be written to it


def _hook(args: list[str]) -> int | None:
    """The exit code of ``ov hook HOST EVENT [--scope user|project]`` run directly, or None for
    any other command line (``ov hook --help`` and misspelt hosts or events among them: typer
    explains those, with a code no host reads as "block": :class:`ov.cli.runtime.HookCommand`).
    A project's entry says so in its environment (:func:`ov.hosts.host.hook_scope`)."""
    if len(args) not in (3, 5) or args[0] != "hook" or (len(args) == 5 and (args[3] != "--scope" or args[4] not in ("user", "project"))):
        return None
    from ov.hosts.host import EVENTS, HOST_MODULES, hook_scope

    if args[1] not in HOST_MODULES or args[2] not in EVENTS:
        return None
    from ov.hosts.runtime import main

    return main(args[1], args[2], scope=hook_scope(args[4] if len(args) == 5 else None, os.environ))


_IDENTITY_OPTIONS = {"--account": "account", "--user": "user", "--peer": "peer"}


def _mcp(args: list[str]) -> int | None:
    """The exit code of ``ov mcp [--account A] [--user U] [--peer P]`` run directly, or None."""
    if not args or args[0] != "mcp":
        return None
    flags: dict[str, str] = {}
    rest = args[1:]
    while rest:
        option, _, value = rest[0].partition("=")
        if option not in _IDENTITY_OPTIONS:
            return None  # --help, a typo: typer explains
        if not value:
            if len(rest) < 2:
                return None
            value, rest = rest[1], rest[1:]
        flags[_IDENTITY_OPTIONS[option]] = value
        rest = rest[1:]
    from ov.errors import InvalidId
    from ov.identity import validate_id

    try:
        for field, value in flags.items():
            validate_id(value, field)
    except InvalidId:
        return None  # a bad command line: the typer app reports it as for any command
    from ov.mcp.server import main

    return main(flags)
