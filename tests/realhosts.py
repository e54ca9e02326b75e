"""Drive the real coding-agent hosts (Claude Code, Codex, Gemini CLI, OpenCode) headless, each for
one turn against a loopback model stub, in a throw-away HOME.

The hosts come from ``.ci/install-hosts`` (pinned, in ``.hosts/``), else from PATH. A test asks
for a host through its fixture (``claude_host``, ``codex_host``, ``gemini_host``,
``opencode_host``), which skips when the host is missing, or fails when ``OV_REQUIRE_HOSTS=1``
(CI), and yields a :class:`Host` whose stub is already serving::

    from tests.realhosts import claude_host  # noqa: F401  (a pytest fixture)

    @pytest.mark.real_host
    @pytest.mark.slow
    def test_x(claude_host):
        write_json(claude_host.settings_path, {"hooks": {...}})
        run = claude_host.run("hello").check()
        assert claude_host.stub.saw("MARKER")

Each host's config files are exposed as paths (``settings_path``, ``hooks_path``,
``config_path``, ``plugins_dir``, ...) for the test to write: the harness only points the host
at its stub. ``host.env`` is the whole environment the host runs with: the test's environment
less everything a host could pick up from the developer (host configs, API keys, proxies,
``OV_*``), with HOME, XDG dirs and TMPDIR inside the temp root; add what a hook needs (for
example ``OV_HOME``) to it. Codex runs hook commands through ``$SHELL -lc``, whose login
profile may reset PATH: give hook commands absolute paths.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from tests.stubs.anthropic import AnthropicStub
from tests.stubs.base import StubRequest, StubServer
from tests.stubs.gemini import GeminiStub
from tests.stubs.openai_responses import ResponsesStub

REPO = Path(__file__).resolve().parents[1]
HOSTS_PREFIX = REPO / ".hosts"
INSTALL_HINT = "run .ci/install-hosts"
REQUIRE_ENV = "OV_REQUIRE_HOSTS"
# Read when the test modules are collected: the autouse hermetic_env fixture (conftest.py)
# scrubs OV_* from os.environ before each test body runs.
REQUIRE_HOSTS = os.environ.get(REQUIRE_ENV) == "1"
DEFAULT_TIMEOUT = 90.0
CLOSED_REGISTRY = "http://127.0.0.1:9/"

# Never passed on to a host: the developer's host configs, keys and ov's own settings; XDG and
# temp dirs are set per run; proxies would swallow loopback requests; CI changes some hosts'
# behaviour, and a host must behave the same on a laptop as in CI.
_SCRUBBED_PREFIXES = (
    "OV_",
    "OPENVIKING_",
    "ANTHROPIC_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "CODEX_",
    "CLAUDE",
    "OPENCODE",
    "XDG_",
    "GIT_",
    "NODE_",
    "NPM_CONFIG_",
)
_SCRUBBED = frozenset(
    {"HOME", "PWD", "OLDPWD", "TMPDIR", "CI", "SHELL", "TERM", "COLUMNS"}
    | {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}
)


# --- locating the hosts ----------------------------------------------------------------


def host_binary(name: str) -> Path | None:
    """The host's executable: ``.hosts/bin/NAME`` first, then PATH."""
    local = HOSTS_PREFIX / "bin" / name
    if local.is_file() and os.access(local, os.X_OK):
        return local
    found = shutil.which(name)
    return Path(found) if found else None


def require_host(name: str) -> Path:
    """The host's executable, or skip the test (fail it when ``OV_REQUIRE_HOSTS=1``)."""
    binary = host_binary(name)
    if binary is not None:
        return binary
    reason = f"real host {name!r} is not installed: {INSTALL_HINT}"
    if REQUIRE_HOSTS or os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRE_ENV}=1)")
    pytest.skip(reason)


def hermetic_env(root: Path, home: Path) -> dict[str, str]:
    """The parent environment minus everything a host could pick up from the developer, with
    HOME, XDG dirs and TMPDIR inside ``root``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k.upper() not in _SCRUBBED and not k.upper().startswith(_SCRUBBED_PREFIXES)
    }
    tmp = root / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    node = HOSTS_PREFIX / "node" / "bin"  # .ci/install-hosts's Node, when the machine's is too old
    if node.is_dir():
        env["PATH"] = f"{node}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        XDG_CACHE_HOME=str(home / ".cache"),
        TMPDIR=str(tmp),
        SHELL="/bin/bash" if Path("/bin/bash").exists() else "/bin/sh",
        TERM="dumb",
        NO_COLOR="1",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        GIT_CONFIG_NOSYSTEM="1",
        # Should a host run npm at test time (OpenCode installs plugin dependencies), it meets a
        # closed loopback port instead of the registry.
        npm_config_registry=CLOSED_REGISTRY,
    )
    return env


def write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")
    return path


def read_json(path: Path) -> Any:
    return json.loads(path.read_text())


# --- one run -------------------------------------------------------------------------------


@dataclass
class HostRun:
    """What one headless invocation did."""

    host: str
    args: list[str]
    exit_code: int  # -9 when the harness killed it at its timeout
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    requests: list[StubRequest] = field(repr=False)  # what the stub received during this run

    def check(self) -> HostRun:
        """Assert the host exited 0 within its timeout; the message shows its output."""
        if self.timed_out or self.exit_code != 0:
            what = "timed out" if self.timed_out else f"exited {self.exit_code}"
            raise AssertionError(
                f"{self.host} {what} after {self.seconds:.1f} s: {self.args}\n"
                f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
            )
        return self


# --- hosts ---------------------------------------------------------------------------------


class Host:
    """A throw-away HOME and project dir for one host, pointed at ``stub``.

    ``root/home`` is HOME, ``root/project`` (a fresh git repository) the working directory.
    """

    name: ClassVar[str]

    def __init__(self, root: Path, stub: StubServer, binary: Path) -> None:
        self.root = root
        self.stub = stub
        self.binary = binary
        self.home = root / "home"
        self.project = root / "project"
        self.home.mkdir(parents=True, exist_ok=True)
        self.project.mkdir(parents=True, exist_ok=True)
        self.env = hermetic_env(root, self.home)
        if shutil.which("git"):
            subprocess.run(["git", "init", "-q", str(self.project)], env=self.env, check=True, capture_output=True)
        self.configure()

    def configure(self) -> None:
        """Write the host's config and env so that it talks only to the stub."""
        raise NotImplementedError

    def invoke(self, args: Sequence[str], *, timeout: float = DEFAULT_TIMEOUT) -> HostRun:
        """Run ``binary ARGS`` in the project dir with stdin at /dev/null; once it exits (or is
        killed at ``timeout``), whatever it left running in its process group is ended too.

        Output goes to files under ``root/runs/`` rather than pipes, so a helper the host leaves
        behind holding them open cannot stall the run.
        """
        argv = [str(self.binary), *args]
        runs = self.root / "runs"
        runs.mkdir(exist_ok=True)
        n = len(list(runs.glob("*.stdout"))) + 1
        out_path, err_path = runs / f"{n:02d}.stdout", runs / f"{n:02d}.stderr"
        before = len(self.stub.requests)
        start = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(
                argv,
                cwd=self.project,
                env={**self.env, "PWD": str(self.project)},  # OpenCode takes its directory from PWD
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
            try:
                proc.wait(timeout=timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                timed_out = True
            seconds = time.monotonic() - start
            kill_group(proc.pid)  # a hung host, or helpers it left (MCP servers, workers)
            proc.wait()
        return HostRun(
            host=self.name,
            args=list(args),
            exit_code=-9 if timed_out else proc.returncode,
            stdout=out_path.read_text(errors="replace"),
            stderr=err_path.read_text(errors="replace"),
            seconds=seconds,
            timed_out=timed_out,
            requests=self.stub.requests[before:],
        )


def kill_group(pgid: int) -> None:
    """End the process group the harness started (by its id); gone already is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class ClaudeHost(Host):
    """Claude Code: ``claude -p`` with ``ANTHROPIC_BASE_URL`` at an :class:`AnthropicStub`.

    Hooks go in ``settings_path`` (user) or ``project_settings_path``; transcripts land in
    ``projects_dir/<encoded cwd>/<session id>.jsonl``. The scratch files Claude Code keeps
    outside HOME (``claude-<uid>/``, ``cc-socks/``) land in ``root/tmp``, its TMPDIR.
    """

    name = "claude"
    stub: AnthropicStub

    def configure(self) -> None:
        self.settings_path = self.home / ".claude" / "settings.json"
        self.project_settings_path = self.project / ".claude" / "settings.json"
        self.user_config_path = self.home / ".claude.json"  # user MCP servers
        self.projects_dir = self.home / ".claude" / "projects"
        self.env.update(
            ANTHROPIC_BASE_URL=self.stub.url,
            ANTHROPIC_API_KEY="sk-ant-stub-dummy",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )

    def run(
        self,
        prompt: str,
        *,
        resume: str | None = None,
        continue_last: bool = False,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> HostRun:
        """One turn: ``claude -p PROMPT --output-format json`` (``--resume ID`` or ``--continue``
        to go on with an earlier session; :func:`claude_session_id` reads the id)."""
        argv = ["-p", prompt, "--output-format", "json", *args]
        if resume:
            argv += ["--resume", resume]
        elif continue_last:
            argv.append("--continue")
        return self.invoke(argv, timeout=timeout)


def claude_session_id(run: HostRun) -> str:
    """The session id in ``claude -p --output-format json`` output."""
    return json.loads(run.stdout)["session_id"]


class CodexHost(Host):
    """Codex: ``codex exec`` with a ``[model_providers.stub]`` at a :class:`ResponsesStub`.

    ``config_path`` is ``$CODEX_HOME/config.toml`` (the harness's settings come first; append
    tables, not top-level keys), ``hooks_path`` the user ``hooks.json``; rollouts (transcripts)
    land under ``sessions_dir``. Hooks are skipped until trusted: :meth:`trust_hooks`. The
    ``plugins`` feature is off: with it on, Codex syncs its curated marketplace from GitHub at
    every start.
    """

    name = "codex"
    stub: ResponsesStub

    def configure(self) -> None:
        self.codex_home = self.home / ".codex"
        self.codex_home.mkdir(parents=True, exist_ok=True)
        self.config_path = self.codex_home / "config.toml"
        self.hooks_path = self.codex_home / "hooks.json"
        self.sessions_dir = self.codex_home / "sessions"
        self.env.update(CODEX_HOME=str(self.codex_home), STUB_API_KEY="sk-stub-dummy")
        self.config_path.write_text(
            "\n".join(
                [
                    'model = "gpt-stub"',
                    'model_provider = "stub"',
                    "check_for_update_on_startup = false",
                    "",
                    "[analytics]",
                    "enabled = false",
                    "",
                    "[features]",
                    # On, Codex syncs its curated plugin marketplace from GitHub at start.
                    "plugins = false",
                    "",
                    "[model_providers.stub]",
                    'name = "stub"',
                    f'base_url = "{self.stub.url}/v1"',
                    'env_key = "STUB_API_KEY"',
                    'wire_api = "responses"',
                    "",
                ]
            )
        )

    def run(
        self,
        prompt: str,
        *,
        resume_last: bool = False,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> HostRun:
        """One turn: ``codex exec PROMPT </dev/null`` (``codex exec resume --last PROMPT`` with
        ``resume_last``)."""
        head = ["exec", "resume", "--last"] if resume_last else ["exec"]
        return self.invoke([*head, "--skip-git-repo-check", *args, prompt], timeout=timeout)

    def trust_hooks(self) -> list[str]:
        """Trust every hook Codex currently sees (run after each rewrite of the hooks)."""
        from tests.codex_trust import codex_trust_all  # it builds on this module

        return codex_trust_all(self.home, cwd=self.project, env=self.env, binary=self.binary)


class GeminiHost(Host):
    """Gemini CLI: ``gemini -p`` with ``GOOGLE_GEMINI_BASE_URL`` at a :class:`GeminiStub`.

    ``settings_path`` (``~/.gemini/settings.json``) already holds the auth type and switches
    off usage statistics and update checks: read it, add ``hooks``, write it back
    (``project_settings_path`` for project hooks). Transcripts land under
    ``~/.gemini/tmp/<project>/chats/``.
    """

    name = "gemini"
    stub: GeminiStub

    def configure(self) -> None:
        self.settings_path = self.home / ".gemini" / "settings.json"
        self.project_settings_path = self.project / ".gemini" / "settings.json"
        self.env.update(
            GEMINI_API_KEY="stub-dummy-key",
            GOOGLE_GEMINI_BASE_URL=self.stub.url,
            GEMINI_CLI_TRUST_WORKSPACE="true",  # else headless exits 55 in an untrusted folder
        )
        write_json(
            self.settings_path,
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            },
        )

    def run(
        self,
        prompt: str,
        *,
        resume: str | None = None,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> HostRun:
        """One turn: ``gemini -p PROMPT </dev/null`` (``--resume latest`` or an index/id to go
        on with an earlier session)."""
        argv = ["-p", prompt, *args]
        if resume:
            argv += ["--resume", resume]
        return self.invoke(argv, timeout=timeout)


class OpenCodeHost(Host):
    """OpenCode: ``opencode run`` with the built-in anthropic provider's ``baseURL`` at an
    :class:`AnthropicStub` and one declared model, ``anthropic/claude-stub``.

    Plugins (OpenCode's only hook channel) go in ``plugins_dir``; ``config_path`` is
    ``opencode.json``; sessions and logs live under ``data_dir``. At start OpenCode installs
    ``@opencode-ai/plugin`` from the registry into every writable config dir it loads (with or
    without a ``plugins/`` folder) unless the dir already has ``node_modules`` and a lock file
    listing the package. The harness seeds the user config dir (:func:`seed_plugin_sdk`; do the
    same for a project ``.opencode/`` dir), so no install runs at test time; and should one
    run, ``npm_config_registry`` sends it to a closed loopback port.
    """

    name = "opencode"
    stub: AnthropicStub
    model = "anthropic/claude-stub"

    def configure(self) -> None:
        self.config_dir = self.home / ".config" / "opencode"
        self.config_path = self.config_dir / "opencode.json"
        self.plugins_dir = self.config_dir / "plugins"
        self.plugins_dir.mkdir(parents=True, exist_ok=True)
        self.data_dir = self.home / ".local" / "share" / "opencode"  # sessions, logs
        seed_plugin_sdk(self.config_dir)
        self.env.update(
            OPENCODE_DISABLE_MODELS_FETCH="1",
            OPENCODE_DISABLE_AUTOUPDATE="1",
            OPENCODE_DISABLE_LSP_DOWNLOAD="1",
            OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
            OPENCODE_DISABLE_SHARE="1",
        )
        write_json(
            self.config_path,
            {
                "$schema": "https://opencode.ai/config.json",
                "model": self.model,
                "small_model": self.model,
                "autoupdate": False,
                "share": "disabled",
                "provider": {
                    "anthropic": {
                        "options": {"baseURL": f"{self.stub.url}/v1", "apiKey": "sk-ant-stub-dummy"},
                        "models": {
                            "claude-stub": {
                                "name": "Claude stub",
                                "tool_call": True,
                                "limit": {"context": 200000, "output": 8192},
                            }
                        },
                    }
                },
            },
        )

    def run(
        self,
        prompt: str,
        *,
        continue_last: bool = False,
        session: str | None = None,
        args: Sequence[str] = (),
        timeout: float = DEFAULT_TIMEOUT,
    ) -> HostRun:
        """One turn: ``opencode run PROMPT </dev/null`` (``--continue`` or ``--session ID`` to go
        on with an earlier session)."""
        argv = ["run", *args]
        if session:
            argv += ["--session", session]
        elif continue_last:
            argv.append("--continue")
        return self.invoke([*argv, prompt], timeout=timeout)


def seed_plugin_sdk(config_dir: Path) -> None:
    """Make ``config_dir`` look like OpenCode already installed ``@opencode-ai/plugin`` there.

    OpenCode 1.18.33 skips its dependency install in a config dir that has ``node_modules``
    and whose ``package-lock.json`` lists every dependency it wants (it compares names only),
    so the pre-installed tree from ``.ci/install-hosts`` is linked in, with its manifest and lock.
    """
    sdk = HOSTS_PREFIX / "opencode-plugin"
    if not (sdk / "node_modules").is_dir():
        return  # a PATH-installed OpenCode without .hosts/: it will try to install
    config_dir.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(sdk / name, config_dir / name)
    link = config_dir / "node_modules"
    if not link.exists():
        link.symlink_to(sdk / "node_modules", target_is_directory=True)


# --- fixtures --------------------------------------------------------------------------------


def _host_fixture(tmp_path: Path, cls: type[Host], stub: StubServer) -> Iterator[Host]:
    binary = require_host(cls.name)
    with stub:
        yield cls(tmp_path / f"{cls.name}-host", stub, binary)


@pytest.fixture
def claude_host(tmp_path: Path) -> Iterator[ClaudeHost]:
    yield from _host_fixture(tmp_path, ClaudeHost, AnthropicStub())  # type: ignore[misc]


@pytest.fixture
def codex_host(tmp_path: Path) -> Iterator[CodexHost]:
    yield from _host_fixture(tmp_path, CodexHost, ResponsesStub())  # type: ignore[misc]


@pytest.fixture
def gemini_host(tmp_path: Path) -> Iterator[GeminiHost]:
    yield from _host_fixture(tmp_path, GeminiHost, GeminiStub())  # type: ignore[misc]


@pytest.fixture
def opencode_host(tmp_path: Path) -> Iterator[OpenCodeHost]:
    yield from _host_fixture(tmp_path, OpenCodeHost, AnthropicStub())  # type: ignore[misc]
