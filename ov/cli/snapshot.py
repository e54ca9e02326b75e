"""``ov snapshot``: history of the store."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ov.cli.output import emit, local_time, note, nothing, plain, short
from ov.cli.runtime import OvCommand, OvGroup, ReadCommand, runtime

app = typer.Typer(cls=OvGroup, help="Record and inspect the store's history.", no_args_is_help=True)


@app.command("commit", cls=OvCommand)
def snapshot_commit(
    message: Annotated[
        list[str],
        typer.Option(
            "-m",
            "--message",
            help="What the hand edits were: the first paragraph is the subject, the rest the body; given twice or more, each is a paragraph (as git's -m).",
            show_default=False,
        ),
    ],
) -> None:
    """Record edits made by hand in the work tree as one commit (nothing to do when clean)."""
    result = runtime().store.snapshot_commit("\n\n".join(message))
    payload = {"command": result.command, "uris": list(result.uris), "commit": result.commit, "changed": result.changed}
    if result.changed:
        text = f"committed {len(result.uris)} hand-edited path(s) (commit {short(result.commit)})"
    else:
        text = "work tree clean: nothing to commit"
    emit(payload, lambda: plain(text))


# A year of use makes 3,000 commits (393 KB of lines); the newest are what a look is for.
LISTED_COMMITS = 50
UriOption = Annotated[str | None, typer.Option("--uri", "-u", help="Only this file or subtree.")]
StatOption = Annotated[bool, typer.Option("--stat", help="One line per changed file with its added and removed lines, not the diffs (with --json: `added` and `removed` per file, the totals in `stat`).")]


@app.command("log", cls=ReadCommand)
def snapshot_log(
    uri: UriOption = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=0, help="Show at most this many commits, the newest (0: all).")] = LISTED_COMMITS,
    every: Annotated[bool, typer.Option("--all", help="List every commit (as --limit 0).")] = False,
    after: Annotated[str | None, typer.Option("--after", help="Only commits made after this time (2h, 7d, 2026-05-01), as `ov find --after`.")] = None,
    before: Annotated[str | None, typer.Option("--before", help="Only commits made before this time.")] = None,
    via: Annotated[
        list[str] | None,
        typer.Option("--via", help="Only commits made this way: cli, mcp, hook, or a full value (hook claude); repeat for several.", show_default=False),
    ] = None,
    command: Annotated[
        list[str] | None, typer.Option("--command", help="Only commits of this command (remember, commit, pull, ...); repeat for several.", show_default=False)
    ] = None,
) -> None:
    """List commits newest first (those a pull merged in too): author, command, the URIs each touched, hand edits it kept (the newest 50 unless told)."""
    from ov.history import snapshots as history
    from ov.timespec import parse_time

    store = runtime().store
    where = history.LogFilter(
        after=parse_time(after) if after is not None else None,
        before=parse_time(before) if before is not None else None,
        via=tuple(via or ()),
        commands=tuple(command or ()),
    )
    limit = None if every or not limit else limit
    # One more than shown says whether older ones are left, without reading all of a long history.
    found = history.log(store, store.uri(uri) if uri else None, limit + 1 if limit else None, where=where)
    entries = found.entries[:limit] if limit else found.entries
    if limit and len(found.entries) > limit:
        note(f"older commits not listed (the newest {limit} are): `-n N` for more, `--all` for every one")
    if found.capped and (limit is None or limit > history.MAX_LOG):  # not the one more asked for
        note(f"only the newest {len(entries):,} commits are listed: narrow the log with --after, --before or --uri to see older ones")

    def human() -> None:
        if not entries:
            if where == history.LogFilter():
                nothing("no commits" + (f" touched {uri}" if uri else ""))
            else:
                nothing("no commits" + (f" that touched {uri}" if uri else "") + " matched the filters")
        # Who made each commit matters when several users share an account; the name alone, in
        # a column as wide as the longest shown, keeps the subjects aligned. Widths in terminal
        # cells: "山田太郎" takes eight, not four.
        from rich.cells import cell_len, set_cell_size

        authors = [_author_name(e.author) for e in entries]
        width = max(map(cell_len, authors), default=0)
        for e, author in zip(entries, authors):
            tags = f" [{', '.join(e.tags)}]" if e.tags else ""
            via = f" (via {e.via})" if e.via else ""
            plain(f"{short(e.commit)} {local_time(e.time)} {set_cell_size(author, width)} {e.subject}{tags}{via}")
            shown = [u for u in e.uris if u not in e.subject]
            for u in shown[:5]:
                plain(f"    {u}")
            # The message names 200 URIs at most and says how many more (Ov-Uri-More).
            hidden = max(len(shown) - 5, 0) + e.uris_more
            if hidden:
                plain(f"    (+{hidden} more)")
            for u in e.hand_edits:
                plain(f"    hand edit kept: {u}")

    emit([e.to_dict() for e in entries], human)


@app.command("show", cls=ReadCommand)
def snapshot_show(
    rev: Annotated[str, typer.Argument(help="A commit id (or its first digits), a tag, HEAD, HEAD~2, ...", show_default=False)],
    uri: UriOption = None,
    stat: StatOption = False,
) -> None:
    """Show what a commit changed, or (with --uri FILE) the file as it was at that revision."""
    from ov.history import snapshots as history

    store = runtime().store
    # --stat asks what the commit changed, so for a file too: its counts, not its content.
    result = history.show(store, rev, store.uri(uri) if uri else None, changes=stat)
    if "changes" in result:
        result.update(history.changes_dict(result["changes"], with_stat=stat))

    def human() -> None:
        if "content" in result:
            content = result["content"]
            sys.stdout.write(content if not content or content.endswith("\n") else content + "\n")
            return
        if result.get("binary"):
            plain(f"{result['uri']} at {short(result['commit'])}: binary, {result['size']} bytes")
            return
        if "refused" in result:
            plain(f"{result['uri']} at {short(result['commit'])}: not shown, ov never writes it: {result['refused']}")
            return
        plain(f"commit {result['commit']}" + (f"  [{', '.join(result['tags'])}]" if result["tags"] else ""))
        if result["merge"]:  # as git show says it
            plain("Merge: " + " ".join(short(p) for p in result["parents"]))
        plain(f"{local_time(result['time'])}  {result['author']}")
        plain(f"    {result['subject']}")
        if result["body"]:  # as git show indents it, under the subject after a blank line
            plain()
            for line in result["body"].split("\n"):
                plain(f"    {line}".rstrip())
        if result["reverts"]:  # the subject names it by its first digits; git's revert says it so
            plain(f"    This reverts commit {result['reverts']}.")
        for edited in result["hand_edits"]:
            plain(f"    hand edit kept: {edited} (lines of it are the user's)")
        if result["merge"]:
            plain(f"    (a merge: the changes it brought into its first parent, {short(result['against'])})")
        plain()
        _print_stat(result) if stat else _print_diffs(result["changes"])

    emit(result, human)


@app.command("diff", cls=ReadCommand)
def snapshot_diff(
    from_rev: Annotated[str | None, typer.Argument(metavar="[FROM]", help="The older revision (default: HEAD, against the work tree).")] = None,
    to_rev: Annotated[str | None, typer.Argument(metavar="[TO]", help="The newer revision (default: HEAD).")] = None,
    uri: UriOption = None,
    stat: StatOption = False,
) -> None:
    """Show a readable diff between two revisions; with none, the hand edits since the last commit."""
    from ov.history import snapshots as history

    store = runtime().store
    result = history.diff(store, from_rev, to_rev, store.uri(uri) if uri else None)
    payload = {**result, **history.changes_dict(result["changes"], with_stat=stat)}

    def human() -> None:
        if not result["changes"]:
            nothing("no differences")
            return
        _print_stat(payload) if stat else _print_diffs(payload["changes"])

    emit(payload, human)


@app.command("restore", cls=OvCommand)
def snapshot_restore(
    rev: Annotated[str, typer.Argument(help="The revision to bring back.", show_default=False)],
    uri: UriOption = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be written (rolled back, for a file changed since), deleted and kept (a live session).")] = False,
) -> None:
    """Bring a subtree (or everything) back to a revision, as a new commit on top (history is kept)."""
    from ov.history import snapshots as history

    store = runtime().store
    plan = history.restore(store, rev, store.uri(uri) if uri else None, dry_run=dry_run)

    def human() -> None:
        verb = ("would write", "would delete") if dry_run else ("wrote", "deleted")
        rolled_back = set(plan.rolled_back)
        for path in plan.write:
            if path in rolled_back:  # what it holds now, changed since, is lost with the restore
                plain(f"{'would roll back' if dry_run else 'rolled back'} viking://{path} (changed since {plan.rev}: those changes are undone)")
            else:
                plain(f"{verb[0]} viking://{path}")
        for path in plan.delete:
            plain(f"{verb[1]} viking://{path}")
        for path in plan.kept_live:
            plain(f"{'would keep' if dry_run else 'kept'} viking://{path}: a live session (its messages are not archived yet; name it with --uri to restore it)")
        if not plan.write and not plan.delete:
            plain(f"nothing else differs from {plan.rev}: nothing to restore" if plan.kept_live else f"already as at {plan.rev}: nothing to restore")
        elif plan.new_commit:
            plain(f"restored to {plan.rev} ({short(plan.commit)}) in commit {short(plan.new_commit)}")

    emit({**plan.to_dict(), "dry_run": dry_run}, human)


@app.command("revert", cls=OvCommand)
def snapshot_revert(
    rev: Annotated[str, typer.Argument(help="The commit whose changes to take back.", show_default=False)],
    uri: Annotated[str | None, typer.Option("--uri", "-u", help="Only its changes to this file or subtree (a session commit's memories: viking://~/memories; its session, whose messages then are live again: viking://~/sessions/S).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be written, deleted and merged.")] = False,
) -> None:
    """Take back what one commit changed, as a new commit on top: later changes stay (git revert)."""
    from ov.history.revert import revert

    store = runtime().store
    result = revert(store, rev, store.uri(uri) if uri else None, dry_run=dry_run)
    plan = result.plan

    def human() -> None:
        merged, hand_edits = set(result.merged), set(result.hand_edits)
        for path in plan.write:
            if path in merged:  # changed since too: only the commit's lines go
                plain(f"{'would merge' if dry_run else 'merged'} viking://{path} (its later changes kept)")
            elif path in hand_edits:  # the commit took in a hand edit: its lines go, the user's stay
                plain(f"{'would merge' if dry_run else 'merged'} viking://{path} (the hand edit {short(result.reverted)} took in kept: only its own lines go)")
            else:
                plain(f"{'would write' if dry_run else 'wrote'} viking://{path}")
        for path in plan.delete:
            plain(f"{'would delete' if dry_run else 'deleted'} viking://{path}")
        for path in result.kept_hand_edits:
            plain(
                f"{'would keep' if dry_run else 'kept'} viking://{path} as it is: it held a hand edit that {short(result.reverted)} took in,"
                " and its lines could not be told from yours"
                f" (`ov snapshot show {short(result.reverted)}` shows the lines it added: take them out by hand)"
            )
        for folder in result.kept_archived:
            plain(
                f"{'would keep' if dry_run else 'kept'} viking://{folder} as it is: the messages {short(result.reverted)} archived stay archived,"
                " so no `ov commit` learns from them again (name it with --uri to put them back live)"
            )
        for folder in result.relived:
            plain(
                f"viking://{folder}: the messages {short(result.reverted)} archived {'would be' if dry_run else 'are'} live again,"
                f" and the next `ov commit {folder.rsplit('/', 1)[-1]}` learns from them again"
            )
        if not plan.changed:
            if result.kept_archived or result.kept_hand_edits:
                plain(f"nothing else to revert: what else {result.rev} ({short(result.reverted)}) changed is already undone")
            else:
                plain(f"nothing to revert: what {result.rev} ({short(result.reverted)}) changed is already undone")
        elif plan.new_commit:
            plain(f"reverted {short(result.reverted)} ({result.subject}) in commit {short(plan.new_commit)}")

    emit({**result.to_dict(), "dry_run": dry_run}, human)


# Listing tags reads; naming a commit needs one, so the account must exist either way.
@app.command("tag", cls=ReadCommand)
def snapshot_tag(
    name: Annotated[str | None, typer.Argument(help="The tag to create (none: list the tags).")] = None,
    rev: Annotated[str | None, typer.Argument(help="The revision to name (default: HEAD).")] = None,
    delete: Annotated[bool, typer.Option("--delete", "-d", help="Remove the tag NAME (the commits it named stay).")] = False,
) -> None:
    """Name a revision, to restore or diff against it later; without a name, list the tags; with -d, remove one."""
    from ov.errors import InvalidInput
    from ov.history import snapshots as history

    store = runtime().store
    if delete:
        if name is None or rev is not None:
            raise InvalidInput("--delete takes one tag's name and no revision", hint="ov snapshot tag -d NAME")
        removed = history.delete_tag(store, name)
        emit(removed, lambda: plain(f"deleted tag {name}" + (f" (was {short(removed['commit'])})" if removed["commit"] else "")))
        return
    if name is None:
        listed = history.tags(store)

        def human() -> None:
            for t in listed:
                if t["commit"]:
                    plain(f"{t['tag']} {short(t['commit'])}")
                elif "kind" in t:
                    plain(f"{t['tag']} (names a {t['kind']}, {short(t['object'])}, not a commit)")
                else:
                    plain(f"{t['tag']} ({t['gone']})")
            if not listed:
                nothing("no tags")

        emit(listed, human)
        return
    result = history.tag(store, name, rev)
    emit(result, lambda: plain(f"tagged {short(result['commit'])} as {name}"))


_AUTHOR_MAX = 20


def _author_name(author: str) -> str:
    """``dana <dana@default.ov>`` as ``dana``, cut to a column's width (commits made by other git
    tools may carry long names)."""
    from rich.cells import cell_len, set_cell_size

    name = author.split(" <", 1)[0].strip() or author
    return name if cell_len(name) <= _AUTHOR_MAX else set_cell_size(name, _AUTHOR_MAX - 1).rstrip() + "…"


def _print_stat(result: dict) -> None:
    """One line per file (kind of change, URI, lines added and removed) and the totals: an
    add-resource commit's diffs run to tens of thousands of lines."""
    from ov.wording import counted

    for change in result["changes"]:
        if change.get("binary") or change.get("refused"):
            plain(f"{change['change']:<9} {change['uri']}  ({'binary' if change.get('binary') else 'ov never writes it: ' + change['refused']})")
            continue
        plain(f"{change['change']:<9} {change['uri']}  +{change['added']} -{change['removed']}")
    totals = result["stat"]
    plain(f"{counted(totals['files'], 'file')} changed, {counted(totals['added'], 'line')} added, {counted(totals['removed'], 'line')} removed")


def _print_diffs(changes: list[dict]) -> None:
    """Unified diffs, coloured on a terminal (green additions, red deletions) or as output.color says."""
    from ov.cli.output import styled

    fancy = styled()
    if fancy:
        from rich.text import Text

        from ov.cli.output import console

        out = console()
    for change in changes:
        if change.get("binary") or change.get("refused"):
            plain(f"{change['change']}: {change['uri']} ({'binary' if change.get('binary') else 'ov never writes it: ' + change['refused']})")
            continue
        diff = change["diff"].rstrip("\n")
        for line in diff.split("\n") if diff else ():  # "\n" alone ends a diff's line
            if not fancy:
                plain(line)
                continue
            style = "bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else ""
            out.print(Text(line, style=style))
