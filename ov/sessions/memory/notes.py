"""A dated note said again: one file of its day, not one per saying.

``ov remember "The default branch is master"`` twice the same day is one note, and ``"The default
branch is main"`` after it is that note corrected, not a third file: a note of the day names the
same thing as another of that day (the same file name, ``default_branch.md``, ``default_branch_2.md``,
...) when its one line says the same, or says what that thing is ("The X is Y", "The Xs are Y")
with another value. Any other note of the same name is a note of its own, numbered as ever.
Notes of other days are left as they were: each tells what held on its day.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container

from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.files import repaired_memory
from ov.sessions.memory.lines import normalise
from ov.sessions.memory.schema import CONTENT_FIELD

# A note saying what a thing is: "The default branch is master", "Our standups are at 9:30".
_WHAT_IT_IS_RE = re.compile(r"^(?P<thing>\S.*?)\s+(?P<verb>is|are)\s+\S")
# Numbered copies of one note name looked at: far more than a day holds of one thing.
_MAX_SAID = 50


def said_that_day(path: str, candidate: Candidate, taken: Container[str], read: Callable[[str], str | None]) -> tuple[str, bool] | None:
    """(the stored note of ``path``'s name that day that ``candidate`` says again, whether it says
    the same), the candidate's note taking that note's place when it says another value; None when
    it says something new (a new file, numbered when its name is taken)."""
    said = _one_line(candidate.fields.get(CONTENT_FIELD))
    stem = path.removesuffix(".md")
    for n in range(1, _MAX_SAID + 1):
        other = path if n == 1 else f"{stem}_{n}.md"
        text = None if other in taken else read(other)
        if text is None and other not in taken:
            return None
        stored = _one_line(repaired_memory(text)[0]) if text is not None else None
        if said is None or stored is None:
            continue
        if normalise(stored) == normalise(said):
            return other, True
        new, old = _WHAT_IT_IS_RE.match(said), _WHAT_IT_IS_RE.match(stored)
        if new and old and normalise(new.group("thing")) == normalise(old.group("thing")):
            return other, False
    return None


def _one_line(content: object) -> str | None:
    """The text of a note of one line ("- The default branch is master"), or None."""
    lines = [line for line in content.splitlines() if line.strip()] if isinstance(content, str) else []
    return re.sub(r"^\s*[-*+]\s+", "", lines[0]).strip() if len(lines) == 1 else None
