"""What every candidate's similarity costs a query with a model that reads context (issue #14).

``find`` with MiniLM, a sentence-transformers model or an API reads each full-text candidate's
passages from the vector index (``ov.index.vectors.record_similarities``) besides searching the
nearest records (``nearest_records``). This times both on synthetic unit vectors of ``--dimension``
(384, MiniLM's) for ``--records`` records of 1 to 16 passages (about 3 on average, like SciFact's
abstracts in windows of 128 word pieces), once through hnswlib and once through the flat copy
(an index small enough for it: ``--flat-records``). ``--candidates`` records are asked for, half of
them among the nearest (as a query's full-text hits are): p50 and p90 over ``--reps`` queries, with
the nearest-records search of the same queries beside it as the baseline. Such a find also takes
its nearest records among those its filters let through (``ov.retrieval.fusion.nearest_allowed``): timed over a
full-text index of the same records, unscoped (the label check of the nearest 200 alone), scoped
to a seventh of the records and to ten of them (the records listed and searched alone). No model is loaded: the
cost of embedding the query (about 30 ms with MiniLM) comes on top of all of them.

    .venv/bin/python bench/passage_read.py [--records 5241] [--flat-records 1500] [--candidates 200] [--reps 50] [--read-allowed N]
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
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


SCOPES = 7  # record i lives in resources/p{i % SCOPES}/, the first TINY in resources/tiny/ instead
TINY = 10


def build_lexical(root: Path, records: int):
    """A full-text index of ``records`` records labelled 0.. (the vector index's records)."""
    from ov.index.lexical import LexicalIndex
    from ov.index.records import Record

    index = LexicalIndex.open(root / f"text-{records}", "english", create=True)
    for label in range(records):
        path = f"resources/tiny/f{label}.md" if label < TINY else f"resources/p{label % SCOPES}/f{label}.md"
        index.add(Record(id=f"{path}#0", path=path, uri=f"viking://{path}", level=2, kind="chunk", context_type="resource", owner="", parent="", text=f"record {label}"), label)
    index.commit()
    return index


def measure(vectors, matrix, lexical, records: int, candidates: int, reps: int, seed: int) -> dict:
    import numpy as np

    from ov.index.lexical import Filters
    from ov.index.vectors import nearest_records, record_similarities
    from ov.retrieval.fusion import nearest_allowed

    # What find's filters are for one user of an account, unscoped and scoped.
    unscoped = Filters(types=("memory", "resource", "skill", "session"), exclude_kinds=("log",), owners=("default", ""))
    scoped = Filters(types=unscoped.types, exclude_kinds=("log",), owners=unscoped.owners, scope="resources/p3")
    tiny = replace(scoped, scope="resources/tiny")
    rng = np.random.default_rng(seed)
    search, read, plain, narrow, smallest = [], [], [], [], []
    for rep in range(reps + 1):  # the first round is untimed (the label set, the float rows)
        query = matrix[rng.integers(len(matrix))] + 0.5 * rng.standard_normal(matrix.shape[1]).astype(np.float32)
        query = (query / np.linalg.norm(query)).tolist()
        seconds, neighbours = common.time_call(lambda: dict(nearest_records(vectors, query, 200)))
        asked = list(neighbours)[: candidates // 2] + [int(r) for r in rng.choice(records, candidates - candidates // 2, replace=False)]
        elapsed, _ = common.time_call(lambda: record_similarities(vectors, query, asked, neighbours))
        known = set(list(neighbours)[: candidates // 2])  # the full-text hits among them passed already
        everyone, _ = common.time_call(lambda: nearest_allowed(vectors, lexical, query, 200, unscoped, known))
        within, _ = common.time_call(lambda: nearest_allowed(vectors, lexical, query, 200, scoped, set()))
        few, found = common.time_call(lambda: nearest_allowed(vectors, lexical, query, 200, tiny, set()))
        assert sorted(found) == list(range(TINY)), sorted(found)  # every record of the scope, however far
        if rep:
            search.append(seconds)
            read.append(elapsed)
            plain.append(everyone)
            narrow.append(within)
            smallest.append(few)
    return {
        "nearest_records": common.summarize(search),
        "record_similarities": common.summarize(read),
        "nearest_allowed_unscoped": common.summarize(plain),
        "nearest_allowed_scoped": common.summarize(narrow),
        "nearest_allowed_ten": common.summarize(smallest),
    }


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=5241, help="records of the hnswlib index (default: SciFact's 5,241)")
    parser.add_argument("--flat-records", type=int, default=1500, help="records of the index searched through its flat copy")
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--candidates", type=int, default=200, help="records asked about per query, half among the nearest")
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--read-allowed", type=int, default=None, help="ov.index.vectors.READ_ALLOWED for this run (0: hnswlib's filtered search for any scope)")
    args = parser.parse_args(argv)
    if args.read_allowed is not None:
        from ov.index import vectors

        vectors.READ_ALLOWED = args.read_allowed
    common.header("passage_read: reading every candidate's passages, beside the nearest-records search")
    report = common.Report("passage_read", params=vars(args) | {"git": common.git_state()})
    rows = []
    with tempfile.TemporaryDirectory(prefix="ov-bench-passages-") as root:
        for records in (args.records, args.flat_records):
            vectors, matrix, count = build(Path(root), records, args.dimension, records)
            lexical = build_lexical(Path(root), records)
            kind = type(vectors).__name__
            result = measure(vectors, matrix, lexical, records, args.candidates, args.reps, records + 1)
            report.metrics[kind] = {"records": records, "vectors": count, **result}
            near, read = result["nearest_records"], result["record_similarities"]
            plain, narrow, few = result["nearest_allowed_unscoped"], result["nearest_allowed_scoped"], result["nearest_allowed_ten"]
            rows.append([kind, records, count, near["p50_ms"], read["p50_ms"], read["p90_ms"], plain["p50_ms"], narrow["p50_ms"], few["p50_ms"]])
    common.print_table(
        ["index", "records", "vectors", "nearest p50 ms", "read p50 ms", "read p90 ms", "filtered nearest p50 ms", f"scoped (1/{SCOPES}) p50 ms", f"scoped ({TINY}) p50 ms"],
        rows,
        digits=2,
    )
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
