"""Where the user works, said as a change: "I joined Datadog", "I left Shopify for Globex".

"I work at Acme" is a rule of :mod:`ov.sessions.memory.rules`: "Works at Acme", in place of the
stored "Works at" line. A new employer is said in other ways as well:

- "I don't work at Shopify anymore, I joined Datadog" is read as "I work at Datadog now"
  (:func:`new_employer`): it says in as many words that Datadog is the employer;
- leaving one place for another ("I left Shopify, I'm at Globex now", "I quit Acme and joined
  Initech") is a new employer only when the place left is the stored employer: one leaves
  cities and apps too ("I left Berlin, I'm at Heathrow now", "I quit Twitter and joined
  Bluesky"), so the statement only amends the stored "Works at Shopify" line
  (:func:`employer_change`), and stores nothing otherwise;
- "I'm at Globex now" is an employer only said with a change of job ("..., changed jobs in the
  spring") or as a correction ("Correction: I'm at Globex now"), in place of a stored one: on its own
  it is as often where the user is ("I'm at Starbucks now", "I'm at PyCon now", "I'm at Dana's
  now"; a venue's word is never one). "I work at Globex now" is;
- "I joined Datadog" alone is "Works at Datadog" when asked to remember it; in a session, one
  joins clubs and channels as well ("I joined Toastmasters"), so it is read only as above
  (:func:`joined_employer`).
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import UPPER
from ov.sessions.memory.changes import WHEN_TAIL
from ov.sessions.memory.markers import CORRECTION_LEAD
from ov.sessions.memory.statement import Statement
from ov.sessions.memory.supersede import ROLE_AT_PROBES, company_base

# A company's name: capitalised words ("Datadog", "Acme Corp", "AT&T").
_NAME = rf"(?-i:{UPPER})[\w.&'-]*(?:\s+(?-i:{UPPER})[\w.&'-]*){{0,2}}"
# What may follow the name without being part of it: when, or as what ("Datadog last month",
# "Globex two weeks ago", "Globex as a staff engineer").
_TAIL = rf"(?:{WHEN_TAIL}|\s+(?:in|on|as|since)\b.*)?"
# Between the two halves of a change: ", I joined", " and now work at", "; I'm at".
_SEP = r"\s*(?:[,;:\u2013\u2014]|\s-|\s+and)\s*(?:so\s+|now\s+)?"
_NOW_AT = (
    r"(?:I(?:'ve|\s+have)?\s+(?:just\s+|now\s+|recently\s+)?(?:joined|started\s+at|work\s+(?:at|for))|"
    r"I(?:'m|\s+am)\s+(?:now\s+)?(?:at|with|working\s+(?:at|for))|joined|work\s+(?:at|for)|started\s+at)"
)
_JOINED_RE = re.compile(rf"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?joined\s+(?P<x>{_NAME}){_TAIL}$", re.IGNORECASE)
# "I don't work at X anymore, I joined Y": Y is the employer, whatever X was.
_NO_LONGER_RE = re.compile(
    r"^I\s+(?:don't|do\s+not|dont|no\s+longer)\s+work\s+(?:at|for)\s+.+?(?:\s+any\s?more)?"
    rf"{_SEP}{_NOW_AT}\s+(?P<x>{_NAME}){_TAIL}(?:\s+(?:now|these\s+days))?$",
    re.IGNORECASE,
)
# What is left when an employer is: the place itself, or the job there ("I quit my job at Meta").
_LEFT = r"(?:left|quit)\s+(?:my\s+(?:job|position|role)\s+(?:at|with)\s+)?"
# "I left Acme Corp": the employer line ends, if Acme was the employer (one leaves cities too).
_LEFT_ALONE_RE = re.compile(rf"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?{_LEFT}(?P<old>{_NAME}){_TAIL}$", re.IGNORECASE)
# "I left X, I'm at Y now", "I quit X and joined Y": Y is the employer only if X was.
_LEFT_RE = re.compile(
    rf"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?{_LEFT}(?P<old>{_NAME})(?:\s+(?:last|this|in|on|since|a\s+few|recently)\b[^,;]*)?"
    rf"{_SEP}{_NOW_AT}\s+(?P<x>{_NAME}){_TAIL}(?:\s+(?:now|these\s+days))?(?:\s*,\s*(?:same|a\s+similar|doing)\b.*)?$",
    re.IGNORECASE,
)
# "I'm at Stripe now": where the user is now, said as news. It is the employer (in place of a stored
# one) after a correction's marker or with a change of job after it (", changed jobs in the spring");
# never a place one sits in ("at Heathrow Airport now").
_AT_NOW_RE = re.compile(
    rf"^I(?:'m|\s+am)\s+(?:now\s+)?(?:at|with)\s+(?P<x>{_NAME})\s+now\b(?P<tail>(?:\s*[,;:.!\u2013\u2014-].*)?)$", re.IGNORECASE
)
_VENUE_RE = re.compile(
    r"(?i)\b(?:airport|station|hotel|caf[eé]|coffee|bar|pub|restaurant|gym|hospital|clinic|library|park|beach|mall|store|shop|"
    r"office|home|house|conference|summit|meetup|starbucks|costa|heathrow|gatwick|jfk|sfo|lax)\b"
)
_JOB_CHANGE_RE = re.compile(r"(?i)\b(?:changed|switched|new)\s+(?:jobs?|employers?|companies|company|role)\b|\bjoined\b|\bstarted\s+there\b")
# A sentence that opens on where the user is now: with a place left just before, the new employer.
_NOW_AT_RE = re.compile(rf"^(?:(?:and\s+)?now\s+)?{_NOW_AT}\s+(?-i:{UPPER})", re.IGNORECASE)


def new_employer(sentence: str) -> str:
    """"I don't work at Shopify anymore, I joined Datadog" as "I work at Datadog now"; any other
    sentence as it is."""
    match = _NO_LONGER_RE.match(sentence)
    return f"I work at {match.group('x')} now" if match else sentence


def joined(sentences: list[str]) -> list[str]:
    """``sentences`` with "I left Brightwave in the spring." and a next sentence "I'm at Kestrel
    Labs now" said as one ("I left ..., I'm at ..."), which :func:`employer_change` reads."""
    out: list[str] = []
    for sentence in sentences:
        if out and _LEFT_ALONE_RE.match(_unmarked(out[-1].rstrip(".!"))) and _NOW_AT_RE.match(sentence):
            out[-1] = f"{out[-1].rstrip('.!')}, {sentence}"
        else:
            out.append(sentence)
    return out


def _unmarked(sentence: str) -> str:
    return re.sub(CORRECTION_LEAD, "", sentence, flags=re.IGNORECASE)


def employer_change(sentence: str, restore, *, asked: bool = False) -> Statement | None:
    """"I left Shopify, I'm at Globex now": "Works at Globex" in place of a stored line "Works at
    Shopify" (or "Works for Shopify", or a role there: "Is a backend engineer at Shopify"), and
    nothing when no such line is stored. "I left Shopify" alone: "No longer works at Shopify" in
    its place; when none is stored, nothing, or asked to remember it, "Left Shopify". A stored name
    is the one left with or without a corporate suffix ("Acme Corp" is the "Acme" worked at). A
    correction's marker before it ("Correction: I left ...") says no more than the change does."""
    unmarked = _unmarked(sentence)
    corrected, sentence = unmarked != sentence, unmarked
    if match := _LEFT_RE.match(sentence):
        old, new = restore(match.group("old")), restore(match.group("x"))
        return Statement("profile", "Works at ", new, ("profile", "works at"), {}, probes=_worked_at(old), only_amends=True)
    if (
        (match := _AT_NOW_RE.match(sentence))
        and not _VENUE_RE.search(match.group("x"))
        # One is at a conference, a shop, a friend's or a university "now" as often as at a new
        # employer: only a change of job said with it, or a correction's marker, makes it the employer.
        and (corrected or _JOB_CHANGE_RE.search(match.group("tail")))
    ):
        new = restore(match.group("x"))
        probes = ("Works at *", "Works for *", *ROLE_AT_PROBES)
        return Statement(
            "profile", "Works at ", new, ("profile", "works at"), {}, probes=probes,
            # No employer stored and no change of job said: where the user is, as "I'm at X" alone is kept.
            otherwise="" if _JOB_CHANGE_RE.search(match.group("tail")) else f"Is at {new}",
        )
    if match := _LEFT_ALONE_RE.match(sentence):
        old = restore(match.group("old"))
        return Statement(
            "profile", "No longer works at ", old, ("profile", "works at"), {}, probes=_worked_at(old), only_amends=not asked,
            otherwise=f"Left {old}" if asked else "",
        )
    return None


def _worked_at(name: str) -> tuple[str, ...]:
    """The stored lines saying the user works at ``name``, as probes: "Works at Acme" is Acme Corp's too."""
    base = company_base(name)
    return (f"Works at {base}", f"Works for {base}", *(f"{probe[: -len('[A-Z]*')]}{base}*" for probe in ROLE_AT_PROBES))


def joined_employer(clause: str, restore) -> Statement | None:
    """"I joined Datadog last month" -> profile: "Works at Datadog", in place of the employer line."""
    match = _JOINED_RE.match(clause)
    return Statement("profile", "Works at ", restore(match.group("x")), ("profile", "works at"), {}) if match else None
