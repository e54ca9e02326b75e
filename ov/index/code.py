"""Code and data files cut into records by their own structure, not as Markdown.

Read as Markdown, code misleads the splitter: a ``~~~~`` underline in a docstring opens
a fence that never closes (the rest of the module became one record), and a ``# comment``
is a heading that names the records after it. So a file that is not prose is cut:

* at top-level blocks: a line at the file's shallowest indentation after a blank line
  (a definition with its decorators and the comment above it, an import block, a
  statement) starts one;
* a block too big alone is cut the same way one level deeper (the methods of a class),
  and a block with no such place is cut between lines, at a blank line where it can;
* consecutive blocks are packed into records of up to ``max_tokens``, evenly sized;

and each record is titled by the names it defines (``def``, ``class``, ``function``,
``fn``, ``func``, ...), which is what a query about code names.

A question about code is asked in words ("how are the small packs folded together?"), and the
chunk that answers it, a function deep in a module, rarely holds them: the module's opening
docstring or comment says what the file does, its path says where it sits (``store/packfold``),
and a name says in one word what a block is (``fold_packs``, ``CliRunner``). :func:`about` gathers
those for each chunk of a file, matched beside its text (:attr:`ov.index.records.Record.about`).

An identifier typed in a query (``StoreLocked``, ``_files_of``, ``QUERY_CHARS``) is one thing, which
the text's words hold only in pieces (``_as_it_is`` is nothing but stop words), and the chunk that
defines it is the answer, not the many that use it: :func:`defines` and :func:`identifiers` give
each chunk's names whole, matched in fields of their own (:attr:`ov.index.records.Record.defines`).
"""

from __future__ import annotations

import functools
import re
from pathlib import PurePosixPath

from ov.ingest.formats import MARKDOWN_EXTENSIONS, RST_EXTENSIONS
from ov.lines import even_runs, lines_of
from ov.regex import LazyPattern
from ov.tokens import estimate_tokens

__all__ = ["about", "chunk_code", "defined_names", "defines", "definition_line", "identifiers", "is_prose", "lead", "name_words", "split_name"]

# Files read as Markdown: documents, and text whose "#" lines are more likely headings than comments.
_PROSE_EXTENSIONS = MARKDOWN_EXTENSIONS | RST_EXTENSIONS | frozenset({".txt", ".text", ".adoc", ".asciidoc", ".org", ".tex"})
_BUILD_FILES = frozenset({"makefile", "dockerfile", "justfile", "rakefile", "gemfile", "procfile", "jenkinsfile", "vagrantfile"})
_DEFINITION = LazyPattern(
    r"^[ \t]*(?:(?:export|default|pub(?:\([^)]*\))?|public|private|protected|internal|static|abstract|final|async|unsafe|open|data|sealed)[ \t]+)*"
    r"(?:def|class|function\*?|fn|func|fun|struct|interface|trait|enum|impl|module|type)[ \t]+(?:\([^)]*\)[ \t]*)?([A-Za-z_$][\w$]*)"
    # What follows a defined name: a docstring line that starts with "type" or "class" is no definition.
    r"(?=[ \t]*(?:[(<:{=\[;]|$|extends\b|implements\b|for\b|where\b|struct\b|interface\b))",
    re.MULTILINE,
)
# A top-level constant or variable (``QUERY_CHARS = 2000``, ``export const routes =``): defined, as a
# function is, though no title names it. At the line's start only: an indented one is a local.
_ASSIGNED = LazyPattern(
    r"^(?:(?:export[ \t]+)?(?:const|let|var|val|static|final|readonly)[ \t]+)*([A-Za-z_$][\w$]*)[ \t]*(?::[^=\n]*)?=(?!=)",
    re.MULTILINE,
)
# What a code name is, for the index (the names a chunk defines and spells: :func:`identifiers`),
# a query (ov.index.lexical: the names it asks for whole) and a prompt (ov.retrieval.named.IDENTIFIER:
# its topic, the names an excerpt spells): one notion, so what a prompt names is what the index holds.
# A name: a letter or "_" first, then letters, digits, "_" and "$".
NAME_CHAR = r"[\w$]"
NAME = rf"[^\W\d]{NAME_CHAR}*"
# Words joined into one name: by "_" or "$" after a letter or digit (snake_case, UPPER_CASE,
# __init__; a rule of underscores joins nothing), or by a change of case (camelCase, PascalCase,
# v2Api, and OSError, HTTPServer: capitals and a capitalised word of two letters or more, where
# "IDs", "URLs" and "PRs" are plurals).
JOINED = r"[^\W_][_$]\w"
CASED = r"[a-z0-9][A-Z]|[A-Z][A-Z][a-z]{2}"
# A name written as one thing of several words.
_IDENTIFIER = LazyPattern(rf"(?<!{NAME_CHAR}){NAME}")
# What makes a name compound, in the code indexed and in a query alike: its words joined, a leading
# "_" or "$" (_private, $scope), or dots between its parts (a query's module path, ``ov.hosts.recall``).
COMPOUND_NAME = LazyPattern(rf"{JOINED}|{CASED}|[_$]\w|\w\.\w")
_MODULE = LazyPattern(r"[^\W\d]\w*")
TITLE_NAMES = 4
# The names of a chunk its ``about`` holds (a title shows four).
ABOUT_NAMES = 16
# Of a file's opening comment or docstring, what its ``about`` holds: what the file does, not a
# licence or a changelog.
LEAD_CHARS = 800
# A file's opening: a docstring ('"""', "'''", "/**"), or a run of comment lines (#, //, --, ;, %),
# after a shebang, an encoding line and a licence header.
_DOCSTRING = LazyPattern(r"""\A\s*(?:[rRuUbB]{0,2}(?:\"\"\"(.*?)\"\"\"|'''(.*?)''')|/\*\*?(.*?)\*/)""", re.DOTALL)
_COMMENT_LINE = LazyPattern(r"^\s*(?:#!?|//[/!]?|--|;+|%)\s?(.*)$")
_LICENCE = LazyPattern(r"copyright|licen[cs]e|spdx|all rights reserved|warranty|free software|you may not use", re.IGNORECASE)
# A run of capitals and the word after it (``HTTPServer``: "HTTP Server"), or a capital and its lower case.
_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def is_prose(name: str) -> bool:
    """Whether the stored file ``name`` is read as Markdown (documents, plain text), not as code or data."""
    path = PurePosixPath(name.lower())
    if not path.suffix:
        return path.name not in _BUILD_FILES
    return path.suffix in _PROSE_EXTENSIONS


def chunk_code(text: str, max_tokens: int) -> list[tuple[int, int]]:
    """0-based, end-exclusive line ranges of ``text`` that cover it in order, each of at most
    ``max_tokens`` where the text allows (one line longer than that stays whole)."""
    lines = lines_of(text, keepends=True)
    if not lines:
        return []
    if estimate_tokens(text) <= max_tokens:
        return [(0, len(lines))]
    sizes = [estimate_tokens(line) for line in lines]
    # Each line's indent measured once (None: blank): measured again at every level of the
    # recursion, it was most of a rebuild's reading (2,000 code files: 20 of 36 s).
    indents = [_indent(line) if line.strip() else None for line in lines]
    blocks = _blocks(indents, sizes, 0, len(lines), max_tokens)
    return _pack(blocks, sizes, max_tokens)


def defined_names(text: str, limit: int = TITLE_NAMES) -> list[str]:
    """The first ``limit`` distinct names ``text`` defines, in order (all of them for -1)."""
    names: list[str] = []
    for match in _DEFINITION.finditer(text):
        name = match.group(1)
        if not name.startswith("__") and name not in names:  # __init__, __repr__ name nothing particular
            names.append(name)
            if len(names) == limit:
                break
    return names


def defines(path: str, text: str, *, first: bool = False) -> str:
    """The names the chunk ``text`` of the code file ``path`` defines, whole and space-separated:
    its definitions and top-level assignments, and for the file's ``first`` chunk the module itself
    (``recall``, ``hosts.recall``, ``ov.hosts.recall``: a file is where its module is defined)."""
    names = dict.fromkeys(defined_names(text, limit=-1))
    names.update(dict.fromkeys(match.group(1) for match in _ASSIGNED.finditer(text)))
    if first:
        names.update(dict.fromkeys(module_names(path)))
    return " ".join(names)


@functools.lru_cache(maxsize=1024)
def definition_line(path: str, text: str, first_line: int, names: tuple[str, ...]) -> int:
    """The line of the file ``path`` where its chunk ``text`` (starting at line ``first_line``)
    defines one of ``names`` (lower case, as the index holds them: :func:`defines`), 0 for none:
    the line a result for that name shows, not a use of it further down. A module is defined by
    its file's first line. Kept for each chunk: a search's rankings (ten or more) ask it of mostly
    the same chunks, and each answer ran two patterns over the chunk's text."""
    if not names:
        return 0
    wanted = set(names)
    found = [m for pattern in (_DEFINITION, _ASSIGNED) for m in pattern.finditer(text) if m.group(1).lower() in wanted]
    if found:
        start = min(m.start() for m in found)
        return first_line + text.count("\n", 0, start) + (1 if text[start] == "\n" else 0)
    if first_line == 1 and wanted.intersection(name.lower() for name in module_names(path)):
        return 1
    return 0


def module_names(path: str) -> list[str]:
    """The names the file ``path`` (a store path) is imported by, shortest first: its stem, then
    each folder above it joined with dots, up to the resource's own folder; none for a file whose
    name is no identifier (``code-questions.json``). A package's ``__init__`` is the package."""
    parts = path.split("/")[1:]  # the first is the scope (resources, skills): every file's
    stem = parts[-1].rsplit(".", 1)[0] if "." in parts[-1][1:] else parts[-1]
    parts = parts[:-1] if stem == "__init__" else [*parts[:-1], stem]
    out: list[str] = []
    for start in range(len(parts) - 1, -1, -1):
        if not _MODULE.fullmatch(parts[start]):
            break
        out.append(".".join(parts[start:]))
    return out


def identifiers(text: str) -> str:
    """The compound names ``text`` holds, whole, once each, space-separated: ``_files_of``,
    ``StoreLocked``, ``QUERY_CHARS`` (a plain word is in the text's own words already)."""
    found = dict.fromkeys(name for name in _IDENTIFIER.findall(text) if COMPOUND_NAME.search(name) and name.strip("_$"))
    return " ".join(found)


def about(path: str, text: str) -> str:
    """What every chunk of the code file ``path`` (holding ``text``) is about beyond its own lines:
    the file's path as words and its opening comment or docstring (:func:`lead`). A chunk adds
    the names it defines (:func:`name_words`)."""
    folders, _, name = path.rpartition("/")
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    parts = [*folders.split("/")[1:], stem]  # the first is the scope (resources, skills): every file's
    return "\n".join(t for t in (" ".join(split_name(p) for p in parts), lead(text)) if t)


def name_words(names: list[str]) -> str:
    """``names`` as words (:func:`split_name`)."""
    return " ".join(split_name(n) for n in names)


def split_name(name: str) -> str:
    """``name`` in words: ``CliRunner`` -> "Cli Runner", ``HTTPServer`` -> "HTTP Server"; the
    analyzer splits ``snake_case`` and ``kebab-case`` already."""
    return _CAMEL.sub(" ", name)


def lead(text: str) -> str:
    """The opening docstring or comment of a source file, up to :data:`LEAD_CHARS`: a docstring
    after the opening comment lines wins; of a comment that holds a licence, only the lines before
    it (``# objects.py -- Access to base git objects``); "" when the file opens with code."""
    lines = lines_of(text[: LEAD_CHARS * 8])
    start, comment = 0, []
    while start < len(lines) and (not lines[start].strip() or _COMMENT_LINE.match(lines[start])):
        said = _COMMENT_LINE.match(lines[start])
        if said and said.group(1).strip():
            comment.append(said.group(1).strip())
        start += 1
    docstring = _DOCSTRING.match("\n".join(lines[start:]))
    if docstring:
        body = next(group for group in docstring.groups() if group is not None)
        return _clipped(" ".join(line.strip(" *") for line in body.splitlines()))
    licence = next((k for k, line in enumerate(comment) if _LICENCE.search(line)), len(comment))
    return _clipped(" ".join(comment[:licence]))


def _clipped(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LEAD_CHARS else text[:LEAD_CHARS].rsplit(" ", 1)[0]


def _indent(line: str) -> int:
    lead = line[: len(line) - len(line.lstrip())]
    return len(lead.expandtabs(4)) if "\t" in lead else len(lead)


def _depth(indents: list[int | None], start: int, end: int) -> int:
    return min((indent for indent in indents[start:end] if indent is not None), default=0)


def _blocks(indents: list[int | None], sizes: list[int], start: int, end: int, max_tokens: int) -> list[tuple[int, int]]:
    depth = _depth(indents, start, end)
    cuts = [start] + [k for k in range(start + 1, end) if indents[k] == depth and indents[k - 1] is None]
    out: list[tuple[int, int]] = []
    for a, b in zip(cuts, [*cuts[1:], end], strict=True):
        if sum(sizes[a:b]) <= max_tokens or b - a == 1:
            out.append((a, b))
            continue
        # Too big: one level deeper (its header line goes with the first inner block), else between lines.
        # Each level deeper is more indented, so this ends.
        inner = _blocks(indents, sizes, a + 1, b, max_tokens) if _depth(indents, a + 1, b) > depth else []
        if len(inner) > 1:
            # The header (a class line, its docstring) goes with the first inner block that follows it.
            joined = 2 if sum(sizes[a : inner[1][1]]) <= max_tokens else 1
            out.append((a, inner[joined - 1][1]))
            out.extend(inner[joined:])
        else:
            out.extend(_between_lines(indents, sizes, a, b, max_tokens))
    return out


def _between_lines(indents: list[int | None], sizes: list[int], start: int, end: int, max_tokens: int) -> list[tuple[int, int]]:
    """[start, end) cut into runs of at most ``max_tokens``, each ending at a blank line where one is in reach."""
    out: list[tuple[int, int]] = []
    a, size, blank = start, 0, None
    for k in range(start, end):
        if size + sizes[k] > max_tokens and k > a:
            cut = blank if blank is not None and blank > a else k
            out.append((a, cut))
            a, size, blank = cut, sum(sizes[cut:k]), None
        size += sizes[k]
        if indents[k] is None:
            blank = k + 1
    out.append((a, end))
    return out


def _pack(blocks: list[tuple[int, int]], sizes: list[int], max_tokens: int) -> list[tuple[int, int]]:
    """Consecutive blocks joined into runs of at most ``max_tokens``, about evenly sized."""
    return even_runs(blocks, [sum(sizes[a:b]) for a, b in blocks], max_tokens)


def definition(line: str) -> str | None:
    """The name ``line`` defines (``def acquire(``, ``class WriteLock:``, ``fn main(``), or None."""
    found = _DEFINITION.match(line)
    return found.group(1) if found else None


def enclosing(lines: list[str], at: int) -> str:
    """The definitions line ``at`` (0-based) of ``lines`` is inside, outermost first and joined by
    dots (``WriteLock.acquire``): each less indented line above it that defines a name ("" at a
    file's top level). By indentation, which code in any language has even where braces rule."""
    while at < len(lines) and not lines[at].strip():
        at += 1
    if at >= len(lines):
        return ""
    names: list[str] = []
    limit = _indent(lines[at])
    for line in reversed(lines[:at]):
        if not line.strip() or (indent := _indent(line)) >= limit:
            continue
        limit = indent  # a block this line opens holds what is below it, a definition or not
        if name := definition(line):
            names.append(name)
        if not limit:
            break
    return ".".join(reversed(names))
