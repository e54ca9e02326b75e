"""Latency of one ``Store.write`` (validation, lock, recover, commit, work tree) in-process.

Stores are seeded in the same process: small ones (100 files by default) and
large ones (10,000 files), all spread over the same nested directory layout,
``--copies`` (2) independent stores of each size, because on some file systems
creating files costs more in some directories than in others, by more than
store size could explain. Then, round-robin (alternating which size goes
first) so that machine noise hits every series alike, each size gets
``--reps`` writes of a distinct NEW file and ``--reps`` writes that REPLACE an
existing seeded file, rotating over its copies. Every write is one commit; the
commit count of every store is checked at the end.

As a floor, the same loop also times ``ov.files.atomic_write`` of one file
(write + fsync + rename): a commit performs three such durable writes (journal,
file, branch ref).

Issue targets: p50 <= 30 ms in the 10,000-file store, and within 2x of the
100-file store.

    .venv/bin/python bench/write_commit.py [--reps 200] [--sizes 100,10000] [--copies 2] [--profile]
"""

from __future__ import annotations

import sys

import common

OPERATIONS = ("new", "replace")
TARGET_P50_MS = 30.0
TARGET_RATIO = 2.0


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="timed writes per store size and operation (default 200)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed writes per store first (default 10)")
    parser.add_argument("--sizes", default="100,10000", help="seeded file counts; the first is the baseline (default 100,10000)")
    parser.add_argument("--copies", type=int, default=2, help="independent stores per size; writes rotate over them (default 2)")
    parser.add_argument("--fanout", type=int, default=10, help="directories per level of the seeded layout (default 10)")
    parser.add_argument("--depth", type=int, default=2, help="directory levels of the seeded layout (default 2)")
    parser.add_argument("--profile", action="store_true", help="afterwards, cProfile 100 writes into a store of the largest size")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(set(sizes)) != len(sizes) or args.copies < 1:
        parser.error("--sizes must be distinct and --copies at least 1")
    common.header("write_commit: one Store.write + its commit, in-process")

    report = common.Report("write_commit", params=vars(args) | {"sizes": sizes})
    keys = [(size, copy) for size in sizes for copy in range(args.copies)]
    with common.temp_homes(len(keys), "ov-bench-write", keep=args.keep) as homes:
        stores = {}
        for key, home in zip(keys, homes):
            store = common.open_store(home)
            seconds = common.seed_store(store, key[0], fanout=args.fanout, depth=args.depth)
            print(f"seeded {key[0]} files in one commit (store {key[1]}): {seconds:.2f} s")
            report.metrics.setdefault(f"seed_{key[0]}_s", []).append(seconds)
            stores[key] = store

        counters = {key: 0 for key in keys}

        def one_write(key: tuple[int, int], op: str) -> float:
            size, store = key[0], stores[key]
            n = counters[key]
            counters[key] += 1
            if op == "new":
                index = size + n  # beyond the seeded range: a file that does not exist yet
            else:
                index = (n * 7919) % size  # an existing seeded file, scattered over the layout
            uri = store.uri(common.seed_path(index, args.fanout, args.depth))
            data = common.file_body(index, tag=f"{op}-{n}")
            elapsed, result = common.time_call(lambda: store.write(uri, data))
            if not result.changed:
                raise RuntimeError(f"write to {uri} made no commit")
            return elapsed

        for key in keys:
            for i in range(args.warmup):
                one_write(key, OPERATIONS[i % 2])

        samples: dict[tuple[int, str], list[float]] = {(s, op): [] for s in sizes for op in OPERATIONS}
        per_store: dict[tuple[int, int], list[float]] = {key: [] for key in keys}
        floor: list[float] = []
        from ov.files import atomic_write

        for rep in range(args.reps):
            copy = rep % args.copies
            order = sizes if rep % 2 == 0 else sizes[::-1]  # alternate which size goes first
            for op in OPERATIONS:
                for size in order:
                    elapsed = one_write((size, copy), op)
                    samples[(size, op)].append(elapsed)
                    per_store[(size, copy)].append(elapsed)
            scratch = homes[rep % len(homes)] / "floor"
            floor.append(common.time_call(lambda: atomic_write(scratch / f"f{rep % 50}.md", common.file_body(rep)))[0])

        for key in keys:
            commits = len(stores[key].git.log())
            expected = 2 + counters[key]  # init + seed + one commit per write
            if commits != expected:
                raise RuntimeError(f"store {key} has {commits} commits, expected {expected}")
        report.metrics["per_store_p50_ms"] = {f"{size} files #{copy}": common.percentile(v, 50) * 1000 for (size, copy), v in per_store.items()}

        base = sizes[0]
        floor_stats = common.summarize(floor)
        report.metrics["floor_atomic_write"] = floor_stats
        rows = []
        for size in sizes:
            for op in (*OPERATIONS, "all"):
                series = samples[(size, op)] if op != "all" else samples[(size, "new")] + samples[(size, "replace")]
                base_series = samples[(base, op)] if op != "all" else samples[(base, "new")] + samples[(base, "replace")]
                stats = common.summarize(series)
                stats["ratio_p50_vs_base"] = common.ratio(stats["p50_ms"], common.percentile(base_series, 50) * 1000)
                stats["ratio_p50_vs_floor"] = common.ratio(stats["p50_ms"], floor_stats["p50_ms"])
                report.metrics[f"{size}_{op}"] = stats
                rows.append((f"{size} files / {op}", stats["n"], stats["p50_ms"], stats["p90_ms"], stats["p99_ms"], stats["max_ms"], stats["ratio_p50_vs_base"], stats["ratio_p50_vs_floor"]))
        rows.append(("floor: atomic_write", floor_stats["n"], floor_stats["p50_ms"], floor_stats["p90_ms"], floor_stats["p99_ms"], floor_stats["max_ms"], float("nan"), 1.0))
        common.print_table(
            ("series", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", f"p50 / {base}", "p50 / floor"),
            rows,
            title="Store.write latency",
            digits=2,
        )

        big = sizes[-1]
        for op in ("all", *OPERATIONS):
            stats = report.metrics[f"{big}_{op}"]
            report.targets.append(common.Target(f"p50 write at {big} files ({op})", stats["p50_ms"], TARGET_P50_MS))
            report.targets.append(common.Target(f"p50 ratio {big}/{base} files ({op})", stats["ratio_p50_vs_base"], TARGET_RATIO, unit="x"))

        print("\np50 per store (same size, different directories): " + ", ".join(f"{k}: {v:.2f} ms" for k, v in report.metrics["per_store_p50_ms"].items()))

        if args.profile:
            def hundred_writes() -> None:
                for _ in range(50):
                    for op in OPERATIONS:
                        one_write((big, 0), op)

            text = common.profile_top(hundred_writes, limit=30)
            print(f"\ncProfile of 100 writes into a {big}-file store (cumulative):")
            print(text)
            report.metrics["profile_top"] = text

    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
