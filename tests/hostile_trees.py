"""Commits whose trees hold paths ov never writes (``..``, ``.git``, links), built with dulwich as
a hostile remote (or a store that pulled one before pulls were checked) would hold them."""

from __future__ import annotations

import time
from pathlib import Path

BRANCH = b"refs/heads/main"
LINK, GITLINK, FILE, DIR = 0o120000, 0o160000, 0o100644, 0o040000


def add_commit(repo_path: Path, entries: dict[tuple[bytes, ...], tuple[int, bytes]], message: bytes = b"team notes\n") -> bytes:
    """Commit on top of ``main`` of the repository at ``repo_path`` its tree plus ``entries``
    (names from the root -> (mode, content; a commit id for a gitlink)), move ``main`` there, and
    return the commit's id. A name is taken as it is: it may be ``..`` or hold a ``/``."""
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.repo import Repo

    with Repo(str(repo_path)) as repo:
        store = repo.object_store
        head = repo.refs[BRANCH]
        root = store[store[head].tree]

        def put(tree, names: tuple[bytes, ...], mode: int, data: bytes) -> bytes:
            name = names[0]
            if len(names) == 1:
                if mode == GITLINK:
                    sha = data
                else:
                    blob = Blob.from_string(data)
                    store.add_object(blob)
                    sha = blob.id
                tree.add(name, mode, sha)
            else:
                sub = store[tree[name][1]] if name in tree and tree[name][0] == DIR else Tree()
                tree.add(name, DIR, put(sub, names[1:], mode, data))
            store.add_object(tree)
            return tree.id

        for names, (mode, data) in entries.items():
            put(root, names, mode, data)
        commit = Commit()
        commit.tree, commit.parents = root.id, [head]
        commit.author = commit.committer = b"mallory <m@example.com>"
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = message
        store.add_object(commit)
        repo.refs[BRANCH] = commit.id
        return commit.id


def up_and_over(levels: int, *names: bytes) -> tuple[bytes, ...]:
    """``..`` ``levels`` times, then ``names``: a path that leaves the folder it starts in."""
    return (b"..",) * levels + names
