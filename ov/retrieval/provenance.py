"""Where a result's lines are, beyond its URI: the definition they are in (``in``: a code file's
``WriteLock.acquire``), the project file and lines of a split document's section (``source``,
``source_lines``), and whether the source on disk changed since it was added (``stale``).

One place for the context block's attributes (:mod:`ov.retrieval.context`) and a find's or a
search's results (:func:`annotate`: ``ov find --json``, ``ov search --json``, the MCP tools), each
computed only for what is shown: naming a definition walks a code file's lines, and an origin reads
the resource's manifest and its source's state.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ov.errors import InvalidInput
from ov.ingest.formats import SECTION_NAME
from ov.lines import lines_of
from ov.regex import LazyPattern
from ov.retrieval.find import Hit
from ov.uri import VikingURI

_SECTION = LazyPattern(SECTION_NAME)  # a section of a long document split by ingest (03_ov_add-skill.md)


@dataclass(frozen=True)
class Origin:
    """What a resource file's result says of where it came from (ov.ingest.origin)."""

    source: str = ""  # the file to read: a section's document, or a changed source's path
    span: tuple[int, int] | None = None  # a section's lines in that document
    stale: str = ""  # "changed" | "deleted": the source on disk no longer says what the copy does

    def lines_shown(self, lines: tuple[int, int] | None) -> tuple[int, int] | None:
        """The lines of the source document that ``lines`` of the section are (the section's own
        span without them); None for a source that is not a document split into sections."""
        if not self.span:
            return None
        return (self.span[0] + lines[0] - 1, self.span[0] + lines[1] - 1) if lines else self.span


def origin(store, hit: Hit) -> Origin | None:
    """Where a resource file came from, when its result should say so: a section of a split
    document (``docs/commands/03_ov_add-skill.md``) is no file of the project, and its lines count
    from the section's start; a file whose source changed after its add shows a past version's
    lines, so the agent should read the file itself. None for another result."""
    if hit.context_type != "resource" or hit.level < 2 or hit.kind == "message":
        return None
    from ov.ingest.origin import drift, origin_of

    try:
        uri = stored_uri(hit)
        found = origin_of(store, uri)
        stale, path = drift(store, uri, found)
    except InvalidInput:
        return None
    if stale:
        return Origin(path, found.lines if found.shared else None, stale)
    if found is not None and found.shared and _SECTION.match(uri.name):
        return Origin(found.in_project(), found.lines)
    return None


def origin_attrs(found: Origin | None, tier: str, lines: tuple[int, int] | None) -> tuple[tuple[str, str], ...]:
    """A block entry's ``source``, ``source_lines`` (the lines of the document the entry shows; none
    for a bare URI) and ``stale``."""
    if found is None:
        return ()
    attrs = [("source", found.source)]
    shown = found.lines_shown(lines) if tier != "uri" else None
    if shown:
        attrs.append(("source_lines", f"{shown[0]}-{shown[1]}"))
    if found.stale:
        attrs.append(("stale", found.stale))
    return tuple(attrs)


def scopes(hit: Hit, whole: str, shown: list[tuple[int, int] | None]) -> dict[tuple[int, int], str]:
    """The definitions (``WriteLock.acquire``) the lines of each of ``shown`` are in, where the
    file is code and they start inside one: lines from the middle of a function did not say
    which it was (:func:`ov.index.code.enclosing`; ``whole``, the file's text, else the chunk's)."""
    from ov.index.code import enclosing

    if not is_code(hit):
        return {}
    lines, offset = (lines_of(whole), 1) if whole else (lines_of(hit.record.text), hit.record.start_line or 1)
    return {span: name for span in shown if span and (name := enclosing(lines, span[0] - offset))}


def is_code(hit: Hit) -> bool:
    """Whether ``hit`` shows lines of a file of code (a section of prose or a message names no definition)."""
    from ov.index.code import is_prose

    return hit.record is not None and hit.kind != "message" and hit.level == 2 and not is_prose(hit.uri.rsplit("/", 1)[-1])


def annotate(store, hits: list[Hit]) -> list[Hit]:
    """``hits`` with where their lines are (:attr:`Hit.within`, :attr:`Hit.source`,
    :attr:`Hit.source_lines`, :attr:`Hit.stale`), as a block's entry of their matched lines says it."""
    out = []
    for hit in hits:
        lines = (hit.start_line, hit.end_line) if hit.start_line else None
        within = scopes(hit, file_text(store, hit, stripped=False), [lines]).get(lines, "") if lines and is_code(hit) else ""
        found = origin(store, hit)
        if found is not None:
            hit = replace(hit, source=found.source, source_lines=found.lines_shown(lines), stale=found.stale)
        out.append(replace(hit, within=within) if within else hit)
    return out


def stored_uri(hit: Hit) -> VikingURI:
    """The URI of the stored file or folder ``hit`` shows; InvalidInput for one that cannot be stored."""
    return VikingURI(tuple(hit.uri[len("viking://") :].split("/")))


def file_text(store, hit: Hit, *, stripped: bool = True) -> str:
    """The whole file as a reader sees it (a memory without its bookkeeping trailer), ``stripped``
    of the blank space at its ends or with its lines where they are; "" when unreadable."""
    try:
        path = store.path(stored_uri(hit))
        text = path.read_text(encoding="utf-8")
    except (OSError, ValueError, InvalidInput):
        return ""
    if hit.kind == "memory":
        from ov.sessions.memory.files import parse_memory

        try:
            text, _fields = parse_memory(text)
        except InvalidInput:
            pass
    return text.strip() if stripped else text
