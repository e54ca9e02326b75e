"""Bad input: a clear message, exit code 1 or 2, and the store exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\xff"


@pytest.fixture
def seeded(ov, ov_home: Path, tmp_path: Path):
    assert ov("write", "viking://resources/docs/a.md", "--content", "alpha\nbeta\nalpha\n").exit_code == 0
    assert ov("write", "viking://resources/docs/b.md", "--content", "bee\n").exit_code == 0
    assert ov("mkdir", "viking://resources/empty", "--description", "nothing yet").exit_code == 0
    (tmp_path / "blob.bin").write_bytes(BINARY)
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    return tmp_path


CASES = [
    # (id, argv, exit code, error code, words the message must contain)
    ("traversal-read", ["read", "viking://resources/../../etc/passwd"], 2, "invalid_uri", "'..' segment"),
    ("traversal-write", ["write", "viking://resources/../../etc/x", "--content", "x"], 2, "invalid_uri", "'..' segment"),
    ("traversal-rm", ["rm", "-r", "viking://resources/docs/.."], 2, "invalid_uri", "'..' segment"),
    ("dot-segment", ["write", "viking://resources/./x.md", "--content", "x"], 2, "invalid_uri", "'.' segment"),
    ("internal-scope-temp", ["write", "viking://temp/x.md", "--content", "x"], 2, "invalid_uri", "internal"),
    ("internal-scope-queue", ["ls", "viking://queue"], 2, "invalid_uri", "internal"),
    ("unknown-scope", ["write", "viking://secrets/x.md", "--content", "x"], 2, "invalid_uri", "invalid scope"),
    ("not-a-uri", ["read", "resources/docs/a.md"], 2, "invalid_uri", "not a viking:// URI"),
    ("backslash", ["write", "viking://resources\\..\\x", "--content", "x"], 2, "invalid_uri", "backslash"),
    ("drive-letter", ["write", "viking://resources/C:/x", "--content", "x"], 2, "invalid_uri", "drive-letter"),
    ("git-dir", ["write", "viking://resources/.git/config", "--content", "x"], 2, "invalid_uri", "reserved"),
    ("long-segment", ["write", "viking://resources/" + "x" * 300, "--content", "x"], 2, "invalid_uri", "bytes"),
    ("bad-user-flag", ["write", "viking://~/notes.md", "--content", "x", "--user", "../evil"], 2, "invalid_id", "user id"),
    ("bad-account-flag", ["write", "viking://resources/x.md", "--content", "x", "--account", "a b"], 2, "invalid_id", "account id"),
    ("bad-user-in-uri", ["write", "viking://user/bad$id/x.md", "--content", "x"], 2, "invalid_uri", "user id"),
    ("uidless-user-uri", ["write", "viking://user/memories/x.md", "--content", "x"], 2, "invalid_uri", "no user id"),
    ("write-to-directory", ["write", "viking://resources/docs", "--content", "x"], 1, "is_directory", "is a directory"),
    ("write-to-scope", ["write", "viking://resources", "--content", "x"], 2, "invalid_input", "scope"),
    ("write-under-file", ["write", "viking://resources/docs/a.md/x.md", "--content", "x"], 1, "not_directory", "is a file"),
    ("read-missing", ["read", "viking://resources/docs/missing.md"], 1, "not_found", "does not exist"),
    ("read-directory", ["read", "viking://resources/docs"], 1, "is_directory", "is a directory"),
    ("ls-missing", ["ls", "viking://resources/nowhere"], 1, "not_found", "does not exist"),
    ("stat-missing", ["stat", "viking://resources/nowhere"], 1, "not_found", "does not exist"),
    ("mv-onto-file", ["mv", "viking://resources/docs/a.md", "viking://resources/docs/b.md"], 1, "already_exists", "already exists"),
    ("mv-missing", ["mv", "viking://resources/nope.md", "viking://resources/new.md"], 1, "not_found", "does not exist"),
    ("mv-into-itself", ["mv", "viking://resources/docs", "viking://resources/docs/sub"], 2, "invalid_input", "into itself"),
    ("edit-no-match", ["edit", "viking://resources/docs/a.md", "--old", "gamma", "--new", "x"], 1, "no_match", "not found"),
    ("edit-ambiguous", ["edit", "viking://resources/docs/a.md", "--old", "alpha", "--new", "x"], 1, "ambiguous_match", "2 times"),
    ("edit-missing-file", ["edit", "viking://resources/docs/zzz.md", "--old", "a", "--new", "b"], 1, "not_found", "does not exist"),
    ("edit-empty-old", ["edit", "viking://resources/docs/a.md", "--old", "", "--new", "b"], 2, "invalid_input", "empty"),
    ("write-create-existing", ["write", "viking://resources/docs/a.md", "--content", "x", "--mode", "create"], 1, "already_exists", "already exists"),
    ("mkdir-existing", ["mkdir", "viking://resources/docs"], 1, "already_exists", "already exists"),
    ("mkdir-long-description", ["mkdir", "viking://resources/new", "--description", "d" * 300], 2, "invalid_input", "256"),
    ("rm-nonempty", ["rm", "viking://resources/docs"], 1, "not_empty", "not empty"),
    ("rm-root", ["rm", "-r", "viking://"], 2, "invalid_input", "whole store"),
    ("rm-missing", ["rm", "viking://resources/ghost.md"], 1, "not_found", "does not exist"),
    ("grep-bad-regex", ["grep", "(unclosed"], 2, "invalid_input", "regular expression"),
    ("read-bad-range", ["read", "viking://resources/docs/a.md", "--lines", "x:y"], 2, "invalid_input", "line range"),
    ("read-range-past-end", ["read", "viking://resources/docs/a.md", "--lines", "9:10"], 2, "invalid_input", "has 3 lines"),
    ("write-both-sources", ["write", "viking://resources/x.md", "--content", "a", "--from-file", "/etc/hostname"], 2, "invalid_input", "not both"),
    ("write-no-content", ["write", "viking://resources/x.md"], 2, "invalid_input", "no content"),
    ("write-missing-source-file", ["write", "viking://resources/x.md", "--from-file", "/nonexistent/file"], 2, "invalid_input", "cannot read"),
    ("bad-mode", ["write", "viking://resources/x.md", "--content", "a", "--mode", "sideways"], 2, "usage", "sideways"),
    ("unknown-option", ["ls", "--bogus"], 2, "usage", "--bogus"),
    ("abstract-of-file", ["abstract", "viking://resources/docs/a.md"], 1, "not_directory", "is a file"),
    ("overview-missing", ["overview", "viking://resources/docs"], 1, "not_found", "no overview"),
    ("config-set-unknown", ["config", "set", "store.nope", "1"], 2, "config_invalid", "unknown config key"),
    ("config-set-bad-value", ["config", "set", "store.lock_timeout", "soon"], 2, "config_invalid", "lock_timeout"),
    ("snapshot-empty-message", ["snapshot", "commit", "-m", " "], 2, "invalid_input", "message"),
]


@pytest.mark.parametrize("argv, exit_code, code, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_changes_nothing(ov, seeded, store_state, argv, exit_code, code, words):
    before = store_state()
    result = ov(*argv, "--json")
    assert result.exit_code == exit_code, result.stderr
    assert result.stdout == ""
    error = result.error
    assert error["code"] == code
    assert words in error["message"]
    assert store_state() == before


@pytest.mark.parametrize("source", ["blob.bin", "latin1.txt"])
def test_binary_file_content_is_refused(ov, seeded, store_state, source):
    before = store_state()
    result = ov("write", "viking://resources/img.png", "--from-file", str(seeded / source), "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "binary_content"
    assert "not UTF-8 text" in result.error["message"]
    assert store_state() == before


def test_binary_stdin_is_refused(ov, seeded, store_state):
    before = store_state()
    result = ov("write", "viking://resources/img.png", stdin=BINARY)
    assert result.exit_code == 2
    assert "not UTF-8 text" in result.stderr
    assert store_state() == before


def test_config_that_does_not_parse(ov, seeded, store_state, ov_home):
    before = store_state()
    (ov_home / "config.yaml").write_text("identity:\n  user: [unclosed\n")
    result = ov("write", "viking://resources/new.md", "--content", "x", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "config_invalid"
    assert "does not parse as YAML" in result.error["message"]
    assert "line" in result.error["message"]
    assert store_state() == before


def test_bad_account_from_environment(ov, seeded, store_state, monkeypatch):
    before = store_state()
    monkeypatch.setenv("OV_ACCOUNT", "../../etc")
    result = ov("ls", "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_id"
    assert "env OV_ACCOUNT" in result.error["message"]
    assert store_state() == before


def test_human_error_output_has_message_and_hint(ov, seeded):
    result = ov("read", "viking://resources/docs/missing.md")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: viking://resources/docs/missing.md does not exist")
    assert "hint: see what is there with `ov ls viking://resources/docs`" in result.stderr


def test_oversized_write_is_refused(ov, seeded, store_state):
    assert ov("config", "set", "store.max_file_bytes", "10").exit_code == 0
    before = store_state()
    result = ov("write", "viking://resources/big.md", "--content", "x" * 11, "--json")
    assert result.exit_code == 2
    assert "over the 10-byte limit" in result.error["message"]
    result = ov("write", "viking://resources/docs/b.md", "--content", "y" * 8, "--mode", "append", "--json")
    assert result.exit_code == 2, "append must count the whole resulting file"
    assert store_state() == before
