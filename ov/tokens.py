"""Token estimates without a tokenizer: used to size ingest pieces and retrieval budgets.

No model files are downloaded and no tokenizer is loaded, so the estimate is a
rule of thumb, tuned to err on the high side (a budget that is slightly too
generous on paper is filled with slightly less text, never with too much):

* CJK ideographs, kana, hangul and CJK/fullwidth punctuation: **1 token per
  character**. BPE tokenizers (cl100k, o200k, sentencepiece models) give these
  scripts about 0.7 to 1.5 tokens a character; one is the middle of that range.
* ASCII: **1 token per 4 characters** (whitespace included), the usual figure
  for English prose with GPT-style tokenizers. Code with deep indentation is
  overestimated a little because runs of spaces merge into one token.
* Every other character (accented Latin, Cyrillic, Greek, Arabic, emoji, ...):
  **1 token per 2 characters**; such text splits into much shorter pieces than
  English does.

The sum is rounded up, so any non-empty text costs at least one token.
"""

from __future__ import annotations

from ov import scripts
from ov.regex import LazyPattern

__all__ = ["MAX_CHARS_PER_TOKEN", "estimate_tokens"]

# The most characters one estimated token stands for (ASCII's four): text estimated at N tokens
# holds at most 4N characters, so a token budget of N // 4 keeps a text within N characters.
MAX_CHARS_PER_TOKEN = 4

# Han (with extension A, the compatibility block and the supplementary planes),
# CJK symbols and punctuation, kana, bopomofo, hangul jamo and syllables,
# and the fullwidth/halfwidth forms used in CJK text.
_CJK_CLASS = scripts.char_class(
    scripts.HANGUL_JAMO,
    scripts.CJK_RADICALS,
    scripts.CJK_SYMBOLS,
    scripts.KANA,
    scripts.BOPOMOFO,
    scripts.HANGUL_COMPATIBILITY_JAMO,
    scripts.KATAKANA_EXTENSIONS,
    scripts.HAN_EXT_A,
    scripts.HAN,
    scripts.HANGUL_JAMO_EXT_A,
    scripts.HANGUL_AND_JAMO_EXT_B,
    scripts.HAN_COMPATIBILITY,
    scripts.CJK_COMPATIBILITY_FORMS,
    scripts.FULLWIDTH,
    scripts.HAN_EXT_B_TO_G,
)
# Compiled when first needed: the class reaches into the supplementary planes (~5 ms to compile),
# and ASCII text, most of what `ov session add` sees, never uses it.
_CJK_RE = LazyPattern(f"[{_CJK_CLASS}]")
_CJK_CHARS = 4  # weights in quarter tokens
_OTHER_CHARS = 2
_ASCII_CHARS = 1


def estimate_tokens(text: str) -> int:
    """Estimate how many LLM tokens ``text`` costs (see the module docstring for the rule)."""
    if not text:
        return 0
    length = len(text)
    if text.isascii():
        return -(-length // 4)
    # encode(ignore) counts the ASCII characters in C, without a Python loop over the text.
    ascii_count = len(text.encode("ascii", "ignore"))
    cjk = length - len(_CJK_RE.sub("", text))
    other = length - ascii_count - cjk
    quarters = cjk * _CJK_CHARS + other * _OTHER_CHARS + ascii_count * _ASCII_CHARS
    return -(-quarters // 4)

