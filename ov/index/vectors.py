"""The vector index: hnswlib over L2-normalised embeddings (inner product = cosine).

Each record's vector is stored under the record's integer label (the same label
the full-text index stores), so a vector hit is turned back into a record by one
full-text lookup. Removing a file marks its labels deleted. Each update is saved
to a new generation file that ``meta.json`` names only once the update is done, so
an interrupted update that is replayed starts again from the previous vectors.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

M = 16
EF_CONSTRUCTION = 100
MIN_EF = 64


class VectorIndex:
    def __init__(self, index, dimension: int, live: int) -> None:
        self._index = index
        self.dimension = dimension
        self.live = live  # vectors not marked deleted (hnswlib does not count them)

    @classmethod
    def create(cls, dimension: int, capacity: int = 1024) -> VectorIndex:
        import hnswlib  # Deferred: only vector work needs it.

        index = hnswlib.Index(space="ip", dim=dimension)
        index.init_index(max_elements=max(capacity, 16), ef_construction=EF_CONSTRUCTION, M=M)
        return cls(index, dimension, 0)

    @classmethod
    def load(cls, path: Path, dimension: int, live: int) -> VectorIndex:
        import hnswlib

        index = hnswlib.Index(space="ip", dim=dimension)
        index.load_index(str(path))
        return cls(index, dimension, live)

    def save(self, path: Path) -> None:
        """Write to ``path`` atomically (a temporary file renamed over it)."""
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

    def remove(self, labels: list[int]) -> None:
        for label in labels:
            try:
                self._index.mark_deleted(label)
            except RuntimeError:
                continue  # not there (a replayed update); nothing to remove
            self.live -= 1

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
