"""What a plain statement is about, and whether its verb is in the past: read by its words alone.

:mod:`ov.sessions.memory.standing_note` files a text no rule reads by broad cues; two of them need
the statement's parts: the subject a fact about a thing is about, which names its card ("our staging
DB is read-only": ``staging DB``; "PIN 3 on the GPIO header is ground": ``PIN 3``), and whether the
verb after the subject is in the past ("the nightly backup failed": a happening; "the build takes 20
minutes", "the secrets are rotated monthly": what holds). No list of all English verbs is needed: the
forms around the verb (a determiner before a noun, an auxiliary before a participle, what a verb
takes after it) tell them apart well enough for a fallback.
"""

from __future__ import annotations

import re

from ov.sessions.memory.standing import TIME_WORD_RE
from ov.sessions.memory.systems import names_a_system
from ov.sessions.memory.verbs import INSTRUCTION_VERBS, is_past


def words(said: str) -> frozenset[str]:
    """The words of ``said``, as a set (a table of words written as one string)."""
    return frozenset(said.split())


# Words before a past form that make it no verb of its own: an auxiliary of the passive or of a
# present perfect's state ("is rotated", "are signed", "has changed"), a determiner ("the failed
# jobs"), a preposition ("by the team"), "to" ("used to").
_NOT_BEFORE_PAST = words("is are be been being am 's 're get gets getting the a an our my your their its this that these those every each all any "
    "some no to of for with by in on at from than as not")
# Verbs of the present and modals: a statement that says what holds (a past form after one is an adjective).
_PRESENT = words("is are am isn't aren't has have does do don't doesn't can can't cannot must should shall will won't would may might "
    "need needs require requires")
_PRONOUNS = words("i we you he she it they this that these those there here what which who")
# Words that open no thing's name: a pronoun, a conjunction, a lead-in, a question's word or a modal, a
# reply, a mark of work to do ("How do I ...", "Could you ...", "Nope, ...", "WIP on ...": review rev21 #2).
NO_SUBJECT = _PRONOUNS | words("and but or so if when whenever while because since as once unless until though although then also "
                                 "actually anyway scratch update note fyi btw ok okay well no yes wait sorry hmm just plus thanks ugh "
                                 "how where why could would shall might nope nah yeah yep lol wip todo wondering everyone everybody nobody someone")
# Words after a subject that end it: a past copula, an adverb before the verb ("The designer always uses Figma").
ADVERBS = words("was were always never usually often sometimes rarely seldom still also just only really mostly generally")
PREPOSITIONS = words("on in at for of with to from by via under behind through about into onto per")
# A determiner a thing's name may start with, dropped from its card's name.
_DETERMINER_RE = re.compile(r"(?i)^(?:(?:our|the|my\s+team's|our\s+team's|this\s+(?:repo's|project's)|all|every|each)\s+)")


def in_past(said: str) -> bool:
    """Whether the verb of ``said`` (the first verb after its subject) is in the past tense."""
    words = [w.strip(".,;:!?()\"'").lower() for w in said.split()]
    for i, word in enumerate(words[:8]):
        if word in _PRESENT:
            return word in ("was", "were", "had", "did")
        if word in ("was", "were", "had", "did", "went", "got"):
            return True
        if i and ((word.endswith("ing") and words[i - 1] not in _NOT_BEFORE_PAST) or (word.endswith("s") and not word.endswith("ss") and words[i - 1] not in _NOT_BEFORE_PAST
                                           and word not in _PRONOUNS and len(word) > 3 and not words[i - 1].endswith("s"))):
            return False  # a present ("the build takes", "the service listens") or a progressive
        if is_past(word) and (i == 0 or words[i - 1] not in _NOT_BEFORE_PAST) and not (i and words[i - 1] in PREPOSITIONS):
            return True
    return False


def subject_of(said: str) -> str | None:
    """The thing a fact is about, as its card is named: the words before the verb, without their
    determiner ("our staging DB is ...": "staging DB"; "PIN 3 on the GPIO header is ground": "PIN 3");
    None when the statement is said of someone ("we", "it") or names no subject. ``said`` is on one
    line, without its lead-in."""
    scoped = re.match(r"(?i)^(?:on|in|at|for)\s+(?:the|our)\s+(?P<x>[\w.+-]+(?:\s+[\w.+-]+){0,3}?)\s*,\s+(?:we|I)\b", said)
    if scoped:
        return scoped.group("x")  # "In the payments service, we use Kafka": the payments service's
    rest = _DETERMINER_RE.sub("", said)
    words = rest.split()
    if not words or re.sub(r"'s$", "", words[0].lower().strip(",")) in NO_SUBJECT:
        return None
    name: list[str] = []
    for i, word in enumerate(words[:6]):
        bare = word.strip(",;:").lower()
        if i and (bare in _PRESENT or bare in ADVERBS or bare in PREPOSITIONS or is_past(bare) or _verb_at(words, i)):
            break
        name.append(word.rstrip(",;:"))
        if word.endswith((",", ":", ";")):
            break
    else:
        return None
    subject = " ".join(name)
    if len(name) == len(words) or TIME_WORD_RE.fullmatch(subject) or not re.search(r"\w", subject):
        return None
    return subject


# Verbs a plural subject takes in their base form ("tests use", "releases go out").
PLURAL_VERBS = frozenset((*INSTRUCTION_VERBS.split("|"), "go", "live", "take", "come", "stay", "sit", "belong", "happen", "get", "need",
                           "work", "depend", "point", "hold", "cost", "last", "expire", "rotate", "follow", "target", "come", "talk", "see"))


def _verb_at(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` is the verb after a subject: a base form after a plural ("tests use"), or
    a form in -s followed by what a verb takes (a determiner, a name, a figure, a preposition, a word
    that is no plural): "the build takes 20 minutes", "the service listens on"; not "Sono Motors builds"."""
    word, before = words[i].strip(",;:").lower(), words[i - 1].lower()
    if before.endswith("s") and word in PLURAL_VERBS:
        return True
    if not word.endswith("s") or word.endswith(("ss", "'s")) or len(word) < 4 or names_a_system(word) or words[i][:1].isupper():
        return False
    following = words[i + 1].lower() if i + 1 < len(words) else ""
    if following in _PRESENT or following in PLURAL_VERBS or following in ("are", "were") or is_past(following):
        return False  # a plural noun before its verb: "the Grafana dashboards are", "Kafka topics get"
    return bool(following) and (following in PREPOSITIONS or following in ("a", "an", "the", "our", "its", "their", "every", "all", "no",
                                                                               "up", "out", "down", "off")
                                or following[:1].isdigit() or words[i + 1][:1].isupper() or not following.endswith("s"))
