"""`ov commit`: archive a session's live messages, summarise them, and distil long-term memories.

Everything lands in one git commit::

    sessions/{sid}/history/archive_NNN/messages.jsonl   the archived messages
    sessions/{sid}/history/archive_NNN/.overview.md     working-memory summary (L1) and its L0 (ov.sessions.overview)
    sessions/{sid}/history/archive_NNN/memory_diff.json adds / updates / deletes of memories
    sessions/{sid}/history/archive_NNN/.done           or .failed.json when extraction failed
    sessions/{sid}/history/.archived_ids.jsonl          a line more: the ids this archive holds
    user/{uid}/memories/...                            the memories themselves
    sessions/{sid}/messages.jsonl, .meta.json          the kept tail and the new counts

A failed extraction never loses the session's memories: the archive is committed with
``.failed.json`` naming the stage and the error, its name is kept in the meta's
``extraction_pending``, and every later commit of the session (``ov commit SESSION`` with no new
message too) extracts the pending archives' messages again, before and with its own, until one
succeeds (a retry with no new message that fails with the error already recorded commits
nothing; a pending archive whose messages were removed is taken off the list). The pending archives are always the last ones, so their messages are read in the order
they were said: a value stated in a pending archive never overwrites a later one (an archive an
older ov left with ``.failed.json`` is not pending: a later commit may have extracted newer
values since). A model that fails (unreachable, a bad key, a timeout, output that is not usable)
does not cost the memories: the offline rules extract them instead, and ``.done`` names the
model's error (``model_failed``).

A memory file the user edited by hand since the last commit is merged into as it is in the work
tree, and the edit is committed with the memories (``hand_edits`` in the report and ``.done``).
Refusing it, as other commands refuse to overwrite a hand edit, would lose every memory of the
session: the archived messages are never extracted again. Keeping them pending until the edit
is committed was the other way; it leaves memories out of recall for as long as the user
forgets, and a second place to look for them.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field, replace
from datetime import datetime

from ov.errors import Interrupted, InvalidInput, NotFound
from ov.files import json_bytes
from ov.sessions import clock, live
from ov.sessions.overview import working_memory
from ov.sessions.session import (
    ARCHIVED_IDS_KEPT,
    MESSAGES,
    META,
    archived_count,
    archived_ids_line,
    archived_ids_uri,
    load_meta,
    message_text,
    no_session,
    now_iso,
    parse_messages,
    read_archived_ids,
    session_fields,
    session_uri,
)
from ov.store import sidecar
from ov.store.store import Store
from ov.tokens import estimate_tokens
from ov.uri import VikingURI

GENERATOR = ("ov-session", "session_commit")


@dataclass
class CommitReport:
    """What committing a session archived and which memories it changed."""

    session_uri: str  # the JSON gives its id as `session` and the URI as `uri` (session_fields)
    status: str  # "committed" | "skipped"
    archive: str | None = None
    archived: int = 0
    kept: int = 0
    commit: str | None = None
    memories: dict[str, int] = field(default_factory=dict)  # adds/updates/deletes
    failed: str | None = None
    model_failed: str | None = None  # the model's error; the offline rules extracted instead
    written: list[VikingURI] = field(default_factory=list)  # the memory files written
    hand_edits: list[str] = field(default_factory=list)  # of those, the ones whose hand edit was kept and committed
    retried: list[str] = field(default_factory=list)  # archives whose failed extraction this commit ran again
    dropped: list[str] = field(default_factory=list)  # pending archives whose messages were gone: no longer pending

    def to_dict(self) -> dict:
        return {
            **session_fields(self.session_uri),
            "status": self.status,
            "archive": self.archive,
            "archived": self.archived,
            "kept": self.kept,
            "commit": self.commit,
            "memories": self.memories,
            "memory_uris": [str(u) for u in self.written],
            "hand_edits": self.hand_edits,
            "retried": self.retried,
            "dropped": self.dropped,
            "failed": self.failed,
            "model_failed": self.model_failed,
        }


def commit_session(store: Store, session_id: str, *, keep: int = 0, keep_held: bool = True) -> CommitReport:
    """Commit the session's live messages; then clear its live mark when nothing of it is left
    live (:func:`ov.sessions.live.settle_committed`), whichever adapter commits it. A mark held
    for children's results stays unless ``keep_held`` is False: the hooks' sweep says so, which
    captured the transcript first and marks it again while it still awaits them."""
    if keep < 0:
        raise InvalidInput("--keep must be 0 or more")
    marked = live.live_mark_state(store, session_id)  # before: a capture that marks it meanwhile keeps the mark
    report = _commit(store, session_id, keep)
    live.settle_committed(store, session_id, marked, keep_held=keep_held)
    return report


def _commit(store: Store, session_id: str, keep: int) -> CommitReport:
    uri = session_uri(store, session_id)
    # Extraction may call a model for seconds: it is planned without the write lock, so hooks
    # of other sessions keep writing, and the lock is taken only to check the plan and commit.
    memories = VikingURI(("user", store.identity.user, "memories"))
    peers = VikingURI(("user", store.identity.user, "peers"))
    answers: dict = {}  # the model's answer for the messages it saw: asked once, re-planned against newer files
    for attempt in range(1, PLAN_ROUNDS + 1):
        with store.draft() as draft:
            draft.adopt_hand_edits(memories, peers)
            report, named = _plan(store, draft, uri, session_id, keep, answers)
        if named is None:
            return report
        with store.transaction() as tx:
            tx.adopt_hand_edits(memories, peers)
            if draft.still_holds(tx, uri, memories, peers):
                draft.hand_over(tx)
            elif attempt < PLAN_ROUNDS:
                # A capture or a memory landed meanwhile: plan again without the lock (a model
                # call under it made every other writer time out), here on top of the new files.
                continue
            else:
                # The store keeps changing: plan under the lock, but never with a model call; the
                # answer already had is re-planned against the files as they are now, and
                # messages the model never saw go to the offline rules.
                report, named = _plan(store, tx, uri, session_id, keep, answers, ask_model=False)
                if named is None:
                    return report
            # The memory files are named too: `ov snapshot log --uri viking://~/memories` finds the
            # session commits that changed them (the message caps how many URIs it lists).
            report.commit = tx.commit("commit", [uri, *named, *report.written], hand_edits=report.hand_edits).commit
        return report
    raise AssertionError("unreachable: the last round commits")  # pragma: no cover


# Plans made without the lock before one is made under it: each plan that went stale re-uses the
# model's answer when the same messages are archived, so later rounds are quick.
PLAN_ROUNDS = 3


def _plan(
    store: Store, tx, uri: VikingURI, session_id: str, keep: int, answers: dict, *, ask_model: bool = True
) -> tuple[CommitReport, list[VikingURI] | None]:
    """Put the session's commit into ``tx``: archive, summary, memories, meta; the report and
    the URIs its commit names after the session's: the archive's, or none when only the meta
    changes (its record is the session's, as every session command names it), None when there
    is nothing to commit. ``answers`` keeps the model's answers between plans (see :func:`_extract`)."""
    meta_uri = VikingURI((*uri.parts, META))
    messages_uri = VikingURI((*uri.parts, MESSAGES))
    meta_data = tx.existing_file(meta_uri)
    if meta_data is None:
        raise no_session(session_id)
    meta = load_meta(meta_data, meta_uri)
    live = parse_messages(tx.existing_file(messages_uri) or b"")
    to_archive = live[: max(len(live) - keep, 0)]  # --keep past the live messages keeps them all
    kept = live[len(to_archive) :]
    pending, lost = _pending(tx, uri, meta)
    if not to_archive and not pending:
        if not lost:
            return CommitReport(str(uri), "skipped", kept=len(kept)), None
        # Kept pending, they would be warned of for ever with a fix that does nothing.
        meta.pop(PENDING, None)
        meta["updated_at"] = now_iso()
        tx.put(meta_uri, json_bytes(meta))
        return CommitReport(str(uri), "committed", kept=len(kept), dropped=lost), []
    if to_archive:
        index = _next_archive(store, uri, meta)
        archive = VikingURI((*uri.parts, sidecar.HISTORY, f"{sidecar.ARCHIVE_PREFIX}{index:03d}"))
    else:
        archive = pending[-1][0]  # nothing new: the last pending archive gets the diff it lacks
    report = CommitReport(str(uri), "committed", str(archive), len(to_archive), len(kept))
    report.retried = [str(where) for where, _ in pending]
    report.dropped = lost
    if to_archive:
        tx.put(VikingURI((*archive.parts, MESSAGES)), _jsonl(to_archive))
        tx.put(messages_uri, _jsonl(kept))
        overview = working_memory(to_archive, session_id)
        front = {"directory": sidecar.directory_uri(str(archive)), "generated_by": {"component": GENERATOR[0], "trigger": GENERATOR[1]}}
        from ov.summaries.layers import derive_abstract

        tx.put(VikingURI((*archive.parts, sidecar.OVERVIEW)), sidecar.render(front, overview).encode())
        tx.put(VikingURI((*archive.parts, sidecar.ABSTRACT)), sidecar.render(front, derive_abstract(overview)).encode())
    when = clock.now()
    extracted = [m for _, messages in pending for m in messages] + to_archive
    try:
        diff, writes, tokens, report.model_failed = _extract(store, tx, extracted, str(archive), when, meta.get("peer"), answers, ask_model=ask_model)
    except Interrupted:
        raise  # stopped while the model answered (an MCP call cancelled): no failure to record, nothing written
    except Exception as exc:  # noqa: BLE001 - the archive must survive any extraction failure
        # Not hidden: the report, the CLI, the hook log and .failed.json name the error, and the
        # messages stay pending until a commit extracts them (a bug fixed by an upgrade, say).
        report.failed = f"{type(exc).__name__}: {exc}"
        if not to_archive and not lost and not getattr(exc, "tokens", None) and _failed_before(tx, pending, report.failed):
            # A retry that failed as the last one did: a commit would only restamp .failed.json,
            # once per retry and once per session end (the hooks' job retries too).
            return CommitReport(str(uri), "skipped", kept=len(kept), failed=report.failed, retried=report.retried), None
        _add_token_usage(meta, getattr(exc, "tokens", None))
        failure = {"stage": "memory_extraction", "error": report.failed, "failed_at": now_iso()}
        for where in {*(where for where, _ in pending), archive}:
            tx.put(VikingURI((*where.parts, ".failed.json")), json_bytes(failure))
        meta[PENDING] = [*(where.name for where, _ in pending), *([archive.name] if to_archive else [])]
    else:
        meta.pop(PENDING, None)
        for where, _ in pending:
            tx.delete(VikingURI((*where.parts, ".failed.json")))
            if where != archive:
                recovered = {"extracted_in": str(archive), "completed_at": now_iso()}
                tx.put(VikingURI((*where.parts, ".done")), json_bytes(recovered))
        _add_token_usage(meta, tokens)
        for path, text in writes.items():
            written = VikingURI(tuple(path.split("/")))
            if text is None:  # its lines moved to their topic's file (see amends.gather_from_general)
                tx.delete(written)
            else:
                tx.put(written, text.encode("utf-8"))
            report.written.append(written)
            if written.path in tx.adopted:
                report.hand_edits.append(str(written))
        tx.put(VikingURI((*archive.parts, "memory_diff.json")), json_bytes(diff))
        report.memories = {k.replace("total_", ""): v for k, v in diff["summary"].items()}
        done = {
            "starting_message_id": extracted[0].get("id"),
            "ending_message_id": extracted[-1].get("id"),
            "messages": len(extracted),
            "memories": report.memories,
            "completed_at": now_iso(),
        }
        if pending:
            done["retried"] = report.retried
        if report.model_failed:
            done["model_failed"] = report.model_failed
        if report.hand_edits:
            done["hand_edits"] = report.hand_edits
        tx.put(VikingURI((*archive.parts, ".done")), json_bytes(done))
        for op in diff["operations"]["adds"] + diff["operations"]["updates"]:
            kind = op.get("memory_type", "memory")
            meta.setdefault("memories_extracted", {})[kind] = meta.get("memories_extracted", {}).get(kind, 0) + 1
    if not to_archive:
        meta["updated_at"] = now_iso()
        tx.put(meta_uri, json_bytes(meta))
        return report, [archive]
    archived_before = archived_count(meta)  # before the counts change: an older ov's meta derives it from them
    meta["commit_count"] = meta.get("commit_count", 0) + 1
    meta["message_count"] = len(kept)
    meta["pending_tokens"] = sum(estimate_tokens(message_text(m)) for m in kept)
    meta["last_commit_at"] = meta["updated_at"] = now_iso()
    new_ids = [m.get("id") for m in to_archive]
    # The complete record, in the same commit as the archive: an id once archived is never added again.
    record = read_archived_ids(store, tx, uri)[0]
    tx.put(archived_ids_uri(uri), record + archived_ids_line(archive.name, new_ids))
    meta["archived_count"] = archived_before + len(new_ids)
    # Every id of this commit, however many: a capture that overlapped it may add any of them again.
    meta["archived_ids"] = (meta.get("archived_ids", []) + new_ids)[-(ARCHIVED_IDS_KEPT + len(to_archive)) :]
    meta["live_ids"] = [m.get("id") for m in kept]
    tx.put(meta_uri, json_bytes(meta))
    return report, [archive]




# The meta's list of the archives whose memories are still to be extracted (see the module's doc).
PENDING = "extraction_pending"


def _pending(tx, uri: VikingURI, meta: dict) -> tuple[list[tuple[VikingURI, list[dict]]], list[str]]:
    """The archives of ``meta``'s :data:`PENDING` list, oldest first, with their messages; and the
    names of those whose messages are gone (removed by hand): they have nothing left to extract."""
    out, lost = [], []
    for name in meta.get(PENDING, []):
        archive = VikingURI((*uri.parts, sidecar.HISTORY, name))
        data = tx.existing_file(VikingURI((*archive.parts, MESSAGES)))
        if data is not None:
            out.append((archive, parse_messages(data)))
        else:
            lost.append(name)
    return out, lost


def _failed_before(tx, pending: list[tuple[VikingURI, list[dict]]], error: str) -> bool:
    """Whether every pending archive's ``.failed.json`` records ``error`` already."""
    for where, _ in pending:
        data = tx.existing_file(VikingURI((*where.parts, ".failed.json")))
        try:
            recorded = json.loads(data) if data is not None else None
        except ValueError:
            return False
        if not isinstance(recorded, dict) or recorded.get("stage") != "memory_extraction" or recorded.get("error") != error:
            return False
    return True


def latest_session(store: Store, *, busy: frozenset[str] = frozenset()) -> str:
    """The most recently active session with live messages (what `ov commit` with no id commits),
    else the most recently active one whose memories a failed extraction left to extract again
    (:data:`PENDING`: its commit retries them), leaving out ``busy`` ones (an agent's session its
    host is still capturing: committing it would archive a conversation in the middle, and not
    the session the user meant).

    Live messages come first: a session whose extraction keeps failing as before commits nothing,
    and would otherwise stand in front of every session with messages to commit."""
    from ov.sessions.session import list_sessions

    passed, pending = [], None
    for row in list_sessions(store):
        if row["messages"]:
            if row["session"] not in busy:
                return row["session"]
            passed.append(row["session"])
        elif row[PENDING] and row["session"] not in busy and pending is None:
            pending = row["session"]
    if pending is not None:
        return pending
    if passed:
        raise NotFound(
            f"every session with messages is still being captured by an agent's host ({', '.join(passed[:3])}{', ...' if len(passed) > 3 else ''})",
            hint=f"name one to commit it now: `ov commit {passed[0]}`",
        )
    raise NotFound("no session has messages to commit", hint="name one: `ov commit SESSION`")


def _extract(
    store: Store,
    tx,
    messages: list[dict],
    archive_uri: str,
    when: datetime,
    peer: str | None,
    answers: dict,
    *,
    ask_model: bool = True,
) -> tuple[dict, dict[str, str], dict[str, int], str | None]:
    """The memory diff, the files to write, the LLM tokens spent (zero without a model), and the
    model's error when it failed and the offline rules extracted instead.

    ``answers`` holds what the model proposed for a set of messages (their ids and the peer), so
    that a plan made again does not ask again; with ``ask_model`` false (under the write lock) a
    set of messages it has no answer for is extracted by the offline rules.

    Memories about the user go under ``user/{uid}/memories``; with a peer on the session, the
    model may file memories about that peer under ``user/{uid}/peers/{peer}/memories``.
    """
    from ov.sessions.memory.candidate import said_of_this_project
    from ov.sessions.memory.plan import plan_memories
    from ov.sessions.memory.schema import load_schemas
    from ov.sessions.remember import lister, reader

    schemas = load_schemas(store.home.root / "memory_schemas")
    memories = VikingURI(("user", store.identity.user, "memories"))
    from ov.sessions.memory.extract import extract_explicit

    tokens = {"prompt_tokens": 0, "completion_tokens": 0}
    model_failed = None
    llm = store.config.llm
    seen = (peer, tuple(str(m.get("id")) for m in messages))
    # Turns captured while the model was asked make the messages to archive grow: the answer for
    # those it saw still holds, and only the new ones are read by the offline rules (asking the
    # model again for all of them would bill every round, and a busy session would never settle).
    earlier = None if seen in answers else next((key for key in answers if key[0] == peer and set(key[1]) <= set(seen[1])), None)
    if llm.enabled and seen in answers:
        candidates, tokens, model_failed = copy.deepcopy(answers[seen])  # planning may change a candidate
    elif llm.enabled and earlier is not None:
        candidates, tokens, model_failed = copy.deepcopy(answers[earlier])
        answered = set(earlier[1])
        candidates += extract_explicit([m for m in messages if str(m.get("id")) not in answered], when=when, user=store.identity.user)
    elif llm.enabled and not ask_model:
        model_failed = "the store kept changing while the model was asked: extracted with the offline rules"
        candidates = extract_explicit(messages, when=when, user=store.identity.user)
    elif llm.enabled:
        from ov.errors import ConfigError
        from ov.llm.client import LLMError
        from ov.llm.usage import UsageLog
        from ov.sessions.memory.llm_extract import extract_with_llm

        read = reader(tx, memories)
        existing = _memories_for_llm(store, memories, lambda rel: read(str(memories), rel), llm.max_prompt_chars)
        try:
            candidates, tokens = extract_with_llm(
                llm,
                schemas,
                messages,
                existing,
                user=store.identity.user,
                when=when,
                prompts_dir=store.home.root / "prompts",
                peer=peer,
                usage=UsageLog(store.state, "extraction"),
                stop=store.stop,  # an MCP call cancelled while the model answers: nothing is written
            )
        # An offline laptop, an expired key or a broken prompt override must not lose the
        # memories (ConfigError: the override does not load); a bug still fails.
        except (LLMError, ConfigError) as exc:
            tokens = getattr(exc, "tokens", None) or tokens  # billed although the answer was useless
            model_failed = f"{type(exc).__name__}: {exc}"
            candidates = extract_explicit(messages, when=when, user=store.identity.user)
        answers[seen] = copy.deepcopy((candidates, tokens, model_failed))
    else:
        candidates = extract_explicit(messages, when=when, user=store.identity.user)

    if peer:
        # What holds only in the project the session works in ("we never use requests in new code
        # in this repo") is the peer's: a hook's peer is that project (its workspace). In the
        # user's own memories it was injected into every other project's sessions as a rule.
        candidates = [replace(c, about="peer") if c.about != "peer" and said_of_this_project(c) else c for c in candidates]
    roots = {memories: [c for c in candidates if c.about != "peer"]}
    if peer:
        roots[VikingURI(("user", store.identity.user, "peers", peer, "memories"))] = [c for c in candidates if c.about == "peer"]
    # The same planning as `ov remember`: one way of merging, one shape of diff.
    planned, diff = plan_memories(
        schemas,
        {str(root): group for root, group in roots.items()},
        read=reader(tx, *roots),
        listing=lister(tx, *roots),
        when=when,
        archive_uri=archive_uri,
        user=store.identity.user,
    )
    by_name = {str(root): root for root in roots}
    writes = {f"{by_name[root].path}/{rel}": text for (root, rel), text in planned.items()}
    return diff, writes, tokens, model_failed


# The files a model may merge into: one profile, and topic- or name-keyed files it
# could otherwise duplicate. Events, trajectories and experiences are never merged.
_LLM_VISIBLE = ("profile.md", "preferences", "entities")


def _memories_for_llm(store: Store, memories: VikingURI, read, max_chars: int) -> dict[str, str]:
    """Visible text of the memory files the model should see, read until ``max_chars`` is reached."""
    import os

    from ov.sessions.memory.files import parse_memory

    root = store.path(memories)
    relpaths: list[str] = []
    for name in _LLM_VISIBLE:
        top = root / name
        if top.is_file():
            relpaths.append(name)
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            base = os.path.relpath(folder, root).replace(os.sep, "/")
            relpaths.extend(f"{base}/{f}" for f in sorted(files) if f.endswith(".md") and not f.startswith("."))
    out: dict[str, str] = {}
    total = 0
    for relpath in relpaths:
        if total >= max_chars:
            break  # llm_extract shares a smaller budget among them anyway
        text = read(relpath)
        if text is None:
            continue
        try:
            text = parse_memory(text)[0]
        except Exception:  # noqa: BLE001 - a broken trailer still leaves text worth showing
            pass
        out[relpath] = text
        total += len(text)
    return out


def _add_token_usage(meta: dict, tokens: dict[str, int] | None) -> None:
    if not tokens:
        return
    spent = meta.setdefault("llm_token_usage", {"prompt": 0, "completion": 0})
    spent["prompt"] = spent.get("prompt", 0) + tokens.get("prompt_tokens", 0)
    spent["completion"] = spent.get("completion", 0) + tokens.get("completion_tokens", 0)


def _next_archive(store: Store, uri: VikingURI, meta: dict) -> int:
    index = meta.get("commit_count", 0) + 1
    while store.path(VikingURI((*uri.parts, sidecar.HISTORY, f"{sidecar.ARCHIVE_PREFIX}{index:03d}"))).exists():
        index += 1
    return index


def _jsonl(messages: list[dict]) -> bytes:
    return "".join(json.dumps(m, ensure_ascii=False, sort_keys=True) + "\n" for m in messages).encode("utf-8")


