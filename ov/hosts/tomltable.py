"""One table of a TOML file, put in and taken out by its lines: ov's ``[mcp_servers.ov]`` in
Codex's ``config.toml``.

Everything else in the file keeps its bytes: comments, order, spacing, line endings, a missing
final newline. :mod:`tomllib` gives the values but not where they are, so :func:`_statements`
finds the lines of every table header and key. It follows strings (multi-line ones too), arrays
and inline tables, so that a line inside a value that reads ``[mcp_servers.ov]`` is never taken for
a header. The table goes with all of its subtables (``[mcp_servers.ov.env]``,
``[mcp_servers.ov.tools.x]``) and with dotted keys that run through it (``ov.command = …`` under
``[mcp_servers]``): a subtable left behind is a server without a command, and Codex then refuses
to start. Whatever the scan gets wrong, the last step catches: the edited text is parsed again,
and unless it holds exactly the intended change, nothing is written.

tomlkit keeps the bytes of what it does not touch too, but it leaves a blank line behind when it
removes a table, and writes LF lines into a CRLF file (``tests/test_toml_roundtrip.py``): a
byte-for-byte uninstall would need this line bookkeeping on top of it, for one table, so it stays
a test-only dependency.
"""

from __future__ import annotations

import copy
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from ov.hosts.hostconfig import HostConfigError

KeyPath = tuple[str, ...]

_BARE = re.compile(r"[A-Za-z0-9_-]+")


def read(data: bytes, name: Path) -> tuple[str, dict]:
    """The file's text and its values; :class:`HostConfigError` (with the line) when it does not parse."""
    try:
        text = data.decode("utf-8")
        return text, tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise HostConfigError(f"{name} is not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise HostConfigError(f"{name}: {exc}") from None


def get(values: dict, path: KeyPath, name: Path):
    """The value at ``path`` in parsed ``values``, or None; :class:`HostConfigError` when a table
    on the way holds something else (``mcp_servers = 1``, ``[[mcp_servers]]``)."""
    node = values
    for depth, key in enumerate(path):
        if not isinstance(node, dict):
            raise HostConfigError(f"{name}: `{_dotted(path[:depth])}` holds {_kind(node)}, not a table", hint="fix the file, then run the command again")
        if key not in node:
            return None
        node = node[key]
    return node


def put(text: str, values: dict, path: KeyPath, value: dict, name: Path) -> str:
    """``text`` with the table at ``path`` holding ``value``: where the table (or one of its
    subtables) was, else appended after one blank line. Whatever defined it before goes."""
    get(values, path, name)  # the tables above it are tables
    newline = "\r\n" if "\r\n" in text else "\n"
    statements = _statements(text)
    _refuse_inline(text, statements, path, name, adding=True)
    spans = _spans(statements, path)
    block = _render(path, value, newline)
    if spans and spans[0].header:
        first, rest = spans[0], spans[1:]
        if first.end == len(text) and not text.endswith("\n"):
            block = block[: -len(newline)]  # the file ended without a newline, and keeps doing so
        after = _cut(text, rest)
        after = after[: first.start] + block + after[first.end :]
    else:
        after = _cut(text, spans)
        if after and not after.endswith("\n"):
            # The file's last line gets the newline a header needs, and ov's table does without
            # one instead: uninstall takes that newline off again (_cut).
            after += newline + newline + block[: -len(newline)]
        elif after:
            after += newline + block
        else:
            after = block
    expected = _with(values, path, value)
    if _parsed(after) != expected:
        raise HostConfigError(
            f"{name}: ov cannot add its entry [{_dotted(path)}] to this file's layout (with it, the file would not read as intended)",
            hint=f"write the file's `{_dotted(path[:-1])}` entries as [{_dotted(path[:-1])}.<name>] tables, then run the command again",
        )
    return after


def drop(text: str, values: dict, path: KeyPath, name: Path) -> str:
    """``text`` without the table at ``path``, its subtables and its keys (``text`` when it has none)."""
    if get(values, path, name) is None:
        return text
    statements = _statements(text)
    _refuse_inline(text, statements, path, name, adding=False)
    after = _cut(text, _spans(statements, path))
    expected = _without(values, path)
    if _parsed(after) not in (expected, _pruned(expected, path[:-1])):
        raise HostConfigError(
            f"{name}: ov cannot take its entry [{_dotted(path)}] out of this file's layout (without it, the file would not read as intended)",
            hint=f"remove [{_dotted(path)}] and its subtables yourself, then run the command again",
        )
    return after


# --- where each table and key is ------------------------------------------------------------------


@dataclass(frozen=True)
class _Statement:
    """A table header or a key (with its whole value) and the lines it takes: ``start`` is the
    offset of its first line, ``end`` the offset after its last line's newline."""

    path: KeyPath  # a header's table; a key's full path (its table's, then its own)
    start: int
    end: int
    header: bool


def _statements(text: str) -> list[_Statement]:
    """Every table header and key of ``text``, which has parsed, in order."""
    out = []
    table: KeyPath = ()
    i = 0
    while i < len(text):
        j = _skip_blank(text, i)
        if j == len(text) or text[j] in "\r\n#":  # a blank line or a comment
            i = _line_end(text, j)
            continue
        if text[j] == "[":
            table, k = _key(text, j + (2 if text.startswith("[[", j) else 1))
            end = _line_end(text, k)  # past `]` or `]]` and a comment
            out.append(_Statement(table, i, end, True))
        else:
            keys, k = _key(text, j)
            end = _value_end(text, _skip_blank(text, k) + 1)  # after the `=`
            out.append(_Statement(table + keys, i, end, False))
        i = end
    return out


def _spans(statements: list[_Statement], path: KeyPath) -> list[_Statement]:
    """What defines ``path`` or anything under it: each table at or under it, from its header to
    its last key (comments after that belong to what follows), and each key whose path runs
    through it."""
    spans: list[_Statement] = []
    section = False
    for s in statements:
        if s.header:
            section = s.path[: len(path)] == path
            if section:
                spans.append(s)
        elif section:
            spans[-1] = _Statement(spans[-1].path, spans[-1].start, s.end, True)
        elif s.path[: len(path)] == path:
            spans.append(s)
    return spans


def _refuse_inline(text: str, statements: list[_Statement], path: KeyPath, name: Path, *, adding: bool) -> None:
    """A key above ``path`` holds it in one value (``mcp_servers = { … }``): no line of the file
    is the table's own, and ov does not rewrite the user's value."""
    for s in statements:
        if not s.header and len(s.path) < len(path) and path[: len(s.path)] == s.path:
            line = text.count("\n", 0, s.start) + 1
            verb = "add its entry to" if adding else "take its entry out of"
            raise HostConfigError(
                f"{name}: ov cannot {verb} this file's layout: `{_dotted(s.path)}` is one inline value (line {line}), "
                f"and ov {'adds' if adding else 'removes'} [{_dotted(path)}] as a table of its own",
                hint=f"write `{_dotted(s.path)}` as [{_dotted(s.path)}.<name>] tables, one per entry, then run the command again",
            )


def _cut(text: str, spans: list[_Statement]) -> str:
    """``text`` without ``spans``; a table takes the blank line before it along (the one ov puts
    there), or, first in the file, the one after it. A file that ended in a span without a newline
    ends without one again."""
    unterminated = bool(spans) and spans[-1].end == len(text) and not text.endswith("\n")
    for s in reversed(spans):
        start, end = s.start, s.end
        if s.header:
            before = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else 0
            if start and not text[before:start].strip():
                start = before
            elif start == 0 and end < len(text) and not text[end : _line_end(text, end)].strip():
                end = _line_end(text, end)
        text = text[:start] + text[end:]
    if unterminated:
        text = text.removesuffix("\n").removesuffix("\r")
    return text


# --- scanning (the text has parsed: no error handling) --------------------------------------------


def _skip_blank(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t":
        i += 1
    return i


def _line_end(text: str, i: int) -> int:
    """The offset after the newline that ends the line ``i`` is on (the text's end on its last line)."""
    end = text.find("\n", i)
    return len(text) if end < 0 else end + 1


def _key(text: str, i: int) -> tuple[KeyPath, int]:
    """The dotted key at ``i`` (bare and quoted parts) and the offset after it."""
    parts = []
    while True:
        i = _skip_blank(text, i)
        if text[i] == '"':
            end = _string_end(text, i)
            parts.append(tomllib.loads("k = " + text[i:end])["k"])  # its escapes, as TOML reads them
        elif text[i] == "'":
            end = text.index("'", i + 1) + 1
            parts.append(text[i + 1 : end - 1])
        else:
            match = _BARE.match(text, i)
            assert match is not None, "a parsed key is bare or quoted"
            end = match.end()
            parts.append(text[i:end])
        i = _skip_blank(text, end)
        if not text.startswith(".", i):
            return tuple(parts), i
        i += 1


def _value_end(text: str, i: int) -> int:
    """The offset after the line a value starting at ``i`` ends on: a newline outside any
    string, array or inline table ends it."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _string_end(text, i)
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "#":
            i = text.find("\n", i)
            if i < 0:
                return len(text)
            continue
        elif c == "\n" and depth == 0:
            return i + 1
        i += 1
    return len(text)


def _string_end(text: str, i: int) -> int:
    """The offset after the string that opens at ``i``: basic or literal, on one line or several."""
    quote = text[i]
    escapes = quote == '"'
    if text.startswith(quote * 3, i):
        j = i + 3
        while not text.startswith(quote * 3, j):
            j += 2 if escapes and text[j] == "\\" else 1
        end = j + 3
        while end < len(text) and text[end] == quote and end < j + 5:
            end += 1  # up to two quotes of the string's own come right before the closing three
        return end
    j = i + 1
    while text[j] != quote:
        j += 2 if escapes and text[j] == "\\" else 1
    return j + 1


# --- values -------------------------------------------------------------------------------------


def _render(path: KeyPath, value: dict, newline: str) -> str:
    """``value`` as a table at ``path``: a header, then one line per key (a table's a value inline)."""
    lines = [f"[{_dotted(path)}]", *(f"{_key_text(k)} = {_value_text(v)}" for k, v in value.items())]
    return newline.join(lines) + newline


def _value_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_value_text, value)) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key_text(k)} = {_value_text(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _string(value: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, and the control characters TOML
    forbids there (JSON's escapes would write a character beyond U+FFFF as a surrogate pair,
    which TOML refuses)."""
    out = []
    for c in value:
        if c in '"\\':
            out.append("\\" + c)
        elif c < " " or c == "\x7f":
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _key_text(key: str) -> str:
    return key if _BARE.fullmatch(key) else _string(key)


def _dotted(path: KeyPath) -> str:
    return ".".join(map(_key_text, path))


def _kind(value) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", int: "an integer", float: "a float"}.get(type(value), "a value")


def _parsed(text: str) -> dict | None:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _with(values: dict, path: KeyPath, value: dict) -> dict:
    out = copy.deepcopy(values)
    node = out
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return out


def _without(values: dict, path: KeyPath) -> dict:
    out = copy.deepcopy(values)
    node = out
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out


def _pruned(values: dict, path: KeyPath) -> dict:
    """``values`` without the tables along ``path`` that hold nothing (tables the removed one's
    header alone had made: ``[mcp_servers.ov]`` makes ``mcp_servers``)."""
    out = copy.deepcopy(values)
    for depth in range(len(path), 0, -1):
        node = out
        for key in path[: depth - 1]:
            node = node[key]
        if node.get(path[depth - 1]) != {}:
            break
        del node[path[depth - 1]]
    return out
