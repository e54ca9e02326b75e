"""The embedder interface: text in, unit vectors out, and what every embedder shares.

An :class:`Embedder` turns texts into L2-normalised vectors of one fixed dimension.
:class:`BaseEmbedder` does the batching, blank texts, shape checks and normalisation
once for every provider. Failures while embedding are :class:`EmbeddingError`.

Every embedder carries a :class:`Fingerprint` (provider, model identity,
dimension). Vector indices store it, so vectors made by one model are never
compared with vectors made by another: a different fingerprint means "rebuild".

numpy takes tens of milliseconds to import and most commands never embed anything,
so it is imported inside the method that needs it (tests/test_architecture.py
checks this).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ov.errors import EXIT_RUNTIME, OvError

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy

# Text an embedder embeds once to learn a model's dimension: the litellm embedder
# for an API model, the sentence-transformers one for a model that does not say.
PROBE_TEXT = "dimension probe"
# The provider of :mod:`ov.index.embedders.api`, named here so that resolving any other (every
# prompt hook resolves the configured one) does not import that module.
LITELLM_PROVIDER = "litellm"
# What a model that reads a text in one piece is given of it: enough for a record's opening, where
# its subject is stated; a static model's mean of token vectors gains nothing from more.
EMBED_CHARS = 2000


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

    static: bool  # one vector per token, no context (see BaseEmbedder)

    @property
    def fingerprint(self) -> Fingerprint: ...

    def embed(self, texts: list[str]) -> numpy.ndarray:
        """An array of shape ``(len(texts), dimension)``; a row is all zeros when its text has nothing to embed."""
        ...

    def embed_query(self, text: str) -> Sequence[float]:
        """One text's vector, equal to ``embed([text])[0]`` up to float rounding."""
        ...

    def passages(self, text: str) -> list[str]:
        """The pieces of a record's text that are embedded, one vector each."""
        ...


class BaseEmbedder:
    """Batching, blank texts, shape checks and normalisation, done once for every provider.

    A subclass sets ``provider`` and ``model``, reports ``known_dimension`` and
    implements :meth:`_embed_batch` (a few non-blank texts -> a 2-D array).

    One embedder may serve several threads (the MCP server keeps one per process, see
    :class:`~ov.index.embedders.registry.WarmEmbedders`): :meth:`embed` runs one call at a
    time, because model stacks do not promise more (a fast tokenizer shared by two threads
    fails with "Already borrowed"). A subclass that loads a model loads it under the same lock.
    """

    provider: str
    model: str
    # A static model (one vector per token, a text the mean of its tokens') reads no context:
    # a message embedded with the one before it only blurs. Transformer models and APIs read it.
    static = False

    def __init__(self, batch_size: int) -> None:
        self._batch_size = max(1, batch_size)
        self._lock = threading.RLock()

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory; an embedder with nothing to load is always loaded."""
        return True

    def load(self) -> None:
        """Bring the model into memory now rather than on the first :meth:`embed` (a local
        model imports its stack and reads its weights; others have nothing to load)."""

    @property
    def known_dimension(self) -> int | None:
        """The dimension when it is known without loading a model or calling an API."""
        raise NotImplementedError

    @property
    def fingerprint(self) -> Fingerprint:
        raise NotImplementedError

    def embed(self, texts: list[str]) -> numpy.ndarray:
        with self._lock:
            return self._embed(list(texts))

    def probe(self, text: str, seconds: float) -> numpy.ndarray:
        """:meth:`embed` of ``[text]`` within ``seconds`` (TimeoutError after: ``ov doctor``'s
        probe). A call given up on is left to end alone; an API embedder hangs its request up."""
        from ov.waiting import waited

        return waited(lambda: self.embed([text]), seconds=seconds)

    def embed_query(self, text: str) -> Sequence[float]:
        """One query's unit vector: what :meth:`embed` gives for ``[text]``. An embedder that can
        do it without its batch machinery (the built-in model) answers a cold search faster."""
        return self.embed([text])[0]

    def passages(self, text: str) -> list[str]:
        """The pieces of a record's text that get a vector each (at least one, at most
        :data:`~ov.index.vectors.MAX_PARTS`): here its first :data:`EMBED_CHARS` characters. A
        model that reads only a window of tokens cuts the text into windows instead, so the end
        of a long record is seen too."""
        return [text[:EMBED_CHARS]]

    def _embed(self, texts: list[str]) -> numpy.ndarray:
        import numpy as np  # Deferred: only commands that embed need numpy.

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
