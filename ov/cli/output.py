"""Rendering results for people and for programs.

``--json`` prints ``{"ok": true, "result": ...}`` on stdout; errors print
``{"ok": false, "error": {"code", "message", "hint"}}`` on stderr. Otherwise a
terminal gets rich tables and trees, and a pipe gets plain lines without
colour or box drawing; ``output.color`` and ``OV_COLOR`` can say otherwise
(:func:`styled`). Text that comes from the store is never interpreted as rich
markup.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from ov.errors import InvalidInput, OvError, quote


COLOR_ENV = "OV_COLOR"
COLOR_CHOICES = ("auto", "always", "never")


def check_color_env() -> None:
    """Refuse an ``OV_COLOR`` that is none of the choices, as a bad ``OV_ACCOUNT`` is refused:
    each command checks it before it runs, so the refusal changes nothing."""
    value = os.environ.get(COLOR_ENV)
    if value and value not in COLOR_CHOICES:
        raise InvalidInput(
            f"{COLOR_ENV}={quote(value)} is not one of {', '.join(COLOR_CHOICES)}",
            hint=f"set {COLOR_ENV} to auto, always or never, or unset it to use output.color",
        )


def color_setting() -> str:
    """``auto``, ``always`` or ``never``: ``OV_COLOR``, else ``output.color``. An ``OV_COLOR``
    that check_color_env refuses counts as ``auto`` here, so that the refusal itself prints."""
    value = os.environ.get(COLOR_ENV)
    return value if value in COLOR_CHOICES else _configured_color()


def styled(stream=None) -> bool:
    """Whether ``stream`` (stdout by default) gets styled output (colours, tables, trees) or the
    plain lines a pipe gets. ``always`` styles a pipe too (``ov snapshot diff | less -R``);
    ``auto`` styles a terminal unless ``NO_COLOR`` is set (https://no-color.org)."""
    setting = color_setting()
    if setting == "auto":
        return (sys.stdout if stream is None else stream).isatty() and not os.environ.get("NO_COLOR")
    return setting == "always"


def console(stderr: bool = False):
    from rich.console import Console  # Deferred: rich is only needed for styled output.

    setting = color_setting()
    force = True if setting == "always" else None
    # An explicit setting wins over NO_COLOR, as no-color.org asks; with `auto` rich reads it.
    no_color = {"always": False, "never": True}.get(setting)
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


def nothing(message: str) -> None:
    """What an empty listing says (``no remotes``), on stderr: a pipe reading stdout gets no line
    it could take for data, and the exit code stays the listing's."""
    sys.stderr.write(message + "\n")


def warn(message: str) -> None:
    sys.stderr.write(f"warning: {message}\n")


def note(message: str) -> None:
    """Something the result leaves out on purpose, on stderr: not a problem, so not a warning."""
    sys.stderr.write(f"note: {message}\n")


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
    if styled(sys.stderr):
        from rich.text import Text

        err_console = console(stderr=True)
        err_console.print(Text.assemble(("error: ", "bold red"), err.message))
        if err.hint:
            err_console.print(Text.assemble(("hint: ", "yellow"), err.hint))
        return
    sys.stderr.write(f"error: {err.message}\n")
    if err.hint:
        sys.stderr.write(f"hint: {err.hint}\n")


def short(commit: str | None) -> str:
    return commit[:10] if commit else "-"
