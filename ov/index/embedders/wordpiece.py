"""BERT's uncased WordPiece tokenisation in plain Python, for embedding one query cold.

The built-in model indexes with ``tokenizers`` (fast on thousands of texts), but a cold
``ov find`` embeds a single query of a few words, and importing ``tokenizers`` and loading
its ``tokenizer.json`` cost ~60 ms: more than the whole full-text search. This module does
what that tokenizer.json describes (``BertNormalizer`` with lowercasing and accent
stripping, ``BertPreTokenizer``, ``WordPiece`` with ``##`` continuations) from the model's
``vocab.txt`` and the hash table built beside it (:class:`VocabIndex`) in about a
millisecond. A test checks it gives ``tokenizers``' ids on a wide sample of text, so
queries and the records they are compared with are cut into the same pieces.
"""

from __future__ import annotations

import re
import struct
import sys
import unicodedata
import zlib
from array import array
from pathlib import Path

from ov import scripts

CONTINUATION = "##"
SPECIAL = ("[PAD]", "[UNK]")  # the tokenizer.json's added tokens
MAX_WORD_CHARS = 100  # the tokenizer.json's max_input_chars_per_word: longer words are unknown
# The CJK blocks BERT's normaliser sets apart as words of their own.
# (BERT's ``_is_chinese_char``, in its order; not scripts.CJK: kana and hangul are not in it.)
_CJK = (
    scripts.HAN,
    scripts.HAN_EXT_A,
    scripts.HAN_EXT_B,
    scripts.HAN_EXT_C,
    scripts.HAN_EXT_D,
    (0x2B920, 0x2CEAF),  # sic: BERT's table skips 0x2B820-0x2B91F
    scripts.HAN_COMPATIBILITY,
    scripts.HAN_COMPATIBILITY_SUPPLEMENT,
)
_DROPPED = frozenset(("Cc", "Cf", "Co", "Cs"))


class VocabIndex:
    """A vocabulary's token -> id through the hash table built beside it (``vocab.index``).

    A cold ``ov find`` embeds one query, and longest-match-first makes even a short one look up
    dozens of spellings, many of them misses. A dict of all 29,525 tokens costs a cold process
    7-10 ms to build, and a search of the file's text 50-200 us per lookup; here a lookup is a
    CRC of the token and a probe or two of a table read whole in well under a millisecond.

    The file (little-endian): :data:`MAGIC`; as u32, the CRC-32 of the vocabulary's bytes (an
    index of another vocabulary is refused) and of the rest of this file (a damaged one is
    refused), the vocabulary's line count ``n`` and the table's size ``slots`` (a power of two, at
    least twice ``n``); then ``n + 1`` u32 byte offsets of the lines' starts (the last one past
    the final newline), and ``slots`` u32 entries, each 0 (empty) or a line's id + 1, placed at
    the token's CRC-32 modulo ``slots`` and probed linearly from there. A token on two lines has
    the later one's id, as in ``tokenizers``' WordPiece.
    """

    MAGIC = b"ovvocab1"
    _HEAD = struct.Struct("<8sIIII")

    def __init__(self, text: bytes, starts: array, table: array) -> None:
        self._text = text
        self._starts = starts
        self._table = table
        self._mask = len(table) - 1
        self._lines = len(starts) - 1

    @classmethod
    def build(cls, vocab: bytes) -> bytes:
        """The index file of a vocabulary file's bytes."""
        text = _lines_ended(vocab)
        starts = array(_U32, [0])
        for line in text.split(b"\n")[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        lines = len(starts) - 1
        index = cls(text, starts, array(_U32, bytes(4 * (1 << max(1, (2 * lines - 1).bit_length())))))
        for i in range(lines):
            key = index._token(i)
            if key:
                index._table[index._slot(key)] = i + 1  # a repeated token: the later line's id
        body = _little(starts).tobytes() + _little(index._table).tobytes()
        return cls._HEAD.pack(cls.MAGIC, zlib.crc32(vocab), zlib.crc32(body), lines, len(index._table)) + body

    @classmethod
    def read(cls, vocab: bytes, index: bytes) -> VocabIndex | None:
        """The index of ``vocab`` from a file's bytes; None when they are not that (another
        vocabulary's, another format, cut short or damaged)."""
        if len(index) < cls._HEAD.size:
            return None
        magic, crc, body_crc, lines, slots = cls._HEAD.unpack_from(index)
        body = index[cls._HEAD.size :]
        if (
            magic != cls.MAGIC
            or crc != zlib.crc32(vocab)
            or body_crc != zlib.crc32(body)
            or slots < max(2, 2 * lines)
            or slots & (slots - 1)
            or len(body) != 4 * (lines + 1 + slots)
        ):
            return None
        starts, table = array(_U32), array(_U32)
        starts.frombytes(body[: 4 * (lines + 1)])
        table.frombytes(body[4 * (lines + 1) :])
        if sys.byteorder != "little":
            starts.byteswap()
            table.byteswap()
        text = _lines_ended(vocab)
        if starts[lines] != len(text):
            return None
        return cls(text, starts, table)

    def get(self, token: str) -> int | None:
        slot = self._slot(token.encode("utf-8", "surrogatepass"))
        entry = 0 if slot is None else self._table[slot]
        return entry - 1 if entry else None

    def _slot(self, key: bytes) -> int | None:
        """The slot holding ``key``, else the empty one where it would go; None when a whole round
        of the table finds neither (only a damaged table, which :meth:`read` refuses, could)."""
        slot = zlib.crc32(key) & self._mask
        for _ in range(len(self._table)):
            entry = self._table[slot]
            if not entry or (entry <= self._lines and self._token(entry - 1) == key):
                return slot
            slot = (slot + 1) & self._mask
        return None

    def _token(self, line: int) -> bytes:
        return self._text[self._starts[line] : self._starts[line + 1] - 1]

    def __getitem__(self, token: str) -> int:
        found = self.get(token)
        if found is None:
            raise KeyError(token)
        return found

    def __contains__(self, token: str) -> bool:
        return self.get(token) is not None


_U32 = "I" if array("I").itemsize == 4 else "L"  # the array type code of 32-bit unsigned fields


def _lines_ended(vocab: bytes) -> bytes:
    """A vocabulary file's bytes with each line ended by one newline, as reading it as text does
    (a Windows checkout may have turned the newlines into CRLF)."""
    text = vocab.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return text if not text or text.endswith(b"\n") else text + b"\n"


def _little(values: array) -> array:
    """``values`` as little-endian fields: itself on a little-endian machine, else a swapped copy."""
    if sys.byteorder == "little":
        return values
    swapped = array(values.typecode, values)
    swapped.byteswap()
    return swapped


def read_vocabulary(path: Path) -> VocabIndex | dict[str, int]:
    """``path``'s token -> id, through its index (``vocab.index`` beside it) when that is the
    index of this file, else as a dict built from its lines (slower to build, the same ids)."""
    vocab = path.read_bytes()
    try:
        index = VocabIndex.read(vocab, path.with_suffix(".index").read_bytes())
    except OSError:
        index = None
    if index is not None:
        return index
    return {line: i for i, line in enumerate(_lines_ended(vocab).decode("utf-8").split("\n")) if line}


class WordPiece:
    """Token ids of a text under a BERT uncased vocabulary (one token per line, id = line)."""

    def __init__(self, vocab: dict[str, int] | VocabIndex, special: tuple[str, ...] = SPECIAL) -> None:
        self._vocab = vocab
        # Special tokens are matched in the raw text, before normalising, as tokenizers does.
        present = [token for token in special if token in vocab]
        self._special = re.compile("|".join(re.escape(token) for token in present)) if present else None

    @classmethod
    def from_vocab_file(cls, path: Path) -> WordPiece:
        return cls(read_vocabulary(path))

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
