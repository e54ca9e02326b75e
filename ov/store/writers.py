"""A few threads, shared by the whole process, that write files while a command goes on.

A pool made per call (as ``ThreadPoolExecutor`` was) starts new threads for every batch, each
reserving a stack and a malloc arena of address space; under a memory limit (``ulimit -v``, a
container's) that ran out, and a thread whose start-up died of MemoryError never told
``Thread.start`` it had started, so the command hung for ever. These threads are started once,
with no wait on them; a batch runs inline when it is small, or when no thread could be started.
"""

from __future__ import annotations

import _thread
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager

WORKERS = 4
INLINE_UP_TO = 2  # a thread's hand-off costs more than writing a file or two
_STARTED_WITHIN = 1.0  # seconds a new thread has to say it runs; one that does not may never

_jobs: queue.SimpleQueue = queue.SimpleQueue()
_starting = threading.Lock()  # one caller at a time starts the missing threads
_counted = threading.Condition()  # guards _running and _started; told when a thread runs
_running = 0  # threads that said they run
_started = 0  # threads asked for, whether or not they run
_never = False  # threads were started and none ran: this process writes inline from then on


def _after_fork() -> None:
    """A forked child has none of the threads, only their counts (and locks perhaps held at the
    fork): its batches queued to nobody and waited for ever, under the write lock. It starts its own."""
    global _jobs, _starting, _counted, _running, _started, _never
    _jobs = queue.SimpleQueue()
    _starting = threading.Lock()
    _counted = threading.Condition()
    _running = _started = 0
    _never = False


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def submit_all(fn: Callable, jobs: Iterable[tuple], inline_up_to: int = INLINE_UP_TO) -> list[Future]:
    """Run ``fn(*job)`` for each job on the shared threads; a future each, in order."""
    jobs = list(jobs)
    if len(jobs) <= inline_up_to or not _workers():
        return [_done(fn, job) for job in jobs]
    futures: list[Future] = []
    try:
        for job in jobs:
            future: Future = Future()
            futures.append(future)
            _jobs.put((future, fn, job))
    except BaseException:
        # A Ctrl-C in this loop: the caller never gets these futures, and its rollback would
        # race the writes still queued (files of a commit that never happened left behind).
        # The ones not begun never run; the ones running are waited for.
        _abandon(futures)
        raise
    if _running == 0:  # the threads died since (of MemoryError): nothing is left waiting for ever
        _drain(None)
    return futures


def _abandon(futures: list[Future]) -> None:
    for future in futures:
        future.cancel()
    for future in futures:
        if not future.cancelled():
            future.exception()


@contextmanager
def settled(futures: list[Future]) -> Iterator[None]:
    """Wait for every one of ``futures`` on the way out, whatever happened inside."""
    try:
        yield
    finally:
        for future in futures:
            if not future.cancelled():
                future.exception()


def _done(fn: Callable, job: tuple) -> Future:
    future: Future = Future()
    _run(future, fn, job)
    return future


def _run(future: Future, fn: Callable, job: tuple) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = fn(*job)
    except BaseException as exc:  # noqa: BLE001 - the caller's future.result() raises it
        future.set_exception(exc)
    else:
        future.set_result(result)


def _workers() -> bool:
    """Whether a shared thread runs, starting the missing ones (never waiting for ever)."""
    global _started, _never
    if _never:
        return False
    with _starting:
        with _counted:
            missing = WORKERS - _started
        for _ in range(missing):
            try:
                _thread.start_new_thread(_work, ())
            except (RuntimeError, MemoryError):  # "can't start new thread": out of memory or threads
                break
            with _counted:
                _started += 1
        with _counted:
            if _running == 0 and _started and not _never:  # another caller waited already
                # A thread whose start-up died (of MemoryError) never says it runs, and stays
                # counted: waiting for it on every batch would cost this wait every time.
                _never = not _counted.wait_for(lambda: _running > 0, _STARTED_WITHIN)
            return _running > 0


def _work() -> None:
    global _running, _started
    try:
        with _counted:
            _running += 1
            _counted.notify_all()
        try:
            while True:
                future, fn, job = _jobs.get()
                _run(future, fn, job)
        finally:
            with _counted:
                _running -= 1
                _started -= 1
                last = _running == 0
            if last:
                _drain(MemoryError())
    except BaseException:  # noqa: BLE001, S110 - out of memory in a thread: its futures say so, stderr need not
        pass


def _drain(error: BaseException | None) -> None:
    """Settle what is queued with no thread left to run it: here, or failed with ``error``."""
    while True:
        try:
            future, fn, job = _jobs.get_nowait()
        except queue.Empty:
            return
        if error is None:
            _run(future, fn, job)
        elif future.set_running_or_notify_cancel():
            future.set_exception(error)
