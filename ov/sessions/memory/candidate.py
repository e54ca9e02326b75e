"""A memory to write (:class:`Candidate`), and how a statement the rules read becomes one.

The rules (:mod:`ov.sessions.memory.rules`, read by :mod:`ov.sessions.memory.extract`) say what a
clause states; here that statement becomes the fields of its file, the line it stores (said of the
user in the third person: "Prefers tabs", "Works at Acme"), the stored lines it replaces, and the
other files it amends ("Prefers spaces" ends "Prefers tabs" in ``tabs.md``). The planner
(:mod:`ov.sessions.memory.plan`) merges candidates into the files; the model's path makes them too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ov.sessions.memory import text as tx
from ov.sessions.memory import topics
from ov.sessions.memory.choices import (
    INHERENT_PURPOSE,
    ended_probes,
    rivals,
    same_choice,
)
from ov.sessions.memory.lines import LOCATION_LEADS
from ov.sessions.memory.rivals import Rivalry, choice
from ov.sessions.memory.statement import Statement
from ov.sessions.memory.supersede import NEGATIVE, POSITIVE, supersedes
from ov.sessions.memory.systems import fact_probes


@dataclass
class Candidate:
    """A memory to write: its type, its schema fields, and the messages it came from."""

    memory_type: str
    fields: dict[str, str]
    source_message_ids: list[str] = field(default_factory=list)
    # "user", or "peer" for a memory about the session's peer (only the LLM path proposes those).
    about: str = "user"
    # Stored lines the content's lines replace (probes of merge's "supersede" op; see rules.supersedes).
    replaces: tuple[str, ...] = ()
    # Stored lines that already say what the content says, or more (choices.same_choice): then nothing is written.
    present: tuple[str, ...] = ()
    # Only amends a stored line that ``replaces`` matches: never creates a file or appends a line.
    only_amends: bool = False
    # Such amendments of other files that storing this one implies ("Prefers spaces": tabs.md).
    amends: list[Candidate] = field(default_factory=list)
    # (old, new): a changed value, put in place in the stored lines naming it; the content is
    # stored only when none does (merge's "swap" op).
    swap: tuple[str, str] | None = None
    # With ``replaces``: the line to store when no stored line is replaced ("Moved to Lisbon").
    otherwise: str | None = None
    # A role only one file of its folder holds ("The user's manager"): the others lose it.
    role: str | None = None
    formerly: tuple[tuple[str, ...], str] | None = None  # older ov's names of its file, and its word: topics.former_slug
    rivalry: Rivalry | None = None  # what it ends in the other preference files of its subject (see rivals)
    # A team's switch ("we switched from Jenkins to Buildkite"): ``swap`` is made in the system cards too.
    in_systems: bool = False
    # A correction of nothing said in its session ("actually, ...", "... now"): each content line
    # takes the place of the stored line it contradicts, as merge's "Actually, X" does (the planner
    # writes it so); the content itself is the line to store ("Is based in Oslo").
    corrects: bool = False

    def said_earlier(self) -> Candidate:
        """This memory as a statement made before the stored ones (an older ov's note of it): a
        stored line it would replace was said later and holds, so it is then not written, and
        it amends no other file."""
        return Candidate(self.memory_type, self.fields, list(self.source_message_ids), self.about, present=(*self.present, *self.replaces), formerly=self.formerly)


def rival_amends(path_fields: dict[str, str], lead: str, obj: str, sources: list[str]) -> list[Candidate]:
    """For a choice ("Prefers spaces", ``obj`` said of the user), the negation of each rival a stored
    preference may state, in the rival's file of the same subject ("No longer prefers tabs")."""
    return [
        Candidate(
            "preferences",
            {**path_fields, "topic": topics.slug(rival), "content": f"- No longer prefers {rival}"},
            list(sources),
            replaces=ended_probes(f"Prefers {rival}"),
            only_amends=True,
            formerly=topics.former_slug(rival),
        )
        for rival in rivals(lead, obj)
    ]


def instruction_rival_amends(path_fields: dict[str, str], said: str, sources: list[str]) -> list[Candidate]:
    """For an instruction to use a choice ("Use double quotes in JavaScript"), the removal of each
    instruction to use a rival in the same context from the rival's file ("Use single quotes in
    JavaScript" in single_quotes.md): an instruction has no "no longer" of its own, and the new
    one says what holds; a preference for a rival ends as a choice's does ("No longer prefers
    single quotes"). [] for any other instruction."""
    used = re.match(r"(?i)^(?:always\s+)?(?:use|prefer)\s+(?P<x>.+)$", said)
    if used is None:
        return []
    return [*rival_amends(path_fields, "Prefers ", used.group("x"), sources), *(  # and the preference for a rival
        Candidate(
            "preferences",
            {**path_fields, "topic": topics.slug(rival), "content": _removal(rival)},
            list(sources),
            only_amends=True,
        )
        for rival in rivals("Prefers ", used.group("x"))
    )]


_USE_LEADS = ("Use", "Always use", "Prefer", "Always prefer")


def _removal(rival: str) -> Any:
    """Merge ops removing each wording of an instruction to use ``rival`` (see :func:`merge.patch_text`)."""
    said = [rival, *(f"{rival} {purpose}" for purpose in INHERENT_PURPOSE.get(rival, ()))]
    return [{"replace": f"- {lead} {form}", "with": ""} for lead in _USE_LEADS for form in said]


def candidate_of(statement: Statement) -> Candidate:
    """The memory ``statement`` makes: its file's fields, its line, what it replaces and amends."""
    fields = dict(statement.path_fields)
    role = None
    obj = statement.obj
    present: tuple[str, ...] = ()
    if statement.memory_type == "entities":
        fields["name"] = re.sub(r"\.(?=\s|$)", "", statement.obj)  # "Dr. Smith": dr_smith.md, as "J. R. R. Tolkien" j_r_r_tolkien.md
        if statement.fact:
            fields["content"] = f"# {tx.capitalise(statement.obj)}\n\n- {statement.fact}"
        else:
            fields["content"] = f"# {statement.obj}\n\n- The user's {statement.noun}"
            role = f"The user's {statement.noun}"
        replaces: tuple[str, ...] = statement.probes or (fact_probes(statement.fact) if statement.marked else ())
    else:
        obj = tx.voiced(statement.obj, "they") if _of_the_user(statement) else statement.obj
        line = tx.capitalise(statement.lead + obj)
        if statement.memory_type == "events":
            fields["event"] = topics.event_name(statement.obj)
        fields["content"] = "- " + line
        older = supersedes(statement.memory_type, statement.lead, statement.obj) if obj != statement.obj else ()  # "my" as said
        present, lesser = same_choice(statement.lead, obj)  # (a liking is a preference's)
        replaces = (*supersedes(statement.memory_type, statement.lead, obj), *older, *lesser, *statement.probes)
        if statement.only_amends and statement.probes:
            replaces = statement.probes  # it amends those lines and no other ("I left Acme, I'm at Globex now")
        if statement.marked and statement.slot[:2] == ("profile", "fact"):
            # "I'm on Linux now" after "I'm on macOS": a fact corrected, as a system's is.
            replaces = (*replaces, *fact_probes(line))
    sources = list(dict.fromkeys(s for s in statement.sources if s))
    rivalry = None
    if statement.memory_type == "preferences" and "subject" in fields:
        rivalry = Rivalry((("subject", fields["subject"]),), said=line, marked=statement.marked, switched=statement.ends)
    elif (statement.swap or statement.ends) and statement.subject:  # "we switched from ruff to black", "I don't use ruff anymore"
        rivalry = Rivalry((("subject", statement.subject),), switched=statement.swap[0] if statement.swap else statement.ends)  # what said to use ruff
    elif statement.chooses and statement.subject:  # "I switched to typer for CLIs" ends "Prefers click for CLIs"
        rivalry = Rivalry((("subject", statement.subject),), said=statement.chooses, marked=True)
    otherwise = f"- {tx.capitalise(statement.otherwise)}" if statement.otherwise else None
    swap, amends = statement.swap, _amends(statement, obj, sources)
    if statement.memory_type == "entities" and swap:
        # A system moved from one tool to another ("we migrated CI from Jenkins to GitHub Actions"):
        # its card says where it moved, and the team's lines naming the old tool, in the profile and
        # on the other cards, name the new one; a profile with none is left as it is.
        switch = {"content": [{"swap": swap[0], "to": swap[1]}]}
        amends, swap = [*amends, Candidate("profile", switch, list(sources), only_amends=True, swap=swap, in_systems=True)], None
    return Candidate(
        statement.memory_type,
        fields,
        sources,
        replaces=replaces,
        present=present,
        only_amends=statement.only_amends,
        amends=amends,
        swap=swap,
        otherwise=otherwise,
        role=role,
        formerly=topics.former_slug(statement.obj) if fields.get("topic") == topics.slug(statement.obj) else None,
        rivalry=rivalry,
        # (a team's switch, or "it's X, not Y" after a correction's lead, which may name a system's value)
        in_systems=bool(statement.swap) and (statement.lead == "Team " or statement.slot[:2] == ("profile", "swap")),
        corrects=statement.marked,
    )


def _amends(statement: Statement, obj: str, sources: list[str]) -> list[Candidate]:
    """The other files a preference amends: its rivals' ("Prefers spaces" ends "Prefers tabs"), or an
    instruction's (see :func:`instruction_rival_amends`), and the profile's line saying its choice
    is no longer used (see :func:`used_again`)."""
    if statement.memory_type != "preferences":
        return []
    again = used_again(statement.lead + obj, sources)
    if not statement.lead:
        return [*instruction_rival_amends(statement.path_fields, obj, sources), *again]
    return [*rival_amends(statement.path_fields, statement.lead, obj, sources), *again]


def used_again(said: str, sources: list[str]) -> list[Candidate]:
    """For a line choosing a thing ("Always use black", "Use black for formatting", "Prefers black"),
    the removal of the profile's "No longer uses black": said later, the choice holds again, and
    the older line contradicting it goes, as the choice's own lines go when it is no longer used
    (rivals). [] for any other line."""
    chosen = choice(said)
    if chosen is None or chosen.kind != "choice":
        return []
    ended = [{"replace": f"- {lead}{chosen.chosen}", "with": ""} for lead in ("No longer uses ", "Actually, no longer uses ")]
    return [Candidate("profile", {"content": ended}, list(sources), only_amends=True)]


def _of_the_user(statement: Statement) -> bool:
    """Whether the line says something of the user in the third person ("Prefers ...", "Works at ...",
    "Editor: ...") rather than in their words (a note, an instruction, "Remember to ...")."""
    if statement.memory_type == "profile":
        return not statement.lead.startswith("Team ")
    return statement.memory_type == "preferences" and statement.lead.strip() not in ("", "Always", "Never", "Remember to")


def dedupe(candidates: Iterable[Candidate]) -> list[Candidate]:
    """``candidates`` with each memory once, in order of first mention, keeping every source message;
    one said again after a candidate that may end it (a rivalry) takes its later place, where that
    one no longer ends it (see :func:`ov.sessions.memory.amends.end_rivals`)."""
    merged: dict[tuple, Candidate] = {}
    rivalled: set[tuple] = set()  # the memories said before the latest candidate with a rivalry
    for candidate in candidates:
        key = (candidate.memory_type, tuple(sorted(candidate.fields.items())))
        if key in merged and merged[key].only_amends and not candidate.only_amends:
            # asked to be remembered after it was said: stored, not only a correction of what is
            candidate.source_message_ids[:0] = [s for s in merged[key].source_message_ids if s not in candidate.source_message_ids]
            merged[key] = candidate
        elif key in merged:
            sources = merged[key].source_message_ids
            sources.extend(s for s in candidate.source_message_ids if s not in sources)
            if key in rivalled:
                merged[key] = merged.pop(key)
                rivalled.discard(key)
        else:
            merged[key] = candidate
        if candidate.rivalry is not None:
            rivalled = set(merged) - {key}
    return list(merged.values())


# A line as ov words one: a bullet, maybe marked as a correction ("Actually, Editor: Emacs").
_WORDED_RE = re.compile(r"^\s*[-*+]\s+(?:(?i:actually|correction)\b[\s,:;-]*)?(?P<body>\S.*?)\s*$")
_KEY_RE = re.compile(r"^(?P<k>[^:]{1,40}):\s+(?P<v>\S.*)$")
_LEADS = (*POSITIVE, *NEGATIVE, "Always ", "Never ", "Works at ", "Works for ", "Works as ", "Is no longer ")


def worded(candidate: Candidate) -> list[Candidate]:
    """A profile or preference memory whose lines come worded as ov words them (the model's): one
    candidate per line, each replacing and amending what the rules' own line would ("- Editor:
    Emacs" replaces "Editor: vim", "- Prefers spaces" ends "Prefers tabs" in tabs.md and is already
    said by "Prefers spaces over tabs"); a line of no known wording is merged as it is. Any other
    memory as it is."""
    if candidate.memory_type not in ("profile", "preferences") or not isinstance(candidate.fields.get("content"), str):
        return [candidate]
    out = []
    for line in candidate.fields["content"].splitlines():
        if not line.strip():
            continue
        fields, lead_obj = {**candidate.fields, "content": line}, _lead_of(candidate.memory_type, line)
        if lead_obj is None:
            out.append(Candidate(candidate.memory_type, fields, list(candidate.source_message_ids), candidate.about))
            continue
        lead, obj = lead_obj
        present, lesser = same_choice(lead, obj)
        located = LOCATION_LEADS if any(lead.startswith(place) for place in LOCATION_LEADS) else ()
        amends = rival_amends(candidate.fields, lead, obj, candidate.source_message_ids) if candidate.memory_type == "preferences" else []
        replaces = (*supersedes(candidate.memory_type, lead, obj), *lesser, *located)
        subject = candidate.fields.get("subject")
        marked = re.match(r"(?i)^\s*[-*+]\s+(?:actually|correction)\b", line) is not None
        rivalry = Rivalry((("subject", subject),), said=lead + obj, marked=marked) if candidate.memory_type == "preferences" and subject else None
        out.append(Candidate(candidate.memory_type, fields, list(candidate.source_message_ids), candidate.about, replaces, present=present,
                             amends=amends, rivalry=rivalry))
    return out


def _lead_of(memory_type: str, line: str) -> tuple[str, str] | None:
    """(lead, object) of a line as the rules word one: ("Editor: ", "Emacs"), ("No longer prefers ",
    "tabs"), ("Lives in ", "Lisbon"); None for another wording."""
    match = _WORDED_RE.match(line)
    if match is None:
        return None
    body = match.group("body")
    if (key := _KEY_RE.match(body)) and memory_type == "profile":
        value = key.group("v")
        no_longer = re.match(r"(?i)no\s+longer\s+(?=\S)", value)
        return (f"{key.group('k')}: {no_longer.group(0)}", value[no_longer.end() :]) if no_longer else (f"{key.group('k')}: ", value)
    if negated := re.match(r"^No longer (?:works (?:at|for) |\S+ )(?=\S)", body):
        return negated.group(0), body[negated.end() :]
    lead = next((lead for lead in (*_LEADS, *(place + " " for place in LOCATION_LEADS)) if body.startswith(lead) and body[len(lead) :].strip()), None)
    return (lead, body[len(lead) :]) if lead else None


# "in this repo", "this project's", "in the current codebase": a statement that holds in one project only.
_THIS_PROJECT = re.compile(rf"\b{tx.THIS_PROJECT}", re.IGNORECASE)


def said_of_this_project(candidate: Candidate) -> bool:
    """Whether a memory's text (any of its fields) says it holds in the project at hand only: a
    session's commit and the MCP ``remember`` file it under the workspace's peer."""
    return any(isinstance(value, str) and _THIS_PROJECT.search(value) for value in candidate.fields.values())
