"""A session's live mark: the trace that a host's hooks captured turns of it since its last commit.

The mark is ``state/{account}/hooks/live/{user}/{session}`` (derived state, never in the store):
three lines naming the host, the transcript and the peer the session's hooks act as, its mtime the
last capture; a fourth, when the session's source still awaits what its children will write into
the transcript (a Codex subagent's result, after the parent's end), says until when the mark is
held for them (:attr:`Mark.held_until`). The hooks write it (:mod:`ov.hosts.capture`); the next
session start commits the sessions whose mark has been idle ``hooks.orphan_after`` (the orphan
sweep). Every commit clears it when the session has nothing live left and no capture marked it
meanwhile (:func:`settle_committed`), whoever commits: the hooks' job, ``ov commit``, the MCP
``session_commit``; so does ``ov session delete``. A held mark stays through a commit that does
not read the transcript again (``ov commit``, the MCP ``session_commit``): only the sweep, which
captures the transcript before it commits, settles it (the hooks' layer says what it awaits). It
lives here, below both adapters, because the MCP server may not import the hooks' package.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ov.files import atomic_write
from ov.names import TEMP_MARKER


def live_dir(store) -> Path:
    return live_folder(store.state, store.identity.user)


def live_folder(state: Path, user: str) -> Path:
    """Where ``user``'s live marks are, in an account's state folder (``store.state``)."""
    return state / "hooks" / "live" / user

@dataclass(frozen=True)
class Mark:
    """What a live mark names: one line each for the host, the transcript ("" for none) and the
    peer the session's hooks act as ("" for none)."""

    host: str
    transcript: str
    peer: str | None
    peer_known: bool  # False: a mark an older ov wrote, which names no peer
    # Until when (epoch seconds) the session's source awaits what its children will still write
    # into the transcript; None: it awaits nothing (or an older ov wrote the mark).
    held_until: float | None = None

    def held(self, now: float | None = None) -> bool:
        """Whether the mark is held for children's results at ``now``: a commit that does not
        read the transcript again must leave it, or what they write there would never be read."""
        import time

        return self.held_until is not None and (time.time() if now is None else now) < self.held_until


OWN_PEER = object()  # mark_live's peer: the store's own


def mark_live(store, session_id: str, host: str, transcript: str | None = None, *, held_until: float | None = None, peer=OWN_PEER) -> None:
    """Mark the session live: its host, its transcript and its peer, so that the orphan sweep can
    capture it even when no capture of it ever finished (a job killed before it wrote its state),
    as the project it belongs to, not as the project of the session start that sweeps it.
    ``held_until``: the mark is held for children's results until then (:attr:`Mark.held_until`);
    ``peer``: the session's, where the store's is another (a commit run from another project).

    Written whole or not at all: a mark cut empty (a full disk, a hook killed mid-write) names
    no transcript, and the sweep cannot capture what it does not find."""
    path = live_dir(store) / session_id
    peer = store.identity.peer if peer is OWN_PEER else peer
    held = f"\n{held_until:.3f}" if held_until is not None else ""  # an older ov reads the first three lines only
    data = f"{host}\n{transcript or ''}\n{peer or ''}{held}".encode("utf-8", "surrogateescape")
    try:
        # Not flushed to disk: a stop hook runs on every turn, and a mark a power cut empties is
        # left by the sweep, not cleared.
        store.home.ensure(path.parent)
        atomic_write(path, data, durable=False)
    except OSError:
        # No room for its bytes (a full disk still has room for an empty file): the mark this
        # session had keeps what it names, and its time is this capture's; a session with none
        # gets an empty one, which the sweep leaves rather than forget the session.
        try:
            path.touch()
        except OSError:
            pass


def read_mark(path: Path) -> Mark:
    """The live mark at ``path``; OSError when it cannot be read (FileNotFoundError: the session
    was committed meanwhile). A peer that is no peer id (a mark edited by hand) is not known."""
    from ov.errors import InvalidId
    from ov.identity import validate_id

    lines = path.read_text(encoding="utf-8", errors="surrogateescape").split("\n")
    host, transcript = lines[0].strip(), lines[1].strip() if len(lines) > 1 else ""
    if len(lines) < 3:
        return Mark(host, transcript, None, peer_known=False)
    held_until = _held_until(lines[3]) if len(lines) > 3 else None
    peer = lines[2].strip() or None
    if peer is not None:
        try:
            validate_id(peer, "peer")
        except InvalidId:
            return Mark(host, transcript, None, peer_known=False, held_until=held_until)
    return Mark(host, transcript, peer, peer_known=True, held_until=held_until)


def _held_until(line: str) -> float | None:
    """A mark's fourth line as a time; None when it is none (a hand edit, a later ov's other word)."""
    import math

    try:
        value = float(line.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def held_mark(store, session_id: str) -> Mark | None:
    """The session's live mark when it is held for children's results now (:meth:`Mark.held`), else None."""
    try:
        mark = read_mark(live_dir(store) / session_id)
    except (OSError, ValueError):
        return None
    return mark if mark.held() else None


def session_peer(store, session_id: str, mark: Mark | None) -> str | None:
    """The peer a live session belongs to: the one its meta names (what its commit files its
    memories under), else its live ``mark``'s; None (the user's own) when neither says."""
    from ov.errors import RecordDamaged
    from ov.sessions.session import read_meta

    try:
        meta = read_meta(store, session_id)
    except RecordDamaged:
        meta = None  # its commit says so; the mark still tells whose turns these are
    if meta is not None:
        return meta.get("peer")
    return mark.peer if mark is not None and mark.peer_known else None


def clear_live(store, session_id: str) -> None:
    try:
        (live_dir(store) / session_id).unlink()
    except OSError:
        pass


def live_mark_state(store, session_id: str) -> tuple[int, int] | None:
    """The session's live mark as it is now (None: not live), to tell later whether a capture
    has marked it since: each mark is a new file (:func:`mark_live`), or a new time."""
    try:
        stat = (live_dir(store) / session_id).stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns


def settle_committed(store, session_id: str, before: tuple[int, int] | None, *, keep_held: bool = True) -> bool:
    """After a commit (or a delete) of the session, clear its live mark when nothing of it is left
    live; whether it did. Left, the mark made the next session start sweep a committed session as
    one no host ended, and kept it out of ``ov commit``'s default.

    The mark stays when the session still holds live messages (``--keep``, or a turn captured
    during the commit: the sweep must still commit them) and when a capture marked it again
    since ``before`` (:func:`live_mark_state`, read before the commit): the host is still
    capturing the session, whose next turns the sweep must find. With ``keep_held`` it stays too
    while it is held for children's results (:meth:`Mark.held`): this commit read no transcript,
    and the sweep must still read what they write there. A delete, and the sweep, which captured
    the transcript first and says again what it awaits, pass False."""
    from ov.errors import OvError
    from ov.sessions.session import read_meta

    if before is None:
        return False
    try:
        meta = read_meta(store, session_id)
    except OvError:
        return False
    if meta is not None and meta.get("message_count", 0):
        return False
    if live_mark_state(store, session_id) != before:
        return False
    if keep_held and held_mark(store, session_id) is not None:
        return False
    clear_live(store, session_id)
    return True



def live_sessions(store) -> list[tuple[str, float]]:
    """``(session id, time of its last capture)`` of the user's sessions captured since their last commit."""
    out = []
    try:
        with os.scandir(live_dir(store)) as entries:
            for entry in entries:
                if entry.name.startswith(TEMP_MARKER):
                    continue  # a mark's write cut short (a hook killed): not a session
                try:
                    out.append((entry.name, entry.stat().st_mtime))
                except OSError:
                    continue
    except OSError:
        return []
    return sorted(out)


