"""ov's table in Codex's config.toml, put in and taken out by its lines (ov.hosts.tomltable).

Every test checks what the text parses to as well as its bytes: an edit that cut inside a
multi-line string, or left a subtable behind, wrote TOML that Codex refused to load.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ov.hosts import tomltable
from ov.hosts.install import HostConfigError

NAME = Path("~/.codex/config.toml")
OV = ("mcp_servers", "ov")
ENTRY = {"command": "/home/me/.venv/bin/ov", "args": ["mcp"], "required": True, "default_tools_approval_mode": "approve", "env": {"OV_HOME": "/home/me/.ov"}}
BLOCK = '[mcp_servers.ov]\ncommand = "/home/me/.venv/bin/ov"\nargs = ["mcp"]\nrequired = true\ndefault_tools_approval_mode = "approve"\nenv = { OV_HOME = "/home/me/.ov" }\n'


def put(text: str, value: dict = ENTRY) -> str:
    after = tomltable.put(text, tomllib.loads(text), OV, value, NAME)
    assert tomllib.loads(after) == {**tomllib.loads(text), "mcp_servers": {**tomllib.loads(text).get("mcp_servers", {}), "ov": value}}
    return after


def drop(text: str) -> str:
    after = tomltable.drop(text, tomllib.loads(text), OV, NAME)
    assert "ov" not in tomllib.loads(after).get("mcp_servers", {})
    return after


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('model = "gpt-5"\n', id="a key"),
        pytest.param("", id="empty"),
        pytest.param("\n\n", id="blank lines"),
        pytest.param('model = "gpt-5"', id="no final newline"),
        pytest.param("# only a comment", id="a comment, no final newline"),
        pytest.param('model = "gpt-5"\r\n\r\n[mcp_servers.docs]\r\ncommand = "docs"\r\n', id="CRLF"),
        pytest.param('model = "gpt-5"\r\n[features]\r\nhooks = true', id="CRLF, no final newline"),
        pytest.param('[mcp_servers]\ndocs = { command = "docs" }\n# the end\n', id="servers as keys of [mcp_servers]"),
    ],
)
def test_a_table_put_in_and_taken_out_gives_back_every_byte(text):
    installed = put(text)
    newline = "\r\n" if "\r\n" in text else "\n"
    assert installed.startswith(text) and BLOCK.replace("\n", newline).rstrip(newline) in installed
    assert put(installed) == installed  # a second put changes nothing
    assert drop(installed) == text


def test_the_table_goes_after_one_blank_line_and_keeps_a_missing_final_newline_missing():
    assert put('model = "gpt-5"\n') == 'model = "gpt-5"\n\n' + BLOCK
    assert put('model = "gpt-5"') == 'model = "gpt-5"\n\n' + BLOCK.removesuffix("\n")
    assert put("") == BLOCK


def test_the_table_goes_with_its_subtables_and_the_blank_lines_before_them():
    """A [mcp_servers.ov.tools.remember] the user added: left behind, it was a server without a
    command, and Codex refused to start ("invalid transport in `mcp_servers.ov`")."""
    text = 'model = "gpt-5"\n'
    installed = put(text) + '\n[mcp_servers.ov.tools.remember]\napproval_mode = "prompt"\n\n[profiles.p]\nmodel = "o3"\n'
    assert drop(installed) == text + '\n[profiles.p]\nmodel = "o3"\n'


def test_a_header_inside_a_multi_line_string_is_text_not_a_table():
    """The installer used to cut the file from the first line reading [mcp_servers.ov], here inside
    a string, to its end: the user's keys were lost and the string left unterminated."""
    strings = (
        '[profiles.x]\ninstructions = """\nnotes\n[mcp_servers.ov]\ncommand = "fake"\n"""\nkeep = 1\n'
        "literal = '''\n[mcp_servers.ov]\n'''\n"
        'quotes = """ends with two quotes"" """\n'
        'escaped = """\\"""\n[mcp_servers.ov]\n"""\n'
        "matrix = [\n  [1, 2], # [mcp_servers.ov]\n  [3],\n]\n"
        'mixed = [\n"[mcp_servers.ov]",\n]\n'
    )
    assert tomllib.loads(strings)["profiles"]["x"]["keep"] == 1
    installed = put(strings)
    assert installed == strings + "\n" + BLOCK
    assert drop(installed) == strings
    # ov's table above the string: the string and everything after it stay.
    above = put("") + "\n" + strings
    assert drop(above) == strings


def test_dotted_keys_through_the_table_go_too():
    text = '[mcp_servers]\ndocs.command = "docs"\nov.command = "/x/ov"\nov.args = ["mcp"]\n"ov".env.OV_HOME = "/h"\n\n[other]\nx = 1\n'
    assert drop(text) == '[mcp_servers]\ndocs.command = "docs"\n\n[other]\nx = 1\n'
    root = 'a = 1\nmcp_servers.ov.command = "/x/ov"\nb = 2\n'
    assert drop(root) == "a = 1\nb = 2\n"
    # Put: the keys go, and the table is appended (no header of ov's to put it at).
    assert put(root) == "a = 1\nb = 2\n\n" + BLOCK


def test_a_table_codex_wrote_is_updated_where_it_is():
    """`codex mcp add ov --env OV_HOME=… -- ov mcp` writes [mcp_servers.ov] and an
    [mcp_servers.ov.env] subtable; the install refused it as "Cannot overwrite a value"."""
    text = (
        'model = "gpt-5"\n\n[mcp_servers.ov]\ncommand = "/old/ov"\nargs = ["mcp"]\n\n[mcp_servers.ov.env]\nOV_HOME = "/h"\n\n'
        '[mcp_servers.docs]\ncommand = "docs"\n'
    )
    installed = put(text)
    assert installed == 'model = "gpt-5"\n\n' + BLOCK + '\n[mcp_servers.docs]\ncommand = "docs"\n'
    assert drop(installed) == 'model = "gpt-5"\n\n[mcp_servers.docs]\ncommand = "docs"\n'


def test_a_table_first_in_the_file_takes_the_blank_line_after_it_along():
    assert drop(BLOCK + '\n[other]\nx = 1\n') == "[other]\nx = 1\n"
    # A comment after ov's last key belongs to what follows it.
    assert drop(BLOCK + '# the other one\n[other]\nx = 1\n') == "# the other one\n[other]\nx = 1\n"


def test_quoted_and_spaced_keys_name_the_same_table():
    text = 'x = 1\n\n[ mcp_servers . "ov" ]  # mine\ncommand = "/x/ov"\n[mcp_servers.\'ov\'.env]\nA = "1"\n'
    assert drop(text) == "x = 1\n"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param('mcp_servers = { docs = { command = "docs" } }\n', 1, id="inline, without ov"),
        pytest.param('model = "o3"\nmcp_servers = { ov = { command = "/x/ov", args = ["mcp"] } }\n', 2, id="inline, with ov"),
        pytest.param('[mcp_servers]\nov = { command = "/x/ov" }\n[profiles]\nmcp_servers = 1\n', None, id="inline ov under [mcp_servers] (removable)"),
    ],
)
def test_an_inline_mcp_servers_value_is_a_layout_ov_cannot_edit(text, line):
    """The install said "Cannot declare ('mcp_servers', 'ov') twice", blaming the user's valid file."""
    if line is None:
        assert drop(text) == "[mcp_servers]\n[profiles]\nmcp_servers = 1\n"
        return
    with pytest.raises(HostConfigError) as caught:
        put(text)
    message = caught.value.message
    assert message.startswith(f"{NAME}: ov cannot add its entry to this file's layout: `mcp_servers` is one inline value (line {line})")
    assert "[mcp_servers.<name>] tables" in caught.value.hint and "cannot read" not in caught.value.hint
    if "ov =" in text:
        with pytest.raises(HostConfigError, match="ov cannot take its entry out of this file's layout"):
            drop(text)


def test_a_table_in_the_way_is_named():
    with pytest.raises(HostConfigError, match=r"`mcp_servers` holds an array, not a table"):
        tomltable.get(tomllib.loads("[[mcp_servers]]\nx = 1\n"), OV, NAME)
    with pytest.raises(HostConfigError, match=r"`mcp_servers` holds an integer, not a table"):
        put("mcp_servers = 1\n")


def test_an_edit_that_would_not_read_as_intended_writes_nothing():
    """The last check: the edited text must parse to exactly the intended change. Here the values
    handed in are not the text's, as an edit the scan got wrong would be."""
    text = 'model = "gpt-5"\n'
    with pytest.raises(HostConfigError, match="ov cannot add its entry \\[mcp_servers.ov\\] to this file's layout"):
        tomltable.put(text, {"model": "o3"}, OV, ENTRY, NAME)
    installed = put(text)
    with pytest.raises(HostConfigError, match="ov cannot take its entry \\[mcp_servers.ov\\] out of this file's layout"):
        tomltable.drop(installed, {**tomllib.loads(installed), "model": "o3"}, OV, NAME)


def test_values_are_written_as_toml_reads_them():
    odd = {"command": 'C:\\tools\\ov "1"', "args": ["mcp", "ünïcode 😀", "tab\there\x7f"], "required": True, "env": {"A KEY": "v", "B": "x"}}
    installed = put("", odd)
    assert 'env = { "A KEY" = "v", B = "x" }' in installed and "😀" in installed


def test_an_unreadable_file_is_refused_with_its_line():
    with pytest.raises(HostConfigError, match=r"line 2"):
        tomltable.read(b"a = 1\nb = \n", NAME)
    with pytest.raises(HostConfigError, match=r"is not UTF-8 text \(byte 4\)"):
        tomltable.read(b"a = \xff\n", NAME)


# --- any file: generated configs -----------------------------------------------------------------

_TEXT = st.sampled_from(["[mcp_servers.ov]", "[mcp_servers.ov.env]", "[x]", "a = 1", '"', "'", "#", "", "  ", "\\\\"])
_NAMES = st.sampled_from(["a", "b-c", '"q.uoted"', "mcp_servers.docs", "profiles.p", "mcp_servers.docs.env", "model"])


@st.composite
def _value(draw) -> str:
    kind = draw(st.sampled_from(["int", "basic", "literal", "multi", "multi-literal", "array", "inline"]))
    lines = draw(st.lists(_TEXT, max_size=4))
    if kind == "int":
        return str(draw(st.integers(-5, 5)))
    if kind == "basic":
        return '"' + " ".join(lines).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind == "literal":
        return "'" + " ".join(lines).replace("'", "") + "'"
    if kind == "multi":
        return '"""\n' + "\n".join(lines).replace("\\", "\\\\").replace('"', '\\"') + '"""'
    if kind == "multi-literal":
        return "'''\n" + "\n".join(lines).replace("'", "") + "'''"
    if kind == "array":
        return "[\n" + "".join(f'  [{n}], # {"".join(lines)}\n' for n in range(draw(st.integers(0, 3)))) + "]"
    return "{ k = 1, s = \"[mcp_servers.ov]\" }"


@st.composite
def _config(draw) -> str:
    lines = []
    for i, kind in enumerate(draw(st.lists(st.sampled_from(["table", "key", "blank", "comment"]), max_size=10))):
        if kind == "table":
            name = draw(_NAMES)
            lines.append(f"[{name}]" if draw(st.booleans()) else f"[{name}.t{i}]")
        elif kind == "key":
            lines.append(f"k{i} = {draw(_value())}")
        else:
            lines.append("" if kind == "blank" else "# " + draw(_TEXT))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + draw(st.sampled_from([newline, ""]))


@settings(max_examples=300, deadline=None)
@given(_config())
def test_any_config_comes_back_byte_for_byte(text):
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # two tables of one name, a key twice: not a config Codex would load either
    installed = put(text)
    assert drop(installed) == text
    # With the user's own subtable added to ov's table, the uninstall still takes all of ov's out.
    newline = "\r\n" if "\r\n" in installed else "\n"
    extended = installed + newline + newline.join(["[mcp_servers.ov.tools.find]", 'approval_mode = "prompt"', ""])
    assert tomllib.loads(drop(extended)) == tomllib.loads(text)
