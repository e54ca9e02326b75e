"""Claude Code: its hook input, its answer, its transcript (``~/.claude/projects/<cwd>/<session>.jsonl``).

Hook input and answer follow /work/shared's host notes for 2.1.x: every event carries
``session_id``, ``transcript_path`` and ``cwd``; SessionStart ``source`` (startup, resume,
compact, clear), UserPromptSubmit ``prompt``. Recall is answered as
``hookSpecificOutput.additionalContext``; every other event prints nothing.

Transcript lines are ``{type, uuid, timestamp, message: {id?, role, content}, isMeta?,
isSidechain?, ...}``. Only ``user`` and ``assistant`` lines are conversation: ``attachment`` lines
hold what hooks injected (ov's recall among them), ``system``/``summary`` lines are the host's
own. An assistant turn may span several lines sharing ``message.id``: they are one message.
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
        for _offset, _raw, line in lines:
            message = _message(line, limit)
            if message is None:
                continue
            last = messages[-1] if messages else None
            if last is not None and message["role"] == "assistant" and last["role"] == "assistant" and last["id"] == message["id"]:
                last["content"].extend(message["content"])  # one turn written as several lines
            else:
                messages.append(message)
        return [m for m in messages if m["content"]], end


def _message(line: object, limit: int) -> dict | None:
    if not isinstance(line, dict) or line.get("type") not in ("user", "assistant"):
        return None
    if line.get("isMeta") or line.get("isSidechain"):
        return None  # host-generated context, or a subagent's own conversation
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
    message_id = body.get("id") if body["role"] == "assistant" and isinstance(body.get("id"), str) else uuid
    if not isinstance(message_id, str) or not message_id:
        return None
    blocks = clean_blocks(content, limit)
    if body["role"] == "user" and any(_is_command(b) for b in blocks):
        return None
    message = {"id": message_id, "role": body["role"], "content": blocks}
    if isinstance(line.get("timestamp"), str):
        message["created_at"] = line["timestamp"]
    return message


def _is_command(block: dict) -> bool:
    return block.get("type") == "text" and strip_injected(str(block.get("text", ""))).lstrip().startswith(_COMMAND_TAGS)


HOST = ClaudeCode()
