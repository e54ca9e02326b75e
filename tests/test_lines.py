"""Lines as ov numbers them (ov/lines.py): at "\n" only, as git does."""

import pytest

from ov.lines import count_lines, lines_of


@pytest.mark.parametrize(("text", "lines"), [
    ("", []),
    ("\n", [""]),
    ("a", ["a"]),
    ("a\n", ["a"]),
    ("a\r\nb", ["a", "b"]),
    ("a\rb\n\nc\x0cd\u2028e\x85f\n", ["a\rb", "", "c\x0cd\u2028e\x85f"]),
    ("a\r\r\n", ["a\r"]),
])
def test_lines_end_at_newline_only(text, lines):
    assert lines_of(text) == lines
    assert count_lines(text) == len(lines)
    assert "".join(lines_of(text, keepends=True)) == text
    assert len(lines_of(text, keepends=True)) == len(lines)
