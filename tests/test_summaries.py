"""The extractive summaries state facts: real small directories (a Python package, Markdown docs,
a mixed project, memories, empty and binary-only folders) added with `ov add-resource` or summarised
directly, and what their L0/L1 say — lead sentences, headings, kinds and counts, defined names —
and never code tokens like self, None or import."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ov.store import sidecar
from ov.summaries.extractive import key_terms
from ov.summaries.facts import file_facts, kind_of
from ov.summaries.layers import ChildInfo, derive_abstract, summarize_directory
from ov.summaries.scaffold import searchable

JUNK = re.compile(r"\b(?:self|None|import|def|return|True|False|true|false|null|str|int|kwargs|elif)\b")


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
    return root


def added_layers(ov, root: Path, files: dict[str, str | bytes]) -> tuple[str, str]:
    """Write ``files`` under ``root``, add it as a resource and return its abstract and overview."""
    assert ov("add-resource", str(write_tree(root, files))).exit_code == 0
    return layers(ov, f"viking://resources/{root.name}")


def layers(ov, uri: str) -> tuple[str, str]:
    abstract, overview = ov("abstract", uri), ov("overview", uri)
    assert abstract.exit_code == 0 and overview.exit_code == 0, abstract.stderr + overview.stderr
    return abstract.stdout.strip(), overview.stdout.strip()


def key_terms_line(overview: str) -> str:
    lines = overview.splitlines()
    return lines[lines.index("## Key terms") + 2] if "## Key terms" in lines else ""


def contents(overview: str) -> dict[str, str]:
    """{entry label: its line's text} of an overview's Contents section."""
    out = {}
    for line in overview.splitlines():
        match = re.match(r"- (\S+?)(?:: (.*))?$", line)
        if match:
            out[match.group(1)] = match.group(2) or ""
    return out


PACKAGE = {
    "__init__.py": '''
        """Widgets: small reusable parts for terminal dashboards.

        Each module holds one family of widgets.
        """
        from widgets.gauges import Gauge

        __all__ = ["Gauge"]
    ''',
    "gauges.py": '''
        """Gauges show one number against its limits, redrawn when the value changes."""
        from __future__ import annotations

        import math


        class Gauge:
            def __init__(self, value: int = 0, limit: int | None = None) -> None:
                self.value = value
                self.limit = limit

            def ratio(self) -> float:
                if self.limit is None:
                    return 0.0
                return self.value / self.limit


        class DualGauge(Gauge):
            pass


        def make_gauge(value, *, strict=False):
            return Gauge(value) if not strict else None


        def _clamp(x):
            return max(0, x)
    ''',
    "tables.py": '''
        # Tables: rows of cells laid out in fixed-width columns.
        import os

        def render_table(rows):
            return [str(r) for r in rows if r is not None]
    ''',
    "_compat.py": "import sys\nPY311 = sys.version_info >= (3, 11)\n",
}


def test_a_python_package_is_summarised_from_its_docstrings_and_definitions(ov, tmp_path):
    abstract, overview = added_layers(ov, tmp_path / "widgets", PACKAGE)
    assert abstract == (
        "Widgets: small reusable parts for terminal dashboards. "
        "Holds 4 Python modules (__init__.py, _compat.py, gauges.py and tables.py)."
    )
    entries = contents(overview)
    assert entries["gauges.py"] == (
        "Gauges show one number against its limits, redrawn when the value changes. Defines Gauge, DualGauge and make_gauge()."
    )
    assert entries["tables.py"] == "Tables: rows of cells laid out in fixed-width columns. Defines render_table()."  # a leading comment
    assert "_clamp" not in overview and "__init__()" not in overview  # private names are not "main things"
    assert not JUNK.search(abstract), abstract
    terms = key_terms_line(overview)
    assert terms and not JUNK.search(terms), terms
    assert "gauge" in terms.lower()


DOCS = {
    "README.md": """
        # Operations handbook

        [![build](https://ci.example/badge.svg)](https://ci.example)

        How the platform team deploys, watches and repairs the billing service.

        ## Layout

        - deploys.md
        - paging.md
    """,
    "deploys.md": """
        ---
        title: Deploys
        description: Every deploy goes through a canary stage before it reaches all regions.
        ---
        # Deploys

        ```sh
        def import return None self
        ```

        ## Canary stage

        Watch the error rate.

        ## Rollback

        Roll back with one command.
    """,
    "paging.md": """
        # Paging

        ```
        pager --rotate
        ```

        The on-call engineer is paged for customer-facing incidents only.
    """,
}


def test_markdown_docs_give_their_first_paragraph_frontmatter_and_headings(ov, tmp_path):
    abstract, overview = added_layers(ov, tmp_path / "handbook", DOCS)
    assert abstract == (
        "How the platform team deploys, watches and repairs the billing service. "
        "Holds 3 Markdown docs (README.md, deploys.md and paging.md)."
    )
    entries = contents(overview)
    assert entries["README.md"] == "How the platform team deploys, watches and repairs the billing service. Sections: Layout."
    assert entries["deploys.md"] == "Every deploy goes through a canary stage before it reaches all regions. Sections: Canary stage; Rollback."
    assert entries["paging.md"] == "The on-call engineer is paged for customer-facing incidents only."  # the code block is skipped
    assert "pager --rotate" not in overview and not JUNK.search(overview), overview


def test_a_long_document_split_into_sections_is_introduced_by_its_first_section(ov, tmp_path):
    body = "\n".join(f"Step {i} of the upgrade checks one more service and records what it found." for i in range(70))
    doc = f"# Upgrade guide\n\nThis guide upgrades the cluster one node at a time.\n\n## Prepare\n\n{body}\n\n## Upgrade nodes\n\n{body}\n\n## Verify\n\n{body}\n"
    (tmp_path / "upgrade.md").write_text(doc, encoding="utf-8")
    assert ov("add-resource", str(tmp_path / "upgrade.md")).exit_code == 0
    listing = ov("ls", "--simple", "viking://resources/upgrade").stdout.split()
    assert len(listing) > 2, listing
    abstract, _overview = layers(ov, "viking://resources/upgrade")
    assert abstract.startswith("This guide upgrades the cluster one node at a time.")
    for heading in ("Upgrade guide", "Prepare", "Upgrade nodes", "Verify"):
        assert heading in abstract, abstract
    assert re.search(r"Holds \d+ sections \(", abstract)


def test_a_section_cut_into_parts_is_one_section_and_a_document_without_sections_says_what_it_is(ov, tmp_path):
    para = " ".join(["alpha beta gamma delta epsilon zeta eta theta"] * 5) + "."
    body = "\n\n".join([para] * 60)
    (tmp_path / "guide.md").write_text(f"# Guide\n\nIntro text here.\n\n## Setup, install: basics\n\n{body}\n\n## Usage\n\n{body}\n", encoding="utf-8")
    assert ov("add-resource", str(tmp_path / "guide.md")).exit_code == 0
    assert any("_part2" in name for name in ov("ls", "--simple", "viking://resources/guide").stdout.split())
    abstract, _overview = layers(ov, "viking://resources/guide")
    # Only part 1 holds the heading; the other parts are the same section, not "Setup install basics".
    assert "Holds 3 sections (Guide; Setup, install: basics; Usage)." in abstract, abstract
    # A long tight list without sections: its parts are sections named by their first words, and the
    # document's introduction leads its abstract.
    items = "\n".join(f"- **Rule {i}.** {para}\n  {para}" for i in range(40))
    (tmp_path / "handbook.md").write_text(f"# Release handbook\n\nThis handbook explains how we ship releases.\n\n{items}\n", encoding="utf-8")
    assert ov("add-resource", str(tmp_path / "handbook.md")).exit_code == 0
    abstract, _overview = layers(ov, "viking://resources/handbook")
    assert abstract.startswith("This handbook explains how we ship releases. Holds "), abstract
    assert re.search(r"\d+ sections \(Release handbook; Rule \d+\. alpha", abstract), abstract


def test_a_mixed_project_leads_with_its_manifest_description(ov, tmp_path):
    abstract, overview = added_layers(
        ov,
        tmp_path / "tool",
        {
            "pyproject.toml": """
                [build-system]
                requires = ["setuptools>=68"]

                [project]
                name = "ledger-tool"
                description = "Reconciles bank exports against the ledger every night"
                dependencies = ["click"]
            """,
            "package.json": '{"name": "ledger-ui", "description": "The review screen for unmatched payments.", "private": true}\n',
            "notes.txt": "Exports arrive at 02:00 UTC.\n",
            "rates.csv": "currency,rate\nEUR,1.0\n",
            "src/ledger/__init__.py": '"""Matching payments to ledger lines."""\n',
        },
    )
    assert abstract.startswith("Reconciles bank exports against the ledger every night. Holds 2 package manifests")
    for fact in ("1 text file (notes.txt)", "1 CSV file (rates.csv)", "1 subdirectory (src/)"):
        assert fact in abstract, abstract
    assert contents(overview)["package.json"] == "The review screen for unmatched payments."
    nested, _ = layers(ov, "viking://resources/tool/src/ledger")
    assert nested == "Matching payments to ledger lines. Holds 1 Python module (__init__.py)."
    assert not JUNK.search(abstract)


def memory(content: str, memory_type: str = "preferences") -> str:
    fields = {"created_at": "2026-04-21T10:00:00Z", "memory_type": memory_type, "sources": ["viking://user/default/sessions/s1/history/archive_001"], "updated_at": "2026-04-21T10:00:00Z", "version": 1}
    return f"{content}\n\n<!-- MEMORY_FIELDS\n{json.dumps(fields, indent=2, sort_keys=True)}\n-->\n"


def test_a_directory_of_memories_is_summarised_by_the_memories_themselves(ov, tmp_path):
    abstract, overview = added_layers(
        ov,
        tmp_path / "prefs",
        {
            "editor.md": memory("- Prefers tabs for indentation in Python files"),
            "release.md": memory("Never deploys on Fridays; releases freeze after Thursday noon."),
            "tests.md": memory("Runs `pytest -q` before every commit."),
        },
    )
    assert abstract == (
        "Prefers tabs for indentation in Python files. Never deploys on Fridays; releases freeze after Thursday noon. "
        "Runs pytest -q before every commit. Holds 3 memories (editor.md, release.md and tests.md)."
    )
    assert contents(overview)["release.md"] == "Never deploys on Fridays; releases freeze after Thursday noon."
    for trailer_word in ("MEMORY_FIELDS", "memory_type", "created_at", "archive_001", "viking"):
        assert trailer_word not in overview, trailer_word


def test_memories_of_subdirectories_rise_to_their_parent():
    children = [
        ChildInfo("entities", True, abstract="Alice works at Acme on the billing team. Holds 2 memories (acme.md and bob.md)."),
        ChildInfo("profile.md", False, text=memory("Alice is a backend engineer.", "profile")),
    ]
    abstract = derive_abstract(summarize_directory("viking://user/alice/memories", children).overview)
    assert abstract == "Alice is a backend engineer. Alice works at Acme on the billing team. Holds 1 memory (profile.md) and 1 subdirectory (entities/)."


def test_empty_and_binary_only_directories(ov, tmp_path):
    assert derive_abstract(summarize_directory("viking://resources/empty", []).overview) == "This directory is empty."
    blobs = [
        ChildInfo("firmware.bin", False, text=b"\x7fELF\x00\x01\x02\xff\xfe".decode("utf-8", "replace")),
        ChildInfo("logo.png", False, text=b"\x89PNG\r\n\x1a\n\x00\x00".decode("utf-8", "replace")),
        ChildInfo("model.bin", False, text=""),
    ]
    overview = summarize_directory("viking://resources/blobs", blobs).overview
    assert derive_abstract(overview) == "Holds 2 .bin files (firmware.bin and model.bin) and 1 image (logo.png)."
    assert "\ufffd" not in overview and "\x00" not in overview and "ELF" not in overview
    assert "## Key terms" in overview or "## Contents" in overview
    # Through ingest: binary files are skipped, and a folder left with nothing readable says so.
    abstract, _ = added_layers(ov, tmp_path / "assets", {"logo.png": b"\x89PNG\r\n\x1a\n\x00\x00binary", "readme.txt": "Brand assets for the 2026 launch.\n"})
    assert abstract == "Brand assets for the 2026 launch. Holds 1 text file (readme.txt)."


SUMMARISE = """
import json, sys
from pathlib import Path
from ov.summaries.layers import ChildInfo, render_sidecars, summarize_directory
root = Path(sys.argv[1])
children = [ChildInfo(p.name, p.is_dir(), text="" if p.is_dir() else p.read_text()[:4000], abstract="Gauges. Holds 1 Python module (a.py)." if p.is_dir() else None) for p in sorted(root.iterdir())]
summary = summarize_directory("viking://resources/widgets", children)
print(json.dumps(render_sidecars("viking://resources/widgets", summary, source=None, generated_by=("ov-ingest", "resource_ingest"))))
"""


def test_the_same_tree_gives_byte_identical_sidecars(ov, ov_home, tmp_path):
    source = write_tree(tmp_path / "widgets", {**PACKAGE, **DOCS, "sub/a.py": '"""Gauges."""\n'})
    # in other processes, with other hash seeds
    outputs = set()
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", SUMMARISE, str(source)], capture_output=True, text=True, env=env, timeout=120, cwd=Path(__file__).resolve().parents[1])
        assert proc.returncode == 0, proc.stderr
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    # and through ingest: the same source under two parents gives the same bodies
    for parent in ("viking://resources/x", "viking://resources/y"):
        assert ov("mkdir", parent).exit_code == 0
        assert ov("add-resource", str(source), "--parent", parent).exit_code == 0
    x, y = (ov_home / "accounts/default/resources" / p / "widgets" for p in ("x", "y"))
    for name in (sidecar.ABSTRACT, sidecar.OVERVIEW):
        assert sidecar.body((x / name).read_text()) == sidecar.body((y / name).read_text())


def test_the_brief_fits_l0_with_many_kinds_and_long_names():
    exts = ["py", "md", "json", "yaml", "toml", "txt", "csv", "sh", "rs", "go", "ts", "js", "sql", "css", "html", "xyz"]
    children = [ChildInfo(f"{'a_rather_long_file_name_' * 3}{i:02d}.{ext}", False, text=f"Entry number {i}.") for i, ext in enumerate(exts * 3)]
    children += [ChildInfo(f"subdirectory_with_a_long_name_{i}", True, abstract="Something.") for i in range(5)]
    summary = summarize_directory("viking://resources/mixed", children)
    abstract = derive_abstract(summary.overview)
    assert 0 < len(abstract) <= sidecar.ABSTRACT_MAX_CHARS
    assert abstract == summary.overview.split("\n\n")[1], "the brief is not cut when it becomes L0"
    assert abstract.startswith("Holds ") and abstract[-1] in ".!?"
    assert len(summary.overview) <= sidecar.OVERVIEW_MAX_CHARS


def test_a_parent_does_not_take_its_childrens_layout_sentences_as_terms():
    children = [
        ChildInfo("billing", True, abstract="Invoices are sent monthly. Holds 3 Python modules (a.py, b.py and c.py) and 1 subdirectory (x/)."),
        ChildInfo("payroll", True, abstract="Salaries are paid monthly. Holds 2 Markdown docs (d.md and e.md)."),
    ]
    terms = {t.lower() for t in key_terms(children)}
    assert "invoices" in terms and not {"holds", "python", "modules", "markdown", "docs", "subdirectory"} & terms
    abstract = derive_abstract(summarize_directory("viking://resources/finance", children).overview)
    assert abstract.count("Holds ") == 1 and abstract.startswith("Holds 2 subdirectories (billing/ and payroll/).")
    assert "Invoices are sent monthly." in abstract  # the richest child, labelled with its name


# --- the facts of one file ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "kind", "lead", "defines"),
    [
        ("api.py", '"""The HTTP API: routes and their handlers.\n\nMore."""\n\nclass App:\n    pass\n\nasync def serve():\n    pass\n', "python", "The HTTP API: routes and their handlers.", ("App", "serve()")),
        ("roles.py", '"""One :class:`~ov.index.records.Record` per file, see ``records_of``."""\n', "python", "One Record per file, see records_of.", ()),
        ("cut.py", '#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""A docstring cut off by the text limit and never', "python", "A docstring cut off by the text limit and never.", ()),
        ("test_api.py", "def test_routes():\n    assert True\n", "python-test", "", ("test_routes()",)),
        ("index.ts", "/**\n * The widget registry.\n */\nexport default class Registry {}\nexport function register() {}\nexport interface Spec {}\n", "typescript", "The widget registry.", ("Registry", "register()", "Spec")),
        ("app.js", "// Copyright 2026 Acme\n// Boots the dashboard.\nexport const start = () => 1;\n", "javascript", "Boots the dashboard.", ("start",)),
        ("lib.rs", "//! Fast parsing of widget specs.\npub struct Spec;\npub(crate) fn parse() {}\nfn private() {}\n", "rust", "Fast parsing of widget specs.", ("Spec", "parse()")),
        ("main.go", "// Package main runs the server.\npackage main\n\nfunc Serve() {}\nfunc helper() {}\ntype Config struct{}\n", "go", "Package main runs the server.", ("Serve()", "Config")),
        ("run.sh", "#!/bin/sh\n# Run the widget server locally.\nstart() {\n  echo hi\n}\n", "shell", "Run the widget server locally.", ("start()",)),
        ("config.yaml", "# Settings of the importer.\nname: importer\ndescription: Imports the nightly exports\n", "yaml", "Imports the nightly exports.", ()),
        ("Cargo.toml", '[package]\nname = "widgets"\ndescription = "Terminal widgets"\n', "manifest", "Terminal widgets.", ()),
    ],
)
def test_file_facts(name, text, kind, lead, defines):
    facts = file_facts(name, text)
    assert (facts.kind, facts.lead, facts.defines) == (kind, lead, defines)


def test_markdown_facts_read_titles_sections_and_skip_lists_and_comments():
    text = "<!-- generated -->\n# Guide\n\n- a list item is not a lead\n  continued here\n\nThe first real paragraph.\nIt goes on.\n\n## Install\n\n### Linux\n\n#### Deep\n"
    facts = file_facts("guide.md", text)
    assert (facts.kind, facts.title, facts.lead, facts.sections) == ("markdown", "Guide", "The first real paragraph. It goes on.", ("Install", "Linux"))
    only_links = file_facts("README.md", "# ov documentation\n\n- [Architecture](a.md) — layers.\n- [Concepts](c.md)\n")
    assert (only_links.title, only_links.lead) == ("ov documentation", "")


@pytest.mark.parametrize(
    ("name", "kind"),
    [("a.py", "python"), ("conftest.py", "python-test"), ("01_Intro.md", "section"), ("notes.md", "markdown"), ("pyproject.toml", "manifest"),
     ("Makefile", "build"), ("x.ambr", ".ambr"), ("LICENSE", "text"), ("blob", "file"), ("m.md", "memory"), ("m.ambr", ".ambr")],
)
def test_kind_of(name, kind):
    text = memory("A fact.") if name.startswith("m.") else ""  # a trailer makes a memory of a Markdown file only
    assert kind_of(name, text) == kind


# --- the template's words, as the index reads a summary ---------------------------------

TEMPLATE_WORDS = re.compile(
    r"Contents|Key terms|Only a sample|\bHolds\b|\bPython modules?\b|\bMarkdown docs?\b|\bDefines\b|Sections:"
    r"|subdirector|\bmore\b|This directory|该目录|此处仅列出"
)


def test_the_index_reads_an_overview_without_the_words_every_generated_overview_shares():
    children = [ChildInfo(name, False, text=textwrap.dedent(text).lstrip("\n")) for name, text in {**PACKAGE, **DOCS}.items()]
    children += [ChildInfo("sub", True, abstract="Gauges for dashboards. Holds 3 Python modules (a.py, b.py and 1 more).")]
    overview = summarize_directory("viking://resources/widgets", children).overview
    for written in ("## Contents", "## Key terms", "Holds ", "Defines ", "Sections: ", "1 subdirectory (sub/)"):
        assert written in overview
    own = searchable(overview)
    assert not TEMPLATE_WORDS.search(own), own
    # What the overview says of the folder's entries stays: their names, sentences, definitions, headings, terms.
    for kept in ("# widgets", "gauges.py", "sub/", "a.py, b.py", "Gauge, DualGauge and make_gauge().", "Canary stage; Rollback."):
        assert kept in own
    assert "Every deploy goes through a canary stage before it reaches all regions." in own
    assert key_terms_line(overview) and key_terms_line(overview) in own.splitlines()
    assert searchable(derive_abstract(overview)) == (
        "How the platform team deploys, watches and repairs the billing service. "
        "__init__.py, gauges.py, tables.py and _compat.py, README.md, deploys.md and paging.md, sub/"
    )


def test_the_sample_note_empty_and_chinese_briefs_are_template_words_too():
    notes = [ChildInfo(f"note{i:02}.md", False, text=f"# Note {i}\n\nTulips planted in bed {i}.\n") for i in range(40)]
    sampled = summarize_directory("viking://resources/garden", notes).overview
    assert "Only a sample of the entries is listed." in sampled
    assert not TEMPLATE_WORDS.search(searchable(sampled)) and "tulip" in searchable(sampled).lower()
    assert searchable(summarize_directory("viking://resources/empty", []).overview) == "# empty"
    zh = [
        ChildInfo("部署指南.md", False, "部署指南", "# 部署指南\n\n本文介绍如何把服务部署到生产环境。部署前需要通过灰度发布检查。"),
        ChildInfo("回滚.md", False, "回滚", "# 回滚\n\n当灰度检查失败时，系统会自动回滚到上一个版本。"),
    ]
    brief = derive_abstract(summarize_directory("viking://resources/运维", zh).overview)
    assert brief.startswith("该目录包含关于") and "的文件。" in brief
    own = searchable(brief)
    assert not TEMPLATE_WORDS.search(own) and own.startswith(brief[len("该目录包含关于") : brief.index("的文件。")] + " ")


def test_the_brief_earlier_versions_wrote_keeps_only_its_topics():
    # Stores summarised before 2026-12-01 hold this sentence; its words matched any question about
    # folders ("which files and subdirectories are in this directory") at a relevance near 0.9.
    old = "This directory holds files and subdirectories about deploy, helm and staging. We deploy with Helm."
    assert searchable(old) == "deploy, helm and staging We deploy with Helm."
    assert searchable("# src\n\nThis directory holds files such as a.py, b.py and c/.") == "# src\n\na.py, b.py and c/"
    assert not TEMPLATE_WORDS.search(searchable("This directory holds subdirectories named api/ and web/."))


def test_a_persons_or_a_models_overview_keeps_its_headings():
    model = "# ops\n\nHow the team ships.\n\n## Contents\n\n- deploys.md: Canary first.\n\n## Details\n\n### deploys.md\n\nKey terms: canary."
    assert searchable(model) == model
    person = "# ops\n\n## Key terms\n\ncanary, rollback\n\n## Contents\n\nWhat is in here, in prose."
    assert searchable(person) == person
    # A sentence that only looks like the layout sentence is the person's own.
    assert searchable("Holds 12 recipes (bread, cake and pie).") == "Holds 12 recipes (bread, cake and pie)."


def test_a_package_speaks_through_its_init_not_a_module_named_like_an_introduction():
    def brief(children: list[ChildInfo]) -> str:
        return derive_abstract(summarize_directory("viking://resources/domains", children).overview)

    package = ChildInfo("__init__.py", False, text='"""Support for domains: groups of directives and roles."""\n')
    for module in ("index.py", "overview.py", "summary.py", "about.py", "intro.py", "lib.py"):
        other = ChildInfo(module, False, text='"""The index domain: entries of the general index."""\n\ndef setup():\n    pass\n')
        assert brief([package, other]).startswith("Support for domains"), module
    # A document named index still introduces its folder, ahead of the package docstring.
    page = ChildInfo("index.md", False, text="# Domains\n\nHow Sphinx groups directives and roles by language.\n")
    assert brief([package, page]).startswith("How Sphinx groups directives")
    # The entry points of other languages introduce theirs.
    crate = [ChildInfo("lib.rs", False, text="//! Parsing of calendar files into events.\n"), ChildInfo("util.rs", False, text="//! Small helpers shared by the parser.\n")]
    assert brief(crate).startswith("Parsing of calendar files")
    js = [ChildInfo("index.js", False, text="// Date pickers for the booking form.\n"), ChildInfo("util.js", False, text="// Helpers for formatting dates in a locale.\n")]
    assert brief(js).startswith("Date pickers")


LICENCE_HEADERS = {
    "apache": """\
        # Copyright 2024 Example Corp.
        #
        # Licensed under the Apache License, Version 2.0 (the "License");
        # you may not use this file except in compliance with the License.
        # You may obtain a copy of the License at
        #
        #     http://www.apache.org/licenses/LICENSE-2.0
        """,
    "mit-block": """\
        /*
         * (c) 2021 Jane Doe
         * Permission is hereby granted, free of charge, to any person obtaining a copy of this software.
         */
        """,
}


def test_a_licence_header_is_neither_a_files_lead_nor_its_folders_key_terms(ov, tmp_path):
    files = {}
    for topic in ("invoices", "refunds", "taxes"):
        files[f"{topic}.py"] = textwrap.dedent(LICENCE_HEADERS["apache"]) + f"\n# Computes {topic} for customer accounts at month end.\n\ndef run():\n    pass\n"
        files[f"{topic}.js"] = textwrap.dedent(LICENCE_HEADERS["mit-block"]) + f"// Shows {topic} in the billing dashboard.\nexport function show() {{}}\n"
    abstract, overview = added_layers(ov, tmp_path / "billing", files)
    entries = contents(overview)
    assert entries["refunds.py"].startswith("Computes refunds for customer accounts"), entries
    assert entries["taxes.js"].startswith("Shows taxes in the billing dashboard"), entries
    terms = key_terms_line(overview).lower()
    assert terms and not re.search(r"licen|copyright|apache|permission|corp|charge", terms), terms
    assert "licen" not in abstract.lower()
    # Words above the notice in the same comment are the file's own description.
    facts = file_facts("deploy.sh", "#!/bin/sh\n# Pushes the built site to the bucket.\n#\n# Copyright (c) 2020 Foo\n# MIT licence\necho hi\n")
    assert facts.lead == "Pushes the built site to the bucket."


@pytest.mark.parametrize(
    "notes, function_words",
    [
        (["Le service de paiement envoie les factures aux clients chaque mois.",
          "Les factures sont archivées dans le stockage pendant une année, avec leur reçu."],
         {"les", "aux", "sont", "dans", "avec", "leur", "une", "chaque"}),
        (["Los informes se generan cada noche para los equipos de ventas.",
          "Los equipos reciben los informes por correo, y también desde el portal."],
         {"los", "cada", "para", "por", "también", "desde"}),
        (["De back-up van het archief wordt elke nacht gemaakt door de server.",
          "Het archief is voor de beheerders en wordt na een maand verwijderd."],
         {"het", "van", "wordt", "door", "voor", "een"}),
        (["Сервер отправляет отчёты, которые пользователи получают после входа.",
          "Отчёты хранятся на сервере, что удобно для пользователей."],
         {"которые", "после", "что", "для"}),
    ],
)
def test_a_folders_key_terms_in_other_languages_are_no_function_words(notes, function_words):
    children = [ChildInfo(f"note{n}.md", False, text=text) for n, text in enumerate(notes)]
    terms = {t.lower() for t in key_terms(children)}
    assert terms and not terms & function_words
