"""Codex CLI: its hook input, its answer, its rollout (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``).

Hook input and answer are Claude Code's shapes (Codex adopted them), but Codex validates
answers strictly: only ``hookSpecificOutput.hookEventName``/``additionalContext`` for recall, and
nothing at all for the other events. Every event carries ``session_id``, ``transcript_path``
(the rollout, or null) and ``cwd``.

Rollout lines are ``{timestamp, type, payload}``. The conversation is in ``response_item`` lines:
``message`` (role user, assistant or developer, content parts ``input_text``/``output_text``),
``function_call``/``function_call_output`` and ``custom_tool_call``/``custom_tool_call_output``
(paired by ``call_id``). Developer messages and the user-role messages Codex writes itself
(environment context, AGENTS.md instructions) are not what the user said, and hook context
arrives as developer messages: all are left out. ``event_msg`` lines repeat the conversation
for the UI and are skipped. A subagent's hooks carry the parent's ``session_id`` with the
subagent's rollout and ``agent_id``: ov leaves them alone (:meth:`Codex.from_subagent`). What
the subagent found reaches the parent's rollout as a ``<subagent_notification>`` (a user-role
message Codex writes, carrying the subagent's last message): it is stored as the result of a
``subagent`` tool in the parent's session, not as the user's words (:func:`_subagent_result`).
So ov installs no hook for Codex's SubagentStart and SubagentStop: SubagentStop's
``last_assistant_message`` is that same text, and SubagentStart carries no task to recall for.
The notification can land after the parent's turn ended, and after its SessionEnd: a commit that
finds a ``spawn_agent`` call without it keeps the session live for the sweep (:meth:`Codex.awaited`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ov.hosts.host import Awaited, HookInput, Host
from ov.hosts.transcript import (
    LineCounts,
    bound,
    clean_blocks,
    iter_text,
    jsonl_from,
    line_id,
)

# User-role messages Codex writes itself, recognised by how their text starts. A subagent's
# notification carries the subagent's (model-written) answer: it is not what the user said either.
_NOTIFICATION, _NOTIFICATION_END = "<subagent_notification>", "</subagent_notification>"
# The tool that starts a subagent (multi_agent_v1's), and the keys that name the subagent in its
# output and in the notification of its end.
_SPAWN = "spawn_agent"
_AGENT_KEYS = ("agent_id", "agent_path", "task_name")
# The tool a subagent's result is stored as the output of (as OpenCode's `task` tool brings its child session's).
SUBAGENT_TOOL = "subagent"
_HOST_WRITTEN = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
    "<user_shell_command>",
    _NOTIFICATION,
)


class Codex(Host):
    name = "codex"
    label = "Codex"
    prefix = "cx"
    reads_transcript = True

    def from_subagent(self, hook: HookInput) -> bool:
        # A subagent (multi_agent_v1's spawn_agent) runs in a thread of its own, with its own
        # rollout, yet its hooks carry the parent's session_id; they say whose turn it is with
        # `agent_id` and `agent_type` (seen with Codex 0.171.0: UserPromptSubmit for the prompt
        # the parent's model wrote for it).
        agent = hook.payload.get("agent_id")
        return isinstance(agent, str) and bool(agent)

    def wrote_itself(self, prompt: str) -> bool:
        # Codex fires UserPromptSubmit for a subagent's notification too.
        return prompt.lstrip().startswith(_HOST_WRITTEN)

    def awaited(self, path: Path) -> Awaited | None:
        # Read whole, at a commit only (a background job's), parsing only the lines that can
        # matter: a spawn_agent call, a notification, and the output of a call still unanswered.
        calls: dict[str, float | None] = {}  # spawn calls without their output yet -> when made
        agents: list[tuple[float | None, frozenset[str]]] = []  # each subagent spawned: when, its names
        ended: set[str] = set()
        try:
            with path.open("rb") as rollout:
                for raw in rollout:
                    if not (b"spawn_agent" in raw or b"subagent_notification" in raw or (calls and any(call.encode() in raw for call in calls))):
                        continue
                    line, item = _item(raw)
                    kind, call = item.get("type"), item.get("call_id")
                    if kind in ("function_call", "custom_tool_call") and item.get("name") == _SPAWN and isinstance(call, str):
                        calls[call] = _time(line)
                    elif kind in ("function_call_output", "custom_tool_call_output") and call in calls:
                        names = _spawned_names(item.get("output"))
                        when = calls.pop(call)
                        if names:  # none: the spawn failed, and no subagent runs
                            agents.append((when, names))
                    else:
                        ended.update(_notified(item))
        except OSError:
            return None
        # A call without its output is still spawning; a subagent answered under any of its names is done.
        waiting = [*calls.values(), *(when for when, names in agents if not names & ended)]
        if not waiting:
            return None
        known = [when for when in waiting if when is not None]
        try:
            since = min(known) if known else path.stat().st_mtime
        except OSError:
            return None
        return Awaited(len(waiting), since)

    def transcript_messages(self, path: Path, start: int, limit: int, seen: LineCounts | None = None) -> tuple[list[dict], int]:
        lines, end = jsonl_from(path, start)
        seen = LineCounts() if seen is None else seen
        messages = []
        for raw, line in lines:
            if not isinstance(line, dict) or line.get("type") != "response_item" or not isinstance(line.get("payload"), dict):
                continue
            message = _message(line["payload"], limit)
            if message is None:
                continue
            message["id"] = line_id(self.prefix, raw, seen)
            if isinstance(line.get("timestamp"), str):
                message["created_at"] = line["timestamp"]
            messages.append(message)
        return messages, end


def _message(item: dict, limit: int) -> dict | None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        if role not in ("user", "assistant"):
            return None  # developer: instructions and hook context (ov's recall among them)
        blocks = clean_blocks(item.get("content") if isinstance(item.get("content"), list) else [], limit)
        text = "\n".join(iter_text(blocks)).lstrip()
        if role == "user" and text.startswith(_NOTIFICATION):
            return _subagent_result(text, limit)
        if not blocks or (role == "user" and text.startswith(_HOST_WRITTEN)):
            return None
        return {"role": role, "content": blocks}
    if kind in ("function_call", "custom_tool_call"):
        name = item.get("name") or "unknown"
        if item.get("namespace"):
            name = f"{item['namespace']}__{name}"
        if kind == "function_call":
            call = {"type": "function", "function": {"name": name, "arguments": bound(str(item.get("arguments") or ""), limit)}}
        else:
            call = {"type": "custom", "custom": {"name": name, "input": bound(item.get("input"), limit)}}
        return {"role": "assistant", "tool_calls": [{"id": item.get("call_id"), **call}]}
    if kind in ("function_call_output", "custom_tool_call_output"):
        output = item.get("output")
        failed = False
        if isinstance(output, dict):  # {"content": ..., "success": ...} in some versions
            failed = output.get("success") is False
            output = output.get("content", json.dumps(output, ensure_ascii=False))
        if isinstance(output, str):
            output, exit_code = _command_output(output)
            failed = failed or bool(exit_code)
        message = {"role": "tool", "tool_call_id": item.get("call_id"), "content": bound(_as_text(output), limit)}
        return {**message, "is_error": True} if failed else message
    return None  # reasoning, web search and shell status items: not conversation


def _item(raw: bytes) -> tuple[dict, dict]:
    """A rollout line and its ``response_item`` payload (empty when it is none, or no JSON)."""
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):
        return {}, {}
    if not isinstance(line, dict) or line.get("type") != "response_item" or not isinstance(line.get("payload"), dict):
        return {}, {}
    return line, line["payload"]


def _time(line: dict) -> float | None:
    from datetime import datetime

    try:
        return datetime.fromisoformat(line["timestamp"]).timestamp()  # "…Z": UTC
    except (KeyError, AttributeError, TypeError, ValueError):
        return None


def _spawned_names(output: object) -> frozenset[str]:
    """The names a spawn_agent output gives its subagent (0.171: ``{"agent_id", "nickname"}``; a
    later path-addressed version's ``agent_path`` or ``task_name``); none when the spawn failed (text)."""
    if isinstance(output, dict):
        output = output.get("content")
    try:
        value = json.loads(output) if isinstance(output, str) else None
    except (ValueError, RecursionError):
        return frozenset()
    if not isinstance(value, dict):
        return frozenset()
    return frozenset(value[key] for key in _AGENT_KEYS if isinstance(value.get(key), str) and value[key])


def _notified(item: dict) -> set[str]:
    """The subagent a notification message says has ended, by each name it gives (any status:
    Codex notifies a parent once, when its subagent reaches a final one)."""
    if item.get("type") != "message" or item.get("role") != "user" or not isinstance(item.get("content"), list):
        return set()
    text = "\n".join(iter_text(item["content"])).strip()
    if not text.startswith(_NOTIFICATION):
        return set()
    body = text[len(_NOTIFICATION) :]
    body = body[: body.rfind(_NOTIFICATION_END)] if _NOTIFICATION_END in body else body
    try:
        payload = json.loads(body)
    except (ValueError, RecursionError):
        return set()
    return {payload[key] for key in _AGENT_KEYS if isinstance(payload, dict) and isinstance(payload.get(key), str) and payload[key]}


def _subagent_result(text: str, limit: int) -> dict | None:
    """A subagent's notification (``{"agent_path", "status": {"completed": "its last message"}}``,
    or ``{"errored": "why"}``) as the result of a ``subagent`` tool call: what the subagent found,
    in the parent's session, where its memories are made; not the user's words. A status with no
    text (still running, shut down, not found) says nothing to keep."""
    body = text.strip()[len(_NOTIFICATION) :]
    body = body[: body.rfind(_NOTIFICATION_END)] if _NOTIFICATION_END in body else body
    try:
        payload = json.loads(body)
    except ValueError:
        return None
    status = payload.get("status") if isinstance(payload, dict) else None
    found = [(state, status[state]) for state in ("completed", "errored") if isinstance(status, dict) and isinstance(status.get(state), str) and status[state].strip()]
    if not found:
        return None
    state, output = found[0]
    part = {"type": "tool", "tool_name": SUBAGENT_TOOL, "tool_status": "error" if state == "errored" else "completed", "tool_output": bound(output, limit)}
    agent = payload.get("agent_path") or payload.get("agent_id")
    if isinstance(agent, str) and agent:
        part["tool_id"] = agent
    return {"role": "tool", "parts": [part]}


# What Codex puts before a command's output: 0.171 writes "Chunk ID: …", "Wall time: …",
# "Process exited with code N", "Original token count: …" and "Output:"; older versions wrote
# "Exit code: N", "Wall time: …" and "Output:", or a JSON string {"output", "metadata": {"exit_code"}}.
_HEADER_LINE = re.compile(r"(?:Chunk ID|Wall time|Original token count|Total output lines): .*|Exit code: -?\d+|Process exited with code -?\d+")
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)$", re.MULTILINE)


def _command_output(text: str) -> tuple[str, int | None]:
    """A shell call's output without Codex's header, and its exit code (None when the text is no
    command's output). The header says how the command ended, which is what marks the call failed;
    its chunk ids, timings and token counts tell a later reader nothing."""
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text, None
        metadata = value.get("metadata") if isinstance(value, dict) else None
        if isinstance(metadata, dict) and isinstance(value.get("output"), str):
            code = metadata.get("exit_code")
            return value["output"], code if isinstance(code, int) and not isinstance(code, bool) else None
        return text, None
    lines = text.split("\n", 8)
    for end, line in enumerate(lines[:8]):
        if line == "Output:" and end:
            head = "\n".join(lines[:end])
            code = _EXIT_CODE.search(head)
            return "\n".join(lines[end + 1 :]), int(code.group(1)) if code else None
        if not _HEADER_LINE.fullmatch(line):
            break
    return text, None


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(iter_text(value))
    return json.dumps(value, ensure_ascii=False)


HOST = Codex()
