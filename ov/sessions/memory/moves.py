"""What moved, asked to be remembered: a system to a new place ("we moved CI to Buildkite", "the staging
server moved to staging2.internal:9443"), to a new version of what it uses ("we upgraded the orders
service to MySQL 8": "Uses MySQL 8" in place of "Uses MySQL 5.7") or to a new owner ("ownership of the search service moved to
the platform team"). Its card's line saying where it ran, or who owned it, is replaced; a move to an
address or to another product ("our Redis moved to Valkey", "we moved our docs to Notion") replaces its
address too, which was the old one's (a move to a region or to a folder of the repository leaves it).

A role is no system: "our CTO moved to Google" says a person left, and the role stays the team's,
held by someone else; asked to be remembered, it is a dated note of what happened, never a card
(entities/systems/cto.md would tell every later session the CTO is at Google). Nor is a place of the
team's that moved to another place ("we moved our office to Lisbon", "our HQ moved to Austin, TX"):
no code runs there, and it is no fact of the user's own; it is a dated note of what happened too
(:func:`place_moved`).
"""

from __future__ import annotations

import re

from ov.sessions.memory import topics
from ov.sessions.memory.changes import value_of
from ov.sessions.memory.places import is_place
from ov.sessions.memory.statement import Statement, informative
from ov.sessions.memory.systems import (
    ADDRESS_PROBES,
    ADDRESS_RE,
    DAY_NAME,
    FILE_NOUNS,
    NOT_NAMES,
    PLACEMENT_LEADS,
    REGION_RE,
    VERSION_LEADS,
    VERSIONED_RE,
    entity_fact,
    names_a_system,
    one_at_a_time,
)

# "we moved CI to Buildkite": where a system now runs.
_SYSTEM_MOVED_RE = re.compile(
    r"^we(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|since\s+|already\s+|now\s+)?(?:moved|migrated|switched|(?P<up>upgraded|bumped|updated|downgraded))\s+(?:(?P<our>our|the)\s+)?"
    # (not what was left: "we moved off Heroku to Fly.io", "away from Jenkins to ..." is a switch, changes.py's)
    r"(?!(?:off|away|from|over\s+from)\b)(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)\s+(?:over\s+)?(?:from\s+(?P<old>.+?)\s+)?to\s+(?P<new>.+)$",
    re.I,
)
# "we changed the api port to 9090", "the staging database host changed to db-2.internal": a system's
# port or host set anew, which is what "the api port is 9090" says (systems.one_at_a_time).
_ATTRIBUTE_SET_RE = re.compile(
    r"^(?:we(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:changed|moved|switched|bumped|set|updated|pointed)\s+)?"
    r"(?:the|our)\s+(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)\s+(?P<attr>port|host(?:name)?|address|url)\s+"
    r"(?:(?:has\s+|was\s+)?(?:changed|moved|switched)\s+)?(?:from\s+\S+\s+)?to\s+(?P<new>.+)$",
    re.IGNORECASE,
)
# "the staging server moved to staging2.internal:9443": the system is named as what moved.
_MOVED_ITSELF_RE = re.compile(
    r"^(?:(?P<det>the|our)\s+)?(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)\s+(?:has\s+|was\s+|got\s+)?(?:been\s+)?(?:(?:just|recently|finally)\s+)?(?:moved|migrated|(?P<up>upgraded|bumped|updated|downgraded))\s+(?:over\s+)?"
    r"(?:from\s+(?P<old>.+?)\s+)?to\s+(?P<new>.+)$",
    re.IGNORECASE,
)
# "Ownership of the search service moved to the platform team": who owns a system now.
_OWNERSHIP_MOVED_RE = re.compile(
    r"^(?:the\s+)?ownership\s+of\s+(?:the\s+|our\s+)?(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)\s+(?:has\s+)?"
    r"(?:moved|passed|went|changed|was\s+(?:moved|handed|transferred)|transferred)\s+(?:over\s+)?to\s+(?P<new>.+)$",
    re.I,
)
_OWNER_LEADS = ("Is owned by", "Are owned by", "Owned by", "Belongs to", "Belong to", "Ownership moved to")
# A path in a repository (a folder, a source file), not a URL: where code moved, not a system.
_CODE_PATH_RE = re.compile(r"(?i)^(?![a-z][\w+.-]*://)(?:[\w.-]*/[\w./-]*|[\w-]+(?:/[\w-]+)*\.(?:py|pyi|js|jsx|ts|tsx|go|rs|rb|java|kt|cs|cpp|c|h|php|swift|scala|sh|md|ya?ml|toml|json))$")

# An old value that names a kind of thing, not one: "from the old cluster", "from a VM".
_SOME_RE = re.compile(r"(?i)^(?:an?|some|another|this|that|it|old|new|previous|current)\b")
# Words for what a person does, a role the team has: whoever "moved" is a person, not a system.
_ROLES = frozenset((
    "ceo", "cto", "cfo", "coo", "cio", "ciso", "cpo", "cmo", "vp", "svp", "evp", "president", "founder", "cofounder", "co-founder",
    "manager", "boss", "lead", "director", "head", "chair", "owner", "intern", "engineer", "developer", "dev", "designer", "architect",
    "admin", "sysadmin", "dba", "sre", "pm", "em", "recruiter", "colleague", "coworker", "co-worker", "teammate", "mentor",
    "consultant", "contractor", "analyst", "scientist", "researcher", "officer", "tester", "writer", "advocate", "hire",
))


def ownership_moved(body: str, restore) -> Statement | None:
    """"ownership of the search service moved to the platform team" -> entities/systems/search_service.md:
    "Is owned by the platform team", in place of the line saying who owned it."""
    match = _OWNERSHIP_MOVED_RE.match(body)
    if not match or not names_a_system(match.group("name").split()[-1]):
        return None
    new = value_of(match.group("new"), restore)
    if not informative(new):
        return None
    fact = entity_fact(restore(match.group("name")), f"Is owned by {new}")
    fact.probes = _OWNER_LEADS
    return fact


def place_moved(body: str, restore) -> Statement | None:
    """"We moved our office to Lisbon", "our HQ moved to Austin, TX": a place of the team's (a thing
    named by a word, not a system's and not a name of its own: "our Redis moved to Frankfurt" is a
    system's move) moved to a place (:func:`ov.sessions.memory.places.is_place`), as a dated note."""
    match = _SYSTEM_MOVED_RE.match(body) or _MOVED_ITSELF_RE.match(body)
    new = value_of(match.group("new"), restore) if match else ""
    if not match or not is_place(new) or re.match(rf"{DAY_NAME}\b", new):
        return None  # ("our standup moved to Thursday": a day, when the team meets, is no place)
    name = match.group("name")
    site = name[:1].islower() or (name.isupper() and len(name) <= 3)  # "office", "HQ"; not "Redis", "AWS Lambda"
    if names_a_system(name.split()[-1]) or not site or name.split()[0].lower() in NOT_NAMES:
        return None
    note = restore(body)
    return Statement("events", "", note, ("events", topics.event_name(note)), {})


def system_moved(body: str, restore) -> Statement | None:
    """"we moved CI to Buildkite", "the staging server moved to staging2.internal:9443" ->
    entities/systems/ci.md: "Moved to Buildkite", in place of where it ran (its address too)."""
    match = _SYSTEM_MOVED_RE.match(body) or _MOVED_ITSELF_RE.match(body)
    if not match or place_moved(body, restore):
        return None  # (a place of the team's moved to another: a note)
    name, new = restore(match.group("name")), value_of(match.group("new"), restore)
    if match.group("up"):
        return _upgraded(name, new)
    kept_in_files = name.split()[-1].lower().removesuffix("s") in FILE_NOUNS
    if not informative(new) or (_CODE_PATH_RE.match(new) and not kept_in_files) or not _moved_system(match, name, new):
        return None  # "moved to services/billing/", "to api/search.py": a move in the code, not where it runs
    slot = ("entities", "systems", name.lower())
    # A move to an address, or to another product ("our Redis moved to Valkey", "we moved CI to
    # Buildkite"), is a switch: the address it had was the old one's, and is no longer known to hold.
    probes = PLACEMENT_LEADS if _CODE_PATH_RE.match(new) or REGION_RE.match(new) else (*PLACEMENT_LEADS, *ADDRESS_PROBES)
    if not ADDRESS_RE.match(new) and (versioned := VERSIONED_RE.match(new)):
        # "moved to Python 3.12" is a new version of what it runs, not a new place: it replaces
        # "Runs Python 3.11", never "Runs on Kubernetes".
        probes = tuple(f"{verb} {versioned.group('name')} #" for verb in (*VERSION_LEADS, "Moved to"))
    moved = Statement("entities", "", name, slot, {"category": "systems"}, fact=f"Moved to {new}", probes=probes)
    old = re.sub(r"(?i)^(?:the|our|my)\s+", "", value_of(match.group("old"), restore)) if match.group("old") else ""
    if informative(old) and len(old.split()) <= 4 and not _SOME_RE.match(old) and old.casefold() != new.casefold():
        # "we migrated CI from Jenkins to GitHub Actions" is the team's switch too: its lines naming
        # Jenkins ("Team uses Jenkins for CI") name GitHub Actions (candidate.candidate_of)
        moved.swap = (old, new)
    return moved


def _upgraded(name: str, new: str) -> Statement | None:
    """"we upgraded the orders service to MySQL 8" -> entities/systems/orders_service.md: "Uses MySQL 8",
    in place of the line naming another version of it ("Uses MySQL 5.7", "Runs MySQL 5.7"); None
    when no version is named ("we updated the docs to the new API") or what was upgraded is no system."""
    versioned = VERSIONED_RE.match(new)
    if versioned is None or not (names_a_system(name.split()[-1]) or (name[:1].isupper() and name.split()[0].lower() not in NOT_NAMES)):
        return None
    probes = tuple(f"{verb} {versioned.group('name')} #" for verb in (*VERSION_LEADS, "Moved to"))
    return Statement("entities", "", name, ("entities", "systems", name.lower()), {"category": "systems"}, fact=f"Uses {new}", probes=probes)


def attribute_set(body: str, restore) -> Statement | None:
    """"we changed the api port to 9090 today" -> entities/systems/api.md: "Port is 9090", in place
    of the line naming its port; a host, an address or a URL in place of where it was."""
    match = _ATTRIBUTE_SET_RE.match(body)
    if not match or not names_a_system(match.group("name").split()[-1]):
        return None  # "we changed the default port to 8000": a setting of the code at hand
    new, attribute = value_of(match.group("new"), restore).rstrip(".,;"), match.group("attr").lower()
    fact = entity_fact(restore(match.group("name")), f"{attribute.capitalize()} is {new}")
    fact.probes = one_at_a_time(fact.fact)
    return fact if fact.probes else None  # ("to the new one" names neither a port nor an address)


def _moved_system(match: re.Match[str], name: str, new: str) -> bool:
    """Whether what moved is a system: named as one ("the staging server", "CI"), or by a name of its own ("our Redis",
    "Grafana") moved to an address, a port or a region, or after "our" / "the" to a named thing ("our Redis moved to Valkey"),
    or a thing of the team's the team moved to one ("we moved our docs to Notion", not "our standup to Monday");
    never one named by a role moved to a named thing ("our CTO moved to Google"): see the module's doc (at an
    address, "our Admin moved to admin2.internal", a role's name is a system's: an admin panel)."""
    if names_a_system(name.split()[-1]) or ADDRESS_RE.match(new) or REGION_RE.match(new):
        return names_a_system(name.split()[-1]) or (name.split()[0].lower() not in NOT_NAMES and name[:1].isupper() and len(name.split()) <= 2)
    if name.split()[-1].lower().removesuffix("s") in _ROLES:
        return False
    named = len(new.split()) <= 3 and all(w[:1].isupper() or w[:1].isdigit() for w in new.split()) and not re.match(rf"{DAY_NAME}\b", new)
    if "our" in match.re.groupindex and match.group("our") is not None and len(name.split()) <= 2:
        return named  # "we moved our docs to Notion": where a thing of the team's lives now (not "our standup to Monday")
    determined = "det" in match.re.groupindex and match.group("det") is not None and name[:1].isupper() and len(name.split()) <= 2
    return determined and named  # ("our office moved to Berlin": "office" names none)
