"""Which stored lines a probe names: the probes of merge's "supersede" op, matched many at once.

A new line names the stored lines it replaces as probes (:func:`ov.sessions.memory.supersede.supersedes`,
:func:`ov.sessions.memory.kinds.kind_probes`): a key ("editor:"), a value under any key ("*: neovim"),
a whole statement ("prefers tabs$"), a name whole ("uses emacs +"), a pattern ("Is a* at [A-Z]*"),
a thing at a version ("runs node #"; with nothing after it, "runs node #$"), a thing and what it is for ("Prefers unittest for ~"), or the start of a line. Their meaning is
:func:`ov.sessions.memory.merge.apply_supersede`'s; here they are made into sets and patterns once,
so that a profile of thousands of lines is read once per op, not once per probe.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ov.sessions.memory import text as tx
from ov.sessions.memory.capitals import UPPER
from ov.sessions.memory.lines import KEY_RE, TRAILING_PUNCT, normalise
from ov.sessions.memory.standing import SCOPES
from ov.uri import nfc

# What may follow a name in its statement and leave it whole: the end, punctuation, or a word of
# when, how long or what for ("Emacs a while ago", "nushell these days", "Emacs as their editor"); not
# "fish tacos" or "Emacs Lisp". A probe ending in " +" is a name so followed (see :func:`matches`).
NAME_END = (
    r"(?=$|\s*[(,;.]|\s+(?:a\s+while|a\s+few|a\s+couple|several|last|this|since|recently|now|these|for|with|on|at|as|full[\s-]time|mostly|too|again|instead|"
    r"a\s+bit\s+(?:ago|back)|ages\s+ago|(?:not\s+)?long\s+ago|some\s+time|over\s+the|yesterday|today|in|\w+\s+(?:years?|months?|weeks?|days?)\s+(?:ago|back))\b)"
)


# Where the user works, which a choice may be made for ("for side projects"): a context, not a purpose.
_SCOPE = rf"(?:{'|'.join(sorted(SCOPES))})"


def anycase(text: str) -> str:
    """``text`` as a pattern of merge's probes matching it in any case ("OS" -> "[Oo][Ss]"; [] and
    brackets of a name taken as they are)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else f"[{c}]" if c in "*?[]" else c for c in text)


def statements(body: str) -> list[str]:
    """The statements of a line's text, split where :func:`ov.sessions.memory.text.clauses` or "; " starts one (see :func:`ov.sessions.memory.merge._other_clauses`); the first is never empty."""
    parts = [clause.strip().rstrip(TRAILING_PUNCT) for part in re.split(r";\s+", body) for clause in tx.clauses(part)]
    return [part for part in parts if part] or [body]


@functools.lru_cache(maxsize=8192)  # (as normalise: a file's lines meet every probe of every op)
def _first_statement(body: str) -> str:
    return normalise(statements(body)[0])


@dataclass(frozen=True)
class _Probes:
    """Probes made once into sets and patterns, so that a line is matched against all of them at once
    (a kind's switch has some 270, and a profile may have thousands of lines): each kind of probe as
    :func:`apply_supersede` says, a key's and a value's ("editor:", "*: neovim") and a whole
    statement's ("prefers tabs$") looked up in sets, the others one pattern per kind."""

    keys: frozenset[str]
    values: frozenset[str]
    whole: frozenset[str]
    names: re.Pattern[str] | None  # " +": a name whole, on the line and on its first statement
    typed: re.Pattern[str] | None  # "*" further on: a pattern, case and all, on the line as typed
    starts: re.Pattern[str] | None  # " #" (a version after it) and the rest (the start of the line), normalised
    purposes: re.Pattern[str] | None = None  # " for ~": the line and what it is for, as typed ("Prefers unittest for running tests")

    def match(self, body: str) -> bool:
        have, key = normalise(body), KEY_RE.match(body)
        if key and (normalise(key.group("key")) in self.keys or normalise(body[key.end("key") + 1 :]) in self.values):
            return True
        typed = " ".join(nfc(body).split())
        if (self.starts and self.starts.match(have)) or (self.typed and self.typed.match(typed)) or (self.purposes and self.purposes.match(typed)):
            return True
        if not (self.whole or self.names):
            return False
        first = _first_statement(body)
        return bool(have in self.whole or first in self.whole or (self.names and (self.names.match(have) or self.names.match(first))))


@functools.lru_cache(maxsize=256)
def _probes(probes: tuple[str, ...]) -> _Probes:
    keys, values, whole, names, typed, versions, starts, purposes, alone = set(), set(), set(), [], [], [], [], [], []
    for probe in probes:
        want = " ".join(nfc(probe).lower().split())
        if want.endswith(" for ~"):
            purposes.append(re.escape(" ".join(nfc(probe).split())[: -len(" for ~")]))
        elif want.endswith(":"):
            keys.add(normalise(want[:-1]))
        elif want.startswith("*:"):
            values.add(normalise(want[2:]))
        elif want.endswith(" #$"):  # a thing at a version, all the line says: "is on postgres #$" is not "Is on Postgres 14 and Redis 7"
            alone.append(re.escape(normalise(want[:-3])))
        elif want.endswith("$"):  # the whole statement: "prefers tabs$" is not "Prefers tabs in Go code"
            whole.add(normalise(want[:-1]))
        elif want.endswith(" +"):  # a name whole: "uses emacs +" matches "Uses Emacs as their editor", not "Uses Emacs Lisp"
            names.append(re.escape(normalise(want[:-2])))
        elif "*" in want[1:]:  # a pattern, as typed: "Is a* at [A-Z]*" matches "Is a backend engineer at Stripe", not "... at heart"
            # ("[A-Z]" is a capital of any script, as for every rule: "at Ørsted" too)
            typed.append(fnmatch.translate(" ".join(nfc(probe).split())).replace("[A-Z]", UPPER))
        elif want.endswith(" #"):  # a thing at a version: "runs node #" matches "Runs Node 18", not "Runs Node scripts"
            versions.append(re.escape(normalise(want[:-2])))
        elif normalise(want):
            starts.append(re.escape(normalise(want)))
    started = ([rf"(?:{'|'.join(starts)})(?:$|[\s,;:(])"] if starts else []) + ([rf"(?:{'|'.join(versions)})\s+v?\d"] if versions else []) + (
        [rf"(?:{'|'.join(alone)})\s+v?\d[\w.]*[.!]?$"] if alone else [])
    return _Probes(
        frozenset(keys), frozenset(values), frozenset(whole),
        re.compile(rf"(?:(?:\w+ly|always|still|also|now)\s+)?(?:{'|'.join(names)}){NAME_END}") if names else None,  # "Mostly uses Helix"
        re.compile("|".join(typed)) if typed else None,
        re.compile("|".join(started)) if started else None,
        # what a thing is for, in lowercase words ("for running tests", "for formatting"): not a
        # context it was chosen in, which is named ("for Go", "for YAML files"), pointed at ("for the
        # frontend", "for work") or a body of work ("for side projects", "for personal repos": standing.SCOPES)
        re.compile(rf"(?i:{'|'.join(purposes)}) for (?!(?:the|my|our|your|their|this|that|these|those|a|an|work|home)\b)"
                   rf"(?!(?:[a-z]+ )?{_SCOPE}[.!]?$)[a-z]+(?: [a-z]+)?[.!]?$")
        if purposes else None,
    )


def matches(body: str, probes: Sequence[str]) -> bool:
    """Whether the line text ``body`` matches any of ``probes`` (see :func:`apply_supersede`)."""
    return bool(probes) and _probes(tuple(probes)).match(body)
