"""Embedders: text in, unit vectors out, behind one small interface.

``ov find`` ranks by meaning with whatever embedder the user configured
(``embedding.provider``, see docs/retrieval.md):

* ``hash``: a deterministic hashing embedder built into ov (numpy only). Lexical,
  not semantic, but always available and identical in every process.
* ``model2vec``: a static-embedding model read from a local directory.
* ``sentence-transformers``: a local transformer model (the optional extra).
* ``litellm``: any embeddings API litellm speaks (OpenAI, Ollama, a local server, ...).
* ``auto`` (the default): model2vec when a model is on disk, otherwise nothing.
* ``none``: nothing; retrieval stays lexical.

:func:`resolve` turns the config into a :class:`Resolution`: an embedder, or
``None`` and one sentence saying why and how to get one. It never raises and never
downloads anything: a missing model is a normal state, not an error. Failures
while embedding are :class:`EmbeddingError`.

Every embedder carries a :class:`Fingerprint` (provider, model identity,
dimension). Vector indices store it, so vectors made by one model are never
compared with vectors made by another: a different fingerprint means "rebuild".

numpy, model2vec, sentence-transformers and litellm take from tens of milliseconds
to seconds to import and most commands never embed anything, so each is imported
inside the method that needs it (tests/test_architecture.py checks this).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
import math
import os
import re
import struct
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ov.config import EmbeddingConfig
from ov.errors import EXIT_RUNTIME, OvError
from ov.home import Home
from ov.llm import usage
from ov.llm.client import api_key, import_litellm, translate_failure

if TYPE_CHECKING:
    import numpy

HASH_PROVIDER = "hash"
MODEL2VEC_PROVIDER = "model2vec"
SENTENCE_TRANSFORMERS_PROVIDER = "sentence-transformers"
LITELLM_PROVIDER = "litellm"

HASH_MODEL = "hash-v1"
"""Version of the hashing scheme below. Change it whenever a vector could change."""

# A directory is a model2vec model when it holds these three files (the layout
# ``StaticModel.save_pretrained`` writes and the Hugging Face repositories use).
MODEL2VEC_FILES = ("config.json", "model.safetensors", "tokenizer.json")
SUGGESTED_MODEL = "minishlab/potion-base-8M"
_ST_HINT = "pip install 'ovctx[sentence-transformers]'"

# Text the litellm embedder sends once to learn an API model's dimension.
_PROBE_TEXT = "dimension probe"
_USAGE_PURPOSE = "embedding"
# Set before model2vec / sentence-transformers (and so huggingface_hub) are imported:
# huggingface_hub reads them at import time, and ov must never reach a model hub.
_HUB_OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1"}


class EmbeddingError(OvError):
    """An embedder failed at run time: a model that does not load, an API call that failed."""

    code = "embedding_failed"
    exit_code = EXIT_RUNTIME


@dataclass(frozen=True)
class Fingerprint:
    """What made a vector. Two vectors are comparable only when their fingerprints are equal."""

    provider: str  # "hash" | "model2vec" | "sentence-transformers" | "litellm"
    model: str  # "hash-v1"; a local model's absolute path + "#" + content digest; a litellm model string
    dimension: int

    def as_dict(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "dimension": self.dimension}

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> Fingerprint | None:
        """The fingerprint stored in index metadata, or ``None`` when it is absent or unreadable."""
        if not isinstance(d, dict):
            return None
        provider, model, dimension = d.get("provider"), d.get("model"), d.get("dimension")
        if not isinstance(provider, str) or not isinstance(model, str):
            return None
        if not isinstance(dimension, int) or isinstance(dimension, bool) or dimension <= 0:
            return None
        return cls(provider, model, dimension)


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of one fixed dimension."""

    @property
    def fingerprint(self) -> Fingerprint: ...

    def embed(self, texts: list[str]) -> numpy.ndarray:
        """An array of shape ``(len(texts), dimension)``; a row is all zeros when its text has nothing to embed."""
        ...


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
        if isinstance(self.embedder, _BaseEmbedder):
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


# --- the shared part of every embedder -----------------------------------------


class _BaseEmbedder:
    """Batching, blank texts, shape checks and normalisation, done once for every provider.

    A subclass sets ``provider`` and ``model``, reports ``known_dimension`` and
    implements :meth:`_embed_batch` (a few non-blank texts -> a 2-D array).
    """

    provider: str
    model: str

    def __init__(self, batch_size: int) -> None:
        self._batch_size = max(1, batch_size)

    @property
    def known_dimension(self) -> int | None:
        """The dimension when it is known without loading a model or calling an API."""
        raise NotImplementedError

    @property
    def fingerprint(self) -> Fingerprint:
        raise NotImplementedError

    def embed(self, texts: list[str]) -> numpy.ndarray:
        import numpy as np  # Deferred: only commands that embed need numpy.

        texts = list(texts)
        # Whitespace has nothing to embed; APIs reject empty inputs, so blank texts get a zero row
        # from every provider alike instead of whatever each model makes of "".
        live = [i for i, text in enumerate(texts) if text.strip()]
        if not live:
            return np.zeros((len(texts), self.fingerprint.dimension), dtype=np.float32)
        parts = []
        for start in range(0, len(live), self._batch_size):
            batch = [texts[i] for i in live[start : start + self._batch_size]]
            vectors = np.asarray(self._embed_batch(batch), dtype=np.float32)
            if vectors.ndim != 2 or vectors.shape[0] != len(batch):
                raise EmbeddingError(f"{self._name()} returned {vectors.shape[0] if vectors.ndim else 0} vectors for {len(batch)} texts")
            parts.append(vectors)
        matrix = np.concatenate(parts)
        dimension = self.fingerprint.dimension  # known by now: the batches above told the API embedder
        if matrix.shape[1] != dimension:
            raise EmbeddingError(
                f"{self._name()} returned vectors of {matrix.shape[1]} dimensions, expected {dimension}",
                hint="the model changed under ov; rebuild the index",
            )
        if not np.isfinite(matrix).all():
            raise EmbeddingError(f"{self._name()} returned vectors with NaN or infinite values")
        out = np.zeros((len(texts), dimension), dtype=np.float32)
        out[live] = matrix
        return _normalise_rows(out)

    def _embed_batch(self, texts: list[str]) -> Any:
        raise NotImplementedError

    def _name(self) -> str:
        return f"the {self.provider} embedder {self.model}"


def _normalise_rows(matrix: numpy.ndarray) -> numpy.ndarray:
    """Scale each row to unit length in place; an all-zero row stays zero."""
    import numpy as np

    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix


# --- hash: built in, deterministic, lexical ------------------------------------

# Scripts written without spaces between words: each character is a token, and so is
# each pair of neighbours (a Chinese word is most often two characters). Han
# ideographs (with extensions and compatibility forms) and Japanese kana.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
# A run of CJK characters, or a word of letters and digits in any other script.
# Underscores split words, so snake_case identifiers match their parts.
_TOKENS = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")
# Character trigrams let "embedder" meet "embedders" and "embedding"; they are many
# per word and each says less than a whole word, so they weigh less.
_TRIGRAM_WEIGHT = 0.3


class HashEmbedder(_BaseEmbedder):
    """Feature hashing of words and character trigrams into ``dimension`` signed buckets.

    The steps (any change needs a new :data:`HASH_MODEL`): NFKC-normalise and casefold;
    tokens are words of letters/digits, with CJK characters as single tokens plus
    neighbouring pairs; each word also yields its trigrams with ``<``/``>`` boundary
    markers at weight 0.3; a feature's weight is multiplied by ``1 + log(tf)``; it is
    hashed with BLAKE2b (stable across processes, unlike ``hash()``) to a bucket and a
    sign; the vector is L2-normalised.
    """

    provider = HASH_PROVIDER
    model = HASH_MODEL

    def __init__(self, dimension: int, batch_size: int) -> None:
        super().__init__(batch_size)
        self._dimension = dimension

    @property
    def known_dimension(self) -> int:
        return self._dimension

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(HASH_PROVIDER, HASH_MODEL, self._dimension)

    def _embed_batch(self, texts: list[str]) -> numpy.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _hash_features(text).items():
                bucket, sign = _hash_slot(feature, self._dimension)
                out[row, bucket] += sign * weight
        return out


def _hash_features(text: str) -> dict[str, float]:
    """Feature -> weight (with sublinear tf) of one text."""
    words: Counter[str] = Counter()
    grams: Counter[str] = Counter()
    for cjk, word in _TOKENS.findall(unicodedata.normalize("NFKC", text).casefold()):
        if cjk:
            words.update(cjk)
            words.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            words[word] += 1
            padded = f"<{word}>"
            grams.update(padded[i : i + 3] for i in range(len(padded) - 2))
    # Prefixes keep the word "abc" and the trigram "abc" in different features.
    features = {"w:" + word: 1.0 + math.log(tf) for word, tf in words.items()}
    features.update({"g:" + gram: _TRIGRAM_WEIGHT * (1.0 + math.log(tf)) for gram, tf in grams.items()})
    return features


@functools.lru_cache(maxsize=1 << 16)
def _hash_slot(feature: str, dimension: int) -> tuple[int, float]:
    """(bucket, sign) of a feature: the same in every process and on every platform."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8, person=b"ov-" + HASH_MODEL.encode()).digest()
    value = int.from_bytes(digest, "little")
    # The sign makes colliding features cancel on average instead of piling up.
    return (value >> 1) % dimension, (1.0 if value & 1 else -1.0)


# --- model2vec: static embeddings from a local directory -----------------------


class Model2VecEmbedder(_BaseEmbedder):
    """A model2vec ``StaticModel``, loaded from its directory the first time it embeds."""

    provider = MODEL2VEC_PROVIDER

    def __init__(self, path: Path, dimension: int, batch_size: int) -> None:
        super().__init__(batch_size)
        self._path = path
        self._dimension = dimension
        self.model = _local_model_identity(path, read=("config.json",), stat=("model.safetensors", "tokenizer.json"))
        self._static_model: Any = None

    @property
    def known_dimension(self) -> int:
        return self._dimension

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(MODEL2VEC_PROVIDER, self.model, self._dimension)

    def _embed_batch(self, texts: list[str]) -> Any:
        model = self._load()
        return model.encode(texts, batch_size=len(texts), show_progress_bar=False)

    def _load(self) -> Any:
        if self._static_model is None:
            os.environ.update(_HUB_OFFLINE_ENV)
            try:
                from model2vec import StaticModel  # Deferred: imports numpy, tokenizers, huggingface_hub.

                # resolve() checked that the path is an existing directory, so model2vec
                # reads it and never treats it as a hub repository name.
                model = StaticModel.from_pretrained(str(self._path))
            except Exception as exc:  # model2vec, safetensors and tokenizers raise unrelated types
                raise EmbeddingError(
                    f"cannot load the model2vec model at {self._path}: {_one_line(exc)}",
                    hint="replace the directory with a model saved by model2vec (config.json, model.safetensors, tokenizer.json)",
                ) from None
            if model.dim != self._dimension:
                raise EmbeddingError(f"the model2vec model at {self._path} changed while ov was using it; run the command again")
            self._static_model = model
        return self._static_model


def _model2vec_dimension(path: Path) -> int:
    """The vector size of a model2vec model, read from the safetensors header without loading it.

    The header is 8 bytes of little-endian length and then JSON naming each tensor's
    shape; ``embeddings`` is ``[vocabulary, dimension]``. Raises ValueError or OSError.
    """
    with (path / "model.safetensors").open("rb") as handle:
        (size,) = struct.unpack("<Q", handle.read(8))
        if not 0 < size <= 100_000_000:
            raise ValueError("model.safetensors has no valid header")
        header = json.loads(handle.read(size))
    shape = header.get("embeddings", {}).get("shape") if isinstance(header, dict) else None
    if not (isinstance(shape, list) and len(shape) == 2 and isinstance(shape[1], int) and shape[1] > 0):
        raise ValueError("model.safetensors holds no 'embeddings' matrix")
    return shape[1]


def _inspect_model2vec(path: Path) -> tuple[int, None] | tuple[None, str]:
    """``(dimension, None)`` for a usable model2vec model directory, else ``(None, why not)``."""
    try:
        if not path.is_dir():
            return None, f"{path} is not a directory"
        missing = [name for name in MODEL2VEC_FILES if not (path / name).is_file()]
    except OSError as exc:
        return None, f"{path} cannot be read ({exc.strerror or exc})"
    if missing:
        return None, f"{path} is not a model2vec model (missing {', '.join(missing)})"
    try:
        return _model2vec_dimension(path), None
    except (OSError, ValueError, struct.error) as exc:
        return None, f"{path} is not a model2vec model ({_one_line(exc)})"


def _model2vec_resolution(path: Path, dimension: int, config: EmbeddingConfig, origin: str) -> Resolution:
    if importlib.util.find_spec("model2vec") is None:
        return Resolution(None, "the model2vec package is not installed; reinstall ov (pip install --force-reinstall ovctx)")
    embedder = Model2VecEmbedder(path, dimension, config.batch_size)
    return Resolution(embedder, f"model2vec model at {path} ({dimension} dimensions, from {origin})")


# --- sentence-transformers: a local transformer model (optional extra) ---------


class SentenceTransformerEmbedder(_BaseEmbedder):
    """A sentence-transformers model on the CPU, loaded on first use (importing torch takes seconds)."""

    provider = SENTENCE_TRANSFORMERS_PROVIDER

    def __init__(self, path: Path, batch_size: int) -> None:
        super().__init__(batch_size)
        self._path = path
        self.model = _local_model_identity(
            path,
            read=("config.json", "modules.json", "config_sentence_transformers.json", "sentence_bert_config.json"),
            stat=("model.safetensors", "pytorch_model.bin", "tokenizer.json"),
        )
        self._st_model: Any = None
        self._dimension: int | None = None

    @property
    def known_dimension(self) -> int | None:
        return self._dimension

    @property
    def fingerprint(self) -> Fingerprint:
        """Loads the model the first time: only the model knows its dimension."""
        self._load()
        assert self._dimension is not None
        return Fingerprint(SENTENCE_TRANSFORMERS_PROVIDER, self.model, self._dimension)

    def _embed_batch(self, texts: list[str]) -> Any:
        model = self._load()
        try:
            return model.encode(texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        except Exception as exc:  # torch and transformers raise unrelated types
            raise EmbeddingError(f"the sentence-transformers model at {self._path} failed to embed: {_one_line(exc)}") from None

    def _load(self) -> Any:
        if self._st_model is None:
            os.environ.update(_HUB_OFFLINE_ENV)
            try:
                from sentence_transformers import SentenceTransformer  # Deferred: imports torch (seconds).

                model = SentenceTransformer(str(self._path), device="cpu", local_files_only=True)
                # Renamed in sentence-transformers 5; older releases only have the long name.
                size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
                dimension = size()
                if not dimension:  # some models only know it once they have embedded something
                    dimension = len(model.encode([_PROBE_TEXT], convert_to_numpy=True)[0])
            except ImportError as exc:
                raise EmbeddingError(f"sentence-transformers cannot be imported: {_one_line(exc)}", hint=_ST_HINT) from None
            except Exception as exc:  # torch, transformers and safetensors raise unrelated types
                raise EmbeddingError(
                    f"cannot load the sentence-transformers model at {self._path}: {_one_line(exc)}",
                    hint="embedding.model must be a directory saved by SentenceTransformer.save()",
                ) from None
            self._st_model, self._dimension = model, int(dimension)
        return self._st_model


# --- litellm: an embeddings API ----------------------------------------------------


class LiteLLMEmbedder(_BaseEmbedder):
    """Any embeddings endpoint litellm can call. The dimension is learnt from the first answer."""

    provider = LITELLM_PROVIDER

    def __init__(self, config: EmbeddingConfig, usage_dir: Path | None = None) -> None:
        super().__init__(config.batch_size)
        assert config.model
        self.model = config.model
        self._config = config
        self._usage_dir = usage_dir
        self._dimension: int | None = None

    @property
    def known_dimension(self) -> int | None:
        return self._dimension

    @property
    def fingerprint(self) -> Fingerprint:
        """Calls the API once (a probe text) when no answer has told the dimension yet."""
        if self._dimension is None:
            self._embed_batch([_PROBE_TEXT])
        assert self._dimension is not None
        return Fingerprint(LITELLM_PROVIDER, self.model, self._dimension)

    def _embed_batch(self, texts: list[str]) -> numpy.ndarray:
        import numpy as np

        config = self._config
        kwargs: dict[str, Any] = {
            "model": config.model,
            "input": texts,
            "timeout": config.timeout,
            # Retries would multiply the configured timeout; a failed call fails the command.
            "num_retries": 0,
            "max_retries": 0,
        }
        if config.api_base:
            kwargs["api_base"] = config.api_base
        if config.api_key_env:
            kwargs["api_key"] = api_key(config.api_key_env, config.model or "", "embedding", EmbeddingError)

        litellm = import_litellm()  # seconds to import the first time: only API embedders pay it
        try:
            response = litellm.embedding(**kwargs)
        except Exception as exc:  # litellm raises many unrelated types; all mean "the call failed"
            raise _translate(exc, config) from None
        vectors = self._parse(response, len(texts))
        self._record_usage(response)
        try:
            matrix = np.asarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise EmbeddingError(f"{self._where()} returned embeddings that are not lists of numbers") from None
        if matrix.ndim != 2:
            raise EmbeddingError(f"{self._where()} returned embeddings that are not lists of numbers")
        if self._dimension is None:
            self._dimension = int(matrix.shape[1])
        elif matrix.shape[1] != self._dimension:
            raise EmbeddingError(
                f"{self._where()} returned vectors of {matrix.shape[1]} dimensions, expected {self._dimension}",
                hint="the model behind embedding.model changed; rebuild the index",
            )
        return matrix

    def _parse(self, response: Any, expected: int) -> list[Any]:
        """The vectors of an embeddings answer, in input order (by each item's ``index`` when present)."""
        data = _field(response, "data")
        if not isinstance(data, list):
            raise EmbeddingError(f"{self._where()} returned no embeddings", hint="check that embedding.model is an embeddings model")
        if len(data) != expected:
            raise EmbeddingError(f"{self._where()} returned {len(data)} embeddings for {expected} texts")
        indexed = []
        for position, item in enumerate(data):
            index = _field(item, "index")
            indexed.append((index if isinstance(index, int) else position, _field(item, "embedding")))
        indexed.sort(key=lambda pair: pair[0])
        if [index for index, _ in indexed] != list(range(expected)):
            raise EmbeddingError(f"{self._where()} returned embeddings with inconsistent indices")
        vectors = [vector for _, vector in indexed]
        if not all(isinstance(vector, list) and vector for vector in vectors):
            # base64 strings (encoding_format) or nothing at all: not what was asked for
            raise EmbeddingError(f"{self._where()} returned embeddings that are not lists of numbers")
        lengths = sorted({len(vector) for vector in vectors})
        if len(lengths) > 1:
            raise EmbeddingError(f"{self._where()} returned embeddings of different lengths ({', '.join(map(str, lengths))})")
        return vectors

    def _record_usage(self, response: Any) -> None:
        if self._usage_dir is None:
            return
        tokens = _field(_field(response, "usage"), "prompt_tokens")
        tokens = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0 else 0
        usage.record(self._usage_dir, _USAGE_PURPOSE, self.model, tokens, 0)

    def _where(self) -> str:
        return _where(self._config)

    def _name(self) -> str:
        return self._where()


def _field(obj: Any, name: str) -> Any:
    """``obj[name]`` or ``obj.name``: litellm answers with objects, some servers' items stay dicts."""
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def _where(config: EmbeddingConfig) -> str:
    return f"the embedding model {config.model}" + (f" at {config.api_base}" if config.api_base else "")


def _translate(exc: Exception, config: EmbeddingConfig) -> EmbeddingError:
    return translate_failure(
        exc,
        EmbeddingError,
        where=_where(config),
        model=config.model or "",
        timeout=config.timeout,
        call="the embeddings call",
        section="embedding",
        example="openai/text-embedding-3-small or ollama/nomic-embed-text",
    )


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
        dimension, problem = _inspect_model2vec(path)
        if dimension is not None:
            return _model2vec_resolution(path, dimension, config, "embedding.model")
        rejected = f"embedding.model: {problem}; "
    default = default_model_dir(home)
    dimension, _ = _inspect_model2vec(default)
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
    dimension, problem = _inspect_model2vec(path)
    if dimension is None:
        return Resolution(None, f"embedding.model: {problem} (ov loads local models only and never downloads them)")
    return _model2vec_resolution(path, dimension, config, "embedding.model")


def _resolve_sentence_transformers(config: EmbeddingConfig, home: Home, usage_dir: Path | None) -> Resolution:
    if importlib.util.find_spec("sentence_transformers") is None:
        return Resolution(None, f"the sentence-transformers package is not installed; install the extra: {_ST_HINT}")
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


def _local_model_identity(path: Path, *, read: tuple[str, ...], stat: tuple[str, ...]) -> str:
    """``path#digest``: the fingerprint's model, so that a model replaced in place is noticed.

    The digest (12 hex of SHA-256) covers the content of the small ``read`` files and the
    size and modification time of the large ``stat`` files: hashing hundreds of megabytes
    of weights on every command would cost more than it saves. Touching a weights file
    therefore counts as a new model (the index is rebuilt, which is safe).
    """
    digest = hashlib.sha256()
    for name in read:
        try:
            digest.update(name.encode() + b"\0" + (path / name).read_bytes() + b"\0")
        except OSError:
            continue  # not every layout has every file
    for name in stat:
        try:
            info = (path / name).stat()
        except OSError:
            continue
        digest.update(f"{name}\0{info.st_size}\0{info.st_mtime_ns}\0".encode())
    return f"{path}#{digest.hexdigest()[:12]}"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text[:300] + "...") if len(text) > 300 else (text or type(exc).__name__)
