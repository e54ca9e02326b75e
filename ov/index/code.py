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
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ov.ingest.formats import MARKDOWN_EXTENSIONS, RST_EXTENSIONS
from ov.lines import even_runs, lines_of
from ov.regex import LazyPattern
from ov.tokens import estimate_tokens

__all__ = ["chunk_code", "defined_names", "is_prose"]

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
TITLE_NAMES = 4


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
    """The first ``limit`` distinct names ``text`` defines, in order."""
    names: list[str] = []
    for match in _DEFINITION.finditer(text):
        name = match.group(1)
        if not name.startswith("__") and name not in names:  # __init__, __repr__ name nothing particular
            names.append(name)
            if len(names) == limit:
                break
    return names


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
