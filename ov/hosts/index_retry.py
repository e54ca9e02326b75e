"""When a hook may start the index job again after one failed.

A job that fails every time (a file the index cannot read) would otherwise be started on every
prompt. The worker records a failure here; the prompt hook reads it before it starts a job, and
clears it when it finds the index caught up. Kept apart from :mod:`ov.hosts.background` so that a
prompt pays for no more than a file check.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

# A failed job is not started again for this many seconds. Not keyed on the commit:
# every turn's capture commits, so a new commit says nothing about the cause. A prompt that finds
# the index caught up (by a CLI command, a capture, a rebuild) clears it.
RETRY_AFTER = 600


def failure_path(store) -> Path:
    """Where the last index job that failed says when, and why."""
    return store.state / "hooks" / "index-job.failed.json"


def record_failure(store, error: str) -> None:
    from ov.files import atomic_write

    data = {"at": time.time(), "error": error}
    path = failure_path(store)
    store.home.ensure(path.parent)
    atomic_write(path, json.dumps(data).encode(), durable=False)


def clear_failure(store) -> None:
    try:
        os.unlink(failure_path(store))
    except FileNotFoundError:
        pass


def blocked(store, now: float | None = None) -> str | None:
    """Why no index job should start now, or None: the last one failed within
    :data:`RETRY_AFTER` seconds."""
    try:
        failed = json.loads(failure_path(store).read_text(encoding="utf-8"))
        age = (now if now is not None else time.time()) - float(failed["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not 0 <= age < RETRY_AFTER:
        return None
    return f"the last job failed {int(age)} s ago ({failed.get('error', 'unknown error')}); tried again after {RETRY_AFTER // 60} minutes"
