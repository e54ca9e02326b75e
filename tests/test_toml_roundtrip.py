"""tomlkit as the editor of Codex's config.toml: what it preserves, what it does not, how it fails.

The Codex installer adds ``hooks = true`` under ``[features]`` and a ``[mcp_servers.ov]`` table, and
its uninstall must give the file back byte for byte. These tests pin what tomlkit does with a
realistic config: the edits above round-trip exactly when the tables they touch already exist;
a table that tomlkit has to append at the end of the file leaves its blank line behind, and
lines it adds to a CRLF file end in LF. Uninstall runs in another process than install, so every
removal here works on a fresh parse of the installed text.
"""

from __future__ import annotations

import re

import pytest
import tomlkit
from tomlkit.exceptions import ParseError

from ov.hosts.jsonc import ConfigFileInvalid

CODEX_CONFIG = """\
# Codex configuration (~/.codex/config.toml)
model = "gpt-5-codex"
model_provider = "azure"
approval_policy = "on-request"   # ask before running commands

[model_providers.azure]
name = "Azure"
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_OPENAI_API_KEY"
query_params = { api-version = "2025-04-01-preview" }

# MCP servers
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
env = { "CONTEXT7_KEY" = "xyz", DEBUG = "1" }

[projects."/home/me/code/app"]
trust_level = "trusted"

[hooks.state."/home/me/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:0f1e"

[features]
web_search_request = true # beta
"""


def install(text: str) -> str:
    """What the Codex installer would do: ``[features] hooks = true`` and a ``[mcp_servers.ov]`` table."""
    doc = tomlkit.parse(text)
    if "features" not in doc:
        doc["features"] = tomlkit.table()
    doc["features"]["hooks"] = True
    if "mcp_servers" not in doc:
        doc["mcp_servers"] = tomlkit.table(is_super_table=True)
    server = tomlkit.table()
    server["command"] = "ov"
    server["args"] = ["mcp"]
    server["env"] = tomlkit.parse('env = { OV_HOME = "/home/me/.ov" }\n')["env"]  # Codex's own spacing inside the braces
    server.add(tomlkit.nl())  # a blank line before the table that follows, as the rest of the file has
    doc["mcp_servers"]["ov"] = server
    return doc.as_string()


def uninstall(text: str) -> str:
    doc = tomlkit.parse(text)
    del doc["features"]["hooks"]
    if not doc["features"]:
        del doc["features"]
    del doc["mcp_servers"]["ov"]
    if not doc["mcp_servers"]:
        del doc["mcp_servers"]
    return doc.as_string()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_an_unedited_config_prints_back_byte_for_byte(newline):
    text = CODEX_CONFIG.replace("\n", newline)
    assert tomlkit.parse(text).as_string() == text


def test_install_adds_only_ov_s_entries_and_uninstall_restores_every_byte():
    installed = install(CODEX_CONFIG)
    assert installed == CODEX_CONFIG.replace(
        'env = { "CONTEXT7_KEY" = "xyz", DEBUG = "1" }\n',
        'env = { "CONTEXT7_KEY" = "xyz", DEBUG = "1" }\n\n'
        '[mcp_servers.ov]\ncommand = "ov"\nargs = ["mcp"]\nenv = { OV_HOME = "/home/me/.ov" }\n',
    ).replace("web_search_request = true # beta\n", "web_search_request = true # beta\nhooks = true\n")
    value = tomlkit.parse(installed).unwrap()
    assert value["features"] == {"web_search_request": True, "hooks": True}
    assert value["mcp_servers"]["ov"] == {"command": "ov", "args": ["mcp"], "env": {"OV_HOME": "/home/me/.ov"}}
    assert value["hooks"]["state"]["/home/me/.codex/hooks.json:pre_tool_use:0:0"] == {"trusted_hash": "sha256:0f1e"}
    assert uninstall(installed) == CODEX_CONFIG


def test_in_a_crlf_config_the_added_lines_end_in_lf_but_uninstall_still_restores_it():
    text = CODEX_CONFIG.replace("\n", "\r\n")
    installed = install(text)
    assert "hooks = true\n" in installed and "hooks = true\r\n" not in installed  # mixed line ends while installed
    assert uninstall(installed) == text


@pytest.mark.parametrize(
    "text",
    [
        # No [features] or [mcp_servers] yet: tomlkit appends them with a blank line before each;
        # parsed again, that blank line belongs to the table above, so removal leaves it.
        pytest.param(CODEX_CONFIG.split("[features]")[0].rstrip("\n") + "\n", id="new tables at the end"),
        pytest.param('model = "o3"\n', id="only top-level keys"),
        pytest.param("# nothing yet\n", id="only a comment"),
        # No final newline: tomlkit ends the last line to append after it, and nothing takes that back.
        pytest.param(CODEX_CONFIG.rstrip("\n"), id="no final newline"),
    ],
)
def test_where_tomlkit_cannot_restore_the_bytes_one_newline_is_left_at_the_end(text):
    restored = uninstall(install(text))
    assert restored == text + "\n"
    assert tomlkit.parse(restored).unwrap() == tomlkit.parse(text).unwrap()


def test_an_existing_table_keeps_its_comments_and_blank_lines_when_ov_s_key_comes_and_goes():
    text = "[features]\n# keep me\nweb_search_request = true # beta\n\n[other]\nx = 1\n"
    doc = tomlkit.parse(text)
    doc["features"]["hooks"] = True
    installed = doc.as_string()
    assert installed == "[features]\n# keep me\nweb_search_request = true # beta\nhooks = true\n\n[other]\nx = 1\n"
    again = tomlkit.parse(installed)
    del again["features"]["hooks"]
    assert again.as_string() == text


def _config_file_invalid(error: ParseError, name: str) -> ConfigFileInvalid:
    """How an installer reports a tomlkit error like a JSONC one: tomlkit's line is 1-based, its column 0-based."""
    problem = re.sub(r" at line \d+ col \d+$", "", str(error))
    return ConfigFileInvalid(name, error.line, error.col + 1, problem)


@pytest.mark.parametrize(
    ("text", "line", "col", "problem"),
    [
        pytest.param('model = "o3"\n[features\nhooks = true\n', 2, 9, "Unexpected character: '\\n'", id="unclosed table header"),
        pytest.param("a = 1\nb = 2\nc = @\n", 3, 4, "Unexpected character: '@'", id="bad value"),
        pytest.param('[t]\nk = "x\n', 2, 6, "Control characters (codes less than 0x1f and 0x7f) are not allowed in strings", id="unterminated string"),
        pytest.param("[a]\nb = 1\n[a]\nc = 2\n", 4, 0, 'Key "a" already exists.', id="table defined twice"),
        pytest.param("x = 1979-13-01\n", 1, 14, "Invalid date", id="invalid date"),
        # At the end of the file tomlkit loses its place: it reports line 1, column 0.
        pytest.param("k = [1, 2\n", 1, 0, "Unexpected character: '\\x00'", id="unterminated array"),
    ],
)
def test_malformed_toml_raises_a_parse_error_with_line_and_column(text, line, col, problem):
    with pytest.raises(ParseError) as caught:
        tomlkit.parse(text)
    error = caught.value
    assert (error.line, error.col) == (line, col)
    assert str(error).startswith(problem) and str(error).endswith(f" at line {line} col {col}")
    reported = _config_file_invalid(error, "~/.codex/config.toml")
    assert reported.message.startswith(f"~/.codex/config.toml line {line}, column {col + 1}: {problem}")
    assert "ov never rewrites a file it cannot parse" in reported.hint
