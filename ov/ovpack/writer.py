"""Writing an OVPack (the layout is in :mod:`ov.ovpack.format`) a file at a time.

A pack may hold 1 GiB of files, and its index records repeat their text: held at once (as an
export did), they took four to five times the content in memory. So the blobs are read from git
one at a time, when each is needed, and the records (and vectors) go to unnamed temporary files
beside the pack until they are copied into it: memory stays near the largest file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from ov import __version__
from ov.errors import OvError, TooLarge, disk_full
from ov.files import content_problem, replacement_beside, untouched_for
from ov.ovpack import format as pack_format
from ov.ovpack.format import (
    DENSE,
    EXTENSION,
    FILES_DIR,
    FORMAT_VERSION,
    KIND,
    MANIFEST,
    META_DIR,
    RECORDS,
    content_sha256,
    sha256_hex,
)
from ov.progress import Progress, counting
from ov.store.treepaths import quoted
from ov.uri import TEMP_MARKER


class VectorsUnavailable(OvError):
    """Vectors were asked for (``--include-vectors``, ``--vector-mode require``) and cannot be had."""

    code = "vectors_unavailable"


class UnpackableFile(OvError):
    """Every file of the last commit below what is packed is one no import or restore takes (not
    text, which ov does not store: :func:`ov.files.content_problem`): a pack without files is one
    no reader takes either, so none is written."""

    code = "unpackable_file"


# What to do about a file left out of a pack because no reader would take it back.
NOT_TEXT_FIX = "convert it to UTF-8 text or remove it in the work tree, then `ov snapshot commit -m MESSAGE`"


@dataclass(frozen=True)
class LeftOut:
    """A committed file a pack was written without: no import or restore would take it, and one
    such file must not stop the backup of all the others (a nightly job would stop for good)."""

    path: str  # as the store holds it (a name that is not UTF-8 keeps its bytes as surrogates)
    problem: str  # why no reader takes it, a clause: "its content is not UTF-8 text"
    fix: str

    @property
    def message(self) -> str:
        return f"{quoted(self.path)} is not in the pack: {self.problem}; {self.fix}"

    def to_dict(self) -> dict:
        from ov.store.treepaths import shown

        return {"uri": f"viking://{shown(self.path)}", "problem": self.problem, "fix": self.fix}


@dataclass(frozen=True)
class Written:
    """What :func:`write_pack` put in a pack, besides its files."""

    bytes: int  # the files' content
    records: int
    vectors: int
    package_bytes: int
    # (path, bytes) of files an import takes only where store.max_file_bytes is raised to their size
    oversized: tuple[tuple[str, int], ...] = ()
    files: int = 0  # the files packed: those given, but those left out
    left_out: tuple[LeftOut, ...] = ()  # files given that no reader would take, not packed


def _too_large(prefix: str) -> TooLarge:
    """Files past what a pack may unpack to: every reader, ov's own `import` and `restore`
    included, refuses such a pack, and it would read as a backup."""
    what = f"the files below viking://{prefix}" if prefix else "the account's files"
    how = "export its folders one by one" if prefix else "export its folders one by one (`ov export`), or keep the whole account, history included, with `ov push` to a git remote"
    return TooLarge(f"{what} come to more than {pack_format.MAX_TOTAL_BYTES // 1024**3} GiB, more than a pack may hold (no import or restore would take it)", hint=how)


def _write_failure(exc: OSError, dest: Path) -> OvError:
    """What a failed write of the pack (or of a temporary file beside it) means. A full disk
    names the destination's folder: the error carries no file name, and the CLI's fallback
    named $OV_HOME, sending the user to free space on the wrong disk."""
    dest = dest.absolute()
    return disk_full(exc, dest.parent) or OvError(f"cannot write {dest}: {exc.strerror or exc}")


def _temporary_file(folder: Path, dest: Path, temporary) -> object:
    """An unnamed temporary file in ``folder`` (gone when closed, or when the process dies),
    closed when ``temporary`` (an ExitStack) ends. Its close flushes what is buffered, and fails
    again on a full disk: that second failure must not take the place of the first one's error."""
    import tempfile

    try:
        file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 - closed by the ExitStack, quietly
    except OSError as exc:
        raise _write_failure(exc, dest) from None

    def close() -> None:
        try:
            file.close()
        except OSError:
            pass  # unnamed: nothing of it is left on disk either way

    temporary.callback(close)
    return file


class _Spool:
    """A pack's metadata member (records, vectors) written to an unnamed temporary file as it is
    made, with its sha256 and size: it is copied into the pack once the whole of it is known
    to fit, instead of held in memory beside the files."""

    def __init__(self, file, dest: Path) -> None:
        import hashlib

        self.file = file  # opened (and closed) by the caller: a temporary file
        self.dest = dest
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> None:
        try:
            self.file.write(data)
        except OSError as exc:  # a full disk
            raise _write_failure(exc, self.dest) from None
        self.hash.update(data)
        self.size += len(data)

    def copy_to(self, zf, name: str) -> None:
        import shutil

        self.file.seek(0)
        with zf.open(name, "w") as member:
            shutil.copyfileobj(self.file, member)


class _Vectors:
    """The pack's vectors, made a batch of records at a time while the records are read (one
    vector per record, the format's: a long record's first passage), into a :class:`_Spool`."""

    def __init__(self, store, spool: _Spool) -> None:
        from ov.index.sync import Indices

        resolution = Indices(store).resolution
        if resolution.embedder is None:
            raise VectorsUnavailable(
                f"--include-vectors needs an embedder, and none is available: {resolution.reason}",
                hint="switch to ov's default embedder with `ov reindex --embedder builtin`, or export without --include-vectors",
            )
        self.embedder = resolution.embedder
        self.dimensions = self.embedder.fingerprint.dimension
        self.count = 0
        self.spool = spool
        self._texts: list[str] = []

    def add(self, record) -> dict:
        """Queue ``record``'s vector; what its line of the records says about where it is."""
        from ov.index.vector_writes import EMBED_BATCH, embed_text

        self._texts.append(self.embedder.passages(embed_text(record))[0])
        offset = self.count * self.dimensions
        self.count += 1
        if len(self._texts) >= EMBED_BATCH:
            self.flush()
        return {"dense": {"offset": offset, "dimensions": self.dimensions}}

    def flush(self) -> None:
        import numpy as np  # Deferred: only --include-vectors embeds anything.

        if self._texts:
            self.spool.write(np.asarray(self.embedder.embed(self._texts), dtype="<f4").tobytes())
            self._texts = []

    def meta(self) -> dict:
        self.flush()
        return {
            "path": f"{META_DIR}/{DENSE}",
            "count": self.count,
            "dtype": "float32",
            "byte_order": "little",
            "dimensions": self.dimensions,
            "sha256": self.spool.hash.hexdigest(),
            "embedding": self.embedder.fingerprint.as_dict(),
        }


def write_pack(
    store, dest: Path, target: Path, root: dict, prefix: str, files: list[tuple[str, bytes]], head: str | None, include_vectors: bool, scopes=None, progress: Progress | None = None
) -> Written:
    """Write the pack of ``files`` ((path relative to ``prefix``, blob sha), in path order) to
    ``target``, the file ``dest`` names, replacing it atomically. ``progress``: see :mod:`ov.progress`.

    Two passes over the blobs, each reading one at a time from git (cheap, and what keeps memory
    to the largest file): the first takes sizes and hashes for the manifest, checks the total
    against what a pack may hold before anything is written, and writes the index records (and
    vectors) to temporary files; the second writes the pack."""
    import contextlib
    import zipfile

    from ov.index.records import records_for

    git = store.git
    name = root["name"]
    backup = root.get("package_type") == "backup"
    limit = store.config.store.max_file_bytes
    left_out: list[LeftOut] = []
    oversized: list[tuple[str, int]] = []
    packed_files: list[tuple[str, bytes]] = []
    file_entries = []
    total = 0
    cut = len(prefix) + 1 if prefix else 0
    count = 0
    with contextlib.ExitStack() as temporary:
        # Beside the pack, where its room must be anyway: /tmp is often a RAM disk.
        records = _Spool(_temporary_file(target.parent, dest, temporary), dest)
        vectors = _Vectors(store, _Spool(_temporary_file(target.parent, dest, temporary), dest)) if include_vectors else None
        # One stage: a file is read and its records made in the same step.
        for rel, sha in counting(files, progress, "reading files"):
            data = git.blob_data(sha)
            full = f"{prefix}/{rel}" if prefix else rel
            # What a reader would refuse, asked here: such a file is left out (and named), so the
            # pack written holds only what every restore takes, and the rest is still backed up.
            problem = content_problem(data)
            if problem:
                left_out.append(LeftOut(full, f"its content {problem}", NOT_TEXT_FIX))
                continue
            total += len(data)
            if total > pack_format.MAX_TOTAL_BYTES:
                raise _too_large(prefix)
            packed_files.append((rel, sha))
            file_entries.append({"path": rel, "kind": "file", "size": len(data), "sha256": sha256_hex(data)})
            if pack_format.size_problem(len(data), limit, backup):
                oversized.append((full, len(data)))
            if not is_session_path(full):  # sessions carry files only, no index records (as upstream)
                for r in records_for(full, data):
                    line = {"record_id": r.id[cut:], "path": rel, "kind": r.kind, "level": r.level, "text": r.text, "title": r.title}
                    if vectors is not None:
                        line["vector"] = vectors.add(r)
                    records.write((_compact(line) + "\n").encode("utf-8"))
                    count += 1
        if not packed_files:
            raise _unpackable(left_out)  # every reader refuses a pack without files
        # The folders of the files packed: one that held only files left out is not in the pack.
        directories = sorted({"/".join(p.split("/")[:i]) for p, _ in packed_files for i in range(1, p.count("/") + 1)})
        entries = [{"path": "", "kind": "directory"}] + [{"path": d, "kind": "directory"} for d in directories]
        entries += file_entries
        index: dict = {"records": {"path": f"{META_DIR}/{RECORDS}", "count": count, "sha256": records.hash.hexdigest()}}
        dense_meta = vectors.meta() if vectors is not None else None
        if dense_meta is not None:
            index["dense"] = dense_meta
        packed = [records] + ([vectors.spool] if vectors is not None else [])
        if any(spool.size > pack_format.MAX_META_BYTES for spool in packed):
            # The records repeat the files' text: past what a reader takes (a store of some 250 MB of
            # text), the pack could not be read back. They and the vectors they index are left out;
            # an import or a restore rebuilds both from the files.
            packed, index = [], {}
        manifest = {
            "kind": KIND,
            "format_version": FORMAT_VERSION,
            "root": root,
            "entries": entries,
            "content_sha256": content_sha256(file_entries),
            "index": index,
            "created_by": "ov",
            # Which ov wrote it (a field of ov's own: every reader, OpenViking's and older ov's, skips a
            # key it does not know), for a bug report or a pack a newer ov made (:func:`format.read_pack`).
            "ov_version": __version__,
            "source_commit": head,
        }
        if scopes is not None:
            manifest["scopes"] = scopes
        dest = dest.absolute()
        _sweep_killed_writes(target.parent)
        tmp = None
        try:
            # A pack holds everything (transcripts, memories): a new one is the user's alone (0600);
            # one replaced keeps the permissions it had.
            tmp, fd = replacement_beside(target, 0o600, EXTENSION)
            with open(fd, "w+b") as out, zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
                zf.writestr(f"{name}/", b"")
                zf.writestr(f"{name}/{FILES_DIR}/", b"")
                for d in directories:
                    zf.writestr(f"{name}/{FILES_DIR}/{d}/", b"")
                for rel, sha in counting(packed_files, progress, "writing the pack"):
                    zf.writestr(f"{name}/{FILES_DIR}/{rel}", git.blob_data(sha))
                zf.writestr(f"{name}/{META_DIR}/{MANIFEST}", json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
                for spool, member in zip(packed, (RECORDS, DENSE)):
                    spool.copy_to(zf, f"{name}/{META_DIR}/{member}")
                zf.close()
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
            raise _write_failure(exc, dest) from None
        except BaseException:
            if tmp is not None:
                tmp.unlink(missing_ok=True)
            raise
    return Written(total, count, dense_meta["count"] if dense_meta else 0, target.stat().st_size, tuple(oversized), len(packed_files), tuple(left_out))


def _unpackable(left_out: list[LeftOut]) -> UnpackableFile:
    first = left_out[0]
    more = f" (and {len(left_out) - 1} more: `ov fsck` names them)" if len(left_out) > 1 else ""
    return UnpackableFile(
        f"the last commit holds no file here that an import or restore takes: {quoted(first.path)}: {first.problem}{more}",
        hint=f"nothing was written; {first.fix}, then pack again",
    )


def _sweep_killed_writes(folder: Path, older_than: float = 3600.0) -> None:
    """Remove the temporary packs of exports killed in ``folder`` (ov's own names, an hour old:
    nothing still writes them), which nothing else would ever remove."""
    for leftover in folder.glob(f"{TEMP_MARKER}*{EXTENSION}"):
        try:
            if untouched_for(leftover.lstat().st_mtime) > older_than and leftover.is_file():
                leftover.unlink()
        except OSError:
            continue


def is_session_path(path: str) -> bool:
    """Whether ``path`` is in a user's sessions (a pack carries their files, not their records)."""
    parts = path.split("/")
    return len(parts) >= 3 and parts[0] == "user" and parts[2] == "sessions"


def _compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
