"""What the prompt hook injects for prompts that steer the work, and for questions about the store.

``silence.py`` measures the cut-off on LoCoMo: questions asked of the right and of the wrong
conversation. It never sees the prompts most of a coding session is made of: "ok do it", "run the
tests again", "that didn't work". Those ask nothing a store could answer, and their words abound in
a store about code. This script loads a store as a developer's would be, the repository's own
source and docs (``git archive`` of ``--rev``, so any checkout can rebuild it), and runs the prompt
hook's own decision (``ov.hosts.recall.prompt`` with the default configuration) on:

* **steering** prompts (``bench/prompts/steering-*.txt``): the share that gets a block (noise);
* **topical** prompts (``bench/prompts/topical-*.tsv``: a prompt, a tab, a part of the path of the
  file that answers it): the share that gets a block, and that gets one naming such a file;
* **recall** prompts (``bench/prompts/recall-*.tsv``), asked of a second store: what a user said to
  remember (``remembered.txt``, through ``ov remember``) and a few notes (``notes/``): questions and
  requests about the user's own memories, people, dates and notes; the share that gets a block.

Who wrote each set, and when it was read, is on its first line: ``*-a`` by the engineer who wrote
the rules (``ov/hosts/topic.py``), while writing them; ``*-b`` and ``*-c`` blind by other authors,
then read to extend the rules; ``steering-d`` blind by a fourth, reported only as its total;
``recall-r`` by a reviewer who had read the rules, to find what they silence; ``steering-e`` and
``topical-d`` by the author of the rule for names (``about``): remarks that mention a file of the
store in passing, and questions and requests about a file they name.

    .venv/bin/python bench/steering.py [--rev HEAD] [--show] [--keep]
"""

from __future__ import annotations

import io
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from common import REPO_ROOT, Report, base_parser, header, open_store, print_table, temp_home

PROMPTS = Path(__file__).parent / "prompts"
STORE_PATHS = ("README.md", "docs", "ov", "tests")


def load_store(home: Path, rev: str):
    """The store of ``home`` holding the repository's source and docs at ``rev``, indexed."""
    from ov.index.sync import Indices
    from ov.ingest.resource import add_resource

    with tempfile.TemporaryDirectory(prefix="ov-steering-src-") as tmp:
        archive = subprocess.run(["git", "-C", str(REPO_ROOT), "archive", "--format=tar", rev, *STORE_PATHS], check=True, capture_output=True).stdout
        src = Path(tmp) / "ov"
        src.mkdir()
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            # git archive of our own tree: trusted; the filter where Python has it (3.11.4+) keeps it quiet.
            tar.extractall(src, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
        store = open_store(home)
        add_resource(store, str(src), to="viking://resources/ov")
    Indices(store).use(lambda opened: None)
    return store


def load_memories(home: Path):
    """The store of ``home`` holding ``remembered.txt`` (each line through ``ov remember``) and ``notes/``, indexed."""
    from ov.index.sync import Indices
    from ov.ingest.resource import add_resource
    from ov.sessions.remember import remember

    store = open_store(home)
    for statement, _ in read_prompts(PROMPTS / "remembered.txt"):
        remember(store, statement)
    add_resource(store, str(PROMPTS / "notes"), to="viking://resources/notes")
    Indices(store).use(lambda opened: None)
    return store


def read_prompts(path: Path) -> list[tuple[str, str | None]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        prompt, _, expected = line.partition("\t")
        rows.append((prompt, expected.strip().lower() or None))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the revision whose source and docs make the store (default: HEAD)")
    parser.add_argument("--show", action="store_true", help="print each prompt that got a block it should not have, or missed one")
    args = parser.parse_args(argv)
    from ov.hosts import recall

    header("bench/steering.py: the prompt hook on steering and topical prompts")
    report = Report("steering", params={"rev": args.rev})
    rows = []
    with temp_home("ov-steering", args.keep) as home:
        store = load_store(home, args.rev)
        hooks = store.config.hooks

        def block(prompt: str):
            return recall.prompt(store, prompt, session_id=None, budget=hooks.prompt_budget, max_chars=hooks.max_chars, min_score=hooks.prompt_min_score)

        for path in sorted(PROMPTS.glob("steering-*.txt")):
            prompts = read_prompts(path)
            noisy = [p for p, _ in prompts if block(p).text]
            rows.append([path.name, len(prompts), f"{100 * len(noisy) / len(prompts):.0f} %", "", ""])
            report.metrics[path.stem] = {"prompts": len(prompts), "injected": len(noisy)}
            if args.show:
                for prompt in noisy:
                    print(f"  {path.name}: injected for {prompt!r}")
        for path in sorted(PROMPTS.glob("topical-*.tsv")):
            prompts = read_prompts(path)
            injected = answered = 0
            for prompt, expected in prompts:
                found = block(prompt)
                injected += bool(found.text)
                hit = bool(found.text) and any(expected in uri.lower() for uri in found.uris)
                answered += hit
                if args.show and not hit:
                    print(f"  {path.name}: no {expected!r} for {prompt!r} ({'a block without it' if found.text else 'nothing'})")
            rows.append([path.name, len(prompts), "", f"{100 * injected / len(prompts):.0f} %", f"{100 * answered / len(prompts):.0f} %"])
            report.metrics[path.stem] = {"prompts": len(prompts), "injected": injected, "answered": answered}
    with temp_home("ov-steering-memories", args.keep) as home:
        store = load_memories(home)
        hooks = store.config.hooks
        for path in sorted(PROMPTS.glob("recall-*.tsv")):
            prompts = read_prompts(path)
            silent = [p for p, _ in prompts if not recall.prompt(store, p, session_id=None, budget=hooks.prompt_budget, max_chars=hooks.max_chars, min_score=hooks.prompt_min_score).text]
            got = len(prompts) - len(silent)
            rows.append([path.name, len(prompts), "", f"{100 * got / len(prompts):.0f} %", ""])
            report.metrics[path.stem] = {"prompts": len(prompts), "injected": got}
            if args.show:
                for prompt in silent:
                    print(f"  {path.name}: nothing for {prompt!r}")
    print_table(["set", "prompts", "steering: got a block", "topical: got a block", "…naming a file that answers"], rows)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
