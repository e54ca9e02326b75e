"""One result per text: results that would show the same text are shown once.

A file and its copy (the same README under two paths), a memory written twice, the same question
asked in two sessions: each would take a place of the results, and an entry of the prompt hook's
context block, to say nothing new. The best-ranked of them stands for all (:func:`first_of_each`
in ``find``'s ranking, :func:`collapse_copies` where ``search`` merges its rankings) and names the
others (``Hit.also``); the next results take the places they leave.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from ov.index.records import Record

if TYPE_CHECKING:
    from ov.retrieval.find import Hit

ALSO_SHOWN = 3  # the other places of a result's text named in its line of text output


class Place(NamedTuple):
    """Another place that holds a result's text word for word (a file's copy, a memory written
    twice): the result is shown once and names these (``Hit.also``).

    A NamedTuple, not a dataclass: the prompt hook imports this module on every prompt, and a
    dataclass takes about 1 ms more to define."""

    uri: str
    start_line: int = 0  # the copy's matching section (a file's); 0 for a summary or a message
    end_line: int = 0
    session_id: str = ""
    message_id: str = ""

    @classmethod
    def of(cls, record: Record) -> Place:
        if record.kind == "message":
            return cls(record.uri, session_id=record.session_id, message_id=record.message_id)
        if record.level == 2:
            return cls(record.uri, record.start_line, record.end_line)
        return cls(record.uri)

    @property
    def where(self) -> str:
        if self.message_id:
            return f"{self.uri}  [{self.message_id}]"
        if self.start_line:
            return f"{self.uri}:{self.start_line}-{self.end_line}"
        return self.uri

    def to_dict(self) -> dict:
        out: dict = {"uri": self.uri}
        if self.message_id:
            out.update(session_id=self.session_id, message_id=self.message_id)
        elif self.start_line:
            out["lines"] = [self.start_line, self.end_line]
        return out


def same_text(record: Record) -> tuple:
    """What two results must share to be one: their type, kind and level, who spoke, and the text
    shown (a file's matching section, a directory's summary, a message), ends trimmed.

    Kept apart on purpose: a memory and a document that say the same (the memory was distilled
    from it: each tells the agent something), a user's "yes" and the agent's. Two messages with
    the same words by the same speaker are one result: a context block shows only their text.
    """
    return (record.context_type, record.kind, record.level, record.role, record.speaker, record.text.strip())


def first_of_each(items: list, key, limit: int, same=None) -> list[tuple[object, list]]:
    """The first ``limit`` items of distinct ``key``, in order, each with the later items of its
    key (``items`` best first: every copy ranks below the one it is shown with). ``same(a, b)``,
    when given, must also hold for an item to join an earlier one; asked only when keys match."""
    groups: dict = {}
    out: list[tuple[object, list]] = []
    for item in items:
        k = key(item)
        for leader, copies in groups.get(k, ()):
            if same is None or same(leader, item):
                copies.append(item)
                break
        else:
            if len(out) < limit:
                copies = []
                groups.setdefault(k, []).append((item, copies))
                out.append((item, copies))
    return out


def same_file(store):
    """``same(a, b)`` for two records of one text: a file's section is one result with another
    only when the whole files are the same too (a copy of a README). Two runbooks made from one
    template share a section word for word and differ elsewhere; shown as one, a context block
    deepened to the whole file would give the agent the first and never the second. Read only
    when two sections match, and once per file."""
    read: dict[str, bytes | None] = {}

    def content(record: Record) -> bytes | None:
        if record.path not in read:  # the file the section was cut from, as committed
            try:
                read[record.path] = (store.root / record.path).read_bytes().strip()
            except OSError:
                read[record.path] = None  # unreadable: never taken for a copy
        return read[record.path]

    def same(a: Record, b: Record) -> bool:
        if a.level != 2 or a.kind == "message":
            return True  # a summary or a message is its whole text
        first = content(a)
        return first is not None and first == content(b)

    return same


def collapse_copies(hits: list[Hit], limit: int, same=None) -> list[Hit]:
    """The first ``limit`` of ``hits`` (best first) with distinct text, each naming the places of
    its copies and of theirs (rankings merged by ``ov search`` each collapsed some already);
    ``same`` as for :func:`first_of_each`, on records."""
    out = []
    both = (lambda a, b: a.record is None or b.record is None or same(a.record, b.record)) if same is not None else None
    for hit, copies in first_of_each(hits, _text_of, limit, both):
        out.append(naming(hit, copies))
    return out


def naming(hit: Hit, copies: list[Hit]) -> Hit:
    """``hit`` standing for ``copies`` too: its ``also`` names their places and those they name, once each."""
    if not copies:
        return hit
    own = hit.place
    places = dict.fromkeys([*hit.also, *(p for copy in copies for p in (copy.place, *copy.also))])
    return replace(hit, also=tuple(p for p in places if p != own))


def _text_of(hit: Hit) -> tuple:
    if hit.record is None:
        return ("", hit.uri, hit.level, hit.message_id)  # not comparable: its own result
    return same_text(hit.record)
