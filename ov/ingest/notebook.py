"""Jupyter notebooks (``.ipynb``) as the Markdown that ingest stores.

A notebook is JSON: its text sits in string lists, and its outputs carry plots as base64
images that are most of its bytes (one plot: 400 KB). Stored as is, those bytes are
committed, indexed and shown in snippets, and a summary finds no title or paragraph in
it. So a notebook is stored as what a reader sees of it, like HTML and reStructuredText:

* a markdown (or raw) cell as its text;
* a code cell as a fenced block in the notebook's language;
* an output as its text (printed streams, a result's ``text/plain``, an error's name and
  message), each cut at :data:`OUTPUT_MAX_LINES` lines; images and HTML never.

JSON that is not a notebook gives None: the caller keeps such a file verbatim.
"""

from __future__ import annotations

import json

__all__ = ["OUTPUT_MAX_LINES", "notebook_markdown"]

OUTPUT_MAX_LINES = 20


def notebook_markdown(text: str) -> str | None:
    """The Markdown of the notebook ``text``, or None when it is not a notebook's JSON."""
    try:
        notebook = json.loads(text)
    except ValueError:
        return None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return None
    language = _language(notebook.get("metadata"))
    blocks: list[str] = []
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _text(cell.get("source")).strip("\n")
        if cell.get("cell_type") == "code":
            if source.strip():
                blocks.append(_fenced(source, language))
            outputs = [_output(o).strip("\n") for o in cell.get("outputs") or () if isinstance(o, dict)]
            output = "\n".join(_cut(o) for o in outputs if o)
            if output:
                blocks.append(_fenced(output, "text"))
        elif source.strip():
            blocks.append(source)
    return "\n\n".join(blocks) + "\n" if blocks else ""


def _language(metadata) -> str:
    if not isinstance(metadata, dict):
        return "python"
    for key, field in (("kernelspec", "language"), ("language_info", "name")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(field), str) and value[field].isidentifier():
            return value[field].lower()
    return "python"


def _text(value) -> str:
    """A notebook string: one string, or a list of lines."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return ""


def _output(output: dict) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return _text(output.get("text"))
    if kind in ("execute_result", "display_data"):
        data = output.get("data")
        return _text(data.get("text/plain")) if isinstance(data, dict) else ""
    if kind == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}".strip(": ")
    return ""


def _cut(output: str) -> str:
    lines = output.splitlines()
    if len(lines) <= OUTPUT_MAX_LINES:
        return output
    return "\n".join([*lines[:OUTPUT_MAX_LINES], f"... ({len(lines) - OUTPUT_MAX_LINES} more lines)"])


def _fenced(text: str, language: str) -> str:
    fence = "```"
    while fence in text:  # a fence inside the cell must not close the block
        fence += "`"
    return f"{fence}{language}\n{text}\n{fence}"
