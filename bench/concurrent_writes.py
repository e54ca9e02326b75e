"""Many writers at once against one ``OV_HOME``: no lost or merged commits, and how long it takes.

Each round releases ``--processes`` (16) child processes at the same instant.
A child reports "ready" on a pipe and blocks reading a second pipe; when the
parent closes that pipe, all children see end-of-file together. Each child
writes a different URI. Two kinds of rounds, alternating with their baselines
so that drift affects all alike:

``cli``   the child ``exec``s ``ov write URI -c TEXT --json``, so every writer pays
          a full cold ``ov`` start and then races for the account's write lock.
          Baseline: the same 16 ``ov write`` commands run one after another.
``warm``  the child has already imported ov, opened the store and loaded dulwich
          before the start; it then calls ``Store.write`` once. This isolates the
          write lock and the commits from start-up cost. Baseline: the same 16
          ``Store.write`` calls one after another in this process.

After every round the script checks, with dulwich directly (not through ov):

* the branch moved by exactly N commits, in one linear chain from the old head;
* those commits are exactly the N ``ov write`` commits, one per URI, and each
  writer's reported commit id is among them;
* every file has its content in the HEAD tree and in the work tree;
* no journal or temporary file is left behind, all children exited 0;

and once at the end: the whole work tree equals the HEAD tree (dulwich), plus,
when a ``git`` binary is available, ``git fsck --strict`` and the commit count.

Reported: wall time of a round (start signal to the last exit), per-process
latency (start signal to that process's exit) p50/max, the gap between
consecutive exits, and CPU time per process.

    .venv/bin/python bench/concurrent_writes.py [--processes 16] [--rounds 5] [--warm-rounds 5]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import common

# A cli child: say ready, wait for the start signal (EOF on the go pipe), become `ov write ...`.
CLI_CHILD = (
    "import os, sys\n"
    "ready, go = int(sys.argv[1]), int(sys.argv[2])\n"
    "os.write(ready, b'r'); os.close(ready)\n"
    "os.read(go, 1); os.close(go)\n"
    "os.execv(sys.argv[3], sys.argv[3:])\n"
)

# A warm child: load everything a write needs, say ready, wait, then one Store.write.
WARM_CHILD = (
    "import json, os, sys\n"
    "from pathlib import Path\n"
    "ready, go, bench, home, uri, text = sys.argv[1:7]\n"
    "sys.path.insert(0, bench)\n"
    "import common\n"
    "store = common.open_store(Path(home))\n"
    "store.git.head(); store.git.blob_id(b'')\n"
    "import dulwich.object_store, dulwich.refs, dulwich.file\n"
    "os.write(int(ready), b'r'); os.close(int(ready))\n"
    "os.read(int(go), 1); os.close(int(go))\n"
    "result = store.write(store.uri(uri), text.encode())\n"
    "print(json.dumps({'ok': True, 'result': {'commit': result.commit}}))\n"
)

Job = tuple[str, str]  # (uri, text)


def write_argv(ov: list[str], uri: str, text: str) -> list[str]:
    return [*ov, "write", uri, "-c", text, "--json"]


def content_for(round_no: int, writer: int) -> str:
    return f"round {round_no} writer {writer}\n" + "".join(f"line {n}: concurrent context\n" for n in range(5))


def race(env: dict[str, str], jobs: list[Job], child_argv: Callable[[int, int, str, str], list[str]]) -> tuple[float, list[dict]]:
    """Start one child per job, release them at the same instant; return (wall seconds, per-process results).

    ``child_argv(ready_fd, go_fd, uri, text)`` builds a child's command line.
    """
    ready_r, ready_w = os.pipe()
    go_r, go_w = os.pipe()
    procs = []
    try:
        for uri, text in jobs:
            procs.append(
                subprocess.Popen(
                    child_argv(ready_w, go_r, uri, text),
                    env=env,
                    cwd=common.CHILD_CWD,
                    pass_fds=(ready_w, go_r),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
    finally:
        os.close(ready_w)
        os.close(go_r)
    got = 0
    while got < len(procs):
        chunk = os.read(ready_r, len(procs) - got)
        if not chunk:
            for proc in procs:  # never release the others into a half-started round
                proc.kill()
                proc.wait()
            raise RuntimeError("a child exited before it was ready: " + procs[0].stderr.read().decode(errors="replace")[-500:])
        got += len(chunk)
    os.close(ready_r)

    results: list[dict] = [{} for _ in procs]

    def wait(index: int, proc: subprocess.Popen) -> None:
        out, err = proc.communicate()
        results[index] = {"end": time.perf_counter(), "rc": proc.returncode, "stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace")}

    threads = [threading.Thread(target=wait, args=(i, p)) for i, p in enumerate(procs)]
    for t in threads:
        t.start()
    start = time.perf_counter()
    os.close(go_w)  # the start signal
    for t in threads:
        t.join()
    for r in results:
        r["latency"] = r["end"] - start
    return max(r["end"] for r in results) - start, results


def cli_serial(ov: list[str], env: dict[str, str], jobs: list[Job]) -> tuple[float, list[dict]]:
    """The cli baseline: the same ``ov write`` commands one after another."""
    results = []
    start = time.perf_counter()
    for uri, text in jobs:
        run = common.run_timed(write_argv(ov, uri, text), env, check=False)
        results.append({"latency": run.wall, "rc": run.proc.returncode, "stdout": run.stdout, "stderr": run.stderr})
    return time.perf_counter() - start, results


def inprocess_serial(store, jobs: list[Job]) -> tuple[float, list[dict]]:
    """The warm baseline: the same writes as ``Store.write`` calls one after another in this process."""
    results = []
    start = time.perf_counter()
    for uri, text in jobs:
        elapsed, result = common.time_call(lambda: store.write(store.uri(uri), text.encode()))
        results.append({"latency": elapsed, "rc": 0, "stdout": json.dumps({"result": {"commit": result.commit}}), "stderr": ""})
    return time.perf_counter() - start, results


def verify(repo_dir: Path, state_dir: Path, old_head: bytes, jobs: list[tuple[str, str]], results: list[dict]) -> tuple[bytes, list[str]]:
    """Check the round's outcome with dulwich; return (new head, problems found)."""
    from dulwich.repo import Repo

    problems: list[str] = []
    for (uri, _), r in zip(jobs, results):
        if r["rc"] != 0:
            problems.append(f"{uri}: exit {r['rc']}: {r['stderr'].strip()[-300:]}")
    repo = Repo(str(repo_dir))
    head = repo.refs[b"refs/heads/main"]
    chain = []
    sha = head
    while sha != old_head and len(chain) <= len(jobs) + 1:
        commit = repo[sha]
        if len(commit.parents) != 1:
            problems.append(f"commit {sha.decode()[:10]} has {len(commit.parents)} parents")
            break
        chain.append(commit)
        sha = commit.parents[0]
    if sha != old_head:
        problems.append(f"the old head is not {len(jobs)} commits back in a linear chain")
    if len(chain) != len(jobs):
        problems.append(f"{len(chain)} new commits, expected {len(jobs)}")

    subjects = {c.message.decode().splitlines()[0] for c in chain}
    expected_subjects = {f"ov write {uri}" for uri, _ in jobs}
    if subjects != expected_subjects:
        problems.append(f"commit subjects differ: missing {sorted(expected_subjects - subjects)}, unexpected {sorted(subjects - expected_subjects)}")
    chain_ids = {c.id.decode() for c in chain}
    for (uri, _), r in zip(jobs, results):
        try:
            reported = json.loads(r["stdout"])["result"]["commit"]
        except (ValueError, KeyError, TypeError):
            problems.append(f"{uri}: no JSON result on stdout")
            continue
        if reported not in chain_ids:
            problems.append(f"{uri}: reported commit {reported} is not among the new commits")

    tree = repo[repo[head].tree]
    for uri, text in jobs:
        rel = uri.removeprefix("viking://")
        try:
            _, blob = tree.lookup_path(repo.object_store.__getitem__, rel.encode())
            committed = repo[blob].as_raw_string()
        except KeyError:
            committed = None
        if committed != text.encode():
            problems.append(f"{uri}: HEAD holds {committed!r:.60}, expected the writer's text")
        try:
            on_disk = (repo_dir / rel).read_bytes()
        except OSError:
            on_disk = None
        if on_disk != text.encode():
            problems.append(f"{uri}: work tree holds {on_disk!r:.60}, expected the writer's text")
    if (state_dir / "journal.json").exists():
        problems.append("a commit journal was left behind")
    leftovers = [p for p in repo_dir.rglob(".ov-tmp-*") if ".git" not in p.parts]
    if leftovers:
        problems.append(f"{len(leftovers)} temporary files left in the work tree")
    return head, problems


def worktree_matches_head(repo_dir: Path) -> list[str]:
    """Every file of HEAD is on disk with the same bytes, and nothing else is (dulwich; ov keeps no git index)."""
    from dulwich.repo import Repo

    repo = Repo(str(repo_dir))
    committed = {
        entry.path.decode(): entry.sha
        for entry in repo.object_store.iter_tree_contents(repo[repo.refs[b"refs/heads/main"]].tree)
    }
    on_disk = {
        p.relative_to(repo_dir).as_posix(): p
        for p in repo_dir.rglob("*")
        if p.is_file() and ".git" not in p.relative_to(repo_dir).parts
    }
    problems = [f"{rel}: in HEAD but not in the work tree" for rel in sorted(committed.keys() - on_disk.keys())]
    problems += [f"{rel}: in the work tree but not in HEAD" for rel in sorted(on_disk.keys() - committed.keys())]
    for rel in sorted(committed.keys() & on_disk.keys()):
        if repo[committed[rel]].as_raw_string() != on_disk[rel].read_bytes():
            problems.append(f"{rel}: work tree differs from HEAD")
    return problems


def git_checks(repo_dir: Path, env: dict[str, str]) -> dict[str, str]:
    """``git fsck`` and a commit count, if git is installed (an independent reader of the repository)."""
    git = shutil.which("git")
    if git is None:
        return {"git": "not installed; skipped"}
    fsck = subprocess.run([git, "-C", str(repo_dir), "fsck", "--no-progress", "--strict"], env=env, capture_output=True, text=True)
    count = subprocess.run([git, "-C", str(repo_dir), "rev-list", "--count", "HEAD"], env=env, capture_output=True, text=True)
    return {
        "fsck": "ok" if fsck.returncode == 0 and not fsck.stdout.strip() else f"FAILED: {fsck.stdout}{fsck.stderr}".strip(),
        "commits": count.stdout.strip(),
    }


MODES = {
    # mode: (label in tables, baseline mode or None)
    "cli-serial": ("ov write, one by one", None),
    "cli-race": ("ov write, all at once", "cli-serial"),
    "inproc-serial": ("Store.write in-process, one by one", None),
    "warm-race": ("warm processes, all at once", "inproc-serial"),
}


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=16, help="writers per round (default 16)")
    parser.add_argument("--rounds", type=int, default=5, help="cli rounds, each with its one-by-one baseline (default 5)")
    parser.add_argument("--warm-rounds", type=int, default=5, help="warm rounds, each with its in-process baseline (default 5; 0 skips)")
    parser.add_argument("--seed-files", type=int, default=100, help="files in the store before the first round (default 100)")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header(f"concurrent_writes: {args.processes} writers at once, one OV_HOME")

    ov = common.ov_command()
    report = common.Report("concurrent_writes", params=vars(args) | {"ov_command": ov})
    all_problems: list[str] = []
    with common.temp_home("ov-bench-concurrent", keep=args.keep) as home:
        store = common.open_store(home)
        common.seed_store(store, args.seed_files)
        env = common.bench_env(home, args.bytecode)
        repo_dir, state_dir = store.root, store.state
        for _ in range(2):  # warm-up: fill the bytecode cache and the page cache
            common.run_timed([*ov, "ls", common.SEED_ROOT], env)

        def cli_child(ready: int, go: int, uri: str, text: str) -> list[str]:
            return [sys.executable, "-c", CLI_CHILD, str(ready), str(go), *write_argv(ov, uri, text)]

        def warm_child(ready: int, go: int, uri: str, text: str) -> list[str]:
            return [sys.executable, "-c", WARM_CHILD, str(ready), str(go), str(common.BENCH_DIR), str(home), uri, text]

        runners = {
            "cli-serial": lambda jobs: cli_serial(ov, env, jobs),
            "cli-race": lambda jobs: race(env, jobs, cli_child),
            "inproc-serial": lambda jobs: inprocess_serial(store, jobs),
            "warm-race": lambda jobs: race(env, jobs, warm_child),
        }
        schedule = [(r, m) for r in range(args.rounds) for m in ("cli-serial", "cli-race")]
        schedule += [(r, m) for r in range(args.warm_rounds) for m in ("inproc-serial", "warm-race")]

        head = store.git.head()
        rows = []
        series: dict[str, dict[str, list[float]]] = {m: {"wall": [], "latency": [], "cpu": [], "first": [], "gap": []} for m in MODES}
        for round_no, mode in schedule:
            jobs = [(f"viking://resources/{mode}/r{round_no:02d}/w{i:02d}.md", content_for(round_no, i)) for i in range(args.processes)]
            cpu_before = common.children_cpu()
            wall, results = runners[mode](jobs)
            cpu = (common.children_cpu() - cpu_before) / len(jobs)
            head, problems = verify(repo_dir, state_dir, head, jobs, results)
            all_problems.extend(f"round {round_no} {mode}: {p}" for p in problems)
            latencies = [r["latency"] for r in results]
            ends = sorted(latencies)
            s = series[mode]
            s["wall"].append(wall)
            s["latency"].extend(latencies)
            if mode.endswith("race"):
                s["cpu"].append(cpu)
                s["first"].append(ends[0])
                s["gap"].extend(b - a for a, b in zip(ends, ends[1:]))
            elif mode == "cli-serial":
                s["cpu"].append(cpu)
            lat = common.summarize(latencies)
            rows.append((f"{round_no} {mode}", wall * 1000, lat["p50_ms"], lat["max_ms"], len(jobs), "ok" if not problems else f"{len(problems)} PROBLEMS"))
        common.print_table(("round", "wall ms", "latency p50 ms", "latency max ms", "commits", "verified"), rows, title="Rounds")

        summary_rows = []
        for mode, (label, baseline) in MODES.items():
            s = series[mode]
            if not s["wall"]:
                continue
            m = {
                "round_wall": common.summarize(s["wall"]),
                "latency": common.summarize(s["latency"]),
                "cpu_per_process": common.summarize(s["cpu"]) if s["cpu"] else None,
                "first_exit": common.summarize(s["first"]) if s["first"] else None,
                "exit_gap": common.summarize(s["gap"]) if s["gap"] else None,
            }
            if baseline and series[baseline]["wall"]:
                base_wall = common.percentile(series[baseline]["wall"], 50) * 1000
                base_lat = common.percentile(series[baseline]["latency"], 50) * 1000
                m["wall_ratio_vs_baseline"] = common.ratio(m["round_wall"]["p50_ms"], base_wall)
                m["latency_p50_ratio_vs_baseline"] = common.ratio(m["latency"]["p50_ms"], base_lat)
            report.metrics[mode] = m
            summary_rows.append(
                (
                    label,
                    m["round_wall"]["n"],
                    m["round_wall"]["p50_ms"],
                    m.get("wall_ratio_vs_baseline", 1.0),
                    m["latency"]["p50_ms"],
                    m["latency"]["max_ms"],
                    m["exit_gap"]["p50_ms"] if m["exit_gap"] else float("nan"),
                )
            )
        common.print_table(
            ("series", "rounds", "round wall p50 ms", "wall / baseline", "latency p50 ms", "latency max ms", "exit gap p50 ms"),
            summary_rows,
            title=f"Summary ({args.processes} writes per round; latency = start signal to that writer's exit)",
        )

        cpus = os.cpu_count() or 1
        if series["cli-race"]["wall"]:
            race_m, serial_m = report.metrics["cli-race"], report.metrics["cli-serial"]
            # If the processes only competed for CPU, never for the lock, a round could take this long:
            cpu_bound = race_m["cpu_per_process"]["p50_ms"] * args.processes / cpus
            race_m["cpu_bound_wall_ms"] = cpu_bound
            race_m["wall_ratio_vs_cpu_bound"] = common.ratio(race_m["round_wall"]["p50_ms"], cpu_bound)
            print(
                f"\ncli: CPU per ov write process (user+sys) {serial_m['cpu_per_process']['p50_ms']:.0f} ms one by one, "
                f"{race_m['cpu_per_process']['p50_ms']:.0f} ms at once (includes the ~20 ms wrapper before exec). "
                f"{args.processes} x that / {cpus} cores = {cpu_bound:.0f} ms if CPU were the only limit; "
                f"measured round wall p50 {race_m['round_wall']['p50_ms']:.0f} ms ({race_m['wall_ratio_vs_cpu_bound']:.2f}x)."
            )
        if series["warm-race"]["wall"]:
            warm_m, inproc_m = report.metrics["warm-race"], report.metrics["inproc-serial"]
            handoff = (warm_m["round_wall"]["p50_ms"] - warm_m["first_exit"]["p50_ms"]) / max(args.processes - 1, 1)
            warm_m["per_commit_under_contention_ms"] = handoff
            print(
                f"warm: one commit every {handoff:.1f} ms once writers queue on the lock "
                f"(exit gap p50 {warm_m['exit_gap']['p50_ms']:.1f} ms), against {inproc_m['latency']['p50_ms']:.1f} ms "
                f"per uncontended Store.write; {args.processes} writes take {warm_m['round_wall']['p50_ms']:.0f} ms at once "
                f"vs {inproc_m['round_wall']['p50_ms']:.0f} ms one by one."
            )

        checks = git_checks(repo_dir, env)
        report.metrics["git_checks"] = checks
        expected_commits = 2 + len(schedule) * args.processes  # init + seed + every write
        if checks.get("commits") and checks["commits"] != str(expected_commits):
            all_problems.append(f"git rev-list counts {checks['commits']} commits, expected {expected_commits}")
        if checks.get("fsck", "ok") != "ok":
            all_problems.append(f"git fsck: {checks['fsck']}")
        tree_problems = worktree_matches_head(repo_dir)
        checks["worktree_vs_head"] = "identical" if not tree_problems else f"{len(tree_problems)} differences"
        all_problems.extend(tree_problems)
        report.metrics["problems"] = all_problems
        report.metrics["rounds_verified_ok"] = len(schedule) if not all_problems else None
        print(f"\nfinal checks: {checks}")
        if all_problems:
            print(f"\nVERIFICATION FAILED ({len(all_problems)} problems):")
            for p in all_problems[:50]:
                print(f"  - {p}")
        else:
            print(f"verified: each of {len(schedule)} rounds made exactly {args.processes} linear commits and every file holds its writer's content")
        report.notes.append("verification: " + ("all rounds ok" if not all_problems else f"{len(all_problems)} problems"))

    report.finish(args.out)
    return 1 if all_problems else 0


if __name__ == "__main__":
    sys.exit(main())
