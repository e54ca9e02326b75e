"""Messages: the JSON forms a conversation message may arrive in, and the one form ov stores.

The stored form, one line of a session's ``messages.jsonl``::

    {"id", "role": "user" | "assistant" | "system" | "tool", "parts": [...], "created_at", "peer"?}

with parts ``{"type": "text", "text"}``, ``{"type": "tool", "tool_name", "tool_status",
"tool_id"?, "tool_input"?, "tool_output"?, "duration_ms"?}`` and ``{"type": "context", "uri",
"context_type"?, "abstract"?}``.

Accepted input forms, each mapped to that one:

* ov's own: ``{"role", "text"}``, or ``{"role", "parts"}`` with parts exactly as stored (strict:
  an unknown part type is an error, since ov wrote the form and a typo should not pass).
* ``{"role", "content": "text"}``: Anthropic, OpenAI, and Gemini CLI's hook payloads.
* Anthropic blocks, ``"content": [...]``: ``text``, ``tool_use`` (``id``, ``name``, ``input``),
  ``tool_result`` (``tool_use_id``, ``content`` as a string or blocks, ``is_error``), and the
  server and MCP variants (``server_tool_use``, ``*_tool_result``). OpenAI and Codex content
  parts (``input_text``, ``output_text``, ``refusal``, images) are read from the same list.
* OpenAI chat: ``"tool_calls": [{"id", "type": "function", "function": {"name", "arguments"}}]``
  (custom tools: ``"custom": {"name", "input"}``), the legacy ``function_call``, and results
  ``{"role": "tool", "tool_call_id", "content"}`` (``is_error`` when true; legacy: ``{"role":
  "function", "name"}``).

How they map, and why:

* A tool call is a tool part with status ``pending``: the call as the model asked for it. Its
  outcome is the result's tool part with the same ``tool_id``, status ``completed`` or ``error``.
  A result names its tool after that call (found earlier in the same batch, or by
  ``ov.sessions.session.add_messages`` in the live messages), else ``unknown``.
* OpenAI ``arguments`` (a JSON string) are stored parsed when they parse, else as the string.
* A user message of nothing but tool results (Anthropic's shape) is stored with role ``tool``:
  it is tool output, not something the user said, and memory extraction reads user messages.
* A block ov does not keep (image, document, audio, thinking, a type ov has not met) becomes a
  text placeholder such as ``[image]``: the transcript keeps a trace of it, and a well-formed
  message is never refused for one of its blocks.
* ``developer`` is stored as ``system`` and ``function`` as ``tool``.

Every value must be strict JSON that can be written as UTF-8, so NaN and Infinity, lone
surrogates (``"\\ud800"``) and nesting deeper than ``MAX_NESTING`` are refused as bad input
(exit 2) instead of being written into a file that strict readers reject, or crashing on the way.

Validated by hand rather than with pydantic: this runs in a hook on every turn, and pydantic
costs ~100 ms to import and build.
"""

from __future__ import annotations

import json
import math
import os
import re
from datetime import datetime, timezone
from typing import Any, Mapping

from ov.errors import InvalidInput
from ov.identity import validate_id
from ov.sessions import clock

ROLES = ("user", "assistant", "system", "tool")
ROLE_ALIASES = {"developer": "system", "function": "tool"}
PART_TYPES = ("text", "tool", "context")
TOOL_STATUSES = ("pending", "running", "completed", "error")
UNKNOWN_TOOL = "unknown"
# Levels of lists and objects inside one value (a tool's input or output). Real tool inputs are a
# few levels deep; the bound keeps every later walk (redaction, json.dumps) far from the
# interpreter's recursion limit.
MAX_NESTING = 64
MAX_ID_CHARS = 128
_TEXT_BLOCKS = ("text", "input_text", "output_text")
_PLACEHOLDER_NAMES = {
    "image": "image",
    "image_url": "image",
    "input_image": "image",
    "audio": "audio",
    "input_audio": "audio",
    "document": "document",
    "file": "file",
    "input_file": "file",
}
_BLOCK_TYPE = re.compile(r"[A-Za-z][\w.-]{0,63}")
# Only a line holding an escaped surrogate can decode to a lone one; most lines never need the check.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def now_iso() -> str:
    return clock.now().isoformat(timespec="milliseconds").replace("+00:00", "Z")


# --- reading JSON ------------------------------------------------------------------------


def load_json(text: str, what: str) -> Any:
    """Strict JSON: NaN, Infinity and numbers beyond a float's range are refused, and so is
    nesting deeper than the parser can follow."""

    def refuse_constant(constant: str) -> None:
        raise InvalidInput(f"{what} holds {constant}, which is not JSON", hint="send null or a string instead")

    def finite_float(literal: str) -> float:
        value = float(literal)
        if math.isinf(value):
            raise InvalidInput(f"{what} holds the number {_shown(literal)}, beyond a float's range", hint="send it as a string")
        return value

    try:
        return json.loads(text, parse_constant=refuse_constant, parse_float=finite_float)
    except RecursionError:
        hint = f"ov accepts up to {MAX_NESTING} levels of lists and objects in a value"
        raise InvalidInput(f"{what} is nested too deeply", hint=hint) from None
    except ValueError as exc:
        raise InvalidInput(f"{what} is not valid JSON: {exc}") from None


def load_messages(text: str) -> list[Any]:
    """The messages given to ``ov session add-messages``: one JSON array, or one JSON value per line."""
    stripped = text.strip()
    if not stripped:
        raise InvalidInput("no messages given", hint="pass a JSON array, or pipe an array or JSON lines on standard input")
    if stripped.startswith("["):
        value = load_json(stripped, "the message array")
        if not isinstance(value, list):
            raise InvalidInput("the messages must be a JSON array")
        return value
    # "\n" only: str.splitlines() also splits at U+2028 and other separators a JSON string may hold.
    return [load_json(line, f"line {number}") for number, line in enumerate(stripped.split("\n"), start=1) if line.strip()]


def parse_messages(data: bytes) -> list[dict]:
    """The messages of a stored ``messages.jsonl``, read leniently.

    An unterminated last line (an append in progress) and lines that are not JSON objects are
    skipped; invalid UTF-8 and lone surrogates (a hand edit) become U+FFFD or ``?``; NaN and
    Infinity, which older versions wrote, read as null. What comes back is always strict JSON,
    but an object as the line holds it: readers take its fields with ``.get`` and its parts with
    :func:`stored_parts`.
    """
    return [value for value in _read_lines(data) if value is not None]


def bad_message_lines(data: bytes) -> int:
    """How many lines of a stored ``messages.jsonl`` :func:`parse_messages` skips as not JSON
    objects (an unfinished last line is an append in progress, not counted): `ov fsck` names them,
    since every reader drops them silently."""
    return sum(value is None for value in _read_lines(data))


def _read_lines(data: bytes):
    """Each complete, non-blank line of a ``messages.jsonl``: its object, or None when it is not one."""
    lines = data.decode("utf-8", "replace").split("\n")
    for line in lines[:-1]:  # the last piece is "" after a final newline, else an unfinished line
        if not line.strip():
            continue
        try:
            value = json.loads(line, parse_constant=lambda _constant: None, parse_float=_float_or_none)
            if isinstance(value, dict) and _SURROGATE_ESCAPE.search(line):
                value = json.loads(json.dumps(value, ensure_ascii=False).encode("utf-8", "replace"))
        except (ValueError, RecursionError):
            value = None
        yield value if isinstance(value, dict) else None


def _float_or_none(literal: str) -> float | None:
    value = float(literal)
    return None if math.isinf(value) else value


# --- normalising -------------------------------------------------------------------------


def normalise_messages(raw_messages: Any, *, peer: str | None = None) -> list[dict]:
    """Normalise a batch (all or nothing); a result names its tool after a call earlier in the batch."""
    if not isinstance(raw_messages, list):
        raise InvalidInput(f"the messages must be a JSON array, not {_kind(raw_messages)}")
    names: dict[Any, str] = {}
    out = []
    for number, raw in enumerate(raw_messages, start=1):
        try:
            message = normalise_message(raw, peer=peer, tool_names=names)
        except InvalidInput as exc:
            if len(raw_messages) == 1:
                raise
            raise exc.restated(f"message {number}: {exc.message}") from None
        names.update(tool_call_names(message))
        out.append(message)
    return out


def normalise_message(raw: Any, *, peer: str | None = None, tool_names: Mapping[Any, str] | None = None) -> dict:
    """Validate one message in any accepted form (see the module docstring); return its stored form.

    ``tool_names`` maps the ids of earlier tool calls to their tools' names.
    """
    if not isinstance(raw, dict):
        raise InvalidInput(f"a message must be a JSON object, not {_kind(raw)}")
    given_role = raw.get("role")
    role = ROLE_ALIASES.get(given_role, given_role) if isinstance(given_role, str) else None
    if role not in ROLES:
        if given_role is None and isinstance(raw.get("message"), dict):
            # A Claude Code or Cursor transcript line wraps the message in `message`.
            raise InvalidInput("a message needs a `role`; this looks like a transcript line", hint="send the line's `message` object")
        roles = ", ".join(ROLES)
        raise InvalidInput(f"unknown role {_shown(given_role)}", hint=f"roles are: {roles} (developer and function are read as system and tool)")
    parts = _parts(raw, role, tool_names or {})
    if role == "user" and isinstance(raw.get("content"), list) and all(p["type"] == "tool" for p in parts):
        role = "tool"  # Anthropic sends tool results as user messages; they are not the user's words
    message = {
        "id": _message_id(raw.get("id")),
        "role": role,
        "parts": parts,
        "created_at": _timestamp(raw.get("created_at")),
    }
    message_peer = raw.get("peer", raw.get("peer_id", peer))
    if message_peer is not None:
        message["peer"] = validate_id(_text(str(message_peer), "peer"), "peer")
    return message


def tool_call_names(message: dict) -> dict[Any, str]:
    """{tool_id: tool_name} of the calls in a stored-form message (what names later results)."""
    return {
        p["tool_id"]: p["tool_name"]
        for p in stored_parts(message)
        if p.get("type") == "tool"
        and isinstance(p.get("tool_id"), (str, int))
        and isinstance(p.get("tool_name"), str)
        and p["tool_name"] != UNKNOWN_TOOL
        and "tool_output" not in p
    }


def _parts(raw: dict, role: str, tool_names: Mapping[Any, str]) -> list[dict]:
    given = [key for key in ("text", "content", "parts") if raw.get(key) is not None]
    if len(given) > 1:
        raise InvalidInput(f"give a message one of `text`, `content` or `parts`, not {' and '.join(f'`{k}`' for k in given)}")
    key = given[0] if given else None
    value = raw.get(key) if key else None
    calls = _openai_calls(raw)
    if key == "parts":
        if not isinstance(value, list) or not value:
            raise InvalidInput("`parts` must be a non-empty list")
        parts = [_normalise_part(p, i) for i, p in enumerate(value)]
    elif role == "tool" and ("tool_call_id" in raw or raw.get("role") == "function"):
        # An OpenAI tool result: the whole message is the output of one call (Codex says whether it
        # failed, carried here as ``is_error``).
        failed = raw.get("is_error") is True
        parts = [_result_part(raw.get("tool_call_id"), raw.get("name"), value, failed, "the tool result", tool_names)]
    elif isinstance(value, str):
        # OpenAI sends "" (or null) beside tool calls; that empty text is not a part worth keeping.
        parts = [{"type": "text", "text": _text(value, f"`{key}`")}] if value or not calls else []
    elif key == "content":
        if not isinstance(value, list):
            raise InvalidInput(f"`content` must be a string or a list of blocks, not {_kind(value)}")
        if not value and not calls:
            raise InvalidInput("`content` is an empty list", hint="give at least one block, e.g. {\"type\": \"text\", \"text\": \"...\"}")
        parts = [_block_part(block, i, tool_names) for i, block in enumerate(value)]
    elif key == "text":
        raise InvalidInput(f"`text` must be a string, not {_kind(value)}")
    else:
        parts = []
    parts += calls
    if not parts:
        raise InvalidInput(
            "a message needs `text` (a string), `content` (a string or a list of blocks), `parts` (a list) or `tool_calls`",
            hint='e.g. {"role": "user", "content": "..."} or {"role": "user", "content": [{"type": "text", "text": "..."}]}',
        )
    return parts


def _normalise_part(part: Any, index: int) -> dict:
    """One part in ov's own form (strict)."""
    where = f"part {index}"
    if not isinstance(part, dict):
        raise InvalidInput(f"{where} must be a JSON object")
    kind = part.get("type")
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise InvalidInput(f"{where}: a text part needs `text` (a string)")
        return {"type": "text", "text": _text(part["text"], where)}
    if kind == "tool":
        name = part.get("tool_name")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"{where}: a tool part needs `tool_name`")
        status = part.get("tool_status", "completed")
        if status not in TOOL_STATUSES:
            raise InvalidInput(f"{where}: tool_status {_shown(status)} is not one of {', '.join(TOOL_STATUSES)}")
        out = {"type": "tool", "tool_name": _text(name, where), "tool_status": status}
        if "tool_id" in part:
            out["tool_id"] = _tool_id(part["tool_id"], where)
        for key in ("tool_input", "tool_output"):
            if key in part:
                out[key] = _json_value(part[key], f"{where} {key}")
        if "duration_ms" in part:
            duration = part["duration_ms"]
            if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not math.isfinite(duration) or duration < 0:
                raise InvalidInput(f"{where}: duration_ms must be a number of milliseconds, not {_shown(duration)}")
            out["duration_ms"] = duration
        return out
    if kind == "context":
        uri = part.get("uri")
        if not isinstance(uri, str) or not uri.startswith("viking://"):
            raise InvalidInput(f"{where}: a context part needs a viking:// `uri`")
        out = {"type": "context", "uri": _text(uri, where)}
        for key in ("context_type", "abstract"):
            if isinstance(part.get(key), str):
                out[key] = _text(part[key], where)
        return out
    raise InvalidInput(f"{where}: unknown type {_shown(kind)}", hint=f"part types are: {', '.join(PART_TYPES)}")


def _block_part(block: Any, index: int, tool_names: Mapping[Any, str]) -> dict:
    """One Anthropic/OpenAI content block as a stored part (see the module docstring)."""
    where = f"content block {index}"
    kind = block.get("type") if isinstance(block, dict) else None
    if not isinstance(kind, str) or not _BLOCK_TYPE.fullmatch(kind):
        raise InvalidInput(f"{where} must be a JSON object with a `type`", hint='e.g. {"type": "text", "text": "..."}')
    if kind in _TEXT_BLOCKS or kind == "refusal":
        field = "refusal" if kind == "refusal" else "text"
        if not isinstance(block.get(field), str):
            raise InvalidInput(f"{where}: a {kind} block needs `{field}` (a string)")
        return {"type": "text", "text": _text(block[field], where)}
    if kind == "tool_use" or kind.endswith("_tool_use"):  # server_tool_use, mcp_tool_use
        return _call_part(block.get("id"), block.get("name"), block.get("input"), where)
    if kind == "tool_result" or kind.endswith("_tool_result"):  # web_search_tool_result, mcp_tool_result
        if block.get("tool_use_id") is None:
            raise InvalidInput(f"{where}: a {kind} block needs `tool_use_id`")
        is_error = block.get("is_error", False)
        if not isinstance(is_error, bool):
            raise InvalidInput(f"{where}: is_error must be true or false, not {_shown(is_error)}")
        return _result_part(block["tool_use_id"], None, block.get("content"), is_error, where, tool_names)
    return {"type": "text", "text": _placeholder(kind)}


def _openai_calls(raw: dict) -> list[dict]:
    """The tool parts of OpenAI's ``tool_calls`` and legacy ``function_call``."""
    out = []
    calls = raw.get("tool_calls")
    if calls is not None:
        if not isinstance(calls, list):
            raise InvalidInput(f"`tool_calls` must be a list, not {_kind(calls)}")
        for index, call in enumerate(calls):
            where = f"tool call {index}"
            kind = call.get("type", "function") if isinstance(call, dict) else None
            body = call.get(kind) if kind in ("function", "custom") else None
            if not isinstance(body, dict):
                raise InvalidInput(f"{where} needs `function`: {{\"name\", \"arguments\"}}")
            arguments = body.get("arguments") if kind == "function" else body.get("input")
            out.append(_call_part(call.get("id"), body.get("name"), _arguments(arguments), where))
    legacy = raw.get("function_call")
    if legacy is not None:
        if not isinstance(legacy, dict):
            raise InvalidInput("`function_call` must be an object: {\"name\", \"arguments\"}")
        out.append(_call_part(None, legacy.get("name"), _arguments(legacy.get("arguments")), "function_call"))
    return out


def _arguments(value: Any) -> Any:
    """OpenAI arguments, parsed when they are strict JSON; what a model wrote that is not stays a string."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    try:
        return load_json(value, "arguments")
    except InvalidInput:
        return value


def _call_part(tool_id: Any, name: Any, tool_input: Any, where: str) -> dict:
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"{where}: a tool call needs `name` (a string)")
    part = {"type": "tool", "tool_name": _text(name, where), "tool_status": "pending"}
    if tool_id is not None:
        part["tool_id"] = _tool_id(tool_id, where)
    if tool_input is not None:
        part["tool_input"] = _json_value(tool_input, f"{where} input")
    return part


def _result_part(tool_id: Any, name: Any, content: Any, is_error: bool, where: str, tool_names: Mapping[Any, str]) -> dict:
    if name is not None and (not isinstance(name, str) or not name):
        raise InvalidInput(f"{where}: `name` must be a tool's name (a string)")
    part: dict[str, Any] = {"type": "tool", "tool_status": "error" if is_error else "completed"}
    if tool_id is not None:
        part["tool_id"] = _tool_id(tool_id, where)
    part["tool_name"] = _text(name, where) if name else tool_names.get(part.get("tool_id"), UNKNOWN_TOOL)
    if content is not None:
        part["tool_output"] = _output(content, f"{where} content")
    return part


def _output(content: Any, where: str) -> Any:
    """A result's content: text as it is, text and media blocks joined into text, anything else as JSON."""
    if isinstance(content, list) and all(_is_text_or_media(block) for block in content):
        return "\n".join(
            _text(block["text"], where) if block["type"] in _TEXT_BLOCKS else _placeholder(block["type"]) for block in content
        )
    return _json_value(content, where)


def _is_text_or_media(block: Any) -> bool:
    if not isinstance(block, dict):
        return False
    kind = block.get("type")
    return (kind in _TEXT_BLOCKS and isinstance(block.get("text"), str)) or kind in _PLACEHOLDER_NAMES


def _placeholder(kind: str) -> str:
    return f"[{_PLACEHOLDER_NAMES.get(kind, kind)}]"


def _tool_id(value: Any, where: str) -> str | int:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "" or len(str(value)) > 256:
        raise InvalidInput(f"{where}: a tool id must be a non-empty string, not {_shown(value)}")
    return _text(value, where) if isinstance(value, str) else value


def _message_id(value: Any) -> str:
    if value is None:
        return "msg_" + os.urandom(8).hex()
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS or any(ch in value for ch in "\n\r\t"):
        raise InvalidInput(f"invalid message id {_shown(value)}", hint=f"an id is a string of 1 to {MAX_ID_CHARS} characters on one line")
    return _text(value, "the message id")


def _timestamp(value: Any) -> str:
    if value is None:
        return now_iso()
    if not isinstance(value, str):
        raise InvalidInput(f"created_at must be an ISO 8601 string, not {_shown(value)}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return parsed.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (ValueError, OverflowError):  # not a time, or one that leaves the calendar in UTC
        raise InvalidInput(f"created_at {_shown(value)} is not an ISO 8601 time") from None


def _json_value(value: Any, where: str, depth: int = 0) -> Any:
    """A copy of ``value`` checked to be strict JSON that can be written as UTF-8."""
    if isinstance(value, str):
        return _text(value, where)
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(f"{where} holds {value}, which is not JSON", hint="send null or a string instead")
        return value
    if depth >= MAX_NESTING:
        raise InvalidInput(f"{where} is nested more than {MAX_NESTING} levels deep")
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidInput(f"{where}: an object key must be a string, not {_shown(key)}")
            out[_text(key, where)] = _json_value(item, where, depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [_json_value(item, where, depth + 1) for item in value]
    raise InvalidInput(f"{where} holds {_kind(value)}, which is not a JSON value")


def _text(value: str, where: str) -> str:
    """``value`` if it can be written as UTF-8: a JSON escape such as "\\ud800" decodes to a lone
    surrogate, which cannot."""
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{where} holds a lone surrogate (U+{ord(value[exc.start]):04X}), which is not text",
                hint="send valid UTF-8; escapes between \\ud800 and \\udfff must come in pairs",
            ) from None
    return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), f"a {type(value).__name__}")


def _shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: an error message should not echo a whole input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- reading stored messages --------------------------------------------------------------


def stored_parts(message: Mapping[str, Any]) -> list[dict]:
    """The parts of a message read from ``messages.jsonl`` that are objects: :func:`parse_messages`
    keeps whatever object a line holds (older ov's lines, hand edits), so "parts" may be missing,
    not a list, or hold anything."""
    parts = message.get("parts")
    return [part for part in parts if isinstance(part, dict)] if isinstance(parts, list) else []


def message_text(message: Mapping[str, Any], *, said_only: bool = False) -> str:
    """The human-readable text of a message (text parts, tool names and outputs, context URIs).

    ``said_only``: only what was said, the text parts, each a paragraph of its own (what memories
    are extracted from: a tool's output is no one's statement, and a part's end ends what a colon
    introduced). A legacy line, ``{"role", "content"}``, is its content either way."""
    if message.get("parts") is None and isinstance(message.get("content"), str):
        return message["content"]
    chunks = []
    for part in stored_parts(message):
        if part.get("type") == "text" and isinstance(part.get("text"), str):
            chunks.append(part["text"])
        elif said_only:
            continue
        elif part.get("type") == "tool":
            output = part.get("tool_output")
            shown = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False) if output is not None else ""
            chunks.append(f"[tool {part.get('tool_name')} {part.get('tool_status', '')}] {shown}".strip())
        elif part.get("type") == "context":
            chunks.append(f"[context {part.get('uri')}]")
    return ("\n\n" if said_only else "\n").join(chunks)


# Words of courtesy and acknowledgement ("thanks", "You're welcome.", "ok go ahead", "Sure, will
# do!", "Morning Claude!"): a text made of these only says nothing a later question or the next
# session could use. Shared by the search (such messages filled a fifth of a prompt block's entries
# as evidence) and the session overview (they filled its sections: "Current State: You're welcome.").
COURTESY = frozenset(
    (
        "a", "afternoon", "again", "agreed", "ah", "ahead", "all", "alright", "am", "and", "any", "anything",
        "anytime", "appreciate", "appreciated", "are", "awesome", "be", "bye", "carry", "certainly", "cheers",
        "claude", "codex", "continue", "cool", "copilot", "could", "course",
        "cursor", "d", "do", "else", "evening", "exactly", "excellent", "fine",
        "for", "further", "gemini", "glad", "go", "good", "goodbye", "got", "great", "haha", "happy", "have",
        "hello", "help", "helped", "helpful", "helps", "hey", "hi", "hmm", "hope", "i", "id", "if", "ill",
        "im", "is", "it", "ive", "job", "just", "k", "kk", "know", "let", "lets", "lgtm", "ll", "lol",
        "looks", "lot", "makes", "me", "morning", "much", "my", "need", "nice", "night", "no", "nope",
        "noted", "now", "np", "of", "oh", "ok", "okay", "on", "oops", "opencode", "perfect",
        "please", "pleasure", "pls", "plz", "problem", "proceed", "question", "questions", "re", "right",
        "s", "sense", "so", "sorry", "sound", "sounds",
        "sure", "thank", "thanks", "that", "the", "then", "there", "thing",
        "this", "thx", "to", "too", "true", "ty", "tysm", "uh", "um", "understood", "ve", "very", "was",
        "welcome", "well", "will", "work", "works", "worries", "wow", "yeah", "yep", "yes", "you",
        "your", "youre", "yup",
    )
)
# What a tool's bare status says beside its name ("[tool apply_patch completed] Success."): nothing
# in a message, but "Done." is the last word of a session's overview.
_STATUS = frozenset(
    ("complete", "completed", "done", "failed", "finished", "pending", "running", "started", "succeeded", "success", "successful")
    + ("successfully", "worked")
)
# What a message says of how the work went, though its words are all courtesy ("it works now", "it
# failed"): an outcome, which the search keeps as evidence and a session's experience reads as the
# user's verdict (ov.sessions.memory.experience). "that works" agrees as often as it reports; both
# carry the answer to what was asked.
SUCCESS_SAID = re.compile(
    r"(?i)\b(?:(?:that|this|it|you)\s+(?:fixed|solved|resolved|did)\s+(?:it|the\b)|(?:that|this|it)\s+(?:works|worked|did\s+the\s+trick)|"
    r"works\s+now|working\s+now|(?:it's|it\s+is|that's|that\s+is)\s+(?:fixed|solved|working)|fixed\s+now|problem\s+solved|"
    r"(?:is|are)\s+(?:now\s+)?(?:gone|fixed|resolved)|went\s+away|"
    r"(?:all\s+)?(?:the\s+)?(?:tests?|ci|build|checks?)\s+(?:pass|passes|passed|are\s+passing|is\s+passing|is\s+green|are\s+green)\b)"
)
FAILURE_SAID = re.compile(
    r"(?i)\b(?:fail(?:s|ed|ing|ures?)?|broken|broke|errors?|crash(?:es|ed)?|regress(?:ed|ion)?|"
    r"(?:is|are|went|turned|goes|still|now|stays?)\s+red)\b"
)
_LETTERS = re.compile(r"[^\W\d_]+")
_TOOL_STATUS = re.compile(r"\[tool [^\]\s]+(?: [^\]\s]*)?\]")


# The longest text :func:`says_nothing` reads: courtesy and a tool's confirmation are a line or two
# (a Codex patch's list of a dozen files is under 1,000 characters). Past it a message says
# something, and reading all of a pasted 40 KB log to learn so cost a year-old account's prompt
# hook 0.3-0.6 s of its 1 s deadline, over every long message among the candidates.
COURTESY_CHARS = 2000


def courtesy_only(text: str, also: frozenset[str] = frozenset()) -> bool:
    """Whether ``text`` is made of :data:`COURTESY` words (and ``also``'s) only, numbers aside."""
    # finditer: the first word of content ends it, without splitting the rest into words
    return all(found.group() in COURTESY or found.group() in also for found in _LETTERS.finditer(text.lower()))


def says_nothing(text: str) -> bool:
    """Whether a message's text (:func:`message_text`) carries no content: only words of
    acknowledgement and tool status lines without what the tool did ("[tool shell pending]",
    "[tool apply_patch completed] Success."), or with a tool's word that it did what its call asked
    and where ("File created successfully at: /app/pricing.py", "The file app/tokens.py has been
    updated.", a shell's ``{"output": "", "metadata": {"exit_code": 0}}``). A tool line with its
    output ("[tool Bash completed] reformatted cart.py"), a number ("3 files") and an outcome ("it
    works now", "it failed": a tool's bare status is no one's word on it) carry content, and so
    does any text longer than :data:`COURTESY_CHARS`."""
    if len(text) > COURTESY_CHARS:
        return False
    rest = _TOOL_STATUS.sub(" ", text)
    also = _STATUS
    if rest != text:
        # A tool's result. Its confirmation of a write says what the call said already, and such
        # results, ranked on their session's words, crowded the session's conclusion out of a block.
        rest = _FILE_NAME.sub(" ", _EMPTY_RUN.sub(_unless_failed, rest))
        also = _STATUS | _CONFIRMS
    # The word test first: it stops at the first word of content, which most messages begin with.
    return courtesy_only(rest, also) and not (any(ch.isdigit() for ch in rest) or SUCCESS_SAID.search(rest) or FAILURE_SAID.search(rest))


# The words of a tool's confirmation that it wrote what it was asked to, paths aside (Claude Code's
# "File created successfully at:", Gemini CLI's "Successfully created and wrote to new file:",
# Codex's "Success. Updated the following files: M app.py").
_CONFIRMS = frozenset(
    ("a", "added", "and", "applied", "at", "been", "changes", "created", "d", "deleted", "edited", "file", "files")
    + ("following", "has", "have", "m", "modified", "new", "overwrote", "saved", "the", "to", "updated", "wrote", "written")
)
# A path or a file name in a tool's output: "/home/dev/app/x.py", "app/cart/", "pricing.py".
_FILE_NAME = re.compile(r"(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*|\b[\w-]+\.[A-Za-z]\w{0,7}\b")
# A shell's result as older Codex builds sent it, JSON with nothing on its output.
_EMPTY_RUN = re.compile(r'\{\s*"output"\s*:\s*"\s*"\s*(?:,\s*"metadata"\s*:\s*(\{[^{}]*\}))?\s*\}')
_EXIT_FAILED = re.compile(r'"exit_code"\s*:\s*(?!0\b)-?\d')


def _unless_failed(found: re.Match) -> str:
    """An empty run's JSON says nothing when its exit code is 0 (or not given); a failed one keeps it."""
    return found.group() if found.group(1) and _EXIT_FAILED.search(found.group(1)) else " "


# --- tool results that show a file as it was -------------------------------------------------

# The keys a tool call names its file by (Claude Code, Gemini CLI, OpenCode, Cursor).
_PATH_KEYS = ("file_path", "path", "filePath", "absolute_path", "notebook_path", "filename", "target_file")
# A tool that changes the files it names (Edit, Write, MultiEdit, write_file, replace, apply_patch, ...).
_CHANGES_FILES = re.compile(r"(?i)edit|write|replace|patch|create|delete|remove|move|rename")
_PATCH_FILE = re.compile(r"(?m)^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$")


def _files_of(tool_input: Any) -> list[str]:
    """The files a tool call's input names: its path fields, or the files a patch's text changes."""
    if isinstance(tool_input, dict):
        named = [tool_input[key] for key in _PATH_KEYS if isinstance(tool_input.get(key), str) and tool_input[key].strip()]
        patches = [value for value in tool_input.values() if isinstance(value, str) and "*** " in value]
        return named + [path for patch in patches for path in _PATCH_FILE.findall(patch)]
    return _PATCH_FILE.findall(tool_input) if isinstance(tool_input, str) else []


def _same_file(a: str, b: str) -> bool:
    """One file named twice, maybe once from the project root and once absolutely."""
    a, b = a.strip().removeprefix("./"), b.strip().removeprefix("./")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def superseded_reads(messages: list[Mapping[str, Any]]) -> dict[int, str]:
    """The messages (by index) that are tool results showing a file as it was before a later call
    of the same conversation changed it (a ``Read`` of ``tokens.py``, then an ``Edit`` of it), each
    with that file. Recalled, such a listing outranked the conclusion the session came to (it holds
    every word of the question) and told the agent what the code no longer says."""
    calls: dict[Any, tuple[str, list[str]]] = {}  # tool_id -> (tool name, files its call names)
    changed: list[tuple[int, str]] = []  # (message index, file) of each call that changes a file
    for i, message in enumerate(messages):
        for part in stored_parts(message):
            if part.get("type") != "tool" or "tool_input" not in part:
                continue
            name, files = str(part.get("tool_name", "")), _files_of(part["tool_input"])
            if part.get("tool_id") is not None:
                calls[part["tool_id"]] = (name, files)
            if _CHANGES_FILES.search(name):
                changed.extend((i, path) for path in files)
    out: dict[int, str] = {}
    for i, message in enumerate(messages):
        results = [p for p in stored_parts(message) if p.get("type") == "tool" and p.get("tool_status") in ("completed", "error")]
        texts = [p for p in stored_parts(message) if p.get("type") == "text" and str(p.get("text", "")).strip()]
        if not results or texts:
            continue
        stale = []
        for part in results:
            name, files = calls.get(part.get("tool_id"), (str(part.get("tool_name", "")), []))
            files = _files_of(part["tool_input"]) if "tool_input" in part else files
            later = [path for path in files for j, changed_path in changed if j > i and _same_file(path, changed_path)]
            if not later or _CHANGES_FILES.search(name):
                break
            stale.append(later[0])
        else:
            out[i] = stale[0]
    return out
