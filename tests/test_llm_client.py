"""ov's own model client (ov.llm.native, ov.llm.routes, ov.llm.wire) against loopback servers.

Every call goes through :func:`ov.llm.client.complete` (or the API embedder) and a real HTTP
server on 127.0.0.1: the OpenAI-compatible :class:`tests.llm_server.LLMServer`, the Anthropic
Messages stub the real-host tests use, and small scripted servers on the same stub base for
Anthropic errors and Ollama. Requests are checked as sent (path, headers, body); answers,
token usage and every failure as the caller sees them.
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from ov.config import EmbeddingConfig, LLMConfig
from ov.index.embedders.api import LiteLLMEmbedder
from ov.index.embedders.base import EmbeddingError
from ov.llm import routes
from ov.llm.client import LLMError, complete, served_by_litellm
from tests.llm_server import API_KEY, API_KEY_ENV, LLMServer, Reply, chat_body, llm_config, llm_server, make_llm_config  # noqa: F401  (fixtures)
from tests.stubs.anthropic import AnthropicStub
from tests.stubs.base import Response, StubRequest, StubServer, json_response, not_found

HI = [{"role": "user", "content": "hi"}]
PROVIDER_VARIABLES = (
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION", "OPENAI_PROJECT_ID",
    "ANTHROPIC_API_KEY", "ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL", "OLLAMA_API_BASE", "OLLAMA_API_KEY",
    "OPENROUTER_API_KEY", "OPENROUTER_API_BASE", "OR_API_KEY", "HOSTED_VLLM_API_BASE", "HOSTED_VLLM_API_KEY",
    "LM_STUDIO_API_BASE", "LM_STUDIO_API_KEY", "LLAMAFILE_API_BASE", "LLAMAFILE_API_KEY",
    "AZURE_API_BASE", "AZURE_API_KEY", "AZURE_API_VERSION", "CUSTOM_OPENAI_API_BASE", "CUSTOM_OPENAI_BASE_URL",
)  # fmt: skip


PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def no_provider_variables(monkeypatch):
    """The developer's own keys, base URLs and proxies must not reach these tests (nor the servers)."""
    for name in PROVIDER_VARIABLES + PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


class Scripted(StubServer):
    """A loopback server answering POSTs from a queue of (status, JSON body or bytes, delay); 404 when empty."""

    def __init__(self) -> None:
        super().__init__()
        self.queue: deque[tuple[int, object, float]] = deque()
        self._stop = threading.Event()

    def push(self, body: object, status: int = 200, delay: float = 0.0) -> None:
        self.queue.append((status, body, delay))

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST"

    def answer(self, request: StubRequest) -> Response:
        if not self.queue:
            return not_found(request)
        status, body, delay = self.queue.popleft()
        if delay:
            self._stop.wait(delay)
        return Response(status, body) if isinstance(body, bytes) else json_response(body, status)

    def close(self) -> None:
        self._stop.set()
        super().close()


@pytest.fixture
def scripted():
    with Scripted() as server:
        yield server


# --- routing: litellm's model strings ----------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("openai/gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("o3-mini", ("openai", "o3-mini")),
        ("chatgpt-4o", ("openai", "chatgpt-4o")),
        ("anthropic/claude-3-5-haiku-20241022", ("anthropic", "claude-3-5-haiku-20241022")),
        ("claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
        ("ollama/llama3", ("ollama", "llama3")),
        ("ollama_chat/qwen2.5:7b", ("ollama_chat", "qwen2.5:7b")),
        ("openrouter/meta-llama/llama-3.1-8b-instruct", ("openrouter", "meta-llama/llama-3.1-8b-instruct")),
        ("hosted_vllm/Qwen/Qwen2.5-7B", ("hosted_vllm", "Qwen/Qwen2.5-7B")),
        ("lm_studio/phi-4", ("lm_studio", "phi-4")),
        ("llamafile/mistral", ("llamafile", "mistral")),
        # litellm's: other providers, its own aliases, catalogue look-ups of bare names, text completions
        ("bedrock/anthropic.claude-3-haiku-20240307-v1:0", None),
        ("vertex_ai/gemini-1.5-pro", None),
        ("azure/my-deployment", None),
        ("custom_openai/test-model", None),
        ("anthropic/claude-sonnet-latest", None),
        ("gemini-1.5-pro", None),
        ("gpt-3.5-turbo-instruct", None),
        ("no-such-model", None),
        ("openai/", None),
    ],
)
def test_model_strings_route_as_litellm_routes_them(model, expected):
    assert routes.provider_of(model) == expected
    assert served_by_litellm(model) is (expected is None)


def test_bases_and_keys_come_from_the_config_then_the_providers_variables(monkeypatch):
    openai = routes.route("openai/gpt-4o-mini", None, "sk-config")
    assert (openai.chat_url(), openai.headers) == ("https://api.openai.com/v1/chat/completions", {"Authorization": "Bearer sk-config"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://proxy.example/v1/")
    monkeypatch.setenv("OPENAI_ORGANIZATION", "org-1")
    env = routes.route("gpt-4o-mini", None, None)
    assert env.chat_url() == "https://proxy.example/v1/chat/completions"
    assert env.headers == {"Authorization": "Bearer sk-env", "OpenAI-Organization": "org-1"}
    assert routes.route("openai/x", "http://127.0.0.1:1/v1", "sk-config").base == "http://127.0.0.1:1/v1"  # api_base wins

    claude = routes.route("anthropic/claude-x", None, "sk-ant")
    assert claude.chat_url() == "https://api.anthropic.com/v1/messages"
    assert claude.headers == {"anthropic-version": "2023-06-01", "x-api-key": "sk-ant"}
    for base in ("http://127.0.0.1:9", "http://127.0.0.1:9/", "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1/messages"):
        assert routes.route("claude-x", base, None).chat_url() == "http://127.0.0.1:9/v1/messages"

    assert routes.route("ollama/llama3", None, None).chat_url() == "http://localhost:11434/api/chat"
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu-box:11434")
    assert routes.route("ollama/llama3", None, None).embeddings_url() == "http://gpu-box:11434/api/embed"
    assert routes.route("llamafile/m", None, None).chat_url() == "http://127.0.0.1:8080/v1/chat/completions"
    assert routes.route("hosted_vllm/m", "http://127.0.0.1:8000/v1", None).headers == {}  # a local server needs no key
    assert routes.route("anthropic/claude-x", None, "k", embeddings=True) is None  # no embeddings API: litellm says so


def test_a_public_endpoint_without_a_key_and_a_server_without_a_url_are_llm_errors(llm_server):
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="openai/gpt-4o-mini"), HI, purpose="test")
    assert "OPENAI_API_KEY" in info.value.message and "llm.api_key_env" in info.value.hint
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="anthropic/claude-3-5-haiku-20241022"), HI, purpose="test")
    assert "ANTHROPIC_API_KEY" in info.value.message
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="hosted_vllm/qwen"), HI, purpose="test")
    assert "llm.api_base" in info.value.message and "HOSTED_VLLM_API_BASE" in info.value.message
    # The same model at a local server without a key: sent without an Authorization header.
    llm_server.chat("local answer")
    assert complete(LLMConfig(model="openai/test-model", api_base=llm_server.base_url), HI, purpose="test").text == "local answer"
    assert "authorization" not in llm_server.requests[-1].headers


def test_a_base_url_with_a_password_is_refused_from_the_environment_as_from_the_config(llm_server, monkeypatch):
    """The config refuses an api_base holding user:password@; OPENAI_BASE_URL holding one was used
    (and only scrubbed from errors). Both are refused now, before any request, without the password."""
    port = llm_server.port
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://bob:hunter2secret@127.0.0.1:{port}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="openai/test-model"), HI, purpose="test")
    error = info.value
    assert "OPENAI_BASE_URL" in error.message and "user name or password" in error.message and "OPENAI_BASE_URL" in error.hint
    assert "hunter2secret" not in error.message + error.hint and "bob" not in error.message + error.hint
    with pytest.raises(EmbeddingError) as embedding:
        LiteLLMEmbedder(EmbeddingConfig(provider="litellm", model="openai/test-embed")).embed(["x"])
    assert "OPENAI_BASE_URL" in embedding.value.message and "hunter2secret" not in embedding.value.message
    # The same URL given as api_base (a config built in code skips the config's own check).
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="openai/test-model", api_base=f"http://bob:hunter2secret@127.0.0.1:{port}/v1"), HI, purpose="test")
    assert "llm.api_base" in info.value.message and "hunter2secret" not in info.value.message
    assert llm_server.requests == []
    # An @ past the host names no user: the variable is used.
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url + "?from=a@b")
    assert routes.route("openai/test-model", None, None).base == llm_server.base_url + "?from=a@b"


def test_a_base_url_with_a_password_is_refused_from_the_environment_litellm_reads_too(llm_server, monkeypatch):
    """A model litellm serves ("openai/...-latest", azure/...) read OPENAI_BASE_URL or AZURE_API_BASE
    holding user:password@ past ov's check, and sent its calls there. Refused as ov's own client
    refuses it, before any request, with the variable named and the password not."""
    port = llm_server.port
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    llm_server.chat("through litellm")
    # The control: litellm does read the variable (the call reaches the loopback server).
    assert complete(LLMConfig(model="openai/gpt-4o-latest"), HI, purpose="test").text == "through litellm"
    assert len(llm_server.requests) == 1
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://bob:hunter2secret@127.0.0.1:{port}/v1")
    for model in ("openai/gpt-4o-latest", "gpt-3.5-turbo-instruct"):
        with pytest.raises(LLMError) as info:
            complete(LLMConfig(model=model), HI, purpose="test")
        error = info.value
        assert "OPENAI_BASE_URL" in error.message and "user name or password" in error.message and "OPENAI_BASE_URL" in error.hint
        assert "hunter2secret" not in error.message + error.hint and "bob" not in error.message + error.hint
    with pytest.raises(EmbeddingError) as embedding:
        LiteLLMEmbedder(EmbeddingConfig(provider="litellm", model="text-completion-openai/test-embed")).embed(["x"])
    assert "OPENAI_BASE_URL" in embedding.value.message and "hunter2secret" not in embedding.value.message
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setenv("AZURE_API_BASE", f"https://bob:hunter2secret@127.0.0.1:{port}")
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="azure/my-deployment"), HI, purpose="test")
    assert "AZURE_API_BASE" in info.value.message and "hunter2secret" not in info.value.message
    # A given api_base is what litellm calls: the variable is not read, so it does not stand in the way.
    llm_server.chat("api_base wins")
    config = LLMConfig(model="custom_openai/test-model", api_base=llm_server.base_url)
    monkeypatch.setenv("CUSTOM_OPENAI_API_BASE", f"http://bob:hunter2secret@127.0.0.1:{port}/v1")
    assert complete(config, HI, purpose="test").text == "api_base wins"
    assert len(llm_server.requests) == 2


# --- OpenAI-compatible chat completions ----------------------------------------------------------


def test_the_request_is_what_litellm_sends(llm_server, llm_config):
    llm_server.chat("An answer.", prompt_tokens=31, completion_tokens=4, model="served-model")
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What is ov?"}]
    result = complete(llm_config, messages, purpose="test", temperature=0.25, max_tokens=77)
    assert (result.text, result.prompt_tokens, result.completion_tokens, result.model) == ("An answer.", 31, 4, "served-model")
    [request] = llm_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.headers["content-type"] == "application/json" and request.headers["user-agent"].startswith("ov/")
    assert request.json == {"model": "test-model", "messages": messages, "max_tokens": 77, "temperature": 0.25}


def test_config_defaults_and_a_missing_usage_block(llm_server, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    llm_server.chat("no usage here", usage=False, model="")
    result = complete(make_llm_config(llm_server, max_output_tokens=300, temperature=0.7), HI, purpose="test")
    assert (result.prompt_tokens, result.completion_tokens, result.model) == (0, 0, "openai/test-model")
    body = llm_server.requests[-1].json
    assert (body["max_tokens"], body["temperature"]) == (300, 0.7)


def test_the_providers_own_variables_reach_the_server(llm_server, monkeypatch):
    """A bare ``gpt-*`` name with only OPENAI_BASE_URL and OPENAI_API_KEY set, as the OpenAI SDK reads them."""
    monkeypatch.setenv("OPENAI_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-openai-variable")
    llm_server.chat("from the environment")
    assert complete(LLMConfig(model="gpt-4o-mini"), HI, purpose="test").text == "from the environment"
    request = llm_server.requests[-1]
    assert request.headers["authorization"] == "Bearer sk-from-openai-variable"
    assert request.json["model"] == "gpt-4o-mini"


def test_reasoning_models_get_max_completion_tokens_and_no_temperature(llm_server, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    llm_server.chat("thought about it")
    complete(make_llm_config(llm_server, model="openai/o3-mini"), HI, purpose="test", max_tokens=50)
    body = llm_server.requests[-1].json
    assert body["max_completion_tokens"] == 50 and "max_tokens" not in body and "temperature" not in body
    llm_server.chat("default temperature")
    complete(make_llm_config(llm_server, model="openai/gpt-5-mini", temperature=1.0), HI, purpose="test")
    assert llm_server.requests[-1].json["temperature"] == 1.0


def _rejects(param: str) -> Reply:
    error = {"message": f"Unsupported parameter: '{param}' is not supported with this model.", "type": "invalid_request_error", "param": param, "code": "unsupported_parameter"}
    return Reply(status=400, body={"error": error})


def test_a_parameter_the_server_rejects_by_name_is_dropped_once(llm_server, llm_config):
    llm_server.script(_rejects("temperature"))
    llm_server.script(_rejects("max_tokens"))
    llm_server.chat("answered in the end")
    assert complete(llm_config, HI, purpose="test", max_tokens=9).text == "answered in the end"
    first, second, third = (r.json for r in llm_server.requests)
    assert "temperature" in first and "temperature" not in second
    assert second["max_tokens"] == 9 and third["max_completion_tokens"] == 9 and "max_tokens" not in third
    # A rejection that names no parameter, or one already dropped, is the call's failure.
    llm_server.requests.clear()
    llm_server.error(400, "context length exceeded")
    with pytest.raises(LLMError, match="HTTP 400"):
        complete(llm_config, HI, purpose="test")
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(
    ("status", "message", "hint"),
    [
        (401, "refused the credentials", "llm.api_key_env"),
        (403, "refused the credentials", "llm.api_key_env"),
        (404, "does not know this model or endpoint", "llm.model"),
        (429, "is rate limiting", "try again later"),
        (500, "failed (HTTP 500)", "try again later"),
        (503, "failed (HTTP 503)", "try again later"),
        (422, "failed (HTTP 422)", "llm.model"),
    ],
)
def test_http_errors_are_one_llm_error_with_a_hint_and_no_retry(llm_server, llm_config, status, message, hint):
    llm_server.error(status, f"scripted {status}")
    with pytest.raises(LLMError) as info:
        complete(llm_config, HI, purpose="directory overview")
    error = info.value
    assert message in error.message and f"scripted {status}" in error.message
    assert hint in (error.hint or "")
    assert error.code == "llm_error" and error.exit_code == 1
    assert len(llm_server.requests) == 1  # no retries


def test_error_bodies_that_are_not_openais_still_say_what_happened(llm_server, llm_config):
    llm_server.script(Reply(status=502, body=b"<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"))
    with pytest.raises(LLMError) as info:
        complete(llm_config, HI, purpose="test")
    assert "HTTP 502" in info.value.message and "502 Bad Gateway" in info.value.message and "<h1>" not in info.value.message
    llm_server.script(Reply(status=500, body={"detail": "worker died"}))
    with pytest.raises(LLMError, match="worker died"):
        complete(llm_config, HI, purpose="test")


def test_a_timeout_is_an_llm_error_after_one_request(llm_server, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    llm_server.delay(5)
    with pytest.raises(LLMError) as info:
        complete(make_llm_config(llm_server, timeout=0.3), HI, purpose="test")
    assert "timed out after 0.3s" in info.value.message and "llm.timeout" in info.value.hint
    assert len(llm_server.requests) == 1


@pytest.mark.parametrize(
    "body",
    [b'{"choices": [', b"not json at all", b"[1, 2, 3]", b'{"choices": []}', b'{"choices": [7]}', b'{"object": "chat.completion"}'],
    ids=["truncated", "text", "array", "no-choices", "bad-choice", "no-choices-key"],
)
def test_malformed_answers_are_llm_errors(llm_server, llm_config, body):
    llm_server.script(Reply(body=body))
    with pytest.raises(LLMError) as info:
        complete(llm_config, HI, purpose="test")
    assert "cannot read" in info.value.message and "llm.api_base" in info.value.hint


def test_empty_answers_and_refused_connections(llm_server, llm_config, monkeypatch):
    llm_server.chat("")
    with pytest.raises(LLMError, match="empty answer"):
        complete(llm_config, HI, purpose="test")
    server = LLMServer().start()
    server.close()  # nothing listens there any more
    with pytest.raises(LLMError) as info:
        complete(make_llm_config(server), HI, purpose="test")
    assert "cannot reach" in info.value.message and "llm.api_base" in info.value.hint


def test_a_server_that_hangs_up_or_a_base_that_is_no_url(monkeypatch):
    listener = socket.create_server(("127.0.0.1", 0))

    def hang_up() -> None:
        connection, _ = listener.accept()
        connection.recv(65536)
        connection.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    try:
        with pytest.raises(LLMError) as info:
            complete(LLMConfig(model="openai/m", api_base=f"http://127.0.0.1:{listener.getsockname()[1]}/v1"), HI, purpose="test")
    finally:
        listener.close()
    assert "cannot reach" in info.value.message
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="openai/m", api_base="localhost:8080/v1"), HI, purpose="test")
    assert "is not an http(s) URL" in info.value.message and "llm.api_base" in info.value.hint


def test_no_redirect_is_followed(monkeypatch):
    """The OpenAI and Anthropic SDKs follow no redirect: a moved endpoint is a misconfiguration, not a new target."""
    seen: list[str] = []

    class Moved(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            seen.append(self.path)
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(307 if self.path.startswith("/v1/") else 200)
            self.send_header("Location", "/elsewhere/chat/completions")
            body = json.dumps(chat_body("followed")).encode()
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Moved)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        with pytest.raises(LLMError, match="HTTP 307"):
            complete(LLMConfig(model="openai/m", api_base=f"http://127.0.0.1:{server.server_address[1]}/v1"), HI, purpose="test")
    finally:
        server.shutdown()
        server.server_close()
    assert seen == ["/v1/chat/completions"]


def test_providers_ov_does_not_speak_still_go_through_litellm(llm_server, llm_config):
    """custom_openai/ is litellm's name for the same protocol: the fallback path, end to end."""
    llm_server.chat("through litellm", prompt_tokens=5, completion_tokens=3)
    config = make_llm_config(llm_server, model="custom_openai/test-model")
    result = complete(config, HI, purpose="test")
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("through litellm", 5, 3)
    assert llm_server.requests[-1].json["model"] == "test-model"
    llm_server.error(429, "slow down")
    with pytest.raises(LLMError, match="rate limiting"):
        complete(config, HI, purpose="test")


# --- Anthropic Messages -----------------------------------------------------------------------------


def test_anthropic_messages_against_the_claude_stub(monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, "sk-ant-test")
    with AnthropicStub(reply="Claude says hi") as stub:
        config = LLMConfig(model="anthropic/claude-3-5-haiku-20241022", api_base=stub.url, api_key_env=API_KEY_ENV, max_output_tokens=64)
        messages = [
            {"role": "system", "content": "You summarise."},
            {"role": "user", "content": "Summarise this."},
            {"role": "assistant", "content": "Not JSON."},
            {"role": "user", "content": "Fix it."},
            {"role": "user", "content": "Please."},
        ]
        result = complete(config, messages, purpose="test", temperature=0.0)
        [request] = stub.model_requests
    assert result.text == "Claude says hi" and result.model == "claude-3-5-haiku-20241022"
    assert result.prompt_tokens > 0 and result.completion_tokens > 0
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "sk-ant-test" and request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers
    assert request.body == {
        "model": "claude-3-5-haiku-20241022",
        "max_tokens": 64,
        "temperature": 0.0,
        "system": [{"type": "text", "text": "You summarise."}],
        "messages": [
            {"role": "user", "content": "Summarise this."},
            {"role": "assistant", "content": "Not JSON."},
            {"role": "user", "content": "Fix it.\n\nPlease."},
        ],
    }


def test_anthropic_usage_counts_cached_prompt_tokens(scripted, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", scripted.url)
    scripted.push(
        {
            "type": "message",
            "model": "claude-x-20250101",
            "content": [{"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "Part one. "}, {"type": "text", "text": "Part two."}],
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 100, "output_tokens": 12},
        }
    )
    result = complete(LLMConfig(model="claude-x-20250101"), HI, purpose="test")
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("Part one. Part two.", 115, 12)
    assert scripted.requests[-1].headers["x-api-key"] == "sk-ant-env"


@pytest.mark.parametrize(
    ("status", "kind", "message"),
    [(401, "authentication_error", "refused the credentials"), (429, "rate_limit_error", "rate limiting"), (529, "overloaded_error", "HTTP 529")],
)
def test_anthropic_errors(scripted, monkeypatch, status, kind, message):
    monkeypatch.setenv(API_KEY_ENV, "k")
    scripted.push({"type": "error", "error": {"type": kind, "message": f"anthropic says {kind}"}}, status)
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="anthropic/claude-x", api_base=scripted.url, api_key_env=API_KEY_ENV), HI, purpose="test")
    assert message in info.value.message and f"anthropic says {kind}" in info.value.message
    assert len(scripted.requests) == 1


def test_anthropic_answer_without_content_is_an_llm_error(scripted):
    scripted.push({"type": "message", "usage": {}})
    with pytest.raises(LLMError, match="cannot read"):
        complete(LLMConfig(model="anthropic/claude-x", api_base=scripted.url), HI, purpose="test")


# --- Ollama -------------------------------------------------------------------------------------------


def test_ollama_chat_and_its_token_counts(scripted):
    scripted.push({"model": "llama3", "message": {"role": "assistant", "content": "<think>\nLet me see.\n</think>\n\nLlamas hum."}, "done": True, "prompt_eval_count": 26, "eval_count": 5})
    config = LLMConfig(model="ollama/llama3", api_base=scripted.url + "/", max_output_tokens=128, temperature=0.2)
    result = complete(config, [{"role": "system", "content": "Short."}, *HI], purpose="test")
    assert (result.text.strip(), result.prompt_tokens, result.completion_tokens) == ("Llamas hum.", 26, 5)
    request = scripted.requests[-1]
    assert request.path == "/api/chat" and "authorization" not in request.headers
    assert request.body == {
        "model": "llama3",
        "messages": [{"role": "system", "content": "Short."}, {"role": "user", "content": "hi"}],
        "stream": False,
        "options": {"num_predict": 128, "temperature": 0.2},
    }


def test_ollama_errors(scripted):
    scripted.push({"error": 'model "llama9" not found, try pulling it first'}, 404)
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="ollama/llama9", api_base=scripted.url), HI, purpose="test")
    assert "does not know this model" in info.value.message and "try pulling it first" in info.value.message


# --- embeddings --------------------------------------------------------------------------------------


def test_openai_compatible_embeddings_natively(llm_server, monkeypatch, tmp_path):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    config = EmbeddingConfig(provider="litellm", model="openai/test-embedding", api_base=llm_server.base_url, api_key_env=API_KEY_ENV, timeout=5, batch_size=2)
    llm_server.embeddings([[3.0, 4.0], [0.0, 2.0]])
    embedder = LiteLLMEmbedder(config, usage_dir=tmp_path)
    vectors = embedder.embed(["alpha", "beta"])
    assert [[round(float(x), 3) for x in v] for v in vectors] == [[0.6, 0.8], [0.0, 1.0]]
    [request] = llm_server.embedding_requests()
    assert request.path == "/v1/embeddings" and request.headers["authorization"] == f"Bearer {API_KEY}"
    assert request.json == {"model": "test-embedding", "input": ["alpha", "beta"]}
    assert [json.loads(line)["prompt_tokens"] for line in (tmp_path / "usage.jsonl").read_text().splitlines()] == [2]
    llm_server.error(401, "bad key", endpoint="embeddings")
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["gamma"])
    assert "refused the credentials" in info.value.message and "embedding.api_key_env" in info.value.hint


def test_ollama_embeddings_natively(scripted, tmp_path):
    scripted.push({"model": "nomic-embed-text", "embeddings": [[1.0, 0.0], [0.0, 1.0]], "prompt_eval_count": 4})
    embedder = LiteLLMEmbedder(EmbeddingConfig(provider="litellm", model="ollama/nomic-embed-text", api_base=scripted.url), usage_dir=tmp_path)
    assert embedder.embed(["a", "b"]).shape == (2, 2)
    request = scripted.requests[-1]
    assert request.path == "/api/embed" and request.body == {"model": "nomic-embed-text", "input": ["a", "b"]}
    assert json.loads((tmp_path / "usage.jsonl").read_text())["prompt_tokens"] == 4
    scripted.push({"error": "boom"}, 500)
    with pytest.raises(EmbeddingError, match="HTTP 500"):
        embedder.embed(["c"])


def test_an_error_that_echoes_the_key_is_shown_without_it(llm_server, llm_config, monkeypatch):
    # (found by an audit: the message went into .done files, the hook log and doctor's output)
    key = "sk-proj-SECRETKEYabcdefghijklmnopqrstuvwxyz0123456789"
    monkeypatch.setenv(API_KEY_ENV, key)
    llm_server.error(401, f"Incorrect API key provided: {key[:17]}... (the whole of it: {key})")
    with pytest.raises(LLMError) as info:
        complete(llm_config, HI, purpose="test")
    message = info.value.message
    assert "refused the credentials" in message and "[REDACTED:" in message
    assert "SECRETKEY" not in message and "abcdefghijklmnop" not in message
    llm_server.error(401, f"bad key {key[:17]}...", endpoint="embeddings")
    with pytest.raises(EmbeddingError) as info:
        LiteLLMEmbedder(EmbeddingConfig(provider="litellm", model=llm_config.model, api_base=llm_config.api_base, api_key_env=API_KEY_ENV)).embed(["x"])
    assert "SECRETKEY" not in info.value.message and "[REDACTED:" in info.value.message


def test_an_empty_answer_keeps_the_tokens_it_was_billed(llm_server, llm_config):
    from ov.llm.client import EmptyAnswer

    llm_server.chat("", prompt_tokens=40, completion_tokens=0)
    with pytest.raises(EmptyAnswer) as info:
        complete(llm_config, HI, purpose="test")
    assert (info.value.completion.prompt_tokens, info.value.completion.completion_tokens) == (40, 0)


def test_the_client_logs_each_answered_call_itself(llm_server, llm_config, tmp_path):
    """One usage line per HTTP call the model answered, an empty or useless answer included (it
    was billed), logged by the client, under the model ov was configured with; none for a call
    that failed, nor for a call made without a log (doctor's probe)."""
    from ov.llm import usage
    from ov.llm.client import EmptyAnswer, UnusableAnswer, complete_json
    from ov.llm.usage import UsageLog

    log = UsageLog(tmp_path, "summary")
    llm_server.chat("An answer.", prompt_tokens=30, completion_tokens=5, model="served-under-another-name")
    complete(llm_config, HI, purpose="test", usage=log)
    llm_server.chat("", prompt_tokens=40, completion_tokens=0)
    with pytest.raises(EmptyAnswer):
        complete(llm_config, HI, purpose="test", usage=log)
    llm_server.error(500, "model overloaded")
    with pytest.raises(LLMError):
        complete(llm_config, HI, purpose="test", usage=log)
    llm_server.chat("Unlogged.")
    complete(llm_config, HI, purpose="test")
    llm_server.chat("not json", prompt_tokens=50, completion_tokens=3)
    llm_server.chat("still not json", prompt_tokens=60, completion_tokens=4)
    spent: dict = {}

    def parse(text):
        raise ValueError("no JSON")

    with pytest.raises(UnusableAnswer):
        complete_json(llm_config, HI, parse, shape="{}", purpose="test", spent=spent, usage=UsageLog(tmp_path, "query_plan"))
    lines = [json.loads(line) for line in (tmp_path / usage.USAGE_FILE).read_text().splitlines()]
    assert [sorted(line) for line in lines] == [["completion_tokens", "model", "prompt_tokens", "purpose", "time"]] * 4
    assert [(r["purpose"], r["model"], r["prompt_tokens"], r["completion_tokens"]) for r in lines] == [
        ("summary", llm_config.model, 30, 5),
        ("summary", llm_config.model, 40, 0),
        ("query_plan", llm_config.model, 50, 3),
        ("query_plan", llm_config.model, 60, 4),
    ]
    assert spent == {"prompt_tokens": 110, "completion_tokens": 7}


def test_the_usage_log_makes_the_accounts_state_folder_private(tmp_path, umask_022):
    """A model called before anything else wrote (`ov remember` with state/ deleted) made
    state/ and state/{account}/ with the umask's 0755; they are the home's, made 0700."""
    from ov.llm import usage

    (tmp_path / "home").mkdir(mode=0o700)
    state = tmp_path / "home" / "state" / "default"
    usage.record(state, "remember", "m", 3, 2)
    assert [p.stat().st_mode & 0o777 for p in (state.parent, state)] == [0o700, 0o700]
    assert [(r.prompt_tokens, r.completion_tokens) for r in usage.read(state)] == [(3, 2)]


# --- a request its caller stopped waiting for ---------------------------------------------------


def _usage_lines(folder, count: int, within: float) -> list[dict]:
    """The usage log's lines once it holds ``count`` of them (the request's own thread writes them)."""
    import time

    from ov.llm import usage

    deadline = time.monotonic() + within
    while True:
        path = folder / usage.USAGE_FILE
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.02)


def _stop_after(seconds: float):
    import time

    at = time.monotonic() + seconds
    return lambda: "the client cancelled it" if time.monotonic() >= at else None


def test_a_stopped_request_is_hung_up_at_once_and_noted_as_cancelled(llm_server, llm_config, tmp_path):
    """(found by an audit: a model request cut short by an MCP cancellation went on in its thread
    until llm.timeout, and the usage log never heard of it) ov's own client hangs the request up:
    the model sees its connection closed, and the log has a line for it, cancelled, its cost unknown."""
    from ov.errors import Interrupted
    from ov.llm import usage
    from ov.llm.usage import UsageLog

    llm_server.delay(60)  # a model that would answer in a minute, within llm.timeout (120 s)
    config = make_llm_config(llm_server, timeout=120.0)
    with pytest.raises(Interrupted, match="stopped while openai/test-model was answering"):
        complete(config, HI, purpose="test", usage=UsageLog(tmp_path, "summary"), stop=_stop_after(0.2))
    assert llm_server.wait_hung_up(), "the request was not hung up"  # not answered, nor left to llm.timeout
    lines = _usage_lines(tmp_path, 1, within=30)
    assert [(r["purpose"], r["model"], r["prompt_tokens"], r["completion_tokens"], r["cancelled"]) for r in lines] == [("summary", config.model, 0, 0, True)]
    assert usage.totals(tmp_path)["all"] == {"calls": 1, "prompt_tokens": 0, "completion_tokens": 0, "cancelled": 1}
    # The next call of the same client is not hung up by the last one's stop.
    llm_server.chat("Fine.", prompt_tokens=3, completion_tokens=1)
    assert complete(config, HI, purpose="test", usage=UsageLog(tmp_path, "summary")).text == "Fine."
    assert [r.get("cancelled", False) for r in _usage_lines(tmp_path, 2, within=30)] == [True, False]


def test_a_call_bounded_sooner_than_llm_timeout_says_whether_it_hung_up(llm_server, llm_config):
    """A bound of the call's own (``seconds``: ov doctor's probe) ends the wait as a stop does:
    ov's own client hangs the request up; litellm's request cannot be, and the error says it runs on."""
    from ov.llm.client import LLMError

    llm_server.delay(60)
    with pytest.raises(LLMError, match=r"^no answer from openai/test-model to the test in 0.2 s; ov hung up$"):
        complete(make_llm_config(llm_server, timeout=120.0), HI, purpose="test", seconds=0.2)
    assert llm_server.wait_hung_up(), "the request was not hung up"
    llm_server.chat("late", delay=1.5)
    with pytest.raises(LLMError, match=r"ov stopped waiting \(litellm's request runs on, up to llm.timeout: 120 s\)$"):
        complete(make_llm_config(llm_server, model="custom_openai/test-model", timeout=120.0), HI, purpose="test", seconds=0.2)


def test_a_stopped_request_litellm_sends_is_logged_with_its_tokens_when_it_ends(llm_server, llm_config, tmp_path):
    """litellm's request cannot be hung up: it runs to its end in its thread, and what it cost is
    logged then, after the caller was told it stopped."""
    from ov.errors import Interrupted
    from ov.llm.usage import UsageLog

    llm_server.chat("late", prompt_tokens=21, completion_tokens=4, delay=1.5)
    config = make_llm_config(llm_server, model="custom_openai/test-model")
    with pytest.raises(Interrupted):
        complete(config, HI, purpose="test", usage=UsageLog(tmp_path, "summary"), stop=_stop_after(0.1))
    lines = _usage_lines(tmp_path, 1, within=30)
    assert [(r["prompt_tokens"], r["completion_tokens"], r.get("cancelled", False)) for r in lines] == [(21, 4, False)]
