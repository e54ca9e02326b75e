"""A change of a known tool's kind, or of a value, on a long profile: what ``ov remember`` pays.

"I switched to Emacs" names no key; its value is an editor, so it replaces the stored line of the
editor's key and every line saying the user uses another editor (:mod:`ov.sessions.memory.kinds`):
some 270 probes (each other editor under each lead), matched against every line of the profile. A
profile of a few thousand lines (years of ``ov remember``, or an import) made that seconds. Each run
stores a fresh profile of ``--lines`` lines, then times one ``remember`` of each statement, in-process.

    .venv/bin/python bench/kind_switch.py [--lines 3000] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import common

STATEMENTS = (
    "I switched to Emacs",  # a kind's switch: every other editor's lines under every lead
    "We switched from Jenkins to Buildkite",  # a swap: every line naming Jenkins
    "My shell is fish",  # a key: its line, and the lines of the shell kind
)


def profile(lines: int) -> str:
    """A profile as years of use leave it: key lines, tools used, projects worked on, in turn."""
    tools = ("Neovim", "Jenkins", "Postgres 15", "pnpm", "Kotlin", "Terraform", "Grafana")
    out = ["- Name: Ada", "- Editor: Neovim", "- Shell: zsh", "- Works at Acme", "- Lives in Porto"]
    for i in range(lines - len(out)):
        kind = i % 4
        if kind == 0:
            out.append(f"- Works on the service-{i:04d} repository with Python and Postgres")
        elif kind == 1:
            out.append(f"- Uses {tools[i % len(tools)]} for project-{i:04d}")
        elif kind == 2:
            out.append(f"- Team {i:04d} runs nightly builds on Jenkins")
        else:
            out.append(f"- Prefers reviews of project-{i:04d} before noon")
    return "\n".join(out)


def run(lines: int, runs: int) -> dict[str, list[float]]:
    from ov.sessions.memory.files import render_memory
    from ov.sessions.remember import remember
    from ov.uri import parse

    meta = {"created_at": "2026-01-01T00:00:00Z", "memory_type": "profile", "sources": ["bench"],
            "updated_at": "2026-01-01T00:00:00Z", "version": 1}
    text = render_memory(profile(lines), meta).encode()
    times: dict[str, list[float]] = {s: [] for s in STATEMENTS}
    for _ in range(runs):
        for statement in STATEMENTS:
            with tempfile.TemporaryDirectory(prefix="ov-bench-kind-") as tmp:
                store = common.open_store(Path(tmp))
                store.write(parse("viking://user/default/memories/profile.md"), text)
                start = time.process_time()
                remember(store, statement)
                times[statement].append(time.process_time() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    for statement, seconds in run(args.lines, args.runs).items():
        print(f"{args.lines} lines: {statement!r}: median {statistics.median(seconds):.2f} s of CPU (runs: {', '.join(f'{s:.2f}' for s in seconds)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
