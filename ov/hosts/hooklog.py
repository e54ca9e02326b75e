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

LOG_NAME = "hooks.jsonl"


def log_path(home_root: Path) -> Path:
    return home_root / "logs" / LOG_NAME


def append(home_root: Path, record: dict) -> None:
    """Append ``record`` (plus the time) to the log; a failure to log is never an error of the hook."""
    from ov.files import append_log
    from ov.home import Home

    try:
        append_log(log_path(home_root), record, Home(home_root).ensure)
    except OSError:
        pass  # a read-only or full home: the hook still answers


def names_session(home_root: Path, session: str) -> bool:
    """Whether a hook run logged ``session`` (in the log or its rotated file): the session-start
    context names a session that is not captured until its first turn ends."""
    from ov.files import rotated

    said = f'"session": {json.dumps(session, ensure_ascii=False)}'.encode()
    path = log_path(home_root)
    for candidate in (path, rotated(path)):
        try:
            if said in candidate.read_bytes():
                return True
        except OSError:
            continue
    return False


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
