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
bytes of the modules that decide what it loads as (see
:func:`ov.config.loading._schema_digest`). Commands read that cache; pydantic
runs only when the file or the schema changed.

* :mod:`ov.config.schema`: the sections, their fields and defaults, and the dotted keys.
* :mod:`ov.config.checks`: what a value must be beyond its type (an id, a variable's name, a URL
  without credentials, a bounded number).
* :mod:`ov.config.loading`: reading, validating and caching a file, and what was left out of it.
* :mod:`ov.config.editing`: ``ov config set`` and ``unset``.
"""

from ov.config.loading import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_DEPTH,
    MAX_CONFIG_NODES,
    InvalidValue,
    LoadedConfig,
    load_config,
    validate_config_text,
)
from ov.config.schema import (
    CONFIG_VERSION,
    Config,
    EmbeddingConfig,
    HooksConfig,
    IdentityConfig,
    IngestConfig,
    LLMConfig,
    OutputConfig,
    RetrievalConfig,
    StoreConfig,
    config_keys,
    get_value,
)

__all__ = [
    "CONFIG_VERSION",
    "MAX_CONFIG_BYTES",
    "MAX_CONFIG_DEPTH",
    "MAX_CONFIG_NODES",
    "Config",
    "EmbeddingConfig",
    "HooksConfig",
    "IdentityConfig",
    "IngestConfig",
    "InvalidValue",
    "LLMConfig",
    "LoadedConfig",
    "OutputConfig",
    "RetrievalConfig",
    "StoreConfig",
    "config_keys",
    "get_value",
    "load_config",
    "set_value",
    "unset_value",
    "validate_config_text",
]


def __getattr__(name: str):
    # Writing the file is for `ov config` alone: a hook or a read loads no more than it did.
    if name in ("set_value", "unset_value"):
        from ov.config import editing

        return getattr(editing, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
