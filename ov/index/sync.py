"""Keeping the indices in step with the commits.

The indices of an account live in ``state/{account}/index/`` (outside the work
tree, never committed)::

    meta.json          the commit they reflect, schema version, language,
                       embedder fingerprint, vector file, next label, counts
    text/              tantivy
    vectors-{gen}.hnsw hnswlib (only with an embedder)
    vectors-{gen}.exact the same vectors quantised by component, while there are few
                       enough to search exhaustively (see ov.index.vectors)
    vectors-{gen}.groups above that, the same grouped around centroids, for a cold
                       search that compares the nearest groups (ov.index.vector_groups)
    vectors-{gen}.delta what changed since that generation, while it is little
                       (ov.index.vector_delta)
    vectors.failed.json when and why the embedder last failed to make its vectors

:meth:`Indices.open` is called before every search. When HEAD moved since the
indexed commit, the indices catch up from the git diff of the two trees: only
the changed paths are read again. When ``meta.json`` is missing or unreadable,
the schema version, language or embedder differ, or the index files fail to
open, everything is rebuilt from HEAD into a fresh directory that replaces the
old one. A session's messages file is updated record by record, every other
changed path whole. ``meta.json`` is written last, so an update that dies
half-way is undone and replayed: before its full-text commit an update writes
``update.json``, the paths it replaces and the vector labels it removes; the
next update deletes the records it added (labelled from the meta's next label
on) and replaces those paths whole as well as the changed ones. Without the
note the dead update's records stayed wherever the path was back to the blob
it had (a session's messages file, empty again after a commit). Labels and the
vector file generation are only taken over with the new meta, so the vectors
are the meta's own.

Updates hold ``state/{account}/index.lock``; searches never wait for writers of
the store.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from ov.errors import (
    DiskFull,
    IndexDamaged,
    IndexDamagedReadOnly,
    IndexNotBuilt,
    IndexUnavailable,
    OvError,
    StoreLocked,
    StoreNotWritable,
    disk_full,
)
from ov.files import atomic_write, json_bytes, remove_stale_replacements
from ov.index.held import HeldVectors, generation_key
from ov.index.lexical import READABLE_SCHEMA, SCHEMA_VERSION, LexicalIndex
from ov.index.records import (
    Record,
    committed_records,
    counts_as_records,
    left_out_because,
)
from ov.progress import Progress, counting
from ov.store.lock import WriteLock
from ov.store.treepaths import shown
from ov.wording import counted

INDEX_DIR = "index"
META_NAME = "meta.json"
UPDATE_NAME = "update.json"  # what an update is applying, written before its full-text commit
TEXT_DIR = "text"
EMBED_BATCH = 256
# A diff of at least this many paths that touches most of the index is applied by a rebuild.
LARGE_DIFF = 1000
# An add of up to this many paths updates the index before it returns, so the prompt right after
# it finds what was added: the hook searches the index as it is, and found nothing of a small add
# until the job's catch-up was done. Its vectors are made there too (a one-file add with the
# built-in model: 0.3-0.5 s, mostly loading it, which the first find after it no longer pays; an API
# one batch for a few files); a larger add is left to the catch-up.
UPDATE_AT_ADD = 200
# How a record becomes vectors (embed_text, _embed, an embedder's passages): vectors made another
# way do not compare with new ones, whatever the model. Bump it when any of them changes what a
# vector is made of, and every index rebuilds once. An index that does not record it is recipe 1.
VECTOR_RECIPE = 1
# How long a process that does not wait for the index's lock waits for it: enough to pass a dead
# holder's ticket in the queue (a wait of 0 gives up before looking at it).
GLANCE = 0.05
VECTORS_TO_MAKE = "vectors to be made"  # Indices.unready(): its full text is built, searched meanwhile
# When and why the embedder last failed to make the vectors of the index beside it (a rebuild's new
# folder starts without one). A search that finds them still to be made tries again only this many
# seconds after: each try reads every record and asks the embedder again, seconds a search (a
# minute with an API that times out), paid for batch by batch up to the one that fails. A change
# to the store (the catch-up), the hooks' job and `ov reindex` try at once.
VECTORS_FAILED_NAME = "vectors.failed.json"
VECTORS_RETRY_AFTER = 300
# The stages a build or an update reports (ov.progress).
READING, FULL_TEXT, VECTORS = "index: reading files", "index: full text", "index: vectors"


@dataclass
class Meta:
    """What an index folder holds: the commit it reflects, its schema, language and vectors."""

    schema_version: int
    commit: str | None
    language: str
    embedder: dict | None
    vectors_file: str | None = None
    vectors_delta: str | None = None  # the generation's delta (ov.index.vector_delta), if any
    vectors_stale: bool = False
    next_label: int = 0
    records: int = 0
    vectors: int = 0  # live vectors, the delta's changes counted
    built_at: float = 0.0
    updated_at: float = 0.0

    @classmethod
    def read(cls, path: Path) -> Meta | None:
        """The meta in ``path``; None (an index to rebuild) when there is none or it is not one
        this ov writes: not JSON, a field missing, unknown or of another type. A schema version
        written as "12" raised TypeError on every prompt and every find where it was compared."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            meta = cls(**data)
        except (OSError, ValueError, TypeError):
            return None
        for name, kinds in _META_TYPES.items():
            value = getattr(meta, name)
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                return None
        return meta

    def write(self, path: Path) -> None:
        atomic_write(path, json_bytes(self.__dict__))


# The types of Meta's fields as JSON gives them (a bool is an int to isinstance, and is refused as one).
_META_TYPES: dict[str, tuple[type, ...]] = {
    "schema_version": (int,),
    "commit": (str, type(None)),
    "language": (str,),
    "embedder": (dict, type(None)),
    "vectors_file": (str, type(None)),
    "vectors_delta": (str, type(None)),
    "vectors_stale": (bool,),
    "next_label": (int,),
    "records": (int,),
    "vectors": (int,),
    "built_at": (int, float),
    "updated_at": (int, float),
}


@dataclass
class OpenIndex:
    """The indices as a search sees them."""

    lexical: LexicalIndex
    vectors: object | None  # VectorIndex
    embedder: object | None  # Embedder
    meta: Meta
    embedding: dict  # what retrieval reports: provider, model, available, reason
    stale: bool = False  # another process was updating; this is the last complete state
    actions: list[str] = field(default_factory=list)  # what open() had to do: "rebuilt: ...", "updated 3 paths"
    behind: str | None = None  # why an index behind HEAD was searched as it is: ov may not update it, or another process is
    # For an index searched behind HEAD: each path it holds that HEAD changed -> its blob at HEAD
    # (None: gone). A search leaves out what HEAD no longer holds (ov.retrieval.find). None: the
    # indexed commit is not in the repository, and nothing the index holds can be shown.
    outdated: dict[str, bytes | None] | None = field(default_factory=dict)
    _query_vectors: dict = field(default_factory=dict, repr=False)

    @property
    def mode(self) -> str:
        return "hybrid" if self.vectors is not None and self.embedder is not None else "lexical"

    def query_vector(self, text: str):
        """The embedder's vector of the query ``text``, made once while the index is open: a
        search ranks each query of its plan over the scope, its directories' summaries and below
        each directory it expands, and embedded it again each time (13 times, 40 s for a pasted
        90 KB query)."""
        vector = self._query_vectors.get(text)
        if vector is None:
            vector = self._query_vectors[text] = self.embedder.embed_query(text)
        return vector


class Indices:
    """The full-text and vector indices of one store."""

    def __init__(
        self,
        store,
        *,
        warm=None,
        held: HeldVectors | None = None,
        lock_wait: float | None = None,
        progress: Progress | None = None,
        build_limit: int | None = None,
        stale_wait: float | None = None,
    ) -> None:
        """``warm``: a :class:`~ov.index.embedders.registry.WarmEmbedders` a long-lived process
        keeps, so that its embedder stays loaded from one ``Indices`` to the next; ``held``: the
        :class:`~ov.index.held.HeldVectors` it keeps, so that its vectors do too. ``lock_wait``:
        how long to wait for a build or update another process is doing (default: the store's
        lock timeout); a caller with a deadline (the prompt hook) waits less than it has.
        ``stale_wait``: how long to wait for it when the index as it is could be searched instead
        (default ``lock_wait``); the MCP server waits not at all, and says the index is behind.
        ``progress``: told how a build, a rebuild or a catch-up goes (:mod:`ov.progress`); the first
        search after a large add reads and indexes every file, which takes a while. ``build_limit``:
        for a caller with a deadline (the prompt hook), which searches the index as it is: where
        :meth:`open` would build, rebuild or repair it, it builds the full text of a store of at
        most that many records (vectors left to others, :data:`VECTORS_TO_MAKE`) when no other
        process holds the index, and otherwise raises :class:`~ov.errors.IndexNotBuilt` (a damaged
        index is marked as not built first, for a build elsewhere)."""
        self.store = store
        self._build_limit = build_limit
        self.root = store.state / INDEX_DIR
        self._cache: OpenIndex | None = None
        # The entries of HEAD the last build could not take (a name that is not UTF-8 text, a
        # symbolic link, a submodule): (path, shown escaped; why).
        self.left_out: list[tuple[str, str]] = []
        self._resolution = None
        self._warm = warm
        self._lock_wait = store.config.store.lock_timeout if lock_wait is None else lock_wait
        self._stale_wait = self._lock_wait if stale_wait is None else stale_wait
        self._progress = progress
        self._dropped: str | None = None  # why discard() dropped the index, for the rebuild's action
        # The vector generation last loaded or written, searched as it is rather than read again (an
        # hnswlib file is read in ~8-12 ms a 10,000 vectors): a delta leaves it as it is.
        self._held = HeldVectors() if held is None else held

    # --- public ----------------------------------------------------------------

    def open(self, *, full_text_only: bool = False) -> OpenIndex:
        """The indices, caught up with HEAD (or rebuilt) first.

        ``full_text_only``: for a caller on every prompt (the prompt hook), which must not pay for
        numpy, hnswlib or an embedder: the vectors are not loaded, and an index behind HEAD but
        otherwise usable is read as it is (marked stale) rather than updated, since an update
        embeds; the hooks' background job catches it up. So is one whose vectors alone are not
        this configuration's (the embedder changed): its full text is, and the prompts during the
        job's rebuild, minutes with a model on a large store, got nothing while waiting for it.
        """
        if not self.store.exists:
            # Nothing to index, and nothing is written for an account nobody has used.
            language = self.store.config.retrieval.language
            meta = Meta(SCHEMA_VERSION, None, language, None)
            return OpenIndex(LexicalIndex.empty(language), None, None, meta, self.resolution.as_dict())
        head = self._head()
        cached = self._cache
        if cached is not None and cached.meta.commit == head and not cached.actions:
            return cached
        meta = Meta.read(self.root / META_NAME)
        damaged: str | None = None
        if meta is not None and (meta.commit == head or full_text_only):
            problem = self.incompatibility(meta)
            if problem is None or (full_text_only and self._text_incompatibility(meta, as_is=True) is None):
                try:
                    opened = self._behind(self._load(meta, [], strict=True, stale=meta.commit != head, vectors=not full_text_only), head)
                except IndexUnavailable as exc:
                    damaged = exc.message  # repaired below, under the lock
                else:
                    if problem is not None:
                        opened.behind = f"the index is to be rebuilt ({problem}): its full text searched as it is"
                    elif meta.vectors_stale and not full_text_only and self._build_limit is None and self._embedder() is not None:
                        failed = self.vectors_failure()
                        if failed is not None:
                            opened.embedding = {**opened.embedding, "reason": f"{failed}; this search is lexical"}
                            return opened
                        # Its full text was built first (a rebuild, an add-resource): the vectors
                        # are made here, unless another process is making them.
                        return self._with_vectors(head) or opened
                    return opened
        if self._build_limit is not None:
            return self._small_build(head, meta, damaged)
        # With an index to search as it is, a caller may rather not wait for another process's
        # update or rebuild: one to be rebuilt is searched by its full text (an older schema's, or
        # vectors of another embedder), which `ov find` during the job's rebuild after an upgrade
        # waited the lock's timeout for, and then failed.
        problem = None if meta is None else self.incompatibility(meta)
        as_is = meta is not None and (problem is None or self._text_incompatibility(meta, as_is=True) is None)
        try:
            lock = WriteLock(self.store.state / "index.lock", self._stale_wait if as_is else self._lock_wait, home=self.store.home)
            lock.acquire()
        except (StoreLocked, StoreNotWritable) as exc:
            # Another process is updating it, or this user may not: searched as it is.
            if as_is:
                try:
                    opened = self._behind(self._load(meta, [], stale=True, vectors=problem is None), head)
                except IndexUnavailable as damage:
                    if isinstance(exc, StoreNotWritable):
                        raise _cannot_rebuild(damage, exc) from None
                    raise
                if problem is not None:
                    doing = f"cannot be ({exc.message})" if isinstance(exc, StoreNotWritable) else "another ov process is rebuilding it"
                    opened.behind = f"the index is to be rebuilt ({problem}) and {doing}: its full text searched as it is"
                    if self._embedder() is not None:
                        opened.embedding = {**opened.embedding, "available": False, "reason": "the index is being rebuilt; this search is lexical"}
                elif isinstance(exc, StoreNotWritable) and meta.commit != head:
                    opened.behind = f"the index is behind HEAD and cannot be updated ({exc.message}): searched as it is, without what was committed since"
                elif meta.commit != head:
                    # Said as the case above is: results that miss a file just written look like
                    # a store that does not hold it, and the caller would go and write it again.
                    opened.behind = "the index is behind HEAD while another ov process brings it up to date: searched as it is, without what was committed since"
                return opened
            if isinstance(exc, StoreLocked):
                # The lock is the index's, not the store's: writes go on meanwhile, and the
                # write lock's wording ("held the store") sent users after the wrong process.
                raise StoreLocked(
                    f"another ov process is building the search index and took more than {self._lock_wait:g}s; there is no index to search until it is done",
                    hint="retry in a moment (a large store takes a while to index the first time)",
                ) from exc
            raise
        try:
            return self._catch_up(head)
        except (DiskFull, OSError) as exc:
            full = exc if isinstance(exc, DiskFull) else disk_full(exc, self.root)
            if full is None:
                raise
            # No room to bring it up to date (a full disk, a file-size limit): the index as it
            # was is searched, as one this user may not write is; the next search tries again.
            return self._as_it_is(head, full)
        finally:
            lock.release()

    def _as_it_is(self, head: str | None, full: DiskFull) -> OpenIndex:
        """The index on disk, searched though the catch-up that failed with ``full`` left it behind
        HEAD; ``full`` raised when there is none to search (a first build with no room)."""
        meta = Meta.read(self.root / META_NAME)
        if meta is None or self.incompatibility(meta) is not None:
            raise full
        opened = self._behind(self._load(meta, [], stale=meta.commit != head), head)
        if meta.commit != head:
            opened.behind = f"the index is behind HEAD and cannot be updated ({full.message}): searched as it is, without what was committed since"
        return opened

    def _small_build(self, head: str | None, meta: Meta | None, damaged: str | None) -> OpenIndex:
        """For :attr:`_build_limit`: the full text of a small store built here; else IndexNotBuilt.

        The hook answered past its deadline when it built any store in-process: SIGALRM waited for
        tantivy's commit and the embedder's batches, then the half-built folder was removed
        (1.1-2.4 s after an add of 2,000 files). A store past the limit is told by its files'
        names, none read (:func:`_records_at`), and nothing is written for it."""
        why = "there is no index yet" if meta is None else damaged or self.incompatibility(meta) or "it is behind HEAD"
        try:
            lock = WriteLock(self.store.state / "index.lock", GLANCE, home=self.store.home)
            lock.acquire()
        except (StoreLocked, StoreNotWritable):
            raise IndexNotBuilt(f"the index is not searched as it is: {why}; another process holds it") from None
        try:
            current = Meta.read(self.root / META_NAME)
            if current is not None and (meta is None or not _same_build(current, meta)) and self._text_incompatibility(current, as_is=True) is None:
                # Built while this waited for the lock (the job's build, done just then): searched,
                # not built again without the vectors the job had just made.
                try:
                    opened = self._behind(self._load(current, [], stale=current.commit != head, vectors=False), head)
                except IndexUnavailable:
                    pass  # damaged as well: built below
                else:
                    if (problem := self.incompatibility(current)) is not None:
                        opened.behind = f"the index is to be rebuilt ({problem}): its full text searched as it is"
                    return opened
            if damaged is not None and current is not None and meta is not None and _same_build(current, meta):
                (self.root / META_NAME).unlink()  # read as not built from now on: a job rebuilds it
            try:
                self._rebuild(head, why, vectors=False, limit=self._build_limit)
            except _TooLarge:
                raise IndexNotBuilt(f"the index is not searched as it is: {why}; it is built by a job") from None
            rebuilt = Meta.read(self.root / META_NAME)
            assert rebuilt is not None
            return self._load(rebuilt, [f"rebuilt: {why}"], vectors=False)
        finally:
            lock.release()

    def _with_vectors(self, head: str | None) -> OpenIndex | None:
        """The index caught up, its missing vectors made; None when another process holds its lock
        (making them, most likely): the caller searches its full text meanwhile."""
        try:
            lock = WriteLock(self.store.state / "index.lock", GLANCE, home=self.store.home)
            lock.acquire()
        except (StoreLocked, StoreNotWritable):
            return None
        try:
            return self._catch_up(head)
        finally:
            lock.release()

    def _behind(self, opened: OpenIndex, head: str | None) -> OpenIndex:
        """``opened``, searched although it is behind HEAD: with the paths it holds that HEAD
        changed or removed. Without them a search behind an update (another process catching
        up, the prompt hook between turns) returned a file just deleted, a memory just forgotten,
        a secret just edited out, text and all."""
        if opened.meta.commit != head:
            git = self.store.git
            old_tree = _tree_or_none(git, opened.meta.commit)
            if old_tree is None and opened.meta.commit is not None:
                # The indexed commit is not in the repository (a branch reset by hand): what the
                # index holds cannot be told from what HEAD holds, so nothing of it is shown.
                opened.outdated = None
            else:
                opened.outdated = outdated_paths(git, old_tree, git.tree_of(head.encode()) if head else None)
        return opened

    def use(self, work, *, full_text_only: bool = False):
        """``work(opened)`` on the open index (:meth:`open`). A full-text index that opens but
        proves damaged while ``work`` reads it is dropped (:meth:`discard`) and rebuilt, and
        ``work`` runs once more on the new one: a damaged segment costs one search a rebuild,
        not every search an error until someone runs ``ov reindex``."""
        opened = None
        try:
            opened = self.open(full_text_only=full_text_only)
            return work(opened)
        except IndexDamaged as exc:
            # Met by the search, or by open itself (rebuilding stale vectors reads every record).
            meta = opened.meta if opened is not None else Meta.read(self.root / META_NAME)
            if meta is not None:
                try:
                    self.discard(meta, exc.message)
                except StoreNotWritable as refused:
                    raise _cannot_rebuild(exc, refused) from None
        return work(self.open(full_text_only=full_text_only))

    def discard(self, meta: Meta, reason: str) -> None:
        """Mark the index ``meta`` describes as not built, so that the next :meth:`open` rebuilds
        it (and a hook's :meth:`ready` starts a job to), unless another process replaced it
        meanwhile or holds its lock (it is rebuilding or updating it, and meets the damage)."""
        _log().info("dropping the index: %s", reason)
        self._cache = None
        self._dropped = reason
        try:
            with WriteLock(self.store.state / "index.lock", self._lock_wait, home=self.store.home):
                current = Meta.read(self.root / META_NAME)
                if current is not None and _same_build(current, meta):
                    (self.root / META_NAME).unlink()
        except StoreLocked:
            pass

    def ready(self) -> bool:
        """Whether :meth:`open` with ``full_text_only`` reads the index as it is: it is built, and
        for this configuration. Otherwise opening it builds it (seconds for a large store, with
        vectors), which a caller with a deadline may not see finished."""
        return self.unready() in (None, VECTORS_TO_MAKE)

    def unready(self) -> str | None:
        """What a build has to do before the index is whole, or None: ``"not built"``, ``"to be
        rebuilt"``, or :data:`VECTORS_TO_MAKE` for one whose full text was built first."""
        if not self.store.exists:
            return None
        meta = Meta.read(self.root / META_NAME)
        if meta is None:
            return "not built"
        if self.incompatibility(meta) is not None:
            return "to be rebuilt"
        if meta.vectors_stale and self._embedder() is not None:
            return VECTORS_TO_MAKE
        return None

    def vectors_failure(self, now: float | None = None) -> str | None:
        """Why a search does not make the vectors still to be made: the embedder failed to
        within :data:`VECTORS_RETRY_AFTER` seconds (what it said); None when it may try."""
        try:
            failed = json.loads((self.root / VECTORS_FAILED_NAME).read_text(encoding="utf-8"))
            age = (time.time() if now is None else now) - float(failed["at"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        if not 0 <= age < VECTORS_RETRY_AFTER:
            return None
        return f"the embedder failed {int(age)} s ago ({failed.get('error')}); a search tries again after {VECTORS_RETRY_AFTER // 60} minutes"

    def catch_up(self) -> OpenIndex:
        """The index caught up with HEAD, its vectors made, waiting for another process that holds
        it as long as :meth:`open` would: for the hooks' job, where a search (:meth:`open`) would
        search the full text as it is while another process holds it."""
        with WriteLock(self.store.state / "index.lock", self._lock_wait, home=self.store.home):
            return self._catch_up(self._head())

    def build_full_text(self) -> str | None:
        """Where the next search would build or rebuild the index (none yet, another schema or
        language, a change that is most of it), build its full text now and leave its vectors
        to that search or the hooks' job (:data:`VECTORS_TO_MAKE`); what was done, or None.

        For a command that wrote much (``add-resource``), which the user waits for anyway: the
        prompt hook builds no more than a small store's full text, so the prompts right after
        adding a project to a new store found nothing of it until a job had built the index,
        vectors included (106 s for 2,000 code files). A change of up to :data:`UPDATE_AT_ADD`
        paths is applied here, vectors and all (:meth:`_update_now`); a larger one that is not
        most of the index is left to the catch-up, which embeds as it goes.
        Nothing is done while another process holds the index (it is building it)."""
        try:
            lock = WriteLock(self.store.state / "index.lock", GLANCE, home=self.store.home)
            lock.acquire()
        except StoreLocked:
            return None
        try:
            head = self._head()
            meta = Meta.read(self.root / META_NAME)
            problem = "no index yet" if meta is None else self.incompatibility(meta)
            if problem is None and meta.commit != head:
                changed = _changed_paths(self.store.git, meta.commit, head)
                if changed is not None and _rebuilt_rather(changed, meta.records):
                    problem = f"{counted(changed, 'path')} changed, most of the index"
                elif changed is not None and changed <= UPDATE_AT_ADD:
                    return self._update_now(meta, head)
            if problem is None:
                return None
            self._rebuild(head, problem, vectors=False)
            return f"rebuilt the full text: {problem}"
        finally:
            lock.release()

    def _update_now(self, meta: Meta, head: str | None) -> str | None:
        """Apply the change from ``meta.commit`` to ``head`` (under the index lock), its records'
        vectors made as a catch-up makes them; vectors still to be made stay so (a search or the
        job makes them all). An update that fails is left to the next search, which rebuilds."""
        try:
            lexical = LexicalIndex.open(self.root / TEXT_DIR, meta.language)
        except (OSError, ValueError) as exc:
            _log().info("the index was not updated after the add: %s", exc)
            return None
        try:
            changed = self._apply_diff(meta, lexical, head, undone=self._undo_dead_update(meta, lexical))
        except (_Rebuild, IndexDamaged, OSError, ValueError, KeyError) as exc:
            lexical.abandon()
            _log().info("the index was not updated after the add: %s", exc)
            return None
        self._cache = None
        return f"updated {counted(changed, 'path')}"

    def rebuild(self, reason: str = "requested") -> OpenIndex:
        """Build the index anew from HEAD; :attr:`left_out` then names the files it could not take."""
        self.left_out.clear()
        with WriteLock(self.store.state / "index.lock", self.store.config.store.lock_timeout, home=self.store.home):
            self._rebuild(self._head(), reason)
            meta = Meta.read(self.root / META_NAME)
            assert meta is not None
            return self._load(meta, [f"rebuilt: {reason}"])

    def status(self) -> dict:
        """What the index says of itself, whether it opens (:meth:`damage`) and whether the hnswlib
        file beside a copy looks whole (:meth:`vector_file_damage`); nothing is written."""
        meta = Meta.read(self.root / META_NAME)
        resolution = self.resolution
        out = {
            "path": str(self.root),
            "built": meta is not None,
            "embedding": resolution.as_dict(),
        }
        if meta is not None:
            problem = self.incompatibility(meta)
            out.update(
                commit=meta.commit,
                head=self._head(),
                records=meta.records,
                vectors=meta.vectors,
                embedder=meta.embedder,
                problem=problem,
                damage=None if problem else self.damage(meta),
                vectors_stale=bool(meta.vectors_stale and meta.embedder),
                vectors_failure=self.vectors_failure() if meta.vectors_stale else None,
            )
            out["vector_file_damage"] = None if problem or out["damage"] else self.vector_file_damage(meta)
        return out

    def damage(self, meta: Meta) -> str | None:
        """Why the index ``meta`` describes does not open as a search opens it, or None.

        Opened the same way: the full-text index and its count, the vectors through the loaders'
        own checks of their files (the copy a search would read, else hnswlib's). What a search
        would rebuild is only reported: it is repaired by that search or by ``ov reindex``.
        Damage inside a segment or a vector that opens is for ``ov fsck``, which reads it all.
        """
        try:
            self._load(meta, [], strict=True)
        except IndexUnavailable as exc:
            return exc.message
        except StoreNotWritable:
            return None  # not damage (no temporary folder to read it through): doctor's writable check says why
        return None

    def vector_file_damage(self, meta: Meta) -> str | None:
        """What is wrong with the hnswlib file of the vectors ``meta`` names, from its header and
        size (:func:`~ov.index.vectors.hnsw_problem`), or None. A search that reads its flat or
        grouped copy never reads it, and so never finds it damaged; the next update that writes
        a new generation starts from it. Call it on an index :meth:`damage` passes."""
        from ov.index.vectors import hnsw_problem

        if not (meta.embedder and meta.vectors_file and not meta.vectors_stale):
            return None
        delta = self._delta(meta)
        live = meta.vectors if delta is None else delta.base_live
        return hnsw_problem(self.root / meta.vectors_file, meta.embedder["dimension"], live)

    @property
    def resolution(self):
        if self._resolution is None:
            from ov.index.embedders.registry import resolve

            self._resolution = resolve(self.store.config.embedding, self.store.home, usage_dir=self.store.state, warm=self._warm)
        return self._resolution

    # --- catching up -----------------------------------------------------------

    def _catch_up(self, head: str | None) -> OpenIndex:
        meta = Meta.read(self.root / META_NAME)
        problem = (self._dropped or "no index yet") if meta is None else self.incompatibility(meta)
        if problem is None and meta is not None:
            try:
                lexical = LexicalIndex.open(self.root / TEXT_DIR, meta.language)
                lexical.count()
            except (OSError, ValueError, FileNotFoundError) as exc:
                problem = f"the full-text index does not open ({exc})"
                # Damaged: until the rebuild below is done the index reads as not built, so a
                # rebuild cut short (a hook's deadline) leaves it to the next prompt's job rather
                # than to every prompt's own attempt.
                (self.root / META_NAME).unlink(missing_ok=True)
        if problem is not None or meta is None:
            self._rebuild(head, problem or "unknown")
            meta = Meta.read(self.root / META_NAME)
            assert meta is not None
            return self._load(meta, [f"rebuilt: {problem}"])
        actions = []
        if meta.commit != head:
            try:
                undone = self._undo_dead_update(meta, lexical)
                changed = self._apply_diff(meta, lexical, head, undone=undone)
            except (_Rebuild, IndexDamaged, OSError, ValueError, KeyError) as exc:
                if isinstance(exc, OSError) and disk_full(exc, self.root) is not None:
                    raise  # a rebuild needs more room than the update that found none
                reason = str(exc) if isinstance(exc, _Rebuild) else f"the update failed ({exc})"
                self._rebuild(head, reason)
                meta = Meta.read(self.root / META_NAME)
                assert meta is not None
                return self._load(meta, [f"rebuilt: {reason}"])
            actions.append(f"updated {counted(changed, 'path')}")
        if meta.vectors_file and not meta.vectors_stale:
            try:
                self._vectors_load(meta)
            except IndexUnavailable as exc:
                _log().info("%s; the vectors are rebuilt", exc.message)
                meta.vectors_stale = True
        if meta.vectors_stale and self._embedder() is not None:
            actions.append("vectors rebuilt" if self._rebuild_vectors(meta, lexical) else "vectors still to be made")
        return self._load(meta, actions, lexical=lexical)

    def _undo_dead_update(self, meta: Meta, lexical: LexicalIndex) -> tuple[set[str], list[int]] | None:
        """For an update that died before its ``meta.json`` (its note in ``update.json`` is about
        ``meta``): its records deleted, and (the paths it replaced, the vector labels it removed),
        for the replay to replace and remove again; None when no update died.

        Replaying only the diff from ``meta.commit`` left its records wherever a path had the same
        blob at both ends (a session's messages file: empty, turns, empty again after a commit),
        and searches returned them until ``ov reindex``. The vectors need no undoing: a vector
        file is only taken over with the new meta.

        The temporary files of its atomic writes (a ``meta.json`` killed before its rename) go
        too: every writer of this folder holds the index lock the caller holds."""
        remove_stale_replacements(self.root)
        note = _read_note(self.root / UPDATE_NAME)
        if note is not None and (note.get("commit"), note.get("next_label")) != (meta.commit, meta.next_label):
            note = None  # an update that finished (its meta.json was written, its note not yet removed)
        if note is None:
            if lexical.has_labels_from(meta.next_label):
                # An ov without notes died mid-update: what it removed cannot be told.
                raise _Rebuild("an index update was cut short")
            return None
        lexical.delete_labels_from(meta.next_label)
        return set(note["paths"]), list(note["removed"])

    def _apply_diff(self, meta: Meta, lexical: LexicalIndex, head: str | None, *, undone: tuple[set[str], list[int]] | None = None) -> int:
        """Bring ``lexical`` and the vectors from ``meta.commit`` to ``head``; ``undone``: the paths
        and vector labels of a dead update (:meth:`_undo_dead_update`), replaced and removed too."""
        git = self.store.git
        old_tree = _tree_or_none(git, meta.commit)
        new_tree = git.tree_of(head.encode()) if head else None
        paths: dict[str, tuple[int, bytes] | None] = {}  # path -> its (mode, blob) at HEAD, None: gone
        before: dict[str, tuple[int, bytes]] = {}  # a path's (mode, blob) at the indexed commit, where it had one
        if old_tree is None and meta.commit is not None:
            raise _Rebuild("the indexed commit is not in the repository")
        for (old, new), (old_mode, new_mode), (old_sha, new_sha) in git.repo.object_store.tree_changes(old_tree, new_tree):
            if old is not None:
                paths.setdefault(old.decode("utf-8", "surrogateescape"), None)
                if old_mode is not None and not _is_dir_mode(old_mode):
                    before[old.decode("utf-8", "surrogateescape")] = old_mode, old_sha
            if new is not None and new_mode is not None and not _is_dir_mode(new_mode):
                # A link, a submodule, a name not UTF-8: no records (left_out_because)
                paths[new.decode("utf-8", "surrogateescape")] = new_mode, new_sha
        if _rebuilt_rather(len(paths), meta.records):
            # Replacing most of an index path by path costs about 1.5x a rebuild (5,000 files
            # moved: 5.6 s against 3.7 s): each delete is a term, and the deleted records weigh on
            # the merges. A rebuild writes a fresh index beside it.
            raise _Rebuild(f"{counted(len(paths), 'path')} changed, most of the index")
        redone, removed_before = undone if undone is not None else (set(), [])
        for path in redone - paths.keys():
            paths[path] = _entry_or_none(git, new_tree, path)
        whole: list[str] = []  # paths whose records are all replaced
        removed_ids: list[str] = []
        records: list[Record] = []
        for path, entry in counting(sorted(paths.items()), self._progress, READING):
            if entry is not None:
                new_records = committed_records(git, path, *entry)
                # A dead update's path lost records the diff does not name: replaced whole.
                changed = None if path in redone else _changed_records(git, path, before.get(path), new_records)
                if changed is not None:
                    gone, new_records = changed
                    removed_ids.extend(gone)
                else:
                    whole.append(path)
                records.extend(new_records)
            else:
                whole.append(path)
        removed_labels = sorted(set(lexical.labels_of_paths(whole) + lexical.labels_of_ids(removed_ids) + removed_before))
        for path in whole:
            lexical.delete_path(path)
        lexical.delete_ids(removed_ids)
        labels = list(range(meta.next_label, meta.next_label + len(records)))
        update = self._update_vectors(meta, records, labels, removed_labels)
        for record, label in counting(list(zip(records, labels)), self._progress, FULL_TEXT):
            lexical.add(record, label)
        # Written before the commit: if this process dies before meta.json, the next update undoes
        # what the commit did from it (_undo_dead_update). Not flushed to disk (one fsync less on
        # every update, a hook's catch-up included): a kill leaves it in the page cache, and a
        # power cut that loses it leaves records past next_label without a note, which rebuilds.
        note = {"commit": meta.commit, "next_label": meta.next_label, "paths": sorted(paths), "removed": removed_labels}
        atomic_write(self.root / UPDATE_NAME, json_bytes(note), durable=False)
        lexical.commit()
        meta.commit = head
        meta.next_label += len(records)
        meta.records = lexical.count()
        if update is not None:
            meta.vectors_file, meta.vectors_delta, meta.vectors = update
        meta.updated_at = time.time()
        meta.write(self.root / META_NAME)
        (self.root / UPDATE_NAME).unlink(missing_ok=True)
        if update is not None:
            self._sweep_vector_files(meta)
        return len(paths)

    def _update_vectors(self, meta: Meta, records: list[Record], labels: list[int], removed: list[int]):
        """Apply a diff to the vectors: into a new delta while the change since the generation is
        small (ov.index.vector_delta), else into a new generation. (vector file, delta file,
        live vectors) of the result, or None when there are no vectors to update."""
        from ov.index.vector_delta import DELTA_LIMIT, DELTA_SUFFIX, Delta
        from ov.index.vectors import VectorIndex, exact_fits, stacked

        embedder = self._embedder()
        if embedder is None or meta.embedder is None or meta.vectors_stale or not meta.vectors_file:
            return None
        dimension = meta.embedder["dimension"]
        try:
            matrix, vector_labels = _embed(embedder, records, labels, self._progress)
            delta = Delta.load(self.root / meta.vectors_delta, dimension) if meta.vectors_delta else Delta.empty(dimension, meta.vectors)
            base = self._copy_of(meta, dimension, delta.base_live)
            if base is not None:
                changed = delta.changed(removed, dict(zip(vector_labels, matrix)), base)
                if changed.size <= DELTA_LIMIT:
                    delta_file = _next_vectors_file(meta, DELTA_SUFFIX)
                    changed.write(self.root / delta_file)
                    return meta.vectors_file, delta_file, changed.live
            vectors = VectorIndex.load(self.root / meta.vectors_file, dimension, delta.base_live, for_update=True)
        except OvError as exc:
            _log().warning("vectors left behind: %s", exc)
            meta.vectors_stale = True
            return None
        except (OSError, RuntimeError, ValueError) as exc:
            _log().warning("vector index unreadable (%s); it will be rebuilt", exc)
            meta.vectors_stale = True
            return None
        # The delta folded in, then this change, into a new generation.
        vectors.remove(sorted(delta.removed))
        if delta.added.live:
            rows = delta.added.rows()
            vectors.add(stacked(rows, list(rows), dimension), list(rows))
        vectors.remove(removed)
        vectors.add(matrix, vector_labels)
        gen_file = _next_vectors_file(meta)
        vectors.save(self.root / gen_file)
        # Searched as it is where load_for_search would read this hnswlib index back (a process
        # with numpy, past the flat copy's limit).
        if exact_fits(vectors.live, dimension):
            self._held.drop(self.root)
        else:
            self._held.put(self.root, generation_key(self.root, gen_file, meta.built_at), vectors)
        return gen_file, None, vectors.live

    def _copy_of(self, meta: Meta, dimension: int, live: int):
        """The generation's vectors, to count the passages a delta removes: as this object holds
        them, else its flat or grouped copy, loaded (no hnswlib); None when neither is there."""
        from ov.index import vector_groups
        from ov.index.vectors import ExactVectors, exact_fits, exact_path, groups_path

        key = generation_key(self.root, meta.vectors_file, meta.built_at)
        held = self._held.get(self.root, key)
        if held is not None:
            return held
        path = self.root / meta.vectors_file
        try:
            if exact_fits(live, dimension):
                # What load_for_search reads for the search after this update: read once, kept.
                copy = ExactVectors.load(exact_path(path), dimension, live)
                self._held.put(self.root, key, copy)
                return copy
            if vector_groups.grouped_fits(live, dimension):
                return vector_groups.GroupedVectors.load(groups_path(path), dimension, live)
        except (OSError, ValueError):
            pass  # the generation's own file is the authority: the update folds into a new one
        return None

    def _sweep_vector_files(self, meta: Meta) -> None:
        """Remove every vector file ``meta`` does not name: the generation or delta it replaced,
        and any that an update killed before its ``meta.json`` was written left behind."""
        from ov.index.vectors import exact_path, groups_path

        keep = {meta.vectors_delta}
        if meta.vectors_file:
            generation = self.root / meta.vectors_file
            keep |= {generation.name, exact_path(generation).name, groups_path(generation).name}
        for path in self.root.glob("vectors-*"):
            if path.name not in keep:
                path.unlink(missing_ok=True)

    def _rebuild_vectors(self, meta: Meta, lexical: LexicalIndex) -> bool:
        from ov.index.lexical import Filters

        # The records are read again from the indexed commit: the full-text index stores what a
        # hit shows, not everything a vector is made from (a message's previous one).
        labels = {h.record.id: h.label for h in lexical.fetch(Filters(), max(lexical.count(), 1))}
        records = [r for r in _records_at(self.store.git, meta.commit, self._progress) if r.id in labels]
        return self._make_vectors(meta, records, [labels[r.id] for r in records])

    def _make_vectors(self, meta: Meta, records: list[Record], labels: list[int]) -> bool:
        """Every vector of the index ``meta`` describes, from its ``records`` (labelled ``labels``),
        in a new generation; False, left stale, when the embedder fails."""
        from ov.index.vectors import VectorIndex

        embedder = self._embedder()
        try:
            matrix, vector_labels = _embed(embedder, records, labels, self._progress)
        except OvError as exc:
            _log().warning("vectors still behind: %s", exc)
            atomic_write(self.root / VECTORS_FAILED_NAME, json_bytes({"at": time.time(), "error": exc.message}), durable=False)
            return False
        vectors = VectorIndex.create(embedder.fingerprint.dimension, len(vector_labels))
        vectors.add(matrix, vector_labels)
        gen_file = _next_vectors_file(meta)
        vectors.save(self.root / gen_file)
        meta.vectors_file, meta.vectors_delta, meta.vectors, meta.vectors_stale = gen_file, None, vectors.live, False
        meta.embedder = _made_by(embedder)
        meta.write(self.root / META_NAME)
        (self.root / VECTORS_FAILED_NAME).unlink(missing_ok=True)
        self._sweep_vector_files(meta)
        return True

    # --- rebuilding ------------------------------------------------------------

    def _rebuild(self, head: str | None, reason: str, *, vectors: bool = True, limit: int | None = None) -> None:
        """Build the full text from HEAD in a new directory and swap it in, then make its vectors
        (``vectors=False``: left to the next search or the hooks' job, :data:`VECTORS_TO_MAKE`).
        ``limit``: :class:`_TooLarge` before anything is written when HEAD has more records.

        The full text is swapped in first, its vectors marked stale, because it is what the
        prompt hook searches: built with the vectors in one go, a store of 2,000 code files had
        no index at all for 106 s, of which the full text took 28."""
        import shutil  # Deferred with what it imports (bz2, lzma): only a rebuild removes folders.

        _log().info("rebuilding the index: %s", reason)
        language = self.store.config.retrieval.language
        work = self.root.with_name(f"{INDEX_DIR}.new-{os.getpid()}")
        # Under the index lock, any other half-built or swapped-out index belongs to a rebuild
        # that was killed (or failed on a full disk): it is only wasted space.
        for kind in ("new", "old"):
            for leftover in self.root.parent.glob(f"{INDEX_DIR}.{kind}-*"):
                _remove(leftover)
        work.mkdir(parents=True)
        try:
            records = self._build_into(work, head, language, limit)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        self._cache = None
        old = self.root.with_name(f"{INDEX_DIR}.old-{os.getpid()}")
        if self.root.exists():
            os.replace(self.root, old)
        os.replace(work, self.root)
        _remove(old)
        meta = Meta.read(self.root / META_NAME)
        if vectors and meta is not None and meta.vectors_stale and self._embedder() is not None:
            self._make_vectors(meta, records, list(range(len(records))))

    def _build_into(self, work: Path, head: str | None, language: str, limit: int | None = None) -> list[Record]:
        """The full-text index of HEAD's records written into ``work``, its vectors marked stale
        (when there is an embedder); returns the records, labelled by their position."""
        git = self.store.git
        records = _records_at(git, head, self._progress, self.left_out, limit)
        lexical = LexicalIndex.open(work / TEXT_DIR, language, create=True)
        try:
            for label, record in enumerate(counting(records, self._progress, FULL_TEXT)):
                lexical.add(record, label)
            lexical.commit()
        except BaseException:
            lexical.abandon()
            raise
        meta = Meta(SCHEMA_VERSION, head, language, None, next_label=len(records), records=lexical.count())
        if self._embedder() is not None:
            meta.embedder, meta.vectors_stale = _identity(self.resolution), True
        meta.built_at = meta.updated_at = time.time()
        meta.write(work / META_NAME)
        return records

    # --- helpers ---------------------------------------------------------------

    def incompatibility(self, meta: Meta) -> str | None:
        """Why ``meta`` cannot be caught up incrementally, or None."""
        problem = self._text_incompatibility(meta)
        if problem is not None:
            return problem
        wanted = _identity(self.resolution)
        have = meta.embedder
        if (wanted is None) != (have is None):
            return "the embedder changed" if wanted is not None else "the embedder was removed"
        if wanted is not None and have is not None:
            if (wanted["provider"], wanted["model"]) != (have.get("provider"), have.get("model")):
                return f"vectors from {have.get('provider')}:{have.get('model')}, configured {wanted['provider']}:{wanted['model']}"
            if wanted.get("dimension") not in (None, have.get("dimension")):
                return "the embedder's dimension changed"
            if have.get("recipe", 1) != VECTOR_RECIPE:
                return f"vectors made by ov's recipe {have.get('recipe', 1)}, this ov makes recipe {VECTOR_RECIPE}"
        if meta.vectors_file and not (self.root / meta.vectors_file).is_file():
            return "the vector file is missing"  # a delta gone is damage to the vectors alone: they are rebuilt
        return None

    def _text_incompatibility(self, meta: Meta, *, as_is: bool = False) -> str | None:
        """Why the full-text index of ``meta`` cannot be searched by this configuration, or None.
        ``as_is``: searched as it is until a rebuild replaces it, which an older schema this ov
        still reads (:data:`~ov.index.lexical.READABLE_SCHEMA`) may be."""
        if meta.schema_version != SCHEMA_VERSION and not (as_is and READABLE_SCHEMA <= meta.schema_version < SCHEMA_VERSION):
            return f"index schema {meta.schema_version}, ov needs {SCHEMA_VERSION}"
        if meta.language != self.store.config.retrieval.language:
            return f"index language {meta.language}, configured {self.store.config.retrieval.language}"
        return None

    def _embedder(self):
        return self.resolution.embedder

    def _vectors_load(self, meta: Meta):
        """The vectors of ``meta`` to search; :class:`~ov.errors.IndexUnavailable`, saying why,
        when they do not load."""
        from ov.index.vector_delta import DeltaVectors
        from ov.index.vectors import hnsw_problem, load_for_search

        dimension = meta.embedder["dimension"]
        delta = self._delta(meta)
        live = meta.vectors if delta is None else delta.base_live
        key = generation_key(self.root, meta.vectors_file, meta.built_at)
        base = self._held.get(self.root, key)
        if base is None:
            if self._warm is not None:
                # A long-lived process (the MCP server) pays numpy's import once; after it every
                # search of a flat copy is one matrix product instead of a plain-Python loop.
                import numpy  # noqa: F401

            path = self.root / meta.vectors_file
            try:
                base = load_for_search(path, dimension, live)
            except (OSError, RuntimeError, TypeError, KeyError) as exc:
                # hnswlib says little ("Index seems to be corrupted or unsupported"); its header says more.
                why = hnsw_problem(path, dimension, live) or str(exc)
                raise IndexUnavailable(f"the vector index does not load: {why}", hint="run `ov reindex`") from None
            self._held.put(self.root, key, base)
        return base if delta is None else DeltaVectors(base, delta)

    def _delta(self, meta: Meta):
        """The delta ``meta`` names (:mod:`ov.index.vector_delta`), or None when it names none."""
        from ov.index.vector_delta import Delta

        if not meta.vectors_delta:
            return None
        try:
            return Delta.load(self.root / meta.vectors_delta, meta.embedder["dimension"])
        except (OSError, ValueError) as exc:
            raise IndexUnavailable(f"the vector delta does not load: {exc}", hint="run `ov reindex`") from None

    def _load(
        self, meta: Meta, actions: list[str], *, stale: bool = False, lexical: LexicalIndex | None = None, strict: bool = False, vectors: bool = True
    ) -> OpenIndex:
        """Open what ``meta`` describes; ``strict`` raises IndexUnavailable for damaged vectors too;
        ``vectors=False`` leaves them unloaded (and the result uncached: it is not the whole index)."""
        if lexical is None:
            try:
                lexical = LexicalIndex.open(self.root / TEXT_DIR, meta.language, schema_version=meta.schema_version)
                lexical.count()
            except (OSError, ValueError, FileNotFoundError) as exc:
                raise IndexUnavailable(f"the full-text index does not open: {exc}", hint="run `ov reindex`") from None
        embedding = self.resolution.as_dict()
        if not vectors:
            return OpenIndex(lexical, None, None, meta, embedding, stale, actions)
        loaded = None
        embedder = self._embedder()
        if embedder is not None and meta.vectors_file and not meta.vectors_stale and meta.embedder:
            try:
                loaded = self._vectors_load(meta)
            except IndexUnavailable as exc:
                if strict:
                    raise
                _log().info("%s", exc.message)
        if embedder is not None and loaded is None:
            embedding = {**embedding, "available": False, "reason": "vectors are being rebuilt; this search is lexical"}
        opened = OpenIndex(lexical, loaded, embedder if loaded is not None else None, meta, embedding, stale, actions)
        self._cache = OpenIndex(lexical, opened.vectors, opened.embedder, meta, embedding, stale, [])
        return opened

    def _head(self) -> str | None:
        head = self.store.git.head() if self.store.exists else None
        return head.decode() if head else None


def index_after_add(store, progress: Progress | None = None) -> str | None:
    """:meth:`Indices.build_full_text` after an add that committed; a warning when it failed. The
    add itself stands: the next search builds the index as it would have."""
    try:
        Indices(store, progress=progress).build_full_text()
    except Exception as exc:  # the add is committed: exit 1 would say it failed
        # tantivy reports its IO failures as ValueErrors, most of them untyped (a file-size
        # limit's EFBIG was): whatever stopped the derived index, the add stands.
        if isinstance(exc, OvError):
            why = exc.message
        elif isinstance(exc, (OSError, ValueError)):
            why = f"{type(exc).__name__}: {exc}"
        else:  # not the disk's or tantivy's: a bug, said as one, and raised where OV_DEBUG asks for it
            if os.environ.get("OV_DEBUG"):
                raise
            why = f"internal error: {type(exc).__name__}: {exc}; OV_DEBUG=1 shows where, please report it"
        return f"the search index was not built ({why}); the next search builds it"
    return None


def _rebuilt_rather(changed: int, records: int) -> bool:
    """Whether a change of ``changed`` paths to an index of ``records`` is applied by a rebuild."""
    return changed >= LARGE_DIFF and changed > records // 2


def _changed_paths(git, commit: str | None, head: str | None) -> int | None:
    """How many files differ between ``commit`` and ``head``; None when ``commit`` is not in the repository."""
    old_tree = _tree_or_none(git, commit)
    if old_tree is None and commit is not None:
        return None
    new_tree = git.tree_of(head.encode()) if head else None
    return sum(1 for _ in git.repo.object_store.tree_changes(old_tree, new_tree))


def _remove(path: Path) -> None:
    """Remove what was set aside at ``path``: a folder, or a file or link where the index folder
    should have been (rmtree refuses those, and they would stay beside the index for good)."""
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def _same_build(a: Meta, b: Meta) -> bool:
    """Whether two reads of ``meta.json`` describe the same state of the index folder."""
    return (a.commit, a.built_at, a.updated_at, a.vectors_file, a.vectors_delta) == (b.commit, b.built_at, b.updated_at, b.vectors_file, b.vectors_delta)


class _Rebuild(Exception):
    pass


class _TooLarge(Exception):
    """HEAD holds more records than a build was allowed (:attr:`Indices._build_limit`)."""


def _cannot_rebuild(damage: IndexUnavailable, refused: StoreNotWritable) -> IndexDamagedReadOnly:
    """The error of a damaged index on a store ov may not write to. Searches repair damage by a
    rebuild, which writes: said as the refused write alone, it blamed the store's access and
    nothing else; said as the damage alone, its hint (`ov reindex`) meets the same refusal."""
    return IndexDamagedReadOnly(f"the search index is damaged and cannot be rebuilt, because {refused.message} ({damage.message})")


def _log():
    """This module's logger, imported when first needed (logging with what it pulls in, ~7 ms): only
    a rebuild or a damaged index logs, and every find and hook opens the index."""
    import logging

    return logging.getLogger(__name__)


def _identity(resolution) -> dict | None:
    """provider/model (and dimension when known without a call) of the configured embedder."""
    embedder = resolution.embedder
    if embedder is None:
        return None
    info = resolution.as_dict()
    return {"provider": info.get("provider"), "model": info.get("model"), "dimension": info.get("dimension"), "recipe": VECTOR_RECIPE}


def _made_by(embedder) -> dict:
    """What meta.json records of the vectors' making: the embedder's fingerprint and the recipe."""
    return {**embedder.fingerprint.as_dict(), "recipe": VECTOR_RECIPE}


def _records_at(git, commit: str | None, progress: Progress | None = None, left_out: list[str] | None = None, limit: int | None = None) -> list[Record]:
    """Every record of the files of ``commit`` (none for no commit). ``left_out`` is given the
    (path, why) of the entries that can have none, whatever they hold
    (:func:`~ov.index.records.left_out_because`). :class:`_TooLarge` as soon as there are more
    than ``limit``, before any file is read when its files say so by their names."""
    records: list[Record] = []
    tree = git.tree_of(commit.encode()) if commit else None
    # Listed first, when someone is told how far along it is: the walk is fast, the reading is not.
    files = git.iter_entries(tree) if progress is None and limit is None else list(git.iter_entries(tree))
    if limit is not None and sum(1 for path, mode, _ in files if counts_as_records(path, mode)) > limit:
        # Read up to the limit to learn as much, 200 files took a prompt 0.2-0.5 s of its deadline.
        raise _TooLarge
    for path, mode, sha in counting(files, progress, READING):
        why = left_out_because(path, mode)
        if why is not None:
            if left_out is not None:
                left_out.append((shown(path), why))
            continue
        records.extend(committed_records(git, path, mode, sha))
        if limit is not None and len(records) > limit:
            raise _TooLarge
    return records


def embed_text(record: Record) -> str:
    """What a record's vectors are made from (the embedder cuts it into passages)."""
    head = f"{record.title}\n" if record.title else ""
    return head + record.searched


def _embed(embedder, records: list[Record], labels: list[int], progress: Progress | None = None):
    """The vectors of ``records`` (labelled ``labels``): one per passage, and their vector labels."""
    import numpy as np

    from ov.index.embedders.base import EMBED_CHARS
    from ov.index.vectors import MAX_PARTS, part_labels

    texts: list[str] = []
    vector_labels: list[int] = []
    for record, label in zip(records, labels):
        # A session's whole log is never a result (its messages are), and a vector of it would only
        # take one of the nearest places a message could have (LoCoMo R@10 0.834 -> 0.837 without):
        # it gets the zero vector of a blank text, near nothing, and no embedding call.
        passages = [""] if record.kind == "log" else embedder.passages(embed_text(record))
        if record.previous and not embedder.static:
            # A reply often means little without what it answers ("Yes, last June"): a model that
            # reads context also sees it with the message before it, and the nearer vector counts.
            passages = passages[: MAX_PARTS - 1] + [f"{record.previous}\n{record.text}"[:EMBED_CHARS]]
        texts.extend(passages)
        vector_labels.extend(part_labels(label, len(passages)))
    if not texts:
        return np.zeros((0, embedder.fingerprint.dimension), dtype=np.float32), []
    parts = []
    for start in counting(range(0, len(texts), EMBED_BATCH), progress, VECTORS):
        parts.append(embedder.embed(texts[start : start + EMBED_BATCH]))
    return np.vstack(parts).astype(np.float32), vector_labels


def _next_vectors_file(meta: Meta | None, suffix: str = ".hnsw") -> str:
    """The name of the vector file after those ``meta`` names (a generation's, or with ``suffix``
    ``.delta`` a delta's): numbered past both, so that neither is ever written over."""
    gen = -1
    for name in (meta.vectors_file, meta.vectors_delta) if meta is not None else ():
        try:
            gen = max(gen, int(name.split("-")[1].split(".")[0]))
        except (AttributeError, IndexError, ValueError):
            pass
    return f"vectors-{gen + 1:06d}{suffix}"


def _changed_records(git, path: str, old: tuple[int, bytes] | None, new: list[Record]) -> tuple[list[str], list[Record]] | None:
    """For a session's messages file that changed: (the ids of the records to remove, the records to
    add); None where the path's records are replaced whole.

    A live session's file grows by a turn at a time, and replacing it whole made each turn cost the
    whole session again (at 4,000 messages, 3–10 s of the job after every turn, most of it hnswlib
    taking every message's vector anew). A record whose every field is as it was keeps its place
    and its vector: the new message, the one before it (its neighbour is new) and the conversation
    record are what change. Ids must be unique on both sides, since removal is by id."""
    from ov.index.records import is_message_log

    if old is None or not is_message_log(path):
        return None
    old_records = committed_records(git, path, *old)
    was = {record.id: record for record in old_records}
    now = {record.id for record in new}
    if len(was) != len(old_records) or len(now) != len(new):
        return None
    kept = {record.id for record in new if was.get(record.id) == record}
    return [rid for rid in was if rid not in kept], [record for record in new if record.id not in kept]


def outdated_paths(git, old_tree: bytes | None, new_tree: bytes | None, prefix: str = "") -> dict[str, bytes | None]:
    """The files of ``old_tree`` that ``new_tree`` changes: path -> its blob in ``new_tree``
    (None: not there, or an entry that has no records there, such as a symbolic link). Trees only ``new_tree`` has are not walked (an index of ``old_tree`` holds
    nothing of them), so a large add costs nothing here."""
    out: dict[str, bytes | None] = {}
    if old_tree is None or old_tree == new_tree:
        return out
    store = git.repo.object_store
    new_entries = {} if new_tree is None else {name: (mode, sha) for name, mode, sha in store[new_tree].iteritems()}
    for name, mode, sha in store[old_tree].iteritems():
        path = prefix + name.decode("utf-8", "surrogateescape")
        new_mode, new_sha = new_entries.get(name, (None, None))
        if new_sha == sha:
            continue
        if _is_dir_mode(mode):
            out.update(outdated_paths(git, sha, new_sha if new_mode is not None and _is_dir_mode(new_mode) else None, path + "/"))
        else:
            kept = new_mode is not None and not _is_dir_mode(new_mode) and left_out_because(path, new_mode) is None
            out[path] = new_sha if kept else None
    return out


def _read_note(path: Path) -> dict | None:
    """An update's note (``update.json``), or None when there is none or it does not read whole."""
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or not isinstance(note.get("paths"), list) or not isinstance(note.get("removed"), list):
        return None
    return note


def _entry_or_none(git, tree: bytes | None, path: str) -> tuple[int, bytes] | None:
    """(mode, blob) of the file ``path`` in ``tree``; None when it holds no file there."""
    from dulwich.object_store import tree_lookup_path

    if tree is None:
        return None
    try:
        mode, sha = tree_lookup_path(git.repo.object_store.__getitem__, tree, path.encode("utf-8", "surrogateescape"))
    except (KeyError, NotADirectoryError):
        return None
    return None if _is_dir_mode(mode) else (mode, sha)


def _tree_or_none(git, commit: str | None):
    if commit is None:
        return None
    try:
        return git.tree_of(commit.encode())
    except KeyError:
        return None


def _is_dir_mode(mode: int) -> bool:
    import stat

    return stat.S_ISDIR(mode)

