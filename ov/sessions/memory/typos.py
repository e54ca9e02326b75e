"""A key verb typed with one letter wrong, put right before the rules read it: "i prefere tabs".

The rules open on a few verbs after "I" ("I prefer", "I like", "I hate"); one letter added,
dropped, changed or two swapped ("prefere", "perfer", "prefr", "lkie") loses the statement whole. A
word after "I" one such edit from one of those verbs is the verb, when it is five letters or more
(a shorter one is as often another word: "use" and "user") and is no word of its own: a form of the
verb ("liked", "hates": said in the past or of someone), or another verb or noun ("refer", "lover").
"""

from __future__ import annotations

import re

_KEY_VERBS = ("prefer", "like", "love", "hate", "dislike", "enjoy", "use")
# Words one edit from a key verb that are words of their own.
_WORDS = frozenset((
    "refer", "prefers", "liked", "likes", "liken", "alike", "loved", "loves", "lover", "glove", "clove", "hated", "hates",
    "hater", "haste", "chate", "enjoys", "users", "used", "uses", "fuse", "muse", "dislikes", "disliked",
))
# "I" (a subject, not "I/O") and the adverbs that may stand between it and its verb.
_AFTER_I_RE = re.compile(
    r"(?<![\w'/])(?P<lead>[Ii]\s+(?:(?:really|realy|rly|also|much|generally|mostly|strongly|still|definitely|kinda|totally|actually)\s+)?)"
    r"(?P<word>[a-z]{5,})(?![\w'-])"
)


def _one_edit(word: str, verb: str) -> bool:
    """Whether ``word`` is ``verb`` with one letter added, dropped, changed, or two next to each other swapped."""
    if word == verb or abs(len(word) - len(verb)) > 1:
        return False
    if len(word) == len(verb):
        diff = [i for i, (a, b) in enumerate(zip(word, verb, strict=True)) if a != b]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1 and word[diff[0]] == verb[diff[1]] and word[diff[1]] == verb[diff[0]])
    short, long = sorted((word, verb), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def key_verb(word: str) -> str | None:
    """The key verb ``word`` is a typo of ("prefere" -> "prefer"), or None."""
    lower = word.lower()
    if len(lower) < 5 or lower in _WORDS:
        return None
    return next((verb for verb in _KEY_VERBS if _one_edit(lower, verb)), None)


# The adverbs the rules read between "I" and its verb ("I really dislike", "I always use"), which a
# typo in the adverb ("I realy dislike", "I allways use") hid from them: the statement was then read
# as a fact of the user's ("Realy dislikes ...") in the profile, not as the preference it is.
_ADVERBS = ("really", "always", "never", "usually", "generally", "strongly", "definitely", "totally", "actually", "absolutely",
            "honestly", "mostly", "mainly", "seriously", "typically", "normally")
_ADVERB_AFTER_I_RE = re.compile(r"(?<![\w'/])(?P<lead>[Ii]\s+)(?P<word>[a-z]{5,})(?=\s+[a-z])")


def adverb(word: str) -> str | None:
    """The adverb ``word`` is a typo of ("realy" -> "really", "allways" -> "always"), or None (for the
    adverb itself, or a word one edit from none)."""
    lower = word.lower()
    if lower in _ADVERBS or lower in _WORDS:
        return None
    return next((a for a in _ADVERBS if _one_edit(lower, a)), None)


def put_right(text: str) -> str:
    """``text`` with a key verb after "I" typed with one letter wrong put right ("i prefere type
    hints" -> "i prefer type hints"), and an adverb before it ("I realy dislike" -> "I really
    dislike"); any other text as it is."""
    text = _ADVERB_AFTER_I_RE.sub(lambda m: m.group("lead") + (adverb(m.group("word")) or m.group("word")), text)
    return _AFTER_I_RE.sub(lambda m: m.group("lead") + (key_verb(m.group("word")) or m.group("word")), text)
