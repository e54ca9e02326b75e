"""Instructions and wishes asked to be remembered: how the user wants the work done.

"Don't use tabs in this repo", "When you write tests, use pytest", "Ask me before adding any new
dependency", "I'd rather have small pull requests": a preference in the user's words, under the
topic of what it instructs (:mod:`ov.sessions.memory.facts` reads them in a text asked to be
remembered; in a session, task instructions are too many to keep).
"""

from __future__ import annotations

import re

from ov.sessions.memory import moment, topics
from ov.sessions.memory import text as tx
from ov.sessions.memory.rules import INSTRUCTION_VERBS, convention, points_back, topical
from ov.sessions.memory.standing import of_the_moment, only_what_it_does
from ov.sessions.memory.statement import Statement, informative

# Whose coming act or which thing in view a condition names when it is one moment, not a kind of
# situation: the team's ("if we move CI to Buildkite"), or what the conversation points at ("if that fails").
_ONE_MOMENT = r"(?:we|we're|we've|our|us|it|it's|that|this|these|those|they|they're)\b"
# What an explicit ``ov remember`` of an instruction says: "Don't use tabs", "Please use pytest".
_INSTRUCTION_RE = re.compile(
    # "When you write tests, use pytest": an instruction for whenever the task comes up, so a standing one
    # ("when you get a chance", "when you're done" name a moment of this task, not a kind of task);
    # after such a lead any verb of the work instructs ("whenever you touch the schema, add a migration").
    # So is a lead of a kind of situation ("if the tests fail", "when in doubt"), not of one the user's
    # team will meet once or the conversation points at (:data:`_ONE_MOMENT`).
    rf"^(?P<when>(?:when(?:ever)?|if)\s+(?:you(?:'re|\s+are)?\s+|(?!{_ONE_MOMENT}))(?!(?:get|have|find)\s+(?:a\s+)?(?:chance|time|minute|moment|sec)|"
    r"(?:can|done|finished|ready|back|free)\b|finish|get\s+back)[^,]{3,80},\s*)?(?:please\s+)?(?:(?P<neg>don't|dont|do\s+not|never|avoid|(?(when)no|(?!)))|"
    rf"(?P<pos>always|use|prefer|keep|write|run|name|put|(?(when)(?:{INSTRUCTION_VERBS})|(?!))))\s+"
    r"(?P<x>(?!mind\b).+)$",
    re.IGNORECASE,
)
# An imperative of the work that says when or to what it applies in general ("ask me before adding
# any new dependency", "add type hints to new functions"), as a one-off task does not ("update the docs").
# Not a thing in view ("add all the files", "create a new branch", "fix it before Friday"), nor a set
# there is now, done once ("update all dependencies": "all" sweeps what exists, "any" and "every" what may come).
_GENERAL_IMPERATIVE_RE = re.compile(
    rf"^(?:please\s+)?(?P<x>(?:{INSTRUCTION_VERBS})\s+(?:.+\s)?(?:any|every|each|whenever|"
    r"(?<!\ba\s)(?<!\bthe\s)new|(?:before|after)(?=\s+\w+ing\b))\s.+)$",
    re.IGNORECASE,
)
_DAY_RE = re.compile(r"(?i)\b(?:today|tomorrow|tonight|yesterday|\d{4}-\d{2}-\d{2})\b")
# A reason after an instruction is no part of it: "use double quotes, it matches prettier's default".
_REASON_RE = re.compile(r"(?i)\s*,\s*(?:it|it's|that's|this|which|since|as|because|so)\b.*$")
# "If we move CI to Buildkite, update the docs": a step for one thing that may happen, no standing
# instruction (one for a kind of task, "when you write tests, use pytest", is read by the rules) and
# no note of something that happened either: nothing to keep, not even as the text's dated note.
# What the agent is asked to do for the user besides the work: "remind me to ...", "let me know", "ping Bob".
_ASKING_VERBS = "remind|tell|ping|notify|let|warn|alert|email|message|send|mention|flag"
# A condition of a kind of situation ("if the tests fail, check the fixtures first") is a standing
# instruction (_INSTRUCTION_RE); asking to be told stays a step for that moment whatever the condition.
_CONDITION = r"(?:if|when|whenever|once|unless|in\s+case|as\s+soon\s+as)\s+(?!you\b)[^,]{3,80},\s*(?:then\s+)?(?:please\s+)?"
CONDITIONAL_STEP_RE = re.compile(
    rf"(?i)^(?:(?=(?:once|unless|in\s+case|as\s+soon\s+as)\s|(?:if|when|whenever)\s+{_ONE_MOMENT}){_CONDITION}"
    rf"(?:don't|do\s+not|never|always|(?:{INSTRUCTION_VERBS})\b)|{_CONDITION}(?:{_ASKING_VERBS})\b)"
)
# A step for a kind of situation: "if the tests fail, check the fixtures first", "when in doubt, ask me".
STANDING_STEP_RE = re.compile(
    rf"(?i)^(?=(?:when(?:ever)?|if)\s+(?!{_ONE_MOMENT})){_CONDITION}(?:don't|do\s+not|never|always|avoid|(?:{INSTRUCTION_VERBS})\b)"
)
# "I'd rather have small PRs", "I'd prefer that you use British spelling", "I'd like explanations with
# the math written out": a wish, which in a session is as often about the task at hand, so only when
# asked to remember it. (Not a goal: "I'd like to learn Rust" is the user's.)
_RATHER_RE = re.compile(
    r"^I(?:'d|\s+would)\s+(?:much\s+|really\s+)?(?:(?P<verb>rather|prefer)\s+|(?P<like>like|love|appreciate)\s+(?!to\s|it\b|that\b|this\b))(?P<x>.+)$",
    re.IGNORECASE,
)
# "When you write Rust for me: no unwrap()", "When you write q for me I'd like ...": the condition of a
# way of working, said to the agent, ended by a colon or by nothing, is ended by a comma (as "When you
# write tests, use pytest" ends it), so that what it conditions is read as an instruction or a wish.
_CONDITION_END_RE = re.compile(
    r"(?i)^(?P<c>(?:when(?:ever)?|if)\s+you(?:'re|\s+are)?\s+[^,:;.!?]{3,80}?)"
    r"(?:\s*:\s*|\s+(?=(?:I'd|I\s+would|I\s+want|I\s+prefer|please|always|never|don't|dont|do\s+not|avoid|no)\s))(?=\S)"
)


# "I'm colorblind so avoid red and green in charts", "i only code on weekends so explain things like I'm
# a beginner": the user's fact, then the way of working it calls for, an imperative after "so".
_SO_ASKED_RE = re.compile(r"(?i)^(?P<fact>(?:I|I'm|I've|I\s+am|my|we|we're|our)\s.+?)(?:,\s*|\s+)(?:and\s+)?so\s+(?P<asked>\S.+)$")


def reasons_apart(clauses: list[str]) -> list[str]:
    """``clauses``, each that is a fact and, after "so", a standing imperative it calls for (see
    :data:`_SO_ASKED_RE`) said as the two: ["I'm colorblind", "avoid red and green in charts"]."""
    out = []
    for clause in clauses:
        said = _SO_ASKED_RE.match(clause.strip())
        asked = said is not None and moment.imperative(said.group("asked")) and moment.standing_imperative(said.group("asked"))
        out.extend([said.group("fact"), said.group("asked")] if asked else [clause])
    return out


def condition_ended(text: str) -> str:
    """``text`` with a condition said to the agent ended by a comma (see :data:`_CONDITION_END_RE`);
    before quotes are masked, since what follows its colon is the user's, not words quoted."""
    return _CONDITION_END_RE.sub(lambda m: f"{m.group('c')}, ", text)


# A verb of doing (not of choosing or keeping, as "use", "prefer", "keep" are) instructs for good only
# as an imperative that stands (moment.standing_imperative: "write commit messages in the imperative
# mood", "write the frontend tests with Jest"); about a thing in view it is a task for now ("run the
# tests", "name the file utils.py"): a dated note when asked to remember it.
_DOING_VERBS = frozenset(("write", "run", "name", "put"))


def instruction(body: str, restore, subject: str) -> Statement | None:
    """An instruction asked to be remembered ("Don't use tabs in this repo") is a preference, in the
    user's words, without a reason said after it; so is any imperative of the work said to hold in
    general ("Ask me before adding any new dependency")."""
    body = _REASON_RE.sub("", body)
    match = _INSTRUCTION_RE.match(body)
    if match and not match.group("when") and (match.group("pos") or "").lower() in _DOING_VERBS and not moment.standing_imperative(body):
        match = None  # "run the tests": a task for now, unless said to hold in general (below)
    # (read as typed: "ask me ..." masks what follows as words reported, which an imperative's are not)
    general = None if match else _GENERAL_IMPERATIVE_RE.match(restore(body))
    if not match and not general and moment.imperative(body) and moment.said_how(body):
        general = re.match(r"(?i)^(?:please\s+)?(?P<x>.+)$", restore(body))  # "explain things like I'm a beginner": how every answer is given
    if general and (of_the_moment(general.group("x")) or _DAY_RE.search(general.group("x"))):
        general = None  # "check the logs before deploying tomorrow": a task for a day, a dated note
    told = match or general
    if not told or not informative(told.group("x")) or points_back(told.group("x")):
        return None  # "never mind", "don't do that again"
    if only_what_it_does(body):
        return None  # "Never compiles", "Always hangs": what a thing does, no instruction
    said = tx.capitalise(restore(re.sub(r"(?i)^please\s+", "", body)))
    negative = bool(match and match.group("neg"))
    if general:
        core = general.group("x")
    else:
        # The file is named for the instruction, not for when it applies ("use pytest", not "when you write").
        instructed = restore(re.sub(r"(?i)^please\s+", "", body[match.end("when") :] if match.group("when") else body))
        core = restore(match.group("x")) if negative or match.group("pos").lower() == "always" else instructed
    core = core[:1].lower() + core[1:]
    core = core.split(" \u2014 ")[0]  # what it bars, without what to do instead (with_alternatives): that is what a later one contradicts
    if negative:
        probes: tuple[str, ...] = (f"Always {core}", tx.capitalise(core))
    else:
        probes = (f"Never {core}", f"Don't {core}", f"Do not {core}", f"Avoid {core}")
    topic = topics.slug(core)
    return Statement("preferences", "", said, ("preferences", topic), {"subject": subject, "topic": topic}, probes=probes)


# "Don't use ruff format anymore", "stop using black", "no longer add type hints": a standing
# instruction taken back, said outright (not "don't use ruff format here": a task's; nor "stop
# running the tests", which stops what is being done).
_REVERSAL_RE = re.compile(
    rf"(?i)^(?:please\s+)?(?:(?:stop|quit)\s+(?P<ing>using)\s+(?P<a>.+?)|no\s+longer\s+(?P<v>{INSTRUCTION_VERBS})\s+(?P<b>.+?)|"
    rf"(?:don't|dont|do\s+not)\s+(?P<w>{INSTRUCTION_VERBS})\s+(?P<c>.+?)\s+any\s?more)(?:,?\s+(?:{tx.COURTESY}))?$"
)


def reversal(body: str, restore, subject: str) -> Statement | None:
    """An instruction taken back ("Don't use ruff format anymore", "Stop using black") as the
    instruction it now is ("Don't use ruff format"), which replaces the standing one to do it
    ("Use ruff format", "Always use ruff format") and ends every stored line choosing it
    (:mod:`ov.sessions.memory.rivals`: an instruction to use it elsewhere, "Prefers ruff format")."""
    match = _REVERSAL_RE.match(_REASON_RE.sub("", body))
    if match is None:
        return None
    verb = match.group("v") or match.group("w")
    if match.group("ing"):
        verb = "use"
    what = restore(match.group("a") or match.group("b") or match.group("c"))
    if verb is None or not informative(what) or points_back(what) or of_the_moment(what):
        return None
    statement = instruction(f"Don't {verb.lower()} {what}", restore, subject)
    if statement is not None and verb.lower() == "use":
        statement.ends = what
    return statement


def is_reversal(clause: str) -> bool:
    """Whether ``clause`` takes back an instruction outright (see :func:`reversal`), read as
    :func:`reversal` reads it: its reason apart ("Don't use black anymore, it's too slow")."""
    return _REVERSAL_RE.match(_REASON_RE.sub("", clause)) is not None


# The condition a wish holds on, said to the agent: "When you write q for me, I'd like ...".
_WISH_CONDITION_RE = re.compile(r"(?i)^(?:when(?:ever)?|if)\s+you\b[^,]{3,80},\s*(?=I)")


def wish(body: str, restore, subject: str) -> Statement | None:
    condition = _WISH_CONDITION_RE.match(body)
    match = _RATHER_RE.match(body[condition.end() :] if condition else body)
    if match and condition and informative(match.group("x")):
        # kept whole, in the user's words (the condition is part of the way of working), under what is wished
        topic = topics.slug(restore(match.group("x")))
        return Statement("preferences", "", tx.capitalise(restore(body)), ("preferences", topic), {"subject": subject, "topic": topic})
    if match and (agreed := convention(restore(match.group("x")), subject)):
        return agreed  # "I'd rather we squash commits": the team's way of working
    # What follows "that you" must say something: "I'd prefer that you use British spelling".
    if not match or not informative(re.sub(r"(?i)^(?:that\s+)?(?:you\s+)?", "", match.group("x"))):
        return None
    return topical(f"Would {(match.group('verb') or match.group('like')).lower()} ", restore(match.group("x")), subject)


# "Never push directly to main; open a PR": what to do instead, after a semicolon, goes on with what
# the instruction bars; it is no task of its own (and no reason to keep the text as a dated note too).
_BARS_RE = re.compile(r"(?i)^(?:please\s+)?(?:never|don't|dont|do\s+not|avoid)\s.*;$")
_INSTEAD_RE = re.compile(rf"(?i)^(?:(?:instead|rather)\s*,?\s+)?(?:please\s+)?(?:{INSTRUCTION_VERBS})\s+\S")


def with_alternatives(sentences: list[str]) -> list[str]:
    """``sentences`` with the alternative an instruction offers after a semicolon said as one with
    it ("Never push directly to main;" and "open a PR." -> "Never push directly to main \u2014 open a PR.")."""
    out: list[str] = []
    for sentence in sentences:
        if out and _BARS_RE.match(out[-1]) and _INSTEAD_RE.match(sentence):
            out[-1] = f"{out[-1][:-1]} \u2014 {sentence}"  # a dash, not "; ": merge reads "; " as two statements
        else:
            out.append(sentence)
    return out


# "We decided: refactors never rename public functions", "we agreed that PRs need two reviews": a
# rule the team set itself, which the agent follows as it does an instruction (not a fact of the
# user's profile, "Team decided: ..."). What it rules: a kind of thing that always, never, must or
# should do something, or a way of working ("we decided we squash commits": rules.convention).
_DECIDED_RE = re.compile(r"(?i)^we(?:'ve|\s+have)?\s+(?:all\s+)?(?:decided|agreed|settled\s+on)(?:\s+that)?\s*[:,]?\s+(?P<x>\S.+)$")
_RULED_RE = re.compile(
    r"(?i)^(?:(?:all|every|each|no|our|the)\s+)?(?P<what>[\w-]+(?:\s+[\w-]+){0,3}?)\s+(?:always|never|must|should|shall|"
    r"must\s+not|mustn't|should\s+not|shouldn't|don't|do\s+not|need\s+to|needs\s+to|have\s+to|has\s+to)\s+\S"
)


# A rule said as a fact, with no "we decided" before it: what every one of a kind of thing must do or
# have ("every PR needs two approvals", "each migration requires a rollback script", "all commits must
# be signed"), or what things of a kind must do, said in the plural ("PRs must be rebased before merging",
# "release branches should never be force-pushed"): a quantifier or a modal of obligation makes it one
# (not "PRs are slow today", "the tests need fixing", "things need to change").
_STATED_RULE_RE = re.compile(
    r"(?i)^(?:(?:all|every|each|no|any)\s+(?P<what>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:always\s+|never\s+)?(?:must|should|shall|needs?|requires?|"
    r"has\s+to|have\s+to|gets?|goes|go)|(?P<kind>[\w-]+(?:\s+[\w-]+){0,2}?s)\s+(?:always\s+|never\s+)?(?:must|should|shall|"
    r"have\s+to|are\s+required\s+to))(?:\s+not|n't)?\s+(?!(?:fixing|looking|work|help|attention)\b)\S"
)


def team_rule(body: str, restore, subject: str) -> Statement | None:
    """"We decided: refactors never rename public functions" -> preferences/{user}/refactors.md:
    "Refactors never rename public functions (team convention)"; None for a decision of the moment
    ("we decided to ship on Friday", "we decided: option 2"). So is a rule said as a fact ("Every
    PR needs two approvals": :data:`_STATED_RULE_RE`)."""
    match = _DECIDED_RE.match(body)
    if match is None:
        return _stated_rule(body, restore, subject)
    if agreed := convention(restore(match.group("x")), subject):
        return agreed
    ruled = _RULED_RE.match(match.group("x"))
    rule = restore(match.group("x")).rstrip(".!")
    if ruled is None or not informative(rule) or points_back(ruled.group("what")) or of_the_moment(rule) or _DAY_RE.search(rule):
        return None
    topic = topics.slug(restore(ruled.group("what")))
    return Statement("preferences", "", f"{tx.capitalise(rule)} (team convention)", ("preferences", topic), {"subject": subject, "topic": topic})


# A way of working said as a fact of where it holds, with no "we" and no modal: "Commit messages
# follow Conventional Commits in this repo", "PRs need two approvals here", "in this project, releases
# get a changelog entry". Things of a kind (a plural) do, in the present, what the work does with them;
# the place makes it the house's rule, not a description of some of them ("PRs need two approvals"
# alone may be one PR's state; "the PRs here are slow" says how they go).
# ("around here", "over here" say a moment or a spot as often: "Users start complaining around here")
_HERE = rf"(?:(?<!around\s)(?<!over\s)here|in\s+{tx.THIS_PROJECT}|on\s+(?:this|our|the)\s+team|at\s+(?:this|our)\s+company)"
# How things go is no rule of the house: "Tests run slowly here", "Meetings start late here", "Things go
# wrong here" (a convention says what is done, used or needed: "Branch names start with the ticket key").
_HOW_IT_GOES = (r"(?!\s+(?:[\w-]+ly|late|early|wrong|right|bad|well|fast|slow|long|quick|smooth|stale|flaky|away|off|down|out|"
                r"missing|broken|crazy|[\w-]+ing)\b)")
_HOUSE_RULE_RE = re.compile(
    r"(?i)^(?P<kind>(?!(?:the|these|those|my|your|some|they|we|you)\b)[\w-]+(?:\s+[\w-]+){0,2}?s)\s+(?:always\s+)?"
    rf"(?:follow|use|need|require|get|target|include|reference|mention|link|carry|(?:go|start|end|stay|live|run){_HOW_IT_GOES}|"
    rf"are\s+(?:squash(?:ed)?|rebased|reviewed|signed|prefixed|named|written|tagged|merged|kept|released|deployed)(?:[\s-]merged)?)\s+\S.*?\s+{_HERE}[.!]*$"
)


def _stated_rule(body: str, restore, subject: str) -> Statement | None:
    """"Every PR needs two approvals" -> preferences/{user}/pr.md: "Every PR needs two approvals
    (team convention)"; None for anything else, and for a rule of one moment ("every test must pass
    today", "all of these need to go")."""
    ruled = _STATED_RULE_RE.match(body) or _HOUSE_RULE_RE.match(body)
    rule = restore(body).rstrip(".!")
    # (the house's "here" is where the rule holds, not a thing shown: standing.of_the_moment)
    if ruled is None or not informative(rule) or of_the_moment(re.sub(rf"(?i)\s+{_HERE}$", "", rule)) or _DAY_RE.search(rule):
        return None
    what = restore(ruled.groupdict().get("what") or ruled.group("kind"))
    if points_back(what) or what.split()[0].lower() in ("of", "the", "these", "those", "this", "that", "my", "your", "it", "we", "you", "they"):
        return None
    topic = topics.slug(what)
    return Statement("preferences", "", f"{tx.capitalise(rule)} (team convention)", ("preferences", topic), {"subject": subject, "topic": topic})
