"""The detached job a hook starts (``python -m ov.hosts.worker``, the job as JSON on stdin).

``capture``: add the turns since the last capture to the session, then catch the index up.
``commit``: the same, then commit the session (archive, summary, memories, ``memory_diff.json``)
and catch the index up again, so the next session's recall finds what was learned. An orphan
(a session no host ended) is captured from the transcript its last capture read. ``index``:
build the index, which a hook found unbuilt (or built for another configuration) and could not
build within its deadline. ``pack``: a packing run (:mod:`ov.store.packing`) a command that wrote
left for after its exit, holding the pack lock the command took for it (logged nowhere: no hook
asked for it).

Every other job logs one line to the hook log, as the hook did. Nobody waits for this process, so it
catches everything (like the hook) and logs it; it always exits 0.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ov.hosts.capture import Mark
    from ov.hosts.host import HookInput

# How many times a job catches the index up while writes go on landing (an agent's run of them);
# the last round's writes are the next prompt's to catch up.
ROUNDS = 20
# The jobs nobody waits for: packing (tidying) and the index's (a build, its vectors, a catch-up:
# 20-40 s after adding a code project). At the same priority, the vector job took the CPU the
# prompt hooks meanwhile needed to answer within hooks.deadline (5 of 6 timed out on a loaded
# 2-core machine). A capture or commit job stays as it is: a session start may wait for a commit.
BACKGROUND_KINDS = ("pack", "index")
NICENESS = 10


def main() -> int:
    try:
        job = json.loads(sys.stdin.buffer.read().decode("utf-8", "surrogateescape"))
        why = "not a JSON object"
    except (OSError, ValueError) as exc:
        job, why = None, str(exc)
    if isinstance(job, dict) and job.get("kind") in BACKGROUND_KINDS:
        _lower_priority()  # before ov's imports: the hook that started this job is still answering

    from ov.errors import HomeInvalid
    from ov.home import Home
    from ov.hosts import background, hooklog

    started = time.monotonic()
    try:
        home = Home.from_env()
    except (HomeInvalid, OSError):
        # Made invalid since the hook checked it (a file put at its place), or a worker started by
        # hand: no home, no log to say why, as for the hook (`ov doctor` says it). Never a
        # traceback: nobody reads this process's output.
        home = None
    if not isinstance(job, dict):
        if home is not None:
            hooklog.append(home.root, {"event": "job", "outcome": "error", "error": f"unreadable job ({why})"})
        return 0
    if home is None:
        background.release(job)  # a session start waits on it no longer
        return 0
    if job.get("kind") == "pack":
        # Nobody waits for this process: it goes on while runs are due (a store far behind).
        from ov.store.packing import CATCH_UP_SECONDS

        _pack(home, job, held=background.fcntl is not None, seconds=CATCH_UP_SECONDS)
        return 0
    record = {"host": job.get("host"), "event": f"{job.get('event')} (job)", "session": job.get("session"), "kind": job.get("kind")}
    try:
        record.update(_run(home, job))
    except Exception as exc:  # nobody waits for this process: the log is where a failure shows
        record.update(outcome="error", error=f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}")
    finally:
        background.release(job)
    record["ms"] = round((time.monotonic() - started) * 1000, 1)
    if record.get("captured") or record.get("commit"):
        # Once no session start waits for this job (its barrier is released above): packing
        # loose objects may take a second, and this is where most of them are written.
        packed = _pack(home, job)
        if packed is not None:
            record["packed"] = {"objects": packed.packed + packed.dropped, "ms": round(packed.seconds * 1000, 1)}
    hooklog.append(home.root, record)
    return 0


def _lower_priority() -> None:
    """Run at :data:`NICENESS`: the user's next command and prompt hook, on the same cores, come first."""
    try:
        os.nice(NICENESS)
    except (AttributeError, OSError):
        pass  # no os.nice (Windows), or refused: the job runs as it is


def _run(home, job: dict) -> dict:
    from ov.config import load_config
    from ov.hosts import background
    from ov.hosts.capture import capture, keep_for_subagents, live_dir, session_peer
    from ov.hosts.host import HookInput, host_of_session, load
    from ov.identity import Identity
    from ov.index.folder import INDEX_DIR, behind
    from ov.index.sync import Indices
    from ov.sessions.live import live_mark_state, settle_committed
    from ov.sessions.session import read_meta
    from ov.store.store import Store

    loaded = load_config(home)
    config = loaded.config
    out: dict = {}
    if loaded.warnings:  # the job works on with defaults, as the hook did; the log says why
        out["config_warnings"] = list(loaded.warnings)
    identity = Identity(**job["identity"])
    session = job["session"]
    host = job.get("host")
    orphan = None
    if job["kind"] != "index" and not job.get("hook"):
        # An orphan's job: the session start that swept it is another session's, perhaps another
        # host's. The commit and the log name the session's own host, as its end hook would have.
        orphan = _orphan(home.state_dir(identity.account), identity.user, session)
        host = orphan.host
    elif not host and session:
        host = host_of_session(session)  # an index job's: the session whose prompt started it
    if host and not job.get("host"):
        out["host"] = host
    store = Store(home, identity, config, via=f"hook {host or 'unknown'}")
    if orphan is not None:
        # The job came with the sweeping hook's identity, whose peer is the project that session
        # started in: the orphan's turns, memories and meta are its own project's.
        store = Store(home, replace(identity, peer=session_peer(store, session, orphan.mark)), config, via=store.via)
    if job["kind"] == "index":
        return out | _index(store, job)
    if job["kind"] == "commit":
        # A turn's capture may still be adding its messages: commit after it, not without it.
        waited, finished = background.wait_captures(store, session, config.hooks.commit_wait)
        if waited:
            out["waited_for_captures"] = waited if finished else f"{waited} (gave up)"
    if orphan is None:
        hook = HookInput(**job["hook"])
    elif orphan.unreadable:
        # Committing would clear the mark, the only trace of turns no capture stored. Its time is
        # moved on, so that the sweeps meanwhile go to other sessions, and the session's next hook
        # (a resumed session) rewrites it.
        try:
            os.utime(live_dir(store) / session)
        except OSError:
            pass
        return out | {"outcome": f"left for a later sweep: {orphan.unreadable}"}
    else:
        hook = orphan.hook
    if hook is not None:
        captured = capture(store, load(hook.host), hook, session)
        out.update(captured=captured.added)
        if captured.dropped:
            out["dropped"] = captured.dropped
    if job["kind"] == "commit":
        marked = live_mark_state(store, session)
        meta = read_meta(store, session)
        # Archives a failed extraction left pending are extracted again even with no new message.
        if meta and (meta.get("message_count", 0) or meta.get("extraction_pending")):
            from ov.sessions.commit import commit_session

            # It clears the live mark unless the host captured the session meanwhile (a session
            # the sweep took for ended, going on): its next turns are still the sweep's to find.
            # A mark held for subagents is settled here, not kept: the capture above read the
            # transcript, and keep_for_subagents below holds it again while it still awaits them.
            report = commit_session(store, session, keep_held=False)
            out.update(outcome=report.status, commit=report.commit, archived=report.archived, memories=report.memories)
            # Most commits are made here: an expired key must show in `ov hooks log`, not only in .done.
            out.update({k: v for k, v in (("model_failed", report.model_failed), ("failed", report.failed), ("hand_edits", report.hand_edits)) if v})
        else:
            out["outcome"] = "nothing to commit"
            settle_committed(store, session, marked, keep_held=False)
        if hook is not None:
            # A subagent's result may land in the transcript after this (Codex's notification).
            awaited = keep_for_subagents(store, load(hook.host), session, hook.transcript_path)
            if awaited is not None:
                out["awaiting_subagents"] = awaited.count
    else:
        out["outcome"] = "captured" if out.get("captured") else "nothing new"
    # What a session start (or a commit) waits for on this job's barrier is in the store now; it
    # reads files, not the index, so the catch-up below is no wait of its.
    background.release(job)
    if out.get("captured") or out.get("commit"):
        wait, indices = config.store.lock_timeout, Indices(store)  # one for every round: the embedder loads once
        for _ in range(ROUNDS):
            with background.holding_index_job(store, wait) as held:
                if held:
                    try:
                        indices.open()  # the next recall finds what this job wrote without catching up itself
                    except Exception as exc:  # noqa: BLE001 - the capture and commit stand: the record says so
                        # A full disk or tantivy's untyped IO errors here replaced the whole record with
                        # an error, and `ov hooks log` showed a committed session as failed.
                        why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
                        out["index"] = f"not updated ({why}); the next search catches up"
                        break
                elif wait:
                    out["index"] = "left to the index job running"
            # A write that landed meanwhile found this job holding the index job's lock and
            # started none: looked at once the lock is let go (as background.index_again does).
            if not held or not behind(store.state / INDEX_DIR, store.git):
                break
            wait = 0  # another round only if no job has taken over
    return out


def _index(store, job: dict) -> dict:
    """The index job: the index built or caught up, its vectors made, and again while HEAD moved
    meanwhile (:func:`ov.hosts.background.index_again`), at most :data:`ROUNDS` times."""
    from ov.errors import StoreLocked
    from ov.hosts import background, index_retry
    from ov.index.sync import VECTORS_TO_MAKE, Indices

    indices = Indices(store)  # one for every round: the embedder is loaded once
    rounds = 0
    while True:
        rounds += 1
        try:
            opened = indices.open()
            if indices.unready() == VECTORS_TO_MAKE and not opened.actions:
                # Its full text was built first, and another process held the index meanwhile.
                opened = indices.catch_up()
        except StoreLocked:
            raise  # another process holds the index: it is building it, and a later job may go on
        except Exception as exc:  # logged by main; remembered so that prompts do not restart it at once
            try:
                index_retry.record_failure(store, f"{type(exc).__name__}: {getattr(exc, 'message', None) or exc}")
            except OSError:
                pass  # the job's own error is the one to log
            raise
        if indices.unready() == VECTORS_TO_MAKE:
            # The embedder failed (an API down): the prompts would start this job again on every turn.
            index_retry.record_failure(store, "the vectors could not be made (the embedder failed); the full text is searched meanwhile")
            return {"outcome": "index built without vectors", "records": opened.meta.records}
        index_retry.clear_failure(store)
        if rounds >= ROUNDS or not background.index_again(store, job):
            break
    done = {"outcome": "index built", "records": opened.meta.records}
    return done | {"rounds": rounds} if rounds > 1 else done


def _pack(home, job: dict, held: bool = False, seconds: float = 0):
    """A packing run for the job's account when it has work (ov.store.packing); ``held``: this
    process holds the pack lock already (handed over by :func:`background.start_packing`);
    ``seconds``: how long further runs may go on while one is due."""
    from ov.config import load_config
    from ov.identity import Identity
    from ov.store.packing import pack_after_write
    from ov.store.store import Store

    return pack_after_write(lambda: Store(home, Identity(**job["identity"]), load_config(home).config), held=held, seconds=seconds)


@dataclass(frozen=True)
class Orphan:
    """What a session's live mark, read once, and its last capture tell the sweep about it."""

    host: str | None  # the host its hooks came from: the one its mark names, else its id's prefix
    hook: HookInput | None = None  # the input of its last capture (host, transcript); None: nothing to read
    unreadable: str | None = None  # why its turns may be in a transcript the sweep cannot find
    mark: Mark | None = None  # its live mark as read (None: none, or one that cannot be read)


def _orphan(state: Path, user: str, session: str) -> Orphan:
    """A swept session, from its live mark. No hook when there is nothing to read (no mark: the
    session was committed meanwhile; or its host sends its turns in the hook input)."""
    from ov.hosts.capture import live_folder, read_mark, state_file
    from ov.hosts.host import HOST_MODULES, HookInput, host_of_session, load

    try:
        mark = read_mark(live_folder(state, user) / session)
    except FileNotFoundError:
        return Orphan(host_of_session(session))
    except (OSError, ValueError) as exc:
        return Orphan(host_of_session(session), unreadable=f"its live mark cannot be read ({exc})")
    marked, path = mark.host, mark.transcript
    host = marked if marked in HOST_MODULES else host_of_session(session)
    try:
        state_of = json.loads(state_file(state, session).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state_of = None  # no capture of it finished: the transcript its hook marked
    transcript = state_of.get("transcript") if isinstance(state_of, dict) and state_of.get("transcript") else path.strip()
    if not marked and (not host or (not transcript and load(host).reads_transcript)):
        # An empty mark: its hook could not write it (a full disk) or was killed writing it (an
        # older ov). The host is in the session id; the transcript, in the state of a capture that
        # finished. With neither, the turns are in a transcript only the host knows (Claude Code's
        # is ~/.claude/projects/*/<session id>.jsonl, but the ov id is the host's made safe, not
        # always reversible): the mark stays, and the session's next hook rewrites it.
        return Orphan(host, unreadable="its live mark is empty and no capture of it finished, so its transcript is unknown")
    if (marked and marked not in HOST_MODULES) or not transcript:
        return Orphan(host, mark=mark)
    return Orphan(host, HookInput(host=host, event="orphan", session_id=session, transcript_path=transcript), mark=mark)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
