"""Rendering results for people and for programs.

``--json`` prints ``{"ok": true, "result": ...}`` on stdout; errors print
``{"ok": false, "error": {"code", "message", "hint"}}`` on stderr. Otherwise a
terminal gets rich tables and trees, and a pipe gets plain lines without
colour or box drawing; ``output.color`` and ``OV_COLOR`` can say otherwise
(:func:`styled`). Text that comes from the store is never interpreted as rich
markup.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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
    # stdout carries data (a match, a URI, a diff line) as one line each, as grep and rg print
    # it: the terminal wraps it, and a copy of it is whole (rich broke it at words and padded
    # it). A table lays out its cells itself, and `ov tree` its names. stderr's progress bar is a
    # live display: rich must know its height, so its lines are fitted (an error prints itself
    # soft-wrapped: _error).
    return Console(stderr=stderr, force_terminal=force, no_color=no_color, highlight=False, soft_wrap=not stderr)


def _configured_color() -> str:
    try:
        from ov.cli.runtime import configured_color

        return configured_color()
    except OvError:
        return "auto"


# Control characters in caret notation, as `cat -v` shows them: ESC as ^[, a C1 CSI as M-^[.
# Tab and line breaks are left to lay the text out.
_CARETS = {
    **{c: f"^{chr(c + 64)}" for c in range(0x20) if chr(c) not in "\t\n"},
    0x7F: "^?",
    **{c: f"M-^{chr(c - 0x80 + 64)}" for c in range(0x80, 0xA0)},
}


def for_terminal(text: str, stream=None) -> str:
    """Stored ``text`` (a snippet, a message) as a display shows it: on a terminal, or in styled
    output, its control characters are made visible (``^[``), so a log's escape sequences cannot
    clear the screen, leave a colour on, set the title or the clipboard (an OSC), or hide what
    follows. A pipe gets the text as it is, as ``--json``, ``ov read`` and ``ov grep`` always do."""
    if not (styled(stream) or (sys.stdout if stream is None else stream).isatty()):
        return text
    return text.translate(_CARETS)


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
        err_console.print(Text.assemble(("error: ", "bold red"), err.message), soft_wrap=True)
        if err.hint:
            err_console.print(Text.assemble(("hint: ", "yellow"), err.hint), soft_wrap=True)
        return
    sys.stderr.write(f"error: {err.message}\n")
    if err.hint:
        sys.stderr.write(f"hint: {err.hint}\n")


class OutputFailed(OvError):
    """Standard output refused what a command printed (`> /dev/full`, a full disk or an I/O error
    behind a redirection): the command's own work is done, and the store is not to blame. Without
    its own type it reads as any write's failure: a full disk "under $OV_HOME", to be run again."""

    code = "output_failed"
    hint = "send the output where it can be written (check the file or device stdout goes to)"

    def __init__(self, reason: str, *, commit: str | None = None) -> None:
        if commit is None:
            super().__init__(f"cannot write to standard output: {reason}")
        else:  # run again, the command would make its change a second time
            super().__init__(
                f"the change is kept (commit {commit[:10]}), but its report could not be written to standard output: {reason}",
                hint="do not run the command again for the change; `ov snapshot log` shows the commit",
            )
        self.reason = reason


class _Stdout(io.FileIO):
    """Descriptor 1, whose failures say they are standard output's (:class:`OutputFailed`).
    After the first, what is still printed is dropped: the error says the output is lost."""

    failed: str | None = None

    def write(self, data) -> int:
        if self.failed is not None:
            return len(data)
        try:
            return super().write(data)
        except BrokenPipeError:
            raise  # the reader went away: not a failure (ov.cli.main.run)
        except OSError as exc:
            self.failed = exc.strerror or str(exc)
            raise OutputFailed(self.failed) from exc


@contextmanager
def labelled_stdout() -> Iterator[None]:
    """Run the block with ``sys.stdout`` writing through :class:`_Stdout`, so that a full stdout
    is told from a full store (both fail with an ENOSPC that names no file). A stdout that is
    not the process's descriptor 1 (a test's capture) is left as it is."""
    original = sys.stdout
    try:
        own = original is sys.__stdout__ and original.fileno() == 1
    except (AttributeError, OSError, ValueError):
        own = False
    if not own:
        yield
        return
    original.flush()
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(_Stdout(1, "w", closefd=False)),
        encoding=original.encoding,
        errors=original.errors,
        line_buffering=original.line_buffering,
        write_through=original.write_through,
    )
    try:
        yield
        sys.stdout.flush()
    finally:
        labelled, sys.stdout = sys.stdout, original
        try:
            labelled.flush()
        except (OvError, OSError):
            pass  # already said, or a reader gone away (which run() answers)


def short(commit: str | None) -> str:
    return commit[:10] if commit else "-"


def local_time(iso: str) -> str:
    """An ISO time (``...Z``, as JSON gives it) in this machine's time zone, its offset said
    (``2026-12-05T18:03:58+01:00``): the user's day, the one events are filed under."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    return when.astimezone().isoformat(timespec="seconds")
