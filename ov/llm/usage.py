"""LLM token accounting: every call ov makes is appended to ``state/{account}/usage.jsonl``.

``ov usage`` sums it up. The log is derived data (never committed); losing it loses
only the statistics.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from ov.errors import not_writable
from ov.home import Home

USAGE_FILE = "usage.jsonl"


@dataclass(frozen=True)
class UsageRecord:
    """One model call in the usage log: when, what for, which model, how many tokens."""

    time: float
    purpose: str  # "summary", "extraction", "query_plan", ...
    model: str
    prompt_tokens: int
    completion_tokens: int
    # A request ov stopped waiting for (an MCP call cancelled) that ended without an answer: what
    # it cost is unknown (a server may bill a prompt it read), and 0 tokens are counted.
    cancelled: bool = False


def record(state_dir: Path, purpose: str, model: str, prompt_tokens: int, completion_tokens: int, *, cancelled: bool = False) -> None:
    """Append one call to the log. A store ov may only read (a search of it with an API embedder
    or a query plan by a model) keeps no log: the call goes uncounted rather than failing the search."""
    entry = asdict(UsageRecord(time.time(), purpose, model, int(prompt_tokens), int(completion_tokens), cancelled))
    if not cancelled:
        del entry["cancelled"]  # the lines of every answered call keep the shape older ovs read
    line = json.dumps(entry, sort_keys=True) + "\n"
    try:
        # A model called before anything else wrote (`ov remember` in a fresh state/): the account's
        # state folder is made here, private, as its other first makers make it.
        Home.of_state_dir(state_dir).ensure(state_dir)
        # O_APPEND keeps concurrent writers' lines whole (each line is one small write).
        fd = os.open(state_dir / USAGE_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    except OSError as exc:
        if not_writable(exc, state_dir) is None:
            raise
        return
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)


@dataclass(frozen=True)
class UsageLog:
    """Where the chat calls made for one ``purpose`` are logged. Given to
    :func:`ov.llm.client.complete`, which logs one line per call the model answered, an answer
    that turned out useless included (it was billed): callers never count tokens themselves."""

    state_dir: Path
    purpose: str

    def record(self, model: str, prompt_tokens: int, completion_tokens: int, *, cancelled: bool = False) -> None:
        record(self.state_dir, self.purpose, model, prompt_tokens, completion_tokens, cancelled=cancelled)


def read(state_dir: Path) -> Iterator[UsageRecord]:
    try:
        handle = (state_dir / USAGE_FILE).open(encoding="utf-8")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            try:
                yield UsageRecord(**json.loads(line))
            except (ValueError, TypeError):
                continue  # a torn last line after a crash


def totals(state_dir: Path, since: float | None = None) -> dict[str, dict[str, int]]:
    """Calls and tokens per purpose and model (``purpose/model``), plus an ``all`` row; ``cancelled``
    (in a row that has any): how many of its calls were requests given up on that ended without an answer."""
    out: dict[str, dict[str, int]] = {}
    for rec in read(state_dir):
        if since is not None and rec.time < since:
            continue
        for key in (f"{rec.purpose}/{rec.model}", "all"):
            row = out.setdefault(key, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            row["calls"] += 1
            if rec.cancelled:
                row["cancelled"] = row.get("cancelled", 0) + 1
            row["prompt_tokens"] += rec.prompt_tokens
            row["completion_tokens"] += rec.completion_tokens
    return out
