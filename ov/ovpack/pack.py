"""OVPack v3: moving a subtree (``export``/``import``) or a whole account (``backup``/``restore``)
between stores as one ZIP file, compatible with OpenViking's format.

A pack is a ZIP (DEFLATED) with exactly one root folder::

    ROOT/files/...                    the files of the subtree, as committed
    ROOT/_ovpack/manifest.json        kind, format_version 3, root, entries, content_sha256, index
    ROOT/_ovpack/index_records.jsonl  one sorted-key compact JSON line per index record
    ROOT/_ovpack/dense.f32            optional: little-endian float32 vectors of those records

Export reads blobs from git HEAD, so a pack holds what is committed (hand edits not
yet recorded with ``ov snapshot commit`` are not in it). Import and restore check
everything before anything is written -- member paths, manifest, sizes and hashes
(sizes before decompressing, and no member is read past its declared size), scope --
and then write in one :class:`~ov.store.store.Transaction`: one commit or nothing.

Vectors are derived data in ov (the indices rebuild from the commits), so a pack's
vectors are never written anywhere: ``--vector-mode`` decides whether they must be
present and made by the current embedder (``require``), are accepted when they are
(``auto``), or are ignored (``recompute``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import stat as stat_mod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ov.errors import AlreadyExists, InvalidInput, NotFound, OvError, quote
from ov.files import looks_binary
from ov.store import sidecar
from ov.uri import PUBLIC_SCOPES, TEMP_MARKER, VikingURI, check_path_length, from_path

KIND = "openviking.ovpack"
FORMAT_VERSION = 3
EXTENSION = ".ovpack"
FILES_DIR = "files"
META_DIR = "_ovpack"
MANIFEST = "manifest.json"
RECORDS = "index_records.jsonl"
DENSE = "dense.f32"
BACKUP_ROOT = "ov-backup"
MAX_TOTAL_BYTES = 1024**3  # everything a pack may unpack to
MAX_META_BYTES = 256 * 1024**2  # manifest, records and vectors, each
MAX_MEMBERS = 1_000_000

OnConflict = Literal["fail", "overwrite", "skip"]
VectorMode = Literal["auto", "recompute", "require"]
ON_CONFLICT = ("fail", "overwrite", "skip")
VECTOR_MODES = ("auto", "recompute", "require")

_DRIVE_RE = re.compile(r"^[A-Za-z]:")


class InvalidPack(InvalidInput):
    """A file that is not a well-formed, intact OVPack v3 (or one that would write outside its place)."""

    code = "invalid_pack"


class UnsupportedPackVersion(InvalidPack):
    code = "unsupported_pack_version"


class VectorsUnavailable(OvError):
    """Vectors were asked for (``--include-vectors``, ``--vector-mode require``) and cannot be had."""

    code = "vectors_unavailable"


@dataclass(frozen=True)
class ExportResult:
    uri: str
    file: str
    files: int
    bytes: int
    records: int
    vectors: int
    package_bytes: int
    commit: str | None

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ImportResult:
    uri: str
    action: str  # imported | overwritten | skipped | restored
    files: int
    bytes: int
    vectors: str  # reused | recomputed | none
    commit: str | None
    deleted: int = 0
    kept: int = 0  # restore: files that were already there and were left as they are

    def to_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Pack:
    """A pack that passed every check; nothing of it has been written anywhere yet."""

    root: str
    manifest: dict
    files: dict[str, bytes]  # path relative to files/ -> content
    records: int
    dense: dict | None = None
    directories: list[str] = field(default_factory=list)

    @property
    def scope(self) -> str:
        return self.manifest["root"]["scope"]

    @property
    def is_backup(self) -> bool:
        return self.manifest["root"].get("package_type") == "backup"

    @property
    def total_bytes(self) -> int:
        return sum(len(d) for d in self.files.values())


# --- export ----------------------------------------------------------------------------


def export(store, uri: VikingURI, dest: Path, *, include_vectors: bool = False) -> ExportResult:
    """Write the committed subtree ``uri`` to ``dest`` (a new ``.ovpack``, replaced atomically)."""
    if uri.is_root:
        raise InvalidInput("refusing to export viking:// as a subtree", hint="use `ov backup FILE.ovpack` for the whole account")
    if is_session_uri(uri):
        raise InvalidInput(f"{uri} is a session; sessions are not exported", hint="export memories or resources, or use `ov backup`")
    store.require_content_uri(uri)
    _check_destination(store, dest)
    head, files = _committed_files(store, uri.path)
    if not files:
        raise NotFound(f"{uri} does not exist (in the last commit)", hint=f"see what is there with `ov ls {uri.parent}`")
    if list(files) == [""]:
        raise InvalidInput(f"{uri} is a file; export packs a directory", hint=f"export its directory {uri.parent}")
    root = {"name": uri.name, "uri": str(uri), "scope": uri.scope}
    return _write(store, dest, root, uri.path, files, head, include_vectors)


def backup(store, dest: Path, *, include_vectors: bool = False) -> ExportResult:
    """Write every committed file of the account (all scopes, all users) to ``dest``."""
    _check_destination(store, dest)
    head, files = _committed_files(store, "")
    scopes = sorted({p.split("/", 1)[0] for p in files})
    root = {"name": BACKUP_ROOT, "uri": "viking://", "scope": "root", "package_type": "backup"}
    return _write(store, dest, root, "", files, head, include_vectors, scopes=scopes)


def _committed_files(store, prefix: str) -> tuple[str | None, dict[str, bytes]]:
    """(HEAD, {path relative to prefix: bytes}) of the committed files below ``prefix``."""
    if not store.exists:
        return None, {}
    git = store.git
    head = git.head()
    out: dict[str, bytes] = {}
    for path, sha in git.iter_files(git.tree_of(head), prefix):
        rel = path[len(prefix) + 1 :] if prefix and path != prefix else ("" if prefix else path)
        out[rel] = git.blob_data(sha)
    return (head.decode() if head else None), dict(sorted(out.items()))


def _write(store, dest: Path, root: dict, prefix: str, files: dict[str, bytes], head, include_vectors: bool, scopes=None) -> ExportResult:
    import zipfile

    from ov.index.records import records_for

    name = root["name"]
    entries = [{"path": "", "kind": "directory"}]
    directories = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
    entries += [{"path": d, "kind": "directory"} for d in directories]
    file_entries = [{"path": p, "kind": "file", "size": len(d), "sha256": _sha(d)} for p, d in files.items()]
    entries += file_entries
    records = []
    sessions = [p for p in files if is_session_path(f"{prefix}/{p}" if prefix else p)]
    for rel, data in files.items():
        if rel in sessions:
            continue  # sessions carry files only, no index records (as upstream)
        full = f"{prefix}/{rel}" if prefix else rel
        records.extend((rel, r) for r in records_for(full, data))
    cut = len(prefix) + 1 if prefix else 0
    lines = [
        {"record_id": r.id[cut:], "path": rel, "kind": r.kind, "level": r.level, "text": r.text, "title": r.title}
        for rel, r in records
    ]
    dense_bytes = None
    dense_meta = None
    if include_vectors:
        dense_bytes, dense_meta = _vectors(store, [r for _, r in records])
        for n, line in enumerate(lines):
            line["vector"] = {"dense": {"offset": n * dense_meta["dimensions"], "dimensions": dense_meta["dimensions"]}}
    records_bytes = "".join(_compact(line) + "\n" for line in lines).encode("utf-8")
    index: dict = {"records": {"path": f"{META_DIR}/{RECORDS}", "count": len(lines), "sha256": _sha(records_bytes)}}
    if dense_meta is not None:
        index["dense"] = dense_meta
    manifest = {
        "kind": KIND,
        "format_version": FORMAT_VERSION,
        "root": root,
        "entries": entries,
        "content_sha256": content_sha256(file_entries),
        "index": index,
        "created_by": "ov",
        "source_commit": head,
    }
    if scopes is not None:
        manifest["scopes"] = scopes
    dest = dest.absolute()
    tmp = dest.parent / f"{TEMP_MARKER}{secrets.token_hex(6)}{EXTENSION}"
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
            zf.writestr(f"{name}/", b"")
            zf.writestr(f"{name}/{FILES_DIR}/", b"")
            for d in directories:
                zf.writestr(f"{name}/{FILES_DIR}/{d}/", b"")
            for rel, data in files.items():
                zf.writestr(f"{name}/{FILES_DIR}/{rel}", data)
            zf.writestr(f"{name}/{META_DIR}/{MANIFEST}", json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
            zf.writestr(f"{name}/{META_DIR}/{RECORDS}", records_bytes)
            if dense_bytes is not None:
                zf.writestr(f"{name}/{META_DIR}/{DENSE}", dense_bytes)
        with open(tmp, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise OvError(f"cannot write {dest}: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ExportResult(
        uri=root["uri"],
        file=str(dest),
        files=len(files),
        bytes=sum(len(d) for d in files.values()),
        records=len(lines),
        vectors=dense_meta["count"] if dense_meta else 0,
        package_bytes=dest.stat().st_size,
        commit=head,
    )


def _vectors(store, records: list) -> tuple[bytes, dict]:
    import numpy as np  # Deferred: only --include-vectors embeds anything.

    from ov.index.sync import EMBED_BATCH, Indices, embed_text

    resolution = Indices(store).resolution
    embedder = resolution.embedder
    if embedder is None:
        raise VectorsUnavailable(
            f"--include-vectors needs an embedder, and none is available: {resolution.reason}",
            hint="configure one (`ov config set embedding.provider hash`, or a local model), or export without --include-vectors",
        )
    texts = [embed_text(r) for r in records]
    dim = embedder.fingerprint.dimension
    parts = [np.asarray(embedder.embed(texts[i : i + EMBED_BATCH]), dtype="<f4") for i in range(0, len(texts), EMBED_BATCH)]
    matrix = np.vstack(parts) if parts else np.zeros((0, dim), dtype="<f4")
    data = matrix.astype("<f4").tobytes()
    fp = embedder.fingerprint
    meta = {
        "path": f"{META_DIR}/{DENSE}",
        "count": len(records),
        "dtype": "float32",
        "byte_order": "little",
        "dimensions": fp.dimension,
        "sha256": _sha(data),
        "embedding": fp.as_dict(),
    }
    return data, meta


def _check_destination(store, dest: Path) -> None:
    if dest.suffix != EXTENSION:
        raise InvalidInput(f"{dest} does not end in {EXTENSION}", hint=f"name the file like backup{EXTENSION}")
    real = Path(os.path.realpath(dest))
    home = Path(os.path.realpath(store.home.root))
    if real == home or home in real.parents:
        raise InvalidInput(f"{dest} is inside ov's home ({store.home.root})", hint="write the pack somewhere else")
    if real.is_dir():
        raise InvalidInput(f"{dest} is a directory", hint="name a file")
    if not real.parent.is_dir():
        raise NotFound(f"the directory {dest.parent} does not exist")


# --- reading and validating --------------------------------------------------------------


def read_pack(path: Path, max_file_bytes: int, max_total_bytes: int = MAX_TOTAL_BYTES) -> Pack:
    """Open and check the pack at ``path`` completely; raise :class:`InvalidPack` at the first problem."""
    import zipfile

    if not path.exists():
        raise NotFound(f"{path} does not exist")
    if not path.is_file():
        raise InvalidInput(f"{path} is not a file", hint="name an .ovpack file")
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InvalidPack(f"{path} is not a readable ZIP file ({exc})", hint="it may be truncated or not an .ovpack at all") from None
    import zlib

    with zf:
        try:
            return _validate(zf, path, max_file_bytes, max_total_bytes)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            # Damaged or unsupported data inside the ZIP (CRC, deflate stream, encryption, method).
            raise InvalidPack(f"{path} is damaged: {exc}", hint="it may be truncated; export it again") from None


def _validate(zf, path: Path, max_file_bytes: int, max_total_bytes: int) -> Pack:
    infos = zf.infolist()
    if not infos:
        raise InvalidPack(f"{path} is an empty ZIP")
    if len(infos) > MAX_MEMBERS:
        raise InvalidPack(f"{path} holds {len(infos)} members, more than the {MAX_MEMBERS} a pack may hold")
    seen: set[str] = set()
    roots: set[str] = set()
    for info in infos:
        name = info.filename
        _check_member_name(name)
        if name in seen:
            raise InvalidPack(f"the pack holds {quote(name)} twice")
        seen.add(name)
        mode = (info.external_attr >> 16) & 0o170000
        if mode == stat_mod.S_IFLNK:
            raise InvalidPack(f"the pack member {quote(name)} is a symbolic link", hint="packs hold regular files only")
        if mode not in (0, stat_mod.S_IFREG, stat_mod.S_IFDIR):
            raise InvalidPack(f"the pack member {quote(name)} is not a regular file or directory")
        roots.add(name.split("/", 1)[0])
    if len(roots) != 1:
        raise InvalidPack(f"a pack has exactly one root folder; this one has {len(roots)}: {', '.join(quote(r) for r in sorted(roots)[:5])}")
    root = roots.pop()
    by_name = {i.filename: i for i in infos}
    manifest_info = by_name.get(f"{root}/{META_DIR}/{MANIFEST}")
    if manifest_info is None:
        raise InvalidPack(f"{path} has no {root}/{META_DIR}/{MANIFEST}", hint="it is not an OVPack v3 file")
    manifest = _parse_manifest(_read_meta(zf, manifest_info))
    if manifest["root"]["name"] != root:
        raise InvalidPack(f"the manifest names the root {quote(manifest['root']['name'])}, the ZIP's root folder is {quote(root)}")
    # What the ZIP holds under files/, and nothing unexpected besides.
    zip_files: dict[str, object] = {}
    zip_dirs: set[str] = set()
    files_prefix = f"{root}/{FILES_DIR}/"
    allowed_meta = {f"{root}/{META_DIR}/{n}" for n in (MANIFEST, RECORDS, DENSE)}
    for name, info in by_name.items():
        if name in (f"{root}/", files_prefix, f"{root}/{META_DIR}/") or name in allowed_meta:
            continue
        if not name.startswith(files_prefix):
            raise InvalidPack(f"unexpected member {quote(name)} (a pack holds {FILES_DIR}/ and {META_DIR}/ only)")
        rel = name[len(files_prefix) :]
        if info.is_dir():
            zip_dirs.add(rel.rstrip("/"))
        else:
            zip_files[rel] = info
    entries = manifest["entries"]
    declared = {e["path"]: e for e in entries if e["kind"] == "file"}
    declared_dirs = {e["path"] for e in entries if e["kind"] == "directory"} - {""}
    if set(declared) != set(zip_files):
        missing = sorted(set(declared) - set(zip_files))
        extra = sorted(set(zip_files) - set(declared))
        raise InvalidPack(
            "the manifest's entries do not match the ZIP's files"
            + (f"; missing from the ZIP: {', '.join(quote(m) for m in missing[:5])}" if missing else "")
            + (f"; not in the manifest: {', '.join(quote(m) for m in extra[:5])}" if extra else "")
        )
    if zip_dirs - declared_dirs:
        raise InvalidPack(f"the ZIP has directories the manifest does not list: {', '.join(quote(d) for d in sorted(zip_dirs - declared_dirs)[:5])}")
    implied = {"/".join(p.split("/")[:i]) for p in declared for i in range(1, p.count("/") + 1)}
    if declared_dirs - implied - zip_dirs:
        raise InvalidPack(f"the manifest lists directories the ZIP does not hold: {', '.join(quote(d) for d in sorted(declared_dirs - implied - zip_dirs)[:5])}")
    for rel in declared:
        _check_content_path(rel)
    # Sizes first (declared and in the ZIP's directory), before a byte is decompressed.
    total = 0
    for rel, entry in declared.items():
        size = entry["size"]
        if size > max_file_bytes:
            raise InvalidPack(
                f"{quote(rel)} declares {size} bytes, over the {max_file_bytes}-byte limit for one file",
                hint="raise store.max_file_bytes with `ov config set` if this pack is trusted",
            )
        if zip_files[rel].file_size != size:
            raise InvalidPack(f"{quote(rel)}: the manifest says {size} bytes, the ZIP says {zip_files[rel].file_size}")
        total += size
    if total > max_total_bytes:
        raise InvalidPack(f"the pack would unpack to {total} bytes, over the {max_total_bytes}-byte limit")
    if content_sha256([{"path": p, "size": e["size"], "sha256": e["sha256"]} for p, e in declared.items()]) != manifest["content_sha256"]:
        raise InvalidPack("content_sha256 does not match the manifest's entries", hint="the manifest was altered or damaged")
    files: dict[str, bytes] = {}
    for rel in sorted(declared):
        entry = declared[rel]
        data = _read_member(zf, zip_files[rel], entry["size"])
        if len(data) != entry["size"]:
            raise InvalidPack(f"{quote(rel)} is {len(data)} bytes, the manifest says {entry['size']}")
        if _sha(data) != entry["sha256"]:
            raise InvalidPack(f"{quote(rel)} does not match its sha256 in the manifest", hint="the pack is damaged or was altered")
        _check_sidecar(rel, data)
        files[rel] = data
    records, dense = _check_index(zf, by_name, root, manifest)
    return Pack(root, manifest, files, records, dense, sorted(declared_dirs))


def _check_index(zf, by_name: dict, root: str, manifest: dict) -> tuple[int, dict | None]:
    index = manifest.get("index") or {}
    if not isinstance(index, dict):
        raise InvalidPack("the manifest's index is not an object")
    count = 0
    rec = index.get("records")
    rec_name = f"{root}/{META_DIR}/{RECORDS}"
    if rec is not None:
        if rec_name not in by_name or not isinstance(rec, dict):
            raise InvalidPack(f"the manifest lists index records but the ZIP has no {rec_name}")
        data = _read_meta(zf, by_name[rec_name])
        if _sha(data) != rec.get("sha256"):
            raise InvalidPack(f"{RECORDS} does not match its sha256 in the manifest")
        lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
        if len(lines) != rec.get("count"):
            raise InvalidPack(f"{RECORDS} holds {len(lines)} records, the manifest says {rec.get('count')}")
        for line in lines:
            try:
                if not isinstance(json.loads(line), dict):
                    raise ValueError
            except ValueError:
                raise InvalidPack(f"{RECORDS} holds a line that is not a JSON object") from None
        count = len(lines)
    elif rec_name in by_name:
        raise InvalidPack(f"the ZIP holds {RECORDS} but the manifest does not list it")
    dense = index.get("dense")
    dense_name = f"{root}/{META_DIR}/{DENSE}"
    if dense is None:
        if dense_name in by_name:
            raise InvalidPack(f"the ZIP holds {DENSE} but the manifest does not list it")
        return count, None
    if not isinstance(dense, dict) or dense_name not in by_name:
        raise InvalidPack(f"the manifest lists vectors but the ZIP has no {dense_name}")
    dims, n = dense.get("dimensions"), dense.get("count")
    if not (_is_count(dims) and dims > 0 and _is_count(n)) or dense.get("dtype") != "float32" or dense.get("byte_order") != "little":
        raise InvalidPack("the manifest's dense vectors are not described as little-endian float32 with count and dimensions")
    if n != count:
        raise InvalidPack(f"the pack has {n} vectors for {count} index records")
    if by_name[dense_name].file_size != n * dims * 4 or n * dims * 4 > MAX_META_BYTES:
        raise InvalidPack(f"{DENSE} is {by_name[dense_name].file_size} bytes; {n} vectors of {dims} float32 make {n * dims * 4}")
    data = _read_member(zf, by_name[dense_name], n * dims * 4)
    if len(data) != n * dims * 4 or _sha(data) != dense.get("sha256"):
        raise InvalidPack(f"{DENSE} does not match its size or sha256 in the manifest")
    return count, dense


def _parse_manifest(data: bytes) -> dict:
    try:
        manifest = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise InvalidPack(f"{MANIFEST} is not valid JSON") from None
    if not isinstance(manifest, dict):
        raise InvalidPack(f"{MANIFEST} is not a JSON object")
    if manifest.get("kind") != KIND:
        raise InvalidPack(f"{MANIFEST} has kind {quote(manifest.get('kind'))}, not {KIND!r}", hint="it is not an OVPack file")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION
        raise UnsupportedPackVersion(
            f"the pack has format_version {quote(version)}; ov reads format_version {FORMAT_VERSION} only",
            hint="it was made by a newer version; upgrade ov" if newer else "export it again with a current version",
        )
    root = manifest.get("root")
    if not isinstance(root, dict) or not isinstance(root.get("name"), str) or not isinstance(root.get("scope"), str):
        raise InvalidPack(f"{MANIFEST} has no valid root (name, uri, scope)")
    if not isinstance(root.get("uri"), str):
        raise InvalidPack(f"{MANIFEST}'s root has no uri")
    entries = manifest.get("entries")
    if not isinstance(entries, list):
        raise InvalidPack(f"{MANIFEST} has no entries list")
    paths = set()
    for e in entries:
        if not isinstance(e, dict) or not isinstance(e.get("path"), str) or e.get("kind") not in ("file", "directory"):
            raise InvalidPack(f"{MANIFEST} has a malformed entry: {str(e)[:80]}")
        if e["kind"] == "file" and not (_is_count(e.get("size")) and isinstance(e.get("sha256"), str)):
            raise InvalidPack(f"the entry {quote(e['path'])} has no valid size and sha256")
        if e["path"] in paths:
            raise InvalidPack(f"the entry {quote(e['path'])} is listed twice")
        paths.add(e["path"])
    if not isinstance(manifest.get("content_sha256"), str):
        raise InvalidPack(f"{MANIFEST} has no content_sha256")
    return manifest


def _check_member_name(name: str) -> None:
    shown = quote(name)
    if "\\" in name:
        raise InvalidPack(f"the pack member {shown} contains a backslash", hint="a hostile or non-portable pack; nothing was written")
    if name.startswith("/"):
        raise InvalidPack(f"the pack member {shown} is an absolute path", hint="a hostile pack; nothing was written")
    segments = name.rstrip("/").split("/")
    for segment in segments:
        if segment in ("", ".", ".."):
            raise InvalidPack(f"the pack member {shown} has a {segment or 'empty'!r} path segment", hint="a hostile pack; nothing was written")
        if _DRIVE_RE.match(segment):
            raise InvalidPack(f"the pack member {shown} has a drive letter", hint="a hostile pack; nothing was written")
        if "\x00" in segment:
            raise InvalidPack(f"the pack member {shown} contains a NUL byte")


def _check_content_path(rel: str) -> None:
    """Every segment of a file's path must be a valid URI segment (so it lands inside its target)."""
    from ov.uri import is_valid_segment

    for segment in rel.split("/"):
        if not is_valid_segment(segment):
            raise InvalidPack(f"the pack file {quote(rel)} has a name ov cannot store ({quote(segment)})")


def _check_sidecar(rel: str, data: bytes) -> None:
    """An L0/L1 sidecar must be what `ov write` accepts there: UTF-8 text with well-formed frontmatter."""
    if rel.rsplit("/", 1)[-1] not in sidecar.SIDECARS:
        return
    if looks_binary(data):
        raise InvalidPack(f"the pack's {quote(rel)} is not UTF-8 text", hint="an L0/L1 sidecar is Markdown; nothing was written")
    try:
        sidecar.parse(data.decode("utf-8"))
    except InvalidInput as exc:
        raise InvalidPack(f"the pack's {quote(rel)} is not a valid sidecar: {exc.message}") from None


def _read_meta(zf, info) -> bytes:
    if info.file_size > MAX_META_BYTES:
        raise InvalidPack(f"{info.filename} is {info.file_size} bytes, over the {MAX_META_BYTES}-byte limit")
    return _read_member(zf, info, info.file_size)


def _read_member(zf, info, limit: int) -> bytes:
    """At most ``limit`` bytes of a member; more than that means the ZIP lies about its size (a bomb)."""
    chunks = []
    got = 0
    with zf.open(info) as handle:
        while True:
            chunk = handle.read(min(1 << 20, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
            if got > limit:
                raise InvalidPack(f"the pack member {quote(info.filename)} holds more than its declared {limit} bytes")
    return b"".join(chunks)


# --- import and restore --------------------------------------------------------------------


def import_pack(
    store, source: Path, parent: VikingURI, *, on_conflict: OnConflict = "fail", vector_mode: VectorMode = "auto"
) -> ImportResult:
    """Import the pack at ``source`` as ``parent/ROOT``: one commit, or nothing."""
    _check_choice(on_conflict, ON_CONFLICT, "--on-conflict")
    _check_choice(vector_mode, VECTOR_MODES, "--vector-mode")
    pack = read_pack(source, store.config.store.max_file_bytes)
    if pack.is_backup or pack.scope not in PUBLIC_SCOPES:
        raise InvalidPack(f"{source} is a backup of a whole account", hint=f"bring it back with `ov restore {source}`")
    target = _target(store, pack, parent)
    vectors = _vector_outcome(store, pack, vector_mode)
    uris = {rel: VikingURI((*target.parts, *rel.split("/"))) for rel in pack.files}
    for rel, uri in uris.items():
        try:
            check_path_length(uri.parts, str(uri))  # segments were checked one by one; the whole path too
        except InvalidInput as exc:
            raise InvalidPack(f"the pack file {quote(rel)} cannot be stored under {target}: {exc.message}", hint=exc.hint) from None
    original = pack.manifest["root"]["uri"]
    with store.transaction() as tx:
        committed = {p for p, _ in tx.git.iter_files(tx.tree, target.path)}
        exists = bool(committed) or os.path.lexists(store.path(target))
        if exists and on_conflict == "skip":
            return ImportResult(str(target), "skipped", 0, 0, "none", None)
        if exists and on_conflict == "fail":
            raise AlreadyExists(f"{target} already exists", hint="pass --on-conflict overwrite to replace it, or skip to keep it")
        tx.require_clean_tree(target)
        for uri in uris.values():
            tx.require_parent_dirs(uri)
        new_paths = {u.path for u in uris.values()}
        deleted = sorted(committed - new_paths)
        for path in deleted:
            tx.delete(VikingURI(tuple(path.split("/"))))
        for rel, uri in uris.items():
            data = pack.files[rel]
            if uri.name in sidecar.SIDECARS and original != str(target):
                data = sidecar.retarget(data, str(uri.parent))
            tx.put(uri, data)
        result = tx.commit("import", [target])
    return ImportResult(
        str(target), "overwritten" if exists else "imported", len(pack.files), pack.total_bytes, vectors, result.commit, len(deleted)
    )


def restore(store, source: Path, *, on_conflict: OnConflict = "fail", vector_mode: VectorMode = "auto") -> ImportResult:
    """Bring a backup back into this account: one commit, or nothing.

    ``fail`` refuses when any file of the backup already exists with other content;
    ``overwrite`` creates missing files and replaces existing ones, keeping files only
    the account has (merge-upsert); ``skip`` creates missing files and keeps existing ones.
    """
    _check_choice(on_conflict, ON_CONFLICT, "--on-conflict")
    _check_choice(vector_mode, VECTOR_MODES, "--vector-mode")
    pack = read_pack(source, store.config.store.max_file_bytes)
    if not pack.is_backup:
        raise InvalidPack(f"{source} is not a backup (it packs {pack.manifest['root']['uri']})", hint=f"bring it in with `ov import {source} PARENT_URI`")
    uris = {}
    for rel in pack.files:
        try:
            uri = from_path(rel)
        except InvalidInput as exc:
            raise InvalidPack(f"the backup holds {quote(rel)}, which is not a path ov can store: {exc.message}") from None
        if uri.scope not in PUBLIC_SCOPES or len(uri.parts) < 2:
            raise InvalidPack(f"the backup holds {quote(rel)}, outside the scopes {', '.join(PUBLIC_SCOPES)}")
        uris[rel] = uri
    vectors = _vector_outcome(store, pack, vector_mode)
    with store.transaction() as tx:
        kept = 0
        conflicts = []
        writes = {}
        for rel, uri in uris.items():
            found = tx.git.entry(tx.tree, uri.path)
            if found is not None and found[1] == tx.git.blob_id(pack.files[rel]):
                kept += 1
                continue  # already there, the same
            if found is not None:
                conflicts.append(uri)
                if on_conflict == "skip":
                    kept += 1
                    continue
            writes[rel] = uri
        if conflicts and on_conflict == "fail":
            shown = ", ".join(str(u) for u in conflicts[:3]) + (f" (+{len(conflicts) - 3} more)" if len(conflicts) > 3 else "")
            raise AlreadyExists(
                f"{len(conflicts)} file(s) of the backup already exist with other content: {shown}",
                hint="pass --on-conflict overwrite to replace them, or skip to keep them",
            )
        for uri in writes.values():
            tx.require_parent_dirs(uri)
            tx.require_clean(uri)
        for rel, uri in writes.items():
            tx.put(uri, pack.files[rel])
        result = tx.commit("restore", [VikingURI()])
    written = sum(len(pack.files[r]) for r in writes)
    return ImportResult("viking://", "restored", len(writes), written, vectors, result.commit, 0, kept)


def _target(store, pack: Pack, parent: VikingURI) -> VikingURI:
    scope = pack.scope
    if scope not in PUBLIC_SCOPES:
        raise InvalidPack(f"the pack's scope {quote(scope)} cannot be imported", hint=f"packs come from {', '.join(PUBLIC_SCOPES)}")
    if parent.scope != scope:
        raise InvalidInput(
            f"the pack comes from viking://{scope} and cannot be imported under {parent}",
            hint=f"import it under a viking://{scope}/... parent",
        )
    if is_session_uri(parent):
        raise InvalidInput(f"{parent} is inside a session; packs are not imported into sessions")
    try:
        target = parent.child(pack.root)
    except InvalidInput as exc:
        raise InvalidPack(f"the pack's root name {quote(pack.root)} is not a valid name: {exc.message}") from None
    store.require_content_uri(target)
    if scope == "user" and target.parts[1] != store.identity.user:
        raise InvalidInput(f"{parent} belongs to another user", hint="import under your own tree, viking://~/...")
    if scope == "user":
        try:
            original = from_path(pack.manifest["root"]["uri"].removeprefix("viking://"))
        except InvalidInput:
            raise InvalidPack(f"the pack's root uri {quote(pack.manifest['root']['uri'])} is not valid") from None
        if original.scope != "user" or len(original.parts) != len(target.parts):
            raise InvalidInput(
                f"the pack came from {original}; under {parent} it would land at a different depth of a user's tree",
                hint="import it under the same kind of folder, e.g. viking://~/" + "/".join(original.parts[2:-1]),
            )
        if original.parts[2:3] != target.parts[2:3]:
            raise InvalidInput(f"the pack came from {original}; it belongs under viking://~/{original.parts[2]}, not {parent}")
    return target


def _vector_outcome(store, pack: Pack, mode: str) -> str:
    """reused | recomputed | none: what happens to vectors (ov rebuilds them from the commit)."""
    if mode == "recompute":
        return "recomputed" if _current_fingerprint(store) is not None else "none"
    current = _current_fingerprint(store)
    packed = pack.dense.get("embedding") if pack.dense else None
    if packed is not None and current is not None and _same_fingerprint(packed, current):
        return "reused"
    if mode == "require":
        if pack.dense is None:
            raise VectorsUnavailable("--vector-mode require: the pack holds no vectors", hint="export it with --include-vectors, or use --vector-mode auto")
        if current is None:
            raise VectorsUnavailable("--vector-mode require: no embedder is configured here", hint="configure the embedder the pack was made with")
        raise VectorsUnavailable(
            f"--vector-mode require: the pack's vectors come from {packed}, this store embeds with {current}",
            hint="use --vector-mode auto to recompute them",
        )
    return "recomputed" if current is not None else "none"


def _current_fingerprint(store) -> dict | None:
    from ov.index.sync import Indices

    embedder = Indices(store).resolution.embedder
    return embedder.fingerprint.as_dict() if embedder is not None else None


def _same_fingerprint(a, b: dict) -> bool:
    return isinstance(a, dict) and all(a.get(k) == b.get(k) for k in ("provider", "model", "dimension"))


def content_sha256(file_entries: list[dict]) -> str:
    """The upstream definition: sha256 of the sorted [{path, size, sha256}] as compact sorted-key JSON."""
    items = sorted(({"path": e["path"], "size": e["size"], "sha256": e["sha256"]} for e in file_entries), key=lambda e: e["path"])
    return _sha(json.dumps(items, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def is_session_path(path: str) -> bool:
    parts = path.split("/")
    return len(parts) >= 3 and parts[0] == "user" and parts[2] == "sessions"


def is_session_uri(uri: VikingURI) -> bool:
    return is_session_path(uri.path)


def _check_choice(value: str, choices: tuple[str, ...], option: str) -> None:
    if value not in choices:
        raise InvalidInput(f"{option} must be one of {', '.join(choices)}, not {quote(value)}")


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _compact(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
