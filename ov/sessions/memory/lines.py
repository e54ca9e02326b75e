"""One line of a memory's text: its bullet, its key, and the form two lines are compared in.

Merging (:mod:`ov.sessions.memory.merge`) and syncing compare lines as :func:`normalise` makes
them, so "- Editor: Neovim." and "* editor:  neovim" are one line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from ov.uri import nfc

_ITEM_RE = re.compile(r"^(?P<prefix>\s*(?:[-*+]|\d+[.)])\s+)?(?P<body>.*?)\s*$")
KEY_RE = re.compile(r"^(?P<key>[^:]{1,40}):\s*\S")
TRAILING_PUNCT = ".!;,:"

# Words that say nothing about which fact a line states.
_STOPWORDS = frozenset(
    "a an the i me my mine is am are was were be been to of in on at for and or but with by as it its "
    "this that these those their they user user's now currently still instead anymore any more".split()
)


@functools.lru_cache(maxsize=8192)  # a file's lines are compared with every probe of every op merged into it
def normalise(text: str) -> str:
    """The form two lines are compared in: NFC (an accent typed decomposed is the same letter), no
    bullet, lower case, single spaces, no trailing punctuation."""
    body = split_item(nfc(text))[1]
    return " ".join(body.lower().split()).rstrip(TRAILING_PUNCT + " ")


# What says nothing of which habit a line states: articles, and the backticks around a command.
_ARTICLE_RE = re.compile(r"(?<![\w-])(?:a|an|the)\s+")
# A habit's verb after its lead ("Always runs", "Never uses", "Prefers running", "Usually writes").
_HABIT_VERB_RE = re.compile(r"^(?P<lead>(?:(?:always|never|usually|often|still|also|\w+ly)\s+)+|(?:prefers|likes|loves|hates)\s+)(?P<verb>[a-z]+)\b")


@functools.lru_cache(maxsize=8192)
def said_again(text: str) -> str:
    """The form in which a line saying again what another says is the same: :func:`normalise`'s,
    without articles or code's backticks, and with the verb after a habit's lead in its stem, so
    that "Always run tests with `pytest -x -q`", "Always runs the tests with pytest -x -q" and
    "Always running tests with pytest -x -q" are one line."""
    body = _ARTICLE_RE.sub("", normalise(text).replace("`", ""))
    habit = _HABIT_VERB_RE.match(body)
    if habit is not None:
        body = habit.group("lead") + _stem(habit.group("verb")) + body[habit.end() :]
    return " ".join(body.split())


def _stem(verb: str) -> str:
    """What a verb's forms share: "run", "runs", "running" -> "run"; "use", "uses", "using" -> "us"."""
    for suffix in ("ing", "es", "s"):
        if verb.endswith(suffix) and len(verb) - len(suffix) >= 2 and not (suffix == "s" and verb.endswith("ss")):
            verb = verb[: -len(suffix)]
            break
    if len(verb) > 2 and verb[-1] == verb[-2] and verb[-1] not in "aeiousl":
        verb = verb[:-1]  # "running", "shipping"
    return verb.rstrip("e") or verb


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[\w'+#-]+", normalise(text)) if w not in _STOPWORDS}


def line_key(line: str) -> str | None:
    """The key a line states a value of (``- Shell: zsh`` -> ``shell``), normalised; None for a line without one."""
    match = KEY_RE.match(split_item(nfc(line))[1])
    return normalise(match.group("key")) if match else None


# Where the user lives, one line whichever way it was said (rules read each of them).
LOCATION_LEADS = ("Lives in", "Is based in", "Is located in", "Is living in", "Moved to", "Relocated to")
# The leads of the lines that hold one value of the user at a time, as a key's line does: a new
# one replaces the stored one in place (see ov.sessions.memory.supersede).
_ONE_VALUE_RE = re.compile(r"(?i)^(?:works\s+(?:at|for|as)|" + "|".join(re.escape(lead) for lead in LOCATION_LEADS) + r")\s")


def is_key_line(line: str) -> bool:
    """Whether ``line`` states one value of the user at a time, kept in place as it changes: a key's
    ("- Editor: Helix"), or where the user works or lives ("- Works at Acme", "- Lives in Porto")."""
    return line_key(line) is not None or bool(_ONE_VALUE_RE.match(normalise(line)))


def present(lines: Sequence[str], body: str) -> bool:
    wanted = said_again(body)
    return any(line.strip() and said_again(line) == wanted for line in lines)


def is_item(line: str) -> bool:
    body = split_item(line)[1]
    return bool(body) and not body.startswith("#")


def split_item(line: str) -> tuple[str, str]:
    match = _ITEM_RE.match(line)
    assert match is not None  # the pattern matches every string
    return match.group("prefix") or "", match.group("body")
