"""`ov mcp`, driven by the official MCP SDK's own client over stdio (the reference implementation)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from ov.mcp.tools import PREFIX_BUDGET, definitions
from ov.tokens import estimate_tokens
from tests.llm_server import API_KEY, API_KEY_ENV, LLMServer, make_llm_config

OV = str(Path(sys.executable).parent / "ov")


def _params(*args: str) -> StdioServerParameters:
    return StdioServerParameters(command=OV, args=["mcp", *args], env=dict(os.environ))


def _with_client(body, *args: str):
    async def run():
        async with Client(_params(*args)) as client:
            return await body(client)

    return asyncio.run(run())


def _text(result) -> str:
    return result.content[0].text


def _results(text: str) -> str:
    """A find's or search's answer without its first line, the one saying how it was answered."""
    first, _, rest = text.partition("\n")
    assert first.startswith("[retrieval: "), first
    return rest


async def _call(client, name: str, arguments: dict):
    return await client.call_tool(name, arguments)


def _raw(lines: list[dict | str], *, timeout: float = 60) -> list[dict]:
    """Send protocol lines to a fresh `ov mcp` and read every line it answers until it exits."""
    data = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode()
    proc = subprocess.run([OV, "mcp"], input=data, capture_output=True, timeout=timeout, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]  # every stdout line is protocol


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


# --- the protocol ---------------------------------------------------------------------------


def test_tools_are_listed_with_schemas_and_one_line_descriptions(snapshot):
    async def body(client):
        return await client.list_tools()

    tools = _with_client(body).tools
    assert [t.name for t in tools] == [d["name"] for d in definitions()]
    for tool in tools:
        assert tool.description and "\n" not in tool.description and len(tool.description) <= 100
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is None  # hosts show structuredContent instead of text when one is declared
    assert definitions() == snapshot


def test_the_docs_name_every_tool_and_its_arguments_as_tools_list_does():
    """(found by an audit: docs/mcp.md gave `glob` grep's `ignore_case` and `limit`, and `stat`
    the `recursive` and `offset` of `ls`) Each row of its table of tools names the tools it is
    about and, for each in turn, the arguments it takes, in bold those it requires."""
    docs = (Path(__file__).parents[1] / "docs" / "mcp.md").read_text(encoding="utf-8")
    table = docs.split("\n| tool | does | arguments |\n|---|---|---|\n", 1)[1].split("\n\n")[0]
    documented = {}
    for row in table.splitlines():
        tools_cell, _does, arguments_cell = row.strip("|").split(" | ")
        names = re.findall(r"`(\w+)`", tools_cell)
        groups = re.sub(r"\([^)]*\)", "", arguments_cell).split(" / ")  # an enum's values in brackets are no arguments
        assert len(groups) in (1, len(names)), row
        for name, group in zip(names, groups * len(names) if len(groups) == 1 else groups):
            documented[name] = (set(re.findall(r"`(\w+)`", group)), set(re.findall(r"\*\*`(\w+)`\*\*", group)))
    listed = {d["name"]: (set(d["inputSchema"]["properties"]), set(d["inputSchema"].get("required", ()))) for d in definitions()}
    assert documented == listed


def test_all_tool_definitions_fit_the_prefix_budget():
    listed = json.dumps({"tools": definitions()})
    assert estimate_tokens(listed) <= PREFIX_BUDGET


def test_initialize_answers_with_the_clients_version_when_supported():
    answers = _raw([INIT, {**INIT, "id": 2, "params": {**INIT["params"], "protocolVersion": "2099-01-01"}}])
    by_id = {a["id"]: a for a in answers}
    assert by_id[1]["result"]["protocolVersion"] == "2025-06-18" and by_id[1]["result"]["serverInfo"]["name"] == "ov"
    assert by_id[2]["result"]["protocolVersion"] == "2025-11-25"  # ov's newest for a version it does not know


def test_the_sdks_older_session_client_negotiates_too():
    async def run():
        async with stdio_client(_params()) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                await session.send_ping()
                return init

    assert asyncio.run(run()).protocol_version == "2025-11-25"


def test_unknown_methods_bad_json_and_notifications():
    answers = _raw(
        [
            INIT,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "resources/list"},
            "{not json",
            '{"jsonrpc": "2.0", "id": 5, "method": "ping", "params": ' + "[" * 5000 + "]" * 5000 + "}",  # deeper than json recurses
            {"jsonrpc": "2.0", "id": 3, "method": "ping"},
            {"jsonrpc": "2.0", "id": 4},
        ]
    )
    errors = [(a.get("id"), a.get("error", {}).get("code")) for a in answers if "error" in a]
    assert sorted(errors, key=str) == sorted([(2, -32601), (None, -32700), (None, -32700), (4, -32600)], key=str)
    assert {"id": 3, "jsonrpc": "2.0", "result": {}} in answers  # the server kept serving
    assert len(answers) == 6  # the notification gets no answer


def test_requests_json_rpc_refuses_are_answered_and_the_server_goes_on():
    answers = _raw(
        [
            INIT,
            '{"jsonrpc": "2.0", "id": 2, "method": "\\ud800"}',  # half a UTF-16 pair: crashed the server writing its answer
            '{"jsonrpc": "2.0", "id": "\\ud800", "method": "ping"}',
            {"jsonrpc": "1.0", "id": 3, "method": "ping"},
            {"jsonrpc": "2.0", "id": None, "method": "ping"},
            {"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"},
            [],
            [{"jsonrpc": "2.0", "id": 5, "method": "ping"}, {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "health"}}],
            {"jsonrpc": "2.0", "id": 7, "method": "ping"},
            '{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "write", "arguments": {"uri": "viking://resources/a.md", "content": "half a pair \\ud800"}}}',
            '{"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "find", "arguments": {"query": "x", "types": ["\\udc80"]}}}',
        ]
    )
    assert answers[1] == {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "method not found: \ufffd"}}
    assert answers[2] == {"jsonrpc": "2.0", "id": "\ufffd", "result": {}}
    assert [a["error"]["code"] for a in answers[3:7]] == [-32600] * 4 and [a["id"] for a in answers[3:7]] == [3, None, None, None]
    (batch,) = [a for a in answers if isinstance(a, list)]  # one array of the batch's answers (its notification has none)
    assert sorted(a["id"] for a in batch) == [5, 6] and all("result" in a for a in batch)
    by_id = {a["id"]: a for a in answers[7:] if isinstance(a, dict)}
    assert by_id[7] == {"jsonrpc": "2.0", "id": 7, "result": {}} and len(answers) == 11
    for request in (8, 9):  # half a pair in an argument: a tool error that says so, not "ov failed"
        assert by_id[request]["result"]["isError"] and "lone surrogate" in by_id[request]["result"]["content"][0]["text"]


@pytest.mark.parametrize("flags", [["--user", "bad/user"], ["--account=a b"]])
def test_a_bad_identity_on_the_command_line_is_a_usage_error_not_a_traceback(flags):
    proc = subprocess.run([OV, "mcp", *flags], input=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode() + b"\n", capture_output=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("error: ") and "has characters that are not allowed" in proc.stderr.decode() and "Traceback" not in proc.stderr.decode()


def test_a_tool_that_raises_past_exception_gets_an_error_and_the_server_goes_on(monkeypatch, ov_home):
    """pyo3 panics (tantivy's among them) are BaseExceptions: they used to end the process."""
    import io

    from ov.mcp import server as server_module, tools

    class Panic(BaseException):
        pass

    def panicking(context, name, arguments, record=None, *, stop=None):
        raise Panic("capacity overflow")

    monkeypatch.setattr(tools, "call", panicking)
    out = io.BytesIO()
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "find", "arguments": {"query": "x"}}}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
    stdin = io.BytesIO("".join(json.dumps(line) + "\n" for line in lines).encode())
    assert server_module.Server(out=out).serve(stdin) == 0
    answers = {a["id"]: a for a in map(json.loads, out.getvalue().decode().splitlines())}
    assert answers[1]["result"]["isError"] and "Panic: capacity overflow" in answers[1]["result"]["content"][0]["text"]
    assert answers[2]["result"] == {}


def test_a_call_in_flight_when_stdin_closes_is_answered(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(150):
        (folder / f"note{i:03}.md").write_text(f"# Note {i}\n\nSomething about topic {i}.\n")
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "add_resource", "arguments": {"source": str(folder)}}}
    answers = _raw([INIT, call])
    answer = next(a for a in answers if a["id"] == 7)
    assert "150 added" in answer["result"]["content"][0]["text"]


class _ClosedPipe:
    """Stdout whose reader has gone: every write fails as a closed pipe's does."""

    def __init__(self) -> None:
        self.writes = 0

    def write(self, data: bytes) -> int:
        self.writes += 1
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        pass


REMEMBER = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", "arguments": {"text": "I prefer tabs"}}}
PING = {"jsonrpc": "2.0", "id": 3, "method": "ping"}


@pytest.mark.parametrize(
    "lines, called",
    [
        ([REMEMBER], True),  # answered from a worker thread
        ([[PING, REMEMBER]], True),  # a batch, answered once its call is done
        ([PING, REMEMBER], False),  # answered on the reading thread: the session ends there
        (["{not json", REMEMBER], False),
    ],
    ids=["call", "batch", "ping", "parse error"],
)
def test_a_client_gone_ends_the_session_and_the_call_is_still_logged(ov_home, lines, called):
    import io

    from ov.mcp import server as server_module

    out = _ClosedPipe()
    stdin = io.BytesIO("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode())
    server = server_module.Server(out=out)
    assert server.serve(stdin) == 0 and server.gone
    assert out.writes == 1  # nothing more is tried once the client is known to be gone
    log = ov_home / "logs" / "mcp.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    assert [(r["tool"], r["outcome"], r["client"]) for r in records] == ([("remember", "ok", "gone")] if called else [])
    memories = ov_home / "accounts" / "default" / "user" / "default" / "memories"
    assert any(memories.rglob("*.md")) == called


def test_add_resource_refreshes_an_import_made_with_to_and_names_what_it_left_as_the_user_changed_it(ov, ov_home, tmp_path):
    """(audit22 #01 #02 #15) ``to`` names an earlier import of the same source, which is refreshed;
    without it the import is found; a file the user changed is named, and memories are no target."""
    import io

    from ov.mcp import server as server_module

    source = tmp_path / "notes"
    source.mkdir()
    (source / "a.md").write_text("# A\nalpha\n")
    assert ov("add-resource", str(source), "--to", "viking://resources/team/notes").exit_code == 0
    assert ov("edit", "viking://resources/team/notes/a.md", "--old", "alpha", "--new", "ALPHA").exit_code == 0
    (source / "a.md").write_text("# A\nalpha changed\n")
    (source / "c.md").write_text("# C\ngamma\n")
    lines = [
        _tool_call(1, "add_resource", {"source": str(source), "to": "viking://resources/team/notes"}),
        _tool_call(2, "add_resource", {"source": str(source), "to": "viking://~/memories/entities/web"}),
        _tool_call(3, "add_resource", {"source": str(source)}),
    ]
    out = io.BytesIO()
    assert server_module.Server(out=out).serve(io.BytesIO("".join(json.dumps(line) + "\n" for line in lines).encode())) == 0
    answers = {a["id"]: a["result"] for a in map(json.loads, out.getvalue().decode().splitlines())}
    text = answers[1]["content"][0]["text"]
    assert text.startswith("viking://resources/team/notes: 1 added, 0 updated") and "(commit " in text
    assert "not updated: 'viking://resources/team/notes/a.md' was changed in the store since the last add and at its source too" in text
    assert answers[2]["isError"] and "resources go under viking://resources/ or viking://~/resources/" in answers[2]["content"][0]["text"]
    assert answers[3]["content"][0]["text"].startswith("viking://resources/team/notes: 0 added, 0 updated, 0 removed, 1 unchanged")
    assert ov("read", "viking://resources/team/notes/a.md").stdout == "# A\nALPHA\n"
    assert not (ov_home / "accounts/default/user/default/memories/entities/web").exists()


def test_add_resource_keeps_no_secret_of_its_reason_or_a_failed_url(ov_home, tmp_path):
    """An agent's reason and URL go where the CLI's do: redacted in the store, the answer and the log."""
    import io
    import socket

    from ov.mcp import server as server_module

    token = "ghp_" + "abcdefghijklmnopqrstuvwxyzABCDEF1234"
    source = tmp_path / "handbook"
    source.mkdir()
    (source / "deploy.md").write_text("# Deploy\n\nStaging deploys run with make ship.\n")
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add_resource", "arguments": {"source": str(source), "reason": f"uses deploy key {token}"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "add_resource", "arguments": {"source": f"http://alice:S3cretPassw0rd@127.0.0.1:{port}/x.md?token={token}"}}},
    ]
    out = io.BytesIO()
    assert server_module.Server(out=out).serve(io.BytesIO("".join(json.dumps(line) + "\n" for line in lines).encode())) == 0
    answers = {a["id"]: a["result"] for a in map(json.loads, out.getvalue().decode().splitlines())}
    assert "1 added" in answers[1]["content"][0]["text"] and "redacted" in answers[1]["content"][0]["text"]
    assert answers[2]["isError"] and f"127.0.0.1:{port}/x.md?token=[REDACTED:github_token]" in answers[2]["content"][0]["text"]
    abstract = (ov_home / "accounts/default/resources/handbook/.abstract.md").read_text()
    assert "uses deploy key [REDACTED:github_token]" in abstract
    log = (ov_home / "logs" / "mcp.jsonl").read_text()
    assert "127.0.0.1" in log
    for kept in (out.getvalue().decode(), log, abstract, (ov_home / "accounts/default/resources/.overview.md").read_text()):
        assert token not in kept and "S3cretPassw0rd" not in kept


def test_the_servers_log_is_private_and_so_is_the_home_it_makes(ov_home, umask_022):
    import io

    from ov.mcp import server as server_module

    ls = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ls", "arguments": {"uri": "viking://"}}}
    out = io.BytesIO()
    assert server_module.Server(out=out).serve(io.BytesIO((json.dumps(ls) + "\n").encode())) == 0
    log = ov_home / "logs" / "mcp.jsonl"
    assert [json.loads(line)["tool"] for line in log.read_text().splitlines()] == ["ls"]
    assert [p.stat().st_mode & 0o777 for p in (ov_home, log.parent, log)] == [0o700, 0o700, 0o600]
    assert sorted(p.name for p in ov_home.iterdir()) == ["logs"]  # a read: nothing else


def test_a_lone_surrogate_in_a_tool_or_argument_name_is_refused_and_the_call_logged(ov_home):
    """(found by an audit: the call's log line could not be written, and with the call pending
    when stdin closed the server exited 1 with a traceback)"""
    lines = [
        INIT,
        '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "find", "arguments": {"query": "x", "typ\\ud800": 1}}}',
        '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "find\\ud800", "arguments": {"query": "x"}}}',
    ]
    data = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode()
    proc = subprocess.run([OV, "mcp"], input=data, capture_output=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 0 and proc.stderr == b""
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.decode().splitlines())}
    assert answers[2]["result"]["isError"] and answers[2]["result"]["content"][0]["text"].startswith("an argument name of find is not valid Unicode: it holds a lone surrogate")
    assert answers[3]["error"]["code"] == -32602 and answers[3]["error"]["message"].startswith("unknown tool: 'find\\ud800'")
    records = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    assert sorted((r["tool"], r["outcome"]) for r in records) == [("find", "error"), ("find\ud800", "unknown tool")]


# `ov mcp` with a thread still running when it is done (a library's, say): the process then exits
# through Python's own shutdown, which flushes stdout once more.
THREAD_LEFT_PROBE = (
    "import sys, threading, time\n"
    "threading.Thread(target=time.sleep, args=(600,), daemon=True).start()\n"
    "sys.argv = ['ov', 'mcp']\n"
    "from ov.cli.entry import entry\n"
    "entry()\n"
)


@pytest.mark.parametrize("command", [[OV, "mcp"], [sys.executable, "-c", THREAD_LEFT_PROBE]], ids=["ov mcp", "a thread left"])
def test_a_host_that_quits_ends_the_server_quietly_with_its_calls_done(ov, ov_home, command):
    """The host closes its end of stdout before the answers are written: the process exits 0 with
    nothing on stderr, and the call's commit and log record are there."""
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    proc.stdout.close()  # gone before the answer: its write fails, whatever the timing
    proc.stdin.write((json.dumps(REMEMBER) + "\n").encode())
    proc.stdin.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=60) == 0 and stderr == b""
    (record,) = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    assert (record["tool"], record["outcome"], record["client"]) == ("remember", "ok", "gone")
    assert "ov remember" in ov("snapshot", "log").stdout


# --- stopping, cancelling, lines too long ------------------------------------------------


class _Host:
    """`ov mcp` as a host runs it: messages sent as it goes, answers read one at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([OV, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
        self.answers: dict = {}

    def send(self, *messages) -> None:
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        self.proc.stdin.flush()

    def answer(self, request_id):
        """The answer to ``request_id``, reading on until it comes (the others read meanwhile are kept)."""
        while request_id not in self.answers:
            line = self.proc.stdout.readline()
            assert line, f"no answer to {request_id!r}: {self.proc.stderr.read().decode()}"
            answer = json.loads(line)
            self.answers[answer[0]["id"] if isinstance(answer, list) else answer["id"]] = answer
        return self.answers[request_id]

    def finish(self) -> tuple[list, int, bytes]:
        """Every answer not read yet, the exit code and stderr, once the process has ended (its
        stdin closed)."""
        out, err = self.proc.communicate(timeout=60)
        return [json.loads(line) for line in out.decode().splitlines()], self.proc.returncode, err

    def stop(self, how: str, request_id=2) -> str | None:
        """Stops the call ``request_id`` under way as a host does: ``"SIGTERM"`` to the server, which
        exits 0 at once and answers the call with an error (its text is returned), or a
        notifications/cancelled of the call, which is never answered (None)."""
        if how == "SIGTERM":
            self.proc.send_signal(signal.SIGTERM)
            assert self.proc.wait(timeout=30) == 0
            answer = self.answer(request_id)["result"]
            assert answer["isError"], answer
            return answer["content"][0]["text"]
        self.send(_cancel(request_id))
        return None


@contextmanager
def _stopping(how: str, tool: str, arguments: dict, *servers: LLMServer) -> Iterator[_Host]:
    """A :class:`_Host` initialised and sent the call 2 of ``tool``, which the test stops
    (:meth:`_Host.stop`, ``how``); once the server has ended (stdin closed) and ``servers`` are
    closed: no traceback on stderr, and a cancelled call never answered. ``host.rest`` is what it
    answered that was not read."""
    host = _Host()
    try:
        host.send(INIT, _tool_call(2, tool, arguments))
        host.answer(1)
        yield host
    finally:
        host.rest, _code, stderr = host.finish()
        for server in servers:
            server.close()
    assert stderr == b""
    if how == "cancelled":
        assert 2 not in host.answers and 2 not in {a["id"] for a in host.rest}  # a cancelled call is not answered


def _cancel(request_id) -> dict:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id, "reason": "user pressed Esc"}}


def _tool_call(request_id, name: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def _held_lock(ov_home: Path):
    """The account's write lock, held by the test: a write the server starts waits for it."""
    from ov.store.lock import WriteLock

    lock = WriteLock(ov_home / "state" / "default" / "write.lock", 60)
    lock.acquire()
    return lock


def _until_started(ov_home: Path, before: set) -> None:
    """Until a write of the server has started: waiting for the lock, it has taken a ticket."""
    import time

    queue = ov_home / "state" / "default" / "write.queue"
    deadline = time.monotonic() + 30
    while not set(queue.iterdir()) - before:
        assert time.monotonic() < deadline, "the server's write never started"
        time.sleep(0.01)


def _calls_logged(ov_home: Path) -> dict:
    return {r["tool"]: r for r in _records_logged(ov_home)}


def _records_logged(ov_home: Path) -> list[dict]:
    """The server's log lines, in order (none before its first)."""
    path = ov_home / "logs" / "mcp.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


# A grep the matcher backtracks on until its time limit (GREP_SECONDS): a call that runs for seconds and cannot stop.
SLOW_GREP = ("(a|aa)+$", "a" * 60 + "b\n")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_stop_signal_lets_the_call_running_finish_answers_those_waiting_and_exits_0(ov, ov_home, signum):
    """(found by an audit: SIGINT, a Ctrl-C reaching the host's process group, failed the call
    running and every write queued with "ov failed: RuntimeError: cannot schedule new futures
    after interpreter shutdown", a traceback and exit 1, and committed nothing) A write waiting
    for the lock stops there, nothing written (it waited for the lock's whole timeout before), and
    one queued behind it is not run."""
    assert ov("init").exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    lock = _held_lock(ov_home)
    queued = set((ov_home / "state" / "default" / "write.queue").iterdir())
    host = _Host()
    try:
        host.send(
            INIT,
            _tool_call(2, "write", {"uri": "viking://resources/kept.md", "content": "never written\n"}),
            REMEMBER | {"id": 3},
            PING | {"id": 4},
        )
        assert host.answer(4)["result"] == {}  # every call received
        _until_started(ov_home, queued)
        host.proc.send_signal(signum)
        assert host.proc.wait(timeout=30) == 0  # at once, while the lock is still held
    finally:
        lock.release()
    rest, code, stderr = host.finish()
    assert code == 0 and stderr == b""  # a stop, not a crash: no traceback
    by_id = {a["id"]: a for a in rest}
    stopped = by_id[2]["result"]
    assert stopped["isError"] and stopped["content"][0]["text"].startswith(
        f"the write was stopped while it waited for the store's write lock (ov's MCP server is stopping ({signum.name})): nothing was written"
    )
    refused = by_id[3]["result"]
    assert refused["isError"] and refused["content"][0]["text"].startswith(f"not run: ov's MCP server is stopping ({signum.name})")
    assert ov("snapshot", "log", "--json").json["result"] == head  # neither write landed
    logged = _calls_logged(ov_home)
    assert logged["write"]["outcome"] == "error" and "commit" not in logged["write"]
    assert (logged["remember"]["outcome"], logged["remember"]["stopped"]) == ("not run", signum.name)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_stop_signal_ends_the_server_whose_stdin_stays_open(ov, ov_home, signum):
    """A host that stops its server without closing its stdin (or a terminal closed under it:
    SIGHUP, whose default action ended the server mid-call): the reader still waiting for a line
    does not keep the process alive."""
    host = _Host()
    try:
        host.send(INIT, PING | {"id": 2})
        assert host.answer(2)["result"] == {}
        host.proc.send_signal(signum)
        assert host.proc.wait(timeout=30) == 0  # stdin still open
        assert host.proc.stderr.read() == b""
    finally:
        host.proc.kill()
        host.proc.stdin.close()


def test_a_second_stop_signal_ends_the_server_at_once_and_leaves_nothing_half_done(ov, ov_home):
    assert ov("write", "viking://resources/slow.md", "--content", SLOW_GREP[1]).exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    host = _Host()
    host.send(INIT, _tool_call(2, "grep", {"pattern": SLOW_GREP[0]}), PING | {"id": 3})
    host.answer(3)
    host.proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    host.proc.send_signal(signal.SIGINT)  # the grep still runs: the server does not wait for it
    rest, code, _stderr = host.finish()
    assert code == 130 and rest == []  # the grep was cut short, unanswered
    assert ov("snapshot", "log", "--json").json["result"] == head and ov("fsck").exit_code == 0


@pytest.fixture(scope="module")
def large_folder(tmp_path_factory) -> Path:
    """10,000 files of 4 KB (the most files an add takes): an add of it runs for tens of seconds."""
    folder = tmp_path_factory.mktemp("large") / "docs"
    paragraph = "The deploy pipeline copies each build to staging before it reaches production. " * 50
    for d in range(100):
        (folder / f"d{d:02}").mkdir(parents=True)
        for i in range(100):
            (folder / f"d{d:02}" / f"n{i:02}.md").write_text(f"Note {d}-{i}.\n\n{paragraph}\n")
    return folder


def _one_commit_or_nothing(ov, head: list) -> list[str]:
    """The commands committed since ``head`` (nothing, or the add whole), the store checked."""
    log = ov("snapshot", "log", "--json").json["result"]
    assert ov("fsck").exit_code == 0
    return [e["command"] for e in log[: len(log) - len(head)]]


def test_a_large_add_in_flight_when_stdin_closes_is_stopped_after_the_grace_with_nothing_written(ov, ov_home, large_folder):
    """(found by an audit: the server finished a 10,000-file add, committed and indexed it after
    its client had closed stdin, and only then exited) The calls received have LEFT_GRACE seconds;
    then the add stops (between two files, or waiting for the lock to commit), writes nothing, and
    the process exits."""
    assert ov("init").exit_code == 0
    # The test holds the store's lock, and the add would wait for it longer than the test runs:
    # only the stop can end the add, and the server's exit (host.finish's timeout) waits for it.
    assert ov("config", "set", "store.lock_timeout", "600").exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    lock = _held_lock(ov_home)
    try:
        host = _Host()
        host.send(INIT, _tool_call(2, "add_resource", {"source": str(large_folder)}), _tool_call(3, "remember", {"text": "I prefer tabs"}))
        host.answer(1)
        rest, code, stderr = host.finish()  # stdin closed; stdout still read
    finally:
        lock.release()
    assert code == 0 and stderr == b""
    by_id = {a["id"]: a["result"] for a in rest}
    assert _one_commit_or_nothing(ov, head) == []
    stopping = "ov's MCP server is stopping (stdin closed)"
    said = by_id[2]["content"][0]["text"]
    assert by_id[2]["isError"] and said.startswith(
        (f"add_resource was stopped before its commit: {stopping}; nothing was added", f"the write was stopped while it waited for the store's write lock ({stopping}): nothing was written")
    ), said
    assert by_id[3]["isError"] and by_id[3]["content"][0]["text"].startswith(f"not run: {stopping}")
    assert not (ov_home / "accounts/default/resources/docs").exists()
    logged = _calls_logged(ov_home)
    assert logged["add_resource"]["outcome"] == "error" and "ms" in logged["add_resource"]


@pytest.mark.parametrize("how", ["SIGTERM", "cancelled"])
def test_a_large_add_stops_between_two_files_on_sigterm_or_its_cancellation(ov, ov_home, large_folder, how):
    """SIGTERM, which a host sends a server that outlives its stdin, and a cancellation of the call
    stop an add under way before its commit: nothing is written, and the server goes on (a
    cancellation) or exits (SIGTERM) at once rather than after the add."""
    assert ov("init").exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    with _stopping(how, "add_resource", {"source": str(large_folder)}) as host:
        time.sleep(1)  # the add is under way
        said = host.stop(how)
        if how == "SIGTERM":
            assert said.startswith("add_resource was stopped before its commit: ov's MCP server is stopping (SIGTERM); nothing was added"), said
        else:
            host.send(PING | {"id": 3})
            assert host.answer(3)["result"] == {}
            host.send(_tool_call(4, "write", {"uri": "viking://resources/after.md", "content": "the next write runs\n"}))
            assert host.answer(4)["result"]["content"][0]["text"].startswith("wrote viking://resources/after.md")  # once the add has stopped
    # An add that went on to its end would have committed: the stop was taken before the commit.
    assert _one_commit_or_nothing(ov, head) == ([] if how == "SIGTERM" else ["write"])
    assert not (ov_home / "accounts/default/resources/docs").exists()
    assert _calls_logged(ov_home)["add_resource"]["outcome"] == "error"


@pytest.mark.parametrize("how", ["cancelled", "SIGTERM"])
def test_a_session_commit_waiting_for_its_model_stops_at_once_with_nothing_written(ov, ov_home, monkeypatch, how):
    """(found by an audit: a session_commit whose model was slow ignored its cancellation and the
    server's stop: it waited for the answer, up to llm.timeout, then committed)"""
    assert ov("session", "add", "s1", "--text", "I prefer small pull requests.").exit_code == 0
    llm_server = _slow_model(ov, monkeypatch)
    head = ov("snapshot", "log", "--json").json["result"]
    with _stopping(how, "session_commit", {"session": "s1"}, llm_server) as host:
        _until_asked(llm_server)
        said = host.stop(how)
        if how == "SIGTERM":
            assert said.startswith(
                "the memory extraction was stopped while openai/test-model was answering (ov's MCP server is stopping (SIGTERM))\nhint: nothing was written"
            ), said
        else:
            host.send(_tool_call(3, "write", {"uri": "viking://resources/after.md", "content": "the next write runs\n"}))
            # Writes run one at a time: the next is answered once the session_commit has stopped.
            assert host.answer(3)["result"]["content"][0]["text"].startswith("wrote viking://resources/after.md")
        assert llm_server.wait_hung_up(), "the model's request was not hung up"  # not waited for, up to llm.timeout
    assert _one_commit_or_nothing(ov, head) == ([] if how == "SIGTERM" else ["write"])
    assert not (ov_home / "accounts/default/user/default/sessions/s1/history").exists()  # nothing archived
    assert "I prefer small pull requests." in (ov_home / "accounts/default/user/default/sessions/s1/messages.jsonl").read_text()
    logged = _calls_logged(ov_home)["session_commit"]
    assert logged["outcome"] == "error" and logged.get("cancelled", False) is (how == "cancelled")


def _slow_model(ov, monkeypatch) -> LLMServer:
    """A model server configured as the store's, that answers its first chat in two minutes (within llm.timeout)."""
    server = _model(ov, monkeypatch)
    server.delay(120)
    return server


def _model(ov, monkeypatch) -> LLMServer:
    """A model server configured as the store's (llm.timeout 180 s)."""
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = LLMServer().start()
    config = make_llm_config(server)
    for key, value in (("llm.model", config.model), ("llm.api_base", config.api_base), ("llm.api_key_env", config.api_key_env), ("llm.timeout", "180")):
        assert ov("config", "set", key, value).exit_code == 0
    return server


def _until_asked(llm_server: LLMServer) -> None:
    deadline = time.monotonic() + 30
    while not llm_server.chat_requests():
        assert time.monotonic() < deadline, "the model was never asked"
        time.sleep(0.01)


def _until_logged(ov_home: Path, tool: str, within: float) -> dict:
    """The server's log line of ``tool`` (written when the call ends), waited for up to ``within`` s."""
    deadline = time.monotonic() + within
    while True:
        logged = _calls_logged(ov_home) if (ov_home / "logs" / "mcp.jsonl").exists() else {}
        if tool in logged:
            return logged[tool]
        assert time.monotonic() < deadline, f"{tool} did not end within {within} s"
        time.sleep(0.01)


@pytest.mark.parametrize("how", ["cancelled", "SIGTERM"])
def test_an_add_whose_model_summarises_a_folder_stops_within_a_second_with_nothing_written(ov, ov_home, monkeypatch, tmp_path, how):
    """(found by an audit: the summaries an add_resource has a model write did not take the stop: a
    cancelled add waited for each summary, up to llm.timeout, before it stopped at its next file)"""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "deploy.md").write_text("# Deploy\n\nThe pipeline copies each build to staging first.\n")
    (folder / "rollback.md").write_text("# Rollback\n\nRevert the release tag, then redeploy.\n")
    assert ov("init").exit_code == 0
    llm_server = _slow_model(ov, monkeypatch)
    head = ov("snapshot", "log", "--json").json["result"]
    with _stopping(how, "add_resource", {"source": str(folder)}, llm_server) as host:
        _until_asked(llm_server)  # the add is summarising its folder
        said = host.stop(how)
        if how == "SIGTERM":
            assert re.match(
                r"the overview of viking://resources/docs/? was stopped while openai/test-model was answering \(ov's MCP server is stopping \(SIGTERM\)\)\nhint: nothing was written",
                said,
            ), said
        else:
            assert _until_logged(ov_home, "add_resource", within=60)["outcome"] == "error"
        assert llm_server.wait_hung_up(), "the summary's request was not hung up"  # not the model's two minutes
    assert _one_commit_or_nothing(ov, head) == []
    assert not (ov_home / "accounts/default/resources/docs").exists()
    assert ov("usage", "--json").json["result"]["summary/openai/test-model"] == {"calls": 1, "prompt_tokens": 0, "completion_tokens": 0, "cancelled": 1}


@pytest.mark.parametrize("how", ["cancelled", "SIGTERM"])
def test_a_search_waiting_for_its_query_plan_stops_within_a_second(ov, ov_home, monkeypatch, how):
    """(found by an audit: a search's query plan did not take the stop: a cancelled search, or one
    running when the server was told to stop, waited for the model up to llm.timeout)"""
    assert ov("init").exit_code == 0
    llm_server = _slow_model(ov, monkeypatch)
    with _stopping(how, "search", {"query": "how do we deploy to staging"}, llm_server) as host:
        _until_asked(llm_server)
        said = host.stop(how)
        if how == "SIGTERM":
            # A read has nothing to write: its hint says only to call again, where a write's says it wrote nothing.
            assert said == "the query plan was stopped while openai/test-model was answering (ov's MCP server is stopping (SIGTERM))\nhint: make the call again", said
        else:
            assert _until_logged(ov_home, "search", within=60)["cancelled"] is True
        assert llm_server.wait_hung_up(), "the query plan's request was not hung up"


def test_a_search_says_when_its_query_planner_failed(ov, monkeypatch):
    """(found by an audit: a planner answering HTTP 500 gave no hint in the result) The result
    starts with the line the CLI warns with; the next search does not ask the planner again."""
    assert ov("write", "viking://resources/deploy.md", "--content", "# Deploy\n\nStaging deploys run with make ship.\n").exit_code == 0
    llm_server = _model(ov, monkeypatch)
    with llm_server:
        llm_server.error(500, "model overloaded")

        async def body(client):
            return [_text(await _call(client, "search", {"query": "how do staging deploys run", "mode": mode})) for mode in ("context", "list")]

        failed, again = _with_client(body)
        assert len(llm_server.chat_requests()) == 1
    assert failed.startswith("warning: searched with the deterministic plan: the query planner failed (") and "model overloaded" in failed
    assert failed.splitlines()[1].startswith("[retrieval: ") and "make ship" in failed
    # "N s ago": the second search follows at once, but a loaded machine can put a second between them.
    assert re.match(r"warning: searched with the deterministic plan: the query planner failed [0-9] s ago \(", again), again
    assert "viking://resources/deploy.md" in again


def test_a_remember_waiting_for_its_model_stops_within_a_second_with_nothing_written(ov, ov_home, monkeypatch):
    """(found with the summaries: remember's model, which picks the memory's type and file, did not
    take the stop either)"""
    assert ov("init").exit_code == 0
    llm_server = _slow_model(ov, monkeypatch)
    head = ov("snapshot", "log", "--json").json["result"]
    # A text the rules do not read: the model files it.
    with _stopping("cancelled", "remember", {"text": "Atlas merges are squashed on Fridays"}, llm_server) as host:
        _until_asked(llm_server)
        host.stop("cancelled")
        assert _until_logged(ov_home, "remember", within=60)["outcome"] == "error"
        assert llm_server.wait_hung_up(), "remember's request to the model was not hung up"
    assert host.rest == []
    assert _calls_logged(ov_home)["remember"]["cancelled"] is True
    assert _one_commit_or_nothing(ov, head) == []


def test_a_cancelled_call_not_yet_started_is_never_run_and_one_waiting_for_the_lock_stops_unanswered(ov, ov_home):
    """(found by an audit: notifications/cancelled was ignored, and a write the user had cancelled
    while it waited in the queue was committed later; one cancelled while it waited for the store's
    lock waited on, for the lock's whole timeout, and committed)"""
    assert ov("init").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "600").exit_code == 0
    lock = _held_lock(ov_home)
    queued = set((ov_home / "state" / "default" / "write.queue").iterdir())
    host = _Host()
    try:
        host.send(INIT, _tool_call(2, "write", {"uri": "viking://resources/running.md", "content": "one commit or nothing\n"}))
        host.answer(1)
        _until_started(ov_home, queued)
        host.send(
            _tool_call(3, "write", {"uri": "viking://resources/waiting.md", "content": "cancelled in the queue\n"}),
            [_tool_call(5, "remember", {"text": "I prefer tabs"}), PING | {"id": 6}],  # a batch: its answers without the one cancelled
            _cancel(3),
            _cancel(5),
            _cancel(2),
            _cancel(99),  # not a call of this session: ignored
            PING | {"id": 4},
        )
        assert host.answer(6) == [{"jsonrpc": "2.0", "id": 6, "result": {}}]
        assert host.answer(4)["result"] == {}
        # The lock is held on, and waited for longer than the test runs: only the cancellation ends the write.
        deadline = time.monotonic() + 60
        while not any(r["tool"] == "write" and r.get("cancelled") for r in _records_logged(ov_home)):
            assert time.monotonic() < deadline, "the write cancelled while it waited for the lock did not stop"
            time.sleep(0.01)
    finally:
        lock.release()
    rest, code, stderr = host.finish()
    assert code == 0 and stderr == b"" and rest == []  # neither call is answered
    log = ov("snapshot", "log", "--json").json["result"]
    assert [e["subject"] for e in log] == ["ov init: account default"]
    assert ov("read", "viking://resources/running.md").exit_code != 0 and ov("read", "viking://resources/waiting.md").exit_code != 0
    logged = _calls_logged(ov_home)
    assert logged["write"]["outcome"] == "error" and logged["write"]["cancelled"] is True
    assert logged["remember"]["outcome"] == "cancelled"


def test_a_line_too_long_is_read_to_its_end_and_answered_once_with_its_id():
    """(found by an audit: a request over 64 MiB was read in 64 MiB pieces, each answered as a
    parse error with id null, and the client waited for its answer for ever)"""
    from ov.mcp.server import MAX_LINE

    content = b"y" * MAX_LINE
    id_first = b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"write","arguments":{"uri":"viking://resources/x.md","content":"' + content + b'"}}}'
    id_last = b'{"method":"tools/call","params":{"name":"write","arguments":{"id":1,"content":"' + content + b'"}},"jsonrpc":"2.0","id":7}'  # as the TypeScript SDK writes it
    data = b"\n".join([json.dumps(INIT).encode(), id_first, id_last, json.dumps(PING).encode()]) + b"\n"
    proc = subprocess.run([OV, "mcp"], input=data, capture_output=True, timeout=120, env=dict(os.environ), check=False)
    assert proc.returncode == 0, proc.stderr
    answers = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert [a["id"] for a in answers] == [1, "big", 7, 3]
    for answer, size in zip(answers[1:3], (len(id_first), len(id_last))):
        assert answer["error"] == {"code": -32600, "message": f"the message is {size:,} bytes long, longer than the 67,108,864 bytes (64 MiB) a line may hold: it was not read"}
    assert answers[3]["result"] == {}


def test_lines_are_read_in_bounded_memory_and_a_line_too_long_keeps_its_ends():
    import io

    from ov.mcp.server import CHUNK, ENDS_KEPT, TooLong, read_lines

    long = b'{"jsonrpc": "2.0", "id": 5, "params": "' + b"x" * (3 * CHUNK) + b'"}'
    data = b"short\n" + long + b"\r\n\nlast without newline"
    lines = list(read_lines(io.BytesIO(data).read, limit=2 * CHUNK))
    assert lines[0] == b"short" and lines[2:] == [b"", b"last without newline"]
    (too_long,) = [line for line in lines if isinstance(line, TooLong)]
    assert too_long.size == len(long) + 1  # its "\r" counted
    assert too_long.head == long[:ENDS_KEPT] and too_long.tail == (long + b"\r")[-ENDS_KEPT:]
    assert too_long.request_id() == 5
    exactly = b"z" * (2 * CHUNK)
    assert list(read_lines(io.BytesIO(exactly + b"\n").read, limit=2 * CHUNK)) == [exactly]  # the limit itself is read


@pytest.mark.parametrize(
    ("head", "tail", "request_id"),
    [
        (b'{"jsonrpc": "2.0", "id": "a\\"b", "method": "tools/call", "params": {"x', b'"}}', 'a"b'),
        (b'{"method": "tools/call", "params": {"arguments": {"id": 1, "text": "', b'x"}}, "jsonrpc": "2.0", "id": 7}\r', 7),  # the inner "id" is not the request's
        (b'{"method": "tools/call", "params": {"text": "', b'x \\"id\\": 8}"}}', None),  # "id" inside a string
        (b'{"params": {"text": "', b'x"}, "id": [1]}', None),  # not an id JSON-RPC allows
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"x": "', b'"}]', None),  # a batch: one id would not do
        (b'{"id": null, "method": "ping", "params": "', b'"}', None),
    ],
)
def test_the_id_of_a_line_too_long_is_read_from_where_a_request_keeps_it(head, tail, request_id):
    from ov.mcp.server import TooLong

    assert TooLong(head, tail, 1 << 30).request_id() == request_id


# `ov mcp` in a process that prints, as it exits, the top-level modules it imported (on stderr).
MODULES_PROBE = (
    "import sys, json, atexit\n"
    "atexit.register(lambda: print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr))\n"
    "sys.argv = ['ov', 'mcp']\n"
    "from ov.cli.entry import entry\n"
    "entry()\n"
)


def test_the_server_answers_before_importing_the_heavy_stack():
    probe = MODULES_PROBE
    lines = json.dumps(INIT) + "\n" + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}) + "\n"
    proc = subprocess.run([sys.executable, "-c", probe], input=lines.encode(), capture_output=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 0 and len(proc.stdout.decode().splitlines()) == 2
    loaded = set(json.loads(proc.stderr.decode().strip().splitlines()[-1]))
    assert not loaded & {"typer", "click", "rich", "pydantic", "dulwich", "tantivy", "numpy", "litellm", "mcp", "yaml"}, sorted(loaded)


# --- the tools ------------------------------------------------------------------------------


def test_every_tool_does_what_its_command_does(ov, tmp_path):
    source = tmp_path / "handbook"
    source.mkdir()
    (source / "deploy.md").write_text("# Deploy\n\nStaging deploys run with make ship.\nProduction waits for review.\n")

    async def body(client):
        out = {}
        out["remember"] = _text(await _call(client, "remember", {"text": "I prefer tabs over spaces"}))
        out["add"] = _text(await _call(client, "add_resource", {"source": str(source), "reason": "team docs"}))
        out["find"] = _text(await _call(client, "find", {"query": "staging deploys", "limit": 3}))
        out["search"] = _text(await _call(client, "search", {"query": "how do staging deploys run", "budget": 400}))
        out["search_tight"] = _text(await _call(client, "search", {"query": "how do staging deploys run", "budget": 3}))
        out["search_list"] = _text(await _call(client, "search", {"query": "tabs", "mode": "list"}))
        out["read"] = _text(await _call(client, "read", {"uris": ["viking://resources/handbook/deploy.md"], "lines": "3:3"}))
        out["ls"] = _text(await _call(client, "ls", {"uri": "viking://resources"}))
        out["tree"] = _text(await _call(client, "tree", {"uri": "viking://resources", "depth": 2}))
        out["stat"] = _text(await _call(client, "stat", {"uri": "viking://resources/handbook/deploy.md"}))
        out["grep"] = _text(await _call(client, "grep", {"pattern": "make \\w+", "uri": "viking://resources"}))
        out["glob"] = _text(await _call(client, "glob", {"pattern": "**/*.md", "uri": "viking://resources"}))
        out["write"] = _text(await _call(client, "write", {"uri": "viking://resources/notes/todo.md", "content": "- ship it\n"}))
        out["edit"] = _text(await _call(client, "edit", {"uri": "viking://resources/notes/todo.md", "old": "ship", "new": "test"}))
        out["health"] = _text(await _call(client, "health", {}))
        return out

    out = _with_client(body)
    assert out["remember"].startswith("remembered in viking://user/default/memories/preferences/")
    assert "viking://resources/handbook: 1 added" in out["add"]
    assert out["find"].splitlines()[1].startswith("viking://resources/handbook/deploy.md")  # after how it was answered
    assert "make ship" in out["search"] and "<context " in out["search"]
    # (found by an audit: a budget too small for any result read "nothing in the store matches")
    assert out["search_tight"].endswith("matched, but none fits a budget of 3 tokens: ask with a larger `budget`, or use mode list")
    assert "preferences" in out["search_list"]
    assert out["read"] == "=== viking://resources/handbook/deploy.md (lines 3-3 of 4)\nStaging deploys run with make ship."
    assert "viking://resources/handbook/" in out["ls"]
    assert "handbook/" in out["tree"] and "deploy.md" in out["tree"]
    # The command's answer, provenance included (found by an audit: the tool left out `source`).
    stat = json.loads(out["stat"])
    assert stat == ov("stat", "viking://resources/handbook/deploy.md", "--json").json["result"]
    assert stat["uri"] == "viking://resources/handbook/deploy.md" and stat["source"]["uri"] == str(source / "deploy.md") and stat["source"]["lines"] == [1, 4]
    assert out["grep"] == "viking://resources/handbook/deploy.md:3: Staging deploys run with make ship."
    assert "viking://resources/handbook/deploy.md" in out["glob"]
    assert out["write"].startswith("wrote viking://resources/notes/todo.md (commit ")
    assert out["edit"].startswith("replaced 1 occurrence in viking://resources/notes/todo.md (commit ")
    assert "store" in out["health"] and "index" in out["health"]
    # One commit per mutating call, named for what it did.
    log = ov("snapshot", "log", "--json").json["result"]
    commands = [entry["command"] for entry in log]
    assert commands[:4] == ["edit", "write", "add-resource", "remember"]


def test_find_leaves_out_the_callers_session_and_gives_a_past_session_one_place(store_day, ov, ov_home):
    # An audit: "which indentation do I use for YAML" (limit 5) gave a past session twice (its L1
    # and its L0) and the caller's own question and "working on it" above the answer.
    def say(sid, *turns):
        for role, text in turns:
            assert ov("session", "add", sid, "--role", role, "--text", text).exit_code == 0

    say("old", ("user", "I now prefer 4-space indentation in YAML files"), ("assistant", "Noted: 4-space indentation in YAML files."))
    assert ov("commit", "old").exit_code == 0
    say("live", ("user", "which indentation do I use for YAML files?"), ("assistant", "(working on it) which indentation for YAML files"))
    assert ov("remember", "I prefer 2-space indentation in YAML config files").exit_code == 0
    from ov.hosts import hooklog

    hooklog.append(ov_home, {"event": "session-start", "session": "cc-not-captured-yet"})  # as the hook logs it

    async def body(client):
        asked = {"query": "which indentation do I use for YAML files", "limit": 5}
        found = [_results(_text(await _call(client, "find", {**asked, **extra}))) for extra in ({}, {"session": "live"})]
        # Named by the session-start fence before its first prompt is captured: nothing to leave out yet.
        fresh = await _call(client, "search", {**asked, "session": "cc-not-captured-yet", "mode": "list"})
        return [*found, fresh]

    anyone, mine, fresh = _with_client(body)
    assert not fresh.is_error and "/sessions/old/" in _text(fresh)
    heads = [line.split()[0] for line in mine.splitlines() if line.startswith("viking://")]
    summaries = [head for head in heads if head.endswith("/history/archive_001")]
    assert summaries == ["viking://user/default/sessions/old/history/archive_001"]  # once: its better summary
    assert any("/sessions/old/history/" in head for head in heads) and not any("/sessions/live/" in head for head in heads)
    assert "/sessions/live/messages.jsonl" in anyone  # without `session`, ov cannot tell whose it is
    # A memory says the day it was last updated, as a message says its time.
    assert re.search(rf"preferences/default/\S+\.md:1-1  \[memory, score [0-9.]+, {store_day:%Y-%m-%d}\]", mine), mine


def test_stat_of_a_memory_shows_when_it_was_made_and_changed_and_from_what(ov):
    assert ov("remember", "I prefer tabs over spaces").exit_code == 0
    uri = ov("ls", "-r", "viking://user/default/memories/preferences", "--json").json["result"][-1]["uri"]

    async def body(client):
        return json.loads(_text(await _call(client, "stat", {"uri": uri})))

    stat = _with_client(body)
    assert stat == ov("stat", uri, "--json").json["result"]
    assert stat["memory_type"] == "preferences" and stat["sources"] == ["ov remember"]
    assert stat["created_at"].endswith("Z") and stat["updated_at"] >= stat["created_at"]


def test_forget_and_session_commit(ov):
    assert ov("session", "add", "s1", "--text", "I prefer small pull requests.").exit_code == 0

    async def body(client):
        committed = _text(await _call(client, "session_commit", {"session": "s1"}))
        remembered = _text(await _call(client, "remember", {"text": "My editor is Helix"}))
        uri = remembered.split(" in ")[1].split(" (")[0]
        forgot = _text(await _call(client, "forget", {"uri": uri}))
        empty = _text(await _call(client, "session_commit", {"session": "s1"}))
        return committed, forgot, empty

    committed, forgot, empty = _with_client(body)
    assert committed.startswith("archived 1 messages into viking://user/default/sessions/s1/history/archive_001")
    assert forgot.startswith("forgot viking://user/default/memories/") and "to undo, run `ov snapshot restore " in forgot
    assert empty == "nothing to commit in viking://user/default/sessions/s1"


def test_health_reports_a_damaged_index_as_doctor_does(ov, ov_home):
    import os as _os

    from ov.mcp import tools

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0
    assert ov("find", "marmalade").exit_code == 0
    context = tools.Context.resolve({}, _os.environ)
    assert "\nok   index: " in tools.call(context, "health", {})["content"][0]["text"]
    for path in (ov_home / "state" / "default" / "index").glob("vectors-*"):
        path.write_bytes(b"garbage")
    lines = tools.call(context, "health", {})["content"][0]["text"].splitlines()
    says = "warn index: damaged, the next search rebuilds it: the vector index does not load: vectors-000000.hnsw has 7 bytes, fewer than hnswlib's header"
    assert f"{says} (fix: run `ov reindex` now to avoid the wait)" in lines  # the reason too, not only that they do not load


def test_health_and_find_read_the_vectors_once_a_generation(ov, ov_home, monkeypatch):
    """Past the flat copy a process that has numpy (the server) reads hnswlib's file, and each
    `health` call read it whole again (160 ms at 53,000 vectors): the server keeps it while the
    generation's files stay as they are, and reads it again once they change."""
    from ov.index.vectors import VectorIndex
    from ov.mcp import tools

    monkeypatch.setattr("ov.index.vectors.EXACT_COMPONENTS", 0)  # past the flat copy
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0
    assert ov("find", "marmalade").exit_code == 0
    loads: list[str] = []
    load = VectorIndex.load.__func__

    def counting(cls, path, *args, **kwargs):
        loads.append(Path(path).name)
        return load(cls, path, *args, **kwargs)

    monkeypatch.setattr(VectorIndex, "load", classmethod(counting))
    context = tools.Context.resolve({}, os.environ)
    for _ in range(3):
        assert "\nok   index: " in tools.call(context, "health", {})["content"][0]["text"]
    assert "viking://resources/jam.md" in tools.call(context, "find", {"query": "marmalade"})["content"][0]["text"]
    assert loads == ["vectors-000000.hnsw"]
    # An update small enough for a delta leaves the generation as it is: still held.
    assert ov("write", "viking://resources/tea.md", "--content", "Earl Grey is flavoured with bergamot.\n").exit_code == 0
    assert "viking://resources/tea.md" in tools.call(context, "find", {"query": "bergamot"})["content"][0]["text"]
    assert "\nok   index: " in tools.call(context, "health", {})["content"][0]["text"]
    assert loads == ["vectors-000000.hnsw"]
    assert ov("reindex").exit_code == 0  # a new build: its generation is read once more
    loads.clear()
    for _ in range(2):
        assert "\nok   index: " in tools.call(context, "health", {})["content"][0]["text"]
    assert loads == ["vectors-000000.hnsw"]



def test_health_says_what_to_do_with_the_tools_a_model_has(ov, ov_home):
    """(health gave no fix at all, and `ov doctor`'s fixes and hints name commands, `ov find` and
    `ov doctor`, that a model calls as the `find` and `health` tools)"""
    from ov.mcp import tools

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0  # not searched: no index yet
    lines = tools.call(tools.Context.resolve({}, os.environ), "health", {})["content"][0]["text"].splitlines()
    assert "warn index: not built yet (fix: the first `find {\"query\": …}` builds it, or run `ov reindex`)" in lines, lines
    assert not any("(fix:" in line for line in lines if line.startswith("ok ")), lines
    doctor = {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}
    assert doctor["index"]["fix"] == "the first `ov find QUERY` builds it, or run `ov reindex`"


def test_health_reports_a_config_value_ov_cannot_use_as_doctor_does(ov, ov_home):
    import os as _os

    from ov.mcp import tools

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    with (ov_home / "config.yaml").open("a") as f:
        f.write("retrieval:\n  candidates: 20000\n")  # as an older ov let it be set
    context = tools.Context.resolve({}, _os.environ)
    lines = tools.call(context, "health", {})["content"][0]["text"].splitlines()
    assert any(line.startswith("fail config: ") and "retrieval.candidates = 20000: must be at most 10000" in line for line in lines), lines

def test_health_reports_a_config_that_does_not_load_and_checks_the_rest_as_doctor_does(ov, ov_home):
    """(found by an audit: `health` answered only a tool error, the config's, where `ov doctor`
    reports it and every other check)"""
    async def body(client):
        return await _call(client, "health", {})

    assert ov("init").exit_code == 0
    (ov_home / "config.yaml").write_text("store: [unclosed\n")
    result = _with_client(body)
    lines = _text(result).splitlines()
    assert not result.is_error
    assert lines[0].startswith(f"fail config: {ov_home / 'config.yaml'} does not parse as YAML at line 2") and lines[0].endswith("(fix: fix the file or remove it)")
    checks = [line.split(":")[0].split()[-1] for line in lines]
    doctor = [c["name"] for c in ov("doctor", "--json").json["result"]["checks"]]
    assert checks == doctor[: len(checks)] and {"store", "index", "embedder"} <= set(checks)
    assert any(line.startswith("ok   store: ") for line in lines)


def test_remembering_a_memory_again_says_what_the_command_says(ov):
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    first = tools.call(context, "remember", {"text": "I prefer vim"})
    again = tools.call(context, "remember", {"text": "I prefer vim"})
    assert first["content"][0]["text"].startswith("remembered in viking://user/default/memories/preferences/")
    assert not again.get("isError")
    assert again["content"][0]["text"] == ov("remember", "I prefer vim").stdout.strip() == "already remembered: nothing changed, no commit"
    said = ov("remember", "My shell is zsh").stdout.strip()  # where it went and the commit, as the tool says it
    head = ov("snapshot", "log", "--json").json["result"][0]["commit"]
    assert said == f"remembered in viking://user/default/memories/profile.md (commit {head[:10]})"


def test_remember_files_what_holds_in_this_repo_under_the_projects_workspace(ov, ov_home, tmp_path):
    """(audit multi) `remember` of "I prefer tabs in this repo." through a server the host started
    in project A went to the user's own memories, so every project's session start showed it; the
    same words said in a hooked session in A are A's. The server now acts as A's workspace peer."""
    from ov.hosts.runtime import run, workspace_peer

    alpha, beta = tmp_path / "alpha", tmp_path / "beta"
    for project in (alpha, beta):
        (project / ".git").mkdir(parents=True)

    async def body(client):
        return [_text(await _call(client, "remember", {"text": text})) for text in ("I prefer tabs in this repo.", "My editor is Helix.")]

    async def run_in(folder):
        async with Client(StdioServerParameters(command=OV, args=["mcp"], env=dict(os.environ), cwd=str(folder))) as client:
            return await body(client)

    (alpha / "src").mkdir()
    tabs, editor = asyncio.run(run_in(alpha / "src"))  # a host started in a folder of the project
    assert tabs.startswith(f"remembered in viking://user/default/peers/{workspace_peer(str(alpha))}/memories/preferences/")
    assert editor.startswith("remembered in viking://user/default/memories/profile.md")

    def started(folder) -> str:
        answer = run("claude", "session-start", json.dumps({"session_id": "s", "cwd": str(folder), "source": "startup"}).encode())
        return json.loads(answer)["hookSpecificOutput"]["additionalContext"]

    assert "tabs" in started(alpha) and "Helix" in started(alpha)
    assert "tabs" not in started(beta) and "Helix" in started(beta)


def test_an_mcp_server_names_a_workspace_only_where_its_folder_says_which():
    from ov.identity import server_workspace, workspace_peer

    here = Path.cwd()
    assert server_workspace(str(here), {}) == workspace_peer(str(here))  # this repository
    assert server_workspace("/", {}) is None  # a host that starts its servers anywhere: no git work tree
    plugin = {"PLUGIN_ROOT": str(here)}  # an Agent Plugins package's server starts in its own folder
    assert server_workspace(str(here), plugin) is None and server_workspace(str(here / "tests"), plugin) is None


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("find", {}, "find needs `query`"),
        ("find", {"query": 7}, "`query` of find must be a string, not int"),
        ("find", {"query": "x", "limit": 0}, "must be 1 or more"),
        ("find", {"query": "x", "limit": 2**32}, "must be at most 1000"),  # aborted the server on a 206 GB allocation
        ("search", {"query": "x", "limit": 10**18}, "must be at most 1000"),  # a tantivy panic the server did not catch
        ("find", {"query": "x", "types": ["bogus"]}, "unknown type 'bogus'"),
        ("read", {"uris": ["viking://resources/missing.md"]}, "does not exist"),
        ("read", {"uris": ["viking://../../etc/passwd"]}, "invalid"),
        ("write", {"uri": "viking://resources/a.md", "content": "x", "mode": "overwrite"}, "unknown mode"),
        ("edit", {"uri": "viking://resources/nope.md", "old": "a", "new": "b"}, "does not exist"),
        ("grep", {"pattern": "("}, "pattern"),
        ("ls", {"uri": 3}, "must be a string"),
        # (found by an audit: an argument the tool does not take was dropped, and with it the filter asked for)
        ("find", {"query": "x", "type": "memory"}, "the `find` tool takes no `type`; did you mean `types`?\nhint: `find` takes query, session, uri, limit, types (see its inputSchema)"),
        ("grep", {"pattern": "x", "ignoreCase": True}, "the `grep` tool takes no `ignoreCase`; did you mean `ignore_case`?\nhint: `grep` takes pattern, uri, ignore_case, limit"),
        ("health", {"verbose": True}, "the `health` tool takes no `verbose`\nhint: `health` takes no arguments"),
    ],
)
def test_bad_arguments_are_tool_errors_with_ovs_message(ov_home, name, arguments, says):
    async def body(client):
        return await _call(client, name, arguments)

    result = _with_client(body)
    assert result.is_error and says in _text(result), _text(result)


def test_a_call_with_an_argument_the_tool_does_not_take_does_nothing(ov, ov_home):
    """(found by an audit: `remember` with `"user": "alice"` wrote to this server's user and said it
    had remembered; `find` with `type` ranked every type)"""
    import os as _os

    from ov.mcp import tools

    assert all(t["inputSchema"]["additionalProperties"] is False for t in tools.definitions())
    assert ov("init").exit_code == 0
    head = ov("snapshot", "log", "--json").json["result"]
    context = tools.Context.resolve({}, _os.environ)
    refused = tools.call(context, "remember", {"text": "My editor is Helix", "user": "alice"})
    assert refused.get("isError") and refused["content"][0]["text"] == "the `remember` tool takes no `user`\nhint: `remember` takes text, type (see its inputSchema)"
    assert ov("snapshot", "log", "--json").json["result"] == head  # nothing committed, for anyone
    assert not list(ov_home.rglob("profile.md"))
    assert not tools.call(context, "remember", {"text": "My editor is Helix", "type": None}).get("isError")  # a null is an argument left out


def test_an_unknown_tool_is_a_protocol_error_and_the_server_goes_on():
    async def body(client):
        with pytest.raises(Exception, match="unknown tool"):
            await _call(client, "drop_database", {})
        return _text(await _call(client, "health", {}))

    assert "store" in _with_client(body)


def test_concurrent_calls_are_all_answered(ov):
    for i in range(5):
        assert ov("write", f"viking://resources/n{i}.md", "--content", f"note number {i} about gardens\n").exit_code == 0

    async def body(client):
        calls = [_call(client, "find", {"query": f"note number {i}"}) for i in range(6)]
        calls += [_call(client, "remember", {"text": f"I prefer color scheme {i}"}) for i in range(3)]
        return await asyncio.gather(*calls)

    results = _with_client(body)
    assert len(results) == 9 and not any(r.is_error for r in results), [_text(r) for r in results]
    prefs = ov("ls", "-r", "viking://user/default/memories", "--json").json["result"]
    assert sum("color" in e["uri"] for e in prefs) >= 1


def test_calls_that_change_the_store_land_in_the_order_they_were_sent(ov):
    # (found by an audit: three `remember`s sent together left any of the three editors)
    calls = [{"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "remember", "arguments": {"text": f"My editor is {e}"}}}
             for n, e in enumerate(["Vim", "Emacs", "Helix", "Zed", "Kakoune"], start=2)]
    calls.insert(3, {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "find", "arguments": {"query": "editor"}}})
    answers = _raw([INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls])
    assert sorted(a["id"] for a in answers) == [1, 2, 3, 4, 5, 6, 99] and not any(a.get("error") for a in answers)
    assert ov("read", "viking://~/memories/profile.md").stdout.startswith("- Editor: Kakoune\n")
    log = [c["subject"] for c in ov("snapshot", "log", "--json").json["result"]]
    assert log[:5] == ["ov remember viking://user/default/memories/profile.md"] * 5


def test_writes_by_other_processes_are_seen_on_the_next_call(ov):
    async def body(client):
        before = _text(await _call(client, "find", {"query": "marmalade"}))
        assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0
        after = _text(await _call(client, "find", {"query": "marmalade"}))
        return before, after

    before, after = _with_client(body)
    assert _results(before).startswith("no results") and _results(after).startswith("viking://resources/jam.md")


def test_find_shows_a_text_once_and_names_its_other_places(ov):
    for name in ("a", "b"):
        assert ov("write", f"viking://resources/{name}/README.md", "--content", "# Jam\n\nMarmalade is made from oranges.\n").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "# Jam\n\nMarmalade keeps for a year.\n").exit_code == 0

    async def body(client):
        return _text(await _call(client, "find", {"query": "marmalade oranges", "limit": 2}))

    lines = _with_client(body).splitlines()
    results = [line for line in lines if line.startswith("viking://")]
    assert [r.split("  ")[0] for r in results] == ["viking://resources/a/README.md:1-3", "viking://resources/jam.md:1-3"]
    assert "  (also at 1 other place: viking://resources/b/README.md:1-3)" in lines
    assert lines.index("  (also at 1 other place: viking://resources/b/README.md:1-3)") < lines.index(results[1])


def test_find_reads_a_pasted_traceback_as_the_prompt_hook_does(ov):
    # (found by an audit: the tool ranked the frames' words, and named the files of installed
    # packages' frames as well as the user's)
    paste = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/.venv/lib/python3.11/site-packages/click/core.py", line 1078, in main\n    rv = self.invoke(ctx)\n'
        '  File "/home/me/src/shop/shop/cart.py", line 2, in checkout\n    total = price(items)\n'
        '  File "/home/me/src/shop/shop/pricing.py", line 2, in price\n    return sum(item.cost for item in items)\n'
        "AttributeError: 'dict' object has no attribute 'cost'\n"
    )
    files = {
        "shop/pricing.py": "def price(items):\n    return sum(item.cost for item in items)\n",
        "shop/cart.py": "def checkout(items):\n    total = price(items)\n    return total\n",
        "vendor/click/core.py": "class Command:\n    def main(self, ctx):\n        rv = self.invoke(ctx)\n        return rv\n",
    }
    for path, text in files.items():
        assert ov("write", f"viking://resources/{path}", "--content", text).exit_code == 0

    async def body(client):
        return _text(await _call(client, "find", {"query": f"this fails, why?\n{paste}", "limit": 3}))

    results = [line.split("  ")[0] for line in _results(_with_client(body)).splitlines() if line.startswith("viking://")]
    assert sorted(results[:2]) == ["viking://resources/shop/cart.py:1-3", "viking://resources/shop/pricing.py:1-2"], results



def test_find_reads_a_long_query_to_its_first_two_thousand_characters_after_focusing_it(ov):
    """(found by an audit: a 90 KB query took find 1.4 s, every word of it ranked; search cut it
    to 2,000 characters) find cuts it as search does, after a pasted traceback is focused: its
    error is at its end."""
    assert ov("write", "viking://resources/zebra.md", "--content", "# Zebra\n\nZebra crossings are painted white.\n").exit_code == 0
    assert ov("write", "viking://resources/pricing.py", "--content", "def price(items):\n    raise OverflowError('quokka total')\n").exit_code == 0
    filler = " ".join(f"filler{i}" for i in range(10_000))  # 90 KB of words no file holds
    frames = "".join(f'  File "/srv/app/mod{i}.py", line {i}, in f{i}\n    g{i}()\n' for i in range(1500))
    traceback = f"why?\nTraceback (most recent call last):\n{frames}OverflowError: quokka total\n"
    assert len(filler) > 80_000 and len(traceback) > 80_000

    async def body(client):
        queries = (f"{filler} zebra crossings", filler, f"zebra crossings {filler}", traceback)
        return [_results(_text(await _call(client, "find", {"query": query}))) for query in queries]

    past_the_cut, without, within, focused = _with_client(body)
    assert past_the_cut == without  # its last words are past the 2,000 characters read: not ranked
    assert within.startswith("viking://resources/zebra.md")
    assert focused.startswith("viking://resources/pricing.py")


def test_the_registered_identity_is_the_one_tools_act_as(ov):
    async def body(client):
        return _text(await _call(client, "remember", {"text": "I prefer early meetings"}))

    assert "viking://user/dana/memories/" in _with_client(body, "--user", "dana")


def test_the_server_acts_for_one_user_and_opens_no_other_users_space(ov, ov_home):
    """(found by an audit: bob's server could grep, read, edit and forget alice's memories)"""
    import os as _os

    from ov.mcp import tools

    assert ov("remember", "I prefer the zebra diet plan", "--user", "alice").exit_code == 0
    assert ov("session", "add", "s1", "--text", "zebra: my therapist appointment is on Friday", "--user", "alice").exit_code == 0
    assert ov("write", "viking://user/alice/peers/dr/memories/note.md", "--content", "zebra peer\n").exit_code == 0
    assert ov("write", "viking://resources/zoo.md", "--content", "zebra stripes\n").exit_code == 0
    memory = ov("ls", "-r", "viking://user/alice/memories", "--simple", "--user", "alice").stdout.split()[-1]
    head = _git_head(ov_home)
    bob = tools.Context.resolve({"user": "bob"}, _os.environ)

    def call(name: str, arguments: dict) -> tuple[bool, str]:
        result = tools.call(bob, name, arguments)
        return bool(result.get("isError")), result["content"][0]["text"]

    peer = "viking://user/alice/peers/dr/memories/note.md"
    refused = [
        ("read", {"uris": [memory]}),
        ("ls", {"uri": "viking://user/alice"}),
        ("tree", {"uri": "viking://user/alice/sessions"}),
        ("stat", {"uri": memory}),
        ("grep", {"pattern": "zebra", "uri": "viking://user/alice"}),
        ("glob", {"pattern": "viking://user/alice/**"}),
        ("glob", {"pattern": "**", "uri": "viking://user/alice/peers"}),
        ("find", {"query": "zebra", "uri": "viking://user/alice"}),
        ("search", {"query": "zebra", "uri": "viking://user/alice/sessions/s1"}),
        ("forget", {"uri": memory}),
        ("edit", {"uri": memory, "old": "zebra", "new": "horse"}),
        ("write", {"uri": peer, "content": "overwritten"}),
        ("write", {"uri": "viking://user/alice/memories/new.md", "content": "planted", "mode": "create"}),
        ("add_resource", {"source": str(ov_home / "config.toml"), "to": "viking://user/alice/resources/x"}),
    ]
    for name, arguments in refused:
        error, text = call(name, arguments)
        assert error and "another user's space ('alice'); this server acts for user 'bob'" in text, (name, text)
    assert _git_head(ov_home) == head, "a refused call commits nothing"
    # Of several files, the other user's is named with the refusal and the shared one is read.
    error, text = call("read", {"uris": ["viking://resources/zoo.md", peer]})
    assert not error and text.startswith("=== viking://resources/zoo.md\nzebra stripes\n") and "zebra peer" not in text
    assert f"=== {peer} (not read)\nerror: {peer} is in another user's space ('alice'); this server acts for user 'bob'" in text
    assert "zebra diet plan" in ov("read", memory).stdout and ov("read", peer).stdout == "zebra peer\n", "nothing was changed"
    # Scope-wide walks leave alice's space out, as find's ranking does; bob's own and shared files stay.
    assert call("grep", {"pattern": "zebra"}) == (False, "viking://resources/zoo.md:1: zebra stripes")
    assert call("grep", {"pattern": "zebra", "uri": "viking://user"}) == (False, "no line matches")
    assert call("glob", {"pattern": "viking://user/*/memories/**"}) == (False, "no path matches")
    assert call("ls", {"uri": "viking://user"}) == (False, "(empty)")
    assert json.loads(call("stat", {"uri": "viking://user"})[1])["children"] == 0  # counts what ls lists
    assert "alice" not in call("ls", {"uri": "viking://", "recursive": True})[1]
    assert "alice" not in call("tree", {"uri": "viking://", "depth": 5})[1]
    assert "alice" not in call("find", {"query": "zebra"})[1]
    # Bob's own space is open, by its name and by ~.
    assert not call("remember", {"text": "I prefer zebra crossings"})[0]
    assert call("grep", {"pattern": "crossings", "uri": "viking://user/bob"})[1].startswith("viking://user/bob/memories/")
    assert not call("ls", {"uri": "viking://~/memories", "recursive": True})[0]


def _git_head(ov_home: Path) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ov_home / "accounts/default", capture_output=True, text=True, check=True).stdout.strip()


def test_calls_are_logged_off_stdout(ov_home):
    async def body(client):
        await _call(client, "find", {"query": "anything"})
        await _call(client, "read", {"uris": ["viking://resources/none.md"]})

    _with_client(body)
    records = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    # Each call is logged after its answer is sent, so the second can be logged first.
    assert sorted((r["tool"], r["outcome"]) for r in records) == [("find", "ok"), ("read", "error")]
    assert "does not exist" in next(r for r in records if r["tool"] == "read")["error"]


def test_a_writing_call_is_committed_via_mcp_and_its_client_and_logged_with_its_commit(ov, ov_home):
    # (found by an audit: a CLI `remember` and an MCP `remember` from claude-code made identical commits)
    assert ov("remember", "I prefer tabs over spaces").exit_code == 0
    init = {**INIT, "params": {**INIT["params"], "clientInfo": {"name": "claude-code", "version": "2.1"}}}
    calls = [
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "remember", "arguments": {"text": "My shell is fish"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ls", "arguments": {"uri": "viking://resources"}}},
    ]
    answers = _raw([init, {"jsonrpc": "2.0", "method": "notifications/initialized"}, *calls])
    assert not any(a.get("result", {}).get("isError") for a in answers)
    entries = ov("snapshot", "log", "-n", "2", "--json").json["result"]
    assert [(e["command"], e["via"]) for e in entries] == [("remember", "mcp claude-code"), ("remember", "cli")]
    records = {r["tool"]: r for r in map(json.loads, (ov_home / "logs" / "mcp.jsonl").read_text().splitlines())}
    assert records["remember"]["commit"] == entries[0]["commit"]
    assert "commit" not in records["ls"]  # a call that only reads made none


def test_a_client_that_gives_no_name_commits_via_mcp(ov, ov_home):
    nameless = {**INIT, "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write", "arguments": {"uri": "viking://resources/a.md", "content": "a"}}}
    _raw([nameless, call])
    entry = ov("snapshot", "log", "-n", "1", "--json").json["result"][0]
    assert entry["via"] == "mcp"
    (record,) = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    assert record["commit"] == entry["commit"]


def test_session_commit_says_a_hand_edit_was_kept(ov, ov_home):
    assert ov("remember", "My editor is Neovim").exit_code == 0
    with (ov_home / "accounts/default/user/default/memories/profile.md").open("a", encoding="utf-8") as f:
        f.write("- Hand fact: likes tea\n")
    assert ov("session", "add", "s1", "--text", "My editor is Helix now.").exit_code == 0
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "session_commit", "arguments": {"session": "s1"}}}
    (_, answer) = _raw([INIT, call])
    text = answer["result"]["content"][0]["text"]
    assert "1 updates" in text
    assert "hand edits of viking://user/default/memories/profile.md were kept" in text


def test_the_embedder_is_kept_from_one_call_to_the_next(ov, ov_home):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0

    async def body(client):
        return [_text(await _call(client, "find", {"query": query})) for query in ("marmalade", "oranges", "jam")]

    answers = _with_client(body)
    assert _results(answers[0]).startswith("viking://resources/jam.md") and _results(answers[1]).startswith("viking://resources/jam.md")
    records = [json.loads(line) for line in (ov_home / "logs" / "mcp.jsonl").read_text().splitlines()]
    # The first call brought the embedder in; the others were served by the same one.
    assert [r.get("loaded") for r in records] == ["hash:hash-v1", None, None]


def test_an_agents_write_and_edit_are_redacted_before_they_are_stored(ov_home):
    """What a model writes came from its session; a key in a commit stays in history and backups."""
    import os as _os

    from ov.mcp import tools
    from tests.secrets_corpus import OPENAI

    context = tools.Context.resolve({}, _os.environ)
    uri = "viking://resources/notes/deploy.md"
    wrote = tools.call(context, "write", {"uri": uri, "content": f"# Deploy\n\nOPENAI_API_KEY={OPENAI}\nregion: eu-west-1\n"})
    edited = tools.call(context, "edit", {"uri": uri, "old": "eu-west-1", "new": f"eu-west-2 (token {OPENAI})"})
    plain = tools.call(context, "edit", {"uri": uri, "old": "# Deploy", "new": "# Deploying"})

    assert wrote["content"][0]["text"].endswith("; 1 secret redacted") and not wrote.get("isError")
    assert edited["content"][0]["text"].endswith("; 1 secret redacted")
    assert "redacted" not in plain["content"][0]["text"]
    store = context.store()
    text = store.read(store.uri(uri)).content
    assert OPENAI not in text and text.count("[REDACTED:") == 2 and "# Deploying" in text


def test_a_key_sent_in_parts_is_redacted_across_the_seam(ov_home, ov):
    """mcp.md tells a model to send a larger text in parts: a key split between a `write` and an
    `append`, or completed by an `edit`, matches no rule in either part. The file the commit
    holds is what must have none; text the user wrote far from the seam is left as it was."""
    import os as _os

    from ov.mcp import tools
    from ov.redact.engine import SEAM_CHARS
    from tests.secrets_corpus import OPENAI_PROJ, OPENSSH

    context = tools.Context.resolve({}, _os.environ)
    far = "password=hunter2 is the example the docs give\n"  # what a full redaction would take for a secret
    notes = "viking://resources/notes/cfg.md"
    assert ov("write", notes, "--content", far + "x\n" * SEAM_CHARS).exit_code == 0
    tools.call(context, "write", {"uri": notes, "content": "The key we use is " + OPENAI_PROJ[:14], "mode": "append"})
    appended = tools.call(context, "write", {"uri": notes, "content": OPENAI_PROJ[14:] + " and it rotates monthly.\n", "mode": "append"})

    block = OPENSSH
    keyfile = "viking://resources/notes/key.md"
    tools.call(context, "write", {"uri": keyfile, "content": block[: len(block) // 2]})
    tools.call(context, "write", {"uri": keyfile, "content": block[len(block) // 2 :], "mode": "append"})

    edits = "viking://resources/notes/edit.md"
    tools.call(context, "write", {"uri": edits, "content": f"the key is {OPENAI_PROJ[:14]} X\n"})
    edited = tools.call(context, "edit", {"uri": edits, "old": " X", "new": OPENAI_PROJ[14:]})

    store = context.store()
    texts = {uri: store.read(store.uri(uri)).content for uri in (notes, keyfile, edits)}
    assert not any(OPENAI_PROJ in text for text in texts.values()), texts
    assert appended["content"][0]["text"].endswith("; 1 secret redacted") and edited["content"][0]["text"].endswith("; 1 secret redacted")
    assert texts[notes].startswith(far) and texts[notes].endswith("The key we use is [REDACTED:openai_key] and it rotates monthly.\n")
    assert texts[keyfile].replace("[REDACTED:private_key]", "").strip() == "", texts[keyfile]  # the first half's marker, then the rest's
    assert texts[edits] == "the key is [REDACTED:openai_key]\n"


def test_find_below_a_place_that_does_not_exist_is_a_tool_error(ov_home):
    """Agents mistype URIs too: "no results" would send the model looking elsewhere."""
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    tools.call(context, "write", {"uri": "viking://resources/guide/auth.md", "content": "# Auth\n\nTokens expire hourly.\n"})
    missing = tools.call(context, "find", {"query": "tokens", "uri": "viking://resources/giude"})
    assert missing.get("isError") and "viking://resources/giude does not exist" in missing["content"][0]["text"]
    found = tools.call(context, "find", {"query": "tokens", "uri": "viking://resources/guide"})
    assert not found.get("isError") and "auth.md" in found["content"][0]["text"]


def test_search_takes_the_scope_and_types_find_takes(ov_home):
    """The search tool had no `uri` or `types` (find had them)."""
    import os as _os

    from ov.mcp import tools

    properties = {t["name"]: t["inputSchema"]["properties"] for t in definitions()}
    assert {k: v for k, v in properties["search"].items() if k in properties["find"]} == properties["find"]
    context = tools.Context.resolve({}, _os.environ)
    tools.call(context, "write", {"uri": "viking://resources/guide/auth.md", "content": "# Auth\n\nAPI tokens expire hourly.\n"})
    tools.call(context, "write", {"uri": "viking://resources/notes/tokens.md", "content": "# Tokens\n\nAPI tokens live in the vault.\n"})
    tools.call(context, "remember", {"text": "I prefer short-lived API tokens"})

    def listed(**arguments) -> list[str]:
        result = tools.call(context, "search", {"query": "API tokens", "mode": "list", **arguments})
        assert not result.get("isError"), result
        return [line.split()[0] for line in result["content"][0]["text"].splitlines() if line.startswith("viking://")]

    everything = listed()
    assert any("/memories/" in u for u in everything) and any(u.startswith("viking://resources/guide") for u in everything)
    assert listed(types=["memory"]) == [u for u in everything if "/memories/" in u]
    scoped = listed(uri="viking://resources/guide")
    assert scoped and all(u.startswith("viking://resources/guide") for u in scoped)
    for arguments, says in (({"types": ["bogus"]}, "unknown type 'bogus'"), ({"uri": "viking://resources/giude"}, "viking://resources/giude does not exist")):
        refused = tools.call(context, "search", {"query": "API tokens", **arguments})
        assert refused.get("isError") and says in refused["content"][0]["text"], refused


def test_a_users_folders_read_as_empty_before_anything_is_written_to_them(ov_home):
    """`read viking://~/memories` on a fresh store said it did not exist: an agent checking its
    memories got an error, not "no memories yet"."""
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)

    def text(name: str, arguments: dict) -> tuple[bool, str]:
        result = tools.call(context, name, arguments)
        return bool(result.get("isError")), result["content"][0]["text"]

    assert text("ls", {"uri": "viking://~/memories"}) == (False, "(empty)")
    assert text("tree", {"uri": "viking://~"}) == (False, "default/")
    assert json.loads(text("stat", {"uri": "viking://~/memories"})[1])["type"] == "directory"
    assert text("read", {"uris": ["viking://~/memories"]}) == (
        True,
        'viking://user/default/memories holds no memories yet\nhint: keep one with `remember {"text": …}`; `ls {"uri": "viking://user/default/memories"}` lists them',
    )
    uri = text("remember", {"text": "My editor is Helix"})[1].split(" in ")[1].split(" (")[0]
    assert text("ls", {"uri": "viking://~/memories"}) == (False, uri)
    assert text("read", {"uris": ["viking://~/memories"]})[1].startswith("viking://user/default/memories is a directory")


def test_a_write_the_system_refuses_is_the_error_the_cli_reports_not_an_internal_one(ov, ov_home, unprivileged):
    """A PermissionError from deep in dulwich answered "ov failed: PermissionError: ...", where the
    CLI said store_not_writable."""
    from tests.conftest import set_writable

    assert ov("write", "viking://resources/a.md", "--content", "alpha").exit_code == 0
    objects = ov_home / "accounts/default/.git/objects"
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "remember", "arguments": {"text": "My shell is zsh"}}}
    set_writable(objects, False)
    try:
        served = subprocess.run([*unprivileged, OV, "mcp"], input=(json.dumps(call) + "\n").encode(), capture_output=True, timeout=60, env=dict(os.environ), check=False)
        cli = subprocess.run([*unprivileged, OV, "remember", "My shell is zsh", "--json"], capture_output=True, timeout=60, env=dict(os.environ), check=False)
    finally:
        set_writable(objects, True)
    assert served.returncode == 0, served.stderr
    result = json.loads(served.stdout.decode().splitlines()[0])["result"]
    error = json.loads(cli.stderr)["error"]
    # The folder named is the objects folder, or the fan-out folder of the first object when an
    # earlier commit made it (the objects' names differ from one write to the next).
    refused = re.escape(f"ov cannot write to {objects}") + "(/[0-9a-f]{2})?: Permission denied"
    assert error["code"] == "store_not_writable" and re.fullmatch(refused, error["message"]), error
    assert result["isError"] and re.fullmatch(refused + re.escape(f"\nhint: {error['hint']}"), result["content"][0]["text"]), result
    assert ov("remember", "My shell is zsh").exit_code == 0  # nothing was left half done


READ_ARGUMENTS = {
    "find": {"query": "editor"},
    "search": {"query": "editor"},
    "read": {"uris": ["viking://user/default/memories/profile.md"]},
    "ls": {},
    "tree": {},
    "stat": {"uri": "viking://resources"},
    "grep": {"pattern": "Neovim"},
    "glob": {"pattern": "**/*.md"},
}


def test_every_read_only_tool_refuses_an_account_that_does_not_exist(ov, ov_home):
    """A mistyped --account in the registered command would otherwise read as an empty store."""
    import os as _os

    from ov.mcp import tools

    assert ov("remember", "My editor is Neovim").exit_code == 0
    assert {t["name"] for t in definitions() if t["annotations"]["readOnlyHint"]} == {*READ_ARGUMENTS, "health"}
    context = tools.Context.resolve({"account": "tpyo"}, _os.environ)
    for name, arguments in READ_ARGUMENTS.items():
        result = tools.call(context, name, arguments)
        text = result["content"][0]["text"]
        assert result.get("isError"), name
        assert text.startswith(f"account 'tpyo' (from flag) does not exist in {ov_home / 'accounts'} (accounts: default)\nhint: check --account"), text
    # health reports the account among its checks, as `ov doctor` does, instead of refusing.
    health = tools.call(context, "health", {})
    assert not health.get("isError") and "tpyo" in health["content"][0]["text"], health
    assert sorted(p.name for p in (ov_home / "accounts").iterdir()) == ["default"]
    assert not (ov_home / "state" / "tpyo").exists()
    wrote = tools.call(context, "write", {"uri": "viking://resources/a.md", "content": "a\n"})
    assert not wrote.get("isError") and (ov_home / "accounts" / "tpyo" / "resources" / "a.md").read_text() == "a\n"
    assert tools.call(context, "read", {"uris": ["viking://resources/a.md"]})["content"][0]["text"].endswith("a")


def test_a_name_written_decomposed_is_read_composed_and_is_one_file(ov_home):
    import os as _os

    from ov.mcp import tools

    nfc, nfd = "viking://resources/caf\u00e9.md", "viking://resources/cafe\u0301.md"
    context = tools.Context.resolve({}, _os.environ)
    assert not tools.call(context, "write", {"uri": nfd, "content": "one\n"}).get("isError")
    assert tools.call(context, "read", {"uris": [nfc]})["content"][0]["text"] == f"=== {nfc}\none"
    assert not tools.call(context, "write", {"uri": nfc, "content": "two\n", "mode": "append"}).get("isError")
    assert tools.call(context, "read", {"uris": [nfd]})["content"][0]["text"].endswith("one\ntwo")
    assert tools.call(context, "ls", {"uri": "viking://resources"})["content"][0]["text"] == nfc


# --- results too long for a model, hints in a tool's own terms, the log ---------------------


LONG_NAME = "deploy-notes-of-the-platform-team-part-{}.md"  # long names: a tree of 2,101 lines passes 40,000 characters


def _cut(text: str) -> tuple[list[str], int, str, str]:
    """A cut result: its lines before the note, and the note's count, unit and advice."""
    body, note = text.rsplit("\n", 1)
    said = re.fullmatch(r"\[… (\d+) (\w[\w ]*) left out: a result holds 40,000 characters; (.+)\]", note)
    assert said and len(text) <= 40_000, note  # the note included (found by an audit: it came on top)
    return body.split("\n"), int(said[1]), said[2], said[3]


def test_a_result_too_long_is_cut_after_a_whole_entry_and_says_how_to_ask_that_tool_for_less(ov, tmp_path):
    """(found by an audit: every tool's result was cut at 40,000 characters in the middle of a
    line, with the note written for read, "read fewer lines at a time", which ls, tree and glob
    have no way to do)"""
    source = tmp_path / "handbook"
    for d in range(300):
        (source / f"folder{d:03}").mkdir(parents=True)
        for f in range(6):
            (source / f"folder{d:03}" / LONG_NAME.format(f)).write_text(f"# Part {f}\n\nTeam {d} runs staging deploys with make ship, part {f}.\n")
    assert ov("add-resource", str(source)).exit_code == 0
    base = "viking://resources/handbook"
    calls = {
        "ls": {"uri": base},
        "tree": {"uri": base},
        "glob": {"pattern": "**", "uri": base},
        "grep": {"pattern": "staging", "uri": base, "limit": 5000},
    }
    lines = [INIT] + [{"jsonrpc": "2.0", "id": name, "method": "tools/call", "params": {"name": name, "arguments": arguments}} for name, arguments in calls.items()]
    answers = {a["id"]: a["result"] for a in _raw(lines) if a["id"] in calls}
    assert not any(answer.get("isError") for answer in answers.values()), answers
    whole = {
        "ls": [f"{e['uri']}/  {e['abstract']}" for e in ov("ls", base, "--json").json["result"]],
        "glob": ov("glob", "**", "--uri", base, "--json").json["result"],
        "grep": [f"{m['uri']}:{m['line']}: {m['text']}" for m in ov("grep", "staging", "--uri", base, "--json").json["result"]],
    }
    advice = {
        "ls": ("entries", 'list on with the same arguments and "offset": {shown}; or list a subfolder (`uri`)'),
        "glob": ("paths", "narrow the `pattern`, or glob below a subfolder (`uri`)"),
        "grep": ("matching lines", "narrow the `pattern` or `uri`, or ask for a lower `limit`"),
    }
    for name, expected in whole.items():
        shown, left, unit, says = _cut(answers[name]["content"][0]["text"])
        assert (unit, says) == (advice[name][0], advice[name][1].format(shown=len(shown)))
        # Whole entries from the first, as many as fit: not one more would have.
        assert shown == expected[: len(shown)] and left == len(expected) - len(shown) > 0, name
        assert len("\n".join(expected[: len(shown) + 1])) + 1 + len(answers[name]["content"][0]["text"].rsplit("\n", 1)[1]) > 40_000
    shown, left, unit, says = _cut(answers["tree"]["content"][0]["text"])
    assert (unit, says) == ("entries", "ask for a `depth` below 2, or the tree of a subfolder (`uri`), or list the folder page by page with `ls` and its `offset`")
    assert shown[:3] == ["handbook/", "  folder000/", f"    {LONG_NAME.format(0)}"] and len(shown) + left == 1 + 300 + 300 * 6
    # The tool's own arguments do what the note says: a subfolder fits.
    async def body(client):
        return _text(await _call(client, "ls", {"uri": f"{base}/folder299"}))

    listed = _with_client(body)
    assert "[…" not in listed and LONG_NAME.format(5) in listed
    # ls goes on from where the note says, and the pages hold every entry once, in order.
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    paged, offset = [], 0
    while True:
        text = tools.call(context, "ls", {"uri": base, "offset": offset})["content"][0]["text"]
        if "[…" not in text:
            paged += text.split("\n")
            break
        page, _left, _unit, says = _cut(text)
        assert says.startswith(f'list on with the same arguments and "offset": {offset + len(page)};'), says
        paged, offset = paged + page, offset + len(page)
    assert paged == whole["ls"] and offset > 0
    assert tools.call(context, "ls", {"uri": base, "offset": 300})["content"][0]["text"] == "no entries from `offset` 300: there are 300"


def test_a_read_too_long_says_where_to_read_on_and_a_line_longer_than_a_result_comes_cut(ov_home):
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    big, wide = "viking://resources/big.md", "viking://resources/minified.js"
    tools.call(context, "write", {"uri": big, "content": "".join(f"line {i} " + "x" * 90 + "\n" for i in range(1, 1001))})
    tools.call(context, "write", {"uri": wide, "content": "var a=1;" * 6000 + "\nend\n"})

    def read(arguments: dict) -> str:
        result = tools.call(context, "read", arguments)
        assert not result.get("isError"), result
        return result["content"][0]["text"]

    shown, left, unit, says = _cut(read({"uris": [big], "lines": "100:900"}))
    assert shown[0] == f"=== {big} (lines 100-900 of 1000)" and shown[1].startswith("line 100 ") and unit == "lines"
    last = int(shown[-1].split()[1])
    assert left == 900 - last and says == f'read on with "uris": ["{big}"], "lines": "{last + 1}:900"'
    assert read({"uris": [big], "lines": f"{last + 1}:900"}).split("\n")[1].startswith(f"line {last + 1} ")  # as the note says
    # One line longer than a whole result: its start, and reading on gets past it.
    text = read({"uris": [wide]})
    note = f'[… the rest of this line and 1 line left out: a result holds 40,000 characters; read on with "uris": ["{wide}"], "lines": "2:"]'
    assert text.startswith(f"=== {wide}\nvar a=1;") and text.endswith(f"\n{note}") and len(text) == 40_000
    assert read({"uris": [wide], "lines": "2:"}) == f"=== {wide} (lines 2-2 of 2)\nend"
    # Two files too long share the result, each cut where its share ends, each saying how to read it on.
    wide_block, big_block = read({"uris": [wide, big]}).split(f"\n=== {big}\n")
    shared = "a result holds 40,000 characters, shared by the 2 files"
    wide_start, wide_note = wide_block.split("\n")[1:]
    assert wide_note == f'[… the rest of this line and 1 line left out: {shared}; read on with "uris": ["{wide}"], "lines": "2:"]'
    *lines, big_note = big_block.split("\n")
    assert lines == [f"line {i} " + "x" * 90 for i in range(1, len(lines) + 1)]
    assert big_note == f'[… {1000 - len(lines)} lines left out: {shared}; read on with "uris": ["{big}"], "lines": "{len(lines) + 1}:"]'
    assert 39_800 < len(wide_block) + len(big_block) + len(f"\n=== {big}\n") <= 40_000 and abs(len(wide_block) - len(big_block)) < 200
    alone = read({"uris": [wide], "lines": "1"})  # nothing to read on to: the note does not send the model back
    assert alone.endswith("\n[… the rest of this line left out: a result holds 40,000 characters]") and len(alone) == 40_000


def test_a_read_of_several_files_shows_each_and_names_each_it_cut(ov_home):
    """(found by an audit: `read` of [big, small1, small2] showed big's first 832 lines and a note
    to read big on; the small files were neither shown nor named) Each file has a share of the
    result, the smallest first: what a small one leaves goes to the larger."""
    data = {
        "viking://resources/big.txt": "".join(f"line {i} lorem ipsum dolor sit amet consectetur\n" for i in range(1, 5001)),
        "viking://resources/small1.md": "the small1 answer\n",
        "viking://resources/mid.md": "".join(f"mid {i} " + "y" * 60 + "\n" for i in range(1, 201)),  # 14 KB: whole, within its share
        "viking://resources/small2.md": "the small2 answer",
    }
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    for uri, content in data.items():
        tools.call(context, "write", {"uri": uri, "content": content})
    (answer,) = [a["result"] for a in _raw([INIT, {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "read", "arguments": {"uris": list(data)}}}]) if a["id"] == 2]
    text = answer["content"][0]["text"]
    assert len(text) <= 40_000
    blocks = dict(re.findall(r"(?ms)^=== (\S+)\n(.*?)(?=\n=== |\Z)", text))
    assert list(blocks) == list(data)
    for uri in ("viking://resources/small1.md", "viking://resources/mid.md", "viking://resources/small2.md"):
        assert blocks[uri] == data[uri].removesuffix("\n")
    *shown, note = blocks["viking://resources/big.txt"].split("\n")
    assert shown == [f"line {i} lorem ipsum dolor sit amet consectetur" for i in range(1, len(shown) + 1)] and len(shown) > 400
    assert note == f'[… {5000 - len(shown)} lines left out: a result holds 40,000 characters, shared by the 4 files; read on with "uris": ["viking://resources/big.txt"], "lines": "{len(shown) + 1}:"]'
    assert len(text) > 39_900  # the small files' leftovers went to the large one



def test_a_read_of_several_files_names_each_it_could_not_read_and_reads_the_others(ov, ov_home):
    """(found by an audit: one missing, binary or forbidden URI failed the whole call, and the
    model learnt nothing of the files it could read) Each file that cannot be read is named in
    its place with its error; the call is an error only when none could be read."""
    assert ov("write", "viking://resources/notes/a.md", "--content", "alpha\n").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "bravo\n").exit_code == 0
    (ov_home / "accounts/default/resources/logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    good, missing, folder, binary = "viking://resources/notes/a.md", "viking://resources/gone.md", "viking://resources/notes", "viking://resources/logo.png"
    other = "viking://user/alice/memories/x.md"
    calls = [
        [good, missing, folder, "viking://resources/b.md", binary, other],
        [missing],
        [missing, binary],
    ]
    lines = [INIT] + [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "read", "arguments": {"uris": uris}}} for i, uris in enumerate(calls, 2)]
    answers = {a["id"]: a["result"] for a in _raw(lines) if a["id"] != 1}
    mixed, alone, none = (answers[i] for i in (2, 3, 4))
    assert not mixed.get("isError")
    blocks = re.findall(r"(?ms)^=== (.+?)\n(.*?)(?=\n=== |\Z)", mixed["content"][0]["text"])
    assert [uri for uri, _ in blocks] == [good, f"{missing} (not read)", f"{folder} (not read)", "viking://resources/b.md", f"{binary} (not read)", f"{other} (not read)"]
    by_uri = dict(blocks)
    assert by_uri[good] == "alpha" and by_uri["viking://resources/b.md"] == "bravo"
    assert by_uri[f"{missing} (not read)"].startswith(f"error: {missing} ") and "\nhint: " in by_uri[f"{missing} (not read)"]
    assert by_uri[f"{folder} (not read)"].startswith(f"error: {folder} is a directory\nhint: list it with `ls ")
    assert by_uri[f"{binary} (not read)"].startswith(f"error: {binary} is not UTF-8 text\nhint: see its size with `stat ")
    assert by_uri[f"{other} (not read)"].startswith(f"error: {other} is in another user's space")
    # One file: its error is the call's, as it always was.
    assert alone["isError"] and alone["content"][0]["text"].startswith(f"{missing} ") and "===" not in alone["content"][0]["text"]
    assert alone["content"][0]["text"] in by_uri[f"{missing} (not read)"]
    # None of several: an error naming each.
    assert none["isError"] and none["content"][0]["text"].startswith(f"=== {missing} (not read)\nerror: ") and f"\n=== {binary} (not read)\nerror: " in none["content"][0]["text"]


def test_a_read_of_many_large_files_holds_its_answer_not_the_files(ov_home):
    """(found by an audit: 20 x an 8 MB file held 650 MB to answer 40,000 characters) Each file is
    read as far as its share of the result reaches; `uris` takes at most 20."""
    import os as _os
    import tracemalloc

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    big = "viking://resources/big.txt"
    tools.call(context, "write", {"uri": big, "content": "".join(f"line {i} lorem ipsum dolor sit amet consectetur {i * 7919}\n" for i in range(130_000))})
    tracemalloc.start()
    try:
        text = tools.call(context, "read", {"uris": [big] * 20})["content"][0]["text"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.count(f"=== {big}\n") == 20 and text.count(f'read on with "uris": ["{big}"]') == 20 and len(text) <= 40_000
    assert peak < 6_000_000, peak  # the file is 8 MB: not one is held whole
    refused = tools.call(context, "read", {"uris": [big] * 21})
    assert refused["isError"] and refused["content"][0]["text"] == "`uris` of read holds at most 20 entries, not 21\nhint: make several calls of 20 at most"



@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's peak memory from /proc")
def test_stat_of_a_large_file_counts_its_lines_without_holding_it(ov, ov_home):
    """(found by an audit: `stat` read the whole file, and held it twice, bytes and text, to count
    its lines: 500 MB for a 500 MB file) It is read once in parts: its lines, whether it is text
    and its blob id (committed or not) taken as they come."""
    assert ov("write", "viking://resources/small.md", "--content", "one\ntwo\n").exit_code == 0
    big = ov_home / "accounts/default/resources/big.txt"
    with big.open("wb") as out:  # 128 MB, put there by hand (no write takes a file this large)
        for _ in range(64):
            out.write(("x" * 63 + "\n").encode() * 32_768)
    (ov_home / "accounts/default/resources/blob.bin").write_bytes(b"\x00" * 10 + b"text after")

    def peak(pid: int) -> int:
        """The process's peak resident memory so far, in kB."""
        status = Path(f"/proc/{pid}/status").read_text()
        return int(re.search(r"^VmHWM:\s+(\d+) kB", status, re.MULTILINE).group(1))

    host = _Host()
    try:
        host.send(INIT, _tool_call(2, "stat", {"uri": "viking://resources/small.md"}))
        small = json.loads(host.answer(2)["result"]["content"][0]["text"])
        before = peak(host.proc.pid)  # the server with the store's modules loaded
        host.send(_tool_call(3, "stat", {"uri": "viking://resources/big.txt"}), _tool_call(4, "stat", {"uri": "viking://resources/blob.bin"}))
        large = json.loads(host.answer(3)["result"]["content"][0]["text"])
        binary = json.loads(host.answer(4)["result"]["content"][0]["text"])
        after = peak(host.proc.pid)
    finally:
        host.proc.stdin.close()
        host.proc.wait(timeout=60)
    assert (small["size"], small["lines"], small["binary"], small["state"]) == (8, 2, False, "committed")
    assert (large["size"], large["lines"], large["binary"], large["state"]) == (128 * 1024 * 1024, 2_097_152, False, "untracked")
    assert (binary["size"], binary["lines"], binary["binary"]) == (20, None, True)
    assert after - before < 16 * 1024, (before, after)  # not the 128 MB file, let alone twice


def test_a_short_result_is_whole_and_a_plain_answer_too_long_is_cut_at_a_line():
    from ov.mcp.tools import Listing

    assert Listing(["a", "b"], "entry", "entries", "ask less").fitted(3) == "a\nb"
    # The note is part of the result: items give way to it (found by an audit: results of 40,046 characters).
    entries = Listing(["a" * 40, "b" * 40, "c" * 40], "entry", "entries", "ask less")  # two fit in 120, but not with the note
    assert entries.fitted(120) == "a" * 40 + "\n[… 2 entries left out: a result holds 120 characters; ask less]"
    wide = Listing(["abcdef" * 20], "line").fitted(80)
    assert wide == "abcdefabcdefabc\n[… the rest of this line left out: a result holds 80 characters]" and len(wide) == 80
    grep = Listing(["x" * 10] * 3, "line", more="[… more lines match]").fitted(100)  # the line after them counts too
    assert grep == "xxxxxxxxxx\nxxxxxxxxxx\nxxxxxxxxxx\n[… more lines match]"
    # (found by an audit: "616 lines left out" when 1,616 matched past what was shown: the cut
    # counted only the lines asked for)
    cut = Listing(["x" * 10] * 3, "line", more="[… more lines match" + "!" * 60 + "]").fitted(100)
    assert cut == "xxxxxxxxxx\nxxxxxxxxxx\n[… 1 line (and more past the `limit`) left out: a result holds 100 characters]"


def test_a_hint_names_the_tools_arguments_where_the_command_line_names_its_options(ov):
    """(found by an audit: the edit tool, whose argument is `all: true`, was told to "pass --all")"""
    import os as _os

    from ov.mcp import tools

    assert ov("write", "viking://resources/a.md", "--content", "alpha\nalpha\n").exit_code == 0
    context = tools.Context.resolve({}, _os.environ)
    cases = [  # (tool, its arguments, the command, the hint's end, the arguments as the tool and as the command spell them)
        ("edit", {"uri": "viking://resources/a.md", "old": "alpha", "new": "beta"}, ["edit", "viking://resources/a.md", "--old", "alpha", "--new", "beta"], "or pass {}", ['"all": true'], ["--all"]),
        ("write", {"uri": "viking://resources/a.md", "content": "x", "mode": "create"}, ["write", "viking://resources/a.md", "--content", "x", "--mode", "create"], "use {} or {}", ['"mode": "replace"', '"mode": "append"'], ["--mode replace", "--mode append"]),
        ("remember", {"text": "hmm maybe", "type": "entities"}, ["remember", "hmm maybe", "--type", "entities"], "pick another {} than entities", ['"type"'], ["--type"]),
    ]
    for name, arguments, argv, hint, as_tool, as_command in cases:
        tool = tools.call(context, name, arguments)
        text = tool["content"][0]["text"]
        assert tool.get("isError") and text.endswith(hint.format(*as_tool)) and "--" not in text, text
        cli = ov(*argv, "--json")
        assert cli.exit_code != 0 and cli.error["hint"].endswith(hint.format(*as_command)), cli.error
    assert ov("edit", "viking://resources/a.md", "--old", "alpha", "--new", "beta", "--all").exit_code == 0
    assert not tools.call(context, "edit", {"uri": "viking://resources/a.md", "old": "beta", "new": "gamma", "all": True}).get("isError")


def test_a_hint_spells_only_the_arguments_its_error_names():
    from ov.errors import InvalidInput

    def never(name, arguments):
        raise AssertionError(name)

    quoted = InvalidInput("bad", hint="a range such as {1,1000}, or {limit=5} for {pattern} {x}", arguments={"limit", "pattern"})
    assert quoted.hint_for(lambda name, value: f"<{name}:{value}>", never) == "a range such as {1,1000}, or <limit:5> for <pattern:None> {x}"
    assert InvalidInput("bad", hint="say {limit}").hint_for(lambda name, value: "?", never) == "say {limit}"


def test_an_error_said_again_in_other_words_keeps_the_arguments_its_hint_names():
    """(three places raised a new error with another's hint but not its arguments, so an
    argument it proposed reached the caller as a bare `{all=true}`)"""
    from ov.errors import InvalidInput, InvalidURI
    from ov.mcp import tools
    from ov.ovpack.format import InvalidPack

    inner = InvalidInput("too long", hint="use {mode=append} instead", arguments={"mode"})
    for kind in (None, InvalidURI, InvalidPack):
        outer = inner.restated("a.md: too long", kind)
        assert type(outer) is (kind or InvalidInput) and outer.message == "a.md: too long"
        assert outer.hint_for(tools._argument, tools._tool_call) == 'use "mode": "append" instead'
    # an error whose constructor takes no message (DiskFull takes a path) is said again as itself
    from ov.errors import DiskFull

    full = DiskFull("/home/u/.ov").restated("message 2: no space left on device under /home/u/.ov")
    assert type(full) is DiskFull and str(full) == full.message == "message 2: no space left on device under /home/u/.ov"
    assert full.path == "/home/u/.ov" and full.hint == DiskFull.hint


def test_a_proposed_call_is_spelled_whole_whatever_its_values_hold():
    """A URI with braces, spaces, quotes or `=` in it goes through a call's placeholder as JSON: it
    never ends the placeholder early, nor is it read as one."""
    from ov.errors import NotFound, proposal

    def calls(name, arguments):
        return f"<{name} {arguments}>" if name != "fsck" else None

    uri = 'viking://resources/a b/{all=true} "x}".md'
    hint = f"see {proposal('ls', uri=uri, recursive=True)} or {proposal('remember', text=...)}; {proposal('fsck')}, {{all=true}} {{ov ls"
    spelled = NotFound("x", hint=hint, arguments={"all"}).hint_for(lambda name, value: f"<{name}={value}>", calls)
    assert spelled == f"see <ls {[('uri', uri), ('recursive', True)]}> or <remember [('text', Ellipsis)]>; {{ov fsck}}, <all=true> {{ov ls"


def test_a_hint_that_reaches_a_tool_names_the_tool_and_its_arguments_not_the_command_line(ov, tmp_path):
    """(found by an audit: core hints told MCP clients to run `ov ls …`, `ov remember TEXT`,
    `--to` and `--exclude`, which a tool call cannot do)"""
    import os as _os

    from ov.mcp import tools

    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    assert ov("write", "viking://resources/notes/x.md", "--content", "x\n").exit_code == 0
    assert ov("write", "viking://resources/notes/.overview.md", "--content", "Notes on x.\n").exit_code == 0
    source, notes = tmp_path / "source.md", tmp_path / "notes.md"
    source.write_text("# Source\n")
    notes.write_text("# Notes\n")
    context = tools.Context.resolve({}, _os.environ)
    memories = "viking://user/default/memories"
    cases = [  # (tool, its arguments, the command line, the hint as the tool reads it, as the command line does)
        ("read", {"uris": ["viking://resources"]}, ["read", "viking://resources"], 'list it with `ls {"uri": "viking://resources"}`', "list it with `ov ls viking://resources`"),
        # No tool is named overview: the model is told to read the file that holds it.
        ("read", {"uris": ["viking://resources/notes"]}, ["read", "viking://resources/notes"],
         'list it with `ls {"uri": "viking://resources/notes"}`, or read its overview with `read {"uris": ["viking://resources/notes/.overview.md"]}`',
         "list it with `ov ls viking://resources/notes`, or read its overview with `ov overview viking://resources/notes`"),
        ("read", {"uris": ["viking://resources/none.md"]}, ["read", "viking://resources/none.md"],
         'see what is there with `ls {"uri": "viking://resources"}`', "see what is there with `ov ls viking://resources`"),
        ("tree", {"uri": "viking://resources/a.md"}, ["tree", "viking://resources/a.md"],
         'read it with `read {"uris": ["viking://resources/a.md"]}`', "read it with `ov read viking://resources/a.md`"),
        ("read", {"uris": [memories]}, ["read", memories],
         f'keep one with `remember {{"text": …}}`; `ls {{"uri": "{memories}"}}` lists them', f"keep one with `ov remember TEXT`; `ov ls {memories}` lists them"),
        # The server acts for one user: another's space is refused before it is read; the terminal reads it.
        ("read", {"uris": ["viking://user/alice/memories"]}, ["read", "viking://user/alice/memories"],
         'use your own space (viking://~/...) or a shared scope; `ls {"uri": "viking://"}` lists what is open',
         "keep one with `ov remember TEXT --user alice`; `ov ls viking://user/alice/memories` lists them"),
        ("forget", {"uri": "viking://~/memories/preferences/x.md"}, ["forget", "viking://~/memories/preferences/x.md"],
         'list memories with `ls {"uri": "viking://~/memories", "recursive": true}`', "list memories with `ov ls 'viking://~/memories' --recursive`"),
        ("search", {"query": " "}, ["search", " "], 'say what to look for, e.g. `search {"query": "release process"}`', "say what to look for, e.g. `ov search 'release process'`"),
        ("ls", {"uri": " viking://resources"}, ["ls", " viking://resources"],
         'a URI looks like viking://resources/notes/a.md or viking://~/memories/ (see `ls {"uri": "viking://"}`)',
         "a URI looks like viking://resources/notes/a.md or viking://~/memories/ (see `ov ls viking://`)"),
        ("add_resource", {"source": str(source), "to": "viking://resources/s", "parent": "viking://resources"},
         ["add-resource", str(source), "--to", "viking://resources/s", "--parent", "viking://resources"], 'give "to" or "parent", not both', "give --to or --parent, not both"),
        ("add_resource", {"source": str(source), "to": "viking://resources/a.md"}, ["add-resource", str(source), "--to", "viking://resources/a.md"],
         '"to" names a new location, or an earlier import of the same source; use "parent" to add inside an existing directory',
         "--to names a new location, or an earlier import of the same source; use --parent to add inside an existing directory"),
        ("add_resource", {"source": str(source), "parent": "viking://resources/none"}, ["add-resource", str(source), "--parent", "viking://resources/none"],
         'create it with `ov mkdir viking://resources/none`, or name a new folder with "to"', "create it with `ov mkdir viking://resources/none`, or name a new folder with --to"),
        ("add_resource", {"source": str(notes)}, ["add-resource", str(notes)], 'choose another place with "to"', "choose another place with --to"),
    ]
    for name, arguments, argv, as_tool, as_command in cases:
        tool = tools.call(context, name, arguments)
        text = tool["content"][0]["text"]
        assert tool.get("isError") and text.endswith(f"hint: {as_tool}") and "--" not in text, text
        cli = ov(*argv, "--json")
        assert cli.exit_code != 0 and cli.error["hint"] == as_command, cli.error
    # A message names what both edges call the argument; a hint the class gives every bad input
    # ("see the command's --help") names the tool's own arguments.
    folder = tmp_path / "folder"
    folder.mkdir()
    refused = tools.call(context, "add_resource", {"source": str(folder), "exclude": ["[abc"]})["content"][0]["text"]
    assert refused.startswith("invalid exclude pattern '[abc'") and "--" not in refused, refused
    assert ov("add-resource", str(folder), "--exclude", "[abc", "--json").error["message"].startswith("invalid exclude pattern '[abc'")
    offset = tools.call(context, "ls", {"offset": -1})["content"][0]["text"]
    assert offset == "`offset` of ls must be 0 or more\nhint: `ls` takes uri, recursive, offset (see its inputSchema)"


def test_a_missing_summarys_hints_name_tools_over_mcp_and_commands_on_the_command_line(ov):
    """(found by a review: the hints of `Store.abstract`/`overview` named `ov write` and `ov abstract`
    as typed, where every other hint goes through proposal() for each edge to spell)"""
    import os as _os

    from ov.errors import OvError
    from ov.mcp import tools

    assert ov("write", "viking://resources/g/a.md", "--content", "x\n").exit_code == 0
    store = tools.Context.resolve({}, _os.environ).store(read_only=True)
    cases = [  # (the call, the hint a tool reads, the command line's)
        (lambda: store.abstract(store.uri("viking://resources/g")), 'write one with `write {"uri": "viking://resources/g/.abstract.md", "content": …}`',
         ["abstract", "viking://resources/g"], "write one with `ov write viking://resources/g/.abstract.md --content TEXT`"),
        (lambda: store.overview(store.uri("viking://resources/g/a.md")), 'try `read {"uris": ["viking://resources/g/.overview.md"]}`',
         ["overview", "viking://resources/g/a.md"], "try `ov overview viking://resources/g`"),
        (lambda: store.abstract(store.uri("viking://")), 'each scope has its own: `read {"uris": ["viking://resources/.abstract.md"]}`',
         ["abstract", "viking://"], "each scope has its own: `ov abstract viking://resources`"),
    ]
    for call, as_tool, argv, as_command in cases:
        with pytest.raises(OvError) as refused:
            call()
        text = tools._ov_error(refused.value)["content"][0]["text"]
        assert text.endswith(f"hint: {as_tool}") and "`ov " not in text, text
        assert ov(*argv, "--json").error["hint"] == as_command


def test_a_find_behind_the_store_says_so_first_as_the_command_line_does(ov, index_held):
    """(found by an audit: a model searching while another process caught the index up got
    results without what was just written, and no word that the index was behind)"""
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    assert ov("write", "viking://resources/a.md", "--content", "alpha").exit_code == 0
    assert not tools.call(context, "find", {"query": "alpha"})["content"][0]["text"].startswith("warning")
    assert ov("write", "viking://resources/b.md", "--content", "alpha beta").exit_code == 0  # committed, not indexed
    index_held()
    warned = ov("find", "alpha").stderr
    assert warned.startswith("warning: the index is behind HEAD") and warned.count("\n") == 1
    for name, arguments in (("find", {"query": "alpha"}), ("search", {"query": "alpha", "mode": "list"}), ("search", {"query": "alpha"}), ("find", {"query": "zzzz"})):
        first, how, rest = tools.call(context, name, arguments)["content"][0]["text"].split("\n", 2)
        assert first == warned.rstrip("\n") and "viking://resources/b.md" not in rest, (name, arguments, rest)
        assert "; index: behind HEAD (commit " in how, how
        assert "viking://resources/a.md" in rest or rest.startswith("no results"), rest


def test_find_and_search_say_how_they_were_answered_as_their_json_does(ov):
    """(found by an audit: `ov search --json` says under `retrieval` and `index` whether the answer
    was lexical only and what the index held; the tools' text did not, so a model could not tell a
    lexical-only answer from a full one)"""
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0
    calls = (("find", {"query": "marmalade"}), ("search", {"query": "marmalade", "mode": "list"}), ("search", {"query": "marmalade"}), ("find", {"query": "zzzz"}))

    def first_lines() -> list[str]:
        texts = [tools.call(context, name, arguments)["content"][0]["text"] for name, arguments in calls]
        assert all("jam.md" in _results(text) or _results(text) == "no results" for text in texts), texts
        return [text.split("\n", 1)[0] for text in texts]

    for provider, said in (("hash", "retrieval: hybrid, full text and vectors (embedder hash hash-v1)"), ("none", "retrieval: lexical only, no vectors (disabled by embedding.provider: none)")):
        assert ov("config", "set", "embedding.provider", provider).exit_code == 0
        json_says = ov("search", "marmalade", "--mode", "context", "--json").json["result"]
        assert json_says["retrieval"]["mode"] == ("hybrid" if provider == "hash" else "lexical")
        index = f"index: up to date (commit {json_says['index']['commit'][:10]}, 1 record)"
        assert first_lines() == [f"[{said}; {index}]"] * len(calls)


def test_grep_that_stops_at_its_limit_says_more_lines_match():
    """(found by an audit: 100 matches, the default limit, read as all there were)"""
    import os as _os

    from ov.mcp import tools

    context = tools.Context.resolve({}, _os.environ)
    tools.call(context, "write", {"uri": "viking://resources/a.md", "content": "".join(f"match {i}\n" for i in range(5))})

    def grep(limit: int) -> list[str]:
        return tools.call(context, "grep", {"pattern": "match", "limit": limit})["content"][0]["text"].split("\n")

    assert grep(5) == [f"viking://resources/a.md:{i + 1}: match {i}" for i in range(5)]  # all of them: no note
    assert grep(9) == grep(5)
    *shown, note = grep(3)
    assert shown == grep(5)[:3]
    assert note == "[… more lines match: this is the first 3 (`limit`); ask with a higher `limit`, or narrow the `pattern` or `uri`]"


def test_grep_and_glob_answer_a_pattern_the_matcher_cannot_cut_short_within_their_time_limit(ov):
    """(found by an audit: grep of "=" * 3000 and glob of "*" * 30 + "x" were never answered, each
    holding a worker thread at full CPU, and stdin's close then waited for them)"""
    assert ov("write", "viking://resources/notes.md", "--content", "".join(f"line {i} lorem ipsum dolor sit amet\n" for i in range(200))).exit_code == 0
    calls = {
        2: ("grep", {"pattern": "=" * 3000}),
        3: ("grep", {"pattern": "a" * 100_000}),
        4: ("glob", {"pattern": "*" * 30 + "x"}),
        5: ("glob", {"pattern": "*" * 30 + "s.md", "uri": "viking://resources"}),
    }
    # A call never answered holds the server past stdin's close: `_raw`'s timeout fails the test.
    answers = {a["id"]: a["result"] for a in _raw([INIT] + [{"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": n, "arguments": a}} for i, (n, a) in calls.items()], timeout=60)}
    for request in (2, 3):
        assert answers[request]["isError"] and "is too long: grep takes at most 500 characters" in answers[request]["content"][0]["text"]
    assert answers[4]["content"][0]["text"] == "no path matches"
    assert answers[5]["content"][0]["text"] == "viking://resources/notes.md"


def test_no_hint_an_error_class_gives_speaks_command_line_to_a_tool():
    """Every class's own hint, as the MCP server spells it: a command some tool runs is named as
    that tool, and nothing is left unspelled."""
    from ov import errors
    from ov.mcp import tools

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    for cls in subclasses(errors.OvError):
        spelled = cls.__new__(cls).hint_for(tools._argument, tools._tool_call)  # the class's hint: no instance needed
        assert "`ov doctor`" not in spelled, (cls, spelled)  # the `health` tool tells a model what `ov doctor` tells a user
        assert "{ov " not in spelled and not any(re.search(f"`ov {t['name'].replace('_', '-')}(?![\\w-])", spelled) for t in definitions()), (cls, spelled)


def test_the_calls_log_is_rotated_as_the_hooks_log_is(ov_home):
    """(found by an audit: mcp.jsonl grew without end, 100 bytes a call, in a server that runs for days)"""
    import io

    from ov.files import LOG_MAX_BYTES
    from ov.mcp import server as server_module

    log = ov_home / "logs" / "mcp.jsonl"
    log.parent.mkdir(parents=True)
    old = json.dumps({"tool": "find", "outcome": "ok", "pad": "x" * 1000}) + "\n"
    log.write_text(old * (LOG_MAX_BYTES // len(old) + 1))
    (ov_home / "logs" / "mcp.jsonl.1").write_text("the oldest\n")
    size = log.stat().st_size

    def serve(request_id: int) -> None:
        call = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "health", "arguments": {}}}
        assert server_module.Server(out=io.BytesIO()).serve(io.BytesIO((json.dumps(call) + "\n").encode())) == 0

    serve(1)
    assert (ov_home / "logs" / "mcp.jsonl.1").stat().st_size == size  # the full log, kept as the one older file
    (record,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert record["tool"] == "health" and record["outcome"] == "ok" and "ts" in record
    serve(2)  # under the limit: appended
    assert [json.loads(line)["tool"] for line in log.read_text().splitlines()] == ["health", "health"]


def _tool(name: str, arguments: dict) -> tuple[str, bool]:
    """The text of an in-process call of tool ``name``, and whether it is a tool error."""
    from ov.mcp import tools

    answer = tools.call(tools.Context.resolve({}, os.environ), name, arguments)
    return answer["content"][0]["text"], bool(answer.get("isError"))


def test_forget_of_a_file_of_several_facts_names_them_and_how_to_undo(ov):
    # (found by an audit: forgetting profile.md, the file a find named for "which editor", took the
    # employer and the city with it, and said only "forgot …")
    for fact in ("I work at Acme Corp", "My editor is Vim", "I live in Lisbon", "I was born in 1980"):
        assert ov("remember", fact).exit_code == 0
    profile = "viking://user/default/memories/profile.md"
    said, error = _tool("forget", {"uri": profile})
    assert not error and said.startswith(f"forgot {profile} (commit ")
    assert 'with all 4 of its lines, "- Works at Acme Corp"; "- Editor: Vim"; "- Lives in Lisbon" and 1 more' in said
    undo = said.split("to undo, run `")[1].rstrip("`")
    assert undo.startswith("ov snapshot restore ") and undo.endswith(f"~1 --uri {profile}")
    assert ov(*undo.split()[1:]).exit_code == 0  # what it says brings them all back
    assert "Acme" in ov("read", profile).stdout and "Lisbon" in ov("read", profile).stdout


def test_forget_takes_one_line_of_a_memory(ov):
    for fact in ("I work at Acme Corp", "My editor is Vim", "I live in Lisbon"):
        assert ov("remember", fact).exit_code == 0
    profile = "viking://user/default/memories/profile.md"
    said, error = _tool("forget", {"uri": profile, "match": "vim"})
    assert not error and said.startswith(f'forgot the line "- Editor: Vim" of {profile}, 2 lines kept (commit ')
    kept = ov("read", profile).stdout
    assert "Vim" not in kept and "Acme" in kept and "Lisbon" in kept and '"version": 4' in kept
    # By its number, as `read` shows it; the last fact takes the file with it.
    said, error = _tool("forget", {"uri": profile, "line": 2})
    assert not error and said.startswith(f'forgot the line "- Lives in Lisbon" of {profile}, 1 line kept')
    said, error = _tool("forget", {"uri": profile, "match": "lives"})
    assert error and said == f'no line of {profile} holds "lives"\nhint: its lines are: "- Works at Acme Corp"'
    said, error = _tool("forget", {"uri": profile, "line": 2})
    assert error and said.endswith('name one with "match"')
    assert _tool("forget", {"uri": profile, "match": "acme"})[0].startswith(f"forgot {profile} (commit ")
    assert ov("read", profile).exit_code == 1


def test_forget_refuses_a_match_of_several_lines(ov):
    for fact in ("I work at Acme Corp", "I live in Lisbon"):
        assert ov("remember", fact).exit_code == 0
    said = ov("forget", "viking://~/memories/profile.md", "--match", "o")
    assert said.exit_code == 2 and "2 lines of viking://user/default/memories/profile.md hold that text" in said.stderr
    assert "give --match more of the line's words, or its --line" in said.stderr
    assert "Lisbon" in ov("read", "viking://~/memories/profile.md").stdout
    wrong = ov("forget", "viking://~/memories/profile.md", "--line", "1", "--match", "Lisbon")
    assert wrong.exit_code == 2 and 'line 1 of viking://user/default/memories/profile.md does not hold "Lisbon": it is "- Works at Acme Corp"' in wrong.stderr
    done = ov("forget", "viking://~/memories/profile.md", "--line", "1", "--json").json["result"]
    assert done["lines"] == ["- Works at Acme Corp"] and done["kept"] == 1 and done["deleted"] is False


def test_forget_matches_text_typed_decomposed(ov):
    # "ç" typed as "c" and a combining cedilla (some keyboards, text pasted from a macOS file name)
    # is the stored "ç", as ov grep compares them; it was "no line holds" before.
    for fact in ("I work at Acme Corp", "I live in Besançon"):
        assert ov("remember", fact).exit_code == 0
    decomposed = "BESANC\u0327ON"
    assert ov("forget", "viking://~/memories/profile.md", "--line", "1", "--match", decomposed).exit_code == 2  # line 1 is Acme's
    done = ov("forget", "viking://~/memories/profile.md", "--match", decomposed, "--json").json["result"]
    assert done["lines"] == ["- Lives in Besançon"] and done["kept"] == 1
    assert "Acme" in ov("read", "viking://~/memories/profile.md").stdout


def test_remember_offers_only_the_types_a_text_can_be(ov):
    from ov.mcp.tools import definitions

    schema = next(t for t in definitions() if t["name"] == "remember")["inputSchema"]
    assert schema["properties"]["type"]["enum"] == ["profile", "preferences", "entities", "events"]
    said, error = _tool("remember", {"text": "Lesson learned: run the migrations before deploying", "type": "experiences"})
    assert error and said.startswith("ov learns memories of type experiences from a session")
    assert 'remember the lesson with no "type"' in said and '("type": "events")' in said


def test_add_resource_refuses_a_folder_past_the_limit_with_no_way_round_it(ov, tmp_path, ov_home):
    folder = tmp_path / "project"
    for i in range(4):
        (folder / "docs").mkdir(parents=True, exist_ok=True)
        (folder / "docs" / f"{i}.md").write_text(f"# Doc {i}\n")
    assert ov("config", "set", "ingest.max_source_files", "3").exit_code == 0
    said, error = _tool("add_resource", {"source": str(folder)})
    assert error and said.startswith(f"{folder} holds 4 files (") and "more than ingest.max_source_files (3 files) allows; the most in docs/ (4)" in said
    assert said.endswith('hint: add one of its subfolders, or leave parts out with "exclude"; `ov config set ingest.max_source_files N` raises the limit')
    assert not (ov_home / "accounts").exists()  # nothing written, not even the account


def test_find_reads_the_index_as_it_is_while_another_process_updates_it(ov, index_held, monkeypatch):
    # (found by an audit: a find waited up to store.lock_timeout, 9.1 s, for another process's
    # update, where the docs say it reads the index as it is and says it is behind)
    from ov.store.lock import WriteLock

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/jam.md", "--content", "Marmalade is made from oranges.\n").exit_code == 0
    assert ov("find", "marmalade").exit_code == 0
    assert ov("write", "viking://resources/tea.md", "--content", "Earl Grey is flavoured with bergamot.\n").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "8").exit_code == 0
    index_held()
    waits = []
    acquire = WriteLock.acquire

    def noted(lock, *args, **kwargs):
        waits.append((lock.path.name, lock.timeout))
        return acquire(lock, *args, **kwargs)

    monkeypatch.setattr(WriteLock, "acquire", noted)
    said, error = _tool("find", {"query": "marmalade"})
    assert waits and all(timeout == 0 for name, timeout in waits if name == "index.lock"), waits  # not store.lock_timeout
    assert not error and said.startswith("warning: the index is behind HEAD while another ov process brings it up to date")
    assert "viking://resources/jam.md" in said


def test_results_tell_the_model_only_what_its_tools_can_do(ov, ov_home, tmp_path):
    # (found by an audit: each of these said something the model could not act on, or nothing)
    from ov.hosts import hooklog

    assert ov("write", "viking://resources/notes/a.md", "--content", "alpha beta\n").exit_code == 0
    said, error = _tool("edit", {"uri": "viking://resources/notes/a.md", "old": "alpha", "new": "alpha"})
    assert not error and said == "viking://resources/notes/a.md is unchanged: `new` is the same as `old`; nothing changed, no commit"
    said, error = _tool("edit", {"uri": "viking://resources/notes/b.md", "old": "x", "new": "y"})
    assert error and said == 'viking://resources/notes/b.md does not exist\nhint: see what is there with `ls {"uri": "viking://resources/notes"}`'
    # A flat folder cut: a lower depth changes nothing, ls pages through it.
    for i in range(220):  # 220 names of 200 characters: past a result's 40,000
        (tmp_path / "flat").mkdir(exist_ok=True)
        (tmp_path / "flat" / f"{'n' * 200}{i:03}.md").write_text(f"# {i}\n")
    assert ov("add-resource", str(tmp_path / "flat")).exit_code == 0
    said, error = _tool("tree", {"uri": "viking://resources/flat", "depth": 100000})
    assert not error and said.endswith("ask for the tree of a subfolder (`uri`), or list the folder page by page with `ls` and its `offset`]")
    said, error = _tool("search", {"query": "alpha", "mode": "list", "budget": 50})
    assert error and said.startswith("a budget is for mode context")
    assert 'ask for "mode": "context"' in said and 'drop "budget"' in said, said
    # A session ov holds, or one a hook named (not captured before its first turn ends), is taken;
    # any other is refused.
    said, error = _tool("find", {"query": "alpha", "session": "cc-typo"})
    assert error and said.startswith("no session cc-typo is held by ov or named by its hooks")
    assert 'ls {"uri": "viking://~/sessions"}' in said
    hooklog.append(ov_home, {"event": "session-start", "session": "cc-new"})
    for tool in ("find", "search"):
        said, error = _tool(tool, {"query": "alpha", "session": "cc-new"})
        assert not error and "viking://resources/notes/a.md" in said, tool
    said, error = _tool("session_commit", {"session": "cc-typo"})
    assert error and said == 'session cc-typo does not exist\nhint: list sessions with `ls {"uri": "viking://~/sessions"}`'


def test_calls_piped_before_stdin_closes_are_all_answered_while_they_keep_ending(monkeypatch):
    """(review) The grace after stdin closed counted from the close: a script's calls piped in
    at once were answered only as far as LEFT_GRACE seconds went, the rest "not run" (a loaded
    machine's flake). Only LEFT_GRACE seconds without any call ending stop the server."""
    import io

    from ov.mcp import server as server_module, tools

    def slow(context, name, arguments, record=None, *, stop=None):
        time.sleep(0.3)
        return {"content": [{"type": "text", "text": f"remembered {arguments['text']}"}]}

    monkeypatch.setattr(tools, "call", slow)
    monkeypatch.setattr(server_module, "LEFT_GRACE", 1.0)
    calls = [_tool_call(n, "remember", {"text": f"fact {n}"}) for n in range(2, 10)]  # 2.4 s in all, one at a time
    out = io.BytesIO()
    assert server_module.Server(out=out).serve(io.BytesIO("".join(json.dumps(line) + "\n" for line in [INIT, *calls]).encode())) == 0
    answers = {a["id"]: a["result"] for a in map(json.loads, out.getvalue().decode().splitlines())}
    assert [answers[n]["content"][0]["text"] for n in range(2, 10)] == [f"remembered fact {n}" for n in range(2, 10)]
