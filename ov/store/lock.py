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

Under load the queue is long and each small commit pays for its own lock
hand-over, journal, fsync and branch move, in a process that competes for a
CPU with every other one starting up. So a small command may leave its change
as a *request* beside its ticket (``NAME.op``): the holder, once its own work
is done, commits the requests queued behind it, each as a commit of its own,
in one go (see :class:`Request` and :mod:`ov.store.group_commit`). A served waiter
looks for its outcome (``NAME.done``) while it waits and never takes the lock;
one whose turn comes first takes its request back. A holder that dies while
serving leaves ``NAME.result`` without ``NAME.done``: the waiter then takes the
lock and checks whether that commit landed.

The lock is re-entrant within a thread: code that already holds it (a holder
committing a request through the same functions a command uses) passes through.

A writer with a ``stop`` (an MCP call: its client may cancel it, its server may stop) asks it
while it waits, every :data:`~ov.waiting.STOP_POLL` s, and gives up with
:class:`~ov.errors.Interrupted`, nothing written, as soon as it says why; unless the holder has
claimed its request, which is then being committed: its outcome is waited for, as one commit. A
request that comes back unserved (given back, or its holder died before its commit landed) is not
written by its writer once the stop has spoken (:meth:`WriteLock.check_stop`).
"""

from __future__ import annotations

import errno
import json
import os
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from ov.errors import Interrupted, StoreLocked, not_writable, proposal
from ov.files import atomic_write, untouched_for, write_new
from ov.home import Home, make_folder
from ov.names import TEMP_MARKER

if TYPE_CHECKING:
    from ov.waiting import Stop

# A waiter checks its predecessor this often; a small commit holds the lock for a few ms.
_POLL = 0.002
# A waiter with a request looks for its outcome this often while it waits.
_SERVED_POLL = 0.05
# A hidden ticket is made and locked in one step; one this old and unlocked was left by a kill.
_STALE_SECONDS = 1.0
# What a request leaves beside its ticket, in the order the two sides create them.
_REQUEST_FILES = (".op", ".taken", ".result", ".done")
# (lock path, thread) -> the WriteLock holding it, for re-entry.
_HELD: dict[tuple[str, int], WriteLock] = {}


class WriteLock:
    """``home``: the home the lock's folder is in, which makes that folder (the first a writer
    may need in a new home) when missing (:meth:`~ov.home.Home.ensure`); None: made as any."""

    def __init__(self, path: Path, timeout: float, *, home: Home | None = None, stop: Stop | None = None) -> None:
        self.path = path
        self.home = home
        self.timeout = timeout
        self.stop = stop  # see the module's docstring
        self.queue = path.with_name(path.stem + ".queue")
        self._lock = None
        self._ticket = None
        self._ticket_path: Path | None = None
        self._outer: WriteLock | None = None  # set when this thread already held the lock
        self._key = (str(path), threading.get_ident())
        self.leftover: dict | None = None  # see acquire()

    def acquire(self, request: bytes | None = None) -> dict | None:
        """Take the lock; or, when ``request`` (an encoded :class:`Request`) was served by the
        holder while this writer waited, return its outcome without taking the lock.

        With None returned the lock is held. ``leftover`` is then the recorded outcome of a
        request whose server died before it knew whether its commit landed, for the caller
        to check under the lock; it is None otherwise. :class:`~ov.errors.StoreNotWritable`
        when the system refuses this user the queue or the lock file (their permissions, a
        read-only mount): a reader may go on without the lock, a writer cannot.
        """
        try:
            return self._acquire(request)
        except OSError as exc:
            refused = not_writable(exc, self.queue)
            if refused is None:
                raise
            raise refused from exc

    def _acquire(self, request: bytes | None) -> dict | None:
        outer = _HELD.get(self._key)
        if outer is not None:
            self._outer = outer
            return None
        # Deferred: filelock costs ~20 ms to import, and only writers need it.
        from filelock import FileLock, Timeout

        self._check_stop(None, queued=False)  # stopped already: no ticket is taken
        deadline = time.monotonic() + self.timeout
        make_folder(self.queue, self.home)  # perhaps the first folder of the home: made private
        # The ticket is locked under a hidden name and then renamed into the queue, so no
        # successor can find it before it is held (and take it for a dead writer's). Its place
        # is taken as late as possible: a writer slow between taking a name and showing its
        # ticket would be passed by the writers behind it.
        hidden = self.queue / f".{os.getpid()}-{os.urandom(6).hex()}"
        self._ticket = FileLock(hidden)
        self._ticket.acquire(timeout=0)
        self._ticket_path = hidden
        name = f"{time.time_ns():020d}-{os.getpid()}-{os.urandom(3).hex()}"
        try:
            if request is not None:
                # Written in full before the ticket shows (so no temporary file is needed): a
                # holder only looks at the requests of tickets it can see.
                write_new(self.queue / (name + ".op"), request)
            try:
                os.replace(hidden, self.queue / name)
                self._ticket_path = self.queue / name
            except OSError:
                # Windows cannot rename a file that is open and locked: the writer still gets the
                # lock below, only without its place in the queue (and without being served).
                _remove_request(self.queue, name)
                request = None
        except BaseException:
            _remove_request(self.queue, name)  # a request cut short by a full disk
            self._drop_ticket()
            raise
        extended = False
        served = (lambda: (self.queue / (name + ".done")).exists()) if request is not None else None
        while True:
            try:
                self._wait_for_turn(name, deadline, FileLock, Timeout, served)
                claimed = False
                if request is not None:
                    outcome = self._outcome(name)
                    if outcome is not None:
                        self._drop_ticket()
                        return outcome
                    # From here on this writer commits its change itself, unless a holder has
                    # claimed it already (one whose ticket showed late can still be at it).
                    claimed = not _withdraw(self.queue, name)
                self._lock = FileLock(self.path)
                self._take(self._lock, deadline, name, Timeout, stoppable=not claimed)
                if claimed:
                    # The claimer held the lock until now: it served the request, gave it back,
                    # or died while landing it (then ``leftover`` says what it recorded).
                    outcome = self._outcome(name)
                    if outcome is not None:
                        self._lock.release()
                        self._lock = None
                        self._drop_ticket()
                        return outcome
                break
            except Timeout:
                claimed = request is not None and not _withdraw(self.queue, name)
                if claimed and not extended:
                    # The holder took the request and is committing it right now: its outcome
                    # is moments away, and giving up here could report a write that landed.
                    extended, deadline = True, time.monotonic() + self.timeout
                    continue
                self._drop_ticket()
                if claimed:
                    raise StoreLocked(
                        f"the ov process committing this change for it took more than {2 * self.timeout:g}s; "
                        "the change may still land",
                        hint=f"look whether it did ({proposal('read')}, `ov session show`) before you retry",
                    ) from None
                raise StoreLocked(
                    f"another ov process held the store for more than {self.timeout:g}s",
                    hint="retry, or raise store.lock_timeout with `ov config set store.lock_timeout 30`",
                ) from None
            except BaseException:
                self._drop_ticket()
                raise
        _HELD[self._key] = self
        return None

    def _take(self, lock, deadline: float, name: str, timeout_error, *, stoppable: bool) -> None:
        """Take the lock file by ``deadline``, asking ``stop`` meanwhile when ``stoppable`` (no
        holder has this writer's request)."""
        if self.stop is None or not stoppable:
            lock.acquire(timeout=max(deadline - time.monotonic(), 0), poll_interval=_POLL)
            return
        # Here: only a writer that may be stopped (the MCP server's) polls; a hook's never does.
        from ov.waiting import STOP_POLL

        while True:
            self._check_stop(name, queued=False)
            left = deadline - time.monotonic()
            try:
                lock.acquire(timeout=max(min(left, STOP_POLL), 0), poll_interval=_POLL)
                return
            except timeout_error:
                if left <= STOP_POLL:
                    raise

    def check_stop(self) -> None:
        """:class:`~ov.errors.Interrupted` when ``stop`` says why this writer is no longer wanted;
        for a writer that holds the lock and has written nothing yet (a request it left came back
        unserved while it waited, so the stop it could not take then holds now). Nothing for a
        re-entry: the outer writer, perhaps with its commit begun, decides where it stops."""
        if self._outer is None:
            self._check_stop(None, queued=False)

    def _check_stop(self, name: str | None, *, queued: bool) -> None:
        """:class:`~ov.errors.Interrupted` when ``stop`` says this writer is no longer wanted;
        nothing when it says nothing, or when ``queued`` (this writer left its change as a
        request, ticket ``name``) and the holder has claimed it: it is being committed."""
        why = self.stop() if self.stop is not None else None
        if not why or (queued and not _withdraw(self.queue, name)):
            return
        raise Interrupted(f"the write was stopped while it waited for the store's write lock ({why}): nothing was written", hint="make the call again")

    def _outcome(self, name: str) -> dict | None:
        """The served outcome of this writer's request, if any. A recorded but unconfirmed one
        (its server died while committing) becomes ``leftover``."""
        done = _read_json(self.queue / (name + ".done"))
        if done is not None:
            return done
        self.leftover = _read_json(self.queue / (name + ".result"))
        return None

    def requests(self) -> list[Request]:
        """The requests queued behind this holder, oldest first, from writers still waiting.

        Tickets without a request (a large command waiting for the lock itself) are passed
        over: the writers behind one see their outcome without waiting for it.
        """
        if self._outer is not None or self._ticket_path is None or os.name != "posix":
            return []
        try:
            names = os.listdir(self.queue)
        except FileNotFoundError:
            return []
        mine = self._ticket_path.name
        present = set(names)
        found = []
        for name in sorted(n for n in names if n > mine and _is_ticket(n)):
            if name + ".op" in present and _held_by_someone(self.queue / name):
                found.append(Request(self.queue, name))
        return found

    def _wait_for_turn(self, name: str, deadline: float, file_lock, timeout_error, served=None) -> None:
        """Return once no ticket older than ``name`` is held, or as soon as ``served()`` is true
        (checked every ``_SERVED_POLL`` s); raise ``timeout_error`` at the deadline."""
        while True:
            ahead = _tickets_before(self.queue, name)
            if not ahead:
                return
            predecessor = self.queue / ahead[-1]
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise timeout_error(str(self.path))
            if served is not None and served():
                return
            self._check_stop(name, queued=served is not None)
            # A writer with a request looks for its outcome now and then: a holder ahead may
            # serve it while a long command between them still waits for its own turn; one
            # with a stop asks it as often.
            step = min(remaining, _SERVED_POLL) if served is not None else remaining
            if self.stop is not None:
                from ov.waiting import STOP_POLL

                step = min(step, STOP_POLL)
            released = _wait_released(predecessor, step)
            if released is None:
                probe = file_lock(predecessor)
                try:
                    probe.acquire(timeout=step, poll_interval=_POLL)
                except timeout_error:
                    if step < remaining:
                        continue
                    raise
                probe.release()
            elif not released:
                if step < remaining:
                    continue
                raise timeout_error(str(self.path))
            # Released: the predecessor is done (it removed its ticket) or died (it did not).
            # Only its request goes: a holder may be serving it (its claim and outcome are the
            # holder's to finish, and the sweep's under the lock).
            (self.queue / (predecessor.name + ".op")).unlink(missing_ok=True)
            predecessor.unlink(missing_ok=True)

    def sweep_queue(self) -> int:
        """Remove what killed writers left in the queue; the holder calls it. How many files.

        Requests whose ticket is gone (or never showed), tickets still hidden whose owner is dead, and temporary
        files of outcomes a killed holder was writing (only a holder writes those, and this one
        holds the lock). Live tickets and their requests are not touched.
        """
        try:
            names = os.listdir(self.queue)
        except FileNotFoundError:
            return 0
        present = set(names)
        removed = 0
        for name in names:
            path = self.queue / name
            if name.startswith(TEMP_MARKER):
                gone = True
            elif name.startswith("."):  # a ticket killed before it was renamed into the queue
                gone = _older_than(path, _STALE_SECONDS) and not _held_by_someone(path)
            elif "." in name:  # a request file, beside the ticket NAME once that shows
                gone = name.split(".", 1)[0] not in present and _older_than(path, _STALE_SECONDS)
            else:
                continue  # a ticket: a dead one is removed by the writer behind it
            if gone:
                try:
                    path.unlink()
                    removed += 1
                except FileNotFoundError:
                    pass
        return removed

    def others_waiting(self, after: str | None = None) -> bool:
        """True when another writer has queued behind this one (the lock is held), or behind
        the ticket named ``after``."""
        if self._outer is not None:
            return self._outer.others_waiting(after)
        if self._ticket_path is None:
            return False
        try:
            names = os.listdir(self.queue)
        except FileNotFoundError:
            return False
        mine = after or self._ticket_path.name
        return any(n > mine and _is_ticket(n) for n in names)

    @property
    def outermost(self) -> bool:
        """False for a re-entry into a lock this thread already held."""
        return self._outer is None

    def release(self) -> None:
        if self._outer is not None:
            self._outer = None
            return
        if _HELD.get(self._key) is self:
            del _HELD[self._key]
        if self._lock is not None:
            self._lock.release()
            self._lock = None
        self._drop_ticket()

    def _drop_ticket(self) -> None:
        if self._ticket is not None:
            # Removed while still held, so a successor never mistakes the file for a live ticket.
            try:
                if self._ticket_path is not None:
                    _remove_request(self.queue, self._ticket_path.name)
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
    # A timer the caller has running (a hook's deadline) is the same timer: the wait ends by it at
    # the latest, and it is armed again afterwards with what is left of it, so it still fires.
    outer_left, outer_interval = signal.getitimer(signal.ITIMER_REAL)
    started = time.monotonic()
    try:

        def expire(signum, frame) -> None:
            raise _Expired

        signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, max(min(timeout, outer_left) if outer_left else timeout, 0.001))
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
        if outer_left:
            left = outer_left - (time.monotonic() - started)
            if left > 0.001 or not callable(previous):
                signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), outer_interval)
            else:
                previous(signal.SIGALRM, None)  # the caller's deadline is what ended the wait: it goes off here


def _tickets_before(queue: Path, name: str) -> list[str]:
    try:
        names = os.listdir(queue)
    except FileNotFoundError:
        return []
    return sorted(n for n in names if n < name and _is_ticket(n))


def _is_ticket(name: str) -> bool:
    # Tickets are TIME-PID-HEX; hidden ones (being created) and request files have a dot.
    return "." not in name


class Request:
    """A queued writer's change, as the holder of the lock sees it.

    The holder :meth:`claim`\\ s it (so the writer can no longer withdraw it), runs it,
    :meth:`record`\\ s the outcome (a result or an error) before its batch lands and
    :meth:`confirm`\\ s it after; or gives it :meth:`back` for the writer to run itself.
    """

    def __init__(self, queue: Path, name: str) -> None:
        self.queue = queue
        self.name = name

    def _file(self, suffix: str) -> Path:
        return self.queue / (self.name + suffix)

    def claim(self) -> dict | None:
        """The request's content, now the holder's to serve; None when it was withdrawn."""
        try:
            os.replace(self._file(".op"), self._file(".taken"))
        except FileNotFoundError:
            return None
        content = _read_json(self._file(".taken"))
        if content is None:
            self.back()
        return content

    def record(self, outcome: dict) -> None:
        atomic_write(self._file(".result"), json.dumps(outcome).encode(), durable=False)

    def confirm(self) -> None:
        try:
            os.replace(self._file(".result"), self._file(".done"))
        except FileNotFoundError:
            pass  # its writer gave up or was killed, and its files went with it

    def back(self) -> None:
        for suffix in (".result", ".taken"):
            self._file(suffix).unlink(missing_ok=True)


def _withdraw(queue: Path, name: str) -> bool:
    """Take back a request nobody has claimed; False when the holder already has it."""
    try:
        os.unlink(queue / (name + ".op"))
    except FileNotFoundError:
        return not any((queue / (name + suffix)).exists() for suffix in (".taken", ".result", ".done"))
    return True


def _remove_request(queue: Path, name: str) -> None:
    for suffix in _REQUEST_FILES:
        try:
            os.unlink(queue / (name + suffix))
        except FileNotFoundError:
            pass
        except OSError as exc:
            # A queue folder so deep that a suffix takes the path over PATH_MAX holds no such
            # file; raised while the lock is let go, this hid the error that ended the command.
            if exc.errno != errno.ENAMETOOLONG:
                raise


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return untouched_for(path.lstat().st_mtime) >= seconds
    except FileNotFoundError:
        return False


def _read_json(path: Path) -> dict | None:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _held_by_someone(ticket: Path) -> bool:
    """Whether a waiter still holds ``ticket`` (one killed while it waited does not)."""
    import fcntl

    try:
        fd = os.open(ticket, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the probe's lock, if it got one
    return False
