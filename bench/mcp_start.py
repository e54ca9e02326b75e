"""``ov mcp`` from spawn to its ``tools/list`` answer, beside a server on the official MCP SDK.

Hosts start an MCP server per session and list its tools before the first model request; Codex
sends that request without waiting for a slow server, so a server that lists its tools late is a
session without them. Every sample here is a fresh process, driven as a host drives it: the
script spawns the server, writes ``initialize`` (protocolVersion ``2025-06-18``, as Codex sends
it), ``notifications/initialized`` and ``tools/list`` on its stdin at once, one JSON line each,
and reads stdout line by line. The clock runs from just before the spawn to the arrival of the
line that answers ``tools/list``; then stdin is closed and the process waited for (its exit time
is reported too, not targeted). Series, round-robin after untimed warm-up rounds:

* ``ov mcp``: the ``ov`` console script next to this Python (``ov/cli/entry.py`` goes straight to
  ``ov.mcp.server`` for this command line), ``OV_HOME`` a fresh temporary home;
* ``mcp SDK MCPServer``: a minimal server on the official SDK's own server API (mcp 2.x,
  ``mcp.server.mcpserver.MCPServer`` with one trivial tool, ``run()`` on stdio), written by this
  script to a temporary file and run by this venv's Python: what ov would cost on the SDK;
* ``ov mcp, first find``: the same ``ov mcp`` start, and once ``tools/list`` is answered, a
  ``tools/call`` of ``find`` on the empty store, as a host sends a model's first call; the clock
  stops at that answer. Heavy imports (retrieval, the index, dulwich) wait until a tool runs, so
  this is what the first real call costs. The server's own ``ms`` for the call (from
  ``$OV_HOME/logs/mcp.jsonl``) is reported beside it;
* ``python -c pass`` (the baseline): spawn to exit, stdin closed at once.

Also reported: the size of ov's ``tools/list`` result in tokens (``ov.tokens.estimate_tokens`` of
the result's JSON exactly as sent, the estimator ov's context budget uses), per tool, next to
OpenViking's ~5,350 (its 13 MCP tool definitions plus its start-up injection), and the
``instructions`` ov's ``initialize`` adds (hosts put those in the prompt too).

Issue targets: spawn -> ``tools/list`` answered p50 <= 150 ms (``ov mcp``), and all tool
definitions <= 1,500 tokens.

    .venv/bin/python bench/mcp_start.py [--reps 20] [--warmup 2] [--bytecode cached|source|inherit]
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path

import common

TARGET_LIST_P50_MS = 150.0
TARGET_TOOLS_TOKENS = 1500
OPENVIKING_PREFIX_TOKENS = 5350
PROTOCOL_VERSION = "2025-06-18"  # what Codex sends
ANSWER_TIMEOUT_S = 60.0
FIND_QUERY = "which database does billing use"

BASELINE = "python -c pass"
OV = "ov mcp"
SDK = "mcp SDK MCPServer"
OV_FIND = "ov mcp, first find"

SDK_SERVER = textwrap.dedent(
    '''\
    """A minimal MCP server on the official SDK's own server API (written by bench/mcp_start.py)."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")


    @server.tool()
    def echo(text: str) -> str:
        """Return the text unchanged."""
        return text


    if __name__ == "__main__":
        server.run()
    '''
)

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {"elicitation": {}}, "clientInfo": {"name": "bench-mcp-start", "version": "0"}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_ID = 1
TOOLS_LIST = {"jsonrpc": "2.0", "id": LIST_ID, "method": "tools/list", "params": {}}
CALL_ID = 2
FIND_CALL = {"jsonrpc": "2.0", "id": CALL_ID, "method": "tools/call", "params": {"name": "find", "arguments": {"query": FIND_QUERY}}}


def line(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode("utf-8") + b"\n"


class Lines:
    """stdout of a child read line by line, each line with the moment its last byte arrived."""

    def __init__(self, stream) -> None:
        self.fd = stream.fileno()
        os.set_blocking(self.fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.fd, selectors.EVENT_READ)
        self.buffer = b""
        self.eof = False
        self.arrived = 0.0

    def until_id(self, request_id, deadline: float) -> tuple[float, dict]:
        """(arrival time, message) of the first line whose JSON-RPC id is ``request_id``."""
        while True:
            while b"\n" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\n", 1)
                if raw.strip():
                    message = json.loads(raw)
                    if isinstance(message, dict) and message.get("id") == request_id and "method" not in message:
                        return self.arrived, message
            if self.eof:
                raise RuntimeError(f"stdout closed before the answer to id {request_id}")
            left = deadline - time.perf_counter()
            if left <= 0 or not self.selector.select(left):
                raise RuntimeError(f"no answer to id {request_id} within {ANSWER_TIMEOUT_S:.0f} s")
            chunk = os.read(self.fd, 1 << 16)
            self.arrived = time.perf_counter()
            if not chunk:
                self.eof = True
            self.buffer += chunk

    def close(self) -> None:
        self.selector.close()


@dataclass
class Sample:
    """One process: seconds from spawn to each answer (by id) and to exit, its CPU, the answers."""

    answered: dict = field(default_factory=dict)
    answers: dict = field(default_factory=dict)
    exit: float = 0.0
    cpu: float = 0.0


def drive(argv: list[str], env: dict[str, str], *, follow_up: bool = False, stderr_dir: Path) -> Sample:
    """Spawn ``argv``, write initialize + initialized + tools/list, time the answers, close stdin, wait.

    With ``follow_up``, ``find`` is called once ``tools/list`` is answered (as a host calls a tool
    after the listing), and its answer timed too. With ``argv`` the baseline, nothing is written.
    """
    sample = Sample()
    with tempfile.TemporaryFile(dir=stderr_dir) as err:
        cpu_before = common.children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=common.CHILD_CWD, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err)
        lines = Lines(proc.stdout)
        try:
            if argv[1:] != ["-c", "pass"]:
                proc.stdin.write(line(INITIALIZE) + line(INITIALIZED) + line(TOOLS_LIST))
                proc.stdin.flush()
                deadline = start + ANSWER_TIMEOUT_S
                for request_id in (INITIALIZE["id"], LIST_ID):
                    arrived, message = lines.until_id(request_id, deadline)
                    sample.answered[request_id], sample.answers[request_id] = arrived - start, message
                if follow_up:
                    proc.stdin.write(line(FIND_CALL))
                    proc.stdin.flush()
                    arrived, message = lines.until_id(CALL_ID, deadline)
                    sample.answered[CALL_ID], sample.answers[CALL_ID] = arrived - start, message
            proc.stdin.close()
            os.set_blocking(lines.fd, True)
            proc.stdout.read()  # the rest, until the process closes it
            code = proc.wait(timeout=ANSWER_TIMEOUT_S)
            sample.exit = time.perf_counter() - start
            sample.cpu = common.children_cpu() - cpu_before
        except BaseException:
            proc.kill()
            proc.wait()
            err.seek(0)
            print(f"{' '.join(argv)} stderr:\n{err.read().decode(errors='replace')[-2000:]}", file=sys.stderr)
            raise
        finally:
            lines.close()
        if code != 0:
            err.seek(0)
            raise RuntimeError(f"{' '.join(argv)} exited {code}: {err.read().decode(errors='replace')[-500:]}")
    for request_id, message in sample.answers.items():
        if "error" in message:
            raise RuntimeError(f"{' '.join(argv)} answered id {request_id} with an error: {message['error']}")
    return sample


def log_records(path: Path, seen: int) -> tuple[list[dict], int]:
    """Records appended to ``$OV_HOME/logs/mcp.jsonl`` after the first ``seen`` lines."""
    if not path.exists():
        return [], seen
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines[seen:] if x.strip()], len(lines)


def compact(value) -> str:
    """JSON as ov's server writes it (``ov.mcp.server.Server.send``)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="timed spawns per server (default 20)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed rounds first (default 2)")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header("mcp_start: ov mcp from spawn to tools/list, beside the official SDK's server and python -c pass")

    from importlib.metadata import version

    from ov.tokens import estimate_tokens

    ov = common.ov_command()
    sdk_version = version("mcp")
    report = common.Report("mcp_start", params=vars(args) | {"ov_command": ov, "mcp_sdk": sdk_version, "protocol_version": PROTOCOL_VERSION,
                                                             "find_query": FIND_QUERY, "git": common.git_state()})
    with common.temp_home("ov-bench-mcp", keep=args.keep) as home, common.temp_home("ov-bench-mcp-sdk", keep=args.keep) as scratch:
        sdk_script = scratch / "sdk_server.py"
        sdk_script.write_text(SDK_SERVER, encoding="utf-8")
        env = common.bench_env(home, args.bytecode)
        series: dict[str, tuple[list[str], bool]] = {  # name -> (argv, call find after the listing)
            BASELINE: ([sys.executable, "-c", "pass"], False),
            OV: ([*ov, "mcp"], False),
            SDK: ([sys.executable, str(sdk_script)], False),
            OV_FIND: ([*ov, "mcp"], True),
        }
        # the ov the series run (an editable install: this checkout's package)
        report.params["ov_package"] = common.run_timed([sys.executable, "-c", "import ov; print(ov.__file__)"], env).stdout.strip()
        log = home / "logs" / "mcp.jsonl"
        seen = 0
        samples: dict[str, list[Sample]] = {name: [] for name in series}
        find_ms: list[float] = []  # the ms ov logged for each timed find
        for rep in range(args.warmup + args.reps):
            for name, (command, follow_up) in series.items():  # round-robin: noise hits every series alike
                sample = drive(command, env, follow_up=follow_up, stderr_dir=scratch)
                records, seen = log_records(log, seen)
                if rep < args.warmup:
                    continue
                samples[name].append(sample)
                if follow_up:
                    calls = [r for r in records if r.get("tool") == "find"]
                    if len(calls) != 1 or calls[0].get("outcome") != "ok":
                        raise RuntimeError(f"expected one successful find in {log}, got {calls}")
                    find_ms.append(calls[0]["ms"])

        # --- timing
        base_p50 = common.percentile([s.exit for s in samples[BASELINE]], 50) * 1000
        rows = []
        for name, runs in samples.items():
            stop = CALL_ID if name == OV_FIND else LIST_ID
            clock = [s.exit for s in runs] if name == BASELINE else [s.answered[stop] for s in runs]
            stats = common.summarize(clock)
            stats["measured_to"] = "exit" if name == BASELINE else ("find answered" if name == OV_FIND else "tools/list answered")
            stats["ratio_p50_vs_python"] = common.ratio(stats["p50_ms"], base_p50)
            stats["over_python_p50_ms"] = stats["p50_ms"] - base_p50
            stats["exit"] = common.summarize([s.exit for s in runs])
            stats["cpu"] = common.summarize([s.cpu for s in runs])
            if name != BASELINE:
                stats["initialize_answered"] = common.summarize([s.answered[INITIALIZE["id"]] for s in runs])
                stats["negotiated_protocol"] = sorted({s.answers[INITIALIZE["id"]]["result"]["protocolVersion"] for s in runs})
                stats["server_info"] = runs[-1].answers[INITIALIZE["id"]]["result"].get("serverInfo")
            report.metrics[name] = stats
            rows.append((name, stats["measured_to"], stats["n"], stats["min_ms"], stats["p50_ms"], stats["p90_ms"], stats["max_ms"],
                         stats["ratio_p50_vs_python"], stats["exit"]["p50_ms"], stats["cpu"]["p50_ms"]))
        find = report.metrics[OV_FIND]
        find["tools_list_answered"] = common.summarize([s.answered[LIST_ID] for s in samples[OV_FIND]])
        find["after_tools_list"] = common.summarize([s.answered[CALL_ID] - s.answered[LIST_ID] for s in samples[OV_FIND]])
        find["server_logged_ms"] = {"n": len(find_ms), "p50": common.percentile(find_ms, 50), "p90": common.percentile(find_ms, 90), "max": max(find_ms)}
        find["answer"] = samples[OV_FIND][-1].answers[CALL_ID]["result"]["content"][0]["text"]
        common.print_table(
            ("server", "clock stops at", "n", "min ms", "p50 ms", "p90 ms", "max ms", "p50 / python", "exit p50 ms", "cpu p50 ms"),
            rows,
            title=f"From spawn (bytecode: {args.bytecode}; exit = spawn to exit, stdin closed after the answer; cpu = the process's user+sys)",
        )
        common.print_table(
            ("ov mcp, first find", "p50 ms", "p90 ms", "max ms"),
            [("spawn -> tools/list answered", find["tools_list_answered"]["p50_ms"], find["tools_list_answered"]["p90_ms"], find["tools_list_answered"]["max_ms"]),
             ("tools/list answered -> find answered", find["after_tools_list"]["p50_ms"], find["after_tools_list"]["p90_ms"], find["after_tools_list"]["max_ms"]),
             ("  of which the server's logged ms for the call", find["server_logged_ms"]["p50"], find["server_logged_ms"]["p90"], find["server_logged_ms"]["max"]),
             ("spawn -> find answered", find["p50_ms"], find["p90_ms"], find["max_ms"])],
            title=f"The first tool call after start (find {FIND_QUERY!r} on an empty store; answer: {find['answer']!r})",
        )

        # --- size of the tool definitions
        first = samples[OV][0]
        result = first.answers[LIST_ID]["result"]
        tools = result["tools"]
        sent = compact(result)
        instructions = first.answers[INITIALIZE["id"]]["result"].get("instructions") or ""
        per_tool = {t["name"]: estimate_tokens(compact(t)) for t in tools}
        sizes = {
            "tools": len(tools),
            "tokens": estimate_tokens(sent),
            "chars": len(sent),
            "tokens_whole_answer_line": estimate_tokens(compact(first.answers[LIST_ID])),
            "tokens_spaced_json": estimate_tokens(json.dumps(result)),  # json.dumps defaults, as tests/test_mcp.py counts
            "per_tool_tokens": per_tool,
            "instructions_tokens": estimate_tokens(instructions) if instructions else 0,
            "sdk_server_tokens": estimate_tokens(compact(samples[SDK][0].answers[LIST_ID]["result"])),
            "openviking_tokens": OPENVIKING_PREFIX_TOKENS,
            "identical_in_every_sample": all(compact(s.answers[LIST_ID]["result"]) == sent for s in samples[OV] + samples[OV_FIND]),
        }
        report.metrics["tool_definitions"] = sizes
        common.print_table(
            ("tools/list result", "tools", "tokens", "chars"),
            [("ov mcp: the result's JSON as sent", len(tools), sizes["tokens"], len(sent)),
             ("ov mcp: the whole answer line", len(tools), sizes["tokens_whole_answer_line"], len(compact(first.answers[LIST_ID]))),
             ("ov mcp: json.dumps defaults (spaces)", len(tools), sizes["tokens_spaced_json"], len(json.dumps(result))),
             ("ov mcp: initialize instructions (not in tools/list)", "-", sizes["instructions_tokens"], len(instructions)),
             (f"SDK server ({sdk_version}): one trivial tool", len(samples[SDK][0].answers[LIST_ID]["result"]["tools"]), sizes["sdk_server_tokens"], "-"),
             ("OpenViking: 13 MCP tools + start-up injection", 13, f"~{OPENVIKING_PREFIX_TOKENS:,}", "-")],
            title="Tool definitions (ov.tokens.estimate_tokens)",
        )
        common.print_table(("ov tool", "tokens"), sorted(per_tool.items(), key=lambda kv: -kv[1]), title="Per tool (its definition's JSON as sent)")

        report.targets.append(common.Target("ov mcp: spawn -> tools/list answered, p50", report.metrics[OV]["p50_ms"], TARGET_LIST_P50_MS))
        report.targets.append(common.Target("ov mcp: all tool definitions", sizes["tokens"], TARGET_TOOLS_TOKENS, unit="tokens"))
        report.notes.append(f"the SDK server is a comparison, not a target: p50 {report.metrics[SDK]['p50_ms']:.1f} ms, "
                            f"{common.ratio(report.metrics[SDK]['p50_ms'], report.metrics[OV]['p50_ms']):.1f}x ov's")

    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
