"""The clause rules of deterministic extraction: what one clause says about the user, if anything.

The table in :mod:`ov.sessions.memory.extract` lists them; this module holds
their patterns, the wording of the lines they produce, and which stored lines
each line supersedes (:func:`supersedes`, applied by
:func:`ov.sessions.memory.merge.patch_text`). A clause reaches these rules
already cleaned: fillers, trailing punctuation and code spans dealt with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ov.sessions.memory import text as tx

# A fact longer than this is a paragraph, not a statement worth a bullet.
MAX_OBJECT_CHARS = 240

# "now", "these days", "instead" say that a statement replaces an older one (as "actually" does,
# which extract reads); they are not part of what is stored.
_CHANGE_LEAD_RE = re.compile(r"^(?:(?:now|nowadays|these\s+days|instead|from\s+now\s+on)\b[,:]?\s+)+", re.I)
_CHANGE_TAIL_RE = re.compile(r"[,\s]+(?P<m>now|nowadays|these\s+days|instead|from\s+now\s+on)$", re.I)
_CHANGE_INNER_RE = re.compile(r"(?i)\b(?P<v>I|I'm|is|are)\s+now\s+")
# "for now" and "until now" are part of what is said, not a change.
_NOW_KEEPS = frozenset("for until till right just by from to up".split())

_REMEMBER_RE = re.compile(
    r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don't\s+forget|do\s+not\s+forget|note\s+that|note:)"
    r"(?:\s+that\b)?[,:]?\s*(?P<x>.+)$",
    re.I,
)
_PREFER_RE = re.compile(
    r"^I\s+(?:(?:really|generally|usually|mostly|much|strongly|definitely|also|still|do|truly)\s+)*"
    r"(?P<verb>prefer|like|love|enjoy|dislike|hate)\s+(?P<x>.+)$",
    re.I,
)
_NOT_LIKE_RE = re.compile(r"^I\s+(?:don't|do\s+not|dont)\s+(?:really\s+)?(?P<verb>like|love|enjoy|want)\s+(?P<x>.+)$", re.I)
_ALWAYS_RE = re.compile(r"^I\s+(?P<adv>always|never)\s+(?P<x>.+)$", re.I)
_IDENTITY_RE = re.compile(r"^(?:I\s+am|I'm|Im)\s+(?P<x>(?:a|an)\s+.+)$", re.I)
_WORK_RE = re.compile(r"^I\s+work\s+(?P<prep>as|at|for|on)\s+(?P<x>.+)$", re.I)
_MY_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+(?P<y>.+)$", re.I)
_SWITCHED_RE = re.compile(
    r"^I(?:'ve|\s+have)?\s+switched\s+my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:from\s+.+?\s+)?to\s+(?P<y>.+)$", re.I
)
# "no longer" and "not ... anymore": the statement a line used to make is no longer true.
_NEG_VERBS = "use|prefer|like|love|enjoy|want|work|live|write|code|program"
_NO_LONGER_RE = re.compile(rf"^I\s+no\s+longer\s+(?P<verb>{_NEG_VERBS})\s+(?P<x>.+)$", re.I)
_NOT_ANYMORE_RE = re.compile(rf"^I\s+(?:don't|do\s+not|dont)\s+(?P<verb>{_NEG_VERBS})\s+(?P<x>.+?)\s+any\s?more$", re.I)
_STOPPED_RE = re.compile(r"^I(?:'ve|\s+have)?\s+stopped\s+(?P<verb>using|preferring|liking|working)\s+(?P<x>.+)$", re.I)
_NOT_IDENTITY_NOW_RE = re.compile(
    r"^(?:I\s+am|I'm|Im)\s+(?:no\s+longer\s+(?P<x>(?:a|an)\s+.+)|not\s+(?P<y>(?:a|an)\s+.+?)\s+any\s?more)$", re.I
)
_MY_NOT_RE = re.compile(r"(?i)^(?:no\s+longer\s+(?P<x>.+)|not\s+(?P<y>.+?)\s+any\s?more)$")
_MY_ISNT_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:isn't|is\s+not|aren't|are\s+not)\s+(?P<y>.+?)\s+any\s?more$", re.I)
_FIRST_PERSON_RE = re.compile(r"^I(?P<rest>(?:'m|'ve|'ll|'d)\b.*|\s+.+)$", re.I)
_MY_FACT_RE = re.compile(r"^my\s+(?P<rest>.+)$", re.I)
# "our staging DB runs on port 5433": a fact about a system the user works with ("the X" needs
# a modifier, "the staging DB": "the server" alone could be anyone's).
_FACT_RE = re.compile(
    r"^(?:(?:our|our\s+team's|my\s+team's)\s+(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)|"
    r"the\s+(?P<named>[\w.+-]+(?:\s+[\w.+-]+){1,3}?))\s+"
    r"(?P<pred>(?:is|are|runs|uses|lives|has|listens|needs|requires|sits|points|hosts|stores|serves|accepts|holds)\s+.+)$",
    re.I,
)
# A note that names a day or tells what happened is an event, not a standing fact.
_DATED_RE = re.compile(
    r"(?i)\b(?:today|tomorrow|yesterday|tonight|\d{4}-\d{2}-\d{2}|(?:on|this|next|last)\s+(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|week|month|year|sprint)|was|were|happened|broke|went)\b"
)
# A state that passes ("the staging DB is down") is news for events, not a standing fact.
_TRANSIENT_RE = re.compile(r"(?i)\b(?:down|up|broken|flaky|slow|failing|offline|unavailable|unreachable|fixed|back)\b")
_RECALL_RE = re.compile(r"(?i)^(?:when|how|what|why|where|who|whether|if)\b")
# "I'm a bit tired" is a mood, not an identity.
_NOT_IDENTITY_RE = re.compile(r"(?i)^an?\s+(?:bit|little|lot|tad|few|fan)\b")

_PREFER_LEADS = {"prefer": "Prefers", "like": "Likes", "love": "Loves", "enjoy": "Enjoys", "dislike": "Dislikes", "hate": "Hates"}
_POSITIVE = ("Prefers ", "Likes ", "Loves ", "Enjoys ")
_NEGATIVE = ("Dislikes ", "Hates ", "Does not like ", "Does not love ", "Does not enjoy ", "Does not want ")
_PREFERENCE_VERBS = frozenset(("prefer", "like", "love", "enjoy", "want"))
_GERUNDS = {"using": "use", "preferring": "prefer", "liking": "like", "working": "work"}
# Objects that point at the conversation rather than state something.
_DEICTIC = frozenset("it this that these those them you me him her us".split())
# "my K is ..." where K is a passing thought, not a fact about the user.
_NOT_FACTS = frozenset(
    "point question guess concern problem issue idea suggestion plan goal answer bad fault pleasure "
    "understanding assumption hope worry thought thinking feeling take opinion request task branch mind".split()
)
ENTITY_CATEGORIES = {
    "project": "projects", "repo": "projects", "repository": "projects", "codebase": "projects",
    "team": "teams", "squad": "teams",
    "company": "organizations", "employer": "organizations", "organization": "organizations",
    "organisation": "organizations", "org": "organizations", "startup": "organizations",
    "manager": "people", "boss": "people", "colleague": "people", "teammate": "people", "mentor": "people",
    "product": "products", "app": "products", "service": "products",
}
# The things "remember that our X ..." may state a fact about: entities/systems/{X}.
SYSTEM_NOUNS = frozenset(
    "db database server cluster api endpoint queue bucket cache pipeline registry environment env host vm "
    "gateway proxy broker vpn ci cdn domain instance machine".split()
)

# Choices that exclude each other: preferring one is no longer preferring the others (see rivals).
EXCLUSIVE = (
    ("tabs", "spaces"),
    ("dark mode", "light mode"),
    ("dark theme", "light theme"),
    ("single quotes", "double quotes"),
    ("vim", "neovim", "emacs", "helix", "vs code", "vscode", "sublime text", "nano", "zed"),
)


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


def unmark(clause: str) -> tuple[str, bool]:
    """``clause`` without "now", "these days", "instead", ... and whether it had one.

    "My editor is Vim now" -> ("My editor is Vim", True); "I now prefer spaces"
    -> ("I prefer spaces", True); "for now" and "until now" are left alone.
    """
    changed = False
    stripped = _CHANGE_LEAD_RE.sub("", clause)
    changed |= stripped != clause
    while tail := _CHANGE_TAIL_RE.search(stripped):
        before = stripped[: tail.start()]
        if tail.group("m").lower() == "now" and before.split()[-1:] and before.split()[-1].lower() in _NOW_KEEPS:
            break
        stripped, changed = before, True
    inner = _CHANGE_INNER_RE.sub(lambda m: m.group("v") + " ", stripped)
    return inner, changed or inner != stripped


def remembered(clause: str, restore, subject: str) -> Statement | None:
    """"Remember (that) X": X read by the rules, else as a fact, a first-person fact or a dated note."""
    match = _REMEMBER_RE.match(clause)
    if not match:
        return None
    body = match.group("x").strip()
    if _RECALL_RE.match(body):
        return None  # "remember when we ..." asks to recall, it does not state
    to_do = re.match(r"(?i)^to\s+(?P<x>.+)$", body)
    if to_do:
        obj = restore(to_do.group("x"))
        if not informative(obj):
            return None
        return _topical("Remember to ", obj, subject)
    body, _ = unmark(body)
    statement = statement_of(body, restore, subject) or _system_fact(body, restore)
    if statement is not None:
        return statement
    first = _FIRST_PERSON_RE.match(body)
    mine = _MY_FACT_RE.match(body)
    if first:
        verb, fact = tx.third_person_parts(restore(first.group("rest")))
        lead = verb + " " if verb else ""
    elif mine:
        lead, fact = "The user's ", restore(mine.group("rest"))
    else:
        note = restore(body)
        if not informative(note):
            return None
        return Statement("events", "", note, ("events", tx.slug(note, fallback="note")), {})
    if not informative(fact):
        return None
    return Statement("profile", lead, fact, ("profile", "fact", (lead + fact).lower()), {})


def statement_of(clause: str, restore, subject: str) -> Statement | None:
    """The statement a clause makes about the user, if it matches one of the rules."""
    negated = _negation(clause, restore, subject)
    if negated is not None:
        return negated
    if m := _NOT_LIKE_RE.match(clause):
        return _preference(f"Does not {m.group('verb').lower()} ", m.group("x"), restore, subject)
    if m := _PREFER_RE.match(clause):
        return _preference(_PREFER_LEADS[m.group("verb").lower()] + " ", m.group("x"), restore, subject)
    if m := _ALWAYS_RE.match(clause):
        obj = restore(m.group("x"))
        if not informative(obj):
            return None
        verb, rest = tx.third_person_parts(obj)
        lead = f"{m.group('adv').capitalize()} {verb.lower()} " if rest else f"{m.group('adv').capitalize()} "
        topic = tx.slug(obj)
        return Statement("preferences", lead, rest or verb.lower(), ("preferences", topic), {"subject": subject, "topic": topic})
    if (m := _IDENTITY_RE.match(clause)) and not _NOT_IDENTITY_RE.match(m.group("x")):
        return _profile("Is ", m.group("x"), restore)
    if m := _WORK_RE.match(clause):
        return _profile(f"Works {m.group('prep').lower()} ", m.group("x"), restore)
    if m := _SWITCHED_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore)
    if m := _MY_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore)
    return None


def supersedes(memory_type: str, lead: str, obj: str) -> tuple[str, ...]:
    """The stored lines a line ``lead + obj`` replaces, as probes for merge's ``supersede`` op.

    A probe ending in ":" names a key ("editor:" matches "Editor: Neovim"), one
    starting with "*:" a value under any key, and any other the start of a line.
    """
    if memory_type == "preferences":
        if lead.startswith("No longer "):
            return (lead[len("No longer ") :].capitalize() + obj,)
        if lead in _POSITIVE:
            return (*(n + obj for n in _NEGATIVE), "No longer " + lead.lower() + obj)
        if lead in _NEGATIVE:
            return tuple(p + obj for p in _POSITIVE)
        adverb = lead.split(" ", 1)
        if adverb[0] in ("Always", "Never") and len(adverb) == 2:
            return (("Never " if adverb[0] == "Always" else "Always ") + adverb[1] + obj,)
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
        return (lead.strip(),)
    if lead in ("Works at ", "Works for "):
        return ("Works at", "Works for")
    if lead == "Works as ":
        return ("Works as",)
    return ()


def rivals(lead: str, obj: str) -> tuple[str, ...]:
    """The choices "Prefers X" rules out: ("spaces",) for "tabs" or "tabs over spaces"; () if X is no known choice."""
    if lead != "Prefers ":
        return ()
    said = " ".join(obj.lower().split())
    for choices in EXCLUSIVE:
        chosen = next((c for c in choices if said == c or said.startswith(c + " ")), None)
        if chosen is not None:
            return tuple(c for c in choices if c != chosen)
    return ()


def informative(obj: str) -> bool:
    """False for an object that only points at the conversation: "it", "that's fine", "to do this"."""
    words = obj.split()
    if len(words) > 2 and words[0].lower() == "to":
        words = words[2:]  # "to do this" points as much as "this"
    return bool(words) and re.sub(r"'s$", "", words[0].lower()) not in _DEICTIC and len(obj) <= MAX_OBJECT_CHARS


def _negation(clause: str, restore, subject: str) -> Statement | None:
    if m := _NO_LONGER_RE.match(clause) or _NOT_ANYMORE_RE.match(clause) or _STOPPED_RE.match(clause):
        verb = _GERUNDS.get(m.group("verb").lower(), m.group("verb").lower())
        lead = f"No longer {tx.conjugate(verb)} "
        if verb in _PREFERENCE_VERBS:
            return _preference(lead, m.group("x"), restore, subject)
        obj = restore(m.group("x"))
        if not informative(obj):
            return None
        return Statement("profile", lead, obj, ("profile", "not", (lead + obj).lower()), {})
    if (m := _NOT_IDENTITY_NOW_RE.match(clause)) and not _NOT_IDENTITY_RE.match(m.group("x") or m.group("y")):
        return _profile("Is no longer ", m.group("x") or m.group("y"), restore)
    if m := _MY_ISNT_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore, negated=True)
    return None


def _topical(lead: str, obj: str, subject: str) -> Statement:
    topic = tx.slug(obj)
    return Statement("preferences", lead, obj, ("preferences", topic), {"subject": subject, "topic": topic})


def _preference(lead: str, raw: str, restore, subject: str) -> Statement | None:
    obj = restore(raw)
    if not informative(obj):
        return None
    return _topical(lead, obj, subject)


def _profile(lead: str, raw: str, restore) -> Statement | None:
    obj = restore(raw)
    if not informative(obj):
        return None
    return Statement("profile", lead, obj, ("profile", lead.strip().lower()), {})


def _possession(key: str, raw: str, restore, *, negated: bool = False) -> Statement | None:
    key = " ".join(key.lower().split())
    if key.split()[-1] in _NOT_FACTS:
        return None
    value = restore(raw)
    no_longer = None if negated else _MY_NOT_RE.match(value)
    if no_longer:
        value, negated = no_longer.group("x") or no_longer.group("y"), True
    if not informative(value):
        return None
    if negated:
        return Statement("profile", tx.capitalise(key) + ": no longer ", value, ("profile", key), {})
    head = key.split()[-1]
    name, named = re.subn(r"(?i)^(?:called|named)\s+", "", value)
    name = re.sub(r"(?i)^the\s+", "", name).strip()
    looks_like_name = bool(named) or (name[:1].isupper() or name[:1].isdigit())
    if head in ENTITY_CATEGORIES and looks_like_name and len(name.split()) <= 4:
        category = ENTITY_CATEGORIES[head]
        return Statement("entities", "", name, ("entities", category, key), {"category": category}, noun=key)
    return Statement("profile", tx.capitalise(key) + ": ", value, ("profile", key), {})


def _system_fact(body: str, restore) -> Statement | None:
    """"our staging DB runs on port 5433" -> entities/systems/staging_db.md: "Runs on port 5433"."""
    match = _FACT_RE.match(body)
    if not match:
        return None
    raw_name, pred = match.group("name") or match.group("named"), match.group("pred")
    if raw_name.split()[-1].lower() not in SYSTEM_NOUNS or _DATED_RE.search(pred) or _TRANSIENT_RE.search(pred):
        return None
    name, fact = restore(raw_name), restore(pred)
    if not informative(fact):
        return None
    return Statement("entities", "", name, ("entities", "systems", name.lower()), {"category": "systems"}, fact=tx.capitalise(fact))
