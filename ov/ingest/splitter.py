"""Heading-aware splitting of Markdown-like text into pieces of a useful size.

The rules follow OpenViking's smart splitting, made exact and deterministic:

* A document of at most ``single_max_tokens`` stays one piece, ``{stem}.md``.
* A longer one becomes a directory ``{stem}/``. Its sections start at the
  shallowest heading level that occurs in it; when that level has a single
  heading that comes first (a document title), the split descends one level,
  so ``# Guide`` + ``## A`` + ``## B`` yields sections A and B.
* Text before the first section heading (intro, front matter, the title
  heading with its paragraph) is piece ``00_{title}.md``; when it holds
  nothing but headings it is folded into the first section instead, and so
  is any section without a body (``## Part II`` right before ``## Chapter 5``)
  into the one after it.
* Entries are numbered ``01_``, ``02_``, ... in document order (wider when a
  directory has 100 or more), followed by the sanitised heading, so ``ls`` order
  is document order and names are unique within a directory.
* Consecutive sections under ``merge_below_tokens`` are merged until the group
  reaches that size (never beyond ``single_max_tokens``); the piece is named
  after the first section and titled after all of them.
* A section over ``single_max_tokens`` with sub-sections becomes a
  subdirectory split by the same rules; one without is cut between paragraphs
  into ``{NN}_{title}_part1.md``, ``_part2``, ... A paragraph too big alone (a
  tight list has no blank line between its items) is cut before its list
  items, then after its lines that end a sentence, and only then between any
  lines; fenced code blocks are never cut.
* A long document without sections is cut the same way into ``01_{name}.md``,
  ``02_{name}.md``, ..., each named after its first heading or else its first
  words, so that a listing says what each part holds.
* A piece is an exact run of source lines with blank lines trimmed at both
  ends; ``Provenance.lines`` gives that run (1-based, inclusive). Lines are
  counted at "\\n" only (:mod:`ov.lines`), as ``ov read`` and git count them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import PurePosixPath

from ov.ingest.model import Piece, Provenance
from ov.lines import even_runs, lines_of
from ov.tokens import estimate_tokens
from ov.uri import sanitize_segment, segment_name

__all__ = ["MERGE_BELOW_TOKENS", "SINGLE_MAX_TOKENS", "Heading", "scan_markdown", "split_lines", "split_markdown"]

SINGLE_MAX_TOKENS = 1024
MERGE_BELOW_TOKENS = 512

_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE_OPEN_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})(.*)$")
_FENCE_CLOSE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*$")
_THEMATIC_RE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# Lines that open a block a setext underline cannot turn into a heading
# (list items, quotes, HTML, tables): "- item\n---" is a list and a rule.
_CONTAINER_RE = re.compile(r"^ {0,3}(?:[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>|<[A-Za-z!?/]|\|)")
_INDENTED_CODE_RE = re.compile(r"^(?: {4}|\t)")
# HTML blocks whose lines are not Markdown until their end marker (CommonMark HTML blocks 1 and 2):
# a comment (a commented-out draft section) and raw-text elements.
# Where a paragraph too big alone may be cut, best first: before a list item, after a sentence.
_ITEM_RE = re.compile(r"^[ \t]*(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_SENTENCE_END_RE = re.compile(r"[.!?\u2026\u3002\uff01\uff1f][\"'\u201d\u2019)\]*_]*[ \t]*$")
_MARKER_RE = re.compile(r"^[ \t]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+|>[ \t]?)*")
_NAME_CHARS = 40  # a part's name from its first words: about five words
_HTML_RAW_RE = re.compile(r"^ {0,3}<(?:(!--)|(pre|script|style|textarea)(?=[\s>]|$))", re.IGNORECASE)
_FRONT_MATTER_FENCES = {"---": ("---", "..."), "+++": ("+++",)}
_FRONT_MATTER_MAX_LINES = 200
_LINE_END = "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@dataclass(frozen=True)
class Heading:
    """A section heading: 0-based line indices (a setext heading spans its text and underline)."""

    start: int
    end: int
    level: int
    title: str


def split_markdown(
    name: str,
    text: str,
    provenance_base: Provenance,
    *,
    single_max_tokens: int = SINGLE_MAX_TOKENS,
    merge_below_tokens: int = MERGE_BELOW_TOKENS,
    title: str | None = None,
) -> list[Piece]:
    """Split Markdown ``text`` of the document ``name`` into pieces (see the module rules).

    ``title`` overrides the document title (default: the first H1, else the stem of ``name``).
    """
    lines = lines_of(text, keepends=True)
    headings, cut_ok = scan_markdown(lines)
    return split_lines(
        name,
        lines,
        headings,
        provenance_base,
        cut_ok=cut_ok,
        title=title,
        single_max_tokens=single_max_tokens,
        merge_below_tokens=merge_below_tokens,
    )


def split_lines(
    name: str,
    lines: list[str],
    headings: list[Heading],
    provenance_base: Provenance,
    *,
    cut_ok: list[bool] | None = None,
    title: str | None = None,
    single_max_tokens: int = SINGLE_MAX_TOKENS,
    merge_below_tokens: int = MERGE_BELOW_TOKENS,
) -> list[Piece]:
    """Split lines whose headings are already known (reStructuredText, PDF text).

    ``lines`` keep their line ends; ``cut_ok[i]`` is False where a cut before
    line ``i`` would fall inside a block that must stay whole (a code fence).
    """
    stem = PurePosixPath(name).stem if PurePosixPath(name).suffix else name
    dirname = sanitize_segment(stem)
    doc_title = title or next((h.title for h in headings if h.level == 1), None) or stem or dirname
    text = "".join(lines)
    # A document kept whole keeps its name, as every other file does (``a b.md``, ``C#.md``); only
    # a document split into a folder of sections is named the generated way.
    kept = segment_name(f"{stem}.md") if stem else ""
    whole_name = kept if kept.endswith(".md") else f"{dirname}.md"
    whole = Piece(whole_name, text, doc_title, replace(provenance_base, lines=(1, len(lines)) if lines else None))
    if estimate_tokens(text) <= single_max_tokens:
        return [whole]
    splitter = _Splitter(lines, headings, cut_ok, provenance_base, single_max_tokens, merge_below_tokens)
    units = splitter.units(0, len(lines), list(headings), doc_title)
    if len(units) >= 2:
        return splitter.directory(dirname, units)
    ranges = splitter.part_ranges(0, len(lines))
    if len(ranges) < 2:
        return [whole]
    width = max(2, len(str(len(ranges))))  # SECTION_NAME (ov.ingest.formats): the parts are its sections
    return [
        splitter.piece(f"{dirname}/{k:0{width}d}_{splitter.part_name(a, b, headings)}.md", a, b, f"{doc_title} (part {k} of {len(ranges)})")
        for k, (a, b) in enumerate(ranges, 1)
    ]


def scan_markdown(lines: list[str]) -> tuple[list[Heading], list[bool]]:
    """Find the ATX and setext headings outside code fences, HTML comments (and ``<pre>``,
    ``<script>``, ``<style>``, ``<textarea>`` blocks) and front matter.

    Returns the headings in order and ``cut_ok``: for each line, whether a
    piece may start there (False inside fences, those HTML blocks and front matter).
    """
    n = len(lines)
    cut_ok = [True] * n
    headings: list[Heading] = []
    i = _front_matter_end(lines)
    for k in range(1, i):
        cut_ok[k] = False
    fence: tuple[str, int] | None = None
    html_end: str | None = None  # what closes the HTML block the line is in ("-->", "</pre>")
    para_start: int | None = None  # first line of the paragraph a setext underline would turn into a heading
    in_container = False
    while i < n:
        content = lines[i].rstrip(_LINE_END)
        if fence is not None:
            cut_ok[i] = False
            close = _FENCE_CLOSE_RE.match(content)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= fence[1]:
                fence = None
        elif html_end is not None:
            cut_ok[i] = False
            if html_end in content.lower():
                html_end = None
        elif raw := _HTML_RAW_RE.match(content):
            # The block ends on the line that holds its end marker, which may be this one.
            html_end = "-->" if raw.group(1) else f"</{raw.group(2).lower()}>"
            if html_end in content[raw.end() :].lower():
                html_end = None
            para_start, in_container = None, False
        elif not content.strip():
            para_start, in_container = None, False
        elif (opening := _FENCE_OPEN_RE.match(content)) and not (
            opening.group(1)[0] == "`" and "`" in opening.group(2)
        ):
            fence = (opening.group(1)[0], len(opening.group(1)))
            para_start, in_container = None, False
        elif atx := _ATX_RE.match(content):
            headings.append(Heading(i, i, len(atx.group(1)), _plain_title(atx.group(2) or "")))
            para_start, in_container = None, False
        elif (underline := _SETEXT_RE.match(content)) and para_start is not None:
            level = 1 if underline.group(1)[0] == "=" else 2
            raw = " ".join(line.strip() for line in lines[para_start:i])
            headings.append(Heading(para_start, i, level, _plain_title(raw)))
            para_start = None
        elif _THEMATIC_RE.match(content):
            para_start, in_container = None, False
        elif _CONTAINER_RE.match(content) or (para_start is None and _INDENTED_CODE_RE.match(content)):
            para_start, in_container = None, True
        elif para_start is None and not in_container:
            para_start = i
        i += 1
    return headings, cut_ok


def _front_matter_end(lines: list[str]) -> int:
    """The index just past a YAML/TOML front matter block at the top, or 0."""
    if not lines:
        return 0
    closers = _FRONT_MATTER_FENCES.get(lines[0].rstrip(_LINE_END).rstrip())
    if closers is None:
        return 0
    for k in range(1, min(len(lines), _FRONT_MATTER_MAX_LINES)):
        if lines[k].rstrip(_LINE_END).rstrip() in closers:
            return k + 1
    return 0


_CODE_SPAN_RE = re.compile(r"(`+)(.+?)\1")
_INLINE_LINK_RE = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_REF_LINK_RE = re.compile(r"!?\[([^\]]*)\]\[[^\]]*\]")
_TAG_RE = re.compile(r"</?[A-Za-z][^>]*>")
_EMPHASIS_RE = re.compile(r"\*+|~~|(?<![\w\\])_+|_+(?!\w)")
_HEADING_ID_RE = re.compile(r"\s*\{#[^}]*\}\s*$")
_ESCAPE_RE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _plain_title(raw: str) -> str:
    """Heading text without Markdown markup: ``[Install](#x) `pip` **now**`` → ``Install pip now``."""
    text = _HEADING_ID_RE.sub("", raw)
    out = []
    pos = 0
    # Code spans keep their text verbatim (``__init__`` must not lose its underscores).
    for match in _CODE_SPAN_RE.finditer(text):
        out.append(_strip_inline(text[pos : match.start()]))
        out.append(match.group(2).strip())
        pos = match.end()
    out.append(_strip_inline(text[pos:]))
    return " ".join("".join(out).split()) or "Untitled"


def _strip_inline(text: str) -> str:
    text = _INLINE_LINK_RE.sub(r"\1", text)
    text = _REF_LINK_RE.sub(r"\1", text)
    text = _TAG_RE.sub("", text)
    text = _EMPHASIS_RE.sub("", text)
    return _ESCAPE_RE.sub(r"\1", text)


@dataclass
class _Unit:
    """A run of lines [start, end) that is a section (or the text before the first one)."""

    start: int
    end: int
    title: str
    heads: list[Heading] = field(default_factory=list)  # sub-headings, after its own
    preamble: bool = False


@dataclass
class _Entry:
    """One name in a directory: a piece of merged units, a subdirectory, or a cut-up section."""

    kind: str  # "piece" | "dir" | "parts"
    units: list[_Unit]
    children: list[_Unit] = field(default_factory=list)


class _Splitter:
    def __init__(
        self,
        lines: list[str],
        headings: list[Heading],
        cut_ok: list[bool] | None,
        base: Provenance,
        single_max: int,
        merge_below: int,
    ) -> None:
        self.lines = lines
        self.base = base
        self.single_max = single_max
        self.merge_below = merge_below
        self.cut_ok = cut_ok if cut_ok is not None else [True] * len(lines)
        self.blank = [not line.strip() for line in lines]
        self.heading_line = [False] * len(lines)
        for heading in headings:
            for k in range(heading.start, heading.end + 1):
                self.heading_line[k] = True

    def tokens(self, start: int, end: int) -> int:
        return estimate_tokens("".join(self.lines[start:end]))

    def piece(self, relpath: str, start: int, end: int, title: str) -> Piece:
        while start < end - 1 and self.blank[start]:
            start += 1
        while end - 1 > start and self.blank[end - 1]:
            end -= 1
        text = "".join(self.lines[start:end])
        return Piece(relpath, text, title, replace(self.base, lines=(start + 1, end)))

    def units(self, start: int, end: int, heads: list[Heading], title: str) -> list[_Unit]:
        """Cut [start, end) at its section headings; ``heads`` are the headings inside it."""
        tops: list[Heading] = []
        while heads:
            level = min(h.level for h in heads)
            tops = [h for h in heads if h.level == level]
            if len(tops) == 1 and tops[0] is heads[0]:
                # A lone first heading is the region's title: its children are the sections.
                title, heads, tops = tops[0].title, heads[1:], []
                continue
            break
        if not tops:
            return [_Unit(start, end, title, [], preamble=True)]
        starts = [h.start for h in heads]
        units: list[_Unit] = []
        if self.has_body(start, tops[0].start):
            units.append(_Unit(start, tops[0].start, title, [], preamble=True))
        for k, top in enumerate(tops):
            stop = tops[k + 1].start if k + 1 < len(tops) else end
            inner = heads[bisect_right(starts, top.start) : bisect_left(starts, stop)]
            units.append(_Unit(top.start if units else start, stop, top.title, inner))
        return self.fold_empty(units)

    def fold_empty(self, units: list[_Unit]) -> list[_Unit]:
        """Join sections that hold nothing but headings to the next one (the last one to the previous)."""
        kept: list[_Unit] = []
        carry: int | None = None
        for unit in units:
            if carry is not None:
                unit.start, carry = carry, None
            if unit.preamble or self.has_body(unit.start, unit.end):
                kept.append(unit)
            elif unit is not units[-1]:
                carry = unit.start
            elif kept:
                kept[-1].end = unit.end
            else:
                kept.append(unit)
        return kept

    def has_body(self, start: int, end: int) -> bool:
        return any(not self.blank[k] and not self.heading_line[k] for k in range(start, end))

    def group(self, units: list[_Unit]) -> list[_Entry]:
        entries: list[_Entry] = []
        small: list[_Unit] = []

        def flush() -> None:
            if small:
                entries.append(_Entry("piece", list(small)))
                small.clear()

        for unit in units:
            size = self.tokens(unit.start, unit.end)
            if size > self.single_max:
                flush()
                children = self.units(unit.start, unit.end, list(unit.heads), unit.title)
                entries.append(_Entry("dir", [unit], children) if len(children) >= 2 else _Entry("parts", [unit]))
            elif size >= self.merge_below:
                flush()
                entries.append(_Entry("piece", [unit]))
            else:
                if small and (
                    self.tokens(small[0].start, small[-1].end) >= self.merge_below
                    or self.tokens(small[0].start, unit.end) > self.single_max
                ):
                    flush()
                small.append(unit)
        flush()
        return entries

    def directory(self, dirpath: str, units: list[_Unit]) -> list[Piece]:
        entries = self.group(units)
        numbers: list[int] = []
        for entry in entries:
            numbers.append(0 if entry.units[0].preamble else (numbers[-1] + 1 if numbers else 1))
        width = max(2, len(str(numbers[-1])))
        pieces: list[Piece] = []
        for number, entry in zip(numbers, entries):
            first, last = entry.units[0], entry.units[-1]
            stem = f"{number:0{width}d}_{sanitize_segment(first.title)}"  # SECTION_NAME (ov.ingest.formats)
            if entry.kind == "dir":
                pieces.extend(self.directory(f"{dirpath}/{stem}", entry.children))
            elif entry.kind == "parts":
                ranges = self.part_ranges(first.start, first.end)
                if len(ranges) == 1:
                    pieces.append(self.piece(f"{dirpath}/{stem}.md", first.start, first.end, first.title))
                    continue
                part_width = len(str(len(ranges)))
                for k, (a, b) in enumerate(ranges, 1):
                    title = f"{first.title} (part {k} of {len(ranges)})"
                    pieces.append(self.piece(f"{dirpath}/{stem}_part{k:0{part_width}d}.md", a, b, title))
            else:
                title = _combined_title([u.title for u in entry.units])
                pieces.append(self.piece(f"{dirpath}/{stem}.md", first.start, last.end, title))
        return pieces

    def part_ranges(self, start: int, end: int) -> list[tuple[int, int]]:
        """Cut [start, end) into runs of at most ``single_max`` tokens where possible, evenly sized."""
        atoms = self.atoms(start, end)
        return even_runs(atoms, [self.tokens(a, b) for a, b in atoms], self.single_max)

    def atoms(self, start: int, end: int) -> list[tuple[int, int]]:
        """Paragraphs of [start, end); a paragraph too big alone is broken between lines outside fences."""
        blocks: list[tuple[int, int]] = []
        begin: int | None = None
        for k in range(start, end):
            if self.blank[k] and self.cut_ok[k]:
                if begin is not None:
                    blocks.append((begin, k))
                    begin = None
            elif begin is None:
                begin = k
        if begin is not None:
            blocks.append((begin, end))
        return [atom for a, b in blocks for atom in self.finer(a, b, 0)]

    def finer(self, start: int, end: int, level: int) -> list[tuple[int, int]]:
        """[start, end) cut at the ``level``-th kind of boundary and finer ones, where it is too big
        (before list items, after lines that end a sentence, between any lines; never in a fence)."""
        if level == 3 or self.tokens(start, end) <= self.single_max:
            return [(start, end)]
        cuts = [k for k in range(start + 1, end) if self.cut_ok[k] and self.boundary(k, level)]
        return [atom for a, b in pairwise([start, *cuts, end]) for atom in self.finer(a, b, level + 1)]

    def boundary(self, k: int, level: int) -> bool:
        """Whether line ``k`` starts a list item (``level`` 0), follows a line that ends a sentence (1)."""
        if level == 0:
            return _ITEM_RE.match(self.lines[k]) is not None
        if level == 1:
            return _SENTENCE_END_RE.search(self.lines[k - 1].rstrip(_LINE_END)) is not None
        return True

    def part_name(self, start: int, end: int, headings: list[Heading]) -> str:
        """The name of a part of a document without sections: its first heading, else its first words."""
        heading = next((h for h in headings if start <= h.start < end), None)
        if heading is not None:
            return sanitize_segment(heading.title)
        first = next((line for line in self.lines[start:end] if line.strip()), "")
        words = _plain_title(_MARKER_RE.sub("", first.rstrip(_LINE_END))).split()
        name = words[0] if words else "Untitled"
        for word in words[1:]:
            if len(name) + 1 + len(word) > _NAME_CHARS:
                break
            name += " " + word
        return sanitize_segment(name.rstrip(".,;:"))


def _combined_title(titles: list[str]) -> str:
    if len(titles) <= 3:
        return "; ".join(titles)
    return f"{'; '.join(titles[:3])} and {len(titles) - 3} more"
