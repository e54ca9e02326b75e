"""Which paths of a tree may reach the work tree, for trees ov did not build.

ov's own commits hold only files a URI names, as regular files. A commit fetched from a remote was
made by anything that writes git objects: a tree entry there may be named ``..`` or ``.git`` (in
any spelling a file system reads as it), hold a ``/`` or a NUL, or be a symbolic link or a
submodule. Written to the work tree, such a path replaces a file outside the store, or the
account's ``.git/config``, whose settings run commands in every later ``git status``. A pull
refuses a history that holds one (:func:`first_unsafe`) before anything moves; ``ov fsck`` finds
those a store took in before pulls checked.

The rule is the one for a path already stored (:func:`ov.uri.work_path_problem` with ``stored``),
the one a restore and ``ov fsck`` apply too: what ov writes, and the names an older ov stored that
ov no longer makes (``"todo "``, a user id ``.bob``), which ``ov ls`` still reaches; never an escape.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from ov.errors import quote
from ov.names import is_git_file_name
from ov.uri import PUBLIC_SCOPES, segment_problem, work_path_problem

# git's modes of a regular file: ov writes the first, plain git the second for an executable
# (which ov writes as a plain file).
FILE_MODES = frozenset({0o100644, 0o100755})
GITLINK_MODE = 0o160000  # a submodule: a link to another repository's commit
NOT_TEXT = "a name that is not UTF-8 text"


@dataclass(frozen=True)
class UnsafePath:
    """A path of a commit's tree that ov will not write to the work tree, and why."""

    commit: str  # hex id
    path: str  # a name that is not UTF-8 keeps its bytes as surrogates: shown by quoted()
    problem: str


def entry_problem(name: bytes, mode: int) -> str | None:
    """Why one tree entry may not reach the work tree, whatever folder it is in, or None."""
    try:
        text = name.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_TEXT
    if text in (".", ".."):
        return f"a {text!r} name, which leads {'out of its folder' if text == '..' else 'back to its own folder'}"
    if stat.S_ISLNK(mode):
        return "a symbolic link (ov stores regular files only, and never follows a link from a tree)"
    if stat.S_ISDIR(mode):
        pass
    elif mode == GITLINK_MODE:
        return "a submodule (a link to another repository's commit; ov stores regular files only)"
    elif mode not in FILE_MODES:
        return f"an entry of mode {mode:o}, which is neither a regular file nor a folder"
    return segment_problem(text, stored=True)


def ignored_entry(name: bytes, mode: int) -> bool:
    """Whether an entry at the top of a tree is one ov ignores: a plain file or folder outside the
    scopes (``README.md``, ``.gitignore``, ``docs/``), which a hosting service or a teammate with
    plain git committed. As ``ov status`` ignores such a file in the work tree, ov never reads it
    from a tree nor writes it to the work tree; a pull keeps it in the tree as it is, so that a push
    gives it back. So is a plain ``.gitattributes`` or ``.gitmodules`` (``* text=auto``, ``git lfs
    track``): git reserves those names only for what is not a plain file. An escape (``.git``,
    ``..``), a link or a submodule, and a folder or link of those two names, is never ignored but refused."""
    text = name.decode("utf-8", "replace")
    if text in PUBLIC_SCOPES:
        return False
    if mode in FILE_MODES and is_git_file_name(text):
        return True
    return entry_problem(name, mode) is None


def in_scopes(path: str) -> bool:
    """Whether the work-tree path ``path`` lies below one of the scopes (what ov reads and writes)."""
    return path.split("/", 1)[0] in PUBLIC_SCOPES


def shown(path: str) -> str:
    """``path`` as readable text: a name that is not UTF-8 (read as :meth:`GitStore.iter_entries`
    reads it, its bytes kept as surrogates) shows those bytes escaped (``bad\\xff.md``)."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# A surrogate that holds a byte of a name not UTF-8, as repr() spells it, after an even number of
# backslashes (an odd one makes it the text of a real backslash).
_ESCAPED_BYTE = re.compile(r"(?<!\\)((?:\\\\)*)\\udc([89a-f][0-9a-f])")


def quoted(path: str) -> str:
    """``path`` quoted for a message (:func:`ov.errors.quote`), a name that is not UTF-8 (its
    bytes kept as surrogates) showing each byte escaped once, as :func:`shown` gives it
    (``'bad\\xff.md'``): quoting the text :func:`shown` returns doubled its backslashes."""
    return _ESCAPED_BYTE.sub(lambda m: f"{m.group(1)}\\x{m.group(2)}", quote(path))


def stored_problem(path: str, mode: int) -> str | None:
    """Why the committed entry at ``path`` (not a folder; as :meth:`GitStore.iter_entries` yields
    it) may not be written to the work tree or packed, or None: the rule of a pull
    (:func:`unsafe_paths`) for one path, for the readers of a tree that write or pack it."""
    try:
        raw = path.encode("utf-8")
    except UnicodeEncodeError:  # surrogates: bytes of a name that is not UTF-8
        return NOT_TEXT
    return entry_problem(raw.rpartition(b"/")[2], mode) or work_path_problem(path, stored=True)


def unsafe_paths(
    object_store,
    tree_id: bytes,
    checked: set[tuple[bytes, str]] | None = None,
    *,
    skip_missing: bool = False,
    clean: AbstractSet[tuple[bytes, str]] = frozenset(),
    safe_files: set[tuple[str, bytes, int]] | None = None,
) -> Iterator[tuple[str, str]]:
    """(path, problem) of every entry of ``tree_id`` that may not reach the work tree.

    ``checked`` holds the (tree, folder) pairs already walked, shared across the commits of one
    history so that each pair is read once: a commit shares most of its trees with its parent.
    A folder's path matters (its length, a user id's place), so a tree is checked per place.
    A tree missing from the object store is one too, unless ``skip_missing``. ``clean`` holds
    pairs an earlier walk found safe whole (every tree below them included): not walked again.
    ``safe_files`` holds the (folder, name, mode) of files found safe, shared like ``checked``:
    each commit that changes a folder makes a new tree of it that repeats most of its files, and
    checking a file's whole path costs far more than looking it up (most of ``ov fsck``'s time in
    a long history). The name is its bytes: two names may show alike.
    """
    from dulwich.errors import ObjectFormatException

    checked = set() if checked is None else checked
    safe_files = set() if safe_files is None else safe_files
    stack = [(tree_id, "")]  # not recursion: a hostile tree may nest thousands of folders deep
    while stack:
        sha, folder = stack.pop()
        if (sha, folder) in checked or (sha, folder) in clean:
            continue
        checked.add((sha, folder))
        try:
            tree = object_store[sha]
        except KeyError:
            if not skip_missing:
                yield folder or "/", f"its tree {sha.decode()[:10]} is missing from the object store"
            continue
        except ObjectFormatException as exc:  # a NUL in a name ends it early: what follows is garbage
            yield folder or "/", f"its tree {sha.decode()[:10]} is not a well-formed git tree ({exc})"
            continue
        if tree.type_name != b"tree":
            yield folder or "/", "a folder whose object is not a tree"
            continue
        for name, mode, child in tree.iteritems():
            if (folder, name, mode) in safe_files or (not folder and ignored_entry(name, mode)):
                continue
            text = name.decode("utf-8", "surrogateescape")  # as iter_entries reads it
            path = f"{folder}/{text}" if folder else text
            problem = entry_problem(name, mode)
            if problem is None and not stat.S_ISDIR(mode):
                problem = work_path_problem(path, stored=True)
                if problem is None:
                    safe_files.add((folder, name, mode))
            if problem is not None:
                yield path, problem
            elif stat.S_ISDIR(mode):
                stack.append((child, path))


def first_unsafe(
    repo, include: Iterable[bytes], exclude: Iterable[bytes] = (), *, skip_missing: bool = False, clean: set[tuple[bytes, str]] | None = None
) -> UnsafePath | None:
    """The first path that may not reach the work tree in the trees of the commits reachable
    from ``include`` but not from ``exclude`` (newest first), or None when there is none.

    ``clean`` is shared by the calls that check several histories of one repository (a pull's
    tags): the (tree, folder) pairs found safe so far, which this call does not read again and,
    when it finds nothing, adds the pairs it read to. A walk that stops at a problem adds none:
    a pair is marked before the trees below it are read, so not every pair it marked is safe."""
    from dulwich.errors import ObjectFormatException

    checked: set[tuple[bytes, str]] = set()
    safe_files: set[tuple[str, bytes, int]] = set()
    known = clean if clean is not None else frozenset()
    try:
        for entry in repo.get_walker(include=list(include), exclude=list(exclude) or None):
            commit = entry.commit
            for path, problem in unsafe_paths(repo.object_store, commit.tree, checked, skip_missing=skip_missing, clean=known, safe_files=safe_files):
                return UnsafePath(commit.id.decode(), path, problem)
    except KeyError as exc:  # a commit the history names is not here
        if skip_missing:
            return None
        missing = exc.args[0] if exc.args else b"?"
        shown = missing.decode() if isinstance(missing, bytes) else str(missing)
        return UnsafePath(shown, "/", f"commit {shown[:10]} is missing from the object store")
    except ObjectFormatException as exc:
        return UnsafePath("?", "/", f"a commit of the history is not a well-formed git commit ({exc})")
    if clean is not None:
        clean |= checked
    return None
