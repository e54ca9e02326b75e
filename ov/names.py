"""Names that no URI segment or id may take, because of what git or ov make of them.

Every segment of a URI, and every account, user, peer and session id (ids
become path segments), ends up as an entry of a git tree. ``git fsck
--strict`` (and every server with ``receive.fsckObjects``) refuses a tree
that holds ``.git`` in any spelling that some file system reads as ``.git``,
and a ``.gitmodules`` or ``.gitattributes`` that is not a plain file; a
history that holds one can never be pushed. This module knows those spellings
(the rules of git's ``is_hfs_dotgit``/``is_ntfs_dotgit``) and ov's own
temporary-file marker. It imports nothing from ov, so :mod:`ov.uri` and
:mod:`ov.identity` can both use it.
"""

from __future__ import annotations

import re

# A temporary file of an atomic write; never addressable (recovery may delete it).
TEMP_MARKER = ".ov-tmp-"

# Code points HFS+ ignores when it compares names, so ".g\u200cit" is ".git" on a Mac
# (the list git's utf8.c skips in is_hfs_dotgit).
_HFS_IGNORED = dict.fromkeys([0x200C, 0x200D, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x206A, 0x2070), 0xFEFF])
# Names git gives a meaning inside a tree; each is refused in every spelling below.
_GIT_NAMES = frozenset({".git", ".gitmodules", ".gitattributes"})
# Of those, the ones git refuses only when they are not a plain file (a link, a folder).
_GIT_FILE_NAMES = frozenset({".gitmodules", ".gitattributes"})
# Their NTFS 8.3 short names ("git~1", "gitmod~2", and the hashed fallbacks git also checks).
_SHORT_NAME_RE = re.compile(r"(?:git|gitmod|gi7eba|gitatt|gi7d29)~[0-9]+")
_SHORT_NAMES = {"git": ".git", "gitmod": ".gitmodules", "gi7eba": ".gitmodules", "gitatt": ".gitattributes", "gi7d29": ".gitattributes"}


def reserved_reason(name: str) -> str | None:
    """Why ``name`` cannot be a tree entry ov writes, or None when it can."""
    if TEMP_MARKER in name:
        return f"names holding {TEMP_MARKER!r} are ov's temporary files"
    if is_git_name(name):
        return "git reserves this name in a tree (any case, and spellings such as '.git.' or 'git~1')"
    return None


def is_git_name(name: str) -> bool:
    """Whether some file system reads ``name`` as ``.git``, ``.gitmodules`` or ``.gitattributes``."""
    return git_name(name) is not None


def is_git_file_name(name: str) -> bool:
    """Whether ``name`` reads as ``.gitmodules`` or ``.gitattributes``: names git refuses in a tree
    only when they are not a plain file (``git fsck``'s ``gitmodulesSymlink``); as a plain file
    each is what a hosting service's template or ``git lfs track`` commits."""
    return git_name(name) in _GIT_FILE_NAMES


def git_name(name: str) -> str | None:
    """The name of git's (``.git``, ``.gitmodules``, ``.gitattributes``) some file system reads ``name`` as, or None."""
    if name.isascii() and "gi" not in name.lower():
        return None  # the common case, checked on every path a commit writes: no translation
    # NTFS drops trailing dots and spaces and reads "name:stream" as "name"; HFS+ drops the
    # ignorable code points; both compare without case. What is left is what git compares.
    core = name.translate(_HFS_IGNORED).split(":", 1)[0].rstrip(" .").lower()
    if core in _GIT_NAMES:
        return core
    return _SHORT_NAMES[core.partition("~")[0]] if _SHORT_NAME_RE.fullmatch(core) else None
