"""`ov forget`: one memory file, or one line of it, taken out in one commit; git history keeps it."""

from __future__ import annotations

from dataclasses import dataclass

from ov.errors import InvalidInput, IsADirectory, NotFound, proposal
from ov.sessions import clock
from ov.store.store import Store
from ov.uri import VikingURI, nfc
from ov.wording import counted


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
