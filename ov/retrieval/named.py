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

A path that names a folder (``ov/retrieval/``, ``viking://resources/docs/``) names what lies in it:
its files are the candidates that come first, ranked by the query's other words. A document ingest
reads as Markdown is stored as ``{stem}.md``, or as a folder ``{stem}/`` of its sections when long
(:mod:`ov.ingest.splitter`): ``docs/hosts.md`` and ``guide.rst`` name those. A Markdown link's target
(``[the hooks](docs/hosts.md#failing-open)``) is a path like any other, its anchor left out, and so
is a pytest test id's file (``tests/test_cart.py::test_total``). A file named is wanted whether or
not the query's words found it: :func:`lookup_patterns` find it in the index by name.

A name says which file is meant only when few files have it: "README.md", "config.yaml" or
"src/index.ts" in a store of fifty projects names none of them (it lifted ten READMEs into a
prompt's block, past the cut-off, for a prompt that mentioned one in passing). So does a folder's:
"src/", "tests/" or "docs/" is a folder of every project, and lifted the records of all of them.
A caller that can count the files and folders a word names (:func:`files_among`, :func:`ambiguous`)
asks again without those words: they stay words of the query, ranked like any other.

The words of a ``viking://`` URI that leads to something are an address, not a topic:
:func:`query_words` leaves them out of the words a query is ranked by ("viking", "resources" and
the folder's name are in every record below it, and a scope named was ranked by whatever spoke of
them most).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import NamedTuple

from ov.index.code import CASED, JOINED, NAME, NAME_CHAR
from ov.ingest.formats import DOCUMENT_EXTENSIONS, SECTION_NAME
from ov.regex import LazyPattern
from ov.uri import nfc

# A word that may name a file: it holds a `/` or `\\`, or a dot before a letter (an extension).
# Tried at the start of a word only, so a long run without either is read once, not once a character.
_CANDIDATE = LazyPattern(r"(?<!\S)[^\s/\\]*(?:[/\\]|\.[A-Za-z])\S*")
# What may stand around a path in a sentence: quotes, brackets, punctuation, and the "@" of a
# mention (Claude Code, Gemini CLI and Cursor write a file the user picks as "@src/app.py").
_AROUND = "`'\"()[]{}<>,;!?*@"
# A line (and column) after a file name: `src/searcher.rs:42`, `conftest.py:10:5`, `#L42`.
_LINE = LazyPattern(r":(?P<line>\d+)(?::\d+)*:?$|#L(?P<anchor>\d+)(?:-L?\d+)?$")
# The same, in a word as written (before what may stand after it: "cart.py:40," "(app.js:10:5)").
_LINE_IN_WORD = LazyPattern(r"(?::\d+)+:?(?=\W*$)|#L\d+(?:-L?\d+)?(?=\W*$)")
# A file name: a stem and an extension that starts with a letter ("conftest.py", "Cargo.toml",
# "tsconfig.base.json"; not "3.14" or "v1.2"), or a dot file (".gitignore").
_FILE_NAME = LazyPattern(r"[\w-]+(?:\.[\w-]+)*\.[A-Za-z][\w-]{0,15}|\.[A-Za-z][\w.-]{0,63}")
_DRIVE = LazyPattern(r"[A-Za-z]:$")
# The number ingest puts after a document's name when another file took it (hosts_2/, hosts_2.md).
_NUMBER = "(?:_[0-9]+)?"
# A section of a document's folder of sections (01_Intro.md, 02_Setup/), in Python's syntax and in
# tantivy's (with what follows): what tells that folder from a folder of the source of its name.
_SECTION = LazyPattern(SECTION_NAME)
SECTION = f"{SECTION_NAME}.+"
# A viking:// URI in running text, with what may stand around it: left out of the ranked words.
_PLACE_WORD = LazyPattern(r"(?<!\S)\S*viking://\S*")
SCHEME = "viking://"
# The trailing segments of a path that must match when the path is longer: a file and its folder.
MATCHED_SEGMENTS = 2
# How surely a viking:// URI names its own place: above any path's count of matched segments.
EXACT = 1 << 16
# Records of the store's URIs a query's file names are looked for in (a file's chunks, a split
# document's sections): enough for a few files, never a scan of a whole folder.
LOOKUP = 200
# The most files one name may pick out and still say which is meant: a few projects of one layout.
SAME_NAME = 3


# An identifier as code spells it, a name whose words are joined (ov.index.code: the index's notion of
# a compound name): by "_" (parse_time, _files_of, QUERY_CHARS, __init__), or by a change of case
# (WriteLock, hasTopic, iOS, HTTPServer). Not a word of a path ("src/my_app/", "myApp/src"), nor an
# emoji's name (":smile_cat:"); a leading "_" alone is emphasis in prose (_really_), not a name.
IDENTIFIER = LazyPattern(
    rf"(?<![\w/.:])(?={NAME_CHAR}*?(?:{JOINED})){NAME}(?![\w$/])|(?<![\w/])(?={NAME_CHAR}*?(?:{CASED})){NAME}(?![\w$/])"
)
# A dotted name: ``WriteLock.acquire``, ``Store::open``, ``ov.hosts.recall``.
_DOTTED = LazyPattern(r"(?<![\w/.:])[A-Za-z_]\w*(?:(?:\.|::)[A-Za-z_]\w*)+(?![\w/])")
_PARTS = LazyPattern(r"\.|::")


def identifiers(query: str) -> frozenset[str]:
    """The identifiers ``query`` spells (:data:`IDENTIFIER`), in lower case; of a dotted name, its
    last part, when a part is an identifier: what is asked about (``WriteLock.acquire``:
    ``acquire``, not the class's line; ``self.handle`` and ``os.path.join`` are words)."""
    found = {name.group().lower() for name in IDENTIFIER.finditer(_DOTTED.sub(" ", query))}
    for dotted in _DOTTED.finditer(query):
        parts = _PARTS.split(dotted.group())
        if any(IDENTIFIER.fullmatch(part) for part in parts):
            found.add(parts[-1].lower())
    return frozenset(found)


class Named(NamedTuple):
    """What a query names (:func:`named_paths`)."""

    # Paths and file names in lower case, their segments, by their last segment (the name).
    tails: dict[str, tuple[tuple[str, ...], ...]]
    # viking:// URIs as written, without a trailing slash.
    places: tuple[str, ...]
    # The folders whose records a path names, by the folder's name: a folder's path ("src/"; not
    # the file it names), a document's folder of sections ("docs/hosts.md": docs/hosts). Each
    # with whether it stands for a file (a document's sections are the document).
    within: dict[str, tuple[tuple[tuple[str, ...], bool], ...]]
    # Each word that names a file, as its lower-case segments, with the regular expression (tantivy's
    # syntax) for that file's URIs, a document's sections included: see :func:`lookup_patterns`.
    files: dict[tuple[str, ...], str]
    # Each word that names a folder, the same way: the regular expression for the folder's store
    # path, which counts the folders of that name (:func:`ambiguous`).
    folders: dict[tuple[str, ...], str]
    # The line named after a file's word (`shop/cart.py:40`, a traceback's frame), by its segments.
    lines: dict[tuple[str, ...], int]

    def __bool__(self) -> bool:
        return bool(self.tails or self.places)


@functools.lru_cache(maxsize=8)  # a search ranks each query of its plan a dozen times
def named_paths(query: str, ambiguous: frozenset[tuple[str, ...]] = frozenset()) -> Named:
    """The paths, file names and ``viking://`` URIs ``query`` holds, but for the words of
    ``ambiguous`` (segments as in :attr:`Named.files`: names too many files share). Cached, so
    the answer is shared: read it, never change it."""
    tails: dict[str, dict[tuple[str, ...], None]] = {}
    files: dict[tuple[str, ...], str] = {}
    folders: dict[tuple[str, ...], str] = {}
    within: dict[str, dict[tuple[tuple[str, ...], bool], None]] = {}
    places: dict[str, None] = {}
    lines: dict[tuple[str, ...], int] = {}
    # In NFC, as the store's paths are: a name typed decomposed (as macOS gives a file's name dragged
    # into a terminal) has combining marks, which are no word characters, and named nothing.
    for match in _CANDIDATE.finditer(nfc(query)):
        word, place, line = _read(match.group())
        if place:
            if word:
                places[word] = None
            continue
        if not word:
            continue
        if "\\" in word:
            word = word.replace("\\", "/")
        parts = [p for p in word.split("/") if p not in ("", ".", "..", "~") and not _DRIVE.match(p)]
        if not parts or ("/" not in word and not _FILE_NAME.fullmatch(parts[-1])):
            continue
        wanted = tuple(p.lower() for p in parts)
        if wanted in ambiguous:
            continue
        tails.setdefault(wanted[-1], {})[wanted] = None
        if not _FILE_NAME.fullmatch(wanted[-1]):
            within.setdefault(wanted[-1], {})[(wanted, False)] = None
            folders[wanted] = f"(?i:(?:.*/)?{_escaped(wanted[-MATCHED_SEGMENTS:])})"
            continue
        files[wanted] = _file_pattern(wanted[-MATCHED_SEGMENTS:])
        if line:
            lines.setdefault(wanted, line)
        if stem := _document_stem(wanted[-1]):
            tails.setdefault(f"{stem}.md", {})[(*wanted[:-1], f"{stem}.md")] = None
            within.setdefault(stem, {})[((*wanted[:-1], stem), True)] = None
            files[wanted] += "|" + _file_pattern((*wanted[:-1], f"{stem}.md")[-MATCHED_SEGMENTS:], numbered=True)
            files[wanted] += "|" + _file_pattern((*wanted[:-1], stem)[-MATCHED_SEGMENTS:], below=True, numbered=True)
    return Named(
        {name: tuple(found) for name, found in tails.items()},
        tuple(places),
        {name: tuple(found) for name, found in within.items()},
        files,
        folders,
        lines,
    )


def _file_pattern(segments: tuple[str, ...], *, below: bool = False, numbered: bool = False) -> str:
    """The URIs, in any place and any case, that end with ``segments`` (or, ``below``, those under
    them: a document's sections, never a file of the folder's name; ``numbered``, also with the
    number ingest gives a document whose name was taken: ``hosts_2/``, ``hosts_2.md``)."""
    path = _escaped(segments)
    if numbered:
        stem, dot, ext = segments[-1].rpartition(".") if "." in segments[-1] else (segments[-1], "", "")
        path = _escaped((*segments[:-1], stem)) + _NUMBER + (_escaped((f".{ext}",)) if dot else "")
    return f"(?i:viking://(?:.*/)?{path}{'/' + SECTION if below else ''})"


def _unnumbered(segment: str) -> str:
    """``segment`` without the number ingest gives a document whose name another took (``hosts_2``:
    ``hosts``; ``hosts_2.md``: ``hosts.md``, :class:`ov.ingest.model.Layout`)."""
    stem, dot, ext = segment.rpartition(".") if "." in segment else (segment, "", "")
    head, sep, number = stem.rpartition("_")
    return f"{head}{dot}{ext}" if sep and head and number.isdigit() else segment


def files_among(uris: Collection[str], wanted: tuple[str, ...]) -> int:
    """How many files ``uris`` (those :attr:`Named.files` gives ``wanted``'s pattern) are: a split
    document's sections are one file, its folder of sections."""
    name = wanted[-1]
    stem = _document_stem(name)
    ends = {name, f"{stem}.md"} if stem else {name}
    files = set()
    for uri in uris:
        segments = uri.lower().rstrip("/").split("/")
        folder = next((end for end in range(len(segments) - 1, 0, -1) if _unnumbered(segments[end]) == stem), None) if stem else None
        if _unnumbered(segments[-1]) in ends or folder is None:
            files.add(tuple(segments))
        else:  # a section: its document is the folder named after the stem (hosts/, hosts_2/)
            files.add(tuple(segments[: folder + 1]))
    return len(files)


def ambiguous(named: Named, uris_matching, folders_matching) -> frozenset[tuple[str, ...]]:
    """The words of ``named`` that name more than :data:`SAME_NAME` files or folders, by
    ``uris_matching(pattern, limit)`` (the URIs of the records a pattern matches) and
    ``folders_matching(pattern, most)`` (the folders a pattern matches): names that do not say which
    file or folder is meant."""
    files = (wanted for wanted, pattern in named.files.items() if files_among(uris_matching(pattern, LOOKUP), wanted) > SAME_NAME)
    folders = (wanted for wanted, pattern in named.folders.items() if len(folders_matching(pattern, SAME_NAME + 1)) > SAME_NAME)
    return frozenset((*files, *folders))


def _read(word: str) -> tuple[str, bool, int]:
    """A word of a query as a path: the path ("" for none), whether it is a ``viking://`` place
    (then in full, without a trailing slash), and the line written after it (0 for none)."""
    if "](" in word:
        word = word.rsplit("](", 1)[1]  # a Markdown link: its target is the path
    word = word.strip(_AROUND).rstrip(".:").strip(_AROUND)  # "(see x.md)." and "[x](x.md):"
    place = word.startswith(SCHEME)
    if place:
        word = word[len(SCHEME) :]
    elif "://" in word:
        return "", False, 0  # a web address names no file of the store
    word = word.partition("::")[0] if not place else word  # a pytest id: its file
    found = _LINE.search(word)
    line = int(found.group("line") or found.group("anchor")) if found else 0
    word = (word[: found.start()] if found else word).partition("#")[0].rstrip(".:")
    if place:
        return (SCHEME + word.rstrip("/") if word.strip("/") else ""), True, line
    return word, False, line


def query_words(query: str, places: Collection[str]) -> str:
    """``query`` without the ``viking://`` URIs that spell one of ``places`` (those the store holds
    something at), and without the line after a file's name (``cart.py:40``: a place in the file,
    not a word of it): the words it is ranked by. A URI that leads nowhere stays words ("what is
    viking://user/ for?" asks about the address itself). See the module docstring."""
    if places and SCHEME in query:
        query = _PLACE_WORD.sub(lambda found: " " if _read(found.group())[0] in places else found.group(), query)
    if not named_paths(query).lines:
        return query
    return _CANDIDATE.sub(lambda found: _LINE_IN_WORD.sub("", found.group()) if _read(found.group())[2] else found.group(), query)


def without_names(text: str) -> str:
    """``text`` without its words that name a file, a folder or a ``viking://`` place (those
    :func:`named_paths` reads)."""
    return _CANDIDATE.sub(lambda found: " " if named_paths(found.group()) else found.group(), text)


def naming(uri: str, named: Named) -> list[tuple[str, ...]]:
    """The paths of ``named`` (lower-case segments) that name the file or folder ``uri`` (their last
    segments are its), a document's folder of sections included."""
    segments = uri.removeprefix(SCHEME).lower().rstrip("/").split("/")
    found = [wanted for wanted, _mine in _spelled(segments, named.tails, lambda wanted: bool(_document_stem(wanted[-1]))) if _matched(_mine, wanted)]
    for end in range(len(segments)):
        found += [wanted for (wanted, _file), mine in _spelled(segments[: end + 1], named.within, lambda entry: entry[1]) if _matched(mine, wanted)]
    return found


def line_named(uri: str, named: Named) -> int:
    """The line ``named`` names in the file at ``uri`` (``shop/cart.py:40``, a traceback's frame),
    by the path that names it most surely; 0 for none."""
    if not named.lines:
        return 0
    segments = uri.removeprefix(SCHEME).lower().rstrip("/").split("/")
    best = (0, 0)
    for wanted, line in named.lines.items():
        if matched := _matched(segments, wanted):
            best = max(best, (matched, line))
    return best[1]


def place_pattern(place: str) -> str:
    """A regular expression (tantivy's syntax) for the URIs at ``place`` and below it."""
    return f"{_escaped((place,))}(?:/.*)?"


def names(uri: str, named: Named, *, folder: bool = False) -> int:
    """How surely ``named`` (from :func:`named_paths`) names the place ``uri``: 0 not at all, else
    how many segments of a path the URI (or the folder holding it) ends with (at least
    :data:`MATCHED_SEGMENTS`, or all of a shorter path's), or :data:`EXACT` for a ``viking://`` URI
    that is the place or holds it. ``folder``: ``uri`` is a folder's (its summary's record)."""
    return match(uri, named, folder=folder)[0]


def match(uri: str, named: Named, *, folder: bool = False) -> tuple[int, bool]:
    """:func:`names`, and whether what names ``uri`` is a file (or a document's section), not a folder
    holding it: a file named is wanted whatever the query's words say of it.

    A document's name (``hosts.md``) names its folder of sections (``hosts/``, ``hosts_2/``) and
    what is in it, never a file of the stem's name (``hosts``, ``/etc/hosts`` added as it is): a
    record at the stem's place is the document only when it is a folder's (``folder``), and one
    below it only when it is a section (``01_Intro.md``). The source's own folder ``hosts/``, beside
    which the document became ``hosts_2/``, holds no sections: its files are not the document.
    (Whether a folder's own record is a document's is for :data:`SECTION` to tell, in the index.)"""
    for place in named.places:
        name = place.rsplit("/", 1)[-1]
        spelled = [(place, True)]
        if stem := _document_stem(name):
            spelled += [(f"{place[: -len(name)]}{stem}", folder), (f"{place[: -len(name)]}{stem}.md", True)]
        for at, itself in spelled:
            if (itself and uri.rstrip("/") == at) or uri.startswith(at + "/"):
                return EXACT, bool(_FILE_NAME.fullmatch(name))
    segments = uri.removeprefix(SCHEME).lower().rstrip("/").split("/")
    best = (0, False)
    for wanted, mine in _spelled(segments, named.tails, lambda wanted: bool(_document_stem(wanted[-1]))):
        matched = _matched(mine, wanted)
        if matched:
            best = max(best, (matched, bool(_FILE_NAME.fullmatch(wanted[-1]))))
    if named.within:
        for end in range(len(segments)):
            for (wanted, file), mine in _spelled(segments[: end + 1], named.within, lambda entry: entry[1]):
                if file and end == len(segments) - 1 and not folder:
                    continue  # a file of a document's stem (``hosts`` for ``hosts.md``) is not that document
                if file and end < len(segments) - 1 and not _SECTION.match(segments[end + 1]):
                    continue  # in a folder of the stem's name that is not the document's (``hosts/`` beside ``hosts_2/``)
                matched = _matched(mine, wanted)
                if matched:
                    best = max(best, (matched, file))
    return best


def _spelled(segments: list[str], by_name: dict, document) -> list:
    """The entries of ``by_name`` (by a last segment) for a path ending with ``segments``, each with
    the segments it is matched against: the path as it is, and for an entry ``document`` says is a
    document's, the path without the number ingest gives a document whose name was taken
    (``hosts_2/``: ``hosts.md``'s sections, another file being ``hosts``)."""
    out = [(entry, segments) for entry in by_name.get(segments[-1], ())]
    plain = _unnumbered(segments[-1])
    if plain != segments[-1]:
        mine = [*segments[:-1], plain]
        out += [(entry, mine) for entry in by_name.get(plain, ()) if document(entry)]
    return out


def lookup_patterns(named: Named) -> list[str]:
    """Regular expressions (tantivy's syntax, matched against a record's whole URI) for the files
    ``named`` names, a document's sections included, wherever they are: what finds a file the query
    names when its words do not. One a file: tantivy refuses a pattern past 1,000 states, which the
    names of three documents joined in one passed (a query naming them failed), and a file's own
    is the one :func:`ambiguous` already looked up. None for a folder: its words find it."""
    patterns = list(named.files.values())
    for place in named.places:
        name = place.rsplit("/", 1)[-1]
        if _FILE_NAME.fullmatch(name):
            pattern = _escaped((place,))
            if stem := _document_stem(name):
                pattern += f"|{_escaped((place[: -len(name)] + stem,))}(?:\\.md|/{SECTION})"
            patterns.append(pattern)
    return patterns


def sections_pattern(folder_uri: str) -> str:
    """A regular expression (tantivy's syntax) for the sections of a document stored as the folder
    ``folder_uri``: what a folder named after a document (``hosts/``) holds when it is the document."""
    return f"{_escaped((folder_uri.rstrip('/'),))}/{SECTION}"


def _escaped(segments: tuple[str, ...]) -> str:
    """``segments`` as a literal of the index's (Rust) regular expressions: ASCII punctuation
    escaped but ``<`` and ``>`` (``\\<`` is a word's start there) and any other character as it
    is (escaping one not ASCII is an error there: a prompt naming ``…/big.txt`` failed its find)."""
    return "/".join("".join(f"\\{c}" if c.isascii() and not (c.isalnum() or c in "_/:<>") else c for c in segment) for segment in segments)


def _matched(segments: list[str], wanted: tuple[str, ...]) -> int:
    """How many of ``wanted``'s last segments ``segments`` ends with: 0 when fewer than
    :data:`MATCHED_SEGMENTS` (or all of a shorter path)."""
    matched = 0
    for mine, theirs in zip(reversed(segments), reversed(wanted)):
        if mine != theirs:
            break
        matched += 1
    return matched if matched >= min(len(wanted), MATCHED_SEGMENTS) else 0


def _document_stem(name: str) -> str | None:
    """The stem of a document ingest splits (``hosts.md``: ``hosts``), else None."""
    stem, dot, ext = name.rpartition(".")
    return stem if dot and stem and f".{ext.lower()}" in DOCUMENT_EXTENSIONS else None
