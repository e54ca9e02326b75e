"""What every loopback model stub shares: the HTTP server thread, the request log, replies.

A stub binds ``127.0.0.1:0`` (a free port), serves from a background thread while its ``with``
block runs, and records every request as a :class:`StubRequest`. Subclasses implement
:meth:`StubServer.answer` for their API and ``text_of`` for their request format.

A test can also script the model's side of a turn: ``stub.script`` is a list of steps, each a
:class:`ToolCall` or a reply text, consumed one per model request that offers tools (a side call
the host makes with no tools, such as a title or a routing request, consumes nothing and gets
``reply``)::

    stub.script = [
        ToolCall("mcp__ov__find", {"query": "staging deploys"}),
        ToolCall("mcp__ov__remember", {"text": "I prefer squash merges"}),
        "done",
    ]
    host.run("...").check()
    find, remember = stub.calls_of("mcp__ov__")
    assert "deploy.md" in stub.tool_result(find)

A :class:`ToolCall` step waits for a request that offers one tool whose name contains
``name_contains``; until then such requests get ``reply`` (or, in a stub that knows its host
defers tools, the call that loads the tool first). Every call answered is kept in
``stub.calls``; :meth:`StubServer.tool_result` finds the text the host sent back for one.
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

DEFAULT_REPLY = "stub reply: ok"

# Keys that label a part of a message rather than carry what the model reads.
_LABEL_KEYS = frozenset(
    {"type", "role", "id", "call_id", "tool_use_id", "cache_control", "signature", "status", "model", "mimeType"}
)


@dataclass(frozen=True)
class StubRequest:
    """One request a stub received."""

    method: str
    path: str  # without the query string
    query: dict[str, str]
    headers: dict[str, str]  # names lower-cased
    body: Any  # the decoded JSON body; None when there was none or it was not JSON
    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"


Reply = str | Callable[[StubRequest], str]


@dataclass(frozen=True)
class ToolCall:
    """A scripted step: answer with a call of the one offered tool whose name contains
    ``name_contains`` (case-sensitive), with ``arguments``. Tool names are the host's: Claude Code
    ``mcp__ov__find``, Codex ``mcp__ov__find`` (namespace ``mcp__ov``, name ``find``), Gemini CLI
    ``mcp_ov_find``, OpenCode ``ov_find``."""

    name_contains: str
    arguments: dict[str, Any] = field(default_factory=dict)


Step = str | ToolCall


@dataclass(frozen=True)
class IssuedCall:
    """A tool call the stub answered a model request with."""

    name: str  # the tool as the host offered it (Codex: ``namespace__name``)
    arguments: dict[str, Any]
    call_id: str
    request_index: int  # where the request it answered is in ``stub.requests``
    step: ToolCall | None  # None for a call the stub made on its own (loading a deferred tool)


class ScriptError(AssertionError):
    """The script cannot be followed as written (a step matches several offered tools)."""


def json_response(value: Any, status: int = 200) -> Response:
    return Response(status, json.dumps(value).encode())


def sse_response(events: Iterable[tuple[str | None, Any]]) -> Response:
    """A whole event stream in one body: ``(event name or None, data)`` per event."""
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    return Response(200, "".join(chunks).encode(), "text/event-stream")


def flatten_text(value: Any) -> Iterable[str]:
    """Every string inside ``value`` except the values of labelling keys (type, role, ids)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from flatten_text(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _LABEL_KEYS:
                yield from flatten_text(item)


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


class StubServer:
    """Serves one model API on 127.0.0.1 while used as a context manager.

    ``reply`` is the text every model call answers with, or a function of the request that
    returns it; both can be changed between turns. ``script`` (empty: off) takes precedence
    over ``reply`` for the model requests that offer tools (module docstring); ``calls`` is
    every tool call it answered with. ``requests`` is a snapshot of everything received so far
    (thread-safe); ``errors`` holds exceptions raised while answering.
    """

    call_id_prefix = "call_stub"

    def __init__(self, reply: Reply = DEFAULT_REPLY) -> None:
        self.reply: Reply = reply
        self.script: list[Step] = []
        self.calls: list[IssuedCall] = []
        self.errors: list[BaseException] = []
        self._requests: list[StubRequest] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- what a subclass provides -------------------------------------------------

    def answer(self, request: StubRequest) -> Response:
        raise NotImplementedError

    def is_model_request(self, request: StubRequest) -> bool:
        raise NotImplementedError

    @staticmethod
    def text_of(request: StubRequest) -> str:
        raise NotImplementedError

    def offered_tools(self, request: StubRequest) -> list[str]:
        """The names of the tools a model request offers (none for a side call)."""
        return []

    def deferred_tools(self, request: StubRequest) -> list[str]:
        """Tools the request names but does not offer yet (Claude Code's ``ToolSearch``)."""
        return []

    def load_deferred(self, name: str) -> tuple[str, dict[str, Any]] | None:
        """The call (tool, arguments) that makes the host offer deferred tool ``name``."""
        return None

    @staticmethod
    def tool_results(request: StubRequest) -> dict[str, str]:
        """The text of every tool result a request carries, by call id."""
        return {}

    # --- what tests read ------------------------------------------------------------

    @property
    def requests(self) -> list[StubRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def model_requests(self) -> list[StubRequest]:
        return [r for r in self.requests if self.is_model_request(r)]

    def saw(self, text: str) -> bool:
        """True when some model request so far contained ``text``."""
        return any(text in self.text_of(r) for r in self.model_requests)

    def reply_text(self, request: StubRequest) -> str:
        return self.reply(request) if callable(self.reply) else self.reply

    def calls_of(self, name_contains: str = "") -> list[IssuedCall]:
        """The tool calls answered so far whose tool name contains ``name_contains``."""
        with self._lock:
            return [c for c in self.calls if name_contains in c.name]

    def tool_result(self, call: IssuedCall) -> str | None:
        """The text of ``call``'s result in the first later model request that carries it."""
        for request in self.requests[call.request_index + 1 :]:
            if self.is_model_request(request):
                results = self.tool_results(request)
                for key in (call.call_id, call.name):  # by name: a host that echoes no id
                    if key in results:
                        return results[key]
        return None

    def next_step(self, request: StubRequest) -> str | IssuedCall | None:
        """The scripted answer to a model request: a text, a tool call (recorded in ``calls``),
        or None when the script has nothing for it (the stub answers ``reply``)."""
        offered = self.offered_tools(request)
        if not offered:
            return None  # a side call (title, routing, classifier): never scripted
        with self._lock:
            if not self.script:
                return None
            step = self.script[0]
            if isinstance(step, str):
                self.script.pop(0)
                return step
            matches = [name for name in offered if step.name_contains in name]
            if len(matches) > 1:
                raise ScriptError(f"{step} matches several offered tools: {matches}")
            if matches:
                self.script.pop(0)
                return self._issue(request, matches[0], step.arguments, step)
            deferred = [name for name in self.deferred_tools(request) if step.name_contains in name]
            if len(deferred) > 1:
                raise ScriptError(f"{step} matches several deferred tools: {deferred}")
            loader = self.load_deferred(deferred[0]) if deferred else None
            if loader is None or loader[0] not in offered:
                return None
            if any(c.step is None and c.name == loader[0] and c.arguments == loader[1] for c in self.calls):
                raise ScriptError(f"{deferred[0]} is still not offered after {loader[0]} {loader[1]}")
            return self._issue(request, loader[0], loader[1], None)

    def issue(self, request: StubRequest, name_contains: str, arguments: dict[str, Any]) -> IssuedCall:
        """A call of the one tool ``request`` offers whose name contains ``name_contains``, for a
        test that answers by what each request holds rather than in script order (a parent and
        its subagent asking at once): set ``next_step`` to a function of the request that returns it."""
        (name,) = [name for name in self.offered_tools(request) if name_contains in name]
        with self._lock:
            return self._issue(request, name, arguments, None)

    def _issue(self, request: StubRequest, name: str, arguments: dict[str, Any], step: ToolCall | None) -> IssuedCall:
        # Called with the lock held.
        index = next(i for i, r in enumerate(self._requests) if r is request)
        call = IssuedCall(name, dict(arguments), f"{self.call_id_prefix}{len(self.calls) + 1:04d}", index, step)
        self.calls.append(call)
        return call

    # --- lifecycle ------------------------------------------------------------------

    def start(self) -> StubServer:
        stub = self

        class Handler(_Handler):
            owner = stub

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # A short poll interval keeps shutdown (every test's teardown) fast.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.02,), name=type(self).__name__, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "stub not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- serving --------------------------------------------------------------------

    def _serve(self, request: StubRequest) -> Response:
        with self._lock:
            self._requests.append(request)
        try:
            return self.answer(request)
        except Exception as exc:  # a stub bug must show in the test, not hang the host
            with self._lock:
                self.errors.append(exc)
            return json_response({"error": {"type": "stub_error", "message": repr(exc)}}, 500)


def not_found(request: StubRequest) -> Response:
    return json_response({"error": {"type": "not_found_error", "message": f"stub: no route {request.path}"}}, 404)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so no idle keep-alive thread outlives a test.
    protocol_version = "HTTP/1.0"
    owner: StubServer

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET  # noqa: N815

    def _handle(self) -> None:
        raw = self._read_body()
        parts = urlsplit(self.path)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = StubRequest(
            method=self.command,
            path=parts.path,
            query=dict(parse_qsl(parts.query)),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            raw=raw,
        )
        response = self.owner._serve(request)
        try:
            self.send_response(response.status)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(len(response.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(response.body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the host gave up on this request

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            raw = b"".join(chunks)
        else:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding == "gzip":
            raw = gzip.decompress(raw)
        elif encoding == "deflate":
            raw = zlib.decompress(raw)
        return raw

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # the request log is self.owner.requests
