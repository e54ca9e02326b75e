"""Corrections in a session: "actually X", "no, I meant X", "X now" replace the statement they refer to.

:mod:`ov.sessions.memory.extract` reads each clause of the user's messages into statements
(:class:`Context` says where each was said); a clause that corrects hands its body to
:func:`correct`, with the reader that makes a statement of it, and the statement it corrects takes
the new wording and file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ov.sessions.memory import kinds, topics
from ov.sessions.memory import text as tx
from ov.sessions.memory.meant import value_meant
from ov.sessions.memory.statement import Statement, informative

# "No, I meant X": a longer X is a new thought, not a swapped word.
MAX_FRAGMENT_WORDS = 6


@dataclass(frozen=True)
class Context:
    """Where a statement was made: its subject, message and turn."""

    subject: str
    msg_id: str
    turn: int
    asked: bool = False  # given to be remembered: see extract_explicit
    unread: list[str] | None = None  # collects the clauses no rule reads: see extract_explicit


def add(statement: Statement, ctx: Context, found: list[Statement]) -> None:
    statement.sources.append(ctx.msg_id)
    statement.turn, statement.subject = ctx.turn, ctx.subject
    found.append(statement)


def correct(body: str, restore, ctx: Context, found: list[Statement], read, *, fragments: bool) -> None:
    """Apply "actually X" (or "X now", "X instead", ...): X replaces the statement it corrects, or stands alone.

    A correction refers to something just said, so only statements from this
    user message or the one before are corrected, except for a statement
    about the very same thing (same preference topic, profile key, entity
    kind or note), which is corrected however far back it was made.

    When X is a whole statement, it corrects the latest statement about the
    same thing; failing that, for preferences and notes, whose topics are
    guessed from their wording, the latest recent statement of the same type
    and lead ("Prefers tabs" for "actually, I prefer spaces"). The corrected
    statement takes X's wording and X's file: "I prefer tabs. Actually, I
    prefer spaces." is one preference, filed under spaces. With nothing to
    correct, X is kept; a statement other than a note is then marked, and its
    memory replaces the stored line it contradicts (:attr:`Candidate.corrects
    <ov.sessions.memory.candidate.Candidate.corrects>`). When X is only a short fragment after "I meant" ("no, I meant
    spaces"), it replaces the object of the latest recent statement that has
    one ("Prefers tabs" -> "Prefers spaces", now under spaces) when it can be
    its value (:func:`ov.sessions.memory.meant.value_meant`); any other fragment is dropped.
    """
    body = tx.without_fillers(body)
    recent = [s for s in found if s.turn >= ctx.turn - 1]
    new = read(body, restore, ctx)
    new = (kinds.as_kind(new) or new) if new is not None else None  # "I'm on nushell now": the shell, whatever its key
    if new is None:
        _swap_fragment(restore(body), recent, ctx, fragments)
        return
    target = next((s for s in reversed(found) if s.slot == new.slot), None)
    if target is None and new.memory_type in ("preferences", "events"):
        target = next((s for s in reversed(recent) if s.memory_type == new.memory_type and s.lead == new.lead), None)
    if target is None:
        new.marked = new.memory_type != "events"
        add(new, ctx, found)
        return
    target.lead, target.obj, target.noun, target.fact = new.lead, new.obj, new.noun, new.fact
    target.slot, target.path_fields = new.slot, new.path_fields
    target.sources.append(ctx.msg_id)
    if any(s.ends or s.swap for s in found[found.index(target) + 1 :]):
        found.append(found.pop(found.index(target)))  # said again after what ended it: it holds after that


def _swap_fragment(fragment: str, recent: list[Statement], ctx: Context, fragments: bool) -> None:
    target = recent[-1] if recent and fragments else None
    if target is None or not informative(fragment) or len(fragment.split()) > MAX_FRAGMENT_WORDS:
        return
    if not (target.lead or target.memory_type == "entities") or target.fact:
        return
    fragment = value_meant(fragment, target)
    if fragment is None:
        return
    if target.lead.lower() == "is " and not re.match(r"(?i)an?\s", fragment):
        fragment = ("an " if fragment[:1].lower() in "aeiou" else "a ") + fragment
    if target.memory_type == "entities":
        target.obj = re.sub(r"(?i)^(?:called|named|the)\s+", "", fragment)
    else:
        target.obj = fragment
    if target.memory_type == "preferences" and not target.lead.startswith(("Always ", "Never ")):
        topic = topics.slug(fragment)  # the file is named for what the preference now says
        target.slot, target.path_fields = ("preferences", topic), {**target.path_fields, "topic": topic}
    target.sources.append(ctx.msg_id)
