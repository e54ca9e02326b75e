"""``ov search``: ``find`` plus a query plan and hierarchical retrieval.

1. A plan (:mod:`ov.retrieval.plan`): the model's typed queries, or the
   deterministic ones.
2. Every query of the plan runs on one opened index:

   * the ranking of :func:`ov.retrieval.find.rank` (all levels);
   * directories are starting points: the best directory summaries (L0/L1) are
     put in a queue by score; a few of them at a time, for up to
     ``MAX_ROUNDS`` rounds, the units below each directory are ranked within
     it, and each of them scores
     ``final = ALPHA * own + (1 - ALPHA) * directory``; the subdirectories found
     this way join the queue with their final score, so a match deep in a tree
     is reached through the summaries above it. A summary whose matched words
     one result below it holds whole (:func:`ov.retrieval.summaries.explained_by`)
     lifts only the way down to that result: its match is that result's;
   * scores from different rankings are made comparable: each ranking is scaled
     to its own best hit, so a unit keeps the score of the plan query's ranking
     over the whole scope when it is in it, and otherwise may score at most as
     the weakest unit of that ranking (it did not make that list).

   A unit found both ways keeps its better score: a directory's summary can lift
   what is below it, never bury a strong match. As a result, a directory is
   then ranked as find ranks it: below a result under it that holds every
   query word its summary matches (:mod:`ov.retrieval.summaries`).
3. The queries' results merge: each scaled by its query's priority, the best
   score per unit. A directory is one result (its best level), a file one, a
   session message one; the messages of the session being searched from are
   left out (the agent has them already). Ties are broken by URI, so the same
   input always gives the same order. Results that show the same text are one
   (:func:`ov.retrieval.copies.collapse_copies`), so a context block never
   spends its budget on a copy. Each result's snippet shows the words of the
   plan query it was kept from (:attr:`~ov.retrieval.find.Hit.found_by`): that
   query chose the section it shows.
4. ``mode="context"`` hands the results to :mod:`ov.retrieval.context`, which
   assembles one block within a token budget.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ov.errors import InvalidInput, proposal
from ov.progress import Progress
from ov.retrieval.copies import collapse_copies, same_file
from ov.retrieval.find import SHOWN_COMPARED, FindOptions, FindResult, Hit, attach_snippets, check_limit, check_threshold, check_types, index_info, named_in, rank, ranked_words
from ov.retrieval.plan import QueryPlan, TypedQuery, plan_query, session_context
from ov.retrieval.summaries import Held, defer_summaries, explained_by, holding_in
from ov.uri import VikingURI

if TYPE_CHECKING:
    from collections.abc import Callable

    from ov.retrieval.context import ContextBlock

MODES = ("list", "context")
# A unit reached through a directory: this share of its score is its own match, the
# rest is the directory's. 0.5 is upstream's original value (its configurable default
# later became 1.0, which ignores the directory and so the hierarchy).
ALPHA = 0.5
MAX_ROUNDS = 3  # rounds of directory expansion per query
DIRS_PER_ROUND = 4  # directories expanded per round: at most 12 per query in all
START_DIRS = 10  # the best directory summaries that seed the queue
# Units kept from the ranking over the whole scope (at least three times the result limit);
# what is not among them counts as weaker than the last of them.
SCOPE_LIMIT = 30
CHILD_LIMIT = 20  # units ranked below one directory (at least twice the result limit)
# A plan query's weight by its priority (1 = the core need).
PRIORITY_WEIGHTS = {1: 1.0, 2: 0.9, 3: 0.8, 4: 0.7, 5: 0.6}


@dataclass(frozen=True)
class SearchOptions:
    """How a search runs: its session, output mode, budget, and the filters and cut-off of find
    (:class:`~ov.retrieval.find.FindOptions`), which hold for every ranking it runs."""

    session_id: str | None = None
    mode: str = "list"  # list | context
    budget: int | None = None  # tokens for mode "context"; None: retrieval.budget
    uri: VikingURI | None = None
    limit: int = 10
    levels: tuple[int, ...] | None = None
    types: tuple[str, ...] | None = None
    after: float | None = None  # seconds since the epoch, as FindOptions
    before: float | None = None
    planner: bool = True  # False: never ask an LLM for the plan (hooks answer on every prompt)
    min_score: float | None = None  # no results at all when the plan's core queries find nothing this relevant (Hit.relevance)
    threshold: float | None = None  # each result whose relevance is below this is left out (find's --threshold)
    full_text_only: bool = False  # no vectors, and the index as it is (Indices.open): the prompt hook
    exclude_below: tuple[str, ...] = ()  # store folders whose records are left out (the prompt hook: its own session's)
    home: tuple[str, ...] = ()  # the asking project's resources (FindOptions.home)
    # Resources added from another project's folder (ov.ingest.origins): the block marks their entries.
    elsewhere: tuple[str, ...] = ()
    # (uri, text) -> whether the reader holds that entry already: the prompt hook's session was
    # given it (ov.retrieval.context.assemble's held). None: nothing is left out.
    held: Callable[[str, str], bool] | None = None


@dataclass
class SearchResult(FindResult):
    """find's result (``mode`` = hybrid | lexical) plus the plan and, in context mode, the block."""

    plan: QueryPlan | None = None
    context: ContextBlock | None = None  # mode "context" only
    # The best relevance the plan's core queries found (0.0: nothing matched them): what
    # ``min_score`` is compared with, so a caller can say the cut-off, not an empty store, left nothing.
    relevance: float = 0.0

    def to_dict(self) -> dict:
        plan = self.plan.to_dict() if self.plan is not None else None
        if self.context is not None:
            # the tier and the index's state too, as in list mode: a script reading the block must
            # tell lexical from hybrid and see that the index it came from is behind
            return {**self.context.to_dict(), "query_plan": plan, "retrieval": {"mode": self.mode, "embedding": self.embedding}, "index": self.index}
        return {**super().to_dict(), "query_plan": plan}


def search(store, query: str, options: SearchOptions = SearchOptions(), *, indices=None, progress: Progress | None = None) -> SearchResult:
    """Plan, retrieve hierarchically, and (in mode "context") assemble; see the module docstring.
    ``progress``: as for :func:`~ov.retrieval.find.find`."""
    from ov.index.sync import Indices

    _check(query, options)
    session = session_context(store, options.session_id) if options.session_id else None
    plan = plan_query(store, query, session, types=options.types, use_llm=options.planner)
    exclude: tuple[str, ...] = ()
    if session is not None:
        from ov.sessions.session import MESSAGES

        exclude = (f"{_path(session.uri)}/{MESSAGES}",)  # the live log; archived messages stay searchable

    def run(opened):
        hits, relevance = retrieve(store, opened, plan, options, exclude=exclude)
        return opened, attach_snippets(opened, query, hits), relevance

    opened, hits, relevance = (indices or Indices(store, progress=progress)).use(run, full_text_only=options.full_text_only)
    mode = opened.mode if not options.full_text_only else "lexical"
    if options.mode != "context":
        from ov.retrieval.provenance import annotate

        hits = annotate(store, hits)  # a block names them for the entries it shows (the prompt hook's)
    result = SearchResult(query, hits, mode, opened.embedding, index_info(opened), plan=plan, relevance=relevance)
    if options.mode == "context":
        from ov.retrieval.context import assemble

        budget = options.budget if options.budget is not None else store.config.retrieval.budget
        elsewhere = tuple(f"viking://{folder}/" for folder in options.elsewhere)
        shown = [replace(hit, project="other") if elsewhere and f"{hit.uri.rstrip('/')}/".startswith(elsewhere) else hit for hit in hits]
        result.context = assemble(store, shown, budget, held=options.held)
    return result


def _check(query: str, options: SearchOptions) -> None:
    check_threshold(options.threshold)
    if not query.strip():
        raise InvalidInput("the query is empty", hint=f"say what to look for, e.g. {proposal('search', query='release process')}")
    if options.mode not in MODES:
        raise InvalidInput(f"unknown mode {options.mode!r}", hint=f"modes are: {', '.join(MODES)}")
    if options.budget is not None and options.budget <= 0:
        raise InvalidInput(f"the budget must be a positive number of tokens, not {options.budget}")
    if options.budget is not None and options.mode == "list":
        # Refused, not ignored: a caller who gives a budget wants a bounded answer, and a list is
        # bounded by its number of results only.
        raise InvalidInput(
            "a budget is for mode context: a list holds its limit of results, whatever their tokens",
            hint="ask for {mode=context} to get one block within the budget, or drop {budget} and set {limit} for a shorter list",
            arguments={"mode", "budget", "limit"},
        )
    check_limit(options.limit)
    check_types(options.types)


# --- retrieval ---------------------------------------------------------------------


def retrieve(store, opened, plan: QueryPlan, options: SearchOptions, *, exclude: tuple[str, ...] = ()) -> tuple[list[Hit], float]:
    """Every query of ``plan`` on the open index, merged: the best ``options.limit`` results, and
    the best relevance of the plan's core queries (:func:`_core_relevance`)."""
    best: dict[str, Hit] = {}
    with opened.lexical.reading():  # the rankings below load mostly the same records: once each
        found = [(typed, _hierarchical(store, opened, typed, options, exclude)) for typed in plan.queries]
        relevance = _core_relevance(found)
        # (within: the file names' lookups the rankings made are not made again, on another searcher)
        if options.min_score and relevance < options.min_score and not _names_a_file(opened.lexical, found):
            return [], relevance  # nothing in the store answers this query well enough to be worth reading
    for typed, hits in found:
        weight = PRIORITY_WEIGHTS.get(typed.priority, PRIORITY_WEIGHTS[5])
        for hit in hits.values():
            if _is_scope_root(hit):
                continue  # a whole scope's summary says little about any query; its children are found
            scored = replace(hit, score=hit.score * weight, found_by=typed.query)
            key = result_key(hit)
            current = best.get(key)
            if current is None:
                best[key] = scored
                continue
            if (scored.score, -scored.level) > (current.score, -current.level):
                current, scored = scored, current
            if scored.also and scored.level == current.level:
                # Another ranking may have seen copies this one did not.
                current = replace(current, also=tuple(dict.fromkeys([*current.also, *scored.also])))
            best[key] = current
    ranked = sorted(best.values(), key=lambda h: (-h.score, h.uri, h.level, h.message_id))
    if options.threshold is not None:
        ranked = [h for h in ranked if h.relevance >= options.threshold]
    return collapse_copies(ranked, options.limit, same_file(store)), relevance


def _core_relevance(found: list[tuple[TypedQuery, dict[str, Hit]]]) -> float:
    """The best relevance the plan's core queries found (its first priority: in the deterministic
    plan, the query as given). A session's topic words join the query to rank follow-ups, but they
    cannot make a prompt relevant: "lol" after a question about a class would otherwise find that
    class again, at the relevance of the question."""
    core = min((typed.priority for typed, _ in found), default=1)
    return max((h.relevance for typed, hits in found if typed.priority == core for h in hits.values() if not _is_scope_root(h)), default=0.0)


def _names_a_file(lexical, found: list[tuple[TypedQuery, dict[str, Hit]]]) -> bool:
    """Whether a core query names a file the store holds, by its path or a name few files share
    (:func:`ov.retrieval.find.named_in`): the user asked for that file, however little its words match."""
    from ov.retrieval.named import match

    core = min((typed.priority for typed, _ in found), default=1)
    for typed, hits in found:
        named = named_in(lexical, typed.query) if typed.priority == core else None
        if named and any(hit.kind != "message" and match(hit.uri, named, folder=hit.level < 2)[1] for hit in hits.values()):
            return True
    return False


def _hierarchical(store, opened, typed: TypedQuery, options: SearchOptions, exclude: tuple[str, ...]) -> dict[str, Hit]:
    """One plan query: its ranking over the scope, lifted by the directories above each unit."""
    types = _types(typed, options.types)
    if not types:
        return {}
    base = FindOptions(
        uri=options.uri,
        limit=max(options.limit * 3, SCOPE_LIMIT),
        levels=options.levels,
        types=types,
        after=options.after,
        before=options.before,
        exclude=exclude,
        exclude_below=options.exclude_below,
        home=options.home,
        lexical_only=options.full_text_only,
        one_level=False,  # each level of a directory is a starting point; the merge keeps its best
        defer_summaries=False,  # a directory is expanded for its own match; deferred below (_defer)
    )
    text = typed.query
    direct = rank(store, opened, text, base, snippets=False)
    scope_scores = {unit(h): h.score for h in direct}
    weakest = min(scope_scores.values(), default=0.0)

    def comparable(hit: Hit) -> float:
        return scope_scores.get(unit(hit), min(hit.score, weakest))

    found: dict[str, Hit] = {unit(h): h for h in direct}

    def keep(hit: Hit, score: float) -> None:
        key = unit(hit)
        current = found.get(key)
        if current is None or score > current.score:
            found[key] = replace(hit, score=score)

    # A directory in the queue: its score and the summary that put it there (its best level).
    queue: list[tuple[float, str]] = []
    summary_of: dict[str, tuple[float, Hit]] = {}

    def enqueue(directory: Hit, score: float) -> None:
        heapq.heappush(queue, (-score, directory.uri))
        if directory.uri not in summary_of or score > summary_of[directory.uri][0]:
            summary_of[directory.uri] = (score, directory)

    held = Held(opened.lexical.query_terms(ranked_words(opened.lexical, text)).words, holding_in(opened.lexical))
    # The directories start from their summaries; a --level without 0 and 1 leaves them out, and
    # the search is then find's ranking of each plan query.
    summaries = tuple(level for level in (0, 1) if options.levels is None or level in options.levels)
    seeds = rank(store, opened, text, replace(base, levels=summaries, limit=START_DIRS), snippets=False) if summaries else []
    for directory in seeds:
        score = comparable(directory)
        keep(directory, score)
        enqueue(directory, score)
    # Which query words the best results and summaries hold: one look-up in the index, before
    # the descent (a look-up for each directory expanded cost the prompt hook ~10 ms), and the
    # results _defer compares. A file outside them holds too little of the query to be what a
    # summary's match is, and a summary outside them is weak: not read, it is explained by nothing
    # and lifts as before.
    held.read(h.record for h in (*direct[: SHOWN_COMPARED * options.limit], *seeds) if h.record is not None)
    expanded: set[str] = set()
    child_limit = max(CHILD_LIMIT, options.limit * 2)
    for _round in range(MAX_ROUNDS):
        batch: list[tuple[float, str]] = []
        while queue and len(batch) < DIRS_PER_ROUND:
            negative, dir_uri = heapq.heappop(queue)
            if dir_uri not in expanded and _path(dir_uri):
                expanded.add(dir_uri)
                batch.append((-negative, dir_uri))
        if not batch:
            break
        for parent_score, dir_uri in batch:
            below = VikingURI(tuple(_path(dir_uri).split("/")))
            children = [c for c in rank(store, opened, text, replace(base, uri=below, limit=child_limit), snippets=False) if c.uri != dir_uri]
            summary = summary_of[dir_uri][1].record
            # A summary whose match one result below it holds whole is that result's match: it
            # lends its score only on the way down to that result, not to the files beside it
            # (the store's root quoting one file's first line lifted every project to 0.54).
            explained = explained_by(summary, [c.record for c in children if c.record is not None], held) if summary is not None else ()
            for child in children:
                if explained and not any(uri == child.uri or uri.startswith(child.uri.rstrip("/") + "/") for uri in explained):
                    continue
                final = ALPHA * comparable(child) + (1 - ALPHA) * parent_score
                keep(child, final)
                if child.level < 2 and child.uri not in expanded:
                    enqueue(child, final)
    return _defer(opened.lexical, held, found, options.limit)


def _defer(lexical, held: Held, found: dict[str, Hit], limit: int) -> dict[str, Hit]:
    """``found`` with each directory summary that adds no query word to a result below it just below
    that result (:mod:`ov.retrieval.summaries`), as find ranks them. Only the results: the summary's
    own match still chose which directories to expand."""
    entries = {key: (hit.score, hit.record) for key, hit in found.items() if hit.record is not None}
    for key, score in defer_summaries(entries, held.words, holding_in(lexical), SHOWN_COMPARED * limit, held=held).items():
        found[key] = replace(found[key], score=score)
    return found


def _is_scope_root(hit: Hit) -> bool:
    """``viking://resources``, ``viking://agent``, ``viking://user/{id}`` and its top folders."""
    if hit.level == 2:
        return False
    parts = _path(hit.uri).split("/")
    return len(parts) == 1 or (parts[0] == "user" and len(parts) <= 3)


def _types(typed: TypedQuery, allowed: tuple[str, ...] | None) -> tuple[str, ...]:
    from ov.index.records import CONTEXT_TYPES

    pool = tuple(t for t in (allowed or CONTEXT_TYPES) if t in CONTEXT_TYPES)
    if typed.context_type is None:
        return pool
    return (typed.context_type,) if typed.context_type in pool else ()


def unit(hit: Hit) -> str:
    """What find counts as one result: a file, one level of a directory, a message."""
    if hit.kind == "message":
        return f"{hit.uri}#{hit.message_id}"
    if hit.level < 2:
        return f"{hit.uri}@{hit.level}"
    return hit.uri


def result_key(hit: Hit) -> str:
    """What search counts as one result: a file, a directory (its best level), a message."""
    return f"{hit.uri}#{hit.message_id}" if hit.kind == "message" else hit.uri


def _path(uri: str) -> str:
    return uri[len("viking://") :].strip("/")
