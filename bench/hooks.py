"""``ov hook claude EVENT`` as Claude Code runs it: whole processes, healthy and beside a long writer.

Every sample is a fresh process of the ``ov`` console script (``hook claude EVENT``), its stdin
a Claude Code-shaped JSON (``session_id``, ``cwd`` = a temporary project with a ``.git`` folder,
``transcript_path``, ``prompt`` on prompt-submit), run round-robin with ``python -c pass`` (the
baseline) after untimed warm-up rounds. The store is seeded first, through ov's own commands:

* ~200 Markdown resource files (a fictional company's service docs, ADRs, runbooks, incident
  reviews, meeting notes) added with one ``ov add-resource``;
* ~40 memories under ``viking://user/default/memories/``: profile, preferences, entities and
  events through ``ov remember``, more entities, experiences and dated events through ``ov write``;
* one earlier Claude session captured and committed through the hooks themselves (``stop``, then
  ``session-end`` and its commit job), so prompt recall has an archive to find;
* the current session, captured with three turns, and the index built once (``ov reindex``).

Two conditions: **healthy**, and **locked**: a separate process holds the account's write lock
(``WriteLock(store.lock_path, 60)``), as a long ``add-resource`` would, for the whole of each
locked series.

* ``session-start`` (a new session id each run) and ``prompt-submit`` (the current session; ten
  prompts in rotation, some about the store, some not), round-robin with the baseline. The
  conditions alternate in blocks (``--blocks``, ABBA order, the lock held for each locked block),
  so that the machine's drift hits both alike; each condition gets the same prompts.
* ``stop``, healthy and then locked: before each run the transcript grows by one turn (a prompt,
  an assistant line with a ``tool_use``, the ``tool_result``, the answer), so each stop has
  something to capture. The hook answers at once; its detached job (``python -m
  ov.hosts.worker``) logs its own ``ms``. Healthy, the script waits (untimed) for each job before
  the next round; locked, only until the job queues for the lock, so the jobs pile up behind the
  writer as they would. The lock is then released, every job line awaited, and the session's
  message count checked against the transcript (a job that gave up must lose nothing).

Then, healthy: a ``session-end`` followed at once by a new ``session-start``, which waits for the
commit (the "next session sees the last one's memories" barrier). The last turn before it states
a new preference; the script reports whether the new session's block shows it.

``--against REV`` then times the recall hooks in pairs: each pair runs one hook with ov's package
as it was at git revision ``REV`` (first on ``PYTHONPATH``, bytecode cached like the rest) and as
checked out, in alternating order, each on a store of its own that its ov seeded and indexed as
above (an older ov rebuilds an index of a schema it does not know: one shared store compared
different indexes across a schema change). The median of the pairs' differences resolves a few
milliseconds, which separate series cannot on a machine whose speed drifts.

Issue targets: session-start and prompt-submit p50 <= 250 ms and max <= 1.5 s (whole
processes), stop p50 <= 150 ms, in both conditions. The fixed prefix a session start injects is
reported in tokens (``ov.tokens.estimate_tokens`` of its ``additionalContext``) beside
OpenViking's ~5,350 (its 13 MCP tool definitions plus its start-up injection).

    .venv/bin/python bench/hooks.py [--reps 30] [--warmup 2] [--blocks 3] [--barrier-reps 1] [--breakdown] [--bytecode cached|source|inherit]

``--breakdown`` also takes prompt-submit hooks apart, in fresh processes: importing
``ov.hosts.runtime``, the first ``runtime.run`` (its lazy imports included) and the same call
again (modules loaded); the steps of both calls under cProfile; and ``-X importtime`` self time
per package (per module for ov).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import textwrap
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import common

HOST = "claude"
TARGET_RECALL_P50_MS = 250.0
TARGET_RECALL_MAX_MS = 1500.0
TARGET_STOP_P50_MS = 150.0
OPENVIKING_PREFIX_TOKENS = 5350
BASELINE = "python -c pass"
RESOURCE_URI = "viking://resources/acme-docs"
JOB_WAIT_SECONDS = 60.0

# --- the seeded store --------------------------------------------------------------------------

SERVICES = {
    "billing": ("invoices", "PostgreSQL", "alembic", "exchange rates"),
    "ledger": ("journal entries", "PostgreSQL", "alembic", "double-entry postings"),
    "auth": ("sessions and API keys", "Redis", "none", "OAuth tokens"),
    "notifications": ("email and SMS jobs", "Kafka", "none", "templates"),
    "search": ("product documents", "OpenSearch", "index templates", "synonyms"),
    "gateway": ("routes", "Envoy", "none", "rate limits"),
    "payments": ("card authorisations", "PostgreSQL", "alembic", "3-D Secure challenges"),
    "reporting": ("daily aggregates", "ClickHouse", "clickhouse-migrations", "dashboards"),
    "scheduler": ("cron jobs", "PostgreSQL", "alembic", "leases"),
    "inventory": ("stock levels", "PostgreSQL", "alembic", "reservations"),
    "exports": ("CSV exports", "S3", "none", "signed URLs"),
    "webhooks": ("outgoing webhook deliveries", "Kafka", "none", "retries with backoff"),
}
TOOLS = ("GitHub Actions", "Terraform", "Helm", "Argo CD", "Sentry", "Prometheus", "Grafana", "pytest", "ruff", "mypy")
DOC_KINDS = ("README", "runbook", "architecture", "api", "configuration")
ADR_TOPICS = (
    "use PostgreSQL advisory locks for the scheduler", "move webhooks onto Kafka", "cache exchange rates in Redis",
    "adopt ruff instead of flake8", "split the ledger out of billing", "use gRPC between gateway and auth",
    "store exports in S3 with signed URLs", "run migrations before deploys", "use Argo CD for deployments",
    "adopt OpenTelemetry tracing", "retry webhooks with exponential backoff", "shard the search index by tenant",
)
INCIDENTS = (
    "invoice totals off by one cent after currency rounding", "webhook retries flooded a customer endpoint",
    "ledger reconciliation job ran twice after a failover", "auth token cache evicted under memory pressure",
    "search index lagged two hours behind inventory", "Kafka consumer group rebalanced in a loop",
    "migration locked the payments table during peak", "expired TLS certificate on the gateway",
    "scheduler leases not released after a pod kill", "exports bucket policy blocked signed URLs",
)


def resource_tree(root: Path, count: int) -> int:
    """Write ``count`` Markdown files of a fictional company's docs below ``root``; return how many."""
    rng = random.Random(7)
    files: list[tuple[str, str]] = []
    for service, (what, store, migrations, topic) in SERVICES.items():
        for kind in DOC_KINDS:
            files.append((f"services/{service}/{kind}.md", _service_doc(rng, service, kind, what, store, migrations, topic)))
    n = 0
    while len(files) < count:
        n += 1
        pick = n % 4
        if pick == 0:
            topic = ADR_TOPICS[n % len(ADR_TOPICS)]
            files.append((f"adr/{n:04d}-{topic.replace(' ', '-')[:40]}.md", _adr(rng, n, topic)))
        elif pick == 1:
            incident = INCIDENTS[n % len(INCIDENTS)]
            files.append((f"incidents/2026-{1 + n % 11:02d}-{1 + n % 27:02d}-{n:03d}.md", _incident(rng, n, incident)))
        elif pick == 2:
            files.append((f"guides/{n:03d}-{rng.choice(TOOLS).lower().replace(' ', '-')}.md", _guide(rng, n)))
        else:
            files.append((f"meetings/2026-{1 + n % 11:02d}-{1 + n % 27:02d}-{n:03d}.md", _meeting(rng, n)))
    for rel, text in files[:count]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return min(count, len(files))


def _service_doc(rng, service, kind, what, store, migrations, topic) -> str:
    tool = rng.choice(TOOLS)
    lines = [f"# {service} service: {kind}", ""]
    lines += textwrap.wrap(
        f"The {service} service owns {what}. Its data lives in {store}; schema changes go through "
        f"{migrations} and are reviewed by the platform team. Deployments run through {tool} and "
        f"Argo CD, one canary pod first, then the rest after ten minutes without new Sentry errors.",
        100,
    )
    lines += ["", "## Details", ""]
    for i in range(rng.randint(4, 8)):
        other = rng.choice(list(SERVICES))
        lines.append(
            f"- {topic.capitalize()}: step {i + 1} calls the {other} service over gRPC with a "
            f"{rng.choice((200, 500, 800, 1500))} ms timeout; failures are retried {rng.randint(2, 5)} times."
        )
    if kind == "runbook":
        lines += ["", "## When it pages", "", f"Check the {service} dashboard in Grafana, then `kubectl -n {service} get pods`.",
                  f"If the {store} connection pool is exhausted, restart one pod at a time."]
    if kind == "configuration":
        lines += ["", "```yaml", f"{service}:", f"  pool_size: {rng.randint(5, 40)}", f"  timeout_ms: {rng.randint(200, 3000)}",
                  f"  feature_flags: [{topic.split()[0]}_v2]", "```"]
    return "\n".join(lines) + "\n"


def _adr(rng, n, topic) -> str:
    service = rng.choice(list(SERVICES))
    return (
        f"# ADR {n:04d}: {topic}\n\nStatus: accepted\n\n## Context\n\n"
        + "\n".join(textwrap.wrap(
            f"The {service} team proposed to {topic}. The old approach caused {rng.choice(INCIDENTS)}, and on-call "
            f"spent {rng.randint(2, 20)} hours on it last quarter.", 100))
        + "\n\n## Decision\n\n"
        + "\n".join(textwrap.wrap(f"We {topic}. {rng.choice(TOOLS)} checks it in CI; the change ships behind a flag.", 100))
        + "\n\n## Consequences\n\nMore moving parts, fewer pages. Revisit after two releases.\n"
    )


def _incident(rng, n, incident) -> str:
    service = rng.choice(list(SERVICES))
    return (
        f"# Incident review {n:03d}: {incident}\n\nSeverity: SEV{rng.randint(1, 3)}. Duration: {rng.randint(5, 180)} minutes.\n\n"
        "## Timeline\n\n"
        + "\n".join(f"- {9 + i:02d}:{rng.randint(0, 59):02d} {step}" for i, step in enumerate(
            ("alert fired in Prometheus", f"on-call paged for {service}", "rollback started with Argo CD", "error rate back to normal")))
        + "\n\n## Root cause\n\n"
        + "\n".join(textwrap.wrap(f"{incident.capitalize()}. The {service} service did not check the "
                                  f"{rng.choice(['timeout', 'idempotency key', 'lease', 'currency precision'])}.", 100))
        + "\n\n## Follow-ups\n\n- add a regression test with pytest\n- alert on the queue lag\n"
    )


def _guide(rng, n) -> str:
    tool = rng.choice(TOOLS)
    service = rng.choice(list(SERVICES))
    return (
        f"# How we use {tool}\n\n"
        + "\n".join(textwrap.wrap(
            f"Every repository runs {tool} in CI. Locally, run `make check` before pushing; the {service} "
            f"repository also runs its integration tests against a throw-away {SERVICES[service][1]}.", 100))
        + f"\n\n## Tips ({n})\n\n"
        + "\n".join(f"- {tip}" for tip in rng.sample([
            "pin versions in the lock file", "keep the cache key on the lock file's hash", "fail fast on the first error",
            "run the slow suite nightly only", "upload the coverage report as an artifact", "never log secrets",
            "tag images with the commit sha", "prefer small pull requests"], 4))
        + "\n"
    )


def _meeting(rng, n) -> str:
    people = rng.sample(["Dana", "Priya", "Marco", "Lena", "Tomás", "Aiko", "Sam"], 3)
    service = rng.choice(list(SERVICES))
    return (
        f"# Planning notes {n:03d}\n\nPresent: {', '.join(people)}.\n\n"
        + "\n".join(f"- {p}: {rng.choice(['will', 'to'])} {task}" for p, task in zip(people, rng.sample([
            f"finish the {service} migration", "write the incident review", "upgrade ruff in every repository",
            f"add tracing to the {service} consumer", "review the ADR on webhooks", "fix the flaky invoice rounding test",
            "rotate the staging credentials", "update the on-call runbook"], 3)))
        + "\n"
    )


# ``ov remember`` (optionally with --type) and ``ov write URI`` (Markdown bodies, as an agent would write them).
REMEMBER = [
    ("profile", "My name is Dana Whitfield"),
    ("profile", "I am a backend engineer on the payments team"),
    ("profile", "I work at Acme Pay"),
    ("profile", "my timezone is Europe/Berlin"),
    (None, "I prefer tabs over spaces"),
    (None, "I prefer pytest over unittest"),
    (None, "I prefer small pull requests with one change each"),
    (None, "I prefer ruff for linting and formatting"),
    (None, "I like type hints on every public function"),
    (None, "I always run the migrations on staging first"),
    (None, "I never push directly to main"),
    (None, "I dislike mocking the database in integration tests"),
    (None, "I prefer structured logging as JSON lines"),
    (None, "I prefer British spelling in documentation"),
    (None, "my manager is Priya Raman"),
    (None, "my editor is neovim"),
    (None, "my team is payments core"),
    (None, "my mentor is Marco Bellini"),
    ("events", "Deployed ledger 4.2 to production after the reconciliation fix"),
    ("events", "Rotated the staging database credentials"),
    ("events", "Migrated the webhooks service onto Kafka"),
    ("events", "Upgraded ruff to 0.8 in every repository"),
]
ENTITIES = {
    "projects/falcon": "Project Falcon: the rewrite of the billing service's invoice engine in Go; owner Dana; due Q1.",
    "projects/harbor": "Project Harbor: moving every service's deployments to Argo CD; owner Marco.",
    "systems/ledger": "The ledger service: double-entry postings in PostgreSQL; reconciliation runs nightly.",
    "systems/webhooks": "The webhooks service: outgoing deliveries over Kafka, retried with exponential backoff up to 24 h.",
    "systems/staging": "Staging: one Kubernetes namespace per service, databases refreshed from anonymised production weekly.",
    "people/lena": "Lena Vogt: SRE, owns the Grafana dashboards and the on-call rota.",
    "people/aiko": "Aiko Tanaka: product manager for reporting and exports.",
    "tools/make-check": "`make check` runs ruff, mypy and the fast pytest suite; CI runs the same target.",
}
EXPERIENCES = {
    "deploys/canary-first": "Deploy with one canary pod first: the ledger 4.1 rollback would have hit every pod otherwise.",
    "migrations/lock-timeout": "Set lock_timeout on migrations touching the payments table; a plain ALTER TABLE stalled checkout for 4 minutes.",
    "testing/leap-years": "Invoice rounding tests must cover 29 February: the flaky test failed only in leap years.",
    "debugging/kafka-rebalance": "A Kafka consumer stuck rebalancing usually means max.poll.interval.ms is below the batch time.",
    "ci/cache-key": "Key the CI cache on the lock file's hash, or stale wheels break the build after an upgrade.",
    "review/small-prs": "Pull requests under 300 lines get reviewed the same day; bigger ones wait for days.",
}
EVENTS = [
    ("2026/11/03", "ledger-incident", "Ledger reconciliation ran twice after a database failover; fixed with an idempotency key."),
    ("2026/11/10", "falcon-kickoff", "Kick-off of Project Falcon with Priya and Marco."),
    ("2026/11/17", "ruff-migration", "Replaced flake8 and black with ruff in the billing repository."),
    ("2026/11/24", "oncall-week", "On-call week: two pages, both about webhook retries to one customer."),
]


def memory_writes() -> list[tuple[str, str]]:
    """``(URI, Markdown)`` of the memories seeded through ``ov write``: the fact on the first line (the index shows it)."""
    root = "viking://user/default/memories"
    out = [(f"{root}/entities/{rel}.md", f"{text}\n") for rel, text in ENTITIES.items()]
    out += [(f"{root}/experiences/{rel}.md", f"{text}\n") for rel, text in EXPERIENCES.items()]
    out += [(f"{root}/events/{day}/{slug}.md", f"{text}\n") for day, slug, text in EVENTS]
    return out


# The earlier session (captured and committed before the series): what recall can find in its archive.
EARLIER_TURNS = [
    ("The billing service calls the FX provider for every invoice line. Can we cache the exchange rates?",
     "Yes: a Redis cache keyed by currency pair, with a TTL, in billing/fx.py.", "cat billing/fx.py", "def rate(pair):\n    return fx_client.get(pair)\n"),
    ("What TTL should the exchange-rate cache use?",
     "The provider updates every 15 minutes, so a 15-minute TTL loses nothing.", "grep -rn FX_TTL billing/", "billing/settings.py:12: FX_TTL = None\n"),
    ("remember that the exchange-rate cache TTL is 15 minutes",
     "Noted. I set FX_TTL = 900 in billing/settings.py.", "sed -i 's/FX_TTL = None/FX_TTL = 900/' billing/settings.py", ""),
    ("Run the billing tests", "All 214 tests pass, including test_fx_cache_expiry.", "pytest billing -q", "214 passed in 9.81s\n"),
    ("I prefer cache invalidation through TTLs over explicit purges",
     "Understood; no purge endpoint then.", "git diff --stat", " billing/fx.py | 18 +++++++++---\n 1 file changed\n"),
]
# The current session's turns (rotated as the transcript grows).
CURRENT_TURNS = [
    ("Fix the flaky test in test_invoice_rounding that fails on leap years",
     "The test built dates with a fixed 365-day year; it now uses calendar dates.", "pytest billing/tests/test_invoice_rounding.py -q", "3 passed in 0.41s\n"),
    ("Add retry with exponential backoff to the webhook sender",
     "Added tenacity-style backoff: 1 s, 2 s, 4 s ... capped at 5 minutes.", "git diff webhooks/sender.py | head", "+    delay = min(2 ** attempt, 300)\n"),
    ("Where is the Kafka consumer group configured for the ledger service?",
     "In ledger/config/consumer.yaml, group id ledger-postings.", "rg -n group.id ledger/", "ledger/config/consumer.yaml:4: group.id: ledger-postings\n"),
    ("Make the reconciliation job idempotent",
     "The job now records a run key per day and skips a day already reconciled.", "pytest ledger -q -k reconcile", "12 passed in 2.02s\n"),
    ("Bump ruff and fix the new lint errors",
     "Ruff 0.8 flagged 14 issues; all fixed, mostly unused imports.", "ruff check .", "All checks passed!\n"),
]
NEW_PREFERENCE = "I prefer squash merges for feature branches"  # stated just before session-end
NEW_PREFERENCE_WORD = "squash"

# Prompts for prompt-submit: about the store (resources, memories, the earlier session) and not.
PROMPTS = [
    "How do we run the database migrations for the billing service before a deploy?",
    "What did we decide last time about caching the exchange rates?",
    "Write a haiku about autumn leaves falling on a quiet lake",
    "The ledger reconciliation job ran twice again, what was the fix last time?",
    "Explain the difference between a mutex and a semaphore in general terms",
    "Why does the Kafka consumer group of the webhooks service keep rebalancing?",
    "Refactor the payments retry loop so it uses exponential backoff with jitter",
    "Translate 'connection refused' into French and German please",
    "Which dashboards should I check in Grafana when the auth service pages?",
    "Add a regression test for the invoice rounding bug on 29 February",
]


# --- the host's side: transcript, hook input, processes ----------------------------------------


class Transcript:
    """A Claude Code transcript (JSON lines) that grows by whole turns."""

    def __init__(self, path: Path, session_id: str, cwd: Path) -> None:
        self.path, self.session_id, self.cwd = path, session_id, cwd
        self.turns = 0
        self.clock = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()

    def add_turn(self, prompt: str, answer: str, command: str, output: str) -> None:
        """A user prompt, an assistant line with a Bash ``tool_use``, its ``tool_result``, and the answer: 4 messages."""
        self.turns += 1
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        lines = [
            self._line("user", {"role": "user", "content": prompt}),
            self._line("assistant", {"id": f"msg_{uuid.uuid4().hex[:24]}", "role": "assistant", "model": "claude-sonnet-4-5",
                                     "content": [{"type": "text", "text": "Let me look."},
                                                 {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command}}]}),
            self._line("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": output or "(no output)"}]}),
            self._line("assistant", {"id": f"msg_{uuid.uuid4().hex[:24]}", "role": "assistant", "model": "claude-sonnet-4-5",
                                     "content": [{"type": "text", "text": answer}]}),
        ]
        with self.path.open("a", encoding="utf-8") as f:
            f.write("".join(json.dumps(line) + "\n" for line in lines))

    def _line(self, kind: str, message: dict) -> dict:
        self.clock += timedelta(seconds=7)
        return {"type": kind, "uuid": str(uuid.uuid4()), "sessionId": self.session_id, "cwd": str(self.cwd),
                "timestamp": self.clock.isoformat().replace("+00:00", "Z"), "version": "2.1.3", "message": message}


def payload(event: str, session_id: str, project: Path, transcript: Path, prompt: str | None = None) -> dict:
    """Claude Code's hook input for ``event``."""
    native = {"session-start": "SessionStart", "prompt-submit": "UserPromptSubmit", "stop": "Stop", "session-end": "SessionEnd"}[event]
    out = {"session_id": session_id, "transcript_path": str(transcript), "cwd": str(project), "hook_event_name": native}
    if event == "session-start":
        out["source"] = "startup"
    elif event == "prompt-submit":
        out |= {"prompt": prompt, "permission_mode": "default"}
    elif event == "stop":
        out["stop_hook_active"] = False
    else:
        out["reason"] = "exit"
    return out


def run_process(argv: list[str], env: dict[str, str], cwd: Path, stdin: bytes = b"") -> common.Run:
    """Like :func:`common.run_timed`, with ``stdin`` fed to the process (as a host pipes its JSON)."""
    cpu_before = common.children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    run = common.Run(time.perf_counter() - start, common.children_cpu() - cpu_before, proc)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {run.stderr[-500:]}")
    return run


class HookLog:
    """The records appended to ``$OV_HOME/logs/hooks.jsonl`` since the last look."""

    def __init__(self, home: Path) -> None:
        from ov.hosts.hooklog import log_path

        self.path = log_path(home)
        self.offset = 0
        self.jobs: list[dict] = []  # worker lines not yet claimed by a series

    def new(self) -> list[dict]:
        try:
            with self.path.open("rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        self.offset += end
        records = [json.loads(line) for line in data[:end].splitlines() if line.strip()]
        hooks = []
        for record in records:
            (self.jobs if str(record.get("event", "")).endswith("(job)") else hooks).append(record)
        return hooks

    def hook_record(self, event: str) -> dict:
        """The log line of the hook process that just ended (it logs before it exits)."""
        found = [r for r in self.new() if r.get("event") == event]
        if not found:
            raise RuntimeError(f"the {event} hook logged nothing")
        return found[-1]

    def wait_jobs(self, count: int, timeout: float = JOB_WAIT_SECONDS) -> list[dict]:
        """Wait until ``count`` worker lines arrived; return and claim them."""
        deadline = time.monotonic() + timeout
        while True:
            self.new()
            if len(self.jobs) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        claimed, self.jobs = self.jobs, []
        if len(claimed) < count:
            raise RuntimeError(f"only {len(claimed)} of {count} background jobs logged within {timeout:g} s")
        return claimed


LOCK_HOLDER = (
    "import sys\n"
    "from pathlib import Path\n"
    "from ov.store.lock import WriteLock\n"
    "lock = WriteLock(Path(sys.argv[1]), 60)\n"
    "lock.acquire()\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
    "lock.release()\n"
)


class LongWriter:
    """A separate process holding the account's write lock until it is stopped."""

    def __init__(self, lock_path: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(lock_path)], env=env, cwd=common.CHILD_CWD,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        if self.proc.stdout.readline().strip() != b"held":
            raise RuntimeError("the lock holder did not take the write lock")
        self.since = time.monotonic()
        self.held = 0.0

    def stop(self) -> None:
        """Release the lock (the holder exits); ``held`` is how long it was held, in seconds."""
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.held = time.monotonic() - self.since


@contextlib.contextmanager
def long_writer(lock_path: Path, env: dict[str, str], active: bool) -> Iterator[LongWriter | None]:
    """A :class:`LongWriter` for the ``with`` block when ``active``, else nothing."""
    if not active:
        yield None
        return
    writer = LongWriter(lock_path, env)
    try:
        yield writer
    finally:
        writer.stop()


def wait_queued(queue: Path, pid: int, jobs: HookLog, timeout: float = 10.0) -> None:
    """Wait until worker ``pid`` has a ticket in the write lock's queue (it waits for the lock), or logged."""
    deadline = time.monotonic() + timeout
    mark = f"-{pid}-"
    while time.monotonic() < deadline:
        try:
            if any(mark in name and not name.startswith(".") for name in os.listdir(queue)):
                return
        except FileNotFoundError:
            pass
        before = len(jobs.jobs)
        jobs.new()
        if len(jobs.jobs) > before:
            return
        time.sleep(0.01)


# --- the measurement ---------------------------------------------------------------------------


@dataclass
class Series:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    in_hook_ms: list[float] = field(default_factory=list)  # the hook's own "ms" log field
    outcomes: Counter = field(default_factory=Counter)

    def add(self, run: common.Run, record: dict | None) -> None:
        self.wall.append(run.wall)
        self.cpu.append(run.cpu)
        if record is not None:
            self.in_hook_ms.append(float(record.get("ms", "nan")))
            self.outcomes[str(record.get("outcome"))] += 1

    def stats(self, base_p50_ms: float | None = None) -> dict:
        out = common.summarize(self.wall)
        out["p95_ms"] = common.percentile([s * 1000 for s in self.wall], 95)
        out["cpu"] = common.summarize(self.cpu)
        if self.in_hook_ms:
            out["in_hook_ms"] = {"p50": common.percentile(self.in_hook_ms, 50), "max": max(self.in_hook_ms)}
        if self.outcomes:
            out["outcomes"] = dict(self.outcomes)
        if base_p50_ms:
            out["over_python_p50_ms"] = out["p50_ms"] - base_p50_ms
        return out


@dataclass
class Bench:
    ov: list[str]
    env: dict[str, str]
    home: Path
    project: Path
    log: HookLog
    session: str  # the current Claude session id
    transcript: Transcript
    turn: int = 0
    prefix: dict = field(default_factory=dict)

    def hook(self, event: str, data: dict) -> tuple[common.Run, dict]:
        run = run_process([*self.ov, "hook", HOST, event], self.env, self.project, json.dumps(data).encode())
        return run, self.log.hook_record(event)

    def baseline(self) -> common.Run:
        return run_process([sys.executable, "-c", "pass"], self.env, self.project)

    def ov_cli(self, *args: str) -> str:
        return run_process([*self.ov, *args], self.env, self.project).stdout

    def next_turn(self) -> None:
        self.transcript.add_turn(*CURRENT_TURNS[self.turn % len(CURRENT_TURNS)])
        self.turn += 1


def seed(b: Bench, files: int, tmp: Path) -> dict:
    """The realistic store; returns what was seeded and how long it took."""
    started = time.perf_counter()
    docs = tmp / "acme-docs"
    count = resource_tree(docs, files)
    b.ov_cli("add-resource", str(docs), "--to", RESOURCE_URI)
    for kind, text in REMEMBER:
        b.ov_cli("remember", text, *(["--type", kind] if kind else []))
    writes = memory_writes()
    for uri, text in writes:
        b.ov_cli("write", uri, "--content", text)
    memory_files = len(b.ov_cli("glob", "**/*.md", "--uri", "viking://user/default/memories").split())

    # The earlier session, through the hooks: captured at its stop, committed at its end.
    earlier_id = str(uuid.uuid4())
    earlier = Transcript(tmp / "claude" / "projects" / "-proj" / f"{earlier_id}.jsonl", earlier_id, b.project)
    for turn in EARLIER_TURNS:
        earlier.add_turn(*turn)
    b.hook("stop", payload("stop", earlier_id, b.project, earlier.path))
    b.log.wait_jobs(1)
    b.hook("session-end", payload("session-end", earlier_id, b.project, earlier.path))
    committed = b.log.wait_jobs(1)[0]
    if committed.get("outcome") != "committed":
        raise RuntimeError(f"the earlier session was not committed: {committed}")

    # The current session: three turns captured before the series.
    for _ in range(3):
        b.next_turn()
    b.hook("stop", payload("stop", b.session, b.project, b.transcript.path))
    b.log.wait_jobs(1)
    b.ov_cli("reindex")
    return {
        "resource_files": count,
        "memories_remembered": len(REMEMBER),
        "memories_written": len(writes),
        "memory_files": memory_files,
        "earlier_session_commit": committed,
        "seconds": time.perf_counter() - started,
    }


def recall_series() -> dict[str, Series]:
    return {name: Series() for name in (BASELINE, "session-start", "prompt-submit")}


def recall_round(b: Bench, series: dict[str, Series] | None, rep: int) -> None:
    """The baseline, a session start (a new session) and a prompt (the current session; prompt ``rep`` of the rotation).

    ``series`` None: a warm-up round, not recorded.
    """
    run = b.baseline()
    if series is not None:
        series[BASELINE].add(run, None)
    run, record = b.hook("session-start", payload("session-start", str(uuid.uuid4()), b.project, b.project / "none.jsonl"))
    if series is not None:
        series["session-start"].add(run, record)
        if not b.prefix and run.stdout.strip():
            b.prefix = json.loads(run.stdout)["hookSpecificOutput"]
    prompt = PROMPTS[rep % len(PROMPTS)]
    run, record = b.hook("prompt-submit", payload("prompt-submit", b.session, b.project, b.transcript.path, prompt))
    if series is not None:
        series["prompt-submit"].add(run, record)


def blocks(reps: int, count: int) -> list[int]:
    """``reps`` split into ``count`` blocks as even as can be."""
    count = max(1, min(count, reps))
    return [reps // count + (1 if i < reps % count else 0) for i in range(count)]


def stop_series(b: Bench, reps: int, warmup: int, queue: Path | None) -> tuple[dict[str, Series], list[dict], int]:
    """``stop`` round-robin with the baseline: the series, the job lines collected, the jobs still running.

    Healthy (``queue`` None), each job is waited for before the next round (untimed). Locked,
    only until it queues for the write lock (a ticket in ``queue``), so jobs pile up as they would.
    """
    series = {BASELINE: Series(), "stop": Series()}
    collected: list[dict] = []
    pending = 0
    for rep in range(warmup + reps):
        timed = rep >= warmup
        b.next_turn()
        run = b.baseline()
        if timed:
            series[BASELINE].add(run, None)
        run, record = b.hook("stop", payload("stop", b.session, b.project, b.transcript.path))
        if timed:
            series["stop"].add(run, record)
        if not record.get("job"):
            raise RuntimeError(f"the stop hook started no job: {record}")
        if queue is None:
            collected += b.log.wait_jobs(1)
        else:
            pending += 1
            wait_queued(queue, int(record["job"]), b.log)
    return series, collected, pending


def barrier(b: Bench, reps: int) -> list[dict]:
    """``session-end`` then at once a new ``session-start``: how long the start waits for the commit."""
    out = []
    for i in range(reps):
        if i:  # a new session with a turn of its own to commit
            sid = str(uuid.uuid4())
            b.session, b.transcript = sid, Transcript(b.transcript.path.with_name(f"{sid}.jsonl"), sid, b.project)
            b.next_turn()
        b.transcript.add_turn(NEW_PREFERENCE + (f" (number {i})" if i else ""), "Noted.", "git config pull.rebase", "true\n")
        end_run, end_record = b.hook("session-end", payload("session-end", b.session, b.project, b.transcript.path))
        start_run, start_record = b.hook("session-start", payload("session-start", str(uuid.uuid4()), b.project, b.project / "none.jsonl"))
        job = b.log.wait_jobs(1)[0]
        context = json.loads(start_run.stdout)["hookSpecificOutput"]["additionalContext"] if start_run.stdout.strip() else ""
        out.append({
            "session_end_ms": end_run.wall * 1000,
            "session_end_outcome": end_record.get("outcome"),
            "session_start_ms": start_run.wall * 1000,
            "session_start_in_hook_ms": start_record.get("ms"),
            "waited_for_commits": start_record.get("waited_for_commits", 0),
            "commit_job_ms": job.get("ms"),
            "commit_job_outcome": job.get("outcome"),
            "commit_job_memories": job.get("memories"),
            "new_preference_visible": NEW_PREFERENCE_WORD in context,
        })
    return out


def live_message_count(home: Path, session: str) -> int:
    from ov.sessions.session import read_meta

    meta = read_meta(common.open_store(home), f"cc-{session}") or {}
    return int(meta.get("message_count", 0))


# --- the breakdown (--breakdown) ---------------------------------------------------------------

PHASE_PROBE = (
    "import time\n"
    "t0 = time.perf_counter()\n"
    "import json, sys\n"
    "from ov.hosts import runtime\n"
    "t1 = time.perf_counter()\n"
    "raw = sys.stdin.buffer.read()\n"
    "first = runtime.run(sys.argv[1], sys.argv[2], raw)\n"
    "t2 = time.perf_counter()\n"
    "second = runtime.run(sys.argv[1], sys.argv[2], raw)\n"
    "t3 = time.perf_counter()\n"
    "print(json.dumps({'import': t1 - t0, 'cold': t2 - t1, 'warm': t3 - t2, 'same': first == second, 'modules': len(sys.modules)}))\n"
)
# The steps of a prompt-submit hook, as (file suffix, function) in ov; cumulative times from cProfile.
STEPS = [
    ("ov/hosts/runtime.py", "run", "runtime.run (the whole hook)"),
    ("ov/config/loading.py", "load_config", "load_config"),
    ("ov/hosts/runtime.py", "_store", "identity, workspace peer, Store()"),
    ("ov/retrieval/plan.py", "session_context", "session_context (read the live session)"),
    ("ov/retrieval/plan.py", "plan_query", "plan_query (deterministic plan)"),
    ("ov/index/opening.py", "open", "Indices.open (HEAD, meta, tantivy)"),
    ("ov/index/sync.py", "_head", "  of which reading HEAD (dulwich)"),
    ("ov/retrieval/search.py", "retrieve", "retrieve (hierarchical ranking)"),
    ("ov/retrieval/find.py", "rank", "  of which find.rank"),
    ("ov/index/lexical.py", "_run", "  of which tantivy queries"),
    ("ov/retrieval/find.py", "attach_snippets", "attach_snippets"),
    ("ov/retrieval/context.py", "assemble", "context.assemble (read and fit the entries)"),
    ("ov/hosts/hooklog.py", "append", "hooklog.append"),
]
PROFILE_PROBE = (
    "import cProfile, json, pstats, sys\n"
    "from ov.hosts import runtime\n"
    "raw = sys.stdin.buffer.read()\n"
    "steps = json.loads(sys.argv[3])\n"
    "out = {}\n"
    "for phase in ('cold', 'warm'):\n"
    "    profiler = cProfile.Profile()\n"
    "    profiler.enable()\n"
    "    runtime.run(sys.argv[1], sys.argv[2], raw)\n"
    "    profiler.disable()\n"
    "    stats = pstats.Stats(profiler).stats\n"
    "    found = {}\n"
    "    for (path, _line, name), (_cc, _nc, _tt, cum, callers) in stats.items():\n"
    "        for suffix, func, label in steps:\n"
    "            if name == func and path.endswith(suffix):\n"
    "                found[label] = found.get(label, 0.0) + cum * 1000\n"
    "    out[phase] = found\n"
    "print(json.dumps(out))\n"
)


def breakdown(b: Bench, runs: int, report: common.Report) -> None:
    """A prompt-submit hook split up, in fresh processes: imports vs work, steps (cProfile), imports per package."""
    phases = defaultdict(list)
    imports: list[dict[str, float]] = []
    steps: dict[str, dict[str, list[float]]] = {"cold": defaultdict(list), "warm": defaultdict(list)}
    got: dict = {}
    for i in range(runs):
        data = json.dumps(payload("prompt-submit", b.session, b.project, b.transcript.path, PROMPTS[i % len(PROMPTS)])).encode()
        got = json.loads(run_process([sys.executable, "-c", PHASE_PROBE, HOST, "prompt-submit"], b.env, b.project, data).stdout)
        phases["import ov.hosts.runtime"].append(got["import"] * 1000)
        phases["first runtime.run (its lazy imports included)"].append(got["cold"] * 1000)
        phases["second runtime.run, same input (modules loaded)"].append(got["warm"] * 1000)
        phases["lazy imports and first-use costs (first - second)"].append((got["cold"] - got["warm"]) * 1000)
        profiled = json.loads(run_process([sys.executable, "-c", PROFILE_PROBE, HOST, "prompt-submit", json.dumps(STEPS)],
                                          b.env, b.project, data).stdout)
        for phase, found in profiled.items():
            for label, ms in found.items():
                steps[phase][label].append(ms)
        run = run_process([*_python_flags(b.ov, ["-X", "importtime"]), "hook", HOST, "prompt-submit"], b.env, b.project, data)
        totals: dict[str, float] = defaultdict(float)
        for line in run.stderr.splitlines():
            if line.startswith("import time:") and "self [us]" not in line:
                _, self_us, _cumulative, name = (p.strip() for p in line.replace("import time:", "|", 1).split("|"))
                top = name.split(".")[0]
                totals[name if top == "ov" else top] += int(self_us) / 1000.0
        imports.append(totals)
        b.log.new()
    rows = [(name, common.percentile(values, 50)) for name, values in phases.items()]
    report.metrics["breakdown"] = {"phases_p50_ms": dict(rows), "modules_loaded": got.get("modules")}
    common.print_table(("prompt-submit, in a fresh process (no profiler)", "p50 ms"), rows,
                       title=f"Where the time goes ({runs} runs; the interpreter's own start-up is the python -c pass row above)")
    step_rows = [(label, common.percentile(steps["cold"].get(label, []), 50), common.percentile(steps["warm"].get(label, []), 50))
                 for _suffix, _func, label in STEPS]
    report.metrics["breakdown"]["steps_cprofile_p50_ms"] = {label: {"first": cold, "second": warm} for label, cold, warm in step_rows}
    common.print_table(("step (cProfile cumulative, inflated by the profiler)", "first run ms", "second run ms"), step_rows,
                       title=f"prompt-submit steps: first run in a fresh process (imports inside), then again (median of {runs})")
    names = set().union(*imports)
    medians = {name: common.percentile([t.get(name, 0.0) for t in imports], 50) for name in names}
    report.metrics["breakdown"]["importtime_self_ms"] = medians
    top = sorted(medians.items(), key=lambda item: item[1], reverse=True)[:20]
    common.print_table(("package / ov module", "self import ms"), [*top, ("TOTAL", sum(medians.values()))],
                       title=f"-X importtime, one prompt-submit hook process (median of {runs}; importtime adds overhead)")


def against(b: Bench, rev: str, pairs: int, report: common.Report, files: int, keep: bool = False) -> None:
    """Paired A/B: each recall hook with ov at ``rev`` and as checked out, alternating, each side on
    a store its own ov seeded and indexed (:func:`own_side`): one store shared by both sides was
    built by this ov, and an older ov that finds an index of a schema it does not know rebuilds it,
    so across a schema change the two sides did not search the same index."""
    old_env = b.env | {"PYTHONPATH": os.pathsep.join(filter(None, [str(common.ov_at_revision(rev)), b.env.get("PYTHONPATH")]))}
    with common.temp_home(f"ov-bench-hooks-at-{rev}", keep) as at_home, common.temp_home("ov-bench-hooks-now", keep) as now_home:
        sides = {"at": own_side(b, at_home, old_env, files), "now": own_side(b, now_home, b.env, files)}
        inputs = {
            "session-start": lambda side, i: payload("session-start", str(uuid.uuid4()), side.project, side.project / "none.jsonl"),
            "prompt-submit": lambda side, i: payload("prompt-submit", side.session, side.project, side.transcript.path, PROMPTS[i % len(PROMPTS)]),
        }
        for event, make in inputs.items():  # untimed: each side compiles its bytecode once
            for name in ("at", "now", "at", "now"):
                sides[name].hook(event, make(sides[name], 0))
        walls: dict[str, dict[str, list[float]]] = {event: {"at": [], "now": []} for event in inputs}
        for i in range(pairs):
            for event, make in inputs.items():
                for name in ("at", "now") if i % 2 == 0 else ("now", "at"):
                    walls[event][name].append(sides[name].hook(event, make(sides[name], i))[0].wall)
    rows = []
    report.metrics["against"] = {"rev": rev, "pairs": pairs, "stores": "one per side, each seeded and indexed by its own ov"}
    for event, timed in walls.items():
        diffs = [(now - at) * 1000 for at, now in zip(timed["at"], timed["now"])]
        got = {
            "at_p50_ms": common.percentile(timed["at"], 50) * 1000,
            "now_p50_ms": common.percentile(timed["now"], 50) * 1000,
            "paired_median_diff_ms": common.percentile(diffs, 50),
            "now_faster_share": sum(d < 0 for d in diffs) / len(diffs),
        }
        report.metrics["against"][event] = got
        rows.append((event, got["at_p50_ms"], got["now_p50_ms"], got["paired_median_diff_ms"], f"{got['now_faster_share']:.0%}"))
    common.print_table(("hook", f"p50 ms at {rev}", "p50 ms now", "paired median diff ms", "pairs faster now"), rows,
                       title=f"Paired A/B against {rev} ({pairs} pairs, alternating order, a store per side seeded alike)")


def own_side(b: Bench, home: Path, env: dict[str, str], files: int) -> Bench:
    """One side of ``--against``: a store in ``home`` seeded as the series' was (:func:`seed`), by the
    ov that ``env`` runs, with a project and a current session of its own."""
    tmp = home / "host"
    project = tmp / "acme-billing"
    (project / ".git").mkdir(parents=True)
    session = str(uuid.uuid4())
    transcript = Transcript(tmp / "claude" / "projects" / "-acme-billing" / f"{session}.jsonl", session, project)
    side = Bench(b.ov, env | {"OV_HOME": str(home)}, home, project, HookLog(home), session, transcript)
    seeded = seed(side, files, tmp)
    print(f"--against: a store seeded in {seeded['seconds']:.1f} s for {'this ov' if env is b.env else env['PYTHONPATH'].split(os.pathsep)[0]}")
    return side


def _python_flags(argv: list[str], flags: list[str]) -> list[str]:
    if argv[0] == sys.executable:
        return [sys.executable, *flags, *argv[1:]]
    return [sys.executable, *flags, *argv]  # the console script is a Python file


# --- main ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = common.base_parser(__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30, help="timed runs per hook and condition (default 30)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed rounds before each series (default 2)")
    parser.add_argument("--files", type=int, default=200, help="resource files in the seeded store (default 200)")
    parser.add_argument("--blocks", type=int, default=3, help="blocks per condition the recall series alternate in (default 3)")
    parser.add_argument("--barrier-reps", type=int, default=1, help="session-end then session-start pairs (default 1)")
    parser.add_argument("--breakdown", action="store_true", help="also split a prompt-submit process into imports and steps")
    parser.add_argument("--against", metavar="REV", help="also time the recall hooks in pairs against ov at git revision REV (a store per side)")
    parser.add_argument("--pairs", type=int, default=60, help="pairs per hook for --against (default 60)")
    common.add_bytecode_option(parser)
    args = parser.parse_args(argv)
    common.header("hooks: `ov hook claude EVENT` as whole processes, healthy and beside a long writer")

    ov = common.ov_command()
    report = common.Report("hooks", params=vars(args) | {"ov_command": ov, "host": HOST})
    with common.temp_home("ov-bench-hooks", keep=args.keep) as home:
        tmp = home / "host"  # the project, the transcripts and the docs, beside the store
        project = tmp / "acme-billing"
        (project / ".git").mkdir(parents=True)
        session = str(uuid.uuid4())
        transcript = Transcript(tmp / "claude" / "projects" / "-acme-billing" / f"{session}.jsonl", session, project)
        b = Bench(ov, common.bench_env(home, args.bytecode), home, project, HookLog(home), session, transcript)

        seeded = seed(b, args.files, tmp)
        report.params["seeded"] = seeded
        print(f"seeded in {seeded['seconds']:.1f} s: {seeded['resource_files']} resource files, "
              f"{seeded['memory_files']} memory files ({seeded['memories_remembered']} ov remember, "
              f"{seeded['memories_written']} ov write), one committed earlier session")

        store = common.open_store(home)
        jobs: dict[str, list[dict]] = {}
        lock_held_s = None
        # Recall first, in blocks that alternate healthy and locked (ABBA...: drift hits both alike),
        # the lock held for each locked block; then capture, healthy, then locked.
        queue = store.lock_path.with_name("write.queue")
        for rep in range(args.warmup):
            recall_round(b, None, rep)
        results = {"healthy": recall_series(), "locked": recall_series()}
        done = {"healthy": 0, "locked": 0}
        for i, size in enumerate(blocks(args.reps, args.blocks)):
            for condition in ("healthy", "locked") if i % 2 == 0 else ("locked", "healthy"):
                with long_writer(store.lock_path, b.env, condition == "locked"):
                    for _ in range(size):
                        recall_round(b, results[condition], args.warmup + done[condition])
                        done[condition] += 1
        for condition in ("healthy", "locked"):
            with long_writer(store.lock_path, b.env, condition == "locked") as writer:
                stops, jobs[condition], pending = stop_series(b, args.reps, args.warmup, queue if condition == "locked" else None)
            if writer is not None:
                lock_held_s = writer.held
            jobs[condition] += b.log.wait_jobs(pending, timeout=store.config.store.lock_timeout + JOB_WAIT_SECONDS) if pending else []
            results[condition][BASELINE].wall += stops[BASELINE].wall  # one baseline per condition, from both series
            results[condition][BASELINE].cpu += stops[BASELINE].cpu
            results[condition]["stop"] = stops["stop"]
        expected_messages = 4 * b.transcript.turns
        stored_messages = live_message_count(home, b.session)
        barrier_runs = barrier(b, args.barrier_reps)

        # --- report
        rows = []
        for condition, series in results.items():
            base_p50 = common.percentile(series[BASELINE].wall, 50) * 1000
            for name, s in series.items():
                stats = s.stats(None if name == BASELINE else base_p50)
                report.metrics.setdefault(condition, {})[name] = stats
                rows.append((f"{name}  [{condition}]", stats["n"], stats["p50_ms"], stats["p95_ms"], stats["p99_ms"], stats["max_ms"],
                             stats["cpu"]["p50_ms"], stats.get("in_hook_ms", {}).get("p50", float("nan")),
                             stats.get("over_python_p50_ms", float("nan"))))
        common.print_table(
            ("hook", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "cpu p50 ms", "in-hook p50 ms", "p50 - python ms"),
            rows,
            title="Whole-process wall time (cpu = the process's own user+sys; in-hook = the ms the hook logged)",
        )
        for condition in results:
            for name in ("session-start", "prompt-submit", "stop"):
                outcomes = report.metrics[condition][name].get("outcomes", {})
                print(f"  {name} [{condition}]: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))

        job_rows = []
        for condition, lines in jobs.items():
            ms = [float(j["ms"]) for j in lines if "ms" in j]
            outcomes = Counter(str(j.get("outcome")) + (f" ({j['error'].split(':')[0]})" if j.get("error") else "") for j in lines)
            stats = common.summarize([m / 1000 for m in ms])
            stats["outcomes"] = dict(outcomes)
            stats["captured_messages"] = sum(int(j.get("captured") or 0) for j in lines)
            report.metrics[condition]["stop job"] = stats
            job_rows.append((f"stop (job)  [{condition}]", stats["n"], stats["p50_ms"], stats["p90_ms"], stats["max_ms"],
                             stats["captured_messages"], ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items()))))
        common.print_table(("detached job", "n", "p50 ms", "p90 ms", "max ms", "messages", "outcomes"), job_rows,
                           title="The stop hook's detached capture job (the ms it logged; warm-up rounds included)")
        report.metrics["locked_for_s"] = lock_held_s
        report.metrics["transcript_messages"] = expected_messages
        report.metrics["stored_messages"] = stored_messages
        print(f"write lock held {lock_held_s:.1f} s (store.lock_timeout {store.config.store.lock_timeout:g} s); once released, "
              f"{stored_messages} of the transcript's {expected_messages} messages were in the session")
        report.metrics["locked_vs_healthy_p50"] = {
            name: common.ratio(report.metrics["locked"][name]["p50_ms"], report.metrics["healthy"][name]["p50_ms"])
            for name in ("session-start", "prompt-submit", "stop")
        }
        print("p50 locked / healthy: " + ", ".join(f"{k} {v:.2f}" for k, v in report.metrics["locked_vs_healthy_p50"].items()))

        report.metrics["barrier"] = barrier_runs
        common.print_table(
            ("session-end then session-start", "end ms", "start ms", "start in-hook ms", "waited_for_commits", "commit job ms", "new preference shown"),
            [(f"#{i + 1}", r["session_end_ms"], r["session_start_ms"], r["session_start_in_hook_ms"], r["waited_for_commits"],
              r["commit_job_ms"], r["new_preference_visible"]) for i, r in enumerate(barrier_runs)],
            title="The commit barrier (healthy; reported, not a target)",
        )

        from ov.tokens import estimate_tokens

        context = b.prefix.get("additionalContext", "")
        tokens = estimate_tokens(context) if context else 0
        report.metrics["fixed_prefix"] = {"tokens": tokens, "chars": len(context), "openviking_tokens": OPENVIKING_PREFIX_TOKENS}
        common.print_table(
            ("fixed prefix at session start", "tokens", "chars"),
            [("ov: the session-start block (additionalContext)", tokens, len(context)),
             ("OpenViking: 13 MCP tool definitions + start-up injection", f"~{OPENVIKING_PREFIX_TOKENS:,}", "-")],
            title="Fixed prefix (ov.tokens.estimate_tokens; ov's own MCP tools not included)",
        )

        for condition in results:
            for name in ("session-start", "prompt-submit"):
                m = report.metrics[condition][name]
                report.targets.append(common.Target(f"{name} p50 [{condition}]", m["p50_ms"], TARGET_RECALL_P50_MS))
                report.targets.append(common.Target(f"{name} max [{condition}]", m["max_ms"], TARGET_RECALL_MAX_MS))
            report.targets.append(common.Target(f"stop p50 [{condition}]", report.metrics[condition]["stop"]["p50_ms"], TARGET_STOP_P50_MS))

        if args.breakdown:
            breakdown(b, 5, report)
        if args.against:
            against(b, args.against, args.pairs, report, args.files, args.keep)

    report.finish(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
