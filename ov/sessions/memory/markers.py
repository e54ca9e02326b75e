"""How a statement says that it replaces an older one: the markers of a correction or a change.

"Actually, ...", "Scratch that, ...", "... now", "these days ...": the clause
rules (:mod:`ov.sessions.memory.rules`) read what follows, and the marker itself
is never stored; "not on X anymore - I switched to Y" is read as "I switched
from X to Y".
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import NAME_WORD
from ov.sessions.memory.changes import WHEN_TAIL
from ov.sessions.memory.rules import INSTRUCTION_VERBS

# "now", "these days", "instead" say that a statement replaces an older one (as "actually" does,
# which extract reads); they are not part of what is stored.
# So do "going forward", "in future", "from here on": what follows holds from now on (at the start,
# only before a comma: "in future versions ..." is no marker).
_FROM_NOW = r"from\s+now\s+on|going\s+forward|moving\s+forward|in\s+(?:the\s+)?future|from\s+here\s+on(?:\s+out)?|henceforth"
# "As of last weekend, ...", "as of Monday ...": since when what follows holds, a change as well.
_AS_OF = rf"as\s+of\s+(?:(?:last|this)\s+\w+|yesterday|today|now|(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?-i:{NAME_WORD})(?:\s+\d+)?)"
# "Since March, ...", "... since the spring", "since we migrated": since when what is said holds, a change as
# "as of" says it (a time, never a reason: "since it's faster" stays part of what is said).
_MONTHS = r"january|february|march|april|may|june|july|august|september|october|november|december"
_SINCE = (rf"since\s+(?:(?:last|this)\s+(?:week|month|year|quarter|sprint|spring|summer|autumn|fall|winter|release)|yesterday|then|"
          rf"(?:(?:early|late|mid)[\s-]+)?(?:the\s+)?(?:{_MONTHS}|spring|summer|autumn|fall|winter)|\d{{4}}|"
          r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+(?:migration|move|switch|upgrade|reorg|merger|acquisition|rewrite)|"
          r"(?:we|I)\s+[a-z]+ed(?:\s+[\w.-]+){0,3})")
_CHANGE_LEAD_RE = re.compile(rf"^(?:(?:(?:now|nowadays|these\s+days|instead|from\s+now\s+on|{_AS_OF}|{_SINCE})\b[,:]?|(?:{_FROM_NOW}),)\s+)+", re.I)
# ("as of" too: since when; and "actually", a correction's marker said last: "I prefer spaces actually")
_CHANGE_TAIL_RE = re.compile(rf"[,\s]+(?P<m>now|nowadays|these\s+days|instead|actually|{_FROM_NOW}|{_AS_OF}|{_SINCE})$", re.I)
# "I use Zed now, switched a couple of weeks ago", "I'm at Stripe, changed jobs in the spring": a
# switch said after the value, without its subject, says the change as "now" does (and when it was,
# which is no part of the value).
_SWITCHED_TAIL_RE = re.compile(
    r",\s*(?:(?:I|we)(?:'ve|\s+have)?\s+)?(?:just\s+|recently\s+)?(?:switched|changed|moved|migrated)"
    rf"(?:\s+(?:over|jobs?|teams?|companies|editors?|it|them))?(?:{WHEN_TAIL})?$",
    re.IGNORECASE,
)
# "I now prefer", "I actually prefer": the adverb after the subject marks the change as well; so
# does "now" after a named subject ("the api now listens on port 7000", "our CI now runs on ...").
_CHANGE_INNER_RE = re.compile(
    r"(?i)\b(?P<v>I|I'm)\s+(?:now|actually)\s+|\b(?P<w>is|are)\s+now\s+|^(?P<s>(?:the|our|my|we)\b(?:\s+[\w.+-]+){0,3}?)\s+now\s+(?=[a-z])"
)
# What opens a correction of something said before: "Actually, ...", "Correction: ...", "Scratch
# that, ...", "I was wrong, ...", "No wait, ...", "Wait, no, ...", "No, ..." (a bare "no" before what holds instead:
# "No, the default branch is main"; not a courtesy's, "No, thanks"), "Update: ..." ("update" only before a colon or
# comma: "update the docs" is a task; "wait, no problem" is no correction), "Changed my mind, ...", "On second thought, ...". A correction's heading says
# what it corrects before its colon: "Correction to what I said before: ...". The marker is not part of what is stored.
CORRECTION_MARKER = (
    r"(?:actually|correction(?:\s+(?:to|of|on|about)\s+[^:.!?\n]{1,40}?(?=\s*:))?|scratch\s+that|I\s+was\s+wrong|no,?\s+wait|wait,?\s+no\b(?!\s+(?:problem|worries|rush|need|hurry|idea|way|big)\b)|no(?=\s*[,.!\u2013\u2014-]\s*(?!(?:thanks|thank|worries|problem|rush|need|hurry|idea|way|big|pressure)\b)\w)|update(?=\s*[:,\u2013\u2014-])|"
    r"(?:I(?:'ve|\s+have)?\s+)?changed\s+my\s+mind|on\s+second\s+thoughts?)\b"
)
# A correction's opening with what follows the marker: "Scratch that, ", "Correction: ", "Scratch that - ".
CORRECTION_LEAD = rf"^{CORRECTION_MARKER}\s*[,:;\u2013\u2014-]?\s*"
# "for now" and "until now" are part of what is said, not a change.
_NOW_KEEPS = frozenset("for until till right just by from to up".split())

# "I want you to", "I'd like you to": the user asking the agent, which is an imperative ("I want you to
# always run ruff" is "always run ruff"). Standing only when it says so itself (always, never, ...)
# or after a marker of what holds from now on; "I want you to use httpx" alone is this task's.
_ASKED_OF_YOU = (
    r"(?:I|we)(?:\s+(?:really|also|just))?(?:\s+(?:want|need|would\s+(?:like|love|prefer))|'d\s+(?:really\s+)?(?:like|love|prefer))"
    r"\s+(?:for\s+)?you\s+to\s+"
)
_FROM_NOW_LEAD = rf"(?:{_FROM_NOW})[,:]?\s+"
_ASKED_RE = re.compile(rf"(?is)^(?P<lead>{_FROM_NOW_LEAD})?(?P<ask>{_ASKED_OF_YOU})?(?P<x>.*)$")
_STANDING_WORD_RE = re.compile(r"(?i)(?:always|never|don't|dont|do\s+not|stop|avoid|consistently|routinely)\b")


def as_instruction(clause: str) -> str:
    """``clause`` as the standing imperative it asks for: "from now on I want you to always run ruff"
    and "going forward, run ruff" -> "from now on, always run ruff"; "I'd like you to never push to
    main" -> "never push to main". "I want you to use httpx" (this task's) stays as it is."""
    m = _ASKED_RE.match(clause)
    lead, asked, what = m.group("lead"), m.group("ask"), m.group("x")
    standing = _STANDING_WORD_RE.match(what)
    if lead and (standing or re.match(rf"(?i)(?:{INSTRUCTION_VERBS})\s", what)):
        # What holds from now on is as standing as what is always done.
        return f"{lead.strip(' ,:')}, {what if standing else 'always ' + what}"
    return what if asked and standing and not lead else clause


# "Not on Windows anymore - I switched to Fedora", "I'm no longer using npm, I've moved to pnpm":
# a switch from the value the first half names (see restated_change).
_NOT_THEN_SWITCHED_RE = re.compile(
    r"^(?:I(?:'m|\s+am)\s+)?(?:not\s+(?:on|using)\s+(?P<a>.+?)\s+any\s?more|no\s+longer\s+(?:on|using)\s+(?P<b>.+?))"
    r"\s*(?:[,;:\u2013\u2014]|\s-)\s*(?:so\s+)?I(?:'ve|\s+have)?\s+(?:just\s+)?(?:switched|moved|changed|gone)(?:\s+over)?\s+to\s+(?P<new>.+)$",
    re.I,
)


def unmark(clause: str) -> tuple[str, bool]:
    """``clause`` without "now", "these days", "instead", ... and whether it had one.

    "My editor is Vim now" -> ("My editor is Vim", True); "I now prefer spaces" and "I actually
    prefer spaces" -> ("I prefer spaces", True); "for now" and "until now" are left alone. ("My
    editor is actually Emacs" keeps its "actually" here: the rules read it as part of the value.)
    """
    changed = False
    stripped = _SWITCHED_TAIL_RE.sub("", _CHANGE_LEAD_RE.sub("", clause))
    changed |= stripped != clause
    while tail := _CHANGE_TAIL_RE.search(stripped):
        before = stripped[: tail.start()]
        if tail.group("m").lower() == "now" and before.split()[-1:] and before.split()[-1].lower() in _NOW_KEEPS:
            break
        stripped, changed = before, True
    inner = _CHANGE_INNER_RE.sub(lambda m: (m.group("v") or m.group("w") or m.group("s")) + " ", stripped)
    return inner, changed or inner != stripped


# "Not anymore - we relocated", "no, not anymore, we moved to Berlin": an answer that takes back where
# the user lives (a move is the only thing it says), the household's "we" the user's.
_NOT_ANYMORE_MOVED_RE = re.compile(
    r"^(?:(?:no|nope|nah)\s*[,.!]?\s+)?not\s+any\s?more\s*(?:[,;:.!\u2013\u2014]|\s-)+\s*(?P<who>I|we)(?:'ve|\s+have)?\s+"
    r"(?:just\s+|recently\s+|actually\s+)?(?:moved|relocated)(?:\s+(?P<to>to\s+\S.*)|(?P<when>" + WHEN_TAIL + r")|\s+away\b.*)?[.!]*$",
    re.IGNORECASE,
)

# "Actually, I use Helix these days, not Sublime": the thing used now, said against the one it
# replaced, is a switch from the one to the other (names of up to four words each), when a change is
# said ("actually", "now", "these days", "anymore"): "I use pytest, not unittest" is a choice.
_USE_NOT_RE = re.compile(
    r"^(?:(?P<lead>actually|correction)\s*[,:]?\s+)?I(?:'m|\s+am)?\s+(?:use|using|on)\s+(?P<new>[^,;]+?)"
    r"(?:\s+(?P<now>these\s+days|nowadays|now|instead))?\s*,\s*(?:and\s+)?not\s+(?P<old>[^,;]+?)(?:\s+(?P<gone>any\s?more))?[.!]*$",
    re.IGNORECASE,
)


def restated_change(sentence: str) -> str:
    """"Not on Windows anymore - I switched to Fedora" as "I switched from Windows to Fedora", so
    that the stored lines naming Windows name Fedora; "not anymore, we moved to Berlin" as "we moved
    to Berlin" and "not anymore - we relocated" as "I moved away"; any other sentence as it is. The
    "we" stays: "we moved to X" is the user's home only in place of a stored one, and a team's move
    otherwise ("not anymore, we moved to Kubernetes" is no home). "I use Zed now, not Vim" is "I
    switched from Vim to Zed"."""
    if m := _NOT_ANYMORE_MOVED_RE.match(sentence):
        return f"{m.group('who')} moved {m.group('to')}" if m.group("to") else "I moved away"
    m = _USE_NOT_RE.match(sentence)
    if m and (m.group("lead") or m.group("now") or m.group("gone")) and max(len(m.group("new").split()), len(m.group("old").split())) <= 4:
        return f"I switched from {m.group('old')} to {m.group('new')}"
    m = _NOT_THEN_SWITCHED_RE.match(sentence)
    # ("no longer on VS Code either": what was left, without the word that adds it to another)
    old = re.sub(r"(?i)\s+(?:either|too|as\s+well|at\s+all)$", "", m.group("a") or m.group("b")) if m else ""
    return f"I switched from {old} to {m.group('new')}" if m else sentence
