"""The clause rules of deterministic extraction: what one clause says about the user, if anything.

The table in :mod:`ov.sessions.memory.extract` lists them; this module holds
their patterns, the wording of the lines they produce, and which stored lines
each line supersedes (:func:`ov.sessions.memory.supersede.supersedes`, applied by
:func:`ov.sessions.memory.merge.patch_text`). A clause reaches these rules
already cleaned: fillers, asides, trailing punctuation and code spans dealt with.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import topics, verbs
from ov.sessions.memory.capitals import NAME_WORD, UPPER
from ov.sessions.memory.changes import (
    VALUE_END_RE,
    change_match,
    changed_value,
    switched_for,
    value_of,
    without_when,
)
from ov.sessions.memory.languages import NOT_AN_EMPLOYER
from ov.sessions.memory.lines import LOCATION_LEADS
from ov.sessions.memory.places import PROGRAMMING_LANGUAGES, is_place, place_named
from ov.sessions.memory.secrets import names_a_secret
from ov.sessions.memory.standing import (
    MY_RE,
    STANDING_KEYS,
    looks_like_name,
    of_the_moment,
    on_the_table,
    passing_value,
    points_back,
    self_deprecating,
)
from ov.sessions.memory.statement import Statement, informative
from ov.sessions.memory.supersede import supersedes
from ov.sessions.memory.systems import ENTITY_CATEGORIES
from ov.sessions.memory.verbs import INSTRUCTION_VERBS

# ("I've come around to spaces" prefers them now)
_PREFER_RE = re.compile(
    r"^I\s+(?:(?:really|generally|usually|mostly|much|strongly|definitely|also|still|do|truly)\s+)*"
    r"(?P<verb>prefer|like|love|enjoy|dislike|hate)\s+(?P<x>.+)$|^I(?:'ve|\s+have)\s+(?:finally\s+)?(?P<around>come\s+around|warmed\s+up)\s+to\s+(?P<y>.+)$",
    re.I,
)
_NOT_LIKE_RE = re.compile(r"^I\s+(?:don't|do\s+not|dont)\s+(?:really\s+)?(?P<verb>like|love|enjoy|want)\s+(?P<x>.+)$", re.I)
_ALWAYS_RE = re.compile(r"^I\s+(?P<adv>always|never)\s+(?P<x>.+)$", re.I)
_IDENTITY_RE = re.compile(r"^(?:I\s+am|I'm|Im)\s+(?P<x>(?:a|an)\s+.+)$", re.I)
# (not "I'm working on X": the task at hand)
# Where, when or for whom one works that is no employer ("I work at home", "I work for myself").
_HOW_ONE_WORKS_RE = re.compile(rf"(?i)^(?:{NOT_AN_EMPLOYER})\b")
_WORK_RE = re.compile(r"^I(?:\s+work\s+(?P<prep>as|at|for|on)|(?:'m|\s+am)\s+working\s+(?P<now>at|for))\s+(?P<x>.+)$", re.I)
_SWITCHED_RE = re.compile(
    r"^I(?:'ve|\s+have)?\s+(?:switched|changed|moved)\s+my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:from\s+.+?\s+)?to\s+(?P<y>.+)$", re.I
)
# Where the user lives: one line, whichever way it was said.
_LIVE_RE = re.compile(r"^I(?:\s+(?P<live>live|reside)|(?:'m|\s+am)\s+(?P<based>based|located|living))\s+in\s+(?P<x>.+)$", re.I)
_MOVED_AWAY_RE = re.compile(r"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:moved|relocated)\s+away(?:\s+from\s+there)?$", re.IGNORECASE)
# The stored lines saying where the user lives: "I'm in London" is "Is in London" ("Is in the UK").
LOCATED = (*LOCATION_LEADS, "Is in [A-Z]*", "Is in the [A-Z]*")
_MOVED_TO_RE = re.compile(rf"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:moved|relocated)\s+to\s+(?P<x>(?:the\s+)?(?-i:{UPPER}).*)$", re.I)
# "I'm on Eastern time", "I'm on CET", "I'm on UTC+2": a timezone, the key "my timezone is" sets.
_ON_TIME_RE = re.compile(
    rf"^I(?:'m|\s+am)\s+on\s+(?P<x>(?-i:{NAME_WORD}(?:\s+{NAME_WORD})?)\s+time|(?-i:UTC|GMT)(?:\s?[+-]\d{{1,2}}(?::?\d{{2}})?)?|"  # not "GPT-4":
    r"(?-i:(?:[PMCE][SD]T|CES?T|EES?T|WES?T|BST|IST|JST|KST|HKT|SGT|MSK|AKST|HST|SAST|AE[SD]T|AWST|NZ[SD]T)))$",
    re.I,
)
# "I mostly write Kotlin", "I code mainly in Go": the user's main language (a capitalised name:
# "I mostly write docs" says nothing of a language).
_MOSTLY_WRITE_RE = re.compile(
    r"^I\s+(?:(?P<a>mostly|mainly|primarily)\s+)?(?:write|code|program)(?:\s+(?P<b>mostly|mainly|primarily))?(?:\s+in)?"
    rf"\s+(?(a)|(?(b)|(?!)))(?P<x>(?-i:{UPPER})[\w#+.-]*)(?:\s+(?:these\s+days|nowadays|now))?$",
    re.I,
)
# Not "Language:" ("my language is German" is a spoken one). What "I mostly write X" may name: not "PRs".
_LANGUAGE_KEYS = ("Main language:", "Primary language:", "Programming language:")
# "I joined the Platform team" says what "my team is Platform" says.
_JOINED_RE = re.compile(r"^I(?:'ve|\s+have)?\s+(?:just\s+)?joined\s+(?:the\s+)?(?P<y>.+?)\s+(?P<k>team|squad)$", re.I)
# A name to be called by: "call me Dan", "I go by Sam" (a name is capitalised), and what is said of it
# after a comma ("call me Kate, nobody uses Katherine", "I go by Sam, everyone does") is no part of it.
_CALL_ME_RE = re.compile(
    rf"^(?i:(?:please\s+|you\s+can\s+|just\s+)?call\s+me|I\s+go\s+by)\s+(?P<x>{UPPER}[\w'.-]*(?:\s+{UPPER}[\w'.-]*){{0,2}})"
    r"(?:\s*[,;\u2013\u2014]\s*\S.*)?$"
)
# An instruction that stands: "Always use type hints", "Never push directly to main". Only with a
# verb of the work (verbs.INSTRUCTION_VERBS): "never give up", "always up for it", "never saw this coming" are talk.
_STANDING_RE = re.compile(rf"^(?:please\s+)?(?P<adv>always|never)\s+(?P<x>(?:{INSTRUCTION_VERBS})\s+.+)$", re.I)
_INSTRUCTION_RE = re.compile(rf"(?:{INSTRUCTION_VERBS})\s", re.IGNORECASE)
# More ways of liking: "I can't stand Java", "I'm not a fan of meetings".
_FAN_RE = re.compile(
    r"^I(?:'m|\s+am)\s+(?P<neg>not\s+)?(?:(?:a\s+|a\s+(?:big|huge|great)\s+|much\s+of\s+a\s+)?fan)\s+of\s+(?P<x>.+)$", re.I
)
_CANT_STAND_RE = re.compile(r"^I\s+(?:can't|cannot|can\s+not)\s+(?:stand|bear)\s+(?P<x>.+)$", re.I)
# "we ..." and "our team ...": a standing fact about the user's team, only when asked to remember it.
# "we're on Postgres 15" is "we are on Postgres 15".
TEAM_RE = re.compile(r"^(?:(?P<we>we)(?:\s+|(?='re\s))|our\s+team\s+|my\s+team\s+)(?P<rest>.+)$", re.I)
# "My manager said her editor is Emacs" says nothing about the user's editor.
_REPORTED = frozenset("said says told tells thinks thought asked asks claims claimed mentioned wrote".split())
# "no longer" and "not ... anymore": the statement a line used to make is no longer true.
_NEG_VERBS = "use|prefer|like|love|enjoy|want|work|live|write|code|program"
# (said with "I'm ... using" as well: "I'm no longer using Emacs", "we're not using Jira anymore")
_BE_ING = r"(?:'m|'re|\u2019m|\u2019re|\s+am|\s+are)\s+"
_ING = r"using|preferring|liking|working"
_NO_LONGER_RE = re.compile(rf"^(?P<who>I|we)(?:\s+no\s+longer\s+(?P<verb>{_NEG_VERBS})|{_BE_ING}no\s+longer\s+(?P<ing>{_ING}))\s+(?P<x>.+)$", re.I)
_NOT_ANYMORE_RE = re.compile(
    rf"^(?P<who>I|we)(?:\s+(?:don't|do\s+not|dont)\s+(?P<verb>{_NEG_VERBS})|{_BE_ING}not\s+(?P<ing>{_ING}))\s+(?P<x>.+?)\s+any\s?more$", re.I
)
_STOPPED_RE = re.compile(r"^(?P<who>I|we)(?:'ve|\s+have)?\s+stopped\s+(?P<verb>using|preferring|liking|working)\s+(?P<x>.+)$", re.I)
# (a role held alone as well as one of many: "I'm no longer the tech lead", "not on the platform team anymore")
_NOT_IDENTITY_NOW_RE = re.compile(
    r"^(?:I\s+am|I'm|Im)\s+(?:no\s+longer\s+(?P<x>(?:a|an|the|on|part\s+of)\s+.+)|not\s+(?P<y>(?:a|an|the|on|part\s+of)\s+.+?)\s+any\s?more)$", re.I
)
_MY_NOT_RE = re.compile(r"(?i)^(?:no\s+longer\s+(?P<x>.+)|not\s+(?P<y>.+?)\s+any\s?more)$")
_MY_ISNT_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:isn't|is\s+not|aren't|are\s+not)\s+(?P<y>.+?)\s+any\s?more$", re.I)
FIRST_PERSON_RE = re.compile(r"^I(?P<rest>(?:'m|'ve|'ll|'d)\b.*|\s+.+)$", re.I)
# "I'm a bit tired" is a mood, not an identity.
_NOT_IDENTITY_RE = re.compile(r"(?i)^an?\s+(?:bit|little|lot|tad|few|fan)\b")

_PREFER_LEADS = {"prefer": "Prefers", "like": "Likes", "love": "Loves", "enjoy": "Enjoys", "dislike": "Dislikes", "hate": "Hates"}
_PREFERENCE_VERBS = frozenset(("prefer", "like", "love", "enjoy", "want"))
_GERUNDS = {"using": "use", "preferring": "prefer", "liking": "like", "working": "work"}
# "my K is ..." where K is a passing thought, or the work at hand ("my output is empty", "my current
# directory is /tmp"), not a fact about the user.
_NOT_FACTS = frozenset(
    "point question guess concern problem issue idea suggestion plan goal answer bad fault pleasure "
    "understanding assumption hope worry thought thinking feeling take opinion request task branch mind fix workaround "
    "solution attempt output result results error errors log logs response diff directory dir folder cwd path screen cursor "
    "selection clipboard input snippet traceback code commit patch".split()
)
# What makes such a thing a standing one: whose it is for good ("my home directory"), or how often it is so.
_STANDING_VALUE_RE = re.compile(r"(?i)(?:always|usually|generally|normally|typically)\b")


def statement_of(clause: str, restore, subject: str) -> Statement | None:
    """The statement a clause makes about the user, if it matches one of the rules."""
    negated = _negation(clause, restore, subject)
    if negated is not None:
        return negated
    changed = change_match(clause)
    if changed and changed.group("who").lower() == "i":
        return changed_value(changed, clause, restore)
    if switched := switched_for(clause, restore):
        return switched
    if m := _LIVE_RE.match(clause):
        lead = "Lives in " if m.group("live") else f"Is {m.group('based').lower()} in "
        return _place(lead, m.group("x"), restore)
    if (m := _MOSTLY_WRITE_RE.match(clause)) and m.group("x").lower() in PROGRAMMING_LANGUAGES:
        return Statement("profile", "Main language: ", restore(m.group("x")), ("profile", "main language"), {}, probes=_LANGUAGE_KEYS)
    if m := _ON_TIME_RE.match(clause):
        return Statement("profile", "Timezone: ", restore(m.group("x")), ("profile", "timezone"), {})
    if _MOVED_AWAY_RE.match(without_when(clause)):
        # "I moved away" (and "not anymore - we relocated", read so): the stored home ends, and
        # nothing is kept where none was stored.
        return Statement("profile", "", "Moved away", ("profile", "location"), {}, probes=LOCATED, only_amends=True)
    if m := _MOVED_TO_RE.match(clause):
        # "we moved to Rotterdam" is the user's home only where one is stored: a team moves too
        return _place("Lives in ", m.group("x"), restore, moved=True, only_amends=m.group("who").lower() == "we")
    if m := _JOINED_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore)
    if m := _CALL_ME_RE.match(clause):
        return Statement("profile", "Preferred name: ", restore(m.group("x")), ("profile", "preferred name"), {})
    if m := _FAN_RE.match(clause):
        return _preference("Is not a fan of " if m.group("neg") else "Is a fan of ", m.group("x"), restore, subject)
    if m := _CANT_STAND_RE.match(clause):
        return _preference("Cannot stand ", m.group("x"), restore, subject)
    if m := _NOT_LIKE_RE.match(clause):
        return _preference(f"Does not {m.group('verb').lower()} ", m.group("x"), restore, subject)
    if m := _PREFER_RE.match(clause):
        lead = "Prefers " if m.group("around") else _PREFER_LEADS[m.group("verb").lower()] + " "
        return _preference(lead, m.group("x") or m.group("y"), restore, subject)
    if m := _ALWAYS_RE.match(clause):
        obj = restore(m.group("x"))
        # "I never understood regexes" tells of the past, "I always forget the flag for this" of the task.
        if not informative(obj) or points_back(obj) or of_the_moment(obj) or verbs.is_past(obj.split()[0]):
            return None
        return _always(m.group("adv"), obj, subject, habit=True)
    if m := _STANDING_RE.match(clause):
        obj = restore(m.group("x"))
        if not informative(obj) or points_back(obj) or of_the_moment(obj):
            return None  # "never do that again", "never touch this function"
        return _always(m.group("adv"), obj, subject)
    if (m := _IDENTITY_RE.match(clause)) and not _NOT_IDENTITY_RE.match(m.group("x")) and not self_deprecating(m.group("x")):
        return _profile("Is ", m.group("x"), restore)
    if (m := _WORK_RE.match(clause)) and not (m.group("now") and m.group("x")[:1].islower()) and not (
            (m.group("prep") or "").lower() in ("at", "for") and _HOW_ONE_WORKS_RE.match(m.group("x"))):  # (not "I'm working at home")
        return _profile(f"Works {(m.group('prep') or m.group('now')).lower()} ", m.group("x"), restore)
    if m := _SWITCHED_RE.match(clause):  # (when it changed is no part of the value: "to VS Code last week")
        return _possession(m.group("k"), without_when(m.group("y")), restore)
    if m := MY_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore)
    return None


def _negation(clause: str, restore, subject: str) -> Statement | None:
    if m := _NO_LONGER_RE.match(clause) or _NOT_ANYMORE_RE.match(clause) or _STOPPED_RE.match(clause):
        said = m.group("verb") or m.groupdict().get("ing") or ""
        verb, team = _GERUNDS.get(said.lower(), said.lower()), m.group("who").lower() == "we"
        if team and verb != "use":
            return None  # "we no longer like X", "we don't work Fridays anymore": no change of the team's tools
        lead = f"{'Team no' if team else 'No'} longer {verbs.conjugate(verb)} "
        if verb in _PREFERENCE_VERBS:
            return _preference(lead, m.group("x"), restore, subject)
        obj = value_of(m.group("x"), restore)  # (not its reason: "black, it's too slow")
        if not informative(obj):
            return None
        # What is no longer used ends a stored instruction or preference to use it (rivals); the team's
        # line, as a team's move, only amends a stored one unless asked to be remembered (extract._read).
        return Statement("profile", lead, obj, ("profile", "not", (lead + obj).lower()), {}, ends=obj if verb == "use" else "", only_amends=team)
    if (m := _NOT_IDENTITY_NOW_RE.match(clause)) and not _NOT_IDENTITY_RE.match(m.group("x") or m.group("y")):
        ended = _profile("Is no longer ", m.group("x") or m.group("y"), restore)
        if ended is not None and not re.match(r"(?i)an?\s", ended.obj):
            # "no longer the tech lead", "not on vacation anymore": a role, or a state that passed as
            # often ("on the waitlist"), ends the stored line saying it; alone, in a session, it is no fact
            # of the user's (asked to be remembered, it is kept: extract._read; review rev21 #10)
            ended.probes, ended.only_amends = ("Is " + ended.obj,), True
        return ended
    if m := _MY_ISNT_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore, negated=True)
    return None


def _always(adverb: str, obj: str, subject: str, *, habit: bool = False) -> Statement:
    """"Always use type hints", whether said as a habit ("I always use ...") or as an instruction
    ("Always use ..."): one wording, so that either replaces the other and "never" replaces both.
    A habit outside the work is the user's ("I always eat late": "Always eats late"). A habit's
    "my" is the agent's "your" in the instruction ("review your own PRs"), in the file it had."""
    if _INSTRUCTION_RE.match(obj):
        statement = topical(adverb.capitalize() + " ", obj, subject)
        if habit and (said := tx.voiced(obj, "you")) != obj:  # older versions stored the habit's "my"
            statement.obj, statement.probes = said, (*supersedes("preferences", statement.lead, obj), statement.lead + obj + "$")
        return statement
    verb, rest = verbs.third_person_parts(obj)
    lead = f"{adverb.capitalize()} {verb.lower()} " if rest else f"{adverb.capitalize()} "
    topic = topics.slug(obj)
    return Statement("preferences", lead, rest or verb.lower(), ("preferences", topic), {"subject": subject, "topic": topic})


def topical(lead: str, obj: str, subject: str) -> Statement:
    topic = topics.slug(obj)
    return Statement("preferences", lead, obj, ("preferences", topic), {"subject": subject, "topic": topic})


def _preference(lead: str, raw: str, restore, subject: str) -> Statement | None:
    obj = restore(raw)
    if lead in ("Prefers ", "Likes ", "Loves ") and (agreed := convention(obj, subject)):
        return agreed
    if not informative(obj) or on_the_table(obj) or of_the_moment(obj):
        return None
    return topical(lead, obj, subject)


# "(that) we keep PRs small", "the team to squash commits": how the team works, with a verb of the work.
_CONVENTION_RE = re.compile(
    rf"(?i)^(?:that\s+)?(?:we|the\s+team(?:\s+to)?)\s+(?P<neg>don't\s+|do\s+not\s+|never\s+)?(?P<adv>always\s+)?"
    rf"(?P<x>(?:{INSTRUCTION_VERBS})\s+.+)$"
)


def convention(obj: str, subject: str) -> Statement | None:
    """"I prefer we keep PRs small", "I'd rather we never merge on Fridays": a way the team works,
    which the agent follows as it does an instruction: "Keep PRs small (team convention)" under the
    topic of "keep PRs small", replacing its opposite ("Never keep PRs small", "Don't ..."). Not a
    proposal for the task at hand ("we go with option 2": no verb of the work)."""
    match = _CONVENTION_RE.match(obj)
    if match is None or on_the_table(obj) or not informative(match.group("x")) or points_back(match.group("x")) or of_the_moment(match.group("x")):
        return None
    core = match.group("x")[:1].lower() + match.group("x")[1:]
    neg = (match.group("neg") or "").strip().lower()
    said = ("Never " if neg == "never" else "Don't " if neg else "Always " if match.group("adv") else "") + core
    if match.group("neg"):
        probes: tuple[str, ...] = (f"Always {core}", tx.capitalise(core))
    else:
        probes = (f"Never {core}", f"Don't {core}", f"Do not {core}")
    agreed = topical("", f"{tx.capitalise(said)} (team convention)", subject)
    topic = topics.slug(core)
    agreed.slot, agreed.path_fields, agreed.probes = ("preferences", topic), {"subject": subject, "topic": topic}, probes
    return agreed


def _profile(lead: str, raw: str, restore) -> Statement | None:
    obj = restore(raw)
    if not informative(obj) or of_the_moment(obj):
        return None
    return Statement("profile", lead, obj, ("profile", lead.strip().lower()), {})


def _possession(key: str, raw: str, restore, *, negated: bool = False) -> Statement | None:
    shown, key = tx.key_name(key), " ".join(key.lower().split())
    if _REPORTED.intersection(key.split()) or names_a_secret(key) or of_the_moment(key):
        return None  # (and "my team this quarter is ...": a stretch of time that ends, as in the value)
    value = tx.without_aside(VALUE_END_RE.sub("", restore(raw)))
    if key.split()[-1] in _NOT_FACTS and not (key.split()[0] in STANDING_KEYS or _STANDING_VALUE_RE.match(value)):
        return None  # "my output is empty"; not "my home directory is /home/bob", "my output is always JSON"
    no_longer = None if negated else _MY_NOT_RE.match(value)
    if no_longer:
        value, negated = no_longer.group("x") or no_longer.group("y"), True
    if not informative(value) or passing_value(key, value):
        return None
    if negated:
        return Statement("profile", shown + ": no longer ", value, ("profile", key), {})
    head = key.split()[-1]
    name, named = re.subn(r"(?i)^(?:called|named)\s+", "", value)
    name = re.sub(r"(?i)^the\s+", "", name).strip()
    if head in ENTITY_CATEGORIES and (named or looks_like_name(name)) and len(name.split()) <= 4:
        category = ENTITY_CATEGORIES[head]
        return Statement("entities", "", name, ("entities", category, key), {"category": category}, noun=key)
    return Statement("profile", shown + ": ", value, ("profile", key), {})


def team_says(team: re.Match[str], restore) -> str:
    """"we use Jira for tickets" -> "uses Jira for tickets"; "our team uses ..." as it is."""
    rest = tx.voiced(re.sub(r"^'re\b", "are", restore(team.group("rest"))), "team")  # "our docs" are the team's: "their docs"
    if not team.group("we"):
        return rest
    verb, obj = verbs.third_person_parts(rest)
    return f"{verb[:1].lower()}{verb[1:]} {obj}".strip()


def _place(lead: str, raw: str, restore, *, moved: bool = False, only_amends: bool = False) -> Statement | None:
    place = place_named(value_of(raw, restore))
    if not informative(place) or (moved and not is_place(place)):
        return None  # "I moved to Python 3.12 for this script", "we moved to Vercel": what the code is on, no home
    return Statement("profile", lead, place, ("profile", "location"), {}, probes=LOCATED,
                     otherwise=f"Moved to {place}" if moved else "", only_amends=only_amends)
