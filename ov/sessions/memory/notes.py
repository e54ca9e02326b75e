"""A dated note said again: one file of its day, not one per saying.

``ov remember "The default branch is master"`` twice the same day is one note: a note of the day
that says what another note of that day and of the same name says (``default_branch.md``,
``default_branch_2.md``, ...) is already remembered. A note that says something else of the same
thing is a note of its own, numbered as ever: "The release is blocked by the review" and "The
release is on Friday" are two facts, and a rule that took the second for the first's new value
lost the first (a review found it). Notes of other days are left as they were: each tells what
held on its day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container

from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.files import repaired_memory
from ov.sessions.memory.lines import normalise
from ov.sessions.memory.schema import CONTENT_FIELD

# Numbered copies of one note name looked at: far more than a day holds of one thing.
_MAX_SAID = 50


def said_that_day(path: str, candidate: Candidate, taken: Container[str], read: Callable[[str], str | None]) -> bool:
    """Whether a stored note of ``path``'s name that day says what ``candidate`` says."""
    said = _one_line(candidate.fields.get(CONTENT_FIELD))
    if said is None:
        return False
    stem = path.removesuffix(".md")
    for n in range(1, _MAX_SAID + 1):
        other = path if n == 1 else f"{stem}_{n}.md"
        text = None if other in taken else read(other)
        if text is None and other not in taken:
            return False
        stored = _one_line(repaired_memory(text)[0]) if text is not None else None
        if stored is not None and normalise(stored) == normalise(said):
            return True
    return False


def _one_line(content: object) -> str | None:
    """The text of a note of one line ("- The default branch is master"), or None."""
    lines = [line for line in content.splitlines() if line.strip()] if isinstance(content, str) else []
    return re.sub(r"^\s*[-*+]\s+", "", lines[0]).strip() if len(lines) == 1 else None
