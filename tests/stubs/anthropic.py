"""A loopback Anthropic Messages API: what Claude Code and OpenCode's anthropic provider call.

``POST /v1/messages`` (Claude Code adds ``?beta=true``) answers with one text block, as JSON or,
when the request has ``"stream": true``, as the Messages SSE event sequence; a scripted
:class:`~tests.stubs.base.ToolCall` step is answered with one ``tool_use`` block and
``stop_reason: "tool_use"`` instead. Claude Code defers MCP tools: it offers ``ToolSearch`` and
only names them in a system message, so a step for such a tool is first answered with
``ToolSearch {"query": "select:<tool>"}`` (the step waits for the request that offers the tool).
``POST /v1/messages/count_tokens`` answers an estimate. Every other path (Claude Code probes a
few at start) gets a harmless 404.
"""

from __future__ import annotations

import itertools
import json
import re
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

MESSAGES = "/v1/messages"
COUNT_TOKENS = "/v1/messages/count_tokens"
TOOL_SEARCH = "ToolSearch"
_TOOL_NAME_LINE = re.compile(r"^[A-Za-z][\w.-]*$")


def text_of(request: StubRequest) -> str:
    """Everything the model was shown: the system prompt and every message's text blocks,
    tool uses and tool results."""
    body = request.body if isinstance(request.body, dict) else {}
    return "\n".join(flatten_text([body.get("system", []), body.get("messages", [])]))


def tool_results(request: StubRequest) -> dict[str, str]:
    """The text of every ``tool_result`` block in the request's messages, by ``tool_use_id``."""
    body = request.body if isinstance(request.body, dict) else {}
    found: dict[str, str] = {}
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                found[str(block.get("tool_use_id"))] = "\n".join(flatten_text(block.get("content", "")))
    return found


def _tools(request: StubRequest) -> list[tuple[str, bool]]:
    """(name, sent with ``defer_loading``) for each tool of the request."""
    body = request.body if isinstance(request.body, dict) else {}
    tools = body.get("tools") if request.method == "POST" and request.path == MESSAGES else None
    return [(t["name"], bool(t.get("defer_loading"))) for t in tools or [] if isinstance(t, dict) and isinstance(t.get("name"), str)]


def _referenced_tools(request: StubRequest) -> set[str]:
    """Tools loaded by a ``tool_reference`` block (ToolSearch's result) in a tool result."""
    body = request.body if isinstance(request.body, dict) else {}
    found: set[str] = set()
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else []:
            inner = block.get("content") if isinstance(block, dict) and block.get("type") == "tool_result" else None
            for ref in inner if isinstance(inner, list) else []:
                if isinstance(ref, dict) and ref.get("type") == "tool_reference":
                    found.add(str(ref.get("tool_name")))
    return found


class AnthropicStub(StubServer):
    """``with AnthropicStub(reply="...") as stub:``; hosts use ``stub.url`` as their base URL
    (Claude Code's ``ANTHROPIC_BASE_URL``) or ``stub.url + "/v1"`` (OpenCode's ``baseURL``)."""

    text_of = staticmethod(text_of)
    tool_results = staticmethod(tool_results)
    call_id_prefix = "toolu_stub"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST" and request.path == MESSAGES

    def offered_tools(self, request: StubRequest) -> list[str]:
        """The request's tools, less those sent with ``defer_loading`` that no ``tool_reference``
        (what ToolSearch answers) has loaded yet."""
        loaded = _referenced_tools(request)
        return [name for name, deferred in _tools(request) if not deferred or name in loaded]

    def deferred_tools(self, request: StubRequest) -> list[str]:
        """Tools the model must load through ToolSearch first: those sent with ``defer_loading``
        and not loaded yet, and those only named one a line in a text block that mentions
        ToolSearch (Claude Code's "The following deferred tools are now available via
        ToolSearch ...")."""
        offered = self.offered_tools(request)
        if TOOL_SEARCH not in offered:
            return []
        body = request.body if isinstance(request.body, dict) else {}
        names = [name for name, deferred in _tools(request) if deferred]
        for text in flatten_text([body.get("system", []), body.get("messages", [])]):
            if TOOL_SEARCH in text:
                names += [line for line in text.splitlines() if _TOOL_NAME_LINE.match(line)]
        return [name for name in dict.fromkeys(names) if name not in offered]

    def load_deferred(self, name: str) -> tuple[str, dict[str, Any]] | None:
        return TOOL_SEARCH, {"query": f"select:{name}"}

    def answer(self, request: StubRequest) -> Response:
        if request.method == "POST" and request.path == COUNT_TOKENS:
            return json_response({"input_tokens": estimate_tokens(text_of(request))})
        if not self.is_model_request(request):
            return not_found(request)
        body = request.body if isinstance(request.body, dict) else {}
        step = self.next_step(request)
        if isinstance(step, IssuedCall):
            return self._tool_use(body, step)
        text = step if step is not None else self.reply_text(request)
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

    def _tool_use(self, body: dict, call: IssuedCall) -> Response:
        """One ``tool_use`` block, ``stop_reason: "tool_use"``; streamed as the block's start, its
        input as one ``input_json_delta``, and its stop."""
        message_id = f"msg_stub{next(self._ids):06d}"
        arguments = json.dumps(call.arguments)
        block = {"type": "tool_use", "id": call.call_id, "name": call.name, "input": call.arguments}
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude-stub"),
            "content": [block],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": estimate_tokens(json.dumps(body.get("messages", []))), "output_tokens": estimate_tokens(arguments)},
        }
        if not body.get("stream"):
            return json_response(message)
        start = dict(message, content=[], stop_reason=None, usage=dict(message["usage"], output_tokens=1))
        return sse_response(
            [
                ("message_start", {"type": "message_start", "message": start}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": dict(block, input={})}),
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": arguments}},
                ),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                        "usage": {"output_tokens": message["usage"]["output_tokens"]},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
        )
