"""The store: one commit per mutating command, atomic writes, hand edits, locking and crash recovery."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from dulwich.repo import Repo

from ov.config import Config, StoreConfig
from ov.errors import AlreadyExists, HandEditConflict, InvalidInput, IsADirectory, NotADirectory, NotFound, StoreCorrupt, StoreLocked
from ov.home import Home
from ov.identity import Identity
from ov.store.gitstore import GitStore
from ov.store.lock import WriteLock
from ov.store.store import Store, Transaction

HAS_GIT = shutil.which("git") is not None


@pytest.fixture
def store(ov_home: Path) -> Store:
    return Store(Home(ov_home), Identity(), Config())


def commits(store: Store) -> list:
    repo = Repo(str(store.root))
    return [w.commit for w in repo.get_walker()]


def changed_paths(store: Store, commit) -> set[str]:
    repo = Repo(str(store.root))
    parent_tree = repo[commit.parents[0]].tree if commit.parents else None
    return {
        (new_path or old_path).decode()
        for (old_path, new_path), _modes, _shas in repo.object_store.tree_changes(parent_tree, commit.tree)
    }


def test_each_mutation_is_exactly_one_commit_naming_command_and_uris(store: Store):
    u = store.uri
    store.write(u("viking://resources/a.md"), b"one\n")
    store.write(u("viking://resources/a.md"), b"two\n", "append")
    store.edit(u("viking://resources/a.md"), "two", "2")
    store.mkdir(u("viking://resources/dir"), "a folder")
    store.mv(u("viking://resources/a.md"), u("viking://resources/dir/a.md"))
    store.rm(u("viking://resources/dir"), recursive=True)
    history = commits(store)
    subjects = [c.message.decode().splitlines()[0] for c in history]
    assert subjects == [
        "ov rm viking://resources/dir",
        "ov mv viking://resources/a.md viking://resources/dir/a.md",
        "ov mkdir viking://resources/dir",
        "ov edit viking://resources/a.md",
        "ov write viking://resources/a.md",
        "ov write viking://resources/a.md",
        "ov init: account default",
    ]
    assert all(c.author == b"default <default@default.ov>" for c in history)
    assert "Ov-Command: mv\nOv-Uri: viking://resources/a.md\nOv-Uri: viking://resources/dir/a.md" in history[1].message.decode()


def test_the_commit_message_names_the_adapter_on_one_clean_line(ov_home: Path):
    from ov.store.store import MAX_VIA, commit_message

    assert commit_message("write", ["viking://resources/a.md"], via="mcp claude-code") == (
        "ov write viking://resources/a.md\n\nOv-Command: write\nOv-Via: mcp claude-code\nOv-Uri: viking://resources/a.md\n"
    )
    assert "Ov-Via" not in commit_message("write", ["viking://resources/a.md"])
    # An MCP client names itself: a newline in its name must not forge a trailer, nor a long one fill the message.
    store = Store(Home(ov_home), Identity(), Config(), via="mcp evil\nOv-Uri: viking://resources/x\x00" + "y" * 500)
    assert store.via.startswith("mcp evil Ov-Uri: viking://resources/x y") and len(store.via) == MAX_VIA
    store.write(store.uri("viking://resources/a.md"), b"a\n")
    message = Repo(str(store.root))[Repo(str(store.root)).head()].message.decode()
    assert [line for line in message.splitlines() if line.startswith("Ov-")] == ["Ov-Command: write", f"Ov-Via: {store.via}", "Ov-Uri: viking://resources/a.md"]
    assert store.commits == [Repo(str(store.root)).head().decode()]
    assert Store(Home(ov_home), Identity(), Config(), via=" \t\n").via is None


def test_a_line_break_in_a_commit_subject_becomes_a_space_and_forges_no_trailer():
    from ov.store.store import commit_message

    message = commit_message("snapshot commit", ["viking://resources/a.md"], "fixed it\nOv-Command: forget\r\n\n  by hand\u2028too\n")
    subject, blank, *rest = message.split("\n")
    assert subject == "fixed it Ov-Command: forget by hand too" and blank == ""
    assert [line for line in rest if line] == ["Ov-Command: snapshot commit", "Ov-Uri: viking://resources/a.md"]


def test_author_is_the_user(ov_home: Path):
    bob = Store(Home(ov_home), Identity(user="bob"), Config())
    result = bob.write(bob.uri("viking://~/notes/today.md"), b"hi\n")
    assert result.uris == ("viking://user/bob/notes/today.md",)
    assert (bob.root / "user/bob/notes/today.md").read_bytes() == b"hi\n"
    assert commits(bob)[0].author == b"bob <bob@default.ov>"


def test_unchanged_write_makes_no_commit(store: Store):
    store.write(store.uri("viking://resources/a.md"), b"same\n")
    before = len(commits(store))
    result = store.write(store.uri("viking://resources/a.md"), b"same\n")
    assert not result.changed
    assert len(commits(store)) == before


def test_commit_contains_only_the_changed_paths(store: Store):
    """A write commits its own path and never sweeps up hand edits elsewhere."""
    store.write(store.uri("viking://resources/a.md"), b"a\n")
    (store.root / "resources/a.md").write_text("edited by hand\n")
    (store.root / "resources/stray.md").write_text("created by hand\n")
    store.write(store.uri("viking://resources/b.md"), b"b\n")
    assert changed_paths(store, commits(store)[0]) == {"resources/b.md"}
    changes = store.status().changes
    assert changes.modified == ["resources/a.md"]
    assert changes.added == ["resources/stray.md"]


def test_a_transaction_lists_a_folder_with_its_own_pending_changes(store: Store):
    for name in ("a.md", "b.md"):
        store.write(store.uri(f"viking://resources/notes/{name}"), b"x\n")
    store.write(store.uri("viking://resources/notes/sub/c.md"), b"x\n")
    folder = store.uri("viking://resources/notes")
    with store.transaction() as tx:
        assert tx.file_names(folder) == ["a.md", "b.md"]  # files only, not the folder inside
        tx.put(store.uri("viking://resources/notes/d.md"), b"new\n")
        tx.delete(store.uri("viking://resources/notes/a.md"))
        tx.put(store.uri("viking://resources/notes/sub/e.md"), b"deeper\n")
        assert tx.file_names(folder) == ["b.md", "d.md"]
        assert tx.file_names(store.uri("viking://resources/nowhere")) == []


@pytest.mark.parametrize("hand_edit", ["modify", "delete", "create"])
def test_hand_edits_are_never_overwritten(store: Store, hand_edit: str):
    target = store.root / "resources/a.md"
    if hand_edit != "create":
        store.write(store.uri("viking://resources/a.md"), b"committed\n")
    else:
        store.init()
    if hand_edit == "modify":
        target.write_text("my edit\n")
    elif hand_edit == "delete":
        target.unlink()
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("my new file\n")
    head = commits(store)[0].id
    with pytest.raises(HandEditConflict) as info:
        store.write(store.uri("viking://resources/a.md"), b"from ov\n")
    assert "outside ov" in info.value.message
    assert "ov snapshot commit" in info.value.hint
    assert commits(store)[0].id == head
    if hand_edit == "delete":
        assert not target.exists()
    else:
        assert target.read_text() in ("my edit\n", "my new file\n")


def test_snapshot_commit_records_hand_edits_then_writes_proceed(store: Store):
    store.write(store.uri("viking://resources/a.md"), b"committed\n")
    store.write(store.uri("viking://resources/gone.md"), b"bye\n")
    (store.root / "resources/a.md").write_text("my edit\n")
    (store.root / "resources/gone.md").unlink()
    (store.root / "resources/new.md").write_text("new\n")
    result = store.snapshot_commit("tidy up by hand")
    assert result.changed
    latest = commits(store)[0]
    assert latest.message.decode().startswith("tidy up by hand\n")
    assert changed_paths(store, latest) == {"resources/a.md", "resources/gone.md", "resources/new.md"}
    assert store.status().changes.clean
    assert not store.snapshot_commit("again").changed
    store.write(store.uri("viking://resources/a.md"), b"from ov\n")
    assert (store.root / "resources/a.md").read_text() == "from ov\n"


def test_remove_recursive_refuses_hand_edited_files_inside(store: Store):
    store.write(store.uri("viking://resources/d/a.md"), b"a\n")
    (store.root / "resources/d/extra.md").write_text("hand made\n")
    with pytest.raises(HandEditConflict):
        store.rm(store.uri("viking://resources/d"), recursive=True)
    assert (store.root / "resources/d/extra.md").exists()


def test_a_large_move_and_removal_say_how_far_along_they_are(store: Store):
    """(found by a review: `ov mv` and `ov rm -r` of a big folder ran for seconds without a bar,
    their time in checking, staging and committing its files.) Each stage ends with every step
    of it done; a move of more files than STAGE_THRESHOLD stages them before the lock."""
    n = 100
    with store.transaction() as tx:
        for i in range(n):
            tx.put(store.uri(f"viking://resources/big/p{i // 40}/n{i}.md"), f"note {i}\n".encode())
        tx.commit("add", [store.uri("viking://resources/big")])
    told: dict[str, list] = {}

    def progress(stage: str, done: int, total: int | None) -> None:
        told.setdefault(stage, []).append((done, total))

    store.mv(store.uri("viking://resources/big"), store.uri("viking://resources/moved"), progress=progress)
    assert list(told) == ["checking files", "staging files", "committing"]
    assert told["checking files"] == [(done, n) for done in range(n + 1)]
    assert told["staging files"][-1] == (n, n) and told["committing"][0] == (0, 2 * n) and told["committing"][-1] == (2 * n, 2 * n)
    told.clear()
    store.rm(store.uri("viking://resources/moved"), recursive=True, progress=progress)
    assert list(told) == ["checking files", "committing"]
    assert told["checking files"][-1] == (n, n) and told["committing"][-1] == (n, n)
    assert not (store.root / "resources/moved").exists()


def test_moving_a_directory_retargets_its_sidecars(store: Store):
    store.mkdir(store.uri("viking://resources/old"), "kept")
    store.write(store.uri("viking://resources/old/sub/x.md"), b"x\n")
    store.mkdir(store.uri("viking://resources/old/sub2"), "nested")
    store.mv(store.uri("viking://resources/old"), store.uri("viking://resources/new"))
    assert not (store.root / "resources/old").exists()
    assert "directory: viking://resources/new/\n" in (store.root / "resources/new/.abstract.md").read_text()
    assert "directory: viking://resources/new/sub2/\n" in (store.root / "resources/new/sub2/.abstract.md").read_text()
    assert store.abstract(store.uri("viking://resources/new")) == "kept"
    assert (store.root / "resources/new/sub/x.md").read_text() == "x\n"


def test_moving_a_directory_never_carries_a_sessions_records_in_or_out(store: Store):
    store.write(store.uri("viking://resources/y/messages.jsonl"), b'{"role": "user", "text": "hi"}\n')
    store.write(store.uri("viking://resources/y/notes.md"), b"x\n")
    head = commits(store)[0].id
    with pytest.raises(InvalidInput, match="would create viking://user/default/sessions/y/messages.jsonl, ov's own record"):
        store.mv(store.uri("viking://resources/y"), store.uri("viking://~/sessions/y"))
    assert commits(store)[0].id == head and (store.root / "resources/y/messages.jsonl").exists()
    assert not (store.root / "user").exists()


def test_reading_the_root_or_a_scope_nobody_wrote_to_finds_a_directory(store: Store):
    # (found by an audit: Store.read opened the scope's missing folder, FileNotFoundError)
    store.init()
    for text in ("viking://", "viking://agent", "viking://user", "viking://resources"):
        uri = store.uri(text)
        with pytest.raises(IsADirectory, match=f"^{re.escape(text)} is a directory$"):
            store.read(uri)
        assert store.stat(uri)["type"] == "directory"
    store.write(store.uri("viking://resources/f.md"), b"x\n")
    with pytest.raises(NotADirectory):
        store.tree(store.uri("viking://resources/f.md"))  # a file is still no directory


def test_failed_ref_update_rolls_the_work_tree_back(store: Store, monkeypatch: pytest.MonkeyPatch):
    store.write(store.uri("viking://resources/a.md"), b"old\n")
    head = commits(store)[0].id
    with monkeypatch.context() as patch, pytest.raises(StoreCorrupt):
        patch.setattr(type(store.git.repo.refs), "set_if_equals", lambda *a, **k: False)
        store.write(store.uri("viking://resources/a.md"), b"new\n")
    assert (store.root / "resources/a.md").read_bytes() == b"old\n"
    assert not (store.state / "journal.json").exists()
    assert commits(store)[0].id == head


def _disk_full(*_args, **_kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("files, ahead", [(1, False), (80, False), (80, True)])
def test_a_commit_whose_objects_cannot_be_written_is_rolled_back_by_the_same_command(store: Store, monkeypatch: pytest.MonkeyPatch, files, ahead):
    """A full disk (or a read-only objects folder) while the objects are written: the command
    failed but left its journal, and the next one said "recovered: rolled back an interrupted
    command". Loose objects (one file), a pack (80), and files written to the work tree ahead."""
    from ov.store import gitstore

    store.write(store.uri("viking://resources/a.md"), b"old\n")
    head = commits(store)[0].id
    with monkeypatch.context() as patch, pytest.raises(OSError):
        patch.setattr(gitstore, "atomic_write_all", _disk_full)  # loose objects
        patch.setattr(type(store.git.repo.object_store), "add_objects", _disk_full)  # a pack
        with store.transaction() as tx:
            tx.put(store.uri("viking://resources/a.md"), b"new\n")
            for i in range(files - 1):
                tx.put(store.uri(f"viking://resources/many/n{i}.md"), f"note {i}\n".encode())
            if ahead:
                tx.write_ahead()
            tx.commit("write", [store.uri("viking://resources/a.md")])
    assert not (store.state / "journal.json").exists()
    assert commits(store)[0].id == head
    assert (store.root / "resources/a.md").read_bytes() == b"old\n"
    assert not (store.root / "resources/many").exists()
    fresh = Store(store.home, Identity(), Config())
    report = fresh.status()
    assert report.recovered is None and report.changes.clean


def test_lock_wait_is_bounded(ov_home: Path):
    store = Store(Home(ov_home), Identity(), Config(store=StoreConfig(lock_timeout=0.2)))
    store.init()
    head = commits(store)[0].id
    # Held by another thread: the lock is re-entrant within the thread that holds it.
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with WriteLock(store.state / "write.lock", timeout=1):
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        with pytest.raises(StoreLocked) as info:
            store.write(store.uri("viking://resources/a.md"), b"x\n")
    finally:
        done.set()
        holder.join(30)
    assert "store.lock_timeout" in info.value.hint
    assert not list((store.state / "write.queue").glob("*.op"))  # the request was taken back
    assert commits(store)[0].id == head
    assert not (store.root / "resources/a.md").exists()


CRASH_SCRIPT = """
import os, sys
from pathlib import Path
from ov.config import Config
from ov.store.gitstore import GitStore
from ov.home import Home
from ov.identity import Identity
from ov.store.store import Store

stage = sys.argv[2]
original_apply = GitStore._apply_worktree
original_set = None

def apply_then_die(self, changes, *rest, **named):
    original_apply(self, changes, *rest, **named)
    if stage == "after-files":
        os._exit(9)

GitStore._apply_worktree = apply_then_die
store = Store(Home(Path(sys.argv[1])), Identity(), Config())
if stage == "after-ref":
    refs_cls = type(store.git.repo.refs)
    real = refs_cls.set_if_equals
    def set_then_die(self, *a, **k):
        real(self, *a, **k)
        os._exit(9)
    refs_cls.set_if_equals = set_then_die
store.write(store.uri("viking://resources/a.md"), b"new content\\n")
"""


@pytest.mark.parametrize("stage, expected, outcome", [
    ("after-files", b"old content\n", "rolled back"),
    ("after-ref", b"new content\n", "completed"),
])
def test_kill_during_commit_is_recovered(ov_home: Path, store: Store, tmp_path: Path, stage, expected, outcome):
    store.write(store.uri("viking://resources/a.md"), b"old content\n")
    store.write(store.uri("viking://resources/keep.md"), b"keep\n")
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(CRASH_SCRIPT))
    proc = subprocess.run([sys.executable, str(script), str(ov_home), stage], capture_output=True)
    assert proc.returncode == 9, proc.stderr.decode()
    assert (store.state / "journal.json").exists()
    fresh = Store(Home(ov_home), Identity(), Config())
    report = fresh.status()
    assert report.recovered and report.recovered.startswith(outcome)
    assert report.changes.clean
    assert (fresh.root / "resources/a.md").read_bytes() == expected
    assert (fresh.root / "resources/keep.md").read_bytes() == b"keep\n"
    assert not (fresh.state / "journal.json").exists()
    fresh.write(fresh.uri("viking://resources/after.md"), b"store still works\n")
    if HAS_GIT:
        subprocess.run(["git", "-C", str(fresh.root), "fsck", "--strict"], check=True, capture_output=True)


def test_a_write_recovers_an_interrupted_commit_first(ov_home: Path, store: Store, tmp_path: Path):
    store.write(store.uri("viking://resources/a.md"), b"old content\n")
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(CRASH_SCRIPT))
    subprocess.run([sys.executable, str(script), str(ov_home), "after-files"], capture_output=True)
    again = Store(Home(ov_home), Identity(), Config())
    again.write(again.uri("viking://resources/b.md"), b"b\n")
    assert (again.root / "resources/a.md").read_bytes() == b"old content\n"
    assert again.status().changes.clean


READER_SCRIPT = """
import sys
from pathlib import Path
path, stop = Path(sys.argv[1]), Path(sys.argv[2])
reads = torn = 0
while not stop.exists():
    data = path.read_bytes()
    reads += 1
    if data.count(data[:1]) != len(data) or len(data) != 300_000:
        torn += 1
print(torn, reads)
"""


def test_readers_never_see_a_torn_file(store: Store, tmp_path: Path):
    uri = store.uri("viking://resources/big.md")
    store.write(uri, b"a" * 300_000)
    script = tmp_path / "reader.py"
    script.write_text(READER_SCRIPT)
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, str(script), str(store.root / "resources/big.md"), str(stop)], stdout=subprocess.PIPE)
    for i in range(40):
        store.write(uri, (b"b" if i % 2 == 0 else b"a") * 300_000)
    stop.touch()
    out, _ = reader.communicate(timeout=60)
    torn, reads = map(int, out.split())
    assert reads > 0
    assert torn == 0


@pytest.mark.skipif(not HAS_GIT, reason="git is not installed")
def test_real_git_reads_what_ov_wrote(store: Store):
    store.write(store.uri("viking://resources/docs/a.md"), b"hello\n")
    store.mkdir(store.uri("viking://resources/docs/sub"), "sub folder")
    store.mv(store.uri("viking://resources/docs/a.md"), store.uri("viking://resources/docs/b.md"))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(store.root), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(store.root), "fsck", "--strict"], check=True, capture_output=True, env=env)
    log = subprocess.run(["git", "-C", str(store.root), "log", "--format=%an|%s"], check=True, capture_output=True, text=True, env=env)
    assert log.stdout.splitlines()[0] == "default|ov mv viking://resources/docs/a.md viking://resources/docs/b.md"
    store.status()  # refreshes the index so that plain `git status` agrees
    status = subprocess.run(["git", "-C", str(store.root), "status", "--porcelain"], check=True, capture_output=True, text=True, env=env)
    assert status.stdout == ""
    (store.root / "resources/docs/b.md").write_text("hand edit\n")
    store.status()
    status = subprocess.run(["git", "-C", str(store.root), "status", "--porcelain"], check=True, capture_output=True, text=True, env=env)
    assert status.stdout == " M resources/docs/b.md\n"


def test_git_store_commit_cost_reads_only_the_changed_paths(store: Store, monkeypatch: pytest.MonkeyPatch):
    """Building a commit must not enumerate the tree: count the tree objects it loads."""
    with store.transaction() as tx:
        for i in range(300):
            tx.put(store.uri(f"viking://resources/d{i % 30}/f{i}.md"), f"{i}\n".encode())
        tx.commit("seed", [store.uri("viking://resources")])
    git: GitStore = store.git
    object_store = git.repo.object_store
    loaded: list[bytes] = []
    original = type(object_store).__getitem__

    def counting(self, sha):
        obj = original(self, sha)
        loaded.append(obj.type_name)
        return obj

    monkeypatch.setattr(type(object_store), "__getitem__", counting)
    store.write(store.uri("viking://resources/d7/new.md"), b"new\n")
    trees = loaded.count(b"tree")
    assert 0 < trees <= 12, f"a one-file commit loaded {trees} trees"


def test_a_lock_wait_keeps_the_callers_own_timer(tmp_path: Path):
    """A hook's deadline is a SIGALRM timer, and so is a lock wait's: the wait must not cancel
    the deadline (a prompt hook then waited out a whole index build)."""
    import signal

    path = tmp_path / "index.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from ov.store.lock import WriteLock; "
         "WriteLock(Path(sys.argv[1]), 5).acquire(); print('held', flush=True); time.sleep(60)", str(path)],
        stdout=subprocess.PIPE, text=True,
    )

    class Deadline(Exception):
        pass

    def expire(signum, frame):
        raise Deadline

    previous = signal.signal(signal.SIGALRM, expire)
    try:
        assert holder.stdout.readline().strip() == "held"
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        # The wait's own end is StoreLocked at 10 s: Deadline at all is the caller's timer firing
        # during the wait, with no wall-clock bound for a loaded machine to stretch.
        with pytest.raises(Deadline):
            WriteLock(path, 10).acquire()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        holder.kill()
        holder.wait()


# --- Ctrl-C at the branch's move ---------------------------------------------------------------


@pytest.fixture
def ctrl_c_once_the_branch_moved(monkeypatch: pytest.MonkeyPatch):
    """``arm()``: from then on dulwich's compare-and-set of the branch is followed at once by a
    real Ctrl-C (SIGINT to this process) when it moved the ref, so the interrupt lands where the
    commit is in and ov has not noted it yet. ``arm()`` returns the commits the branch is moved to."""
    import signal

    from dulwich.refs import DiskRefsContainer

    real = DiskRefsContainer.set_if_equals
    moved_to: list[str] = []

    def then_ctrl_c(self, name, old, new, *args, **kwargs):
        moved = real(self, name, old, new, *args, **kwargs)
        if moved and name == b"refs/heads/main":
            moved_to.append(new.decode())
            signal.raise_signal(signal.SIGINT)
        return moved

    def arm() -> list[str]:
        monkeypatch.setattr(DiskRefsContainer, "set_if_equals", then_ctrl_c)
        return moved_to

    handler = signal.getsignal(signal.SIGINT)
    yield arm
    assert signal.getsignal(signal.SIGINT) is handler  # the handler before is back


def test_ctrl_c_right_after_the_branch_moved_keeps_the_commit_and_says_so(ov, store_state, ctrl_c_once_the_branch_moved):
    """The interrupt reached the rollback: the work tree went back to the old files under a branch
    naming the new commit (a hand edit for `ov status`), and the command said nothing was done."""
    assert ov("write", "viking://resources/a.md", "--content", "old\n").exit_code == 0
    moved_to = ctrl_c_once_the_branch_moved()
    result = ov("write", "viking://resources/a.md", "--content", "new\n", "--json")
    head, files = store_state()
    assert moved_to == [head]
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.error["code"] == "interrupted_after_commit"
    assert result.error["message"] == f"interrupted after the commit landed: the change is kept (commit {head[:10]})"
    assert files["resources/a.md"] == b"new\n"
    status = ov("status", "--json").json["result"]  # the journal left is finished, not rolled back
    assert status["clean"] and status["head"] == head
    assert ov("read", "viking://resources/a.md").stdout == "new\n"


def test_ctrl_c_right_after_move_head_keeps_the_files_of_the_new_head(store: Store, ctrl_c_once_the_branch_moved):
    """move_head (a pull's fast-forward) in the same window: interrupted, it kept the branch on the
    new head and put the old files back under it."""
    uri = store.uri("viking://resources/a.md")
    store.write(uri, b"one\n")
    first = store.git.head()
    store.write(uri, b"two\n")
    second = store.git.head()
    ctrl_c_once_the_branch_moved()
    with store.write_lock(), pytest.raises(KeyboardInterrupt):
        store.git.move_head(second, first, ["resources/a.md"])
    assert store.git.head() == first and store.git.landed == first
    assert (store.root / "resources/a.md").read_bytes() == b"one\n"


def test_ctrl_c_before_the_branch_moves_still_rolls_back(ov, store_state, monkeypatch: pytest.MonkeyPatch):
    """The hold starts at the ref's update: an interrupt while the files are written undoes them."""
    import signal

    assert ov("write", "viking://resources/a.md", "--content", "old\n").exit_code == 0
    before = store_state()
    real = GitStore._move_branch

    def ctrl_c_first(self, old, new):
        signal.raise_signal(signal.SIGINT)  # held: the branch still moves, then the interrupt comes
        return real(self, old, new)

    real_apply = GitStore._apply_worktree

    def apply_then_ctrl_c(self, *args, **kwargs):
        real_apply(self, *args, **kwargs)
        signal.raise_signal(signal.SIGINT)  # not held yet: the files are rolled back

    with monkeypatch.context() as patched:
        patched.setattr(GitStore, "_apply_worktree", apply_then_ctrl_c)
        result = ov("write", "viking://resources/a.md", "--content", "new\n", "--json")
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.error == {
        "code": "interrupted",
        "message": "ov write was interrupted before its commit: nothing was changed in the store",
        "hint": "nothing to undo; run the command again to finish it",
    }
    assert store_state() == before
    with monkeypatch.context() as patched:
        patched.setattr(GitStore, "_move_branch", ctrl_c_first)
        result = ov("write", "viking://resources/a.md", "--content", "new\n", "--json")
    assert result.error["code"] == "interrupted_after_commit" and store_state()[1]["resources/a.md"] == b"new\n"


def test_the_hook_deadline_right_after_the_branch_moved_keeps_the_commit(store: Store, monkeypatch: pytest.MonkeyPatch):
    """A hook's deadline (SIGALRM, its handler raising HookTimeout) in the window Ctrl-C is held
    for: it reached the rollback, which put the old files back under a branch naming the new commit."""
    import signal

    from dulwich.refs import DiskRefsContainer

    from ov.hosts.runtime import HookTimeout, _deadline

    uri = store.uri("viking://resources/a.md")
    store.write(uri, b"old\n")
    real = DiskRefsContainer.set_if_equals

    def then_alarm(self, name, old, new, *args, **kwargs):
        moved = real(self, name, old, new, *args, **kwargs)
        if moved and name == b"refs/heads/main":
            signal.raise_signal(signal.SIGALRM)  # as the deadline's timer fires
        return moved

    monkeypatch.setattr(DiskRefsContainer, "set_if_equals", then_alarm)
    with pytest.raises(HookTimeout), _deadline(60):
        store.write(uri, b"new\n")
    head = store.git.head()
    assert store.git.landed == head and store.last_landed() == head.decode()
    assert (store.root / "resources/a.md").read_bytes() == b"new\n"
    monkeypatch.undo()
    assert store.status().changes.clean


def test_an_error_from_git_after_the_branch_moved_finishes_the_commit(store: Store, monkeypatch: pytest.MonkeyPatch, caplog):
    """The rollback put the old files back under a branch naming the new commit (a hand edit for
    `ov status`), and the write was confirmed all the same."""
    uri = store.uri("viking://resources/a.md")
    store.write(uri, b"old\n")
    with monkeypatch.context() as patched:
        patched.setattr(type(store.git.repo.refs), "set_if_equals", _then_eio(type(store.git.repo.refs).set_if_equals))
        store.write(uri, b"new\n")
    head = store.git.head().decode()
    assert store.last_landed() == head
    assert (store.root / "resources/a.md").read_bytes() == b"new\n"
    assert not (store.state / "journal.json").exists()
    assert store.status().changes.clean
    assert f"committed {head[:10]}, but git then failed: [Errno 5] Input/output error" in caplog.text


def test_an_error_from_git_after_move_head_keeps_the_files_of_the_new_head(store: Store, monkeypatch: pytest.MonkeyPatch):
    uri = store.uri("viking://resources/a.md")
    store.write(uri, b"one\n")
    first = store.git.head()
    store.write(uri, b"two\n")
    second = store.git.head()
    with monkeypatch.context() as patched, store.write_lock():
        patched.setattr(type(store.git.repo.refs), "set_if_equals", _then_eio(type(store.git.repo.refs).set_if_equals))
        store.git.move_head(second, first, ["resources/a.md"])
    assert store.git.head() == first and store.git.landed == first
    assert (store.root / "resources/a.md").read_bytes() == b"one\n"
    assert store.status().changes.clean


def _then_eio(real):
    """dulwich's compare-and-set of the branch that moves it, then raises an OSError (as its
    reflog or a flush after the rename may)."""
    import errno

    def then_fail(self, name, old, new, *args, **kwargs):
        moved = real(self, name, old, new, *args, **kwargs)
        if moved and name == b"refs/heads/main":
            raise OSError(errno.EIO, "Input/output error")
        return moved

    return then_fail


# --- accounts that do not exist ------------------------------------------------------------


def _tree_of(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")) if root.exists() else []


def test_a_read_only_store_refuses_an_account_that_does_not_exist_while_others_do(store: Store, ov_home: Path):
    from ov.errors import AccountNotFound, NotFound

    store.write(store.uri("viking://resources/a.md"), b"a\n")
    Store(Home(ov_home), Identity(account="work"), Config()).write(store.uri("viking://resources/b.md"), b"b\n")
    before = _tree_of(ov_home)
    with pytest.raises(AccountNotFound) as info:
        Store(Home(ov_home), Identity(account="tpyo", sources=(("account", "flag"),)), Config(), read_only=True)
    error = info.value
    assert isinstance(error, NotFound) and error.code == "account_not_found" and error.exit_code == NotFound.exit_code
    assert error.message == f"account 'tpyo' (from flag) does not exist in {ov_home / 'accounts'} (accounts: default, work)"
    assert "--account" in error.hint and "$OV_ACCOUNT" in error.hint
    assert _tree_of(ov_home) == before  # nothing created: no repository, no state folder


def test_a_read_only_store_names_at_most_ten_accounts(ov_home: Path):
    from ov.errors import AccountNotFound

    for n in range(12):
        Store(Home(ov_home), Identity(account=f"a{n:02}"), Config()).init()
    with pytest.raises(AccountNotFound) as info:
        Store(Home(ov_home), Identity(account="tpyo"), Config(), read_only=True)
    assert "(accounts: a00, a01, a02, a03, a04, a05, a06, a07, a08, a09 and 2 more)" in info.value.message
    assert "(from" not in info.value.message  # an account from nowhere in particular says nothing of its source


@pytest.mark.parametrize(
    "existing",
    [pytest.param((), id="fresh-home"), pytest.param(("work",), id="default-not-yet-written")],
)
def test_a_read_only_store_of_a_new_install_or_of_the_default_account_reads_empty(ov_home: Path, existing: tuple[str, ...]):
    for account in existing:
        Store(Home(ov_home), Identity(account=account), Config()).init()
    account = "default" if existing else "tpyo"
    store = Store(Home(ov_home), Identity(account=account), Config(), read_only=True)
    assert store.missing_account() is None
    assert [e.name for e in store.ls(store.uri("viking://"))] == ["agent", "resources", "user"]
    assert not store.exists


def test_a_store_opened_to_write_creates_the_account_beside_others(store: Store, ov_home: Path):
    store.init()
    work = Store(Home(ov_home), Identity(account="work"), Config())
    assert work.missing_account() is not None  # what a read would have refused
    work.write(work.uri("viking://resources/a.md"), b"a\n")
    assert Home(ov_home).accounts() == ["default", "work"]
    assert Store(Home(ov_home), Identity(account="work"), Config(), read_only=True).read(work.uri("viking://resources/a.md")).content == "a\n"


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o7777


def test_the_home_ov_creates_is_private_to_its_user(store: Store, ov_home: Path, umask_022):
    """Transcripts and memories are plain text files the umask makes 0644: the home and the
    folders ov makes at its top are 0700, so other local users cannot reach them."""
    store.write(store.uri("viking://resources/a.md"), b"a\n")
    assert {p.name: _mode(p) for p in (ov_home, ov_home / "accounts", ov_home / "state")} == {"ovhome": 0o700, "accounts": 0o700, "state": 0o700}
    assert _mode(store.root / "resources" / "a.md") == 0o644  # files keep the umask's: the home is the fence


def test_a_home_the_user_made_keeps_its_permissions(ov_home: Path, umask_022):
    ov_home.mkdir()
    os.chmod(ov_home, 0o750)
    store = Store(Home(ov_home), Identity(), Config())
    store.write(store.uri("viking://resources/a.md"), b"a\n")
    assert _mode(ov_home) == 0o750  # the user's choice (`ov doctor` warns about it)
    assert _mode(ov_home / "accounts") == _mode(ov_home / "state") == 0o700  # what ov made itself


def test_a_read_makes_no_home(ov_home: Path, umask_022):
    store = Store(Home(ov_home), Identity(), Config(), read_only=True)
    assert [e.name for e in store.ls(store.uri("viking://"))] == ["agent", "resources", "user"]
    assert not ov_home.exists()


def test_an_atomic_replace_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path, umask_022):
    from ov.files import atomic_write, atomic_write_all

    private, shared, new, new_private = (tmp_path / n for n in ("private", "shared", "new", "new-private"))
    private.write_bytes(b"old")
    private.chmod(0o600)
    shared.write_bytes(b"old")
    shared.chmod(0o664)  # wider than the umask gives: kept exactly all the same
    atomic_write(private, b"new")
    atomic_write(shared, b"new", mode=0o600)  # mode is a new file's: the file there keeps its own
    atomic_write(new, b"new")
    atomic_write(new_private, b"new", mode=0o600)
    assert {p.name: (p.read_bytes(), _mode(p)) for p in (private, shared, new, new_private)} == {
        "private": (b"new", 0o600),
        "shared": (b"new", 0o664),
        "new": (b"new", 0o644),
        "new-private": (b"new", 0o600),
    }
    private.chmod(0o640)
    atomic_write_all([(private, b"both"), (shared, b"both")])
    assert (_mode(private), _mode(shared), private.read_bytes()) == (0o640, 0o664, b"both")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "new-private", "private", "shared"]  # no temporary left


def test_only_the_stale_temporary_files_of_ovs_atomic_writes_are_swept(tmp_path: Path):
    """What a write killed between its temporary file and the rename leaves: nothing else removes it."""
    from ov.files import remove_stale_replacements, replacement_beside

    made = [replacement_beside(tmp_path / "settings.json"), replacement_beside(tmp_path / "other.json")]
    made.append(replacement_beside(tmp_path / "x", suffix=".lock"))  # another kind of ov's temporary file
    for _, fd in made:
        os.close(fd)
    (tmp, _), (young, _), (suffixed, _) = made
    (tmp_path / ".ov-tmp-notes").write_text("mine")  # not a name ov gives
    (tmp_path / ".ov-tmp-0123456789ab").mkdir()  # a folder, whatever its name
    old = young.stat().st_mtime - 120
    for path in (tmp, suffixed, tmp_path / ".ov-tmp-notes", tmp_path / ".ov-tmp-0123456789ab"):
        os.utime(path, (old, old))
    assert remove_stale_replacements(tmp_path, older_than=60) == [tmp]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([young.name, suffixed.name, ".ov-tmp-notes", ".ov-tmp-0123456789ab"])
    assert remove_stale_replacements(tmp_path) == [young]  # no age asked: every one
    assert remove_stale_replacements(tmp_path / "missing") == []


def test_a_first_command_that_fails_leaves_no_account_behind(store: Store, ov_home: Path):
    """`OV_ACCOUNT=tpyo ov rm X` failed, yet made the account, which every later read then found
    empty instead of refusing it."""
    store.init()
    typo = Store(Home(ov_home), Identity(account="tpyo"), Config())
    with pytest.raises(NotFound):
        typo.rm(typo.uri("viking://resources/x.md"))
    assert Home(ov_home).accounts() == ["default"] and not typo.exists
    assert not list(typo.state.glob("discarded-*"))  # moved out in one rename, then deleted
    (typo.state / "discarded-1-abcd" / "objects").mkdir(parents=True)  # what a kill while deleting leaves
    assert Store(Home(ov_home), Identity(account="tpyo"), Config()).missing_account() is not None
    # A write fails in its own transaction, after the one that made the repository: none either.
    hand = Store(Home(ov_home), Identity(account="tpyo2"), Config())
    (hand.root / "resources").mkdir(parents=True)
    (hand.root / "resources" / "x.md").write_text("by hand\n")
    with pytest.raises(HandEditConflict):
        hand.write(hand.uri("viking://resources/x.md"), b"new\n")
    assert not hand.exists and (hand.root / "resources" / "x.md").read_text() == "by hand\n"  # what was there stays
    typo.write(typo.uri("viking://resources/a.md"), b"a\n")  # the same store object writes afterwards
    assert not list(typo.state.glob("discarded-*"))  # swept by the next transaction
    assert Home(ov_home).accounts() == ["default", "tpyo"] and typo.read(typo.uri("viking://resources/a.md")).content == "a\n"


def test_the_first_write_of_an_account_makes_its_repository_once(ov_home: Path, monkeypatch):
    """A write (group_commit's) ran an empty transaction for recovery first: in a new account it
    made the repository, discarded it as a transaction that committed nothing, and the write's
    own transaction made it again. A first write that fails still leaves no account (its own
    transaction discards what it made)."""
    made, discarded = [], []
    init, discard = GitStore.init, GitStore.discard_unless_moved
    monkeypatch.setattr(GitStore, "init", lambda self, *a, **k: made.append(init(self, *a, **k)) or made[-1])

    def discarding(self, *args, **kwargs):
        discard(self, *args, **kwargs)
        if not self.exists:
            discarded.append(True)

    monkeypatch.setattr(GitStore, "discard_unless_moved", discarding)
    fresh = Store(Home(ov_home), Identity(account="fresh"), Config())
    fresh.write(fresh.uri("viking://resources/a.md"), b"a\n")
    assert (made, discarded) == ([True], [])
    assert fresh.read(fresh.uri("viking://resources/a.md")).content == "a\n"
    fresh.write(fresh.uri("viking://resources/b.md"), b"b\n")
    assert (made, discarded) == ([True], [])  # an existing account's: nothing made

    made.clear()
    failing = Store(Home(ov_home), Identity(account="failing"), Config())
    (failing.root / "resources").mkdir(parents=True)
    (failing.root / "resources" / "x.md").write_text("by hand\n")
    with pytest.raises(HandEditConflict):
        failing.write(failing.uri("viking://resources/x.md"), b"new\n")
    assert made == [True] and discarded and not failing.exists


def test_a_writer_warming_up_beside_another_process_making_or_discarding_the_repository_goes_on(ov_home: Path, monkeypatch):
    """(a flaky concurrency test) A writer opens the repository before it takes the lock. While
    another process's first command was making it (its .git there, its objects not yet) or had
    just discarded the one it made, that opening failed the writer ("no account repository"),
    though under the lock it would have found, or made, the repository itself."""
    making = Store(Home(ov_home), Identity(account="making"), Config())
    (making.root / ".git").mkdir(parents=True)  # mid-way through another process's init
    making.git.warm_up()
    assert making.git._repo is None
    shutil.rmtree(making.root / ".git")  # that process failed and discarded it
    making.write(making.uri("viking://resources/a.md"), b"a\n")
    assert making.read(making.uri("viking://resources/a.md")).content == "a\n"

    discarded = Store(Home(ov_home), Identity(account="discarded"), Config())
    (discarded.root / ".git").mkdir(parents=True)
    seen = iter([True, False])  # there at the check, gone when opened
    monkeypatch.setattr(GitStore, "exists", property(lambda self: next(seen, self.worktree.joinpath(".git").is_dir())))
    discarded.git.warm_up()
    assert discarded.git._repo is None


def test_a_first_transaction_that_commits_nothing_leaves_no_account_behind(store: Store, ov_home: Path):
    """Only a failed first transaction discarded the repository it made: one that found nothing
    to change (a dry run, a retry with nothing new) made the account, with an "ov init" commit
    alone, and a mistyped --account then read as an empty account instead of a missing one."""
    from ov.uri import parse

    store.init()
    typo = Store(Home(ov_home), Identity(account="tpyo"), Config())
    with typo.transaction() as tx:
        assert tx.made and not tx.files_below(parse("viking://resources"))  # nothing there: nothing to do
    assert not typo.exists and Home(ov_home).accounts() == ["default"]
    assert typo.missing_account() is not None
    with typo.transaction() as tx:  # one that commits keeps it
        tx.put(parse("viking://resources/a.md"), b"a\n")
        tx.commit("write", [parse("viking://resources/a.md")])
    assert Home(ov_home).accounts() == ["default", "tpyo"] and typo.read(parse("viking://resources/a.md")).content == "a\n"
    with typo.transaction() as tx:
        assert not tx.made  # an existing account's: it stays whatever the transaction does
    assert typo.exists


def test_a_draft_staged_in_a_repository_discarded_since_commits_every_object_itself(ov_home: Path):
    """Another command's first write made the repository, a large add staged its objects in it
    without the lock, then that write failed and its repository was discarded: the add's commit
    named trees that were only in the discarded one, and every later command failed."""
    from ov.uri import parse

    ident = Identity(account="fresh")
    first, add = Store(Home(ov_home), ident, Config()), Store(Home(ov_home), ident, Config())
    with pytest.raises(KeyboardInterrupt):
        with Transaction(first) as tx:
            assert tx.made and add.init() is False
            draft = add.draft().__enter__()
            for i in range(100):
                draft.put(parse(f"viking://resources/big/f{i}.md"), f"file {i}\n".encode())
            draft.stage()
            assert add.git.stored_ahead
            raise KeyboardInterrupt
    assert not first.exists
    with add.transaction() as tx:
        assert tx.made and not draft.still_holds(tx, parse("viking://resources/big"))  # planned again by ingest
        draft.hand_over(tx)
        tx.commit("add-resource", [parse("viking://resources/big")])
    draft.discard()
    fresh = Store(Home(ov_home), ident, Config())
    assert fresh.read(parse("viking://resources/big/f7.md")).content == "file 7\n"
    assert len(fresh.ls(parse("viking://resources/big"))) == 100


# --- names in another Unicode normal form --------------------------------------------------

CAFE_NFC = "caf\u00e9.md"
CAFE_NFD = "cafe\u0301.md"


def _names(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize(("written", "read"), [(CAFE_NFD, CAFE_NFC), (CAFE_NFC, CAFE_NFD)], ids=["nfd-then-nfc", "nfc-then-nfd"])
def test_a_name_typed_in_either_form_is_one_file(store: Store, written: str, read: str):
    store.write(store.uri(f"viking://resources/{written}"), b"one\n")
    assert store.read(store.uri(f"viking://resources/{read}")).content == "one\n"
    store.write(store.uri(f"viking://resources/{read}"), b"two\n")
    assert _names(store.root / "resources") == [CAFE_NFC]
    assert [e.name for e in store.ls(store.uri("viking://resources"))] == [CAFE_NFC]


def _legacy(store: Store, relative: str, data: bytes = b"old\n") -> None:
    """A file under a decomposed name, committed as a store made before normalisation holds it."""
    path = store.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    assert store.snapshot_commit("legacy name").changed


def test_a_name_already_stored_decomposed_stays_readable_writable_and_removable(store: Store):
    store.init()
    _legacy(store, f"resources/{CAFE_NFD}")
    typed = store.uri(f"viking://resources/{CAFE_NFC}")
    assert typed.name == CAFE_NFD  # resolved to the name on disk, not a second file beside it
    assert store.read(typed).content == "old\n"
    store.write(store.uri(f"viking://resources/{CAFE_NFC}"), b"new\n", "append")
    assert _names(store.root / "resources") == [CAFE_NFD]
    assert store.read(store.uri(f"viking://resources/{CAFE_NFD}")).content == "old\nnew\n"
    store.rm(store.uri(f"viking://resources/{CAFE_NFC}"))
    assert not (store.root / "resources").exists() and store.status().changes.clean


def test_a_decomposed_directory_takes_new_files_typed_in_nfc(store: Store):
    store.init()
    folder_nfd, folder_nfc = "cafe\u0301", "caf\u00e9"
    _legacy(store, f"resources/{folder_nfd}/a.md")
    uri = store.uri(f"viking://resources/{folder_nfc}/{CAFE_NFD}")
    assert uri.parts == ("resources", folder_nfd, CAFE_NFC)  # the folder as on disk; the new name NFC
    store.write(uri, b"x\n")
    assert _names(store.root / "resources") == [folder_nfd]
    assert _names(store.root / "resources" / folder_nfd) == ["a.md", CAFE_NFC]


def test_a_child_of_a_decomposed_folder_and_an_import_into_it(store: Store, tmp_path: Path):
    """child() made the whole path NFC and compared it with the folder's stored spelling, so a file
    could not be moved into a decomposed folder, and an import of that folder made a look-alike."""
    from ov.ovpack import transfer

    store.init()
    folder_nfd = "cafe\u0301"
    _legacy(store, f"resources/{folder_nfd}/a.md")
    folder = store.uri(f"viking://resources/{folder_nfd}")
    assert folder.child("b.md").parts == ("resources", folder_nfd, "b.md")
    store.write(store.uri("viking://resources/x.md"), b"x\n")
    store.mv(store.uri("viking://resources/x.md"), store.uri(f"viking://resources/{folder_nfd}").child("x.md"))
    assert _names(store.root / "resources" / folder_nfd) == ["a.md", "x.md"]
    pack = tmp_path / "cafe.ovpack"
    transfer.export(store, folder, pack)
    with pytest.raises(AlreadyExists):  # the same folder, as before names were normalised: not a second one
        transfer.import_pack(store, pack, store.uri("viking://resources"))
    assert _names(store.root / "resources") == [folder_nfd]


def test_a_name_stored_in_both_forms_reaches_the_nfc_one_first_then_the_other(store: Store):
    store.init()
    # Before normalisation a store could end up with both, side by side.
    _legacy(store, f"resources/{CAFE_NFD}", b"decomposed\n")
    _legacy(store, f"resources/{CAFE_NFC}", b"composed\n")
    assert store.read(store.uri(f"viking://resources/{CAFE_NFD}")).content == "composed\n"
    store.rm(store.uri(f"viking://resources/{CAFE_NFD}"))
    assert store.read(store.uri(f"viking://resources/{CAFE_NFC}")).content == "decomposed\n"


def test_a_new_hand_made_name_ov_never_records_gets_the_hint_that_works_and_a_legacy_one_stays_readable(ov, ov_home: Path):
    """(a review: `mv`, `rm -r` and `write` refused a hand-made "odd " with "keep the edit with
    `ov snapshot commit`", which records nothing: status lists it as ignored.)"""
    from tests.hostile_trees import FILE, add_commit

    account = ov_home / "accounts/default"
    assert ov("write", "viking://resources/d/a.md", "--content", "A").exit_code == 0
    (account / "resources/d/odd ").write_text("hand\n")
    assert "resources/d/odd " in ov("status", "--json").json["result"]["ignored"]
    for argv in (("mv", "viking://resources/d", "viking://resources/e"), ("rm", "-r", "viking://resources/d"), ("write", "viking://resources/d/odd ", "--content", "x")):
        refused = ov(*argv, "--json")
        assert refused.exit_code == 1 and refused.error["code"] == "hand_edit_conflict", (argv, refused.stderr)
        assert refused.error["message"] == "'viking://resources/d/odd ' was created outside ov since the last commit (a file named as no URI can name it)"
        assert "move or remove it by hand" in refused.error["hint"] and "snapshot commit" not in refused.error["hint"]
    assert ov("snapshot", "commit", "-m", "x").stdout.startswith("work tree clean")  # why that hint could not work
    (account / "resources/d/odd ").unlink()  # the fix it gives works
    assert ov("mv", "viking://resources/d", "viking://resources/e").exit_code == 0
    # a name an older ov stored, which HEAD holds, is read, edited by hand and kept as before
    add_commit(account, {(b"resources", b"e", b"todo "): (FILE, b"milk\n")})
    (account / "resources/e/todo ").write_text("milk\n")
    assert ov("read", "viking://resources/e/todo ").stdout == "milk\n"
    (account / "resources/e/todo ").write_text("milk and eggs\n")
    edited = ov("rm", "-r", "viking://resources/e", "--json")
    assert edited.exit_code == 1 and "ov snapshot commit" in edited.error["hint"]
    assert ov("snapshot", "commit", "-m", "eggs").exit_code == 0 and ov("read", "viking://resources/e/todo ").stdout == "milk and eggs\n"


# --- a path from a tree ov did not build never leaves the work tree --------------------------


def _hostile_commit(store: Store, entries) -> tuple[bytes, bytes]:
    """(HEAD, a commit on top of it holding ``entries``), HEAD left where it was: a fetched commit."""
    from tests.hostile_trees import add_commit

    head = store.git.head()
    bad = add_commit(store.root, entries)
    Repo(str(store.root)).refs[b"refs/heads/main"] = head
    return head, bad


@pytest.mark.parametrize(
    "path",
    ["../../outside/x.md", ".git/config", ".GIT/config", "resources/.git/config", "resources/../../outside/x.md", "resources/./x.md"],
)
def test_moving_head_refuses_a_path_that_leaves_the_work_tree_before_anything_moves(store: Store, ov_home: Path, path: str):
    from ov.errors import UnsafeTree
    from tests.hostile_trees import FILE

    store.write(store.uri("viking://resources/a.md"), b"mine\n")
    config = (store.root / ".git" / "config").read_bytes()
    names = tuple(n.encode() for n in path.split("/"))
    head, bad = _hostile_commit(store, {names: (FILE, b"[core]\n\tfsmonitor = touch PWNED\n")})
    with pytest.raises(UnsafeTree, match="refused to write"):
        store.git.move_head(head, bad, [path])
    assert store.git.head() == head and not (store.state / "journal.json").exists()
    assert (store.root / ".git" / "config").read_bytes() == config
    assert not (ov_home / "outside").exists() and not (store.root / ".GIT").exists()


def test_a_work_tree_write_refuses_an_escaping_path_and_a_deletion_leaves_the_place_alone(store: Store, ov_home: Path):
    from ov.errors import UnsafeTree

    store.write(store.uri("viking://resources/a.md"), b"mine\n")
    outside = ov_home / "outside.md"
    outside.write_bytes(b"not the store's\n")
    for escaping in ("../../outside.md", str(outside), "resources//b.md", "resources/b.md\x00"):
        with pytest.raises(UnsafeTree):
            store.git._apply_worktree({"resources/b.md": b"b\n", escaping: b"overwritten\n"})
    assert not (store.root / "resources/b.md").exists(), "refused before anything is written"
    store.git._apply_worktree({"../../outside.md": None, ".git/config": None})  # dropped from a tree only
    assert outside.read_bytes() == b"not the store's\n" and (store.root / ".git" / "config").exists()


def test_moving_head_checks_each_path_once_and_leaves_an_escaping_deletion_alone(store: Store, ov_home: Path, monkeypatch):
    from tests.hostile_trees import FILE

    store.write(store.uri("viking://resources/a.md"), b"mine\n")
    outside = ov_home / "outside.md"
    outside.write_bytes(b"not the store's\n")
    head, new = _hostile_commit(store, {(b"resources", b"n.md"): (FILE, b"new\n")})
    checked: list[list[str]] = []
    real = GitStore._escaping
    monkeypatch.setattr(GitStore, "_escaping", lambda self, paths: checked.append(list(paths)) or real(self, paths))
    store.git.move_head(head, new, ["resources/n.md", "../../outside.md"])
    assert checked == [["resources/n.md", "../../outside.md"]], "one check per path of the move, not one per step"
    assert store.git.head() == new and (store.root / "resources/n.md").read_bytes() == b"new\n"
    assert outside.read_bytes() == b"not the store's\n"


def test_an_early_write_never_deletes_a_place_outside_the_work_tree(store: Store, ov_home: Path):
    store.write(store.uri("viking://resources/a.md"), b"mine\n")
    outside = ov_home / "outside.md"
    outside.write_bytes(b"not the store's\n")
    head = store.git.head()
    early = store.git.apply_early(head, {"resources/b.md": b"b\n", "../../outside.md": None})
    early.wait()
    assert outside.read_bytes() == b"not the store's\n", "a deletion of such a path only drops it from the tree"
    assert (store.root / "resources/b.md").read_bytes() == b"b\n"
    store.git.abandon_early(head, early)
    assert not (store.root / "resources/b.md").exists() and outside.exists()


def test_a_folder_replaced_by_a_link_out_of_the_store_carries_no_write(store: Store, tmp_path: Path):
    from ov.errors import UnsafeTree

    store.write(store.uri("viking://resources/d/a.md"), b"a\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(store.root / "resources/d")
    (store.root / "resources/d").symlink_to(elsewhere)
    with pytest.raises(UnsafeTree, match="symbolic link"):
        store.git._apply_worktree({"resources/d/b.md": b"b\n"})
    assert list(elsewhere.iterdir()) == []


def test_an_append_never_follows_a_link_put_in_place_of_the_file(store: Store, tmp_path: Path):
    store.write(store.uri("viking://resources/log.md"), b"one\n")
    target = tmp_path / "target.md"
    target.write_bytes(b"one\n")
    (store.root / "resources/log.md").unlink()
    (store.root / "resources/log.md").symlink_to(target)
    store.git._apply_worktree({"resources/log.md": b"one\ntwo\n"}, appends={"resources/log.md": 4})
    assert target.read_bytes() == b"one\n"  # replaced the link, not written through it
    assert (store.root / "resources/log.md").read_bytes() == b"one\ntwo\n" and not (store.root / "resources/log.md").is_symlink()


def test_recovery_never_writes_an_escaping_path_an_old_journal_names(store: Store, ov_home: Path):
    import json
    import time

    from tests.hostile_trees import FILE

    store.write(store.uri("viking://resources/a.md"), b"a\n")
    head, bad = _hostile_commit(store, {(b"..", b"..", b"outside.md"): (FILE, b"x\n")})
    Repo(str(store.root)).refs[b"refs/heads/main"] = bad  # HEAD holds it: an older ov pulled it
    journal = {"version": 1, "old": head.decode(), "new": bad.decode(), "paths": ["../../outside.md", "resources/a.md"], "started": time.time()}
    (store.state / "journal.json").write_text(json.dumps(journal))
    assert store.git.recover().startswith("completed")
    assert not (ov_home / "outside.md").exists() and not (store.state / "journal.json").exists()


def test_a_path_that_leaves_the_store_is_named_for_what_it_is_not_taken_for_a_link(store: Store):
    from ov.errors import UnsafeTree
    from ov.uri import VikingURI

    store.write(store.uri("viking://resources/a.md"), b"a\n")
    with pytest.raises(UnsafeTree) as refused:
        store.path(VikingURI(("..", "..", "victim.md")))
    assert "'..' name, which leads out of its folder" in refused.value.message and "symbolic link" not in refused.value.message
    with pytest.raises(UnsafeTree, match="names git's own files"):
        store.path(VikingURI((".git", "config")))


def test_a_listing_records_the_other_users_spaces_it_left_out(ov_home: Path):
    """The CLI's note is said from what the listing left out: one listing of viking://user, not a second."""
    from ov.retrieval.grep import glob, grep
    from ov.uri import VikingURI

    for user in ("alice", "bob", "carol"):
        Store(Home(ov_home), Identity(user=user), Config()).write(VikingURI(("user", user, "n.md")), b"note\n")
    bob = Store(Home(ov_home), Identity(user="bob"), Config())
    others = (VikingURI(("user", "alice")), VikingURI(("user", "carol")))
    assert bob.left_out == ()
    assert [e.name for e in bob.ls(bob.uri("viking://user"))] == ["bob"] and bob.left_out == others
    bob.ls(bob.uri("viking://resources"))
    assert bob.left_out == ()  # a listing that leaves nothing out says so
    for listing in (lambda: bob.tree(bob.uri("viking://")), lambda: bob.stat(bob.uri("viking://user")),
                    lambda: list(grep(bob, "note", bob.uri("viking://"))), lambda: glob(bob, "viking://user/**", bob.uri("viking://"))):
        bob.left_out = ()
        listing()
        assert bob.left_out == others


def test_a_staged_file_moved_in_keeps_the_permissions_of_the_file_it_replaces(ov_home: Path, umask_022):
    """A large add renames its staged files into place: the rename brought the staged file's 0644
    over a memory or resource the user had made 0600 (atomic_write keeps them, this did not)."""
    from ov.uri import parse

    store = Store(Home(ov_home), Identity(), Config())
    for i in range(100):
        store.write(parse(f"viking://resources/big/f{i}.md"), f"file {i}\n".encode())
    private = store.root / "resources/big/f7.md"
    private.chmod(0o600)
    draft = store.draft().__enter__()
    for i in range(100):
        draft.put(parse(f"viking://resources/big/f{i}.md"), f"file {i} again\n".encode())
    draft.stage()
    assert draft.staged is not None
    with store.transaction() as tx:
        draft.hand_over(tx)
        tx.commit("add-resource", [parse("viking://resources/big")])
    draft.discard()
    assert private.read_text() == "file 7 again\n" and private.stat().st_mode & 0o777 == 0o600
    assert (store.root / "resources/big/f8.md").stat().st_mode & 0o777 == 0o644  # the others as they were


def test_every_folder_ov_makes_in_the_home_is_private_whoever_makes_it_first(ov, ov_home: Path, umask_022):
    """state/ made again by the index of a `find` (or by a hook's capture) took the umask's 0755."""
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    shutil.rmtree(ov_home / "state")
    assert ov("find", "alpha").exit_code == 0
    assert [(ov_home / p).stat().st_mode & 0o777 for p in ("state", "state/default")] == [0o700, 0o700]
    shutil.rmtree(ov_home / "state")
    assert ov("write", "viking://resources/b.md", "--content", "beta\n").exit_code == 0
    assert [(ov_home / p).stat().st_mode & 0o777 for p in ("state", "state/default", "accounts", "accounts/default")] == [0o700] * 4


def test_a_folders_add_and_move_check_each_files_path_once(ov, tmp_path: Path, monkeypatch):
    """(found by a profile: Store.path, a check for escapes and a walk of the folders, ran about
    five times per file of a 3,000-file add or move: the draft, the transaction's read and its
    hand-edit check each asked again for the path the step before had checked)"""
    from collections import Counter

    source = tmp_path / "src"
    for folder in ("a", "b"):
        (source / folder).mkdir(parents=True)
        for i in range(5):
            (source / folder / f"f{i}.md").write_text(f"# {folder} {i}\n")
    checked: Counter[str] = Counter()
    real = Store.path
    monkeypatch.setattr(Store, "path", lambda self, uri: checked.update([uri.path]) or real(self, uri))
    files = [f"resources/src/{folder}/f{i}.md" for folder in ("a", "b") for i in range(5)]
    for argv, paths in ((["add-resource", str(source), "--to", "viking://resources/src"], files),
                        (["mv", "viking://resources/src", "viking://resources/moved"], files)):
        checked.clear()
        assert ov(*argv).exit_code == 0
        assert {p: checked[p] for p in paths} == dict.fromkeys(paths, 1), argv
    assert ov("read", "viking://resources/moved/b/f4.md").stdout == "# b 4\n"


def test_write_ahead_deletes_at_its_first_call_and_a_failure_before_the_commit_brings_the_files_back(store: Store):
    """(the docstring said deletions wait for the commit; the first call deletes at once, which
    is safe because the journal names the paths first and a failure rolls them back)"""
    store.write(store.uri("viking://resources/a.md"), b"a\n")
    store.write(store.uri("viking://resources/b.md"), b"b\n")
    head = commits(store)[0].id
    with pytest.raises(InvalidInput), store.transaction() as tx:
        tx.delete(store.uri("viking://resources/a.md"))
        tx.put(store.uri("viking://resources/c.md"), b"c\n")
        tx.write_ahead()
        assert not (store.root / "resources/a.md").exists()  # deleted by the first call
        tx.delete(store.uri("viking://resources/b.md"))
        tx.write_ahead()
        assert (store.root / "resources/b.md").read_bytes() == b"b\n"  # a later call's deletion waits
        raise InvalidInput("the command fails before its commit")
    assert commits(store)[0].id == head
    assert (store.root / "resources/a.md").read_bytes() == b"a\n" and not (store.root / "resources/c.md").exists()
    assert store.status().changes.clean


def test_a_commit_flushes_the_folder_of_the_branch_it_moved(ov, ov_home, tmp_path):
    """(the branch's new ref was renamed into place and its folder never flushed: a power cut
    just after `ov write` reported its commit could bring the old branch back.)"""
    from tests import crashpoint

    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    calls = crashpoint.count_calls(["write", "viking://resources/b.md", "--content", "b"], ov_home, dict(os.environ), tmp_path / "trace.json", tmp_path)
    moved = [c.n for c in calls if c.op in ("rename", "replace") and c.args[-1].endswith("/.git/refs/heads/main")]
    assert moved
    assert any(c.op == "fsync" and c.n > moved[-1] and c.args[0].endswith("/.git/refs/heads") for c in calls)


def test_a_clean_status_leaves_the_git_index_alone(store: Store):
    """(found by an audit: every `ov status` rewrote the whole .git/index, ~1 s at 30,000 files,
    under the write lock) A status that finds every file as the index records it writes nothing;
    one that finds a change writes the index again."""
    for i in range(20):
        store.write(store.uri(f"viking://resources/docs/f{i}.md"), f"{i}\n".encode())
    index = store.root / ".git" / "index"
    store.status()
    before = index.stat()
    time.sleep(0.01)
    assert store.status().changes.clean
    after = index.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    (store.root / "resources/docs/f3.md").write_text("hand edit\n")
    assert store.status().changes.modified == ["resources/docs/f3.md"]
    edited = index.stat()
    assert (edited.st_ino, edited.st_mtime_ns) != (after.st_ino, after.st_mtime_ns)
    assert store.status().changes.modified == ["resources/docs/f3.md"]
    assert index.stat().st_mtime_ns == edited.st_mtime_ns, "the index already records the edit"
