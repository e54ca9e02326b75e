"""Deterministic crash points for ``ov``: SIGKILL right before the N-th file-system step.

``ov`` runs in a child Python started as ``python -c BOOTSTRAP KILL_AT TRACE HOME ARGS...``.
The bootstrap wraps the ``os`` functions through which every rename, replace, unlink,
fsync, mkdir and rmdir of ov and dulwich goes (``pathlib``, ``shutil`` and
``os.makedirs`` call them too), counts their calls with one lock shared by all
threads, and then runs ``ov.cli.main.main``:

* ``KILL_AT == 0``: count only; at exit the calls are written to TRACE as JSON lines;
* ``KILL_AT == N``: right before call N, TRACE gets that call's description and the
  process sends itself SIGKILL.

The lock is held across each wrapped call, so "killed before call N" means every
earlier call has returned (the writer threads of a large change still choose, by
racing, which of their calls is number N). Nothing in ov itself knows about this.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

TEMP_MARKER = ".ov-tmp-"
WRAPPED = ("rename", "replace", "unlink", "remove", "fsync", "mkdir", "rmdir")

BOOTSTRAP = r'''
import os, signal, sys, threading
import json, shutil, tempfile  # imported first: their import-time checks see the real functions

KILL_AT, TRACE, HOME = int(sys.argv[1]), sys.argv[2], sys.argv[3]
PID = os.getpid()
LOCK = threading.RLock()
COUNT = [0]
CALLS = []


def describe(name, args):
    out = []
    for arg in args[:2]:
        if name == "fsync":
            try:
                arg = os.readlink("/proc/self/fd/%d" % (arg if isinstance(arg, int) else arg.fileno()))
            except (OSError, AttributeError):
                arg = "fd %r" % (arg,)
        text = os.fsdecode(arg) if isinstance(arg, (str, bytes, os.PathLike)) else str(arg)
        out.append(text.replace(HOME, "$OV_HOME"))
    return out


def wrap(name):
    real = getattr(os, name)

    def wrapper(*args, **kwargs):
        if os.getpid() != PID:  # a forked child: not ours to count
            return real(*args, **kwargs)
        with LOCK:
            COUNT[0] += 1
            number = COUNT[0]
            if number == KILL_AT:
                line = json.dumps({"n": number, "op": name, "args": describe(name, args),
                                   "thread": threading.current_thread().name})
                fd = os.open(TRACE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.write(fd, line.encode() + b"\n")
                os.close(fd)
                os.kill(PID, signal.SIGKILL)
            try:
                result = real(*args, **kwargs)
            except OSError as exc:
                if not KILL_AT:
                    CALLS.append({"n": number, "op": name, "args": describe(name, args), "ok": False,
                                  "error": type(exc).__name__})
                raise
            if not KILL_AT:
                CALLS.append({"n": number, "op": name, "args": describe(name, args), "ok": True})
            return result

    wrapper.__wrapped__ = real
    setattr(os, name, wrapper)


for _name in ("rename", "replace", "unlink", "remove", "fsync", "mkdir", "rmdir"):
    wrap(_name)

from ov.cli.main import main

try:
    main(sys.argv[4:])
finally:
    if not KILL_AT:
        with open(TRACE, "w", encoding="utf-8") as handle:
            for call in CALLS:
                handle.write(json.dumps(call) + "\n")
'''


# Several ov commands in one process, one after the other (checks after a trial: a process
# start costs more than `ov find` or `ov fsck` themselves). Each command's output follows a
# marker line on stdout; the exit codes come last.
SEQUENCE = r'''
import json, sys
from ov.cli.main import run

codes = []
for args in json.loads(sys.argv[1]):
    print("@@ov " + " ".join(args), flush=True)
    sys.stderr.write("@@ov " + " ".join(args) + "\n")
    codes.append(run(args))
    sys.stdout.flush()
    sys.stderr.flush()
print("@@codes " + json.dumps(codes), flush=True)
'''


def run_sequence(commands: Sequence[Sequence[str]], env: dict[str, str], cwd: Path, timeout: float = 120) -> list[tuple[int, str, str]]:
    """Run ``ov`` commands in one process, in order; (exit code, stdout, stderr) of each."""
    proc = subprocess.run(
        [sys.executable, "-c", SEQUENCE, json.dumps([list(c) for c in commands])],
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    out, err = proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace")
    head, _, codes = out.rpartition("@@codes ")
    if not codes:
        return [(proc.returncode if proc.returncode else 1, out, err)] * len(commands)
    outs = head.split("@@ov ")[1:]
    errs = err.split("@@ov ")[1:]
    result = []
    for i, code in enumerate(json.loads(codes)):
        text = outs[i].partition("\n")[2] if i < len(outs) else ""
        etext = errs[i].partition("\n")[2] if i < len(errs) else ""
        result.append((code, text, etext))
    return result


@dataclass(frozen=True)
class Call:
    """One counted file-system call of a full run."""

    n: int
    op: str
    args: tuple[str, ...]
    ok: bool = True

    @property
    def kind(self) -> str:
        """What the call touches: ref, loose object, pack, git index, journal, work tree, ..."""
        path = self.args[0] if self.args else ""
        target = self.args[1] if len(self.args) > 1 else path
        if "/.git/" in path or path.endswith("/.git"):
            if "/refs/" in path:
                return "ref"
            if "/objects/pack" in path:
                return "pack"
            if "/objects/" in path:
                return "object"
            if path.endswith("/index") or path.endswith("/index.lock"):
                return "git-index"
            return "git-other"
        if "/state/" in path:
            return "journal" if "journal" in path or "journal" in target else "state"
        if "/accounts/" in path:
            return "worktree"
        return "other"

    def __str__(self) -> str:
        return f"#{self.n} {self.op}({', '.join(self.args)})"


@dataclass(frozen=True)
class Killed:
    """What a kill run did: killed before ``call`` (None: it ran to the end and exited ``returncode``)."""

    point: int
    returncode: int
    call: str | None
    stdout: str
    stderr: str

    @property
    def killed(self) -> bool:
        return self.returncode == -signal.SIGKILL


def ov_argv(kill_at: int, trace: Path, home: Path, args: Sequence[str]) -> list[str]:
    return [sys.executable, "-c", BOOTSTRAP, str(kill_at), str(trace), str(home), *args]


def count_calls(args: Sequence[str], home: Path, env: dict[str, str], trace: Path, cwd: Path, timeout: float = 120) -> list[Call]:
    """Run ``ov ARGS`` to the end, counting; return its calls. The command must succeed."""
    proc = subprocess.run(
        ov_argv(0, trace, home, args), env=env, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    if proc.returncode != 0:
        raise AssertionError(f"counting run of ov {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()[-2000:]}")
    calls = []
    for line in trace.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        calls.append(Call(item["n"], item["op"], tuple(item["args"]), item["ok"]))
    return calls


def run_killed(args: Sequence[str], home: Path, env: dict[str, str], point: int, trace: Path, cwd: Path, timeout: float = 120) -> Killed:
    trace.unlink(missing_ok=True)
    proc = subprocess.run(
        ov_argv(point, trace, home, args), env=env, cwd=cwd, capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL
    )
    call = None
    if trace.exists():
        item = json.loads(trace.read_text(encoding="utf-8"))
        call = f"#{item['n']} {item['op']}({', '.join(item['args'])}) in {item['thread']}"
    return Killed(point, proc.returncode, call, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"))


def choose_points(calls: Sequence[Call], limit: int = 25, edge: int = 3) -> list[int]:
    """Kill points for a command with ``calls``: all of them when few, else a deterministic spread.

    Calls that changed nothing (a ``mkdir`` of an existing directory, an ``unlink`` of a
    missing file) are only worth a kill when nothing else is left. The spread always
    has the first call (before anything was done), the first ``edge`` calls that did
    something, the last ``edge + 1`` calls (the ref update and the journal's removal
    come last), the first and the last call of each (operation, kind of path), and
    then calls that did something, evenly spaced, up to ``limit``.
    """
    total = len(calls)
    if total <= limit:
        return list(range(1, total + 1))
    effective = [c.n for c in calls if c.ok]
    wanted: list[int] = [1] + effective[:edge] + list(range(total - edge, total + 1))
    groups: dict[tuple[str, str], list[int]] = {}
    for call in calls:
        if call.ok:
            groups.setdefault((call.op, call.kind), []).append(call.n)
    for numbers in groups.values():
        wanted += [numbers[0], numbers[-1]]
    chosen = list(dict.fromkeys(n for n in wanted if 1 <= n <= total))[:limit]
    rest = [n for n in effective if n not in chosen]
    room = limit - len(chosen)
    if room > 0 and rest:
        step = len(rest) / room
        chosen += list(dict.fromkeys(rest[int(i * step)] for i in range(room)))
    return sorted(set(chosen))


def leftovers(home: Path, account: str = "default") -> list[str]:
    """Git lock files under ``.git`` and ov temp files in the work tree or the state directory."""
    found = []
    repo = home / "accounts" / account
    state = home / "state" / account
    git_dir = repo / ".git"
    for root, _dirs, files in os.walk(git_dir):
        for name in files:
            if name.endswith(".lock") or TEMP_MARKER in name:
                found.append(os.path.relpath(os.path.join(root, name), home))
    for base in (repo, state):
        for root, dirs, files in os.walk(base):
            if Path(root) == repo and ".git" in dirs:
                dirs.remove(".git")
            for name in files + dirs:
                if TEMP_MARKER in name:
                    found.append(os.path.relpath(os.path.join(root, name), home))
    return sorted(found)


def committed_files(repo_dir: Path, commit: bytes | None = None) -> dict[str, bytes]:
    """{path: bytes} of every file in ``commit`` (default: the branch head), read with dulwich."""
    from dulwich.repo import Repo

    repo = Repo(str(repo_dir))
    try:
        sha = commit or repo.refs[b"refs/heads/main"]
        return {
            entry.path.decode(): repo.object_store[entry.sha].as_raw_string()
            for entry in repo.object_store.iter_tree_contents(repo[sha].tree)
        }
    finally:
        repo.close()


def head_of(repo_dir: Path) -> bytes:
    return (repo_dir / ".git" / "refs" / "heads" / "main").read_bytes().strip()


def ancestors(repo_dir: Path, commit: bytes, limit: int = 10_000) -> set[bytes]:
    from dulwich.repo import Repo

    repo = Repo(str(repo_dir))
    try:
        return {entry.commit.id for entry in repo.get_walker(include=[commit], max_entries=limit)}
    finally:
        repo.close()


def parents_of(repo_dir: Path, commit: bytes) -> list[bytes]:
    from dulwich.repo import Repo

    repo = Repo(str(repo_dir))
    try:
        return list(repo[commit].parents)
    finally:
        repo.close()


def worktree_files(repo_dir: Path) -> dict[str, bytes]:
    """{path: bytes} of the work tree's regular files below the scopes (no .git, no temp files)."""
    out = {}
    for root, dirs, files in os.walk(repo_dir):
        if Path(root) == repo_dir:
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            if TEMP_MARKER in name:
                continue
            path = Path(root) / name
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(repo_dir).as_posix()] = path.read_bytes()
    return out


def diff(old: dict[str, bytes], new: dict[str, bytes]) -> dict[str, bytes | None]:
    """path -> new bytes (None: deleted) for every path that differs."""
    return {p: new.get(p) for p in sorted(set(old) | set(new)) if old.get(p) != new.get(p)}


def describe_paths(paths: Iterable[str], limit: int = 8) -> str:
    items = sorted(paths)
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")
