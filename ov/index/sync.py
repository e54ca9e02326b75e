"""Keeping the indices in step with the commits, for the searches that read them.

An index folder (:mod:`ov.index.folder`) holds the full text (tantivy) and, with an embedder,
the vectors (hnswlib and its copies) of one commit; ``meta.json`` says which.
:meth:`Indices.open` is called before every search (:mod:`ov.index.opening`: how a search opens
them, or reads them as they are). When HEAD moved since the indexed commit, the indices catch up
from the git diff of the two trees, kill-safe (:mod:`ov.index.update`).
When ``meta.json`` is missing or unreadable, the schema version, language or embedder differ,
or the index files fail to open, everything is rebuilt from HEAD into a fresh directory that
replaces the old one (:mod:`ov.index.rebuild`). The vectors are written by
:mod:`ov.index.vector_writes`; a full text built first is searched while they are made.

Updates hold ``state/{account}/index.lock``; searches never wait for writers of the store. A
search that may not wait (the prompt hook, the MCP server) reads the index as it is, leaving out
what HEAD changed since (:func:`~ov.index.opening.outdated_paths`).
"""

from __future__ import annotations

import json
import time

from ov.errors import (
    IndexDamaged,
    IndexUnavailable,
    OvError,
    StoreLocked,
    StoreNotWritable,
    debugging,
    disk_full,
)
from ov.index.folder import (
    INDEX_DIR,
    META_NAME,
    TEXT_DIR,
    VECTORS_FAILED_NAME,
    Meta,
    identity,
    same_build,
)
from ov.index.held import HeldVectors
from ov.index.lexical import READABLE_SCHEMA, SCHEMA_VERSION, LexicalIndex
from ov.index.opening import GLANCE, OpenIndex, Opening
from ov.progress import Progress
from ov.store.lock import WriteLock

# An add of up to this many paths updates the index before it returns, so the prompt right after
# it finds what was added: the hook searches the index as it is, and found nothing of a small add
# until the job's catch-up was done. Its vectors are made there too (a one-file add with the
# built-in model: 0.3-0.5 s, mostly loading it, which the first find after it no longer pays; an API
# one batch for a few files); a larger add is left to the catch-up.
UPDATE_AT_ADD = 200
VECTORS_TO_MAKE = "vectors to be made"  # Indices.unready(): its full text is built, searched meanwhile
# A search that finds the vectors still to be made tries again only this many seconds after the
# embedder last failed to make them (VECTORS_FAILED_NAME): each try reads every record and asks the
# embedder again, seconds a search (a minute with an API that times out), paid for batch by batch
# up to the one that fails. A change to the store (the catch-up), the hooks' job and `ov reindex`
# try at once.
VECTORS_RETRY_AFTER = 300


class Indices(Opening):
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
        # Set by a rebuild once its new full text is in use and its vectors are still to make: an
        # interrupt from then on leaves the index searchable by its text alone, the old vectors gone.
        self.vectors_pending = False
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
                if current is not None and same_build(current, meta):
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
        from ov.index.update import changed_paths, rebuilt_rather
        from ov.wording import counted

        try:
            head = self._head()
            meta = Meta.read(self.root / META_NAME)
            problem = "no index yet" if meta is None else self.incompatibility(meta)
            if problem is None and meta.commit != head:
                changed = changed_paths(self.store.git, meta, head)
                if changed is not None and rebuilt_rather(changed, meta.records):
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
        from ov.index.update import Rebuild, undo_dead_update
        from ov.wording import counted

        try:
            lexical = LexicalIndex.open(self.root / TEXT_DIR, meta.language)
        except (OSError, ValueError) as exc:
            _log().info("the index was not updated after the add: %s", exc)
            return None
        try:
            changed = self._apply_diff(meta, lexical, head, undone=undo_dead_update(self.root, meta, lexical))
        except (Rebuild, IndexDamaged, OSError, ValueError, KeyError) as exc:
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
        """The index caught up with HEAD, or rebuilt; under the index lock."""
        from ov.index.update import Rebuild, undo_dead_update
        from ov.wording import counted

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
                undone = undo_dead_update(self.root, meta, lexical)
                changed = self._apply_diff(meta, lexical, head, undone=undone)
            except (Rebuild, IndexDamaged, OSError, ValueError, KeyError) as exc:
                if isinstance(exc, OSError) and disk_full(exc, self.root) is not None:
                    raise  # a rebuild needs more room than the update that found none
                reason = str(exc) if isinstance(exc, Rebuild) else f"the update failed ({exc})"
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

    def _apply_diff(self, meta: Meta, lexical: LexicalIndex, head: str | None, *, undone: tuple[set[str], list[int]] | None) -> int:
        """:func:`ov.index.update.apply_diff` on this index, its vectors made by the configured embedder."""
        from ov.index.update import apply_diff

        return apply_diff(self.store.git, self.root, meta, lexical, head, embedder=self._embedder(), held=self._held, progress=self._progress, undone=undone)

    def _rebuild_vectors(self, meta: Meta, lexical: LexicalIndex) -> bool:
        """Every vector of the index ``meta`` describes made anew (its full text as it is); False
        when the embedder failed (:func:`ov.index.vector_writes.make_vectors`)."""
        from ov.index.lexical import Filters
        from ov.index.rebuild import records_at
        from ov.index.vector_writes import make_vectors

        # The records are read again from the indexed commit: the full-text index stores what a
        # hit shows, not everything a vector is made from (a message's previous one).
        labels = {h.record.id: h.label for h in lexical.fetch(Filters(), max(lexical.count(), 1))}
        records = [r for r in records_at(self.store.git, meta.commit, self._progress) if r.id in labels]
        return make_vectors(self.root, self._embedder(), meta, records, [labels[r.id] for r in records], self._progress)

    def _rebuild(self, head: str | None, reason: str, *, vectors: bool = True, limit: int | None = None) -> None:
        """Build the full text from HEAD in a new directory and swap it in (:func:`ov.index.rebuild.build`),
        then make its vectors (``vectors=False``: left to the next search or the hooks' job,
        :data:`VECTORS_TO_MAKE`). ``limit``: :class:`~ov.index.rebuild.TooLarge` before anything
        is written when HEAD has more records.

        The full text is swapped in first, its vectors marked stale, because it is what the
        prompt hook searches: built with the vectors in one go, a store of 2,000 code files had
        no index at all for 106 s, of which the full text took 28."""
        from ov.index.rebuild import build
        from ov.index.vector_writes import make_vectors

        _log().info("rebuilding the index: %s", reason)
        language = self.store.config.retrieval.language
        records = build(
            self.root, self.store.git, head, language, embedder=identity(self.resolution), progress=self._progress, left_out=self.left_out, limit=limit
        )
        self._cache = None
        meta = Meta.read(self.root / META_NAME)
        if vectors and meta is not None and meta.vectors_stale and self._embedder() is not None:
            self.vectors_pending = True
            make_vectors(self.root, self._embedder(), meta, records, list(range(len(records))), self._progress)
            self.vectors_pending = False

    # --- helpers ---------------------------------------------------------------

    def incompatibility(self, meta: Meta) -> str | None:
        """Why ``meta`` cannot be caught up incrementally, or None."""
        problem = self._text_incompatibility(meta)
        if problem is not None:
            return problem
        wanted = identity(self.resolution)
        have = meta.embedder
        if (wanted is None) != (have is None):
            return "the embedder changed" if wanted is not None else "the embedder was removed"
        if wanted is not None and have is not None:
            if (wanted["provider"], wanted["model"]) != (have.get("provider"), have.get("model")):
                return f"vectors from {have.get('provider')}:{have.get('model')}, configured {wanted['provider']}:{wanted['model']}"
            if wanted.get("dimension") not in (None, have.get("dimension")):
                return "the embedder's dimension changed"
            if have.get("recipe", 1) != wanted["recipe"]:
                return f"vectors made by ov's recipe {have.get('recipe', 1)}, this ov makes recipe {wanted['recipe']}"
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
            if debugging():
                raise
            why = f"internal error: {type(exc).__name__}: {exc}; OV_DEBUG=1 shows where, please report it"
        return f"the search index was not built ({why}); the next search builds it"
    return None



def _log():
    """This module's logger, imported when first needed (logging with what it pulls in, ~7 ms): only
    a rebuild or a damaged index logs, and every find and hook opens the index."""
    import logging

    return logging.getLogger(__name__)



