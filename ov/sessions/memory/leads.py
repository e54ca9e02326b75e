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

- a frame put before the subject ("By training I'm a physicist", "For smart contracts I use
  Foundry", "Professionally, I'm a nurse"): moved after what its clause says ("I'm a physicist by
  training"), where the rules read a frame, so that the clause opens on its subject;
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


# A frame before the subject: a preposition and a few words that hold no verb ("by training", "for
# smart contracts", "at my day job", "in the quant team"), or an adverb of manner or respect
# ("professionally", "personally"); then "I" (the team's "in the payments service, we ..." is a scope the
# facts read where it stands). (Not a time's "in 2019": a happening's, read
# where it stands; nor a condition's "if"/"when", whose clause is no frame.)
# (a marker of the discourse, which the rules read where it stands: "On second thought, I ...", "for now", "in fact")
_NO_FRAME = (r"(?:second\s+thoughts?|(?:the\s+)?other\s+hand|fact|any\s+case|(?:the\s+)?way|(?:the\s+)?record|short|least|first|"
             r"(?:the\s+)?end|now|example|instance|general|sure|real|once|a\s+while|the\s+moment|the\s+time\s+being|today|"
             r"(?:the\s+)?same|top|addition|particular|case|that|this|it|which|what)\b")
_FRAME_ADVERBS = r"professionally|personally|technically|officially|academically|privately|outside\s+of\s+work|day\s+to\s+day|day-to-day"
_FRONTED_RE = re.compile(
    rf"(?i)^(?P<frame>(?:by|for|at|in|on|with|as|outside|within|among)\s+(?!\d|(?:the\s+)?(?:past|last|morning|evening|weekend)\b|{_NO_FRAME})"
    r"(?:(?!(?:I|we|I'm|we're|is|are|was|were|do|does|did|has|have|had)\b)[\w'./+#-]+\s*){1,4}?"
    rf"|{_FRAME_ADVERBS})\s*,?\s+(?=(?:I|I'm|I've|I'd)\s)(?P<rest>.+)$"
)
# Where the subject's clause ends: what the frame is put before.
_CLAUSE_END_RE = re.compile(r"\s*(?:,|;|\s[\u2013\u2014-]+\s|\s+but\s|[.!]+$)|$")


def _frame_after(rest: str, frame: str) -> str:
    """``rest`` with ``frame`` put at the end of its first clause ("I'm a physicist, but ..." ->
    "I'm a physicist by training, but ...")."""
    end = _CLAUSE_END_RE.search(rest)
    return f"{rest[: end.start()]} {frame[:1].lower()}{frame[1:]}{rest[end.start() :]}"


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
        elif fronted := _FRONTED_RE.match(unfilled):
            body = _frame_after(fronted.group("rest"), fronted.group("frame").strip())
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
