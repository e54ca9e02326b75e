"""A loopback Anthropic Messages API: what Claude Code and OpenCode's anthropic provider call.

``POST /v1/messages`` (Claude Code adds ``?beta=true``) answers with one text block, as JSON or,
when the request has ``"stream": true``, as the Messages SSE event sequence.
``POST /v1/messages/count_tokens`` answers an estimate. Every other path (Claude Code probes a
few at start) gets a harmless 404.
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

MESSAGES = "/v1/messages"
COUNT_TOKENS = "/v1/messages/count_tokens"


def text_of(request: StubRequest) -> str:
    """Everything the model was shown: the system prompt and every message's text blocks,
    tool uses and tool results."""
    body = request.body if isinstance(request.body, dict) else {}
    return "\n".join(flatten_text([body.get("system", []), body.get("messages", [])]))


class AnthropicStub(StubServer):
    """``with AnthropicStub(reply="...") as stub:``; hosts use ``stub.url`` as their base URL
    (Claude Code's ``ANTHROPIC_BASE_URL``) or ``stub.url + "/v1"`` (OpenCode's ``baseURL``)."""

    text_of = staticmethod(text_of)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST" and request.path == MESSAGES

    def answer(self, request: StubRequest) -> Response:
        if request.method == "POST" and request.path == COUNT_TOKENS:
            return json_response({"input_tokens": estimate_tokens(text_of(request))})
        if not self.is_model_request(request):
            return not_found(request)
        body = request.body if isinstance(request.body, dict) else {}
        text = self.reply_text(request)
        message_id = f"msg_stub{next(self._ids):06d}"
        model = body.get("model", "claude-stub")
        usage = {"input_tokens": estimate_tokens(text_of(request)), "output_tokens": estimate_tokens(text)}
        if not body.get("stream"):
            return json_response(
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": usage,
                }
            )
        start = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
        }
        return sse_response(
            [
                ("message_start", {"type": "message_start", "message": start}),
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
                ),
                ("ping", {"type": "ping"}),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                        "usage": {"output_tokens": usage["output_tokens"]},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )
