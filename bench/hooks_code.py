"""The recall hooks on a store that holds a code project: ov's own repository, added with ``add-resource``.

``bench/hooks.py`` times the hooks on 200 generated Markdown files. A user who adds their project
(the common case) gets a store of a different shape: hundreds of code files chunked into
thousands of records, tests that quote the code, a few files of 200 KB. This script builds that
store with ov's own commands and times ``ov hook claude EVENT`` as Claude Code runs it (a fresh
process of the ``ov`` console script, Claude-shaped JSON on stdin; :mod:`hooks`' machinery):

* the tree: this checkout's tracked files under ``ov/``, ``tests/``, ``docs/`` and ``bench/``
  (``git archive HEAD``), added with one ``ov add-resource``, which builds the index's full text
  and leaves its vectors to the job the next prompt starts;
* **during the job**: the first prompt starts the detached vector job; prompts (each the first of
  a new session, so each runs the whole path to an injection) and session starts then go
  round-robin with ``python -c pass`` until the job logs that it ended (at most ``--during``
  rounds). Each prompt's outcome is counted: "timeout" is a prompt that injected nothing;
* **complete**: the index built, ``--reps`` rounds of the same, after ``--warmup`` untimed ones.

The prompts are questions a developer asks about this repository (``bench/prompts/topical-*.tsv``,
the first few of each set) and three about nothing in it (:data:`UNRELATED`), in rotation.

``--against REV`` builds a second store with ov as it was at git revision ``REV`` (first on
``PYTHONPATH``), measures its job the same way, and then runs the complete series of both in
alternating rounds, so the machine's drift hits both alike. Reported: whole-process and in-hook
(the ``ms`` the hook logged) p50/p95, ratios against ``python -c pass`` in the same run, outcomes.

    .venv/bin/python bench/hooks_code.py [--reps 20] [--warmup 2] [--during 40] [--per-set 4] [--against REV]

Children import the ``ov`` of this checkout (its root first on ``PYTHONPATH``): the console
script's editable install may point at another worktree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import common
import hooks

SOURCE_DIRS = ("ov", "tests", "docs", "bench")
RESOURCE_URI = "viking://resources/ov-repo"
# Prompts about nothing in the repository: the cut-off should keep them silent. Not hooks.py's: the
# store holds bench/hooks.py, and found them there word for word. (This file is left out of the tree.)
UNRELATED = ["what wine goes well with grilled salmon?", "plan a three day hiking trip in the Dolomites", "recommend a good novel for a long flight"]
JOB_WAIT_SECONDS = 300.0


def developer_prompts(per_set: int) -> list[str]:
    """The first ``per_set`` questions of each ``bench/prompts/topical-*.tsv``, then the unrelated ones, interleaved."""
    about: list[str] = []
    for path in sorted((common.BENCH_DIR / "prompts").glob("topical-*.tsv")):
        rows = [line.split("\t", 1)[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
        about += rows[:per_set]
    out = list(about)
    for i, prompt in enumerate(UNRELATED):  # spread through the rotation
        out.insert((i + 1) * len(out) // (len(UNRELATED) + 1), prompt)
    return out


def source_tree(dest: Path) -> int:
    """This checkout's tracked files under :data:`SOURCE_DIRS` at HEAD, written below ``dest``, but
    for this script (its unrelated prompts would be found in it); how many."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD", *SOURCE_DIRS], cwd=common.REPO_ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    (dest / "bench" / Path(__file__).name).unlink(missing_ok=True)
    return sum(1 for p in dest.rglob("*") if p.is_file())


@dataclass
class Subject:
    """One ov (this checkout, or ``--against``'s revision) with its own store."""

    label: str
    bench: hooks.Bench
    during: dict[str, hooks.Series] = field(default_factory=hooks.recall_series)
    complete: dict[str, hooks.Series] = field(default_factory=hooks.recall_series)
    job: dict = field(default_factory=dict)
    add_seconds: float = 0.0
    prompt_outcomes: dict[str, Counter] = field(default_factory=lambda: {"during": Counter(), "complete": Counter()})


def make_subject(label: str, root: Path, tree: Path, pythonpath: Path) -> Subject:
    home = root / "home"
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    env = common.bench_env(home) | {"PYTHONPATH": os.pathsep.join(filter(None, [str(pythonpath), os.environ.get("PYTHONPATH")]))}
    session = str(uuid.uuid4())
    transcript = hooks.Transcript(root / "claude" / f"{session}.jsonl", session, project)
    b = hooks.Bench(common.ov_command(), env, home, project, hooks.HookLog(home), session, transcript)
    started = time.perf_counter()
    b.ov_cli("add-resource", str(tree), "--to", RESOURCE_URI)
    subject = Subject(label, b)
    subject.add_seconds = time.perf_counter() - started
    return subject


def recall_round(s: Subject, series: dict[str, hooks.Series] | None, prompt: str, outcomes: Counter | None) -> dict:
    """The baseline, a session start and a prompt (each a new session); the prompt's log line."""
    b = s.bench
    run = b.baseline()
    if series is not None:
        series[hooks.BASELINE].add(run, None)
    run, record = b.hook("session-start", hooks.payload("session-start", str(uuid.uuid4()), b.project, b.project / "none.jsonl"))
    if series is not None:
        series["session-start"].add(run, record)
    run, record = b.hook("prompt-submit", hooks.payload("prompt-submit", str(uuid.uuid4()), b.project, b.transcript.path, prompt))
    if series is not None:
        series["prompt-submit"].add(run, record)
    if outcomes is not None:
        outcomes[_outcome(record)] += 1
    return record


def _outcome(record: dict) -> str:
    outcome = str(record.get("outcome"))
    if outcome.startswith("nothing"):
        return "nothing (" + str(record.get("why") or outcome)[:40] + ")"
    return outcome


def during_job(s: Subject, prompts: list[str], limit: int) -> None:
    """Rounds from the prompt that starts the vector job until the job logs its end (at most ``limit``)."""
    b = s.bench
    rounds = 0
    for rounds in range(limit):
        recall_round(s, s.during, prompts[rounds % len(prompts)], s.prompt_outcomes["during"])
        b.log.new()
        if rounds and b.log.jobs:
            break
    if not b.log.jobs:
        b.log.wait_jobs(1, timeout=JOB_WAIT_SECONDS)
    s.job = {**b.log.jobs[0], "prompts_meanwhile": rounds + 1}
    b.log.jobs = []


def stats_rows(subjects: list[Subject], report: common.Report) -> list[tuple]:
    rows = []
    for s in subjects:
        for phase in ("during", "complete"):
            series = getattr(s, phase)
            base_p50 = common.percentile(series[hooks.BASELINE].wall, 50) * 1000
            for name, one in series.items():
                st = one.stats(None if name == hooks.BASELINE else base_p50)
                in_hook = one.in_hook_ms
                if in_hook:
                    st["in_hook_ms"]["p95"] = common.percentile(in_hook, 95)
                st["ratio_to_python"] = common.ratio(st["p50_ms"], base_p50)
                report.metrics.setdefault(s.label, {}).setdefault(phase, {})[name] = st
                rows.append((f"{name} [{s.label}, {phase}]", st["n"], st["p50_ms"], st["p95_ms"],
                             st.get("in_hook_ms", {}).get("p50", float("nan")), st.get("in_hook_ms", {}).get("p95", float("nan")),
                             st["ratio_to_python"]))
    return rows


def main() -> int:
    parser = common.base_parser(__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=20, help="timed rounds with the index complete")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--during", type=int, default=40, help="at most this many rounds while the vector job runs")
    parser.add_argument("--per-set", type=int, default=4, help="questions taken from each topical-*.tsv")
    parser.add_argument("--against", metavar="REV", help="also measure ov at git revision REV, each on a store of its own")
    args = parser.parse_args()
    common.header("ov hook claude on a store holding ov's own repository")
    report = common.Report("hooks_code", params=vars(args) | {"source_dirs": SOURCE_DIRS})
    prompts = developer_prompts(args.per_set)
    report.params["prompts"] = prompts

    with common.temp_home("ov-hooks-code", args.keep) as tmp:
        tree = tmp / "src" / "ov-repo"
        files = source_tree(tree)
        report.params["files"] = files
        plan = [("checkout", common.REPO_ROOT)]
        if args.against:
            plan.insert(0, (args.against, common.ov_at_revision(args.against)))
        subjects = []
        for label, path in plan:
            s = make_subject(label, tmp / label.replace("/", "_"), tree, path)
            print(f"[{label}] add-resource of {files} files in {s.add_seconds:.1f} s; prompts while the vector job runs ...", flush=True)
            during_job(s, prompts, args.during)
            print(f"[{label}] job: {s.job.get('outcome')} in {float(s.job.get('ms', 0)) / 1000:.1f} s, {s.job.get('records')} records, "
                  f"{s.job['prompts_meanwhile']} rounds meanwhile", flush=True)
            subjects.append(s)
        for rep in range(args.warmup + args.reps):
            for s in subjects if rep % 2 == 0 else reversed(subjects):
                timed = rep >= args.warmup
                recall_round(s, s.complete if timed else None, prompts[rep % len(prompts)], s.prompt_outcomes["complete"] if timed else None)

        common.print_table(
            ("hook [ov, index]", "n", "p50 ms", "p95 ms", "in-hook p50 ms", "in-hook p95 ms", "p50 / python"),
            stats_rows(subjects, report),
            title="Whole-process wall time and the ms the hook logged (during: the vector job running)",
        )
        for s in subjects:
            report.metrics[s.label]["add_resource_s"] = s.add_seconds
            report.metrics[s.label]["job"] = s.job
            for phase, outcomes in s.prompt_outcomes.items():
                report.metrics[s.label][phase]["prompt_outcomes"] = dict(outcomes)
                print(f"  prompt-submit [{s.label}, {phase}]: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
        if len(subjects) == 2:
            old, new = subjects
            for phase in ("during", "complete"):
                for name in ("session-start", "prompt-submit"):
                    a = report.metrics[old.label][phase][name].get("in_hook_ms", {}).get("p50")
                    z = report.metrics[new.label][phase][name].get("in_hook_ms", {}).get("p50")
                    ratio = common.ratio(z, a) if a and z else float("nan")
                    report.metrics.setdefault("checkout_vs_against_in_hook_p50", {})[f"{name} [{phase}]"] = ratio
                    print(f"  in-hook p50 checkout / {old.label} [{phase}] {name}: {ratio:.2f}")
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
