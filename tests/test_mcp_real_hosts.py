"""ov's MCP server through the real hosts: registered by `ov install mcp`, started by the host, called by its model.

For each of Claude Code, Codex, Gemini CLI and OpenCode, run headless against a loopback model
stub (tests/realhosts.py) whose script calls ov's ``find`` and then ``remember`` (tests/stubs/base.py,
``ToolCall``): the host must start ``ov mcp`` from the entry ``ov install mcp`` wrote, pass the
calls through, and hand ``find``'s result back to the model; ``remember`` must land in the user's
store as one commit. Codex is also checked for its startup race: ov's tools are in its first
model request on every run.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ov.mcp.tools import definitions
from tests.realhosts import HOSTS_PREFIX, Host, claude_host, codex_host, gemini_host, opencode_host  # noqa: F401  (fixtures)
from tests.stubs.anthropic import AnthropicStub
from tests.stubs.base import IssuedCall, ScriptError, StubServer, ToolCall
from tests.stubs.gemini import GeminiStub
from tests.stubs.openai_responses import ResponsesStub

OV = Path(sys.executable).parent / "ov"
FACT_URI = "viking://resources/ops/deploy.md"
FACT = "Staging deploys run with make ship-staging."
PREFERENCE = "I prefer squash merges"
PROMPT = "How do staging deploys run? Also, remember that I prefer squash merges."
TURN_TIMEOUT = 60.0

# What each host calls ov's tools (server "ov"): Codex offers them in the namespace "mcp__ov",
# which the stub (like Codex's hooks) spells mcp__ov__<tool>.
TOOL_PREFIX = {"claude": "mcp__ov__", "codex": "mcp__ov__", "gemini": "mcp_ov_", "opencode": "ov_"}
OV_TOOLS = [tool["name"] for tool in definitions()]


def _ov(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(OV), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"ov {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _register(host: Host, tmp_path: Path, *, fact: bool = True) -> dict[str, str]:
    """Put the fact in the store and register ov's server with the host, as a user would, in the
    host's temp HOME; return ov's environment (the host's, with OV_HOME)."""
    host.env["OV_HOME"] = str(tmp_path / "ovhome")
    env = {**host.env, "PATH": f"{HOSTS_PREFIX / 'bin'}{os.pathsep}{host.env.get('PATH', '')}"}
    if fact:
        _ov(env, "write", FACT_URI, "--content", FACT)
    trust = ["--trust"] if host.name == "gemini" else []  # headless Gemini offers an untrusted server no tools
    _ov(env, "install", "mcp", "--host", host.name, "--yes", *trust, cwd=host.project)
    return env


def _mcp_log(env: dict[str, str], host: Host) -> list[dict]:
    path = Path(env["OV_HOME"]) / "logs" / "mcp.jsonl"
    if not path.exists():
        elsewhere = [str(p) for p in host.root.rglob("mcp.jsonl")]
        raise AssertionError(
            f"no {path}: {host.name} did not start `ov mcp` with this OV_HOME"
            + (f"; `ov mcp` logged to {elsewhere} instead (the host did not pass OV_HOME to the server)" if elsewhere else "")
        )
    return [json.loads(line) for line in path.read_text().splitlines()]


def _next_turn_request(stub: StubServer, call: IssuedCall):
    """The first model request after the one ``call`` answered that offers tools (a turn, not a side call)."""
    later = stub.requests[call.request_index + 1 :]
    return next((r for r in later if stub.is_model_request(r) and stub.offered_tools(r)), None)


def _find_then_remember(host: Host, env: dict[str, str], args: tuple[str, ...] = ()) -> None:
    prefix = TOOL_PREFIX[host.name]
    stub = host.stub
    stub.script = [
        ToolCall(prefix + "find", {"query": "staging deploys"}),
        ToolCall(prefix + "remember", {"text": PREFERENCE}),
        "Staging deploys run with make ship-staging; noted that you prefer squash merges.",
    ]
    run = host.run(PROMPT, args=args, timeout=TURN_TIMEOUT).check()
    offered = [stub.offered_tools(r) for r in run.requests if stub.is_model_request(r)]
    assert not stub.errors, stub.errors
    assert not stub.script, f"{host.name} never offered the tools for {stub.script}; tools offered per request: {offered}"
    find, remember = [c for c in stub.calls if c.step is not None]
    assert (find.name, remember.name) == (prefix + "find", prefix + "remember")

    # The host started `ov mcp` from ov's entry, with the user's OV_HOME, and both calls went through.
    log = _mcp_log(env, host)
    assert [(r["tool"], r["outcome"]) for r in log] == [("find", "ok"), ("remember", "ok")], log

    # find's result reached the model in its next request.
    after_find = _next_turn_request(stub, find)
    assert after_find is not None, f"no model request after {find}"
    found = stub.tool_results(after_find).get(find.call_id) or stub.tool_results(after_find).get(find.name)
    assert found is not None and FACT_URI in found and "make ship-staging" in found, (found, stub.text_of(after_find)[-2000:])
    # How it was answered reached the model too: the text, not structuredContent, is what it reads.
    assert "[retrieval: " in found and "; index: up to date (commit " in found, found

    # remember: one commit, and the memory is found.
    answer = stub.tool_result(remember)
    assert answer and "remembered in viking://" in answer, answer
    commit = re.search(r"\(commit ([0-9a-f]+)\)", answer).group(1)
    entries = json.loads(_ov(env, "snapshot", "log", "--json").stdout)["result"]
    remembered = [e for e in entries if e["command"] == "remember"]
    assert len(remembered) == 1 and remembered[0]["commit"].startswith(commit), entries
    hits = json.loads(_ov(env, "find", "squash merges", "--json").stdout)["result"]["memories"]
    assert {h["uri"] for h in hits} & set(remembered[0]["uris"]), hits


@pytest.mark.parametrize("host_fixture", ["claude_host", "codex_host", "gemini_host", "opencode_host"])
@pytest.mark.real_host
@pytest.mark.slow
def test_the_host_calls_ovs_find_and_remember(host_fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    host = request.getfixturevalue(host_fixture)
    env = _register(host, tmp_path)
    # Claude Code's -p asks before an MCP tool runs, and nobody is there to answer.
    args = ("--allowedTools", f"{TOOL_PREFIX['claude']}find,{TOOL_PREFIX['claude']}remember") if host.name == "claude" else ()
    _find_then_remember(host, env, args)


CODEX_RUNS = 10


@pytest.mark.real_host
@pytest.mark.slow
def test_codex_offers_ovs_tools_in_its_first_request_every_run(codex_host, tmp_path: Path, record_property) -> None:
    """Codex starts MCP servers in the background; a server that lists its tools late misses the
    first model request (4 of 8 runs with a slow server). ov's start-up must win every time, without
    `required = true` in its entry (which would keep Codex from starting whenever ov cannot)."""
    _register(codex_host, tmp_path, fact=False)
    stub = codex_host.stub
    wanted = {TOOL_PREFIX["codex"] + name for name in OV_TOOLS}
    seconds: list[float] = []
    missing: dict[int, list[str]] = {}
    for n in range(1, CODEX_RUNS + 1):
        run = codex_host.run("Say hi.", timeout=TURN_TIMEOUT).check()
        seconds.append(round(run.seconds, 2))
        first = next((r for r in run.requests if stub.is_model_request(r)), None)
        assert first is not None, f"run {n} sent no model request"
        absent = sorted(wanted - set(stub.offered_tools(first)))
        if absent:
            missing[n] = absent
    record_property("codex_run_seconds", seconds)
    print(f"codex exec, {CODEX_RUNS} runs, seconds each: {seconds}")
    assert not missing, f"ov's tools missing from the first request of runs {sorted(missing)} (of {CODEX_RUNS}): {missing}; seconds per run: {seconds}"


def _codex_servers(host: Host) -> dict[str, dict]:
    """The servers ``codex mcp list`` reads from the config (it calls no model), by name; the
    test fails with the file when Codex cannot load it."""
    run = host.invoke(["mcp", "list", "--json"])
    assert run.exit_code == 0, f"codex cannot load {host.config_path}:\n{host.config_path.read_text()}\n{run.stderr[-2000:]}"
    return {server["name"]: server["transport"] for server in json.loads(run.stdout)}


@pytest.mark.real_host
def test_codex_loads_its_config_after_each_of_ovs_edits(codex_host, tmp_path: Path) -> None:
    """Codex refused to start on what `ov uninstall mcp` left of its table ("invalid transport in
    `mcp_servers.ov`"), and `ov install mcp` refused a table `codex mcp add` had written for ov."""
    host = codex_host
    env = {**host.env, "OV_HOME": str(tmp_path / "ovhome")}
    config = host.config_path
    config.write_text('model = "gpt-stub"\n')
    added = subprocess.run([str(host.binary), "mcp", "add", "ov", "--env", f"OV_HOME={env['OV_HOME']}", "--", str(OV), "mcp"], env=env, capture_output=True, timeout=60)
    assert added.returncode == 0, added.stderr
    assert "[mcp_servers.ov.env]" in config.read_text()  # Codex's own layout: a subtable

    _ov(env, "install", "mcp", "--host", "codex", "--yes", cwd=host.project)  # takes Codex's table over
    ours = _codex_servers(host)["ov"]
    assert (ours["command"], ours["args"], ours["env"]) == (str(OV), ["mcp"], {"OV_HOME": env["OV_HOME"]})
    with config.open("a") as f:
        f.write('\n[mcp_servers.ov.tools.remember]\napproval_mode = "prompt"\n')
    assert "ov" in _codex_servers(host)
    _ov(env, "uninstall", "mcp", "--host", "codex", cwd=host.project)
    assert _codex_servers(host) == {}

    # A string holding a header's line, and no final newline: the file comes back byte for byte.
    text = 'model = "gpt-stub"\n\n[profiles.notes]\nnotes = """\n[mcp_servers.ov]\ncommand = "not a table"\n"""\nmodel = "gpt-stub"'
    config.write_text(text)
    _ov(env, "install", "mcp", "--host", "codex", "--yes", cwd=host.project)
    assert list(_codex_servers(host)) == ["ov"]
    _ov(env, "uninstall", "mcp", "--host", "codex", cwd=host.project)
    assert config.read_text() == text and _codex_servers(host) == {}


# --- the host reads the file ov registered the server in (no model called) ---------------------------

# How each host lists its MCP servers from its config, and the file a user's servers are in.
LIST_SERVERS = {"claude": ["mcp", "list"], "gemini": ["mcp", "list"], "opencode": ["debug", "config"]}
SERVERS_FILE = {"claude": "user_config_path", "gemini": "settings_path", "opencode": "config_path"}


@pytest.mark.real_host
@pytest.mark.slow
def test_claude_lists_ovs_server_registered_under_claude_config_dir(claude_host, tmp_path: Path) -> None:
    """With $CLAUDE_CONFIG_DIR set, Claude Code reads no ~/.claude.json: ov's server went there and was never listed."""
    config_dir = claude_host.root / "claude-config"
    config_dir.mkdir()
    claude_host.env["CLAUDE_CONFIG_DIR"] = str(config_dir)
    _register(claude_host, tmp_path, fact=False)
    listed = claude_host.invoke(LIST_SERVERS["claude"]).check()
    assert re.search(rf"^ov: {re.escape(str(OV))} mcp - .*Connected", listed.stdout, re.MULTILINE), listed.stdout


@pytest.mark.parametrize("host_fixture", ["claude_host", "gemini_host", "opencode_host"])
@pytest.mark.real_host
@pytest.mark.slow
def test_ov_takes_a_trailing_comma_in_a_hosts_file_exactly_where_the_host_does(host_fixture: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """OpenCode reads `{"a": 1,}` in opencode.json; Claude Code's .claude.json and Gemini CLI's
    settings.json refuse it. ov refused it everywhere: now it adds its server where the host reads
    such a file, and still refuses it where the host would not read the result."""
    host = request.getfixturevalue(host_fixture)
    path = getattr(host, SERVERS_FILE[host.name])
    text = path.read_text() if path.exists() else '{\n  "numStartups": 1\n}\n'
    path.write_text(re.sub(r"\s*\}\s*$", ",\n}\n", text))  # a comma after the last top-level member
    host_reads = host.invoke(LIST_SERVERS[host.name]).exit_code == 0
    assert host_reads == (host.name == "opencode")
    host.env["OV_HOME"] = str(tmp_path / "ovhome")
    ov = subprocess.run([str(OV), "install", "mcp", "--host", host.name, "--yes"], env=host.env, capture_output=True, text=True, timeout=120, check=False)
    assert (ov.returncode == 0) == host_reads, ov.stderr
    if host_reads:
        config = host.invoke(LIST_SERVERS[host.name]).check()
        assert json.loads(config.stdout)["mcp"]["ov"]["command"] == [str(OV), "mcp"]


# --- the stubs' scripted tool calls (no host) -------------------------------------------------------


def _post(url: str, body: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


def _events(body: bytes) -> list[dict]:
    return [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")]


def test_anthropic_stub_scripts_tool_use_and_loads_deferred_tools_first() -> None:
    deferred_list = "The following deferred tools are now available via ToolSearch:\nWebFetch\nmcp__ov__find\n"
    user = {"role": "user", "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": deferred_list}]}
    tools = [{"name": "Bash"}, {"name": "ToolSearch"}, {"name": "DeferredToolPlaceholder", "defer_loading": True}]
    with AnthropicStub(reply="side") as stub:
        stub.script = [ToolCall("mcp__ov__find", {"query": "q"}), "final"]
        url = stub.url + "/v1/messages"
        _, side = _post(url, {"messages": [user]})  # no tools: a side call, not scripted
        assert json.loads(side)["content"][0]["text"] == "side"

        _, body = _post(url, {"stream": True, "tools": tools, "messages": [user]})
        events = _events(body)
        start = next(e for e in events if e["type"] == "content_block_start")["content_block"]
        delta = next(e for e in events if e["type"] == "content_block_delta")["delta"]
        assert (start["type"], start["name"]) == ("tool_use", "ToolSearch")
        assert json.loads(delta["partial_json"]) == {"query": "select:mcp__ov__find"}
        assert next(e for e in events if e["type"] == "message_delta")["delta"]["stop_reason"] == "tool_use"
        assert len(stub.script) == 2  # loading the tool consumed no step

        search = stub.calls[0]
        loaded = [
            user,
            {"role": "assistant", "content": [{"type": "tool_use", "id": search.call_id, "name": "ToolSearch", "input": search.arguments}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": search.call_id, "content": [{"type": "tool_reference", "tool_name": "mcp__ov__find"}]}]},
        ]
        tools_now = [*tools, {"name": "mcp__ov__find", "defer_loading": True}]
        _, body = _post(url, {"tools": tools_now, "messages": loaded})
        message = json.loads(body)
        assert message["stop_reason"] == "tool_use"
        assert message["content"] == [{"type": "tool_use", "id": stub.calls[1].call_id, "name": "mcp__ov__find", "input": {"query": "q"}}]

        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": stub.calls[1].call_id, "content": [{"type": "text", "text": "FOUND"}]}]}
        _, body = _post(url, {"tools": tools_now, "messages": [*loaded, {"role": "assistant", "content": message["content"]}, result]})
        assert json.loads(body)["content"][0]["text"] == "final" and not stub.script
        assert stub.tool_result(stub.calls[1]) == "FOUND" and stub.tool_result(search) == "mcp__ov__find"
        assert not stub.errors


def test_anthropic_stub_refuses_ambiguous_steps_and_a_tool_that_never_loads() -> None:
    deferred = {"role": "user", "content": "use ToolSearch:\nmcp__ov__find\n"}
    with AnthropicStub() as stub:
        stub.script = [ToolCall("mcp__ov__", {})]
        with pytest.raises(urllib.error.HTTPError):
            _post(stub.url + "/v1/messages", {"tools": [{"name": "mcp__ov__find"}, {"name": "mcp__ov__read"}], "messages": []})
        assert isinstance(stub.errors[-1], ScriptError)

        stub.script = [ToolCall("mcp__ov__find", {})]
        body = {"tools": [{"name": "ToolSearch"}], "messages": [deferred]}
        _post(stub.url + "/v1/messages", body)  # the stub loads it ...
        with pytest.raises(urllib.error.HTTPError):
            _post(stub.url + "/v1/messages", body)  # ... and the host did not: a loop, refused
        assert "still not offered" in str(stub.errors[-1])


def test_responses_stub_scripts_namespaced_function_calls() -> None:
    tools = [{"type": "function", "name": "exec_command"}, {"type": "namespace", "name": "mcp__ov", "tools": [{"type": "function", "name": "find"}]}]
    with ResponsesStub(reply="plain") as stub:
        stub.script = [ToolCall("mcp__ov__find", {"query": "q"}), "final"]
        _, body = _post(stub.url + "/v1/responses", {"stream": True, "tools": tools, "input": []})
        events = _events(body)
        assert [e["type"] for e in events] == [
            "response.created",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ]
        item = events[-2]["item"]
        assert (item["type"], item["namespace"], item["name"], json.loads(item["arguments"])) == ("function_call", "mcp__ov", "find", {"query": "q"})
        assert events[-1]["response"]["output"] == [item] and item["call_id"] == stub.calls[0].call_id

        output = {"type": "function_call_output", "call_id": item["call_id"], "output": [{"type": "input_text", "text": "FOUND"}]}
        _, body = _post(stub.url + "/v1/responses", {"tools": tools, "input": [item, output]})
        assert json.loads(body)["output"][0]["content"][0]["text"] == "final"
        assert stub.tool_result(stub.calls[0]) == "FOUND" and not stub.errors


def test_gemini_stub_scripts_function_calls_and_leaves_side_calls_alone() -> None:
    tools = [{"functionDeclarations": [{"name": "read_file"}, {"name": "mcp_ov_find"}]}]
    route = {"contents": [], "generationConfig": {"responseMimeType": "application/json", "responseSchema": {"type": "OBJECT", "properties": {}}}}
    with GeminiStub() as stub:
        stub.script = [ToolCall("mcp_ov_find", {"query": "q"}), "final"]
        _, body = _post(stub.url + "/v1beta/models/m:generateContent", route)
        assert json.loads(json.loads(body)["candidates"][0]["content"]["parts"][0]["text"]) == {}
        _, body = _post(stub.url + "/v1beta/models/m:streamGenerateContent?alt=sse", {"tools": tools, "contents": []})
        (part,) = _events(body)[0]["candidates"][0]["content"]["parts"]
        assert part == {"functionCall": {"name": "mcp_ov_find", "args": {"query": "q"}, "id": stub.calls[0].call_id}}
        response = {"role": "user", "parts": [{"functionResponse": {"name": "mcp_ov_find", "id": stub.calls[0].call_id, "response": {"output": "FOUND"}}}]}
        _, body = _post(stub.url + "/v1beta/models/m:streamGenerateContent?alt=sse", {"tools": tools, "contents": [response]})
        assert _events(body)[0]["candidates"][0]["content"]["parts"] == [{"text": "final"}]
        assert stub.tool_result(stub.calls[0]) == "FOUND" and not stub.script and not stub.errors
