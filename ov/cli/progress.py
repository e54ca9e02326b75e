"""A progress bar on the terminal for the core's long operations (:mod:`ov.progress`).

A command hands the callback :func:`progress_bar` yields to the core function it calls. The bar is
drawn on stderr, only when stderr is a terminal and ``--json`` was not asked for, and only once the
operation has run for :data:`SHOW_AFTER` seconds: a command that is done sooner prints nothing more
than it always did, and never pays for importing rich. It is erased when the operation ends.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from ov.progress import Progress

# Seconds an operation runs before its bar appears: most commands take less, and a bar that
# flashes for a tenth of a second is noise.
SHOW_AFTER = 1.0
# Seconds between two updates passed on to rich: the core reports every file of 60,000.
UPDATE_EVERY = 0.1


@contextmanager
def progress_bar() -> Iterator[Progress | None]:
    """The callback to report progress through for this command, or None when nothing is drawn."""
    from ov.cli.runtime import runtime

    if runtime().json or not sys.stderr.isatty():
        yield None
        return
    bar = _DelayedBar(SHOW_AFTER)
    try:
        yield bar.update
    finally:
        bar.close()


class _DelayedBar:
    """One line per stage, drawn by rich once ``show_after`` seconds have passed."""

    def __init__(self, show_after: float) -> None:
        self._show_at = time.monotonic() + show_after
        self._stages: dict[str, tuple[int, int | None]] = {}  # in the order they started
        self._progress = None  # rich's Progress, once shown
        self._tasks: dict[str, int] = {}
        self._updated = 0.0

    def update(self, stage: str, done: int, total: int | None) -> None:
        self._stages[stage] = (done, total)
        now = time.monotonic()
        if self._progress is None:
            if now < self._show_at:
                return
            self._show()
        elif now - self._updated < UPDATE_EVERY and stage in self._tasks and done != total:
            return
        self._updated = now
        for name, (completed, of) in self._stages.items():
            if name not in self._tasks:
                self._tasks[name] = self._progress.add_task(name, total=of)
            self._progress.update(self._tasks[name], completed=completed, total=of)

    def _show(self) -> None:
        # Deferred: rich costs ~30 ms to import, paid only by an operation that already took a second.
        import rich.progress as bars

        from ov.cli.output import console

        columns = (bars.TextColumn("{task.description}"), bars.BarColumn(), bars.MofNCompleteColumn(), bars.TimeElapsedColumn())
        self._progress = bars.Progress(*columns, console=console(stderr=True), transient=True)
        self._progress.start()

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
