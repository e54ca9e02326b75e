"""How a long operation of the core says how far along it is.

A core function that can run for seconds on a large store (adding a tree of files, building the
index, writing or reading a pack, checking the store) takes an optional ``progress`` callback and
calls it as ``progress(stage, done, total)``: ``stage`` is a short phrase a person reads ("reading
files"), ``done`` how many of its steps are done, ``total`` how many there are, or None when that is
not known in advance. The core neither knows nor cares what is done with it: the command line draws
a bar on a terminal (:mod:`ov.cli.progress`); the hooks pass nothing. A callback may raise to stop
the operation between two steps, which then ends as on any error, one commit or nothing: the MCP
server's ``add_resource`` does when its call is cancelled or the server stops.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

Progress = Callable[[str, int, int | None], None]

T = TypeVar("T")


def counting(items: Iterable[T], progress: Progress | None, stage: str, total: int | None = None) -> Iterator[T]:
    """``items`` one by one, reporting each as a step of ``stage`` done once it is handled; ``total``
    defaults to the length of ``items`` when they have one."""
    if progress is None:
        yield from items
        return
    if total is None and hasattr(items, "__len__"):
        total = len(items)
    progress(stage, 0, total)
    for done, item in enumerate(items, 1):
        yield item
        progress(stage, done, total)
