"""What a session's hooks already injected, so that a prompt does not inject it again.

A session about one topic asks about it prompt after prompt ("run the tests again", "now the
other one"), and each prompt's search found the same files: the host keeps every injected block
in its context (Claude Code's transcript holds each ``additionalContext``), so the copies only
cost tokens and crowded the agent's context. An entry is its URI and the digest of the text shown
(:func:`key`): a file changed since, or shown at a fuller tier, is new again.

The memory of a session is one small JSON file in the account's state folder
(``hooks/given/<session>.json``), written atomically (a hook killed mid-write leaves the old
file), at most :data:`MAX_ENTRIES` entries. It is forgotten when the host's context loses what it
was given: a session start other than a resume (a new session, ``clear``, a compaction), a
``pre-compact`` (Claude Code's PreCompact, Codex's, Cursor's, OpenCode's ``session.compacted``;
not Gemini CLI's PreCompress, which fires on ordinary turns), and, where no compaction is seen,
per entry after ``hooks.prompt_repeat_after`` prompts (0 turns the memory off).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

MAX_ENTRIES = 400  # a few KB: read and written on every prompt
WHOLE = "*"  # a key's version mark for a file given whole (the session start's profile)


def key(uri: str, text: str, *, whole: bool = False) -> str:
    """An entry as given: its URI and a digest of the text shown (of the whole file, ``whole``)."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
    return f"{uri}#{WHOLE if whole else ''}{digest}"


def path(store, session: str) -> Path:
    from ov.hosts.capture import state_dir

    return state_dir(store) / "given" / f"{session}.json"


class Given:
    """A session's entries given, with the prompt each was given at."""

    def __init__(self, file: Path, prompt: int = 0, entries: dict[str, int] | None = None, repeat_after: int = 0) -> None:
        self.file, self.prompt, self.entries, self.repeat_after = file, prompt, dict(entries or {}), repeat_after

    @classmethod
    def load(cls, store, session: str, repeat_after: int) -> Given:
        """The session's memory (empty when there is none or it cannot be read: then all is new)."""
        file = path(store, session)
        try:
            data = json.loads(file.read_bytes())
            prompt, entries = int(data["prompt"]), {str(k): int(v) for k, v in dict(data["entries"]).items()}
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            prompt, entries = 0, {}
        return cls(file, prompt, entries, repeat_after)

    def held(self, entry: str) -> bool:
        """Whether ``entry`` (a :func:`key`) was given within the last ``repeat_after`` prompts."""
        at = self.entries.get(entry)
        return at is not None and self.prompt - at < self.repeat_after

    def whole(self, uri: str) -> list[str]:
        """The keys of ``uri`` given whole."""
        mark = f"{uri}#{WHOLE}"
        return [k for k in self.entries if k.startswith(mark)]

    def give(self, entries: list[str]) -> None:
        for entry in entries:
            self.entries[entry] = self.prompt

    def save(self) -> None:
        """Write the memory, forgetting what is past the bound and the oldest beyond MAX_ENTRIES."""
        from ov.files import atomic_write

        kept = {k: at for k, at in self.entries.items() if self.prompt - at < self.repeat_after}
        if len(kept) > MAX_ENTRIES:
            kept = dict(sorted(kept.items(), key=lambda item: item[1])[-MAX_ENTRIES:])
        self.file.parent.mkdir(parents=True, exist_ok=True)
        # Not flushed to disk: a power cut loses at most a repeat; the rename still keeps the file whole.
        atomic_write(self.file, json.dumps({"prompt": self.prompt, "entries": kept}, separators=(",", ":")).encode(), durable=False)


def forget(store, session: str) -> bool:
    """Drop the session's memory (its host's context lost what it was given); whether there was one."""
    try:
        os.unlink(path(store, session))
        return True
    except FileNotFoundError:
        return False
