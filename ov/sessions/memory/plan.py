"""Turning candidates into file writes and a ``memory_diff.json``, without touching the store.

The caller reads files through ``read`` and writes the planned texts itself,
so a commit's archive, its memories and its diff land in one git commit and
this module stays a pure function of its inputs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ov.errors import InvalidInput
from ov.sessions.memory import text as tx
from ov.sessions.memory.amends import end_rivals, gather_from_general, take_roles
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.extract import extract_text
from ov.sessions.memory.files import build_meta, format_time, render_memory, repaired_memory
from ov.sessions.memory.lines import normalise
from ov.sessions.memory.markers import CORRECTION_LEAD, unmark
from ov.sessions.memory.merge import Moves, as_correction, merge_fields
from ov.sessions.memory.notes import earlier_note
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema
from ov.sessions.memory.system_names import named_in_full, switched_cards
from ov.uri import nfc

OPERATION_KINDS = ("adds", "updates", "deletes")
# Beyond this many numbered siblings something is wrong with the caller, not the name.
MAX_SUFFIX = 1000
# Plans made in a row for the statements freed from corrected lines (see _freed): each takes those
# the one before freed. A statement a further plan would free stays in its line's file, as before.
FREED_ROUNDS = 3
# An operation's paths (relative to its memories root) and the URIs memory_diff.json names them by:
# an update of a note moved to today's folder names the file its before was read from too.
_PATH_KEYS = {"path": "uri", "before_path": "before_uri"}


@dataclass
class MemoryPlan:
    """Texts to write (paths relative to the memories root) and the diff operations they make."""

    writes: dict[str, str | None] = field(default_factory=dict)  # None: the file is removed
    operations: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {k: [] for k in OPERATION_KINDS})

    @property
    def is_empty(self) -> bool:
        return not self.writes and not any(self.operations.values())


def plan_memory_writes(
    schemas: Mapping[str, MemorySchema],
    candidates: Iterable[Candidate],
    *,
    read: Callable[[str], str | None],
    when: datetime,
    archive_uri: str,
    listing: Callable[[str], list[str]] | None = None,
    user: str | None = None,
) -> MemoryPlan:
    """The writes that store ``candidates``; ``read(relpath)`` gives a memory file's text or None.

    Upsert candidates with the same path are merged into one file, in order,
    and then into the file already there; a candidate's ``amends`` follow it,
    and one that ``only_amends`` never creates a file; an add_only candidate gets a new file,
    numbered ``name_2.md``, ``name_3.md``, ... when its name is taken, unless a stored note says it
    already or it gives a new value of one (see :func:`ov.sessions.memory.notes.earlier_note`).
    A candidate with a ``role`` ("The user's manager") takes it from the other files
    of its folder, which ``listing(reldir)`` names: each line saying it there becomes
    "No longer the user's manager". A write that would not change a file's fields is
    skipped. Operation entries carry ``path`` where ``memory_diff.json`` has ``uri``, and an
    update of another day's note, which moves to today's folder, ``before_path`` (``before_uri``)
    for the file it replaces; see :func:`build_memory_diff`.

    A stored line that a correction replaces may go on with statements an older ov merged into it
    ("Prefers tabs over spaces and my name is Ada"). Each is read as ``ov remember`` would read it
    just said by ``user`` and stored where that puts it ("- Name: Ada" in profile.md, see
    :func:`_freed`), in the same plan; one the rules do not read stays a line of the corrected file.
    """
    candidates = list(candidates)
    freed: dict[str, list[Candidate]] = {}  # a freed statement, normalised -> what stores it ([]: its line's file)
    said: list[str] = []  # the statements the last plan freed

    def moves(statement: str) -> bool:
        said.append(statement)
        return bool(freed.get(normalise(statement)))

    for _round in range(FREED_ROUNDS):
        said.clear()
        plan = _plan_once(schemas, [*candidates, *(c for found in freed.values() for c in found)], read, when, archive_uri, listing, moves)
        new = {normalise(statement): statement for statement in said if normalise(statement) not in freed}
        freed.update((key, _freed(schemas, statement, when, user)) for key, statement in new.items())
        if not any(freed[key] for key in new):
            break  # the plan already keeps every statement it freed where it belongs
    return plan


def _plan_once(
    schemas: Mapping[str, MemorySchema],
    candidates: Iterable[Candidate],
    read: Callable[[str], str | None],
    when: datetime,
    archive_uri: str,
    listing: Callable[[str], list[str]] | None,
    moves: Moves,
) -> MemoryPlan:
    """One plan of :func:`plan_memory_writes`, ``moves`` taking the statements freed from corrected lines."""
    groups: dict[str, tuple[MemorySchema, list[Candidate]]] = {}
    # A new note's path -> the stored note of its subject's old value it replaces (path, text): the
    # same file when of the same day, else another day's, which moves to today's folder.
    replaced: dict[str, tuple[str, str]] = {}
    roles: list[tuple[str, MemorySchema, Candidate]] = []
    rivalries: list[Candidate] = []
    order: dict[int, int] = {}  # each candidate's place in what was said, by id (see end_rivals)
    for candidate in (c for outer in candidates for c in (outer, *outer.amends)):
        schema = schemas.get(candidate.memory_type)
        if schema is None:
            raise InvalidInput(f"unknown memory type {candidate.memory_type!r}", hint=f"known: {', '.join(sorted(schemas))}")
        path = schema.path_for(candidate.fields, when)
        if candidate.formerly and not schema.add_only and path not in groups:
            path = _former_path(schema, candidate, path, read, when)
        if candidate.fields.get("category") == "systems" and path not in groups and listing is not None:
            fuller = named_in_full(path, read, listing)
            if fuller != path:  # its card has a heading of its own: the line goes under it
                content = re.sub(r"^#[^\n]*\n+", "", candidate.fields.get(CONTENT_FIELD, ""))
                candidate, path = replace(candidate, fields={**candidate.fields, "name": fuller.rpartition("/")[2][:-3], CONTENT_FIELD: content}), fuller
        earlier = earlier_note(schema, path, candidate, groups, read, when) if schema.add_only else None
        if earlier is not None and earlier.same:
            continue  # a note says it already
        if earlier is not None and earlier.path.rpartition("/")[0] == path.rpartition("/")[0]:
            path, replaced[earlier.path] = earlier.path, (earlier.path, earlier.text)  # the day's note of its old value takes the new one
        elif schema.add_only:
            path = _free_path(path, groups, read)
            if earlier is not None:
                # Another day's note of its old value: the same note, moved to today's folder, where
                # the newest notes are looked for (hosts.recall) and an agent finds what holds now.
                replaced[path] = (earlier.path, earlier.text)
        elif path in groups and groups[path][0] is not schema:
            raise InvalidInput(f"memory types {groups[path][0].memory_type} and {schema.memory_type} both map to {path}")
        cards = switched_cards(schemas["entities"], candidate, when, read, listing) if candidate.in_systems and listing is not None and "entities" in schemas else []
        if cards and candidate.swap and not candidate.only_amends:
            # The old value lives on a system card ("Main database: Is Postgres 15"), which the swap
            # corrects: the switch is no line of the profile's too ("Is on Postgres 16" beside it).
            candidate = replace(candidate, only_amends=True)
        groups.setdefault(path, (schema, []))[1].append(candidate)
        order[id(candidate)] = len(order)
        if candidate.role and listing is not None and not schema.add_only:
            roles.append((path, schema, candidate))
        if candidate.rivalry is not None and listing is not None:
            rivalries.append(candidate)
        for card, amend in cards:
            groups.setdefault(card, (schemas["entities"], []))[1].append(amend)
    gather_from_general(groups, read, when)
    take_roles(roles, groups, read, listing)
    end_rivals(schemas, rivalries, groups, order, read, when, listing)

    plan = MemoryPlan()
    for path, (schema, group) in groups.items():
        former, existing_text = replaced.get(path, (path, None)) if schema.add_only else (path, read(path))
        _plan_file(plan, path, schema, group, existing_text, when=when, archive_uri=archive_uri, moves=moves, former=former)
    return plan


def _plan_file(
    plan: MemoryPlan,
    path: str,
    schema: MemorySchema,
    group: list[Candidate],
    existing_text: str | None,
    *,
    when: datetime,
    archive_uri: str,
    moves: Moves,
    former: str,
) -> None:
    """Plans ``path``'s write from ``existing_text``, the text of the file at ``former`` (``path``
    unless the file moves there: a note of another day's folder its new value replaces)."""
    existing: dict[str, str] | None = None
    meta: dict[str, Any] = {}
    if existing_text is not None:
        content, meta = repaired_memory(existing_text)
        existing = {name: str(meta[name]) for name in schema.field_names if isinstance(meta.get(name), str)}
        existing[CONTENT_FIELD] = content

    if existing is None and all(c.only_amends for c in group):
        return  # "no longer prefers tabs" where nothing said tabs
    fields = existing
    for candidate in group:
        # A note is never merged: one that gives a new value takes the place of the old (notes.earlier_note).
        merged = merge_fields(schema, None if schema.add_only else fields, _incoming(schema, candidate), moves=moves)
        if merged is not None:
            fields = merged
    if fields is None or fields == existing:
        return
    after = fields.get(CONTENT_FIELD, "").strip()
    if existing is None and not after:
        return  # all it would say, something said after it ended ("Always use black", "I don't use black anymore")
    if existing is not None and not after and existing[CONTENT_FIELD].strip():
        # Every line of it moved or was deleted: a memory that says nothing is no memory.
        plan.writes[path] = None
        plan.operations["deletes"].append({"path": path, "memory_type": schema.memory_type, "deleted_content": existing[CONTENT_FIELD]})
        return
    schema.check_content(after)
    meta_out = build_meta(
        schema,
        fields,
        version=int(meta.get("version", 0)) + 1,
        created_at=meta.get("created_at") or when,
        updated_at=when,
        sources=[*meta.get("sources", []), archive_uri],
    )
    plan.writes[path] = render_memory(after, meta_out)
    if existing is None:
        plan.operations["adds"].append({"path": path, "memory_type": schema.memory_type, "after": after})
        return
    update = {"path": path, "memory_type": schema.memory_type, "before": existing[CONTENT_FIELD], "after": after}
    if former != path:  # one update naming both files, as its before and after are one memory's
        plan.writes[former] = None
        update["before_path"] = former
    plan.operations["updates"].append(update)


def _former_path(schema: MemorySchema, candidate: Candidate, path: str, read: Callable[[str], str | None], when: datetime) -> str:
    """``path``, or the file an older ov named for the same topic ("caf.md" for café, "c.md" for
    C++, "cmake.md" for Make over CMake) when only that one exists and names the topic's word
    (c.md may be C's): written into, it stays the one file of its topic, where a second file
    would split it (renaming it would lose nothing, but change a name the user may have linked to)."""
    names, word = candidate.formerly or ((), "")
    if read(path) is not None:
        return path
    for name in names:
        former = schema.path_for({**candidate.fields, "topic": name}, when)
        text = read(former) if former != path else None
        if text is not None and re.search(tx.named(nfc(word)), nfc(text), re.IGNORECASE):
            return former
    return path


def _freed(schemas: Mapping[str, MemorySchema], statement: str, when: datetime, user: str | None) -> list[Candidate]:
    """What stores ``statement``, which an older ov merged into a line a correction replaces: the
    memories ``ov remember`` makes of it just said ("my name is Ada": "- Name: Ada" in profile.md),
    replacing no stored line, since it was said before the correction and maybe before them: a
    line it would replace ("Name: Bob") holds instead, and it is dropped. None ([]) when it is more than one sentence (the rules
    pass over one that says only "it is loud"), when the rules leave some of it unread, or read a
    dated note, which would be dated today: it then stays a line of the corrected file as it is.
    """
    plain = unmark(re.sub(CORRECTION_LEAD, "", statement, flags=re.IGNORECASE))[0]  # no "actually": it corrects nothing
    if len(list(tx.sentences(plain))) != 1:
        return []
    unread: list[str] = []
    found = extract_text(plain, when=when, user=user, unread=unread)
    if unread or any(c.memory_type not in schemas or schemas[c.memory_type].add_only for c in found):
        return []
    # What its line would replace is newer or as old, so it holds: a freed "Name: Ada" beside a
    # stored or just said "Name: Bob" is dropped, as a later "my name is ..." would replace it.
    return [Candidate(c.memory_type, c.fields, c.source_message_ids, present=(*c.present, *c.replaces), formerly=c.formerly) for c in found]


def _incoming(schema: MemorySchema, candidate: Candidate) -> Mapping[str, Any]:
    """The candidate's fields, its content lines as supersede ops when it names lines it replaces."""
    content, spec = candidate.fields.get(CONTENT_FIELD), schema.field(CONTENT_FIELD)
    if isinstance(content, str):  # stored in NFC, as every name and text of the store is
        content = nfc(content)
        if candidate.corrects:
            content = "\n".join(as_correction(line) for line in content.splitlines())
    if not (candidate.replaces or candidate.swap or candidate.present) or not isinstance(content, str) or spec is None or spec.merge_op != "patch":
        return {**candidate.fields, CONTENT_FIELD: content} if content is not None else candidate.fields
    probes = list(candidate.replaces)

    def op(line: str) -> Any:
        if not line.lstrip().startswith(("- ", "* ", "+ ")):
            return line
        if candidate.swap:  # (one that only amends is no line of its own when no stored line names the old value)
            return {"swap": candidate.swap[0], "to": candidate.swap[1]} | ({} if candidate.only_amends else {"otherwise": line})
        supersede = {"supersede": probes, "with": line, "append": not candidate.only_amends, "present": list(candidate.present)}
        return supersede | ({"otherwise": candidate.otherwise} if candidate.otherwise else {})

    return {**candidate.fields, CONTENT_FIELD: [op(line) for line in content.splitlines()]}


def _free_path(path: str, taken: Mapping[str, Any], read: Callable[[str], str | None]) -> str:
    stem = path[: -len(".md")] if path.endswith(".md") else path
    for n in range(1, MAX_SUFFIX + 1):
        candidate = path if n == 1 else f"{stem}_{n}.md"
        if candidate not in taken and read(candidate) is None:
            return candidate
    raise InvalidInput(f"more than {MAX_SUFFIX} memories are named like {path}")


def plan_memories(
    schemas: Mapping[str, MemorySchema],
    groups: Mapping[str, Iterable[Candidate]],
    *,
    read: Callable[[str, str], str | None],
    when: datetime,
    archive_uri: str,
    listing: Callable[[str, str], list[str]] | None = None,
    user: str | None = None,
) -> tuple[dict[tuple[str, str], str | None], dict[str, Any]]:
    """Plan the candidates of each memories root, ``{root_uri: candidates}``, into one diff.

    This is how ``ov remember`` and ``ov commit`` both store what they
    extracted. ``read(root_uri, relpath)`` gives a file's text or None, and
    ``listing(root_uri, reldir)`` the names of the files in a folder. Returns
    the writes, ``{(root_uri, relpath): text}`` (None: remove the file), and the ``memory_diff.json``
    document whose URIs sit under each candidate's root. ``user`` says the statements freed from
    corrected lines (see :func:`plan_memory_writes`).
    """
    writes: dict[tuple[str, str], str | None] = {}
    ops: dict[str, list[dict[str, Any]]] = {kind: [] for kind in OPERATION_KINDS}
    for root, candidates in groups.items():
        plan = plan_memory_writes(
            schemas,
            candidates,
            read=lambda rel, root=root: read(root, rel),
            when=when,
            archive_uri=archive_uri,
            listing=None if listing is None else lambda rel, root=root: listing(root, rel),
            user=user,
        )
        writes.update({(root, rel): text for rel, text in plan.writes.items()})
        for kind, entries in build_memory_diff(archive_uri, plan.operations, when, root)["operations"].items():
            ops[kind].extend(entries)
    return writes, build_memory_diff(archive_uri, ops, when, "")


def build_memory_diff(
    archive_uri: str,
    operations: Mapping[str, Iterable[Mapping[str, Any]]],
    extracted_at: datetime | str,
    memories_base_uri: str,
) -> dict[str, Any]:
    """The ``memory_diff.json`` document: each operation's ``path`` becomes a ``uri`` under ``memories_base_uri``.

    Keys and entry shapes follow OpenViking's, so its tools read ours; the
    document is complete (zero totals, empty lists) when nothing was extracted.
    """
    base = memories_base_uri.rstrip("/")
    ops: dict[str, list[dict[str, Any]]] = {}
    for kind in OPERATION_KINDS:
        ops[kind] = []
        for entry in operations.get(kind, ()):
            out: dict[str, Any] = {}
            for key, value in entry.items():
                if key in _PATH_KEYS:
                    out.setdefault(_PATH_KEYS[key], f"{base}/{value}")
                else:
                    out[key] = value
            ops[kind].append(out)
    return {
        "archive_uri": archive_uri,
        "trace_id": None,
        "extracted_at": extracted_at if isinstance(extracted_at, str) else format_time(extracted_at),
        "operations": ops,
        "summary": {f"total_{kind}": len(ops[kind]) for kind in OPERATION_KINDS},
    }
