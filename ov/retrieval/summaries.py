"""A directory's summary among the results below it: ranked by what it adds to them.

A directory's L0/L1 is made from what it holds: the extractive summariser copies its files' first
sentences, and a model paraphrases them. So the summary matches whatever its files match, and,
short, it outranked them: ``ov find "retry policy backoff"`` in a folder of three modules listed
the folder's overview, the store's overview and abstract, and only then the modules that say it.
The summary is worth its place where it says something no single result below it does (the query
names the folder's topic, or words that only several of its files hold together); where one result
below it holds every query word the summary matches, that result is the answer and the summary
only points at it. Not so a conversation's: a message is one turn, most often the question that the
archive's summary repeats beside what came of it (and the context block folds the question into the
summary before it, :mod:`ov.retrieval.context`), so a message never moves a summary.

So a summary (:func:`defer_summaries`) whose matched query words one result below it matches too
goes just below the lowest-ranked of those results; any other keeps its score. A summary that
matches no query word (found by its vector alone) says nothing about where its match came from and
keeps its score as well. Only the order moves: a result's relevance is its own match.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ov.index.lexical import Filters, QueryTerms
from ov.index.records import Record

SUMMARY_KINDS = ("abstract", "overview")
# The fields that are a record's own words (not its neighbours' or its speaker's), as find weighs
# them apart: what a summary says and what a result below it holds are compared on these.
OWN_FIELDS = {"text": 1.0, "title": 1.0, "about": 1.0}
# Records of one file looked at for a word: a file of more sections holding it counts as not
# holding it, and its folder's summary keeps its place.
SECTIONS_READ = 50

# Which of some units hold a word: (word, their URIs) -> the (URI, kind) of those whose records do.
Holding = Callable[[str, tuple[str, ...]], set[tuple[str, str]]]


def defer_summaries(entries: dict[str, tuple[float, Record]], words: Iterable[str], holding: Holding, shown: int) -> dict[str, float]:
    """The new scores of the summaries among ``entries`` (unit -> (score, its record)) that add no
    query word (``words``, as the index analyses them) to a result below them: each just below the
    lowest score of the results below it that hold every query word it holds.

    Only the first ``shown`` entries are compared (a summary and the results below it past them
    are not listed); as a summary moves down, the next entries come in and are compared in turn.
    Which words each holds, ``holding`` says (:func:`holding_in`: one look-up in the index a word,
    for all the entries it has not seen; reading the words from each record's text cost a find
    in a store of code tens of milliseconds). A file holds a word when any of its sections does.
    The deepest summaries go first, so a folder goes below its subfolder's summary where that one
    moved (and is the only one to cover it).
    """
    wanted = tuple(dict.fromkeys(words))
    if not wanted or not any(record.kind in SUMMARY_KINDS for _, record in entries.values()):
        return {}
    held: dict[str, set[tuple[str, str]]] = {word: set() for word in wanted}
    asked: set[str] = set()

    def says(key: str) -> frozenset[str]:
        record = entries[key][1]
        return frozenset(word for word in wanted if (record.uri, record.kind) in held[word])

    scores = {key: score for key, (score, _) in entries.items()}
    out: dict[str, float] = {}
    moved = True
    while moved:
        moved = False
        first = sorted(entries, key=lambda k: (-scores[k], entries[k][1].uri, entries[k][1].level, entries[k][1].message_id))[:shown]
        summaries = sorted((k for k in first if entries[k][1].kind in SUMMARY_KINDS), key=lambda k: -entries[k][1].uri.count("/"))
        if not summaries:
            break
        new = tuple(dict.fromkeys(entries[k][1].uri for k in first if entries[k][1].kind != "message" and entries[k][1].uri not in asked))
        if new:
            asked.update(new)
            for word in wanted:
                held[word] |= holding(word, new)
        for key in summaries:
            said = says(key)
            if not said:
                continue
            below = entries[key][1].uri.rstrip("/") + "/"
            covering = [scores[other] for other in first if _answers_below(entries[other][1], below) and said <= says(other)]
            if covering and min(covering) <= scores[key]:
                scores[key] = out[key] = math.nextafter(min(covering), -math.inf)
                moved = True
    return out


def holding_in(lexical) -> Holding:
    """:data:`Holding` read from the full-text index ``lexical``: the records of the URIs given
    that match the word in their own fields (:data:`OWN_FIELDS`)."""

    def holding(word: str, uris: tuple[str, ...]) -> set[tuple[str, str]]:
        hits = lexical.search(QueryTerms((word,), ()), OWN_FIELDS, Filters(uris=uris), SECTIONS_READ * len(uris))
        return {(hit.record.uri, hit.record.kind) for hit in hits}

    return holding


def _answers_below(record: Record, folder: str) -> bool:
    """Whether ``record`` is below ``folder`` (a URI ending in ``/``) and may stand in for its
    summary: anything but a message."""
    return record.kind != "message" and record.uri.startswith(folder)
