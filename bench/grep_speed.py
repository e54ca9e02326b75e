"""`ov grep` over a store of small files and one large one, in-process.

```
.venv/bin/python bench/grep_speed.py                       # ~1 min: this tree
.venv/bin/python bench/grep_speed.py --against 0e34cf0     # and ov at that revision, on the same store
```

The store holds ``--files`` seeded files (about 400 bytes each) and one file of ``--lines`` short
lines (a log, a data dump: what makes grep slow). Each pattern is timed ``--reps`` times over the
whole store (``grep()`` consumed to the end), and the median is reported. With ``--against``, the
same patterns run on the same store in a child process that imports ov at that revision.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

import common

PATTERNS = {
    "literal, no match": "kubernetes",
    "literal, 2 lines of the large file": "checkpoint 1234 written",
    "literal, 12 % of the large file's lines": "checkpoint 7",
    "anchored, every seeded file": "^# seed file",
    "class and repeat, no match": r"[A-Z]{3}-\d{5}",
}


def measure(home: str, reps: int) -> dict[str, dict]:
    from ov.retrieval import grep as module
    from ov.retrieval.grep import grep

    assert module.__file__.startswith(os.environ.get("OV_BENCH_REVISION", str(common.REPO_ROOT)))

    store = common.open_store(common.Path(home))
    base = store.uri("viking://resources")
    out = {}
    for name, pattern in PATTERNS.items():
        times, found = [], 0
        for _ in range(reps):
            start = time.perf_counter()
            found = sum(1 for _ in grep(store, pattern, base))
            times.append(time.perf_counter() - start)
        out[name] = {"median_ms": statistics.median(times) * 1000, "matches": found}
    return out


def seed(home: str, files: int, lines: int) -> None:
    store = common.open_store(common.Path(home))
    common.seed_store(store, files)
    body = "".join(f"{n:08d} worker ok, checkpoint {n % 100_000} written\n" for n in range(lines))
    with store.transaction() as tx:
        uri = store.uri("viking://resources/logs/worker.log")
        tx.put(uri, body.encode())
        tx.commit("bench-log", [uri])


def main() -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000, help="seeded small files (default 2000)")
    parser.add_argument("--lines", type=int, default=150_000, help="lines of the large file (default 150,000, about 7 MB)")
    parser.add_argument("--reps", type=int, default=5, help="runs per pattern (default 5)")
    parser.add_argument("--against", metavar="REV", help="also time ov at git revision REV on the same store")
    parser.add_argument("--worker", metavar="HOME", help=argparse_hidden())
    args = parser.parse_args()
    if args.worker:
        # common puts this checkout first on sys.path: the revision goes before it.
        sys.path.insert(0, os.environ["OV_BENCH_REVISION"])
        print(json.dumps(measure(args.worker, args.reps)))
        return 0
    common.header("ov grep: a store of small files and one large one")
    with common.temp_home("ov-bench-grep", keep=args.keep) as home:
        os.environ["OV_HOME"] = str(home)
        seed(str(home), args.files, args.lines)
        now = measure(str(home), args.reps)
        before = None
        if args.against:
            env = {**os.environ, "OV_BENCH_REVISION": str(common.ov_at_revision(args.against))}
            child = subprocess.run([sys.executable, __file__, "--worker", str(home), "--reps", str(args.reps)], env=env, check=True, capture_output=True, text=True)
            before = json.loads(child.stdout)
    headers = ["pattern", "matches", "median ms"] + ([f"at {args.against} ms", "ratio"] if before else [])
    rows = []
    for name, got in now.items():
        row = [name, got["matches"], got["median_ms"]]
        if before:
            row += [before[name]["median_ms"], common.ratio(got["median_ms"], before[name]["median_ms"])]
        rows.append(row)
    common.print_table(headers, rows, title=f"{args.files} small files and one of {args.lines:,} lines, {args.reps} runs each")
    return 0


def argparse_hidden() -> str:
    import argparse

    return argparse.SUPPRESS


if __name__ == "__main__":
    sys.exit(main())
