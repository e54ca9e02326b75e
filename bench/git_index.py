"""Cost of keeping ``.git/index`` in step with one commit, by store size.

Every ov commit updates the git index entries of the paths it touched (so plain ``git status``
in an account tells the truth). ``ov.store.gitindex.update`` splices the raw file: the other entries are
copied as bytes. The baseline, measured in the same run on the same index files, is what dulwich
costs for the same update (parse every entry into an object, set one, write them all).

For each size an index of N entries is written once; then each repetition replaces one entry
and adds one (a write of a new file beside a changed one), with each method in turn.

    .venv/bin/python bench/git_index.py [--sizes 1000,10000,100000] [--reps 20]
"""

from __future__ import annotations

import os
import shutil

import common


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="index entries (default 1000,10000,100000)")
    parser.add_argument("--reps", type=int, default=20, help="timed updates per size and method (default 20)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    common.header("git_index: one commit's update of .git/index, splice vs dulwich")

    from dulwich.index import Index, index_entry_from_stat

    from ov.store import gitindex

    report = common.Report("git_index", params=vars(args) | {"sizes": sizes})
    rows = []
    with common.temp_home("ov-bench-index", keep=args.keep) as root:
        worktree = root / "work"
        (worktree / ".git").mkdir(parents=True)
        (worktree / "resources").mkdir()
        changed = worktree / "resources" / "changed.md"
        changed.write_bytes(b"changed\n")
        st = os.lstat(changed)
        sha = "ab" * 20
        for size in sizes:
            seed = Index(str(root / f"seed-{size}"), read=False)
            zero = os.stat_result((0o100644,) + (0,) * 9)
            for i in range(size):
                seed[f"resources/d{i // 100:04d}/f{i:06d}.md".encode()] = index_entry_from_stat(zero, b"cd" * 20)
            seed.write()
            target = worktree / ".git" / "index"
            splice, full = [], []
            for rep in range(args.reps):
                shutil.copyfile(root / f"seed-{size}", target)
                blobs = {"resources/changed.md": sha, f"resources/d0000/f{rep:06d}.md": sha}
                splice.append(common.time_call(lambda: gitindex.update(worktree / ".git", worktree, blobs, None))[0])
                shutil.copyfile(root / f"seed-{size}", target)

                def with_dulwich() -> None:
                    index = Index(str(target))
                    for path, blob in blobs.items():
                        index[path.encode()] = index_entry_from_stat(st, bytes(blob, "ascii"))
                    index.write()

                full.append(common.time_call(with_dulwich)[0])
            s, f = common.summarize(splice), common.summarize(full)
            report.metrics[f"{size}_splice"] = s
            report.metrics[f"{size}_dulwich"] = f
            rows.append((f"{size} entries", s["p50_ms"], s["p90_ms"], f["p50_ms"], f["p90_ms"], common.ratio(f["p50_ms"], s["p50_ms"])))
    common.print_table(("index", "splice p50 ms", "splice p90 ms", "dulwich p50 ms", "dulwich p90 ms", "dulwich / splice"), rows)
    report.write_json()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
