"""What the indices hold: the records derived from one committed file.

A file of the store becomes zero or more :class:`Record` s, chosen by where it
lives and what it is:

* a directory's ``.abstract.md`` / ``.overview.md`` -> one record at level 0 / 1,
  named by the directory's URI (the body only: frontmatter never ranks, and neither do
  the words ov writes into every summary: the extractive summariser's, see
  :mod:`ov.summaries.scaffold`, and a session archive's working memory's, see
  :mod:`ov.sessions.overview`);
* a memory file -> one record per chunk of its content (the MEMORY_FIELDS trailer
  is bookkeeping and is left out);
* a session's ``messages.jsonl`` (live or archived) -> one record per message,
  with who spoke and when, plus the neighbouring messages as lower-weighted
  context, and one ``log`` record of the whole conversation whose score the
  messages inherit (it is never a result itself);
* a document (Markdown, plain text) -> heading-aware chunks with their line ranges, so
  a hit points into the file; code and data -> chunks cut at their top-level blocks,
  titled by the names they define (:mod:`ov.index.code`);
* ov's bookkeeping (``.meta.json``, ``.sources.json``, ``memory_diff.json``,
  markers) and binary files -> nothing.

Context type and owner come from the path alone, so a record can be rebuilt
from any commit without other state.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from ov import users
from ov.files import looks_binary
from ov.store import sidecar
from ov.store.treepaths import stored_problem

# Records are sized for ranking: as large as an ingested piece (ingest splits documents at the
# same size), so a document ov split itself is one record, and a long hand-written file becomes
# sections of a few pages. Smaller chunks measured worse on SciFact (nDCG@10 0.663 at 400 tokens,
# 0.670 at 1,000): BM25 needs the whole abstract to see all of a claim's words.
CHUNK_MAX_TOKENS = 1024
CHUNK_MERGE_BELOW_TOKENS = 256
# Characters of a neighbouring message that go into a message's context.
NEIGHBOUR_CHARS = 600
BOOKKEEPING, MESSAGES_FILE = sidecar.BOOKKEEPING, sidecar.MESSAGES

CONTEXT_TYPES = ("memory", "resource", "skill", "session")


@dataclass(frozen=True)
class Record:
    """One searchable unit of text, and everything a hit needs to name it."""

    id: str  # unique in the index: "{path}#{n}", "{path}#{message id}", "{path}#log"
    path: str  # the committed file it came from (records are replaced per file)
    uri: str  # what a hit names: the file, the directory (L0/L1)
    level: int  # 0 abstract, 1 overview, 2 content
    kind: str  # chunk | abstract | overview | memory | message | log
    context_type: str  # memory | resource | skill | session
    owner: str  # the user a user-scoped path belongs to; "" for shared scopes
    parent: str  # the URI whose score this record inherits (its directory, its session log)
    text: str  # what a hit shows
    title: str = ""
    context: str = ""  # neighbouring text that ranks lower than ``text``
    previous: str = ""  # a message's: the one before it (clipped), embedded with it by a model that reads context
    speaker: str = ""
    start_line: int = 0  # 1-based, inclusive; 0 when the record is not a run of lines
    end_line: int = 0
    time: float = 0.0  # seconds since the epoch: message time, memory update, file write
    session_id: str = ""
    message_id: str = ""
    role: str = ""
    # What ranks and is embedded in place of ``text``, when not all of ``text`` is the record's own:
    # a summary without the template words every summary ov generates shares ("## Key terms").
    # Only records made from the store have it; the full-text index keeps what a hit shows.
    search_text: str | None = None
    # What a code chunk is about beyond its own lines: its file's path, the file's opening comment or
    # docstring (what the whole file does, which the chunk holding a function rarely says), and the
    # names the chunk defines as words (``group_commit``, ``CliRunner`` -> "cli runner"). Matched in
    # a field of its own (ov.retrieval.find), never shown; "" for prose, memories and messages.
    about: str = ""
    # A code chunk's identifiers whole, as a query names them (``StoreLocked``, ``_files_of``,
    # ``QUERY_CHARS``), which its text holds only as words: the names it defines (and, for a file's
    # first chunk, the module: ``hostconfig``, ``ov.hosts.recall``), and the compound names it uses.
    # Matched in fields of their own (ov.index.code.defines, ov.index.code.identifiers); "" elsewhere.
    defines: str = ""
    identifiers: str = ""

    @property
    def searched(self) -> str:
        """The text the indices match and embed."""
        return self.text if self.search_text is None else self.search_text

    @property
    def unit(self) -> str:
        """The result this record belongs to: a file (any of its chunks), a directory level, a message."""
        if self.kind == "message":
            return f"{self.uri}#{self.message_id}"
        if self.kind in ("abstract", "overview"):
            return f"{self.uri}@{self.level}"
        return self.uri


def classify(path: str) -> tuple[str, str]:
    """(context type, owner) of a store path."""
    parts = path.split("/")
    owner = users.owner(parts)
    rest = parts[2:] if owner else parts[1:]
    if owner and rest[:1] == ["peers"] and len(rest) > 2:
        rest = rest[2:]  # a peer's folders have the user's shape
    head = rest[0] if rest else ""
    if parts[0] == "agent" and head == "memories" or head == "memories":
        return "memory", owner
    if head == "skills":
        return "skill", owner
    if head == "sessions":
        return "session", owner
    return "resource", owner


def uri_of(path: str) -> str:
    return "viking://" + path


def is_message_log(path: str) -> bool:
    """A session's messages file: one record per message, dated by the message (not by the
    file), so a change to it can be applied record by record (ov.index.sync)."""
    return path.rsplit("/", 1)[-1] == MESSAGES_FILE and classify(path)[0] == "session"


def records_for(path: str, data: bytes, *, mtime: float = 0.0) -> list[Record]:
    """The records of the committed file ``path`` holding ``data``."""
    name = path.rsplit("/", 1)[-1]
    if name in BOOKKEEPING or looks_binary(data):
        return []
    context_type, owner = classify(path)
    text = data.decode("utf-8")
    directory = path.rsplit("/", 1)[0] if "/" in path else ""
    base = dict(path=path, context_type=context_type, owner=owner)
    if name in sidecar.SIDECARS:
        return _sidecar_record(base, directory, name, text, mtime)
    if name.startswith("."):
        return []
    if is_message_log(path):
        return _message_records(base, path, directory, text)
    if context_type == "memory" and name.endswith(".md"):
        return _memory_records(base, path, directory, text, mtime)
    return _chunk_records(base, path, directory, text, mtime)


# --- per kind -------------------------------------------------------------------------


def _sidecar_record(base: dict, directory: str, name: str, text: str, mtime: float) -> list[Record]:
    try:
        body = sidecar.body(text)
    except Exception:  # an unclosed frontmatter fence: index what a reader would see
        body = text.strip()
    if not body:
        return []
    level, kind = (0, "abstract") if name == sidecar.ABSTRACT else (1, "overview")
    dir_uri = uri_of(directory)
    parent = directory.rsplit("/", 1)[0] if "/" in directory else ""
    own = _own_words(base["context_type"], directory, body)
    return [
        Record(
            id=f"{base['path']}#0",
            uri=dir_uri,
            level=level,
            kind=kind,
            parent=uri_of(parent) if parent else "",
            text=body,
            title=directory.rsplit("/", 1)[-1],
            time=mtime,
            search_text=None if own == body else own,
            **base,
        )
    ]


def _own_words(context_type: str, directory: str, body: str) -> str:
    """A summary's body without the words of the template ov wrote it in: a session archive's
    working memory (``sessions/{sid}/history/archive_NNN``) or a directory's extractive summary."""
    if context_type == "session" and sidecar.is_session_archive(directory.split("/")):
        from ov.sessions.overview import searchable
    else:
        from ov.summaries.scaffold import searchable
    return searchable(body)


def _memory_records(base: dict, path: str, directory: str, text: str, mtime: float) -> list[Record]:
    from ov.sessions.memory.files import parse_memory

    try:
        content, meta = parse_memory(text)
    except Exception:  # a hand-edited memory without a valid trailer is still a memory
        content, meta = text, {}
    when = _epoch(meta.get("updated_at")) or mtime
    records = _chunk_records(base, path, directory, content, when)
    return [replace(r, kind="memory") for r in records]


def _chunk_records(base: dict, path: str, directory: str, text: str, mtime: float) -> list[Record]:
    from ov.index.code import is_prose

    if not text.strip():
        return []
    name = path.rsplit("/", 1)[-1]
    if not is_prose(name):
        return _code_records(base, path, directory, text, mtime)
    from ov.ingest.model import Provenance
    from ov.ingest.splitter import split_markdown

    stem = name.rsplit(".", 1)[0] if "." in name else name
    pieces = split_markdown(
        name,
        text,
        Provenance("file", path),
        single_max_tokens=CHUNK_MAX_TOKENS,
        merge_below_tokens=CHUNK_MERGE_BELOW_TOKENS,
    )
    out = []
    for n, piece in enumerate(pieces):
        if not piece.text.strip():
            continue
        first, last = piece.provenance.lines or (1, 1)
        named = stem.replace("_", " ").replace("-", " ")
        heading = piece.title if piece.title and piece.title != stem else ""
        # A heading that already starts with the file's name ("huge (part 4 of 587)", the part of a
        # long text without headings) is not prefixed with it again.
        said = heading.lower() == named.lower() or heading.lower().startswith(named.lower() + " ")
        title = heading if said else " ".join(t for t in (named, heading) if t)
        out.append(_chunk(base, path, directory, n, piece.text, title, (first, last), mtime))
    return out


def _chunk(base: dict, path: str, directory: str, n: int, text: str, title: str, lines: tuple[int, int], mtime: float) -> Record:
    """The ``n``-th chunk record of the file at ``path``, over its ``lines`` (first, last; 1-based)."""
    return Record(
        id=f"{path}#{n}",
        uri=uri_of(path),
        level=2,
        kind="chunk",
        parent=uri_of(directory) if directory else "",
        text=text,
        title=title,
        start_line=lines[0],
        end_line=lines[1],
        time=mtime,
        **base,
    )


def _code_records(base: dict, path: str, directory: str, text: str, mtime: float) -> list[Record]:
    """Code and data: cut by their blocks, titled by the names each record defines (:mod:`ov.index.code`)."""
    from ov.index import code
    from ov.lines import lines_of

    name = path.rsplit("/", 1)[-1]
    named = (name.rsplit(".", 1)[0] if "." in name else name).replace("_", " ").replace("-", " ")
    lines = lines_of(text, keepends=True)
    whole = code.about(path, text)
    out = []
    for n, (a, b) in enumerate(code.chunk_code(text, CHUNK_MAX_TOKENS)):
        body = "".join(lines[a:b])
        if not body.strip():
            continue
        names = code.defined_names(body, code.ABOUT_NAMES)
        title = " ".join(t for t in (named, ", ".join(names[: code.TITLE_NAMES])) if t)
        chunk = _chunk(base, path, directory, n, body, title, (a + 1, b), mtime)
        about = "\n".join(t for t in (whole, code.name_words(names)) if t)
        out.append(replace(chunk, about=about, defines=code.defines(path, body, first=not out), identifiers=code.identifiers(body)))
    return out


def _message_records(base: dict, path: str, directory: str, text: str) -> list[Record]:
    from ov.sessions.messages import superseded_reads
    from ov.sessions.session import message_text, parse_messages

    messages = [m for m in parse_messages(text.encode("utf-8")) if isinstance(m, dict)]
    parts = directory.split("/")
    session_id = parts[parts.index("sessions") + 1] if "sessions" in parts[:-1] else ""
    log_uri = uri_of(path)
    texts = [message_text(m) for m in messages]
    # A tool's listing of a file the session changed afterwards ranks by its file's name only (not
    # its words, nor its neighbours') and says that it is the old text: found by the question's
    # every word, the listing before a fix came first and the session's conclusion was left a bare
    # URI (the agent read the old value as current).
    stale = superseded_reads(messages)
    searched: dict[int, str] = {}
    for i, file in stale.items():
        status, _, output = texts[i].partition("] ")
        searched[i] = f"{status}] {file.rsplit('/', 1)[-1]}"
        texts[i] = f"{status}] {file} as it was before a later change in this session:\n{output}"
    speakers = _speakers(messages)
    out = []
    for i, message in enumerate(messages):
        if not texts[i].strip():
            continue
        neighbours = [texts[j][:NEIGHBOUR_CHARS] for j in (i - 1, i + 1) if 0 <= j < len(messages)]
        out.append(
            Record(
                id=f"{path}#{message.get('id', i)}",
                uri=log_uri,
                level=2,
                kind="message",
                parent=log_uri,
                text=texts[i],
                search_text=searched.get(i),
                context="" if i in stale else "\n".join(neighbours),
                previous=texts[i - 1][:NEIGHBOUR_CHARS] if i > 0 else "",
                speaker=speakers[i],
                time=_epoch(message.get("created_at")),
                session_id=session_id,
                message_id=str(message.get("id", i)),
                role=str(message.get("role", "")),
                **base,
            )
        )
    if out:
        # A peer's name is part of what was said ("what did Caroline say about ..."); the roles
        # are words ov would add to every conversation, so a query with "user" in it raised every
        # session's messages above the other results.
        whole = "\n".join(f"{s}: {t}" if s else t for s, t in zip(speakers, texts) if t.strip())
        out.append(
            Record(
                id=f"{path}#log",
                uri=log_uri,
                level=2,
                kind="log",
                parent=uri_of(directory),
                text=whole,
                time=max(r.time for r in out),
                session_id=session_id,
                **base,
            )
        )
    return out


# --- helpers ------------------------------------------------------------------------


def _speakers(messages: list[dict]) -> list[str]:
    """The peer who spoke each message, when it names one ("" for the user's and the agent's own
    turns: their role says who spoke).

    Only real names go into the speaker field: a query that names a person then prefers what
    that person said, while words like "assistant" or a user id never act as names. A peer that
    also stands on the agent's turns (an assistant's, a tool's) is the conversation's scope, not a
    speaker: a hook stamps the workspace peer (``proj-3f2a…``) on every message it captures, and
    the folder's name then matched every message of the project as the one who said it.
    """
    peers = [m.get("peer") if isinstance(m.get("peer"), str) else "" for m in messages]
    scopes = {peer for peer, m in zip(peers, messages) if peer and m.get("role") != "user"}
    return [peer if peer not in scopes else "" for peer in peers]


def _epoch(value) -> float:
    if not isinstance(value, str) or not value:
        return 0.0
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def left_out_because(path: str, mode: int) -> str | None:
    """Why the committed entry ``path`` (of git mode ``mode``, as
    :meth:`~ov.store.gitstore.GitStore.iter_entries` yields it) can have no records, or None.
    A tree ov did not build may hold a name that is not UTF-8 (no record can carry it), a symbolic
    link or a submodule (their blob is a link's target or another repository's commit id, not a
    file's text): the rule of what ov writes (:func:`~ov.store.treepaths.stored_problem`), so that
    ``ov reindex`` leaves out what a restore refuses, and says so."""
    return stored_problem(path, mode)


def counts_as_records(path: str, mode: int) -> bool:
    """Whether the committed entry ``path`` has records by its name alone: a file ov writes that
    is no bookkeeping or other dot-file (of those, only a binary or empty one has none). What tells
    a store's size without reading a file."""
    name = path.rsplit("/", 1)[-1]
    return left_out_because(path, mode) is None and name not in BOOKKEEPING and not name.startswith(".")


def committed_records(git, path: str, mode: int, sha: bytes) -> list[Record]:
    """The records of ``path`` as committed (git mode ``mode``, blob ``sha``), dated by its
    work-tree write time; none for an entry ov never writes (:func:`left_out_because`)."""
    if left_out_because(path, mode) is not None:
        return []
    try:
        mtime = os.stat(git.worktree / path).st_mtime
    except OSError:
        mtime = 0.0
    return records_for(path, git.blob_data(sha), mtime=mtime)
