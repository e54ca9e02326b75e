"""What stands and what passes: telling a fact about the user from a remark of the moment.

The rules of :mod:`ov.sessions.memory.rules` read "my manager is X", "I like X", "I always X"
by their shape; this module says when the X of such a shape is no standing fact: a state that
passes ("my build is green", "my manager is out this week"), something on the table in this
conversation ("I like your suggestion", "I prefer option B"), a sigh ("I'm such an idiot"), or
a description where a name was expected ("my team is US-based").
"""

from __future__ import annotations

import re

# "my K is Y" (rules reads it; passing_remark asks whether Y only passes).
MY_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+(?P<y>.+)$", re.IGNORECASE)
# A state that passes ("the staging DB is down", "my team is blocked") is news, not a standing fact:
# the one notion of it, for "remember that" facts and "my K is ..." alike. A word of its own:
# "back-end" is no state.
PASSING_STATE_RE = re.compile(
    r"(?i)(?<![\w-])(?:down|up|broken|flaky|slow|failing|offline|unavailable|unreachable|fixed|back|blocked|stuck|ooo|afk|wfh)(?![\w-])"
)
# What else a value starts or ends with when it says how a thing is doing today, not what it is:
# "out this week", "due tomorrow", "2 weeks late", "#1234" (a PR's number), and where work in
# progress sits: "in the stash", "on the feature branch" (not "on the third floor").
_PASSING_LEAD_RE = re.compile(
    r"(?i)^(?:(?:still|now|currently|all|just|so|completely|totally|finally)\s+)*(?:(?:out|due|late|overdue|behind|done|ready|"
    r"pending|waiting|merged|ok|okay|tbd|asap|n/a)\b|#\d|(?:in|on)\s+(?:the|my|a|an|this|that|another)\s+(?:[\w-]+\s+){0,2}"
    r"(?:stash|branch|queue|backlog|review|pr|pull\s+request|sprint|works|way|pipeline|worktree|clipboard|draft)s?\b)"
)
_PASSING_TAIL_RE = re.compile(r"(?i)\b(?:late|overdue|behind)$")
# Green and red are a check's result for what is checked ("my build is green"), a colour for anything else.
_CHECKED_KEY_RE = re.compile(r"(?i)\b(?:build|ci|pipeline|tests?|checks?|suite|pr|branch|deploy)s?$")
_COLOUR_LEAD_RE = re.compile(r"(?i)^(?:(?:still|now|all)\s+)*(?:green|red)\b")
# Keys whose value names a pursuit, which a verb in -ing does: "my hobby is painting".
_PURSUIT_KEY_RE = re.compile(r"(?i)\b(?:favou?rite|hobby|hobbies|passion|pastime|interests?|sport|job|role|specialty|speciality)\b")
# A verb in -ing leading a value: "failing with a timeout", "showing weird characters" (not "thing").
_PROGRESSIVE_RE = re.compile(
    r"^(?:(?:still|now|currently|just|constantly|always)\s+)*(?!(?:thing|string|spring|morning|evening|ceiling|sibling|wedding|"
    r"pudding|building|meeting|setting|king|ring|wing|nothing|something)s?\b)[a-z]{2,}ing\b"
)
# A title's words state nothing: "Bring It Back" is no state, and its "It" points at nothing.
_TITLE_WORD_RE = re.compile(r"\b[A-Z][a-z][\w'-]*")
# What a name may hold besides capitalised words: particles ("Ludwig van Beethoven", "Bank of America",
# "Johnson & Johnson") and numbers ("Atlas 2", "v2"). A status is no name ("OOO", "OK", "TBD").
_NAME_PARTICLES = frozenset(("de", "van", "von", "der", "den", "da", "di", "del", "du", "la", "le", "of", "the", "&", "and", "y", "bin"))
_STATUS_ABBREVIATIONS = frozenset(("ooo", "ok", "okay", "wfh", "afk", "pto", "tbd", "tba", "asap", "n/a", "eta", "eod", "fyi", "wip", "brb", "ooto"))
# Objects that name something on the table in this conversation: "your suggestion", "option B",
# "the second approach", "the above", "... right now". Liking one is a reply, not a standing taste
# ("your answers short" still says how the user wants answers). "its packaging", "their docs":
# what it belongs to was said in another clause.
_ON_THE_TABLE_RE = re.compile(
    r"(?i)^(?:(?:your|the|this|that)\s+(?:(?:first|second|third|last|previous|other|new|original|latest|earlier|current|"
    r"updated|revised|proposed|suggested|alternative)\s+)?(?:suggestion|idea|answer|approach|proposal|solution|version|"
    r"option|draft|plan|response|reply|explanation|fix|change|edit|rewrite|one)s?|"
    r"(?:the\s+)?(?:option|choice|approach|alternative|variant|plan|version)\s+(?:[a-d]|\d+)|the\s+(?:above|former|latter))$"
    r"|\b(?:right\s+now|at\s+the\s+moment|for\s+the\s+moment)$|^(?:its|their)\b"
)
# "I'm such an idiot", "I'm so dumb": a sigh at oneself, not a profile fact.
_SELF_DEPRECATING_RE = re.compile(
    r"(?i)^(?:(?:I\s+am|I'm|Im)\s+)?(?:(?:an?|such|so|total|complete|absolute|real|right|utter|big|huge|really|just)\s+)*"
    r"(?:idiot|moron|dummy|fool|dumbass|dunce|klutz|numpty|muppet|clown|doofus|dork|noob|loser|dumb|stupid|useless|hopeless)\b"
)


def points_back(text: str) -> bool:
    """Whether ``text`` leans on what was said before it for its meaning ("I need the VPN for it",
    "never use print here", "never do that again"); not "in this repo", where "this" names a thing."""
    words = [w.lower().strip(".,;:!?") for w in text.split()]
    return any(
        w in _PRONOUNS or (w in _DEMONSTRATIVES and (i + 1 == len(words) or words[i + 1] in _NOT_NOUNS)) for i, w in enumerate(words)
    )


_PRONOUNS = frozenset(("it", "them", "here", "there"))
_DEMONSTRATIVES = frozenset(("this", "that", "these", "those"))
_NOT_NOUNS = frozenset(["again", "too", "also", "either", "as", "for", "with", "to", "in", "on", "at", "please", "anymore"])


def passing_value(key: str, value: str) -> bool:
    """Whether "my ``key`` is ``value``" tells how a thing is doing now rather than what it is:
    "my test is failing with a timeout", "my build is green", "my PR is #1234", "my manager is out"."""
    said = _TITLE_WORD_RE.sub("", value).strip()
    if PASSING_STATE_RE.search(said) or _PASSING_TAIL_RE.search(said) or points_back(said):
        return True
    if _COLOUR_LEAD_RE.match(value) and _CHECKED_KEY_RE.search(key):
        return True
    return bool(_PASSING_LEAD_RE.match(value)) or (not _PURSUIT_KEY_RE.search(key) and bool(_PROGRESSIVE_RE.match(value)))


def passing_remark(clause: str) -> bool:
    """Whether ``clause`` is a remark of the moment that only sounds like a fact about the user:
    "my build is green", "my manager is out this week", "I'm such an idiot"."""
    mine = MY_RE.match(clause)
    return self_deprecating(clause) or (bool(mine) and passing_value(" ".join(mine.group("k").lower().split()), mine.group("y")))


def self_deprecating(text: str) -> bool:
    """"I'm such an idiot", "a total moron", "so dumb": what the user calls themself in a sigh."""
    return bool(_SELF_DEPRECATING_RE.match(text))


def on_the_table(obj: str) -> bool:
    """Whether a liked or preferred ``obj`` is something in this conversation ("your suggestion",
    "option B", "not to discuss it right now", "its packaging") rather than a standing taste."""
    return bool(_ON_THE_TABLE_RE.search(obj))


def looks_like_name(value: str) -> bool:
    """Whether ``value`` names someone or something: "Dana Lee", "Bank of America", "Atlas 2"; not
    "OOO until Monday", "2 weeks late", "GitHub-hosted", "US-based"."""
    words = [w for w in (w.strip(".,;:!?\"'()") for w in value.split()) if w]
    if not any(c.isupper() for w in words for c in w):
        return False
    for word in words:
        if word.lower() in _STATUS_ABBREVIATIONS:
            return False
        if word.lower() in _NAME_PARTICLES:
            continue
        if not (word[0].isupper() or any(c.isdigit() for c in word)):
            return False  # a lowercase word of content: "with the delay", "until Monday"
        if any(part.isalpha() and part.islower() for part in word.split("-")[1:]):
            return False  # "GitHub-hosted", "AI-first", "Auth0-based": a description
    return True
