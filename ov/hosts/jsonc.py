"""Edit a JSON or JSONC file and leave the rest of it as it was.

The host installers add ov's entries to other programs' config files (Claude Code's and Gemini
CLI's ``settings.json``, Cursor's and Codex's ``hooks.json``, OpenCode's ``opencode.jsonc``). Users
judge them by one rule: every other entry, its order, the file's formatting and its comments
survive, and an uninstall gives the file back byte for byte when ov's entries were the only
change. Re-serialising a parsed dict breaks that rule, so :func:`parse` builds a concrete tree
that knows the source span of every value, member and element, and each edit splices only the
characters it is about; the text around them is never rewritten.

Install and uninstall run in different processes, so a removal cannot remember what the
insertion did: it has to recognise it from the text alone. The two are therefore written as
inverses. A new item goes after the last one, on a line of its own when the last one has a line
of its own (at its indentation), else on the same line after ``, ``; the comma it needs goes
right after the previous value, in front of any comment there. A removal takes away the item's
line (or its span and its comma, on a shared line) and the comma the previous item no longer
needs; an object or array left with nothing but whitespace inside becomes ``{}`` or ``[]``. So
``set`` or ``append`` followed by ``remove`` of the same thing gives back the original text, with
two exceptions: an empty container written with whitespace inside (``{ }``, ``[\\n]``) comes back
as ``{}``/``[]`` (:func:`collapse_empty`; the installers then give back the file they kept), and a
file that held no value keeps the ``{}`` its first edit gave it. Parents
that an insertion made go again with ``remove(..., prune=True)``.

This module reads and writes no file: text comes in and text goes out. Callers read a file as
``path.read_bytes().decode("utf-8")`` (or ``open(newline="")``), so that CRLF line ends reach
this module unchanged, and write the result back atomically (:func:`ov.files.atomic_write`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from ov.errors import InvalidInput, quote

Key = str | int
# A place in the document: object keys (str) and array indices (int, negative counts from the end).
KeyPath = tuple[Key, ...]

# Config files nest a handful of levels; the limit keeps the recursive parser far from Python's recursion limit.
MAX_DEPTH = 128

_WS = re.compile(r"[ \t\r\n]*")
# Possessive (`++`, `*+`): with plain `+` and `*` an unclosed string backtracks exponentially.
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:(\.[0-9]+)?([eE][+-]?[0-9]+)?)")
_WORD = re.compile(r"[A-Za-z0-9_.+\-]+")  # what a mistyped literal or number runs to, to quote it whole
_LITERALS = (("true", True), ("false", False), ("null", None))
_KEY_SEP = re.compile(r"[ \t]*:[ \t]*")
_HSPACE = re.compile(r"[ \t]*")
_BARE_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_BLANK = " \t\r\n"


class ConfigFileInvalid(InvalidInput):
    """A host's config file that does not parse, or holds a value of a type ov cannot edit."""

    code = "host_config_invalid"
    hint = "fix the file or move it aside, then run the command again; ov never rewrites a file it cannot parse"

    def __init__(self, name: str, line: int, column: int, problem: str, *, hint: str | None = None) -> None:
        super().__init__(f"{name} line {line}, column {column}: {problem}", hint=hint)
        self.name = name
        self.line = line
        self.column = column
        self.problem = problem


def line_column(text: str, pos: int) -> tuple[int, int]:
    """The 1-based line and column of offset ``pos`` in ``text`` (a column counts characters)."""
    line_start = text.rfind("\n", 0, pos) + 1
    return text.count("\n", 0, pos) + 1, pos - line_start + 1


@dataclass(slots=True, eq=False)
class _Node:
    """A value and its span ``text[start:end]``; a container's closing bracket is at ``end - 1``."""

    start: int
    end: int
    kind: str  # "object", "array" or "scalar"
    scalar: Any = None
    items: list[_Item] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class _Item:
    """An object member (key, value and its comma) or an array element (value and its comma)."""

    start: int  # where the key (a member) or the value (an element) starts
    key: str | None
    key_end: int
    node: _Node
    comma: int | None  # offset of the comma after it, None for a last item without one

    @property
    def end(self) -> int:
        return self.comma + 1 if self.comma is not None else self.node.end


@dataclass(frozen=True, slots=True)
class _Style:
    """How the document writes what ov adds: its line end, indentation unit and separators."""

    newline: str
    unit: str
    key_sep: str  # between a key and its value: ": " in most files, ":" in minified ones
    item_sep: str  # after a comma between two items on one line


def parse(
    text: str,
    *,
    name: str | os.PathLike[str] = "<text>",
    comments: bool = False,
    trailing_commas: bool = False,
    empty_as_object: bool = False,
) -> Document:
    """The :class:`Document` that ``text`` holds; :class:`ConfigFileInvalid` if it does not parse.

    ``name`` is how messages name the file (``~/.claude/settings.json``). ``comments`` allows
    ``//`` and ``/* */`` comments and ``trailing_commas`` a comma after the last item (JSONC; Gemini
    CLI takes comments but not trailing commas). ``empty_as_object`` reads a file that holds no value
    (empty, or only whitespace and comments) as ``{}``: hosts leave empty settings files about.
    """
    label = os.fspath(name)
    root = _Parser(text, label, comments, trailing_commas).document(empty_as_object)
    return Document(text, label, comments, trailing_commas, root)


# A string, a comment, or an empty container with whitespace inside: what collapse_empty scans for.
_EMPTY_SCAN = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|\{\s*\}|\[\s*\]', re.DOTALL)


def collapse_empty(text: str) -> str:
    """``text`` with every empty object or array written with whitespace inside (``{ }``,
    ``[\\n]``) as ``{}`` or ``[]``, what a removal that empties a container leaves; strings and
    comments as they are. Where an uninstall's text equals the original's so collapsed, the
    original is what the user had (:func:`ov.hosts.backups.as_backed_up`)."""

    def collapsed(match: re.Match) -> str:
        token = match.group()
        if token[0] in "{[" and token[-1] in "}]":
            return token[0] + token[-1]
        return token

    return _EMPTY_SCAN.sub(collapsed, text)


class Document:
    """A parsed JSON/JSONC text: read it as plain values, edit it in place, get the text back."""

    def __init__(self, text: str, name: str, comments: bool, trailing_commas: bool, root: _Node | None) -> None:
        self.name = name
        self._text = text
        self._comments = comments
        self._trailing_commas = trailing_commas
        self._root = root  # None: a file with no value, read as an empty object
        self._style_cache: _Style | None = None

    # --- reading -------------------------------------------------------------

    def text(self) -> str:
        """The document's text, with every edit made so far (the original text if none)."""
        return self._text

    def value(self, path: KeyPath = ()) -> Any:
        """The plain Python value (dict, list, str, int, float, bool, None) at ``path``; KeyError if absent."""
        if self._root is None and not path:
            return {}
        node = self._find(path)
        if node is None:
            raise KeyError(path)
        return _plain(node)

    def get(self, path: KeyPath, default: Any = None) -> Any:
        """The plain value at ``path``, or ``default`` when there is none."""
        node = self._find(path)
        return default if node is None else _plain(node)

    def __contains__(self, path: KeyPath) -> bool:
        return self._find(path) is not None

    # --- editing -------------------------------------------------------------

    def set(self, path: KeyPath, value: Any) -> None:
        """Give ``path`` the JSON value ``value``.

        An existing member or element has its value replaced (nothing changes when it already
        equals ``value``); a missing member is added at the end of its object, and missing parent
        objects with it. :class:`ConfigFileInvalid` when a parent on the path holds another type.
        """
        if not path:
            self._set_root(value)
            return
        self._materialise()
        node = self._root
        assert node is not None
        holder: _Item | None = None
        for depth, key in enumerate(path):
            item = self._child(node, key, path[:depth], strict=True)
            if item is None:
                if not isinstance(key, str):
                    raise IndexError(f"{_show(path[: depth + 1])} does not exist in {self.name}")
                self._apply(self._insertion(node, holder, key, _nest(path[depth + 1 :], value, path)))
                return
            holder, node = item, item.node
        assert holder is not None
        if _canonical(_plain(node)) != _canonical(value):
            self._apply([(node.start, node.end, self._render(value, lined=self._starts_line(holder.start), indent=self._indent(holder.start)))])

    def append(self, path: KeyPath, value: Any) -> int:
        """Add ``value`` at the end of the array at ``path`` (made if missing); returns its index."""
        node = self._find(path, strict=True)
        if node is None:
            self.set(path, [value])
            return 0
        if node.kind != "array":
            raise self._mismatch(node, path, "an array")
        self._apply(self._insertion(node, self._holder(path), None, value))
        return len(node.items)

    def remove(self, path: KeyPath, *, prune: bool = False) -> bool:
        """Take the member or element at ``path`` out, with its comma and its line; False if absent.

        ``prune`` also removes each parent the removal left empty (``{}`` or ``[]``, not even a
        comment inside), up to but not including the top level: the parents an ``append`` or
        ``set`` made. A parent that was already empty before the insertion cannot be
        told apart from one it made, so the caller decides.
        """
        if not path:
            raise ValueError("the top-level value cannot be removed; set it instead")
        if not self._remove_one(path):
            return False
        parent = path[:-1]
        while prune and parent:
            node = self._find(parent)
            if node is None or node.kind == "scalar" or node.end - node.start != 2:
                break
            self._remove_one(parent)
            parent = parent[:-1]
        return True

    # --- finding -------------------------------------------------------------

    def _find(self, path: KeyPath, *, strict: bool = False) -> _Node | None:
        """The node at ``path``; None if absent (or, unless ``strict``, if a parent has another type)."""
        node = self._root
        if node is None:
            return None
        for depth, key in enumerate(path):
            item = self._child(node, key, path[:depth], strict=strict)
            if item is None:
                return None
            node = item.node
        return node

    def _holder(self, path: KeyPath) -> _Item | None:
        """The member or element whose value is at ``path`` (None for the top level)."""
        if not path:
            return None
        parent = self._find(path[:-1])
        assert parent is not None
        return self._child(parent, path[-1], path[:-1], strict=True)

    def _child(self, node: _Node, key: Key, where: KeyPath, *, strict: bool) -> _Item | None:
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise TypeError(f"a path holds object keys (str) and array indices (int), not {key!r}")
        wanted = "object" if isinstance(key, str) else "array"
        if node.kind != wanted:
            if strict:
                raise self._mismatch(node, where, f"an {wanted}")
            return None
        if isinstance(key, str):
            return next((item for item in node.items if item.key == key), None)
        index = key + len(node.items) if key < 0 else key
        return node.items[index] if 0 <= index < len(node.items) else None

    def _mismatch(self, node: _Node, where: KeyPath, expected: str) -> ConfigFileInvalid:
        line, column = line_column(self._text, node.start)
        return ConfigFileInvalid(
            self.name,
            line,
            column,
            f"{_show(where)} is {_kind(node)}; ov expected {expected} there",
            hint="fix that value or move the file aside, then run the command again; ov does not overwrite settings it did not write",
        )

    # --- inserting -----------------------------------------------------------

    def _insertion(self, container: _Node, holder: _Item | None, key: str | None, value: Any) -> list[tuple[int, int, str]]:
        """The splices that add one item (``key``: a member, None: an element) at the end of ``container``."""
        text, style = self._text, self._style()
        label = "" if key is None else json.dumps(key, ensure_ascii=False) + style.key_sep
        close = container.end - 1
        if container.items:
            anchor = container.items[-1]
            if self._starts_line(anchor.start):
                # A line of its own after the last item's line, its trailing comment included.
                indent = self._indent(anchor.start)
                line = style.newline + indent + label + self._render(value, lined=True, indent=indent)
                tail_end, after = self._tail(anchor.end)
                at = after if self._at_newline(after) else tail_end
                if anchor.comma is None:
                    return [(anchor.node.end, anchor.node.end, ","), (at, at, line)]
                return [(at, at, line + ",")]  # the file writes trailing commas: so does ov
            sep = self._item_sep(container)
            body = label + self._render(value, lined=False, indent="")
            if anchor.comma is None:
                return [(anchor.node.end, anchor.node.end, "," + sep + body)]
            return [(anchor.comma + 1, anchor.comma + 1, sep + body + ",")]
        interior = text[container.start + 1 : close]
        open_indent = self._indent(container.start)
        indent = open_indent + style.unit
        if not interior.strip(_BLANK):
            # `{}`: laid out on lines when what holds it has a line of its own (or it is the whole document).
            if "\n" in interior or holder is None or self._starts_line(holder.start):
                body = style.newline + indent + label + self._render(value, lined=True, indent=indent) + style.newline + open_indent
            else:
                body = label + self._render(value, lined=False, indent="")
            return [(container.start + 1, close, body)]
        # Only comments inside: the item goes after the last of them.
        at = container.start + 1 + len(interior.rstrip(_BLANK))
        if "\n" in interior:
            return [(at, at, style.newline + indent + label + self._render(value, lined=True, indent=indent))]
        return [(at, at, " " + label + self._render(value, lined=False, indent=""))]

    def _set_root(self, value: Any) -> None:
        self._materialise()
        root = self._root
        assert root is not None
        if _canonical(_plain(root)) == _canonical(value):
            return
        lined = "\n" in self._text[root.start : root.end] or (root.kind != "scalar" and not root.items)
        self._apply([(root.start, root.end, self._render(value, lined=lined, indent=self._indent(root.start)))])

    def _materialise(self) -> None:
        """Give a document with no value its ``{}``, after any comments it holds, before any edit."""
        if self._root is not None:
            return
        newline = self._style().newline
        text = self._text
        prefix = "" if not text.strip(_BLANK + "\ufeff") else text if text.endswith("\n") else text + newline
        self._reload(prefix + "{}" + newline)

    def _render(self, value: Any, *, lined: bool, indent: str) -> str:
        """``value`` as JSON in the document's style: on lines below ``indent``, or on one line."""
        style = self._style()
        if lined:
            dumped = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=style.unit, separators=(",", style.key_sep))
            return dumped.replace("\n", style.newline + indent)
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=("," + style.item_sep, style.key_sep))

    # --- removing ------------------------------------------------------------

    def _remove_one(self, path: KeyPath) -> bool:
        parent = self._find(path[:-1])
        if parent is None:
            return False
        item = self._child(parent, path[-1], path[:-1], strict=False)
        if item is None:
            return False
        self._apply(self._removal(parent, parent.items.index(item)))
        return True

    def _removal(self, container: _Node, index: int) -> list[tuple[int, int, str]]:
        """The splices that take item ``index`` out of ``container`` the way a person would."""
        text = self._text
        items = container.items
        item = items[index]
        start, end = item.start, item.end
        close = container.end - 1
        prev = items[index - 1] if index else None
        nxt = items[index + 1] if index + 1 < len(items) else None
        if prev is None and nxt is None and not (text[container.start + 1 : start] + text[end:close]).strip(_BLANK):
            return [(container.start + 1, close, "")]  # nothing else inside: `{}`
        if self._starts_line(start) and (nxt is None or self._starts_line(nxt.start)):
            # Its own line(s): from the line break before it to the end of its line, its comment included.
            tail_end, after = self._tail(end)
            cut_end = after if self._at_newline(after) else tail_end
            if prev is None or nxt is None or (self._blank_line_before(start) and self._blank_line_after(cut_end)):
                cut_start = self._newline_at_or_after(self._skip_space_back(start))  # no blank lines left at an end
            else:
                cut_start = self._newline_before(start)
            cuts = [(cut_start, cut_end, "")]
            if nxt is None and item.comma is None and prev is not None and prev.comma is not None:
                cuts.insert(0, (prev.comma, prev.comma + 1, ""))
            return cuts
        if nxt is not None:
            gap = text[end : nxt.start]
            if _HSPACE.fullmatch(gap):
                return [(start, nxt.start, "")]
            if not gap.strip(_BLANK):  # the next item is on a later line: keep the line break
                return [(self._skip_hspace_back(start), end, "")]
            return [(start, end + len(_HSPACE.match(text, end).group()), "")]
        if prev is not None:
            cut_from = prev.node.end if item.comma is None else prev.end
            if not text[cut_from:start].replace(",", "", 1).strip(_BLANK):
                return [(cut_from, end, "")]
            cuts = [(self._skip_hspace_back(start), end, "")]
            if item.comma is None and prev.comma is not None:
                cuts.insert(0, (prev.comma, prev.comma + 1, ""))
            return cuts
        return [(self._skip_hspace_back(start), end, "")]  # the only item, beside comments

    # --- the text around an item ---------------------------------------------

    def _starts_line(self, pos: int) -> bool:
        """Whether only spaces and tabs come before ``pos`` on its line (and it is not the first line)."""
        line_start = self._text.rfind("\n", 0, pos) + 1
        return line_start > 0 and not self._text[line_start:pos].strip(" \t")

    def _indent(self, pos: int) -> str:
        """The spaces and tabs that begin the line ``pos`` is on."""
        line_start = self._text.rfind("\n", 0, pos) + 1
        return _HSPACE.match(self._text, line_start).group()

    def _tail(self, pos: int) -> tuple[int, int]:
        """After an item ending at ``pos``: the end of the comments on the rest of its line, and what follows.

        Returns ``(end, after)``: ``end`` is past the last comment that starts and ends on this
        line (``pos`` if none), ``after`` is where the next non-blank character (or the line break) is.
        A block comment that runs onto the next line is not the item's, and stops the scan.
        """
        text = self._text
        end = pos
        while True:
            after = end + len(_HSPACE.match(text, end).group())
            if text.startswith("//", after):
                newline = text.find("\n", after)
                stop = len(text) if newline < 0 else newline - 1 if text[newline - 1] == "\r" else newline
                return stop, stop
            if text.startswith("/*", after):
                close = text.find("*/", after + 2)
                if "\n" in text[after:close]:
                    return end, after
                end = close + 2
                continue
            return end, after

    def _at_newline(self, pos: int) -> bool:
        return self._text.startswith("\n", pos) or self._text.startswith("\r\n", pos)

    def _newline_before(self, pos: int) -> int:
        """Where the line break before ``pos``'s line starts (its ``\\r`` in a CRLF file)."""
        newline = self._text.rfind("\n", 0, pos)
        return newline - 1 if newline > 0 and self._text[newline - 1] == "\r" else newline

    def _newline_at_or_after(self, pos: int) -> int:
        newline = self._text.find("\n", pos)
        return newline - 1 if newline > pos and self._text[newline - 1] == "\r" else newline

    def _skip_space_back(self, pos: int) -> int:
        while pos > 0 and self._text[pos - 1] in _BLANK:
            pos -= 1
        return pos

    def _skip_hspace_back(self, pos: int) -> int:
        while pos > 0 and self._text[pos - 1] in " \t":
            pos -= 1
        return pos

    def _blank_line_before(self, pos: int) -> bool:
        line_start = self._text.rfind("\n", 0, pos) + 1
        if line_start < 2:
            return False
        before = self._text.rfind("\n", 0, line_start - 1) + 1
        return not self._text[before : line_start - 1].strip(_BLANK)

    def _blank_line_after(self, pos: int) -> bool:
        newline = self._text.find("\n", pos)
        following = self._text.find("\n", newline + 1) if newline >= 0 else -1
        return following >= 0 and not self._text[newline + 1 : following].strip(_BLANK)

    def _item_sep(self, container: _Node) -> str:
        """What follows a comma between two items on one line in ``container`` (else in the document)."""
        for item, following in zip(container.items, container.items[1:]):
            if item.comma is not None and _HSPACE.fullmatch(gap := self._text[item.comma + 1 : following.start]):
                return gap
        return self._style().item_sep

    # --- bookkeeping ---------------------------------------------------------

    def _style(self) -> _Style:
        if self._style_cache is None:
            self._style_cache = _detect_style(self._text, self._root)
        return self._style_cache

    def _apply(self, cuts: list[tuple[int, int, str]]) -> None:
        """Splice ``(start, end, new)`` edits, which do not overlap, into the text and parse it again."""
        pieces, pos = [], 0
        for start, end, new in sorted(cuts, key=lambda cut: cut[0]):  # stable: two insertions at one offset keep their order
            assert start >= pos, "overlapping edits"
            pieces += [self._text[pos:start], new]
            pos = end
        pieces.append(self._text[pos:])
        self._reload("".join(pieces))

    def _reload(self, text: str) -> None:
        # Parsing the result again keeps the tree's offsets right and proves the edit left valid text.
        try:
            root = _Parser(text, self.name, self._comments, self._trailing_commas).document(False)
        except ConfigFileInvalid as exc:
            raise RuntimeError(f"an edit of {self.name} produced text that does not parse ({exc.problem}); this is a bug in ov") from exc
        self._text, self._root, self._style_cache = text, root, None


class _Parser:
    """A recursive-descent JSON/JSONC parser that keeps the span of everything it reads."""

    def __init__(self, text: str, name: str, comments: bool, trailing_commas: bool) -> None:
        self.text = text
        self.name = name
        self.comments = comments
        self.trailing_commas = trailing_commas
        self.pos = 1 if text.startswith("\ufeff") else 0  # a byte-order mark, which Windows editors write

    def document(self, empty_as_object: bool) -> _Node | None:
        self.skip()
        if self.pos == len(self.text) and empty_as_object:
            return None
        root = self.value(0)
        self.skip()
        if self.pos < len(self.text):
            raise self.fail(self.pos, f"expected the end of the file after the top-level value, found {self.found()}")
        return root

    def fail(self, pos: int, problem: str) -> ConfigFileInvalid:
        return ConfigFileInvalid(self.name, *line_column(self.text, pos), problem)

    def found(self) -> str:
        """What is at the current position, for a message."""
        text, pos = self.text, self.pos
        if pos >= len(text):
            return "the end of the file"
        if text[pos] in "\r\n":
            return "the end of the line"
        word = _WORD.match(text, pos)
        return quote(word.group() if word else text[pos], 40)

    def skip(self) -> None:
        """Move past whitespace and, where allowed, comments."""
        text, pos = self.text, self.pos
        while True:
            pos = _WS.match(text, pos).end()
            if not text.startswith(("//", "/*"), pos):
                break
            if not self.comments:
                raise self.fail(pos, "a comment, which plain JSON does not allow (this file is not JSONC)")
            if text[pos + 1] == "/":
                newline = text.find("\n", pos)
                pos = len(text) if newline < 0 else newline
            else:
                close = text.find("*/", pos + 2)
                if close < 0:
                    raise self.fail(pos, "a comment that is never closed: expected '*/'")
                pos = close + 2
        self.pos = pos

    def value(self, depth: int) -> _Node:
        self.skip()
        text, pos = self.text, self.pos
        char = text[pos : pos + 1]
        if char == "{" or char == "[":
            if depth >= MAX_DEPTH:
                raise self.fail(pos, f"values nested more than {MAX_DEPTH} levels deep")
            return self.object(depth) if char == "{" else self.array(depth)
        if char == '"':
            string = self.string()
            return _Node(pos, self.pos, "scalar", string)
        if char == "-" or "0" <= char <= "9":
            match = _NUMBER.match(text, pos)
            word = _WORD.match(text, pos)
            if match is None or (word is not None and word.end() > match.end()):
                raise self.fail(pos, f"an invalid number {quote(word.group() if word else char, 40)}")
            self.pos = match.end()
            number = float(match.group()) if match.group(1) or match.group(2) else int(match.group())
            return _Node(pos, self.pos, "scalar", number)
        for word, literal in _LITERALS:
            if text.startswith(word, pos):
                following = _WORD.match(text, pos)
                if following is not None and following.end() == pos + len(word):
                    self.pos = pos + len(word)
                    return _Node(pos, self.pos, "scalar", literal)
        raise self.fail(pos, f"expected a value, found {self.found()}")

    def string(self) -> str:
        text, pos = self.text, self.pos
        match = _STRING.match(text, pos)
        if match is None:
            raise self._bad_string(pos)
        self.pos = match.end()
        return json.loads(match.group())  # the pattern admits only valid escapes; json joins surrogate pairs

    def _bad_string(self, start: int) -> ConfigFileInvalid:
        """Why the string at ``start`` does not match: find the first character at fault."""
        text, pos = self.text, start + 1
        while pos < len(text):
            char = text[pos]
            if char == "\\":
                escape = text[pos + 1 : pos + 2]
                if escape == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", text[pos + 2 : pos + 6]):
                    pos += 6
                    continue
                if escape and escape in '"\\/bfnrt':
                    pos += 2
                    continue
                shown = f"'\\{escape}'" if escape.isprintable() and escape else f"a backslash before {quote(escape) if escape else 'the end'}"
                return self.fail(pos, f"an invalid escape {shown} in a string")
            if char in "\r\n":
                break
            if char < " ":
                return self.fail(pos, f"a control character ({quote(char)}) in a string; write it as an escape such as \\n or \\u001f")
            pos += 1
        return self.fail(start, "a string that is not closed: expected '\"' before the end of the line")

    def object(self, depth: int) -> _Node:
        text, start = self.text, self.pos
        self.pos += 1
        items: list[_Item] = []
        seen: dict[str, int] = {}
        self.skip()
        if text.startswith("}", self.pos):
            self.pos += 1
            return _Node(start, self.pos, "object")
        while True:
            key_start = self.pos
            if not text.startswith('"', key_start):
                expected = "a key (a string in double quotes)" + ("" if items else " or '}'")
                raise self.fail(key_start, f"expected {expected}, found {self.found()}")
            key = self.string()
            key_end = self.pos
            if key in seen:
                line, column = line_column(text, seen[key])
                raise self.fail(
                    key_start, f"the key {_json_quote(key)} appears twice in one object (first at line {line}, column {column}), so its value is ambiguous"
                )
            seen[key] = key_start
            self.skip()
            if not text.startswith(":", self.pos):
                raise self.fail(self.pos, f"expected ':' after the key {_json_quote(key)}, found {self.found()}")
            self.pos += 1
            node = self.value(depth + 1)
            self.skip()
            if text.startswith("}", self.pos):
                items.append(_Item(key_start, key, key_end, node, None))
                break
            if not text.startswith(",", self.pos):
                raise self.fail(self.pos, f"expected ',' or '}}', found {self.found()}")
            items.append(_Item(key_start, key, key_end, node, self.pos))
            self.pos += 1
            self.skip()
            if text.startswith("}", self.pos):
                self._trailing_comma(items[-1], "}")
                break
        self.pos += 1
        return _Node(start, self.pos, "object", items=items)

    def array(self, depth: int) -> _Node:
        text, start = self.text, self.pos
        self.pos += 1
        items: list[_Item] = []
        self.skip()
        if text.startswith("]", self.pos):
            self.pos += 1
            return _Node(start, self.pos, "array")
        while True:
            node = self.value(depth + 1)
            self.skip()
            if text.startswith("]", self.pos):
                items.append(_Item(node.start, None, node.start, node, None))
                break
            if not text.startswith(",", self.pos):
                raise self.fail(self.pos, f"expected ',' or ']', found {self.found()}")
            items.append(_Item(node.start, None, node.start, node, self.pos))
            self.pos += 1
            self.skip()
            if text.startswith("]", self.pos):
                self._trailing_comma(items[-1], "]")
                break
        self.pos += 1
        return _Node(start, self.pos, "array", items=items)

    def _trailing_comma(self, last: _Item, bracket: str) -> None:
        if not self.trailing_commas:
            assert last.comma is not None
            raise self.fail(last.comma, f"a comma before '{bracket}' with no item after it, which this file's format does not allow")


def _plain(node: _Node) -> Any:
    if node.kind == "object":
        return {item.key: _plain(item.node) for item in node.items}
    if node.kind == "array":
        return [_plain(item.node) for item in node.items]
    return node.scalar


def _canonical(value: Any) -> str:
    # Tells 1, 1.0 and true apart, which == does not; key order does not count.
    return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=False)


def _nest(keys: KeyPath, value: Any, path: KeyPath) -> Any:
    """``value`` inside the objects that the missing keys ``keys`` name."""
    for key in reversed(keys):
        if not isinstance(key, str) or isinstance(key, bool):
            raise IndexError(f"{_show(path)}: an array on the way does not exist, and set() makes only objects")
        value = {key: value}
    return value


def _json_quote(key: str) -> str:
    """A key as the file spells it, cut short like every echoed input."""
    shown = json.dumps(key, ensure_ascii=False)
    return shown if len(shown) <= 80 else shown[:80] + '..."'


def _kind(node: _Node) -> str:
    if node.kind != "scalar":
        return f"an {node.kind}"
    value = node.scalar
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a string" if isinstance(value, str) else "a number"


def _show(path: KeyPath) -> str:
    """A path as a message names it: ``hooks.PreToolUse[0]``, or "the top level"."""
    if not path:
        return "the top level"
    shown = ""
    for key in path:
        if isinstance(key, int):
            shown += f"[{key}]"
        else:
            shown += ("." if shown else "") + (key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False))
    return shown


def _detect_style(text: str, root: _Node | None) -> _Style:
    """The document's own style, from the first examples of each thing in it (defaults: 2 spaces, LF)."""
    first_newline = text.find("\n")
    newline = "\r\n" if first_newline > 0 and text[first_newline - 1] == "\r" else "\n"
    unit = key_sep = item_sep = None
    stack = [root] if root is not None else []
    while stack and (unit is None or key_sep is None or item_sep is None):
        node = stack.pop()
        if node.kind == "scalar":
            continue
        line_start = text.rfind("\n", 0, node.start) + 1
        open_indent = _HSPACE.match(text, line_start).group()
        for item, following in zip(node.items, [*node.items[1:], None]):
            item_line = text.rfind("\n", 0, item.start) + 1
            if unit is None and item_line > 0 and not text[item_line : item.start].strip(" \t"):
                indent = text[item_line : item.start]
                if indent.startswith(open_indent) and len(indent) > len(open_indent):
                    unit = indent[len(open_indent) :]
            if key_sep is None and item.key is not None and _KEY_SEP.fullmatch(between := text[item.key_end : item.node.start]):
                key_sep = between
            if item_sep is None and item.comma is not None and following is not None:
                if _HSPACE.fullmatch(gap := text[item.comma + 1 : following.start]):
                    item_sep = gap
        stack.extend(reversed([item.node for item in node.items]))
    key_sep = key_sep or ": "
    if item_sep is None:
        item_sep = "" if key_sep == ":" else " "
    return _Style(newline, unit or "  ", key_sep, item_sep)
