"""OVPack v3 transfers: moving a subtree (``export``/``import``) or a whole account (``backup``/``restore``)
between stores as one ZIP file, compatible with OpenViking's format (the layout is in :mod:`ov.ovpack.format`).

Export reads blobs from git HEAD, so a pack holds what is committed (hand edits not
yet recorded with ``ov snapshot commit`` are not in it); :mod:`ov.ovpack.writer` writes
the pack. Import and restore check
everything before anything is written -- the pack itself with
:func:`~ov.ovpack.format.read_pack`, then its scope and where it lands --
and then write in one :class:`~ov.store.store.Transaction`: one commit or nothing.

Vectors are derived data in ov (the indices rebuild from the commits), so a pack's
vectors are never written anywhere: ``--vector-mode`` decides whether they must be
present and made by the current embedder (``require``), are accepted when they are
(``auto``), or are ignored (``recompute``).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ov.changes import listed_changes
from ov.errors import (
    AlreadyExists,
    InvalidInput,
    IsADirectory,
    NotADirectory,
    NotFound,
    UnsafeTree,
    quote,
)
from ov.ovpack.format import (
    BACKUP_ROOT,
    EXTENSION,
    RENAME_HINT,
    InvalidPack,
    Pack,
    read_pack,
)
from ov.ovpack.writer import LeftOut, VectorsUnavailable, is_session_path, write_pack
from ov.progress import Progress, counting
from ov.store import sidecar
from ov.store.treepaths import quoted, stored_problem
from ov.summaries.text import fitted_sidecar
from ov.uri import (
    PUBLIC_SCOPES,
    UNICODE_TWINS,
    VikingURI,
    check_path_length,
    from_path,
    nfc,
    parse,
    path_twins,
)

log = logging.getLogger(__name__)

OnConflict = Literal["fail", "overwrite", "skip"]
VectorMode = Literal["auto", "recompute", "require"]
ON_CONFLICT = ("fail", "overwrite", "skip")
VECTOR_MODES = ("auto", "recompute", "require")


@dataclass(frozen=True)
class ExportResult:
    """What an export wrote into a pack."""

    uri: str
    file: str
    files: int
    bytes: int
    records: int
    vectors: int
    package_bytes: int
    commit: str | None
    # Files below the packed folder edited by hand and not committed: a pack holds commits only.
    uncommitted: int = 0
    # {uri, bytes} of files over store.max_file_bytes: an import takes them where it is raised.
    oversized: tuple[dict, ...] = ()
    # Committed files no restore or import takes, written without: the pack is incomplete.
    left_out: tuple[LeftOut, ...] = ()

    def to_dict(self) -> dict:
        return {**self.__dict__, "oversized": list(self.oversized), "left_out": [f.to_dict() for f in self.left_out]}


@dataclass(frozen=True)
class ImportResult:
    """What an import or restore did with a pack."""

    uri: str
    action: str  # imported | overwritten | unchanged | skipped | restored (restore: restored | unchanged)
    files: int
    bytes: int
    vectors: str  # recomputed | none
    commit: str | None
    deleted: int = 0
    kept: int = 0  # restore: files that were already there and were left as they are
    shortened: int = 0  # summaries cut to their layer's limit (L0 256, L1 4,000 characters)
    # A dry run (import): nothing was changed; the URIs that would be new, replaced and deleted.
    dry_run: bool = False
    written: tuple[str, ...] = ()
    replaced: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        out = dict(self.__dict__)
        if not self.dry_run:  # what an import or restore says stays as it was
            for key in ("dry_run", "written", "replaced", "removed"):
                del out[key]
        else:
            out.update(written=list(self.written), replaced=list(self.replaced), removed=list(self.removed))
            out["changes"] = listed_changes(self.written, self.replaced, self.removed)
        return out


# --- export ----------------------------------------------------------------------------


def export(store, uri: VikingURI, dest: Path, *, include_vectors: bool = False, progress: Progress | None = None) -> ExportResult:
    """Write the committed subtree ``uri`` to ``dest`` (a new ``.ovpack``, replaced atomically).
    ``progress`` is told how reading the files and writing the pack go (:mod:`ov.progress`)."""
    if uri.is_root:
        raise InvalidInput("refusing to export viking:// as a subtree", hint="use `ov backup FILE.ovpack` for the whole account")
    if is_session_uri(uri):
        raise InvalidInput(f"{uri} {_session_part(uri)}; sessions are not exported", hint="export memories or resources, or use `ov backup`")
    store.require_content_uri(uri)
    target = _check_destination(store, dest)
    head, files, left_out = _committed_files(store, uri.path)
    if not files and left_out:
        raise _unsafe_only(left_out)
    if not files:
        raise NotFound(f"{uri} does not exist (in the last commit)", hint=f"see what is there with `ov ls {uri.parent}`")
    if [rel for rel, _ in files] == [""]:
        # As `ov abstract FILE` and `ov read DIR`: a URI of the wrong kind, exit 1.
        raise NotADirectory(f"{uri} is a file; export packs a directory", hint=f"export its directory {uri.parent}")
    root = {"name": uri.name, "uri": str(uri), "scope": uri.scope}
    written = write_pack(store, dest, target, root, uri.path, files, head, include_vectors, progress=progress)
    return _exported(root, dest, left_out, head, written, _uncommitted(store, uri.path))


def backup(store, dest: Path, *, include_vectors: bool = False, progress: Progress | None = None) -> ExportResult:
    """Write every committed file of the account (all scopes, all users) to ``dest``: the files
    as the last commit holds them, not the history (``ov push`` carries that). ``progress``: as
    for :func:`export`."""
    target = _check_destination(store, dest)
    head, files, left_out = _committed_files(store, "")
    if not files and left_out:
        raise _unsafe_only(left_out)
    if not files:
        # A pack without files is refused by every reader: such a backup could never be restored.
        raise NotFound("the account holds no committed files: nothing to back up", hint="add something first (`ov add-resource`, `ov remember`)")
    scopes = sorted({rel.split("/", 1)[0] for rel, _ in files})
    root = {"name": BACKUP_ROOT, "uri": "viking://", "scope": "root", "package_type": "backup"}
    written = write_pack(store, dest, target, root, "", files, head, include_vectors, scopes=scopes, progress=progress)
    return _exported(root, dest, left_out, head, written, _uncommitted(store, ""))


def _exported(root: dict, dest: Path, left_out: list[LeftOut], head: str | None, written, uncommitted: int) -> ExportResult:
    return ExportResult(
        uri=root["uri"],
        file=str(dest.absolute()),
        files=written.files,
        bytes=written.bytes,
        records=written.records,
        vectors=written.vectors,
        package_bytes=written.package_bytes,
        commit=head,
        uncommitted=uncommitted,
        oversized=tuple({"uri": f"viking://{path}", "bytes": size} for path, size in written.oversized),
        left_out=tuple(sorted([*left_out, *written.left_out], key=lambda f: f.path)),
    )


def _uncommitted(store, prefix: str) -> int:
    """How many files below ``prefix`` differ from the last commit (edited, added or removed by
    hand): a pack holds what is committed, and the user should hear what it leaves out."""
    from ov.store.worktree import scan

    below = prefix + "/"
    return sum(1 for path in scan(store.git, refresh_index=False).changed_paths if not prefix or path == prefix or path.startswith(below))


# What to do about a path no reader takes (a link, a submodule, ``git~1``) left out of a pack.
UNSAFE_FIX = "remove it from the work tree by hand if it is there, then `ov snapshot commit -m MESSAGE` (which drops it from the last commit)"
TWIN_FIX = "rename or remove it in the work tree by hand (a typed URI reaches its twin only), then `ov snapshot commit -m MESSAGE`"


def _committed_files(store, prefix: str) -> tuple[str | None, list[tuple[str, bytes]], list[LeftOut]]:
    """(HEAD, [(path relative to prefix, blob sha)], left out) of the committed files below
    ``prefix``, in path order. Only the listing: the blobs are read when they are packed, one at a
    time, so that writing a pack holds one file in memory, not all of them. A path that every
    restore and import refuses (``git~1``, which an older ov stored; a symbolic link or a
    submodule, by the rule of a pull) is left out, never packed as a file, so the pack written
    comes back; a name an older ov stored that they take (``"todo "``) is packed."""
    if not store.exists:
        return None, [], []
    git = store.git
    head = git.head()
    entries, left_out = [], []
    for path, mode, sha in git.iter_entries(git.tree_of(head), prefix):
        problem = stored_problem(path, mode)
        if problem is not None:
            left_out.append(LeftOut(path, f"no restore or import takes its path: {problem}", UNSAFE_FIX))
            continue
        entries.append((path, sha))
    twins = _unicode_twins([path for path, _ in entries])
    files = []
    for path, sha in entries:
        twin = next((t for t in _folders_and_self(path) if t in twins), None)
        if twin is not None:
            left_out.append(LeftOut(path, f"{quoted(twin)} and {quoted(twins[twin])} are {UNICODE_TWINS}, and no restore takes both", TWIN_FIX))
            continue
        rel = path[len(prefix) + 1 :] if prefix and path != prefix else ("" if prefix else path)
        files.append((rel, sha))
    return (head.decode() if head else None), sorted(files), left_out


def _unicode_twins(paths: list[str]) -> dict[str, str]:
    """{path left out: its twin packed} for each name (of a file or a folder) held twice, in two
    Unicode forms (plain git commits both; every reader refuses such a pack). The twin spelled in
    NFC is packed: it is the one a typed URI reaches."""
    out = {}
    for first, second, why in path_twins(paths):
        if why == UNICODE_TWINS:
            name = first.rpartition("/")[2]
            out.update({second: first} if nfc(name) == name else {first: second})
    return out


def _folders_and_self(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _unsafe_only(left_out: list[LeftOut]) -> UnsafeTree:
    """Every committed file to pack is one no reader takes: no pack (one without files is refused too)."""
    first = left_out[0]
    more = f" (and {len(left_out) - 1} more: `ov fsck` names them)" if len(left_out) > 1 else ""
    return UnsafeTree(f"the last commit holds {quoted(first.path)}: {first.problem}{more}", hint=f"nothing was written; {first.fix}, then pack again")


def _check_destination(store, dest: Path) -> Path:
    """The file to write for ``dest``: ``dest``, or the file it names when it is a symbolic link.
    A pack is written through a link, as ``tar -f`` or ``zip`` would (a backup linked into a
    synced folder stays there), not over it: the link would become a file of its own."""
    if dest.suffix != EXTENSION:
        raise InvalidInput(f"{dest} does not end in {EXTENSION}", hint=f"name the file like backup{EXTENSION}")
    real = Path(os.path.realpath(dest))
    home = Path(os.path.realpath(store.home.root))
    if real == home or home in real.parents:
        raise InvalidInput(f"{dest} is inside ov's home ({store.home.root})", hint="write the pack somewhere else")
    if real.is_dir():
        raise InvalidInput(f"{dest} is a directory", hint="name a file")
    if not real.parent.is_dir():
        # A local folder, not a store URI (a NotFound's hint is `ov ls`), and bad input, as the
        # CLI says when the folder is named directly: here a link points into it.
        through = f" ({dest} is a link to {real})" if dest.is_symlink() else ""
        raise InvalidInput(f"the folder {real.parent} does not exist{through}", hint=f"create the folder first (`mkdir -p {real.parent}`), or write the pack elsewhere")
    if dest.is_symlink() and real.suffix != EXTENSION:
        # A link to ~/.bashrc named x.ovpack would have the pack replace it.
        raise InvalidInput(f"{dest} is a link to {real}, which does not end in {EXTENSION}", hint="name the pack itself, or link to an .ovpack file")
    return real if dest.is_symlink() else dest.absolute()


# --- import and restore --------------------------------------------------------------------


def import_pack(
    store,
    source: Path,
    parent: VikingURI,
    *,
    on_conflict: OnConflict = "fail",
    vector_mode: VectorMode = "auto",
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportResult:
    """Import the pack at ``source`` as ``parent/ROOT``: one commit, or nothing. ``progress`` is
    told how reading the pack and writing its files go (:mod:`ov.progress`). ``dry_run``: only say
    what would be written, replaced and deleted (every check made, nothing changed)."""
    _check_choice(on_conflict, ON_CONFLICT, "--on-conflict")
    _check_choice(vector_mode, VECTOR_MODES, "--vector-mode")
    pack = read_pack(source, store.config.store.max_file_bytes, progress=progress)
    if pack.is_backup:
        raise InvalidPack(f"{source} is a backup of a whole account", hint=f"bring it back with `ov restore {source}`")
    if pack.scope not in PUBLIC_SCOPES:
        # Neither command takes it: restore would send the user back here.
        raise InvalidPack(f"{source} packs {pack.manifest['root']['uri']}, in a scope nothing is imported into ({pack.scope})", hint=f"a pack holds a folder of {', '.join(PUBLIC_SCOPES)}")
    original = pack.manifest["root"]["uri"]
    target = _subject_root(original, _target(store, pack, parent))
    vectors = _vector_outcome(store, pack, vector_mode)
    # Names as ingest and every typed URI spell them (NFC): a pack made on macOS names café.md
    # decomposed, and kept so it would sit beside a composed one that reads the same.
    uris = {rel: VikingURI((*target.parts, *(nfc(part) for part in rel.split("/")))) for rel in pack.files}
    resubject = _subject_folders(original, target, uris)
    _require_one_file_each(uris, resubject)
    for rel, uri in uris.items():
        try:
            check_path_length(uri.parts, str(uri))  # segments were checked one by one; the whole path too
        except InvalidInput as exc:
            raise exc.restated(f"the pack file {quote(rel)} cannot be stored under {target}: {exc.message}", InvalidPack) from None
    if dry_run:
        # Planned as the import plans it, in a draft: no lock, nothing written, and what the
        # import would refuse (a hand edit below the target, the target there) refused the same.
        with store.draft() as draft:
            plan = _plan_import(draft, pack, original, target, uris, resubject, on_conflict, progress)
            draft.require_clean_plan()
            return _dry_run(draft, target, plan, pack, vectors)
    with store.transaction() as tx:
        plan = _plan_import(tx, pack, original, target, uris, resubject, on_conflict, progress)
        if plan is None:
            return ImportResult(str(target), "skipped", 0, 0, "none", None)
        result = tx.commit("import", [target], progress=progress)
    exists, deleted, shortened = plan
    if exists and result.commit is None:
        # Overwritten with what it already held: nothing was written, and nothing is recomputed.
        return ImportResult(str(target), "unchanged", 0, 0, "none", None)
    return ImportResult(
        str(target), "overwritten" if exists else "imported", len(pack.files), pack.total_bytes, vectors, result.commit, len(deleted), shortened=shortened
    )


def _plan_import(tx, pack: Pack, original: str, target: VikingURI, uris: dict[str, VikingURI], resubject: set[str], on_conflict: str, progress) -> tuple[bool, list[str], int] | None:
    """Put the import's changes in ``tx`` (a transaction, or a draft for a dry run): (whether the
    target existed, the paths deleted, the summaries shortened); None when it is skipped."""
    store = tx.store
    committed = {p for p, _ in tx.git.iter_files(tx.tree, target.path)}
    # A scope's folder is there in every store: it exists when it holds something.
    exists = bool(committed) or (len(target.parts) > 1 and os.path.lexists(store.path(target)))
    if exists and on_conflict == "skip":
        return None
    if exists and on_conflict == "fail":
        raise AlreadyExists(f"{target} already exists", hint="pass --on-conflict overwrite to replace it, or skip to keep it")
    tx.require_clean_tree(target)
    for uri in uris.values():
        tx.require_parent_dirs(uri)
    new_paths = {u.path for u in uris.values()}
    deleted = sorted(committed - new_paths)
    for path in deleted:
        tx.delete(VikingURI(tuple(path.split("/"))))
    shortened = 0
    for rel, uri in counting(uris.items(), progress, "writing files"):
        data = pack.files[rel]
        if uri.name in sidecar.SIDECARS:
            if original != str(target):
                data = sidecar.retarget(data, str(uri.parent))
            data, cut = fitted_sidecar(uri.name, data)
            shortened += cut
        elif rel in resubject:
            data = _with_subject(data, target.parts[1])
        tx.put(uri, data)
    return exists, deleted, shortened


def _dry_run(draft, target: VikingURI, plan: tuple[bool, list[str], int] | None, pack: Pack, vectors: str) -> ImportResult:
    """What an import planned in ``draft`` would do, said path by path, with nothing written."""
    if plan is None:
        return ImportResult(str(target), "skipped", 0, 0, "none", None, dry_run=True)
    exists, deleted, shortened = plan
    written, replaced = [], []
    for path, data in draft.changes.items():
        if data is None:
            continue
        found = draft.git.entry(draft.tree, path)
        if found is None:
            written.append(path)
        elif found[1] != draft.git.blob_id(data):
            replaced.append(path)
    if not written and not replaced and not deleted:
        return ImportResult(str(target), "unchanged", 0, 0, "none", None, dry_run=True)
    # Counted as the import counts them (every file of the pack, those it holds already too), so
    # that the run says the numbers its dry run said; the lists below name what changes.
    return ImportResult(
        str(target),
        "overwritten" if exists else "imported",
        len(pack.files),
        pack.total_bytes,
        vectors,
        None,
        len(deleted),
        shortened=shortened,
        dry_run=True,
        written=tuple(f"viking://{p}" for p in sorted(written)),
        replaced=tuple(f"viking://{p}" for p in sorted(replaced)),
        removed=tuple(f"viking://{p}" for p in deleted),
    )


def _require_one_file_each(uris: dict[str, VikingURI], resubject: set[str] = frozenset()) -> None:
    """Refuse a pack two of whose files would be one in the store: one name in two Unicode forms
    (a typed URI names it in NFC, so the other could never be reached, and `ov ls` lists the name
    twice), with the check a pull makes (:func:`ov.uri.path_twins`), or preferences of two users
    who are one here (``resubject``: the files moved). One name in two cases, one file on macOS
    and Windows (ov writes both on Linux), is said, as a pull says it."""
    for first, second, why in path_twins(uris):
        if why == UNICODE_TWINS:
            raise InvalidPack(f"the pack holds {quote(first)} and {quote(second)}, {why}", hint="rename one of them where the pack was made")
        log.warning("the pack holds %s and %s, %s", quote(first), quote(second), why)
    seen: dict[tuple[str, ...], str] = {}
    for rel, uri in uris.items():
        key = tuple(nfc(part) for part in uri.parts)
        if key in seen:
            why = "preferences of two users who are one here" if rel in resubject or seen[key] in resubject else "one name in two Unicode forms"
            raise InvalidPack(f"the pack holds {quote(seen[key])} and {quote(rel)}, {why}", hint="rename one of them where the pack was made")
        seen[key] = rel


def _subject_folders(original: str, target: VikingURI, uris: dict[str, VikingURI]) -> set[str]:
    """Move a memories pack's preferences to the user it is imported for, in ``uris`` (in place),
    and return the files moved. Preferences are filed under their subject, the user they are about
    (``preferences/alice/``), and are corrected under the user's own name: imported into bob's tree
    as they were, alice's "Prefers tabs" would sit beside bob's next "Prefers spaces" and both be
    injected."""
    try:
        source = parse(original)
    except InvalidInput:
        return set()
    if source.scope != "user" or target.scope != "user" or len(source.parts) < 2 or source.parts[1] == target.parts[1]:
        return set()
    old, new = source.parts[1], target.parts[1]
    moved = set()
    for rel, uri in uris.items():
        whole = (*source.parts, *rel.split("/"))  # where the file was: user/alice/memories/preferences/alice/...
        at = 4 - len(source.parts) + len(target.parts)  # the subject's place in the new path
        if whole[2:5] == ("memories", "preferences", old) and len(whole) > 5 and uri.parts[2:4] == ("memories", "preferences"):
            if len(target.parts) <= at:
                uris[rel] = VikingURI((*uri.parts[:at], new, *uri.parts[at + 1 :]))
            elif target.parts[at] != new:  # the pack's root is the subject's folder: see _subject_root
                continue
            moved.add(rel)
    return moved


def _subject_root(original: str, target: VikingURI) -> VikingURI:
    """Where a pack of one user's own preferences folder (``viking://user/alice/memories/preferences/alice``)
    lands for the user it is imported for: that user's folder, as for a pack of the memories
    above it (:func:`_subject_folders` then sets the files' ``subject``); ``target`` otherwise."""
    try:
        source = parse(original)
    except InvalidInput:
        return target
    own_folder = source.scope == "user" and len(source.parts) == 5 and source.parts[2:4] == ("memories", "preferences") and source.parts[4] == source.parts[1]
    if own_folder and target.parts[2:4] == ("memories", "preferences") and len(target.parts) == 5 and target.parts[1] != source.parts[1]:
        return VikingURI((*target.parts[:4], target.parts[1]))
    return target


def _with_subject(data: bytes, user: str) -> bytes:
    """A memory file's bytes with its trailer's ``subject`` set to ``user``; other files as they are."""
    from ov.sessions.memory.files import parse_memory, render_memory

    try:
        content, meta = parse_memory(data.decode("utf-8"))
    except (UnicodeDecodeError, InvalidInput):
        return data
    if "subject" not in meta:
        return data
    return render_memory(content, {**meta, "subject": user}).encode("utf-8")


def restore(
    store, source: Path, *, on_conflict: OnConflict = "fail", vector_mode: VectorMode = "auto", dry_run: bool = False, progress: Progress | None = None
) -> ImportResult:
    """Bring a backup back into this account: one commit, or nothing.

    ``fail`` refuses when any file of the backup already exists with other content;
    ``overwrite`` creates missing files and replaces existing ones, keeping files only
    the account has (merge-upsert); ``skip`` creates missing files and keeps existing ones.
    ``dry_run``: only say what would be written and replaced (every check made, nothing
    changed). ``progress``: as for :func:`import_pack`.
    """
    _check_choice(on_conflict, ON_CONFLICT, "--on-conflict")
    _check_choice(vector_mode, VECTOR_MODES, "--vector-mode")
    pack = read_pack(source, store.config.store.max_file_bytes, progress=progress)
    if not pack.is_backup:
        raise InvalidPack(f"{source} is not a backup (it packs {pack.manifest['root']['uri']})", hint=f"bring it in with `ov import {source} PARENT_URI`")
    uris = {}
    for rel in pack.files:
        try:
            # Stored, not typed: a name an older ov stored ("todo ") comes back as it was.
            uri = from_path(rel, stored=True)
        except InvalidInput as exc:
            raise InvalidPack(f"the backup holds {quote(rel)}, which is not a path ov can store: {exc.message}", hint=RENAME_HINT) from None
        if uri.scope not in PUBLIC_SCOPES or len(uri.parts) < 2:
            raise InvalidPack(f"the backup holds {quote(rel)}, outside the scopes {', '.join(PUBLIC_SCOPES)}")
        try:
            store.require_file_uri(uri)  # not where a user's folders or a session's must be
        except (InvalidInput, IsADirectory) as exc:
            raise InvalidPack(f"the backup holds {quote(rel)}, which ov cannot store as a file: {exc.message}") from None
        uris[rel] = uri
    _require_one_file_each(uris)
    vectors = _vector_outcome(store, pack, vector_mode)
    files, cut = dict(pack.files), set()
    for rel, uri in uris.items():
        if uri.name in sidecar.SIDECARS:
            files[rel], was_cut = fitted_sidecar(uri.name, files[rel])
            if was_cut:
                cut.add(rel)
    if dry_run:
        # Planned as the restore plans it, in a draft: no lock, nothing written, and what the
        # restore would refuse (a file of the backup there with other content, a hand edit) refused the same.
        with store.draft() as draft:
            writes, kept = _plan_restore(draft, pack, files, cut, uris, on_conflict, progress)
            draft.require_clean_plan()
            new = {rel for rel, uri in writes.items() if draft.git.entry(draft.tree, uri.path) is None}
        if not writes:
            return ImportResult("viking://", "unchanged", 0, 0, "none", None, 0, kept, dry_run=True)
        return ImportResult(
            "viking://", "restored", len(writes), sum(len(files[r]) for r in writes), vectors, None, 0, kept, len(cut & writes.keys()),
            dry_run=True,
            written=tuple(sorted(str(uri) for rel, uri in writes.items() if rel in new)),
            replaced=tuple(sorted(str(uri) for rel, uri in writes.items() if rel not in new)),
        )  # fmt: skip
    with store.transaction() as tx:
        writes, kept = _plan_restore(tx, pack, files, cut, uris, on_conflict, progress)
        result = tx.commit("restore", [VikingURI()], progress=progress)
    if result.commit is None:
        # Every file already there (or kept with --on-conflict skip): nothing written, nothing
        # recomputed, as an import that changes nothing says.
        return ImportResult("viking://", "unchanged", 0, 0, "none", None, 0, kept)
    written = sum(len(files[r]) for r in writes)
    return ImportResult("viking://", "restored", len(writes), written, vectors, result.commit, 0, kept, len(cut & writes.keys()))


def _plan_restore(tx, pack: Pack, files: dict[str, bytes], cut: set[str], uris: dict[str, VikingURI], on_conflict: str, progress) -> tuple[dict[str, VikingURI], int]:
    """Put the restore's writes in ``tx`` (a transaction, or a draft for a dry run): (the files
    written, by their path in the pack; how many were kept as they were)."""
    kept = 0
    conflicts = []
    writes = {}
    for rel, uri in uris.items():
        found = tx.git.entry(tx.tree, uri.path)
        # The backup's own bytes count as the same too: a store that holds a summary over its
        # limit (from before imports cut them) still matches its own backup.
        if found is not None and (found[1] == tx.git.blob_id(files[rel]) or (rel in cut and found[1] == tx.git.blob_id(pack.files[rel]))):
            kept += 1
            continue  # already there, the same
        if found is not None:
            conflicts.append(uri)
            if on_conflict == "skip":
                kept += 1
                continue
        writes[rel] = uri
    if conflicts and on_conflict == "fail":
        shown = ", ".join(str(u) for u in conflicts[:3]) + (f" (+{len(conflicts) - 3} more)" if len(conflicts) > 3 else "")
        raise AlreadyExists(
            f"{len(conflicts)} file(s) of the backup already exist with other content: {shown}",
            hint="pass --on-conflict overwrite to replace them, or skip to keep them",
        )
    for uri in writes.values():
        tx.require_parent_dirs(uri)
        tx.require_clean(uri)
    for rel, uri in counting(writes.items(), progress, "writing files"):
        tx.put(uri, files[rel])
    return writes, kept


def _whole_scope(pack: Pack) -> bool:
    """Whether ``pack`` holds a whole scope (root uri ``viking://resources``), as OpenViking's
    ``export viking://resources`` makes: it imports into ``viking://`` only, as the scope itself."""
    return pack.root == pack.scope and pack.manifest["root"]["uri"].rstrip("/") == f"viking://{pack.scope}"


def _target(store, pack: Pack, parent: VikingURI) -> VikingURI:
    scope = pack.scope
    if scope not in PUBLIC_SCOPES:
        raise InvalidPack(f"the pack's scope {quote(scope)} cannot be imported", hint=f"packs come from {', '.join(PUBLIC_SCOPES)}")
    if _whole_scope(pack):
        # OpenViking's rule (resolve_import_root_uri): below any other parent the scope would
        # land inside itself (viking://resources/resources).
        if scope == "user":
            raise InvalidPack(
                "the pack holds viking://user, every user's tree; ov imports one user's folders",
                hint="export a folder of a user's tree (viking://~/memories), or move a whole account with `ov backup` and `ov restore`",
            )
        if not parent.is_root:
            raise InvalidInput(f"the pack holds the whole scope viking://{scope}, which is imported into viking:// only", hint="import it into viking://")
        return VikingURI((scope,))
    if parent.scope != scope:
        raise InvalidInput(
            f"the pack comes from viking://{scope} and cannot be imported under {parent}",
            hint=f"import it under a viking://{scope}/... parent",
        )
    if is_session_uri(parent):
        raise InvalidInput(f"{parent} {_session_part(parent)}; packs are not imported into sessions")
    try:
        # As the store spells it: a folder of that name stored decomposed is the one meant, not a
        # look-alike to make beside it.
        target = store.on_disk(parent.child(pack.root))
    except InvalidInput as exc:
        raise InvalidPack(f"the pack's root name {quote(pack.root)} is not a valid name: {exc.message}") from None
    store.require_content_uri(target)
    if is_session_uri(target):  # a pack rooted at "sessions" would replace the user's sessions
        raise InvalidInput(f"{target} {_session_part(target)}; packs are not imported into sessions")
    if scope == "user" and target.parts[1] != store.identity.user:
        raise InvalidInput(f"{parent} belongs to another user", hint="import under your own tree, viking://~/...")
    if scope == "user":
        try:
            original = from_path(pack.manifest["root"]["uri"].removeprefix("viking://"))
        except InvalidInput:
            raise InvalidPack(f"the pack's root uri {quote(pack.manifest['root']['uri'])} is not valid") from None
        if original.scope != "user" or len(original.parts) != len(target.parts):
            raise InvalidInput(
                f"the pack came from {original}; under {parent} it would land at a different depth of a user's tree",
                hint="import it under the same kind of folder, e.g. viking://~/" + "/".join(original.parts[2:-1]),
            )
        if original.parts[2:3] != target.parts[2:3]:
            raise InvalidInput(f"the pack came from {original}; it belongs under viking://~/{original.parts[2]}, not {parent}")
    return target


def _vector_outcome(store, pack: Pack, mode: str) -> str:
    """recomputed | none: what happens to vectors. The index embeds the imported records again
    whatever the pack holds: it keeps a vector for every passage of a record (and a message's
    context) where a pack holds one a record, and a pack's vectors cannot be checked against its
    text without embedding it again. ``require`` still refuses a pack whose vectors this store's
    embedder did not make, for a user who relies on that."""
    current = _current_fingerprint(store)
    if mode == "require":
        packed = pack.dense.get("embedding") if pack.dense else None
        if pack.dense is None:
            raise VectorsUnavailable("--vector-mode require: the pack holds no vectors", hint="export it with --include-vectors, or use --vector-mode auto")
        if current is None:
            raise VectorsUnavailable("--vector-mode require: no embedder is configured here", hint="configure the embedder the pack was made with")
        if packed is None or not _same_fingerprint(packed, current):
            raise VectorsUnavailable(
                f"--vector-mode require: the pack's vectors come from {packed}, this store embeds with {current}",
                hint="use --vector-mode auto to recompute them",
            )
    return "recomputed" if current is not None else "none"


def _current_fingerprint(store) -> dict | None:
    from ov.index.sync import Indices

    embedder = Indices(store).resolution.embedder
    return embedder.fingerprint.as_dict() if embedder is not None else None


def _same_fingerprint(a, b: dict) -> bool:
    return isinstance(a, dict) and all(a.get(k) == b.get(k) for k in ("provider", "model", "dimension"))


def is_session_uri(uri: VikingURI) -> bool:
    return is_session_path(uri.path)


def _session_part(uri: VikingURI) -> str:
    """What a URI that is_session_uri is, for a message: ``user/{uid}/sessions`` is the folder
    that holds the sessions, one level down a session, further down a part of one."""
    depth = len(uri.path.split("/"))
    return "is the user's sessions folder" if depth == 3 else "is a session" if depth == 4 else "is inside a session"


def _check_choice(value: str, choices: tuple[str, ...], option: str) -> None:
    if value not in choices:
        raise InvalidInput(f"{option} must be one of {', '.join(choices)}, not {quote(value)}")
