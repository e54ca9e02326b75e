"""Embedders of models read from a local directory; neither ever reaches a model hub.

* ``model2vec``: a static-embedding model read from a local directory.
* ``sentence-transformers``: a local transformer model (the optional extra).

The registry checks a model on disk (:func:`inspect_model2vec` reads a model2vec
model's dimension without loading it); the model itself is loaded the first time it
embeds. A fingerprint's model is the directory's absolute path and a digest of its
files, so a model replaced in place is noticed.

model2vec and sentence-transformers take from tens of milliseconds to seconds to
import and most commands never embed anything, so each is imported inside the
method that needs it, with the hub switched off first.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import time
from pathlib import Path
from typing import Any

from ov.index.embedders.base import PROBE_TEXT, BaseEmbedder, EmbeddingError, Fingerprint

MODEL2VEC_PROVIDER = "model2vec"
SENTENCE_TRANSFORMERS_PROVIDER = "sentence-transformers"

# A directory is a model2vec model when it holds these three files (the layout
# ``StaticModel.save_pretrained`` writes and the Hugging Face repositories use).
MODEL2VEC_FILES = ("config.json", "model.safetensors", "tokenizer.json")
ST_HINT = "pip install 'ovctx[sentence-transformers]'"
# Word pieces per passage of a long text. all-MiniLM-L6-v2 was trained on 128 and cuts at 256; on
# SciFact windows of 128 beat 64, 256 and the first 256 alone (docs/benchmarks.md, "Passages and replies").
PASSAGE_TOKENS = 128
# A passage cut mid-word moves back to the word's start, by at most this many word pieces.
_WORD_BACKOFF = 16

# Set before model2vec / sentence-transformers (and so huggingface_hub) are imported:
# huggingface_hub reads them at import time, and ov must never reach a model hub. No
# progress bars either: transformers draws one on stderr while it loads the weights.
_HUB_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
}


# --- model2vec: static embeddings from a local directory -----------------------


class Model2VecEmbedder(BaseEmbedder):
    """A model2vec ``StaticModel``, loaded from its directory the first time it embeds."""

    provider = MODEL2VEC_PROVIDER
    static = True

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
    def loaded(self) -> bool:
        return self._static_model is not None

    @property
    def fingerprint(self) -> Fingerprint:
        return Fingerprint(MODEL2VEC_PROVIDER, self.model, self._dimension)

    def _embed_batch(self, texts: list[str]) -> Any:
        model = self._load()
        return model.encode(texts, batch_size=len(texts), show_progress_bar=False)

    def load(self) -> None:
        self._load()

    def _load(self) -> Any:
        with self._lock:
            if self._static_model is None:
                self._static_model = self._read_model()
            return self._static_model

    def _read_model(self) -> Any:
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
        return model


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


def inspect_model2vec(path: Path) -> tuple[int, None] | tuple[None, str]:
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


# --- sentence-transformers: a local transformer model (optional extra) ---------


class SentenceTransformerEmbedder(BaseEmbedder):
    """A sentence-transformers model on the CPU, loaded on first use (importing torch takes seconds)."""

    provider = SENTENCE_TRANSFORMERS_PROVIDER

    def __init__(self, path: Path, batch_size: int, *, name: str | None = None) -> None:
        """``name``: a packaged model's own name (the MiniLM tier), which identifies it in place of
        its path, so another virtual environment or a reinstall of the same package keeps the vectors."""
        super().__init__(batch_size)
        self._path = path
        self.model = _local_model_identity(
            path,
            read=("config.json", "modules.json", "config_sentence_transformers.json", "sentence_bert_config.json"),
            stat=("model.safetensors", "pytorch_model.bin", "tokenizer.json"),
            name=name,
            scheme=f"passages of {PASSAGE_TOKENS} word pieces, a message also with the one before",
        )
        self._st_model: Any = None
        self._dimension: int | None = None

    @property
    def known_dimension(self) -> int | None:
        return self._dimension

    @property
    def loaded(self) -> bool:
        return self._st_model is not None

    @property
    def fingerprint(self) -> Fingerprint:
        """Loads the model the first time: only the model knows its dimension."""
        self._load()
        assert self._dimension is not None
        return Fingerprint(SENTENCE_TRANSFORMERS_PROVIDER, self.model, self._dimension)

    def passages(self, text: str) -> list[str]:
        """``text`` in windows of :data:`PASSAGE_TOKENS` word pieces, cut between words: the
        model reads no further than its maximum sequence, and a long record's vector would
        otherwise say nothing of its end. A record is at most ``MAX_PARTS`` windows."""
        from ov.index.vectors import MAX_PARTS

        with self._lock:  # the tokenizer is the model's, and not safe to share between threads
            return self._passages(text, MAX_PARTS)

    def _passages(self, text: str, max_parts: int) -> list[str]:
        model = self._load()
        window = max(16, min(PASSAGE_TOKENS, int(getattr(model, "max_seq_length", 0) or PASSAGE_TOKENS) - 2))
        # A word piece is a few characters: tokenising more than the windows can hold is wasted work.
        text = text[: max_parts * window * 12]
        try:
            offsets = model.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True, verbose=False)["offset_mapping"]
        except Exception as exc:  # tokenizers raise their own types
            raise EmbeddingError(f"the sentence-transformers model at {self._path} failed to tokenise: {_one_line(exc)}") from None
        if len(offsets) <= window:
            return [text]
        out: list[str] = []
        start = 0
        while start < len(offsets) and len(out) < max_parts:
            end = min(start + window, len(offsets))
            # A piece that follows the previous one without a gap continues its word: cut before the word.
            cut = end
            while cut < len(offsets) and cut > end - _WORD_BACKOFF and cut > start + 1 and offsets[cut][0] == offsets[cut - 1][1]:
                cut -= 1
            if cut < len(offsets) and offsets[cut][0] == offsets[cut - 1][1]:
                cut = end  # one very long word: cut inside it
            out.append(text[offsets[start][0] : offsets[cut - 1][1]])
            start = cut
        return out

    def _embed_batch(self, texts: list[str]) -> Any:
        model = self._load()
        try:
            return model.encode(texts, batch_size=len(texts), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
        except Exception as exc:  # torch and transformers raise unrelated types
            raise EmbeddingError(f"the sentence-transformers model at {self._path} failed to embed: {_one_line(exc)}") from None

    def load(self) -> None:
        self._load()

    def _load(self) -> Any:
        with self._lock:  # two threads asking first (the MCP server) load the model once
            if self._st_model is None:
                self._st_model = self._read_model()
            return self._st_model

    def _read_model(self) -> Any:
        os.environ.update(_HUB_OFFLINE_ENV)
        started = time.monotonic()
        try:
            from sentence_transformers import SentenceTransformer  # Deferred: imports torch (seconds).

            model = SentenceTransformer(str(self._path), device="cpu", local_files_only=True)
            # Renamed in sentence-transformers 5; older releases only have the long name.
            size = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            dimension = size()
            if not dimension:  # some models only know it once they have embedded something
                dimension = len(model.encode([PROBE_TEXT], convert_to_numpy=True)[0])
        except ImportError as exc:
            raise EmbeddingError(f"sentence-transformers cannot be imported: {_one_line(exc)}", hint=ST_HINT) from None
        except Exception as exc:  # torch, transformers and safetensors raise unrelated types
            raise EmbeddingError(
                f"cannot load the sentence-transformers model at {self._path}: {_one_line(exc)}",
                hint="embedding.model must be a directory saved by SentenceTransformer.save()",
            ) from None
        self._dimension = int(dimension)
        import logging  # Deferred: the registry imports this module for every find and hook.

        logging.getLogger(__name__).info("loaded the sentence-transformers model at %s in %.1f s", self._path, time.monotonic() - started)
        return model


# --- helpers -------------------------------------------------------------------


def _local_model_identity(path: Path, *, read: tuple[str, ...], stat: tuple[str, ...], name: str | None = None, scheme: str = "") -> str:
    """``path#digest``: the fingerprint's model, so that a model replaced in place is noticed.

    The digest (12 hex of SHA-256) covers the content of the small ``read`` files and the
    size and modification time of the large ``stat`` files: hashing hundreds of megabytes
    of weights on every command would cost more than it saves. Touching a weights file
    therefore counts as a new model (the index is rebuilt, which is safe).

    With ``name`` (a model a package ships, whose files change only with its version) it is
    ``name#digest`` and the digest leaves out the modification times, so the same package
    installed anywhere is the same model.

    ``scheme``: how texts are cut for the model; vectors cut another way are not comparable.
    """
    digest = hashlib.sha256(scheme.encode())
    for read_name in read:
        try:
            digest.update(read_name.encode() + b"\0" + (path / read_name).read_bytes() + b"\0")
        except OSError:
            continue  # not every layout has every file
    for stat_name in stat:
        try:
            info = (path / stat_name).stat()
        except OSError:
            continue
        digest.update(f"{stat_name}\0{info.st_size}\0{'' if name else info.st_mtime_ns}\0".encode())
    return f"{name or path}#{digest.hexdigest()[:12]}"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return (text[:300] + "...") if len(text) > 300 else (text or type(exc).__name__)
