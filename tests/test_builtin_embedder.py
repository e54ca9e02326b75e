"""The built-in embedding model: the default tier of vector search, shipped inside ov."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shutil
import struct

import numpy as np
import pytest

from ov.config import EmbeddingConfig
from ov.home import Home
from ov.index.embedders import builtin
from ov.index.embedders.builtin import MODEL_DIR, MODEL_FILES, BuiltinEmbedder
from ov.index.embedders.registry import resolve


def test_the_default_config_uses_the_built_in_model_and_names_its_tier_and_licence(tmp_path):
    resolution = resolve(EmbeddingConfig(), Home(tmp_path))
    info = resolution.as_dict()
    assert info["provider"] == "builtin" and info["tier"] == "default" and info["available"]
    assert info["model"].startswith("minilm-static#") and info["dimension"] == 256
    assert "Apache-2.0" in info["licence"] and "all-MiniLM-L6-v2" in info["licence"]


def test_the_model_files_are_the_ones_its_provenance_names():
    provenance = (MODEL_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "Apache-2.0" in provenance and "Apache License" in (MODEL_DIR / "LICENSE").read_text(encoding="utf-8")
    for name in MODEL_FILES:
        digest = hashlib.sha256((MODEL_DIR / name).read_bytes()).hexdigest()
        assert re.search(rf"`{re.escape(name)}` \| `{digest}`", provenance), f"{name} differs from PROVENANCE.md"


def test_vectors_are_model2vecs_own_for_the_same_model():
    # ov reads the files itself (model2vec's loader costs a cold `ov find` hundreds of ms); the
    # vectors must be the ones model2vec makes of them.
    from model2vec import StaticModel

    texts = ["Rotate the API keys every 90 days.", "naïve café — 東京 tower", "x", "a " * 3000]
    ours = BuiltinEmbedder(16).embed(texts)
    theirs = StaticModel.from_pretrained(str(MODEL_DIR)).encode(texts[:3])
    theirs = theirs / np.linalg.norm(theirs, axis=1, keepdims=True)
    assert np.allclose((ours[:3] * theirs).sum(axis=1), 1.0, atol=1e-3)
    assert ours.shape == (4, 256) and np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_meaning_is_found_without_a_shared_word(ov):
    for name, text in {
        "car.md": "The automobile would not start this morning; the battery was flat.",
        "fruit.md": "Bananas are rich in potassium and easy to digest.",
        "tax.md": "Quarterly tax returns are filed with the revenue office.",
    }.items():
        assert ov("write", f"viking://resources/{name}", "--content", text).exit_code == 0
    result = ov("find", "my vehicle broke down", "--json")
    assert result.exit_code == 0, result.stderr
    found = result.json["result"]
    assert found["retrieval"]["mode"] == "hybrid" and found["retrieval"]["embedding"]["tier"] == "default"
    assert found["resources"][0]["uri"] == "viking://resources/car.md"


def test_one_copy_per_process_and_the_same_fingerprint_wherever_it_is_installed(tmp_path):
    first, second = BuiltinEmbedder(8), BuiltinEmbedder(8)
    first.embed(["warm"])
    assert second.loaded is False and second.embed(["warm"]) is not None
    assert second._matrix is first._matrix  # read from disk once
    copy = tmp_path / "elsewhere"
    shutil.copytree(MODEL_DIR, copy)
    assert BuiltinEmbedder(8, copy).fingerprint == first.fingerprint


def _previous_build(directory):
    """A copy of the model as an earlier build of it: other vectors of the same shape, its config naming them.

    ov's identity of the built-in model is a digest of config.json and the weights' size, not of 15 MB
    of weights on every command; two builds of the same shape differ in config.json only because
    scripts/build_builtin_model.py writes the weights' SHA-256 into it (`weights_sha256`)."""
    shutil.copytree(MODEL_DIR, directory)
    weights = bytearray((directory / "model.safetensors").read_bytes())
    start = 8 + struct.unpack("<Q", weights[:8])[0]
    rows = np.frombuffer(bytes(weights[start:]), dtype=np.float16).reshape(-1, 256)
    weights[start:] = np.roll(rows, 1, axis=0).tobytes()  # every token gets its neighbour's vector
    (directory / "model.safetensors").write_bytes(bytes(weights))
    config = json.loads((directory / "config.json").read_text(encoding="utf-8"))
    config["weights_sha256"] = hashlib.sha256(bytes(weights)).hexdigest()
    (directory / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return directory


def test_a_store_indexed_by_an_earlier_build_of_the_model_is_re_embedded_after_an_upgrade(ov, ov_home, tmp_path, monkeypatch):
    from ov.index.embedders import registry

    old = _previous_build(tmp_path / "old-model")
    assert BuiltinEmbedder(8, old).model != BuiltinEmbedder(8).model
    monkeypatch.setattr(registry, "BuiltinEmbedder", functools.partial(BuiltinEmbedder, directory=old))
    assert ov("write", "viking://resources/car.md", "--content", "The automobile would not start; the battery was flat.").exit_code == 0
    assert ov("find", "vehicle", "--json").exit_code == 0
    meta_path = ov_home / "state" / "default" / "index" / "meta.json"
    assert json.loads(meta_path.read_text())["embedder"]["model"] == BuiltinEmbedder(8, old).model

    monkeypatch.setattr(registry, "BuiltinEmbedder", BuiltinEmbedder)  # ov upgraded: the new build ships
    result = ov("find", "my vehicle broke down", "--json")
    assert result.exit_code == 0, result.stderr
    found = result.json["result"]
    assert found["retrieval"]["mode"] == "hybrid" and [a for a in found["index"]["actions"] if a.startswith("rebuilt")]
    meta = json.loads(meta_path.read_text())
    assert meta["embedder"]["model"] == BuiltinEmbedder(8).model and meta["vectors"] == meta["records"] == 1
    assert found["resources"][0]["uri"] == "viking://resources/car.md"


def test_an_install_without_the_model_says_so_and_stays_lexical(tmp_path, monkeypatch):
    monkeypatch.setattr(builtin, "MODEL_DIR", tmp_path / "missing")
    import ov.index.embedders.registry as registry

    monkeypatch.setattr(registry, "builtin_available", lambda: False)
    auto = resolve(EmbeddingConfig(), Home(tmp_path))
    assert auto.embedder is None and auto.tier == "none" and "reinstall ov" in auto.reason
    asked = resolve(EmbeddingConfig(provider="builtin"), Home(tmp_path))
    assert asked.embedder is None and "reinstall" in asked.reason


def test_a_damaged_model_is_a_clear_error(tmp_path):
    from ov.index.embedders.base import EmbeddingError

    shutil.copytree(MODEL_DIR, tmp_path / "model")
    (tmp_path / "model" / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(EmbeddingError, match="cannot load the built-in embedding model"):
        BuiltinEmbedder(8, tmp_path / "model").embed(["hello"])


def _parity_texts() -> list[str]:
    """Prose and code from the repository's own docs, and seeded strings across many scripts,
    with accents, combining marks, CJK, emoji, controls and punctuation mixed in."""
    import random
    from pathlib import Path

    docs = Path(__file__).resolve().parent.parent / "docs"
    texts = [paragraph for path in sorted(docs.glob("*.md")) for paragraph in path.read_text(encoding="utf-8").split("\n\n")][:1500]
    texts += ["naïve café — 東京 tower", "ΣΊΣΥΦΟΣ ΣΑΣ", "İstanbul'da", "e\u0301te\u0301", "C++/C# & Rust's `?`", "x" * 150, "##ing", "\t\r\n\x00\ufffd", "a [PAD] b [UNK]c", "[pad]x[PAD][PAD]"]
    pools = [(32, 126), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x3FF), (0x400, 0x4FF), (0x2000, 0x206F), (0x3040, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3), (0x1F300, 0x1F64F), (0, 31)]
    rng = random.Random(7)
    for _ in range(3000):
        texts.append("".join(chr(rng.randint(*rng.choice(pools))) for _ in range(rng.randint(1, 40))))
    return texts


def test_the_plain_python_tokeniser_cuts_text_as_tokenizers_does():
    import json

    from tokenizers import Tokenizer

    from ov.index.embedders.wordpiece import WordPiece

    reference = Tokenizer.from_file(str(MODEL_DIR / "tokenizer.json"))
    reference.no_truncation()
    unknown = reference.token_to_id("[UNK]")
    ours = WordPiece.from_vocab_file(MODEL_DIR / "vocab.txt")
    vocab = json.loads((MODEL_DIR / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    assert {token: ours.id_of(token) for token in vocab} == vocab
    differ = [text for text in _parity_texts() if [i for i in reference.encode(text, add_special_tokens=False).ids if i != unknown] != [i for i in ours.ids(text) if i != unknown]]
    assert differ == []


def test_vocabulary_lookups_go_through_the_index_built_beside_it_or_a_dict_when_it_does_not_match(tmp_path):
    """Every token gets its line number, the last line when a token repeats (as tokenizers'
    WordPiece.read_file does), through the index and through the dict that stands in for an index
    of another vocabulary, a cut one, or none."""
    from ov.index.embedders.wordpiece import VocabIndex, WordPiece, read_vocabulary

    lines = (MODEL_DIR / "vocab.txt").read_text(encoding="utf-8").split("\n")
    text = "\n".join(lines[:2000] + [lines[1000], "", "zzlastline"])  # a repeated token, a blank line, no final newline
    expected = {token: i for i, token in enumerate(text.split("\n")) if token}
    vocab_path = tmp_path / "vocab.txt"
    vocab_path.write_text(text, encoding="utf-8")
    index = VocabIndex.build(vocab_path.read_bytes())
    other = VocabIndex.build(("\n".join(lines[:2000]) + "\n").encode())
    damaged = bytearray(index)
    damaged[-4000:] = bytes(4000)  # part of the table emptied: its tokens would all be misses
    cases = {
        "index": index,
        "none": None,
        "another vocabulary's": other,
        "cut": index[:-4],
        "another format": b"ovvocab0" + index[8:],
        "damaged inside": bytes(damaged),
    }
    for name, stored in cases.items():
        if stored is None:
            vocab_path.with_suffix(".index").unlink(missing_ok=True)
        else:
            vocab_path.with_suffix(".index").write_bytes(stored)
        vocab = read_vocabulary(vocab_path)
        assert isinstance(vocab, VocabIndex) == (name == "index"), name
        assert {token: vocab.get(token) for token in expected} == expected, name
        assert vocab.get(lines[1000]) == 2000 and vocab["zzlastline"] == 2002, name
        assert vocab.get("zzqxjv") is None and vocab.get("") is None and vocab.get("a\nb") is None, name
        assert "[UNK]" in vocab and "##zzqxjv" not in vocab, name
        with pytest.raises(KeyError):
            vocab["zzqxjv"]
        assert WordPiece(vocab).ids("zzlastline [UNK]") == [2002, expected["[UNK]"]], name


def test_a_vocabulary_with_windows_newlines_gives_the_same_ids_with_or_without_its_index(tmp_path):
    """A checkout that turned vocab.txt's newlines into CRLF no longer matches the shipped index;
    the lines still give each token its id, as reading the file as text did, and so does an index
    built from those bytes."""
    from ov.index.embedders.wordpiece import VocabIndex, read_vocabulary

    shipped = (MODEL_DIR / "vocab.txt").read_bytes()
    expected = {token: i for i, token in enumerate(shipped.decode("utf-8").split("\n")) if token}
    (tmp_path / "vocab.txt").write_bytes(shipped.replace(b"\n", b"\r\n"))
    (tmp_path / "vocab.index").write_bytes((MODEL_DIR / "vocab.index").read_bytes())
    for built in (False, True):
        if built:
            (tmp_path / "vocab.index").write_bytes(VocabIndex.build((tmp_path / "vocab.txt").read_bytes()))
        vocab = read_vocabulary(tmp_path / "vocab.txt")
        assert isinstance(vocab, VocabIndex) == built
        assert {token: vocab.get(token) for token in expected} == expected


def test_the_shipped_vocabulary_index_is_the_one_its_vocabulary_builds():
    from ov.index.embedders.wordpiece import VocabIndex, read_vocabulary

    assert (MODEL_DIR / "vocab.index").read_bytes() == VocabIndex.build((MODEL_DIR / "vocab.txt").read_bytes())
    assert isinstance(read_vocabulary(MODEL_DIR / "vocab.txt"), VocabIndex)


def test_a_query_embedded_without_numpy_is_the_batch_vector():
    embedder = BuiltinEmbedder(16)
    texts = ["vitamin d deficiency", "How are genes regulated in cancer cells?", "naïve café — 東京", "zzqxjv", "   ", "a " * 5000]
    batch = embedder.embed(texts)
    for text, row in zip(texts, batch):
        single = embedder.embed_query(text)
        assert isinstance(single, list) and len(single) == 256
        assert np.allclose(single, row, atol=1e-6), text


def test_a_damaged_model_is_a_clear_error_for_a_query_too(tmp_path):
    from ov.index.embedders.base import EmbeddingError

    shutil.copytree(MODEL_DIR, tmp_path / "model")
    (tmp_path / "model" / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}")
    with pytest.raises(EmbeddingError, match="cannot load the built-in embedding model"):
        BuiltinEmbedder(8, tmp_path / "model").embed_query("hello")
    for damaged in (b"", b"\x01\x02", b"\xff" * 8 + b"{}", b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!", b'\x0e\x00\x00\x00\x00\x00\x00\x00{"embeddings":1}'):
        (tmp_path / "model" / "model.safetensors").write_bytes(damaged)
        with pytest.raises(EmbeddingError, match="cannot load the built-in embedding model"):
            BuiltinEmbedder(8, tmp_path / "model").embed_query("hello")
    (tmp_path / "model" / "vocab.txt").unlink()
    with pytest.raises(EmbeddingError, match="cannot load the built-in embedding model"):
        BuiltinEmbedder(8, tmp_path / "model").embed_query("hello")
