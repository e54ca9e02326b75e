"""A kill -9 at any file-system step of a writing command leaves a store the next command settles.

For each command below, a template store is prepared once and the command is run
to its end under the counting bootstrap of ``tests/crashpoint.py`` to learn its
rename/replace/unlink/remove/fsync/mkdir/rmdir calls. Then, for each chosen kill
point (all of them, or a spread of at most ``MAX_POINTS``), a fresh copy of the
template is made, the command is killed with SIGKILL right before that call, and
the store is checked as docs/reliability.md (and the 2026-12-01 reliability audit)
define "passed":

* the next ``ov status`` succeeds and reports a clean work tree, and afterwards no
  ``*.lock`` is left under ``.git`` and no ``.ov-tmp-*`` in the work tree or the state
  directory;
* the killed command landed whole or not at all: HEAD is the old head (with the
  template's files), or holds every change of a complete run;
* the work tree equals HEAD;
* a retry of the killed command succeeds, after which HEAD holds exactly what a
  complete run gives; then a probe ``ov write`` succeeds without waiting more than 5 s for
  the store (its ``store.lock_timeout``: what a killed writer left holding it makes it fail);
* ``ov find`` then ``ov fsck`` exit 0, ``git fsck --strict`` passes;
* every file committed before (the ledger: the template's files the command does not
  change) is intact in HEAD and on disk, and the old head is an ancestor of HEAD.

One test per command; its failure lists every failing kill point with the call it
was killed before and what was found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ov.cli.main import run
from ov.config.editing import set_value
from ov.home import Home
from tests import crashpoint
from tests.crashpoint import Call

MAX_POINTS = 16
PARALLEL_TRIALS = 3
PROBE_URI = "viking://resources/probe/after-kill.md"
PROBE_PATH = "resources/probe/after-kill.md"
# How long the probe may wait for the store's write lock (what a killed writer left behind): its
# store.lock_timeout, so that a longer wait fails it whatever the load. Measured as the process's
# wall time, it failed on a loaded machine whose interpreter took seconds to start.
PROBE_LIMIT_S = 5.0
COMMAND_TIMEOUT_S = 60

pytestmark = pytest.mark.slow


# --- preparing templates ---------------------------------------------------------------


@dataclass
class Prep:
    """Builds a template OV_HOME in-process (fast); ``inputs`` holds files the command reads."""

    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    home: Path = field(init=False)
    inputs: Path = field(init=False)

    def __post_init__(self) -> None:
        self.home = self.tmp / "template"
        self.inputs = self.tmp / "inputs"
        self.inputs.mkdir()

    def ov(self, *args: str, home: Path | None = None) -> None:
        self.monkeypatch.setenv("OV_HOME", str(home or self.home))
        code = run(list(args))
        assert code == 0, f"preparing: ov {' '.join(args)} exited {code}"

    def base(self) -> None:
        self.ov("init")
        for i in range(12):
            self.ov("write", f"viking://resources/ledger/f{i:02d}.md", "-c", f"ledger file {i}\n" + "kept line\n" * i)
        self.ov("session", "add-messages", "ledger-session", messages(0, 3, "ledger"))

    def folder(self, name: str, files: int, dirs: int = 4) -> Path:
        root = self.inputs / name
        for i in range(files):
            path = root / f"part{i % dirs}" / f"note{i:03d}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(markdown(name, i), encoding="utf-8")
        return root


def markdown(topic: str, i: int) -> str:
    return (
        f"# {topic} note {i}\n\n"
        f"This note describes step {i} of the {topic} procedure.\n\n"
        + "".join(f"- item {j}: keep the {topic} context for part {i % 7}\n" for j in range(6))
        + "\n## Details\n\nSome longer prose that a summariser can pick sentences from. "
        f"Note {i} depends on note {max(i - 1, 0)}.\n"
    )


def messages(start: int, count: int, tag: str) -> str:
    roles = ("user", "assistant")
    return json.dumps(
        [
            {
                "role": roles[i % 2],
                "text": f"{tag} message {i}: we talked about the deploy script and the cache settings",
                "id": f"{tag}-{i:03d}",
                "created_at": f"2026-11-30T10:{i % 60:02d}:00Z",
            }
            for i in range(start, start + count)
        ]
    )


def prep_write_small(p: Prep) -> list[str]:
    p.base()
    p.ov("write", "viking://resources/notes/target.md", "-c", "the old text\n")
    return ["write", "viking://resources/notes/target.md", "-c", "the new small text\n"]


def prep_write_1mb(p: Prep) -> list[str]:
    p.base()
    big = p.inputs / "one-mb.md"
    line = "a line of a large Markdown file, about sixty-four bytes long.\n"
    big.write_text("# big\n\n" + line * (1024 * 1024 // len(line)), encoding="utf-8")
    return ["write", "viking://resources/big/one-mb.md", "-f", str(big)]


def prep_add_resource(p: Prep) -> list[str]:
    p.base()
    folder = p.folder("handbook", 80)
    return ["add-resource", str(folder)]


def prep_session_add_messages(p: Prep) -> list[str]:
    p.base()
    p.ov("session", "add-messages", "S1", messages(0, 3, "s1"))
    return ["session", "add-messages", "S1", messages(3, 6, "s1")]


def prep_session_commit(p: Prep) -> list[str]:
    p.base()
    p.ov("session", "add-messages", "S1", messages(0, 12, "s1"))
    return ["commit", "S1"]


def prep_import(p: Prep) -> list[str]:
    p.base()
    p.ov("add-resource", str(p.folder("proj", 70)))
    pack = p.inputs / "proj.ovpack"
    p.ov("export", "viking://resources/proj", str(pack))
    for i in range(0, 70, 7):
        p.ov("write", f"viking://resources/proj/part{i % 4}/note{i:03d}.md", "-c", f"changed after the export {i}\n")
    p.ov("rm", "viking://resources/proj/part1/note001.md")
    return ["import", str(pack), "viking://resources", "--on-conflict", "overwrite"]


def prep_snapshot_restore(p: Prep) -> list[str]:
    p.base()
    p.ov("add-resource", str(p.folder("proj", 70)))
    p.ov("snapshot", "tag", "before")
    for i in range(0, 70, 6):
        p.ov("write", f"viking://resources/proj/part{i % 4}/note{i:03d}.md", "-c", f"edited later {i}\n")
    for i in (1, 5, 9):
        p.ov("rm", f"viking://resources/proj/part{i % 4}/note{i:03d}.md")
    for i in range(3):
        p.ov("write", f"viking://resources/proj/extra/new{i}.md", "-c", f"added later {i}\n")
    return ["snapshot", "restore", "before", "--uri", "viking://resources/proj"]


def prep_snapshot_revert(p: Prep) -> list[str]:
    # One add-resource taken back while later writes to other files stay: its files deleted and
    # the summaries above them written again, in one commit.
    p.base()
    p.ov("add-resource", str(p.folder("proj", 60)))
    p.ov("snapshot", "tag", "wrong")
    for i in range(0, 12, 3):
        p.ov("write", f"viking://resources/ledger/f{i:02d}.md", "-c", f"changed after the add {i}\n")
    return ["snapshot", "revert", "wrong"]


def prep_snapshot_revert_session(p: Prep) -> list[str]:
    # A session commit taken back whole: the memories it wrote deleted, its session kept as it is
    # (its messages stay archived), though a turn was captured in it since.
    p.base()
    said = ["I prefer dark mode in every editor.", "Noted.", "We always use pnpm, never npm.", "Got it.", "My name is Dana.", "Hi Dana."]
    turns = [{"role": ("user", "assistant")[i % 2], "text": text, "id": f"s1-{i:03d}"} for i, text in enumerate(said)]
    p.ov("session", "add-messages", "S1", json.dumps(turns))
    p.ov("commit", "S1")
    p.ov("snapshot", "tag", "learned")
    p.ov("session", "add-messages", "S1", messages(10, 2, "s1"))
    return ["snapshot", "revert", "learned"]


def prep_mv_folder(p: Prep) -> list[str]:
    # A folder add-resource summarised, renamed: its files move and the summaries above it and its
    # own are written again, all in one commit.
    p.base()
    p.ov("add-resource", str(p.folder("proj", 40)))
    return ["mv", "viking://resources/proj", "viking://resources/project"]


def prep_snapshot_restore_folder(p: Prep) -> list[str]:
    # A folder of 80 files removed and restored whole: prepared without the lock (staged files,
    # the folder's tree taken from the revision), then moved into place in one rename.
    p.base()
    p.ov("add-resource", str(p.folder("proj", 80)))
    p.ov("snapshot", "tag", "before")
    p.ov("rm", "-r", "viking://resources/proj")
    return ["snapshot", "restore", "before"]


def prep_mv_folder_large(p: Prep) -> list[str]:
    # Large enough to be prepared without the lock: its files are staged, then renamed in.
    p.base()
    p.ov("add-resource", str(p.folder("proj", 90)))
    return ["mv", "viking://resources/proj", "viking://resources/archive/project"]


def prep_pull(p: Prep) -> list[str]:
    remote = p.tmp / "remote.git"
    proc = subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    p.base()
    p.ov("remote", "add", "origin", str(remote))
    p.ov("push")
    other = p.tmp / "other-home"
    p.ov("remote", "add", "origin", str(remote), home=other)
    p.ov("pull", home=other)
    p.ov("add-resource", str(p.folder("shared", 70)), home=other)
    p.ov("write", "viking://resources/ledger/f03.md", "-c", "changed by the other home\n", home=other)
    p.ov("push", home=other)
    return ["pull"]


# Commands whose retry after they landed has nothing to do and says so (the source is gone).
MOVES = {"mv"}

SCENARIOS: dict[str, Callable[[Prep], list[str]]] = {
    "write-small": prep_write_small,
    "write-1mb": prep_write_1mb,
    "add-resource-80": prep_add_resource,
    "session-add-messages": prep_session_add_messages,
    "session-commit": prep_session_commit,
    "import-overwrite": prep_import,
    "snapshot-restore": prep_snapshot_restore,
    "snapshot-revert": prep_snapshot_revert,
    "snapshot-revert-session": prep_snapshot_revert_session,
    "mv-folder": prep_mv_folder,
    "snapshot-restore-folder": prep_snapshot_restore_folder,
    "mv-folder-large": prep_mv_folder_large,
    "pull-fast-forward": prep_pull,
}


# --- running and checking ----------------------------------------------------------------


@dataclass
class Proc:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def brief(self) -> str:
        """The error in one line: the JSON error of ``--json`` commands, else the last lines of output."""
        try:
            error = json.loads(self.stderr)["error"]
            return f"{error.get('code')}: {error.get('message')}"[:400]
        except (ValueError, KeyError, TypeError):
            pass
        text = (self.stderr.strip() or self.stdout.strip()).splitlines()
        return " | ".join(text[-3:])[:400]


def ov_proc(args: list[str], env: dict[str, str], cwd: Path) -> Proc:
    start = time.monotonic()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "ov", *args],
            env=env,
            cwd=cwd,
            capture_output=True,
            timeout=COMMAND_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return Proc(-1, "", f"timed out after {COMMAND_TIMEOUT_S}s", time.monotonic() - start)
    return Proc(proc.returncode, proc.stdout.decode(errors="replace"), proc.stderr.decode(errors="replace"), time.monotonic() - start)


@dataclass
class Expected:
    """What the template holds and what a complete run of the command gives."""

    home: Path
    argv: list[str]
    before: dict[str, bytes]
    old_head: bytes
    after: dict[str, bytes]
    volatile: set[str]  # paths whose bytes differ between two complete runs (times): compared by presence

    @property
    def changed(self) -> set[str]:
        return set(crashpoint.diff(self.before, self.after))


# Times a command writes into its files (memory_diff.json's extracted_at, ...): a run a second
# later writes other bytes, which is not a torn commit.
ISO_TIME = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def untimed(data: bytes) -> bytes:
    return ISO_TIME.sub(b"<time>", data)


def same_tree(got: dict[str, bytes], want: dict[str, bytes], volatile: set[str], exact: bool = False) -> list[str]:
    """How ``got`` differs from ``want``: paths missing, unexpected, or with other content
    (times masked unless ``exact``; ``volatile`` paths compared by presence only)."""
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    same = (lambda a, b: a == b) if exact else (lambda a, b: a == b or untimed(a) == untimed(b))
    differ = sorted(p for p in set(got) & set(want) if p not in volatile and not same(got[p], want[p]))
    out = []
    if missing:
        out.append(f"missing {crashpoint.describe_paths(missing)}")
    if extra:
        out.append(f"unexpected {crashpoint.describe_paths(extra)}")
    if differ:
        out.append(f"different content in {crashpoint.describe_paths(differ)}")
    return out


def trial(expected: Expected, point: int, workdir: Path, base_env: dict[str, str]) -> tuple[str, list[str]]:
    """Kill the command at ``point`` on a fresh copy; return (what it was killed before, problems)."""
    home = workdir / "home"
    shutil.copytree(expected.home, home, symlinks=True)
    env = dict(base_env, OV_HOME=str(home))
    repo = home / "accounts" / "default"
    problems: list[str] = []

    killed = crashpoint.run_killed(expected.argv, home, env, point, workdir / "trace.json", workdir, COMMAND_TIMEOUT_S)
    where = killed.call or f"point {point} never reached (exit {killed.returncode})"
    if not killed.killed and killed.returncode != 0:
        problems.append(f"the command exited {killed.returncode} instead of being killed: {killed.stderr.strip()[-300:]}")

    status = ov_proc(["status", "--json"], env, workdir)
    if status.returncode != 0:
        problems.append(f"next `ov status` exited {status.returncode}: {status.brief()}")
    else:
        result = json.loads(status.stdout)["result"]
        if not result["clean"]:
            problems.append(
                f"`ov status` not clean: modified {result['modified']}, added {result['added']}, deleted {result['deleted']}"
            )
    # The index's folder is the index's: its next update, under the index lock, removes what a
    # killed update left there (`ov status` does not open the index). Checked at the end, after a find.
    left = [p for p in crashpoint.leftovers(home) if not p.startswith("state/default/index/")]
    if left:
        problems.append(f"left behind after the next `ov status`: {crashpoint.describe_paths(left, 12)}")

    head = crashpoint.head_of(repo)
    landed = head != expected.old_head
    committed = crashpoint.committed_files(repo, head)
    if landed:
        if expected.old_head not in crashpoint.ancestors(repo, head):
            problems.append(f"HEAD {head.decode()[:10]} does not descend from the old head")
        torn = same_tree(committed, expected.after, expected.volatile)
        if torn:
            problems.append("landed partly: HEAD has " + "; ".join(torn) + " compared with a complete run")
    elif committed != expected.before:
        problems.append("HEAD is the old head but its files changed")
    tree_vs_head = same_tree(crashpoint.worktree_files(repo), committed, set(), exact=True)
    if tree_vs_head:
        problems.append("work tree differs from HEAD: " + "; ".join(tree_vs_head))

    # The retry, the probe, a find and fsck run in one process, one after the other: a process
    # start costs more than most of them, and each is still the next command of a fresh process.
    set_value(Home(home), "store.lock_timeout", f"{PROBE_LIMIT_S:g}")
    probe_args = ["write", PROBE_URI, "-c", f"probe after a kill at {point}\n"]
    # Build the index before fsck: fsck of a store whose index lags behind HEAD checks less.
    outcomes = crashpoint.run_sequence([list(expected.argv), probe_args, ["find", "x"], ["fsck"]], env, workdir)
    retry, probe, (find_rc, find_out, find_err), (fsck_rc, fsck_out, fsck_err) = outcomes
    retry_rc, probe_rc = retry[0], probe[0]
    # What the retry left is the probe's parent (the probe is one commit), or HEAD if the probe failed.
    retried = crashpoint.head_of(repo)
    if probe_rc == 0:
        retried = crashpoint.parents_of(repo, retried)[0]
    if retry_rc != 0 and landed and expected.argv[0] in MOVES:
        pass  # it moved before the kill: moving again finds no source, as it should
    elif retry_rc != 0:
        problems.append(f"retry of the killed command exited {retry_rc}: {Proc(*retry, 0).brief()}")
    else:
        after_retry = same_tree(crashpoint.committed_files(repo, retried), expected.after, expected.volatile)
        if after_retry:
            problems.append("after the retry HEAD is not what a complete run gives: " + "; ".join(after_retry))
    if probe_rc != 0:
        problems.append(f"probe `ov write` (waiting at most {PROBE_LIMIT_S:g}s for the store) exited {probe_rc}: {Proc(*probe, 0).brief()}")
    if find_rc != 0:
        problems.append(f"`ov find x` exited {find_rc}: {Proc(find_rc, find_out, find_err, 0).brief()}")
    if fsck_rc != 0:
        problems.append(f"`ov fsck` exited {fsck_rc}: {(fsck_out.strip() + ' ' + fsck_err.strip()).strip()[-400:]}")
    git = subprocess.run(["git", "-C", str(repo), "fsck", "--strict", "--no-progress"], env=env, capture_output=True, text=True)
    if git.returncode != 0:
        problems.append(f"`git fsck --strict` exited {git.returncode}: {(git.stdout + git.stderr).strip()[-400:]}")

    final_head = crashpoint.head_of(repo)
    final = crashpoint.committed_files(repo, final_head)
    if expected.old_head not in crashpoint.ancestors(repo, final_head):
        problems.append("the old head is no longer an ancestor of HEAD")
    if probe_rc == 0 and final.get(PROBE_PATH) is None:
        problems.append("the probe write is not in HEAD")
    lost = sorted(p for p, data in expected.before.items() if p not in expected.changed and final.get(p) != data)
    on_disk = crashpoint.worktree_files(repo)
    lost += sorted(p for p, data in expected.before.items() if p not in expected.changed and on_disk.get(p) != data and p not in lost)
    if lost:
        problems.append(f"ledger files lost or changed: {crashpoint.describe_paths(lost)}")
    final_vs_head = same_tree(on_disk, final, set(), exact=True)
    if final_vs_head:
        problems.append("at the end the work tree differs from HEAD: " + "; ".join(final_vs_head))
    still = [p for p in crashpoint.leftovers(home) if p not in left]
    if still:
        problems.append(f"left behind at the end: {crashpoint.describe_paths(still, 12)}")

    if not problems:
        shutil.rmtree(workdir, ignore_errors=True)
    return where, problems


def prepare(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Expected, list[Call], dict[str, str]]:
    prep = Prep(tmp_path, monkeypatch)
    argv = SCENARIOS[name](prep)
    monkeypatch.delenv("OV_HOME")
    env = dict(os.environ)
    repo_of = lambda home: home / "accounts" / "default"  # noqa: E731
    # Build the index once, so that `ov fsck` in a trial checks a store that has been searched.
    assert ov_proc(["find", "x"], dict(env, OV_HOME=str(prep.home)), tmp_path).returncode == 0
    old_head = crashpoint.head_of(repo_of(prep.home))
    before = crashpoint.committed_files(repo_of(prep.home))

    counted = tmp_path / "counted"
    shutil.copytree(prep.home, counted, symlinks=True)
    calls = crashpoint.count_calls(argv, counted, dict(env, OV_HOME=str(counted)), tmp_path / "count.jsonl", tmp_path)
    after = crashpoint.committed_files(repo_of(counted))
    assert after != before, f"a complete run of ov {' '.join(argv)} changed nothing"

    again = tmp_path / "again"
    shutil.copytree(prep.home, again, symlinks=True)
    proc = ov_proc(argv, dict(env, OV_HOME=str(again)), tmp_path)
    assert proc.returncode == 0, proc.stderr
    second = crashpoint.committed_files(repo_of(again))
    assert set(second) == set(after), "two complete runs wrote different paths"
    volatile = {p for p in after if after[p] != second[p]}
    shutil.rmtree(again)
    shutil.rmtree(counted)
    return Expected(prep.home, argv, before, old_head, after, volatile), calls, env


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_kill_at_every_crash_point(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    expected, calls, env = prepare(name, tmp_path, monkeypatch)
    points = crashpoint.choose_points(calls, MAX_POINTS)
    by_number = {c.n: c for c in calls}
    with ThreadPoolExecutor(max_workers=PARALLEL_TRIALS) as pool:
        futures = {n: pool.submit(trial, expected, n, tmp_path / f"kill-{n:04d}", env) for n in points}
        outcomes = {n: f.result() for n, f in futures.items()}
    failures = []
    for n, (where, problems) in sorted(outcomes.items()):
        if problems:
            planned = str(by_number.get(n))
            # Writer threads race for the numbers, so the call killed may differ from the counted one.
            counted = "" if where.startswith(planned) else f"; in the counting run it was {planned}"
            lines = "\n".join(f"    - {p}" for p in problems)
            failures.append(f"  kill point {n}/{len(calls)} (killed before {where}{counted}):\n{lines}")
    assert not failures, (
        f"ov {name}: {len(failures)} of {len(points)} kill points failed "
        f"(command: ov {' '.join(expected.argv)[:160]}; kept in {tmp_path}):\n" + "\n".join(failures)
    )
