"""Which stored system a shorter name said later is: "the gateway" is the "API gateway", "billing"
the "billing service"; "the DB" is not the "prod DB".

A system is named in full once ("The API gateway runs on port 8080", "the billing service runs on
Postgres 13") and then in fewer words ("the gateway is on port 8443", "billing is on Postgres 16").
The shorter name is the stored one when exactly one system's card could be it: one whose name ends
with it (gateway: API gateway), or one whose name is it and a word for a kind of system (billing:
billing service, billing API). Never a card named for an environment or a copy of the system: a
"DB" said alone may be a local one as well as the prod one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from ov.sessions.memory import text as tx
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.files import TRAILER_OPEN, is_history
from ov.sessions.memory.merge import SCOPE_RE
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema
from ov.sessions.memory.systems import SYSTEM_NOUNS

# Words that name one copy of a system among others of its kind.
_INSTANCE_WORDS = frozenset((
    "prod", "production", "staging", "stage", "dev", "development", "local", "localhost", "test", "testing", "qa", "uat",
    "sandbox", "preview", "demo", "canary", "dr", "replica", "primary", "secondary", "backup", "legacy", "old", "new", "personal",
))


def named_in_full(path: str, read: Callable[[str], str | None], listing: Callable[[str], list[str]]) -> str:
    """``path`` (a system's card, ``.../billing.md``), or the one card of its folder that its name
    is short for when none has its name (``.../billing_service.md``), so a fact said of it later
    corrects the line there."""
    folder, _, name = path.rpartition("/")
    stem = name.removesuffix(".md")
    if "_" in stem or read(path) is not None:
        return path
    fuller = [
        other for other in listing(folder)
        if not other.startswith(".") and (other.endswith(f"_{stem}.md") or _named_and_kind(other.removesuffix(".md"), stem))
    ]
    if len(fuller) != 1 or _INSTANCE_WORDS.intersection(fuller[0].removesuffix(".md").split("_")):
        return path
    return f"{folder}/{fuller[0]}"


def _named_and_kind(name: str, stem: str) -> bool:
    """Whether a card's ``name`` is ``stem`` and a kind of system: "billing_service" for "billing"."""
    words = name.split("_")
    return len(words) == 2 and words[0] == stem and (words[1] in SYSTEM_NOUNS or words[1].rstrip("s") in SYSTEM_NOUNS)


# A card's line of its history ("Migrated off Jenkins in 2024", "Replaced Travis with Jenkins", "Was
# on Jenkins until May"): the old tool named there is what it was, which a swap would rewrite.
_CHANGE_RE = re.compile(
    r"(?i)\b(?:migrat|mov(?:ed|ing)\b|replac|switch|swapp|port(?:ed|ing)\b|drop|retir|remov|deprecat|sunset|decommission|ditch|"
    r"abandon|used\s+to\b|was\b|were\b|formerly\b|previously\b|until\b|before\b|instead\s+of\b|off\b|away\s+from\b)"
)


def switched_cards(entities: MemorySchema, switch: Candidate, when: datetime, read: Callable[[str], str | None],
                   listing: Callable[[str], list[str]]) -> list[tuple[str, Candidate]]:
    """(path, amendment) for each system card with a line naming the old value of the team's
    ``switch`` whole: after "we switched from Jenkins to Buildkite", "Runs on Jenkins" in ``ci.md``
    names Buildkite, as the team's own lines do (the cards are the team's systems, whatever their
    name). Not a line naming it at a version ("Runs Node 18" is no line of "from Node to Bun"'s), nor
    for a switch for a purpose ("... to Go for the CLI"); the card named for the old value keeps
    its lines, a card that tells of a change naming it (:data:`_CHANGE_RE`) keeps its lines too, and
    no card is made."""
    # A switch for a purpose ("from Python to Go for the CLI") is no switch of what the systems run.
    if switch.swap is None or SCOPE_RE.search(f" {switch.swap[1]} "):
        return []
    old, new = switch.swap
    folder = entities.path_for({"category": "systems", "name": "x"}, when).rpartition("/")[0]
    named = re.compile(rf"(?i){tx.named(old)}(?P<version>\s+v?\d)?")  # (a whole name: not "C" in "C++")
    out = []
    for name in listing(folder):
        path, stem = f"{folder}/{name}", name.removesuffix(".md")
        text = read(path) if name.endswith(".md") and not name.startswith(".") and stem != "_".join(old.lower().split()) else None
        items = [line for line in (text or "").split(TRAILER_OPEN, 1)[0].splitlines() if re.match(r"\s*[-*+]\s", line) and not is_history(line)]
        found = [(m, line) for line in items for m in named.finditer(line)]
        if found and not any(m.group("version") or _CHANGE_RE.search(line) for m, line in found):
            fields = {"category": "systems", "name": stem, CONTENT_FIELD: [{"swap": old, "to": new}]}
            out.append((path, Candidate("entities", fields, list(switch.source_message_ids), only_amends=True)))
    return out
