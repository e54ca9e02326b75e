"""The model's answer to a memory extraction: read, held to what the rules' memories are held
to, and turned into candidates.

A model's memory is given to every later session of every agent, as the offline rules' are, and
its answer is not bounded by what was asked (``llm.max_output_tokens`` is a request, and a
server may not keep it). So, before the planner sees one:

- the answer is the JSON shape asked for (:func:`parse_answer`), each memory fits its schema;
- at most :data:`MAX_MEMORIES` memories are kept, each of at most :data:`MAX_LINES` lines: a
  runaway answer would otherwise be merged for minutes and stored for good;
- no secret: redacted, and a line stating one left out;
- no HTML comment: a Markdown viewer hides it and every agent reads it (a "MEMORY_FIELDS"
  trailer of the model's among them);
- a field that names the memory's file names no path ("/", "\\", ".."), and a preference's
  ``subject`` is the session's user: one filed under another subject ("assistant") would be
  missed by every later correction;
- a line of a profile or a preference worded as ov words them replaces and amends what the
  rules' own line would (:func:`ov.sessions.memory.candidate.worded`): "- Editor: Emacs"
  replaces "Editor: vim" instead of standing beside it.

Each memory dropped, cut or changed is named in a warning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ov.errors import InvalidInput
from ov.llm.client import load_json_answer
from ov.sessions.memory.candidate import Candidate, worded
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema

MAX_MEMORIES = 30
MAX_LINES = 40
# The field naming whose preference it is; the session's user, whatever the model says.
SUBJECT_FIELD = "subject"
# A comment, or one left open to the end: "<!-- MEMORY_FIELDS {...} -->".
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)


def parse_answer(text: str) -> list[dict[str, Any]]:
    """The ``memories`` list of the model's answer; ValueError (with what is wrong) when it is not that shape."""
    from pydantic import BaseModel, ConfigDict, ValidationError  # Deferred: only commits with an LLM validate answers.

    class Answer(BaseModel):
        model_config = ConfigDict(extra="ignore")
        # Items are checked one by one later, so one bad memory does not cost the others.
        memories: list[dict[str, Any]]

    data = load_json_answer(text)
    try:
        return Answer.model_validate(data).memories
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors()[:5])
        raise ValueError(f'the answer is not an object {{"memories": [...]}} of objects ({problems})') from None


def validate_candidates(
    items: list[dict[str, Any]],
    schemas: Mapping[str, MemorySchema],
    *,
    when: datetime,
    known_ids: list[str],
    user: str,
    peer: str | None = None,
) -> tuple[list[Candidate], list[str]]:
    """The items that are valid memories, as candidates, and a warning for each one dropped, cut
    or changed (see the module's notes); ``user`` is the subject of the preferences."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    class Item(BaseModel):
        model_config = ConfigDict(extra="ignore")
        memory_type: str
        fields: dict[str, Any]
        source_message_ids: list[str | int] = []
        about: str = "user"

    candidates: list[Candidate] = []
    warnings: list[str] = []
    known = set(known_ids)
    if len(items) > MAX_MEMORIES:
        warnings.append(f"the answer proposed {len(items)} memories: only the first {MAX_MEMORIES} are kept")
        items = items[:MAX_MEMORIES]
    for number, raw in enumerate(items, start=1):
        try:
            item = Item.model_validate(raw)
        except ValidationError as exc:
            warnings.append(f"memory #{number} dropped: {exc.errors()[0]['msg']} at {'.'.join(map(str, exc.errors()[0]['loc']))}")
            continue
        item.fields, secret = _without_secrets(item.fields)
        item.fields, notes = _held(item.fields)
        problem = "it states a secret" if secret else _check_item(item.memory_type, item.fields, schemas, when)
        if problem:
            warnings.append(f"memory #{number} ({item.memory_type}) dropped: {problem}")
            continue
        schema = schemas[item.memory_type]
        fields = {name: str(item.fields[name]).strip() for name in schema.field_names}
        if SUBJECT_FIELD in fields:
            if fields[SUBJECT_FIELD].lower() != user.lower():
                notes.append(f"filed under the user {user!r}, not {fields[SUBJECT_FIELD]!r}")
            fields[SUBJECT_FIELD] = user
        warnings.extend(f"memory #{number} ({item.memory_type}): {note}" for note in notes)
        # Ids the model made up would point provenance at messages that do not exist.
        sources = [s for s in dict.fromkeys(str(i) for i in item.source_message_ids) if s in known]
        about = "peer" if item.about == "peer" and peer else "user"
        if item.about == "peer" and not peer:
            warnings.append(f"memory #{number} is about a peer, but the session has none: filed as the user's")
        candidates.extend(worded(Candidate(item.memory_type, fields, sources, about)))
    return candidates, warnings


def _held(fields: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """``fields`` without HTML comments, and the content at most :data:`MAX_LINES` lines; and
    what was taken out, said."""
    held, notes = {}, []
    for name, value in fields.items():
        if isinstance(value, str) and _COMMENT_RE.search(value):
            value = _COMMENT_RE.sub("", value)
            notes.append(f"an HTML comment was taken out of its {name}: every agent would read what a viewer hides")
        if name == CONTENT_FIELD and isinstance(value, str) and len(lines := value.strip().splitlines()) > MAX_LINES:
            value = "\n".join(lines[:MAX_LINES])
            notes.append(f"only its first {MAX_LINES} of {len(lines)} lines are kept")
        held[name] = value
    return held, notes


def _without_secrets(fields: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``fields`` redacted (:mod:`ov.redact`) and without the content lines that state a secret,
    as the offline rules leave out such a statement; and whether what is left still holds one
    (a name, or content that was nothing but secrets). A model may store what the user said
    verbatim, and a memory is given to every later session of every agent."""
    from ov.redact.engine import redact
    from ov.sessions.memory.secrets import states_a_secret

    cleaned: dict[str, Any] = {}
    for name, value in fields.items():
        if not isinstance(value, str):
            cleaned[name] = value
            continue
        value = redact(value)[0]
        if name == CONTENT_FIELD:
            kept = [line for line in value.splitlines() if not states_a_secret(line)]
            if value.strip() and not "\n".join(kept).strip():
                return fields, True
            value = "\n".join(kept)
        elif states_a_secret(value.replace("_", " ")):  # a file name's words: "wifi_password_is_bluebird"
            return fields, True
        cleaned[name] = value
    return cleaned, False


def _check_item(memory_type: str, fields: dict[str, Any], schemas: Mapping[str, MemorySchema], when: datetime) -> str | None:
    schema = schemas.get(memory_type)
    if schema is None:
        return f"unknown memory type (known: {', '.join(sorted(schemas))})"
    missing = [name for name in schema.field_names if name not in fields]
    if missing:
        return f"missing field(s) {', '.join(missing)}"
    not_text = [name for name in schema.field_names if not isinstance(fields[name], str)]
    if not_text:
        return f"field(s) {', '.join(not_text)} must be text"
    if not fields[CONTENT_FIELD].strip():
        return "empty content"
    try:  # (a "/" in a name is kept: path_for slugs each field into one segment, "TCP/IP stack" tcp_ip_stack.md)
        schema.path_for(fields, when)
        schema.check_content(fields[CONTENT_FIELD].strip())
    except InvalidInput as exc:
        return exc.message
    return None
