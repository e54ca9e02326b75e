"""Edits made by hand in the work tree: finding them and keeping the git index honest.

ov writes commits without touching ``.git/index`` (rewriting it would cost time
proportional to the store on every write). This module compares the work tree
with HEAD when asked (``ov status``, ``ov snapshot commit``), using the git
index as a stat cache, and then rewrites the index, when an entry differs, so that
plain ``git status`` in the account repository agrees with ``ov status``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ov.store.gitstore import INDEX_PENDING, GitStore, escape_problem
from ov.store.treepaths import FILE_MODES, NOT_TEXT, shown, stored_problem
from ov.uri import PUBLIC_SCOPES, TEMP_MARKER, from_path, hidden_ids, work_path_problem


@dataclass
class WorktreeChanges:
    """Paths (relative to the work tree) that differ from HEAD."""

    modified: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    # Present in the work tree but not addressable by a viking:// URI (never committed).
    ignored: list[str] = field(default_factory=list)
    # Temporary files of atomic writes that a killed ov left behind (never content).
    temporary: list[str] = field(default_factory=list)
    # Folders below the scopes holding a git repository of their own (a submodule's checkout, a
    # clone), "resources/lib/": another repository's files, never walked into nor recorded.
    repositories: list[str] = field(default_factory=list)
    # Paths HEAD holds that lead out of the work tree or into .git (a pull took them in before
    # pulls were checked), and symbolic links and submodules (committed with plain git) -> why:
    # ov never writes them, so they are among ``deleted`` too, and a snapshot commit drops them
    # from the tree without touching what is at the place they name.
    unsafe: dict[str, str] = field(default_factory=dict)
    # HEAD's files (path -> blob id) the work tree was compared with: what else `ov status` asks of
    # HEAD's tree is read from it, not from a second walk (0.5 s at 16,000 files).
    committed: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def clean(self) -> bool:
        return not (self.modified or self.added or self.deleted)

    @property
    def changed_paths(self) -> list[str]:
        return sorted(self.modified + self.added + self.deleted)


def scan(git: GitStore, refresh_index: bool = True) -> WorktreeChanges:
    """Compare every file of the work tree with HEAD."""
    from dulwich.index import Index, IndexEntry, index_entry_from_stat

    head_tree = git.tree_of(git.head())
    committed: dict[str, bytes] = {}
    odd: dict[str, int] = {}  # path -> mode of each entry that is not a regular file (a link, a submodule)
    for rel, mode, sha in git.iter_entries(head_tree):
        committed[rel] = sha
        if mode not in FILE_MODES:
            odd[rel] = mode
    index_path = Path(git.repo.index_path())
    index = Index(str(index_path)) if index_path.exists() else None
    index_mtime = index_path.stat().st_mtime_ns if index is not None else 0
    changes = WorktreeChanges(committed=committed)
    seen: dict[str, tuple[os.stat_result, bytes]] = {}
    racy = False
    for rel, st in _walk(git.worktree, changes.ignored, changes.temporary, changes.repositories):
        if shown(rel) != rel or (rel not in committed and not recorded(rel, lambda folder: any(p.startswith(folder + "/") for p in committed))):
            # Named as no URI can name it (`.gitattributes`, `a\b.md`, `user/Bad User/x.md`), or
            # where ov keeps a folder: never recorded, or no command could remove it and no backup
            # of the store would restore. A name that is not UTF-8 (os.walk keeps its bytes as
            # surrogates) is never kept even where HEAD holds it: it is among the unsafe below.
            changes.ignored.append(rel)
            continue
        key = rel.encode()
        cached = index[key] if index is not None and key in index else None
        sha = None
        if isinstance(cached, IndexEntry) and cached.sha == committed.get(rel) and _stat_matches(st, cached):
            if st.st_mtime_ns < index_mtime:
                sha = cached.sha
            else:
                racy = True  # "racily clean": re-read, as git does, and the index written again
        if sha is None:
            sha = git.blob_id((git.worktree / rel).read_bytes())
        seen[rel] = (st, sha)
        if rel not in committed:
            changes.added.append(rel)
        elif committed[rel] != sha:
            changes.modified.append(rel)
    changes.deleted = sorted(p for p in committed if p not in seen)
    for rel in changes.deleted:
        # A symbolic link or a submodule (committed with plain git) is never a file ov wrote: not
        # "deleted", though no regular file is there, and the link on disk is not the user's edit.
        problem = escape_problem(rel) or (NOT_TEXT if shown(rel) != rel else None) or (stored_problem(rel, odd[rel]) if rel in odd else None)
        if problem is not None:
            changes.unsafe[rel] = problem
    if changes.unsafe:  # named once, for what it is (a submodule HEAD holds: unsafe, not a repository)
        changes.ignored = [rel for rel in changes.ignored if rel not in changes.unsafe]
        changes.repositories = [rel for rel in changes.repositories if rel.removesuffix("/") not in changes.unsafe]
    changes.added.sort()
    changes.modified.sort()
    if refresh_index:
        pending = git.state / INDEX_PENDING
        # Written only when an entry changed: a clean status of a large store rewrote every entry
        # (~1 s at 30,000 files) under the write lock, while writers waited.
        if index is None or pending.exists() or racy or not _index_holds(index, committed, seen):
            try:
                _write_index(git, _index_entries(committed, seen, index_entry_from_stat), Index)
                pending.unlink(missing_ok=True)  # every path is up to date now
            except OSError:
                pass  # a stat cache for git and for the next scan; a full disk must not fail `ov status`
    return changes


def recorded(rel: str, held: Callable[[str], bool]) -> bool:
    """Whether a new file at work-tree path ``rel`` (HEAD does not hold it) is one ov could have
    written there, which a snapshot commit records; ``held(folder)``: whether HEAD holds files
    below that folder. A URI may name an id an older ov made starting with '.' (``user/.bob``): a
    new file there is recorded while HEAD holds that id, but a new such id never is; nor a new
    name with surrounding spaces, which an older ov stored and ov still reads where HEAD has it."""
    if work_path_problem(rel) is not None:
        return False
    hidden = hidden_ids(from_path(rel)) if rel.startswith("user/") else []
    # Rare (a hidden id), so HEAD's paths are looked through only then.
    return all(held(folder.path) for folder in hidden)


def own_repository(rel: str, folder: str | os.PathLike) -> bool:
    """Whether the work-tree folder at ``rel`` (``resources/lib``), on disk at ``folder``, holds a
    git repository of its own (a submodule's checkout has a ``.git`` file, a clone a folder): its
    files are another repository's, as git leaves them out of this one, so no status, listing or
    walk of ov's goes into it. A scope's own folder is the store's, whatever a ``.git`` in it says."""
    return "/" in rel and os.path.lexists(os.path.join(folder, ".git"))


def read_changes(git: GitStore, changes: WorktreeChanges) -> dict[str, bytes | None]:
    """The work-tree contents of every changed path (None for deleted ones)."""
    out: dict[str, bytes | None] = {p: None for p in changes.deleted}
    for rel in changes.modified + changes.added:
        out[rel] = (git.worktree / rel).read_bytes()
    return out


def _walk(root: Path, ignored: list[str], temporary: list[str], repositories: list[str]):
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        if rel_dir == ".":
            for name in list(dirnames):
                if name not in PUBLIC_SCOPES:
                    if name != ".git":
                        ignored.append(name + "/")
                    dirnames.remove(name)
            ignored.extend(sorted(filenames))
            dirnames.sort()
            continue
        if own_repository(rel_dir.replace(os.sep, "/"), dirpath):
            repositories.append(rel_dir.replace(os.sep, "/") + "/")
            dirnames.clear()
            continue
        dirnames.sort()
        for name in sorted(filenames):
            rel = f"{rel_dir}/{name}".replace(os.sep, "/")
            if TEMP_MARKER in name:
                temporary.append(rel)
                continue
            st = os.lstat(os.path.join(dirpath, name))
            if not _is_regular(st):
                ignored.append(rel)
                continue
            yield rel, st


def _is_regular(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISREG(st.st_mode)


def _stat_matches(st: os.stat_result, entry) -> bool:
    """Whether the file is as the index saw it. The change time too, as git does
    (``core.trustctime``): an edit that keeps the size and puts the mtime back (``touch -r``,
    ``rsync -t``, ``cp -p``) changes only that, and was taken for no edit at all."""
    mtime = entry.mtime if isinstance(entry.mtime, tuple) else (int(entry.mtime), 0)
    ctime = entry.ctime if isinstance(entry.ctime, tuple) else (int(entry.ctime), 0)
    return (
        entry.size == (st.st_size & 0xFFFFFFFF)
        and mtime[0] == int(st.st_mtime)
        and mtime[1] == st.st_mtime_ns % 1_000_000_000
        and (ctime[0] & 0xFFFFFFFF) == (int(st.st_ctime) & 0xFFFFFFFF)
        and ctime[1] == st.st_ctime_ns % 1_000_000_000
        and entry.ino == (st.st_ino & 0xFFFFFFFF)
    )


def _index_entries(committed, seen, entry_from_stat) -> dict:
    """The git index that equals HEAD, with fresh stat data for files that match it."""
    entries = {}
    for rel, sha in committed.items():
        st_sha = seen.get(rel)
        if st_sha is not None and st_sha[1] == sha:
            entries[rel.encode("utf-8", "surrogateescape")] = entry_from_stat(st_sha[0], sha)
        else:
            # Zeroed stat data: git will re-read the file and see it differ from HEAD.
            entries[rel.encode("utf-8", "surrogateescape")] = entry_from_stat(os.stat_result((0o100644,) + (0,) * 9), sha)
    return entries


def _index_holds(index, committed: dict[str, bytes], seen: dict[str, tuple[os.stat_result, bytes]]) -> bool:
    """Whether the git index on disk already holds what :func:`_index_entries` would write, as
    the index file keeps it (times to the nanosecond, the other numbers cut to 32 bits)."""
    from dulwich.index import IndexEntry, cleanup_mode

    if len(index) != len(committed):
        return False
    zeroed = ((0, 0), (0, 0), 0, 0, 0o100644, 0, 0, 0)
    for rel, sha in committed.items():
        key = rel.encode("utf-8", "surrogateescape")
        try:
            have = index[key]
        except KeyError:
            return False
        if not isinstance(have, IndexEntry):  # a merge's conflict
            return False
        st_sha = seen.get(rel)
        if st_sha is not None and st_sha[1] == sha:
            st = st_sha[0]
            want = (
                divmod(st.st_ctime_ns, 1_000_000_000), divmod(st.st_mtime_ns, 1_000_000_000), st.st_dev & _MASK,
                st.st_ino & _MASK, cleanup_mode(st.st_mode), st.st_uid & _MASK, st.st_gid & _MASK, st.st_size & _MASK,
            )
        else:
            want = zeroed
        if have.sha != sha or _as_stored(have) != want:
            return False
    return True


_MASK = 0xFFFFFFFF  # the index file keeps these numbers in 32 bits


def _as_stored(entry) -> tuple:
    def when(t) -> tuple[int, int]:
        return t if isinstance(t, tuple) else (int(t), round((t - int(t)) * 1_000_000_000))

    return (
        when(entry.ctime), when(entry.mtime), entry.dev & _MASK, entry.ino & _MASK, entry.mode,
        entry.uid & _MASK, entry.gid & _MASK, entry.size & _MASK,
    )


def _write_index(git: GitStore, entries: dict, index_cls) -> None:
    """Write the git index as ``entries``."""
    index = index_cls(git.repo.index_path(), read=False)
    for key, entry in entries.items():
        index[key] = entry
    index.write()
