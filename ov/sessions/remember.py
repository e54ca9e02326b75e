"""`ov remember` and `ov forget`: deterministic writes of long-term memories, no LLM needed.

``remember`` reads TEXT the way a session commit reads a user's explicit
statement ("I prefer ...", "my X is Y", ...; anything else as "remember that
..."), merges it into the memory file it belongs to, and commits. ``forget``
removes one memory file, or one line of it; git history keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ov.errors import InvalidInput, IsADirectory, NotFound, proposal
from ov.identity import validate_id
from ov.sessions import clock
from ov.sessions.memory.schema import TEXT_TYPES
from ov.store.store import Store
from ov.uri import VikingURI, nfc
from ov.wording import counted

# What `ov remember` and the MCP tool say when the memories already hold the text.
ALREADY_REMEMBERED = "already remembered: nothing changed, no commit"


@dataclass(frozen=True)
class RememberResult:
    """What `ov remember` wrote."""

    uris: list[str]
    commit: str | None
    operations: dict

    def to_dict(self) -> dict:
        return {"uris": self.uris, "commit": self.commit, "changed": self.commit is not None, "operations": self.operations}

    @property
    def summary(self) -> str:
        """What `ov remember` and the MCP tool say: where the memory went and in which commit, as
        every other command that commits says it."""
        if self.commit is None:
            return ALREADY_REMEMBERED
        return f"remembered in {', '.join(self.uris)} (commit {self.commit[:10]})"


def memories_root(store: Store, peer: str | None = None) -> VikingURI:
    if peer:
        return VikingURI(("user", store.identity.user, "peers", validate_id(peer, "peer"), "memories"))
    return VikingURI(("user", store.identity.user, "memories"))


def remember(
    store: Store, text: str, *, memory_type: str | None = None, peer: str | None = None, workspace: str | None = None
) -> RememberResult:
    """Write what ``text`` states as memories, in one commit: the user's, or with ``peer`` all of
    them that peer's. ``workspace``: the peer of the project the caller works in (an MCP server's):
    what the text says holds in the project at hand only ("I prefer tabs in this repo") is filed
    under that peer's memories, as a session's commit files it, and the rest as the user's."""
    from ov.redact.engine import redact
    from ov.sessions.memory.extract import extract_text
    from ov.sessions.memory.leads import without_ask
    from ov.sessions.memory.plan import plan_memories
    from ov.sessions.memory.refile import FILED_AS_NOTE
    from ov.sessions.memory.schema import load_schemas

    text, _count = redact(text.strip())
    if not text:
        raise InvalidInput("nothing to remember: the text is empty")
    if not re.search(r"\w", text):
        raise InvalidInput("nothing to remember: the text has no words")
    from ov.sessions.memory.secrets import states_a_secret

    if states_a_secret(text):
        # Redaction misses plain words and short numbers ("bluebird", "4821"), and memories are
        # given to every later session of every agent; what it did take out ([REDACTED:...])
        # would still record that the user has one.
        raise InvalidInput(
            "this looks like a secret (what a password, PIN, token, key or login is): ov does not keep secrets in memories",
            hint="keep it in a password manager; remember where it lives instead",
        )
    from ov.sessions.memory.pasted import wholly_pasted

    if wholly_pasted(text):
        # No rule reads a paste as the user's; kept whole, it became a dated note of someone
        # else's words (an email) or of a failure of the moment (a traceback).
        raise InvalidInput(
            "nothing to remember: the text is all pasted (a traceback, an email, a chat log or a letter), none of it said by you",
            hint='say what to remember from it in your own words ("Remember that the cart fails with a KeyError on an empty basket")',
        )
    schemas = load_schemas(store.home.root / "memory_schemas")
    if memory_type is not None and memory_type not in schemas:
        raise InvalidInput(f"unknown memory type {memory_type!r}", hint="types: " + ", ".join(TEXT_TYPES))
    if memory_type is not None and memory_type not in TEXT_TYPES:
        raise InvalidInput(
            f"ov learns memories of type {memory_type} from a session (its goal, the steps tried and what came of them), never from one text",
            hint=f'remember the lesson with no {{type}} ("Remember that seeding the RNG fixes the flaky login test"), or as a dated note ({{type=events}}); a session\'s commit learns its {memory_type}',
            arguments={"type"},
        )
    when = clock.now()

    unread: list[str] = []

    def read(attempt: str) -> list:
        unread.clear()
        found = extract_text(attempt, when=when, user=store.identity.user, unread=unread)
        return [c for c in found if memory_type is None or c.memory_type == memory_type]

    # A statement the rules read ("my editor is ...", "I prefer ...") is theirs, LLM or not: they
    # know which stored line it corrects. The model chooses a type and file for the rest; a text
    # neither reads is kept as "remember that ..." would keep it (a fact or a dated note).
    candidates = read(text)
    if not candidates and memory_type is None and store.config.llm.enabled:
        candidates = _llm_choice(store, schemas, text, when)
        if candidates:
            unread.clear()
    if not candidates:
        candidates = read(f"Remember that {text}")
    if memory_type in (None, "events") and unread:
        # Part of the text no rule reads (a second sentence, a list, a long aside), or none of it:
        # the whole text is kept too, in the user's words, as a dated note, which holds any note
        # read from a part of it. Nothing asked to be remembered is dropped.
        note = _as_typed(without_ask(_one_line(text)), "events", when, store.identity.user)
        candidates = [*(c for c in candidates if c.memory_type != "events"), *note]
    from ov.sessions.memory.casual import interjected

    if memory_type is None and candidates and interjected(text) and all(c.memory_type == "events" for c in candidates):
        # "Ugh, this test is flaky again", "Thanks, that worked great!": a sigh or a thanks with
        # nothing the rules read is how the moment went; kept, it was a dated note of chit-chat.
        raise InvalidInput(
            "could not turn the text into a memory: it is a remark of the moment (a sigh or a thanks), with no statement to keep",
            hint='say what to remember as a statement ("Remember that the login test is flaky"), or as a dated note ({type=events})',
            arguments={"type"},
        )
    if not candidates and memory_type is not None:
        candidates = _as_typed(text, memory_type, when, store.identity.user)
    if not candidates and memory_type is not None:  # only entities: the other text types keep any text
        raise InvalidInput(
            f"could not turn the text into a memory of type {memory_type}",
            hint=f"say it as {_STATED.get(memory_type, 'an explicit statement')}, or pick another {{type}} than {memory_type}",
            arguments={"type"},
        )
    if not candidates:
        raise InvalidInput(
            "could not turn the text into a memory: it asks a question, answers one with nothing of its own (\"I think so\"), "
            "only points at the conversation, or is a step for something that may happen (\"if we ..., update ...\")",
            hint='say what to remember as a statement ("I prefer tabs", "Remember that the build takes 20 minutes")',
        )
    groups = _by_root(store, candidates, peer, workspace)
    roots = {str(root): root for root in groups}
    with store.transaction() as tx:
        writes, diff = plan_memories(
            schemas,
            {str(root): group for root, group in groups.items()},
            read=reader(tx, *groups),
            listing=lister(tx, *groups),
            when=when,
            archive_uri=FILED_AS_NOTE if memory_type == "events" else "ov remember",  # (a note on purpose: see refile)
            user=store.identity.user,
        )
        uris = []  # in order of mention: the memory first, then any file it amends
        for (root, rel), content in writes.items():
            uri = VikingURI((*roots[root].parts, *rel.split("/")))
            if content is None:  # its lines moved to their topic's file (see amends.gather_from_general)
                tx.delete(uri)
            else:
                tx.put(uri, content.encode("utf-8"))
            uris.append(uri)
        result = tx.commit("remember", uris) if uris else None
    return RememberResult([str(u) for u in uris], result.commit if result else None, diff["operations"])


def _by_root(store: Store, candidates: list, peer: str | None, workspace: str | None) -> dict[VikingURI, list]:
    """The candidates by the memories they go under (see :func:`remember`), none empty."""
    from ov.sessions.memory.candidate import said_of_this_project

    if peer or not workspace:
        return {memories_root(store, peer): candidates}
    project = [said_of_this_project(c) for c in candidates]
    groups = {
        memories_root(store): [c for c, ours in zip(candidates, project) if not ours],
        memories_root(store, workspace): [c for c, ours in zip(candidates, project) if ours],
    }
    return {root: group for root, group in groups.items() if group}


# How a statement of a type the rules read is put, for a text they did not read as one.
_STATED = {"entities": 'a fact about a system or a team ("The billing service runs on Kubernetes", "We moved CI to GitHub Actions")'}


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
        by_root = {str(r): r for r in roots}
        written = []
        for (root, rel), content in writes.items():
            uri = VikingURI((*by_root[root].parts, *rel.split("/")))
            if content is None:  # its lines moved to their topic's file (see amends.gather_from_general)
                tx.delete(uri)
            else:
                tx.put(uri, content.encode("utf-8"))
            written.append(uri)
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


def lister(tx, *roots: VikingURI):
    """``listing(root_uri, reldir)``: the names of the files in a folder of the memories ``roots``,
    as the transaction ``tx`` sees them."""
    by_name = {str(root): root for root in roots}

    def listing(root: str, reldir: str) -> list[str]:
        return tx.file_names(VikingURI((*by_name[root].parts, *(reldir.split("/") if reldir else ()))))

    return listing


def _as_typed(text: str, memory_type: str, when: datetime, user: str) -> list:
    """``--type`` named a type the rules found nothing of: the text itself, as one bullet of that
    type, where the type needs no more than the text to name its file (a dated note, a preference
    on the text's topic, a profile line). Other types need a statement the rules read."""
    from ov.sessions.memory import text as tx
    from ov.sessions.memory import topics
    from ov.sessions.memory.candidate import Candidate

    text = _one_line(text)
    line = "- " + tx.capitalise(tx.absolute_dates(tx.clean(text), when))
    topic = topics.slug(text, fallback="note")
    fields = {"events": {"event": topics.event_name(text)}, "preferences": {"subject": user, "topic": topic}, "profile": {}}.get(memory_type)
    return [] if fields is None else [Candidate(memory_type, {**fields, "content": line}, ["remember"])]


# A list item's mark: "-", "*", "+", "•", "1." or "1)", and a task box after it ("- [ ] ", "- [x] ").
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")


def _one_line(text: str) -> str:
    """A text of several lines (a checklist, steps, a list) as the one line a memory bullet is:
    the lines without their list marks, joined by "; ". Collapsed as they came, a checklist read
    "- - run make lint - run make test - push"."""
    out = ""
    for line in text.splitlines():
        line = _LIST_MARK.sub("", line).strip().rstrip(";")
        if line:
            out += (" " if not out or out.endswith(":") else "; ") + line
    return out.strip()


def reader(tx, *roots: VikingURI):
    """``read(root_uri, relpath)`` over a transaction (or draft) for the memories ``roots``,
    as :func:`ov.sessions.memory.plan.plan_memories` reads."""
    from ov.sessions.memory.files import decode_memory

    by_name = {str(root): root for root in roots}

    def read(root: str, relpath: str) -> str | None:
        uri = VikingURI((*by_name[root].parts, *relpath.split("/")))
        data = tx.existing_file(uri)
        return decode_memory(data, uri) if data is not None else None

    return read


def _llm_choice(store: Store, schemas, text: str, when: datetime) -> list:
    """With an LLM, the model only chooses the memory's type and file; the words stay the user's."""
    from ov.errors import ConfigError
    from ov.llm.client import LLMError
    from ov.llm.usage import UsageLog
    from ov.sessions.memory.candidate import Candidate
    from ov.sessions.memory.llm_extract import extract_with_llm

    message = {"id": "remember", "role": "user", "parts": [{"type": "text", "text": f"Remember this: {text}"}], "created_at": when.isoformat()}
    llm = store.config.llm
    try:
        candidates, _ = extract_with_llm(
            llm,
            schemas,
            [message],
            {},
            user=store.identity.user,
            when=when,
            prompts_dir=store.home.root / "prompts",
            usage=UsageLog(store.state, "remember"),
            stop=store.stop,  # an MCP call cancelled while the model answers: nothing is written
        )
    except (LLMError, ConfigError):  # ConfigError: a prompt override that does not load
        return []  # the deterministic reading below still remembers it
    # A sectioned type (experiences: Situation, Approach, Reflect) would be stored in the model's
    # words, which are not what the user said; the model chooses among the others, or the
    # deterministic reading keeps the text.
    chosen = next((c for c in candidates if not schemas[c.memory_type].content_sections), None)
    if chosen is None:
        return []
    bullet = text if text.lstrip().startswith(("-", "#")) else f"- {text}"
    # Only the type and the file are the model's: what its own words would replace or amend is not.
    return [Candidate(chosen.memory_type, {**chosen.fields, "content": bullet}, chosen.source_message_ids, chosen.about)]


@dataclass(frozen=True)
class Forgotten:
    """What a forget took out, and how to bring it back.

    ``lines``: the facts that went (every line of the file when it went whole); ``kept``: the
    lines of the file left in it (0: the file went). The session archives it was learnt from that
    still hold the words it was made from are ``sources``: those are searched and recalled like
    any session, so the user hears of them rather than believe the fact gone from everything an
    agent is shown."""

    uri: str
    commit: str | None
    sources: tuple[str, ...] = ()
    lines: tuple[str, ...] = ()
    kept: int = 0

    @property
    def summary(self) -> str:
        """What `ov forget` and the MCP tool say: what went, in which commit, and how to undo it.
        A file of several facts is named with them: forgetting the file a find named for one fact
        takes the others too, and the caller must know which."""
        commit = (self.commit or "-")[:10]
        if self.kept:
            return f'forgot the line "{self.lines[0]}" of {self.uri}, {counted(self.kept, "line")} kept (commit {commit}); to undo, {self.undo}'
        said = f"forgot {self.uri} (commit {commit})"
        if len(self.lines) > 1:
            shown = "; ".join(f'"{line}"' for line in self.lines[:FORGOTTEN_SHOWN])
            more = f" and {len(self.lines) - FORGOTTEN_SHOWN} more" if len(self.lines) > FORGOTTEN_SHOWN else ""
            said += f" with all {len(self.lines)} of its lines, {shown}{more}"
        return f"{said}; to undo, {self.undo}"

    @property
    def undo(self) -> str:
        # The file as it was in the commit before the forget, brought back as a new commit.
        return f"run `ov snapshot restore {(self.commit or 'HEAD')[:10]}~1 --uri {self.uri}`"

    @property
    def note(self) -> str:
        if not self.sources:
            return ""
        shown = ", ".join(self.sources[:3]) + (f" (+{len(self.sources) - 3} more)" if len(self.sources) > 3 else "")
        held = "holds" if len(self.sources) == 1 else "hold"
        return f"the session archive it was learnt from still {held} what was said, and is searched and recalled: {shown}"

    def to_dict(self) -> dict:
        return {"uri": self.uri, "commit": self.commit, "sources": list(self.sources), "lines": list(self.lines), "kept": self.kept, "deleted": not self.kept}


FORGOTTEN_SHOWN = 3  # the lines of a forgotten file its summary quotes


def forget(store: Store, uri: VikingURI, *, match: str | None = None, line: int | None = None) -> Forgotten:
    """Forget the memory file ``uri`` in one commit, or with ``match`` (text the line holds) or
    ``line`` (its number, as ``read`` shows it) only that line of it: a file holds several
    facts (profile.md: employer, editor, city), and one of them may be wrong. The file goes when
    no fact is left in it. InvalidInput when no line, or more than one, is the one meant."""
    parts = uri.parts
    in_memories = "memories" in parts and parts[0] == "user" and (parts.index("memories") in (2, 4))
    if not in_memories or parts[-1] == "memories":
        raise InvalidInput(f"{uri} is not a memory", hint="memories live under viking://~/memories/ (or a peer's memories/)")
    if store.path(uri).is_dir():
        raise IsADirectory(f"{uri} is a directory of memories", hint="forget one memory file at a time, or use `ov rm -r`")
    gone = NotFound(f"{uri} does not exist", hint=f"list memories with {proposal('ls', uri='viking://~/memories', recursive=True)}")
    store.require_before_lock(uri, gone)  # a mistyped account: no lock, no trace of it
    with store.transaction() as tx:
        data = tx.existing_file(uri)
        if data is None:
            raise gone
        sources = _archived_sources(store, data)
        if match is None and line is None:  # a file no longer UTF-8 text can be forgotten too
            tx.delete(uri)
            forgotten, kept = tuple(_fact_lines(data.decode("utf-8", "replace"))), 0
        else:
            from ov.sessions.memory.files import decode_memory

            text = decode_memory(data, uri)
            facts = _fact_lines(text)
            one = _the_line(uri, text, facts, match, line)
            rest = [fact for i, fact in enumerate(facts) if i != facts.index(one)]
            if rest:
                tx.put(uri, _without_line(text, one).encode("utf-8"))
            else:
                tx.delete(uri)
            forgotten, kept = (one,), len(rest)
            # The file's sources are every archive that changed it; of one line, only those that said it
            # (None: a line with no word to look for, whose archive cannot be told)
            from ov.sessions.line_sources import archives_holding

            held = archives_holding(store, uri, sources, one) if sources else []
            sources = sources if held is None else held
        result = tx.commit("forget", [uri])
    return Forgotten(result.uris[0], result.commit, tuple(s for s in sources if _exists(store, s)), forgotten, kept)


def _fact_lines(text: str) -> list[str]:
    """The lines of a memory's content that say something: not blank, not a section heading."""
    from ov.sessions.memory.files import repaired_memory

    content, _meta = repaired_memory(text)
    return [line.strip() for line in content.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _the_line(uri: VikingURI, text: str, facts: list[str], match: str | None, line: int | None) -> str:
    """The one fact of the memory ``uri`` that ``match`` and ``line`` name."""
    listed = "; ".join(f'"{fact}"' for fact in facts[:10])
    if line is not None:
        lines = text.splitlines()
        said = lines[line - 1].strip() if 0 < line <= len(lines) else None
        if said not in facts:
            raise InvalidInput(f"line {line} of {uri} is no line of the memory's content", hint=f"its lines are: {listed}; name one with {{match}}", arguments={"match"})
        if match is not None and not _holds(said, match):
            raise InvalidInput(f'line {line} of {uri} does not hold "{match}": it is "{said}"', hint="give {line} or {match} alone", arguments={"match", "line"})
        return said
    if not match.strip():
        raise InvalidInput("the text to match is empty", hint=f"its lines are: {listed}")
    found = list(dict.fromkeys(fact for fact in facts if _holds(fact, match.strip())))
    if not found:
        raise InvalidInput(f'no line of {uri} holds "{match}"', hint=f"its lines are: {listed}")
    if len(found) > 1:
        shown = "; ".join(f'"{fact}"' for fact in found[:10])
        raise InvalidInput(f"{counted(len(found), 'line')} of {uri} hold that text: {shown}", hint="give {match} more of the line's words, or its {line}", arguments={"match", "line"})
    return found[0]


def _holds(fact: str, match: str) -> bool:
    """Whether ``fact`` holds the text ``match``, in any case and either Unicode form: "café" typed
    decomposed (``e`` and a combining accent, as some keyboards and macOS file names give it) is the
    stored one-character ``é``, as ``ov grep`` and the files named in a URI compare them."""
    return _folded(match) in _folded(fact)


def _folded(text: str) -> str:
    # casefold can leave a composed letter decomposed ("ǰ"): NFC once more after it.
    return nfc(nfc(text).casefold())


def _without_line(text: str, fact: str) -> str:
    """The memory ``text`` with the line ``fact`` out, and its trailer saying it changed."""
    from ov.sessions.memory.files import format_time, render_memory, repaired_memory

    content, meta = repaired_memory(text)
    lines = content.splitlines()
    index = next(i for i, line in enumerate(lines) if line.strip() == fact)
    content = "\n".join(lines[:index] + lines[index + 1 :])
    if not meta:  # a memory written by hand, with no trailer: it gets none
        return content.strip() + "\n"
    meta = {**meta, "version": int(meta.get("version") or 1) + 1, "updated_at": format_time(clock.now())}
    return render_memory(content, meta)


def _exists(store: Store, text: str) -> bool:
    try:
        return store.path(store.uri(text)).exists()
    except InvalidInput:  # a source a hand edit mangled
        return False


def _archived_sources(store: Store, data: bytes) -> list[str]:
    """The session archives a memory file names as its sources (its trailer's ``sources``)."""
    from ov.sessions.memory.files import parse_memory

    try:
        _, meta = parse_memory(data.decode("utf-8"))
    except (UnicodeDecodeError, InvalidInput):
        return []
    found = meta.get("sources")
    return [s for s in found if isinstance(s, str) and s.startswith("viking://") and "/history/" in s] if isinstance(found, list) else []


# The trailer's fields `ov stat` shows of a memory: when it was made and last changed, and what it came from.
STAT_FIELDS = ("memory_type", "created_at", "updated_at", "sources")


def memory_fields(store: Store, uri: VikingURI) -> dict | None:
    """What ``ov stat`` and the MCP ``stat`` show of a memory beside the file's own times: its
    trailer's :data:`STAT_FIELDS` (a file's mtime is its checkout's; these are when the memory was
    written and corrected, and from which sessions). None for a file that is no memory (no
    ``memories`` folder above it, no trailer, not UTF-8 text)."""
    from ov.sessions.memory.files import parse_memory

    if "memories" not in uri.parts[:-1] or not uri.parts[-1].endswith(".md"):
        return None
    try:
        _, meta = parse_memory(store.path(uri).read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, InvalidInput):
        return None
    shown = {key: meta[key] for key in STAT_FIELDS if key in meta}
    return shown or None
