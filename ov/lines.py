"""Lines of a text, numbered as git, grep and ``snapshot diff`` number them.

A line ends at "\\n" and nowhere else. ``str.splitlines`` also ends one at "\\r", form feed,
vertical tab, \\x1c-\\x1e, \\x85, U+2028 and U+2029, so a file holding any of them had more lines in
``ov grep``, ``ov read -n`` and ``ov find`` than in git and the user's editor, and an agent editing by
line number edited the wrong line. A "\\r" before "\\n" belongs to the line end (CRLF files); a lone
"\\r" is part of its line, as git sees it.
"""

from __future__ import annotations


def lines_of(text: str, *, keepends: bool = False) -> list[str]:
    """``text``'s lines: without their ends ("\\n" or "\\r\\n"), or with them (``keepends``), so that
    joining those gives ``text`` back. A last line without "\\n" is a line; "" has none."""
    parts = text.split("\n")
    last = parts.pop()
    if keepends:
        out = [part + "\n" for part in parts]
    else:
        out = [part[:-1] if part.endswith("\r") else part for part in parts]
    if last:
        out.append(last)
    return out


def count_lines(text: str) -> int:
    """How many lines ``text`` has, as :func:`lines_of` cuts them."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def even_runs(spans: list[tuple[int, int]], sizes: list[int], most: int) -> list[tuple[int, int]]:
    """Consecutive ``spans`` (line ranges, with their ``sizes`` in tokens) joined into runs of at most
    ``most`` where the spans allow, about evenly sized: as many runs as the total needs, each closed
    once it reaches the average, so the last is not a stub. Shared by the splitter of long documents
    and the chunker of code."""
    total = sum(sizes)
    target = total / max(1, -(-total // most))
    out: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    current_size = 0
    for (a, b), size in zip(spans, sizes, strict=True):
        if current is not None and (current_size + size > most or current_size >= target):
            out.append(current)
            current, current_size = None, 0
        current = (current[0] if current else a, b)
        current_size += size
    if current is not None:
        out.append(current)
    return out
