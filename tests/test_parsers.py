"""Parsers and the heading-aware splitter: names, titles and exact provenance of the pieces."""

from __future__ import annotations

import base64
import codecs
import io
import json
import subprocess
import sys

import pytest

from ov.ingest.charsets import decode_declared
from ov.ingest.model import ParseFailure, Piece, Provenance, SourceFile
from ov.ingest.parsers import detect_format, html_to_markdown, parse_source, rst_headings
from ov.ingest.splitter import scan_markdown, split_markdown
from ov.summaries.facts import file_facts
from ov.tokens import estimate_tokens
from ov.uri import is_valid_segment

BASE = Provenance(kind="file", uri="/docs/handbook.md")
VOCABULARY = "context store ingest layer summary commit retrieval budget section heading token index".split()


def words(tag: str, count: int) -> str:
    """Deterministic filler prose: ``count`` words, about 2.4 tokens each."""
    return " ".join(f"{VOCABULARY[i % len(VOCABULARY)]}{tag}" for i in range(count)) + "."


def source(name: str, data: bytes | str, *, kind: str = "file", content_type: str | None = None) -> SourceFile:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    uri = f"https://example.com/{name}" if kind == "http" else f"/docs/{name}"
    return SourceFile(relpath=name, data=raw, kind=kind, uri=uri, content_type=content_type)


def check_pieces(text: str, pieces: list[Piece]) -> None:
    """Every piece is an exact run of source lines; runs never overlap and cover every non-blank line."""
    lines = text.splitlines(keepends=True)
    covered: set[int] = set()
    for piece in pieces:
        first, last = piece.provenance.lines
        assert piece.text == "".join(lines[first - 1 : last]), piece.relpath
        span = set(range(first, last + 1))
        assert not span & covered, f"{piece.relpath} overlaps another piece"
        covered |= span
        assert all(is_valid_segment(part) for part in piece.relpath.split("/")), piece.relpath
    assert {n for n, line in enumerate(lines, 1) if line.strip()} <= covered
    assert len({p.relpath for p in pieces}) == len(pieces)


def listing(pieces: list[Piece]) -> list[dict]:
    return [{"relpath": p.relpath, "title": p.title, **p.provenance.to_dict()} for p in pieces]


def handbook() -> str:
    """A long document exercising every splitting rule."""
    return "\n".join(
        [
            "---",
            "tags: [ops]",
            "---",
            "# Team Handbook",
            "",
            "How we work. " + words("i", 30),
            "",
            "## Getting started",
            "",
            words("gs", 320),
            "",
            "## Glossary",
            "",
            "A few terms.",
            "",
            "## Contacts",
            "",
            "Ask in the channel.",
            "",
            "## Deploys",
            "",
            "Deploys go through the pipeline.",
            "",
            "### Rollbacks",
            "",
            words("rb", 300),
            "",
            "```bash",
            "# revert the last release",
            "ov snapshot restore HEAD~1",
            "```",
            "",
            "### Canary releases",
            "",
            words("cn", 300),
            "",
            "## Reference",
            "",
            "\n\n".join(words(f"r{k}", 180) for k in range(8)),
            "",
            "Appendix",
            "--------",
            "",
            "Last words.",
            "",
        ]
    )


# -- tokens ---------------------------------------------------------------------------------------


def test_token_estimate_for_ascii_is_a_quarter_of_the_characters():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("x" * 400) == 100
    assert 8 <= estimate_tokens("The quick brown fox jumps over the lazy dog.") <= 14


def test_token_estimate_counts_each_cjk_character_as_a_token():
    assert estimate_tokens("你好世界" * 25) == 100
    assert estimate_tokens("こんにちは") == 5
    assert estimate_tokens("안녕하세요") == 5
    # Mixed text: 4 ideographs + 8 ASCII characters.
    assert estimate_tokens("上下文 and 数") == 4 + 2
    # Other scripts cost more than ASCII per character, less than CJK.
    assert estimate_tokens("Привет") == 3
    assert estimate_tokens("中" * 100) > estimate_tokens("Привет" * 17) > estimate_tokens("x" * 100)


# -- splitter ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a b.md", "a_b.md", "C#.md", "C++.md", "2024-01-15 Meeting notes with the platform team about the migration plan.md"])
def test_a_markdown_document_kept_whole_keeps_its_name(name):
    # (found by an audit: "C#.md" became "C.md", "C++.md" "C_2.md", and "a b.md" took the name of
    # the "a_b.md" beside it, which became "a_b_2.md"; long names were cut at 50 characters)
    (piece,) = split_markdown(name, "# T\n\nshort\n", BASE)
    assert piece.relpath == name


def test_small_markdown_stays_one_piece_with_its_first_h1_as_title():
    text = "Intro line\n\n# Notes on ov\n\nSome text.\n"
    pieces = split_markdown("My Notes.md", text, BASE)
    assert len(pieces) == 1
    (piece,) = pieces
    assert piece.relpath == "My Notes.md"  # kept whole, it keeps its name, as every other file does
    assert piece.title == "Notes on ov"
    assert piece.text == text
    assert piece.provenance == Provenance(kind="file", uri="/docs/handbook.md", lines=(1, 5))


def test_small_markdown_without_h1_is_titled_after_its_stem():
    (piece,) = split_markdown("setup.mdx", "## Step one\n\ntext\n", BASE)
    assert (piece.relpath, piece.title) == ("setup.md", "setup")


def test_long_markdown_splits_by_headings_with_exact_line_ranges(snapshot):
    text = handbook()
    pieces = split_markdown("handbook.md", text, BASE)
    check_pieces(text, pieces)
    assert listing(pieces) == snapshot
    by_name = {p.relpath: p for p in pieces}
    # The front matter, the title and the intro come first, as 00_.
    intro = by_name["handbook/00_Team_Handbook.md"]
    assert intro.provenance.lines == (1, 6) and intro.text.startswith("---\ntags")
    assert by_name["handbook/01_Getting_started.md"].text.startswith("## Getting started\n")


def test_consecutive_tiny_sections_are_merged_into_one_piece():
    pieces = split_markdown("handbook.md", handbook(), BASE)
    merged = [p for p in pieces if p.title == "Glossary; Contacts"]
    assert len(merged) == 1
    assert merged[0].relpath == "handbook/02_Glossary.md"
    assert "## Glossary" in merged[0].text and "## Contacts" in merged[0].text


def test_a_section_over_the_limit_with_subsections_becomes_a_subdirectory():
    pieces = split_markdown("handbook.md", handbook(), BASE)
    nested = [p.relpath for p in pieces if p.relpath.startswith("handbook/03_Deploys/")]
    assert nested == [
        "handbook/03_Deploys/00_Deploys.md",
        "handbook/03_Deploys/01_Rollbacks.md",
        "handbook/03_Deploys/02_Canary_releases.md",
    ]


def test_a_huge_section_without_subheadings_is_cut_between_paragraphs():
    text = handbook()
    pieces = split_markdown("handbook.md", text, BASE)
    parts = [p for p in pieces if "_Reference_part" in p.relpath]
    assert len(parts) >= 2
    assert all(estimate_tokens(p.text) <= 1024 for p in parts)
    lines = text.splitlines()
    for part in parts:
        first, last = part.provenance.lines
        # Cut at a paragraph boundary: a blank line (or the heading) just before, and just after.
        assert first == 1 or not lines[first - 2].strip() or lines[first - 2].startswith("#")
        assert last == len(lines) or not lines[last].strip()


def test_headings_inside_code_fences_are_ignored_and_fences_are_never_cut():
    fence = "\n".join(["```python", *[f"# comment {i}\nvalue_{i} = {i} * 2 + compute(value_{i - 1})" for i in range(150)], "```"])
    tilde = "\n".join(["~~~", "# also not a heading", "~~~"])
    text = f"# Code\n\n## Real section\n\n{words('a', 200)}\n\n{fence}\n\n{tilde}\n\n## Second\n\n{words('b', 400)}\n"
    headings, _ = scan_markdown(text.splitlines(keepends=True))
    assert [h.title for h in headings] == ["Code", "Real section", "Second"]
    pieces = split_markdown("code.md", text, BASE)
    check_pieces(text, pieces)
    assert len(pieces) > 2  # the fenced section is cut into parts, only around the fence
    for piece in pieces:
        assert sum(line.startswith("```") for line in piece.text.splitlines()) % 2 == 0, piece.relpath
        assert not any("comment" in p for p in piece.relpath.split("/"))


def test_headings_inside_html_comments_and_raw_html_blocks_are_not_sections():
    doc = [
        "# Guide", "", "<!--", "## Draft section", "not ready yet", "-->", "",
        "## Real", "", "<!-- a one-line comment -->", "## Also real", "",
        "<pre>", "## shown as is", "</pre>", "", "<script>", "# not a heading", "</script>",
        "<!-- opens", "Draft", "=====", "closes --> text", "", "## Last", "", "```", "## in a fence", "```", "",
    ]  # fmt: skip
    text = "\n".join(doc)
    lines = text.splitlines(keepends=True)
    headings, cut_ok = scan_markdown(lines)
    assert [h.title for h in headings] == ["Guide", "Real", "Also real", "Last"]
    assert not any(cut_ok[3:6]) and not any(cut_ok[20:23])  # a piece never starts inside a comment
    # Split: the commented-out section is no piece and no title, wherever the document is cut.
    long = text.replace("## Real", "## Real\n\n" + words("r", 600)).replace("## Last", "## Last\n\n" + words("l", 600))
    pieces = split_markdown("guide.md", long, BASE)
    check_pieces(long, pieces)
    names = {p.relpath.split("/")[1].split("_part")[0].removesuffix(".md") for p in pieces}
    assert names == {"00_Guide", "01_Real", "02_Also_real", "03_Last"}
    assert not any("Draft" in p.title or "shown" in p.title for p in pieces)


def test_setext_headings_are_recognised():
    text = "Guide\n=====\n\nIntro.\n\nInstall\n-------\n\ntext\n\n- item\n---\n\nUsage\n-----\nuse it\n"
    headings, _ = scan_markdown(text.splitlines(keepends=True))
    assert [(h.level, h.title, h.start, h.end) for h in headings] == [
        (1, "Guide", 0, 1),
        (2, "Install", 5, 6),
        (2, "Usage", 13, 14),
    ]
    long_text = text.replace("text\n", words("s", 350) + "\n").replace("Intro.", words("t", 300))
    pieces = split_markdown("guide.md", long_text, BASE)
    assert [p.relpath for p in pieces] == ["guide/00_Guide.md", "guide/01_Install.md", "guide/02_Usage.md"]
    check_pieces(long_text, pieces)


def test_heading_markup_is_dropped_from_titles_and_names():
    text = "## [Install](#install) `pip` **now**\n\n## The `__init__` file {#init}\n\n### C#\n"
    headings, _ = scan_markdown(text.splitlines(keepends=True))
    assert [h.title for h in headings] == ["Install pip now", "The __init__ file", "C#"]


def test_cjk_headings_become_valid_names():
    sections = ["安装指南", "快速开始：配置 / 部署", "よくある質問", "설치 방법"]
    text = "# 用户手册\n\n" + "\n\n".join(f"## {title}\n\n" + "上下文数据库" * 120 for title in sections) + "\n"
    pieces = split_markdown("手册.md", text, BASE)
    assert [p.relpath for p in pieces] == [
        "手册/01_安装指南.md",
        "手册/02_快速开始_配置_部署.md",
        "手册/03_よくある質問.md",
        "手册/04_설치_방법.md",
    ]
    assert pieces[1].title == "快速开始：配置 / 部署"
    check_pieces(text, pieces)


def test_splitting_is_deterministic():
    text = handbook()
    first = split_markdown("handbook.md", text, BASE)
    assert first == split_markdown("handbook.md", text, BASE)
    assert first == split_markdown("handbook.md", "".join(text), BASE)


def test_a_long_document_without_headings_is_cut_into_numbered_parts_named_by_their_first_words():
    text = "\n\n".join(words(f"p{k}", 200) for k in range(12)) + "\n"
    pieces = split_markdown("notes.txt.md", text, BASE)
    assert [p.relpath for p in pieces][:2] == ["notes.txt/01_contextp0_storep0_ingestp0_layerp0.md", "notes.txt/02_contextp2_storep2_ingestp2_layerp2.md"]
    assert pieces[0].title == f"notes.txt (part 1 of {len(pieces)})"
    check_pieces(text, pieces)


def test_a_tight_list_too_long_for_one_piece_is_cut_between_items_then_sentences():
    """A list without blank lines between its items is one paragraph; it is cut before an item
    (never inside one), an item too long alone after a line that ends a sentence."""
    items = [f"- **Rule {i}.** {words(f'r{i}', 14)[:-1]}\n  {words(f's{i}', 14)[:-1]}\n  {words(f't{i}', 14)}" for i in range(40)]
    huge = "- **Huge rule.** " + "\n  ".join(words(f"h{k}", 30) for k in range(40))  # one item of 40 sentences
    text = "# Release handbook\n\nThis handbook explains how we ship releases.\n\n" + "\n".join([*items, huge]) + "\n"
    lines = text.splitlines()
    pieces = split_markdown("handbook.md", text, BASE)
    check_pieces(text, pieces)
    assert len(pieces) > 4
    names = [p.relpath.split("/")[1] for p in pieces]
    assert names[0] == "01_Release_handbook.md" and names[1].startswith("02_Rule_")  # its first heading, else its first words
    huge_at = next(n for n, line in enumerate(lines, 1) if line.startswith("- **Huge"))
    for piece in pieces[1:]:
        first, _last = piece.provenance.lines
        start = lines[first - 1]
        # Each piece starts at an item, or inside the huge item right after a sentence.
        assert start.startswith(("- **Rule", "- **Huge")) or (first > huge_at and lines[first - 2].endswith(".")), start


@pytest.mark.parametrize("seed", range(40))
def test_random_documents_keep_the_piece_invariants(seed):
    import random

    rng = random.Random(seed)
    blocks = []
    for _ in range(rng.randint(5, 50)):
        roll = rng.random()
        if roll < 0.3:
            blocks.append("#" * rng.randint(1, 4) + " " + rng.choice(["Alpha", "Beta", "安装", "C# tips", "`x`", ""]))
        elif roll < 0.35:
            blocks.append(rng.choice(["Title", "Some para"]) + "\n" + rng.choice(["===", "---"]))
        elif roll < 0.45:
            body = "\n".join(rng.choice(["# inside", "", "code " * rng.randint(1, 40)]) for _ in range(rng.randint(0, 60)))
            blocks.append(f"```\n{body}\n```")
        else:
            blocks.append(words(str(rng.randint(0, 9)), rng.randint(1, 400)))
    text = rng.choice(["\n\n", "\r\n\r\n"]).join(blocks) + "\n"
    limits = rng.choice([{}, {"single_max_tokens": 200, "merge_below_tokens": 100}])
    pieces = split_markdown("doc.md", text, BASE, **limits)
    check_pieces(text, pieces)
    paths = {p.relpath for p in pieces}
    assert not any(path.rsplit("/", k)[0] in paths for path in paths for k in (1, 2) if path.count("/") >= k)
    assert pieces == split_markdown("doc.md", text, BASE, **limits)


def test_a_section_with_only_a_heading_joins_the_next_one():
    text = f"# Book\n\n## Part I\n\n## Chapter 1\n\n{words('a', 300)}\n\n## Chapter 2\n\n{words('b', 300)}\n\n## Loose end\n"
    pieces = split_markdown("book.md", text, BASE)
    assert [(p.relpath, p.provenance.lines) for p in pieces] == [
        ("book/01_Chapter_1.md", (1, 7)),
        ("book/02_Chapter_2.md", (9, 13)),
    ]
    check_pieces(text, pieces)


def test_thresholds_are_parameters():
    text = "# T\n\n## A\n\nalpha text here\n\n## B\n\nbeta text here\n"
    assert len(split_markdown("t.md", text, BASE)) == 1
    pieces = split_markdown("t.md", text, BASE, single_max_tokens=8, merge_below_tokens=1)
    assert [p.relpath for p in pieces] == ["t/01_A.md", "t/02_B.md"]
    assert pieces[0].provenance.lines == (1, 5)  # the bare title heading joins the first section


# -- reStructuredText ---------------------------------------------------------------------------------


RST = """\
==========
 User Guide
==========

Intro paragraph.

Installation
============

Run the installer::

  # not a heading, a literal block
  pip install ov

Options
-------

Some options.

Usage
=====

Use it.
"""


def test_rst_titles_become_markdown_headings_line_for_line():
    lines, headings = rst_headings(RST.splitlines(keepends=True))
    assert len(lines) == len(RST.splitlines())
    assert [(h.start + 1, h.level, h.title) for h in headings] == [
        (2, 1, "User Guide"),
        (7, 2, "Installation"),
        (15, 3, "Options"),
        (20, 2, "Usage"),
    ]
    assert lines[1] == "# User Guide\n" and lines[6] == "## Installation\n" and lines[7] == "\n"
    assert lines[11] == "  # not a heading, a literal block\n"


def test_rst_parses_into_markdown_pieces_with_source_line_ranges():
    (piece,) = parse_source(source("guide.rst", RST))
    assert (piece.relpath, piece.title) == ("guide.md", "User Guide")
    assert piece.provenance.lines == (1, 23)
    long_rst = RST.replace("Some options.", words("o", 350)).replace("Use it.", words("u", 350))
    pieces = parse_source(source("guide.rst", long_rst))
    assert [p.relpath for p in pieces] == ["guide/00_User_Guide.md", "guide/01_Installation.md", "guide/02_Usage.md"]
    usage = pieces[-1]
    assert usage.text.startswith("## Usage\n") and usage.provenance.lines == (20, 23)


# -- HTML ------------------------------------------------------------------------------------------------


PAGE = """<!DOCTYPE html>
<html><head><title>Deploy Guide | Example</title>
<script>window.secretTracker = "SCRIPT TEXT";</script><style>.x { color: red }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/blog">Blog</a></nav>
<h1>Deploy Guide</h1>
<p>Read the <a href="/docs/setup">setup notes</a> and the <a href="https://other.org/x">spec</a>.</p>
<h2>Build</h2>
<p>Run <code>make build</code> to build_all targets.</p>
<pre><code class="language-bash"># build it
make build</code></pre>
<h2>Ship</h2>
<ul><li>tag the release</li><li>push the tag</li></ul>
<!-- a comment that is not content -->
<noscript>Enable JavaScript</noscript>
</body></html>
"""


def test_html_becomes_markdown_without_scripts_with_links():
    markdown, title = html_to_markdown(PAGE, base_url="https://example.com/guides/deploy.html")
    assert title == "Deploy Guide | Example"
    assert markdown.startswith("# Deploy Guide\n")
    assert "\n## Build\n" in markdown and "\n## Ship\n" in markdown
    assert "[setup notes](https://example.com/docs/setup)" in markdown
    assert "[spec](https://other.org/x)" in markdown
    assert "```bash\n# build it\nmake build\n```" in markdown
    assert "build_all" in markdown and "- tag the release" in markdown
    for noise in ("SCRIPT TEXT", "color: red", "Blog", "not content", "Enable JavaScript"):
        assert noise not in markdown


def test_html_page_parses_into_md_pieces(snapshot):
    build = "".join(f"<p>{words(f'b{k}', 100)}</p>" for k in range(3))
    ship = "".join(f"<p>{words(f's{k}', 100)}</p>" for k in range(5))
    page = PAGE.replace("<h2>Ship</h2>", f"{build}<h2>Ship</h2>").replace("</ul>", f"</ul>{ship}")
    pieces = parse_source(source("deploy.html", page, kind="http", content_type="text/html"))
    assert all(p.relpath.endswith(".md") for p in pieces)
    assert pieces[0].title == "Deploy Guide"  # the first piece is the H1 section; the page title names the document
    markdown, _ = html_to_markdown(page, base_url="https://example.com/deploy.html")
    check_pieces(markdown, pieces)
    assert listing(pieces) == snapshot


def test_html_without_h1_gets_its_title_as_heading():
    (piece,) = parse_source(source("page.htm", "<html><head><title>Just a title</title></head><body><p>Body.</p></body></html>"))
    assert piece.relpath == "page.md" and piece.title == "Just a title"
    assert piece.text == "# Just a title\n\nBody.\n"


def test_format_detection_prefers_real_content_over_names():
    html = b"<!doctype html><html><head><title>README</title></head><body><h1>Readme</h1></body></html>"
    assert detect_format(source("README.md", html, kind="http", content_type="text/html")) == "html"
    assert detect_format(source("README.md", "# Raw\n", kind="http", content_type="text/html")) == "markdown"
    assert detect_format(source("page", html, kind="http")) == "html"
    assert detect_format(source("report.bin", b"%PDF-1.7 ...")) == "pdf"
    assert detect_format(source("notes", "plain words")) == "text"
    assert detect_format(source("doc", "# Title", kind="http", content_type="text/markdown")) == "markdown"


def test_html_in_a_declared_charset_is_decoded():
    page = '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>Cr\xe8me</p></body></html>'
    (piece,) = parse_source(source("cafe.html", page.encode("latin-1")))
    assert piece.title == "Café" and "Crème" in piece.text


def test_a_declared_latin1_page_is_read_as_windows_1252_as_browsers_read_it():
    page = "<html><head><meta charset='iso-8859-1'></head><body><p>\u201cCaf\xe9\u201d, 5 \u20ac \u2014 ok</p></body></html>"
    (piece,) = parse_source(source("menu.html", page.encode("cp1252")))
    assert "\u201cCafé\u201d, 5 € \u2014 ok" in piece.text
    # Bytes windows-1252 leaves undefined are the C1 controls of their number, as in a browser.
    assert "\x81" in decode_declared(b"a\x81b", ["latin1"])
    assert decode_declared(b"\xe9", ["rot13", "no-such-charset", "us-ascii"]) == "é"  # a label that is no charset is passed over


@pytest.mark.parametrize("content_type, meta, expected", [
    ("text/html; charset=ISO-8859-1", "", "Café crème, 5 €"),  # only the HTTP header says it
    ("text/html; charset=windows-1251", "<meta charset='iso-8859-1'>", "Кафе"),  # the header before the meta
    ("text/html", "<meta http-equiv='Content-Type' content='text/html; charset=windows-1251'>", "Кафе"),
])
def test_a_web_page_is_read_in_the_charset_its_header_or_meta_declares(content_type, meta, expected):
    body = "Кафе" if "1251" in content_type + meta else "Café crème, 5 €"
    page = f"<html><head>{meta}</head><body><p>{body}</p></body></html>".encode("cp1251" if body == "Кафе" else "cp1252")
    (piece,) = parse_source(source("page.html", page, kind="http", content_type=content_type))
    assert expected in piece.text


def test_a_byte_order_mark_wins_over_a_declared_charset():
    page = "<html><head><meta charset='iso-8859-1'></head><body><p>Café</p></body></html>"
    (piece,) = parse_source(source("page.html", codecs.BOM_UTF8 + page.encode(), kind="http", content_type="text/html; charset=iso-8859-1"))
    assert "Café" in piece.text
    # After a UTF-8 mark, bytes that are not UTF-8 are a failure, not another charset's text.
    with pytest.raises(ParseFailure, match="not UTF-8"):
        parse_source(source("bad.html", codecs.BOM_UTF8 + page.encode("latin-1"), kind="http", content_type="text/html; charset=iso-8859-1"))
    # A plain-text page may declare its charset only in the header too.
    (text,) = parse_source(source("notes.txt", "Caf\xe9 5 \u20ac".encode("cp1252"), kind="http", content_type="text/plain; charset=latin1"))
    assert text.text == "Café 5 €"


# -- PDF -------------------------------------------------------------------------------------------------


def make_pdf(pages: list[list[str]], outline=(), user_password=None, owner_password=None) -> bytes:
    """A PDF whose pages show the given lines in Helvetica; outline entries are (title, page, children)."""
    from pypdf import PdfWriter
    from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

    writer = PdfWriter()
    helvetica = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        shown = " T* ".join(f"({line}) Tj" for line in lines)
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 9 Tf 40 760 Td 11 TL {shown} ET".encode("ascii"))
        page.replace_contents(stream)
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): helvetica})})

    def add(items, parent=None):
        for title, page_number, children in items:
            add(children, writer.add_outline_item(title=title, page_number=page_number, parent=parent))

    add(outline)
    if user_password is not None:
        writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="RC4-128")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def page_lines(tag: str, count: int = 40) -> list[str]:
    """About 700 tokens of text for one page."""
    return [f"{tag} line {i} " + " ".join(VOCABULARY[(i + k) % len(VOCABULARY)] for k in range(9)) for i in range(count)]


def test_generated_pdf_text_reads_back():
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(make_pdf([["Hello PDF", "second line"]])))
    assert reader.pages[0].extract_text().splitlines() == ["Hello PDF", "second line"]


def test_pdf_outline_gives_sections_with_page_ranges():
    pages = [page_lines(f"p{n}") for n in range(1, 8)]
    pages[6] = []  # a page without text
    outline = [
        ("Introduction", 0, []),
        ("Architecture", 1, [("Storage", 1, []), ("Indexing", 2, []), ("Retrieval", 3, [])]),
        ("Appendix", 4, []),
    ]
    pieces = parse_source(source("design.pdf", make_pdf(pages, outline)))
    assert [(p.relpath, p.title, p.provenance.pages) for p in pieces] == [
        ("design/01_Introduction.md", "Introduction", (1, 1)),
        ("design/02_Architecture/01_Storage.md", "Storage", (2, 2)),
        ("design/02_Architecture/02_Indexing.md", "Indexing", (3, 3)),
        ("design/02_Architecture/03_Retrieval.md", "Retrieval", (4, 4)),
        ("design/03_Appendix_part1.md", "Appendix (part 1 of 2)", (5, 5)),
        ("design/03_Appendix_part2.md", "Appendix (part 2 of 2)", (6, 7)),
    ]
    assert all(p.provenance.lines is None and p.provenance.uri == "/docs/design.pdf" for p in pieces)
    intro = pieces[0].text
    assert intro.startswith("# design\n\n## Introduction\n\n<!-- page 1 -->\np1 line 0 ")
    assert "## Architecture\n\n### Storage\n" in pieces[1].text
    assert "<!-- page 7 -->\n_(no extractable text on this page)_" in pieces[-1].text


def test_pdf_pages_before_the_first_bookmark_come_first():
    data = make_pdf([page_lines("cover"), page_lines("one"), page_lines("two")], [("One", 1, []), ("Two", 2, [])])
    pieces = parse_source(source("spec.pdf", data))
    assert [(p.relpath, p.title, p.provenance.pages) for p in pieces] == [
        ("spec/00_spec.md", "spec", (1, 1)),
        ("spec/01_One.md", "One", (2, 2)),
        ("spec/02_Two.md", "Two", (3, 3)),
    ]


def test_short_pdf_with_an_outline_stays_one_piece_with_its_headings():
    (piece,) = parse_source(source("s.pdf", make_pdf([["cover page"], ["chapter one text"]], [("One", 1, [])])))
    assert (piece.relpath, piece.provenance.pages) == ("s.md", (1, 2))
    assert piece.text == "# s\n\n<!-- page 1 -->\ncover page\n\n## One\n\n<!-- page 2 -->\nchapter one text\n"


def test_short_pdf_without_outline_stays_one_piece():
    (piece,) = parse_source(source("memo.pdf", make_pdf([["# of items: 3", "Memo body"], ["Page two"]])))
    assert (piece.relpath, piece.title, piece.provenance.pages) == ("memo.md", "memo", (1, 2))
    assert piece.text == "# memo\n\n<!-- page 1 -->\n\\# of items: 3\nMemo body\n\n<!-- page 2 -->\nPage two\n"


def test_long_pdf_without_outline_is_grouped_by_pages():
    pieces = parse_source(source("book.pdf", make_pdf([page_lines(f"p{n}", 25) for n in range(1, 6)])))
    assert [(p.relpath, p.provenance.pages) for p in pieces] == [
        ("book/pages_01-02.md", (1, 2)),
        ("book/pages_03-04.md", (3, 4)),
        ("book/pages_05.md", (5, 5)),
    ]
    assert pieces[0].title == "book, pages 1-2" and pieces[0].text.startswith("# book, pages 1-2\n\n<!-- page 1 -->\n")


def test_encrypted_pdf_is_a_parse_failure():
    data = make_pdf([["Secret plans"]], user_password="hunter2", owner_password="owner")
    with pytest.raises(ParseFailure) as info:
        parse_source(source("secret.pdf", data))
    assert (info.value.path, info.value.reason) == ("secret.pdf", "encrypted PDF")


def test_pdf_encrypted_only_with_an_owner_password_is_read():
    data = make_pdf([["Open to all readers"]], user_password="", owner_password="owner")
    (piece,) = parse_source(source("open.pdf", data))
    assert "Open to all readers" in piece.text


@pytest.mark.parametrize(
    "mangle",
    [lambda d: d[: len(d) // 2], lambda d: d[:40], lambda d: b"%PDF-1.7\n" + b"\x8f garbage \x00" * 50, lambda d: b"not a pdf at all"],
    ids=["truncated", "header-only", "garbage", "not-pdf"],
)
def test_corrupt_pdf_is_a_parse_failure(mangle):
    data = mangle(make_pdf([page_lines("x")] * 3, [("A", 0, [])]))
    with pytest.raises(ParseFailure) as info:
        parse_source(source("broken.pdf", data))
    assert info.value.reason.startswith("corrupt PDF: ")


def test_pdf_without_any_text_is_a_parse_failure():
    with pytest.raises(ParseFailure, match="no extractable text"):
        parse_source(source("scan.pdf", make_pdf([[], []])))


# -- verbatim text -------------------------------------------------------------------------------------------


def test_non_utf8_text_is_a_parse_failure():
    for name, data in [("notes.txt", "caf\xe9".encode("latin-1")), ("guide.md", b"# T\n\xff\xfe"), ("x.py", "hé".encode("utf-16-le"))]:
        with pytest.raises(ParseFailure) as info:
            parse_source(source(name, data))
        assert info.value.path == name and info.value.reason.startswith("not UTF-8 text")
    # UTF-16 that says so with its byte-order mark is text
    (piece,) = parse_source(source("x.py", "hé = 1\n".encode("utf-16")))
    assert piece.text == "hé = 1\n"


def test_code_and_data_files_are_kept_verbatim_under_their_own_name():
    code = "# a comment, not a heading\n" + "".join(f"def f{i}():\n    return {i}\n\n" for i in range(400))
    assert estimate_tokens(code) > 2048
    (piece,) = parse_source(source("pkg/tool_main.py", code))
    assert (piece.relpath, piece.title, piece.text) == ("tool_main.py", "tool_main.py", code)
    assert piece.provenance == Provenance(kind="file", uri="/docs/pkg/tool_main.py", lines=(1, 1201))
    data = json.dumps({"a": [1, 2, 3], "title": "# not a heading"}, indent=2)
    (piece,) = parse_source(source("config.json", "\ufeff" + data))
    assert (piece.relpath, piece.text) == ("config.json", data)
    for name in ("Makefile", "notes.txt", "settings.ini", "schema.sql", "values.yaml"):
        (piece,) = parse_source(source(name, "line one\r\nline two\r\n"))
        assert (piece.relpath, piece.text, piece.provenance.lines) == (name, "line one\r\nline two\r\n", (1, 2))


def test_empty_text_file_is_one_empty_piece():
    (piece,) = parse_source(source("__init__.py", b""))
    assert (piece.relpath, piece.text, piece.provenance.lines) == ("__init__.py", "", None)


def test_importing_parsers_loads_no_heavy_module():
    probe = "import sys, ov.ingest.parsers; print(sorted(m for m in ('pypdf', 'markdownify', 'bs4') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# --- hostile and awkward input ----------------------------------------------------------------


@pytest.mark.parametrize("depth", [150, 5_000, 50_000])
def test_deeply_nested_html_converts_and_keeps_its_text(depth: int) -> None:
    # (found as a bug: markdownify recursed once per level; 50,000 <div>s hit RecursionError)
    html = "<html><body><h1>Top</h1><p>First <b>bold</b>.</p>" + "<div>" * depth + "<p>innermost <i>words</i></p>" + "</div>" * depth + "</body></html>"
    markdown, title = html_to_markdown(html)
    assert title == "Top"
    assert "**bold**" in markdown  # shallow content keeps its markup
    assert "innermost words" in markdown


def test_a_standalone_document_is_not_nested_under_its_own_name() -> None:
    text = "# Guide\n\n## One\n" + words("a", 800) + "\n\n## Two\n" + words("b", 800) + "\n"
    in_folder = parse_source(source("guide.md", text))
    alone = parse_source(SourceFile("guide.md", text.encode(), "file", "/docs/guide.md", standalone=True))
    assert len(in_folder) > 1 and all(p.relpath.startswith("guide/") for p in in_folder)
    assert [p.relpath for p in alone] == [p.relpath.removeprefix("guide/") for p in in_folder]
    short = parse_source(SourceFile("note.md", b"# Note\nshort\n", "file", "/docs/note.md", standalone=True))
    assert [p.relpath for p in short] == ["note.md"]


@pytest.mark.parametrize(
    "data, binary",
    [
        (b"plain text\n", False),
        ("部署".encode() * 5000, False),
        ("caf\u00e9 ".encode("latin-1") + b"a" * 20_000, False),  # text in another encoding, not binary data
        (b"a" * 20_000 + " caf\u00e9".encode("latin-1"), False),
        ("設定ファイル".encode("shift_jis"), False),
        (b"\x1b[32mok\x1b[0m \xe9\tdone\r\n\x0c\x08", False),  # escape, form feed, backspace: text's own controls
        (b"text\x00", True),
        (b"a" * 20_000 + b"\x00", True),  # a NUL byte anywhere
        (bytes(range(1, 256)) * 4, True),  # undecodable, and a tenth of it control characters
        (b"\x89PNG\r\n\x1a\n" + b"\x01\x02\x03\x04\xff\xfe" * 4, True),
        ("é".encode() + b"\x01" * 100, False),  # UTF-8 is text whatever controls it holds (as before)
    ],
)
def test_binary_data_is_a_nul_byte_or_bytes_that_are_neither_utf8_nor_text(data: bytes, binary: bool) -> None:
    from ov.files import binary_data, looks_binary

    assert binary_data(data) is binary
    if not binary:  # what ingest calls text may still be what the store refuses: not UTF-8
        decodes = True
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            decodes = False
        assert looks_binary(data) is not decodes


@pytest.mark.parametrize(
    "url, ctype, name",
    [
        ("http://127.0.0.1:8080/", "text/html", "127.0.0.1_8080.html"),
        ("https://example.com/", "text/html", "example.com.html"),
        ("https://example.com", "application/pdf", "example.com.pdf"),
        ("https://example.com/docs/auth.html", "text/html", "auth.html"),
        ("https://example.com/docs/", "text/markdown", "docs.md"),
    ],
)
def test_url_names(url: str, ctype: str, name: str) -> None:
    from ov.ingest.sources import _stem_name, _url_name

    assert _url_name(url, ctype) == name
    assert _stem_name(name) == name.rsplit(".", 1)[0]


@pytest.mark.parametrize(
    "url, name, root",
    [
        # (found as a bug: the page was stored as viking://resources/caf_C3_A9_20menu)
        ("http://127.0.0.1:8080/caf%C3%A9%20menu.html", "café menu.html", "café_menu"),
        ("https://example.com/a%2Fb.md", "a_b.md", "a_b"),  # an escaped slash is no folder
        ("https://example.com/docs/r%C3%A9sum%C3%A9/", "résumé.html", "résumé"),
        ("https://example.com/%ZZ.html", "%ZZ.html", "ZZ"),  # not an escape: kept, then sanitised
    ],
)
def test_url_names_are_unescaped(url: str, name: str, root: str) -> None:
    from ov.ingest.sources import _stem_name, _url_name

    assert _url_name(url, "text/html") == name
    assert _stem_name(name) == root


BADGED_RST = """\
======
 Proj
======

.. image:: https://img.shields.io/pypi/v/proj.svg
   :target: https://pypi.org/project/proj/
   :alt: Package on PyPI

|build| |docs|

.. rst-class:: hide-header

Proj turns invoices into ledger entries.

.. note:: Run it on a copy
   of the ledger first.

.. toctree::
   :maxdepth: 2

   intro
   install

.. code-block:: python
   :linenos:

   import proj
   proj.run()

.. _install:

.. |docs| image:: https://readthedocs.org/projects/proj/badge/
   :target: https://proj.readthedocs.io
"""


def test_rst_directives_become_the_prose_or_code_they_show_line_for_line():
    (piece,) = parse_source(source("README.rst", BADGED_RST))
    text = piece.text
    assert len(text.splitlines()) == len(BADGED_RST.splitlines()) and piece.provenance.lines == (1, len(BADGED_RST.splitlines()))
    for markup in ("image::", ":target:", ":alt:", "rst-class", "toctree", ":maxdepth:", "|build|", "_install:", "shields.io", "intro\n"):
        assert markup not in text, markup
    lines = text.splitlines()
    assert lines[12] == "Proj turns invoices into ledger entries."  # line 13 of the source, where it was
    assert "Run it on a copy\nof the ledger first." in text  # an admonition keeps its text
    assert "```python\n\n\nimport proj\nproj.run()\n```" in text
    # What a summary takes for the document's introduction is its first paragraph of prose.
    assert file_facts("README.md", text).lead == "Proj turns invoices into ledger entries."
    # A directive without arguments starts its content on its marker line (sphinx's doc/index.rst).
    (tagline,) = parse_source(source("index.rst", ".. cssclass:: tagline\n.. epigraph:: Create documentation with ease\n\n.. container:: features\n\n   Text.\n"))
    assert file_facts("index.md", tagline.text).lead == "Create documentation with ease."
    assert "container" not in tagline.text and "   Text." not in tagline.text and "\nText.\n" in tagline.text


CODE_RST = """\
Guide
=====

.. code-block:: bash

   pip install foo

Install
-------

Run the installer::

  ./install.sh

- An item with a literal block::

    make all
    ```

  The item goes on.

- An item with code that looks like a title

  .. code:: rst

     Inner
     =====

Plain ::

    x = 1

::

    lone

Usage
-----

End.
"""


def test_rst_code_blocks_of_any_length_are_fenced_and_closed_and_never_titles():
    lines = CODE_RST.splitlines()
    (piece,) = parse_source(source("guide.rst", CODE_RST))
    text = piece.text.splitlines()
    assert len(text) == len(lines)  # line for line: line n is still line n of the source
    # Only the document's own titles became headings; no code line did.
    assert [line for line in text if line.startswith("#")] == ["# Guide", "## Install", "## Usage"]
    assert text[3:7] == ["```bash", "", "pip install foo", "```"]  # a one-line block closes on the blank line after it
    assert text[10:14] == ["Run the installer:", "```", "./install.sh", "```"]  # `::` shows as `:`
    # In a list item the fence sits at the item's text; a fence inside the code makes the fence longer.
    assert text[14:20] == ["- An item with a literal block:", "  ````", "  make all", "  ```", "  ````", "  The item goes on."]
    assert text[21:28] == ["- An item with code that looks like a title", "", "  ```rst", "", "  Inner", "  =====", "  ```"]
    assert text[28:32] == ["Plain", "```", "x = 1", "```"]  # "Plain ::" shows as "Plain"
    assert text[32:36] == ["", "```", "lone", "```"]  # a lone `::` shows as nothing
    # Read back as Markdown, every fence closes: the last heading is outside code, like the first.
    headings, _ = scan_markdown(piece.text.splitlines(keepends=True))
    assert [h.title for h in headings] == ["Guide", "Install", "Usage"]


def test_a_notebook_is_stored_as_its_cells_and_text_outputs_never_its_images():
    png = base64.b64encode(bytes(range(256)) * 400).decode()
    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Customer churn analysis\n", "\n", "We model churn from support tickets."]},
            {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["df = load()\n", "df.plot()"],
             "outputs": [
                 {"output_type": "stream", "name": "stdout", "text": [f"row {i}\n" for i in range(50)]},
                 {"output_type": "display_data", "metadata": {}, "data": {"image/png": png, "text/plain": ["<Figure size 640x480>"]}},
             ]},
            {"cell_type": "code", "metadata": {}, "source": "1 / 0", "outputs": [{"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero", "traceback": []}]},
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }  # fmt: skip
    (piece,) = parse_source(source("churn.ipynb", json.dumps(notebook, indent=1)))
    assert (piece.relpath, piece.title) == ("churn.md", "Customer churn analysis")
    text = piece.text
    assert png[:200] not in text and "image/png" not in text and len(text) < 2000
    assert "```python\ndf = load()\ndf.plot()\n```" in text
    assert "row 0\n" in text and "row 19\n" in text and "row 20\n" not in text and "(30 more lines)" in text
    assert "<Figure size 640x480>" in text and "ZeroDivisionError: division by zero" in text
    assert file_facts("churn.md", text).lead == "We model churn from support tickets."
    # JSON that is not a notebook is kept as it is.
    (kept,) = parse_source(source("data.ipynb", '{"rows": [1, 2]}'))
    assert (kept.relpath, kept.text) == ("data.ipynb", '{"rows": [1, 2]}')
