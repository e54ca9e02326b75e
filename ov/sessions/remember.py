"""`ov remember`: deterministic writes of long-term memories, no LLM needed.

``remember`` reads TEXT the way a session commit reads a user's explicit
statement ("I prefer ...", "my X is Y", ...; anything else as "remember that
..."), merges it into the memory file it belongs to, and commits. `ov forget`
is :mod:`ov.sessions.forget`, `ov refile` :mod:`ov.sessions.refiling`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ov.errors import InvalidInput
from ov.identity import validate_id
from ov.sessions import clock
from ov.sessions.memory.schema import TEXT_TYPES
from ov.store.store import Store
from ov.uri import VikingURI

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
    # A part said to the agent about what the rest said, naming nothing ("Keep that in mind when you
    # ...", "I'll apply it"), adds nothing to the statements read from the rest: no dated note is
    # kept for it. A fact leaning on the rest ("I need the VPN for it") is kept.
    # The half of a switch that only says what was left ("I ditched CLion, my editor is VS Code now",
    # "I dropped Jira, we track bugs in Linear now"), when the rest was read, is read as "I no longer
    # use CLion": a note would repeat the switch the profile now holds.
    if candidates and any(c.memory_type != "events" for c in candidates):
        for part in [p for p in unread if _left_behind(p)]:
            ended = extract_text(f"I no longer use {_left_behind(part)}", when=when, user=store.identity.user)
            candidates, unread[:] = [*ended, *candidates], [p for p in unread if p != part]
    if candidates and all(_to_the_agent(part) for part in unread):
        unread.clear()
    if memory_type == "events" and unread:
        # Part of the text no rule reads, asked to be a dated note: the whole text is kept, in the
        # user's words, as one, which holds any note read from a part of it.
        note = _as_typed(without_ask(_one_line(text)), "events", when, store.identity.user)
        candidates = [*(c for c in candidates if c.memory_type != "events"), *note]
    from ov.sessions.memory import standing_note

    why_not = None
    if memory_type is None:
        # Part of the text no rule reads, or none of it, or a dated note the rules made of it: a
        # dated note only when it tells of a happening; else a standing note of the kind it reads
        # as (a convention, the user's fact, a thing's fact), or nothing (see standing_note).
        candidates, why_not = standing_note.noted(candidates, unread, without_ask(_one_line(text)), when, store.identity.user)
    if why_not == standing_note.CHATTER:
        raise InvalidInput(
            "could not turn the text into a memory: it is a remark of the moment (a sigh or a thanks), with no statement to keep",
            hint='say what to remember as a statement ("Remember that the login test is flaky"), or as a dated note ({type=events})',
            arguments={"type"},
        )
    if why_not == standing_note.FOR_NOW:
        raise InvalidInput(
            "could not turn the text into a memory: it is a task for now or thinking aloud, with nothing that holds later",
            hint='say how to work for good ("Always run the tests before committing"), or keep it as a dated note ({type=events})',
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
        if not writes and memory_type is None and all(c.only_amends and c.swap for c in candidates):
            # A correction of a value no memory holds ("correction: it's Zed, not Helix" with no Helix
            # stored) corrects nothing: what was said is kept as a dated note, as any text no rule reads.
            candidates = _as_typed(without_ask(_one_line(text)), "events", when, store.identity.user)
            groups = _by_root(store, candidates, peer, workspace)
            writes, diff = plan_memories(schemas, {str(root): group for root, group in groups.items()}, read=reader(tx, *groups),
                                         listing=lister(tx, *groups), when=when, archive_uri="ov remember", user=store.identity.user)
        uris = put_writes(tx, writes, *groups)  # in order of mention: the memory first, then any file it amends
        result = tx.commit("remember", uris) if uris else None
    return RememberResult([str(u) for u in uris], result.commit if result else None, diff["operations"])


# A remark to the agent: addressed to it, an act the user will do now, or a reminder to heed the rest.
_TO_THE_AGENT_RE = re.compile(r"(?i)\b(?:you|your)\b|^(?:I'll|I\s+will|I\s+can)\b|\b(?:in\s+mind|note\s+of\s+that)\b")


# A greeting said as a sentence of its own ("Hi!", "Hey there.", "Hola!", "Hallo zusammen!"), or
# whom it greets, once a filler's "hello" is taken off ("there").
_WHOM = r"there|all|everyone|folks|team|y'all|a\s+todos|zusammen|tout\s+le\s+monde"
_GREETING_RE = re.compile(
    r"(?i)^(?:(?:hi|hello|hey|hiya|howdy|yo|good\s+(?:morning|afternoon|evening)|hola|buenas|hallo|servus|moin|guten\s+(?:morgen|tag)|"
    rf"bonjour|salut|ciao|ol[áa]|oi)(?:\s+(?:{_WHOM}))?|{_WHOM})[\s!.,]*$"
)


# What the user left, said alone: "I ditched CLion", "dropped Jira", "I've given up on Vim".
_LEFT_BEHIND_RE = re.compile(
    r"(?i)^(?:I(?:'ve|\s+have)?\s+)?(?:(?:just|finally|recently|also|already)\s+)?(?:ditched|dropped|gave\s+up(?:\s+on)?|given\s+up(?:\s+on)?|"
    r"quit\s+using|abandoned|got\s+rid\s+of|stopped\s+using|uninstalled|retired|dumped|moved\s+away\s+from|switched\s+away\s+from)"
    r"\s+(?P<x>(?-i:[A-Z])[\w.+#-]*(?:\s+[\w.+#-]+){0,2}?)[\s.!]*$"
)


def _left_behind(part: str) -> str | None:
    """What ``part`` only says the user left, named ("I ditched CLion": "CLion"); else None. (Not a
    day's: "I ditched CLion yesterday" is a happening, kept whole.)"""
    from ov.sessions.memory.casual import a_thing_left

    left = _LEFT_BEHIND_RE.match(part.strip())
    if left is None or re.search(r"(?i)\b(?:today|yesterday|tomorrow|ago|last|this)\b", part) or not a_thing_left(left.group("x")):
        return None
    return left.group("x")


def _to_the_agent(part: str) -> bool:
    """Whether ``part``, read from nothing, is only said to the agent about the rest of the text,
    or is only a greeting to it ("Hi! Name's Dana, ..." keeps no dated note of the greeting)."""
    from ov.sessions.memory.standing import points_back
    from ov.sessions.memory.standing_note import names_anything

    if _GREETING_RE.match(part.strip()):
        return True
    return points_back(part) and bool(_TO_THE_AGENT_RE.search(part)) and not names_anything(part)


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


def put_writes(tx, writes: dict, *roots: VikingURI) -> list[VikingURI]:
    """Put what :func:`~ov.sessions.memory.plan.plan_memories` planned for the memories ``roots``
    into the transaction ``tx``; the files written or deleted, in the plan's order."""
    by_name = {str(root): root for root in roots}
    uris = []
    for (root, rel), content in writes.items():
        uri = VikingURI((*by_name[root].parts, *rel.split("/")))
        if content is None:  # its lines moved to their topic's file (see amends.gather_from_general)
            tx.delete(uri)
        else:
            tx.put(uri, content.encode("utf-8"))
        uris.append(uri)
    return uris


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
