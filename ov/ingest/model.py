"""What ingest passes between its stages: sources, parsed pieces and their provenance."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SourceKind = Literal["file", "http"]


@dataclass(frozen=True)
class Provenance:
    """Where one written file came from."""

    kind: SourceKind
    uri: str  # an absolute local path or an http(s) URL
    lines: tuple[int, int] | None = None  # 1-based, inclusive, in the source text
    pages: tuple[int, int] | None = None  # 1-based, inclusive, for PDFs

    def to_dict(self) -> dict:
        data: dict = {"kind": self.kind, "uri": self.uri}
        if self.lines is not None:
            data["lines"] = list(self.lines)
        if self.pages is not None:
            data["pages"] = list(self.pages)
        return data


@dataclass(frozen=True)
class SourceFile:
    """One input document, already read: its bytes and where they came from."""

    relpath: str  # path relative to the added root, '/'-separated ("guide/intro.md"); the name for a single file
    data: bytes
    kind: SourceKind
    uri: str  # absolute path or URL
    content_type: str | None = None  # from HTTP, when known
    # The whole source is this one document (a single file or a URL), so the import root is
    # already a directory named after it: a long document's sections go straight into it.
    standalone: bool = False


@dataclass(frozen=True)
class Piece:
    """One file ingest will write, relative to the document's own slot in the tree.

    A document small enough to stay whole yields one piece whose ``relpath`` is a
    file name (``intro.md``); a long one yields pieces under a directory named
    after it (``handbook/01_Getting_started.md``, ``handbook/02_Deploys/01_Rollbacks.md``).
    """

    relpath: str
    text: str
    title: str
    provenance: Provenance


@dataclass(frozen=True)
class Skipped:
    """An input that was not ingested, and why (shown in the summary)."""

    path: str
    reason: str
    # True for inputs that should have been ingested but failed (corrupt, unreadable):
    # `--strict` turns those into an error. Deliberate skips (.gitignore, binary) are not failures.
    failed: bool = False


@dataclass
class ParseFailure(Exception):
    """A document that could not be parsed (corrupt or encrypted PDF, undecodable text, ...)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"
