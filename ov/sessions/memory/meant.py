"""What "no, I meant X" can mean: a new value for the statement just made, or something else.

"I meant X" corrects the latest statement only when X can be its value. It cannot when X is a
clause of its own ("I meant the staging server crashed"), when X points at a place in the code
or the conversation and the statement is a profile line or a preference ("I meant line 42",
"the other file"), or when X says "X, not Y" and Y is not what the statement said ("line 42,
not 24" after "my editor is Neovim"). When Y is, X takes Y's place ("spaces, not tabs" after
"I prefer tabs in Go": "Prefers spaces in Go").
"""

from __future__ import annotations

import re

from ov.sessions.memory.rules import Statement

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


def value_meant(fragment: str, target: Statement) -> str | None:
    """What "I meant ``fragment``" makes the value of ``target``, or None when it cannot be its value."""
    if _CLAUSE_RE.match(fragment):
        return None
    if target.memory_type in ("profile", "preferences") and _PLACE_RE.match(fragment):
        return None
    instead = _NOT_THAT_RE.match(fragment)
    if instead is None:
        return fragment
    said = re.compile(rf"(?i)(?<![\w-]){re.escape(instead.group('y'))}(?![\w-])")
    if not said.search(target.obj):
        return None
    value = said.sub(lambda _match: instead.group("x"), target.obj, count=1)
    if target.lead.lower() == "is ":  # "a designer" -> "an engineer"
        value = re.sub(r"(?i)^an?\s+(?=(\w))", lambda m: "an " if m.group(1).lower() in "aeiou" else "a ", value)
    return value
