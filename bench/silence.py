"""When recall should inject nothing: the prompt hook's search on the right and the wrong store (issue #14).

The prompt-submit hook (``ov.hosts.recall.prompt``) injects
``search(store, prompt, SearchOptions(mode="context", budget=1000, planner=False))``
for every non-trivial prompt. There is no relevance cut-off yet, so an unrelated
prompt still gets a full block. This script measures that baseline and the
signals a cut-off could use, without changing ov.

Each LoCoMo dev conversation becomes its own throw-away ``OV_HOME`` (one user,
its own index), loaded exactly as ``locomo.py`` loads it (one ov session per
``session_N``, every turn a message, each session committed). Every question
(category 5 left out) runs the hook's search twice:

* **positive**: on its own conversation's store. It *injects its evidence* when
  the context block holds an evidence message with text (tier above ``uri``);
* **negative**: on the next conversation's store (a fixed rotation, i -> i+1).
  Anything injected there is noise;
* **swapped** (a harder negative, reported beside the issue's figures): the same
  wrong store, with the question's speaker names replaced by that store's own
  speakers (speaker_a -> speaker_a, speaker_b -> speaker_b), so names match and
  only the topic does not.

For every search the script reads, from what ``search`` and the index return,
these candidate signals (the index's analyzer and BM25 via ``LexicalIndex``):

* ``top_score``: the first result's score, as ``search`` returns it today (find's
  fused score, scaled by find's "strength", blended with the directories above);
* ``top_relevance``: the best result's relevance (``Hit.relevance``: find's score on
  the scale shared by every type and query, before session messages are scaled for
  ranking beside distilled content), what the hook's cut-off compares since #14;
* ``entry_score``: the same score used per entry (what ``--threshold`` does): a
  positive keeps its evidence when an evidence entry scores at least t;
* ``strength``: find's own strength before its clip at 1: the best BM25 over
  find's weighted fields divided by ``idf_sum`` (a record matching every word once);
* ``text_bm25_idf``: the best BM25 of the ``text`` field alone / ``idf_sum``;
* ``bm25_per_term``: the best weighted BM25 / the number of query terms;
* ``coverage_top``: the share of query terms (after the query analyzer: stop
  words and question words dropped, stemmed) present in the top result's text
  and speaker;
* ``idf_coverage_top``: the same, each term weighted by its IDF;
* ``idf_coverage_best``: the best ``idf_coverage`` over the injected entries;
* ``entry_idf_coverage``: ``idf_coverage`` per entry (a positive keeps its evidence
  when an evidence entry reaches t; a negative injects when any entry does);
* ``known_terms``: the IDF-weighted share of query terms the store's index knows
  at all (document frequency > 0), a property of the store, not of a result.

Each signal is swept over thresholds on the tuning questions (4 of every 5; every
5th question is held back). Rates at a threshold t: **retained** = of the
positives that inject their evidence today, the share that still do; **noise** =
the share of negatives that inject anything. The goal from the issue:
retained >= 90 %, noise <= 10 %. Signals are compared scale-free: the least noise
at a threshold retaining >= 90 % (``noise@90``) and the most retained at one with
noise <= 10 % (``ret@10``); the best signal has the largest ``ret@10 - noise@90``. The chosen threshold is the middle of the longest
run of thresholds meeting both (else the best retained - noise), and its
**plateau** is the run of thresholds around it where both rates stay within
``--plateau`` points of its own. The held-back questions are scored at the chosen
threshold.

    .venv/bin/python bench/silence.py [../shared/bench-data/locomo/locomo-dev.json] [--conversations conv-26,conv-30]
        [--holdout-every 5] [--plateau 2] [--keep] [--out PATH]
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import common
import locomo

DEFAULT_DATA = common.REPO_ROOT.parent / "shared" / "bench-data" / "locomo" / "locomo-dev.json"
BUDGET = 1000  # hooks.prompt_budget's default, what the hook passes
RETAINED_GOAL = 0.90
NOISE_GOAL = 0.10
STEPS = 100  # thresholds per signal
# Signals in [0, 1] by construction are swept 0.00..1.00; the others over 0..their largest value.
BOUNDED = {"top_score", "top_relevance", "entry_score", "coverage_top", "idf_coverage_top", "idf_coverage_best", "entry_idf_coverage", "known_terms"}
SIGNALS = (
    "top_score",
    "top_relevance",
    "entry_score",
    "strength",
    "text_bm25_idf",
    "bm25_per_term",
    "coverage_top",
    "idf_coverage_top",
    "idf_coverage_best",
    "entry_idf_coverage",
    "known_terms",
)
# Signals read per entry: the positive's value is the best evidence entry's, the negative's the best entry's.
PER_ENTRY = {"entry_score": "score", "entry_idf_coverage": "idf_coverage"}


# --- one search and its signals ---------------------------------------------------------


def measure(store, indices, question: str, gold: set[str]) -> dict:
    """The hook's search for ``question`` on ``store`` and the signals read from it."""
    from ov.index.lexical import Filters
    from ov.index.records import CONTEXT_TYPES
    from ov.retrieval.find import TITLE_WEIGHT
    from ov.retrieval.search import SearchOptions, search

    start = time.perf_counter()
    result = search(store, question, SearchOptions(mode="context", budget=BUDGET, planner=False), indices=indices)
    seconds = time.perf_counter() - start
    block = result.context
    entries = block.entries if block is not None else []
    lexical = indices.open().lexical
    terms = lexical.query_terms(question)
    words = terms.words
    total = max(lexical.count(), 1)
    unknown_idf = _idf(total, 0)
    idf = {w: lexical.idf_sum(type(terms)((w,), ())) for w in words}
    idf_total = sum(idf.values())
    config = store.config.retrieval
    weights = {"text": 1.0, "title": TITLE_WEIGHT, "context": config.context_weight, "speaker": config.speaker_weight}
    filters = Filters(types=CONTEXT_TYPES, exclude_kinds=("log",), owners=(store.identity.user, ""))
    best_weighted = lexical.search(terms, weights, filters, 1)
    best_text = lexical.search(terms, {"text": 1.0}, filters, 1)
    top_bm25 = best_weighted[0].score if best_weighted else 0.0
    text_bm25 = best_text[0].score if best_text else 0.0

    hits = {locomo.session_of_uri(h.uri) + "#" + h.message_id if h.kind == "message" else h.uri: h for h in result.hits}

    def coverage(hit) -> tuple[float, float]:
        if hit is None or hit.record is None or not words:
            return 0.0, 0.0
        seen = set(lexical.analyze_words(f"{hit.record.text}\n{hit.record.speaker}\n{hit.record.title}"))
        matched = [w for w in words if w in seen]
        return len(matched) / len(words), (sum(idf[w] for w in matched) / idf_total if idf_total else 0.0)

    rows = []
    for e in entries:
        key = locomo.session_of_uri(e.uri) + "#" + e.message_id if e.message_id else e.uri
        cov, idf_cov = coverage(hits.get(key))
        rows.append({"uri": e.uri, "message_id": e.message_id, "tier": e.tier, "score": e.score, "tokens": e.tokens, "coverage": cov, "idf_coverage": idf_cov, "evidence": bool(e.message_id in gold and e.tier != "uri")})
    top_cov, top_idf_cov = coverage(result.hits[0]) if result.hits else (0.0, 0.0)
    known = sum(v for w, v in idf.items() if v < unknown_idf - 1e-9) / idf_total if idf_total else 0.0
    evidence_rows = [r for r in rows if r["evidence"]]
    return {
        "seconds": seconds,
        "hits": len(result.hits),
        "injected": bool(entries),
        "tokens": block.stats.get("used_tokens", 0) if block is not None else 0,
        "evidence": bool(evidence_rows),
        "evidence_any_tier": any(r["message_id"] in gold for r in rows),
        "terms": list(words),
        "signals": {
            "top_score": result.hits[0].score if result.hits else 0.0,
            "top_relevance": max((h.relevance for h in result.hits), default=0.0),
            "entry_score": max((r["score"] for r in rows), default=0.0),
            "strength": top_bm25 / idf_total if idf_total else 0.0,
            "text_bm25_idf": text_bm25 / idf_total if idf_total else 0.0,
            "bm25_per_term": top_bm25 / len(words) if words else 0.0,
            "coverage_top": top_cov,
            "idf_coverage_top": top_idf_cov,
            "idf_coverage_best": max((r["idf_coverage"] for r in rows), default=0.0),
            "entry_idf_coverage": max((r["idf_coverage"] for r in rows), default=0.0),
            "known_terms": known,
        },
        # Per-entry signals for a positive: the best value over its evidence entries.
        "evidence_signals": {name: max((r[field] for r in evidence_rows), default=0.0) for name, field in PER_ENTRY.items()},
        "entries": rows,
    }


def _idf(total: int, df: int) -> float:
    import math

    return math.log(1 + (total - df + 0.5) / (df + 0.5))


def swap_names(question: str, own: dict, other: dict) -> str:
    """``question`` with ``own``'s speaker names replaced by ``other``'s (a -> a, b -> b)."""
    mapping = {own["speaker_a"]: other["speaker_a"], own["speaker_b"]: other["speaker_b"]}
    pattern = re.compile(r"\b(" + "|".join(re.escape(n) for n in mapping) + r")\b")
    return pattern.sub(lambda m: mapping[m.group(1)], question)


# --- sweeping ---------------------------------------------------------------------------


def value(row: dict, signal: str, positive: bool) -> float:
    if positive and signal in PER_ENTRY:
        return row["evidence_signals"][signal]
    return row["signals"][signal]


def rates(pairs: list[dict], signal: str, t: float | None, negative_key: str = "negative") -> dict:
    """Retained / absolute evidence rate of the positives and noise rate of the negatives at threshold ``t``."""
    base = [p for p in pairs if p["positive"]["evidence"]]
    kept = [p for p in base if t is None or value(p["positive"], signal, True) >= t]
    noise = [p for p in pairs if p[negative_key]["injected"] and (t is None or value(p[negative_key], signal, False) >= t)]
    n = len(pairs) or 1
    return {
        "retained": len(kept) / (len(base) or 1),
        "evidence": len(kept) / n,
        "noise": len(noise) / n,
        "n": len(pairs),
        "n_evidence_baseline": len(base),
    }


def thresholds(pairs: list[dict], signal: str) -> list[float]:
    if signal in BOUNDED:
        top = 1.0
    else:
        values = [value(p[k], signal, k == "positive") for p in pairs for k in ("positive", "negative")]
        top = max(values, default=1.0) or 1.0
    return [round(top * i / STEPS, 4) for i in range(STEPS + 1)]


def meets(r: dict) -> bool:
    return r["retained"] >= RETAINED_GOAL and r["noise"] <= NOISE_GOAL


def sweep(pairs: list[dict], signal: str, plateau_points: float) -> dict:
    grid = thresholds(pairs, signal)
    table = [{"t": t, **rates(pairs, signal, t), "swapped_noise": rates(pairs, signal, t, "swapped")["noise"]} for t in grid]
    runs, current = [], []
    for i, row in enumerate(table):
        if meets(row):
            current.append(i)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    if runs:
        longest = max(runs, key=len)
        chosen = longest[len(longest) // 2]
    else:
        gap = [r["retained"] - r["noise"] for r in table]
        best = max(gap)
        tied = [i for i, g in enumerate(gap) if g >= best - 1e-9]
        chosen = tied[len(tied) // 2]
    tol = plateau_points / 100 + 1e-9
    ref = table[chosen]

    def flat(i: int) -> bool:
        return abs(table[i]["retained"] - ref["retained"]) <= tol and abs(table[i]["noise"] - ref["noise"]) <= tol

    low = high = chosen
    while low > 0 and flat(low - 1):
        low -= 1
    while high < len(table) - 1 and flat(high + 1):
        high += 1
    at_goal_retained = [r for r in table if r["retained"] >= RETAINED_GOAL]
    at_goal_noise = [r for r in table if r["noise"] <= NOISE_GOAL]
    noise_at_90 = min((r["noise"] for r in at_goal_retained), default=1.0)
    retained_at_10 = max((r["retained"] for r in at_goal_noise), default=0.0)
    return {
        "signal": signal,
        "table": table,
        # Scale-free separation: the least noise while retaining the goal, the most retained within the noise goal.
        "noise_at_goal_retained": noise_at_90,
        "retained_at_goal_noise": retained_at_10,
        "separation": retained_at_10 - noise_at_90,
        "met_any": bool(runs),
        "met_range": [table[longest[0]]["t"], table[longest[-1]]["t"]] if runs else None,
        "met_steps": len(longest) if runs else 0,
        "chosen": ref,
        "plateau": [table[low]["t"], table[high]["t"]],
        "plateau_steps": high - low + 1,
        "step": grid[1] - grid[0],
    }


# --- main ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, nargs="?", default=DEFAULT_DATA, help="locomo-dev.json")
    parser.add_argument("--conversations", default=None, help="comma-separated sample ids (default: all dev conversations)")
    parser.add_argument("--holdout-every", type=int, default=5, help="every Nth question is held back from the sweep (default 5)")
    parser.add_argument("--plateau", type=float, default=2.0, help="points both rates may move within the plateau (default 2)")
    parser.add_argument("--embedder", default="auto", help="auto (the default config), none, hash, builtin, model2vec:PATH, ...")
    parser.add_argument("--max-questions", type=int, default=None, help="at most this many questions per conversation (quick runs)")
    args = parser.parse_args(argv)

    common.preload_retrieval()
    import ov.retrieval.search  # noqa: F401 - the hook's search, loaded once like the rest
    from ov.config import Config
    from ov.index.sync import Indices

    common.header("silence: the prompt hook's search on its own and on another conversation's store")
    samples = json.loads(args.data.read_text(encoding="utf-8"))
    if args.conversations:
        wanted = args.conversations.split(",")
        samples = [s for s in samples if s["sample_id"] in wanted]
    if len(samples) < 2:
        raise SystemExit("need at least two conversations (negatives are asked on another conversation's store)")
    config = common.config_with(Config(), common.embedder_assignments(args.embedder))
    report = common.Report("silence", params={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()})
    report.params.update(budget=BUDGET, git=common.git_state(), retained_goal=RETAINED_GOAL, noise_goal=NOISE_GOAL, negative_rotation="conversation i -> i+1")

    with common.temp_homes(len(samples), "ov-bench-silence", keep=args.keep) as homes:
        stores, indices, questions = [], [], []
        build_start = time.perf_counter()
        for i, (sample, home) in enumerate(zip(samples, homes)):
            stats = locomo.build_store(home, [sample], config, commit=True)
            store = common.open_store_as(home, stats["users"][sample["sample_id"]], config)
            idx = Indices(store)
            idx.open()
            stores.append(store)
            indices.append(idx)
            kept, _skipped = locomo.questions_of(sample, stats["dia_to_message"][sample["sample_id"]])
            if args.max_questions:
                kept = kept[: args.max_questions]
            questions.extend({**q, "conv": i} for q in kept)
        build_s = time.perf_counter() - build_start
        print(f"built {len(samples)} stores in {build_s:.1f} s; {len(questions)} questions, each asked 3 times")

        pairs = []
        run_start = time.perf_counter()
        for n, q in enumerate(questions):
            own, other = q["conv"], (q["conv"] + 1) % len(samples)
            gold = set(q["gold_messages"])
            swapped_q = swap_names(q["question"], samples[own]["conversation"], samples[other]["conversation"])
            pairs.append(
                {
                    "sample_id": q["sample_id"],
                    "qa_index": q["qa_index"],
                    "category": q["category"],
                    "question": q["question"],
                    "swapped_question": swapped_q,
                    "other": samples[other]["sample_id"],
                    "holdout": n % args.holdout_every == args.holdout_every - 1,
                    "positive": measure(stores[own], indices[own], q["question"], gold),
                    "negative": measure(stores[other], indices[other], q["question"], set()),
                    "swapped": measure(stores[other], indices[other], swapped_q, set()),
                }
            )
        run_s = time.perf_counter() - run_start
        searches = 3 * len(pairs)
        print(f"{searches} searches in {run_s:.1f} s ({run_s / max(searches, 1) * 1000:.1f} ms each, signals included)")

    tune = [p for p in pairs if not p["holdout"]]
    held = [p for p in pairs if p["holdout"]]

    # --- baseline ----------------------------------------------------------------------
    def baseline_row(name, rows):
        n = len(rows) or 1
        return [
            name,
            len(rows),
            100 * sum(p["positive"]["injected"] for p in rows) / n,
            100 * sum(p["positive"]["evidence"] for p in rows) / n,
            100 * sum(p["positive"]["evidence_any_tier"] for p in rows) / n,
            100 * sum(p["negative"]["injected"] for p in rows) / n,
            100 * sum(p["swapped"]["injected"] for p in rows) / n,
            common.percentile([p["negative"]["tokens"] for p in rows], 50),
            common.percentile([p["positive"]["tokens"] for p in rows], 50),
        ]

    base_rows = [baseline_row("all", pairs), baseline_row("tuning", tune), baseline_row("held back", held)]
    for sid in dict.fromkeys(p["sample_id"] for p in pairs):
        base_rows.append(baseline_row(sid, [p for p in pairs if p["sample_id"] == sid]))
    common.print_table(
        ["questions", "n", "pos inject %", "pos evidence %", "evid. any tier %", "neg inject %", "swapped inject %", "neg tokens p50", "pos tokens p50"],
        base_rows,
        title=f"Baseline (no cut-off), budget {BUDGET}",
    )
    report.metrics["baseline"] = {r[0]: dict(zip(["n", "positive_injects", "positive_evidence", "positive_evidence_any_tier", "negative_injects", "swapped_injects", "negative_tokens_p50", "positive_tokens_p50"], r[1:])) for r in base_rows}

    # --- sweeps ------------------------------------------------------------------------
    sweeps = {s: sweep(tune, s, args.plateau) for s in SIGNALS}
    summary = []
    for s, sw in sweeps.items():
        c = sw["chosen"]
        h = rates(held, s, c["t"])
        hs = rates(held, s, c["t"], "swapped")
        sw["held_back"] = {**h, "swapped_noise": hs["noise"]}
        summary.append(
            [
                s,
                f"{c['t']:g}",
                100 * c["retained"],
                100 * c["evidence"],
                100 * c["noise"],
                100 * c["swapped_noise"],
                100 * sw["noise_at_goal_retained"],
                100 * sw["retained_at_goal_noise"],
                "yes" if sw["met_any"] else "no",
                f"{sw['met_range'][0]:g}-{sw['met_range'][1]:g}" if sw["met_range"] else "-",
                f"{sw['plateau'][0]:g}-{sw['plateau'][1]:g} ({sw['plateau_steps']})",
                100 * h["retained"],
                100 * h["noise"],
                100 * hs["noise"],
            ]
        )
    common.print_table(
        ["signal", "chosen t", "retained %", "pos evid %", "noise %", "swapped %", "noise@90 %", "ret@10 %", "goal met", "meeting range", "plateau (steps)", "held: retained %", "noise %", "swapped %"],
        summary,
        title=f"Signals on the tuning questions (goal: retained >= {RETAINED_GOAL:.0%}, noise <= {NOISE_GOAL:.0%}); held back: every {args.holdout_every}th question",
    )

    def rank_key(sw):
        return (sw["met_any"], round(sw["separation"], 3), sw["met_steps"])

    best = max(sweeps.values(), key=rank_key)
    rows = []
    for row in best["table"]:
        i = round(row["t"] / best["step"]) if best["step"] else 0
        in_plateau = best["plateau"][0] <= row["t"] <= best["plateau"][1]
        if i % 5 and not in_plateau:
            continue
        marks = ("GOAL " if meets(row) else "") + ("plateau" if in_plateau else "") + (" <- chosen" if row["t"] == best["chosen"]["t"] else "")
        rows.append([f"{row['t']:g}", 100 * row["retained"], 100 * row["evidence"], 100 * row["noise"], 100 * row["swapped_noise"], marks.strip()])
    common.print_table(["threshold", "retained %", "pos evidence %", "noise %", "swapped %", ""], rows, title=f"Best signal: {best['signal']} (tuning questions; every 5th step, and every step in the plateau)")
    h = best["held_back"]
    print(
        f"held back ({h['n']} questions) at {best['signal']} >= {best['chosen']['t']:g}: retained {100 * h['retained']:.1f} %, "
        f"noise {100 * h['noise']:.1f} %, swapped-name noise {100 * h['swapped_noise']:.1f} %"
    )

    report.metrics["sweeps"] = sweeps
    report.metrics["best_signal"] = best["signal"]
    report.metrics["timing"] = {"build_s": build_s, "search_s": run_s, "searches": searches}
    report.metrics["questions"] = [{k: v for k, v in p.items()} for p in pairs]
    report.targets.append(common.Target(f"held back: retained at {best['signal']} >= {best['chosen']['t']:g}", 100 * h["retained"], 100 * RETAINED_GOAL, unit="%", higher_is_better=True))
    report.targets.append(common.Target(f"held back: noise at {best['signal']} >= {best['chosen']['t']:g}", 100 * h["noise"], 100 * NOISE_GOAL, unit="%"))
    report.notes.append("retained = of the positives whose block holds their evidence today, the share that still does")
    report.notes.append("swapped = the negative with the question's speaker names replaced by the wrong store's own speakers (not the issue's metric)")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
