"""Which wire protocol serves a model string, where, and with which key.

ov's model strings are litellm's (``openai/gpt-4o-mini``, ``anthropic/claude-...``,
``ollama/llama3``). The providers in :data:`PROVIDERS` speak one of three protocols that
:mod:`ov.llm.native` implements on the standard library:

* ``openai``: chat completions (``POST {base}/chat/completions``) and embeddings
  (``POST {base}/embeddings``): OpenAI, OpenRouter, vLLM, LM Studio, llamafile, and any
  OpenAI-compatible server given as ``api_base`` (llama.cpp, Ollama's ``/v1``, a proxy);
* ``anthropic``: the Messages API (``POST {base}/v1/messages``);
* ``ollama``: Ollama's own ``/api/chat`` and ``/api/embed``.

A bare name is routed as litellm routes it: ``gpt-*``, ``chatgpt-*`` and ``o1``/``o3``/...
to OpenAI, ``claude-*`` to Anthropic. Every other string (bedrock, vertex, azure, a bare name
litellm looks up in its catalogue, a litellm ``*-latest`` alias) gets no route, and
:mod:`ov.llm.client` hands it to litellm, once :func:`check_litellm_base` found no user name or
password in the base URL litellm would read from the environment.

Base URLs and keys are resolved as litellm resolves them: ``api_base`` first, then the
provider's environment variables (``OPENAI_BASE_URL``, ``ANTHROPIC_BASE_URL``,
``OLLAMA_API_BASE``, ...), then its public endpoint; the key named by ``api_key_env`` first,
then the provider's own variables (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ...). Only the
environment is read here, never a file.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ov.urls import has_userinfo

OPENAI = "openai"
ANTHROPIC = "anthropic"
OLLAMA = "ollama"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Provider:
    """A litellm provider prefix ov serves natively."""

    protocol: str
    base_env: tuple[str, ...]  # variables that may hold the base URL, in litellm's order
    default_base: str | None  # None: the provider has no public endpoint; api_base is required
    key_env: tuple[str, ...]  # variables that may hold the key, in litellm's order
    needs_key: bool = False  # its public endpoint refuses calls without a key
    embeddings: bool = True  # whether its protocol has an embeddings endpoint ov calls natively


PROVIDERS: dict[str, Provider] = {
    "openai": Provider(OPENAI, ("OPENAI_BASE_URL", "OPENAI_API_BASE"), "https://api.openai.com/v1", ("OPENAI_API_KEY",), needs_key=True),
    "anthropic": Provider(ANTHROPIC, ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"), "https://api.anthropic.com", ("ANTHROPIC_API_KEY",), needs_key=True, embeddings=False),
    "ollama": Provider(OLLAMA, ("OLLAMA_API_BASE",), "http://localhost:11434", ("OLLAMA_API_KEY",)),
    "ollama_chat": Provider(OLLAMA, ("OLLAMA_API_BASE",), "http://localhost:11434", ("OLLAMA_API_KEY",)),
    "openrouter": Provider(OPENAI, ("OPENROUTER_API_BASE",), "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY", "OR_API_KEY"), needs_key=True),
    "hosted_vllm": Provider(OPENAI, ("HOSTED_VLLM_API_BASE",), None, ("HOSTED_VLLM_API_KEY",)),
    "lm_studio": Provider(OPENAI, ("LM_STUDIO_API_BASE",), None, ("LM_STUDIO_API_KEY",)),
    "llamafile": Provider(OPENAI, ("LLAMAFILE_API_BASE",), "http://127.0.0.1:8080/v1", ("LLAMAFILE_API_KEY",)),
}

# Variables litellm reads a base URL from for providers it serves, beyond the natively served
# providers' (PROVIDERS) and its usual "{PROVIDER}_API_BASE" / "_BASE_URL" (see litellm_base_env).
_LITELLM_BASE_ENV: dict[str, tuple[str, ...]] = {
    "azure": ("AZURE_API_BASE",),
    "text-completion-openai": ("OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "huggingface": ("HF_API_BASE", "HUGGINGFACE_API_BASE"),
    "vertex_ai": ("VERTEXAI_API_BASE", "VERTEX_API_BASE"),
    "bedrock": ("AWS_BEDROCK_RUNTIME_ENDPOINT",),
}

# Bare names litellm sends to OpenAI or Anthropic without a prefix (its catalogue has them all).
_BARE_OPENAI_RE = re.compile(r"^(gpt-|chatgpt-|o\d)")
_BARE_ANTHROPIC_RE = re.compile(r"^claude-")
# OpenAI's reasoning models take max_completion_tokens and only the default temperature
# (litellm's OpenAIOSeriesConfig and its GPT-5 config map the parameters the same way).
_REASONING_RE = re.compile(r"^(o\d|gpt-5)")


class NoKey(Exception):
    """The provider's public endpoint needs a key and none is set; ``variables`` could hold one."""

    def __init__(self, variables: tuple[str, ...]) -> None:
        super().__init__(", ".join(variables))
        self.variables = variables


class NoBase(Exception):
    """The provider has no public endpoint and neither ``api_base`` nor its variables name one."""

    def __init__(self, provider: str, variables: tuple[str, ...]) -> None:
        super().__init__(provider)
        self.provider = provider
        self.variables = variables


class UserinfoInBase(Exception):
    """The base URL names a user or a password (``https://user:pw@host``), which ov never sends
    and would show in every error naming the server; ``variable`` holds it, None for ``api_base``."""

    def __init__(self, variable: str | None) -> None:
        super().__init__(variable or "api_base")
        self.variable = variable


@dataclass(frozen=True)
class Route:
    """Where one model's calls go: the protocol, the endpoint, the name sent, the headers."""

    provider: str  # litellm's name for it: openai, anthropic, ollama, openrouter, ...
    protocol: str  # openai | anthropic | ollama
    model: str  # the model name the server is sent (the prefix removed)
    base: str  # the base URL, no trailing slash
    headers: dict[str, str] = field(default_factory=dict)  # authentication and version headers

    @property
    def reasoning(self) -> bool:
        """An OpenAI reasoning model: ``max_completion_tokens``, and no temperature but 1."""
        return self.protocol == OPENAI and self.provider == "openai" and bool(_REASONING_RE.match(self.model))

    def chat_url(self) -> str:
        if self.protocol == ANTHROPIC:
            return _ensure_route(self.base, "v1/messages")
        if self.protocol == OLLAMA:
            return _ensure_route(self.base, "api/chat")
        return self.base + "/chat/completions"

    def embeddings_url(self) -> str:
        if self.protocol == OLLAMA:
            return _ensure_route(self.base, "api/embed")
        return self.base + "/embeddings"


def provider_of(model: str) -> tuple[str, str] | None:
    """(provider, name sent) for a model string ov serves natively, None for one litellm must serve."""
    prefix, slash, rest = model.partition("/")
    if slash:
        provider, name = (prefix, rest) if prefix in PROVIDERS else (None, "")
    elif _BARE_OPENAI_RE.match(model) and "instruct" not in model:
        provider, name = "openai", model  # an -instruct model is a text completion in litellm
    elif _BARE_ANTHROPIC_RE.match(model):
        provider, name = "anthropic", model
    else:
        provider, name = None, ""
    if provider is None or not name.strip() or name.endswith("-latest"):
        # litellm resolves "-latest" names through aliases of its own catalogue (claude-sonnet-latest, ...)
        return None
    return provider, name


def route(model: str, api_base: str | None, api_key: str | None, *, embeddings: bool = False) -> Route | None:
    """The native route of ``model``, or None when litellm must serve it.

    ``api_key`` is the key ``api_key_env`` named, if any. :class:`NoKey` when the provider's
    public endpoint needs a key and none is set; :class:`NoBase` when the provider has no public
    endpoint and none is configured; :class:`UserinfoInBase` when the base URL holds a user name
    or password.
    """
    found = provider_of(model)
    if found is None:
        return None
    name, sent = found
    provider = PROVIDERS[name]
    if embeddings and not provider.embeddings:
        return None
    variable = None if api_base else _first_set(provider.base_env)
    base = api_base or (os.environ[variable].strip() if variable else provider.default_base)
    if not base:
        raise NoBase(name, provider.base_env)
    if has_userinfo(base):
        # Refused wherever it came from: the config refuses such an api_base the same way.
        raise UserinfoInBase(variable)
    base = base.strip().rstrip("/")
    key = api_key or _first_env(provider.key_env)
    if not key and provider.needs_key and provider.default_base and _same_host(base, provider.default_base):
        raise NoKey(provider.key_env)
    return Route(name, provider.protocol, sent, base, _headers(name, provider.protocol, key))


def litellm_base_env(model: str) -> tuple[str, ...]:
    """The environment variables litellm may read the base URL of ``model``'s provider from when
    it is given no ``api_base``: those of :data:`PROVIDERS` and :data:`_LITELLM_BASE_ENV`, and
    ``{PROVIDER}_API_BASE`` / ``{PROVIDER}_BASE_URL``; a bare name's provider as :func:`provider_of`
    tells it (``gpt-4o-latest`` is OpenAI's). () for a bare name litellm looks up in its catalogue."""
    prefix, slash, _ = model.partition("/")
    if not slash:
        prefix = "openai" if _BARE_OPENAI_RE.match(model) else "anthropic" if _BARE_ANTHROPIC_RE.match(model) else ""
    if not prefix.strip():
        return ()
    upper = re.sub(r"[^A-Z0-9]+", "_", prefix.upper())
    known = PROVIDERS[prefix].base_env if prefix in PROVIDERS else ()
    return tuple(dict.fromkeys((*known, *_LITELLM_BASE_ENV.get(prefix, ()), f"{upper}_API_BASE", f"{upper}_BASE_URL")))


def check_litellm_base(model: str, api_base: str | None) -> None:
    """:class:`UserinfoInBase` when the base URL litellm would call for ``model`` names a user or a
    password: ``api_base``, or without it any of :func:`litellm_base_env`'s variables (litellm's
    order among them differs by provider, so none may hold one). The same refusal as :func:`route`'s."""
    if api_base:
        if has_userinfo(api_base.strip()):
            raise UserinfoInBase(None)
        return
    for variable in litellm_base_env(model):
        if has_userinfo((os.environ.get(variable) or "").strip()):
            raise UserinfoInBase(variable)


def _headers(name: str, protocol: str, key: str | None) -> dict[str, str]:
    headers: dict[str, str] = {}
    if protocol == ANTHROPIC:
        headers["anthropic-version"] = ANTHROPIC_VERSION
        if key:
            headers["x-api-key"] = key
        return headers
    if key:
        headers["Authorization"] = f"Bearer {key}"
    if name == "openai":
        # The OpenAI SDK (under litellm) sends these when they are set.
        for variable, header in (("OPENAI_ORGANIZATION", "OpenAI-Organization"), ("OPENAI_PROJECT_ID", "OpenAI-Project")):
            value = os.environ.get(variable)
            if value:
                headers[header] = value
    return headers


def _first_set(names: tuple[str, ...]) -> str | None:
    """The first of the variables ``names`` set to more than blanks."""
    return next((name for name in names if (os.environ.get(name) or "").strip()), None)


def _first_env(names: tuple[str, ...]) -> str | None:
    name = _first_set(names)
    return os.environ[name].strip() if name else None


def _same_host(base: str, default: str) -> bool:
    return (urlsplit(base).hostname or "").lower() == (urlsplit(default).hostname or "").lower()


def _ensure_route(base: str, route_path: str) -> str:
    """``base`` + ``/route_path`` unless ``base`` already ends with it (litellm's ``ensure_api_route``).

    An Anthropic base that ends in ``/v1`` gets ``/messages`` only, so both
    ``https://api.anthropic.com`` and ``https://api.anthropic.com/v1`` work.
    """
    path = urlsplit(base).path.rstrip("/")
    if path.endswith("/" + route_path):
        return base
    head, _, tail = route_path.partition("/")
    if tail and path.endswith("/" + head):
        return f"{base}/{tail}"
    return f"{base}/{route_path}"
