"""BERT's uncased WordPiece tokenisation in plain Python, for embedding one query cold.

The built-in model indexes with ``tokenizers`` (fast on thousands of texts), but a cold
``ov find`` embeds a single query of a few words, and importing ``tokenizers`` and loading
its ``tokenizer.json`` cost ~60 ms: more than the whole full-text search. This module does
what that tokenizer.json describes (``BertNormalizer`` with lowercasing and accent
stripping, ``BertPreTokenizer``, ``WordPiece`` with ``##`` continuations) from the model's
``vocab.txt`` in ~3 ms. A test checks it gives ``tokenizers``' ids on a wide sample of
text, so queries and the records they are compared with are cut into the same pieces.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

CONTINUATION = "##"
SPECIAL = ("[PAD]", "[UNK]")  # the tokenizer.json's added tokens
MAX_WORD_CHARS = 100  # the tokenizer.json's max_input_chars_per_word: longer words are unknown
# The CJK blocks BERT's normaliser sets apart as words of their own.
_CJK = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),  # sic: BERT's table skips 0x2B820-0x2B91F
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)
_DROPPED = frozenset(("Cc", "Cf", "Co", "Cs"))


class VocabLines:
    """A vocabulary file's token -> id (its line number), looked up in the file's text.

    A short query needs a few lookups; a dict of all 29,525 tokens costs a cold process ~7-10 ms
    to build (splitting the file and hashing every line), a lookup here 100-200 us (a substring
    search, then counting the lines before it). Longest-match-first makes odd words (hashes,
    compounds, foreign words) take many lookups, mostly misses, so after :data:`SEARCHES` of them
    the dict is built after all: past that many, searching would cost more than the dict.
    """

    SEARCHES = 40

    def __init__(self, text: str) -> None:
        self._text = "\n" + text
        self._known: dict[str, int | None] = {}
        self._all: dict[str, int] | None = None

    def get(self, token: str) -> int | None:
        if self._all is not None:
            return self._all.get(token)
        found = self._known.get(token, -1)
        if found != -1:
            return found
        if len(self._known) >= self.SEARCHES:
            # A token on two lines takes the later one's id, as in tokenizers' WordPiece.
            self._all = {line: i for i, line in enumerate(self._text.split("\n")[1:]) if line}
            return self._all.get(token)
        at = -1
        if "\n" not in token:
            # The last line holding it (see above), which may be the file's, with no newline after.
            at = len(self._text) - len(token) - 1 if self._text.endswith(f"\n{token}") else self._text.rfind(f"\n{token}\n")
        found = self._text.count("\n", 0, at) if at >= 0 and token else None
        self._known[token] = found
        return found

    def __getitem__(self, token: str) -> int:
        found = self.get(token)
        if found is None:
            raise KeyError(token)
        return found

    def __contains__(self, token: str) -> bool:
        return self.get(token) is not None


class WordPiece:
    """Token ids of a text under a BERT uncased vocabulary (one token per line, id = line)."""

    def __init__(self, vocab: dict[str, int] | VocabLines, special: tuple[str, ...] = SPECIAL) -> None:
        self._vocab = vocab
        # Special tokens are matched in the raw text, before normalising, as tokenizers does.
        present = [token for token in special if token in vocab]
        self._special = re.compile("|".join(re.escape(token) for token in present)) if present else None

    @classmethod
    def from_vocab_file(cls, path: Path) -> WordPiece:
        return cls(VocabLines(path.read_text(encoding="utf-8")))

    def id_of(self, token: str) -> int | None:
        return self._vocab.get(token)

    def ids(self, text: str) -> list[int]:
        """The ids of ``text``'s pieces. A word with no spelling in the vocabulary is dropped, where
        ``tokenizers`` gives the unknown token (which the embedder skips either way); a special
        token written out in the text (``[PAD]``, ``[UNK]``) is that token, as in ``tokenizers``."""
        out: list[int] = []
        start = 0
        for match in self._special.finditer(text) if self._special else ():
            out.extend(self._plain(text[start : match.start()]))
            out.append(self._vocab[match.group()])
            start = match.end()
        out.extend(self._plain(text[start:]))
        return out

    def _plain(self, text: str) -> list[int]:
        out: list[int] = []
        for word in _words(_normalise(text)):
            out.extend(self._pieces(word))
        return out

    def _pieces(self, word: str) -> list[int]:
        if len(word) > MAX_WORD_CHARS:
            return []
        vocab = self._vocab
        pieces: list[int] = []
        start = 0
        while start < len(word):
            # Longest match first, as WordPiece does: the whole rest, then one character less.
            for end in range(len(word), start, -1):
                piece = word[start:end] if start == 0 else CONTINUATION + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    pieces.append(found)
                    start = end
                    break
            else:
                return []  # one unspellable part makes the whole word unknown
        return pieces


def _normalise(text: str) -> str:
    """BertNormalizer(clean_text, handle_chinese_chars, strip_accents=lowercase, lowercase)."""
    chars = []
    for char in text:
        code = ord(char)
        if char in "\t\n\r":
            chars.append(" ")
            continue
        # Control, format and private-use characters go; unassigned ones stay, as in tokenizers.
        if code == 0 or code == 0xFFFD or unicodedata.category(char) in _DROPPED:
            continue
        if char.isspace():
            chars.append(" ")
        elif any(low <= code <= high for low, high in _CJK):
            chars.append(f" {char} ")
        else:
            chars.append(char)
    decomposed = unicodedata.normalize("NFD", "".join(chars))
    stripped = "".join(char for char in decomposed if unicodedata.category(char) != "Mn")
    # Python lowercases a word-final sigma to "ς"; tokenizers lowercases each character alone.
    return stripped.replace("Σ", "σ").lower()


def _words(text: str) -> list[str]:
    """BertPreTokenizer: split at whitespace, and every punctuation mark is a word of its own."""
    words: list[str] = []
    current: list[str] = []
    for char in text:
        if char.isspace():
            if current:
                words.append("".join(current))
                current = []
        elif _is_punctuation(char):
            if current:
                words.append("".join(current))
                current = []
            words.append(char)
        else:
            current.append(char)
    if current:
        words.append("".join(current))
    return words


def _is_punctuation(char: str) -> bool:
    code = ord(char)
    # Every ASCII symbol counts ($, +, ^, ...), as in BERT, though Unicode files some under S*.
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(char)[0] == "P"
