"""Users' spaces: what one user sees of the others' in an account they share.

An account is one git repository; each user keeps memories, resources, skills, peers and sessions
under ``viking://user/{user}/``. The rules, in one place:

- An agent acts for one user: a store opened for it (``Store(confined=True)``, the MCP server's)
  refuses every URI in another user's space, to read or to write (:func:`require_own`).
- A walk from a scope-wide place (``viking://``, ``viking://user``: grep, glob, ls, tree, stat's
  count) leaves the other users' spaces out (:func:`others_below`), as find's ranking leaves out
  their records; the store records what it left out (``Store.left_out``) for the CLI's note.
- ``viking://user/{name}`` is always user ``name``'s root, a folder: a file there is in nobody's
  space and not in the store (``ov status`` lists it as ignored, no command writes one), so no
  listing shows or counts it and naming it finds nothing.
- At the terminal, the person owns the account's files: a URI naming another user's space
  explicitly reads and writes it, except in find and search, which rank one user's memories and
  sessions and say so rather than answer "no results" (:func:`require_searchable`).
"""

from __future__ import annotations

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
    from inside one space, or from a shared scope, meets no other). One listing of ``user/``, read
    as a walk with ``-a`` reads it (``Store.scan``): only its folders are spaces, links none. A
    hidden id an older ov made (``.bob``) is another user's space too: left out of ``ls -a``,
    ``grep -a`` and ``stat``'s count alike, and said so, as ``carol`` is."""
    if not USER_SCOPE.is_within(base):
        return ()
    own = store.identity.user
    return tuple(VikingURI(("user", item.name)) for item, is_dir in store.scan(USER_SCOPE, show_all=True) if is_dir and item.name != own)
