"""The one place ov talks to a language model.

Everything goes through litellm, so any provider it supports works (OpenAI,
Anthropic, Ollama, an OpenAI-compatible local server, ...). litellm is imported
inside :func:`import_litellm` only: it takes seconds to import, and most commands
never need it. Before the import, litellm is told to use its bundled model
catalogues: by default it fetches a cost map (and other catalogues) from GitHub
at import time, and ov must reach no host but the endpoint the user configured.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ov.config import LLMConfig
from ov.errors import EXIT_RUNTIME, OvError

T = TypeVar("T")

# Each of these makes litellm read a copy shipped in its wheel instead of the internet.
_OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_OFFLINE_MODE": "true",
}
_MAX_DETAIL_CHARS = 300


class LLMError(OvError):
    """A model call failed: unreachable endpoint, timeout, HTTP error, or an unusable answer."""

    code = "llm_error"
    exit_code = EXIT_RUNTIME


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str


def complete(
    config: LLMConfig,
    messages: list[dict[str, Any]],
    *,
    purpose: str,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Completion:
    """Send ``messages`` to the configured model and return its text and token usage.

    ``purpose`` (e.g. ``"directory overview"``) names the call in error messages.
    ``temperature`` and ``max_tokens`` override the config for this call (a prompt
    template may pin its own temperature). Every failure is an :class:`LLMError`.
    """
    if not config.enabled:
        raise LLMError(f"no language model is configured for the {purpose}", hint="set one with: ov config set llm.model MODEL")
    kwargs: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "timeout": config.timeout,
        "max_tokens": max_tokens if max_tokens is not None else config.max_output_tokens,
        "temperature": config.temperature if temperature is None else temperature,
        # A model that rejects a parameter (some reasoning models refuse temperature)
        # should still answer rather than fail the whole summary.
        "drop_params": True,
        # Retries would multiply the configured timeout; callers decide whether to retry.
        "num_retries": 0,
        "max_retries": 0,
    }
    if config.api_base:
        kwargs["api_base"] = config.api_base
    if config.api_key_env:
        kwargs["api_key"] = api_key(config.api_key_env, config.model or "", "llm", LLMError)

    litellm = import_litellm()
    try:
        response = litellm.completion(**kwargs)
    except Exception as exc:  # litellm raises many unrelated types; all mean "the call failed"
        raise _translate(exc, config, purpose) from None
    return _parse(response, config, purpose)


def api_key(env_name: str, model: str, section: str, error: type[OvError]) -> str:
    """The key held by the environment variable ``env_name`` (named by ``{section}.api_key_env``)."""
    key = os.environ.get(env_name)
    if not key:
        raise error(
            f"the environment variable {env_name} ({section}.api_key_env) is not set",
            hint=f"export {env_name}=... with the API key of {model}",
        )
    return key


class UnusableAnswer(LLMError):
    """The model answered, twice, with something that is not the JSON asked for."""


def complete_json(
    config: LLMConfig,
    messages: list[dict[str, Any]],
    parse: Callable[[str], T],
    *,
    shape: str,
    purpose: str,
    spent: dict[str, int],
    temperature: float | None = None,
) -> T:
    """One call whose answer ``parse`` turns into a value, and one repair request when it cannot.

    ``parse`` raises ValueError saying what is wrong; the model is shown that and the expected
    ``shape`` once. ``spent`` adds up the prompt and completion tokens of every call made, also
    when it fails: they were billed. Raises :class:`UnusableAnswer` when the repaired answer
    cannot be used either, and LLMError when a call fails.
    """

    def ask(conversation: list[dict[str, Any]]) -> str:
        answer = complete(config, conversation, purpose=purpose, temperature=temperature)
        spent["prompt_tokens"] = spent.get("prompt_tokens", 0) + answer.prompt_tokens
        spent["completion_tokens"] = spent.get("completion_tokens", 0) + answer.completion_tokens
        return answer.text

    text = ask(messages)
    try:
        return parse(text)
    except ValueError as exc:
        repair = (
            f"Your answer could not be used: {exc}\n"
            f"Reply with the corrected JSON object only, in the shape {shape}, with no code fences and no commentary."
        )
        text = ask([*messages, {"role": "assistant", "content": text}, {"role": "user", "content": repair}])
    try:
        return parse(text)
    except ValueError as again:
        raise UnusableAnswer(f"{config.model} did not answer the {purpose} with usable JSON, even when asked to correct it: {again}") from None


def import_litellm() -> Any:
    """litellm, configured to stay offline and quiet: use this, never a bare ``import litellm``."""
    os.environ.update(_OFFLINE_ENV)
    import litellm  # Deferred: seconds to import; only LLM calls need it.

    litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banners on stderr
    litellm.telemetry = False
    litellm.set_verbose = False
    # The OpenAI path reads ``max_retries or DEFAULT_MAX_RETRIES``, so an explicit 0 counts as
    # unset and the SDK would retry twice with back-off: one call per request is what ov wants.
    litellm.DEFAULT_MAX_RETRIES = 0
    logging.getLogger("LiteLLM").setLevel(logging.ERROR)
    return litellm


def _translate(exc: Exception, config: LLMConfig, purpose: str) -> LLMError:
    return translate_failure(
        exc,
        LLMError,
        where=f"{config.model}" + (f" at {config.api_base}" if config.api_base else ""),
        model=config.model or "",
        timeout=config.timeout,
        call=f"the {purpose} call",
        section="llm",
        example="openai/gpt-4o-mini or ollama/llama3",
    )


def translate_failure(exc: Exception, error: type[OvError], *, where: str, model: str, timeout: float, call: str, section: str, example: str) -> OvError:
    """One litellm failure as ``error`` with a hint that names the ``{section}.*`` setting to fix.

    Shared by chat calls (``llm.*``) and embeddings (``embedding.*``): litellm raises many
    unrelated exception types, and people need the same few answers for all of them.
    """
    detail = _detail(exc)
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    lowered = detail.lower()
    if "timeout" in name.lower() or "timed out" in lowered:
        return error(
            f"{call} to {where} timed out after {timeout:g}s",
            hint=f"raise {section}.timeout, or check that the model server is responsive",
        )
    # litellm reports a refused connection as APIConnectionError with status 500.
    if "connection error" in lowered or ("connect" in name.lower() and status in (None, 500)):
        return error(f"cannot reach {where} for {call}: {detail}", hint=f"check {section}.api_base and that the server is running")
    if "credential" in lowered or "api key" in lowered or status in (401, 403):
        return error(
            f"{where} refused the credentials for {call}: {detail}",
            hint=f"set {section}.api_key_env to the name of the environment variable that holds the key",
        )
    if status == 404:
        return error(f"{where} does not know this model or endpoint: {detail}", hint=f"check {section}.model and {section}.api_base")
    if status == 429:
        return error(f"{where} is rate limiting {call}: {detail}", hint="try again later")
    if "provider" in lowered and "not provided" in lowered:
        return error(f"litellm does not know which provider serves {model!r}", hint=f"prefix {section}.model with a provider, e.g. {example}")
    if status is not None:
        return error(f"{call} to {where} failed (HTTP {status}): {detail}")
    return error(f"{call} to {where} failed: {detail}", hint=f"check {section}.model (a litellm model string such as {example.split(' or ')[0]})")


def _detail(exc: Exception) -> str:
    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    # litellm prefixes its own class names ("litellm.InternalServerError: OpenAIException - ...").
    for marker in ("Exception - ", "Error - "):
        if marker in text:
            text = text.split(marker, 1)[1]
    text = re.sub(r"^litellm\.\w+: ", "", text)
    return text[:_MAX_DETAIL_CHARS] + ("..." if len(text) > _MAX_DETAIL_CHARS else "") if text else type(exc).__name__


def _parse(response: Any, config: LLMConfig, purpose: str) -> Completion:
    try:
        choice = response.choices[0]
        text = choice.message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        raise LLMError(f"{config.model} returned no choices for the {purpose}") from None
    if not isinstance(text, str) or not text.strip():
        raise LLMError(f"{config.model} returned an empty answer for the {purpose}", hint="check llm.max_output_tokens and the model")
    usage = getattr(response, "usage", None)
    return Completion(
        text=text,
        prompt_tokens=_count(getattr(usage, "prompt_tokens", 0)),
        completion_tokens=_count(getattr(usage, "completion_tokens", 0)),
        model=str(getattr(response, "model", None) or config.model),
    )


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


# A whole answer inside one Markdown code fence (```json ... ```).
_FENCE_RE = re.compile(r"^\s*```[\w-]*\s*\n(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)


def load_json_answer(text: str) -> Any:
    """The JSON value of a model's answer, tolerating a code fence or a sentence around the object.

    ValueError (saying what is wrong) when there is no JSON in it.
    """
    body = text.strip()
    fenced = _FENCE_RE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        return json.loads(body)
    except json.JSONDecodeError as exc:
        # Some models wrap the object in a sentence; the outermost braces are the answer then.
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(body[start : end + 1])
            except json.JSONDecodeError:
                pass
        raise ValueError(f"the answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
