"""Which resources were added from which local folder: the project a coding agent works in.

`ov add-resource ~/code/shop` records its source in the folder it made (``.sources.json``:
``{"source": {"kind": "directory", "uri": "/home/me/code/shop"}}``). A hook knows the folder its
agent works in (its ``cwd``): the resources added from that folder, or from one holding it, are
that project's, and those added from another local folder are another project's. Search then
answers a file named in a prompt ("update README.md") from the project's own copy first, and the
prompt's block marks what comes from another project (docs/hosts.md).

Read on every prompt: only the resources' top folders and the folders one level below them are
looked at, and of each manifest only its ``source``, which sorted keys put at its end (the list of
files before it holds one entry a file).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import PurePath

from ov.store import sidecar
from ov.uri import VikingURI

# Where a manifest's "source" is looked for first: its end (sorted keys: source, then version).
_TAIL = 4096
# How deep below resources/ an added folder's manifest is looked for (resources/shop, resources/work/shop).
_DEPTH = 2


@dataclass(frozen=True)
class Projects:
    """The resources added from local folders, as seen from one working folder (store paths)."""

    home: tuple[str, ...] = ()  # added from the working folder or a folder holding it
    elsewhere: tuple[str, ...] = ()  # added from another local folder: another project's


def projects(store, cwd: str | None) -> Projects:
    """The resources added from a local folder, split by whether that folder holds ``cwd`` (the
    folder a hook's agent works in); nothing for no ``cwd``."""
    if not cwd:
        return Projects()
    here = _resolved(cwd)
    home: list[str] = []
    elsewhere: list[str] = []
    for path, source in added_folders(store):
        folder = _resolved(source)
        (home if here == folder or folder in here.parents else elsewhere).append(path)
    return Projects(tuple(home), tuple(elsewhere))


def added_folders(store) -> list[tuple[str, str]]:
    """(store path, source folder) of each resource added from a local folder."""
    root = VikingURI(("resources",))
    out: list[tuple[str, str]] = []
    pending = [(store.path(root), root.path, 1)]
    while pending:
        folder, path, depth = pending.pop()
        try:
            with os.scandir(folder) as entries:
                children = sorted((e.name, e.path) for e in entries if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        for name, child in children:
            source = _source_folder(os.path.join(child, sidecar.MANIFEST))
            if source is not None:
                out.append((f"{path}/{name}", source))
            elif depth < _DEPTH:
                pending.append((child, f"{path}/{name}", depth + 1))
    return out


def _source_folder(manifest: str) -> str | None:
    """The local folder the manifest at ``manifest`` says its resource was added from, or None
    (no manifest, another kind of source, unreadable)."""
    try:
        with open(manifest, "rb") as f:
            size = f.seek(0, os.SEEK_END)
            f.seek(max(size - _TAIL, 0))
            tail = f.read().decode("utf-8", errors="replace")
            source = _source_in(tail)
            if source is None and size > _TAIL:
                f.seek(0)
                data = json.loads(f.read())
                source = data.get("source") if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None
    if not isinstance(source, dict) or source.get("kind") != "directory" or not isinstance(source.get("uri"), str):
        return None
    return source["uri"]


def _source_in(text: str) -> dict | None:
    """The ``"source"`` object in the end of a manifest, or None when it is not there whole."""
    at = text.rfind('"source":')
    if at < 0:
        return None
    start = text.find("{", at)
    try:
        found, _ = json.JSONDecoder().raw_decode(text, start) if start >= 0 else (None, 0)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def _resolved(folder: str) -> PurePath:
    try:
        return PurePath(os.path.realpath(folder))
    except (OSError, ValueError):
        return PurePath(folder)
