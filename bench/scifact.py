"""SciFact resource retrieval: the BEIR corpus through the real ``add_resource`` path, then ``find``.

Every abstract of ``corpus.jsonl`` is written as ``{_id}.md`` (``# {title}\\n\\n{text}\\n``)
into one temporary folder, and that folder goes into a throw-away ``OV_HOME``
with ONE ``ov.ingest.resource.add_resource`` call (parse, split, extractive
L0/L1, one commit); the first ``Indices.open()`` then builds the index (with
an embedder: the vectors too). The queries of ``qrels/train.tsv`` (809) are
asked with ``find(store, text, FindOptions(types=("resource",), limit=100))``.
Hits are mapped back to corpus ids through the ingest manifest
(``.sources.json``: stored path -> source file), so renamed or split
documents still map; directory hits (L0/L1) map to nothing and just hold
their place. Metrics: nDCG@10 (graded by the qrels score, log2 discount) and
recall@100, lexical-only and, with an embedder, hybrid on the same store.

A plain-tantivy BM25 (``en_stem``, title + text, one document per abstract) is
computed in the same run next to the reference figure (0.702) of
``../shared/bench-data/README.md``.

``--embedder`` chooses the vectors: ``hash`` (default; ov's built-in hashing
embedder), ``none`` (lexical only), ``model2vec:PATH``,
``sentence-transformers:PATH`` (skipped with a note when the package is not
installed). ``--set SECTION.KEY=VALUE`` overrides any other config value;
``--grid retrieval.KEY=V1,V2,...`` (repeatable) tries query-time values on the
same store (no second ingest or embedding pass).

    .venv/bin/python bench/scifact.py ../shared/bench-data/scifact [--quick] [--embedder hash|none|model2vec:PATH|sentence-transformers:PATH]
        [--set retrieval.vector_weight=0.5 ...] [--grid retrieval.vector_weight=0.3,0.5,1.0 ...]
"""

from __future__ import annotations

import csv
import importlib.util
import itertools
import json
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath

import common

REFERENCE_NDCG10 = 0.702
LIMIT = 100
KEPT_HITS = 20
# Keys that change only the fusion with the vectors: a lexical-only ranking ignores them.
VECTOR_ONLY_KEYS = ("vector_weight", "memory_vector_weight", "session_vector_weight", "fusion")


def load(data: Path) -> tuple[dict[str, dict], dict[str, str], dict[str, dict[str, float]]]:
    corpus = {}
    with (data / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[str(doc["_id"])] = doc
    queries = {}
    with (data / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            q = json.loads(line)
            queries[str(q["_id"])] = q["text"]
    qrels: dict[str, dict[str, float]] = {}
    with (data / "qrels" / "train.tsv").open(encoding="utf-8") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader, None)  # header
        for row in reader:
            if len(row) >= 3 and row[0] in queries:
                qrels.setdefault(row[0], {})[row[1]] = float(row[2])
    return corpus, queries, qrels


def write_corpus(corpus: dict[str, dict], root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for doc_id, doc in corpus.items():
        (root / f"{doc_id}.md").write_text(f"# {doc.get('title') or doc_id}\n\n{doc.get('text', '')}\n", encoding="utf-8")


class UriMap:
    """Store URI of a hit -> corpus id, from the ingest manifest (with a file-name fallback)."""

    def __init__(self, store, root_uri: str) -> None:
        from ov.ingest.resource import MANIFEST

        self.prefix = root_uri.rstrip("/") + "/"
        manifest = json.loads((store.path(store.uri(root_uri)) / MANIFEST).read_text(encoding="utf-8"))
        self.by_rel = {rel: PurePosixPath(entry["uri"]).stem for rel, entry in manifest.get("files", {}).items()}
        self.fallbacks = 0

    def __call__(self, uri: str) -> str | None:
        if not uri.startswith(self.prefix):
            return None
        rel = uri[len(self.prefix):]
        found = self.by_rel.get(rel)
        if found is None and rel:
            self.fallbacks += 1
            found = re.sub(r"(_\d+)?\.md$", "", rel.split("/", 1)[0])
        return found


class Bm25:
    """Plain tantivy with ``en_stem``: one document per abstract, title and text in one field."""

    def __init__(self, corpus: dict[str, dict]) -> None:
        import tantivy

        builder = tantivy.SchemaBuilder()
        builder.add_text_field("text", tokenizer_name="en_stem")
        builder.add_text_field("id", stored=True, tokenizer_name="raw")
        self.index = tantivy.Index(builder.build())
        writer = self.index.writer(100_000_000, 1)
        for doc_id, doc in corpus.items():
            writer.add_document(tantivy.Document(id=doc_id, text=f"{doc.get('title', '')}\n{doc.get('text', '')}"))
        writer.commit()
        writer.wait_merging_threads()
        self.index.reload()
        self.searcher = self.index.searcher()

    def search(self, text: str, limit: int) -> list[tuple[str, float]]:
        cleaned = " ".join(re.findall(r"[^\W_]+", text.lower()))
        if not cleaned:
            return []
        query = self.index.parse_query(cleaned, ["text"])
        return [(self.searcher.doc(a)["id"][0], float(s)) for s, a in self.searcher.search(query, limit).hits]


def held_back(qids: list[str], every: int) -> set[str]:
    """Every ``every``-th query (in id order) is held back from tuning: figures are also given on the rest and on these."""
    return {q for n, q in enumerate(qids) if every and n % every == every - 1}


def split_summary(per: dict[str, dict], held: set[str]) -> dict:
    """nDCG@10 on the tuning queries and on the held-back ones."""
    out = {}
    for name, keep in (("tune", lambda q: q not in held), ("held", lambda q: q in held)):
        values = [p["ndcg@10"] for q, p in per.items() if keep(q)]
        out[name] = sum(values) / len(values) if values else float("nan")
    return out


def evaluate(rankings: dict[str, list[str]], qrels: dict[str, dict[str, float]]) -> tuple[dict, dict[str, dict]]:
    per = {}
    for qid, grades in qrels.items():
        ranked = list(dict.fromkeys(r for r in rankings.get(qid, []) if r))
        relevant = {d for d, g in grades.items() if g > 0}
        per[qid] = {
            "ndcg@10": common.ndcg_at(ranked, grades, 10),
            "recall@100": common.recall_at(ranked, relevant, 100),
            "first_relevant_rank": common.first_rank(ranked, relevant),
        }
    n = len(per) or 1
    summary = {
        "nDCG@10": sum(p["ndcg@10"] for p in per.values()) / n,
        "R@100": sum(p["recall@100"] for p in per.values()) / n,
        "MRR": sum(1 / p["first_relevant_rank"] for p in per.values() if p["first_relevant_rank"]) / n,
        "queries": len(per),
    }
    return summary, per


def run_find(store, indices, queries: dict[str, str], qids: list[str], mapper: UriMap, lexical_only: bool) -> tuple[dict, dict, list[float], str]:
    from ov.retrieval.find import FindOptions, find

    rankings, returned, seconds, mode = {}, {}, [], ""
    options = FindOptions(types=("resource",), limit=LIMIT, lexical_only=lexical_only)
    for qid in qids:
        elapsed, result = common.time_call(lambda: find(store, queries[qid], options, indices=indices))
        seconds.append(elapsed)
        mode = result.mode
        rankings[qid] = [mapper(h.uri) for h in result.hits]
        returned[qid] = [{"id": mapper(h.uri), "uri": h.uri, "level": h.level, "score": round(h.score, 4)} for h in result.hits[:KEPT_HITS]]
    return rankings, returned, seconds, mode


def grid_configs(base, grid: list[str]) -> list[tuple[dict, object]]:
    axes = []
    for item in grid:
        key, values = common.parse_assignment(item)
        if not key.startswith("retrieval.") or key == "retrieval.language":
            raise SystemExit(f"--grid takes query-time retrieval.* keys only, not {key}")
        axes.append([(key, v) for v in values.split(",") if v])
    return [(dict(combo), common.config_with(base, list(combo))) for combo in itertools.product(*axes)]


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="the scifact folder (corpus.jsonl, queries.jsonl, qrels/train.tsv)")
    parser.add_argument("--quick", action="store_true", help="100 queries over their relevant abstracts plus the first 1,000")
    parser.add_argument("--embedder", default="hash", help="hash (default), none, model2vec:PATH, sentence-transformers:PATH")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override (repeatable)")
    parser.add_argument("--grid", action="append", default=[], metavar="retrieval.KEY=V1,V2", help="query-time retrieval.* values to try on the same store (repeatable)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the in-run BM25")
    parser.add_argument("--holdout-every", type=int, default=5, help="hold back every Nth query from tuning and report both parts (default 5; 0 for none)")
    args = parser.parse_args(argv)

    common.preload_retrieval()
    from ov.config import Config
    from ov.index.sync import Indices
    from ov.ingest.resource import add_resource

    common.header("scifact: add_resource of the corpus, then find (nDCG@10, R@100)")
    corpus, queries, qrels = load(args.data)
    qids = sorted(qrels, key=lambda q: int(q) if q.isdigit() else q)
    if args.quick:
        qids = qids[:100]
        keep = {d for q in qids for d in qrels[q]} | set(list(corpus)[:1000])
        corpus = {d: doc for d, doc in corpus.items() if d in keep}
        qrels = {q: qrels[q] for q in qids}
    held = held_back(qids, args.holdout_every)
    notes = []
    embedder = args.embedder
    if embedder.startswith("sentence-transformers") and importlib.util.find_spec("sentence_transformers") is None:
        notes.append(f"--embedder {embedder}: the sentence-transformers package is not installed; hybrid skipped")
        embedder = "none"
    assignments = common.embedder_assignments(embedder) + [common.parse_assignment(s) for s in args.sets]
    config = common.config_with(Config(), assignments)
    name = "scifact" + ("-quick" if args.quick else "") + ("" if args.embedder in ("hash", "none") else "-" + args.embedder.split(":")[0])
    report = common.Report(name, params={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()})
    report.params.update(config_overrides=assignments, git=common.git_state(), documents=len(corpus), queries=len(qids), retrieval_config=dict(config.retrieval.__dict__))

    work = Path(tempfile.mkdtemp(prefix="ov-bench-scifact-src-"))
    try:
        source = work / "scifact"
        write_corpus(corpus, source)
        with common.temp_home("ov-bench-scifact", keep=args.keep) as home:
            store = common.open_store_as(home, None, config)
            ingest_s, added = common.time_call(lambda: add_resource(store, str(source)))
            indices = Indices(store)
            index_s, opened = common.time_call(indices.open)
            mapper = UriMap(store, added.root)
            print(
                f"add_resource: {len(corpus)} abstracts -> {len(added.added)} files, {added.summaries} summaries in {ingest_s:.1f} s "
                f"({len(corpus) / ingest_s:.0f} files/s); index {index_s:.1f} s, {opened.meta.records} records, "
                f"{opened.meta.vectors} vectors, mode {opened.mode} ({opened.embedding.get('reason', '')})"
            )
            report.metrics["build"] = {
                "documents": len(corpus),
                "files_added": len(added.added),
                "summaries": added.summaries,
                "skipped": len(added.skipped),
                "ingest_s": ingest_s,
                "index_s": index_s,
                "records": opened.meta.records,
                "vectors": opened.meta.vectors,
                "embedding": opened.embedding,
            }
            modes = [("lexical", True)]
            if opened.mode == "hybrid":
                modes.append(("hybrid", False))
            elif embedder != "none":
                notes.append(f"no vectors ({opened.embedding.get('reason')}); hybrid not run")
            rows = []
            for label, lexical_only in modes:
                rankings, returned, seconds, mode = run_find(store, indices, queries, qids, mapper, lexical_only)
                summary, per = evaluate(rankings, qrels)
                latency = common.summarize(seconds)
                summary.update(split_summary(per, held))
                report.metrics[label] = {**summary, "find": latency, "mode": mode}
                report.metrics[f"{label}_questions"] = [
                    {"query_id": q, "query": queries[q], "gold": qrels[q], **per[q], "returned": returned[q]} for q in qids
                ]
                rows.append([f"ov find, {label}" + (f" ({opened.embedding.get('provider')})" if label == "hybrid" else ""), summary["nDCG@10"], summary["tune"], summary["held"], summary["R@100"], summary["MRR"], f"{latency['p50_ms']:.1f}"])
            if args.grid:
                grid_rows = []
                for combo, grid_config in grid_configs(config, args.grid):
                    grid_store = common.open_store_as(home, None, grid_config)
                    for label, lexical_only in modes:
                        if label == "lexical" and not any(k.split(".")[1] not in VECTOR_ONLY_KEYS for k in combo):
                            continue  # vector_weight does not change a lexical-only ranking
                        rankings, _, _, _ = run_find(grid_store, indices, queries, qids, mapper, lexical_only)
                        summary, per = evaluate(rankings, qrels)
                        summary.update(split_summary(per, held))
                        grid_rows.append({"values": combo, "mode": label, **summary})
                report.metrics["grid"] = grid_rows
            if mapper.fallbacks:
                notes.append(f"{mapper.fallbacks} hits were not files of the manifest (the directory of a document split into parts) and were mapped by name")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if not args.no_baseline:
        bm25 = Bm25(corpus)
        rankings = {q: [d for d, _ in bm25.search(queries[q], LIMIT)] for q in qids}
        summary, per = evaluate(rankings, qrels)
        summary.update(split_summary(per, held))
        report.metrics["bm25"] = summary
        rows.append(["BM25 en_stem, title + text (same run)", summary["nDCG@10"], summary["tune"], summary["held"], summary["R@100"], summary["MRR"], "-"])
    rows.append(["BM25 reference (data README)", REFERENCE_NDCG10, float("nan"), float("nan"), float("nan"), float("nan"), "-"])
    common.print_table(["system", "nDCG@10", "tune", "held", "R@100", "MRR", "p50 ms"], rows, title=f"SciFact train, {len(qids)} queries, {len(corpus)} abstracts", digits=3)
    if report.metrics.get("grid"):
        keys = list(report.metrics["grid"][0]["values"])
        table = [[*(g["values"][k] for k in keys), g["mode"], g["nDCG@10"], g["tune"], g["held"], g["R@100"], g["MRR"]] for g in report.metrics["grid"]]
        common.print_table([*keys, "mode", "nDCG@10", "tune", "held", "R@100", "MRR"], sorted(table, key=lambda r: -r[-4]), title="Grid (sorted by nDCG@10 on the tuning queries)", digits=3)
    best = max((report.metrics[m]["nDCG@10"] for m in ("lexical", "hybrid") if m in report.metrics), default=float("nan"))
    report.targets.append(common.Target("SciFact nDCG@10 (x100) vs BM25 reference", 100 * best, 100 * REFERENCE_NDCG10, unit="", higher_is_better=True))
    report.notes.extend(notes)
    if args.quick:
        report.notes.append("--quick: a subset; not comparable with the reference figure")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
