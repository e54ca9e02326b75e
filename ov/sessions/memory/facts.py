"""What a text asked to be remembered says beyond the user's own statements.

"Remember that X" (and ``ov remember X``) reads X with the clause rules of
:mod:`ov.sessions.memory.rules` first; what they do not read may still be worth
keeping: a fact about a system the user works with ("our staging DB runs on
port 5433"), about the user's team ("we use Linear for tickets"), an
instruction ("don't use tabs in this repo"), a first-person fact, or a dated
note. A session's plain chatter never reaches these rules: only what was
asked to be remembered does.

In detail, for "remember (that) / note that / keep in mind that / don't forget (that) X; X,
remember that; X. Remember that.":
X is read by the clause rules first; else "our S", "the T S" (a modifier T) or an environment
named bare ("staging", "prod", "preprod", "UAT", "sandbox"), then is,
runs, uses, has, rotates, ... P, with S holding db, database, server(s), service, ci, team, ...
and P naming no day, nothing that happened and no passing state (down, broken, slow, ...), is a
fact: entities/systems/{S}, "P" (words after S go into the fact: "Password rotates monthly");
"we moved S to Y": "Moved to Y" in place of where S ran; "we switched from X to Y" as above, for
the team's lines; "we always squash-merge PRs here" the team's habit without its "here" (where the
team works, not a thing shown); a rule said as a fact ("every PR needs two approvals") a team
convention (:func:`ov.sessions.memory.instructions.team_rule`); an instruction ("don't use tabs", "please use pytest", "ask me before adding
any dependency") or a wish ("I'd rather X", "I'd prefer that you X") is a preference in the user's
words (:mod:`ov.sessions.memory.instructions`); a thing named on its own at an address ("Redis is
at cache-01:6379") a system's fact; "Bob owns / leads / reviews
... X": entities/people/bob, "Owns X"; a first-person X ("I use fish") a profile fact ("Uses
fish"), "we use Jira" one about the team ("Team uses Jira"), but "we use / run X for / on the S"
one about S ("Uses X"); a fact of the project said plainly ("Firmware builds use gcc 12.2", "Docs
convention: ...", "Our target frame rate is 30 fps" and the team's change of it) is read by
:mod:`ov.sessions.memory.project_facts`; "the payments team owns X": entities/teams/payments; "ownership of S
moved to Y": "Is owned by Y"; "I joined Datadog": "Works at Datadog"; "when you V X,
<instruction>" an instruction; a fact naming a version ("Are on Node 20") replaces one naming
another; a note naming a day, or anything else, is a dated note in events/. "Actually X"
corrects the stored fact with X's verb and preposition ("Is in eu-west-1"), or for a place, any
with its preposition ("Lives in").
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import topics, verbs
from ov.sessions.memory.capitals import NAME_WORD, UPPER
from ov.sessions.memory.changes import change_match, changed_value, value_of
from ov.sessions.memory.employer import joined_employer
from ov.sessions.memory.foreign import kept_as
from ov.sessions.memory.instructions import (
    CONDITIONAL_STEP_RE,
    STANDING_STEP_RE,
    instruction,
    reversal,
    team_rule,
    wish,
)
from ov.sessions.memory.leads import asks_to_remember, opening, without_ask
from ov.sessions.memory.markers import CORRECTION_LEAD, unmark
from ov.sessions.memory.moves import (
    attribute_set,
    ownership_moved,
    place_moved,
    system_moved,
)
from ov.sessions.memory.project_facts import a_value_of_the_work, project_fact
from ov.sessions.memory.rules import (
    FIRST_PERSON_RE,
    TEAM_RE,
    statement_of,
    team_says,
    topical,
)
from ov.sessions.memory.secrets import states_a_secret
from ov.sessions.memory.standing import PASSING_STATE_RE, of_the_moment, passing_remark
from ov.sessions.memory.statement import Statement, informative
from ov.sessions.memory.systems import (
    ADDRESS_RE,
    NOT_NAMES,
    REGION_RE,
    TEAM_NOUNS,
    VERSIONED_RE,
    entity_fact,
    fact_probes,
    names_a_system,
    one_at_a_time,
)

# A day named in a first-person note makes it an event, not a standing fact.
_DAY_RE = re.compile(
    r"(?i)\b(?:today|tomorrow|yesterday|tonight|\d{4}-\d{2}-\d{2}|(?:this|next|last)\s+(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|week|month|year|sprint|night|morning))\b"
)
# "Actually, the prod cluster is in eu-central-1" asked to be remembered corrects the stored fact.
_CORRECTION_LEAD_RE = re.compile(CORRECTION_LEAD, re.I)


_MY_FACT_RE = re.compile(r"^my\s+(?P<rest>.+)$", re.I)
# "our staging DB runs on port 5433": a fact about a system the user works with ("the X" needs
# a modifier, "the staging DB": "the server" alone could be anyone's).
_FACT_RE = re.compile(
    r"^(?:(?:our|our\s+team's|my\s+team's)\s+(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)|"
    r"the\s+(?P<named>[\w.+-]+(?:\s+[\w.+-]+){1,3}?)|"
    # an environment named bare, as the team names it: "Staging deploys from develop", "prod has 3 replicas"
    r"(?P<env>staging|production|prod|preprod|pre-prod|uat|sandbox))\s+"
    r"(?P<pred>(?:is|are|has|have|goes|go|does|do|must|should|can|cannot|can't|doesn't|don't|isn't|aren't|(?:run|use|live|"
    r"listen|need|require|sit|point|host|store|serve|accept|hold|rotate|expire|reset|restart|belong|deploy|connect|contain|"
    r"return|send|sync|back|time|allow|block|take|cost|support|keep|last|cap|talk|read|write|happen|own|lead|maintain|"
    r"manage)s?)\s+.+)$",
    re.I,
)
# "we use MySQL for the orders database", "we run Node 18 on the build servers": what a system uses
# is a fact about the system (entities/systems/{S}), so that "we migrated the orders database to
# Postgres" replaces it there.
_TEAM_SYSTEM_RE = re.compile(
    r"^we\s+(?P<verb>use|run|host|deploy)\s+(?P<x>.+?)\s+(?:for|on|in|with)\s+(?:the|our)\s+"
    r"(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,3})$",
    re.I,
)
# A note that names a day or tells what happened is an event, not a standing fact.
_DATED_RE = re.compile(
    r"(?i)\b(?:today|tomorrow|yesterday|tonight|\d{4}-\d{2}-\d{2}|(?:on|this|next|last)\s+(?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|week|month|year|sprint)|was|were|happened|broke|went)\b"
)
# "this repo uses conventional commits", "this codebase's CI runs ruff": a fact of the project at hand
# (text.THIS_PROJECT), the session's peer's (see ov.sessions.commit), so its words stay in its line.
_PROJECT_FACT_RE = re.compile(rf"(?i)^{tx.THIS_PROJECT}(?:'s\s+[\w-]+)?\s+\S+\s+\S")
# "in this repo(,) we use spaces" says "we use spaces in this repo", whatever reads it.
# Where the team works, said of its habit: "We always squash-merge PRs here", "around here we rebase".
_HERE = r"(?:(?:around|over)\s+)?here|on\s+(?:this|our|my)\s+team|at\s+(?:work|my\s+job|this\s+company|our\s+company)"
_TEAM_HERE_RE = re.compile(rf"(?i)^(?:(?:{_HERE})\s*,?\s+)?(?P<rest>(?:we|our\s+team)\s.+?)(?:\s*,?\s+(?:{_HERE}))?[.!]*$")
_IN_PROJECT_RE = re.compile(rf"(?i)^(?P<where>in\s+{tx.THIS_PROJECT})\s*,?\s+(?P<rest>\S.+)$")
# ("when you write tests, use pytest" is an instruction: see instructions.py)
_RECALL_RE = re.compile(r"(?i)^(?:(?:when|if)\b(?!\s+you(?:'re|\s+are)?\s+[^,]{3,80},)|how|what|why|where|who|whether)\b")

# "Bob owns the billing service": what a named person does for the team, when asked to remember it.
# Only verbs a person's role takes: "Atlas is our billing service", "Atlas runs on k8s" name no one.
_PERSON_FACT_RE = re.compile(
    rf"^(?P<name>(?-i:{NAME_WORD})(?:\s+(?-i:{NAME_WORD}))?)\s+(?P<pred>(?:owns|leads|maintains|manages|reviews|approves|"
    r"is\s+responsible\s+for|is\s+in\s+charge\s+of|knows)\s+.+)$",
    re.I,
)
def remembered(clause: str, restore, subject: str) -> Statement | None:
    """"Remember (that) X": X read by the rules, else as a fact, a first-person fact or a dated note."""
    match = asks_to_remember(clause)
    if not match:
        return None
    body = without_ask(match.group("x")).strip()  # (said twice: ov remember "Remember that ...")
    if states_a_secret(body):
        return None  # not even as a note: a memory is given to every later session
    corrected = _CORRECTION_LEAD_RE.match(body)
    body = body[corrected.end() :] if corrected else body
    if (_RECALL_RE.match(body) and not STANDING_STEP_RE.match(body)) or CONDITIONAL_STEP_RE.match(body):
        return None  # "remember when we ..." asks to recall, it does not state; "once we ship, ..." is no standing step
    to_do = re.match(r"(?i)^to\s+(?P<x>.+)$", body)
    if to_do:
        obj = restore(to_do.group("x"))
        if not informative(obj):
            return None
        return topical("Remember to ", obj, subject)
    body, changed = unmark(body)
    if fronted := _IN_PROJECT_RE.match(body):
        body = f"{fronted.group('rest')} {fronted.group('where').lower()}"
    body = _without_teams_here(body)
    statement = (
        statement_of(body, restore, subject)
        or attribute_set(body, restore)  # (before "the X host ...", which reads "host" as a verb)
        or _system_fact(body, restore)
        or _address_fact(body, restore)
        or system_moved(body, restore)
        or place_moved(body, restore)
        or _team_system(body, restore)
        or project_fact(body, restore, subject, corrected=corrected is not None or changed)
        or ownership_moved(body, restore)
        or joined_employer(body, restore)
        or team_rule(body, restore, subject)
        or _team_change(body, restore)
        or reversal(body, restore, subject)
        or instruction(body, restore, subject)
        or wish(body, restore, subject)
        or _person_fact(body, restore)
    )
    if statement is not None:
        statement.marked = statement.marked or ((corrected is not None or changed) and statement.memory_type != "events")
        return statement
    first = FIRST_PERSON_RE.match(body)
    mine = _MY_FACT_RE.match(body)
    team = TEAM_RE.match(body)
    ours = _ours(body)
    project = _PROJECT_FACT_RE.match(body)
    if _DAY_RE.search(body) or ((team or ours or project) and _DATED_RE.search(body)) or passing_remark(body) or of_the_moment(body) or opening(body).hedged:
        # something that happened on a day, a passing state, a doubt ("I'm not sure we ..."): a note for events
        first = mine = team = ours = project = None
    if first:
        verb, fact = verbs.third_person_parts(restore(first.group("rest")))
        lead = verb + " " if verb else ""
    elif mine:
        lead, fact = "The user's ", restore(mine.group("rest"))
    elif team:
        lead, fact = "Team ", team_says(team, restore)
    elif ours:
        lead, fact = "Team's ", tx.voiced(restore(ours), "team")
    elif project:
        lead, fact = "", tx.capitalise(restore(body))
    else:
        note = restore(body)
        # ("Vi rebaser alltid før vi merger", "Me gusta que ...": a habit or a liking in a language no table
        # reads, whose words need not be English's to inform: "me" is no pointer in Spanish)
        if (kept := kept_as(note, subject)) is not None:
            return kept
        if not informative(note):
            return None
        return Statement("events", "", note, ("events", topics.event_name(note)), {})
    if not informative(fact) and not project:  # ("this repo" points at no message: it names the project at hand)
        return None
    return Statement("profile", lead, fact, ("profile", "fact", (lead + fact).lower()), {})


def _ours(body: str) -> str | None:
    """What a standing fact of the team's own things says, "our" off ("Our deploys use Helm charts":
    "deploys use Helm charts"), where the thing is no system (a system's is its card's:
    :func:`_system_fact`) and the verb says what holds, not what happened ("our deploy failed")."""
    match = _FACT_RE.match(body)
    if match is None or not match.group("name") or PASSING_STATE_RE.search(match.group("pred")):
        return None
    being = re.match(r"(?i)(?:is|are)\s+(?P<what>\S+)", match.group("pred"))
    if being and not re.search(rf"ed$|en$|[\d:/]|^{UPPER}", being.group("what")):
        return None  # "our code is a mess", "our build is slow": a judgement as often as a fact; "is rotated monthly", "is 3 weeks" hold
    if being and not re.search(r"(?:ed|en)$|[:/]", being.group("what")) and not a_value_of_the_work(match.group("name"), match.group("pred")[being.start("what") :]):
        return None  # "Our son is 3", "Our dog is Max", "Our deadline is Friday": no value of the team's work
    return body[re.match(r"(?i)(?:our|our\s+team's|my\s+team's)\s+", body).end() :]


def _system_fact(body: str, restore) -> Statement | None:
    """"our staging DB runs on port 5433" -> entities/systems/staging_db.md: "Runs on port 5433"."""
    match = _FACT_RE.match(body)
    if not match:
        return None
    raw_name, pred = match.group("name") or match.group("named") or match.group("env"), match.group("pred")
    words = raw_name.split()
    # "the staging DB password rotates monthly": the system is the staging DB, the fact is about its password.
    # A team is one when named ("the payments team"); "our team" alone is the user's (see TEAM_RE).
    last = max((i for i, w in enumerate(words) if names_a_system(w) or (i and w.lower() in TEAM_NOUNS)), default=None)
    if match.group("env"):
        last = 0
    if last is None or _DATED_RE.search(pred) or PASSING_STATE_RE.search(pred):
        return None
    attribute = " ".join(words[last + 1 :])
    name, fact = restore(" ".join(words[: last + 1])), restore(f"{attribute} {pred}" if attribute else pred)
    if not informative(fact):
        return None
    statement = entity_fact(name, fact)
    # "the metrics server is metrics-2.internal:9091", "the api service port is 7000": one address and one port at a time
    statement.probes = one_at_a_time(statement.fact)
    return statement


# "Staging lives at staging.acme-internal.net", "Redis is at cache-01.internal:6379", "Production runs
# in us-east-1", "billing is on Postgres 16": a thing named on its own whose place is an address (a
# host, a URL, a port, a cloud region) or a named thing at a version, which only a system has (an
# aside after a comma is no part of it).
_ADDRESS_FACT_RE = re.compile(
    r"^(?:the\s+|our\s+)?(?P<name>[\w.+-]+(?:\s+[\w.+-]+){0,2}?)\s+(?P<pred>(?:is|are|lives|live|runs|run|sits|listens|is\s+hosted|"
    rf"is\s+running|is\s+reachable)\s+(?P<prep>at|on|in)\s+(?P<where>port\s+\d+|(?-i:{UPPER})[\w.+-]*\s+v?\d[\w.]*|\S+))(?:\s*[,;\u2014]\s+.*)?$",
    re.I,
)

def _address_fact(body: str, restore) -> Statement | None:
    """"Redis is at cache-01.internal:6379" -> entities/systems/redis.md: "Is at cache-01.internal:6379",
    in place of the line saying where it was ("Is at ...": a thing sits at one address at a time)."""
    match = _ADDRESS_FACT_RE.match(body)
    where = restore(match.group("where")).rstrip(".,;") if match else ""
    if not match or not (REGION_RE if match.group("prep").lower() == "in" else ADDRESS_RE).match(where) and not VERSIONED_RE.match(where):
        return None  # (a thing at a version, "billing is on Postgres 16", is a system too)
    name = restore(match.group("name"))
    if name.split()[0].lower() in NOT_NAMES:
        return None  # "it is at ...", "my laptop is on ...": no name of a system
    fact = entity_fact(name, restore(match.group("pred")).rstrip(".,;"))
    fact.probes = fact_probes(fact.fact)
    return fact


def _team_system(body: str, restore) -> Statement | None:
    """"we use MySQL for the orders database" -> entities/systems/orders_database.md: "Uses MySQL"."""
    match = _TEAM_SYSTEM_RE.match(body)
    if not match or not names_a_system(match.group("name").split()[-1]) or _DATED_RE.search(body):
        return None
    value = value_of(match.group("x"), restore)
    if not informative(value) or len(value.split()) > 4:
        return None
    return entity_fact(restore(match.group("name")), f"{verbs.conjugate(match.group('verb').lower())} {value}")


def _team_change(body: str, restore) -> Statement | None:
    """"we switched from Jira to Linear": the team's line naming Jira now names Linear."""
    changed = change_match(body)
    return changed_value(changed, body, restore) if changed and changed.group("who").lower() == "we" else None


def _person_fact(body: str, restore) -> Statement | None:
    """"Bob owns the billing service" -> entities/people/bob.md: "Owns the billing service"."""
    match = _PERSON_FACT_RE.match(body)
    if not match or _DATED_RE.search(match.group("pred")):
        return None
    name, fact = restore(match.group("name")), restore(match.group("pred"))
    if not informative(fact) or name.split()[0].lower() in NOT_NAMES:
        return None
    return Statement("entities", "", name, ("entities", "people", name.lower()), {"category": "people"}, fact=tx.capitalise(fact))



def _without_teams_here(body: str) -> str:
    """``body`` without the "here" a team's habit is said with ("We always squash-merge PRs here" ->
    "We always squash-merge PRs"): where the team works, no thing shown (standing.of_the_moment)."""
    match = _TEAM_HERE_RE.match(body)
    if match is None or match.group("rest") == body:
        return body
    said = re.sub(r"(?i)^(?:we|our\s+team)\s+", "", match.group("rest")).split()
    # "we are here", "our team is over here": where the team is, which is all it says
    return body if len(said) < 2 or said[0].lower() in ("are", "is", "were", "was", "'re", "sit", "sits") else match.group("rest")
