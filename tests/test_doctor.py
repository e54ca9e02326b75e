"""`ov doctor` probes what a config only names, and still runs when the config does not load."""

from __future__ import annotations

import os
from pathlib import Path

from tests.llm_server import API_KEY, API_KEY_ENV, llm_config, llm_server  # noqa: F401  (pytest fixtures)


def _checks(ov) -> tuple[int, dict[str, dict]]:
    result = ov("doctor", "--json")
    return result.exit_code, {c["name"]: c for c in result.json["result"]["checks"]}


def _use_llm(ov, llm_config) -> None:
    for key, value in (("llm.model", llm_config.model), ("llm.api_base", llm_config.api_base), ("llm.api_key_env", llm_config.api_key_env), ("llm.timeout", "5")):
        assert ov("config", "set", key, value).exit_code == 0


def test_an_llm_that_answers_passes_the_probe(ov, llm_server, llm_config):
    _use_llm(ov, llm_config)
    llm_server.chat("ok")
    code, checks = _checks(ov)
    assert checks["llm"]["status"] == "ok" and "answered a probe" in checks["llm"]["detail"]
    assert llm_server.requests[-1].prompt.endswith("Reply with the single word: ok")


def test_an_llm_that_refuses_fails_with_its_reason(ov, llm_server, llm_config):
    _use_llm(ov, llm_config)
    llm_server.handler = lambda request: (401, {"error": {"message": "invalid api key"}})
    code, checks = _checks(ov)
    assert code == 1 and checks["llm"]["status"] == "fail" and "does not answer" in checks["llm"]["detail"]


def test_an_unreachable_llm_fails_within_the_bound(ov, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    for key, value in (("llm.model", "openai/gpt-4o-mini"), ("llm.api_base", "http://127.0.0.1:9/v1"), ("llm.api_key_env", API_KEY_ENV), ("llm.timeout", "3")):
        assert ov("config", "set", key, value).exit_code == 0
    code, checks = _checks(ov)
    assert code == 1 and checks["llm"]["status"] == "fail"


def test_an_llm_that_never_answers_is_hung_up_when_the_probe_gives_up(ov, llm_server, llm_config, monkeypatch):
    """(found by an audit: a probe that timed out left its request running, up to llm.timeout, and
    said only "no answer in 20 s") The probe hangs its request up, as a cancelled MCP call's is."""
    from ov.health import doctor

    monkeypatch.setattr(doctor, "PROBE_SECONDS", 0.5)
    _use_llm(ov, llm_config)
    assert ov("config", "set", "llm.timeout", "120").exit_code == 0
    llm_server.delay(120)  # a model that answers in two minutes, within llm.timeout
    code, checks = _checks(ov)
    assert code == 1 and checks["llm"]["status"] == "fail", checks["llm"]
    assert checks["llm"]["detail"].endswith("does not answer: no answer from openai/test-model to the doctor probe in 0.5 s; ov hung up"), checks["llm"]
    assert llm_server.wait_hung_up(), "the probe's request was not hung up"  # the model's end of the connection was closed, not left to llm.timeout
    assert [r.prompt for r in llm_server.hung_up] == [r.prompt for r in llm_server.chat_requests()]


def test_the_embedder_is_probed(ov):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    _code, checks = _checks(ov)
    assert checks["embedder"]["status"] == "ok" and "256 dimensions (probed)" in checks["embedder"]["detail"]


def test_an_embedder_that_never_answers_is_hung_up_when_the_probe_gives_up(ov, llm_server, monkeypatch):
    """The embedder's probe was given up on after its bound and left its request running, up to
    embedding.timeout: in the MCP server, holding the embedder every find shares."""
    from ov.health import doctor
    from tests.llm_server import EMBEDDINGS, make_embedding_config

    monkeypatch.setattr(doctor, "PROBE_SECONDS", 0.5)
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    config = make_embedding_config(llm_server)
    for key in ("provider", "model", "api_base", "api_key_env"):
        assert ov("config", "set", f"embedding.{key}", getattr(config, key)).exit_code == 0
    assert ov("config", "set", "embedding.timeout", "120").exit_code == 0
    llm_server.delay(120, endpoint=EMBEDDINGS)  # accepts, and answers in two minutes, within embedding.timeout
    code, checks = _checks(ov)
    assert code == 1 and checks["embedder"]["status"] == "fail", checks["embedder"]
    assert checks["embedder"]["detail"].endswith("does not embed: no answer in 0.5 s; ov hung up"), checks["embedder"]
    assert llm_server.wait_hung_up(), "the probe's request was not hung up"  # the server's end of the connection was closed, not left to embedding.timeout
    assert llm_server.hung_up == llm_server.embedding_requests()


def test_a_config_that_does_not_parse_is_a_finding_not_a_crash(ov, ov_home):
    ov_home.mkdir(parents=True, exist_ok=True)
    (ov_home / "config.yaml").write_text("llm: [unclosed\n")
    code, checks = _checks(ov)
    assert code == 1
    assert checks["config"]["status"] == "fail" and "line 2" in checks["config"]["detail"]
    assert {"store", "index", "embedder", "llm"} <= set(checks)




def test_a_value_ov_cannot_use_fails_and_says_how_to_fix_it(ov, ov_home):
    # An older ov accepted it; every other command works on with the default, doctor insists.
    ov_home.mkdir(parents=True, exist_ok=True)
    (ov_home / "config.yaml").write_text("retrieval:\n  candidates: 20000\nfoo: 1\n")
    code, checks = _checks(ov)
    assert code == 1
    config = checks["config"]
    assert config["status"] == "fail" and config["invalid"] == ["retrieval.candidates"]
    assert "retrieval.candidates = 20000: must be at most 10000 (the default 200 is used instead)" in config["detail"]
    assert "unknown keys ignored: foo" in config["detail"]
    assert config["fix"] == "`ov config unset retrieval.candidates` (back to the default) or `ov config set retrieval.candidates VALUE`"
    assert {"store", "index", "embedder", "llm"} <= set(checks)
    (ov_home / "config.yaml").write_text("foo: 1\n")
    assert _checks(ov)[1]["config"]["status"] == "warn"  # a key ov does not know only warns

def test_doctor_says_who_is_acting_and_where_that_came_from(ov, monkeypatch):
    monkeypatch.setenv("OV_USER", "dana")
    _code, checks = _checks(ov)
    assert checks["identity"]["detail"].startswith("account default (default), user dana (env OV_USER), no peer")


def test_an_account_that_does_not_exist_is_a_finding_not_a_crash(ov, ov_home, monkeypatch):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0  # no model to load for this
    assert ov("remember", "My editor is Neovim").exit_code == 0
    monkeypatch.setenv("OV_ACCOUNT", "tpyo")
    code, checks = _checks(ov)
    assert code == 0  # the first write would create it: a warning, not a failure
    store = checks["store"]
    assert store["status"] == "warn"
    assert store["detail"] == f"account 'tpyo' (from env OV_ACCOUNT) does not exist in {ov_home / 'accounts'} (accounts: default)"
    assert "--account / $OV_ACCOUNT" in store["fix"] and "ov init" in store["fix"]
    assert sorted(p.name for p in (ov_home / "accounts").iterdir()) == ["default"]
    assert not (ov_home / "state" / "tpyo").exists()


def test_doctor_counts_one_record_in_the_singular(ov):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    assert ov("write", "viking://resources/a.md", "--content", "alpha\n").exit_code == 0
    assert ov("find", "alpha").exit_code == 0
    checks = {c["name"]: c for c in ov("doctor", "--json").json["result"]["checks"]}
    assert checks["index"]["detail"] == "1 record, 1 vector, at HEAD"


def test_doctor_warns_when_other_users_can_get_into_the_home(ov, ov_home, umask_022):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    _code, checks = _checks(ov)
    assert checks["home"]["status"] == "ok" and checks["home"]["mode"] == "0700"  # as ov made it
    os.chmod(ov_home, 0o711)  # enter only: a path one can guess (a session's) is still readable
    code, checks = _checks(ov)
    assert code == 0 and checks["home"]["status"] == "warn" and checks["home"]["mode"] == "0711"
    assert checks["home"]["fix"] == f"chmod 700 {ov_home}"
    assert os.stat(ov_home).st_mode & 0o777 == 0o711  # doctor changes nothing


def test_doctor_has_no_home_finding_before_there_is_a_home(ov, ov_home):
    _code, checks = _checks(ov)
    assert "home" not in checks and not ov_home.exists()


def test_doctor_checks_every_prompt_override_loads_and_renders(ov, ov_home):
    # (found by an audit: a broken override made every commit fall back, and doctor said nothing)
    assert "prompts" not in _checks(ov)[1]
    prompts = ov_home / "prompts"
    prompts.mkdir(parents=True)
    builtin = Path(__file__).resolve().parents[1] / "ov/llm/templates"
    (prompts / "overview.yaml").write_bytes((builtin / "overview.yaml").read_bytes())
    ok = _checks(ov)[1]["prompts"]
    assert ok["status"] == "ok" and ok["overrides"] == ["overview.yaml"]
    (prompts / "memory_extraction.yaml").write_text('metadata: {id: x, version: 1, description: d}\nvariables: [transcript]\ntemplate: "$transcript ${"\n')
    code, checks = _checks(ov)
    bad = checks["prompts"]
    assert code == 1
    assert bad["status"] == "fail" and "memory_extraction.yaml" in bad["detail"] and "overview.yaml" not in bad["detail"]
    assert "placeholder" in bad["detail"]


def test_doctor_names_the_sessions_whose_memory_extraction_failed(ov, monkeypatch):
    # (found by a review: a failed extraction was visible only in the commit's own output)
    assert ov("session", "add", "s", "--text", "I prefer tabs.").exit_code == 0
    assert "memories" not in _checks(ov)[1]
    with monkeypatch.context() as patch:
        patch.setattr("ov.sessions.memory.extract.extract_explicit", lambda *a, **k: (_ for _ in ()).throw(RuntimeError("boom")))
        assert ov("commit", "s", "--json").json["result"]["failed"] == "RuntimeError: boom"
    code, checks = _checks(ov)
    found = checks["memories"]
    assert code == 0 and found["status"] == "warn" and found["sessions"] == {"s": ["archive_001"]}
    assert "memory extraction failed in 1 session(s) (s)" in found["detail"] and "`ov commit s`" in found["fix"]
    assert ov("commit", "s").exit_code == 0
    assert "memories" not in _checks(ov)[1]


def test_a_full_disk_fails_the_writable_check_though_an_empty_file_can_still_be_made(ov, monkeypatch):
    """On a full disk every write failed with disk_full while doctor said `ok writable`: its probe
    made an empty file, which needs no data block, and nothing looked at the room left."""
    import errno
    from collections import namedtuple

    from ov.health import writable

    assert ov("remember", "we deploy on fridays").exit_code == 0
    real_write = os.write

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writable.os, "write", full)
    code, checks = _checks(ov)
    monkeypatch.setattr(writable.os, "write", real_write)
    assert code == 1 and checks["writable"]["status"] == "fail"
    assert checks["writable"]["detail"].startswith("no space left on device under ") and "free some space" in checks["writable"]["fix"]

    Stats = namedtuple("Stats", "f_bavail f_frsize")
    monkeypatch.setattr(writable.os, "statvfs", lambda path: Stats(100, 4096))
    code, checks = _checks(ov)
    assert checks["writable"]["status"] == "warn" and checks["writable"]["free_bytes"] == 409600
    assert checks["writable"]["detail"].startswith("only 409600 bytes free under ")
    monkeypatch.setattr(writable.os, "statvfs", lambda path: Stats(1 << 20, 4096))
    assert _checks(ov)[1]["writable"]["status"] == "ok"
    assert not [p for p in Path(os.environ["OV_HOME"]).rglob("*") if "probe" in p.name]  # every probe removed
