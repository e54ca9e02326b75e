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

The same reading decides what a directory lends the results below it in ``ov search``
(:func:`explained_by`): a summary whose matched words one result below it holds is that result's
match, not evidence that the directory's other files are about the query.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from ov.index.lexical import WORDS_A_LOOKUP, Filters, QueryTerms
from ov.index.records import Record

SUMMARY_KINDS = ("abstract", "overview")
# The fields that are a record's own words (not its neighbours' or its speaker's), as find weighs
# them apart: what a summary says and what a result below it holds are compared on these.
OWN_FIELDS = {"text": 1.0, "title": 1.0, "about": 1.0}
# Records of one file looked at for a word: a file of more sections holding it counts as not
# holding it, and its folder's summary keeps its place.
SECTIONS_READ = 50

# Which of some units hold which words: (words, their URIs) -> word -> the (URI, kind) of those
# whose records hold it.
Holding = Callable[[tuple[str, ...], tuple[str, ...]], dict[str, set[tuple[str, str]]]]


class Held:
    """Which query words (as the index analyses them) records hold in their own fields, asked of
    the index at once for all the URIs not asked yet (:data:`Holding`). A file holds a word when
    any of its sections does; a message is never asked (it stands in for no summary)."""

    def __init__(self, words: Iterable[str], holding: Holding):
        self.words = tuple(dict.fromkeys(words))
        self._holding = holding
        self._held: dict[str, set[tuple[str, str]]] = {word: set() for word in self.words}
        self._asked: set[str] = set()

    def read(self, records: Iterable[Record]) -> None:
        new = tuple(dict.fromkeys(r.uri for r in records if r.kind != "message" and r.uri not in self._asked))
        if new:
            self._asked.update(new)
            for word, holders in self._holding(self.words, new).items():
                self._held[word] |= holders

    def of(self, record: Record) -> frozenset[str]:
        """The words ``record`` holds, of those :meth:`read` asked about its URI."""
        return frozenset(word for word in self.words if (record.uri, record.kind) in self._held[word])


def defer_summaries(
    entries: dict[str, tuple[float, Record]], words: Iterable[str], holding: Holding, shown: int, *, held: Held | None = None
) -> dict[str, float]:
    """The new scores of the summaries among ``entries`` (unit -> (score, its record)) that add no
    query word (``words``, as the index analyses them) to a result below them: each just below the
    lowest score of the results below it that hold every query word it holds.

    Only the first ``shown`` entries are compared (a summary and the results below it past them
    are not listed); as a summary moves down, the next entries come in and are compared in turn.
    Which words each holds, ``holding`` says (:func:`holding_in`: one look-up in the index for all
    the entries it has not seen; reading the words from each record's text cost a find in a store
    of code tens of milliseconds). A file holds a word when any of its sections does.
    The deepest summaries go first, so a folder goes below its subfolder's summary where that one
    moved (and is the only one to cover it). ``held``: what is known already of these words
    (a search asked them of its best results and summaries before its descent).
    """
    held = held if held is not None else Held(words, holding)
    if not held.words or not any(record.kind in SUMMARY_KINDS for _, record in entries.values()):
        return {}
    scores = {key: score for key, (score, _) in entries.items()}
    out: dict[str, float] = {}
    moved = True
    while moved:
        moved = False
        first = sorted(entries, key=lambda k: (-scores[k], entries[k][1].uri, entries[k][1].level, entries[k][1].message_id))[:shown]
        summaries = sorted((k for k in first if entries[k][1].kind in SUMMARY_KINDS), key=lambda k: -entries[k][1].uri.count("/"))
        if not summaries:
            break
        held.read(entries[k][1] for k in first)
        for key in summaries:
            said = held.of(entries[key][1])
            if not said:
                continue
            below = entries[key][1].uri.rstrip("/") + "/"
            covering = [scores[other] for other in first if _answers_below(entries[other][1], below) and said <= held.of(entries[other][1])]
            if covering and min(covering) <= scores[key]:
                scores[key] = out[key] = math.nextafter(min(covering), -math.inf)
                moved = True
    return out


def explained_by(summary: Record, below: Iterable[Record], held: Held) -> tuple[str, ...]:
    """The URIs of the results among ``below`` (records below ``summary``'s directory) that hold
    every query word the summary holds, as far as ``held`` has read them: its match is wholly each
    of theirs, and the directory is about the query only as far as they are. Empty when the summary
    adds a word no one of them holds (the folder's topic, or words only several files hold
    together), when it holds no query word (found by its vector, it says nothing of where its match
    came from) or was not read, and for a conversation's summary (a message is one turn of what the
    summary tells, never its whole match)."""
    if summary.kind not in SUMMARY_KINDS:
        return ()
    folder = summary.uri.rstrip("/") + "/"
    candidates = [record for record in below if _answers_below(record, folder)]
    said = held.of(summary)
    if not said:
        return ()
    return tuple(dict.fromkeys(record.uri for record in candidates if said <= held.of(record)))


def holding_in(lexical) -> Holding:
    """:data:`Holding` read from the full-text index ``lexical``: the records of the URIs given
    that match each word in their own fields (:data:`OWN_FIELDS`), up to
    :data:`~ov.index.lexical.WORDS_A_LOOKUP` words a look-up. Where more records match than
    :data:`SECTIONS_READ` a URI, a look-up a word (each keeps its best matches)."""
    fields = tuple(OWN_FIELDS)

    def holding(words: tuple[str, ...], uris: tuple[str, ...]) -> dict[str, set[tuple[str, str]]]:
        among, limit = Filters(uris=uris), SECTIONS_READ * len(uris)
        out: dict[str, set[tuple[str, str]]] = {}
        for start in range(0, len(words), WORDS_A_LOOKUP):
            some = words[start : start + WORDS_A_LOOKUP]
            found = lexical.holders(some, fields, among, limit)
            if found is None:
                found = {word: {(hit.record.uri, hit.record.kind) for hit in lexical.search(QueryTerms((word,), ()), OWN_FIELDS, among, limit)} for word in some}
            out.update(found)
        return out

    return holding


def _answers_below(record: Record, folder: str) -> bool:
    """Whether ``record`` is below ``folder`` (a URI ending in ``/``) and may stand in for its
    summary: anything but a message."""
    return record.kind != "message" and record.uri.startswith(folder)
