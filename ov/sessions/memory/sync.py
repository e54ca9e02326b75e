"""Two versions of one memory file, as two machines sharing an account through git wrote them.

Each ``ov remember`` or session commit rewrites a memory's file (profile.md most of all), so two
machines that both learned something conflict on it at every pull. The file's lines are facts,
most of them keyed (``- Shell: zsh``): a pull's merge keeps every line of both sides; for a key
both sides changed since the common version, the side updated last (the trailer's
``updated_at``) wins; a line one side removed and the other left as it was goes. The trailers
are merged too (first created, last updated, the sources of both), so two sides that differ only
in ``updated_at`` are no conflict at all. What the rules cannot decide (a trailer that does not
parse, two kinds of memory) is left to the caller, which keeps both versions.
"""

from __future__ import annotations

from typing import Any

from ov.errors import InvalidInput
from ov.sessions.memory.files import parse_memory, render_memory
from ov.sessions.memory.lines import line_key, normalise


def merge_versions(base: str | None, ours: str, theirs: str) -> str | None:
    """The memory file keeping both ``ours`` and ``theirs`` (``base``: their common version, None
    when one side created it), or None when the rules cannot decide."""
    try:
        ours_text, ours_meta = parse_memory(ours)
        theirs_text, theirs_meta = parse_memory(theirs)
        base_text = parse_memory(base)[0] if base is not None else ""
    except InvalidInput:
        return None
    if not ours_meta or not theirs_meta or ours_meta.get("memory_type") != theirs_meta.get("memory_type"):
        return None
    theirs_newer = str(theirs_meta.get("updated_at", "")) > str(ours_meta.get("updated_at", ""))
    lines = _merged_lines(_lines(base_text), _lines(ours_text), _lines(theirs_text), theirs_newer)
    return render_memory("\n".join(lines), _merged_meta(ours_meta, theirs_meta, theirs_newer))


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _merged_lines(base: list[str], ours: list[str], theirs: list[str], theirs_newer: bool) -> list[str]:
    base_seen = {normalise(line) for line in base}
    base_keys = {key: normalise(line) for line in base if (key := line_key(line)) is not None}
    ours_seen = {normalise(line) for line in ours}
    theirs_seen = {normalise(line) for line in theirs}
    theirs_keys = {key: line for line in theirs if (key := line_key(line)) is not None}
    out: list[str] = []
    taken: set[str] = set()
    for line in ours:
        key, norm = line_key(line), normalise(line)
        other = theirs_keys.get(key) if key is not None else None
        if other is not None and normalise(other) != norm:
            # The key changed on both sides, or on one: the side that changed it, else the newer.
            if norm == base_keys.get(key) or (normalise(other) != base_keys.get(key) and theirs_newer):
                line, norm = other, normalise(other)
        elif other is None and norm in base_seen and norm not in theirs_seen and key not in theirs_keys:
            continue  # removed there, left as it was here
        if norm not in taken:
            out.append(line)
            taken.add(norm)
    ours_keys = {line_key(line) for line in ours} - {None}
    for line in theirs:
        key, norm = line_key(line), normalise(line)
        if norm in taken or (key is not None and key in ours_keys):
            continue  # decided above, with ours of the same key
        if norm in base_seen and norm not in ours_seen:
            continue  # removed here, left as it was there
        out.append(line)
        taken.add(norm)
    return out


def _merged_meta(ours: dict[str, Any], theirs: dict[str, Any], theirs_newer: bool) -> dict[str, Any]:
    newer, older = (theirs, ours) if theirs_newer else (ours, theirs)
    meta = {**older, **newer}
    for key, pick in (("created_at", min), ("updated_at", max)):
        values = [str(m[key]) for m in (ours, theirs) if m.get(key)]
        if values:
            meta[key] = pick(values)
    versions = [m["version"] for m in (ours, theirs) if isinstance(m.get("version"), int)]
    if versions:
        meta["version"] = max(versions)
    meta["sources"] = list(dict.fromkeys([*(ours.get("sources") or []), *(theirs.get("sources") or [])]))
    return meta
