"""The prompt after a write: does the prompt hook recall what ``ov remember`` just stored?

Two stores (one per ov: the checkout's and, with ``--against REV``, the package as it was at git
revision ``REV``), each seeded through ov's own commands with ~20 resource files and a few
memories, its index built (``ov find``, the built-in model's vectors) and one prompt hook run, so
that hooks have run in its home. Then, ``--rounds`` times, alternating which store goes first:

* ``ov remember "FACT i"`` as a fresh process of ``python -m ov``, timed (wall clock to its exit,
  and its CPU time, which the machine's other work does not inflate; a job it starts is not its
  child and is not counted);
* how long until the index's ``meta.json`` names HEAD (polled every 20 ms, at most 10 s);
* ``ov hook claude prompt-submit`` asking about FACT i ``--gap`` seconds after the write (a
  person's next prompt comes later than that), timed, and whether its block holds the fact
  (``hooks.deadline`` is raised to 30 s: on a loaded machine a hook past 1 s answers nothing,
  which is not what this measures; ``bench/hooks.py`` times the hook);
* then, untimed, until the index is at HEAD again (the hook's own job), so that rounds do not
  overlap.

    .venv/bin/python bench/recall_after_write.py [--rounds 10] [--gap 2] [--against REV]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--gap", type=float, default=2.0, help="seconds from the write's exit to the prompt (default 2)")
    parser.add_argument("--against", help="a git revision whose ov is measured beside the checkout's")
    args = parser.parse_args(argv)
    variants = {"checkout": str(REPO)}
    if args.against:
        old = Path(tempfile.mkdtemp(prefix="ov-bench-rev-"))
        archive = subprocess.run(["git", "-C", str(REPO), "archive", args.against, "ov"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        variants[args.against] = str(old)
    stores = {name: _seed(path) for name, path in variants.items()}
    results: dict[str, dict[str, list]] = {name: {"remember": [], "remember_cpu": [], "caught_up": [], "prompt": [], "recalled": []} for name in variants}
    for i in range(args.rounds):
        order = list(variants) if i % 2 == 0 else list(reversed(variants))
        for name in order:
            env = stores[name]
            fact = f"The quokka enclosure number {i} opens on day {i + 3} of the festival"
            started, cpu = time.monotonic(), _children_cpu()
            _ov(env, "remember", fact)
            wrote = time.monotonic()
            results[name]["remember_cpu"].append((_children_cpu() - cpu) * 1000)
            caught = _until_at_head(env, 10.0)
            results[name]["remember"].append((wrote - started) * 1000)
            results[name]["caught_up"].append(None if caught is None else (caught - wrote) * 1000)
            time.sleep(max(0.0, wrote + args.gap - time.monotonic()))
            started = time.monotonic()
            answer = _hook(env, f"when does quokka enclosure number {i} open?")
            results[name]["prompt"].append((time.monotonic() - started) * 1000)
            results[name]["recalled"].append(f"day {i + 3} of the festival" in answer)
            _until_at_head(env, 30.0)
    print(f"{args.rounds} rounds, prompt {args.gap:g} s after the write; ms: median (min-max)")
    for name, series in results.items():
        caught = [v for v in series["caught_up"] if v is not None]
        line = [
            f"{name:>12}: remember {_summary(series['remember'])}, CPU {_summary(series['remember_cpu'])}",
            f"index at HEAD after {_summary(caught)} ({len(caught)}/{args.rounds} within 10 s)" if caught else "index at HEAD: never within 10 s",
            f"prompt hook {_summary(series['prompt'])}",
            f"recalled {sum(series['recalled'])}/{args.rounds}",
        ]
        print("; ".join(line))
    return 0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _summary(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def _seed(package: str) -> dict:
    root = Path(tempfile.mkdtemp(prefix="ov-bench-recall-"))
    (root / "project" / ".git").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OV_", "OPENVIKING_", "GIT_"))}
    env.update(OV_HOME=str(root / "home"), HOME=str(root / "user"), PYTHONPATH=package, project=str(root / "project"))
    # Whether the prompt recalls the write, not whether a loaded machine answers within 1 s: the
    # hook's own latency is bench/hooks.py's.
    _ov(env, "config", "set", "hooks.deadline", "30")
    for n in range(20):
        _ov(env, "write", f"viking://resources/docs/page{n}.md", "--content", f"# Page {n}\n\nNotes on service number {n}: it deploys with make ship-{n}.\n")
    for fact in ("I prefer tabs over spaces", "My editor is Helix", "We deploy staging from the release branch"):
        _ov(env, "remember", fact)
    _ov(env, "find", "deploys")
    _hook(env, "how does service number 3 deploy?")
    _until_at_head(env, 30.0)
    return env


def _ov(env: dict, *args: str) -> str:
    return subprocess.run([PYTHON, "-m", "ov", *args], env=env, cwd=tempfile.gettempdir(), capture_output=True, check=True, text=True).stdout


def _hook(env: dict, prompt: str) -> str:
    data = json.dumps({"session_id": "bench", "cwd": env["project"], "prompt": prompt})
    out = subprocess.run([PYTHON, "-m", "ov", "hook", "claude", "prompt-submit"], env=env, cwd=tempfile.gettempdir(), input=data, capture_output=True, text=True, check=False).stdout
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else ""


def _until_at_head(env: dict, timeout: float) -> float | None:
    """When the index's meta.json named HEAD (time.monotonic()), or None past ``timeout`` seconds."""
    home = Path(env["OV_HOME"])
    ref = home / "accounts" / "default" / ".git" / "refs" / "heads" / "main"
    meta = home / "state" / "default" / "index" / "meta.json"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if json.loads(meta.read_text())["commit"] == ref.read_text().strip():
                return time.monotonic()
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    return None


if __name__ == "__main__":
    sys.exit(main())
