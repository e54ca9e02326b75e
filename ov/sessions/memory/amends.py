"""What a plan's candidates change in the other files of their folder, beside their own.

A role said of one card ("The user's manager") is taken from the others; a preference ends its
rivals in the other files of its subject (:mod:`ov.sessions.memory.rivals`); a topic file written
gathers the lines of its topic an older ov left in ``general.md``. Each adds candidates to the
plan's ``groups`` (path -> its schema and candidates, merged in order), and writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from ov.errors import InvalidInput
from ov.sessions.memory import topics
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.choices import choice_of
from ov.sessions.memory.files import parse_memory, repaired_memory
from ov.sessions.memory.rivals import ended, endings
from ov.sessions.memory.schema import CONTENT_FIELD, MemorySchema
from ov.uri import nfc

# The topic a preference is filed under when no word of it names one (see topics.slug).
GENERAL = "general"

Groups = dict[str, tuple[MemorySchema, list[Candidate]]]


def take_roles(roles: list[tuple[str, MemorySchema, Candidate]], groups: Groups, read: Callable[[str], str | None],
               listing: Callable[[str], list[str]] | None) -> None:
    """For each (path, schema, candidate) of ``roles``, each other file of its folder that holds the
    candidate's role ("The user's manager") gets "No longer the user's manager" in its place."""
    for path, schema, candidate in roles if listing is not None else ():
        role = candidate.role or ""
        line = f"- No longer {role[:1].lower()}{role[1:]}"
        folder = path.rpartition("/")[0]
        for name in listing(folder):
            other = f"{folder}/{name}" if folder else name
            if other == path or name.startswith(".") or not name.endswith(".md") or (other in groups and groups[other][0] is not schema):
                continue  # itself, a summary sidecar, not a memory, or another type's file
            if other not in groups and not _holds_role(read(other), role):
                continue
            amend = Candidate(schema.memory_type, {CONTENT_FIELD: line}, list(candidate.source_message_ids), replaces=(role,), only_amends=True)
            groups.setdefault(other, (schema, []))[1].append(amend)


def end_rivals(schemas: Mapping[str, MemorySchema], rivalries: list[Candidate], groups: Groups, order: dict[int, int],
               read: Callable[[str], str | None], when: datetime, listing: Callable[[str], list[str]] | None) -> None:
    """End the preferences each candidate's rivalry rules out, in the files of its subject's folder
    (see :mod:`ov.sessions.memory.rivals`): the stored lines, and those the plan stores from what was
    said before it (``order``: each candidate's place, by ``id``), as "Always use black" said earlier
    in the session "I don't use black anymore" ends; never a file's creation."""
    schema = schemas.get("preferences")
    for candidate in rivalries if schema is not None else ():
        rivalry = candidate.rivalry
        if rivalry is None or listing is None:
            continue
        folder = schema.path_for({**dict(rivalry.folder_fields), "topic": GENERAL}, when).rpartition("/")[0]
        place = order[id(candidate)]
        found = endings(rivalry, folder, listing(folder), read)
        if found and candidate.swap and candidate.only_amends:
            _kept(candidate, groups, order)
        for path, (kind, group) in groups.items():
            said = [c.fields[CONTENT_FIELD] for c in group if order.get(id(c), -1) < place and not c.only_amends and isinstance(c.fields.get(CONTENT_FIELD), str)]
            if kind is schema and path.rpartition("/")[0] == folder and said:
                found.extend((path, ending) for ending in ended(rivalry, "\n".join(said)))
        for path, content in found:
            fields = {**dict(rivalry.folder_fields), "topic": path.rpartition("/")[2][: -len(".md")], CONTENT_FIELD: content}
            probes = (f"{content[2:].replace('No longer ', '', 1)}$",) if isinstance(content, str) else ()
            amend = Candidate(schema.memory_type, fields, list(candidate.source_message_ids), replaces=probes, only_amends=True)
            group = groups.setdefault(path, (schema, []))[1]
            # merged after what was said before it, and before what is said again after it, which holds
            group.insert(next((n for n, c in enumerate(group) if order.get(id(c), -1) > place), len(group)), amend)


def _kept(switch: Candidate, groups: Groups, order: dict[int, int]) -> None:
    """A switch that only amends ("we migrated from npm to pnpm last month", in a session) and ends a
    stored preference for its old value corrects a memory: what holds now is kept too ("Team migrated
    from npm to pnpm"), as it is where a stored line names the old value (merge's swap). Ended alone,
    the preference left the memories saying nothing of the new one."""
    for _schema, group in groups.values():
        for n, c in enumerate(group):
            if c is switch:
                group[n] = kept = replace(switch, only_amends=False)
                order[id(kept)] = order[id(switch)]


def gather_from_general(groups: Groups, read: Callable[[str], str | None], when: datetime) -> None:
    """Move into each topic file written the lines of its topic that an older ov left in
    ``general.md`` ("- Prefers Make", filed there before "Make" named its own topic).

    Left there, two files would say the same thing, and a correction ("I prefer CMake over Make")
    would end only one of them. A line is the topic's when the choice it states (what comes before
    "over", see :func:`ov.sessions.memory.choices.choice_of`) names the topic in words spelled as
    topics are (:func:`ov.sessions.memory.topics.names_topic`): "Prefers Make over CMake" is make's, not
    cmake's; "Prefers C++" is cpp's, not c's. Each line moves once, in the same write as
    the statement that named its topic; a ``general.md`` left with no line is removed.
    """
    taken: set[str] = set()
    for path, (schema, group) in list(groups.items()):
        topic = group[0].fields.get("topic")
        if schema.add_only or "topic" not in schema.field_names or not isinstance(topic, str) or topic in ("", GENERAL):
            continue
        general = schema.path_for({**group[0].fields, "topic": GENERAL}, when)
        text = read(general) if general != path else None
        if text is None:
            continue
        content = repaired_memory(text)[0]
        lines = [line.strip() for line in content.splitlines() if line.lstrip().startswith(("- ", "* ", "+ "))]
        moved = [line for line in lines if line not in taken and topics.names_topic(choice_of(nfc(line)), topic)]
        if not moved:
            continue
        taken.update(moved)
        group.insert(0, Candidate(schema.memory_type, {**group[0].fields, CONTENT_FIELD: "\n".join(moved)}))
        removal: Any = [{"replace": line, "with": ""} for line in moved]
        groups.setdefault(general, (schema, []))[1].append(Candidate(schema.memory_type, {**group[0].fields, "topic": GENERAL, CONTENT_FIELD: removal}))


def _holds_role(text: str | None, role: str) -> bool:
    """Whether a stored memory's text states ``role``; a file that is not a readable memory (edited
    by hand past recognition) is left alone rather than failing the write that named the role."""
    if text is None or role.lower() not in text.lower():
        return False
    try:
        parse_memory(text)
    except InvalidInput:
        return False
    return True
