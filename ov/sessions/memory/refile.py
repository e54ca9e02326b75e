"""Dated notes an older ov made of statements that today's ov files elsewhere.

ov before 1d3df58 kept "Always run the linter before committing" and "The staging database is at
db-staging.internal:5432" as dated notes (``events/2026/12/05/run_linter.md``); today the rules
read them as a preference and a system's fact. Left as notes, ``ov remember`` of the same words
does not see them (it merges into the file its reading names) and writes a second copy, and a
correction leaves the old value in its note, found and recalled beside the new one.

A note is such a one when ``ov remember`` of its words, today, makes no dated note of them: every
line of it read by the rules, or filed as remember files what they do not read
(:func:`ov.sessions.memory.standing_note.noted`, the same code): a convention, the user's fact or
a thing's fact ("the build takes 20 minutes": the build's card), into memories of types that merge.
A note of a happening ("the deploy broke yesterday") is what today's ov makes too, and stays; so
does one today's ov would refuse (chatter, a task for now), which the user kept once.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from ov.errors import InvalidInput
from ov.sessions import clock
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.extract import extract_text
from ov.sessions.memory.files import parse_memory
from ov.sessions.memory.schema import MemorySchema
from ov.sessions.memory.standing_note import noted

EVENTS = "events"  # the folder (and type) of dated notes below a memories root
# The source a note made on purpose (``ov remember --type events``) names in its trailer: the user
# chose a dated note, which today's rules would file elsewhere; fsck and refile leave it be.
FILED_AS_NOTE = "ov remember --type events"


def is_dated_note(rel: str) -> bool:
    """Whether ``rel`` (a path below a memories root) names a dated note's file."""
    return rel.startswith(f"{EVENTS}/") and rel.endswith(".md") and not rel.rpartition("/")[2].startswith(".")


def refiled(text: str, schemas: Mapping[str, MemorySchema], user: str | None, *, named: bool = False) -> list[Candidate]:
    """The memories today's ``ov remember`` makes of the dated note ``text``'s words, when none of
    them is a dated note; [] when the note is one today's ov would make (or is not readable), or
    was made a note on purpose (:data:`FILED_AS_NOTE`) and is not ``named`` by the user to move.

    They are said as an earlier statement is (:meth:`Candidate.said_earlier`): a stored line that
    a correction of theirs would replace was said later, and holds."""
    try:
        content, meta = parse_memory(text)
    except InvalidInput:
        return []  # a note a hand broke: the next write of it says so, not this
    if not named and FILED_AS_NOTE in (meta.get("sources") or ()):
        return []
    when = _created(meta)
    lines = [line.strip() for line in content.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    out: list[Candidate] = []
    for line in lines:
        said = line.removeprefix("- ").removeprefix("* ")
        unread: list[str] = []
        found = extract_text(said, when=when, user=user, unread=unread)
        if not found:
            found = extract_text(f"Remember that {said}", when=when, user=user, unread=unread)
        # What no rule reads is filed as ov remember files it (standing_note.noted): a happening stays
        # a dated note; a convention or a fact the old fallback kept here goes where remember puts it today.
        found, why_not = noted(found, unread, said, when, user or "user")
        if why_not or not found or any(c.memory_type not in schemas or schemas[c.memory_type].add_only for c in found):
            return []
        out.extend(c.said_earlier() for c in found)
    return out


def _created(meta: Mapping) -> datetime:
    """When the note was made (its words' "today"), or now for a note without a readable date."""
    try:
        return datetime.fromisoformat(str(meta.get("created_at", "")))
    except ValueError:
        return clock.now()
