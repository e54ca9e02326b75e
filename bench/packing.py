"""Packing loose objects: a store of captured sessions with automatic packing off and on, one
packing run, and an old store of ~100,000 loose objects caught up run by run.

1. **off vs on**: two stores get the same ``--commits`` (3,000) captures, as the capture hook's
   job makes them: each commit stores a session's whole ``messages.jsonl`` again with one more
   turn (~600 bytes of words zlib cannot shrink much) and its ``.abstract.md``; a new session
   starts every ``--turns`` (50) commits. The second store runs :func:`ov.store.packing.pack_after_write`
   after each commit, as a command or a job that wrote does (threshold ``store.auto_pack_loose``,
   default 6,700). Then: the size of ``.git``, the loose objects and packs, and the medians of
   ``--reps`` (5) runs of ``ov status``, ``ov fsck`` and ``ov read`` of the last session's file,
   each a separate process, the stores' runs taken in turn; and the same for a copy of the second
   store with every loose object packed.
2. **one run**: the packing runs the second store made while it grew (objects, ms each).
3. **catch-up**: a store whose history holds ``--catchup`` (100,000) loose objects (written
   directly as loose files: a commit a turn, as above, without the work tree) is packed by
   :func:`ov.store.packing.auto_pack` as the detached packer of successive commands runs it
   (runs for up to ``CATCH_UP_SECONDS``, folding at the default ``store.auto_pack_limit``) until
   it has nothing to do: how many commands and runs, how long each command's packer took, the
   size of ``.git`` before and after, ``ov status`` before and after.
4. **a command's wait**: ``ov write`` on copies of a store of 10,000 loose objects, where a
   packing run is due, and with packing off; with ``--before REV``, the same for ov at that
   revision (which ran the packing before exiting).
5. **folding**: every pack of the caught-up store folded into one, as a run at
   ``store.auto_pack_limit`` does, and the same for a store of ``--fold-large`` (400,000)
   objects in packs of 3,000: packs, MB and time.

    .venv/bin/python bench/packing.py [--commits 3000] [--turns 50] [--reps 5] [--catchup 100000] [--fold-large 400000] [--before REV] [--quick]
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import statistics
import time
from pathlib import Path

import common

PACK_OBJECTS = 3000  # ov.store.packing.PACK_OBJECTS: a packer's pack

SESSION = "viking://user/default/sessions/s-{:04d}"


def said(turn: int) -> str:
    """About 600 bytes of a turn: short words from hashes, which zlib cannot squeeze much."""
    digests = "".join(hashlib.sha256(f"{turn}-{part}".encode()).hexdigest() for part in range(12))
    return " ".join(digests[i : i + 6] for i in range(0, len(digests), 6))


def session_lines(turn: int, turns: int) -> bytes:
    first = turn - turn % turns
    return "".join(json.dumps({"role": "user" if i % 2 else "assistant", "turn": i, "text": said(i)}) + "\n" for i in range(first, turn + 1)).encode()


def capture(store, turn: int, turns: int) -> None:
    session = store.uri(SESSION.format(turn // turns))
    with store.transaction() as tx:
        tx.put(store.uri(f"{session}/messages.jsonl"), session_lines(turn, turns))
        tx.put(store.uri(f"{session}/.abstract.md"), f"A session of {turn % turns + 1} turns about packing.\n".encode())
        tx.commit("capture", [session])


def git_bytes(root: Path) -> int:
    return sum(path.stat().st_size for path in (root / ".git").rglob("*") if path.is_file())


def object_counts(root: Path) -> tuple[int, int]:
    objects = root / ".git" / "objects"
    loose = sum(1 for d in objects.iterdir() if len(d.name) == 2 for f in d.iterdir() if len(f.name) == 38)
    return loose, len(list((objects / "pack").glob("*.pack")))


def command_ms(homes: list[Path], argv: list[str], reps: int) -> list[float]:
    """The median ms of ``ov ARGV`` in each of ``homes``, their runs taken in turn (so that a
    change of the machine's load falls on all of them alike)."""
    envs = [common.bench_env(home) for home in homes]
    for env in envs:
        common.run_timed([*common.ov_command(), *argv], env)  # warm: bytecode and page cache
    seconds: list[list[float]] = [[] for _ in homes]
    for _ in range(reps):
        for env, samples in zip(envs, seconds, strict=True):
            samples.append(common.run_timed([*common.ov_command(), *argv], env).wall)
    return [statistics.median(samples) * 1000 for samples in seconds]


def grow(home: Path, commits: int, turns: int, pack: bool) -> list:
    from ov.store.packing import pack_after_write

    store = common.open_store(home)
    runs = []
    for turn in range(commits):
        capture(store, turn, turns)
        if pack:
            run = pack_after_write(store)
            if run is not None:
                runs.append(run)
    return runs


def measure_stores(homes: list[Path], last: str, reps: int) -> list[dict]:
    out = []
    for home in homes:
        root = home / "accounts" / "default"
        loose, packs = object_counts(root)
        out.append({"git_mb": git_bytes(root) / 1e6, "loose_objects": loose, "packs": packs})
    for key, argv in (("status_ms", ["status"]), ("fsck_ms", ["fsck"]), ("read_ms", ["read", last])):
        for measured, ms in zip(out, command_ms(homes, argv, reps), strict=True):
            measured[key] = ms
    return out


def loose_history(home: Path, objects: int, turns: int) -> int:
    """A store whose history of a commit a turn holds about ``objects`` loose objects, written
    directly (no work tree, no flush): an old store ov never packed. Its commits."""
    from dulwich.objects import Blob, Tree

    from ov.store.gitstore import BRANCH

    store = common.open_store(home)
    capture(store, 0, turns)  # the repository, its first commit and work tree
    git = store.git
    folder = Path(git.repo.object_store.path)
    parent = git.head()
    made = commits = 0

    def put(obj) -> None:
        nonlocal made
        sha = obj.id.decode()
        (folder / sha[:2]).mkdir(exist_ok=True)
        (folder / sha[:2] / sha[2:]).write_bytes(obj.as_legacy_object())
        made += 1

    turn = 1
    while made < objects:
        session = Tree()
        for name, data in ((b"messages.jsonl", session_lines(turn, turns)), (b".abstract.md", f"A session of {turn % turns + 1} turns.\n".encode())):
            blob = Blob.from_string(data)
            put(blob)
            session.add(name, 0o100644, blob.id)
        put(session)
        child, name = session, f"s-{turn // turns:04d}".encode()
        for folder_name in (b"sessions", b"default", b"user"):
            tree = Tree()
            tree.add(name, 0o040000, child.id)
            put(tree)
            child, name = tree, folder_name
        root = Tree()
        root.add(name, 0o040000, child.id)
        put(root)
        commit = git.make_commit(root.id, [parent], f"capture turn {turn}", store.author)
        put(commit)
        parent = commit.id
        commits += 1
        turn += 1
    first = git.head()
    git.repo.refs.set_if_equals(BRANCH, first, parent)
    # The work tree as HEAD has it: the last session's files, not the first's.
    paths = [f"user/default/sessions/s-{n:04d}/{name}" for n in {0, (turn - 1) // turns} for name in ("messages.jsonl", ".abstract.md")]
    git._restore_paths(git.tree_of(parent), paths)
    git.sync_index(git.tree_of(parent), paths)
    return commits


def catch_up(home: Path, objects: int, turns: int, reps: int) -> dict:
    from ov.store import packing
    from ov.store.gitstore import GitStore

    commits = loose_history(home, objects, turns)
    root = home / "accounts" / "default"
    before = {"git_mb": git_bytes(root) / 1e6, "loose_objects": object_counts(root)[0], "status_ms": command_ms([home], ["status"], reps)[0]}
    runs = []
    while True:
        git = GitStore(root, home / "state" / "default")  # a command's store each time
        started = time.perf_counter()
        run = packing.auto_pack(git, 6700, 50, seconds=packing.CATCH_UP_SECONDS)
        elapsed = time.perf_counter() - started
        git.repo.close()
        if run is None:
            break
        runs.append({"objects": run.packed + run.dropped, "ms": elapsed * 1000, "runs": run.runs})
    after = {"git_mb": git_bytes(root) / 1e6, "loose_objects": object_counts(root)[0], "packs": object_counts(root)[1], "status_ms": command_ms([home], ["status"], reps)[0]}
    return {"commits": commits, "before": before, "after": after, "runs": runs}


def fold_all(home: Path) -> dict:
    """Fold every pack of the store in ``home`` into one (:func:`ov.store.packfold.fold`), as a
    run at the pack limit does: packs, size and time, and ``ov read`` of a file before and after."""
    from ov.store import packfold
    from ov.store.gitstore import GitStore

    root = home / "accounts" / "default"
    pack_dir = root / ".git" / "objects" / "pack"
    bases = sorted(str(p.with_suffix("")) for p in pack_dir.glob("*.idx"))
    before = {"packs": len(bases), "pack_mb": sum(p.stat().st_size for p in pack_dir.iterdir()) / 1e6}
    git = GitStore(root, home / "state" / "default")
    started = time.perf_counter()
    folded = packfold.fold(git, bases)
    elapsed = time.perf_counter() - started
    git.repo.close()
    after = {"packs": len(list(pack_dir.glob("*.idx"))), "pack_mb": sum(p.stat().st_size for p in pack_dir.iterdir()) / 1e6}
    return {"before": before, "after": after, "objects": folded.objects, "ms": elapsed * 1000}


def packed_store(home: Path, objects: int, turns: int, batch: int) -> None:
    """A store of about ``objects`` objects, all in packs of ``batch`` objects made by the packer."""
    from ov.store import packing
    from ov.store.gitstore import GitStore

    loose_history(home, objects, turns)
    git = GitStore(home / "accounts" / "default", home / "state" / "default")
    while packing.pack_loose(git, most=batch, most_bytes=1 << 40).packed:
        pass
    git.repo.close()


def command_wait(home: Path, objects: int, turns: int, reps: int, before: str | None) -> dict:
    """``ov write`` on a copy of a store with ``objects`` loose objects (a packing run due), and on
    one with packing off (``store.auto_pack_loose: 0``): medians of ``reps`` runs; with ``before``,
    the same for ``ov`` at that git revision. Each run waits for the detached run of the one before."""
    from ov.store import packing

    loose_history(home, objects, turns)
    versions = [("this", None)] + ([(before, common.ov_at_revision(before))] if before else [])
    variants = [(name, source, packs) for name, source in versions for packs in (True, False)]
    samples: dict[str, list[float]] = {f"{name}, {'run due' if packs else 'packing off'}": [] for name, _, packs in variants}
    copy = home.parent / f"{home.name}-wait"
    for rep in range(reps + 1):  # the first warms bytecode and the page cache
        for (name, source, packs), key in zip(variants, samples, strict=True):  # in turn: the load falls on all alike
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(home, copy, symlinks=True)
            (copy / "config.yaml").write_text("" if packs else "store:\n  auto_pack_loose: 0\n")
            env = common.bench_env(copy)
            if source is not None:
                env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(source), env.get("PYTHONPATH")]))
            run = common.run_timed([*common.ov_command(), "write", f"viking://resources/wait-{rep}.md", "--content", "w"], env)
            while packing.packing_now(copy / "state" / "default"):
                time.sleep(0.05)
            if rep:
                samples[key].append(run.wall * 1000)
    out = {key: statistics.median(values) for key, values in samples.items()}
    shutil.rmtree(home.parent / f"{home.name}-wait", ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=3000, help="captures per store (default 3000)")
    parser.add_argument("--turns", type=int, default=50, help="turns of a session before the next starts (default 50)")
    parser.add_argument("--reps", type=int, default=5, help="timed runs of each command (default 5)")
    parser.add_argument("--catchup", type=int, default=100_000, help="loose objects of the old store (default 100000; 0 skips)")
    parser.add_argument("--fold-large", type=int, default=400_000, help="objects of the large store folded (default 400000; 0 skips)")
    parser.add_argument("--before", help="also time `ov write` with ov at this git revision (e.g. main)")
    parser.add_argument("--quick", action="store_true", help="300 commits, 20,000 loose objects, a large store of 60,000, 3 reps")
    args = parser.parse_args(argv)
    if args.quick:
        args.commits, args.catchup, args.fold_large, args.reps = 300, 20_000, 60_000, 3
    common.header("packing: loose objects packed with deltas, off vs on, one run, catching up")
    report = common.Report("packing", params=vars(args))
    last = f"{SESSION.format((args.commits - 1) // args.turns)}/messages.jsonl"
    with common.temp_homes(5, "ov-bench-pack", keep=args.keep) as (off_home, on_home, old_home, wait_home, large_home):
        started = time.perf_counter()
        grow(off_home, args.commits, args.turns, pack=False)
        built_off = time.perf_counter() - started
        started = time.perf_counter()
        runs = grow(on_home, args.commits, args.turns, pack=True)
        built_on = time.perf_counter() - started
        # The floor: the second store with every loose object packed (runs until none is left).
        from ov.store import packing
        from ov.store.gitstore import GitStore

        packed_home = on_home.parent / f"{on_home.name}-packed"
        shutil.copytree(on_home, packed_home, symlinks=True)
        git = GitStore(packed_home / "accounts" / "default", packed_home / "state" / "default")
        while packing.pack_loose(git).packed:
            pass
        git.repo.close()
        off, on, floor = measure_stores([off_home, on_home, packed_home], last, args.reps)
        shutil.rmtree(packed_home, ignore_errors=True)
        off["build_s"], on["build_s"], floor["build_s"] = built_off, built_on, math.nan
        report.metrics["all_packed"] = floor
        report.metrics.update(off=off, on=on, runs=[{"objects": r.packed + r.dropped, "ms": r.seconds * 1000, "loose_kb": r.loose_bytes / 1e3, "pack_kb": r.pack_bytes / 1e3} for r in runs])
        stores = (("auto-pack off", off), ("auto-pack on", on), ("on, then all packed", floor))
        rows = [(name, f"{m['git_mb']:.1f}", m["loose_objects"], m["packs"], m["status_ms"], m["fsck_ms"], m["read_ms"], m["build_s"]) for name, m in stores]
        common.print_table(("store", ".git MB", "loose", "packs", "status p50 ms", "fsck p50 ms", "read p50 ms", "build s"), rows, title=f"{args.commits} captures")
        if runs:
            ms = [r.seconds * 1000 for r in runs]
            common.print_table(
                ("runs", "objects each", "ms median", "ms max", "loose KB → pack KB (median)"),
                [(len(runs), statistics.median(r.packed + r.dropped for r in runs), statistics.median(ms), max(ms), f"{statistics.median(r.loose_bytes for r in runs) / 1e3:.0f} → {statistics.median(r.pack_bytes for r in runs) / 1e3:.0f}")],
                title="packing runs while the store grew",
            )
        if args.catchup:
            caught = catch_up(old_home, args.catchup, args.turns, args.reps)
            report.metrics["catchup"] = caught
            ms = [r["ms"] for r in caught["runs"]]
            before, after = caught["before"], caught["after"]
            common.print_table(
                ("old store", ".git MB", "loose", "status p50 ms", "commands", "runs", "ms per command median", "ms max"),
                [
                    ("before", f"{before['git_mb']:.1f}", before["loose_objects"], before["status_ms"], "", "", "", ""),
                    (
                        "after",
                        f"{after['git_mb']:.1f}",
                        after["loose_objects"],
                        after["status_ms"],
                        len(ms),
                        sum(r["runs"] for r in caught["runs"]),
                        statistics.median(ms) if ms else 0,
                        max(ms, default=0),
                    ),
                ],
                title=f"catching up {caught['commits']} commits of loose objects",
            )
            folded = fold_all(old_home)
            report.metrics["fold_caught_up"] = folded
        waited = command_wait(wait_home, 10_000, args.turns, args.reps, args.before)
        report.metrics["command_wait"] = waited
        common.print_table(("ov write", "ms p50"), list(waited.items()), title="a command that wrote, when a packing run is due (10,000 loose objects)")
        folds = [("the caught-up store", folded)] if args.catchup else []
        if args.fold_large:
            packed_store(large_home, args.fold_large, args.turns, PACK_OBJECTS)
            folds.append((f"{args.fold_large:,} objects", fold_all(large_home)))
            report.metrics["fold_large"] = folds[-1][1]
        if folds:
            common.print_table(
                ("store", "objects", "packs", "pack MB", "fold ms"),
                [(name, f["objects"], f"{f['before']['packs']} → {f['after']['packs']}", f"{f['before']['pack_mb']:.1f} → {f['after']['pack_mb']:.1f}", f["ms"]) for name, f in folds],
                title="folding every pack into one (a run at store.auto_pack_limit)",
            )
    report.finish()
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
