"""How well hnswlib's filtered search finds the nearest allowed vectors, by its ``ef`` (issue #14).

A scoped find with a model that reads context searches the vectors of the records its filters
let through (``VectorIndex.search(..., allowed=...)``), through hnswlib's ``knn_query(filter=...)``
when they are more than ``READ_ALLOWED``. This measures that search on real vectors: the built-in
model's vectors of every SciFact abstract and every LoCoMo dev turn (one index, as a store holding
both), a random allowed part of ``--sizes`` records, the nearest 200 (fewer when fewer are
allowed) of each of ``--queries`` queries (LoCoMo questions and SciFact queries, alternately):
recall against the exact nearest allowed vectors and the time per search, at ``ef`` = k and 2k.

    .venv/bin/python bench/filtered_recall.py [--data ../shared/bench-data] [--sizes 20,300,2000,5000] [--queries 100]
"""

from __future__ import annotations

import json
from pathlib import Path

import common

DATA = common.BENCH_DATA
K = 200


def vectors_and_queries(data: Path, count: int):
    import numpy as np

    from ov.index.embedders.builtin import BuiltinEmbedder

    embedder = BuiltinEmbedder(64)
    texts: list[str] = []
    with (data / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            texts.extend(embedder.passages(f"{doc['title']}\n{doc['text']}".strip()))
    questions: list[str] = []
    for sample in json.loads((data / "locomo" / "locomo-dev.json").read_text(encoding="utf-8")):
        for key, turns in sample["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                texts.extend(turn["text"] for turn in turns)
        questions.extend(q["question"] for q in sample["qa"])
    with (data / "scifact" / "queries.jsonl").open(encoding="utf-8") as handle:
        queries = [json.loads(line)["text"] for line in handle]
    mixed = [q for pair in zip(questions, queries) for q in pair][:count]
    matrix = np.vstack([embedder.embed(texts[i : i + 256]) for i in range(0, len(texts), 256)]).astype(np.float32)
    return matrix, np.asarray([embedder.embed_query(q) for q in mixed], dtype=np.float32)


def main(argv: list[str] | None = None) -> int:
    import hnswlib
    import numpy as np

    from ov.index.vectors import EF_CONSTRUCTION, M

    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the bench-data folder (scifact/, locomo/locomo-dev.json)")
    parser.add_argument("--sizes", default="20,300,2000,5000", help="allowed records, comma-separated")
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args(argv)
    common.header("filtered_recall: hnswlib's filtered search on the built-in model's vectors")
    report = common.Report("filtered_recall", params={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()} | {"git": common.git_state()})
    matrix, queries = vectors_and_queries(args.data, args.queries)
    count, dimension = matrix.shape
    index = hnswlib.Index("ip", dimension)
    index.init_index(count, M=M, ef_construction=EF_CONSTRUCTION)
    index.add_items(matrix, np.arange(count))
    rng = np.random.default_rng(0)
    rows = []
    for size in (int(s) for s in args.sizes.split(",") if s):
        allowed = np.sort(rng.choice(count, min(size, count), replace=False))
        members = set(allowed.tolist())
        k = min(K, len(allowed))
        for ef in (k, 2 * k):
            index.set_ef(max(64, ef))
            recalls, seconds = [], []
            for query in queries:
                elapsed, (labels, _) = common.time_call(lambda: index.knn_query(query, k=k, filter=lambda label: label in members))
                exact = allowed[np.argsort(-(matrix[allowed] @ query))[:k]]
                recalls.append(len(set(labels[0].tolist()) & set(exact.tolist())) / k)
                seconds.append(elapsed)
            summary = common.summarize(seconds)
            report.metrics[f"{size}@{ef}"] = {"recall": float(np.mean(recalls)), **summary}
            rows.append([size, k, ef, float(np.mean(recalls)), summary["p50_ms"]])
    report.metrics["vectors"] = count
    common.print_table(["allowed", "k", "ef", "recall", "p50 ms"], rows, title=f"{count} vectors, {len(queries)} queries", digits=3)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
