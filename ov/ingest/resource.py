"""`ov add-resource`: one source in, one commit out.

The pipeline: collect the source (file, directory or URL) → parse every
document into pieces → lay the pieces out under the import root → write a
manifest of where each file came from (``.sources.json``) → write L0/L1
sidecars for every directory whose content changed, bottom-up, and for its
parents → one commit. Parsing and summarising happen before anything is
written; a parse failure skips that document (or, with ``strict``, aborts the
whole add with no commit).

Adding the same source again rewrites nothing that is unchanged: pieces and
sidecars are deterministic, so an unchanged source yields no commit, and a
changed one updates exactly the files that changed (and removes the pieces of
documents that disappeared from it).
"""

from __future__ import annotations

import os
import posixpath
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from ov.errors import HandEditConflict, InvalidInput, quote
from ov.files import json_bytes
from ov.ingest.formats import MARKDOWN_EXTENSIONS, SECTION_NAME
from ov.ingest.model import Layout, ParseFailure, Piece, Skipped, SourceFile, respelled
from ov.ingest.origin import origin_of, read_manifest
from ov.ingest.refresh import BLOB, Earlier, describe, earlier_file, import_root, no_parent, refresh_patterns, refuse_place, without_blob
from ov.ingest.sources import Collected, SourceLimit, collect, kept_url, refuse_store_source
from ov.names import is_git_name
from ov.progress import Progress
from ov.regex import LazyPattern
from ov.store import sidecar
from ov.store.store import Store, Transaction
from ov.uri import CASE_TWINS, VikingURI, join_new, path_twins, segment_name

MANIFEST = sidecar.MANIFEST
# 2: each file's entry names the blob the add wrote (ov.ingest.refresh); a version 1 manifest is read too.
MANIFEST_VERSION = 2
GENERATOR = ("ov-ingest", "resource_ingest")
# How much of a file the summariser sees; summaries are about what a file is, not all of it.
SUMMARY_TEXT_CHARS = 4000
# An offline add with at least this many directories to summarise uses worker processes.
PARALLEL_SUMMARIES = 128


@dataclass
class AddResult:
    """What `ov add-resource` added, updated, removed and skipped."""

    root: str
    source: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    # Files the user changed in the store since the last add, left as they are (ov.ingest.refresh):
    # where the source did not change them (or is gone), and where it did (or has a new file where
    # the user's own is), each {"uri", "reason"}.
    kept: list[dict] = field(default_factory=list)
    conflicts: list[dict] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    bytes_read: int = 0
    seconds: float = 0.0
    commit: str | None = None
    summaries: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    llm_failed: bool = False
    redacted: int = 0  # secrets replaced by a redaction marker before anything was stored

    def to_dict(self) -> dict:
        return {
            "root": self.root,
            "source": self.source,
            "commit": self.commit,
            "changed": self.commit is not None,
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "kept": self.kept,
            "conflicts": self.conflicts,
            "skipped": [{"path": s.path, "reason": s.reason, "failed": s.failed} for s in self.skipped],
            "bytes": self.bytes_read,
            "seconds": round(self.seconds, 3),
            "summaries": self.summaries,
            "tokens": self.tokens,
            "warnings": self.warnings,
            "redacted": self.redacted,
        }


def add_resource(
    store: Store,
    source: str,
    *,
    to: str | None = None,
    parent: str | None = None,
    include: tuple[str, ...] = (),
    exclude: tuple[str, ...] = (),
    reason: str | None = None,
    strict: bool = False,
    progress: Progress | None = None,
    unlimited: bool = False,
) -> AddResult:
    """Add ``source`` (one commit). A folder that holds more files, or bytes, to add than
    ``ingest.max_source_files`` and ``ingest.max_source_total_bytes`` allow is refused
    (SourceTooLarge) before anything is written, unless ``unlimited``: such an add held every
    other write of an MCP server for minutes."""
    started = time.perf_counter()
    if not source.strip():
        # An empty path is the working directory to the OS: a script's unset $DIR, or a model's
        # empty argument, would add whatever folder it runs in.
        raise InvalidInput("the source is empty", hint="name a file, a folder or a URL")
    if to and parent:
        raise InvalidInput("both a new location and a parent to add inside were given", hint="give {to} or {parent}, not both", arguments={"to", "parent"})
    target = store.uri(to) if to else store.uri(parent) if parent else None  # validate URIs before any I/O
    if target is not None:
        refuse_place(target)
    refuse_store_source(source, store.home)  # before reading a byte of it
    if parent:
        store.require_before_lock(target, no_parent(target))  # a mistyped account: no trace of it
    include, exclude = refresh_patterns(store, source, target, to is not None, parent is not None, include, exclude)
    limits = store.config.ingest
    collected = collect(
        source,
        include=include,
        exclude=exclude,
        max_bytes=limits.max_source_bytes,
        url_timeout=limits.url_timeout,
        url_max_bytes=limits.url_max_bytes,
        limit=None if unlimited else SourceLimit(limits.max_source_files, limits.max_source_total_bytes),
        progress=progress,
    )
    result = AddResult(root="", source=collected.uri, skipped=list(collected.skipped), redacted=collected.redacted)
    if reason is not None:
        # Deferred, as in _parse_all: only an add needs the rules.
        from ov.redact.engine import redact

        # Kept as the root's description (L0), so copied into the summaries above it, the index and
        # packs. Every rule applies, as in a settings file: a reason's `PASSWORD=...` is one.
        reason, found = redact(reason)
        result.redacted += found
    result.bytes_read = sum(len(f.data) for f in collected.files)
    parsed = _parse_all(collected, result, progress, store.config.store.max_file_bytes)
    # Laid out again by the plan, where the folders an earlier add gave split documents are known.
    files, _ = parsed.laid_out({})
    # Stored as they are (Linux keeps both), but a teammate on macOS or Windows who pulls the store
    # keeps one: said as a pull says it.
    result.warnings += [f"added {quote(first)} and {quote(second)}, {why}" for first, second, why in path_twins(sorted(files)) if why == CASE_TWINS]
    if strict and any(s.failed for s in result.skipped):
        failures = "; ".join(f"{s.path}: {s.reason}" for s in result.skipped if s.failed)
        raise InvalidInput(f"--strict: {failures}", hint="fix or exclude these files, or drop --strict to skip them")
    if not files:
        raise InvalidInput(f"nothing to add from {collected.uri}: every file was skipped", hint=_skip_hint(result.skipped))

    # The slow part (reading what is there, laying out and summarising) is planned without the
    # write lock, so the hooks of other sessions keep writing meanwhile; the lock is taken only
    # to check the plan still holds and to commit it (see Store.draft).
    # `result` stays as it is after parsing, in case the plan is made again under the lock.
    # The repository first (a no-op when it exists): the plan is made against its first commit.
    # An add that fails leaves no account behind it.
    with store.first_write():
        planned = replace(
            result,
            added=list(result.added),
            updated=list(result.updated),
            removed=list(result.removed),
            skipped=list(result.skipped),
            warnings=list(result.warnings),
            tokens=dict(result.tokens),
            kept=list(result.kept),
            conflicts=list(result.conflicts),
        )
        with store.draft() as draft:
            root = _plan(store, draft, collected, parsed, target, to, parent, reason, include, exclude, planned, progress)
            draft.stage()
        try:
            with store.transaction() as tx:
                if draft.still_holds(tx, root):
                    draft.hand_over(tx)
                    result = planned
                else:  # another writer changed what the plan read: plan again, under the lock
                    root = _plan(store, tx, collected, parsed, target, to, parent, reason, include, exclude, result, progress)
                commit = tx.commit("add-resource", [root])
                result.commit = commit.commit
        finally:
            draft.discard()
    result.seconds = time.perf_counter() - started
    return result


def _plan(
    store: Store,
    tx: Transaction,
    collected: Collected,
    parsed: _Parsed,
    target: VikingURI | None,
    to: str | None,
    parent: str | None,
    reason: str | None,
    include: tuple[str, ...],
    exclude: tuple[str, ...],
    result: AddResult,
    progress: Progress | None,
) -> VikingURI:
    """Put every change of the add into ``tx`` (pieces, removals, manifest, sidecars); the root."""
    root = import_root(store, collected, target, to is not None, parent is not None)
    result.root = str(root)
    old_manifest = read_manifest(store, root)
    if reason is None and isinstance(old_manifest.get("reason"), str):
        from ov.redact.engine import redact

        # The usual "update my docs" run does not restate why they were added. Redacted again: an
        # older ov kept it as given.
        reason = redact(old_manifest["reason"])[0]
    files, provenance = parsed.laid_out(_document_folders(old_manifest))
    earlier = Earlier(store, root, old_manifest)
    renamed = respelled(set(earlier.files) - set(files), files)
    entries: dict[str, dict] = {}
    for rel in sorted(files):
        uri = _join(root, rel)
        current = tx.existing_file(uri)
        verdict = "update" if rel in renamed else earlier.verdict(rel, current, files[rel])
        if verdict == "same":
            result.unchanged += 1
        elif verdict in ("add", "update"):
            tx.put(uri, files[rel])
            (result.updated if current is not None else result.added).append(str(uri))
        else:  # the user's text, left as it is
            (result.kept if verdict == "kept" else result.conflicts).append({"uri": str(uri), "reason": describe(verdict, uri)})
        if verdict != "theirs":  # a file the user made stays theirs: no entry names it
            entries[rel] = {**provenance[rel], BLOB: earlier.entry_blob(rel, verdict, files[rel])}
    for rel in sorted(set(earlier.files) - set(files)):
        uri = earlier_file(root, rel)
        if uri is None:
            continue
        if is_git_name(uri.name):
            # No work-tree path of ov's is spelled like .git, so the file is not read: the
            # commit drops it from the tree, as `ov snapshot commit` drops such a path.
            if tx.git.entry(tx.tree, uri.path) is not None:
                tx.delete(uri)
                result.removed.append(str(uri))
            continue
        current = tx.existing_file(uri)
        if current is None:
            continue
        if earlier.removable(rel, current):
            tx.delete(uri)
            result.removed.append(str(uri))
        else:
            result.kept.append({"uri": str(uri), "reason": describe("gone", uri)})
    manifest = _manifest(collected, reason, include, exclude, entries)
    if len(tx.changes) >= 256:
        tx.write_ahead()  # file creation overlaps with summarising
    manifest_bytes = json_bytes(manifest)
    manifest_uri = VikingURI((*root.parts, MANIFEST))
    if tx.existing_file(manifest_uri) != manifest_bytes:
        tx.put(manifest_uri, manifest_bytes)
    _refresh_sidecars(store, tx, root, collected, reason, result, progress)
    if len(tx.changes) >= 256:
        tx.write_ahead()  # the sidecars too, while the commit's objects are built
    return root


def stat_with_source(store: Store, uri: VikingURI) -> dict:
    """What ``ov stat`` and the MCP ``stat`` tool show of ``uri``: :meth:`Store.stat`, and for a file
    add-resource wrote, where it came from (``source``: the path or URL and its lines or pages)."""
    info = store.stat(uri)
    if info["type"] == "file":
        origin = origin_of(store, uri)
        if origin is not None:
            info["source"] = without_blob(origin.entry)
    return info


# --- parsing and layout ---------------------------------------------------------


def _parse_all(collected: Collected, result: AddResult, progress: Progress | None, max_file_bytes: int) -> _Parsed:
    from ov.ingest.parsers import detect_format, parse_source  # Deferred: parsers pull in pypdf/markdownify lazily too.
    from ov.redact.engine import redact

    in_extracted = [0]  # what redact_extracted found in the file being parsed

    def redact_extracted(text: str) -> str:  # a PDF's text exists only once parsed, still before the split
        cleaned, found = redact(text, by_shape_only=True)
        in_extracted[0] += found
        return cleaned

    parsed = _Parsed(_stored_folders([src.relpath for src in collected.files]) if collected.kind == "directory" else {})
    total = len(collected.files)
    for done, src in enumerate(collected.files, start=1):
        pdf = detect_format(src) == "pdf"
        if not pdf:
            # Before the split: a heading becomes a file's name, and names are not redacted after.
            src, found = _redacted_source(src)
            result.redacted += found
        in_extracted[0] = 0
        try:
            pieces = parse_source(src, clean=redact_extracted if pdf else None)
        except ParseFailure as failure:
            result.skipped.append(Skipped(src.relpath, failure.reason, failed=True))
            continue
        largest = max((len(piece.text.encode("utf-8")) for piece in pieces), default=0)
        if largest > max_file_bytes:
            # A text kept whole (plain text and code are not split) past the limit `ov write` holds
            # every file to: one record of megabytes that every index update would embed again.
            result.skipped.append(Skipped(src.relpath, f"would be stored as one file of {largest} bytes, over store.max_file_bytes ({max_file_bytes}; `ov config set` raises it)"))
            continue
        result.redacted += in_extracted[0]
        parsed.documents.append((src, pieces))
        if progress:
            progress("parse", done, total)
    return parsed


@dataclass
class _Parsed:
    """The documents of an add, parsed, and the folders of the source as stored."""

    folders: dict[str, str]  # {folder of the source: its path under the import root} (_stored_folders)
    documents: list[tuple[SourceFile, list[Piece]]] = field(default_factory=list)

    def laid_out(self, kept: dict[str, str]) -> tuple[dict[str, bytes], dict[str, dict]]:
        """{path under the import root: bytes} and {path: provenance} of every piece.

        ``kept``: {source: the folder an earlier add gave its sections} (:func:`_document_folders`).
        A split document keeps that folder while it is still split and the folder is still free
        for it, whichever documents come before it now: laid out in order alone, a long
        ``guide.md`` added beside a long ``guide.rst`` took ``guide/`` and moved the sections of
        ``guide.rst`` to ``guide_2/`` (every link to them broken). First come keeps the name."""
        layout = Layout()
        layout.reserve(self.folders.values())
        slots: list[tuple[SourceFile, list[Piece], str, str | None]] = []
        for src, pieces in self.documents:
            base = self.folders[posixpath.dirname(src.relpath)] if self.folders else ""
            own = _sections_folder(pieces) if not src.standalone else None
            slots.append((src, pieces, base, posixpath.join(base, own) if own else None))
        # Every folder still free is claimed before any document is numbered: one whose folder a
        # source folder took, claiming in turn, took the plain name another document kept.
        held = {i: keep for i, (src, _, _, folder) in enumerate(slots) if folder and (keep := layout.keep(folder, kept.get(src.uri)))}
        files: dict[str, bytes] = {}
        provenance: dict[str, dict] = {}
        for i, (src, pieces, base, folder) in enumerate(slots):
            within = held.get(i) or (layout.folder(folder) if folder else "")
            for piece in pieces:
                rel = posixpath.join(within, piece.relpath.split("/", 1)[1]) if within else posixpath.join(base, piece.relpath)
                rel = layout.claim(rel, within=within)
                files[rel] = piece.text.encode("utf-8")
                provenance[rel] = {**piece.provenance.to_dict(), "title": piece.title}
        return files, provenance


_SECTION_NAME = LazyPattern(SECTION_NAME)


def _document_folders(manifest: dict) -> dict[str, str]:
    """{source: the folder of its sections} of the split documents an earlier add recorded in
    ``manifest``: the folder above the numbered entries (``guide_2`` for ``guide_2/01_Intro.md``
    and ``guide_2/02_Setup/01_Install.md``), of a source whose every stored file is a section."""
    by_source: dict[str, list[str]] = {}
    for rel, entry in (manifest.get("files") or {}).items():
        if isinstance(entry, dict) and isinstance(entry.get("uri"), str) and isinstance(rel, str):
            by_source.setdefault(entry["uri"], []).append(rel)
    out: dict[str, str] = {}
    for source, rels in by_source.items():
        tops = set()
        for rel in rels:
            parts = rel.split("/")
            first = next((i for i, part in enumerate(parts) if _SECTION_NAME.match(part)), None)
            if first is None or first == 0:
                break  # a document kept whole, or not one ov split
            tops.add("/".join(parts[:first]))
        else:
            if len(tops) == 1:
                out[source] = tops.pop()
    return out


def _sections_folder(pieces: list[Piece]) -> str | None:
    """The folder a document split into sections names them under (``guide`` for
    ``guide/01_Intro.md``, ...), None for a document kept whole."""
    heads = {piece.relpath.split("/", 1)[0] for piece in pieces if "/" in piece.relpath}
    return heads.pop() if len(heads) == 1 and all("/" in piece.relpath for piece in pieces) else None


# Files that hold settings, where a `PASSWORD=...` is a password: the whole redaction applies.
# Elsewhere (documents, code) only secrets known by their shape are (see ov.redact.rules.CONTEXTUAL).
# YAML, JSON and TOML hold settings as often as data (docker-compose.yml's POSTGRES_PASSWORD,
# settings.json's "api_key"); the assignment rules want a value shaped like a secret, so a
# schema's `password: {type: string}` stays as it is.
_SETTINGS_SUFFIXES = (
    ".env", ".ini", ".cfg", ".conf", ".properties", ".netrc", ".npmrc", ".pypirc", ".htpasswd", ".yml", ".yaml", ".json", ".toml",
    ".tfvars", ".tfstate", ".tfstate.backup",
)  # fmt: skip


def _redacted_source(src: SourceFile) -> tuple[SourceFile, int]:
    """``src`` with its secrets redacted: a token in a README would be committed for good,
    summarised into every folder above it, packed into every backup and injected into prompts."""
    from ov.files import wide_text
    from ov.redact.engine import redact

    # UTF-16 or UTF-32 text with its mark is text the parser reads, and is redacted like any
    # (what is redacted is then stored as UTF-8, as the parser would store it).
    text = wide_text(src.data)
    if text is None:
        try:
            text = src.data.decode("utf-8")
        except UnicodeDecodeError:
            return src, 0  # the parser reports it
    redacted, found = redact(text, by_shape_only=not _is_settings_file(src))
    return (replace(src, data=redacted.encode("utf-8")) if found else src), found


def _is_settings_file(src: SourceFile) -> bool:
    """Whether ``src`` is a settings file (see _SETTINGS_SUFFIXES), by the name it has on disk: a
    hidden file is stored under another (``.env.production`` as ``_.env.production``), and
    ``env.py`` is code where ``.env.py`` would not be."""
    on_disk = src.uri if src.kind == "file" else src.relpath
    name = posixpath.basename(on_disk.replace("\\", "/")).lower()
    return (
        name.startswith((".env.", ".envrc"))
        or name.endswith(_SETTINGS_SUFFIXES)
        or name.lstrip(".") in ("env", "credentials")
    )


def _stored_folders(relpaths: list[str]) -> dict[str, str]:
    """{folder of the source: its path under the import root}, for every folder holding a file.

    A folder name ov cannot store (``back\\slash``, ``git~1``, ``notes ``) is renamed as a file's
    is (:func:`ov.uri.segment_name`); one renamed onto the name of something beside it
    (``back\\slash`` beside ``back_slash``) takes a number, as a file's name would."""
    children: dict[str, set[str]] = {}
    for rel in relpaths:
        parts = rel.split("/")
        for depth in range(len(parts)):
            children.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
    stored = {"": ""}
    for folder in sorted(children, key=lambda f: f.count("/") + 1 if f else 0):  # parents first
        names = children[folder]
        subfolders = {name for name in names if posixpath.join(folder, name) in children}
        # Names kept as they are, and the files' (renamed or not), keep their places.
        taken = {segment_name(name) for name in names if name not in subfolders or segment_name(name) == name}
        for name in sorted(subfolders):
            chosen = segment_name(name)
            if chosen != name:
                stem, n = chosen, 2
                while chosen in taken:
                    chosen, n = f"{stem}_{n}", n + 1
                taken.add(chosen)
            stored[posixpath.join(folder, name)] = posixpath.join(stored[folder], chosen)
    return stored


def _join(root: VikingURI, rel: str, *, directory: bool = False) -> VikingURI:
    try:
        return join_new(root, rel, directory=directory)
    except InvalidInput as exc:
        hint = "add a folder nested less deeply, or exclude this part with {exclude}"
        raise InvalidInput(f"cannot store {quote(rel)}: {exc.message}", hint=f"{exc.hint}; {hint}" if exc.hint else hint, arguments={"exclude", *exc.arguments}) from None


def _manifest(collected: Collected, reason, include, exclude, entries: dict[str, dict]) -> dict:
    return {
        "version": MANIFEST_VERSION,
        "source": {"kind": collected.kind, "uri": collected.uri},
        "reason": reason,
        "include": [p for p in include if p.strip()],
        "exclude": [p for p in exclude if p.strip()],
        "files": {rel: entries[rel] for rel in sorted(entries)},
    }


# --- summaries ------------------------------------------------------------------


def _refresh_sidecars(
    store: Store,
    tx: Transaction,
    root: VikingURI,
    collected: Collected,
    reason: str | None,
    result: AddResult,
    progress: Progress | None,
) -> None:
    """L0/L1 for every directory under ``root`` whose content changed (or that has none yet), bottom-up,
    then for the directories above ``root`` up to the scope's top."""
    tree = _tree_after(store, tx, root)
    _drop_orphan_sidecars(store, tx, root, tree)
    # Every directory on the way to a changed file has changed content.
    touched: set[str] = set()
    for changed_path in tx.changes:
        parts = changed_path.split("/")[:-1]
        touched.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    stale = []
    for rel_dir in tree:
        path = store.path(_join(root, rel_dir, directory=True) if rel_dir else root)
        if _abs(root, rel_dir) in touched or not (path / sidecar.OVERVIEW).exists():
            stale.append(rel_dir)
    if not stale:
        return
    llm = store.config.llm if store.config.llm.enabled else None
    prompts_dir = store.home.root / "prompts"
    levels: dict[int, list[str]] = {}
    for rel_dir in stale:
        levels.setdefault(rel_dir.count("/") + 1 if rel_dir else 0, []).append(rel_dir)
    fresh: dict[str, str] = {}
    done = 0

    def summarised() -> None:  # each folder as it is done: one summarised by a model takes seconds
        nonlocal done
        done += 1
        if progress:
            progress("summarise", done, len(stale))

    with _summary_pool(len(stale), llm) as pool:
        for depth in sorted(levels, reverse=True):  # deepest first: parents list their children's new L0
            jobs = []
            for rel_dir in sorted(levels[depth]):
                dir_uri = _join(root, rel_dir, directory=True) if rel_dir else root
                description = reason if not rel_dir else None
                source = {"kind": collected.kind, "uri": collected.uri} if not rel_dir else None
                jobs.append(_prepare(store, tx, dir_uri, tree[rel_dir], description, source, fresh))
            _summarise_all(store, tx, jobs, fresh, llm, prompts_dir, result, pool, summarised)
    for ancestor in _ancestors(root):
        job = _prepare(store, tx, ancestor, _disk_children(store, tx, ancestor), None, None, fresh)
        _summarise_all(store, tx, [job], fresh, llm, prompts_dir, result, None)


@dataclass
class _Job:
    """A directory whose summaries (L0/L1) ingest writes, and what they are made from."""

    dir_uri: VikingURI
    infos: list
    description: str | None
    source: dict | None
    user_written: bool  # a hand-written L0 (mkdir --description) is kept, not replaced


@contextmanager
def _summary_pool(count: int, llm):
    """Worker processes for a large offline add: the extractive summariser is pure CPU work, and in
    this process it would compete for the GIL with the threads writing the work tree."""
    if llm is not None or count < PARALLEL_SUMMARIES or (os.cpu_count() or 1) < 2:
        yield None
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # forkserver: forking this process while its writer threads run could copy a held lock.
    pool = ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("forkserver"))
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _prepare(store, tx, dir_uri: VikingURI, children: dict[str, bool], description, source, fresh) -> _Job:
    from ov.summaries.layers import ChildInfo

    existing_meta, existing_l0 = _existing_abstract(store, dir_uri, tx)
    user_written = existing_l0 is not None and not _generated(existing_meta)
    kept = existing_meta.get("source")
    if source is None and isinstance(kept, dict) and isinstance(kept.get("kind"), str) and isinstance(kept.get("uri"), str) and len(kept["uri"]) <= 4096:
        # Summarised again after a change below it (an rm, a write, another add): still the root of
        # the import it was, and its sidecars keep saying where from (a hand-mangled one is dropped).
        # A URL an older ov recorded as given loses its secrets now.
        source = {"kind": kept["kind"], "uri": kept_url(kept["uri"])[0] if kept["kind"] == "http" else kept["uri"]}
    if description is None and user_written:
        description = existing_l0
    infos = []
    for name in sorted(children):
        child = VikingURI((*dir_uri.parts, name))
        if children[name]:
            infos.append(ChildInfo(name=name, is_dir=True, title=None, text="", abstract=fresh.get(str(child)) or _abstract_body(store, child, tx)))
        else:
            data = tx.changes.get(child.path) if child.path in tx.changes else _read(store, child)
            text = (data or b"").decode("utf-8", "replace")[:SUMMARY_TEXT_CHARS]
            infos.append(ChildInfo(name=name, is_dir=False, title=_title(text, name), text=text, abstract=None))
    return _Job(dir_uri, infos, description, source, user_written)


def offline_sidecars(dir_uri: str, infos: list, description: str | None, source: dict | None) -> tuple[str, str]:
    """The extractive sidecars of one directory (top level, so worker processes can run it)."""
    from ov.summaries.layers import render_sidecars, summarize_directory

    summary = summarize_directory(dir_uri, infos, description=description)
    return render_sidecars(dir_uri, summary, source=source, generated_by=GENERATOR)


def _summarise_all(store, tx, jobs: list[_Job], fresh, llm, prompts_dir, result: AddResult, pool, each=None) -> None:
    """The summaries of ``jobs`` put in ``tx``; ``each()`` after each one."""
    if pool is not None:
        args = [(str(j.dir_uri), j.infos, j.description, j.source) for j in jobs]
        outputs = list(pool.map(offline_sidecars, *zip(*args), chunksize=max(1, len(jobs) // 8)))
    else:
        outputs = (_summarise_here(store, job, llm, prompts_dir, result) for job in jobs)  # each made as it is put
    for job, (abstract_text, overview_text) in zip(jobs, outputs):
        result.summaries += 1
        fresh[str(job.dir_uri)] = sidecar.body(abstract_text)
        _put_if_changed(tx, VikingURI((*job.dir_uri.parts, sidecar.OVERVIEW)), overview_text.encode("utf-8"))
        if not job.user_written:
            _put_if_changed(tx, VikingURI((*job.dir_uri.parts, sidecar.ABSTRACT)), abstract_text.encode("utf-8"))
        if each is not None:
            each()


def _summarise_here(store, job: _Job, llm, prompts_dir, result: AddResult) -> tuple[str, str]:
    from ov.llm.client import LLMError
    from ov.llm.usage import UsageLog
    from ov.summaries.layers import render_sidecars, summarize_directory

    if llm is None or result.llm_failed:
        return offline_sidecars(str(job.dir_uri), job.infos, job.description, job.source)
    try:
        summary = summarize_directory(
            str(job.dir_uri),
            job.infos,
            description=job.description,
            llm=llm,
            prompts_dir=prompts_dir,
            usage=UsageLog(store.state, "summary"),
            stop=store.stop,  # an MCP call cancelled while the model answers: the add writes nothing
        )
    except LLMError as exc:
        # A flaky or unreachable model must not cost the user the whole add: fall back to the
        # extractive summariser for this and every remaining directory, and say so.
        result.llm_failed = True
        result.warnings.append(f"LLM summary failed ({exc.message}); extractive summaries written instead")
        return offline_sidecars(str(job.dir_uri), job.infos, job.description, job.source)
    for key, value in summary.tokens.items():
        result.tokens[key] = result.tokens.get(key, 0) + value
    return render_sidecars(str(job.dir_uri), summary, source=job.source, generated_by=GENERATOR)


def _put_if_changed(tx: Transaction, uri: VikingURI, data: bytes) -> None:
    if tx.existing_file(uri) != data:
        tx.put(uri, data)


def _tree_after(store: Store, tx: Transaction, root: VikingURI) -> dict[str, dict[str, bool]]:
    """{dir relative to root: {child name: is_dir}} of the visible tree once the pending changes land."""
    files = set()
    if store.path(root).is_dir():
        files = {u.relative_to(root) for u, _ in store.walk_files(root)}
    prefix = root.path + "/"
    for path, data in tx.changes.items():
        if path.startswith(prefix):
            rel = path[len(prefix) :]
            if data is None:
                files.discard(rel)
            elif not any(part.startswith(".") for part in rel.split("/")):
                files.add(rel)
    tree: dict[str, dict[str, bool]] = {"": {}}
    for rel in files:
        parts = rel.split("/")
        for depth in range(len(parts)):
            parent = "/".join(parts[:depth])
            tree.setdefault(parent, {})[parts[depth]] = depth < len(parts) - 1
    return tree


def _drop_orphan_sidecars(store: Store, tx: Transaction, root: VikingURI, tree: dict[str, dict[str, bool]]) -> None:
    """Sidecars of directories whose content is all gone would keep an empty directory alive. Only
    those ingest generated: a folder made with ``ov mkdir --description`` holds no file, and its
    description is the user's (ov.ingest.refresh)."""
    if not store.path(root).is_dir():
        return
    for uri, _path in list(store.walk_files(root, show_all=True)):
        if uri.name in sidecar.SIDECARS and uri.parent is not None and uri.parent.relative_to(root) not in tree:
            data = tx.existing_file(uri)  # also refuses a hand-edited sidecar
            if data is not None and is_generated_summary(data):
                tx.delete(uri)


def _disk_children(store: Store, tx: Transaction, dir_uri: VikingURI) -> dict[str, bool]:
    """The visible children of ``dir_uri`` (name -> is a directory) once ``tx`` lands: a child
    whose every visible file ``tx`` deletes is gone, one it adds files to is there."""
    children = {item.name: is_dir for item, is_dir in store.scan(dir_uri)}
    prefix = dir_uri.path + "/"
    added: set[str] = set()
    deleted: dict[str, set[str]] = {}
    for path, data in tx.changes.items():
        if path.startswith(prefix):
            rest = path[len(prefix) :].split("/")
            if rest[0].startswith("."):
                continue
            if data is not None:
                children[rest[0]] = len(rest) > 1 or children.get(rest[0], False)
                added.add(rest[0])
            else:
                deleted.setdefault(rest[0], set()).add(path)
    for name, paths in deleted.items():
        if name in added or name not in children:
            continue
        if not children[name] or not _keeps_a_file(store, VikingURI((*dir_uri.parts, name)), paths):
            del children[name]
    return children


def _keeps_a_file(store: Store, dir_uri: VikingURI, deleted: set[str]) -> bool:
    """Whether a visible file below ``dir_uri`` is not among the paths ``deleted`` (stops at the first)."""
    for item, is_dir in store.scan(dir_uri):
        child = VikingURI((*dir_uri.parts, item.name))
        if (is_dir and _keeps_a_file(store, child, deleted)) or (not is_dir and child.path not in deleted):
            return True
    return False


def remove(store: Store, uri: VikingURI, *, recursive: bool = False, progress: Progress | None = None):
    """:meth:`Store.rm`, with the generated summaries above ``uri`` written again in the same commit."""
    return store.rm(uri, recursive=recursive, then=lambda tx: refresh_summaries(store, tx, _ancestors(uri)), progress=progress)


def move(store: Store, source: VikingURI, target: VikingURI, *, progress: Progress | None = None):
    """:meth:`Store.mv`, with the generated summaries above both places, and a moved directory's
    own (which names it), written again in the same commit."""
    return store.mv(source, target, then=lambda tx: refresh_summaries(store, tx, [target, *_ancestors(source), *_ancestors(target)]), progress=progress)


def refresh_summaries(store: Store, tx: Transaction, directories: list[VikingURI]) -> None:
    """Write again, in ``tx``, the summaries (L0/L1) that ingest generated for ``directories``, which
    the pending changes of ``tx`` make stale (a child removed, moved in or out, renamed): deepest
    first, so that each parent lists its children's new abstracts. A directory without a generated
    overview (none, or written or edited by hand: :func:`ov.store.sidecar.by_hand`) is left as it
    is, and so is one whose summary was edited by hand since its commit. A directory left with
    nothing but its generated summaries (and ingest's manifest) loses them, and so goes.

    The extractive summariser writes them, even with an LLM configured: ``rm`` and ``mv`` hold the
    write lock, and every hook of every session would wait for the model (``ov add-resource`` of the
    folder writes its LLM summaries again)."""
    children: dict[str, dict[str, bool]] = {}

    def listed(dir_uri: VikingURI) -> dict[str, bool]:
        key = str(dir_uri)
        if key not in children:
            children[key] = _disk_children(store, tx, dir_uri)
        return children[key]

    chosen: dict[str, VikingURI] = {}
    for dir_uri in directories:
        overview = VikingURI((*dir_uri.parts, sidecar.OVERVIEW))
        if not _generated(_existing_sidecar(store, overview, tx)[0]):
            continue
        if len(dir_uri.parts) <= 1 or dir_uri.name in listed(dir_uri.parent):
            chosen[str(dir_uri)] = dir_uri
            continue
        abstract = VikingURI((*dir_uri.parts, sidecar.ABSTRACT))
        try:
            for name in (overview, abstract, VikingURI((*dir_uri.parts, MANIFEST))) if _generated(_existing_sidecar(store, abstract, tx)[0]) else (overview,):
                if tx.existing_file(name) is not None:
                    tx.delete(name)
        except HandEditConflict:
            pass  # edited by hand since its commit: the user's to remove
    fresh: dict[str, str] = {}
    result = AddResult(root="", source="")
    for dir_uri in sorted(chosen.values(), key=lambda uri: -len(uri.parts)):
        try:
            job = _prepare(store, tx, dir_uri, listed(dir_uri), None, None, fresh)
            _summarise_all(store, tx, [job], fresh, None, None, result, None)
        except HandEditConflict:
            continue  # its summary was edited by hand since its commit: the edit is the user's


def refresh_summaries_above(store: Store, tx: Transaction, uris: list[VikingURI]) -> None:
    """:func:`refresh_summaries` of every directory whose overview lists one of ``uris`` (their
    folders and those above): what a pull's merge runs on the paths it takes in."""
    seen: dict[str, VikingURI] = {}
    for uri in uris:
        for folder in _ancestors(uri):
            seen.setdefault(str(folder), folder)
    refresh_summaries(store, tx, list(seen.values()))


def is_generated_summary(data: bytes) -> bool:
    """Whether a sidecar's bytes say ingest generated it (not a person, nor ``mkdir``)."""
    try:
        return _generated(sidecar.parse(data.decode("utf-8"))[0])
    except (UnicodeDecodeError, InvalidInput):
        return False


def _ancestors(root: VikingURI) -> list[VikingURI]:
    """Directories above ``root`` whose overviews list it: up to ``resources``/``agent``, or ``user/{uid}/{area}``."""
    top = 3 if root.scope == "user" else 1
    out = []
    parent = root.parent
    while parent is not None and len(parent.parts) >= top:
        out.append(parent)
        parent = parent.parent
    return out


def _generated(meta: dict) -> bool:
    """Whether a sidecar's frontmatter says ingest wrote it (not a person, nor ``mkdir``)."""
    return (meta.get("generated_by") or {}).get("component") == GENERATOR[0]


def _existing_abstract(store: Store, dir_uri: VikingURI, tx: Transaction | None = None) -> tuple[dict, str | None]:
    return _existing_sidecar(store, VikingURI((*dir_uri.parts, sidecar.ABSTRACT)), tx)


def _existing_sidecar(store: Store, uri: VikingURI, tx: Transaction | None) -> tuple[dict, str | None]:
    """(frontmatter, body) of a sidecar as ``tx`` leaves it (pending changes first), ({}, None) when there is none."""
    try:
        data = tx.changes[uri.path] if tx is not None and uri.path in tx.changes else store.path(uri).read_bytes()
        if data is None:
            return {}, None
        return sidecar.parse(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, InvalidInput):
        return {}, None


def _abstract_body(store: Store, dir_uri: VikingURI, tx: Transaction | None = None) -> str | None:
    return _existing_abstract(store, dir_uri, tx)[1] or None


def _read(store: Store, uri: VikingURI) -> bytes | None:
    try:
        return store.path(uri).read_bytes()
    except OSError:
        return None


def _title(text: str, name: str) -> str:
    if not name.lower().endswith(tuple(MARKDOWN_EXTENSIONS)):
        return name  # "# " opens a comment in code and config, often a licence notice, not a heading
    for line in text.splitlines()[:40]:
        if line.startswith("# "):
            return line[2:].strip()
    return name


def _abs(root: VikingURI, rel_dir: str) -> str:
    return f"{root.path}/{rel_dir}" if rel_dir else root.path


def _skip_hint(skipped: list[Skipped]) -> str | None:
    if not skipped:
        return None
    reasons = sorted({s.reason for s in skipped})
    return "skipped because: " + "; ".join(reasons[:5])

