"""Deterministic extraction of explicit statements from user messages (no LLM).

Only what the user says about themselves in so many words is kept; each rule
applies to one clause of a ``user`` message, matched from its start (after
fillers such as "also," or "btw", and without an aside such as "by the way" or
"FYI" at its end), case-insensitively; a sentence's lead-in ("Remember:", "FYI",
"I'm sure that": :mod:`ov.sessions.memory.leads`) is taken off before it is read. A sentence is split
into clauses before " and I", ", and my", " but I'm", ", so my", " - my" and
the like (a join or dash followed by I, I'm, I've, I'd or my), and at a comma
before I or my after a clause of four words or more, so "My name is Dana and I
work at Acme" is two statements; "; " ends a sentence.

=======================================  ====================================================
clause                                    memory
=======================================  ====================================================
I prefer / like / love / enjoy X          preferences/{user}/{slug(X)}: "Prefers X", "Likes X", ...
I dislike / hate X                        preferences: "Dislikes X", "Hates X" (none for what is on
                                          the table: "your idea", "option B", "its packaging")
I don't like / love / enjoy / want X      preferences: "Does not like X", ...
I always / never X                        as "always X" below for a verb of the work; else "Always Xs"
                                          (not in the past)
I am a / I'm an X                         profile: "Is a X" (not a sigh: "I'm such an idiot")
I work as / at / for / on X               profile: "Works at X", ...
I don't work at Y anymore, I joined X     profile: "Works at X" in place of the employer line
I left / quit Y, I'm at / joined X        profile: "Works at X" in place of a stored "Works at Y",
                                          else nothing (Y may be a city or an app)
I left / quit Y                           profile: "No longer works at Y" in place of it (Y
                                          with or without Corp, Inc, ...), else nothing
I prefer / like / love (that) we V X      preferences: "V X (team convention)", V a verb of the work
my K is Y; I switched my K (from Z) to Y  profile: "K: Y"; or entities/{category}/{Y} when K ends
                                          in project, team, company, ... and Y is a name (words
                                          capitalised but for van, of, &, numbers; not OOO, not
                                          US-based; at most four; or "called Y"): "The user's K",
                                          which the folder's other cards then lose ("No longer
                                          the user's K"); none when Y passes ("failing", "out",
                                          "in the stash", "#1234", a build's "green")
I no longer V X; I don't V X anymore;     "No longer Vs X": a preference when V is prefer, like,
I've stopped V-ing X (we: V use only)     love, enjoy or want; profile when V is use, work,
                                          live, write, code or program; "use" also ends a
                                          stored instruction or preference to use X
I'm no longer a X; I'm not a X anymore    profile: "Is no longer a X"
my K is no longer Y; my K isn't Y anymore profile: "K: no longer Y"
I switched / moved / migrated / changed   profile: each stored line naming X names Y instead
from X to Y; I replaced X with Y; I use   ("Editor: Neovim" -> "Editor: Zed"); with none,
Y instead of X; not on X anymore - I      the statement itself ("Switched from X to Y")
switched to Y
I switched to / I'm on Y now (Y a known    profile: "Editor: Y", "Shell: Y", ... in place of the
editor, shell, terminal, OS, browser)     stored line of that key (:mod:`ov.sessions.memory.kinds`)
I / we switched / moved to Y for P        profile: "(Team) uses Y for P" in place of the stored use of
                                          another thing for P; a preference for another ends
                                          (in a session, only that correction)
I'm on Eastern time / CET / UTC+2         profile: "Timezone: X"
I mostly write / code mainly in X         profile: "Main language: X" (X capitalised)
I've come around to X                     as "I prefer X"
I live / I'm based / located in X;        profile: "Lives in X", "Is based in X", in place of
I moved / relocated to X                  the line saying where the user lives; "moved to"
                                          with none stored: "Moved to X"
call me X; I go by X                      profile: "Preferred name: X" (X capitalised)
I joined the X team                       as "my team is X"
I'm (not) a fan of X; I can't stand X     preferences: "Is a fan of X", "Is not a fan of X",
                                          "Cannot stand X"
always / never X (an instruction)         preferences: "Always X", "Never X"
remember (that) / note that / keep in     X is read by the rules above; else a fact about a system or
mind that / don't forget (that) X;        the team, an instruction, a first-person fact, or a dated
X, remember that; X. Remember that.       note in events/ (see :mod:`ov.sessions.memory.facts`)
remember to / don't forget to X           preferences: "Remember to X"
actually X / correction: X / scratch      corrects the statement it refers to (see corrections);
that, X / I was wrong, X / no wait, X /   after a lead "it's X" is "I meant X", and so is a
wait no, X / update: X / no, I meant X /  name alone after "sorry, " (:mod:`meant`)
I meant X;
correction to what I said before: X;
changed my mind, X / on second thought, X;
X now; now X; I now X; X these days; X
instead; going forward / from here on /
as of Monday, X; X, switched last month
=======================================  ====================================================

``ov remember`` reads its text as asked to be remembered: a clause no rule
reads is read as "remember that" would (never as a dated note of its own,
nor when it says only "it" or "that"), so "I don't use VS Code anymore, I use
Cursor" is two memories. In a session, the team's facts and instructions
other than "always ..." and "never ..." stay unremembered unless the user
asks to remember them: a session is full of task instructions. A change that
corrects a memory is read there too (see :func:`_change`): a team's switch of
a tool, a system's new place or address, and an instruction taken back ("don't
use X anymore"), which only replace a stored line.

A stored line that a new one replaces is superseded, not kept beside it (see
:func:`ov.sessions.memory.rules.supersedes`): "K: Y" replaces the lines with
key K; "Works at / for" and "Works as" replace the line with the same lead
("Works at" a "No longer works at" line too); a
"No longer" line replaces the line it negates ("Uses X", or any "K: X" for
"uses"); a preference replaces the opposite one about the same object
("Prefers X" and "Hates X", "Always X" and "Never X"). Preferring one of a few
known exclusive choices (tabs / spaces, dark / light mode or theme, single /
double quotes, vim / emacs / helix / ...), or one named over another ("Go over
Python"), turns a stored "Prefers" line for the other, in the same context
("in Go code"), into "No longer prefers ..." in that file; no file is created for it.
So does another size of the same thing ("4-space indentation" for "2-space indentation"), and
another choice for the same purpose said as a correction ("actually, black for formatting" for
"ruff for formatting"), wherever its file is (:mod:`ov.sessions.memory.rivals`).
Git keeps every earlier version.

Ignored: questions ("?", "？", ..., or a question's opening: "how do I ...", :func:`requests.asks`),
conditionals and hedges (a statement not at the start of its clause, or in a sentence opening with "if",
"when", "because", "maybe", "I think", "I'm not sure", ...), code, block quotes, what the user
quotes, dictates or pastes (:mod:`ov.sessions.memory.quoted`: "bio reads: I am
...", "the user says I ..."; :mod:`ov.sessions.memory.pasted`: an email, a chat
log, a letter, a git log), a sentence framed as made up ("In the test fixture,
...") or taken back ("- said no one ever"), objects that only point at the
conversation ("I like that", "remember this", "to do this", "never do that
again", "my code is below", "this API"; states of the moment, "my current ticket is
PROJ-123", "I'm on call", "I left my laptop at the office":
:mod:`ov.sessions.memory.standing`; a capital
makes such a word a name's: "US politics", "This Is Us"), answers with nothing of
their own ("I think so", "I hope not"), and
what someone else said ("my manager said her editor is ..."). A reason or an aside after a value is not part of
it ("Vim because it's fast", "Vim, which ...", "Vim by the way"). The markers "actually",
"now", "these days", "instead" are dropped from what is stored ("for now" and "until now" are kept). "today",
"tomorrow" and "yesterday" gain the absolute date of the message. Topics are
at most three words (:func:`ov.sessions.memory.topics.slug`). A session that
shows a task done also yields an experience
(:mod:`ov.sessions.memory.experience`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ov.sessions.memory import casual, kinds, languages, quoted, requests, typos
from ov.sessions.memory import text as tx
from ov.sessions.memory.candidate import Candidate, candidate_of, dedupe
from ov.sessions.memory.capitals import UPPER
from ov.sessions.memory.changes import upgraded_to, version_meant, version_now, with_successor, without_when
from ov.sessions.memory.corrections import Context, add, correct
from ov.sessions.memory.employer import employer_change, joined, new_employer
from ov.sessions.memory.experience import extract_experience
from ov.sessions.memory.facts import remembered
from ov.sessions.memory.instructions import CONDITIONAL_STEP_RE, condition_ended, is_reversal, reasons_apart, with_alternatives
from ov.sessions.memory.leads import opening, without_ask
from ov.sessions.memory.markers import CORRECTION_LEAD, as_instruction, restated_change, unmark
from ov.sessions.memory.meant import apologised, value_again
from ov.sessions.memory.rules import points_back, statement_of
from ov.sessions.memory.secrets import states_a_secret
from ov.sessions.memory.standing import says_nothing, taken_back
from ov.sessions.memory.statement import Statement, informative
from ov.sessions.memory.systems import fact_probes
from ov.sessions.messages import message_text

DEFAULT_SUBJECT = "user"

_CORRECTION_RES = (
    re.compile(rf"{CORRECTION_LEAD}(?:(?:no|I\s+meant|I\s+mean)\b[,:]?\s*)*(?P<x>.+)$", re.I),
    re.compile(r"^(?:no|sorry|oops)\b[,.!]?\s*I\s+mean(?:t)?\b[,:]?\s*(?P<x>.+)$", re.I),
    re.compile(r"^I\s+meant\b[,:]?\s*(?P<x>.+)$", re.I),
)
# "X, remember that." is "Remember that X."; "Remember that." alone points at the sentence before.
_REMEMBER_THAT = r"(?:please\s+)?(?:(?:remember|note)\s+(?:that|this|it)|keep\s+(?:that|this|it)\s+in\s+mind)"
_TRAILING_REMEMBER_RE = re.compile(rf"^(?P<x>.+?)\s*[,;:-]+\s*(?:so\s+)?{_REMEMBER_THAT}$", re.I)
_BARE_MARKER_RE = re.compile(rf"{CORRECTION_LEAD}$", re.IGNORECASE)
_BARE_REMEMBER_RE = re.compile(rf"^{_REMEMBER_THAT}(?:,?\s*please)?[.!]*$", re.I)


def extract_explicit(
    messages: Iterable[Mapping[str, Any]],
    *,
    when: datetime,
    user: str | None = None,
    asked: bool = False,
    unread: list[str] | None = None,
) -> list[Candidate]:
    """Candidates for the explicit statements in the ``user`` messages, in order of first mention,
    then the experience the session shows, if any.

    ``when`` dates a message that has no ``created_at`` (for "tomorrow" and the
    like); ``user`` is the subject of preferences (default ``"user"``).
    ``asked``: the messages were given to be remembered (``ov remember``), so a
    clause no rule reads is read as "remember that" would (a fact, an
    instruction), though never as a dated note on its own.
    Identical candidates are merged, keeping all their source messages.
    ``unread``: a list that gets each informative clause no rule read (``ov remember`` keeps
    the whole text when there is one, so that nothing it was asked to remember is lost).
    """
    messages = list(messages)
    subject = user or DEFAULT_SUBJECT
    found: list[Statement] = []
    turn = 0
    for message in messages:
        if message.get("role") != "user":
            continue
        turn += 1
        ctx = Context(subject, str(message.get("id") or ""), turn, asked, unread)
        masked, spans = tx.strip_code(message_text(message, said_only=True))
        masked = with_successor(typos.put_right(casual.spelled_out(languages.in_english(quoted.mask_quoted(condition_ended(masked), spans)))))
        if asked:
            masked = casual.owned(masked)  # "Shell's fish": only when the text is the user's to keep
        restore = _restorer(spans, tx.message_time(message, when))
        previous = None
        said = with_alternatives(joined(list(tx.sentences(masked))))  # "I left X. I'm at Y now." is one change of employer
        for sentence, following in zip(said, [*said[1:], ""], strict=False):
            sentence = requests.as_standing(sentence) or sentence  # "Could you always run the linter ...?": an instruction
            asks = requests.asks(sentence)  # ("where do the fixtures live", its "?" left off, asks too)
            if asks or quoted.is_quotation(sentence, spans) or quoted.framed(sentence) or taken_back(sentence, following):
                if unread is not None and not asks and not says_nothing(without_ask(tx.clean(sentence))):
                    unread.append(sentence)  # no statement of the user's (quoted, made up, taken back), but given
                previous = None
                continue
            if asked and (wanted := casual.asked_for(sentence)):  # (before clean takes its "please" off)
                sentence = wanted
            sentence = quoted.mask_reported(tx.clean(casual.without_apology(sentence)), spans)
            if _BARE_REMEMBER_RE.match(sentence) and previous:
                sentence = f"Remember that {previous}"
            elif trailing := _TRAILING_REMEMBER_RE.match(sentence):
                sentence = f"Remember that {trailing.group('x')}"
            previous = sentence
            # The lead-in off first ("Remember: I'm Dana, a designer" is "I'm Dana, a designer",
            # asked), in a session as in ov remember: what follows it is read as said on its own.
            lead = opening(sentence)
            if lead.hedged and not lead.asks:  # "I'm not sure we use Postgres 16": nothing stated
                if unread is not None and not says_nothing(lead.body):
                    unread.append(sentence)  # (asked to remember, a dated note of it: see facts.remembered)
                continue
            if (change := employer_change(lead.body, restore, asked=asked or lead.asks)) is not None:
                add(change, ctx, found)
                continue
            marker = ""
            # Asked to remember the sentence ("remember that I like X, and this repo uses Y"): every
            # clause of it in a session; in ov remember, which reads every clause as asked, the
            # first, which the ask opened (a note of its own is kept only for it).
            ask = "Remember that " if lead.asks else ""
            # (the user's own heading goes before the clauses are told apart: "Big news - I ..." is one clause)
            for n, clause in enumerate(reasons_apart(tx.clauses(new_employer(restated_change(casual.introduced(quoted.own_words(lead.body))))))):
                clause = as_instruction(tx.without_aside(quoted.own_words(opening(tx.clean(clause)).body)))
                typed, clause = clause, casual.preferred(clause) if asked else clause
                if _BARE_MARKER_RE.match(clause):
                    marker = f"{clause}, "  # "Scratch that - my last name is ...": the marker opens the clause after it
                    continue
                asked_again = ask and not marker and (n == 0 or not asked) and without_ask(clause) == clause
                _read_choice(clause, typed, (f"{ask}" if asked_again else marker), restore, ctx, found)
                marker = ""
    experience = extract_experience(messages, when=when)
    experiences = [Candidate("experiences", *experience)] if experience else []
    return dedupe([*(candidate_of(s) for s in found), *experiences])


def extract_text(text: str, *, when: datetime, user: str | None = None, unread: list[str] | None = None) -> list[Candidate]:
    """The candidates of ``text`` given to be remembered, as ``ov remember`` reads it: one user
    message said at ``when``, every clause read (``asked``; see :func:`extract_explicit`)."""
    message = {"id": "remember", "role": "user", "parts": [{"type": "text", "text": text}], "created_at": when.isoformat()}
    return extract_explicit([message], when=when, user=user, asked=True, unread=unread)


def _restorer(spans: list[str], day: datetime):
    """Turns a matched piece of masked text back into what the user wrote, dates made absolute."""

    def restore(fragment: str) -> str:
        return tx.absolute_dates(tx.clean(tx.unmask(fragment, spans)), day)

    return restore


def _read_choice(clause: str, typed: str, lead: str, restore, ctx: Context, found: list[Statement]) -> None:
    """Read ``lead + clause``, where ``clause`` may be ``typed`` said as a choice ("Postgres beats
    MySQL" -> "I prefer Postgres over MySQL"): when no rule reads the choice but as a note, the note
    keeps the words typed ("Postgres beats MySQL for this")."""
    if clause == typed:
        _read_clause(lead + clause, restore, ctx, found)
        return
    trial, notes = list(found), len(ctx.unread) if ctx.unread is not None else 0
    _read_clause(lead + clause, restore, ctx, trial)
    if all(s.memory_type == "events" for s in trial[len(found) :]):
        if ctx.unread is not None:
            del ctx.unread[notes:]
        _read_clause(lead + typed, restore, ctx, found)
    else:
        found[:] = trial


def _read_clause(clause: str, restore, ctx: Context, found: list[Statement]) -> None:
    if states_a_secret(restore(clause)):
        # Whatever a rule would make of it ("Pass: ...", "Login is admin / ...", a corrected
        # value): a memory is given to every later session. Restored, since a secret may be quoted.
        return
    for pattern in _CORRECTION_RES:
        match = pattern.match(clause)
        if match:
            # Only "I meant X" may be a bare fragment; "actually X" must be a whole statement.
            said_meant = bool(re.search(r"(?i)\bI\s+mean", clause[: match.start("x")]))
            body = unmark(match.group("x"))[0]
            if (meant := version_meant(body, restore)) is not None:  # "correction: it's Flutter 3.24, not 3.22"
                # (a version asked to be remembered, with no line to correct: "Is on Flutter 3.24"; any other
                # value only corrects, and ov remember keeps the text as a note when it corrects nothing)
                meant.only_amends = not ctx.asked or not meant.obj.startswith("Is on ")
                add(meant, ctx, found)
                return
            if _at_version(body, restore, ctx, found):
                return
            again = value_again(body)  # "actually no, it's Helix" says "I meant Helix"
            correct(again or body, restore, ctx, found, _read, fragments=said_meant or again is not None)
            return
    if (meant := apologised(clause, found[-1] if found else None)) is not None:  # "Sorry, MySQL" too
        correct(meant, restore, ctx, found, _read, fragments=True)
        return
    if says_nothing(without_ask(clause)) or casual.apology(without_ask(clause)):
        return  # "I think so", "I guess", "my bad": an answer or an apology, nothing of its own to keep
    plain, changed = unmark(clause)
    if changed and _at_version(plain, restore, ctx, found):
        return
    if changed:  # "my editor is Vim now" corrects like "actually, my editor is Vim"
        correct(plain, restore, ctx, found, _read, fragments=False)
        return
    statement = _read(clause, restore, ctx)
    if statement is not None:
        add(statement, ctx, found)
    elif ctx.unread is not None and informative(clause, any_length=True) and re.search(r"\w", clause) and not CONDITIONAL_STEP_RE.match(without_ask(clause)):
        ctx.unread.append(clause)


def _at_version(body: str, restore, ctx: Context, found: list[Statement]) -> bool:
    """Whether ``body``, a correction's ("actually it's Python 3.12 now"), put a thing at a version
    in place of the stored lines putting it at another (changes.version_now): a correction of
    nothing said in this session or the message before, which "I meant" corrects instead. Asked to
    be remembered, it is kept with no such line; in a session it only corrects."""
    now = version_now(body, restore)
    if now is None:
        return False
    name = now.slot[2].removeprefix("team ").removeprefix("is on ").strip()
    if any(name in f"{s.lead}{s.obj} {s.fact}".lower() for s in found if s.turn >= ctx.turn - 1):
        return False  # "I use Python 3.11. Actually, it's Python 3.12": the statement just made is corrected
    now.only_amends = not ctx.asked
    add(now, ctx, found)
    return True


def _read(clause: str, restore, ctx: Context) -> Statement | None:
    statement = kinds.switched(without_ask(clause), restore) or _upgraded(clause, restore, ctx) or remembered(clause, restore, ctx.subject) or statement_of(clause, restore, ctx.subject)
    statement = kinds.keyed(statement) if statement is not None else None  # "my default shell is fish" after "my shell is zsh"
    if statement is None and ctx.asked:
        statement = remembered(f"Remember that {clause}", restore, ctx.subject)
        if statement is not None and (statement.memory_type == "events" or points_back(f"{statement.obj} {statement.fact}")):
            return None  # a clause of a longer text is no note of its own, nor one that says "it"
    elif statement is None:
        statement = _change(clause, restore, ctx)
    if statement is not None and ctx.asked and (statement.slot == ("profile", "location") or statement.lead.startswith(("Team ", "Is no longer "))
                                                or statement.chooses) \
            and statement.slot[1:2] != ("chosen",):
        statement.only_amends = False  # "we moved to Rotterdam", "we don't use black anymore", "we renamed X to Y" asked to be remembered: kept
    return statement


def _upgraded(clause: str, restore, ctx: Context) -> Statement | None:
    """"we upgraded to Postgres 16": asked to be remembered, kept whether a stored version is replaced
    or not; in a session, only a correction of the stored one (a session's upgrades are often the code's)."""
    statement = upgraded_to(without_ask(unmark(clause)[0]), restore)
    if statement is not None and ctx.asked:
        statement.only_amends = False
    return statement


# A value that names a kind of thing, not one: "from a list to a dict", "from the old parser to the
# new one" are changes in the code at hand.
_SOME_RE = re.compile(r"(?i)^(?:an?|some|another|this|that|it|the|old|new|my|our|their|its)\b")
# A switch for a thing in view ("for this file", "in that function") is one in the code at
# hand, not the team's tools.
_IN_VIEW_RE = re.compile(r"(?i)\b(?:(?:for|in|on|across)\s+(?:this|that|these|those)\b)")
# A place a system moved to or is at names one: an address, a port, a region, a version, a name
# ("Moved to Buildkite"); not "the new module", where the move is in the code.
_NAMED_RE = re.compile(rf"[.:/\d]|(?<!^)\b{UPPER}")


def _change(clause: str, restore, ctx: Context) -> Statement | None:
    """In a session, what corrects a stored memory as ``ov remember`` would read it: the team's switch
    of a tool ("we switched from ruff to black", stored as it is) and a system's new place or address
    ("the staging server moved to ...", "the staging server is ..."), which only replaces the stored
    line saying where it was: a session's talk of the systems at hand is no fact to keep unless
    asked, but one that contradicts a memory leaves that memory wrong."""
    statement = remembered(f"Remember that {clause}", restore, ctx.subject)
    if statement is None:
        return None
    if statement.swap and statement.lead == "Team ":
        in_view = _IN_VIEW_RE.search(clause)
        if in_view or any(_SOME_RE.match(value) for value in statement.swap):
            return None
        # (said with when it happened, "... last year", it is that day's news: it only corrects the old value's line)
        statement.only_amends = statement.only_amends or without_when(clause) != clause
        return statement
    if statement.memory_type == "preferences" and is_reversal(clause) and statement.probes:
        # "Don't use ruff format anymore": a standing instruction the user takes back is ended;
        # other instructions in a session are the task's, and are not kept.
        statement.only_amends = True
        return statement
    named = statement.fact and _NAMED_RE.search(statement.fact.split(None, 1)[-1])
    if statement.memory_type == "entities" and named and (probes := statement.probes or fact_probes(statement.fact)):
        statement.probes, statement.only_amends = probes, True
        return statement
    return None
