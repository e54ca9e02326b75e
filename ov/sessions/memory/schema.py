"""Memory type schemas: where each type of memory lives and how its fields merge.

One YAML file per type ships in ``schemas/``; a file with the same name in the
user's schema directory (``$OV_HOME/memory_schemas``) replaces it wholesale.
A schema is a mapping::

    memory_type: preferences
    description: ...
    filename_template: "preferences/{subject}/{topic}.md"   # relative to memories/
    operation_mode: upsert                                  # or add_only
    content_sections: [Situation, Approach, Reflect]        # optional
    fields:
      - {name: topic, type: string, description: ..., merge_op: immutable}

Placeholders are ``str.format`` names of fields, or ``yyyy``, ``mm``, ``dd``
and ``timestamp`` (``YYYYMMDDHHMMSS``) taken from the time of the write.
Validation is by hand rather than pydantic: the rules are few, and the
messages can name the file and the field the user has to fix.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ov.errors import ConfigError, InvalidInput
from ov.uri import is_valid_segment, sanitize_segment

OPERATION_MODES = ("upsert", "add_only")
MERGE_OPS = ("patch", "replace", "immutable")
FIELD_TYPES = ("string",)
CONTENT_FIELD = "content"
# Filled from the time of the write, never from a field.
DERIVED_PLACEHOLDERS = ("yyyy", "mm", "dd", "timestamp")
# Keys of the MEMORY_FIELDS trailer that ov maintains; a field may not shadow them.
RESERVED_FIELDS = ("memory_type", "version", "created_at", "updated_at", "sources")
SCHEMA_KEYS = ("memory_type", "description", "filename_template", "operation_mode", "fields", "content_sections")
FIELD_KEYS = ("name", "type", "description", "merge_op")
# The types one text is read as (`ov remember --type`, the MCP `type`). The others (experiences,
# trajectories, a type of the user's own schemas) are learnt from a session: its goal, the steps
# tried and what came of them, which no single text holds.
TEXT_TYPES = ("profile", "preferences", "entities", "events")

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class FieldSpec:
    """One field of a memory type, and how a new value merges with the old."""

    name: str
    type: str
    description: str
    merge_op: str


@dataclass(frozen=True)
class MemorySchema:
    """A memory type: where its files go, its fields and how it is updated."""

    memory_type: str
    description: str
    filename_template: str
    operation_mode: str
    fields: tuple[FieldSpec, ...]
    content_sections: tuple[str, ...] = ()
    origin: str = ""  # the file it came from, for messages

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)

    @property
    def placeholders(self) -> tuple[str, ...]:
        return _placeholders(self.filename_template)

    @property
    def add_only(self) -> bool:
        return self.operation_mode == "add_only"

    def field(self, name: str) -> FieldSpec | None:
        return next((f for f in self.fields if f.name == name), None)

    def path_for(self, fields: Mapping[str, Any], when: datetime) -> str:
        """The file's path relative to a memories root, e.g. ``preferences/alice/tabs.md``.

        Every field value becomes one safe, lowercase segment piece, so a value
        can never add a directory or climb out of the memories root.
        """
        stamp = as_utc(when)
        # The day an event is filed under is the user's (this machine's time zone), as "today" in
        # its text is; a timestamp only tells files apart, and stays UTC.
        local = stamp.astimezone()
        derived = {
            "yyyy": local.strftime("%Y"),
            "mm": local.strftime("%m"),
            "dd": local.strftime("%d"),
            "timestamp": stamp.strftime("%Y%m%d%H%M%S"),
        }
        values: dict[str, str] = {}
        for name in self.placeholders:
            if name in derived:
                values[name] = derived[name]
                continue
            raw = fields.get(name)
            if raw is None or not str(raw).strip():
                raise InvalidInput(
                    f"a {self.memory_type} memory needs the field {name!r} to name its file",
                    hint=f"its path is {self.filename_template}",
                )
            values[name] = sanitize_segment(str(raw).strip().lower())
        path = self.filename_template.format(**values)
        for segment in path.split("/"):
            if not is_valid_segment(segment):
                raise InvalidInput(f"{self.memory_type} path {path!r} has an invalid segment {segment!r}")
        return path

    def check_content(self, content: str) -> None:
        """Refuse content that lacks the ``## `` sections this type requires, in order."""
        if not self.content_sections:
            return
        found = [m.group(1).strip() for m in re.finditer(r"^##\s+(.+?)\s*#*\s*$", content, re.MULTILINE)]
        if tuple(found) != self.content_sections:
            wanted = ", ".join(f"## {s}" for s in self.content_sections)
            raise InvalidInput(
                f"a {self.memory_type} memory must have exactly the sections {wanted}",
                hint=f"it has: {', '.join('## ' + s for s in found) or 'no ## sections'}",
            )


def builtin_dir() -> Path:
    return Path(__file__).resolve().parent / "schemas"


def load_schemas(user_dir: Path | None = None) -> dict[str, MemorySchema]:
    """The built-in schemas, each replaced by ``user_dir/{type}.yaml`` when that file exists.

    A YAML file in ``user_dir`` that names no built-in type is refused rather
    than ignored: it is most likely a misspelt override that would otherwise
    silently have no effect.
    """
    schemas = {path.stem: _load_file(path) for path in sorted(builtin_dir().glob("*.yaml"))}
    if user_dir is None or not Path(user_dir).is_dir():
        return schemas
    for path in sorted(Path(user_dir).iterdir()):
        if path.suffix not in (".yaml", ".yml") or not path.is_file():
            continue
        if path.stem not in schemas:
            raise ConfigError(
                f"memory schema {path} does not name a memory type",
                hint=f"name the file after one of: {', '.join(sorted(schemas))}",
            )
        schemas[path.stem] = _load_file(path)
    return schemas


def _load_file(path: Path) -> MemorySchema:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read memory schema {path}: {exc.strerror or exc}") from None
    schema = parse_schema(raw, str(path))
    if schema.memory_type != path.stem:
        raise ConfigError(
            f"memory schema {path}: memory_type {schema.memory_type!r} does not match the file name",
            hint=f"set memory_type: {path.stem}",
        )
    return schema


def parse_schema(raw: bytes | str, origin: str) -> MemorySchema:
    """Validate one schema document; every problem is a ConfigError naming ``origin``."""
    import yaml  # Deferred: schemas are read only when memories are extracted.

    def fail(problem: str) -> ConfigError:
        return ConfigError(f"memory schema {origin}: {problem}", hint=f"fix or delete {origin}")

    try:
        # libyaml's parser when present: every commit loads all the schemas.
        data = yaml.load(raw.decode("utf-8") if isinstance(raw, bytes) else raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except UnicodeDecodeError:
        raise fail("is not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise fail("does not parse as YAML" + (f" at line {mark.line + 1}" if mark else "")) from None
    if not isinstance(data, dict):
        raise fail("must be a mapping with memory_type, description, filename_template, operation_mode and fields")
    unknown = sorted(str(k) for k in data if k not in SCHEMA_KEYS)
    if unknown:
        raise fail(f"unknown key(s) {', '.join(unknown)} (known: {', '.join(SCHEMA_KEYS)})")

    memory_type = _text(data, "memory_type", fail)
    if not _NAME_RE.match(memory_type):
        raise fail(f"memory_type {memory_type!r} must be lowercase letters, digits and '_'")
    description = _text(data, "description", fail)
    mode = _text(data, "operation_mode", fail)
    if mode not in OPERATION_MODES:
        raise fail(f"operation_mode {mode!r} must be one of {', '.join(OPERATION_MODES)}")
    fields = _fields(data.get("fields"), fail)
    template = _text(data, "filename_template", fail)
    _check_template(template, fields, mode, fail)
    sections = data.get("content_sections") or []
    if not isinstance(sections, list) or not all(isinstance(s, str) and s.strip() for s in sections):
        raise fail("content_sections must be a list of section titles")
    return MemorySchema(
        memory_type=memory_type,
        description=" ".join(description.split()),
        filename_template=template,
        operation_mode=mode,
        fields=fields,
        content_sections=tuple(s.strip() for s in sections),
        origin=origin,
    )


def _text(data: Mapping[str, Any], key: str, fail) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise fail(f"{key!r} must be non-empty text")
    return value.strip()


def _fields(value: Any, fail) -> tuple[FieldSpec, ...]:
    if not isinstance(value, list) or not value:
        raise fail("'fields' must be a non-empty list of {name, type, description, merge_op}")
    specs: list[FieldSpec] = []
    for i, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise fail(f"field #{i} must be a mapping")
        unknown = sorted(str(k) for k in item if k not in FIELD_KEYS)
        if unknown:
            raise fail(f"field #{i} has unknown key(s) {', '.join(unknown)} (known: {', '.join(FIELD_KEYS)})")
        name = item.get("name")
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise fail(f"field #{i} needs a 'name' of lowercase letters, digits and '_'")
        if name in RESERVED_FIELDS or name in DERIVED_PLACEHOLDERS:
            raise fail(f"field name {name!r} is reserved")
        if name in (s.name for s in specs):
            raise fail(f"field {name!r} is declared twice")
        kind = item.get("type", "string")
        if kind not in FIELD_TYPES:
            raise fail(f"field {name!r} has type {kind!r}; only {', '.join(FIELD_TYPES)} is supported")
        op = item.get("merge_op")
        if op not in MERGE_OPS:
            raise fail(f"field {name!r} has merge_op {op!r}; use one of {', '.join(MERGE_OPS)}")
        description = item.get("description", "")
        if not isinstance(description, str):
            raise fail(f"field {name!r}: description must be text")
        specs.append(FieldSpec(name, kind, " ".join(description.split()), op))
    if CONTENT_FIELD not in (s.name for s in specs):
        raise fail(f"needs a {CONTENT_FIELD!r} field (the visible Markdown of the memory)")
    return tuple(specs)


def _check_template(template: str, fields: tuple[FieldSpec, ...], mode: str, fail) -> None:
    if not template.endswith(".md") or template.startswith("/") or "\\" in template:
        raise fail(f"filename_template {template!r} must be a relative path ending in .md")
    try:
        names = _placeholders(template)
    except ValueError as exc:
        raise fail(f"filename_template {template!r}: {exc}") from None
    by_name = {f.name: f for f in fields}
    for name in names:
        if name in DERIVED_PLACEHOLDERS:
            continue
        spec = by_name.get(name)
        if spec is None:
            raise fail(f"filename_template uses {{{name}}}, which is not a field or one of {', '.join(DERIVED_PLACEHOLDERS)}")
        if name == CONTENT_FIELD:
            raise fail("filename_template cannot use {content}")
        # A field that names the file must not change, or an upsert would move the memory.
        if mode == "upsert" and spec.merge_op != "immutable":
            raise fail(f"field {name!r} names the file, so its merge_op must be immutable")
    sample = template.format(**{n: "x" for n in names})
    if any(not is_valid_segment(s) for s in sample.split("/")):
        raise fail(f"filename_template {template!r} has an empty or invalid path segment")


def _placeholders(template: str) -> tuple[str, ...]:
    names: list[str] = []
    for _literal, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not _NAME_RE.match(name) or spec or conversion:
            raise ValueError(f"placeholder {{{name}}} must be a plain field name (no index, format spec or conversion)")
        if name not in names:
            names.append(name)
    return tuple(names)


def as_utc(when: datetime) -> datetime:
    """``when`` in UTC; a naive datetime is taken to be UTC already."""
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
