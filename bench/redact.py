"""Redaction throughput on ordinary text and on inputs built to make its patterns backtrack.

Hooks pass every captured message and tool output through ``ov.redact.engine``, so a tool output that
makes one pattern quadratic (or a bounded scan restart at every character) stalls a hook. For
each input shape the same text is redacted at two sizes; a linear redactor's time grows by the
size ratio (10x), a quadratic one's by its square. The baseline, measured in the same run, is
ordinary prose of the same sizes.

    .venv/bin/python bench/redact.py [--kb 40,400] [--reps 3] [--only "ordinary text,prose"]
"""

from __future__ import annotations

import common

SHAPES = {
    "prose": "The deploy runs from main after a green CI run; rotate the keys monthly. ",
    # What a tool output mixes: paths, code, a URL, a commit id, a table, a UUID, "token" and
    # "password" as words (the test of 1 MB of it, tests/test_redact.py, checks it is left as it is).
    "ordinary text": (
        "The agent read src/app.py and found that the token budget is 2000; the tokenizer counts words.\n"
        "def load(path: str, key: str = 'name') -> dict:\n    return json.loads(Path(path).read_text())['items']\n"
        "See https://example.com/docs?page=2 and commit 3f2c1e9a7b4d5c6e8f9a0b1c2d3e4f5a6b7c8d9e.\n"
        "| key | value |\n|-----|-------|\n| auth | oauth |\nPlease reset your password: it expired.\n"
        "request 123e4567-e89b-12d3-a456-426614174000 took 35 ms; Bearer tokens are sent on each call.\n"
    ),
    "colon chain x:x:": "x:",
    "yaml-ish a:b": "a:b ",
    "assignments x=": "x=",
    "query k=v&": "k=v&",
    "json keys": '"a":',
    "flags --p": "--p ",
    "prose password is": "password is ",
    # One long line of netrc or YAML key shapes: each match's check looked back for the line's start.
    "netrc on one line": "password abc1 machine ",
    "keys on one line": 'password: abc1" ',
    "grep gutters x:1:": "x:1:",
    "short sas sig=": "&sig=abcd",
    "base64-ish": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3",
    # Each one shaped like an AWS secret key: the check looks around it for a key id or "secret".
    "40-char base64 tokens": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0NTY3 ",
    # Each one read as a path (segments of words) after "secret": a run of capitals failing at its end.
    "40-char path shapes": "secret 1a/" + "B" * 34 + "2Xk ",
    # cli_password's command lines: any tool's `login` where a command starts, Samba's and Oracle's logins.
    "login commands": '"a b login ',
    "samba users -U a%": "-U a%",
    "oracle logins": "sqlplus a/",
    # credential_pair: a login word, then a user and a password that is a plain word (so rejected).
    "login is a / b": "login is a / b ",
    "user a pass b": "user a pass b ",
}


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--kb", default="40,400", help="two input sizes in KB (default 40,400)")
    parser.add_argument("--reps", type=int, default=3, help="runs per shape and size; the median is kept (default 3)")
    parser.add_argument("--only", default="", help="comma-separated input names to run (default: all)")
    args = parser.parse_args(argv)
    only = {name.strip() for name in args.only.split(",") if name.strip()}
    if only - SHAPES.keys():
        parser.error(f"unknown input: {', '.join(sorted(only - SHAPES.keys()))}")
    small, large = (int(x) for x in args.kb.split(","))
    common.header("redact: throughput and growth on backtracking-prone inputs")

    from ov.redact.engine import redact

    report = common.Report("redact", params=vars(args))
    rows = []
    for name, unit in SHAPES.items():
        if only and name not in only:
            continue
        timings = {}
        for kb in (small, large):
            text = unit * (kb * 1024 // len(unit)) + " secret: x"
            timings[kb] = common.percentile([common.time_call(lambda: redact(text))[0] for _ in range(args.reps)], 50)
        growth = common.ratio(timings[large], timings[small])
        report.metrics[name] = {f"{kb}kb_ms": t * 1000 for kb, t in timings.items()} | {"growth": growth}
        rows.append((name, timings[small] * 1000, timings[large] * 1000, large / small, growth, (large * 1024 / 1e6) / timings[large]))
        report.targets.append(common.Target(f"{name}: growth for {large // small}x the input", growth, 3 * large / small, unit="x"))
    common.print_table(("input", f"{small} KB ms", f"{large} KB ms", "size ratio", "time ratio", "MB/s"), rows)
    report.finish(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
