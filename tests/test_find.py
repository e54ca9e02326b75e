"""Retrieval: indices derived from commits, `ov find`, `ov reindex`, `ov fsck`, `ov doctor`."""

from __future__ import annotations

import itertools
import json
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

INDEX = "state/default/index"


def write(ov, uri: str, text: str) -> None:
    result = ov("write", uri, "--content", text)
    assert result.exit_code == 0, result.stderr


def found(ov, query: str, *args: str) -> dict:
    result = ov("find", query, "--json", *args)
    assert result.exit_code == 0, result.stderr
    return result.json["result"]


def uris(result: dict, bucket: str = "resources") -> list[str]:
    return [h["uri"] for h in result[bucket]]


@pytest.fixture
def docs(ov):
    write(ov, "viking://resources/handbook/security.md", "# Security\n\nRotate API keys every 90 days.\n\n## Tokens\n\nTokens expire after one hour.\n")
    write(ov, "viking://resources/handbook/deploy.md", "# Deploy\n\nWe deploy from main after a green CI run.\n")
    write(ov, "viking://resources/notes/cooking.md", "# Cooking\n\nA risotto needs patience and warm stock.\n")
    return ov



@pytest.fixture(autouse=True)
def full_text_only(ov):
    """These tests pin full-text ranking and the index's upkeep; with the built-in model (the
    default embedder) scores move a little. Vectors have their own tests here (each sets
    `embedding.provider`) and in test_builtin_embedder.py."""
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0


# --- find ------------------------------------------------------------------------


def test_find_on_an_empty_or_missing_store_is_empty_and_ok(ov, ov_home):
    result = found(ov, "anything at all")
    assert result["total"] == 0 and result["resources"] == [] and result["sessions"] == []
    assert not (ov_home / "state" / "default" / "index").exists()  # nothing written for an unused account
    assert ov("search", "anything at all", "--json").json["result"]["total"] == 0
    write(ov, "viking://resources/a.md", "alpha")
    assert found(ov, "nothing matches zebra")["total"] == 0


def test_find_returns_a_chunk_with_its_lines_and_a_stemmed_match(docs):
    result = found(docs, "how often are keys rotated")
    top = result["resources"][0]
    assert top["uri"] == "viking://resources/handbook/security.md"
    assert top["level"] == 2 and top["context_type"] == "resource" and 0 < top["score"] <= 1
    assert "3: Rotate API keys every 90 days." in top["snippet"]
    assert top["lines"][0] <= 3 <= top["lines"][1]
    assert result["retrieval"]["mode"] == "lexical"
    assert result["retrieval"]["embedding"]["available"] is False and result["retrieval"]["embedding"]["reason"]


def test_a_snippet_shows_the_line_that_holds_the_word_the_file_name_does_not_say(ov):
    # An audit (scale, finding 2): asked "staging server 41", a card of one fact a line showed its
    # heading and first fact ("5 is at host5.internal"): the heading's two words, which the file's
    # name says of every line, beat the one line that holds "41".
    facts = "".join(f"- {n} is at host{n}.internal\n" for n in range(5, 305, 6))
    write(ov, "viking://user/default/memories/entities/systems/staging_server.md", "# Staging server\n\n" + facts)
    [hit] = found(ov, "staging server 41", "-n", "1")["memories"]
    assert "- 41 is at host41.internal" in hit["snippet"] and "host5.internal" not in hit["snippet"]
    # Without another word, the file name's words are what there is to show: the heading.
    [hit] = found(ov, "staging server", "-n", "1")["memories"]
    assert hit["snippet"].startswith("1: # Staging server")


def test_a_resources_name_does_not_outweigh_the_section_the_query_names(ov):
    """(a review) Counting the file name's words last held for every file: asked "ov session list
    --json" in ``ov_session.md``, the snippet showed `session add`'s option table (its "JSON list")
    instead of the `## ov session list` section. Only a memory's card is about its name in every line."""
    table = "| option | meaning |\n|---|---|\n| --text | The message text. |\n| --role | user, assistant, system or tool. |\n| --parts | The message parts as a JSON list. |\n"
    write(
        ov,
        "viking://resources/docs/ov_session.md",
        "# The ov session command\n\nSessions hold what a coding agent and its user said.\n\n## ov session list\n\n"
        "List the current user's sessions, most recently active first.\nEach row gives the live and total message counts.\n\n"
        "## ov session add\n\nAdd one message to a session.\n\n" + table,
    )
    [hit] = found(ov, "what does ov session list --json return?", "-n", "1")["resources"]
    assert "## ov session list" in hit["snippet"], hit["snippet"]


def test_one_result_per_file_even_with_several_matching_chunks(ov):
    sections = "\n\n".join(f"## Part {i}\n\n" + "The release checklist matters. " * 60 for i in range(6))
    write(ov, "viking://resources/big.md", "# Big\n\n" + sections)
    result = found(ov, "release checklist")
    assert uris(result) == ["viking://resources/big.md"]


def test_the_index_follows_every_commit(docs):
    assert "viking://resources/notes/cooking.md" in uris(found(docs, "risotto"))
    assert docs("edit", "viking://resources/notes/cooking.md", "--old", "risotto", "--new", "paella").exit_code == 0
    updated = found(docs, "paella")
    assert uris(updated) == ["viking://resources/notes/cooking.md"]
    assert updated["index"]["actions"] == ["updated 1 path"]
    assert found(docs, "risotto")["total"] == 0
    assert docs("mv", "viking://resources/notes", "viking://resources/kitchen").exit_code == 0
    assert uris(found(docs, "paella")) == ["viking://resources/kitchen/cooking.md"]
    assert docs("rm", "-r", "viking://resources/kitchen").exit_code == 0
    assert found(docs, "paella")["total"] == 0


def test_a_directory_summary_is_found_at_its_level(ov):
    assert ov("mkdir", "viking://resources/infra", "--description", "Kubernetes clusters and their upgrades").exit_code == 0
    write(ov, "viking://resources/infra/notes.md", "Nodes are drained one at a time.")
    result = found(ov, "kubernetes upgrades", "--level", "0")
    assert result["resources"][0] == {
        "uri": "viking://resources/infra",
        "level": 0,
        "context_type": "resource",
        "score": 1.0,
        "relevance": 1.0,
        "abstract": "Kubernetes clusters and their upgrades",
        "title": "infra",
    }
    assert all(h["level"] == 0 for h in result["resources"])
    # Frontmatter is not content: its keys do not match.
    assert found(ov, "generated_by component")["total"] == 0


def _modules(tmp_path: Path, texts: dict[str, str]) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_the_files_that_say_it_come_before_the_summaries_that_repeat_them(ov, tmp_path):
    # (found by a review: in a one-project store the folder's L1, the store's L1 and its L0 came
    # before the three modules they copy their first sentence from)
    texts = {f"m{i}.md": f"# Module {i}\n\nThe retry policy uses exponential backoff with jitter for module {i}. Connection pooling is configured here.\n" for i in (1, 2, 3)}
    assert ov("add-resource", str(_modules(tmp_path, texts))).exit_code == 0
    for command in ("find", "search"):
        result = ov(command, "retry policy backoff", "--json").json["result"]
        hits = [(h["uri"], h["level"]) for h in result["resources"]]
        assert {uri for uri, _ in hits[:3]} == {f"viking://resources/proj/m{i}.md" for i in (1, 2, 3)}, command
        assert len({uri for uri, _ in hits}) == len(hits), command  # a directory once, at its better level
        assert "viking://resources/proj" in {uri for uri, _ in hits[3:]}, command
    # A level asked for is still what is listed, each directory once.
    assert {(h["uri"], h["level"]) for h in found(ov, "retry policy backoff", "--level", "0")["resources"]} == {("viking://resources", 0), ("viking://resources/proj", 0)}
    assert sorted(uris(found(ov, "retry policy backoff", "--level", "0,1"))) == ["viking://resources", "viking://resources/proj"]


def test_a_summary_that_says_what_no_single_file_does_keeps_its_place(ov, tmp_path):
    texts = {
        "backoff.md": "# Backoff\n\nFailed uploads are retried with a doubling delay, capped at one minute.\n",
        "pool.md": "# Pool\n\nEach worker keeps eight database connections open and hands them out in turn.\n",
    }
    assert ov("add-resource", str(_modules(tmp_path, texts))).exit_code == 0
    # Words no one file holds together: the folder that holds both keeps its place above the file
    # that holds some of them.
    assert uris(found(ov, "retried uploads and database connections"))[:3] == ["viking://resources/proj/backoff.md", "viking://resources/proj", "viking://resources/proj/pool.md"]
    # The folder's own name with a file's words: the folder says something the file does not.
    assert uris(found(ov, "proj database connections"))[0] == "viking://resources/proj"


def test_a_folder_goes_below_its_subfolder_that_moved_and_only_the_listed_results_count():
    from ov.index.records import Record
    from ov.retrieval.summaries import defer_summaries

    def record(uri: str, kind: str, text: str) -> Record:
        level = {"abstract": 0, "overview": 1}.get(kind, 2)
        return Record(id=uri + kind, path=uri, uri=uri, level=level, kind=kind, context_type="resource", owner="", parent="", text=text)

    entries = {
        "root": (0.9, record("viking://resources/a", "overview", "alpha beta")),
        "sub": (0.8, record("viking://resources/a/b", "overview", "alpha beta")),
        "file": (0.7, record("viking://resources/a/b/f.md", "chunk", "Alpha and beta")),
        "other": (0.6, record("viking://resources/c.md", "chunk", "alpha")),
    }
    def holding(words: tuple[str, ...], among: tuple[str, ...]) -> dict[str, set[tuple[str, str]]]:
        return {word: {(r.uri, r.kind) for _, r in entries.values() if r.uri in among and word in r.text.lower().split()} for word in words}

    moved = defer_summaries(entries, ["alpha", "beta"], holding, shown=4)
    assert moved["sub"] < 0.7 and moved["root"] < moved["sub"] and moved["root"] > 0.6
    # The file past the results listed does not count: the subfolder keeps its place, and the
    # folder goes below it.
    assert set(defer_summaries(entries, ["alpha", "beta"], holding, shown=2)) == {"root"}
    # A summary that matches a word its files do not keeps its place.
    entries["sub"] = (0.8, record("viking://resources/a/b", "overview", "alpha beta gamma"))
    assert "sub" not in defer_summaries(entries, ["alpha", "beta", "gamma"], holding, shown=4)


def test_the_words_records_hold_are_read_in_one_look_up_as_a_look_up_a_word_reads_them():
    """(the prompt hook's search asked the index once a word, 7 look-ups a prompt or more) One
    look-up tells which records hold which words; where a look-up a word would keep only the best
    of more records than it reads, it says so and the caller asks word by word."""
    from ov.index.lexical import WORDS_A_LOOKUP, Filters, LexicalIndex, QueryTerms
    from ov.index.records import Record
    from ov.retrieval.summaries import OWN_FIELDS

    index = LexicalIndex.empty("english")
    texts = {
        "viking://resources/a.md": ["Retry the upload with backoff.", "The upload keeps its token."],
        "viking://resources/b.md": ["Backoff doubles each time."],
        "viking://resources/c.md": ["Nothing to see here."],
    }
    label = 0
    for uri, sections in texts.items():
        for i, text in enumerate(sections):
            index.add(Record(id=f"{uri}#{i}", path=uri, uri=uri, level=2, kind="chunk", context_type="resource", owner="", parent="", text=text), label)
            label += 1
    index.add(Record(id="dir", path="viking://resources", uri="viking://resources", level=1, kind="overview", context_type="resource", owner="", parent="", text="Uploads retry with backoff."), label)
    index.commit()
    words = index.query_terms("retry upload backoff token missing").words
    among = Filters(uris=(*texts, "viking://resources"))
    held = index.holders(words, tuple(OWN_FIELDS), among, 20)
    for word in words:
        one = {(hit.record.uri, hit.record.kind) for hit in index.search(QueryTerms((word,), ()), OWN_FIELDS, among, 20)}
        assert held[word] == one
    assert held["backoff"] == {("viking://resources/a.md", "chunk"), ("viking://resources/b.md", "chunk"), ("viking://resources", "overview")}
    assert held["token"] == {("viking://resources/a.md", "chunk")}
    # More records hold a word than a look-up reads (3 hold "backoff"): not the best few, but None.
    assert index.holders(words, tuple(OWN_FIELDS), among, 2) is None
    with pytest.raises(ValueError):
        index.holders(tuple(f"w{i}" for i in range(WORDS_A_LOOKUP + 1)), tuple(OWN_FIELDS), among, 20)


def _recipes_and_db(ov, tmp_path: Path) -> None:
    for name, text in {"recipes/bread.md": "# Bread\n\nKnead the dough and let it rise.\n", "db/schema.md": "# Schema\n\nEvery table has an id as its primary key.\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    for folder in ("recipes", "db"):
        assert ov("add-resource", str(tmp_path / folder)).exit_code == 0


# The words every overview ov generates holds: its headings, the "Holds 1 Markdown doc" sentence.
TEMPLATE_QUERIES = ("what are the key terms of the contract", "table of contents", "which one holds markdown docs")


def test_the_words_of_ovs_overview_template_find_no_folder(ov, tmp_path):
    # (found by an audit: "what are the key terms of the contract" found the recipes folder's overview at 0.62)
    _recipes_and_db(ov, tmp_path)
    for query in TEMPLATE_QUERIES:
        assert "viking://resources/recipes" not in uris(found(ov, query)), query
    # What the overview says of the folder still finds it, and a hit shows the overview as written.
    for query in ("knead the dough", "bread"):
        [hit] = [h for h in found(ov, query, "--level", "1")["resources"] if h["uri"] == "viking://resources/recipes"]
        assert hit["relevance"] >= 0.6, query  # above the prompt hook's cut-off
        assert "Holds 1 Markdown doc (bread.md)." in hit["abstract"] and "## Contents" in hit["abstract"]


def test_with_vectors_the_template_words_stay_below_the_prompt_cut_off(ov, tmp_path):
    assert ov("config", "set", "embedding.provider", "auto").exit_code == 0  # the built-in model
    _recipes_and_db(ov, tmp_path)
    for query in TEMPLATE_QUERIES:
        result = found(ov, query)
        assert result["retrieval"]["mode"] == "hybrid"
        assert all(h["relevance"] < 0.6 for h in result["resources"] if h["uri"] == "viking://resources/recipes"), query


ARCHIVE = "viking://user/default/sessions/{}/history/archive_001"


def _three_sessions(ov) -> None:
    """Three committed sessions on unrelated topics, each with an archive overview."""
    turns = {
        "billing": [
            ("user", "Migrate the billing database from MySQL to Postgres; the schema is in db/schema.sql."),
            ("assistant", "We decided to copy the invoices table first. The import failed with a unique violation error."),
        ],
        "haiku": [("user", "Write a haiku about autumn leaves."), ("assistant", "Crimson leaves drifting, a quiet river carries them.")],
        "bread": [("user", "How do I bake sourdough bread at home?"), ("assistant", "Feed the starter, then knead and proof overnight.")],
    }
    for session, said in turns.items():
        for role, text in said:
            assert ov("session", "add", session, "--role", role, "--text", text).exit_code == 0
        assert ov("commit", session).exit_code == 0


# The words every archive overview holds: its headings, "- none", "N messages (...). The user asked:".
SESSION_TEMPLATE_QUERIES = ("what is the current state", "any open issues", "what are the key facts", "which files changed", "tasks and goals", "how many messages")


def _overviews(result: dict) -> list[str]:
    return [h["uri"] for h in result["sessions"] if h["level"] in (0, 1)]


def test_the_words_of_a_session_archive_overview_find_no_session(ov):
    from ov.sessions.overview import SECTIONS

    # (found by an audit: "what is the current state" found every archived session's overview at 0.9)
    _three_sessions(ov)
    for query in SESSION_TEMPLATE_QUERIES:
        assert _overviews(found(ov, query)) == [], query
    # What was said still finds its archive, and a hit shows the overview as written.
    for query, session in (("sourdough bread", "bread"), ("db/schema.sql", "billing"), ("unique violation", "billing"), ("autumn leaves", "haiku")):
        hits = [h for h in found(ov, query, "--level", "1")["sessions"] if h["uri"] == ARCHIVE.format(session)]
        assert hits and hits[0]["relevance"] >= 0.6, query  # above the prompt hook's cut-off
        assert any(f"## {heading}" in hits[0]["abstract"] for heading in SECTIONS), query
    [brief] = [h for h in found(ov, "sourdough", "--level", "0")["sessions"] if h["uri"] == ARCHIVE.format("bread")]
    assert brief["abstract"].startswith("2 messages (") and "The user asked: How do I bake sourdough bread at home?" in brief["abstract"]


def test_with_vectors_the_session_template_words_stay_below_the_prompt_cut_off(ov):
    assert ov("config", "set", "embedding.provider", "auto").exit_code == 0  # the built-in model
    _three_sessions(ov)
    for query in SESSION_TEMPLATE_QUERIES:
        result = found(ov, query)
        assert result["retrieval"]["mode"] == "hybrid"
        assert all(h["relevance"] < 0.6 for h in result["sessions"] if h["level"] in (0, 1)), query


def test_filters_by_scope_type_and_threshold(docs):
    assert docs("remember", "I prefer deploying on Tuesdays").exit_code == 0
    everything = found(docs, "deploy")
    assert everything["memories"] and everything["resources"]
    only_memory = found(docs, "deploy", "--type", "memory")
    assert only_memory["memories"] and not only_memory["resources"]
    scoped = found(docs, "deploy", "--uri", "viking://resources/handbook")
    assert uris(scoped) == ["viking://resources/handbook/deploy.md"] and not scoped["memories"]
    assert found(docs, "deploy", "--uri", "viking://resources/notes")["total"] == 0
    strict = found(docs, "deploy", "--threshold", "0.99")
    assert strict["total"] >= 1 and all(h["score"] >= 0.99 for b in ("memories", "resources") for h in strict[b])
    assert len(found(docs, "deploy", "--limit", "1")["resources"] + found(docs, "deploy", "--limit", "1")["memories"]) == 1


@pytest.mark.parametrize("command", ["find", "search"])
def test_repeated_type_and_level_filters_add_up_and_a_repeated_single_value_is_refused(docs, command):
    """`--type memory --type resource` is both, as `--type memory,resource` is (click kept the last
    without a word); an option that takes one value, given twice, is refused rather than halved."""
    assert docs("remember", "I prefer deploying on Tuesdays").exit_code == 0

    def run(*args: str) -> dict:
        result = docs(command, "deploy", "--json", *args)
        assert result.exit_code == 0, result.stderr
        return result.json["result"]

    repeated, listed = run("--type", "memory", "--type", "resource"), run("--type", "memory,resource")
    assert repeated["memories"] and repeated["resources"]
    assert uris(repeated) == uris(listed) and uris(repeated, "memories") == uris(listed, "memories")
    levels = run("--level", "0", "--level", "2")
    assert {h["level"] for b in ("memories", "resources") for h in levels[b]} == {h["level"] for b in ("memories", "resources") for h in run("--level", "0,2")[b]}
    twice = docs(command, "deploy", "--uri", "viking://resources/handbook", "-u", "viking://resources/notes", "--json")
    assert twice.exit_code == 2
    assert json.loads(twice.stderr)["error"]["message"] == "--uri was given more than once: it takes one value"


def test_a_write_given_its_content_twice_is_refused_and_writes_nothing(ov):
    result = ov("write", "viking://resources/x.md", "-c", "first", "-c", "second")
    assert result.exit_code == 2 and "--content was given more than once" in result.stderr
    assert ov("read", "viking://resources/x.md").exit_code == 1


def test_time_filters(docs):
    assert found(docs, "risotto", "--after", "1h")["total"] == 1
    assert found(docs, "risotto", "--before", "1h")["total"] == 0
    assert found(docs, "risotto", "--after", "2000-01-01", "--before", "2999-01-01")["total"] == 1


def test_another_users_memories_are_not_found(ov):
    assert ov("remember", "My favourite editor is Helix", "--user", "alice").exit_code == 0
    assert found(ov, "favourite editor", "--user", "alice")["total"] == 1
    assert found(ov, "favourite editor", "--user", "bob")["total"] == 0


def test_a_find_in_another_users_space_says_it_is_not_searched(ov):
    """(found by an audit: `find zebra --uri viking://user/alice` as bob answered "no results"
    although alice's memory matches, as if nothing there did)"""
    assert ov("remember", "My favourite editor is Helix", "--user", "alice").exit_code == 0
    for command in ("find", "search"):
        for uri in ("viking://user/alice", "viking://user/alice/memories"):
            refused = ov(command, "favourite editor", "--uri", uri, "--user", "bob", "--json")
            assert refused.exit_code == 1 and refused.error["code"] == "other_users_space", refused.stderr
            assert refused.error["message"] == f"{uri} is another user's space ('alice'), not searched: find and search rank only your own ('bob') and the shared scopes"
            assert refused.error["hint"] == f"search it as that user (--user alice), or match its lines with `ov grep PATTERN --uri {uri}`"
    assert found(ov, "favourite editor", "--uri", "viking://user/alice", "--user", "alice")["total"] == 1
    assert found(ov, "favourite editor", "--uri", "viking://user", "--user", "bob")["total"] == 0


def test_session_messages_are_found_one_at_a_time(ov):
    assert ov("session", "new", "--id", "s1").exit_code == 0
    assert ov("session", "add", "s1", "--text", "I went to the climbing gym yesterday").exit_code == 0
    assert ov("session", "add", "s1", "--role", "assistant", "--text", "Nice, which route did you try?").exit_code == 0
    result = found(ov, "climbing gym", "--type", "session")
    top = result["sessions"][0]
    assert top["session_id"] == "s1" and top["role"] == "user" and top["speaker"] == ""
    assert top["message_id"].startswith("msg_") and top["time"].endswith("Z")
    assert top["snippet"] == "I went to the climbing gym yesterday"
    assert top["uri"] == "viking://user/default/sessions/s1/messages.jsonl"
    # Committing archives the messages; they stay searchable in the archive.
    assert ov("commit", "s1").exit_code == 0
    archived = found(ov, "climbing gym", "--type", "session")["sessions"]
    assert any(h["uri"].endswith("history/archive_001/messages.jsonl") and h["session_id"] == "s1" for h in archived)


def test_a_live_session_is_indexed_a_turn_at_a_time_as_a_rebuild_would_index_it(ov, ov_home):
    # Each turn used to replace every record of the session's file, and every vector: a long
    # session cost the whole session again after each turn (seconds at a few thousand messages).
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("session", "new", "--id", "s1").exit_code == 0
    turns = ["The build cache lives on the NAS", "Which NAS share holds it?", "The ledger share, mounted at /cache",
             "Rotate the cache key weekly", "Pin the toolchain in the lock file", "Nightly builds start at two"]
    meta_path = index_dir(ov_home) / "meta.json"
    labels = []
    for i, text in enumerate(turns):
        assert ov("session", "add", "s1", "--role", ("user", "assistant")[i % 2], "--text", text).exit_code == 0
        found(ov, "cache", "--type", "session")
        labels.append(json.loads(meta_path.read_text())["next_label"])
        if i == 2:
            assert ov("snapshot", "tag", "three-turns").exit_code == 0
    # After the first turn, a turn adds the new message, the one before it (its neighbour changed)
    # and the conversation's record: three records, whatever the session's length.
    assert [b - a for a, b in itertools.pairwise(labels)] == [3] * (len(turns) - 1)
    # A commit that takes turns away: they are no longer found. (A restore leaves a live session
    # as it is: the session's files are put back as they were at the tag by hand, and committed.)
    for name in ("messages.jsonl", ".meta.json"):
        uri = f"viking://user/default/sessions/s1/{name}"
        then = ov("snapshot", "show", "three-turns", "--uri", uri, "--json").json["result"]["content"]
        (ov_home / "accounts/default/user/default/sessions/s1" / name).write_text(then, encoding="utf-8")
    assert ov("snapshot", "commit", "-m", "three turns again").exit_code == 0
    assert not found(ov, "toolchain lock file", "--type", "session")["sessions"]
    assert ov("session", "add", "s1", "--text", "The NAS is backed up to tape").exit_code == 0
    queries = ["cache NAS", "ledger share", "tape backup", "toolchain", "which share"]
    kept = [found(ov, q, "--type", "session") for q in queries]
    assert ov("fsck").exit_code == 0
    assert ov("reindex").exit_code == 0
    rebuilt = [found(ov, q, "--type", "session") for q in queries]
    # The same records with the same text, the same one first (scores, and so the order of close
    # ones, differ a little: until tantivy merges its segments, the records an update replaced
    # still count in its statistics), and no relevance out of its range.
    def shown(results):
        return [sorted((h["message_id"], h["snippet"]) for h in r["sessions"]) for r in results]

    assert shown(kept) == shown(rebuilt)
    assert [r["sessions"][0]["message_id"] for r in kept] == [r["sessions"][0]["message_id"] for r in rebuilt]
    assert all(0 <= h["relevance"] <= 1 for r in kept + rebuilt for h in r["sessions"])
    assert kept[2]["sessions"][0]["snippet"] == "The NAS is backed up to tape"


def test_an_index_searched_behind_the_store_shows_nothing_the_store_no_longer_holds(docs, index_held, monkeypatch):
    # While another process caught the index up, a find searched it as it was: a file just
    # deleted, a memory just forgotten and a line just edited out came back, text and all.
    assert docs("remember", "I prefer the hippopotamus colour theme").exit_code == 0
    write(docs, "viking://resources/notes/secret.md", "# Launch\n\nThe launch code is hippopotamus.\n")
    write(docs, "viking://resources/notes/ops.md", "# Ops\n\nThe hippopotamus password is swordfish.\n\n## Pager\n\nPage the hippopotamus team.\n")
    assert docs("session", "new", "--id", "s1").exit_code == 0
    assert docs("session", "add", "s1", "--text", "The hippopotamus enclosure opens at nine").exit_code == 0
    before = found(docs, "hippopotamus")
    assert len(uris(before)) == 2 and before["memories"] and before["sessions"]
    memory = before["memories"][0]["uri"]
    assert docs("rm", "viking://resources/notes/secret.md").exit_code == 0
    assert docs("forget", memory).exit_code == 0
    write(docs, "viking://resources/notes/ops.md", "# Ops\n\nRotated.\n\n## Pager\n\nPage the hippopotamus team.\n")
    assert docs("session", "add", "s1", "--text", "Feeding is at noon").exit_code == 0
    index_held()
    from ov.index import records

    parsed = []
    real = records.committed_records
    monkeypatch.setattr(records, "committed_records", lambda git, path, mode, sha: parsed.append(path) or real(git, path, mode, sha))
    after = found(docs, "hippopotamus")
    assert not any(path.endswith("messages.jsonl") for path in parsed)  # a file that only grew is not parsed again
    assert after["index"]["stale"] is True
    # ops.md is one record, and HEAD's file no longer yields it: left out until the index has caught up.
    assert uris(after) == [] and "swordfish" not in json.dumps(after)
    assert after["memories"] == []
    assert [h["snippet"] for h in after["sessions"]] == ["The hippopotamus enclosure opens at nine"]  # the file grew: its message stands
    # A result left out makes room for the next: --limit still gets as many as there are.
    one = found(docs, "hippopotamus", "--limit", "1")
    assert sum(len(one[bucket]) for bucket in ("resources", "memories", "sessions", "skills") if bucket in one) == 1


def test_a_find_behind_while_another_process_updates_the_index_says_so_once(ov, index_held):
    """Results that miss a file just written read as a store that does not hold it: stderr says
    the index is behind (as it does when ov may not update it), once, and JSON carries it."""
    write(ov, "viking://resources/a.md", "alpha")
    assert "behind" not in found(ov, "alpha")["index"]
    write(ov, "viking://resources/b.md", "alpha beta")  # committed, not indexed
    index_held()
    words = ov("find", "alpha", "--json")
    behind = words.json["result"]["index"]["behind"]
    assert behind == "the index is behind HEAD while another ov process brings it up to date: searched as it is, without what was committed since"
    assert words.stderr == f"warning: {behind}\n" and uris(words.json["result"]) == ["viking://resources/a.md"]
    searched = ov("search", "alpha", "--mode", "list")
    assert searched.exit_code == 0 and searched.stderr == f"warning: {behind}\n"


def test_a_find_while_another_process_builds_the_index_says_so(ov, index_held):
    write(ov, "viking://resources/a.md", "alpha")
    index_held()
    result = ov("find", "alpha")
    assert result.exit_code == 1
    assert "building the search index" in result.stderr and "held the store" not in result.stderr


def test_raw_session_logs_do_not_crowd_out_memories(ov):
    assert ov("remember", "The staging database is called orca").exit_code == 0
    assert ov("session", "new", "--id", "s1").exit_code == 0
    for text in ("The staging database is called orca", "orca the staging database was slow", "staging database orca again"):
        assert ov("session", "add", "s1", "--text", text).exit_code == 0
    result = found(ov, "staging database orca")
    assert result["memories"][0]["score"] > max(h["score"] for h in result["sessions"])


def test_a_memory_keeps_its_relevance_when_messages_fill_the_candidate_pool(ov):
    # Found by an audit of a store after months of use: hundreds of messages matching the query's
    # words in their own text and their neighbours' filled the pool of full-text candidates, and a
    # memory holding every query word had no relevance in a plain find (0.97 with --type memory).
    assert ov("config", "set", "retrieval.candidates", "20").exit_code == 0
    assert ov("remember", "The api service port is 7000").exit_code == 0
    assert ov("session", "new", "--id", "s1").exit_code == 0
    lines = [json.dumps({"role": "assistant", "content": f"Done {i}. The api on port 8080 responds; the api port check passed."}) for i in range(40)]
    assert ov("session", "add-messages", "s1", stdin="\n".join(lines) + "\n").exit_code == 0
    alone = found(ov, "api port", "--type", "memory")["memories"][0]
    mixed = found(ov, "api port", "-n", "10")
    assert len(mixed["sessions"]) > 0
    assert [h["uri"] for h in mixed["memories"]] == [alone["uri"]]
    assert mixed["memories"][0]["relevance"] == pytest.approx(alone["relevance"])


def test_a_record_holding_one_rare_word_of_the_query_is_not_a_full_match(ov):
    # Found by an audit: "which port does the api use?" matched the profile on "use" alone, the
    # store's rarest query word, with relevance 1.0 (its short text's BM25 and the floor passed
    # what a record holding every word scores), and the prompt hook injected it.
    assert ov("remember", "I use neovim as my editor").exit_code == 0
    for i, said in enumerate(("The api listens on port 8080.", "Restart the api after a change of port.", "The api returns 500 on an empty cart.", "The port clashes with grafana's.")):
        write(ov, f"viking://resources/notes/n{i}.md", f"# Note {i}\n\n{said}\n")
    relevance = {h["uri"]: h["relevance"] for bucket in ("memories", "resources") for h in found(ov, "which port does the api use?")[bucket]}
    assert relevance["viking://user/default/memories/profile.md"] < 0.6  # hooks.prompt_min_score
    assert relevance["viking://resources/notes/n0.md"] > 0.9  # port and api: an answer need not say "use"
    # What holds every word it is asked still reads as a full match, and one word of a one-word query too.
    assert found(ov, "which editor do I use?")["memories"][0]["relevance"] == 1.0
    assert found(ov, "grafana")["resources"][0]["relevance"] == 1.0


def test_a_one_word_query_is_no_full_match_for_a_message_found_by_its_neighbours(ov):
    # Found by an audit: a reply found through the question beside it ("kitchen" is in the reply,
    # not the question) read 0.94 on its neighbours' BM25, over the prompt hook's cut-off.
    assert ov("session", "new", "--id", "s1").exit_code == 0
    for said in ("Where is the coffee machine?", "Third floor, next to the kitchen."):
        assert ov("session", "add", "s1", "--text", said).exit_code == 0
    relevance = {h["snippet"]: h["relevance"] for h in found(ov, "kitchen", "--type", "session")["sessions"]}
    assert relevance["Third floor, next to the kitchen."] == 1.0
    assert relevance.get("Where is the coffee machine?", 0.0) < 0.1


@pytest.mark.parametrize("when", ["last week", "yesterday", "on 5 December 2026", "in June", "2026-06-03"])
def test_a_date_in_the_query_changes_the_order_not_the_relevance(ov, when):
    # Found by an audit: the date's words counted as words of the question that the answer lacks,
    # so "rotate API keys last week" read 0.55 where "rotate API keys" read 0.99, under the
    # prompt hook's cut-off and any --threshold (docs/retrieval.md: a date orders, nothing more).
    write(ov, "viking://resources/security.md", "# Keys\n\nRotate API keys every 90 days with the vault CLI.\n")
    write(ov, "viking://resources/other.md", "# Cart\n\nThe cart keeps items for a week.\n")
    plain = found(ov, "rotate API keys")["resources"][0]
    dated = found(ov, f"rotate API keys {when}")["resources"][0]
    assert dated["uri"] == plain["uri"] == "viking://resources/security.md"
    assert dated["relevance"] == pytest.approx(plain["relevance"], abs=0.05) and plain["relevance"] > 0.9


@pytest.mark.parametrize("question", ["what happened on 3 June 2023?", "what happened last week?"])
def test_a_question_that_is_mostly_a_date_keeps_the_date_in_its_relevance(ov, question):
    # Found by a review: without its date's words one word was left ("happened"), and any note
    # holding it read as a full match of the question, 0.93 for a note of another year.
    assert ov("remember", "The migration to Postgres happened without downtime.").exit_code == 0
    assert ov("remember", "Rotate the API keys every quarter; anything older is revoked.").exit_code == 0
    assert max(h["relevance"] for h in found(ov, question, "--type", "memory")["memories"]) < 0.6


def test_the_share_of_the_query_is_counted_for_the_results_shown_not_every_candidate(ov, monkeypatch):
    # The share cap took one full-text look-up a query word over every candidate (about half a
    # prompt's ranking); only the results shown and the best relevance need it, and the values
    # are the ones counting every candidate gives.
    from ov.index.lexical import LexicalIndex
    from ov.retrieval.relevance import HELD_FIELDS

    for i in range(60):
        said = "The api listens on a port." if i % 3 else "Restart the api after a change."
        write(ov, f"viking://resources/notes/n{i:02}.md", f"# Note {i}\n\n{said} Item {i} of the list.\n")
    query = "which port does the api listen on?"
    every = found(ov, query, "-n", "50")["resources"]
    assert len(every) == 50 and len({h["relevance"] for h in every}) > 1
    asked: list[int] = []
    holding = LexicalIndex.holding

    def counting(self, terms, fields, labels):
        if fields == HELD_FIELDS:
            asked.extend(labels)
        return holding(self, terms, fields, labels)

    monkeypatch.setattr(LexicalIndex, "holding", counting)
    few = found(ov, query, "-n", "3")["resources"]
    assert few == every[:3]  # the same scores (scaled to the best relevance) and relevances
    assert 3 <= len(set(asked)) <= 20, len(set(asked))
    assert found(ov, query, "-n", "50")["resources"] == every


REGISTRY = (
    '"""The registry of extensions."""\n\n'
    + "".join(f"from app.extensions.import_{i} import ImportExtension{i}  # import the extension\n" for i in range(40))
    + "\n\n"
    + "".join(f"def helper_{i}(value):\n" + "    total = value * 2 + 1  # arithmetic on the value\n" * 12 + "    return total\n\n\n" for i in range(20))
    + "def load_extension(app, name):\n    try:\n        module = import_module(name)\n    except ImportError as err:\n"
    + "        raise ExtensionError('Could not import extension %s' % name) from err\n    return module\n"
)


def test_an_exact_message_points_at_the_lines_that_hold_it(ov):
    # (found by an audit: "Could not import extension" answered sphinx's registry.py at its imports,
    # where "import" and "extension" are many, not at line 554 that says it)
    write(ov, "viking://resources/app/registry.py", REGISTRY)
    write(ov, "viking://resources/app/other.py", "def unrelated():\n    return 'an import of an extension could not be done here'\n")
    at = next(i for i, line in enumerate(REGISTRY.splitlines(), 1) if "Could not import extension" in line)
    hit = found(ov, "Could not import extension", "-n", "1")["resources"][0]
    assert hit["uri"] == "viking://resources/app/registry.py"
    assert hit["lines"][0] <= at <= hit["lines"][1], (hit["lines"], at)
    # The words in another order are no phrase: the file of the message still leads, by its words.
    assert uris(found(ov, "extension import could not"))[0] == "viking://resources/app/registry.py"
    # Turned off, the words are matched one by one again.
    assert ov("config", "set", "retrieval.phrase_weight", "0").exit_code == 0
    hit = found(ov, "Could not import extension", "-n", "1")["resources"][0]
    assert not hit["lines"][0] <= at <= hit["lines"][1]


def test_same_query_same_order(docs):
    for i in range(5):
        write(docs, f"viking://resources/same/{i}.md", "identical text about caching layers")
    first = found(docs, "caching layers")
    assert [h["uri"] for h in first["resources"]] == sorted(h["uri"] for h in first["resources"])
    assert found(docs, "caching layers")["resources"] == first["resources"]


@pytest.fixture
def project(ov):
    """A small code base whose tests folder says "tests" more than its conftest.py does."""
    assert ov("mkdir", "viking://resources/proj/tests", "--description", "The tests: unit tests, integration tests and the tests of the CLI").exit_code == 0
    write(ov, "viking://resources/proj/tests/conftest.py", "import pytest\n\n@pytest.fixture\ndef index(tmp_path):\n    return build(tmp_path)\n")
    write(ov, "viking://resources/proj/tests/test_cli.py", "# tests of the CLI: look at the output\ndef test_help():\n    assert run('--help')\n")
    write(ov, "viking://resources/proj/tests/test_find.py", "# tests of find\ndef test_find():\n    assert find('x')  # look it up\n")
    write(ov, "viking://resources/proj/bench/conftest.py", "import pytest\n\n# the bench's own fixtures, not the tests'\n")
    assert ov("mkdir", "viking://resources/proj/src", "--description", "Rust sources: the searcher and the index").exit_code == 0
    write(ov, "viking://resources/proj/src/searcher.rs", "pub struct Searcher {\n    inner: tv::Searcher,\n}\n")
    write(ov, "viking://resources/proj/src/lib.rs", "mod searcher;\nmod index;\n// the searcher module and the index module\n")
    return ov


def _ranked(ov, query: str) -> list[tuple[str, int, float]]:
    result = found(ov, query, "--limit", "20")
    return [(h["uri"], h["level"], h["relevance"]) for h in result["resources"]]


@pytest.mark.parametrize(
    "query",
    ["look at tests/conftest.py", "look at `tests/conftest.py`?", "look at /home/me/proj/tests/conftest.py:3", "look at viking://resources/proj/tests/conftest.py"],
)
def test_a_query_naming_a_file_puts_that_file_first_and_leaves_the_rest_in_order(project, query):
    named = "viking://resources/proj/tests/conftest.py"
    # The same words without the path: the files and the folder that say "tests" most lead.
    words = [uri for uri, _level, _relevance in _ranked(project, re.sub(r"[/.:`?]", " ", query))]
    assert words.index(named) > 2
    path = _ranked(project, query)
    assert path[0][0] == named
    # Only the named file moved: the other conftest.py (bench/, not tests/) keeps its place among the rest.
    # A viking:// URI is an address, not words: the rest is ranked by the query's other words.
    rest = words if "viking://" not in query else [uri for uri, _level, _relevance in _ranked(project, "look at")]
    assert [uri for uri, _level, _relevance in path[1:]] == [uri for uri in rest if uri != named]
    assert "viking://resources/proj/bench/conftest.py" in words[:4]


def test_a_file_name_alone_or_a_folder_is_named_too(project):
    assert _ranked(project, "src/searcher.rs")[0][0] == "viking://resources/proj/src/searcher.rs"
    assert _ranked(project, "what does searcher.rs hold")[0][0] == "viking://resources/proj/src/searcher.rs"
    # A folder named: what is in it comes first, ranked by the query's other words.
    in_src = [uri for uri, _level, _relevance in _ranked(project, "the searcher in src/")]
    assert in_src[0] == "viking://resources/proj/src/searcher.rs"
    assert set(in_src[:3]) == {"viking://resources/proj/src", "viking://resources/proj/src/searcher.rs", "viking://resources/proj/src/lib.rs"}
    # A name the store does not hold, a web address, a number: the words rank as they would.
    for query, words in [
        ("look at tests/missing.py", "look at tests missing py"),
        ("see https://example.com/src/searcher.rs", "see https example com src searcher rs"),
        ("searcher 3.14 v1.2", "searcher 3 14 v1 2"),
    ]:
        assert _ranked(project, query) == _ranked(project, words), query


@pytest.mark.parametrize(
    ("query", "paths", "places"),
    [
        ("look at tests/conftest.py", {"conftest.py": (("tests", "conftest.py"),)}, ()),
        ("why does src/searcher.rs:42:7 panic?", {"searcher.rs": (("src", "searcher.rs"),)}, ()),
        ("open `Cargo.toml`, then README.md.", {"cargo.toml": (("cargo.toml",),), "readme.md": (("readme.md",),)}, ()),
        (
            "C:\\work\\tpy\\src\\lib.rs and ./docs/ and ../x/.gitignore",
            {"lib.rs": (("work", "tpy", "src", "lib.rs"),), "docs": (("docs",),), ".gitignore": (("x", ".gitignore"),)},
            (),
        ),
        # A viking:// URI is a place, kept as written: it names no other file of its last segments.
        (
            "https://github.com/a/b.md and viking://resources/A/b.md#L3 and viking://user/ and viking:// alone",
            {},
            ("viking://resources/A/b.md", "viking://user"),
        ),
        ("pi is 3.14 in v1.2 and no file here", {}, ()),
        # A name typed decomposed (a file dragged from macOS's Finder) is the NFC name the store holds.
        ("fix docs/Re\u0301sume\u0301.md and Gru\u0308n.txt", {"r\u00e9sum\u00e9.md": (("docs", "r\u00e9sum\u00e9.md"),), "gr\u00fcn.txt": (("gr\u00fcn.txt",),)}, ()),
    ],
)
def test_the_paths_and_file_names_a_query_holds(query, paths, places):
    from ov.retrieval.named import named_paths

    assert named_paths(query).tails == paths
    assert named_paths(query).places == places


def test_a_viking_uri_names_its_own_file_not_another_with_the_same_last_segments(ov):
    # (found by a review: the URI was cut to its last two segments like any path, so beta's
    # docs/setup.md, which says "redis" more, came first though the query spelled alpha's)
    write(ov, "viking://resources/alpha/docs/setup.md", "# Setup\n\nInstall the service first, then the worker. The queue needs redis.\n")
    write(ov, "viking://resources/beta/docs/setup.md", "# Setup\n\nRedis for the queue, redis for the cache, redis everywhere. The queue needs redis.\n")
    write(ov, "viking://resources/gamma/guide/01_queue.md", "# Queue\n\nThe queue of gamma runs without redis.\n")
    write(ov, "viking://resources/gamma/guide/02_cache.md", "# Cache\n\nThe cache sits beside the queue.\n")
    question = "need redis for the queue"
    assert uris(found(ov, f"does docs/setup.md {question}", "--type", "resource"))[0] == "viking://resources/beta/docs/setup.md"
    assert uris(found(ov, f"does viking://resources/alpha/docs/setup.md {question}", "--type", "resource"))[:2] == [
        "viking://resources/alpha/docs/setup.md",
        "viking://resources/beta/docs/setup.md",
    ]
    # A URI names what lies below it too (a split document's sections), in their own order.
    ranked = uris(found(ov, f"does viking://resources/gamma/guide/ {question}", "--type", "resource"))
    assert ranked[:2] == ["viking://resources/gamma/guide/01_queue.md", "viking://resources/gamma/guide/02_cache.md"]


def test_a_longer_path_puts_the_files_that_match_more_of_its_segments_first(ov):
    write(ov, "viking://resources/app/src/ov/main.py", "def main():\n    run()\n")
    write(ov, "viking://resources/app/tools/ov/main.py", "def main():\n    run()  # main entry, run main\n")
    write(ov, "viking://resources/app/lib/main.py", "def main():\n    run()  # main, main, main\n")
    ranked = uris(found(ov, "what does src/ov/main.py run in main", "--type", "resource"))
    # Both end with ov/main.py, the last two segments; only src/ov/main.py ends with all three.
    assert ranked[:2] == ["viking://resources/app/src/ov/main.py", "viking://resources/app/tools/ov/main.py"]
    assert uris(found(ov, "what does ov/main.py run in main", "--type", "resource"))[0] == "viking://resources/app/tools/ov/main.py"


@pytest.mark.parametrize("text", ["a" * 200_000, "a." * 100_000 + "1", "a/" * 100_000, ("x" * 50 + " ") * 4_000, "ab.cd " * 40_000])
def test_reading_the_paths_of_a_long_pasted_prompt_stays_linear(text):
    # The prompt hook ranks every prompt, pasted logs included: a word is read once, not once a
    # character. Read once, these take milliseconds of CPU; read once a character, minutes: the
    # bound fails the second only, never a slow machine.
    from ov.retrieval.named import named_paths

    start = time.process_time()
    named_paths(text)
    assert time.process_time() - start < 30, "reading the paths did not end in reasonable time"


@pytest.mark.parametrize(
    ("doc", "query"),
    [
        ("我们使用数据库来存储用户的长期记忆。", "长期记忆"),
        ("このツールは会話の記憶を検索します。", "記憶を検索"),
        ("사용자의 기억을 데이터베이스에 저장합니다.", "기억"),
    ],
)
def test_cjk_text_matches_lexically_without_an_embedder(ov, doc, query):
    write(ov, "viking://resources/cjk/doc.md", doc)
    write(ov, "viking://resources/cjk/other.md", "Unrelated English text about gardening.")
    result = found(ov, query)
    assert result["retrieval"]["mode"] == "lexical"
    assert uris(result) == ["viking://resources/cjk/doc.md"]


def test_cjk_exact_words_rank_before_scattered_characters(ov):
    write(ov, "viking://resources/zh/exact.md", "长期记忆很重要。")
    write(ov, "viking://resources/zh/scattered.md", "记得长城的日期。忆苦思甜。")
    assert uris(found(ov, "长期记忆"))[0] == "viking://resources/zh/exact.md"


@pytest.mark.parametrize(
    ("doc", "other", "query"),
    [
        ("ผู้ใช้สามารถเปลี่ยนรหัสผ่านได้ที่หน้าการตั้งค่าบัญชี", "รายงานยอดขายประจำเดือนถูกส่งทางอีเมลทุกวันจันทร์", "รหัสผ่าน"),
        ("รายงานยอดขายประจำเดือนถูกส่งทางอีเมลทุกวันจันทร์", "ผู้ใช้สามารถเปลี่ยนรหัสผ่านได้ที่หน้าการตั้งค่าบัญชี", "ยอดขาย"),
        ("ລະບົບຈະສໍາຮອງຂໍ້ມູນທຸກຄືນ", "ກອງປະຊຸມຈະເລີ່ມຕອນເກົ້າໂມງ", "ຂໍ້ມູນ"),
        ("កម្មវិធីនេះរក្សាទុកឯកសាររបស់អ្នកប្រើ", "អាកាសធាតុថ្ងៃនេះក្តៅណាស់", "ឯកសារ"),
        ("ဒီစနစ်က စကားဝှက်ကို ပြောင်းလဲနိုင်တယ်", "မနက်ဖြန် အစည်းအဝေး ရှိတယ်", "စကားဝှက်"),
    ],
    ids=["thai", "thai-other-word", "lao", "khmer", "myanmar"],
)
def test_a_word_inside_a_sentence_of_a_script_without_spaces_is_found(ov, doc, other, query):
    """Thai, Lao, Khmer and Myanmar put no space between words: a sentence was one token (dropped
    when over 64 bytes), and no word of it could be found."""
    write(ov, "viking://resources/sea/doc.md", doc)
    write(ov, "viking://resources/sea/other.md", other)
    write(ov, "viking://resources/sea/english.md", "Unrelated English text about gardening.")
    assert uris(found(ov, query))[0] == "viking://resources/sea/doc.md"


@pytest.mark.parametrize("query", ["caf\u00e9", "cafe\u0301"], ids=["typed-composed", "typed-decomposed"])
def test_a_word_matches_whether_written_and_typed_composed_or_decomposed(ov, query):
    """café written decomposed (e + a combining accent, as macOS gives it) was two tokens, so a
    query typed composed matched it at a fraction of the composed text's score, and vice versa."""
    write(ov, "viking://resources/n/nfd.txt", "Le cafe\u0301 de Paris\n")
    write(ov, "viking://resources/n/nfc.txt", "Le caf\u00e9 de Lyon\n")
    write(ov, "viking://resources/n/other.txt", "Le the de Londres\n")
    hits = {h["uri"]: h for h in found(ov, query)["resources"]}
    assert set(hits) == {"viking://resources/n/nfd.txt", "viking://resources/n/nfc.txt"}
    nfd, nfc = hits["viking://resources/n/nfd.txt"], hits["viking://resources/n/nfc.txt"]
    assert abs(nfd["relevance"] - nfc["relevance"]) < 0.05 and min(nfd["relevance"], nfc["relevance"]) > 0.5
    assert nfd["snippet"] == "1: Le cafe\u0301 de Paris"  # shown as written, not as indexed


@pytest.mark.parametrize(
    ("written", "typed"),
    [
        ("Die Fußgängerzone ist gesperrt.", "FUSSGÄNGERZONE"),
        ("Die FUSSGÄNGERZONE ist gesperrt.", "Fußgängerzone"),
        ("Ｗｅｂｈｏｏｋの署名は２４時間有効です。", "webhook"),
        ("Webhookの署名は24時間有効です。", "Ｗｅｂｈｏｏｋ"),
        ("ｷｬｯｼｭを毎晩削除します。", "キャッシュ"),
        ("Ο λογαριασμός κλειδώθηκε.", "ΛΟΓΑΡΙΑΣΜΌΣ"),
    ],
    ids=["sharp-s-typed-upper", "sharp-s-written-upper", "full-width-written", "full-width-typed", "half-width-katakana", "final-sigma"],
)
def test_a_word_matches_whatever_its_case_folding_or_width(ov, written, typed):
    """Case was lower-cased, not folded (ß is ss in upper case, σ ends a Greek word as ς), and
    full-width Latin letters and half-width katakana, common in Japanese text, were other words."""
    write(ov, "viking://resources/w/doc.md", f"# Notiz\n\n{written}\n")
    write(ov, "viking://resources/w/other.md", "# Other\n\nUnrelated English text about gardening.\n")
    hits = found(ov, typed)["resources"]
    assert hits and hits[0]["uri"] == "viking://resources/w/doc.md" and hits[0]["relevance"] > 0.5
    assert written in hits[0]["snippet"]  # shown as written, not as indexed


def test_a_title_is_found_folded_and_shown_as_written(ov):
    write(ov, "viking://resources/w/keys.md", "# ＡＰＩキーの管理\n\nキーは９０日ごとに更新します。\n")
    hit = found(ov, "API")["resources"][0]
    assert hit["uri"] == "viking://resources/w/keys.md" and hit["title"].endswith(" ＡＰＩキーの管理")  # (its file name first)


def test_the_letters_folded_beyond_lower_case_are_unicodes():
    import unicodedata

    from ov.index.lexical import _CASEFOLD_ONLY

    wanted = {
        c
        for c in map(chr, range(0x80, 0x110000))
        if unicodedata.normalize("NFKC", c) == c and c.casefold().lower() != c.lower()
    }
    assert {c for c in map(chr, range(0x80, 0x20000)) if _CASEFOLD_ONLY.fullmatch(c)} == wanted


_INVOICES = {
    "en.md": "# Invoice import\n\nThe invoice import runs on the billing server every hour.\n",
    "fr.md": "# Import des factures\n\nL'import des factures tourne sur le serveur de facturation toutes les heures.\n",
    "de.md": "# Rechnungsimport\n\nDer Rechnungsimport läuft jede Stunde auf dem Abrechnungsserver.\n",
}


@pytest.mark.parametrize(
    ("plain", "elided", "doc"),
    [
        ("where is the invoice import running?", "where's the invoice import running?", "en.md"),
        ("Sur quel serveur tourne l'import des factures ?", "Sur quel serveur l'import des factures s'exécute-t-il ?", "fr.md"),
        ("Quel serveur fait l'import des factures ?", "Qu'est-ce qui fait l'import des factures ?", "fr.md"),
        ("Auf welchem Server läuft der Rechnungsimport?", "Wann läuft der Rechnungsimport auf dem Server?", "de.md"),
    ],
)
def test_a_question_in_any_language_is_as_relevant_with_its_elisions_and_function_words(ov, plain, elided, doc):
    """A fragment an apostrophe joins to a word ("'s", "qu'", "s'", "-t-") and another language's
    articles and pronouns counted as query words the note did not hold: "how's ..." scored half of
    "how is ...", and no French question reached the prompt hook's cut-off."""
    for name, text in _INVOICES.items():
        write(ov, f"viking://resources/inv/{name}", text)
    for query in (plain, elided):
        best = found(ov, query, "-n", "1")["resources"][0]
        assert best["uri"] == f"viking://resources/inv/{doc}" and best["relevance"] >= 0.8, (query, best)


def test_a_foreign_question_keeps_a_function_word_it_writes_as_code(ov):
    # (review rev16) the French "du" was dropped from the question even in backticks: the note fell behind the summaries
    write(ov, "viking://resources/disk/disk.md", "# Disk usage\nRun du -sh on the cache folder to measure it before cleanup.")
    write(ov, "viking://resources/disk/other.md", "# Cleanup\nThe cache folder is cleaned every night; measure it in the dashboard.")
    best = found(ov, "Comment utiliser `du` pour mesurer le dossier ?", "-n", "1")["resources"][0]
    assert best["uri"] == "viking://resources/disk/disk.md", best


def test_a_devanagari_word_is_one_word_not_cut_at_its_vowel_signs(ov):
    write(ov, "viking://resources/hi/hindi.md", "\u0939\u093f\u0928\u094d\u0926\u0940 \u092d\u093e\u0937\u093e \u0915\u093e \u0907\u0924\u093f\u0939\u093e\u0938")
    # The consonants of हिन्दी, each with another vowel sign: without the marks, the same three tokens.
    write(ov, "viking://resources/hi/scattered.md", "\u0939\u094b \u0928 \u0926\u094b")
    assert uris(found(ov, "\u0939\u093f\u0928\u094d\u0926\u0940")) == ["viking://resources/hi/hindi.md"]


# --- the index repairs itself ---------------------------------------------------------


def index_dir(home: Path) -> Path:
    return home / INDEX


@pytest.mark.parametrize("damage", ["delete", "meta", "segments", "schema"])
def test_a_damaged_index_is_rebuilt_by_the_next_search(docs, ov_home, damage):
    found(docs, "risotto")
    root = index_dir(ov_home)
    if damage == "delete":
        import shutil

        shutil.rmtree(root)
    elif damage == "meta":
        (root / "meta.json").write_text("{not json")
    elif damage == "segments":
        for path in (root / "text").iterdir():
            if path.suffix in (".idx", ".term", ".store"):
                # Replaced, not overwritten in place: this process may still map the old file,
                # and a mapped file cut short kills it with SIGBUS when a thread reads it.
                damaged = path.with_name(path.name + ".damaged")
                damaged.write_bytes(b"garbage" * 10)
                os.replace(damaged, path)
    else:
        meta = json.loads((root / "meta.json").read_text())
        meta["schema_version"] = 0
        (root / "meta.json").write_text(json.dumps(meta))
    result = found(docs, "risotto")
    assert uris(result) == ["viking://resources/notes/cooking.md"]
    assert result["index"]["actions"][0].startswith("rebuilt: ")
    assert docs("fsck").exit_code == 0


@pytest.mark.parametrize("where", ["the index is a file", "left by a rebuild that was killed"])
def test_a_rebuild_leaves_nothing_beside_the_index(docs, ov_home, where):
    """What a rebuild sets aside is removed, a file where the index folder should be too."""
    import shutil

    found(docs, "risotto")
    root = index_dir(ov_home)
    if where == "the index is a file":
        shutil.rmtree(root)
        root.write_text("not a folder")
    else:
        (root / "meta.json").unlink()  # a rebuild is due
        (root.parent / "index.old-99999").write_text("a file")
        (root.parent / "index.new-99999").symlink_to(root / "text")
    result = found(docs, "risotto")
    assert result["index"]["actions"][0].startswith("rebuilt: ") and uris(result) == ["viking://resources/notes/cooking.md"]
    assert root.is_dir() and not [p.name for p in root.parent.glob("index.*-*")]
    assert docs("fsck").exit_code == 0


def _damage_stored_records(root: Path) -> None:
    """Every stored-record file of the full-text index garbled in its first half (its compressed
    records), at its size: the index opens (its segment list and the files' footers are intact)
    and fails only when a search loads a record."""
    for path in (root / "text").glob("*.store"):
        data = path.read_bytes()
        cut = len(data) // 2
        damaged = path.with_name(path.name + ".damaged")  # replaced, not written in place (see above)
        damaged.write_bytes(bytes((b * 7 + 13) % 256 for b in range(cut)) + data[cut:])
        os.replace(damaged, path)


def test_an_index_that_opens_but_fails_when_read_is_rebuilt_by_the_search_that_meets_it(docs, ov_home):
    found(docs, "risotto")
    root = index_dir(ov_home)
    _damage_stored_records(root)
    report = docs("fsck", "--json")
    assert report.exit_code == 1
    finding = next(f for f in report.json["result"]["findings"] if f["area"] == "index")
    assert finding["message"].startswith("the full-text index could not be read") and finding["fix"] == "run `ov reindex`"
    result = found(docs, "risotto")
    assert uris(result) == ["viking://resources/notes/cooking.md"]
    assert result["index"]["actions"][0].startswith("rebuilt: the full-text index could not be read")
    assert docs("fsck").exit_code == 0
    _damage_stored_records(root)
    searched = docs("search", "risotto", "--json")  # the other search path repairs it the same way
    assert searched.exit_code == 0, searched.stderr
    assert searched.json["result"]["index"]["actions"][0].startswith("rebuilt: the full-text index could not be read")


def test_damage_met_while_the_index_is_opened_is_repaired_by_the_same_search(docs, ov_home):
    """Rebuilding stale vectors reads every record when the index is opened: damage met there is
    repaired by that search too, not by the next one."""
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    meta_path = index_dir(ov_home) / "meta.json"
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "vectors_stale": True}))
    _damage_stored_records(index_dir(ov_home))
    write(docs, "viking://resources/notes/pasta.md", "Pasta water should taste like the sea.")
    result = found(docs, "risotto")
    assert uris(result) == ["viking://resources/notes/cooking.md"]
    assert any(a.startswith("rebuilt: the full-text index could not be read") for a in result["index"]["actions"])


@pytest.mark.parametrize("os_error", ["Too many open files (os error 24)", "Permission denied (os error 13)"])
def test_a_read_the_system_failed_keeps_the_index(docs, ov_home, monkeypatch, os_error):
    """Too many open files, an IO error, a folder's permissions: the system failed the read, not
    the index, which is kept (a rebuild would re-embed everything, and the same failure may stop it
    as well)."""
    from ov.index import lexical

    found(docs, "risotto")
    meta = (index_dir(ov_home) / "meta.json").read_text()
    real = lexical.LexicalIndex._run

    def run_out_of_files(self, query, limit):
        with lexical._read_failure():
            raise ValueError(f"An IO error occurred: '{os_error}'")

    monkeypatch.setattr(lexical.LexicalIndex, "_run", run_out_of_files)
    failed = docs("find", "risotto", "--json")
    assert failed.exit_code == 1 and failed.error["code"] == "index_unavailable" and "just now" in failed.error["message"]
    assert (index_dir(ov_home) / "meta.json").read_text() == meta
    monkeypatch.setattr(lexical.LexicalIndex, "_run", real)
    assert "actions" not in found(docs, "risotto")["index"]


def test_a_prompt_that_waited_for_a_build_searches_it_rather_than_build_it_again(docs, ov_home, monkeypatch):
    """The prompt hook read "not built", then got the lock as the job's build ended: it built the
    full text again, without the vectors the job had just made (another job to make them)."""
    import threading

    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index import opening, sync
    from ov.store.lock import WriteLock
    from ov.store.store import Store

    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    root = index_dir(ov_home)
    built = (root / "meta.json").read_text()
    assert not json.loads(built)["vectors_stale"]
    root.rename(root.with_name("index.building"))  # the job's build, not swapped in yet
    monkeypatch.setattr(opening, "GLANCE", 5.0)  # the hook's glance at the lock, long enough to span the swap
    held, done = threading.Event(), threading.Event()

    def job() -> None:
        with WriteLock(ov_home / "state" / "default" / "index.lock", 5):
            held.set()
            time.sleep(0.5)  # the hook reads that there is no index, then waits for the lock
            root.with_name("index.building").rename(root)
        done.set()

    threading.Thread(target=job, daemon=True).start()
    assert held.wait(10)
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    opened = sync.Indices(store, lock_wait=sync.GLANCE, build_limit=200).open(full_text_only=True)
    assert done.wait(10) and opened.actions == [] and opened.meta.records > 0
    assert (root / "meta.json").read_text() == built  # its vectors kept


def test_a_prompt_tells_a_store_too_large_to_build_without_reading_its_files(ov, ov_home, tmp_path, monkeypatch):
    """The prompt hook builds only a small store's full text: it read a large store's files up to
    the limit to find it too large (0.2-0.5 s of its one-second deadline on every prompt until the
    job's build, and prompts ran past it). Its files are counted first, their content unread."""
    from ov.config import load_config
    from ov.errors import IndexNotBuilt
    from ov.home import Home
    from ov.hosts.runtime import HOOK_BUILD_RECORDS
    from ov.identity import Identity
    from ov.index.sync import GLANCE, Indices
    from ov.store.gitstore import GitStore
    from ov.store.store import Store

    folder = tmp_path / "handbook"
    for i in range(HOOK_BUILD_RECORDS + 10):
        (folder / f"part{i // 50}").mkdir(parents=True, exist_ok=True)
        (folder / f"part{i // 50}" / f"page{i:03d}.md").write_text(f"# Page {i}\n\nTopic {i} of the handbook.\n")
    assert ov("add-resource", str(folder)).exit_code == 0
    assert ov("config", "set", "retrieval.language", "german").exit_code == 0  # its full text is to be rebuilt
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    read = []
    real = GitStore.blob_data
    monkeypatch.setattr(GitStore, "blob_data", lambda self, sha: read.append(sha) or real(self, sha))
    with pytest.raises(IndexNotBuilt):
        Indices(store, lock_wait=GLANCE, build_limit=HOOK_BUILD_RECORDS).open(full_text_only=True)
    assert read == []
    assert not list((ov_home / "state" / "default").glob("index.new-*"))


def test_a_read_failure_drops_the_index_it_read_and_not_a_newer_one(docs, ov_home):
    """What a search that meets a damaged index does, by steps: the index it read is marked not
    built (so a hook's ready() starts a build job), unless another process replaced it meanwhile."""
    from ov.config import load_config
    from ov.errors import IndexDamaged
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.sync import Indices
    from ov.store.store import Store

    found(docs, "risotto")
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    indices = Indices(store)
    calls = []

    def work(opened):
        calls.append(opened.meta.commit)
        if len(calls) == 1:
            raise IndexDamaged("the full-text index could not be read: test")
        return opened

    opened = indices.use(work)
    assert len(calls) == 2 and opened.actions == ["rebuilt: the full-text index could not be read: test"]
    assert indices.ready()
    newer = Indices(store).open().meta
    stale = Indices(store).open().meta
    stale.updated_at -= 1  # read before another process's update
    indices.discard(stale, "test")
    assert (index_dir(ov_home) / "meta.json").exists()
    indices.discard(newer, "test")
    assert not (index_dir(ov_home) / "meta.json").exists() and not Indices(store).ready()


def test_a_rebuild_of_a_damaged_index_cut_short_leaves_it_not_built(docs, ov_home, monkeypatch):
    """A hook's deadline can end the rebuild a damaged index needs: the index then reads as not
    built (a prompt starts a build job), not as ready to every prompt that fails on it again."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index import rebuild
    from ov.index.sync import Indices
    from ov.store.store import Store

    found(docs, "risotto")
    for path in (index_dir(ov_home) / "text").glob("*.idx"):
        path.unlink()
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    assert Indices(store).ready()  # its meta.json alone says nothing of the damage

    def deadline(*args):
        raise TimeoutError("the hook's deadline")

    with monkeypatch.context() as patch, pytest.raises(TimeoutError):
        patch.setattr(rebuild, "_build_into", deadline)
        Indices(store).open(full_text_only=True)
    assert not Indices(store).ready()
    assert uris(found(docs, "risotto")) == ["viking://resources/notes/cooking.md"]


def _update_killed_before_its_meta(monkeypatch):
    """Open the index with its update dying between the full-text commit and meta.json, as a
    kill -9 there would."""
    from ov.index import sync

    written = sync.Meta.write

    def killed(self, path):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
        patch.setattr(sync.Meta, "write", killed)
        _opened()
    assert sync.Meta.write is written


def test_an_interrupted_update_is_replayed_without_duplicates(docs, ov_home, monkeypatch):
    found(docs, "risotto")
    write(docs, "viking://resources/notes/cooking.md", "# Cooking\n\nPaella wants saffron.\n")
    _update_killed_before_its_meta(monkeypatch)
    assert (index_dir(ov_home) / "update.json").is_file()
    result = found(docs, "paella")
    assert result["index"]["actions"] == ["updated 1 path"]
    assert uris(result) == ["viking://resources/notes/cooking.md"]
    assert not (index_dir(ov_home) / "update.json").exists()
    assert docs("fsck").exit_code == 0


def test_an_update_cut_short_without_its_note_is_rebuilt(docs, ov_home):
    # An ov that wrote no note (an earlier version) died mid-update: what it removed cannot be
    # told, so the index is rebuilt rather than left with records HEAD does not hold.
    found(docs, "risotto")
    meta_path = index_dir(ov_home) / "meta.json"
    before = json.loads(meta_path.read_text())
    write(docs, "viking://resources/notes/cooking.md", "# Cooking\n\nPaella wants saffron.\n")
    found(docs, "paella")
    meta_path.write_text(json.dumps(before))  # as if meta.json had not been written
    result = found(docs, "paella")
    assert result["index"]["actions"] == ["rebuilt: an index update was cut short"]
    assert uris(result) == ["viking://resources/notes/cooking.md"]
    assert docs("fsck").exit_code == 0


@pytest.mark.parametrize("provider", ["auto", "hash"])  # auto: the built-in model
def test_a_killed_update_leaves_no_records_where_a_path_came_back_to_its_blob(ov, ov_home, monkeypatch, provider):
    # A live session's messages file is empty, holds a turn, and is empty again after a commit:
    # the diff from the indexed commit did not name it, the replay did not touch it, and the
    # killed update's records were found by every search until `ov reindex`.
    assert ov("config", "set", "embedding.provider", provider).exit_code == 0
    assert ov("session", "add", "s", "--text", "I prefer tabs.").exit_code == 0
    assert ov("commit", "s").exit_code == 0
    found(ov, "tabs")
    meta_before = json.loads((index_dir(ov_home) / "meta.json").read_text())
    assert ov("session", "add", "s", "--text", "zebrafish notes").exit_code == 0
    _update_killed_before_its_meta(monkeypatch)
    assert ov("commit", "s").exit_code == 0
    live = "viking://user/default/sessions/s/messages.jsonl"
    result = found(ov, "zebrafish")
    assert live not in json.dumps(result)
    assert "vectors rebuilt" not in result["index"]["actions"]  # undone, not rebuilt
    meta = json.loads((index_dir(ov_home) / "meta.json").read_text())
    assert meta["next_label"] > meta_before["next_label"] and meta["embedder"] is not None
    checked = ov("fsck", "--json")
    assert checked.exit_code == 0 and checked.json["result"]["findings"] == []
    assert checked.json["result"]["checked"]["records"] == meta["records"]
    assert meta["vectors"] == checked.json["result"]["checked"]["vectors"]


def test_a_change_to_most_of_the_index_is_applied_by_a_rebuild(docs, monkeypatch):
    # Path by path, a folder of 5,000 files moved took 1.5x a rebuild to catch up.
    monkeypatch.setattr("ov.index.update.LARGE_DIFF", 4)
    found(docs, "risotto")
    assert docs("mv", "viking://resources/handbook", "viking://resources/guide").exit_code == 0
    result = found(docs, "rotate API keys")
    assert result["index"]["actions"][0].startswith("rebuilt: ") and "most of the index" in result["index"]["actions"][0]
    assert uris(result)[0] == "viking://resources/guide/security.md"
    write(docs, "viking://resources/notes/pasta.md", "Pasta water should taste like the sea.")
    assert found(docs, "pasta water")["index"]["actions"] == ["updated 1 path"]  # a small change is applied as it is


def _opened():
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.sync import Indices
    from ov.store.store import Store

    return Indices(Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)).open()


def _indexed(ov_home) -> list[tuple[str, str]]:
    from ov.index.lexical import Filters

    opened = _opened()
    return sorted((h.record.id.rsplit("#", 1)[1], h.record.text) for h in opened.lexical.fetch(Filters(types=("session",)), 1000))


@pytest.mark.parametrize("provider", ["none", "hash"])
def test_an_update_of_a_sessions_messages_killed_before_its_meta_is_replayed_as_a_rebuild_would_index(ov, ov_home, monkeypatch, provider):
    # Replayed record by record, the update kept what the killed one wrote (a secret a later
    # commit took out stayed searchable) and added its new messages a second time.
    from ov.index import sync

    assert ov("config", "set", "embedding.provider", provider).exit_code == 0
    for i, text in enumerate(["first about gardens", "reply about tomatoes", "third about kale"]):
        assert ov("session", "add", "s1", "--text", text, "--id", f"m{i + 1}").exit_code == 0
    found(ov, "gardens")
    log = ov_home / "accounts/default/user/default/sessions/s1/messages.jsonl"
    original = log.read_text()
    log.write_text(original.replace("first about gardens", "the password is hunter2"))
    assert ov("snapshot", "commit", "-m", "a secret pasted").exit_code == 0
    assert ov("session", "add", "s1", "--text", "zucchini question", "--id", "m4").exit_code == 0
    written = sync.Meta.write

    def killed(self, path):
        raise KeyboardInterrupt  # as kill -9 between the full-text commit and meta.json

    monkeypatch.setattr(sync.Meta, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        _opened()
    monkeypatch.setattr(sync.Meta, "write", written)
    log.write_text(log.read_text().replace("the password is hunter2", "first about gardens"))
    assert ov("snapshot", "commit", "-m", "the secret taken out").exit_code == 0
    replayed = _indexed(ov_home)
    assert "hunter2" not in json.dumps(found(ov, "hunter2")["sessions"])
    assert [h["message_id"] for h in found(ov, "zucchini")["sessions"]].count("m4") == 1
    assert ov("fsck").exit_code == 0
    assert ov("reindex").exit_code == 0
    assert replayed == _indexed(ov_home)


def test_changing_the_embedder_rebuilds_with_vectors(docs, ov_home):
    found(docs, "risotto")
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    result = found(docs, "risotto")
    assert result["retrieval"]["mode"] == "hybrid"
    assert result["retrieval"]["embedding"]["provider"] == "hash"
    assert result["index"]["actions"] == ["rebuilt: the embedder changed"]
    meta = json.loads((index_dir(ov_home) / "meta.json").read_text())
    assert meta["embedder"] == {"provider": "hash", "model": "hash-v1", "dimension": 256, "recipe": 1}
    assert meta["vectors"] == meta["records"]
    write(docs, "viking://resources/notes/pasta.md", "Pasta water should taste like the sea.")
    assert uris(found(docs, "pasta water"))[0] == "viking://resources/notes/pasta.md"
    assert docs("fsck", "--json").json["result"]["checked"]["vectors"] == json.loads((index_dir(ov_home) / "meta.json").read_text())["records"]
    assert docs("config", "set", "embedding.provider", "none").exit_code == 0
    back = found(docs, "pasta water")
    assert back["retrieval"]["mode"] == "lexical" and back["index"]["actions"] == ["rebuilt: the embedder was removed"]


def test_vectors_made_by_another_recipe_are_rebuilt(docs, ov_home, monkeypatch):
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    meta_path = index_dir(ov_home) / "meta.json"
    meta = json.loads(meta_path.read_text())
    assert meta["embedder"]["recipe"] == 1
    # An index from before the recipe was recorded is recipe 1: nothing to do.
    del meta["embedder"]["recipe"]
    meta_path.write_text(json.dumps(meta))
    assert "actions" not in found(docs, "risotto")["index"]
    # A later ov that makes vectors another way rebuilds them once.
    monkeypatch.setattr("ov.index.folder.VECTOR_RECIPE", 2)
    result = found(docs, "risotto")
    assert result["index"]["actions"] == ["rebuilt: vectors made by ov's recipe 1, this ov makes recipe 2"]
    assert json.loads(meta_path.read_text())["embedder"]["recipe"] == 2
    assert "actions" not in found(docs, "risotto")["index"]


def test_a_damaged_vector_file_is_rebuilt(docs, ov_home):
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    for path in index_dir(ov_home).glob("vectors-*"):
        path.write_bytes(b"junk")
    result = found(docs, "risotto")
    assert result["retrieval"]["mode"] == "hybrid" and result["index"]["actions"] == ["vectors rebuilt"]
    assert docs("fsck").exit_code == 0


def test_a_damaged_flat_copy_is_passed_over_for_the_hnswlib_index(docs, ov_home):
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    before = found(docs, "risotto")
    (exact,) = index_dir(ov_home).glob("vectors-*.exact")
    exact.write_bytes(exact.read_bytes()[:-8])  # cut short, as by a crash mid-write
    after = found(docs, "risotto")
    assert after["retrieval"]["mode"] == "hybrid" and uris(after) == uris(before)
    assert docs("fsck").exit_code != 0  # the copy disagrees with the index: fsck says so


def test_past_the_flat_copys_limit_a_grouped_copy_follows_every_update_and_fsck_checks_it(docs, ov_home, monkeypatch):
    monkeypatch.setattr("ov.index.vectors.EXACT_COMPONENTS", 0)  # every index is past the flat copy's limit
    monkeypatch.setattr("ov.index.vector_delta.DELTA_LIMIT", 0)  # every update writes a new generation
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    (first,) = index_dir(ov_home).glob("vectors-*.groups")
    assert not list(index_dir(ov_home).glob("vectors-*.exact")) and docs("fsck", "--json").json["result"]["findings"] == []
    write(docs, "viking://resources/notes/soup.md", "A tomato soup with basil")
    assert uris(found(docs, "tomato soup"))[0] == "viking://resources/notes/soup.md"
    (second,) = index_dir(ov_home).glob("vectors-*.groups")  # the update's generation, the old one gone
    assert second != first and docs("fsck", "--json").json["result"]["findings"] == []
    before = found(docs, "risotto")
    second.write_bytes(second.read_bytes()[:-8])  # cut short
    assert uris(found(docs, "risotto")) == uris(before)
    checked = docs("fsck")
    assert checked.exit_code != 0 and "grouped copy" in checked.stdout


@pytest.mark.parametrize("damage", ["inverted bytes", "flat copy, a NaN scale", "grouped copy"])
def test_fsck_finds_damage_inside_a_copy_of_the_vectors_that_still_loads(docs, ov_home, monkeypatch, damage):
    """A copy cut short is passed over by searches; one damaged inside, at its right size, loads
    and is searched, so only comparing it with the index finds it. `ov reindex` writes it anew."""
    if damage == "grouped copy":
        monkeypatch.setattr("ov.index.vectors.EXACT_COMPONENTS", 0)
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    (copy,) = index_dir(ov_home).glob("vectors-*.groups" if damage == "grouped copy" else "vectors-*.exact")
    assert docs("fsck", "--json").json["result"]["findings"] == []
    data = bytearray(copy.read_bytes())
    if damage == "flat copy, a NaN scale":
        _, _, count = struct.unpack_from("<8sII", data)  # the flat copy: head, labels (int64), scales (float32), columns
        data[16 + 8 * count : 16 + 8 * count + 4] = b"\xff\xff\xff\xff"
    else:
        data[-len(data) // 3 :: 97] = bytes(b ^ 0xFF for b in data[-len(data) // 3 :: 97])  # bytes of the last third inverted
    copy.write_bytes(bytes(data))
    checked = docs("fsck", "--json")
    (finding,) = checked.json["result"]["findings"]
    assert checked.exit_code != 0 and finding["severity"] == "problem" and "differs from the index" in finding["message"]
    assert finding["fix"] == "run `ov reindex`"
    assert docs("reindex").exit_code == 0 and docs("fsck", "--json").json["result"]["findings"] == []


def test_fsck_does_not_promise_a_search_rebuilds_a_copy_of_the_vectors_cut_short(docs, ov_home):
    """A copy cut short is passed over by searches (they read hnswlib's file), so a search never
    rebuilds it: fsck said "any search also rebuilds it" and the problem stayed after every search."""
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    (copy,) = index_dir(ov_home).glob("vectors-*.exact")
    copy.write_bytes(copy.read_bytes()[:100])
    assert found(docs, "risotto")["total"]  # searches still answer
    (finding,) = docs("fsck", "--json").json["result"]["findings"]
    assert finding["severity"] == "problem" and finding["fix"] == "run `ov reindex`"
    assert docs("reindex").exit_code == 0 and docs("fsck", "--json").json["result"]["findings"] == []


def test_a_flat_copy_an_earlier_ov_wrote_is_passed_over_and_rewritten_by_the_next_update(docs, ov_home):
    """Earlier copies held float rows under the magic ``ovexact1``: an upgraded ov searches through
    hnswlib meanwhile, fsck notes it without calling it damage, and the next update writes the
    current format."""
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    before = found(docs, "risotto")
    (exact,) = index_dir(ov_home).glob("vectors-*.exact")
    exact.write_bytes(b"ovexact1" + exact.read_bytes()[8:])
    assert uris(found(docs, "risotto")) == uris(before)
    checked = docs("fsck", "--json")
    assert checked.exit_code == 0, checked.stdout
    assert [f["severity"] for f in checked.json["result"]["findings"]] == ["note"] and "older format" in checked.stdout
    write(docs, "viking://resources/notes/soup.md", "A tomato soup with basil")
    assert uris(found(docs, "tomato soup"))[0] == "viking://resources/notes/soup.md"
    (exact,) = index_dir(ov_home).glob("vectors-*.exact")
    assert exact.read_bytes()[:8] == b"ovexact2" and docs("fsck", "--json").json["result"]["findings"] == []


def test_a_damaged_hnswlib_file_is_rebuilt_by_the_next_update_while_searches_use_the_flat_copy(docs, ov_home, monkeypatch):
    monkeypatch.setattr("ov.index.vector_delta.DELTA_LIMIT", 0)  # the update writes a new generation from it
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    before = found(docs, "risotto")
    (hnsw,) = index_dir(ov_home).glob("vectors-*.hnsw")
    hnsw.write_bytes(b"junk")
    assert uris(found(docs, "risotto")) == uris(before)
    write(docs, "viking://resources/notes/soup.md", "A tomato soup with basil")
    result = found(docs, "tomato soup")
    assert result["retrieval"]["mode"] == "hybrid" and "vectors rebuilt" in result["index"]["actions"]
    assert docs("fsck").exit_code == 0


def test_hybrid_search_finds_a_near_miss_that_words_alone_miss(ov):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    write(ov, "viking://resources/a.md", "Configuring the authentication middleware")
    write(ov, "viking://resources/b.md", "Gardening in spring")
    # "authenticate" and "authentication" stem differently; the hashing embedder's trigrams still match.
    result = found(ov, "authenticator configurations")
    assert uris(result)[0] == "viking://resources/a.md"


def test_reindex_rebuilds_and_reports(docs):
    result = docs("reindex", "--json")
    assert result.exit_code == 0
    payload = result.json["result"]
    assert payload["records"] == 3 and payload["vectors"] == 0 and payload["embedding"]["available"] is False
    assert "indexed 3 records" in docs("reindex").stdout and "(lexical only)" in docs("reindex").stdout


class _Told:
    """A progress callback (ov.progress) that keeps what it is told: stage -> [(done, total), ...]."""

    def __init__(self) -> None:
        self.stages: dict[str, list[tuple[int, int | None]]] = {}

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        self.stages.setdefault(stage, []).append((done, total))

    def last(self, stage: str) -> tuple[int, int | None]:
        return self.stages[stage][-1]


def _store():
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    return Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)


def _committed(store) -> int:
    return sum(1 for _ in store.git.iter_files(store.git.tree_of(store.git.head())))


def test_building_catching_up_and_rebuilding_the_index_say_how_far_along_they_are(docs):
    from ov.index.folder import FULL_TEXT, READING, VECTORS
    from ov.index.sync import Indices

    told = _Told()
    opened = Indices(_store(), progress=told).open()  # the first search builds the index
    files = _committed(_store())
    # Every committed file is read, one step at a time, then every record indexed.
    assert told.stages[READING] == [(done, files) for done in range(files + 1)]
    assert told.last(FULL_TEXT) == (opened.meta.records, opened.meta.records) and opened.meta.records >= 3
    assert VECTORS not in told.stages  # lexical only here
    told = _Told()
    Indices(_store(), progress=told).open()
    assert told.stages == {}, "an index at HEAD has nothing to do and says nothing"
    write(docs, "viking://resources/notes/tea.md", "Tea wants water below boiling.\n")
    write(docs, "viking://resources/notes/coffee.md", "Coffee wants water just off the boil.\n")
    Indices(_store(), progress=told).open()
    reading, _ = told.last(READING)
    assert told.last(READING) == (reading, reading) and 2 <= reading < files, "a catch-up reads the changed paths alone"
    assert told.last(FULL_TEXT)[0] == told.last(FULL_TEXT)[1] >= 2
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    told = _Told()
    rebuilt = Indices(_store(), progress=told).rebuild()
    assert told.last(READING) == (files + 2, files + 2)
    batches, of = told.last(VECTORS)
    assert batches == of >= 1 and rebuilt.meta.vectors >= rebuilt.meta.records


def test_reindex_of_a_new_store_names_the_embedder_it_has_not_yet_used(ov):
    """A new store has no record to embed: its 0 vectors do not make the built-in model absent."""
    assert ov("config", "set", "embedding.provider", "auto").exit_code == 0
    assert ov("init").exit_code == 0
    result = ov("reindex")
    assert result.exit_code == 0, result.stderr
    assert "0 vectors (tier default)" in result.stdout and "lexical only" not in result.stdout


def test_concurrent_first_searches_build_once_and_both_answer(docs, ov_home):
    env_home = str(ov_home)
    procs = [
        subprocess.Popen([sys.executable, "-m", "ov", "find", "risotto", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**__import__("os").environ, "OV_HOME": env_home})
        for _ in range(3)
    ]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
        assert json.loads(out)["result"]["resources"][0]["uri"] == "viking://resources/notes/cooking.md"
    assert docs("fsck").exit_code == 0


# --- fsck and doctor ----------------------------------------------------------------


def test_fsck_notes_a_missing_index_that_the_next_search_builds(docs, ov_home):
    found(docs, "risotto")
    assert docs("fsck").exit_code == 0
    (index_dir(ov_home) / "meta.json").unlink()
    result = docs("fsck", "--json")
    assert result.exit_code == 0  # derived data, rebuilt by itself: not damage
    report = result.json["result"]
    assert report["ok"] is True
    assert report["findings"][0]["area"] == "index" and report["findings"][0]["severity"] == "note"
    assert "ov reindex" in report["findings"][0]["fix"]
    assert docs("reindex").exit_code == 0 and docs("fsck", "--json").json["result"]["findings"] == []


def test_fsck_says_how_far_along_it_is(docs):
    from ov.health.fsck import fsck

    found(docs, "risotto")  # the index at HEAD: its records are checked too
    told = _Told()
    report = fsck(_store(), progress=told)
    assert report.ok, report.findings
    commits, files = report.checked["commits"], report.checked["files"]
    # The history and the tree are walked without a count known in advance; the index check knows it.
    assert told.last("checking commits") == (commits, None) and told.last("checking files") == (files, None)
    assert told.stages["checking the index"] == [(done, files) for done in range(files + 1)]


def test_fsck_passes_on_a_fresh_store_that_was_never_searched(ov):
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    result = ov("fsck", "--json")
    assert result.exit_code == 0, result.stdout


def test_fsck_notes_hand_edits_and_a_missing_object(docs, ov_home):
    found(docs, "risotto")
    (ov_home / "accounts/default/resources/notes/cooking.md").write_text("edited by hand")
    report = docs("fsck", "--json").json["result"]
    assert report["ok"] is True and any("edited by hand" in f["message"] for f in report["findings"])
    from dulwich.repo import Repo

    repo = Repo(str(ov_home / "accounts/default"))
    tree = repo[repo.head()].tree
    objects = ov_home / "accounts/default/.git/objects"
    blob = next(entry.sha for entry in repo.object_store.iter_tree_contents(tree) if entry.path.endswith(b"deploy.md"))
    loose = objects / blob.decode()[:2] / blob.decode()[2:]
    assert loose.exists()
    loose.unlink()
    damaged = docs("fsck", "--json")
    assert damaged.exit_code == 1
    assert any("deploy.md is missing" in f["message"] for f in damaged.json["result"]["findings"])


def test_doctor_reports_lexical_retrieval_as_a_warning_not_an_error(docs):
    result = docs("doctor", "--json")
    assert result.exit_code == 0
    checks = {c["name"]: c for c in result.json["result"]["checks"]}
    assert checks["embedder"]["status"] == "warn" and "lexical" in checks["embedder"]["detail"]
    assert checks["store"]["status"] == "ok" and checks["llm"]["status"] == "ok"


def _replace_with_garbage(path: Path) -> None:
    damaged = path.with_name(path.name + ".damaged")  # replaced, not written in place (see above)
    damaged.write_bytes(b"garbage" * 40)
    os.replace(damaged, path)


def _files_under(root: Path) -> dict[str, tuple[int, int]]:
    # A folder's times left out: doctor's writable check makes and removes a probe file in it.
    return {str(p.relative_to(root)): (-1, 0) if p.is_dir() else (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        ("segments", "the full-text index does not open: "),
        ("text folder gone", "the full-text index does not open: no full-text index in "),
        ("vectors", "the vector index does not load"),
    ],
)
def test_doctor_opens_the_index_as_a_search_does_and_reports_damage_without_repairing_it(docs, ov_home, damage, says):
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    root = index_dir(ov_home)
    if damage == "segments":
        for path in (root / "text").glob("*.idx"):
            _replace_with_garbage(path)
    elif damage == "text folder gone":
        import shutil

        shutil.rmtree(root / "text")
    else:
        for path in root.glob("vectors-*"):
            _replace_with_garbage(path)
    state = _files_under(ov_home / "state")
    checks = {c["name"]: c for c in docs("doctor", "--json").json["result"]["checks"]}
    assert checks["index"]["status"] == "warn"
    assert checks["index"]["detail"].startswith(f"damaged, the next search rebuilds it: {says}")
    assert "ov reindex" in checks["index"]["fix"]
    assert _files_under(ov_home / "state") == state  # doctor reads; the search below repairs
    (action,) = found(docs, "risotto")["index"]["actions"]
    assert action == "vectors rebuilt" if damage == "vectors" else action.startswith("rebuilt: ")
    checks = {c["name"]: c for c in docs("doctor", "--json").json["result"]["checks"]}
    assert checks["index"]["status"] == "ok" and checks["index"]["detail"].endswith("at HEAD")


@pytest.mark.parametrize(("damage", "says"), [("junk", "has 4 bytes, fewer than hnswlib's header"), ("cut short", "not what its header promises")])
def test_doctor_finds_a_damaged_hnswlib_file_beside_an_intact_flat_copy_as_fsck_does(docs, ov_home, damage, says):
    """A search reads the flat copy and never hnswlib's file, so doctor said "ok" while fsck found
    the file damaged; and the reason it gave for vectors that do not load went to the log only."""
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    (hnsw,) = index_dir(ov_home).glob("vectors-*.hnsw")
    hnsw.write_bytes(b"junk" if damage == "junk" else hnsw.read_bytes()[:-10])
    state = _files_under(ov_home / "state")
    checks = {c["name"]: c for c in docs("doctor", "--json").json["result"]["checks"]}
    detail = checks["index"]["detail"]
    assert checks["index"]["status"] == "warn" and detail.startswith(f"the vector index's hnswlib file is damaged: {hnsw.name} ") and says in detail
    assert checks["index"]["fix"] == "run `ov reindex`"
    assert _files_under(ov_home / "state") == state  # nothing repaired or dropped
    (finding,) = docs("fsck", "--json").json["result"]["findings"]
    assert finding["message"].startswith(f"the vector index does not open: {hnsw.name} ") and says in finding["message"]
    assert found(docs, "risotto")["retrieval"]["mode"] == "hybrid"  # searches go on with the flat copy
    assert docs("reindex").exit_code == 0
    checks = {c["name"]: c for c in docs("doctor", "--json").json["result"]["checks"]}
    assert checks["index"]["status"] == "ok" and checks["index"]["detail"].endswith("at HEAD")


def test_doctor_says_why_the_vectors_a_search_reads_do_not_load(docs, ov_home, monkeypatch):
    """Past the flat copy a process that has numpy (as this one) searches hnswlib's file itself:
    doctor said "the vector index does not load" and nothing of why."""
    monkeypatch.setattr("ov.index.vectors.EXACT_COMPONENTS", 0)
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    (hnsw,) = index_dir(ov_home).glob("vectors-*.hnsw")
    assert (index_dir(ov_home) / hnsw.with_suffix(".groups").name).is_file()
    hnsw.write_bytes(b"\0" * 96 + hnsw.read_bytes()[96:])
    checks = {c["name"]: c for c in docs("doctor", "--json").json["result"]["checks"]}
    reason = f"the vector index does not load: {hnsw.name} does not hold hnswlib's header for vectors of 256 dimensions"
    assert checks["index"]["detail"] == f"damaged, the next search rebuilds it: {reason}"


def test_a_store_ov_may_only_read_is_searched_with_its_vectors_as_it_is(ov, ov_home, bound_by_permissions, tmp_path, monkeypatch):
    """tantivy takes a lock file even to read, so a store ov may not write to (a backup, a shared
    store, a sandbox) failed every search with `store_not_writable`. It is read through a view
    in a temporary folder, removed at once; an index behind HEAD that ov may not update is
    searched as it is, and stderr says so once."""
    from tests.conftest import set_writable

    as_user = bound_by_permissions
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    write(ov, "viking://resources/auth.md", "Configuring the authentication middleware")
    write(ov, "viking://resources/garden.md", "Gardening in spring")
    found(ov, "gardening")
    write(ov, "viking://resources/later.md", "Gardening in autumn")  # committed, not indexed
    built = _files_under(index_dir(ov_home))
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    set_writable(ov_home, False)
    try:
        words = as_user("find", "gardening", "--json")
        near = as_user("find", "authenticator configurations", "--json")  # the words alone miss it
        searched = as_user("search", "gardening")
        doctor = as_user("doctor", "--json")
    finally:
        set_writable(ov_home, True)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["result"]["checks"]}
    assert checks["index"]["status"] == "warn" and checks["index"]["fix"] == "see the writable check"
    assert checks["index"]["detail"] == "2 records, behind HEAD: ov may not update it, so searches read it as it is"
    assert words.exit_code == 0, words.stderr
    behind = words.json["result"]["index"]["behind"]
    assert behind.startswith(f"the index is behind HEAD and cannot be updated (ov cannot write to {ov_home}/state/default/")
    assert behind.endswith(": searched as it is, without what was committed since")
    assert words.stderr == f"warning: {behind}\n" and searched.stderr.count("warning: the index is behind HEAD") == 1
    assert uris(words.json["result"])[0] == "viking://resources/garden.md" and "viking://resources/later.md" not in uris(words.json["result"])
    assert "viking://resources/garden.md" in searched.stdout and "viking://resources/later.md" not in searched.stdout
    assert near.exit_code == 0 and near.json["result"]["retrieval"]["mode"] == "hybrid"
    assert uris(near.json["result"])[0] == "viking://resources/auth.md"
    assert list(temporary.iterdir()) == []  # no view left behind
    assert _files_under(index_dir(ov_home)) == built  # nothing written to the index, no lock file
    caught_up = found(ov, "gardening")
    assert "behind" not in caught_up["index"] and "viking://resources/later.md" in uris(caught_up)


def test_a_read_only_open_that_a_writer_races_is_tried_again(monkeypatch, tmp_path):
    # The lock file a writer respects is in the view: the store's owner may remove a segment
    # between the copy of meta.json and the open (2 % of opens beside 5 commits a second).
    from ov.errors import StoreNotWritable
    from ov.index import lexical

    tries = []

    def racing(path, refused, schema):
        tries.append(path)
        if len(tries) < 3:
            raise ValueError('Failed to open file for read: FileDoesNotExist("/tmp/ov-index-view-x/index/a.del")')
        return "the index"

    monkeypatch.setattr(lexical, "_open_view", racing)
    refused = StoreNotWritable(tmp_path, "Permission denied")
    assert lexical._open_read_only(tmp_path, refused, None) == "the index" and len(tries) == 3
    tries.clear()
    monkeypatch.setattr(lexical, "READ_ONLY_ATTEMPTS", 2)
    with pytest.raises(ValueError, match="FileDoesNotExist"):
        lexical._open_read_only(tmp_path, refused, None)


def test_a_file_missing_from_an_index_opened_read_only_is_named_in_the_index_folder(ov, ov_home, tmp_path, monkeypatch):
    # Opened through a view in a temporary folder, removed at once: the error named the view's
    # copy (/tmp/ov-index-view-.../index/....idx), a file nobody could go and look for.
    import tempfile

    from ov.errors import StoreNotWritable
    from ov.index import lexical

    write(ov, "viking://resources/garden.md", "Gardening in spring")
    found(ov, "gardening")
    text = index_dir(ov_home) / "text"
    (segment,) = text.glob("*.idx")
    segment.unlink()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with pytest.raises(ValueError) as missing:
        lexical._open_read_only(text, StoreNotWritable(text, "Read-only file system"), lexical._schema())
    assert f'FileDoesNotExist("{segment}")' in str(missing.value) and "ov-index-view" not in str(missing.value)
    assert list(temporary.iterdir()) == []


def test_a_read_only_mount_is_searched_and_its_full_text_index_refuses_every_write(ov, ov_home, read_only_mount, tmp_path, monkeypatch):
    import tempfile

    from ov.errors import StoreNotWritable
    from ov.index.lexical import LexicalIndex

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    write(ov, "viking://resources/garden.md", "Gardening in spring")
    found(ov, "gardening")
    mounted = read_only_mount(ov_home)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setenv("OV_HOME", str(mounted))
    result = found(ov, "gardening")
    assert uris(result) == ["viking://resources/garden.md"] and result["retrieval"]["mode"] == "hybrid" and not result["index"]["stale"]
    text = LexicalIndex.open(mounted / INDEX / "text", "english")
    labels = text.labels_of_paths(["resources/garden.md"])
    assert labels and not text.has_labels_from(max(labels) + 1)  # reads that reload a writable index
    with pytest.raises(StoreNotWritable) as refused:
        text.delete_path("resources/garden.md")
    assert refused.value.message == f"ov cannot write to {mounted / INDEX / 'text'}: Read-only file system"
    assert "mounted read-only" in refused.value.hint
    assert list(temporary.iterdir()) == []
    written = ov("write", "viking://resources/b.md", "--content", "b", "--json")
    assert written.exit_code == 1 and written.error["code"] == "store_not_writable"


def _damage_half(path: Path) -> None:
    """``path`` with its first half overwritten, replaced rather than written in place (a mapped
    file cut short kills a process that reads it with SIGBUS)."""
    data = path.read_bytes()
    damaged = path.with_name(path.name + ".damaged")
    damaged.write_bytes(b"\xab" * (len(data) // 2) + data[len(data) // 2 :])
    os.replace(damaged, path)


@pytest.mark.parametrize("segment", ["store", "idx"])
def test_a_damaged_index_on_a_read_only_mount_says_it_is_damaged_and_cannot_be_rebuilt(ov, ov_home, read_only_mount, tmp_path, monkeypatch, segment):
    """A search repairs damage by a rebuild, which a read-only store refuses: the error said only
    `store_not_writable` (a segment that opens and fails to read), or `run ov reindex` (one that
    does not open), which meets the same refusal. Doctor and fsck promised a rebuild by the next search."""
    import tempfile

    write(ov, "viking://resources/garden.md", "Gardening in spring")
    found(ov, "gardening")
    (text,) = (ov_home / INDEX / "text").glob(f"*.{segment}")
    _damage_half(text)
    mounted = read_only_mount(ov_home)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setenv("OV_HOME", str(mounted))
    result = ov("find", "gardening", "--json")
    assert result.exit_code == 1 and result.error["code"] == "index_damaged"
    message = result.error["message"]
    assert message.startswith(f"the search index is damaged and cannot be rebuilt, because ov cannot write to {mounted}/state/default/")
    assert ": Read-only file system (the full-text index " in message
    assert "`ov reindex` where ov may write to it" in result.error["hint"]
    if segment == "idx":  # doctor opens the index as a search does; damage met reading a record is fsck's
        doctor = {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}["index"]
        assert doctor["detail"].startswith("damaged, and ov may not write to the store to rebuild it: ") and doctor["fix"] == "see the writable check"
    fsck = ov("fsck", "--json").json["result"]["findings"]
    assert [(f["area"], f["severity"]) for f in fsck] == [("store", "problem"), ("index", "problem")]
    assert fsck[1]["fix"] == "run `ov reindex` once ov may write to the store (the store problem says why it may not)"
    assert list(temporary.iterdir()) == []


def test_fsck_of_a_read_only_mount_does_not_promise_that_a_search_catches_the_index_up(ov, ov_home, read_only_mount, monkeypatch):
    write(ov, "viking://resources/garden.md", "Gardening in spring")
    found(ov, "gardening")
    assert [f["fix"] for f in ov("fsck", "--json").json["result"]["findings"]] == []
    write(ov, "viking://resources/later.md", "Gardening in autumn")  # committed, not indexed
    writable = ov("fsck", "--json").json["result"]["findings"]
    assert [(f["area"], f["fix"]) for f in writable] == [("index", "the next search catches up")]
    monkeypatch.setenv("OV_HOME", str(read_only_mount(ov_home)))
    findings = ov("fsck", "--json").json["result"]["findings"]
    assert [(f["area"], f["severity"]) for f in findings] == [("store", "problem"), ("index", "note")]
    assert findings[1]["message"] == writable[0]["message"]
    assert findings[1]["fix"] == (
        "searches read it as it is, without what was committed since, until ov may write to the store (the store problem says why it may not)"
    )


def test_doctor_of_a_read_only_mount_does_not_promise_that_a_search_builds_the_index(ov, ov_home, read_only_mount, monkeypatch):
    write(ov, "viking://resources/garden.md", "Gardening in spring")
    assert {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}["index"]["detail"] == "not built yet"
    monkeypatch.setenv("OV_HOME", str(read_only_mount(ov_home)))
    index = {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}["index"]
    assert (index["detail"], index["fix"]) == ("not built yet, and ov may not write to the store to build it", "see the writable check")
    assert ov("find", "gardening", "--json").error["code"] == "store_not_writable"


def test_doctor_fails_when_the_llm_key_is_missing(ov):
    assert ov("config", "set", "llm.model", "openai/gpt-4o-mini").exit_code == 0
    assert ov("config", "set", "llm.api_key_env", "OV_TEST_MISSING_KEY").exit_code == 0
    result = ov("doctor", "--json")
    assert result.exit_code == 1
    assert {c["name"]: c["status"] for c in result.json["result"]["checks"]}["llm"] == "fail"


# --- bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("find", ""),
        ("find", "x", "--level", "5"),
        ("find", "x", "--level", "a,b"),
        ("find", "x", "--type", "memories"),
        ("find", "x", "--after", "yesterday-ish"),
        ("find", "x", "--uri", "viking://nowhere/../../etc"),
        ("find", "x", "--limit", "0"),
    ],
)
def test_bad_find_input_is_refused_with_exit_2(docs, store_state, args):
    before = store_state()
    result = docs(*args, "--json")
    assert result.exit_code == 2, result.stdout
    assert result.error["message"]
    assert store_state() == before


# --- one result per text ------------------------------------------------------------


README = "# Widget\n\nThe widget rotates flux capacitors at dawn.\n"


def test_the_same_text_under_several_paths_is_one_result_naming_the_others(ov):
    for uri in ("viking://resources/a/README.md", "viking://resources/b/README.md", "viking://resources/c/copy.md"):
        write(ov, uri, README)
    write(ov, "viking://resources/d/other.md", "# Other\n\nFlux capacitors are rotated by hand.\n")
    result = found(ov, "flux capacitors")
    assert result["total"] == 2
    [copy] = [h for h in result["resources"] if h["uri"] != "viking://resources/d/other.md"]
    assert copy["uri"] == "viking://resources/a/README.md"  # equal scores: the first URI is shown
    assert copy["also"] == [{"uri": "viking://resources/b/README.md", "lines": [1, 3]}, {"uri": "viking://resources/c/copy.md", "lines": [1, 3]}]
    other = next(h for h in result["resources"] if h["uri"] == "viking://resources/d/other.md")
    assert "also" not in other  # the key is there only when there are copies


def test_a_copy_that_differs_by_a_word_is_a_result_of_its_own(ov):
    write(ov, "viking://resources/a/README.md", README)
    write(ov, "viking://resources/b/README.md", README.replace("dawn", "dusk"))
    write(ov, "viking://resources/c/README.md", README + "\n")  # only a trailing line: the same text
    result = found(ov, "flux capacitors")
    assert sorted(uris(result)) == ["viking://resources/a/README.md", "viking://resources/b/README.md"]
    shown = {h["uri"]: h.get("also", []) for h in result["resources"]}
    assert shown["viking://resources/a/README.md"] == [{"uri": "viking://resources/c/README.md", "lines": [1, 4]}]
    assert shown["viking://resources/b/README.md"] == []


def test_files_from_one_template_that_share_a_section_are_results_of_their_own(ov):
    """Two runbooks share their Deploy section word for word and differ in the rest: as one
    result, a context block deepened to the whole file showed the first and never the second."""
    deploy = "## Deploy\n\n" + "Deploy the widget service with the flux capacitor pipeline, then watch the dashboards. " * 40 + "\n"
    for name, owner in (("svc-a", "Team Alpha in Lisbon"), ("svc-b", "Team Beta in Osaka")):
        owns = "## Owner\n\n" + f"The service is owned by {owner}; page them for anything else. " * 40 + "\n"
        write(ov, f"viking://resources/{name}/runbook.md", f"# Runbook\n\n{deploy}\n{owns}")
    result = found(ov, "flux capacitor pipeline deploy")
    assert sorted(uris(result)) == ["viking://resources/svc-a/runbook.md", "viking://resources/svc-b/runbook.md"]
    assert all("also" not in h for h in result["resources"])
    block = ov("search", "flux capacitor pipeline deploy", "--mode", "context", "--budget", "6000", "--json").json["result"]
    assert "Team Alpha" in block["rendered"] and "Team Beta" in block["rendered"]


def test_the_places_copies_leave_are_filled_by_the_next_results(ov):
    for i in range(4):
        write(ov, f"viking://resources/copy{i}/README.md", "# Flux\n\nFlux capacitors flux capacitors rotate flux capacitors.\n")
    for name in ("one", "two"):
        write(ov, f"viking://resources/{name}.md", f"# {name}\n\nA note on flux capacitors, number {name}.\n")
    result = found(ov, "flux capacitors", "--limit", "3")
    assert result["total"] == 3
    assert sorted(uris(result)) == ["viking://resources/copy0/README.md", "viking://resources/one.md", "viking://resources/two.md"]
    assert [p["uri"] for p in result["resources"][0]["also"]] == [f"viking://resources/copy{i}/README.md" for i in (1, 2, 3)]


def test_a_memory_and_a_document_with_the_same_words_are_both_results(ov):
    text = "The vault rotates flux capacitors nightly."
    write(ov, "viking://user/default/memories/entities/vault.md", text)
    write(ov, "viking://resources/vault.md", text)
    result = found(ov, "vault flux capacitors")
    assert [h["uri"] for h in result["memories"]] == ["viking://user/default/memories/entities/vault.md"]
    assert uris(result) == ["viking://resources/vault.md"]
    assert "also" not in result["memories"][0] and "also" not in result["resources"][0]


def test_the_same_message_in_two_sessions_is_one_result_but_not_the_same_words_from_the_agent(ov):
    question = "Does the vault rotate flux capacitors nightly?"
    for sid in ("s1", "s2"):
        assert ov("session", "add", sid, "--role", "user", "--text", question, "--id", "m0").exit_code == 0
    assert ov("session", "add", "s2", "--role", "assistant", "--text", question, "--id", "m1").exit_code == 0
    hits = found(ov, "vault flux capacitors", "--type", "session")["sessions"]
    assert sorted((h["role"], h["message_id"]) for h in hits) == [("assistant", "m1"), ("user", "m0")]
    user = next(h for h in hits if h["role"] == "user")
    other = "s1" if user["session_id"] == "s2" else "s2"
    assert user["also"] == [{"uri": f"viking://user/default/sessions/{other}/messages.jsonl", "session_id": other, "message_id": "m0"}]


def test_the_plain_output_names_the_other_places_under_the_result(ov):
    for name in ("a", "b", "c", "d", "e"):
        write(ov, f"viking://resources/{name}/README.md", README)
    out = ov("find", "flux capacitors")
    assert out.exit_code == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [line for line in lines if line.startswith(("0.", "1."))] == [lines[1]]  # one result
    assert lines[1].endswith("viking://resources/a/README.md:1-3")
    assert lines[-1] == "    (also at 4 other places: viking://resources/b/README.md:1-3, viking://resources/c/README.md:1-3, viking://resources/d/README.md:1-3, …)"


# --- snippets --------------------------------------------------------------------------


def test_a_snippet_shows_the_part_of_a_long_line_that_holds_the_query_words(ov):
    filler = "This paragraph wanders through gardening, cooking, mountain weather and the price of coffee in many cities. " * 6
    write(ov, "viking://resources/long.md", f"# Notes\n\n{filler}Only at its end does it say that the pipeline rotates credentials nightly.\n")
    [hit] = found(ov, "rotated credential")["resources"]  # stemmed forms of the words in the text
    line = hit["snippet"].splitlines()[-1]
    assert line.startswith("3: …") and line.endswith("the pipeline rotates credentials nightly.")
    assert len(line) <= len("3: ") + 300
    start = found(ov, "gardening")["resources"][0]["snippet"].splitlines()[-1]
    assert start.startswith("3: This paragraph wanders through gardening") and start.endswith("…")


def test_a_snippet_keeps_each_lines_indentation_past_its_least_indented_line(ov):
    """Nesting is meaning in YAML and Python: `port` under `database` under `staging`. The snippet
    lost every line's indentation; it keeps what lies past its least-indented line."""
    write(ov, "viking://resources/app.yaml", "defaults:\n  timeout: 30\nstaging:\n  database:\n    port: 5432\n")
    [hit] = found(ov, "staging database port")["resources"]
    assert hit["snippet"] == "3: staging:\n4:   database:\n5:     port: 5432"
    code = "class Cache:\n    size = 1\n\n    def hello(self):\n        if ready:\n            return 'redis'\n"
    write(ov, "viking://resources/cache.md", code)
    [hit] = found(ov, "hello ready redis")["resources"]
    assert hit["snippet"] == "4: def hello(self):\n5:     if ready:\n6:         return 'redis'"


def test_a_snippet_prefers_the_lines_holding_more_of_the_query_words_to_lines_repeating_one(ov):
    lines = ["Keys are cut at the locksmith.", "Keys open doors.", "Keys get lost.", "Nothing here.", "Nothing there.", "Rotate the keys yearly."]
    write(ov, "viking://resources/keys.md", "\n".join(lines) + "\n")
    [hit] = found(ov, "rotate keys")["resources"]
    assert "6: Rotate the keys yearly." in hit["snippet"] and hit["lines"] == [4, 6]


def test_a_message_snippet_shows_the_part_of_a_long_message_that_holds_the_query_words(ov):
    long = "I looked at the logs for a while. " * 30 + "In the end the flux capacitor overheated on the staging host."
    assert ov("session", "add", "s1", "--role", "assistant", "--text", long, "--id", "m0").exit_code == 0
    [hit] = found(ov, "flux capacitor overheated", "--type", "session")["sessions"]
    assert hit["snippet"].startswith("…") and hit["snippet"].endswith("the flux capacitor overheated on the staging host.")
    searched = ov("search", "flux capacitor overheated", "--type", "session", "--json").json["result"]["sessions"]
    assert searched[0]["snippet"] == hit["snippet"]  # search fills snippets in afterwards: the same ones


def test_a_snippet_of_a_line_without_spaces_is_cut_between_items_not_inside_one(ov):
    # Minified JSON: cut mid-token, `"name":"item3` reads as a value of its own.
    items = [{"id": i, "name": f"item{i}", "tags": ["alpha", "beta"]} for i in range(60)]
    items[30]["note"] = "flux-capacitor-overheated"
    line = json.dumps(items, separators=(",", ":"))
    assert " " not in line
    write(ov, "viking://resources/dump.json", line + "\n")
    [hit] = found(ov, "flux capacitor")["resources"]
    shown = hit["snippet"].split(": ", 1)[1]
    assert shown.startswith("…") and shown.endswith("…") and '"note":"flux-capacitor-overheated"' in shown
    inner = shown.strip("…")
    at = line.index(inner)
    assert line[at - 1] == "," and inner.endswith(",")  # whole items, between their separators
    from ov.index.lexical import analyzer
    from ov.retrieval.snippets import focus

    analyze = analyzer("english").analyze
    start = focus(line, set(), analyze, 120)  # no query word in it: its beginning, cut after an item
    assert line.startswith(start[:-1]) and start.endswith(",…") and len(start) <= 120
    script = "function(a){return a.map(function(b){return b*2})};" * 30 + "var fluxCapacitor=1;" + "x=[1,2,3];" * 30
    assert focus(script, {"fluxcapacitor"}, analyze, 80).endswith(";…")


def test_a_snippet_of_a_long_line_without_spaces_keeps_most_of_its_room():
    # (found by a review: a cut moved to the nearest mark however far it was, so a URL's query between
    # two long runs of letters was shown as "…q=needle&x=…", 13 of 100 characters)
    from ov.index.lexical import analyzer
    from ov.retrieval.snippets import focus

    analyze = analyzer("english").analyze
    url = "https://example.com/" + "a" * 500 + "?q=needle&x=" + "b" * 400
    shown = focus(url, set(analyze("needle")), analyze, 100)
    assert "?q=needle&x=" in shown and shown.startswith("…a") and shown.endswith("b…")
    assert 2 * 100 // 3 <= len(shown) <= 100
    # Without a query word in it, its beginning: as long, not cut back to a mark far from the end.
    blob = "a" * 70 + "," + "b" * 500
    assert focus(blob, set(), analyze, 120) == blob[:119] + "…"
    # A space or a mark within reach is still where the cut falls.
    prose = "word " * 100 + "the needle is here " + "word " * 100
    assert focus(prose, set(analyze("needle")), analyze, 100).startswith("…word ")


def test_the_query_words_of_a_long_ascii_message_are_found_as_a_word_by_word_analysis_finds_them():
    # An audit (scale, finding 1): a 100-170 KB message was analyzed and paired word by word for its
    # snippet, 130-200 ms a result of a prompt hook. Each distinct word is analyzed once now; the
    # places found are the same, stems ("consumers", "Consumer"), digits and over-long runs included.
    import random

    from ov.index.lexical import analyzer
    from ov.retrieval.snippets import _spots

    analyze = analyzer("english").analyze
    rng = random.Random(7)
    vocab = ["".join(rng.choice("abcdefghij") for _ in range(rng.randint(1, 8))) for _ in range(500)]
    vocab += ["Kafka", "consumers", "Consumer", "lag", "lagging", "x41", "41", "kafkaesque", "K" + "a" * 70, "kafka" * 13]
    text = "; ".join(" ".join(rng.choice(vocab) for _ in range(12)) for _ in range(800))
    words = set(analyze("kafka consumer lag 41")) | {vocab[3]}
    assert text.isascii() and len(text) > 50_000
    found = _spots(text, words, analyze, None, 150)
    assert found == _spots(text, words, analyze, analyze(text), 150) and len(found) > 100
    assert _spots(text, {"absent"}, analyze, None, 150) == []


def test_a_snippet_of_cjk_text_is_near_its_match():
    from ov.index.lexical import analyzer
    from ov.retrieval.snippets import focus

    analyze = analyzer("english").analyze
    text = "东京塔很高。" * 60 + "大阪城很美。" + "东京塔很高。" * 60
    shown = focus(text, {"城"}, analyze, 60)
    assert "大阪城" in shown and shown.startswith("…") and shown.endswith("…") and len(shown) <= 60
    assert focus("short text", {"城"}, analyze, 60) == "short text"


# --- snapshots ---------------------------------------------------------------------


def test_find_json_shape(docs, snapshot):
    result = found(docs, "deploy keys")
    for bucket in ("memories", "resources", "skills", "sessions"):
        for hit in result[bucket]:
            hit.pop("time", None)
    result["index"] = {k: v for k, v in result["index"].items() if k not in ("commit",)}
    result["retrieval"]["embedding"]["reason"] = "<reason>"
    assert result == snapshot


def test_find_plain_output(docs, snapshot):
    result = docs("find", "rotate keys")
    assert result.exit_code == 0
    assert result.stdout == snapshot


def add_chat(ov, messages: list[dict]) -> None:
    """One session, ``chat``, holding ``messages``."""
    assert ov("session", "new", "--id", "chat").exit_code == 0
    assert ov("session", "add-messages", "chat", stdin=json.dumps(messages)).exit_code == 0


def test_a_question_naming_a_peer_prefers_what_that_peer_said(ov):
    add_chat(ov, [
        {"role": "user", "peer": "alice", "text": "I have been painting landscapes every weekend."},
        {"role": "user", "peer": "bob", "text": "Alice told me painting is her thing; I like cycling and painting fences."},
        {"role": "user", "peer": "bob", "text": "Painting the fence took all Saturday."},
    ])
    top = found(ov, "What does Alice paint?", "--type", "session")["sessions"][0]
    assert top["speaker"] == "alice" and top["snippet"].startswith("I have been painting")


def test_a_session_log_takes_no_place_among_the_nearest_vectors(ov, ov_home):
    """A log is never a result, so its vector is the zero one: a query that repeats the whole
    conversation still finds the messages nearest, not the log (which once took their places)."""
    messages = [{"role": "user", "text": text} for text in ("The boiler was serviced in March.", "A new radiator went into the hall.", "The plumber charged 140 euros.")]
    add_chat(ov, messages)
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("reindex").exit_code == 0
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.lexical import Filters
    from ov.index.sync import Indices
    from ov.index.vectors import nearest_records
    from ov.store.store import Store

    opened = Indices(Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)).open()
    kinds = {h.label: h.record.kind for h in opened.lexical.fetch(Filters(), 20)}
    assert sorted(kinds.values()).count("log") == 1 and opened.meta.vectors == len(kinds)  # one vector per record still
    query = opened.embedder.embed_query(" ".join(m["text"] for m in messages))
    nearest = nearest_records(opened.vectors, query, len(kinds))
    assert [kinds[label] for label, sim in nearest if sim > 0] == ["message"] * 3
    assert dict(nearest)[next(label for label, kind in kinds.items() if kind == "log")] == 0.0


def test_a_question_naming_a_date_prefers_what_was_said_around_it(ov):
    add_chat(ov, [
        {"role": "user", "text": "The launch review: the launch review slipped again.", "created_at": "2026-03-02T10:00:00Z"},
        {"role": "user", "text": "At the launch review we agreed to ship.", "created_at": "2026-06-03T10:00:00Z"},
        {"role": "user", "text": "Another launch review is booked for autumn.", "created_at": "2026-09-15T10:00:00Z"},
    ])

    def top(query: str) -> dict:
        return found(ov, query, "--type", "session")["sessions"][0]

    def most_relevant(query: str) -> float:
        return max(hit["relevance"] for hit in found(ov, query, "--type", "session")["sessions"])

    undated = top("What happened at the launch review?")
    assert undated["time"].startswith("2026-03-02")  # on its words alone
    on_the_day = top("What happened at the launch review on 3 June, 2026?")
    assert on_the_day["time"].startswith("2026-06-03")
    assert top("What happened at the launch review in September?")["time"].startswith("2026-09-15")
    # Only the order changes: a record's relevance is its own match, so a threshold or the prompt
    # hook's cut-off (the most relevant result) sees the same with or without the date.
    dated = most_relevant("What happened at the launch review on 3 June, 2026?")
    assert ov("config", "set", "retrieval.date_weight", "0").exit_code == 0
    undated_top = top("What happened at the launch review on 3 June, 2026?")
    assert undated_top["time"].startswith("2026-03-02")
    assert most_relevant("What happened at the launch review on 3 June, 2026?") == dated
    # ... and the date's words are not the question's: each holds all it asks but when.
    assert most_relevant("What happened at the launch review?") == dated == undated_top["relevance"] == on_the_day["relevance"]


def test_reciprocal_rank_fusion_is_a_choice(ov):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("config", "set", "retrieval.fusion", "rrf").exit_code == 0
    write(ov, "viking://resources/a.md", "Configuring the authentication middleware")
    write(ov, "viking://resources/b.md", "Gardening in spring")
    result = found(ov, "authentication middleware")
    assert result["retrieval"]["mode"] == "hybrid" and uris(result)[0] == "viking://resources/a.md"
    assert ov("config", "set", "retrieval.fusion", "borda").exit_code == 2


def _chat(ov) -> None:
    assert ov("session", "new", "--id", "s1").exit_code == 0
    for text in ("We should configure authentication before the launch", "The garden needs water", "Lunch at noon?"):
        assert ov("session", "add", "s1", "--text", text).exit_code == 0
    write(ov, "viking://resources/auth.md", "Configuring the authentication middleware")


def test_a_type_whose_vector_weight_is_0_ranks_exactly_as_without_vectors(ov):
    _chat(ov)
    lexical = found(ov, "authenticator configuration", "--type", "session")["sessions"]
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("config", "set", "retrieval.session_vector_weight", "0").exit_code == 0
    hybrid = found(ov, "authenticator configuration", "--type", "session")
    assert hybrid["retrieval"]["mode"] == "hybrid"
    assert [(h["message_id"], h["score"]) for h in hybrid["sessions"]] == [(h["message_id"], h["score"]) for h in lexical]
    # The resources' weight is their own: the near miss is still found by its vector.
    assert uris(found(ov, "authenticator configurations", "--type", "resource"))[0] == "viking://resources/auth.md"


def test_each_type_has_its_own_vector_weight(ov):
    _chat(ov)
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("config", "set", "retrieval.vector_weight", "0").exit_code == 0
    # A misspelt word matches nothing in the full-text index, only the hashing embedder's
    # trigrams: with the resources' weight at 0 the resource is found by nothing, while
    # messages still use their vectors.
    assert found(ov, "authentcation", "--type", "resource")["total"] == 0
    assert found(ov, "authentcation", "--type", "session")["total"] >= 1
    assert ov("config", "set", "retrieval.vector_weight", "0.5").exit_code == 0
    assert uris(found(ov, "authentcation", "--type", "resource")) == ["viking://resources/auth.md"]


def test_every_candidate_takes_its_similarity_however_few_nearest_records_are_asked(ov):
    """A full-text match outside the nearest records is ranked by how near it really is when
    `retrieval.every_candidate` is on, so its score no longer depends on how many nearest records
    were asked for; off, it takes no similarity at all."""
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    for i in range(6):  # near the query by their letters (the hashing embedder's trigrams), not its words
        write(ov, f"viking://resources/near/n{i}.md", f"deplo checkl stagin deplo checkl stagin {i}")
    write(ov, "viking://resources/far/target.md", "We deploy on Tuesdays; the release notes go out the day before")

    def relevance(candidates: int, every: bool) -> float:
        assert ov("config", "set", "retrieval.candidates", str(candidates)).exit_code == 0
        assert ov("config", "set", "retrieval.every_candidate", str(every).lower()).exit_code == 0
        [hit] = found(ov, "deploy checklist staging", "--limit", "1")["resources"]
        assert hit["uri"].endswith("far/target.md")  # the only record with one of the query's words
        return hit["relevance"]

    among_nearest = relevance(200, False)  # 7 records: the target is among the nearest 200
    assert relevance(1, True) == pytest.approx(among_nearest, abs=1e-4)
    assert relevance(1, False) != pytest.approx(among_nearest, abs=1e-4)  # outside the nearest 3


def test_a_scoped_find_takes_the_nearest_records_of_its_scope(ov):
    """With a model whose every candidate takes its similarity, the vectors obey the same filters
    as the words: a scoped find looks for what its words missed among the nearest records of its
    scope, however many records outside it are nearer the query. A static model keeps the store's
    nearest, which are its evidence."""
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    for i in range(8):  # outside the scope, and nearer the query (the hashing embedder's trigrams)
        write(ov, f"viking://resources/near/n{i}.md", f"deplo checkl stagin deplo checkl stagin {i}")
    write(ov, "viking://resources/far/target.md", "We deploy on Tuesdays; the release notes go out the day before")
    write(ov, "viking://resources/far/rollout.md", "checkl stagin for the rollout")  # none of the query's words

    def scoped(candidates: int, every: bool) -> dict[str, float]:
        assert ov("config", "set", "retrieval.candidates", str(candidates)).exit_code == 0
        assert ov("config", "set", "retrieval.every_candidate", str(every).lower()).exit_code == 0
        hits = found(ov, "deploy checklist staging", "--uri", "viking://resources/far", "--limit", "2")["resources"]
        return {h["uri"].rsplit("/", 1)[1]: h["relevance"] for h in hits}

    # A pool of 6 (the least a limit of 2 asks for) is filled by the scope's two records, not by
    # the nearer eight outside it: the one without the query's words is found by its vector.
    assert set(scoped(1, True)) == {"target.md", "rollout.md"} and scoped(1, True) == scoped(200, True)
    # Static by default: the scope's records are not among the store's nearest 6, and only the
    # target, by its words, is found.
    assert set(scoped(1, False)) == {"target.md"}


class _Nearest:
    """Vectors whose record ``i`` is the ``i``-th nearest to any query (one passage each)."""

    def __init__(self, live: int) -> None:
        self.live = live
        self.asked: list[tuple[int, bool]] = []

    def search(self, vector, limit: int, allowed=None) -> list[tuple[int, float]]:
        self.asked.append((limit, allowed is not None))
        labels = range(self.live) if allowed is None else sorted(allowed)
        return [(i, 1.0 - i / self.live) for i in labels][:limit]


class _Passing:
    """A full-text index of ``records`` records whose filters let through the labels ``accept`` accepts."""

    def __init__(self, records: int, accept) -> None:
        self.records, self.accept = records, accept
        self.looked: list[int] = []

    def count(self) -> int:
        return self.records

    def matching(self, filters) -> int:
        return sum(1 for label in range(self.records) if self.accept(label))

    def passing(self, filters, limit=None) -> set[int]:
        labels = filters.labels if filters.labels is not None else range(self.records)
        self.looked.append(len(labels) if filters.labels is not None else -1)
        return {label for label in labels if self.accept(label)}


def test_the_nearest_records_obey_the_filters_and_the_search_for_them_is_bounded(monkeypatch):
    from ov.index.lexical import Filters
    from ov.retrieval import fusion
    from ov.retrieval.fusion import NEAREST_SCAN, nearest_allowed

    # Every nearest record passes (an unscoped find in a one-user account): one look, at the
    # records the full text did not find (its hits passed the same filters).
    vectors, lexical = _Nearest(1000), _Passing(1000, lambda label: True)
    assert list(nearest_allowed(vectors, lexical, [1.0], 5, Filters(), known={2})) == [0, 1, 2, 3, 4]
    assert vectors.asked == [(5, False)] and lexical.looked == [4]

    # A small part passes (a scope of a few records, under a sixteenth of the store): they are
    # listed and searched alone, however far from the query they lie in the whole store.
    vectors, lexical = _Nearest(1000), _Passing(1000, lambda label: label >= 990)
    assert list(nearest_allowed(vectors, lexical, [1.0], 5, Filters(), known=set())) == [990, 991, 992, 993, 994]
    assert vectors.asked == [(5, False), (5, True)] and lexical.looked == [5, -1]

    # A larger part (a tenth): more neighbours are asked for, as many as the share that passed says
    # will fill the pool (a fifth of the first five: 5 / 0.2 and a quarter more), none looked at
    # twice. So is a small part of a store too large to list its records.
    vectors, lexical = _Nearest(1000), _Passing(1000, lambda label: label % 10 == 0)
    assert list(nearest_allowed(vectors, lexical, [1.0], 5, Filters(), known={7})) == [0, 7, 10, 20, 30]
    assert vectors.asked == [(5, False), (32, False)] and lexical.looked == [5, 32 - 5 - 1]

    monkeypatch.setattr(fusion, "FILTERED_SEARCH", 3)
    vectors, lexical = _Nearest(1000), _Passing(1000, lambda label: label in (2, 500, 501, 502))
    assert list(nearest_allowed(vectors, lexical, [1.0], 5, Filters(), known=set())) == [2]
    # ... where the search stops after NEAREST_SCAN pools with what it found.
    assert vectors.asked[-1] == (5 * NEAREST_SCAN, False) and all(not listed for _, listed in vectors.asked)


def test_the_full_text_index_tells_which_labels_pass_without_loading_a_record(tmp_path):
    from ov.index.lexical import Filters, LexicalIndex
    from ov.index.records import Record

    index = LexicalIndex.open(tmp_path / "text", "english", create=True)
    for i in range(6):
        path = f"resources/{'a' if i % 2 else 'b'}/f{i}.md"
        record = Record(id=f"{path}#0", path=path, uri=f"viking://{path}", level=2, kind="chunk", context_type="resource", owner="", parent="", text=f"text {i}")
        index.add(record, 10 + i)
    index.commit()
    assert index.passing(Filters(labels=(10, 11, 12, 99))) == {10, 11, 12}
    assert index.passing(Filters(scope="resources/a", labels=(10, 11, 12, 13))) == {11, 13}
    assert index.passing(Filters(types=("memory",), labels=(10, 11))) == set()
    # Without labels: every record the filters let through, as many as they count.
    scope = Filters(scope="resources/a")
    assert index.matching(scope) == 3 and index.passing(scope, index.matching(scope)) == {11, 13, 15}


class _NoLoading:
    """A tantivy index whose searchers refuse to load a stored record."""

    def __init__(self, index) -> None:
        self._index = index

    def searcher(self):
        return _Unloading(self._index.searcher())

    def __getattr__(self, name):
        return getattr(self._index, name)


class _Unloading:
    def __init__(self, searcher) -> None:
        self._searcher = searcher

    def doc(self, address):
        raise AssertionError("a stored record was loaded")

    def __getattr__(self, name):
        return getattr(self._searcher, name)


def test_the_labels_of_paths_and_ids_are_read_without_loading_a_record(tmp_path):
    """What an update replaces is told by its labels, read from their fast field: loading each
    record read a conversation's log whole (every message of it) on every turn's catch-up."""
    from ov.index.lexical import LexicalIndex
    from ov.index.records import Record

    index = LexicalIndex.open(tmp_path / "text", "english", create=True)
    for i in range(6):
        if i == 3:
            index.commit()  # two segments: a label is read from the segment that holds it
        path = f"resources/{'a' if i % 2 else 'b'}.md"
        record = Record(id=f"{path}#{i}", path=path, uri=f"viking://{path}", level=2, kind="chunk", context_type="resource", owner="", parent="", text="log line " * 5000)
        index.add(record, 40 + i)
    index.commit()
    index._index = _NoLoading(index._index)
    assert sorted(index.labels_of_paths(["resources/a.md"])) == [41, 43, 45]
    assert sorted(index.labels_of_paths(["resources/a.md", "resources/b.md", "resources/c.md"])) == [40, 41, 42, 43, 44, 45]
    assert sorted(index.labels_of_ids(["resources/b.md#4", "resources/a.md#1", "resources/a.md#9"])) == [41, 44]
    assert index.labels_of_paths(["resources/c.md"]) == [] and index.labels_of_ids([]) == []


def _small_index(path, count: int = 6):
    from ov.index.lexical import LexicalIndex
    from ov.index.records import Record

    index = LexicalIndex.open(path, "english", create=True)
    for i in range(count):
        folder = "a" if i % 2 else "b"
        file = f"resources/{folder}/f{i}.md"
        words = "cache warms nightly" if i % 3 == 0 else "deploy from main"
        record = Record(id=f"{file}#0", path=file, uri=f"viking://{file}", level=2, kind="chunk", context_type="resource",
                        owner="", parent=f"viking://resources/{folder}", text=f"{words} {i}")
        index.add(record, 10 + i)
    for folder, text in (("a", "everything about the cache"), ("b", "deploy notes")):
        record = Record(id=f"resources/{folder}/.abstract.md#0", path=f"resources/{folder}/.abstract.md", uri=f"viking://resources/{folder}",
                        level=0, kind="abstract", context_type="resource", owner="", parent="viking://resources", text=text)
        index.add(record, 100 + ord(folder))
    index.commit()
    return index


def test_a_filter_of_a_few_values_scores_as_the_term_set_it_stands_for(tmp_path, monkeypatch):
    """Filters of a few values are a disjunction of terms (tantivy's term set query costs ~0.3 ms a
    search); every score must stay what the term set gave, or the relevance scale would move."""
    from ov.index import lexical as lexical_module
    from ov.index.lexical import Filters

    index = _small_index(tmp_path / "text")
    terms = index.query_terms("when does the cache warm?")
    filters = Filters(types=("memory", "resource"), owners=("default", ""), levels=(2,), exclude_paths=("resources/a/f3.md",))

    def ranked():
        return [(h.record.id, h.score) for h in index.search(terms, {"text": 1.0, "title": 2.0}, filters, 10)]

    fast = ranked()
    monkeypatch.setattr(lexical_module, "_TERMS_AS_DISJUNCTION", 0)  # every filter a term set, as before
    assert ranked() == fast and [rid for rid, _ in fast] == ["resources/b/f0.md#0"]


def test_reads_within_one_reading_share_a_searcher_and_load_each_record_once(tmp_path):
    from ov.index.lexical import Filters, LexicalIndex
    from ov.index.records import Record

    index = _small_index(tmp_path / "text")
    every = Filters(types=("resource",))
    outside = [h.record for h in index.fetch(every, 20)], [h.record for h in index.fetch(every, 20)]
    assert outside[0] == outside[1] and all(a is not b for a, b in zip(*outside))
    other = LexicalIndex.open(tmp_path / "text", "english")
    with index.reading():
        first = [h.record for h in index.fetch(every, 20)]
        other.add(Record(id="resources/c.md#0", path="resources/c.md", uri="viking://resources/c.md", level=2, kind="chunk",
                         context_type="resource", owner="", parent="", text="late"), 99)
        other.commit()
        index._index.reload()  # what the reader's own reload policy does after a commit
        again = [h.record for h in index.fetch(every, 20)]
        assert all(a is b for a, b in zip(first, again)) and len(again) == len(first) == 8
        assert index.count() == 8  # the commit is not seen halfway through
    assert index.count() == 9 and len(index.fetch(every, 20)) == 9
    with index.reading():  # its own commit is seen at once
        assert index.count() == 9
        index.delete_path("resources/c.md")
        index.commit()
        assert index.count() == 8 and len(index.fetch(every, 20)) == 8


def test_parent_scores_asked_in_parts_match_one_lookup(tmp_path):
    """best_scores remembers each parent within a reading; asked in any order or split, the scores
    are the ones a single lookup gives; a parent without a record is left out, one without a
    match scores 0."""
    index = _small_index(tmp_path / "text")
    terms = index.query_terms("cache")
    kinds = ("abstract", "overview", "log")
    parents = ["viking://resources/a", "viking://resources/b", "viking://resources/none"]
    whole = index.best_scores(terms, "text", kinds, parents)
    assert set(whole) == {"viking://resources/a", "viking://resources/b"} and whole["viking://resources/b"] == 0.0 < whole["viking://resources/a"]
    with index.reading():
        parts = index.best_scores(terms, "text", kinds, parents[1:]) | index.best_scores(terms, "text", kinds, parents[:2])
        assert parts == whole and index.best_scores(terms, "text", kinds, parents) == whole


def test_parent_scores_load_no_record_and_are_what_a_search_of_the_parents_scores(tmp_path, monkeypatch):
    """(a year's account: a prompt's parents are conversations' logs, each holding every message
    whole, and loading them was nine tenths of what a prompt hook read) best_scores tells each
    parent from the search itself, never from its stored record; past the 64 values a filter
    spells out term by term, each parent still gets its own best score, 0 when none of its
    records matches, and one without a record of the kinds is left out."""
    from ov.index import lexical as lexical_module
    from ov.index.lexical import Filters, LexicalIndex
    from ov.index.records import Record

    index = LexicalIndex.open(tmp_path / "text", "english", create=True)
    label = 0
    for i in range(80):
        uri = f"viking://session/default/s{i}"
        for kind, level, text in (("abstract", 0, f"talk {i}"), ("log", 1, "cache " * (i % 4) + "deploy " * (i % 3) + "x" * 5000)):
            label += 1
            index.add(Record(id=f"session/s{i}/{kind}#0", path=f"session/s{i}/{kind}.md", uri=uri, level=level, kind=kind,
                             context_type="session", owner="", parent="viking://session/default", text=text), label)
    index.commit()
    terms = index.query_terms("cache deploy")
    kinds = ("abstract", "overview", "log")
    parents = [f"viking://session/default/s{i}" for i in range(0, 80, 1)] + ["viking://session/default/none"]
    expected = {hit.record.uri: 0.0 for hit in index.fetch(Filters(kinds=kinds, uris=tuple(parents)), 500)}
    for hit in index.search(terms, {"text": 1.0}, Filters(kinds=kinds, uris=tuple(parents)), 500):
        expected[hit.record.uri] = max(expected[hit.record.uri], hit.score)

    def no_record(doc):
        raise AssertionError("a parent's record was loaded")

    monkeypatch.setattr(lexical_module, "_record", no_record)
    got = index.best_scores(terms, "text", kinds, parents)
    assert got == expected and len(got) == 80 and got["viking://session/default/s0"] == 0.0 < got["viking://session/default/s5"]
    assert index.best_scores(index.query_terms("nowhere"), "text", kinds, parents[:3]) == dict.fromkeys(parents[:3], 0.0)


def test_what_a_record_of_several_passages_is_worth_is_read_from_every_index_kind(tmp_path, monkeypatch):
    """record_similarities gives a record its nearest and first passage's cosines and its number of
    passages, from hnswlib and from the flat copy alike; of a record among the nearest (its nearest
    passage's cosine known) only the first passage is read; a removed or unknown record gets nothing."""
    import numpy as np

    from ov.index import vectors as vectors_module
    from ov.index.vectors import ExactVectors, RecordSimilarity, VectorIndex, load_for_search, part_labels, record_similarities

    matrix = _unit_rows(12, 16, 8)
    labels = part_labels(3, 4) + part_labels(5, 1) + part_labels(9, 2) + list(range(20, 25))
    query = matrix[2] + 0.3 * matrix[7]
    sims = (matrix @ query).tolist()
    expected = {3: RecordSimilarity(max(sims[0:4]), sims[0], 4), 5: RecordSimilarity(sims[4], sims[4], 1), 20: RecordSimilarity(sims[7], sims[7], 1)}
    for exact in (True, False):
        monkeypatch.setattr(vectors_module, "EXACT_COMPONENTS", 2048 * 16 if exact else 4 * 16)
        index = VectorIndex.create(16, 16)
        index.add(matrix, labels)
        index.remove([9])
        path = tmp_path / f"vectors-{exact}.hnsw"
        index.save(path)
        searched = load_for_search(path, 16, index.live)
        assert isinstance(searched, ExactVectors) is exact
        for asked in ([3, 5, 20, 77], [3, 5, 9, 20, 77]):  # 9 was removed: nothing, as for 77
            got = record_similarities(searched, query.tolist(), asked, {})
            assert got.keys() == expected.keys()
            for label, want in expected.items():
                assert np.allclose(got[label], want, atol=1e-4), (exact, asked, label)  # the flat copy's rows are 16-bit
        known = record_similarities(searched, query.tolist(), [3, 5], {3: 0.99, 5: 0.5})
        assert known[3].nearest == 0.99 and known[3].first == pytest.approx(sims[0], abs=1e-4) and known[5] == (0.5, 0.5, 1)
    # hnswlib asked for a passage it holds marked deleted answers with NaN for it, the others' rows unchanged.
    rows = searched.rows_of([3, 9, 5])
    assert np.isnan(rows[1]).all() and np.allclose(rows[[0, 2]], matrix[[0, 4]], atol=1e-6)


def test_every_index_kind_searches_the_passages_of_the_allowed_records_only(tmp_path, monkeypatch):
    """nearest_records among allowed records: hnswlib's filtered search, the flat copy with numpy
    and in plain Python give the same records, nearest first, however near the others lie."""
    import sys

    import numpy as np

    from ov.index import vectors as vectors_module
    from ov.index.vectors import ExactVectors, VectorIndex, load_for_search, nearest_records, part_labels

    matrix = _unit_rows(40, 16, 11)
    labels = part_labels(3, 4) + part_labels(5, 1) + part_labels(9, 2) + list(range(20, 53))
    query = matrix[30] + 0.2 * matrix[1]
    allowed = {3, 9, 25, 99}  # 99 has no vector
    record_sims = {}
    for row, label in enumerate(labels):
        record = label % vectors_module.PART_STRIDE
        if record in allowed:
            record_sims[record] = max(record_sims.get(record, -2.0), float(matrix[row] @ query))
    want = sorted(record_sims, key=lambda r: -record_sims[r])
    for exact, read in ((True, 1000), (False, 1000), (False, 0)):  # hnswlib: its vectors read, then searched for
        monkeypatch.setattr(vectors_module, "EXACT_COMPONENTS", 2048 * 16 if exact else 4 * 16)
        monkeypatch.setattr(vectors_module, "READ_ALLOWED", read)
        index = VectorIndex.create(16, 64)
        index.add(matrix, labels)
        path = tmp_path / f"vectors-{exact}-{read}.hnsw"
        index.save(path)
        searched = load_for_search(path, 16, index.live)
        assert isinstance(searched, ExactVectors) is exact
        got = nearest_records(searched, query.tolist(), 10, allowed)
        assert [label for label, _ in got] == want and np.allclose([s for _, s in got], [record_sims[r] for r in want], atol=1e-3)
        assert [label for label, _ in nearest_records(searched, query.tolist(), 2, allowed)] == want[:2]
        if exact:  # the same without numpy in the process: the plain-Python scan
            fresh = ExactVectors.load(vectors_module.exact_path(path), 16, index.live)
            numpy = sys.modules.pop("numpy")
            try:
                plain = nearest_records(fresh, query.tolist(), 10, allowed)
            finally:
                sys.modules["numpy"] = numpy
            assert [label for label, _ in plain] == want


def test_threshold_compares_relevance_on_one_scale_for_every_type(ov):
    # Messages are scaled down (retrieval.session_weight) to rank below what was distilled from
    # them, but how relevant a message is does not depend on what it is ranked beside.
    _chat(ov)
    mixed = found(ov, "configure authentication launch")
    alone = found(ov, "configure authentication launch", "--type", "session")
    message = next(h for h in mixed["sessions"] if h["snippet"].startswith("We should configure"))
    same = next(h for h in alone["sessions"] if h["message_id"] == message["message_id"])
    assert message["score"] == pytest.approx(same["score"] * 0.8, abs=1e-3)
    between = (message["score"] + same["score"]) / 2
    kept = found(ov, "configure authentication launch", "--threshold", f"{between:.4f}")
    assert message["message_id"] in [h["message_id"] for h in kept["sessions"]]


def test_equal_chunks_of_one_file_resolve_to_the_first(ov):
    section = "## Same\n\n" + "The rollback plan is written before every release. " * 60 + "\n\n"
    write(ov, "viking://resources/twice.md", section + section)  # two byte-identical chunks: lines 1-3 and 5-7
    [hit] = found(ov, "rollback plan")["resources"]
    assert hit["lines"][1] <= 3  # a tie goes to the lower record id, the first chunk


def test_a_failed_rebuild_leaves_no_half_built_index_and_a_killed_ones_is_swept(docs, ov_home, monkeypatch):
    from ov.index import sync

    found(docs, "risotto")
    killed = index_dir(ov_home).with_name(index_dir(ov_home).name + ".new-999999")
    (killed / "text").mkdir(parents=True)  # what a rebuild killed mid-way leaves
    real = sync.LexicalIndex.commit

    def disk_full_at_commit(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sync.LexicalIndex, "commit", disk_full_at_commit)
    failed = docs("reindex", "--json")
    assert failed.exit_code == 1 and failed.error["code"] == "disk_full"
    assert not list(index_dir(ov_home).parent.glob(index_dir(ov_home).name + ".new-*"))
    monkeypatch.setattr(sync.LexicalIndex, "commit", real)
    assert docs("reindex").exit_code == 0 and found(docs, "risotto")["resources"]


def test_no_room_for_a_rebuild_names_the_index_folder_not_the_one_it_was_built_in(docs, ov_home, tmp_path, monkeypatch):
    """The error and add-resource's warning named the folder the rebuild wrote into
    (`index.new-1234`), removed by the time anyone read them."""
    from ov.index import lexical

    def disk_full_at_commit(self):
        with lexical._writing(self._path):  # as tantivy says it, translated where ov says it
            raise ValueError("An IO error occurred: 'No space left on device (os error 28)'")

    monkeypatch.setattr(lexical.LexicalIndex, "commit", disk_full_at_commit)
    failed = docs("reindex", "--json")
    assert failed.exit_code == 1 and failed.error["code"] == "disk_full"
    assert failed.error["message"] == f"no space left on device under {index_dir(ov_home)}"
    source = tmp_path / "notes"
    source.mkdir()
    (source / "heron.md").write_text("# Heron\n\nThe heron migrates in spring.\n")
    added = docs("add-resource", str(source), "--to", "viking://resources/birds")
    assert added.exit_code == 0
    assert f"the search index was not built (no space left on device under {index_dir(ov_home)})" in added.stderr
    assert ".new-" not in failed.stderr + added.stderr


def test_a_vector_file_written_short_is_never_swapped_in(tmp_path, monkeypatch):
    """hnswlib does not check its writes: on a full disk it leaves a short file silently. The
    file is loaded back when the disk is (nearly) full after the write."""
    import types

    import numpy as np

    from ov.errors import IndexUnavailable
    from ov.index.vectors import VectorIndex

    vectors = VectorIndex.create(16, 64)
    matrix = np.random.default_rng(1).random((64, 16), dtype=np.float32)
    vectors.add(matrix / np.linalg.norm(matrix, axis=1, keepdims=True), list(range(64)))
    (tmp_path / "v").mkdir()
    target = tmp_path / "v" / "vectors.bin"
    vectors.save(target)
    good = target.read_bytes()
    class ShortWrites:  # hnswlib's index, but its file comes out short
        def __init__(self, real) -> None:
            self.real = real

        def __getattr__(self, name):
            return getattr(self.real, name)

        def save_index(self, path: str) -> None:
            self.real.save_index(path)
            with open(path, "r+b") as handle:
                handle.truncate(len(good) // 2)

    # An index read from a file: a write shorter than that file is checked, whatever the free space
    # (a quota or an IO error cuts a write short on a disk with room).
    loaded = VectorIndex.load(target, 16, 64, for_update=True)
    loaded._index = ShortWrites(loaded._index)
    with pytest.raises((OSError, IndexUnavailable)):
        loaded.save(target)
    assert target.read_bytes() == good
    vectors._index = ShortWrites(vectors._index)
    monkeypatch.setattr("ov.index.vectors.os.statvfs", lambda path: types.SimpleNamespace(f_bavail=0, f_frsize=4096))
    with pytest.raises((OSError, IndexUnavailable)):
        vectors.save(target)
    assert target.read_bytes() == good and sorted(p.name for p in target.parent.iterdir()) == ["vectors.bin", "vectors.exact"]


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_vector_file_cut_at_the_file_size_limit_is_no_room_not_damage(tmp_path):
    """hnswlib's write cut short at `ulimit -f` read as a damaged index ("run `ov reindex`"), which
    the same limit stops again: it is EFBIG, no room, as a full disk's is."""
    script = f"""
import errno, resource
import numpy as np
from ov.index.vectors import VectorIndex
vectors = VectorIndex.create(64, 2000)
vectors.add(np.random.default_rng(1).random((2000, 64), dtype=np.float32), list(range(2000)))
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
try:
    vectors.save(__import__("pathlib").Path({str(tmp_path / "vectors.bin")!r}))
except OSError as exc:
    print(errno.errorcode[exc.errno])
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert proc.stdout.strip() == "EFBIG", proc.stderr
    assert not (tmp_path / "vectors.bin").exists()


def _unit_rows(count: int, dimension: int, seed: int):
    import numpy as np

    matrix = np.random.default_rng(seed).standard_normal((count, dimension)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_hnswlib_files_are_checked_by_their_header_and_size(tmp_path):
    """What doctor reads of hnswlib's file beside a copy: every file hnswlib writes passes (empty,
    grown past its first capacity, with vectors marked deleted); one cut short, grown, overwritten
    or for another dimension is named with what is wrong, and hnswlib refuses to load each."""
    import hnswlib

    from ov.index.vectors import VectorIndex, hnsw_problem

    matrix = _unit_rows(300, 16, 5)
    whole = VectorIndex.create(16, 16)
    whole.add(matrix, list(range(300)))  # resized past 16 on the way
    whole.remove([3, 4])
    whole.save(tmp_path / "whole.hnsw")
    VectorIndex.create(16).save(tmp_path / "empty.hnsw")
    assert hnsw_problem(tmp_path / "whole.hnsw", 16, 298) is None and hnsw_problem(tmp_path / "empty.hnsw", 16, 0) is None
    data = (tmp_path / "whole.hnsw").read_bytes()
    damaged = {
        "short.hnsw": (data[:50], "short.hnsw has 50 bytes, fewer than hnswlib's header"),
        "cut.hnsw": (data[:-3], f"cut.hnsw has {len(data) - 3} bytes, not what its header promises (cut short or damaged)"),
        "grown.hnsw": (data + b"\0\0", f"grown.hnsw has {len(data) + 2} bytes, not what its header promises (cut short or damaged)"),
        "zeroed.hnsw": (b"\0" * 96 + data[96:], "zeroed.hnsw does not hold hnswlib's header for vectors of 16 dimensions"),
    }
    for name, (content, says) in damaged.items():
        (tmp_path / name).write_bytes(content)
        assert hnsw_problem(tmp_path / name, 16, 298) == says
        with pytest.raises(RuntimeError):
            hnswlib.Index(space="ip", dim=16).load_index(str(tmp_path / name))
    assert hnsw_problem(tmp_path / "whole.hnsw", 32, 298) == "whole.hnsw does not hold hnswlib's header for vectors of 32 dimensions"
    assert hnsw_problem(tmp_path / "whole.hnsw", 16, 301) == "whole.hnsw holds 300 vectors, fewer than the index's 301"
    assert hnsw_problem(tmp_path / "gone.hnsw", 16, 1) == "gone.hnsw cannot be read: No such file or directory"


def test_a_small_index_is_searched_exhaustively_from_its_flat_copy(tmp_path, monkeypatch):
    import numpy as np

    from ov.index import vectors as vectors_module
    from ov.index.vectors import ExactVectors, VectorIndex, exact_path, load_for_search

    matrix = _unit_rows(300, 32, 3)
    index = VectorIndex.create(32, 300)
    index.add(matrix, list(range(1000, 1300)))
    index.remove([1000, 1007])
    index.save(tmp_path / "vectors-000001.hnsw")
    flat = load_for_search(tmp_path / "vectors-000001.hnsw", 32, index.live)
    assert isinstance(flat, ExactVectors) and flat.labels() == set(range(1000, 1300)) - {1000, 1007}
    query = matrix[5] + 0.5 * matrix[9]
    sims = matrix @ query
    expected = [(1000 + int(i), float(sims[i])) for i in np.argsort(-sims) if 1000 + int(i) not in (1000, 1007)][:20]
    with_numpy = flat.search(query.tolist(), 20)
    monkeypatch.delitem(__import__("sys").modules, "numpy")  # the plain-Python branch of a cold process
    without = flat.search(query.tolist(), 20)
    monkeypatch.undo()
    for got in (with_numpy, without):
        assert [label for label, _ in got] == [label for label, _ in expected]
        # The copy holds 16-bit rows, a cold search integer query weights: within 1e-4 of float32.
        assert np.allclose([s for _, s in got], [s for _, s in expected], atol=1e-4)
    # Past the limit there is no flat copy, and the search goes through hnswlib.
    monkeypatch.setattr(vectors_module, "EXACT_COMPONENTS", 100 * 32)
    index.save(tmp_path / "vectors-000002.hnsw")
    assert not exact_path(tmp_path / "vectors-000002.hnsw").exists()
    approximate = load_for_search(tmp_path / "vectors-000002.hnsw", 32, index.live)
    assert isinstance(approximate, VectorIndex)
    assert approximate.search(query.tolist(), 3)[0][0] == expected[0][0]  # a plain list, as embed_query gives


def test_the_plain_search_of_the_flat_copy_never_carries_between_rows(tmp_path, monkeypatch):
    """Every row's dot product is one 32-bit field of a sum of big integers: rows and queries at
    the extremes fill their fields to the top, and no field spills into its neighbour's."""
    import numpy as np

    from ov.index.vectors import ExactVectors

    dimension = 256
    ones = np.full(dimension, dimension**-0.5, dtype=np.float32)
    spike = np.zeros(dimension, dtype=np.float32)
    spike[3] = 1.0
    rows = {0: ones, 1: -ones, 2: spike, 3: np.zeros(dimension, dtype=np.float32), 4: -spike, 5: ones}
    path = tmp_path / "extremes.exact"
    ExactVectors.write(path, rows, dimension)
    row = np.full(3, 3**-0.5, dtype=np.float32)
    for count in (1, 2):
        ExactVectors.write(tmp_path / f"round-{count}.exact", dict.fromkeys(range(count), row), 3)
    monkeypatch.delitem(__import__("sys").modules, "numpy")
    flat = ExactVectors.load(path, dimension, len(rows))
    for query, expected in (
        (ones, {0: 1.0, 1: -1.0, 2: dimension**-0.5, 3: 0.0, 4: -(dimension**-0.5), 5: 1.0}),
        (-ones, {0: -1.0, 1: 1.0, 2: -(dimension**-0.5), 3: 0.0, 4: dimension**-0.5, 5: -1.0}),
        (spike, {0: dimension**-0.5, 1: -(dimension**-0.5), 2: 1.0, 3: 0.0, 4: -1.0, 5: dimension**-0.5}),
    ):
        got = dict(flat.search(query.tolist(), len(rows)))
        # Integer weights round each component by at most half a unit, here all the same way
        # (2e-3 at worst; 1e-4 for real vectors, as above): a carry would be off by whole units.
        assert got == pytest.approx(expected, abs=3e-3)
    assert flat.search([0.0] * dimension, 2) == [(0, 0.0), (1, 0.0)]  # a blank query: all alike, ties by label
    # Rounding the weights may push each one up by half a unit: a query whose weights all round up
    # (fractions .7, .7, .6 of the most the fields hold) must still fit, in an odd dimension and
    # with a single row as with two.
    weights = (21845.7, 21845.7, 21845.6)
    query = [w / sum(weights) for w in weights]
    for count in (1, 2):
        got = ExactVectors.load(tmp_path / f"round-{count}.exact", 3, count).search(query, count)
        assert [label for label, _ in got] == list(range(count))
        assert [sim for _, sim in got] == pytest.approx([sum(query) * 3**-0.5] * count, abs=1e-4)


def test_a_flat_copy_that_disagrees_with_the_index_is_not_used(tmp_path):
    from ov.index.vectors import ExactVectors, VectorIndex, exact_path, load_for_search

    index = VectorIndex.create(8, 16)
    index.add(_unit_rows(16, 8, 4), list(range(16)))
    path = tmp_path / "vectors-000000.hnsw"
    index.save(path)
    assert isinstance(load_for_search(path, 8, 16), ExactVectors)
    assert isinstance(load_for_search(path, 8, 15), VectorIndex)  # meta counts another number of vectors
    assert isinstance(load_for_search(path, 16, 16), VectorIndex)  # another dimension
    exact_path(path).write_bytes(b"ovexact1" + b"\x00" * 4)
    assert isinstance(load_for_search(path, 8, 16), VectorIndex)


def test_an_update_leaves_only_the_current_generation_and_its_flat_copy(docs, ov_home, monkeypatch):
    monkeypatch.setattr("ov.index.vector_delta.DELTA_LIMIT", 0)  # every update writes a new generation
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    write(docs, "viking://resources/notes/soup.md", "A tomato soup with basil")
    assert uris(found(docs, "tomato soup"))[0] == "viking://resources/notes/soup.md"
    meta = json.loads((index_dir(ov_home) / "meta.json").read_text())
    names = sorted(p.name for p in index_dir(ov_home).glob("vectors-*"))
    assert names == sorted([meta["vectors_file"], meta["vectors_file"].replace(".hnsw", ".exact")])


def test_an_updated_flat_copy_holds_what_hnswlib_holds(tmp_path):
    """The copy is written from the previous one and the diff; without a previous copy, from hnswlib."""
    import numpy as np

    from ov.index.vectors import ExactVectors, VectorIndex, exact_path

    matrix = _unit_rows(40, 8, 5)
    first = VectorIndex.create(8, 40)
    first.add(matrix[:30], list(range(30)))
    first.save(tmp_path / "vectors-000000.hnsw")
    for source, name in (("copy", "vectors-000001.hnsw"), ("hnswlib", "vectors-000002.hnsw")):
        if source == "hnswlib":
            exact_path(tmp_path / "vectors-000000.hnsw").unlink()
        index = VectorIndex.load(tmp_path / "vectors-000000.hnsw", 8, 30, for_update=True)
        index.remove([3, 4])
        index.add(matrix[30:], list(range(30, 40)))
        index.save(tmp_path / name)
        copy = ExactVectors.load(exact_path(tmp_path / name), 8, index.live)
        labels = sorted(index.labels())
        assert sorted(copy.labels()) == labels and 3 not in labels and 39 in labels, source
        rows = copy.rows()
        assert np.allclose(np.stack([rows[label] for label in labels]), index._index.get_items(labels), atol=1e-4), source  # 16-bit rows


def test_a_record_of_several_passages_is_found_by_its_nearest_one_and_removed_whole(tmp_path, monkeypatch):
    import numpy as np

    from ov.index import vectors as vectors_module
    from ov.index.vectors import PART_STRIDE, VectorIndex, load_for_search, nearest_records, part_labels, record_label

    assert part_labels(7, 3) == [7, 7 + PART_STRIDE, 7 + 2 * PART_STRIDE] and record_label(7 + 2 * PART_STRIDE) == 7
    matrix = _unit_rows(40, 16, 6)
    # Record 0 has 30 passages' worth of vectors near the query: they fill the first nearest
    # vectors, and the records behind them are still found.
    crowd = matrix[0] + 0.05 * _unit_rows(30, 16, 7)
    crowd /= np.linalg.norm(crowd, axis=1, keepdims=True)
    monkeypatch.setattr(vectors_module, "MAX_PARTS", 30)
    labels = part_labels(0, 30) + list(range(1, 40))
    for exact in (True, False):
        monkeypatch.setattr(vectors_module, "EXACT_COMPONENTS", 2048 * 16 if exact else 10 * 16)
        index = VectorIndex.create(16, 80)
        index.add(np.vstack([crowd, matrix[1:]]), labels)
        path = tmp_path / f"vectors-{exact}.hnsw"
        index.save(path)
        searched = load_for_search(path, 16, index.live)
        assert isinstance(searched, VectorIndex) is not exact
        nearest = nearest_records(searched, matrix[0].tolist(), 5)
        sims = {label: float(sim) for label, sim in zip(range(1, 40), matrix[1:] @ matrix[0])}
        expected = [0] + sorted(sims, key=lambda label: -sims[label])[:4]
        assert [label for label, _ in nearest] == expected, exact
        assert nearest[0][1] == pytest.approx(float(np.max(crowd @ matrix[0])), abs=1e-4)  # the flat copy's rows are 16-bit
        # Removing the record removes every passage; a replayed removal changes nothing.
        index.remove([0])
        index.remove([0])
        assert index.live == 39 and index.labels() == set(range(1, 40))


def test_the_measured_choice_of_candidates_and_passages_by_kind_of_embedder_and_its_overrides():
    from ov.config import RetrievalConfig
    from ov.retrieval.fusion import FIRST_PASSAGE_WEIGHT, candidate_similarity

    assert candidate_similarity(RetrievalConfig(), static=True) == (False, 0.0)
    assert candidate_similarity(RetrievalConfig(), static=False) == (True, FIRST_PASSAGE_WEIGHT)
    assert candidate_similarity(RetrievalConfig(every_candidate=True, first_passage_weight=0.5), static=True) == (True, 0.5)
    assert candidate_similarity(RetrievalConfig(every_candidate=False, first_passage_weight=0), static=False) == (False, 0.0)
    # A share outside 0..1 would make a record worth more than any of its passages, or less than none.
    assert candidate_similarity(RetrievalConfig(first_passage_weight=7), static=False)[1] == 1.0
    assert candidate_similarity(RetrievalConfig(first_passage_weight=-1), static=False)[1] == 0.0


def test_fsck_notes_an_index_built_for_another_configuration_which_the_next_search_rebuilds(docs, ov_home):
    assert docs("config", "set", "embedding.provider", "hash").exit_code == 0
    found(docs, "risotto")
    assert docs("config", "set", "retrieval.language", "german").exit_code == 0
    checked = docs("fsck", "--json")
    (finding,) = checked.json["result"]["findings"]
    assert checked.exit_code == 0 and finding["severity"] == "note" and "index language english, configured german" in finding["message"]
    found(docs, "risotto")
    assert docs("fsck", "--json").json["result"]["findings"] == []
    meta = json.loads((index_dir(ov_home) / "meta.json").read_text())
    (index_dir(ov_home) / meta["vectors_file"]).unlink()  # damage, not another configuration
    checked = docs("fsck", "--json")
    assert checked.exit_code != 0 and checked.json["result"]["findings"][0]["severity"] == "problem"


@pytest.mark.parametrize("threshold", ["2", "-1", "nan"])
def test_a_threshold_outside_zero_to_one_is_refused(docs, threshold):
    result = docs("find", "risotto", "--threshold", threshold, "--json")
    assert result.exit_code == 2 and "threshold is a relevance from 0 to 1" in result.error["message"]
    assert docs("find", "risotto", "--threshold", "0.0", "--json").exit_code == 0


def test_a_match_is_as_relevant_in_a_scoped_find_as_in_an_unscoped_one(ov, tmp_path):
    """A filter decides which records pass, never how well one matches: a scope's filter added its
    term's IDF to every hit, so `--uri` made the same match read as more relevant (0.98 against
    0.73), and `--threshold` (and the prompt hook's cut-off) meant something else in a scoped find."""
    kb = tmp_path / "kb"
    (kb / "sub").mkdir(parents=True)
    for i in range(60):
        (kb / f"n{i}.md").write_text(f"# Note {i}\n\nThe cache of service {i} warms at {i % 12} every morning and the deploy runs later.\n")
    (kb / "sub" / "cache.md").write_text("# Cache\n\nThe cache warms at nine every morning.\n")
    assert ov("add-resource", str(kb), "--to", "viking://resources/kb").exit_code == 0

    def relevance(*args: str) -> float:
        (hit,) = [h for h in found(ov, "when does the cache warm up", *args)["resources"] if h["uri"] == "viking://resources/kb/sub/cache.md"]
        return hit["relevance"]

    everywhere = relevance()
    assert 0.5 < everywhere < 0.95
    assert relevance("--uri", "viking://resources/kb/sub") == relevance("--type", "resource") == everywhere


def test_a_record_below_the_best_is_as_relevant_in_a_scope_where_it_leads(ov):
    """Relevance is a record's own match, not its place in a ranking: scaled to the best result, a
    record that one better match outranks read 0.49 unscoped and 0.96 in a scope where it led, so
    `--threshold 0.7` kept it with `--uri` and dropped it without."""
    assert ov("write", "viking://resources/a/keys.md", "-c", "# Rotating API keys\nRotate the API keys every 90 days.").exit_code == 0
    assert ov("write", "viking://resources/b/api.md", "-c", "# The HTTP API\nThe API serves JSON over HTTP. The API is versioned.").exit_code == 0

    def relevance(*args: str) -> dict[str, float]:
        return {h["uri"]: h["relevance"] for h in found(ov, "rotate api keys", *args)["resources"]}

    everywhere = relevance()
    assert list(everywhere)[0] == "viking://resources/a/keys.md"  # the better match leads
    api = "viking://resources/b/api.md"
    assert relevance("--uri", "viking://resources/b") == {api: everywhere[api]}
    for threshold in ("0.1", everywhere[api], "0.99"):
        kept = set(relevance("--threshold", str(threshold)))
        assert (api in kept) == (api in relevance("--uri", "viking://resources/b", "--threshold", str(threshold)))


def test_which_candidates_hold_which_words_is_one_look_up_for_all_the_words_as_a_look_up_a_word_reads_it(monkeypatch):
    """(the prompt hook's relevance cap asked the index once a query word, 47 look-ups a prompt)
    LexicalIndex.holding reads which labels hold which words from one look-up's scores; it answers
    as a look-up a word does, with more words than one look-up tells apart and with more labels
    than leave room for the words (then a look-up a word), and within a reading it asks only
    about the labels it was not asked about."""
    import random

    from ov.index import lexical
    from ov.index.lexical import Filters, LexicalIndex, QueryTerms
    from ov.index.records import Record
    from ov.retrieval.relevance import HELD_FIELDS

    rng = random.Random(7)
    vocabulary = [a + b + c + "o" for a in "bdk" for b in "aiu" for c in "mnt"][:30]
    index = LexicalIndex.empty("english")
    for label in range(40):
        text = " ".join(rng.sample(vocabulary, rng.randint(0, 6)))
        index.add(Record(id=f"r{label}", path=f"viking://resources/n{label}.md", uri=f"viking://resources/n{label}.md", level=2, kind="chunk",
                         context_type="resource", owner="", parent="", text=text, speaker="bamo" if label % 7 == 0 else ""), label + 100)
    index.commit()
    terms = index.query_terms(" ".join([*vocabulary, "absent"]))
    assert len(terms.words) > lexical.WORDS_A_LOOKUP

    def one_a_word(labels):
        return {word: {hit.label for hit in index.search(QueryTerms((word,), ()), dict.fromkeys(HELD_FIELDS, 1.0), Filters(labels=labels), 1000)}
                for word in terms.words}

    labels = tuple(range(100, 140, 3))
    expected = one_a_word(labels)
    assert expected["bamo"] >= {100 + label for label in range(0, 40, 7)} & set(labels) and not expected["absent"]
    assert index.holding(terms, HELD_FIELDS, labels) == expected

    class Counting:
        def __init__(self, searcher):
            self.searcher, self.searches = searcher, 0

        def search(self, *args, **kwargs):
            self.searches += 1
            return self.searcher.search(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.searcher, name)

    first, last = one_a_word(labels[:5]), one_a_word(labels[2:7])
    with index.reading():
        counting = index._reading.searcher = Counting(index._reading.searcher)
        assert index.holding(terms, HELD_FIELDS, labels[:5]) == first
        asked = counting.searches
        assert asked == 2  # 30 words, 5 labels: 21 words a look-up
        assert index.holding(terms, HELD_FIELDS, labels) == expected
        assert counting.searches == asked + 2  # the labels not asked yet, as many words a look-up
        assert index.holding(terms, HELD_FIELDS, labels[2:7]) == last
        assert counting.searches == asked + 2  # every label known
    # Past the limit: few words a look-up beside many labels' places, and none (a look-up a word).
    for limit in (6, 3):
        monkeypatch.setattr(lexical, "WORDS_A_LOOKUP", limit)
        assert index.holding(terms, HELD_FIELDS, labels) == expected
        assert index.holding(terms, HELD_FIELDS, ()) == {word: set() for word in terms.words}


def test_a_find_during_another_process_rebuild_for_a_new_schema_answers_from_the_old_text_at_once(ov, ov_home, index_held, monkeypatch):
    """A rebuild after an upgrade takes minutes on a large store (91 s for a year of use); `ov find`
    waited the lock's whole timeout for it and then answered from the old full text all the same.
    It glances at the lock now; an update of the same schema is still waited for."""
    from ov.index import opening, sync

    assert ov("write", "viking://resources/fish/tank.md", "--content", "# Tank\n\nThe zebrafish tank is cleaned every Wednesday.\n").exit_code == 0
    assert ov("find", "zebrafish").exit_code == 0
    waits = []

    class Recorded(opening.WriteLock):
        def __init__(self, path, timeout, **kwargs):
            waits.append(timeout)
            super().__init__(path, timeout, **kwargs)

    monkeypatch.setattr(opening, "WriteLock", Recorded)
    built = sync.SCHEMA_VERSION
    monkeypatch.setattr(sync, "SCHEMA_VERSION", built + 1)
    monkeypatch.setattr(sync, "READABLE_SCHEMA", built)
    index_held()  # the job, rebuilding it
    result = ov("find", "zebrafish", "--json")
    assert result.exit_code == 0 and "tank.md" in result.stdout
    assert waits == [opening.GLANCE]
    assert "another ov process is rebuilding it" in json.loads(result.stdout)["result"]["index"]["behind"]
    monkeypatch.setattr(sync, "SCHEMA_VERSION", built)  # the same schema, behind HEAD: an update, waited for
    monkeypatch.setattr(sync, "READABLE_SCHEMA", built)
    assert ov("write", "viking://resources/fish/feed.md", "--content", "# Feed\n\nThe zebrafish are fed at noon.\n").exit_code == 0
    waits.clear()
    assert ov("find", "zebrafish").exit_code == 0
    assert waits == [1]  # index_held set the lock's timeout to one second
