"""Whether ov may write to a store: tried, not asked.

``os.access`` answers for the real user and, for root, from the mode bits alone: root without
the capability to override permissions (a container, ``setpriv``) is told "yes" and refused.
So a probe file is created and removed in each folder ov writes to; each costs two system calls.
"""

from __future__ import annotations

import os
from pathlib import Path

from ov.errors import StoreNotWritable, not_writable
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
