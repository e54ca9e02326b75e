"""Writers from many processes at once (hooks of parallel agent sessions) lose nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from dulwich.repo import Repo

WRITERS = 16

WAIT_THEN_WRITE = """
import os, sys, time
from pathlib import Path
start = Path(sys.argv[1])
(start.parent / f"ready.{os.getpid()}").touch()
while not start.exists():
    time.sleep(0.001)
from ov.cli.main import main
main(sys.argv[2:])
"""


def _until_ready(start: Path, count: int) -> None:
    """Until ``count`` writers have started and wait for ``start`` (each notes it is ready)."""
    deadline = time.monotonic() + 60
    while len(list(start.parent.glob("ready.*"))) < count:
        assert time.monotonic() < deadline, "the writers never started"
        time.sleep(0.01)


def test_sixteen_processes_writing_sixteen_uris(ov_home: Path, tmp_path: Path):
    script = tmp_path / "writer.py"
    script.write_text(WAIT_THEN_WRITE)
    start = tmp_path / "go"
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(start), "write", f"viking://resources/parallel/w{i:02d}.md", "--content", f"writer {i}\n"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(WRITERS)
    ]
    _until_ready(start, WRITERS)
    start.touch()
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * WRITERS, [r[1].decode() for r in results]

    root = ov_home / "accounts" / "default"
    for i in range(WRITERS):
        assert (root / f"resources/parallel/w{i:02d}.md").read_text() == f"writer {i}\n"
    repo = Repo(str(root))
    messages = [w.commit.message.decode().splitlines()[0] for w in repo.get_walker()]
    writes = [m for m in messages if m.startswith("ov write")]
    assert len(writes) == WRITERS
    assert sorted(writes) == sorted(f"ov write viking://resources/parallel/w{i:02d}.md" for i in range(WRITERS))
    head_tree = repo[repo.head()].tree
    files = [e.path for e in repo.object_store.iter_tree_contents(head_tree)]
    assert len([f for f in files if f.startswith(b"resources/parallel/")]) == WRITERS


# --- a large add holds the lock only to commit ------------------------------------------------


def _folder(tmp_path: Path, files: int) -> Path:
    folder = tmp_path / "bulk"
    for i in range(files):
        (folder / f"part{i % 4}").mkdir(parents=True, exist_ok=True)
        (folder / f"part{i % 4}" / f"note{i}.md").write_text(f"# Note {i}\n\nThe release train leaves on day {i}.\n")
    return folder


def test_other_writers_commit_while_a_large_add_summarises(ov, ov_home, tmp_path, monkeypatch):
    """The add plans (reads, lays out, summarises) without the lock: a write made meanwhile by
    another process goes through at once, and the add still lands whole on top of it."""
    from ov.ingest import resource

    folder = _folder(tmp_path, 80)
    assert ov("init").exit_code == 0
    during = {}
    real = resource._refresh_sidecars

    def summarise_slowly(*args, **kwargs):
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, "-m", "ov", "write", "viking://resources/hook.md", "--content", "from a hook", "--json"],
            capture_output=True, text=True, timeout=60,
        )
        during.update(code=proc.returncode, seconds=time.monotonic() - started, stderr=proc.stderr)
        return real(*args, **kwargs)

    monkeypatch.setattr(resource, "_refresh_sidecars", summarise_slowly)
    result = ov("add-resource", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    assert during["code"] == 0, during["stderr"]
    repo = Repo(str(ov_home / "accounts/default"))
    head = repo[repo.head()]
    assert b"add-resource" in head.message and b"write" in repo[head.parents[0]].message
    assert ov("read", "viking://resources/hook.md").stdout == "from a hook"
    assert len(result.json["result"]["added"]) == 80
    assert ov("status", "--json").json["result"]["clean"] is True
    assert not list((ov_home / "state/default/staging").glob("*"))


def test_a_commit_into_the_add_root_meanwhile_makes_the_add_plan_again_under_the_lock(ov, ov_home, tmp_path, monkeypatch):
    from ov.ingest import resource

    folder = _folder(tmp_path, 80)
    assert ov("add-resource", str(folder)).exit_code == 0
    (folder / "part0" / "note0.md").write_text("# Note 0\n\nChanged at the source.\n")
    real = resource._refresh_sidecars
    calls = []

    def interfere(store, tx, *args, **kwargs):
        if not calls:  # the first (lock-free) plan: another process edits a file of the same root
            proc = subprocess.run(
                [sys.executable, "-m", "ov", "write", "viking://resources/bulk/part1/note1.md", "--content", "edited meanwhile"],
                capture_output=True, text=True, timeout=60,
            )
            assert proc.returncode == 0, proc.stderr
        calls.append(type(tx).__name__)
        return real(store, tx, *args, **kwargs)

    monkeypatch.setattr(resource, "_refresh_sidecars", interfere)
    result = ov("add-resource", str(folder), "--json")
    assert result.exit_code == 0, result.stderr
    assert calls == ["Draft", "Transaction"]
    data = result.json["result"]
    # Planned again on top of the edit, which is the user's (its source did not change): kept, as
    # an add again keeps such an edit (ov.ingest.refresh), and named.
    assert data["updated"] == ["viking://resources/bulk/part0/note0.md"]
    assert [k["uri"] for k in data["kept"]] == ["viking://resources/bulk/part1/note1.md"]
    assert ov("read", "viking://resources/bulk/part1/note1.md").stdout == "edited meanwhile"
    assert "Changed at the source" in ov("read", "viking://resources/bulk/part0/note0.md").stdout
    assert ov("status", "--json").json["result"]["clean"] is True


def test_a_file_made_by_hand_in_a_new_add_root_meanwhile_is_not_overwritten(ov, ov_home, tmp_path, monkeypatch):
    """The draft checks that files absent when it planned are still absent, a folder at a time
    while the folder is missing: a file made in the new root meanwhile must be seen."""
    from ov.ingest import resource

    assert ov("write", "viking://resources/other.md", "--content", "x").exit_code == 0
    folder = _folder(tmp_path, 80)
    real = resource._refresh_sidecars
    made = ov_home / "accounts/default/resources/bulk/part1/note1.md"

    def hand_edit(store, tx, *args, **kwargs):
        if not made.exists():  # during the lock-free plan, someone makes the file by hand
            made.parent.mkdir(parents=True)
            made.write_text("made by hand\n")
        return real(store, tx, *args, **kwargs)

    monkeypatch.setattr(resource, "_refresh_sidecars", hand_edit)
    result = ov("add-resource", str(folder), "--json")
    assert made.read_text() == "made by hand\n"
    # Planned again under the lock, the add finds the root taken by something it did not add.
    assert result.exit_code != 0 and result.error["code"] == "already_exists", result.stderr


def test_a_staging_folder_left_by_a_killed_add_is_removed(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    staging = ov_home / "state/default/staging"
    (staging / "999-dead/resources/x").mkdir(parents=True)
    (staging / "999-dead/resources/x/big.md").write_bytes(b"x" * 10_000)
    (staging / "999-dead.owner").touch()  # nobody holds it: its owner was killed
    assert ov("write", "viking://resources/b.md", "--content", "b").exit_code == 0
    assert list(staging.iterdir()) == []


def test_other_writers_commit_while_a_session_commit_extracts_memories(ov, ov_home, monkeypatch):
    """Extraction (a model call of seconds, with an LLM) runs without the lock."""
    from ov.sessions import commit as session_commit

    assert ov("session", "add", "s1", "--text", "I prefer small pull requests.").exit_code == 0
    real = session_commit._extract
    during = {}

    def extract_slowly(*args, **kwargs):
        proc = subprocess.run(
            [sys.executable, "-m", "ov", "session", "add", "s2", "--text", "another session's turn"],
            capture_output=True, text=True, timeout=60,
        )
        during.update(code=proc.returncode, stderr=proc.stderr)
        return real(*args, **kwargs)

    monkeypatch.setattr(session_commit, "_extract", extract_slowly)
    result = ov("commit", "s1", "--json")
    assert result.exit_code == 0, result.stderr
    assert during["code"] == 0, during["stderr"]
    assert result.json["result"]["memories"]  # the preference was extracted and committed
    assert ov("session", "show", "s2", "--json").exit_code == 0
    assert ov("status", "--json").json["result"]["clean"] is True


def test_a_commit_landing_while_a_draft_reads_is_not_taken_for_a_hand_edit(ov, ov_home, monkeypatch):
    """A draft reads without the lock, so it can see another writer's files before (or just as)
    their commit lands; that must send it to plan again under the lock, not fail as a hand edit."""
    from ov.store.store import Draft

    for i in range(4):
        assert ov("session", "add", "race", "--text", f"m{i}").exit_code == 0
    real_enter = Draft.__enter__
    drafts = []

    def head_then_a_commit_lands(self):
        entered = real_enter(self)  # the draft has read HEAD; now another writer commits (once)
        drafts.append(1)
        if len(drafts) == 1:
            proc = subprocess.run(
                [sys.executable, "-m", "ov", "session", "add", "race", "--text", "m4"], capture_output=True, text=True, timeout=60
            )
            assert proc.returncode == 0, proc.stderr
        return entered

    monkeypatch.setattr(Draft, "__enter__", head_then_a_commit_lands)
    result = ov("commit", "race", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["archived"] == 5  # planned again on top of the fifth message
    assert len(drafts) == 2  # the second time as a draft too: never planned under the lock


def test_twelve_processes_adding_to_one_session_at_once(ov_home: Path, tmp_path: Path):
    """Captures of parallel hooks into one session, most of them committed by whichever process
    holds the lock (group commit): every message once, in one commit each, the meta in step."""
    script = tmp_path / "writer.py"
    script.write_text(WAIT_THEN_WRITE)
    start = tmp_path / "go"
    count = 12
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(start), "session", "add", "shared", "--text", f"turn {i}", "--id", f"m{i:02d}", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=dict(os.environ),
        )
        for i in range(count)
    ]
    _until_ready(start, count)
    start.touch()
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * count, [r[1].decode() for r in results]
    commits = [json.loads(r[0])["result"]["commit"] for r in results]
    assert None not in commits and len(set(commits)) == count
    root = ov_home / "accounts" / "default"
    session = root / "user/default/sessions/shared"
    ids = [json.loads(line)["id"] for line in (session / "messages.jsonl").read_text().splitlines()]
    assert sorted(ids) == [f"m{i:02d}" for i in range(count)]
    meta = json.loads((session / ".meta.json").read_text())
    assert meta["message_count"] == count and sorted(meta["live_ids"]) == sorted(ids)
    repo = Repo(str(root))
    try:
        history = [w.commit.id.decode() for w in repo.get_walker()]
    finally:
        repo.close()
    assert set(commits) <= set(history) and len(history) == count + 1
