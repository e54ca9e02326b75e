"""``litellm``: any embeddings API litellm speaks (OpenAI, Ollama, a local server, ...).

:class:`LiteLLMEmbedder` learns the model's dimension from the first answer, checks
the shape of every answer, and, when given an account's state directory, appends
each call to its usage log (see :mod:`ov.llm.usage`). Failed calls are translated
once, by :func:`ov.llm.client.translate_failure`, into an :class:`EmbeddingError`.

The model strings are litellm's, but OpenAI-compatible endpoints (``openai/...``, vLLM,
LM Studio, llamafile, any ``api_base``) and Ollama (``ollama/...``) are called by ov's own
client (:mod:`ov.llm.native`): litellm takes seconds to import, and every `ov find` with an
API embedder would wait for it. Other providers go through litellm, imported inside the
method that calls it (tests/test_architecture.py checks this).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ov.config import EmbeddingConfig
from ov.index.embedders.base import LITELLM_PROVIDER, PROBE_TEXT, BaseEmbedder, EmbeddingError, Fingerprint

if TYPE_CHECKING:
    import numpy

    from ov.llm.routes import Route
    from ov.llm.wire import Line

_USAGE_PURPOSE = "embedding"


class LiteLLMEmbedder(BaseEmbedder):
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
            self._embed_batch([PROBE_TEXT])
        assert self._dimension is not None
        return Fingerprint(LITELLM_PROVIDER, self.model, self._dimension)

    def probe(self, text: str, seconds: float) -> numpy.ndarray:
        """Given up on after ``seconds``, the request is hung up (ov's own client): it does not run
        on to embedding.timeout holding the embedder (an MCP server's, which its finds share).
        litellm's request cannot be: it runs on, and the error says so."""
        from ov.llm.wire import Line
        from ov.waiting import waited

        line = Line()

        def embedded() -> numpy.ndarray:
            with self._lock:  # as embed(): one call at a time
                return self._embed_batch([text], line)

        try:
            return waited(embedded, seconds=seconds, abandon=line.hang_up)
        except TimeoutError:
            native = self._route(self._key()) is not None
            left = "ov hung up" if native else f"ov stopped waiting (litellm's request runs on, up to embedding.timeout: {self._config.timeout:g} s)"
            raise TimeoutError(f"no answer in {seconds:g} s; {left}") from None

    def _key(self) -> str | None:
        from ov.llm.client import api_key

        config = self._config
        return api_key(config.api_key_env, config.model or "", "embedding", EmbeddingError) if config.api_key_env else None

    def _route(self, key: str | None) -> Route | None:
        """ov's own client's route to the model, or None: litellm's to call."""
        # Deferred, like numpy: every find resolves its embedder, and few of them call an API.
        from ov.llm.client import native_route

        config = self._config
        return native_route(config.model or "", config.api_base, key, EmbeddingError, section="embedding", embeddings=True)

    def _embed_batch(self, texts: list[str], line: Line | None = None) -> numpy.ndarray:
        import numpy as np

        key = self._key()
        route = self._route(key)
        if route is not None:
            response = self._embed_natively(route, texts, line)
        else:
            response = self._embed_with_litellm(texts, key)
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

    def _embed_natively(self, route: Route, texts: list[str], line: Line | None = None) -> dict[str, Any]:
        from ov.llm import native
        from ov.llm.wire import CallFailed

        try:
            return native.embed(route, texts, timeout=self._config.timeout, line=line)
        except CallFailed as failure:
            raise _translate(failure, self._config) from None

    def _embed_with_litellm(self, texts: list[str], key: str | None) -> Any:
        from ov.llm.client import import_litellm, litellm_kwargs

        config = self._config
        kwargs = litellm_kwargs(config.model, config.timeout, config.api_base, key, input=texts)
        litellm = import_litellm()  # seconds to import the first time: only providers ov does not speak pay it
        try:
            return litellm.embedding(**kwargs)
        except Exception as exc:  # litellm raises many unrelated types; all mean "the call failed"
            raise _translate(exc, config) from None

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
        from ov.llm import usage

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
    from ov.llm.client import translate_failure

    return translate_failure(
        exc,
        EmbeddingError,
        where=_where(config),
        model=config.model or "",
        timeout=config.timeout,
        call="the embeddings call",
        section="embedding",
        example="openai/text-embedding-3-small or ollama/nomic-embed-text",
        key_env=config.api_key_env,
    )
