"""Opening the indices for a search: caught up with HEAD first, or searched as they are.

:meth:`Opening.open` is called before every search (``ov find``, ``ov search``, the prompt hook,
the MCP tools). An index at HEAD is loaded (:meth:`Opening._load`), its vectors from the
generation a process holds or from their files. One behind HEAD is caught up under the index's
lock (by :class:`~ov.index.sync.Indices`), unless the caller may not wait for it or
may not pay for it: the prompt hook reads it as it is, and a search while another process holds the
lock does too, leaving out what HEAD changed since (:func:`outdated_paths`). One that has to be built
or rebuilt is, by the catch-up, or, for a caller with a deadline, only when the store is small
(:meth:`Opening._small_build`).

:class:`Opening` is the part of :class:`~ov.index.sync.Indices` that opens; the catch-up, the
rebuilds and the checks of the index are in :mod:`ov.index.sync`. Every search imports this module:
what only a build or an update needs is imported where it is used.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field

from ov.errors import (
    DiskFull,
    IndexDamaged,
    IndexDamagedReadOnly,
    IndexNotBuilt,
    IndexUnavailable,
    StoreLocked,
    StoreNotWritable,
    disk_full,
)
from ov.index.folder import META_NAME, TEXT_DIR, Meta, same_build
from ov.index.held import generation_key
from ov.index.lexical import SCHEMA_VERSION, LexicalIndex
from ov.index.records import left_out_because
from ov.store.lock import WriteLock

# How long a process that does not wait for the index's lock waits for it: enough to pass a dead
# holder's ticket in the queue (a wait of 0 gives up before looking at it).
GLANCE = 0.05


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


class Opening:
    """How :class:`~ov.index.sync.Indices` opens the indices for a search (its ``store``, ``root``,
    ``_cache``, locks' waits, build limit, embedder and held vectors are set there)."""

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
        # Another process's update is done in a moment and worth the wait; a rebuild (another
        # schema, language or embedder) takes minutes on a large store (91 s for a year of use),
        # so waiting the lock's timeout for one only delayed the same answer from the old text.
        wait = self._lock_wait
        if as_is:
            wait = self._stale_wait if problem is None else min(self._stale_wait, GLANCE)
        try:
            lock = WriteLock(self.store.state / "index.lock", wait, home=self.store.home)
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
        names, none read (:func:`~ov.index.rebuild.records_at`), and nothing is written for it."""
        why = "there is no index yet" if meta is None else damaged or self.incompatibility(meta) or "it is behind HEAD"
        try:
            lock = WriteLock(self.store.state / "index.lock", GLANCE, home=self.store.home)
            lock.acquire()
        except (StoreLocked, StoreNotWritable):
            raise IndexNotBuilt(f"the index is not searched as it is: {why}; another process holds it") from None
        try:
            current = Meta.read(self.root / META_NAME)
            if current is not None and (meta is None or not same_build(current, meta)) and self._text_incompatibility(current, as_is=True) is None:
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
            if damaged is not None and current is not None and meta is not None and same_build(current, meta):
                (self.root / META_NAME).unlink()  # read as not built from now on: a job rebuilds it
            from ov.index.rebuild import TooLarge

            try:
                self._rebuild(head, why, vectors=False, limit=self._build_limit)
            except TooLarge:
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
            old_tree = opened.meta.indexed_tree(git)
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
                # A static model's grouped copy is searched comparing fewer vectors (vector_groups).
                base = load_for_search(path, dimension, live, getattr(self._embedder(), "static", False))
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


def _cannot_rebuild(damage: IndexUnavailable, refused: StoreNotWritable) -> IndexDamagedReadOnly:
    """The error of a damaged index on a store ov may not write to. Searches repair damage by a
    rebuild, which writes: said as the refused write alone, it blamed the store's access and
    nothing else; said as the damage alone, its hint (`ov reindex`) meets the same refusal."""
    return IndexDamagedReadOnly(f"the search index is damaged and cannot be rebuilt, because {refused.message} ({damage.message})")


def _log():
    """This module's logger, imported when first needed (logging with what it pulls in, ~7 ms): only
    a damaged index logs here, and every find and hook opens the index."""
    import logging

    return logging.getLogger(__name__)


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
        if stat.S_ISDIR(mode):
            out.update(outdated_paths(git, sha, new_sha if new_mode is not None and stat.S_ISDIR(new_mode) else None, path + "/"))
        else:
            kept = new_mode is not None and not stat.S_ISDIR(new_mode) and left_out_because(path, new_mode) is None
            out[path] = new_sha if kept else None
    return out


