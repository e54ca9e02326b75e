"""The per-account write lock.

Writers from several processes (hooks of parallel agent sessions) take an
exclusive ``flock`` on ``state/{account}/write.lock``. The kernel releases it
when the holder exits, even on ``kill -9``, so a crash never leaves a stale
lock behind. Waiting is bounded: after ``timeout`` seconds the writer gives up
with :class:`~ov.errors.StoreLocked` instead of hanging an agent.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from types import TracebackType

from ov.errors import StoreLocked

_POLL_START = 0.0005
_POLL_MAX = 0.005  # a queued writer retries often: a commit takes ~5 ms


class WriteLock:
    def __init__(self, path: Path, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        delay = _POLL_START
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    raise StoreLocked(
                        f"another ov process held the store for more than {self.timeout:g}s",
                        hint="retry, or raise store.lock_timeout with `ov config set store.lock_timeout 30`",
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, _POLL_MAX)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

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
