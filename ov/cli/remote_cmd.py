"""``ov remote``, ``ov push``, ``ov pull``: sharing an account through a git remote."""

from __future__ import annotations

from typing import Annotated

import typer

from ov.cli.output import emit, nothing, plain, short, warn
from ov.cli.runtime import OvCommand, OvGroup, ReadCommand, runtime

app = typer.Typer(cls=OvGroup, help="Manage the git remotes an account is shared through.", no_args_is_help=True)

RemoteArg = Annotated[
    str | None, typer.Argument(help="The remote (default: the only one, else 'origin').", show_default=False)
]


def register(main_app: typer.Typer) -> None:
    main_app.add_typer(app, name="remote")
    main_app.command("push", cls=ReadCommand)(push)  # writes the remote, only reads the account
    main_app.command("pull", cls=OvCommand)(pull)


@app.command("add", cls=OvCommand)
def remote_add(
    name: Annotated[str, typer.Argument(help="A short name for the remote, e.g. origin.")],
    url: Annotated[str, typer.Argument(help="Any git URL: a path, file://, ssh:// or user@host:path, http(s)://.")],
) -> None:
    """Add a git remote to push to and pull from."""
    from ov.history import remotes

    remote = remotes.add_remote(runtime().store, name, url)
    emit({"name": remote.name, "url": remote.url}, lambda: plain(f"added remote {remote.name} {remote.url}"))


@app.command("list", cls=ReadCommand)
def remote_list() -> None:
    """List the account's git remotes."""
    from ov.history import remotes

    items = remotes.list_remotes(runtime().store)

    def human() -> None:
        if not items:
            nothing("no remotes (add one with `ov remote add origin URL`)")
        for remote in items:
            if remote.push_url is None:
                plain(f"{remote.name}\t{remote.url}")
            else:  # two lines, as `git remote -v` shows a remote that pushes elsewhere
                plain(f"{remote.name}\t{remote.url} (fetch)")
                plain(f"{remote.name}\t{remote.push_url} (push)")

    emit([{"name": r.name, "url": r.url, "push_url": r.push_url} for r in items], human)


@app.command("remove", cls=OvCommand)
def remote_remove(name: Annotated[str, typer.Argument(help="The remote to remove.")]) -> None:
    """Remove a git remote (nothing on the remote itself changes)."""
    from ov.history import remotes

    remote = remotes.remove_remote(runtime().store, name)
    emit({"name": remote.name, "url": remote.url}, lambda: plain(f"removed remote {remote.name}"))


def push(remote: RemoteArg = None) -> None:
    """Send the account's commits to a git remote (refused when the remote has commits you do not have)."""
    from ov.history import remotes

    result = remotes.push(runtime().store, remote)
    payload = {
        "remote": result.remote,
        "url": result.url,
        "old_head": result.old_head,
        "new_head": result.new_head,
        "pushed": result.pushed,
        "tags": result.tags,
        "diverged_tags": result.diverged_tags,
        "refused_by_pull": result.refused_by_pull,
    }
    _warn_diverged(result.diverged_tags, "the remote's")
    if result.refused_by_pull:
        # Said, not refused: see PushResult; whoever pulls it must hear why their pull fails.
        warn(f"`ov pull` of what was pushed is refused: {result.refused_by_pull}; `ov fsck` names such paths")
    if result.pushed:
        text = f"pushed to {result.remote}: {short(result.old_head) if result.old_head else '(empty)'} -> {short(result.new_head)}"
    else:
        text = f"{result.remote} is up to date ({short(result.new_head)})"
    emit(payload, lambda: plain(text))


def _warn_diverged(tags: list[str], whose: str) -> None:
    if tags:
        warn(f"tag(s) {', '.join(tags)} name different commits here and on the remote; tags never move, so {whose} stay as they are")


def pull(
    remote: RemoteArg = None,
    allow_unrelated: Annotated[
        bool, typer.Option("--allow-unrelated", help="Merge a remote whose history shares no commit with this account's.")
    ] = False,
) -> None:
    """Take a git remote's commits: fast-forward, or one merge commit that keeps both sides of a conflict."""
    from ov.history import remotes

    result = remotes.pull(runtime().store, remote, allow_unrelated=allow_unrelated)
    payload = {
        "remote": result.remote,
        "url": result.url,
        "outcome": result.outcome,
        "old_head": result.old_head,
        "new_head": result.new_head,
        "remote_head": result.remote_head,
        "merged": result.merged,
        "changed": result.changed,
        "conflicts": result.conflicts,
        "tags": result.tags,
        "diverged_tags": result.diverged_tags,
        "warnings": result.warnings,
        "shortened": result.shortened,
    }
    _warn_diverged(result.diverged_tags, "this account's")
    for text in result.warnings:
        warn(text)
    if result.shortened:
        warn(f"cut {len(result.shortened)} summary(ies) to their layer's limit, as an import does: {', '.join(result.shortened)}")
    if result.outcome == "empty-remote":
        text = f"nothing to pull: {result.remote} has no commits yet"
    elif result.outcome == "up-to-date":
        text = f"already up to date with {result.remote} ({short(result.new_head)})"
    elif result.outcome == "replaced":
        text = f"replaced the empty local history with {result.remote}'s ({short(result.new_head)}, {len(result.changed)} path(s))"
    elif result.outcome == "fast-forward":
        text = f"fast-forwarded to {result.remote} ({short(result.old_head)} -> {short(result.new_head)}, {len(result.changed)} path(s))"
    else:
        text = f"merged {result.remote} ({short(result.remote_head)}) as {short(result.new_head)}, {len(result.changed)} path(s)"
        if result.conflicts:
            copies = [c["copy"] for c in result.conflicts if c["copy"]]
            kept = [c["path"] for c in result.conflicts if not c["copy"]]
            text += f"; {len(result.conflicts)} conflict(s) kept both versions" + (
                f" (theirs beside ours: {', '.join(copies)})" if copies else ""
            ) + (f" (changed here, deleted there, kept: {', '.join(kept)})" if kept else "")
    emit(payload, lambda: plain(text))
