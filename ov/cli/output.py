"""Rendering results for people and for programs.

``--json`` prints ``{"ok": true, "result": ...}`` on stdout; errors print
``{"ok": false, "error": {"code", "message", "hint"}}`` on stderr. Otherwise a
terminal gets rich tables and trees, and a pipe gets plain lines without
colour or box drawing. Text that comes from the store is never interpreted as
rich markup.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from ov.errors import OvError


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def console(stderr: bool = False):
    from rich.console import Console  # Deferred: rich is only needed for terminal output.

    color = os.environ.get("OV_COLOR") or _configured_color()
    force = True if color == "always" else None
    no_color = color == "never" or None
    return Console(stderr=stderr, force_terminal=force, no_color=no_color, highlight=False, soft_wrap=False)


def _configured_color() -> str:
    try:
        from ov.cli.runtime import runtime

        return runtime().loaded_config.config.output.color
    except OvError:
        return "auto"


def print_json(payload: Any, *, stderr: bool = False) -> None:
    stream = sys.stderr if stderr else sys.stdout
    stream.write(json.dumps(payload, indent=2, ensure_ascii=False, default=str) + "\n")
    stream.flush()


def emit(result: Any, human: Callable[[], None]) -> None:
    """Print ``result`` as JSON when asked, else call ``human`` to render it."""
    from ov.cli.runtime import runtime

    if runtime().json:
        print_json({"ok": True, "result": result})
    else:
        human()


def plain(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def error(err: OvError, as_json: bool) -> None:
    """Say what went wrong on stderr. A reader of it that went away (`ov restore X 2>&1 | head -1`)
    does not turn the failure into success: the message is dropped, and the caller still exits
    with the error's code."""
    try:
        _error(err, as_json)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stderr.fileno())  # nothing left to flush at exit


def _error(err: OvError, as_json: bool) -> None:
    if as_json:
        print_json({"ok": False, "error": err.to_dict()}, stderr=True)
        return
    if sys.stderr.isatty():
        from rich.text import Text

        err_console = console(stderr=True)
        err_console.print(Text("error: ", style="bold red") + Text(err.message))
        if err.hint:
            err_console.print(Text("hint: ", style="yellow") + Text(err.hint))
        return
    sys.stderr.write(f"error: {err.message}\n")
    if err.hint:
        sys.stderr.write(f"hint: {err.hint}\n")


def short(commit: str | None) -> str:
    return commit[:10] if commit else "-"
