"""One long live session and the size of ``.git``: loose copies of its messages.jsonl packed by bytes.

Each turn (one ``add_messages`` of two messages of 90 words, as the capture job makes them)
stores the session's whole ``messages.jsonl`` again. With ``--pack`` (the default) a packing run
follows each turn when one is due, as the capture job's own run after its commit
(:func:`ov.store.packing.pack_after_write`); ``--no-pack`` leaves every copy loose. Prints
``du -sm .git``, the packs and the packing runs' seconds so far every ``--every`` turns.
``--catch-up`` (with ``--no-pack``) then packs the store as the detached packers of successive
commands do (:data:`ov.store.packing.CATCH_UP_SECONDS` each) until nothing is due: each
command's runs and seconds, and ``.git`` after it.

    .venv/bin/python bench/long_session.py [--turns 1500] [--every 200] [--no-pack] [--catch-up]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import time

import common


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1500, help="turns of the session (default 1500)")
    parser.add_argument("--every", type=int, default=200, help="report every this many turns (default 200)")
    parser.add_argument("--pack", action=argparse.BooleanOptionalAction, default=True, help="pack after each turn (default)")
    parser.add_argument("--catch-up", action="store_true", help="then pack as successive commands' detached packers do")
    args = parser.parse_args(argv)
    from ov.sessions import session
    from ov.store.packing import CATCH_UP_SECONDS, pack_after_write

    rng = random.Random(3)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(5000)]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(90))

    with common.temp_home("ov-bench-long-session") as home:
        store = common.open_store(home)
        git = home / "accounts" / "default" / ".git"
        started = time.monotonic()
        runs: list[float] = []  # seconds of each packing run that did something
        for turn in range(1, args.turns + 1):
            session.add_messages(store, "big", [{"role": "user", "text": text()}, {"role": "assistant", "text": text()}])
            if args.pack:
                done = pack_after_write(store)
                if done is not None and (done.packed or done.dropped or done.folded):
                    runs.append(done.seconds)
            if turn % args.every == 0 or turn == args.turns:
                mb = subprocess.run(["du", "-sm", str(git)], capture_output=True, text=True, check=True).stdout.split()[0]
                size = (git.parent / "user/default/sessions/big/messages.jsonl").stat().st_size
                packs = sorted((git / "objects" / "pack").glob("*.pack"))
                pack_mb = sum(pack.stat().st_size + pack.with_suffix(".idx").stat().st_size for pack in packs) / 1e6
                timing = f"  runs {len(runs)}, median {statistics.median(runs):.2f} s, max {max(runs):.2f} s" if runs else ""
                print(
                    f"turn {turn:>5}  .git {mb:>4} MB  messages.jsonl {size / 1e6:.2f} MB  packs {len(packs)} ({pack_mb:.1f} MB){timing}  {time.monotonic() - started:.0f} s",
                    flush=True,
                )
        command = 0
        while args.catch_up:
            done = pack_after_write(store, seconds=CATCH_UP_SECONDS)
            if done is None:
                break
            command += 1
            mb = subprocess.run(["du", "-sm", str(git)], capture_output=True, text=True, check=True).stdout.split()[0]
            print(f"command {command}: {done.runs} runs, {done.seconds:.1f} s, {done.packed} objects packed; .git {mb} MB", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
