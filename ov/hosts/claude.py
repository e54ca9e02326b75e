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

Claude Code also writes what is not the user's own words as user lines, in tags. Slash commands,
their output and the caveat before them are the host's own and left out, and so is a background
task's notice (the model reads the task's output with a tool). A ``!`` shell turn
(``<bash-input>``, then ``<bash-stdout>``/``<bash-stderr>`` in a line whose ``parentUuid`` is the
input's) is work done in the project: it is kept as a tool call named Bash and its result, never
as text the user said, which memories are read from.
"""

from __future__ import annotations

import re
from pathlib import Path

from ov.hosts.host import Host
from ov.hosts.transcript import LineCounts, clean_blocks, jsonl_from, strip_injected

# User lines that are the host's own, not the user's: left out.
_COMMAND_TAGS = (
    "<command-name>",
    "<command-message>",
    "<command-args>",
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<task-notification>",
)
_SHELL_TAG = "<bash-"
_SHELL_PART = re.compile(r"<(?P<tag>bash-input|bash-stdout|bash-stderr)>(?P<text>.*?)</(?P=tag)>", re.DOTALL)


class ClaudeCode(Host):
    name = "claude"
    label = "Claude Code"
    prefix = "cc"
    reads_transcript = True

    def transcript_messages(self, path: Path, start: int, limit: int, seen: LineCounts | None = None) -> tuple[list[dict], int]:
        lines, end = jsonl_from(path, start)
        messages: list[dict] = []
        turns: dict[str, dict] = {}  # an assistant turn's message.id -> its message in this read
        for _raw, line in lines:
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
    if body["role"] == "user":
        parent = line.get("parentUuid")
        call_id = parent if isinstance(parent, str) and parent else message_id
        content = [shell for block in content for shell in _shell_blocks(block, message_id, call_id)]
    blocks = clean_blocks(content, limit)
    if body["role"] == "user" and any(_is_command(b) for b in blocks):
        return None
    message = {"id": message_id, "role": body["role"], "content": blocks, "turn": turn}
    if isinstance(line.get("timestamp"), str):
        message["created_at"] = line["timestamp"]
    return message


def _shell_blocks(block: object, message_id: str, call_id: str) -> list:
    """A ``!`` shell turn's text block as a Bash call and its result; any other block as it is.

    The output answers the call in the line before (``call_id``, its ``parentUuid``), or in its
    own line when the host wrote both together.
    """
    if not isinstance(block, dict) or block.get("type") != "text" or not str(block.get("text", "")).lstrip().startswith(_SHELL_TAG):
        return [block]
    parts = {m.group("tag"): m.group("text") for m in _SHELL_PART.finditer(str(block["text"]))}
    out: list = []
    if "bash-input" in parts:
        out.append({"type": "tool_use", "id": message_id, "name": "Bash", "input": {"command": parts["bash-input"]}})
        call_id = message_id
    output = "\n".join(parts[tag] for tag in ("bash-stdout", "bash-stderr") if parts.get(tag))
    if "bash-stdout" in parts or "bash-stderr" in parts:
        out.append({"type": "tool_result", "tool_use_id": call_id, "content": output})
    return out


def _is_command(block: dict) -> bool:
    return block.get("type") == "text" and strip_injected(str(block.get("text", ""))).lstrip().startswith(_COMMAND_TAGS)


HOST = ClaudeCode()
