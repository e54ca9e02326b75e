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


_ODD = "a\r\nb\rc\n\nü€𝄞 wide line of many characters\x0c\u2028x\r\r\nlast without end"


@pytest.mark.parametrize("chunk", [1 << 20, 3])
def test_a_files_lines_are_read_as_lines_of_cuts_them_and_a_line_too_long_comes_cut(chunk, monkeypatch):
    """FileLines reads a file in parts (here 3 bytes, so a character straddles two of them) and
    numbers its lines as lines_of does; a line longer than asked comes as its start only."""
    import io

    from ov import lines as module
    from ov.lines import FileLines, unended

    monkeypatch.setattr(module, "_CHUNK", chunk)
    whole = lines_of(_ODD, keepends=True)
    read = FileLines.scan(io.BytesIO(_ODD.encode()))
    assert read is not None and read.total == count_lines(_ODD) == len(whole) and read.text() == _ODD
    for first in range(1, len(whole) + 2):
        for last in (None, first, first + 1, len(whole)):
            assert list(read.lines(first, last)) == whole[first - 1 : last], (first, last)
    assert [unended(line) for line in read.lines()] == lines_of(_ODD)
    assert list(read.lines(4, 5, longest=5)) == ["ü€𝄞 w", "last "]  # the next line read from its start
    assert list(read.lines(1, 3, longest=1)) == ["a\r\n", "b", "\n"]  # a line's end is not counted


@pytest.mark.parametrize("data", [b"fine\n" * 5 + b"\x00", b"fine\n" * 5 + b"\xff", b"fine\n" * 5 + "é".encode()[:1]])
def test_a_file_that_is_not_text_anywhere_is_told_from_text(data, monkeypatch):
    import io

    from ov import lines as module
    from ov.lines import FileLines

    monkeypatch.setattr(module, "_CHUNK", 4)
    assert FileLines.scan(io.BytesIO(data)) is None
    assert FileLines.scan(io.BytesIO(data[:-1])) is not None
