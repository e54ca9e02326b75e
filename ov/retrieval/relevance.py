"""How relevant each candidate of a find is (:attr:`ov.retrieval.find.Hit.relevance`), on one scale
for every query: its BM25 against what a record holding every query word scores, capped by the share
of the query's words it holds (:data:`FULL_SHARE`), blended with its cosine where vectors rank too.

The cap takes a full-text look-up over the records asked about (one for all the query's words,
:meth:`~ov.index.lexical.LexicalIndex.holding`), so it is computed only for the records whose
relevance is read: the results shown, and the few it takes to know the best
relevance of all (:meth:`Relevance.best`). Every candidate's cap cost a prompt's ranking as much as
the rest of it (docs/benchmarks.md); the values are the same as when every candidate was counted.
"""

from __future__ import annotations

from collections.abc import Iterable

from ov.index.lexical import QueryTerms

# The fields a record holds a query word in, for its share of the query: its own words and who said
# it, not its neighbours' (a message found by its neighbours alone holds none).
HELD_FIELDS = ("text", "title", "about", "speaker")
# The share of a query's words a record must hold to read as a full match: with 2/3, the prompt
# hook's cut-off kept 89.5 % of LoCoMo's held-back evidence, under its 90 % goal; with 0.6, 91.1 %,
# as without a cap (docs/benchmarks.md). One word of three reads 0.56 at most.
FULL_SHARE = 0.6
# How many candidates' caps one look-up counts while the best relevance is sought: the best is most
# often among the first few by their uncapped relevance, and each round costs a look-up.
BATCH = 8


class Relevance:
    """Record id -> its relevance, each cap counted when first needed.

    ``lexical_hits``: the full-text candidates; ``ceiling``: what a record matching every query word
    scores (:meth:`~ov.index.lexical.LexicalIndex.idf_sum`); ``floor``: what is added to each BM25.
    """

    def __init__(self, lexical, terms: QueryTerms, lexical_hits: list, ceiling: float, floor: float) -> None:
        self._lexical = lexical
        self._terms = terms
        self._own = {hit.record.id: min(1.0, (hit.score + floor) / ceiling) for hit in lexical_hits}
        self._label = {hit.record.id: hit.label for hit in lexical_hits}
        self._vector: dict[str, tuple[float, float]] = {}  # record id -> (the vectors' weight, its cosine)
        self._cap: dict[int, float] = {}  # label -> the share cap, once counted
        self._best: float | None = None
        # A one-word query is capped too: a message found by its neighbours' word alone ("next to
        # the kitchen" for "kitchen") read 0.94 on their BM25, and holds none of the query.
        self._capped = bool(terms.words)

    def blend(self, similar: dict[str, tuple[float, float]]) -> None:
        """Blend in each record's cosine: record id -> (the vector ranking's weight for its type,
        its cosine, 0 when the vectors did not rank it) (:func:`ov.retrieval.fusion.add_vectors`)."""
        self._vector.update(similar)
        self._best = None

    def of(self, rid: str) -> float:
        """``rid``'s relevance, 0.0 for a record neither ranking found (one added by its name)."""
        if self._capped and rid in self._label and self._label[rid] not in self._cap:
            self.count([rid])
        return self._value(rid, self._cap.get(self._label.get(rid, -1), 1.0))

    def count(self, rids: Iterable[str]) -> None:
        """Count the caps of ``rids`` not counted yet, together (one look-up for all the query's words)."""
        if not self._capped:
            return
        labels = tuple(dict.fromkeys(self._label[rid] for rid in rids if rid in self._label and self._label[rid] not in self._cap))
        if labels:
            self._cap.update(shares_held(self._lexical, self._terms, labels))

    def best(self, likely: Iterable[str] = ()) -> float:
        """The highest relevance of any candidate, 0.0 without candidates: the candidates taken in
        the order of their relevance uncapped (the most each can have), counted a batch at a time,
        until none left uncounted could pass the best counted. ``likely``: the candidates likely to
        be shown, counted with the first batch (each round costs a look-up)."""
        if self._best is not None:
            return self._best
        rids = sorted(self._own.keys() | self._vector.keys(), key=lambda rid: (-self._value(rid, 1.0), rid))
        best = 0.0
        for start in range(0, len(rids), BATCH):
            batch = [rid for rid in rids[start : start + BATCH] if self._value(rid, 1.0) > best]
            if not batch:
                break
            self.count([*batch, *likely] if not start else batch)
            best = max(best, *(self.of(rid) for rid in batch))
        self._best = best
        return best

    def _value(self, rid: str, cap: float) -> float:
        """``rid``'s relevance with ``cap`` on its own match (1.0: the most it can be)."""
        own = min(self._own.get(rid, 0.0), cap)
        if rid not in self._vector:
            return own
        weight, similarity = self._vector[rid]
        return (own + weight * similarity) / (1 + weight)


def shares_held(lexical, terms: QueryTerms, labels: tuple[int, ...]) -> dict[int, float]:
    """The most relevance each full-text candidate of ``labels`` may have for the share of the
    query's words it holds in its own fields or as its speaker (:data:`HELD_FIELDS`): a full match
    from :data:`FULL_SHARE` of them, in proportion below. One look-up for the query's words, one
    more for the names it spells.

    Its BM25 over several fields, short and with the floor on top, could pass what a record
    holding every word once scores: the profile answered "which port does the api use?" with
    relevance 1.0 for "use" alone, the rarest word of the store, and the prompt hook injected it.
    Words, not their IDFs: a share weighed by IDF gave the rare "use" most of that question, and
    the BM25 weighs it already. A word the store does not hold counts too (no record holds it).
    The allowance below a whole query is for answers, which rarely repeat a question's every word
    (LoCoMo's evidence holds the speaker's name and a word or two of it)."""
    count: dict[int, int] = dict.fromkeys(labels, 0)
    for held in lexical.holding(terms, HELD_FIELDS, labels).values():
        for label in held:
            count[label] += 1
    shares = {label: min(1.0, held / len(terms.words) / FULL_SHARE) for label, held in count.items()}
    if terms.names:
        # The code that defines a name the query spells is what it asks about, whatever else it
        # says: "make has_topic faster" holds one word of three ("topic") beside the request's.
        named = QueryTerms(terms.names, ())
        for held in lexical.holding(named, ("defines",), labels).values():
            shares.update(dict.fromkeys(held, 1.0))
    return shares
