"""Retrieval speed: ``find`` latency (warm in-process and cold process), incremental index update,
full rebuild throughput, and a scale curve over synthetic Markdown stores.

For each size of ``--sizes`` (default 1,000 / 10,000 / 100,000 files) a store is
seeded in one transaction (one commit) with deterministic synthetic Markdown
files (a seeded Zipf-distributed vocabulary of pseudo-words; a title, 2-4
sections with headings, 1-2 paragraphs each; about 1 KB a file) spread 100 per
directory under ``viking://resources/corpus``. Then, per size:

1. **full rebuild**: ``Indices(store).rebuild()``, records/s and files/s, and
   the index size on disk (``state/{account}/index``);
2. **find, in-process, warm**: one ``Indices`` kept open, ``--queries`` (50)
   seeded 2-4 word queries, each asked ``--reps`` (5) times after one untimed
   round, ``FindOptions(limit=10)``: p50 / p95;
   Then the phrase bonus's cost (``retrieval.phrase_weight``): the same queries, warm, with the
   weight 0 and as configured (1.0), interleaved query by query on the same store and index, the
   order alternating: p50 of each;
3. **incremental update**: ``--update-reps`` (20) times, ``store.write`` of one
   file (new files and replacements alternating; not timed), then
   ``Indices(store).open()`` timed on a fresh ``Indices`` (what the next
   command pays) and on the long-lived one; beside it the same open with nothing
   changed (the floor);
4. **find, cold process** (at the size closest to 10,000 only):
   ``ov find QUERY --limit 10`` through the ``ov`` console script with
   ``OV_HOME`` set, ``--cold-reps`` (10) runs after 2 untimed warm-ups,
   round-robin with ``ov --help`` (the baseline) and ``python -c pass``; p50s
   and the ratio to ``ov --help``. Child processes load ov from a private
   ``.pyc`` cache like an installed package (``--bytecode``).

Targets (issue): find p50 <= 20 ms in-process on 10,000 files; cold process
<= 300 ms; incremental update <= 50 ms.

    .venv/bin/python bench/retrieval_speed.py [--sizes 1000,10000,100000] [--quick] [--queries 50] [--reps 5]
        [--update-reps 20] [--cold-reps 10] [--embedder none|hash|model2vec:PATH]
"""

from __future__ import annotations

import itertools
import os
import random
import sys
import time
from pathlib import Path

import common

TARGET_FIND_MS = 20.0
TARGET_COLD_MS = 300.0
TARGET_UPDATE_MS = 50.0
CORPUS_ROOT = "viking://resources/corpus"
PER_DIR = 100
VOCABULARY = 20_000
SYLLABLES = "ba be bi bo bu da de di do du fa fe fi fo ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zi zo".split()


class Corpus:
    """Deterministic synthetic Markdown: a Zipf-distributed vocabulary of pseudo-words."""

    def __init__(self, seed: int = 11, size: int = VOCABULARY) -> None:
        rng = random.Random(seed)
        words: list[str] = []
        seen: set[str] = set()
        while len(words) < size:
            word = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 2, 3, 3, 3, 4))))
            if word not in seen:
                seen.add(word)
                words.append(word)
        self.words = words
        self.cum = list(itertools.accumulate(1.0 / (rank + 1) ** 1.05 for rank in range(size)))

    def sample(self, rng: random.Random, k: int) -> list[str]:
        return rng.choices(self.words, cum_weights=self.cum, k=k)

    def document(self, index: int, seed: int = 0) -> bytes:
        rng = random.Random(index * 7919 + seed)
        title = " ".join(self.sample(rng, 3)).capitalize()
        lines = [f"# {title}", ""]
        for s in range(rng.randint(2, 4)):
            lines += [f"## {' '.join(self.sample(rng, 2)).capitalize()}", ""]
            for _ in range(rng.randint(1, 2)):
                lines += [" ".join(self.sample(rng, rng.randint(15, 35))).capitalize() + ".", ""]
        return "\n".join(lines).encode()

    def queries(self, count: int, seed: int = 5) -> list[str]:
        """2-4 words each, drawn from the mid-frequency band (ranks 50..5,000), like a search someone types."""
        rng = random.Random(seed)
        band = self.words[50:5000]
        return [" ".join(rng.sample(band, rng.randint(2, 4))) for _ in range(count)]


def file_uri(index: int) -> str:
    return f"{CORPUS_ROOT}/d{index // PER_DIR:05d}/f{index:07d}.md"


def seed(store, corpus: Corpus, count: int) -> tuple[float, int]:
    """Write ``count`` files in one transaction; (seconds, bytes)."""
    start = time.perf_counter()
    total = 0
    with store.transaction() as tx:
        for i in range(count):
            data = corpus.document(i)
            total += len(data)
            tx.put(store.uri(file_uri(i)), data)
        tx.commit("bench-seed", [store.uri(CORPUS_ROOT)])
    return time.perf_counter() - start, total


def dir_bytes(path: Path) -> int:
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def bench_find(store, indices, queries: list[str], reps: int) -> tuple[list[float], float]:
    from ov.retrieval.find import FindOptions, find

    options = FindOptions(limit=10)
    hits = 0
    for q in queries:  # warm-up round, untimed
        hits += len(find(store, q, options, indices=indices).hits)
    samples = []
    for _ in range(reps):
        for q in queries:
            elapsed, _ = common.time_call(lambda: find(store, q, options, indices=indices))
            samples.append(elapsed)
    return samples, hits / max(len(queries), 1)


def bench_phrase(store, indices, queries: list[str], reps: int) -> dict[str, list[float]]:
    """Warm find with ``retrieval.phrase_weight`` 0 (``off``) and as configured (``on``), the two
    interleaved query by query, the order alternating, so that load and caches weigh on both alike."""
    from ov.retrieval.find import FindOptions, find

    options = FindOptions(limit=10)
    configured = store.config
    settings = {"off": common.config_with(configured, [("retrieval.phrase_weight", "0")]), "on": configured}
    samples: dict[str, list[float]] = {"off": [], "on": []}
    try:
        for rep in range(reps + 1):  # the first round untimed
            for i, q in enumerate(queries):
                for which in ("off", "on") if (rep + i) % 2 == 0 else ("on", "off"):
                    store.config = settings[which]
                    elapsed, _ = common.time_call(lambda q=q: find(store, q, options, indices=indices))
                    if rep:
                        samples[which].append(elapsed)
    finally:
        store.config = configured
    return samples


def bench_update(store, corpus: Corpus, count: int, reps: int) -> dict[str, list[float]]:
    from ov.index.sync import Indices

    long_lived = Indices(store)
    long_lived.open()
    samples: dict[str, list[float]] = {"fresh": [], "long_lived": [], "unchanged_fresh": []}
    for rep in range(reps):
        for which in ("fresh", "long_lived"):
            n = rep * 2 + (which == "long_lived")
            if n % 2 == 0:
                uri, data = file_uri(count + 10_000_000 + n), corpus.document(count + n, seed=1)  # a new file
            else:
                uri, data = file_uri(n % count), corpus.document(n % count, seed=rep + 2)  # a replacement
            store.write(store.uri(uri), data)
            if which == "fresh":
                elapsed, opened = common.time_call(lambda: Indices(store).open())
                long_lived.open()  # keep the long-lived one in step, untimed
            else:
                elapsed, opened = common.time_call(long_lived.open)
            if not opened.actions or not opened.actions[0].startswith("updated"):
                raise RuntimeError(f"expected an incremental update, got {opened.actions}")
            samples[which].append(elapsed)
        elapsed, _ = common.time_call(lambda: Indices(store).open())
        samples["unchanged_fresh"].append(elapsed)
    return samples


def bench_cold(home: Path, queries: list[str], reps: int, warmup: int, bytecode: str) -> tuple[dict[str, list[float]], str]:
    env = common.bench_env(home, bytecode)
    ov = common.ov_command()
    probe = common.run_timed([*ov, "find", "--help"], env, check=False)
    if probe.proc.returncode == 0:
        label = "ov find QUERY --limit 10"

        def command(q: str) -> list[str]:
            return [*ov, "find", q, "--limit", "10"]
    else:  # no `find` command in this ov: the same work through the library in a fresh interpreter
        label = "python -c find(...) (no `ov find` command)"
        code = (
            "import sys; from ov.home import Home; from ov.config import load_config; from ov.identity import Identity; "
            "from ov.store.store import Store; from ov.retrieval.find import find, FindOptions; h = Home.from_env(); "
            "s = Store(h, Identity(), load_config(h).config); print(len(find(s, sys.argv[1], FindOptions(limit=10)).hits))"
        )

        def command(q: str) -> list[str]:
            return [sys.executable, "-c", code, q]

    order = ["python -c pass", "ov --help", label]
    samples: dict[str, list[float]] = {k: [] for k in order}
    for rep in range(warmup + reps):
        for which in order if rep % 2 == 0 else order[::-1]:
            if which == "python -c pass":
                run = common.run_timed([sys.executable, "-c", "pass"], env)
            elif which == "ov --help":
                run = common.run_timed([*ov, "--help"], env)
            else:
                run = common.run_timed(command(queries[rep % len(queries)]), env)
            if rep >= warmup:
                samples[which].append(run.wall)
    return samples, label


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    common.add_bytecode_option(parser)
    parser.add_argument("--sizes", default="1000,10000,100000", help="store sizes in files (default 1000,10000,100000)")
    parser.add_argument("--quick", action="store_true", help="sizes 1000 and 2000, few repetitions")
    parser.add_argument("--queries", type=int, default=50, help="distinct queries (default 50)")
    parser.add_argument("--reps", type=int, default=5, help="timed rounds over the queries (default 5)")
    parser.add_argument("--update-reps", type=int, default=20, help="incremental updates per size and kind (default 20)")
    parser.add_argument("--cold-reps", type=int, default=10, help="cold processes per command (default 10)")
    parser.add_argument("--cold-size", type=int, default=10_000, help="store size for the cold-process runs: the closest of --sizes (default 10000)")
    parser.add_argument("--embedder", default="none", help="none (default), hash, model2vec:PATH, sentence-transformers:PATH")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override (repeatable)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.queries, args.reps, args.update_reps, args.cold_reps = "1000,2000", 20, 2, 5, 3
    sizes = [int(s) for s in args.sizes.split(",")]
    cold_size = min(sizes, key=lambda s: abs(s - args.cold_size))

    common.preload_retrieval()
    from ov.config import Config
    from ov.index.sync import Indices

    common.header("retrieval_speed: find latency, incremental update, rebuild, scale")
    assignments = common.embedder_assignments(args.embedder) + [common.parse_assignment(s) for s in args.sets]
    config = common.config_with(Config(), assignments)
    report = common.Report("retrieval_speed" + ("-quick" if args.quick else ""), params=vars(args) | {"sizes": sizes, "cold_size": cold_size})
    report.params.update(config_overrides=assignments, git=common.git_state())
    if args.embedder != "none":
        # The cold process reads config.yaml: write the same embedding settings there.
        report.notes.append("the cold process uses the same embedder through $OV_HOME/config.yaml")
    corpus = Corpus()
    queries = corpus.queries(args.queries)
    rows, scale = [], []
    for size in sizes:
        with common.temp_home(f"ov-bench-speed{size}", keep=args.keep) as home:
            store = common.open_store_as(home, None, config)
            if args.embedder != "none":
                (home / "config.yaml").write_text("version: 1\nembedding:\n" + "".join(f"  {k.split('.')[1]}: {v}\n" for k, v in common.embedder_assignments(args.embedder)))
            seed_s, size_bytes = seed(store, corpus, size)
            print(f"{size} files, {size_bytes / 1e6:.1f} MB seeded in one commit: {seed_s:.1f} s")
            indices = Indices(store)
            rebuild_s, opened = common.time_call(lambda: indices.rebuild("benchmark"))
            records = opened.meta.records
            index_bytes = dir_bytes(store.state / "index")
            print(f"  rebuild: {rebuild_s:.1f} s, {records} records ({records / rebuild_s:.0f} records/s, {size / rebuild_s:.0f} files/s), index {index_bytes / 1e6:.1f} MB")
            samples, avg_hits = bench_find(store, indices, queries, args.reps)
            find_stats = common.summarize(samples)
            find_stats["p95_ms"] = common.percentile([s * 1000 for s in samples], 95)
            print(f"  find warm: p50 {find_stats['p50_ms']:.1f} ms, p95 {find_stats['p95_ms']:.1f} ms ({avg_hits:.1f} hits a query)")
            phrase = {k: common.summarize(v) for k, v in bench_phrase(store, indices, queries, args.reps).items()}
            weight = store.config.retrieval.phrase_weight
            print(f"  phrase bonus: find p50 {phrase['off']['p50_ms']:.2f} ms with phrase_weight 0, {phrase['on']['p50_ms']:.2f} ms with {weight} (interleaved)")
            updates = bench_update(store, corpus, size, args.update_reps)
            upd = {k: common.summarize(v) for k, v in updates.items()}
            print(f"  incremental open after one write: fresh p50 {upd['fresh']['p50_ms']:.1f} ms, long-lived p50 {upd['long_lived']['p50_ms']:.1f} ms, unchanged fresh p50 {upd['unchanged_fresh']['p50_ms']:.1f} ms")
            entry = {
                "files": size,
                "bytes": size_bytes,
                "seed_s": seed_s,
                "rebuild_s": rebuild_s,
                "records": records,
                "records_per_s": records / rebuild_s,
                "files_per_s": size / rebuild_s,
                "index_bytes": index_bytes,
                "index_bytes_per_file": index_bytes / size,
                "mode": opened.mode,
                "find": find_stats,
                "hits_per_query": avg_hits,
                "phrase": {"weight": weight, "off": phrase["off"], "on": phrase["on"], "cost_p50_ms": phrase["on"]["p50_ms"] - phrase["off"]["p50_ms"]},
                "update": upd,
            }
            if size == cold_size:
                cold, label = bench_cold(home, queries, args.cold_reps, 2, args.bytecode)
                cold_p50 = {k: common.percentile(v, 50) * 1000 for k, v in cold.items()}
                entry["cold"] = {"command": label, "p50_ms": cold_p50, "samples_ms": {k: [x * 1000 for x in v] for k, v in cold.items()}, "ratio_to_ov_help": common.ratio(cold_p50[label], cold_p50["ov --help"])}
                print(f"  cold: {label} p50 {cold_p50[label]:.0f} ms; ov --help {cold_p50['ov --help']:.0f} ms; python -c pass {cold_p50['python -c pass']:.0f} ms")
            scale.append(entry)
            rows.append([size, f"{size_bytes / 1e6:.1f}", f"{seed_s:.1f}", f"{rebuild_s:.1f}", f"{records / rebuild_s:.0f}", f"{size / rebuild_s:.0f}", f"{index_bytes / 1e6:.1f}", find_stats["p50_ms"], find_stats["p95_ms"], upd["fresh"]["p50_ms"], upd["long_lived"]["p50_ms"], upd["unchanged_fresh"]["p50_ms"]])
    report.metrics["scale"] = scale
    common.print_table(
        ["files", "MB", "seed s", "rebuild s", "records/s", "files/s", "index MB", "find p50 ms", "p95 ms", "update p50 ms", "(long-lived)", "(no change)"],
        rows,
        title=f"Scale ({args.queries} queries x {args.reps}, limit 10; {scale[0]['mode']})",
    )
    cold_entry = next((e for e in scale if "cold" in e), None)
    if cold_entry:
        c = cold_entry["cold"]
        common.print_table(
            ["process", "p50 ms", "x ov --help"],
            [[k, v, common.ratio(v, c["p50_ms"]["ov --help"])] for k, v in c["p50_ms"].items()],
            title=f"Cold process, {cold_entry['files']} files, {args.cold_reps} runs each",
            digits=1,
        )
    at10k = min(scale, key=lambda e: abs(e["files"] - 10_000))
    report.targets.append(common.Target(f"find p50 in-process, {at10k['files']} files", at10k["find"]["p50_ms"], TARGET_FIND_MS))
    if cold_entry:
        report.targets.append(common.Target(f"cold `ov find`, {cold_entry['files']} files", cold_entry["cold"]["p50_ms"][cold_entry["cold"]["command"]], TARGET_COLD_MS))
    report.targets.append(common.Target(f"incremental update p50, {at10k['files']} files", at10k["update"]["fresh"]["p50_ms"], TARGET_UPDATE_MS))
    if args.quick:
        report.notes.append("--quick: small stores and few repetitions")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
