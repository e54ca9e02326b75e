"""What ingest passes between its stages: sources, parsed pieces, their provenance, and the
paths they are laid out at."""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from ov.uri import nfc

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


class Layout:
    """Paths claimed so far; keeps two documents from landing on one path (``guide.md`` beside
    a long ``guide.md`` split into ``guide/``, or a file where another needs a directory, or
    two names that differ only in their Unicode form): the later one gets a number.

    A long document split into a folder of sections owns that folder (:meth:`folder`): no other
    document's sections and no folder of the source share it. ``guide.md`` and ``guide.rst``
    both long are ``guide/`` and ``guide_2/``; a long ``hosts.md`` beside a folder ``hosts/``
    is ``hosts_2/``, the source's folder keeping its name (:meth:`reserve`).

    Every path is claimed in NFC, the form typed URIs and imports use: a folder from macOS
    names ``café.txt`` decomposed, and stored so it would be a second file beside the composed
    one that an import or an ``ov write`` makes, looking the same."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.dirs: set[str] = set()
        self.owned: set[str] = set()  # folders of a document's sections

    def reserve(self, folders: Iterable[str]) -> None:
        """Keep ``folders`` (the source's own, as stored) for the files in them, whichever
        document comes first."""
        for folder in folders:
            parts = nfc(folder).split("/")
            self.dirs.update("/".join(parts[:i]) for i in range(1, len(parts) + 1) if parts[0])

    def keep(self, rel: str, kept: str | None) -> str | None:
        """``kept``, the folder an earlier add gave the sections of the document at ``rel`` (``rel``
        or ``rel`` numbered), now that document's again; None when it is no longer free for it."""
        rel = nfc(rel)
        if kept is None or not self._free(kept) or not (kept == rel or (kept.startswith(rel + "_") and kept[len(rel) + 1 :].isdigit())):
            return None
        self.owned.add(kept)
        self.dirs.add(kept)
        return kept

    def folder(self, rel: str) -> str:
        """A folder for one document's sections at ``rel``, or ``rel`` numbered (``hosts_2``)
        when a file, a folder or another document has that path; then owned by that document."""
        rel = nfc(rel)
        candidate, n = rel, 2
        while not self._free(candidate):
            candidate, n = f"{rel}_{n}", n + 1
        self.owned.add(candidate)
        self.dirs.add(candidate)
        return candidate

    def claim(self, rel: str, *, within: str = "") -> str:
        """A path for the file at ``rel``: ``rel`` or ``rel`` numbered. ``within``, the folder
        :meth:`folder` gave the document the file is a section of."""
        rel = nfc(rel)
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            # A folder of the path already claimed as a file (a file ``guide`` beside ``guide.md``
            # split into ``guide/``), or another document's folder of sections: the folder takes
            # a number, or no suffix of the file's own name would ever free the path.
            head, n = parts[depth - 1], 2
            while (folder := "/".join(parts[:depth])) in self.files or (folder in self.owned and folder != within):
                parts[depth - 1], n = f"{head}_{n}", n + 1
        rel = "/".join(parts)
        candidate, n = rel, 2
        while not self._free(candidate):
            stem, dot, ext = rel.rpartition(".") if "." in posixpath.basename(rel) else (rel, "", "")
            candidate = f"{stem}_{n}{dot}{ext}"
            n += 1
        self.files.add(candidate)
        parts = candidate.split("/")
        self.dirs.update("/".join(parts[:i]) for i in range(1, len(parts)))
        return candidate

    def _free(self, rel: str) -> bool:
        parts = rel.split("/")
        ancestors = ("/".join(parts[:i]) for i in range(1, len(parts)))
        return rel not in self.files and rel not in self.dirs and not any(a in self.files for a in ancestors)


def respelled(gone: Iterable[str], laid_out: Collection[str]) -> set[str]:
    """The paths of ``laid_out`` that stand for one of ``gone`` in its NFC spelling: a name an
    older ov stored decomposed. Each must be written even when the file at it reads the same:
    on a file system that does not tell the forms apart (macOS) both names are one file, and the
    removal of the old name, applied first, takes it away."""
    return {nfc(rel) for rel in gone} & set(laid_out)
