"""The schema of ``config.yaml``: one frozen dataclass per section, each field with its default
and the checks its value goes through (:mod:`ov.config.checks`), and the dotted keys that name
the fields (``retrieval.candidates``).
"""

# No `from __future__ import annotations` here: loading builds the sections from the real field types.

import dataclasses
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from ov.config.checks import MOST_BYTES, BaseUrl, EnvName, IdCheck, Lowercase, Positive
from ov.errors import ConfigError

CONFIG_VERSION = 1

# Unknown keys must be reported, so pydantic is told to forbid them (see ov.config.loading.validate).
_STRICT: dict[str, Any] = {"extra": "forbid"}


@dataclass(frozen=True)
class IdentityConfig:
    """Default identity when no flag or environment variable names one."""

    __pydantic_config__ = _STRICT

    account: Annotated[str | None, IdCheck("account")] = None
    user: Annotated[str | None, IdCheck("user")] = None
    peer: Annotated[str | None, IdCheck("peer")] = None


@dataclass(frozen=True)
class StoreConfig:
    """How the account repositories are written."""

    __pydantic_config__ = _STRICT

    lock_timeout: Annotated[float, Positive()] = 10.0
    """Seconds a writer waits for another writer to finish before giving up."""
    max_file_bytes: Annotated[int, Positive(MOST_BYTES)] = 10 * 1024 * 1024
    """Largest file `ov write` accepts."""
    auto_pack_loose: Annotated[int, Positive(least=0)] = 6700
    """About this many loose git objects (git's `gc.auto`) and a command that wrote packs a batch of them, with deltas; 0 never does."""
    auto_pack_limit: Annotated[int, Positive(least=0)] = 50
    """This many packs (git's `gc.autoPackLimit`) and a command that wrote folds them into fewer, their deltas kept (a run that wrote a pack folds it into the others by git's geometric rule whatever their number); 0 never does."""


@dataclass(frozen=True)
class IngestConfig:
    """Limits for `ov add-resource`."""

    __pydantic_config__ = _STRICT

    max_source_bytes: Annotated[int, Positive(MOST_BYTES)] = 20 * 1024 * 1024
    """Files larger than this are skipped (reported in the summary)."""
    max_source_files: Annotated[int, Positive()] = 10_000
    """A folder with more files to add is refused before any is read (`ov add-resource --no-limit` adds it)."""
    max_source_total_bytes: Annotated[int, Positive()] = 100 * 1024 * 1024
    """A folder whose files to add hold more bytes is refused before they are read (`--no-limit` adds it)."""
    url_timeout: Annotated[float, Positive()] = 20.0
    """Seconds a URL fetch may take, connection and download together."""
    url_max_bytes: Annotated[int, Positive(MOST_BYTES)] = 20 * 1024 * 1024
    """Largest download accepted from a URL."""


@dataclass(frozen=True)
class LLMConfig:
    """The language model used for summaries (and, later, memory extraction and query plans).

    Without a ``model`` everything runs offline on deterministic extractive code.
    """

    __pydantic_config__ = _STRICT

    model: str | None = None
    """A litellm model string, e.g. ``openai/gpt-4o-mini`` or ``ollama/llama3``."""
    api_base: Annotated[str | None, BaseUrl()] = None
    """Base URL of an OpenAI-compatible endpoint (a local server, a proxy)."""
    api_key_env: Annotated[str | None, EnvName()] = None
    """Name of the environment variable holding the API key (the key itself never goes in this file)."""
    timeout: Annotated[float, Positive()] = 60.0
    """Seconds one LLM call may take."""
    max_prompt_chars: Annotated[int, Positive()] = 30000
    """Cap on the text sent in one summary prompt; longer input is cut."""
    max_output_tokens: Annotated[int, Positive()] = 1024
    temperature: Annotated[float, Positive(2.0, least=0.0)] = 0.0

    @property
    def enabled(self) -> bool:
        return bool(self.model)


@dataclass(frozen=True)
class EmbeddingConfig:
    """The embedder that turns text into vectors for `ov find` (see docs/retrieval.md).

    ``auto`` uses a model2vec model when one is on disk (``model``, or
    ``$OV_HOME/models/model2vec``) and lexical retrieval alone otherwise. ``builtin`` is the
    static model built into ov, ``minilm`` all-MiniLM-L6-v2 from the ``minilm`` extra.
    """

    __pydantic_config__ = _STRICT

    provider: Literal["auto", "none", "builtin", "minilm", "hash", "model2vec", "sentence-transformers", "litellm"] = "auto"
    model: str | None = None
    """A local model directory (model2vec, sentence-transformers) or a litellm model string; not read by
    ``builtin`` and ``minilm``."""
    api_base: Annotated[str | None, BaseUrl()] = None
    """Base URL of an OpenAI-compatible embeddings endpoint (litellm only)."""
    api_key_env: Annotated[str | None, EnvName()] = None
    """Name of the environment variable holding the API key (litellm only)."""
    dimensions: Annotated[int, Positive()] = 256
    """Vector size of the hashing embedder (no other embedder reads it: an API model's size is its own)."""
    timeout: Annotated[float, Positive()] = 60.0
    """Seconds one embeddings call may take (litellm only)."""
    batch_size: Annotated[int, Positive()] = 64
    """Texts sent per embeddings call."""


@dataclass(frozen=True)
class RetrievalConfig:
    """How `ov find` and `ov search` rank (docs/retrieval.md explains each weight)."""

    __pydantic_config__ = _STRICT

    language: Annotated[
        Literal[
            "none", "arabic", "danish", "dutch", "english", "finnish", "french", "german", "greek", "hungarian",
            "italian", "norwegian", "portuguese", "romanian", "russian", "spanish", "swedish", "tamil", "turkish",
        ],
        Lowercase(),
    ] = "english"
    """Stemming language of the full-text index: one of tantivy's stemmers, or ``none``."""
    fusion: Literal["convex", "minmax", "rrf"] = "convex"
    """How the full-text and vector rankings combine: each scaled to its best and added
    (``convex``), each scaled onto 0..1 between its worst and best candidate and added
    (``minmax``), or reciprocal ranks (``rrf``)."""
    vector_weight: Annotated[float | None, Positive(least=0.0)] = None
    """Weight of the vector ranking against the full-text ranking for resources and skills; unset:
    the value measured for the embedder in use (docs/retrieval.md, "How `find` ranks")."""
    memory_vector_weight: Annotated[float | None, Positive(least=0.0)] = None
    """The same for memories."""
    session_vector_weight: Annotated[float | None, Positive(least=0.0)] = None
    """The same for session messages (short, chatty texts whose nearest vectors are often noise)."""
    every_candidate: bool | None = None
    """Give every full-text candidate its similarity to the query, read from the vector index, not
    only those among the nearest ``candidates`` records (which leaves the rest none); unset: yes for
    transformer and API embedders, no for static ones (docs/retrieval.md, "How `find` ranks")."""
    first_passage_weight: Annotated[float | None, Positive(1.0, least=0.0)] = None
    """For a record embedded as several passages (a document longer than its embedder reads at
    once), the share of its similarity that comes from its first passage (its title and opening:
    what the whole is about) beside its nearest one; unset: the measured value for the embedder."""
    parent_weight: Annotated[float, Positive(least=0.0)] = 0.2
    """How much of its directory's L0/L1 match a file inherits."""
    conversation_weight: Annotated[float, Positive(least=0.0)] = 0.5
    """How much of its whole conversation's match a session message inherits."""
    context_weight: Annotated[float, Positive(least=0.0)] = 0.3
    """Weight of a message's neighbouring messages when it is matched."""
    phrase_weight: Annotated[float, Positive(least=0.0)] = 1.0
    """How much a record that holds the query's words as one run, in order (a pasted error
    message), scores on top of its words matched one by one (0 turns it off)."""
    speaker_weight: Annotated[float, Positive(least=0.0)] = 6.0
    """Weight of a query word that names the peer who spoke a message: a question about a person
    is usually answered by what that person said."""
    date_weight: Annotated[float, Positive(least=0.0)] = 1.0
    """How much a record from around a date the query names ("on 3 June", "in July 2023") is
    raised: its score is multiplied by 1 + this at the date, less further away (0 turns it off)."""
    session_weight: Annotated[float, Positive(least=0.0)] = 0.8
    """Session messages' scores are scaled by this when ranked beside memories and resources."""
    candidates: Annotated[int, Positive(10_000)] = 200
    """Records each ranking contributes before fusion."""
    budget: Annotated[int, Positive()] = 1600
    """Default token budget of `ov search --mode context`."""
    query_planner: bool = True
    """Let `ov search` ask the LLM (when one is configured) for a query plan."""


@dataclass(frozen=True)
class HooksConfig:
    """What `ov hook` injects into and captures from coding agents (docs/hosts.md)."""

    __pydantic_config__ = _STRICT

    session_start_budget: Annotated[int, Positive()] = 1500
    """Tokens of the block injected at session start: profile, preferences, memory index."""
    prompt_budget: Annotated[int, Positive()] = 1000
    """Tokens of the context block injected before a prompt."""
    prompt_min_score: Annotated[float, Positive(1.0, least=0.0)] = 0.6
    """Inject nothing before a prompt whose most relevant result is below this (``relevance``, the
    score on one scale for every type; 0 turns the cut-off off). Measured on LoCoMo dev with
    questions asked of their own and of another conversation's store (docs/benchmarks.md,
    silence.py --embedder none: the hook searches full text only): 0.6 keeps 91% of the held-back
    evidence and lets 6.6% of the unrelated questions through, where no cut-off injects into 95%."""
    prompt_repeat_after: Annotated[int, Positive(least=0)] = 20
    """Prompts of a session during which an entry injected once (by its session start or a prompt)
    is not injected again: the host still holds it. A compaction, ``clear`` or new session forgets
    sooner where the host says so (docs/hosts.md); 0 injects every prompt's whole block."""
    max_chars: Annotated[int, Positive()] = 9000
    """Hard cap on the characters of one injected block, fence included (hosts cut context at
    10,000): a budget the block is built within, of whole entries."""
    tool_output_chars: Annotated[int, Positive()] = 2000
    """Characters kept of each tool input and output a capture stores."""
    workspace_peer: bool = True
    """Without an explicit peer, file each workspace's sessions under a peer named for it,
    so project knowledge and personal memories stay apart."""
    deadline: Annotated[float, Positive()] = 1.0
    """Seconds a recall hook may take before it answers with nothing (the agent never waits)."""
    commit_wait: Annotated[float, Positive()] = 10.0
    """Seconds a session start waits for a commit of the same user still running, so the new
    session sees what the last one learned."""
    orphan_after: Annotated[float, Positive(least=0.0)] = 1800.0
    """Seconds after its last capture that a session no host ended is committed by the next
    session start (0: at once)."""


@dataclass(frozen=True)
class OutputConfig:
    """How results are shown on a terminal."""

    __pydantic_config__ = _STRICT

    color: Literal["auto", "always", "never"] = "auto"


@dataclass(frozen=True)
class Config:
    """The whole configuration: one section per part of ov, each with its defaults."""

    __pydantic_config__ = _STRICT

    version: int = CONFIG_VERSION
    identity: IdentityConfig = field(default_factory=IdentityConfig)
    store: StoreConfig = field(default_factory=StoreConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    ingest: IngestConfig = field(default_factory=IngestConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    embedding: EmbeddingConfig = field(default_factory=EmbeddingConfig)
    retrieval: RetrievalConfig = field(default_factory=RetrievalConfig)
    hooks: HooksConfig = field(default_factory=HooksConfig)

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def config_keys() -> list[str]:
    """Every settable dotted key, e.g. ``store.lock_timeout``."""
    return _keys(Config, "")


def get_value(config: Config, key: str) -> Any:
    require_key(key)
    return value_at(config.as_dict(), key.split("."))


def value_at(node: Any, parts: list[str]) -> Any:
    """What nested mappings hold at the key ``parts`` (``["store", "lock_timeout"]``), None where they hold nothing."""
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _keys(cls, prefix: str) -> list[str]:
    keys = []
    for f in dataclasses.fields(cls):
        name = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(f.type):
            keys.extend(_keys(f.type, name + "."))
        elif f.name != "version":
            keys.append(name)
    return keys


def is_text_field(key: str) -> bool:
    """Whether ``key`` holds text (an id, a model's name), so a value that YAML reads as a number stays text."""
    cls: Any = Config
    for part in key.split("."):
        tp = {f.name: f.type for f in dataclasses.fields(cls)}[part]
        cls = tp
    base = getattr(cls, "__origin__", cls)  # unwrap Annotated
    return str in getattr(base, "__args__", (base,))


def require_key(key: str) -> None:
    """Refuse a key the schema does not have, naming those it has."""
    if key not in config_keys():
        raise ConfigError(f"unknown config key {key!r}", hint="known keys: " + ", ".join(config_keys()))
