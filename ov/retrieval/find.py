"""``ov find``: hybrid retrieval without an LLM.

1. The indices catch up with HEAD (:mod:`ov.index.sync`).
2. BM25 over each record's text, title, neighbouring messages and speaker
   (weights from ``retrieval.*``), restricted by scope, type, level, time and
   owner; with an embedder, the nearest vectors under the same restrictions,
   and with a model that reads context every full-text candidate's similarity,
   a long record's first passage mixed in (:func:`~ov.retrieval.fusion.candidate_similarity`).
3. Fusion: each ranking is scaled to its best score (BM25 / best BM25, cosine /
   best cosine) and the two are combined convexly, the vectors weighted per
   context type (:func:`~ov.retrieval.fusion.vector_weights`). How relevant the best record is at all
   ("strength", on one scale for every query) scales the result, so scores can
   be compared across queries (``--threshold``, the prompt hook's cut-off).
4. Propagation: a record inherits part of its parent's match
   (``retrieval.parent_weight``): a chunk its directory's L0/L1, a message its
   whole session log. A message that answers a question rarely repeats all its
   words; the conversation around it usually does.
5. Dates: a query that names one ("on 3 June, 2023", "in July", "last week")
   raises the records from around it (``retrieval.date_weight``).
   A query that names a file by its path or name ("look at tests/conftest.py")
   puts that file's records first (:mod:`ov.retrieval.named`), found by its name
   when its words are not the query's; a folder named, the records in it.
6. One result per unit (a file with its best chunk, a directory by its
   better summary, a message), session messages scaled by
   ``retrieval.session_weight`` when they compete with memories and resources,
   ties broken by URI: the same input always gives the same order. A
   directory's summary that adds no query word to a result below it goes just
   below that result (:mod:`ov.retrieval.summaries`).
7. One result per text (:mod:`ov.retrieval.copies`): units that show the same
   text (a file and its copy) are one result, at the best-ranked one's place,
   naming the others (``Hit.also``); the next results fill the places they
   leave.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone

from ov.index.lexical import Filters, QueryTerms
from ov.index.records import CONTEXT_TYPES, Record
from ov.progress import Progress
from ov.retrieval.at_head import as_at_head
from ov.retrieval.copies import ALSO_SHOWN, Place, first_of_each, same_file, same_text
from ov.retrieval.fusion import LEXICAL_FLOOR, add_vectors
from ov.retrieval.named import LOOKUP, Named, ambiguous, identifiers, line_named, lookup_patterns, match, named_paths, place_pattern, query_words, sections_pattern
from ov.retrieval.relevance import Relevance
from ov.retrieval.secondary import lower_secondary
from ov.retrieval.snippets import MESSAGE_SNIPPET_CHARS, SNIPPET_CHARS, clip, focus, holds_line, snippet_lines, spells
from ov.retrieval.summaries import SUMMARY_KINDS, defer_summaries, holding_in
from ov.sessions.messages import says_nothing
from ov.uri import VikingURI

BUCKETS = {"memory": "memories", "resource": "resources", "skill": "skills", "session": "sessions"}
PARENT_KINDS = ("abstract", "overview", "log")
# A chunk's text already holds its own heading; the title adds the file name and the headings
# above it, which say less than the text does.
TITLE_WEIGHT = 0.3
# What a code chunk is about beyond its lines (its file's path and opening docstring, the names it
# defines as words: Record.about), against its own text. On 40 questions about two projects
# (bench/code_questions.py) 0.3 to 1.0 gave the same first files, and more let a module's docstring
# outrank the file that raises a message quoted word for word; prose has no such field.
ABOUT_WEIGHT = 0.5
# A code chunk's names whole (Record.defines, Record.identifiers), against its text: a query naming
# an identifier ranks the chunk that defines it above the many that use it, and a compound name
# (``_files_of``, ``QUERY_CHARS``) above the chunks that hold its parts as words.
DEFINES_WEIGHT = 2.0
IDENTIFIERS_WEIGHT = 0.5
# What lifts a record of a file the query names above the best record it does not name: this share
# of the best's score and its own (so several named files keep their order, and one found by its
# name alone still goes above the best). Small, so the other results keep nearly their scores when
# the best is scaled back to what the best match is worth.
NAMED_LIFT = 0.01
# What a record of the asking project's resources (FindOptions.home) gains over another's: a tie
# and little more (README.md, docs/hosts.md are in every project).
HOME_LIFT = 0.01
# How many results' worth of the best a directory's summary is compared with (ov.retrieval.summaries):
# twice the limit, for the places copies (ov.retrieval.copies) and a threshold leave.
SHOWN_COMPARED = 2


@dataclass(frozen=True)
class FindOptions:
    """What a find may return (scope, types, levels, time) and how many."""

    uri: VikingURI | None = None
    limit: int = 10
    levels: tuple[int, ...] | None = None
    types: tuple[str, ...] | None = None
    after: float | None = None
    before: float | None = None
    threshold: float | None = None
    lexical_only: bool = False
    exclude: tuple[str, ...] = ()  # store paths left out (e.g. the live log of the asking session)
    exclude_below: tuple[str, ...] = ()  # store folders left out with all they hold
    # The asking project's resources (store folders: ov.ingest.origins): a file named in the query
    # is theirs before another project's copy of it, and they win a tie.
    home: tuple[str, ...] = ()
    # A directory is one result, its better-matching summary (L0 or L1), as search counts it: the
    # MCP find returned a past session's overview and abstract as two of five results, and ov find
    # a folder's twice. Search ranks each level (its directories start from either).
    one_level: bool = True
    # A summary that adds no query word to a result below it goes below that result
    # (ov.retrieval.summaries). Search ranks directories by their own match to expand them, and
    # defers them where it merges what it found.
    defer_summaries: bool = True

    def __post_init__(self) -> None:
        check_threshold(self.threshold)
        check_types(self.types)


def check_threshold(threshold: float | None) -> None:
    """A ``--threshold`` is a relevance (:attr:`Hit.relevance`), from 0 to 1."""
    from ov.errors import InvalidInput

    if threshold is not None and not 0.0 <= threshold <= 1.0:  # NaN fails too
        raise InvalidInput(f"the threshold is a relevance from 0 to 1, not {threshold}", hint="e.g. 0.3")


def search_scope(store, text: str | None):
    """The URI a find or search looks below, from ``--uri`` or a tool's ``uri``: a place that does
    not exist is NotFound (a typo used to answer "no results", as if the place were empty), but a
    user's root and folders (memories before the first one) are places already
    (:func:`ov.uri.standing_folder`). Another user's space is refused: its records are never ranked
    for this user (:func:`ov.users.require_searchable`)."""
    from ov.users import require_searchable

    if not text:
        return None
    uri = store.uri(text)
    require_searchable(uri, store.identity.user)
    store.require(uri)
    return uri


def check_limit(limit: int) -> None:
    """Refuse a number of results below 1 or above :data:`~ov.retrieval.MAX_RESULTS`."""
    from ov.errors import InvalidInput
    from ov.retrieval import MAX_RESULTS

    if limit < 1:
        raise InvalidInput(f"the limit must be 1 or more, not {limit}")
    if limit > MAX_RESULTS:
        raise InvalidInput(f"the limit must be at most {MAX_RESULTS}, not {limit}")


def check_types(types: tuple[str, ...] | None) -> None:
    """Refuse a context type other than :data:`~ov.index.records.CONTEXT_TYPES` (it would find nothing)."""
    wrong = [t for t in types or () if t not in CONTEXT_TYPES]
    if wrong:
        from ov.errors import InvalidInput, quote

        raise InvalidInput(f"unknown type {', '.join(quote(t) for t in wrong)}", hint=f"types are: {', '.join(CONTEXT_TYPES)}")


@dataclass(frozen=True)
class Hit:
    """One ranked result of a find: a file, a directory level or a message."""

    uri: str
    level: int
    context_type: str
    score: float
    kind: str
    title: str = ""
    snippet: str = ""
    start_line: int = 0
    end_line: int = 0
    abstract: str = ""
    session_id: str = ""
    message_id: str = ""
    role: str = ""
    speaker: str = ""
    time: str = ""
    parent: str = ""
    # How well this unit's own text answers the query, on one scale for every type, query and scope
    # (BM25 against a full match, blended with the cosine): not its place in this ranking. The best
    # result's score is the highest relevance found (before the session factor). ``--threshold``
    # and the prompt hook's "inject nothing" cut-off compare against it.
    relevance: float = 0.0
    also: tuple[Place, ...] = ()  # other places holding the same text, best first (ov.retrieval.copies)
    record: Record | None = field(default=None, compare=False, repr=False)
    # The query whose ranking this result comes from, when it is not the one asked: a search plan's
    # (ov.retrieval.search). Its snippet shows that query's words, which chose the record shown.
    found_by: str = field(default="", compare=False, repr=False)
    # "other" for a result of a resource added from another project's folder than the asking
    # agent's (SearchOptions.elsewhere): its block entry says so.
    project: str = ""
    # Where its lines are, as its block entry says (ov.retrieval.provenance.annotate; a block
    # names them itself): the definition they are in (``in``), the project file and lines of a
    # split document's section, "changed" or "deleted" for a source that moved on since its add.
    within: str = ""
    source: str = ""
    source_lines: tuple[int, int] | None = None
    stale: str = ""

    @property
    def place(self) -> Place:
        """Where this result's text is, as a copy of it names it."""
        if self.record is not None:
            return Place.of(self.record)
        return Place(self.uri, session_id=self.session_id, message_id=self.message_id)

    @property
    def where(self) -> str:
        """The URI and the part of it that matched: the lines of a chunk (and where they are:
        :attr:`provenance`), a directory's level (L0 or L1: both may match), a message's speaker,
        time and id."""
        if self.kind == "message":
            return f"{self.uri}  [{self.speaker or self.role} {self.time} {self.message_id}]"
        if self.level < 2:
            return f"{self.uri}  (L{self.level})"
        lines = f":{self.start_line}-{self.end_line}" if self.start_line else ""
        return f"{self.uri}{lines}" + (f"  ({self.provenance})" if self.provenance else "")

    @property
    def provenance(self) -> str:
        """Where the lines are beyond the URI, "" when nothing is known (:attr:`within`, :attr:`source`):
        ``in WriteLock.acquire; source docs/commands.md:51-53; changed``."""
        source = self.source + (f":{self.source_lines[0]}-{self.source_lines[1]}" if self.source_lines else "")
        said = [f"in {self.within}" if self.within else "", f"source {source}" if source else "", self.stale]
        return "; ".join(part for part in said if part)

    def also_line(self, shown: int = ALSO_SHOWN) -> str:
        """The other places of this text in one line, "" when there are none:
        ``(also at 2 other places: viking://a.md:1-3, viking://b.md:1-3)``, the first ``shown``."""
        if not self.also:
            return ""
        from ov.wording import counted

        named = ", ".join(p.where for p in self.also[:shown]) + (", …" if len(self.also) > shown else "")
        return f"(also at {counted(len(self.also), 'other place')}: {named})"

    def to_dict(self) -> dict:
        out = {"uri": self.uri, "level": self.level, "context_type": self.context_type, "score": round(self.score, 4), "relevance": round(self.relevance, 4)}
        if self.kind == "message":
            out.update(session_id=self.session_id, message_id=self.message_id, role=self.role, speaker=self.speaker, time=self.time)
            out["snippet"] = self.snippet
        elif self.level < 2:
            out["abstract"] = self.abstract
        else:
            out.update(snippet=self.snippet, lines=[self.start_line, self.end_line])
        if self.title:
            out["title"] = self.title
        if self.also:
            out["also"] = [p.to_dict() for p in self.also]
        if self.within:
            out["in"] = self.within
        if self.source:
            out["source"] = self.source
        if self.source_lines:
            out["source_lines"] = list(self.source_lines)
        if self.stale:
            out["stale"] = self.stale
        return out


@dataclass
class FindResult:
    """A find's results, how they were ranked and the index they came from."""

    query: str
    hits: list[Hit]
    mode: str  # hybrid | lexical
    embedding: dict
    index: dict

    def buckets(self) -> dict[str, list[Hit]]:
        out: dict[str, list[Hit]] = {name: [] for name in BUCKETS.values()}
        for hit in self.hits:
            out[BUCKETS[hit.context_type]].append(hit)
        return out

    def to_dict(self) -> dict:
        out: dict = {name: [h.to_dict() for h in hits] for name, hits in self.buckets().items()}
        out.update(total=len(self.hits), query=self.query, retrieval={"mode": self.mode, "embedding": self.embedding}, index=self.index)
        return out


# What a find or a search reads of its query: what the query planner's model is shown of it, and
# about what an embedder is given of a record (EMBED_CHARS). A query is ranked over every record
# it may match, and a search ranks each query of its plan many times (over the scope, the
# summaries, below each directory expanded), each time reading its words and dates: a pasted
# 90 KB query took a search 14 s and a find 1.4 s, its answer no better than its opening's.
QUERY_CHARS = 2000


def find(store, query: str, options: FindOptions = FindOptions(), *, indices=None, progress: Progress | None = None) -> FindResult:
    """Search the store; an empty store or a query without hits gives an empty result. ``progress``
    is told how building or catching up the index goes (:mod:`ov.progress`), when it must. A
    pasted traceback is ranked as its error and files (:func:`asked`)."""
    from ov.index.sync import Indices
    from ov.retrieval.provenance import annotate

    check_limit(options.limit)
    indices = indices or Indices(store, progress=progress)
    words = asked(query)
    opened, hits = indices.use(lambda opened: (opened, rank(store, opened, words, options)))
    mode = "lexical" if options.lexical_only else opened.mode
    return FindResult(query, annotate(store, hits), mode, opened.embedding, index_info(opened))


def asked(query: str) -> str:
    """What a find or a search ranks for ``query`` as typed: a pasted traceback in it read as its
    error lines and the files of its frames (:func:`ov.tracebacks.focus`), on one line, and of
    that at most :data:`QUERY_CHARS` characters (:func:`bounded_query`). ``ov find``, the MCP
    find and the prompt hook (through the search's plan) rank the same words: the frames' words
    matched every file of a store of code a little, and buried the file named."""
    from ov.tracebacks import focus

    return bounded_query(focus(query))  # focused first: a traceback's error is at its end


def bounded_query(query: str) -> str:
    """``query`` on one line, within :data:`QUERY_CHARS` characters: a paste longer than that keeps
    the question after it and the lines that say what failed before its opening
    (:func:`ov.tracebacks.bounded`)."""
    from ov.tracebacks import bounded

    return bounded(query, QUERY_CHARS)


def index_info(opened) -> dict:
    """What a result says of the index it came from: the commit it reflects, its size, whether it
    is behind (and, when ov may not update it, why), and what opening it had to do."""
    info = {"commit": opened.meta.commit, "records": opened.meta.records, "stale": opened.stale}
    if opened.behind:
        info["behind"] = opened.behind
    if opened.actions:
        info["actions"] = opened.actions
    return info


def rank(store, opened, query: str, options: FindOptions, *, snippets: bool = True) -> list[Hit]:
    """The ranked units for ``query`` in an open index (see the module docstring).

    ``snippets=False`` skips the snippet lines (the costliest step per result) for callers that
    rank many times and show few results; :func:`attach_snippets` adds them afterwards.
    """
    with opened.lexical.reading():
        return _rank(store, opened, query, options, snippets)


def _rank(store, opened, query: str, options: FindOptions, snippets: bool) -> list[Hit]:
    config = store.config.retrieval
    lexical = opened.lexical
    words = ranked_words(lexical, query)
    terms = lexical.query_terms(words)
    filters = _filters(store, options)
    if opened.outdated is None:
        return []
    gone = tuple(path for path, sha in opened.outdated.items() if sha is None)
    if gone:
        filters = replace(filters, exclude_paths=filters.exclude_paths + gone)
    pool = max(config.candidates, options.limit * 3)
    scores: dict[str, float] = {}
    records: dict[str, Record] = {}

    weights = {"text": 1.0, "title": TITLE_WEIGHT, "about": ABOUT_WEIGHT, "defines": DEFINES_WEIGHT, "identifiers": IDENTIFIERS_WEIGHT,
               "context": config.context_weight, "speaker": config.speaker_weight}
    lexical_hits = _lexical_candidates(lexical, terms, weights, filters, pool, config.phrase_weight)
    # How well the best record answers the query at all, on a scale shared by every query: its BM25
    # against the most a record matching every query word could score, and with vectors its cosine,
    # weighed as in the fusion. Within one ranking only the order matters; across rankings (the
    # queries of a search plan, a threshold, the prompt hook's cut-off) a query whose best match
    # covers half its words must not score like a perfect match.
    ceiling = 1.0
    asked = _asked_terms(lexical, words, terms)
    if lexical_hits:
        best = lexical_hits[0].score + LEXICAL_FLOOR
        ceiling = lexical.idf_sum(asked) or best
        for hit in lexical_hits:
            scores[hit.record.id] = (hit.score + LEXICAL_FLOOR) / best
            records[hit.record.id] = hit.record
    relevance = Relevance(lexical, asked, lexical_hits, ceiling, LEXICAL_FLOOR)
    add_vectors(opened, config, words, options, filters, pool, lexical_hits, records, scores, relevance)
    strength = relevance.best(likely=sorted(scores, key=lambda rid: -scores[rid])[: options.limit])  # shown, as a rule: counted together
    named = named_in(lexical, query)
    _add_named(lexical, named, filters, records, scores)
    if not scores:
        return []
    _propagate(lexical, terms, records, scores, config.parent_weight, config.conversation_weight)
    _favour_dates(query, records, scores, config.date_weight)
    lower_secondary(query, records, scores)
    home = tuple(f"{folder}/" for folder in options.home)
    if home:
        for rid, record in records.items():
            if record.path.startswith(home):
                scores[rid] *= 1 + HOME_LIFT
    _favour_named(named, records, scores, lexical, home)
    if not opened.outdated:
        return _units(records, scores, relevance, options, terms, lexical, config.session_weight, snippets, strength, same_file(store), named, query)
    # Behind HEAD, a result from a changed file may be left out: the next ones take its place.
    changed = sum(1 for sha in opened.outdated.values() if sha is not None)
    more = replace(options, limit=options.limit + min(changed, options.limit))
    hits = _units(records, scores, relevance, more, terms, lexical, config.session_weight, snippets, strength, same_file(store), named, query)
    return as_at_head(store, opened, hits)[: options.limit]


def _asked_terms(lexical, words: str, terms: QueryTerms) -> QueryTerms:
    """The query's terms a record's relevance is measured against: all but the words of a date it
    names. A date orders the results (:func:`_favour_dates`) and is rarely written in what answers
    it, so "rotate API keys last week" read 0.55 where "rotate API keys" read 0.99, under any
    threshold and the prompt hook's cut-off. A query left with one word or none keeps its date:
    "what happened on 3 June 2023?" asks about that day, and any note holding "happened" read as
    a full match of it."""
    from ov.timespec import without_dates

    undated = without_dates(words)
    if undated == words:
        return terms
    asked = lexical.query_terms(undated)
    return asked if len(asked.words) >= 2 else terms


def _lexical_candidates(lexical, terms: QueryTerms, weights: dict[str, float], filters: Filters, pool: int, phrase_weight: float) -> list:
    """The full-text candidates, best first: the ``pool`` best records, and when session messages
    filled that pool, the ``pool`` best records of the other types beside them.

    A long history's messages match a query's common words in their own text and again through
    their neighbours' (the context field), so a few hundred of them outscore a memory holding every
    query word and fill the pool: the memory then had no lexical relevance at all, and the prompt
    hook's cut-off never reached it. The second search runs only when messages are in a full
    pool: a store too small to crowd, or a pool of documents alone, pays nothing."""
    hits = lexical.search(terms, weights, filters, pool, phrase_weight=phrase_weight)
    types = filters.types or CONTEXT_TYPES
    others = tuple(t for t in types if t != "session")
    if len(hits) < pool or not others or not any(hit.record.context_type == "session" for hit in hits):
        return hits
    seen = {hit.record.id for hit in hits}
    more = [hit for hit in lexical.search(terms, weights, replace(filters, types=others), pool, phrase_weight=phrase_weight) if hit.record.id not in seen]
    return sorted(hits + more, key=lambda hit: -hit.score) if more else hits


def _filters(store, options: FindOptions) -> Filters:
    types = tuple(t for t in (options.types or CONTEXT_TYPES) if t in CONTEXT_TYPES)
    scope = options.uri.path if options.uri is not None and not options.uri.is_root else None
    return Filters(
        types=types,
        levels=options.levels,
        exclude_kinds=("log",),
        exclude_paths=options.exclude,
        exclude_scopes=options.exclude_below,
        scope=scope,
        owners=(store.identity.user, ""),
        after=options.after,
        before=options.before,
    )


def _propagate(lexical, terms: QueryTerms, records: dict[str, Record], scores: dict[str, float], directory: float, conversation: float) -> None:
    """Blend in the parent's match: a directory's L0/L1 (weight ``directory``), a message's whole
    conversation (weight ``conversation``).

    A parent with no summary says nothing either way, so such a record keeps its own score; one
    whose summary or log does not match the query inherits nothing.
    """
    if directory <= 0 and conversation <= 0:
        return
    parents = sorted({r.parent for r in records.values() if r.parent})
    if not parents:
        return
    parent_score = lexical.best_scores(terms, "text", PARENT_KINDS, parents)
    best = max(parent_score.values(), default=0.0) + LEXICAL_FLOOR
    for rid, record in records.items():
        weight = conversation if record.kind == "message" else directory
        if record.parent in parent_score:
            matched = parent_score[record.parent]
            inherited = (matched + LEXICAL_FLOOR) / best if matched > 0 else 0.0
        else:
            inherited = scores[rid]
        scores[rid] = (scores[rid] + weight * inherited) / (1 + weight)


def _favour_dates(query: str, records: dict[str, Record], scores: dict[str, float], weight: float) -> None:
    """Raise the records from around a date the query names ("on 3 June, 2023", "in July", "last
    week"): each score is multiplied by ``1 + weight * closeness`` (1 within the date, less around
    it: :meth:`ov.timespec.DateMention.closeness`). A record without a time keeps its score."""
    if weight <= 0:
        return
    from ov.timespec import mentioned_dates

    dates = mentioned_dates(query)
    if not dates:
        return
    for rid, record in records.items():
        if record.time:
            scores[rid] *= 1.0 + weight * max(mention.closeness(record.time) for mention in dates)


def ranked_words(lexical, query: str) -> str:
    """``query`` without the ``viking://`` URIs of places the index holds records at, and without
    the lines after file names (:func:`~ov.retrieval.named.query_words`); each place looked up once
    a search."""
    named = named_paths(query)
    if not (named.places or named.lines):
        return query
    return query_words(query, [place for place in named.places if lexical.uris_matching(place_pattern(place), 1)])


def named_in(lexical, query: str) -> Named:
    """What ``query`` names (:func:`~ov.retrieval.named.named_paths`) but for the file and folder
    names more of the index's files or folders share than say which is meant
    (:func:`~ov.retrieval.named.ambiguous`)."""
    named = named_paths(query)
    if not (named.files or named.folders):
        return named
    shared = ambiguous(named, lexical.uris_matching, lexical.folders_matching)
    return named_paths(query, shared) if shared else named


def _add_named(lexical, named: Named, filters: Filters, records: dict[str, Record], scores: dict[str, float]) -> None:
    """The records of the files ``named`` names that the ranking did not find, as candidates of no
    score of their own: a prompt that names a file wants it whatever its words match ("what is
    wrong in docs/hosts.md" finds no word of that file). Looked up by name in the index's URIs
    (:func:`~ov.retrieval.named.lookup_patterns`), once for all the rankings of a search."""
    patterns = lookup_patterns(named) if named else []
    if not patterns:
        return
    have = {record.uri for record in records.values()}
    found = dict.fromkeys(uri for pattern in patterns for uri in lexical.uris_matching(pattern, LOOKUP))
    missing = tuple(uri for uri in found if uri not in have and match(uri, named)[1])
    if not missing:
        return
    for hit in lexical.fetch(replace(filters, uris=missing), LOOKUP):
        if hit.record.kind != "message":
            records[hit.record.id] = hit.record
            scores.setdefault(hit.record.id, 0.0)


def _favour_named(paths: Named, records: dict[str, Record], scores: dict[str, float], lexical, home: tuple[str, ...] = ()) -> None:
    """Put first the records of a file or folder the query names by its path or file name ("look
    at tests/conftest.py": :mod:`ov.retrieval.named`), and of a folder it names: each scores just
    above the best record it does not name (by :data:`NAMED_LIFT` of that score and its own), so
    the named keep their own order and the rest theirs and nearly their scores. A record named more surely (more of the path's
    segments, or its ``viking://`` URI) goes above those named less surely. A message is never
    named: its URI is its session's log. The relevance (:attr:`Hit.relevance`) is the record's own
    match and does not move. Of a file's records, the one holding the line the query names after it
    (``cart.py:40``, a traceback's frame) goes above the others: it is what the file is shown by.
    A file of the asking project's resources (``home``, store folders ending in "/") goes above
    another project's of the same name, however surely each is named: "README.md" in project B is B's."""
    if not paths:
        return
    named: dict[tuple[int, bool], list[str]] = {}
    for rid, record in records.items():
        if record.kind == "message":
            continue
        surely, file = match(record.uri, paths, folder=record.level < 2)
        if file and record.level < 2 and not lexical.uris_matching(sections_pattern(record.uri), 1):
            continue  # a folder named like the document (``hosts/`` beside ``hosts_2/``), not its sections
        if surely:
            ours = bool(home) and record.path.startswith(home)
            named.setdefault((ours, surely, holds_line(record, line_named(record.uri, paths))), []).append(rid)
    for surely in sorted(named):  # the least sure first: each tier is lifted above the one before
        top = max(scores.values())
        for rid in named[surely]:
            scores[rid] = top + NAMED_LIFT * (top + scores[rid])  # above the top, one found by name alone too


def _units(
    records, scores, relevance: Relevance, options: FindOptions, terms: QueryTerms, lexical, session_weight: float, snippets: bool, strength: float, same=None,
    named: Named | None = None, query: str = "",
) -> list[Hit]:
    mixed = len(set(options.types or CONTEXT_TYPES) & set(CONTEXT_TYPES)) > 1
    top = max(scores.values())
    if top > 0:
        for rid in scores:
            scores[rid] *= strength / top  # the best result scores what the best match is worth
    # unit -> (score, the record shown, the id of the record whose relevance the unit has)
    best: dict[str, tuple[float, Record, str]] = {}
    # A file's chunk that spells an identifier of the query stands for the file, at the file's best
    # score: "what is QUERY_CHARS set to in ov/retrieval/find.py?" showed find.py's imports, which
    # said "retrieval" and "find" most, not the line asked about.
    spelled = identifiers(query) if query else frozenset()
    spelling: dict[str, tuple[float, Record, str]] = {}
    for rid, record in records.items():
        if record.kind == "message" and says_nothing(record.text):
            continue  # "thanks", "[tool shell pending]": found by its neighbours' words, it is no evidence
        score = scores[rid]
        if mixed and record.context_type == "session" and record.kind == "message":
            score *= session_weight
        _keep_best(best, record.unit, (score, record, rid))
        if spelled and record.level == 2 and record.kind != "message" and spells(record.text, spelled):
            _keep_best(spelling, record.unit, (score, record, rid))
    for unit, (_score, record, _rid) in spelling.items():
        best[unit] = (best[unit][0], record, best[unit][2])
    if options.defer_summaries and terms:
        for unit, score in defer_summaries({unit: item[:2] for unit, item in best.items()}, terms.words, holding_in(lexical), SHOWN_COMPARED * options.limit).items():
            best[unit] = (score, *best[unit][1:])
    if options.one_level:
        directories: dict[str, tuple[float, Record, str]] = {}
        for unit, item in best.items():
            _keep_best(directories, item[1].uri if item[1].kind in SUMMARY_KINDS else unit, item)
        best = directories
    ranked = sorted(best.values(), key=lambda item: (-item[0], item[1].uri, item[1].level, item[1].message_id))
    if options.threshold is not None:
        relevance.count(item[2] for item in ranked)
        ranked = [item for item in ranked if relevance.of(item[2]) >= options.threshold]
    words = set(terms.words) if snippets else None
    names = terms.names
    # The same text under two paths takes one place; the next results take the places it leaves.
    kept = first_of_each(ranked, lambda item: same_text(item[1]), options.limit, (lambda a, b: same(a[1], b[1])) if same else None)
    # A record's own match, not its place in this ranking: scaled to the best result, a record
    # would read more relevant in a scope where it leads than where a better match outranks it,
    # and --threshold would keep different records with --uri. Counted for the shown alone.
    relevance.count(rid for (_score, _record, rid), _copies in kept)
    return [
        _hit(record, score, words, lexical.analyze_words, relevance.of(rid), tuple(Place.of(copy[1]) for copy in copies), _line_shown(record, named, names), query)
        for (score, record, rid), copies in kept
    ]


def _line_shown(record: Record, named: Named | None, names: tuple[str, ...]) -> int:
    """The line a result's snippet is around: the one the query names after the file
    (``cart.py:40``), else where the record defines a name the query asks for (its definition,
    not a use of it below), else 0 (the lines holding the most query words)."""
    from ov.index.code import definition_line

    line = line_named(record.uri, named) if named else 0
    if not line and names and record.level == 2 and record.start_line:
        line = definition_line(record.path, record.text, record.start_line, names)
    return line


def _keep_best(best: dict[str, tuple[float, Record, str]], unit: str, item: tuple[float, Record, str]) -> None:
    """Let ``item`` stand for ``unit`` when it scores best; on a tie the lower id does, so it never
    depends on the order the rankings happened to produce."""
    current = best.get(unit)
    if current is None or item[0] > current[0] or (item[0] == current[0] and item[1].id < current[1].id):
        best[unit] = item


def _hit(
    record: Record, score: float, words: set[str] | None, analyze, relevance: float, also: tuple[Place, ...] = (), line: int = 0, query: str = ""
) -> Hit:
    """The result for ``record``; without ``words`` the snippet is left for :func:`attach_snippets`.
    ``line``: the line of its file it is shown around (:func:`_line_shown`);
    ``query``: what its snippet's lines are chosen for (:func:`~ov.retrieval.snippets.snippet_lines`)."""
    common = dict(
        uri=record.uri,
        level=record.level,
        context_type=record.context_type,
        score=score,
        relevance=relevance,
        kind=record.kind,
        title=record.title,
        parent=record.parent,
        also=also,
        record=record,
    )
    if record.kind == "message":
        return Hit(
            **common,
            snippet=focus(record.text, words, analyze, MESSAGE_SNIPPET_CHARS) if words is not None else "",
            session_id=record.session_id,
            message_id=record.message_id,
            role=record.role,
            speaker=record.speaker,
            time=_iso(record.time),
        )
    if record.level < 2:
        return Hit(**common, abstract=clip(record.text, SNIPPET_CHARS * 2))
    if words is None:
        return Hit(**common)
    snippet, first, last = snippet_lines(record, words, analyze, line, query)
    return Hit(**common, snippet=snippet, start_line=first, end_line=last)


def attach_snippets(opened, query: str, hits: list[Hit]) -> list[Hit]:
    """Fill in the snippets of hits ranked with ``snippets=False`` (only the ones shown pay): each
    shows the words of the query that found it (:attr:`Hit.found_by`), else of ``query``. A plan's
    second query chose the record by words the first lacks; with the first's words the snippet
    showed a file's first lines instead of the ones that matched. A file the query names with a
    line (a traceback's frame) shows the lines around it."""
    lexical = opened.lexical
    words_of: dict[str, QueryTerms] = {}
    out = []
    for hit in hits:
        if hit.record is not None and not hit.snippet:
            text = hit.found_by or query
            if text not in words_of:
                words_of[text] = lexical.query_terms(ranked_words(lexical, text))
            terms = words_of[text]
            words = set(terms.words)
            if hit.kind == "message":
                hit = replace(hit, snippet=focus(hit.record.text, words, lexical.analyze_words, MESSAGE_SNIPPET_CHARS))
            elif hit.level == 2:
                line = _line_shown(hit.record, named_paths(text), terms.names)
                snippet, first, last = snippet_lines(hit.record, words, lexical.analyze_words, line, text)
                hit = replace(hit, snippet=snippet, start_line=first, end_line=last)
        out.append(hit)
    return out


def _iso(epoch: float) -> str:
    if not epoch:
        return ""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
