"""Questions about code: does ``find`` put the file that answers first?

A coding agent asks about a project it added with ``ov add-resource`` ("how does the prompt
hook decide to skip a prompt?"): the answer is a file, and the agent reads what comes first.
Each project folder is copied into a temporary folder (without ``.git``, virtualenvs and
caches: a folder inside a virtualenv is skipped by design) and added with the real
``add_resource`` to a fresh ``OV_HOME`` store, one store per project; the first search builds
the index (with the built-in model's vectors where it is installed). Each question is then asked
of its project's store in three tiers:

* ``hook``: as the prompt hook asks it (``ov.hosts.topic.about``, then ``search`` with no
  planner, full text only: :func:`ov.hosts.recall.prompt`);
* ``lexical``: ``ov find`` without vectors (``FindOptions(lexical_only=True)``);
* ``default``: ``ov find`` as it runs by default (vectors where the store has them).

A hit is a result inside an expected file (or below an expected folder); a directory's
summary (L0/L1) is never one. Per kind of question and in all: hit@1, hit@5 and MRR over the
first 10 results.

Input: a JSON list of ``{"repo", "question", "answers": [paths relative to the repo],
"kind"}``, and where each repo is (``--repo NAME=FOLDER``, repeatable, or ``--repos`` a JSON
object NAME -> FOLDER).

    .venv/bin/python bench/code_questions.py bench/prompts/code-questions.json \\
        --repo ov=/work/main --repo typer=/work/main/.venv/lib/python3.11/site-packages/typer
        [--set retrieval.phrase_weight=0 ...] [--grid retrieval.KEY=V1,V2 ...] [--show-misses]
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import tempfile
from collections import defaultdict
from pathlib import Path

import common

LIMIT = 10
TIERS = ("hook", "lexical", "default")
# Not the project's own files: version control, virtualenvs, caches, build output (a folder that
# is a git checkout is copied as git tracks it instead).
IGNORED = (".git", ".venv", "venv", "__pycache__", "*.pyc", ".mypy_cache", ".pytest_cache", ".ruff_cache", "node_modules", "*.egg-info")


def load_questions(path: Path) -> list[dict]:
    questions = json.loads(path.read_text(encoding="utf-8"))
    for q in questions:
        missing = {"repo", "question", "answers"} - q.keys()
        if missing:
            raise SystemExit(f"{path}: a question lacks {', '.join(sorted(missing))}: {q}")
        q.setdefault("kind", "all")
    return questions


def repo_folders(pairs: list[str], mapping: Path | None) -> dict[str, Path]:
    folders = {name: Path(folder) for name, folder in json.loads(mapping.read_text(encoding="utf-8")).items()} if mapping else {}
    for pair in pairs:
        name, sep, folder = pair.partition("=")
        if not sep:
            raise SystemExit(f"--repo takes NAME=FOLDER, not {pair!r}")
        folders[name] = Path(folder)
    return folders


class Located:
    """Store URI of a hit -> the path relative to the project it was added from (the manifest)."""

    def __init__(self, store, root_uri: str) -> None:
        from ov.ingest.resource import MANIFEST

        manifest = json.loads((store.path(store.uri(root_uri)) / MANIFEST).read_text(encoding="utf-8"))
        self.by_uri = {entry["uri"]: rel for rel, entry in manifest.get("files", {}).items()}
        self.prefix = root_uri.rstrip("/") + "/"

    def __call__(self, uri: str, level: int) -> str | None:
        if level < 2:
            return None  # a directory's summary: not a file the agent can read the answer in
        return self.by_uri.get(uri) or (uri[len(self.prefix):] if uri.startswith(self.prefix) else None)


def answered(path: str | None, answers: list[str]) -> bool:
    if path is None:
        return False
    return any(path == a or path.startswith(a.rstrip("/") + "/") for a in answers)


def first_hit(paths: list[str | None], answers: list[str]) -> int | None:
    return next((i for i, p in enumerate(paths, 1) if answered(p, answers)), None)


def ask(store, indices, tier: str, question: str) -> list:
    from ov.retrieval.find import FindOptions, find

    if tier == "hook":
        from ov.hosts.topic import about
        from ov.retrieval.search import SearchOptions, search

        options = SearchOptions(limit=LIMIT, planner=False, full_text_only=True)
        return search(store, about(question), options, indices=indices).hits
    return find(store, question, FindOptions(limit=LIMIT, lexical_only=tier == "lexical"), indices=indices).hits


def scores(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {
        "hit@1": sum(1 for r in ranks if r == 1) / n,
        "hit@5": sum(1 for r in ranks if r is not None and r <= 5) / n,
        "MRR": sum(1.0 / r for r in ranks if r) / n,
        "n": len(ranks),
    }


def evaluate(stores: dict, questions: list[dict], tiers: tuple[str, ...]) -> tuple[dict, list[dict]]:
    """Per tier, per kind (and ``all``): hit@1, hit@5, MRR; and each question's first results."""
    summary: dict[str, dict] = {}
    detail = [dict(q, results={}) for q in questions]
    for tier in tiers:
        by_kind: dict[str, list[int | None]] = defaultdict(list)
        for q, row in zip(questions, detail, strict=True):
            store, indices, located = stores[q["repo"]]
            hits = ask(store, indices, tier, q["question"])
            paths = [located(h.uri, h.level) for h in hits]
            rank = first_hit(paths, q["answers"])
            by_kind[q["kind"]].append(rank)
            by_kind["all"].append(rank)
            row["results"][tier] = {"rank": rank, "top": [p or h.uri for p, h in zip(paths, hits, strict=True)][:5]}
        summary[tier] = {kind: scores(ranks) for kind, ranks in sorted(by_kind.items())}
    return summary, detail


def copy_project(folder: Path, into: Path) -> Path:
    """``folder`` copied into ``into``: the files git tracks in a checkout, else all but :data:`IGNORED`."""
    target = into / folder.name
    tracked = subprocess.run(["git", "-C", str(folder), "ls-files", "-z"], capture_output=True, check=False)
    if tracked.returncode != 0 or not tracked.stdout:
        shutil.copytree(folder, target, ignore=shutil.ignore_patterns(*IGNORED), symlinks=True)
        return target
    for rel in filter(None, tracked.stdout.decode().split("\0")):
        source = folder / rel
        if source.is_file() and not source.is_symlink():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / rel)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path, help="JSON list of {repo, question, answers, kind}")
    parser.add_argument("--repo", action="append", default=[], metavar="NAME=FOLDER", help="where a repo of the questions is (repeatable)")
    parser.add_argument("--repos", type=Path, default=None, help="JSON object NAME -> FOLDER")
    parser.add_argument("--tiers", default=",".join(TIERS), help=f"tiers to run (default {','.join(TIERS)})")
    parser.add_argument("--embedder", default="auto", help="auto (default: the built-in model where installed), none, hash, builtin, ...")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE", help="config override (repeatable)")
    parser.add_argument("--grid", action="append", default=[], metavar="retrieval.KEY=V1,V2", help="query-time retrieval.* values to try on the same stores (repeatable)")
    parser.add_argument("--show-misses", action="store_true", help="print each question whose answer is not first, with the first results")
    args = parser.parse_args(argv)

    common.preload_retrieval()
    from ov.config import Config
    from ov.index.sync import Indices
    from ov.ingest.resource import add_resource

    questions = load_questions(args.questions)
    folders = repo_folders(args.repo, args.repos)
    unknown = sorted({q["repo"] for q in questions} - folders.keys())
    if unknown:
        raise SystemExit(f"no folder for {', '.join(unknown)}: pass --repo NAME=FOLDER")
    tiers = tuple(t for t in args.tiers.split(",") if t)
    assignments = common.embedder_assignments(args.embedder) + [common.parse_assignment(s) for s in args.sets]
    config = common.config_with(Config(), assignments)
    common.header(f"code questions: {len(questions)} from {args.questions.name}, first file among find's results")
    report = common.Report("code-questions-" + args.questions.stem, params={k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()})
    report.params.update(git=common.git_state(), config_overrides=assignments, questions=len(questions))

    grid = [[(key, v) for v in values.split(",") if v] for key, values in map(common.parse_assignment, args.grid)]
    combos = [dict(c) for c in itertools.product(*grid)] if grid else [{}]
    work = Path(tempfile.mkdtemp(prefix="ov-bench-code-src-"))
    homes = []
    try:
        stores = {}
        for name in sorted({q["repo"] for q in questions}):
            source = copy_project(folders[name], work / name)
            home = Path(tempfile.mkdtemp(prefix=f"ov-bench-code-{name}-"))
            homes.append(home)
            store = common.open_store_as(home, None, config)
            added_s, added = common.time_call(lambda store=store, source=source, name=name: add_resource(store, str(source), to=f"viking://resources/{name}"))
            indices = Indices(store)
            index_s, opened = common.time_call(indices.open)
            print(f"{name}: {len(added.added)} files in {added_s:.1f} s; index {index_s:.1f} s, {opened.meta.records} records, mode {opened.mode}")
            report.metrics.setdefault("build", {})[name] = {"files": len(added.added), "records": opened.meta.records, "mode": opened.mode}
            stores[name] = (store, indices, Located(store, added.root))
        for combo in combos:
            if combo:
                for store, *_ in stores.values():
                    store.config = common.config_with(config, list(combo.items()))
            summary, detail = evaluate(stores, questions, tiers)
            label = " ".join(f"{k}={v}" for k, v in combo.items()) or "as configured"
            kinds = sorted({k for tier in summary.values() for k in tier}, key=lambda k: (k == "all", k))
            rows = [[tier, kind, s["n"], s["hit@1"], s["hit@5"], s["MRR"]] for tier in tiers for kind in kinds if (s := summary[tier].get(kind))]
            common.print_table(["tier", "kind", "n", "hit@1", "hit@5", "MRR"], rows, title=label, digits=3)
            report.metrics.setdefault("runs", []).append({"config": combo, "summary": summary, "questions": detail})
            if args.show_misses:
                for row in detail:
                    for tier, got in row["results"].items():
                        if got["rank"] != 1:
                            print(f"  [{tier}] rank {got['rank']}: {row['question']}  (want {', '.join(row['answers'])})\n      got {got['top']}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        for home in homes:
            if args.keep:
                print(f"(kept {home})")
            else:
                shutil.rmtree(home, ignore_errors=True)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
