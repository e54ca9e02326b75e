"""What a text asks of the moment, given to ``ov remember``: a task for now, or thinking aloud.

A memory is given to every later session, so it holds what stays true: preferences, decisions,
facts of the environment, fixes; never transient state (what users of memory tools ask for, see
docs/sessions.md). Two kinds of text are of the moment however they are given, and keep nothing
when no rule reads a statement in them:

- a task for now, an imperative of the work with nothing that makes it standing: "refactor this
  function to use a list comprehension", "run the tests and fix whatever fails". It was a prompt
  for the agent, sent to the wrong place; as a dated note it would be recalled in every later
  session as if it were still to do. "Could you format this file?" keeps nothing for the same
  reason (:mod:`ov.sessions.memory.requests`). What makes an imperative standing is said in it:
  "always", "never", "from now on", "every time", "before committing", "in this repo", a condition
  ("when", "whenever", "unless"), and those are rules the other modules read ("Run the linter
  before committing"); a day makes it a reminder ("renew the cert on Friday"), kept as a dated note;
- thinking aloud: "hmm ok let me think about it", "let's see", "give me a sec", "I'll think about it",
  "not sure yet, will check later", with no name nor figure in it; and an acknowledgement alone
  ("ok cool", "sounds good", "got it, makes sense"). A guess said on the way to a look ("hmm, maybe
  the race is in the DMA callback... let me look at that first", "I wonder if it's the cache; let me
  check") is thinking aloud too, names and all: the guess is of the moment, and what the look finds is
  what would be worth keeping. A guess alone is kept as a dated note (the user asked for it).
"""

from __future__ import annotations

import re

from ov.sessions.memory.verbs import INSTRUCTION_VERBS

# Verbs a task for the agent opens on, beyond the instruction verbs (which rules read with "always").
_TASK_VERBS = (
    rf"{INSTRUCTION_VERBS}|refactor|fix|rename|implement|debug|optimi[sz]e|clean|move|convert|rewrite|extract|simplify|"
    r"find|investigate|generate|build|bump|revert|undo|redo|rerun|re-run|finish|continue|try|look|help|translate|summari[sz]e|"
    r"replace|inline|trim|shorten|tidy|polish|speed|benchmark|draft|scaffold|setup|wire|tweak"
)
# What the verb of a task goes on with: the thing at hand, pointed at ("this function", "the tests",
# "whatever fails", "it up"), which a name opening a statement never does ("Build times are slow").
_AT_HAND = r"(?:the|this|that|these|those|it|them|my|your|a|an|all|everything|whatever|up|out|into|at|over|again|back|some|any|each|both)"
_FILLER = r"(?:(?:ok|okay|alright|right|so|now|hmm*|mm+|um+|uh+|erm|well|then|next|and|also|please|pls|plz|quickly|just)[\s,.!]+)*"
_TASK_RE = re.compile(rf"(?i)^{_FILLER}(?:{_TASK_VERBS})\s+{_AT_HAND}\b(?!['\u2019-])")
# What makes an instruction standing, or a task a reminder for a day.
_STANDING_RE = re.compile(
    r"(?i)\b(?:always|never|from\s+now\s+on|going\s+forward|from\s+here\s+on|every\s+time|each\s+time|any\s*time|every|whenever|when|"
    r"unless|before|after|by\s+default|in\s+(?:this|our|the)\s+(?:repo|repository|project|codebase|team|org)|(?:don't|do\s+not)\b|"
    # a condition, a habit, a choice against another, a kind of case or a language: how to work for good ("Bump the
    # patch version for bug fixes", "Format the code with black, not autopep8"); a deferral is a reminder ("once we migrate")
    r"if|once|each|first|eventually|sometime|someday|later\s+on|rather\s+than|instead\s+of|,\s+not|"
    r"for\s+(?!(?:the|this|that|these|those|it|them|me|us|now|a|an|my|your|its|all|everything|us|him|her)\b)(?:[\w-]+\s+)?[\w-]+s|"
    r"in\s+(?:English|French|German|Spanish|Italian|Dutch|Polish|Portuguese|Japanese|Chinese|Korean|British\s+English|American\s+English)|"
    r"remember|note|today|tomorrow|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|next\s+(?:week|month|sprint)|"
    r"january|february|march|april|june|july|august|september|october|november|december|\d{4}-\d{2}-\d{2})\b"
)
# A convention said as an imperative: a kind of thing ("all errors", "the tests", "the whole suite";
# not "the version", "this file", "it") and where or how, always ("to Sentry", "with buildx", "in CI",
# "next to the code"): "Log all errors to Sentry" is how to work for good, "Upgrade all packages" and
# "bump the version in pyproject.toml" a task (a chain of them, "... and run it", is one too).
_KIND_HOW_RE = re.compile(
    rf"(?i)^{_FILLER}(?:{_TASK_VERBS})\s+(?:(?P<all>all\s+(?:the\s+)?|the\s+whole\s+|every\s+)|the\s+)(?P<kind>[\w-]+(?:\s+[\w-]+){{0,2}}?)"
    r"\s+(?:to|with|in|into|next\s+to|under|via|using|through|as)\s+(?!(?:it|this|that|them)\b)\S"
)
_CHAINED_RE = re.compile(rf"(?i)\b(?:and|then)\s+(?:{_TASK_VERBS})\b")
# Thinking aloud: a filler, then what the user will do about the moment, naming nothing.
_ALOUD_RE = re.compile(
    rf"(?i)^{_FILLER}(?:let\s+me\s+(?:think|check|see|look|try|figure|sleep|mull|get\s+back)|let's\s+see|let\s+us\s+see|"
    r"give\s+me\s+a\s+(?:sec|second|minute|moment|min)|one\s+(?:sec|second|moment|min)|brb|"
    r"I(?:'ll|\s+will|\s+need\s+to|\s+have\s+to|\s+want\s+to|'d\s+like\s+to)\s+(?:think|sleep|mull|check|look|get\s+back)|"
    r"(?:I'm\s+)?not\s+sure\s+yet|will\s+(?:check|look|think)|thinking)\b"
)
# An acknowledgement alone: "ok cool", "sounds good", "got it, makes sense".
_ACK_RE = re.compile(
    r"(?i)^(?:(?:ok|okay|k|cool|nice|great|good|sure|yep|yes|yeah|alright|right|perfect|awesome|fine|neat|sweet|got\s+it|"
    r"sounds\s+good|makes\s+sense|fair\s+enough|understood|noted|will\s+do|ah|oh|i\s+see)[\s,.!]*)+$"
)


# A guess: a hedge opening a sentence ("maybe", "I wonder if", "could it be that").
_GUESS_RE = re.compile(
    rf"(?i)^{_FILLER}(?:maybe|perhaps|probably|possibly|presumably|I\s+(?:wonder|guess|suspect|bet)|could\s+(?:it\s+)?be|"
    r"might\s+be|it\s+(?:might|could|may)\s+be)\b"
)
_PARTS_RE = re.compile(r"\s*(?:\.{2,}|\u2026|[.;!]\s+|,\s+(?=(?:so\s+|ok\s+|then\s+)?let\s+me\b))\s*")


def of_the_moment(text: str) -> bool:
    """Whether ``text`` (read by no rule) is a task for now or thinking aloud, which keeps nothing."""
    said = " ".join(text.split()).strip()
    if _ACK_RE.match(said):
        return True
    if guessed_aloud(said):
        return True
    if _ALOUD_RE.match(said):
        return _aloud(said)
    return bool(_TASK_RE.match(said)) and not _STANDING_RE.search(said) and not said.endswith("?") and not a_convention(said)


def a_convention(said: str) -> bool:
    """Whether ``said``, an imperative, is a convention on a kind of thing (see _KIND_HOW_RE)."""
    kind = _KIND_HOW_RE.match(said)
    if kind is None or _CHAINED_RE.search(said):
        return False
    head = kind.group("kind").split()[-1].lower()
    return bool(kind.group("all")) or (head.endswith("s") and not head.endswith("ss"))


def guessed_aloud(text: str) -> bool:
    """Whether ``text`` is only a guess and a look to come ("I wonder if it's the cache; let me
    check"), which keeps nothing even where a rule would read its guess ("Wonders if ...")."""
    said = " ".join(text.split()).strip()
    parts = [p for p in _PARTS_RE.split(said.rstrip(".!")) if p.strip(" .,")]
    # (the look may name where it looks, "let me check in Instruments", "let me look at the DMA logs":
    # the guess is still of the moment, and so is the look)
    if len(parts) < 2 or said.endswith("?") or not all(_GUESS_RE.match(p) or _ALOUD_RE.match(p) for p in parts):
        return False
    return any(_ALOUD_RE.match(p) for p in parts) and any(_GUESS_RE.match(p) for p in parts)


def _aloud(said: str) -> bool:
    """Whether ``said`` is thinking aloud, naming nothing."""
    if _ALOUD_RE.match(said):
        # ("let me think about the Postgres 16 upgrade": it names something, a note of it is kept)
        return not re.search(r"[\d`/_@:]", said) and not any(w[:1].isupper() for w in said.split()[1:] if w not in ("I", "I'll", "I'd"))
    return False
