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

An index of at most :data:`EXACT_COMPONENTS` numbers (vectors times dimensions) also gets an ``.exact`` file beside
its generation: the live vectors quantised to 16 bits and laid out so that plain
Python compares a query with all of them at once (:class:`ExactVectors`). For a
store that size this is exhaustive rather than approximate and costs a cold process
less than importing numpy, which hnswlib cannot do without: a cold ``ov find`` with
vectors then costs little more than one without. A larger index gets a ``.groups`` file
instead, the same vectors grouped around centroids, of which a search compares the
nearest groups (:mod:`ov.index.vector_groups`).
"""

from __future__ import annotations

import bisect
import errno
import heapq
import math
import os
import struct
import sys
from array import array
from pathlib import Path
from typing import NamedTuple

M = 16
EF_CONSTRUCTION = 100
MIN_EF = 64
# Up to this many live vectors times their dimension (4,096 vectors of the built-in model's 256) an
# exhaustive plain-Python search of the flat copy (~12 ns a component in a cold process on the 2-core
# machine of docs/benchmarks.md, reading the file included: ~3 us a 256-dimension vector) costs less
# than the grouped copy's search of the nearest groups (ov.index.vector_groups), which takes over
# above it: 4,096 vectors cost a cold search 23 ms exhaustively and 15 ms by groups, 2,048 16 and 19.
# Counted in components, not vectors: the cost grows with the dimension as with the count.
EXACT_COMPONENTS = 4096 * 256
EXACT_SUFFIX = ".exact"
GROUPS_SUFFIX = ".groups"
_EXACT_MAGIC = b"ovexact2"
_OLDER_MAGICS = (b"ovexact1",)
# magic, dimension, count; then int64 labels (ascending: rows are found by bisection), float32 scales,
# and the quantised rows by column
_EXACT_HEAD = struct.Struct("<8sII")
_STEPS = 32767  # a row's largest component becomes +-_STEPS
OFFSET = 32768  # added to every quantised component, which makes it 1..65535
_FIELD_SUM = (2**32 - 1) // 65535  # the most the integer query weights of one sign may add up to
U32 = "I" if array("I").itemsize == 4 else "L"  # the array type code of 32-bit unsigned fields
# Passage j of record L is the vector labelled L + j * PART_STRIDE: part 0 keeps the record's own
# label (an index of one vector per record looks as it always did), and 2**40 labels are more than
# an index hands out (labels are never reused, but a rebuild starts again from 0).
PART_STRIDE = 1 << 40
MAX_PARTS = 16
# Up to this many allowed vectors are read from hnswlib and compared one by one (~15 us each)
# rather than searched for: its filtered search walks much of the graph when few pass (a scope of
# ten records of 15,230 vectors: 27 ms searched, 10 ms read; bench/passage_read.py).
READ_ALLOWED = 1000


def part_labels(label: int, parts: int) -> list[int]:
    """The vector labels of a record's ``parts`` passages."""
    return [label + part * PART_STRIDE for part in range(parts)]


def record_label(label: int) -> int:
    """The record a vector label belongs to."""
    return label % PART_STRIDE


def nearest_records(vectors, vector, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
    """(record label, cosine of its nearest passage) of the ``limit`` nearest records, best first;
    ``allowed``: among these records only.

    A record with several passages can fill several of the nearest vectors, so more are asked for
    until ``limit`` records are found or none are left; an index of one vector per record answers
    in one search.
    """
    asked = limit
    while True:
        hits = vectors.search(vector, asked, allowed)
        best: dict[int, float] = {}
        for label, similarity in hits:  # best first, so the first passage seen is the nearest
            best.setdefault(record_label(label), similarity)
        if len(best) >= limit or len(hits) < asked or asked >= vectors.live:
            return list(best.items())[:limit]
        asked = min(vectors.live, asked * 4)


class RecordSimilarity(NamedTuple):
    nearest: float  # the cosine of the record's nearest passage
    first: float  # the cosine of its first passage (its title and opening)
    passages: int


def record_similarities(vectors, vector, labels, neighbours: dict[int, float]) -> dict[int, RecordSimilarity]:
    """What the records of ``labels`` that have vectors are worth to the query ``vector``, read from
    the index instead of searched for: any record, not only the nearest. ``neighbours`` holds the
    nearest passage's cosine of the records :func:`nearest_records` found; of those only the first
    passage is read, and only where there are several."""
    import numpy as np  # Deferred: only the rankings that look beyond the nearest records need it.

    counts = vectors.passage_counts(labels)
    asked: list[int] = []
    for label, count in counts.items():
        if label not in neighbours:
            asked += part_labels(label, count)
        elif count > 1:
            asked.append(label)  # its first passage, labelled as the record
    sims = dict(zip(asked, (vectors.rows_of(asked) @ np.asarray(vector, dtype=np.float32)).tolist())) if asked else {}
    out = {}
    for label, count in counts.items():
        if label in neighbours:
            nearest = neighbours[label]
            first = sims.get(label, nearest)
            out[label] = RecordSimilarity(nearest, nearest if math.isnan(first) else first, count)
            continue
        parts = [sims[part] for part in part_labels(label, count)]
        if not any(math.isnan(sim) for sim in parts):  # NaN: a vector hnswlib holds marked deleted
            out[label] = RecordSimilarity(max(parts), parts[0], count)
    return out


def passage_counts_of(labels, stored) -> dict[int, int]:
    """Record label -> how many passages it has (numbered from 0 without gaps), for the records
    with any; ``stored(vector_label)`` tells whether the index holds a vector."""
    counts: dict[int, int] = {}
    for label in labels:
        count = 0
        while count < MAX_PARTS and stored(label + count * PART_STRIDE):
            count += 1
        if count:
            counts[label] = count
    return counts


def exact_fits(live: int, dimension: int) -> bool:
    """Whether an index of ``live`` vectors of ``dimension`` keeps a flat copy."""
    return live * dimension <= EXACT_COMPONENTS


def exact_path(path: Path) -> Path:
    """Where the flat copy of the vector generation ``path`` lives."""
    return path.with_suffix(EXACT_SUFFIX)


def groups_path(path: Path) -> Path:
    """Where the grouped copy (:mod:`ov.index.vector_groups`) of the vector generation ``path``
    lives: named here with the flat copy's, so that what names a generation's files needs no more
    than this module."""
    return path.with_suffix(GROUPS_SUFFIX)


def load_for_search(path: Path, dimension: int, live: int, static: bool = False):
    """The vectors of generation ``path`` for searching: the flat copy when there is a whole one
    (no numpy, no hnswlib); past its limit, in a process without numpy, the grouped copy when
    there is a whole one (``static``: of a static model's vectors, which a search compares fewer
    of); else the hnswlib index."""
    exact = exact_path(path)
    if exact_fits(live, dimension) and exact.is_file():
        try:
            return ExactVectors.load(exact, dimension, live)
        except (OSError, ValueError):
            pass  # damaged or from an interrupted write: the hnswlib file is the authority
    elif "numpy" not in sys.modules:  # a process that has numpy searches hnswlib's graph faster
        from ov.index import vector_groups

        grouped = groups_path(path)
        if vector_groups.grouped_fits(live, dimension) and grouped.is_file():
            try:
                return vector_groups.GroupedVectors.load(grouped, dimension, live, static)
            except (OSError, ValueError):
                pass
    return VectorIndex.load(path, dimension, live)


# What hnswlib writes first (hnswalg.h, saveIndex): the offset of level 0, the capacity, the count,
# each element's bytes at level 0, where its label and its vector start in them, the top level, the
# entry point, the links a node keeps above level 0 and at it, M, the level multiplier, ef_construction.
_HNSW_HEAD = struct.Struct("<QQQQQQiIQQQdQ")


def hnsw_problem(path: Path, dimension: int, live: int) -> str | None:
    """What is wrong with hnswlib's file ``path`` for ``live`` vectors of ``dimension``, or None,
    read from its header and its size alone: 0.01 ms, where loading it takes 160 ms at 53,000
    vectors of 256 dimensions and walking every node's links as hnswlib's load does first 12 ms
    (for `ov doctor` and each MCP `health` call). A file cut short or grown by whole link lists
    passes; ``ov fsck`` loads it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HNSW_HEAD.size)
            size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        return f"{path.name} cannot be read: {exc.strerror or exc}"
    if len(head) < _HNSW_HEAD.size:
        return f"{path.name} has {size} bytes, fewer than hnswlib's header"
    level0, capacity, count, per_element, label_at, vector_at, _, _, links, links0, m, _, _ = _HNSW_HEAD.unpack(head)
    # Level 0 holds each node's links (a count, then links0 ids), its vector and its label.
    if (level0, vector_at, label_at, per_element) != (0, 4 + 4 * links0, vector_at + 4 * dimension, label_at + 8) or not 0 < m <= links <= links0:
        return f"{path.name} does not hold hnswlib's header for vectors of {dimension} dimensions"
    if not live <= count <= capacity:
        return f"{path.name} holds {count} vectors, fewer than the index's {live}" if count < live else f"{path.name} holds {count} vectors in room for {capacity}"
    # Then each node's links above level 0: a 4-byte size, and that many bytes (whole levels).
    above = size - _HNSW_HEAD.size - count * (per_element + 4)
    if above < 0 or above % (4 + 4 * links):
        return f"{path.name} has {size} bytes, not what its header promises (cut short or damaged)"
    return None


def write_blocks(path: Path, blocks) -> None:
    """Write ``blocks`` (bytes-like: bytes, C-contiguous numpy arrays) one after another to
    ``path`` atomically: into a temporary file beside it, flushed to disk, renamed over it."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as handle:
            for block in blocks:
                handle.write(block)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def stacked(rows: dict, labels, dimension: int):
    """The vectors of ``labels`` in ``rows`` (label -> vector) as one float32 matrix, a row each."""
    import numpy as np

    return np.stack([rows[label] for label in labels]).astype(np.float32) if len(labels) else np.zeros((0, dimension), np.float32)


def quantise(matrix) -> tuple:
    """(float32 scales, uint32 columns: dimension x rows, C-contiguous) of the float rows
    ``matrix``, as :class:`ExactVectors` reads them: row ``i`` is ``scales[i] * (q[i] - OFFSET)``."""
    import numpy as np

    peak = np.abs(matrix).max(axis=1, initial=0.0)
    scales = np.where(peak > 0, peak / _STEPS, 0.0).astype(np.float32)
    quantised = np.rint(matrix / np.where(scales > 0, scales, 1.0)[:, None]) + OFFSET
    return scales, np.ascontiguousarray(quantised.T, dtype="<u4")


class OlderCopy(ValueError):
    """A flat copy in a format an earlier ov wrote (float rows): searches pass it over for hnswlib,
    as any copy that does not load, until the next update writes the current format."""


class ExactVectors:
    """Every live vector of an index small enough to search exhaustively (see the module docstring).

    The rows are stored quantised and transposed, so that a process without numpy compares a query
    with every row in a few hundred big-integer operations instead of a Python loop per row. Row
    ``i`` is ``scale[i] * (q[i] - OFFSET)`` with ``q[i]`` 16-bit integers (``OFFSET`` keeps them
    positive): within 2e-5 of each component, where the built-in model's float16 weights carry 5e-4.
    Column ``j`` (component ``j`` of every row) is one little-endian run of 32-bit fields: read as
    one integer ``C_j``, ``sum(w_j * C_j)`` over integer query weights ``w_j`` holds every row's dot
    product in its own field, without carries as long as each field stays below 2**32 (so the
    positive and the negative weights are summed apart, each at most ``_FIELD_SUM``). Rounding the
    query to those weights moves a similarity by about 1e-4, at the very worst by
    ``0.5 * d / (65537 - d / 2)`` (0.002 at 256 dimensions, 0.012 at 1,536), which only reorders
    near-ties; a process with numpy uses float32 rows instead. Columns of 16-bit fields (``size``
    2, the grouped copy's: half the bytes to store and read) give the even rows' sums through a
    mask that puts those rows in 32-bit fields, and the odd rows' as what the whole columns' sums
    hold beyond them.
    """

    def __init__(self, labels: array, scales: array, columns: memoryview, dimension: int, size: int = 4) -> None:
        self._labels = labels
        self._scales = scales
        self._columns = columns  # dimension x live little-endian unsigned fields of `size` bytes
        self._size = size
        self.dimension = dimension
        self.live = len(labels)
        self._integers: list[int] | None = None
        self._matrix = None  # the rows as a float32 numpy matrix, made on the first numpy search
        # The last query's similarities: a search that asks again for more neighbours of the same
        # query vector object (nearest_records, a filtered find) does not compare it again.
        self._last: tuple[object, list[float]] | None = None

    @classmethod
    def load(cls, path: Path, dimension: int, live: int) -> ExactVectors:
        return cls.from_bytes(path.read_bytes(), dimension, live, path.name)

    @classmethod
    def from_bytes(cls, data: bytes, dimension: int, live: int | None, name: str) -> ExactVectors:
        """The flat copy held in ``data`` (what :meth:`blocks` wrote); ``live``: the number of
        vectors it must hold, None for any. ``name`` is what an error calls it."""
        if len(data) < _EXACT_HEAD.size:
            raise ValueError(f"{name} is too short")
        magic, dim, count = _EXACT_HEAD.unpack_from(data)
        if magic in _OLDER_MAGICS:
            raise OlderCopy(f"{name} is in an older format")
        if magic != _EXACT_MAGIC or dim != dimension or (live is not None and count != live):
            raise ValueError(f"{name} does not match the index ({dim} x {count}, expected {dimension} x {live})")
        start = _EXACT_HEAD.size
        if len(data) != start + count * 12 + count * dim * 4:
            raise ValueError(f"{name} has {len(data)} bytes, not what its header promises")
        labels, scales = array("q"), array("f")
        labels.frombytes(data[start : start + count * 8])
        scales.frombytes(data[start + count * 8 : start + count * 12])
        if sys.byteorder != "little":
            labels.byteswap()
            scales.byteswap()
        return cls(labels, scales, memoryview(data)[start + count * 12 :], dim)

    @staticmethod
    def write(path: Path, rows: dict, dimension: int) -> None:
        """Write ``rows`` (label -> vector, as numpy arrays) to ``path`` atomically, by label."""
        write_blocks(path, ExactVectors.blocks(rows, dimension))

    @staticmethod
    def blocks(rows: dict, dimension: int) -> list:
        """The flat copy of ``rows`` (label -> vector, as numpy arrays), by label, as bytes-like blocks."""
        import numpy as np

        labels = sorted(rows)
        scales, columns = quantise(stacked(rows, labels, dimension))
        return [_EXACT_HEAD.pack(_EXACT_MAGIC, dimension, len(labels)), np.asarray(labels, dtype="<i8"), scales.astype("<f4"), columns]

    def labels(self) -> set[int]:
        return set(self._labels)

    def rows(self) -> dict:
        """label -> vector (numpy rows), for the index's next update."""
        return dict(zip(self._labels, self._float_matrix()))

    def search(self, vector, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest ``limit`` vectors, best first; ties by label.
        ``allowed``: only the passages of these records."""
        labels = self._labels
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            # A process that has numpy already (the MCP server, a batch job) takes one matrix
            # product, and picks the nearest without a Python loop over every vector.
            sims = self._float_matrix() @ numpy.asarray(vector, dtype=numpy.float32)
            ids = numpy.frombuffer(labels, dtype=numpy.int64)
            rows = numpy.arange(self.live) if allowed is None else numpy.flatnonzero(numpy.isin(ids % PART_STRIDE, list(allowed)))
            limit = min(limit, len(rows))
            if limit <= 0:
                return []
            cutoff = numpy.partition(sims[rows], len(rows) - limit)[len(rows) - limit]
            near = rows[sims[rows] >= cutoff]
            order = near[numpy.lexsort((ids[near], -sims[near]))][:limit]
            return [(int(ids[i]), float(sims[i])) for i in order]
        last = self._last
        if last is not None and last[0] is vector:
            sims = last[1]
        else:
            sims = self._plain_similarities([float(x) for x in vector])
            self._last = (vector, sims)
        rows = range(self.live) if allowed is None else [i for i, label in enumerate(labels) if label % PART_STRIDE in allowed]
        limit = min(limit, len(rows))
        if limit <= 0:
            return []
        cutoff = heapq.nlargest(limit, sims if allowed is None else [sims[i] for i in rows])[-1]  # floats alone: cheaper than keyed sorting
        order = sorted((i for i in rows if sims[i] >= cutoff), key=lambda i: (-sims[i], labels[i]))[:limit]
        return [(labels[i], sims[i]) for i in order]

    def passage_counts(self, labels) -> dict[int, int]:
        """Record label -> its number of passages, for the records of ``labels`` with vectors."""
        return passage_counts_of(labels, lambda label: self._row_of(label) is not None)

    def rows_of(self, labels: list[int]):
        """The float32 vectors of ``labels`` (all held), one row each."""
        return self._float_matrix()[[self._row_of(label) for label in labels]]

    def holds(self, label: int) -> bool:
        """Whether the vector ``label`` is here."""
        return self._row_of(label) is not None

    def _row_of(self, label: int) -> int | None:
        at = bisect.bisect_left(self._labels, label)  # written sorted by label
        return at if at < self.live and self._labels[at] == label else None

    def _plain_similarities(self, query: list[float]) -> list[float]:
        count, width = self.live, self.live * self._size
        if self._integers is None:
            columns = [int.from_bytes(self._columns[j * width : (j + 1) * width], "little") for j in range(self.dimension)]
            if self._size == 2:
                # Each column with its even rows alone, in the low halves of 32-bit fields. The odd
                # rows' sums come from the whole columns' sums (below), saving a shift and a mask
                # per column.
                low = int.from_bytes(b"\xff\xff\x00\x00" * ((count + 1) // 2), "little")
                columns = [(column & low, column) for column in columns]
            self._integers = columns
        heaviest = max(sum(x for x in query if x > 0), -sum(x for x in query if x < 0))
        if not 1e-30 < heaviest < math.inf:  # blank, or not numbers (no embedder gives such)
            return [0.0] * count
        # Rounding adds at most half a unit per component, hence the room of half the dimension.
        factor = (_FIELD_SUM - self.dimension / 2) / heaviest
        weights = [round(x * factor) for x in query]
        shift = OFFSET * sum(weights)
        if self._size == 4:
            positive = negative = 0
            for weight, column in zip(weights, self._integers):
                if weight > 0:
                    positive += weight * column
                elif weight < 0:
                    negative -= weight * column
            return _field_sums(positive, negative, count, shift, factor, self._scales)
        even_up = even_down = all_up = all_down = 0
        for weight, (even, whole) in zip(weights, self._integers):
            if weight > 0:
                even_up += weight * even
                all_up += weight * whole
            elif weight < 0:
                even_down -= weight * even
                all_down -= weight * whole
        # A whole column is its even rows plus its odd rows shifted up 16 bits, and so is a sum
        # of weighted columns: the odd rows' sums, in 32-bit fields, are exact integers.
        odd_up, odd_down = (all_up - even_up) >> 16, (all_down - even_down) >> 16
        sims = [0.0] * count
        sims[0::2] = _field_sums(even_up, even_down, (count + 1) // 2, shift, factor, self._scales[0::2])
        sims[1::2] = _field_sums(odd_up, odd_down, count // 2, shift, factor, self._scales[1::2])
        return sims

    def _float_matrix(self):
        import numpy as np

        if self._matrix is None:
            quantised = np.frombuffer(self._columns, dtype="<u4" if self._size == 4 else "<u2").reshape(self.dimension, self.live)
            scales = np.frombuffer(self._scales, dtype=np.float32)
            self._matrix = np.ascontiguousarray((quantised.T.astype(np.float32) - OFFSET) * scales[:, None])
        return self._matrix


def _size_limit() -> int | None:
    """The process's limit on a file's size in bytes (``ulimit -f``), or None where there is none."""
    try:
        import resource  # Deferred: only a failed vector write asks.
    except ImportError:  # Windows
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    return None if soft == resource.RLIM_INFINITY else soft


def _field_sums(positive: int, negative: int, count: int, shift: int, factor: float, scales) -> list[float]:
    """The similarities held in ``count`` 32-bit fields of the sums of the positive and the
    negative weights' products (:meth:`ExactVectors._plain_similarities`)."""
    above, below = array(U32), array(U32)
    above.frombytes(positive.to_bytes(count * 4, "little"))
    below.frombytes(negative.to_bytes(count * 4, "little"))
    if sys.byteorder != "little":
        above.byteswap()
        below.byteswap()
    return [(a - b - shift) * scale / factor for a, b, scale in zip(above, below, scales)]


class VectorIndex:
    def __init__(self, index, dimension: int, live: int, rows: dict | None = None, base=None) -> None:
        self._index = index
        self.dimension = dimension
        self.live = live  # vectors not marked deleted (hnswlib does not count them)
        self._read_bytes: int | None = None  # the size of the file it was read from (save's check)
        # label -> vector of every live vector, kept beside hnswlib while the flat or grouped copy
        # can be written from it (None: unknown, read back from hnswlib on save, which is slow).
        self._rows = rows
        # The grouped copy this index was read with, and what changed since: its next write keeps
        # the groups and the rows of everything else (vector_groups.write_update).
        self._base = base
        self._added: dict = {}
        self._removed: set[int] = set()
        self._stored: set[int] | None = None  # every label added, deleted ones too (passage_counts)

    @classmethod
    def create(cls, dimension: int, capacity: int = 1024) -> VectorIndex:
        import hnswlib  # Deferred: only vector work needs it.

        index = hnswlib.Index(space="ip", dim=dimension)
        index.init_index(max_elements=max(capacity, 16), ef_construction=EF_CONSTRUCTION, M=M)
        return cls(index, dimension, 0, {})

    @classmethod
    def load(cls, path: Path, dimension: int, live: int, *, for_update: bool = False) -> VectorIndex:
        """``for_update``: also read the flat or grouped copy, so the next :meth:`save` writes its
        successor from it and the diff instead of reading every vector back out of hnswlib."""
        import hnswlib

        from ov.index import vector_groups

        index = hnswlib.Index(space="ip", dim=dimension)
        index.load_index(str(path))
        rows = base = None
        try:
            if for_update and exact_fits(live, dimension) and exact_path(path).is_file():
                rows = ExactVectors.load(exact_path(path), dimension, live).rows()
            elif for_update and vector_groups.grouped_fits(live, dimension) and groups_path(path).is_file():
                base = vector_groups.GroupedVectors.load(groups_path(path), dimension, live)
        except (OSError, ValueError):
            rows = base = None
        loaded = cls(index, dimension, live, rows, base)
        loaded._read_bytes = os.path.getsize(path)
        return loaded

    def save(self, path: Path) -> None:
        """Write to ``path`` atomically (a temporary file renamed over it), and beside it the flat
        copy while the index is small enough to be searched exhaustively, or the grouped copy
        above that (written second: a generation without its copy is searched through hnswlib,
        never wrongly)."""
        tmp = path.with_name(path.name + ".tmp")
        try:
            self._index.save_index(str(tmp))
            with open(tmp, "rb+") as handle:
                os.fsync(handle.fileno())
            # hnswlib writes through a C++ stream whose errors it never checks: on a full disk, a
            # quota or an IO error it leaves a short file without a word. Loading it back is the
            # check (its loader compares the file's size with what the header promises), made
            # unless the write can be seen whole without it (the load costs an update ~12 ms a
            # 10,000 vectors): a file no smaller than the one the index was read from (hnswlib's
            # files only grow: deleted vectors keep their place), on a disk with as much free
            # again as was written.
            written = tmp.stat().st_size
            free = os.statvfs(path.parent)
            if self._read_bytes is None or written < self._read_bytes or free.f_bavail * free.f_frsize < max(written, 1 << 20):
                VectorIndex.load(tmp, self.dimension, self.live)
        except RuntimeError as exc:
            written = tmp.stat().st_size if tmp.exists() else 0
            tmp.unlink(missing_ok=True)
            free = os.statvfs(path.parent)
            if free.f_bavail * free.f_frsize < max(written, 1 << 20):
                raise OSError(errno.ENOSPC, "no space left for the vector index", str(path)) from None
            limit = _size_limit()
            if limit is not None and written >= limit:
                # Cut at the process's limit on a file's size (`ulimit -f`): no room, not damage.
                raise OSError(errno.EFBIG, "the vector index reached the limit on a file's size", str(path)) from None
            from ov.errors import IndexUnavailable

            raise IndexUnavailable(f"the vector index could not be written whole: {exc}") from None
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        os.replace(tmp, path)
        from ov.index import vector_groups

        exact, grouped = exact_path(path), groups_path(path)
        small, middling = exact_fits(self.live, self.dimension), vector_groups.grouped_fits(self.live, self.dimension)
        if not small:
            exact.unlink(missing_ok=True)
        if small or not middling:
            grouped.unlink(missing_ok=True)
        base, self._base = self._base, None
        if not small and not middling:
            self._rows = None
            return
        if base is not None and not small and not vector_groups.stale(base.trained, self.live):
            # The groups stay: only what changed is placed (written whole, still atomically).
            vector_groups.write_update(grouped, base, self._added, self._removed)
        else:
            if self._rows is None and base is not None:  # the groups are made again, from every row
                self._rows = {label: row for label, row in base.rows().items() if label not in self._removed} | self._added
            if self._rows is None:  # grown back under the limit, or a copy that did not load
                labels = sorted(self.labels())
                self._rows = dict(zip(labels, self._index.get_items(labels))) if labels else {}
            if small:
                ExactVectors.write(exact, self._rows, self.dimension)
                return
            vector_groups.write(grouped, self._rows, self.dimension)
        self._rows, self._added, self._removed = None, {}, set()
        try:
            self._base = vector_groups.GroupedVectors.load(grouped, self.dimension, self.live)
        except ValueError:  # it disagrees with the index: searches use hnswlib, which is the authority
            grouped.unlink()

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
        if self._stored is not None:
            self._stored.update(labels)
        if self._rows is not None:
            self._rows.update(zip(labels, vectors))
        if self._base is not None:
            self._added.update(zip(labels, vectors))

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
                if self._base is not None and self._added.pop(part, None) is None:
                    self._removed.add(part)

    def passage_counts(self, labels) -> dict[int, int]:
        """Record label -> its number of passages, for the records of ``labels`` with vectors."""
        if self._stored is None:
            self._stored = set(self._index.get_ids_list())  # once: asking hnswlib label by label raises for each absent one
        return passage_counts_of(labels, self._stored.__contains__)

    def rows_of(self, labels: list[int]):
        """The float32 vectors of ``labels`` (all held), one row each."""
        import numpy as np

        try:
            return np.asarray(self._index.get_items(labels), dtype=np.float32).reshape(len(labels), self.dimension)
        except RuntimeError:
            # One is marked deleted (a record the full-text index no longer holds, which rankings
            # do not ask about): one at a time, a deleted one as a row of NaN, worth nothing.
            return np.vstack([self._live_row(label) for label in labels])

    def _live_row(self, label: int):
        import numpy as np

        try:
            return np.asarray(self._index.get_items([label]), dtype=np.float32)
        except RuntimeError:
            return np.full((1, self.dimension), np.nan, dtype=np.float32)

    def _read_nearest(self, vector, parts: list[int], limit: int) -> list[tuple[int, float]]:
        """The nearest ``limit`` of the vectors ``parts``, read and compared one by one (exact)."""
        import numpy as np

        if not parts:
            return []
        sims = (self.rows_of(parts) @ np.asarray(vector, dtype=np.float32)).tolist()
        ranked = sorted((pair for pair in zip(parts, sims) if not math.isnan(pair[1])), key=lambda pair: (-pair[1], pair[0]))
        return ranked[:limit]

    def search(self, vector, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """(label, cosine similarity) of the nearest live vectors, best first. ``allowed``: only
        the passages of these records: read one by one when they are few (:data:`READ_ALLOWED`),
        else through hnswlib's filtered search, at ``ef`` = 2k (with 2,000 of 7,943 real vectors
        allowed its recall is 0.982 at ``ef`` = k, 0.997 at 2k; bench/filtered_recall.py)."""
        k = min(limit, self.live)
        check = None
        if allowed is not None:
            counts = self.passage_counts(allowed)
            parts = [part for label, count in counts.items() for part in part_labels(label, count)]
            if len(parts) <= READ_ALLOWED:
                return self._read_nearest(vector, parts, limit)
            k = min(k, len(parts))
            check = lambda label: label % PART_STRIDE in allowed  # noqa: E731
        while k > 0:
            self._index.set_ef(max(MIN_EF, k if check is None else 2 * k))
            try:
                labels, distances = self._index.knn_query(vector, k=k, filter=check)
            except RuntimeError:
                k //= 2  # the graph could not return k live neighbours; ask for fewer
                continue
            return [(int(label), float(1.0 - dist)) for label, dist in zip(labels[0], distances[0])]
        return []
