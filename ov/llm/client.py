"""The one place ov talks to a language model.

Model strings are litellm's (``openai/gpt-4o-mini``, ``anthropic/claude-...``, ``ollama/llama3``).
The providers most people use, OpenAI-compatible servers (OpenAI, OpenRouter, vLLM, LM Studio,
llama.cpp, any ``api_base``), Anthropic and Ollama, are called natively on the standard library
(:mod:`ov.llm.routes` picks the route, :mod:`ov.llm.native` speaks the protocol): litellm takes
seconds to import, and `ov remember` or `ov search` must not wait for that. Every other
provider (bedrock, vertex, azure, ...) goes through litellm, imported inside
:func:`import_litellm` only. Before that import, litellm is told to use its bundled model
catalogues: by default it fetches a cost map (and other catalogues) from GitHub at import time,
and ov must reach no host but the endpoint the user configured.

Both paths have the same semantics: one request per call (no retries; the timeout is the
user's), ``max_tokens`` and ``temperature`` from the config or the call, a parameter the model
rejects dropped rather than failing the call, and every failure one :class:`LLMError` with a
hint (:func:`translate_failure`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from ov.config import LLMConfig
from ov.errors import EXIT_RUNTIME, AnswerStopped, OvError
from ov.waiting import Stop, Stopped, waited

if TYPE_CHECKING:
    from ov.llm.routes import Route
    from ov.llm.usage import UsageLog
    from ov.llm.wire import CallFailed, Line

T = TypeVar("T")

# Each of these makes litellm read a copy shipped in its wheel instead of the internet.
_OFFLINE_ENV = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_OFFLINE_MODE": "true",
}


# How long a stopped call waits for the request it hung up to end (it ends in milliseconds).
HUNG_UP_SECONDS = 1.0


class LLMError(OvError):
    """A model call failed: unreachable endpoint, timeout, HTTP error, or an unusable answer."""

    code = "llm_error"
    exit_code = EXIT_RUNTIME


class LLMNotSetUp(LLMError):
    """The call was never made: the model's key or server is not set (or set wrong). Nothing was
    waited for, and what fixes it (an export, a setting) may come any moment."""


class EmptyAnswer(LLMError):
    """The model answered with no text; ``completion`` holds the tokens it was billed all the same."""

    def __init__(self, message: str, *, completion: Completion, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.completion = completion


@dataclass(frozen=True)
class Completion:
    """A model's answer and the tokens it cost."""

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
    usage: UsageLog | None = None,
    stop: Stop | None = None,
    seconds: float | None = None,
) -> Completion:
    """Send ``messages`` to the configured model and return its text and token usage.

    ``purpose`` (e.g. ``"directory overview"``) names the call in error messages.
    ``temperature`` and ``max_tokens`` override the config for this call (a prompt
    template may pin its own temperature). ``usage``: where the call's tokens are logged once
    the model answered, an empty answer included. Every failure is an :class:`LLMError`.
    ``stop`` (:mod:`ov.waiting`): the wait for the answer ends as soon as it gives a reason, with
    :class:`~ov.errors.AnswerStopped`. The request is hung up (ov's own client) or left to end alone
    (litellm), its answer dropped; ``usage`` still logs what it cost when it ends, or a line
    ``cancelled`` when it ended without an answer. ``seconds``: the wait ends after it, sooner than
    ``llm.timeout`` (a probe), with an :class:`LLMError` saying so; the request is hung up or left
    as after a stop.
    """
    if not config.enabled:
        raise LLMError(f"no language model is configured for the {purpose}", hint="set one with: ov config set llm.model MODEL")
    model = config.model or ""
    key = api_key(config.api_key_env, model, "llm", LLMNotSetUp) if config.api_key_env else None
    max_tokens = max_tokens if max_tokens is not None else config.max_output_tokens
    temperature = config.temperature if temperature is None else temperature
    native = native_route(model, config.api_base, key, LLMNotSetUp, section="llm")
    line = None
    if native is not None:
        from ov.llm.wire import Line

        line = Line()
        ask = partial(_complete_natively, native, config, messages, purpose, max_tokens, temperature, line)
    else:  # litellm's request cannot be hung up: one given up on runs to its end (or its timeout)
        ask = partial(_complete_with_litellm, model, key, config, messages, purpose, max_tokens, temperature)
    abandoned, ended = threading.Event(), threading.Event()

    def answered() -> Completion:
        # Logged from the request's own thread: one whose wait was given up (a stop) is billed when
        # it ends, after this call has returned; one hung up first is noted as cancelled.
        try:
            completion = ask()
        except LLMError:
            if abandoned.is_set() and usage is not None:
                usage.record(model, 0, 0, cancelled=True)
            raise
        else:
            if usage is not None:
                usage.record(model, completion.prompt_tokens, completion.completion_tokens)
        finally:
            ended.set()
        return completion

    def abandon() -> None:
        abandoned.set()
        if line is not None:
            line.hang_up()  # the request ends now, not at llm.timeout

    try:
        completion = waited(answered, seconds=seconds, stop=stop, abandon=abandon)
    except Stopped as stopped:
        _let_end(line, ended)
        # Whether anything was written is the caller's to say (a write's commit comes after the answer).
        raise AnswerStopped(f"the {purpose} was stopped while {model} was answering ({stopped.why})") from None
    except TimeoutError:  # ``seconds`` passed (``ask`` turns each of its own failures into an LLMError)
        _let_end(line, ended)
        left = "ov hung up" if line is not None else f"ov stopped waiting (litellm's request runs on, up to llm.timeout: {config.timeout:g} s)"
        raise LLMError(f"no answer from {model} to the {purpose} in {seconds:g} s; {left}") from None
    if not completion.text.strip():
        raise EmptyAnswer(
            f"{config.model} returned an empty answer for the {purpose}", completion=completion, hint="check llm.max_output_tokens and the model"
        )
    return completion


def _let_end(line, ended: threading.Event) -> None:
    """Lets a request hung up (``line``: ov's own client) end, in moments: its usage line is logged
    before a process that gives up on it exits (a daemon thread does not outlive the process)."""
    if line is not None:
        ended.wait(HUNG_UP_SECONDS)


def _complete_with_litellm(
    model: str, key: str | None, config: LLMConfig, messages: list[dict[str, Any]], purpose: str, max_tokens: int, temperature: float
) -> Completion:
    kwargs = litellm_kwargs(
        model,
        config.timeout,
        config.api_base,
        key,
        messages=messages,
        max_tokens=max_tokens,
        temperature=temperature,
        # A model that rejects a parameter (some reasoning models refuse temperature)
        # should still answer rather than fail the whole summary.
        drop_params=True,
    )
    litellm = import_litellm()
    try:
        response = litellm.completion(**kwargs)
    except Exception as exc:  # litellm raises many unrelated types; all mean "the call failed"
        raise _translate(exc, config, purpose) from None
    return _parse(response, config, purpose)


def served_by_litellm(model: str) -> bool:
    """Whether calls to ``model`` go through litellm (and so pay its import) rather than ov's own client."""
    from ov.llm.routes import provider_of

    return provider_of(model) is None


def native_route(model: str, api_base: str | None, key: str | None, error: type[OvError], *, section: str, embeddings: bool = False) -> Route | None:
    """The route ov's own client takes for ``model``, None when litellm serves it.

    ``error`` (naming the ``{section}.*`` settings) when the provider needs a key or a base URL
    that is not set, or the base URL holds a user name or password: the one ov's client would
    call, or for litellm the ``api_base`` or any variable it may read one from.
    """
    from ov.llm.routes import NoBase, NoKey, UserinfoInBase, check_litellm_base, route

    try:
        found = route(model, api_base, key, embeddings=embeddings)
        if found is None:
            check_litellm_base(model, api_base)
        return found
    except NoKey as missing:
        names = " or ".join(missing.variables)
        raise error(
            f"no API key for {model}: {names} is not set",
            hint=f"export {missing.variables[0]}=..., or set {section}.api_key_env to the variable that holds the key",
        ) from None
    except NoBase as missing:
        raise error(
            f"{model} needs the URL of its server: {section}.api_base (or {' or '.join(missing.variables)}) is not set",
            hint=f"ov config set {section}.api_base http://HOST:PORT/v1",
        ) from None
    except UserinfoInBase as refused:
        # The URL itself is not repeated: it holds the password.
        where = refused.variable or f"{section}.api_base"
        raise error(
            f"{where} must not hold a user name or password (user:password@): ov sends no basic auth, and errors would show it",
            hint=f"remove user:password@ from {where}; put the key in an environment variable named by {section}.api_key_env",
        ) from None


def _complete_natively(
    route: Route, config: LLMConfig, messages: list[dict[str, Any]], purpose: str, max_tokens: int, temperature: float, line: Line
) -> Completion:
    from ov.llm import native
    from ov.llm.wire import CallFailed

    try:
        answer = native.chat(route, messages, max_tokens=max_tokens, temperature=temperature, timeout=config.timeout, line=line)
    except CallFailed as failure:
        raise _translate(failure, config, purpose) from None
    text = answer.text if isinstance(answer.text, str) else ""
    return Completion(text, answer.prompt_tokens, answer.completion_tokens, answer.model or config.model or "")


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
    spent: dict[str, Any] | None = None,
    temperature: float | None = None,
    usage: UsageLog | None = None,
    stop: Stop | None = None,
) -> T:
    """One call whose answer ``parse`` turns into a value, and one repair request when it cannot.

    ``parse`` raises ValueError saying what is wrong; the model is shown that and the expected
    ``shape`` once, with its answer cut to what ``llm.max_prompt_chars`` leaves room for.
    ``spent`` adds up the prompt and completion tokens of every call made, also when it fails
    (they were billed); ``usage`` logs each call and ``stop`` may end its wait (:func:`complete`). Raises :class:`UnusableAnswer`
    when the repaired answer cannot be used either, and LLMError when a call fails.
    """
    spent = {} if spent is None else spent

    def ask(conversation: list[dict[str, Any]]) -> str:
        try:
            answer = complete(config, conversation, purpose=purpose, temperature=temperature, usage=usage, stop=stop)
        except EmptyAnswer as empty:
            add_spent(spent, empty.completion)
            raise
        add_spent(spent, answer)
        return answer.text

    text = ask(messages)
    try:
        return parse(text)
    except ValueError as exc:
        repair = (
            f"Your answer could not be used: {exc}\n"
            f"Reply with the corrected JSON object only, in the shape {shape}, with no code fences and no commentary."
        )
        room = config.max_prompt_chars - sum(len(str(m.get("content") or "")) for m in messages) - len(repair)
        text = ask([*messages, {"role": "assistant", "content": _within(text, room)}, {"role": "user", "content": repair}])
    try:
        return parse(text)
    except ValueError as again:
        raise UnusableAnswer(f"{config.model} did not answer the {purpose} with usable JSON, even when asked to correct it: {again}") from None


def add_spent(spent: dict[str, Any], answer: Completion) -> None:
    """Count one call's tokens into ``spent`` (see :func:`complete_json`)."""
    spent["prompt_tokens"] = spent.get("prompt_tokens", 0) + answer.prompt_tokens
    spent["completion_tokens"] = spent.get("completion_tokens", 0) + answer.completion_tokens


_OMITTED = "[your previous answer, {n} characters, is not repeated here]"


def _within(text: str, room: int) -> str:
    """The model's bad answer as the repair request shows it: whole when it fits ``room``, else its
    start; a model that rambled must not push the repair request past the prompt cap."""
    if len(text) <= room:
        return text
    if room < 200:  # too little of it to be worth showing
        return _OMITTED.format(n=len(text))
    return text[: room - 6] + " [...]"


def litellm_kwargs(model: str, timeout: float, api_base: str | None, key: str | None, **call: Any) -> dict[str, Any]:
    """The keyword arguments of one litellm call (completion or embedding): ``call`` plus the
    model, timeout, endpoint and key, with litellm's own retries off."""
    kwargs: dict[str, Any] = {
        "model": model,
        "timeout": timeout,
        # Retries would multiply the configured timeout; callers decide whether to retry.
        "num_retries": 0,
        "max_retries": 0,
        **call,
    }
    if api_base:
        kwargs["api_base"] = api_base
    if key is not None:
        kwargs["api_key"] = key
    return kwargs


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
        key_env=config.api_key_env,
    )


def known_keys(key_env: str | None) -> tuple[str, ...]:
    """The API keys a call may have sent: the one ``key_env`` names and those of the providers'
    own variables (``OPENAI_API_KEY``, ...), which a route falls back to."""
    from ov.llm.routes import PROVIDERS

    names = {key_env} if key_env else set()
    names.update(name for provider in PROVIDERS.values() for name in provider.key_env)
    return tuple(sorted({os.environ[n] for n in names if os.environ.get(n)}))


def translate_failure(
    exc: Exception, error: type[OvError], *, where: str, model: str, timeout: float, call: str, section: str, example: str, key_env: str | None = None
) -> OvError:
    """One failed call as ``error`` with a hint that names the ``{section}.*`` setting to fix.

    Shared by chat calls (``llm.*``) and embeddings (``embedding.*``), by ov's own client
    (a :class:`~ov.llm.wire.CallFailed`) and by litellm (which raises many unrelated exception
    types): people need the same few answers for all of them.

    The message goes into `.done` files (committed), the hook log and doctor's output, so what
    came from outside ov is scrubbed first: a server that echoes the key it refused ("Incorrect
    API key provided: sk-proj-...") and an ``api_base`` holding a password must not put them there.
    """
    from ov.llm.wire import ANSWER, CONNECTION, HTTP, TIMEOUT, CallFailed
    from ov.redact.engine import redact_known

    failure = exc if isinstance(exc, CallFailed) else _litellm_failure(exc)
    keys = known_keys(key_env)
    kind, status, detail = failure.kind, failure.status, redact_known(failure.detail, keys)
    where = redact_known(where, keys)
    if kind == TIMEOUT:
        return error(
            f"{call} to {where} timed out after {timeout:g}s",
            hint=f"raise {section}.timeout, or check that the model server is responsive",
        )
    if kind == CONNECTION:
        return error(f"cannot reach {where} for {call}: {detail}", hint=f"check {section}.api_base and that the server is running")
    if kind == _NO_PROVIDER:
        return error(f"litellm does not know which provider serves {model!r}", hint=f"prefix {section}.model with a provider, e.g. {example}")
    if kind == ANSWER:
        return error(
            f"{where} sent an answer ov cannot read for {call}: {detail}",
            hint=f"check that {section}.api_base is the model server's API (e.g. http://HOST:PORT/v1 for an OpenAI-compatible one)",
        )
    if kind == HTTP and status in (401, 403):
        return error(
            f"{where} refused the credentials for {call}: {detail}",
            hint=f"set {section}.api_key_env to the name of the environment variable that holds the key",
        )
    if kind == HTTP and status == 404:
        return error(f"{where} does not know this model or endpoint: {detail}", hint=f"check {section}.model and {section}.api_base")
    if kind == HTTP and status == 429:
        return error(f"{where} is rate limiting {call}: {detail}", hint="try again later")
    if kind == HTTP and status is not None and status >= 500:
        return error(f"{call} to {where} failed (HTTP {status}): {detail}", hint="the model server failed on its side: try again later, or read its log")
    if kind == HTTP and status is not None:
        return error(f"{call} to {where} failed (HTTP {status}): {detail}", hint=f"the server refused the request: check {section}.model and the message above")
    return error(f"{call} to {where} failed: {detail}", hint=f"check {section}.model (a litellm model string such as {example.split(' or ')[0]})")


_NO_PROVIDER = "no_provider"  # litellm could not tell the provider from the model string
_OTHER = "other"


def _litellm_failure(exc: Exception) -> CallFailed:
    """A litellm exception as the :class:`~ov.llm.wire.CallFailed` ov's own client would raise."""
    from ov.llm.wire import CONNECTION, HTTP, TIMEOUT, CallFailed

    detail = _detail(exc)
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    lowered = detail.lower()
    if "timeout" in name.lower() or "timed out" in lowered:
        return CallFailed(TIMEOUT, detail)
    # litellm reports a refused connection as APIConnectionError with status 500.
    if "connection error" in lowered or ("connect" in name.lower() and status in (None, 500)):
        return CallFailed(CONNECTION, detail)
    if "credential" in lowered or "api key" in lowered:
        return CallFailed(HTTP, detail, status=status if status in (401, 403) else 401)
    if "provider" in lowered and "not provided" in lowered and status not in (404, 429):
        return CallFailed(_NO_PROVIDER, detail)
    if status is not None:
        return CallFailed(HTTP, detail, status=status)
    return CallFailed(_OTHER, detail)


def _detail(exc: Exception) -> str:
    from ov.llm.wire import cut

    text = " ".join(str(getattr(exc, "message", None) or exc).split())
    # litellm prefixes its own class names ("litellm.InternalServerError: OpenAIException - ...").
    for marker in ("Exception - ", "Error - "):
        if marker in text:
            text = text.split(marker, 1)[1]
    text = re.sub(r"^litellm\.\w+: ", "", text)
    return cut(text) if text else type(exc).__name__


def _parse(response: Any, config: LLMConfig, purpose: str) -> Completion:
    try:
        choice = response.choices[0]
        text = choice.message.content
    except (AttributeError, IndexError, KeyError, TypeError):
        raise LLMError(f"{config.model} returned no choices for the {purpose}") from None
    usage = getattr(response, "usage", None)
    return Completion(
        text=text if isinstance(text, str) else "",
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
    except RecursionError:
        raise ValueError("the answer is not JSON ov reads: nested too deeply") from None
    except json.JSONDecodeError as exc:
        # Some models wrap the object in a sentence; the outermost braces are the answer then.
        start, end = body.find("{"), body.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(body[start : end + 1])
            except (json.JSONDecodeError, RecursionError):
                pass
        raise ValueError(f"the answer is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
