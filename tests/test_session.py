"""Sessions: capture, de-duplication, append-only growth, commit into archives and memories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from dulwich.repo import Repo

from tests.conftest import STORE_DAY

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
    listed = ov("session", "list", "--json").json["result"]["sessions"]
    assert [row["session"] for row in listed] == ["s1"]
    lines = (session_dir(ov_home, "s1") / "messages.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["id"] for line in lines)


def test_session_list_shows_the_most_recently_active_and_says_how_many_more(ov):
    # An audit (scale, finding 7): a year of use printed 1,500 sessions (118 KB) every time.
    for i in range(4):
        assert ov("session", "add", f"s{i}", "--text", f"topic {i}").exit_code == 0
    every = ov("session", "list", "--json", "--all").json["result"]
    assert every["total"] == 4 and len(every["sessions"]) == 4
    first = ov("session", "list", "-n", "2", "--json").json["result"]
    assert first == {"sessions": every["sessions"][:2], "total": 4}
    shown = ov("session", "list", "--limit", "2")
    assert shown.stdout.splitlines() == ov("session", "list").stdout.splitlines()[:2]
    assert "2 more sessions not listed" in shown.stderr and "`ov session list --all`" in shown.stderr
    assert ov("session", "list", "--limit", "0", "--json").json["result"] == every
    assert "more session" not in ov("session", "list").stderr  # 4 of the 50 listed by default


def test_another_local_user_cannot_read_a_transcript(ov, monkeypatch, umask_022, other_user):
    """Under the usual umask a transcript is 0644, like any file: the home ov makes 0700 is what
    keeps other users out. (pytest's own temporary folders are 0700 already, which would keep
    them out of anything: the home is put in a folder anyone may enter.)"""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="ov-perms-"))
    try:
        os.chmod(base, 0o755)
        home = base / "ovhome"
        monkeypatch.setenv("OV_HOME", str(home))
        assert ov("session", "add", "s1", "--text", "We deploy on Tuesdays.").exit_code == 0
        transcript = session_dir(home, "s1") / "messages.jsonl"
        assert "Tuesdays" in transcript.read_text()
        assert os.stat(home).st_mode & 0o777 == 0o700

        def read_by_other() -> subprocess.CompletedProcess:
            return subprocess.run([*other_user, "cat", str(transcript)], capture_output=True, check=False)

        refused = read_by_other()
        assert refused.returncode != 0 and b"Permission denied" in refused.stderr
        for folder in (home, home / "accounts", home / "accounts/default"):  # as ov made them before: the same file is theirs to read
            os.chmod(folder, 0o755)
        assert b"Tuesdays" in read_by_other().stdout
    finally:
        shutil.rmtree(base)


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
    # (found by an audit: `[]` said "0 message(s) already there" of a session that did not exist)
    (["session", "add-messages", "s9", "[]"], None, "no messages given"),
    (["session", "add-messages", "s9"], "[]\n", "no messages given"),
    (["session", "add-messages", "s9", "-"], "\n\n", "no messages given"),
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
    beyond = ov("commit", "s", "--keep", "9", "--json").json["result"]  # more than there are: all kept
    assert beyond["status"] == "skipped" and beyond["kept"] == 5
    report = ov("commit", "s", "--keep", "2", "--json").json["result"]
    assert report["status"] == "committed" and report["archived"] == 3 and report["kept"] == 2
    pending = ov("session", "show", "s", "--json").json["result"]["meta"]["pending_tokens"]
    assert 0 < pending < 10  # the two kept messages' tokens, not the five's
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert len((archive / "messages.jsonl").read_text().splitlines()) == 3
    assert len((session_dir(ov_home, "s") / "messages.jsonl").read_text().splitlines()) == 2
    for name in (".overview.md", ".abstract.md", "memory_diff.json", ".done"):
        assert (archive / name).exists(), name
    assert json.loads((archive / "memory_diff.json").read_text())["summary"] == {"total_adds": 0, "total_updates": 0, "total_deletes": 0}
    second = ov("session", "commit", "s", "--json").json["result"]
    assert second["archive"].endswith("archive_002") and second["archived"] == 2
    assert ov("commit", "s", "--json").json["result"]["status"] == "skipped"
    # Named, nothing to archive is a success; bare, no session to commit is not (docs/sessions.md).
    assert ov("commit", "s").exit_code == 0
    bare = ov("commit", "--json")
    assert bare.exit_code == 1 and bare.error["message"] == "no session has messages to commit"
    meta = ov("session", "show", "s", "--json").json["result"]["meta"]
    assert meta["commit_count"] == 2 and meta["message_count"] == 0
    tree = ov("tree", "viking://~/sessions").stdout
    assert "archive_001/" in tree and "archive_002/" in tree


def test_a_bare_commit_leaves_an_agents_live_session_alone(ov, ov_home):
    """`ov commit` with no id commits the most recently active session, which used to be an agent's
    session its host was still capturing rather than the one the user had just added to."""
    from ov.config import Config
    from ov.home import Home
    from ov.hosts.capture import live_dir, mark_live
    from ov.identity import Identity
    from ov.store.store import Store

    assert ov("session", "add", "mine", "--role", "user", "--text", "The deploy key lives in the vault.").exit_code == 0
    assert ov("session", "add", "agents", "--role", "user", "--text", "Run the tests.").exit_code == 0
    store = Store(Home(ov_home), Identity(), Config())
    mark_live(store, "agents", "claude")
    report = ov("commit", "--json").json["result"]
    assert report["session"] == "mine" and report["uri"].endswith("/sessions/mine") and report["status"] == "committed"
    refused = ov("commit")
    assert refused.exit_code != 0 and "still being captured by an agent's host (agents)" in refused.stderr
    assert "ov commit agents" in refused.stderr
    assert ov("commit", "agents", "--json").json["result"]["status"] == "committed"  # named: committed
    assert not (live_dir(store) / "agents").exists()  # committed whole: no sweep is owed it
    # A mark older than the orphan sweep's idle time is a session no host will end: committed bare.
    assert ov("session", "add", "agents", "--role", "user", "--text", "And the linter.").exit_code == 0
    mark_live(store, "agents", "claude")  # as the host's next capture marks it
    old = time.time() - Config().hooks.orphan_after - 60
    os.utime(live_dir(store) / "agents", (old, old))
    assert ov("commit", "--json").json["result"]["session"] == "agents"


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


def test_an_archive_overview_holds_no_control_character(ov, ov_home):
    # A NUL in a message made the archive's overview and abstract binary data: unreadable from then on.
    message = json.dumps({"id": "n1", "role": "user", "content": "Fix the lo\u0000gin test\u0007 in src/auth.py\r\nplease."})
    assert ov("session", "add-messages", "s", stdin=message).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    overview = ov("overview", "viking://~/sessions/s/history/archive_001")
    abstract = ov("abstract", "viking://~/sessions/s/history/archive_001")
    assert overview.exit_code == 0 and overview.stdout.startswith("# Fix the login test in src/auth.py")
    assert abstract.exit_code == 0 and "Fix the login test" in abstract.stdout
    for name in (".overview.md", ".abstract.md"):
        data = next(ov_home.rglob(f"archive_001/{name}")).read_bytes()
        assert not [c for c in data.decode("utf-8") if ord(c) < 0x20 and c not in "\t\n"], name


def test_an_archive_overview_holds_no_terminal_escape_nor_what_one_left(ov, ov_home):
    # A coloured tool output pasted in: the sequences went, their ESC only, leaving `[1;31m` in the summary.
    text = "\x1b[1;31mBuild failed\x1b[0m in src/app.py\x1b]0;term title\x07 (see [1] and [the docs](https://x.example/d)); [32mok[0m\x85done\x9b"
    assert ov("session", "add-messages", "s", stdin=json.dumps({"id": "t1", "role": "user", "content": text})).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    overview = next(ov_home.rglob("archive_001/.overview.md")).read_text(encoding="utf-8")
    assert "Build failed in src/app.py (see [1] and [the docs](https://x.example/d)); ok done" in overview
    assert not [c for c in overview if ord(c) < 0x20 and c not in "\t\n" or 0x7F <= ord(c) < 0xA0]
    assert "[0m" not in overview and "31m" not in overview and "title" not in overview


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ("\x1b[1;31mError\x1b[0m: x", "Error: x"),
        ("[1;31mError[0m: x [32mok[0m", "Error: x ok"),  # an ESC dropped before ov saw the text
        ("ls\x1b[K \x1b(B\x1b[mplain \x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\ \x9b31mred\x9b0m", "ls plain link red"),
        ("a\x85b\x80c\x9fd", "a bcd"),
        # Text that only looks like a remnant stays: brackets closed, Markdown links, indices, spaced codes.
        ("see [1], [0m](https://x.example), a[m:n], arr[m + 1], [10m] and [5m] alone", "see [1], [0m](https://x.example), a[m:n], arr[m + 1], [10m] and [5m] alone"),
        # A `[m` or a single code that no colour sequence left: a word, a list, an index, a wrapped link.
        ("The staging hosts are [mysql-1, redis-2", "The staging hosts are [mysql-1, redis-2"),
        ("notes [mostly old", "notes [mostly old"),
        ("matrix A[1m", "matrix A[1m"),
        ("see [more\ninfo](https://x.example) and [5m, 10m", "see [more\ninfo](https://x.example) and [5m, 10m"),
        ("Error[m and [mok", "Error[m and [mok"),
        # What one did leave, glued to text: a reset, a list of codes, a code opening its text.
        ("Build[0m ok [32mpassed[0m, [1;4mBold[0m[33m[1mwarn", "Build ok passed, Boldwarn"),
    ],
)
def test_generated_text_loses_terminal_escapes_and_c1_controls(text: str, clean: str):
    from ov.files import clean_generated_text

    assert clean_generated_text(text) == clean


def _msg(role: str, text: str, when: str = "2026-11-30T09:00:00Z") -> dict:
    return {"role": role, "created_at": when, "parts": [{"type": "text", "text": text}]}


# The words every archive overview holds, whatever was said: its headings, "- none", the brief's frame.
WORKING_MEMORY_WORDS = re.compile(
    r"Current State|Task|Goals|Key Facts|Decisions|Files|Errors|Corrections|Open Issues|^- none$|\bmessages\b"
    r"|The user asked|\bSession\b",
    re.MULTILINE,
)


def test_an_archive_overview_is_shown_without_what_its_brief_repeats():
    from ov.sessions.overview import NONE, shown, working_memory

    said = [
        _msg("user", "Fix the flaky login test in src/auth/login.py. It fails on CI."),
        _msg("assistant", "It crashed with a KeyError on the token. We decided to mock the clock."),
        _msg("user", "Does the parser still accept tabs?", when="2026-12-01T10:00:00Z"),
    ]
    overview = working_memory(said, "s-1")
    assert overview.count("Fix the flaky login test in src/auth/login.py.") == 3  # title, brief, Task & Goals
    text = shown(overview)
    assert text.count("Fix the flaky login test in src/auth/login.py.") == 1
    assert text.startswith("3 messages (2026-11-30 to 2026-12-01). The user asked: Fix the flaky login test")
    # The rest stays as written: the other goal, the decision, the empty sections.
    assert "## Task & Goals\n- Does the parser still accept tabs?" in text and "We decided to mock the clock." in text
    assert "## Files & Context\n- src/auth/login.py" in text and "## Errors & Corrections" in text
    only = shown(working_memory([_msg("user", "Rotate the staging keys."), _msg("assistant", "Done.")], "s-2"))
    assert "## Task & Goals" not in only and only.count("Rotate the staging keys.") == 1
    # An empty section says nothing to an agent: left out, not shown as "- none" (which read as a fact).
    assert "## Key Facts & Decisions" not in only and NONE not in only and only.endswith("## Current State\n- Done.")
    # A title the brief does not hold (an archive without a user message), or a rewritten overview: as written.
    untitled = working_memory([_msg("assistant", "Rebuilt the wheel cache.")], "cc-42")
    assert shown(untitled) == untitled
    assert shown("# Notes\n\nRotate the keys.\n\n- Rotate the keys.") == "# Notes\n\nRotate the keys.\n\n- Rotate the keys."


def test_the_index_reads_an_archive_overview_without_the_words_every_archive_overview_shares():
    from ov.sessions.overview import searchable, working_memory
    from ov.summaries.layers import derive_abstract

    said = [
        _msg("user", "Fix the flaky login test in src/auth/login.py."),
        _msg("assistant", "It crashed with a KeyError on the token. We decided to mock the clock."),
        _msg("user", "Does the parser still accept tabs?", when="2026-12-01T10:00:00Z"),
    ]
    overview = working_memory(said, "s-1")
    for written in ("## Current State", "## Open Issues", "3 messages (2026-11-30 to 2026-12-01). The user asked: Fix"):
        assert written in overview
    own = searchable(overview)
    assert not WORKING_MEMORY_WORDS.search(own), own
    # What was said stays: the title, the request, the decision, the error, the file, the question.
    for kept in ("# Fix the flaky login test", "src/auth/login.py", "We decided to mock the clock.", "KeyError", "- Does the parser still accept tabs?"):
        assert kept in own
    # The brief keeps its dates (a question may name when) and what the user asked.
    assert own.splitlines()[2] == "2026-11-30 2026-12-01 Fix the flaky login test in src/auth/login.py."
    assert searchable(derive_abstract(overview)) == "2026-11-30 2026-12-01 Fix the flaky login test in src/auth/login.py."
    # An archive without a user message is titled by its session id: the id stays, "Session" goes.
    untitled = working_memory([_msg("assistant", "Rebuilt the wheel cache.")], "cc-42")
    assert untitled.startswith("# Session cc-42\n\n1 messages (2026-11-30).\n")
    assert searchable(untitled) == "# cc-42\n\n2026-11-30\n\n- Rebuilt the wheel cache."
    assert searchable(derive_abstract(untitled)) == "2026-11-30"


def _section(overview: str, heading: str) -> list[str]:
    return overview.split(f"## {heading}\n", 1)[1].split("\n\n", 1)[0].splitlines()


@pytest.mark.parametrize(
    "last, state",
    [
        # the user's word on how it went outranks what the assistant meant to do before it
        ("That fixed it, tests pass now.", ["- That fixed it, tests pass now."]),
        ("Hmm, that worked on my machine yesterday, now CI is red.", ["- Hmm, that worked on my machine yesterday, now CI is red."]),
        ("The tests passed before your edit. Revert it.", ["- The tests passed before your edit. Revert it."]),
        # no word on how it went: the assistant's last sentence stays the state
        ("Thanks.", ["- I'll look at the auth module."]),
        ("Did that fix it?", ["- I'll look at the auth module."]),
    ],
)
def test_an_archive_overview_states_the_users_last_word_on_how_it_went(last, state):
    from ov.sessions.overview import CURRENT_STATE, working_memory

    said = [_msg("user", "Let's fix the failing test in tests/test_auth.py."), _msg("assistant", "I'll look at the auth module."), _msg("user", last)]
    assert _section(working_memory(said, "s"), CURRENT_STATE) == state


def test_an_archive_overview_takes_lets_for_a_goal_and_a_paste_for_no_goal():
    from ov.sessions.overview import FACTS, TASK, working_memory

    said = [
        _msg("user", "Let's fix the failing test. Here's the output:\n```\nE   AssertionError: token expired\n```"),
        _msg("assistant", "Let's use a frozen clock. I'll look at the auth module."),
        _msg("user", "Traceback (most recent call last):\n  File \"auth.py\", line 3, in login\nKeyError: 'token'"),
        _msg("user", "def login(user):\n    return issue(user);\n}"),
        _msg("user", "2026-11-30 12:00:01 ERROR worker died\nAlso keep the old API working."),
        _msg("user", "Error handling is slow in the worker."),
    ]
    overview = working_memory(said, "s")
    # what the user wrote is a goal, what they pasted (a traceback, code, a log line) is not
    assert _section(overview, TASK) == [
        "- Let's fix the failing test.", "- Also keep the old API working.", "- Error handling is slow in the worker.",
    ]
    # "let's" with a choice after it is a decision; "let's fix ..." is the goal; the agent's "I'll
    # look at ..." beside it is its promise, no decision
    assert _section(overview, FACTS) == ["- Let's use a frozen clock."]


def test_an_archive_overview_someone_rewrote_keeps_its_words():
    from ov.sessions.overview import searchable, working_memory

    overview = working_memory([_msg("user", "Plan the release.")], "s")
    rewritten = overview.replace("## Open Issues", "## Notes\n\nThe current state is fine.\n\n## Open Issues")
    assert searchable(rewritten) == rewritten
    assert searchable("Open issues: none. The user asked me to wait.") == "Open issues: none. The user asked me to wait."


def test_an_archive_whose_items_run_over_several_lines_loses_its_template_words_too():
    """A question with a pasted log in Open Issues runs over several lines (one a "# ..." line of the
    log): the overview was taken for a rewrite, and every template word was indexed again."""
    from ov.sessions.overview import searchable, working_memory

    question = "The deploy failed:\n# step 3\nERROR: exit 1\nWhat is wrong with it?"
    searched = searchable(working_memory([_msg("user", question), _msg("assistant", "Looking.")], "s"))
    assert "Open Issues" not in searched and "Current State" not in searched and "- none" not in searched
    assert "ERROR: exit 1" in searched and "What is wrong with it?" in searched


def test_a_long_message_without_a_sentence_end_commits(ov, ov_home):
    """A pasted log with no sentence end: finding the first sentence by a lazy pattern searched
    from every position took 20-30 s for 30 KB (minutes for more), so `ov commit` and the hooks'
    end-of-session job never finished. The scan is one pass now; this would not end without it."""
    pasted = "worker-3 processed job 1234 in 12 ms, " * 5000  # 190 KB, no ". "
    assert ov("session", "add", "s", "--text", pasted).exit_code == 0
    assert ov("session", "add", "s", "--role", "assistant", "--text", "Looked at it. The worker is fine.").exit_code == 0
    started = time.process_time()
    assert ov("commit", "s").exit_code == 0
    # A bound only the old scan reaches (CPU minutes; a second or so now): it fails a hang, not a slow machine.
    assert time.process_time() - started < 60, "the commit did not end in reasonable time"
    overview = ov("overview", "viking://~/sessions/s/history/archive_001").stdout
    # the title is cut on a word, and says so
    assert overview.startswith("# worker-3 processed job 1234 in 12 ms, worker-3 processed job 1234 in 12 ms...\n")
    assert "- Looked at it." in overview  # the assistant's first sentence, cut at its end


def test_an_overview_title_is_not_cut_after_an_abbreviation():
    from ov.sessions.overview import working_memory

    overview = working_memory([_msg("user", "Ask Dr. Smith about config.py, e.g. the v1.2 keys. Then fix it."), _msg("assistant", "Ok.")], "s")
    assert overview.startswith("# Ask Dr. Smith about config.py, e.g. the v1.2 keys.\n")


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
    assert sorted(p.name for p in history.iterdir()) == [".archived_ids.jsonl", "archive_001"]
    assert len((history / "archive_001/messages.jsonl").read_text().splitlines()) == 4
    [record] = [json.loads(line) for line in (history / ".archived_ids.jsonl").read_text().splitlines()]
    assert record["archive"] == "archive_001" and len(record["ids"]) == 4


def test_delete_session(ov, ov_home):
    assert ov("session", "add", "gone", "--text", "x").exit_code == 0
    assert ov("session", "delete", "gone").exit_code == 0
    assert not session_dir(ov_home, "gone").exists()
    assert ov("session", "list", "--json").json["result"]["sessions"] == []


def _break(ov, ov_home: Path, sid: str, name: str, text: str) -> None:
    """Damage a session's record the way a hand edit, a merge or an older ov's `ov mv` could."""
    (session_dir(ov_home, sid) / name).write_text(text)
    assert ov("snapshot", "commit", "-m", f"hand edit of {name}").exit_code == 0


@pytest.mark.parametrize(
    "meta, problem",
    [
        ("[1,2", "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"message_count": "three"}', "message_count is not a count"),
        ('{"live_ids": 5}', "live_ids is not a list of message ids"),
        ('{"archived_ids": [{"id": "a"}]}', "archived_ids is not a list of message ids"),
        ('{"updated_at": 5}', "updated_at is not a time"),
        ('{"llm_token_usage": {"prompt": "x"}}', "llm_token_usage is not an object of counts"),
        ('{"used": [{"uri": "viking://resources/a"}]}', "used is not a list of {uri, count} entries"),
        ('{"peer": "../x"}', "peer is not a peer id"),
    ],
)
def test_a_damaged_meta_is_a_clear_error_naming_the_file_and_changes_nothing(ov, ov_home, store_state, meta, problem):
    # (found by an audit: `ov commit` and `ov session add` failed with "internal error: JSONDecodeError")
    assert ov("session", "add", "s", "--text", "hello there.").exit_code == 0
    _break(ov, ov_home, "s", ".meta.json", meta)
    before = store_state()
    uri = "viking://user/default/sessions/s/.meta.json"
    for argv in (["commit", "s"], ["session", "add", "s", "--text", "more"], ["session", "show", "s"], ["session", "used", "s", "viking://resources/a"]):
        result = ov(*argv, "--json")
        assert result.exit_code == 1 and result.error["code"] == "record_damaged", (argv, result.stderr)
        assert result.error["message"].startswith(f"{uri} is damaged: {problem}"), result.error["message"]
        hint = result.error["hint"]
        assert f"ov snapshot restore REV --uri {uri}" in hint and "ov session delete s" in hint and "ov snapshot commit" in hint
    assert store_state() == before
    listed = ov("session", "list", "--json").json["result"]["sessions"]
    assert [(row["session"], row["damaged"].startswith(problem)) for row in listed] == [("s", True)]
    assert "s  damaged .meta.json: " + problem in ov("session", "list").stdout
    # The first way out the hint gives: the version before the hand edit.
    assert ov("snapshot", "restore", "HEAD~1", "--uri", uri).exit_code == 0
    assert ov("commit", "s", "--json").json["result"]["archived"] == 1
    assert ov("session", "list", "--json").json["result"]["sessions"][0]["damaged"] is None


def test_a_damaged_session_can_be_deleted(ov, ov_home):
    assert ov("session", "add", "s", "--text", "hello").exit_code == 0
    _break(ov, ov_home, "s", ".meta.json", "{")
    assert ov("session", "delete", "s").exit_code == 0
    assert ov("session", "list", "--json").json["result"]["sessions"] == []


def test_lines_of_messages_jsonl_in_other_shapes_are_read_without_a_crash(ov, ov_home):
    assert ov("session", "add", "s", "--text", "We decided to ship on Friday.", "--id", "m1").exit_code == 0
    odd = [
        {"role": "user", "text": "no id, no time, no parts"},
        {"id": "m2", "role": "user", "parts": "not a list", "created_at": 5},
        {"id": "m3", "role": "assistant", "parts": [1, {"type": "text"}, {"type": "context", "uri": 5}, {"type": "tool", "tool_id": [1], "tool_name": "x"}]},
    ]
    path = session_dir(ov_home, "s") / "messages.jsonl"
    path.write_text(path.read_text() + "".join(json.dumps(line) + "\n" for line in odd))
    assert ov("snapshot", "commit", "-m", "hand edit").exit_code == 0
    shown = ov("session", "show", "s")
    assert shown.exit_code == 0 and "[None] user: " in shown.stdout
    tool_result = json.dumps([{"type": "tool", "tool_name": "unknown", "tool_id": "t1", "tool_status": "completed"}])
    assert ov("session", "add", "s", "--role", "tool", "--parts", tool_result).exit_code == 0  # looks for the call's name
    report = ov("commit", "s", "--json")
    assert report.exit_code == 0, report.stderr
    assert report.json["result"]["archived"] == 5
    overview = (session_dir(ov_home, "s") / "history/archive_001/.overview.md").read_text()
    assert "5 messages (" in overview and "ship on Friday" in overview


def test_session_list_and_commit_agree_on_what_a_session_is(ov, ov_home):
    """A folder moved into sessions/ was listed as a session that `ov commit` said did not exist."""
    assert ov("write", "viking://resources/x/a.md", "--content", "hello").exit_code == 0
    assert ov("mv", "viking://resources/x", "viking://~/sessions/x").exit_code == 0  # it holds no session record
    assert ov("session", "list", "--json").json["result"]["sessions"] == []
    for argv in (["commit", "x"], ["session", "show", "x"], ["session", "delete", "x"]):
        result = ov(*argv, "--json")
        assert result.exit_code == 1 and result.error["code"] == "not_found", argv
    made = ov("session", "new", "--id", "x", "--json")
    assert made.exit_code == 1 and made.error["code"] == "already_exists"
    assert made.error["message"] == "viking://user/default/sessions/x already exists and is not a session (it has no .meta.json)"
    # `session add` creates the session where there was none, and then every command knows it.
    assert ov("session", "add", "x", "--text", "hello there.").exit_code == 0
    assert [row["session"] for row in ov("session", "list", "--json").json["result"]["sessions"]] == ["x"]
    assert ov("commit", "x", "--json").json["result"]["archived"] == 1
    # A session is named by its folder, as `ov commit` takes it, whatever its meta says.
    (session_dir(ov_home, "x") / ".meta.json").write_text(json.dumps({"session_id": "other"}))
    assert ov("snapshot", "commit", "-m", "hand edit").exit_code == 0
    assert [row["session"] for row in ov("session", "list", "--json").json["result"]["sessions"]] == ["x"]
    assert ov("session", "show", "x", "--json").json["result"]["session"] == "x"


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


def test_a_pin_said_in_a_session_is_kept_out_of_its_archive_and_a_pins_number_stays(ov, ov_home):
    # (memories refused "my PIN is 4921", but the archive's messages and .overview.md kept it)
    said = "The PIN for the door is 5832, PIN: 6743 and my PIN is 4921, while PIN 3 on the GPIO header is ground and pin 7654 is reserved."
    assert ov("session", "add", "s", "--text", said).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    archive = session_dir(ov_home, "s") / "history/archive_001"
    for name in ("messages.jsonl", ".overview.md"):
        text = (archive / name).read_text()
        assert not re.search("4921|5832|6743", text) and "PIN for the door is [REDACTED:pin], PIN: [REDACTED:pin] and my PIN is [REDACTED:pin]" in text, name
        assert "PIN 3 on the GPIO header" in text and "pin 7654 is reserved" in text, name
    assert "4921" not in "".join(p.read_text() for p in (ov_home / "accounts/default/user").rglob("*.md"))


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


def test_forget_names_the_session_archive_that_still_holds_the_words(ov):
    # (found by an audit: after `ov forget`, the fact was still injected from its archived session)
    assert ov("session", "add", "s1", "--text", "I prefer tabs over spaces.").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    archive = "viking://user/default/sessions/s1/history/archive_001"
    said = ov("forget", "viking://~/memories/preferences/default/tabs.md")
    assert said.exit_code == 0 and said.stdout.startswith("forgot viking://user/default/memories/preferences/default/tabs.md (commit ")
    assert f"still holds what was said, and is searched and recalled: {archive}" in said.stderr
    assert f"`ov rm -r {archive}`" in said.stderr
    # what the hint says works: the words go too
    assert ov("rm", "-r", archive).exit_code == 0
    assert ov("find", "tabs or spaces", "--json").json["result"]["total"] == 0
    # a memory from `ov remember` has no archive to name
    assert ov("remember", "I prefer dark mode").exit_code == 0
    plain_forget = ov("forget", "viking://~/memories/preferences/default/dark_mode.md", "--json")
    assert plain_forget.json["result"]["sources"] == [] and plain_forget.stderr == ""


def test_forget_of_one_line_names_only_the_archives_that_said_it(ov):
    # (scale audit #4: profile.md names every session that added a line of it, and forgetting
    # "Editor: vim" from `ov remember` told the user to `ov rm -r` a conversation about Acme)
    profile = "viking://~/memories/profile.md"
    archive = "viking://user/default/sessions/{}/history/archive_001"
    for session, text in (("s1", "I work at Acme Corp on the payments team"), ("s2", "My editor is Neovim"), ("s3", "Remember that we deploy with helm")):
        assert ov("session", "add", session, "--text", text).exit_code == 0
        assert ov("commit", session).exit_code == 0
    assert ov("remember", "I live in Lisbon").exit_code == 0
    listed = ov("read", profile).stdout
    assert all(line in listed for line in ("- Works at Acme Corp", "- Editor: Neovim", "- Team deploys with helm", "- Lives in Lisbon"))

    editor = ov("forget", profile, "--match", "Neovim", "--json").json["result"]
    assert editor["sources"] == [archive.format("s2")]
    team = ov("forget", profile, "--match", "helm")  # "deploys" is said as "deploy"
    assert archive.format("s3") in team.stderr and "s1/" not in team.stderr and "s2/" not in team.stderr
    assert f"`ov rm -r {archive.format('s3')}`" in team.stderr
    # a line from `ov remember`: no archive said it, so none is named and nothing is to be removed
    lisbon = ov("forget", profile, "--match", "Lisbon", "--json")
    assert lisbon.json["result"]["sources"] == [] and lisbon.stderr == ""
    # the whole file: every archive it was learnt from
    whole = ov("forget", profile, "--json").json["result"]
    assert whole["sources"] == [archive.format("s1"), archive.format("s2"), archive.format("s3")]


def test_an_archive_that_added_a_line_in_other_words_still_holds_it(ov, ov_home):
    # the memory diff says which archive added the line, whatever words the conversation used
    assert ov("session", "add", "s1", "--text", "I prefer tabs over spaces.").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    messages = session_dir(ov_home, "s1") / "history/archive_001/messages.jsonl"
    messages.write_text(messages.read_text().replace("tabs over spaces", "the other one"))
    result = ov("forget", "viking://~/memories/preferences/default/tabs.md", "--match", "tabs", "--json").json["result"]
    assert result["sources"] == ["viking://user/default/sessions/s1/history/archive_001"]


@pytest.mark.parametrize("line, words", [
    ("- Editor: vim", ["vim"]),
    ("- Works at Acme Corp on the payments team", ["acme", "corp", "payments"]),
    ("- Team no longer deploys with helm", ["deploys", "helm"]),
    ("- Prefers unittest as their test runner", ["unittest", "test", "runner"]),
    ("- Is on it", []),
])
def test_the_words_a_conversation_that_said_a_line_holds(line, words):
    from ov.sessions.line_sources import line_words

    assert line_words(line) == words


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "America/Los_Angeles", "Pacific/Kiritimati", "Etc/GMT+12"])
def test_relative_days_are_the_users_days(ov, zone, time_zone, store_day):
    # (found by an audit: "tomorrow" was the day after the UTC date, so in Tokyo in the morning it
    # named the user's today, and the event was filed under the UTC day)
    time_zone(zone)
    local = store_day.astimezone()  # noon UTC: the next day in Kiritimati, the same day at GMT-12
    result = ov("remember", "Remember that the release is tomorrow", "--json")
    assert result.json["result"]["uris"] == [f"viking://user/default/memories/events/{local:%Y/%m/%d}/release.md"]
    tomorrow = (local + timedelta(days=1)).strftime("%Y-%m-%d")
    assert ov("read", result.json["result"]["uris"][0]).stdout.startswith(f"- The release is tomorrow ({tomorrow})\n")


def test_every_date_a_session_and_its_memories_get_comes_from_one_clock(store_day, ov, ov_home):
    # (a test's expected day came from this machine's clock and the store's from its own: a run
    # crossing midnight failed) A message's time, a commit's and a remember's memories are all
    # dated by the store's clock, which the store_day fixture pins to another day than today's.
    day = f"{store_day:%Y-%m-%d}"
    assert ov("session", "add", "s1", "--text", "I prefer small pull requests.").exit_code == 0
    said = json.loads((session_dir(ov_home, "s1") / "messages.jsonl").read_text().splitlines()[0])
    assert said["created_at"].startswith(day)
    assert ov("commit", "s1").exit_code == 0
    assert ov("remember", "Remember that the release is tomorrow").exit_code == 0
    memories = ov("ls", "-r", "viking://user/default/memories", "--json").json["result"]
    stats = [ov("stat", m["uri"], "--json").json["result"] for m in memories if m["uri"].endswith(".md")]
    assert len(stats) == 2 and all(s["created_at"].startswith(day) and s["updated_at"].startswith(day) for s in stats), stats
    assert any(f"/events/{store_day.astimezone():%Y/%m/%d}/" in m["uri"] for m in memories)


def test_a_notes_new_value_said_on_a_later_day_is_one_update_of_it(store_day, ov, ov_home, monkeypatch):
    # (a review: the note of the old value showed as deleted and the new one as added, two
    # memories in memory_diff.json for one whose value changed)
    from ov.sessions import clock

    assert ov("remember", "The team offsite is in Porto").exit_code == 0
    later = store_day + timedelta(days=2)
    monkeypatch.setattr(clock, "now", lambda: later)
    assert ov("session", "add", "s1", "--text", "Remember that the team offsite is in Lisbon now.").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    root = "viking://user/default/memories/events"
    old, new = (f"{root}/{day.astimezone():%Y/%m/%d}/team_offsite.md" for day in (store_day, later))
    diff = json.loads((session_dir(ov_home, "s1") / "history" / "archive_001" / "memory_diff.json").read_text())
    assert diff["operations"] == {"adds": [], "deletes": [], "updates": [
        {"uri": new, "before_uri": old, "memory_type": "events", "before": "- The team offsite is in Porto",
         "after": "- The team offsite is in Lisbon"}]}
    assert ov("read", new).stdout.startswith("- The team offsite is in Lisbon\n")
    assert ov("read", old).exit_code != 0  # the note moved to the day its value changed, where the newest are looked for


def test_remember_prints_where_the_memory_went_and_its_commit_as_every_write_does(ov):
    """`ov remember` printed the URI alone, where write, add-resource and commit name the commit."""
    said = ov("remember", "I prefer dark mode in every editor")
    head = ov("snapshot", "log", "--json").json["result"][0]["commit"]
    assert said.stdout == f"remembered in viking://user/default/memories/preferences/default/dark_mode.md (commit {head[:10]})\n"
    assert ov("remember", "I prefer dark mode in every editor").stdout == "already remembered: nothing changed, no commit\n"


@pytest.mark.parametrize("memory_type, path", [
    ("events", f"events/{STORE_DAY.astimezone():%Y/%m/%d}/staging_db.md"),
    ("preferences", "preferences/default/staging_db.md"),
    ("profile", "profile.md"),
    ("entities", "entities/systems/staging_db.md"),
])
def test_remember_with_a_type_keeps_the_text_as_that_type(store_day, ov, memory_type, path):
    # The example docs/sessions.md gives: no rule reads the text as an event, so --type makes it one.
    result = ov("remember", "Our staging DB is read-only", "--type", memory_type, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["uris"] == [f"viking://user/default/memories/{path}"]
    said = "- Is read-only" if memory_type == "entities" else "- Our staging DB is read-only"  # an entity's card reads the fact
    assert said in ov("read", result.json["result"]["uris"][0]).stdout


def test_remember_with_a_type_that_needs_a_statement_is_refused(ov, store_state):
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("remember", "the weather was nice", "--type", "entities", "--json")
    assert result.exit_code == 2 and "could not turn" in result.error["message"]
    assert result.error["hint"].startswith('say it as a fact about a system or a team ("The billing service runs on Kubernetes"')
    assert store_state() == before
    # What the hint says is what the rules read as one.
    assert ov("remember", "The search cluster runs on three nodes", "--type", "entities").exit_code == 0


@pytest.mark.parametrize("memory_type", ["experiences", "trajectories"])
def test_remember_refuses_a_type_only_a_session_teaches(ov, store_state, memory_type):
    # (found by an audit: the MCP schema offered "experiences", which no text could become, and its
    # error said "say it as an explicit statement", which no rewording satisfies)
    assert ov("init").exit_code == 0
    before = store_state()
    for text in ("I fixed the flaky login test by seeding the RNG", "Situation: CI was red. Approach: pinned numpy. Reflect: that fixed it."):
        result = ov("remember", text, "--type", memory_type, "--json")
        assert result.exit_code == 2 and result.error["message"].startswith(f"ov learns memories of type {memory_type} from a session")
        assert "remember the lesson with no --type" in result.error["hint"] and "(--type events)" in result.error["hint"]
    assert store_state() == before
    # The two ways the hint gives work.
    assert ov("remember", "Remember that seeding the RNG fixes the flaky login test").exit_code == 0
    assert ov("remember", "I fixed the flaky login test by seeding the RNG", "--type", "events").exit_code == 0


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
        patch.setattr("ov.sessions.memory.extract.extract_explicit", broken)
        report = ov("commit", "s", "--json").json["result"]
    assert report["status"] == "committed" and "extractor exploded" in report["failed"]
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert (archive / "messages.jsonl").exists() and not (archive / ".done").exists()
    assert json.loads((archive / ".failed.json").read_text())["stage"] == "memory_extraction"
    assert ov("session", "show", "s", "--json").json["result"]["extraction_pending"] == ["archive_001"]
    assert "memory extraction failed for archive_001" in ov("session", "show", "s").stderr
    assert "memory extraction failed: 1 archive to extract again" in ov("session", "list").stdout


def test_a_memory_file_not_utf8_is_named_by_remember_commit_fsck_and_doctor(ov, ov_home):
    # (found by an audit: a profile saved in Latin-1 made `ov remember` an "internal error:
    # UnicodeDecodeError", each commit's .failed.json a bare UnicodeDecodeError naming no file,
    # and `ov fsck` and `ov doctor` said nothing of the file)
    assert ov("remember", "My editor is Vim").exit_code == 0
    profile = ov_home / "accounts/default/user/default/memories/profile.md"
    profile.write_bytes("- Editor: Vim\n- Lives in Malmö\n".encode("latin-1"))
    assert ov("snapshot", "commit", "-m", "edited my profile").exit_code == 0
    uri = "viking://user/default/memories/profile.md"
    refused = ov("remember", "My name is Ada", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "memory_not_text"
    assert refused.error["message"] == f"{uri} is not UTF-8 text (byte 29 is 0xf6): ov cannot merge memories into it"
    assert "iconv -f latin1 -t utf-8" in refused.error["hint"] and "ov snapshot commit" in refused.error["hint"]
    assert "internal error" not in ov("remember", "My name is Ada").stderr
    assert ov("session", "add", "s", "--text", "My name is Ada.").exit_code == 0
    report = ov("commit", "s", "--json").json["result"]
    assert report["failed"].startswith(f"MemoryNotText: {uri} is not UTF-8 text")
    failed = json.loads((session_dir(ov_home, "s") / "history/archive_001/.failed.json").read_text())
    assert uri in failed["error"]
    fsck = ov("fsck", "--json")
    assert fsck.exit_code == 1
    (problem,) = [f for f in fsck.json["result"]["findings"] if f["severity"] == "problem"]
    assert f"1 memory file not UTF-8 text ({uri})" in problem["message"] and "iconv" in problem["fix"]
    doctor = ov("doctor", "--json").json["result"]
    (check,) = [c for c in doctor["checks"] if c["name"] == "memory files"]
    assert check["status"] == "fail" and check["not_text"] == [uri] and uri in check["detail"]
    # Saved as UTF-8 again: the next commit extracts what waited, and every report is clean.
    profile.write_text("- Editor: Vim\n- Lives in Malmö\n", encoding="utf-8")
    assert ov("snapshot", "commit", "-m", "utf-8 again").exit_code == 0
    assert ov("commit", "s", "--json").json["result"]["failed"] is None
    assert ov("fsck").exit_code == 0 and not [c for c in ov("doctor", "--json").json["result"]["checks"] if c["name"] == "memory files"]



def test_fsck_names_lines_of_messages_jsonl_that_every_reader_skips(ov, ov_home):
    """A line that is not a JSON object is dropped by every reader: fsck passed the file."""
    assert ov("session", "add", "s", "--text", "We decided to ship on Friday.", "--id", "m1").exit_code == 0
    assert ov("fsck").exit_code == 0
    path = session_dir(ov_home, "s") / "messages.jsonl"
    kept = path.read_text()
    path.write_text(kept + '{"id": "m2", "role": "user", "parts": [\n' + "[1, 2]\n" + "\n")
    assert ov("snapshot", "commit", "-m", "hand edit").exit_code == 0
    assert [m["id"] for m in ov("session", "show", "s", "--json").json["result"]["messages"]] == ["m1"]
    fsck = ov("fsck", "--json")
    assert fsck.exit_code == 1
    (problem,) = [f for f in fsck.json["result"]["findings"] if f["severity"] == "problem"]
    assert "sessions/s/messages.jsonl" in problem["message"] and "2 lines" in problem["message"]
    path.write_text(kept + '{"id": "m2", "role": "user", "parts": [{"type": "text", "text": "Friday it is."}]}\n' + '{"unfinished": ')
    assert ov("snapshot", "commit", "-m", "fixed").exit_code == 0
    assert ov("fsck").exit_code == 0  # an unfinished last line is an append in progress

def _broken_extraction(patch):
    def broken(*args, **kwargs):
        raise RuntimeError("extractor exploded")

    patch.setattr("ov.sessions.memory.extract.extract_explicit", broken)


def _memory_files(ov_home) -> dict[str, str]:
    root = ov_home / "accounts/default/user/default/memories"
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.md"))} if root.is_dir() else {}


def test_the_next_commit_extracts_the_messages_whose_extraction_failed(ov, ov_home, monkeypatch):
    # (found by a review: a failed extraction archived the messages and nothing ever read them again)
    assert ov("session", "add", "s", "--text", "I prefer tabs.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        failed = ov("commit", "s")
        assert "extractor exploded" in failed.stderr and "the next commit of this session extracts these messages again" in failed.stderr
        assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
        report = ov("commit", "s", "--json").json["result"]  # failing again: both archives stay pending
    assert "extractor exploded" in report["failed"] and _memory_files(ov_home) == {}
    assert ov("session", "show", "s", "--json").json["result"]["extraction_pending"] == ["archive_001", "archive_002"]
    assert ov("session", "add", "s", "--text", "My shell is fish.").exit_code == 0
    report = ov("commit", "s", "--json").json["result"]
    history = session_dir(ov_home, "s") / "history"
    assert report["failed"] is None and report["archive"].endswith("archive_003") and report["archived"] == 1
    assert report["retried"] == [f"viking://user/default/sessions/s/history/archive_00{n}" for n in (1, 2)]
    files = _memory_files(ov_home)
    assert "Prefers tabs" in files["preferences/default/tabs.md"]
    assert "Editor: Vim" in files["profile.md"] and "Shell: fish" in files["profile.md"]
    for n in (1, 2):
        assert not (history / f"archive_00{n}/.failed.json").exists()
        assert json.loads((history / f"archive_00{n}/.done").read_text())["extracted_in"] == report["archive"]
    assert json.loads((history / "archive_003/.done").read_text())["messages"] == 3
    assert ov("session", "show", "s", "--json").json["result"]["extraction_pending"] == []
    assert ov("commit", "s", "--json").json["result"]["status"] == "skipped"  # nothing is extracted twice


def test_a_commit_with_no_new_message_extracts_what_failed(ov, ov_home, monkeypatch):
    assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert "extractor exploded" in ov("commit", "s", "--json").json["result"]["failed"]
    report = ov("commit", "s", "--json").json["result"]
    archive = session_dir(ov_home, "s") / "history/archive_001"
    assert report["status"] == "committed" and report["archived"] == 0 and report["archive"].endswith("archive_001")
    assert report["memories"]["adds"] == 1 and "Editor: Vim" in _memory_files(ov_home)["profile.md"]
    assert not (archive / ".failed.json").exists() and json.loads((archive / ".done").read_text())["messages"] == 1
    shown = ov("session", "show", "s", "--json").json["result"]
    assert shown["extraction_pending"] == [] and shown["commits"] == 1 and shown["total_messages"] == 1


def test_a_bare_commit_extracts_again_what_failed_when_no_session_has_messages(ov, ov_home, monkeypatch):
    # (found in use: a session left with only a pending extraction was never picked, "no session
    # has messages to commit", so a bare commit never retried it)
    assert ov("session", "add", "failed", "--text", "My editor is Vim.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert "extractor exploded" in ov("commit", "failed", "--json").json["result"]["failed"]
    assert ov("session", "add", "other", "--text", "My shell is fish.").exit_code == 0
    # live messages first: a session whose extraction keeps failing never stands in front of them
    first = ov("commit", "--json").json["result"]
    assert first["session"] == "other" and first["uri"].endswith("/sessions/other") and first["archived"] == 1
    report = ov("commit", "--json").json["result"]
    assert report["session"] == "failed" and report["failed"] is None
    assert report["retried"] == ["viking://user/default/sessions/failed/history/archive_001"]
    assert "Editor: Vim" in _memory_files(ov_home)["profile.md"]
    assert ov("session", "show", "failed", "--json").json["result"]["extraction_pending"] == []
    bare = ov("commit", "--json")
    assert bare.exit_code == 1 and bare.error["message"] == "no session has messages to commit"


def test_a_retry_that_fails_as_before_changes_nothing_and_says_only_that(ov, ov_home, monkeypatch, store_state):
    # (found by a review: each failed retry committed a restamped .failed.json, the hooks' job one
    # per session end, and the CLI first said it had extracted the memories)
    assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
    archive = session_dir(ov_home, "s") / "history/archive_001"
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert "extractor exploded" in ov("commit", "s", "--json").json["result"]["failed"]
        recorded, before = (archive / ".failed.json").read_text(), store_state()
        again = ov("commit", "s")
        report = ov("commit", "s", "--json").json["result"]
    assert again.exit_code == 0 and "extracted" not in again.stdout + again.stderr
    assert "failed again, as before (RuntimeError: extractor exploded): nothing changed" in again.stderr
    assert report["status"] == "skipped" and report["commit"] is None and "extractor exploded" in report["failed"]
    assert report["retried"] == ["viking://user/default/sessions/s/history/archive_001"]
    assert store_state() == before and (archive / ".failed.json").read_text() == recorded

    def broken_otherwise(*args, **kwargs):
        raise RuntimeError("extractor exploded differently")

    with monkeypatch.context() as patch:  # a new error is recorded: the commit says so, and only that
        patch.setattr("ov.sessions.memory.extract.extract_explicit", broken_otherwise)
        again = ov("commit", "s")
    assert again.exit_code == 0 and "extracted" not in again.stdout + again.stderr and store_state() != before
    assert "again failed (RuntimeError: extractor exploded differently): recorded in .failed.json" in again.stderr
    assert "differently" in json.loads((archive / ".failed.json").read_text())["error"]


def test_a_pending_archive_whose_messages_are_gone_is_no_longer_pending(ov, ov_home, monkeypatch):
    # (found by a review: it was skipped by every retry and kept pending, `ov session list` and
    # `ov doctor` warning for ever with a fix that did nothing)
    assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert ov("commit", "s").exit_code == 0
    assert ov("rm", "viking://user/default/sessions/s/history/archive_001/messages.jsonl").exit_code == 0
    assert "memory extraction failed" in json.dumps(ov("doctor", "--json").json["result"]["checks"])
    assert "memory extraction failed" in ov("session", "list").stdout
    dropped = ov("commit", "s")
    assert dropped.exit_code == 0 and "archive_001 is no longer waiting" in dropped.stderr and dropped.stdout.count("commit ") == 1
    assert ov("session", "show", "s", "--json").json["result"]["extraction_pending"] == []
    assert "memory extraction failed" not in ov("session", "list").stdout
    assert "memory extraction failed" not in json.dumps(ov("doctor", "--json").json["result"]["checks"])
    assert ov("commit", "s", "--json").json["result"]["status"] == "skipped"
    # With new messages, a pending archive that lost its messages is dropped in the same commit.
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert ov("session", "add", "s", "--text", "My shell is fish.").exit_code == 0
        assert ov("commit", "s").exit_code == 0
    assert ov("rm", "viking://user/default/sessions/s/history/archive_002/messages.jsonl").exit_code == 0
    assert ov("session", "add", "s", "--text", "I prefer tabs.").exit_code == 0
    report = ov("commit", "s", "--json").json["result"]
    assert report["dropped"] == ["archive_002"] and report["archived"] == 1 and report["failed"] is None
    assert ov("session", "show", "s", "--json").json["result"]["extraction_pending"] == []


def test_a_commit_that_changes_only_the_meta_names_the_session_as_every_session_commit_does(ov, ov_home, monkeypatch):
    # (found by a review: the commit that only takes a gone archive off the pending list named the
    # session's .meta.json in its subject and its Ov-Uri trailers, as if it were content)
    assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        assert ov("commit", "s").exit_code == 0
    assert ov("rm", "viking://user/default/sessions/s/history/archive_001/messages.jsonl").exit_code == 0
    report = ov("commit", "s", "--json").json["result"]
    assert report["dropped"] == ["archive_001"] and report["archive"] is None and report["commit"]
    from dulwich.diff_tree import tree_changes

    repo = Repo(str(ov_home / "accounts/default"))
    commit = repo[report["commit"].encode()]
    changed = {(change.new or change.old).path for change in tree_changes(repo.object_store, repo[commit.parents[0]].tree, commit.tree)}
    assert changed == {b"user/default/sessions/s/.meta.json"}  # only the meta changed ...
    session = "viking://user/default/sessions/s"
    lines = commit.message.decode().splitlines()
    assert lines[0] == f"ov commit {session}"  # ... and the message names the session, as `session add` does
    assert [line for line in lines if line.startswith("Ov-Uri:")] == [f"Ov-Uri: {session}"]


def test_a_value_said_in_a_failed_archive_never_overwrites_a_later_one(ov, ov_home, monkeypatch):
    assert ov("session", "add", "s", "--text", "My editor is Vim.").exit_code == 0
    with monkeypatch.context() as patch:
        _broken_extraction(patch)
        ov("commit", "s")
    assert ov("session", "add", "s", "--text", "Actually, my editor is Helix now.").exit_code == 0
    assert ov("commit", "s", "--json").json["result"]["failed"] is None
    profile = _memory_files(ov_home)["profile.md"]
    assert "Editor: Helix" in profile and "Vim" not in profile


@pytest.mark.parametrize("pending", [["../../../memories"], "archive_001", [7]])
def test_a_hand_broken_extraction_pending_list_is_a_damaged_record(ov, ov_home, pending):
    assert ov("session", "add", "s", "--text", "hello").exit_code == 0
    meta_path = session_dir(ov_home, "s") / ".meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "extraction_pending": pending}))
    result = ov("commit", "s", "--json")
    assert result.exit_code == 1 and "extraction_pending is not a list of archive names" in result.error["message"]


MEMORIES = "accounts/default/user/default/memories"
PROFILE = "viking://user/default/memories/profile.md"


def _hand_edited_commit(ov, ov_home, monkeypatch=None):
    """The audit's case: an uncommitted hand edit of profile.md, then a session whose memories
    go to profile.md and to two new files."""
    assert ov("remember", "My editor is Neovim").exit_code == 0
    with (ov_home / MEMORIES / "profile.md").open("a", encoding="utf-8") as f:
        f.write("- Hand fact: likes tea\n")  # appended below the MEMORY_FIELDS trailer, as `echo >>` does
    said = "I prefer dark mode. Remember that the billing service runs on port 8080. My editor is Helix now."
    assert ov("session", "add", "s1", "--text", said).exit_code == 0


def test_a_memory_file_whose_trailer_a_hand_broke_costs_the_session_nothing(ov, ov_home):
    # (found by a review: a hand edit that left the MEMORY_FIELDS trailer unclosed failed the whole
    # extraction, and every memory of the session was lost with it)
    assert ov("remember", "My editor is Neovim").exit_code == 0
    profile = ov_home / MEMORIES / "profile.md"
    broken = profile.read_text().replace("\n-->", "\n") + "- Hand fact: likes tea\n"
    profile.write_text(broken)
    assert ov("session", "add", "s1", "--text", "I prefer dark mode. My editor is Helix now.").exit_code == 0
    report = ov("commit", "s1", "--json").json["result"]
    assert report["status"] == "committed" and report["failed"] is None
    assert (ov_home / MEMORIES / "preferences/default/dark_mode.md").is_file()
    text = profile.read_text()
    assert "- Editor: Helix" in text and "- Hand fact: likes tea" in text
    assert text.count("<!-- MEMORY_FIELDS") == 1 and text.rstrip().endswith("-->")
    assert ov("read", PROFILE).exit_code == 0 and ov("status", "--json").json["result"]["clean"] is True


def test_a_hand_edited_memory_file_is_merged_into_and_committed_not_a_lost_session(ov, ov_home):
    # (found by an audit: the first hand-edited file failed the whole extraction, the session's
    # memories were never written, and the archived messages are never extracted again)
    _hand_edited_commit(ov, ov_home)
    report = ov("commit", "s1", "--json").json["result"]
    assert report["status"] == "committed" and report["failed"] is None
    assert report["memories"] == {"adds": 2, "updates": 1, "deletes": 0}
    assert report["hand_edits"] == [PROFILE]
    memories = ov_home / MEMORIES
    assert (memories / "preferences/default/dark_mode.md").is_file() and (memories / "entities/systems/billing_service.md").is_file()
    profile = (memories / "profile.md").read_text()
    visible = profile.split("<!-- MEMORY_FIELDS")[0]
    assert "- Editor: Helix" in visible and "- Hand fact: likes tea" in visible and "Neovim" not in profile
    assert profile.rstrip().endswith("-->")  # the hand's line moved above the trailer
    # The edit went into the session's commit: nothing is left uncommitted, nothing to redo.
    assert ov("status", "--json").json["result"]["clean"] is True
    done = json.loads((session_dir(ov_home, "s1") / "history/archive_001/.done").read_text())
    assert done["hand_edits"] == [PROFILE]
    shown = ov("snapshot", "show", "HEAD", "--uri", PROFILE, "--json").json["result"]["content"]
    assert "Hand fact: likes tea" in shown and "Editor: Helix" in shown


def test_the_commit_report_says_which_hand_edit_it_kept(ov, ov_home):
    _hand_edited_commit(ov, ov_home)
    out = ov("commit", "s1").stdout
    assert "memories: 2 added, 1 updated, 0 deleted" in out
    assert f"kept your hand edit of {PROFILE}" in out and "failed" not in out


def test_a_hand_edit_of_a_file_the_commit_does_not_write_stays_a_hand_edit(ov, ov_home):
    assert ov("remember", "I prefer tabs over spaces").exit_code == 0
    tabs = next((ov_home / MEMORIES / "preferences").rglob("*.md"))
    tabs.write_text(tabs.read_text().replace("- Prefers tabs", "- Prefers tabs, width 4"))
    assert ov("session", "add", "s1", "--text", "My shell is fish.").exit_code == 0
    report = ov("commit", "s1", "--json").json["result"]
    assert report["failed"] is None and report["hand_edits"] == [] and report["memories"]["adds"] == 1
    # Only what the commit wrote is committed: the user's own edit waits for them, as it was.
    status = ov("status", "--json").json["result"]
    assert status["modified"] == ["viking://" + tabs.relative_to(ov_home / "accounts/default").as_posix()]
    assert "width 4" in tabs.read_text()


def test_a_hand_edit_does_not_make_the_commit_extract_twice(ov, ov_home, monkeypatch):
    """The plan made without the lock stands (a model is not asked again under the lock) when the
    hand-edited file is unchanged since it was read."""
    from ov.sessions.memory import extract

    _hand_edited_commit(ov, ov_home)
    calls = []
    real = extract.extract_explicit
    monkeypatch.setattr(extract, "extract_explicit", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    assert ov("commit", "s1", "--json").json["result"]["hand_edits"] == [PROFILE]
    assert len(calls) == 1


def test_a_hand_edit_made_while_the_commit_planned_is_read_again_under_the_lock(ov, ov_home, monkeypatch):
    from ov.sessions.memory import plan

    _hand_edited_commit(ov, ov_home)
    calls = []
    real = plan.plan_memories

    def edited_once_read(*args, **kwargs):
        planned = real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 1:  # the user saves the file again after the draft read it
            with (ov_home / MEMORIES / "profile.md").open("a", encoding="utf-8") as f:
                f.write("- Second hand fact: likes biscuits\n")
        return planned

    monkeypatch.setattr(plan, "plan_memories", edited_once_read)
    assert ov("commit", "s1", "--json").json["result"]["hand_edits"] == [PROFILE]
    assert len(calls) == 2
    profile = (ov_home / MEMORIES / "profile.md").read_text()
    assert "likes tea" in profile and "likes biscuits" in profile and "Editor: Helix" in profile
    assert ov("status", "--json").json["result"]["clean"] is True


def test_a_session_commit_names_the_memory_files_it_changed(ov, ov_home):
    # (found by an audit: only the session and its archive were named)
    assert ov("session", "add", "s1", "--text", "My editor is Neovim. I prefer dark mode.").exit_code == 0
    report = ov("commit", "s1", "--json").json["result"]
    dark = "viking://user/default/memories/preferences/default/dark_mode.md"
    assert sorted(report["memory_uris"]) == [dark, PROFILE]
    entry = ov("snapshot", "log", "-n", "1", "--json").json["result"][0]
    assert entry["commit"] == report["commit"]
    assert entry["uris"][:2] == ["viking://user/default/sessions/s1", report["archive"]]
    assert sorted(entry["uris"][2:]) == [dark, PROFILE]
    found = ov("snapshot", "log", "--uri", "viking://~/memories", "--json").json["result"]
    assert found[0]["commit"] == report["commit"]


# --- message forms: Anthropic blocks, OpenAI chat -------------------------------------------


def stored(home: Path, sid: str = "s") -> list[dict]:
    text = (session_dir(home, sid) / "messages.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.split("\n") if line]  # not splitlines(): U+2028 is not a line end


def test_add_messages_accepts_anthropic_blocks(ov, ov_home):
    messages = [
        {"role": "user", "content": "Run the tests"},
        {"role": "user", "content": [{"type": "text", "text": "and look at this"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}]},
        {
            "role": "assistant",
            "id": "msg_01",
            "content": [
                {"type": "thinking", "thinking": "The user wants pytest.", "signature": "c2ln"},
                {"type": "text", "text": "Running them."},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "pytest -q"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "3 passed"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "no such file"}, {"type": "image", "source": {}}], "is_error": True},
            ],
        },
    ]
    result = ov("session", "add-messages", "s", json.dumps(messages), "--json")
    assert result.exit_code == 0, result.stderr
    one, two, three, four = stored(ov_home)
    assert (one["role"], one["parts"]) == ("user", [{"type": "text", "text": "Run the tests"}])
    assert two["parts"] == [{"type": "text", "text": "and look at this"}, {"type": "text", "text": "[image]"}]
    assert three["id"] == "msg_01" and three["parts"] == [
        {"type": "text", "text": "[thinking]"},
        {"type": "text", "text": "Running them."},
        {"type": "tool", "tool_name": "Bash", "tool_id": "toolu_1", "tool_input": {"command": "pytest -q"}, "tool_status": "pending"},
    ]
    # Tool results are tool output, not the user's words; the first one names its tool after the call.
    assert four["role"] == "tool" and four["parts"] == [
        {"type": "tool", "tool_name": "Bash", "tool_id": "toolu_1", "tool_output": "3 passed", "tool_status": "completed"},
        {"type": "tool", "tool_name": "unknown", "tool_id": "toolu_2", "tool_output": "no such file\n[image]", "tool_status": "error"},
    ]


def test_add_messages_accepts_openai_chat(ov, ov_home):
    messages = [
        {"role": "developer", "content": "Be brief."},
        {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}, {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                {"id": "call_2", "type": "function", "function": {"name": "get_time", "arguments": "{not json"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "18 C, sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": [{"type": "text", "text": "12:00"}]},
        {"role": "assistant", "content": "It is 18 C and sunny.", "refusal": None},
    ]
    result = ov("session", "add-messages", "s", json.dumps(messages))
    assert result.exit_code == 0, result.stderr
    lines = stored(ov_home)
    assert [m["role"] for m in lines] == ["system", "user", "assistant", "tool", "tool", "assistant"]
    assert lines[1]["parts"][1] == {"type": "text", "text": "[image]"}
    assert lines[2]["parts"] == [
        {"type": "tool", "tool_name": "get_weather", "tool_id": "call_1", "tool_input": {"city": "Paris"}, "tool_status": "pending"},
        {"type": "tool", "tool_name": "get_time", "tool_id": "call_2", "tool_input": "{not json", "tool_status": "pending"},
    ]
    assert lines[3]["parts"] == [{"type": "tool", "tool_name": "get_weather", "tool_id": "call_1", "tool_output": "18 C, sunny", "tool_status": "completed"}]
    assert lines[4]["parts"][0]["tool_output"] == "12:00" and lines[4]["parts"][0]["tool_name"] == "get_time"


def test_a_result_names_its_tool_after_a_call_from_an_earlier_add(ov, ov_home):
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {"file_path": "a.py"}}]}
    assert ov("session", "add-messages", "s", json.dumps([call])).exit_code == 0
    assert ov("session", "add", "s", "--text", "meanwhile").exit_code == 0
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "print(1)"}]}
    assert ov("session", "add-messages", "s", stdin=json.dumps(result) + "\n").exit_code == 0
    assert stored(ov_home)[-1]["parts"][0]["tool_name"] == "Read"
    shown = ov("session", "show", "s").stdout
    assert "[tool Read pending]" in shown and "[tool Read completed] print(1)" in shown


@pytest.mark.parametrize("message, words", [
    ({"role": "user"}, "`content`"),
    ({"role": "user", "content": 7}, "`content` must be a string or a list of blocks"),
    ({"role": "user", "content": []}, "`content` is an empty list"),
    ({"role": "user", "content": ["hi"]}, "content block 0 must be a JSON object with a `type`"),
    ({"role": "user", "content": [{"type": "text"}]}, "needs `text`"),
    ({"role": "user", "text": "a", "content": "b"}, "not `text` and `content`"),
    ({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "input": {}}]}, "needs `name`"),
    ({"role": "user", "content": [{"type": "tool_result", "content": "x"}]}, "needs `tool_use_id`"),
    ({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}, "is_error"),
    ({"role": "assistant", "tool_calls": [{"id": "c", "type": "function"}]}, "needs `function`"),
    ({"role": "assistant", "tool_calls": {"id": "c"}}, "`tool_calls` must be a list"),
    ({"role": "robot", "content": "x"}, "unknown role"),
])
def test_unusable_message_forms_are_refused(ov, store_state, message, words):
    assert ov("session", "add", "s", "--text", "existing").exit_code == 0
    before = store_state()
    result = ov("session", "add-messages", "s", json.dumps([message]), "--json")
    assert result.exit_code == 2, result.stderr
    assert words in result.error["message"]
    assert store_state() == before


def test_json_lines_are_split_at_newlines_only(ov, ov_home):
    lines = json.dumps({"role": "user", "text": "one\u2028two"}, ensure_ascii=False) + "\n" + json.dumps({"role": "user", "text": "three"}) + "\n"
    assert ov("session", "add-messages", "s", stdin=lines).exit_code == 0
    assert [m["parts"][0]["text"] for m in stored(ov_home)] == ["one\u2028two", "three"]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("raw, words", [
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": {"a": NaN}}]}]', "NaN, which is not JSON"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_output": Infinity}]}]', "Infinity, which is not JSON"),
    ('[{"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "x", "input": {"n": -Infinity}}]}]', "-Infinity"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": 1e999}]}]', "beyond a float's range"),
    ('[{"role": "user", "text": "bad \\ud800 text"}]', "lone surrogate (U+D800)"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": {"k": "\\udc00"}}]}]', "lone surrogate"),
    ('[{"role": "user", "text": "x", "id": "id-\\ud83d"}]', "lone surrogate"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": ' + _nested(70) + "}]}]", "nested more than 64 levels"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": ' + _nested(10_000) + "}]}]", "nested too deeply"),
    ('[{"role": "user", "parts": [{"type": "tool", "tool_name": "x", "tool_input": ' + '{"a":' * 100_000 + "1" + "}" * 100_000 + "}]}]", "nested too deeply"),
    ('{"role": "user", "text": "x"}\n{"role": "user", "text": NaN}\n', "line 2 holds NaN"),
], ids=["nan", "infinity", "minus-infinity", "overflow", "surrogate-text", "surrogate-input", "surrogate-id", "nested-70", "nested-10k", "nested-100k-objects", "jsonl-nan"])
def test_values_that_are_not_strict_json_are_refused(ov, store_state, raw, words):
    assert ov("session", "add", "s", "--text", "existing").exit_code == 0
    before = store_state()
    result = ov("session", "add-messages", "s", "--json", stdin=raw)
    assert result.exit_code == 2, result.stderr
    assert words in result.error["message"]
    assert store_state() == before


def test_stored_lines_are_strict_json(ov, ov_home):
    escaped_pair = '[{"role": "user", "text": "smile \\ud83d\\ude00", "parts": null}]'
    assert ov("session", "add-messages", "s", escaped_pair).exit_code == 0
    raw = (session_dir(ov_home, "s") / "messages.jsonl").read_text(encoding="utf-8")
    assert "\U0001f600" in raw
    for line in raw.split("\n")[:-1]:
        json.loads(line, parse_constant=lambda c: pytest.fail(f"{c} written"))


def test_parse_messages_reads_old_and_hand_edited_lines_as_strict_json():
    from ov.sessions.session import parse_messages

    data = (
        b'{"id": "a", "parts": [{"type": "tool", "tool_input": {"x": NaN, "y": 1e999}}]}\n'
        b'[1, 2]\n'
        b'{"id": "b", "text": "\\ud800 \xff"}\n'
        + b"[" * 5000 + b"]" * 5000 + b"\n"
        b'{"id": "c", "half'
    )
    messages = parse_messages(data)
    assert [m["id"] for m in messages] == ["a", "b"]
    assert messages[0]["parts"][0]["tool_input"] == {"x": None, "y": None}
    json.dumps(messages, allow_nan=False, ensure_ascii=False).encode("utf-8")


def test_a_secret_in_a_message_id_is_redacted_and_still_de_duplicates(ov, ov_home):
    secret_id = "sk-" + "Ab1" * 16
    other_id = "sk-" + "Cd2" * 16
    first = ov("session", "add-messages", "s", json.dumps([{"role": "user", "text": "one", "id": secret_id}]), "--json").json["result"]
    assert first["redacted"] == 1 and first["added"][0].startswith("redacted-")
    again = ov("session", "add-messages", "s", json.dumps([{"role": "user", "text": "one", "id": secret_id}]), "--json").json["result"]
    assert again["changed"] is False and again["duplicates"] == first["added"]
    other = ov("session", "add-messages", "s", json.dumps([{"role": "user", "text": "two", "id": other_id}]), "--json").json["result"]
    assert other["changed"] is True and other["added"] != first["added"]
    for name in ("messages.jsonl", ".meta.json"):
        text = (session_dir(ov_home, "s") / name).read_text()
        assert secret_id[:12] not in text and other_id[:12] not in text, name
    assert json.loads((session_dir(ov_home, "s") / ".meta.json").read_text())["live_ids"] == first["added"] + other["added"]


def test_tool_inputs_and_outputs_are_redacted_in_every_form(ov, ov_home):
    key = "sk-ant-api03-" + "Zy9" * 30
    messages = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": f"ANTHROPIC_API_KEY={key} ./run"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": f"key={key}"}]}]},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "env", "arguments": json.dumps({"env": {"password": "hunter2-Xy"}})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": f"export ANTHROPIC_API_KEY={key}"},
    ]
    result = ov("session", "add-messages", "s", json.dumps(messages), "--json").json["result"]
    assert result["redacted"] == 4
    raw = (session_dir(ov_home, "s") / "messages.jsonl").read_text()
    assert key[:20] not in raw and "hunter2-Xy" not in raw


def test_a_value_redacted_in_one_message_goes_where_a_later_one_repeats_it(ov, ov_home):
    ov("session", "add", "s", "--text", "they rotated it. the new db password is Tr0ub4dor&3zz")
    edit = {"type": "tool", "tool_name": "Edit", "tool_status": "completed", "tool_output": "The file has been updated.",
            "tool_input": {"file_path": "/app/.env", "old_string": "DB_PASSWORD=old", "new_string": "DB_PASSWORD=Tr0ub4dor&3zz"}}
    later = [
        {"role": "assistant", "parts": [edit]},
        {"role": "assistant", "text": "Updated .env; the app connects with 'Tr0ub4dor&3zz' now."},
    ]
    result = ov("session", "add-messages", "s", json.dumps(later), "--json").json["result"]
    assert result["redacted"] == 2
    raw = (session_dir(ov_home, "s") / "messages.jsonl").read_text()
    assert "Tr0ub4dor" not in raw and "DB_PASSWORD=old" in raw
    # Nothing of the value reaches the store, and the digests stay on this machine.
    assert not any("Tr0ub4dor" in p.read_text(errors="ignore") for p in ov_home.rglob("*") if p.is_file())


def _recurring_state(ov_home: Path, sid: str) -> Path:
    [found] = [p for p in ov_home.rglob(f"redacted/default/{sid}.json")]
    return found


@pytest.mark.parametrize(
    "remove, gone",
    [
        (["session", "delete", "s"], {"s"}),
        (["rm", "-r", "viking://user/default/sessions/s"], {"s"}),
        (["rm", "-r", "viking://user/default/sessions"], {"s", "other"}),
    ],
)
def test_what_redaction_remembers_of_a_session_goes_with_the_session(ov, ov_home, remove, gone):
    """The digests of a session's secrets outlived its deletion, on this machine, for good; a later
    session of the same id started with them. Another session's stay."""
    for sid in ("s", "other"):
        assert ov("session", "add", sid, "--text", "the new db password is Tr0ub4dor&3zz").exit_code == 0
    states = {sid: _recurring_state(ov_home, sid) for sid in ("s", "other")}
    assert ov(*remove).exit_code == 0
    assert {sid for sid, path in states.items() if not path.exists()} == gone
    # A new session of the same id remembers nothing of the deleted one's values.
    again = [{"role": "assistant", "text": "connected with Tr0ub4dor&3zz"}]
    assert ov("session", "add-messages", "s", json.dumps(again), "--json").json["result"]["redacted"] == 0


def test_what_redaction_remembers_is_one_file_per_session_id(ov, ov_home):
    """The file was named by the id without its leading dots: `.x` and `x` shared one, and a
    removed folder `sessions/.x` (a tree ov did not write: an import, a pull) took session `x`'s
    digests with it."""
    from ov.redact.recurring import forget, state_path

    assert ov("session", "add", "x", "--text", "the new db password is Tr0ub4dor&3zz").exit_code == 0
    state = _recurring_state(ov_home, "x")
    root = state.parents[2]
    assert state == state_path(root, "default", "x")
    assert len({state_path(root, "default", sid) for sid in ("x", ".x", "..x")}) == 3
    forget(root, [("default", ".x"), ("default", "..x"), ("..", "x")])
    assert state.exists()
    later = [{"role": "assistant", "text": "connected with Tr0ub4dor&3zz"}]
    assert ov("session", "add-messages", "x", json.dumps(later), "--json").json["result"]["redacted"] == 1


def test_what_redaction_remembers_stays_while_the_session_delete_fails(ov, ov_home):
    """Removed with the commit that removes the session, not before it: a delete refused (a hand
    edit ov will not discard) leaves the session, and what redaction remembers of it, as they were."""
    assert ov("session", "add", "s", "--text", "the new db password is Tr0ub4dor&3zz").exit_code == 0
    state = _recurring_state(ov_home, "s")
    (session_dir(ov_home, "s") / "notes.md").write_text("my own notes\n")
    refused = ov("session", "delete", "s")
    assert refused.exit_code != 0 and session_dir(ov_home, "s").exists() and state.exists()
    later = [{"role": "assistant", "text": "connected with Tr0ub4dor&3zz"}]
    assert ov("session", "add-messages", "s", json.dumps(later), "--json").json["result"]["redacted"] == 1


def test_a_transcript_line_gets_a_hint(ov):
    line = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}}
    result = ov("session", "add-messages", "s", json.dumps([line]), "--json")
    assert result.exit_code == 2 and "transcript line" in result.error["message"] and "`message`" in result.error["hint"]


def test_a_commit_remembers_every_id_it_archived_for_a_capture_that_overlapped_it(ov, ov_home, monkeypatch):
    """A capture that read the transcript before a large commit archived it adds the same messages
    again: every id of that commit is remembered, however many (the window was 2,000 ids)."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages
    from ov.store.store import Store

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 5)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 5)
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    messages = [{"id": f"m{i}", "role": "user", "content": [{"type": "text", "text": f"message {i}"}]} for i in range(12)]
    add_messages(store, "big", [dict(m) for m in messages[:3]])
    commit_session(store, "big")
    add_messages(store, "big", [dict(m) for m in messages[3:]])
    commit_session(store, "big")
    again = add_messages(store, "big", [dict(m) for m in messages])
    assert again.added == [] and len(again.duplicates) == 12 - 3 + min(3, 5)


def test_a_message_of_blank_text_is_refused(ov):
    refused = ov("session", "add", "s", "--text", "   ", "--json")
    assert refused.exit_code == 2 and refused.error["message"] == "the message text is empty"


def _store():
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    return Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)


def _turns(start: int, stop: int) -> list[dict]:
    return [{"id": f"m{i}", "role": "user", "content": [{"type": "text", "text": f"message {i}"}]} for i in range(start, stop)]


def test_an_id_archived_past_the_window_is_never_added_again(ov, ov_home, monkeypatch):
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 2)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 2)
    store = _store()
    for start in range(0, 12, 3):
        add_messages(store, "long", _turns(start, start + 3))
        commit_session(store, "long")
    meta = json.loads((session_dir(ov_home, "long") / ".meta.json").read_text())
    assert len(meta["archived_ids"]) == 5 and meta["archived_count"] == 12
    record = [json.loads(line) for line in (session_dir(ov_home, "long") / "history" / ".archived_ids.jsonl").read_text().splitlines()]
    assert [(r["archive"], r["ids"]) for r in record] == [(f"archive_00{n + 1}", [f"m{i}" for i in range(3 * n, 3 * n + 3)]) for n in range(4)]
    again = add_messages(store, "long", _turns(0, 14))
    assert again.added == ["m12", "m13"] and len(again.duplicates) == 12
    # the record is ov's own, as the messages and the meta are: not written by hand through ov
    refused = ov("write", "viking://user/default/sessions/long/history/.archived_ids.jsonl", "--content", "[]", "--json")
    assert refused.exit_code == 2 and "ov's own record" in refused.error["message"]


def test_a_session_within_the_window_never_reads_the_record(ov, monkeypatch):
    """The hook path pays for the complete record only when the window in .meta.json lost ids."""
    from ov.sessions import session
    from ov.sessions.commit import commit_session

    store = _store()
    session.add_messages(store, "short", _turns(0, 3))
    commit_session(store, "short")

    def refuse(*args):
        raise AssertionError("read the complete record")

    monkeypatch.setattr(session, "read_archived_ids", refuse)
    assert session.add_messages(store, "short", _turns(0, 5)).added == ["m3", "m4"]


def test_messages_that_are_not_resent_never_read_the_record_past_the_window(ov, monkeypatch):
    """A capture reading on from its offset says its messages are not resent: past the window the
    complete record is read only for those that may be."""
    from ov.sessions import session
    from ov.sessions.commit import commit_session

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 2)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 2)
    store = _store()
    for start in (0, 3):
        session.add_messages(store, "long", _turns(start, start + 3))
        commit_session(store, "long")
    reads = []
    real = session.read_archived_ids
    monkeypatch.setattr(session, "read_archived_ids", lambda *args: reads.append(args) or real(*args))
    assert session.add_messages(store, "long", _turns(6, 8), resent=False).added == ["m6", "m7"]
    assert reads == []
    assert session.add_messages(store, "long", _turns(0, 9)).added == ["m8"] and len(reads) == 1


def test_a_session_an_older_ov_committed_past_the_window_learns_its_record_from_the_archives(ov, ov_home, monkeypatch):
    """An older ov kept no record and no archived_count: the archives say which ids they hold,
    and the first add that needs them keeps the record from then on."""
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 2)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 2)
    store = _store()
    for start in (0, 4):
        add_messages(store, "old", _turns(start, start + 4))
        commit_session(store, "old")
    folder = session_dir(ov_home, "old")
    (folder / "history" / ".archived_ids.jsonl").unlink()
    meta = json.loads((folder / ".meta.json").read_text())
    del meta["archived_count"]
    (folder / ".meta.json").write_text(json.dumps(meta))
    assert ov("snapshot", "commit", "-m", "as an older ov left it").exit_code == 0
    again = add_messages(store, "old", _turns(0, 9))
    assert again.added == ["m8"] and len(again.duplicates) == 8
    assert json.loads((folder / ".meta.json").read_text())["archived_count"] == 8
    assert (folder / "history" / ".archived_ids.jsonl").is_file()
    assert add_messages(store, "old", _turns(0, 9)).added == []


def test_every_session_command_gives_the_id_as_session_and_the_uri_as_uri(ov):
    """`session add`, `add-messages`, `used` and `commit` gave the URI as `session`, where `new`,
    `list`, `show` and `delete` gave the id: a script reading one field got either."""
    uri = "viking://user/default/sessions/s1"
    results = [
        ov("session", "new", "--id", "s1", "--json"),
        ov("session", "add", "s1", "--text", "we deploy on Tuesdays", "--json"),
        ov("session", "add-messages", "s1", "--json", stdin='[{"role": "assistant", "content": "noted"}]'),
        ov("session", "used", "s1", "viking://resources/x", "--json"),
        ov("session", "show", "s1", "--json"),
        ov("commit", "s1", "--json"),
        ov("session", "delete", "s1", "--json"),
    ]
    assert [(r.exit_code, r.stderr) for r in results] == [(0, "")] * len(results)
    assert [(r.json["result"]["session"], r.json["result"]["uri"]) for r in results] == [("s1", uri)] * len(results)


def test_a_sentence_of_the_users_own_and_of_this_repo_is_split_between_the_user_and_the_peer(ov, ov_home):
    # An audit: "I like short commit messages, and this repo uses conventional commits" went whole to the peer.
    memories = ov_home / "accounts/default/user/default"
    said = ["remember that I prefer squash merges, but this codebase uses merge commits",
            "note that my shell is fish, and in this project we pin every dependency"]
    for text in said:
        assert ov("session", "add", "s", "--peer", "payments", "--text", text).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    mine = "".join(p.read_text() for p in (memories / "memories").rglob("*.md"))
    theirs = "".join(p.read_text() for p in (memories / "peers/payments/memories").rglob("*.md"))
    assert "- Prefers squash merges\n" in mine and "- Shell: fish" in mine
    assert "merge commits" not in mine and "dependency" not in mine
    assert "- This codebase uses merge commits" in theirs and "- Team pins every dependency in this project" in theirs
    assert "squash" not in theirs and "fish" not in theirs


def test_every_way_of_naming_the_project_at_hand_splits_fronts_and_files_alike(ov, ov_home):
    # "this git repo", "the current code base": one pattern (text.THIS_PROJECT) for the split, the
    # fronting ("in ..., we ...") and the filing under the peer; the split knew only "this repo".
    memories = ov_home / "accounts/default/user/default"
    said = ["remember that I like rebasing, and this git repo squashes every PR",
            "note that my editor is Helix, but in the current code base we use two-space indents"]
    for text in said:
        assert ov("session", "add", "s", "--peer", "payments", "--text", text).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    mine = "".join(p.read_text() for p in (memories / "memories").rglob("*.md"))
    theirs = "".join(p.read_text() for p in (memories / "peers/payments/memories").rglob("*.md"))
    assert "rebasing" in mine and "- Editor: Helix" in mine and "squashes" not in mine and "indents" not in mine
    assert "- This git repo squashes every PR" in theirs and "- Team uses two-space indents in the current code base" in theirs


def test_a_statement_about_this_repo_goes_to_the_sessions_peer_not_the_users_memories(ov, ov_home):
    # An audit (finding 8): "remember that we never use requests in new code in this repo." said in
    # project A (the workspace is the peer) went to the user's profile, and project B's sessions
    # were told it as the user's rule.
    memories = ov_home / "accounts/default/user/default"
    said = ["good. remember that we never use requests in new code in this repo.", "note that we always pin dependencies in this codebase.",
            "remember that the current repo uses tabs, not spaces."]
    for text in said:
        assert ov("session", "add", "s", "--peer", "payments", "--text", text).exit_code == 0
    assert ov("commit", "s").exit_code == 0
    mine = "".join(p.read_text() for p in (memories / "memories").rglob("*.md"))
    theirs = "".join(p.read_text() for p in (memories / "peers/payments/memories").rglob("*.md"))
    assert "requests in new code in this repo" in theirs and "requests" not in mine
    for words in ("pins dependencies in this codebase", "tabs, not spaces"):
        assert words in theirs and words not in mine, words
    # A preference of the user's own stays theirs; without a peer, the user's memories are the only place.
    assert ov("session", "add", "t", "--peer", "payments", "--text", "remember that I prefer short commit messages").exit_code == 0
    assert ov("session", "add", "u", "--text", "remember that we never use pip in this codebase.").exit_code == 0
    assert ov("commit", "t").exit_code == 0 and ov("commit", "u").exit_code == 0
    mine = "".join(p.read_text() for p in (memories / "memories").rglob("*.md"))
    assert "short commit messages" in mine and "never uses pip in this codebase" in mine.replace("Team never", "never")


def _commit_as_an_older_ov(folder: Path, archive: str, kept: int) -> None:
    """What an ov from before the record of archived ids (58d9a5c) leaves after a commit: the live
    messages in a new archive, the meta's counts and window moved on, and neither the record nor
    ``archived_count`` touched."""
    messages = folder / "messages.jsonl"
    ids = [json.loads(line)["id"] for line in messages.read_text().splitlines()]
    (folder / "history" / archive).mkdir(parents=True)
    (folder / "history" / archive / "messages.jsonl").write_text(messages.read_text())
    messages.write_text("")
    meta = json.loads((folder / ".meta.json").read_text())
    meta.update(commit_count=meta["commit_count"] + 1, message_count=0, live_ids=[], archived_ids=(meta["archived_ids"] + ids)[-kept:])
    (folder / ".meta.json").write_text(json.dumps(meta))


def _archived_by_this_ov_then_an_older_one(ov, ov_home, first: int, then: int, *, kept: int):
    """Session "s": messages m0..m{first-1} archived by this ov, then up to m{then-1} archived by an
    older ov that kept no record of them (:func:`_commit_as_an_older_ov`), committed to the store."""
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages

    store = _store()
    add_messages(store, "s", _turns(0, first))
    commit_session(store, "s")
    folder = session_dir(ov_home, "s")
    add_messages(store, "s", _turns(first, then))
    _commit_as_an_older_ov(folder, "archive_002", kept=kept)
    assert ov("snapshot", "commit", "-m", "as an older ov left it").exit_code == 0
    return store, folder


def test_archives_an_older_ov_committed_between_two_of_this_ovs_are_never_added_again(ov, ov_home, monkeypatch):
    """main → older ov → main: the older ov archived messages without recording them, and left
    `archived_count` as it was. The window in .meta.json then seemed complete, so a resend of the
    older ov's first messages, or of this ov's own early ones, added them a second time."""
    from ov.sessions.session import add_messages

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 2)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 2)
    store, folder = _archived_by_this_ov_then_an_older_one(ov, ov_home, 3, 9, kept=2)
    fsck = ov("fsck", "--json").json["result"]
    (note,) = [f for f in fsck["findings"] if "record of archived messages" in f["message"]]
    assert "sessions/s (archive_002)" in note["message"] and note["severity"] == "note"
    again = add_messages(store, "s", _turns(0, 10))
    assert again.added == ["m9"] and len(again.duplicates) == 9
    meta = json.loads((folder / ".meta.json").read_text())
    assert meta["archived_count"] == 9 and meta["total_message_count"] == 10
    record = [json.loads(line) for line in (folder / "history" / ".archived_ids.jsonl").read_text().splitlines()]
    assert [(r["archive"], r["ids"]) for r in record] == [("archive_001", ["m0", "m1", "m2"]), ("archive_002", [f"m{i}" for i in range(3, 9)])]
    assert not [f for f in ov("fsck", "--json").json["result"]["findings"] if "record of archived messages" in f["message"]]
    assert add_messages(store, "s", _turns(0, 10)).added == []


def test_a_commit_completes_the_record_an_older_ov_left_behind(ov, ov_home):
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages

    store, folder = _archived_by_this_ov_then_an_older_one(ov, ov_home, 2, 5, kept=2000)
    add_messages(store, "s", _turns(5, 6), resent=False)
    commit_session(store, "s")
    meta = json.loads((folder / ".meta.json").read_text())
    assert meta["archived_count"] == 6
    record = [json.loads(line)["archive"] for line in (folder / "history" / ".archived_ids.jsonl").read_text().splitlines()]
    assert record == ["archive_001", "archive_002", "archive_003"]


def test_a_capture_finds_a_message_an_older_ov_archived_past_the_window(ov, ov_home, monkeypatch):
    """The capture's check that a restore took back turns reads the complete record: an older ov's
    archives, which the record lacked, hold the capture's last message."""
    from ov.hosts.capture import _lost_messages
    from ov.sessions.commit import commit_session
    from ov.sessions.session import add_messages

    monkeypatch.setattr("ov.sessions.session.ARCHIVED_IDS_KEPT", 2)
    monkeypatch.setattr("ov.sessions.commit.ARCHIVED_IDS_KEPT", 2)
    store = _store()
    add_messages(store, "s", _turns(0, 3))
    commit_session(store, "s")
    add_messages(store, "s", _turns(3, 9))
    _commit_as_an_older_ov(session_dir(ov_home, "s"), "archive_002", kept=2)
    assert not _lost_messages(store, "s", "m4")
    assert _lost_messages(store, "s", "m99")
