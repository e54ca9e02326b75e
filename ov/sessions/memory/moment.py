"""What a text asks of the moment: chatter, thinking aloud, a task for now; the one reading of each.

A memory is given to every later session, so it holds what stays true: preferences, decisions,
facts of the environment, fixes; never transient state (what users of memory tools ask for, see
docs/sessions.md). Three kinds of text are of the moment however they are given to ``ov remember``,
and keep nothing when no rule reads a statement in them. This module is where each is read, for
:mod:`ov.sessions.memory.standing_note` (what no rule reads) and :mod:`ov.sessions.remember` alike:

- **chatter** (:func:`chatter`): an acknowledgement, a laugh, a thanks or a compliment alone ("ok
  cool", "sounds good", "lol nice catch"), an apology alone ("my bad"), "never mind", and a sigh or a
  thanks that goes on about the thing at hand ("Ugh, this build is so slow today", "Thanks, that
  worked great!"), with no figure nor cause in it: "Thanks, the staging DB moved to db2:5432" and
  "Ugh, the prod API key expires on 2027-01-31" state something to keep;
- **thinking aloud** (:func:`thinks_aloud`, :func:`aloud`): a hesitation, a guess or a look to come
  ("hmm", "maybe the race is in the DMA callback", "I wonder if it's the cache; let me check", "let me
  think about it", "give me a sec", "not sure yet"), and a guess about the work at hand said with "I
  think" ("I think the bug is in the parser": session extraction ignores every "I think"): what the
  look finds is what would be worth keeping. "I think in Go" is the user's way, read by the rules;
- **a task for now** (:func:`task_for_now`): an imperative of the work with nothing that makes it
  standing ("refactor this function to use a list comprehension", "run the tests and fix whatever
  fails", "bump the version and tag the release"). It was a prompt for the agent, sent to the wrong
  place; as a dated note it would be recalled in every later session as if it were still to do.
  What makes an imperative standing is said in it (:func:`standing_imperative`): "always", "never",
  "from now on", "every time", "in this repo", a condition ("when", "whenever", "unless"), a kind of
  thing and where or how ("Log all errors to Sentry"), a practice's verb said of no thing at hand
  ("Put the tests next to the code"); a stated time makes it a reminder ("renew the cert on
  Friday"), kept as a dated note (:data:`WHEN_RE`).
"""

from __future__ import annotations

import re

from ov.sessions.memory.casual import apology
from ov.sessions.memory.statement_parts import PLURAL_VERBS, words
from ov.sessions.memory.verbs import INSTRUCTION_VERBS

# Fillers a text of the moment opens on before what it says.
_FILLER = r"(?:(?:ok|okay|alright|right|so|now|hmm*|mm+|um+|uh+|erm|well|then|next|and|also|please|pls|plz|quickly|just)[\s,.!]+)*"

# --- A stated time ---------------------------------------------------------------------------

# A stated time: a day said relative to today, a date, a month's day, a weekday (one, not "on Tuesdays"),
# a time ago. What is said of one time happened then, or will: a happening (standing_note), a reminder.
WHEN_RE = re.compile(
    r"(?i)\b(?:today|tonight|yesterday|tomorrow|this\s+(?:morning|afternoon|evening)|last\s+night|earlier\s+today|"
    r"(?:once|after|when)\s+we\s+\w+|(?:last|this|next|past)\s+(?:week|weekend|month|year|quarter|sprint|release|night|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday)|\d+\s+(?:minutes?|hours?|days?|weeks?|months?|years?)\s+ago|a\s+(?:while|week|month|year)\s+ago|"
    r"\d{4}-\d{2}-\d{2}|(?:at|by|until|from)\s+\d{1,2}(?::\d{2})?\s*(?:am|pm)?(?!\S*[.:]\d)|\d{1,2}:\d{2}(?!:?\d*[.\w])|\d{1,2}/\d{1,2}(?:/\d{2,4})?|"
    r"(?<!every\s)(?<!each\s)(?<!second\s)(?<!other\s)(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)(?!s)|"
    r"(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|may|june|july|august|september|october|"
    r"november|december)\.?\s+\d{1,2}(?:st|nd|rd|th)?\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"sept|oct|nov|dec)[a-z]*)\b"
)
# A deferral, which makes a task a reminder as a stated time does ("upgrade the cluster in March", "... once we migrate").
_DEFERRED_RE = re.compile(
    r"(?i)\b(?:eventually|sometime|someday|later\s+on|once|remember|note|january|february|march|april|june|july|august|september|"
    r"october|november|december)\b"
)


def reminder(said: str) -> bool:
    """Whether ``said``, a task, is put off to a stated time or a later one: a reminder, kept as a dated note."""
    return bool(WHEN_RE.search(said) or _DEFERRED_RE.search(said))


# --- Chatter ---------------------------------------------------------------------------------

# An acknowledgement, a laugh, a thanks or a compliment: what chatter opens on.
_ACK = (r"ok|okay|k|cool|nice|great|good|sure|yep|yes|yeah|nope|alright|right|perfect|awesome|fine|neat|sweet|wow|yay|omg|ah|oh|"
        r"lol|lmao|rofl|haha\w*|hehe\w*|thanks|thank\s+you|thx|ty|cheers|oops|whoops|ugh|got\s+it|sounds\s+good|makes\s+sense|"
        r"fair\s+enough|understood|noted|will\s+do|i\s+see|no\s+worries|all\s+good|good\s+(?:catch|call|point|job)|my\s+bad|sorry")
_ACK_RE = re.compile(rf"(?i)^(?:{_ACK})\b")
# The words chatter goes on with: more of the same, and a remark on the moment ("that was so dumb of me", "it works").
_CHATTER_WORDS = words(
    "lol lmao ok okay k that was this is it so dumb silly stupid of me nice catch good call great job point thanks thank you cool awesome "
    "wow oops whoops ugh yay haha yes yeah yep nope worked works perfect exactly right sorry my bad sure alright fine neat sweet got "
    "sounds makes sense fair enough understood noted will do ah oh i see no worries all omg cheers thx ty"
)
_NEVER_MIND_RE = re.compile(r"(?i)^(?:never\s*mind|nvm|forget\s+(?:it|that))\b")
# A sigh or a thanks that opens a text: what follows is how the moment went ("Ugh, this test is flaky
# again", "Thanks, that worked great!"), however it is said; "thanks to X" gives a cause.
_INTERJECTION_RE = re.compile(
    r"(?i)^(?:ugh+|argh+|sigh|meh|ffs|welp|phew|thanks|thank\s+you|thx|ty|cheers|lol|lmao|ha(?:ha)+|he(?:he)+)\b(?![\w'-]|\s+to\b)"
)
# What a remark of the moment goes on with after its sigh or thanks: the thing at hand ("this build",
# "that worked", "it broke"), pointed at rather than named. Fillers before it say nothing more.
_AT_HAND_RE = re.compile(rf"(?i)^(?:(?:{_ACK}|so)[\s,.!]+)*(?:this|that|these|those|it|it's|that's|this's)\b")
# A cause found is something to keep: "thanks, so that's why the build failed: the cache was stale".
_CAUSE_RE = re.compile(r"(?i)\b(?:why|because|caused|turns?\s+out|turned\s+out)\b|:\s*\S")


# A compliment on what was just done ("Nice work on the migration", "Great job with the tests"), or a
# "no" to the agent's guess ("Nope, that's not it", "No, not quite"): nothing of its own to keep.
_PRAISE_RE = re.compile(
    r"(?i)^(?:(?:really|very|super)\s+)?(?:nice|great|good|awesome|excellent|solid|amazing|cool|lovely|brilliant|neat)\s+"
    r"(?:work|job|one|catch|call|find|fix|stuff|effort|idea|point)\b(?!\s+(?:is|are|was|were)\b)"
)
_NOT_IT_RE = re.compile(r"(?i)^(?:no|nope|nah)[\s,.!]+(?:that's|that\s+is|it's|it\s+is)?\s*not\s+(?:it|quite|right|that|what\s+I\s+(?:meant|asked))\b[\s.!]*$")


def chatter(text: str) -> bool:
    """Whether ``text`` is chatter (see the module's doc): nothing of its own to keep."""
    said = " ".join(text.split()).strip()
    if apology(said) or _NEVER_MIND_RE.match(said) or _PRAISE_RE.match(said) or _NOT_IT_RE.match(said):
        return True
    if _ACK_RE.match(said) and all(w.strip(".,!;:").lower() in _CHATTER_WORDS for w in said.split()):
        return True
    opened = _INTERJECTION_RE.match(said)
    if not opened:
        return False
    rest = said[opened.end() :].lstrip(" ,.!;:-\u2014\u2013")
    return not rest or (bool(_AT_HAND_RE.match(rest)) and not any(c.isdigit() for c in rest) and not _CAUSE_RE.search(rest))


# --- Thinking aloud --------------------------------------------------------------------------

# A look to come: what the user will do about the moment ("let me check", "give me a sec", "I'll think about it").
_LOOK = (r"let\s+me\s+(?:think|check|see|look|try|figure|sleep|mull|get\s+back|dig|test|verify|confirm)|let's\s+see|let\s+us\s+see|"
         r"give\s+me\s+a\s+(?:sec|second|minute|moment|min)|one\s+(?:sec|second|moment|min)|brb|"
         r"I(?:'ll|\s+will|\s+need\s+to|\s+have\s+to|\s+want\s+to|'d\s+like\s+to)\s+(?:think|sleep|mull|check|look|get\s+back)|"
         r"will\s+(?:check|look|think)")
# The trouble of the work at hand, news whatever is said of it ("the bug is in auth.py"): what a guess is about.
TROUBLE = r"bug|issue|problem|error|crash|leak|regression|outage|incident|failure|culprit|cause|race|deadlock|flake|slowdown"
# A guess said with "I think" about the trouble at hand, what is pointed at or with a modal of doubt
# ("I think the bug is in the parser", "I think it's the cache", "I think the DB might be the bottleneck"):
# session extraction ignores every "I think"; not the user's ways ("I think in Go"), which the rules read.
_THINK_GUESS = (rf"I\s+(?:think|believe|reckon|feel\s+like)\s+(?:that\s+)?(?:maybe\b|(?:it|this|that)(?:'s|\s+(?:is|was|might|could|may|must))\b|"
                rf"(?:the|this|that|our)\s+(?:[\w.-]+\s+){{0,2}}(?:{TROUBLE})s?\b|\S+(?:\s+\S+){{0,3}}\s+(?:might|could|may)\s+be\b)")
# A hesitation, a guess or a look opening a text: thinking aloud, whatever a rule reads in it.
_HEDGE_RE = re.compile(
    rf"(?i)^{_FILLER}(?:hm+|hmm+|uh+|um+|erm|mm+|maybe|perhaps|probably|possibly|presumably|I\s+(?:wonder|guess|suspect|bet)|"
    r"(?:I'm\s+|I\s+am\s+|just\s+)?wondering|"
    rf"could\s+(?:it\s+)?be|might\s+be|it\s+(?:might|could|may)\s+be|not\s+sure|no\s+idea|{_THINK_GUESS}|{_LOOK})\b"
)
_LOOK_RE = re.compile(rf"(?i)\b(?:{_LOOK})\b")


def thinks_aloud(text: str) -> bool:
    """Whether ``text`` opens on a hesitation, a guess or a look to come ("hmm", "maybe", "I think
    the bug is ...", "let me check"): of the moment whatever a rule reads in it ("I guess the
    reconnect loop is the issue": "Guesses ..." is no memory); a hedge that only leads into what is
    said is read off first (leads.opening: "Not sure if it matters, but I'm colorblind" is the user's fact)."""
    from ov.sessions.memory.leads import opening

    return bool(_HEDGE_RE.match(opening(" ".join(text.split()).strip()).body))


def aloud(text: str) -> bool:
    """Whether ``text`` (read by no rule) is thinking aloud: it opens on it (:func:`thinks_aloud`),
    looks to come after a statement ("the race is in the DMA callback, let me check") or trails off
    ("the cache again..."). Broader than :func:`thinks_aloud` because a text the rules read keeps
    what they read however it ends ("my editor is Vim... for now")."""
    said = " ".join(text.split()).strip()
    return thinks_aloud(said) or bool(_LOOK_RE.search(said)) or said.endswith(("...", "\u2026"))


# --- A task for now --------------------------------------------------------------------------

# Verbs of one act, never of a practice said bare: "fix the login", "bump the version", "revert the merge".
_ONE_OFF = (
    r"fix|refactor|rename|implement|debug|clean|convert|rewrite|extract|simplify|find|investigate|generate|bump|revert|undo|redo|"
    r"rerun|re-run|finish|continue|try|look|help|translate|summari[sz]e|replace|paste|tag|release|give|tell|let|go|do|be|delete|add|"
    r"remove|edit|modify|touch|change|update|create|make|install|upgrade|open|close|call|break|split|read|review|answer|explain|"
    r"show|print|check|run|deploy|merge|push|commit|move|build|optimi[sz]e|inline|trim|shorten|tidy|polish|speed|benchmark|draft|"
    r"scaffold|setup|wire|tweak"
)
_ONE_OFF_RE = re.compile(rf"(?i)^(?:{_ONE_OFF})$")
# Verbs of a practice, said bare as a convention ("Avoid ORMs", "Default to UTC", "Prefix branches with the ticket").
_PRACTICE = (r"avoid|stick|default|favou?r|treat|follow|target|limit|cap|set|place|route|send|report|sign|prefix|suffix|group|order|"
             r"document|measure|profile|bundle|lock|freeze|vendor|pair|link|mention|reference|stay|never|always")
# An imperative's verb: the verbs of the work, those of one act, those of a practice.
_IMPERATIVE_RE = re.compile(rf"(?i)^{_FILLER}(?:please\s+|pls\s+|kindly\s+)?(?P<verb>{INSTRUCTION_VERBS}|{_ONE_OFF}|{_PRACTICE})\b(?P<rest>.*)$")
# A command for the moment: the thing at hand, the user to be shown something, now.
_FOR_NOW_RE = re.compile(r"(?i)\b(?:this|that|these|those|it|me|now|right\s+away|asap|here)\b")
_SHOW_ME_RE = re.compile(r"(?i)\b(?:paste|show|send|give|tell|print|list)\s+(?:me|us)\b")
# What makes an imperative standing rather than a step of the moment: how often, where, a condition,
# a choice against another, a kind of case or a language ("Bump the patch version for bug fixes",
# "Format the code with black, not autopep8", "Write commit messages in English").
STANDING_RE = re.compile(
    r"(?i)\b(?:always|never|every|each|any|whenever|when|if|unless|before|after|while|first|by\s+default|from\s+now\s+on|going\s+forward|"
    r"from\s+here\s+on|every\s+time|any\s*time|in\s+general|(?:don't|do\s+not)\b|"
    r"(?:in|on|for|across)\s+(?:this|our|the|every|all)\s+(?:[\w-]+\s+)?(?:repo|repos|repository|project|codebase|team|org|company|"
    r"service|services|app|apps)|rather\s+than|instead\s+of|over|not|,\s+not|"
    r"for\s+(?!(?:the|this|that|these|those|it|them|me|us|now|a|an|my|your|its|all|everything|him|her)\b)(?:[\w-]+\s+)?[\w-]+s|"
    r"in\s+(?:English|French|German|Spanish|Italian|Dutch|Polish|Portuguese|Japanese|Chinese|Korean|British\s+English|American\s+English))\b"
)
# A condition or a recurrence: what makes even something shown to the user a standing instruction.
_CONDITION_RE = re.compile(
    r"(?i)\b(?:always|never|every|each|whenever|when|if|unless|before|after|once|first|by\s+default|from\s+now\s+on|going\s+forward|any\s*time)\b"
)
# Joined steps ("bump the version and tag the release"): a sequence for now.
# (or a verb no list holds, by its shape: "and rerun the HIL tests", "then regenerate them")
_AND_THEN_RE = re.compile(rf"(?i)\b(?:(?:and|then|,)\s+(?:then\s+)?(?:{INSTRUCTION_VERBS}|{_ONE_OFF})\b|"
                          r"(?:and|then)\s+(?:then\s+)?[a-z]{3,}(?<!ly)\s+(?:the|this|that|these|those|it|them|all)\b)")
# A convention said as an imperative: a kind of thing ("all errors", "the tests", "the whole suite";
# not "the version", "this file", "it") and where or how, always ("to Sentry", "with buildx", "in CI",
# "next to the code"): "Log all errors to Sentry" is how to work for good, "Upgrade all packages" and
# "bump the version in pyproject.toml" a task (a chain of them, "... and run it", is one too).
_KIND_HOW_RE = re.compile(
    rf"(?i)^{_FILLER}(?:{INSTRUCTION_VERBS}|{_ONE_OFF}|{_PRACTICE})\s+(?:(?P<all>all\s+(?:the\s+)?|the\s+whole\s+|every\s+)|the\s+)"
    r"(?P<kind>[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:to|with|in|into|next\s+to|under|via|using|through|as)\s+(?!(?:it|this|that|them)\b)\S"
)


# An imperative of a verb no list holds, by its shape: a word in lower case (its first letter aside)
# that is no past, no third person and no adverb, then what a verb takes at once, a determiner or a
# pointer ("regenerate the protobuf bindings", "vendor this crate"), where a subject is followed by its
# verb ("Kafka handles the ...", "the build takes ...").
_ANY_VERB_RE = re.compile(
    rf"(?i)^{_FILLER}(?:please\s+|pls\s+|kindly\s+)?(?P<verb>(?-i:[A-Za-z][a-z]{{2,}}))"
    r"(?P<rest>\s+(?:the|this|that|these|those|my|our|all|every|it|them|some|any|each|both|me|us)\b.*)$"
)


def _a_verb(word: str) -> bool:
    """Whether ``word``, opening a sentence before a determiner, may be a verb's base form."""
    from ov.sessions.memory.standing import TIME_WORD_RE
    from ov.sessions.memory.statement_parts import NO_SUBJECT, PREPOSITIONS
    from ov.sessions.memory.verbs import is_past

    low = word.lower()
    return not (low in NO_SUBJECT or low in PREPOSITIONS or low in _NOT_VERBS or TIME_WORD_RE.fullmatch(low) or is_past(low)
                or low.endswith(("ly", "s")) or re.search(r"[aeiouy]\w*ing$", low))  # (a gerund: "ping", "bring" are verbs)


# Words opening a sentence before a determiner that are no verb: time, degree, quantity, sequence.
_NOT_VERBS = words("today tonight tomorrow yesterday now then also only even just both all not maybe perhaps sadly apparently "
                   "luckily btw fyi plus hence otherwise meanwhile besides during like unlike per via despite after before "
                   "since because until unless whether although though while here there once twice thanks")


def imperative(said: str) -> re.Match[str] | None:
    """The imperative ``said`` opens with (groups ``verb``, ``rest``), or None: a verb's word, not a
    name ("PIN 3 on ...", "BUILD is ...") nor a noun with its verb after it ("Test coverage is 80%",
    "Build caches live on ..."); a verb no list holds by its shape (:data:`_ANY_VERB_RE`)."""
    match = _IMPERATIVE_RE.match(said)
    if match is None:
        shaped = _ANY_VERB_RE.match(said)
        match = shaped if shaped and _a_verb(shaped.group("verb")) else None
    if match is None or (len(match.group("verb")) > 1 and match.group("verb").isupper()):
        return None
    after = match.group("rest").split()[:3]
    if after and (after[0][:1].isdigit() or any(w.lower() in ("is", "are", "was", "were", "has", "have") for w in after)
                  or len(after) > 1 and after[0].lower().endswith("s") and after[1].lower() in PLURAL_VERBS):
        return None
    return match


def a_convention(said: str) -> bool:
    """Whether ``said``, an imperative, is a convention on a kind of thing (see _KIND_HOW_RE)."""
    kind = _KIND_HOW_RE.match(said)
    if kind is None or _AND_THEN_RE.search(said):
        return False
    head = kind.group("kind").split()[-1].lower()
    return bool(kind.group("all")) or (head.endswith("s") and not head.endswith("ss"))


# The manner of every answer: how to explain, write or answer, whatever the case ("explain things like
# I'm a beginner", "answer briefly", "write it up in plain English", "walk me through it step by step").
_MANNER_RE = re.compile(
    r"(?i)\b(?:like\s+(?:I'm|Im|I\s+am|I\s+was|I\s+were|I've|I\s+have|you're\s+talking\s+to)\b|as\s+(?:if|though)\s+(?:I|I'm)\b|"
    r"briefly|concisely|succinctly|tersely|in\s+(?:plain|simple|layman's|laymans?|everyday|short)\b|step\s+by\s+step|"
    r"without\s+(?:the\s+)?(?:jargon|fluff|filler)|in\s+(?:one|a\s+few|two|three)\s+(?:sentences?|lines?|paragraphs?|words))"
)


def said_how(said: str) -> bool:
    """Whether ``said``, an imperative, says the manner of every answer ("explain things like I'm a
    beginner", "answer briefly"), pointing at nothing at hand (not "explain this briefly")."""
    told = imperative(said)
    rest = told.group("rest") if told else ""
    return bool(_MANNER_RE.search(rest)) and not _FOR_NOW_RE.search(re.sub(r"(?i)\blike\s+\S+", "", rest))


def standing_imperative(said: str) -> bool:
    """Whether an imperative says how to work for good: a word that makes it standing (:data:`STANDING_RE`),
    a kind of thing and where or how (:func:`a_convention`), or a practice's verb with nothing pointing
    at the moment ("Put the tests next to the code"); never one showing the user something, nor "now"."""
    if re.search(r"(?i)\bnow\b", said):
        return False
    if _SHOW_ME_RE.search(said):
        # (shown to the user for good only on a condition or a time that recurs: "Show me the diff before
        # you commit", "Tell me when you're unsure", "Give me the short answer first"; review rev21 #12)
        return bool(_CONDITION_RE.search(said))
    if STANDING_RE.search(said) or a_convention(said):
        return True
    told = imperative(said)
    if told is None:
        return False
    if re.match(r"(?i)\s*(?:a|an)\s", told.group("rest")):
        return False  # "create a new branch": one thing, made once
    if said_how(said):
        return True
    # (a verb no list holds is one of an act, as those of _ONE_OFF: "regenerate the bindings")
    return not _FOR_NOW_RE.search(told.group("rest")) and not _AND_THEN_RE.search(told.group("rest")) \
        and not _ONE_OFF_RE.match(told.group("verb")) and bool(_IMPERATIVE_RE.match(said))


def task_for_now(said: str) -> bool:
    """Whether ``said`` is a task for now: an imperative, not standing, not put off (:func:`reminder`), not asked."""
    return imperative(said) is not None and not standing_imperative(said) and not reminder(said) and not said.rstrip().endswith("?")


def asks_for_now(said: str) -> bool:
    """Whether ``said`` as a whole is a task for now whatever a rule reads in a part of it: an
    imperative that has something shown to the user or goes on to another step ("run go test
    ./... with -race and paste me the failures")."""
    told = imperative(said)
    return bool(told) and bool(_SHOW_ME_RE.search(said) or _AND_THEN_RE.search(told.group("rest"))) and not STANDING_RE.search(said)


def of_the_moment(text: str) -> bool:
    """Whether ``text`` (read by no rule) is chatter, thinking aloud or a task for now, which keeps nothing."""
    said = " ".join(text.split()).strip()
    return chatter(said) or aloud(said) or task_for_now(said)
