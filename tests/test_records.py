"""What a committed file becomes in the indices (ov.index.records)."""

from __future__ import annotations

import itertools
import json

import pytest

from ov.index.records import classify, records_for


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("resources/docs/a.md", ("resource", "")),
        ("user/alice/resources/notes.md", ("resource", "alice")),
        ("user/alice/memories/preferences/alice/editor.md", ("memory", "alice")),
        ("user/alice/peers/bob/memories/profile.md", ("memory", "alice")),
        ("user/alice/sessions/s1/messages.jsonl", ("session", "alice")),
        ("user/alice/skills/pdf/SKILL.md", ("skill", "alice")),
        ("agent/skills/pdf/SKILL.md", ("skill", "")),
        ("agent/memories/tips.md", ("memory", "")),
    ],
)
def test_context_type_and_owner_come_from_the_path(path, expected):
    assert classify(path) == expected


def test_a_markdown_file_becomes_heading_aware_chunks_with_line_ranges():
    body = "\n\n".join(f"## Section {i}\n\n" + ("Words about topic %d. " % i) * 120 for i in range(3))
    text = "# Guide\n\n" + body + "\n"
    records = records_for("resources/guide.md", text.encode())
    assert len(records) >= 3
    lines = text.splitlines()
    for record in records:
        assert record.uri == "viking://resources/guide.md" and record.level == 2 and record.kind == "chunk"
        assert record.parent == "viking://resources"
        got = "\n".join(lines[record.start_line - 1 : record.end_line])
        assert got.strip() == record.text.strip()
    assert [r.id for r in records] == [f"resources/guide.md#{n}" for n in range(len(records))]


def test_a_chunks_title_names_the_file_once():
    # (found by an audit: the parts of a long text without headings were titled "huge huge (part 4 of 587)")
    text = "\n".join(f"line {i} of a long plain text about nothing much at all" for i in range(1500))
    titles = [r.title for r in records_for("resources/huge/huge.txt", text.encode())]
    assert len(titles) > 2 and all(t.startswith("huge (part ") for t in titles), titles[:3]
    headed = records_for("resources/notes/deploy-guide.md", b"# Rollback\n\nUndo the release.\n")
    assert [r.title for r in headed] == ["deploy guide Rollback"]


MODULE = (
    '"""\nshop.orders\n~~~~~~~~~~~\n\nOrders: what a customer bought and what it cost.\n"""\n\nimport json\n\n\n'
    + "".join(
        f"# Keep the total in cents for order kind {i}.\n@cached\ndef total_{i}(order):\n"
        + "".join(f"    line_{k} = order.lines[{k}].price * order.lines[{k}].quantity  # sum it\n" for k in range(12))
        + "    return line_0\n\n\n"
        for i in range(40)
    )
    + "class Refund:\n    \"\"\"Money going back.\"\"\"\n\n"
    + "".join(f"    def step_{i}(self):\n" + "        self.amount -= 1  # one cent at a time, logged\n" * 30 + "\n" for i in range(12))
)


def test_code_is_chunked_by_its_blocks_not_as_markdown():
    records = records_for("resources/shop/orders.py", MODULE.encode())
    lines = MODULE.splitlines()
    assert len(records) > 5
    # The records cover the module in order, each within the size of a record, each cut before a definition.
    assert records[0].start_line == 1 and records[-1].end_line == len(lines)
    for before, after in itertools.pairwise(records):
        assert after.start_line == before.end_line + 1
    for record in records:
        assert len(record.text) <= 4 * 1024 + 200, (record.start_line, record.end_line)
        assert "\n".join(lines[record.start_line - 1 : record.end_line]).rstrip("\n") == record.text.rstrip("\n")
        first = lines[record.start_line - 1]
        assert record.start_line == 1 or first.startswith(("# Keep", "class ", "    def ")), first
    # Titles name what a record defines, never a comment taken for a heading.
    titles = [r.title for r in records]
    assert all("Keep the total" not in t and "sum it" not in t for t in titles), titles
    assert titles[0].startswith("orders total_0") and any("Refund" in t for t in titles), titles
    assert any("step_" in t for t in titles if "Refund" not in t)  # a big class is cut between its methods
    # Data files too: a "#" comment of a YAML file is no heading.
    config = "".join(f"# Settings of service {i}.\nservice_{i}:\n  port: {8000 + i}\n  host: internal-{i}.example\n\n" for i in range(300))
    yaml_records = records_for("resources/shop/services.yaml", config.encode())
    assert len(yaml_records) > 1 and all(r.title == "services" for r in yaml_records)
    # A document is still read as Markdown.
    guide = "# Guide\n\n" + "".join(f"## Step {i}\n\n" + "Words of the step. " * 150 + "\n\n" for i in range(4))
    assert any("Step 2" in r.title for r in records_for("resources/shop/guide.md", guide.encode()))


def test_sidecars_index_their_body_at_their_level_named_by_the_directory():
    overview = "---\ndirectory: viking://resources/docs/\ngenerated_by:\n  component: ov\n---\n\n# docs\n\nHow we ship.\n"
    [record] = records_for("resources/docs/.overview.md", overview.encode())
    assert (record.uri, record.level, record.kind, record.parent) == ("viking://resources/docs", 1, "overview", "viking://resources")
    assert "generated_by" not in record.text and "How we ship." in record.text
    [abstract] = records_for("resources/docs/.abstract.md", b"Shipping notes.")
    assert (abstract.level, abstract.kind, abstract.text) == (0, "abstract", "Shipping notes.")
    assert records_for("resources/docs/.abstract.md", b"   \n") == []
    assert record.search_text is None and abstract.search_text is None  # a person's summary ranks as written


GENERATED = (
    "---\ndirectory: viking://resources/recipes/\ngenerated_by:\n  component: ov-ingest\n  trigger: resource_ingest\n---\n\n"
    "# recipes\n\nKnead the dough and let it rise. Holds 2 Markdown docs (bread.md and rye.md).\n\n## Contents\n\n"
    "- bread.md: Knead the dough and let it rise. Sections: Proofing.\n- rye.md\n\n## Key terms\n\nbread, dough, knead, rye\n"
)


def test_a_generated_summary_ranks_by_what_it_says_of_the_folder_and_shows_as_written():
    # (found by an audit: every generated overview matched "what are the key terms of the contract?")
    [record] = records_for("resources/recipes/.overview.md", GENERATED.encode())
    assert record.text.startswith("# recipes\n\nKnead the dough") and "## Key terms" in record.text  # what a hit shows
    assert record.searched == (
        "# recipes\n\nKnead the dough and let it rise. bread.md and rye.md\n\n"
        "- bread.md: Knead the dough and let it rise. Proofing.\n- rye.md\n\nbread, dough, knead, rye"
    )
    [abstract] = records_for("resources/recipes/.abstract.md", b"Knead the dough and let it rise. Holds 2 Markdown docs (bread.md and rye.md).")
    assert abstract.searched == "Knead the dough and let it rise. bread.md and rye.md"
    [empty] = records_for("resources/empty/.abstract.md", b"This directory is empty.")
    assert empty.searched == "" and empty.text == "This directory is empty."


ARCHIVE_OVERVIEW = (
    "---\ndirectory: viking://user/u/sessions/s1/history/archive_001/\ngenerated_by:\n  component: ov-session\n  trigger: session_commit\n---\n\n"
    "# Migrate billing to Postgres.\n\n2 messages (2026-11-30). The user asked: Migrate billing to Postgres.\n\n"
    "## Current State\n- Copied the invoices table.\n\n## Task & Goals\n- Migrate billing to Postgres.\n\n"
    "## Key Facts & Decisions\n- none\n\n## Files & Context\n- db/schema.sql\n\n## Errors & Corrections\n- none\n\n## Open Issues\n- none\n"
)


def test_a_session_archive_overview_ranks_by_what_was_said_and_shows_as_written():
    # (found by an audit: every archive overview matched "any open issues?" and "what is the current state?")
    [record] = records_for("user/u/sessions/s1/history/archive_001/.overview.md", ARCHIVE_OVERVIEW.encode())
    assert record.text.startswith("# Migrate billing") and "## Open Issues\n- none" in record.text  # what a hit shows
    assert record.searched == (
        "# Migrate billing to Postgres.\n\n2026-11-30 Migrate billing to Postgres.\n\n"
        "- Copied the invoices table.\n\n- Migrate billing to Postgres.\n\n- db/schema.sql"
    )
    [abstract] = records_for("user/u/sessions/s1/history/archive_001/.abstract.md", b"2 messages (2026-11-30). The user asked: Migrate billing to Postgres.")
    assert abstract.searched == "2026-11-30 Migrate billing to Postgres."
    # The working memory's template is an archive's only: a summary in its shape elsewhere ranks as written.
    [resource] = records_for("resources/notes/.overview.md", ARCHIVE_OVERVIEW.encode())
    assert resource.search_text is None
    [session_folder] = records_for("user/u/sessions/s1/.abstract.md", b"2 messages (2026-11-30). The user asked: Migrate billing to Postgres.")
    assert session_folder.search_text is None


def test_memories_leave_out_their_fields_trailer():
    text = '- Prefers tabs\n\n<!-- MEMORY_FIELDS\n{\n  "memory_type": "preferences",\n  "updated_at": "2026-04-21T10:00:00Z",\n  "version": 1\n}\n-->\n'
    [record] = records_for("user/u/memories/preferences/u/indent.md", text.encode())
    assert record.kind == "memory" and record.context_type == "memory" and record.owner == "u"
    assert record.text.strip() == "- Prefers tabs"
    assert record.time == pytest.approx(1776765600.0)


def test_bookkeeping_dotfiles_and_binary_files_are_not_indexed():
    for path in (
        "user/u/sessions/s1/.meta.json",
        "resources/docs/.sources.json",
        "user/u/sessions/s1/history/archive_001/memory_diff.json",
        "user/u/sessions/s1/history/archive_001/.done",
        "resources/docs/.hidden.md",
    ):
        assert records_for(path, b'{"a": 1}') == []
    assert records_for("resources/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00") == []


def test_messages_are_one_record_each_with_neighbours_and_a_log():
    messages = [
        {"id": "m1", "role": "user", "peer": "alice", "created_at": "2026-05-01T10:00:00.000Z", "parts": [{"type": "text", "text": "I adopted a cat."}]},
        {"id": "m2", "role": "assistant", "created_at": "2026-05-01T10:00:01.000Z", "parts": [{"type": "text", "text": "What is its name?"}]},
        {"id": "m3", "role": "user", "created_at": "2026-05-01T10:00:02.000Z", "parts": [{"type": "text", "text": "Miso."}]},
    ]
    data = "".join(json.dumps(m) + "\n" for m in messages).encode()
    records = records_for("user/u/sessions/s1/history/archive_001/messages.jsonl", data)
    by_kind = {r.kind: [] for r in records}
    for r in records:
        by_kind[r.kind].append(r)
    assert [r.message_id for r in by_kind["message"]] == ["m1", "m2", "m3"]
    first, middle, last = by_kind["message"]
    assert first.session_id == "s1" and first.speaker == "alice" and first.role == "user"
    assert middle.speaker == "" and middle.context == "I adopted a cat.\nMiso."
    assert (first.previous, last.previous) == ("", "What is its name?")  # what a reply answers
    assert last.unit == "viking://user/u/sessions/s1/history/archive_001/messages.jsonl#m3"
    assert first.time == pytest.approx(1777629600.0)
    [log] = by_kind["log"]
    assert log.text == "alice: I adopted a cat.\nWhat is its name?\nMiso."  # no role words ov would add
    assert all(r.parent == log.uri for r in by_kind["message"])
    # An append in progress (no final newline) is not read as a message yet.
    partial = data + b'{"id": "m4", "role": "user", "parts": [{"type": "text", "text": "half'
    assert len([r for r in records_for("user/u/sessions/s1/messages.jsonl", partial) if r.kind == "message"]) == 3


def test_every_chunk_of_code_carries_what_its_file_is_about():
    records = records_for("resources/shop/billing/orders.py", MODULE.encode())
    last = records[-1]
    # Its path in words, the module's docstring (a chunk far below it never says it), and the names
    # the chunk defines split into words.
    assert "shop billing orders" in last.about and "what a customer bought" in last.about
    assert "step_11" in last.about
    assert all("what a customer bought" in r.about for r in records)
    # camelCase is split, acronyms kept whole; a licence header is not what a file is about.
    source = "# orders.py -- What customers bought.\n# Copyright (C) 2024 Shop Ltd\n# SPDX-License-Identifier: MIT\n\nclass CliRunner:\n    pass\n\n\nclass HTTPServer:\n    pass\n"
    (record,) = records_for("resources/shop/orders.py", source.encode())
    assert "Cli Runner" in record.about and "HTTP Server" in record.about
    assert "What customers bought." in record.about and "Copyright" not in record.about and "SPDX" not in record.about
    # Prose has no such field: its headings are in its text.
    assert all(r.about == "" for r in records_for("resources/shop/guide.md", b"# Guide\n\nWords.\n"))
