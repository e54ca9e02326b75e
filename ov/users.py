"""Users' spaces: what one user sees of the others' in an account they share.

An account is one git repository; each user keeps memories, resources, skills, peers and sessions
under ``viking://user/{user}/``. The rules, in one place:

- An agent acts for one user: a store opened for it (``Store(confined=True)``, the MCP server's)
  refuses every URI in another user's space, to read or to write (:func:`require_own`).
- A walk from a scope-wide place (``viking://``, ``viking://user``: grep, glob, ls, tree) leaves
  the other users' spaces out (:func:`others_below`), as find's ranking leaves out their records.
- At the terminal, the person owns the account's files: a URI naming another user's space
  explicitly reads and writes it, except in find and search, which rank one user's memories and
  sessions and say so rather than answer "no results" (:func:`require_searchable`).
"""

from __future__ import annotations

import os

from ov.errors import OtherUsersSpace, proposal
from ov.uri import VikingURI

USER_SCOPE = VikingURI(("user",))


def owner(parts: tuple[str, ...] | list[str]) -> str:
    """The user whose space a store path (its segments) lies in; ``""`` for the shared scopes
    (``resources``, ``agent``), the root and ``viking://user`` itself."""
    return parts[1] if len(parts) > 1 and parts[0] == "user" else ""


def require_own(uri: VikingURI, user: str) -> None:
    """Refuse ``uri`` when it lies in a user's space other than ``user``'s (peers included)."""
    other = owner(uri.parts)
    if other and other != user:
        raise OtherUsersSpace(
            f"{uri} is in another user's space ({other!r}); this server acts for user {user!r} and opens only theirs and the shared scopes",
            hint=f"use your own space (viking://~/...) or a shared scope; {proposal('ls', uri='viking://')} lists what is open",
        )


def require_searchable(uri: VikingURI, user: str) -> None:
    """Refuse a find or search below another user's space: its records are never ranked for
    ``user``, and "no results" would read as if nothing there matched."""
    other = owner(uri.parts)
    if other and other != user:
        raise OtherUsersSpace(
            f"{uri} is another user's space ({other!r}), not searched: find and search rank only your own ({user!r}) and the shared scopes",
            hint=f"search it as that user (--user {other}), or match its lines with {proposal('grep', pattern=..., uri=str(uri))}",
        )


def others_below(store, base: VikingURI) -> tuple[VikingURI, ...]:
    """The other users' spaces a walk from ``base`` in ``store`` (a :class:`~ov.store.store.Store`,
    which this basic module does not import) leaves out, in name order: every
    ``viking://user/{other}`` when ``base`` is the root or ``viking://user``, else none (a walk
    from inside one space, or from a shared scope, meets no other). One listing of ``user/``."""
    if not USER_SCOPE.is_within(base):
        return ()
    try:
        with os.scandir(store.path(USER_SCOPE)) as it:
            names = sorted(entry.name for entry in it)
    except (FileNotFoundError, NotADirectoryError):
        return ()
    # Hidden names (the scope's own sidecars, git's files) are not spaces; a walk skips them by its own rules.
    return tuple(VikingURI(("user", name)) for name in names if name != store.identity.user and not name.startswith("."))
