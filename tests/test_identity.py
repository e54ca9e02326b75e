"""Identity: id validation and where account, user and peer come from (PRODUCT.md §2).

Precedence, first hit wins: flag > OV_* environment > OpenViking environment names
(OPENVIKING_ACCOUNT, OPENVIKING_USER, OPENVIKING_PEER_ID) > config file > "default"
(the peer has no default).
"""

from __future__ import annotations

import pytest

from ov.errors import EXIT_USAGE, InvalidId, InvalidInput
from ov.identity import DEFAULT_ID, MAX_ID_LEN, Identity, resolve_identity, validate_id

# --- validate_id ---------------------------------------------------------------------

VALID_IDS = [
    pytest.param("default", "user", id="default"),
    pytest.param("alice", "user", id="plain"),
    pytest.param("Alice_01", "user", id="mixed-case-digits-underscore"),
    pytest.param("1001", "user", id="digits-only"),
    pytest.param("a.b-c", "user", id="dot-dash"),
    pytest.param("alice@example.com", "user", id="one-at"),
    pytest.param("_private", "user", id="user-may-start-with-underscore"),
    pytest.param("_bot", "peer", id="peer-may-start-with-underscore"),
    pytest.param("a...", "user", id="dots-inside"),
    pytest.param("a" * MAX_ID_LEN, "account", id="max-length"),
    pytest.param("acme-corp", "account", id="account"),
    pytest.param("s-2024.05.07@host", "session", id="session"),
]


@pytest.mark.parametrize(("value", "kind"), VALID_IDS)
def test_validate_id_accepts(value: str, kind: str) -> None:
    assert validate_id(value, kind) == value


INVALID_IDS = [
    pytest.param("", "user", "user id is empty", id="empty"),
    pytest.param(".", "user", "is not allowed", id="dot"),
    pytest.param("..", "peer", "peer id '..' is not allowed", id="dotdot"),
    pytest.param("a" * (MAX_ID_LEN + 1), "user", f"longer than {MAX_ID_LEN}", id="too-long"),
    pytest.param("a b", "user", "characters that are not allowed", id="space"),
    pytest.param("../x", "user", "characters that are not allowed", id="traversal"),
    pytest.param("a/b", "account", "characters that are not allowed", id="slash"),
    pytest.param("a\\b", "user", "characters that are not allowed", id="backslash"),
    pytest.param("a:b", "user", "characters that are not allowed", id="colon"),
    pytest.param("~", "user", "characters that are not allowed", id="tilde"),
    pytest.param("ünï", "user", "characters that are not allowed", id="non-ascii"),
    pytest.param("用户", "user", "characters that are not allowed", id="cjk"),
    pytest.param("a\x00", "user", "characters that are not allowed", id="nul"),
    pytest.param(" alice", "user", "characters that are not allowed", id="leading-space"),
    # (found as a bug: '$' in the id regex also matched before a final newline)
    pytest.param("alice\n", "user", "characters that are not allowed", id="trailing-newline"),
    pytest.param("acme\n", "account", "characters that are not allowed", id="account-trailing-newline"),
    pytest.param("a\r\n", "user", "characters that are not allowed", id="trailing-crlf"),
    pytest.param("a@b@c", "user", "more than one '@'", id="two-ats"),
    pytest.param("_acme", "account", "must not start with '_'", id="account-leading-underscore"),
    # ids become tree entries (sessions/{id}, peers/{peer}): what git fsck refuses, ov refuses
    # (found as a bug: `ov session add .git` and `ov remember --peer .Git` broke `git fsck --strict`)
    pytest.param(".git", "session", "reserved", id="session-dot-git"),
    pytest.param(".GIT", "session", "reserved", id="session-dot-git-upper"),
    pytest.param(".Git", "peer", "reserved", id="peer-dot-git-mixed"),
    pytest.param(".git.", "user", "reserved", id="ntfs-trailing-dot"),
    pytest.param(".git...", "user", "reserved", id="ntfs-trailing-dots"),
    pytest.param(".gitmodules", "peer", "reserved", id="gitmodules"),
    pytest.param(".GitAttributes", "session", "reserved", id="gitattributes"),
    pytest.param(".ov-tmp-1", "session", "temporary files", id="temp-marker"),
    pytest.param("a.ov-tmp-b", "user", "temporary files", id="temp-marker-inside"),
    # A name starting with '.' is hidden: `ov session list` and `ov ls viking://user` would never show it
    # (found as a bug: `ov session add .hidden`, `ov remember --user .bob` stored what no listing showed)
    pytest.param(".hidden", "peer", "starts with '.'", id="leading-dot"),
    pytest.param("...", "user", "starts with '.'", id="three-dots"),
    pytest.param(".bob", "user", "starts with '.'", id="user-leading-dot"),
    pytest.param(".gitignore", "session", "starts with '.'", id="dot-name-git-does-not-reserve"),
    pytest.param("main.lock", "session", "ends in '.lock'", id="lock-suffix"),
    pytest.param("x.LOCK", "account", "ends in '.lock'", id="lock-suffix-upper"),
]


@pytest.mark.parametrize(("value", "kind", "message"), INVALID_IDS)
def test_validate_id_rejects(value: str, kind: str, message: str) -> None:
    with pytest.raises(InvalidId) as info:
        validate_id(value, kind)
    exc = info.value
    assert message in exc.message
    assert exc.message.startswith(f"{kind} id")
    assert isinstance(exc, InvalidInput)
    assert exc.exit_code == EXIT_USAGE == 2
    assert exc.code == "invalid_id"


@pytest.mark.parametrize("value", ["x" * 10_000, "\x00" * 10_000, "é" * 10_000])
def test_validate_id_quotes_a_long_value_briefly(value: str) -> None:
    # (found as a bug: a 10,000-character id made a 10 KB error message)
    with pytest.raises(InvalidId) as info:
        validate_id(value, "peer")
    assert len(info.value.message) < 400


@pytest.mark.parametrize("value", ["git", "x.gitignore", "git.x", "lock", "a.locks", "locksmith", "github"])
def test_validate_id_allows_names_git_does_not_reserve(value: str) -> None:
    assert validate_id(value, "session") == value


# --- resolve_identity ---------------------------------------------------------------

NO_FLAGS: dict[str, str | None] = {"account": None, "user": None, "peer": None}


def test_defaults_when_nothing_is_set() -> None:
    ident = resolve_identity(NO_FLAGS, {}, {})
    assert (ident.account, ident.user, ident.peer) == (DEFAULT_ID, DEFAULT_ID, None)
    assert DEFAULT_ID == "default"
    for field in ("account", "user", "peer"):
        assert ident.source_of(field) == "default"


# For each field: (flag value, OV_* env, OPENVIKING_* env, config) and the expected winner and source.
PRECEDENCE = [
    pytest.param("f", "o", "u", "c", "f", "flag", id="flag-beats-all"),
    pytest.param(None, "o", "u", "c", "o", "env {ov}", id="ov-env-beats-upstream-and-config"),
    pytest.param(None, None, "u", "c", "u", "env {up}", id="upstream-env-beats-config"),
    pytest.param(None, None, None, "c", "c", "config", id="config-beats-default"),
    pytest.param("f", None, None, "c", "f", "flag", id="flag-beats-config"),
    pytest.param("f", None, "u", None, "f", "flag", id="flag-beats-upstream-env"),
    pytest.param(None, "o", None, "c", "o", "env {ov}", id="ov-env-beats-config"),
]
FIELDS = [
    pytest.param("account", "OV_ACCOUNT", "OPENVIKING_ACCOUNT", id="account"),
    pytest.param("user", "OV_USER", "OPENVIKING_USER", id="user"),
    pytest.param("peer", "OV_PEER", "OPENVIKING_PEER_ID", id="peer"),
]


@pytest.mark.parametrize(("field", "ov_name", "up_name"), FIELDS)
@pytest.mark.parametrize(("flag", "ov_env", "up_env", "config", "winner", "source"), PRECEDENCE)
def test_precedence(field, ov_name, up_name, flag, ov_env, up_env, config, winner, source) -> None:
    env = {}
    if ov_env is not None:
        env[ov_name] = f"{ov_env}-{field}"
    if up_env is not None:
        env[up_name] = f"{up_env}-{field}"
    flags = dict(NO_FLAGS, **{field: None if flag is None else f"{flag}-{field}"})
    configured = {field: None if config is None else f"{config}-{field}"}
    ident = resolve_identity(flags, env, configured)
    assert getattr(ident, field) == f"{winner}-{field}"
    assert ident.source_of(field) == source.format(ov=ov_name, up=up_name)
    # the other fields are untouched
    for other in ("account", "user", "peer"):
        if other != field:
            assert ident.source_of(other) == "default"
            assert getattr(ident, other) == (None if other == "peer" else DEFAULT_ID)


def test_fields_resolve_independently() -> None:
    ident = resolve_identity(
        {"account": None, "user": "flaguser", "peer": None},
        {"OPENVIKING_ACCOUNT": "upacct", "OV_PEER": "envpeer", "OPENVIKING_PEER_ID": "uppeer"},
        {"account": "cfgacct", "user": "cfguser", "peer": "cfgpeer"},
    )
    assert (ident.account, ident.user, ident.peer) == ("upacct", "flaguser", "envpeer")
    assert ident.source_of("account") == "env OPENVIKING_ACCOUNT"
    assert ident.source_of("user") == "flag"
    assert ident.source_of("peer") == "env OV_PEER"
    assert dict(ident.sources) == {
        "account": "env OPENVIKING_ACCOUNT",
        "user": "flag",
        "peer": "env OV_PEER",
    }


def test_upstream_peer_variable_name_is_peer_id() -> None:
    # OpenViking names the peer variable OPENVIKING_PEER_ID, not OPENVIKING_PEER
    assert resolve_identity(NO_FLAGS, {"OPENVIKING_PEER": "p"}, {}).peer is None
    ident = resolve_identity(NO_FLAGS, {"OPENVIKING_PEER_ID": "p"}, {})
    assert ident.peer == "p"
    assert ident.source_of("peer") == "env OPENVIKING_PEER_ID"


def test_empty_environment_values_count_as_unset() -> None:
    ident = resolve_identity(NO_FLAGS, {"OV_USER": "", "OPENVIKING_USER": "upuser"}, {"user": "cfg"})
    assert ident.user == "upuser"
    assert ident.source_of("user") == "env OPENVIKING_USER"


def test_missing_flag_keys_are_unset() -> None:
    ident = resolve_identity({}, {"OV_ACCOUNT": "acme"}, {})
    assert ident.account == "acme"
    assert ident.user == DEFAULT_ID


def test_identity_value_and_unknown_source() -> None:
    ident = Identity()
    assert (ident.account, ident.user, ident.peer) == ("default", "default", None)
    assert ident.source_of("account") == "default"
    assert ident.source_of("nonsense") == "default"


INVALID_FROM_SOURCE = [
    pytest.param({"user": "../x"}, {}, {}, "user", "(from flag)", id="flag"),
    pytest.param({}, {"OV_USER": "a b"}, {}, "user", "(from env OV_USER)", id="ov-env"),
    pytest.param({}, {"OPENVIKING_USER": "a/b"}, {}, "user", "(from env OPENVIKING_USER)", id="upstream-env"),
    pytest.param({}, {}, {"user": "a@b@c"}, "user", "(from config)", id="config"),
    pytest.param({"account": "_acme"}, {}, {}, "account", "(from flag)", id="account-underscore-flag"),
    pytest.param({}, {"OV_ACCOUNT": ".."}, {}, "account", "(from env OV_ACCOUNT)", id="account-dotdot-env"),
    pytest.param({}, {"OPENVIKING_ACCOUNT": "x y"}, {}, "account", "(from env OPENVIKING_ACCOUNT)", id="account-upstream-env"),
    pytest.param({"peer": "bad peer"}, {}, {}, "peer", "(from flag)", id="peer-flag"),
    pytest.param({}, {"OV_PEER": "p:1"}, {}, "peer", "(from env OV_PEER)", id="peer-ov-env"),
    pytest.param({}, {"OPENVIKING_PEER_ID": "p/1"}, {}, "peer", "(from env OPENVIKING_PEER_ID)", id="peer-upstream-env"),
    pytest.param({}, {}, {"peer": "p p"}, "peer", "(from config)", id="peer-config"),
]


@pytest.mark.parametrize(("flags", "env", "configured", "field", "source"), INVALID_FROM_SOURCE)
def test_invalid_id_names_its_source(flags, env, configured, field, source) -> None:
    with pytest.raises(InvalidId) as info:
        resolve_identity(dict(NO_FLAGS, **flags), env, configured)
    assert info.value.message.startswith(f"{field} id")
    assert info.value.message.endswith(source)
    assert info.value.exit_code == 2


def test_only_the_winning_value_is_validated() -> None:
    # a bad value that is overridden by a higher-priority source does not matter
    ident = resolve_identity({"user": "bob"}, {"OV_USER": "a b", "OPENVIKING_USER": "../x"}, {"user": "!!"})
    assert ident.user == "bob"


@pytest.mark.parametrize("field", ["account", "user", "peer"])
def test_explicit_empty_flag_is_rejected(field: str) -> None:
    # (found as a bug: `--user ''` was treated as unset and silently fell back to env/config/default)
    with pytest.raises(InvalidId) as info:
        resolve_identity(dict(NO_FLAGS, **{field: ""}), {}, {field: "carol"})
    assert info.value.message == f"{field} id is empty (from flag)"


def test_explicit_empty_config_value_is_rejected() -> None:
    with pytest.raises(InvalidId) as info:
        resolve_identity(NO_FLAGS, {}, {"user": ""})
    assert info.value.message == "user id is empty (from config)"


# --- through the CLI ----------------------------------------------------------------


def _identity(result) -> dict:
    assert result.exit_code == 0, result.stderr
    return result.json["result"]["identity"]


def test_cli_config_show_defaults(ov) -> None:
    ident = _identity(ov("config", "show", "--json"))
    assert ident == {
        "account": {"value": "default", "source": "default"},
        "user": {"value": "default", "source": "default"},
        "peer": {"value": None, "source": "default"},
    }


def test_cli_config_show_reports_env_identity(ov, monkeypatch) -> None:
    monkeypatch.setenv("OPENVIKING_ACCOUNT", "acme")
    monkeypatch.setenv("OV_USER", "carol")
    monkeypatch.setenv("OPENVIKING_USER", "ignored")
    monkeypatch.setenv("OPENVIKING_PEER_ID", "proj-x")
    ident = _identity(ov("config", "show", "--json"))
    assert ident["account"] == {"value": "acme", "source": "env OPENVIKING_ACCOUNT"}
    assert ident["user"] == {"value": "carol", "source": "env OV_USER"}
    assert ident["peer"] == {"value": "proj-x", "source": "env OPENVIKING_PEER_ID"}


def test_cli_flags_beat_env(ov, monkeypatch) -> None:
    monkeypatch.setenv("OV_USER", "carol")
    monkeypatch.setenv("OV_ACCOUNT", "envacct")
    monkeypatch.setenv("OV_PEER", "envpeer")
    ident = _identity(ov("config", "show", "--json", "--user", "bob", "--account", "flagacct", "--peer", "flagpeer"))
    assert ident["user"] == {"value": "bob", "source": "flag"}
    assert ident["account"] == {"value": "flagacct", "source": "flag"}
    assert ident["peer"] == {"value": "flagpeer", "source": "flag"}


def test_cli_flag_beats_env_in_human_output(ov, monkeypatch) -> None:
    monkeypatch.setenv("OV_USER", "carol")
    result = ov("config", "show", "--user", "bob")
    assert result.exit_code == 0
    assert "user = bob  (flag)" in result.stdout
    assert "carol" not in result.stdout


def test_cli_config_file_identity_and_env_override(ov, monkeypatch) -> None:
    assert ov("config", "set", "identity.user", "frank").exit_code == 0
    ident = _identity(ov("config", "show", "--json"))
    assert ident["user"] == {"value": "frank", "source": "config"}
    monkeypatch.setenv("OPENVIKING_USER", "upuser")
    ident = _identity(ov("config", "show", "--json"))
    assert ident["user"] == {"value": "upuser", "source": "env OPENVIKING_USER"}


def test_cli_identity_decides_where_writes_go(ov, monkeypatch, ov_home) -> None:
    monkeypatch.setenv("OV_USER", "carol")
    monkeypatch.setenv("OPENVIKING_ACCOUNT", "acme")
    result = ov("write", "viking://~/memories/note.md", "--content", "hi\n", "--user", "bob", "--json")
    assert result.exit_code == 0, result.stderr
    assert (ov_home / "accounts" / "acme" / "user" / "bob" / "memories" / "note.md").read_text() == "hi\n"
    assert not (ov_home / "accounts" / "default").exists()
    assert not (ov_home / "accounts" / "acme" / "user" / "carol").exists()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        pytest.param(("--user", "../x"), {}, "user id '../x'", id="bad-user-flag"),
        pytest.param(("--user", "../x"), {"OV_USER": "carol"}, "(from flag)", id="bad-user-flag-over-env"),
        pytest.param(("--account", "_acme"), {}, "must not start with '_'", id="bad-account-flag"),
        pytest.param((), {"OV_USER": "a b"}, "(from env OV_USER)", id="bad-user-env"),
        pytest.param((), {"OPENVIKING_PEER_ID": "p/q"}, "(from env OPENVIKING_PEER_ID)", id="bad-peer-upstream-env"),
    ],
)
def test_cli_bad_identity_is_a_json_usage_error(ov, monkeypatch, ov_home, args, env, message) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = ov("config", "show", "--json", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    error = result.error
    assert error["code"] == "invalid_id"
    assert message in error["message"]


def test_cli_bad_user_flag_on_write_leaves_no_store(ov, ov_home) -> None:
    result = ov("write", "viking://~/x.md", "--content", "x", "--user", "../x", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_id"
    assert not (ov_home / "accounts").exists()


def test_cli_account_with_trailing_newline_is_refused(ov, monkeypatch, ov_home) -> None:
    # (found as a bug: OV_ACCOUNT=$'acme\\n' used to create the account directory 'acme\\n')
    monkeypatch.setenv("OV_ACCOUNT", "acme\n")
    result = ov("write", "viking://resources/a.md", "--content", "hi", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_id"
    assert "(from env OV_ACCOUNT)" in result.error["message"]
    assert not (ov_home / "accounts").exists()


def test_cli_empty_user_flag_is_refused(ov, monkeypatch, ov_home) -> None:
    monkeypatch.setenv("OV_USER", "carol")
    result = ov("write", "viking://~/a.md", "--content", "hi", "--user", "", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_id"
    assert result.error["message"] == "user id is empty (from flag)"
    assert not (ov_home / "accounts").exists()


def test_cli_bad_user_flag_without_json_is_plain_text(ov) -> None:
    result = ov("config", "show", "--user", "../x")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: user id '../x'")
    assert "hint: an id uses" in result.stderr


# --- an account that does not exist ------------------------------------------------------------

# Every command that only reads, with arguments that would work on an existing account.
READS = {
    "ls": (),
    "tree": (),
    "stat": ("viking://resources",),
    "read": ("viking://user/default/memories/profile.md",),
    "abstract": ("viking://resources",),
    "overview": ("viking://resources",),
    "grep": ("Neovim",),
    "glob": ("**/*.md",),
    "find": ("editor",),
    "search": ("editor",),
    "reindex": (),
    "fsck": (),
    "status": (),
    "usage": (),
    "push": (),
    "export": ("viking://resources", "{tmp}/out.ovpack"),
    "backup": ("{tmp}/all.ovpack",),
    "remote list": (),
    "session list": (),
    "session show": ("s1",),
    "snapshot log": (),
    "snapshot show": ("HEAD",),
    "snapshot diff": (),
    "snapshot tag": (),
}
# The rest write (and create the account, as before), or open no store, or report (doctor).
OTHERS = {
    "write", "edit", "mkdir", "rm", "mv", "add-resource", "add-skill", "doctor", "init", "version", "pull",
    "import", "restore", "remember", "forget", "refile", "commit", "hook", "mcp", "remote add", "remote remove",
    "session new", "session add", "session add-messages", "session used", "session delete", "session commit",
    "config show", "config get", "config set", "config unset", "snapshot commit", "snapshot restore", "snapshot revert", "hooks log",
    "install hooks", "install mcp", "uninstall hooks", "uninstall mcp", "plugin build",
}


def _commands() -> dict[str, bool]:
    """Every command's path, and whether it only reads (ReadCommand)."""
    import click
    import typer

    from ov.cli.main import app
    from ov.cli.runtime import ReadCommand

    def walk(command, path):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])
        else:
            yield " ".join(path), isinstance(command, ReadCommand)

    return dict(walk(typer.main.get_command(app), []))


def test_every_command_is_declared_a_read_or_not() -> None:
    commands = _commands()
    assert set(commands) == set(READS) | OTHERS  # a new command: decide which it is
    assert {name for name, reads in commands.items() if reads} == set(READS)


def _accounts_and_state(home) -> tuple[list[str], list[str]]:
    def listed(folder) -> list[str]:
        return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []

    return listed(home / "accounts"), listed(home / "state")


@pytest.mark.parametrize("command", READS)
def test_a_read_of_an_account_that_does_not_exist_fails_naming_the_accounts_there(ov, monkeypatch, ov_home, tmp_path, command) -> None:
    assert ov("remember", "My editor is Neovim").exit_code == 0
    before = _accounts_and_state(ov_home)
    monkeypatch.setenv("OV_ACCOUNT", "tpyo")
    args = [a.format(tmp=tmp_path) for a in READS[command]]
    result = ov(*command.split(), *args, "--json")
    assert result.exit_code == (2 if command == "grep" else 1), result.stderr  # grep's "an error", as grep(1) says it
    assert result.stdout == ""
    assert result.error["code"] == "account_not_found"
    assert result.error["message"] == f"account 'tpyo' (from env OV_ACCOUNT) does not exist in {ov_home / 'accounts'} (accounts: default)"
    assert "--account / $OV_ACCOUNT" in result.error["hint"]
    assert _accounts_and_state(ov_home) == before  # the failed read created nothing
    assert not list(tmp_path.glob("*.ovpack"))


def test_a_mistyped_account_flag_is_named_in_plain_text(ov, ov_home) -> None:
    assert ov("write", "viking://resources/a.md", "--content", "a").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "b", "--account", "work").exit_code == 0
    result = ov("--account", "wrok", "ls")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: account 'wrok' (from flag) does not exist in {ov_home / 'accounts'} (accounts: default, work)\n")
    assert "hint: check --account / $OV_ACCOUNT" in result.stderr


@pytest.mark.parametrize("command", [("pull",), ("pull", "origin"), ("remote", "remove", "origin")])
def test_a_remote_command_on_an_account_that_does_not_exist_names_the_account_not_the_remote(ov, ov_home, command) -> None:
    """A mistyped account has no remotes: "no remote is configured" sent the user to add one."""
    assert ov("remember", "My editor is Neovim").exit_code == 0
    before = _accounts_and_state(ov_home)
    result = ov(*command, "--account", "tpyo", "--json")
    assert result.exit_code == 1, result.stderr
    assert result.error["code"] == "account_not_found"
    assert result.error["message"] == f"account 'tpyo' (from flag) does not exist in {ov_home / 'accounts'} (accounts: default)"
    assert _accounts_and_state(ov_home) == before


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(("rm", "viking://resources/a.md"), id="rm"),
        pytest.param(("mv", "viking://resources/a.md", "viking://resources/b.md"), id="mv"),
        pytest.param(("edit", "viking://resources/a.md", "--old", "a", "--new", "b"), id="edit"),
        pytest.param(("forget", "viking://user/default/memories/preferences/default/editor.md"), id="forget"),
        pytest.param(("add-resource", "{tmp}/notes.md", "--parent", "viking://resources/docs"), id="add-resource-parent"),
        pytest.param(("session", "used", "s1", "viking://resources"), id="session-used"),
    ],
)
def test_a_change_to_an_account_that_does_not_exist_fails_naming_it_and_leaves_no_trace(ov, ov_home, tmp_path, command) -> None:
    """(an audit: `ov rm --account tpyo ...` said the file did not exist and left an empty
    state/tpyo/, its lock's folder.) What it would change is not there: the account is named, before
    any lock is taken, and nothing of it is made."""
    assert ov("remember", "My editor is Neovim").exit_code == 0
    (tmp_path / "notes.md").write_text("# Notes\n")
    before = _accounts_and_state(ov_home)
    result = ov(*[a.format(tmp=tmp_path) for a in command], "--account", "tpyo", "--json")
    assert result.exit_code == 1, result.stderr
    assert result.error["code"] == "account_not_found"
    assert _accounts_and_state(ov_home) == before == (["default"], ["default"])


def test_a_change_on_a_new_install_says_what_is_missing_and_makes_no_folder(ov, ov_home) -> None:
    """No account at all yet: the file is what is missing, and no state/ or accounts/ appears."""
    result = ov("rm", "viking://resources/a.md", "--json")
    assert result.exit_code == 1 and result.error["code"] == "not_found"
    assert not (ov_home / "state").exists() and not (ov_home / "accounts").exists()


@pytest.mark.parametrize(
    ("command", "args"),
    [
        pytest.param("write", ("viking://resources/a.md", "--content", "a"), id="write"),
        pytest.param("mkdir", ("viking://resources/d",), id="mkdir"),
        pytest.param("remember", ("I prefer tabs",), id="remember"),
        pytest.param("add-resource", ("{tmp}/notes.md",), id="add-resource"),
        pytest.param("import", ("{tmp}/pack.ovpack", "viking://resources"), id="import"),
        pytest.param("session add", ("s1", "--text", "hello"), id="session-add"),
        pytest.param("init", (), id="init"),
    ],
)
def test_a_write_to_an_account_that_does_not_exist_creates_it(ov, ov_home, tmp_path, command, args) -> None:
    assert ov("write", "viking://resources/docs/a.md", "--content", "a").exit_code == 0
    (tmp_path / "notes.md").write_text("# Notes\n\nSome notes.\n")
    assert ov("export", "viking://resources/docs", str(tmp_path / "pack.ovpack")).exit_code == 0
    result = ov(*command.split(), *[a.format(tmp=tmp_path) for a in args], "--account", "new")
    assert result.exit_code == 0, result.stderr
    assert _accounts_and_state(ov_home)[0] == ["default", "new"]
    assert ov("ls", "--account", "new").exit_code == 0


def test_a_new_install_reads_as_an_empty_store_whatever_the_account(ov, ov_home) -> None:
    listed = ov("ls", "--account", "tpyo")
    assert listed.exit_code == 0 and listed.stdout.split() == ["viking://agent/", "viking://resources/", "viking://user/"]
    found = ov("find", "editor", "--account", "tpyo")
    assert (found.exit_code, found.stdout) == (0, "") and "no results" in found.stderr
    assert not (ov_home / "accounts").exists()


def test_the_default_account_not_yet_written_reads_as_empty_beside_others(ov, ov_home) -> None:
    assert ov("write", "viking://resources/a.md", "--content", "a", "--account", "work").exit_code == 0
    listed = ov("ls", "viking://resources")
    assert listed.exit_code == 0 and listed.stdout == ""
    assert ov("find", "anything").exit_code == 0
    assert _accounts_and_state(ov_home)[0] == ["work"]
