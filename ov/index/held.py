"""The vectors a process keeps loaded from one search to the next.

Reading a vector generation is most of what vectors cost a search in a process that has numpy:
hnswlib's file takes 160 ms at 53,000 vectors of 256 dimensions. An
:class:`~ov.index.sync.Indices` holds the generation it loaded or wrote, for its own next search.
A long-lived process (the MCP server) makes a new ``Indices`` for each call, so that it reads the
config and the commits as they are then, and hands each the same :class:`HeldVectors`: its finds
and health checks read a generation once, not once a call.

A generation is held under its file's name, the build it belongs to (a rebuild numbers its files
from 0 again) and what its files are on disk (inode, size, modification time): a new generation,
a rebuild, or a file replaced or damaged in place is read again.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path


class HeldVectors:
    """One loaded vector generation per index folder, with the key it was loaded under."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # the MCP server answers calls from several threads
        self._held: dict[Path, tuple[tuple, object]] = {}

    def get(self, root: Path, key: tuple):
        """The vectors held for ``root`` under ``key``, or None."""
        with self._lock:
            held = self._held.get(root)
        return held[1] if held is not None and held[0] == key else None

    def put(self, root: Path, key: tuple, vectors) -> None:
        """Hold ``vectors`` for ``root`` under ``key``, in place of what was held for it."""
        with self._lock:
            self._held[root] = (key, vectors)

    def drop(self, root: Path) -> None:
        with self._lock:
            self._held.pop(root, None)


def generation_key(root: Path, name: str, built_at: float) -> tuple:
    """The key of the vector generation ``name`` of the build made at ``built_at`` in ``root``,
    as its files are now: taken before they are read, so that a file replaced meanwhile is
    read again next time rather than held under its new identity."""
    # Named by ov.index.vectors, not vector_groups: a cold find of a flat copy never imports that.
    from ov.index.vectors import exact_path, groups_path

    path = root / name
    return (name, built_at, *(_identity(p) for p in (path, exact_path(path), groups_path(path))))


def _identity(path: Path) -> tuple[int, int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_ino, found.st_size, found.st_mtime_ns)
