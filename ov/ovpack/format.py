"""OVPack v3, the format: what a pack is, and how one is read and checked before it is used.

A pack is a ZIP (DEFLATED) with exactly one root folder, compatible with OpenViking's format::

    ROOT/files/...                    the files of the subtree, as committed
    ROOT/_ovpack/manifest.json        kind, format_version 3, root, entries, content_sha256, index
                                      (and created_by, ov_version, source_commit: ov's, read by no check)
    ROOT/_ovpack/index_records.jsonl  one sorted-key compact JSON line per index record
    ROOT/_ovpack/dense.f32            optional: little-endian float32 vectors of those records

What an untrusted file holds is checked here, all of it: :func:`read_pack` checks
member paths, manifest, sizes and hashes (sizes before decompressing, and no member
is read past its declared size), that every file is text, and the names of the files, and returns
a :class:`Pack` that nothing has been written from (this module writes nothing).
What a reader refuses in a file
(:func:`ov.files.size_problem`; :func:`ov.files.content_problem`, what every write refuses) the writer
and ``ov fsck`` ask too; a summary whose frontmatter does not parse is taken, as text.
Limits: one file ``store.max_file_bytes`` (in an import), the whole pack :data:`MAX_TOTAL_BYTES`,
the manifest, the records and the vectors :data:`MAX_META_BYTES` each, at most
:data:`MAX_MEMBERS` members. Where a pack may land (scope, user, depth, the length
of the paths there) is checked against the store by :mod:`ov.ovpack.transfer`.
"""

from __future__ import annotations

import hashlib
import json
import re
import stat as stat_mod
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ov.errors import InvalidInput, NotFound, quote
from ov.files import content_problem, size_hint, size_problem
from ov.progress import Progress, counting

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
# For a pack holding a name ov no longer stores (one an older version stored, "todo " with its
# trailing space): only the account it was made from can rename it, as a hand edit.
RENAME_HINT = (
    "nothing was written; rename it where the pack was made (in that account's repository, which "
    "`ov status` shows, then `ov snapshot commit -m MESSAGE`) and make the pack again"
)
MAX_META_BYTES = 256 * 1024**2  # manifest, records and vectors, each
MAX_MEMBERS = 1_000_000

# Bytes read from a member at a time: zipfile holds two or three times a read while it inflates.
_CHUNK = 64 * 1024

_DRIVE_RE = re.compile(r"^[A-Za-z]:")


class InvalidPack(InvalidInput):
    """A file that is not a well-formed, intact OVPack v3 (or one that would write outside its place)."""

    code = "invalid_pack"


class UnsupportedPackVersion(InvalidPack):
    code = "unsupported_pack_version"


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


# --- reading and validating --------------------------------------------------------------


def read_pack(path: Path, max_file_bytes: int, max_total_bytes: int = MAX_TOTAL_BYTES, progress: Progress | None = None) -> Pack:
    """Open and check the pack at ``path`` completely; raise :class:`InvalidPack` at the first problem.
    ``progress`` is told how reading and checking its files goes (:mod:`ov.progress`)."""
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
            return _validate(zf, path, max_file_bytes, max_total_bytes, progress)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, NotImplementedError, RuntimeError) as exc:
            # Damaged or unsupported data inside the ZIP (CRC, deflate stream, encryption, method).
            raise InvalidPack(f"{path} is damaged: {exc}", hint="it may be truncated; export it again") from None


def _validate(zf, path: Path, max_file_bytes: int, max_total_bytes: int, progress: Progress | None) -> Pack:
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
    if not declared:  # a folder lives in git through its files: ov never writes such a pack
        raise InvalidPack(f"{path} holds no files", hint="nothing to import")
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
    both = sorted(implied & set(declared))
    if both:
        raise InvalidPack(f"the pack holds {quote(both[0])} both as a file and as a folder of other files")
    if declared_dirs - implied - zip_dirs:
        raise InvalidPack(f"the manifest lists directories the ZIP does not hold: {', '.join(quote(d) for d in sorted(declared_dirs - implied - zip_dirs)[:5])}")
    for rel in declared:
        _check_content_path(rel)
    # Sizes first (declared and in the ZIP's directory), before a byte is decompressed.
    total = 0
    backup = manifest["root"].get("package_type") == "backup"
    for rel, entry in declared.items():
        size = entry["size"]
        problem = size_problem(size, max_file_bytes, backup)
        if problem:
            raise InvalidPack(f"{quote(rel)} declares {problem}", hint=f"if this pack is trusted, run {size_hint(size)} first")
        if zip_files[rel].file_size != size:
            raise InvalidPack(f"{quote(rel)}: the manifest says {size} bytes, the ZIP says {zip_files[rel].file_size}")
        total += size
    if total > max_total_bytes:
        raise InvalidPack(f"the pack would unpack to {total} bytes, over the {max_total_bytes}-byte limit")
    if content_sha256([{"path": p, "size": e["size"], "sha256": e["sha256"]} for p, e in declared.items()]) != manifest["content_sha256"]:
        raise InvalidPack("content_sha256 does not match the manifest's entries", hint="the manifest was altered or damaged")
    files: dict[str, bytes] = {}
    for rel in counting(sorted(declared), progress, "reading the pack"):
        entry = declared[rel]
        data = _read_member(zf, zip_files[rel], entry["size"])
        if len(data) != entry["size"]:
            raise InvalidPack(f"{quote(rel)} is {len(data)} bytes, the manifest says {entry['size']}")
        if sha256_hex(data) != entry["sha256"]:
            raise InvalidPack(f"{quote(rel)} does not match its sha256 in the manifest", hint="the pack is damaged or was altered")
        problem = content_problem(data)
        if problem:
            raise InvalidPack(f"the pack's {quote(rel)} {problem}", hint="ov stores text; nothing was written")
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
        count, digest, malformed = _scan_records(zf, by_name[rec_name])
        if digest != rec.get("sha256"):
            raise InvalidPack(f"{RECORDS} does not match its sha256 in the manifest")
        if count != rec.get("count"):
            raise InvalidPack(f"{RECORDS} holds {count} records, the manifest says {rec.get('count')}")
        if malformed:
            raise InvalidPack(f"{RECORDS} holds a line that is not a JSON object")
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
    digest, size = hashlib.sha256(), 0
    for chunk in _member_chunks(zf, by_name[dense_name], n * dims * 4):
        digest.update(chunk)
        size += len(chunk)
    if size != n * dims * 4 or digest.hexdigest() != dense.get("sha256"):
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
    if version != FORMAT_VERSION or type(version) is not int:  # not True, not 3.0
        newer = isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION
        raise UnsupportedPackVersion(
            f"the pack has format_version {quote(version)}; ov reads format_version {FORMAT_VERSION} only",
            hint=f"it was made by a newer version{_made_by(manifest)}; upgrade ov" if newer else "export it again with a current version",
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


def _made_by(manifest: dict) -> str:
    """" (ov X)" when the manifest names the ov that wrote it (``ov_version``, since 0.1.0), else ""."""
    version = manifest.get("ov_version")
    return f" (ov {quote(version[:40])})" if isinstance(version, str) and version.strip() else ""  # a pack's text: quoted


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
    """Every segment of a file's path must be a valid URI segment (so it lands inside its target);
    a name an older ov stored (surrounding whitespace) is read, and refused where it cannot land."""
    from ov.uri import segment_problem

    for segment in rel.split("/"):
        problem = segment_problem(segment, stored=True)
        if problem:
            raise InvalidPack(f"the pack file {quote(rel)} has a name ov cannot store: {problem}", hint=RENAME_HINT)


# --- what a reader refuses in a file: asked by the writer and by `ov fsck` too -------------------
#
# One set of rules, so that a pack ov writes from a store `ov fsck` calls sound is one every
# reader takes: a backup that fails only when it is needed is worse than none.


def _read_meta(zf, info) -> bytes:
    return _read_member(zf, info, _meta_size(info))


def _meta_size(info) -> int:
    """The declared size of a metadata member, refused past :data:`MAX_META_BYTES`."""
    if info.file_size > MAX_META_BYTES:
        raise InvalidPack(f"{info.filename} is {info.file_size} bytes, over the {MAX_META_BYTES}-byte limit")
    return info.file_size


def _scan_records(zf, info) -> tuple[int, str, bool]:
    """(records, sha256, whether a line is not a JSON object) of the records member, read a
    piece at a time: the records repeat the files' text, and held whole (as bytes, as text and
    as lines) they cost three times the pack's content."""
    size = _meta_size(info)
    digest = hashlib.sha256()
    count = 0
    malformed = False
    pending: list[bytes] = []  # the line being read, in pieces: a line may be longer than a chunk

    def scan(line: bytes) -> None:
        nonlocal count, malformed
        text = line.decode("utf-8", "replace")
        if not text.strip():
            return
        count += 1
        try:
            if not isinstance(json.loads(text), dict):
                malformed = True
        except (ValueError, RecursionError):
            malformed = True

    for chunk in _member_chunks(zf, info, size):
        digest.update(chunk)
        # Lines end at "\n" alone: a record's text may hold U+2028, U+0085 or a form feed, which
        # JSON leaves as they are and splitlines would break on. A "\n" byte is never part of
        # another UTF-8 character, so the bytes split where the text would.
        *lines, last = chunk.split(b"\n")
        if lines:
            lines[0] = b"".join([*pending, lines[0]])
            pending = []
        for line in lines:
            scan(line)
        pending.append(last)
    scan(b"".join(pending))
    return count, digest.hexdigest(), malformed


def _read_member(zf, info, limit: int) -> bytes:
    """At most ``limit`` bytes of a member; more than that means the ZIP lies about its size (a bomb)."""
    return b"".join(_member_chunks(zf, info, limit))


def _member_chunks(zf, info, limit: int) -> Iterator[bytes]:
    """A member's bytes a piece at a time, refused (:class:`InvalidPack`) past ``limit``."""
    got = 0
    with zf.open(info) as handle:
        while True:
            chunk = handle.read(min(_CHUNK, limit + 1 - got))
            if not chunk:
                break
            got += len(chunk)
            if got > limit:
                raise InvalidPack(f"the pack member {quote(info.filename)} holds more than its declared {limit} bytes")
            yield chunk


def content_sha256(file_entries: list[dict]) -> str:
    """The upstream definition: sha256 of the sorted [{path, size, sha256}] as compact sorted-key JSON."""
    items = sorted(({"path": e["path"], "size": e["size"], "sha256": e["sha256"]} for e in file_entries), key=lambda e: e["path"])
    return sha256_hex(json.dumps(items, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def _is_count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
