"""Files a query names: "look at tests/conftest.py", "why does src/searcher.rs:42 panic?".

A file's name reaches the full-text ranking only through the title field, at a third of a word of
its text, and is split into words there ("tests", "conftest", "py"): a directory whose summary
says "tests" many times outranked the file the prompt spelled out. A word of the query that is
a path (it holds a ``/``) or a file name (it ends in an extension) says which file is meant;
:func:`ov.retrieval.find.rank` puts the records of that file first.

A word names a record when the record's URI ends with it, segment by segment and in any case. An
absolute path (``/home/me/tpy/tests/conftest.py``, ``~/...``, ``C:\\...``) and a path from the
user's own folder (``tpy/tests/conftest.py``) seldom spell the store's place in full, so a path of
several segments names a record when their last two match (``tests/conftest.py``); a file name
alone, when it is the record's. The more of a path's segments a URI ends with, the more surely it
is the file meant: ``src/ov/main.py`` names ``.../src/ov/main.py`` before ``.../tools/ov/main.py``.
A ``viking://`` URI spells the place in full: it names that place exactly (and what lies below it,
a split document's sections), never another file of the same last segments.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from ov.regex import LazyPattern

# A word that may name a file: it holds a `/` or `\\`, or a dot before a letter (an extension).
# Tried at the start of a word only, so a long run without either is read once, not once a character.
_CANDIDATE = LazyPattern(r"(?<!\S)[^\s/\\]*(?:[/\\]|\.[A-Za-z])\S*")
# What may stand around a path in a sentence: quotes, brackets, punctuation.
_AROUND = "`'\"()[]{}<>,;!?*"
# A line (and column) after a file name: `src/searcher.rs:42`, `conftest.py:10:5`, `#L42`.
_LINE = LazyPattern(r"(?::\d+)+:?$|#L\d+(?:-L?\d+)?$")
# A file name: a stem and an extension that starts with a letter ("conftest.py", "Cargo.toml",
# "tsconfig.base.json"; not "3.14" or "v1.2"), or a dot file (".gitignore").
_FILE_NAME = LazyPattern(r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z][\w-]{0,15}|\.[A-Za-z][\w.-]{0,63}")
_DRIVE = LazyPattern(r"[A-Za-z]:$")
SCHEME = "viking://"
# The trailing segments of a path that must match when the path is longer: a file and its folder.
MATCHED_SEGMENTS = 2
# How surely a viking:// URI names its own place: above any path's count of matched segments.
EXACT = 1 << 16


class Named(NamedTuple):
    """What a query names (:func:`named_paths`)."""

    # Paths and file names in lower case, their segments, by their last segment (the name).
    tails: dict[str, tuple[tuple[str, ...], ...]]
    # viking:// URIs as written, without a trailing slash.
    places: tuple[str, ...]


@functools.lru_cache(maxsize=8)  # a search ranks each query of its plan a dozen times
def named_paths(query: str) -> Named:
    """The paths, file names and ``viking://`` URIs ``query`` holds. Cached, so the answer is
    shared: read it, never change it."""
    tails: dict[str, dict[tuple[str, ...], None]] = {}
    places: dict[str, None] = {}
    for match in _CANDIDATE.finditer(query):
        word = match.group().strip(_AROUND)
        place = word.startswith(SCHEME)
        if place:
            word = word[len(SCHEME) :]
        elif "://" in word:
            continue  # a web address names no file of the store
        word = _LINE.sub("", word).rstrip(".:")
        if place:
            if word.strip("/"):
                places[SCHEME + word.rstrip("/")] = None
            continue
        if "\\" in word:
            word = word.replace("\\", "/")
        parts = [p for p in word.split("/") if p not in ("", ".", "..", "~") and not _DRIVE.match(p)]
        if not parts or ("/" not in word and not _FILE_NAME.fullmatch(parts[-1])):
            continue
        wanted = tuple(p.lower() for p in parts)
        tails.setdefault(wanted[-1], {})[wanted] = None
    return Named({name: tuple(found) for name, found in tails.items()}, tuple(places))


def names(uri: str, named: Named) -> int:
    """How surely ``named`` (from :func:`named_paths`) names the place ``uri``: 0 not at all, else
    how many segments of a path the URI ends with (at least :data:`MATCHED_SEGMENTS`, or all of a
    shorter path's), or :data:`EXACT` for a ``viking://`` URI that is the place or holds it."""
    for place in named.places:
        if uri.rstrip("/") == place or uri.startswith(place + "/"):
            return EXACT
    segments = uri.removeprefix(SCHEME).lower().rstrip("/").split("/")
    best = 0
    for wanted in named.tails.get(segments[-1], ()):
        matched = 0
        for mine, theirs in zip(reversed(segments), reversed(wanted)):
            if mine != theirs:
                break
            matched += 1
        if matched >= min(len(wanted), MATCHED_SEGMENTS):
            best = max(best, matched)
    return best
