"""The vector side of ``find``: the nearest records under a find's restrictions, and their fusion with
the full-text ranking (:func:`add_vectors`), weighted per context type by the kind of embedder
(:func:`vector_weights`, :func:`candidate_similarity`)."""

from __future__ import annotations

import math
from dataclasses import replace

from ov.index.lexical import Filters
from ov.index.records import Record
from ov.index.vectors import nearest_records

RRF_K = 60  # the constant of reciprocal-rank fusion (Cormack et al.)
# Added to every full-text score, in the rankings and in the relevance alike: it damps the lead of
# the best BM25 over the rest, and keeps a clear match in a small store relevant (where IDF says
# little). Every find's filters used to add it (1.0 for each of its two filter sets, type and
# owner), and the weights and the cut-off were measured with it; a scope's filter added its IDF
# on top, so a scoped find read as more relevant than the same match unscoped. Filters add nothing now.
LEXICAL_FLOOR = 2.0
# Neighbours the words missed that become candidates (at least; 3x the limit when that is more): such
# a record scores at most weight / (1 + weight) and enters the results only from the top of the list.
NEAREST = 30
# A find whose filters let fewer of the store's nearest records through than it needs, and keep
# less than a sixteenth of the store, lists the records they let through, up to this many (about
# 10 ms from the label column), and searches them alone; otherwise it asks for more neighbours, up
# to NEAREST_SCAN times the pool (the nearest 3,200 of 200), enough for a sixteenth of the store.
FILTERED_SEARCH = 20_000
NEAREST_SCAN = 16
# The first passage's share of a several-passage record's similarity, for models that read context
# (docs/benchmarks.md, "Passages and replies"); static models embed one passage.
FIRST_PASSAGE_WEIGHT = 0.3


def add_vectors(opened, config, words: str, options, filters: Filters, pool: int, lexical_hits: list, records: dict[str, Record], scores: dict[str, float], relevance) -> None:
    """The vector ranking fused into the full-text one (``scores``) and into each record's
    relevance (:meth:`ov.retrieval.relevance.Relevance.blend`), the nearest records the words missed added to ``records``: nothing
    without vectors, for a lexical-only find, or when every type's vector weight is 0."""
    lexical = opened.lexical
    static = getattr(opened.embedder, "static", False)
    weights_by_type = vector_weights(config, static)
    if opened.vectors is None or options.lexical_only or not any(w > 0 for w in weights_by_type.values()) or not words.strip():
        return
    query_vector = opened.query_vector(words)
    # The vector ranking is the nearest `pool` records. A full-text candidate among them takes
    # its cosine; one outside them takes none with a static model (it is not near the query,
    # so it loses ground) and its own, read from the index, with a model that reads context
    # (candidate_similarity). Of the neighbours the words missed, only the nearest few are
    # fetched from the full-text index as candidates of their own: fetching all of them cost a
    # warm query ~20 ms.
    known = {h.label for h in lexical_hits}
    every, first = candidate_similarity(config, static)
    if every:
        # Every candidate is ranked by its own similarity, so the neighbours serve to find what
        # the words missed: they are taken among the records the filters let through.
        neighbours = nearest_allowed(opened.vectors, lexical, query_vector, pool, filters, known)
    else:
        # Being among the store's nearest is the evidence a static model gives, so the
        # neighbours are the whole store's (the filters then drop some): taken among a
        # scope's records only, a static model's cosine counts for records far from the query
        # (LoCoMo R@10 0.837 -> 0.832 with the built-in model, five users in one account).
        neighbours = dict(nearest_records(opened.vectors, query_vector, pool))
    by_label = {h.label: neighbours[h.label] for h in lexical_hits if h.label in neighbours}
    nearest = [(label, sim) for label, sim in neighbours.items() if label not in known][: max(options.limit * 3, NEAREST)]
    found = list(lexical_hits)
    if nearest:
        by_label.update(nearest)
        found += lexical.fetch(replace(filters, labels=tuple(label for label, _ in nearest)), len(nearest))
    if every or first > 0:
        _read_similarities(opened.vectors, query_vector, found, neighbours, by_label, every, first)
    # A type whose weight is 0 is ranked by its words alone, exactly as without vectors.
    found = [h for h in found if by_label.get(h.label, 0.0) > 0 and weights_by_type.get(h.record.context_type, 0.0) > 0]
    if not found:
        return
    ranked = sorted(found, key=lambda h: (-by_label[h.label], h.record.id))
    for hit in ranked:
        records[hit.record.id] = hit.record
    weight_of = {rid: weights_by_type.get(record.context_type, 0.0) for rid, record in records.items()}
    similarity = {h.record.id: min(1.0, by_label[h.label]) for h in ranked}
    relevance.blend({rid: (weight_of[rid], similarity.get(rid, 0.0)) for rid in {h.record.id for h in lexical_hits} | similarity.keys()})
    _fuse(config.fusion, scores, [(h.record.id, h.score + LEXICAL_FLOOR) for h in lexical_hits], [(h.record.id, by_label[h.label]) for h in ranked], weight_of)


def nearest_allowed(vectors, lexical, query_vector, pool: int, filters: Filters, known: set[int]) -> dict[int, float]:
    """Record label -> cosine of the nearest ``pool`` records that ``filters`` let through.

    The filters (scope, type, level, time, the user's own records) apply to the vectors as they do
    to the words: a scoped find, or one in an account shared by several users, finds what its
    words missed among the records it may return, instead of taking the neighbours of the whole
    store and keeping the few that pass (a scope of memories in a store of many messages would
    find none). Which of the store's nearest pass is read from the full-text index's label column
    (``known``, the full-text hits, passed already). When fewer than ``pool`` do, a part of the
    store under a sixteenth (:data:`NEAREST_SCAN`) and of at most :data:`FILTERED_SEARCH` records
    is listed and searched alone; a larger part, by asking for more neighbours, as many as the
    share that passed says will fill the pool, until ``NEAREST_SCAN`` pools' worth have been looked
    at (for a part above a sixteenth, one or two more searches).
    """
    asked = pool
    checked: set[int] = set()
    passing: set[int] = set()
    while True:
        near = nearest_records(vectors, query_vector, asked)
        unknown = [label for label, _ in near if label not in known and label not in checked]
        if unknown:
            passing |= lexical.passing(replace(filters, labels=tuple(unknown)))
            checked.update(unknown)
        allowed = [(label, sim) for label, sim in near if label in known or label in passing]
        if len(allowed) >= pool or len(near) < asked or asked >= pool * NEAREST_SCAN:
            return dict(allowed[:pool])
        if asked == pool:
            count = lexical.matching(filters)
            if count * NEAREST_SCAN < lexical.count() and count <= FILTERED_SEARCH:
                return dict(nearest_records(vectors, query_vector, pool, lexical.passing(filters, count)))
        # Ask for as many as the share that passed so far says will fill the pool, and a quarter
        # more: one more search, most often, where doubling would take several.
        share = len(allowed) / len(near)
        wanted = pool * NEAREST_SCAN if share == 0 else math.ceil(pool / share * 1.25)
        asked = min(pool * NEAREST_SCAN, max(asked * 2, wanted))


# The vector ranking's weight per context type, by the kind of embedder, measured on the dev
# benchmarks (docs/benchmarks.md, "Embedders"): static models (the built-in one, model2vec, the
# hashing embedder) help only at a small weight, transformer models and APIs at a larger one for
# documents; conversations take a small weight from every embedder, because a chat message is
# short and shares its small talk with every other one. Memories have no benchmark and take the
# conversations' weight: they are as short.
STATIC_WEIGHTS = {"resource": 0.1, "skill": 0.1, "memory": 0.1, "session": 0.1}
MODEL_WEIGHTS = {"resource": 1.0, "skill": 1.0, "memory": 0.25, "session": 0.25}


def vector_weights(config, static: bool) -> dict[str, float]:
    """The vector ranking's weight for each context type: ``retrieval.*vector_weight`` where set,
    else the measured default for the kind of embedder, ``static`` or not (see :data:`STATIC_WEIGHTS`)."""
    measured = STATIC_WEIGHTS if static else MODEL_WEIGHTS
    chosen = {"resource": config.vector_weight, "skill": config.vector_weight, "memory": config.memory_vector_weight, "session": config.session_vector_weight}
    return {kind: measured[kind] if value is None else value for kind, value in chosen.items()}


def candidate_similarity(config, static: bool) -> tuple[bool, float]:
    """(whether every full-text candidate takes its similarity, the first passage's share of a
    several-passage record's similarity): ``retrieval.every_candidate`` and
    ``retrieval.first_passage_weight`` where set, else what was measured for the kind of embedder.

    Measured on the dev benchmarks (docs/benchmarks.md, "Passages and replies"). A static model's
    cosine says little on its own (a mean of word vectors, close to the words the full text already
    matched): being outside its nearest records is more telling than where outside (with every
    candidate's cosine the built-in model lost 0.009 of LoCoMo R@10 and SciFact did not move), and
    it embeds a record as one passage. A model that reads context ranks a candidate it missed by
    how near it really is, and a document's first passage, which carries its title, says what the
    whole is about.
    """
    every = (not static) if config.every_candidate is None else bool(config.every_candidate)
    first = (0.0 if static else FIRST_PASSAGE_WEIGHT) if config.first_passage_weight is None else config.first_passage_weight
    return every, min(1.0, max(0.0, first))


def _read_similarities(vectors, query_vector, found, neighbours: dict[int, float], by_label: dict[int, float], every: bool, first: float) -> None:
    """Set ``by_label`` from each candidate's passages: its nearest passage's cosine, mixed with its
    first passage's by ``first`` for a record of several passages. A message keeps its nearest: its
    last vector is itself with the message before it, not a passage of a longer text, and a chat
    message has no title or opening to speak for it. Without ``every``, a candidate outside
    ``neighbours`` keeps none."""
    from ov.index.vectors import record_similarities

    wanted = [h for h in found if every or h.label in neighbours]
    sims = record_similarities(vectors, query_vector, [h.label for h in wanted], neighbours)
    for hit in wanted:
        sim = sims.get(hit.label)
        if sim is None:
            continue
        value = sim.nearest
        if first > 0 and sim.passages > 1 and hit.record.kind != "message":
            value = (1 - first) * sim.nearest + first * sim.first
        by_label[hit.label] = value


def _fuse(
    method: str,
    scores: dict[str, float],
    lexical: list[tuple[str, float]],
    nearest: list[tuple[str, float]],
    weights: dict[str, float],
) -> None:
    """Replace the full-text scores in ``scores`` by their fusion with the vector ranking.

    Each record's type weighs the vectors (``weights``; 0 leaves it to full text alone).
    ``minmax``: each list scaled onto 0..1 between its worst and best candidate, then
    ``(text + w * vector) / (1 + w)``: the size of a lead counts, and a list whose scores
    bunch together (cosines of a static model lie within a few hundredths) spreads out
    instead of adding a near-constant. ``convex``: the same with each list divided by its
    best. ``rrf``: reciprocal-rank fusion, ``1/(k + rank)`` from each list: only the order
    counts.
    """
    if method == "rrf":
        fused: dict[str, float] = {}
        for rank_, (rid, _) in enumerate(lexical, 1):
            fused[rid] = 1.0 / (RRF_K + rank_)
        for rank_, (rid, _) in enumerate(nearest, 1):
            fused[rid] = fused.get(rid, 0.0) + weights.get(rid, 0.0) / (RRF_K + rank_)
        top = max(fused.values())
        scores.clear()
        scores.update({rid: value / top for rid, value in fused.items()})
        return
    text = _scaled(lexical, method)
    vector = _scaled(nearest, method)
    scores.clear()
    for rid in text.keys() | vector.keys():
        weight = weights.get(rid, 0.0)
        scores[rid] = (text.get(rid, 0.0) + weight * vector.get(rid, 0.0)) / (1 + weight)


def _scaled(ranking: list[tuple[str, float]], method: str) -> dict[str, float]:
    """A ranking's scores on 0..1: divided by the best (``convex``), or between worst and best (``minmax``)."""
    if not ranking:
        return {}
    best = max(score for _, score in ranking)
    floor = min(score for _, score in ranking) if method == "minmax" else 0.0
    span = best - floor
    if span <= 0:
        return {rid: 1.0 for rid, _ in ranking}
    return {rid: (score - floor) / span for rid, score in ranking}
