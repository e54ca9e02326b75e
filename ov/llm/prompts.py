"""Prompt templates: YAML files shipped with ov, overridable by the user.

A template is a YAML mapping::

    metadata: {id: semantic.overview, version: 1, description: ...}
    variables: [dir_name, entries, ...]     # or [{name: dir_name, description: ...}, ...]
    system: ...                             # optional system message
    template: ...                           # the user message, with $name placeholders
    llm: {temperature: 0.0}                 # optional

Placeholders use :class:`string.Template` syntax (``$name``, ``${name}``, ``$$``
for a literal dollar), so no template engine is needed and a template can never
run code. A file with the same name in the user's prompts directory
(``$OV_HOME/prompts``) replaces the built-in one wholesale.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ov.errors import ConfigError

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

# Each prompt ov fills: the variables its caller provides, and those a template of that name must
# use. An override in $OV_HOME/prompts/ is held to the same; `ov doctor` checks every one loads.
CONTRACTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "memory_extraction": (("user", "today", "memory_types", "existing_memories", "transcript"), ("memory_types", "transcript")),
    "overview": (("dir_name", "dir_uri", "description_note", "coverage", "entries", "abstract_chars", "max_chars"), ("dir_name", "entries")),
    "intent_analysis": (("query", "recent_messages", "session_summary", "type_constraint"), ("query",)),
}


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt ov sends a model: its text, variables and sampling settings."""

    id: str
    version: str
    description: str
    variables: tuple[str, ...]
    template: str
    system: str | None
    temperature: float | None
    origin: str  # the file it came from, for messages

    def render(self, values: Mapping[str, Any]) -> list[dict[str, str]]:
        """Chat messages with every placeholder filled from ``values``."""
        data = {name: str(values.get(name, "")) for name in self.variables}
        messages = []
        if self.system is not None:
            messages.append({"role": "system", "content": string.Template(self.system).substitute(data)})
        messages.append({"role": "user", "content": string.Template(self.template).substitute(data)})
        return messages


def builtin_dir() -> Path:
    return Path(__file__).resolve().parent / "templates"


def load_prompt(
    name: str,
    *,
    prompts_dir: Path | None = None,
    provides: Iterable[str],
    requires: Iterable[str] = (),
) -> PromptTemplate:
    """The template ``name``: the user's ``prompts_dir/name.yaml`` if present, else the built-in one.

    ``provides`` are the variables the caller can fill; ``requires`` those the
    template must use. A template that breaks either rule, or is malformed, is a
    :class:`ConfigError` naming the file.
    """
    if not _NAME_RE.match(name):
        raise ValueError(f"bad prompt name {name!r}")
    path = builtin_dir() / f"{name}.yaml"
    if prompts_dir is not None:
        override = Path(prompts_dir) / f"{name}.yaml"
        if override.is_file():
            path = override
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read prompt template {path}: {exc.strerror or exc}") from None
    return parse_prompt(raw, str(path), provides=provides, requires=requires)


def parse_prompt(raw: bytes | str, origin: str, *, provides: Iterable[str], requires: Iterable[str] = ()) -> PromptTemplate:
    import yaml  # Deferred: only summaries with an LLM read templates.

    provides, requires = set(provides), set(requires)
    hint = f"fix or delete {origin} to use the built-in template"
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        data = yaml.safe_load(text)
    except UnicodeDecodeError:
        raise ConfigError(f"prompt template {origin} is not UTF-8 text", hint=hint) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise ConfigError(f"prompt template {origin} does not parse as YAML{where}", hint=hint) from None

    def fail(problem: str) -> ConfigError:
        return ConfigError(f"prompt template {origin}: {problem}", hint=hint)

    if not isinstance(data, dict):
        raise fail("must be a mapping with metadata, variables and template")
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        raise fail("missing 'metadata' mapping (id, version, description)")
    for key in ("id", "version", "description"):
        value = meta.get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int, float)) or not str(value).strip():
            raise fail(f"metadata.{key} is missing or empty")

    variables = _variables(data.get("variables"), fail)
    template = data.get("template")
    if not isinstance(template, str) or not template.strip():
        raise fail("'template' must be non-empty text")
    system = data.get("system")
    if system is not None and not isinstance(system, str):
        raise fail("'system' must be text")
    temperature = _temperature(data.get("llm"), fail)

    used: set[str] = set()
    for field_name, body in (("template", template), ("system", system)):
        if body is None:
            continue
        parsed = string.Template(body)
        if not parsed.is_valid():
            raise fail(f"'{field_name}' has a '$' that is not a placeholder (write $$ for a literal dollar sign)")
        used.update(parsed.get_identifiers())
    undeclared = sorted(used - set(variables))
    if undeclared:
        raise fail(f"uses undeclared variables: {', '.join('$' + v for v in undeclared)}")
    unknown = sorted(set(variables) - provides)
    if unknown:
        raise fail(f"declares variables ov does not provide: {', '.join(unknown)} (available: {', '.join(sorted(provides))})")
    missing = sorted(requires - used)
    if missing:
        raise fail(f"must use {', '.join('$' + v for v in missing)}")
    return PromptTemplate(
        id=str(meta["id"]),
        version=str(meta["version"]),
        description=str(meta["description"]).strip(),
        variables=tuple(variables),
        template=template,
        system=system,
        temperature=temperature,
        origin=origin,
    )


def _variables(value: Any, fail) -> list[str]:
    if not isinstance(value, list):
        raise fail("'variables' must be a list of names")
    names: list[str] = []
    for item in value:
        name = item.get("name") if isinstance(item, dict) else item
        if not isinstance(name, str) or not name.isidentifier():
            raise fail(f"variable {item!r} is not a name")
        if name not in names:
            names.append(name)
    return names


def _temperature(value: Any, fail) -> float | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise fail("'llm' must be a mapping (e.g. {temperature: 0.0})")
    temperature = value.get("temperature")
    if temperature is None:
        return None
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
        raise fail("llm.temperature must be a number from 0 to 2")
    return float(temperature)
