"""reStructuredText blocks (``.. name::`` markup, ``::`` literal blocks) as the Markdown that ingest stores.

A ``.rst`` file is stored as Markdown, one line for one line, so that line ranges still
refer to the source (:func:`ov.ingest.parsers.rst_headings` turns its titles). Its
explicit markup blocks are directions to a renderer — badges (``.. image::`` with
``:target:`` and ``:alt:`` options), ``.. toctree::``, ``.. rst-class::``, comments,
link targets — and read as text they are noise that a summary takes for the document's
first paragraph. So each block becomes what it shows as prose:

* a directive that carries prose (``.. note::``, ``.. warning::``, ``.. seealso::``, a
  figure's caption, an API description such as ``.. py:function::``) keeps its text,
  dedented, with its argument as the first words where that is prose;
* a code directive (``.. code-block:: python``) becomes a fenced block, and so does a
  literal block (the indented block after a paragraph that ends with ``::``, whose ``::``
  becomes ``:`` as reST shows it);
* anything else (images, badges, tables of contents, raw HTML, includes, comments,
  targets, substitution definitions) becomes blank lines, and so does a line made only
  of substitution references (``|pypi| |build|``, the badges' other half).

It also says which lines are code, fences included: the title pass must not read them,
since a code line followed by its closing fence (or by a line of ``===``) looks like a
title with its underline.
"""

from __future__ import annotations

import re

__all__ = ["rst_directives"]

_MARKER = re.compile(r"^([ \t]*)\.\.(?:[ \t]+(.*?))?[ \t]*$")
_DIRECTIVE = re.compile(r"^(\|[^|]+\|[ \t]+)?([\w:.+-]+)::(?:[ \t]+(.*))?$")
_FOOTNOTE = re.compile(r"^\[[^\]]+\][ \t]*(.*)$")
_OPTION = re.compile(r"^[ \t]+:[\w -]+:(?:[ \t]|$)")  # ":alt: text", not a role (":meth:`x`")
_SUBSTITUTIONS_ONLY = re.compile(r"^[ \t]*(?:\|[^|\s][^|]*\|_{0,2}[ \t]*)+$")
# A list item's bullet or enumerator: a literal block inside the item is indented past its text.
# (Not a letter's "a." or "B)": prose that opens with "e.g. run it::" would read as an item.)
_ITEM = re.compile(r"^[ \t]*(?:[-*+\u2022]|\(?(?:\d+|#)[.)])[ \t]+")
_BACKTICKS = re.compile(r"^[ \t]*(`{3,})")

# Admonitions and the like: their argument is a title or the first words of their text.
_TITLED = frozenset({
    "note", "warning", "tip", "hint", "important", "caution", "attention", "danger", "error", "admonition",
    "seealso", "topic", "sidebar", "rubric", "centered", "glossary", "tab",
    # These take no argument: text on their marker line is the start of their content.
    "epigraph", "highlights", "pull-quote", "compound",
})  # fmt: skip
_CODE = frozenset({"code-block", "code", "sourcecode", "doctest", "testcode", "testoutput"})
# Their body is prose, their argument is not (a version, an image's address, a condition).
_BODY_ONLY = frozenset({
    "versionadded", "versionchanged", "deprecated", "versionremoved", "figure", "only", "container", "class", "tabs",
})  # fmt: skip


def rst_directives(lines: list[str]) -> tuple[list[str], frozenset[int]]:
    """``lines`` (each with its line end) with their markup blocks as described above, one line
    for one line (a code block at the very end may gain its closing fence on its last line), and
    the indices of the lines that are code or its fences."""
    out = list(lines)
    code: set[int] = set()
    i = 0
    while i < len(out):
        text = out[i].rstrip("\r\n")
        marker = _MARKER.match(text)
        if marker is None:
            if _SUBSTITUTIONS_ONLY.match(text):
                out[i] = _blank(out[i])
            elif text.endswith("::") and i + 1 < len(out) and not out[i + 1].strip():
                end = _block_end(out, i, _text_column(text))
                if end > i + 2:  # a blank line, then the block: the blank line takes the opening fence
                    out[i] = _literal_intro(out[i])
                    code |= _fence(out, i + 1, i + 2, end, " " * _text_column(text), "")
                    i = end
                    continue
            i += 1
            continue
        indent, rest = marker.group(1), marker.group(2) or ""
        end = _block_end(out, i, len(indent.expandtabs()))
        options = i + 1
        while options < end and _OPTION.match(out[options]):
            options += 1
        directive = _DIRECTIVE.match(rest)
        footnote = _FOOTNOTE.match(rest) if directive is None else None
        name = directive.group(2).lower() if directive and not directive.group(1) else ""
        if name in _CODE:
            language = (directive.group(3) or "").split()[:1] if directive else []
            code |= _fence(out, i, options, end, indent, language[0] if language else "")
            i = end
            continue
        keeps_body = footnote is not None or name in _TITLED or name in _BODY_ONLY or _is_description(name)
        for k in range(i, options if keeps_body else end):
            out[k] = _blank(out[k])
        if not keeps_body:
            i = end
            continue
        argument = footnote.group(1) if footnote else (directive.group(3) or "") if name not in _BODY_ONLY else ""
        if argument:
            out[i] = indent + argument + _line_end(out[i])
        _dedent(out, options, end, indent)
        i = i + 1 if argument else options  # the body may hold directives of its own
    return out, frozenset(code)


def _is_description(name: str) -> bool:
    # API descriptions: a domain's ("py:function", "js:class") or autodoc's ("autoclass", "automethod").
    return ":" in name or (name.startswith("auto") and name not in ("autosummary",))


def _block_end(lines: list[str], start: int, indent: int) -> int:
    """The index after the last line of the block whose marker is at ``start``: its lines are
    blank or indented deeper than the marker; trailing blank lines are not part of it."""
    end = start + 1
    last = start + 1
    while end < len(lines):
        line = lines[end].rstrip("\r\n")
        if line.strip():
            wide = line.expandtabs()
            if len(wide) - len(wide.lstrip()) <= indent:
                break
            last = end + 1
        end += 1
    return last


def _fence(out: list[str], start: int, body: int, end: int, indent: str, language: str) -> set[int]:
    """Fence lines ``body``..``end`` (the code) with line ``start`` as the opening fence; the lines of
    the fenced block, fences included."""
    _dedent(out, body, end, indent)
    # A fence longer than any run of backticks that starts a code line, which would close it early.
    runs = [len(m.group(1)) for k in range(body, end) if (m := _BACKTICKS.match(out[k]))]
    mark = "`" * max([3] + [run + 1 for run in runs])
    out[start] = f"{indent}{mark}{language}" + _line_end(out[start])
    for k in range(start + 1, body):
        out[k] = _blank(out[k])
    if end < len(out) and not out[end].strip():
        out[end] = f"{indent}{mark}" + _line_end(out[end])
        return set(range(start, end + 1))
    # no blank line after the block: the fence closes on its last line
    last = end - 1
    out[last] = out[last].rstrip("\r\n") + f"\n{indent}{mark}" + _line_end(out[last])
    return set(range(start, end))


def _text_column(line: str) -> int:
    """Where the text of ``line`` starts: past its indent, and past a list item's bullet, since the
    literal block of a paragraph in an item is indented relative to the item's text."""
    item = _ITEM.match(line)
    wide = (item.group(0) if item else line).expandtabs()
    return len(wide) if item else len(wide) - len(wide.lstrip())


def _literal_intro(line: str) -> str:
    """The line that announces a literal block as reST shows it: ``Run it::`` as ``Run it:``, and
    ``Run it ::`` or a lone ``::`` without the marker."""
    text = line.rstrip("\r\n")
    body = text[:-2]
    shown = body.rstrip() if not body.strip() or body[-1:].isspace() else body + ":"
    return shown + _line_end(line) if shown.strip() else _blank(line)


def _dedent(out: list[str], start: int, end: int, indent: str) -> None:
    body = [out[k] for k in range(start, end) if out[k].strip()]
    if not body:
        return
    depth = min(len(line) - len(line.lstrip()) for line in body)
    for k in range(start, end):
        if out[k].strip():
            out[k] = indent + out[k][depth:]


def _blank(line: str) -> str:
    return _line_end(line) or "\n"


def _line_end(line: str) -> str:
    return line[len(line.rstrip("\r\n")) :]
