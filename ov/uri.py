"""``viking://`` URIs: parse, validate, normalise, build.

A :class:`VikingURI` is always canonical: aliases (``~``, ``session``) are
expanded, empty segments and trailing slashes are gone, every segment has
passed the safety rules and is in Unicode NFC, the form ingest gives file names
(a typed ``café`` may arrive composed or decomposed; both must name one file).
Its ``path`` is the file path inside the account's work tree, so a canonical URI
can never point outside the store. The one exception to NFC is a name already
on disk in another form: :func:`from_path` keeps it as it is, and a store
resolves a typed URI to it (:meth:`ov.store.store.Store.on_disk`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ov.errors import QUOTE_MAX_CHARS, InvalidId, InvalidURI, quote
from ov.identity import validate_id
from ov.names import TEMP_MARKER, reserved_reason

SCHEME = "viking://"
PUBLIC_SCOPES = ("agent", "resources", "user")
ALIAS_SCOPES = ("~", "session")
INTERNAL_SCOPES = ("queue", "temp", "upload")
# Names under viking://user/ that are content folders of a user, never user ids
# (unless the current user really has that id).
USER_CONTENT_NAMES = ("memories", "peers", "privacy", "resources", "sessions", "skills")
MAX_SEGMENT_BYTES = 255
# A whole path (segments and slashes, UTF-8). The OS refuses a path over PATH_MAX (4096 bytes
# on Linux) with ENAMETOOLONG, and the account directory comes in front of this one: 3 KiB
# leaves 1 KiB for $OV_HOME/accounts/{account}/.
MAX_PATH_BYTES = 3072
# The longest name ov writes into a directory by itself: ".sources.json" (ingest's manifest; the
# summaries .abstract.md and .overview.md are 12 bytes). A directory ov makes and writes into
# (mkdir's abstract, add-resource's summaries and manifest) is held to MAX_DIR_BYTES, so that what
# it generates there fits within MAX_PATH_BYTES and can be read and restored.
LONGEST_GENERATED_NAME = ".sources.json"
MAX_DIR_BYTES = MAX_PATH_BYTES - 1 - len(LONGEST_GENERATED_NAME)
SANITIZED_MAX_CHARS = 50

_DRIVE_RE = re.compile(r"^[A-Za-z]:")
# C0, DEL, C1, the Unicode line/paragraph separators (str.splitlines breaks on them), and the
# marks that reverse how text is shown (a name would read as another one in every listing).
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_SCOPES_TEXT = ", ".join(PUBLIC_SCOPES)


@dataclass(frozen=True, order=True)
class VikingURI:
    """A canonical URI; ``parts`` are its path segments (empty for the root)."""

    parts: tuple[str, ...] = ()

    def __str__(self) -> str:
        return SCHEME + "/".join(self.parts)

    @property
    def path(self) -> str:
        """The path inside the account work tree (``""`` for the root)."""
        return "/".join(self.parts)

    @property
    def is_root(self) -> bool:
        return not self.parts

    @property
    def scope(self) -> str | None:
        return self.parts[0] if self.parts else None

    @property
    def name(self) -> str:
        return self.parts[-1] if self.parts else ""

    @property
    def parent(self) -> VikingURI | None:
        return VikingURI(self.parts[:-1]) if self.parts else None

    def child(self, name: str) -> VikingURI:
        """This URI with one more segment; every rule of :func:`parse` applies to the result."""
        if not name:
            raise InvalidURI(f"an empty name cannot follow {self}")
        _check_segment(name, str(self))
        parts = (*self.parts, nfc(name))
        # Only the new name is made NFC: this URI may spell a folder as it is stored (decomposed).
        result = _parse(SCHEME + "/".join(parts), None, normalize=False)
        if result.parts != parts:
            raise InvalidURI(f"{quote(name)} is not a valid name under {self}", hint=f"use one of: {_SCOPES_TEXT}" if self.is_root else None)
        return result

    def is_within(self, other: VikingURI) -> bool:
        """True when this URI is ``other`` or lies below it."""
        return self.parts[: len(other.parts)] == other.parts

    def relative_to(self, other: VikingURI) -> str:
        if not self.is_within(other):
            raise ValueError(f"{self} is not within {other}")
        return "/".join(self.parts[len(other.parts) :])


ROOT = VikingURI()


def parse(text: str, user: str | None = None) -> VikingURI:
    """Parse ``text`` into a canonical URI, expanding ``~`` and ``session`` for ``user``."""
    return _parse(text, user, normalize=True)


def _parse(text: str, user: str | None, *, normalize: bool, stored: bool = False) -> VikingURI:
    if not isinstance(text, str) or not text.strip():
        raise InvalidURI("URI is empty", hint=f"URIs look like {SCHEME}resources/notes")
    if text != text.strip() and not stored:
        raise InvalidURI(f"URI {quote(text)} has leading or trailing whitespace")
    if _CONTROL_RE.search(text):
        raise InvalidURI(f"URI {quote(text)} contains a control character (NUL, newline, a text-direction mark, ...)")
    if _SURROGATE_RE.search(text):
        # Bytes that are not UTF-8 on the command line arrive as lone surrogates; they can be
        # neither encoded into a git tree nor printed.
        raise InvalidURI(f"URI {quote(text)} is not valid UTF-8 text")
    if not text.startswith(SCHEME):
        raise InvalidURI(f"{quote(text)} is not a viking:// URI", hint=_scheme_hint(text))
    if "\\" in text:
        raise InvalidURI(f"URI {quote(text)} contains a backslash", hint="separate segments with '/'")
    segments = [nfc(s) if normalize else s for s in text[len(SCHEME) :].split("/") if s]
    if not segments:
        return ROOT
    scope, rest = segments[0], segments[1:]
    if scope == "~":
        if user is None:
            raise InvalidURI("the home alias viking://~ needs a current user")
        segments = ["user", user, *rest]
    elif scope == "session":
        if user is None:
            raise InvalidURI("the session alias viking://session needs a current user")
        segments = ["user", user, "sessions", *rest]
    elif scope in INTERNAL_SCOPES:
        raise InvalidURI(f"scope {quote(scope)} is internal and cannot be addressed", hint=f"use one of: {_SCOPES_TEXT}")
    elif scope not in PUBLIC_SCOPES:
        raise InvalidURI(f"invalid scope {quote(scope)} in {quote(text)}", hint=f"use one of: {_SCOPES_TEXT}")
    for segment in segments:
        _check_segment(segment, text, stored=stored)
    check_path_length(segments, text)
    _check_identity_segments(segments, text, user)
    return VikingURI(tuple(segments))


def parse_stored(text: str, user: str | None = None) -> VikingURI:
    """Like :func:`parse`, but a name may have surrounding whitespace, as a name an older ov
    stored may (:func:`segment_problem`): for a URI typed to reach such a file, never to make one."""
    return _parse(text, user, normalize=True, stored=True)


def build(*segments: str, user: str | None = None) -> VikingURI:
    """Build a canonical URI from path segments (the first one is the scope)."""
    for segment in segments:
        if not segment or "/" in segment:
            raise InvalidURI(f"{quote(segment)} is not a single path segment")
    return parse(SCHEME + "/".join(segments), user)


def from_path(path: str, *, stored: bool = False) -> VikingURI:
    """The URI of a work-tree path; the inverse of :attr:`VikingURI.path`.

    Names are kept as they are on disk, not made NFC: a file a store already holds under a
    decomposed name (written before typed URIs were normalised, or by hand) must stay reachable.
    With ``stored``, for a path an older ov stored (a backup's), a name may have surrounding
    whitespace, as :func:`segment_problem` allows there.
    """
    parts = path.split("/")
    # A user literally named like a content folder ("memories") is allowed in their own path.
    user = parts[1] if len(parts) > 1 and parts[0] == "user" else None
    return _parse(SCHEME + path, user, normalize=False, stored=stored)


UNICODE_TWINS = "one name in two Unicode forms"
CASE_TWINS = "one name in two cases (one file on macOS and Windows)"


def path_twins(paths: Iterable[str]) -> Iterator[tuple[str, str, str]]:
    """(first, second, why) for each two names in one folder of ``paths`` (files, and the folders
    they imply) that one file system takes for one: the same in NFC (:data:`UNICODE_TWINS`: ov
    spells every name NFC, so it never writes both; the second would read as the first) or
    differing only in case (:data:`CASE_TWINS`: ov writes both on Linux, macOS and Windows keep
    one). What an import and a pull take in is held to it."""
    folders: dict[str, set[str]] = {}
    for path in paths:
        parts = path.split("/")
        for i, name in enumerate(parts):
            folders.setdefault("/".join(parts[:i]), set()).add(name)
    for folder, names in sorted(folders.items()):
        by_nfc: dict[str, str] = {}
        by_case: dict[str, str] = {}
        for name in sorted(names):
            key = nfc(name)
            first, why = by_nfc.get(key), UNICODE_TWINS
            if first is None:
                by_nfc[key] = name
                first, why = by_case.setdefault(key.casefold(), name), CASE_TWINS
            if first != name:
                yield (f"{folder}/{first}" if folder else first), (f"{folder}/{name}" if folder else name), why


def nfc(name: str) -> str:
    """``name`` in Unicode NFC: ``café`` typed decomposed (``e`` and a combining accent) becomes
    the one-character ``é`` that ingest and every parsed URI use."""
    if name.isascii():  # its own NFC: the common case loads no Unicode tables
        return name
    import unicodedata

    return unicodedata.normalize("NFC", name)


# What file_place_problem says of a URI no file may have.
A_SCOPE, A_USER_ROOT, A_USER_FOLDER, A_SESSION_FOLDER = "a scope", "a user's root", "reserved for a directory", "reserved for a session's folder"


def file_place_problem(uri: VikingURI) -> str | None:
    """Why no file may be at ``uri`` (one of the constants above), or None: every file a command
    writes, a scan records or a backup restores obeys it."""
    if uri.is_root or len(uri.parts) < 2:
        return A_SCOPE
    if uri.scope == "user" and len(uri.parts) < 3:
        return A_USER_ROOT
    if uri.scope == "user" and len(uri.parts) == 3 and uri.parts[2] in ("memories", "peers", "resources", "sessions", "skills"):
        return A_USER_FOLDER
    if uri.scope == "user" and len(uri.parts) == 4 and uri.parts[2] == "sessions":
        return A_SESSION_FOLDER
    return None


def work_path_problem(path: str, *, stored: bool = False) -> str | None:
    """Why no file may be at the work-tree path ``path``, or None: every name in it a valid
    segment, the whole a URI within the limits, and at a place a file may be. What a scan
    records of a new hand edit is held to it; with ``stored``, the rule for a path already in a
    store, a history or a pack (what a pull, a restore and ``ov fsck`` accept): the names an older
    ov stored are allowed there (:func:`segment_problem`), the escapes never."""
    if not path or "" in path.split("/"):
        return "a name is empty"
    try:
        uri = from_path(path, stored=stored)
    except InvalidURI as exc:
        return exc.message
    place = file_place_problem(uri)
    return f"no file may be there ({place})" if place else None


def standing_folder(uri: VikingURI) -> bool:
    """Whether ``uri`` is a folder the tree of every account has before anything is written to it
    (PRODUCT.md, the tree): a user's root and its folders (``memories`` before the first memory),
    and the agents' ``skills``. Reading one that was never written reads an empty directory."""
    return file_place_problem(uri) in (A_USER_ROOT, A_USER_FOLDER) or uri.parts == ("agent", "skills")


def is_valid_segment(name: str) -> bool:
    """True when ``name`` may appear as one segment of a URI (used to skip odd files on disk)."""
    return segment_problem(name) is None


def segment_problem(name: str, *, stored: bool = False) -> str | None:
    """Why ``name`` cannot be one segment of a URI, or None when it can. With ``stored``, for a
    name already in a store, a history or a pack: surrounding whitespace is allowed there, since
    an older ov stored such names (``"todo "``) and what holds them must still be walked, moved,
    removed, pulled and packed rather than stranded; ov no longer makes them."""
    if not name:
        return "a name is empty"
    try:
        _check_segment(name, name, stored=stored)
    except InvalidURI as exc:
        return exc.message
    return None


def is_stored_segment(name: str) -> bool:
    """True when ``name`` may be one segment of a path already stored (see :func:`segment_problem`)."""
    return segment_problem(name, stored=True) is None


def segment_name(name: str) -> str:
    """``name`` as a valid segment, for a name taken from outside (a file or folder of a source):
    itself when it is one, without its surrounding whitespace when that is all that is wrong
    (``"todo "``), else :func:`sanitize_segment` of it."""
    if name and is_valid_segment(name):
        return name
    trimmed = name.strip()
    if trimmed and not trimmed.startswith(".") and is_valid_segment(trimmed):  # " .env" must not become hidden
        return trimmed
    return sanitize_segment(name)


def sanitize_segment(name: str) -> str:
    """Turn an arbitrary name into a safe segment for generated files.

    Letters of every script, digits, ``-``, ``.`` and ``_`` are kept; runs of
    anything else become one ``_``.
    """
    import unicodedata

    kept = "".join(
        ch if ch.isalnum() or ch in "-._" or unicodedata.category(ch).startswith("M") else "_"
        for ch in unicodedata.normalize("NFC", name)
    )
    cleaned = re.sub(r"_+", "_", kept.replace(TEMP_MARKER, "_ov-tmp-")).strip("_.")
    cleaned = cleaned[:SANITIZED_MAX_CHARS].strip("_.")
    if cleaned in ("", ".", "..") or not is_valid_segment(cleaned):
        return "unnamed"
    return cleaned


def path_bytes(segments: tuple[str, ...] | list[str]) -> int:
    """The length of a path in UTF-8 bytes, its slashes included."""
    return sum(len(s.encode("utf-8")) for s in segments) + max(len(segments) - 1, 0)


def check_path_length(segments: tuple[str, ...] | list[str], text: str) -> None:
    """Refuse a path the file system could not hold (see MAX_PATH_BYTES): what every parsed URI,
    and so every read and restore, is held to."""
    size = path_bytes(segments)
    if size > MAX_PATH_BYTES:
        raise InvalidURI(
            f"the path of {quote(text)} is {size} bytes long",
            hint=f"a path is at most {MAX_PATH_BYTES} bytes of UTF-8; use shorter names or fewer levels",
        )


def check_new_path(segments: tuple[str, ...] | list[str], text: str, *, directory: bool = False) -> None:
    """Refuse a path ov is about to create (a file, or with ``directory`` a directory) whose own
    length, or whose directory's, leaves no room for the summaries ov writes in a directory
    (see MAX_DIR_BYTES): a summary past MAX_PATH_BYTES could never be read or restored."""
    check_path_length(segments, text)
    folder = segments if directory else segments[:-1]
    size = path_bytes(folder)
    if size > MAX_DIR_BYTES:
        shown = text if directory else SCHEME + "/".join(folder)
        raise InvalidURI(
            f"the directory {quote(shown)} is {size} bytes long",
            hint=f"a directory's path is at most {MAX_DIR_BYTES} bytes of UTF-8, to leave room for the summaries "
            f"ov writes in it ({LONGEST_GENERATED_NAME}, .abstract.md) within the {MAX_PATH_BYTES}-byte limit; use shorter names or fewer levels",
        )


def join_new(base: VikingURI, rel: str, *, directory: bool = False) -> VikingURI:
    """``base`` and the relative path ``rel`` below it, for a file (or with ``directory`` a
    directory) ov is about to create from names it did not choose (a source's, a skill's): each
    segment valid, and the whole within :func:`check_new_path`."""
    parts = tuple(rel.split("/"))
    for part in parts:
        problem = segment_problem(part)
        if problem:
            raise InvalidURI(f"{quote(part)} is not a valid name: {problem}")
    joined = VikingURI(base.parts + parts)
    check_new_path(joined.parts, str(joined), directory=directory)
    return joined


def _check_segment(segment: str, text: str, *, stored: bool = False) -> None:
    if segment in (".", ".."):
        raise InvalidURI(
            f"URI {quote(text)} contains a {segment!r} segment",
            hint="relative segments are not allowed; write the full canonical path",
        )
    if "/" in segment or "\\" in segment:
        raise InvalidURI(f"segment {quote(segment)} contains a path separator")
    if _CONTROL_RE.search(segment):
        raise InvalidURI(f"URI {quote(text)} contains a control character (NUL, newline, a text-direction mark, ...)")
    if _SURROGATE_RE.search(segment):
        raise InvalidURI(f"segment {quote(segment)} is not valid UTF-8 text")
    if _DRIVE_RE.match(segment):
        raise InvalidURI(f"URI {quote(text)} has a drive-letter segment {quote(segment)}", hint="drive letters are not allowed")
    size = len(segment.encode("utf-8"))
    if size > MAX_SEGMENT_BYTES:
        raise InvalidURI(
            f"a segment of {quote(text)} is {size} bytes long",
            hint=f"segments are at most {MAX_SEGMENT_BYTES} bytes of UTF-8",
        )
    reason = reserved_reason(segment)
    if reason:
        raise InvalidURI(f"segment {quote(segment)} is reserved: {reason}", hint="choose another name")
    if segment != segment.strip() and not stored:
        # What parse refuses of a whole URI, refused in every segment: a file named "todo "
        # could be stored but its URI never typed back.
        raise InvalidURI(f"segment {quote(segment)} has leading or trailing whitespace", hint="rename it without the surrounding spaces")


def _check_identity_segments(segments: list[str], text: str, user: str | None) -> None:
    if segments[0] != "user" or len(segments) < 2:
        return
    uid = segments[1]
    if uid in USER_CONTENT_NAMES and uid != user:
        raise InvalidURI(
            f"{quote(text)} has no user id",
            hint=f"use 'viking://~/{'/'.join(segments[1:])}' for the current user",
        )
    try:
        for index, kind in _id_places(segments):
            name = segments[index]
            if name.startswith(".") and name.strip("."):
                # ov makes no id starting with '.' (validate_id), but an older ov did (`--user .bob`),
                # and in the last place it is a hidden file of the folder above (sessions/.abstract.md):
                # both must stay addressable, so the rest of the id rules apply to what follows the dots.
                name = name.lstrip(".")
            validate_id(name, kind)
    except InvalidId as exc:
        raise exc.restated(f"{exc.message} in {quote(text)}", InvalidURI) from None


def _id_places(segments) -> list[tuple[int, str]]:
    """(index, kind) of the segments of a ``user`` path that are ids."""
    ids = [(1, "user")]
    if len(segments) >= 4 and segments[2] in ("peers", "sessions"):
        ids.append((3, "peer" if segments[2] == "peers" else "session"))
    return ids


def hidden_ids(uri: VikingURI, *, last: bool = False) -> list[VikingURI]:
    """The folders of ``uri`` that are ids starting with '.': ov no longer makes one (a hidden id
    never shows in `ov ls` or `ov session list`), but an older ov did, and those stay addressable.
    The last name counts only with ``last`` (``uri`` names a folder, not a hidden file)."""
    if uri.scope != "user":
        return []
    end = len(uri.parts) if last else len(uri.parts) - 1
    return [VikingURI(uri.parts[: i + 1]) for i, _ in _id_places(uri.parts) if i < end and uri.parts[i].startswith(".")]


def legacy_name(path: str) -> str | None:
    """What of the stored work-tree path ``path`` ov no longer makes though an older ov did, or
    None: a name with surrounding whitespace, or an id starting with '.'. Such a path is walked,
    moved, removed, pulled and restored as it is (``work_path_problem(stored=True)``); `ov fsck`
    names it, so that it can be renamed."""
    parts = tuple(path.split("/"))
    for part in parts:
        if part != part.strip():
            return f"the name {quote(part)} has surrounding whitespace"
    for folder in hidden_ids(VikingURI(parts)):
        return f"the id {quote(folder.name)} starts with '.'"
    return None


def _scheme_hint(text: str) -> str:
    if "://" in text:
        return f"only {SCHEME} URIs are stored in ov"
    stripped = text.lstrip("/")
    first = stripped.split("/", 1)[0]
    if (first in PUBLIC_SCOPES or first in ALIAS_SCOPES) and len(stripped) <= QUOTE_MAX_CHARS:
        return f"did you mean {SCHEME}{stripped}?"
    return f"URIs look like {SCHEME}resources/notes"
