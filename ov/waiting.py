"""Waiting for a call that blocks (a model's answer, an embedder's probe) so that the wait can end
before the call does: after a time limit, or as soon as the caller no longer wants it.

``stop`` (a :data:`Stop`) says why the caller no longer wants what it is doing, or None: the MCP
server's calls have one (their client cancelled them, the server is stopping), and code that can
stop without writing anything asks it while it waits. A call cut short is left to finish alone on
its daemon thread, its result dropped: Python cannot end a thread. What the call may still cost
is its own to account for, and it ends as soon as it can when it gave the wait a way to end it
(``abandon``: ov's model client hangs up its connection, :class:`ov.llm.wire.Line`); else by its
own timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

Stop = Callable[[], "str | None"]

# How often a wait asks its ``stop``: a cancellation is seen within this.
STOP_POLL = 0.05  # seconds


class Stopped(Exception):
    """The caller's ``stop`` said to stop (``why``) before the call waited for ended."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def waited(call: Callable[[], T], *, seconds: float | None = None, stop: Stop | None = None, abandon: Callable[[], None] | None = None) -> T:
    """``call()``'s result or its exception; TimeoutError after ``seconds``, :class:`Stopped` once
    ``stop()`` gives a reason (asked every :data:`STOP_POLL` s). With neither, ``call()`` itself.

    ``abandon`` is called once, before either is raised, so that the call left running can end
    early rather than by its own timeout: it must not block, and the call sees it from its thread."""
    if seconds is None and stop is None:
        return call()
    box: dict = {}

    def target() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed back to the caller below
            box["error"] = exc

    worker = threading.Thread(target=target, name="ov-waited", daemon=True)
    worker.start()
    deadline = None if seconds is None else time.monotonic() + seconds
    while True:
        left = None if deadline is None else deadline - time.monotonic()
        if left is not None and left <= 0:
            _abandoned(abandon)
            raise TimeoutError(f"no answer in {seconds:g} s")
        worker.join(left if stop is None else STOP_POLL if left is None else min(left, STOP_POLL))
        if not worker.is_alive():
            break
        why = stop() if stop is not None else None
        if why:
            _abandoned(abandon)
            raise Stopped(why)
    if "error" in box:
        raise box["error"]
    return box["value"]


def _abandoned(abandon: Callable[[], None] | None) -> None:
    if abandon is not None:
        abandon()
