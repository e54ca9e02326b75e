"""The code-point ranges of the scripts written without spaces between words: CJK, and Thai, Lao, Myanmar, Khmer.

Each use takes the blocks it needs by name, and builds a character class (:func:`char_class`) or
pairs of characters to compare with (:func:`chars`) from them. The uses differ on purpose: the index
splits CJK runs as :mod:`ov.index.lexical` says (that is part of the index schema), the token
estimate counts punctuation and jamo too, BERT's WordPiece sets apart its own table. So a block
here is never widened or narrowed: change what a use takes, and know what that use is part of.

Imports nothing: the prompt hook reads these (:mod:`ov.hosts.topic`).
"""

from __future__ import annotations

__all__ = ["char_class", "chars"]

Block = tuple[int, int]  # first and last code point, both included

# --- CJK ----------------------------------------------------------------------------------------
HANGUL_JAMO: Block = (0x1100, 0x11FF)
CJK_RADICALS: Block = (0x2E80, 0x2FDF)  # CJK radicals supplement, Kangxi radicals
CJK_SYMBOLS: Block = (0x3000, 0x303F)  # CJK symbols and punctuation
ITERATION_MARK: Block = (0x3005, 0x3005)  # 々, in CJK_SYMBOLS, a letter of the word it repeats
KANA: Block = (0x3040, 0x30FF)  # hiragana and katakana
KATAKANA: Block = (0x30A0, 0x30FF)
BOPOMOFO: Block = (0x3100, 0x312F)
HANGUL_COMPATIBILITY_JAMO: Block = (0x3130, 0x318F)
KATAKANA_EXTENSIONS: Block = (0x31F0, 0x31FF)
HAN_EXT_A: Block = (0x3400, 0x4DBF)
HAN: Block = (0x4E00, 0x9FFF)  # CJK unified ideographs
HANGUL_JAMO_EXT_A: Block = (0xA960, 0xA97F)
HANGUL: Block = (0xAC00, 0xD7AF)  # hangul syllables
HANGUL_AND_JAMO_EXT_B: Block = (0xAC00, 0xD7FF)  # hangul syllables, hangul jamo extended B
HAN_COMPATIBILITY: Block = (0xF900, 0xFAFF)
CJK_COMPATIBILITY_FORMS: Block = (0xFE30, 0xFE4F)
FULLWIDTH: Block = (0xFF00, 0xFFEF)  # halfwidth and fullwidth forms
# The supplementary ideographic planes, by block where one use names them so.
HAN_EXT_B: Block = (0x20000, 0x2A6DF)
HAN_EXT_C: Block = (0x2A700, 0x2B73F)
HAN_EXT_D: Block = (0x2B740, 0x2B81F)
HAN_COMPATIBILITY_SUPPLEMENT: Block = (0x2F800, 0x2FA1F)
HAN_PLANE_2: Block = (0x20000, 0x2FA1F)  # extensions B to F and the compatibility supplement
HAN_EXT_B_TO_G: Block = (0x20000, 0x3134F)  # plane 2 whole (unassigned tail included) to extension G
# --- South-East Asian scripts written without spaces ---------------------------------------------
THAI_LAO: Block = (0x0E00, 0x0EFF)
MYANMAR: Block = (0x1000, 0x109F)
KHMER: Block = (0x1780, 0x17FF)
KHMER_SYMBOLS: Block = (0x19E0, 0x19FF)
MYANMAR_EXT_B: Block = (0xA9E0, 0xA9FF)
MYANMAR_EXT_A: Block = (0xAA60, 0xAA7F)

# The blocks most uses mean by "CJK": ideographs of the basic plane, kana, hangul syllables.
HAN_BASIC = (HAN_EXT_A, HAN, HAN_COMPATIBILITY)
CJK = (KANA, *HAN_BASIC, HANGUL)
UNSPACED_SOUTHEAST_ASIAN = (THAI_LAO, MYANMAR, KHMER, KHMER_SYMBOLS, MYANMAR_EXT_B, MYANMAR_EXT_A)


def _escape(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def char_class(*blocks: Block) -> str:
    """The blocks as the inside of a regular expression's character class (``[...]``), escaped."""
    return "".join(_escape(low) if low == high else f"{_escape(low)}-{_escape(high)}" for low, high in blocks)


def chars(*blocks: Block) -> tuple[tuple[str, str], ...]:
    """The blocks as pairs of characters, to compare a character with (``low <= char <= high``)
    without taking its code point first."""
    return tuple((chr(low), chr(high)) for low, high in blocks)
