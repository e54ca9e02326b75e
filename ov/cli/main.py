"""The ``ov`` command: builds the typer app and turns every failure into one message and exit code."""

from __future__ import annotations

import copy
import os
import sys
import traceback
from typing import Annotated

import click
import typer

from ov import __version__
from ov.cli import admin, config_cmd, fs, hooks_cmd, ingest, mcp_cmd, pack_cmd, remote_cmd, retrieval_cmd, search_cmd, session_cmd, snapshot
from ov.cli.docgen import COMPLETE_VAR
from ov.cli.output import OutputFailed, error, labelled_stdout, plain
from ov.cli.runtime import COMMON_OPTIONS, OvCommand, OvGroup, wants_json
from ov.errors import EXIT_INTERRUPTED, EXIT_RUNTIME, EXIT_USAGE, Interrupted, InvalidInput, OvError, debugging, interrupted, os_failure, resource_exhausted

# click >= 8.2 raises this for a group given no command; older click printed the help itself.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())
HELP_OPTIONS = ("-h", "--help")
# What may come before a command and is moved after its name: the common options, and the help
# option every command has (`ov -h ls` is `ov ls -h`; `ov -h` alone is ov's own help).
_MOVABLE = {**COMMON_OPTIONS, **dict.fromkeys(HELP_OPTIONS, False)}

app = typer.Typer(
    cls=OvGroup,
    name="ov",
    help="ov: a local-first, git-backed context database for AI coding agents.",
    context_settings={"help_option_names": list(HELP_OPTIONS)},
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
fs.register(app)
ingest.register(app)
retrieval_cmd.register(app)
search_cmd.register(app)
admin.register(app)
remote_cmd.register(app)
pack_cmd.register(app)
app.command("remember", cls=OvCommand)(session_cmd.remember)
app.command("forget", cls=OvCommand)(session_cmd.forget)
app.command("refile", cls=OvCommand)(session_cmd.refile)
app.add_typer(session_cmd.app, name="session")
app.command("commit", cls=OvCommand, help="Archive a session, summarise it and extract memories (same as `ov session commit`).")(
    session_cmd.session_commit
)
app.add_typer(config_cmd.app, name="config")
app.add_typer(snapshot.app, name="snapshot")
hooks_cmd.register(app)
mcp_cmd.register(app)


def _print_version(value: bool) -> None:
    if value:
        plain(f"ov {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print ov's version and exit (`ov version` also lists its libraries)."),
    ] = False,
) -> None:
    """Options of `ov` itself, before any command."""


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    sys.exit(run(args))


def run(args: list[str]) -> int:
    """Run one command line; return its exit code (0 ok, 1 runtime error, 2 bad input)."""
    try:
        with labelled_stdout():  # flushed at its end, not at interpreter exit: a reader gone away is caught below
            return _dispatch(args)
    except BrokenPipeError:
        return _reader_gone()
    except OutputFailed as exc:  # what was printed after the command (help, the version) did not fit
        error(exc, wants_json(["ov", *args]))
        return exc.exit_code
    except SystemExit as exc:
        # click answers a broken pipe while it prints (help, a command's output) with exit 1.
        if isinstance(exc.__context__, BrokenPipeError):
            return _reader_gone()
        raise


def _reader_gone() -> int:
    """The reader went away (`ov ls | head`): not an error. What is still buffered goes to
    /dev/null, so Python's own flush at exit has nothing to complain about."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _app_for(args: list[str]) -> typer.Typer:
    """The app with only the command that ``args`` name, or the whole app.

    typer turns every registered command into click objects on each run, reading each
    function's signature and annotations: ~30 ms for ov's 40 commands, paid by every hook
    call; for one command it is a millisecond. Whatever does not start with a command's own
    name (help, ``--version``, a mistyped name that wants suggestions) gets the whole app.
    """
    if COMPLETE_VAR in os.environ:
        return app
    return _narrowed(app, args)


def _narrowed(group: typer.Typer, args: list[str]) -> typer.Typer:
    """``group`` with only the command or subgroup named by ``args[0]`` (narrowed in turn),
    or ``group`` itself when ``args`` name none."""
    if not args or args[0].startswith("-"):
        return group
    commands, groups = _named(group, args[0])
    groups = [copy.copy(g) for g in groups]
    if not commands and not groups:
        return group
    for info in groups:
        info.typer_instance = _narrowed(info.typer_instance, args[1:])
    only = copy.copy(group)
    only.registered_commands, only.registered_groups = commands, groups
    return only


def _named(group: typer.Typer, name: str) -> tuple[list, list]:
    """The commands and the subgroups of ``group`` called ``name``."""
    commands = [c for c in group.registered_commands if (c.name or typer.main.get_command_name(c.callback.__name__)) == name]
    return commands, [g for g in group.registered_groups if g.name == name]


def _command_path(args: list[str]) -> str:
    """``ov`` and the command ``args`` name, with its groups (``ov snapshot restore``)."""
    return " ".join(["ov", *_command_named(args)[0]])


def _command_named(args: list[str]) -> tuple[list[str], typer.models.CommandInfo | None]:
    """The words of ``args`` that name a command, with its groups (``snapshot restore``), and
    that command (None when they name a group, or nothing ov has)."""
    group, path = app, []
    for arg in args:
        commands, groups = _named(group, arg)
        if commands:
            return [*path, arg], commands[0]
        if not groups:
            break
        path.append(arg)
        group = groups[0].typer_instance
    return path, None


def _common_options_last(args: list[str]) -> list[str]:
    """``ov --json ls`` as ``ov ls --json``: the common options belong to each command, and the
    habit of git and gh is to put them first, or after a group (``ov session --json list``). They
    move to just after the command's name, where click reads them as the command's own (and never
    after a ``--`` or into an option's value). ``-h``/``--help`` moves too, so that ``ov -h ls``
    shows the help of ``ls``."""
    moved, rest, path, group = [], list(args), [], app
    while True:
        while rest and rest[0].split("=", 1)[0] in _MOVABLE:
            option = rest.pop(0)
            moved.append(option)
            if _MOVABLE.get(option) and rest:  # `--account x`; `--account=x` is one word
                moved.append(rest.pop(0))
        if not path and (not rest or rest[0].startswith("-")):
            # No command named. Help asked for is ov's own help; a common option has no command
            # to belong to, which click would call "No such option '--json'" (it is one), and
            # `--json` with the help or the version alone would not be JSON on stdout.
            if any(o in HELP_OPTIONS for o in moved) or not moved:
                return [o for o in moved if o in HELP_OPTIONS] + rest
            also = " (`ov version --json` prints the version as JSON)" if "--version" in rest else ""
            raise click.UsageError(f"{moved[0].split('=', 1)[0]} belongs to a command, and none was named{also}")
        if not rest or rest[0].startswith("-"):
            break  # after a group (`ov -h snapshot`): its own help, or click's word on what follows
        path.append(rest.pop(0))
        commands, groups = _named(group, path[-1])
        if commands or not groups:  # the command itself (or a word click will refuse)
            break
        group = groups[0].typer_instance  # past a group (`snapshot`, `session`, ...)
    return [*path, *moved, *rest] if moved else args


def _dispatch(args: list[str]) -> int:
    as_json = wants_json(["ov", *args])
    try:
        args = _common_options_last(args)
    except click.UsageError as exc:
        return _reported(exc, args, as_json)
    _quiet_unraisable()
    if COMPLETE_VAR in os.environ:
        # The scripts in completions/ speak typer's protocol (`complete_bash`, ...).
        from typer.completion import completion_init

        completion_init()
    try:
        result = _app_for(args)(args=args, prog_name="ov", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except _NO_ARGS_IS_HELP as exc:
        # `ov` or `ov snapshot` alone: asking for help is not an error (as with git and llm).
        plain(exc.ctx.get_help())
        return 0
    except KeyboardInterrupt:
        return _interrupted_exit(args, _interrupted(args, as_json))
    except BrokenPipeError:
        raise  # see run()
    except Exception as exc:  # noqa: BLE001 - the one edge where every failure becomes a message and a code
        code = _reported(exc, args, as_json)
        if code == EXIT_INTERRUPTED:
            return _interrupted_exit(args, code)  # Ctrl-C is no failure of the command's, whatever its convention
        command = _command_named(args)[1]
        own = getattr(command.cls, "failure_exit", None) if command is not None else None
        return code if own is None else own


def _interrupted_exit(args: list[str], code: int) -> int:
    """The exit code of an interrupted command: 130, unless its callers read that code as
    something else (``ov hook``: Gemini CLI denies the prompt on any code but 0 and 1)."""
    command = _command_named(args)[1]
    own = getattr(command.cls, "interrupted_exit", None) if command is not None else None
    return code if own is None else own


def _reported(exc: Exception, args: list[str], as_json: bool) -> int:
    """Say on stderr what ``exc`` means for the user; return the exit code it carries."""
    if isinstance(exc, OvError):
        _debug_traceback()
        if isinstance(exc, InvalidInput) and exc.hint == InvalidInput.hint:
            exc.hint = f"see `{_command_path(args)} --help` for what it accepts"
        exc.hint = exc.hint_for(_option, _command)
        error(exc, as_json)
        return exc.exit_code
    if isinstance(exc, click.exceptions.Abort):
        error(OvError("aborted", hint="nothing was changed by the interrupted step; run the command again"), as_json)
        return EXIT_RUNTIME
    if isinstance(exc, click.exceptions.ClickException):  # usage errors: bad option, missing argument, ...
        usage = InvalidInput(exc.format_message(), hint=_usage_hint(exc))
        usage.code = "usage"
        error(usage, as_json)
        return getattr(exc, "exit_code", EXIT_USAGE)
    if interrupted(exc):
        _debug_traceback()
        return _interrupted(args, as_json)  # Ctrl-C, whatever error the unwinding raised in its place: no bug to report
    # A full disk or a refused write can surface from any write (git objects, the journal,
    # the indices); the core translates the ones it expects, this catches the rest.
    from ov.home import Home

    try:
        home = Home.from_env().root
    except (OvError, OSError):
        home = None  # no home to be full: what went wrong is a bug to report
    known = os_failure(exc, home) if home is not None else resource_exhausted(exc)
    if known is not None:
        _debug_traceback()
        error(known, as_json)
        return known.exit_code
    if debugging():
        raise exc
    error(
        OvError(f"internal error: {type(exc).__name__}: {exc}", hint="run again with OV_DEBUG=1 for a traceback, and report it"),
        as_json,
    )
    return EXIT_RUNTIME


def _interrupted(args: list[str], as_json: bool) -> int:
    """Ctrl-C outside a command's own run (OvCommand says what it stopped): said all the same."""
    error(Interrupted(f"{_command_path(args)} was interrupted"), as_json)
    return EXIT_INTERRUPTED


def _quiet_unraisable() -> None:
    """A write refused by a full disk can leave a dulwich file object that fails again when it
    is collected ("Exception ignored in _GitFile.__del__"); the command has already said what
    happened in one line, so that echo is dropped unless OV_DEBUG asks for everything."""
    if debugging():
        return
    previous = sys.unraisablehook

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, OSError) and "_GitFile" in repr(unraisable.object):
            return
        previous(unraisable)

    sys.unraisablehook = hook


def for_terminal(text: str) -> str:
    """``text`` (a check's fix, say) with the commands it proposes (:func:`ov.errors.proposal`)
    spelled as they are typed, as an error's hint is."""
    from ov.errors import spelled

    return spelled(text, _option, _command)


def _option(name: str, value: str | None) -> str:
    """An argument a core hint proposes, as the command line takes it: ``--all``, ``--mode replace``."""
    flag = "--" + name.replace("_", "-")
    return flag if value in (None, "true") else f"{flag} {value}"


def _command(name: str, arguments: list[tuple[str, object]]) -> str | None:
    """A command a core hint proposes (:func:`ov.errors.proposal`), as it is typed (``ov ls
    viking:// --recursive`` in backticks), found from the command's own parameters: which are
    positional, which are flags."""
    import shlex

    cli_name = name.replace("_", "-")
    group = typer.main.get_command(_narrowed(app, [cli_name]))  # one command: about a millisecond
    command = group.commands.get(cli_name) if isinstance(group, click.Group) else None
    if command is None:
        return None
    words = ["ov", cli_name]
    for argument, value in arguments:
        flag = "--" + argument.replace("_", "-")
        param = next((p for p in command.params if p.name == argument or flag in p.opts), None)
        values = value if isinstance(value, list) else [value]
        if isinstance(param, click.Option) and flag not in param.opts:
            flag = max(param.opts, key=len)
        if isinstance(param, click.Argument):
            words += [param.human_readable_name if v is ... else shlex.quote(str(v)) for v in values]
        elif value is True or (value is ... and getattr(param, "is_flag", True)):
            words.append(flag)
        elif value is ...:  # an option's value for the caller to fill in: `--content TEXT`
            words += [flag, (param.metavar or param.type.name).upper()]
        else:
            words += [w for v in values for w in (flag, shlex.quote(str(v)))]
    return f"`{' '.join(words)}`"


def _usage_hint(exc: Exception) -> str:
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or "ov"
    return f"see `{path} --help`"


def _debug_traceback() -> None:
    if debugging():
        traceback.print_exc()
