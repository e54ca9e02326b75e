"""The real-host harness works: each host runs one headless turn against its stub, fires a probe
hook on session start and prompt submit, and the probe's context reaches the model.

The probe stands in for ``ov hook HOST EVENT``: it saves the JSON the host wrote on its stdin
and prints context carrying a marker unique to the test. OpenCode has no shell hooks, so a
small plugin forwards its hook points to the same probe, as ov's OpenCode plugin will.
"""

from __future__ import annotations

import json
import shlex
import sys
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests import realhosts
from tests.realhosts import (  # noqa: F401  (pytest fixtures)
    ClaudeHost,
    CodexHost,
    GeminiHost,
    OpenCodeHost,
    claude_host,
    claude_session_id,
    codex_host,
    gemini_host,
    opencode_host,
    read_json,
    write_json,
)
from tests.stubs.anthropic import AnthropicStub
from tests.stubs.gemini import GeminiStub
from tests.stubs.openai_responses import ResponsesStub


TURN_TIMEOUT = 60.0

PROBE = r'''
"""Probe hook: save stdin, answer with a marker. argv: HOST EVENT OUT_DIR TOKEN MODE."""
import json, pathlib, sys

host, event, out_dir, token, mode = sys.argv[1:6]
raw = sys.stdin.read()
out = pathlib.Path(out_dir)
out.mkdir(parents=True, exist_ok=True)
(out / f"{event}.json").write_text(raw)
with open(out / "events.jsonl", "a") as log:
    log.write(json.dumps({"event": event, "stdin": raw}) + "\n")
marker = f"OVMARK-{token}-{event}"
if mode == "context":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": event, "additionalContext": marker}}))
'''

OPENCODE_PLUGIN = r'''
// Probe plugin: forwards OpenCode's hook points to the probe hook and injects what it answers.
import { spawnSync } from "node:child_process"

const PYTHON = %(python)s
const PROBE = %(probe)s
const OUT = %(out)s
const TOKEN = %(token)s

function probe(event, payload, mode) {
  const done = spawnSync(PYTHON, [PROBE, "opencode", event, OUT, TOKEN, mode], {
    input: JSON.stringify(payload),
    encoding: "utf8",
  })
  if (done.status !== 0 || !done.stdout.trim()) return ""
  return JSON.parse(done.stdout).hookSpecificOutput.additionalContext
}

export const OvProbe = async ({ directory, worktree }) => {
  probe("plugin.init", { directory, worktree }, "none")
  return {
    "chat.message": async (input, output) => {
      const context = probe("chat.message", { input, output }, "context")
      const part = output.parts.find((p) => p.type === "text")
      if (part && context) part.text += "\n\n" + context
    },
    "experimental.chat.system.transform": async (input, output) => {
      const context = probe("experimental.chat.system.transform", { input }, "context")
      if (context) output.system.push(context)
    },
    event: async ({ event }) => {
      if (event.type === "session.idle") probe("session.idle", event, "none")
    },
  }
}
'''


class Probe:
    """The probe hook script in ``tmp_path`` and what it saved."""

    def __init__(self, tmp_path: Path, host: str) -> None:
        self.host = host
        self.token = uuid.uuid4().hex[:12]
        self.script = tmp_path / "probe_hook.py"
        self.script.write_text(PROBE)
        self.out = tmp_path / "probe-out"

    def command(self, event: str, mode: str = "context") -> str:
        argv = [sys.executable, str(self.script), self.host, event, str(self.out), self.token, mode]
        return " ".join(shlex.quote(a) for a in argv)

    def marker(self, event: str) -> str:
        return f"OVMARK-{self.token}-{event}"

    def fired(self, event: str) -> bool:
        return (self.out / f"{event}.json").exists()

    def stdin(self, event: str) -> dict:
        assert self.fired(event), f"{self.host} never ran the {event} hook; saw {self.events()}"
        return read_json(self.out / f"{event}.json")

    def all_stdin(self, event: str) -> list[dict]:
        """Every firing of ``event``, in order."""
        return [json.loads(line["stdin"]) for line in self._log() if line["event"] == event]

    def events(self) -> list[str]:
        return [line["event"] for line in self._log()]

    def _log(self) -> list[dict]:
        log = self.out / "events.jsonl"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def command_hooks(probe: Probe, events: dict[str, str], **handler: object) -> dict:
    """Claude-shaped ``{"hooks": {Event: [{"hooks": [handler]}]}}`` running the probe."""
    return {
        "hooks": {
            event: [{"hooks": [{"type": "command", "command": probe.command(event, mode), **handler}]}]
            for event, mode in events.items()
        }
    }


def assert_common_fields(payload: dict, event: str, project: Path) -> None:
    for name in ("session_id", "transcript_path", "cwd", "hook_event_name"):
        assert payload.get(name), f"{event} stdin lacks {name}: {payload}"
    assert payload["hook_event_name"] == event
    assert Path(payload["cwd"]).resolve() == project.resolve()


@pytest.mark.parametrize("required", [False, True])
def test_a_missing_host_skips_or_fails_when_required(monkeypatch: pytest.MonkeyPatch, required: bool) -> None:
    monkeypatch.setattr(realhosts, "REQUIRE_HOSTS", required)
    expected = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(expected, match="run .ci/install-hosts"):
        realhosts.require_host("ov-no-such-host")


def post(url: str, body: dict) -> tuple[str, bytes]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers["Content-Type"], response.read()


def test_stubs_answer_and_record_what_the_model_was_sent() -> None:
    with AnthropicStub(reply="hi there") as stub:
        system = [{"type": "text", "text": "SYS"}]
        messages = [{"role": "user", "content": [{"type": "tool_result", "content": "TOOL-OUT"}]}]
        kind, body = post(stub.url + "/v1/messages?beta=true", {"stream": True, "system": system, "messages": messages})
        assert kind == "text/event-stream"
        assert b'"text": "hi there"' in body and b"message_stop" in body
        assert stub.saw("SYS") and stub.saw("TOOL-OUT") and not stub.saw("user")  # labels are not text
        assert [(r.path, r.query) for r in stub.model_requests] == [("/v1/messages", {"beta": "true"})]

    with ResponsesStub() as stub:
        developer = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "DEV"}]}
        _, body = post(stub.url + "/v1/responses", {"stream": True, "instructions": "INSTR", "input": [developer]})
        events = [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")]
        assert [e["type"] for e in events][0] == "response.created"
        assert events[-1]["type"] == "response.completed" and events[-1]["response"]["id"]
        assert stub.saw("INSTR") and stub.saw("DEV")

    with GeminiStub() as stub:  # the model router's side call wants JSON that fits its schema
        schema = {"type": "OBJECT", "properties": {"model_choice": {"type": "STRING", "enum": ["flash", "pro"]}}}
        config = {"responseMimeType": "application/json", "responseSchema": schema}
        contents = [{"role": "user", "parts": [{"text": "ROUTE"}]}]
        request = {"contents": contents, "generationConfig": config}
        _, body = post(stub.url + "/v1beta/models/m:generateContent", request)
        answer = json.loads(body)["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(answer) == {"model_choice": "flash"}
        assert stub.saw("ROUTE") and not stub.errors


@pytest.mark.real_host
@pytest.mark.slow
def test_claude_code_runs_hooks_and_injects_context(claude_host: ClaudeHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "claude")
    events = {"SessionStart": "context", "UserPromptSubmit": "context", "Stop": "none"}
    write_json(claude_host.settings_path, command_hooks(probe, events, timeout=30))

    run = claude_host.run("hello from the smoke test", timeout=TURN_TIMEOUT).check()

    assert claude_host.stub.saw(probe.marker("SessionStart"))
    assert claude_host.stub.saw(probe.marker("UserPromptSubmit"))
    for event in events:
        assert_common_fields(probe.stdin(event), event, claude_host.project)
    stop = probe.stdin("Stop")
    assert stop["session_id"] == claude_session_id(run)
    assert Path(stop["transcript_path"]).is_file()


@pytest.mark.real_host
@pytest.mark.slow
def test_codex_runs_trusted_hooks_and_injects_context(codex_host: CodexHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "codex")
    events = {"SessionStart": "context", "UserPromptSubmit": "context", "Stop": "none"}
    write_json(codex_host.hooks_path, command_hooks(probe, events, timeout=30))
    trusted = codex_host.trust_hooks()
    assert len(trusted) == len(events), trusted

    codex_host.run("hello from the smoke test", timeout=TURN_TIMEOUT).check()

    assert codex_host.stub.saw(probe.marker("SessionStart"))
    assert codex_host.stub.saw(probe.marker("UserPromptSubmit"))
    for event in events:
        assert_common_fields(probe.stdin(event), event, codex_host.project)
    assert Path(probe.stdin("Stop")["transcript_path"]).is_file()


@pytest.mark.real_host
@pytest.mark.slow
def test_gemini_cli_runs_hooks_and_injects_context(gemini_host: GeminiHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "gemini")
    events = {"SessionStart": "context", "BeforeAgent": "context", "AfterAgent": "none"}
    settings = read_json(gemini_host.settings_path)
    settings.update(command_hooks(probe, events, name="ov-probe", timeout=30_000))  # Gemini: ms
    write_json(gemini_host.settings_path, settings)

    gemini_host.run("hello from the smoke test", timeout=TURN_TIMEOUT).check()

    assert gemini_host.stub.saw(probe.marker("SessionStart"))
    assert gemini_host.stub.saw(probe.marker("BeforeAgent"))
    for event in events:
        assert_common_fields(probe.stdin(event), event, gemini_host.project)


@pytest.mark.real_host
@pytest.mark.slow
def test_opencode_plugin_hooks_inject_context(opencode_host: OpenCodeHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "opencode")
    plugin = OPENCODE_PLUGIN % {
        name: json.dumps(str(value))
        for name, value in {
            "python": sys.executable,
            "probe": probe.script,
            "out": probe.out,
            "token": probe.token,
        }.items()
    }
    (opencode_host.plugins_dir / "ov-probe.js").write_text(plugin)

    run = opencode_host.run("hello from the smoke test", timeout=TURN_TIMEOUT).check()

    assert opencode_host.stub.saw(probe.marker("chat.message"))
    assert opencode_host.stub.saw(probe.marker("experimental.chat.system.transform"))
    session_id = probe.stdin("chat.message")["input"]["sessionID"]
    assert session_id.startswith("ses_")
    assert probe.stdin("experimental.chat.system.transform")["input"]["sessionID"] == session_id
    assert probe.stdin("session.idle")["properties"]["sessionID"] == session_id
    assert Path(probe.stdin("plugin.init")["directory"]).resolve() == opencode_host.project.resolve()
    # OpenCode skipped its dependency install: the seeded lock file is untouched.
    seeded = realhosts.HOSTS_PREFIX / "opencode-plugin" / "package-lock.json"
    assert (opencode_host.config_dir / "package-lock.json").read_bytes() == seeded.read_bytes(), run.stderr


def session_starts(probe: Probe) -> list[tuple[str, str]]:
    return [(payload["source"], payload["session_id"]) for payload in probe.all_stdin("SessionStart")]


@pytest.mark.real_host
@pytest.mark.slow
def test_claude_code_resume_continues_the_session(claude_host: ClaudeHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "claude")
    write_json(claude_host.settings_path, command_hooks(probe, {"SessionStart": "none"}))
    first = claude_host.run("first prompt", timeout=TURN_TIMEOUT).check()
    second = claude_host.run("second prompt", resume=claude_session_id(first), timeout=TURN_TIMEOUT).check()

    session = claude_session_id(first)
    assert claude_session_id(second) == session
    assert session_starts(probe) == [("startup", session), ("resume", session)]
    assert any("first prompt" in claude_host.stub.text_of(r) for r in second.requests)


@pytest.mark.real_host
@pytest.mark.slow
def test_codex_skips_untrusted_hooks_and_resumes_the_last_session(codex_host: CodexHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "codex")
    write_json(codex_host.hooks_path, command_hooks(probe, {"SessionStart": "none"}))
    codex_host.run("untrusted", timeout=TURN_TIMEOUT).check()
    assert not probe.fired("SessionStart")  # silently skipped, as the notes say

    assert codex_host.trust_hooks() == [f"{codex_host.hooks_path}:session_start:0:0"]
    assert codex_host.trust_hooks() == []  # nothing left to trust
    codex_host.run("first prompt", timeout=TURN_TIMEOUT).check()
    second = codex_host.run("second prompt", resume_last=True, timeout=TURN_TIMEOUT).check()

    (first_source, session), (second_source, resumed) = session_starts(probe)
    assert (first_source, second_source) == ("startup", "resume") and resumed == session
    assert any("first prompt" in codex_host.stub.text_of(r) for r in second.requests)


@pytest.mark.real_host
@pytest.mark.slow
def test_gemini_cli_resume_latest_continues_the_session(gemini_host: GeminiHost, tmp_path: Path) -> None:
    probe = Probe(tmp_path, "gemini")
    settings = read_json(gemini_host.settings_path)
    settings.update(command_hooks(probe, {"SessionStart": "none"}, name="ov-probe"))
    write_json(gemini_host.settings_path, settings)
    gemini_host.run("first prompt", timeout=TURN_TIMEOUT).check()
    second = gemini_host.run("second prompt", resume="latest", timeout=TURN_TIMEOUT).check()

    (first_source, session), (second_source, resumed) = session_starts(probe)
    assert (first_source, second_source) == ("startup", "resume") and resumed == session
    assert any("first prompt" in gemini_host.stub.text_of(r) for r in second.requests)


@pytest.mark.real_host
@pytest.mark.slow
def test_opencode_continue_goes_on_with_the_last_session(opencode_host: OpenCodeHost) -> None:
    opencode_host.run("first prompt", timeout=TURN_TIMEOUT).check()
    second = opencode_host.run("second prompt", continue_last=True, timeout=TURN_TIMEOUT).check()
    assert any("first prompt" in opencode_host.stub.text_of(r) for r in second.requests)
