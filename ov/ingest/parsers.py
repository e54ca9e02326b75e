"""Parsers: one source document in, the pieces ingest writes out.

The format comes from the file name, then the HTTP content type, then the
bytes themselves (see :func:`detect_format`):

* Markdown is split by headings (:mod:`ov.ingest.splitter`).
* reStructuredText gets Markdown headings in place of its underlined titles and
  its directives as the prose or code they show (:mod:`ov.ingest.rst`), one line
  for one line, so line ranges still refer to the ``.rst`` source; it is split
  the same way; everything else in it is kept as is.
* HTML becomes Markdown (``markdownify``) and is split; its line ranges refer
  to that Markdown, since the HTML source has no useful line structure.
* A Jupyter notebook becomes Markdown: its cells' text and code, its outputs' text, never
  their images (:mod:`ov.ingest.notebook`); line ranges refer to that Markdown.
* PDF text is extracted per page; an outline (bookmarks) gives the sections,
  otherwise pages are grouped by size. Ranges are pages.
* Everything else that is UTF-8 text (plain text, code, data, config) is kept
  verbatim as one piece under its own name: code and data are never split.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable, Collection
from dataclasses import replace
from pathlib import PurePosixPath

from ov.files import wide_text
from ov.ingest.charsets import declared_charsets, decode_declared
from ov.ingest.formats import HTML_EXTENSIONS, MARKDOWN_EXTENSIONS, NOTEBOOK_EXTENSIONS, PDF_EXTENSIONS, RST_EXTENSIONS
from ov.ingest.model import ParseFailure, Piece, Provenance, SourceFile
from ov.ingest.rst import rst_directives
from ov.ingest.splitter import SINGLE_MAX_TOKENS, Heading, scan_markdown, split_lines, split_markdown
from ov.lines import count_lines, lines_of
from ov.tokens import estimate_tokens
from ov.uri import sanitize_segment, segment_name

__all__ = ["detect_format", "html_to_markdown", "parse_source", "rst_headings"]

# Kept verbatim. Unknown extensions are verbatim too when they decode as UTF-8;
# this list only decides that an HTML content type must not override them
# unless the bytes really are HTML.
TEXT_EXTENSIONS = frozenset(
    ".txt .text .log .tex .org .adoc .asciidoc "
    ".py .pyi .js .mjs .cjs .jsx .ts .tsx .go .rs .java .kt .kts .scala .groovy .c .h .cc .cpp .cxx .hpp "
    ".hh .cs .fs .rb .php .pl .pm .lua .r .jl .swift .m .mm .dart .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .el "
    ".lisp .scm .zig .nim .v .sv .vhd .sh .bash .zsh .fish .ps1 .bat .cmd .sql .graphql .proto .vue .svelte "
    ".css .scss .sass .less .vim .tf .hcl .nix .cmake .mk .gradle .dockerfile "
    ".json .jsonl .ndjson .json5 .yaml .yml .toml .csv .tsv .xml .ini .cfg .conf .properties .env .lock".split()
)
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
RST_TYPES = frozenset({"text/x-rst", "text/prs.fallenstein.rst"})
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})

_HTML_SNIFF_RE = re.compile(
    rb"\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body|title|meta)\b", re.I | re.S
)
_LINE_END = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def parse_source(src: SourceFile, *, clean: Callable[[str], str] | None = None) -> list[Piece]:
    """Parse one document into pieces; raises :class:`ParseFailure` for what cannot be read.

    ``clean`` is applied to text a PDF yields (each page's text, its outline's titles and its
    title) before it is split: the titles name the files, so what it removes must be gone by then.
    Text formats are cleaned before they are parsed, by the caller.
    """
    pieces = _parse(src, clean or (lambda text: text))
    return _unnest(pieces) if src.standalone else pieces


def _parse(src: SourceFile, clean: Callable[[str], str]) -> list[Piece]:
    kind = detect_format(src)
    if kind == "pdf":
        return _parse_pdf(src, clean)
    if kind == "markdown":
        return split_markdown(_file_name(src), _decode(src), _base(src))
    if kind == "rst":
        lines, headings = rst_headings(*rst_directives(lines_of(_decode(src), keepends=True)))
        return split_lines(_file_name(src), lines, headings, _base(src))
    if kind == "notebook":
        from ov.ingest.notebook import notebook_markdown

        markdown = notebook_markdown(_decode(src))
        if markdown is not None:  # else JSON that is no notebook: kept as it is
            return split_markdown(_file_name(src), markdown, _base(src))
    if kind == "html":
        markdown, title = html_to_markdown(_decode(src, html=True), base_url=src.uri if src.kind == "http" else None)
        return split_markdown(_file_name(src), markdown, _base(src), title=title)
    return [_verbatim(src)]


def _unnest(pieces: list[Piece]) -> list[Piece]:
    """A standalone document's sections without the directory named after it: its import root
    (``viking://resources/guide``) already is that directory, and ``guide/guide/01_...`` would
    name it twice. A document that stayed one file keeps its name."""
    heads = {piece.relpath.split("/", 1)[0] for piece in pieces}
    if len(heads) != 1 or not all("/" in piece.relpath for piece in pieces):
        return pieces
    return [replace(piece, relpath=piece.relpath.split("/", 1)[1]) for piece in pieces]


def detect_format(src: SourceFile) -> str:
    """``"pdf"``, ``"html"``, ``"markdown"``, ``"rst"``, ``"notebook"`` or ``"text"`` (verbatim).

    PDF bytes are PDF whatever the name says. An HTML content type wins over
    the extension (``…/README.md`` on a code host is an HTML page), unless the
    extension names a text format and the bytes do not look like HTML (a raw
    file served with the wrong type).
    """
    ext = PurePosixPath(_file_name(src)).suffix.lower()
    ctype = (src.content_type or "").split(";")[0].strip().lower()
    head = src.data[:4096].removeprefix(codecs.BOM_UTF8)
    if head.lstrip().startswith(b"%PDF-"):
        return "pdf"
    textual = MARKDOWN_EXTENSIONS | RST_EXTENSIONS | NOTEBOOK_EXTENSIONS | TEXT_EXTENSIONS
    if ctype in HTML_TYPES and (ext not in textual or _HTML_SNIFF_RE.match(head)):
        return "html"
    if ext in PDF_EXTENSIONS or ctype in PDF_TYPES:
        return "pdf"
    for extensions, kind in ((MARKDOWN_EXTENSIONS, "markdown"), (RST_EXTENSIONS, "rst"), (HTML_EXTENSIONS, "html"), (NOTEBOOK_EXTENSIONS, "notebook")):
        if ext in extensions:
            return kind
    if ext in TEXT_EXTENSIONS:
        return "text"
    if ctype in MARKDOWN_TYPES:
        return "markdown"
    if ctype in RST_TYPES:
        return "rst"
    if _HTML_SNIFF_RE.match(head):
        return "html"
    return "text"


def _file_name(src: SourceFile) -> str:
    name = src.relpath.rstrip("/").rsplit("/", 1)[-1] or src.uri.rstrip("/").rsplit("/", 1)[-1]
    return segment_name(name)


def _failure_path(src: SourceFile) -> str:
    return src.relpath or src.uri


def _base(src: SourceFile) -> Provenance:
    return Provenance(kind=src.kind, uri=src.uri)


def _decode(src: SourceFile, *, html: bool = False) -> str:
    """The text of a UTF-8 source without its byte-order mark, or of a UTF-16 or UTF-32 one that
    starts with its mark (stored as UTF-8, like every text ov holds); without a mark, bytes that
    are not UTF-8 are read in the charset the source declares (:mod:`ov.ingest.charsets`): its
    HTTP header's, then for ``html`` its ``<meta charset>``. UTF-8 bytes are read as UTF-8 whatever
    is declared: servers often declare latin-1 for UTF-8 pages, and text that is not UTF-8 is
    almost never valid UTF-8 by chance."""
    if (wide := wide_text(src.data)) is not None:
        return wide
    data = src.data.removeprefix(codecs.BOM_UTF8)
    if b"\x00" in data:
        raise ParseFailure(_failure_path(src), "not UTF-8 text (binary data with NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        declared = [] if len(data) < len(src.data) else declared_charsets(src.content_type, data[:4096], meta=html)
        if (text := decode_declared(data, declared)) is not None:
            return text
        raise ParseFailure(_failure_path(src), f"not UTF-8 text (invalid byte at offset {exc.start})") from None


def _verbatim(src: SourceFile) -> Piece:
    text = _decode(src)
    name = _file_name(src)
    count = count_lines(text)
    return Piece(name, text, name, replace(_base(src), lines=(1, count) if count else None))


# reStructuredText: a title is underlined (and maybe overlined) with one
# repeated punctuation character; levels follow the order styles first appear.
_RST_ADORNMENT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_RST_LINK_RE = re.compile(r"`([^`<]*?)\s*<[^>]*>`_{1,2}")
_RST_ROLE_RE = re.compile(r":[\w.+-]+:`([^`]*)`")
_RST_MARKUP_RE = re.compile(r"\*\*|``|`_{0,2}|(?<=\w)_{1,2}(?!\w)|\*")


def rst_headings(lines: list[str], code: Collection[int] = ()) -> tuple[list[str], list[Heading]]:
    """Replace section titles by Markdown ATX headings, one line for one line.

    The title line becomes ``## Title`` and its adornment lines become blank
    lines, so line *n* of the result is line *n* of the source. ``code`` are the
    indices of fenced code lines (:func:`ov.ingest.rst.rst_directives`): no title
    is read there, and a closing fence ends a block as a blank line would.
    """
    out = list(lines)
    headings: list[Heading] = []
    styles: list[tuple[str, bool]] = []
    contents = ["" if k in code else line.rstrip(_LINE_END) for k, line in enumerate(lines)]
    i = 0
    while i < len(lines):
        previous_blank = i == 0 or not contents[i - 1].strip()
        over = _adornment(contents[i])
        if (
            over
            and previous_blank
            and i + 2 < len(lines)
            and contents[i + 1].strip()
            and not _adornment(contents[i + 1])
            and _adornment(contents[i + 2]) == over
        ):
            title_at, style, span = i + 1, (over, True), (i, i + 2)
        elif (
            previous_blank
            and i + 1 < len(lines)
            and contents[i].strip()
            and not contents[i][0].isspace()
            and not over
            and (under := _adornment(contents[i + 1]))
            and len(contents[i + 1].rstrip()) >= min(3, len(contents[i].strip()))
        ):
            title_at, style, span = i, (under, False), (i, i + 1)
        else:
            i += 1
            continue
        if style not in styles:
            styles.append(style)
        level = min(styles.index(style) + 1, 6)
        title = _rst_plain(contents[title_at].strip())
        for k in range(span[0], span[1] + 1):
            out[k] = lines[k][len(contents[k]) :] or ("\n" if k < span[1] else "")
        out[title_at] = f"{'#' * level} {title}" + (lines[title_at][len(contents[title_at]) :] or "\n")
        headings.append(Heading(title_at, title_at, level, title))
        i = span[1] + 1
    return out, headings


def _adornment(line: str) -> str | None:
    stripped = line.rstrip()
    if len(stripped) >= 2 and stripped[0] in _RST_ADORNMENT and stripped == stripped[0] * len(stripped):
        return stripped[0]
    return None


def _rst_plain(title: str) -> str:
    title = _RST_LINK_RE.sub(r"\1", title)
    title = _RST_ROLE_RE.sub(r"\1", title)
    return " ".join(_RST_MARKUP_RE.sub("", title).split()) or "Untitled"


# HTML elements that are page furniture, never content.
_HTML_NOISE = ("script", "style", "noscript", "template", "head", "nav", "iframe", "svg", "canvas", "button", "select")
# markdownify converts by recursion, about three Python frames per level of nesting; real pages
# stay far below this depth, and deeper elements are replaced by their plain text.
_HTML_MAX_DEPTH = 100


def html_to_markdown(html: str, *, base_url: str | None = None) -> tuple[str, str | None]:
    """Convert an HTML page to Markdown; returns the Markdown and the page title.

    Scripts, styles, navigation and hidden elements are dropped; when the page
    marks its main content (one ``<main>`` or one ``<article>``) only that is
    kept. With ``base_url``, relative links and images become absolute. When
    the content has no H1 and the page has a title, ``# title`` is put first.
    """
    from urllib.parse import urljoin

    from bs4 import BeautifulSoup, Comment
    from markdownify import ATX, BACKSLASH, MarkdownConverter

    soup = BeautifulSoup(html, "html.parser")
    title = " ".join(soup.title.get_text().split()) if soup.title else ""
    base_tag = soup.find("base", href=True)
    if base_url and base_tag:
        base_url = urljoin(base_url, base_tag["href"])
    for tag in soup.find_all(_HTML_NOISE):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}) + soup.find_all(attrs={"aria-hidden": "true"}):
        if not tag.decomposed:
            tag.decompose()
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    root = soup
    for name in ("main", "article"):
        found = soup.find_all(name) or (soup.find_all(attrs={"role": "main"}) if name == "main" else [])
        if len(found) == 1:
            root = found[0]
            break
    _flatten_deep(root, _HTML_MAX_DEPTH)
    first_h1 = root.find("h1")
    if not title and first_h1 is not None:
        title = " ".join(first_h1.get_text().split())
    if base_url:
        for tag, attr in (("a", "href"), ("img", "src")):
            for element in root.find_all(tag, attrs={attr: True}):
                if not element[attr].startswith(("#", "mailto:", "javascript:", "data:")):
                    element[attr] = urljoin(base_url, element[attr])
    converter = MarkdownConverter(
        heading_style=ATX,
        bullets="-",
        newline_style=BACKSLASH,  # trailing-space line breaks would not survive the tidy-up
        escape_underscores=False,  # snake_case identifiers stay searchable
        code_language_callback=_code_language,
    )
    markdown = converter.convert_soup(root)
    lines = [line.rstrip() for line in markdown.splitlines()]
    body = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    if title and not any(h.level == 1 for h in scan_markdown(body.splitlines())[0]):
        body = f"# {title}\n\n{body}"
    return body.rstrip("\n") + "\n", title or None


def _flatten_deep(root, limit: int) -> None:
    """Replace every element nested more than ``limit`` levels below ``root`` by its text, so the
    recursive converter never goes deeper than that (50,000 nested ``<div>``s would exhaust
    Python's stack). An explicit stack and bs4's iterative ``get_text``: no recursion here."""
    from bs4 import NavigableString, Tag

    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        for child in [c for c in node.children if isinstance(c, Tag)]:
            if depth < limit:
                stack.append((child, depth + 1))
            else:
                child.replace_with(NavigableString(child.get_text()))


def _code_language(element) -> str | None:
    for candidate in [element, *element.find_all("code", limit=1)]:
        for cls in candidate.get("class") or []:
            if cls.startswith(("language-", "lang-")):
                return cls.split("-", 1)[1]
    return None



# PDF. A document encrypted only with an owner password (permissions) opens
# with the empty user password in every viewer without a prompt, so it is read
# like any other; one that needs a real password fails as "encrypted PDF".
_PDF_HEADING_LIKE_RE = re.compile(r"^([ \t]*)(?=#|`{3}|~{3}|(?:=+|-+)[ \t]*$)")
# Control characters (C0 and C1) and the invisible ones that split a word without a mark (soft
# hyphen, zero-width space, word joiner, BOM): inside a token they hide it from the redaction.
# The zero-width (non-)joiner stays: Persian and Indic scripts need it.
_PDF_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u200b\u2060\ufeff]")
_OUTLINE_MAX_ITEMS = 5000
_OUTLINE_MAX_DEPTH = 16


def _parse_pdf(src: SourceFile, clean: Callable[[str], str]) -> list[Piece]:
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    path = _failure_path(src)
    # pypdf logs every repair it makes; a parse failure says what matters instead.
    logger = logging.getLogger("pypdf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        try:
            reader = PdfReader(io.BytesIO(src.data))
            encrypted = reader.is_encrypted
        except Exception as exc:
            raise ParseFailure(path, f"corrupt PDF: {_reason(exc)}") from None
        if encrypted:
            try:
                unlocked = reader.decrypt("")
            except DependencyError:
                raise ParseFailure(path, "encrypted PDF (AES decryption needs the 'cryptography' package)") from None
            except Exception:
                raise ParseFailure(path, "encrypted PDF") from None
            if not unlocked:
                raise ParseFailure(path, "encrypted PDF")
        try:
            pages = list(reader.pages)
        except Exception as exc:
            raise ParseFailure(path, f"corrupt PDF: {_reason(exc)}") from None
        if not pages:
            raise ParseFailure(path, "corrupt PDF: no pages")
        extracted = [_page_text(page, clean) for page in pages]
        marks = [(number, depth, _pdf_line(text, clean)) for number, depth, text in _outline_marks(reader, len(pages))]
        title = _pdf_line(_pdf_title(reader), clean)
    finally:
        logger.setLevel(level)
    if not any(lines for lines, _ in extracted):
        errors = [note for _, note in extracted if note and note.startswith("text extraction failed")]
        if errors:
            raise ParseFailure(path, f"corrupt PDF: {errors[0]}")
        raise ParseFailure(path, "PDF has no extractable text (scanned pages need OCR)")
    name = _file_name(src)
    stem = PurePosixPath(name).stem or name
    title = title or stem
    blocks = [_page_block(number, lines, note) for number, (lines, note) in enumerate(extracted, 1)]
    if marks:
        return _pdf_by_outline(src, name, title, blocks, marks)
    return _pdf_by_pages(src, sanitize_segment(stem), title, blocks)


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[:200]


def _pdf_line(text: str, clean: Callable[[str], str]) -> str:
    """An outline title or the document's title: one line, without control characters, cleaned."""
    return " ".join(clean(" ".join(_PDF_CONTROL_RE.sub("", text).split())).split())


def _page_text(page, clean: Callable[[str], str]) -> tuple[list[str], str | None]:
    """The page's text lines (cleaned, and escaped so none reads as Markdown structure) and a note when it has none."""
    try:
        raw = page.extract_text() or ""
    except Exception as exc:
        return [], f"text extraction failed: {_reason(exc)}"
    # Control characters go before the cleaning: one inside a token would hide it from the
    # redaction, and stripped afterwards would join the token up again.
    lines = [_PDF_CONTROL_RE.sub("", line).rstrip() for line in raw.splitlines()]
    lines = clean("\n".join(lines)).split("\n")
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    cleaned: list[str] = []
    for line in lines:
        if line or (cleaned and cleaned[-1]):
            cleaned.append(_PDF_HEADING_LIKE_RE.sub(r"\1\\", line, count=1))
    return cleaned, None if cleaned else "no extractable text on this page"


def _page_block(number: int, lines: list[str], note: str | None) -> list[str]:
    block = [f"<!-- page {number} -->\n"]
    block += [line + "\n" for line in lines]
    if note:
        block.append(f"_({note})_\n")
    return [*block, "\n"]


def _outline_marks(reader, page_count: int) -> list[tuple[int, int, str]]:
    """Outline entries as (1-based page, depth, title), in page order then outline order."""
    try:
        outline = reader.outline
    except Exception:
        return []
    marks: list[tuple[int, int, str]] = []

    def walk(items, depth: int) -> None:
        for item in items:
            if len(marks) >= _OUTLINE_MAX_ITEMS:
                return
            if isinstance(item, list):
                if depth < _OUTLINE_MAX_DEPTH:
                    walk(item, depth + 1)
                continue
            try:
                number = reader.get_destination_page_number(item)
            except Exception:
                number = None
            title = " ".join(str(getattr(item, "title", "") or "").split())
            if title and number is not None and 0 <= number < page_count:
                marks.append((number + 1, depth, title))

    walk(outline, 0)
    return sorted(marks, key=lambda mark: mark[0])  # stable: outline order within a page


def _pdf_title(reader) -> str:
    try:
        metadata = reader.metadata
        return " ".join(str(metadata.title or "").split()) if metadata else ""
    except Exception:
        return ""


def _pdf_by_outline(
    src: SourceFile, name: str, title: str, blocks: list[list[str]], marks: list[tuple[int, int, str]]
) -> list[Piece]:
    """Outline entries become headings at the page they point to (top level ``##``), then split like Markdown."""
    lines = [f"# {title}\n", "\n"]
    page_of = [1, 1]
    marks_at: dict[int, list[tuple[int, str]]] = {}
    for number, depth, text in marks:
        marks_at.setdefault(number, []).append((depth, text))
    for number, block in enumerate(blocks, 1):
        for depth, text in marks_at.get(number, []):
            lines += [f"{'#' * min(depth + 2, 6)} {text}\n", "\n"]
            page_of += [number, number]
        lines += block
        page_of += [number] * len(block)
    while lines[-1] == "\n":
        lines.pop()
        page_of.pop()
    headings, cut_ok = scan_markdown(lines)
    pieces = split_lines(name, lines, headings, _base(src), cut_ok=cut_ok, title=title)
    result = []
    for piece in pieces:
        first, last = piece.provenance.lines or (1, len(lines))
        pages = (page_of[first - 1], page_of[last - 1])
        result.append(replace(piece, provenance=Provenance(kind=src.kind, uri=src.uri, pages=pages)))
    return result


def _pdf_by_pages(src: SourceFile, dirname: str, title: str, blocks: list[list[str]]) -> list[Piece]:
    """Without an outline, consecutive pages are grouped into pieces of at most the single-file size."""
    sizes = [estimate_tokens("".join(block)) for block in blocks]
    total = sum(sizes)
    if total <= SINGLE_MAX_TOKENS:
        text = f"# {title}\n\n" + "".join(line for block in blocks for line in block).rstrip("\n") + "\n"
        return [Piece(f"{dirname}.md", text, title, _pdf_provenance(src, 1, len(blocks)))]
    target = total / -(-total // SINGLE_MAX_TOKENS)
    groups: list[list[int]] = [[]]
    size = 0
    for index, page_size in enumerate(sizes):
        if groups[-1] and (size + page_size > SINGLE_MAX_TOKENS or size >= target):
            groups.append([])
            size = 0
        groups[-1].append(index)
        size += page_size
    width = max(2, len(str(len(blocks))))
    pieces = []
    for group in groups:
        first, last = group[0] + 1, group[-1] + 1
        span = f"{first:0{width}d}" if first == last else f"{first:0{width}d}-{last:0{width}d}"
        label = f"{title}, page {first}" if first == last else f"{title}, pages {first}-{last}"
        body = "".join(line for index in group for line in blocks[index]).rstrip("\n") + "\n"
        pieces.append(Piece(f"{dirname}/pages_{span}.md", f"# {label}\n\n{body}", label, _pdf_provenance(src, first, last)))
    return pieces


def _pdf_provenance(src: SourceFile, first: int, last: int) -> Provenance:
    return Provenance(kind=src.kind, uri=src.uri, pages=(first, last))
