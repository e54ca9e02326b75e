"""Cold-process start-up: ``ov --help`` and ``ov ls`` against ``python -c pass``.

Every sample is a new process (``subprocess.run``, output captured, the OS page
cache warm after the untimed warm-up runs). The commands are run round-robin so
that machine noise hits them alike; ``python -c pass`` from the same
interpreter is the baseline, so the ratio shows what ov adds on top of starting
Python at all. ``ov ls`` lists a directory of 20 files in a small seeded store
(``OV_HOME`` points at a temporary home; no config file).

Issue target: p50 <= 150 ms for both ov commands.

    .venv/bin/python bench/startup.py [--reps 20] [--breakdown] [--no-compare-source] [--against REV]

``--breakdown`` also measures, inside fresh processes, how long importing
``ov.cli.main`` and running the command take, and runs each ov command under
``python -X importtime`` to show where import time goes, per package (per
module for ov itself).

Child processes load modules from a private ``.pyc`` cache, as an installed
package would (``--bytecode cached``). ``--bytecode source`` compiles ov's own
modules from source in every process, which is what a checkout without
``__pycache__`` costs when ``PYTHONDONTWRITEBYTECODE=1`` is set; by default the
two ov commands are also timed that way, in the same round-robin, for
comparison (``--no-compare-source`` skips it). ``--against REV`` also times
both commands with ov's package as it was at git revision ``REV`` (same
interpreter and dependencies), in the same round-robin: a change measured
against its parent in one run. Targets are checked on the primary series only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

import common

TARGET_P50_MS = 150.0
LS_DIR = "viking://resources/seed/d00"


def python_argv(ov_argv: list[str], flags: list[str]) -> list[str]:
    """``ov_argv`` run by this interpreter with extra interpreter ``flags`` (e.g. ``-X importtime``)."""
    if ov_argv[0] == sys.executable:
        return [sys.executable, *flags, *ov_argv[1:]]
    return [sys.executable, *flags, *ov_argv]  # the console script is a Python file


def import_times(argv: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """Median self import time (ms) per package (per module for ov) over ``runs`` runs of ``argv`` under ``-X importtime``.

    "Self" time includes running the module's top-level code, e.g. building the
    typer app in ``ov.cli.main``.
    """
    per_run: list[dict[str, float]] = []
    for _ in range(runs):
        run = common.run_timed(python_argv(argv, ["-X", "importtime"]), env)
        totals: dict[str, float] = defaultdict(float)
        for line in run.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            _, self_us, _cumulative, name = (part.strip() for part in line.replace("import time:", "|", 1).split("|"))
            top = name.split(".")[0]
            totals[name if top == "ov" else top] += int(self_us) / 1000.0  # ov per module, others per package
        per_run.append(totals)
    names = set().union(*per_run)
    return {name: common.percentile([run.get(name, 0.0) for run in per_run], 50) for name in names}


# Run inside a fresh interpreter: how long importing the CLI and running one command take.
PHASE_PROBE = (
    "import time\n"
    "t0 = time.perf_counter()\n"
    "import contextlib, io, json, sys\n"
    "from ov.cli.main import run\n"
    "t1 = time.perf_counter()\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    code = run(sys.argv[1:])\n"
    "t2 = time.perf_counter()\n"
    "print(json.dumps({'import': t1 - t0, 'run': t2 - t1, 'code': code, 'modules': len(sys.modules)}))\n"
)


def phases(args_: list[str], env: dict[str, str], runs: int) -> dict[str, float]:
    """Median ms to import ``ov.cli.main`` and to run the command, measured inside ``runs`` fresh processes."""
    got = [json.loads(common.run_timed([sys.executable, "-c", PHASE_PROBE, *args_], env).stdout) for _ in range(runs)]
    return {
        "import_ov_cli_main_ms": common.percentile([g["import"] * 1000 for g in got], 50),
        "run_command_ms": common.percentile([g["run"] * 1000 for g in got], 50),
        "modules_loaded": got[-1]["modules"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="timed runs per command (default 20)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed runs per command first (default 2)")
    parser.add_argument("--files", type=int, default=200, help="files in the seeded store (default 200)")
    parser.add_argument(
        "--compare-source",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time both ov commands with ov's modules compiled from source each run (default: on)",
    )
    parser.add_argument("--against", metavar="REV", help="also time both ov commands with ov's package at git revision REV")
    parser.add_argument("--breakdown", action="store_true", help="also measure import vs run time and -X importtime per package")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header("startup: cold-process ov --help / ov ls vs python -c pass")

    ov = common.ov_command()
    report = common.Report("startup", params=vars(args) | {"ov_command": ov, "ls_uri": LS_DIR})
    with common.temp_home("ov-bench-startup", keep=args.keep) as home:
        store = common.open_store(home)
        common.seed_store(store, args.files, fanout=10, depth=1)
        env = common.bench_env(home, args.bytecode)
        baseline = "python -c pass"
        primary = {"ov --help": [*ov, "--help"], f"ov ls {LS_DIR}": [*ov, "ls", LS_DIR]}
        # name -> (argv, environment)
        commands = {baseline: ([sys.executable, "-c", "pass"], env)} | {name: (argv_, env) for name, argv_ in primary.items()}
        if args.compare_source and args.bytecode != "source":
            source_env = common.bench_env(home, "source")
            commands |= {f"{name}  [ov from source]": (argv_, source_env) for name, argv_ in primary.items()}
        if args.against:
            old_env = env | {"PYTHONPATH": os.pathsep.join(filter(None, [str(common.ov_at_revision(args.against)), env.get("PYTHONPATH")]))}
            commands |= {f"{name}  [at {args.against}]": (argv_, old_env) for name, argv_ in primary.items()}
        for name, (_, cmd_env) in commands.items():  # each series must run the ov it names
            if name != baseline:
                where = common.run_timed([sys.executable, "-c", "import ov; print(ov.__file__)"], cmd_env).stdout.strip()
                report.params.setdefault("ov_package", {})[name] = where
        for name, (command, cmd_env) in commands.items():
            if name.startswith("ov ls"):
                listed = common.run_timed(command, cmd_env).stdout.split()
                if len(listed) != args.files // 10:
                    raise RuntimeError(f"{name} listed {len(listed)} entries, expected {args.files // 10}")

        samples: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for rep in range(args.warmup + args.reps):
            for name, (command, cmd_env) in commands.items():  # round-robin: noise hits every series alike
                run = common.run_timed(command, cmd_env)
                if rep >= args.warmup:
                    samples[name].append(run.wall)
                    cpu[name].append(run.cpu)

        base_p50 = common.percentile(samples[baseline], 50) * 1000
        rows = []
        for name, series in samples.items():
            stats = common.summarize(series)
            stats["ratio_p50_vs_python"] = common.ratio(stats["p50_ms"], base_p50)
            stats["over_python_p50_ms"] = stats["p50_ms"] - base_p50
            stats["cpu"] = common.summarize(cpu[name])
            report.metrics[name] = stats
            rows.append((name, stats["n"], stats["min_ms"], stats["p50_ms"], stats["p90_ms"], stats["max_ms"], stats["ratio_p50_vs_python"], stats["over_python_p50_ms"], stats["cpu"]["p50_ms"]))
        common.print_table(
            ("command", "n", "min ms", "p50 ms", "p90 ms", "max ms", "p50 / python", "p50 - python ms", "cpu p50 ms"),
            rows,
            title=f"Cold-process wall time (bytecode: {args.bytecode}; cpu = the process's own user+sys time)",
        )
        for name in primary:
            report.targets.append(common.Target(f"p50 {name}", report.metrics[name]["p50_ms"], TARGET_P50_MS))

        if args.breakdown:
            runs = 5
            report.metrics["phases"] = {}
            report.metrics["importtime_ms_by_package"] = {}
            phase_rows = []
            for name, command in primary.items():
                ph = phases(command[len(ov):], env, runs)
                report.metrics["phases"][name] = ph
                phase_rows.append((name, base_p50, ph["import_ov_cli_main_ms"], ph["run_command_ms"], report.metrics[name]["p50_ms"], ph["modules_loaded"]))
            common.print_table(
                ("command", "python -c pass p50", "import ov.cli.main", "run command", "whole process p50", "modules"),
                phase_rows,
                title=f"Where the time goes (ms; import and run are medians of {runs} in-process measurements)",
            )
            for name, command in primary.items():
                times = import_times(command, env, runs)
                report.metrics["importtime_ms_by_package"][name] = times
                top = sorted(times.items(), key=lambda item: item[1], reverse=True)[:15]
                common.print_table(
                    ("package / ov module", "self import ms (median)"),
                    [*top, ("TOTAL (all packages)", sum(times.values()))],
                    title=f"-X importtime: {name} ({runs} runs; importtime itself adds overhead)",
                    digits=1,
                )

    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
