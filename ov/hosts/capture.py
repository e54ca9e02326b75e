"""Capturing a host's turns into its ov session, incrementally and idempotently.

A capture reads the host's transcript from the offset where the previous capture of that
session stopped (``state/{account}/hooks/capture/{session}.json``), turns the new lines into
messages (the host module decides what is conversation), and adds them to the ov session in
one commit. Each message has a stable id, and a session never stores an id twice, so a capture
that runs twice, or two that overlap, store every message once. A host without a transcript
sends the turn in the hook input itself (Gemini's turn end, OpenCode's plugin).

Each capture also marks the session live (:mod:`ov.sessions.live`, its mtime the last capture):
the next session start commits sessions whose host never ended them.
The state is derived: losing it makes the next capture read the transcript from the start and
store nothing twice. So a session start also removes the state of sessions committed since
their last capture and idle ``hooks.orphan_after`` (:func:`prune_states`). A capture that finds
the session without the last message a capture stored in it (a restore of the store rolled the
session back past it) reads from the start the same way.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ov.errors import InvalidInput
from ov.files import atomic_write, json_bytes, untouched_for
from ov.hosts.transcript import LineCounts
from ov.names import TEMP_MARKER
from ov.regex import LazyPattern
from ov.sessions.live import (  # noqa: F401  (the hooks' modules use the live marks through here)
    OWN_PEER,
    Mark,
    clear_live,
    live_dir,
    live_folder,
    live_mark_state,
    live_sessions,
    mark_live,
    read_mark,
    session_peer,
    settle_committed,
)

if TYPE_CHECKING:
    from ov.hosts.host import Awaited

_LONE_SURROGATE = LazyPattern("[\ud800-\udfff]")
# How long after a subagent was started its parent's session stays live for its result: a day,
# well past Codex's unloading of an idle thread (~30 minutes), which ends its subagents.
AWAIT_LIMIT = 24 * 3600.0


@dataclass
class Captured:
    """What one capture added to a session from a host's transcript."""

    added: int = 0
    duplicates: int = 0
    dropped: int = 0  # messages the session refused (malformed in the transcript)
    commit: str | None = None


def state_dir(store) -> Path:
    return store.state / "hooks"


def state_file(state: Path, session_id: str) -> Path:
    """Where the last capture of a session noted how far it read, in an account's state folder."""
    return state / "hooks" / "capture" / f"{session_id}.json"


def capture(store, host, hook, session_id: str) -> Captured:
    """Add what the transcript (or the hook input) holds beyond the last capture to ``session_id``."""
    from ov.sessions.session import add_messages

    limit = store.config.hooks.tool_output_chars
    state_path = state_file(store.state, session_id)
    state = _read_state(state_path)
    end = None
    resent = True  # hook input (OpenCode's plugin sends the whole conversation), or a transcript from its start
    transcript = Path(hook.transcript_path) if hook.transcript_path else None
    if host.reads_transcript and transcript is not None and transcript.is_file():
        start = state.get("offset", 0) if state.get("transcript") == str(transcript) else 0
        if start and state.get("head") not in (None, _head(transcript, start)):
            start = 0  # rewritten since (not only grown): read from the start, not from mid-line
        try:
            if transcript.stat().st_size < start:
                start = 0  # replaced by a shorter file: read from the start, and count its lines anew
        except OSError:
            pass
        if start and _lost_messages(store, session_id, state.get("last")):
            # The session no longer holds what the last capture stored (a restore rolled it back):
            # read from the start, and the session keeps what it still holds once.
            start = 0
        # How often each line without an id of its own came before `start` (its id numbers the repeats).
        seen = _line_counts(state) if start else LineCounts()
        resent = not start
        raw, end = host.transcript_messages(transcript, start, limit, seen)
        # One read takes at most MAX_READ_BYTES of lines: read on to where the file ended when this
        # capture began (what is written after is the next capture's), or a commit would archive
        # a session whose last turns were never read.
        try:
            size = transcript.stat().st_size
        except OSError:
            size = end
        while end < size:
            more, after = host.transcript_messages(transcript, end, limit, seen)
            if after <= end:
                break  # a line still being written
            raw, end = raw + more, after
    else:
        # The turns before, for a host whose input gives its turns no ids (Gemini numbers repeated ones).
        seen = _line_counts(state)
        raw = host.fallback_messages(hook, limit, seen)
    # One malformed line must not lose the turn: keep every message the session accepts.
    messages, dropped = [], 0
    for message in raw:
        kept = _storable(message)
        if kept is None:
            dropped += 1
        else:
            messages.append(kept)
    result = Captured(dropped=dropped)
    last = state.get("last") if end is not None and start else None  # read from the start: what it stored before is not looked for
    if messages:
        added = add_messages(store, session_id, messages, resent=resent)
        result.added, result.duplicates, result.commit = len(added.added), len(added.duplicates), added.commit
        last = added.added[-1] if added.added else last
    if end is not None and (end != state.get("offset") or last != state.get("last")):
        saved = {"transcript": str(transcript), "offset": end, "head": _head(transcript, end), "lines": seen.to_state()}
        _write_state(store, state_path, {**saved, "last": last} if last is not None else saved)
    elif end is None and seen.to_state() != state.get("lines"):
        _write_state(store, state_path, {**state, "lines": seen.to_state()})
    if messages:
        mark_live(store, session_id, hook.host, str(transcript) if transcript is not None else None)
    return result


def keep_for_subagents(store, host, session_id: str, transcript: str | None, peer=OWN_PEER) -> Awaited | None:
    """After a commit of the session: its live mark again when its transcript awaits what
    subagents found (:meth:`~ov.hosts.host.Host.awaited`), so that the orphan sweep reads the
    transcript once more when they have ended; what it awaits, else None (the mark settled as
    for any commit). Codex writes a subagent's result into its parent's rollout when it ends,
    after the parent's end hook committed perhaps. A subagent started :data:`AWAIT_LIMIT` ago is
    awaited no longer: its parent's thread was unloaded long since. A mark the commit left (turns
    still live, a capture meanwhile, a mark held already) is the sweep's already.

    The mark is held until then (:attr:`~ov.sessions.live.Mark.held_until`), so that a commit
    which reads no transcript (the MCP ``session_commit``, which may not import this package)
    leaves it for the sweep. ``peer``: the session's, when the committing store's is another's."""
    import time

    if not transcript or (live_dir(store) / session_id).exists():
        return None
    try:
        awaited = host.awaited(Path(transcript))
    except Exception:  # noqa: BLE001 - the commit stands; the mark settles as it would have
        return None
    if awaited is None or time.time() - awaited.since >= AWAIT_LIMIT:
        return None
    # Made anew, its time this commit's: the sweeps meanwhile go to other sessions.
    mark_live(store, session_id, host.name, transcript, held_until=awaited.since + AWAIT_LIMIT, peer=peer)
    return awaited


def _storable(message: dict) -> dict | None:
    """``message`` as the session accepts it, or None. A defect that costs a detail costs only
    that detail: a host that cut its output inside an emoji leaves half of it (a lone surrogate),
    which no file can hold, and that character is replaced; a time the host wrote wrong (Gemini's
    "Sat Dec 5 2026 10:00", a year 99999) is left out, and the session stamps the capture's."""
    from ov.sessions.messages import normalise_message

    try:
        normalise_message(message)
        return message
    except InvalidInput:
        pass
    message = _without_lone_surrogates(message)
    candidates = [message]
    if isinstance(message, dict) and "created_at" in message:
        candidates.append({key: value for key, value in message.items() if key != "created_at"})
    for candidate in candidates:
        try:
            normalise_message(candidate)
            return candidate
        except InvalidInput:
            continue
    return None


def _lost_messages(store, session_id: str, last) -> bool:
    """Whether the session no longer holds ``last``, the id of the last message a capture of it
    stored: a restore of the store took back turns the transcript gave. A session that is gone
    was deleted (`ov session delete`): its next turns start it anew, as before. When in doubt
    (no id noted, a session an older ov wrote, a damaged record) the capture reads on."""
    from ov.errors import OvError
    from ov.sessions import session

    if not isinstance(last, str):
        return False
    try:
        meta = session.read_meta(store, session_id)
        if meta is None or not isinstance(meta.get("live_ids"), list):
            return False
        if last in meta["live_ids"] or last in meta.get("archived_ids", []):
            return False
        if len(meta.get("archived_ids", [])) >= session.archived_count(meta):
            return True  # every archived id is in the meta, and this one is not among them
        # Archived by an earlier commit than the last: in the complete record (read only now, rarely),
        # with the archives an older ov made since, which it did not record.
        archived = session.stored_archived_ids(store, session.session_uri(store, session_id))
    except (OvError, OSError):
        return False
    return last not in archived


def _without_lone_surrogates(value):
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_lone_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_lone_surrogates(v) for k, v in value.items()}
    return value


def prune_states(store, *, idle: float, keep: str | None = None) -> int:
    """Remove the capture state of the sessions committed since their last capture (no user of
    the account has them marked live) and not captured for ``idle`` seconds, but ``keep``'s; how
    many were removed. A state is only where a resumed session reads on from: without it, its
    next capture reads the transcript from the start and stores nothing twice. Kept, every
    session ever captured left one (up to 40 KB) for good.

    ``keep``: the session starting, perhaps a resumed one whose capture reads on from its state.
    The idle time spares a capture still running for a session committed before it (its state is
    written before its mark)."""
    import time

    hooks = state_dir(store)
    live: set[str] = set()
    try:
        with os.scandir(hooks / "live") as users:
            for user in users:
                with os.scandir(user.path) as marks:
                    live.update(mark.name for mark in marks)
    except FileNotFoundError:
        pass  # no session is live
    except OSError:
        return 0  # a session live for a mark this cannot read would lose its state
    now, removed = time.time(), 0
    # given/: what the session's hooks injected (ov.hosts.given), kept and removed as its capture state.
    for folder in ("capture", "given"):
        try:
            with os.scandir(hooks / folder) as entries:
                for entry in entries:
                    session = entry.name.removesuffix(".json")
                    if session == entry.name or entry.name.startswith(TEMP_MARKER) or session in live or session == keep:
                        continue
                    try:
                        if untouched_for(entry.stat().st_mtime, now) >= idle:
                            os.unlink(entry.path)
                            removed += folder == "capture"
                    except OSError:
                        continue
        except OSError:
            pass
    return removed


def _head(transcript: Path, offset: int) -> str | None:
    """A digest of the transcript's first bytes up to ``offset`` (at most 4 KiB): a file that
    was rewritten rather than appended to no longer has them."""
    import hashlib

    try:
        with transcript.open("rb") as handle:
            return hashlib.sha256(handle.read(min(offset, 4096))).hexdigest()[:16]
    except OSError:
        return None


def _line_counts(state: dict) -> LineCounts:
    """The line digests counted by the captures before, from their state. An older ov kept every
    digest with its count (``seen``); one older still, none: the lines after its offset are
    counted from there."""
    if "lines" in state:
        return LineCounts.from_state(state["lines"])
    return LineCounts.from_map(state.get("seen"))


def _read_state(path: Path) -> dict:
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        return state if isinstance(state, dict) else {}
    except (OSError, ValueError):
        return {}


def _write_state(store, path: Path, state: dict) -> None:
    try:
        store.home.ensure(path.parent)
        atomic_write(path, json_bytes(state))
    except OSError:
        pass  # the next capture reads a little more and stores nothing twice
