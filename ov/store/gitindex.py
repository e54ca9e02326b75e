"""The git index (``.git/index``) kept in step with ov's commits.

ov builds commits straight from trees and never needs the index itself, but a
person who runs plain ``git status`` or ``git commit`` in an account expects
it to describe HEAD: without it git sees every file deleted. Rewriting the
index with dulwich costs ~150 ms at 10,000 files (it parses every entry into an
object), so a commit splices the raw file instead: entries of the paths it
changed are replaced, all others are copied as bytes. Only index versions 2 and
3 are spliced (what git and dulwich write by default); anything else is
rebuilt from HEAD.

The file is written through git's own protocol (``index.lock`` created
exclusively, then renamed), so a concurrent ``git`` command is never clobbered:
when the lock is taken the update is skipped, and the next commit or
``ov status`` brings the index up to date.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import os
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path

FILE_MODE = 0o100644
_HEADER = struct.Struct(">4sLL")
_STAT = struct.Struct(">10L")
_FIXED = 62  # ten 32-bit stat fields, a 20-byte id and 16 bits of flags
_EXTENDED = 0x4000
_NAME_MASK = 0xFFF


def update(git_dir: Path, worktree: Path, blobs: Mapping[str, bytes | None], head_files: Iterable[tuple[str, bytes]] | None) -> bool:
    """Make the index entries of ``blobs`` (path -> hex blob id, or None when the path is gone)
    agree with HEAD and the work tree; True when the index was written.

    ``head_files`` lists every file of HEAD (path, hex id); it is read only when the index is
    missing or in a format this module does not splice, to rebuild it whole.
    """
    index_path = git_dir / "index"
    try:
        data = index_path.read_bytes()
    except FileNotFoundError:
        data = None
    parsed = _parse(data) if data is not None else None
    if parsed is None:
        if head_files is None:
            return False
        rebuilt = sorted((_raw(path), _entry(path, sha, None)) for path, sha in head_files if path not in blobs)
        version, names, data = 2, [name for name, _ in rebuilt], b"".join(raw for _, raw in rebuilt)
        offsets = list(itertools.accumulate((len(raw) for _, raw in rebuilt), initial=0))
    else:
        version, names, offsets = parsed
    # The result is the old entries copied in runs, with the touched paths' entries replaced,
    # removed or inserted between the runs.
    pieces: list[bytes] = []
    count = len(names)
    at = 0  # index into names of the first old entry not yet copied
    root = str(worktree)
    for path in sorted(blobs):
        key = _raw(path)
        start = bisect.bisect_left(names, key, at)
        end = start
        while end < len(names) and names[end] == key:  # every stage of the path
            end += 1
        pieces.append(data[offsets[at] : offsets[start]])
        count -= end - start
        at = end
        sha = blobs[path]
        if sha is None:
            continue
        try:
            st = os.lstat(os.path.join(root, path))  # a string: pathlib costs ~10 µs a path
        except FileNotFoundError:
            st = None
        pieces.append(_entry(path, sha, st))
        count += 1
    pieces.append(data[offsets[at] : offsets[len(names)]])
    body = _HEADER.pack(b"DIRC", version, count) + b"".join(pieces)
    return _write(index_path, body + hashlib.sha1(body).digest())


def _entry(path: str, sha: bytes | str, st: os.stat_result | None) -> bytes:
    """One version-2 entry; zeroed stat data (no ``st``) makes git re-read the file."""
    name = _raw(path)
    if st is None:
        fields = (0, 0, 0, 0, 0, 0, FILE_MODE, 0, 0, 0)
    else:
        fields = (
            int(st.st_ctime) & 0xFFFFFFFF,
            st.st_ctime_ns % 1_000_000_000,
            int(st.st_mtime) & 0xFFFFFFFF,
            st.st_mtime_ns % 1_000_000_000,
            st.st_dev & 0xFFFFFFFF,
            st.st_ino & 0xFFFFFFFF,
            FILE_MODE,
            st.st_uid & 0xFFFFFFFF,
            st.st_gid & 0xFFFFFFFF,
            st.st_size & 0xFFFFFFFF,
        )
    raw_sha = bytes.fromhex(sha.decode() if isinstance(sha, bytes) else sha)
    flags = min(len(name), _NAME_MASK)
    size = (_FIXED + len(name) + 8) & ~7  # 1 to 8 NULs end the name
    return (_STAT.pack(*fields) + raw_sha + struct.pack(">H", flags) + name).ljust(size, b"\0")


def _parse(data: bytes) -> tuple[int, list[bytes], list[int]] | None:
    """(version, names, offsets) of a version 2 or 3 index, where entry i is
    ``data[offsets[i]:offsets[i + 1]]``; None when it cannot be spliced."""
    if len(data) < _HEADER.size + 20 or hashlib.sha1(data[:-20]).digest() != data[-20:]:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    names: list[bytes] = []
    offsets: list[int] = []
    pos = _HEADER.size
    end = len(data) - 20
    unpack = struct.Struct(">H").unpack_from
    for _ in range(count):
        if pos + _FIXED > end:
            return None
        (flags,) = unpack(data, pos + 60)
        name_at = pos + _FIXED + (2 if flags & _EXTENDED else 0)
        length = flags & _NAME_MASK
        if length == _NAME_MASK:  # a long name: its length is where the NUL is
            length = data.index(b"\0", name_at) - name_at
        names.append(data[name_at : name_at + length])
        offsets.append(pos)
        pos += (name_at - pos + length + 8) & ~7
    offsets.append(pos)
    # Extensions (the cached tree, the untracked cache, ...) describe the old entries; git
    # rebuilds them when it needs them. A split or sparse index cannot be spliced.
    at = pos
    while at + 8 <= end:
        if data[at : at + 4] in (b"link", b"sdir"):
            return None
        (size,) = struct.unpack_from(">L", data, at + 4)
        at += 8 + size
    return version, names, offsets


def _write(index_path: Path, data: bytes) -> bool:
    lock = index_path.with_name("index.lock")
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False  # a git command is writing the index right now; it is refreshed later
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(lock, index_path)
    except BaseException:
        lock.unlink(missing_ok=True)
        raise
    return True


def _raw(path: str) -> bytes:
    """The bytes of ``path`` as git names it: a name that is not UTF-8 (kept as surrogates, as
    :meth:`~ov.store.gitstore.GitStore.iter_entries` reads it) gets its bytes back."""
    return path.encode("utf-8", "surrogateescape")
