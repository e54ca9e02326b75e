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
alone, when it is the record's. A ``viking://`` URI names its own place.
"""

from __future__ import annotations

import functools

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


@functools.lru_cache(maxsize=8)  # a search ranks each query of its plan a dozen times
def named_paths(query: str) -> dict[str, tuple[tuple[str, ...], ...]]:
    """The paths and file names ``query`` holds, in lower case, by their last segment (the name):
    for each, the trailing segments a URI must end with (at most :data:`MATCHED_SEGMENTS`). Cached,
    so the answer is shared: read it, never change it."""
    out: dict[str, dict[tuple[str, ...], None]] = {}
    for match in _CANDIDATE.finditer(query):
        word = match.group().strip(_AROUND)
        if word.startswith(SCHEME):
            word = word[len(SCHEME) :]
        elif "://" in word:
            continue  # a web address names no file of the store
        word = _LINE.sub("", word).rstrip(".:")
        if "\\" in word:
            word = word.replace("\\", "/")
        parts = [p for p in word.split("/") if p not in ("", ".", "..", "~") and not _DRIVE.match(p)]
        if not parts or ("/" not in word and not _FILE_NAME.fullmatch(parts[-1])):
            continue
        wanted = tuple(p.lower() for p in parts[-MATCHED_SEGMENTS:])
        out.setdefault(wanted[-1], {})[wanted] = None
    return {name: tuple(tails) for name, tails in out.items()}


def names(uri: str, paths: dict[str, tuple[tuple[str, ...], ...]]) -> bool:
    """Whether one of ``paths`` (from :func:`named_paths`) names the place ``uri``."""
    segments = uri.removeprefix(SCHEME).lower().rstrip("/").split("/")
    for wanted in paths.get(segments[-1], ()):
        if len(wanted) <= len(segments) and tuple(segments[-len(wanted) :]) == wanted:
            return True
    return False
