"""History and portability: a diff across 1,000 commits, a subtree restore, export and import throughput.

1. **diff**: a store gets ``--commits`` (1,000) one-file writes on top of a
   seeded tree (each write one commit, spread over 100 files); then
   ``ov.history.snapshots.diff(store, "HEAD~1000", "HEAD")`` is timed ``--reps`` times
   (p50): the cost of auditing everything those commits changed.
2. **log**: ``ov.history.snapshots.log`` of the whole history, and of one seeded file
   (``--uri``) no commit since the seeding touched: the walk of every commit an audit of
   "what changed this" makes (p50 over ``--reps``).
3. **restore**: in a ``--files`` (10,000) file store, a subtree of 100 files is
   rewritten in one commit, then ``ov.history.snapshots.restore(store, "HEAD~1", uri)``
   brings it back (one new commit) and the next round rewrites it again;
   p50 over ``--reps`` restores.
4. **export / import**: ``ov.ovpack.transfer`` export of the whole ``viking://resources``
   tree of that store, and import of the pack into a second account; MB/s of
   file content (median of ``--pack-reps``). Skipped with a note when ov has no
   ``ov.ovpack.transfer`` module.

    .venv/bin/python bench/history.py [--files 10000] [--commits 1000] [--reps 10] [--pack-reps 3] [--quick]
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
import time
from pathlib import Path

import common


def build_history(store, commits: int) -> None:
    """``commits`` one-file writes, one commit each, cycling over 100 files."""
    for i in range(commits):
        store.write(store.uri(f"viking://resources/log/f{i % 100:03d}.md"), f"# note {i}\n\nrevision {i} of this note\n".encode())


def time_diff(store, commits: int, reps: int) -> tuple[dict, int]:
    from ov.history import snapshots as history

    seconds, changed = [], 0
    for _ in range(reps):
        elapsed, result = common.time_call(lambda: history.diff(store, f"HEAD~{commits}", "HEAD"))
        seconds.append(elapsed)
        changed = len(result["changes"])
    return common.summarize(seconds), changed


def time_log(store, reps: int) -> dict[str, dict]:
    from ov.history import snapshots as history

    untouched = store.uri("viking://resources/seed/d00/d00/f0000000.md")
    out = {}
    for name, call in (("all", lambda: history.log(store)), ("uri", lambda: history.log(store, untouched))):
        out[name] = common.summarize([common.time_call(call)[0] for _ in range(reps)])
    return out


def time_restore(store, reps: int) -> tuple[dict, int]:
    from ov.history import snapshots as history

    subtree = store.uri("viking://resources/seed/d00")
    seconds, written = [], 0
    for rep in range(reps):
        with store.transaction() as tx:
            for uri, _ in store.walk_files(subtree):
                tx.put(uri, f"rewritten in round {rep}\n".encode())
            tx.commit("bench-rewrite", [subtree])
        elapsed, plan = common.time_call(lambda: history.restore(store, "HEAD~1", subtree))
        seconds.append(elapsed)
        written = len(plan.write)
    return common.summarize(seconds), written


def time_pack(home, store, reps: int) -> dict:
    from ov.ovpack import transfer as ovpack

    rows = {"export_s": [], "import_s": []}
    size = 0
    packs = Path(tempfile.mkdtemp(prefix="ov-bench-packs-"))  # a pack may not be written inside OV_HOME
    for rep in range(reps):
        pack = packs / f"resources-{rep}.ovpack"
        elapsed, _ = common.time_call(lambda: ovpack.export(store, store.uri("viking://resources/seed"), pack))
        rows["export_s"].append(elapsed)
        size = sum(p.stat().st_size for p in (store.root / "resources/seed").rglob("*") if p.is_file())
        other = _other_account(home, f"copy{rep}")
        elapsed, _ = common.time_call(lambda: ovpack.import_pack(other, pack, other.uri("viking://resources")))
        rows["import_s"].append(elapsed)
    shutil.rmtree(packs, ignore_errors=True)
    mb = size / 1e6
    export_p50 = common.percentile(rows["export_s"], 50)
    import_p50 = common.percentile(rows["import_s"], 50)
    return {"content_mb": mb, "export_p50_s": export_p50, "import_p50_s": import_p50, "export_mb_s": mb / export_p50, "import_mb_s": mb / import_p50}


def _other_account(home, account: str):
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    return Store(Home(home), Identity(account=account), Config())


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=1_000)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--pack-reps", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1,000 files, 100 commits, 3 repetitions")
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.commits, args.reps, args.pack_reps = 1_000, 100, 3, 1
    common.header("history: diff across many commits, subtree restore, ovpack throughput")
    report = common.Report("history" + ("-quick" if args.quick else ""), params=vars(args) | {"out": str(args.out)})
    with common.temp_home("ov-bench-history") as home:
        store = common.open_store(home)
        seed_s = common.seed_store(store, args.files)
        start = time.perf_counter()
        build_history(store, args.commits)
        print(f"{args.files} files seeded in {seed_s:.1f} s; {args.commits} commits in {time.perf_counter() - start:.1f} s")
        diff_stats, changed = time_diff(store, args.commits, args.reps)
        log_stats = time_log(store, args.reps)
        restore_stats, written = time_restore(store, args.reps)
        rows = [
            (f"diff HEAD~{args.commits} HEAD ({changed} files)", diff_stats["p50_ms"], diff_stats["p90_ms"]),
            (f"log (all {args.commits}+ commits)", log_stats["all"]["p50_ms"], log_stats["all"]["p90_ms"]),
            ("log --uri of a file no commit since the seeding touched", log_stats["uri"]["p50_ms"], log_stats["uri"]["p90_ms"]),
            (f"restore of a {written}-file subtree (one commit)", restore_stats["p50_ms"], restore_stats["p90_ms"]),
        ]
        common.print_table(("operation", "p50 ms", "p90 ms"), rows, title=f"History, {args.files} files")
        report.metrics.update(diff=diff_stats | {"files": changed}, log=log_stats["all"], log_uri=log_stats["uri"], restore=restore_stats | {"files": written})
        if importlib.util.find_spec("ov.ovpack.transfer") is not None:
            pack = time_pack(home, store, args.pack_reps)
            report.metrics["ovpack"] = pack
            common.print_table(
                ("operation", "MB of content", "p50 s", "MB/s"),
                [
                    ("export viking://resources/seed", pack["content_mb"], pack["export_p50_s"], pack["export_mb_s"]),
                    ("import into another account", pack["content_mb"], pack["import_p50_s"], pack["import_mb_s"]),
                ],
                title="ovpack",
                digits=2,
            )
        else:
            report.notes.append("ov.ovpack.transfer is not available: export/import not measured")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
