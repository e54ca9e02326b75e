"""A dated note said again, or giving a thing a new value: one note, not one per saying.

``ov remember "The default branch is master"`` twice the same day is one note: a note of the day
that says what another note of that day and of the same name says (``default_branch.md``,
``default_branch_2.md``, ...) is already remembered.

A note shaped as a value ("<subject> is <value>", "<subject> moved to <value>") gives its subject a
value; a later note giving the same subject another value, the same way, replaces it, whatever day
the older one was noted (git keeps it). "The same way" is the frame the value is said in: "is",
"is at", "is on" (a preposition), "is blocked by" (a verb form with its preposition); "moved to",
"changed to" and "is now" give a new value in any plain frame ("is", "is at"), not in a verb
form's. So "The release is on Friday" is a note of its own beside "The release is blocked by the
review": two facts of one thing, which an earlier rule, replacing any note of the same name, lost.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from dataclasses import dataclass
from datetime import datetime, timedelta

from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.files import repaired_memory
from ov.sessions.memory.lines import normalise, said_again
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema

# Numbered copies of one note name looked at: far more than a day holds of one thing.
_MAX_SAID = 50
# Days looked back for an older value of a note's subject: a year of notes.
LOOKBACK_DAYS = 366

# "<subject> is|are <rest>" or "<subject> (has) moved|changed|switched to <rest>": a subject of a
# few words, not a pronoun ("It is fine", "There are three" name nothing).
_VALUE_RE = re.compile(
    r"^(?!(?:it|this|that|there|here|he|she|they|we|i|you|what|which|who)\b)(?P<subject>[\w'][\w' .-]{0,60}?)\s+"
    r"(?:(?P<copula>is|are)(?:\s+now\b)?|(?:(?:has|have|was|were|got)\s+)?(?P<change>moved|changed|switched)\s+to)\s+(?P<rest>\S.*?)[.!]?$",
    re.IGNORECASE,
)
# A copula's verb form with its preposition frames the value after it ("is blocked by", "is waiting on").
_VERB_FORM_RE = re.compile(r"^(?P<frame>\w+(?:ed|ing)\s+(?:by|on|for|to|in|at|with|until|from|behind))\s+(?P<value>\S.*)$", re.IGNORECASE)
# A preposition frames a place or a time ("is at 9:30", "is on Friday", "is in review").
_PREPOSITION_RE = re.compile(r"^(?P<frame>on|at|in|for|from|until|till|due|under|behind|ahead\s+of)\s+(?P<value>\S.*)$", re.IGNORECASE)
# What says when the value holds, not what it is: "trunk now", "Monday again".
_WHEN_TAIL_RE = re.compile(r"(?:,?\s+(?:now|again|anymore|from\s+now\s+on|as\s+of\s+today|today))+$", re.IGNORECASE)
_NEGATION_RE = re.compile(r"^(?:not|no|never|still)\b", re.IGNORECASE)
_CHANGE = "changes to"


@dataclass(frozen=True)
class Value:
    """A note's subject, the frame its value is said in, and the value ("the default branch", "is", "trunk")."""

    subject: str
    frame: str
    value: str
    plain: bool  # said with "is", a preposition or a change: not a verb form's ("is blocked by")
    head: str = ""  # the subject and the frame as typed, the value's line up to its value ("The default branch is")

    def of_same(self, other: Value) -> bool:
        """Whether ``other`` gives the same subject a value the same way (see the module's doc)."""
        if self.subject != other.subject:
            return False
        if _CHANGE in (self.frame, other.frame):
            return self.plain and other.plain
        return self.frame == other.frame


def value_of(line: str) -> Value | None:
    """The value a note of one line gives its subject, or None when it is not shaped as one."""
    match = _VALUE_RE.match(line.strip())
    if not match or len(match.group("subject").split()) > 6:
        return None
    rest = _WHEN_TAIL_RE.sub("", re.sub(r"(?i)^now\s+", "", match.group("rest"))).strip()
    if not rest or _NEGATION_RE.match(rest):
        return None  # "is not green", "is still red": not a value given
    frame = "is" if match.group("copula") else _CHANGE
    verb_form = _VERB_FORM_RE.match(rest)
    framed = verb_form or (_PREPOSITION_RE.match(rest) if match.group("copula") else None)
    if framed:
        frame, rest = f"is {' '.join(framed.group('frame').lower().split())}", framed.group("value")
    subject = re.sub(r"^(?:the|our|my|your)\s+", "", normalise(match.group("subject")))
    said = match.group("copula") or line.strip()[match.end("subject") : match.start("rest")].strip()
    head = " ".join((match.group("subject"), said, *(framed.group("frame").split() if framed else ())))
    return Value(subject, frame, said_again(rest), plain=verb_form is None, head=head)


@dataclass(frozen=True)
class Earlier:
    """A stored note a new one says again (``same``) or gives a new value of."""

    path: str
    text: str
    same: bool


def earlier_note(
    schema: MemorySchema, path: str, candidate: Candidate, taken: Container[str], read: Callable[[str], str | None], when: datetime
) -> Earlier | None:
    """The stored note ``candidate`` (to be filed at ``path``) says again, or gives a new value of.

    A note of ``path``'s day and name saying what it says is said again; so is one of any day
    giving its subject the same value. The newest note of its name giving its subject another
    value (today's, else that of the latest day of the last :data:`LOOKBACK_DAYS` holding one) is
    the one it replaces. Notes this plan writes (``taken``) are passed over.
    """
    said = _one_line(candidate.fields.get(CONTENT_FIELD))
    if said is None:
        return None
    value = value_of(said)
    days = range(LOOKBACK_DAYS + 1) if value is not None else range(1)
    for back in days:
        day_path = path if back == 0 else schema.path_for(candidate.fields, when - timedelta(days=back))
        if back and day_path == path:
            continue  # (a template without a day)
        found = None
        for other, text in _of_the_day(day_path, taken, read):
            stored = _one_line(repaired_memory(text)[0])
            if stored is None:
                continue
            if back == 0 and normalise(stored) == normalise(said):
                return Earlier(other, text, True)
            old = value_of(stored) if value is not None else None
            if old is not None and old.of_same(value):
                found = Earlier(other, text, old.value == value.value)  # the day's last says what held
        if found is not None:
            return found
    return None


def _of_the_day(path: str, taken: Container[str], read: Callable[[str], str | None]):
    """The stored notes named as ``path`` is, numbered in order: ``(path, text)``."""
    stem = path.removesuffix(".md")
    for n in range(1, _MAX_SAID + 1):
        other = path if n == 1 else f"{stem}_{n}.md"
        if other in taken:
            continue
        text = read(other)
        if text is None:
            return
        yield other, text


def _one_line(content: object) -> str | None:
    """The text of a note of one line ("- The default branch is master"), or None."""
    lines = [line for line in content.splitlines() if line.strip()] if isinstance(content, str) else []
    return re.sub(r"^\s*[-*+]\s+", "", lines[0]).strip() if len(lines) == 1 else None
