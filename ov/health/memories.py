"""Memory files ov cannot read: what ``ov fsck`` and ``ov doctor`` report of them.

A memory file is Markdown the user may edit by hand; an editor that saves it in another encoding
(Latin-1, UTF-16) leaves a file that ``ov remember`` and every session commit must merge into and
cannot, and that recall leaves out. They are found on disk, where those commands read them.
"""

from __future__ import annotations

import os
from pathlib import Path

from ov.uri import VikingURI


def not_text(store) -> list[VikingURI]:
    """The memory files (the user's and every peer's, ``*.md``) that are not UTF-8 text, sorted."""
    found: list[VikingURI] = []
    users = store.root / "user"
    try:
        ids = sorted(entry.name for entry in os.scandir(users) if entry.is_dir(follow_symlinks=False))
    except OSError:
        return found
    for user in ids:
        roots = [("user", user, "memories")]
        try:
            roots += [("user", user, "peers", e.name, "memories") for e in os.scandir(users / user / "peers") if e.is_dir(follow_symlinks=False)]
        except OSError:
            pass  # no peers
        for parts in sorted(roots):
            found.extend(_below(store.root, parts))
    return found


def _below(root: Path, parts: tuple[str, ...]) -> list[VikingURI]:
    out = []
    top = root.joinpath(*parts)
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".md") or name.startswith("."):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as handle:
                    handle.read().decode("utf-8")
            except UnicodeDecodeError:
                rel = os.path.relpath(path, top).split(os.sep)
                out.append(VikingURI((*parts, *rel)))
            except OSError:
                continue  # gone meanwhile, or unreadable: other checks say so
    return out


def dated_note_user(path: str) -> str | None:
    """The user whose dated note (a user's or a peer's ``memories/events/...md``) HEAD's ``path``
    is, or None when it is none."""
    from ov.sessions.memory.refile import is_dated_note

    parts = path.split("/")
    if len(parts) < 4 or parts[0] != "user":
        return None
    rel = parts[3:] if parts[2] == "memories" else parts[5:] if parts[2] == "peers" and len(parts) > 5 and parts[4] == "memories" else None
    return parts[1] if rel is not None and is_dated_note("/".join(rel)) else None


def misfiled(store, notes: list[tuple[str, bytes]]) -> list[str]:
    """The paths of the dated ``notes`` (HEAD's path, its bytes) an older ov made of what today's
    ``ov remember`` files as a preference, a fact or a profile line (:mod:`ov.sessions.memory.refile`)."""
    if not notes:
        return []
    from ov.sessions.memory.refile import refiled
    from ov.sessions.memory.schema import load_schemas

    schemas = load_schemas(store.home.root / "memory_schemas")
    out = []
    for path, data in notes:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # said as not text
        if refiled(text, schemas, dated_note_user(path)):
            out.append(path)
    return out
