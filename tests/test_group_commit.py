"""Group commit: the holder of the write lock commits the small writes queued behind it.

The queued writers here are real `ov` processes; the test holds the lock itself, waits until
their requests are queued, and then serves them as any holder would (or does not).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from dulwich.repo import Repo

from ov.cli.runtime import Runtime
from ov.store import group_commit
from ov.store.lock import WriteLock


@pytest.fixture
def store(ov, ov_home):
    assert ov("init").exit_code == 0
    return Runtime().store


def _queue(store) -> Path:
    return store.lock_path.with_name("write.queue")


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ov", *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))


def _requests_shown(store) -> list[Path]:
    """The queued requests a holder can see: a request is written before its ticket is renamed
    into the queue, and a holder serves only the requests of tickets it sees."""
    return [op for op in _queue(store).glob("*.op") if op.with_suffix("").exists()]


def _wait_for_requests(store, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(_requests_shown(store)) < count:
        assert time.monotonic() < deadline, "the writers never queued their requests"
        time.sleep(0.02)


def _served(store, *commands: tuple[str, ...]) -> tuple[list[tuple[int, dict]], list[str]]:
    """Hold the lock while ``commands`` queue (in this order), serve them, release; their exit
    codes and JSON, and the history as it was once served, before the lock was let go."""
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        procs = []
        for command in commands:
            procs.append(_start(*command))
            _wait_for_requests(store, len(procs))
        group_commit.serve(store, lock)
        landed = _history(store)
    finally:
        lock.release()
    return _finish(procs), landed


def _finish(procs: list[subprocess.Popen]) -> list[tuple[int, dict]]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=60)
        out.append((proc.returncode, json.loads(stdout if proc.returncode == 0 else stderr)))
    return out


def _history(store) -> list[str]:
    repo = Repo(str(store.root))
    try:
        return [entry.commit.id.decode() for entry in repo.get_walker()]
    finally:
        repo.close()


def test_the_holder_commits_queued_writes_and_session_adds_each_as_its_own_commit(store):
    before = _history(store)
    commands = [("write", f"viking://resources/q/w{i}.md", "--content", f"note {i}\n") for i in range(4)]
    commands += [("session", "add", "s1", "--text", f"turn {i}", "--id", f"m{i}") for i in range(4)]
    # `landed` is the history while the test still held the lock: the holder committed them.
    results, landed = _served(store, *commands)

    assert [code for code, _ in results] == [0] * len(commands)
    commits = [body["result"]["commit"] for _, body in results]
    assert len(set(commits)) == len(commands)
    assert set(commits) <= set(landed)
    assert len(landed) == len(before) + len(commands)
    assert _history(store) == landed
    for i in range(4):
        assert (store.root / f"resources/q/w{i}.md").read_text() == f"note {i}\n"
    lines = (store.root / "user/default/sessions/s1/messages.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == [f"m{i}" for i in range(4)]
    meta = json.loads((store.root / "user/default/sessions/s1/.meta.json").read_text())
    assert meta["message_count"] == 4
    assert subprocess.run(["git", "status", "--porcelain"], cwd=store.root, capture_output=True, text=True).stdout == ""
    assert list(_queue(store).iterdir()) == []


def test_a_served_write_says_which_way_its_writer_came_not_the_holders(store):
    store.via = "hook codex"  # the holder: a hook's capture, serving a command run at a shell
    results, landed = _served(store, ("write", "viking://resources/q/w.md", "--content", "w\n"))
    (code, body), = results
    assert code == 0 and body["result"]["commit"] == landed[0]
    message = Repo(str(store.root))[landed[0].encode()].message.decode()
    assert "Ov-Via: cli\n" in message and "codex" not in message


def test_a_served_error_is_the_writers_own_error_and_changes_nothing(store, ov):
    assert ov("write", "viking://resources/q/a.md", "--content", "first\n").exit_code == 0
    before = _history(store)
    [(code, body)], _ = _served(store, ("write", "viking://resources/q/a.md", "--content", "second\n", "--mode", "create"))
    assert code == 1
    assert body["error"]["code"] == "already_exists"
    assert "--mode replace" in body["error"]["hint"]
    assert _history(store) == before
    assert (store.root / "resources/q/a.md").read_text() == "first\n"


def test_writes_served_together_see_each_other(store):
    results, landed = _served(
        store,
        ("write", "viking://resources/q/log.md", "--content", "one\n"),
        ("write", "viking://resources/q/log.md", "--content", "two\n", "--mode", "append"),
        ("write", "viking://resources/q/log.md/inner.md", "--content", "x"),
        ("write", "viking://resources/q/dir/x.md", "--content", "x"),
        ("write", "viking://resources/q/dir", "--content", "a file where the folder is"),
    )
    assert [code for code, _ in results] == [0, 0, 1, 0, 1]
    assert {results[0][1]["result"]["commit"], results[1][1]["result"]["commit"], results[3][1]["result"]["commit"]} <= set(landed)
    assert results[2][1]["error"]["code"] == "not_directory"
    assert results[4][1]["error"]["code"] == "is_directory"
    assert (store.root / "resources/q/log.md").read_text() == "one\ntwo\n"
    assert (store.root / "resources/q/dir/x.md").read_text() == "x"


def test_a_served_writer_gone_before_its_outcome_does_not_fail_the_holder(store, monkeypatch):
    """A killed writer's files are cleared by the next one; the holder's own command, and the
    other writers it serves, must not notice."""
    from ov.store.lock import Request

    confirm = Request.confirm
    gone: list[str] = []

    def vanish_first(self):
        if not gone:
            gone.append(self.name)
            self._file(".result").unlink()
        confirm(self)

    monkeypatch.setattr(Request, "confirm", vanish_first)
    results, landed = _served(store, *[("write", f"viking://resources/q/g{i}.md", "--content", f"{i}\n") for i in range(3)])
    assert [code for code, _ in results] == [0, 0, 0]
    assert len({body["result"]["commit"] for _, body in results} - {None}) >= 2


def test_a_writer_that_times_out_takes_its_request_back(store, ov):
    assert ov("config", "set", "store.lock_timeout", "1").exit_code == 0
    before = _history(store)
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        [(code, body)] = _finish([_start("write", "viking://resources/q/late.md", "--content", "late\n")])
        assert list(_queue(store).glob("*.op")) == []
        group_commit.serve(store, lock)  # nothing left to serve
    finally:
        lock.release()
    assert code == 1 and body["error"]["code"] == "store_locked"
    assert _history(store) == before
    assert not (store.root / "resources/q/late.md").exists()


def test_a_request_left_by_a_killed_writer_is_not_served(store):
    before = _history(store)
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        proc = _start("write", "viking://resources/q/gone.md", "--content", "gone\n")
        _wait_for_requests(store, 1)
        proc.kill()
        proc.wait()
        group_commit.serve(store, lock)
    finally:
        lock.release()
    assert _history(store) == before
    assert not (store.root / "resources/q/gone.md").exists()


def _queued_in_thread(store, text: str, wait_for_request: bool = True) -> tuple[threading.Thread, dict]:
    """A writer in another thread of this process (the lock is per thread), queued with a request."""
    box: dict = {}

    def write() -> None:
        try:
            box["result"] = store.write(store.uri("viking://resources/q/t.md"), text.encode())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            box["error"] = exc

    thread = threading.Thread(target=write)
    thread.start()
    deadline = time.monotonic() + 30
    while wait_for_request and not _requests_shown(store):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return thread, box


@pytest.mark.parametrize("landed", [True, False])
def test_a_server_that_dies_while_committing_leaves_the_writer_a_right_answer(store, landed):
    """The holder records a request's outcome before its commit lands and confirms it after.
    Killed in between, the writer checks under the lock whether that commit is in HEAD: it is
    reported, not made twice; it is not, the writer commits it itself."""
    from ov.store.gitstore import CommitChain

    before = _history(store)
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        thread, box = _queued_in_thread(store, "served\n")
        [request] = lock.requests()
        content = request.claim()
        chain = CommitChain(store.git, store.git.head())
        result = group_commit._serve_one(store, chain, content)
        request.record({"ok": result, "commit": chain.tip.decode()})
        if landed:
            chain.land()
        # ... and the holder dies here: no confirm.
    finally:
        lock.release()
    thread.join(30)
    assert "error" not in box, box.get("error")
    history = _history(store)
    assert len(history) == len(before) + 1
    assert box["result"].commit == history[0]  # one commit, reported once, whoever made it
    assert (store.root / "resources/q/t.md").read_text() == "served\n"


def test_the_next_writer_sweeps_what_killed_writers_left_in_the_queue(store, ov):
    queue = _queue(store)
    queue.mkdir(parents=True, exist_ok=True)
    dead = "00000000000000000001-1-aaaaaa"
    leftovers = [queue / f"{dead}.op", queue / f"{dead}.result", queue / f".{dead}", queue / ".ov-tmp-0123456789ab"]
    for path in leftovers:
        path.write_text("{}")
        os.utime(path, (time.time() - 60, time.time() - 60))
    # A live writer's request, written just before its ticket (still hidden and held) shows, is left alone.
    live = "99999999999999999999-2-bbbbbb"
    ticket = os.open(queue / ".2-0123456789ab", os.O_CREAT | os.O_RDWR)
    try:
        import fcntl

        fcntl.flock(ticket, fcntl.LOCK_EX)
        (queue / f"{live}.op").write_text("{}")
        assert ov("write", "viking://resources/q/next.md", "--content", "next\n").exit_code == 0
        assert sorted(p.name for p in queue.iterdir()) == [".2-0123456789ab", f"{live}.op"]
    finally:
        os.close(ticket)


def test_a_writer_past_its_turn_is_not_served_by_a_holder_whose_ticket_showed_late(store):
    """A holder slow to show its ticket can hold the lock while a writer behind it in time has
    already seen no one ahead. That writer takes its request back before it waits for the lock,
    so the holder cannot commit it too (found by a stress run: a write reported as no change)."""
    from filelock import FileLock

    before = _history(store)
    holder = WriteLock(store.lock_path, 30)
    holder._lock = FileLock(store.lock_path)
    holder._lock.acquire()
    holder._ticket_path = _queue(store) / "00000000000000000000-0-000000"  # never shown
    try:
        thread, box = _queued_in_thread(store, "mine\n", wait_for_request=False)
        deadline = time.monotonic() + 30
        # Its ticket shows after its request is written; past its turn, it withdraws the request.
        while not [p for p in _queue(store).iterdir() if "." not in p.name] or list(_queue(store).glob("*.op")):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        group_commit.serve(store, holder)
        assert _history(store) == before
    finally:
        holder._lock.release()
    thread.join(30)
    assert "error" not in box, box.get("error")
    assert box["result"].commit == _history(store)[0]
    assert len(_history(store)) == len(before) + 1


def test_the_small_packs_of_many_batches_are_merged_and_nothing_is_lost(store):
    from ov.store.gitstore import MERGE_SMALL_PACKS, PACK_THRESHOLD, CommitChain

    pack_dir = store.root / ".git/objects/pack"
    for batch in range(MERGE_SMALL_PACKS + 2):
        chain = CommitChain(store.git, store.git.head())
        for half in range(2):  # two commits a batch, with enough objects for a pack
            files = {f"resources/b{batch}/{half}/f{i}.md": f"batch {batch} {half} {i}\n".encode() for i in range(PACK_THRESHOLD)}
            chain.add(files, f"ov write batch {batch}.{half}\n", store.author)
        chain.land()
    packs = list(pack_dir.glob("*.pack"))
    assert len(packs) < MERGE_SMALL_PACKS
    assert len(_history(store)) == 1 + 2 * (MERGE_SMALL_PACKS + 2)
    assert (store.root / "resources/b0/1/f3.md").read_text() == "batch 0 1 3\n"
    repo = Repo(str(store.root))
    try:
        for entry in repo.get_walker():  # every commit's tree and blobs are still there
            for item in repo.object_store.iter_tree_contents(entry.commit.tree):
                assert repo.object_store[item.sha].type_name == b"blob"
    finally:
        repo.close()
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=store.root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def _count_landings(monkeypatch) -> list[int]:
    """The commits of each chain this process lands from now on, one entry per landing."""
    from ov.store import gitstore

    landed: list[int] = []
    land = gitstore.GitStore._land

    def counting(self, chain, *args, **kwargs):
        landed.append(chain.commits)
        return land(self, chain, *args, **kwargs)

    monkeypatch.setattr(gitstore.GitStore, "_land", counting)
    return landed


def _holding_write(store, uri: str, content: str, monkeypatch, mode: str = "replace"):
    """Hold the lock in a thread while a write of this process queues behind it and then
    ``ov write`` processes queue behind that; the first write becomes the holder once the
    lock is let go. Returns (let go and wait for the write's outcome, the landings counted)."""
    landed = _count_landings(monkeypatch)
    lock = WriteLock(store.lock_path, 30)
    taken = threading.Event()
    release = threading.Event()

    def hold():
        lock.acquire()
        taken.set()
        release.wait(60)
        lock.release()

    holder = threading.Thread(target=hold)
    holder.start()
    taken.wait(10)
    outcome: dict = {}

    def write():
        try:
            outcome["result"] = store.write(store.uri(uri), content.encode(), mode)
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    writer = threading.Thread(target=write)
    writer.start()
    _wait_for_requests(store, 1)

    def finish():
        release.set()
        holder.join(30)
        writer.join(60)
        return outcome

    return finish, landed


def test_the_holders_own_write_and_those_it_serves_land_in_one_go(store, monkeypatch):
    before = _history(store)
    finish, landed = _holding_write(store, "viking://resources/q/own.md", "the holder's own\n", monkeypatch)
    procs = []
    for i in range(3):
        procs.append(_start("write", f"viking://resources/q/s{i}.md", "--content", f"served {i}\n"))
        _wait_for_requests(store, 2 + i)
    outcome = finish()
    results = _finish(procs)

    assert "error" not in outcome, outcome
    assert [code for code, _ in results] == [0, 0, 0]
    own = outcome["result"].commit
    served = [body["result"]["commit"] for _, body in results]
    # One landing of four commits, the holder's first: each command keeps a commit of its own.
    assert landed == [4]
    assert _history(store) == [*reversed(served), own, *before]
    assert (store.root / "resources/q/own.md").read_text() == "the holder's own\n"
    assert [(store.root / f"resources/q/s{i}.md").read_text() for i in range(3)] == [f"served {i}\n" for i in range(3)]


def test_a_holder_whose_own_write_is_refused_still_lands_those_it_serves(store, ov, monkeypatch):
    assert ov("write", "viking://resources/q/taken.md", "--content", "first\n").exit_code == 0
    before = _history(store)
    # Refused under the lock, after the queue formed behind it.
    finish, landed = _holding_write(store, "viking://resources/q/taken.md", "second\n", monkeypatch, mode="create")
    procs = [_start("write", "viking://resources/q/fine.md", "--content", "served\n")]
    _wait_for_requests(store, 2)
    outcome = finish()
    [(code, body)] = _finish(procs)

    assert outcome["error"].code == "already_exists"
    assert (store.root / "resources/q/taken.md").read_text() == "first\n"
    assert code == 0
    assert landed == [1]
    assert _history(store) == [body["result"]["commit"], *before]


def test_a_request_queued_while_a_batch_is_served_joins_that_batch(store, monkeypatch):
    landed = _count_landings(monkeypatch)
    late: list[subprocess.Popen] = []
    serve_one = group_commit._serve_one

    def a_writer_arrives_meanwhile(*args, **kwargs):
        if not late:  # while the first request is being served, another writer queues
            late.append(_start("write", "viking://resources/q/late.md", "--content", "late\n"))
            deadline = time.monotonic() + 60
            while not _requests_shown(store):
                assert time.monotonic() < deadline, "the late writer never queued"
                time.sleep(0.02)
        return serve_one(*args, **kwargs)

    monkeypatch.setattr(group_commit, "_serve_one", a_writer_arrives_meanwhile)
    results, history = _served(store, ("write", "viking://resources/q/first.md", "--content", "first\n"))
    [(late_code, late_body)] = _finish(late)

    assert [code for code, _ in results] == [0] and late_code == 0
    assert landed == [2]  # one landing for both: the late request joined the batch under way
    assert late_body["result"]["commit"] == history[0] and results[0][1]["result"]["commit"] == history[1]
    assert (store.root / "resources/q/late.md").read_text() == "late\n"


def test_a_served_request_lists_a_folder_as_the_chain_left_it(store):
    """A request served after others in one chain sees the files they added or removed."""
    from types import SimpleNamespace

    for name in ("a.md", "b.md"):
        store.write(store.uri(f"viking://resources/notes/{name}"), b"x\n")
    chain = SimpleNamespace(contents={"resources/notes/c.md": b"from an earlier request\n", "resources/notes/a.md": None}, appends={})
    tx = group_commit.ServedTransaction(store, chain)
    folder = store.uri("viking://resources/notes")
    assert tx.file_names(folder) == ["b.md", "c.md"]
    tx.put(store.uri("viking://resources/notes/a.md"), b"back again\n")  # this request's own change wins
    assert tx.file_names(folder) == ["a.md", "b.md", "c.md"]


def test_a_confined_writers_request_is_confined_when_served(store):
    """A request of the MCP server's store (confined to its user) is checked again where the
    holder applies it: the URI it names is read there, by the holder's process, not the writer's."""
    from ov.errors import OtherUsersSpace
    from ov.store.gitstore import CommitChain
    from ov.store.store import Store

    bob = Store(store.home, dataclasses.replace(store.identity, user="bob"), store.config, confined=True)
    before = _history(store)
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        box: dict = {}
        thread = threading.Thread(target=lambda: box.update(result=bob.write(bob.uri("viking://~/notes.md"), b"mine\n")))
        thread.start()
        deadline = time.monotonic() + 30
        while not _requests_shown(store):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        [op] = _requests_shown(store)
        content = json.loads(op.read_text())
        assert content["confined"] is True and content["args"]["uri"] == "viking://user/bob/notes.md"
        # The same request, its URI changed on the way (a queue file edited in between): refused.
        planted = {**content, "args": {**content["args"], "uri": "viking://user/alice/memories/planted.md"}}
        chain = CommitChain(store.git, store.git.head())
        with pytest.raises(OtherUsersSpace):
            group_commit._serve_one(store, chain, planted)
        assert chain.tip == chain.base
        group_commit.serve(store, lock)  # bob's own, as queued
    finally:
        lock.release()
    thread.join(30)
    assert box["result"].commit == _history(store)[0] and len(_history(store)) == len(before) + 1
    assert (store.root / "user/bob/notes.md").read_text() == "mine\n"
    assert not (store.root / "user/alice").exists()


@pytest.mark.parametrize("holder", ["confirmed", "died after landing", "died before landing", "died before recording", "gave it back"])
def test_a_stop_after_the_holder_claimed_the_request_waits_for_its_outcome(store, holder):
    """(the race a stop can lose: the writer's MCP call is cancelled once the holder has claimed its
    request) The writer does not give up while its request is being served: a commit that lands is
    its answer, whatever the stop says. One that comes back unserved (given back, or its holder died
    before the commit landed) is not written by the writer itself: the stop holds, nothing is written."""
    from ov.errors import Interrupted
    from ov.store.gitstore import CommitChain
    from ov.store.store import Store

    why: list[str] = []
    writer = Store(store.home, store.identity, store.config, stop=lambda: why[0] if why else None)
    before = _history(store)
    lock = WriteLock(store.lock_path, 30)
    lock.acquire()
    try:
        thread, box = _queued_in_thread(writer, "served\n")
        [request] = lock.requests()
        content = request.claim()
        why.append("the client cancelled it")
        time.sleep(0.3)  # the writer asks its stop meanwhile (every 50 ms)
        assert thread.is_alive() and not box, box  # claimed: its outcome is waited for
        if holder == "gave it back":
            request.back()
        elif holder != "died before recording":
            chain = CommitChain(store.git, store.git.head())
            result = group_commit._serve_one(store, chain, content)
            request.record({"ok": result, "commit": chain.tip.decode(), "base": chain.base.decode()})
            if holder != "died before landing":
                chain.land()
            if holder == "confirmed":
                request.confirm()
        # "died ...": the holder is gone here, its locks released by the kernel
    finally:
        lock.release()
    thread.join(30)
    assert not thread.is_alive()
    history = _history(store)
    if holder in ("confirmed", "died after landing"):
        assert "error" not in box, box.get("error")
        assert len(history) == len(before) + 1 and box["result"].commit == history[0]
        assert (store.root / "resources/q/t.md").read_text() == "served\n"
    else:
        assert isinstance(box.get("error"), Interrupted), box
        assert "the client cancelled it" in str(box["error"]) and "nothing was written" in str(box["error"])
        assert history == before and not (store.root / "resources/q/t.md").exists()
    probe = WriteLock(store.lock_path, 1)
    assert probe.acquire() is None  # the writer left the lock free
    probe.release()
