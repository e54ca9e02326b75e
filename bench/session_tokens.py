"""Tokens the prompt hook injects over a session, with and without the memory of what it gave.

A session about one topic asks about it again and again, and each prompt's search finds the same
files; the host keeps every block it was given in its context. This replays sessions on the store
``steering.py`` builds (the repository's source and docs at ``--rev``): the topical prompts of
``bench/prompts/topical-*.tsv`` grouped by the file that answers them, one session a group, each
prompt followed by two steering prompts (``steering-c.txt``, cycled: "ok", "run the tests again"),
and the group's first prompt asked again at the end ("back to the first question"). Each prompt
runs the hook's own decision (``ov.hosts.recall.prompt``, default configuration) twice: alone
(before: every prompt's whole block) and with the session's :class:`ov.hosts.given.Given`
(after), as ``ov hook`` keeps it. Tokens are ``estimate_tokens`` of the injected text.

    .venv/bin/python bench/session_tokens.py [--rev HEAD] [--keep]
"""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from itertools import cycle
from pathlib import Path

from common import Report, base_parser, header, print_table, temp_home
from steering import PROMPTS, load_store, read_prompts


def sessions() -> list[list[str]]:
    """The prompts of each session replayed."""
    groups: dict[str, list[str]] = defaultdict(list)
    for path in sorted(PROMPTS.glob("topical-*.tsv")):
        for prompt, expected in read_prompts(path):
            groups[expected or prompt].append(prompt)
    steering = cycle(p for p, _ in read_prompts(PROMPTS / "steering-c.txt"))
    out = []
    for _, prompts in sorted(groups.items()):
        session: list[str] = []
        for prompt in prompts:
            session += [prompt, next(steering), next(steering)]
        out.append([*session, prompts[0]])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = base_parser(__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the revision whose source and docs make the store (default: HEAD)")
    args = parser.parse_args(argv)
    from ov.hosts import recall
    from ov.hosts.given import Given
    from ov.tokens import estimate_tokens

    header("bench/session_tokens.py: tokens the prompt hook injects per session")
    report = Report("session_tokens", params={"rev": args.rev})
    replayed = sessions()
    before = after = blocks_before = blocks_after = prompts = 0
    per_session: list[tuple[int, int]] = []
    with temp_home("ov-session-tokens", args.keep) as home, tempfile.TemporaryDirectory(prefix="ov-given-") as state:
        store = load_store(home, args.rev)
        hooks = store.config.hooks
        for n, session in enumerate(replayed):
            memory = Given(Path(state) / f"s{n}.json", repeat_after=hooks.prompt_repeat_after)
            spent = [0, 0]
            for prompt in session:
                prompts += 1
                common = {"session_id": None, "budget": hooks.prompt_budget, "max_chars": hooks.max_chars, "min_score": hooks.prompt_min_score}
                whole = recall.prompt(store, prompt, **common)
                memory.prompt += 1
                new = recall.prompt(store, prompt, **common, given=memory)
                memory.give(new.keys if new.text else [])
                memory.save()
                spent[0] += estimate_tokens(whole.text) if whole.text else 0
                spent[1] += estimate_tokens(new.text) if new.text else 0
                blocks_before += bool(whole.text)
                blocks_after += bool(new.text)
            before, after = before + spent[0], after + spent[1]
            per_session.append((spent[0], spent[1]))
    count = len(replayed)
    rows = [
        ["sessions / prompts", count, prompts],
        ["blocks injected", blocks_before, blocks_after],
        ["tokens injected, all sessions", before, after],
        ["tokens per session (mean)", f"{before / count:.0f}", f"{after / count:.0f}"],
        ["tokens per session (max)", max(b for b, _ in per_session), max(a for _, a in per_session)],
    ]
    print_table(["", "before (every block whole)", "after (given left out)"], rows)
    print(f"saved: {100 * (before - after) / max(before, 1):.0f} % of the tokens injected")
    report.metrics.update(sessions=count, prompts=prompts, blocks_before=blocks_before, blocks_after=blocks_after, tokens_before=before, tokens_after=after)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
