"""Cursor: its hook input, its answer, its transcript (``~/.cursor/projects/<ws>/agent-transcripts/...``).

There is no offline Cursor agent, so this follows Cursor's documented hook JSON (tested with
it as golden files): every event carries ``conversation_id`` (sessionStart also as
``session_id``), ``workspace_roots`` and ``transcript_path`` (null when transcripts are off).
Answers: ``{"additional_context": ...}`` at sessionStart; ``{"continue": true}`` before a prompt
(with ``additional_context``, which builds that read it use and others ignore); ``{}`` otherwise.

Transcript lines are ``{"role", "message": {"content": [...]}}`` with no ids, so each line's id
comes from its content and how many identical lines came before it.
"""

from __future__ import annotations

from pathlib import Path

from ov.hosts.host import HookInput, HookInputError, Host, _json
from ov.hosts.transcript import LineCounts, clean_blocks, jsonl_from, line_id


class Cursor(Host):
    name = "cursor"
    label = "Cursor"
    prefix = "cu"
    reads_transcript = True

    def native_event(self, event: str) -> str:
        return {
            "session-start": "sessionStart",
            "prompt-submit": "beforeSubmitPrompt",
            "stop": "stop",
            "pre-compact": "preCompact",
            "session-end": "sessionEnd",
        }[event]

    def parse(self, event: str, payload) -> HookInput:
        if not isinstance(payload, dict):
            raise HookInputError(f"Cursor sent {type(payload).__name__}, not a JSON object")
        session = payload.get("conversation_id") or payload.get("session_id")
        roots = payload.get("workspace_roots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) else payload.get("cwd")
        return super().parse(event, {**payload, "session_id": session, "cwd": cwd})

    def answer(self, event: str, context: str | None) -> str:
        if event == "session-start":
            return _json({"additional_context": context} if context else {})
        if event == "prompt-submit":
            return _json({"continue": True, **({"additional_context": context} if context else {})})
        return "{}"

    def transcript_messages(self, path: Path, start: int, limit: int, seen: LineCounts | None = None) -> tuple[list[dict], int]:
        lines, end = jsonl_from(path, start)
        seen = LineCounts() if seen is None else seen
        messages = []
        for raw, line in lines:
            if not isinstance(line, dict) or line.get("role") not in ("user", "assistant"):
                continue
            body = line.get("message")
            content = body.get("content") if isinstance(body, dict) else None
            if isinstance(content, str):
                content = [{"type": "text", "text": content}]
            blocks = clean_blocks(content if isinstance(content, list) else [], limit)
            if blocks:
                messages.append({"id": line_id(self.prefix, raw, seen), "role": line["role"], "content": blocks})
        return messages, end

    def fallback_messages(self, hook: HookInput, limit: int, seen: LineCounts | None = None) -> list[dict]:
        return []  # with transcripts off Cursor sends no text at turn end


HOST = Cursor()
