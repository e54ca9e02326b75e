"""The lines of a result that a reader is shown: where its text holds the query's words."""

from __future__ import annotations

import os
import re

from ov import scripts
from ov.index.code import definition
from ov.index.records import Record
from ov.lines import lines_of
from ov.regex import LazyPattern
from ov.retrieval.named import identifiers, named_paths, naming, without_names

SNIPPET_LINES = 3
SNIPPET_CHARS = 300  # of one line of a chunk's snippet
MESSAGE_SNIPPET_CHARS = SNIPPET_CHARS * 2
# A word of ASCII text as the index splits it (a run of letters and digits): where a snippet finds
# the query's words in a long line. Compiled on first use.
_ASCII_WORD = LazyPattern(r"[A-Za-z0-9]+")
# Where a piece of text may end without cutting a word in two: after a character that is not a
# letter or digit, or after a CJK one (the index takes each as a word).
# A name given a value where a line starts: "QUERY_CHARS = 2000", "limit: int = 3", "const x =".
_ASSIGNED = LazyPattern(r"^\s*(?:(?:export\s+)?(?:const|let|var|static|final)\s+)?([A-Za-z_$][\w$]*)\s*(?::[^=]{1,80})?=(?!=)")
_WORD_END = LazyPattern(rf"[\W_{scripts.char_class(scripts.ITERATION_MARK, *scripts.CJK)}]")


def holds_line(record: Record, line: int) -> bool:
    """Whether ``record``'s text holds line ``line`` of its file (0: no line, never)."""
    first = record.start_line or 1
    return line > 0 and record.level == 2 and first <= line < first + len(lines_of(record.text))


def snippet_lines(record: Record, words: set[str], analyze, at_line: int = 0, query: str = "") -> tuple[str, int, int]:
    """The few lines of a chunk that hold the most query words, numbered as in the file; around
    line ``at_line`` of the file when the chunk holds it (the line a traceback or ``cart.py:40``
    names: what the user is looking at, whatever words it holds).

    A window of lines is worth the identifiers of ``query`` it spells (``parse_time``,
    ``QUERY_CHARS``: few lines of a file do, and those are what was asked about), then whether one
    of its lines defines one (``def parse_time``, ``QUERY_CHARS =``: the nearer its top the
    better), then the distinct query words it holds (first those the file's name does not say, in a
    memory: a card ``staging_server.md`` is about the staging server in each line), then how many of its lines hold one: three
    lines that repeat one word lose to the line that holds both words of the query. The words of a path ``query`` names this file by
    (``ov/retrieval/find.py``) are no words to look for in it: its imports and comments said
    "retrieval" and "find", and won over the line asked about. Among windows worth as much, the
    one that opens with the line that spells the identifier; blank lines at either end are left
    out. A line longer than a snippet shows the part of it around its query words
    (:func:`focus`).
    """
    lines = lines_of(record.text)
    if not lines:
        return "", record.start_line, record.start_line
    if query:
        words = _without_path_words(record.uri, words, analyze, query)
    terms = [analyze(line) if line.strip() else [] for line in lines]
    held = [words.intersection(found) for found in terms]
    window = min(SNIPPET_LINES, len(lines))
    if holds_line(record, at_line):
        best_at = min(max(at_line - (record.start_line or 1) - window // 2, 0), len(lines) - window)
    else:
        names = identifiers(query) if query else frozenset()
        spelled = [spells(line, names) for line in lines] if names else [frozenset()] * len(lines)
        defines = [bool(found) and _defines(line, found) for line, found in zip(lines, spelled, strict=True)]
        # Only a memory's card is about its name in every line; a resource's name ("ov_session.md")
        # names a topic its sections each narrow, and the one the query names must still win.
        subject = words.intersection(analyze(_file_name(record.uri))) if record.context_type == "memory" else frozenset()
        best_at = _most_words(held, spelled, defines, window, subject)
    start, end = _without_blank_ends(lines, best_at, window)
    first = record.start_line + start if record.start_line else start + 1
    at_lines = range(start, end)
    indents = _indents([lines[at] for at in at_lines])
    shown = [f"{first + k}: {indent}{focus(lines[at], held[at], analyze, SNIPPET_CHARS, terms[at])}" for k, (at, indent) in enumerate(zip(at_lines, indents))]
    return "\n".join(shown), first, first + end - start - 1


def _indents(lines: list[str]) -> list[str]:
    """Each line's indentation past the least-indented line's: a snippet of YAML or Python keeps
    its nesting (which ``port`` is under which section), without the whole chunk's margin."""
    leading = [line[: len(line) - len(line.lstrip())] if line.strip() else None for line in lines]
    margin = len(os.path.commonprefix([lead for lead in leading if lead is not None]))
    return [lead[margin:] if lead is not None else "" for lead in leading]


def _file_name(uri: str) -> str:
    """The name of ``uri``'s file without its extension: "staging_server" of ``…/staging_server.md``."""
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name[1:] else name


def _without_path_words(uri: str, words: set[str], analyze, query: str) -> set[str]:
    """``words`` without the terms of the paths ``query`` names ``uri`` by, but for those its other
    words hold too."""
    named = named_paths(query)
    paths = naming(uri, named) if named else []
    if not paths:
        return words
    path_terms = set(analyze(" ".join(" ".join(path) for path in paths)))
    return words - (path_terms - set(analyze(without_names(query))))


def spells(text: str, names: frozenset[str]) -> frozenset[str]:
    """The identifiers of ``names`` (lower case) ``text`` spells as a word of its own."""
    lowered = text.lower()
    return frozenset(name for name in names if name in lowered and re.search(rf"(?<![a-z0-9_]){re.escape(name)}(?![a-z0-9_])", lowered))


def _defines(line: str, names: frozenset[str]) -> bool:
    """Whether ``line`` defines one of ``names``: a definition (``def``, ``class``, ``fn`` ...) or an
    assignment (``QUERY_CHARS = 2000``, ``limit: int = 3``)."""
    defined = definition(line) or (found.group(1) if (found := _ASSIGNED.match(line)) else None)
    return defined is not None and defined.lower() in names


def _most_words(held: list[set[str]], spelled: list[frozenset[str]], defines: list[bool], window: int, subject: set[str] = frozenset()) -> int:
    """Where the ``window`` lines worth the most start (see :func:`snippet_lines`); ``held``: the
    query words each line holds; ``spelled``: the query's identifiers it spells; ``defines``:
    whether it defines one; ``subject``: the query words the file's name says, which count after
    the others."""
    counts = [len(h) for h in held]
    best_at, best = 0, (-1, False, -window, -1, -1, -1, -window)
    for i in range(len(held) - window + 1):
        total = sum(counts[i : i + window])
        names = len(frozenset().union(*spelled[i : i + window]))
        defined = any(defines[i : i + window])
        if (names, defined, 0, total, total, total) <= best[:6]:
            continue  # it holds at most `total` distinct words and leads with a definition at best: it cannot do better
        # The line that defines (else spells) an identifier the nearer the window's top, the better.
        lead = next((k for k in range(window) if defines[i + k]), None) if defined else None
        if lead is None:
            lead = next((k for k in range(window) if spelled[i + k]), 0)
        # A definition shown from its first line (its signature, then its docstring) before more words.
        # A word the file's name says is said of each of its lines: a card "staging_server.md" grows
        # a fact a line ("- 41 is at host41.internal"), and asked "staging server 41", its heading's
        # two words showed the first fact, not the one line that holds the word only it holds.
        distinct = set().union(*held[i : i + window])
        worth = (names, defined, -lead if defined else 0, len(distinct - subject), len(distinct), total, -lead)
        if worth > best:
            best_at, best = i, worth
    return best_at


def _without_blank_ends(lines: list[str], start: int, window: int) -> tuple[int, int]:
    """The window of ``window`` lines at ``start`` without blank lines at either end (0-based,
    end-exclusive): one that opens with blank lines moves down to the first line with text, as far
    as the chunk goes."""
    while start < len(lines) - 1 and not lines[start].strip():
        start += 1
    end = min(start + window, len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def focus(text: str, words: set[str], analyze, limit: int, terms: list[str] | None = None) -> str:
    """``text`` within ``limit`` characters: whole when it fits, else the stretch that holds the
    most of ``words`` (query terms, as ``analyze`` makes them), "…" where it was cut. ``terms``:
    ``analyze(text)`` when the caller has it already (analysis costs about 0.2 µs a character).

    A long line or message may match only at its end; its first characters would show none of
    what matched. Without a query word in it, it is its beginning.
    """
    text = text.strip()
    if len(text) <= limit:
        return text
    room = limit - 2  # a "…" at either end
    reach = room // _CUT_REACH
    spots = _spots(text, words, analyze, terms, room // 4) if words else []
    if not spots:
        return text[: _end_at(text, limit - 1 - reach, limit - 1)].rstrip() + "…"
    best, span = (0, 0), (0, 0)
    for i, (start, end, _term) in enumerate(spots):
        held, last = set(), end
        for _start, other_end, term in spots[i:]:
            if other_end - start > room:
                break
            held.add(term)
            last = other_end
        worth = (len(held), -i)  # the most distinct words; the earliest such stretch
        if worth > best:
            best, span = worth, (start, min(last, start + room))
    start, end = span
    begin = max(0, min(start - (room - (end - start)) // 2, len(text) - room))
    finish = min(len(text), begin + room)
    if begin > 0:  # start at a word
        begin = _start_at(text, begin, min(start, begin + reach))
    if finish < len(text):  # and end after one
        finish = _end_at(text, max(end, finish - reach), finish)
    return ("…" if begin > 0 else "") + text[begin:finish].strip() + ("…" if finish < len(text) else "")


# A cut of a line with no spaces in reach (minified JSON or JS, a long URL) falls after a mark: a
# separator between items first (`{"id":1,"na…` cut mid-token reads as a different value).
_SEPARATORS = ",;"
# How far a cut may move to fall between words or items: this part of the room at either end, so a
# snippet keeps two thirds of its room at the least. A URL's `?q=needle&x=` between two long runs
# of letters was shown alone, 13 of 100 characters; a run longer than this is cut inside.
_CUT_REACH = 6


def _mark(c: str) -> bool:
    return not (c.isalnum() or c == "_" or c.isspace())


def _start_at(text: str, begin: int, limit: int) -> int:
    """Where a stretch starting near ``begin`` may start, before ``limit``: at ``begin`` when a word
    starts there, else after the next space, else after the next separator or mark; ``begin``
    when none."""
    if text[begin - 1].isspace():
        return begin
    space = text.find(" ", begin, limit)
    if space >= 0:
        return space + 1
    if text[begin - 1] in _SEPARATORS:
        return begin
    for fits in (lambda c: c in _SEPARATORS, _mark):
        at = next((k for k in range(begin, limit) if fits(text[k])), -1)
        if at >= 0:
            return at + 1
    return begin


def _end_at(text: str, least: int, finish: int) -> int:
    """Where a stretch ending near ``finish`` may end, not before ``least``: at the last space,
    else after the last separator or mark; ``finish`` when none."""
    space = text.rfind(" ", least, finish)
    if space >= 0:
        return space
    if text[finish - 1] in _SEPARATORS or text[finish].isspace():
        return finish
    for fits in (lambda c: c in _SEPARATORS, _mark):
        at = next((k for k in range(finish - 1, least - 1, -1) if fits(text[k])), -1)
        if at >= 0:
            return at + 1
    return finish


def _spots(text: str, words: set[str], analyze, terms: list[str] | None, piece: int) -> list[tuple[int, int, str]]:
    """(start, end, term) of the query terms in ``text``, in order: where the index's analysis of
    ``text`` (a stem stands for any form of its word: 'rotat', 'Rotated') meets ``words``.

    ASCII text is split into words as the index splits it (runs of letters and digits, under 64
    bytes), so its terms pair with those words one to one. Other text (CJK is one term a
    character) is analyzed again in pieces of about ``piece`` characters cut between words, and a
    term's place is its piece's: near enough for a snippet several pieces long.
    """
    if terms is None and text.isascii():
        found = _ascii_spots(text, words, analyze)
        if found is not None:
            return found
    if terms is None:
        terms = analyze(text)
    if not words.intersection(terms):
        return []
    if text.isascii():
        runs = list(_ASCII_WORD.finditer(text))
        if len(runs) != len(terms):  # a word of 64 letters or more, which the index drops
            runs = [m for m in runs if m.end() - m.start() < 64]
        if len(runs) == len(terms):
            return [(runs[i].start(), runs[i].end(), term) for i, term in enumerate(terms) if term in words]
    spots = []
    start = 0
    while start < len(text):
        cut = _WORD_END.search(text, min(start + piece, len(text)))
        end = cut.end() if cut else len(text)
        spots.extend((start, end, term) for term in sorted(words.intersection(analyze(text[start:end]))))
        start = end
    return spots


def _ascii_spots(text: str, words: set[str], analyze) -> list[tuple[int, int, str]] | None:
    """:func:`_spots` of ASCII text analyzed a distinct word at a time (the index's analysis of a
    word does not depend on its neighbours), then found where it stands by a search for the words
    that match: a message of a pasted log (100-170 KB, 28,000 words of a few thousand) cost a
    year-old account's prompt hook 130-200 ms a result, analyzed and paired word by word. None
    when a word does not analyze to one term."""
    distinct = [word for word in set(_ASCII_WORD.findall(text)) if len(word) < 64]  # the index drops longer ones
    terms = analyze(" ".join(distinct))
    if len(terms) != len(distinct):
        return None
    term_of = {word: term for word, term in zip(distinct, terms, strict=True) if term in words}
    if not term_of:
        return []
    # Literals alone (no look-around, which made the search 30 times slower), longest first: where a
    # word of ``term_of`` starts, the longest one there is the whole word if any is. A match inside
    # a longer word is dropped; it never hides a whole word, which starts after a non-alnum character.
    matching = re.compile("|".join(map(re.escape, sorted(term_of, key=lambda word: (-len(word), word)))))
    end = len(text)
    return [
        (found.start(), found.end(), term_of[found.group()])
        for found in matching.finditer(text)
        if (found.start() == 0 or not text[found.start() - 1].isalnum()) and (found.end() == end or not text[found.end()].isalnum())
    ]


def clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
