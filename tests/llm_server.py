"""A scripted, OpenAI-compatible HTTP server on 127.0.0.1 for tests that reach an LLM.

Tests drive ov's real client stack (litellm and the openai SDK under it) against
this server instead of mocking them, so request building, timeouts, HTTP errors
and response parsing are all exercised. Replies come from per-endpoint queues
(``server.chat(...)``, ``server.error(...)``, ...) or, once a queue is empty,
from ``server.handler`` and finally a harmless default. Every request is recorded.

Use it from a test module::

    from tests.llm_server import llm_config, llm_server  # noqa: F401  (pytest fixtures)

    def test_x(llm_server, llm_config):
        llm_server.chat("# docs\\n\\nA reply.")
        ...  # call ov with llm_config
        assert "docs" in llm_server.requests[-1].prompt
"""

from __future__ import annotations

import hashlib
import json
import math
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ov.config import EmbeddingConfig, LLMConfig

API_KEY_ENV = "OV_TEST_LLM_API_KEY"
API_KEY = "sk-ov-test-dummy"
MODEL = "openai/test-model"
CHAT = "chat"
EMBEDDINGS = "embeddings"
_ROUTES = {
    "/v1/chat/completions": CHAT,
    "/chat/completions": CHAT,
    "/v1/embeddings": EMBEDDINGS,
    "/embeddings": EMBEDDINGS,
}
_PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@dataclass
class Reply:
    """One scripted HTTP answer. ``body`` that is not bytes or str is sent as JSON."""

    status: int = 200
    body: Any = None
    delay: float = 0.0  # seconds to wait before answering (longer than the client timeout = a timeout)
    content_type: str = "application/json"


@dataclass
class Request:
    """What the server received."""

    endpoint: str  # "chat" or "embeddings"
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw)

    @property
    def messages(self) -> list[dict]:
        return self.json.get("messages", [])

    @property
    def prompt(self) -> str:
        """The text of every message, joined: what the model was asked."""
        return "\n".join(_content_text(m.get("content")) for m in self.messages)


Handler = Callable[[Request], "Reply | None"]


@dataclass
class LLMServer:
    """Serve until :meth:`close`; ``base_url`` is what goes into ``llm.api_base``."""

    embedding_dim: int = 8
    handler: Handler | None = None
    requests: list[Request] = field(default_factory=list, repr=False)
    # The delayed requests whose client hung up before their answer was due.
    hung_up: list[Request] = field(default_factory=list, repr=False)
    _queues: dict[str, deque[Reply]] = field(default_factory=lambda: {CHAT: deque(), EMBEDDINGS: deque()}, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _hang_ups: threading.Condition = field(default_factory=threading.Condition, repr=False)
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)
    _httpd: ThreadingHTTPServer | None = field(default=None, repr=False)
    _thread: threading.Thread | None = field(default=None, repr=False)

    # --- lifecycle ---------------------------------------------------------

    def start(self) -> LLMServer:
        owner = self

        class _Handler(_RequestHandler):
            server_owner = owner

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        # A short poll interval keeps close() (and so every test's teardown) fast.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), name="llm-server", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._stop.set()  # wakes handlers sleeping in a scripted delay
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    # --- scripting ---------------------------------------------------------

    def script(self, reply: Reply, endpoint: str = CHAT) -> None:
        with self._lock:
            self._queues[endpoint].append(reply)

    def chat(
        self,
        text: str | None,
        *,
        prompt_tokens: int = 11,
        completion_tokens: int = 7,
        model: str = "test-model",
        delay: float = 0.0,
        usage: bool = True,
    ) -> None:
        """Queue a successful chat completion whose message content is ``text``."""
        self.script(Reply(body=chat_body(text, prompt_tokens, completion_tokens, model, usage), delay=delay))

    def embeddings(self, vectors: list[list[float]], *, delay: float = 0.0) -> None:
        """Queue a successful embeddings answer with exactly these vectors."""
        self.script(Reply(body=embeddings_body(vectors), delay=delay), EMBEDDINGS)

    def error(self, status: int = 500, message: str = "scripted failure", *, endpoint: str = CHAT, delay: float = 0.0) -> None:
        body = {"error": {"message": message, "type": "server_error", "param": None, "code": str(status)}}
        self.script(Reply(status=status, body=body, delay=delay), endpoint)

    def invalid_json(self, *, status: int = 200, endpoint: str = CHAT) -> None:
        self.script(Reply(status=status, body=b'{"choices": [', content_type="application/json"), endpoint)

    def delay(self, seconds: float, text: str = "# late\n\nToo late.", *, endpoint: str = CHAT) -> None:
        """Answer only after ``seconds``: longer than the client's timeout simulates a hung server."""
        body = chat_body(text) if endpoint == CHAT else embeddings_body([[0.0] * self.embedding_dim])
        self.script(Reply(body=body, delay=seconds), endpoint)

    @property
    def pending(self) -> int:
        with self._lock:
            return sum(len(q) for q in self._queues.values())

    def wait_hung_up(self, count: int = 1, *, within: float = 60.0) -> bool:
        """Whether ``count`` delayed requests were hung up by their client, waited for up to
        ``within`` s: a bound that only a hang reaches (the delays scripted are longer), not a
        measure of how fast the client hung up."""
        with self._hang_ups:
            return self._hang_ups.wait_for(lambda: len(self.hung_up) >= count, timeout=within)

    def chat_requests(self) -> list[Request]:
        return [r for r in self.requests if r.endpoint == CHAT]

    def embedding_requests(self) -> list[Request]:
        return [r for r in self.requests if r.endpoint == EMBEDDINGS]

    # --- serving -----------------------------------------------------------

    def _held(self, connection: socket.socket, request: Request, seconds: float) -> bool:
        """Holds a delayed answer ``seconds``; True when it is not to be sent: the server is closing,
        or the client hung up meanwhile (its request noted in :attr:`hung_up`)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self._stop.wait(min(left, 0.02)):
                return True
            # The request was read whole: the connection is readable only once the client closes it.
            if select.select([connection], [], [], 0)[0]:
                try:
                    closed = connection.recv(1, socket.MSG_PEEK) == b""
                except OSError:
                    closed = True
                if closed:
                    with self._lock:
                        self.hung_up.append(request)
                    with self._hang_ups:
                        self._hang_ups.notify_all()
                    return True
        return False

    def _answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            queue = self._queues[request.endpoint]
            scripted = queue.popleft() if queue else None
        if scripted is not None:
            return scripted
        if self.handler is not None:
            reply = self.handler(request)
            if reply is not None:
                return reply
        return self._default(request)

    def _default(self, request: Request) -> Reply:
        if request.endpoint == EMBEDDINGS:
            inputs = request.json.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            return Reply(body=embeddings_body([hash_vector(str(text), self.embedding_dim) for text in inputs]))
        return Reply(body=chat_body("OK"))


class _RequestHandler(BaseHTTPRequestHandler):
    # HTTP/1.0: one request per connection, so no idle keep-alive threads outlive a test.
    protocol_version = "HTTP/1.0"
    server_owner: LLMServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0].rstrip("/")
        endpoint = _ROUTES.get(path)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if endpoint is None:
            self._send(Reply(status=404, body={"error": {"message": f"no route {path}", "type": "not_found"}}))
            return
        owner = self.server_owner
        request = Request(endpoint, path, {k.lower(): v for k, v in self.headers.items()}, raw)
        reply = owner._answer(request)
        if reply.delay and owner._held(self.connection, request, reply.delay):
            return  # shutting down, or the client hung up: drop the connection unanswered
        self._send(reply)

    def do_GET(self) -> None:  # noqa: N802
        self._send(Reply(status=404, body={"error": {"message": "only POST is served", "type": "not_found"}}))

    def _send(self, reply: Reply) -> None:
        if isinstance(reply.body, bytes):
            data = reply.body
        elif isinstance(reply.body, str):
            data = reply.body.encode()
        else:
            data = json.dumps(reply.body).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout fired first)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output clean


# --- response bodies ---------------------------------------------------------


def chat_body(
    text: str | None,
    prompt_tokens: int = 11,
    completion_tokens: int = 7,
    model: str = "test-model",
    usage: bool = True,
) -> dict:
    body: dict[str, Any] = {
        "id": "chatcmpl-ov-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
    }
    if usage:
        body["usage"] = {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        }
    return body


def embeddings_body(vectors: list[list[float]], model: str = "test-embedding") -> dict:
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": list(v)} for i, v in enumerate(vectors)],
        "model": model,
        "usage": {"prompt_tokens": len(vectors), "total_tokens": len(vectors)},
    }


def hash_vector(text: str, dim: int) -> list[float]:
    """A unit vector that depends only on ``text``: stable default embeddings."""
    digest = hashlib.sha256(text.encode()).digest()
    raw = [(digest[i % len(digest)] - 127.5) / 127.5 for i in range(dim)]
    norm = math.sqrt(sum(x * x for x in raw)) or 1.0
    return [x / norm for x in raw]


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # the multi-part message form
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


# --- pytest helpers ----------------------------------------------------------


def make_llm_config(server: LLMServer, **overrides: Any) -> LLMConfig:
    """An LLMConfig pointing litellm's OpenAI client at ``server`` (``API_KEY_ENV`` must be set)."""
    values: dict[str, Any] = {
        "model": MODEL,
        "api_base": server.base_url,
        "api_key_env": API_KEY_ENV,
        "timeout": 10.0,
    }
    values.update(overrides)
    return LLMConfig(**values)


def make_embedding_config(server: LLMServer, **overrides: Any) -> EmbeddingConfig:
    """An EmbeddingConfig with provider litellm aimed at ``server`` (``API_KEY_ENV`` must be set)."""
    values: dict[str, Any] = {
        "provider": "litellm",
        "model": MODEL,
        "api_base": server.base_url,
        "api_key_env": API_KEY_ENV,
        "timeout": 10.0,
    }
    values.update(overrides)
    return EmbeddingConfig(**values)


@pytest.fixture
def llm_server(monkeypatch: pytest.MonkeyPatch):
    """A running :class:`LLMServer`; closed after the test."""
    # A proxy from the developer's environment would swallow loopback requests.
    for name in _PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    server = LLMServer().start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def llm_config(llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch) -> LLMConfig:
    """An enabled LLMConfig aimed at ``llm_server``, with its dummy API key in the environment."""
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    return make_llm_config(llm_server)
