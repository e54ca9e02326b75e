"""`ov refile`: the dated notes an older ov made of statements `ov remember` files elsewhere today,
moved where it files them, in one commit."""

from __future__ import annotations

from dataclasses import dataclass

from ov.errors import InvalidInput
from ov.sessions import clock
from ov.sessions.remember import lister, memories_root, put_writes, reader
from ov.store.store import Store
from ov.uri import VikingURI


@dataclass(frozen=True)
class Refiled:
    """What `ov refile` moved: each dated note, with the memories that now hold its words."""

    moves: list[tuple[str, list[str]]]
    commit: str | None

    def to_dict(self) -> dict:
        return {"moved": [{"from": note, "to": to} for note, to in self.moves], "commit": self.commit, "changed": self.commit is not None}


def refile(store: Store, notes: list[VikingURI] | None = None, *, dry_run: bool = False) -> Refiled:
    """File the dated notes an older ov made of statements that ``ov remember`` files elsewhere
    today (:mod:`ov.sessions.memory.refile`) where it files them, each note removed, all in one
    commit: the user's memories and each peer's, or only ``notes`` (one made a dated note on
    purpose, ``ov remember --type events``, is left be unless named). ``dry_run``: say what would move,
    write nothing. Raises InvalidInput for one of ``notes`` that is no such note."""
    from ov.sessions.memory.plan import plan_memories
    from ov.sessions.memory.refile import EVENTS, is_dated_note, refiled
    from ov.sessions.memory.schema import load_schemas

    schemas = load_schemas(store.home.root / "memory_schemas")
    user = store.identity.user
    peers = store.path(VikingURI(("user", user, "peers")))
    roots = [memories_root(store), *(memories_root(store, p.name) for p in sorted(peers.iterdir()) if p.is_dir())] if peers.is_dir() else [memories_root(store)]
    when = clock.now()
    chosen = None if notes is None else {uri.path for uri in notes}
    if not store.exists:  # no store, no note: nothing is moved, and no store is made to say so
        _refuse_missed(chosen, [])
        return Refiled([], None)
    with store.transaction() as tx:
        moves, found_notes, groups = [], [], {}
        for root in roots:
            for path in sorted(tx.files_below(VikingURI((*root.parts, EVENTS)))):
                uri = VikingURI(tuple(path.split("/")))
                named = is_dated_note("/".join(uri.parts[len(root.parts) :])) and (chosen is None or uri.path in chosen)
                data = tx.existing_file(uri) if named else None
                found = refiled(data.decode("utf-8", "replace"), schemas, user, named=chosen is not None) if data is not None else []
                if found:
                    found_notes.append(uri)
                    groups.setdefault(str(root), []).extend(found)
                    # Where the note's words are held now (a file that said them already, unchanged, too).
                    held = (VikingURI((*root.parts, *schemas[c.memory_type].path_for(c.fields, when).split("/"))) for c in found)
                    moves.append((str(uri), list(dict.fromkeys(map(str, held)))))
        _refuse_missed(chosen, found_notes)
        if not found_notes:
            return Refiled([], None)
        writes, _diff = plan_memories(schemas, groups, read=reader(tx, *roots), listing=lister(tx, *roots), when=when, archive_uri="ov refile", user=user)
        if dry_run:
            return Refiled(moves, None)
        written = put_writes(tx, writes, *roots)
        for note in found_notes:
            tx.delete(note)
        result = tx.commit("refile", [*found_notes, *written])
    return Refiled(moves, result.commit)


def _refuse_missed(chosen: set[str] | None, found: list[VikingURI]) -> None:
    """InvalidInput for the first of the notes ``chosen`` (paths) that is not among those ``found``."""
    missed = sorted((chosen or set()) - {uri.path for uri in found})
    if missed:
        raise InvalidInput(
            f"viking://{missed[0]} is not a dated note of words `ov remember` files elsewhere now",
            hint="`ov refile --dry-run` lists the notes it would move",
        )
