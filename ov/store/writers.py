"""A few threads, shared by the whole process, that write files while a command goes on.

A pool made per call (as ``ThreadPoolExecutor`` was) starts new threads for every batch, each
reserving a stack and a malloc arena of address space; under a memory limit (``ulimit -v``, a
container's) that ran out, and a thread whose start-up died of MemoryError never told
``Thread.start`` it had started, so the command hung for ever. These threads are started once,
with no wait on them; a batch runs inline when it is small, or when no thread could be started.
"""

from __future__ import annotations

import _thread
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager

WORKERS = 4
INLINE_UP_TO = 2  # a thread's hand-off costs more than writing a file or two
_STARTED_WITHIN = 1.0  # seconds a new thread has to say it runs; one that does not may never

_jobs: queue.SimpleQueue = queue.SimpleQueue()
_lock = threading.Lock()
_count = threading.Lock()
_running = 0  # threads that said they run
_started = 0  # threads asked for, whether or not they run


def submit_all(fn: Callable, jobs: Iterable[tuple], inline_up_to: int = INLINE_UP_TO) -> list[Future]:
    """Run ``fn(*job)`` for each job on the shared threads; a future each, in order."""
    jobs = list(jobs)
    if len(jobs) <= inline_up_to or not _workers():
        return [_done(fn, job) for job in jobs]
    futures = []
    for job in jobs:
        future: Future = Future()
        _jobs.put((future, fn, job))
        futures.append(future)
    if _running == 0:  # the threads died since (of MemoryError): nothing is left waiting for ever
        _drain(None)
    return futures


@contextmanager
def settled(futures: list[Future]) -> Iterator[None]:
    """Wait for every one of ``futures`` on the way out, whatever happened inside."""
    try:
        yield
    finally:
        for future in futures:
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
    global _started
    with _lock:
        while _started < WORKERS:
            try:
                _thread.start_new_thread(_work, ())
            except (RuntimeError, MemoryError):  # "can't start new thread": out of memory or threads
                break
            _started += 1
        deadline = time.monotonic() + _STARTED_WITHIN
        while _started and _running == 0 and time.monotonic() < deadline:
            time.sleep(0.001)
        return _running > 0


def _work() -> None:
    global _running, _started
    try:
        with _count:
            _running += 1
        try:
            while True:
                future, fn, job = _jobs.get()
                _run(future, fn, job)
        finally:
            with _count:
                _running -= 1
                _started -= 1
            if _running == 0:
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
