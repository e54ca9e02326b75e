"""Claude Code: its hook input, its answer, its transcript (``~/.claude/projects/<cwd>/<session>.jsonl``).

Hook input and answer follow /work/shared's host notes for 2.1.x: every event carries
``session_id``, ``transcript_path`` and ``cwd``; SessionStart ``source`` (startup, resume,
compact, clear), UserPromptSubmit ``prompt``. Recall is answered as
``hookSpecificOutput.additionalContext``; every other event prints nothing.

Transcript lines are ``{type, uuid, timestamp, message: {id?, role, content}, isMeta?,
isSidechain?, ...}``. Only ``user`` and ``assistant`` lines are conversation: ``attachment`` lines
hold what hooks injected (ov's recall among them), ``system``/``summary`` lines are the host's
own. An assistant turn may span several lines sharing ``message.id``: those a read meets are one
message, whose id is its first line's ``uuid``.
"""

from __future__ import annotations

from pathlib import Path

from ov.hosts.host import Host
from ov.hosts.transcript import clean_blocks, jsonl_from, strip_injected

# Slash commands and their local output are recorded as user lines wrapped in these tags.
_COMMAND_TAGS = ("<command-name>", "<command-message>", "<command-args>", "<local-command-stdout>", "<local-command-stderr>")


class ClaudeCode(Host):
    name = "claude"
    label = "Claude Code"
    prefix = "cc"
    reads_transcript = True

    def transcript_messages(self, path: Path, start: int, limit: int) -> tuple[list[dict], int]:
        lines, end = jsonl_from(path, start)
        messages: list[dict] = []
        turns: dict[str, dict] = {}  # an assistant turn's message.id -> its message in this read
        for _offset, _raw, line in lines:
            message = _message(line, limit)
            if message is None:
                continue
            turn = message.pop("turn", None)
            if turn is not None and turn in turns:
                # One turn written as several lines, which need not be next to each other (a tool's
                # result between its calls): one message, under its first line's uuid. A line of it
                # that a later read meets has a uuid of its own, so it is not taken for a duplicate.
                turns[turn]["content"].extend(message["content"])
                continue
            messages.append(message)
            if turn is not None:
                turns[turn] = message
        return [m for m in messages if m["content"]], end


def _message(line: object, limit: int) -> dict | None:
    if not isinstance(line, dict) or line.get("type") not in ("user", "assistant"):
        return None
    if line.get("isMeta") or line.get("isSidechain") or line.get("isCompactSummary") or line.get("isVisibleInTranscriptOnly"):
        # Host-generated context, a subagent's own conversation, or the summary a compaction writes
        # as a user line ("This session is being continued from a previous conversation ...").
        return None
    body = line.get("message")
    if not isinstance(body, dict) or body.get("role") not in ("user", "assistant"):
        return None
    content = body.get("content")
    if isinstance(content, str):
        if content.lstrip().startswith(_COMMAND_TAGS):
            return None
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return None
    uuid = line.get("uuid")
    turn = body.get("id") if body["role"] == "assistant" and isinstance(body.get("id"), str) and body.get("id") else None
    message_id = uuid if isinstance(uuid, str) and uuid else turn
    if message_id is None:
        return None
    blocks = clean_blocks(content, limit)
    if body["role"] == "user" and any(_is_command(b) for b in blocks):
        return None
    message = {"id": message_id, "role": body["role"], "content": blocks, "turn": turn}
    if isinstance(line.get("timestamp"), str):
        message["created_at"] = line["timestamp"]
    return message


def _is_command(block: dict) -> bool:
    return block.get("type") == "text" and strip_injected(str(block.get("text", ""))).lstrip().startswith(_COMMAND_TAGS)


HOST = ClaudeCode()
