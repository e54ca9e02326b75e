"""Sessions: the messages of one agent conversation, captured turn by turn.

A session lives at ``viking://user/{uid}/sessions/{sid}/``::

    messages.jsonl          live (not yet archived) messages, one JSON object per line
    .meta.json              counts, pending tokens, commit count, token usage, used URIs
    history/archive_NNN/    what each `ov commit` archived (see ov.sessions.commit)
    history/.archived_ids.jsonl  the ids of every archived message, one line per archive

Adding a message appends one line to ``messages.jsonl`` (the work-tree file is
appended to, not rewritten) and is one git commit. A message may carry its own
id; adding an id the session already holds is a no-op, so a host can retry a
capture safely. Secrets are redacted before anything is written.

The forms a message may arrive in (ov's own, Anthropic blocks, OpenAI chat) and
how they are validated live in :mod:`ov.sessions.messages`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ov.errors import AlreadyExists, InvalidId, NotFound, RecordDamaged, proposal
from ov.files import atomic_write, json_bytes
from ov.identity import validate_id
from ov.sessions import live
from ov.sessions.messages import (  # noqa: F401 - the message API is re-exported for callers of ov.sessions.session
    PART_TYPES,
    ROLES,
    TOOL_STATUSES,
    UNKNOWN_TOOL,
    message_text,
    normalise_message,
    normalise_messages,
    now_iso,
    parse_messages,
    stored_parts,
    tool_call_names,
)
from ov.store import sidecar
from ov.store.store import CommitResult, Store
from ov.uri import VikingURI, is_stored_segment

MESSAGES = sidecar.MESSAGES
META = sidecar.SESSION_META
# Ids of archived messages kept in .meta.json, where every add reads them; the older ones are
# looked up in history/.archived_ids.jsonl only when an add brings an id not among these.
ARCHIVED_IDS_KEPT = 2000
# The fields of .meta.json the session commands compute with, by what each must hold.
_META_COUNTS = ("message_count", "total_message_count", "pending_tokens", "commit_count", "archived_count")
_META_TIMES = ("created_at", "updated_at", "last_message_at", "last_commit_at")
_META_IDS = ("live_ids", "archived_ids")
_META_TALLIES = ("llm_token_usage", "memories_extracted")
# The archives `ov commit` names in extraction_pending: a name read from a hand-edited meta goes into a path.
_ARCHIVE_NAME_RE = re.compile(rf"{sidecar.ARCHIVE_PREFIX}\d{{3,}}")
# Not `ov mv`: a folder under sessions/ holding a messages.jsonl is refused by it (ov's own record).
LIST_SESSIONS = f"list sessions with {proposal('ls', uri='viking://~/sessions')}"
_NOT_A_SESSION = "a folder under sessions/ without .meta.json is no session: remove it with `ov rm -r` (`ov snapshot restore` brings back a .meta.json it had)"


@dataclass(frozen=True)
class AddResult:
    """What adding messages to a session added, skipped as duplicates, and redacted."""

    session_uri: str  # the JSON gives its id as `session` and the URI as `uri` (session_fields)
    added: list[str]
    duplicates: list[str]
    redacted: int
    commit: str | None

    def to_dict(self) -> dict:
        return {
            **session_fields(self.session_uri),
            "added": self.added,
            "duplicates": self.duplicates,
            "redacted": self.redacted,
            "commit": self.commit,
            "changed": self.commit is not None,
        }


def session_fields(uri: str) -> dict[str, str]:
    """How every result names a session: ``session``, its id, and ``uri``."""
    return {"session": uri.rstrip("/").rsplit("/", 1)[-1], "uri": uri}


def session_uri(store: Store, session_id: str) -> VikingURI:
    try:
        validate_id(session_id, "session")
    except InvalidId:
        # An older ov made session ids starting with '.' (`session new --id .hidden`): one that is
        # there is shown, added to and deleted by its id; ov makes no new one.
        if not (session_id.startswith(".") and session_id.strip(".") and is_stored_segment(session_id)):
            raise
        validate_id(session_id.lstrip("."), "session")
        uri = VikingURI(("user", store.identity.user, "sessions", session_id))
        if not store.path(uri).is_dir():
            raise
        return uri
    return VikingURI(("user", store.identity.user, "sessions", session_id))


def new_session_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + os.urandom(3).hex()


# --- operations ------------------------------------------------------------------------


def create(store: Store, session_id: str | None = None, *, peer: str | None = None) -> CommitResult:
    sid = session_id or new_session_id()
    uri = session_uri(store, sid)
    with store.transaction() as tx:
        if _is_session(store, uri):
            raise AlreadyExists(f"session {sid} already exists", hint=f"see it with `ov session show {sid}`")
        if store.path(uri).exists():
            raise AlreadyExists(f"{uri} already exists and is not a session (it has no {META})", hint=_NOT_A_SESSION)
        tx.put(VikingURI((*uri.parts, META)), json_bytes(_new_meta(sid, store, peer)))
        tx.put(VikingURI((*uri.parts, MESSAGES)), b"")
        return tx.commit("session new", [uri])


def add_messages(store: Store, session_id: str, raw_messages: list[Any], *, resent: bool = True) -> AddResult:
    """Append messages (validated and redacted first); create the session if it does not exist.

    ``resent``: the messages may repeat ones the session archived long ago (a host that sends its
    whole conversation, a transcript read from its start). A capture that reads on from where the
    previous one stopped passes False: what it brings is newer than anything the session's commits
    archived, but the last one's ids, which .meta.json always keeps, so the complete record of
    archived ids is not read."""
    from ov.redact.engine import redact_value
    from ov.redact.recurring import Removed, state_path
    from ov.store import group_commit
    from ov.tokens import estimate_tokens  # noqa: F401 - imported before the lock: other writers wait while it holds

    session_uri(store, session_id)  # a bad id is refused before anything else
    messages = normalise_messages(raw_messages, peer=store.identity.peer)  # all or nothing
    # A value taken out of one message goes wherever a later one repeats it without the words
    # that gave it away (the agent's Edit of `.env` after "the new db password is ...").
    removed_path = state_path(store.state, store.identity.user, session_id)
    known = Removed(_read_json(removed_path))
    redacted = 0
    for message in messages:
        removed: list[str] = []
        message["parts"], count = redact_value(message["parts"], known=known.find(message["parts"]), removed=removed)
        message["id"], id_count = _redact_id(message["id"])
        redacted += count + id_count
        known.add(removed)
    if known.changed:
        _write_json(store, removed_path, known.to_state())
    args = {"session_id": session_id, "messages": messages, "redacted": redacted, "resent": resent}
    return group_commit.run(store, "session.add", args, lambda data: AddResult(**data))


def locked_add(store: Store, session_id: str, messages: list[dict], redacted: int, resent: bool = True) -> AddResult:
    """The locked step of :func:`add_messages`: ``messages`` are validated and redacted already."""
    from ov.tokens import estimate_tokens

    uri = session_uri(store, session_id)
    peer = store.identity.peer
    with store.transaction() as tx:
        meta_uri = VikingURI((*uri.parts, META))
        messages_uri = VikingURI((*uri.parts, MESSAGES))
        meta_bytes = tx.existing_file(meta_uri)
        meta = load_meta(meta_bytes, meta_uri) if meta_bytes is not None else _new_meta(session_id, store, peer)
        current = tx.existing_file(messages_uri) or b""
        if "live_ids" not in meta:  # written by an older ov: learn the ids once from the file
            meta["live_ids"] = [m.get("id") for m in parse_messages(current)]
        _name_results(messages, current)
        # Ids come from the meta file, not by parsing every stored line: a hook pays for this each turn.
        known = set(meta["live_ids"]) | set(meta.get("archived_ids", []))
        rebuilt = None
        behind = record_behind(meta)
        if resent and (behind or len(meta.get("archived_ids", [])) < archived_count(meta)) and any(m["id"] not in known for m in messages):
            # The window in .meta.json lost the oldest archived ids, and a host that resends the
            # whole conversation (OpenCode's plugin) or a capture that reads it again from the start
            # would add those messages again: they are looked up in the complete record. An older
            # ov's commits since the last of this ov's (`behind`) are in no record yet: the record
            # is completed from their archives now, once, and the count set right.
            record, is_rebuilt = read_archived_ids(store, tx, uri)
            known |= archived_ids_in(record)
            rebuilt = record if is_rebuilt else None
        added, duplicates, lines = [], [], []
        for message in messages:
            if message["id"] in known:
                duplicates.append(message["id"])
                continue
            known.add(message["id"])
            added.append(message["id"])
            lines.append(json.dumps(message, ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n")
        if not added:
            return AddResult(str(uri), [], duplicates, redacted, None)
        if current and not current.endswith(b"\n"):
            current += b"\n"
        tx.append(messages_uri, current, "".join(lines).encode("utf-8"))
        if rebuilt is not None:  # committed by an older ov, which kept no record: kept from now on
            tx.put(archived_ids_uri(uri), rebuilt)
            meta["archived_count"] = archived_count(meta)
        elif behind:  # the record was complete after all (the counts are off by lines no reader takes)
            meta["archived_count"] = archived_count(meta)
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


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(store: Store, path: Path, data: dict) -> None:
    try:
        store.home.ensure(path.parent)
        atomic_write(path, json_bytes(data), mode=0o600)
    except OSError:
        pass  # a later repeat of a value goes unrecognised; the message itself was redacted


def archived_ids_uri(uri: VikingURI) -> VikingURI:
    return VikingURI((*uri.parts, sidecar.HISTORY, sidecar.ARCHIVED_IDS))


def archived_count(meta: dict) -> int:
    """How many messages the session's commits archived. Every message added and no longer live
    was archived; the meta's ``archived_count`` says so too, but an older ov's commit (before the
    count and the record) moved messages out of the live file and left the count as it was: the
    larger of the two."""
    derived = max(meta.get("total_message_count", 0) - meta.get("message_count", 0), 0)
    stored = meta.get("archived_count")
    return max(stored, derived) if isinstance(stored, int) else derived


def record_behind(meta: dict) -> bool:
    """Whether an older ov committed the session since this ov last counted its archives (main →
    older ov → main): the record of archived ids lacks that ov's archives, and the window in
    .meta.json may hold too few ids for :func:`archived_count` to say so."""
    stored = meta.get("archived_count")
    return isinstance(stored, int) and archived_count(meta) > stored


def archived_ids_line(archive: str, ids: list) -> bytes:
    """The record's line for one archive: its folder's name and the ids it holds."""
    return (json.dumps({"archive": archive, "ids": ids}, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")


def read_archived_ids(store: Store, tx, uri: VikingURI) -> tuple[bytes, bool]:
    """The session's record of archived ids (``history/.archived_ids.jsonl``), and whether it had
    to be completed from the archives themselves: a session committed by an older ov has no
    record, or one that lacks the archives that ov made after this ov's last commit."""
    return _complete_record(store, uri, tx.existing_file)


def stored_archived_ids(store: Store, uri: VikingURI) -> set:
    """The ids of every message the session archived, read outside a transaction: its record,
    completed as :func:`read_archived_ids` does (nothing written). FileNotFoundError when the
    session has no record at all (only an older ov committed it)."""

    def read(file: VikingURI) -> bytes | None:
        try:
            return store.path(file).read_bytes()
        except FileNotFoundError:
            return None

    if read(archived_ids_uri(uri)) is None:
        raise FileNotFoundError(archived_ids_uri(uri))
    return archived_ids_in(_complete_record(store, uri, read)[0])


def missing_archives(record: bytes, archives) -> list[str]:
    """The names among ``archives`` (a session's ``history/archive_*`` folders) that ``record``
    has no line for, in order."""
    named = set()
    for line in record.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("archive"), str):
            named.add(entry["archive"])
    return sorted(name for name in archives if name not in named)


def _complete_record(store: Store, uri: VikingURI, read) -> tuple[bytes, bool]:
    record = read(archived_ids_uri(uri))
    history = store.path(VikingURI((*uri.parts, sidecar.HISTORY)))
    try:
        names = [p.name for p in history.iterdir() if p.is_dir() and p.name.startswith(sidecar.ARCHIVE_PREFIX)]
    except OSError:
        names = []
    missing = missing_archives(record or b"", names)
    if record is not None and not missing:
        return record, False
    lines = []
    for name in missing:
        archived = read(VikingURI((*uri.parts, sidecar.HISTORY, name, MESSAGES))) or b""
        lines.append(archived_ids_line(name, [m.get("id") for m in parse_messages(archived)]))
    if record and not record.endswith(b"\n"):
        record += b"\n"
    return (record or b"") + b"".join(lines), True


def archived_ids_in(record: bytes) -> set:
    ids: set = set()
    for line in record.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue  # a line damaged by hand: the archives still hold its ids
        if isinstance(entry, dict) and isinstance(entry.get("ids"), list):
            ids.update(i for i in entry["ids"] if isinstance(i, str))
    return ids


def _redact_id(message_id: str) -> tuple[str, int]:
    """The id to store for ``message_id``, and 1 if it held a secret (else the id itself and 0).

    An id that holds a secret is replaced by ``redacted-`` and a SHA-256 digest of it. Ids
    de-duplicate repeated captures, so the replacement must be the same each time the same id
    comes back, and different for different ids: a bare marker would make every such id equal,
    and each later message would be dropped as a "duplicate" of the first. The digest keeps a
    retried capture a no-op and cannot be read back into the secret (a guessable password used
    as an id could be confirmed by hashing guesses; hosts do not put secrets in ids, the point is
    that the text never reaches disk).
    """
    from ov.redact.engine import redact

    _, count = redact(message_id)
    if not count:
        return message_id, 0
    return "redacted-" + hashlib.sha256(message_id.encode("utf-8")).hexdigest()[:32], 1


def _name_results(messages: list[dict], stored: bytes) -> None:
    """Name the tools of results whose call was captured by an earlier add (an ``unknown`` name).

    Looks for the call's ``"tool_id": ...`` in the live messages' bytes, newest first, and parses
    only the lines that hold it (add_messages writes lines with json.dumps' default separators).
    """
    for message in messages:
        for part in message["parts"]:
            if part["type"] != "tool" or part["tool_name"] != UNKNOWN_TOOL or "tool_id" not in part:
                continue
            needle = b'"tool_id": ' + json.dumps(part["tool_id"], ensure_ascii=False).encode("utf-8")
            end = len(stored)
            while (at := stored.rfind(needle, 0, end)) != -1:
                start = stored.rfind(b"\n", 0, at) + 1
                stop = stored.find(b"\n", at)
                line = stored[start : stop if stop != -1 else len(stored)] + b"\n"
                name = next((n for m in parse_messages(line) if (n := tool_call_names(m).get(part["tool_id"]))), None)
                if name:
                    part["tool_name"] = name
                    break
                end = start


def record_used(store: Store, session_id: str, uris: list[str]) -> CommitResult:
    """Note which URIs helped in this session (ranking signals later)."""
    canonical = [str(store.uri(u)) for u in uris]
    uri = session_uri(store, session_id)
    meta_uri = VikingURI((*uri.parts, META))
    store.require_before_lock(meta_uri, no_session(session_id))  # a mistyped account: no trace of it
    with store.transaction() as tx:
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
    if not _is_session(store, uri):
        hint = _NOT_A_SESSION if store.path(uri).exists() else LIST_SESSIONS
        raise NotFound(f"session {session_id} does not exist", hint=hint)
    marked = live.live_mark_state(store, session_id)
    result = store.rm(uri, recursive=True)
    # Nothing of it is left to commit: the sweep would take it for a session no host ended, and
    # a mark held for its subagents' results would bring back a session the user deleted.
    live.settle_committed(store, session_id, marked, keep_held=False)
    return result


def _is_session(store: Store, uri: VikingURI) -> bool:
    """Whether the folder at ``uri`` is a session: one holding a ``.meta.json``, damaged or not
    (what `ov session list`, `show` and `ov commit` go by)."""
    return (store.path(uri) / META).is_file()


def list_sessions(store: Store) -> list[dict]:
    """The user's sessions, most recently active first: the folders under sessions/ that hold a
    ``.meta.json``, as `ov commit` and `ov session show` find them. One whose meta is damaged is
    listed with ``damaged`` saying what is wrong (``ov session show`` says what to do)."""
    base = VikingURI(("user", store.identity.user, "sessions"))
    path = store.path(base)
    if not path.is_dir():
        return []
    out = []
    for child in store.entries(base, show_all=False):
        if not child.entry.is_dir:
            continue
        try:
            meta = read_meta(store, child.entry.name)
        except InvalidId:
            continue  # a folder no session command can name
        except RecordDamaged as exc:
            out.append({**_summary({}, child.entry.name, str(child.uri)), "damaged": exc.problem})
            continue
        if meta is not None:
            out.append({**_summary(meta, child.entry.name, str(child.uri)), "damaged": None})
    out.sort(key=lambda s: s.get("updated_at") or "", reverse=True)
    return out


def show(store: Store, session_id: str, *, last: int | None = None) -> dict:
    uri = session_uri(store, session_id)
    meta = read_meta(store, session_id)
    if meta is None:
        raise no_session(session_id)
    messages = read_messages(store, session_id)
    archives = []
    history = store.path(VikingURI((*uri.parts, sidecar.HISTORY)))
    if history.is_dir():
        archives = sorted(p.name for p in history.iterdir() if p.is_dir() and p.name.startswith(sidecar.ARCHIVE_PREFIX))
    return {
        **_summary(meta, session_id, str(uri)),
        "meta": meta,
        "archives": [f"{uri}/history/{name}" for name in archives],
        "messages": messages[-last:] if last else messages,
    }


def read_meta(store: Store, session_id: str) -> dict | None:
    """The session's ``.meta.json``; None when the session does not exist (a folder under
    sessions/ without one is no session); :class:`RecordDamaged` when it is damaged."""
    meta_uri = VikingURI((*session_uri(store, session_id).parts, META))
    try:
        data = store.path(meta_uri).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except IsADirectoryError:
        raise _damaged(meta_uri, "it is a directory, not a file") from None
    return load_meta(data, meta_uri)


def load_meta(data: bytes, meta_uri: VikingURI) -> dict:
    """A session's ``.meta.json`` as read from ``meta_uri``, checked to hold what the session
    commands compute with: a hand edit or a folder moved in by an older ov made `ov commit` and
    `ov session add` fail in the middle with an internal error."""
    try:
        meta = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError too
        problem: str | None = f"not valid JSON ({exc})"
    else:
        problem = _meta_problem(meta)
    if problem is not None:
        raise _damaged(meta_uri, problem)
    return meta


def _meta_problem(meta: Any) -> str | None:
    if not isinstance(meta, dict):
        return "not a JSON object"
    for key in _META_COUNTS:
        if key in meta and not _is_count(meta[key]):
            return f"{key} is not a count"
    for key in _META_TIMES:
        if meta.get(key) is not None and not isinstance(meta[key], str):
            return f"{key} is not a time"
    for key in _META_IDS:
        if key in meta and not (isinstance(meta[key], list) and all(i is None or isinstance(i, str) for i in meta[key])):
            return f"{key} is not a list of message ids"
    for key in _META_TALLIES:
        if key in meta and not (isinstance(meta[key], dict) and all(_is_count(n) for n in meta[key].values())):
            return f"{key} is not an object of counts"
    pending = meta.get("extraction_pending", [])
    if not (isinstance(pending, list) and all(isinstance(n, str) and _ARCHIVE_NAME_RE.fullmatch(n) for n in pending)):
        return "extraction_pending is not a list of archive names"
    used = meta.get("used", [])
    if not (isinstance(used, list) and all(isinstance(e, dict) and isinstance(e.get("uri"), str) and _is_count(e.get("count")) for e in used)):
        return "used is not a list of {uri, count} entries"
    peer = meta.get("peer")
    if peer is not None:
        try:
            validate_id(peer if isinstance(peer, str) else "", "peer")
        except InvalidId:
            return "peer is not a peer id"
    return None


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _damaged(meta_uri: VikingURI, problem: str) -> RecordDamaged:
    session_id = meta_uri.parts[3]
    return RecordDamaged(
        meta_uri,
        problem,
        hint=(
            f"fix it in the work tree and record that with `ov snapshot commit -m MESSAGE`, bring back an earlier version"
            f" with `ov snapshot restore REV --uri {meta_uri}` (`ov snapshot log --uri {meta_uri}` lists them),"
            f" or remove the session with `ov session delete {session_id}`"
        ),
    )


def read_messages(store: Store, session_id: str) -> list[dict]:
    path = store.path(session_uri(store, session_id)) / MESSAGES
    try:
        return parse_messages(path.read_bytes())
    except OSError:
        return []


def _require_meta(tx, meta_uri: VikingURI, session_id: str) -> dict:
    data = tx.existing_file(meta_uri)
    if data is None:
        raise no_session(session_id)
    return load_meta(data, meta_uri)


def no_session(session_id: str) -> NotFound:
    """The error for a session ov does not hold, with a way to list those it does that both
    edges have (`ov session list` is the command line's alone)."""
    return NotFound(f"session {session_id} does not exist", hint=LIST_SESSIONS)


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


def _summary(meta: dict, session_id: str, uri: str) -> dict:
    # The folder's name, not the meta's "session_id": it is what `ov commit` and `show` take.
    return {
        "session": session_id,
        "uri": uri,
        "peer": meta.get("peer"),
        "messages": meta.get("message_count", 0),
        "total_messages": meta.get("total_message_count", 0),
        "commits": meta.get("commit_count", 0),
        "pending_tokens": meta.get("pending_tokens", 0),
        # Archives whose memories a failed extraction left for the next commit to extract.
        "extraction_pending": meta.get("extraction_pending", []),
        "updated_at": meta.get("updated_at"),
    }
