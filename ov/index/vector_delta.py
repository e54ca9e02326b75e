"""What changed in the vectors since their generation was written: a small file beside it.

A vector generation (hnswlib's file and its flat or grouped copy, :mod:`ov.index.vectors`) is
written whole. After one ``ov write`` in a store of 10,000 records that was most of the update a
following ``ov find`` waited for: reading hnswlib's file to add to it, writing it and the grouped
copy again, their fsyncs and removing the old ones (~40 of 69 ms; docs/benchmarks.md). An update
that changes few vectors writes them into a delta instead (``vectors-{gen}.delta``, named by
``meta.json`` beside the generation): the records removed from the generation since, and the
vectors added, as a flat copy (:class:`~ov.index.vectors.ExactVectors`, searched exhaustively,
with or without numpy). A search reads both (:class:`DeltaVectors`) and leaves out what the delta
removed. When a delta would hold more than :data:`DELTA_LIMIT` changes, the update folds it into
a new generation instead, as every update did before.

Labels are never reused within a build, so an added vector can never be one the delta removed.
"""

from __future__ import annotations

import struct
import sys
from array import array
from pathlib import Path

from ov.index.vectors import MAX_PARTS, ExactVectors, part_labels, record_label, write_blocks

DELTA_SUFFIX = ".delta"
# Removed records plus added vectors a delta holds at most. A cold search compares every added
# vector (~3 us each without numpy) and every update rewrites the delta, so it stays small; one
# fold then costs what every update cost before. A session turn adds a few messages: a fold every
# hundred turns or so.
DELTA_LIMIT = 512
_MAGIC = b"ovdelta1"
# magic, dimension, removed records, the generation's live vectors, the vectors of the removed
# records; then the removed records' labels (int64, ascending) and the added vectors' flat copy
_HEAD = struct.Struct("<8sIIQQ")


class Delta:
    """The change a delta file holds over its generation."""

    def __init__(self, dimension: int, base_live: int, removed: set[int], removed_parts: int, flat: bytes) -> None:
        self.dimension = dimension
        self.base_live = base_live  # the live vectors of the generation it changes
        self.removed = removed  # labels of records whose vectors the generation holds and no longer counts
        self.removed_parts = removed_parts  # how many vectors those are
        self._flat = flat  # the added vectors' flat copy as the file holds it (ExactVectors.blocks)
        self.added = ExactVectors.from_bytes(flat, dimension, None, "the delta")

    @property
    def size(self) -> int:
        return len(self.removed) + self.added.live

    @property
    def live(self) -> int:
        return self.base_live - self.removed_parts + self.added.live

    @classmethod
    def empty(cls, dimension: int, base_live: int) -> Delta:
        return cls(dimension, base_live, set(), 0, _flat({}, dimension))

    @classmethod
    def load(cls, path: Path, dimension: int) -> Delta:
        data = path.read_bytes()
        if len(data) < _HEAD.size:
            raise ValueError(f"{path.name} is too short")
        magic, dim, count, base_live, removed_parts = _HEAD.unpack_from(data)
        if magic != _MAGIC or dim != dimension:
            raise ValueError(f"{path.name} is not a vector delta of {dimension} dimensions")
        end = _HEAD.size + 8 * count
        if len(data) < end:
            raise ValueError(f"{path.name} has {len(data)} bytes, not what its header promises")
        removed = array("q")
        removed.frombytes(data[_HEAD.size : end])
        if sys.byteorder != "little":
            removed.byteswap()
        if removed_parts > base_live or len(removed) > removed_parts:
            raise ValueError(f"{path.name} removes more vectors than its generation has")
        try:
            return cls(dimension, base_live, set(removed), removed_parts, data[end:])
        except ValueError as exc:
            raise ValueError(f"{path.name}: {exc}") from None

    def changed(self, removed: list[int], added: dict, base) -> Delta:
        """This delta with the records ``removed`` gone and the vectors ``added`` (label -> row)
        added; ``base``: the generation, searchable (to count the removed records' vectors)."""
        rows = self.added.rows() if self.added.live else {}
        gone, elsewhere = set(self.removed), []
        for label in removed:
            mine = [part for part in part_labels(label, MAX_PARTS) if part in rows]
            for part in mine:  # added since the generation: forgotten
                del rows[part]
            if not mine and label not in gone:
                elsewhere.append(label)
        counts = base.passage_counts(elsewhere) if elsewhere else {}  # records the generation holds
        rows.update(added)
        return Delta(self.dimension, self.base_live, gone | counts.keys(), self.removed_parts + sum(counts.values()), _flat(rows, self.dimension))

    def write(self, path: Path) -> None:
        """Write to ``path`` atomically."""
        head = _HEAD.pack(_MAGIC, self.dimension, len(self.removed), self.base_live, self.removed_parts)
        removed = array("q", sorted(self.removed))
        if sys.byteorder != "little":
            removed.byteswap()
        write_blocks(path, [head, removed, self._flat])


def _flat(rows: dict, dimension: int) -> bytes:
    """The flat copy of ``rows`` (label -> vector) as one block of bytes."""
    return b"".join(bytes(block) for block in ExactVectors.blocks(rows, dimension))


class DeltaVectors:
    """A generation's vectors with its delta applied, searched as one index (the interface of
    :class:`~ov.index.vectors.VectorIndex` that searches use)."""

    def __init__(self, base, delta: Delta) -> None:
        self._base = base
        self._delta = delta
        self.dimension = base.dimension
        self.live = delta.live

    def search(self, vector, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest ``limit`` vectors, best first; ties by label.
        ``allowed``: only the passages of these records."""
        removed, added = self._delta.removed, self._delta.added
        if allowed is None:
            # The removed records' vectors may be among the generation's nearest: ask past them.
            asked = min(limit + self._delta.removed_parts, self._base.live)
            hits = [hit for hit in self._base.search(vector, asked) if record_label(hit[0]) not in removed] if asked > 0 else []
        else:
            kept = allowed - removed
            hits = self._base.search(vector, limit, kept) if kept else []
        if added.live:
            hits += added.search(vector, limit, allowed)
        hits.sort(key=lambda hit: (-hit[1], hit[0]))
        return hits[:limit]

    def passage_counts(self, labels) -> dict[int, int]:
        """Record label -> its number of passages, for the records of ``labels`` with vectors."""
        removed = self._delta.removed
        counts = self._base.passage_counts([label for label in labels if label not in removed])
        if self._delta.added.live:
            counts.update(self._delta.added.passage_counts(labels))
        return counts

    def rows_of(self, labels: list[int]):
        """The float32 vectors of ``labels`` (all held), one row each."""
        import numpy as np

        added = self._delta.added
        mine = [i for i, label in enumerate(labels) if added.live and added.holds(label)]
        if not mine:
            return self._base.rows_of(labels)
        out = np.empty((len(labels), self.dimension), dtype=np.float32)
        out[mine] = added.rows_of([labels[i] for i in mine])
        theirs = sorted(set(range(len(labels))) - set(mine))
        if theirs:
            out[theirs] = self._base.rows_of([labels[i] for i in theirs])
        return out

    def labels(self) -> set[int]:
        """Labels of the live vectors (a full scan: for checks, not for queries)."""
        removed = self._delta.removed
        return {label for label in self._base.labels() if record_label(label) not in removed} | self._delta.added.labels()
