"""The script ranges of ov.scripts, as each module that takes them had them spelled out before.

The index's query analysis (ov.index.lexical), the hashing embedder's features (HASH_MODEL) and
BERT's WordPiece must take exactly the code points they took: a change there is a schema or a
model change, not a refactoring. Each frozen table below is the class or range list the module
spelled out before ov.scripts, compared with the module's own over every code point.
"""

from __future__ import annotations

import re

import pytest

from ov import scripts, tokens
from ov.hosts import topic
from ov.index import lexical
from ov.index.embedders import hashing, wordpiece
from ov.retrieval import plan, snippets
from ov.summaries import extractive

# Every code point once, in order (lone surrogates included: a str holds them, and re reads them).
EVERY = "".join(map(chr, range(0x110000)))

_KANA_HAN_HANGUL = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
FROZEN_PATTERNS = {
    "tokens": (
        lambda: tokens._CJK_RE,
        (
            "[\u1100-\u11ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
            "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef\U00020000-\U0003134f]"
        ),
    ),
    "snippets": (lambda: snippets._WORD_END, r"[\W_\u3005" + _KANA_HAN_HANGUL + "]"),
    "plan": (lambda: plan._CJK_RE, "[" + _KANA_HAN_HANGUL + "]"),
    "hashing": (
        lambda: hashing._TOKENS,
        (
            "([\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+)"
            "|([^\\W_\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+)"
        ),
    ),
    "lexical": (
        lambda: lexical._CJK_RUN,
        "[\u3005" + _KANA_HAN_HANGUL + "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\ua9e0-\ua9ff\uaa60-\uaa7f]+",
    ),
    "extractive han": (lambda: extractive._HAN_RUN, "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+"),
    "extractive katakana": (lambda: extractive._KANA_RUN, "[\u30a0-\u30ff]{2,}"),
    "extractive hangul": (lambda: extractive._HANGUL_RUN, "[\uac00-\ud7af]{2,}"),
    "extractive non-word": (lambda: extractive._NON_WORD_SCRIPTS, "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]+"),
    "extractive kana": (lambda: extractive._KANA, "[\u3040-\u30ff]"),
}


def _matches(pattern) -> list[tuple[tuple[int, int], tuple[str, ...]]]:
    """Where ``pattern`` matches over every code point, with its groups: equal lists, equal patterns."""
    return [(match.span(), match.groups()) for match in pattern.finditer(EVERY)]


@pytest.mark.parametrize("name", sorted(FROZEN_PATTERNS))
def test_each_pattern_takes_the_code_points_it_took(name):
    current, frozen = FROZEN_PATTERNS[name]
    assert _matches(current()) == _matches(re.compile(frozen))


def _points(blocks) -> set[int]:
    return {code for low, high in blocks for code in range(low, high + 1)}


def test_the_range_tables_take_the_code_points_they_took():
    # ov.hosts.topic: kana, ideographs and Hangul syllables, no compatibility ideographs.
    assert _points((ord(low), ord(high)) for low, high in topic._CJK_RANGES) == _points(((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF)))
    # BERT's _is_chinese_char, its gap at 0x2B820-0x2B91F included.
    bert = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))
    assert wordpiece._CJK == bert


def test_topic_compares_characters_as_the_code_points_do():
    # chars() gives pairs compared as strings: the order of one-character strings is the code points'.
    for low, high in topic._CJK_RANGES:
        assert len(low) == len(high) == 1 and low <= high


def test_char_class_escapes_single_points_and_both_planes():
    assert scripts.char_class(scripts.ITERATION_MARK) == "\\u3005"
    assert scripts.char_class(scripts.HAN_PLANE_2) == "\\U00020000-\\U0002fa1f"
    assert re.fullmatch(f"[{scripts.char_class(*scripts.CJK)}]+", "漢字かなカナ한글")
