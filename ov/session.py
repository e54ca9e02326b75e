"""Sessions: the messages of one agent conversation, captured turn by turn.

A session lives at ``viking://user/{uid}/sessions/{sid}/``::

    messages.jsonl          live (not yet archived) messages, one JSON object per line
    .meta.json              counts, pending tokens, commit count, token usage, used URIs
    history/archive_NNN/    what each `ov commit` archived (see ov.session_commit)

Adding a message appends one line to ``messages.jsonl`` (the work-tree file is
appended to, not rewritten) and is one git commit. A message may carry its own
id; adding an id the session already holds is a no-op, so a host can retry a
capture safely. Secrets are redacted before anything is written.

Messages are validated by hand rather than with pydantic: this runs in a hook
on every turn, and pydantic costs ~100 ms to import and build.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ov.errors import AlreadyExists, InvalidInput, NotFound
from ov.files import json_bytes
from ov.identity import validate_id
from ov.store import CommitResult, Store
from ov.uri import VikingURI

ROLES = ("user", "assistant", "system", "tool")
PART_TYPES = ("text", "tool", "context")
TOOL_STATUSES = ("pending", "running", "completed", "error")
MESSAGES = "messages.jsonl"
META = ".meta.json"
# Ids of archived messages remembered for de-duplication (a retried capture after a commit).
ARCHIVED_IDS_KEPT = 2000


@dataclass(frozen=True)
class AddResult:
    session: str
    added: list[str]
    duplicates: list[str]
    redacted: int
    commit: str | None

    def to_dict(self) -> dict:
        return {
            "session": self.session,
            "added": self.added,
            "duplicates": self.duplicates,
            "redacted": self.redacted,
            "commit": self.commit,
            "changed": self.commit is not None,
        }


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def session_uri(store: Store, session_id: str) -> VikingURI:
    validate_id(session_id, "session")
    return VikingURI(("user", store.identity.user, "sessions", session_id))


def new_session_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


# --- messages ------------------------------------------------------------------------


def normalise_message(raw: Any, *, peer: str | None = None) -> dict:
    """Validate one message (``{"role", "text"}`` or ``{"role", "parts"}``, optional ``id``,
    ``created_at``, ``peer``) and return its stored form."""
    if not isinstance(raw, dict):
        raise InvalidInput(f"a message must be a JSON object, not {type(raw).__name__}")
    role = raw.get("role")
    if role not in ROLES:
        raise InvalidInput(f"unknown role {role!r}", hint=f"roles are: {', '.join(ROLES)}")
    parts = raw.get("parts")
    text = raw.get("text", raw.get("content"))
    if parts is None:
        if not isinstance(text, str):
            raise InvalidInput("a message needs `text` (a string) or `parts` (a list)")
        parts = [{"type": "text", "text": text}]
    elif text is not None:
        raise InvalidInput("give a message either `text` or `parts`, not both")
    if not isinstance(parts, list) or not parts:
        raise InvalidInput("`parts` must be a non-empty list")
    message = {
        "id": _message_id(raw.get("id")),
        "role": role,
        "parts": [_normalise_part(p, i) for i, p in enumerate(parts)],
        "created_at": _timestamp(raw.get("created_at")),
    }
    message_peer = raw.get("peer", raw.get("peer_id", peer))
    if message_peer is not None:
        message["peer"] = validate_id(str(message_peer), "peer")
    return message


def _normalise_part(part: Any, index: int) -> dict:
    if not isinstance(part, dict):
        raise InvalidInput(f"part {index} must be a JSON object")
    kind = part.get("type")
    if kind == "text":
        if not isinstance(part.get("text"), str):
            raise InvalidInput(f"part {index}: a text part needs `text` (a string)")
        return {"type": "text", "text": part["text"]}
    if kind == "tool":
        name = part.get("tool_name")
        if not isinstance(name, str) or not name:
            raise InvalidInput(f"part {index}: a tool part needs `tool_name`")
        status = part.get("tool_status", "completed")
        if status not in TOOL_STATUSES:
            raise InvalidInput(f"part {index}: tool_status {status!r} is not one of {', '.join(TOOL_STATUSES)}")
        out = {"type": "tool", "tool_name": name, "tool_status": status}
        for key in ("tool_id", "tool_input", "tool_output", "duration_ms"):
            if key in part:
                out[key] = part[key]
        return out
    if kind == "context":
        uri = part.get("uri")
        if not isinstance(uri, str) or not uri.startswith("viking://"):
            raise InvalidInput(f"part {index}: a context part needs a viking:// `uri`")
        out = {"type": "context", "uri": uri}
        for key in ("context_type", "abstract"):
            if isinstance(part.get(key), str):
                out[key] = part[key]
        return out
    raise InvalidInput(f"part {index}: unknown type {kind!r}", hint=f"part types are: {', '.join(PART_TYPES)}")


def _message_id(value: Any) -> str:
    if value is None:
        return "msg_" + secrets.token_hex(8)
    if not isinstance(value, str) or not value or len(value) > 128 or any(ch in value for ch in "\n\r\t"):
        raise InvalidInput(f"invalid message id {value!r}")
    return value


def _timestamp(value: Any) -> str:
    if value is None:
        return now_iso()
    if not isinstance(value, str):
        raise InvalidInput(f"created_at must be an ISO 8601 string, not {value!r}")
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"created_at {value!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def message_text(message: dict) -> str:
    """The human-readable text of a message (text parts, tool names and outputs, context URIs)."""
    chunks = []
    for part in message.get("parts", []):
        if part.get("type") == "text":
            chunks.append(part["text"])
        elif part.get("type") == "tool":
            output = part.get("tool_output")
            shown = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False) if output is not None else ""
            chunks.append(f"[tool {part.get('tool_name')} {part.get('tool_status', '')}] {shown}".strip())
        elif part.get("type") == "context":
            chunks.append(f"[context {part.get('uri')}]")
    return "\n".join(chunks)


def parse_messages(data: bytes) -> list[dict]:
    """Messages of a ``messages.jsonl``; an unterminated last line (an append in progress) is skipped."""
    out = []
    text = data.decode("utf-8")
    lines = text.split("\n")
    if lines and lines[-1] != "":
        lines = lines[:-1]
    for line in lines:
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


# --- operations ------------------------------------------------------------------------


def create(store: Store, session_id: str | None = None, *, peer: str | None = None) -> CommitResult:
    sid = session_id or new_session_id()
    uri = session_uri(store, sid)
    with store.transaction() as tx:
        if store.path(uri).exists():
            raise AlreadyExists(f"session {sid} already exists", hint=f"see it with `ov session show {sid}`")
        tx.put(VikingURI((*uri.parts, META)), json_bytes(_new_meta(sid, store, peer)))
        tx.put(VikingURI((*uri.parts, MESSAGES)), b"")
        return tx.commit("session new", [uri])


def add_messages(store: Store, session_id: str, raw_messages: list[Any]) -> AddResult:
    """Append messages (validated and redacted first); create the session if it does not exist."""
    from ov.redact import redact_value

    uri = session_uri(store, session_id)
    peer = store.identity.peer
    messages = [normalise_message(m, peer=peer) for m in raw_messages]  # all or nothing
    redacted = 0
    for message in messages:
        message["parts"], count = redact_value(message["parts"])
        redacted += count
    with store.transaction() as tx:
        meta_uri = VikingURI((*uri.parts, META))
        messages_uri = VikingURI((*uri.parts, MESSAGES))
        meta_bytes = tx.existing_file(meta_uri)
        meta = json.loads(meta_bytes) if meta_bytes else _new_meta(session_id, store, peer)
        current = tx.existing_file(messages_uri) or b""
        if "live_ids" not in meta:  # written by an older ov: learn the ids once from the file
            meta["live_ids"] = [m.get("id") for m in parse_messages(current)]
        # Ids come from the meta file, not by parsing every stored line: a hook pays for this each turn.
        known = set(meta["live_ids"]) | set(meta.get("archived_ids", []))
        added, duplicates, lines = [], [], []
        for message in messages:
            if message["id"] in known:
                duplicates.append(message["id"])
                continue
            known.add(message["id"])
            added.append(message["id"])
            lines.append(json.dumps(message, ensure_ascii=False, sort_keys=True) + "\n")
        if not added:
            return AddResult(str(uri), [], duplicates, redacted, None)
        if current and not current.endswith(b"\n"):
            current += b"\n"
        tx.append(messages_uri, current, "".join(lines).encode("utf-8"))
        from ov.tokens import estimate_tokens

        meta["live_ids"] = meta["live_ids"] + added
        meta["message_count"] = meta.get("message_count", 0) + len(added)
        meta["total_message_count"] = meta.get("total_message_count", 0) + len(added)
        fresh = set(added)
        meta["pending_tokens"] = meta.get("pending_tokens", 0) + sum(
            estimate_tokens(message_text(m)) for m in messages if m["id"] in fresh
        )
        meta["updated_at"] = meta["last_message_at"] = now_iso()
        tx.put(meta_uri, json_bytes(meta))
        commit = tx.commit("session add", [uri])
    return AddResult(str(uri), added, duplicates, redacted, commit.commit)


def record_used(store: Store, session_id: str, uris: list[str]) -> CommitResult:
    """Note which URIs helped in this session (ranking signals later)."""
    canonical = [str(store.uri(u)) for u in uris]
    uri = session_uri(store, session_id)
    with store.transaction() as tx:
        meta_uri = VikingURI((*uri.parts, META))
        meta = _require_meta(tx, meta_uri, session_id)
        used = {entry["uri"]: entry for entry in meta.get("used", [])}
        stamp = now_iso()
        for item in canonical:
            entry = used.setdefault(item, {"uri": item, "count": 0, "first_at": stamp})
            entry["count"] += 1
            entry["last_at"] = stamp
        meta["used"] = sorted(used.values(), key=lambda e: e["uri"])
        meta["updated_at"] = stamp
        tx.put(meta_uri, json_bytes(meta))
        return tx.commit("session used", [uri, *[store.uri(u) for u in canonical]])


def delete(store: Store, session_id: str) -> CommitResult:
    uri = session_uri(store, session_id)
    if not store.path(uri).is_dir():
        raise NotFound(f"session {session_id} does not exist", hint="list sessions with `ov session list`")
    return store.rm(uri, recursive=True)


def list_sessions(store: Store) -> list[dict]:
    base = VikingURI(("user", store.identity.user, "sessions"))
    path = store.path(base)
    if not path.is_dir():
        return []
    out = []
    for child in store.entries(base, show_all=False):
        if not child.entry.is_dir:
            continue
        meta = read_meta(store, child.entry.name) or {"session_id": child.entry.name}
        out.append(_summary(meta, str(child.uri)))
    out.sort(key=lambda s: s.get("updated_at") or "", reverse=True)
    return out


def show(store: Store, session_id: str, *, last: int | None = None) -> dict:
    uri = session_uri(store, session_id)
    meta = read_meta(store, session_id)
    if meta is None:
        raise NotFound(f"session {session_id} does not exist", hint="list sessions with `ov session list`")
    messages = read_messages(store, session_id)
    archives = []
    history = store.path(VikingURI((*uri.parts, "history")))
    if history.is_dir():
        archives = sorted(p.name for p in history.iterdir() if p.is_dir() and p.name.startswith("archive_"))
    return {
        **_summary(meta, str(uri)),
        "meta": meta,
        "archives": [f"{uri}/history/{name}" for name in archives],
        "messages": messages[-last:] if last else messages,
    }


def read_meta(store: Store, session_id: str) -> dict | None:
    path = store.path(session_uri(store, session_id)) / META
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def read_messages(store: Store, session_id: str) -> list[dict]:
    path = store.path(session_uri(store, session_id)) / MESSAGES
    try:
        return parse_messages(path.read_bytes())
    except OSError:
        return []


def _require_meta(tx, meta_uri: VikingURI, session_id: str) -> dict:
    data = tx.existing_file(meta_uri)
    if data is None:
        raise NotFound(f"session {session_id} does not exist", hint="list sessions with `ov session list`")
    return json.loads(data)


def _new_meta(session_id: str, store: Store, peer: str | None) -> dict:
    stamp = now_iso()
    return {
        "version": 1,
        "session_id": session_id,
        "user": store.identity.user,
        "peer": peer,
        "created_at": stamp,
        "updated_at": stamp,
        "last_message_at": None,
        "last_commit_at": None,
        "message_count": 0,
        "total_message_count": 0,
        "pending_tokens": 0,
        "commit_count": 0,
        "llm_token_usage": {"prompt": 0, "completion": 0},
        "memories_extracted": {},
        "used": [],
        "live_ids": [],
        "archived_ids": [],
    }


def _summary(meta: dict, uri: str) -> dict:
    return {
        "session": meta.get("session_id"),
        "uri": uri,
        "peer": meta.get("peer"),
        "messages": meta.get("message_count", 0),
        "total_messages": meta.get("total_message_count", 0),
        "commits": meta.get("commit_count", 0),
        "pending_tokens": meta.get("pending_tokens", 0),
        "updated_at": meta.get("updated_at"),
    }
