"""What names a system and where a system is: the words for one, its address, its version, and the
stored lines a new place or address replaces.

"our staging DB", "the build servers", "the payments team" name what a fact asked to be remembered
is about (:mod:`ov.sessions.memory.facts`); "Is at cache-01:6379", "Runs on Postgres 16", "Is in
eu-west-1" say where it is, and a later fact saying so otherwise replaces them (:func:`fact_probes`),
as a move does (:mod:`ov.sessions.memory.moves`).
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory.statement import Statement

# The things "remember that our X ..." may state a fact about: entities/systems/{X} ("the build
# servers" too), or entities/teams/{X} for "the payments team".
SYSTEM_NOUNS = frozenset(
    "db database server cluster api endpoint queue bucket cache pipeline registry environment env host vm "
    "gateway proxy broker vpn ci cdn domain instance machine service box worker app website site frontend backend "
    "repo monorepo warehouse storage job".split()
)
TEAM_NOUNS = frozenset(("team", "squad"))
# What the team keeps in files, whose place is a path in a repository: "our deploy config is in
# k8s/prod", and "moved to infra/terraform" is where it lives now, not a move in the code at hand.
FILE_NOUNS = frozenset(("config", "configuration", "manifest", "chart", "playbook", "migration", "fixture", "dotfile"))


def names_a_system(word: str) -> bool:
    word = word.lower()
    return word in SYSTEM_NOUNS or word in FILE_NOUNS or (word.endswith("s") and (word[:-1] in SYSTEM_NOUNS or word[:-1] in FILE_NOUNS))

# A corrected fact replaces the stored one with the same verb and one of these after it (fact_probes).
PLACE_PREPOSITIONS = frozenset("in on at to from behind under inside via through".split())
# What a move replaces: the lines that say where a system ran.
PLACEMENT_LEADS = ("Runs on", "Runs in", "Is on", "Is in", "Is hosted on", "Is hosted in", "Is hosted at", "Lives on", "Lives in", "Uses", "Moved to",
                   "Run on", "Run in", "Are on", "Are in", "Are hosted on", "Are hosted in", "Live on", "Live in", "Use")  # (and a plural's)
# "Node 18", "Postgres 15", "Python 3.12": a named thing at a version. A fact naming it at another
# version replaces the one naming it at this one, whatever its verb (see fact_probes). A day is
# none: "the launch is on March 3rd" names when, not what it runs on.
DAY_NAME = (r"(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|july|august|september|"
             r"october|november|december|mon|tue|wed|thu|fri|sat|sun|monday|tuesday|wednesday|thursday|friday|saturday|sunday)")
VERSIONED_RE = re.compile(rf"^(?!{DAY_NAME}\b)(?P<name>[A-Za-z][\w.+-]*(?:\s+[A-Za-z][\w.+-]*)?)\s+v?\d(?!\d*(?i:st|nd|rd|th)\b)[\w.]*$")
VERSION_LEADS = ("Runs", "Uses", "Is on", "Are on", "Is running", "Are running", "Runs on", "Run on")
# At or on a host, a URL or a port ("1.2.3" is a version, not a host); in a region ("in auth.py" is a
# file, where a bug is); on a named thing at a version. A time of day ("at 9:30", "at 14:00:00") is when
# a thing happens, not a host and port: a meeting is a note, not a system.
ADDRESS_RE = re.compile(r"(?i)^(?!\d{1,2}:\d{2}(?::\d{2})?$)(?:https?://\S+|(?=[\w.-]*[a-z])[a-z0-9-]+(?:\.[a-z0-9-]+)+(?::\d+)?|[a-z0-9.-]+:\d{2,5}|port\s+\d+)$")
# The stored lines that say where a system is reached, which a new address replaces ("Is host:port",
# "Is at host", "Moved to host"): patterns, as merge's supersede matches them.
ADDRESS_PROBES = ("Is *.*", "Is *:[0-9]*", "Is at", "Is reachable at", "Lives at", "Sits at", "Moved to *.*", "Moved to *:[0-9]*",
                  "Are *.*", "Are *:[0-9]*", "Are at", "Are reachable at", "Live at", "Sit at",  # (and a plural's: "our docs are at ...")
                  *(f"{word} {verb}" for word in ("Host", "Hostname", "Address", "URL") for verb in ("is", "are", "was")))  # ("the X host is ...")
# The stored lines that say which port a system is on, whatever the verb ("Runs on port 8080", "Is at
# port 8080"), or as its port ("Port is 8080": "the api service port is 8080").
PORT_PROBES = (*(f"{verb} {prep} port" for verb in ("Is", "Runs", "Listens", "Lives", "Are", "Run", "Listen", "Live") for prep in ("on", "at")),
               "Port is", "Ports are", "Port number is")
# A fact that names what a system is reached by as an attribute of it: "Port is 7000", "Host is
# db-stg-3.internal" (what "the api service port is ..." and "the staging database host is ..." say).
_ATTRIBUTE_RE = re.compile(r"(?i)^(?P<attr>port(?:\s+number)?|host(?:name)?|address|url)\s+(?:is|are)\s+(?P<value>\S+?)[.,;]?$")
REGION_RE = re.compile(r"(?i)^[a-z]{2,6}(?:-[a-z]+)+-?\d$")


# The kinds of entity a noun names (the entity schema's categories): "the payments team", "our
# employer", "the Atlas project"; what "my K is Y" files a name under (rules), and a card's category.
ENTITY_CATEGORIES = {
    "project": "projects", "repo": "projects", "repository": "projects", "codebase": "projects",
    "team": "teams", "squad": "teams",
    "company": "organizations", "employer": "organizations", "organization": "organizations",
    "organisation": "organizations", "org": "organizations", "startup": "organizations",
    "manager": "people", "boss": "people", "colleague": "people", "teammate": "people", "mentor": "people",
    "product": "products", "app": "products", "service": "products",
}
# A noun naming the thing a card is about, as its last word, which the card's name goes without
# ("the payments team": teams/payments; "the Atlas project": projects/atlas): never a system's noun
# ("the payments service" is a system's name, whole).
_HEAD_CATEGORIES = {**{noun: category for noun, category in ENTITY_CATEGORIES.items() if noun not in SYSTEM_NOUNS},
                    **dict.fromkeys(("client", "customer", "vendor", "agency", "partner", "supplier"), "organizations")}
# What a fact says of a person: their place ("is in Berlin", "is based in", "lives in"), their work or
# their life ("works on", "joined", "is on leave"), their role ("is our tech lead", "is a designer"),
# or a person's pronoun in it.
_PERSON_VERB_RE = re.compile(
    r"(?i)^(?:lives|works|worked|joined|left|leads|led|owns|manages|maintains|reviews|approves|knows|speaks|prefers|likes|loves|uses|"
    r"hates|wants|said|says|thinks|moved|retired|quit|was\s+born|is\s+on\s+(?:leave|vacation|holiday|pto|parental|paternity|"
    r"maternity|sick)|is\s+out|is\s+off|is\s+(?:from|based|remote|responsible|in\s+charge|allergic|vegetarian|vegan|pregnant|married)|"
    # (only a person is on a team or in one: "Alice is on the infra team"; review rev21 #6)
    r"is\s+(?:on|in)\s+(?:the|our|a|an)\s+(?:[\w-]+\s+){0,2}(?:team|squad))\b"
)
_PERSON_PRONOUN_RE = re.compile(r"(?i)\b(?:he|she|him|his|her|hers)\b")
# A thing's own pronoun, which says a name using something is no one's ("Atlas uses Postgres for its queue").
_THINGS_PRONOUN_RE = re.compile(r"(?i)\b(?:its|itself)\b")
_ROLE_RE = re.compile(r"(?i)^(?:is|was)\s+(?:(?:a|an|the|our|my|their|his|her)\s+)?(?:new\s+|former\s+|senior\s+|junior\s+|lead\s+)*"
                      r"(?:[\w-]+\s+){0,2}(?P<noun>[\w-]+)$")
_PLACE_AFTER_RE = re.compile(r"(?i)^(?:is|lives|works|sits)\s+(?:in|from|at)\s+(?P<place>.+)$")
_PERSON_ROLES = frozenset(("lead", "pm", "cto", "ceo", "cfo", "coo", "vp", "intern", "founder", "cofounder", "co-founder",
                          "friend", "wife", "husband", "partner", "sister", "brother", "mom", "dad", "mother", "father", "son",
                          "daughter", "cousin", "uncle", "aunt", "neighbour", "neighbor", "roommate", "flatmate", "boss",
                          "colleague", "teammate", "mentor", "mentee", "manager", "nurse", "doctor"))


def category_of(name: str, fact: str) -> str:
    """The entity schema's category for a card on ``name`` stating ``fact`` (its line, or the text
    said): a head noun's (:data:`ENTITY_CATEGORIES`), else a person's for a name in a person's
    shape (one or two capitalised words, no system, tool nor language) with a fact said of a person
    (:data:`_PERSON_VERB_RE`, a role, a place to live, a pronoun), else a role's noun ("Atlas is
    a Django project": projects), else ``systems``."""
    from ov.sessions.memory.capitals import NAME_WORD
    from ov.sessions.memory.places import PROGRAMMING_LANGUAGES, is_place

    words = name.split()
    if len(words) > 1 and words[-1].lower() in _HEAD_CATEGORIES:
        return _HEAD_CATEGORIES[words[-1].lower()]
    if words and words[-1].lower() in _PERSON_ROLES:
        return "people"  # a role named as the subject: "Our CTO likes Rust" (review rev21 #6)
    said = re.sub(rf"(?i)^(?:the\s+|our\s+)?{re.escape(name)}\s+", "", fact.strip().rstrip(".!")) if name else fact
    role = _ROLE_RE.match(said)
    noun = role.group("noun").lower() if role else ""
    person = (len(words) <= 2 and all(re.fullmatch(NAME_WORD, w) for w in words) and not names_a_system(words[-1])
              and name.lower() not in PROGRAMMING_LANGUAGES and is_place(name))  # (a name as a place would be: no tool, no platform)
    place = _PLACE_AFTER_RE.match(said)
    if noun in _HEAD_CATEGORIES:
        return _HEAD_CATEGORIES[noun]  # ("Globex is our biggest customer": a customer's noun before a person's -er)
    if person and (_PERSON_VERB_RE.match(said) and not _THINGS_PRONOUN_RE.search(said) or _PERSON_PRONOUN_RE.search(said) or noun in _PERSON_ROLES
                   or re.search(r"(?:er|or|ist|ian)$", noun) and not names_a_system(noun) or place and is_place(place.group("place"))):
        return "people"
    return "systems"


def entity_fact(name: str, fact: str) -> Statement:
    """A fact about a system, a team ("the payments team": entities/teams/payments, named as "I
    joined the Payments team" names it), or another kind of thing (:func:`category_of`)."""
    category = category_of(name, fact)
    words = name.split()
    if len(words) > 1 and _HEAD_CATEGORIES.get(words[-1].lower()) == category:
        name = " ".join(words[:-1])
    return Statement("entities", "", name, ("entities", category, name.lower()), {"category": category}, fact=tx.capitalise(fact))


def fact_probes(fact: str) -> tuple[str, ...]:
    """The stored facts a corrected one replaces: those with the same verb and preposition
    ("Is in eu-central-1" replaces "Is in eu-west-1"), and for a fact that says where something
    is, the others that say so with the same preposition ("Is in us-west-2" replaces "Lives in
    us-east-1"; a port is no place: "Is on port 5433" replaces the lines naming a port, "Runs on port
    5432" too, and no other); () for a bare
    "is", which merge's word overlap decides."""
    words = fact.split()
    if attribute := _ATTRIBUTE_RE.match(fact):
        # "Port is 7000" replaces "Port is 8080" and "Runs on port 8080"; "Host is db-2.internal" the
        # lines saying where the system is: one port and one address at a time, whatever the wording.
        if attribute.group("attr").lower().startswith("port"):
            return PORT_PROBES if attribute.group("value").isdigit() else ()
        return ADDRESS_PROBES if ADDRESS_RE.match(attribute.group("value")) else ()
    if 1 < len(words) <= 3 and ADDRESS_RE.match(words[-1].rstrip(".,;")) and not re.match(r"(?i)v?\d", words[-1]) and (len(words) == 2 or words[1].lower() == "at"):
        return ADDRESS_PROBES  # "Is staging2.internal:9443", "Is at cache-02.internal": one address at a time
    if len(words) > 3 and words[1].lower() in ("on", "at") and words[2].lower() == "port":
        # the port it is on, whatever the verb: "Is on port 8443" replaces "Runs on port 8080" (a port is no version)
        return tuple(dict.fromkeys((*(f"{words[0]} {prep} port" for prep in ("on", "at")), *PORT_PROBES)))
    versions = _version_probes(fact)
    if versions:
        return versions
    if len(words) < 3 or words[1].lower() not in PLACE_PREPOSITIONS:
        return ()
    lead = f"{words[0]} {words[1]}"
    if lead.lower() not in {p.lower() for p in PLACEMENT_LEADS} or words[2][:1].isdigit():
        return (lead,)
    return tuple(dict.fromkeys((lead, *(p for p in PLACEMENT_LEADS if p.lower().endswith(" " + words[1].lower())))))


def one_at_a_time(fact: str) -> tuple[str, ...]:
    """The stored lines a system's ``fact`` replaces whatever its verb, said once or again: those saying
    its address or its port (a system has one of each at a time); () for any other fact, which only a
    correction replaces."""
    probes = fact_probes(fact)
    return probes if probes == ADDRESS_PROBES or "Port is" in probes else ()


def _version_probes(fact: str) -> tuple[str, ...]:
    """"Are on Node 20" replaces "Runs Node 18", "Uses Node 16", "Is on Node 18": the same thing
    at another version; () for a fact that names no version."""
    for lead in sorted(VERSION_LEADS, key=len, reverse=True):
        if fact.lower().startswith(lead.lower() + " "):
            named = VERSIONED_RE.match(fact[len(lead) + 1 :].strip())
            return tuple(f"{verb} {named.group('name')} #" for verb in VERSION_LEADS) if named else ()
    return ()


# Capitalised words that open a sentence without naming anyone.
NOT_NAMES = frozenset("it this that there here everyone nobody someone the our my we they he she you i".split())
