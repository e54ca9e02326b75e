"""The ``ov`` command: builds the typer app and turns every failure into one message and exit code."""

from __future__ import annotations

import os
import sys
import traceback

import click
import typer

from ov.cli import admin, config_cmd, fs, ingest, pack_cmd, remote_cmd, retrieval_cmd, search_cmd, session_cmd, snapshot
from ov.cli.output import error
from ov.cli.runtime import OvCommand, OvGroup, wants_json
from ov.cli.docgen import COMPLETE_VAR
from ov.errors import EXIT_RUNTIME, EXIT_USAGE, InvalidInput, OvError

app = typer.Typer(
    cls=OvGroup,
    name="ov",
    help="ov: a local-first, git-backed context database for AI coding agents.",
    context_settings={"help_option_names": ["-h", "--help"]},
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
app.add_typer(session_cmd.app, name="session")
app.command("commit", cls=OvCommand, help="Archive a session, summarise it and extract memories (same as `ov session commit`).")(
    session_cmd.session_commit
)
app.add_typer(config_cmd.app, name="config")
app.add_typer(snapshot.app, name="snapshot")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else list(argv)
    sys.exit(run(args))


def run(args: list[str]) -> int:
    """Run one command line; return its exit code (0 ok, 1 runtime error, 2 bad input)."""
    as_json = wants_json(["ov", *args])
    if COMPLETE_VAR in os.environ:
        # The scripts in completions/ speak typer's protocol (`complete_bash`, ...).
        from typer.completion import completion_init

        completion_init()
    try:
        result = app(args=args, prog_name="ov", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except OvError as exc:
        _debug_traceback()
        error(exc, as_json)
        return exc.exit_code
    except click.exceptions.Abort:
        error(OvError("aborted"), as_json)
        return EXIT_RUNTIME
    except click.exceptions.ClickException as exc:  # usage errors: bad option, missing argument, ...
        usage = InvalidInput(exc.format_message(), hint=_usage_hint(exc))
        usage.code = "usage"
        error(usage, as_json)
        return getattr(exc, "exit_code", EXIT_USAGE)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (`ov ls | head`): not an error; keep Python quiet at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the one edge where unexpected failures become a message
        if os.environ.get("OV_DEBUG"):
            raise
        error(
            OvError(f"internal error: {type(exc).__name__}: {exc}", hint="run again with OV_DEBUG=1 for a traceback, and report it"),
            as_json,
        )
        return EXIT_RUNTIME


def _usage_hint(exc: Exception) -> str:
    ctx = getattr(exc, "ctx", None)
    path = getattr(ctx, "command_path", None) or "ov"
    return f"see `{path} --help`"


def _debug_traceback() -> None:
    if os.environ.get("OV_DEBUG"):
        traceback.print_exc()
