"""A statement extraction reads from a clause (:class:`Statement`), and whether its object says anything.

The clause rules (:mod:`ov.sessions.memory.rules` and the modules beside it) each make one; it
stays editable until the session is read to the end (a later "actually" corrects it), then
becomes a memory to write (:func:`ov.sessions.memory.candidate.candidate_of`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ov.sessions.memory.standing import names_something

# A fact longer than this is a paragraph, not a statement worth a bullet.
MAX_OBJECT_CHARS = 240

# Objects that point at the conversation rather than state something.
_DEICTIC = frozenset("it this that these those them you me him her us".split())


@dataclass
class Statement:
    """One extracted statement, kept editable until the session is read to the end."""

    memory_type: str
    lead: str  # "Prefers ", "Works at ", "Editor: ", "" ...
    obj: str  # what the lead is about; a correction may swap it
    slot: tuple[str, ...]  # what a later correction of the same thing would match
    path_fields: dict[str, str]
    sources: list[str] = field(default_factory=list)
    noun: str = ""  # for entities: the user's word for it ("current project")
    fact: str = ""  # for entities: a line about it ("Runs on port 5433") instead of "The user's {noun}"
    marked: bool = False  # a correction of nothing in this session: merge may replace a stored line
    turn: int = 0  # which user message it came from; corrections look back one message at most
    swap: tuple[str, str] | None = None  # (old, new): a changed value, put in place in the lines naming it
    probes: tuple[str, ...] = ()  # stored lines this one replaces, beyond what supersede.supersedes derives
    otherwise: str = ""  # the line to store instead when no stored line is replaced or swapped
    only_amends: bool = False  # replaces the lines of ``probes`` or stores nothing (employer.employer_change)
    subject: str = ""  # who said it: whose preferences a change ends (see rivals)
    ends: str = ""  # a choice it takes back ("don't use ruff format anymore"): the lines choosing it end (see rivals)
    chooses: str = ""  # a choice for a purpose said as a change ("Use typer for CLIs"): the others for it end (see rivals)


def informative(obj: str, *, any_length: bool = False) -> bool:
    """False for an object that only points at the conversation: "it", "that's fine", "to do this";
    and, unless ``any_length``, for one longer than :data:`MAX_OBJECT_CHARS` (no value is that long)."""
    words = obj.split()
    if len(words) > 2 and words[0].lower() == "to":
        words = words[2:]  # "to do this" points as much as "this"
    if not words or not (any_length or len(obj) <= MAX_OBJECT_CHARS):
        return False
    first = re.sub(r"'s$", "", words[0].rstrip(".,;:!?"))
    return first.lower() not in _DEICTIC or names_something([first, *(w.strip(".,;:!?") for w in words[1:])], 0)
