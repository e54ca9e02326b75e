"""The prompt hook on a store of code: what it answers, and how the code shows in its block."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ov.hosts import recall
from tests.test_hooks import _context, _hook, _stdin

TIMESPEC = '''"""Times as people write them."""

import re

# The units a span may be written in, in seconds. A day is 24 hours: a span is
# counted in hours, never in calendar days, so a change of summer time does not
# move it. The table is read by parse_span below.
UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_span(text):
    """A span such as "3d" in seconds."""
    return int(text[:-1]) * UNITS[text[-1]]


def parse_time(text, now):
    """A time as written: "now", "3d ago", or an ISO date."""
    if text == "now":
        return now
    if text.endswith(" ago"):
        return now - parse_span(text[: -len(" ago")])
    return parse_iso(text)


def parse_iso(text):
    return re.sub("T", " ", text)
'''

LOCK = '''"""The store's write lock."""

import fcntl
import os


class WriteLock:
    """One writer at a time: an exclusive lock on the store's lock file."""

    def __init__(self, path):
        self.path = path
        self.handle = None

    def acquire(self, timeout):
        """Take the lock, waiting up to ``timeout`` seconds for another writer."""
        self.handle = open(self.path, "a+")
        fcntl.flock(self.handle, fcntl.LOCK_EX)
        return self

    def release(self):
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()
        os.unlink(self.path)
'''

TOPIC = '''"""Whether a prompt names a topic."""

CHATTER = frozenset("ok thanks yes no".split())


def has_topic(prompt):
    """True when a word of the prompt is not chatter."""
    return any(word not in CHATTER for word in prompt.lower().split())
'''

URI = '''"""Addresses of the store."""


class Address:
    """An address: its segments, from the root down."""

    def __init__(self, segments):
        self.segments = tuple(segments)

    @property
    def parent(self):
        """The address above this one; None for the root, which has none."""
        if not self.segments:
            return None
        return Address(self.segments[:-1])
'''

TEST_URI = '''from app.uri import Address


def test_parent():
    assert Address(["a", "b"]).parent.segments == ("a",)


def test_root_has_no_parent():
    assert Address([]).parent is None
'''


@pytest.fixture
def code(ov, tmp_path: Path) -> Path:
    """A small project of code, added as a resource (``viking://resources/app``)."""
    root = tmp_path / "app"
    for path, text in {"app/timespec.py": TIMESPEC, "app/store/lock.py": LOCK, "app/topic.py": TOPIC, "app/uri.py": URI, "tests/test_uri.py": TEST_URI}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    assert ov("add-resource", str(root)).exit_code == 0
    assert ov("config", "set", "hooks.deadline", "30").exit_code == 0  # what is injected, however slow the machine
    return root


_SESSIONS = itertools.count(1)


def _block(prompt: str, cwd: Path, session: str | None = None) -> str:
    """What one prompt gets: a session of its own by default, never given the file an earlier prompt of the test was."""
    session = session or f"s-{next(_SESSIONS)}"
    return _context("claude", _hook("claude", "prompt-submit", _stdin("claude", session, cwd=str(cwd), prompt=prompt)))


def _first(block: str) -> str:
    """The URI of the block's first entry ("" for no block)."""
    start = block.find('<context uri="')
    return block[start + 14 : block.index('"', start + 14)] if start >= 0 else ""


@pytest.mark.parametrize(
    ("prompt", "file"),
    [("fix the bug in parse_time", "app/timespec.py"), ("make has_topic faster", "app/topic.py"), ("fix the bug in WriteLock", "app/store/lock.py"),
     # a class named by one word and a method by its class, below the cut-off before (0.56, 0.58)
     ("refactor Address please", "app/uri.py"), ("refactor WriteLock.release please", "app/store/lock.py"),
     # (written after the fix)
     ("please speed up Address.parent", "app/uri.py"), ("why is Address so slow?", "app/uri.py"), ("can you make Address immutable", "app/uri.py")],
)
def test_a_request_naming_an_identifier_is_searched(prompt, file, ov, code, project, ov_home):
    # An audit: these were skipped as trivial prompts ("parse_time" was read as "parse" and "time").
    # A request's words ("fix", "bug", "refactor") are not the code's: the code defining the name
    # asked about is a full match whatever else the request says.
    assert _first(_block(prompt, project)) == f"viking://resources/app/{file}"


@pytest.mark.parametrize(
    "prompt",
    # (written after the rule) snake_case, CamelCase, a constant, a dunder, a dotted name
    ["fix the bug in WriteLock", "fix the failing test in test_mcp", "rename QUERY_CHARS to QUERY_LIMIT", "speed up __init__ a bit", "make SnippetGenerator faster",
     "move ov.hosts.recall up"],
)
def test_an_identifier_is_a_topic(prompt):
    assert not recall.is_trivial(prompt)


@pytest.mark.parametrize("prompt", ["lol I renamed parse_time yesterday, anyway thanks", "parse_time works now, thanks", "ok do it"])
def test_an_identifier_mentioned_in_a_remark_is_no_topic(prompt):
    assert recall.is_trivial(prompt)



@pytest.mark.parametrize("prompt", ["@app/uri.py", "@app/uri.py why does parent return None?", "@uri.py why does parent return None?"])
def test_a_file_mentioned_with_an_at_sign_is_named(prompt, ov, code, project, ov_home):
    # Claude Code, Gemini CLI and Cursor write a file the user picks as "@path": the "@" was read as
    # part of the path, which then named no file.
    assert _first(_block(prompt, project)) == "viking://resources/app/app/uri.py"


def test_a_prompt_opening_with_an_absolute_path_is_no_slash_command(ov, code, project, ov_home):
    # An audit: "/home/me/proj/ov/uri.py: ..." was skipped as a slash command.
    prompt = f"{code}/app/uri.py: parent returns None for the root, why?"
    assert _first(_block(prompt, project)) == "viking://resources/app/app/uri.py"
    assert _first(_block("/home/me/elsewhere/app/uri.py line 14 returns None, fix it", project)) == "viking://resources/app/app/uri.py"
    for command in ("/review", "/model opus", "!ls -la", "/compact keep the uri.py part"):
        assert recall.is_trivial(command)


FAILURE = """=================================== FAILURES ===================================
________________________________ test_parent ________________________________

    def test_parent():
>       assert Address(["a", "b"]).parent.segments == ("a",)
E       AttributeError: 'NoneType' object has no attribute 'segments'

tests/test_uri.py:5: AttributeError
=========================== short test summary info ============================
FAILED tests/test_uri.py::test_parent - AttributeError: 'NoneType' object has no attribute 'segments'
1 failed, 1542 passed in 88.21s"""


def test_pasted_test_output_longer_than_a_query_keeps_its_failing_file(ov, code, project, ov_home):
    # An audit: 3.3 k characters of pytest output were read to their first 2,000, its progress
    # lines, and the failing test's file was not in the block.
    progress = "\n".join(f"tests/test_timespec.py {'.' * 60} [{i:3d}%]" for i in range(1, 40))
    paste = f"===== test session starts =====\nplatform linux -- Python 3.11.9, pytest-8.3.3\ncollected 1543 items\n\n{progress}\n{FAILURE}"
    assert len(paste) > 3000
    block = _block(paste, project)
    assert _first(block) == "viking://resources/app/tests/test_uri.py" and "app/timespec.py" not in block


def test_one_failing_pytest_assert_is_read_as_a_traceback():
    from ov.tracebacks import focus

    focused = focus(FAILURE)
    assert focused.splitlines()[-1] == "tests/test_uri.py:5" and "def test_parent" not in focused and "=====" not in focused


def test_a_question_after_a_long_log_is_searched(ov, code, project, ov_home):
    # An audit: "where is the write lock taken?" after 4 k characters of a worker's log got nothing.
    log = "\n".join(f"2026-12-06T01:00:{i:02d} worker[{i}] job=catchup state=ok elapsed={i}ms queue=0" for i in range(60))
    for paste in (f"{log}\n\nwhere is the write lock taken?",
                  # (written after the rule) log levels and times, the question in two sentences
                  "\n".join(f"INFO 01:{i:02d}:00 worker started the catch-up job" for i in range(60)) + "\nI keep seeing this. Which writer lock does it wait on?"):
        assert len(paste) > 2500
        assert "viking://resources/app/app/store/lock.py" in _block(paste, project)


def test_a_long_paste_keeps_its_question_and_what_failed():
    from ov.retrieval.find import QUERY_CHARS, asked

    log = "\n".join(f"INFO 01:00:{i:02d} worker started job index-catchup" for i in range(80))
    query = asked(f"{log}\nERROR 01:01:00 store.py:88 could not take the lock\n{log}\nWhy does the worker fail to take the lock? It used to work.")
    assert len(query) <= QUERY_CHARS and "store.py:88 could not take the lock" in query and query.endswith("It used to work.")



def _entry(block: str, uri: str) -> tuple[dict[str, str], str]:
    """The attributes and the text of ``block``'s entry for ``uri``."""
    import re

    found = re.search(rf'<context (uri="{re.escape(uri)}"[^>]*)>\n(.*?)\n</context>', block, re.DOTALL)
    assert found, block
    return dict(re.findall(r'(\w+)="([^"]*)"', found.group(1))), found.group(2)


@pytest.fixture
def lean(ov):
    """A prompt budget that holds a few lines of each result, as a block of a large store does."""
    assert ov("config", "set", "hooks.prompt_budget", "120").exit_code == 0


def test_a_named_file_shows_the_lines_of_the_identifier_asked_about(ov, code, lean, project, ov_home):
    # An audit: the path's words ("retrieval", "find") chose the file's imports and comments over
    # the line that defines what was asked about.
    attrs, text = _entry(_block("where is parse_time in app/timespec.py?", project), "viking://resources/app/app/timespec.py")
    assert attrs["lines"].startswith("16-") and text.startswith("def parse_time(text, now):")
    attrs, text = _entry(_block("how does WriteLock.acquire work in app/store/lock.py?", project), "viking://resources/app/app/store/lock.py")
    assert attrs["lines"].startswith("14-") and attrs["in"] == "WriteLock"
    # The window keeps its lines' indentation among themselves (the first line was stripped).
    assert text.splitlines()[:2] == ["def acquire(self, timeout):", '    """Take the lock, waiting up to ``timeout`` seconds for another writer."""']


def test_a_code_entry_names_the_definition_its_lines_are_in(ov, code, lean, project, ov_home):
    attrs, text = _entry(_block("why does release unlink the lock path?", project), "viking://resources/app/app/store/lock.py")
    assert attrs["in"] == "WriteLock.release" and "os.unlink(self.path)" in text and not text.startswith("def ")
    first, last = (int(n) for n in attrs["lines"].split("-"))
    assert len(text.splitlines()) == last - first + 1 and text.strip() == text




def _section(title: str, said: str) -> str:
    filler = "\n".join(f"The {title.lower()} part of the guide goes on about routine matter number {i}." for i in range(40))
    return f"## {title}\n\n{filler}\n\n{said}\n\n{filler}\n"


def test_a_section_of_a_long_document_names_its_file_and_lines_in_the_project(ov, project, ov_home, tmp_path):
    # An audit: "what does ov doctor check?" showed `docs/commands/03_ov_add-skill.md lines="51-53"`,
    # a file made up by the split, at lines counted from the section's start.
    root = tmp_path / "handbook"
    (root / "docs").mkdir(parents=True)
    guide = "# Guide\n\n" + "\n".join(
        _section(title, said)
        for title, said in (("Installing", "Install it with pipx."), ("Configuring", "Set the region in config.toml."),
                            ("Rotating", "The signing keys are rotated by the quokka job every Monday."), ("Uninstalling", "Remove it with pipx."))
    )
    (root / "docs" / "guide.md").write_text(guide, encoding="utf-8")
    assert ov("add-resource", str(root)).exit_code == 0
    assert ov("config", "set", "hooks.deadline", "30").exit_code == 0
    block = _block("which job rotates the signing keys?", project)
    uri = _first(block)
    assert uri.startswith("viking://resources/handbook/docs/guide/") and uri != "viking://resources/handbook/docs/guide.md"
    attrs, _text = _entry(block, uri)
    assert attrs["source"] == "docs/guide.md"
    first, last = (int(n) for n in attrs["source_lines"].split("-"))
    assert "rotated by the quokka job" in "\n".join(guide.splitlines()[first - 1 : last])


@pytest.mark.parametrize(
    "prompt",
    ["any ideas?", "any thoughts?", "does that make sense?", "what does this function do?", "what does this line do?",
     "what's wrong with my code?",
     # (written after the rule)
     "what does this file do?", "explain this error", "what's wrong with that snippet?", "any suggestions?", "thoughts on this approach?",
     "what is this block for?", "how does my code look?"],
)
def test_chatter_and_a_question_about_what_is_on_the_screen_get_nothing(prompt, ov, code, project, ov_home):
    # An audit: each got a block of ten entries of unrelated code (~1,000 tokens).
    assert recall.is_trivial(prompt)
    assert _block(prompt, project) == ""


@pytest.mark.parametrize(
    "prompt",
    ["what does this parse_time function do?", "what does the deploy step do?", "how do I run the tests?", "what does this function in app/uri.py do?",
     "any ideas on the uri parent bug?", "what does the error budget mean?"],
)
def test_a_question_naming_its_topic_beside_this_function_is_searched(prompt):
    assert not recall.is_trivial(prompt)
