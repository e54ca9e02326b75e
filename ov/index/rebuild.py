"""An index folder built anew from a commit: its full text written into a new folder beside the
index's, which then replaces it (:func:`build`). Its vectors are marked stale, for the caller to
make (ov.index.vector_writes) or to leave to the next search or the hooks' job.

The caller holds the index's lock (``state/{account}/index.lock``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ov.errors import DiskFull, StoreNotWritable
from ov.index.folder import FULL_TEXT, INDEX_DIR, META_NAME, READING, TEXT_DIR, Meta
from ov.index.lexical import SCHEMA_VERSION, LexicalIndex
from ov.index.records import (
    Record,
    committed_records,
    counts_as_records,
    left_out_because,
)
from ov.progress import Progress, counting
from ov.store.treepaths import shown


class TooLarge(Exception):
    """The commit holds more records than a build was allowed (``limit``)."""


def build(
    root: Path,
    git,
    head: str | None,
    language: str,
    *,
    embedder: dict | None,
    progress: Progress | None = None,
    left_out: list[tuple[str, str]] | None = None,
    limit: int | None = None,
) -> list[Record]:
    """Build the full text of ``head`` in a new folder and swap it in for the index folder
    ``root``; the records, labelled by their position. ``embedder``: what ``meta.json`` records of
    the configured embedder (:func:`~ov.index.folder.identity`), its vectors marked stale; None
    for none. ``left_out`` is given the entries that can have no records; ``limit``:
    :class:`TooLarge` before anything is written when ``head`` has more records."""
    import shutil  # Deferred with what it imports (bz2, lzma): only a rebuild removes folders.

    work = root.with_name(f"{INDEX_DIR}.new-{os.getpid()}")
    # Under the index lock, any other half-built or swapped-out index belongs to a rebuild
    # that was killed (or failed on a full disk): it is only wasted space.
    for kind in ("new", "old"):
        for leftover in root.parent.glob(f"{INDEX_DIR}.{kind}-*"):
            _remove(leftover)
    work.mkdir(parents=True)
    try:
        records = _build_into(work, git, head, language, embedder, progress, left_out, limit)
    except BaseException as exc:
        shutil.rmtree(work, ignore_errors=True)
        if isinstance(exc, (DiskFull, StoreNotWritable)) and isinstance(exc.path, (str, os.PathLike)) and Path(exc.path).is_relative_to(work):
            # Said of the folder it was built in, the warning named one that was gone by the time
            # anyone read it (`index.new-1234`): the index's own is the one to look at.
            raise exc.at(root) from exc
        raise
    old = root.with_name(f"{INDEX_DIR}.old-{os.getpid()}")
    if root.exists():
        os.replace(root, old)
    os.replace(work, root)
    _remove(old)
    return records


def _build_into(work: Path, git, head: str | None, language: str, embedder: dict | None, progress, left_out, limit: int | None) -> list[Record]:
    """The full-text index of ``head``'s records written into ``work``, its vectors marked stale
    (when there is an embedder); returns the records, labelled by their position."""
    records = records_at(git, head, progress, left_out, limit)
    lexical = LexicalIndex.open(work / TEXT_DIR, language, create=True)
    try:
        for label, record in enumerate(counting(records, progress, FULL_TEXT)):
            lexical.add(record, label)
        lexical.commit()
    except BaseException:
        lexical.abandon()
        raise
    meta = Meta(SCHEMA_VERSION, head, language, None, next_label=len(records), records=lexical.count())
    if embedder is not None:
        meta.embedder, meta.vectors_stale = embedder, True
    meta.built_at = meta.updated_at = time.time()
    meta.write(work / META_NAME)
    return records


def records_at(git, commit: str | None, progress: Progress | None = None, left_out: list[tuple[str, str]] | None = None, limit: int | None = None) -> list[Record]:
    """Every record of the files of ``commit`` (none for no commit). ``left_out`` is given the
    (path, why) of the entries that can have none, whatever they hold
    (:func:`~ov.index.records.left_out_because`). :class:`TooLarge` as soon as there are more
    than ``limit``, before any file is read when its files say so by their names."""
    records: list[Record] = []
    tree = git.tree_of(commit.encode()) if commit else None
    # Listed first, when someone is told how far along it is: the walk is fast, the reading is not.
    files = git.iter_entries(tree) if progress is None and limit is None else list(git.iter_entries(tree))
    if limit is not None and sum(1 for path, mode, _ in files if counts_as_records(path, mode)) > limit:
        # Read up to the limit to learn as much, 200 files took a prompt 0.2-0.5 s of its deadline.
        raise TooLarge
    for path, mode, sha in counting(files, progress, READING):
        why = left_out_because(path, mode)
        if why is not None:
            if left_out is not None:
                left_out.append((shown(path), why))
            continue
        records.extend(committed_records(git, path, mode, sha))
        if limit is not None and len(records) > limit:
            raise TooLarge
    return records


def _remove(path: Path) -> None:
    """Remove what was set aside at ``path``: a folder, or a file or link where the index folder
    should have been (rmtree refuses those, and they would stay beside the index for good)."""
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
