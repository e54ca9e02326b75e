"""The registry: the ``embedding`` config resolved into an embedder.

``ov find`` ranks by meaning with whatever embedder the user configured
(``embedding.provider``, see docs/retrieval.md):

* ``hash``: a deterministic hashing embedder built into ov (numpy only). Lexical,
  not semantic, but always available and identical in every process (:mod:`.hashing`).
* ``model2vec``: a static-embedding model read from a local directory (:mod:`.local`).
* ``sentence-transformers``: a local transformer model (the optional extra; :mod:`.local`).
* ``litellm``: any embeddings API litellm speaks (OpenAI, Ollama, a local server, ...; :mod:`.api`).
* ``auto`` (the default): model2vec when a model is on disk, otherwise nothing.
* ``none``: nothing; retrieval stays lexical.

:func:`resolve` turns the config into a :class:`Resolution`: an embedder, or
``None`` and one sentence saying why and how to get one. It never raises and never
downloads anything: a missing model is a normal state, not an error. Failures
while embedding are :class:`~ov.index.embedders.base.EmbeddingError`.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ov.config import EmbeddingConfig
from ov.home import Home
from ov.index.embedders.api import LITELLM_PROVIDER, LiteLLMEmbedder
from ov.index.embedders.base import BaseEmbedder, Embedder
from ov.index.embedders.hashing import HASH_MODEL, HASH_PROVIDER, HashEmbedder
from ov.index.embedders.local import (
    MODEL2VEC_PROVIDER,
    SENTENCE_TRANSFORMERS_PROVIDER,
    ST_HINT,
    Model2VecEmbedder,
    SentenceTransformerEmbedder,
    inspect_model2vec,
)

SUGGESTED_MODEL = "minishlab/potion-base-8M"


@dataclass(frozen=True)
class Resolution:
    """The embedder the config asks for, or ``None`` and why."""

    embedder: Embedder | None
    reason: str  # one sentence for people: what is used, or why there is none and how to get one

    @property
    def available(self) -> bool:
        return self.embedder is not None

    def as_dict(self) -> dict[str, Any]:
        """For ``--json`` output. Never loads a model or calls an API to fill in the dimension."""
        provider = model = dimension = None
        if isinstance(self.embedder, BaseEmbedder):
            provider, model, dimension = self.embedder.provider, self.embedder.model, self.embedder.known_dimension
        elif self.embedder is not None:  # an embedder from elsewhere: only the protocol to go by
            fp = self.embedder.fingerprint
            provider, model, dimension = fp.provider, fp.model, fp.dimension
        return {"provider": provider, "model": model, "dimension": dimension, "available": self.available, "reason": self.reason}


def default_model_dir(home: Home) -> Path:
    """Where ``auto`` looks for a model2vec model when ``embedding.model`` names none."""
    return home.root / "models" / "model2vec"


def resolve(config: EmbeddingConfig, home: Home, *, usage_dir: Path | None = None) -> Resolution:
    """The embedder ``config`` describes, or ``Resolution(None, reason)``. Never raises, never downloads.

    Local models are checked on disk but loaded only when first used (loading imports
    numpy and the model stack). ``usage_dir`` is an account's state directory: when
    given, every embeddings API call is appended to its usage log (see :mod:`ov.llm.usage`).
    """
    resolver = _RESOLVERS.get(config.provider)
    if resolver is None:
        choices = ", ".join(["auto", "none", *sorted(_RESOLVERS.keys() - {"auto", "none"})])
        return Resolution(None, f"unknown embedding.provider {config.provider!r}; choose one of {choices}")
    return resolver(config, home, usage_dir)


# --- resolution ----------------------------------------------------------------


def _resolve_none(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    return Resolution(None, "disabled by embedding.provider: none")


def _resolve_hash(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    embedder = HashEmbedder(config.dimensions, config.batch_size)
    return Resolution(embedder, f"built-in hashing embedder ({HASH_MODEL}, {config.dimensions} dimensions; matches words, not meanings)")


def _resolve_auto(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    # Only what is already on disk: auto must never download a model behind the user's back.
    rejected = ""
    if config.model:
        path = _local_path(config.model, home)
        dimension, problem = inspect_model2vec(path)
        if dimension is not None:
            return _model2vec_resolution(path, dimension, config, "embedding.model")
        rejected = f"embedding.model: {problem}; "
    default = default_model_dir(home)
    dimension, _ = inspect_model2vec(default)
    if dimension is not None:
        return _model2vec_resolution(_absolute(default), dimension, config, "the default model directory")
    return Resolution(
        None,
        f"{rejected}no embedding model on disk, so vector search is off: put a model2vec model "
        f"(such as {SUGGESTED_MODEL}) in {default}, or set embedding.provider and embedding.model "
        "(ov never downloads models)",
    )


def _resolve_model2vec(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    if not config.model:
        return Resolution(None, f"embedding.provider model2vec needs embedding.model: the directory of a model2vec model such as {SUGGESTED_MODEL}")
    path = _local_path(config.model, home)
    dimension, problem = inspect_model2vec(path)
    if dimension is None:
        return Resolution(None, f"embedding.model: {problem} (ov loads local models only and never downloads them)")
    return _model2vec_resolution(path, dimension, config, "embedding.model")


def _model2vec_resolution(path: Path, dimension: int, config: EmbeddingConfig, origin: str) -> Resolution:
    if importlib.util.find_spec("model2vec") is None:
        return Resolution(None, "the model2vec package is not installed; reinstall ov (pip install --force-reinstall ovctx)")
    embedder = Model2VecEmbedder(path, dimension, config.batch_size)
    return Resolution(embedder, f"model2vec model at {path} ({dimension} dimensions, from {origin})")


def _resolve_sentence_transformers(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    if importlib.util.find_spec("sentence_transformers") is None:
        return Resolution(None, f"the sentence-transformers package is not installed; install the extra: {ST_HINT}")
    if not config.model:
        return Resolution(None, "embedding.provider sentence-transformers needs embedding.model: the directory of a saved model")
    path = _local_path(config.model, home)
    try:
        is_dir = path.is_dir()
    except OSError as exc:
        return Resolution(None, f"embedding.model: {path} cannot be read ({exc.strerror or exc})")
    if not is_dir:
        return Resolution(None, f"embedding.model: {path} is not a directory (ov loads local models only and never downloads them)")
    return Resolution(SentenceTransformerEmbedder(path, config.batch_size), f"sentence-transformers model at {path} (CPU)")


def _resolve_litellm(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    if not config.model:
        return Resolution(None, "embedding.provider litellm needs embedding.model, a litellm model string such as openai/text-embedding-3-small")
    if config.api_key_env and not os.environ.get(config.api_key_env):
        return Resolution(None, f"the environment variable {config.api_key_env} (embedding.api_key_env) is not set")
    where = config.model + (f" at {config.api_base}" if config.api_base else "")
    return Resolution(LiteLLMEmbedder(config, usage_dir), f"embeddings API {where} through litellm")


_RESOLVERS = {
    "none": _resolve_none,
    "auto": _resolve_auto,
    HASH_PROVIDER: _resolve_hash,
    MODEL2VEC_PROVIDER: _resolve_model2vec,
    SENTENCE_TRANSFORMERS_PROVIDER: _resolve_sentence_transformers,
    LITELLM_PROVIDER: _resolve_litellm,
}


# --- helpers -------------------------------------------------------------------


def _local_path(value: str, home: Home) -> Path:
    """A model directory from the config: ``~`` expanded, relative paths taken from ``$OV_HOME``.

    Relative to the home, not the working directory: the same config is read from
    every project and by hooks, whose working directories differ.
    """
    path = Path(value).expanduser()
    return _absolute(path if path.is_absolute() else home.root / path)


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:  # a symlink loop: keep the path as written; the checks then report it
        return path.absolute()
