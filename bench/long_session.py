"""One long live session and the size of ``.git``: loose copies of its messages.jsonl packed by bytes.

Each turn (one ``add_messages`` of two messages of 90 words, as the capture job makes them)
stores the session's whole ``messages.jsonl`` again. With ``--pack`` (the default) a packing run
follows each turn when one is due, as the capture job's own run after its commit
(:func:`ov.store.packing.pack_after_write`); ``--no-pack`` leaves every copy loose. Prints
``du -sm .git`` every ``--every`` turns.

    .venv/bin/python bench/long_session.py [--turns 1500] [--every 200] [--no-pack]
"""

from __future__ import annotations

import argparse
import random
import subprocess
import time

import common


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1500, help="turns of the session (default 1500)")
    parser.add_argument("--every", type=int, default=200, help="report every this many turns (default 200)")
    parser.add_argument("--pack", action=argparse.BooleanOptionalAction, default=True, help="pack after each turn (default)")
    args = parser.parse_args(argv)
    from ov.sessions import session
    from ov.store.packing import pack_after_write

    rng = random.Random(3)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9))) for _ in range(5000)]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(90))

    with common.temp_home("ov-bench-long-session") as home:
        store = common.open_store(home)
        git = home / "accounts" / "default" / ".git"
        started = time.monotonic()
        for turn in range(1, args.turns + 1):
            session.add_messages(store, "big", [{"role": "user", "text": text()}, {"role": "assistant", "text": text()}])
            if args.pack:
                pack_after_write(store)
            if turn % args.every == 0 or turn == args.turns:
                mb = subprocess.run(["du", "-sm", str(git)], capture_output=True, text=True, check=True).stdout.split()[0]
                size = (git.parent / "user/default/sessions/big/messages.jsonl").stat().st_size
                print(f"turn {turn:>5}  .git {mb:>4} MB  messages.jsonl {size / 1e6:.2f} MB  {time.monotonic() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
