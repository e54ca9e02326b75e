"""The account's git repository, written through dulwich.

This is the only module that writes git objects and refs. A commit is built
from the changed paths alone (``commit_tree_changes`` rewrites just the trees
on those paths), so its cost does not grow with the size of the store.

A commit is applied in an order that a crash at any point can be undone:

1. a journal naming the old head and the touched paths is written atomically
   to the account's state directory;
2. blobs, trees and the commit object go into the object store, flushed to
   disk (unreferenced objects are harmless), and the journal, now naming the new
   commit too, is flushed together with them;
3. the work-tree files are replaced atomically, one by one;
4. the branch ref moves from the old head to the new commit (compare-and-swap),
   Ctrl-C and a deadline's alarm held until the move is noted, so that neither rolls back a
   commit that landed (nor does an error git raises once the branch has moved);
5. the git index is brought in step with the new HEAD for the touched paths,
   and the journal is removed.

:meth:`GitStore.recover` (run under the write lock before every write) finds a
left-over journal and makes the work tree agree with whichever commit the ref
names, so no committed data is lost and no half-applied change survives. It
also removes what a killed writer leaves behind: git's ``*.lock`` files (which
would refuse every later write of the same ref or object) and the temporary
files of interrupted atomic writes.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ov.errors import IsADirectory, NotADirectory, StoreCorrupt, StoreLocked, UnsafeTree, quote
from ov.files import atomic_write, atomic_write_all, flush_folder, kept_mode, remove_empty_parents
from ov.names import is_git_name
from ov.progress import Progress, counting
from ov.store import sidecar
from ov.store.treepaths import GITLINK_MODE
from ov.uri import TEMP_MARKER

BRANCH = b"refs/heads/main"
FILE_MODE = 0o100644
JOURNAL_NAME = "journal.json"
INDEX_PENDING = "index.pending"
STAGING_DIR = "staging"
# A commit with at least this many new objects is written as a pack rather than loose objects.
PACK_THRESHOLD = 64
# Batches of commits (group commit) leave small packs; this many under SMALL_PACK_BYTES are merged.
MERGE_SMALL_PACKS = 16
SMALL_PACK_BYTES = 1 << 20
# Changes with at least this many files are written to the work tree by a few threads.
PARALLEL_WRITES = 64
# The stages a large change reports (ov.progress): its files written ahead, then its commit, whose
# objects are stored before its files reach the work tree one by one.
STAGING, COMMITTING = "staging files", "committing"
# A git lock file younger than this may belong to a plain `git` running in the account right
# now (git holds its locks for milliseconds); an older one was left by a killed writer.
STALE_LOCK_SECONDS = 1.0
# Lock files git or dulwich create next to what they write; outside objects/ they are few and
# known, so checking them costs a handful of stat calls per write.
_TOP_LOCKS = ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "refs/heads/main.lock")


@dataclass(frozen=True)
class Author:
    """The name and e-mail a commit is made under."""

    name: str
    email: str

    @property
    def ident(self) -> bytes:
        return f"{self.name} <{self.email}>".encode()


@dataclass(frozen=True)
class CommitInfo:
    """One commit as the store reads it back."""

    id: str
    message: str
    author: str
    time: int
    parents: tuple[str, ...]


@dataclass
class EarlyApply:
    """Work-tree writes started before their commit (see :meth:`GitStore.apply_early`)."""

    written: dict[str, bytes | None]
    futures: list

    @property
    def paths(self) -> list[str]:
        return list(self.written)

    def wait(self, raise_errors: bool = True) -> None:
        for future in self.futures:
            error = future.exception()
            if error is not None and raise_errors:
                raise error


@dataclass
class Staged:
    """Work-tree files written ahead, outside the work tree, before the write lock is held.

    A large add creates thousands of files; writing them takes about a second, renaming them
    into place a few milliseconds. So they are written to ``state/{account}/staging/TOKEN/``
    first (by a few threads, while the command goes on), and the commit, under the lock,
    renames each into the work tree. The staging folder belongs to its owner while
    ``TOKEN.owner`` is locked; :meth:`GitStore.recover` removes any whose owner is gone.
    """

    root: Path
    data: dict[str, bytes]  # path -> the exact bytes object staged (compared by identity)
    owner: object
    futures: list = field(default_factory=list)

    def wait(self, progress: Progress | None = None) -> None:
        for future in counting(self.futures, progress, STAGING):
            future.result()
        self.futures = []

    def release(self) -> None:
        import shutil

        for future in self.futures:
            future.exception()  # let every write finish before its folder goes
        self.futures = []
        shutil.rmtree(self.root, ignore_errors=True)
        if self.owner is not None:
            Path(self.owner.lock_file).unlink(missing_ok=True)
            self.owner.release()
            self.owner = None


class CommitChain:
    """Commits made one after another in memory, then landed as one change of the work tree.

    Each :meth:`add` builds the trees and the commit of one command on top of the previous
    one (its parent), so every command keeps a commit of its own; :meth:`land` then writes
    all the new objects, moves the branch once from the first parent to the last commit and
    applies the files, in :meth:`GitStore.commit`'s crash-safe order. Writers queued on the
    lock are committed this way by the one that holds it (see :mod:`ov.store.group_commit`): one fsync
    round, one branch move and one index update for all of them.
    """

    def __init__(self, git: GitStore, head: bytes | None) -> None:
        from dulwich.object_store import OverlayObjectStore

        self.git = git
        self.base = self.tip = head
        self.base_tree = self.tree = git.tree_of(head)
        self.pending = _UncopiedStore()
        self._objects = OverlayObjectStore([self.pending, git.repo.object_store], add_store=self.pending)
        self.contents: dict[str, bytes | None] = {}  # path -> what the work tree is to hold
        self.appends: dict[str, int] = {}  # path -> length of the work-tree file the changes append to
        self.commits = 0

    def add(self, changes: Mapping[str, bytes | None], message: str, author: Author) -> bytes | None:
        """Commit ``changes`` on top of the chain; the new commit id, or None when they change nothing."""
        from dulwich.object_store import commit_tree_changes
        from dulwich.objects import Blob, Tree

        tree_changes = []
        ahead = self.git.stored_ahead
        grafted: set[str] = set()
        folders: dict = {}  # folder -> its tree in the chain's tree before this change, read once
        for folder, (tree_id, files) in self.git.grafts.items():
            # A folder the change creates whole, its tree built before the lock: one entry
            # instead of thousands, as long as each of its files is still written. What the
            # change writes there otherwise (a moved folder's summary, written again under the
            # lock) goes on top of that tree, as changes of their own (dulwich applies a folder's
            # entry before the changes inside it).
            if not self._has(folder) and all(changes.get(path) is not None for path in files):
                tree_changes.append((folder.encode(), stat.S_IFDIR, tree_id))
                grafted.update(path for path, data in files.items() if changes[path] is data)
        for path in sorted(changes):
            if path in grafted:
                continue
            data = changes[path]
            if data is None:
                # surrogateescape: a name HEAD holds that is not UTF-8 leaves the tree (ov status: unsafe)
                if self._mode(path.encode("utf-8", "surrogateescape"), folders) is not None:  # each folder read once, not each path looked up
                    tree_changes.append((path.encode("utf-8", "surrogateescape"), None, None))
                continue
            known = ahead.get(path)
            if known is not None and known[0] is data:
                tree_changes.append((path.encode(), FILE_MODE, known[1]))
                continue
            blob = Blob.from_string(data)
            self.pending.add_object(blob)
            tree_changes.append((path.encode(), FILE_MODE, blob.id))
        tree_changes = self._as_one_tree(tree_changes)
        base = self.tree if self.tree is not None else _empty_tree(self.pending, Tree)
        new_tree = commit_tree_changes(self._objects, base, tree_changes) if tree_changes else base
        self.contents.update(changes)
        if new_tree == self.tree:
            return None
        commit = self.git.make_commit(new_tree, [self.tip] if self.tip else [], message, author)
        self.pending.add_object(commit)
        self.tip, self.tree = commit.id, new_tree
        self.commits += 1
        return commit.id

    def _as_one_tree(self, tree_changes: list) -> list:
        """``tree_changes`` that dulwich can apply: a folder that becomes a file loses its files
        with the file alone (dulwich cannot descend into a path it has just made a file), and a
        path cannot be both, nor be created under what stays a file (deleted by hand, say)."""
        if not tree_changes:
            return tree_changes
        files = {path for path, mode, sha in tree_changes if sha is not None and mode == FILE_MODE}
        deleted = {path for path, _, sha in tree_changes if sha is None}
        root = self.git.worktree
        kept, parents, emptied = [], set(), set()
        for change in tree_changes:
            path, mode, sha = change
            above = _folders_above(path)
            replaced = next((folder for folder in above if folder in files), None)
            if replaced is None:
                kept.append(change)
                if sha is not None:
                    parents.update(above)
                if mode == stat.S_IFDIR:  # a folder new to the tree, grafted whole (Draft.stage), is made too
                    parents.add(path)
                    if (root / path.decode()).is_dir():  # and one made by hand meanwhile may hold files where its folders go
                        parents.update(folder for name in self.git.grafts[path.decode()][1] for folder in _folders_above(name.encode()))
            elif sha is not None:
                raise NotADirectory(
                    f"viking://{replaced.decode()} is both a file and a folder in one change ({path.decode()})",
                    hint="a path holds a file or other files, not both",
                )
            else:
                emptied.add(replaced)
        # The tree is read only where the work tree leaves a doubt: reading a folder of 10,000
        # files costs a write ~30 ms, and the work tree mirrors the last commit but for hand edits.
        # A folder on disk is one in the commit; a file is put where a folder is on disk only
        # by a change that does not empty it.
        folders: dict = {}  # folder -> its tree, read once: a large add meets the same folders again
        for folder in sorted(parents - deleted - files):
            on_disk = root / folder.decode()
            if on_disk.is_dir():
                continue
            if self._mode(folder, folders) not in (None, stat.S_IFDIR):
                raise NotADirectory(
                    f"viking://{folder.decode()} is a file in the last commit, so nothing can be created under it",
                    hint="`ov status` shows hand edits; `ov snapshot commit` records them",
                )
            # A file made by hand where the folder goes (while a large restore was prepared, say)
            # failed the work tree's mkdir with an internal FileExistsError, after the checks;
            # one an earlier commit of the chain deletes is gone by then.
            # Asked again after lexists: this change's own work-tree writers (files written ahead,
            # in threads) may have made the folder since the first look.
            if os.path.lexists(on_disk) and not on_disk.is_dir() and self.contents.get(folder.decode(), b"") is not None:
                raise NotADirectory(
                    f"viking://{folder.decode()} is a file made outside ov, so nothing can be created under it",
                    hint="`ov status` shows it; keep it with `ov snapshot commit -m MESSAGE` or remove it, then retry",
                )
        for path in sorted(files - emptied):
            if (root / path.decode()).is_dir() and self._mode(path, folders) == stat.S_IFDIR:  # its files would leave the commit, not the work tree
                raise IsADirectory(f"viking://{path.decode()} is a folder, so a file cannot replace it", hint="remove the folder first")
        return kept

    def _mode(self, path: bytes, folders: dict) -> int | None:
        """The mode of ``path`` in the chain's tree (a folder's is stat.S_IFDIR), None when absent;
        ``folders`` keeps each folder's tree as it is read."""
        parent, _, name = path.rpartition(b"/")
        tree = self._folder(parent, folders)
        if tree is None or name not in tree:
            return None
        mode = tree[name][0]
        return stat.S_IFDIR if stat.S_ISDIR(mode) else mode

    def _folder(self, folder: bytes, folders: dict):
        """The tree of ``folder`` (b"" the root) in the chain's tree, None when it is no folder."""
        if folder not in folders:
            tree_id = self.tree
            if folder:
                parent, _, name = folder.rpartition(b"/")
                above = self._folder(parent, folders)
                found = above[name] if above is not None and name in above else None
                tree_id = found[1] if found is not None and stat.S_ISDIR(found[0]) else None
            folders[folder] = self._objects[tree_id] if tree_id is not None else None
        return folders[folder]

    def _has(self, path: str) -> bool:
        """Whether ``path`` is in the chain's tree (which may exist in memory only)."""
        if self.tree is None:
            return False
        if self.tree == self.base_tree:
            return self.git.entry(self.tree, path) is not None
        from dulwich.errors import NotTreeError

        try:
            self._objects[self.tree].lookup_path(self._objects.__getitem__, path.encode())
        except (KeyError, NotTreeError):
            return False
        return True

    def land(
        self,
        early: EarlyApply | None = None,
        appends: Mapping[str, int] | None = None,
        staged: Staged | None = None,
        defer_index: bool = False,
        progress: Progress | None = None,
    ) -> None:
        """Write the chain's objects and files and move the branch to its last commit. The
        caller holds the write lock; on failure nothing of the chain remains in the work tree.
        ``progress`` is told how writing the files goes (:mod:`ov.progress`)."""
        try:
            self.git._land(self, early, appends, staged, defer_index, progress)
        finally:
            self.git.forget_ahead()  # named by this commit only: a later one hashes its own


class GitStore:
    """One account repository: work tree at ``worktree``, derived state at ``state``."""

    def __init__(self, worktree: Path, state: Path) -> None:
        self.worktree = worktree
        self.state = state
        self._repo = None
        self._trees: dict[bytes, object] = {}
        # path -> (the exact bytes object, its blob id) of blobs already in the object store
        self.stored_ahead: dict[str, tuple[bytes, bytes]] = {}
        # folder -> (its tree id, path -> the exact bytes object) of folders a change creates whole,
        # their trees already in the object store
        self.grafts: dict[str, tuple[bytes, dict[str, bytes]]] = {}
        # The last commit this object moved the branch to: an interrupt that comes after it is
        # told as "kept", not as a command that did nothing.
        self.landed: bytes | None = None

    # --- opening ---------------------------------------------------------

    @property
    def exists(self) -> bool:
        return (self.worktree / ".git").is_dir()

    @property
    def repo(self):
        if self._repo is None:
            from dulwich.repo import Repo  # Deferred: dulwich costs ~60 ms; reads do not need it.

            if not self.exists:
                raise StoreCorrupt(f"no account repository at {self.worktree}")
            self._repo = _with_retrying_store(Repo(str(self.worktree)))
        return self._repo

    def warm_up(self) -> None:
        """Import and open what a commit needs, before the write lock is taken: dulwich costs
        ~50 ms to import and open, time every other writer would otherwise wait through."""
        import concurrent.futures  # noqa: F401 - the object and work-tree writers' thread pools

        from ov.store import gitindex  # noqa: F401

        if self.exists:
            from dulwich.errors import NotGitRepository

            try:
                self.repo  # noqa: B018 - opened (and cached) now, outside the lock
            except (StoreCorrupt, NotGitRepository):
                # Another process's first command is making the repository (its .git is there,
                # its objects not yet) or discarded the one it made (it committed nothing).
                # Warming up is only a head start: under the lock the command sees what there is.
                self._repo = None

    def init(self, author: Author, message: str) -> bool:
        """Create the repository with an empty first commit; False if it already exists."""
        if self.exists:
            return False
        from dulwich.objects import Tree
        from dulwich.repo import Repo

        self.worktree.mkdir(parents=True, exist_ok=True)
        try:
            repo = _with_retrying_store(Repo.init(str(self.worktree), default_branch=b"main"))
            tree = Tree()
            repo.object_store.add_object(tree)
            commit = self.make_commit(tree.id, [], message, author)
            repo.object_store.add_object(commit)
            repo.refs.set_if_equals(BRANCH, None, commit.id)
        except BaseException:
            # A .git without its first commit (a path too long for its objects, a full disk) was
            # taken by every later command for a repository whose branch does not resolve.
            self.discard()
            raise
        self._repo = repo
        return True

    def discard(self) -> None:
        """Remove a repository :meth:`init` has just made and nothing has been committed to since
        (a first write that failed): an account must not come into being from a command that
        changed nothing. The caller holds the write lock."""
        import shutil

        self._repo = None
        self._trees.clear()
        # Out of the account in one rename, then deleted: a process killed while deleting in place
        # left a part of .git that every later command took for a repository and failed on.
        trash = self.state / f"discarded-{os.getpid()}-{os.urandom(4).hex()}"
        try:
            self.state.mkdir(parents=True, exist_ok=True)
            os.rename(self.worktree / ".git", trash)
        except OSError:
            trash = self.worktree / ".git"  # another file system: deleted where it is
        shutil.rmtree(trash, ignore_errors=True)
        try:
            self.worktree.rmdir()  # empty unless files were put there meanwhile: they stay
        except OSError:
            pass

    def discard_unless_moved(self, head: bytes | None) -> None:
        """:meth:`discard` the repository made with first commit ``head`` when nothing has been
        committed since (the caller holds the write lock)."""
        if self.exists and self.head() == head:
            self.discard()

    def sweep_discarded(self) -> None:
        """Delete what a :meth:`discard` killed part-way left in the state folder (under the lock)."""
        try:
            leftovers = [entry.path for entry in os.scandir(self.state) if entry.name.startswith("discarded-")]
        except OSError:
            return
        if leftovers:
            import shutil

            for leftover in leftovers:
                shutil.rmtree(leftover, ignore_errors=True)

    # --- reading committed state -----------------------------------------

    def head(self) -> bytes | None:
        # The branch's loose ref, read as a file: every ref update renames a whole new file into
        # place, so this reads the old or the new id, never a part. It spares a hook that only
        # asks "has HEAD moved?" the import of dulwich and the opening of the repository.
        if self._repo is None:
            try:
                value = (self.worktree / ".git" / BRANCH.decode()).read_bytes().strip()
            except OSError:
                value = b""
            if len(value) == 40 and all(c in b"0123456789abcdef" for c in value):
                return value
        try:
            return self.repo.refs[BRANCH]  # packed refs, or a repository without a commit yet
        except KeyError:
            return None

    def tree_of(self, commit_id: bytes | None) -> bytes | None:
        if commit_id is None:
            return None
        return self.repo[commit_id].tree

    def entry(self, tree_id: bytes | None, path: str) -> tuple[int, bytes] | None:
        """(mode, sha) of ``path`` in ``tree_id``, or None when it is not there."""
        if tree_id is None or not path:
            return None
        from dulwich.errors import NotTreeError

        try:
            mode, sha = self._tree(tree_id).lookup_path(self._tree, path.encode("utf-8", "surrogateescape"))
        except (KeyError, NotTreeError):
            return None
        return mode, sha

    def spelled(self, tree_id: bytes | None, path: str) -> str:
        """``path`` with each name spelled as ``tree_id`` holds it: a typed URI is NFC, but a tree
        may hold the name decomposed (a store written before URIs were normalised, a restored
        backup), and the history of that file is under those bytes. A name the tree does not hold
        in any form is kept as given; an ASCII path costs nothing."""
        if tree_id is None or not path or path.isascii():
            return path
        from ov.uri import nfc

        parts = path.split("/")
        tree = self._tree(tree_id)
        for i, name in enumerate(parts):
            key = name.encode()
            if key not in tree:
                wanted = nfc(name)
                found = sorted(k for k in tree if nfc(k.decode("utf-8", "replace")) == wanted)
                if not found:
                    break
                key = found[0]
                parts[i] = key.decode()
            mode, sha = tree[key]
            if i + 1 < len(parts):
                if not stat.S_ISDIR(mode):
                    break
                tree = self._tree(sha)
        return "/".join(parts)

    def entries(self, tree_id: bytes | None, paths: Iterable[str]) -> dict[str, tuple[int, bytes] | None]:
        """:meth:`entry` of each of ``paths``, each folder's tree read once: a large change names
        thousands of files in the same few folders, and walking from the root for each costs a
        move of 20,000 files half a second under the lock."""
        folders: dict[str, object] = {}

        def folder(name: str):
            if name not in folders:
                tree = None
                if not name:
                    tree = self._tree(tree_id) if tree_id is not None else None
                else:
                    parent, _, base = name.rpartition("/")
                    above, key = folder(parent), base.encode("utf-8", "surrogateescape")
                    found = above[key] if above is not None and key in above else None
                    tree = self._tree(found[1]) if found is not None and stat.S_ISDIR(found[0]) else None
                folders[name] = tree
            return folders[name]

        out: dict[str, tuple[int, bytes] | None] = {}
        for path in paths:
            parent, _, name = path.rpartition("/")
            tree, key = folder(parent), name.encode("utf-8", "surrogateescape")  # as iter_entries read it
            out[path] = tuple(tree[key]) if path and tree is not None and key in tree else None
        return out

    def _tree(self, sha: bytes):
        # Trees are immutable and looked up again and again (every path checked in a large
        # add walks the same directories), so parsed ones are kept for the life of this object.
        obj = self._trees.get(sha)
        if obj is None:
            obj = self.repo.object_store[sha]
            if obj.type_name == b"tree":
                if len(self._trees) > 4096:
                    self._trees.clear()
                self._trees[sha] = obj
        return obj

    def blob_data(self, sha: bytes) -> bytes:
        return self.repo[sha].as_raw_string()

    @staticmethod
    def blob_id(data: bytes) -> bytes:
        from dulwich.objects import Blob

        return Blob.from_string(data).id

    @staticmethod
    def blob_hash(size: int):
        """A hash that, given the ``size`` bytes of a file as they are read, has their blob's id as
        ``hexdigest()`` (:meth:`blob_id` of them held at once): a file of hundreds of megabytes is
        never held to be compared with HEAD's. A blob's id is the SHA-1 of its header and bytes."""
        import hashlib

        return hashlib.sha1(b"blob %d\x00" % size, usedforsecurity=False)

    def iter_files(self, tree_id: bytes | None, prefix: str = "") -> Iterator[tuple[str, bytes]]:
        """(path, blob sha) of every entry of ``tree_id`` below ``prefix`` that is not a folder,
        as :meth:`iter_entries` yields them: for readers of ov's own files. A reader that writes
        or packs them takes :meth:`iter_entries` and refuses what
        :func:`ov.store.treepaths.stored_problem` names (a symbolic link, a submodule)."""
        for path, _mode, sha in self.iter_entries(tree_id, prefix):
            yield path, sha

    def iter_entries(self, tree_id: bytes | None, prefix: str = "") -> Iterator[tuple[str, int, bytes]]:
        """(path, mode, sha) of every entry of ``tree_id`` below ``prefix`` that is not a folder,
        leaving out what lies outside the scopes (:func:`ov.store.treepaths.ignored_entry`).
        A name that is not UTF-8 (a tree ov did not build) keeps its bytes as surrogates, as
        ``os.fsdecode`` does: it names the same file on disk, and never stops a walk."""
        if tree_id is None:
            return
        if not prefix:
            from ov.store.treepaths import ignored_entry

            # A file or folder outside the scopes that plain git committed (README.md): not ov's.
            for name, mode, sha in self._tree(tree_id).iteritems():
                if ignored_entry(name, mode):
                    continue
                top = name.decode("utf-8", "surrogateescape")
                if not stat.S_ISDIR(mode):
                    yield top, mode, sha
                    continue
                for entry in self.repo.object_store.iter_tree_contents(sha):
                    yield f"{top}/{entry.path.decode('utf-8', 'surrogateescape')}", entry.mode, entry.sha
            return
        found = self.entry(tree_id, prefix)
        if found is None:
            return
        mode, start = found
        if not stat.S_ISDIR(mode):
            yield prefix, mode, start
            return
        for entry in self.repo.object_store.iter_tree_contents(start):
            path = entry.path.decode("utf-8", "surrogateescape")
            yield f"{prefix}/{path}", entry.mode, entry.sha

    def log(self, limit: int | None = None) -> list[CommitInfo]:
        head = self.head()
        if head is None:
            return []
        out = []
        for walk in self.repo.get_walker(include=[head], max_entries=limit):
            c = walk.commit
            out.append(
                CommitInfo(
                    id=c.id.decode(),
                    message=c.message.decode("utf-8", "replace"),
                    author=c.author.decode("utf-8", "replace"),
                    time=c.commit_time,
                    parents=tuple(p.decode() for p in c.parents),
                )
            )
        return out

    def reaches(self, commit: str, since: str | None) -> bool:
        """Whether HEAD is ``commit`` or a descendant of it, looking back no further than
        ``since`` (an ancestor of both, where the search can stop)."""
        head = self.head()
        if head is None:
            return False
        target, stop = commit.encode(), since.encode() if since else None
        for walk in self.repo.get_walker(include=[head]):
            if walk.commit.id == target:
                return True
            if walk.commit.id == stop:
                return False
        return False

    # --- writing -----------------------------------------------------------

    def commit(
        self,
        changes: Mapping[str, bytes | None],
        message: str,
        author: Author,
        expected_head: bytes | None,
        early: EarlyApply | None = None,
        appends: Mapping[str, int] | None = None,
        staged: Staged | None = None,
        defer_index: bool = False,
        progress: Progress | None = None,
    ) -> bytes | None:
        """Commit ``changes`` (path -> new bytes, or None to delete) on top of ``expected_head``.

        Returns the new commit id, or None when the changes leave the tree as it
        is. The caller holds the write lock. ``defer_index`` (other writers are queued behind
        it) leaves the git index update of these paths to the last of them; see
        :meth:`update_index`. ``progress``: see :meth:`CommitChain.land`.
        """
        chain = CommitChain(self, expected_head)
        commit = chain.add(changes, message, author)
        chain.land(early, appends, staged, defer_index, progress)
        if commit is not None:
            self._forget_sessions(sidecar.removed_sessions(changes))
        return commit

    def _forget_sessions(self, removed: list[tuple[str, str]]) -> None:
        """What this machine keeps of each session a landed commit removed (``(user, id)``): what
        redaction remembers of it (:func:`ov.redact.recurring.forget`). Here, where every commit
        lands (:meth:`commit`, :meth:`move_head`), so that whatever removed the session (``ov
        session delete``, ``ov rm``, a restore, an import, a pull) takes it, and only once it has."""
        if removed:
            from ov.redact.recurring import forget

            forget(self.state, removed)

    def _land(
        self,
        chain: CommitChain,
        early: EarlyApply | None,
        appends: Mapping[str, int] | None,
        staged: Staged | None,
        defer_index: bool,
        progress: Progress | None = None,
    ) -> None:
        changes = chain.contents
        early_paths = list(early.paths) if early is not None else []
        all_paths = sorted(set(changes) | set(early_paths))
        if chain.tip == chain.base:
            try:
                if early is not None:
                    early.wait()
                self._apply_worktree(changes)  # nothing to commit, but make the files agree
            except BaseException:
                self._roll_back(chain.base_tree, all_paths, early)
                raise
            (self.state / JOURNAL_NAME).unlink(missing_ok=True)
            return
        disk = self.repo.object_store
        # The journal comes first, so a crash while objects are written is seen (and their
        # leftovers cleared) by the next command.
        if progress is not None:
            progress(COMMITTING, 0, len(changes))  # storing the objects comes first, told as none written yet
        if early is None:
            # Not flushed: it only tells the next command to look for leftovers, and it is
            # rewritten (flushed) below before anything reaches the work tree.
            self._write_journal(chain.base, None, all_paths, durable=False)
        # From here a failure (a full disk, a read-only object folder) is rolled back by this
        # command, its journal with it; only a kill leaves the journal to the next command.
        landing = ExitStack()
        try:
            # The journal naming the new commit is flushed together with the objects (one round
            # of fsyncs, not two): both must be on disk before the work tree or the branch changes.
            journal = (self.state / JOURNAL_NAME, self._journal_bytes(chain.base, chain.tip, all_paths), None)
            packed = self._store_objects(disk, chain.pending.objects(), along=journal)
            if early is not None:
                early.wait()
                done = early.written
                remaining = {p: d for p, d in changes.items() if p not in done or done[p] is not d}
            else:
                remaining = dict(changes)
            self._apply_worktree(remaining, appends, staged, progress=progress)
            landing.enter_context(_interrupts_held())  # see _move_branch
            if not self._move_branch(chain.base, chain.tip):
                raise StoreCorrupt(
                    "the branch moved while ov held the write lock",
                    hint="another program wrote to the account repository; run `ov status`",
                )
        except BaseException:
            self._roll_back(chain.base_tree, all_paths, early)
            raise
        finally:
            landing.close()  # a Ctrl-C or deadline held since the ref update is raised here, past the rollback
        self.update_index(chain.tree, all_paths, defer=defer_index)
        (self.state / JOURNAL_NAME).unlink(missing_ok=True)
        if packed and chain.commits > 1:
            try:
                self.merge_small_packs()
            except Exception as exc:  # noqa: BLE001 - tidying only: the commits have landed
                import logging

                logging.getLogger("ov").debug("small packs not merged: %s", exc)

    def _roll_back(self, base_tree: bytes | None, paths: list[str], early: EarlyApply | None) -> None:
        """Put ``paths`` back as ``base_tree`` has them, then drop the journal. A rollback that
        fails itself leaves the journal, so the next command finishes it."""
        if early is not None:
            early.wait(raise_errors=False)  # a write still running would land after the restore
        self._restore_paths(base_tree, paths)
        (self.state / JOURNAL_NAME).unlink(missing_ok=True)

    def changed_paths(self, old_tree: bytes | None, new_tree: bytes | None) -> Iterator[str]:
        """Every file path that differs between two trees (only differing subtrees are read)."""
        for change in self.repo.object_store.tree_changes(old_tree, new_tree):
            (old_path, new_path) = change[0]
            yield (new_path or old_path).decode()

    def forget_ahead(self) -> None:
        """Drop what :meth:`store_objects_ahead` noted (its commit landed, or was dropped)."""
        self.stored_ahead.clear()
        self.grafts.clear()

    def store_objects_ahead(self, changes: Mapping[str, bytes | None], base_tree: bytes | None = None) -> None:
        """Put the blobs of a large change into the object store before its commit, and the
        trees of the folders it creates whole (those ``base_tree`` lacks).

        Called without the write lock (objects nobody refers to are harmless), so the commit
        under the lock only adds its trees and commit object: writing a pack of thousands of
        blobs takes about a second, and building the tree of a 3,000-file folder a good part
        of the commit. Best effort: whatever is missing is written by the commit.
        """
        from dulwich.file import FileLocked
        from dulwich.objects import Blob

        if not self.exists:
            return  # the first commit creates the repository; it stores its own objects
        disk = self.repo.object_store
        blobs = {}
        ids = {}
        for path, data in changes.items():
            if data is not None:
                blob = Blob.from_string(data)
                blobs[blob.id] = blob
                ids[path] = (data, blob.id)
        if len(ids) < PACK_THRESHOLD:
            return
        # Blobs stored already (a restore's, a move's) are named as they are, not stored again.
        missing = [blob for sha, blob in blobs.items() if sha not in disk]
        grafts, trees = self._new_folder_trees(changes, ids, base_tree)
        trees = [tree for tree in trees if tree.id not in disk]
        try:
            if missing or trees:
                _add_objects(disk, [*missing, *trees])
        except (FileLocked, OSError):
            # Another writer is storing the same pack, or a full disk: the commit stores what is
            # missing (and reports a full disk there, under the lock, with the journal written).
            return
        # The commit under the lock then only names these blobs and trees: hashing and storing
        # thousands of them again would cost it a good part of its hold.
        self.stored_ahead.update(ids)
        self.grafts.update(grafts)

    def _new_folder_trees(
        self, changes: Mapping[str, bytes | None], ids: Mapping[str, tuple[bytes, bytes]], base_tree: bytes | None
    ) -> tuple[dict[str, tuple[bytes, dict[str, bytes]]], list]:
        """The folders ``changes`` creates whole (absent from ``base_tree``, nothing but new
        files below them), each with its tree id and files; and the trees to store."""
        from dulwich.object_store import MemoryObjectStore, commit_tree_changes
        from dulwich.objects import Tree

        if base_tree is None:
            return {}, []
        absent: dict[str, bool] = {}
        below: dict[str, list[str]] = {}
        for path in changes:
            parts = path.split("/")
            for depth in range(1, len(parts)):
                folder = "/".join(parts[:depth])
                if folder not in absent:
                    absent[folder] = self.entry(base_tree, folder) is None
                if absent[folder]:
                    below.setdefault(folder, []).append(path)
                    break
        grafts: dict[str, tuple[bytes, dict[str, bytes]]] = {}
        trees: list = []
        for folder, paths in below.items():
            if len(paths) < PACK_THRESHOLD or any(path not in ids for path in paths):  # a deletion is not in ids
                continue
            built = MemoryObjectStore()
            start = len(folder) + 1
            tree_id = commit_tree_changes(built, Tree(), [(path[start:].encode(), FILE_MODE, ids[path][1]) for path in paths])
            grafts[folder] = (tree_id, {path: changes[path] for path in paths})
            trees.extend(built[sha] for sha in built)  # the folder's trees, all new
        return grafts, trees

    def stage(self, changes: Mapping[str, bytes | None], staged: Staged | None = None) -> Staged:
        """Start writing the files of ``changes`` to a private staging folder (see
        :class:`Staged`); call again with the result to stage later changes too."""
        from ov.store.writers import submit_all

        if staged is None:
            from filelock import FileLock

            staging = self.state / STAGING_DIR
            staging.mkdir(parents=True, exist_ok=True)
            token = f"{os.getpid()}-{os.urandom(4).hex()}"
            owner = FileLock(staging / f"{token}.owner")
            owner.acquire(timeout=0)
            staged = Staged(staging / token, {}, owner)
        batch = {p: d for p, d in changes.items() if d is not None and staged.data.get(p) is not d}
        if not batch:
            return staged
        for path in batch:
            problem = escape_problem(path)
            if problem is not None:  # joined to the staging folder below, as later to the work tree
                raise UnsafeTree(f"refused to write {quote(path)} to the work tree: {problem}")
        if any(p in staged.data for p in batch):
            staged.wait()  # never two writes of one path in flight
        staged.data.update(batch)
        for directory in sorted({os.path.dirname(p) for p in batch}):
            (staged.root / directory).mkdir(parents=True, exist_ok=True)
        staged.futures.extend(submit_all(Path.write_bytes, [(staged.root / p, d) for p, d in batch.items()]))
        return staged

    def apply_early(
        self, expected_head: bytes | None, changes: Mapping[str, bytes | None], early: EarlyApply | None = None
    ) -> EarlyApply:
        """Start writing ``changes`` to the work tree before their commit exists.

        A large add spends most of its time creating files; this lets that I/O
        overlap with the work still to do (summaries) before :meth:`commit`. The
        journal names the paths first, so a crash is rolled back as usual; a
        failure before the commit must call :meth:`abandon_early`.
        """
        from ov.store.writers import submit_all

        if early is not None:
            return self._extend_early(expected_head, changes, early)
        escaping = self._escaping(changes)
        self._refuse_escapes(escaping, written=changes)
        self._write_journal(expected_head, None, sorted(changes))
        written = dict(changes)
        # A deletion of an escaping path only drops it from the tree, as in _apply_worktree.
        self._delete_files({p: d for p, d in written.items() if p not in escaping})
        futures = submit_all(_write_if_different, [(self.worktree / p, d) for p, d in written.items() if d is not None])
        return EarlyApply(written, futures)

    def _extend_early(self, expected_head: bytes | None, changes: Mapping[str, bytes | None], early: EarlyApply) -> EarlyApply:
        """A further batch of writes ahead (new files only; deletions wait for the commit)."""
        from ov.store.writers import submit_all

        batch = {p: d for p, d in changes.items() if d is not None and early.written.get(p, b"") is not d}
        if not batch:
            return early
        self._refuse_escapes(self._escaping(batch), written=batch)
        self._write_journal(expected_head, None, sorted(set(early.written) | set(batch)))
        if any(p in early.written for p in batch):
            early.wait()  # never two writes of one path in flight
        early.written.update(batch)
        early.futures.extend(submit_all(_write_if_different, [(self.worktree / p, d) for p, d in batch.items()]))
        return early

    def abandon_early(self, expected_head: bytes | None, early: EarlyApply) -> None:
        """Undo :meth:`apply_early` when the command fails before it commits."""
        self._roll_back(self.tree_of(expected_head), list(early.paths), early)

    def move_head(self, old: bytes | None, new: bytes, paths: list[str]) -> None:
        """Point the branch at ``new`` (a commit already in the object store, e.g. fetched or
        merged) and make ``paths`` of the work tree match it, in :meth:`commit`'s order and with
        its journal, so :meth:`recover` settles a crash at any point. The caller holds the lock.
        """
        escaping = self._escaping(paths)  # once: the restore below is given what it found
        self._refuse_escapes(escaping, self.tree_of(new))
        self._write_journal(old, new, paths)
        landing = ExitStack()
        try:
            self._restore_paths(self.tree_of(new), paths, escaping)
            landing.enter_context(_interrupts_held())  # see _move_branch
            if not self._move_branch(old, new):
                raise StoreCorrupt("the branch moved while ov held the write lock", hint="run `ov status`, then try again")
        except BaseException:
            self._roll_back(self.tree_of(old), paths, None)
            raise
        finally:
            landing.close()
        self.sync_index(self.tree_of(new), paths)
        (self.state / JOURNAL_NAME).unlink(missing_ok=True)
        new_tree = self.tree_of(new)
        self._forget_sessions(sidecar.removed_sessions({p: None for p in paths if p.endswith(sidecar.SESSION_META) and self.entry(new_tree, p) is None}))

    def _move_branch(self, old: bytes | None, new: bytes) -> bool:
        """Move the branch from ``old`` to ``new`` (compare-and-set); False when it was not at ``old``.

        The caller holds Ctrl-C and the deadline's alarm (:func:`_interrupts_held`) from before
        this call until past its own rollback: an interrupt between the ref's update and :attr:`landed` noting it would roll
        back the files of a commit the branch names, and be told as a command that changed
        nothing. Held, it comes once the commit is noted, and is told as kept."""
        from dulwich.file import FileLocked

        try:
            moved = self.repo.refs.set_if_equals(BRANCH, old, new)
        except FileLocked:
            # Only a plain `git` running in the account right now holds this lock (a stale one
            # was removed by recover()); nothing has moved, and the caller rolls back.
            raise StoreLocked(
                "git is updating refs/heads/main in the account repository right now",
                hint="wait for that git command to finish, then retry",
            ) from None
        except OSError as exc:
            # dulwich may fail after its rename put the new ref in place (its reflog, a flush of
            # the folder): the branch names the commit then, and the caller's rollback would put
            # the old files back under it. The files are in place: the commit is finished, and said.
            if self.head() != new:
                raise
            import logging

            logging.getLogger("ov").warning("committed %s, but git then failed: %s", new.decode()[:10], exc)
            moved = True
        if moved:
            # The commit is reported once this returns: its ref's rename must survive a power
            # cut too (the objects it names were flushed before).
            flush_folder(self.worktree / ".git" / "refs" / "heads")
            self.landed = new
        return moved

    def update_index(self, tree_id: bytes | None, paths: list[str], defer: bool) -> None:
        """Bring the git index in step with the commit just made, or note its paths for later.

        Rewriting the index costs a pass over all its entries (~10 ms at 3,000 files), time that
        a queue of writers would each spend holding the lock. So while others wait, a writer only
        notes its paths in ``index.pending``, and the first writer with nobody behind it brings
        every noted path up to date in one pass. When the store is quiet, the index agrees
        with HEAD (and ``ov status`` rewrites it whole when an entry is out of step).
        """
        pending = self.state / INDEX_PENDING
        if defer:
            try:
                with open(pending, "a", encoding="utf-8") as out:
                    out.write("".join(p + "\n" for p in paths))
                return
            except OSError:
                pass  # could not note them: update now
        try:
            noted = pending.read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError):
            noted = []
        if self.sync_index(tree_id, sorted(set(paths) | {p for p in noted if p})) and noted:
            pending.unlink(missing_ok=True)  # kept when a git command had the index: noted for next time

    def sync_index(self, tree_id: bytes | None, paths: list[str]) -> bool:
        """Bring the git index's entries of ``paths`` in step with ``tree_id`` (HEAD); False when
        it was left as it is (a git command holds it, or the disk is full)."""
        from ov.store import gitindex

        blobs: dict[str, bytes | None] = {}
        for path, found in self.entries(tree_id, paths).items():
            blobs[path] = found[1] if found is not None and not stat.S_ISDIR(found[0]) else None
        try:
            return gitindex.update(self.worktree / ".git", self.worktree, blobs, self.iter_files(tree_id))
        except OSError as exc:
            # Derived data, refreshed by the next commit or `ov status`: a full disk here must not
            # turn a commit that has landed into a failure.
            import logging

            logging.getLogger("ov").debug("git index not updated: %s", exc)
            return False

    def _write_journal(self, old: bytes | None, new: bytes | None, paths: list[str], durable: bool = True) -> None:
        atomic_write(self.state / JOURNAL_NAME, self._journal_bytes(old, new, paths), durable=durable)

    @staticmethod
    def _journal_bytes(old: bytes | None, new: bytes | None, paths: list[str]) -> bytes:
        journal = {
            "version": 1,
            "old": old.decode() if old else None,
            "new": new.decode() if new else None,
            "paths": paths,
            "started": time.time(),
        }
        return json.dumps(journal, sort_keys=True).encode()

    @staticmethod
    def _store_objects(disk, objects: list, along: tuple[Path, bytes, int | None] | None = None) -> bool:
        """Write ``objects`` durably (those not stored yet), and the file ``along`` with them;
        True when they went into a pack."""
        # Only blobs are looked up (content stored before: a restore, a revert, a file written
        # twice). A lookup searches every pack, ~0.1 ms an object with 15 packs, and a batch of
        # queued writes brings ~6 objects a write, most of them trees and commits that are new
        # (a tree that is not is small, and a pack may hold an object twice).
        objects = [obj for obj in objects if obj.type_name != b"blob" or obj.id not in disk]
        # Many objects go into one pack: a loose object costs a file (and often a directory)
        # of its own, ~1-2 ms each on a journaling file system, a pack one file for them all.
        if len(objects) >= PACK_THRESHOLD:
            if along is None:
                _add_objects(disk, objects)
                return True
            from ov.store.writers import settled, submit_all

            # The file along is flushed while dulwich writes and flushes the pack.
            flushed = submit_all(atomic_write, [(along[0], along[1])], inline_up_to=0)
            with settled(flushed):
                _add_objects(disk, objects)
                flushed[0].result()
            return True
        # Through ov's own atomic writes rather than dulwich's lock-file protocol: an object is
        # named by its content, so a temporary name and a rename suffice, and a write killed (or
        # refused by a full disk) leaves no `.lock` that refuses every retry.
        loose = []
        for obj in objects:
            if obj.type_name == b"tree" and obj.id in disk:
                continue  # an unchanged tree: its file is there
            sha = obj.id.decode()
            loose.append((Path(disk.path) / sha[:2] / sha[2:], obj.as_legacy_object(compression_level=disk.loose_compression_level), 0o444))
        if along is not None:
            loose.append(along)
        atomic_write_all(loose)
        return False

    def merge_small_packs(self) -> int:
        """Fold the small packs that batches of commits leave into one; how many were folded.

        Every object lookup searches each pack in turn, so hours of group commits would
        slow every read down. Once there are ``MERGE_SMALL_PACKS`` packs under
        ``SMALL_PACK_BYTES`` their objects are written as one new pack (flushed) before
        the old ones go: a crash in between leaves objects twice, never missing. The caller
        holds the write lock.
        """
        disk = self.repo.object_store
        small = []
        for pack in disk.packs:
            if os.path.exists(pack._basename + ".keep"):
                continue  # the packer's, with deltas a merge would write out whole (ov.store.packing)
            try:
                if os.path.getsize(pack._data_path) < SMALL_PACK_BYTES:
                    small.append(pack)
            except OSError:
                continue
        if len(small) < MERGE_SMALL_PACKS:
            return 0
        from ov.store.packing import packing_now

        if packing_now(self.state):
            # A packer's pack is in place a moment before its .keep (its name comes from its
            # objects): merged now, it would lose its deltas and be deleted under the packer.
            return 0
        # A packer that ended after the listing above marked its pack.
        small = [pack for pack in small if not os.path.exists(pack._basename + ".keep")]
        if len(small) < MERGE_SMALL_PACKS:
            return 0
        objects = {}
        for pack in small:
            for obj in pack.iterobjects():
                objects[obj.id] = obj
        _add_objects(disk, list(objects.values()))
        for pack in small:
            disk._remove_pack(pack)
        return len(small)

    def recover(self, sweep: bool = False) -> str | None:
        """Finish or undo a commit that a crash interrupted, and remove what the crash left
        behind; say what was done. The caller holds the write lock. ``sweep`` looks through the
        pack folder even when no journal says a write was interrupted (``ov status``): an add
        stores its pack before its journal, and the packer (:mod:`ov.store.packing`) has none."""
        path = self.state / JOURNAL_NAME
        done = []
        _remove_orphaned_staging(self.state / STAGING_DIR)
        try:
            journal = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            journal = None
        except (OSError, ValueError):
            journal = {}
            done.append("removed an unreadable journal")
        stale = self.stale_files(deep=journal is not None, packs=sweep or journal is not None)
        if stale:
            removed = [p for p in _still_stale(stale) if _remove_if_present(p)]
            if removed:
                shown = ", ".join(str(p.relative_to(self.worktree / ".git")) for p in removed[:3])
                more = f" (+{len(removed) - 3} more)" if len(removed) > 3 else ""
                done.append(f"removed {len(removed)} file(s) an interrupted git write left: {shown}{more}")
        if journal is not None:
            paths = [p for p in journal.get("paths", []) if isinstance(p, str)]
            # A journal names only paths ov checked, but one an older ov wrote may name a path of a
            # pulled tree that leads out of the work tree: never written, whatever HEAD holds.
            escaping = self._escaping(paths)  # once: it walks every path's folders
            paths = [p for p in paths if p not in escaping]
            head = self.head()
            if journal:
                if head is not None and head.decode() == journal.get("new"):
                    done.append(f"completed an interrupted commit ({len(paths)} path(s))")
                else:
                    done.append(f"rolled back an interrupted command ({len(paths)} path(s))")
            self._restore_paths(self.tree_of(head), paths, {})  # none of them escapes now
            temps = self._remove_temp_files(paths)
            if temps:
                done.append(f"removed {temps} temporary file(s) of interrupted writes")
            self.sync_index(self.tree_of(head), paths)
            path.unlink(missing_ok=True)
        for leftover in _temp_files_in(self.state):
            _remove_if_present(leftover)
        return "; ".join(done) or None

    def stale_files(self, deep: bool, packs: bool | None = None) -> list[Path]:
        """git lock files and temporary pack files that a killed writer may have left.

        The few fixed lock names and the tags are always looked at; ``packs`` (default: ``deep``)
        the pack folder, one listing; ``deep`` (a journal says a write was interrupted, or
        ``ov fsck``) also walks the loose object folders, where a loose object's ``.lock`` would
        refuse every later write of that object: a folder listing each, thousands of names in a
        store whose objects are not packed yet, which ``ov status`` does not pay for otherwise.
        """
        git_dir = self.worktree / ".git"
        found = [git_dir / name for name in _TOP_LOCKS if os.path.lexists(git_dir / name)]
        for ref_dir in ("refs/tags", "refs/heads", "refs/remotes"):
            for directory in (git_dir / ref_dir, *_dirs_in(git_dir / ref_dir)):  # refs/remotes/NAME/
                found.extend(p for p in _files_in(directory) if p.name.endswith(".lock") and p != git_dir / "refs/heads/main.lock")
        objects = git_dir / "objects"
        if deep if packs is None else packs:
            in_pack = [p for p in _files_in(objects / "pack") if p.name.endswith(".lock") or p.name.startswith("tmp")]
            if in_pack:
                from ov.store.packing import packing_now

                if packing_now(self.state):
                    in_pack = []  # the packer's pack and index, written and renamed without the write lock
            found.extend(in_pack)
            found.extend(p for p in _files_in(objects) if p.name.startswith("tmp_pack_"))
        if deep:
            for sub in _dirs_in(objects):
                if len(sub.name) == 2:
                    found.extend(p for p in _files_in(sub) if p.name.endswith(".lock") or TEMP_MARKER in p.name)
        return found

    def _remove_temp_files(self, paths: list[str]) -> int:
        """Delete temporary files of atomic writes in the directories of ``paths``, then the
        directories they alone kept alive (they would list as phantom directories)."""
        removed = 0
        dirs = {(self.worktree / p).parent for p in paths}
        for directory in sorted(dirs, key=lambda d: len(d.parts), reverse=True):
            for leftover in _temp_files_in(directory):
                removed += _remove_if_present(leftover)
            remove_empty_parents(directory, self.worktree)
        return removed

    def _escaping(self, paths: Iterable[str]) -> dict[str, str]:
        """path -> why, for each of ``paths`` that leads out of the work tree or into ``.git``:
        the check every write of a path to the work tree passes, whoever made the path (a pulled
        tree that slipped through, a journal, a caller's bug). Each folder is checked once: a
        large change names thousands of files in a few folders."""
        found: dict[str, str] = {}
        folders: dict[str, str | None] = {}
        for path in paths:
            folder, _, leaf = path.rpartition("/")
            if folder not in folders:
                folders[folder] = escape_problem(folder) if folder else None
                if folders[folder] is None and folder:
                    folders[folder] = self._linked_out(folder)
            problem = folders[folder] or ("it is absolute" if path[:1] == "/" else _name_escape(leaf))
            if problem is not None:
                found[path] = problem
        return found

    def _linked_out(self, folder: str) -> str | None:
        """Why ``folder`` of the work tree carries a write elsewhere (one of its folders on disk is
        a symbolic link leading out of the store, put there by hand or by another program), or None."""
        current = str(self.worktree)
        for name in folder.split("/"):
            current = os.path.join(current, name)
            try:
                if not stat.S_ISLNK(os.lstat(current).st_mode):
                    continue
            except OSError:
                return None  # not there yet: the write creates it, as a folder
            root = os.path.realpath(self.worktree)
            real = os.path.realpath(current)
            if real != root and not real.startswith(root + os.sep):
                return f"its folder {quote(folder)} is a symbolic link to {real}, outside the store"
        return None

    def _refuse_escapes(
        self, escaping: Mapping[str, str], tree_id: bytes | None = None, written: Mapping[str, bytes | None] | None = None
    ) -> None:
        """Raise :class:`UnsafeTree` before anything is written when one of the ``escaping`` paths
        (:meth:`_escaping`) is to be written: one in ``written`` with content, or (``tree_id``) one
        that tree holds as a file. Deleting such a path only drops it from the tree."""
        for path, problem in escaping.items():
            if written is not None:
                writes = written.get(path) is not None
            else:
                found = self.entry(tree_id, path)
                writes = found is not None and not stat.S_ISDIR(found[0])
            if writes:
                raise UnsafeTree(f"refused to write {quote(path)} to the work tree: {problem}")

    def _delete_files(self, changes: Mapping[str, bytes | None]) -> None:
        root = str(self.worktree)  # plain strings: pathlib costs ~40 µs a path, a second for a large move
        emptied = set()
        for path, data in changes.items():
            if data is None:
                target = os.path.join(root, path)
                try:
                    mode = os.lstat(target).st_mode
                except (FileNotFoundError, NotADirectoryError):
                    continue
                # A regular file only: ov writes no other kind, so a symbolic link there is not
                # ov's (one committed with plain git, then dropped from HEAD, stays on disk).
                if stat.S_ISREG(mode):
                    os.unlink(target)
                    emptied.add(os.path.dirname(path))
        # Each folder once, deepest first, after its files: not one failed rmdir per file.
        for folder in sorted(emptied, key=lambda f: f.count("/"), reverse=True):
            remove_empty_parents(self.worktree / folder, self.worktree)

    def _apply_worktree(
        self,
        changes: Mapping[str, bytes | None],
        appends: Mapping[str, int] | None = None,
        staged: Staged | None = None,
        escaping: Mapping[str, str] | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Write ``changes`` to the work tree. ``escaping``: what :meth:`_escaping` found for (at
        least) these paths, when the caller checked them already under this lock."""
        if escaping is None:
            escaping = self._escaping(changes)
        if escaping:
            self._refuse_escapes(escaping, written=changes)
            # Only deletions are left among them: the tree loses such a path (a store that pulled
            # it before pulls were checked), and whatever is at the place it names stays.
            changes = {p: d for p, d in changes.items() if p not in escaping}
        # Deletions first: a path may turn from a file into a directory in one change.
        self._delete_files(changes)
        writes = []
        made: set[str] = set()
        root = str(self.worktree)  # plain strings: pathlib costs ~40 µs a path, 0.1 s for a large add
        staged_root = str(staged.root) if staged is not None else ""
        moved = _move_in_new_dirs(staged, changes, root) if staged is not None else set()
        for path, data in changes.items():
            if data is None or path in moved:
                continue
            target = os.path.join(root, path)
            offset = (appends or {}).get(path)
            if offset is not None and _append_in_place(target, data, offset):
                continue
            if staged is not None and staged.data.get(path) is data and _move_in(staged, os.path.join(staged_root, path), target, made):
                continue
            writes.append((Path(target), data))
        # What is left is written file by file, and told so: the rest took a rename or none.
        before = len(changes) - len(writes)
        told = (lambda done: progress(COMMITTING, before + done, len(changes))) if progress is not None else None
        if len(writes) >= PARALLEL_WRITES:
            # Creating a file costs a disk round trip that does not hold the GIL; a few threads
            # overlap them (about 1.8x faster for a large add on a 2-core machine).
            from ov.store.writers import settled, submit_all

            futures = submit_all(_write_if_different, writes)
            with settled(futures):  # none still writing once this fails and rolls back
                for done, future in enumerate(futures, 1):
                    future.result()
                    if told is not None:
                        told(done)
        else:
            for done, (target, data) in enumerate(writes, 1):
                _write_if_different(target, data)
                if told is not None:
                    told(done)
        if told is not None and not writes:
            told(0)

    def _restore_paths(self, tree_id: bytes | None, paths: list[str], escaping: Mapping[str, str] | None = None) -> None:
        """Make each path in the work tree what it is in ``tree_id`` (absent if it is not there)."""
        wanted: dict[str, bytes | None] = {}
        links: dict[str, bytes] = {}
        for path, found in self.entries(tree_id, paths).items():
            if found is not None and stat.S_ISLNK(found[0]):
                links[path] = self.blob_data(found[1])  # the link's target, not a file's content
            elif found is not None and found[0] == GITLINK_MODE:
                continue  # a submodule's folder is another repository's: ov writes none of it
            else:
                wanted[path] = self.blob_data(found[1]) if found and not stat.S_ISDIR(found[0]) else None
        self._apply_worktree(wanted, escaping=escaping)
        if links:
            self._put_back_links(links, escaping)

    def _put_back_links(self, links: Mapping[str, bytes], escaping: Mapping[str, str] | None) -> None:
        """Make each symbolic link of HEAD (committed with plain git) that a rollback finds missing
        a link again, as it was. Written as a file it held its target as text and was no link; a
        path where something is (the link itself, a file the user put there) is left as it is:
        ov writes and deletes regular files only, so what is there is not ov's doing."""
        if escaping is None:
            escaping = self._escaping(links)
        for path, target in links.items():
            if path in escaping:
                continue
            place = os.path.join(str(self.worktree), path)
            if os.path.lexists(place):
                continue
            try:
                os.makedirs(os.path.dirname(place), exist_ok=True)
                os.symlink(os.fsdecode(target), place)
            except OSError:
                pass  # links not permitted (Windows without the right): the path stays empty, never a file

    def make_commit(self, tree: bytes, parents: list[bytes], message: str, author: Author):
        from dulwich.objects import Commit

        now = int(time.time())
        offset = time.localtime(now).tm_gmtoff
        commit = Commit()
        commit.tree = tree
        commit.parents = parents
        commit.author = commit.committer = author.ident
        commit.author_time = commit.commit_time = now
        commit.author_timezone = commit.commit_timezone = offset
        commit.encoding = b"UTF-8"
        commit.message = message.encode("utf-8")
        return commit


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C (SIGINT) and a deadline's alarm (SIGALRM: the hooks' ``hooks.deadline``) held off
    until the block ends, then delivered, in the order they came, to the handler there was before.

    Only the main thread receives them and may set their handlers; in another thread the block
    runs as it is, and so does a signal ignored or handled outside Python."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    interrupts = (signal.SIGINT, signal.SIGALRM) if hasattr(signal, "SIGALRM") else (signal.SIGINT,)  # no alarm on Windows
    previous = {signum: handler for signum in interrupts if (handler := signal.getsignal(signum)) not in (None, signal.SIG_IGN)}
    held: list[int] = []
    for signum in previous:
        signal.signal(signum, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)  # Python's own SIGINT handler raises KeyboardInterrupt here


def _move_in_new_dirs(staged: Staged, changes: Mapping[str, bytes | None], root: str) -> set[str]:
    """Rename whole staged directories that are new to the work tree into place; the paths moved.

    A new import root holds thousands of files and is one directory the work tree does not have
    yet: one rename puts it in place instead of one per file (and one mkdir per folder), which
    is most of a large add's time under the lock.
    """
    staged.wait()
    exists: dict[str, bool] = {}

    def new_top(path: str) -> str | None:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            directory = "/".join(parts[:depth])
            if directory not in exists:
                exists[directory] = os.path.lexists(os.path.join(root, directory))
            if not exists[directory]:
                return directory
        return None

    groups: dict[str, list[str]] = {}
    for path, data in changes.items():
        top = new_top(path)
        if top is not None:
            # Only what is staged as it is to be counts as moved; the rest under the folder
            # (a file the command wrote again after staging it, or never staged) is written
            # over it afterwards, file by file, as the caller writes what is not moved.
            groups.setdefault(top, [])
            if data is not None and staged.data.get(path) is data:
                groups[top].append(path)
    moved: set[str] = set()
    for top, paths in groups.items():
        prefix = top + "/"
        if not paths or any(changes.get(p) is None for p in staged.data if p.startswith(prefix)):
            continue  # a staged file the change does not write (deleted since) must not come in
        target = os.path.join(root, top)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        try:
            os.rename(os.path.join(str(staged.root), top), target)
        except OSError:
            continue  # (another file system, or it appeared meanwhile): file by file
        moved.update(paths)
    return moved


def _move_in(staged: Staged, source: str, target: str, made: set[str]) -> bool:
    """Rename a staged file over its work-tree path (atomic, like atomic_write); False when it
    cannot be (another file system), so the caller writes it instead. A file it replaces keeps
    its permissions, as atomic_write keeps them (a memory the user made 0600 stays so)."""
    staged.wait()
    parent = os.path.dirname(target)
    if parent not in made:
        os.makedirs(parent, exist_ok=True)
        made.add(parent)
    kept = kept_mode(target)
    try:
        if kept is not None:
            os.chmod(source, kept)
        os.replace(source, target)
    except OSError:
        return False
    return True


def _remove_orphaned_staging(staging: Path) -> None:
    """Remove staging folders whose owner exited (or was killed) before it committed them."""
    import shutil

    owners = [p for p in _files_in(staging) if p.name.endswith(".owner")]
    if not owners and not _dirs_in(staging):
        return
    from filelock import FileLock, Timeout

    live = set()
    for owner in owners:
        probe = FileLock(owner)
        try:
            probe.acquire(timeout=0)
        except Timeout:
            live.add(owner.name[: -len(".owner")])
            continue
        owner.unlink(missing_ok=True)
        probe.release()
    for folder in _dirs_in(staging):
        if folder.name not in live:
            shutil.rmtree(folder, ignore_errors=True)


def _files_in(directory: Path) -> list[Path]:
    return _entries_in(directory, dirs=False)


def _dirs_in(directory: Path) -> list[Path]:
    return _entries_in(directory, dirs=True)


def _entries_in(directory: Path, dirs: bool) -> list[Path]:
    """The files (or the directories) right inside ``directory``; none when it is not there."""
    try:
        with os.scandir(directory) as it:
            return [Path(e.path) for e in it if (e.is_dir if dirs else e.is_file)(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []


def _temp_files_in(directory: Path) -> list[Path]:
    return [p for p in _files_in(directory) if p.name.startswith(TEMP_MARKER)]


def _still_stale(paths: list[Path]) -> list[Path]:
    """Those of ``paths`` nobody is writing: after waiting until each could be old enough, the
    ones whose last change is still at least STALE_LOCK_SECONDS ago. A lock a live git holds is
    gone by then; a pack another ov is still writing (a large add stores its objects before it
    takes the lock) keeps changing, and is left alone. A file dated ahead of the clock (the clock
    stepped back after a kill, or the store came from a machine whose clock ran fast) has no age
    to go by: it is stale when it did not change over the wait, the way a live writer's would."""

    def seen(path: Path) -> tuple[float, tuple[int, int, int]] | None:
        try:
            st = path.lstat()
        except FileNotFoundError:
            return None
        return time.time() - st.st_mtime, (st.st_mtime_ns, st.st_size, st.st_ino)

    before = {p: s for p in paths if (s := seen(p)) is not None}
    youngest = min((age for age, _ in before.values()), default=STALE_LOCK_SECONDS)
    if youngest < STALE_LOCK_SECONDS:
        time.sleep(STALE_LOCK_SECONDS - max(youngest, 0.0))
    stale = []
    for path, (age_before, mark_before) in before.items():
        now = seen(path)
        if now is not None and (now[0] >= STALE_LOCK_SECONDS or (age_before < 0 and now[1] == mark_before)):
            stale.append(path)
    return stale


def _add_objects(disk, objects: list):
    """``disk.add_objects`` of ``objects``, with no temporary pack of its own left when it fails.

    dulwich's abort closes the pack before it removes it, and the close flushes what is still
    buffered: on a full disk (or at ``ulimit -f``) that fails again, and the partial pack stayed
    (holding whatever room was left) until an ``ov status``. Only this call's file is removed,
    known by its inode: another ov may be writing a pack of its own beside it, without the lock.
    """
    _note_packs(disk)
    made: list[tuple[int, int]] = []
    outer = getattr(_packs_made, "made", None)
    _packs_made.made = made
    try:
        return disk.add_objects([(obj, None) for obj in objects])
    except BaseException:
        if made:
            for leftover in _files_in(Path(disk.pack_dir)):
                try:
                    st = leftover.lstat()
                    if leftover.name.startswith("tmp") and (st.st_dev, st.st_ino) in made:
                        leftover.unlink()
                except OSError:
                    continue
        raise
    finally:
        _packs_made.made = outer


# The packs each thread's _add_objects opened. The object store is shared by every thread using
# one Store: swapping its add_pack per call let two threads undo each other's swap (a pack
# written, then AttributeError) and see each other's packs. The wrapper goes on once, for good.
_packs_made = threading.local()
_noting = threading.Lock()


def _note_packs(disk) -> None:
    if getattr(disk.add_pack, "_ov_notes_packs", False):
        return
    with _noting:
        add_pack = disk.add_pack
        if getattr(add_pack, "_ov_notes_packs", False):
            return

        def noted():
            f, commit, abort = add_pack()
            made = getattr(_packs_made, "made", None)
            if made is not None:
                st = os.fstat(f.fileno())
                made.append((st.st_dev, st.st_ino))
            return f, commit, abort

        noted._ov_notes_packs = True  # type: ignore[attr-defined]
        disk.add_pack = noted


def _remove_if_present(path: Path) -> bool:
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True


def _append_in_place(target: str, data: bytes, offset: int) -> bool:
    """Append ``data[offset:]`` when the file still has exactly ``offset`` bytes; else let the
    caller rewrite it. Appending keeps a per-turn capture cheap however long the session grows."""
    try:
        # Never through a symbolic link put where the file was: the rewrite replaces the link.
        fd = os.open(target, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        return False
    try:
        if os.fstat(fd).st_size != offset:
            return False
        os.write(fd, data[offset:])
        return True
    finally:
        os.close(fd)


def _write_if_different(target: Path, data: bytes) -> None:
    try:
        if target.read_bytes() == data:
            return
    except OSError:
        pass
    # No fsync per file: git's objects are the durable copy, and a work-tree file
    # lost to a power cut shows up in `ov status` and can be restored from them.
    atomic_write(target, data, durable=False)


def _uncopied_store_class():
    from dulwich.object_store import MemoryObjectStore

    class UncopiedStore(MemoryObjectStore):
        # dulwich copies each object it is given; a chain never changes an object after adding
        # it, and copying 6,000 objects of a large add cost ~0.1 s of the lock's hold.
        def add_object(self, obj) -> None:
            self._data[obj.id] = obj

        def objects(self) -> list:
            return list(self._data.values())

    return UncopiedStore


def _retrying_store_class():
    from dulwich.object_store import DiskObjectStore

    class RetryingStore(DiskObjectStore):
        """The account's object store as readers that take no lock see it while a packer runs.

        dulwich looks for an object in the packs it knows (rescanning the pack folder once when
        none has it), then in the loose file, and gives up. The packer (:mod:`ov.store.packing`)
        renames its pack into place before it deletes the loose copies, so a reader whose pack
        scan came just before the rename and whose loose read came just after the deletion
        missed an object that was there all along: one more look finds it in the new pack.
        Reads by id (``repo[sha]``, trees, walks, ``iter_tree_contents``) all go through
        ``get_raw``; ``in`` goes through the two ``contains_*`` methods, so it is retried too
        (fsck would report a false "missing"; a writer would only store an object twice).
        """

        def get_raw(self, name):
            try:
                return super().get_raw(name)
            except KeyError:
                return super().get_raw(name)  # its pack lookup rescans the pack folder on a miss

        def __contains__(self, sha) -> bool:
            return super().__contains__(sha) or super().__contains__(sha)

        @property
        def packs(self) -> list:
            # A fold of packs (ov.store.packfold) removes packs this store may have listed without
            # opening them. dulwich's list holds them (and those its rescan just closed), and its
            # completion of every new pack (a large commit's, a merge's) reads each one's index:
            # PackFileDisappeared failed that write. The list is rescanned first, and each pack's
            # index opened: opened, it stays readable whoever removes its file.
            from dulwich.pack import PackFileDisappeared

            self._update_pack_cache()
            listed = []
            for pack in list(self._pack_cache.values()):
                try:
                    pack.index  # noqa: B018 - opened here, or found gone
                except PackFileDisappeared:
                    self._evict_pack(pack)
                    continue
                listed.append(pack)
            return listed

        def contains_loose(self, sha) -> bool:
            # Whether its file is there, as git asks: dulwich's reads and parses the whole object
            # (a large file's blob inflated for an `in`), and raises for a damaged one, which made
            # every write of that content and `ov fsck` itself an internal error.
            if len(sha) == 20:
                sha = sha.hex().encode()
            return os.path.isfile(self._get_shafile_path(sha))

    return RetryingStore


def _with_retrying_store(repo):
    """``repo`` reading through :func:`_retrying_store_class`'s store, which flushes what it writes."""
    global _RETRYING
    if _RETRYING is None:
        _RETRYING = _retrying_store_class()
    opened = repo.object_store
    repo.object_store = _RETRYING.from_config(opened.path, repo.get_config())
    opened.close()
    # A ref must never name an object a power cut could lose: flush loose objects and packs
    # before they are renamed into place (about 0.3 ms an object here).
    repo.object_store.fsync_object_files = True
    return repo


_RETRYING = None


def _UncopiedStore():
    global _UNCOPIED
    if _UNCOPIED is None:
        _UNCOPIED = _uncopied_store_class()
    return _UNCOPIED()


_UNCOPIED = None


def object_damage() -> tuple[type[Exception], ...]:
    """What dulwich raises reading an object whose file is there but damaged (cut short by a
    power cut, overwritten): unlike a missing one (KeyError), it names no object."""
    import zlib

    from dulwich.errors import ChecksumMismatch, FileFormatException

    return (FileFormatException, ChecksumMismatch, zlib.error)


def escape_problem(path: str) -> str | None:
    """Why the work-tree path ``path`` leads out of the work tree or into ``.git`` whatever the
    folders on disk are, or None (:meth:`GitStore._escaping` also looks at the folders on disk)."""
    if path[:1] == "/":
        return "it is absolute"
    for name in path.split("/"):
        problem = _name_escape(name)
        if problem is not None:
            return problem
    return None


def _name_escape(name: str) -> str | None:
    if name == "..":
        return "it holds a '..' name, which leads out of its folder"
    if name in ("", "."):
        return "it holds an empty or '.' name"
    if "\x00" in name:
        return "it holds a NUL"
    if is_git_name(name):
        return f"it holds {quote(name)}, which names git's own files (.git) in some spelling"
    return None


def _folders_above(path: bytes) -> list[bytes]:
    """b"a/b/c" -> [b"a", b"a/b"]."""
    out, at = [], path.find(b"/")
    while at != -1:
        out.append(path[:at])
        at = path.find(b"/", at + 1)
    return out


def _empty_tree(store, tree_cls):
    tree = tree_cls()
    store.add_object(tree)
    return tree.id

