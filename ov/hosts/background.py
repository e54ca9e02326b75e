"""Work a hook leaves for after its answer: captures, commits and index catch-up, in detached processes.

A hook answers first and then starts ``python -m ov.hosts.worker JOB`` in a new session with no
terminal, so the agent never waits for a commit or an LLM extraction, and the host killing its
hook (or exiting) does not stop the job.

**The commit barrier.** The next session must see what the last one learned, so a session start
waits (at most ``hooks.commit_wait`` seconds) for the commits of the same user still running.
Each commit job holds an exclusive ``flock`` on a file of its own in
``state/{account}/hooks/commits/{user}/``; the hook takes the lock *before* it starts the job and
hands the open file to it, so there is no moment at which the job is started but not yet
visible. The job lets it go once its commit has landed: the session start reads the memory
files, not the index, so the index catch-up after the commit (a third of the job, more with an
embedder) is no wait of its. A session start waits until it can take each such lock shared. The kernel drops a
lock when its holder dies, so a killed job never blocks a session: its file is removed by the
next waiter. Where ``fcntl`` does not exist (Windows), jobs run without a barrier.

**Captures before the commit.** A turn's capture job can still be adding its messages when the
session's end hook starts the commit (Gemini CLI fires both within ~100 ms). Capture jobs hold a
lock of the same kind in ``state/{account}/hooks/captures/{user}/``, named by their session, and
a commit job waits for its session's (at most ``hooks.commit_wait`` seconds) before it reads the
session, so the last turn is committed rather than left for the orphan sweep.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from ov.home import Home, make_folder

try:
    import fcntl
except ImportError:  # Windows: no barrier
    fcntl = None  # type: ignore[assignment]

POLL = 0.05


def barrier_dir(store) -> Path:
    """Where the running commits of the store's user hold their locks."""
    return store.state / "hooks" / "commits" / store.identity.user


def captures_dir(store) -> Path:
    """Where the running captures of the store's user hold their locks."""
    return store.state / "hooks" / "captures" / store.identity.user


def index_job_lock(store) -> Path:
    """What a running index job holds, so that the prompts during a long build start no other."""
    return store.state / "hooks" / "index-job.lock"


@contextmanager
def holding_index_job(store, timeout: float):
    """Be the index job while the body runs (a capture's or commit's catch-up), so that prompts
    meanwhile start none of their own, which would only find the index caught up. Yields whether
    it is: a running index job is waited for at most ``timeout`` seconds (a first build has no
    deadline, and a capture holds its barrier until it exits), after which the catch-up is left
    to that job."""
    if fcntl is None:
        yield True
        return
    path = index_job_lock(store)
    store.home.ensure(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(POLL)
        yield True
    finally:
        os.close(fd)


class AlreadyRunning(Exception):
    """:func:`start` with ``once``: a job holding that lock is running."""


def start(job: dict, *, home: Home | None = None, barrier: Path | None = None, once: Path | None = None) -> int | None:
    """Start the detached worker for ``job``; with ``barrier`` (:func:`barrier_dir` or
    :func:`captures_dir`), holding a lock there until it is done; with ``once``, only when no
    job holds the lock of that file (else :class:`AlreadyRunning`), and holding it until done.
    ``home``: the home those folders are in, which makes them when missing (:meth:`Home.ensure`).

    Returns the worker's pid, or None when it could not be started (the caller logs it).
    """
    pass_fds: tuple[int, ...] = ()
    lock_fd = None
    if once is not None and fcntl is not None:
        make_folder(once.parent, home)  # the first folder a recall hook makes in a new state/
        lock_fd = os.open(once, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock_fd)
            raise AlreadyRunning(str(once)) from None
        # The worker's copy holds the lock until it exits or lets it go (an index job that looks
        # again, :func:`index_again`); the file stays.
        job = {**job, "once_fd": lock_fd}
        pass_fds = (lock_fd,)
    elif barrier is not None and fcntl is not None:
        make_folder(barrier, home)
        path = barrier / f"{job.get('session', 'job')}-{os.getpid()}-{os.urandom(4).hex()}.lock"
        # Locked under a name waiters ignore, then renamed: a waiter never sees it unlocked.
        pending = path.with_suffix(".new")
        lock_fd = os.open(pending, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        os.replace(pending, path)
        job = {**job, "barrier": str(path), "barrier_fd": lock_fd}
        pass_fds = (lock_fd,)
    try:
        # The job goes on stdin: an OpenCode turn end carries the session's messages, more than
        # a command line may hold.
        return _spawn([sys.executable, "-m", "ov.hosts.worker"], json.dumps(job, ensure_ascii=False).encode("utf-8", "surrogateescape"), pass_fds)
    except OSError:
        if "barrier" in job:
            os.unlink(job["barrier"])
        return None
    finally:
        if lock_fd is not None:
            os.close(lock_fd)  # the worker holds its own copy of the locked file


def start_index_after_write(store) -> int | None:
    """Start the index job (``once``, :func:`index_job_lock`) after a command's write to ``store``
    landed, when a prompt hook would otherwise search the index without it
    (:func:`~ov.index.folder.recall_behind`). The job's pid, else None.

    The prompt hook searches the index as it is and only then starts the catch-up: the prompt
    right after ``ov remember`` (``ov write``, ``ov commit``) found nothing of it. The job is done
    in about a second, before a person's next prompt. Writes in quick succession start one job
    (the rest find it running); it looks again once done (:func:`index_again`). In a home no hook
    ever ran in, nothing is started: a find catches up itself. A failure is logged, never raised:
    the write is done, and the next prompt starts the job. (The MCP server, which keeps the model
    loaded, catches up itself after answering.)"""
    try:
        from ov.index.folder import recall_behind

        if not recall_behind(store):
            return None
        from ov.hosts import index_retry

        if index_retry.blocked(store):
            return None  # the last job failed: the prompt hook says why, and tries again later
        identity = store.identity
        job = {"kind": "index", "event": "write", "session": None, "identity": {"account": identity.account, "user": identity.user, "peer": identity.peer}}
        return start(job, home=store.home, once=index_job_lock(store))
    except AlreadyRunning:
        return None  # that job looks again when done (index_again)
    except Exception as exc:  # noqa: BLE001 - the write landed: the next prompt starts the catch-up
        import logging

        logging.getLogger("ov").debug("index job not started: %s", exc)
        return None


def index_again(store, job: dict) -> bool:
    """In an index job whose catch-up is done: its lock let go, then True when the index is behind
    HEAD again and the lock was taken again, for one more round.

    A write that lands while the job runs finds it running and starts none. Let go first and
    looked at after: the writer's commit lands before it tries the lock, so either it takes the
    lock (and starts a job) or this sees its commit."""
    fd = job.pop("once_fd", None)
    if fd is None or fcntl is None:
        return False
    os.close(fd)
    from ov.index.folder import INDEX_DIR, behind

    if not behind(store.state / INDEX_DIR, store.git):
        return False
    fd = os.open(index_job_lock(store), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return False  # another job took it: it catches up
    job["once_fd"] = fd
    return True


def start_packing(store) -> int | None:
    """Start a packing run (:mod:`ov.store.packing`) for ``store`` in a detached worker when one
    has work and none is running: the worker's pid, else None. For a command that wrote: a run
    takes about a second (more when it folds packs), and the command exits without waiting for it.
    The worker holds the pack lock from before this returns until it exits, as a packer in this
    process would have. A failure (a state folder that cannot be written) is logged, never
    raised: the command's own work is done."""
    try:
        from ov.store.packing import LOCK_NAME, due

        config = store.config.store
        if not due(store.git, config.auto_pack_loose, config.auto_pack_limit):
            return None
        identity = store.identity
        job = {"kind": "pack", "identity": {"account": identity.account, "user": identity.user, "peer": identity.peer}}
        return start(job, home=store.home, once=store.state / LOCK_NAME)
    except AlreadyRunning:
        return None  # another packer: the next command that writes looks again
    except Exception as exc:  # noqa: BLE001 - tidying only: every object is still where it was
        import logging

        logging.getLogger("ov").debug("packing not started: %s", exc)
        return None


def _spawn(argv: list[str], stdin: bytes, pass_fds: tuple[int, ...]) -> int:
    """Start ``argv`` in a session of its own with ``stdin`` on its standard input, its output
    discarded and, of this process's descriptors, only ``pass_fds`` inherited; its pid.

    ``os.posix_spawn`` where it can start a session: importing subprocess (selectors, locale,
    threading, signal) cost every stop hook ~10 ms, and the hook only needs this one call.
    """
    if not hasattr(os, "posix_spawn") or not hasattr(os, "POSIX_SPAWN_DUP2"):
        import subprocess

        process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True, pass_fds=pass_fds, start_new_session=True
        )
        try:
            process.stdin.write(stdin)
        finally:
            process.stdin.close()
        return process.pid
    read_end, write_end = os.pipe()  # not inheritable: only what dup2 puts at 0, 1 and 2 is
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in pass_fds:
            os.set_inheritable(fd, True)
        actions = [(os.POSIX_SPAWN_DUP2, read_end, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions, setsid=True)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
        os.close(devnull)
    with open(write_end, "wb") as pipe:
        pipe.write(stdin)
    return pid


def release(job: dict) -> None:
    """In the worker, once what it stores has landed: the barrier file goes, then the lock with
    it. Once only (the keys go from ``job``): a descriptor closed twice may be another file's."""
    path, fd = job.pop("barrier", None), job.pop("barrier_fd", None)
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass


def wait(store, timeout: float) -> tuple[int, bool]:
    """Wait until no commit of the store's user is running, at most ``timeout`` seconds.

    Returns how many running commits were waited for, and whether all of them finished.
    """
    return _wait_for(barrier_dir(store), "*.lock", timeout)


def wait_captures(store, session: str, timeout: float) -> tuple[int, bool]:
    """Wait until no capture of ``session`` is running, at most ``timeout`` seconds (as :func:`wait`)."""
    return _wait_for(captures_dir(store), f"{glob.escape(session)}-*.lock", timeout)


def _wait_for(folder: Path, pattern: str, timeout: float) -> tuple[int, bool]:
    if fcntl is None:
        return 0, True
    try:
        pending = sorted(folder.glob(pattern))
    except OSError:
        return 0, True
    deadline = time.monotonic() + timeout
    waited = 0
    for path in pending:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue  # finished meanwhile
        try:
            blocked = False
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    blocked = True
                    if time.monotonic() >= deadline:
                        return waited + 1, False
                    time.sleep(POLL)
            waited += blocked
            try:
                os.unlink(path)  # done, or its holder died: nobody will release it
            except OSError:
                pass
        finally:
            os.close(fd)
    return waited, True
