"""What ``ov remember`` keeps of a text no rule reads: a dated note only for a happening.

The rules (:mod:`ov.sessions.memory.rules`, :mod:`ov.sessions.memory.facts` and the modules beside
them) read statements by their shapes; a text, or a part of one, that none of them reads was kept
whole as a dated note under ``events/``. Events are what happened (PRODUCT.md §2: add-only, one
file per day): a standing fact, a convention, a preference or a correction kept there was recalled
as the news of one day, and never amended. So the text is read here by broad cues, not by shapes,
for what kind of note it is (:func:`kind_of`):

- a **happening**, kept as a dated note: an act in the past ("we shipped", "the deploy broke", "I
  dropped my phone"), a stated time ("yesterday", "last week", "on Friday", "2026-11-28", "March
  14"), or a state that passes ("staging is down", "I'm on call": :mod:`ov.sessions.memory.standing`);
- **nothing to keep**, refused: a question, a task for now (an imperative pointing at the moment:
  "this", "it", "me", "now", or steps joined by "and": "bump the version and tag the release"),
  thinking aloud ("hmm", "maybe", "let me", "I wonder", a trailing "...") and chatter ("lol",
  "thanks", "nice catch"), each as :mod:`ov.sessions.memory.moment` reads it, its one reading;
- a **convention**, a preference: an imperative of a practice ("Log all errors to Sentry", "Put the
  tests next to the code"), "always" / "never", a modal of obligation ("should", "must", "has to",
  "needs to"), "no X please", "X only", "X over Y", "X > Y", a quantified rule ("all infra changes
  go through Terraform"), or where it holds ("in this repo", "on the platform team"); the team's
  ("we", "our", a team, the project: "... (team convention)", as :func:`ov.sessions.memory.rules.convention`
  words one) or else the user's, in their words;
- a **fact about the user** ("I ...", "my ...", the first person of another language): a line of
  the profile, in their words;
- a **fact about a thing** ("our X ...", "the X service ...", a name, a URL, a port, a version, a
  plain present statement about a subject): a line of that subject's card under ``entities/``,
  named as :func:`ov.sessions.memory.systems.entity_fact` names a system's or a team's, undated
  and amended later.

A correction said with a switch ("ditched iTerm2 for Ghostty", "moved from X to Y") is a standing
note too, and puts the new value in place of the old one in the stored lines naming it (merge's
swap, as "I switched from X to Y" does); the note itself is stored only where no line names it.
"""

from __future__ import annotations

import re
from datetime import datetime

from ov.sessions.memory import casual, moment, requests, topics
from ov.sessions.memory import text as tx
from ov.sessions.memory.candidate import Candidate, candidate_of
from ov.sessions.memory.foreign import DATE_RE, WE, WE_CJK, english, in_another_language, their_first_person
from ov.sessions.memory.leads import opening
from ov.sessions.memory.markers import CORRECTION_LEAD
from ov.sessions.memory.moment import TROUBLE, WHEN_RE
from ov.sessions.memory.notes import value_of
from ov.sessions.memory.project_facts import a_thing_of_the_work, a_value_of_the_work, project_fact
from ov.sessions.memory.standing import PASSING_STATE_RE, complains, passing_remark, points_back
from ov.sessions.memory.standing import of_the_moment as passes_with_the_moment
from ov.sessions.memory.statement import Statement
from ov.sessions.memory.statement_parts import ADVERBS, in_past, subject_of
from ov.sessions.memory.systems import entity_fact
from ov.sessions.memory.whose_rule import MODAL_RE, QUANTIFIED_RE, a_rule, guessed, reported, someones

HAPPENING, CONVENTION, USER_FACT, THING_FACT = "events", "preferences", "profile", "entities"


# Why a text keeps nothing (nothing_to_keep).
QUESTION, FOR_NOW, CHATTER = "question", "for now", "chatter"



# What a correction says: a switch from an old value to a new one.
_SWITCH_RE = re.compile(
    r"(?i)^(?:(?:I|we)(?:'ve|\s+have)?\s+)?(?:(?:just|finally|recently|also|now)\s+)?"
    r"(?:(?:ditched|swapped|traded)\s+(?P<a>[\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}?)\s+for|replaced\s+(?P<b>[\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}?)\s+with|"
    r"(?:switched|moved|migrated|changed)\s+(?:from|off)\s+(?P<c>[\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}?)\s+to)\s+(?P<new>[\w.+#/-]+(?:\s+[\w.+#/-]+){0,2}?)(?:\s+now)?[.!]*$"
)
# What the new value of a switch is not: a stretch of time, a purpose ("for two weeks", "for local dev").
_NOT_A_VALUE_RE = re.compile(
    r"(?i)^(?:a|an|the|some|two|three|few|several|\d+|good|now|local|personal|months?|weeks?|days?|years?|lent|it|this|that|them)\b"
)
_NO_PLEASE_RE = re.compile(r"(?i)^(?!.*\b(?:for\s+me|thanks|thank\s+you)\W*$)(?:no\s+\S.*?(?:\bplease\b|\bonly\b|,)|no\s+[\w-]+(?:\s+[\w-]+){0,3}\s*(?:in|on|for|at|during)\s)")
_WHERE_RE = re.compile(
    rf"(?i)\b(?:(?:in|on|for|across)\s+(?:this|our|the\s+[\w-]+)\s+(?:repo|repository|project|codebase|team|squad|org|company)|"
    rf"{tx.THIS_PROJECT}|here)\b"
)
_TEAM_RE = re.compile(rf"(?i)(?<![\w-])(?:we|we're|we've|our|ours|us|team|squad|everyone|everybody|{tx.THIS_PROJECT})(?![\w-])")
# Another language's "we" ("nossa equipe", "wir"): read only in a text not in English ("my" is Polish "we").
_THEIR_WE_RE = re.compile(rf"(?i)(?<![\w-])(?:{WE})(?![\w-])|{WE_CJK}")
# The first person: "I", "my" (another language's is foreign.their_first_person's).
_FIRST_PERSON_RE = re.compile(r"(?i)^(?:I|I'm|I've|I'd|I'll|Im|my|mine)(?![\w-])")


def noted(candidates: list, unread: list[str], text: str, when: datetime, user: str) -> tuple[list, str | None]:
    """``candidates`` with the note kept for what no rule read (``unread``, or the dated notes the
    rules made of ``text``) filed as this module reads it: a dated
    note of the whole text for a happening, a standing note of the whole text for a convention or
    a fact, nothing for an aside on what was read; and why nothing is kept when nothing is
    (:func:`nothing_to_keep`'s reason), else None. ``ov remember`` and ``ov refile`` both file
    what no rule reads here, so a note refile moves is what remember would make of its words today."""
    if unread and asks_for_now(text) or thinks_aloud(text):
        return [], FOR_NOW  # ("run go test ./... and paste me the failures": whatever a rule read in its "run go test")
    read = [c for c in candidates if c.memory_type != "events"]
    dated = [c for c in candidates if c.memory_type == "events"]
    why_not = None if read or not (dated or unread) else nothing_to_keep(text)
    if why_not in (CHATTER, FOR_NOW):
        # "Ugh, this build is so slow today", "refactor this function to ...": chatter or a task for
        # now as a whole, whatever happening a part of it tells; kept, it would be recalled later.
        return [], why_not
    # A part leaning on what was read, naming nothing ("I find them much easier to read"), or one
    # that keeps nothing ("thanks!"), adds nothing to it.
    parts = [p for p in unread if not (read and (nothing_to_keep(p) or points_back(p) and not names_anything(p) and not _THING_RE.search(p)))]
    if not parts and not dated:
        return candidates, None
    if not parts:
        # The rules' own dated notes ("Remember that X" where X is none of theirs): each is kept
        # as what it reads as.
        kept: list = []
        for note in dated:
            said = text if len(dated) == 1 and not read else re.sub(r"^\s*-\s+", "", str(note.fields.get("content", "")))
            kind = kind_of(said)
            if kind == HAPPENING:
                kept.append(note)
            elif kind is not None:
                kept.extend(standing_note(said, kind, when=when, user=user))
            elif not read and len(dated) == 1:
                return [], nothing_to_keep(said) or FOR_NOW
        return [*read, *kept], None
    kinds = [kind_of(p) for p in parts]
    if HAPPENING in kinds or happened(text):
        kind = HAPPENING
    elif all(k is None for k in kinds):
        if read:
            return read, None
        return [], nothing_to_keep(text) or next((nothing_to_keep(p) for p in parts if nothing_to_keep(p)), FOR_NOW)
    else:
        whole = kind_of(text)
        kind = whole if whole not in (None, HAPPENING) else next(k for k in kinds if k is not None)
    return [*read, *standing_note(text, kind, when=when, user=user)], None


# A thing named by a common noun ("the bastion", "a VPN"): a part naming one says something of its own.
_THING_RE = re.compile(r"(?i)\b(?:the|a|an)\s+(?!(?:same|one|other|rest|way|thing|things)\b)[\w-]{3,}")


def names_anything(text: str) -> bool:
    """Whether ``text`` holds a name, a figure or code: a word with a capital (the first word's
    and "I" aside), a digit, a path's or code's mark."""
    words = text.split()
    return any(re.search(r"[\d`/_@:]", w) or (i and w[:1].isupper() and not re.match(r"I(?:'|\u2019|$)", w)) for i, w in enumerate(words))


def kind_of(text: str) -> str | None:
    """What kind of note a text no rule read is (see the module's doc): :data:`HAPPENING`,
    :data:`CONVENTION`, :data:`USER_FACT` or :data:`THING_FACT`; None for nothing to keep."""
    said = _plain(text)
    if not said:
        return None
    if nothing_to_keep(said) is not None:
        return None
    if casual.a_saying(said):
        return HAPPENING  # ("Done is better than perfect": a saying, no thing's fact nor a rule; review rev20)
    if switched(said) is not None:
        return USER_FACT
    if happened(said):
        return HAPPENING
    if _convention(said):
        return CONVENTION
    if _first_person(said):
        return USER_FACT
    if _subject(said) is not None:
        return THING_FACT
    return HAPPENING  # a text with no cue at all: as it was kept before, a note of the day it was said


def _first_person(said: str) -> bool:
    """Whether ``said`` is said of the user: "I", "my" (not "my boss": whose_rule.someones), or another
    language's, in a text not in English whose verb is not one in English ("Ben uses Emacs" is Ben's)."""
    if someones(said):
        return False
    return bool(_FIRST_PERSON_RE.match(said)) or their_first_person(said)


def nothing_to_keep(text: str) -> str | None:
    """Why ``text`` keeps nothing: :data:`QUESTION`, :data:`FOR_NOW` (a task for now or thinking
    aloud) or :data:`CHATTER`; None when it may state something (see the module's doc)."""
    said = _plain(text)
    if not said or requests.asks(text) or requests.asks(said):
        return QUESTION
    if moment.chatter(text) or moment.chatter(said):
        return CHATTER  # (as typed too: "Thanks, that worked great!" is chatter, its "Thanks," read off by _plain)
    # (a stated time makes a task a reminder, kept as a dated note: "rerun the nightly job on Thursday")
    return FOR_NOW if moment.aloud(text) or moment.task_for_now(said) else None


def thinks_aloud(text: str) -> bool:
    """Whether ``text``, its lead-in read off, opens on thinking aloud (:func:`ov.sessions.memory.moment.thinks_aloud`)."""
    return moment.thinks_aloud(_plain(text))


def asks_for_now(text: str) -> bool:
    """Whether ``text``, its lead-in read off, is a task for now as a whole (:func:`ov.sessions.memory.moment.asks_for_now`)."""
    return moment.asks_for_now(_plain(text))


def happened(text: str) -> bool:
    """Whether ``text`` tells of a happening: a stated time, an act in the past, a state that passes."""
    said = _plain(text)
    if WHEN_RE.search(said) or passing_remark(said) or passes_with_the_moment(said):
        return True
    if _NEWS_RE.match(said):
        return True  # "the bug is in auth.py": where today's bug is, news of the day
    if guessed(said) or complains(said) or reported(said):
        return True  # "the tests should pass now", "the deploy always takes forever": a guess or a complaint of the day
    if _NEEDS_NOW_RE.search(said) or (_PROGRESSIVE_RE.search(said) and not _STATE_PROGRESSIVE_RE.search(said)) or (DATE_RE.search(said) and not english(said)):
        return True  # "the docs need fixing", "저는 버그를 고치고 있어요", "Hier, nous avons ...": of a day
    if any(_COPULA_BEFORE_RE.search(said[: state.start()]) for state in PASSING_STATE_RE.finditer(said)) and not MODAL_RE.search(said):
        return True  # "staging is down": how it is today ("must never be down" is a rule)
    return in_past(said)


# What is news whatever is said of it: a bug, an incident, a gathering ("the team offsite is in Porto").
_NEWS_RE = re.compile(
    rf"(?i)^(?:the|this|that|our|a|an)\s+(?:[\w-]+\s+)?(?:{TROUBLE}|offsite|"
    r"meeting|standup|stand-up|retro|retrospective|demo|launch|deadline|conference|workshop|party|interview|kickoff|hackathon|all-hands|"
    r"dinner|lunch|trip|visit)s?\b"
)
# A value said of where the team works: "max line length in our repo is 100".
_OURS_RE = re.compile(r"(?i)^(?:the\s+)?(?P<k>[a-z][\w -]{2,40}?)\s+(?:in|for|on|of)\s+(?:our|this)\s+(?:repo|repository|project|codebase|team)\s+"
                      r"(?:is|are)\s+(?P<v>[^,;]{1,40})$")
# What a passing state is said after ("staging is down", "the tests are still flaky"; not "clean up the files").
_COPULA_BEFORE_RE = re.compile(r"(?i)\b(?:is|are|'s|'re|was|were|been|seems?|looks?|got|went|keeps?\s+being)\s+"
                               r"(?:(?:still|now|currently|completely|totally|all|really|so|very|super|kinda|a\s+bit|again|not)\s+)*$")
# A need of the moment ("the docs need fixing"), and the progressive of other languages ("I'm fixing").
_NEEDS_NOW_RE = re.compile(r"(?i)\bneeds?\s+(?:\w+ing|work|attention|love|a\s+(?:cleanup|look|fix|refactor))\b")
_PROGRESSIVE_RE = re.compile(r"고\s*있|ています|ている|正在|(?i:\b(?:estoy|estou|sto|stiamo|estamos)\s+\w+(?:ando|endo|iendo)\b|\ben\s+train\s+de\b)")
# ... but for the verbs of a standing state, which other languages say in the progressive as English says
# "I'm working as": working somewhere or as something, living somewhere, using a thing ("개발자로 일하고
# 있어요", "東京に住んでいます", "Vimを使っています", "estoy trabajando como").
_STATE_PROGRESSIVE_RE = re.compile(
    r"(?:일하|근무하|살|사용하|쓰|다니)고\s*있|(?:働い|勤めて|住ん|使っ|勤務し)て?(?:い|お)|在\S{0,4}(?:工作|上班|住)|"
    r"(?i:\b(?:estoy|estou|estamos)\s+(?:trabajando|trabalhando|viviendo|morando|usando|utilizando)\b)"
)


def switched(text: str) -> tuple[str, str] | None:
    """(old, new) of a switch said in ``text`` ("ditched iterm2 for ghostty": ("iterm2", "ghostty")), or None."""
    match = _SWITCH_RE.match(_plain(text))
    old = match and (match.group("a") or match.group("b") or match.group("c"))
    if match is None or WHEN_RE.search(text) or _NOT_A_VALUE_RE.match(match.group("new")) or _NOT_A_VALUE_RE.match(old):
        return None
    return old, match.group("new")


def standing_note(text: str, kind: str, *, when: datetime, user: str) -> list[Candidate]:
    """The note ``text`` makes as a memory of ``kind`` (:func:`kind_of`'s, not None)."""
    line = tx.capitalise(tx.absolute_dates(tx.clean(text), when))
    if kind == HAPPENING:
        return [Candidate("events", {"event": topics.event_name(text), "content": f"- {line}"}, ["remember"])]
    # What holds is kept without the lead that corrected it ("No, the default branch is main"), which
    # says nothing later; a dated note keeps the words as they were said.
    line = tx.capitalise(re.sub(CORRECTION_LEAD, "", line, flags=re.IGNORECASE))
    if kind == CONVENTION:
        # (another language's "we" not in an English imperative: "Ping me on Slack if CI fails" has no French "on")
        theirs = not english(text) and not moment.imperative(_plain(text)) and _THEIR_WE_RE.search(text)
        team = bool(_TEAM_RE.search(text) or theirs) and not _first_person(text)
        said = f"{line} (team convention)" if team else line
        topic = topics.slug(re.sub(r"(?i)^(?:please\s+|no\s+)", "", text), fallback="note")
        statement = Statement("preferences", "", said, ("preferences", topic), {"subject": user, "topic": topic}, sources=["remember"])
        return [candidate_of(statement)]
    swap = switched(text)
    probes = _value_probes(line)
    if kind == USER_FACT or (kind == THING_FACT and _subject(text) is None):
        statement = Statement("profile", "", line, ("profile", "fact", line.lower()), {}, sources=["remember"], swap=swap, probes=probes)
        return [candidate_of(statement)]
    ours = _OURS_RE.match(_plain(text))
    team_value = ours and project_fact(f"our {ours.group('k')} is {ours.group('v')}", lambda said: said, user, corrected=False)
    if team_value is not None and team_value.memory_type == "profile":
        team_value.sources = ["remember"]
        return [candidate_of(team_value)]  # "max line length in our repo is 100": the team's value, as "our max line length is 100"
    statement = entity_fact(_subject(text) or "", line)
    statement.sources, statement.swap, statement.probes = ["remember"], swap, probes
    return [candidate_of(statement)]


def _value_probes(line: str) -> tuple[str, ...]:
    """The stored line ``line`` takes the place of: the one giving the same attribute another value.

    A subject given a value the same way (notes.value_of's frame) has one line: "The default branch is
    master" then "... is main", "Atlas is deployed on Kubernetes" then "... on ECS", "The staging DB is at
    ..." (a place or a time). A named thing said to be something ("Atlas is our ML platform", "The API is
    rate limited to 100 rpm") is described, not given the value of one attribute: a second description
    is a second fact of it, kept beside the first (review rev21 #1). So a plain "is" replaces only
    where the subject is itself the attribute (no name: "default branch", "on-call rotation") and what
    it is given is a value (a few words, no participle: "main", "weekly")."""
    value = value_of(line)
    if value is None or value.frame == "changes to":
        return ()
    if value.frame == "is":
        subject = re.sub(r"(?i)^(?:the|our|my|your)\s+", "", value.head.rsplit(None, 1)[0])
        if re.search(r"[A-Z0-9]", subject) or len(value.value.split()) > 3 or re.match(r"(?i)(?:a|an)\s|\w+(?:ed|ing)\b", value.value):
            return ()
    return (value.head,)


def _plain(text: str) -> str:
    """What ``text`` says, on one line, for its cues: without the punctuation at its ends, its
    lead-in ("FYI", "Heads up:", "Quick context:") and a correction's ("Actually,", "Scratch that,")."""
    said = opening(tx.clean(" ".join(text.split()))).body
    corrected = re.match(CORRECTION_LEAD, said, re.IGNORECASE)
    said = said[corrected.end() :] if corrected else said
    return tx.clean(_INTERJECTION_RE.sub("", _LABEL_RE.sub("", said)))


# A sigh or a thanks before a statement ("Thanks to Bob, the staging DB runs on port 5433").
_INTERJECTION_RE = re.compile(r"(?i)^(?:ugh+|sigh|thanks|thank\s+you|ok(?:ay)?|so|well|alright)(?:\s+to\s+\w+)?\s*[,!.:-]\s*(?=\S)")


# A label before what is said: "Quick context: ", "Side note - ".
_LABEL_RE = re.compile(r"^(?:[A-Za-z]+(?:\s+[A-Za-z]+){0,2})\s*(?::|\s[\u2013\u2014-])\s+(?=\S)")


def _convention(said: str) -> bool:
    if moment.imperative(said) and moment.standing_imperative(said):
        return True
    if _NO_PLEASE_RE.match(said) or (MODAL_RE.search(said) or QUANTIFIED_RE.match(said)) and a_rule(said):
        return True
    # where it holds, said of a practice, not of a value ("max line length in our repo is 100")
    return bool(_WHERE_RE.search(said)) and bool(_TEAM_RE.search(said)) and not re.search(r"(?i)\b(?:is|are)\b", said)


def _subject(text: str) -> str | None:
    """The thing a fact about a thing is about (:func:`~ov.sessions.memory.statement_parts.subject_of`);
    None for one said of the user."""
    said = _plain(text)
    # (another language's words are no English subject and verb: "Mon collègue utilise toujours Emacs" has
    # no subject "Mon collègue utilise", its "toujours" read as a verb; no card is named after its first words)
    subject = None if _first_person(said) or in_another_language(said) else subject_of(said)
    # A plural alone (its verb a plural's: "Cats need Vitamin D"; not "Atlas runs") or after a quantifier
    # ("Most tests use Mocks") names no one thing, unless things of the work ("PRs need ..."): no card (review rev20).
    verb = [w for w in said[len(subject) :].split() if w.lower() not in ADVERBS][:1] if subject and said.startswith(subject) else []
    ours = re.match(r"(?i)^our\s+(?P<k>[\w-]+)\s+(?:is|are)\s+(?P<v>[^,;]+)$", said)
    if ours and re.search(r"\d|(?-i:[A-Z])", ours["v"]) and not a_value_of_the_work(ours["k"], ours["v"]):
        return None  # ("Our son is 3", "Our dog is Max": no thing of the work's, a note as a_value_of_the_work says)
    if subject and (re.match(r"(?i)(?:most|many|some|few|several|both|other|lots\s+of)\s", subject)
                    or (" " not in subject and verb and not verb[0].lower().endswith("s") and subject.lower().endswith("s")
                        and not a_thing_of_the_work(subject))):
        return None
    return subject
