"""What a configured LLM costs a command besides the model's own time: ov's native client against litellm.

With ``llm.model`` set, `ov remember` asks the model which memory a text is, `ov search` asks it for
a query plan, and `ov commit` asks it for the session's memories. Before ov had its own client,
each of those processes imported litellm first (~10 s on a 2-core machine). This script times
those commands as fresh ``ov`` processes against a loopback OpenAI-compatible model server that
answers at once (so what is left is ov's own cost), in four configurations of one round-robin:

* ``offline``: no ``llm.model`` (the deterministic paths; the floor);
* ``native``: ``llm.model = openai/bench-model`` and ``llm.api_base`` the loopback server:
  ov's own client (``ov.llm.native``);
* ``litellm``: ``llm.model = custom_openai/bench-model``, litellm's name for the same
  OpenAI-compatible protocol, which ov leaves to litellm: the same requests to the same server
  through litellm (and the OpenAI SDK under it), i.e. the path every model took before;
* and, once per round, ``import litellm`` alone (``ov.llm.client.import_litellm`` in a fresh
  ``python -c``), beside ``python -c pass``.

Each configuration has its own ``OV_HOME`` with the same content (one resource file); the server
answers a plan request with a one-query plan and every other request with one memory, so each
LLM command makes exactly one call (checked). `ov commit` runs on a session added just before by
an untimed `ov session add`. Reported: p50/p90/max wall and CPU per command and configuration,
the litellm / native ratio of the p50s in the same run, and the issue's target: `ov remember` with
an LLM configured <= 1.5 s plus the model's own latency (here ~0).

    .venv/bin/python bench/llm_import.py [--reps 10] [--warmup 1] [--bytecode cached|source|inherit]
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import common

TARGET_REMEMBER_MS = 1500.0
KEY_ENV = "OV_BENCH_LLM_KEY"
CONFIGS = {"offline": None, "native": "openai/bench-model", "litellm": "custom_openai/bench-model"}
COMMANDS = ("remember", "search", "commit")
PLAN = {"reasoning": "deploys", "queries": [{"query": "staging deploys", "context_type": "resource", "intent": "how to deploy", "priority": 1}]}
MEMORY = {
    "memories": [
        {
            "memory_type": "preferences",
            "fields": {"subject": "default", "topic": "merges", "content": "- Prefers squash merges"},
            "source_message_ids": ["remember", "u1"],
        }
    ]
}


class ModelServer:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that answers every request at once."""

    def __init__(self) -> None:
        self.calls = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                prompt = json.dumps(body.get("messages", []))
                answer = PLAN if '\\"queries\\"' in prompt else MEMORY
                reply = {
                    "id": "bench",
                    "object": "chat.completion",
                    "model": body.get("model", "bench-model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(answer)}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                }
                data = json.dumps(reply).encode()
                owner.calls += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args) -> None:  # noqa: A002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10, help="timed runs of each command per configuration (default 10)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header("llm_import: ov remember / search / commit with an LLM configured, ov's own client against litellm")

    ov = common.ov_command()
    report = common.Report("llm_import", params=vars(args) | {"ov_command": ov, "configs": CONFIGS, "git": common.git_state()})
    server = ModelServer()
    try:
        with common.temp_homes(len(CONFIGS), "ov-bench-llm", keep=args.keep) as homes:
            envs: dict[str, dict[str, str]] = {}
            for (name, model), home in zip(CONFIGS.items(), homes):
                env = common.bench_env(home, args.bytecode)
                env[KEY_ENV] = "sk-bench"
                env["NO_PROXY"] = "127.0.0.1,localhost"
                for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
                    env.pop(variable, None)
                envs[name] = env
                common.run_timed([*ov, "write", "viking://resources/ops/deploy.md", "--content", "# Deploy\n\nStaging deploys run with make ship.\n"], env)
                if model:
                    for key, value in (("llm.model", model), ("llm.api_base", server.base_url), ("llm.api_key_env", KEY_ENV)):
                        common.run_timed([*ov, "config", "set", key, value], env)
            python = [sys.executable, "-c", "pass"]
            importer = [sys.executable, "-c", "from ov.llm.client import import_litellm; import_litellm()"]
            walls: dict[str, list[float]] = {}
            cpus: dict[str, list[float]] = {}
            for rep in range(args.warmup + args.reps):
                timed = rep >= args.warmup
                # Alternate the order of the configurations so that load hits each alike.
                order = list(CONFIGS) if rep % 2 == 0 else list(reversed(CONFIGS))
                for command in COMMANDS:
                    for name in order:
                        env = envs[name]
                        if command == "remember":
                            argv = [*ov, "remember", f"Atlas merges are squashed (note {rep})"]  # no rule reads it: the model is asked
                        elif command == "search":
                            argv = [*ov, "search", "how do staging deploys run?"]
                        else:
                            session = f"bench-{rep}"
                            common.run_timed([*ov, "session", "add", session, "--role", "user", "--text", "I prefer squash merges.", "--id", "u1"], env)
                            argv = [*ov, "commit", session]
                        before = server.calls
                        run = common.run_timed(argv, env)
                        calls = server.calls - before
                        expected = 0 if CONFIGS[name] is None else 1
                        if calls != expected:
                            raise RuntimeError(f"{command} ({name}) made {calls} model calls, expected {expected}: {run.stderr[-500:]}")
                        if timed:
                            walls.setdefault(f"{command}/{name}", []).append(run.wall)
                            cpus.setdefault(f"{command}/{name}", []).append(run.cpu)
                for label, argv in (("python -c pass", python), ("import litellm", importer)):
                    run = common.run_timed(argv, envs["offline"])
                    if timed:
                        walls.setdefault(label, []).append(run.wall)
                        cpus.setdefault(label, []).append(run.cpu)
    finally:
        server.close()

    rows = []
    for label, samples in walls.items():
        stats = common.summarize(samples)
        stats["cpu"] = common.summarize(cpus[label])
        report.metrics[label] = stats
        rows.append((label, stats["n"], stats["min_ms"], stats["p50_ms"], stats["p90_ms"], stats["max_ms"], stats["cpu"]["p50_ms"]))
    common.print_table(("command/configuration", "n", "min ms", "p50 ms", "p90 ms", "max ms", "cpu p50 ms"), rows, title=f"Fresh ov processes (bytecode: {args.bytecode})")

    ratios = []
    for command in COMMANDS:
        native, litellm, offline = (report.metrics[f"{command}/{name}"]["p50_ms"] for name in ("native", "litellm", "offline"))
        entry = {
            "litellm_over_native": common.ratio(litellm, native),
            "native_minus_offline_ms": native - offline,
            "litellm_minus_native_ms": litellm - native,
        }
        report.metrics[f"{command}/ratios"] = entry
        ratios.append((command, offline, native, litellm, entry["litellm_over_native"], entry["native_minus_offline_ms"]))
    common.print_table(
        ("command", "offline p50 ms", "native p50 ms", "litellm p50 ms", "litellm / native", "native - offline ms"),
        ratios,
        title="The same commands, the same server, in the same run",
        digits=2,
    )
    report.targets.append(common.Target("ov remember with an LLM configured (native client), p50, model latency ~0", report.metrics["remember/native"]["p50_ms"], TARGET_REMEMBER_MS))
    report.notes.append(f"model calls served: {server.calls}")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
