"""Where the user works, said as a change: "I joined Datadog", "I left Shopify, I'm at Globex now".

"I work at Acme" is a rule of :mod:`ov.sessions.memory.rules`: "Works at Acme", in place of the
stored "Works at" line. A new employer is said in other ways as well, and each replaces that
line too, in a session as with ``ov remember``:

- leaving one employer for another in one sentence ("I don't work at Shopify anymore, I joined
  Datadog", "I left Shopify, I'm at Globex now", "I quit Acme and joined Initech") is read as
  "I work at Datadog now" (:func:`new_employer`): the old one is no longer said anywhere;
- "I'm at Globex now", "Actually, I'm at Globex" (a change, and a capitalised name) is "Works at
  Globex" in place of the stored employer line; with none stored, a session keeps nothing (it
  may be a place: "I'm at Starbucks now") and ``ov remember`` keeps "Is at Globex"
  (:func:`employer_now`). Not "I'm with X now": X is as often a person;
- "I joined Datadog" alone is "Works at Datadog" when asked to remember it; in a session, one
  joins clubs and channels as well ("I joined Toastmasters"), so it is read only as above
  (:func:`joined_employer`).
"""

from __future__ import annotations

import re

from ov.sessions.memory.rules import Statement

# A company's name: capitalised words ("Datadog", "Acme Corp", "AT&T").
_NAME = r"(?-i:[A-Z])[\w.&'-]*(?:\s+(?-i:[A-Z])[\w.&'-]*){0,2}"
# What may follow the name without being part of it: when, or as what ("Datadog last month",
# "Globex as a staff engineer").
_TAIL = r"(?:\s+(?:last|this|a\s+few|recently|in|on|as|since)\b.*)?"
_JOINED_RE = re.compile(rf"^I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?joined\s+(?P<x>{_NAME}){_TAIL}$", re.IGNORECASE)
_AT_RE = re.compile(rf"^I(?:'m|\s+am)\s+at\s+(?P<x>{_NAME}){_TAIL}$", re.IGNORECASE)
# "I don't work at X anymore, I joined Y", "I left X, I'm at Y now", "I quit X and joined Y".
_LEFT_FOR_RE = re.compile(
    rf"^(?:I\s+(?:don't|do\s+not|dont|no\s+longer)\s+work\s+(?:at|for)\s+.+?(?:\s+any\s?more)?|"
    rf"I(?:'ve|\s+have)?\s+(?:just\s+|recently\s+)?(?:left|quit)\s+{_NAME})"
    r"\s*(?:[,;:\u2013\u2014]|\s-|\s+and)\s*(?:so\s+|now\s+)?"
    r"(?:I(?:'ve|\s+have)?\s+(?:just\s+|now\s+|recently\s+)?(?:joined|started\s+at|work\s+(?:at|for))|"
    r"I(?:'m|\s+am)\s+(?:now\s+)?(?:at|with|working\s+(?:at|for))|joined|work\s+(?:at|for)|started\s+at)"
    rf"\s+(?P<x>{_NAME}){_TAIL}(?:\s+(?:now|these\s+days))?$",
    re.IGNORECASE,
)


def new_employer(sentence: str) -> str:
    """"I don't work at Shopify anymore, I joined Datadog" as "I work at Datadog now"; any other
    sentence as it is."""
    match = _LEFT_FOR_RE.match(sentence)
    return f"I work at {match.group('x')} now" if match else sentence


def employer_now(clause: str, restore) -> Statement | None:
    """"I'm at Globex", said as a change ("... now", "Actually, ..."): "Works at Globex" in place
    of the stored employer line, and only then (see the module's notes)."""
    match = _AT_RE.match(clause)
    if match is None:
        return None
    name = restore(match.group("x"))
    # (the stored lines "Works at " replaces: supersede.supersedes)
    return Statement("profile", "Works at ", name, ("profile", "works at"), {}, otherwise=f"Is at {name}", only_amends=True)


def joined_employer(clause: str, restore) -> Statement | None:
    """"I joined Datadog last month" -> profile: "Works at Datadog", in place of the employer line."""
    match = _JOINED_RE.match(clause)
    return Statement("profile", "Works at ", restore(match.group("x")), ("profile", "works at"), {}) if match else None
