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

A single query needs even less: :meth:`BuiltinEmbedder.embed_query` cuts it with the
plain-Python tokeniser of :mod:`ov.index.embedders.wordpiece` and reads only its tokens'
rows from the memory-mapped weights, so a cold ``ov find`` imports neither numpy nor
``tokenizers`` (together ~130 ms, against a full-text search of a few milliseconds).
"""

from __future__ import annotations

import hashlib
import json
import math
import mmap
import struct
import threading
from functools import cached_property
from pathlib import Path
from typing import Any

from ov.index.embedders.base import BaseEmbedder, EmbeddingError, Fingerprint

BUILTIN_PROVIDER = "builtin"
BUILTIN_NAME = "minilm-static"
MODEL_DIR = Path(__file__).resolve().parent / "models" / BUILTIN_NAME
BUILTIN_LICENCE = "Apache-2.0 (distilled from sentence-transformers/all-MiniLM-L6-v2)"
MODEL_FILES = ("config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "vocab.index")
# A text's vector is the mean of its tokens' vectors; past this many tokens the mean barely moves,
# and a bound keeps one huge record from costing more than thousands of ordinary ones.
MAX_TOKENS = 4096
# One copy of the model per process: every Indices makes its own embedder, and a long-lived process
# (the MCP server, a test run) should read the files once, not on every search.
_LOADED: dict[Path, tuple[Any, Any]] = {}
_LOAD_LOCK = threading.Lock()
_QUERY_TABLES: dict[Path, _QueryTable] = {}
# A fast tokenizer used by two threads at once fails ("Already borrowed"); the shared copy is used
# by one embedder at a time.
_ENCODE_LOCK = threading.Lock()


def builtin_available() -> bool:
    """Whether the model's files are present (a trimmed or broken install may lack them)."""
    return all((MODEL_DIR / name).is_file() for name in MODEL_FILES)


class BuiltinEmbedder(BaseEmbedder):
    """The built-in static model, loaded the first time it embeds (tens of milliseconds)."""

    provider = BUILTIN_PROVIDER
    static = True

    def __init__(self, batch_size: int, directory: Path = MODEL_DIR) -> None:
        super().__init__(batch_size)
        self._dir = directory
        self._tokenizer: Any = None
        self._matrix: Any = None
        self._unknown: int | None = None
        self._table: _QueryTable | None = None

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
        """Whether this embedder has read the model, for batches or for single queries."""
        return self._matrix is not None or self._table is not None

    @property
    def known_dimension(self) -> int:
        return int(self._config["hidden_dim"])

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(BUILTIN_PROVIDER, self.model, self.known_dimension)

    def embed_query(self, text: str) -> list[float]:
        """One text's unit vector, as :meth:`embed` gives it, without numpy or ``tokenizers``."""
        table = self._query_table()
        unknown = table.wordpiece.id_of(self._config.get("unk_token") or "[UNK]")
        ids = [i for i in table.wordpiece.ids(text)[:MAX_TOKENS] if i != unknown]
        dimension = table.dimension
        total = [0.0] * dimension
        for token in ids:
            total = list(map(float.__add__, total, table.row(token)))
        norm = math.sqrt(sum(x * x for x in total))
        return [x / norm for x in total] if norm > 0 else total

    def _query_table(self) -> _QueryTable:
        if self._table is None:
            with _LOAD_LOCK:
                table = _QUERY_TABLES.get(self._dir)
                if table is None:
                    table = _QUERY_TABLES[self._dir] = self._read_query_table()
            self._table = table
        return self._table

    def _read_query_table(self) -> _QueryTable:
        from ov.index.embedders.wordpiece import WordPiece

        try:
            wordpiece = WordPiece.from_vocab_file(self._dir / "vocab.txt")
            table = _QueryTable.open(self._dir / "model.safetensors", wordpiece)
        except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:  # a short, empty or garbled file
            raise EmbeddingError(f"cannot load the built-in embedding model at {self._dir}: {' '.join(str(exc).split())[:300]}", hint=_REINSTALL) from None
        if table.dimension != self.known_dimension:
            raise EmbeddingError(f"the built-in embedding model at {self._dir} does not match its config.json", hint=_REINSTALL)
        return table

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
            # The matrix stays float16 as stored; only the gathered rows are widened for the sums.
            rows = matrix[flat].astype(np.float32)
            out[present] = np.add.reduceat(rows, starts, axis=0) / lengths[present, None]
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
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self._dir / "tokenizer.json"))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            # Kept as stored (float16): widening all 30,000 rows to float32 cost a cold query ~100 ms.
            matrix = load_file(str(self._dir / "model.safetensors"))["embeddings"]
        except Exception as exc:  # tokenizers and safetensors raise their own types
            raise EmbeddingError(f"cannot load the built-in embedding model at {self._dir}: {' '.join(str(exc).split())[:300]}", hint=_REINSTALL) from None
        if matrix.ndim != 2 or matrix.shape[1] != self.known_dimension:
            raise EmbeddingError(f"the built-in embedding model at {self._dir} does not match its config.json", hint=_REINSTALL)
        return tokenizer, matrix


class _QueryTable:
    """The model's token rows read one at a time from the memory-mapped safetensors file (only
    the pages a query touches are read), with the tokeniser that picks them."""

    # safetensors: an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
    # shape and byte range, then the tensors' bytes.
    _FORMATS = {"F16": "e", "F32": "f"}

    def __init__(self, wordpiece, view: mmap.mmap, offset: int, rows: int, dimension: int, code: str) -> None:
        self.wordpiece = wordpiece
        self.dimension = dimension
        self._view = view
        self._offset = offset
        self._rows = rows
        self._row = struct.Struct(f"<{dimension}{code}")

    @classmethod
    def open(cls, path: Path, wordpiece) -> _QueryTable:
        with open(path, "rb") as handle:
            view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        (length,) = struct.unpack_from("<Q", view)
        header = json.loads(bytes(view[8 : 8 + length]))
        tensor = header["embeddings"]
        code = cls._FORMATS.get(tensor["dtype"])
        rows, dimension = tensor["shape"]
        start, end = tensor["data_offsets"]
        if code is None or end - start != rows * dimension * struct.calcsize(code) or 8 + length + end > len(view):
            raise ValueError("its weights are not a float16 or float32 matrix of the size its header gives")
        return cls(wordpiece, view, 8 + length + start, rows, dimension, code)

    def row(self, token: int) -> tuple[float, ...]:
        if not 0 <= token < self._rows:
            return (0.0,) * self.dimension
        return self._row.unpack_from(self._view, self._offset + token * self._row.size)


_REINSTALL = "reinstall ov (pip install --force-reinstall ovctx), or turn vectors off: ov reindex --embedder none"
