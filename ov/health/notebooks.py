"""Notebooks an older ov stored as JSON: what ``ov fsck`` reports of them, and ``ov status`` counts.

ov stores a Jupyter notebook as the Markdown a reader sees (:mod:`ov.ingest.notebook`); one added
before that is still its JSON, base64 plots and all, committed, indexed and shown in snippets as
such, until its source is added again. Nothing is rewritten behind the user's back: the notebook's
source may have changed since, and adding it again is what brings the folder up to date.
"""

from __future__ import annotations

import shlex

from ov.uri import VikingURI
from ov.wording import counted


def stored_as_json(paths_and_data: list[tuple[str, bytes]]) -> list[str]:
    """Of HEAD's ``.ipynb`` files (path, content), those whose content is a notebook's JSON."""
    from ov.ingest.notebook import notebook_markdown

    found = []
    for path, data in paths_and_data:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if notebook_markdown(text) is not None:
            found.append(path)
    return found


def at_head(git, committed: dict[str, bytes] | None = None) -> list[str]:
    """HEAD's notebooks stored as JSON, for ``ov status``: one line there, ``ov fsck`` the rest. A
    blob that is missing or damaged is fsck's to report, not counted here. ``committed``: HEAD's
    files (path -> blob id) when the caller walked its tree already."""
    from ov.store.gitstore import object_damage

    if committed is None:
        committed = {path: sha for path, _mode, sha in git.iter_entries(git.tree_of(git.head()))}
    found = []
    for path, sha in committed.items():
        if path.lower().endswith(".ipynb"):
            try:
                found.append((path, git.blob_data(sha)))
            except (KeyError, *object_damage()):
                continue
    return stored_as_json(found)


def finding(store, paths: list[str], listed) -> tuple[str, str]:
    """The note's message and fix for ``paths``; ``listed`` shows a list of paths."""
    from ov.ingest.origin import added_from

    found = [(p, added_from(store, VikingURI(tuple(p.split("/"))))) for p in paths]
    sources = list(dict.fromkeys(source for _, source in found if source is not None))
    message = (
        f"{counted(len(paths), 'notebook')} stored as JSON by an older ov (ov stores a notebook as Markdown now, "
        f"without its base64 images): {listed(paths)}; searched and shown as JSON until added again"
    )
    fixes = []
    if sources:
        more = f" (and {counted(len(sources) - 1, 'other source')} of them)" if len(sources) > 1 else ""
        fixes.append(f"`ov add-resource {shlex.quote(sources[0])}` adds the notebook's folder again, as Markdown, and removes the JSON{more}")
    if any(source is None for _, source in found):
        fixes.append("one no add-resource made: `ov add-resource` the notebook again (stored as Markdown), then `ov rm` the JSON copy")
    return message, "; ".join(fixes)
