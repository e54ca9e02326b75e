"""The grouped copy: the vectors of an index too large for the flat copy, for a cold search.

The flat copy (:class:`~ov.index.vectors.ExactVectors`) lets a cold process search without numpy
or hnswlib, whose import and file cost every ``ov find`` and every prompt hook 80-110 ms, but its
cost grows with every vector. Past its limit the vectors are grouped around ``2 * sqrt(n)``
centroids (spherical k-means, made when the copy is first written and again each time the index
has doubled or halved since), and stored like the flat copy, group after group. A query is
compared with the centroids, then with the vectors of the nearest groups until about
``25 * sqrt(n)`` vectors have been compared, ``12 * sqrt(n)`` for a static model's: an inverted
file. On the built-in model's vectors of SciFact and LoCoMo that finds about 0.9 of the exact 200
nearest (as hnswlib does at the ``ef`` ov searches it with), 0.8 comparing ``12 * sqrt(n)``, and
the benchmarks score nearly as they do searched exactly, for a few milliseconds instead of numpy's
import (bench/vector_groups.py).

A search among allowed records compares every group that holds one of their passages, so it is
exact. The file is written whole and atomically, after the hnswlib file, which stays the
authority: a generation without a whole copy is searched through hnswlib.
"""

from __future__ import annotations

import bisect
import math
import mmap
import os
import struct
import sys
from array import array
from pathlib import Path

from ov.index.vectors import OFFSET, U32, ExactVectors, part_labels, passage_counts_of, quantise, stacked, write_blocks

_MAGIC = b"ovgroup1"
# magic, dimension, count, groups, and how many vectors the centroids were made from
_HEAD = struct.Struct("<8sIIII")
# Up to this many numbers (vectors times dimensions: 131,072 of the built-in model's 256) an index
# keeps a grouped copy. Above it making the centroids again (once each time the index doubles)
# takes seconds, and hnswlib serves alone.
GROUPED_COMPONENTS = 1 << 25
# A search compares about 27 * sqrt(n) vectors (centroids and groups) of `dimension` numbers each, at
# ~12 ns a number: up to this dimension * sqrt(n) that stays under ~40 ms, well below numpy's import
# and hnswlib's file (a static model's 14 * sqrt(n), half that). The built-in model's 256 dimensions
# meet GROUPED_COMPONENTS first; an API's 1,536 stop at about 7,000 vectors.
GROUPED_SEARCH = 1 << 17
GROUPS_PER_ROOT = 2  # groups: 2 * sqrt(n)
# Vectors compared by a search: 25 * sqrt(n), about 50 average groups, which finds about as many of
# the exact 200 nearest as hnswlib does (0.91 at 53,000 vectors of the built-in model).
COMPARED_PER_ROOT = 25
# The same for a static model's vectors (the built-in model, model2vec, the hashing embedder):
# 12 * sqrt(n). The cost of a cold search follows it (at 53,000 vectors 25 * sqrt(n) took 13 ms of
# CPU, 12 * sqrt(n) 7 ms), and what finds score hardly does: LoCoMo's R@10 and MRR stay the same from
# 25 down to 10, SciFact's nDCG@10 falls by 0.003 (0.705 to 0.702), though of the exact 200 nearest
# it finds 0.80 (docs/benchmarks.md, "How many to compare"). A static model's cosine is a small
# weight in the fusion, and the nearest few, which bring the records the words missed, are found far
# more often than the 200th. A model that reads context weighs its neighbours fully (the fusion's
# MODEL_WEIGHTS), and what comparing fewer costs it was not measured: it keeps COMPARED_PER_ROOT.
STATIC_COMPARED_PER_ROOT = 12
# A search among allowed records scattered over groups holding more than this many times sqrt(n)
# vectors goes to hnswlib instead: comparing nearly every vector in plain Python (53,000 of them with
# 2,650 records allowed: 150 ms) costs more than numpy's import and hnswlib's filtered search.
# Four searches' worth at COMPARED_PER_ROOT; not tied to it, so that a static model's searches,
# which compare fewer, send no filtered search to numpy sooner.
ALLOWED_PER_ROOT = 100
_KMEANS_ROUNDS = 8
_KMEANS_SAMPLE = 32  # the centroids are made from at most this many vectors a group


def grouped_fits(live: int, dimension: int) -> bool:
    """Whether an index of ``live`` vectors of ``dimension`` past the flat copy's limit keeps a grouped copy."""
    return live * dimension <= GROUPED_COMPONENTS and dimension * math.sqrt(live) <= GROUPED_SEARCH


def stale(trained: int, live: int) -> bool:
    """Whether centroids made from ``trained`` vectors should be made again for ``live``: the
    index doubled or halved since."""
    return not trained / 2 <= live <= trained * 2


def _make_groups(matrix, seed: int = 0):
    """(centroids, each row's group) of the unit rows ``matrix``: spherical k-means over at most
    :data:`_KMEANS_SAMPLE` rows a group, the centroids then put in :func:`_chain` order."""
    import numpy as np

    count = max(1, min(len(matrix), round(GROUPS_PER_ROOT * math.sqrt(len(matrix)))))
    rng = np.random.default_rng(seed)
    sample = matrix if len(matrix) <= _KMEANS_SAMPLE * count else matrix[rng.choice(len(matrix), _KMEANS_SAMPLE * count, replace=False)]
    centroids = sample[rng.choice(len(sample), count, replace=False)].copy()
    for _ in range(_KMEANS_ROUNDS):
        nearest = np.argmax(sample @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, nearest, sample)
        norms = np.linalg.norm(sums, axis=1)
        kept = norms > 0  # a centroid no vector chose stays where it is
        centroids[kept] = sums[kept] / norms[kept, None]
    centroids = centroids[_chain(centroids)]
    return centroids, np.argmax(matrix @ centroids.T, axis=1)


def _chain(centroids):
    """An order of the centroids in which each is followed by the nearest not yet placed. The
    groups a query compares are near each other, so in this order they often neighbour one
    another and are read as one run: about half as many runs as in k-means' order."""
    import numpy as np

    near = centroids @ centroids.T
    placed = np.zeros(len(centroids), dtype=bool)
    order = [0]
    placed[0] = True
    for _ in range(len(centroids) - 1):
        row = np.where(placed, -np.inf, near[order[-1]])
        order.append(int(np.argmax(row)))
        placed[order[-1]] = True
    return np.asarray(order)


def write(path: Path, rows: dict, dimension: int) -> None:
    """Write ``rows`` (label -> vector) to ``path`` atomically, around centroids made from them."""
    import numpy as np

    labels = np.fromiter(rows, dtype=np.int64, count=len(rows))
    matrix = stacked(rows, list(rows), dimension)
    centroids, groups = _make_groups(matrix)
    scales, columns = quantise(matrix)
    _write(path, dimension, len(labels), quantise(centroids), groups, labels, scales, columns)


def write_update(path: Path, base: GroupedVectors, added: dict, removed: set[int]) -> None:
    """Write the grouped copy ``base`` with the vectors ``removed`` (labels) taken out and ``added``
    (label -> vector) put in their nearest groups, to ``path`` atomically. The centroids and every
    other vector's group and quantised row stay as they are: nothing is made again."""
    import numpy as np

    view, dimension, live = base._view, base.dimension, base.live
    labels = np.frombuffer(view, dtype="<i8", count=live, offset=base._labels_at)
    scales = np.frombuffer(view, dtype="<f4", count=live, offset=base._scales_at)
    columns = np.frombuffer(view, dtype="<u2", count=dimension * live, offset=base._columns_at).reshape(dimension, live)
    groups = np.repeat(np.arange(base.groups), np.diff(np.frombuffer(base._starts, dtype=np.uint32).astype(np.int64)))
    kept = np.flatnonzero(~np.isin(labels, np.fromiter(removed, dtype=np.int64, count=len(removed))))
    new_labels = np.fromiter(added, dtype=np.int64, count=len(added))
    matrix = stacked(added, list(added), dimension)
    centroids = base.centroids()
    new_scales, new_columns = quantise(matrix)
    centroid_block = (np.frombuffer(view, dtype="<f4", count=base.groups, offset=base._centroid_scales_at), base._centroids_section)
    _write(
        path,
        dimension,
        base.trained,
        centroid_block,
        np.concatenate([groups[kept], np.argmax(matrix @ centroids.T, axis=1) if added else np.zeros(0, np.int64)]),
        np.concatenate([labels[kept], new_labels]),
        np.concatenate([scales[kept], new_scales]),
        np.concatenate([columns, new_columns.astype("<u2")], axis=1) if added else columns,
        np.concatenate([kept, live + np.arange(len(added))]),
    )


def _write(path: Path, dimension: int, trained: int, centroid_block, groups, labels, scales, columns, taken=None) -> None:
    """Write a grouped copy atomically. Layout, all little-endian after the head: the groups'
    first rows (uint32, groups + 1), the centroids quantised like the flat copy's rows (float32
    scales, then uint32 columns), every row's label (int64) and scale (float32) in group order, the
    rows' columns (uint16; each column in group order, so that neighbouring groups read as one run), and
    the labels sorted (int64) with their rows (uint32), for finding a label's row. ``groups``,
    ``labels`` and ``scales`` are given in any order, and ``columns`` (dimension x rows) in the
    same order, or ``taken``: the columns of ``columns`` they are (one copy fewer than taking them first)."""
    import numpy as np

    centroid_scales, centroid_columns = centroid_block
    count = len(centroid_scales)
    order = np.lexsort((labels, groups))  # by group, then by label
    labels = labels[order]
    starts = np.concatenate([[0], np.cumsum(np.bincount(groups, minlength=count))])
    by_label = np.argsort(labels, kind="stable")
    write_blocks(
        path,
        [
            _HEAD.pack(_MAGIC, dimension, len(labels), count, trained),
            starts.astype("<u4"),
            np.asarray(centroid_scales, dtype="<f4"),
            centroid_columns,
            labels.astype("<i8"),
            np.asarray(scales, dtype="<f4")[order],
            np.ascontiguousarray(columns[:, order if taken is None else taken[order]], dtype="<u2"),  # 1..65535: 16 bits suffice
            labels[by_label].astype("<i8"),
            by_label.astype("<u4"),
        ],
    )


def _read(view, offset: int, code: str, count: int) -> array:
    values = array(code)
    values.frombytes(view[offset : offset + count * values.itemsize])
    if sys.byteorder != "little":
        values.byteswap()
    return values


class GroupedVectors:
    """A grouped copy, read for searching (see the module docstring): only the head, the groups'
    bounds and the centroids are read on opening; a search reads the groups it compares."""

    def __init__(self, path: Path, view: mmap.mmap, dimension: int, live: int, groups: int, trained: int, static: bool = False) -> None:
        self._path = path
        self.static = static  # a static model's vectors: a search compares STATIC_COMPARED_PER_ROOT
        self._view = view
        self.dimension = dimension
        self.live = live
        self.groups = groups
        self.trained = trained
        at = _HEAD.size
        self._starts = _read(view, at, U32, groups + 1)
        at += 4 * (groups + 1)
        self._centroid_scales_at = at
        centroid_scales = _read(view, at, "f", groups)
        at += 4 * groups
        self._centroids_section = memoryview(view)[at : at + 4 * dimension * groups]  # their columns, as stored
        self._centroids = ExactVectors(array("q", range(groups)), centroid_scales, self._centroids_section, dimension)
        at += 4 * dimension * groups
        self._labels_at = at
        self._scales_at = at + 8 * live
        self._columns_at = at + 12 * live
        self._sorted_at = self._columns_at + 2 * dimension * live
        self._sorted: array | None = None  # labels sorted, read on the first lookup by label
        self._rows: array | None = None
        # The last search's query and the groups it compared: a search that asks again for more
        # neighbours of the same query vector object (nearest_records) compares them again only
        # when it needs more groups.
        self._last: tuple[object, frozenset[int], ExactVectors] | None = None
        self._graph = None  # the generation's hnswlib index, loaded for a filtered search only

    @classmethod
    def load(cls, path: Path, dimension: int, live: int, static: bool = False) -> GroupedVectors:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size < _HEAD.size:
                raise ValueError(f"{path.name} is too short")
            view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        magic, dim, count, groups, trained = _HEAD.unpack_from(view)
        if magic != _MAGIC or dim != dimension or count != live:
            view.close()
            raise ValueError(f"{path.name} does not match the index ({dim} x {count}, expected {dimension} x {live})")
        expected = _HEAD.size + 4 * (groups + 1) + 4 * groups + 4 * dim * groups + 12 * count + 2 * dim * count + 12 * count
        if size != expected:
            view.close()
            raise ValueError(f"{path.name} has {size} bytes, not what its head promises")
        starts = _read(view, _HEAD.size, U32, groups + 1)
        if starts[0] != 0 or starts[-1] != count or any(a > b for a, b in zip(starts, starts[1:])):
            view.close()
            raise ValueError(f"{path.name} has groups that do not add up to its {count} vectors")
        return cls(path, view, dim, count, groups, trained, static)

    def search(self, vector, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest ``limit`` vectors found, best first; ties by
        label. ``allowed``: only the passages of these records, exactly: every group holding one is
        compared, or, when those groups hold more than :data:`ALLOWED_PER_ROOT` times ``sqrt(n)``
        vectors (allowed records scattered over the store), hnswlib's filtered search does it."""
        if allowed is None:
            per_root = STATIC_COMPARED_PER_ROOT if self.static else COMPARED_PER_ROOT
            chosen = self._nearest_groups(vector, max(limit, round(per_root * math.sqrt(self.live))))
        else:
            chosen = frozenset(self._group_of_row(row) for row in self._rows_of_records(allowed))
            if sum(self._starts[group + 1] - self._starts[group] for group in chosen) > ALLOWED_PER_ROOT * math.sqrt(self.live):
                if self._graph is None:
                    from ov.index.vectors import VectorIndex

                    self._graph = VectorIndex.load(self._path.with_suffix(".hnsw"), self.dimension, self.live)
                return self._graph.search(vector, limit, allowed)
        last = self._last
        if last is not None and last[0] is vector and chosen <= last[1]:
            compared = last[2]
        else:
            compared = self._gather(sorted(chosen))
            self._last = (vector, chosen, compared)
        return compared.search(vector, limit, allowed)

    def labels(self) -> set[int]:
        return set(_read(self._view, self._labels_at, "q", self.live))

    def rows(self) -> dict:
        """label -> vector (numpy rows), for the index's next update."""
        return self._gather(range(self.groups)).rows()

    def centroids(self):
        """The centroids, one float32 row per group."""
        import numpy as np

        return np.stack(list(self._centroids.rows().values())) if self.groups else np.zeros((0, self.dimension), np.float32)

    def group_of(self, label: int) -> int | None:
        """The group of the vector ``label``, None when the copy does not hold it."""
        row = self._row_of(label)
        return None if row is None else self._group_of_row(row)

    def passage_counts(self, labels) -> dict[int, int]:
        """Record label -> its number of passages, for the records of ``labels`` with vectors."""
        return passage_counts_of(labels, lambda label: self._row_of(label) is not None)

    def rows_of(self, labels: list[int]):
        """The float32 vectors of ``labels`` (all held), one row each."""
        import numpy as np

        out = np.empty((len(labels), self.dimension), dtype=np.float32)
        scales = np.frombuffer(self._view, dtype="<f4", count=self.live, offset=self._scales_at)
        columns = np.frombuffer(self._view, dtype="<u2", count=self.dimension * self.live, offset=self._columns_at).reshape(self.dimension, self.live)
        for i, label in enumerate(labels):
            row = self._row_of(label)
            out[i] = (columns[:, row].astype(np.float32) - OFFSET) * scales[row]
        return out

    def _nearest_groups(self, vector, wanted: int) -> frozenset[int]:
        """The groups nearest ``vector`` until they hold ``wanted`` vectors."""
        chosen = []
        held = 0
        for group, _ in self._centroids.search(vector, self.groups):
            if held >= wanted:
                break
            size = self._starts[group + 1] - self._starts[group]
            if size:
                chosen.append(group)
                held += size
        return frozenset(chosen)

    def _gather(self, groups) -> ExactVectors:
        """The vectors of ``groups`` as one flat copy (each column is the groups' runs of it), for
        :meth:`ExactVectors.search` and ``rows`` only: its labels are in group order, not sorted,
        so its lookups by label (which bisect) do not apply."""
        view, dimension, starts = self._view, self.dimension, self._starts
        runs: list[list[int]] = []  # [first row, end] of each run of neighbouring groups
        for group in groups:
            start, end = starts[group], starts[group + 1]
            if runs and runs[-1][1] == start:
                runs[-1][1] = end
            elif end > start:
                runs.append([start, end])
        labels, scales = array("q"), array("f")
        for start, end in runs:
            labels += _read(view, self._labels_at + 8 * start, "q", end - start)
            scales += _read(view, self._scales_at + 4 * start, "f", end - start)
        whole, live, at = memoryview(view), self.live, self._columns_at  # slices of a memoryview are views: one copy, by the join
        columns = b"".join([whole[at + 2 * (j * live + start) : at + 2 * (j * live + end)] for j in range(dimension) for start, end in runs])
        return ExactVectors(labels, scales, memoryview(columns), dimension, size=2)

    def _row_of(self, label: int) -> int | None:
        if self._sorted is None:
            self._sorted = _read(self._view, self._sorted_at, "q", self.live)
            self._rows = _read(self._view, self._sorted_at + 8 * self.live, U32, self.live)
        at = bisect.bisect_left(self._sorted, label)
        return self._rows[at] if at < self.live and self._sorted[at] == label else None

    def _rows_of_records(self, records) -> list[int]:
        counts = self.passage_counts(records)
        return [self._row_of(part) for label, count in counts.items() for part in part_labels(label, count)]

    def _group_of_row(self, row: int) -> int:
        return bisect.bisect_right(self._starts, row) - 1

