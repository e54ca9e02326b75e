"""What opens a sentence and is no part of what it states: a lead-in, read off before the rules.

"Remember: I'm Dana, a designer", "FYI, I'm Dana, a designer" and "I'm sure I'm Dana, a designer"
state what "I'm Dana, a designer" states; read with the lead-in on, the sentence's own shape (a
self-introduction, a change of employer) is missed, and the lead-in becomes the statement ("Is
sure we use Postgres 16"). :func:`opening` takes off, as often as they come:

- a filler or an aside ("also", "btw", "FYI", "for the record", "just so you know": see
  :func:`ov.sessions.memory.text.without_fillers`);
- an ask to remember ("remember (that)", "remember:", "note that", "note:", "keep in mind",
  "don't forget"), which a session keeps, as ``ov remember`` does (:func:`without_ask`);
- the user's certainty ("I'm sure", "I'm certain that", "I'm confident", "I'm convinced", "I'm
  positive", "I'm aware that", "I'm afraid"): what they are sure of is the statement. Not before a
  preposition: "I'm afraid of heights", "I'm confident in Rust" say something of the user.

- a hedge, a stress or a hesitation that only leads into what is said: "Not sure if it matters, but
  I'm colorblind", "Maybe it's obvious but I use tabs" (what follows "but" is said), "Perhaps most
  importantly, I prefer small PRs", "Let me be clear: never push to main", "Hmm, I prefer spaces"
  (review rev21 #11); "Hmm, maybe the cache is stale" is still hedged by its "maybe".

A sentence that opens on doubt ("I'm not sure we use Postgres 16", "I'm pretty sure ...", "I'm
unsure whether ...") states nothing: it is hedged, as one opening with "maybe" or "I think".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ov.sessions.memory import text as tx

# (a word, not the start of one: "Remembering X", "Noted" ask for nothing)
_REMEMBER_RE = re.compile(
    r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don't\s+forget|do\s+not\s+forget|note\s+that|note:)(?!\w)"
    r"(?:\s+that\b)?[,:]?\s*(?P<x>.+)$",
    re.IGNORECASE,
)
_I_AM = r"I(?:'m|\s+am)\s+"
_SURE = r"(?:sure|certain|confident|convinced|positive|aware|afraid)"
# What follows a certainty to be one of a statement: not a preposition ("afraid of heights"), a
# question ("sure whether"), "so" or "not" ("I'm sure not"), a role ("I'm Certain, a developer":
# see casual.introduced), or nothing.
_STATED_AHEAD = r"(?!(?:of|about|in|with|for|to|at|on|by|if|whether|how|what|why|when|who|so|not|enough|an?)\b)(?=\S)"
_CERTAIN_RE = re.compile(
    rf"(?i)^{_I_AM}(?:(?:absolutely|totally|completely|fully|quite|very|really|100\s*%)\s+)?{_SURE}"
    rf"(?:\s*,?\s+that\b\s*|\s*,\s*|\s+){_STATED_AHEAD}(?P<x>.+)$"
)
_DOUBT_RE = re.compile(
    rf"(?i)^{_I_AM}(?:(?:not|never)\s+(?:(?:entirely|completely|totally|fully|quite|really|very|so|too|100\s*%)\s+)?{_SURE}"
    rf"|(?:pretty|fairly|reasonably|almost|mostly|somewhat|kind\s+of|sort\s+of|half)\s+{_SURE}|unsure|uncertain)\b"
)


# A hedge on saying it, then "but" and what is said; a stress; a hesitation alone before a statement.
_LEADS_INTO_RE = re.compile(
    r"(?i)^(?:(?:not\s+sure|no\s+idea|(?:I\s+)?(?:don't|do\s+not)\s+know|dunno|maybe|perhaps|probably|possibly|(?:this|it)\s+(?:may|might)\s+be)"
    r"\b[^.;!?]*?,?\s+but\s+|(?:(?:perhaps|maybe|probably|possibly)\s+)?(?:most|more)\s+importantly\s*[,:]?\s+|"
    r"(?:let\s+me\s+be\s+clear|to\s+be\s+clear|for\s+the\s+record)\s*[,:\u2014-]\s*|(?:hm+|uh+|um+|erm|mm+)\s*[,.!:\u2014-]+\s*)(?=\S)"
)


@dataclass(frozen=True)
class Opening:
    """A sentence without its lead-in (``body``); whether the lead-in asked that it be remembered
    (``asks``), and whether it opens on doubt (``hedged``: ``body`` keeps the doubt)."""

    body: str
    asks: bool = False
    hedged: bool = False


def opening(sentence: str) -> Opening:
    """``sentence`` without the fillers, the asks to remember and the certainty it opens with (see
    the module's docstring): "Remember: FYI, I'm sure we use Postgres 16" -> "we use Postgres 16",
    asked."""
    body, asks = sentence.strip(), False
    while True:
        if _DOUBT_RE.match(body):
            return Opening(body, asks, hedged=True)
        unfilled = tx.without_fillers(body)
        if ask := _REMEMBER_RE.match(unfilled):
            body, asks = ask.group("x").strip(), True
        elif certain := _CERTAIN_RE.match(unfilled):
            body = certain.group("x").strip()
        elif led := _LEADS_INTO_RE.match(unfilled):
            body = unfilled[led.end() :].strip()
        else:
            return Opening(unfilled, asks)


def without_ask(text: str) -> str:
    """``text`` without a leading "remember that", "note that", "keep in mind" and the like (said
    twice too: ``ov remember "Remember that ..."`` is read as "remember that remember that ...")."""
    while match := _REMEMBER_RE.match(text.strip()):
        text = match.group("x")
    return text


def asks_to_remember(clause: str) -> re.Match[str] | None:
    """The match of "remember (that) X" and its kin at the start of ``clause`` (X: group ``x``)."""
    return _REMEMBER_RE.match(clause)
