"""The vector index: hnswlib over L2-normalised embeddings (inner product = cosine).

Each record's vector is stored under the record's integer label (the same label
the full-text index stores), so a vector hit is turned back into a record by one
full-text lookup. A record longer than its embedder reads at once has one vector
per passage (:meth:`~ov.index.embedders.base.BaseEmbedder.passages`): passage
``j`` of the record labelled ``L`` is stored as ``L + j * PART_STRIDE``, and
:func:`nearest_records` gives each record the cosine of its nearest passage.
Removing a file marks its labels deleted. Each update is saved
to a new generation file that ``meta.json`` names only once the update is done, so
an interrupted update that is replayed starts again from the previous vectors.

An index of at most :data:`EXACT_LIMIT` vectors also gets an ``.exact`` file beside
its generation: the live vectors as a flat array, which a search reads and compares
one by one (:class:`ExactVectors`). For a store that small this is exact rather
than approximate and, in plain Python, costs a cold process less than importing
numpy, which hnswlib cannot do without: a cold ``ov find`` with vectors then costs
little more than one without.
"""

from __future__ import annotations

import errno
import os
import struct
import sys
from array import array
from operator import mul
from pathlib import Path

M = 16
EF_CONSTRUCTION = 100
MIN_EF = 64
# Up to this many live vectors an exhaustive plain-Python search (~14 us a vector on the 2-core
# machine of docs/benchmarks.md) stays below what importing numpy costs a cold process (~70 ms).
EXACT_LIMIT = 2048
EXACT_SUFFIX = ".exact"
_EXACT_MAGIC = b"ovexact1"
_EXACT_HEAD = struct.Struct("<8sII")  # magic, dimension, count; then int64 labels, float32 rows
# Passage j of record L is the vector labelled L + j * PART_STRIDE: part 0 keeps the record's own
# label (an index of one vector per record looks as it always did), and 2**40 labels are more than
# an index hands out (labels are never reused, but a rebuild starts again from 0).
PART_STRIDE = 1 << 40
MAX_PARTS = 16


def part_labels(label: int, parts: int) -> list[int]:
    """The vector labels of a record's ``parts`` passages."""
    return [label + part * PART_STRIDE for part in range(parts)]


def record_label(label: int) -> int:
    """The record a vector label belongs to."""
    return label % PART_STRIDE


def nearest_records(vectors, vector, limit: int) -> list[tuple[int, float]]:
    """(record label, cosine of its nearest passage) of the ``limit`` nearest records, best first.

    A record with several passages can fill several of the nearest vectors, so more are asked for
    until ``limit`` records are found or none are left; an index of one vector per record answers
    in one search.
    """
    asked = limit
    while True:
        hits = vectors.search(vector, asked)
        best: dict[int, float] = {}
        for label, similarity in hits:  # best first, so the first passage seen is the nearest
            best.setdefault(record_label(label), similarity)
        if len(best) >= limit or len(hits) < asked or asked >= vectors.live:
            return list(best.items())[:limit]
        asked = min(vectors.live, asked * 4)


def exact_path(path: Path) -> Path:
    """Where the flat copy of the vector generation ``path`` lives."""
    return path.with_suffix(EXACT_SUFFIX)


def load_for_search(path: Path, dimension: int, live: int):
    """The vectors of generation ``path`` for searching: the flat copy when there is a whole one
    (no numpy, no hnswlib), else the hnswlib index."""
    exact = exact_path(path)
    if live <= EXACT_LIMIT and exact.is_file():
        try:
            return ExactVectors.load(exact, dimension, live)
        except (OSError, ValueError):
            pass  # damaged or from an interrupted write: the hnswlib file is the authority
    return VectorIndex.load(path, dimension, live)


def remove_generation(path: Path) -> None:
    """Delete a vector generation's files (the hnswlib index and its flat copy)."""
    for name in (path, exact_path(path)):
        try:
            name.unlink()
        except FileNotFoundError:
            pass


class ExactVectors:
    """Every live vector of a small index, searched exhaustively (see the module docstring)."""

    def __init__(self, labels: array, rows: array, dimension: int) -> None:
        self._labels = labels
        self._rows = rows
        self.dimension = dimension
        self.live = len(labels)

    @classmethod
    def load(cls, path: Path, dimension: int, live: int) -> ExactVectors:
        data = path.read_bytes()
        if len(data) < _EXACT_HEAD.size:
            raise ValueError(f"{path.name} is too short")
        magic, dim, count = _EXACT_HEAD.unpack_from(data)
        if magic != _EXACT_MAGIC or dim != dimension or count != live:
            raise ValueError(f"{path.name} does not match the index ({dim} x {count}, expected {dimension} x {live})")
        start = _EXACT_HEAD.size
        if len(data) != start + count * 8 + count * dim * 4:
            raise ValueError(f"{path.name} has {len(data)} bytes, not what its header promises")
        labels, rows = array("q"), array("f")
        labels.frombytes(data[start : start + count * 8])
        rows.frombytes(data[start + count * 8 :])
        if sys.byteorder != "little":
            labels.byteswap()
            rows.byteswap()
        return cls(labels, rows, dim)

    @staticmethod
    def write(path: Path, rows: dict, dimension: int) -> None:
        """Write ``rows`` (label -> vector, as numpy arrays) to ``path`` atomically, by label."""
        import numpy as np

        labels = sorted(rows)
        matrix = np.stack([rows[label] for label in labels]) if labels else np.zeros((0, dimension))
        tmp = path.with_name(path.name + ".tmp")
        try:
            with open(tmp, "wb") as handle:
                handle.write(_EXACT_HEAD.pack(_EXACT_MAGIC, dimension, len(labels)))
                handle.write(np.asarray(labels, dtype="<i8").tobytes())
                handle.write(np.ascontiguousarray(matrix, dtype="<f4").tobytes())
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)

    def labels(self) -> set[int]:
        return set(self._labels)

    def rows(self) -> dict:
        """label -> vector (numpy rows over this copy's buffer), for the index's next update."""
        import numpy as np

        matrix = np.frombuffer(self._rows, dtype=np.float32).reshape(self.live, self.dimension)
        return dict(zip(self._labels, matrix))

    def search(self, vector, limit: int) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest ``limit`` vectors, best first; ties by label."""
        count, dim = self.live, self.dimension
        if min(limit, count) <= 0:
            return []
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            # A process that has numpy already (the MCP server, a batch job) takes one matrix product.
            matrix = numpy.frombuffer(self._rows, dtype=numpy.float32).reshape(count, dim)
            sims = (matrix @ numpy.asarray(vector, dtype=numpy.float32)).tolist()
        else:
            query = [float(x) for x in vector]
            rows = memoryview(self._rows)
            sims = [sum(map(mul, query, rows[i * dim : (i + 1) * dim])) for i in range(count)]
        order = sorted(range(count), key=lambda i: (-sims[i], self._labels[i]))[:limit]
        return [(self._labels[i], float(sims[i])) for i in order]


class VectorIndex:
    def __init__(self, index, dimension: int, live: int, rows: dict | None = None) -> None:
        self._index = index
        self.dimension = dimension
        self.live = live  # vectors not marked deleted (hnswlib does not count them)
        # label -> vector of every live vector, kept beside hnswlib while the flat copy can be
        # written from it (None: unknown, read back from hnswlib on save, which is slow).
        self._rows = rows

    @classmethod
    def create(cls, dimension: int, capacity: int = 1024) -> VectorIndex:
        import hnswlib  # Deferred: only vector work needs it.

        index = hnswlib.Index(space="ip", dim=dimension)
        index.init_index(max_elements=max(capacity, 16), ef_construction=EF_CONSTRUCTION, M=M)
        return cls(index, dimension, 0, {})

    @classmethod
    def load(cls, path: Path, dimension: int, live: int, *, for_update: bool = False) -> VectorIndex:
        """``for_update``: also read the flat copy, so the next :meth:`save` writes its successor
        from it and the diff instead of reading every vector back out of hnswlib."""
        import hnswlib

        index = hnswlib.Index(space="ip", dim=dimension)
        index.load_index(str(path))
        rows = None
        if for_update and live <= EXACT_LIMIT and exact_path(path).is_file():
            try:
                rows = ExactVectors.load(exact_path(path), dimension, live).rows()
            except (OSError, ValueError):
                rows = None
        return cls(index, dimension, live, rows)

    def save(self, path: Path) -> None:
        """Write to ``path`` atomically (a temporary file renamed over it), and the flat copy
        beside it while the index is small enough to be searched exhaustively (written second: a
        generation without its flat copy is searched through hnswlib, never wrongly)."""
        tmp = path.with_name(path.name + ".tmp")
        try:
            self._index.save_index(str(tmp))
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            # hnswlib writes through a C++ stream whose errors it never checks: on a full disk
            # it leaves a short file without a word. Loading it back is the check (its loader
            # compares the file's size with what the header promises).
            VectorIndex.load(tmp, self.dimension, self.live)
        except RuntimeError as exc:
            written = tmp.stat().st_size if tmp.exists() else 0
            tmp.unlink(missing_ok=True)
            free = os.statvfs(path.parent)
            if free.f_bavail * free.f_frsize < max(written, 1 << 20):
                raise OSError(errno.ENOSPC, "no space left for the vector index", str(path)) from None
            from ov.errors import IndexUnavailable

            raise IndexUnavailable(f"the vector index could not be written whole: {exc}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)
        exact = exact_path(path)
        if self.live > EXACT_LIMIT:
            exact.unlink(missing_ok=True)
            self._rows = None
            return
        if self._rows is None:  # grown back under the limit, or a copy that did not load
            labels = sorted(self.labels())
            self._rows = dict(zip(labels, self._index.get_items(labels))) if labels else {}
        ExactVectors.write(exact, self._rows, self.dimension)

    def labels(self) -> set[int]:
        """Labels of the live vectors (a full scan: for checks, not for queries)."""
        live = set()
        for label in self._index.get_ids_list():
            try:
                self._index.get_items([label])
            except RuntimeError:
                continue  # marked deleted
            live.add(int(label))
        return live

    def add(self, vectors, labels: list[int]) -> None:
        if not labels:
            return
        needed = self._index.element_count + len(labels)
        if needed > self._index.get_max_elements():
            self._index.resize_index(max(needed, self._index.get_max_elements() * 2))
        self._index.add_items(vectors, labels)
        self.live += len(labels)
        if self._rows is not None:
            self._rows.update(zip(labels, vectors))

    def remove(self, labels: list[int]) -> None:
        """Mark every passage of the records ``labels`` deleted."""
        for label in labels:
            for part in part_labels(label, MAX_PARTS):
                try:
                    self._index.mark_deleted(part)
                except RuntimeError:
                    break  # not there (a replayed update, or the record's passages end here)
                self.live -= 1
                if self._rows is not None:
                    self._rows.pop(part, None)

    def search(self, vector, limit: int) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest live vectors, best first."""
        k = min(limit, self.live)
        while k > 0:
            self._index.set_ef(max(MIN_EF, k))
            try:
                labels, distances = self._index.knn_query(vector, k=k)
            except RuntimeError:
                k //= 2  # the graph could not return k live neighbours; ask for fewer
                continue
            return [(int(label), float(1.0 - dist)) for label, dist in zip(labels[0], distances[0])]
        return []
