"""Writing an index folder's vectors: every one made anew (:func:`make_vectors`), or a change
applied into a delta or a new generation (:func:`update_vectors`); and what a record's vectors
are made from (:func:`embed_text`, :func:`embed`).

The files are named past those ``meta.json`` names (:func:`next_vectors_file`), so that no file a
search may be reading is written over; the ones it no longer names are removed once the new meta
is written (:func:`sweep_vector_files`). numpy and hnswlib are imported by the functions that
write vectors: only an update or a rebuild with an embedder does.
"""

from __future__ import annotations

import time
from pathlib import Path

from ov.errors import OvError
from ov.files import atomic_write, json_bytes
from ov.index.folder import META_NAME, VECTORS, VECTORS_FAILED_NAME, Meta, made_by
from ov.index.held import HeldVectors, generation_key
from ov.index.records import Record
from ov.progress import Progress, counting

EMBED_BATCH = 256


def update_vectors(root: Path, embedder, held: HeldVectors, meta: Meta, records: list[Record], labels: list[int], removed: list[int], progress: Progress | None = None):
    """Apply a diff to the vectors of the index folder ``root``: into a new delta while the change
    since the generation is small (ov.index.vector_delta), else into a new generation. (vector
    file, delta file, live vectors) of the result, or None when there are no vectors to update."""
    from ov.index.vector_delta import DELTA_LIMIT, DELTA_SUFFIX, Delta
    from ov.index.vectors import VectorIndex, exact_fits, stacked

    if embedder is None or meta.embedder is None or meta.vectors_stale or not meta.vectors_file:
        return None
    dimension = meta.embedder["dimension"]
    try:
        matrix, vector_labels = embed(embedder, records, labels, progress)
        delta = Delta.load(root / meta.vectors_delta, dimension) if meta.vectors_delta else Delta.empty(dimension, meta.vectors)
        base = _copy_of(root, held, meta, dimension, delta.base_live)
        if base is not None:
            changed = delta.changed(removed, dict(zip(vector_labels, matrix)), base)
            if changed.size <= DELTA_LIMIT:
                delta_file = next_vectors_file(meta, DELTA_SUFFIX)
                changed.write(root / delta_file)
                return meta.vectors_file, delta_file, changed.live
        vectors = VectorIndex.load(root / meta.vectors_file, dimension, delta.base_live, for_update=True)
    except OvError as exc:
        _log().warning("vectors left behind: %s", exc)
        meta.vectors_stale = True
        return None
    except (OSError, RuntimeError, ValueError) as exc:
        _log().warning("vector index unreadable (%s); it will be rebuilt", exc)
        meta.vectors_stale = True
        return None
    # The delta folded in, then this change, into a new generation.
    vectors.remove(sorted(delta.removed))
    if delta.added.live:
        rows = delta.added.rows()
        vectors.add(stacked(rows, list(rows), dimension), list(rows))
    vectors.remove(removed)
    vectors.add(matrix, vector_labels)
    gen_file = next_vectors_file(meta)
    vectors.save(root / gen_file)
    # Searched as it is where load_for_search would read this hnswlib index back (a process
    # with numpy, past the flat copy's limit).
    if exact_fits(vectors.live, dimension):
        held.drop(root)
    else:
        held.put(root, generation_key(root, gen_file, meta.built_at), vectors)
    return gen_file, None, vectors.live


def _copy_of(root: Path, held: HeldVectors, meta: Meta, dimension: int, live: int):
    """The generation's vectors, to count the passages a delta removes: as ``held`` holds them,
    else its flat or grouped copy, loaded (no hnswlib); None when neither is there."""
    from ov.index import vector_groups
    from ov.index.vectors import ExactVectors, exact_fits, exact_path, groups_path

    key = generation_key(root, meta.vectors_file, meta.built_at)
    copy = held.get(root, key)
    if copy is not None:
        return copy
    path = root / meta.vectors_file
    try:
        if exact_fits(live, dimension):
            # What load_for_search reads for the search after this update: read once, kept.
            copy = ExactVectors.load(exact_path(path), dimension, live)
            held.put(root, key, copy)
            return copy
        if vector_groups.grouped_fits(live, dimension):
            return vector_groups.GroupedVectors.load(groups_path(path), dimension, live)
    except (OSError, ValueError):
        pass  # the generation's own file is the authority: the update folds into a new one
    return None


def sweep_vector_files(root: Path, meta: Meta) -> None:
    """Remove every vector file ``meta`` does not name: the generation or delta it replaced,
    and any that an update killed before its ``meta.json`` was written left behind."""
    from ov.index.vectors import exact_path, groups_path

    keep = {meta.vectors_delta}
    if meta.vectors_file:
        generation = root / meta.vectors_file
        keep |= {generation.name, exact_path(generation).name, groups_path(generation).name}
    for path in root.glob("vectors-*"):
        if path.name not in keep:
            path.unlink(missing_ok=True)


def make_vectors(root: Path, embedder, meta: Meta, records: list[Record], labels: list[int], progress: Progress | None = None) -> bool:
    """Every vector of the index ``meta`` describes, from its ``records`` (labelled ``labels``),
    in a new generation, and the meta written; False, left stale, when the embedder fails (and
    when and why written beside it, :data:`~ov.index.folder.VECTORS_FAILED_NAME`)."""
    from ov.index.vectors import VectorIndex

    try:
        matrix, vector_labels = embed(embedder, records, labels, progress)
    except OvError as exc:
        _log().warning("vectors still behind: %s", exc)
        atomic_write(root / VECTORS_FAILED_NAME, json_bytes({"at": time.time(), "error": exc.message}), durable=False)
        return False
    vectors = VectorIndex.create(embedder.fingerprint.dimension, len(vector_labels))
    vectors.add(matrix, vector_labels)
    gen_file = next_vectors_file(meta)
    vectors.save(root / gen_file)
    meta.vectors_file, meta.vectors_delta, meta.vectors, meta.vectors_stale = gen_file, None, vectors.live, False
    meta.embedder = made_by(embedder)
    meta.write(root / META_NAME)
    (root / VECTORS_FAILED_NAME).unlink(missing_ok=True)
    sweep_vector_files(root, meta)
    return True


def embed_text(record: Record) -> str:
    """What a record's vectors are made from (the embedder cuts it into passages)."""
    head = f"{record.title}\n" if record.title else ""
    return head + record.searched


def embed(embedder, records: list[Record], labels: list[int], progress: Progress | None = None):
    """The vectors of ``records`` (labelled ``labels``): one per passage, and their vector labels."""
    import numpy as np

    from ov.index.embedders.base import EMBED_CHARS
    from ov.index.vectors import MAX_PARTS, part_labels

    texts: list[str] = []
    vector_labels: list[int] = []
    for record, label in zip(records, labels):
        # A session's whole log is never a result (its messages are), and a vector of it would only
        # take one of the nearest places a message could have (LoCoMo R@10 0.834 -> 0.837 without):
        # it gets the zero vector of a blank text, near nothing, and no embedding call.
        passages = [""] if record.kind == "log" else embedder.passages(embed_text(record))
        if record.previous and not embedder.static:
            # A reply often means little without what it answers ("Yes, last June"): a model that
            # reads context also sees it with the message before it, and the nearer vector counts.
            passages = passages[: MAX_PARTS - 1] + [f"{record.previous}\n{record.text}"[:EMBED_CHARS]]
        texts.extend(passages)
        vector_labels.extend(part_labels(label, len(passages)))
    if not texts:
        return np.zeros((0, embedder.fingerprint.dimension), dtype=np.float32), []
    parts = []
    for start in counting(range(0, len(texts), EMBED_BATCH), progress, VECTORS):
        parts.append(embedder.embed(texts[start : start + EMBED_BATCH]))
    return np.vstack(parts).astype(np.float32), vector_labels


def next_vectors_file(meta: Meta | None, suffix: str = ".hnsw") -> str:
    """The name of the vector file after those ``meta`` names (a generation's, or with ``suffix``
    ``.delta`` a delta's): numbered past both, so that neither is ever written over."""
    gen = -1
    for name in (meta.vectors_file, meta.vectors_delta) if meta is not None else ():
        try:
            gen = max(gen, int(name.split("-")[1].split(".")[0]))
        except (AttributeError, IndexError, ValueError):
            pass
    return f"vectors-{gen + 1:06d}{suffix}"


def _log():
    """This module's logger, imported when first needed (logging with what it pulls in, ~7 ms)."""
    import logging

    return logging.getLogger(__name__)
