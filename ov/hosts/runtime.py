"""``ov hook HOST EVENT``: read the host's JSON on stdin, answer in the host's format, exit 0.

=============  ===========================================================================
event          what happens
=============  ===========================================================================
session-start  commit sessions no host ended (idle ``hooks.orphan_after``), remove the
               capture state of committed ones as idle, wait for the user's commits still
               running (``hooks.commit_wait``), inject the profile, preferences and memory
               index (:mod:`ov.hosts.recall`)
prompt-submit  inject ``search --mode context`` for the prompt, deterministic plan, less what
               the session was given (:mod:`ov.hosts.given`); a host that sent no transcript
               but the prompt (Cursor's privacy mode) has it captured, in a detached job
stop           capture the new turns, in a detached job (:mod:`ov.hosts.capture`)
pre-compact,   capture, then commit the session (archive, memories, ``memory_diff.json``)
session-end    and catch the index up, in a detached job under the commit barrier
=============  ===========================================================================

**It fails open.** Malformed stdin, a locked or broken store, a missing index, a bug: the
host gets its no-op answer and exit code 0, and the reason goes to ``$OV_HOME/logs/hooks.jsonl``
with the time, host, event, session, duration, outcome and the URIs injected. Recall hooks also
stop at ``hooks.deadline`` seconds (a session start also waits for running commits): the agent
never waits for a slow store. The capture events are not the recall's to cut: they stop at
``CAPTURE_DEADLINE`` only before they mark the session live, and never between that mark and the
start of its job. This is one of the few places where every exception is caught, because an
agent's turn matters more than ov's.

Host sessions map to ov sessions (``cc-<id>``, ``cx-…``, ``gm-…``, ``oc-…``, ``cu-…``). Without
an explicit peer, the workspace (the git root above the hook's ``cwd``, else the ``cwd``) is the
peer, so project knowledge and personal memories stay apart (``hooks.workspace_peer``).
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager, suppress
from dataclasses import asdict, replace
from pathlib import Path

from ov.hosts import hooklog
from ov.hosts.host import HookInputError, load
from ov.identity import workspace_peer

MAX_STDIN = 16 * 1024 * 1024  # OpenCode sends a session's messages; hosts send a few KB otherwise
MAX_ORPHANS = 5  # sessions committed by one session start; the rest wait for the next
END_EVENTS = ("pre-compact", "session-end")
# Events that only read the store: on an account that does not exist while others do, they inject
# nothing and log why (AccountNotFound); the capture events create the account, as any write does.
RECALL_EVENTS = ("session-start", "prompt-submit")
# The most records a prompt hook indexes itself (a new store's full text): about 0.1 s at most.
HOOK_BUILD_RECORDS = 200
# Seconds a stop, pre-compact or session-end hook may take to read its input and decide to capture
# (at least hooks.deadline). Their work is a mark and a fork (ms), but a loaded machine took 1-3 s
# to reach it, and the recall's deadline then lost ended sessions (never captured, or marked live
# with no commit started). Half the 10 s ov installs for stop and session-end, leaving room for the
# interpreter's start, which the host counts too; Codex cuts its SessionEnd at 3 s itself.
CAPTURE_DEADLINE = 5.0


class HookTimeout(BaseException):
    """``hooks.deadline`` passed. Not an Exception: like Ctrl-C's KeyboardInterrupt it comes from a
    signal, between any two lines, and a handler of errors on its way (a group commit's after its
    commit landed, a recall's that fails open) would take it for its own and go on past the deadline."""


def main(host_name: str, event: str, scope: str = "user") -> int:
    """The hook process: stdin to stdout, exit 0 (a command line it cannot read: ov.cli.runtime.HookCommand).

    Ctrl-C in the host's terminal reaches the hook too (same process group). Unhandled, Python
    printed a traceback, which Gemini CLI showed the user, and died by the signal. Said in one
    line with exit 1 instead, as the typer path's HookCommand does: every host's non-blocking
    error (Gemini CLI 0.61 denies the prompt on any other code with text)."""
    try:
        run(host_name, event, scope=scope, deliver=_deliver)
    except KeyboardInterrupt:
        try:
            sys.stderr.write(f"ov hook {host_name} {event} was interrupted\n")
        except (OSError, ValueError):
            pass  # the host is gone with its end of the pipe
        return 1
    return 0


def _deliver(answer: str) -> bool:
    """Write ``answer`` to the host; False when the host no longer reads it (it gave up on the
    hook and closed its end of the pipe). That is no error of the hook's: exit 0, nothing on
    stderr, as for any failure, and stdout goes to /dev/null so that the exit's flush does not
    meet the broken pipe again."""
    if not answer:
        return True
    try:
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
        return True
    except (OSError, ValueError):
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass
        return False


def run(host_name: str, event: str, raw: bytes | None = None, environ=None, scope: str = "user", deliver=None) -> str:
    """The answer to one hook call (the host's no-op on any failure); logs one line. ``raw`` is
    the host's input, by default read from stdin here, where a stdin that cannot be read fails open too.
    ``scope``: the file the host ran the entry from, as the entry says (a project's defers to a user's).
    ``deliver``: gives the answer to the host before the line is logged, so that the line says
    whether the host got it (True) or not (False: the log's "injected" was untrue when it did not)."""
    from ov.home import Home

    environ = os.environ if environ is None else environ
    started = time.monotonic()
    # Whatever the run writes first (its log line, a capture's state, a commit) makes its folder,
    # the home included, through the home's ensure: private, at no cost once made.
    host = load(host_name)
    try:
        home = Home.from_env(environ)
    except Exception:  # noqa: BLE001 - HomeInvalid, or what no home check foresaw: fail open all the same
        answer = host.answer(event, None)  # no home, no log to say why: `ov doctor` says it
        if deliver is not None:
            deliver(answer)
        return answer
    record: dict = {"host": host_name, "event": event}
    try:
        answer = _handle(home, host, event, raw, record, environ, started, scope)
    except HookTimeout as exc:
        answer = host.answer(event, None)
        record.update(outcome="timeout", error=str(exc))
    except Exception as exc:  # fail open: a hook must never break the agent's turn
        answer = host.answer(event, None)
        record.update(outcome="error", error=f"{type(exc).__name__}: {_message(exc)}")
    record["ms"] = round((time.monotonic() - started) * 1000, 1)
    remember = record.pop(_GIVEN, None)
    delivered = deliver is None or deliver(answer)
    if not delivered and record.get("outcome") not in ("error", "timeout"):
        # What the answer was stays in its fields (the entries it held): `ov hooks log` reads
        # "not delivered 1 entry: viking://…: the host closed its end of the pipe".
        record.update(outcome="not delivered", error="the host closed its end of the pipe")
    if remember is not None and delivered and record.get("outcome") not in ("error", "timeout"):
        # Only what the host got is given: an answer past the deadline, or one the host no longer
        # read, left the session without the entries, which the next prompts would leave out.
        with suppress(OSError):
            remember()
    hooklog.append(home.root, record)
    return answer


def _handle(home, host, event: str, raw: bytes | None, record: dict, environ, started: float, scope: str = "user") -> str:
    from ov.config import load_config

    if raw is None:
        raw = _stdin()
    if len(raw) > MAX_STDIN:
        raise HookInputError(f"the hook input is larger than {MAX_STDIN // (1024 * 1024)} MiB")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookInputError(f"the hook input is not JSON ({exc})") from None
    except RecursionError:
        raise HookInputError("the hook input is nested too deeply to read") from None
    if scope == "project":
        from ov.hosts.hookentries import user_scope_answers

        if user_scope_answers(host.name, event, environ):
            # The host runs the user's entry for this event too: it answers, once. The log line
            # still names the session, so that `ov hooks log` puts it beside the user's entry's.
            record["outcome"] = "skipped: the user-scope hook answers"
            with suppress(HookInputError):
                record["session"] = host.ov_session(host.parse(event, payload))
            return host.answer(event, None)
    if host.name == "claude" and _from_cursor(payload, environ):
        # Cursor runs Claude Code's hooks too ("Third-party skills"): answer one channel only.
        if any((home.root / "installs").glob("cursor-*.json")):
            record["outcome"] = "skipped: Cursor runs its own ov hooks"
            return host.answer(event, None)
        host = load("cursor")
        record["host"] = "cursor"
    hook = host.parse(event, payload)
    session = host.ov_session(hook)
    record["session"] = session
    if host.from_subagent(hook):
        # Under the parent's session id, with the subagent's transcript: recall would answer the
        # model's words for its task, a capture would read another transcript as the parent's,
        # an end would commit the parent's session early. As for OpenCode's child sessions.
        record["outcome"] = "skipped: a subagent's turn"
        return host.answer(event, None)
    loaded = load_config(home)
    if loaded.warnings:  # the hook works on (with defaults for what it cannot use); the log says why
        record["config_warnings"] = list(loaded.warnings)
    config = loaded.config
    # A host whose transcript is off may send the user's prompt only here (Cursor in privacy mode):
    # the prompt hook captures it, and so writes.
    prompt_turn = event == "prompt-submit" and not _has_transcript(host, hook) and bool(host.fallback_messages(hook, sys.maxsize))
    store = _store(home, config, hook, environ, read_only=event in RECALL_EVENTS and not prompt_turn)
    record["peer"] = store.identity.peer
    if event in RECALL_EVENTS:
        seconds, name = config.hooks.deadline + (config.hooks.commit_wait if event == "session-start" else 0), "hooks.deadline"
    else:
        seconds, name = max(config.hooks.deadline, CAPTURE_DEADLINE), "the capture's bound"
    # Counted from the hook's start: reading the input, the config and the store are the host's
    # wait too (a few hundred ms on a busy machine, which the log's ms showed past the deadline).
    with _deadline(max(seconds - (time.monotonic() - started), 0.001), said=seconds, name=name) as lift:
        if event == "session-start":
            return host.answer(event, _session_start(store, host, hook, session, record))
        if event == "prompt-submit":
            if prompt_turn:  # first: a recall cut at the deadline must not lose the user's words
                record["capture"] = _start_job(store, host, hook, event, session, record)
            return host.answer(event, _prompt(store, host, hook, session, record))
        _background(store, host, hook, event, session, record, lift)
        return host.answer(event, None)


def _stdin() -> bytes:
    if sys.stdin is None:  # closed by the caller (`<&-`): Python has no stream for it
        raise HookInputError("no hook input: standard input is closed")
    return sys.stdin.buffer.read(MAX_STDIN + 1)


def _from_cursor(payload, environ) -> bool:
    return bool(environ.get("CURSOR_VERSION")) or (isinstance(payload, dict) and "cursor_version" in payload)


def _store(home, config, hook, environ, *, read_only: bool):
    from ov.identity import resolve_identity
    from ov.store.store import Store

    configured = {"account": config.identity.account, "user": config.identity.user, "peer": config.identity.peer}
    identity = resolve_identity({}, environ, configured)
    if identity.peer is None and config.hooks.workspace_peer and hook.cwd:
        identity = replace(identity, peer=workspace_peer(hook.cwd))
    return Store(home, identity, config, read_only=read_only, via=f"hook {hook.host}")


# --- the events --------------------------------------------------------------------


def _session_start(store, host, hook, session: str, record: dict) -> str | None:
    from ov.hosts import background, recall
    from ov.hosts.capture import live_sessions, prune_states

    hooks = store.config.hooks
    now = time.time()
    orphans = [sid for sid, last in live_sessions(store) if sid != session and now - last >= hooks.orphan_after][:MAX_ORPHANS]
    for orphan in orphans:
        if not background.start(_job(store, "commit", None, orphan, event="orphan"), home=store.home, barrier=background.barrier_dir(store)):
            _not_started(store, orphan)
    if orphans:
        record["orphans"] = orphans
    pruned = prune_states(store, idle=hooks.orphan_after, keep=session)
    if pruned:
        record["capture_states_removed"] = pruned
    waited, finished = background.wait(store, hooks.commit_wait)
    if waited:
        record["waited_for_commits"] = waited if finished else f"{waited} (gave up after {hooks.commit_wait:g} s)"
    archive_of = session if hook.source in ("resume", "compact") else None
    block = recall.session_start(
        store, peer=store.identity.peer, archive_of=archive_of, budget=hooks.session_start_budget, max_chars=hooks.max_chars, session_id=session
    )
    _record_block(record, block)
    _remember_start(store, session, hook.source, block.keys, record)
    return block.text


# The record's key for the write of what a hook gave, which run() makes once the host got the answer.
_GIVEN = "_given"


def _remember_start(store, session: str, source: str | None, keys: list[str], record: dict) -> None:
    """What the session start gave, for the prompts to leave out. A resume keeps what the earlier
    prompts gave (the host shows the conversation again, its blocks included); a new session, a
    ``clear`` and a compaction start over: the context lost it."""
    from ov.hosts import given

    repeat_after = store.config.hooks.prompt_repeat_after
    if source != "resume":
        given.forget(store, session)
    if repeat_after and keys:
        memory = given.Given.load(store, session, repeat_after)
        memory.give(keys)
        record[_GIVEN] = memory.save


def _not_started(store, session: str) -> None:
    """The line a sweep's job would have logged, for one that could not start (no process left,
    no memory for one): the session start's line names the session swept, and without this line
    nothing said its commit never ran. Its mark stays, so the next session start sweeps it again."""
    from ov.hosts.host import host_of_session

    why = "its job could not start; the next session start sweeps it again"
    hooklog.append(store.home.root, {"host": host_of_session(session), "event": "orphan (job)", "session": session, "kind": "commit", "outcome": "error", "error": why, "ms": 0.0})


def _prompt(store, host, hook, session: str, record: dict) -> str | None:
    from ov.hosts import recall

    hooks = store.config.hooks
    if hook.prompt and host.wrote_itself(hook.prompt):
        record["outcome"] = f"skipped: a message {host.label} wrote itself"
        return None
    if recall.is_trivial(hook.prompt):
        record["outcome"] = "skipped: trivial prompt"
        return None
    from ov.hosts import index_retry
    from ov.index.sync import GLANCE, Indices

    # The index as it is, or the full text of a small store: a larger build (seconds to minutes)
    # is the job's, and so is a wait for one. Built in the hook, a large store's index ran past
    # the deadline, SIGALRM waiting for tantivy's commit and the embedder's batches (1.1-2.4 s
    # after an add of 2,000 files).
    indices = Indices(store, lock_wait=GLANCE, build_limit=HOOK_BUILD_RECORDS)
    unready = indices.unready()
    if unready is not None:
        _build_index(store, session, record, doing=_doing(unready))
    from ov.hosts.given import Given

    memory = Given.load(store, session, hooks.prompt_repeat_after) if hooks.prompt_repeat_after else None
    if memory is not None:
        memory.prompt += 1
    block = recall.prompt(
        store,
        hook.prompt or "",
        session_id=session,
        budget=hooks.prompt_budget,
        max_chars=hooks.max_chars,
        min_score=hooks.prompt_min_score,
        indices=indices,
        cwd=hook.cwd,
        given=memory,
    )
    _record_block(record, block, hooks.prompt_min_score)
    if memory is not None:
        # OpenCode's plugin drops a prompt's block with its turn: only what its start gave stays.
        memory.give(block.keys if block.text and host.keeps_prompt_context else [])
        if memory.entries:  # (with none, the count of prompts bounds nothing: no write)
            record[_GIVEN] = memory.save
    if block.behind:
        record["searched"] = block.behind
    if block.built or block.unbuilt:
        # The search built a small store's full text (whatever made the last job fail is gone,
        # and its vectors are still to be made), or found the index damaged: a job, if none runs.
        if block.built:
            index_retry.clear_failure(store)
        unready = indices.unready()
        if unready is not None and "index_job" not in record and "(a job already running)" not in record.get("index", ""):
            _build_index(store, session, record, doing=_doing(unready))
    if block.unbuilt:
        record["outcome"] = "nothing to inject: the index is being built"
    elif block.stale and unready is None:
        # Behind a commit no hook made (an add-resource, a CLI write): without a job the prompts
        # would search the old index until the next turn's capture, and the log would not say why.
        _build_index(store, session, record, doing="behind the store: catching up")
    elif not block.behind and unready is None:  # (else it awaits the job started above, failed or not)
        index_retry.clear_failure(store)  # caught up, whoever did it: a later job need not wait
    return block.text


def _doing(unready: str) -> str:
    from ov.index.sync import VECTORS_TO_MAKE

    return "vectors being made" if unready == VECTORS_TO_MAKE else "being built"


def _build_index(store, session: str, record: dict, *, doing: str = "being built") -> None:
    """Build the index in a background job (a new store, or one whose embedder or language
    changed; the vectors of one whose full text was built first), or catch it up (``doing``). The
    hook builds only a small store's full text itself; the job, which has no deadline, builds the
    rest for the prompts after. One job at a time: the prompts during a long build start no other."""
    from ov.hosts import index_retry

    blocked = index_retry.blocked(store)
    if blocked:
        record["index"] = f"{doing}: not started, {blocked}"
        return
    from ov.hosts import background  # after: a prompt held back pays for no job machinery

    try:
        pid = background.start(_job(store, "index", None, session, event="index"), home=store.home, once=background.index_job_lock(store))
    except background.AlreadyRunning:
        record["index"] = f"{doing} (a job already running)"
        return
    record["index"] = doing if pid else f"{doing}, but its job could not start"
    if pid:
        record["index_job"] = pid


def _background(store, host, hook, event: str, session: str, record: dict, lift) -> None:
    from ov.hosts.capture import live_dir

    committing = event in END_EVENTS
    if (skipped := host.capture_skipped(hook)) is not None:
        record["outcome"] = f"skipped: {skipped}"
        return
    if event == "pre-compact" and host.name != "gemini":
        # The host's context is about to lose what the hooks gave: give it again. (Gemini CLI's
        # PreCompress fires on ordinary turns too: there the bound of prompts forgets.)
        from ov.hosts import given

        given.forget(store, session)
    # Whether the input holds any message: nothing is cut (a cut is redacted first, milliseconds a
    # tool payload, which a long OpenCode session's hundreds of them would spend the deadline on).
    has_messages = bool(host.fallback_messages(hook, sys.maxsize))
    if not _has_transcript(host, hook) and not has_messages and not (committing and (live_dir(store) / session).exists()):
        # Claude Code fires SessionEnd for `claude mcp list` and the like: a session with no turns.
        record["outcome"] = "nothing to capture"
        if host.reads_transcript and not hook.transcript_path:
            record["outcome"] += f": {host.label} sent no transcript"  # (Cursor's privacy mode: its prompt and answer hooks capture)
        return
    # From here the hook runs to its end (ms: a file and a fork): cut between the mark and the
    # job's start, an ended session would wait for the orphan sweep (hooks.orphan_after).
    lift()
    record["outcome"] = _start_job(store, host, hook, event, session, record)


def _has_transcript(host, hook) -> bool:
    return host.reads_transcript and bool(hook.transcript_path) and Path(hook.transcript_path).is_file()


def _start_job(store, host, hook, event: str, session: str, record: dict) -> str:
    """Start the detached job that captures ``hook``'s turn (and, at a session's end, commits the
    session); what the log says of it."""
    from ov.hosts import background
    from ov.hosts.capture import mark_live

    committing = event in END_EVENTS
    kind = "commit" if committing else "capture"
    # Marked live now, not by the job: an end hook right after this one must know there is a turn.
    mark_live(store, session, host.name, hook.transcript_path if _has_transcript(host, hook) else None)
    barrier = background.barrier_dir(store) if committing else background.captures_dir(store)
    pid = background.start(_job(store, kind, hook, session, event=event), home=store.home, barrier=barrier)
    if pid:
        record["job"] = pid
    return f"{kind} started" if pid else f"{kind} could not start"


def _job(store, kind: str, hook, session: str, *, event: str) -> dict:
    identity = store.identity
    job = {
        "kind": kind,
        "event": event,
        "session": session,
        "identity": {"account": identity.account, "user": identity.user, "peer": identity.peer},
    }
    if hook is not None:
        job["host"] = hook.host
        job["hook"] = asdict(hook)  # the worker rebuilds it with HookInput(**job["hook"])
    return job


def _record_block(record: dict, block, min_score: float | None = None) -> None:
    # The reason is part of the outcome: "nothing to inject" alone read as an empty store when the
    # cut-off had silenced a full one. The relevance reached is logged with the cut-off it met, so
    # hooks.prompt_min_score can be tuned from the log.
    record["outcome"] = "injected" if block.text else "nothing to inject" + (f": {block.why}" if block.why else "")
    if block.given_before:
        if not block.text:
            record["outcome"] = f"nothing new to inject: {block.why}"
        else:
            record["given_before"] = block.given_before  # entries left out: the session has them
    if block.relevance is not None:
        record["relevance"] = round(block.relevance, 3)
        if min_score:
            record["min_score"] = min_score
    if block.text:
        record["uris"] = block.uris
        record["chars"] = len(block.text)
    if block.omitted:
        record["omitted"] = block.omitted
    if block.not_text:
        record["not_text"] = block.not_text


def _message(exc: Exception) -> str:
    return getattr(exc, "message", None) or str(exc)


@contextmanager
def _deadline(seconds: float, said: float | None = None, name: str = "hooks.deadline"):
    """Raise HookTimeout in this (main) thread after ``seconds``; a no-op where signals cannot.
    ``said``: the deadline the message names (``name``), when ``seconds`` is what is left of it.
    Yields a function that lifts the deadline, for work that must not be cut once begun."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return

    def expire(signum, frame):
        raise HookTimeout(f"no answer within {seconds if said is None else said:g} s ({name})")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield lambda: signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
