"""Sessions: capture, de-duplication, append-only growth, commit into archives and memories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from dulwich.repo import Repo

SESSIONS = "accounts/default/user/default/sessions"


def session_dir(home: Path, sid: str) -> Path:
    return home / SESSIONS / sid


def test_new_add_show_list(ov, ov_home):
    sid = ov("session", "new", "--id", "s1").stdout.strip()
    assert sid == "s1"
    assert ov("session", "add", "s1", "--text", "How do we deploy?").exit_code == 0
    parts = json.dumps([{"type": "text", "text": "Run make deploy."}, {"type": "tool", "tool_name": "bash", "tool_input": {"cmd": "make deploy"}, "tool_output": "ok", "tool_status": "completed"}, {"type": "context", "uri": "viking://resources/handbook"}])
    assert ov("session", "add", "s1", "--role", "assistant", "--parts", parts).exit_code == 0
    shown = ov("session", "show", "s1", "--json").json["result"]
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    assert shown["messages"][1]["parts"][1] == {"type": "tool", "tool_name": "bash", "tool_input": {"cmd": "make deploy"}, "tool_output": "ok", "tool_status": "completed"}
    assert shown["messages"][0]["id"].startswith("msg_") and shown["messages"][0]["created_at"].endswith("Z")
    assert shown["meta"]["message_count"] == 2 and shown["meta"]["pending_tokens"] > 0
    listed = ov("session", "list", "--json").json["result"]
    assert [row["session"] for row in listed] == ["s1"]
    lines = (session_dir(ov_home, "s1") / "messages.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["id"] for line in lines)


def test_add_creates_the_session_and_each_add_is_one_commit(ov, ov_home):
    for text in ("one", "two", "three"):
        assert ov("session", "add", "auto", "--text", text).exit_code == 0
    subjects = [w.commit.message.decode().splitlines()[0] for w in Repo(str(ov_home / "accounts/default")).get_walker()]
    assert subjects[:3] == ["ov session add viking://user/default/sessions/auto"] * 3


def test_messages_are_appended_not_rewritten(ov, ov_home):
    assert ov("session", "add", "s", "--text", "first").exit_code == 0
    path = session_dir(ov_home, "s") / "messages.jsonl"
    before = path.read_bytes()
    inode = path.stat().st_ino
    assert ov("session", "add", "s", "--text", "second").exit_code == 0
    assert path.stat().st_ino == inode, "the file was replaced, not appended to"
    assert path.read_bytes().startswith(before)


def test_a_message_id_already_held_is_a_no_op(ov, ov_home):
    assert ov("session", "add", "s", "--text", "hello", "--id", "host-uuid-1").exit_code == 0
    again = ov("session", "add", "s", "--text", "hello", "--id", "host-uuid-1", "--json").json["result"]
    assert again["changed"] is False and again["duplicates"] == ["host-uuid-1"]
    assert len((session_dir(ov_home, "s") / "messages.jsonl").read_text().splitlines()) == 1
    assert ov("commit", "s").exit_code == 0
    after_commit = ov("session", "add", "s", "--text", "hello", "--id", "host-uuid-1", "--json").json["result"]
    assert after_commit["changed"] is False, "an archived message is still known"


def test_add_messages_array_and_json_lines(ov):
    array = json.dumps([{"role": "user", "text": "a", "created_at": "2026-05-01T10:00:00Z"}, {"role": "assistant", "text": "b"}])
    assert ov("session", "add-messages", "s", array).exit_code == 0
    lines = '{"role": "user", "text": "c"}\n{"role": "assistant", "parts": [{"type": "text", "text": "d"}]}\n'
    assert ov("session", "add-messages", "s", stdin=lines).exit_code == 0
    messages = ov("session", "show", "s", "--json").json["result"]["messages"]
    assert [m["parts"][0]["text"] for m in messages] == ["a", "b", "c", "d"]
    assert messages[0]["created_at"] == "2026-05-01T10:00:00.000Z"


@pytest.mark.parametrize("argv, stdin, words", [
    (["session", "add-messages", "s", "[{\"role\": \"user\", \"text\": \"a\"}, {broken"], None, "not valid JSON"),
    (["session", "add-messages", "s"], '{"role": "user", "text": "ok"}\nnot json\n', "line 2"),
    (["session", "add", "s", "--role", "wizard", "--text", "x"], None, "unknown role"),
    (["session", "add", "s", "--parts", "[{\"type\": \"video\"}]"], None, "unknown type"),
    (["session", "add", "s", "--parts", "[{\"type\": \"tool\"}]"], None, "tool_name"),
    (["session", "add", "s", "--text", "x", "--created-at", "yesterday"], None, "ISO 8601"),
    (["session", "add", "bad id", "--text", "x"], None, "session id"),
    (["session", "add", "s"], None, "--text or --parts"),
])
def test_bad_messages_change_nothing(ov, store_state, argv, stdin, words):
    assert ov("session", "add", "s", "--text", "existing").exit_code == 0
    before = store_state()
    result = ov(*argv, "--json", stdin=stdin)
    assert result.exit_code == 2, result.stderr
    assert words in result.error["message"]
    assert store_state() == before


@pytest.mark.parametrize("argv", [["session", "show", "ghost"], ["session", "used", "ghost", "viking://resources/x"], ["commit", "ghost"], ["session", "delete", "ghost"]])
def test_a_session_that_does_not_exist(ov, store_state, argv):
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov(*argv, "--json")
    assert result.exit_code == 1 and result.error["code"] == "not_found"
    assert store_state() == before


def test_used_records_uris(ov):
    assert ov("session", "add", "s", "--text", "x").exit_code == 0
    assert ov("session", "used", "s", "viking://resources/a", "viking://~/memories/profile.md").exit_code == 0
    used = ov("session", "show", "s", "--json").json["result"]["meta"]["used"]
    assert [u["uri"] for u in used] == ["viking://resources/a", "viking://user/default/memories/profile.md"]


def test_commit_archives_and_keeps_a_tail(ov, ov_home):
    for i in range(5):
        assert ov("session", "add", "s", "--role", "user" if i % 2 == 0 else "assistant", "--text", f"message {i}.").exit_code == 0
    report = ov("commit", "s", "--keep", "2", "--json").json["result"]
    assert report["status"] == "committed" and report["archived"] == 3 and report["kept"] == 2
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert len((archive / "messages.jsonl").read_text().splitlines()) == 3
    assert len((session_dir(ov_home, "s") / "messages.jsonl").read_text().splitlines()) == 2
    for name in (".overview.md", ".abstract.md", "memory_diff.json", ".done"):
        assert (archive / name).exists(), name
    assert json.loads((archive / "memory_diff.json").read_text())["summary"] == {"total_adds": 0, "total_updates": 0, "total_deletes": 0}
    second = ov("session", "commit", "s", "--json").json["result"]
    assert second["archive"].endswith("archive_002") and second["archived"] == 2
    assert ov("commit", "s", "--json").json["result"]["status"] == "skipped"
    meta = ov("session", "show", "s", "--json").json["result"]["meta"]
    assert meta["commit_count"] == 2 and meta["message_count"] == 0
    tree = ov("tree", "viking://~/sessions").stdout
    assert "archive_001/" in tree and "archive_002/" in tree


def test_commit_is_one_git_commit(ov, ov_home):
    assert ov("session", "add", "s", "--text", "Remember that I deploy on Fridays.").exit_code == 0
    repo = Repo(str(ov_home / "accounts/default"))
    before = repo.head()
    assert ov("commit", "s").exit_code == 0
    repo = Repo(str(ov_home / "accounts/default"))
    walker = [w.commit for w in repo.get_walker()]
    assert walker[1].id == before
    assert walker[0].message.decode().startswith("ov commit viking://user/default/sessions/s viking://user/default/sessions/s/history/archive_001")


def test_working_memory_overview(ov, ov_home):
    for role, text in [("user", "Fix the failing login test in src/auth/login.py."), ("assistant", "The test failed with an AssertionError: token expired."), ("user", "Actually, use the staging config."), ("assistant", "We decided to mock the clock. Done.")]:
        assert ov("session", "add", "s", "--role", role, "--text", text).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    overview = ov("overview", "viking://~/sessions/s/history/archive_001").stdout
    assert overview.startswith("# Fix the failing login test in src/auth/login.py.")
    for heading in ("## Current State", "## Task & Goals", "## Key Facts & Decisions", "## Files & Context", "## Errors & Corrections", "## Open Issues"):
        assert heading in overview
    assert "src/auth/login.py" in overview and "AssertionError" in overview and "We decided to mock the clock." in overview
    assert ov("abstract", "viking://~/sessions/s/history/archive_001").stdout.startswith("4 messages")


COMMIT_RACE = """
import sys, time
from pathlib import Path
start = Path(sys.argv[1])
while not start.exists():
    time.sleep(0.001)
from ov.cli.main import main
main(["commit", "race", "--json"])
"""


def test_concurrent_commits_of_one_session(ov, ov_home, tmp_path):
    for i in range(4):
        assert ov("session", "add", "race", "--text", f"m{i}").exit_code == 0
    script = tmp_path / "commit.py"
    script.write_text(COMMIT_RACE)
    start = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, str(script), str(start)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ)) for _ in range(2)]
    import time

    time.sleep(0.4)
    start.touch()
    outputs = [p.communicate(timeout=60) for p in procs]
    statuses = sorted(json.loads(out)["result"]["status"] for out, _ in outputs)
    assert statuses == ["committed", "skipped"]
    history = session_dir(ov_home, "race") / "history"
    assert sorted(p.name for p in history.iterdir()) == ["archive_001"]
    assert len((history / "archive_001/messages.jsonl").read_text().splitlines()) == 4


def test_delete_session(ov, ov_home):
    assert ov("session", "add", "gone", "--text", "x").exit_code == 0
    assert ov("session", "delete", "gone").exit_code == 0
    assert not session_dir(ov_home, "gone").exists()
    assert ov("session", "list", "--json").json["result"] == []


def _normalised_tree(root: Path) -> dict[str, str]:
    """Every file under ``root`` with times and generated ids replaced, for snapshots."""
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text()
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z", "<time>", text)
        text = re.sub(r"\d{4}/\d\d/\d\d", "<date>", text)
        text = re.sub(r"msg_[0-9a-f]{16}", "<msg-id>", text)
        out[re.sub(r"\d{4}/\d\d/\d\d", "<date>", str(path.relative_to(root)))] = text
    return out


def test_commit_extracts_explicit_memories_and_redacts_secrets(ov, ov_home, snapshot):
    statements = "I prefer tabs over spaces. My editor is Neovim. I am a backend engineer."
    assert ov("session", "add", "s", "--text", statements, "--id", "u1", "--created-at", "2026-05-01T09:00:00Z").exit_code == 0
    secret = "Use key sk-proj-" + "a1B2c3D4e5" * 4 + " for the demo."
    assert ov("session", "add", "s", "--role", "assistant", "--text", secret, "--id", "a1", "--created-at", "2026-05-01T09:01:00Z").exit_code == 0
    raw = (session_dir(ov_home, "s") / "messages.jsonl").read_text()
    assert "sk-proj-" not in raw and "REDACTED" in raw
    report = ov("commit", "s", "--json").json["result"]
    assert report["memories"] == {"adds": 2, "updates": 0, "deletes": 0}
    memories = ov_home / "accounts/default/user/default/memories"
    assert "Prefers tabs over spaces" in (memories / "preferences/default/tabs.md").read_text()
    assert "Neovim" in (memories / "profile.md").read_text()
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert _normalised_tree(archive) == snapshot
    # a second session that repeats and extends a preference merges instead of duplicating
    assert ov("session", "add", "s2", "--text", "I prefer tabs over spaces. I prefer short functions.").exit_code == 0
    second = ov("commit", "s2", "--json").json["result"]
    assert second["memories"]["adds"] == 1
    assert (memories / "preferences/default/tabs.md").read_text().count("Prefers tabs over spaces") == 1


def test_remember_and_forget(ov, ov_home):
    first = ov("remember", "I prefer dark mode in every editor", "--json").json["result"]
    uri = first["uris"][0]
    assert uri == "viking://user/default/memories/preferences/default/dark_mode.md"
    assert "dark mode" in ov("read", uri).stdout
    again = ov("remember", "I prefer dark mode in every editor", "--json").json["result"]
    assert again["changed"] is False
    peer = ov("remember", "My team is Platform", "--peer", "acme", "--json").json["result"]
    assert peer["uris"][0].startswith("viking://user/default/peers/acme/memories/")
    assert ov("forget", uri).exit_code == 0
    assert ov("read", uri).exit_code == 1
    log = [w.commit.message.decode().splitlines()[0] for w in Repo(str(ov_home / "accounts/default")).get_walker()]
    assert log[0] == f"ov forget {uri}" and log[-2].startswith("ov remember")


@pytest.mark.parametrize("argv, code, words", [
    (["forget", "viking://resources/docs/a.md"], 2, "not a memory"),
    (["forget", "viking://~/memories/nothing.md"], 1, "does not exist"),
    (["remember", "  "], 2, "empty"),
    (["remember", "x", "--type", "dreams"], 2, "unknown memory type"),
])
def test_remember_and_forget_bad_input(ov, store_state, argv, code, words):
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov(*argv, "--json")
    assert result.exit_code == code
    assert words in result.error["message"]
    assert store_state() == before


def test_a_failed_extraction_keeps_the_archive(ov, ov_home, monkeypatch):
    assert ov("session", "add", "s", "--text", "I prefer tabs.").exit_code == 0

    def broken(*args, **kwargs):
        raise RuntimeError("extractor exploded")

    with monkeypatch.context() as patch:
        patch.setattr("ov.memory.extract.extract_explicit", broken)
        report = ov("commit", "s", "--json").json["result"]
    assert report["status"] == "committed" and "extractor exploded" in report["failed"]
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert (archive / "messages.jsonl").exists() and not (archive / ".done").exists()
    assert json.loads((archive / ".failed.json").read_text())["stage"] == "memory_extraction"
