"""Hermetic test setup: every test gets its own OV_HOME and HOME; the user's git
configuration and ov/OpenViking identity variables never leak in."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ov.cli.main import run

SCRUBBED_PREFIXES = ("GIT_", "OV_", "OPENVIKING_")

# Some tests press Ctrl-C (SIGINT) at chosen instants, in this process and in the ov processes it
# starts. A shell starts a background job, `nohup` and some CI runners a command, with SIGINT
# ignored, which every child inherits, and Python then raises no KeyboardInterrupt: those tests
# failed there while ov did right (an ignored Ctrl-C is ignored). A terminal's Ctrl-C is restored.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Property tests keep no example database in the checkout: each run is hermetic like the others.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ov", database=None)
_hypothesis_settings.load_profile("ov")


@pytest.fixture(autouse=True)
def hermetic_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith(SCRUBBED_PREFIXES):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "ovhome"
    monkeypatch.setenv("OV_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path / "userhome"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git project for a hook's ``cwd`` (its folder names the workspace peer)."""
    path = tmp_path / "project"
    (path / ".git").mkdir(parents=True)
    return path


@pytest.fixture
def ov_home(hermetic_env: Path) -> Path:
    return hermetic_env


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def json(self):
        return json.loads(self.stdout)

    @property
    def error(self) -> dict:
        return json.loads(self.stderr)["error"]


@pytest.fixture
def ov(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    """Run `ov ARGS...` in-process, as the console script would; returns exit code and output."""

    def invoke(*args: str, stdin: str | bytes | None = None) -> Result:
        if stdin is not None:
            data = stdin.encode() if isinstance(stdin, str) else stdin
            monkeypatch.setattr(sys, "stdin", _Stdin(data))
        else:
            monkeypatch.setattr(sys, "stdin", _Stdin(b"", tty=True))
        capsys.readouterr()
        code = run(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return invoke


class _Stdin:
    """A stand-in for sys.stdin with a binary buffer and a chosen isatty()."""

    def __init__(self, data: bytes, tty: bool = False) -> None:
        import io

        self.buffer = io.BytesIO(data)
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty

    def read(self) -> str:
        return self.buffer.read().decode()


@pytest.fixture
def ov_process(hermetic_env: Path):
    """Run `ov` as a separate process (for start-up, concurrency and stdin tests)."""

    def invoke(*args: str, stdin: bytes | None = None, env: dict[str, str] | None = None, timeout: float = 60):
        full_env = dict(os.environ, **(env or {}))
        proc = subprocess.run(
            [sys.executable, "-m", "ov", *args],
            input=stdin,
            capture_output=True,
            env=full_env,
            timeout=timeout,
        )
        return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    return invoke


@pytest.fixture
def during_preparation(monkeypatch: pytest.MonkeyPatch):
    """``during_preparation(action)`` runs ``action`` once, in the middle of the next large
    command planned in a draft (a restore, a move): its files read and staged, nothing
    committed. A writer in another process then needs the lock, which must be free. Returns
    the list that receives what ``action`` returned."""
    from ov.store.store import Draft

    def arm(action):
        original, done = Draft.stage, []

        def stage(self, *args, **kwargs):
            original(self, *args, **kwargs)
            if not done:
                done.append(action())

        monkeypatch.setattr(Draft, "stage", stage)
        return done

    return arm


def git_state(home: Path, account: str = "default") -> tuple[str | None, dict[str, bytes]]:
    """(HEAD commit, {path: bytes}) of an account: what 'store unchanged' compares."""
    root = home / "accounts" / account
    head = None
    ref = root / ".git" / "refs" / "heads" / "main"
    if ref.exists():
        head = ref.read_text().strip()
    files = {}
    if root.exists():
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".git") or not path.is_file():
                continue
            files[rel] = path.read_bytes()
    return head, files


@pytest.fixture
def store_state(ov_home: Path):
    return lambda account="default": git_state(ov_home, account)


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 2 MB tmpfs to fill up (root only); skipped where mounting is not permitted."""
    import shutil

    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {proc.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@pytest.fixture
def unprivileged() -> list[str]:
    """The prefix of a command line that runs a process as file permissions bind it: none for an
    ordinary user; for root (whom they do not bind), setpriv without the capabilities that bypass
    them. Skipped where root cannot drop them."""
    import shutil

    if os.geteuid() != 0:
        return []
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search,-fowner"]
    if shutil.which("setpriv") is None or subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("root here cannot drop the capabilities that bypass file permissions")
    return prefix


@pytest.fixture
def umask_022():
    """The umask most systems give (022, files 0644 unless ov says otherwise), for the tests of
    the permissions ov gives its files; the runner's own is restored after."""
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def other_user() -> list[str]:
    """The prefix of a command line that runs a process as another local user (nobody, uid
    65534), to check what ov's files show them. Skipped unless root, who alone can switch."""
    import shutil

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("only root can run a process as another user here")
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("setpriv cannot switch to uid 65534 here")
    return prefix


def set_writable(path: Path, writable: bool) -> None:
    """Give or take the write permission of everything below ``path`` (itself included)."""
    for folder, _dirs, files in os.walk(path):
        for name in [folder, *(os.path.join(folder, f) for f in files)]:
            mode = os.lstat(name).st_mode
            os.chmod(name, mode | 0o200 if writable else mode & ~0o222)


@pytest.fixture
def bound_by_permissions(ov_home, unprivileged):
    """Run `ov` as a process that file permissions bind, as an ordinary user would be."""

    def invoke(*args: str):
        proc = subprocess.run([*unprivileged, sys.executable, "-m", "ov", *args], capture_output=True, timeout=120, check=False)
        return Result(proc.returncode, proc.stdout.decode(), proc.stderr.decode())

    return invoke


@pytest.fixture
def read_only_mount(tmp_path: Path):
    """``mount(folder)``: the folder seen through a read-only bind mount (EROFS to every write,
    root included), unmounted after the test; skipped where mounting is not permitted."""
    import shutil

    if shutil.which("mount") is None or os.geteuid() != 0:
        pytest.skip("a bind mount needs root")
    mounted: list[Path] = []

    def mount(folder: Path) -> Path:
        target = tmp_path / f"read-only-{len(mounted)}"
        target.mkdir()
        for args in (["--bind", str(folder), str(target)], ["-o", "remount,bind,ro", str(target)]):
            proc = subprocess.run(["mount", *args], capture_output=True, check=False)
            if proc.returncode != 0:
                if args[0] != "--bind":
                    subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)
                pytest.skip(f"cannot bind-mount a folder read-only: {proc.stderr.decode().strip()}")
        mounted.append(target)
        return target

    try:
        yield mount
    finally:
        for target in mounted:
            subprocess.run(["umount", "-l", str(target)], capture_output=True, check=False)


def numbered_notes(folder: Path, count: int, text) -> Path:
    """``count`` notes ``pkg{i // 100}/n{i:03d}.md`` in ``folder``, note ``i`` holding ``text(i)``."""
    for i in range(count):
        (folder / f"pkg{i // 100}").mkdir(parents=True, exist_ok=True)
        (folder / f"pkg{i // 100}" / f"n{i:03d}.md").write_text(text(i))
    return folder


def fill_disk(mount: Path, leave: int = 0) -> Path:
    """Fill the file system of ``mount`` up to ``leave`` bytes free; returns the ballast file."""
    import errno

    ballast = mount / "ballast"
    with open(ballast, "wb") as out:
        room = os.statvfs(mount).f_bavail * os.statvfs(mount).f_frsize - leave
        try:
            while room > 0:
                out.write(b"\0" * min(65536, room))
                out.flush()
                room -= 65536
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return ballast


@pytest.fixture
def index_held(ov, ov_home):
    """``hold()``: another process holds the index's lock (as one catching the index up or
    building it does) until the test ends; ov waits a second for it."""
    assert ov("config", "set", "store.lock_timeout", "1").exit_code == 0
    holders = []

    def hold() -> None:
        holder = subprocess.Popen(
            [sys.executable, "-c", ("import sys, time; from pathlib import Path; from ov.store.lock import WriteLock; "
                                    "WriteLock(Path(sys.argv[1]), 5).acquire(); print('held', flush=True); time.sleep(60)"),
             str(ov_home / "state" / "default" / "index.lock")],
            stdout=subprocess.PIPE, text=True,
        )
        holders.append(holder)
        assert holder.stdout.readline().strip() == "held"

    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()


@pytest.fixture
def time_zone():
    """``time_zone(name)`` makes ``name`` this process's zone (TZ, then ``time.tzset``) for the rest
    of the test; the zone before it comes back afterwards."""
    import time

    before = os.environ.get("TZ")

    def use(name: str) -> None:
        os.environ["TZ"] = name
        time.tzset()

    yield use
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


# The day `store_day` pins the store's clock to: after the messages' fixed times in the tests
# (2026-05-01) and not the day the tests run, so a test whose expected date comes from this
# machine's clock instead of the store's fails on every run, not only on one crossing midnight.
STORE_DAY = datetime(2026, 9, 15, 12, tzinfo=UTC)


@pytest.fixture
def store_day(monkeypatch: pytest.MonkeyPatch) -> datetime:
    """Pins the clock sessions and memories are dated by (``ov.sessions.clock``) to noon UTC of
    :data:`STORE_DAY`, going on as real time goes (stamps keep their order): every date the store
    writes in the test falls on that day, wherever the run starts and however long it takes.
    Returns that instant; ``STORE_DAY.astimezone()`` is the user's day, as events are filed."""
    import time

    from ov.sessions import clock

    started = time.monotonic()
    monkeypatch.setattr(clock, "now", lambda: STORE_DAY + timedelta(seconds=time.monotonic() - started))
    return STORE_DAY
