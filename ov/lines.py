"""Lines of a text, numbered as git, grep and ``snapshot diff`` number them.

A line ends at "\\n" and nowhere else. ``str.splitlines`` also ends one at "\\r", form feed,
vertical tab, \\x1c-\\x1e, \\x85, U+2028 and U+2029, so a file holding any of them had more lines in
``ov grep``, ``ov read -n`` and ``ov find`` than in git and the user's editor, and an agent editing by
line number edited the wrong line. A "\\r" before "\\n" belongs to the line end (CRLF files); a lone
"\\r" is part of its line, as git sees it.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import BinaryIO


def lines_of(text: str, *, keepends: bool = False) -> list[str]:
    """``text``'s lines: without their ends ("\\n" or "\\r\\n"), or with them (``keepends``), so that
    joining those gives ``text`` back. A last line without "\\n" is a line; "" has none."""
    parts = text.split("\n")
    last = parts.pop()
    if keepends:
        out = [part + "\n" for part in parts]
    else:
        out = [part[:-1] if part.endswith("\r") else part for part in parts]
    if last:
        out.append(last)
    return out


def unended(line: str) -> str:
    """A line as :func:`lines_of` cuts it with its end (``keepends``), without that end."""
    if line.endswith("\n"):
        return line[:-2] if line.endswith("\r\n") else line[:-1]
    return line


# How much of a file FileLines reads at a time: what it holds of a file it only scans or skips.
_CHUNK = 1 << 20


class FileLines:
    """The lines of a file open for reading in binary, as :func:`lines_of` cuts them, read from
    disk as they are taken: a caller that shows part of a large file, or of many, holds that part
    and not the files (``read`` of twenty 8 MB files held 650 MB to answer 40,000 characters).
    Made by :meth:`scan`, which reads the file once in bounded chunks to count its lines and to
    tell it is text, as :func:`~ov.files.looks_binary` tells it of the whole file."""

    def __init__(self, file: BinaryIO, total: int, size: int) -> None:
        self.file = file
        self.total = total  # its lines, as count_lines counts them
        self.size = size  # bytes

    @classmethod
    def scan(cls, file: BinaryIO) -> FileLines | None:
        """The lines of ``file``; None when it is not UTF-8 text (a NUL byte or a sequence that
        does not decode, anywhere in it)."""
        decoder = codecs.getincrementaldecoder("utf-8")()  # a character may straddle two chunks
        newlines = size = 0
        last = b""
        try:
            while chunk := file.read(_CHUNK):
                if b"\x00" in chunk:
                    return None
                decoder.decode(chunk)
                newlines += chunk.count(b"\n")
                size += len(chunk)
                last = chunk[-1:]
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return None
        return cls(file, newlines + (1 if size and last != b"\n" else 0), size)

    def text(self) -> str:
        """The whole file."""
        self.file.seek(0)
        return self.file.read().decode("utf-8")

    def lines(self, first: int = 1, last: int | None = None, *, longest: int | None = None) -> Iterator[str]:
        """Lines ``first`` to ``last`` (from 1, both included; None: to the end), each with its
        end; a line longer than ``longest`` characters comes as its first ``longest``, without
        its end, and what the caller cannot show is never read whole (a minified file's line)."""
        self.file.seek(0)
        for _ in range(first - 1):
            if not self._skip_line():
                return
        number = first
        while last is None or number <= last:
            raw = self.file.readline() if longest is None else self.file.readline(4 * longest + 4)  # 4: UTF-8's longest character
            if not raw:
                return
            if longest is not None and not raw.endswith(b"\n") and len(raw) == 4 * longest + 4:
                # Read no further than that: the last character may be cut by the bytes' count
                # (left out), and the rest of the line is skipped.
                line = raw.decode("utf-8", "ignore")
                self._skip_line()
            else:
                line = raw.decode("utf-8")
            if longest is not None and len(unended(line)) > longest:
                line = line[:longest]
            yield line
            number += 1

    def _skip_line(self) -> bool:
        """Reads past the rest of a line in bounded parts; False at the file's end."""
        raw = self.file.readline(_CHUNK)
        while raw and not raw.endswith(b"\n"):
            raw = self.file.readline(_CHUNK)
        return bool(raw)


def count_lines(text: str) -> int:
    """How many lines ``text`` has, as :func:`lines_of` cuts them."""
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def even_runs(spans: list[tuple[int, int]], sizes: list[int], most: int) -> list[tuple[int, int]]:
    """Consecutive ``spans`` (line ranges, with their ``sizes`` in tokens) joined into runs of at most
    ``most`` where the spans allow, about evenly sized: as many runs as the total needs, each closed
    once it reaches the average, so the last is not a stub. Shared by the splitter of long documents
    and the chunker of code."""
    total = sum(sizes)
    target = total / max(1, -(-total // most))
    out: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    current_size = 0
    for (a, b), size in zip(spans, sizes, strict=True):
        if current is not None and (current_size + size > most or current_size >= target):
            out.append(current)
            current, current_size = None, 0
        current = (current[0] if current else a, b)
        current_size += size
    if current is not None:
        out.append(current)
    return out
