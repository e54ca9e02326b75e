"""The hook log: one JSON line per hook run and per background job, in ``$OV_HOME/logs/hooks.jsonl``.

A hook fails open, so the log is where a user (``ov hooks log``) and ``ov doctor`` see what
recall injected, what a capture stored, and why a run did nothing. Lines are appended with
one ``write`` on a file opened ``O_APPEND``, so parallel hooks never interleave within a line.
The file is renamed to ``hooks.jsonl.1`` once it passes :data:`ov.files.LOG_MAX_BYTES` (one old
file is kept, as for the MCP server's log): it is a diagnostic, never canonical.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from ov.home import HOOK_LOG, Home

LOG_NAME = HOOK_LOG


def log_path(home_root: Path) -> Path:
    return Home(home_root).hook_log


def append(home_root: Path, record: dict) -> None:
    """Append ``record`` (plus the time) to the log; a failure to log is never an error of the hook."""
    from ov.files import append_log

    try:
        append_log(log_path(home_root), record, Home(home_root).ensure)
    except OSError:
        pass  # a read-only or full home: the hook still answers


def read(home_root: Path, *, host: str | None = None, last: int | None = None) -> list[dict]:
    """The logged records, oldest first (the rotated file's too), optionally one host's and the last ``last``."""
    records = [r for r in _records(home_root) if host is None or r.get("host") == host]
    return records[-last:] if last else records


def _records(home_root: Path) -> Iterator[dict]:
    from ov.files import rotated

    path = log_path(home_root)
    for candidate in (rotated(path), path):
        try:
            lines = candidate.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # a line cut by a full disk: skip it, keep the rest
            if isinstance(record, dict):
                yield record
