"""Memory schemas, file format, merging, rule-based extraction and write planning (ov.sessions.memory)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from ov.errors import ConfigError, InvalidInput
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.extract import extract_explicit
from ov.sessions.memory.files import build_meta, parse_memory, render_memory
from ov.sessions.memory.merge import merge_fields, patch_text
from ov.sessions.memory.plan import build_memory_diff, plan_memory_writes
from ov.sessions.memory.schema import load_schemas
from ov.sessions.memory.standing import looks_like_name

WHEN = datetime(2026, 4, 21, 10, 30, 5, tzinfo=UTC)
ARCHIVE = "viking://user/alice/sessions/s1/history/archive_001"
MEMORIES = "viking://user/alice/memories"
PACKAGE = Path(__file__).resolve().parents[1] / "ov" / "sessions" / "memory"


@pytest.fixture(scope="module")
def schemas():
    return load_schemas()


def msg(text: str, role: str = "user", id: str = "m1", created_at: str | None = "2026-04-21T09:00:00Z") -> dict:
    message = {"id": id, "role": role, "parts": [{"type": "text", "text": text}]}
    if created_at:
        message["created_at"] = created_at
    return message


def extracted(*texts: str, user: str | None = "alice") -> list[tuple[str, dict[str, str]]]:
    messages = [msg(t, id=f"m{i}") for i, t in enumerate(texts, start=1)]
    return [(c.memory_type, c.fields) for c in extract_explicit(messages, when=WHEN, user=user)]


def files(writes: dict[str, str]):
    """A ``read`` callable over a dict of memory files."""
    return lambda path: writes.get(path)


# --- schemas ------------------------------------------------------------------


def test_builtin_schemas(schemas):
    assert sorted(schemas) == ["entities", "events", "experiences", "preferences", "profile", "trajectories"]
    modes = {name: s.operation_mode for name, s in schemas.items()}
    assert modes == {
        "entities": "upsert",
        "events": "add_only",
        "experiences": "upsert",
        "preferences": "upsert",
        "profile": "upsert",
        "trajectories": "add_only",
    }
    assert schemas["profile"].field("content").merge_op == "patch"
    assert schemas["experiences"].field("content").merge_op == "replace"
    assert schemas["preferences"].field("topic").merge_op == "immutable"
    assert schemas["experiences"].content_sections == ("Situation", "Approach", "Reflect")
    assert all(s.description and s.origin.endswith(f"{name}.yaml") for name, s in schemas.items())


def test_missing_user_dir_means_builtins(tmp_path):
    assert load_schemas(tmp_path / "absent") == load_schemas(None)


def test_user_schema_overrides_builtin(tmp_path):
    (tmp_path / "preferences.yaml").write_text(
        "memory_type: preferences\n"
        "description: Preferences, one folder per topic.\n"
        'filename_template: "prefs/{topic}/{subject}.md"\n'
        "operation_mode: upsert\n"
        "fields:\n"
        "  - {name: subject, type: string, description: who, merge_op: immutable}\n"
        "  - {name: topic, type: string, description: what, merge_op: immutable}\n"
        "  - {name: content, type: string, description: bullets, merge_op: replace}\n"
    )
    (tmp_path / "notes.txt").write_text("not a schema")
    schemas = load_schemas(tmp_path)
    prefs = schemas["preferences"]
    assert prefs.origin == str(tmp_path / "preferences.yaml")
    assert prefs.path_for({"subject": "alice", "topic": "tabs"}, WHEN) == "prefs/tabs/alice.md"
    assert schemas["profile"].origin.startswith(str(PACKAGE))


GOOD = {
    "memory_type": "profile",
    "description": "d",
    "filename_template": "profile.md",
    "operation_mode": "upsert",
    "fields": [{"name": "content", "type": "string", "description": "c", "merge_op": "patch"}],
}
ENTITY_FIELDS = [
    {"name": "name", "type": "string", "description": "n", "merge_op": "patch"},
    {"name": "content", "type": "string", "description": "c", "merge_op": "patch"},
]


@pytest.mark.parametrize(
    "change, problem",
    [
        ({"operation_mode": "update_only"}, "operation_mode"),
        ({"memory_type": "preferences"}, "does not match the file name"),
        ({"colour": "blue"}, "unknown key"),
        ({"description": ""}, "'description'"),
        ({"filename_template": "profile.txt"}, "ending in .md"),
        ({"filename_template": "../profile.md"}, "invalid path segment"),
        ({"filename_template": "{who}.md"}, "{who}"),
        ({"filename_template": "{content:>5}.md"}, "plain field name"),
        ({"fields": []}, "non-empty list"),
        ({"fields": [{"name": "content", "type": "string", "description": "c", "merge_op": "sum"}]}, "merge_op"),
        ({"fields": [{"name": "content", "type": "int64", "description": "c", "merge_op": "patch"}]}, "type"),
        ({"fields": [{"name": "body", "type": "string", "description": "c", "merge_op": "patch"}]}, "'content' field"),
        ({"fields": [*GOOD["fields"], {"name": "version", "description": "v", "merge_op": "replace"}]}, "reserved"),
        ({"filename_template": "{name}.md", "fields": ENTITY_FIELDS}, "must be immutable"),
        ({"content_sections": "Situation"}, "content_sections"),
    ],
)
def test_bad_override_is_a_config_error_naming_the_file(tmp_path, change, problem):
    import yaml

    (tmp_path / "profile.yaml").write_text(yaml.safe_dump({**GOOD, **change}))
    with pytest.raises(ConfigError) as err:
        load_schemas(tmp_path)
    assert str(tmp_path / "profile.yaml") in err.value.message
    assert problem in err.value.message


@pytest.mark.parametrize(
    "name, text, problem",
    [
        ("profile.yaml", "memory_type: [unclosed", "does not parse as YAML"),
        ("profile.yaml", "- a list\n", "must be a mapping"),
        ("profile.yaml", b"\xff\xfe", "not UTF-8"),
        ("preference.yaml", "memory_type: preference\n", "does not name a memory type"),
    ],
)
def test_unreadable_override_is_a_config_error(tmp_path, name, text, problem):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ConfigError) as err:
        load_schemas(tmp_path)
    assert str(path) in err.value.message and problem in err.value.message


# --- paths --------------------------------------------------------------------


@pytest.mark.parametrize(
    "memory_type, fields, path",
    [
        ("profile", {"content": "x"}, "profile.md"),
        ("preferences", {"subject": "alice", "topic": "tabs"}, "preferences/alice/tabs.md"),
        ("entities", {"category": "Projects", "name": "Atlas Web"}, "entities/projects/atlas_web.md"),
        ("events", {"event": "release"}, "events/2026/04/21/release.md"),
        ("trajectories", {"name": "fix_ci"}, "trajectories/fix_ci_20260421103005.md"),
        ("experiences", {"name": "Flaky Tests"}, "experiences/flaky_tests.md"),
    ],
)
def test_path_for_each_type(schemas, memory_type, fields, path):
    assert schemas[memory_type].path_for(fields, WHEN) == path


def test_path_values_are_sanitised_into_one_segment(schemas):
    path = schemas["preferences"].path_for({"subject": "Alice", "topic": "../Code Style/Tabs?"}, WHEN)
    assert path.startswith("preferences/alice/") and path.count("/") == 2
    assert path == "preferences/alice/code_style_tabs.md"
    assert schemas["entities"].path_for({"category": "people", "name": "..."}, WHEN) == "entities/people/unnamed.md"


def test_path_dates_are_utc(schemas):
    late = datetime(2026, 4, 21, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert schemas["events"].path_for({"event": "x"}, late) == "events/2026/04/22/x.md"
    naive = datetime(2026, 1, 2, 3, 4, 5)
    assert schemas["trajectories"].path_for({"name": "t"}, naive) == "trajectories/t_20260102030405.md"


@pytest.mark.parametrize("fields", [{}, {"subject": "alice"}, {"subject": "alice", "topic": "  "}])
def test_path_refuses_a_missing_field(schemas, fields):
    with pytest.raises(InvalidInput, match="needs the field"):
        schemas["preferences"].path_for(fields, WHEN)


# --- file format --------------------------------------------------------------


def test_render_and_parse_round_trip(schemas):
    meta = build_meta(
        schemas["preferences"],
        {"subject": "alice", "topic": "tabs", "content": "ignored"},
        version=3,
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        updated_at=WHEN,
        sources=[ARCHIVE, ARCHIVE],
    )
    text = render_memory("- Prefers tabs\n", meta)
    content, parsed = parse_memory(text)
    assert content == "- Prefers tabs"
    assert parsed == meta == {
        "created_at": "2026-01-01T00:00:00Z",
        "memory_type": "preferences",
        "sources": [ARCHIVE],
        "subject": "alice",
        "topic": "tabs",
        "updated_at": "2026-04-21T10:30:05Z",
        "version": 3,
    }
    assert text.endswith("\n-->\n") and "\n\n<!-- MEMORY_FIELDS\n{" in text
    assert render_memory(content, dict(reversed(list(parsed.items())))) == text  # keys sorted


def test_rendered_memory_file(schemas, snapshot):
    meta = build_meta(schemas["entities"], {"category": "projects", "name": "Atlas"}, version=1, created_at=WHEN, updated_at=WHEN, sources=[ARCHIVE])
    assert render_memory("# Atlas\n\n- The user's project", meta) == snapshot


def test_trailer_cannot_be_closed_early_by_a_value():
    text = render_memory("body", {"note": "a --> b", "version": 1})
    assert text.count("-->") == 1
    assert parse_memory(text) == ("body", {"note": "a --> b", "version": 1})


def test_file_without_trailer_is_all_content():
    assert parse_memory("# Hand written\n\n- fact\n") == ("# Hand written\n\n- fact", {})
    # A mention of the marker inside a line is text, not a trailer.
    assert parse_memory("see <!-- MEMORY_FIELDS docs")[1] == {}


def test_content_mentioning_the_marker_keeps_the_last_trailer():
    text = render_memory("<!-- MEMORY_FIELDS\nnot json\n-->\n\nreal body", {"version": 2})
    assert parse_memory(text) == ("<!-- MEMORY_FIELDS\nnot json\n-->\n\nreal body", {"version": 2})


def test_lines_added_after_the_trailer_are_content():
    # `echo "- fact" >> profile.md` puts the line below the trailer: it is the memory's, not damage.
    text = render_memory("- Editor: Helix", {"version": 2}) + "- Hand fact: likes tea\n\n"
    assert parse_memory(text) == ("- Editor: Helix\n- Hand fact: likes tea", {"version": 2})
    assert parse_memory("<!-- MEMORY_FIELDS\n{\"version\": 1}\n-->\n- only below\n") == ("- only below", {"version": 1})
    assert parse_memory(render_memory("- x", {"version": 1}).rstrip("\n")) == ("- x", {"version": 1})


@pytest.mark.parametrize(
    "trailer, problem",
    [
        ("{\"version\": 1}\n", "not closed"),
        ("{version: 1}\n-->\n", "not valid JSON"),
        ("[1, 2]\n-->\n", "JSON object"),
        ('{"version": 0}\n-->\n', "version"),
        ('{"version": true}\n-->\n', "version"),
        ('{"sources": "viking://x"}\n-->\n', "sources"),
    ],
)
def test_malformed_trailer_is_invalid_input(trailer, problem):
    with pytest.raises(InvalidInput, match=problem):
        parse_memory("body\n\n<!-- MEMORY_FIELDS\n" + trailer)


# --- merge --------------------------------------------------------------------


def test_immutable_keeps_existing_and_replace_takes_incoming(schemas):
    existing = {"name": "fix_ci", "outcome": "failure", "content": "1. ran tests"}
    merged = merge_fields(_upsert(schemas["trajectories"]), existing, {"name": "other", "outcome": "success"})
    assert merged == {"name": "fix_ci", "outcome": "success", "content": "1. ran tests"}


def test_immutable_is_filled_when_missing(schemas):
    merged = merge_fields(schemas["preferences"], {"content": "- x"}, {"subject": "alice", "topic": "tabs"})
    assert merged == {"subject": "alice", "topic": "tabs", "content": "- x"}


def test_unchanged_merge_returns_none(schemas):
    existing = {"subject": "alice", "topic": "tabs", "content": "- Prefers tabs\n- Likes dark mode"}
    incoming = {"subject": "alice", "topic": "tabs", "content": "* prefers   TABS.\n\n- Likes dark mode!"}
    assert merge_fields(schemas["preferences"], existing, incoming) is None
    assert merge_fields(schemas["experiences"], {"name": "n", "content": "same"}, {"content": " same\n"}) is None


def test_new_memory_is_normalised(schemas):
    merged = merge_fields(schemas["profile"], None, {"content": "- Uses vim\n- uses vim.\n- Actually, uses emacs"})
    assert merged == {"content": "- Uses emacs"}


@pytest.mark.parametrize(
    "old, incoming, new",
    [
        ("- Prefers tabs", "- Prefers tabs.\n- Uses black", "- Prefers tabs\n- Uses black"),
        ("Prefers tabs", "- PREFERS TABS", "Prefers tabs"),
        ("", "- a\n\n- b\n- a", "- a\n- b"),
        ("# Atlas", "- A web app", "# Atlas\n\n- A web app"),
        ("# Atlas\n\n- A web app", "# Atlas\n\n- A web app\n- Written in Go", "# Atlas\n\n- A web app\n- Written in Go"),
        # corrections replace the line they contradict
        ("- Prefers tabs\n- Likes dark mode", "- Actually, prefers spaces", "- Prefers spaces\n- Likes dark mode"),
        ("- Editor: vim\n- Works at Acme", "- Correction: editor: emacs", "- Editor: emacs\n- Works at Acme"),
        ("- Uses vim daily\n- Works at Acme", "- No longer uses vim", "- No longer uses vim\n- Works at Acme"),
        ("- Prefers tabs", "- Actually, prefers tabs", "- Prefers tabs"),
        # a correction that matches no line, or two lines equally, is appended
        ("- Prefers tabs\n- Prefers dark mode", "- Actually, prefers spaces", "- Prefers tabs\n- Prefers dark mode\n- Prefers spaces"),
        ("- Works at Acme", "- Actually, likes jazz", "- Works at Acme\n- Likes jazz"),
        # explicit ops
        ("- Prefers tabs\n- Likes jazz", {"replace": "prefers tabs", "with": "- Prefers spaces"}, "- Prefers spaces\n- Likes jazz"),
        ("- Prefers tabs\n- Likes jazz", {"replace": "Prefers tabs.", "with": "Prefers spaces"}, "- Prefers spaces\n- Likes jazz"),
        ("- Prefers tabs\n- Likes jazz", [{"replace": "likes jazz", "with": ""}, "- Likes blues"], "- Prefers tabs\n- Likes blues"),
        ("- Prefers tabs", {"replace": "not there", "with": "- New"}, "- Prefers tabs\n- New"),
        # a line a stored one already says (its "present" probes) changes nothing
        ("- Prefers tabs over spaces", {"supersede": ["hates tabs"], "with": "- Prefers tabs", "present": ["prefers tabs over"]},
         "- Prefers tabs over spaces"),
        ("- Prefers tabs in Go", {"supersede": ["hates tabs"], "with": "- Prefers tabs", "present": ["prefers tabs$"]},
         "- Prefers tabs in Go\n- Prefers tabs"),
    ],
)
def test_patch(old, incoming, new):
    assert patch_text(old, incoming) == new


def test_a_long_patch_normalises_each_line_once(monkeypatch):
    """(found by an audit: 20,000 incoming lines took 9.5 minutes, each normalising every stored line)"""
    from ov.sessions.memory import merge

    calls = []
    real = merge.normalise.__wrapped__
    monkeypatch.setattr(merge, "normalise", lambda text: calls.append(text) or real(text))
    stored = "\n".join(f"- Old fact {n}" for n in range(2000))
    incoming = "\n".join(f"- New fact {n}" for n in range(2000)) + "\n- Old fact 7\n- New fact 3"
    merged = patch_text(stored, incoming)
    assert merged.splitlines() == [*stored.splitlines(), *(f"- New fact {n}" for n in range(2000))]
    assert len(calls) <= 3 * 4002


def test_a_kinds_switch_on_a_long_profile_reads_each_line_once_not_once_per_probe(monkeypatch):
    """(a kind's switch, some 270 probes, on a 3,000-line profile took 10 s and more: every probe
    split every line into its statements again; bench/kind_switch.py)"""
    from ov.sessions.memory import probes
    from ov.sessions.memory import text as tx
    from ov.sessions.memory.kinds import kind_probes
    from ov.sessions.memory.merge import apply_supersede

    calls = []
    real = tx.clauses
    monkeypatch.setattr(tx, "clauses", lambda text: calls.append(text) or real(text))
    probes._first_statement.cache_clear()
    lines = ["- Editor: Neovim", *(f"- Works on project-{n} with Go and uses Vim there" for n in range(3000)), "- Uses Helix for notes"]
    assert apply_supersede(lines, kind_probes("Editor", "Emacs"), "- Editor: Emacs")
    assert lines[0] == "- Editor: Emacs" and lines[-1] == "- Works on project-2999 with Go and uses Vim there"
    assert len(calls) <= 2 * 3002


def test_a_switch_on_a_long_profile_compares_each_line_once(monkeypatch):
    """(each line the switch rewrote was compared with every other line: 800 rewrites of 3,000 lines)"""
    from ov.sessions.memory import merge

    calls = []
    real = merge.normalise.__wrapped__
    monkeypatch.setattr(merge, "normalise", lambda text: calls.append(text) or real(text))
    lines = [f"- Team {n} runs nightly builds on Jenkins" for n in range(2000)] + ["- Runs nightly builds on Buildkite", "- Runs nightly builds on Jenkins"]
    assert merge.apply_swap(lines, "Jenkins", "Buildkite")
    assert lines[:2] == ["- Team 0 runs nightly builds on Buildkite", "- Team 1 runs nightly builds on Buildkite"] and len(lines) == 2001
    assert len(calls) <= 4 * 2002


def test_patch_rejects_bad_ops():
    with pytest.raises(InvalidInput):
        patch_text("x", {"replace": "x"})
    with pytest.raises(InvalidInput):
        patch_text("x", 42)


def test_merge_refuses_unknown_fields_and_add_only(schemas):
    with pytest.raises(InvalidInput, match="colour"):
        merge_fields(schemas["profile"], None, {"colour": "blue"})
    with pytest.raises(ValueError):
        merge_fields(schemas["events"], {"event": "x", "content": "a"}, {"content": "b"})


def _upsert(schema):
    from dataclasses import replace

    return replace(schema, operation_mode="upsert")


# --- extraction ---------------------------------------------------------------


P = "preferences"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("I prefer tabs over spaces.", [(P, {"subject": "alice", "topic": "tabs", "content": "- Prefers tabs over spaces"})]),
        ("i really like short commit messages!", [(P, {"subject": "alice", "topic": "short_commit_messages", "content": "- Likes short commit messages"})]),
        ("I don't like long meetings", [(P, {"subject": "alice", "topic": "long_meetings", "content": "- Does not like long meetings"})]),
        ("I hate flaky tests.", [(P, {"subject": "alice", "topic": "flaky_tests", "content": "- Hates flaky tests"})]),
        ("I always run the tests before committing.", [(P, {"subject": "alice", "topic": "run_tests", "content": "- Always run the tests before committing"})]),
        ("I never push to main", [(P, {"subject": "alice", "topic": "push_to_main", "content": "- Never push to main"})]),
        ("Also, I like to use type hints everywhere.", [(P, {"subject": "alice", "topic": "type_hints_everywhere", "content": "- Likes to use type hints everywhere"})]),
        ("Please remember to run the linter before pushing.", [(P, {"subject": "alice", "topic": "run_linter", "content": "- Remember to run the linter before pushing"})]),
        ("I like `black` for formatting", [(P, {"subject": "alice", "topic": "black", "content": "- Likes `black` for formatting"})]),
        ("I'm a backend engineer.", [("profile", {"content": "- Is a backend engineer"})]),
        ("I am an SRE", [("profile", {"content": "- Is an SRE"})]),
        ("I work at Acme Corp. I work as a data scientist", [("profile", {"content": "- Works at Acme Corp"}), ("profile", {"content": "- Works as a data scientist"})]),
        ("My favourite editor is vim.", [("profile", {"content": "- Favourite editor: vim"})]),
        ("my name is Alice", [("profile", {"content": "- Name: Alice"})]),
        ("My project is called Atlas.", [("entities", {"category": "projects", "name": "Atlas", "content": "# Atlas\n\n- The user's project"})]),
        ("My team is the Platform Team", [("entities", {"category": "teams", "name": "Platform Team", "content": "# Platform Team\n\n- The user's team"})]),
        ("my team is small", [("profile", {"content": "- Team: small"})]),
        ("Remember that I prefer dark mode", [(P, {"subject": "alice", "topic": "dark_mode", "content": "- Prefers dark mode"})]),
        ("Please remember I use fish as my shell.", [("profile", {"content": "- Uses fish as their shell"})]),
        ("Remember that I'm allergic to peanuts", [("profile", {"content": "- Is allergic to peanuts"})]),
        ("note that my laptop runs Linux", [("profile", {"content": "- The user's laptop runs Linux"})]),
        ("Remember that the staging DB is read-only on Fridays.", [("entities", {"category": "systems", "name": "staging DB", "content": "# Staging DB\n\n- Is read-only on Fridays"})]),
        ("Keep in mind that the release is tomorrow.", [("events", {"event": "release", "content": "- The release is tomorrow (2026-04-22)"})]),
        # a dot that starts a name is the name's, at the start of a value as inside one
        ("I prefer .NET for backends.", [(P, {"subject": "alice", "topic": "net", "content": "- Prefers .NET for backends"})]),
        ("My stack is .NET", [("profile", {"content": "- Stack: .NET"})]),
        ("My favourite dotfile is .zshrc", [("profile", {"content": "- Favourite dotfile: .zshrc"})]),
        ("...so my editor is Vim", [("profile", {"content": "- Editor: Vim"})]),  # an ellipsis is no name's
    ],
)
def test_extraction_positive(text, expected):
    assert extracted(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Do I prefer tabs?",
        "I prefer tabs, right?",
        "What do you think I like?",
        "If I prefer dark mode, use it.",
        "When I'm a manager I will delegate.",
        "Should you remember that I like jazz?",
        "`I prefer tabs`",
        "```\nI prefer tabs\nI'm a robot\n```",
        "~~~text\nremember that x is y\n~~~",
        "> I prefer tabs",
        '"I like jazz," she said.',
        "I like that.",
        "I like it",
        "remember this",
        "My point is that tests matter.",
        "She prefers tabs. We like jazz. You always forget.",
        "I'd prefer tabs",
        "no, I meant spaces",
        "I'm a bit tired.",
        "Remember when we fixed the login bug.",
        "Remember that it's fine.",
        "Actually, never mind.",
        "",
    ],
)
def test_extraction_negative(text):
    assert extracted(text) == []


@pytest.mark.parametrize("word, base", [
    ("deploying", "deploy"), ("annotates", "annotate"), ("rebased", "rebase"), ("shipping", None), ("pinned", "pin"),
    ("wrapping", "wrap"), ("retries", "retry"), ("broke", "break"), ("evening", None), ("bring", None), ("ceiling", None),
])
def test_the_base_form_of_a_verb_of_the_work(word, base):
    from ov.sessions.memory import verbs

    assert verbs.base_form(word) == base


@pytest.mark.parametrize(
    "verb, past, third",
    [("understood", True, "understood"), ("forgot", True, "forgot"), ("used", True, "used"), ("need", False, "needs"),
     ("embed", False, "embeds"), ("use", False, "uses"), ("push", False, "pushes"), ("agreed", True, "agreed"),
     ("guaranteed", True, "guaranteed"), ("proceed", False, "proceeds")],
)
def test_a_past_form_is_told_apart_and_left_as_it_is(verb, past, third):
    from ov.sessions.memory import verbs

    assert verbs.is_past(verb) is past
    assert verbs.conjugate(verb) == third


@pytest.mark.parametrize(
    "text, topic",
    [
        ("tabs over spaces", "tabs"),  # ASCII topics keep the names they always had
        ("to use type hints everywhere", "type_hints_everywhere"),
        ("a+b notation", "a+b_notation"),
        ("caf\u00e9 over tea", "caf\u00e9"),  # was "caf"
        ("cafe\u0301 over tea", "caf\u00e9"),  # decomposed: was "cafe", a second file
        ("Je pr\u00e9f\u00e8re le caf\u00e9", "je_pr\u00e9f\u00e8re_le"),  # was "je_pr_f"
        ("\u042f \u043f\u0440\u0435\u0434\u043f\u043e\u0447\u0438\u0442\u0430\u044e \u0442\u0430\u0431\u044b", "\u044f_\u043f\u0440\u0435\u0434\u043f\u043e\u0447\u0438\u0442\u0430\u044e_\u0442\u0430\u0431\u044b"),  # was the fallback
        ("\u0939\u093f\u0928\u094d\u0926\u0940 docs", "\u0939\u093f\u0928\u094d\u0926\u0940_docs"),  # vowel signs stay in the word
        ("C++ for systems code", "cpp"),  # C++ and C# were both "c"
        ("C# for games", "csharp"),
        ("#hashtags", "hashtags"),
    ],
)
def test_a_topic_keeps_letters_of_every_script_in_nfc(text, topic):
    from ov.sessions.memory import topics
    from ov.uri import sanitize_segment

    assert topics.slug(text) == topic
    assert sanitize_segment(topic) == topic or "+" in topic  # the file name is the topic


@pytest.mark.parametrize(
    "text, expected",
    [
        ("My mentor is Dr. Smith. I like jazz.", ["My mentor is Dr. Smith.", "I like jazz."]),
        ("Prof. Lee says hi, e.g. at St. Louis vs. Boston.", ["Prof. Lee says hi, e.g. at St. Louis vs. Boston."]),
        ("Ask Mr. and Mrs. Smith on Main St. My editor is Vim.", ["Ask Mr. and Mrs. Smith on Main St.", "My editor is Vim."]),
        ("J. R. R. Tolkien wrote it. Ask J. Smith. Use plan B. Then rest.",
         ["J. R. R. Tolkien wrote it.", "Ask J. Smith.", "Use plan B.", "Then rest."]),
        ("Acme Inc. in Berlin, red, green, etc. and blue. Acme Inc. The end.",
         ["Acme Inc. in Berlin, red, green, etc. and blue.", "Acme Inc.", "The end."]),
        ("Edit config.py in v1.2 with 3.5 GB. Done! Why? Yes; no", ["Edit config.py in v1.2 with 3.5 GB.", "Done!", "Why?", "Yes;", "no"]),
    ],
)
def test_sentences_end_after_no_abbreviation(text, expected):
    from ov.sessions.memory import text as tx

    assert list(tx.split_sentences(text)) == expected
    assert list(tx.split_sentences("a; b. c", semicolon=False)) == ["a; b.", "c"]


@pytest.mark.parametrize(
    "text, masked",
    [
        ("whose bio reads: I am a teapot and I work at Acme", "whose bio reads: \x000\x00"),
        ("The log:\n\nI am a teapot\nI work at Acme\n\nI prefer tabs", "The log:\n\n\x000\x00\n\x001\x00\n\nI prefer tabs"),
        ('a bio of "I am a teapot" and \'I\'m one\' and users\' files', "a bio of \x000\x00 and \x001\x00 and users' files"),
        ("FYI: I am a teapot. I said: I work at Acme", "FYI: I am a teapot. I said: I work at Acme"),
        # to the end of the colon's sentence on its line: after it the user speaks again
        ("Error: none. My editor is Vim.", "Error: \x000\x00. My editor is Vim."),
        ("bio reads: I am a teapot. I work at Acme", "bio reads: \x000\x00. I work at Acme"),
        ("Error: e.g. a teapot! Output: I am one. I work", "Error: \x000\x00! Output: \x001\x00. I work"),
        ("The docs say so. Settings: I am a teapot", "The docs say so. Settings: I am a teapot"),
    ],
)
def test_what_is_quoted_is_masked(text, masked):
    from ov.sessions.memory import quoted
    from ov.sessions.memory import text as tx

    spans: list[str] = []
    assert quoted.mask_quoted(text, spans) == masked
    assert tx.unmask(masked, spans) == text


def test_a_colons_lead_is_read_a_bounded_length_once(monkeypatch):
    """A line of many colons ("key: value, key: value, ...") is read in time linear in its length:
    each colon's lead is read once, and no further back than a few words."""
    from ov.sessions.memory import quoted

    scanned: list[int] = []

    class Counting:
        def __init__(self, regex):
            self.regex = regex

        def search(self, text):
            scanned.append(len(text))
            return self.regex.search(text)

        def findall(self, text):
            scanned.append(len(text))
            return self.regex.findall(text)

    for name in ("_REPORTING_WORD_RE", "_WORD_RE", "_BY_THE_USER_RE"):
        monkeypatch.setattr(quoted, name, Counting(getattr(quoted, name)))
    colons = 2000
    quoted.mask_quoted("I prefer tabs. Settings: " + "key: value, " * colons + "the log says: I am a teapot", spans := [])
    assert spans == ["I am a teapot"]
    assert max(scanned) <= quoted._LEAD_CHARS and len(scanned) <= 3 * (colons + 2)


@pytest.mark.parametrize(
    "text, kept",
    [
        ("Read this:\n\n    I prefer tabs\n\n    my editor = vim\nMy shell is fish", "Read this:\n\n\n\n\nMy shell is fish"),
        ("    I prefer tabs\nI prefer spaces", "\nI prefer spaces"),  # a block may open the message
        ("I prefer tabs:\n    - in Go\n    - in Make", "I prefer tabs:\n    - in Go\n    - in Make"),  # no blank line: no block
        # (found by a review) in a list, an indented block goes on with the item: list content, not code
        ("About me:\n\n- Editors:\n\n    - My editor is Emacs\n    - I prefer tabs", "About me:\n\n- Editors:\n\n    - My editor is Emacs\n    - I prefer tabs"),
        ("1. Work\n\n    I work at Acme.\n\n2. Tools\n\n    My editor is Emacs.", "1. Work\n\n    I work at Acme.\n\n2. Tools\n\n    My editor is Emacs."),
        ("- Work\n\n        git log -1\n\n  I work at Acme.", "- Work\n\n\n\n  I work at Acme."),  # four past the item's text: code
        ("- Work\n\nRead this:\n\n    I prefer tabs", "- Work\n\nRead this:\n\n"),  # a paragraph ends the list
    ],
)
def test_an_indented_block_is_code(text, kept):
    from ov.sessions.memory import text as tx

    assert tx.strip_code(text)[0] == kept


@pytest.mark.parametrize(
    "text, pasted",
    [
        ("Reply to this?\n\nFrom: Dana <dana@acme.com>\nI prefer tabs.\n\nMy editor is Vim.", [2, 3, 5]),
        ("Any ideas?\nTo: ops\nSubject: x\n\nI prefer tabs", [1, 2, 4]),
        ("commit 3f2a9c1\nI prefer tabs", [0, 1]),
        ("Bob Smith  10:42 AM\nI prefer tabs", [0, 1]),
        ("Hi Priya,\nI prefer tabs.\nBest, Sarah\nMy editor is Vim.", [0, 1, 2]),
        ("Hi Priya,\nI prefer tabs.\n\nThanks,\nSarah", [0, 1, 3, 4]),
        # the user's own: a greeting to the agent with no named writer, a time said in passing, one header
        ("Hi,\nI prefer tabs.\nThanks!", []),
        ("The standup is at 10:30 AM. I prefer tabs.\nSubject: tabs", []),
        # (found by a review) a day's plan is no speaker; one word and a time is one only with another below
        ("My schedule:\nMonday 9:30\nI prefer async standups over meetings.", []),
        ("Standup 10:42\nI prefer tabs over spaces", []),
        ("Alice 10:42\nI prefer tabs", []),
        ("Alice 10:42\nI prefer tabs\nBob 10:43\nok", [0, 1, 2, 3]),
        # (found by a review) a message that greets and thanks the agent, or that its user signs, is the user's
        ("Hey Gemini,\nI prefer tabs over spaces.\nThanks, Gemini", []),
        ("Hello Claude!\nI prefer tabs over spaces. Please reformat.\nCheers Claude", []),
        ("Hi,\nI prefer tabs over spaces.\nThanks,\nBob", []),
        ("Hi there,\nI prefer tabs.\nBest, Sarah", []),
        ("Dear team,\nI prefer tabs.\nThanks,\nSarah", [0, 1, 2, 3]),
        ("@bob 10:42\nI prefer tabs", [0, 1]),
        # a traceback, recognised as retrieval recognises one (ov.tracebacks): the user's words around it stay theirs
        ('Why?\n\nTraceback (most recent call last):\n  File "a.py", line 3, in f\n    g()\nValueError: I live in Oslo\n\nI use Vim.', [2, 3, 4, 5]),
        ('I use Vim.\n  File "a.py", line 3, in f\n    g()\n  File "b.py", line 9, in g\n    h()\nOSError: no\n\nok', [1, 2, 3, 4, 5]),
        ("It broke:\nTypeError: my editor is undefined\n    at f (src/a.js:1:2)\n    at g (src/b.js:3:4)\nI prefer tabs", [1, 2, 3, 4]),
        ("My editor is Vim\n    at f (src/a.js:1:2)\n    at g (src/b.js:3:4)", [1, 2]),  # no error above the frames: the user's line
        ("I work at Acme\n    at the office (main building:3)", []),  # one "at" line is no traceback
        # (found by an audit) a text given to be worked on after a colon: to the end of the message
        ("Rewrite this in a friendlier tone:\nI am the maintainer. I prefer short answers.\n\nMy name is Lena.", [1, 3]),
        ("Could you proofread the following:\n\nMy name is Lena and I work at Globex.", [2]),
        ("I'd like you to summarize this for the changelog:\nI moved to Berlin.", [1]),
        ("Fix the typos in my bio:\nI am a sofware enginer at Acme.", [1]),
        ("Here is the README intro, tighten it:\n\nMy name is Ana.", [2]),
        # the user's own: no verb asking for a change opens the colon's clause, or nothing follows the verb
        ("I edit the docs: I prefer short pages.", []),
        ("Two things:\nI prefer tabs.", []),
        ("Edit:\nI meant tabs.", []),
        ("Translate the error messages to German.\nMy name is Dmitri.", []),
    ],
)
def test_what_was_pasted_is_masked_line_by_line(text, pasted):
    from ov.sessions.memory import pasted as pasting
    from ov.sessions.memory import text as tx

    spans: list[str] = []
    masked = pasting.mask_pasted(text, spans).split("\n")
    assert [i for i, line in enumerate(masked) if line.startswith("\x00")] == pasted
    assert tx.unmask("\n".join(masked), spans) == text


@pytest.mark.parametrize(
    "text, kept",
    [
        ("ok, make it more formal: I live in Oslo and I prefer tea", "ok, make it more formal: "),
        ("Please translate into French:  My name is Dmitri.\nI prefer tea.", "Please translate into French:  \n"),
        ("Note: I prefer tabs.", "Note: I prefer tabs."),
    ],
)
def test_a_text_to_work_on_after_a_colon_on_its_line_is_masked(text, kept):
    from ov.sessions.memory import pasted as pasting
    from ov.sessions.memory import text as tx

    spans: list[str] = []
    masked = pasting.mask_pasted(text, spans)
    assert tx.unmask(masked, [""] * len(spans)) == kept and tx.unmask(masked, spans) == text


@pytest.mark.parametrize(
    "sentence, framed",
    [("In the test fixture, my name is John", True), ("my name is John in this example.", True), ("Suppose I work at Initech", True),
     ("For the demo: I live in Oslo", True), ("I use pytest for the mock server", False), ("For example, I use Vim", False)],
)
def test_a_sentence_framed_as_made_up(sentence, framed):
    from ov.sessions.memory import quoted

    assert quoted.framed(sentence) is framed


@pytest.mark.parametrize(
    "text, moment",
    [("below", True), ("above the bakery", False), ("early returns here", True), ("how fast this is", True), ("this API", True),
     ("tabs in this repo", False), ("the frontend this sprint", True), ("Kotlin these days", False), ("tools that say what they do", False),
     ("the version above", True), ("away for now", False)],
)
def test_what_is_of_the_moment(text, moment):
    from ov.sessions.memory.standing import of_the_moment

    assert of_the_moment(text) is moment


@pytest.mark.parametrize(
    "sentence, following, back",
    [("I prefer tabs - said no one ever", "", True), ("My editor is Vim, I think.", "", True), ("I love meetings...", "NOT!", True),
     ("I like Java.", "Just kidding.", True), ("I prefer tabs", "I like jazz.", False), ("I'm not a fan of Java", "", False),
     ("I prefer tabs, I believe.", "", True)],  # (found by a review) a hedge as "I think" is
)
def test_a_sentence_that_takes_itself_back(sentence, following, back):
    from ov.sessions.memory.standing import taken_back

    assert taken_back(sentence, following) is back


@pytest.mark.parametrize(
    "sentence, parts",
    [("I prefer tabs, my editor is Emacs", ["I prefer tabs", "my editor is Emacs"]), ("I like jazz, I hate Java", ["I like jazz", "I hate Java"]),
     ("Actually, I prefer tabs", ["Actually, I prefer tabs"]), ("I was wrong, my editor is Vim", ["I was wrong, my editor is Vim"]),
     ("I mean, I prefer tabs", ["I mean, I prefer tabs"]), ("No, I meant spaces", ["No, I meant spaces"]),
     # a clause of the project at hand is one of its own; the project as a thing liked is not
     ("I want tests first, whereas this project writes them last", ["I want tests first", "this project writes them last"]),
     ("I use pnpm but in the current repo we use yarn", ["I use pnpm", "in the current repo we use yarn"]),
     ("I like this repo and its tests", ["I like this repo and its tests"]), ("I enjoy working in this codebase", ["I enjoy working in this codebase"]),
     # the team's statement after the team's or the user's (scale audit #3), not after a scope or a marker
     ("We no longer deploy with helm, we deploy with argocd", ["We no longer deploy with helm", "we deploy with argocd"]),
     ("We use Postgres, our CI runs on Jenkins", ["We use Postgres", "our CI runs on Jenkins"]),
     ("In the payments service, we use Kafka", ["In the payments service, we use Kafka"]),
     ("Actually, we moved CI to Buildkite", ["Actually, we moved CI to Buildkite"])],
)
def test_a_comma_splits_after_a_first_person_clause(sentence, parts):
    from ov.sessions.memory import text as tx

    assert tx.clauses(sentence) == parts


@pytest.mark.parametrize(
    "sentence, reported",
    [("the user says I prefer tabs", "I prefer tabs"), ("Bob told me that my editor is old, but I like it", "my editor is old"),
     ("I said I prefer tabs", None), ("let me tell you my editor is Vim", None), ("I prefer tools that say what they do", None)],
)
def test_what_someone_else_says_is_masked(sentence, reported):
    from ov.sessions.memory import quoted

    spans: list[str] = []
    masked = quoted.mask_reported(sentence, spans)
    assert spans == ([reported] if reported else []) and (masked == sentence) is (reported is None)


@pytest.mark.parametrize(
    "person, text, expected",
    [("they", "review my own PRs, not mine, myself", "review their own PRs, not theirs, themselves"),
     ("you", "ask me about my PRs", "ask you about your PRs"),
     ("they", 'quote "my way" and `my.py`, My Chemical Romance', 'quote "my way" and `my.py`, My Chemical Romance')],
)
def test_first_person_voiced(person, text, expected):
    from ov.sessions.memory import text as tx

    assert tx.voiced(text, person) == expected


@pytest.mark.parametrize("text, topic", [
    ("need coffee", "coffee"), ("when tests are fast", "tests"), ("tabs, e.g. in Go", "tabs"), ("寿司", "寿司"),
    # ... but a name may start with one of those words: then it is the topic's first word
    ("VS Code for Go", "vs_code"), ("vs code", "vs_code"), ("tabs vs spaces", "tabs"), ("AT&T over Verizon", "at_t"),
    ("CAN bus tools", "can_bus_tools"), ("prefer Will Smith films", "will_smith_films"), ("If the build fails", "build_fails"),
    # what "over" (instead of, rather than) follows is the topic, even a word that starts none
    ("Make over CMake", "make"), ("using Make instead of CMake", "make"), ("Make rather than CMake", "make"),
    ("tabs over spaces", "tabs"), ("not over it", "it"), ("Make sure tests pass", "sure_tests_pass"),
    # ... but not a verb of what is done over something: then it is what follows "over"
    ("working over SSH", "ssh"), ("to work over the weekend", "weekend"), ("used over the weekend", "weekend"),
    # only the first clause's words (found by an audit: "tabs, my editor is Emacs" was tabs_my_editor)
    ("tabs, my editor is Emacs", "tabs"), ("tabs - said no one ever", "tabs"), ("tabs; they line up", "tabs"),
    ("Go, which compiles fast", "go"), ("short, focused commits", "short_focused_commits"),
    # a verb of the work names its topic in its base form, whatever form it was said in (found by an
    # audit: "I prefer running tests with pytest -x" was running_tests.md beside run_tests.md)
    ("writing docs before code", "write_docs"), ("caching API responses", "cache_api_responses"),
    ("committing early and often", "commit_early"), ("Squashing commits before merge", "squash_commits"),
    # ... not a word no such verb makes, nor a first word in -s or -ed (a plural, an adjective)
    ("morning standups", "morning_standups"), ("string formatting", "string_formatting"), ("typed Python", "typed_python"),
    ("tests in CI", "tests"),
    # no clause's tail ("even though", "only when") and no clause after a comma telling what happened
    # (found by an audit: tabs_even_though.md, pnpm_npm_broke.md)
    ("tabs although the linter complains", "tabs"), ("dark mode only when coding", "dark_mode"), ("rebasing except on main", "rebase"),
    ("Postgres, MySQL crashed twice", "postgres"), ("small, carefully reviewed PRs", "small_carefully_reviewed"),
])
def test_a_topic_starts_with_no_qualifier(text, topic):
    from ov.sessions.memory import topics

    assert topics.slug(text) == topic


@pytest.mark.parametrize("text, name", [
    ("Redis went down during the demo", "redis"), ("the nightly job crashed again", "nightly_job"),
    ("Merged the auth refactor yesterday", "auth_refactor"), ("Priya joined the team", "priya"), ("Alfred resigned", "alfred"),
    ("a hundred users signed up", "hundred_users"), ("Ted is out sick", "ted"),
    # ... but a form in -ed that says a state is a content word
    ("we rolled the new billing service out", "new_billing_service"), ("I shipped the auth fix to staging", "auth_fix"),
    ("so exhausted after the offsite", "exhausted"), ("I'm worried about the launch", "worried_about_launch"), ("I got engaged", "engaged"),
])
def test_an_events_name_holds_no_verb_of_what_happened(text, name):
    from ov.sessions.memory import topics

    assert topics.event_name(text) == name


@pytest.mark.parametrize("text, former", [
    ("caf\u00e9 over tea", (("caf", "cafe"), "caf\u00e9")), ("cafe\u0301 over tea", (("caf", "cafe"), "caf\u00e9")),
    ("C++ for systems code", (("c++",), "C++")), ("C# for games", (("c#",), "C#")),
    ("na\u00efve Bayes", (("na_ve_bayes", "nai_ve_bayes"), "na\u00efve")),
    ("Make over CMake", (("cmake",), "Make")),  # before "over" was read
    ("reviewing PRs daily", (("reviewing_prs_daily",), "reviewing")),  # before a verb's base form named it
    ("tabs over spaces", None), ("C", None), ("\u0442\u0430\u0431\u044b", None),  # the same name, or none an older ov gave
])
def test_the_topic_an_older_ov_gave(text, former):
    from ov.sessions.memory import topics

    assert topics.former_slug(text) == former


@pytest.mark.parametrize("text, topic, named", [
    ("Prefers Make over CMake", "make", True), ("Prefers CMake", "make", False), ("Prefers short commit messages", "short_commit_messages", True),
    ("Prefers the dark mode", "dark_mode", True), ("Prefers tools of the trade", "tools_of_trade", True),
    # the words as topics spell them: the symbols a file name cannot hold are spelled out, a word is matched whole
    ("Prefers C++ for systems code", "cpp", True), ("Prefers C++", "c", False), ("Prefers C", "cpp", False),
    ("Likes C#.", "csharp", True), ("Prefers F#", "fsharp", True), ("Prefers F#", "f", False),
    ("Prefers Objective-C", "objective-c", True), ("Prefers Objective-C++", "objective-c", False), ("Prefers Objective-C++", "objective-cpp", True),
    ("Prefers .NET", "net", True), ("Prefers ASP.NET Core", "net", False), ("Prefers ASP.NET Core", "asp.net_core", True),
    ("Prefers Node.js.", "node.js", True), ("Prefers Node.js", "node", False), ("Prefers Node", "node.js", False),
    ("Prefers caf\u0065\u0301", "caf\u00e9", True),  # typed decomposed: the same word
])
def test_a_line_names_a_topic_as_topics_spell_it(text, topic, named):
    # (found by a review: general.md's lines of C++, C# and F# never moved to their files, and "ASP.NET" moved to net.md)
    from ov.sessions.memory import topics

    assert topics.names_topic(text, topic) is named


def test_a_preference_goes_into_the_file_an_older_ov_named_for_its_topic(ov, ov_home):
    # (found by a review: "caf.md" and "c.md", as ov named café and C++ before, were never found again)
    folder = ov_home / "accounts/default/user/default/memories/preferences/default"
    assert ov("remember", "I prefer caf\u00e9 over tea").exit_code == 0
    assert ov("remember", "I prefer C++ over Rust").exit_code == 0
    assert ov("remember", "I prefer C for firmware").exit_code == 0
    (folder / "caf\u00e9.md").rename(folder / "caf.md")
    (folder / "cpp.md").rename(folder / "c_old.md")
    (folder / "c.md").rename(folder / "c_firmware.md")
    (folder / "c_old.md").rename(folder / "c.md")
    assert ov("snapshot", "commit", "-m", "the names an older ov gave").exit_code == 0
    assert ov("remember", "I prefer tea over cafe\u0301").exit_code == 0  # decomposed, as macOS types it
    assert ov("remember", "I prefer C++ for systems code").exit_code == 0
    names = sorted(p.name for p in folder.glob("*.md"))
    assert names == ["c.md", "c_firmware.md", "caf.md", "tea.md"]
    assert "No longer prefers caf" in (folder / "caf.md").read_text()
    assert "- Prefers C++ over Rust\n- Prefers C++ for systems code" in (folder / "c.md").read_text()


def test_make_over_cmake_goes_into_the_cmake_file_an_older_ov_wrote_it_to(ov, ov_home):
    folder = ov_home / "accounts/default/user/default/memories/preferences/default"
    assert ov("remember", "I prefer Make over CMake").exit_code == 0
    (folder / "make.md").rename(folder / "cmake.md")
    assert ov("snapshot", "commit", "-m", "the name an older ov gave").exit_code == 0
    assert ov("remember", "I prefer Make over CMake for small projects").exit_code == 0
    assert sorted(p.name for p in folder.glob("*.md")) == ["cmake.md"]
    assert "- Prefers Make over CMake\n- Prefers Make over CMake for small projects" in (folder / "cmake.md").read_text()


def test_an_older_name_of_another_topic_is_left_alone(ov, ov_home):
    folder = ov_home / "accounts/default/user/default/memories/preferences/default"
    assert ov("remember", "I prefer C for firmware").exit_code == 0  # c.md, as C++ was named too
    assert ov("remember", "I prefer C# for games").exit_code == 0
    assert ov("remember", "I prefer CMake").exit_code == 0
    assert ov("remember", "I prefer Make over CMake").exit_code == 0  # cmake.md never names Make: not its file
    assert sorted(p.name for p in folder.glob("*.md")) == ["c.md", "cmake.md", "csharp.md", "make.md"]
    assert "C#" not in (folder / "c.md").read_text()


def test_one_message_text_gives_what_was_said_or_all_of_it():
    # (found by a review: memories and the rest of ov each had a message_text of their own)
    from ov.sessions.memory import text as tx
    from ov.sessions.messages import message_text

    said = {"role": "user", "parts": [
        {"type": "text", "text": "I prefer tabs."},
        {"type": "tool", "tool_name": "bash", "tool_output": "my editor is Emacs", "tool_status": "completed"},
        {"type": "context", "uri": "viking://resources/x"},
        {"type": "text", "text": "Done."},
    ]}
    assert message_text(said, said_only=True) == "I prefer tabs.\n\nDone."  # a tool's output is no one's words
    assert message_text(said) == "I prefer tabs.\n[tool bash completed] my editor is Emacs\n[context viking://resources/x]\nDone."
    legacy = {"role": "user", "content": "My shell is fish"}  # an older ov's line
    assert message_text(legacy) == message_text(legacy, said_only=True) == "My shell is fish"
    assert not hasattr(tx, "message_text")


def test_assistant_and_tool_text_is_ignored():
    messages = [
        msg("I prefer tabs. I'm a robot.", role="assistant"),
        msg("remember that I like jazz", role="system"),
        {"id": "t", "role": "user", "parts": [{"type": "tool", "tool_output": "I prefer spaces"}]},
    ]
    assert extract_explicit(messages, when=WHEN) == []


def test_subject_defaults_to_user_and_legacy_content_is_read():
    candidates = extract_explicit([{"id": "x", "role": "user", "content": "I prefer tabs"}], when=WHEN)
    assert [(c.memory_type, c.fields, c.source_message_ids) for c in candidates] == [
        ("preferences", {"subject": "user", "topic": "tabs", "content": "- Prefers tabs"}, ["x"])
    ]


def test_relative_dates_use_the_message_time_or_when():
    with_time = extract_explicit([msg("Remember that the demo is tomorrow", created_at="2026-05-01T08:00:00Z")], when=WHEN)
    assert with_time[0].fields["content"] == "- The demo is tomorrow (2026-05-02)"
    without = extract_explicit([msg("Remember that the demo was yesterday", created_at=None)], when=WHEN)
    assert without[0].fields["content"] == "- The demo was yesterday (2026-04-20)"


def test_repeated_statements_merge_their_sources():
    messages = [msg("I prefer tabs.", id="a"), msg("Hi", id="b"), msg("i prefer tabs", id="c")]
    assert [c.source_message_ids for c in extract_explicit(messages, when=WHEN)] == [["a", "c"]]


@pytest.mark.parametrize(
    "texts, expected",
    [
        # a whole statement corrects the latest recent one of its type; the file is named for what it says
        (["I prefer tabs.", "Actually, I prefer spaces."], [(P, {"subject": "alice", "topic": "spaces", "content": "- Prefers spaces"})]),
        (["I prefer tabs. No, I meant spaces."], [(P, {"subject": "alice", "topic": "spaces", "content": "- Prefers spaces"})]),
        (["I'm a developer", "sorry, I meant manager"], [("profile", {"content": "- Is a manager"})]),
        (["I work at Acme. My editor is vim.", "Correction: I work at Globex"], [("profile", {"content": "- Works at Globex"}), ("profile", {"content": "- Editor: vim"})]),
        (["My project is called Atlas", "no, I meant Apollo"], [("entities", {"category": "projects", "name": "Apollo", "content": "# Apollo\n\n- The user's project"})]),
        (["Remember that the demo is on Friday", "actually, remember that the demo is on Monday"], [("events", {"event": "demo", "content": "- The demo is on Monday"})]),
        # nothing recent to correct: kept as a correction (Candidate.corrects), so a merge can replace the stored line
        (["Actually, I work at Globex."], [("profile", {"content": "- Works at Globex"})]),
        (["I prefer tabs.", "Thanks", "Actually, I prefer spaces."], [(P, {"subject": "alice", "topic": "tabs", "content": "- Prefers tabs"}), (P, {"subject": "alice", "topic": "spaces", "content": "- Prefers spaces"})]),
        # a fragment with nothing it can correct is dropped
        (["Remember that I use fish", "I meant zsh"], [("profile", {"content": "- Uses zsh"})]),
        (["Remember that the demo is on Friday", "I meant Monday"], [("events", {"event": "demo", "content": "- The demo is on Friday"})]),
        # "actually" needs a whole statement, and "I meant" a short fragment
        (["I prefer tabs.", "Actually that's fine."], [(P, {"subject": "alice", "topic": "tabs", "content": "- Prefers tabs"})]),
        (["I prefer tabs.", "I meant that we should discuss it again next week"], [(P, {"subject": "alice", "topic": "tabs", "content": "- Prefers tabs"})]),
        (["I prefer not to use ORMs"], [(P, {"subject": "alice", "topic": "orms", "content": "- Prefers not to use ORMs"})]),
    ],
)
def test_extraction_corrections(texts, expected):
    assert extracted(*texts) == expected


def test_correction_sources_include_both_messages():
    candidates = extract_explicit([msg("I prefer tabs", id="a"), msg("actually, I prefer spaces", id="b")], when=WHEN)
    assert candidates[0].source_message_ids == ["a", "b"]


def test_marked_correction_replaces_the_stored_line(schemas):
    stored = {"profile.md": render_memory("- Works at Acme\n- Editor: vim", {"memory_type": "profile", "version": 1})}
    candidates = extract_explicit([msg("Actually, I work at Globex now.")], when=WHEN)
    plan = plan_memory_writes(schemas, candidates, read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert plan.operations["updates"][0]["after"] == "- Works at Globex\n- Editor: vim"


# --- planning -----------------------------------------------------------------


def test_same_topic_in_one_session_is_one_file(schemas):
    candidates = extract_explicit([msg("I prefer tabs for indentation. I like tabs because they are accessible.")], when=WHEN, user="alice")
    assert len(candidates) == 2
    plan = plan_memory_writes(schemas, candidates, read=files({}), when=WHEN, archive_uri=ARCHIVE)
    assert list(plan.writes) == ["preferences/alice/tabs.md"]
    assert plan.operations == {
        "adds": [
            {
                "path": "preferences/alice/tabs.md",
                "memory_type": "preferences",
                "after": "- Prefers tabs for indentation\n- Likes tabs because they are accessible",
            }
        ],
        "updates": [],
        "deletes": [],
    }
    content, meta = parse_memory(plan.writes["preferences/alice/tabs.md"])
    assert meta["version"] == 1 and meta["sources"] == [ARCHIVE] and meta["created_at"] == meta["updated_at"] == "2026-04-21T10:30:05Z"


def test_existing_preference_file_is_updated(schemas):
    created = datetime(2026, 3, 1, tzinfo=UTC)
    old_meta = build_meta(schemas["preferences"], {"subject": "alice", "topic": "tabs"}, version=2, created_at=created, updated_at=created, sources=["viking://old"])
    stored = {"preferences/alice/tabs.md": render_memory("- Prefers tabs", old_meta)}
    candidates = [
        Candidate("preferences", {"subject": "alice", "topic": "tabs", "content": "- prefers tabs.\n- Uses 4-wide tabs"}, ["m1"]),
    ]
    plan = plan_memory_writes(schemas, candidates, read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert plan.operations["updates"] == [
        {"path": "preferences/alice/tabs.md", "memory_type": "preferences", "before": "- Prefers tabs", "after": "- Prefers tabs\n- Uses 4-wide tabs"}
    ]
    assert plan.operations["adds"] == []
    content, meta = parse_memory(plan.writes["preferences/alice/tabs.md"])
    assert content == "- Prefers tabs\n- Uses 4-wide tabs"
    assert meta["version"] == 3
    assert meta["created_at"] == "2026-03-01T00:00:00Z" and meta["updated_at"] == "2026-04-21T10:30:05Z"
    assert meta["sources"] == ["viking://old", ARCHIVE]


def test_unchanged_rewrite_is_skipped(schemas):
    stored = {"profile.md": render_memory("- Works at Acme", {"memory_type": "profile", "version": 4})}
    candidates = [Candidate("profile", {"content": "- works at acme."}, ["m1"])]
    plan = plan_memory_writes(schemas, candidates, read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert plan.writes == {} and plan.is_empty


def test_hand_written_file_without_trailer_is_merged(schemas):
    stored = {"profile.md": "# Alice\n\n- Works at Acme\n"}
    plan = plan_memory_writes(schemas, [Candidate("profile", {"content": "- Uses vim"})], read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert plan.operations["updates"][0]["before"] == "# Alice\n\n- Works at Acme"
    assert parse_memory(plan.writes["profile.md"])[1]["version"] == 1


def _note(event: str, line: str) -> Candidate:
    return Candidate("events", {"event": event, "content": f"- {line}"})


def test_a_note_giving_a_new_value_replaces_the_note_of_the_old_value_only(schemas):
    day = schemas["events"].path_for({"event": "migration"}, WHEN)
    stored = {day: "- The migration is blocked by legal\n", day.replace(".md", "_2.md"): "- The migration is in staging\n"}
    plan = plan_memory_writes(schemas, [_note("migration", "The migration was moved to production")], read=files(stored), when=WHEN,
                              archive_uri=ARCHIVE)
    # "moved to" gives a place as "is in" did; "is blocked by" says another thing of it, which stays
    assert list(plan.writes) == [day.replace(".md", "_2.md")]
    assert [(op["before"], op["after"]) for op in plan.operations["updates"]] == [
        ("- The migration is in staging", "- The migration was moved to production")]
    assert plan.operations["adds"] == plan.operations["deletes"] == []


def test_a_note_giving_a_new_value_moves_another_days_note_of_the_old_to_today(schemas):
    events = schemas["events"]
    old = events.path_for({"event": "team_lunch"}, WHEN - timedelta(days=40))
    created = WHEN - timedelta(days=40)
    meta = build_meta(events, {"event": "team_lunch"}, version=1, created_at=created, updated_at=created, sources=["ov remember"])
    stored = {old: render_memory("- The team lunch is at Nopa", meta), events.path_for({"event": "team_lunch"}, WHEN - timedelta(days=90)): "- The team lunch is at Zuni\n"}
    plan = plan_memory_writes(schemas, [_note("team_lunch", "Our team lunch is at Rintaro now")], read=files(stored), when=WHEN,
                              archive_uri=ARCHIVE)
    new = events.path_for({"event": "team_lunch"}, WHEN)
    assert plan.writes[old] is None
    content, moved = parse_memory(plan.writes[new])
    assert content == "- Our team lunch is at Rintaro now"
    # one memory whose value changed: an update naming both files, its history carried over
    assert plan.operations["updates"] == [{"path": new, "before_path": old, "memory_type": "events",
                                           "before": "- The team lunch is at Nopa", "after": "- Our team lunch is at Rintaro now"}]
    assert plan.operations["adds"] == plan.operations["deletes"] == []
    assert moved["version"] == 2 and moved["created_at"] == "2026-03-12T10:30:05Z" and moved["sources"] == ["ov remember", ARCHIVE]
    diff = build_memory_diff(ARCHIVE, plan.operations, WHEN, "viking://user/alice/memories")
    assert diff["operations"]["updates"][0]["uri"] == f"viking://user/alice/memories/{new}"
    assert diff["operations"]["updates"][0]["before_uri"] == f"viking://user/alice/memories/{old}"
    # said again another day, the value is remembered already
    again = plan_memory_writes(schemas, [_note("team_lunch", "The team lunch is at Nopa.")], read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert again.is_empty


@pytest.mark.parametrize("line", ["It is Friday", "The build is not green", "The release is blocked by the review"])
def test_a_note_not_giving_its_subject_a_plain_value_replaces_nothing(schemas, line):
    day = schemas["events"].path_for({"event": "release"}, WHEN)
    stored = {day: "- The release is on Friday\n"}
    plan = plan_memory_writes(schemas, [_note("release", line)], read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert list(plan.writes) == [day.replace(".md", "_2.md")]


def test_add_only_collisions_get_a_suffix(schemas):
    stored = {"events/2026/04/21/release.md": "existing"}
    candidates = [
        Candidate("events", {"event": "release", "content": "- First"}),
        Candidate("events", {"event": "release", "content": "- Second"}),
        Candidate("events", {"event": "launch", "content": "- Third"}),
    ]
    plan = plan_memory_writes(schemas, candidates, read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert list(plan.writes) == ["events/2026/04/21/release_2.md", "events/2026/04/21/release_3.md", "events/2026/04/21/launch.md"]
    assert [op["after"] for op in plan.operations["adds"]] == ["- First", "- Second", "- Third"]
    assert plan.operations["updates"] == []


def test_experience_needs_its_three_sections(schemas):
    good = "## Situation\nCI was flaky.\n\n## Approach\nRetried.\n\n## Reflect\nPin versions."
    ok = plan_memory_writes(schemas, [Candidate("experiences", {"name": "flaky_ci", "content": good})], read=files({}), when=WHEN, archive_uri=ARCHIVE)
    assert list(ok.writes) == ["experiences/flaky_ci.md"]
    with pytest.raises(InvalidInput, match="Reflect"):
        plan_memory_writes(schemas, [Candidate("experiences", {"name": "x", "content": "## Situation\na\n## Approach\nb"})], read=files({}), when=WHEN, archive_uri=ARCHIVE)


def test_plan_refuses_unknown_types_and_repairs_a_broken_trailer(schemas):
    with pytest.raises(InvalidInput, match="unknown memory type"):
        plan_memory_writes(schemas, [Candidate("soul", {"content": "x"})], read=files({}), when=WHEN, archive_uri=ARCHIVE)
    # A trailer a hand broke is written anew; what the file says stays (refusing it lost every
    # memory of the session being committed)
    broken = {"profile.md": "- x\n\n<!-- MEMORY_FIELDS\n{oops\n-->\n"}
    plan = plan_memory_writes(schemas, [Candidate("profile", {"content": "- y"})], read=files(broken), when=WHEN, archive_uri=ARCHIVE)
    content, meta = parse_memory(plan.writes["profile.md"])
    assert content.splitlines() == ["- x", "- y"] and meta["memory_type"] == "profile"
    unclosed = {"profile.md": render_memory("- x", {"memory_type": "profile", "version": 3}).replace("\n-->", "\n") + "- z\n"}
    plan = plan_memory_writes(schemas, [Candidate("profile", {"content": "- y"})], read=files(unclosed), when=WHEN, archive_uri=ARCHIVE)
    assert parse_memory(plan.writes["profile.md"])[0].splitlines() == ["- x", "- z", "- y"]


# --- memory_diff.json ---------------------------------------------------------


def test_memory_diff_snapshot(schemas, snapshot):
    stored = {"profile.md": render_memory("- Works at Acme", {"memory_type": "profile", "version": 1})}
    messages = [
        msg("Hi! I prefer tabs over spaces. Actually, I work at Globex.", id="m1"),
        msg("Remember that the release is tomorrow. My project is called Atlas.", id="m2"),
        msg("Do I like jazz?", id="m3"),
        msg("Noted: you prefer tabs.", role="assistant", id="m4"),
    ]
    candidates = extract_explicit(messages, when=WHEN, user="alice")
    plan = plan_memory_writes(schemas, candidates, read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    diff = build_memory_diff(ARCHIVE, plan.operations, WHEN, MEMORIES + "/")
    assert diff["summary"] == {"total_adds": 3, "total_updates": 1, "total_deletes": 0}
    assert all(op["uri"].startswith(MEMORIES + "/") for kind in diff["operations"].values() for op in kind)
    # The text as written to memory_diff.json: key order is part of the format.
    assert json.dumps(diff, indent=2, ensure_ascii=False) == snapshot
    assert sorted(plan.writes) == snapshot


def test_empty_memory_diff_is_well_formed(schemas):
    plan = plan_memory_writes(schemas, [], read=files({}), when=WHEN, archive_uri=ARCHIVE)
    assert plan.is_empty
    assert build_memory_diff(ARCHIVE, plan.operations, "2026-04-21T10:30:05Z", MEMORIES) == {
        "archive_uri": ARCHIVE,
        "trace_id": None,
        "extracted_at": "2026-04-21T10:30:05Z",
        "operations": {"adds": [], "updates": [], "deletes": []},
        "summary": {"total_adds": 0, "total_updates": 0, "total_deletes": 0},
    }


def test_diff_entries_keep_the_reference_key_order():
    ops = {"deletes": [{"path": "entities/people/bob.md", "memory_type": "entities", "deleted_content": "# Bob"}]}
    diff = build_memory_diff(ARCHIVE, ops, WHEN, MEMORIES)
    assert list(diff) == ["archive_uri", "trace_id", "extracted_at", "operations", "summary"]
    assert diff["operations"]["deletes"] == [{"uri": MEMORIES + "/entities/people/bob.md", "memory_type": "entities", "deleted_content": "# Bob"}]
    assert diff["summary"]["total_deletes"] == 1


# --- the package itself -------------------------------------------------------


@pytest.mark.parametrize(("text", "lines"), [
    # (written after the rule) a question ends in any common question mark, and a sentence after one is read on its own
    ("I use fish now？", []), ("My editor is Helix؟", []), ("So I work at Acme‽", []), ("I prefer tabs❓", []),
    ("Always squash commits⁇ I never rebase on main.", ["- Never rebase on main"]),
])
def test_a_question_in_another_mark_is_no_statement(text, lines):
    from ov.sessions.memory.extract import extract_text

    assert [c.fields.get("content") for c in extract_text(text, when=datetime.now(UTC))] == lines


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) < 400


@pytest.mark.parametrize(("value", "named"), [
    # (written after the rule) lower-case particles between a place's capitalised parts
    ("Rothenburg ob der Tauber", True), ("Kingston upon Thames", True), ("Saint-Rémy-de-Provence", True),
    ("Neustadt an der Weinstraße", True), ("San Sebastián de los Reyes", True), ("Berwick-upon-Tweed", True),
    ("Paris on Tuesday", False), ("cloud-hosted", False), ("Berlin-based", False), ("Lisbon on weekends", False),
    ("Sintra on", False), ("Wien-bound", False),
])
def test_a_name_holds_the_particles_of_places(value, named):
    assert looks_like_name(value) is named


@pytest.mark.parametrize("clause, rest", [
    ("Big news: I finally switched to Zed", "I finally switched to Zed"),
    ("Some good news - my team shipped v2", "my team shipped v2"),
    ("Quick update, I use uv now", "I use uv now"),
    ("Update: I use uv now", "Update: I use uv now"),  # a correction's marker, read as one
    ("For Go: I use tabs", "For Go: I use tabs"),  # a scope, not a heading
    ("Ticket news: I work at Globex", "Ticket news: I work at Globex"),  # a source's words
])
def test_a_heading_of_the_users_own_before_a_first_person_clause_is_no_part_of_it(clause, rest):
    from ov.sessions.memory.quoted import own_words

    assert own_words(clause) == rest


def _profile_lines(text: str) -> list[str]:
    return [line for kind, fields in extracted(text) if kind == "profile" for line in fields["content"].splitlines()]


@pytest.mark.parametrize("name", ["Brian", "Adrian", "Ian", "Christian", "Vivian", "Dorian", "Julian", "Jordan", "Ryan", "Keenan Malik"])
def test_a_given_name_that_ends_as_a_peoples_word_is_a_name(name):
    # ("-ian", "-an": Brazilian and Brian end alike; only a country's name undone from it is a people)
    assert _profile_lines(f"I'm {name}, a developer") == [f"- Name: {name}", "- Is a developer"]
    assert _profile_lines(f"My name is {name}") == [f"- Name: {name}"]


@pytest.mark.parametrize("people", ["Brazilian", "Mexican", "Peruvian", "Ukrainian", "Pakistani", "Ghanaian", "Sri Lankan", "New Zealander"])
def test_a_peoples_word_before_a_role_is_no_name(people):
    # (in a session, where "I'm Mexican" alone is not kept either, the role is)
    assert _profile_lines(f"I'm {people}, a site reliability engineer") == ["- Is a site reliability engineer"]


@pytest.mark.parametrize("text", ["I'm Certain, a developer", "I'm Sure, a developer", "Hi, I'm Positive, a developer"])
def test_an_answers_word_before_a_role_is_no_name(text):
    # "I'm certain", "I'm sure", "I'm positive" say nothing of the user: only the role is kept
    assert _profile_lines(text) == ["- Is a developer"]
    assert _profile_lines(text.split(",")[-2].split(" a ")[0].lower()) == []


@pytest.mark.parametrize("text, line", [
    ("I'm now based in Oslo", "- Is based in Oslo"),
    ("These days I work for Hooli", "- Works for Hooli"),
    ("Scratch that, my terminal is Kitty", "- Terminal: Kitty"),
    ("Actually, the search cluster runs on OpenSearch", "# Search cluster\n\n- Runs on OpenSearch"),
])
def test_a_correction_of_nothing_said_before_is_its_line_as_stored(text, line):
    # (a review: "I'm now based in Oslo" was "- Actually, is based in Oslo", which only the merge put right)
    [candidate] = extract_explicit([msg(text)], when=WHEN, user="alice")
    assert candidate.fields["content"] == line and candidate.corrects


@pytest.mark.parametrize("corrects, expected", [(True, "- Is a principal designer at Umbrella"),
                                                (False, "- Is a lead designer at Umbrella\n- Is a principal designer at Umbrella")])
def test_a_correcting_candidate_takes_the_place_of_the_line_it_contradicts(schemas, corrects, expected):
    stored = {"profile.md": render_memory("- Is a lead designer at Umbrella", {"memory_type": "profile", "version": 1})}
    candidate = Candidate("profile", {"content": "- Is a principal designer at Umbrella"}, corrects=corrects)
    plan = plan_memory_writes(schemas, [candidate], read=files(stored), when=WHEN, archive_uri=ARCHIVE)
    assert parse_memory(plan.writes["profile.md"])[0] == expected
