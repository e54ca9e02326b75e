"""The ops a patch of a memory's text is made of, read from what the planner gives.

Text (one op per line), ``{"replace": line, "with": line}``, ``{"supersede": [probe, ...],
"with": line, ...}`` and ``{"swap": value, "to": value, ...}``, or a list of them;
:func:`ov.sessions.memory.merge.patch_text` applies them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ov.errors import InvalidInput


@dataclass(frozen=True)
class Supersede:
    """A memory line that replaces the lines its probes match."""

    probes: tuple[str, ...]
    line: str
    append: bool = True  # when no probe matches: merge the line as text (False: drop it)
    otherwise: str | None = None  # the line to merge then instead of ``line``
    present: tuple[str, ...] = ()  # a stored line matching one of these already says it: nothing to do


@dataclass(frozen=True)
class Swap:
    """A changed value: ``old`` becomes ``new`` in the lines that name it (see :func:`ov.sessions.memory.merge.apply_swap`)."""

    old: str
    new: str
    otherwise: str | None  # merged as text when no line names ``old``


def _one_line(value: Any, what: str) -> str:
    if not isinstance(value, str) or len(value.strip().splitlines()) != 1:
        raise InvalidInput(f"{what} is one line of text")
    return value


def parse_ops(incoming: Any) -> list[str | tuple[str, str] | Supersede | Swap]:
    """The ops of a patch, in order (see :func:`ov.sessions.memory.merge.patch_text` for what each
    does); InvalidInput for one of no known shape."""
    if isinstance(incoming, str):
        return list(incoming.splitlines())
    if isinstance(incoming, Mapping):
        if {"supersede", "with"} <= set(incoming) <= {"supersede", "with", "append", "otherwise", "present"}:
            probes, line, append = incoming["supersede"], incoming["with"], incoming.get("append", True)
            present = incoming.get("present", ())
            if any(isinstance(p, str) or not isinstance(p, Sequence) or not all(isinstance(x, str) for x in p) for p in (probes, present)):
                raise InvalidInput('a supersede op is {"supersede": ["probe", ...], "with": "new line"}')
            line = _one_line(line, "a supersede op's new line")
            if not isinstance(append, bool):
                raise InvalidInput('a supersede op\'s "append" is true or false')
            otherwise = incoming.get("otherwise")
            otherwise = None if otherwise is None else _one_line(otherwise, 'a supersede op\'s "otherwise"')
            return [Supersede(tuple(probes), line, append, otherwise, tuple(present))]
        if {"swap", "to"} <= set(incoming) <= {"swap", "to", "otherwise"}:
            old, new = _one_line(incoming["swap"], "a swap op's value").strip(), _one_line(incoming["to"], "a swap op's new value").strip()
            if not old or not new:
                raise InvalidInput('a swap op is {"swap": "old value", "to": "new value"}')
            otherwise = incoming.get("otherwise")
            return [Swap(old, new, None if otherwise is None else _one_line(otherwise, 'a swap op\'s "otherwise"'))]
        if set(incoming) != {"replace", "with"} or not all(isinstance(v, str) for v in incoming.values()):
            raise InvalidInput('a patch op is {"replace": "old line", "with": "new line"}')
        return [(incoming["replace"], incoming["with"])]
    if isinstance(incoming, Sequence):
        ops: list[str | tuple[str, str] | Supersede | Swap] = []
        for item in incoming:
            ops.extend(parse_ops(item))
        return ops
    raise InvalidInput(f"a patch takes text or replace ops, not {type(incoming).__name__}")
