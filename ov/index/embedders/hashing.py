"""``hash``: a deterministic hashing embedder built into ov (numpy only).

Lexical, not semantic, but always available and identical in every process: words,
character trigrams and CJK characters and pairs, feature-hashed into signed
buckets. :class:`HashEmbedder` lists the steps; :data:`HASH_MODEL` versions them.
"""

from __future__ import annotations

import functools
import hashlib
import math
import unicodedata
from collections import Counter
from typing import TYPE_CHECKING

from ov import scripts
from ov.index.embedders.base import BaseEmbedder, Fingerprint
from ov.regex import LazyPattern

if TYPE_CHECKING:
    import numpy

HASH_PROVIDER = "hash"
HASH_MODEL = "hash-v1"
"""Version of the hashing scheme below. Change it whenever a vector could change."""

# Scripts written without spaces between words: each character is a token, and so is
# each pair of neighbours (a Chinese word is most often two characters). Han
# ideographs (with extensions and compatibility forms) and Japanese kana; not Hangul, which
# Korean writes with spaces between words (and HASH_MODEL fixes the list).
_CJK = scripts.char_class(scripts.KANA, *scripts.HAN_BASIC, scripts.HAN_PLANE_2)
# A run of CJK characters, or a word of letters and digits in any other script.
# Underscores split words, so snake_case identifiers match their parts.
# Compiled on first use: a class reaching into the supplementary planes takes ~3 ms, which every
# find would pay (the registry imports this module) while few stores use the hashing embedder.
_TOKENS = LazyPattern(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")
# Character trigrams let "embedder" meet "embedders" and "embedding"; they are many
# per word and each says less than a whole word, so they weigh less.
_TRIGRAM_WEIGHT = 0.3


class HashEmbedder(BaseEmbedder):
    """Feature hashing of words and character trigrams into ``dimension`` signed buckets.

    The steps (any change needs a new :data:`HASH_MODEL`): NFKC-normalise and casefold;
    tokens are words of letters/digits, with CJK characters as single tokens plus
    neighbouring pairs; each word also yields its trigrams with ``<``/``>`` boundary
    markers at weight 0.3; a feature's weight is multiplied by ``1 + log(tf)``; it is
    hashed with BLAKE2b (stable across processes, unlike ``hash()``) to a bucket and a
    sign; the vector is L2-normalised.
    """

    provider = HASH_PROVIDER
    static = True
    model = HASH_MODEL

    def __init__(self, dimension: int, batch_size: int) -> None:
        super().__init__(batch_size)
        self._dimension = dimension

    @property
    def known_dimension(self) -> int:
        return self._dimension

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(HASH_PROVIDER, HASH_MODEL, self._dimension)

    def _embed_batch(self, texts: list[str]) -> numpy.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _hash_features(text).items():
                bucket, sign = _hash_slot(feature, self._dimension)
                out[row, bucket] += sign * weight
        return out


def _hash_features(text: str) -> dict[str, float]:
    """Feature -> weight (with sublinear tf) of one text."""
    words: Counter[str] = Counter()
    grams: Counter[str] = Counter()
    for cjk, word in _TOKENS.findall(unicodedata.normalize("NFKC", text).casefold()):
        if cjk:
            words.update(cjk)
            words.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            words[word] += 1
            padded = f"<{word}>"
            grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    # Prefixes keep the word "abc" and the trigram "abc" in different features.
    features = {"w:" + word: 1.0 + math.log(tf) for word, tf in words.items()}
    features.update({"g:" + gram: _TRIGRAM_WEIGHT * (1.0 + math.log(tf)) for gram, tf in grams.items()})
    return features


@functools.lru_cache(maxsize=1 << 16)
def _hash_slot(feature: str, dimension: int) -> tuple[int, float]:
    """(bucket, sign) of a feature: the same in every process and on every platform."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, person=b"ov-" + HASH_MODEL.encode()).digest()
    value = int.from_bytes(digest, "little")
    # The sign makes colliding features cancel on average instead of piling up.
    return (value >> 1) % dimension, (1.0 if value & 1 else -1.0)
