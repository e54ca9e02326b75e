"""Where a stored resource file came from, and whether that file still says what the store holds.

An add records each written file's source in its root's manifest (``.sources.json``): the local
path or URL, and for a section of a split document the lines it holds. A project keeps changing
after its add; a prompt block showing a function as it was then, with that copy's line numbers,
passes for the code on disk unless it says otherwise. :func:`drift` tells, for a local source.

The manifest's ``source`` also says which folder an add was of: a hook knows the folder its agent
works in (its ``cwd``), so the resources added from that folder, or from one holding it, are that
project's, and those added from another local folder another project's (:func:`projects`). Search
then answers a file named in a prompt ("update README.md") from the project's own copy first, and
the prompt's block marks what comes from another project (docs/hosts.md).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path, PurePath

from ov.lines import lines_of
from ov.store import sidecar
from ov.uri import VikingURI

# The add's source, as canonical JSON writes the key (ov.files.json_bytes).
_SOURCE_KEY = '\n  "source": '
# Where a manifest's "source" is looked for first: its end (sorted keys: source, then version).
# Read on every prompt: only the resources' top folders and the folders one level below them are
# looked at, and of each manifest only its end (the list of files before it holds one entry a file).
_TAIL = 4096
# How deep below resources/ an added folder's manifest is looked for (resources/shop, resources/work/shop).
_DEPTH = 2
# A source larger than this is not read to compare: a file that big is rarely code an agent edits,
# and the prompt hook has a deadline.
_COMPARED_BYTES = 2 * 1024 * 1024


@dataclass(frozen=True)
class Origin:
    """The source one stored file was written from."""

    source: str  # an absolute local path or an http(s) URL
    lines: tuple[int, int] | None  # the lines of the source a section holds
    shared: bool  # the source was split: other stored files hold its other sections
    added: str  # the path or URL the add was of (the folder, or the file itself)
    entry: dict  # the manifest's entry as it is (kind, uri, lines or pages, title): what `ov stat` shows

    def in_project(self) -> str:
        """The source as the project names it: its path below the folder added (``docs/commands.md``),
        else as it is (a URL, a file added on its own)."""
        if os.path.isabs(self.source) and os.path.isabs(self.added) and self.source != self.added:
            return os.path.relpath(self.source, self.added).replace(os.sep, "/")
        return self.source


def read_manifest(store, root: VikingURI) -> dict:
    """The manifest of the add rooted at ``root``; {} when there is none or it is not JSON."""
    try:
        data = json.loads((store.path(root) / sidecar.MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def origin_of(store, uri: VikingURI) -> Origin | None:
    """Where the stored file ``uri`` was read from: the nearest manifest above it that names it."""
    found = _manifest_above(store, uri)
    return None if found is None else _origin_in(found[1], uri.relative_to(found[0]))


def added_from(store, uri: VikingURI) -> str | None:
    """The path or URL whose add-resource made the folder that holds ``uri`` (the nearest manifest
    above it): what to add again to write that folder anew. None when no add-resource made it."""
    found = _manifest_above(store, uri)
    if found is None:
        return None
    added = _value_at(found[1], _SOURCE_KEY)
    if not isinstance(added, dict):
        try:
            added = json.loads(found[1]).get("source")
        except (ValueError, AttributeError):
            return None
    value = added.get("uri") if isinstance(added, dict) else None
    return value if isinstance(value, str) and value else None


def _manifest_above(store, uri: VikingURI) -> tuple[VikingURI, str] | None:
    """The folder and text of the nearest manifest above ``uri``; None when none is, or it cannot be read."""
    parent = uri.parent
    while parent is not None and not parent.is_root:
        try:
            return parent, _read_text(store.path(parent) / sidecar.MANIFEST)
        except FileNotFoundError:
            parent = parent.parent
        except (OSError, ValueError):
            return None
    return None


def _read_text(path: Path) -> str:
    """The text of the manifest at ``path``, read once while it stays the same file: a prompt's
    block asks for each of its candidates, mostly files of one add whose manifest is megabytes."""
    stat = os.stat(path)
    key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)  # a write replaces the file: a new inode
    cached = _texts.get(str(path))
    if cached is None or cached[0] != key:
        cached = (key, path.read_text(encoding="utf-8"))
        if len(_texts) >= _TEXTS_KEPT:
            _texts.clear()  # a long-lived server meets many adds; a block, a few
        _texts[str(path)] = cached
    return cached[1]


_texts: dict[str, tuple[tuple[int, int, int], str]] = {}
_TEXTS_KEPT = 8


def _origin_in(text: str, rel: str) -> Origin | None:
    """``rel``'s origin in a manifest's ``text``. A project of thousands of files has a manifest of
    megabytes, tens of milliseconds to parse whole, and the prompt hook wants a few entries: ov
    writes it as canonical JSON (ov.files.json_bytes), where a file's entry opens a line at the
    depth of the ``files`` keys, so that line is looked for and only its value read. A manifest
    in another shape (edited by hand) is parsed whole."""
    entry = _value_at(text, f"\n    {json.dumps(rel, ensure_ascii=False)}: ")
    added = _value_at(text, _SOURCE_KEY)
    if isinstance(entry, dict) and isinstance(entry.get("uri"), str) and isinstance(added, dict):
        # The other entries of the same source sit at the same depth, each on a line of its own.
        shared = text.count(f"\n      \"uri\": {json.dumps(entry['uri'], ensure_ascii=False)}") > 1
    else:
        try:
            manifest = json.loads(text)
            files, added = manifest.get("files"), manifest.get("source")
        except (ValueError, AttributeError):
            return None
        entry = files.get(rel) if isinstance(files, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("uri"), str):
            return None
        shared = sum(1 for other in files.values() if isinstance(other, dict) and other.get("uri") == entry["uri"]) > 1
    lines = entry.get("lines")
    span = (lines[0], lines[1]) if isinstance(lines, list) and len(lines) == 2 and all(isinstance(n, int) for n in lines) else None
    root = added.get("uri") if isinstance(added, dict) else None
    return Origin(entry["uri"], span, shared, root if isinstance(root, str) else "", entry)


def _value_at(text: str, key_line: str):
    """The JSON value after ``key_line`` (a key as canonical JSON writes it, with its indent), None
    when there is none or it is not JSON."""
    at = text.find(key_line)
    if at < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text, at + len(key_line))[0]
    except ValueError:
        return None


def drift(store, uri: VikingURI, origin: Origin | None) -> tuple[str, str]:
    """``("changed" | "deleted", source path)`` when the local file ``uri`` was added from (its
    ``origin``, :func:`origin_of`) no longer holds what the store does, ``("", "")`` otherwise (a
    URL, a source not found, the same words).

    Only a source written after the stored copy is read: an add or a checkout writes the copy, so an
    older source is the one it was made from. Its words then decide, not its time (a checkout or an
    editor touches files it does not change); for a section, the lines the manifest says it holds.
    A copy ov changed on the way (a secret redacted, a PDF turned to text) reads as changed only when
    its source was written after the add."""
    if origin is None or not os.path.isabs(origin.source):
        return "", ""
    try:
        copy = store.path(uri)
        written = os.stat(copy).st_mtime
        source = os.stat(origin.source)
    except FileNotFoundError:
        return ("deleted", origin.source) if os.path.exists(store.path(uri)) else ("", "")
    except OSError:
        return "", ""
    if source.st_mtime <= written or source.st_size > _COMPARED_BYTES:
        return "", ""
    try:
        now = Path(origin.source).read_text(encoding="utf-8", errors="replace")
        stored = copy.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "", ""
    if origin.shared and origin.lines:
        first, last = origin.lines
        now = "\n".join(lines_of(now)[first - 1 : last])  # numbered as the manifest numbers them
    return ("", "") if now.strip() == stored.strip() else ("changed", origin.source)


@dataclass(frozen=True)
class Projects:
    """The resources added from local folders, as seen from one working folder (store paths)."""

    home: tuple[str, ...] = ()  # added from the working folder or a folder holding it
    elsewhere: tuple[str, ...] = ()  # added from another local folder: another project's


def projects(store, cwd: str | None) -> Projects:
    """The resources added from a local folder, split by whether that folder holds ``cwd`` (the
    folder a hook's agent works in); nothing for no ``cwd``."""
    if not cwd:
        return Projects()
    here = _resolved(cwd)
    home: list[str] = []
    elsewhere: list[str] = []
    for path, source in added_folders(store):
        folder = _resolved(source)
        (home if here == folder or folder in here.parents else elsewhere).append(path)
    return Projects(tuple(home), tuple(elsewhere))


def added_folders(store) -> list[tuple[str, str]]:
    """(store path, source folder) of each resource added from a local folder."""
    root = VikingURI(("resources",))
    out: list[tuple[str, str]] = []
    pending = [(store.path(root), root.path, 1)]
    while pending:
        folder, path, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                children = sorted((e.name, e.path) for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for name, child in children:
            source = _source_folder(os.path.join(child, sidecar.MANIFEST))
            if source is not None:
                out.append((f"{path}/{name}", source))
            elif depth < _DEPTH:
                pending.append((child, f"{path}/{name}", depth + 1))
    return out


def _source_folder(manifest: str) -> str | None:
    """The local folder the manifest at ``manifest`` says its resource was added from, or None
    (no manifest, another kind of source, unreadable)."""
    source = recorded_source(manifest)
    if source is None or source.get("kind") != "directory":
        return None
    return source["uri"]


def recorded_source(manifest: str) -> dict | None:
    """The ``source`` ({kind, uri}) the manifest at ``manifest`` names, read from its end, or None
    (no manifest, unreadable, no such entry)."""
    try:
        with open(manifest, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(size - _TAIL, 0))
            tail = f.read().decode("utf-8", errors="replace")
            source = _value_at(tail, _SOURCE_KEY)
            if source is None and size > _TAIL:
                f.seek(0)
                data = json.loads(f.read())
                source = data.get("source") if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    if not isinstance(source, dict) or not isinstance(source.get("kind"), str) or not isinstance(source.get("uri"), str):
        return None
    return source


def _resolved(folder: str) -> PurePath:
    try:
        return PurePath(os.path.realpath(folder))
    except (OSError, ValueError):
        return PurePath(folder)
