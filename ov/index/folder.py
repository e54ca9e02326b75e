"""An index folder: the names of its files, and ``meta.json``, what it holds.

The indices of an account live in ``state/{account}/index/`` (outside the work
tree, never committed)::

    meta.json          the commit they reflect, schema version, language,
                       embedder fingerprint, vector file, next label, counts
    text/              tantivy
    update.json        what an update is applying (ov.index.update)
    vectors-{gen}.hnsw hnswlib (only with an embedder)
    vectors-{gen}.exact the same vectors quantised by component, while there are few
                       enough to search exhaustively (see ov.index.vectors)
    vectors-{gen}.groups above that, the same grouped around centroids, for a cold
                       search that compares the nearest groups (ov.index.vector_groups)
    vectors-{gen}.delta what changed since that generation, while it is little
                       (ov.index.vector_delta)
    vectors.failed.json when and why the embedder last failed to make its vectors

Every search reads ``meta.json``: this module imports nothing a prompt hook does not need.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ov.files import atomic_write, json_bytes

INDEX_DIR = "index"
META_NAME = "meta.json"
TEXT_DIR = "text"
# When and why the embedder last failed to make the vectors of the index beside it (a rebuild's new
# folder starts without one): Indices.vectors_failure.
VECTORS_FAILED_NAME = "vectors.failed.json"
# How a record becomes vectors (embed_text, embed, an embedder's passages): vectors made another
# way do not compare with new ones, whatever the model. Bump it when any of them changes what a
# vector is made of, and every index rebuilds once. An index that does not record it is recipe 1.
VECTOR_RECIPE = 1
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
        if meta.embedder is not None and not _is_embedder_block(meta.embedder, made=bool(meta.vectors_file) and not meta.vectors_stale):
            return None
        return meta

    def write(self, path: Path) -> None:
        atomic_write(path, json_bytes(self.__dict__))

    def indexed_tree(self, git) -> bytes | None:
        """The tree of the commit the index reflects; None for no commit, or one that is not in
        the repository (a branch reset by hand)."""
        if self.commit is None:
            return None
        try:
            return git.tree_of(self.commit.encode())
        except KeyError:
            return None


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


def _is_embedder_block(block: dict, *, made: bool) -> bool:
    """Whether ``block`` is an embedder as meta.json records it (:func:`identity`, :func:`made_by`):
    provider and model as text, a positive dimension (None while the vectors are still to be made,
    when only a call to the embedder tells it), a recipe number if any (none before recipes were
    recorded). Read as it came, a dimension of "256" or 256.0 passed every comparison and failed
    where the vectors were loaded or checked (`ov fsck`: internal error), a missing one as a KeyError."""
    dimension, recipe = block.get("dimension"), block.get("recipe", VECTOR_RECIPE)
    return (
        isinstance(block.get("provider"), str)
        and isinstance(block.get("model"), str)
        and (_is_count(dimension) and dimension > 0 or dimension is None and not made)
        and _is_count(recipe)
    )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def recall_behind(store) -> bool:
    """Whether the prompt hook would search ``store``'s index without what HEAD holds: hooks
    answer from its home (:meth:`~ov.home.Home.hooks_in_use`: installed, or run within the hour),
    and its index is built and :func:`behind` HEAD. The hook searches the index as it is; a CLI or
    MCP find catches it up itself."""
    home = store.home
    return home.hook_log.exists() and behind(store.state / INDEX_DIR, store.git) and home.hooks_in_use()


def behind(root: Path, git) -> bool:
    """Whether the index folder ``root`` is built and reflects a commit other than the HEAD of
    ``git`` (a GitStore): a catch-up has work. One not built is not (the first search builds it)."""
    meta = Meta.read(root / META_NAME)
    if meta is None:
        return False
    head = git.head()
    return meta.commit != (head.decode() if head else None)


def same_build(a: Meta, b: Meta) -> bool:
    """Whether two reads of ``meta.json`` describe the same state of the index folder."""
    return (a.commit, a.built_at, a.updated_at, a.vectors_file, a.vectors_delta) == (b.commit, b.built_at, b.updated_at, b.vectors_file, b.vectors_delta)


def identity(resolution) -> dict | None:
    """provider/model (and dimension when known without a call) of the configured embedder, as
    ``meta.json`` records the vectors' making (:func:`made_by`)."""
    embedder = resolution.embedder
    if embedder is None:
        return None
    info = resolution.as_dict()
    return {"provider": info.get("provider"), "model": info.get("model"), "dimension": info.get("dimension"), "recipe": VECTOR_RECIPE}


def made_by(embedder) -> dict:
    """What meta.json records of the vectors' making: the embedder's fingerprint and the recipe."""
    return {**embedder.fingerprint.as_dict(), "recipe": VECTOR_RECIPE}
