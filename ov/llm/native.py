"""Chat completions and embeddings over the three wire protocols ov speaks itself.

:func:`chat` and :func:`embed` build the request for a :class:`~ov.llm.routes.Route`'s protocol
(OpenAI-compatible, Anthropic Messages, Ollama), send it with :func:`ov.llm.wire.post_json`, and
read the answer into the shape the rest of ov uses. They make the requests litellm makes for
the same model strings, with the parameter mapping it applies through ``drop_params``:

* OpenAI's reasoning models (``o1``, ``o3``, ``gpt-5``, ...) get ``max_completion_tokens``
  instead of ``max_tokens``, and no temperature unless it is 1;
* an OpenAI-compatible server that rejects a parameter by name (HTTP 400 whose
  ``error.param`` is ``temperature`` or ``max_tokens``) is sent the request once more without
  it (or with ``max_completion_tokens``): the model should answer rather than fail the summary;
* Anthropic gets the system messages as its top-level ``system``, and consecutive messages of
  one role joined (it requires alternating roles);
* Ollama gets ``options.num_predict`` and ``options.temperature``; a leading ``<think>`` block
  is cut from its answer, as litellm cuts it.

Failures are :class:`~ov.llm.wire.CallFailed`; nothing here retries a failed call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ov.llm.routes import ANTHROPIC, OLLAMA, Route
from ov.llm.wire import ANSWER, HTTP, CallFailed, Line, post_json

_THINK_RE = re.compile(r"^\s*<(think|thinking)>.*?</\1>", re.DOTALL)


@dataclass(frozen=True)
class Answer:
    """A model's answer from ov's own client, and the tokens it cost."""

    text: str | None  # None or blank: the model said nothing (the caller decides what that means)
    prompt_tokens: int
    completion_tokens: int
    model: str | None


def chat(route: Route, messages: list[dict[str, Any]], *, max_tokens: int, temperature: float | None, timeout: float, line: Line | None = None) -> Answer:
    """One chat completion of ``messages``; :class:`CallFailed` when it cannot be had. ``line``:
    where another thread can hang its requests up (:class:`~ov.llm.wire.Line`)."""
    if route.protocol == ANTHROPIC:
        return _anthropic(route, messages, max_tokens, temperature, timeout, line)
    if route.protocol == OLLAMA:
        return _ollama(route, messages, max_tokens, temperature, timeout, line)
    return _openai(route, messages, max_tokens, temperature, timeout, line)


def embed(route: Route, texts: list[str], *, timeout: float, line: Line | None = None) -> dict[str, Any]:
    """The embeddings of ``texts`` as an OpenAI-shaped answer: ``{"data": [{"index", "embedding"}], "usage"}``.
    ``line``: where another thread can hang the request up (:class:`~ov.llm.wire.Line`)."""
    if route.protocol == OLLAMA:
        answer = post_json(route.embeddings_url(), {"model": route.model, "input": texts}, route.headers, timeout, line=line)
        vectors = answer.get("embeddings") if isinstance(answer, dict) else None
        if not isinstance(vectors, list):
            raise CallFailed(ANSWER, "the answer has no embeddings")
        data = [{"index": i, "embedding": vector} for i, vector in enumerate(vectors)]
        return {"data": data, "usage": {"prompt_tokens": answer.get("prompt_eval_count")}}
    answer = post_json(route.embeddings_url(), {"model": route.model, "input": texts}, route.headers, timeout, line=line)
    if not isinstance(answer, dict):
        raise CallFailed(ANSWER, "the answer is not a JSON object")
    return answer


# --- OpenAI-compatible --------------------------------------------------------------------


def _openai(route: Route, messages: list[dict[str, Any]], max_tokens: int, temperature: float | None, timeout: float, line: Line | None) -> Answer:
    body: dict[str, Any] = {"model": route.model, "messages": messages}
    body["max_completion_tokens" if route.reasoning else "max_tokens"] = max_tokens
    if temperature is not None and (not route.reasoning or temperature == 1):
        body["temperature"] = temperature
    adapted: set[str] = set()
    while True:
        try:
            answer = post_json(route.chat_url(), body, route.headers, timeout, line=line)
            break
        except CallFailed as failure:
            if not _adapt(body, failure, adapted):
                raise
    if not isinstance(answer, dict):
        raise CallFailed(ANSWER, "the answer is not a JSON object")
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise CallFailed(ANSWER, "the answer has no choices")
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    return Answer(_text(content), _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), _name(answer.get("model")))


def _adapt(body: dict[str, Any], failure: CallFailed, adapted: set[str]) -> bool:
    """Change ``body`` for a parameter the server rejected by name; False when there is nothing to change."""
    param = failure.param
    if failure.kind != HTTP or failure.status != 400 or param in adapted:
        return False
    if param == "temperature" and "temperature" in body:
        del body["temperature"]
    elif param == "max_tokens" and "max_tokens" in body:
        body["max_completion_tokens"] = body.pop("max_tokens")
    else:
        return False
    adapted.add(param)
    return True


# --- Anthropic Messages -------------------------------------------------------------------


def _anthropic(route: Route, messages: list[dict[str, Any]], max_tokens: int, temperature: float | None, timeout: float, line: Line | None) -> Answer:
    system: list[dict[str, str]] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        role, text = message.get("role"), _text(message.get("content")) or ""
        if role == "system":
            if text:
                system.append({"type": "text", "text": text})
        elif turns and turns[-1]["role"] == role:
            turns[-1]["content"] += "\n\n" + text
        else:
            turns.append({"role": role, "content": text})
    body: dict[str, Any] = {"model": route.model, "max_tokens": max_tokens, "messages": turns}
    if system:
        body["system"] = system
    if temperature is not None:
        body["temperature"] = temperature
    answer = post_json(route.chat_url(), body, route.headers, timeout, line=line)
    if not isinstance(answer, dict) or not isinstance(answer.get("content"), list):
        raise CallFailed(ANSWER, "the answer has no content blocks")
    text = "".join(block.get("text", "") for block in answer["content"] if isinstance(block, dict) and block.get("type") == "text")
    usage = answer.get("usage") if isinstance(answer.get("usage"), dict) else {}
    # litellm counts cached prompt tokens as prompt tokens: they were sent (and billed) all the same.
    prompt = sum(_count(usage.get(key)) for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return Answer(text, prompt, _count(usage.get("output_tokens")), _name(answer.get("model")))


# --- Ollama -------------------------------------------------------------------------------


def _ollama(route: Route, messages: list[dict[str, Any]], max_tokens: int, temperature: float | None, timeout: float, line: Line | None) -> Answer:
    options: dict[str, Any] = {"num_predict": max_tokens}
    if temperature is not None:
        options["temperature"] = temperature
    body = {"model": route.model, "messages": [{"role": m.get("role"), "content": _text(m.get("content")) or ""} for m in messages], "stream": False, "options": options}
    answer = post_json(route.chat_url(), body, route.headers, timeout, line=line)
    if not isinstance(answer, dict) or not isinstance(answer.get("message"), dict):
        raise CallFailed(ANSWER, "the answer has no message")
    text = _text(answer["message"].get("content"))
    if text:
        text = _THINK_RE.sub("", text, count=1)
    return Answer(text, _count(answer.get("prompt_eval_count")), _count(answer.get("eval_count")), _name(answer.get("model")))


# --- shared -------------------------------------------------------------------------------


def _text(content: Any) -> str | None:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))
    return None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _name(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
