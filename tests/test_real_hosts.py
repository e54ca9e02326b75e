"""A real host, with ov's hooks installed by `ov install hooks`, remembers what the last session learned.

For each of Claude Code, Codex, Gemini CLI and OpenCode, run headless against a loopback model
stub (tests/realhosts.py): a first session states a preference; its turn is captured and its
end commits it; a second, new session's model request carries the preference, injected by ov
at session start. Also with the real host: ov failing (store locked, index damaged, config
broken) never costs the host its turn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.realhosts import HOSTS_PREFIX, claude_host, codex_host, gemini_host, opencode_host  # noqa: F401  (fixtures)

pytestmark = [pytest.mark.real_host, pytest.mark.slow]

PREFERENCE = "I prefer tabs over spaces for indentation."
QUESTION = "How should I indent the new Python module?"
REMEMBERED = "tabs over spaces"


def _ov(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    ov = Path(sys.executable).parent / "ov"
    proc = subprocess.run([str(ov), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"ov {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def _wire(host, tmp_path: Path, *extra: str, config: dict[str, str] | None = None) -> dict[str, str]:
    """Install ov's hooks into the host's temp HOME (as a user would) and return ov's environment."""
    ov_home = tmp_path / "ovhome"
    host.env["OV_HOME"] = str(ov_home)
    env = {**host.env, "PATH": f"{HOSTS_PREFIX / 'bin'}{os.pathsep}{host.env.get('PATH', '')}"}
    for key, value in (config or {}).items():
        _ov(env, "config", "set", key, value)
    _ov(env, "install", "hooks", "--host", host.name, "--yes", *extra, cwd=host.project)
    return env


def _log(env: dict[str, str]) -> list[dict]:
    path = Path(env["OV_HOME"]) / "logs" / "hooks.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _wait_for(env: dict[str, str], predicate, what: str, timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in _log(env):
            if predicate(record):
                return record
        time.sleep(0.1)
    raise AssertionError(f"no {what} in the hook log: {json.dumps(_log(env), indent=1)}")


def _committed(record: dict) -> bool:
    return record.get("kind") == "commit" and record.get("outcome") == "committed"


def _saw(run, text: str, stub) -> bool:
    return any(text.lower() in stub.text_of(r).lower() for r in run.requests if stub.is_model_request(r))


# The "remembers" tests check what ov does, not how fast: on a loaded machine the recall's 1 s
# deadline could cut the session-start block and fail them for the load's sake.
UNHURRIED = {"hooks.deadline": "10"}


def _remembers(host, env, first_run, second_run) -> None:
    stub = host.stub
    # Gemini CLI escapes the fence's brackets inside its <hook_context>, so look for the tag's name.
    assert not _saw(first_run, 'ov-context kind="session-start"', stub), "nothing was remembered before the first session"
    assert _saw(second_run, REMEMBERED, stub), f"the second session's model requests lack the preference: {_log(env)}"
    assert _saw(second_run, 'ov-context kind="session-start"', stub), _log(env)
    errors = [r for r in _log(env) if r.get("outcome") in ("error", "timeout")]
    assert not errors, errors


def test_claude_code_remembers_across_sessions(claude_host, tmp_path):
    env = _wire(claude_host, tmp_path, config=UNHURRIED)
    first = claude_host.run(PREFERENCE).check()
    commit = _wait_for(env, _committed, "commit of the first session")
    assert commit["session"].startswith("cc-") and commit["memories"]["adds"] >= 1
    second = claude_host.run(QUESTION).check()
    _remembers(claude_host, env, first, second)
    # The second session's turn is captured (at its Stop, or by its end's own capture) and committed.
    second_commit = _wait_for(env, lambda r: _committed(r) and r.get("session") != commit["session"], "commit of the second session")
    assert second_commit["archived"] >= 2  # the user's question and the model's answer


def test_codex_remembers_across_sessions(codex_host, tmp_path):
    env = _wire(codex_host, tmp_path, "--trust", config=UNHURRIED)  # Codex skips unreviewed hooks without a word
    first = codex_host.run(PREFERENCE).check()
    commit = _wait_for(env, _committed, "commit of the first session")
    assert commit["session"].startswith("cx-")
    second = codex_host.run(QUESTION).check()
    _remembers(codex_host, env, first, second)


def test_codex_command_that_fails_is_captured_as_failed(codex_host, tmp_path):
    """The real Codex's words for a command's end ("Process exited with code 3" in 0.171) mark the
    captured call failed, and its header (chunk id, wall time, token count) is not kept."""
    from tests.stubs.base import ToolCall

    env = _wire(codex_host, tmp_path, "--trust")
    codex_host.stub.script = [ToolCall("exec_command", {"cmd": "echo CHECK-OUT; exit 3"}), "The check failed."]
    codex_host.run("run the check", args=["--dangerously-bypass-approvals-and-sandbox"]).check()
    session = _wait_for(env, _committed, "commit of the session")["session"]
    archive = f"viking://user/default/sessions/{session}/history/archive_001/messages.jsonl"
    archived = [json.loads(line) for line in _ov(env, "read", archive).stdout.splitlines() if line.strip()]
    results = [part for message in archived if message["role"] == "tool" for part in message["parts"]]
    assert [(part["tool_output"], part["tool_status"]) for part in results] == [("CHECK-OUT\n", "error")]


def test_codex_without_trust_runs_no_hook_and_doctor_says_so(codex_host, tmp_path):
    env = _wire(codex_host, tmp_path)
    codex_host.run(PREFERENCE).check()
    assert not _log(env)  # skipped silently by Codex, as its notes say
    doctor = subprocess.run([str(Path(sys.executable).parent / "ov"), "doctor", "--json"], env=env, capture_output=True, text=True, timeout=120)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["result"]["checks"]}
    assert checks["codex review"]["status"] == "warn" and "--trust" in checks["codex review"]["fix"]


def test_codex_runs_a_projects_hooks_once_trust_makes_it_a_trusted_project(codex_host, tmp_path):
    """Codex loads no untrusted project's .codex/, so reviewing the project's hooks alone did nothing:
    `hooks/list` showed none of them. In project scope --trust trusts the project first."""
    project = codex_host.project
    env = _wire(codex_host, tmp_path, "--scope", "project")  # as a user would first: a note says what --trust does
    installed = _ov(env, "install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--trust", "--json", cwd=project)
    notes = json.loads(installed.stdout)["result"]["notes"]
    assert any(f"trusted the project {project}" in n and "MCP servers" in n for n in notes), notes
    config = tomllib.loads(codex_host.config_path.read_text())  # the user's: trust and reviews both live there
    assert config["projects"][str(project)]["trust_level"] == "trusted"
    assert {key.rsplit(":", 3)[0] for key in config["hooks"]["state"]} == {str(project / ".codex" / "hooks.json")}

    run = codex_host.run(PREFERENCE).check()
    assert "Untrusted project-local configuration" not in run.stderr
    _wait_for(env, lambda r: r.get("host") == "codex" and r.get("event") == "prompt-submit" and r.get("outcome") != "error", "prompt hook of the project")
    doctor = subprocess.run([str(Path(sys.executable).parent / "ov"), "doctor", "--json"], env=env, cwd=project, capture_output=True, text=True, timeout=120, check=False)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["result"]["checks"]}
    assert checks["codex trust (project)"]["status"] == "ok" and checks["codex review (project)"]["status"] == "ok"


def test_gemini_cli_remembers_across_sessions(gemini_host, tmp_path):
    env = _wire(gemini_host, tmp_path, config=UNHURRIED)
    first = gemini_host.run(PREFERENCE).check()
    commit = _wait_for(env, _committed, "commit of the first session")
    assert commit["session"].startswith("gm-")
    second = gemini_host.run(QUESTION).check()
    _remembers(gemini_host, env, first, second)


def test_opencode_remembers_across_sessions(opencode_host, tmp_path):
    # OpenCode has no session-end event: the next session start commits the one left open.
    env = _wire(opencode_host, tmp_path, config={**UNHURRIED, "hooks.orphan_after": "0"})
    first = opencode_host.run(PREFERENCE).check()
    _wait_for(env, lambda r: r.get("kind") == "capture" and r.get("captured"), "capture of the first turn")
    second = opencode_host.run(QUESTION).check()
    start = _wait_for(env, lambda r: r.get("event") == "session-start" and r.get("orphans"), "session start committing the first session")
    assert start["orphans"][0].startswith("oc-")
    _remembers(opencode_host, env, first, second)
    # Committed by the sweep, the session is still OpenCode's: in the log and in its commit.
    commit = _wait_for(env, lambda r: _committed(r) and r.get("session") == start["orphans"][0], "the sweep's commit")
    assert commit["host"] == "opencode"
    log = _ov(env, "snapshot", "log", "-n", "20", "--json")
    assert any(e["command"] == "commit" and e["via"] == "hook opencode" for e in json.loads(log.stdout)["result"]), log.stdout


# --- failing open, with the real host --------------------------------------------------------


def _lock_store(ov_home: Path) -> subprocess.Popen:
    script = (
        "import sys, time\n"
        "from ov.config import load_config\nfrom ov.home import Home\nfrom ov.identity import Identity\n"
        "from ov.store.lock import WriteLock\nfrom ov.store.store import Store\n"
        "home = Home.from_env(); store = Store(home, Identity(), load_config(home).config)\n"
        "lock = WriteLock(store.lock_path, 10); lock.acquire(); print('locked', flush=True); time.sleep(120)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "OV_HOME": str(ov_home)}, stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    return proc


def test_claude_code_keeps_its_turn_when_ov_is_broken(claude_host, tmp_path):
    env = _wire(claude_host, tmp_path)
    ov_home = Path(env["OV_HOME"])
    claude_host.run(PREFERENCE).check()
    _wait_for(env, _committed, "first commit")

    locker = _lock_store(ov_home)  # a long writer holds the store
    try:
        locked = claude_host.run(QUESTION, timeout=30).check()
    finally:
        locker.kill()
    assert locked.seconds < 20 and _saw(locked, REMEMBERED, claude_host.stub)  # reads need no lock

    index = ov_home / "state" / "default" / "index"
    for path in index.rglob("*"):
        if path.is_file():
            path.write_bytes(b"\x00garbage")
    damaged = claude_host.run(QUESTION, timeout=30).check()
    assert damaged.seconds < 20

    (ov_home / "config.yaml").write_text("hooks: [not yaml\n")
    broken = claude_host.run(QUESTION, timeout=30).check()
    assert broken.seconds < 20 and not _saw(broken, "ov-context kind=", claude_host.stub)
    assert any(r.get("outcome") == "error" and "ConfigError" in r.get("error", "") for r in _log(env))


# --- what an audit found driving the hosts ----------------------------------------------------------


def _linked_ov(tmp_path: Path) -> Path:
    """An `ov` at a path of its own (a virtualenv's, say) that a test can take away: a link to this one."""
    link = tmp_path / "venv" / "bin" / "ov"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path(sys.executable).parent / "ov")
    return link


def test_gemini_cli_keeps_its_turn_when_the_ov_its_hooks_run_cannot_start(gemini_host, tmp_path):
    """(found by an audit: with the `ov` the hooks name gone, Gemini CLI refused every prompt, exit
    0 and no model request: it reads a hook's exit 127 (126) with text for a deny)"""
    link = _linked_ov(tmp_path)
    env = _wire(gemini_host, tmp_path)
    subprocess.run([str(link), "install", "hooks", "--host", "gemini", "--yes"], env=env, cwd=gemini_host.project, check=True, capture_output=True, timeout=120)
    commands = [h["command"] for groups in json.loads(gemini_host.settings_path.read_text())["hooks"].values() for g in groups for h in g["hooks"]]
    assert len(commands) == 4 and all(str(link) in c for c in commands), commands  # the older entries replaced, not doubled
    gemini_host.run(PREFERENCE).check()
    _wait_for(env, _committed, "commit of the first session")
    link.unlink()  # the virtualenv moved
    gone = gemini_host.run(QUESTION).check()
    link.write_text("#!/nonexistent/python3\n")  # its interpreter went
    link.chmod(0o755)
    bad = gemini_host.run(QUESTION).check()
    for run in (gone, bad):
        assert [r for r in run.requests if gemini_host.stub.is_model_request(r)], run.stderr
        assert run.stdout.strip() and "blocked" not in run.stderr.lower(), run.stderr
        assert "ov-prompt-submit" in run.stderr  # Gemini says which hook failed, and goes on


def test_codex_hooks_installed_again_from_another_ov_are_reviewed_again_with_trust(codex_host, tmp_path):
    """(found by an audit: after a re-install from another ov, doctor said "reviewed" while Codex
    skipped every hook as "modified")"""
    from ov.hosts import gates
    from tests.codex_trust import codex_hooks

    env = _wire(codex_host, tmp_path, "--trust")

    def ours() -> dict[str, dict]:
        listed = codex_hooks(codex_host.home, cwd=codex_host.project, env=env, binary=codex_host.binary)
        return {h["key"]: h for h in listed if " hook codex " in h["command"]}

    def review() -> dict:
        doctor = subprocess.run([str(Path(sys.executable).parent / "ov"), "doctor", "--json"], env=env, cwd=codex_host.project, capture_output=True, text=True, timeout=120, check=False)
        return {c["name"]: c for c in json.loads(doctor.stdout)["result"]["checks"]}["codex review"]

    trusted = ours()
    assert len(trusted) == 5 and {h["trustStatus"] for h in trusted.values()} == {"trusted"}
    # ov's hash of each handler is the one Codex computes (doctor compares reviews with it).
    file = json.loads(codex_host.hooks_path.read_text())["hooks"]
    for native, groups in file.items():
        event = {"SessionStart": "session_start", "UserPromptSubmit": "user_prompt_submit", "Stop": "stop", "PreCompact": "pre_compact", "SessionEnd": "session_end"}[native]
        key = f"{codex_host.hooks_path}:{event}:0:0"
        assert gates.codex_hook_hash(event, groups[0]["hooks"][0], groups[0].get("matcher")) == trusted[key]["currentHash"]
    assert review()["status"] == "ok"

    link = _linked_ov(tmp_path)
    subprocess.run([str(link), "install", "hooks", "--host", "codex", "--yes"], env=env, cwd=codex_host.project, check=True, capture_output=True, timeout=120)
    assert {h["trustStatus"] for h in ours().values()} == {"modified"}
    check = review()
    assert check["status"] == "warn" and "5 of ov's hooks changed since reviewed" in check["detail"] and "--trust" in check["fix"], check
    logged = len(_log(env))
    codex_host.run(PREFERENCE).check()
    assert len(_log(env)) == logged  # Codex skipped every one of them, without a word

    subprocess.run([str(link), "install", "hooks", "--host", "codex", "--yes", "--trust"], env=env, cwd=codex_host.project, check=True, capture_output=True, timeout=120)
    assert {h["trustStatus"] for h in ours().values()} == {"trusted"} and review()["status"] == "ok"
    codex_host.run(PREFERENCE).check()
    _wait_for(env, lambda r: r.get("host") == "codex" and r.get("event") == "prompt-submit" and len(_log(env)) > logged, "a hook run after --trust")


def test_opencode_gives_recall_to_its_agents_requests_and_not_the_title_request(opencode_host, tmp_path):
    """(found by an audit: the plugin added ov's recall to every model request of the session,
    OpenCode's title request to its small model, perhaps another provider, included)"""
    from tests.stubs.base import ToolCall

    env = _wire(opencode_host, tmp_path)
    _ov(env, "remember", PREFERENCE)
    stub = opencode_host.stub
    stub.script = [ToolCall("bash", {"command": "echo checked", "description": "check the indentation"})]
    run = opencode_host.run(QUESTION).check()
    texts = [stub.text_of(r) for r in run.requests if stub.is_model_request(r)]
    title = [t for t in texts if "title generator" in t]
    agent = [t for t in texts if "title generator" not in t]
    assert title and len(agent) >= 2, texts  # the tool call's answer is a second request of the turn
    assert not [t for t in title if "ov-context" in t]
    assert all('ov-context kind="session-start"' in t and REMEMBERED in t for t in agent), agent


def test_opencode_keeps_the_session_start_block_for_every_turn_of_a_session(opencode_host, tmp_path):
    """(found by an audit: in one OpenCode process, as its TUI runs, the profile and preferences
    reached only a session's first turn; Claude Code, Codex and Gemini CLI keep them for the session)"""
    import re
    import socket

    from tests.realhosts import kill_group

    env = _wire(opencode_host, tmp_path)
    _ov(env, "remember", PREFERENCE)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    host = opencode_host
    with open(tmp_path / "serve.out", "wb") as out:
        server = subprocess.Popen(
            [str(host.binary), "serve", "--port", str(port)], cwd=host.project, env={**host.env, "PWD": str(host.project)},
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.2)
        first = host.run(QUESTION, args=["--attach", url, "--format", "json"]).check()
        session = re.search(r'"sessionID":"(ses_[^"]+)"', first.stdout).group(1)
        second = host.run("Write the module header for me please.", session=session, args=["--attach", url, "--format", "json"]).check()
    finally:
        kill_group(server.pid)
        server.wait()
    stub = host.stub
    for run in (first, second):
        agent = [stub.text_of(r) for r in run.requests if stub.is_model_request(r) and "title generator" not in stub.text_of(r)]
        assert agent and all('ov-context kind="session-start"' in t and REMEMBERED in t for t in agent), agent
    starts = [r for r in _log(env) if r.get("event") == "session-start"]
    assert len(starts) == 1, starts  # one session, one start: the block is kept, not asked for again


def test_opencode_never_takes_a_subagents_prompt_for_the_users_words(opencode_host, tmp_path):
    """(found by an audit: the prompt the model wrote for a subagent (OpenCode's task tool, a child
    session) was captured as the user's words and committed as a user preference)"""
    from tests.stubs.base import ToolCall

    env = _wire(opencode_host, tmp_path, config={"hooks.orphan_after": "0"})
    stub = opencode_host.stub
    told = "I prefer two-space indentation in every YAML file. Survey the YAML files."
    stub.script = [ToolCall("task", {"description": "indent survey", "prompt": told, "subagent_type": "general"}), "subagent done", "parent done"]
    run = opencode_host.run("Survey the YAML files for me.", timeout=120).check()
    texts = [stub.text_of(r) for r in run.requests if stub.is_model_request(r)]
    subagent = [t for t in texts if told in t and "title generator" not in t and "subagent done" not in t]
    assert subagent, texts  # the subagent ran, in its own session
    assert not [t for t in subagent if "ov-context" in t]
    parent = _wait_for(env, lambda r: r.get("event") == "stop (job)", "capture of the turn")["session"]
    sessions = {r.get("session") for r in _log(env) if r.get("session")}
    assert sessions == {parent}, _log(env)  # no hook ran for the child session
    stub.script = []
    opencode_host.run("thanks").check()  # the next session's start commits the first
    _wait_for(env, lambda r: _committed(r) and r.get("session") == parent, "commit of the first session")
    memories = _ov(env, "ls", "-r", "viking://user/default/memories").stdout
    assert "two-space" not in memories and "two_space" not in memories, memories


@pytest.mark.parametrize("fixture", ["claude_host", "codex_host", "gemini_host", "opencode_host"])
def test_hooks_start_an_ov_whose_path_and_home_hold_an_equals_sign_and_a_space(request, tmp_path, fixture):
    """`env` reads any word holding a `=` ahead of its program as one more assignment: an ov in
    `…/my venv=2/bin/` pinned a home and then ran `hook` (exit 127) in every host's hooks. Each host
    runs them its own way: Claude Code and Gemini CLI through a shell, Codex through the user's
    login shell, OpenCode's plugin with none."""
    host = request.getfixturevalue(fixture)
    link = tmp_path / "my venv=2" / "bin" / "ov"
    link.parent.mkdir(parents=True)
    link.symlink_to(Path(sys.executable).parent / "ov")
    host.env["OV_HOME"] = str(tmp_path / "my home=1")
    env = {**host.env, "PATH": f"{HOSTS_PREFIX / 'bin'}{os.pathsep}{host.env.get('PATH', '')}"}
    trust = ["--trust"] if host.name == "codex" else []
    subprocess.run([str(link), "install", "hooks", "--host", host.name, "--yes", *trust], env=env, cwd=host.project, check=True, capture_output=True, timeout=120)
    host.run(PREFERENCE).check()
    ran = _wait_for(env, lambda r: r.get("host") == host.name and r.get("event") == "prompt-submit", f"{host.name}'s prompt hook")
    assert ran.get("outcome") != "error", ran
    assert (Path(env["OV_HOME"]) / "logs" / "hooks.jsonl").is_file()


def test_codex_gives_a_subagents_turn_no_recall_and_no_capture(codex_host, tmp_path):
    """(found driving Codex 0.171.0: a subagent spawned with multi_agent_v1's spawn_agent runs its
    turn under the parent's session_id, with its own rollout and `agent_id`; its prompt, the
    model's words for the task, reached ov's prompt hook as the user's)"""
    from tests.stubs.base import ToolCall

    env = _wire(codex_host, tmp_path, "--trust")
    _ov(env, "remember", PREFERENCE)
    stub = codex_host.stub
    told = "SUBTASK: which indentation does the user prefer, tabs over spaces? Survey the Python files."
    sleep = ToolCall("exec_command", {"cmd": "sleep 5"})  # parent or subagent: either keeps the run open for the other
    stub.script = [ToolCall("spawn_agent", {"message": told, "agent_type": "default"}), sleep, sleep, "done", "done", "done"]
    run = codex_host.run("Survey the Python files for me.", timeout=180).check()
    child = [stub.text_of(r) for r in run.requests if stub.is_model_request(r) and stub.text_of(r).rstrip().endswith(told)]
    assert child and not [t for t in child if "ov-context" in t], child  # the subagent ran, given nothing by ov
    skipped = _wait_for(env, lambda r: r.get("outcome") == "skipped: a subagent's turn", "the subagent's skipped prompt hook")
    parent = _wait_for(env, lambda r: r.get("event") == "stop (job)", "capture of the parent's turn")
    assert skipped["event"] == "prompt-submit" and skipped["session"] == parent["session"]
    prompts = [r for r in _log(env) if r.get("event") == "prompt-submit" and not r["outcome"].startswith("skipped")]
    assert len(prompts) == 1, _log(env)  # the user's prompt alone


def test_codex_parent_ending_before_its_subagent_is_left_live_until_the_subagent_has_ended(request, tmp_path):
    """Codex 0.171.0 writes a subagent's end into the parent's rollout (a `<subagent_notification>`)
    after the parent's turn ended when the subagent outlives it (`codex exec` shuts it down), and
    perhaps after the parent's SessionEnd committed: a commit that found a spawn without it kept
    the session live for the sweep, which reads the rollout once more. Here the notification lands
    either before the end's commit read the rollout or after: the session ends up settled."""
    host = request.getfixturevalue("codex_host")  # by name: a parameter would shadow the imported fixture
    env = _wire(host, tmp_path, "--trust")
    stub = host.stub
    told = "SUBTASK: which indentation does the user prefer? Survey the Python files."
    spawned: list[bool] = []

    def step(asked):
        if not stub.offered_tools(asked):
            return None
        if not spawned:
            spawned.append(True)
            return stub.issue(asked, "spawn_agent", {"message": told, "agent_type": "default"})
        if stub.text_of(asked).rstrip().endswith(told):
            return stub.issue(asked, "exec_command", {"cmd": "sleep 20"})  # the subagent outlives its parent
        return "parent done"

    stub.next_step = step
    host.run("Survey the Python files for me.", timeout=180).check()
    end = _wait_for(env, lambda r: r.get("event") == "session-end (job)", "commit of the parent's session")
    assert end["outcome"] == "committed", end
    (rollout,) = [p for p in host.sessions_dir.rglob("rollout-*.jsonl") if end["session"].removeprefix("cx-") in p.name]
    kinds = [(line["type"], line["payload"].get("type"), json.dumps(line["payload"])) for line in map(json.loads, rollout.read_text().splitlines())]
    done = next(i for i, (kind, item, _) in enumerate(kinds) if item == "task_complete")
    notified = [i for i, (kind, item, text) in enumerate(kinds) if kind == "response_item" and "<subagent_notification>" in text]
    assert notified and notified[0] > done, kinds  # written after the parent's turn ended
    live = Path(env["OV_HOME"]) / "state"
    if end.get("awaiting_subagents"):
        (mark,) = live.rglob(f"hooks/live/*/{end['session']}")  # the session was kept live for its subagent
        from ov.sessions.live import read_mark

        assert read_mark(mark).held(), mark.read_text()  # held: a commit that reads no rollout leaves it
        _ov(env, "config", "set", "hooks.orphan_after", "0")
        host.run("thanks").check()  # the next session's start sweeps it
        swept = _wait_for(env, lambda r: r.get("event") == "orphan (job)" and r.get("session") == end["session"], "the sweep of the parent's session")
        assert "awaiting_subagents" not in swept, swept
    assert not list(live.rglob(f"hooks/live/*/{end['session']}"))  # settled: its subagent has ended


# --- a project's entries, and an older or newer ov running them -----------------------------------------


def _project_commands(host) -> list[str]:
    data = json.loads(host.project_settings_path.read_text())
    return [h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"]]


@pytest.mark.parametrize("fixture", ["claude_host", "gemini_host"])
def test_a_projects_hooks_answer_alone_and_defer_beside_the_users(request, tmp_path, fixture):
    """The project's entries carry their scope in their environment (`OV_HOOK_SCOPE=project`), not
    as an option an older ov refuses with exit 2: the host runs them, they answer alone, and beside
    the user's own entries they leave the answer to those."""
    host = request.getfixturevalue(fixture)
    env = _wire(host, tmp_path, "--scope", "project", config=UNHURRIED)
    commands = _project_commands(host)
    assert commands and all("OV_HOOK_SCOPE=project" in c and "--scope" not in c for c in commands), commands
    first = host.run(PREFERENCE).check()
    _wait_for(env, _committed, "commit of the first session")
    second = host.run(QUESTION).check()
    _remembers(host, env, first, second)
    _ov(env, "install", "hooks", "--host", host.name, "--yes", cwd=host.project)
    seen = len(_log(env))
    third = host.run(QUESTION).check()
    assert _saw(third, REMEMBERED, host.stub)
    skipped = [r for r in _log(env)[seen:] if r.get("outcome") == "skipped: the user-scope hook answers"]
    assert {r["event"] for r in skipped} >= {"session-start", "prompt-submit"}, _log(env)[seen:]


def test_gemini_cli_keeps_its_turn_when_ovs_hook_is_interrupted(gemini_host, tmp_path):
    """(session 38's leftover) The Gemini CLI ov pins (0.61) reads a hook's exit other than 0 and
    1, when its output is text and not JSON, as a deny (its hookRunner; its docs say only 2 does).
    Interrupted, `ov hook` exited 130 with "was interrupted" on stderr, and the prompt was
    refused with no model request: it exits 1, and the turn goes on. The entry goes through the
    command line's parser (`--scope=project`), the path an interrupt is reported on, and ov gets
    a SIGINT while it waits on its stdin (held open here, as a slow host would)."""
    _wire(gemini_host, tmp_path, "--scope", "project")
    settings = json.loads(gemini_host.project_settings_path.read_text())
    (group,) = settings["hooks"]["BeforeAgent"]
    entry = group["hooks"][0]
    ov = entry["command"].split(" exec ", 1)[1].split(" hook ", 1)[0]
    entry["command"] = f"{{ cat; sleep 8; }} 2>/dev/null | timeout --preserve-status -s INT 5 {ov} hook gemini prompt-submit --scope=project"
    entry["timeout"] = 30000
    gemini_host.project_settings_path.write_text(json.dumps(settings, indent=2))
    run = gemini_host.run(QUESTION).check()
    assert [r for r in run.requests if gemini_host.stub.is_model_request(r)], run.stderr
    assert run.stdout.strip() and "blocked" not in run.stderr.lower(), run.stderr
    assert "ov-prompt-submit" in run.stderr and "timed out" not in run.stderr, run.stderr  # failed, not killed, and the turn went on


@pytest.mark.parametrize("fixture", ["claude_host", "gemini_host"])
def test_a_hook_entry_from_a_newer_ov_does_not_block_the_prompt(request, tmp_path, fixture):
    """An entry with an option this ov does not know (a newer ov's, after a downgrade): `ov hook`
    exits 1, not the usage error's 2 that the host reads as "block", and the turn goes on."""
    host = request.getfixturevalue(fixture)
    env = _wire(host, tmp_path, "--scope", "project")
    text = host.project_settings_path.read_text()
    host.project_settings_path.write_text(text.replace("prompt-submit", "prompt-submit --some-future-option x"))
    run = host.run(QUESTION).check()
    assert [r for r in run.requests if host.stub.is_model_request(r)], run.stderr
    assert run.stdout.strip() and "blocked" not in run.stderr.lower(), run.stderr
    refused = [r for r in _log(env) if r.get("event") == "prompt-submit" and r.get("outcome") == "error"]
    assert refused and "No such option" in refused[0]["error"], _log(env)
