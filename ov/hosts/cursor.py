"""Cursor: its hook input, its answer, its transcript (``~/.cursor/projects/<ws>/agent-transcripts/...``).

There is no offline Cursor agent, so this follows Cursor's documented hook JSON (tested with
it as golden files): every event carries ``conversation_id`` (sessionStart also as
``session_id``), ``workspace_roots`` and ``transcript_path`` (null when transcripts are off).
Answers: ``{"additional_context": ...}`` at sessionStart; ``{"continue": true}`` before a prompt
(with ``additional_context``, which builds that read it use and others ignore); ``{}`` otherwise.

Transcript lines are ``{"role", "message": {"content": [...]}}`` with no ids, so each line's id
comes from its content and how many identical lines came before it.

With transcripts off (privacy mode: ``transcript_path`` is null) the hooks themselves carry the
turn's words: ``beforeSubmitPrompt`` the user's ``prompt`` (captured by the prompt hook, in a
detached job), and ``afterAgentResponse``, wired to ov's stop event, the answer's ``text``. With a
transcript, ``afterAgentResponse`` captures nothing: the stop hook reads the transcript.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ov.hosts.host import HookInput, HookInputError, Host, _json
from ov.hosts.transcript import LineCounts, clean_blocks, jsonl_from, line_id, strip_injected

_RESPONSE = "afterAgentResponse"


class Cursor(Host):
    name = "cursor"
    label = "Cursor"
    prefix = "cu"
    reads_transcript = True
    extra_events = ((_RESPONSE, "stop"),)  # the answer's text, for a capture with transcripts off

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

    def capture_skipped(self, hook: HookInput) -> str | None:
        if hook.payload.get("hook_event_name") == _RESPONSE and hook.transcript_path:
            return "Cursor's stop hook reads the transcript"
        return None

    def fallback_messages(self, hook: HookInput, limit: int, seen: LineCounts | None = None) -> list[dict]:
        # Its stop says nothing of the turn: with transcripts off, the prompt and the answer come
        # from the hooks that carry them. A transcript named (if not written yet) will hold them.
        if hook.transcript_path:
            return []
        if hook.event == "prompt-submit":
            role, text = "user", hook.prompt
        elif hook.event == "stop" and hook.payload.get("hook_event_name") == _RESPONSE:
            role, text = "assistant", hook.payload.get("text")
        else:
            return []
        text = strip_injected(text) if isinstance(text, str) else ""
        if not text.strip():
            return []
        generation = hook.payload.get("generation_id")
        if isinstance(generation, str) and generation:
            # One generation, one prompt and one answer: the same hook delivered twice is one message.
            digest = hashlib.sha256(f"{role}\n{generation}".encode("utf-8", "surrogatepass")).hexdigest()[:12]
            message_id = f"{self.prefix}-{digest}"
        else:
            message_id = line_id(self.prefix, json.dumps([role, text], ensure_ascii=False), LineCounts() if seen is None else seen)
        # Whole, as transcripts keep prompts and replies: only tool payloads are cut.
        return [{"id": message_id, "role": role, "content": text}]


HOST = Cursor()
