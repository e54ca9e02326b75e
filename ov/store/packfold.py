"""Folding packs into one, their deltas kept: git's ``gc.autoPackLimit``, with its geometric rule.

Each packing run (:mod:`ov.store.packing`) leaves a pack of at most 3,000 objects, and every
object lookup searches every pack's index in turn: over years a store would hold hundreds. So a
run that wrote a pack, or any run once ``store.auto_pack_limit`` (50, git's default) packs are
there, folds some of them into one new pack, as ``git repack --geometric=2`` picks them: the
smallest, and each larger one under twice what is folded below it. Packs of equal size all go;
a large pack that is at least twice the rest stays, so an object is copied about
log2(store / run) times over the store's life.

**Copied, not repacked.** Each object's record is copied from its pack byte for byte, checked
against the CRC its index holds: a delta stays a delta against the same base (an offset delta's
header rewritten for where its base is now), and nothing is inflated, searched for deltas or
compressed again: 26,310 objects folded in 0.23-0.27 s, against 1.0-1.4 s through dulwich's
unpacked objects, which inflates and compresses each one again. A delta whose chain would pass
:data:`~ov.store.packing.DELTA_DEPTH` (an object kept in two packs, the copy taken on another
chain) or whose base is not written yet is written whole. The index is written from what was
copied, without reading the new pack back.

**Whole versions become deltas.** Each run's pack holds one version of each file whole, the
others as deltas against it: a long session's ``messages.jsonl`` (2.3 MB at 1,500 turns) was
kept whole once per run, and ``.git`` grew with the square of the session. So a whole blob of a
folded pack whose start (:data:`HEAD_BYTES`) is that of a whole blob written before it in the new
pack, the newest pack's first, is stored as a delta against it where
:func:`~ov.store.deltas.cheap_delta` finds one under half its size: the one record inflated,
and the candidate it is compared with. The packs are written newest first, so the newest version
stays whole and the older ones become the copies of its start they are.

**Which packs.** Those the merge of small packs
(:meth:`~ov.store.gitstore.GitStore.merge_small_packs`, under the write lock) never takes: the
packer's, marked by an empty ``.keep``, and any unmarked one of ``SMALL_PACK_BYTES`` or more (a
large ``add-resource``, a pull). A pack whose ``.keep`` says why (git's, ``git index-pack --keep``)
is git's contract to keep, and is left alone. The small unmarked ones stay the merge's: two folders
of packs, each with one owner. The new pack is marked ``.keep`` too: for that merge it is a
packer's pack with deltas, for this fold one to take again, and for ``git gc`` one to leave as it
is.

**Crash-safe, readers safe.** Under the pack lock (never the write lock), as the packer. The new
pack and index are flushed and renamed into place, and the pack folder flushed, before any old pack
goes; each old pack first gets a ``.keep`` (so what a crash leaves half-removed is recognisably
ours), then loses its index (no reader lists it any more), its data, and its mark. A crash leaves
every object in the new pack, an old one, or both; an empty ``.keep`` beside a pack with no index is
what such a crash left, removed by the next fold. A reader that listed the old packs still reads
them where its files are open (removing a file does not take it from a process that holds it), and
where they are not dulwich finds them gone, forgets them, lists the folder again and finds the
new pack (``PackFileDisappeared``), as when git repacks under it.

**A damaged pack is not folded again and again.** A fold that finds one of its packs damaged (an
object whose CRC differs from its index's, an index that does not load) writes what it folded and
why into ``state/{account}/fold-failed.json`` and leaves every pack where it was. While each of those
packs is still there as it was (same size, same time), no run takes that set again and no command
starts a run for it (:func:`folding`): a new pack changes the set, a pack restored in place its
time. ``ov fsck`` names it (:func:`failed_fold`).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from ov.files import flush_folder
from ov.store.deltas import cheap_delta
from ov.store.packing import DELTA_DEPTH, DELTA_MIN_BYTES, mark_kept, write_pack

FACTOR = 2  # git's --geometric=2
# How much of a whole blob's start says which earlier whole blobs it may be a version of, how
# many of those (the newest) it is compared with, and how many bytes of their compressed records
# a fold keeps for that (the oldest let go first).
HEAD_BYTES = 64
HEAD_CANDIDATES = 4
BASES_BYTES = 64 << 20
FAILED_NAME = "fold-failed.json"
# What each pack's basename may have beside it: git's reverse index, bitmap, mtimes, promisor.
_BESIDE = (".rev", ".bitmap", ".mtimes", ".promisor")


@dataclass(frozen=True)
class Fold:
    """What one fold did."""

    packs: int  # the old packs folded (and removed)
    objects: int  # in the new pack
    pack_bytes: int  # the new pack and its index
    seconds: float


def to_fold(pack_dir: Path, limit: int, fresh: bool = False) -> list[str]:
    """The packs (paths without their suffix) a run folds into one now: none until ``limit``
    (0: never) packs of the kind a fold takes are there, or (``fresh``) the run has just written
    one, then git's geometric choice, smallest first. One listing of the pack folder, a ``stat`` a
    pack."""
    if limit <= 0:
        return []
    from ov.store.gitstore import SMALL_PACK_BYTES

    try:
        names = set(os.listdir(pack_dir))
    except OSError:
        return []
    sized = []
    for name in names:
        base = name[: -len(".idx")]
        if not name.endswith(".idx") or base + ".pack" not in names:
            continue  # only a pack with its index is complete
        try:
            size = os.path.getsize(os.path.join(pack_dir, base + ".pack"))
            kept = os.path.getsize(os.path.join(pack_dir, base + ".keep")) if base + ".keep" in names else None
        except OSError:
            continue
        if kept == 0 or (kept is None and size >= SMALL_PACK_BYTES):
            sized.append((size, os.path.join(pack_dir, base)))  # a .keep with a reason in it is git's: left as it is
    if len(sized) < (2 if fresh else limit):
        return []
    sized.sort()
    split = _geometric_split([size for size, _ in sized])
    return [base for _, base in sized[:split]] if split >= 2 else []


def folding(git, limit: int, fresh: bool = False) -> list[str]:
    """:func:`to_fold`, less a set of packs a fold already failed on and that is unchanged since."""
    bases = to_fold(git.worktree / ".git" / "objects" / "pack", limit, fresh)
    if bases:
        failed = _read_failure(git.state)
        if failed is not None and failed["packs"] == _signature(bases):
            return []
    return bases


@dataclass(frozen=True)
class FailedFold:
    """A fold that failed on a damaged pack, its packs all still there as they were."""

    packs: list[str]  # their file names
    error: str
    at: str  # when, ISO 8601 (UTC)

    @property
    def message(self) -> str:
        return (
            f"packing could not fold {len(self.packs)} packs into one ({self.at[:10]}): {self.error}; "
            "no run folds them again while they stay as they are (every object of the other packs is read as before)"
        )

    def fix(self, worktree: Path) -> str:
        return (
            f"`git -C {worktree} fsck --full` names the damaged objects; put the damaged pack's copy from a backup of the "
            "home in its place, or restore the account from a backup (packing folds again once the packs change)"
        )


def failed_fold(state: Path, pack_dir: Path) -> FailedFold | None:
    """The fold recorded as failed in ``state``, when every pack it took is still in ``pack_dir``
    as it was: the damage is still there, and no run folds those packs."""
    failed = _read_failure(state)
    if failed is None:
        return None
    names = [entry[0] for entry in failed["packs"]]
    if failed["packs"] != _signature([os.path.join(pack_dir, name[: -len(".pack")]) for name in names]):
        return None
    return FailedFold(names, str(failed.get("error", "")), str(failed.get("at", "")))


def _signature(bases: list[str]) -> list[list]:
    """Each pack of ``bases`` as a fold failure records it: its file name, size and time (a pack
    restored in place from a backup has the same name), sorted; a pack gone is left out."""
    found = []
    for base in bases:
        try:
            info = os.stat(base + ".pack")
        except OSError:
            continue
        found.append([os.path.basename(base) + ".pack", info.st_size, info.st_mtime_ns])
    return sorted(found)


def _read_failure(state: Path) -> dict | None:
    import json

    try:
        failed = json.loads((state / FAILED_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return failed if isinstance(failed, dict) and isinstance(failed.get("packs"), list) else None


def _record_failure(state: Path, bases: list[str], error: Exception) -> None:
    from datetime import UTC, datetime

    from ov.files import atomic_write, json_bytes

    failed = {"packs": _signature(bases), "error": str(error) or type(error).__name__, "at": datetime.now(UTC).isoformat(timespec="seconds")}
    try:
        atomic_write(state / FAILED_NAME, json_bytes(failed))
    except OSError:
        pass  # no state folder to write in: the next run tries again, as before


def _clear_failure(state: Path) -> None:
    try:
        os.unlink(state / FAILED_NAME)
    except OSError:
        pass


def _geometric_split(sizes: list[int]) -> int:
    """How many of ``sizes`` (ascending) to fold: git's ``split_pack_geometry``. The largest
    packs that already grow by FACTOR each stay, then each of them under FACTOR times what is
    folded below it joins the fold."""
    split = len(sizes) - 1
    while split > 0 and sizes[split] >= FACTOR * sizes[split - 1]:
        split -= 1
    if split:
        split += 1  # the larger of the pair that broke the progression cannot stay in it either
    total = sum(sizes[:split])
    while split < len(sizes) and sizes[split] < FACTOR * total:
        total += sizes[split]
        split += 1
    return split


def fold(git, bases: list[str]) -> Fold:
    """Fold the packs ``bases`` into one new pack, their objects copied with their deltas, then
    remove them. The caller holds the pack lock (:func:`ov.store.packing.auto_pack`). A damaged
    pack fails the fold, every pack left as it was, and is recorded so that no run retries it
    (:func:`folding`)."""
    from ov.store.gitstore import object_damage

    started = time.monotonic()
    disk = git.repo.object_store
    pack_dir = disk.pack_dir
    _sweep_half_removed(pack_dir)
    try:
        target, objects = _write(pack_dir, bases, disk.object_format)
    except (ValueError, AssertionError, *object_damage()) as exc:  # a damaged pack or index (not a full disk: that passes)
        _record_failure(git.state, bases, exc)
        raise
    _clear_failure(git.state)
    mark_kept(target)
    flush_folder(pack_dir)
    old = [base for base in bases if base != target]  # the same objects make the same name
    for base in old:
        mark_kept(base)
    for base in old:
        _remove_pack(base)
    pack_bytes = sum(os.path.getsize(target + suffix) for suffix in (".pack", ".idx"))
    return Fold(len(old), objects, pack_bytes, time.monotonic() - started)


def _write(pack_dir: str, bases: list[str], object_format) -> tuple[str, int]:
    """Write the objects of the packs ``bases`` (each once) as one pack and its index, flushed
    and renamed into place (:func:`~ov.store.packing.write_pack`); its path without suffix and
    how many objects it holds."""
    from dulwich.pack import load_pack_index

    listed = []  # each pack's (offset, sha, crc32) in the order of its file
    # The newest pack first: its versions stay whole, the older packs' become deltas against them.
    for base in sorted(bases, key=_age):
        index = load_pack_index(base + ".idx", object_format)
        try:
            listed.append((base, sorted((offset, sha, crc) for sha, offset, crc in index.iterentries())))
        finally:
            index.close()
    count = len({sha for _, entries in listed for _, sha, _ in entries})

    def write(f) -> tuple[list, bytes]:
        out = _Out(f)
        out.write(b"PACK" + (2).to_bytes(4, "big") + count.to_bytes(4, "big"))
        for base, entries in listed:
            _copy_pack(base, entries, out, object_format)
        if len(out.written) != count:
            raise ValueError(f"a fold copied {len(out.written)} objects of {count}")
        checksum = out.digest.digest()
        f.write(checksum)
        return sorted((sha, offset, crc) for sha, (offset, _depth, crc) in out.written.items()), checksum

    return write_pack(pack_dir, write), count


def _age(base: str) -> tuple[int, str]:
    """A sort key putting the newest pack first."""
    try:
        return -os.stat(base + ".pack").st_mtime_ns, base
    except OSError:
        return 0, base


class _Out:
    """The new pack as it is written: its checksum so far, and each object written in it."""

    def __init__(self, f) -> None:
        import hashlib

        self.f = f
        self.digest = hashlib.sha1()
        self.offset = 0
        self.written: dict[bytes, tuple[int, int, int]] = {}  # sha -> (offset, chain depth, crc32)
        self.bases = _Bases()

    def write(self, chunk: bytes) -> None:
        self.f.write(chunk)
        self.digest.update(chunk)
        self.offset += len(chunk)

    def record(self, sha: bytes, depth: int, chunks: list) -> None:
        import zlib

        crc = 0
        offset = self.offset
        for chunk in chunks:
            self.write(chunk)
            crc = zlib.crc32(chunk, crc)
        self.written[sha] = (offset, depth, crc)


def _copy_pack(base: str, entries: list, out: _Out, object_format) -> None:
    """Append the records of the pack ``base`` that ``out`` lacks, each as stored there: its
    compressed bytes as they are, an offset delta's header rewritten for where its base is now.
    A whole blob of DELTA_MIN_BYTES or more as a delta against a version written before it where
    one is found (:class:`_Bases`). Whole (inflated and compressed again) where its chain would
    pass DELTA_DEPTH or its base is not written yet."""
    import mmap
    import zlib

    from dulwich.pack import (
        OFS_DELTA,
        REF_DELTA,
        Pack,
        pack_object_chunks,
        pack_object_header,
    )

    at = {offset: sha for offset, sha, _crc in entries}
    source = None  # the pack opened by dulwich, for the rare object written whole
    try:
        with open(base + ".pack", "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            ends = [offset for offset, _, _ in entries[1:]] + [len(data) - 20]
            for (start, sha, crc), end in zip(entries, ends, strict=True):
                if sha in out.written:
                    continue
                record = data[start:end]
                if crc is not None and zlib.crc32(record) != crc:
                    raise ValueError(f"{os.path.basename(base)}.pack: object {sha.hex()} is damaged (its CRC differs from its index's)")
                kind, size, body = _header(record)
                if kind == OFS_DELTA:
                    distance, body = _distance(record, body)
                    delta_base = at.get(start - distance)
                elif kind == REF_DELTA:
                    delta_base, body = record[body : body + 20], body + 20
                else:
                    if kind != _BLOB or size < DELTA_MIN_BYTES or not _rebased(out, sha, None, record[body:], object_format):
                        out.record(sha, 0, [record])
                    continue
                found = out.written.get(delta_base)
                if found is not None and found[1] < DELTA_DEPTH:
                    header = pack_object_header(OFS_DELTA, out.offset - found[0], size, object_format)
                    out.record(sha, found[1] + 1, [bytes(header), record[body:]])
                    continue
                if source is None:
                    source = Pack(base, object_format=object_format)
                type_num, raw = source.get_raw(sha)
                if type_num != _BLOB or len(raw) < DELTA_MIN_BYTES or not _rebased(out, sha, raw, None, object_format):
                    out.record(sha, 0, list(pack_object_chunks(type_num, [raw], object_format)))
    finally:
        if source is not None:
            source.close()


_BLOB = 3


def _rebased(out: _Out, sha: bytes, raw: bytes | None, compressed: bytes | None, object_format) -> bool:
    """Write the whole blob ``sha`` (its content ``raw``, or its record's ``compressed`` data) as
    a delta against a whole blob written before it that starts as it does, when one saves more
    than half; else write nothing and keep it as a base for the blobs after it."""
    import zlib

    from dulwich.pack import OFS_DELTA, pack_object_header

    if raw is None:
        head = zlib.decompressobj().decompress(compressed, HEAD_BYTES)
    else:
        head = raw[:HEAD_BYTES]
    best = None
    for base_sha, base_compressed in out.bases.like(head):
        offset, depth, _crc = out.written[base_sha]
        if depth >= DELTA_DEPTH:
            continue
        if raw is None:
            raw = zlib.decompress(compressed)
        delta = cheap_delta(zlib.decompress(base_compressed), raw, len(raw) // 32)
        if len(delta) < len(raw) // 2 and (best is None or len(delta) < len(best[0])):
            best = (delta, offset, depth)
    if best is None:
        if compressed is None:
            compressed = zlib.compress(raw)
        out.bases.add(head, sha, compressed)
        return False
    delta, offset, depth = best
    header = pack_object_header(OFS_DELTA, out.offset - offset, len(delta), object_format)
    out.record(sha, depth + 1, [bytes(header), zlib.compress(delta)])
    return True


class _Bases:
    """The whole blobs a fold wrote, by their first HEAD_BYTES: the versions of a file share their
    start (a session's messages, its ``.meta.json``). For each start the newest HEAD_CANDIDATES,
    their compressed data held up to BASES_BYTES in all."""

    def __init__(self) -> None:
        from collections import OrderedDict

        self.by_head: OrderedDict[bytes, list[tuple[bytes, bytes]]] = OrderedDict()
        self.size = 0

    def like(self, head: bytes) -> list[tuple[bytes, bytes]]:
        return list(reversed(self.by_head.get(head, [])))

    def add(self, head: bytes, sha: bytes, compressed: bytes) -> None:
        kept = self.by_head.setdefault(head, [])
        self.by_head.move_to_end(head)
        kept.append((sha, compressed))
        self.size += len(compressed)
        if len(kept) > HEAD_CANDIDATES:
            self.size -= len(kept.pop(0)[1])
        while self.size > BASES_BYTES and self.by_head:
            _, dropped = self.by_head.popitem(last=False)
            self.size -= sum(len(c) for _, c in dropped)


def _header(record: bytes) -> tuple[int, int, int]:
    """A pack record's type, size (inflated) and where what follows its type and size starts."""
    byte = record[0]
    kind, size, shift, at = (byte >> 4) & 7, byte & 15, 4, 1
    while byte & 0x80:
        byte = record[at]
        size |= (byte & 0x7F) << shift
        shift += 7
        at += 1
    return kind, size, at


def _distance(record: bytes, at: int) -> tuple[int, int]:
    """An offset delta's distance back to its base (git's encoding), and where its data starts."""
    byte = record[at]
    distance = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = record[at]
        distance = ((distance + 1) << 7) | (byte & 0x7F)
        at += 1
    return distance, at


def _remove_pack(base: str) -> None:
    """Remove a folded pack: its index first (no reader lists it from then on), its mark last."""
    for suffix in (".idx", *_BESIDE, ".pack", ".keep"):
        _unlink(base + suffix)


def _sweep_half_removed(pack_dir: str) -> None:
    """Finish the removals a killed fold left: an empty ``.keep`` (the packer's; git writes a
    reason into its own) beside no index."""
    try:
        names = set(os.listdir(pack_dir))
    except OSError:
        return
    for name in names:
        base = name[: -len(".keep")]
        if name.endswith(".keep") and base + ".idx" not in names:
            path = os.path.join(pack_dir, base)
            try:
                if os.path.getsize(path + ".keep"):
                    continue
            except OSError:
                continue
            _remove_pack(path)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
