"""The per-account write lock, served first come, first served.

Writers from several processes (hooks of parallel agent sessions) serialise
on ``state/{account}/write.lock``. The locks are the operating system's
(``flock`` on POSIX, ``LockFileEx`` on Windows, through ``filelock``), so the
kernel releases them when their holder exits, even on ``kill -9``: a crash
never leaves a lock held.

A bare lock file is not fair: waiters that poll for it race, and under load
some lose every race until they time out while newcomers get through. So a
writer first takes a ticket, a file in ``write.queue/`` named by the time it
arrived, which it holds locked while it waits and works. It waits for the
ticket just before its own to be released (the predecessor finished, gave up,
or died: its lock is gone either way), then takes the lock file itself. Waiting
is bounded: after ``timeout`` seconds the writer gives up with
:class:`~ov.errors.StoreLocked` instead of hanging an agent.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from pathlib import Path
from types import TracebackType

from ov.errors import StoreLocked

# A waiter checks its predecessor this often; a small commit holds the lock for a few ms.
_POLL = 0.002


class WriteLock:
    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self.queue = path.with_name(path.stem + ".queue")
        self._lock = None
        self._ticket = None
        self._ticket_path: Path | None = None

    def acquire(self) -> None:
        # Deferred: filelock costs ~20 ms to import, and only writers need it.
        from filelock import FileLock, Timeout

        deadline = time.monotonic() + self.timeout
        self.queue.mkdir(parents=True, exist_ok=True)
        name = f"{time.time_ns():020d}-{os.getpid()}-{secrets.token_hex(3)}"
        # The ticket is locked under a hidden name and then renamed into the queue, so no
        # successor can find it before it is held (and take it for a dead writer's).
        hidden = self.queue / f".{name}"
        self._ticket = FileLock(hidden)
        self._ticket.acquire(timeout=0)
        self._ticket_path = self.queue / name
        try:
            os.replace(hidden, self._ticket_path)
        except OSError:
            # Windows cannot rename a file that is open and locked: the writer still gets the
            # lock below, only without its place in the queue.
            self._ticket_path = hidden
        try:
            self._wait_for_turn(name, deadline, FileLock, Timeout)
            self._lock = FileLock(self.path)
            self._lock.acquire(timeout=max(deadline - time.monotonic(), 0), poll_interval=_POLL)
        except Timeout:
            self._drop_ticket()
            raise StoreLocked(
                f"another ov process held the store for more than {self.timeout:g}s",
                hint="retry, or raise store.lock_timeout with `ov config set store.lock_timeout 30`",
            ) from None
        except BaseException:
            self._drop_ticket()
            raise

    def _wait_for_turn(self, name: str, deadline: float, file_lock, timeout_error) -> None:
        """Return once no ticket older than ``name`` is held; raise ``timeout_error`` at the deadline."""
        while True:
            ahead = _tickets_before(self.queue, name)
            if not ahead:
                return
            predecessor = self.queue / ahead[-1]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise timeout_error(str(self.path))
            released = _wait_released(predecessor, remaining)
            if released is None:
                probe = file_lock(predecessor)
                probe.acquire(timeout=remaining, poll_interval=_POLL)
                probe.release()
            elif not released:
                raise timeout_error(str(self.path))
            # Released: the predecessor is done (it removed its ticket) or died (it did not).
            predecessor.unlink(missing_ok=True)

    def others_waiting(self) -> bool:
        """True when another writer has queued behind this one (the lock is held)."""
        if self._ticket_path is None:
            return False
        try:
            names = os.listdir(self.queue)
        except FileNotFoundError:
            return False
        mine = self._ticket_path.name
        return any(n > mine and not n.startswith(".") for n in names)

    def release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        self._drop_ticket()

    def _drop_ticket(self) -> None:
        if self._ticket is not None:
            # Removed while still held, so a successor never mistakes the file for a live ticket.
            try:
                if self._ticket_path is not None:
                    self._ticket_path.unlink(missing_ok=True)
            except PermissionError:
                pass  # Windows refuses to delete an open file; filelock removes it on release there
            self._ticket.release()
            self._ticket = None

    def __enter__(self) -> WriteLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


class _Expired(Exception):
    pass


def _wait_released(path: Path, timeout: float) -> bool | None:
    """Sleep in the kernel until nobody holds ``path``'s lock: True once it is free, False when
    ``timeout`` passed first, None when this cannot be done here (not POSIX, or not the main
    thread), and the caller polls through filelock instead.

    Thirty waiters polling every few milliseconds burn a good part of a core, which the holder
    of the lock needs; a blocking ``flock`` costs nothing until the holder lets go. Python has
    no timeout for it, so a timer signal interrupts it at the deadline.
    """
    if os.name != "posix" or threading.current_thread() is not threading.main_thread():
        return None
    import fcntl
    import signal

    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    previous = signal.getsignal(signal.SIGALRM)
    try:

        def expire(signum, frame) -> None:
            raise _Expired

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, max(timeout, 0.001))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    except _Expired:
        return False
    finally:
        signal.signal(signal.SIGALRM, previous)
        os.close(fd)


def _tickets_before(queue: Path, name: str) -> list[str]:
    try:
        names = os.listdir(queue)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n < name and not n.startswith("."))
