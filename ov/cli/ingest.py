"""Ingest commands: add-resource and add-skill."""

from __future__ import annotations

from typing import Annotated

import typer

from ov.cli.output import emit, plain, short, warn
from ov.cli.progress import progress_bar
from ov.cli.runtime import OvCommand, runtime
from ov.wording import counted


def register(app: typer.Typer) -> None:
    app.command("add-resource", cls=OvCommand)(add_resource)
    app.command("add-skill", cls=OvCommand)(add_skill)


def add_resource(
    source: Annotated[str, typer.Argument(help="A file, a directory, or an http(s) URL.", show_default=False)],
    to: Annotated[str | None, typer.Option("--to", help="Exact target URI: a new one, or the earlier import of the same source (added again).")] = None,
    parent: Annotated[str | None, typer.Option("--parent", help="Add inside this existing directory.")] = None,
    include: Annotated[list[str] | None, typer.Option("--include", help="Only files matching these gitignore-style patterns (repeat or comma-separate); they also take lockfiles, minified bundles and hidden paths they name with the dot.")] = None,
    exclude: Annotated[list[str] | None, typer.Option("--exclude", help="Skip files matching these gitignore-style patterns; an add again keeps the earlier ones unless new ones are given ('' drops them).")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Why this source matters; kept as its description (L0).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Abort with no commit if any file fails to parse or read.")] = False,
    no_limit: Annotated[bool, typer.Option("--no-limit", help="Add a folder of more files or bytes than ingest.max_source_files and ingest.max_source_total_bytes allow.")] = False,
) -> None:
    """Add documents, code, PDFs, web pages or a URL as resources, with L0/L1 summaries (one commit).

    A folder that holds more files to add than ingest.max_source_files (10,000), or more bytes than
    ingest.max_source_total_bytes (100 MiB), is refused before anything is written: narrow it with
    --include or --exclude, add a subfolder, or pass --no-limit.
    """
    from ov.ingest.resource import add_resource as run_add
    from ov.ingest.sources import SourceTooLarge

    try:
        with progress_bar() as progress:
            result = run_add(
                runtime().store,
                source,
                to=to,
                parent=parent,
                include=tuple(include or ()),
                exclude=tuple(exclude or ()),
                reason=reason,
                strict=strict,
                progress=progress,
                unlimited=no_limit,
            )
            if result.commit:
                from ov.index.sync import index_after_add

                # Its full text, so the next prompt finds what was added (the hook never builds an index).
                unindexed = index_after_add(runtime().store, progress)
                if unindexed:
                    result.warnings.append(unindexed)
    except SourceTooLarge as exc:  # a terminal may add it anyway; an MCP tool call may not
        exc.hint += "; {include} picks the files to add, {no_limit} adds it as it is"
        exc.arguments |= {"include", "no_limit"}
        raise
    data = result.to_dict()

    def human() -> None:
        verb = f"added to {result.root} (commit {short(result.commit)})" if result.commit else f"{result.root} is up to date: nothing changed, no commit"
        plain(verb)
        plain(
            f"  {len(result.added)} added, {len(result.updated)} updated, {len(result.removed)} removed, "
            f"{result.unchanged} unchanged, {_kept_counts(result)}{len(result.skipped)} skipped; {result.bytes_read} bytes read, "
            f"{result.summaries} summaries, {result.seconds:.2f}s"
        )
        for item in result.skipped:
            plain(f"  skipped {item.path}: {item.reason}")
        for item in result.kept:
            plain(f"  {item['reason']}")
        for item in result.conflicts:  # the source's change is not in the store: said on stderr
            warn(f"not updated: {item['reason']}")
        if result.redacted and result.commit:  # an unchanged source was redacted before, when it was stored
            plain(f"  {counted(result.redacted, 'secret')} redacted (replaced by [REDACTED:<kind>] before storing)")
        for warning in result.warnings:
            warn(warning)
        if result.tokens:
            plain("  tokens: " + ", ".join(f"{k} {v}" for k, v in sorted(result.tokens.items())))

    emit(data, human)


def _kept_counts(result) -> str:
    """The files of the import the user changed that the add left as they are, when any."""
    kept = f"{len(result.kept)} kept as you changed them, " if result.kept else ""
    return kept + (f"{counted(len(result.conflicts), 'conflict')}, " if result.conflicts else "")


def add_skill(
    path: Annotated[str, typer.Argument(help="A skill folder holding SKILL.md, or a SKILL.md file.", show_default=False)],
    user_scope: Annotated[bool, typer.Option("--user-scope", help="Store it among the current user's skills instead of the account's.")] = False,
) -> None:
    """Add an agent skill (SKILL.md with name and description) under viking://agent/skills/ (one commit)."""
    from ov.ingest.skills import add_skill as run_add_skill

    result = run_add_skill(runtime().store, path, user_scope=user_scope)
    message = f"added skill {result.name} at {result.uri} (commit {short(result.commit)})" if result.commit else f"skill {result.name} is up to date: nothing changed, no commit"
    emit(result.to_dict(), lambda: plain(message))

