"""``ov mcp``: MCP over stdio, one JSON-RPC message per line, nothing but protocol on stdout.

The protocol ov needs is small: ``initialize`` (answered with the client's protocol version when
ov supports it, else ov's newest), ``notifications/initialized``, ``ping``, ``tools/list`` and
``tools/call``; any other request gets -32601 and other notifications are ignored. It is served
by this loop rather than the official SDK's server, which takes over a second to import here:
Codex sends its first model request before a slow server has listed its tools. (The SDK's own
client drives every test, so conformance is checked by the reference implementation.)

Calls run on a small pool of threads, so a slow ``add_resource`` does not hold up a ``find``;
calls that change the store (the tools not marked read-only) run one at a time on a thread of
their own, in the order they arrived: "My editor is Vim", then "... Helix" sent together must leave
Helix, as they would one after the other. Answers are written whole, one per line, under a lock. When stdin closes, calls still running
are answered before the process exits. A client that goes away (its end of stdout closed: the
host quit) ends the session, which is not an error: nothing more is read, the calls already
received run to their end and are logged, and the process exits 0. Each call opens the store
afresh: no lock is held between calls, and what hooks and the CLI wrote meanwhile is seen (the
index catches up before a read). The embedder is the exception: the first ``find`` or ``search``
loads its model (seconds for the MiniLM tier, which imports torch) and the server keeps it for
every later call while the config and the model on disk stay the same
(:class:`~ov.index.embedders.registry.WarmEmbedders`). Nothing is loaded before that, so
``initialize`` and ``tools/list`` answer at once.
Logs go to ``$OV_HOME/logs/mcp.jsonl``, never to stdout, rotated as the hooks' log is
(:func:`ov.files.append_log`: past 4 MiB it becomes ``mcp.jsonl.1``); the record of the call that
loaded a model says so (``loaded``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# Newest first; a client asking for one of these gets it back.
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
WORKERS = 4
MAX_LINE = 64 * 1024 * 1024

_SURROGATE = re.compile("[\ud800-\udfff]")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602


class Server:
    def __init__(self, out=None, *, identity_flags: dict | None = None, environ=None) -> None:
        self.out = out if out is not None else sys.stdout.buffer
        self.environ = os.environ if environ is None else environ
        self.flags = identity_flags or {}
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="ov-mcp")
        self.writes = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ov-mcp-write")
        self.pending: set = set()
        self._context = None
        self.client: str | None = None  # the client's name (initialize's clientInfo.name): commits say "via mcp NAME"
        self.gone = False  # the client closed its end of stdout: nothing more can reach it

    # --- the loop ---------------------------------------------------------------------

    def serve(self, stdin=None) -> int:
        stream = stdin if stdin is not None else sys.stdin.buffer
        for raw in iter(lambda: stream.readline(MAX_LINE), b""):
            line = raw.strip()
            if line:
                self.handle_line(line)
            if self.gone:
                break  # the client went away: the session is over
        for future in list(self.pending):  # stdin closed: answer what is still running
            future.result()
        self.pool.shutdown(wait=True)
        self.writes.shutdown(wait=True)
        return 0

    def handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError as exc:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": f"not JSON: {exc}"}})
            return
        except RecursionError:  # the parser recurses once per nested array or object
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": "not JSON this server reads: nested too deeply"}})
            return
        if not isinstance(message, list):
            self.handle(message, self.send)
        elif not message:
            self.send({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": "an empty batch"}})
        else:  # a batch (JSON-RPC 2.0, MCP 2025-03-26): its answers go back as one array
            batch = _Batch(self.send)
            batch.close(sum(self.handle(item, batch.add) for item in message))

    def handle(self, message, send) -> bool:
        """Answer ``message`` through ``send`` (a message a time), now or from a worker thread;
        whether it is answered at all (notifications and answers are not)."""
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            if isinstance(message, dict) and ("result" in message or "error" in message):
                return False  # an answer to a request ov never sends
            send({"jsonrpc": "2.0", "id": _id(message), "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC request"}})
            return True
        method, params, request_id = message["method"], message.get("params") or {}, message.get("id")
        if "id" not in message:
            return False  # notifications: initialized, cancelled, ...: nothing to answer
        if message.get("jsonrpc") != "2.0" or not _valid_id(request_id):
            send({"jsonrpc": "2.0", "id": _id(message), "error": {"code": INVALID_REQUEST, "message": "not a JSON-RPC 2.0 request (jsonrpc \"2.0\", an id that is a string or an integer)"}})
            return True
        if method == "tools/call":
            pool = self.writes if self._changes_the_store(params) else self.pool
            future = pool.submit(self._call, request_id, params, send)
            with self.lock:
                self.pending.add(future)
            future.add_done_callback(self._done)
            return True
        if method == "initialize":
            send(_result(request_id, self._initialize(params)))
        elif method == "ping":
            send(_result(request_id, {}))
        elif method == "tools/list":
            from ov.mcp.tools import definitions

            send(_result(request_id, {"tools": definitions()}))
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": METHOD_NOT_FOUND, "message": f"method not found: {method}"}})
        return True

    def _changes_the_store(self, params) -> bool:
        from ov.mcp.tools import CHANGES_STORE

        return isinstance(params, dict) and params.get("name") in CHANGES_STORE

    def _done(self, future) -> None:
        with self.lock:
            self.pending.discard(future)

    # --- methods ------------------------------------------------------------------------

    def _initialize(self, params: dict) -> dict:
        from ov import __version__

        asked = params.get("protocolVersion") if isinstance(params, dict) else None
        info = params.get("clientInfo") if isinstance(params, dict) else None
        name = info.get("name") if isinstance(info, dict) else None
        self.client = name if isinstance(name, str) else None
        if self._context is not None:
            self._context.via = self._via()
        version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
        return {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "ov", "version": __version__},
            "instructions": "ov is the user's local memory and knowledge store. Search it before work that may have history; remember decisions and facts worth keeping.",
        }

    def _call(self, request_id, params, send) -> None:
        started = time.monotonic()
        record: dict = {"tool": params.get("name") if isinstance(params, dict) else None}
        try:
            send(self._answer(request_id, params, record))
        finally:
            # Whatever became of the answer, the call happened (a commit, say): it is logged.
            if self.gone:
                record["client"] = "gone"  # the answer did not reach it
            self._log(record, started)

    def _answer(self, request_id, params, record: dict) -> dict:
        """The answer to a ``tools/call``; its outcome is noted in ``record``."""
        name = record["tool"]
        arguments = params.get("arguments") if isinstance(params, dict) else None
        try:
            from ov.mcp.tools import call

            context = self.context()
            result = call(context, name, arguments if arguments is not None else {}, record)
            record["outcome"] = "error" if result.get("isError") else "ok"
            loaded = context.embedders.newly_loaded()
            if loaded:
                record["loaded"] = loaded
        except UnknownTool as exc:
            record["outcome"] = "unknown tool"
            return {"jsonrpc": "2.0", "id": request_id, "error": {"code": INVALID_PARAMS, "message": str(exc)}}
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - a bug in a tool (or a Rust panic, a BaseException): the client gets a tool error, the server lives
            result = {"content": [{"type": "text", "text": f"ov failed: {type(exc).__name__}: {exc}"}], "isError": True}
            record.update(outcome="error", error=f"{type(exc).__name__}: {exc}")
        if result.get("isError") and "error" not in record:
            record["error"] = result["content"][0]["text"][:500]
        return _result(request_id, result)

    def context(self):
        """Home and identity, resolved once (flags of the registered command, env, config)."""
        if self._context is None:
            from ov.mcp.tools import Context

            self._context = Context.resolve(self.flags, self.environ)
            self._context.via = self._via()
        return self._context

    def _via(self) -> str:
        return f"mcp {self.client}" if self.client else "mcp"

    # --- writing ------------------------------------------------------------------------

    def send(self, message) -> None:
        """Write one answer (or a batch's array of them) as one line."""
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
        try:
            data = text.encode("utf-8") + b"\n"
        except UnicodeEncodeError:
            # A lone surrogate (an id or method the client sent as "\ud800", a file name that was
            # not UTF-8) has no UTF-8 form: U+FFFD stands in, so the answer is still sent.
            data = _SURROGATE.sub("\ufffd", text).encode("utf-8") + b"\n"
        with self.lock:
            if self.gone:
                return
            try:
                self.out.write(data)
                self.out.flush()
            except (BrokenPipeError, ConnectionResetError):
                # The client closed its end (the host quit, perhaps mid-call): the end of the
                # session, which serve() sees after the line it is handling.
                self.gone = True

    def _log(self, record: dict, started: float) -> None:
        record["ms"] = round((time.monotonic() - started) * 1000, 1)
        try:
            from ov.files import append_log
            from ov.home import Home

            home = Home.from_env(self.environ)
            append_log(log_path(home.root), record, home.ensure)
        except OSError:
            pass  # a log that cannot be written never fails a call


class UnknownTool(LookupError):
    pass


class _Batch:
    """The answers to a batch's requests, sent as one array once the last is in (some come from
    worker threads, before or after the batch has been read to its end)."""

    def __init__(self, send) -> None:
        self.expected: int | None = None  # known once every request of the batch was handled
        self.answers: list = []
        self.lock = threading.Lock()
        self.send = send

    def add(self, message: dict) -> None:
        with self.lock:
            self.answers.append(message)
            complete = len(self.answers) == self.expected
        if complete:
            self.send(self.answers)

    def close(self, expected: int) -> None:
        """Every request was handled; ``expected`` answers are coming (none: nothing is sent)."""
        with self.lock:
            self.expected = expected
            complete = expected > 0 and len(self.answers) == expected
        if complete:
            self.send(self.answers)


def _result(request_id, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _valid_id(request_id) -> bool:
    return isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))


def _id(message):
    """The id to answer an invalid request with: its own when it is a valid one, else null."""
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if _valid_id(request_id) else None


def main(flags: dict | None = None) -> int:
    """The ``ov mcp`` process."""
    return Server(identity_flags=flags).serve()


def log_path(home_root: Path) -> Path:
    return home_root / "logs" / "mcp.jsonl"
