"""The user's configuration: ``$OV_HOME/config.yaml``.

The schema is a tree of frozen dataclasses validated with pydantic. Unknown
keys are reported as warnings (and ignored). A value this ov cannot use (out of
its bounds, of another type, no longer one of the choices: often one an older
or newer ov accepted) is reported too, and its default is used instead, by every
command and every hook; ``ov doctor`` fails on it. Only what makes the whole
file unusable is a :class:`~ov.errors.ConfigError`: it does not parse, it is
not a mapping, it is too large, or an ``identity`` value is invalid (a default
identity would read and write another account's or user's data).

Importing pydantic and building its validators costs about 100 ms, more than a
whole ``ov ls`` may take, so a validated copy of the config is cached as JSON
in ``$OV_HOME/state/config.cache.json``, keyed by the file's SHA-256 and the
bytes of this module (see :func:`_schema_digest`). Commands read that cache;
pydantic runs only when the file or the schema changed.
"""

# No `from __future__ import annotations` here: `_build` reads the real field types.

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from ov.errors import ConfigError, InvalidId, quote
from ov.files import atomic_write
from ov.home import Home, make_private
from ov.identity import validate_id
from ov.regex import LazyPattern
from ov.urls import has_userinfo

CONFIG_VERSION = 1
# Limits of what a config file may be. The real one is a few hundred bytes and four levels
# deep; these only stop a file that would cost every command seconds (a 30 MB comment) or
# expand into millions of values (a YAML "billion laughs" of nested aliases).
MAX_CONFIG_BYTES = 1024 * 1024
MAX_CONFIG_NODES = 10_000
MAX_CONFIG_DEPTH = 32


@dataclass(frozen=True)
class IdCheck:
    """Annotation: the value must be a valid account/user/peer id.

    It speaks pydantic's ``__get_pydantic_core_schema__`` protocol, so pydantic
    is only imported when a config is actually validated.
    """

    kind: str

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is None:
                return None
            try:
                return validate_id(value, self.kind)
            except InvalidId as exc:
                raise ValueError(exc.message) from None

        return core_schema.no_info_after_validator_function(check, handler(source))


_ENV_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class EnvName:
    """Annotation: the name of an environment variable (``api_key_env``), never the key itself.

    A key pasted here would be written to config.yaml and printed by `ov config show` and
    `ov doctor`; the message does not repeat the value, which may be that key.
    """

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is None or _ENV_NAME.fullmatch(value):
                return value
            raise ValueError(
                "must be the NAME of the environment variable that holds the API key (letters, digits, _), "
                "not the key: export MY_KEY=... and set this to MY_KEY"
            )

        return core_schema.no_info_after_validator_function(check, handler(source))


@dataclass(frozen=True)
class BaseUrl:
    """Annotation: an ``api_base`` without a user name or password in it (``https://user:pw@host``):
    ov sends no basic auth, and would show the password in every error that names the server."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        def check(value: str | None) -> str | None:
            if value is not None and has_userinfo(value):
                raise ValueError("must not hold a user name or password (user:password@): put the key in an environment variable named by api_key_env")
            return value

        return core_schema.no_info_after_validator_function(check, handler(source))


# The largest value a count, a size or a number of seconds may take. Larger ones are accepted by
# nothing ov calls them with: a read of 1e20 bytes overflows an index, a deadline of 1e300 s a
# timestamp (every hook failed, silently, as hooks fail open).
MOST = 1_000_000_000
MOST_BYTES = 2**31  # a read asks for its size up front


@dataclass(frozen=True)
class Positive:
    """Annotation: a finite number above zero and at most ``most``, and never a YAML boolean
    (``true`` is not 1 here). ``least=0`` lets 0 through too."""

    most: float = MOST
    least: float | None = None

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        import math

        from pydantic_core import core_schema

        def no_bool(value: Any) -> Any:
            if isinstance(value, bool):
                raise ValueError("expected a number, not true/false")
            return value

        def bounded(value: float | None) -> float | None:
            if value is None:  # an optional value left unset
                return value
            if not math.isfinite(value):
                raise ValueError("must be a finite number")
            if self.least is None and value <= 0:
                raise ValueError("must be greater than 0")
            if self.least is not None and value < self.least:
                raise ValueError(f"must be at least {self.least:g}")
            if value > self.most:
                raise ValueError(f"must be at most {self.most:g}")
            return value

        inner = core_schema.no_info_after_validator_function(bounded, handler(source))
        return core_schema.no_info_before_validator_function(no_bool, inner)


class Lowercase:
    """Annotation: a name given in any case is read in lower case (tantivy took "English" too)."""

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.no_info_before_validator_function(lambda value: value.lower() if isinstance(value, str) else value, handler(source))


# Unknown keys must be reported, so pydantic is told to forbid them (see _validate).
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


@dataclass(frozen=True)
class IngestConfig:
    """Limits for `ov add-resource`."""

    __pydantic_config__ = _STRICT

    max_source_bytes: Annotated[int, Positive(MOST_BYTES)] = 20 * 1024 * 1024
    """Files larger than this are skipped (reported in the summary)."""
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
    """Vector size of the hashing embedder; API models may honour it too when set explicitly."""
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
    silence.py, built-in embedder): 0.6 keeps 94% of the evidence and lets 6-7% of the unrelated
    questions through, where no cut-off injects into 95% of them."""
    max_chars: Annotated[int, Positive()] = 9000
    """Hard cap on the characters of one injected block (hosts cut context at 10,000)."""
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


@dataclass(frozen=True)
class InvalidValue:
    """A value in the file this ov cannot use (out of its bounds, of another type, no longer one of
    the choices), most often one that an older or a newer ov accepted. Its default stands in."""

    key: str  # "retrieval.candidates", or a whole section ("hooks") that is not a mapping
    value: Any  # as the file holds it
    problem: str  # "must be at most 10000"
    default: Any

    @property
    def stops(self) -> bool:
        """Whether no default can stand in: a default identity reads and writes another account's
        or user's data, so an invalid one stops every command (see validate_config_text)."""
        return self.key.split(".")[0] == "identity"

    def describe(self) -> str:
        return f"{self.key} = {_shown(self.value, self.key)}: {self.problem}"

    def as_dict(self) -> dict:
        """The fields for ``--json``, the value hidden where :func:`_shown` hides it."""
        return {"key": self.key, "value": _hidden(self.value, self.key) or self.value, "problem": self.problem, "default": self.default}

    def outcome(self) -> str:
        if self.stops:
            return "every command stops until it is fixed"
        if isinstance(self.default, dict):
            return f"the defaults of {self.key}.* are used instead"
        return f"the default {_shown(self.default)} is used instead"

    def fix(self) -> str:
        unset = f"`ov config unset {self.key}`"
        return f"{unset} (back to the default) or `ov config set {self.key} VALUE`" if self.key in config_keys() else unset


@dataclass(frozen=True)
class LoadedConfig:
    """A configuration as read: where from, whether the file exists, and what in it was left out."""

    config: Config
    path: Path
    exists: bool
    invalid: tuple[InvalidValue, ...] = ()  # values left out, their defaults used
    unknown: tuple[str, ...] = ()  # keys this ov does not know, left out

    @property
    def warnings(self) -> tuple[str, ...]:
        """One line for each key left out, naming the file, what is wrong and how to fix it."""
        invalid = [f"{self.path}: {v.describe()}; {v.outcome()}. Fix: {v.fix()}" for v in self.invalid]
        return (*invalid, *(f"{self.path}: unknown key {quote(key)} ignored" for key in self.unknown))


def load_config(home: Home) -> LoadedConfig:
    """Read and validate the config, using the validated cache when neither the file nor the schema changed."""
    path = home.config_path
    raw = _read(path)
    if raw is None:
        return LoadedConfig(Config(), path, exists=False)
    schema = _schema_digest()
    key = hashlib.sha256(raw + b"|" + schema.encode()).hexdigest() if schema else None
    cache_path = home.state_root / "config.cache.json"
    if key:
        try:
            cached = json.loads(cache_path.read_text(encoding="utf-8"))
            if isinstance(cached, dict) and cached.get("key") == key:
                invalid = tuple(InvalidValue(**value) for value in cached["invalid"])
                return LoadedConfig(_build(Config, cached["config"]), path, True, invalid, tuple(cached["unknown"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass
    loaded = validate_config_text(raw, path)
    if key:
        try:
            invalid = [dataclasses.asdict(value) for value in loaded.invalid]
            payload = {"key": key, "config": loaded.config.as_dict(), "invalid": invalid, "unknown": list(loaded.unknown)}
            make_private(home.root, "state")
            atomic_write(cache_path, json.dumps(payload, sort_keys=True).encode())
        except OSError:
            pass  # the cache only saves time; a read-only home still works
    return loaded


@functools.cache
def _schema_digest() -> str | None:
    """The SHA-256 of this module, which the config cache is keyed on.

    The schema (fields, defaults, bounds) and the code that validates a file against it all live
    here, so a cache written by an ov with any other schema never answers: one an older ov wrote
    kept values today's bounds refuse, left out sections it did not know and froze its defaults.
    ov's version is not enough, as it is not bumped with each change. Reading and hashing these
    ~30 KB takes ~25 µs on every command's and hook's start; None (no cache: every load
    validates) when the module's bytes cannot be read.
    """
    try:
        return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    except OSError:
        return None


def validate_config_text(raw: bytes, path: Path) -> LoadedConfig:
    """Parse YAML and validate it: unknown keys and values this ov cannot use are left out and
    reported; an invalid identity is refused, since no default can stand in for it."""
    loaded = _validate(_parse_yaml(raw, path), path)
    stops = [value for value in loaded.invalid if value.stops]
    if stops:
        raise ConfigError(
            f"{path} is invalid: " + "; ".join(value.describe() for value in stops),
            hint="fix it with " + "; ".join(value.fix() for value in stops),
            problems={value.key: value.problem for value in stops},
        )
    return loaded


def config_keys() -> list[str]:
    """Every settable dotted key, e.g. ``store.lock_timeout``."""
    return _keys(Config, "")


def get_value(config: Config, key: str) -> Any:
    _require_key(key)
    return _get(config.as_dict(), key.split("."))


def set_value(home: Home, key: str, text: str) -> LoadedConfig:
    """Set ``key`` to ``text`` (read as a YAML scalar) and write the file atomically.

    An invalid value is refused and the file left as it was. Values already in the file that
    this ov cannot use do not stop a change that adds no problem (it may fix one); the result
    lists what is still wrong. Unknown keys in the file are kept.
    """
    import yaml  # Deferred: only config writes need YAML's scalar rules.

    _require_key(key)
    try:
        value = yaml.safe_load(text) if text.strip() else None
    except (yaml.YAMLError, ValueError, RecursionError):  # ValueError: a date like 2026-02-30
        value = text
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{key} takes a single value, not {type(value).__name__}")
    if value is not None and not isinstance(value, str) and _is_text_field(key):
        value = text  # `ov config set identity.user 1001`: an id made of digits is still text
    parts = key.split(".")

    def put(data: dict[str, Any]) -> bool:
        node = data
        for part in parts[:-1]:
            child = node.get(part)
            if not isinstance(child, dict):
                child = {}
                node[part] = child
            node = child
        node[parts[-1]] = value
        return True

    return _rewrite(home, key, put, text)


def unset_value(home: Home, key: str) -> LoadedConfig:
    """Take ``key`` out of the file, and the sections it leaves empty, so that its default applies.

    A key ov does not know (or a whole section) may be taken out too when the file holds it.
    Nothing is written when the file does not hold the key.
    """
    parts = key.split(".")

    def remove(data: dict[str, Any]) -> bool:
        nodes = [data]
        for part in parts[:-1]:
            child = nodes[-1].get(part)
            if not isinstance(child, dict):
                break
            nodes.append(child)
        if len(nodes) < len(parts) or parts[-1] not in nodes[-1]:
            _require_key(key)  # a known key that is not set is already unset
            return False
        del nodes[-1][parts[-1]]
        for node, part in zip(reversed(nodes[:-1]), reversed(parts[:-1])):
            if node[part]:
                break
            del node[part]
        return True

    return _rewrite(home, key, remove, None)


def _rewrite(home: Home, key: str, change, text: str | None) -> LoadedConfig:
    """Apply ``change`` to the file's data and write it atomically, unless it leaves ``key`` invalid
    or makes a value invalid that was not (the file is then left as it was).

    A value that was already invalid does not stop the change: refusing every change while one
    value a newer ov accepted is in the file left no way to fix the others with `ov config`.
    """
    import yaml  # Deferred: only config writes need the YAML emitter.

    path = home.config_path
    raw = _read(path)
    data: dict[str, Any] = {} if raw is None else _parse_yaml(raw, path)
    before = {value.key for value in _validate(data, path).invalid}
    changed = change(data)
    if changed:
        data.setdefault("version", CONFIG_VERSION)
    after = _validate(data, path)
    added = [value for value in after.invalid if value.key == key or value.key not in before]
    if added:  # only a set gets here: taking a value out leaves its default, which is valid
        said = "; ".join(value.problem if value.key == key else value.describe() for value in added)
        raise ConfigError(f"{_shown(text, key)} is not a valid value for {key}: {said}", hint=f"{path} is unchanged")
    if changed:
        make_private(home.root)
        atomic_write(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode())
    return dataclasses.replace(after, exists=raw is not None or changed)


def _shown(value: Any, key: str | None = None) -> str:
    """A value from the file as YAML writes it, cut to a message's length."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return _hidden(value, key) or quote(value)


def _hidden(value: Any, key: str | None) -> str | None:
    """What stands for ``value`` of ``key`` when it must not be shown, else None: a key pasted
    where its variable's name goes, a password in a URL, shown, would land in terminals, logs,
    doctor reports and ``--json``."""
    if isinstance(value, str) and key is not None and key.endswith(".api_key_env") and not _ENV_NAME.fullmatch(value):
        return "(not shown: it may be the key itself)"
    if isinstance(value, str) and key is not None and key.endswith(".api_base") and has_userinfo(value):
        return "(not shown: it holds a user name or password)"
    return None


def _read(path: Path) -> bytes | None:
    """The config file's bytes, None when there is none; refused when it is not a small regular file."""
    import stat

    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{path} is not a regular file", hint="replace it with a YAML file, or remove it")
        if st.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path} is {st.st_size} bytes; a config file holds at most {MAX_CONFIG_BYTES}",
                hint="it holds a few settings; remove what is not one (`ov config show` lists them)",
            )
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None


def _parse_yaml(raw: bytes, path: Path) -> dict[str, Any]:
    import yaml  # Deferred: YAML is parsed only when the config cache is stale.

    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{path} does not parse as YAML{where}: {problem}", hint="fix the file or remove it") from None
    except ValueError as exc:  # a well-formed scalar PyYAML cannot build, such as the date 2026-02-30
        raise ConfigError(f"{path} holds a value YAML cannot read: {exc}", hint="quote it, or fix it") from None
    except RecursionError:  # PyYAML composes nested collections by recursion
        raise ConfigError(f"{path} is nested more than {MAX_CONFIG_DEPTH} levels deep", hint="fix the file or remove it") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must hold a mapping of settings, not {type(data).__name__}")
    data = _plain(data, path)
    version = data.get("version", CONFIG_VERSION)
    if isinstance(version, int) and not isinstance(version, bool) and version > CONFIG_VERSION:
        raise ConfigError(
            f"{path} is format version {version}; this ov reads version {CONFIG_VERSION}",
            hint="upgrade ov, or restore the config a newer ov rewrote",
        )
    return data


def _validate(data: dict[str, Any], path: Path) -> LoadedConfig:
    """Validate parsed data; unknown keys and invalid values are left out (their defaults apply)
    and listed, so that one value an older or newer ov accepted does not stop every command."""
    import pydantic  # Deferred: ~100 ms; only when the config changed (see module docstring).

    adapter = _adapter()
    unknown: list[str] = []
    invalid: dict[str, InvalidValue] = {}
    data = _plain(data, path)  # a private copy we may prune
    defaults = Config().as_dict()
    for _attempt in range(2):
        try:
            config = adapter.validate_python(data)
            return LoadedConfig(config, path, True, tuple(invalid.values()), tuple(unknown))
        except pydantic.ValidationError as exc:
            for error in exc.errors():
                if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
                    unknown.append(".".join(str(p) for p in error["loc"]))
                    _drop(data, list(error["loc"]))
                    continue
                parts = _schema_key(error["loc"])
                problem = error["msg"].removeprefix("Value error, ")  # our own validators' words: short
                if not parts:  # pragma: no cover - the top level is a mapping by then (_parse_yaml)
                    raise ConfigError(f"{path} is invalid: {problem}") from None
                key = ".".join(parts)
                if key not in invalid:  # a union may report one value twice
                    invalid[key] = InvalidValue(key, _get(data, parts), problem, _get(defaults, parts))
                    _drop(data, parts)
    raise ConfigError(f"{path} is invalid")  # pragma: no cover - the second pass has nothing left out


def _schema_key(loc: tuple[Any, ...]) -> list[str]:
    """The setting a validation error is about: its location up to where the schema ends (pydantic
    may add a union member or a list index after the field)."""
    cls: Any = Config
    parts: list[str] = []
    for part in loc:
        fields = {f.name: f.type for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else {}
        if part not in fields:
            break
        parts.append(part)
        cls = fields[part]
    return parts


def _get(node: Any, parts: list[str]) -> Any:
    for part in parts:
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _plain(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of parsed YAML as plain JSON-like data: string keys, dates as text.

    YAML aliases make shared (even self-containing) nodes, so the copy is counted as it
    is made and refused past MAX_CONFIG_NODES or MAX_CONFIG_DEPTH: an alias bomb is
    stopped after ten thousand values, not after expanding a hundred million of them.
    """
    budget = [MAX_CONFIG_NODES]

    def copy(value: Any, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            raise ConfigError(f"{path} holds more than {MAX_CONFIG_NODES} values (YAML aliases expand to copies)", hint="fix the file or remove it")
        if depth > MAX_CONFIG_DEPTH:
            raise ConfigError(f"{path} is nested more than {MAX_CONFIG_DEPTH} levels deep", hint="fix the file or remove it")
        if isinstance(value, dict):
            return {k if isinstance(k, str) else str(k): copy(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [copy(v, depth + 1) for v in value]
        if value is None or isinstance(value, (str, int, float)):
            return value
        return str(value)  # dates, timestamps, binary: pydantic reports them where a type is wrong

    return copy(data, 0)


_ADAPTER = None


def _adapter():
    global _ADAPTER
    if _ADAPTER is None:
        import pydantic

        _ADAPTER = pydantic.TypeAdapter(Config)
    return _ADAPTER


def _build(cls, data: dict[str, Any]):
    """Construct a (nested) config dataclass from already-validated plain data."""
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            value = data[f.name]
            kwargs[f.name] = _build(f.type, value) if dataclasses.is_dataclass(f.type) else value
    return cls(**kwargs)


def _drop(data: dict[str, Any], loc: list[Any]) -> None:
    node = _get(data, loc[:-1])
    if isinstance(node, dict):
        node.pop(loc[-1], None)


def _keys(cls, prefix: str) -> list[str]:
    keys = []
    for f in dataclasses.fields(cls):
        name = f"{prefix}{f.name}"
        if dataclasses.is_dataclass(f.type):
            keys.extend(_keys(f.type, name + "."))
        elif f.name != "version":
            keys.append(name)
    return keys


def _is_text_field(key: str) -> bool:
    cls: Any = Config
    for part in key.split("."):
        tp = {f.name: f.type for f in dataclasses.fields(cls)}[part]
        cls = tp
    base = getattr(cls, "__origin__", cls)  # unwrap Annotated
    return str in getattr(base, "__args__", (base,))


def _require_key(key: str) -> None:
    if key not in config_keys():
        raise ConfigError(f"unknown config key {key!r}", hint="known keys: " + ", ".join(config_keys()))
