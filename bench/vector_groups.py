"""The grouped copy of a large vector index: what a cold search finds and costs (issue #14).

Past the flat copy's limit (4,096 vectors of 256 dimensions) a cold ``ov find`` searches the
index's grouped copy (``ov.index.vector_groups``) instead of importing numpy and loading hnswlib.
This measures it on real vectors of the built-in model: SciFact's abstracts (their passages),
LoCoMo's turns and, to reach larger sizes, SciFact's sentences one by one; the queries are
SciFact's claims and LoCoMo's questions. For each ``--sizes`` the first N of those vectors are
indexed as ov indexes them, then:

1. **found**: the share of the exact 200 nearest (what ``find`` asks for) that the grouped copy
   and hnswlib (at the ``ef`` ov searches with) return, mean and 10th percentile over the queries;
2. **cold**: ``--reps`` fresh processes each load the index and search the 200 nearest records
   of one query (p50 of the time inside the process, from the import of ``ov.index.vectors`` to
   the answer): the grouped copy without numpy, and hnswlib as a process without the copy has it;
3. **update**: 8 updates of one vector each (the index read for an update, the vector added, the
   next generation saved), p50, with the grouped copy and with hnswlib's file alone.

``--quality`` also runs ``scifact.py`` and ``locomo.py`` with the built-in model with every
index searched through its grouped copy (no flat copy), to show what it changes on the benchmarks.

    .venv/bin/python bench/vector_groups.py [--sizes 12000,30000,53000] [--reps 15] [--quality]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import common

SCIFACT = common.BENCH_DATA / "scifact"
LOCOMO = common.BENCH_DATA / "locomo" / "locomo-dev.json"
NEAREST = 200

COLD = """
import json, sys, time
start = time.perf_counter()
from pathlib import Path
if sys.argv[4] == "hnswlib":
    import numpy  # a process that has numpy searches hnswlib: what one without the copy pays
from ov.index import vectors
found = vectors.load_for_search(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), static=True)
near = vectors.nearest_records(found, json.loads(sys.stdin.read()), 200)
print(json.dumps([type(found).__name__, time.perf_counter() - start, len(near)]))
"""


def texts_and_queries(embedder) -> tuple[list[str], list[str]]:
    docs, sentences, queries = [], [], []
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            docs += embedder.passages(f"{doc.get('title', '')}\n{doc['text']}")
            sentences += [s for s in re.split(r"(?<=[.!?])\s+", doc["text"]) if len(s) > 30]
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as handle:
        queries += [json.loads(line)["text"] for line in handle]
    for conversation in json.loads(LOCOMO.read_text(encoding="utf-8")):
        for key, turns in conversation["conversation"].items():
            if key.startswith("session_") and isinstance(turns, list):
                docs += [f"{turn['speaker']}: {turn['text']}" for turn in turns if isinstance(turn, dict) and "text" in turn]
        queries += [qa["question"] for qa in conversation["qa"]]
    return docs + sentences, queries


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="12000,30000,53000", help="index sizes in vectors (at most about 53,000: the texts there are)")
    parser.add_argument("--reps", type=int, default=15, help="cold processes per size and kind")
    parser.add_argument("--quality", action="store_true", help="also run scifact.py and locomo.py on grouped copies")
    args = parser.parse_args(argv)
    common.header("vector groups: the grouped copy against exact search and hnswlib")
    import numpy as np

    from ov.index import vector_groups
    from ov.index.embedders.builtin import BuiltinEmbedder
    from ov.index.vectors import VectorIndex, groups_path, nearest_records

    embedder = BuiltinEmbedder(64)
    texts, queries = texts_and_queries(embedder)
    matrix = embedder.embed(texts).astype(np.float32)
    asked = np.asarray([embedder.embed_query(q) for q in queries], dtype=np.float32)
    report = common.Report("vector_groups", params=vars(args) | {"git": common.git_state(), "texts": len(texts), "queries": len(queries)})
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        size = min(size, len(matrix))
        with tempfile.TemporaryDirectory(prefix="ov-bench-groups-") as folder:
            path = Path(folder) / "vectors-000001.hnsw"
            index = VectorIndex.create(matrix.shape[1], size)
            index.add(matrix[:size], list(range(size)))
            build_s, _ = common.time_call(lambda: index.save(path))
            grouped = vector_groups.GroupedVectors.load(groups_path(path), matrix.shape[1], size, static=True)  # the built-in model's
            exact = np.argsort(-(asked @ matrix[:size].T), axis=1)[:, :NEAREST]
            found = {"grouped": [], "hnswlib": []}
            for query, want in zip(asked, exact):
                want = set(want.tolist())
                for kind, searched in (("grouped", grouped), ("hnswlib", index)):
                    got = {label for label, _ in nearest_records(searched, query.tolist(), NEAREST)}
                    found[kind].append(len(got & want) / NEAREST)
            cold = {"grouped": [], "hnswlib": []}
            for rep in range(args.reps + 1):
                query = json.dumps(asked[(rep * 37) % len(asked)].tolist())
                for kind in cold:
                    run = subprocess.run(
                        [sys.executable, "-c", COLD, str(path), str(matrix.shape[1]), str(size), kind],
                        input=query, capture_output=True, text=True, check=True, env=common.bench_env(None),
                    )
                    name, seconds, _ = json.loads(run.stdout)
                    assert name == ("GroupedVectors" if kind == "grouped" else "VectorIndex"), name
                    if rep:  # the first warms the page cache
                        cold[kind].append(seconds)
            updates = {"grouped": update_times(Path(folder), matrix, size, True), "hnswlib": update_times(Path(folder), matrix, size, False)}
            result = {
                "vectors": size,
                "update": {kind: common.summarize(v) for kind, v in updates.items()},
                "groups": grouped.groups,
                "write_s": build_s,
                "found": {kind: {"mean": float(np.mean(v)), "p10": float(np.percentile(v, 10))} for kind, v in found.items()},
                "cold": {kind: common.summarize(v) for kind, v in cold.items()},
            }
            report.metrics[str(size)] = result
            rows.append(
                [
                    size,
                    grouped.groups,
                    f"{result['found']['grouped']['mean']:.3f} ({result['found']['grouped']['p10']:.2f})",
                    f"{result['found']['hnswlib']['mean']:.3f} ({result['found']['hnswlib']['p10']:.2f})",
                    result["cold"]["grouped"]["p50_ms"],
                    result["cold"]["hnswlib"]["p50_ms"],
                    result["update"]["grouped"]["p50_ms"],
                    result["update"]["hnswlib"]["p50_ms"],
                ]
            )
    common.print_table(
        ["vectors", "groups", "grouped: found of 200 (p10)", "hnswlib: found (p10)", "cold grouped p50 ms", "cold hnswlib p50 ms", "update grouped ms", "update hnswlib ms"],
        rows,
        title=f"{len(queries)} queries; cold: {args.reps} processes each, time inside the process",
        digits=1,
    )
    if args.quality:
        quality(report)
    print(f"\nmetrics written to {report.write_json()}")
    return 0


def update_times(folder: Path, matrix, size: int, grouped: bool) -> list[float]:
    """Seconds of 8 updates that add one vector each to an index of ``size`` (the next ones of
    ``matrix``), with the grouped copy or with hnswlib's file alone."""
    from ov.index import vector_groups
    from ov.index.vectors import VectorIndex, exact_path, groups_path

    def remove_generation(path: Path) -> None:  # the file and its copies (ov sweeps them by name)
        for name in (path, exact_path(path), groups_path(path)):
            name.unlink(missing_ok=True)

    limit = vector_groups.GROUPED_COMPONENTS
    vector_groups.GROUPED_COMPONENTS = limit if grouped else 0
    try:
        path = folder / f"update-{grouped}-0.hnsw"
        index = VectorIndex.create(matrix.shape[1], size)
        index.add(matrix[:size], list(range(size)))
        index.save(path)
        times = []
        for step in range(8):
            label = (size + step) % len(matrix)
            nxt = folder / f"update-{grouped}-{step + 1}.hnsw"

            def update(path=path, nxt=nxt, label=label, live=size + step):
                index = VectorIndex.load(path, matrix.shape[1], live, for_update=True)
                index.add(matrix[label : label + 1], [size + step])
                index.save(nxt)

            seconds, _ = common.time_call(update)
            times.append(seconds)
            remove_generation(path)
            path = nxt
        remove_generation(path)
        return times
    finally:
        vector_groups.GROUPED_COMPONENTS = limit


def quality(report) -> None:
    """scifact.py and locomo.py with the built-in model, every index searched through its grouped copy."""
    import locomo
    import scifact

    from ov.index import vector_groups, vectors

    vectors.EXACT_COMPONENTS = 0  # no flat copy: the grouped one is written for every index
    vectors.load_for_search = lambda path, dimension, live, static=False: vector_groups.GroupedVectors.load(vectors.groups_path(path), dimension, live, static)
    print("\nSciFact, the built-in model, searched through grouped copies:")
    scifact.main([str(SCIFACT), "--embedder", "builtin", "--no-baseline"])
    print("\nLoCoMo, the built-in model, searched through grouped copies:")
    locomo.main([str(LOCOMO), "--embedder", "builtin", "--no-baseline"])


if __name__ == "__main__":
    raise SystemExit(main())
