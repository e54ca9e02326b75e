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

from ov.index.records import Record

SUMMARY_KINDS = ("abstract", "overview")


def defer_summaries(entries: dict[str, tuple[float, Record]], words: Iterable[str], analyze: Callable[[str], list[str]], shown: int) -> dict[str, float]:
    """The new scores of the summaries among ``entries`` (unit -> (score, its record)) that add no
    query word (``words``, as the index analyses them) to a result below them: each just below the
    lowest score of the results below it that match every query word it matches.

    Only the first ``shown`` entries are compared (a summary and the results below it past them
    are not listed): the words of each are read from its text (``analyze``: text to index words),
    under a millisecond a record, and a ranking holds hundreds of them. As a summary moves down,
    the next entries come in and are compared in turn. The deepest summaries go first, so a folder
    goes below its subfolder's summary where that one moved (and is the only one to cover it).
    """
    wanted = frozenset(words)
    if not wanted or not any(record.kind in SUMMARY_KINDS for _, record in entries.values()):
        return {}
    matched: dict[str, frozenset[str]] = {}

    def matched_by(key: str) -> frozenset[str]:
        if key not in matched:
            record = entries[key][1]
            own = f"{record.searched} {record.title} {record.about}"  # its own words, not its neighbours'
            matched[key] = wanted.intersection(analyze(own))
        return matched[key]

    scores = {key: score for key, (score, _) in entries.items()}
    out: dict[str, float] = {}
    moved = True
    while moved:
        moved = False
        first = sorted(entries, key=lambda k: (-scores[k], entries[k][1].uri, entries[k][1].level, entries[k][1].message_id))[:shown]
        summaries = sorted((k for k in first if entries[k][1].kind in SUMMARY_KINDS), key=lambda k: -entries[k][1].uri.count("/"))
        for key in summaries:
            says = matched_by(key)
            if not says:
                continue
            below = entries[key][1].uri.rstrip("/") + "/"
            covering = [scores[other] for other in first if _answers_below(entries[other][1], below) and says <= matched_by(other)]
            if covering and min(covering) <= scores[key]:
                scores[key] = out[key] = math.nextafter(min(covering), -math.inf)
                moved = True
    return out


def _answers_below(record: Record, folder: str) -> bool:
    """Whether ``record`` is below ``folder`` (a URI ending in ``/``) and may stand in for its
    summary: anything but a message."""
    return record.kind != "message" and record.uri.startswith(folder)
