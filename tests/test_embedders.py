"""Embedders behind one interface: hashing, model2vec, sentence-transformers, litellm.

No mocks: the model2vec tests build and save a real (tiny) model, and the litellm
tests talk to the loopback OpenAI-compatible server of tests/llm_server.py.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ov.config import EmbeddingConfig
from ov.home import Home
from ov.index.embedders.base import BaseEmbedder, EmbeddingError, Fingerprint
from ov.index.embedders.hashing import HASH_MODEL
from ov.index.embedders.registry import Resolution, WarmEmbedders, default_model_dir, resolve
from ov.llm import usage
from tests.llm_server import (
    API_KEY,
    API_KEY_ENV,
    EMBEDDINGS,
    LLMServer,
    Reply,
    hash_vector,
    llm_server,  # noqa: F401  (fixture)
    make_embedding_config,
)


@pytest.fixture
def home(ov_home: Path) -> Home:
    return Home(ov_home)


def unit_norms(matrix: np.ndarray) -> np.ndarray:
    return np.linalg.norm(matrix, axis=1)


# --- Fingerprint and Resolution ---------------------------------------------------


def test_fingerprint_round_trips_and_tolerates_garbage():
    fp = Fingerprint("model2vec", "/models/potion#0123456789ab", 256)
    assert fp.as_dict() == {"provider": "model2vec", "model": "/models/potion#0123456789ab", "dimension": 256}
    assert Fingerprint.from_dict(json.loads(json.dumps(fp.as_dict()))) == fp
    for bad in (None, {}, [], "hash", {"provider": "hash", "model": "hash-v1"}, {"provider": "hash", "model": "hash-v1", "dimension": "8"},
                {"provider": "hash", "model": "hash-v1", "dimension": True}, {"provider": "hash", "model": "hash-v1", "dimension": 0},
                {"provider": 1, "model": "hash-v1", "dimension": 8}):
        assert Fingerprint.from_dict(bad) is None, bad


def test_provider_none_is_disabled(home):
    resolution = resolve(EmbeddingConfig(provider="none"), home)
    assert resolution.embedder is None and not resolution.available
    assert resolution.reason == "disabled by embedding.provider: none"
    assert resolution.as_dict() == {
        "provider": None,
        "model": None,
        "dimension": None,
        "available": False,
        "reason": resolution.reason,
        "tier": "none",
        "licence": None,
    }


def test_unknown_provider_is_a_reason_not_an_exception(home):
    resolution = resolve(EmbeddingConfig(provider="bogus"), home)  # type: ignore[arg-type]  (the config file is validated elsewhere)
    assert resolution.embedder is None and "bogus" in resolution.reason and "model2vec" in resolution.reason


def test_auto_with_nothing_on_disk_uses_the_built_in_model(home):
    resolution = resolve(EmbeddingConfig(), home)
    assert resolution.embedder is not None and resolution.embedder.fingerprint.provider == "builtin"
    assert resolution.tier == "default" and "built-in static model" in resolution.reason
    assert default_model_dir(home) == home.root / "models" / "model2vec"
    assert not default_model_dir(home).exists()  # resolving never creates or downloads anything


# --- hash ---------------------------------------------------------------------------


def hash_embedder(dimensions: int = 256, batch_size: int = 64):
    resolution = resolve(EmbeddingConfig(provider="hash", dimensions=dimensions, batch_size=batch_size), Home(Path("/nonexistent")))
    assert resolution.embedder is not None, resolution.reason
    return resolution.embedder


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)  # rows are unit vectors


def test_hash_fingerprint_and_resolution(home):
    resolution = resolve(EmbeddingConfig(provider="hash", dimensions=64), home)
    assert resolution.embedder.fingerprint == Fingerprint("hash", HASH_MODEL, 64)
    assert resolution.as_dict() == {
        "provider": "hash",
        "model": "hash-v1",
        "dimension": 64,
        "available": True,
        "reason": resolution.reason,
        "tier": "custom",
        "licence": None,
    }
    assert "hash" in resolution.reason


def test_hash_vectors_are_normalised_float32_with_zero_rows_for_empty_text():
    embedder = hash_embedder(128)
    vectors = embedder.embed(["Index the repository", "", "   \n", "!!! ???", "x"])
    assert vectors.shape == (5, 128) and vectors.dtype == np.float32
    assert np.allclose(unit_norms(vectors)[[0, 4]], 1.0, atol=1e-5)
    assert not vectors[1:4].any()
    empty = embedder.embed([])
    assert empty.shape == (0, 128) and empty.dtype == np.float32


def test_hash_similar_texts_are_closer_than_unrelated_ones():
    query, near, far = hash_embedder().embed([
        "rebuild the vector index after the embedder changes",
        "the index of vectors is rebuilt when the embedder changed",
        "grandmother's apple pie recipe with cinnamon",
    ])
    assert cosine(query, near) > 0.3
    assert cosine(query, near) > cosine(query, far) + 0.2
    # Trigrams let inflected forms meet: "embedders" shares most of "embedding".
    stem, inflected, other = hash_embedder().embed(["embedding", "embeddings", "database"])
    assert cosine(stem, inflected) > cosine(stem, other) + 0.3


def test_hash_cjk_text_is_tokenised_per_character_and_bigram():
    query, same_topic, unrelated, mixed = hash_embedder().embed([
        "向量索引重建",  # rebuilding the vector index
        "当嵌入模型改变时，向量索引需要重建。",  # the vector index must be rebuilt when the embedding model changes
        "今天天气很好，我们去公园散步吧。",  # nice weather today, let's walk in the park
        "ベクトル索引を再構築する",  # Japanese, kana and kanji
    ])
    for vector in (query, same_topic, unrelated, mixed):
        assert np.isclose(np.linalg.norm(vector), 1.0, atol=1e-5)
    assert cosine(query, same_topic) > cosine(query, unrelated) + 0.2
    assert cosine(query, mixed) > cosine(query, unrelated)  # shares 索引 and 構築/重建's 建


def test_hash_batching_and_case_do_not_change_vectors():
    texts = [f"Document number {i} about Hashing" for i in range(7)]
    one_by_one = hash_embedder(batch_size=1).embed(texts)
    together = hash_embedder(batch_size=64).embed(texts)
    assert np.array_equal(one_by_one, together)
    upper, lower = hash_embedder().embed(["HASHING EMBEDDER", "hashing embedder"])
    assert np.array_equal(upper, lower)


PROBE = """
import json, sys
from pathlib import Path
from ov.config import EmbeddingConfig
from ov.home import Home
from ov.index.embedders.registry import resolve
texts = json.loads(sys.argv[1])
embedder = resolve(EmbeddingConfig(provider="hash", dimensions=96), Home(Path("/nonexistent"))).embedder
print(embedder.embed(texts).tobytes().hex())
"""


@pytest.mark.parametrize("hash_seed", ["0", "12345"])
def test_hash_vectors_are_identical_in_another_process(hash_seed):
    texts = ["Same text, same vector", "向量索引重建", "naïve café ÜBER straße", ""]
    here = hash_embedder(96).embed(texts).tobytes().hex()
    # A different PYTHONHASHSEED would change anything built on hash(): the vectors must not move.
    env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(texts)], capture_output=True, text=True, env=env, cwd=Path(__file__).resolve().parents[1], check=True)
    assert proc.stdout.strip() == here


# --- model2vec ----------------------------------------------------------------------

VOCAB = ["[UNK]", "[PAD]", "cat", "dog", "sat", "mat", "vector", "index", "search", "database"]
DIM = 16


def save_tiny_model2vec(path: Path, *, dim: int = DIM, seed: int = 0, vocab: list[str] = VOCAB) -> np.ndarray:
    """A real (tiny) model2vec model saved with save_pretrained: a word-level tokenizer and a random table."""
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab={word: i for i, word in enumerate(vocab)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.random.default_rng(seed).standard_normal((len(vocab), dim)).astype(np.float32)
    StaticModel(vectors=vectors, tokenizer=tokenizer).save_pretrained(path)
    return vectors


@pytest.fixture
def tiny_model(tmp_path: Path) -> tuple[Path, np.ndarray]:
    path = tmp_path / "tiny-model2vec"
    return path, save_tiny_model2vec(path)


def expected_vector(table: np.ndarray, words: list[str]) -> np.ndarray:
    mean = table[[VOCAB.index(w) for w in words]].mean(axis=0)
    return mean / np.linalg.norm(mean)


def test_model2vec_embeds_with_the_model_on_disk(home, tiny_model):
    path, table = tiny_model
    resolution = resolve(EmbeddingConfig(provider="model2vec", model=str(path), batch_size=2), home)
    embedder = resolution.embedder
    assert embedder is not None, resolution.reason
    assert str(path) in resolution.reason and "16 dimensions" in resolution.reason

    vectors = embedder.embed(["The cat sat", "dog", "", "nothing known here", "vector index search"])
    assert vectors.shape == (5, DIM) and vectors.dtype == np.float32
    assert np.allclose(vectors[0], expected_vector(table, ["cat", "sat"]), atol=1e-5)
    assert np.allclose(vectors[4], expected_vector(table, ["vector", "index", "search"]), atol=1e-5)
    assert np.allclose(unit_norms(vectors)[[0, 1, 4]], 1.0, atol=1e-5)
    assert not vectors[2].any() and not vectors[3].any()  # nothing the model knows: a zero row
    assert embedder.embed([]).shape == (0, DIM)

    again = resolve(EmbeddingConfig(provider="model2vec", model=str(path)), home).embedder.embed(["The cat sat"])
    assert np.array_equal(again[0], vectors[0])


def test_model2vec_fingerprint_names_the_directory_and_notices_a_replaced_model(home, tiny_model):
    path, _ = tiny_model
    config = EmbeddingConfig(provider="model2vec", model=str(path))
    fp = resolve(config, home).embedder.fingerprint
    assert fp.provider == "model2vec" and fp.dimension == DIM
    location, digest = fp.model.split("#")
    assert location == str(path.resolve()) and len(digest) == 12
    assert resolve(config, home).embedder.fingerprint == fp  # stable while nothing changes

    save_tiny_model2vec(path, seed=1, vocab=[*VOCAB, "extra"])  # replaced in place
    assert resolve(config, home).embedder.fingerprint.model != fp.model


def test_warm_embedders_keep_one_loaded_model_until_the_config_or_the_model_changes(home, tiny_model):
    path, _ = tiny_model
    warm = WarmEmbedders()
    config = EmbeddingConfig(provider="model2vec", model=str(path))
    first = resolve(config, home, warm=warm).embedder
    assert warm.newly_loaded() is None and not first.loaded  # kept, not loaded: nothing has embedded yet
    first.embed(["cat"])
    assert warm.newly_loaded() == f"model2vec:{first.model}" and warm.newly_loaded() is None  # said once
    assert resolve(config, home, warm=warm).embedder is first  # the next call gets the loaded one
    assert resolve(config, home).embedder is not first  # without `warm`, every resolve is its own

    other = resolve(EmbeddingConfig(provider="model2vec", model=str(path), batch_size=8), home, warm=warm).embedder
    assert other is not first and warm.current is other  # another config: another embedder replaces it
    save_tiny_model2vec(path, seed=1, vocab=[*VOCAB, "extra"])  # the model replaced on disk
    assert resolve(config, home, warm=warm).embedder is not first


class _CyclicEmbedder(BaseEmbedder):
    """An embedder whose model refers back to it, as a model stack's objects do (torch modules,
    tokenizers): dropping the last reference to it frees nothing until a full collection."""

    provider = "cyclic"

    def __init__(self, model: str) -> None:
        super().__init__(batch_size=8)
        self.model = model
        self.stack = {"owner": self}


def test_a_replaced_warm_model_is_freed_at_once_though_it_sits_in_a_cycle():
    """(found by an audit: each switch of embedding.provider in a running server left the old
    model in memory, ~50 MiB a switch, until a full collection that seldom ran)"""
    import gc
    import weakref

    warm, config = WarmEmbedders(), EmbeddingConfig(provider="hash")
    collecting = gc.isenabled()
    gc.disable()  # only the collection `keep` runs frees a cycle here
    try:
        first = _CyclicEmbedder("one")
        kept = weakref.ref(first)
        assert warm.keep(Resolution(first, "r"), config, None).embedder is first
        assert warm.newly_loaded() == "cyclic:one"  # reported: held once more, as the server's log asks
        twin = _CyclicEmbedder("one")
        unused = weakref.ref(twin)
        assert warm.keep(Resolution(twin, "r"), config, None).embedder is first  # the same one: kept
        del first, twin
        assert kept() is not None and unused() is not None  # nothing replaced: no collection ran
        assert warm.keep(Resolution(_CyclicEmbedder("two"), "r"), config, None).embedder.model == "two"
        assert kept() is None and unused() is None  # the replaced model is gone, not left for a collection
    finally:
        if collecting:
            gc.enable()


def test_auto_uses_embedding_model_then_the_default_directory(home, tiny_model, tmp_path):
    path, _ = tiny_model
    chosen = resolve(EmbeddingConfig(model=str(path)), home)
    assert chosen.embedder is not None and chosen.embedder.fingerprint.provider == "model2vec"
    assert chosen.as_dict()["provider"] == "model2vec" and chosen.as_dict()["dimension"] == DIM

    save_tiny_model2vec(default_model_dir(home), dim=8)
    found = resolve(EmbeddingConfig(), home)
    assert found.embedder is not None, found.reason
    assert found.embedder.fingerprint.dimension == 8
    assert found.embedder.fingerprint.model.startswith(str(default_model_dir(home).resolve()) + "#")
    assert "default" in found.reason
    assert found.embedder.embed(["cat"]).shape == (1, 8)

    # A configured path that is no model falls back to the default directory.
    fallback = resolve(EmbeddingConfig(model=str(tmp_path / "missing")), home)
    assert fallback.embedder is not None and fallback.embedder.fingerprint.dimension == 8


def test_auto_explains_a_configured_path_that_is_no_model(home, tmp_path):
    # The model asked for is not there: auto says so, and falls back to the built-in model.
    resolution = resolve(EmbeddingConfig(model=str(tmp_path / "missing")), home)
    assert resolution.embedder is not None and resolution.embedder.fingerprint.provider == "builtin"
    assert resolution.reason.startswith(f"embedding.model: {tmp_path / 'missing'} is not a directory; ")


def test_model2vec_relative_model_paths_are_taken_from_ov_home(home):
    save_tiny_model2vec(home.root / "models" / "mine")
    resolution = resolve(EmbeddingConfig(provider="model2vec", model="models/mine"), home)
    assert resolution.embedder is not None, resolution.reason
    assert resolution.embedder.fingerprint.model.startswith(str((home.root / "models" / "mine").resolve()) + "#")


def test_model2vec_refuses_what_is_not_a_local_model(home, tiny_model, tmp_path):
    path, _ = tiny_model
    not_a_dir = tmp_path / "file.txt"
    not_a_dir.write_text("hello")
    incomplete = tmp_path / "incomplete"
    incomplete.mkdir()
    (incomplete / "config.json").write_text("{}")
    corrupt = tmp_path / "corrupt"
    save_tiny_model2vec(corrupt)
    (corrupt / "model.safetensors").write_bytes(b"\xff" * 64)

    cases = {
        None: "needs embedding.model",
        "minishlab/potion-base-8M": "never downloads",  # a hub name is not fetched
        str(tmp_path / "missing"): "not a directory",
        str(not_a_dir): "not a directory",
        str(incomplete): "missing model.safetensors, tokenizer.json",
        str(corrupt): "not a model2vec model",
    }
    for model, expected in cases.items():
        resolution = resolve(EmbeddingConfig(provider="model2vec", model=model), home)
        assert resolution.embedder is None, model
        assert expected in resolution.reason, (model, resolution.reason)
        assert resolution.as_dict()["available"] is False


def test_a_model_that_does_not_load_is_an_embedding_error(home, tmp_path):
    broken = tmp_path / "broken"
    save_tiny_model2vec(broken)
    (broken / "tokenizer.json").write_text("{not json")
    resolution = resolve(EmbeddingConfig(provider="model2vec", model=str(broken)), home)
    assert resolution.embedder is not None  # the files are there; loading happens on first use
    with pytest.raises(EmbeddingError) as info:
        resolution.embedder.embed(["cat"])
    assert info.value.code == "embedding_failed" and info.value.exit_code == 1
    assert "model2vec" in info.value.message and str(broken) in info.value.message


# --- sentence-transformers ------------------------------------------------------------


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None, reason="sentence-transformers is installed")
def test_sentence_transformers_absent_names_the_extra(home, tiny_model):
    path, _ = tiny_model
    resolution = resolve(EmbeddingConfig(provider="sentence-transformers", model=str(path)), home)
    assert resolution.embedder is None
    assert "ovctx[sentence-transformers]" in resolution.reason


def test_sentence_transformers_embeds_with_a_local_model(home, tmp_path):
    pytest.importorskip("sentence_transformers")
    from sentence_transformers import SentenceTransformer
    try:  # the module's home since sentence-transformers 6.2; the old one warns there
        from sentence_transformers.sentence_transformer.modules import StaticEmbedding
    except ImportError:
        from sentence_transformers.models import StaticEmbedding
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab={word: i for i, word in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    weights = np.random.default_rng(0).standard_normal((len(VOCAB), DIM)).astype(np.float32)
    path = tmp_path / "tiny-st"
    SentenceTransformer(modules=[StaticEmbedding(tokenizer, embedding_weights=weights)], device="cpu").save(str(path))

    resolution = resolve(EmbeddingConfig(provider="sentence-transformers", model=str(path), batch_size=2), home)
    embedder = resolution.embedder
    assert embedder is not None, resolution.reason
    assert resolution.as_dict()["dimension"] is None  # unknown until the model is loaded
    vectors = embedder.embed(["cat sat", "vector index search", ""])
    assert vectors.shape == (3, DIM) and vectors.dtype == np.float32
    assert np.allclose(unit_norms(vectors)[:2], 1.0, atol=1e-5) and not vectors[2].any()
    fp = embedder.fingerprint
    assert fp.provider == "sentence-transformers" and fp.dimension == DIM and fp.model.startswith(str(path.resolve()) + "#")

    missing = resolve(EmbeddingConfig(provider="sentence-transformers", model=str(tmp_path / "missing")), home)
    assert missing.embedder is None and "not a directory" in missing.reason
    assert resolve(EmbeddingConfig(provider="sentence-transformers"), home).embedder is None


# --- litellm --------------------------------------------------------------------------


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    return API_KEY


def api_embedder(server: LLMServer, home: Home, **overrides):
    resolution = resolve(make_embedding_config(server, **overrides), home)
    assert resolution.embedder is not None, resolution.reason
    return resolution.embedder


def test_litellm_batches_in_order_and_normalises(llm_server, api_key, home):
    embedder = api_embedder(llm_server, home, batch_size=2)
    texts = ["alpha", "beta", "gamma", "", "delta", "epsilon"]
    vectors = embedder.embed(texts)

    requests = llm_server.embedding_requests()
    assert [r.json["input"] for r in requests] == [["alpha", "beta"], ["gamma", "delta"], ["epsilon"]]  # blank text never sent
    assert all(r.json["model"] == "test-model" for r in requests)  # litellm strips the provider prefix
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in requests)
    assert vectors.shape == (6, llm_server.embedding_dim) and vectors.dtype == np.float32
    for row, text in enumerate(texts):
        expected = np.zeros(llm_server.embedding_dim) if not text else np.asarray(hash_vector(text, llm_server.embedding_dim))
        assert np.allclose(vectors[row], expected, atol=1e-6), text
    # The answers told the dimension: the fingerprint needs no further call.
    assert embedder.fingerprint == Fingerprint("litellm", "openai/test-model", llm_server.embedding_dim)
    assert len(llm_server.embedding_requests()) == 3


def test_litellm_orders_by_index_and_normalises_raw_vectors(llm_server, api_key, home):
    body = {"object": "list", "model": "m", "data": [
        {"object": "embedding", "index": 1, "embedding": [0.0, 2.0, 0.0]},
        {"object": "embedding", "index": 0, "embedding": [3.0, 0.0, 4.0]},
    ], "usage": {"prompt_tokens": 2, "total_tokens": 2}}
    llm_server.script(Reply(body=body), EMBEDDINGS)
    vectors = api_embedder(llm_server, home).embed(["first", "second"])
    assert np.allclose(vectors, [[0.6, 0.0, 0.8], [0.0, 1.0, 0.0]])


def test_litellm_fingerprint_probes_the_dimension_once(llm_server, api_key, home):
    llm_server.embedding_dim = 12
    resolution = resolve(make_embedding_config(llm_server), home)
    assert resolution.as_dict()["dimension"] is None  # as_dict never calls the API
    assert llm_server.requests == []
    embedder = resolution.embedder
    assert embedder.fingerprint.dimension == 12
    assert embedder.fingerprint == Fingerprint("litellm", "openai/test-model", 12)
    [probe] = llm_server.embedding_requests()
    assert probe.json["input"] == ["dimension probe"]
    assert resolution.as_dict()["dimension"] == 12
    assert embedder.embed([]).shape == (0, 12)
    assert len(llm_server.requests) == 1


def test_litellm_records_token_usage(llm_server, api_key, home, tmp_path):
    state = tmp_path / "state"
    embedder = resolve(make_embedding_config(llm_server, batch_size=2), home, usage_dir=state).embedder
    embedder.embed(["a", "b", "c"])
    totals = usage.totals(state)
    assert totals["embedding/openai/test-model"] == {"calls": 2, "prompt_tokens": 3, "completion_tokens": 0}


def test_litellm_embeds_for_a_store_ov_may_only_read_without_counting_the_call(llm_server, api_key, home, tmp_path, read_only_mount):
    """A search of a read-only store embeds its query: the usage log it cannot append to failed
    the search ("internal error"). The call goes uncounted; any other failure is still raised."""
    state = tmp_path / "state"
    state.mkdir()
    mounted = read_only_mount(state)
    embedder = resolve(make_embedding_config(llm_server), home, usage_dir=mounted).embedder
    assert len(embedder.embed(["a"])) == 1 and list(state.iterdir()) == []
    blocked = tmp_path / "a file"
    blocked.write_text("")
    with pytest.raises(OSError):
        usage.record(blocked, "embedding", "openai/test-model", 1, 0)


def test_litellm_without_a_model_or_key_is_unavailable(llm_server, home, monkeypatch):
    no_model = resolve(make_embedding_config(llm_server, model=None), home)
    assert no_model.embedder is None and "embedding.model" in no_model.reason
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    no_key = resolve(make_embedding_config(llm_server), home)
    assert no_key.embedder is None and API_KEY_ENV in no_key.reason
    assert llm_server.requests == []


def embedding_error(server: LLMServer, home: Home, texts: list[str], **overrides) -> EmbeddingError:
    with pytest.raises(EmbeddingError) as info:
        api_embedder(server, home, **overrides).embed(texts)
    error = info.value
    assert error.code == "embedding_failed" and error.exit_code == 1
    assert "openai/test-model" in error.message or "openai/test-model" in (error.hint or "")
    return error


def test_litellm_server_error_is_an_embedding_error(llm_server, api_key, home):
    llm_server.error(500, "the GPU caught fire", endpoint=EMBEDDINGS)
    error = embedding_error(llm_server, home, ["text"])
    assert "HTTP 500" in error.message and "the GPU caught fire" in error.message
    assert len(llm_server.embedding_requests()) == 1  # no retries


def test_litellm_refused_credentials_point_at_api_key_env(llm_server, api_key, home):
    llm_server.error(401, "invalid api key", endpoint=EMBEDDINGS)
    error = embedding_error(llm_server, home, ["text"])
    assert "credentials" in error.message and "embedding.api_key_env" in error.hint


def test_litellm_refused_connection_is_an_embedding_error(llm_server, api_key, home):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nothing listens on the port now: the connection is refused.
    error = embedding_error(llm_server, home, ["text"], api_base=f"http://127.0.0.1:{port}/v1")
    assert "cannot reach" in error.message and f"127.0.0.1:{port}" in error.message
    assert "embedding.api_base" in error.hint


def test_litellm_timeout_is_an_embedding_error(llm_server, api_key, home):
    llm_server.delay(5, endpoint=EMBEDDINGS)
    error = embedding_error(llm_server, home, ["text"], timeout=0.5)
    assert "timed out after 0.5s" in error.message and "embedding.timeout" in error.hint


def test_litellm_wrong_count_and_malformed_answers_are_embedding_errors(llm_server, api_key, home):
    llm_server.embeddings([[1.0, 0.0]])
    assert "1 embeddings for 2 texts" in embedding_error(llm_server, home, ["a", "b"]).message

    llm_server.invalid_json(endpoint=EMBEDDINGS)
    embedding_error(llm_server, home, ["a"])

    llm_server.embeddings([[1.0, 0.0], [1.0, 0.0, 0.0]])
    assert "different" in embedding_error(llm_server, home, ["a", "b"]).message


def test_litellm_dimension_change_between_calls_is_an_embedding_error(llm_server, api_key, home):
    embedder = api_embedder(llm_server, home)
    embedder.embed(["a"])
    llm_server.embedding_dim = 4
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["b"])
    assert "4 dimensions, expected 8" in info.value.message


def test_resolution_is_frozen(home):
    resolution = resolve(EmbeddingConfig(provider="none"), home)
    assert isinstance(resolution, Resolution)
    with pytest.raises(AttributeError):
        resolution.reason = "x"  # type: ignore[misc]


def test_a_packaged_model_is_the_same_model_wherever_it_is_installed(tmp_path):
    """The MiniLM tier names its model, so a second venv or a reinstall keeps the vectors; a model
    configured by path stays tied to its path and to its weights' modification time."""
    import os

    from ov.index.embedders.local import SentenceTransformerEmbedder

    copies = []
    for n in (1, 2):
        model = tmp_path / f"venv{n}" / "model"
        model.mkdir(parents=True)
        (model / "modules.json").write_text("[]")
        (model / "config.json").write_text('{"hidden_size": 384}')
        (model / "model.safetensors").write_bytes(b"\0" * 64)
        os.utime(model / "model.safetensors", ns=(n * 10**18, n * 10**18))
        copies.append(model)
    named = [SentenceTransformerEmbedder(path, 8, name="sentence-transformers/all-MiniLM-L6-v2").model for path in copies]
    assert named[0] == named[1] and named[0].startswith("sentence-transformers/all-MiniLM-L6-v2#")
    by_path = [SentenceTransformerEmbedder(path, 8).model for path in copies]
    assert by_path[0] != by_path[1] and by_path[0].startswith(str(copies[0]))
    (copies[1] / "config.json").write_text('{"hidden_size": 768}')  # another model under the same name
    assert SentenceTransformerEmbedder(copies[1], 8, name="sentence-transformers/all-MiniLM-L6-v2").model != named[0]


def test_resolving_an_embedder_loads_no_llm_client_and_compiles_no_hashing_pattern():
    """Every find and hook resolves its embedder: the LLM client an API embedder calls and the
    hashing embedder's CJK pattern (~3 ms to compile) wait until one of them is used."""
    probe = (
        "import sys\n"
        "from ov.index.embedders import hashing, registry\n"
        "print(sorted(m for m in sys.modules if m.startswith('ov.llm')), hashing._TOKENS._compiled is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "True"]


def test_a_failing_embedder_is_not_asked_for_every_vector_again_by_every_search(llm_server, api_key, ov, tmp_path):  # noqa: F811
    """The full text is built first and the next search makes the vectors: with the embedder
    failing (an API down, a quota spent) every `ov find` read every record and asked for their
    vectors again, seconds each (a minute with an API that times out), and paid for the batches
    that passed. One search tries; the next ones search the full text and say why, until the
    store changes or `ov reindex`."""
    for key, value in [("embedding.provider", "litellm"), ("embedding.model", "openai/test-embedding"), ("embedding.api_base", llm_server.base_url), ("embedding.api_key_env", API_KEY_ENV)]:
        assert ov("config", "set", key, value).exit_code == 0
    llm_server.handler = lambda request: Reply(status=500, body={"error": {"message": "the service is down"}}) if request.endpoint == EMBEDDINGS else None
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(5):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nThe cache warms at {i} o'clock.\n")
    assert ov("add-resource", str(folder)).exit_code == 0  # its full text, vectors to be made
    first = ov("find", "cache warms", "--json").json["result"]
    assert "vectors still to be made" in first["index"]["actions"]
    asked = len(llm_server.embedding_requests())
    second = ov("find", "cache warms", "--json").json["result"]
    assert len(llm_server.embedding_requests()) == asked  # a lexical search embeds no query either
    assert not second["index"].get("actions") and second["resources"]
    assert "the embedder failed" in second["retrieval"]["embedding"]["reason"]
    [note] = [f for f in ov("fsck", "--json").json["result"]["findings"] if f["area"] == "index"]
    assert note["message"].startswith("vectors are behind: the embedder failed") and "the service is down" in note["message"]
    [index] = [c for c in ov("doctor", "--json").json["result"]["checks"] if c["name"] == "index"]
    assert index["status"] == "warn" and "the embedder failed" in index["detail"]
    llm_server.handler = None  # the API is back, and the store changes: the vectors are made
    assert ov("write", "viking://resources/notes/more.md", "--content", "# More\n\nThe cache cools at ten.\n").exit_code == 0
    third = ov("find", "cache warms", "--json").json["result"]
    assert "vectors rebuilt" in third["index"]["actions"] and third["retrieval"]["embedding"]["available"]
