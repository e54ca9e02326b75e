"""With a model configured, nothing a user waits for imports litellm (issue #14), and hooks never ask it.

Each command runs in its own process, as the console script runs it, against a loopback
OpenAI-compatible model server; the process reports the top-level modules it loaded when it
exits. litellm takes ~10 s to import on a small machine: `ov remember`, `ov search` (with its
LLM query plan), `ov add-resource` (LLM summaries), `ov commit` (LLM memory extraction) and
`ov find` with an API embedder must reach the model without it. A provider ov does not speak
natively still goes through litellm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ov.llm import usage
from tests.llm_server import API_KEY, API_KEY_ENV, MODEL, llm_server  # noqa: F401  (pytest fixture)

REPO = Path(__file__).resolve().parents[1]
MARK = "ov-test-modules:"
# Runs `ov ARGS` (argv[1], JSON) as the console script does; prints the loaded top-level modules at exit.
PROBE = (
    "import atexit, json, sys\n"
    f"atexit.register(lambda: print({MARK!r} + json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})), file=sys.stderr))\n"
    "sys.argv = ['ov', *json.loads(sys.argv[1])]\n"
    "from ov.cli.entry import entry\n"
    "entry()\n"
)


def run_ov(*args: str, stdin: bytes = b"") -> tuple[subprocess.CompletedProcess, set[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(list(args))], input=stdin, capture_output=True, timeout=120, env=dict(os.environ), cwd=REPO
    )
    lines = [line for line in proc.stderr.decode().splitlines() if line.startswith(MARK)]
    assert lines, f"ov {' '.join(args)} printed no module list: {proc.stderr.decode()[-2000:]}"
    return proc, set(json.loads(lines[-1][len(MARK) :]))


@pytest.fixture
def with_llm(ov, llm_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    for key, value in [("llm.model", MODEL), ("llm.api_base", llm_server.base_url), ("llm.api_key_env", API_KEY_ENV), ("llm.timeout", "20")]:
        assert ov("config", "set", key, value).exit_code == 0
    return llm_server


def memory_answer() -> str:
    return json.dumps(
        {"memories": [{"memory_type": "preferences", "fields": {"subject": "default", "topic": "merges", "content": "- Prefers squash merges"}, "source_message_ids": ["remember"]}]}
    )


def test_remember_asks_the_model_without_importing_litellm(with_llm, ov_home):
    with_llm.chat(memory_answer(), prompt_tokens=210, completion_tokens=33)
    # A text the rules do not read ("I prefer ..." they would, without asking the model).
    proc, loaded = run_ov("remember", "Atlas merges are squashed", "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" not in loaded and "openai" not in loaded and "httpx" not in loaded
    [request] = with_llm.chat_requests()
    assert "Atlas merges are squashed" in request.prompt
    assert json.loads(proc.stdout)["result"]["uris"] == ["viking://user/default/memories/preferences/default/merges.md"]
    totals = usage.totals(ov_home / "state" / "default")
    assert totals[f"remember/{MODEL}"] == {"calls": 1, "prompt_tokens": 210, "completion_tokens": 33}


def test_search_plans_with_the_model_without_importing_litellm(with_llm, ov):
    assert ov("write", "viking://resources/ops/deploy.md", "--content", "# Deploy\n\nStaging deploys run with make ship.\n").exit_code == 0
    plan = {"reasoning": "deploys", "queries": [{"query": "staging deploy", "context_type": "resource", "intent": "how", "priority": 1}]}
    with_llm.chat(json.dumps(plan))
    proc, loaded = run_ov("search", "how do we deploy to staging?", "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" not in loaded
    assert len(with_llm.chat_requests()) == 1
    result = json.loads(proc.stdout)["result"]
    assert result["query_plan"]["source"] == "llm" and "viking://resources/ops/deploy.md" in json.dumps(result["resources"])


def test_summaries_and_memory_extraction_do_not_import_litellm(with_llm, ov, tmp_path):
    docs = tmp_path / "handbook"
    docs.mkdir()
    (docs / "README.md").write_text("# Handbook\n\nHow the team ships code.\n")
    (docs / "deploy.md").write_text("# Deploy\n\nDeploys go through a canary stage.\n")
    with_llm.chat("# handbook\n\nHow the team ships code, with canary deploys.\n\n## Contents\n\n- README.md: entry point.")
    proc, loaded = run_ov("add-resource", str(docs), "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" not in loaded
    assert with_llm.chat_requests() and json.loads(proc.stdout)["result"]["tokens"]

    assert ov("session", "add", "s", "--role", "user", "--text", "I use 4-space indentation in Python.", "--id", "u1").exit_code == 0
    with_llm.handler = None  # every call answered "OK": extraction is repaired once, then given up; the commit stands
    proc, loaded = run_ov("commit", "s", "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" not in loaded
    assert len(with_llm.chat_requests()) > 1


def test_find_with_an_api_embedder_does_not_import_litellm(llm_server, ov, monkeypatch):  # noqa: F811
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    for key, value in [("embedding.provider", "litellm"), ("embedding.model", "openai/test-embedding"), ("embedding.api_base", llm_server.base_url), ("embedding.api_key_env", API_KEY_ENV)]:
        assert ov("config", "set", key, value).exit_code == 0
    assert ov("write", "viking://resources/a.md", "--content", "The cache warms at nine.\n").exit_code == 0
    proc, loaded = run_ov("find", "cache warm", "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" not in loaded
    assert llm_server.embedding_requests()
    result = json.loads(proc.stdout)["result"]
    assert result["retrieval"]["embedding"] and "viking://resources/a.md" in json.dumps(result["resources"])


def test_a_provider_ov_does_not_speak_still_goes_through_litellm(with_llm, ov):
    assert ov("config", "set", "llm.model", "custom_openai/test-model").exit_code == 0
    with_llm.chat(memory_answer())
    proc, loaded = run_ov("remember", "Atlas merges are squashed", "--json")
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    assert "litellm" in loaded
    assert with_llm.chat_requests()[-1].json["model"] == "test-model"


def test_the_prompt_hook_never_asks_the_model_even_with_the_planner_on(with_llm, ov, tmp_path):
    """Hooks answer on every prompt: the query plan stays deterministic whatever retrieval.query_planner says."""
    assert ov("config", "set", "retrieval.query_planner", "true").exit_code == 0
    assert ov("write", "viking://resources/ops/cache.md", "--content", "# Cache\n\nThe cache warms at nine every morning.\n").exit_code == 0
    # The index built first, and a deadline no busy machine reaches: what is tested is whom the
    # hook asks, not how fast it answers (at hooks.deadline's 1 s a loaded machine answered nothing).
    assert ov("reindex").exit_code == 0
    assert ov("config", "set", "hooks.deadline", "60").exit_code == 0
    project = tmp_path / "project"
    project.mkdir()
    prompt = {"session_id": "s-plan", "cwd": str(project), "prompt": "when does the cache warm up?"}
    for event, data in (("session-start", {"session_id": "s-plan", "cwd": str(project)}), ("prompt-submit", prompt)):
        proc, loaded = run_ov("hook", "claude", event, stdin=json.dumps(data).encode())
        assert proc.returncode == 0, proc.stderr.decode()[-2000:]
        assert "litellm" not in loaded
    assert "The cache warms at nine" in json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    assert with_llm.requests == []
    # The same query through `ov search` does ask the model: the configuration would reach it.
    proc, _ = run_ov("search", "when does the cache warm up?", "--json")
    assert proc.returncode == 0 and with_llm.chat_requests()
