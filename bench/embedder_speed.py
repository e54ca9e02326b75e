"""What the default tier's embedder costs: cold ``ov find``, a warm query, indexing, install size.

Two ``OV_HOME``s hold the same ``--docs`` Markdown documents (300 by default; SciFact
abstracts when the bench data is there, else synthetic text), one with the default
configuration (the built-in model) and one with ``embedding.provider: none``; both
indices are built before timing. Up to 4,096 vectors a search reads the index's flat
copy without numpy; past that its grouped copy, up to 131,072 (``--docs 8000``, ``12000``,
``30000``, ``53000``; past the corpus, abstracts come round again); past that, hnswlib. Then:

1. **cold ``ov find``**: fresh ``ov find QUERY --limit 10`` processes on each home,
   round-robin with ``python -c pass``, ``--cold-reps`` runs after 2 untimed ones;
   p50s and the ratio builtin / lexical (target <= 1.15);
2. **warm query**: one process, ``find`` on an open index with vectors and with
   ``lexical_only``, ``--reps`` each over the queries, alternating; the p50
   difference is what the vectors add (target <= 5 ms);
3. **indexing**: ``BuiltinEmbedder.embed`` over ``--records`` abstracts (texts/s,
   model load excluded), and a full ``ov reindex`` of 2,000 records with and without
   vectors (records/s; target >= 500);
4. **install size**: the model's files in the wheel (target <= 40 MB more).

    .venv/bin/python bench/embedder_speed.py [--docs 300] [--cold-reps 20] [--reps 5] [--records 5000]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import common

DATA = common.BENCH_DATA / "scifact" / "corpus.jsonl"
QUERIES = ["vitamin d deficiency", "how are genes regulated in cancer cells", "antibiotic resistance", "heart failure treatment", "sleep and memory"]


def texts(limit: int) -> list[str]:
    if DATA.is_file():
        docs = []
        with DATA.open(encoding="utf-8") as handle:
            for line in handle:
                docs.append(json.loads(line))
                if len(docs) >= limit:
                    break
        # Past the corpus's 5,183 abstracts (for sizes past the flat copy's limit), they come
        # round again as numbered copies: the timing needs as many vectors, not new meanings.
        out = []
        for n in range(limit):
            doc, copy = docs[n % len(docs)], n // len(docs)
            out.append(f"# {doc.get('title', '')}{f' (copy {copy})' if copy else ''}\n\n{doc.get('text', '')}\n")
        return out
    return [f"# Note {i}\n\nA synthetic note about topic {i % 37} and item {i}.\n" for i in range(limit)]


def store_of(home: Path):
    """The default account's store with the home's own config file, as the CLI opens it."""
    from ov.config import load_config
    from ov.home import Home

    return common.open_store_as(home, None, load_config(Home(home)).config)


def seed(home: Path, docs: list[str], provider: str | None) -> None:
    from ov.config import set_value
    from ov.home import Home
    from ov.index.sync import Indices

    if provider is not None:
        set_value(Home(home), "embedding.provider", provider)
    store = store_of(home)
    root = store.uri("viking://resources/docs")
    with store.transaction() as tx:
        for i, doc in enumerate(docs):
            tx.put(store.uri(f"viking://resources/docs/d{i:05}.md"), doc.encode())
        tx.commit("bench-seed", [root])
    Indices(store).open()


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=300, help="documents in the two stores the finds run on")
    parser.add_argument("--cold-reps", type=int, default=20)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--records", type=int, default=5000)
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header("embedder speed: the built-in model against lexical")
    report = common.Report("embedder_speed", params=vars(args) | {"git": common.git_state()})
    docs = texts(args.docs)
    with common.temp_homes(2, "ov-bench-embspeed", keep=args.keep) as (vec_home, lex_home):
        seed(vec_home, docs, None)
        seed(lex_home, docs, "none")

        # 1. cold ov find, round-robin
        series: dict[str, list[float]] = {"python -c pass": [], "ov find (lexical)": [], "ov find (builtin)": []}
        envs = {"ov find (lexical)": common.bench_env(lex_home, args.bytecode), "ov find (builtin)": common.bench_env(vec_home, args.bytecode)}
        for n in range(args.cold_reps + 2):
            query = QUERIES[n % len(QUERIES)]
            for name in series:
                if name == "python -c pass":
                    run = common.run_timed([sys.executable, "-c", "pass"], common.bench_env(None, args.bytecode))
                else:
                    run = common.run_timed([*common.ov_command(), "find", query, "--limit", "10"], envs[name])
                if n >= 2:
                    series[name].append(run.wall)
        cold = {name: common.summarize(values) for name, values in series.items()}
        ratio = cold["ov find (builtin)"]["p50_ms"] / cold["ov find (lexical)"]["p50_ms"]
        report.metrics["cold"] = {**cold, "ratio_builtin_lexical": ratio}
        common.print_table(["process", "p50 ms", "p90 ms", "max ms"], [[k, v["p50_ms"], v["p90_ms"], v["max_ms"]] for k, v in cold.items()], title=f"Cold `ov find`, {args.cold_reps} runs each, round-robin")
        print(f"builtin / lexical: {ratio:.2f}x")

        # 2. warm query: vectors against lexical_only on the same open index
        from ov.index.sync import Indices
        from ov.retrieval.find import FindOptions, find

        store = store_of(vec_home)
        indices = Indices(store)
        indices.open()
        find(store, QUERIES[0], FindOptions(limit=10), indices=indices)  # loads the model
        warm = {"hybrid": [], "lexical_only": []}
        for _ in range(args.reps):
            for query in QUERIES:
                for name, lexical in (("hybrid", False), ("lexical_only", True)):
                    elapsed, _ = common.time_call(lambda: find(store, query, FindOptions(limit=10, lexical_only=lexical), indices=indices))
                    warm[name].append(elapsed)
        warm_s = {k: common.summarize(v) for k, v in warm.items()}
        added = warm_s["hybrid"]["p50_ms"] - warm_s["lexical_only"]["p50_ms"]
        report.metrics["warm"] = {**warm_s, "added_ms": added}
        common.print_table(["find, warm", "p50 ms", "p90 ms"], [[k, v["p50_ms"], v["p90_ms"]] for k, v in warm_s.items()], title=f"Warm find, {len(warm['hybrid'])} queries each")
        print(f"vectors add {added:.2f} ms at p50")

    # 3. indexing
    from ov.index.embedders.builtin import MODEL_DIR, MODEL_FILES, BuiltinEmbedder

    records = texts(args.records)
    embedder = BuiltinEmbedder(64)
    load_s, _ = common.time_call(lambda: embedder.embed(["load"]))
    embed_s, _ = common.time_call(lambda: embedder.embed(records))
    rate = len(records) / embed_s
    rebuild = {}
    for provider in ("none", None):
        with common.temp_home("ov-bench-embspeed-rebuild") as home:
            seed(home, records[:2000], provider)
            store = store_of(home)
            times = []
            for _ in range(3):
                elapsed, opened = common.time_call(lambda: Indices(store).rebuild())
                times.append(elapsed)
            count = Indices(store).open().meta.records
            rebuild["lexical" if provider == "none" else "builtin"] = {"records": count, "p50_s": statistics.median(times), "records_per_s": count / statistics.median(times)}
    report.metrics["indexing"] = {"model_load_s": load_s, "embed_texts_per_s": rate, "texts": len(records), "rebuild": rebuild}
    common.print_table(
        ["indexing", "records", "s (p50 of 3)", "records/s"],
        [[f"ov reindex, {k}", v["records"], v["p50_s"], v["records_per_s"]] for k, v in rebuild.items()] + [["BuiltinEmbedder.embed alone", len(records), embed_s, rate]],
        title=f"Indexing (model load {load_s * 1000:.0f} ms, not counted)",
    )

    # 4. install size
    size = sum((MODEL_DIR / name).stat().st_size for name in (*MODEL_FILES, "LICENSE", "PROVENANCE.md")) / 1e6
    report.metrics["install_mb"] = size
    print(f"install: the model's files add {size:.1f} MB (tokenizers and safetensors were already dependencies of model2vec)")

    report.targets.append(common.Target("cold ov find, builtin / lexical", ratio, 1.15, unit="x"))
    report.targets.append(common.Target("warm query: added by vectors", added, 5.0, unit="ms"))
    report.targets.append(common.Target("indexing with the built-in model", rebuild["builtin"]["records_per_s"], 500, unit="records/s", higher_is_better=True))
    report.targets.append(common.Target("install: the model's files", size, 40, unit="MB"))
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
