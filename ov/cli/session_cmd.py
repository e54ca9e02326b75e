"""``ov session``: capture agent conversations message by message."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ov.cli.output import emit, for_terminal, note, nothing, plain, short, warn
from ov.cli.runtime import OvCommand, OvGroup, ReadCommand, runtime, standard_input
from ov.errors import InvalidInput
from ov.wording import counted

app = typer.Typer(cls=OvGroup, help="Capture agent conversations into sessions.", no_args_is_help=True)

SessionArg = Annotated[str, typer.Argument(help="The session id.", show_default=False)]


@app.command("new", cls=OvCommand)
def session_new(
    session_id: Annotated[str | None, typer.Option("--id", help="Use this id (default: a new time-based one).")] = None,
) -> None:
    """Create a session (one commit); prints its id."""
    from ov.sessions import session

    rt = runtime()
    result = session.create(rt.store, session_id, peer=rt.identity.peer)
    sid = result.uris[0].rsplit("/", 1)[1]
    emit({"session": sid, "uri": result.uris[0], "commit": result.commit}, lambda: plain(sid))


# A year of use holds 1,500 sessions (118 KB of lines); the newest are what a look is for.
LISTED_SESSIONS = 50


@app.command("list", cls=ReadCommand)
def session_list(
    limit: Annotated[
        int, typer.Option("--limit", "-n", min=0, help="Show at most this many, the most recently active (0: all).")
    ] = LISTED_SESSIONS,
    every: Annotated[bool, typer.Option("--all", help="List every session (as --limit 0).")] = False,
) -> None:
    """List the current user's sessions, most recently active first (the newest 50 unless told)."""
    from ov.sessions import session

    everything = session.list_sessions(runtime().store)
    rows = everything if every or not limit else everything[:limit]
    more = len(everything) - len(rows)

    def human() -> None:
        if not everything:
            nothing("no sessions yet: `ov session new` or `ov session add SESSION --text ...`")
        for row in rows:
            if row["damaged"]:
                plain(f"{row['session']}  damaged .meta.json: {row['damaged']} (`ov session show {row['session']}` says what to do)")
                continue
            pending = f", memory extraction failed: {counted(len(row['extraction_pending']), 'archive')} to extract again" if row["extraction_pending"] else ""
            plain(f"{row['session']}  {row['messages']} live / {row['total_messages']} total messages, {counted(row['commits'], 'commit')}, updated {row['updated_at']}{pending}")
        if more:  # on stderr: a pipe reading the list gets sessions only
            note(f"{counted(more, 'more session')} not listed, less recently active: `ov session list --all` lists them all")

    emit({"sessions": rows, "total": len(everything)}, human)


@app.command("show", cls=ReadCommand)
def session_show(
    session_id: SessionArg,
    last: Annotated[int | None, typer.Option("--last", "-n", min=1, help="Only the last N live messages.")] = None,
) -> None:
    """Show a session: its counts, archives and live messages."""
    from ov.sessions import session

    data = session.show(runtime().store, session_id, last=last)

    def human() -> None:
        plain(f"session {data['session']}  ({data['uri']})")
        # data["messages"] is the list shown below (perhaps only the --last N); the count is the meta's.
        plain(f"{data['meta'].get('message_count', 0)} live / {data['total_messages']} total messages, {counted(data['commits'], 'commit')}, ~{data['pending_tokens']} pending tokens")
        for archive in data["archives"]:
            plain(f"  archive {archive}")
        if data["extraction_pending"]:
            warn(f"memory extraction failed for {', '.join(data['extraction_pending'])}: the next `ov commit {data['session']}` extracts them again")
        for message in data["messages"]:
            text = for_terminal(session.message_text(message).replace("\n", " ")[:200])
            plain(f"[{message.get('created_at')}] {message.get('role')}: {text}")  # a hand-edited line may lack either

    emit(data, human)


@app.command("add", cls=OvCommand)
def session_add(
    session_id: SessionArg,
    text: Annotated[str | None, typer.Option("--text", "-t", help="The message text.")] = None,
    role: Annotated[str, typer.Option("--role", "-r", help="user, assistant, system or tool.")] = "user",
    parts: Annotated[str | None, typer.Option("--parts", help="The message parts as a JSON list (text, tool, context).")] = None,
    message_id: Annotated[str | None, typer.Option("--id", help="The message's own id (a host's uuid); adding it twice is a no-op.")] = None,
    created_at: Annotated[str | None, typer.Option("--created-at", help="ISO 8601 time of the message (default: now).")] = None,
) -> None:
    """Add one message (one commit); the session is created if it does not exist."""
    from ov.sessions import session

    if (text is None) == (parts is None):
        raise InvalidInput("give either --text or --parts")
    message: dict = {"role": role}
    if text is not None:
        if not text.strip():
            raise InvalidInput("the message text is empty", hint='say something, e.g. --text "we deploy on Tuesdays"')
        message["text"] = text
    else:
        message["parts"] = _json(parts, "--parts")
    if message_id is not None:
        message["id"] = message_id
    if created_at is not None:
        message["created_at"] = created_at
    _report_add(session.add_messages(runtime().store, session_id, [message]))


@app.command("add-messages", cls=OvCommand)
def session_add_messages(
    session_id: SessionArg,
    messages: Annotated[str | None, typer.Argument(help="A JSON array of messages; default, or '-': standard input (an array or JSON lines).")] = None,
) -> None:
    """Add several messages in one commit (all are validated before any is written)."""
    from ov.sessions import session

    given = InvalidInput("no messages given", hint="pass a JSON array, or pipe an array or JSON lines on standard input")
    if messages is None or messages == "-":  # `-`: standard input, by name
        data = standard_input(asked=messages == "-")
        if data is None:
            raise given
        raw = data.decode("utf-8", "replace")
    else:
        raw = messages
    parsed = _messages(raw)
    if not parsed:  # `[]`: said as for no input, not as "0 message(s) already there" of a session that may not exist
        raise given
    _report_add(session.add_messages(runtime().store, session_id, parsed))


@app.command("used", cls=OvCommand)
def session_used(
    session_id: SessionArg,
    uris: Annotated[list[str], typer.Argument(help="URIs that helped in this session.", show_default=False)],
) -> None:
    """Record which URIs were used in a session (one commit)."""
    from ov.sessions import session

    result = session.record_used(runtime().store, session_id, uris)
    emit({**session.session_fields(result.uris[0]), "used": list(result.uris[1:]), "commit": result.commit}, lambda: plain(f"recorded {len(uris)} used URI(s) (commit {short(result.commit)})"))


@app.command("delete", cls=OvCommand)
def session_delete(session_id: SessionArg) -> None:
    """Delete a session and its archives (one commit; history keeps them)."""
    from ov.sessions import session

    result = session.delete(runtime().store, session_id)
    emit({**session.session_fields(result.uris[0]), "commit": result.commit}, lambda: plain(f"deleted session {session_id} (commit {short(result.commit)})"))


def _report_add(result) -> None:
    data = result.to_dict()
    if result.commit:
        text = f"added {len(result.added)} message(s) to {result.session_uri} (commit {short(result.commit)})"
    else:
        text = f"nothing added to {result.session_uri}: {len(result.duplicates)} message(s) already there"
    if result.redacted:
        text += f"; {result.redacted} secret(s) redacted"
    emit(data, lambda: plain(text))


def _json(text: str, what: str):
    from ov.sessions.messages import load_json

    return load_json(text, what)


def _messages(raw: str) -> list:
    from ov.sessions.messages import load_messages

    return load_messages(raw)


def _mark(store, session_id: str):
    """The session's live mark before its commit, None when it has none (no hook captured it)."""
    from ov.sessions.live import live_dir, read_mark

    try:
        return read_mark(live_dir(store) / session_id)
    except (OSError, ValueError):
        return None


def _keep_for_subagents(store, session_id: str, mark) -> None:
    """The session's live mark kept, as the hooks' commit keeps it, while the transcript it names
    awaits what subagents found (a Codex rollout's spawn without its notification), with the
    peer it named: this command may run in another project than the session's."""
    from ov.hosts.capture import keep_for_subagents
    from ov.hosts.host import HOST_MODULES, load

    if mark.host in HOST_MODULES:
        peer = mark.peer if mark.peer_known else store.identity.peer
        keep_for_subagents(store, load(mark.host), session_id, mark.transcript, peer=peer)


def _busy(store) -> frozenset[str]:
    """Sessions a host captured within the orphan sweep's idle time: their agent's, still going.
    A mark held for subagents' results is no agent's turn going on (its parent ended; the sweep
    reads what they write), so it keeps no session out."""
    from ov.sessions.live import live_dir, live_sessions, read_mark

    now, idle = time.time(), store.config.hooks.orphan_after
    busy = set()
    for sid, last in live_sessions(store):
        if now - last >= idle:
            continue
        try:
            if read_mark(live_dir(store) / sid).held(now):
                continue
        except OSError:
            continue  # committed meanwhile
        busy.add(sid)
    return frozenset(busy)


@app.command("commit", cls=OvCommand)
def session_commit(
    session_id: Annotated[str | None, typer.Argument(help="The session id (default: the most recently active one with messages that no agent's host is still capturing, else one whose memory extraction failed).")] = None,
    keep: Annotated[int, typer.Option("--keep", min=0, help="Keep the last N messages live.")] = 0,
) -> None:
    """Archive the live messages, summarise them and extract memories (one commit)."""
    from ov.sessions.commit import commit_session, latest_session

    store = runtime().store
    if session_id is None:
        session_id = latest_session(store, busy=_busy(store))
    mark = _mark(store, session_id)
    report = commit_session(store, session_id, keep=keep)
    if mark is not None:
        _keep_for_subagents(store, session_id, mark)

    def human() -> None:
        for name in report.dropped:
            warn(f"{name} is no longer waiting for its memories to be extracted: its messages are gone")
        if report.failed and not report.archived:
            # A retry with no new message: it extracted nothing, and says only that.
            retried = ", ".join(report.retried)
            if report.commit is None:
                warn(f"extracting the memories of {retried} failed again, as before ({report.failed}): nothing changed; the next commit of this session tries again")
            else:
                warn(f"extracting the memories of {retried} again failed ({report.failed}): recorded in .failed.json (commit {short(report.commit)}); the next commit of this session tries again")
            return
        if report.status == "skipped":
            plain(f"{report.session_uri}: nothing to archive (skipped)")
            return
        if report.archived:
            plain(f"archived {report.archived} message(s) to {report.archive} (commit {short(report.commit)})")
        elif report.archive is None:
            plain(f"{report.session_uri}: nothing to archive (commit {short(report.commit)})")
            return
        else:
            plain(f"nothing new to archive; extracted the memories of {report.archive} again (commit {short(report.commit)})")
        if report.failed:
            warn(f"memory extraction failed ({report.failed}): recorded in .failed.json; the next commit of this session extracts these messages again")
        else:
            if report.retried:
                plain(f"  extracted again the messages whose extraction had failed: {', '.join(report.retried)}")
            counts = report.memories or {}
            plain(f"  memories: {counts.get('adds', 0)} added, {counts.get('updates', 0)} updated, {counts.get('deletes', 0)} deleted")
            for edited in report.hand_edits:
                plain(f"  kept your hand edit of {edited}: the memories were merged into it and both committed")
            if report.model_failed:
                warn(f"the model failed ({report.model_failed}); the offline rules extracted these memories instead")

    emit(report.to_dict(), human)


def remember(
    text: Annotated[str, typer.Argument(help="What to remember, e.g. \"I prefer tabs over spaces\".", show_default=False)],
    memory_type: Annotated[str | None, typer.Option("--type", help="profile, preferences, entities or events (experiences and trajectories are learnt from sessions).")] = None,
) -> None:
    """Write a long-term memory now, deterministically (one commit); prints its URI and the commit.

    With --peer P the memory is filed under that peer's memories (viking://~/peers/P/memories/).
    """
    from ov.sessions.remember import remember as run_remember

    rt = runtime()
    # Only an explicit --peer files the memory about a peer: a peer set in the environment
    # names who the user works with, not what a statement like "I prefer tabs" is about.
    peer = rt.identity.peer if rt.identity.source_of("peer") == "flag" else None
    result = run_remember(rt.store, text, memory_type=memory_type, peer=peer)
    emit(result.to_dict(), lambda: plain(result.summary))


def refile(
    uris: Annotated[list[str] | None, typer.Argument(help="Only these dated notes (default: every one `ov fsck` names).", show_default=False)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would move.")] = False,
) -> None:
    """File the dated notes an older ov made of what is now a preference, fact or profile line where `ov remember` files it (one commit).

    An ov before 1d3df58 kept statements such as "Always run the linter before committing" as dated
    notes (memories/events/...); `ov remember` of the same words then writes a second copy, and a
    correction leaves the note as it was. `ov fsck` names such notes. A note you made on purpose
    (`ov remember --type events`, from this version on) is left where it is unless you name it.
    """
    from ov.sessions.refiling import refile as run_refile

    store = runtime().store
    result = run_refile(store, [store.uri(u) for u in uris] if uris else None, dry_run=dry_run)

    def human() -> None:
        if not result.moves:
            nothing("no dated note to re-file: every one is where `ov remember` puts it")
            return
        for moved, held in result.moves:
            plain(f"{moved} -> {', '.join(held)}")
        plain(f"{'would re-file' if dry_run else 're-filed'} {counted(len(result.moves), 'dated note')}" + (f" (commit {short(result.commit)})" if result.commit else ""))

    emit(result.to_dict(), human)


def forget(
    uri: Annotated[str, typer.Argument(help="The memory's URI.", show_default=False)],
    match: Annotated[str | None, typer.Option("--match", help="Forget only the line that holds this text.", show_default=False)] = None,
    line: Annotated[int | None, typer.Option("--line", min=1, help="Forget only this line (its number, as `ov read` shows it).", show_default=False)] = None,
) -> None:
    """Remove one memory, or one line of it with --match or --line (one commit; git history keeps it).

    A memory file may hold several facts (profile.md: where you work, your editor, your city):
    forgetting the file forgets them all, and says which.
    """
    from ov.sessions.forget import forget as run_forget

    store = runtime().store
    result = run_forget(store, store.uri(uri), match=match, line=line)

    def human() -> None:
        plain(result.summary)
        if result.note:
            warn(f"{result.note}; to forget the words too, `ov rm -r {result.sources[0]}` (the whole conversation it holds)")

    emit(result.to_dict(), human)
