"""Which stored lines a new line replaces: the same key, the opposite feeling, the other adverb.

The rules (:mod:`ov.sessions.memory.rules`) word each line they read ("Editor: Emacs", "Prefers
spaces", "Never push to main"); :func:`supersedes` names the stored lines such a line replaces,
as probes for :func:`ov.sessions.memory.merge.patch_text`'s "supersede" op, whoever worded it
(the model's lines too: :func:`ov.sessions.memory.candidate.worded`).
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory.choices import choice_of, choice_probes, opposed

POSITIVE = ("Prefers ", "Likes ", "Loves ", "Enjoys ", "Is a fan of ")
NEGATIVE = ("Dislikes ", "Hates ", "Does not like ", "Does not love ", "Does not enjoy ", "Does not want ", "Is not a fan of ", "Cannot stand ")


def supersedes(memory_type: str, lead: str, obj: str) -> tuple[str, ...]:
    """The stored lines a line ``lead + obj`` replaces, as probes for merge's ``supersede`` op.

    A probe ending in ":" names a key ("editor:" matches "Editor: Neovim"), one
    starting with "*:" a value under any key, one ending in "$" the whole line,
    and any other the start of a line.
    """
    if memory_type == "preferences":
        if lead.startswith("No longer "):
            return (lead[len("No longer ") :].capitalize() + obj,)
        if lead in POSITIVE:
            # Saying a choice again ends its "No longer" line, however the choice was put then or now.
            return (*opposed(NEGATIVE, obj), *choice_probes("No longer " + lead.lower() + choice_of(obj)))
        if lead in NEGATIVE:
            return opposed(POSITIVE, obj)
        adverb, _, rest = lead.partition(" ")
        if adverb in ("Always", "Never"):
            other = "Never " if adverb == "Always" else "Always "
            if rest:
                return (other + rest + obj,)
            # An instruction also replaces its lines in the wording of older versions ("Always uses ..."),
            # and with the user's "my" as a habit voices it ("review your own PRs"): one line, whoever said it.
            verb, after = tx.third_person_parts(obj)
            said = tx.voiced(obj, "you")
            voiced = (other + said, f"{adverb} {said}$") if said != obj else ()
            return (other + obj, f"{other}{verb.lower()} {after}", f"{adverb} {verb.lower()} {after}$", *voiced)
        return ()
    if memory_type != "profile":
        return ()
    if lead.startswith("No longer "):
        positive = tx.capitalise(lead[len("No longer ") :]) + obj
        if re.match(r"(?i)works\s+(?:at|for)\s", positive):
            place = positive.split(None, 2)[2]
            return ("Works at " + place, "Works for " + place)
        return (positive, "*: " + obj) if positive.startswith("Uses ") else (positive,)
    if lead.startswith("Is no longer "):
        return ("Is " + obj,)
    if lead.endswith(": no longer "):
        return (lead[: -len(" no longer ")] + " " + obj,)
    if lead.endswith(": "):
        return (lead.strip(), *tx.other_spellings(lead.strip()))
    if lead in ("Works at ", "Works for "):
        # A new employer also says where the user no longer works: that line has nothing left to add.
        return ("Works at", "Works for", "No longer works at", "No longer works for")
    if lead == "Works as ":
        return ("Works as",)
    return ()
