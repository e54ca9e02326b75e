"""The config file ``$OV_HOME/config.yaml``: loading, validation, ``ov config`` and the validated cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ov.config import Config, config_keys, get_value, load_config, set_value, validate_config_text
from ov.errors import EXIT_USAGE, ConfigError, InvalidInput
from ov.home import Home

DEFAULTS = {
    "version": 1,
    "identity": {"account": None, "user": None, "peer": None},
    "store": {"lock_timeout": 10.0, "max_file_bytes": 10 * 1024 * 1024, "auto_pack_loose": 6700, "auto_pack_limit": 50},
    "output": {"color": "auto"},
    "ingest": {
        "max_source_bytes": 20 * 1024 * 1024,
        "max_source_files": 10_000,
        "max_source_total_bytes": 100 * 1024 * 1024,
        "url_timeout": 20.0,
        "url_max_bytes": 20 * 1024 * 1024,
    },
    "llm": {
        "model": None,
        "api_base": None,
        "api_key_env": None,
        "timeout": 60.0,
        "max_prompt_chars": 30000,
        "max_output_tokens": 1024,
        "temperature": 0.0,
    },
    "embedding": {
        "provider": "auto",
        "model": None,
        "api_base": None,
        "api_key_env": None,
        "dimensions": 256,
        "timeout": 60.0,
        "batch_size": 64,
    },
    "retrieval": {
        "language": "english",
        "fusion": "convex",
        "vector_weight": None,
        "memory_vector_weight": None,
        "session_vector_weight": None,
        "every_candidate": None,
        "first_passage_weight": None,
        "parent_weight": 0.2,
        "conversation_weight": 0.5,
        "context_weight": 0.3,
        "phrase_weight": 1.0,
        "speaker_weight": 6.0,
        "date_weight": 1.0,
        "session_weight": 0.8,
        "candidates": 200,
        "budget": 1600,
        "query_planner": True,
    },
    "hooks": {
        "session_start_budget": 1500,
        "prompt_budget": 1000,
        "prompt_min_score": 0.6,
        "prompt_repeat_after": 20,
        "max_chars": 9000,
        "tool_output_chars": 2000,
        "workspace_peer": True,
        "deadline": 1.0,
        "commit_wait": 10.0,
        "orphan_after": 1800.0,
    },
}


@pytest.fixture
def home(ov_home: Path) -> Home:
    return Home(ov_home)


def write_config(home: Home, text: str | bytes) -> Path:
    path = home.config_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def cache_path(home: Home) -> Path:
    return home.root / "state" / "config.cache.json"


# --- loading ------------------------------------------------------------------------


def test_defaults_when_no_file(home: Home) -> None:
    loaded = load_config(home)
    assert loaded.exists is False
    assert loaded.path == home.config_path
    assert loaded.warnings == ()
    assert loaded.config == Config()
    assert loaded.config.as_dict() == DEFAULTS
    assert not home.config_path.exists()  # loading never creates the file


def test_home_from_env_uses_ov_home(ov_home: Path) -> None:
    assert Home.from_env().config_path == ov_home / "config.yaml"
    assert Home.from_env({}).config_path == Path.home() / ".ov" / "config.yaml"


def test_valid_file(home: Home) -> None:
    write_config(
        home,
        "version: 1\n"
        "identity:\n  account: acme\n  user: alice\n  peer: proj-x\n"
        "store:\n  lock_timeout: 2.5\n  max_file_bytes: 1024\n"
        "output:\n  color: never\n",
    )
    loaded = load_config(home)
    assert loaded.exists is True
    assert loaded.warnings == ()
    cfg = loaded.config
    assert (cfg.identity.account, cfg.identity.user, cfg.identity.peer) == ("acme", "alice", "proj-x")
    assert cfg.store.lock_timeout == 2.5
    assert cfg.store.max_file_bytes == 1024
    assert cfg.output.color == "never"


def test_partial_file_keeps_other_defaults(home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: 3\n")
    cfg = load_config(home).config
    assert cfg.store.lock_timeout == 3.0
    assert isinstance(cfg.store.lock_timeout, float)
    assert cfg.store.max_file_bytes == DEFAULTS["store"]["max_file_bytes"]
    assert cfg.identity.user is None
    assert cfg.output.color == "auto"


@pytest.mark.parametrize("text", ["", "# just a comment\n", "---\n", "null\n"], ids=["empty", "comment", "doc-marker", "null"])
def test_empty_documents_mean_defaults(home: Home, text: str) -> None:
    write_config(home, text)
    loaded = load_config(home)
    assert loaded.exists is True
    assert loaded.config == Config()
    assert loaded.warnings == ()


def test_unknown_keys_warn_but_do_not_fail(home: Home) -> None:
    write_config(home, "foo: bar\nstore:\n  lock_timeout: 4\n  bogus: 1\nidentity:\n  nickname: al\n")
    loaded = load_config(home)
    assert loaded.config.store.lock_timeout == 4.0
    assert len(loaded.warnings) == 3
    text = "\n".join(loaded.warnings)
    for key in ("'foo'", "'store.bogus'", "'identity.nickname'"):
        assert f"unknown key {key} ignored" in text
    assert all(str(home.config_path) in w for w in loaded.warnings)


def test_unknown_keys_are_reported_on_stderr_by_the_cli(ov, home: Home) -> None:
    write_config(home, "colour: never\nstore:\n  lock_timout: 3\n")
    for _ in range(2):  # the second run is served from the validated cache and still warns
        result = ov("config", "show", "--json")
        assert result.exit_code == 0
        assert "warning:" in result.stderr
        assert "unknown key 'colour' ignored" in result.stderr
        assert "unknown key 'store.lock_timout' ignored" in result.stderr
        payload = result.json["result"]
        assert len(payload["warnings"]) == 2
        assert payload["config"]["store"]["lock_timeout"] == 10.0
        assert payload["exists"] is True


def test_unknown_keys_do_not_block_other_commands(ov, home: Home) -> None:
    write_config(home, "future_feature: true\n")
    result = ov("write", "viking://resources/a.md", "--content", "hi\n")
    assert result.exit_code == 0
    assert "unknown key 'future_feature' ignored" in result.stderr
    assert ov("read", "viking://resources/a.md").stdout == "hi\n"


# --- invalid files ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "where"),
    [
        pytest.param("store:\n  lock_timeout: [\n", "line 3", id="unclosed-flow-sequence"),
        pytest.param("store: {lock_timeout: 1\n", "line 2", id="unclosed-flow-mapping"),
        pytest.param("a: 1\n b: 2\nc: [\n", "line 2", id="bad-indentation"),
        pytest.param('identity:\n  user: "alice\n', "line 3", id="unclosed-quote"),
        pytest.param("store:\n\tlock_timeout: 1\n", "line 2", id="tab-indent"),
    ],
)
def test_yaml_that_does_not_parse(home: Home, text: str, where: str) -> None:
    write_config(home, text)
    with pytest.raises(ConfigError) as info:
        load_config(home)
    exc = info.value
    assert "does not parse as YAML" in exc.message
    assert where in exc.message
    assert str(home.config_path) in exc.message
    assert exc.exit_code == EXIT_USAGE
    assert exc.code == "config_invalid"
    assert exc.hint


def test_broken_yaml_via_cli_exits_2_and_writes_nothing(ov, home: Home, ov_home: Path) -> None:
    original = b"store:\n  lock_timeout: [\n"
    write_config(home, original)
    result = ov("write", "viking://resources/a.md", "--content", "hi", "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.error["code"] == "config_invalid"
    assert "line 3" in result.error["message"]
    assert not (ov_home / "accounts").exists()
    assert home.config_path.read_bytes() == original


def test_broken_yaml_human_error(ov, home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: [\n")
    result = ov("config", "show")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert "does not parse as YAML at line 3" in result.stderr
    assert "hint: fix the file or remove it" in result.stderr


WRONG_TYPES = [
    pytest.param("store:\n  lock_timeout: soon\n", "store.lock_timeout", id="timeout-text"),
    pytest.param("store:\n  lock_timeout: [1, 2]\n", "store.lock_timeout", id="timeout-list"),
    pytest.param("store:\n  max_file_bytes: 1.5\n", "store.max_file_bytes", id="max-bytes-fraction"),
    pytest.param("store:\n  max_file_bytes: lots\n", "store.max_file_bytes", id="max-bytes-text"),
    pytest.param("output:\n  color: blue\n", "output.color", id="color-not-a-choice"),
    pytest.param("output:\n  color: null\n", "output.color", id="color-null"),
    pytest.param('identity:\n  user: "../x"\n', "identity.user", id="user-traversal"),
    pytest.param("identity:\n  account: _acme\n", "identity.account", id="account-underscore"),
    pytest.param('identity:\n  peer: "a b"\n', "identity.peer", id="peer-space"),
    pytest.param('identity:\n  user: ""\n', "identity.user", id="user-empty"),
    pytest.param("identity:\n  user: [alice]\n", "identity.user", id="user-list"),
    pytest.param("store: 5\n", "store", id="section-scalar"),
    pytest.param("identity: [alice]\n", "identity", id="section-list"),
    pytest.param("version: latest\n", "version", id="version-text"),
]


def at(values: dict, key: str):
    for part in key.split("."):
        values = values[part]
    return values


@pytest.mark.parametrize(("text", "key"), [p for p in WRONG_TYPES if not p.values[1].startswith("identity")])
def test_a_value_of_the_wrong_type_is_left_out_and_named(home: Home, text: str, key: str) -> None:
    write_config(home, text)
    loaded = load_config(home)
    assert [value.key for value in loaded.invalid] == [key]
    assert at(loaded.config.as_dict(), key) == at(DEFAULTS, key)  # the default stands in
    assert len(loaded.warnings) == 1 and f": {key} = " in loaded.warnings[0]
    assert f"`ov config unset {key}`" in loaded.warnings[0]
    assert load_config(home) == loaded  # and so it is served from the cache


@pytest.mark.parametrize(("text", "key"), [p for p in WRONG_TYPES if p.values[1].startswith("identity")])
def test_an_invalid_identity_stops_every_command(home: Home, text: str, key: str) -> None:
    # A default identity would read and write another account's or user's data.
    write_config(home, text)
    with pytest.raises(ConfigError) as info:
        load_config(home)
    assert f"is invalid: {key} = " in info.value.message
    assert f"`ov config unset {key}`" in info.value.hint
    assert info.value.exit_code == 2
    assert not cache_path(home).exists()  # a file that stops commands is never cached


@pytest.mark.parametrize("args", [["read", "viking://resources/missing.md"], ["stat", "viking://resources/missing.md"], ["ls"]])
def test_a_config_warning_is_said_once_whether_the_command_fails_or_not(ov, home: Home, args) -> None:
    """Printing a failure after the command ended read the config again to choose its colours,
    and said its warnings a second time."""
    write_config(home, "retrieval:\n  budget: lots\n")
    result = ov(*args)
    assert result.stderr.count("retrieval.budget = 'lots'") == 1, result.stderr


def test_wrong_type_via_cli(ov, home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: soon\n")
    result = ov("config", "get", "store.lock_timeout", "--json")
    assert result.exit_code == 0
    assert result.json["result"]["value"] == 10.0
    assert "warning: " in result.stderr and "store.lock_timeout = 'soon': Input should be a valid number" in result.stderr
    write_config(home, "identity:\n  user: ../x\n")
    result = ov("config", "get", "store.lock_timeout", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "config_invalid"
    assert "identity.user = '../x'" in result.error["message"]
    assert "ov config unset identity.user" in result.error["hint"]


def test_all_problems_are_reported_together(home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: soon\noutput:\n  color: blue\n")
    loaded = load_config(home)
    assert [value.key for value in loaded.invalid] == ["store.lock_timeout", "output.color"]
    assert [value.value for value in loaded.invalid] == ["soon", "blue"]
    assert (loaded.config.store.lock_timeout, loaded.config.output.color) == (10.0, "auto")


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        pytest.param("- a\n- b\n", "list", id="list"),
        pytest.param("hello\n", "str", id="string"),
        pytest.param("42\n", "int", id="number"),
        pytest.param("true\n", "bool", id="bool"),
    ],
)
def test_top_level_must_be_a_mapping(home: Home, text: str, kind: str) -> None:
    write_config(home, text)
    with pytest.raises(ConfigError) as info:
        load_config(home)
    assert f"must hold a mapping of settings, not {kind}" in info.value.message


def test_not_utf8(home: Home) -> None:
    write_config(home, b"store:\n  lock_timeout: \xff\xfe\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(home)


@pytest.mark.parametrize(("text", "fix"), [("- a\n", "fix the file"), (b"store: \xff\n", "save it as UTF-8")], ids=["list", "not-utf8"])
def test_a_config_file_that_cannot_be_read_is_fixed_in_the_file_not_with_config_set(ov, home: Home, text, fix) -> None:
    """`ov config set` reads the file first and refuses it the same way: its hint sent the user
    round in a loop. Every command, doctor's fix line among them, says to fix or remove the file."""
    write_config(home, text)
    for args in (["ls"], ["config", "set", "retrieval.budget", "1000"], ["config", "unset", "retrieval.budget"]):
        result = ov(*args)
        assert result.exit_code == 2, args
        assert f"hint: {fix}" in result.stderr and "or remove it" in result.stderr and "ov config set" not in result.stderr, args
    doctor = ov("doctor").stdout
    assert f"fix: {fix}" in doctor and "ov config set" not in doctor


def test_config_error_is_bad_input() -> None:
    assert issubclass(ConfigError, InvalidInput)
    assert ConfigError("x").exit_code == 2


# (found as a bug: lax validation took YAML booleans as numbers and accepted NaN, which made the
# write lock wait forever since time.monotonic() >= nan is never true)
@pytest.mark.parametrize(
    ("text", "key"),
    [
        pytest.param("store:\n  max_file_bytes: true\n", "store.max_file_bytes", id="bool-as-byte-count"),
        pytest.param("store:\n  lock_timeout: true\n", "store.lock_timeout", id="bool-as-timeout"),
        pytest.param("store:\n  lock_timeout: .nan\n", "store.lock_timeout", id="nan-timeout"),
        pytest.param("store:\n  lock_timeout: .inf\n", "store.lock_timeout", id="inf-timeout"),
        pytest.param("store:\n  lock_timeout: 0\n", "store.lock_timeout", id="zero-timeout"),
        pytest.param("store:\n  lock_timeout: -1\n", "store.lock_timeout", id="negative-timeout"),
        pytest.param("store:\n  max_file_bytes: 0\n", "store.max_file_bytes", id="zero-bytes"),
        pytest.param("store:\n  max_file_bytes: -5\n", "store.max_file_bytes", id="negative-bytes"),
        # Accepted once, then an OverflowError in every add-resource / every hook (which fail open, so
        # nothing was ever injected and nothing said why).
        pytest.param("ingest:\n  max_source_bytes: 99999999999999999999\n", "ingest.max_source_bytes", id="bytes-past-an-index"),
        pytest.param("hooks:\n  deadline: 1e300\n", "hooks.deadline", id="deadline-past-a-timestamp"),
        pytest.param("hooks:\n  prompt_min_score: 5\n", "hooks.prompt_min_score", id="relevance-above-1"),
        pytest.param("hooks:\n  prompt_min_score: -1\n", "hooks.prompt_min_score", id="relevance-below-0"),
        pytest.param("hooks:\n  orphan_after: -1\n", "hooks.orphan_after", id="negative-orphan-age"),
        # A NaN weight made every score NaN (and `ov find --json` print NaN, which is not JSON); a
        # billion candidates made tantivy panic.
        pytest.param("retrieval:\n  parent_weight: .nan\n", "retrieval.parent_weight", id="nan-weight"),
        pytest.param("retrieval:\n  vector_weight: -1\n", "retrieval.vector_weight", id="negative-vector-weight"),
        pytest.param("retrieval:\n  first_passage_weight: 2\n", "retrieval.first_passage_weight", id="share-above-1"),
        pytest.param("retrieval:\n  candidates: 1000000000\n", "retrieval.candidates", id="candidates-past-a-search"),
        pytest.param("llm:\n  temperature: 5\n", "llm.temperature", id="temperature-above-2"),
    ],
)
def test_nonsense_numbers_are_left_out(home: Home, text: str, key: str) -> None:
    write_config(home, text)
    loaded = load_config(home)
    assert [value.key for value in loaded.invalid] == [key]
    assert at(loaded.config.as_dict(), key) == at(DEFAULTS, key)


@pytest.mark.parametrize(
    ("text", "timeout"),
    [("store:\n  lock_timeout: 0.001\n", 0.001), ("store:\n  lock_timeout: 3600\n", 3600.0), ('store:\n  lock_timeout: "5"\n', 5.0)],
)
def test_sensible_numbers_are_accepted(home: Home, text: str, timeout: float) -> None:
    write_config(home, text)
    assert load_config(home).config.store.lock_timeout == timeout


def test_the_bounds_of_a_number_are_inclusive(home: Home) -> None:
    write_config(home, "hooks:\n  prompt_min_score: 0\n  orphan_after: 0\nstore:\n  max_file_bytes: 2147483648\nretrieval:\n  vector_weight: null\n  date_weight: 0\n")
    config = load_config(home).config
    assert (config.hooks.prompt_min_score, config.hooks.orphan_after, config.store.max_file_bytes) == (0.0, 0.0, 2**31)
    assert (config.retrieval.vector_weight, config.retrieval.date_weight) == (None, 0.0)


# --- keys, get and set ----------------------------------------------------------------


def test_config_keys() -> None:
    assert config_keys() == [
        "identity.account",
        "identity.user",
        "identity.peer",
        "store.lock_timeout",
        "store.max_file_bytes",
        "store.auto_pack_loose",
        "store.auto_pack_limit",
        "output.color",
        "ingest.max_source_bytes",
        "ingest.max_source_files",
        "ingest.max_source_total_bytes",
        "ingest.url_timeout",
        "ingest.url_max_bytes",
        "llm.model",
        "llm.api_base",
        "llm.api_key_env",
        "llm.timeout",
        "llm.max_prompt_chars",
        "llm.max_output_tokens",
        "llm.temperature",
        *(f"embedding.{key}" for key in DEFAULTS["embedding"]),
        *(f"retrieval.{key}" for key in DEFAULTS["retrieval"]),
        *(f"hooks.{key}" for key in DEFAULTS["hooks"]),
    ]


def test_get_value() -> None:
    assert get_value(Config(), "store.lock_timeout") == 10.0
    assert get_value(Config(), "identity.peer") is None
    for bad in ("store", "version", "nope", "store.nope", ""):
        with pytest.raises(ConfigError, match="unknown config key"):
            get_value(Config(), bad)


def test_set_then_get(ov, home: Home) -> None:
    result = ov("config", "set", "store.lock_timeout", "5")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "store.lock_timeout = 5.0\n"
    got = ov("config", "get", "store.lock_timeout")
    assert got.exit_code == 0
    assert got.stdout == "5.0\n"
    as_json = ov("config", "get", "store.lock_timeout", "--json")
    assert as_json.json == {"ok": True, "result": {"key": "store.lock_timeout", "value": 5.0}}
    assert isinstance(as_json.json["result"]["value"], float)
    assert load_config(home).config.store.lock_timeout == 5.0


def test_set_json_output(ov) -> None:
    result = ov("config", "set", "output.color", "never", "--json")
    assert result.exit_code == 0
    assert result.json == {"ok": True, "result": {"key": "output.color", "value": "never"}}


def test_file_written_by_a_sequence_of_sets(ov, home: Home, snapshot) -> None:
    for key, value in [
        ("store.lock_timeout", "5"),
        ("identity.user", "alice"),
        ("output.color", "never"),
        ("identity.account", "acme"),
        ("store.lock_timeout", "7.5"),
        ("identity.peer", "proj-x"),
        ("identity.peer", "null"),
    ]:
        result = ov("config", "set", key, value)
        assert result.exit_code == 0, result.stderr
    text = home.config_path.read_text(encoding="utf-8")
    assert text == snapshot
    cfg = load_config(home).config
    assert cfg.store.lock_timeout == 7.5
    assert (cfg.identity.account, cfg.identity.user, cfg.identity.peer) == ("acme", "alice", None)
    assert cfg.output.color == "never"


def test_set_creates_the_file_and_home(tmp_path: Path) -> None:
    home = Home(tmp_path / "fresh" / "ovhome")
    loaded = set_value(home, "output.color", "always")
    assert loaded.config.output.color == "always" and loaded.exists and loaded.warnings == ()
    assert home.config_path.is_file()
    assert load_config(home).config.output.color == "always"


def test_set_makes_a_private_home_and_keeps_the_files_permissions(tmp_path: Path, umask_022) -> None:
    home = Home(tmp_path / "fresh" / "ovhome")
    set_value(home, "output.color", "always")
    assert (home.root.stat().st_mode & 0o777, home.root.parent.stat().st_mode & 0o777) == (0o700, 0o755)  # the home only
    # A new config is the user's alone, even in a home the user made open (it may name keys).
    assert home.config_path.stat().st_mode & 0o777 == 0o600
    home.config_path.chmod(0o640)
    set_value(home, "output.color", "never")
    assert home.config_path.stat().st_mode & 0o777 == 0o640  # the rewrite kept what the user chose
    assert load_config(home).config.output.color == "never"


@pytest.mark.parametrize("key", ["store.nope", "nope", "store", "version", "identity", "Store.lock_timeout"])
def test_set_unknown_key_fails_and_leaves_file(ov, home: Home, key: str) -> None:
    original = b"# my settings\nstore:\n  lock_timeout: 3\n"
    write_config(home, original)
    result = ov("config", "set", key, "5", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "config_invalid"
    assert "unknown config key" in result.error["message"]
    assert "store.lock_timeout" in result.error["hint"]  # the hint lists the known keys
    assert home.config_path.read_bytes() == original


def test_set_unknown_key_without_file_creates_nothing(ov, home: Home) -> None:
    result = ov("config", "set", "nope", "1")
    assert result.exit_code == 2
    assert not home.config_path.exists()


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        pytest.param("identity.user", "../x", "identity.user", id="user-traversal"),
        pytest.param("identity.account", "_acme", "identity.account", id="account-underscore"),
        pytest.param("identity.peer", "a b", "identity.peer", id="peer-space"),
        pytest.param("store.lock_timeout", "soon", "store.lock_timeout", id="timeout-text"),
        pytest.param("store.max_file_bytes", "1.5", "store.max_file_bytes", id="bytes-fraction"),
        pytest.param("output.color", "blue", "output.color", id="color-choice"),
        pytest.param("store.lock_timeout", "[1, 2]", "single value", id="list-value"),
        pytest.param("identity.user", "{a: 1}", "single value", id="mapping-value"),
        pytest.param("store.lock_timeout", "", "store.lock_timeout", id="empty-is-null"),
    ],
)
def test_set_invalid_value_fails_and_leaves_file(ov, home: Home, key: str, value: str, message: str) -> None:
    original = b"identity:\n  user: bob\nstore:\n  lock_timeout: 3\n"
    write_config(home, original)
    result = ov("config", "set", key, value, "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "config_invalid"
    assert message in result.error["message"]
    assert home.config_path.read_bytes() == original
    assert load_config(home).config.identity.user == "bob"


def test_set_invalid_value_without_file_creates_nothing(ov, home: Home) -> None:
    result = ov("config", "set", "identity.user", "../x")
    assert result.exit_code == 2
    assert "identity.user" in result.stderr
    assert not home.config_path.exists()


def test_set_on_broken_file_fails_and_leaves_it(ov, home: Home) -> None:
    original = b"store:\n  lock_timeout: [\n"
    write_config(home, original)
    result = ov("config", "set", "output.color", "never")
    assert result.exit_code == 2
    assert "does not parse as YAML" in result.stderr
    assert home.config_path.read_bytes() == original


def test_set_keeps_unknown_keys(ov, home: Home) -> None:
    write_config(home, "future:\n  knob: 3\nstore:\n  lock_timeout: 3\n  experimental: yes\n")
    result = ov("config", "set", "store.lock_timeout", "9")
    assert result.exit_code == 0
    import yaml

    data = yaml.safe_load(home.config_path.read_text())
    assert data["future"] == {"knob": 3}
    assert data["store"] == {"lock_timeout": 9, "experimental": True}
    loaded = load_config(home)
    assert loaded.config.store.lock_timeout == 9.0
    assert any("'future'" in w for w in loaded.warnings)
    assert any("'store.experimental'" in w for w in loaded.warnings)


def test_set_replaces_a_scalar_section(ov, home: Home) -> None:
    # a section that is not a mapping is replaced by one holding the new key
    write_config(home, "output: loud\n")
    result = ov("config", "set", "output.color", "never")
    assert result.exit_code == 0
    assert load_config(home).config.output.color == "never"


def test_set_null_clears_a_value(ov, home: Home) -> None:
    assert ov("config", "set", "identity.user", "alice").exit_code == 0
    result = ov("config", "set", "identity.user", "null")
    assert result.exit_code == 0
    assert result.stdout == "identity.user = null\n"
    assert load_config(home).config.identity.user is None


def test_set_leaves_no_temporary_files(ov, home: Home) -> None:
    assert ov("config", "set", "output.color", "never").exit_code == 0
    assert ov("config", "set", "output.color", "blue").exit_code == 2
    leftovers = [p.name for p in home.root.iterdir() if ".ov-tmp-" in p.name]
    assert leftovers == []


@pytest.mark.parametrize("value", ["1001", "2024", "007", "1.5", "true", "no"])
def test_set_id_that_looks_like_another_yaml_type(ov, home: Home, value: str) -> None:
    # (found as a bug: `ov config set identity.user 1001` failed with 'Input should be a valid string')
    result = ov("config", "set", "identity.user", value)
    assert result.exit_code == 0, result.stderr
    assert load_config(home).config.identity.user == value
    assert ov("config", "get", "identity.user").stdout == f"{value}\n"


def test_set_null_still_clears_a_text_field(ov, home: Home) -> None:
    assert ov("config", "set", "identity.peer", "p1").exit_code == 0
    assert ov("config", "set", "identity.peer", "null").exit_code == 0
    assert load_config(home).config.identity.peer is None


@pytest.mark.parametrize(("value", "expected"), [("5", 5.0), ("0.25", 0.25), ("1e2", 100.0)])
def test_set_number_fields_read_numbers(ov, home: Home, value: str, expected: float) -> None:
    result = ov("config", "set", "store.lock_timeout", value, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["value"] == expected


def test_set_boolean_for_a_number_is_refused(ov, home: Home) -> None:
    result = ov("config", "set", "store.max_file_bytes", "true", "--json")
    assert result.exit_code == 2
    assert "store.max_file_bytes" in result.error["message"]
    assert not home.config_path.exists()


# --- values this ov cannot use (an older or newer ov accepted them) ---------------------------

OUT_OF_BOUNDS = "version: 1\nretrieval:\n  candidates: 20000\nhooks:\n  prompt_min_score: 1.5\n"


def test_a_value_out_of_bounds_does_not_stop_commands(ov, home: Home) -> None:
    write_config(home, OUT_OF_BOUNDS + "# a comment\n")
    written = ov("write", "viking://resources/a.md", "--content", "hi\n")
    assert written.exit_code == 0, written.stderr
    listed = ov("ls", "viking://resources")
    assert listed.exit_code == 0 and "a.md" in listed.stdout
    # one warning per value, naming the key, the value, the bound, what is used instead and the fix
    lines = listed.stderr.splitlines()
    fix = "Fix: `ov config unset {0}` (back to the default) or `ov config set {0} VALUE`"
    assert lines == [
        f"warning: {home.config_path}: retrieval.candidates = 20000: must be at most 10000; the default 200 is used instead. " + fix.format("retrieval.candidates"),
        f"warning: {home.config_path}: hooks.prompt_min_score = 1.5: must be at most 1; the default 0.6 is used instead. " + fix.format("hooks.prompt_min_score"),
    ]
    got = ov("config", "get", "retrieval.candidates")
    assert (got.exit_code, got.stdout) == (0, "200\n")  # what ov uses
    shown = ov("config", "show", "--json").json["result"]
    assert shown["invalid"] == [
        {"key": "retrieval.candidates", "value": 20000, "problem": "must be at most 10000", "default": 200},
        {"key": "hooks.prompt_min_score", "value": 1.5, "problem": "must be at most 1", "default": 0.6},
    ]
    assert len(shown["warnings"]) == 2


def test_set_fixes_one_invalid_value_while_another_is_still_invalid(ov, home: Home) -> None:
    write_config(home, OUT_OF_BOUNDS)
    fixed = ov("config", "set", "retrieval.candidates", "500")
    assert fixed.exit_code == 0, fixed.stderr
    assert fixed.stdout == "retrieval.candidates = 500\n"
    # what is still wrong is named, with how to fix it
    assert "hooks.prompt_min_score = 1.5: must be at most 1" in fixed.stderr and "`ov config unset hooks.prompt_min_score`" in fixed.stderr
    assert "retrieval.candidates" not in fixed.stderr
    import yaml

    assert yaml.safe_load(home.config_path.read_text()) == {"version": 1, "retrieval": {"candidates": 500}, "hooks": {"prompt_min_score": 1.5}}
    last = ov("config", "set", "hooks.prompt_min_score", "0.9")
    assert (last.exit_code, last.stderr) == (0, "")
    assert load_config(home).invalid == ()


def test_set_of_another_key_is_not_stopped_by_an_invalid_one(ov, home: Home) -> None:
    write_config(home, OUT_OF_BOUNDS)
    result = ov("config", "set", "output.color", "never", "--json")
    assert result.exit_code == 0 and result.json["result"] == {"key": "output.color", "value": "never"}
    for key in ("retrieval.candidates", "hooks.prompt_min_score"):
        assert f"Fix: `ov config unset {key}` (back to the default) or `ov config set {key} VALUE`" in result.stderr
    loaded = load_config(home)
    assert loaded.config.output.color == "never"
    assert [value.key for value in loaded.invalid] == ["retrieval.candidates", "hooks.prompt_min_score"]


def test_set_that_leaves_an_invalid_value_invalid_is_refused(ov, home: Home) -> None:
    write_config(home, OUT_OF_BOUNDS)
    result = ov("config", "set", "retrieval.candidates", "20001", "--json")
    assert result.exit_code == 2
    assert result.error["message"] == "'20001' is not a valid value for retrieval.candidates: must be at most 10000"
    assert home.config_path.read_text() == OUT_OF_BOUNDS


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("store.max_file_bytes", "3000000000", "must be at most 2147483648"),  # was "2.14748e+09": not the limit
        ("store.lock_timeout", "1000000001", "must be at most 1000000000"),  # was "1e+09"
        ("hooks.prompt_min_score", "1.5", "must be at most 1"),
    ],
)
def test_a_refused_bound_names_the_limit_in_full(ov, home: Home, key: str, value: str, problem: str) -> None:
    result = ov("config", "set", key, value, "--json")
    assert result.exit_code == 2
    assert result.error["message"] == f"'{value}' is not a valid value for {key}: {problem}"


def test_set_with_an_invalid_identity_in_the_file_names_it(ov, home: Home) -> None:
    write_config(home, "identity:\n  user: a b\n")
    result = ov("config", "set", "output.color", "never")
    assert result.exit_code == 0  # it adds no problem
    assert "identity.user = 'a b'" in result.stderr and "every command stops until it is fixed" in result.stderr
    assert ov("ls").exit_code == 2
    assert ov("config", "set", "identity.user", "bob").exit_code == 0
    assert ov("ls").exit_code == 0


# --- unset ----------------------------------------------------------------------------------


def test_unset_takes_a_value_out_and_its_default_applies(ov, home: Home) -> None:
    write_config(home, OUT_OF_BOUNDS + "output:\n  color: never\n")
    result = ov("config", "unset", "retrieval.candidates")
    assert result.exit_code == 0
    assert result.stdout == "retrieval.candidates = 200 (default)\n"
    assert "hooks.prompt_min_score = 1.5" in result.stderr  # still wrong, still named
    import yaml

    # the section it leaves empty goes too
    assert yaml.safe_load(home.config_path.read_text()) == {"version": 1, "hooks": {"prompt_min_score": 1.5}, "output": {"color": "never"}}
    assert ov("config", "unset", "hooks.prompt_min_score", "--json").json["result"] == {"key": "hooks.prompt_min_score", "value": 0.6}
    assert load_config(home).warnings == ()
    assert yaml.safe_load(home.config_path.read_text()) == {"version": 1, "output": {"color": "never"}}


def test_unset_of_a_key_the_file_does_not_hold_writes_nothing(ov, home: Home) -> None:
    text = "# my settings\noutput:\n  color: never  # for the CI logs\n"
    write_config(home, text)
    result = ov("config", "unset", "store.lock_timeout")
    assert (result.exit_code, result.stdout) == (0, "store.lock_timeout = 10.0 (default)\n")
    assert home.config_path.read_text() == text  # comments kept: nothing was written


def test_unset_without_a_file_creates_nothing(ov, home: Home) -> None:
    assert ov("config", "unset", "store.lock_timeout").exit_code == 0
    assert not home.config_path.exists()


def test_unset_takes_out_what_ov_does_not_know(ov, home: Home) -> None:
    write_config(home, "colour: never\nhooks: 5\nstore:\n  lock_timout: 3\n  lock_timeout: 4\n")
    assert load_config(home).invalid[0].key == "hooks"  # a section that is not a mapping
    for key in ("colour", "hooks", "store.lock_timout"):
        result = ov("config", "unset", key)
        assert (result.exit_code, result.stdout) == (0, f"{key} removed\n")
    loaded = load_config(home)
    assert (loaded.warnings, loaded.config.store.lock_timeout) == ((), 4.0)


def test_unset_of_a_section_names_each_value_it_took_out(ov, home: Home) -> None:
    # (found by an audit: `ov config unset hooks` took every hooks setting out with only "hooks removed")
    write_config(home, "hooks:\n  prompt_budget: 500\n  deadline: 2\noutput:\n  color: never\n")
    result = ov("config", "unset", "hooks")
    assert (result.exit_code, result.stdout) == (0, "hooks removed: hooks.prompt_budget, hooks.deadline (each back to its default)\n")
    assert load_config(home).config.hooks.prompt_budget == 1000 and load_config(home).config.output.color == "never"
    write_config(home, "output:\n  color: never\n")
    assert ov("config", "unset", "output", "--json").json["result"] == {"key": "output", "value": None, "removed": ["output.color"]}


def test_unset_of_a_key_nobody_knows_is_refused(ov, home: Home) -> None:
    write_config(home, "output:\n  color: never\n")
    result = ov("config", "unset", "store.nope", "--json")
    assert result.exit_code == 2 and "unknown config key 'store.nope'" in result.error["message"]


# --- the validated cache --------------------------------------------------------------


def test_cache_is_written_and_keyed_by_content(home: Home, tmp_path: Path) -> None:
    text = "store:\n  lock_timeout: 3\nfoo: 1\n"
    write_config(home, text)
    first = load_config(home)
    cache = json.loads(cache_path(home).read_text())
    assert cache["config"]["store"]["lock_timeout"] == 3.0
    assert cache["unknown"] == ["foo"] and cache["invalid"] == []
    key = cache["key"]

    second = load_config(home)
    assert second == first
    assert json.loads(cache_path(home).read_text())["key"] == key

    # the same bytes in another home give the same key; other bytes give another
    other = Home(tmp_path / "other")
    write_config(other, text)
    load_config(other)
    assert json.loads(cache_path(other).read_text())["key"] == key
    write_config(other, text + "# changed\n")
    load_config(other)
    assert json.loads(cache_path(other).read_text())["key"] != key


def test_cache_is_read_when_content_is_unchanged(home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: 3\n")
    load_config(home)
    # Prove the cache is what answers: plant a different value under the same key.
    cache = json.loads(cache_path(home).read_text())
    cache["config"]["store"]["lock_timeout"] = 42.0
    cache_path(home).write_text(json.dumps(cache))
    assert load_config(home).config.store.lock_timeout == 42.0
    # Rewriting identical bytes (new mtime) keeps the cache valid: it is keyed by content.
    os.utime(home.config_path, (1, 1))
    write_config(home, "store:\n  lock_timeout: 3\n")
    assert load_config(home).config.store.lock_timeout == 42.0


def test_editing_the_file_invalidates_the_cache(home: Home) -> None:
    write_config(home, "store:\n  lock_timeout: 3\n")
    assert load_config(home).config.store.lock_timeout == 3.0
    key = json.loads(cache_path(home).read_text())["key"]
    write_config(home, "store:\n  lock_timeout: 4\n")
    assert load_config(home).config.store.lock_timeout == 4.0
    assert json.loads(cache_path(home).read_text())["key"] != key
    # an edit that breaks a value is reported, not hidden by the old cache
    write_config(home, "store:\n  lock_timeout: soon\n")
    loaded = load_config(home)
    assert [value.key for value in loaded.invalid] == ["store.lock_timeout"]
    assert loaded.config.store.lock_timeout == 10.0
    # and removing the file means defaults again
    home.config_path.unlink()
    assert load_config(home).config == Config()


def test_a_set_leaves_the_next_load_validated(home: Home, monkeypatch) -> None:
    """`ov config set` validated what it wrote; the first command after it (a hook, most often)
    validated it again, paying pydantic's import and schema build, and the prompt hook after a
    `config set` ran past its deadline on a loaded machine."""
    from ov.config import loading

    set_value(home, "store.lock_timeout", "3")
    set_value(home, "retrieval.language", "german")
    monkeypatch.setattr(loading, "validate_config_text", lambda raw, path: pytest.fail("validated again"))
    loaded = load_config(home)
    assert loaded.config.store.lock_timeout == 3.0 and loaded.config.retrieval.language == "german" and loaded.exists


def test_set_invalidates_the_cache(ov, home: Home) -> None:
    assert ov("config", "set", "store.lock_timeout", "3").exit_code == 0
    assert ov("config", "get", "store.lock_timeout").stdout == "3.0\n"
    assert ov("config", "set", "store.lock_timeout", "4").exit_code == 0
    assert ov("config", "get", "store.lock_timeout").stdout == "4.0\n"


@pytest.mark.parametrize("garbage", ["", "not json", "{", '{"key": 1}', '{"config": {}}', '{"key": null, "config": 5}'])
def test_corrupt_cache_is_ignored_and_rewritten(home: Home, garbage: str) -> None:
    write_config(home, "output:\n  color: never\n")
    cache_path(home).parent.mkdir(parents=True, exist_ok=True)
    cache_path(home).write_text(garbage)
    assert load_config(home).config.output.color == "never"
    assert json.loads(cache_path(home).read_text())["config"]["output"]["color"] == "never"


@pytest.mark.parametrize("garbage", ["[]", "null", "1", '"text"'])
def test_cache_that_is_not_a_json_object_is_ignored(ov, home: Home, garbage: str) -> None:
    # (found as a bug: cached.get() on a JSON list raised AttributeError and every command failed
    # with 'internal error' until the cache was deleted by hand)
    write_config(home, "output:\n  color: never\n")
    cache_path(home).parent.mkdir(parents=True, exist_ok=True)
    cache_path(home).write_text(garbage)
    assert load_config(home).config.output.color == "never"
    result = ov("config", "get", "output.color")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "never\n"


def test_cached_config_equals_validated_config(home: Home) -> None:
    write_config(home, "identity:\n  user: alice\nstore:\n  lock_timeout: 1\n  max_file_bytes: 2048\noutput:\n  color: always\n")
    fresh = load_config(home)
    cached = load_config(home)
    assert cached.config == fresh.config
    assert type(cached.config.identity) is type(fresh.config.identity)
    assert isinstance(cached.config.store.lock_timeout, float)
    assert cached.config.as_dict() == fresh.config.as_dict()


_PROBE = """
import json, sys
from ov.config import load_config
from ov.home import Home
loaded = load_config(Home.from_env())
print(json.dumps({
    "pydantic": "pydantic" in sys.modules,
    "yaml": "yaml" in sys.modules,
    "lock_timeout": loaded.config.store.lock_timeout,
    "candidates": loaded.config.retrieval.candidates,
    "warnings": list(loaded.warnings),
}))
"""


def _probe(ov_home: Path, package_root: Path | None = None) -> dict:
    """What a new process loads; with ``package_root``, a process of the ov found there."""
    env = dict(os.environ, OV_HOME=str(ov_home))
    if package_root is not None:  # the current directory comes first on sys.path: start there too
        env["PYTHONPATH"] = str(package_root)
    proc = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, env=env, timeout=60, cwd=package_root)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_second_load_does_not_import_pydantic(home: Home, ov_home: Path) -> None:
    write_config(home, "store:\n  lock_timeout: 3\nfoo: 1\nretrieval:\n  candidates: 20000\n")
    first = _probe(ov_home)
    assert first["pydantic"] is True  # the first load validates
    second = _probe(ov_home)
    assert second["pydantic"] is False
    assert second["yaml"] is False
    assert second["lock_timeout"] == first["lock_timeout"] == 3.0
    assert second["candidates"] == first["candidates"] == 200  # a value left out stays left out
    assert second["warnings"] == first["warnings"] and len(first["warnings"]) == 2
    # an edit brings validation back
    write_config(home, "store:\n  lock_timeout: 4\n")
    third = _probe(ov_home)
    assert third["pydantic"] is True
    assert third["lock_timeout"] == 4.0


def test_no_file_never_imports_pydantic(ov_home: Path) -> None:
    result = _probe(ov_home)
    assert result["pydantic"] is False
    assert result["yaml"] is False
    assert result["lock_timeout"] == 10.0


def _old_cache(home: Home, raw: bytes, config: dict, warnings: list[str]) -> None:
    """The cache as ov wrote it until 2026-12 (keyed by ov's version, which was never bumped)."""
    import hashlib

    from ov import __version__
    from ov.config import CONFIG_VERSION

    key = hashlib.sha256(raw + f"|{__version__}|{CONFIG_VERSION}".encode()).hexdigest()
    cache_path(home).parent.mkdir(parents=True, exist_ok=True)
    cache_path(home).write_text(json.dumps({"key": key, "config": config, "warnings": warnings}))


def test_a_cache_an_older_ov_wrote_is_never_used(home: Home) -> None:
    # (found by an audit: values an older ov accepted were served from its cache after an upgrade,
    # unchecked; the first edit of the file then stopped every command)
    raw = b"version: 1\nretrieval:\n  candidates: 20000\nhooks:\n  prompt_min_score: 1.5\n"
    write_config(home, raw)
    old = json.loads(json.dumps(DEFAULTS))
    old["retrieval"]["candidates"], old["hooks"]["prompt_min_score"] = 20000, 1.5
    _old_cache(home, raw, old, [])
    loaded = load_config(home)
    assert [(v.key, v.value, v.problem) for v in loaded.invalid] == [
        ("retrieval.candidates", 20000, "must be at most 10000"),
        ("hooks.prompt_min_score", 1.5, "must be at most 1"),
    ]
    assert (loaded.config.retrieval.candidates, loaded.config.hooks.prompt_min_score) == (200, 0.6)
    assert json.loads(cache_path(home).read_text())["invalid"][0]["key"] == "retrieval.candidates"


def test_a_cache_from_before_a_section_existed_is_never_used(home: Home) -> None:
    # (found by an audit: an ov without `hooks` cached the file without it, and its default
    # vector_weight 1.0 with it: the current ov said "unknown key 'hooks' ignored" and used both)
    raw = b"hooks:\n  prompt_budget: 500\n"
    write_config(home, raw)
    old = json.loads(json.dumps(DEFAULTS))
    del old["hooks"]
    old["retrieval"]["vector_weight"] = 1.0
    _old_cache(home, raw, old, [f"{home.config_path}: unknown key 'hooks' ignored"])
    loaded = load_config(home)
    assert loaded.warnings == ()
    assert loaded.config.hooks.prompt_budget == 500
    assert loaded.config.retrieval.vector_weight is None


def _other_ov(tmp_path: Path, module: str, old: str, new: str) -> Path:
    """A copy of this ov (its code) with ``old`` replaced by ``new`` in ``module`` (a path below ov/)."""
    import shutil

    import ov as ov_package

    def not_code(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if n == "__pycache__" or not (n.endswith(".py") or (Path(folder) / n).is_dir())]

    other = tmp_path / "other"
    shutil.copytree(Path(ov_package.__file__).parent, other / "ov", ignore=not_code)
    path = other / "ov" / module
    assert old in path.read_text()
    path.write_text(path.read_text().replace(old, new))
    return other


def test_a_cache_another_schema_wrote_never_answers(home: Home, ov_home: Path, tmp_path: Path) -> None:
    """The cache is keyed on the schema: an ov whose bound differs (a copy of this one where
    retrieval.candidates stops at 1,000) validates the file again, and so does the way back."""
    other = _other_ov(tmp_path, "config/schema.py", "candidates: Annotated[int, Positive(10_000)]", "candidates: Annotated[int, Positive(1_000)]")

    write_config(home, "retrieval:\n  candidates: 5000\n")
    assert _probe(ov_home)["candidates"] == 5000 and _probe(ov_home)["pydantic"] is False  # cached as valid
    theirs = _probe(ov_home, other)
    assert theirs["pydantic"] is True and theirs["candidates"] == 200
    assert theirs["warnings"][0].endswith("retrieval.candidates = 5000: must be at most 1000; the default 200 is used instead. Fix: `ov config unset retrieval.candidates` (back to the default) or `ov config set retrieval.candidates VALUE`")
    ours = _probe(ov_home)
    assert ours["pydantic"] is True and ours["candidates"] == 5000 and ours["warnings"] == []


@pytest.mark.parametrize(
    ("module", "old", "new"),
    [
        ("config/checks.py", 'raise ValueError(f"must be at most {_number(self.most)}")', 'raise ValueError(f"must not pass {_number(self.most)}")'),  # a check's words
        ("config/loading.py", 'problem = error["msg"].removeprefix("Value error, ")', 'problem = "refused: " + error["msg"].removeprefix("Value error, ")'),
    ],
    ids=["checks", "loading"],
)
def test_a_cache_written_by_other_checks_or_loading_code_never_answers(home: Home, ov_home: Path, tmp_path: Path, module: str, old: str, new: str) -> None:
    """The schema is split over modules (schema, checks, loading): the cache is keyed on each of
    them, so what another ov's checks said of a value is never read back as this one's."""
    other = _other_ov(tmp_path, module, old, new)
    write_config(home, "retrieval:\n  candidates: 20000\n")
    ours = "retrieval.candidates = 20000: must be at most 10000"
    assert ours in _probe(ov_home)["warnings"][0] and _probe(ov_home)["pydantic"] is False  # cached
    theirs = _probe(ov_home, other)
    assert theirs["pydantic"] is True and ours not in theirs["warnings"][0], theirs
    again = _probe(ov_home)
    assert again["pydantic"] is True and ours in again["warnings"][0]


def test_unwritable_cache_still_loads(home: Home) -> None:
    # the cache only saves time: a home where it cannot be written still works
    write_config(home, "output:\n  color: never\n")
    (home.root / "state").write_text("not a directory")
    assert load_config(home).config.output.color == "never"
    assert load_config(home).config.output.color == "never"


def test_config_from_a_newer_version_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="format version 2"):
        validate_config_text(b"version: 2\n", tmp_path / "config.yaml")


# --- hostile files: refused quickly, with exit 2 -----------------------------------------------


def _alias_bomb(levels: int = 9) -> str:
    """YAML whose last alias expands to 10**levels values (a "billion laughs")."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines) + "\nstore:\n  lock_timeout: 5\n"


HOSTILE_CONFIGS = {
    # (found as a bug: json.dumps in _validate expanded it; `ov write` took 55 s)
    "alias bomb": (_alias_bomb(), "more than 10000 values"),
    "self-referencing alias": ("store: &s\n  x: *s\n", "nested more than 32 levels"),
    "deep nesting": ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 32 levels"),
    "deep mapping": ("".join("  " * i + f"k{i}:\n" for i in range(40)) + "  " * 40 + "v: 1\n", "nested more than 32 levels"),
    # (found as a bug: a 30 MB comment cost every command 26 s)
    "huge file": ("# " + "x" * (1024 * 1024) + "\nstore:\n  lock_timeout: 5\n", "at most 1048576"),
    "impossible date": ("identity:\n  user: 2026-02-30\n", "YAML cannot read"),
    "date as a key": ("2026-01-01: x\n", "unknown key '2026-01-01'"),
}


@pytest.mark.parametrize("name", list(HOSTILE_CONFIGS))
def test_hostile_config_files_are_refused_quickly(ov_process, ov_home: Path, name: str) -> None:
    text, words = HOSTILE_CONFIGS[name]
    ov_home.mkdir(parents=True, exist_ok=True)
    (ov_home / "config.yaml").write_text(text)
    result = ov_process("write", "viking://resources/x.md", "--content", "x", "--json", timeout=20)
    if words.startswith("unknown key"):  # a date key is an unknown key like any other, not a crash
        assert result.exit_code == 0, result.stderr
        assert words in result.stderr
        return
    assert result.exit_code == 2, result.stderr[-500:]
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "config_invalid" and words in error["message"]
    assert len(error["message"]) < 500
    assert not (ov_home / "accounts").exists()


def test_a_config_path_that_is_a_named_pipe_is_refused(ov_process, ov_home: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    ov_home.mkdir(parents=True, exist_ok=True)
    os.mkfifo(ov_home / "config.yaml")
    result = ov_process("ls", "--json", timeout=20)
    assert result.exit_code == 2
    assert "not a regular file" in json.loads(result.stderr)["error"]["message"]


def test_set_on_an_oversized_file_fails_and_leaves_it(ov, home: Home) -> None:
    text = "# " + "x" * (1024 * 1024) + "\n"
    home.config_path.parent.mkdir(parents=True, exist_ok=True)
    home.config_path.write_text(text)
    result = ov("config", "set", "store.lock_timeout", "5", "--json")
    assert result.exit_code == 2 and "at most" in result.error["message"]
    assert home.config_path.read_text() == text


def test_the_stemming_language_is_one_tantivy_has_in_any_case(ov):
    """tantivy takes "German" as "german": a config that says so keeps working; a language it has
    no stemmer for is refused when set, before every find would fail on it."""
    assert ov("config", "set", "retrieval.language", "German").exit_code == 0
    assert ov("config", "get", "retrieval.language").stdout.strip() == "german"
    refused = ov("config", "set", "retrieval.language", "klingon", "--json")
    assert refused.exit_code == 2 and "retrieval.language" in refused.error["message"]
    assert ov("config", "get", "retrieval.language").stdout.strip() == "german"



# --- keys and URLs that must not be shown (found by an audit) -------------------------------

KEY = "sk-proj-SECRETKEYabcdefghijklmnopqrstuvwxyz0123456789"


@pytest.mark.parametrize("key", ["llm.api_key_env", "embedding.api_key_env"])
def test_a_key_pasted_where_its_variables_name_goes_is_refused_unseen(ov, home: Home, key: str) -> None:
    result = ov("config", "set", key, KEY)
    assert result.exit_code == EXIT_USAGE
    assert "environment variable" in (result.stdout + result.stderr) and "SECRETKEY" not in (result.stdout + result.stderr)
    assert not home.config_path.exists()
    assert ov("config", "set", key, "MY_LLM_KEY").exit_code == 0
    assert ov("config", "get", key).stdout.strip() == "MY_LLM_KEY"


def test_a_key_already_in_the_file_is_not_shown(ov, home: Home) -> None:
    write_config(home, f"llm:\n  model: openai/x\n  api_key_env: {KEY}\n")
    loaded = load_config(home)
    assert loaded.config.llm.api_key_env is None  # left out, the default used
    (invalid,) = loaded.invalid
    assert invalid.key == "llm.api_key_env" and "SECRETKEY" not in invalid.describe()
    for argv in (["config", "show"], ["config", "show", "--json"], ["doctor"], ["doctor", "--json"]):
        result = ov(*argv)
        assert "SECRETKEY" not in result.stdout + result.stderr, argv
    shown = ov("config", "show", "--json").json["result"]["invalid"]
    assert shown[0]["key"] == "llm.api_key_env" and shown[0]["value"] == "(not shown: it may be the key itself)"


def test_an_api_base_with_a_password_is_refused_unseen(ov, home: Home) -> None:
    result = ov("config", "set", "llm.api_base", "http://bob:hunter2secret@127.0.0.1:8080/v1")
    assert result.exit_code == EXIT_USAGE
    assert "user name or password" in (result.stdout + result.stderr) and "hunter2secret" not in (result.stdout + result.stderr) and "bob" not in (result.stdout + result.stderr)
    assert ov("config", "set", "embedding.api_base", "https://user@example.com/v1").exit_code == EXIT_USAGE
    assert ov("config", "set", "llm.api_base", "http://127.0.0.1:8080/v1?name=a@b").exit_code == 0  # an @ past the host is no user
    assert ov("config", "set", "llm.api_base", "http://127.0.0.1:8080/v1#a@b").exit_code == 0  # nor in the fragment
    assert ov("config", "set", "llm.api_base", "bob:hunter2secret@127.0.0.1:8080").exit_code == EXIT_USAGE  # nor without a scheme


def _ov_popen(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "ov", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_changes_run_at_once_by_several_processes_all_land(home: Home) -> None:
    # Each read the file, changed it and wrote it back: run together, all but one or two settings
    # were lost without a word.
    subprocess.run([sys.executable, "-m", "ov", "config", "set", "hooks.max_chars", "5000"], capture_output=True, check=True)
    wanted = {"hooks.prompt_budget": "700", "hooks.session_start_budget": "1200", "hooks.tool_output_chars": "3000", "output.color": "never"}
    procs = [_ov_popen("config", "set", key, value) for key, value in wanted.items()]
    procs.append(_ov_popen("config", "unset", "hooks.max_chars"))
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err.decode()
    loaded = load_config(home)
    assert {key: str(get_value(loaded.config, key)) for key in wanted} == wanted
    assert "max_chars" not in home.config_path.read_text()


def test_a_change_waits_for_the_one_under_way(home: Home) -> None:
    from ov.config.editing import LOCK_NAME
    from ov.files import file_lock

    home.ensure()
    with file_lock(home.root / LOCK_NAME, 1, "busy", "wait"):
        proc = _ov_popen("config", "set", "hooks.prompt_budget", "700")
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=2)  # it waits for the lock, having written nothing
        assert not home.config_path.exists()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert get_value(load_config(home).config, "hooks.prompt_budget") == 700


def test_a_change_is_refused_when_another_holds_the_lock_too_long(ov, home: Home, monkeypatch) -> None:
    from ov.config import editing
    from ov.files import file_lock

    monkeypatch.setattr(editing, "LOCK_TIMEOUT", 0.1)
    home.ensure()
    with file_lock(home.root / editing.LOCK_NAME, 1, "busy", "wait"):
        result = ov("config", "set", "hooks.prompt_budget", "700")
    assert result.exit_code != 0 and "another ov process is changing" in result.stderr
    assert not home.config_path.exists()
