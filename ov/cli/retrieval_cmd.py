"""Retrieval and index upkeep: find, reindex, fsck, doctor."""

from __future__ import annotations

from typing import Annotated

import typer

from ov.cli.output import emit, for_terminal, note, nothing, plain, short, styled, warn
from ov.cli.progress import progress_bar
from ov.cli.runtime import OvCommand, ReadCommand, runtime
from ov.errors import Interrupted, InvalidInput, interrupted
from ov.retrieval import MAX_RESULTS

QueryArg = Annotated[str, typer.Argument(help="What to look for, in plain words.", show_default=False)]
# The filters `ov find` and `ov search` share: declared once, read once (filter_options).
UriOpt = Annotated[str | None, typer.Option("--uri", "-u", help="Only below this viking:// URI.")]
# --level and --type take several values, repeated or comma-separated (as --include does).
LevelOpt = Annotated[
    list[str] | None, typer.Option("--level", help="Levels to include: 0 abstract, 1 overview, 2 content (repeat or comma-separate: 0,1).", show_default=False)
]
TypeOpt = Annotated[
    list[str] | None, typer.Option("--type", help="Context types to include: memory, resource, skill, session (repeat or comma-separate).", show_default=False)
]
AfterOpt = Annotated[str | None, typer.Option("--after", help="Only what changed after this time (2h, 7d, 2026-05-01).")]
BeforeOpt = Annotated[str | None, typer.Option("--before", help="Only what changed before this time.")]
ThresholdOpt = Annotated[float | None, typer.Option("--threshold", help="Leave out results whose relevance is below this (0..1).")]


def register(app: typer.Typer) -> None:
    for func in (find, reindex, fsck):  # reindex writes derived indices only, never the store
        app.command(cls=ReadCommand)(func)
    app.command(cls=OvCommand)(doctor)  # reports an account that does not exist as a finding


def find(
    query: QueryArg,
    uri: UriOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=MAX_RESULTS, help="Results to return.")] = 10,
    level: LevelOpt = None,
    type_: TypeOpt = None,
    after: AfterOpt = None,
    before: BeforeOpt = None,
    threshold: ThresholdOpt = None,
) -> None:
    """Search memories, resources, skills and sessions (full-text and vectors, no LLM).

    A query with no results succeeds (exit 0) with an empty list; only `ov grep` exits 1 on no match.
    """
    from ov.retrieval.find import FindOptions
    from ov.retrieval.find import find as run_find

    store = runtime().store
    options = FindOptions(limit=limit, **filter_options(store, uri, level, type_, after, before, threshold))
    if not query.strip():
        raise InvalidInput("the query is empty", hint='say what to look for, e.g. `ov find "release process"`')
    with progress_bar() as progress:
        result = run_find(store, query, options, progress=progress)
    say_behind(result)
    emit(result.to_dict(), lambda: print_hits(result.buckets(), result.mode))


def reindex(
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", help="Switch embedding.provider first: builtin, minilm, hash or none (written to the config).", show_default=False),
    ] = None,
) -> None:
    """Rebuild the search indices from the commits, with another embedder if asked.

    `--embedder` first sets embedding.provider in $OV_HOME/config.yaml, as `ov config set` would:
    builtin (the model inside ov), minilm (the `ovctx[minilm]` extra), hash, or none (lexical only).
    An embedder that is not installed, or does not load, is refused, and then nothing changes.
    """
    from ov.index.sync import Indices

    rt = runtime()
    store = rt.store
    reason = "requested by `ov reindex`"
    warm = None
    if embedder is not None:
        from ov.index.embedders.registry import WarmEmbedders, switch
        from ov.store.store import Store

        # Refused (and nothing written) when the embedder is unknown, not installed or does not
        # load; loaded once, for the check and the rebuild (warm).
        warm = WarmEmbedders()
        store = Store(rt.home, rt.identity, switch(rt.home, embedder, usage_dir=store.state, warm=warm), read_only=True)
        reason = f"requested by `ov reindex --embedder {embedder}`"
    with progress_bar() as progress:
        indices = Indices(store, warm=warm, progress=progress)
        try:
            opened = indices.rebuild(reason)
        except BaseException as exc:
            if not interrupted(exc):
                raise
            if indices.vectors_pending:
                # The full text is swapped in before the vectors are made (Indices._rebuild): the
                # old vectors went with the old full text.
                raise Interrupted(
                    "ov reindex was interrupted while making the vectors: the full text was rebuilt, "
                    "the vectors are made again by the next search or `ov reindex`"
                ) from None
            # The full text is built in a folder of its own and swapped in once complete.
            raise Interrupted("ov reindex was interrupted: the index in use is kept as it was") from None
    meta = opened.meta
    payload = {"commit": meta.commit, "records": meta.records, "vectors": meta.vectors, "embedding": opened.embedding, "left_out": [path for path, _ in indices.left_out]}
    for path, why in indices.left_out:
        note(f"left out {path}: {why}, which has no records (`ov fsck` says how to remove it)")
    # Whether an embedder is in use, not whether vectors were made: a new store has none to make.
    if opened.embedder is not None:
        vectors = f", {meta.vectors} vectors (tier {opened.embedding.get('tier')})"
    else:
        vectors = " (lexical only)"
    emit(payload, lambda: plain(f"indexed {meta.records} records at {short(meta.commit)}{vectors}"))


def fsck() -> None:
    """Check that the store is intact and that the indices agree with it."""
    from ov.health.fsck import fsck as run_fsck

    with progress_bar() as progress:
        report = run_fsck(runtime().store, progress=progress)

    def human() -> None:
        checked = ", ".join(f"{v} {k}" for k, v in report.checked.items())
        plain(("ok" if report.ok else "problems found") + (f" ({checked} checked)" if checked else ""))
        for f in report.findings:
            plain(f"{f.severity}: {f.area}: {f.message}" + (f"\n  fix: {f.fix}" if f.fix else ""))

    emit(report.to_dict(), human)
    if not report.ok:
        raise typer.Exit(1)


def doctor() -> None:
    """Check configuration, store, indices, embedder and LLM, each coding agent's hooks, and say what to fix."""
    from dataclasses import replace

    from ov.cli.hooks_cmd import project_dir
    from ov.cli.main import for_terminal
    from ov.errors import ConfigError
    from ov.health.doctor import diagnose, diagnose_on_defaults, exit_status
    from ov.hosts import doctor as host_doctor

    rt = runtime()
    try:
        checks = diagnose(rt.loaded_config, rt.store)
    except ConfigError as exc:  # a config that does not load is a finding; the rest is checked on the defaults
        checks = diagnose_on_defaults(exc, _default_store(rt))
    checks += host_doctor.checks(rt.home.root, project_dir())
    checks = [replace(c, fix=for_terminal(c.fix)) for c in checks]

    def human() -> None:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
        for c in checks:
            plain(f"{marks[c.status]}  {c.name}: {c.detail}" + (f"\n      fix: {c.fix}" if c.fix else ""))

    emit({"checks": [c.to_dict() for c in checks], "ok": exit_status(checks) == 0}, human)
    if exit_status(checks):
        raise typer.Exit(1)


def _default_store(rt):
    """The store doctor checks when the config file does not load: opened with the defaults."""
    import os

    from ov.config import Config
    from ov.identity import resolve_identity
    from ov.store.store import Store

    identity = resolve_identity(rt.flags, os.environ, {})
    return Store(rt.home, identity, Config(), via="cli")


# --- shared with `ov search` -------------------------------------------------------


def filter_options(store, uri: str | None, level: list[str] | None, type_: list[str] | None, after: str | None, before: str | None, threshold: float | None) -> dict:
    """The filters of a find or a search, from their options, as the keyword arguments of the
    fields FindOptions and SearchOptions share: the two commands parse them in this one place."""
    from ov.retrieval.find import search_scope

    return {
        "uri": search_scope(store, uri),
        "levels": parse_levels(level),
        "types": parse_types(type_),
        "after": _time(after),
        "before": _time(before),
        "threshold": threshold,
    }


def parse_levels(values: list[str] | None) -> tuple[int, ...] | None:
    """The levels of ``--level`` options, each a level or a comma-separated list of them."""
    if values is None:
        return None
    text = ",".join(values)
    try:
        levels = tuple(sorted({int(part) for part in text.split(",") if part.strip()}))
    except ValueError:
        levels = ()
    if not levels or any(lv not in (0, 1, 2) for lv in levels):
        raise InvalidInput(f"--level {text!r} is not a list of levels", hint="levels are 0, 1 and 2, e.g. --level 0,1")
    return levels


def say_behind(result) -> None:
    """Say on stderr, once, that the index searched is behind HEAD (ov may not update it, a store
    it may only read, or another process is updating it): what was committed since is not found."""
    if result.index.get("behind"):
        warn(result.index["behind"])


def parse_types(values: list[str] | None) -> tuple[str, ...] | None:
    """The types of ``--type`` options, each a type or a comma-separated list of them (each
    checked by FindOptions)."""
    from ov.index.records import CONTEXT_TYPES

    if values is None:
        return None
    text = ",".join(values)
    types = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not types:
        raise InvalidInput(f"no type in {text!r}", hint=f"types are: {', '.join(CONTEXT_TYPES)}")
    return types


def _time(text: str | None) -> float | None:
    from ov.timespec import parse_time

    return None if text is None else parse_time(text)


def print_hits(buckets: dict, mode: str) -> None:
    """Results grouped by type: score, URI (with lines or message), then the snippet or abstract
    and the other places of the same text."""
    total = sum(len(hits) for hits in buckets.values())
    if not total:
        nothing("no results")
        return
    fancy = styled()
    if fancy:
        from rich.text import Text

        from ov.cli.output import console

        out = console()
    for name, hits in buckets.items():
        if not hits:
            continue
        if fancy:
            out.print(Text(name, style="bold"))
        else:
            plain(f"# {name}")
        for hit in hits:
            where = for_terminal(hit.where)
            body = hit.snippet or _preview(hit.abstract)
            if hit.also:
                body += ("\n" if body else "") + hit.also_line()
            body = for_terminal(body)
            if fancy:
                out.print(Text.assemble((f"{hit.score:.3f} ", "cyan"), (where, "blue")))
                for line in body.splitlines():
                    out.print(Text("    " + line, style="dim"))
            else:
                plain(f"{hit.score:.3f} {where}")
                for line in body.splitlines():
                    plain("    " + line)
    if mode == "lexical" and fancy:
        out.print(Text("(lexical search: no embedder; see `ov doctor`)", style="dim"))


def _preview(text: str, lines: int = 3) -> str:
    """The first few non-blank lines of a summary: enough to tell what a directory holds."""
    kept = [line for line in text.splitlines() if line.strip()]
    return "\n".join(kept[:lines]) + ("\n…" if len(kept) > lines else "")
