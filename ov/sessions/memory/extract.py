"""Deterministic extraction of explicit statements from user messages (no LLM).

Only what the user says about themselves in so many words is kept; each rule
applies to one sentence of a ``user`` message, matched from its start
(after fillers such as "also," or "btw"), case-insensitively:

=====================================  ======================================================
sentence                                memory
=====================================  ======================================================
I prefer / like / love / enjoy X        preferences/{user}/{slug(X)}: "Prefers X", "Likes X", ...
I dislike / hate X                      preferences: "Dislikes X", "Hates X"
I don't like / love / enjoy / want X    preferences: "Does not like X", ...
I always / never X                      preferences: "Always Xs", "Never Xs"
I am a / I'm an X                       profile: "Is a X"
I work as / at / for / on X             profile: "Works at X", ...
my K is Y                               profile: "K: Y"; or entities/{category}/{Y} when K ends
                                        in project, team, company, ... and Y looks like a name
                                        (capitalised, at most four words, or "called Y")
remember (that) / note that / keep in   X is read by the rules above; else a first-person X
mind that / don't forget (that) X       ("I use fish") is a profile fact ("Uses fish") and
                                        anything else is a dated note in events/
remember to / don't forget to X         preferences: "Remember to X"
actually X / correction: X / no, I      corrects the statement it refers to (see _correct)
meant X / I meant X
=====================================  ======================================================

Ignored: questions (a sentence ending in "?"), conditionals (a statement not
at the start of its sentence, as in "if I prefer ..."), fenced code, text
inside backticks, block quotes and sentences that open with a quotation mark,
and objects that only point at the conversation ("I like that", "remember
this"). "today", "tomorrow" and "yesterday" gain the absolute date of the
message. Topics are at most three words (:func:`ov.sessions.memory.text.slug`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ov.sessions.memory import text as tx

# A fact longer than this is a paragraph, not a statement worth a bullet.
MAX_OBJECT_CHARS = 240
# "No, I meant X": a longer X is a new thought, not a swapped word.
MAX_FRAGMENT_WORDS = 6
DEFAULT_SUBJECT = "user"

_FILLER_RE = re.compile(
    r"^(?:(?:also|and|oh|ok|okay|so|well|btw|by the way|fyi|fwiw|for the record|just so you know|hey|hi|hello|"
    r"anyway|just)\b[,:]?\s+)+",
    re.IGNORECASE,
)
_CORRECTION_RES = (
    re.compile(r"^(?:actually|correction)\b[,:;-]?\s*(?:(?:no|I\s+meant|I\s+mean)\b[,:]?\s*)*(?P<x>.+)$", re.I),
    re.compile(r"^(?:no|sorry|oops)\b[,.!]?\s*I\s+mean(?:t)?\b[,:]?\s*(?P<x>.+)$", re.I),
    re.compile(r"^I\s+meant\b[,:]?\s*(?P<x>.+)$", re.I),
)
_REMEMBER_RE = re.compile(
    r"^(?:please\s+)?(?:remember|keep\s+in\s+mind|don't\s+forget|do\s+not\s+forget|note\s+that|note:)"
    r"(?:\s+that\b)?[,:]?\s*(?P<x>.+)$",
    re.I,
)
_PREFER_RE = re.compile(
    r"^I\s+(?:(?:really|generally|usually|mostly|much|strongly|definitely|also|still|do|truly)\s+)*"
    r"(?P<verb>prefer|like|love|enjoy|dislike|hate)\s+(?P<x>.+)$",
    re.I,
)
_NOT_LIKE_RE = re.compile(r"^I\s+(?:don't|do\s+not|dont)\s+(?:really\s+)?(?P<verb>like|love|enjoy|want)\s+(?P<x>.+)$", re.I)
_ALWAYS_RE = re.compile(r"^I\s+(?P<adv>always|never)\s+(?P<x>.+)$", re.I)
_IDENTITY_RE = re.compile(r"^(?:I\s+am|I'm|Im)\s+(?P<x>(?:a|an)\s+.+)$", re.I)
_WORK_RE = re.compile(r"^I\s+work\s+(?P<prep>as|at|for|on)\s+(?P<x>.+)$", re.I)
_MY_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+(?P<y>.+)$", re.I)
_RECALL_RE = re.compile(r"(?i)^(?:when|how|what|why|where|who|whether|if)\b")
# "I'm a bit tired" is a mood, not an identity.
_NOT_IDENTITY_RE = re.compile(r"(?i)^an?\s+(?:bit|little|lot|tad|few|fan)\b")
_FIRST_PERSON_RE = re.compile(r"^I(?P<rest>(?:'m|'ve|'ll|'d)\b.*|\s+.+)$", re.I)
_MY_FACT_RE = re.compile(r"^my\s+(?P<rest>.+)$", re.I)

_PREFER_LEADS = {"prefer": "Prefers", "like": "Likes", "love": "Loves", "enjoy": "Enjoys", "dislike": "Dislikes", "hate": "Hates"}
# Objects that point at the conversation rather than state something.
_DEICTIC = frozenset("it this that these those them you me him her us".split())
# "my K is ..." where K is a passing thought, not a fact about the user.
_NOT_FACTS = frozenset(
    "point question guess concern problem issue idea suggestion plan goal answer bad fault pleasure "
    "understanding assumption hope worry thought thinking feeling take opinion request task".split()
)
ENTITY_CATEGORIES = {
    "project": "projects", "repo": "projects", "repository": "projects", "codebase": "projects",
    "team": "teams", "squad": "teams",
    "company": "organizations", "employer": "organizations", "organization": "organizations",
    "organisation": "organizations", "org": "organizations", "startup": "organizations",
    "manager": "people", "boss": "people", "colleague": "people", "teammate": "people", "mentor": "people",
    "product": "products", "app": "products", "service": "products",
}


@dataclass
class Candidate:
    """A memory to write: its type, its schema fields, and the messages it came from."""

    memory_type: str
    fields: dict[str, str]
    source_message_ids: list[str] = field(default_factory=list)
    # "user", or "peer" for a memory about the session's peer (only the LLM path proposes those).
    about: str = "user"


@dataclass
class _Statement:
    """One extracted statement, kept editable until the session is read to the end."""

    memory_type: str
    lead: str  # "Prefers ", "Works at ", "Editor: ", "" ...
    obj: str  # what the lead is about; a correction may swap it
    slot: tuple[str, ...]  # what a later correction of the same thing would match
    path_fields: dict[str, str]
    sources: list[str]
    noun: str = ""  # for entities: the user's word for it ("current project")
    marked: bool = False  # a correction of nothing in this session: merge may replace a stored line
    turn: int = 0  # which user message it came from; corrections look back one message at most

    def candidate(self) -> Candidate:
        fields = dict(self.path_fields)
        if self.memory_type == "entities":
            fields["name"] = self.obj
            fields["content"] = f"# {self.obj}\n\n- The user's {self.noun}"
        else:
            line = tx.capitalise(self.lead + self.obj)
            if self.memory_type == "events":
                fields["event"] = tx.slug(self.obj, fallback="note")
            fields["content"] = "- " + (f"Actually, {line[:1].lower()}{line[1:]}" if self.marked else line)
        return Candidate(self.memory_type, fields, list(dict.fromkeys(s for s in self.sources if s)))


def extract_explicit(messages: Iterable[Mapping[str, Any]], *, when: datetime, user: str | None = None) -> list[Candidate]:
    """Candidates for the explicit statements in the ``user`` messages, in order of first mention.

    ``when`` dates a message that has no ``created_at`` (for "tomorrow" and the
    like); ``user`` is the subject of preferences (default ``"user"``).
    Identical candidates are merged, keeping all their source messages.
    """
    subject = user or DEFAULT_SUBJECT
    found: list[_Statement] = []
    turn = 0
    for message in messages:
        if message.get("role") != "user":
            continue
        turn += 1
        msg_id = str(message.get("id") or "")
        day = _message_time(message, when)
        masked, spans = tx.strip_code(_message_text(message))
        for sentence in tx.sentences(masked):
            if tx.is_question(sentence) or tx.is_quoted(sentence):
                continue
            clause = _FILLER_RE.sub("", tx.clean(sentence))
            _read_clause(clause, _restorer(spans, day), _Context(subject, msg_id, turn), found)
    return _dedupe(s.candidate() for s in found)


def _restorer(spans: list[str], day: datetime):
    """Turns a matched piece of masked text back into what the user wrote, dates made absolute."""

    def restore(fragment: str) -> str:
        return tx.absolute_dates(tx.clean(tx.unmask(fragment, spans)), day)

    return restore


@dataclass(frozen=True)
class _Context:
    subject: str
    msg_id: str
    turn: int


def _read_clause(clause: str, restore, ctx: _Context, found: list[_Statement]) -> None:
    for pattern in _CORRECTION_RES:
        match = pattern.match(clause)
        if match:
            # Only "I meant X" may be a bare fragment; "actually X" must be a whole statement.
            said_meant = bool(re.search(r"(?i)\bI\s+mean", clause[: match.start("x")]))
            _correct(match.group("x"), restore, ctx, found, fragments=said_meant)
            return
    statement = _remembered(clause, restore, ctx.subject) or _statement(clause, restore, ctx.subject)
    if statement is not None:
        _add(statement, ctx, found)


def _add(statement: _Statement, ctx: _Context, found: list[_Statement]) -> None:
    statement.sources.append(ctx.msg_id)
    statement.turn = ctx.turn
    found.append(statement)


def _correct(body: str, restore, ctx: _Context, found: list[_Statement], *, fragments: bool) -> None:
    """Apply "actually X": X replaces the statement it corrects, or stands alone.

    A correction refers to something just said, so only statements from this
    user message or the one before are corrected, except for a statement
    about the very same thing (same preference topic, profile key, entity
    kind or note), which is corrected however far back it was made.

    When X is a whole statement, it corrects the latest statement about the
    same thing; failing that, for preferences and notes, whose topics are
    guessed from their wording, the latest recent statement of the same type.
    The corrected statement keeps its file (its topic) and takes X's wording.
    With nothing to correct, X is kept; a preference or profile fact then
    carries an "Actually," marker so that merging replaces the stored line it
    contradicts. When X is only a short fragment after "I meant" ("no, I meant
    spaces"), it replaces the object of the latest recent statement that has
    one ("Prefers tabs" -> "Prefers spaces"); any other fragment is dropped.
    """
    body = _FILLER_RE.sub("", body)
    recent = [s for s in found if s.turn >= ctx.turn - 1]
    new = _remembered(body, restore, ctx.subject) or _statement(body, restore, ctx.subject)
    if new is None:
        fragment = restore(body)
        target = recent[-1] if recent and fragments else None
        if target is None or not _informative(fragment) or len(fragment.split()) > MAX_FRAGMENT_WORDS:
            return
        if not (target.lead or target.memory_type == "entities"):
            return
        if target.lead.lower() == "is " and not re.match(r"(?i)an?\s", fragment):
            fragment = ("an " if fragment[:1].lower() in "aeiou" else "a ") + fragment
        target.obj = re.sub(r"(?i)^(?:called|named|the)\s+", "", fragment) if target.memory_type == "entities" else fragment
        target.sources.append(ctx.msg_id)
        return
    target = next((s for s in reversed(found) if s.slot == new.slot), None)
    if target is None and new.memory_type in ("preferences", "events"):
        target = next((s for s in reversed(recent) if s.memory_type == new.memory_type), None)
    if target is None:
        new.marked = new.memory_type in ("preferences", "profile")
        _add(new, ctx, found)
        return
    target.lead, target.obj, target.noun = new.lead, new.obj, new.noun
    if new.memory_type != "preferences":
        target.slot, target.path_fields = new.slot, new.path_fields
    target.sources.append(ctx.msg_id)


def _remembered(clause: str, restore, subject: str) -> _Statement | None:
    match = _REMEMBER_RE.match(clause)
    if not match:
        return None
    body = match.group("x").strip()
    if _RECALL_RE.match(body):
        return None  # "remember when we ..." asks to recall, it does not state
    to_do = re.match(r"(?i)^to\s+(?P<x>.+)$", body)
    if to_do:
        obj = restore(to_do.group("x"))
        if not _informative(obj):
            return None
        topic = tx.slug(obj)
        return _Statement("preferences", "Remember to ", obj, ("preferences", topic), {"subject": subject, "topic": topic}, [])
    statement = _statement(body, restore, subject)
    if statement is not None:
        return statement
    first = _FIRST_PERSON_RE.match(body)
    mine = _MY_FACT_RE.match(body)
    if first:
        verb, fact = tx.third_person_parts(restore(first.group("rest")))
        lead = verb + " " if verb else ""
    elif mine:
        lead, fact = "The user's ", restore(mine.group("rest"))
    else:
        note = restore(body)
        if not _informative(note):
            return None
        return _Statement("events", "", note, ("events", tx.slug(note, fallback="note")), {}, [])
    if not _informative(fact):
        return None
    return _Statement("profile", lead, fact, ("profile", "fact", (lead + fact).lower()), {}, [])


def _statement(clause: str, restore, subject: str) -> _Statement | None:
    """The statement a clause makes about the user, if it matches one of the rules."""
    if m := _NOT_LIKE_RE.match(clause):
        return _preference(f"Does not {m.group('verb').lower()} ", m.group("x"), restore, subject)
    if m := _PREFER_RE.match(clause):
        return _preference(_PREFER_LEADS[m.group("verb").lower()] + " ", m.group("x"), restore, subject)
    if m := _ALWAYS_RE.match(clause):
        obj = restore(m.group("x"))
        if not _informative(obj):
            return None
        verb, rest = tx.third_person_parts(obj)
        lead = f"{m.group('adv').capitalize()} {verb.lower()} " if rest else f"{m.group('adv').capitalize()} "
        topic = tx.slug(obj)
        return _Statement("preferences", lead, rest or verb.lower(), ("preferences", topic), {"subject": subject, "topic": topic}, [])
    if (m := _IDENTITY_RE.match(clause)) and not _NOT_IDENTITY_RE.match(m.group("x")):
        return _profile("Is ", m.group("x"), restore)
    if m := _WORK_RE.match(clause):
        return _profile(f"Works {m.group('prep').lower()} ", m.group("x"), restore)
    if m := _MY_RE.match(clause):
        return _possession(m.group("k"), m.group("y"), restore)
    return None


def _preference(lead: str, raw: str, restore, subject: str) -> _Statement | None:
    obj = restore(raw)
    if not _informative(obj):
        return None
    topic = tx.slug(obj)
    return _Statement("preferences", lead, obj, ("preferences", topic), {"subject": subject, "topic": topic}, [])


def _profile(lead: str, raw: str, restore) -> _Statement | None:
    obj = restore(raw)
    if not _informative(obj):
        return None
    return _Statement("profile", lead, obj, ("profile", lead.strip().lower()), {}, [])


def _possession(key: str, raw: str, restore) -> _Statement | None:
    key = " ".join(key.lower().split())
    if key.split()[-1] in _NOT_FACTS:
        return None
    value = restore(raw)
    if not _informative(value):
        return None
    head = key.split()[-1]
    name, named = re.subn(r"(?i)^(?:called|named)\s+", "", value)
    name = re.sub(r"(?i)^the\s+", "", name).strip()
    looks_like_name = bool(named) or (name[:1].isupper() or name[:1].isdigit())
    if head in ENTITY_CATEGORIES and looks_like_name and len(name.split()) <= 4:
        category = ENTITY_CATEGORIES[head]
        return _Statement(
            "entities", "", name, ("entities", category, key), {"category": category}, [], noun=key
        )
    return _Statement("profile", tx.capitalise(key) + ": ", value, ("profile", key), {}, [])


def _informative(obj: str) -> bool:
    words = obj.split()
    return bool(words) and re.sub(r"'s$", "", words[0].lower()) not in _DEICTIC and len(obj) <= MAX_OBJECT_CHARS


def _message_text(message: Mapping[str, Any]) -> str:
    parts = message.get("parts")
    if parts is None and isinstance(message.get("content"), str):
        return message["content"]  # a legacy line: {"role", "content"}
    texts = [p.get("text") for p in parts or () if isinstance(p, Mapping) and p.get("type") == "text"]
    return "\n\n".join(t for t in texts if isinstance(t, str))


def _message_time(message: Mapping[str, Any], when: datetime) -> datetime:
    stamp = message.get("created_at")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            pass
    return when


def _dedupe(candidates: Iterable[Candidate]) -> list[Candidate]:
    merged: dict[tuple, Candidate] = {}
    for candidate in candidates:
        key = (candidate.memory_type, tuple(sorted(candidate.fields.items())))
        if key in merged:
            sources = merged[key].source_message_ids
            sources.extend(s for s in candidate.source_message_ids if s not in sources)
        else:
            merged[key] = candidate
    return list(merged.values())
