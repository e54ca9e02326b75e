"""A real Codex installs the package `ov plugin build` writes, lists its skill and calls ov's tools.

The package goes into a local marketplace (``.agents/plugins/marketplace.json`` with a local
source), is installed with ``codex plugin marketplace add`` and ``codex plugin add ov@ov-local``,
and ov's server has its tools approved in config.toml. The stub answers the model's first
request with a call to ``find`` (Codex offers ov's tools in the namespace ``mcp__ov``); the
test checks that the skill was listed to the model, that ov ran the call, and that its result
reached the model's next request.

Offline: with the ``plugins`` feature on, Codex syncs its curated marketplace at every start
(``git ls-remote https://github.com/openai/plugins.git``, then the GitHub API and a ChatGPT
archive as fallbacks). Neither Codex's source nor the 0.171.0 binary has a setting that turns
the sync off and keeps local plugins: ``CODEX_DISABLE_CURATED_PLUGIN_SYNC`` of older versions is
gone, and what else skips it (a ChatGPT login, which uses the remote catalog instead, or an
administrator's marketplace restrictions in /etc/codex/requirements.toml) is no test set-up. So
git is pointed at a local stand-in for that repository (``url.<file URL>.insteadOf`` in a
``GIT_CONFIG_GLOBAL`` file, which Codex's git inherits): the git path succeeds from disk and the
fallbacks never run. (strace of a run: no connection leaves the machine.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import tomlkit

from tests.realhosts import codex_host  # noqa: F401  (a pytest fixture)
from tests.stubs.base import ToolCall

pytestmark = [pytest.mark.real_host, pytest.mark.slow]

OV = Path(sys.executable).parent / "ov"
MARKETPLACE = "ov-local"
PREFERENCE = "I prefer tabs over spaces for indentation."
CURATED_URL = "https://github.com/openai/plugins.git"


def _run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> str:
    proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{argv} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _curated_stand_in(root: Path, env: dict[str, str]) -> tuple[Path, str]:
    """A local git repository shaped like Codex's curated marketplace, and a git config that
    sends Codex's fetches of the real one there. Returns (the config, the stand-in's HEAD)."""
    repo = root / "curated-plugins"
    (repo / ".agents" / "plugins").mkdir(parents=True)
    (repo / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps({"name": "openai-curated", "plugins": []}))
    who = {"GIT_AUTHOR_NAME": "ov tests", "GIT_AUTHOR_EMAIL": "tests@ov.invalid", "GIT_COMMITTER_NAME": "ov tests", "GIT_COMMITTER_EMAIL": "tests@ov.invalid"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "curated stand-in"]):
        _run(["git", *args], {**env, **who}, cwd=repo)
    head = _run(["git", "rev-parse", "HEAD"], env, cwd=repo).strip()
    config = root / "gitconfig"
    config.write_text(f'[url "{repo.as_uri()}"]\n\tinsteadOf = {CURATED_URL}\n[protocol "file"]\n\tallow = always\n')
    return config, head


def _marketplace(root: Path, env: dict[str, str]) -> Path:
    """A local marketplace holding the package `ov plugin build` writes."""
    market = root / "marketplace"
    _run([str(OV), "plugin", "build", "--out", str(market / "plugins" / "ov")], env)
    entry = {
        "name": "ov",
        "source": {"source": "local", "path": "./plugins/ov"},
        "policy": {"installation": "AVAILABLE", "authentication": "ON_INSTALL"},
        "category": "Productivity",
    }
    (market / ".agents" / "plugins").mkdir(parents=True)
    (market / ".agents" / "plugins" / "marketplace.json").write_text(json.dumps({"name": MARKETPLACE, "plugins": [entry]}))
    return market


def _mcp_log(ov_home: Path) -> list[dict[str, Any]]:
    path = ov_home / "logs" / "mcp.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_codex_installs_the_package_lists_its_skill_and_calls_ovs_tools(codex_host, tmp_path):
    host, stub = codex_host, codex_host.stub
    # Codex starts MCP servers with a fixed set of variables (HOME, PATH, ...) and no OV_HOME:
    # ov's server uses its default store under HOME, and so does every ov command here.
    ov_home = host.home / ".ov"
    host.env["OV_HOME"] = str(ov_home)
    git_config, curated_head = _curated_stand_in(tmp_path, host.env)
    host.env["GIT_CONFIG_GLOBAL"] = str(git_config)
    _run([str(OV), "remember", PREFERENCE], host.env)

    config = tomlkit.parse(host.config_path.read_text())
    config["features"]["plugins"] = True  # the harness turns it off; this test needs it
    host.config_path.write_text(tomlkit.dumps(config))
    market = _marketplace(tmp_path, host.env)
    host.invoke(["plugin", "marketplace", "add", str(market)]).check()
    added = host.invoke(["plugin", "add", f"ov@{MARKETPLACE}"]).check()
    installed = host.codex_home / "plugins" / "cache" / MARKETPLACE / "ov"
    assert installed.is_dir(), added.stdout
    config = tomlkit.parse(host.config_path.read_text())
    assert config["plugins"][f"ov@{MARKETPLACE}"]["enabled"] is True
    config["plugins"][f"ov@{MARKETPLACE}"]["mcp_servers"] = {"ov": {"default_tools_approval_mode": "approve"}}
    host.config_path.write_text(tomlkit.dumps(config))

    # Codex starts a plugin's MCP servers in the background and does not wait for them
    # (`required` is ignored in a plugin's table, verified notes §7): the first request carries
    # what is listed by then. ov lists its tools within milliseconds, so they were in time in
    # 19 runs of 19 on an idle machine; on a loaded CI machine a run may still lose the race,
    # which says nothing about ov, so a run whose first request lacks the tools is repeated.
    for _attempt in range(3):
        stub.script = [ToolCall("mcp__ov__find", {"query": "indentation preference", "limit": 5}), "Tabs, as you prefer."]
        run = host.run("How should I indent the new Python module?").check()
        requests = [r for r in run.requests if stub.is_model_request(r)]
        assert requests, run.stderr
        if "mcp__ov__find" in stub.offered_tools(requests[0]):
            break
    assert "ov:ov-memory" in stub.text_of(requests[0])  # the skill, listed to the model
    assert "mcp__ov__find" in stub.offered_tools(requests[0]), "ov's tools came after the first model request in 3 runs"
    calls = stub.calls_of("mcp__ov__find")
    assert len(calls) == 1 and stub.requests[calls[0].request_index] is requests[0], (stub.calls, run.stderr[-3000:])
    logged = [r for r in _mcp_log(ov_home) if r.get("tool") == "find"]
    assert logged and logged[0]["outcome"] == "ok", _mcp_log(ov_home)
    result = stub.tool_result(calls[0])
    assert result is not None and "tabs" in result.lower(), result  # ov's answer reached the model
    assert not stub.script and not stub.errors
    # Offline: Codex's curated-marketplace sync, when it got as far as recording what it synced
    # (it runs beside the turn and may not finish before `codex exec` does), was served by the
    # local stand-in, not GitHub.
    synced = host.codex_home / ".tmp" / "plugins.sha"
    if synced.exists():
        assert synced.read_text().strip() == curated_head
