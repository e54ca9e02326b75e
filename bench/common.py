"""Helpers shared by the benchmark scripts in ``bench/``.

Everything a benchmark needs besides its own measurement loop lives here:
summary statistics, timing, a throw-away ``OV_HOME``, opening and seeding a
store, the ``ov`` command line and a clean environment for subprocesses,
profiling, and reporting (a plain-text table on stdout plus a JSON file in
``bench/results/``).

The scripts never assert on wall-clock time. They report medians and
percentiles over repeated runs, and ratios against a baseline measured in the
same process, and say whether a target is met.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import cProfile
import io
import json
import math
import os
import platform
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
# The dev splits (../shared/bench-data): read from there, never copied into the repository.
BENCH_DATA = REPO_ROOT.parent / "shared" / "bench-data"

# Run from a checkout without installing: make `import ov` find the sources.
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

# Environment variables that could point ov or git somewhere else; never inherited.
SCRUBBED_PREFIXES = ("OV_", "OPENVIKING_", "GIT_")
SEED_ROOT = "viking://resources/seed"
# Children run outside the checkout, so `python -c`/`-m` cannot import ./ov by accident.
CHILD_CWD = tempfile.gettempdir()


# --- statistics ----------------------------------------------------------------


def percentile(values: Sequence[float], pct: float) -> float:
    """The ``pct``-th percentile (0..100), linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    if len(ordered) == 1:
        return float(ordered[0])
    rank = (len(ordered) - 1) * pct / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return float(ordered[low] + (ordered[high] - ordered[low]) * (rank - low))


def summarize(seconds: Sequence[float]) -> dict[str, float]:
    """Count, min, p50, p90, p99, max and mean of samples given in seconds, reported in ms."""
    ms = [s * 1000.0 for s in seconds]
    return {
        "n": len(ms),
        "min_ms": min(ms) if ms else math.nan,
        "p50_ms": percentile(ms, 50),
        "p90_ms": percentile(ms, 90),
        "p99_ms": percentile(ms, 99),
        "max_ms": max(ms) if ms else math.nan,
        "mean_ms": sum(ms) / len(ms) if ms else math.nan,
    }


def ratio(value: float, baseline: float) -> float:
    return value / baseline if baseline else math.nan


# --- timing --------------------------------------------------------------------


def time_call(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Run ``fn`` once; return (elapsed seconds, its result)."""
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


# --- stores and homes ------------------------------------------------------------


@contextlib.contextmanager
def temp_home(label: str = "ov-bench", keep: bool = False) -> Iterator[Path]:
    """A fresh, empty ``OV_HOME`` directory, removed afterwards unless ``keep``."""
    root = Path(tempfile.mkdtemp(prefix=f"{label}-"))
    try:
        yield root
    finally:
        if keep:
            print(f"(kept {root})", file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def temp_homes(count: int, label: str = "ov-bench", keep: bool = False) -> Iterator[list[Path]]:
    """``count`` fresh ``OV_HOME`` directories at once (see :func:`temp_home`)."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(temp_home(f"{label}{i}", keep)) for i in range(count)]


def open_store(home_root: Path):
    """The default account's store in ``home_root``, as the CLI would open it (no config file)."""
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    return Store(Home(home_root), Identity(), Config())


def seed_path(index: int, fanout: int = 10, depth: int = 2, root: str = SEED_ROOT) -> str:
    """URI of seeded file ``index``: spread round-robin over ``fanout ** depth`` nested directories.

    With the defaults, 100 files land one per leaf directory and 10,000 files
    100 per leaf, e.g. ``viking://resources/seed/d03/d07/f000073.md``.
    """
    parts = []
    rest = index
    for _ in range(depth):
        parts.append(f"d{rest % fanout:02d}")
        rest //= fanout
    return f"{root}/{'/'.join(parts)}/f{index:07d}.md"


def file_body(index: int, tag: str = "seed", lines: int = 8) -> bytes:
    """A small, distinct text file (about 400 bytes)."""
    head = f"# {tag} file {index}\n\n"
    body = "".join(f"line {n} of {tag} file {index}: some context an agent wrote down.\n" for n in range(lines))
    return (head + body).encode()


def seed_store(store, count: int, *, fanout: int = 10, depth: int = 2, root: str = SEED_ROOT) -> float:
    """Write ``count`` files under ``root`` in ONE transaction (one commit); return the seconds taken."""
    start = time.perf_counter()
    with store.transaction() as tx:
        for i in range(count):
            tx.put(store.uri(seed_path(i, fanout, depth, root)), file_body(i))
        tx.commit("bench-seed", [store.uri(root)])
    return time.perf_counter() - start


# --- subprocesses ------------------------------------------------------------------


def ov_command() -> list[str]:
    """argv prefix that runs the CLI: the ``ov`` console script next to this Python, else ``python -m ov``."""
    bindir = Path(sys.executable).parent
    for name in ("ov", "ov.exe"):
        script = bindir / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "ov"]


_TEMP_DIRS: dict[str, Path] = {}


def _run_temp_dir(kind: str) -> Path:
    """A temporary directory for this run (one per ``kind``), removed at exit."""
    if kind not in _TEMP_DIRS:
        _TEMP_DIRS[kind] = Path(tempfile.mkdtemp(prefix=f"ov-bench-{kind}-"))
        atexit.register(shutil.rmtree, _TEMP_DIRS[kind], True)
    return _TEMP_DIRS[kind]


def uncompiled_ov_copy() -> Path:
    """A copy of this checkout's ``ov`` package without any ``__pycache__``, for ``bytecode="source"``."""
    root = _run_temp_dir("src")
    if not (root / "ov").is_dir():
        shutil.copytree(REPO_ROOT / "ov", root / "ov", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return root


def ov_at_revision(rev: str) -> Path:
    """A directory holding this checkout's ``ov`` package as it was at git revision ``rev``.

    Put it first on ``PYTHONPATH`` to run that version with the same interpreter and
    dependencies, e.g. to time a change against its parent in one run.
    """
    root = _run_temp_dir(f"rev-{rev}")
    if not (root / "ov").is_dir():
        archive = subprocess.run(["git", "archive", rev, "ov"], cwd=REPO_ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root


BYTECODE_MODES = ("cached", "source", "inherit")


def bench_env(home_root: Path | None = None, bytecode: str = "cached") -> dict[str, str]:
    """The current environment without ov/OpenViking/git overrides, with ``OV_HOME`` set.

    ``bytecode`` decides how child Pythons get ov's modules:

    * ``"cached"`` (default): like an installed package, every module is
      compiled once and then loaded from bytecode. ``PYTHONDONTWRITEBYTECODE``
      is dropped and the cache goes to a private ``PYTHONPYCACHEPREFIX`` (so
      nothing is written next to the sources);
    * ``"source"``: ov's modules are compiled from source in every process, as
      in a checkout without ``__pycache__`` under ``PYTHONDONTWRITEBYTECODE=1``.
      A ``__pycache__``-free copy of ``ov/`` is put first on ``PYTHONPATH``;
      the standard library and dependencies keep their installed bytecode;
    * ``"inherit"``: leave the caller's settings alone.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}
    env["NO_COLOR"] = "1"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    if bytecode == "cached":
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(_run_temp_dir("pycache"))
        # This checkout's ov, not the one the virtualenv's editable install points at (a worktree
        # run with another checkout's .venv timed that checkout's code).
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    elif bytecode == "source":
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(uncompiled_ov_copy()), env.get("PYTHONPATH")]))
    elif bytecode != "inherit":
        raise ValueError(f"bytecode must be one of {BYTECODE_MODES}, not {bytecode!r}")
    if home_root is not None:
        env["OV_HOME"] = str(home_root)
    return env


@dataclass
class Run:
    """One finished child process: wall time, its CPU time (user + system) and the completed process."""

    wall: float
    cpu: float
    proc: subprocess.CompletedProcess

    @property
    def stdout(self) -> str:
        return self.proc.stdout.decode(errors="replace")

    @property
    def stderr(self) -> str:
        return self.proc.stderr.decode(errors="replace")


def children_cpu() -> float:
    """User + system CPU seconds of all waited-for child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_timed(argv: Sequence[str], env: dict[str, str], *, check: bool = True) -> Run:
    """Run a process to completion, output captured; measure its wall and CPU time.

    CPU time is the ``RUSAGE_CHILDREN`` difference, exact as long as no other
    child of this process finishes meanwhile (the scripts run these one at a time).
    """
    cpu_before = children_cpu()
    start = time.perf_counter()
    proc = subprocess.run(list(argv), env=env, cwd=CHILD_CWD, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    run = Run(time.perf_counter() - start, children_cpu() - cpu_before, proc)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}: {run.stderr[-500:]}")
    return run


# --- profiling -------------------------------------------------------------------


def profile_top(fn: Callable[[], Any], limit: int = 25, sort: str = "cumulative") -> str:
    """Run ``fn`` under cProfile; return the ``limit`` top rows sorted by ``sort`` as text."""
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        fn()
    finally:
        profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.strip_dirs().sort_stats(sort).print_stats(limit)
    return out.getvalue()


# --- reporting ---------------------------------------------------------------------


def machine_info() -> dict[str, Any]:
    try:
        from ov import __version__ as ov_version
    except Exception:  # noqa: BLE001 - informational only
        ov_version = None
    try:
        from importlib.metadata import version

        dulwich_version = version("dulwich")
    except Exception:  # noqa: BLE001
        dulwich_version = None
    return {
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d"),
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "ov": ov_version,
        "dulwich": dulwich_version,
        "loadavg_1m": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }


def fmt(value: Any, digits: int = 1) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.{digits}f}"
    return str(value)


def print_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None, digits: int = 1) -> None:
    """A fixed-width text table: first column left-aligned, the rest right-aligned."""
    cells = [[fmt(c, digits) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]

    def line(items: Sequence[str]) -> str:
        return "  ".join(s.ljust(w) if i == 0 else s.rjust(w) for i, (s, w) in enumerate(zip(items, widths)))

    if title:
        print(f"\n{title}")
    print(line(headers))
    print("  ".join("-" * w for w in widths))
    for row in cells:
        print(line(row))


@dataclass
class Target:
    """A goal from the issue, checked against a measured value (reported, never asserted)."""

    name: str
    measured: float
    limit: float
    unit: str = "ms"
    higher_is_better: bool = False  # throughput targets (files/s) are minimums

    @property
    def met(self) -> bool:
        return self.measured >= self.limit if self.higher_is_better else self.measured <= self.limit

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "measured": self.measured, "limit": self.limit, "unit": self.unit, "met": self.met, "higher_is_better": self.higher_is_better}


def print_targets(targets: Sequence[Target]) -> None:
    if not targets:
        return
    rows = [(t.name, f"{fmt(t.measured, 2)} {t.unit}", f"{'>=' if t.higher_is_better else '<='} {fmt(t.limit, 2)} {t.unit}", "MET" if t.met else "MISSED") for t in targets]
    print_table(("target", "measured", "goal", "result"), rows, title="Targets")


@dataclass
class Report:
    """Collects a benchmark's parameters, metrics and targets; prints them and writes the JSON file."""

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, Any] = field(default_factory=dict)
    targets: list[Target] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    machine: dict[str, Any] = field(default_factory=lambda: machine_info())

    def write_json(self, path: Path | None = None) -> Path:
        path = path or RESULTS_DIR / f"{self.name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "benchmark": self.name,
            "machine": self.machine | {"loadavg_1m_at_end": machine_info()["loadavg_1m"]},
            "params": self.params,
            "metrics": self.metrics,
            "targets": [t.as_dict() for t in self.targets],
            "notes": self.notes,
        }
        path.write_text(json.dumps(payload, indent=2, sort_keys=True, default=_json_default) + "\n", encoding="utf-8")
        return path

    def finish(self, path: Path | None = None) -> Path:
        print_targets(self.targets)
        for note in self.notes:
            print(f"note: {note}")
        written = self.write_json(path)
        print(f"\nmetrics written to {_display(written)}")
        return written


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"cannot serialise {type(value).__name__}")


def _display(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def base_parser(description: str) -> argparse.ArgumentParser:
    """An argument parser with the options every benchmark takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=None, help="JSON output path (default: bench/results/NAME.json)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary OV_HOME directories")
    return parser


def add_bytecode_option(parser: argparse.ArgumentParser) -> None:
    """``--bytecode`` for scripts that start ov processes (see :func:`bench_env`)."""
    parser.add_argument(
        "--bytecode",
        choices=BYTECODE_MODES,
        default="cached",
        help="child processes load ov from a .pyc cache like an installed package (cached, default), "
        "compile ov's modules from source every run (source), or inherit the caller's environment",
    )


def header(title: str) -> None:
    info = machine_info()
    print(f"{title}")
    load = info["loadavg_1m"]
    print(
        f"{info['timestamp']}  python {info['python']}  ov {info['ov']}  dulwich {info['dulwich']}  "
        f"cpus {info['cpus']}  load {fmt(load, 2)}  {info['platform']}"
    )
    if load is not None and load > 0.5 * (info["cpus"] or 1):
        print(f"warning: 1-minute load average is {info['loadavg_1m']:.2f}; other work on this machine will skew the figures")


# --- retrieval benchmarks: stores as a user, config overrides, ranking metrics ----------


def open_store_as(home_root: Path, user: str | None = None, config=None):
    """The default account's store in ``home_root`` seen as ``user`` (default user when None), with ``config``."""
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    identity = Identity(user=user) if user else Identity()
    return Store(Home(home_root), identity, config or Config())


def _coerce(text: str, current: Any) -> Any:
    if isinstance(current, bool):
        lowered = text.strip().lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"expected true/false, not {text!r}")
    if isinstance(current, int):
        return int(text)
    if isinstance(current, float):
        return float(text)
    if current is None:  # an optional field (e.g. a vector weight left to the embedder's default)
        if text.strip().lower() in ("none", "null", ""):
            return None
        try:
            return float(text)
        except ValueError:
            return text
    return text


def parse_assignment(text: str) -> tuple[str, str]:
    """``"retrieval.context_weight=0.3"`` -> (``"retrieval.context_weight"``, ``"0.3"``)."""
    key, sep, value = text.partition("=")
    if not sep or "." not in key:
        raise ValueError(f"expected SECTION.KEY=VALUE, not {text!r}")
    return key.strip(), value.strip()


def config_with(config, assignments: Sequence[tuple[str, str]] | dict[str, str]):
    """A copy of ``config`` (an ``ov.config.Config``) with dotted keys set; values are read by each field's type."""
    import dataclasses

    items = assignments.items() if isinstance(assignments, dict) else assignments
    for key, text in items:
        section_name, _, name = key.partition(".")
        section = getattr(config, section_name, None)
        if section is None or not dataclasses.is_dataclass(section) or name not in {f.name for f in dataclasses.fields(section)}:
            raise ValueError(f"unknown config key {key!r}")
        value = _coerce(text, getattr(section, name)) if isinstance(text, str) else text
        config = dataclasses.replace(config, **{section_name: dataclasses.replace(section, **{name: value})})
    return config


def embedder_assignments(spec: str | None) -> list[tuple[str, str]]:
    """``--embedder`` as config assignments: ``auto`` (leave the config), ``none``, ``hash``,
    ``builtin`` (the model in ov's wheel), ``minilm`` (the extra), ``model2vec:PATH``,
    ``sentence-transformers:PATH``, ``litellm:MODEL``."""
    if not spec or spec == "auto":
        return []
    provider, _, model = spec.partition(":")
    if provider not in ("none", "hash", "builtin", "minilm", "model2vec", "sentence-transformers", "litellm"):
        raise ValueError(f"unknown embedder {spec!r}")
    out = [("embedding.provider", provider)]
    if model:
        out.append(("embedding.model", str(Path(model).expanduser().absolute()) if provider != "litellm" else model))
    return out


def first_rank(ranked: Sequence[Any], relevant: Any) -> int | None:
    """1-based rank of the first item of ``ranked`` that is in ``relevant``; None when none is."""
    for i, item in enumerate(ranked, start=1):
        if item in relevant:
            return i
    return None


def hit_rates(ranks: Sequence[int | None], ks: Sequence[int]) -> dict[str, float]:
    """``R@k`` (the share of queries with a relevant item in the top k) for each k, and MRR."""
    n = len(ranks) or 1
    out = {f"R@{k}": sum(1 for r in ranks if r is not None and r <= k) / n for k in ks}
    out["MRR"] = sum(1.0 / r for r in ranks if r) / n
    out["n"] = len(ranks)
    return out


def ndcg_at(ranked: Sequence[Any], grades: dict[Any, float], k: int) -> float:
    """nDCG@k with graded gains (``grades``: item -> relevance), log2 discount; duplicates in ``ranked`` count once."""
    seen: set = set()
    dcg = 0.0
    position = 0
    for item in ranked:
        if item in seen:
            continue
        seen.add(item)
        position += 1
        if position > k:
            break
        gain = grades.get(item, 0.0)
        if gain:
            dcg += gain / math.log2(position + 1)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[Any], relevant: Any, k: int) -> float:
    """The share of ``relevant`` found in the first ``k`` distinct items of ``ranked``."""
    if not relevant:
        return 0.0
    top = list(dict.fromkeys(ranked))[:k]
    return len(set(top) & set(relevant)) / len(set(relevant))


def git_state() -> dict[str, Any]:
    """The checkout's HEAD and whether ``ov/`` has uncommitted changes (results depend on both)."""
    def run(*argv: str) -> str:
        try:
            return subprocess.run(["git", *argv], cwd=REPO_ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    return {"head": run("rev-parse", "--short", "HEAD") or None, "ov_dirty": bool(run("status", "--porcelain", "--", "ov"))}


def preload_retrieval() -> None:
    """Import ov's retrieval modules up front, so a run uses one consistent version of them
    (other work in the same checkout may change the sources while a long benchmark runs)."""
    import ov.index.embedders.registry  # noqa: F401
    import ov.index.lexical  # noqa: F401
    import ov.index.records  # noqa: F401
    import ov.index.sync  # noqa: F401
    import ov.index.vectors  # noqa: F401
    import ov.ingest.resource  # noqa: F401
    import ov.retrieval.find  # noqa: F401
    import ov.sessions.commit  # noqa: F401
    import ov.sessions.session  # noqa: F401
