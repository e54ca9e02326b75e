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
