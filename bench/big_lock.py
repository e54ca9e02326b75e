"""A large ``snapshot restore`` and a large ``mv``, and the small writes of other agents meanwhile.

A store gets a ``--files`` (20,000) file folder by ``add-resource`` (100 files a directory,
like the audit's reproducer), tagged, then removed. Each repetition then:

1. **restore**: ``ov snapshot restore TAG`` (the whole store) brings the folder back;
2. **mv**: ``ov mv`` moves the restored folder elsewhere;
3. ``ov rm -r`` removes it again (not timed), for the next repetition.

While the restore or the mv runs, small ``ov write`` commands of other files are started one
after another (``--interval`` apart), each a whole ``ov`` process timed from start to exit, and
its outcome recorded; with ``--into-folder`` they write into the folder restored and moved
(which the restore then takes back, and the move carries along). An idle write, timed the same
way before, is the baseline: a write that takes much longer than it waited for the lock. The
restore's and the mv's own hold of the write lock is timed inside their process (the bootstrap
of ``concurrency.py``; ov unchanged), without the time spent committing the writes queued behind
it (group commit), which is shown apart. With ``--rev REV`` the ``ov`` of that git revision of
this checkout is measured instead (the "before" of a change, same interpreter).

    .venv/bin/python bench/big_lock.py [--files 20000] [--reps 3] [--interval 0.3] [--into-folder] [--rev REV]
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import common
from concurrency import LOCK_WAIT_BOOT

BIG = "viking://resources/big"
MOVED = "viking://resources/moved"
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]


def make_corpus(root: Path, files: int) -> None:
    import random

    rng = random.Random(1)
    for i in range(files):
        folder = root / f"pkg{i // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{i % 100:03d}.md").write_text(f"# Note {i}\n\n" + " ".join(rng.choices(WORDS, k=60)) + f"\n\ntoken{i}\n")


def run(ov: list[str], env: dict[str, str], *args: str) -> tuple[float, int, str]:
    start = time.perf_counter()
    done = subprocess.run([*ov, *args], env=env, capture_output=True, text=True, cwd=common.CHILD_CWD, check=False)
    return time.perf_counter() - start, done.returncode, done.stderr.strip()


def with_writes(ov: list[str], env: dict[str, str], args: list[str], interval: float, tag: str, into: str, noted: Path) -> dict:
    """Run ``ov ARGS`` (its lock noted in ``noted``), and small writes into ``into`` one after
    another until it exits; their times, and its hold of the lock."""
    noted.unlink(missing_ok=True)
    start = time.perf_counter()
    big = subprocess.Popen([sys.executable, "-c", LOCK_WAIT_BOOT, str(noted), *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=common.CHILD_CWD)
    writes, failures = [], []
    n = 0
    while big.poll() is None:
        time.sleep(interval)
        if big.poll() is not None:
            break
        n += 1
        seconds, rc, err = run(ov, env, "write", f"{into}/during/{tag}-{n}.md", "--content", f"an agent's write {n}")
        (writes if rc == 0 else failures).append(seconds)
        if rc != 0:
            print(f"    write failed after {seconds:.1f}s: {err.splitlines()[-1] if err else rc}", flush=True)
    big_err = big.stderr.read()
    big.wait()
    seconds = time.perf_counter() - start
    if big.returncode != 0:
        raise SystemExit(f"`ov {' '.join(args)}` failed: {big_err}")
    lines = [line.split() for line in noted.read_text().splitlines() if line.strip()]
    serving = sum(float(v) for k, v in lines if k == "serving")
    hold = sum(float(v) for k, v in lines if k == "hold") - serving
    return {"seconds": seconds, "writes": writes, "failures": failures, "hold": hold, "serving": serving}


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000, help="files in the folder restored and moved (default 20000)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of restore + mv (default 3)")
    parser.add_argument("--interval", type=float, default=0.3, help="seconds between one small write's end and the next's start (default 0.3)")
    parser.add_argument("--into-folder", action="store_true", help="the small writes go into the folder restored and moved (default: beside it)")
    parser.add_argument("--rev", help="measure the ov of this git revision of the checkout (e.g. main) instead of the working copy")
    args = parser.parse_args(argv)
    common.header(f"big lock: restore and mv of a {args.files}-file folder, small writes meanwhile" + (f" (ov at {args.rev})" if args.rev else ""))
    report = common.Report("big_lock", params=vars(args) | {"checkout": common.git_state()})
    source = common.ov_at_revision(args.rev) if args.rev else common.REPO_ROOT
    ov = [sys.executable, "-m", "ov"]
    with common.temp_home("ov-bench-big-lock", keep=args.keep) as root:
        env = common.bench_env(root / "home")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
        corpus = root / "corpus"
        make_corpus(corpus, args.files)
        for step in (["init"], ["add-resource", str(corpus), "--to", BIG], ["snapshot", "tag", "with-big"], ["rm", "-r", BIG]):
            _, rc, err = run(ov, env, *step)
            if rc != 0:
                raise SystemExit(f"`ov {' '.join(step)}` failed: {err}")
        idle = [run(ov, env, "write", f"viking://resources/idle/{i}.md", "--content", "idle")[0] for i in range(5)]
        series = {name: {"seconds": [], "writes": [], "failures": [], "hold": [], "serving": []} for name in ("restore", "mv")}
        into = BIG if args.into_folder else "viking://resources"
        for rep in range(args.reps):
            for name, command in (("restore", ["snapshot", "restore", "with-big"]), ("mv", ["mv", BIG, MOVED])):
                got = with_writes(ov, env, command, args.interval, f"{name}{rep}", into, root / "held.txt")
                for key in ("writes", "failures"):
                    series[name][key].extend(got[key])
                for key in ("seconds", "hold", "serving"):
                    series[name][key].append(got[key])
                print(
                    f"  rep {rep + 1} {name}: {got['seconds']:.1f}s (lock held {got['hold']:.2f}s, +{got['serving']:.2f}s serving),"
                    f" {len(got['writes'])} writes ok, {len(got['failures'])} failed",
                    flush=True,
                )
            run(ov, env, "rm", "-r", MOVED)
    rows = [["idle write", "", "", "", "", len(idle), 0, common.summarize(idle)["p50_ms"], common.summarize(idle)["max_ms"]]]
    for name, got in series.items():
        writes = common.summarize(got["writes"])
        rows.append([
            f"{name} of {args.files:,} files", common.percentile(got["seconds"], 50), max(got["seconds"]), common.percentile(got["hold"], 50), max(got["hold"]),
            len(got["writes"]), len(got["failures"]), writes["p50_ms"], writes["max_ms"],
        ])  # fmt: skip
        report.metrics[name] = {
            "seconds": got["seconds"], "lock_hold_seconds": got["hold"], "serving_seconds": got["serving"],
            "writes": writes, "failed_writes": len(got["failures"]), "failed_write_seconds": got["failures"],
        }  # fmt: skip
    report.metrics["idle_write"] = common.summarize(idle)
    common.print_table(("operation", "p50 s", "max s", "hold p50 s", "hold max s", "writes ok", "writes failed", "write p50 ms", "write max ms"), rows, digits=2)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
