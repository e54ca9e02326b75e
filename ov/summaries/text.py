"""Sentences: where they end, how they join, and how generated text is cut to a size limit."""

from __future__ import annotations

from ov.regex import LazyPattern

# Compiled at first use: the prompt hook imports this module for QUESTION_MARKS alone.
SENTENCE_END = LazyPattern(r"\.(?!\d)(?=\s|$)|[!?](?=\s|$)|[。？！]")
_CJK_END = "。？！"


def sentences(text: str) -> list[str]:
    """``text`` cut after each sentence end; the rest after the last one is a sentence too."""
    out, start = [], 0
    for match in SENTENCE_END.finditer(text):
        piece = text[start : match.end()].strip()
        if piece:
            out.append(piece)
        start = match.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return out


# A question's end: Chinese and Japanese write a full-width one, Arabic and Persian a turned one;
# "?!" may be one mark ("⁈", "‽"), and a chat an emoji's ("❓"), maybe with its emoji selector.
QUESTION_MARKS = ("?", "？", "؟", "‽", "⁇", "⁈", "⁉", "⸮", "❓", "❔")
_EMOJI_SELECTOR = "\ufe0f"


def asks(sentence: str) -> bool:
    """Whether ``sentence`` ends in a question mark (one of :data:`QUESTION_MARKS`: ``?``, ``？``, ``؟``, ...)."""
    return sentence.rstrip().rstrip(_EMOJI_SELECTOR).endswith(QUESTION_MARKS)


def join_sentences(first: str, second: str) -> str:
    if not first or not second:
        return first or second
    # Chinese and Japanese run sentences together without a space.
    return first + ("" if first[-1] in _CJK_END else " ") + second


def as_sentence(text: str) -> str:
    """``text`` ending in a sentence mark (a period added when it has none)."""
    text = text.strip()
    if not text or text[-1] in ".!?…" + _CJK_END:
        return text
    return text.rstrip(":;,") + "."


def truncate_generated(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at the last sentence end that fits.

    A sentence end is taken only when what it keeps holds at least half of ``limit``; otherwise,
    and without one, the cut falls on a word boundary and ends in ``...`` (:func:`clipped`). A
    short opening sentence followed by a long one ("12 messages (2026-11-29). The user asked: ...")
    was all an abstract kept: the cut threw away what it was about to keep a sentence's end.
    (OpenViking would keep a first sentence longer than the limit; ov's limits are hard.)
    """
    if limit <= 0 or len(text) <= limit:
        return text
    if limit <= 3:
        return text[:limit]
    last_end = None
    for match in SENTENCE_END.finditer(text, 0, limit + 1):
        if match.end() <= limit:
            last_end = match.end()
    if last_end is not None and len(text[:last_end].strip()) * 2 >= limit:
        return text[:last_end].strip()
    return clipped(text, limit)


def clipped(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters on a word boundary, ending in ``...`` when cut."""
    if limit <= 0 or len(text) <= limit:
        return text
    if limit <= 3:
        return text[:limit]
    head = text[: limit - 3]
    if not text[limit - 3].isspace():  # the cut fell inside a word: drop the partial word
        space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
        if space > 0:
            head = head[:space]
    return head.rstrip().rstrip(",;:") + "..."


def fitted_sidecar(name: str, data: bytes) -> tuple[bytes, bool]:
    """A summary sidecar that came from elsewhere (a pack, a pull) within its layer's limit, and
    whether it was cut. OpenViking cuts what it generates to the same limits but can be configured
    past them, and one made by hand or with plain git is held to nothing: a summary over its limit
    would be injected into prompts at that size. A sidecar that does not parse is kept as it is
    (readers treat it as text)."""
    from ov.errors import InvalidInput
    from ov.store import sidecar

    try:
        meta, text = sidecar.parse(data.decode("utf-8"))
    except (UnicodeDecodeError, InvalidInput):
        return data, False
    limit = sidecar.ABSTRACT_MAX_CHARS if name == sidecar.ABSTRACT else sidecar.OVERVIEW_MAX_CHARS
    if len(text) <= limit:
        return data, False
    return sidecar.render(meta, truncate_generated(text, limit)).encode("utf-8"), True
