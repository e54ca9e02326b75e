"""What a capital letter is, for every rule that tells a name by one: in any script.

A rule reads "Call me Dana", "Bob owns the billing service" or "I joined Acme" as naming someone or
something because the word is capitalised. ``[A-Z]`` would say so of Dana and not of Łukasz, Émile,
Дмитрий or Ørsted; these classes hold the upper- and lower-case letters of every script that has
case (Python's ``re`` has no ``\\p{Lu}``), taken from :meth:`str.isupper` and :meth:`str.islower`.
Scripts without case (Chinese, Arabic, ...) capitalise nothing, so no rule that needs a capital
reads a name there.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ov.sessions.memory import cased_letters

# Where the letters with case are (Latin, Greek, Cyrillic, Armenian, Georgian, Cherokee, Glagolitic,
# Coptic, Deseret, Osage, Old Hungarian, Warang Citi, Medefaidrin, Adlam, full-width Latin): looking
# only there spares every import a pass over the CJK and Hangul blocks, which have none.
_CASED_BLOCKS = ((0x0000, 0x2E80), (0xA640, 0xAC00), (0xFB00, 0xFFF0), (0x10400, 0x11000), (0x118A0, 0x11900),
                 (0x16E40, 0x16EA0), (0x1E900, 0x1E960))


def _letters(cased: Callable[[str], bool]) -> str:
    """A character class of the characters ``cased`` holds of, as ranges ("[A-ZÀ-ÖØ-Þ...]")."""
    runs: list[list[int]] = []
    for start, end in _CASED_BLOCKS:
        for ch in filter(cased, map(chr, range(start, end))):
            code = ord(ch)
            if runs and code == runs[-1][1] + 1:
                runs[-1][1] = code
            else:
                runs.append([code, code])
    return "[" + "".join(re.escape(chr(a)) + (f"-{re.escape(chr(b))}" if b > a else "") for a, b in runs) + "]"


if unicodedata.unidata_version == cased_letters.UNIDATA_VERSION:
    # What _letters makes for this Unicode version, written down (scripts/build_cased_letters.py):
    # asking 18,000 characters their case cost every `ov remember` and session commit milliseconds.
    UPPER, _LOWER = cased_letters.UPPER, cased_letters.LOWER
else:
    UPPER, _LOWER = _letters(str.isupper), _letters(str.islower)
# With the combining marks of a letter typed decomposed ("E\u0301mile").
LOWER = _LOWER[:-1] + "\u0300-\u036f]"
# A capitalised word that may be a name: a capital, then lower case; parts joined by a hyphen or an
# apostrophe ("Anne-Sophie", "O'Brien", "D’Angelo", "Jean-luc"). Not "AWS" or "CI" (all capitals), nor
# "GitHub" (a capital inside), nor the "'s" of "Dana's". (Each class costs its pattern's compiling
# ~0.5 ms: written with six, not eight, as "C(?:l+|'Cl+)(?:'Cl+|-C?l+)*" was.)
NAME_WORD = rf"{UPPER}(?:['\u2019]{UPPER})?{LOWER}+(?:(?:['\u2019]{UPPER}|-{UPPER}?){LOWER}+)*"
