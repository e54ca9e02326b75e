"""What every candidate's similarity costs a query with a model that reads context (issue #14).

``find`` with MiniLM, a sentence-transformers model or an API reads each full-text candidate's
passages from the vector index (``ov.index.vectors.record_similarities``) besides searching the
nearest records (``nearest_records``). This times both on synthetic unit vectors of ``--dimension``
(384, MiniLM's) for ``--records`` records of 1 to 16 passages (about 3 on average, like SciFact's
abstracts in windows of 128 word pieces), once through hnswlib and once through the flat copy
(an index small enough for it: ``--flat-records``). ``--candidates`` records are asked for, half of
them among the nearest (as a query's full-text hits are): p50 and p90 over ``--reps`` queries, with
the nearest-records search of the same queries beside it as the baseline. No model is loaded: the
cost of embedding the query (about 30 ms with MiniLM) comes on top of both.

    .venv/bin/python bench/passage_read.py [--records 5241] [--flat-records 1500] [--candidates 200] [--reps 50]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import common


def build(root: Path, records: int, dimension: int, seed: int):
    import numpy as np

    from ov.index.vectors import VectorIndex, load_for_search, part_labels

    rng = np.random.default_rng(seed)
    parts = np.minimum(1 + rng.exponential(2.3, records).astype(int), 16)
    labels = [label for record, count in enumerate(parts) for label in part_labels(record, int(count))]
    matrix = rng.standard_normal((len(labels), dimension)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    index = VectorIndex.create(dimension, len(labels))
    index.add(matrix, labels)
    path = root / f"vectors-{records}.hnsw"
    index.save(path)
    return load_for_search(path, dimension, index.live), matrix, len(labels)


def measure(vectors, matrix, records: int, candidates: int, reps: int, seed: int) -> dict:
    import numpy as np

    from ov.index.vectors import nearest_records, record_similarities

    rng = np.random.default_rng(seed)
    search, read = [], []
    for rep in range(reps + 1):  # the first round is untimed (the label set, the float rows)
        query = matrix[rng.integers(len(matrix))] + 0.5 * rng.standard_normal(matrix.shape[1]).astype(np.float32)
        query = (query / np.linalg.norm(query)).tolist()
        seconds, neighbours = common.time_call(lambda: dict(nearest_records(vectors, query, 200)))
        asked = list(neighbours)[: candidates // 2] + [int(r) for r in rng.choice(records, candidates - candidates // 2, replace=False)]
        elapsed, _ = common.time_call(lambda: record_similarities(vectors, query, asked, neighbours))
        if rep:
            search.append(seconds)
            read.append(elapsed)
    return {"nearest_records": common.summarize(search), "record_similarities": common.summarize(read)}


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5241, help="records of the hnswlib index (default: SciFact's 5,241)")
    parser.add_argument("--flat-records", type=int, default=1500, help="records of the index searched through its flat copy")
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--candidates", type=int, default=200, help="records asked about per query, half among the nearest")
    parser.add_argument("--reps", type=int, default=50)
    args = parser.parse_args(argv)
    common.header("passage_read: reading every candidate's passages, beside the nearest-records search")
    report = common.Report("passage_read", params=vars(args) | {"git": common.git_state()})
    rows = []
    with tempfile.TemporaryDirectory(prefix="ov-bench-passages-") as root:
        for records in (args.records, args.flat_records):
            vectors, matrix, count = build(Path(root), records, args.dimension, records)
            kind = type(vectors).__name__
            result = measure(vectors, matrix, records, args.candidates, args.reps, records + 1)
            report.metrics[kind] = {"records": records, "vectors": count, **result}
            near, read = result["nearest_records"], result["record_similarities"]
            rows.append([kind, records, count, near["p50_ms"], read["p50_ms"], read["p90_ms"]])
    common.print_table(["index", "records", "vectors", "nearest p50 ms", "read p50 ms", "read p90 ms"], rows, digits=2)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
