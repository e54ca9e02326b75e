"""Peak memory and wall time of ``ov backup`` and ``ov restore`` on stores of ``--sizes`` MB of text.

For each size a store is built in-process (Markdown files of about 100 KB, some prose repeated
with the file's number in every line, committed ``--batch-mb`` at a time). Each repetition then runs,
as separate ``ov`` processes under ``nice``:

1. **backup**: ``ov backup FILE.ovpack`` of that store;
2. **restore**: ``ov restore FILE.ovpack`` into a fresh, empty ``OV_HOME``.

Each command is started by a small measuring process of its own, which reports the command's
peak resident set (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the largest of its waited-for
children, so one command per measuring process) and its wall time. Medians of ``--reps``, and
the peak as a multiple of the content. With ``--rev REV`` the ``ov`` of that git revision of this
checkout is measured instead (the "before" of a change, same interpreter and dependencies).

    .venv/bin/python bench/pack_memory.py [--sizes 50,200] [--reps 3] [--rev REV]
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import common

FILE_KB = 100
WORDS = ["the", "agent", "wrote", "down", "what", "it", "learned", "about", "the", "build", "the", "tests", "and", "the", "deploy", "of", "this", "service"]
# Run as: python pack_memory.py --measure ARGV...; prints {"maxrss_kb": ..., "wall_s": ..., "rc": ...}.
MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
wall = time.perf_counter() - start
print(json.dumps({"maxrss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "wall_s": wall, "rc": rc}))
"""


def file_text(index: int) -> bytes:
    """About FILE_KB of Markdown: lines of prose, each naming the file and the line (distinct text)."""
    lines = [f"# notes {index}\n\n"]
    size = 0
    n = 0
    while size < FILE_KB * 1024:
        words = " ".join(WORDS[(n + k) % len(WORDS)] for k in range(12))
        line = f"{words} (file {index}, line {n}).\n" + ("\n" if n % 8 == 7 else "")
        lines.append(line)
        size += len(line)
        n += 1
    return "".join(lines).encode()


def build_store(home: Path, megabytes: int, batch_mb: int) -> tuple[int, int]:
    """Files and bytes written into the default account of ``home``, a commit per ``batch_mb``."""
    store = common.open_store(home)
    files = megabytes * 1024 // FILE_KB
    per_batch = max(1, batch_mb * 1024 // FILE_KB)
    written = 0
    for start in range(0, files, per_batch):
        with store.transaction() as tx:
            for i in range(start, min(files, start + per_batch)):
                data = file_text(i)
                written += len(data)
                tx.put(store.uri(f"viking://resources/big/d{i % 20:02d}/f{i:06d}.md"), data)
            tx.commit("bench-seed", [store.uri("viking://resources/big")])
    return files, written


def measured(argv: list[str], env: dict[str, str]) -> dict:
    """Peak RSS (MB) and wall time of ``argv`` run under nice by a measuring process of its own."""
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE, "nice", "-n", "10", *argv], env=env, cwd=common.CHILD_CWD, capture_output=True, text=True, check=True
    )
    out = json.loads(proc.stdout)
    if out["rc"] != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {out['rc']}")
    return {"peak_mb": out["maxrss_kb"] / 1024, "wall_s": out["wall_s"]}


def main() -> None:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="50,200", help="store sizes in MB, comma-separated")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--batch-mb", type=int, default=25, help="MB of files per commit while building a store")
    parser.add_argument("--rev", default=None, help="measure the ov of this git revision of the checkout")
    args = parser.parse_args()
    common.header("pack memory: peak RSS and wall time of ov backup / ov restore")
    report = common.Report("pack_memory", params=vars(args) | {"out": None})
    ov = common.ov_command()
    rows = []
    for megabytes in [int(s) for s in args.sizes.split(",")]:
        with common.temp_home("ov-bench-pack", args.keep) as home:
            files, content = build_store(home, megabytes, args.batch_mb)
            env = common.bench_env(home)
            # This checkout's ov (or the revision's), whatever the interpreter has installed.
            env["PYTHONPATH"] = str(common.ov_at_revision(args.rev) if args.rev else common.REPO_ROOT)
            packs = Path(tempfile.mkdtemp(prefix="ov-bench-packs-"))  # not inside OV_HOME
            runs: dict[str, list[dict]] = {"backup": [], "restore": []}
            try:
                for rep in range(args.reps):
                    pack = packs / f"all-{rep}.ovpack"
                    runs["backup"].append(measured([*ov, "backup", str(pack)], env))
                    with common.temp_home("ov-bench-restore") as other:
                        runs["restore"].append(measured([*ov, "restore", str(pack)], env | {"OV_HOME": str(other)}))
                    pack_mb = pack.stat().st_size / 1024**2
                    pack.unlink()
            finally:
                shutil.rmtree(packs, ignore_errors=True)
        content_mb = content / 1024**2
        for op, results in runs.items():
            peak = statistics.median(r["peak_mb"] for r in results)
            wall = statistics.median(r["wall_s"] for r in results)
            report.metrics[f"{op}_{megabytes}mb"] = {"files": files, "content_mb": content_mb, "pack_mb": pack_mb, "peak_mb": peak, "wall_s": wall, "runs": results}
            rows.append((f"ov {op}", files, content_mb, peak, peak / content_mb, wall))
    title = f"medians of {args.reps}" + (f", ov at {args.rev}" if args.rev else "")
    common.print_table(("command", "files", "content MB", "peak RSS MB", "x content", "wall s"), rows, title=title)
    report.finish(args.out)


if __name__ == "__main__":
    main()
