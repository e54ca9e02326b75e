"""Gemini CLI: its hook input, its answer, and what a turn said.

Hook input carries ``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``;
BeforeAgent (prompt submit) ``prompt``; AfterAgent (turn end) ``prompt`` and ``prompt_response``.
Recall is answered as ``hookSpecificOutput.additionalContext`` under the Gemini event name, and
every other event answers ``{}`` (Gemini reads any other stdout as a message to show).

Headless Gemini prepends session-start context to the prompt as ``<hook_context>…</hook_context>``,
so the prompt a turn-end hook sees holds ov's own recall: it is cut out before capture. A turn
is captured from the turn-end input itself (the prompt and the answer, whole). The turn's tool
calls are not in that input, and ov neither reads Gemini's transcript nor hooks AfterTool: they
are not captured.

A turn's id is a digest of what it said and which of the identical turns it is, as a transcript
line's is (:func:`ov.hosts.transcript.line_id`), not the event's time: Gemini fires a turn's end
again (``stop_hook_active``, a hook it retries) with a new time, and the turn was stored twice.
The same turn fired again is told from a new one that said the same ("yes" twice) by Gemini's
transcript: a new turn writes to it, so a turn end with the last turn's words and the transcript
the size it was then is that turn again (as is one with the same event time, or
``stop_hook_active``). Only the size is read (at the hook, not in the job that captures later),
never the transcript's content.
"""

from __future__ import annotations

import json
import os

from ov.hosts.host import HookInput, Host
from ov.hosts.transcript import LineCounts, line_id, strip_injected


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
        if event == "stop" and hook.transcript_path:
            try:
                hook.transcript_size = os.stat(hook.transcript_path).st_size
            except OSError:
                pass  # none: a turn fired again is told by its event time and stop_hook_active
        return hook

    def fallback_messages(self, hook: HookInput, limit: int, seen: LineCounts | None = None) -> list[dict]:
        if hook.event != "stop":
            return []
        prompt = strip_injected(str(hook.payload.get("prompt") or ""))
        answer = strip_injected(str(hook.payload.get("prompt_response") or ""))
        if not prompt and not answer:
            return []
        seen = LineCounts() if seen is None else seen
        stamp = str(hook.payload.get("timestamp") or "")
        mark = {"time": stamp or None, "size": hook.transcript_size}
        last = seen.mark or {}
        # The same turn fired again: the same event delivered twice, Gemini going on after another
        # hook's answer, or nothing written to the transcript since. Only a turn with the last
        # one's words is ever taken for it (line_id), so "yes" twice is two turns.
        again = (
            hook.payload.get("stop_hook_active") is True
            or any(mark[key] is not None and mark[key] == last.get(key) for key in ("time", "size"))
        )
        turn = line_id(self.prefix, json.dumps([prompt, answer], ensure_ascii=False), seen, again=again)
        seen.mark = mark
        messages = []
        for role, text in (("user", prompt), ("assistant", answer)):
            if text:
                # Whole, as the other hosts keep prompts and replies: only tool payloads are cut.
                message = {"id": f"{turn}-{role}", "role": role, "content": text}
                if stamp:
                    message["created_at"] = stamp
                messages.append(message)
        return messages


HOST = GeminiCLI()
