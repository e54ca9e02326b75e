"""An index folder brought from the commit it reflects to another, from the git diff of the two
trees: only the changed paths are read again. A session's messages file is updated record by
record (:func:`changed_records`), every other changed path whole; a change that is most of the
index is left to a rebuild (:func:`rebuilt_rather`, :class:`Rebuild`).

Kill-safe: ``meta.json`` is written last, so an update that dies half-way is undone and replayed.
Before its full-text commit an update writes ``update.json``, the paths it replaces and the vector
labels it removes; the next update deletes the records it added (labelled from the meta's next
label on) and replaces those paths whole as well as the changed ones
(:func:`undo_dead_update`). Without the note the dead update's records stayed wherever the path
was back to the blob it had (a session's messages file, empty again after a commit). Labels and
the vector file generation are only taken over with the new meta, so the vectors are the meta's
own.

The caller holds the index's lock (``state/{account}/index.lock``).
"""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

from ov.files import atomic_write, json_bytes, remove_stale_replacements
from ov.index.folder import FULL_TEXT, META_NAME, READING, Meta
from ov.index.held import HeldVectors
from ov.index.lexical import LexicalIndex
from ov.index.records import Record, committed_records, is_message_log
from ov.index.vector_writes import sweep_vector_files, update_vectors
from ov.progress import Progress, counting
from ov.wording import counted

UPDATE_NAME = "update.json"  # what an update is applying, written before its full-text commit
# A diff of at least this many paths that touches most of the index is applied by a rebuild.
LARGE_DIFF = 1000


class Rebuild(Exception):
    """The change is applied by a rebuild rather than path by path (its message says why)."""


def rebuilt_rather(changed: int, records: int) -> bool:
    """Whether a change of ``changed`` paths to an index of ``records`` is applied by a rebuild."""
    return changed >= LARGE_DIFF and changed > records // 2


def changed_paths(git, meta: Meta, head: str | None) -> int | None:
    """How many files differ between the commit ``meta`` reflects and ``head``; None when that
    commit is not in the repository."""
    old_tree = meta.indexed_tree(git)
    if old_tree is None and meta.commit is not None:
        return None
    new_tree = git.tree_of(head.encode()) if head else None
    return sum(1 for _ in git.repo.object_store.tree_changes(old_tree, new_tree))


def undo_dead_update(root: Path, meta: Meta, lexical: LexicalIndex) -> tuple[set[str], list[int]] | None:
    """For an update that died before its ``meta.json`` (its note in ``update.json`` is about
    ``meta``): its records deleted, and (the paths it replaced, the vector labels it removed),
    for the replay to replace and remove again; None when no update died.

    Replaying only the diff from ``meta.commit`` left its records wherever a path had the same
    blob at both ends (a session's messages file: empty, turns, empty again after a commit),
    and searches returned them until ``ov reindex``. The vectors need no undoing: a vector
    file is only taken over with the new meta.

    The temporary files of its atomic writes (a ``meta.json`` killed before its rename) go
    too: every writer of this folder holds the index lock the caller holds."""
    remove_stale_replacements(root)
    note = _read_note(root / UPDATE_NAME)
    if note is not None and (note.get("commit"), note.get("next_label")) != (meta.commit, meta.next_label):
        note = None  # an update that finished (its meta.json was written, its note not yet removed)
    if note is None:
        if lexical.has_labels_from(meta.next_label):
            # An ov without notes died mid-update: what it removed cannot be told.
            raise Rebuild("an index update was cut short")
        return None
    lexical.delete_labels_from(meta.next_label)
    return set(note["paths"]), list(note["removed"])


def apply_diff(
    git,
    root: Path,
    meta: Meta,
    lexical: LexicalIndex,
    head: str | None,
    *,
    embedder,
    held: HeldVectors,
    progress: Progress | None = None,
    undone: tuple[set[str], list[int]] | None = None,
) -> int:
    """Bring ``lexical`` and the vectors of the index folder ``root`` from ``meta.commit`` to
    ``head``, and write the meta; how many paths changed. ``embedder``: the configured one, which
    makes the vectors of the new records (None: none are made); ``held``: the vectors the
    caller keeps loaded. ``undone``: the paths and vector labels of a dead update
    (:func:`undo_dead_update`), replaced and removed too."""
    old_tree = meta.indexed_tree(git)
    new_tree = git.tree_of(head.encode()) if head else None
    paths: dict[str, tuple[int, bytes] | None] = {}  # path -> its (mode, blob) at HEAD, None: gone
    before: dict[str, tuple[int, bytes]] = {}  # a path's (mode, blob) at the indexed commit, where it had one
    if old_tree is None and meta.commit is not None:
        raise Rebuild("the indexed commit is not in the repository")
    for (old, new), (old_mode, new_mode), (old_sha, new_sha) in git.repo.object_store.tree_changes(old_tree, new_tree):
        if old is not None:
            paths.setdefault(old.decode("utf-8", "surrogateescape"), None)
            if old_mode is not None and not stat.S_ISDIR(old_mode):
                before[old.decode("utf-8", "surrogateescape")] = old_mode, old_sha
        if new is not None and new_mode is not None and not stat.S_ISDIR(new_mode):
            # A link, a submodule, a name not UTF-8: no records (left_out_because)
            paths[new.decode("utf-8", "surrogateescape")] = new_mode, new_sha
    if rebuilt_rather(len(paths), meta.records):
        # Replacing most of an index path by path costs about 1.5x a rebuild (5,000 files
        # moved: 5.6 s against 3.7 s): each delete is a term, and the deleted records weigh on
        # the merges. A rebuild writes a fresh index beside it.
        raise Rebuild(f"{counted(len(paths), 'path')} changed, most of the index")
    redone, removed_before = undone if undone is not None else (set(), [])
    for path in redone - paths.keys():
        paths[path] = _entry_or_none(git, new_tree, path)
    whole: list[str] = []  # paths whose records are all replaced
    removed_ids: list[str] = []
    records: list[Record] = []
    for path, entry in counting(sorted(paths.items()), progress, READING):
        if entry is not None:
            new_records = committed_records(git, path, *entry)
            # A dead update's path lost records the diff does not name: replaced whole.
            changed = None if path in redone else changed_records(git, path, before.get(path), new_records)
            if changed is not None:
                gone, new_records = changed
                removed_ids.extend(gone)
            else:
                whole.append(path)
            records.extend(new_records)
        else:
            whole.append(path)
    removed_labels = sorted(set(lexical.labels_of_paths(whole) + lexical.labels_of_ids(removed_ids) + removed_before))
    for path in whole:
        lexical.delete_path(path)
    lexical.delete_ids(removed_ids)
    labels = list(range(meta.next_label, meta.next_label + len(records)))
    update = update_vectors(root, embedder, held, meta, records, labels, removed_labels, progress)
    for record, label in counting(list(zip(records, labels)), progress, FULL_TEXT):
        lexical.add(record, label)
    # Written before the commit: if this process dies before meta.json, the next update undoes
    # what the commit did from it (undo_dead_update). Not flushed to disk (one fsync less on
    # every update, a hook's catch-up included): a kill leaves it in the page cache, and a
    # power cut that loses it leaves records past next_label without a note, which rebuilds.
    note = {"commit": meta.commit, "next_label": meta.next_label, "paths": sorted(paths), "removed": removed_labels}
    atomic_write(root / UPDATE_NAME, json_bytes(note), durable=False)
    lexical.commit()
    meta.commit = head
    meta.next_label += len(records)
    meta.records = lexical.count()
    if update is not None:
        meta.vectors_file, meta.vectors_delta, meta.vectors = update
    meta.updated_at = time.time()
    meta.write(root / META_NAME)
    (root / UPDATE_NAME).unlink(missing_ok=True)
    if update is not None:
        sweep_vector_files(root, meta)
    return len(paths)


def changed_records(git, path: str, old: tuple[int, bytes] | None, new: list[Record]) -> tuple[list[str], list[Record]] | None:
    """For a session's messages file that changed: (the ids of the records to remove, the records to
    add); None where the path's records are replaced whole.

    A live session's file grows by a turn at a time, and replacing it whole made each turn cost the
    whole session again (at 4,000 messages, 3–10 s of the job after every turn, most of it hnswlib
    taking every message's vector anew). A record whose every field is as it was keeps its place
    and its vector: the new message, the one before it (its neighbour is new) and the conversation
    record are what change. Ids must be unique on both sides, since removal is by id."""
    if old is None or not is_message_log(path):
        return None
    old_records = committed_records(git, path, *old)
    was = {record.id: record for record in old_records}
    now = {record.id for record in new}
    if len(was) != len(old_records) or len(now) != len(new):
        return None
    kept = {record.id for record in new if was.get(record.id) == record}
    return [rid for rid in was if rid not in kept], [record for record in new if record.id not in kept]


def _read_note(path: Path) -> dict | None:
    """An update's note (``update.json``), or None when there is none or it does not read whole."""
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or not isinstance(note.get("paths"), list) or not isinstance(note.get("removed"), list):
        return None
    return note


def _entry_or_none(git, tree: bytes | None, path: str) -> tuple[int, bytes] | None:
    """(mode, blob) of the file ``path`` in ``tree``; None when it holds no file there."""
    from dulwich.object_store import tree_lookup_path

    if tree is None:
        return None
    try:
        mode, sha = tree_lookup_path(git.repo.object_store.__getitem__, tree, path.encode("utf-8", "surrogateescape"))
    except (KeyError, NotADirectoryError):
        return None
    return None if stat.S_ISDIR(mode) else (mode, sha)
