"""A loopback OpenAI Responses API: what Codex calls through a ``wire_api = "responses"`` provider.

``POST /v1/responses`` answers with one assistant message: streamed (Codex always sets
``"stream": true``) as ``response.created``, ``response.output_item.added``,
``response.output_text.delta``, ``response.output_item.done`` and ``response.completed`` (Codex
fails a turn whose stream closes before ``response.completed``); otherwise as one JSON response
object. Every other path gets a 404. A scripted :class:`~tests.stubs.base.ToolCall` step is
answered with one ``function_call`` output item instead (with ``namespace`` when the tool sits in
one: Codex offers MCP tools as ``{"type": "namespace", "name": "mcp__ov", "tools": [...]}``, and
the stub names them ``mcp__ov__find``), streamed with its ``function_call_arguments`` events.
"""

from __future__ import annotations

import itertools
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

RESPONSES = "/v1/responses"


def text_of(request: StubRequest) -> str:
    """Everything the model was shown: the instructions and every input item (messages of any
    role, function calls and their outputs)."""
    body = request.body if isinstance(request.body, dict) else {}
    return "\n".join(flatten_text([body.get("instructions", ""), body.get("input", [])]))


def tool_results(request: StubRequest) -> dict[str, str]:
    """The text of every ``function_call_output`` input item, by ``call_id``."""
    body = request.body if isinstance(request.body, dict) else {}
    return {
        str(item.get("call_id")): "\n".join(flatten_text(item.get("output", "")))
        for item in body.get("input", [])
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    }


def offered_functions(request: StubRequest) -> dict[str, tuple[str | None, str]]:
    """The function tools a request offers: ``{stub name: (namespace or None, name)}``, where a
    namespaced tool's stub name is ``namespace__name`` (what Codex's hooks call it)."""
    body = request.body if isinstance(request.body, dict) else {}
    found: dict[str, tuple[str | None, str]] = {}
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        if tool.get("type") == "namespace":
            for inner in tool.get("tools") or []:
                if isinstance(inner, dict) and isinstance(inner.get("name"), str):
                    found[f"{tool['name']}__{inner['name']}"] = (tool["name"], inner["name"])
        else:
            found[tool["name"]] = (None, tool["name"])
    return found


class ResponsesStub(StubServer):
    """``with ResponsesStub(reply="...") as stub:``; Codex's provider ``base_url`` is
    ``stub.url + "/v1"`` (Codex appends ``/responses``)."""

    text_of = staticmethod(text_of)
    tool_results = staticmethod(tool_results)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ids = itertools.count(1)

    def is_model_request(self, request: StubRequest) -> bool:
        return request.method == "POST" and request.path == RESPONSES

    def offered_tools(self, request: StubRequest) -> list[str]:
        return list(offered_functions(request)) if self.is_model_request(request) else []

    def answer(self, request: StubRequest) -> Response:
        if not self.is_model_request(request):
            return not_found(request)
        body = request.body if isinstance(request.body, dict) else {}
        step = self.next_step(request)
        if isinstance(step, IssuedCall):
            return self._function_call(request, body, step)
        text = step if step is not None else self.reply_text(request)
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
        completed = _completed(response_id, model, item, input_tokens, output_tokens)
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

    def _function_call(self, request: StubRequest, body: dict, call: IssuedCall) -> Response:
        """One ``function_call`` output item; streamed as its ``added`` event, the arguments as
        one delta and their ``done``, the item's ``done`` and ``response.completed``."""
        namespace, name = offered_functions(request)[call.name]
        n = next(self._ids)
        response_id, item_id = f"resp_stub{n:06d}", f"fc_stub{n:06d}"
        arguments = json.dumps(call.arguments)
        item: dict[str, Any] = {"type": "function_call", "id": item_id, "call_id": call.call_id, "name": name}
        if namespace:
            item["namespace"] = namespace
        item.update(arguments=arguments, status="completed")
        input_tokens, output_tokens = estimate_tokens(text_of(request)), estimate_tokens(arguments)
        completed = _completed(response_id, body.get("model", "gpt-stub"), item, input_tokens, output_tokens)
        if not body.get("stream"):
            return json_response(completed)
        started = {"id": response_id, "object": "response", "status": "in_progress", "model": completed["model"], "output": []}
        where = {"item_id": item_id, "output_index": 0}
        return sse_response(
            [
                ("response.created", {"type": "response.created", "response": started}),
                (
                    "response.output_item.added",
                    {"type": "response.output_item.added", "output_index": 0, "item": dict(item, arguments="", status="in_progress")},
                ),
                ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", **where, "delta": arguments}),
                ("response.function_call_arguments.done", {"type": "response.function_call_arguments.done", **where, "arguments": arguments}),
                ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed", "response": completed}),
            ]
        )


def _completed(response_id: str, model: str, item: dict, input_tokens: int, output_tokens: int) -> dict:
    """The finished response holding ``item``, as ``response.completed`` and a JSON answer carry it."""
    return {
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
