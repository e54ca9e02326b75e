"""Git deltas made in linear time, for the packer (:mod:`ov.store.packing`) and the fold
(:mod:`ov.store.packfold`).

dulwich's ``create_delta`` searches every pair of versions for what they share: 15 ms for some
30 KB pairs of a session file (text of few distinct characters), seconds for the 2 MB versions of
a long session's ``messages.jsonl``. What ov's files change is mostly at their ends (a file
appended to) or in whole lines (a session's ``.meta.json``, its counts at the top and its list of
ids growing at the end), which one pass over each version finds.
"""

from __future__ import annotations


def cheap_delta(base: bytes, target: bytes, enough: int, lines: bool = True) -> bytes:
    """The smaller of two git deltas making ``target`` from ``base``, each in linear time: what
    they share at the start and the end (a file appended to: all of it), then, when that leaves
    more than ``enough`` and ``lines``, the lines of ``target`` found in ``base`` (a file changed
    in several places: a session's ``.meta.json``, its counts at the top and its list of ids
    growing at the end, where the first left all between to insert)."""
    delta = _edge_delta(base, target)
    if len(delta) > enough and lines:
        delta = min(delta, _line_delta(base, target), key=len)
    return delta


def _edge_delta(base: bytes, target: bytes) -> bytes:
    """A git delta making ``target`` from ``base``: what they share at the start and at the end
    copied, the middle inserted."""
    most = min(len(base), len(target))
    view = memoryview(base)  # compared in place: a slice of bytes is a copy
    head = _shared(lambda n: target.startswith(view[:n]), most)
    tail = _shared(lambda n: target.endswith(view[len(base) - n :]), most - head)
    out = bytearray(_size(len(base)) + _size(len(target)))
    _copy(out, 0, head)
    _insert(out, memoryview(target)[head : len(target) - tail])
    _copy(out, len(base) - tail, tail)
    return bytes(out)


def _shared(same, most: int) -> int:
    """The largest n <= ``most`` with ``same(n)`` (which holds for every smaller n): a binary
    search of slice comparisons, memcmp in C."""
    low, high = 0, most
    while low < high:
        middle = (low + high + 1) // 2
        if same(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _line_delta(base: bytes, target: bytes) -> bytes:
    """A git delta making ``target`` from ``base`` line by line: each line of ``target`` that
    continues the bytes of ``base`` copied last, or is found among its lines, copied; the rest
    inserted. One pass over each."""
    starts: dict[bytes, int] = {}
    at = 0
    for line in _lines(base):
        starts.setdefault(line, at)
        at += len(line)
    out = bytearray(_size(len(base)) + _size(len(target)))
    copy_at, copy_length = 0, 0  # the copy being extended
    insert = bytearray()
    for line in _lines(target):
        if copy_length and base.startswith(line, copy_at + copy_length):
            copy_length += len(line)
            continue
        found = starts.get(line) if len(line) > 8 else None  # a copy costs up to 8 bytes
        if found is None:
            _copy(out, copy_at, copy_length)
            copy_length = 0
            insert += line
            continue
        _insert(out, insert)
        insert.clear()
        _copy(out, copy_at, copy_length)
        copy_at, copy_length = found, len(line)
    _copy(out, copy_at, copy_length)
    _insert(out, insert)
    return bytes(out)


def _lines(data: bytes) -> list[bytes]:
    """``data``'s lines, each with its newline (the last may have none)."""
    lines = data.split(b"\n")
    last = lines.pop()
    lines = [line + b"\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def _insert(out: bytearray, data: bytes | memoryview) -> None:
    """Insert instructions for ``data`` (127 bytes at most each)."""
    for at in range(0, len(data), 127):
        piece = data[at : at + 127]
        out.append(len(piece))
        out += piece


def _size(size: int) -> bytes:
    out = bytearray()
    while True:
        byte, size = size & 0x7F, size >> 7
        out.append(byte | (0x80 if size else 0))
        if not size:
            return bytes(out)


def _copy(out: bytearray, offset: int, length: int) -> None:
    """Copy instructions for ``length`` bytes of the base from ``offset`` (64 KiB at most each)."""
    while length > 0:
        size = min(length, 0xFFFF)
        op, args = 0x80, bytearray()
        for i in range(4):
            if offset >> (8 * i) & 0xFF:
                op |= 1 << i
                args.append(offset >> (8 * i) & 0xFF)
        for i in range(2):
            if size >> (8 * i) & 0xFF:
                op |= 1 << (4 + i)
                args.append(size >> (8 * i) & 0xFF)
        out.append(op)
        out += args
        offset += size
        length -= size
