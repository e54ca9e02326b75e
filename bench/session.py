"""Session capture and ``ov commit``, offline: what a hook pays per turn and what a commit costs.

Three measurements, all without an LLM:

1. **add, in-process**: ``ov.sessions.session.add_messages`` of ONE message into an
   existing session (one commit each), ``--reps`` (200) adds into each of
   several sessions of the same store that already hold ``--sizes`` messages
   (0 and 1,000 by default; the first is the baseline), round-robin with the
   order alternating. Appending must keep the cost flat: the script reports
   the p50 ratio against the baseline session.
2. **add, cold process**: ``ov session add SID --text ...`` through the ``ov``
   console script, ``--cold-reps`` (20) runs after 2 untimed warm-ups,
   round-robin with ``python -c pass`` from the same interpreter (the
   baseline) and ``ov --help`` (ov's own start-up, so the difference is what
   the add itself costs). Child processes load ov from a private ``.pyc`` cache like an
   installed package (``--bytecode``, as in ``startup.py``).
3. **commit**: in-process ``ov.sessions.commit.commit_session`` of a session of
   ``--messages`` (200) realistic mixed user/assistant turns (preferences,
   "my editor is ...", file paths, errors, tool calls, corrections). The
   session is built once with one ``add_messages`` call per message (their
   total is reported as context: what the hook paid over the session), then
   ``--commit-reps`` (5) commits each run on a fresh copy of that ``OV_HOME``.
   The copy's commit outcome (archived count, memories) is checked to be the
   same every time.

    .venv/bin/python bench/session.py [--reps 200] [--sizes 0,1000] [--cold-reps 20] [--commit-reps 5] [--profile]

``--profile`` afterwards runs cProfile over 100 adds into the largest session
and over one commit.
"""

from __future__ import annotations

import random
import shutil
import sys
import time

import common

SESSION_PREFIX = "bench"
COMMIT_SESSION = "conversation"

# --- a synthetic but realistic conversation ----------------------------------------

_FILES = [
    "src/api/handlers.py", "src/api/routes.py", "src/db/models.py", "src/db/migrations/0007_add_index.sql",
    "tests/test_handlers.py", "tests/conftest.py", "web/src/components/Login.tsx", "web/package.json",
    "pyproject.toml", "docs/deploy.md", ".github/workflows/ci.yml", "scripts/seed_db.sh",
]
_ERRORS = [
    "Traceback (most recent call last):\n  File \"{f}\", line {n}, in handle\n    user = session.query(User).get(uid)\nAttributeError: 'NoneType' object has no attribute 'query'",
    "FAILED tests/test_handlers.py::test_login_redirect - AssertionError: expected 302, got 500",
    "error[E0382]: borrow of moved value: `config` at {f}:{n}",
    "TypeError: Cannot read properties of undefined (reading 'token') at Login ({f}:{n})",
    "psycopg2.errors.UndefinedColumn: column users.last_seen does not exist (migration {f} not applied)",
]
_STATEMENTS = [
    "I prefer tabs over spaces in Python files",
    "my editor is neovim with the default LSP setup",
    "I always run the test suite before committing",
    "I never push directly to main",
    "I prefer small pull requests, one concern each",
    "my timezone is Europe/Berlin",
    "I work at a small fintech startup on the payments team",
    "I'm a backend engineer, mostly Python and Postgres",
    "I don't like ORMs that hide the SQL",
    "remember to update the changelog when the API changes",
    "my preferred test runner is pytest with -x",
    "I like type hints everywhere, even in tests",
    "actually, I meant ruff, not flake8",
    "I hate long-running CI jobs",
]
_USER_ASKS = [
    "Can you look at {f}? The login flow breaks after the last deploy.",
    "Here is the error I get:\n{e}",
    "Why does {f} import the models twice?",
    "Let's add an index on users.email in {f}.",
    "Please write a test for the redirect in {f2}.",
    "ok, that worked. Next: the CI job in .github/workflows/ci.yml takes 14 minutes.",
    "We decided to keep the old endpoint until the mobile app migrates.",
    "Can you explain what {f} does, briefly?",
]
_ASSISTANT = [
    "I read {f}. The handler opens a database session only inside the `if` branch, so on the redirect path "
    "`session` is still None when `handle` runs the query. I moved the session creation above the branch "
    "and added a guard; {f2} now covers both paths. Running the tests: 42 passed, 1 skipped.",
    "The failure comes from {f}: the migration that adds `last_seen` was never applied in staging. "
    "I added it to the deploy checklist in docs/deploy.md and made the column nullable so the old code keeps working.",
    "Here is the change:\n\n```python\ndef handle(request):\n    with db.session() as session:\n        user = session.get(User, request.user_id)\n"
    "        if user is None:\n            raise NotFound()\n        return render(user)\n```\n\nThis keeps the session scoped to the request.",
    "I looked at the CI workflow. Most of the 14 minutes go to installing dependencies without a cache and to running "
    "the integration tests serially. Caching pip and splitting the tests over 4 workers should bring it to about 5 minutes.",
    "Done. I updated {f} and {f2}; `ruff check` is clean and the type checker reports no new errors.",
    "{f} defines the SQLAlchemy models; `User` and `Session` share a base class with audit columns. The double import "
    "is a leftover from the move to `src/db/`; I removed it.",
]


def conversation(count: int, seed: int = 4) -> list[dict]:
    """``count`` messages alternating user / assistant, deterministic for a given ``seed``."""
    rnd = random.Random(seed)
    out: list[dict] = []
    for i in range(count):
        f, f2 = rnd.sample(_FILES, 2)
        if i % 2 == 0:
            roll = rnd.random()
            if roll < 0.3:
                text = rnd.choice(_STATEMENTS) + ". " + rnd.choice(_USER_ASKS)
            elif roll < 0.45:
                text = rnd.choice(_STATEMENTS) + "."
            else:
                text = rnd.choice(_USER_ASKS)
            text = text.format(f=f, f2=f2, e=rnd.choice(_ERRORS).format(f=f, n=rnd.randint(10, 400)))
            out.append({"role": "user", "text": text})
        elif rnd.random() < 0.25:
            tool_output = rnd.choice(_ERRORS).format(f=f, n=rnd.randint(10, 400)) if rnd.random() < 0.5 else f"42 passed, 1 skipped in {rnd.uniform(1, 9):.2f}s"
            out.append({"role": "assistant", "parts": [
                {"type": "text", "text": f"Running the tests for {f}."},
                {"type": "tool", "tool_name": "bash", "tool_status": "completed", "tool_input": {"command": f"pytest {f2} -x"}, "tool_output": tool_output},
            ]})
        else:
            out.append({"role": "assistant", "text": rnd.choice(_ASSISTANT).format(f=f, f2=f2)})
    return out


# --- measurements --------------------------------------------------------------------


def bench_adds(store, sizes: list[int], reps: int, warmup: int, report: common.Report) -> dict[int, list[float]]:
    from ov.sessions import session

    pool = conversation(200, seed=7)
    sids = {size: f"{SESSION_PREFIX}-{size}" for size in sizes}
    for size, sid in sids.items():
        session.create(store, sid)
        if size:
            start = time.perf_counter()
            session.add_messages(store, sid, conversation(size, seed=size))  # one call, one commit
            print(f"seeded session {sid} with {size} messages in one add: {time.perf_counter() - start:.2f} s")
    counter = 0

    def one_add(size: int) -> float:
        nonlocal counter
        message = dict(pool[counter % len(pool)])
        counter += 1
        elapsed, result = common.time_call(lambda: session.add_messages(store, sids[size], [message]))
        if len(result.added) != 1 or result.commit is None:
            raise RuntimeError(f"add into {sids[size]} did not commit one message: {result}")
        return elapsed

    for size in sizes:
        for _ in range(warmup):
            one_add(size)
    samples: dict[int, list[float]] = {size: [] for size in sizes}
    for rep in range(reps):
        for size in sizes if rep % 2 == 0 else sizes[::-1]:
            samples[size].append(one_add(size))
    for size, sid in sids.items():
        held = session.read_meta(store, sid)["message_count"]
        if held != size + warmup + reps:
            raise RuntimeError(f"session {sid} holds {held} messages, expected {size + warmup + reps}")
    report.metrics["add_session_ids"] = sids
    return samples


def bench_cold(home, reps: int, warmup: int, bytecode: str) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Cold ``ov session add`` processes, with ``python -c pass`` (baseline) and ``ov --help`` (ov's start-up) round-robin."""
    from ov.sessions import session

    sid = f"{SESSION_PREFIX}-cold"
    store = common.open_store(home)
    session.add_messages(store, sid, conversation(20, seed=3))
    env = common.bench_env(home, bytecode)
    ov = common.ov_command()
    texts = [m.get("text") or "a tool call ran" for m in conversation(reps + warmup, seed=11)]
    baseline = "python -c pass"
    name = f"ov session add {sid} --text ..."
    order = [baseline, "ov --help", name]
    samples: dict[str, list[float]] = {key: [] for key in order}
    cpu: dict[str, list[float]] = {key: [] for key in order}
    for rep in range(warmup + reps):
        for which in order if rep % 2 == 0 else order[::-1]:
            if which == baseline:
                run = common.run_timed([sys.executable, "-c", "pass"], env)
            elif which == "ov --help":
                run = common.run_timed([*ov, "--help"], env)
            else:
                run = common.run_timed([*ov, "session", "add", sid, "--role", "user", "--text", texts[rep]], env)
            if rep >= warmup:
                samples[which].append(run.wall)
                cpu[which].append(run.cpu)
    held = session.read_meta(store, sid)["message_count"]
    if held != 20 + warmup + reps:
        raise RuntimeError(f"cold session holds {held} messages, expected {20 + warmup + reps}")
    return samples, cpu


def build_commit_session(home, messages: list[dict]) -> list[float]:
    """One ``add_messages`` call per message, as a hook would; returns each call's seconds."""
    from ov.sessions import session

    store = common.open_store(home)
    times = []
    for message in messages:
        times.append(common.time_call(lambda: session.add_messages(store, COMMIT_SESSION, [message]))[0])
    return times


def bench_commits(template, reps: int, keep: bool) -> tuple[list[float], list[dict]]:
    from ov.sessions.commit import commit_session

    times, outcomes = [], []
    for rep in range(reps):
        with common.temp_home(f"ov-bench-commit{rep}", keep=keep) as root:
            copy = root / "home"
            shutil.copytree(template, copy, symlinks=True)
            store = common.open_store(copy)
            elapsed, result = common.time_call(lambda: commit_session(store, COMMIT_SESSION))
            if result.status != "committed" or result.failed:
                raise RuntimeError(f"commit did not archive cleanly: {result.to_dict()}")
            times.append(elapsed)
            outcomes.append({"archived": result.archived, "memories": result.memories})
    if any(o != outcomes[0] for o in outcomes):
        raise RuntimeError(f"commit outcomes differ between copies: {outcomes}")
    return times, outcomes


def bench_catch_up(home, sizes: list[int], reps: int) -> dict[int, list[float]]:
    """The index catching up after one turn, in sessions of each size: the work the hooks'
    background job does after every turn (default configuration, so the built-in model's vectors
    too). One add, then ``Indices.open``, timed; ``reps`` times per size after one untimed round."""
    from ov.index.sync import Indices
    from ov.sessions import session

    store = common.open_store(home)
    out: dict[int, list[float]] = {}
    for size in sizes:
        sid = f"catch-up-{size}"
        messages = conversation(size + reps + 1, seed=size + 7)
        if size:
            session.add_messages(store, sid, messages[:size])
        Indices(store).open()
        times = []
        for i, message in enumerate(messages[size:]):
            session.add_messages(store, sid, [message])
            seconds = common.time_call(lambda: Indices(store).open())[0]
            if i:
                times.append(seconds)
        out[size] = times
    return out


def by_size(report: common.Report, samples: dict[int, list[float]], sizes: list[int], key: str, what: str) -> list[tuple]:
    """One table row per session size (its p50 against the first size's), each size's figures
    recorded in the report as ``{key}_{size}``."""
    base_p50 = common.percentile(samples[sizes[0]], 50) * 1000
    rows = []
    for size in sizes:
        stats = common.summarize(samples[size])
        stats["ratio_p50_vs_base"] = common.ratio(stats["p50_ms"], base_p50)
        report.metrics[f"{key}_{size}"] = stats
        rows.append((f"{what}, session of {size}+ msgs", stats["n"], stats["p50_ms"], stats["p90_ms"], stats["p99_ms"], stats["max_ms"], stats["ratio_p50_vs_base"]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="timed in-process adds per session size (default 200)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed in-process adds per session first (default 10)")
    parser.add_argument("--sizes", default="0,1000", help="messages already in each session; the first is the baseline (default 0,1000)")
    parser.add_argument("--cold-reps", type=int, default=20, help="timed cold `ov session add` processes (default 20)")
    parser.add_argument("--messages", type=int, default=200, help="messages in the committed session (default 200)")
    parser.add_argument("--commit-reps", type=int, default=5, help="commits, each on a fresh copy (default 5)")
    parser.add_argument("--catch-up-sizes", default="0,1000,4000", help="messages in the sessions whose index catch-up after one turn is timed; the first is the baseline (default 0,1000,4000; '' skips)")
    parser.add_argument("--catch-up-reps", type=int, default=10, help="timed catch-ups per session size (default 10)")
    parser.add_argument("--profile", action="store_true", help="afterwards, cProfile 100 adds into the largest session and one commit")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if len(set(sizes)) != len(sizes):
        parser.error("--sizes must be distinct")
    common.header("session: ov session add (in-process and cold) and ov commit, offline")

    report = common.Report("session", params=vars(args) | {"sizes": sizes, "ov_command": common.ov_command()})
    with common.temp_homes(4, "ov-bench-session", keep=args.keep) as (add_home, cold_home, commit_home, catch_home):
        # 1. in-process adds
        add_store = common.open_store(add_home)
        adds = bench_adds(add_store, sizes, args.reps, args.warmup, report)
        rows = by_size(report, adds, sizes, "add_inprocess", "add 1 message")
        common.print_table(("series", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", f"p50 / {sizes[0]}"), rows,
                           title="In-process session add (one message, one commit)", digits=2)

        # 2. cold processes
        cold, cold_cpu = bench_cold(cold_home, args.cold_reps, 2, args.bytecode)
        names = list(cold)
        py_p50 = common.percentile(cold[names[0]], 50) * 1000
        help_p50 = common.percentile(cold[names[1]], 50) * 1000
        rows = []
        for name in names:
            stats = common.summarize(cold[name])
            stats["ratio_p50_vs_python"] = common.ratio(stats["p50_ms"], py_p50)
            stats["over_python_p50_ms"] = stats["p50_ms"] - py_p50
            stats["over_ov_help_p50_ms"] = stats["p50_ms"] - help_p50
            stats["cpu"] = common.summarize(cold_cpu[name])
            report.metrics[f"cold {name}"] = stats
            rows.append((name, stats["n"], stats["min_ms"], stats["p50_ms"], stats["p90_ms"], stats["max_ms"], stats["ratio_p50_vs_python"],
                         stats["over_python_p50_ms"], stats["over_ov_help_p50_ms"], stats["cpu"]["p50_ms"]))
        common.print_table(("command", "n", "min ms", "p50 ms", "p90 ms", "max ms", "p50 / python", "p50 - python ms", "p50 - ov --help ms", "cpu p50 ms"), rows,
                           title=f"Cold-process session add (bytecode: {args.bytecode}; cpu = the process's own user+sys time)")

        # 3. commit
        messages = conversation(args.messages)
        build = build_commit_session(commit_home, messages)
        build_stats = common.summarize(build) | {"total_ms": sum(build) * 1000}
        report.metrics["commit_session_adds"] = build_stats
        commits, outcomes = bench_commits(commit_home, args.commit_reps, args.keep)
        commit_stats = common.summarize(commits)
        commit_stats["ratio_p50_vs_adds_total"] = common.ratio(commit_stats["p50_ms"], build_stats["total_ms"])
        commit_stats["ratio_p50_vs_add_p50"] = common.ratio(commit_stats["p50_ms"], build_stats["p50_ms"])
        report.metrics["commit"] = commit_stats
        report.metrics["commit_outcome"] = outcomes[0]
        common.print_table(
            ("series", "n", "p50 ms", "p90 ms", "max ms", "total ms"),
            [
                (f"{args.messages} adds that built the session", build_stats["n"], build_stats["p50_ms"], build_stats["p90_ms"], build_stats["max_ms"], build_stats["total_ms"]),
                (f"ov commit of {args.messages} messages", commit_stats["n"], commit_stats["p50_ms"], commit_stats["p90_ms"], commit_stats["max_ms"], float("nan")),
            ],
            title=f"Commit (fresh copy each run): archived {outcomes[0]['archived']}, memories {outcomes[0]['memories']}; "
            f"commit p50 = {commit_stats['ratio_p50_vs_adds_total']:.2f}x the adds' total, {commit_stats['ratio_p50_vs_add_p50']:.0f}x one add",
            digits=1,
        )

        # 4. the index after a turn
        catch_sizes = [int(s) for s in args.catch_up_sizes.split(",") if s.strip()]
        if catch_sizes:
            catch = bench_catch_up(catch_home, catch_sizes, args.catch_up_reps)
            rows = by_size(report, catch, catch_sizes, "catch_up", "index after 1 turn")
            common.print_table(("series", "n", "p50 ms", "p90 ms", "p99 ms", "max ms", f"p50 / {catch_sizes[0]}"), rows,
                               title="Index catch-up after one turn (Indices.open after one add; the built-in model's vectors included)", digits=1)

        if args.profile:
            from ov.sessions import session
            from ov.sessions.commit import commit_session

            big_sid = report.metrics["add_session_ids"][sizes[-1]]
            pool = conversation(100, seed=13)

            def hundred_adds() -> None:
                for message in pool:
                    session.add_messages(add_store, big_sid, [message])

            text = common.profile_top(hundred_adds, limit=30)
            print(f"\ncProfile of 100 adds into the {sizes[-1]}+-message session (cumulative):")
            print(text)
            report.metrics["profile_adds_top"] = text
            with common.temp_home("ov-bench-commitprof", keep=args.keep) as root:
                shutil.copytree(commit_home, root / "home", symlinks=True)
                store = common.open_store(root / "home")
                text = common.profile_top(lambda: commit_session(store, COMMIT_SESSION), limit=40)
            print(f"\ncProfile of one commit of {args.messages} messages (cumulative):")
            print(text)
            report.metrics["profile_commit_top"] = text

    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
