"""Packing loose objects into packs with deltas: git's ``gc --auto``, bounded per run.

A commit with fewer than :data:`~ov.store.gitstore.PACK_THRESHOLD` new objects stores them
loose, a file each, and every captured turn stores the session's whole ``messages.jsonl`` again.
Months of use left 128,831 loose objects (858 MB of ``.git`` for a 74 MB work tree) and every
command that walks the object folders slow. So, after a command that wrote (never in a hook's
process, see :func:`auto_pack`'s callers), the loose objects are estimated as git does (one
fan-out folder counted, times 256); above ``store.auto_pack_loose`` the oldest of them, at most
:data:`PACK_OBJECTS` (and :data:`PACK_BYTES` of content) a run, go into one new pack, where each
version of a file is stored as its difference from a neighbouring version. Their bytes are
estimated too (a quarter of the folders' file sizes): a long session's copies of its
``messages.jsonl`` took 236 MB in 6,406 objects, under that count, and above :data:`LOOSE_BYTES`
a run packs the largest first, the newest superseded copies. A store far behind is caught up
over successive runs, which the detached packer goes on with for :data:`CATCH_UP_SECONDS`. A
run that wrote a pack, or any once ``store.auto_pack_limit`` packs are there, then folds packs
into fewer as git's geometric repack does (:mod:`ov.store.packfold`), which stores each older
pack's whole version of a file as a delta against the newer one. A command starts its run in a
detached process (:func:`ov.hosts.background.start_packing`) and does not wait for it.

**Without the write lock.** Writers wait for that lock and hooks give up after a while, so a
packer takes a lock of its own (``state/{account}/pack.lock``; a second packer skips) and
leaves the write lock alone: packing moves no ref and changes no object. Each loose object it
deletes is one it read and put into its pack, and only once that pack and its index are flushed,
renamed into place and the pack folder is flushed too. A crash at any instant leaves each object
loose, packed, or both; a temporary pack left behind is removed by
:meth:`~ov.store.gitstore.GitStore.recover`. What else looks at loose objects meanwhile:

- a writer's ``in`` checks (``_store_objects``, ``store_objects_ahead``) that find an object loose
  and skip writing it: the packer deletes it only when it is in a pack already;
- a reader that scanned the packs just before the new one came and looked for the loose file just
  after it went: :func:`ov.store.gitstore._retrying_store_class` looks once more;
- a commit's merge of small packs (:meth:`~ov.store.gitstore.GitStore.merge_small_packs`) waits
  for a run to end: the new pack is in place a moment before its ``.keep`` marks it;
- ``ov fsck`` reads through the same store; ``discard`` removes a new repository with a handful of
  objects (never above the threshold); snapshot restores, ``.ovpack`` imports and pulls add
  objects and move the branch under the write lock, and delete none.

The fan-out folders are left in place even when emptied: a writer may be about to put a file
into the one it has just made.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Iterator
from dataclasses import astuple, dataclass, replace
from pathlib import Path

from ov.files import flush_folder
from ov.store.deltas import cheap_delta

# The fan-out folder counted to estimate the loose objects (git counts objects/17 too).
SAMPLE_FOLDER = "17"
# The fan-out folders whose files' sizes estimate the loose objects' bytes: a few large objects
# (the copies of a long session's messages.jsonl) hold most of them, and one folder of 256 too
# often holds none of those. A listing and a stat a file of a quarter of the folders: ~4 ms at
# 4,800 objects (all of them: 14 ms, on every command that wrote).
SAMPLE_BYTES_FOLDERS = tuple(f"{n:02x}" for n in range(3, 256, 4))
# Loose files of about this many bytes on disk and a run is due whatever their count: each turn of
# a session stores its whole messages.jsonl again, so 800 turns of a 1.2 MB session left 236 MB
# of loose copies in 6,406 objects, under the count's threshold (store.auto_pack_loose).
LOOSE_BYTES = 16 << 20
# At most this many objects a run, and this many bytes of their content (all held in memory
# while the pack is written): about a second on a quiet 2-core machine, 4,000 took up to 4.8 s
# under a load of 6 (docs/benchmarks.md, bench/packing.py).
PACK_OBJECTS = 3000
PACK_BYTES = 32 << 20
# Once a run holds PACK_BYTES of content it still takes the loose files of at most this many
# bytes, up to PACK_OBJECTS: each turn of a session leaves a commit and a few trees of a few
# hundred bytes, each a file taking a 4 KB block, which the runs that took the largest copies
# left behind (6,000 files, 24 MB on disk, by turn 1,000 of a long session).
SMALL_LOOSE = 4096
# How many preceding objects each one is compared with, and how long a chain of deltas may grow
# (git's defaults): reading an object applies at most DELTA_DEPTH deltas.
DELTA_WINDOW = 10
DELTA_DEPTH = 50
DELTA_MIN_BYTES = 512
# Seconds of dulwich's general delta search a run may spend (see _with_deltas).
DELTA_SECONDS = 0.5
# How long the detached packer, which nobody waits for, goes on with runs while one is due: a
# store far behind is caught up by the first command's packer, not over a dozen commands; each
# run stays bounded in what it holds in memory.
CATCH_UP_SECONDS = 30.0
LOCK_NAME = "pack.lock"
_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}
_HEX = frozenset("0123456789abcdef")


@dataclass(frozen=True)
class PackRun:
    """What one packing run did."""

    packed: int  # loose objects now in the new pack
    dropped: int  # loose copies of objects some pack held already, deleted
    loose_bytes: int  # what their loose files took on disk
    pack_bytes: int  # the size of the new packs and their indexes
    seconds: float
    folded: int = 0  # packs folded into one (ov.store.packfold)
    runs: int = 1  # the runs these are the sums of

    def __add__(self, other: PackRun) -> PackRun:
        return PackRun(*(a + b for a, b in zip(astuple(self), astuple(other), strict=True)))

    @property
    def worked(self) -> bool:
        return bool(self.packed or self.dropped or self.folded)


@dataclass
class _Loose:
    """A loose object read for packing, and where its file is."""

    sha: str
    path: str
    type_num: int
    raw: bytes
    disk_bytes: int
    hint: bytes = b""  # the path it was found at: versions of one file sort together


def estimate_loose(objects: Path) -> int:
    """About how many loose objects ``objects`` holds: one fan-out folder's count times 256."""
    try:
        with os.scandir(objects / SAMPLE_FOLDER) as entries:
            return 256 * sum(1 for entry in entries if len(entry.name) == 38)
    except (FileNotFoundError, NotADirectoryError):
        return 0


def estimate_loose_bytes(objects: Path) -> int:
    """About how many bytes the loose files of ``objects`` take: those of SAMPLE_BYTES_FOLDERS,
    scaled to all 256."""
    total = 0
    for name in SAMPLE_BYTES_FOLDERS:
        try:
            with os.scandir(objects / name) as entries:
                for entry in entries:
                    if len(entry.name) == 38:
                        try:
                            total += entry.stat(follow_symlinks=False).st_size
                        except FileNotFoundError:
                            continue  # packed meanwhile
        except (FileNotFoundError, NotADirectoryError):
            continue
    return total * 256 // len(SAMPLE_BYTES_FOLDERS)


def _loose_due(objects: Path, threshold: int) -> str:
    """Why a batch of loose objects is due: "count" (about ``threshold`` of them), "bytes" (about
    LOOSE_BYTES of loose files, however few), whichever is further past its threshold, or ""
    (neither, or ``threshold`` 0: packing off)."""
    if threshold <= 0:
        return ""
    count = estimate_loose(objects) / threshold
    if count >= 2:
        return "count"  # far behind by number: the bytes' sample would stat a file of every 4
    size = estimate_loose_bytes(objects) / LOOSE_BYTES
    if max(count, size) < 1:
        return ""
    # The oldest objects first for their number, the largest for their bytes: oldest first, a
    # long session's copies were packed smallest first, and its .git kept growing.
    return "bytes" if size > count else "count"


def due(git, threshold: int, limit: int = 0) -> bool:
    """Whether a run would have work: about ``threshold`` or more loose objects, or about
    LOOSE_BYTES of loose files (``threshold`` 0: never), or ``limit`` or more packs of the kind
    a run folds together (0: never; :func:`ov.store.packfold.folding`: not a set a fold failed
    on, unchanged since). A few folder listings, for a command to decide whether to start a run
    at all."""
    if not git.exists:
        return False
    from ov.store.packfold import folding

    objects = git.worktree / ".git" / "objects"
    return bool(_loose_due(objects, threshold)) or bool(folding(git, limit))


def auto_pack(git, threshold: int, limit: int = 0, seconds: float = 0) -> PackRun | None:
    """:func:`run` when it has work (:func:`due`) and no other packer is running (``seconds``:
    :func:`runs`); None when it had nothing to do or another packer is running. For a command
    that has finished its work: it may take seconds, and nobody should be waiting on a hook for
    it."""
    if not due(git, threshold, limit):
        return None
    from filelock import FileLock, Timeout

    lock = FileLock(git.state / LOCK_NAME)
    try:
        lock.acquire(timeout=0)
    except (Timeout, OSError):  # another packer (or no state folder to hold the lock in)
        return None
    try:
        return runs(git, threshold, limit, seconds)
    finally:
        lock.release()


def run(git, threshold: int, limit: int = 0) -> PackRun:
    """One run, its caller holding the pack lock: a batch of loose objects packed when about
    ``threshold`` are loose (the oldest) or their files hold about LOOSE_BYTES (the largest),
    then packs folded into one as git's geometric rule picks them, when a pack was written or
    ``limit`` are there (0: never)."""
    from ov.store.packfold import fold, folding

    objects = git.worktree / ".git" / "objects"
    done = PackRun(0, 0, 0, 0, 0.0)
    why = _loose_due(objects, threshold)
    if why:
        done = pack_loose(git, largest=why == "bytes", above=LOOSE_BYTES if why == "bytes" else 0)
    # After a new pack, git's geometric rule at once: each run's pack holds a whole version of
    # the files it took, which only a fold turns into a delta (ov.store.packfold).
    bases = folding(git, limit, fresh=done.packed > 0)
    if bases:
        folded = fold(git, bases)
        done = replace(done, folded=folded.packs, pack_bytes=done.pack_bytes + folded.pack_bytes, seconds=done.seconds + folded.seconds)
    return done


def runs(git, threshold: int, limit: int = 0, seconds: float = 0) -> PackRun:
    """:func:`run`, then more runs while one is due and the last did some work, until ``seconds``
    have passed (0: one run); what they did, summed."""
    started = time.monotonic()
    done = last = run(git, threshold, limit)
    while last.worked and time.monotonic() - started < seconds and due(git, threshold, limit):
        last = run(git, threshold, limit)
        done += last
    return done


def packing_now(state: Path) -> bool:
    """Whether a packer of the account whose state folder is ``state`` is running."""
    from filelock import FileLock, Timeout

    if not (state / LOCK_NAME).exists():
        return False
    probe = FileLock(state / LOCK_NAME)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:
        return False
    probe.release()
    return False


def pack_after_write(store, held: bool = False, seconds: float = 0) -> PackRun | None:
    """:func:`auto_pack` for ``store`` at its configured thresholds, after a command or a job that
    wrote (``held``: the caller holds the pack lock, and :func:`runs` runs without taking it;
    ``seconds``: how long further runs may go on, for a packer nobody waits for); a failure (a
    full disk) is logged, never raised: the command's own work is done. ``store`` may be how to
    open it (a job or the MCP server opens one for this): a failure to open it (a config made
    invalid meanwhile) is one of packing's too."""
    try:
        if callable(store):
            store = store()
        config = store.config.store
        if held:
            return runs(store.git, config.auto_pack_loose, config.auto_pack_limit, seconds) if store.git.exists else None
        return auto_pack(store.git, config.auto_pack_loose, config.auto_pack_limit, seconds)
    except Exception as exc:  # noqa: BLE001 - tidying only: every object is still where it was
        import logging

        logging.getLogger("ov").debug("loose objects not packed: %s", exc)
        return None


def pack_loose(git, most: int | None = None, most_bytes: int | None = None, largest: bool = False, above: int = 0) -> PackRun:
    """Move the oldest loose objects (``largest``: the largest; at most ``most`` of them,
    ``most_bytes`` of content, then only files of at most SMALL_LOOSE bytes) into one new pack
    with deltas, then delete their loose files. The caller holds the pack lock.

    The largest are the newest superseded copies of the files that grow, a long session's
    messages.jsonl: oldest first, a run of PACK_BYTES took its first, smallest versions, and
    each turn added a larger copy than a run took away. Largest first, a run takes a few dozen
    successive versions, which the pack stores as one copy and the lines each added.

    ``above``: nothing is packed unless the loose files take at least that many bytes, counted
    all (the estimate that made the run due samples a quarter of them). Runs packing a copy or
    two each, the next turn's estimate over the threshold again, would store a whole copy in a
    pack each turn; counted, each run takes a few dozen turns' copies and the next waits for as
    many turns."""
    started = time.monotonic()
    most = PACK_OBJECTS if most is None else most
    most_bytes = PACK_BYTES if most_bytes is None else most_bytes
    disk = git.repo.object_store
    batch, dropped = [], []
    size = 0
    found = _oldest_loose(Path(disk.path), largest)
    if above and sum(disk_bytes for _, _, disk_bytes in found) < above:
        return PackRun(0, 0, 0, 0, time.monotonic() - started)
    for sha, path, disk_bytes in found:
        if len(batch) >= most or size >= 2 * most_bytes:
            break
        if size >= most_bytes and disk_bytes > SMALL_LOOSE:
            continue  # the content's bound reached: only the small ones still go
        if disk.contains_packed(sha.encode()):
            dropped.append((path, disk_bytes))  # a copy left by a crash, or stored ahead and packed
            continue
        loose = _read(sha, path, disk_bytes)
        if loose is not None:
            batch.append(loose)
            size += len(loose.raw)
    pack_bytes = 0
    if batch:
        _name_paths(batch)
        batch.sort(key=lambda o: (o.type_num, o.hint, -len(o.raw)))
        from dulwich.pack import write_pack_data

        def write(f) -> tuple[list, bytes]:
            # The index from what was written: dulwich's add_pack_data read the pack back,
            # applying every delta to hash each object again (a fifth of a run).
            entries, checksum = write_pack_data(f.write, _with_deltas(batch), disk.object_format, num_records=len(batch))
            return sorted((sha, offset, crc) for sha, (offset, crc) in entries.items()), checksum

        pack = write_pack(disk.pack_dir, write)
        # git's mark for a pack to keep as it is: the merge of small packs under the write lock
        # (GitStore.merge_small_packs) would write its objects out whole, without their deltas.
        mark_kept(pack)
        pack_bytes = sum(os.path.getsize(pack + suffix) for suffix in (".pack", ".idx"))
    if batch or dropped:
        # The renames of this pack and its index (or of the pack another writer made, which holds
        # the dropped ones) reach the disk before any loose copy is deleted.
        flush_folder(disk.pack_dir)
        _delete([o.path for o in batch] + [path for path, _ in dropped])
    loose_bytes = sum(o.disk_bytes for o in batch) + sum(b for _, b in dropped)
    return PackRun(len(batch), len(dropped), loose_bytes, pack_bytes, time.monotonic() - started)


def write_pack(pack_dir: str, write) -> str:
    """A new pack in ``pack_dir``: ``write(f)`` writes its data into a temporary file and returns
    its index's entries, sorted (sha, offset, crc32), and its checksum. The file is flushed, its
    index written and flushed, both made read-only and renamed into place, the pack first (a
    reader lists a pack once its index is there). Its path without suffix; where a pack of these
    very objects is there already (its name comes from them), that one's, and the file written is
    removed. A killed writer's temporary files are swept by
    :meth:`~ov.store.gitstore.GitStore.recover`."""
    import tempfile

    from dulwich.pack import iter_sha1, write_pack_index

    fd, temp = tempfile.mkstemp(dir=pack_dir, suffix=".pack")
    try:
        with os.fdopen(fd, "wb") as f:
            entries, checksum = write(f)
            f.flush()
            os.fsync(f.fileno())
        target = os.path.join(pack_dir, "pack-" + iter_sha1(sha for sha, _, _ in entries).decode("ascii"))
        if os.path.exists(target + ".idx"):
            os.unlink(temp)
            return target
        fd, temp_idx = tempfile.mkstemp(dir=pack_dir, suffix=".idx")
        try:
            with os.fdopen(fd, "wb") as f:
                write_pack_index(f, entries, checksum)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(temp, 0o444)
            os.chmod(temp_idx, 0o444)
            os.replace(temp, target + ".pack")
            os.replace(temp_idx, target + ".idx")
        except BaseException:
            _unlink(temp_idx)
            raise
    except BaseException:
        _unlink(temp)
        raise
    return target


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def mark_kept(base: str) -> None:
    """Mark the pack ``base`` (its path without suffix) as the packer's with an empty ``.keep``:
    one the merge of small packs leaves alone and a fold takes. Appended to, never emptied: a
    ``.keep`` already there with a reason in it is git's (a pack of the same objects, so the same
    name), and stays git's."""
    with open(base + ".keep", "ab"):
        pass


def _oldest_loose(objects: Path, largest: bool = False) -> list[tuple[str, str, int]]:
    """(sha, path, size on disk) of every loose object, oldest first (``largest``: largest
    first): the objects of consecutive commits, or a file's successive largest versions, go into
    one pack, where the versions of a file delta against each other."""
    found = []
    for folder in os.scandir(objects):
        if len(folder.name) != 2 or not folder.is_dir(follow_symlinks=False):
            continue
        try:
            with os.scandir(folder.path) as entries:
                for entry in entries:
                    if len(entry.name) != 38 or not _HEX.issuperset(entry.name):
                        continue  # a temporary file of a write in flight, a lock
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    found.append((info.st_mtime, folder.name + entry.name, entry.path, info.st_size))
        except FileNotFoundError:
            continue
    found.sort(key=(lambda f: (-f[3], f[0])) if largest else None)
    return [(sha, path, disk_bytes) for _, sha, path, disk_bytes in found]


def _read(sha: str, path: str, disk_bytes: int) -> _Loose | None:
    """The loose object at ``path``, or None when it is gone or is not the object its name says
    (never packed, never deleted: ``ov fsck`` and git report it)."""
    import hashlib

    try:
        with open(path, "rb") as f:
            whole = zlib.decompress(f.read())
    except (FileNotFoundError, zlib.error):
        return None
    header, _, raw = whole.partition(b"\0")
    kind, _, length = header.partition(b" ")
    if kind not in _TYPES or not length.isdigit() or int(length) != len(raw) or hashlib.sha1(whole).hexdigest() != sha:
        return None
    return _Loose(sha, path, _TYPES[kind], raw, disk_bytes)


def _name_paths(batch: list[_Loose]) -> None:
    """Give each tree and blob of ``batch`` the path a commit or tree of the batch names it by:
    the full path from a commit's root, else the name in the tree that holds it."""
    from dulwich.objects import Tree

    by_sha = {o.sha: o for o in batch}
    trees: dict[str, Tree] = {}

    def tree(sha: str) -> Tree:
        if sha not in trees:
            trees[sha] = Tree.from_raw_string(2, by_sha[sha].raw)
        return trees[sha]

    for obj in batch:
        if obj.type_num == 2:
            for name, _mode, sha in tree(obj.sha).iteritems():
                found = by_sha.get(sha.decode())
                if found is not None and not found.hint:
                    found.hint = name
    for obj in batch:
        if obj.type_num != 1 or not obj.raw.startswith(b"tree "):
            continue
        todo = [(obj.raw[5:45].decode(), b"")]
        while todo:
            sha, prefix = todo.pop()
            found = by_sha.get(sha)
            if found is None or found.type_num != 2:
                continue  # a tree of an earlier pack: what is below it is not loose either
            found.hint = prefix
            for name, mode, child in tree(sha).iteritems():
                path = prefix + b"/" + name if prefix else name
                if mode & 0o170000 == 0o040000:
                    todo.append((child.decode(), path))
                elif child.decode() in by_sha:
                    by_sha[child.decode()].hint = path


def _with_deltas(batch: list[_Loose]) -> Iterator:
    """The pack records of ``batch`` (sorted by type, path and size, largest first), each the
    smallest delta against its path's first object or one of the DELTA_WINDOW objects before
    it, or whole.

    dulwich's own ``deltify_pack_objects`` does the same search but bounds no delta chain (the
    200 versions of a growing file in one pack became a chain 200 deltas deep, applied in full
    on every read of the oldest one) and no time: its ``create_delta`` took 15 ms for some
    30 KB pairs of a session file (text of few distinct characters), 10 s for one run. Here a
    base is taken only while its chain is shorter than DELTA_DEPTH; the path's first (largest)
    version is tried first, so that the versions of a file appended to all copy from it and
    their chains stay one delta deep (from the one before each, they made a chain as long as
    the run, and a fold that rebased its first on another pack's pushed them past the bound);
    the deltas of :func:`cheap_delta` come first, in linear time; ``create_delta`` only where
    they save little, between versions of one path, and only for DELTA_SECONDS a run. A delta
    is kept only under half the object (git's own cut-off).
    """
    from dulwich.pack import UnpackedObject, create_delta

    window: list[tuple[_Loose, bytes, int]] = []  # (object, its sha, its chain depth), newest first
    roots: dict[tuple[int, bytes], tuple[_Loose, bytes, int]] = {}  # each path's first object
    searched = 0.0
    for obj in batch:
        best, base, depth = None, None, 0
        limit, enough = len(obj.raw) // 2, len(obj.raw) // 32
        # A commit differs from the one before in ids and times, and a small object can save a
        # few hundred bytes at most: their search cost most of a run, for about 1% of the pack.
        tried = []
        if obj.type_num != 1 and len(obj.raw) >= DELTA_MIN_BYTES:
            root = roots.get((obj.type_num, obj.hint)) if obj.hint else None
            tried = ([root] if root is not None else []) + [entry for entry in window if entry is not root]
        for candidate, candidate_sha, candidate_depth in tried:
            if candidate.type_num != obj.type_num or candidate_depth >= DELTA_DEPTH:
                continue
            same_path = candidate.hint == obj.hint
            delta = cheap_delta(candidate.raw, obj.raw, enough, lines=same_path)
            if len(delta) > enough and same_path and searched < DELTA_SECONDS:
                started = time.monotonic()
                found = b"".join(create_delta(candidate.raw, obj.raw))
                searched += time.monotonic() - started
                delta = min(delta, found, key=len)
            if len(delta) < limit:
                best, base, depth, limit = delta, candidate_sha, candidate_depth + 1, len(delta)
                if limit <= enough:
                    break  # no other base can save much more
        sha = bytes.fromhex(obj.sha)
        chunks = [best] if best is not None else [obj.raw]
        yield UnpackedObject(obj.type_num, sha=sha, delta_base=base, decomp_len=len(chunks[0]), decomp_chunks=chunks)
        window.insert(0, (obj, sha, depth))
        del window[DELTA_WINDOW:]
        roots.setdefault((obj.type_num, obj.hint), window[0])


def _delete(paths: list[str]) -> None:
    """Delete the loose files ``paths``. Freeing a flushed file costs this disk up to ~3 ms; a
    few threads overlap those waits, as the work tree's writes do (a run of 4,000: ~10 s alone)."""
    from concurrent.futures import ThreadPoolExecutor

    def delete(path: str) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(delete, paths))
