"""The memory file format: visible Markdown, then a MEMORY_FIELDS trailer.

::

    - Prefers tabs for indentation

    <!-- MEMORY_FIELDS
    {
      "created_at": "2026-04-21T10:00:00Z",
      "memory_type": "preferences",
      ...
    }
    -->

The trailer is an HTML comment so Markdown viewers hide it, and holds the
schema fields except ``content`` plus what ov maintains: ``memory_type``,
``version`` (1 on creation, +1 per write), ``created_at``, ``updated_at`` and
``sources`` (the archive URIs the memory came from). Keys are sorted so the
same memory always renders to the same bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ov.errors import InvalidInput, OvError
from ov.files import clean_generated_text
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema, as_utc

# How to make a memory file ov cannot decode readable again: what every report of one says.
NOT_TEXT_FIX = "save it as UTF-8 (from Latin-1: `iconv -f latin1 -t utf-8 FILE > NEW && mv NEW FILE`), then `ov snapshot commit -m MESSAGE`"


class MemoryNotText(OvError):
    """A memory file is not UTF-8 text (an editor saved a hand edit in Latin-1, say): ov can
    neither merge a memory into it nor show it, and says which file and how to fix it."""

    code = "memory_not_text"
    hint = NOT_TEXT_FIX


def decode_memory(data: bytes, uri: object) -> str:
    """``data`` of the memory file ``uri`` as text, or :class:`MemoryNotText` naming it."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MemoryNotText(
            f"{uri} is not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x}): ov cannot merge memories into it"
        ) from None


TRAILER_OPEN = "<!-- MEMORY_FIELDS"
# A line of what no longer holds ("No longer prefers tabs", "Is no longer a manager", "Editor: no
# longer Vim"), as a correction leaves the line it ended: history, kept for the record and for search.
# Not a limit that holds: "No longer than 50 lines per function", "Subject lines: no longer than 72 characters".
_HISTORY_RE = re.compile(r"(?i)^\s*(?:[-*+]\s+)?(?:no\s+longer|is\s+no\s+longer|are\s+no\s+longer|[^:\n]{1,40}:\s+no\s+longer)\s+(?!than\b)")


def is_history(line: str) -> bool:
    """Whether a memory's ``line`` only says what no longer holds (see :data:`_HISTORY_RE`)."""
    return _HISTORY_RE.match(line) is not None


def only_history(content: str) -> bool:
    """Whether every item of a memory's ``content`` (its trailer apart) says what no longer holds:
    a memory of history, no guidance for an agent (a heading alone says nothing)."""
    items = [line for line in content.split(TRAILER_OPEN, 1)[0].splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return bool(items) and all(is_history(line) for line in items)
TRAILER_CLOSE = "-->"

# The last line that opens a trailer; earlier mentions in the content are just text.
_OPEN_RE = re.compile(r"(?:^|\n)" + re.escape(TRAILER_OPEN) + r"[ \t]*\r?\n")
# The trailer ends at its first line of "-->" (a value never holds one: render_memory escapes it).
_CLOSE_RE = re.compile(r"\r?\n" + re.escape(TRAILER_CLOSE) + r"[ \t]*(?:\r?\n|\Z)")


def format_time(when: datetime) -> str:
    """ISO 8601 in UTC to the second, with a ``Z``: ``2026-04-21T10:00:00Z``."""
    return as_utc(when).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_meta(
    schema: MemorySchema,
    fields: Mapping[str, Any],
    *,
    version: int,
    created_at: datetime | str,
    updated_at: datetime | str,
    sources: Iterable[str] = (),
) -> dict[str, Any]:
    """The trailer of a memory: its non-content fields and ov's bookkeeping."""
    meta: dict[str, Any] = {
        name: str(fields[name]) for name in schema.field_names if name != CONTENT_FIELD and fields.get(name) is not None
    }
    meta.update(
        memory_type=schema.memory_type,
        version=version,
        created_at=created_at if isinstance(created_at, str) else format_time(created_at),
        updated_at=updated_at if isinstance(updated_at, str) else format_time(updated_at),
        sources=list(dict.fromkeys(sources)),
    )
    return meta


def render_memory(content: str, meta: Mapping[str, Any]) -> str:
    """The file text for ``content`` and its trailer ``meta``; the inverse of :func:`parse_memory`."""
    payload = json.dumps(dict(meta), indent=2, sort_keys=True, ensure_ascii=False)
    # "-->" inside a value would end the comment early; JSON lets us spell ">" as \u003e.
    payload = payload.replace(TRAILER_CLOSE, "--\\u003e")
    body = clean_generated_text(content).strip()
    return f"{body}\n\n{TRAILER_OPEN}\n{payload}\n{TRAILER_CLOSE}\n"


def parse_memory(text: str) -> tuple[str, dict[str, Any]]:
    """(visible content, trailer fields). A file without a trailer is all content. Text after the
    trailer is content too: a line added by hand at the end of the file (``echo ... >> file``)
    belongs to the memory, and the next write puts it above the trailer."""
    text = _unmarked(text)
    opening = None
    for opening in _OPEN_RE.finditer(text):
        pass
    if opening is None:
        return text.strip(), {}
    rest = text[opening.end() :]
    closing = _CLOSE_RE.search(rest)
    if closing is None:
        raise InvalidInput("the MEMORY_FIELDS trailer is not closed by a line of '-->'")
    try:
        meta = json.loads(rest[: closing.start()])
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"the MEMORY_FIELDS trailer is not valid JSON: {exc.msg} (line {exc.lineno})") from None
    if not isinstance(meta, dict):
        raise InvalidInput("the MEMORY_FIELDS trailer must be a JSON object")
    _check_meta(meta)
    before, after = text[: opening.start()].strip(), rest[closing.end() :].strip()
    return (f"{before}\n{after}" if before and after else before or after), meta


def _unmarked(text: str) -> str:
    """``text`` without the byte order mark an editor saving "UTF-8 with BOM" (Notepad, Visual Studio)
    puts first: glued to the first line, it made that line match no key ("U+FEFF- Name: Jürgen"), so
    the next "my name is" added a second Name line; the next write leaves it out."""
    return text.removeprefix("\ufeff")


def _check_meta(meta: dict[str, Any]) -> None:
    version = meta.get("version")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int) or version < 1):
        raise InvalidInput(f"MEMORY_FIELDS 'version' must be a positive integer, not {version!r}")
    sources = meta.get("sources")
    if sources is not None and not (isinstance(sources, list) and all(isinstance(s, str) for s in sources)):
        raise InvalidInput("MEMORY_FIELDS 'sources' must be a list of URIs")
    for key in ("memory_type", "created_at", "updated_at"):
        if key in meta and not isinstance(meta[key], str):
            raise InvalidInput(f"MEMORY_FIELDS {key!r} must be text")


def repaired_memory(text: str) -> tuple[str, dict[str, Any]]:
    """(visible content, trailer fields) of a stored memory whose trailer a hand broke: the text
    above the last trailer, with no fields, so that the next write keeps what the file says and
    writes a new trailer. A session's memories are planned against the file as it is: refusing
    it would lose every memory of the session with it (the archived messages are not read again)."""
    text = _unmarked(text)
    try:
        return parse_memory(text)
    except InvalidInput:
        opening = None
        for opening in _OPEN_RE.finditer(text):
            pass
        if opening is None:
            return text.strip(), {}
        before, rest = text[: opening.start()].strip(), text[opening.end() :].lstrip()
        try:  # the fields still read (only their closing line went): what follows them is content
            _, end = json.JSONDecoder().raw_decode(rest)
            after = rest[end:].strip().removeprefix("-->").strip()
        except ValueError:
            after = ""  # no telling where the broken fields end: they and what follows go
        return "\n".join(part for part in (before, after) if part), {}

