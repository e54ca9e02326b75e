"""Whether ov may write to a store: tried, not asked.

``os.access`` answers for the real user and, for root, from the mode bits alone: root without
the capability to override permissions (a container, ``setpriv``) is told "yes" and refused.
So a probe file is created and removed in each folder ov writes to; each costs two system calls.
Whether there is room is tried the same way, with one byte written (:func:`room`).
"""

from __future__ import annotations

import os
from pathlib import Path

from ov.errors import DiskFull, StoreNotWritable, disk_full, not_writable
from ov.names import TEMP_MARKER


def folders(store) -> list[Path]:
    """The folders of ``store`` every kind of write needs: its state (locks, journal, queue), the
    full-text index (its updates; a search of a store ov may not write to reads it through a view),
    the work tree and its repository."""
    from ov.index.folder import INDEX_DIR, TEXT_DIR

    git = store.root / ".git"
    return [store.state, store.state / INDEX_DIR / TEXT_DIR, store.root, git, git / "objects"]


def refusal(store) -> StoreNotWritable | None:
    """Why ov may not write to ``store``, or None. Folders not made yet are passed over; a
    probe left by a kill is a temporary file of ov's, which the next write or `ov status` removes
    (in the state and the work tree) or git ignores."""
    for folder in folders(store):
        if not folder.is_dir():
            continue
        probe = folder / f"{TEMP_MARKER}probe-{os.urandom(4).hex()}"
        try:
            os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except OSError as exc:
            refused = not_writable(exc, folder)
            if refused is not None:
                return refused
            continue  # a full disk still takes an empty file; anything else is not this check's
        try:
            probe.unlink()
        except OSError:
            pass
    return None


LOW_SPACE = 16 * 1024 * 1024  # bytes free under which doctor warns: a large add needs more


def room(store) -> tuple[DiskFull | None, int | None, Path | None]:
    """Whether the store's file systems have room: the :class:`DiskFull` a one-byte write meets
    (a full disk, a used-up quota, ``ulimit -f``: an empty file needs no data block, so the
    probe of :func:`refusal` passes on a full disk), the fewest bytes free on any of them and
    the folder that has so few. A folder ov may not write to is :func:`refusal`'s to report."""
    full, fewest, where, devices = None, None, None, set()
    for folder in folders(store):
        try:
            device = folder.stat().st_dev
        except OSError:
            continue  # not made yet
        if device in devices:
            continue
        devices.add(device)
        try:
            stats = os.statvfs(folder)
            free = stats.f_bavail * stats.f_frsize
        except OSError:
            free = None
        if free is not None and (fewest is None or free < fewest):
            fewest, where = free, folder
        probe = folder / f"{TEMP_MARKER}probe-{os.urandom(4).hex()}"
        try:
            fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError:
            continue
        try:
            os.write(fd, b"\n")
            os.fsync(fd)  # a file system that counts blocks only when they reach the disk
        except OSError as exc:
            full = full or disk_full(exc, folder)
        finally:
            os.close(fd)
            try:
                probe.unlink()
            except OSError:
                pass
    return full, fewest, where
