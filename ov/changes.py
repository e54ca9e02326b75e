"""The one shape ``--json`` gives what a command changed, or would change, in the store.

Each URI once, as ``{uri, change}`` with ``change`` one of ``added``, ``modified`` or
``deleted``, sorted by URI: ``ov snapshot show`` and ``diff`` give it for each file (with its
diff); a restore and an import's dry run give it beside the lists in their own words
(``written``, ``replaced``, ...), which scripts read and which stay.
"""

from __future__ import annotations

from collections.abc import Iterable

KINDS = ("added", "modified", "deleted")


def listed_changes(added: Iterable[str] = (), modified: Iterable[str] = (), deleted: Iterable[str] = ()) -> list[dict]:
    """``{uri, change}`` for each URI of ``added``, ``modified`` and ``deleted``, by URI."""
    kinds = [(uri, kind) for kind, uris in zip(KINDS, (added, modified, deleted)) for uri in uris]
    return [{"uri": uri, "change": kind} for uri, kind in sorted(kinds)]
