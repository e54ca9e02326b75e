"""``builtin``: the static embedding model that ships inside ov's own wheel.

The default tier of vector search: it works from the first command, offline, with
nothing to download and no model stack to install. The model is a model2vec-style
static model (one vector per token, a text is the mean of its tokens' vectors)
distilled from sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) by
``scripts/build_builtin_model.py``; its files, licence and provenance are in
:data:`MODEL_DIR` (docs/retrieval.md says why this model and not another).

It is read with ``tokenizers`` and ``safetensors`` directly rather than through
model2vec's ``StaticModel``: importing model2vec pulls in huggingface_hub and costs
several hundred milliseconds, which a cold ``ov find`` cannot afford; embedding with a
static model is a table lookup and a mean, which needs nothing more.
"""

from __future__ import annotations

import hashlib
import json
import threading
from functools import cached_property
from pathlib import Path
from typing import Any

from ov.index.embedders.base import BaseEmbedder, EmbeddingError, Fingerprint

BUILTIN_PROVIDER = "builtin"
BUILTIN_NAME = "minilm-static"
MODEL_DIR = Path(__file__).resolve().parent / "models" / BUILTIN_NAME
BUILTIN_LICENCE = "Apache-2.0 (distilled from sentence-transformers/all-MiniLM-L6-v2)"
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json")
# A text's vector is the mean of its tokens' vectors; past this many tokens the mean barely moves,
# and a bound keeps one huge record from costing more than thousands of ordinary ones.
MAX_TOKENS = 4096
# One copy of the model per process: every Indices makes its own embedder, and a long-lived process
# (the MCP server, a test run) should read the files once, not on every search.
_LOADED: dict[Path, tuple[Any, Any]] = {}
_LOAD_LOCK = threading.Lock()
# A fast tokenizer used by two threads at once fails ("Already borrowed"); the shared copy is used
# by one embedder at a time.
_ENCODE_LOCK = threading.Lock()


def builtin_available() -> bool:
    """Whether the model's files are present (a trimmed or broken install may lack them)."""
    return all((MODEL_DIR / name).is_file() for name in MODEL_FILES)


class BuiltinEmbedder(BaseEmbedder):
    """The built-in static model, loaded the first time it embeds (tens of milliseconds)."""

    provider = BUILTIN_PROVIDER

    def __init__(self, batch_size: int, directory: Path = MODEL_DIR) -> None:
        super().__init__(batch_size)
        self._dir = directory
        self._tokenizer: Any = None
        self._matrix: Any = None
        self._unknown: int | None = None

    @cached_property
    def _config(self) -> dict[str, Any]:
        try:
            config = json.loads((self._dir / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbeddingError(f"the built-in embedding model at {self._dir} cannot be read ({exc})", hint=_REINSTALL) from None
        if not isinstance(config, dict) or not isinstance(config.get("hidden_dim"), int):
            raise EmbeddingError(f"the built-in embedding model at {self._dir} has no valid config.json", hint=_REINSTALL)
        return config

    @cached_property
    def model(self) -> str:  # type: ignore[override]
        """``minilm-static#digest``: the same in every install of the same model, new for a new one."""
        digest = hashlib.sha256((self._dir / "config.json").read_bytes())
        try:
            digest.update(str((self._dir / "model.safetensors").stat().st_size).encode())
        except OSError:
            pass
        return f"{BUILTIN_NAME}#{digest.hexdigest()[:12]}"

    @property
    def loaded(self) -> bool:
        return self._matrix is not None

    @property
    def known_dimension(self) -> int:
        return int(self._config["hidden_dim"])

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(BUILTIN_PROVIDER, self.model, self.known_dimension)

    def _embed_batch(self, texts: list[str]) -> Any:
        import numpy as np  # Deferred: only commands that embed need numpy.

        tokenizer, matrix = self._load()
        with _ENCODE_LOCK:
            encodings = tokenizer.encode_batch(texts, add_special_tokens=False)
        ids = [[i for i in encoding.ids[:MAX_TOKENS] if i != self._unknown] for encoding in encodings]
        lengths = np.fromiter((len(row) for row in ids), dtype=np.int64, count=len(ids))
        out = np.zeros((len(texts), matrix.shape[1]), dtype=np.float32)
        present = lengths > 0
        if present.any():
            # One gather and one segmented sum for the whole batch: a text is the mean of its rows.
            flat = np.fromiter((i for row in ids for i in row), dtype=np.int64, count=int(lengths.sum()))
            starts = np.concatenate(([0], np.cumsum(lengths[present])[:-1]))
            out[present] = np.add.reduceat(matrix[flat], starts, axis=0) / lengths[present, None]
        return out

    def _load(self) -> tuple[Any, Any]:
        if self._matrix is None:
            with _LOAD_LOCK:
                loaded = _LOADED.get(self._dir)
                if loaded is None:
                    loaded = _LOADED[self._dir] = self._read()
            self._tokenizer, self._matrix = loaded
            self._unknown = self._tokenizer.token_to_id(self._config.get("unk_token") or "[UNK]")
        return self._tokenizer, self._matrix

    def _read(self) -> tuple[Any, Any]:
        try:
            import numpy as np
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self._dir / "tokenizer.json"))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            matrix = load_file(str(self._dir / "model.safetensors"))["embeddings"].astype(np.float32)
        except Exception as exc:  # tokenizers and safetensors raise their own types
            raise EmbeddingError(f"cannot load the built-in embedding model at {self._dir}: {' '.join(str(exc).split())[:300]}", hint=_REINSTALL) from None
        if matrix.ndim != 2 or matrix.shape[1] != self.known_dimension:
            raise EmbeddingError(f"the built-in embedding model at {self._dir} does not match its config.json", hint=_REINSTALL)
        return tokenizer, matrix


_REINSTALL = "reinstall ov (pip install --force-reinstall ovctx), or turn vectors off: ov reindex --embedder none"
