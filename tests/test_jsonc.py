"""The JSON/JSONC editor the host installers use: edits touch only ov's entries, and undo to the byte.

Table tests pin the exact text for each layout hosts write (pretty-printed with 2 or 4 spaces or
tabs, one line, minified, CRLF, comments everywhere, trailing commas, empty containers); property
tests render random values in random layouts and check parsing, random edit sequences and that
every insertion is undone byte for byte by the matching removal.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ov.errors import InvalidInput
from ov.hosts import jsonc
from ov.hosts.jsonc import ConfigFileInvalid

JSONC = {"comments": True, "trailing_commas": True}
OV_ENTRY = {"command": "ov hook", "é": [1]}


def doc(*lines: str, nl: str = "\n", final: bool = True) -> str:
    """A file's text from its lines."""
    return nl.join(lines) + (nl if final else "")


# --- the layouts -----------------------------------------------------------------------------

LAYOUTS = [
    pytest.param(doc("{", '  "model": "opus",', '  "list": [', "    1", "  ]", "}"), {}, id="2 spaces"),
    pytest.param(doc("{", '    "model": "opus",', '    "list": [', "        1", "    ]", "}", final=False), {}, id="4 spaces, no final newline"),
    pytest.param(doc("{", '\t"model": "opus",', '\t"list": [', "\t\t1", "\t]", "}"), {}, id="tabs"),
    pytest.param(doc("{", '  "model": "opus",', '  "list": [', "    1", "  ]", "}", nl="\r\n"), {}, id="CRLF"),
    pytest.param('{"model": "opus", "list": [1, 2]}', {}, id="one line"),
    pytest.param('{"model":"opus","list":[1,2]}\n', {}, id="minified"),
    pytest.param(doc("{}"), {}, id="empty object"),
    pytest.param(doc("{", '  "model": "opus",', '  "list": []', "}"), {}, id="empty array"),
    pytest.param(
        doc(
            "// settings for the team",
            "{",
            "  // the model",
            '  "model": "opus", // pinned',
            "  /* the list */",
            '  "list": [',
            "    1, // one",
            "    2 /* two */",
            "  ] // end of list",
            "}",
            "// the end",
        ),
        {"comments": True},
        id="comments before, after and inside siblings",
    ),
    pytest.param(doc("{", '  "model": "opus",', '  "list": [', "    1,", "  ],", "}"), JSONC, id="trailing commas"),
    pytest.param(doc("{", '  "model": "opus",', '  "list": [', "    1", "  ]", "}"), JSONC, id="JSONC without trailing commas"),
    pytest.param(doc('{"model": "opus",', ' "list": [1,', "          2]}"), {}, id="closing brackets on the last line"),
    pytest.param(doc("{", '  "name": "Zoë – 東京 😀",', '  "list": ["é"]', "}"), {}, id="non-ASCII"),
    pytest.param(doc("{", "  // nothing here yet", "}"), JSONC, id="only a comment inside"),
    pytest.param(doc("\ufeff{", '  "list": [', "    1", "  ]", "}"), {}, id="byte-order mark"),
]


@pytest.mark.parametrize(("text", "flags"), LAYOUTS)
def test_parsing_and_printing_unedited_gives_the_same_text(text, flags):
    document = jsonc.parse(text, **flags)
    assert document.text() == text
    if not flags:
        assert document.value() == json.loads(text.lstrip("\ufeff"))


@pytest.mark.parametrize(("text", "flags"), LAYOUTS)
def test_an_added_member_removed_again_gives_back_every_byte(text, flags):
    document = jsonc.parse(text, **flags)
    document.set(("ov",), OV_ENTRY)
    assert document.value()["ov"] == OV_ENTRY
    assert jsonc.parse(document.text(), **flags).value() == document.value()
    assert document.remove(("ov",))
    assert document.text() == text


@pytest.mark.parametrize(("text", "flags"), [layout for layout in LAYOUTS if '"list"' in layout.values[0]])
def test_an_appended_element_removed_again_gives_back_every_byte(text, flags):
    document = jsonc.parse(text, **flags)
    index = document.append(("list",), {"ov": True})
    assert document.value(("list", index)) == {"ov": True}
    assert document.remove(("list", index))
    assert document.text() == text


@pytest.mark.parametrize(("text", "flags"), LAYOUTS)
def test_parents_made_by_an_append_are_pruned_by_its_removal(text, flags):
    document = jsonc.parse(text, **flags)
    document.append(("hooks", "PreToolUse"), {"matcher": "", "hooks": [{"type": "command", "command": "ov hook"}]})
    assert document.value(("hooks",)) == {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "ov hook"}]}]}
    assert document.remove(("hooks", "PreToolUse", 0), prune=True)
    assert document.text() == text


# --- exact results ---------------------------------------------------------------------------

SETS = [
    pytest.param(
        doc("{", '  "model": "opus",', '  "list": [', "    1", "  ]", "}"),
        {},
        doc("{", '  "model": "opus",', '  "list": [', "    1", "  ],", '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "}"),
        id="2 spaces",
    ),
    pytest.param(
        doc("{", '    "model": "opus"', "}", final=False),
        {},
        doc("{", '    "model": "opus",', '    "ov": {', '        "command": "ov hook",', '        "é": [', "            1", "        ]", "    }", "}", final=False),
        id="4 spaces, no final newline",
    ),
    pytest.param(
        doc("{", '\t"model": "opus"', "}"),
        {},
        doc("{", '\t"model": "opus",', '\t"ov": {', '\t\t"command": "ov hook",', '\t\t"é": [', "\t\t\t1", "\t\t]", "\t}", "}"),
        id="tabs",
    ),
    pytest.param(
        doc("{", '  "model": "opus"', "}", nl="\r\n"),
        {},
        doc("{", '  "model": "opus",', '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "}", nl="\r\n"),
        id="CRLF",
    ),
    pytest.param('{"model": "opus", "list": [1, 2]}', {}, '{"model": "opus", "list": [1, 2], "ov": {"command": "ov hook", "é": [1]}}', id="one line"),
    pytest.param('{"model":"opus"}\n', {}, '{"model":"opus","ov":{"command":"ov hook","é":[1]}}\n', id="minified"),
    pytest.param("{}", {}, doc("{", '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "}", final=False), id="empty object"),
    pytest.param(
        doc("{", '  "a": 1, // one', '  "model": "opus" // pinned', "  /* the end */", "}"),
        {"comments": True},
        doc("{", '  "a": 1, // one', '  "model": "opus", // pinned', '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "  /* the end */", "}"),
        id="after a trailing comment, before a closing comment",
    ),
    pytest.param(
        doc("{", '  "model": "opus" // pinned', "}"),
        {"comments": True},
        doc("{", '  "model": "opus", // pinned', '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "}"),
        id="the comma goes before the comment",
    ),
    pytest.param(
        doc("{", '  "model": "opus",', "}"),
        JSONC,
        doc("{", '  "model": "opus",', '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  },", "}"),
        id="a trailing comma is kept and given to the new member",
    ),
    pytest.param(
        doc("{", "  // nothing here yet", "}"),
        JSONC,
        doc("{", "  // nothing here yet", '  "ov": {', '    "command": "ov hook",', '    "é": [', "      1", "    ]", "  }", "}"),
        id="after the comments in an otherwise empty object",
    ),
]


@pytest.mark.parametrize(("text", "flags", "expected"), SETS)
def test_a_new_member_is_written_in_the_files_own_style(text, flags, expected):
    document = jsonc.parse(text, **flags)
    document.set(("ov",), OV_ENTRY)
    assert document.text() == expected
    document.remove(("ov",))
    assert document.text() == text


APPENDS = [
    pytest.param(doc("{", '  "list": [', "    1", "  ]", "}"), {}, doc("{", '  "list": [', "    1,", '    "ov"', "  ]", "}"), id="2 spaces"),
    pytest.param(doc("{", '  "list": []', "}"), {}, doc("{", '  "list": [', '    "ov"', "  ]", "}"), id="empty array on its own line"),
    pytest.param(doc("{", '  "list": {"list": []}', "}"), {}, doc("{", '  "list": {"list": ["ov"]}', "}"), id="empty array inside a one-line object"),
    pytest.param(doc("{", '  "list": ["a", "b"]', "}"), {}, doc("{", '  "list": ["a", "b", "ov"]', "}"), id="one-line array in a pretty file"),
    pytest.param(doc("{", '  "list": [', "    1, 2, 3", "  ]", "}"), {}, doc("{", '  "list": [', '    1, 2, 3, "ov"', "  ]", "}"), id="several to a line"),
    pytest.param('{"list":[1,2]}', {}, '{"list":[1,2,"ov"]}', id="minified"),
    pytest.param(doc("{", '  "list": [', "    1, // one", "  ]", "}"), JSONC, doc("{", '  "list": [', "    1, // one", '    "ov",', "  ]", "}"), id="trailing comma and comment"),
    pytest.param(doc("{", '  "list": [', "    1 /* one */", "  ]", "}"), JSONC, doc("{", '  "list": [', "    1, /* one */", '    "ov"', "  ]", "}"), id="block comment"),
    pytest.param(doc('{"list": [1,', "          2]}"), {}, doc('{"list": [1,', "          2,", '          "ov"]}'), id="closing bracket on the last line"),
    pytest.param(doc("{", '  "x": 1', "}"), {}, doc("{", '  "x": 1,', '  "list": [', '    "ov"', "  ]", "}"), id="array made"),
]


@pytest.mark.parametrize(("text", "flags", "expected"), APPENDS)
def test_an_appended_element_is_written_in_the_files_own_style(text, flags, expected):
    document = jsonc.parse(text, **flags)
    path = ("list", "list") if isinstance(document.get(("list",)), dict) else ("list",)
    made = path not in document
    document.append(path, "ov")
    assert document.text() == expected
    document.remove((*path, -1), prune=made)  # an installer prunes only what it made
    assert document.text() == text


REMOVALS = [
    pytest.param(doc("{", '  "a": 1,', '  "b": 2,', '  "c": 3', "}"), ("b",), doc("{", '  "a": 1,', '  "c": 3', "}"), id="middle"),
    pytest.param(doc("{", '  "a": 1,', '  "b": 2,', '  "c": 3', "}"), ("a",), doc("{", '  "b": 2,', '  "c": 3', "}"), id="first"),
    pytest.param(doc("{", '  "a": 1,', '  "b": 2,', '  "c": 3', "}"), ("c",), doc("{", '  "a": 1,', '  "b": 2', "}"), id="last: the comma before it goes"),
    pytest.param(doc("{", '  "a": 1, // one', '  "b": 2 // two', "}"), ("b",), doc("{", '  "a": 1 // one', "}"), id="with its trailing comment"),
    pytest.param(doc("{", "  // about a", '  "a": 1,', '  "b": 2', "}"), ("a",), doc("{", "  // about a", '  "b": 2', "}"), id="a comment line above stays"),
    pytest.param(doc("{", '  "a": 1,', "", '  "b": 2,', "", '  "c": 3', "}"), ("b",), doc("{", '  "a": 1,', "", '  "c": 3', "}"), id="one blank line between groups"),
    pytest.param(doc("{", '  "a": 1,', "", '  "b": 2', "}"), ("b",), doc("{", '  "a": 1', "}"), id="no blank line left at the end"),
    pytest.param(doc("{", '  "a": {', '    "x": 1', "  },", '  "b": 2', "}"), ("a",), doc("{", '  "b": 2', "}"), id="a value on several lines"),
    pytest.param(doc("{", '  "a": 1', "}"), ("a",), "{}\n", id="the only member"),
    pytest.param('{"a": 1, "b": 2, "c": 3}', ("b",), '{"a": 1, "c": 3}', id="one line, middle"),
    pytest.param('{"a": 1, "b": 2, "c": 3}', ("c",), '{"a": 1, "b": 2}', id="one line, last"),
    pytest.param('{"a": 1, "b": 2, "c": 3}', ("a",), '{"b": 2, "c": 3}', id="one line, first"),
    pytest.param('{ "a": 1 }', ("a",), "{}", id="one line, only"),
    pytest.param('{"a": 1 /* one */, "b": 2}', ("b",), '{"a": 1 /* one */}', id="one line, comment before the comma"),
    pytest.param(doc("[", "  1, 2, 3", "]"), (1,), doc("[", "  1, 3", "]"), id="several to a line, middle"),
    pytest.param(doc("[", "  1, 2, 3", "]"), (-1,), doc("[", "  1, 2", "]"), id="several to a line, last"),
    pytest.param(doc("{", '  "a": 1, "b": 2,', '  "c": 3', "}"), ("b",), doc("{", '  "a": 1,', '  "c": 3', "}"), id="end of a shared line"),
    pytest.param(doc("{", '  "a": 1,', '  "b": 2,', "}"), ("b",), doc("{", '  "a": 1,', "}"), id="trailing comma kept"),
    pytest.param(doc("{", '  "a": 1,', '  "b": 2', "}", nl="\r\n"), ("b",), doc("{", '  "a": 1', "}", nl="\r\n"), id="CRLF"),
]


@pytest.mark.parametrize(("text", "path", "expected"), REMOVALS)
def test_a_removal_leaves_what_a_person_would_have_written(text, path, expected):
    document = jsonc.parse(text, **JSONC)
    assert document.remove(path)
    assert document.text() == expected


# --- the rest of the API ---------------------------------------------------------------------


def test_reading_values_and_paths():
    document = jsonc.parse(doc("{", '  "hooks": {"Stop": [{"command": "x"}]},', '  "n": 1e2', "}"))
    assert document.value() == {"hooks": {"Stop": [{"command": "x"}]}, "n": 100.0}
    assert document.value(("hooks", "Stop", -1, "command")) == "x"
    assert document.get(("hooks", "Missing"), "none") == "none"
    assert document.get(("n", "deeper")) is None  # a path through a number is simply absent
    assert ("hooks", "Stop", 0) in document and ("hooks", "Stop", 1) not in document
    with pytest.raises(KeyError):
        document.value(("nope",))
    assert document.remove(("nope",)) is False and document.remove(("hooks", "Stop", 5)) is False


def test_setting_an_equal_value_changes_nothing():
    text = doc("{", '  "n": 1e2,', '  "obj": {"b": 1,   "a": [true]}', "}")
    document = jsonc.parse(text)
    document.set(("n",), 100.0)
    document.set(("obj",), {"a": [True], "b": 1})
    assert document.text() == text
    document.set(("n",), 100)  # an int is another value than the float 100.0
    assert document.value(("n",)) == 100 and isinstance(document.value(("n",)), int)


def test_replacing_a_value_keeps_it_at_its_place_and_depth():
    document = jsonc.parse(doc("{", '  "a": 1,', '  "perms": {"allow": ["x"]},', '  "z": 2', "}"))
    document.set(("a",), {"k": [1]})
    document.set(("perms", "allow"), ["x", "y"])
    assert document.text() == doc("{", '  "a": {', '    "k": [', "      1", "    ]", "  },", '  "perms": {"allow": ["x", "y"]},', '  "z": 2', "}")


def test_set_makes_missing_parent_objects_at_the_end_of_the_deepest_existing_one():
    document = jsonc.parse(doc("{", '  "hooks": {', '    "Stop": []', "  }", "}"))
    document.set(("hooks", "PreToolUse", "ov"), True)
    assert document.text() == doc("{", '  "hooks": {', '    "Stop": [],', '    "PreToolUse": {', '      "ov": true', "    }", "  }", "}")


def test_a_file_with_no_value_is_an_empty_object_only_when_asked():
    for text in ["", "  \n", "// nothing yet\n"]:
        with pytest.raises(ConfigFileInvalid, match="expected a value, found the end of the file"):
            jsonc.parse(text, comments=True)
        document = jsonc.parse(text, comments=True, empty_as_object=True)
        assert document.value() == {} and document.text() == text
    document = jsonc.parse("", empty_as_object=True)
    document.append(("hooks", "Stop"), "ov")
    assert document.text() == doc("{", '  "hooks": {', '    "Stop": [', '      "ov"', "    ]", "  }", "}")
    document = jsonc.parse("// ours\r\n", comments=True, empty_as_object=True)
    document.set(("a",), 1)
    assert document.text() == doc("// ours", "{", '  "a": 1', "}", nl="\r\n")


def test_a_value_of_the_wrong_type_on_the_path_is_refused_with_its_place():
    document = jsonc.parse(doc("{", '  "hooks": "off"', "}"), name="~/.claude/settings.json")
    with pytest.raises(ConfigFileInvalid) as caught:
        document.set(("hooks", "Stop"), [])
    assert caught.value.message == "~/.claude/settings.json line 2, column 12: hooks is a string; ov expected an object there"
    with pytest.raises(ConfigFileInvalid, match="line 2, column 12: hooks is a string; ov expected an array there"):
        document.append(("hooks",), 1)
    with pytest.raises(ConfigFileInvalid, match="line 1, column 1: the top level is an object; ov expected an array"):
        document.append((0,), 1)
    with pytest.raises(IndexError):
        document.set(("list", 0, "x"), 1)


# --- errors ----------------------------------------------------------------------------------

ERRORS = [
    pytest.param(doc("{", '  "a": 1', '  "b": 2', "}"), {}, 3, 3, "expected ',' or '}', found '\"'", id="missing comma"),
    pytest.param(doc("[", "  1", "  2", "]"), {}, 3, 3, "expected ',' or ']', found '2'", id="missing comma in an array"),
    pytest.param(doc("{", '  "a": "abc', "}"), {}, 2, 8, "a string that is not closed", id="unterminated string"),
    pytest.param('{"a": 1}}', {}, 1, 9, "expected the end of the file after the top-level value, found '}'", id="stray closing brace"),
    pytest.param('{"a": [1, }', {}, 1, 11, "expected a value, found '}'", id="stray closing brace inside"),
    pytest.param(doc("{", "  // pinned", '  "a": 1', "}"), {}, 2, 3, "a comment, which plain JSON does not allow", id="comment in plain JSON"),
    pytest.param(doc("{", '  "a": 1,', '  "a": 2', "}"), {}, 3, 3, 'the key "a" appears twice in one object (first at line 2, column 3)', id="duplicate key"),
    pytest.param('{"a": 1,}', {"comments": True}, 1, 8, "a comma before '}' with no item after it", id="trailing comma where not allowed"),
    pytest.param("{a: 1}", JSONC, 1, 2, "expected a key (a string in double quotes) or '}', found 'a'", id="unquoted key"),
    pytest.param('{"a" 1}', {}, 1, 6, "expected ':' after the key \"a\", found '1'", id="missing colon"),
    pytest.param('{"a": 01}', {}, 1, 7, "an invalid number '01'", id="leading zero"),
    pytest.param('{"a": tru}', {}, 1, 7, "expected a value, found 'tru'", id="misspelt literal"),
    pytest.param('{"a": NaN}', {}, 1, 7, "expected a value, found 'NaN'", id="NaN"),
    pytest.param('{"a": "\\x"}', {}, 1, 8, "an invalid escape '\\x' in a string", id="bad escape"),
    pytest.param('{"a": "\t"}', {}, 1, 8, "a control character", id="raw tab in a string"),
    pytest.param("{\n  /* open", JSONC, 2, 3, "a comment that is never closed", id="unclosed comment"),
    pytest.param('{"a": 1', {}, 1, 8, "expected ',' or '}', found the end of the file", id="truncated"),
    pytest.param("[" * 200, {}, 1, 129, "nested more than 128 levels deep", id="too deep"),
]


@pytest.mark.parametrize(("text", "flags", "line", "column", "problem"), ERRORS)
def test_malformed_input_is_refused_with_the_file_line_and_column(text, flags, line, column, problem, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigFileInvalid) as caught:
        jsonc.parse(text, name=Path("~/.claude/settings.json"), **flags)
    error = caught.value
    assert isinstance(error, InvalidInput)
    assert (error.line, error.column) == (line, column)
    assert error.message.startswith(f"~/.claude/settings.json line {line}, column {column}: ")
    assert problem in error.problem
    assert "ov never rewrites a file it cannot parse" in error.hint
    assert error.to_dict()["code"] == "host_config_invalid"
    assert list(tmp_path.iterdir()) == []  # nothing written, not even beside the working directory


def test_an_unclosed_string_fails_at_once():
    # The string pattern is possessive: a backtracking one took seconds at 25 characters, years at 5,000.
    with pytest.raises(ConfigFileInvalid, match="line 1, column 5008: a control character"):
        jsonc.parse('{"a": "' + "a" * 5000 + "\x01")


def test_the_module_never_touches_the_file_system():
    tree = ast.parse(Path(jsonc.__file__).read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "json", "os", "re", "dataclasses", "typing", "ov.errors"}
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    attributes = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os"}
    assert "open" not in calls and attributes <= {"fspath", "PathLike"}


# --- properties ------------------------------------------------------------------------------

PROPERTIES = settings(max_examples=200, deadline=None, database=None)

KEYS = st.one_of(st.sampled_from(["hooks", "", "é", 'q"uote', "back\\slash", "line\nbreak", "//", "/*"]), st.text(st.characters(blacklist_categories=("Cs",)), max_size=6))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=8),
)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=12)
OBJECTS = st.dictionaries(KEYS, VALUES, max_size=5)


@dataclass(frozen=True)
class Layout:
    indent: str | None  # None: everything on one line
    newline: str
    comments: bool
    trailing_commas: bool
    final_newline: bool

    @property
    def flags(self) -> dict[str, bool]:
        return {"comments": self.comments, "trailing_commas": self.trailing_commas}


LAYOUT = st.builds(
    Layout, st.sampled_from([None, "  ", "    ", "\t"]), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans(), st.booleans()
)


def render(value, layout: Layout, draw, depth: int = 0, compact: bool = False) -> str:
    """``value`` as a person or a host might write it: the layout, plus comments here and there."""
    if not isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=draw(st.booleans()))
    brackets = "{}" if isinstance(value, dict) else "[]"
    pairs = value.items() if isinstance(value, dict) else ((None, item) for item in value)
    one_line = compact or layout.indent is None or draw(st.integers(0, 4)) == 0
    items = [(json.dumps(key, ensure_ascii=False) + ": " if key is not None else "") + render(item, layout, draw, depth + 1, one_line) for key, item in pairs]
    comment = layout.comments and draw(st.booleans())
    if not items:
        if comment and not one_line:
            inner = layout.indent * (depth + 1)
            return brackets[0] + layout.newline + inner + "// empty" + layout.newline + layout.indent * depth + brackets[1]
        return brackets
    trailing = "," if layout.trailing_commas and draw(st.booleans()) else ""
    if one_line:
        pieces = [item + (" /* c */" if layout.comments and draw(st.booleans()) else "") for item in items]
        return brackets[0] + ", ".join(pieces) + trailing + brackets[1]
    nl, inner = layout.newline, layout.indent * (depth + 1)
    lines = []
    for index, item in enumerate(items):
        last = index == len(items) - 1
        if layout.comments and draw(st.booleans()):
            lines.append(inner + draw(st.sampled_from(["// about the next", "/* about the next */"])))
        end = ("," if not last else trailing) + (draw(st.sampled_from(["", " // after", " /* after */"])) if layout.comments else "")
        lines.append(inner + item + end)
    return brackets[0] + nl + nl.join(lines) + nl + layout.indent * depth + brackets[1]


def render_document(value, layout: Layout, draw) -> str:
    text = render(value, layout, draw)
    if layout.comments and draw(st.booleans()):
        text = "// a host's settings" + layout.newline + text + layout.newline + "/* the end */"
    return text + (layout.newline if layout.final_newline else "")


def containers(value, path=()):
    """Every (path, object or array) in ``value``, the top level first."""
    if isinstance(value, (dict, list)):
        yield path, value
        for key, item in value.items() if isinstance(value, dict) else enumerate(value):
            yield from containers(item, (*path, key))


def members(value, path=()):
    """Every path to a member or element in ``value``."""
    for where, container in containers(value, path):
        for key in container if isinstance(container, dict) else range(len(container)):
            yield (*where, key)


def at(value, path):
    for key in path:
        value = value[key]
    return value


@PROPERTIES
@given(OBJECTS, LAYOUT, st.data())
def test_any_value_in_any_layout_parses_back_to_the_value(value, layout, data):
    text = render_document(value, layout, data.draw)
    document = jsonc.parse(text, **layout.flags)
    assert document.value() == value
    assert document.text() == text
    if not layout.comments and not layout.trailing_commas:
        assert json.loads(text) == value


@PROPERTIES
@given(OBJECTS, LAYOUT, VALUES, st.data())
def test_every_insertion_is_undone_to_the_byte_by_its_removal(value, layout, new, data):
    text = render_document(value, layout, data.draw)
    document = jsonc.parse(text, **layout.flags)
    path, container = data.draw(st.sampled_from(list(containers(value))))
    if isinstance(container, list):
        added = (*path, document.append(path, new))
    else:
        key = data.draw(KEYS.filter(lambda k: k not in container))
        added = (*path, key)
        document.set(added, new)
    assert document.value(added) == new
    assert jsonc.parse(document.text(), **layout.flags).value() == document.value()
    document.remove(added)
    assert document.text() == text


@settings(max_examples=100, deadline=None, database=None)
@given(OBJECTS, LAYOUT, st.data())
def test_edit_sequences_match_the_same_edits_on_the_plain_value(value, layout, data):
    document = jsonc.parse(render_document(value, layout, data.draw), **layout.flags)
    model = json.loads(json.dumps(value))
    for _ in range(data.draw(st.integers(1, 8))):
        paths = list(members(model))
        action = data.draw(st.sampled_from(["append", "add", "replace", "remove"] if paths else ["append", "add"]))
        if action == "remove":
            path = data.draw(st.sampled_from(paths))
            assert document.remove(path)
            parent = at(model, path[:-1])
            del parent[path[-1]]
        elif action == "replace":
            path = data.draw(st.sampled_from(paths))
            new = data.draw(VALUES)
            document.set(path, new)
            at(model, path[:-1])[path[-1]] = new
        else:
            path, container = data.draw(st.sampled_from(list(containers(model))))
            new = data.draw(VALUES)
            if isinstance(container, list):
                assert document.append(path, new) == len(container)
                container.append(new)
            else:
                key = data.draw(KEYS.filter(lambda k: k not in container))
                if action == "append":
                    document.append((*path, key), new)
                    container[key] = [new]
                else:
                    document.set((*path, key), new)
                    container[key] = new
        assert document.value() == model
        assert jsonc.parse(document.text(), **layout.flags).value() == model
