"""The file writers' shared threads (ov.store.writers) across a fork, a Ctrl-C and a shared store."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from ov.store import writers

FORKED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from ov.store import writers

    def batch(tag):
        futures = writers.submit_all(Path.write_bytes, [(Path(sys.argv[1]) / f"{tag}-{i}", b"x") for i in range(20)])
        return [f.result() for f in futures] == [1] * 20

    assert batch("parent") and writers._running > 0  # the threads run in the parent
    pid = os.fork()
    if pid == 0:
        signal.alarm(60)  # a child whose batch waits for threads it does not have dies of SIGALRM
        os._exit(0 if batch("child") else 3)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
    """
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_writes_its_batches(tmp_path):
    """(found by an audit) The child of a process whose threads ran inherited their counts, not
    the threads: its next batch was queued to nobody and waited for ever, holding the write lock.
    multiprocessing forks by default on Linux; pytest-xdist and pre-fork servers do too."""
    proc = subprocess.run([sys.executable, "-c", FORKED, str(tmp_path)], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert len(list(tmp_path.glob("child-*"))) == 20


def test_a_ctrl_c_while_a_batch_is_handed_over_leaves_no_write_behind(tmp_path, monkeypatch):
    """(found by an audit) A Ctrl-C between two jobs queued lost the futures already made: the
    caller's rollback ran while they still wrote, and files of a commit that never happened
    stayed. The jobs not begun are cancelled and the running ones waited for before it raises."""
    writers.submit_all(Path.write_bytes, [(tmp_path / f"warm-{i}", b"w") for i in range(8)])  # the threads run
    real = writers._jobs

    class Interrupted:
        queued = 0

        def put(self, item):
            real.put(item)
            Interrupted.queued += 1
            if Interrupted.queued == 50:
                raise KeyboardInterrupt

        def get(self, *args, **kwargs):
            return real.get(*args, **kwargs)

        def get_nowait(self):
            return real.get_nowait()

    def slow_write(path: Path, data: bytes) -> None:
        time.sleep(0.005)
        path.write_bytes(data)

    monkeypatch.setattr(writers, "_jobs", Interrupted())
    target = tmp_path / "batch"
    target.mkdir()
    with pytest.raises(KeyboardInterrupt):
        writers.submit_all(slow_write, [(target / f"f{i}", b"x") for i in range(100)])
    landed = sorted(os.listdir(target))
    time.sleep(0.5)  # the 50 jobs queued take ~0.06 s on four threads: any still queued has landed
    assert sorted(os.listdir(target)) == landed and len(landed) <= 50


def test_threads_that_never_run_are_not_waited_for_again(tmp_path, monkeypatch):
    """A thread whose start-up died (of MemoryError) never says it runs: the second batch and
    every one after are written inline at once, not after the same wait each time."""
    monkeypatch.setattr(writers, "_started", 0)
    monkeypatch.setattr(writers, "_running", 0)
    monkeypatch.setattr(writers, "_never", False)
    starts = []
    monkeypatch.setattr(writers._thread, "start_new_thread", lambda fn, args: starts.append(fn) or 1)  # started, never runs
    monkeypatch.setattr(writers, "_STARTED_WITHIN", 0.3)
    assert all(f.done() for f in writers.submit_all(Path.write_bytes, [(tmp_path / f"a{i}", b"a") for i in range(10)]))
    assert len(starts) == writers.WORKERS and writers._never  # waited for once, then known never to run
    assert all(f.done() for f in writers.submit_all(Path.write_bytes, [(tmp_path / f"b{i}", b"b") for i in range(10)]))
    assert len(starts) == writers.WORKERS  # no thread asked for again, so none waited for
    assert (tmp_path / "a9").read_bytes() == b"a" and (tmp_path / "b9").read_bytes() == b"b"


def test_threads_writing_packs_through_one_store_do_not_undo_each_other(tmp_path):
    """(found by an audit) _add_objects swapped add_pack on the shared object store per call: a
    second thread took the first one's swap for the real method, the first one's undo removed
    the second one's, and a stored pack was then reported as AttributeError."""
    from dulwich.object_store import DiskObjectStore
    from dulwich.objects import Blob
    from dulwich.repo import Repo

    from ov.store.gitstore import _add_objects

    path = Repo.init(str(tmp_path)).object_store.path
    entered, go = threading.Event(), threading.Event()

    class Held(DiskObjectStore):
        def add_pack(self):
            if threading.current_thread().name == "first":
                entered.set()
                go.wait(30)
            return super().add_pack()

    disk = Held(path)
    blobs = {name: [Blob.from_string(f"{name} {i}\n".encode()) for i in range(5)] for name in ("first", "second")}
    errors: list[BaseException] = []

    def store(name: str) -> None:
        try:
            _add_objects(disk, blobs[name])
        except BaseException as exc:  # noqa: BLE001 - the assertion below shows it
            errors.append(exc)

    first = threading.Thread(target=store, args=("first",), name="first")
    first.start()
    assert entered.wait(30)
    store("second")  # the whole write of the second while the first is inside its own
    go.set()
    first.join(30)
    assert errors == []
    assert all(blob.id in disk for blob in blobs["first"] + blobs["second"])
