"""``ov search``: find with a query plan and hierarchical retrieval; ``--mode context`` for prompts."""

from __future__ import annotations

import sys
from enum import Enum
from typing import Annotated

import typer

from ov.cli.output import emit, for_terminal, plain, styled, warn
from ov.cli.progress import progress_bar
from ov.cli.retrieval_cmd import (
    AfterOpt,
    BeforeOpt,
    LevelOpt,
    QueryArg,
    ThresholdOpt,
    TypeOpt,
    UriOpt,
    filter_options,
    print_hits,
    say_behind,
)
from ov.cli.runtime import ReadCommand, runtime
from ov.retrieval import MAX_RESULTS


class SearchMode(str, Enum):
    list = "list"
    context = "context"


def register(app: typer.Typer) -> None:
    app.command(cls=ReadCommand)(search)


def search(
    query: QueryArg,
    session: Annotated[
        str | None, typer.Option("--session", help="The session the query comes from: its recent messages shape the query plan.")
    ] = None,
    mode: Annotated[
        SearchMode, typer.Option("--mode", help="list: results by type; context: one block within --budget, for an agent's prompt.")
    ] = SearchMode.list,
    budget: Annotated[
        int | None, typer.Option("--budget", min=1, help="Tokens the context block may use (default: retrieval.budget); a list (--mode list) has none.")
    ] = None,
    uri: UriOpt = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=MAX_RESULTS, help="Results to return (the candidates of a context block).")] = 10,
    level: LevelOpt = None,
    type_: TypeOpt = None,
    after: AfterOpt = None,
    before: BeforeOpt = None,
    threshold: ThresholdOpt = None,
) -> None:
    """Search with a query plan and hierarchical retrieval; `--mode context` assembles a block for an agent.

    The filters mean what they mean for `ov find`, and hold for everything a search ranks: with
    `--level 2` no directory summary is ranked, so none lifts the files below it.
    A query with no results succeeds (exit 0) with an empty result.
    """
    from ov.retrieval.search import SearchOptions
    from ov.retrieval.search import search as run_search

    store = runtime().store
    options = SearchOptions(
        session_id=session,
        mode=mode.value,
        budget=budget,
        limit=limit,
        **filter_options(store, uri, level, type_, after, before, threshold),
    )
    with progress_bar() as progress:
        result = run_search(store, query, options, progress=progress)
    say_behind(result)
    if result.plan is not None and result.plan.warning:
        warn(result.plan.warning)  # a planner down costs each search its timeout, or did before the back-off

    def human() -> None:
        if result.context is not None:
            block = result.context
            if block.rendered:
                plain(for_terminal(block.rendered))
            stats = block.stats
            tiers = ", ".join(f"{n} {tier}" for tier, n in stats["tier_counts"].items() if n)
            footer = f"{stats['returned']} of {stats['candidates']} results, {stats['used_tokens']}/{stats['budget']} tokens"
            footer += f" ({tiers})" if tiers else ""
            footer += f", {stats['folded']} with the text of another" if stats["folded"] else ""
            footer += f", {stats['dropped']} left out" if stats["dropped"] else ""
            sys.stderr.write(footer + "\n")
            return
        if styled():
            _print_plan(result.plan)
        print_hits(result.buckets(), result.mode)

    emit(result.to_dict(), human)


def _print_plan(plan) -> None:
    from rich.text import Text

    from ov.cli.output import console

    out = console()
    out.print(Text(for_terminal(f"plan ({plan.source}): {plan.reasoning}"), style="dim"))  # a model's words
    for q in plan.queries:
        out.print(Text(for_terminal(f"  [{q.priority}] {q.context_type or 'any type'}: {q.query}"), style="dim"))
