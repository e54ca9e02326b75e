"""Reading host transcripts: JSON lines from an offset, stable ids, and what to leave out.

Every host that keeps a transcript writes JSON lines and only appends, so a capture reads from
the byte offset where the last one stopped, and only up to the last complete line (the host
may be writing the next). A line with no id of its own gets one from its content and how many
identical lines came before it, so reading the same line twice gives the same id and the session
drops the repeat, wherever the line now sits in the file.

What ov injected (its ``<ov-context>`` block) and what hosts wrap around a prompt
(``<hook_context>``, ``<system-reminder>``) is cut out of captured text: memories must come from
what the user and the agent said, never from recall fed back into the session.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The tag of the block ov injects (ov.hosts.recall writes it).
FENCE_TAG = "ov-context"
_INJECTED = re.compile(
    r"<(?P<tag>ov-context|hook_context|system-reminder)\b[^>]*>.*?</(?P=tag)>\s*"
    # Gemini CLI escapes the brackets of what a hook injects when it echoes it back.
    r"|&lt;ov-context\b.*?&lt;/ov-context&gt;\s*",
    re.DOTALL,
)
# A transcript larger than this is read from its end: a capture must stay cheap.
MAX_READ_BYTES = 8 * 1024 * 1024


def jsonl_from(path: Path, start: int) -> tuple[list[tuple[int, str, Any]], int]:
    """``(offset, raw line, parsed value)`` of each complete line from byte ``start``, and the offset after them.

    Lines that are not JSON are skipped (a host's partial write is never complete, so this is
    damage, not a race). A file shorter than ``start`` was replaced: it is read from the start.
    A line longer than :data:`MAX_READ_BYTES` (a pasted image as base64) is passed over, so that
    the lines after it are read.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return [], start
    if size < start:
        start = 0
    with path.open("rb") as f:
        while True:
            f.seek(start)
            data = f.read(max(0, min(size - start, MAX_READ_BYTES)))  # past `size`: the file grew since
            end = data.rfind(b"\n") + 1
            if end or len(data) < MAX_READ_BYTES:
                break
            after = _past_line(f)
            if after is None:
                return [], start  # still being written
            start = after
    if end == 0:
        return [], start
    lines = []
    offset = start
    for raw in data[:end].split(b"\n")[:-1]:
        text = raw.decode("utf-8", "replace").strip()
        if text:
            try:
                lines.append((offset, text, json.loads(text)))
            except (ValueError, RecursionError):  # damage, or nesting deeper than the parser recurses
                pass
        offset += len(raw) + 1
    return lines, start + end


def _past_line(f) -> int | None:
    """The offset just past the end of the line ``f`` is inside, None when it has no end yet."""
    while chunk := f.read(1024 * 1024):
        newline = chunk.find(b"\n")
        if newline >= 0:
            return f.tell() - len(chunk) + newline + 1
    return None


def line_id(prefix: str, raw: str, seen: dict[str, int]) -> str:
    """A stable id for a transcript line without one of its own: a digest of its content and,
    from the second on, which of the identical lines it is ("continue" twice is two messages).
    ``seen`` counts the digests of the lines read before this one, and is updated.

    Not its offset: a host that rewrites its file (Codex adding a field to the first line) moves
    every line after, and a capture that then reads it from the start stored the whole
    conversation again under new ids."""
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    seen[digest] = count = seen.get(digest, 0) + 1
    return f"{prefix}-{digest}" if count == 1 else f"{prefix}-{digest}-{count}"


def strip_injected(text: str) -> str:
    """``text`` without the blocks ov and the hosts injected."""
    if "<" not in text and "&lt;" not in text:
        return text
    return _INJECTED.sub("", text).strip()


# How far past a cut a secret may reach: a private key block of 4,096 bits is ~3,300 characters.
_SECRET_REACH = 8192


def bound(value: Any, limit: int) -> Any:
    """``value`` with every string longer than ``limit`` cut, saying how much was left out.

    Tool inputs (a whole file being written) and outputs (a build log) would otherwise fill the
    session with text no memory is made of. What is kept is redacted before the cut: a secret the
    cut splits no longer looks like one (a token's first 29 characters, a key block without its
    end line), and would be stored as it is by the redaction that follows.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        from ov.redact.engine import redact  # Deferred: only a capture that cuts needs it here.

        end = limit + _SECRET_REACH
        head, _count = redact(value[:end])
        for _ in range(4):
            # What redaction took out brought the window's end (which may split a secret) nearer
            # the cut: the window grows until the kept text is that far from its end again.
            if len(head) >= limit + _SECRET_REACH or end >= len(value):
                break
            end += limit + _SECRET_REACH - len(head)
            head, _count = redact(value[:end])
        else:
            head = head[: max(0, len(head) - _SECRET_REACH)]
        return f"{head[:limit]}… [{len(value) - limit} more characters not captured]"
    if isinstance(value, list):
        return [bound(v, limit) for v in value]
    if isinstance(value, dict):
        return {k: bound(v, limit) for k, v in value.items()}
    return value


def clean_blocks(blocks: list[Any], limit: int) -> list[Any]:
    """Content blocks with injected text cut out, empty text blocks dropped and tool payloads bounded."""
    out = []
    for block in blocks:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text"):
            text = strip_injected(str(block.get("text") or ""))
            if text:
                out.append({**block, "text": text})
        elif kind == "tool_use":
            out.append({**block, "input": bound(block.get("input"), limit)})
        elif kind == "tool_result":
            out.append({**block, "content": bound(block.get("content"), limit)})
        elif kind in ("thinking", "redacted_thinking"):
            continue  # the model's private reasoning: not what was said or done
        else:
            out.append(block)
    return out


def iter_text(blocks: Any) -> Iterator[str]:
    if isinstance(blocks, str):
        yield blocks
    elif isinstance(blocks, list):
        for block in blocks:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                yield block["text"]
