"""What a killed ov leaves behind is cleaned up by the next command, and git in an account behaves.

Each test recreates, by hand, the exact files a SIGKILL at one point of a write leaves (the
crash-point suite in test_crash_points.py produces them for real); before these fixes every one
of them made a later command fail or lie.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dulwich.objects import Blob

from ov.store.gitstore import JOURNAL_NAME

HAS_GIT = shutil.which("git") is not None
needs_git = pytest.mark.skipif(not HAS_GIT, reason="needs the git executable")


def account(ov_home: Path) -> Path:
    return ov_home / "accounts/default"


def state(ov_home: Path) -> Path:
    return ov_home / "state/default"


def old(path: Path) -> Path:
    """Age a file past the grace a live git is given for its locks."""
    past = time.time() - 30
    os.utime(path, (past, past))
    return path


def git(ov_home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", str(account(ov_home)), *args], capture_output=True, text=True, env=env)


def interrupted_journal(ov_home: Path, paths: list[str]) -> None:
    """The journal a writer killed before its ref moved leaves (old head, no new commit yet)."""
    head = (account(ov_home) / ".git/refs/heads/main").read_text().strip()
    journal = {"version": 1, "old": head, "new": None, "paths": paths, "started": time.time()}
    (state(ov_home) / JOURNAL_NAME).write_text(json.dumps(journal))


# --- git's lock files ---------------------------------------------------------------------


def test_a_stale_branch_lock_no_longer_blocks_every_later_write(ov_process, ov_home):
    assert ov_process("write", "viking://resources/a.md", "--content", "before").exit_code == 0
    lock = account(ov_home) / ".git/refs/heads/main.lock"
    lock.touch()
    old(lock)
    result = ov_process("write", "viking://resources/e.md", "--content", "after")
    assert result.exit_code == 0, result.stderr
    # Said once, on stderr, by the command that cleaned up.
    assert result.stderr.splitlines() == ["recovered: removed 1 file(s) an interrupted git write left: refs/heads/main.lock"]
    assert not lock.exists()
    assert ov_process("read", "viking://resources/e.md").stdout == "after"


def test_a_young_branch_lock_is_given_time_before_it_counts_as_stale(ov, ov_home, monkeypatch):
    from types import SimpleNamespace

    from ov.store import gitstore

    assert ov("write", "viking://resources/a.md", "--content", "before").exit_code == 0
    lock = account(ov_home) / ".git/refs/heads/main.lock"
    lock.touch()  # as if a plain git were writing the branch this very moment
    # The store's clock: its sleeps are noted and move it on, rather than waited.
    slept: list[float] = []
    monkeypatch.setattr(gitstore, "time", SimpleNamespace(time=lambda: time.time() + sum(slept), localtime=time.localtime, sleep=slept.append))
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    # It waited until the lock could be old enough, then found it still there: stale.
    assert len(slept) == 1 and 0 < slept[0] <= gitstore.STALE_LOCK_SECONDS, slept
    assert not lock.exists()


def test_stale_tag_remote_and_index_locks_are_removed(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    tags = account(ov_home) / ".git/refs/tags"
    tags.mkdir(parents=True, exist_ok=True)
    tag_lock = tags / "v1.lock"
    tag_lock.touch()
    index_lock = account(ov_home) / ".git/index.lock"
    index_lock.touch()
    remote_lock = account(ov_home) / ".git/refs/remotes/origin/main.lock"  # a pull killed mid-fetch
    remote_lock.parent.mkdir(parents=True)
    remote_lock.touch()
    old(tag_lock), old(index_lock), old(remote_lock)
    status = ov("status")
    assert status.exit_code == 0, status.stderr
    assert not tag_lock.exists() and not index_lock.exists() and not remote_lock.exists()
    assert ov("snapshot", "commit", "-m", "nothing").exit_code == 0


def test_a_stale_object_lock_does_not_refuse_the_retry_of_the_same_write(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    sha = Blob.from_string(b"retried content").id.decode()
    obj_dir = account(ov_home) / ".git/objects" / sha[:2]
    obj_dir.mkdir(exist_ok=True)
    (obj_dir / (sha[2:] + ".lock")).touch()
    old(obj_dir / (sha[2:] + ".lock"))
    interrupted_journal(ov_home, ["resources/x.md"])  # killed while its objects were written
    result = ov("write", "viking://resources/x.md", "--content", "retried content")
    assert result.exit_code == 0, result.stderr
    assert not (obj_dir / (sha[2:] + ".lock")).exists()


def test_fsck_reports_a_stale_lock_and_status_clears_it(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    lock = account(ov_home) / ".git/refs/heads/main.lock"
    lock.touch()
    old(lock)
    report = ov("fsck", "--json").json["result"]
    assert any("refs/heads/main.lock" in f["message"] for f in report["findings"])
    assert ov("status").exit_code == 0
    assert not lock.exists()
    assert not any("lock" in f["message"] for f in ov("fsck", "--json").json["result"]["findings"])


def test_a_branch_lock_dated_ahead_of_the_clock_is_stale_once_it_does_not_change(ov, ov_home):
    """The clock stepped back after the kill (NTP, a restored VM snapshot): its negative age kept
    the lock "just written", and every write failed until the clock caught up."""
    assert ov("write", "viking://resources/a.md", "--content", "before").exit_code == 0
    lock = account(ov_home) / ".git/refs/heads/main.lock"
    lock.touch()
    ahead = time.time() + 2 * 3600
    os.utime(lock, (ahead, ahead))
    report = ov("fsck", "--json").json["result"]
    assert any("refs/heads/main.lock" in f["message"] for f in report["findings"])
    result = ov("write", "viking://resources/b.md", "--content", "after")
    assert result.exit_code == 0, result.stderr
    assert not lock.exists()


def test_a_lock_dated_ahead_that_changes_over_the_wait_is_left_to_its_writer(tmp_path, monkeypatch):
    from ov.store import gitstore

    lock, ahead = tmp_path / "main.lock", time.time() + 3600
    lock.write_bytes(b"a")
    os.utime(lock, (ahead, ahead))

    def rewritten(seconds):  # a live git rewrites its lock within the wait
        lock.write_bytes(b"bb")
        os.utime(lock, (ahead + 1, ahead + 1))

    monkeypatch.setattr(gitstore.time, "sleep", rewritten)
    assert gitstore._still_stale([lock]) == []
    monkeypatch.setattr(gitstore.time, "sleep", lambda seconds: None)
    assert gitstore._still_stale([lock]) == [lock]


def test_sweeps_of_killed_writes_count_a_date_far_ahead_as_old(tmp_path):
    from ov.files import remove_stale_replacements, replacement_beside, untouched_for

    assert untouched_for(2000.0, now=400.0) == untouched_for(400.0, now=2000.0) == 1600.0
    (tmp, fd) = replacement_beside(tmp_path / "settings.json")
    os.close(fd)
    ahead = time.time() + 7200
    os.utime(tmp, (ahead, ahead))
    assert remove_stale_replacements(tmp_path, older_than=60) == [tmp]


def test_a_date_a_few_minutes_ahead_is_just_written_to_sweeps_outside_the_lock(tmp_path, monkeypatch):
    """(session 38's leftover) On a network file system whose server runs a few minutes fast, a
    live lock or temporary file written a moment ago is dated ahead; counted by its distance it
    looked minutes old, and a sweep outside the lock removed it under its writer. Up to ten
    minutes ahead is skew (age 0); further ahead is old, as a clock stepped back leaves it."""
    from ov import files
    from ov.store import lock as locks

    untouched_for = files.untouched_for

    assert files.CLOCK_SKEW_SECONDS == 600.0
    assert untouched_for(1000.0, now=400.0) == untouched_for(1180.0, now=1000.0) == untouched_for(1000.0, now=1000.0) == 0.0
    assert untouched_for(1601.0, now=1000.0) == 601.0
    assert untouched_for(400.0, now=1000.0) == 600.0  # the past as it always was
    (tmp, fd) = files.replacement_beside(tmp_path / "settings.json")
    os.close(fd)
    skewed = time.time() + 180  # the server's clock three minutes fast
    os.utime(tmp, (skewed, skewed))
    assert files.remove_stale_replacements(tmp_path, older_than=60) == [] and tmp.exists()
    ticket = tmp_path / "01796564874964022329-21510-af5a3a.op"
    ticket.write_text("{}")
    os.utime(ticket, (skewed, skewed))
    assert not locks._older_than(ticket, 60)
    far = time.time() + 2 * 3600
    os.utime(ticket, (far, far))
    assert locks._older_than(ticket, 60)


def test_a_hand_edit_that_keeps_size_and_mtime_is_seen_by_its_change_time(ov, ov_home, monkeypatch):
    """`touch -r`, `rsync -t`, `cp -p`: the same size and the old mtime. `ov status` said clean
    and `snapshot commit` had nothing to commit, while `ov write` refused the hand edit."""
    from ov.store.gitstore import GitStore

    assert ov("write", "viking://resources/n.md", "--content", "alpha beta gamma").exit_code == 0
    assert ov("status").exit_code == 0  # the index now holds the file's stat data
    reads = []
    real = GitStore.blob_id
    monkeypatch.setattr(GitStore, "blob_id", staticmethod(lambda data: reads.append(data) or real(data)))
    time.sleep(0.02)  # past the index's own mtime: not "racily clean"
    assert "no hand edits" in ov("status").stdout
    assert reads == []  # an untouched file is not read again: its change time is as the index has it
    path = account(ov_home) / "resources/n.md"
    before = path.stat()
    path.write_text("delta beta gamma")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert "viking://resources/n.md" in ov("status").stdout
    result = ov("snapshot", "commit", "-m", "kept")
    assert result.exit_code == 0 and "committed 1" in result.stdout, result.stdout
    assert ov("write", "viking://resources/n.md", "--content", "epsilon").exit_code == 0


def test_a_pack_write_that_fails_leaves_no_temporary_pack(tmp_path, monkeypatch):
    """dulwich's abort re-raised from the close (the flush hit the full disk again) before it
    removed the pack; another's temporary pack beside it is left alone."""
    import errno

    from dulwich import object_store
    from dulwich.repo import Repo

    from ov.store.gitstore import _add_objects

    disk = Repo.init(str(tmp_path), mkdir=False).object_store
    pack_dir = Path(disk.pack_dir)
    pack_dir.mkdir(parents=True, exist_ok=True)
    (pack_dir / "tmpothers.pack").write_bytes(b"another ov's pack, being written")
    real_write = object_store.write_pack_data

    def full(write, *args, **kwargs):
        write(b"PACK partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(object_store, "write_pack_data", full)
    monkeypatch.setattr(object_store.os, "remove", lambda path: (_ for _ in ()).throw(OSError(errno.ENOSPC, "flush")))
    blobs = [Blob.from_string(f"blob {i}".encode()) for i in range(3)]
    with pytest.raises(OSError):
        _add_objects(disk, blobs)
    monkeypatch.undo()
    assert sorted(p.name for p in pack_dir.iterdir()) == ["tmpothers.pack"]
    noted = vars(disk)["add_pack"]  # put on once for good, never per call (threads share the store)
    assert real_write is object_store.write_pack_data
    _add_objects(disk, blobs)
    assert all(b.id in disk for b in blobs) and vars(disk)["add_pack"] is noted


# --- temporary files of atomic writes -------------------------------------------------------


def test_temp_files_of_a_killed_add_are_removed_and_never_make_phantom_directories(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    phantom = account(ov_home) / "resources/notes"
    phantom.mkdir()
    (phantom / ".ov-tmp-0123456789ab").write_bytes(b"half of a file")
    interrupted_journal(ov_home, ["resources/notes/n.md"])
    listing = ov("ls", "viking://resources", "--json").json["result"]
    assert [e["name"] for e in listing] == ["a.md"]  # the read settled the interrupted add first
    assert not phantom.exists()
    assert ov("mkdir", "viking://resources/notes").exit_code == 0


def test_status_sweeps_temp_files_that_no_journal_names(ov, ov_home):
    assert ov("write", "viking://resources/d/a.md", "--content", "a").exit_code == 0
    stray = account(ov_home) / "resources/d/.ov-tmp-feedfacecafe"
    stray.write_bytes(b"x" * 1000)
    result = ov("status")
    assert result.exit_code == 0 and "temporary file" in result.stdout + result.stderr
    assert not stray.exists()
    assert all("temporary" not in f["message"] for f in ov("fsck", "--json").json["result"]["findings"])


def test_an_unreadable_journal_is_removed_and_the_store_writes_again(ov, ov_home, caplog):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    (state(ov_home) / JOURNAL_NAME).write_bytes(b"{ torn")
    result = ov("write", "viking://resources/b.md", "--content", "b")
    assert result.exit_code == 0 and "unreadable journal" in caplog.text
    assert not (state(ov_home) / JOURNAL_NAME).exists()


# --- rm and hand edits ----------------------------------------------------------------------


def test_rm_of_a_hand_edited_file_is_refused_and_keeps_the_edit(ov, ov_home):
    assert ov("write", "viking://resources/n.md", "--content", "committed").exit_code == 0
    path = account(ov_home) / "resources/n.md"
    path.write_text("committed\nuncommitted hand edit\n")
    result = ov("rm", "viking://resources/n.md", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert "uncommitted hand edit" in path.read_text()


def test_rm_of_a_file_that_was_never_committed_is_refused(ov, ov_home):
    assert ov("write", "viking://resources/n.md", "--content", "committed").exit_code == 0
    handmade = account(ov_home) / "resources/handmade.md"
    handmade.write_text("never committed")
    result = ov("rm", "viking://resources/handmade.md", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert handmade.exists()


@pytest.mark.parametrize("scope", ["viking://resources", "viking://agent", "viking://user/default", "viking://~"])
def test_rm_of_a_whole_scope_is_refused(ov, ov_home, scope):
    assert ov("write", "viking://resources/n.md", "--content", "keep").exit_code == 0
    result = ov("rm", "-r", scope, "--json")
    assert result.exit_code == 2 and "name a path inside it" in result.error["message"]
    assert (account(ov_home) / "resources/n.md").exists()


@pytest.mark.parametrize("uri", ["viking://session/x", "viking://~/sessions/x", "viking://user/default/sessions/x"])
def test_a_plain_file_where_a_session_folder_belongs_is_refused(ov, uri):
    result = ov("write", uri, "--content", "x", "--json")
    assert result.exit_code == 1 and result.error["code"] == "is_directory"
    assert ov("session", "add", "x", "--text", "hi").exit_code == 0


# --- git in the account ---------------------------------------------------------------------


@needs_git
def test_plain_git_status_agrees_with_ov_after_every_kind_of_write(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    assert ov("write", "viking://resources/d/b.md", "--content", "b").exit_code == 0
    assert git(ov_home, "status", "--porcelain").stdout == ""
    assert ov("mv", "viking://resources/d", "viking://resources/e").exit_code == 0
    assert ov("rm", "viking://resources/a.md").exit_code == 0
    assert ov("session", "add", "s1", "--text", "I prefer tabs").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    assert git(ov_home, "status", "--porcelain").stdout == ""
    (account(ov_home) / "resources/e/b.md").write_text("edited")
    assert git(ov_home, "status", "--porcelain").stdout.strip() == "M resources/e/b.md"


@needs_git
def test_a_plain_git_commit_in_the_account_commits_only_the_hand_edit(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    (account(ov_home) / "resources/a.md").write_text("by hand")
    assert git(ov_home, "commit", "-qam", "mine").returncode == 0
    assert git(ov_home, "show", "--name-only", "--format=", "HEAD").stdout.split() == ["resources/a.md"]
    assert ov("read", "viking://resources/b.md").stdout == "b"
    assert ov("write", "viking://resources/c.md", "--content", "c").exit_code == 0
    assert git(ov_home, "status", "--porcelain").stdout == ""


@needs_git
def test_the_index_is_rebuilt_when_missing_and_git_fsck_stays_strict_clean(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    (account(ov_home) / ".git/index").unlink()
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    assert git(ov_home, "status", "--porcelain").stdout == ""
    assert git(ov_home, "fsck", "--strict").returncode == 0


# --- the write lock -------------------------------------------------------------------------


_HOLDER = """
import sys, time
from pathlib import Path
from ov.store.lock import WriteLock
path, name, hold = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])
release = path.with_name("release")
with WriteLock(path, 60):
    with open(path.with_name("order.txt"), "a") as out:
        out.write(name + "\\n")
    deadline = time.monotonic() + 120  # a failed test's holder does not outlive it for long
    while hold < 0 and not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # held until the test says so: the waiters queue however slowly they start
    time.sleep(max(hold, 0))
"""


def tickets_reach(queue: Path, count: int) -> None:
    deadline = time.monotonic() + 30
    while not (queue.exists() and len(list(queue.iterdir())) >= count):
        assert time.monotonic() < deadline, "the waiters never queued"
        time.sleep(0.01)


def test_waiters_get_the_lock_in_the_order_they_arrived(tmp_path: Path):
    lock = tmp_path / "state/write.lock"
    lock.parent.mkdir(parents=True)
    queue = tmp_path / "state/write.queue"
    # The first holds the lock until all five wait: a fixed hold of 3 s ran out on a loaded machine
    # before the fifth had started, and the queue then never held five.
    procs = [subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), "first", "-1"])]
    tickets_reach(queue, 1)
    for n, name in enumerate(("w1", "w2", "w3", "w4", "w5"), start=2):
        procs.append(subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), name, "0.05"]))
        tickets_reach(queue, n)  # each has taken its ticket before the next one starts
    (tmp_path / "state/release").touch()
    for proc in procs:
        assert proc.wait(timeout=30) == 0
    assert (tmp_path / "state/order.txt").read_text().split() == ["first", "w1", "w2", "w3", "w4", "w5"]
    assert list((tmp_path / "state/write.queue").iterdir()) == []


def test_a_waiter_killed_in_the_queue_does_not_block_the_ones_behind_it(tmp_path: Path):
    lock = tmp_path / "state/write.lock"
    lock.parent.mkdir(parents=True)
    queue = tmp_path / "state/write.queue"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), "first", "-1"])
    tickets_reach(queue, 1)
    doomed = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), "doomed", "0"])
    tickets_reach(queue, 2)
    behind = subprocess.Popen([sys.executable, "-c", _HOLDER, str(lock), "behind", "0"])
    tickets_reach(queue, 3)
    doomed.kill()  # its ticket stays behind, unlocked
    (tmp_path / "state/release").touch()
    assert holder.wait(timeout=30) == 0 and behind.wait(timeout=30) == 0
    assert (tmp_path / "state/order.txt").read_text().split() == ["first", "behind"]


# --- a full disk ------------------------------------------------------------------------------


def test_a_request_a_full_disk_cuts_short_leaves_no_ticket_in_the_queue(tmp_path: Path, monkeypatch):
    """The hidden ticket stayed locked and in the queue until the process exited (and a later
    holder swept it), with half a request beside it."""
    import errno

    from ov.store import lock as lock_module

    def full(path, data):
        Path(path).write_bytes(data[:3])
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(lock_module, "write_new", full)
    lock = lock_module.WriteLock(tmp_path / "state/write.lock", timeout=1)
    with pytest.raises(OSError) as refused:
        lock.acquire(request=b'{"op": "write"}')
    assert refused.value.errno == errno.ENOSPC
    assert list((tmp_path / "state/write.queue").iterdir()) == []
    monkeypatch.undo()
    with lock_module.WriteLock(tmp_path / "state/write.lock", timeout=1):
        pass  # the lock is free


def test_a_queue_this_user_may_not_write_to_is_said_so(tmp_path: Path, monkeypatch):
    import errno

    from filelock import FileLock

    from ov.errors import StoreNotWritable
    from ov.store.lock import WriteLock

    def refused(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", self.lock_file)

    monkeypatch.setattr(FileLock, "acquire", refused)
    with pytest.raises(StoreNotWritable) as info:
        WriteLock(tmp_path / "state/write.lock", timeout=1).acquire()
    assert info.value.message == f"ov cannot write to {tmp_path / 'state/write.queue'}: Permission denied"


@pytest.mark.parametrize("leave", [0, 4096, 16384])
def test_a_write_refused_by_a_full_disk_can_be_retried_once_there_is_room(small_disk, ov_process, leave):
    from tests.conftest import fill_disk

    env = {"OV_HOME": str(small_disk / "home")}
    assert ov_process("write", "viking://resources/a.md", "--content", "before", env=env).exit_code == 0
    ballast = fill_disk(small_disk, leave)
    full = ov_process("write", "viking://resources/x.md", "--content", "hello disk full", env=env)
    assert full.exit_code in (0, 1)  # with a little room left the write may still fit
    assert "Traceback" not in full.stderr and "Exception ignored" not in full.stderr and "internal error" not in full.stderr
    ballast.unlink()
    again = ov_process("write", "viking://resources/x.md", "--content", "hello disk full", env=env)
    assert again.exit_code == 0, again.stderr
    home = small_disk / "home/accounts/default/.git"
    assert not [p for p in home.rglob("*.lock")]
    assert ov_process("status", env=env).exit_code == 0


@needs_git
def test_a_writer_with_others_queued_leaves_the_index_to_the_last_of_them(ov, ov_home, monkeypatch):
    from ov.store.lock import WriteLock

    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    monkeypatch.setattr(WriteLock, "others_waiting", lambda self: True)
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    assert ov("rm", "viking://resources/a.md").exit_code == 0
    pending = state(ov_home) / "index.pending"
    assert sorted(pending.read_text().split()) == ["resources/a.md", "resources/b.md"]
    assert git(ov_home, "status", "--porcelain").stdout != ""  # not yet: the queue is still busy
    monkeypatch.setattr(WriteLock, "others_waiting", lambda self: False)
    assert ov("write", "viking://resources/c.md", "--content", "c").exit_code == 0  # the last writer
    assert git(ov_home, "status", "--porcelain").stdout == ""
    assert not pending.exists()


def test_a_pack_another_writer_is_still_writing_is_left_alone(ov, ov_home):
    """A large add stores its objects before it takes the lock; a sweep meanwhile must not take
    its half-written pack for a killed writer's."""
    import threading

    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    live = account(ov_home) / ".git/objects/pack/tmp_live.pack"
    live.parent.mkdir(parents=True, exist_ok=True)
    live.write_bytes(b"PACK")
    done = threading.Event()

    def keep_writing() -> None:
        while not done.is_set():
            with open(live, "ab") as out:
                out.write(b"x")
            time.sleep(0.1)

    writer = threading.Thread(target=keep_writing)
    writer.start()
    try:
        assert ov("status").exit_code == 0  # a sweep of the object directories
    finally:
        done.set()
        writer.join()
    assert live.exists()
    old(live)
    assert ov("status").exit_code == 0 and not live.exists()  # once nobody writes it, it goes


def test_noted_index_paths_are_kept_while_a_git_command_holds_the_index(ov, ov_home, monkeypatch):
    from ov.store.lock import WriteLock

    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    monkeypatch.setattr(WriteLock, "others_waiting", lambda self: True)
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    monkeypatch.setattr(WriteLock, "others_waiting", lambda self: False)
    import threading

    git_lock = account(ov_home) / ".git/index.lock"
    done = threading.Event()

    def git_at_work() -> None:  # keeps its lock fresh: recovery leaves it, the update is skipped
        while not done.is_set():
            git_lock.touch()
            time.sleep(0.1)

    worker = threading.Thread(target=git_at_work)
    worker.start()
    try:
        assert ov("write", "viking://resources/c.md", "--content", "c").exit_code == 0
    finally:
        done.set()
        worker.join()
    assert "resources/b.md" in (state(ov_home) / "index.pending").read_text()
    git_lock.unlink()
    assert ov("write", "viking://resources/d.md", "--content", "d").exit_code == 0
    assert not (state(ov_home) / "index.pending").exists()


# --- a store that pulled a hostile tree before pulls were checked ----------------------------


@pytest.fixture
def pulled_before(ov, ov_home, tmp_path):
    """HEAD holds ``../../../victim/authorized_keys`` and ``.git/config``, as an older ov's pull
    left it (the files themselves are not written here: what matters is what ov does next)."""
    from tests.hostile_trees import FILE, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    victim = ov_home.parent / "victim" / "authorized_keys"  # where ../../../ leads from the account
    victim.parent.mkdir()
    victim.write_bytes(b"original\n")
    bad = add_commit(
        account(ov_home),
        {(b"..", b"..", b"..", b"victim", b"authorized_keys"): (FILE, b"attacker\n"), (b".git", b"config"): (FILE, b"[core]\n\tfsmonitor = x\n")},
    )
    return victim, bad.decode()


def test_fsck_flags_a_path_ov_never_writes_in_head_then_in_the_history_once_dropped(ov, ov_home, pulled_before):
    victim, bad = pulled_before
    result = ov("fsck", "--json")
    assert result.exit_code == 1
    problems = [f for f in result.json["result"]["findings"] if f["severity"] == "problem"]
    assert len(problems) == 1 and "HEAD holds" in problems[0]["message"] and "ov snapshot commit" in problems[0]["fix"]
    # every such path is named, not the first only (an upgrade audit)
    assert problems[0]["message"].startswith("HEAD holds '..'") and "and 1 other such path: '.git')" in problems[0]["message"]
    # `ov status` names them for what they are, and a snapshot commit drops them from HEAD only.
    status = ov("status", "--json").json["result"]
    assert {u["path"] for u in status["unsafe"]} == {"../../../victim/authorized_keys", ".git/config"}
    human = ov("status").stdout
    assert "unsafe    ../../../victim/authorized_keys" in human and "deleted" not in human
    # No hand made them: the status does not open with hand edits, but with what they are.
    assert "hand edits" not in human.replace("no hand edits;", ""), human
    assert "\nno hand edits; HEAD holds paths ov never writes (taken in by a pull before pulls were checked, or committed with plain git):\n  unsafe " in human, human
    (account(ov_home) / "resources" / "b.md").write_text("by hand\n")
    mixed = ov("status").stdout
    assert "hand edits not yet committed" in mixed and "  added     viking://resources/b.md" in mixed and "unsafe    .git/config" in mixed, mixed
    (account(ov_home) / "resources" / "b.md").unlink()
    config = (account(ov_home) / ".git/config").read_bytes()
    assert ov("snapshot", "commit", "-m", "drop what the old pull took in").exit_code == 0
    assert victim.read_bytes() == b"original\n" and (account(ov_home) / ".git/config").read_bytes() == config
    assert ov("status", "--json").json["result"]["clean"]
    after = ov("fsck", "--json")
    assert after.exit_code == 0
    notes = [f["message"] for f in after.json["result"]["findings"]]
    assert any(m.startswith(f"commit {bad[:10]} of the history holds") for m in notes)


def test_a_symbolic_link_committed_with_git_is_unsafe_and_a_snapshot_commit_keeps_it_on_disk(ov, ov_home):
    """(found by an audit: `ov status` called it "deleted" and "ignored", though it is on disk, and
    `ov snapshot commit` removed the link from the work tree; sharing.md says "unsafe", and that
    the commit drops it from HEAD only)"""
    from tests.hostile_trees import LINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    link = account(ov_home) / "resources" / "link.md"
    link.symlink_to("a.md")  # what `git add` of a link commits, and the link in the work tree
    add_commit(account(ov_home), {(b"resources", b"link.md"): (LINK, b"a.md")}, message=b"symlink by git\n")
    status = ov("status", "--json").json["result"]
    assert status["unsafe"] == [{"path": "resources/link.md", "problem": "a symbolic link (ov stores regular files only, and never follows a link from a tree)"}]
    human = ov("status").stdout
    assert "  unsafe    resources/link.md" in human and "deleted" not in human and "ignored" not in human, human
    assert ov("snapshot", "commit", "-m", "drop the link").exit_code == 0
    assert link.is_symlink() and os.readlink(link) == "a.md" and (account(ov_home) / "resources" / "a.md").read_text() == "alpha\n"
    after = ov("status", "--json").json["result"]
    assert after["clean"] and after["unsafe"] == [] and "resources/link.md" in after["ignored"]
    assert ov("read", "viking://resources/a.md").stdout == "alpha\n"


@pytest.mark.parametrize("kind", ["link", "submodule"])
@pytest.mark.parametrize("failure", ["rolled back", "recovered"])
def test_a_rolled_back_commit_leaves_a_link_or_a_submodule_of_head_as_it_was(ov, ov_home, monkeypatch, kind, failure):
    """(an audit: the rollback of a failed commit wrote a symbolic link of HEAD back as a regular
    file holding its target, and a submodule's folder could not be rolled back at all.) A failed
    `ov snapshot commit` (which drops such an entry from HEAD) leaves the work tree as it was,
    whether the command rolls itself back or the next one finishes the rollback from its journal."""
    from dulwich.repo import Repo

    from ov.store.gitstore import GitStore
    from tests.hostile_trees import GITLINK, LINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    root = account(ov_home)
    place = root / "resources" / "thing"
    if kind == "link":
        place.symlink_to("a.md")
        entry = (LINK, b"a.md")
    else:
        Repo.init(str(place), mkdir=True)  # the submodule's own repository, its files in it
        (place / "inner.md").write_text("the other repository's file\n")
        entry = (GITLINK, Repo(str(root)).head())
    add_commit(root, {(b"resources", b"thing"): entry}, message=b"added by git\n")
    head = (root / ".git/refs/heads/main").read_text()

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if failure == "rolled back":
        monkeypatch.setattr(GitStore, "_store_objects", staticmethod(full_disk))
        assert ov("snapshot", "commit", "-m", "drop it").exit_code == 1
    else:  # killed mid-commit: its journal names the path, and the next command rolls it back
        from ov.store.gitstore import JOURNAL_NAME

        journal = {"version": 1, "old": head.strip(), "new": "0" * 40, "paths": ["resources/thing"], "started": time.time()}
        (ov_home / "state/default" / JOURNAL_NAME).write_text(json.dumps(journal))
        assert ov("status", "--json").json["result"]["recovered"].startswith("rolled back")
    assert (root / ".git/refs/heads/main").read_text() == head
    if kind == "link":
        assert place.is_symlink() and os.readlink(place) == "a.md"
    else:
        assert place.is_dir() and (place / "inner.md").read_text() == "the other repository's file\n"
    assert (root / "resources/a.md").read_text() == "alpha\n"
    monkeypatch.undo()
    assert ov("snapshot", "commit", "-m", "drop it").exit_code == 0


@needs_git
@pytest.mark.parametrize("kind", ["clone", "submodule"])
def test_a_git_repository_inside_the_store_is_named_as_one_and_never_walked_into(ov, ov_home, kind):
    """(an audit: `ov status` listed a submodule's files, and its .git's, as files added by hand, and
    a snapshot commit would record them as the account's.) A folder holding a repository of its
    own is named for what it is: a submodule HEAD holds is unsafe; a clone is ignored, as a folder."""
    from dulwich.repo import Repo

    from tests.hostile_trees import GITLINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    root = account(ov_home)
    place = root / "resources" / "vendor" / "lib"
    if kind == "clone":
        place.mkdir(parents=True)
        Repo.init(str(place))
    else:
        add_commit(root, {(b"resources", b"vendor", b"lib"): (GITLINK, Repo(str(root)).head())}, message=b"a submodule by git\n")
        place.mkdir(parents=True)
        (place / ".git").write_text("gitdir: ../../../.git/modules/lib\n")  # what a submodule's checkout holds
    (place / "README.md").write_text("another repository's file\n")
    (place / "src").mkdir()
    (place / "src" / "main.py").write_text("print('hi')\n")
    status = ov("status", "--json").json["result"]
    assert status["added"] == [] and not [p for p in status["ignored"] if p.startswith("resources/")], status
    if kind == "clone":
        assert status["clean"] and status["repositories"] == ["resources/vendor/lib/"]
        assert "  ignored   resources/vendor/lib/ (a git repository of its own" in ov("status").stdout
    else:
        assert status["repositories"] == [] and [u["path"] for u in status["unsafe"]] == ["resources/vendor/lib"]
    assert ov("snapshot", "commit", "-m", "hand edits").exit_code in (0, 1)
    committed = subprocess.run(["git", "-C", str(root), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True, text=True, check=True).stdout
    assert "resources/vendor/lib/README.md" not in committed and "resources/vendor/lib/src/main.py" not in committed
    assert (place / "README.md").read_text() == "another repository's file\n"
    # Nor do a listing, a tree, a grep or a removal walk into it (they listed and searched its files,
    # and `rm -r` refused it for its .git/HEAD "created outside ov").
    assert ov("ls", "-r", "viking://resources/vendor").stdout.split() == ["viking://resources/vendor/lib/"]
    assert "README.md" not in ov("tree", "viking://resources/vendor").stdout
    assert ov("grep", "another repository", "-u", "viking://resources").exit_code == 1
    removed = ov("rm", "-r", "viking://resources/vendor")
    assert removed.exit_code != 0 and "viking://resources/vendor/lib holds a git repository of its own" in removed.stderr
    assert (place / "src" / "main.py").is_file()


def test_fsck_walks_heads_tree_once(ov, ov_home, monkeypatch):
    from dulwich.repo import Repo

    from ov.store import treepaths

    for name in ("a", "b"):
        assert ov("write", f"viking://resources/{name}.md", "--content", f"{name}\n").exit_code == 0
    walked = []
    real = treepaths.unsafe_paths
    monkeypatch.setattr(treepaths, "unsafe_paths", lambda store, tree_id, *a, **k: walked.append(tree_id) or real(store, tree_id, *a, **k))
    assert ov("fsck", "--json").exit_code == 0
    with Repo(str(account(ov_home))) as repo:
        head_tree = repo[repo.head()].tree
    assert walked.count(head_tree) == 1


@pytest.mark.parametrize("on_disk", [False, True])
def test_a_name_that_is_not_utf8_in_head_is_reported_left_out_and_dropped_not_a_crash(ov, ov_home, on_disk):
    """(a review: `ov status`, `fsck`, `reindex` and `snapshot commit` failed with an internal
    UnicodeDecodeError.) fsck reports it, status lists it as unsafe, reindex leaves it out with a
    note, and a snapshot commit drops it from HEAD; each names it with its bytes escaped."""
    from tests.hostile_trees import FILE, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    bad = add_commit(account(ov_home), {(b"resources", b"bad\xff.md"): (FILE, b"hello zebra\n")}).decode()
    if on_disk:  # as plain git checks it out
        with open(os.fsencode(account(ov_home) / "resources") + b"/bad\xff.md", "wb") as f:
            f.write(b"hello zebra\n")
    checked = ov("fsck", "--json")
    assert checked.exit_code == 1, checked.stderr
    problems = [f["message"] for f in checked.json["result"]["findings"] if f["severity"] == "problem"]
    assert problems == ["HEAD holds 'resources/bad\\xff.md', which ov never writes: a name that is not UTF-8 text (a pull took it in before ov refused such trees, or an older ov wrote it)"]
    status = ov("status", "--json")
    assert status.exit_code == 0 and status.json["result"]["unsafe"] == [{"path": "resources/bad\\xff.md", "problem": "a name that is not UTF-8 text"}]
    assert "  unsafe    resources/bad\\xff.md (HEAD holds it" in ov("status").stdout
    reindexed = ov("reindex", "--json")
    assert reindexed.exit_code == 0 and reindexed.json["result"]["left_out"] == ["resources/bad\\xff.md"]
    assert reindexed.json["result"]["records"] == 1
    assert "note: left out resources/bad\\xff.md: a name that is not UTF-8 text" in ov("reindex").stderr
    assert ov("search", "zebra", "--json").exit_code == 0
    committed = ov("snapshot", "commit", "-m", "drop it", "--json")
    assert committed.exit_code == 0, committed.stderr
    assert ov("status", "--json").json["result"]["clean"]
    after = ov("fsck", "--json")
    assert after.exit_code == 0, after.stdout
    assert any(f["message"].startswith(f"commit {bad[:10]} of the history holds 'resources/bad\\xff.md', ") for f in after.json["result"]["findings"])
    log = ov("snapshot", "log", "-n", "1", "--json").json["result"][0]
    assert log["uris"] == ["viking://resources/bad\\xff.md"]


def test_fsck_suggests_a_rename_that_works_for_a_name_of_spaces_only(ov, ov_home):
    """(a review: for ``resources/ /x.md`` it suggested ``ov mv 'viking://resources/ ' viking://resources/``, exit 2.)"""
    import shlex

    from tests.hostile_trees import FILE, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    add_commit(account(ov_home), {(b"resources", b" ", b"x.md"): (FILE, b"x\n")})
    (account(ov_home) / "resources/ ").mkdir()
    (account(ov_home) / "resources/ /x.md").write_text("x\n")  # as the older ov wrote it
    assert ov("status", "--json").json["result"]["clean"]
    fixes = [f["fix"] for f in ov("fsck", "--json").json["result"]["findings"] if "no longer makes" in f["message"]]
    assert len(fixes) == 1 and "`ov mv 'viking://resources/ ' viking://resources/unnamed`" in fixes[0], fixes
    command = fixes[0].split("e.g. `", 1)[1].split("`", 1)[0]
    assert ov(*shlex.split(command)[1:]).exit_code == 0
    assert ov("read", "viking://resources/unnamed/x.md").stdout == "x\n"
    assert not any("no longer makes" in f["message"] for f in ov("fsck", "--json").json["result"]["findings"])


def test_a_link_or_a_submodule_in_head_has_no_records_in_reindex_catch_up_or_fsck(ov, ov_home):
    """(a review: reindex and a search's catch-up indexed a symbolic link's target and a
    submodule's commit id as if they were a file's text, and fsck's index check expected them.)"""
    from tests.hostile_trees import GITLINK, LINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "plain notes\n").exit_code == 0
    assert ov("search", "notes", "--json").exit_code == 0  # the index is built at this commit
    from dulwich.repo import Repo

    with Repo(str(account(ov_home))) as repo:
        head = repo.head().decode()
    add_commit(account(ov_home), {(b"resources", b"link.md"): (LINK, b"zebra/target.md"), (b"resources", b"sub.md"): (GITLINK, head.encode())})
    def found(query: str) -> list[str]:
        result = ov("search", query, "--json")
        assert result.exit_code == 0, result.stderr
        return [hit["uri"] for kind in ("memories", "resources", "skills", "sessions") for hit in result.json["result"][kind]]

    assert set(found("zebra")) | set(found(head[:12])) <= {"viking://resources/a.md"}  # caught up; a.md by its vector only
    index = [f for f in ov("fsck", "--json").json["result"]["findings"] if f["area"] == "index"]
    assert index == [], index
    reindexed = ov("reindex", "--json")
    assert reindexed.exit_code == 0 and reindexed.json["result"]["left_out"] == ["resources/link.md", "resources/sub.md"]
    assert reindexed.json["result"]["records"] == 1
    assert set(found("zebra")) <= {"viking://resources/a.md"}
    assert [f for f in ov("fsck", "--json").json["result"]["findings"] if f["area"] == "index"] == []
    assert "note: left out resources/link.md: a symbolic link (ov stores regular files only" in ov("reindex").stderr


def test_fsck_walks_a_tag_that_heads_history_does_not_reach(ov, ov_home):
    """(a review: a tag adopted before pulls checked tags could point at a tree holding a link,
    and fsck walked HEAD's history only.)"""
    from dulwich.repo import Repo

    from tests.hostile_trees import LINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    assert ov("snapshot", "tag", "safe").exit_code == 0
    with Repo(str(account(ov_home))) as repo:
        head = repo.head()
    bad = add_commit(account(ov_home), {(b"resources", b"link"): (LINK, b"/etc/passwd")})
    with Repo(str(account(ov_home))) as repo:
        repo.refs[b"refs/tags/v1"] = bad
        repo.refs[b"refs/heads/main"] = head  # HEAD's history no longer reaches it
    checked = ov("fsck", "--json")
    assert checked.exit_code == 0, checked.stdout
    notes = [f for f in checked.json["result"]["findings"] if "which ov never writes" in f["message"]]
    assert [f["message"].split(" (")[0] for f in notes] == [f"tag 'v1' reaches commit {bad.decode()[:10]}, which holds 'resources/link', which ov never writes: a symbolic link"]
    assert notes[0]["severity"] == "note" and "git tag -d v1" in notes[0]["fix"]


@pytest.mark.parametrize("damage", [b"", b"garbage", b"x\x9c\x03\x00"])
def test_fsck_reports_a_damaged_file_object_rather_than_failing(ov, ov_home, damage):
    """(a review: a loose object cut short by a power cut or a bad disk ended fsck, and every
    write of the same content, with an internal error: dulwich's `in` parsed the object.)"""
    from dulwich.repo import Repo

    for name in ("a", "b"):
        assert ov("write", f"viking://resources/{name}.md", "--content", f"{name} text\n").exit_code == 0
    with Repo(str(account(ov_home))) as repo:
        blob = repo.object_store[repo[repo.head()].tree].lookup_path(repo.object_store.__getitem__, b"resources/a.md")[1].decode()
    loose = account(ov_home) / ".git/objects" / blob[:2] / blob[2:]
    loose.chmod(0o644)
    loose.write_bytes(damage)
    assert ov("write", "viking://resources/c.md", "--content", "a text\n").exit_code == 0
    checked = ov("fsck", "--json")
    assert checked.exit_code == 1, checked.stderr
    problems = [f["message"] for f in checked.json["result"]["findings"] if f["severity"] == "problem"]
    assert problems == [f"HEAD's resources/{name}.md is damaged in the object store" for name in "ac"], problems


def test_fsck_reports_a_damaged_commit_of_the_history_rather_than_failing(ov, ov_home):
    from dulwich.repo import Repo

    for name in ("a", "b"):
        assert ov("write", f"viking://resources/{name}.md", "--content", f"{name} text\n").exit_code == 0
    with Repo(str(account(ov_home))) as repo:
        first = [entry.commit.id.decode() for entry in repo.get_walker()][-1]
    loose = account(ov_home) / ".git/objects" / first[:2] / first[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"garbage")
    checked = ov("fsck", "--json")
    assert checked.exit_code == 1, checked.stderr
    problems = [f["message"] for f in checked.json["result"]["findings"] if f["severity"] == "problem"]
    assert problems == ["the history is broken: an object of it is damaged (Not a known type 6)"], problems
