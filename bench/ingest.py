"""Ingest throughput of ``add-resource`` on the default offline configuration, in-process.

Three measurements, each a full ``add_resource`` call (collect, parse, split,
extractive L0/L1 summaries, one commit) into a fresh store:

1. **1,000 Markdown files (about 5 MB)**, synthetic and deterministic: files
   per second, median over ``--reps`` runs. Target: >= 200 files/s.
2. **Growth with size**: the same generator at 250 / 500 / 1,000 / 2,000 files;
   seconds per file at each size relative to the smallest (1.0 = linear).
3. **SciFact** (``--scifact DIR``, default ``../shared/bench-data/scifact``):
   the 5,183-abstract corpus written out as one Markdown file per document,
   then added as one resource; files per second. Skipped when the data is
   not there.

    .venv/bin/python bench/ingest.py [--reps 3] [--files 1000] [--scifact PATH]
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

import common

TARGET_FILES_PER_S = 200.0
WORDS = (
    "service deploy cache index token memory session commit branch review latency budget schema "
    "query vector lexical chunk summary overview abstract resource account user agent skill hook "
    "release rollback incident pager metric alert queue worker retry timeout backoff storage "
    "replica shard snapshot restore export import config secret rotate audit policy access"
).split()


def synthetic_corpus(root: Path, count: int, *, target_bytes: int = 5000, seed: int = 7) -> int:
    """``count`` Markdown files of about ``target_bytes`` each, in 20 folders; returns total bytes."""
    rng = random.Random(seed)
    total = 0
    for i in range(count):
        folder = root / f"area{i % 20:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"# Note {i}: {rng.choice(WORDS)} {rng.choice(WORDS)}", ""]
        section = 0
        while sum(len(x) + 1 for x in lines) < target_bytes:
            if rng.random() < 0.15:
                section += 1
                lines += ["", f"## Part {section} on {rng.choice(WORDS)}", ""]
            sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 18)))
            lines.append(sentence.capitalize() + ".")
        text = "\n".join(lines) + "\n"
        (folder / f"note{i:05d}.md").write_text(text)
        total += len(text.encode())
    return total


def scifact_corpus(data_dir: Path, root: Path) -> int:
    """Each SciFact abstract as ``{id}.md`` (title as H1); returns the number of documents."""
    count = 0
    root.mkdir(parents=True, exist_ok=True)
    with (data_dir / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            (root / f"{doc['_id']}.md").write_text(f"# {doc.get('title') or doc['_id']}\n\n{doc.get('text', '')}\n")
            count += 1
    return count


def timed_add(source: Path) -> tuple[float, dict]:
    from ov.ingest.resource import add_resource

    # Deleting the previous run's thousands of files leaves the file system busy for a while
    # (journal, discard); flush that before timing, or each run pays for the one before.
    os.sync()
    with common.temp_home("ov-bench-ingest") as home:
        store = common.open_store(home)
        start = time.perf_counter()
        result = add_resource(store, str(source))
        seconds = time.perf_counter() - start
        assert result.commit is not None, "an add must make one commit"
    return seconds, result.to_dict()


def redaction_cost(files: int, reps: int) -> int:
    """What redacting secrets costs an add: the same corpus with redaction and with it replaced by
    a no-op, one after the other, ``reps`` times (a ratio from one run, whatever the machine's load)."""
    from ov.redact import engine

    real = engine.redact
    work = Path(tempfile.mkdtemp(prefix="ov-bench-ingest-src-"))
    try:
        synthetic_corpus(work / "corpus", files)
        runs: dict[str, list[float]] = {"without": [], "with": []}
        for _ in range(reps):
            for mode in runs:
                engine.redact = real if mode == "with" else (lambda text, **_: (text, 0))
                runs[mode].append(timed_add(work / "corpus")[0])
        engine.redact = real
        p50 = {mode: common.percentile(times, 50) for mode, times in runs.items()}
        rows = [[mode, " ".join(f"{t:.2f}" for t in times), f"{p50[mode]:.2f}", f"{files / p50[mode]:.0f}"] for mode, times in runs.items()]
        common.print_table(["redaction", "runs s", "p50 s", "files/s"], rows)
        print(f"with / without: {p50['with'] / p50['without']:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="runs per measurement (default 3)")
    parser.add_argument("--files", type=int, default=1000, help="files in the main synthetic corpus (default 1000)")
    parser.add_argument("--sizes", default="250,500,1000,2000", help="corpus sizes for the growth curve")
    parser.add_argument("--scifact", default=str(common.BENCH_DATA / "scifact"), help="SciFact folder (corpus.jsonl)")
    parser.add_argument("--redaction", action="store_true", help="only: the main corpus with and without secret redaction, alternating")
    args = parser.parse_args(argv)
    if args.redaction:
        return redaction_cost(args.files, args.reps)
    common.header("ingest: add-resource throughput, offline (extractive summaries)")
    report = common.Report("ingest", params=vars(args))
    work = Path(tempfile.mkdtemp(prefix="ov-bench-ingest-src-"))
    try:
        main_dir = work / f"md{args.files}"
        size = synthetic_corpus(main_dir, args.files)
        runs = []
        for _ in range(args.reps):
            seconds, result = timed_add(main_dir)
            runs.append(seconds)
        p50 = common.percentile(runs, 50)
        rate = args.files / p50
        report.metrics["main"] = {"files": args.files, "bytes": size, "seconds": runs, "p50_s": p50, "files_per_s": rate, "written": len(result["added"]), "summaries": result["summaries"]}
        rows = [[f"{args.files} Markdown files, {size / 1e6:.1f} MB", f"{p50:.2f}", f"{rate:.0f}", str(len(result["added"])), str(result["summaries"])]]

        curve = []
        sizes = [int(s) for s in args.sizes.split(",")]
        for n in sizes:
            folder = work / f"curve{n}"
            synthetic_corpus(folder, n)
            samples = [timed_add(folder)[0] for _ in range(args.reps)]
            curve.append((n, common.percentile(samples, 50)))
        base_per_file = curve[0][1] / curve[0][0]
        report.metrics["growth"] = [{"files": n, "p50_s": s, "per_file_ms": s / n * 1000, "relative": (s / n) / base_per_file} for n, s in curve]
        for n, s in curve:
            rows.append([f"growth: {n} files", f"{s:.2f}", f"{n / s:.0f}", "", f"x{(s / n) / base_per_file:.2f} per file"])

        scifact = Path(args.scifact)
        if (scifact / "corpus.jsonl").exists():
            docs = scifact_corpus(scifact, work / "scifact")
            samples = [timed_add(work / "scifact")[0] for _ in range(max(1, args.reps - 1))]
            s = common.percentile(samples, 50)
            report.metrics["scifact"] = {"documents": docs, "seconds": samples, "p50_s": s, "files_per_s": docs / s}
            rows.append([f"SciFact corpus, {docs} abstracts", f"{s:.2f}", f"{docs / s:.0f}", "", ""])
        else:
            print(f"SciFact not found at {scifact}: skipped")

        common.print_table(["corpus", "p50 s", "files/s", "files written", "summaries / note"], rows)
        report.targets.append(common.Target(f"ingest of {args.files} Markdown files", rate, TARGET_FILES_PER_S, unit="files/s", higher_is_better=True))
        report.finish()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
