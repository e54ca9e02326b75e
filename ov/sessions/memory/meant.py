"""What "no, I meant X" can mean: a new value for the statement just made, or something else.

"I meant X" corrects the latest statement only when X can be its value. It cannot when X is a
clause of its own ("I meant the staging server crashed"), when X points at a place in the code
or the conversation and the statement is a profile line or a preference ("I meant line 42",
"the other file"), or when X says "X, not Y" and Y is not what the statement said ("line 42,
not 24" after "my editor is Neovim"). When Y is, X takes Y's place ("spaces, not tabs" after
"I prefer tabs in Go": "Prefers spaces in Go"). A name meant for a fact said with its verb replaces
its first name ("MySQL" for "uses Postgres for analytics": "uses MySQL for analytics").

"I meant X" is said in other words too, X a name: "actually no, it's X" ("it" is the value just
said; not "actually, that's fine"), and a name alone after an apology, "sorry, MySQL" (or a known tool or choice typed in lower case, "oops,
spaces"; not "sorry, wrong chat", "sorry, thanks").
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory.capitals import UPPER
from ov.sessions.memory.choices import EXCLUSIVE
from ov.sessions.memory.kinds import KINDS
from ov.sessions.memory.pasted import ADDRESSEES
from ov.sessions.memory.standing import TIME_WORD_RE, looks_like_name
from ov.sessions.memory.statement import Statement

# "I meant X" is about something else when X is a clause of its own ("the staging server crashed",
# "CI is down", "it works"): a subject, then a verb, which no value of a key or a preference has.
_DETERMINER = r"(?:the|a|an|my|our|your|his|her|their|this|that|these|those|some)\s+"
_NOUNS = r"(?:(?!(?:of|on|in|at|for|with|to|from|by|and|or|most|least|more|less|well|\w+ly)\b)[\w'-]+\s+){1,3}?"
_AUXILIARY = r"(?:is|are|was|were|has|had|will|would|can|could|should|does|did|isn't|aren't|wasn't|weren't|hasn't|doesn't|didn't|won't|can't)"
_PAST = r"(?:[\w-]{2,}ed|broke|went|ran|fell|froze|hung|got|came)"  # only after a determiner: "tab separated" is a value
_CLAUSE_RE = re.compile(
    rf"(?i)^(?:(?:I|we|he|she|they|you)\s+\w|(?:{_DETERMINER})?{_NOUNS}{_AUXILIARY}\b|{_DETERMINER}{_NOUNS}{_PAST}\b)"
)
# ... or when X points at a place in the code or the conversation: "line 42", "the other file",
# "that function" (a value for a key or a preference is no such place).
_PLACES = (
    r"lines?|files?|functions?|methods?|class(?:es)?|modules?|variables?|tests?|folders?|director(?:y|ies)|paths?|"
    r"columns?|rows?|cells?|blocks?|loops?|fields?|arguments?|parameters?|pages?|sections?|paragraphs?|snippets?|"
    r"comments?|errors?|endpoints?|steps?|messages?|ones?|PRs?|issues?|tickets?"
)
_PLACE_RE = re.compile(
    rf"(?i)^(?:(?:on|in|at)\s+)?(?:(?:the\s+)?(?:{_PLACES})\s+(?:no\.?\s*|number\s+)?#?\d"
    rf"|(?:the|that|this|these|those)\s+(?:[\w'-]+\s+){{0,2}}(?:{_PLACES})$)"
)
# "I meant X, not Y": Y is what the statement said, or the fragment is about something else.
_NOT_THAT_RE = re.compile(r"(?i)^(?P<x>.+?),?\s+(?:and\s+)?not\s+(?P<y>.+)$")
# The name in a fact said with its verb ("uses Postgres 15 for analytics").
_NAME_RUN_RE = re.compile(rf"(?<![\w-]){UPPER}[\w.+#-]*(?:\s+(?:v?\d[\w.]*|{UPPER}[\w.+#-]*))*")
# "Actually no, it's Helix", "no wait, that's MySQL": "it" is the value just said.
_IT_IS_RE = re.compile(r"(?i)^(?:it's|it\s+is|that's|that\s+is|make\s+(?:it|that))\s+(?P<x>.+)$")
# "Sorry, MySQL", "oops - Helix": an apology, then what was meant.
_SORRY_RE = re.compile(r"(?i)^(?:sorry|oops|whoops|err?)\s*[,.!:\u2013\u2014-]+\s*(?P<x>.+?)[.!]*$")
# What is typed in lower case and still names a value: a known tool or choice ("sorry, zsh", "oops, spaces").
_KNOWN_VALUES = frozenset((*(name for names in KINDS.values() for name in names), *(choice for pair in EXCLUSIVE for choice in pair)))
_COURTESY = frozenset(("thanks", "thank", "thx", "ok", "okay", "yes", "no", "nope", "sure", "please", "hi", "hello", "bye", "never", "nevermind"))


def value_again(body: str) -> str | None:
    """The value "it's X" names after a correction's lead ("actually no, it's Helix": "Helix"), or None."""
    match = _IT_IS_RE.match(body)
    return _a_value(match.group("x").strip().rstrip(".!")) if match else None


def apologised(clause: str, said: Statement | None = None) -> str | None:
    """The name said alone after an apology ("sorry, MySQL": "MySQL"), as "I meant MySQL" says it; None
    for anything else ("sorry, wrong chat", "sorry, thanks", "sorry for the delay").

    A name after "sorry" is also whom it is said to: the agent ("sorry, Claude"), or a person.
    Where ``said``, the statement it would correct, names a known tool or choice ("Shell: zsh"),
    only another known one corrects it ("sorry, fish"; not "sorry, Priya")."""
    match = _SORRY_RE.match(clause)
    meant = _a_value(match.group("x").strip()) if match else None
    if meant is None or meant.lower() in _KNOWN_VALUES:
        return meant
    if meant.split()[0].lower() in ADDRESSEES:
        return None
    return None if said is not None and _names_a_known_value(said.obj) else meant


def _names_a_known_value(text: str) -> bool:
    """Whether ``text`` holds a known tool or choice, one word or several ("Uses VS Code at work")."""
    words = re.findall(r"[\w.+#!-]+", text.lower())
    return any(" ".join(words[i : i + n]) in _KNOWN_VALUES for n in (1, 2, 3) for i in range(len(words)))


def _a_value(said: str) -> str | None:
    """``said`` when it names a value (a name, a known tool or choice), None for words of the moment
    ("fine", "wrong chat", "thanks")."""
    if not said or len(said.split()) > 4 or said.split()[0].lower() in _COURTESY or TIME_WORD_RE.fullmatch(said.split()[0]):
        return None  # nor a day's or a month's name: "sorry, Monday" puts something off
    return said if looks_like_name(said) or said.lower() in _KNOWN_VALUES else None


def value_meant(fragment: str, target: Statement) -> str | None:
    """What "I meant ``fragment``" makes the value of ``target``, or None when it cannot be its value."""
    if _CLAUSE_RE.match(fragment):
        return None
    if target.memory_type in ("profile", "preferences") and _PLACE_RE.match(fragment):
        return None
    instead = _NOT_THAT_RE.match(fragment)
    if instead is None:
        if target.slot[:2] != ("profile", "fact"):
            return fragment
        # a fact said with its verb ("Uses bash at work", the team's "uses Jenkins for CI"): its first
        # name, or known tool or choice, is the value; else all that follows the verb
        verb, _, said = target.obj.partition(" ") if target.lead == "Team " else ("", "", target.obj)
        names = [*_NAME_RUN_RE.findall(said), *(w for w in said.split()[:1] if w.lower() in _KNOWN_VALUES)]
        return f"{verb} {said.replace(names[0], fragment, 1) if names else fragment}".strip()
    said = re.compile(tx.named(instead.group("y")), re.IGNORECASE)
    if not said.search(target.obj):
        return None
    value = said.sub(lambda _match: instead.group("x"), target.obj, count=1)
    if target.lead.lower() == "is ":  # "a designer" -> "an engineer"
        value = re.sub(r"(?i)^an?\s+(?=(\w))", lambda m: "an " if m.group(1).lower() in "aeiou" else "a ", value)
    return value
