"""A loopback OpenAI Responses API: what Codex calls through a ``wire_api = "responses"`` provider.

``POST /v1/responses`` answers with one assistant message: streamed (Codex always sets
``"stream": true``) as ``response.created``, ``response.output_item.added``,
``response.output_text.delta``, ``response.output_item.done`` and ``response.completed`` (Codex
fails a turn whose stream closes before ``response.completed``); otherwise as one JSON response
object. Every other path gets a 404.
"""

from __future__ import annotations

import itertools
from typing import Any

from tests.stubs.base import (
    Response,
    StubRequest,
    StubServer,
    estimate_tokens,
    flatten_text,
    json_response,
    not_found,
    sse_response,
)

RESPONSES = "/v1/responses"


def text_of(request: StubRequest) -> str:
    """Everything the model was shown: the instructions and every input item (messages of any
    role, function calls and their outputs)."""
    body = request.body if isinstance(request.body, dict) else {}
    return "\n".join(flatten_text([body.get("instructions", ""), body.get("input", [])]))


class ResponsesStub(StubServer):
    """``with ResponsesStub(reply="...") as stub:``; Codex's provider ``base_url`` is
    ``stub.url + "/v1"`` (Codex appends ``/responses``)."""

    text_of = staticmethod(text_of)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST" and request.path == RESPONSES

    def answer(self, request: StubRequest) -> Response:
        if not self.is_model_request(request):
            return not_found(request)
        body = request.body if isinstance(request.body, dict) else {}
        text = self.reply_text(request)
        n = next(self._ids)
        response_id, item_id = f"resp_stub{n:06d}", f"msg_stub{n:06d}"
        model = body.get("model", "gpt-stub")
        input_tokens, output_tokens = estimate_tokens(text_of(request)), estimate_tokens(text)
        item = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        completed = {
            "id": response_id,
            "object": "response",
            "status": "completed",
            "model": model,
            "output": [item],
            "usage": {
                "input_tokens": input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": input_tokens + output_tokens,
            },
        }
        if not body.get("stream"):
            return json_response(completed)
        started = {"id": response_id, "object": "response", "status": "in_progress", "model": model, "output": []}
        added = dict(item, status="in_progress", content=[])
        events: list[tuple[str, dict]] = [
            ("response.created", {"type": "response.created", "response": started}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": added}),
            (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": 0,
                    "content_index": 0,
                    "delta": text,
                },
            ),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
            ("response.completed", {"type": "response.completed", "response": completed}),
        ]
        return sse_response(events)
