"""Generated docs and completions match the code; every command explains itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ov.cli.docgen import generated_files, iter_commands

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path, text", sorted(generated_files(REPO).items()), ids=lambda v: v.name if isinstance(v, Path) else "")
def test_generated_file_is_current(path: Path, text: str):
    assert path.exists(), f"{path.relative_to(REPO)} is missing: run `python -m ov.cli.docgen`"
    assert path.read_text(encoding="utf-8") == text, f"{path.relative_to(REPO)} is stale: run `python -m ov.cli.docgen`"


@pytest.mark.parametrize("path, command", [(" ".join(p), c) for p, c in iter_commands()], ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_and_option_has_help(path, command):
    assert (command.help or "").strip(), f"`{path}` has no help text"
    for param in command.params:
        if param.expose_value:
            assert (getattr(param, "help", None) or "").strip(), f"`{path}` parameter {param.name} has no help"


def test_every_command_is_in_the_reference():
    reference = (REPO / "docs" / "commands.md").read_text(encoding="utf-8")
    for path, _command in iter_commands():
        if len(path) > 1:
            assert f"`{' '.join(path)}`" in reference


def test_every_row_of_the_reference_renders_as_two_cells_with_its_default_and_what_is_required():
    """As GitHub renders it (a GFM table): a `|` left unescaped in a row (a choice option's
    `replace|append|create`) splits it into more cells, and the meaning is dropped."""
    from markdown_it import MarkdownIt

    html = MarkdownIt("commonmark").enable("table").render((REPO / "docs" / "commands.md").read_text(encoding="utf-8"))
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.DOTALL)
    assert len(rows) > 100
    for row in rows:
        cells = re.findall(r"<t[dh]>(.*?)</t[dh]>", row, flags=re.DOTALL)
        assert len(cells) == 2 and cells[1].strip(), row
        assert "(default: <code>None</code>)" not in cells[1], row
    assert "<td><code>--mode</code> [replace|append|create]</td>" in html
    assert "<td><code>-m</code>, <code>--message</code></td>\n<td>What the hand edits were: the first paragraph is the subject" in html
    assert "each is a paragraph (as git's -m). (required)</td>" in html


def test_completion_scripts_call_back_into_ov():
    for shell in ("bash", "zsh", "fish"):
        script = (REPO / "completions" / f"ov.{shell}").read_text(encoding="utf-8")
        assert "_OV_COMPLETE" in script


LINK = re.compile(r"\]\((?!https?://|mailto:)([^)\s]+?)\)")


def _without_fences(markdown: str) -> str:
    """``markdown`` without its fenced code blocks (backticks or tildes, indented up to 3 spaces)."""
    return re.sub(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*", "", markdown, flags=re.S | re.M)


def _anchors(markdown: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``markdown``: lower case, punctuation dropped,
    spaces as hyphens, a repeated one numbered from -1."""
    seen: dict[str, int] = {}
    anchors = set()
    for line in _without_fences(markdown.read_text(encoding="utf-8")).splitlines():
        if not line.startswith("#"):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _prose(markdown: str) -> str:
    """``markdown`` without code, fenced or inline, where a link is only an example."""
    return re.sub(r"`[^`\n]*`", "", _without_fences(markdown))


def test_every_link_between_the_docs_reaches_its_file_and_heading():
    broken = []
    for page in [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.name}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
                broken.append(f"{page.name}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_memory_type_table_names_the_spelled_out_topics():
    # (found by a review: the table named only C++ and C#, where topics spell out F# and .NET as well)
    from ov.sessions.memory.topics import slug

    row = next(line for line in (REPO / "docs" / "sessions.md").read_text(encoding="utf-8").splitlines() if line.startswith("| preferences |"))
    for name in ("C++", "C#", "F#", ".NET"):
        assert name in row and f"`{slug(name)}.md`" in row, f"docs/sessions.md's type table does not say {name} is {slug(name)}.md"
