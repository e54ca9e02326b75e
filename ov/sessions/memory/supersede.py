"""Which stored lines a new line replaces: the same key, the opposite feeling, the other adverb.

The rules (:mod:`ov.sessions.memory.rules`) word each line they read ("Editor: Emacs", "Prefers
spaces", "Never push to main"); :func:`supersedes` names the stored lines such a line replaces,
as probes for :func:`ov.sessions.memory.merge.patch_text`'s "supersede" op, whoever worded it
(the model's lines too: :func:`ov.sessions.memory.candidate.worded`).
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import verbs
from ov.sessions.memory.changes import VALUE_END_RE
from ov.sessions.memory.choices import choice_of, choice_probes, opposed
from ov.sessions.memory.rivals import choice

# What ends a company's name without naming it: "Acme Corp" is the "Acme" the user worked at.
_CORPORATE_SUFFIX_RE = re.compile(
    r"(?i)(?:,?\s+(?:corp(?:oration)?|inc(?:orporated)?|ltd|limited|gmbh|llc|llp|plc|co|company|ag|sa|s\.a|bv|b\.v|nv|pty|"
    r"se|oy|ab|as|kk|srl|sas|spa|s\.p\.a)\.?)+$"
)
# A role held at a place, as an older ov or "I'm a backend engineer at Stripe" stored it: a place is
# capitalised ("Is a regular at the gym", "Is an engineer at heart" name none).
ROLE_AT_PROBES = ("Is a* at [A-Z]*", "Is an* at [A-Z]*")


def company_base(name: str) -> str:
    """``name`` without a corporate suffix ("Acme Corp", "Acme, Inc." -> "Acme"): a probe of the
    base matches the stored line either way, since a probe matches the start of a line."""
    base = _CORPORATE_SUFFIX_RE.sub("", name.strip()).strip()
    return base or name.strip()


# What the team no longer does, as rules.team_says words it: "no longer deploys with helm", "does
# not deploy with helm anymore".
_TEAM_ENDED_RE = re.compile(r"(?i)^(?:no\s+longer\s+(?P<v>\S+)|does\s+not\s+(?P<base>\S+))\s+(?P<x>\S.*?)(?(base)\s+any\s?more)$")

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
            obj = obj.split(" \u2014 ")[0]  # "Never push to main \u2014 open a PR" (instructions.with_alternatives): the line a later "always push to main" replaces
            other = "Never " if adverb == "Always" else "Always "
            if rest:
                return (other + rest + obj,)
            # An instruction also replaces its lines in the wording of older versions ("Always uses ..."),
            # and with the user's "my" as a habit voices it ("review your own PRs"): one line, whoever said it.
            verb, after = verbs.third_person_parts(obj)
            said = tx.voiced(obj, "you")
            voiced = (other + said, f"{adverb} {said}$") if said != obj else ()
            # and the team's convention it contradicts ("Keep PRs small (team convention)": rules.convention)
            agreed = f"{tx.capitalise(obj)} (team convention)" if adverb == "Never" else f"Don't {obj} (team convention)"
            return (other + obj, f"{other}{verb.lower()} {after}", f"{adverb} {verb.lower()} {after}$", *voiced, agreed)
        return ()
    if memory_type != "profile":
        return ()
    if lead.startswith("No longer "):
        positive = tx.capitalise(lead[len("No longer ") :]) + obj
        if re.match(r"(?i)works\s+(?:at|for)\s", positive):
            place = company_base(positive.split(None, 2)[2])
            return ("Works at " + place, "Works for " + place, *(f"{probe[:-len('[A-Z]*')]}{place}*" for probe in ROLE_AT_PROBES))
        return (positive, "*: " + obj) if positive.startswith("Uses ") else (positive,)
    if lead.startswith("Is no longer "):
        return ("Is " + obj,)
    if lead.startswith("Team no longer "):  # "Team no longer uses Jira" ends "Team uses Jira"
        return ("Team " + lead[len("Team no longer ") :] + obj, *_team_keyed(lead[len("Team no longer ") :].strip(), obj))
    if lead.endswith(": no longer "):
        return (lead[: -len(" no longer ")] + " " + obj,)
    if lead.endswith(": "):
        return (lead.strip(), *tx.other_spellings(lead.strip()))
    if lead in ("Works at ", "Works for "):
        # A new employer also says where the user no longer works: that line has nothing left to add.
        # So does a role held at another place ("Is a backend engineer at Stripe").
        return ("Works at", "Works for", "No longer works at", "No longer works for", *ROLE_AT_PROBES)
    if lead == "Works as ":
        return ("Works as",)
    if lead == "Team " and (ended := _TEAM_ENDED_RE.match(obj)):
        # "Team no longer deploys with helm" (rules.team_says of "we no longer deploy with helm") ends
        # "Team deploys with helm", whatever the verb: what the team did is not what it does
        # (not its reason: "with helm, it kept breaking"); one it no longer uses ends the team's key
        # naming it too ("Team's pager tool: PagerDuty"), as the user's "No longer uses" ends theirs
        verb, what = ended.group("v") or verbs.conjugate(ended.group("base")), tx.without_aside(VALUE_END_RE.sub("", ended.group("x"))).strip()
        return (f"Team {verb} {what}", *_team_keyed(verb, what))
    if lead == "Team " and not obj.lower().startswith(("uses ", "no longer ", "does not ")):
        return (f"Team no longer {obj}$",)  # said again, it holds again ("Team uses X" below)
    used = re.match(r"(?i)^(?P<team>team\s+)?uses\s+(?P<x>\S.*)$", lead + obj)
    if used and (chosen := choice(f"Use {used.group('x')}")) is not None:
        # "I use black" after "I don't use black anymore": the newer statement holds, the line it contradicts goes
        return (f"{'Team no' if used.group('team') else 'No'} longer uses {chosen.chosen}$",)
    return ()


def _team_keyed(verb: str, what: str) -> tuple[str, ...]:
    """For a thing the team no longer uses, the team's key naming it ("Team's pager tool: PagerDuty"),
    as the user's "No longer uses X" ends their "Editor: X"; () for another verb."""
    return ("Team's *: " + re.sub(r"([*?[])", r"[\1]", what),) if verb == "uses" else ()
