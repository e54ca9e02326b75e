"""Small file-system primitives shared by the store: atomic writes and text checks."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from ov.uri import TEMP_MARKER


def atomic_write(path: Path, data: bytes, *, mode: int | None = None, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a part.

    The bytes go to a temporary file in the same directory, which is then
    renamed over the target (``rename`` is atomic within one file system).
    ``durable`` also flushes the data to disk before the rename, so that it
    survives a power cut, not only a crash of ov.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f"{TEMP_MARKER}{secrets.token_hex(6)}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def json_bytes(data) -> bytes:
    """Canonical JSON for files ov writes (sorted keys, two-space indent, UTF-8, final newline):
    the same data always gives the same bytes, so rewrites of unchanged data make no git change."""
    import json

    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def remove_empty_parents(path: Path, stop: Path) -> None:
    """Remove empty directories from ``path`` upwards, never removing ``stop`` itself."""
    current = path
    while current != stop and stop in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


def looks_binary(data: bytes) -> bool:
    """True for data that is not UTF-8 text (a NUL byte or an undecodable sequence)."""
    if b"\x00" in data:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False
