"""A loopback Gemini API: what Gemini CLI calls with an API key and ``GOOGLE_GEMINI_BASE_URL``.

- ``POST /v1beta/models/<model>:generateContent``: one candidate, as JSON. Gemini CLI's side calls
  (the model router's classifier) ask for JSON output with ``responseMimeType:
  "application/json"`` and a schema; they get an object that fits the schema.
- ``POST /v1beta/models/<model>:streamGenerateContent?alt=sse``: the same candidate as one SSE
  chunk with ``finishReason: "STOP"``.
- A scripted :class:`~tests.stubs.base.ToolCall` step is answered with one ``functionCall`` part
  (``name``, ``args``, ``id``) in place of the text.
- ``POST /v1beta/models/<model>:countTokens``: an estimate.

Every other path gets a 404.
"""

from __future__ import annotations

import json
from typing import Any

from tests.stubs.base import (
    IssuedCall,
    Response,
    StubRequest,
    StubServer,
    estimate_tokens,
    flatten_text,
    json_response,
    not_found,
    sse_response,
)

GENERATE = "generateContent"
STREAM = "streamGenerateContent"
COUNT_TOKENS = "countTokens"


def method_of(request: StubRequest) -> str:
    """``generateContent``, ``streamGenerateContent``, ``countTokens``, or "" for another path."""
    last = request.path.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if request.path.startswith("/v1beta/models/") and ":" in last else ""


def model_of(request: StubRequest) -> str:
    return request.path.rsplit("/", 1)[-1].split(":", 1)[0]


def text_of(request: StubRequest) -> str:
    """Everything the model was shown: the system instruction and every content part (text,
    function calls and function responses)."""
    body = request.body if isinstance(request.body, dict) else {}
    return "\n".join(flatten_text([body.get("systemInstruction", {}), body.get("contents", [])]))


def tool_results(request: StubRequest) -> dict[str, str]:
    """The text of every ``functionResponse`` part in the request, by its ``id`` (and by its
    ``name``, for a host that sends no id)."""
    body = request.body if isinstance(request.body, dict) else {}
    found: dict[str, str] = {}
    for content in body.get("contents", []):
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else []:
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(response, dict):
                text = "\n".join(flatten_text(response.get("response", {})))
                for key in (response.get("name"), response.get("id")):
                    if isinstance(key, str):
                        found[key] = text
    return found


def fill_schema(schema: Any) -> Any:
    """A small value that validates against ``schema`` (OpenAPI-style upper-case types too)."""
    if not isinstance(schema, dict):
        return "stub"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type", "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if str(k).lower() != "null"), "string")
    kind = str(kind).lower()
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: fill_schema(sub) for name, sub in properties.items()}
    if kind == "array":
        return [fill_schema(schema.get("items", {}))] if schema.get("minItems") else []
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "stub"


class GeminiStub(StubServer):
    """``with GeminiStub(reply="...") as stub:``; Gemini CLI's ``GOOGLE_GEMINI_BASE_URL`` is
    ``stub.url``."""

    text_of = staticmethod(text_of)
    tool_results = staticmethod(tool_results)

    def offered_tools(self, request: StubRequest) -> list[str]:
        body = request.body if isinstance(request.body, dict) else {}
        tools = body.get("tools") if self.is_model_request(request) else None
        return [
            d["name"]
            for t in tools or []
            if isinstance(t, dict)
            for d in t.get("functionDeclarations") or []
            if isinstance(d, dict) and isinstance(d.get("name"), str)
        ]

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST" and method_of(request) in (GENERATE, STREAM)

    def is_turn_request(self, request: StubRequest) -> bool:
        """A request for the conversation itself (streamed), not a JSON side call."""
        return request.method == "POST" and method_of(request) == STREAM

    def answer(self, request: StubRequest) -> Response:
        method = method_of(request)
        if request.method != "POST" or not method:
            return not_found(request)
        if method == COUNT_TOKENS:
            return json_response({"totalTokens": estimate_tokens(text_of(request))})
        if method not in (GENERATE, STREAM):
            return not_found(request)
        body = request.body if isinstance(request.body, dict) else {}
        config = body.get("generationConfig") or {}
        step = None
        if config.get("responseMimeType") == "application/json":
            schema = config.get("responseJsonSchema") or config.get("responseSchema") or {}
            text = json.dumps(fill_schema(schema))
        else:
            step = self.next_step(request)
            text = step if isinstance(step, str) else self.reply_text(request)
        part: dict[str, Any] = {"text": text}
        if isinstance(step, IssuedCall):
            part = {"functionCall": {"name": step.name, "args": step.arguments, "id": step.call_id}}
            text = json.dumps(step.arguments)
        prompt_tokens, reply_tokens = estimate_tokens(text_of(request)), estimate_tokens(text)
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": reply_tokens,
                "totalTokenCount": prompt_tokens + reply_tokens,
            },
            "modelVersion": model_of(request),
        }
        if method == GENERATE:
            return json_response(chunk)
        return sse_response([(None, chunk)])
