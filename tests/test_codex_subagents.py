"""A Codex subagent's result that lands in its parent's rollout after the parent's session ended.

Codex (0.171.0) writes a subagent's end into the parent's rollout as a `<subagent_notification>`
user-role message, after the parent's turn ended when the subagent outlives it, and perhaps after
the parent's SessionEnd hook committed. The rollouts here are shaped as the real host writes them
(tests/test_real_hosts.py drives it).
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ov.home import Home
from ov.hosts import codex
from tests.test_hooks import _hook, _stdin, _store

AGENT = "01a24a3f-66dc-7e73-9780-a7c02bc57937"


def _stamp(at: float) -> str:
    return datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _line(payload: dict, at: float) -> str:
    return json.dumps({"timestamp": _stamp(at), "type": "response_item", "payload": payload}, separators=(",", ":")) + "\n"


def _asked(text: str, at: float) -> str:
    return _line({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}, at)


def _spawn(call: str, at: float, agent: str | None = AGENT) -> str:
    """Codex 0.171.0's spawn_agent call and its output (an error's text when ``agent`` is None)."""
    arguments = json.dumps({"message": "SUBTASK: survey the Python files.", "agent_type": "default"})
    made = _line({"type": "function_call", "status": "completed", "name": "spawn_agent", "namespace": "multi_agent_v1", "arguments": arguments, "call_id": call}, at)
    output = json.dumps({"agent_id": agent, "nickname": "Euler"}, separators=(",", ":")) if agent else "spawn_agent failed: agent thread limit reached"
    return made + _line({"type": "function_call_output", "call_id": call, "output": output}, at + 0.05)


def _notification(status: object, at: float, agent: str = AGENT) -> str:
    body = json.dumps({"agent_path": agent, "status": status}, separators=(",", ":"))
    text = f"<subagent_notification>\n{body}\n</subagent_notification>"
    return _line({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}, at)


def _done(at: float) -> str:
    return _line({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "parent done"}]}, at)


def test_a_spawn_without_its_notification_is_awaited_from_when_it_was_made(tmp_path):
    now = time.time()
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(_asked("Survey the Python files for me.", now - 60) + _spawn("call_1", now - 50) + _done(now - 40))
    awaited = codex.HOST.awaited(rollout)
    assert awaited is not None and awaited.count == 1 and abs(awaited.since - (now - 50)) < 0.01

    # Any status ends it, "shutdown" (a string: codex exec ending the parent's run) as well as a result.
    for status in ("shutdown", {"completed": "tabs everywhere"}, {"errored": "the sandbox refused"}):
        with_end = tmp_path / "ended.jsonl"
        with_end.write_text(rollout.read_text() + _notification(status, now))
        assert codex.HOST.awaited(with_end) is None, status


def test_what_a_rollout_awaits_counts_each_subagent_still_running(tmp_path):
    now = time.time()
    rollout = tmp_path / "rollout.jsonl"
    other = "01a24a3f-0000-7000-8000-000000000002"
    lines = [
        _spawn("call_1", now - 30),
        _spawn("call_2", now - 20, agent=other),
        _spawn("call_3", now - 10, agent=None),  # failed: no subagent runs
        _notification({"completed": "found it"}, now - 5),  # call_1's
        # A call whose output never came (the parent killed while spawning): still awaited.
        _line({"type": "function_call", "name": "spawn_agent", "namespace": "multi_agent_v1", "arguments": "{}", "call_id": "call_4"}, now - 2),
        # Text that names the tool is no call of it.
        _asked("what does spawn_agent do?", now - 1),
    ]
    rollout.write_text("".join(lines))
    awaited = codex.HOST.awaited(rollout)
    assert awaited is not None and awaited.count == 2 and abs(awaited.since - (now - 20)) < 0.01
    assert codex.HOST.awaited(tmp_path / "missing.jsonl") is None
    plain = tmp_path / "plain.jsonl"
    plain.write_text(_asked("no subagent here", now) + _done(now))
    assert codex.HOST.awaited(plain) is None


def test_a_subagent_named_by_its_path_is_matched_by_it(tmp_path):
    """A later Codex names subagents by a path in the spawn's output and the notification."""
    now = time.time()
    made = _line({"type": "function_call", "name": "spawn_agent", "arguments": "{}", "call_id": "c"}, now)
    output = _line({"type": "function_call_output", "call_id": "c", "output": json.dumps({"agent_id": "t-1", "task_name": "/root/survey"})}, now)
    rollout = tmp_path / "rollout.jsonl"
    rollout.write_text(made + output + _notification({"completed": "ok"}, now, agent="/root/survey"))
    assert codex.HOST.awaited(rollout) is None


def _jobs(monkeypatch) -> list[dict]:
    from ov.hosts import background

    jobs: list[dict] = []
    monkeypatch.setattr(background, "start", lambda job, **_kw: jobs.append(job) or 4242)
    return jobs


def _run(ov_home: Path, job: dict) -> dict:
    from ov.hosts import worker

    return worker._run(Home(ov_home), job)


def _live(ov_home: Path) -> list[str]:
    from ov.sessions.live import live_sessions

    return [sid for sid, _ in live_sessions(_store(ov_home))]


def test_a_subagents_result_landing_after_the_parents_end_is_committed_by_the_sweep(ov, project, ov_home, tmp_path, monkeypatch):
    """(the parent's SessionEnd hook committed the session and cleared its mark before Codex wrote
    the notification: the sweep never read the rollout again, and what the subagent found was lost)"""
    now = time.time()
    rollout = tmp_path / "rollout-parent.jsonl"
    rollout.write_text(_asked("Survey the Python files for me.", now - 3) + _spawn("call_1", now - 2) + _done(now - 1))
    parent = _stdin("codex", "p-1", cwd=str(project), transcript_path=str(rollout))
    jobs = _jobs(monkeypatch)
    _hook("codex", "stop", parent)
    _hook("codex", "session-end", parent)
    capture, end = jobs
    assert _run(ov_home, capture)["captured"] == 4
    out = _run(ov_home, end)
    assert (out["outcome"], out["awaiting_subagents"]) == ("committed", 1)
    assert _live(ov_home) == ["cx-p-1"]  # kept for the sweep

    # The sweep before the subagent ended: nothing new, still awaited, and its time moved on.
    assert ov("config", "set", "hooks.orphan_after", "0").exit_code == 0
    mark = _store(ov_home).state / "hooks" / "live" / "default" / "cx-p-1"
    os.utime(mark, (now - 3600, now - 3600))
    jobs.clear()
    _hook("codex", "session-start", _stdin("codex", "next", cwd=str(project)))
    out = _run(ov_home, jobs[0])
    assert (out["outcome"], out["awaiting_subagents"]) == ("nothing to commit", 1)
    assert _live(ov_home) == ["cx-p-1"] and mark.stat().st_mtime > now - 60

    with rollout.open("a") as f:
        f.write(_notification({"completed": "The Python files indent with tabs."}, time.time()))
    jobs.clear()
    _hook("codex", "session-start", _stdin("codex", "next", cwd=str(project)))
    out = _run(ov_home, jobs[0])
    assert (out["captured"], out["outcome"]) == (1, "committed") and "awaiting_subagents" not in out
    assert _live(ov_home) == []  # settled: every spawn has its notification
    history = ov("grep", "indent with tabs", "--uri", "viking://user/default/sessions/cx-p-1/history").stdout
    assert "The Python files indent with tabs." in history


def test_a_subagent_awaited_past_the_bound_is_given_up(ov, project, ov_home, tmp_path, monkeypatch):
    """The mark does not stay for a notification that never comes (a day after the spawn)."""
    from ov.hosts.capture import AWAIT_LIMIT

    long_ago = time.time() - AWAIT_LIMIT - 60
    rollout = tmp_path / "rollout-parent.jsonl"
    rollout.write_text(_asked("Survey the Python files for me.", long_ago) + _spawn("call_1", long_ago + 1) + _done(long_ago + 2))
    jobs = _jobs(monkeypatch)
    _hook("codex", "session-end", _stdin("codex", "p-1", cwd=str(project), transcript_path=str(rollout)))
    out = _run(ov_home, jobs[0])
    assert out["outcome"] == "committed" and "awaiting_subagents" not in out
    assert _live(ov_home) == []


@pytest.mark.parametrize("notified", [True, False])
def test_ov_commit_keeps_a_codex_session_awaiting_a_subagent_live(ov, project, ov_home, tmp_path, monkeypatch, notified):
    """`ov commit` of a Codex session settles its mark as the hooks' commit does: kept while a
    spawn in its rollout has no notification yet."""
    now = time.time()
    rollout = tmp_path / "rollout-parent.jsonl"
    text = _asked("Survey the Python files for me.", now - 3) + _spawn("call_1", now - 2) + _done(now - 1)
    rollout.write_text(text + (_notification("shutdown", now) if notified else ""))
    jobs = _jobs(monkeypatch)
    _hook("codex", "stop", _stdin("codex", "p-1", cwd=str(project), transcript_path=str(rollout)))
    assert _run(ov_home, jobs[0])["captured"] == 4
    assert ov("session", "commit", "cx-p-1").exit_code == 0
    assert _live(ov_home) == ([] if notified else ["cx-p-1"])


def _ended_awaiting(ov_home: Path, project: Path, rollout: Path, monkeypatch) -> list[dict]:
    """A Codex parent whose session ended (its stop's capture and its end's commit run) while a
    subagent it spawned still runs: its mark is held for the subagent's result."""
    now = time.time()
    rollout.write_text(_asked("Survey the Python files for me.", now - 3) + _spawn("call_1", now - 2) + _done(now - 1))
    parent = _stdin("codex", "p-1", cwd=str(project), transcript_path=str(rollout))
    jobs = _jobs(monkeypatch)
    _hook("codex", "stop", parent)
    _hook("codex", "session-end", parent)
    assert _run(ov_home, jobs[0])["captured"] == 4
    assert _run(ov_home, jobs[1])["awaiting_subagents"] == 1
    jobs.clear()
    return jobs


def _mark(ov_home: Path):
    from ov.sessions.live import live_dir, read_mark

    return read_mark(live_dir(_store(ov_home)) / "cx-p-1")


def test_the_mcp_session_commit_leaves_a_mark_held_for_a_subagent_to_the_sweep(ov, project, ov_home, tmp_path, monkeypatch):
    """(the MCP server may not read rollouts: its commit cleared the mark the session end kept,
    and the subagent's result, written into the rollout later, was never read)"""
    from ov.hosts.capture import AWAIT_LIMIT
    from ov.mcp import tools

    rollout = tmp_path / "rollout-parent.jsonl"
    jobs = _ended_awaiting(ov_home, project, rollout, monkeypatch)
    held = _mark(ov_home)
    assert held.held() and abs(held.held_until - (time.time() - 2 + AWAIT_LIMIT)) < 5
    assert ov("session", "add", "cx-p-1", "--text", "one more thing said through the MCP").exit_code == 0
    context = tools.Context.resolve({}, os.environ)
    answer = tools.call(context, "session_commit", {"session": "cx-p-1"})["content"][0]["text"]
    assert answer.startswith("archived 1 messages"), answer
    assert _live(ov_home) == ["cx-p-1"] and _mark(ov_home) == held  # untouched: the sweep's still

    with rollout.open("a") as f:
        f.write(_notification({"completed": "The Python files indent with tabs."}, time.time()))
    assert ov("config", "set", "hooks.orphan_after", "0").exit_code == 0
    _hook("codex", "session-start", _stdin("codex", "next", cwd=str(project)))
    (sweep,) = [job for job in jobs if job["kind"] == "commit"]  # the MCP commit started an index job too
    out = _run(ov_home, sweep)
    assert (out["captured"], out["outcome"]) == (1, "committed") and "awaiting_subagents" not in out
    assert _live(ov_home) == []
    history = ov("grep", "indent with tabs", "--uri", "viking://user/default/sessions/cx-p-1/history").stdout
    assert "The Python files indent with tabs." in history


def test_a_held_mark_is_settled_by_any_commit_once_its_bound_has_passed(ov, project, ov_home, tmp_path, monkeypatch):
    """Nothing is held for good: past its time a held mark settles as any other."""
    from ov.sessions.live import live_dir, mark_live

    rollout = tmp_path / "rollout-parent.jsonl"
    _ended_awaiting(ov_home, project, rollout, monkeypatch)
    store = _store(ov_home)
    peer = _mark(ov_home).peer
    mark_live(store, "cx-p-1", "codex", str(rollout), held_until=time.time() - 1, peer=peer)
    assert (live_dir(store) / "cx-p-1").exists() and not _mark(ov_home).held()
    assert ov("session", "add", "cx-p-1", "--text", "a later word").exit_code == 0
    from ov.mcp import tools

    tools.call(tools.Context.resolve({}, os.environ), "session_commit", {"session": "cx-p-1"})
    assert _live(ov_home) == []


def test_ov_commit_with_no_id_takes_a_session_held_only_for_its_subagents(ov, project, ov_home, tmp_path, monkeypatch):
    """(its mark, new at the session end's commit, counted as a host still capturing the session:
    `ov commit` refused it as one whose agent was still going, though its parent had ended)"""
    rollout = tmp_path / "rollout-parent.jsonl"
    _ended_awaiting(ov_home, project, rollout, monkeypatch)
    assert ov("session", "add", "cx-p-1", "--text", "noted after the end").exit_code == 0
    result = ov("commit", "--json")
    assert result.exit_code == 0, result.stderr
    assert "/sessions/cx-p-1/" in result.json["result"]["archive"] and result.json["result"]["archived"] == 1
    assert _live(ov_home) == ["cx-p-1"] and _mark(ov_home).held()  # still the sweep's

    # A session its host is still capturing (a mark not held) is still left out.
    _hook("codex", "stop", _stdin("codex", "p-2", cwd=str(project), transcript_path=str(tmp_path / "none.jsonl")))
    assert ov("session", "add", "cx-p-1", "--text", "and another").exit_code == 0
    from ov.sessions.live import mark_live

    mark_live(_store(ov_home), "cx-p-1", "codex", str(rollout))  # a capture of the session, not held
    assert ov("commit").exit_code != 0


def test_ov_commit_keeps_the_sessions_peer_in_the_mark_it_holds(ov, project, ov_home, tmp_path, monkeypatch):
    """(run from another folder than the session's project, `ov commit` marked the session again
    as that folder's: the sweep then stored the subagent's result under the wrong project)"""
    now = time.time()
    rollout = tmp_path / "rollout-parent.jsonl"
    rollout.write_text(_asked("Survey the Python files for me.", now - 3) + _spawn("call_1", now - 2) + _done(now - 1))
    jobs = _jobs(monkeypatch)
    _hook("codex", "stop", _stdin("codex", "p-1", cwd=str(project), transcript_path=str(rollout)))
    _run(ov_home, jobs[0])
    peer = _mark(ov_home).peer
    assert peer is not None
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("OV_PEER", "another-project")
    assert ov("session", "commit", "cx-p-1").exit_code == 0
    mark = _mark(ov_home)
    assert mark.held() and mark.peer == peer


def test_ov_session_delete_clears_a_held_mark(ov, project, ov_home, tmp_path, monkeypatch):
    _ended_awaiting(ov_home, project, tmp_path / "rollout-parent.jsonl", monkeypatch)
    assert ov("session", "delete", "cx-p-1").exit_code == 0
    assert _live(ov_home) == []
