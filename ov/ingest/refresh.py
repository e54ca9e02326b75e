"""Adding a source again: which import it refreshes, and what of that import it may touch.

An import's folder holds two kinds of things: what the source's adds wrote there, and what the
user made there since (an ``ov edit`` of a file, an ``ov write`` of a note beside the documents, an
``ov mkdir --description``). The rule of a refresh is one: it writes and removes only files an
earlier add of the source wrote and that still hold what that add wrote. The manifest
(``.sources.json``) records, for each file, the git blob id of the bytes the add wrote (``blob``);
a file whose blob is another the user changed. Then:

- the source did not change it either: the user's text is kept (``kept``);
- the source changed it too: the user's text is kept, nothing is written over it, and the add
  names it (``conflicts``);
- the source no longer has it: it is kept, and now the user's (no longer in the manifest);
- a file the manifest does not name (the user's own) is never written over: a new source file
  of its name is a conflict, not added.

A manifest an older ov wrote names no blobs: the tree of the last ``add-resource`` commit of the
import root says what that add wrote (one walk of the history, at the first refresh only).

Where a refresh goes: the import of the same source, wherever it is. ``--to`` or ``--parent``
naming it refreshes it; an add with neither finds it (after an ``ov mv`` of its root, or made
with ``--to``) rather than make a second copy. Its recorded ``--include``/``--exclude`` hold
unless new ones are given. Resources go under ``viking://resources/`` or ``viking://~/resources/``
only: a document stored among memories would be injected as one (:func:`refuse_place`).
"""

from __future__ import annotations

import os
from typing import Literal

from ov.errors import AlreadyExists, InvalidInput, NotADirectory, NotFound, OvError, proposal, quote
from ov.ingest.origin import read_manifest, recorded_source
from ov.ingest.sources import Collected, folder_name, is_url, kept_url, local_source
from ov.names import is_git_name
from ov.store import sidecar
from ov.store.store import trailers
from ov.uri import VikingURI, is_stored_segment

# The key of a manifest's file entry that holds the git blob id (hex) of the bytes the add wrote.
BLOB = "blob"
# How many commits, newest first, are read for the last add of an import an older ov made.
_HISTORY_READ = 5000

Verdict = Literal["add", "same", "update", "kept", "conflict", "theirs"]

PLACES = "resources go under viking://resources/ or viking://~/resources/"


def refuse_place(target: VikingURI) -> None:
    """Refuse a ``--to`` or ``--parent`` outside the resource folders (bad input, before any I/O): a
    document under ``memories/`` is injected as one of the user's preferences, one under
    ``sessions/`` is a folder that is no session, one under ``skills/`` a skill with no SKILL.md."""
    if target.scope == "resources" or (target.scope == "user" and len(target.parts) >= 3 and target.parts[2] == "resources"):
        return
    raise InvalidInput(f"{target} is no place for a resource: {PLACES}", hint="name a folder there with {to}, or one to add inside with {parent}", arguments={"to", "parent"})


class Earlier:
    """What the earlier adds of a source wrote in its import at ``root``, to tell it from what the
    user made there since (see the module's docstring)."""

    def __init__(self, store, root: VikingURI, manifest: dict) -> None:
        self.git = store.git
        files = manifest.get("files")
        self.files: dict = files if isinstance(files, dict) else {}
        self.blobs: dict[str, bytes] = {}
        unrecorded = False
        for rel, entry in self.files.items():
            blob = entry.get(BLOB) if isinstance(entry, dict) else None
            if isinstance(blob, str) and len(blob) == 40:
                self.blobs[rel] = blob.encode("ascii")
            else:
                unrecorded = True
        if unrecorded:
            last = _last_add(store, root)
            self.blobs = {rel: last[rel] for rel in self.files if rel in last} | self.blobs

    def verdict(self, rel: str, current: bytes | None, new: bytes) -> Verdict:
        """What a refresh does with the file at ``rel`` that holds ``current`` (None: none there)
        and that the source now lays out as ``new``."""
        if current is None:
            return "add"
        if current == new:
            return "same"
        if rel not in self.files:
            return "theirs"  # a file the user made: never the source's to write over
        written = self.blobs.get(rel)
        if written is None or self.git.blob_id(current) == written:
            return "update"  # as the last add left it (or no record says otherwise)
        return "kept" if self.git.blob_id(new) == written else "conflict"

    def removable(self, rel: str, current: bytes) -> bool:
        """Whether the file at ``rel``, gone from the source, still holds what the last add wrote."""
        written = self.blobs.get(rel)
        return written is None or self.git.blob_id(current) == written

    def entry_blob(self, rel: str, verdict: Verdict, new: bytes) -> str:
        """The blob the manifest records for ``rel``: what the add wrote, or for a file the user
        changed, what the last add wrote (so the next refresh still tells it as the user's)."""
        if verdict in ("kept", "conflict") and rel in self.blobs:
            return self.blobs[rel].decode("ascii")
        return self.git.blob_id(new).decode("ascii")


def _last_add(store, root: VikingURI) -> dict[str, bytes]:
    """{path below ``root``: blob id} of the tree of the newest ``add-resource`` commit of ``root``
    (a manifest an older ov wrote names no blobs); {} when none is found among the newest commits."""
    git = store.git
    head = git.head() if git.exists else None
    if head is None:
        return {}
    wanted = str(root)
    for entry in git.repo.get_walker(include=[head], max_entries=_HISTORY_READ):
        found = trailers(entry.commit)
        if ("Ov-Command", "add-resource") in found and ("Ov-Uri", wanted) in found:
            prefix = root.path + "/"
            return {path[len(prefix) :]: sha for path, sha in git.iter_files(entry.commit.tree, root.path) if path.startswith(prefix)}
    return {}


def earlier_file(root: VikingURI, rel: str) -> VikingURI | None:
    """The URI of a file an earlier add recorded in the manifest, to remove it; None when ``rel``
    is no name ov ever stored. An older ov stored a source's names as they were: ``"todo "``
    (before the whitespace rule) and ``git~1`` (a name git reserves, before ov refused those);
    adding the folder again replaces them with ``todo`` and ``git_1``. Only the file's own name
    may be reserved (a folder so named was never written)."""
    parts = tuple(rel.split("/"))
    if all(is_stored_segment(part) for part in parts[:-1]) and (is_stored_segment(parts[-1]) or is_git_name(parts[-1])):
        return VikingURI(root.parts + parts)
    return None


# --- where ----------------------------------------------------------------------


def import_root(store, collected: Collected, target: VikingURI | None, exact: bool, under_parent: bool) -> VikingURI:
    """The folder an add of ``collected`` writes: ``target`` itself (``--to``), a new folder in
    ``target`` (``--parent``) or in ``viking://resources/``; an earlier import of the same source
    there is refreshed, and with neither option one anywhere among the resources is."""
    if exact:
        assert target is not None
        store.require_content_uri(target)
        if store.path(target).exists() and not same_source(read_manifest(store, target), collected):
            raise _added_from_elsewhere(target, read_manifest(store, target), collected, exact=True)
        return target
    if under_parent:
        assert target is not None
        path = store.path(target)
        if not path.exists() and not (target.is_root or len(target.parts) == 1):
            raise no_parent(target)
        if path.exists() and not path.is_dir():
            raise NotADirectory(f"{target} is a file")
        root = VikingURI((*target.parts, collected.name))
        places = [target]
    else:
        root = VikingURI(("resources", collected.name))
        places = [VikingURI(("resources",)), store.uri("viking://~/resources")]
    store.require_content_uri(root)
    exists = store.path(root).exists()
    if exists and same_source(read_manifest(store, root), collected):
        return root
    found = imports_of(store, collected, places)
    if len(found) == 1:
        return found[0]  # made under another name: with --to, moved, or by an older ov (a URL)
    if found:
        shown = ", ".join(str(uri) for uri in found[:5])
        raise AlreadyExists(
            f"{collected.uri} was added {len(found)} times ({shown}): which to add again is not clear",
            hint="name the one to refresh with {to}",
            arguments={"to"},
        )
    if exists:
        raise _added_from_elsewhere(root, read_manifest(store, root), collected)
    return root


def imports_of(store, collected: Collected, places: list[VikingURI]) -> list[VikingURI]:
    """The import roots below ``places`` whose manifest says they were added from ``collected``'s
    source (each folder with a manifest; folders only are listed, no file is read but manifests)."""
    found: list[VikingURI] = []
    pending = [(store.path(place), place) for place in places]
    while pending:
        folder, uri = pending.pop()
        try:
            with os.scandir(folder) as entries:
                children = sorted(e.name for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for name in reversed(children):
            if not is_stored_segment(name):
                continue
            child = VikingURI((*uri.parts, name))
            source = recorded_source(os.path.join(folder, name, sidecar.MANIFEST))
            if source is not None and same_source({"source": source}, collected):
                found.append(child)
            pending.append((os.path.join(folder, name), child))  # an import may hold another (--parent)
    return sorted(found, key=str)


def same_source(manifest: dict, collected: Collected) -> bool:
    """Whether the manifest of a folder says it was added from ``collected``'s source."""
    source = manifest.get("source")
    recorded = source.get("uri") if isinstance(source, dict) else None
    if recorded == collected.uri or not isinstance(recorded, str):
        return recorded == collected.uri
    if collected.kind == "http":
        # An older ov recorded a URL as given (its secrets, its password): the same source still.
        return kept_url(recorded)[0] == collected.uri
    # An older ov recorded a path as given (`/x/other/../src/docs`, a linked folder above it).
    return local_source(recorded) == collected.uri


def refresh_patterns(
    store, source: str, target: VikingURI | None, exact: bool, under_parent: bool, include: tuple[str, ...], exclude: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``include`` and ``exclude`` as an add of ``source`` applies them: each as given, else, for a
    folder added before, as its earlier add recorded them (a refresh that forgot an ``--exclude``
    would add what the user kept out: a credentials note, say). An option given empty
    (``--exclude ''``) records none. Read before the folder is: its name and path only; nothing
    recorded is used where the add is refused (the add says why)."""
    if (include and exclude) or is_url(source) or not os.path.isdir(source):
        return include, exclude
    path = local_source(source)
    collected = Collected(folder_name(path), "directory", path)
    try:
        manifest = read_manifest(store, import_root(store, collected, target, exact, under_parent))
    except OvError:
        return include, exclude
    if not same_source(manifest, collected):
        return include, exclude
    return include or _patterns(manifest.get("include")), exclude or _patterns(manifest.get("exclude"))


def _patterns(value) -> tuple[str, ...]:
    return tuple(p for p in value if isinstance(p, str) and p.strip()) if isinstance(value, list) else ()


def no_parent(target: VikingURI) -> NotFound:
    return NotFound(f"{target} does not exist", hint=f"create it with `ov mkdir {target}`, or name a new folder with {{to}}", arguments={"to"})


def _added_from_elsewhere(root: VikingURI, manifest: dict, collected: Collected, exact: bool = False) -> AlreadyExists:
    """The refusal to add ``collected`` where another source's folder is (or a folder no add
    made): which source that was, and, when it was a local folder that is gone (moved, or a
    linked folder above it pointed elsewhere since: a source is recorded by its real path), how
    to replace it."""
    source = manifest.get("source")
    recorded = source.get("uri") if isinstance(source, dict) else None
    message = f"{root} already exists and was not added from {collected.uri}"
    hint = "choose another place with {to}"
    if isinstance(recorded, str) and recorded:
        message += f" (it was added from {kept_url(recorded)[0] if is_url(recorded) else recorded})"
        if collected.kind != "http" and not is_url(recorded) and not os.path.lexists(recorded):
            hint = f"{recorded} no longer exists: to replace it, {proposal('rm', uri=str(root), recursive=True)} and add again; or {hint}"
    elif exact:
        hint = "{to} names a new location, or an earlier import of the same source; use {parent} to add inside an existing directory"
    return AlreadyExists(message, hint=hint, arguments={"to", "parent"} if exact else {"to"})


Kept = Literal["kept", "conflict", "theirs", "gone"]


def describe(kind: Kept, uri: VikingURI) -> str:
    """Why the file at ``uri`` was not written (or not removed), for the add's ``kept`` and ``conflicts``."""
    shown = quote(str(uri))
    if kind == "conflict":
        return f"{shown} was changed in the store since the last add and at its source too: your text is kept, the source's is not written (to take the source's, remove the file and add again)"
    if kind == "theirs":
        return f"{shown} is a file you made in the import, and the source now has a file of that name: yours is kept, the source's is not added (move yours elsewhere and add again to have both)"
    if kind == "kept":
        return f"{shown} was changed in the store since the last add, and its source did not change: your text is kept"
    return f"{shown} was changed in the store since the last add, and its source is gone: kept, now yours"


def without_blob(entry: dict) -> dict:
    """A manifest's file entry as `ov stat` shows it: where the file came from, not ov's bookkeeping."""
    return {key: value for key, value in entry.items() if key != BLOB}
