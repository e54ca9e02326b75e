"""Gemini CLI: its hook input, its answer, and what a turn said.

Hook input carries ``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``;
BeforeAgent (prompt submit) ``prompt``; AfterAgent (turn end) ``prompt`` and ``prompt_response``.
Recall is answered as ``hookSpecificOutput.additionalContext`` under the Gemini event name, and
every other event answers ``{}`` (Gemini reads any other stdout as a message to show).

Headless Gemini prepends session-start context to the prompt as ``<hook_context>…</hook_context>``,
so the prompt a turn-end hook sees holds ov's own recall: it is cut out before capture. A turn
is captured from the turn-end input itself (the prompt and the answer, whole), with an id made
from the session and the event's time, so a repeated hook stores it once. The turn's tool calls
are not in that input, and ov neither reads Gemini's transcript nor hooks AfterTool: they are
not captured.
"""

from __future__ import annotations

import hashlib

from ov.hosts.host import HookInput, Host
from ov.hosts.transcript import strip_injected


class GeminiCLI(Host):
    name = "gemini"
    label = "Gemini CLI"
    prefix = "gm"

    def native_event(self, event: str) -> str:
        return {
            "session-start": "SessionStart",
            "prompt-submit": "BeforeAgent",
            "stop": "AfterAgent",
            "pre-compact": "PreCompress",
            "session-end": "SessionEnd",
        }[event]

    def answer(self, event: str, context: str | None) -> str:
        return super().answer(event, context) or "{}"

    def parse(self, event: str, payload) -> HookInput:
        hook = super().parse(event, payload)
        if hook.prompt:
            hook.prompt = strip_injected(hook.prompt)
        return hook

    def fallback_messages(self, hook: HookInput, limit: int) -> list[dict]:
        if hook.event != "stop":
            return []
        prompt = strip_injected(str(hook.payload.get("prompt") or ""))
        answer = strip_injected(str(hook.payload.get("prompt_response") or ""))
        stamp = str(hook.payload.get("timestamp") or "")
        turn = hashlib.sha256(f"{hook.session_id}\0{stamp}\0{prompt}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        messages = []
        for role, text in (("user", prompt), ("assistant", answer)):
            if text:
                # Whole, as the other hosts keep prompts and replies: only tool payloads are cut.
                message = {"id": f"gm-{turn}-{role}", "role": role, "content": text}
                if stamp:
                    message["created_at"] = stamp
                messages.append(message)
        return messages


HOST = GeminiCLI()
