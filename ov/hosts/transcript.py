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

from ov.retrieval.fence import FENCE_TAG, HOST_WRAPPERS

_WRAPPED = "|".join(re.escape(tag) for tag in (FENCE_TAG, *HOST_WRAPPERS))
_INJECTED = re.compile(
    rf"<(?P<tag>{_WRAPPED})\b[^>]*>.*?</(?P=tag)>\s*"
    # Gemini CLI escapes the brackets of what a hook injects when it echoes it back.
    rf"|&lt;{re.escape(FENCE_TAG)}\b.*?&lt;/{re.escape(FENCE_TAG)}&gt;\s*",
    re.DOTALL,
)
# A transcript larger than this is read from its end: a capture must stay cheap.
MAX_READ_BYTES = 8 * 1024 * 1024


def jsonl_from(path: Path, start: int) -> tuple[list[tuple[str, Any]], int]:
    """``(raw line, parsed value)`` of each complete line from byte ``start``, and the offset after them.

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
    for raw in data[:end].split(b"\n")[:-1]:
        text = raw.decode("utf-8", "replace").strip()
        if text:
            try:
                lines.append((text, json.loads(text)))
            except (ValueError, RecursionError):  # damage, or nesting deeper than the parser recurses
                pass
    return lines, start + end


def _past_line(f) -> int | None:
    """The offset just past the end of the line ``f`` is inside, None when it has no end yet."""
    while chunk := f.read(1024 * 1024):
        newline = chunk.find(b"\n")
        if newline >= 0:
            return f.tell() - len(chunk) + newline + 1
    return None


# Digests of lines that came once that :class:`LineCounts` keeps (~20 bytes each in a capture state).
ONCE_KEPT = 1024


class LineCounts:
    """How often each line digest came, for :func:`line_id`, in a form whose size does not grow
    with the transcript (a map of every line's digest cost a capture state ~23 bytes a line).

    Every digest that came twice or more is kept with its count: few, and the ones that come again
    ("continue", "yes"). Of the digests that came once, only the last :data:`ONCE_KEPT`: a line
    identical to one that came once more lines back than that is taken for it again (its id is
    that one's, so the session keeps one of the two). Lines that carry their own time (Codex's)
    never come twice; Cursor's, which carry none, could only meet this past that many lines.
    The count of a line depends only on the lines before it, so a transcript read again from its
    start numbers every line as the captures that read it piece by piece did.

    ``last`` is the digest counted last, and ``mark`` what its host noted of it (a JSON object:
    Gemini keeps its event's time and its transcript's size), for a host that may send the same
    line twice (:func:`line_id`'s ``again``).
    """

    def __init__(self, repeated: dict[str, int] | None = None, once: list[str] | None = None, last: str | None = None, mark: dict | None = None):
        self.repeated = dict(repeated or {})
        self.once = dict.fromkeys(once or [])  # oldest first
        self.last = last
        self.mark = mark

    def count(self, digest: str, *, again: bool = False) -> int:
        """How many times ``digest`` has come, this time included. ``again``: this is the last line
        counted sent a second time, if it is the same, and not a new one."""
        if again and digest == self.last:
            return self.repeated.get(digest, 1)
        self.last = digest
        if digest in self.repeated:
            self.repeated[digest] += 1
            return self.repeated[digest]
        if digest in self.once:
            del self.once[digest]
            self.repeated[digest] = 2
            return 2
        self.once[digest] = None
        if len(self.once) > ONCE_KEPT:
            del self.once[next(iter(self.once))]
        return 1

    def to_state(self) -> dict:
        return {"repeated": self.repeated, "once": list(self.once), "last": self.last, "mark": self.mark}

    @classmethod
    def from_state(cls, state: object) -> LineCounts:
        """The counts :meth:`to_state` wrote; anything else (damage, or no counts yet) counts from nothing."""
        if not isinstance(state, dict):
            return cls()
        repeated = state.get("repeated")
        once = state.get("once")
        last, mark = state.get("last"), state.get("mark")
        return cls(
            {d: n for d, n in repeated.items() if _is_count(n) and n >= 2} if isinstance(repeated, dict) else None,
            [d for d in once if isinstance(d, str)][-ONCE_KEPT:] if isinstance(once, list) else None,
            last if isinstance(last, str) else None,
            mark if isinstance(mark, dict) else None,
        )

    @classmethod
    def from_map(cls, seen: object) -> LineCounts:
        """The counts of an older ov's state: every digest with its count (which came last is not known)."""
        if not isinstance(seen, dict):
            return cls()
        counts = {d: n for d, n in seen.items() if _is_count(n) and n >= 1}
        return cls({d: n for d, n in counts.items() if n >= 2}, [d for d, n in counts.items() if n == 1][-ONCE_KEPT:])


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def line_id(prefix: str, raw: str, seen: LineCounts, *, again: bool = False) -> str:
    """A stable id for a transcript line without one of its own: a digest of its content and,
    from the second on, which of the identical lines it is ("continue" twice is two messages).
    ``seen`` counts the digests of the lines read before this one, and is updated. ``again``: the
    host may be sending the last line a second time (:meth:`LineCounts.count`).

    Not its offset: a host that rewrites its file (Codex adding a field to the first line) moves
    every line after, and a capture that then reads it from the start stored the whole
    conversation again under new ids."""
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    count = seen.count(digest, again=again)
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
