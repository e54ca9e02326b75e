"""The newest merge commit HEAD reaches, found without reading the whole history each time.

`ov status` lists what the last pull's merge kept although the remote deleted it (its
``Ov-Conflict-Kept`` trailers, :func:`ov.history.remotes.kept_conflicts`). That merge may lie any
number of commits back: looking only at the last few hundred forgot it, and reading the whole
history on every status costs seconds in a store of 20,000 commits. So the answer is remembered
in the account's state folder, derived data like the indices, with the HEAD it was found for;
the next call reads only the commits made since that HEAD (none, most of the time). Without a
memo (a new ov, a state folder removed) or when that HEAD is no longer in HEAD's history (a
branch reset with plain git), the history is read back to the newest merge once, and the memo
written again.
"""

from __future__ import annotations

import json

from ov.files import atomic_write

MEMO = "last-merge.json"
_VERSION = 1


def newest_merge(git):
    """The merge commit (two parents or more) HEAD reaches that git's walk (newest commit time
    first) meets first, or None; as a full walk would say, reading only the new commits."""
    head = git.head()
    if head is None:
        return None
    memo = _read(git)
    if memo is not None and memo[0] == head:
        return _commit(git, memo[1])
    merge = _since(git, head, memo) if memo is not None else _AGAIN
    if merge is _AGAIN:
        merge = _walk(git, include=[head])
    _write(git, head, merge.id if merge is not None else None)
    return merge


# What _since says when the memo cannot be built on: the history is read again.
_AGAIN = object()


def _since(git, head: bytes, memo: tuple[bytes, bytes | None]):
    """The newest of the merges among the commits HEAD reaches and the memo's HEAD does not, and
    the memo's merge (None: none at all); :data:`_AGAIN` when the memo's HEAD is not in HEAD's
    history (or its merge is gone)."""
    known, remembered_id = memo
    if known not in git.repo.object_store:
        return _AGAIN
    joined, newest = False, None
    for entry in git.repo.get_walker(include=[head], exclude=[known]):
        commit = entry.commit
        joined = joined or known in commit.parents  # one of the commits since has the memo's HEAD as a parent
        if newest is None and len(commit.parents) > 1:
            newest = commit
    if not joined:
        return _AGAIN  # a history rewritten below it
    remembered = _commit(git, remembered_id)
    if remembered_id is not None and remembered is None:
        return _AGAIN
    if newest is None or (remembered is not None and remembered.commit_time > newest.commit_time):
        return remembered
    return newest


def _walk(git, include: list[bytes]):
    for entry in git.repo.get_walker(include=include):
        if len(entry.commit.parents) > 1:
            return entry.commit
    return None


def _commit(git, sha: bytes | None):
    if sha is None:
        return None
    try:
        return git.repo[sha]
    except KeyError:
        return None


def _read(git) -> tuple[bytes, bytes | None] | None:
    try:
        memo = json.loads((git.state / MEMO).read_text(encoding="utf-8"))
        head, merge = memo["head"], memo["merge"]
        if memo.get("version") != _VERSION or not isinstance(head, str) or not (merge is None or isinstance(merge, str)):
            return None
        return head.encode("ascii"), merge.encode("ascii") if merge else None
    except (OSError, ValueError, KeyError, TypeError, UnicodeError):
        return None  # none, or unreadable: found again


def _write(git, head: bytes, merge: bytes | None) -> None:
    memo = {"version": _VERSION, "head": head.decode(), "merge": merge.decode() if merge else None}
    try:
        atomic_write(git.state / MEMO, json.dumps(memo, sort_keys=True).encode(), durable=False)
    except OSError:
        pass  # a read-only state folder: found again next time, as without a memo
