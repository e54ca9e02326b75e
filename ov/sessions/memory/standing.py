"""What stands and what passes: telling a fact about the user from a remark of the moment.

The rules of :mod:`ov.sessions.memory.rules` read "my manager is X", "I like X", "I always X"
by their shape; this module says when the X of such a shape is no standing fact: a state that
passes ("my build is green", "my manager is out this week", "my current ticket is PROJ-123", "my
laptop is at the office", "I'm on call", "I'm working on the parser", "I left my keys at home"), something on the table in this
conversation ("I like your suggestion", "I prefer option B", "I'm a fan of your work", "I prefer
we go with option 2"), something shown or pointed at ("my code is below", "I always get confused
by this API", "I love how fast this is") or a stretch of time that passes ("I work on the
frontend this sprint"), a sigh ("I'm such an idiot"), a sentence that takes itself back ("I
prefer tabs - said no one ever", "..., I guess"), an answer with nothing of its own ("I think
so"), or a description where a name was expected ("my team is US-based"). A word that points
back is a name's when a capital says so ("US politics", "This Is Us").
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import LOWER, UPPER
from ov.sessions.memory.text import THIS_PROJECT
from ov.sessions.memory.verbs import is_past

# "my K is Y" (rules reads it; passing_remark asks whether Y only passes).
MY_RE = re.compile(r"^my\s+(?P<k>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are)\s+(?P<y>.+)$", re.IGNORECASE)
# A state that passes ("the staging DB is down", "my team is blocked") is news, not a standing fact:
# the one notion of it, for "remember that" facts and "my K is ..." alike. A word of its own:
# "back-end" is no state.
PASSING_STATE_RE = re.compile(
    r"(?i)(?<![\w-])(?:down|up|broken|flaky|slow|failing|offline|unavailable|unreachable|fixed|back|blocked|stuck|ooo|afk|wfh|"
    r"empty|missing|gone|stale|outdated|corrupt|corrupted|truncated|garbled)(?![\w-])"
)
# What else a value starts or ends with when it says how a thing is doing today, not what it is:
# "out this week", "due tomorrow", "2 weeks late", "#1234" (a PR's number), and where work in
# progress sits: "in the stash", "on the feature branch" (not "on the third floor").
_PASSING_LEAD_RE = re.compile(
    r"(?i)^(?:(?:still|now|currently|all|just|so|completely|totally|finally)\s+)*(?:(?:out|due|late|overdue|behind|done|ready|"
    r"pending|waiting|merged|ok|okay|tbd|asap|n/a)\b|#\d|(?:in|on)\s+(?:the|my|a|an|this|that|another)\s+(?:[\w-]+\s+){0,2}"
    r"(?:stash|branch|queue|backlog|review|pr|pull\s+request|sprint|works|way|pipeline|worktree|clipboard|draft)s?\b)"
)
_PASSING_TAIL_RE = re.compile(r"(?i)\b(?:late|overdue|behind)$")
# A piece of work in progress: which one the user is on passes with the task ("my current ticket is
# PROJ-123", "my branch is feature/login"), unless it is the one they keep ("my default branch is main").
_WORK_ITEM_RE = re.compile(
    r"(?i)\b(?:ticket|task|issue|bug|story|branch|pr|pull\s+request|merge\s+request|mr|commit|card|todo|to-do|assignment|"
    r"blocker|incident|deadline|errand)s?$"
)
STANDING_KEYS = frozenset(("home", "default", "usual", "preferred", "main"))
# Things one carries about, whose place changes by the day: "my laptop is at the office", "my keys are in the car".
_CARRIED_RE = re.compile(
    r"(?i)\b(?:laptop|macbook|phone|iphone|keys|wallet|bag|backpack|charger|headphones|earbuds|airpods|badge|umbrella|jacket|"
    r"coat|glasses|passport|car|bike|tablet|ipad|yubikey|package|parcel|delivery)$"
)
_WHERE_RE = re.compile(
    r"(?i)^(?:(?:still|now|back|currently)\s+)*(?:(?:at|in|on|under|inside|by)\s+(?:the|my|a|an|our|his|her|their|home|work|school)\b|"
    r"(?:with|home|left|somewhere|here|there)\b)"
)
# Green and red are a check's result for what is checked ("my build is green"), a colour for anything else.
_CHECKED_KEY_RE = re.compile(r"(?i)\b(?:build|ci|pipeline|tests?|checks?|suite|pr|branch|deploy)s?$")
_COLOUR_LEAD_RE = re.compile(r"(?i)^(?:(?:still|now|all)\s+)*(?:green|red)\b")
# Keys whose value names a pursuit, which a verb in -ing does: "my hobby is painting".
_PURSUIT_KEY_RE = re.compile(r"(?i)\b(?:favou?rite|hobby|hobbies|passion|pastime|interests?|sport|job|role|specialty|speciality)\b")
# A verb in -ing leading a value: "failing with a timeout", "showing weird characters" (not "thing").
_PROGRESSIVE_RE = re.compile(
    r"^(?:(?:still|now|currently|just|constantly|always)\s+)*(?!(?:thing|string|spring|morning|evening|ceiling|sibling|wedding|"
    r"pudding|building|meeting|setting|king|ring|wing|nothing|something)s?\b)[a-z]{2,}ing\b"
)
# A title's words state nothing: "Bring It Back" is no state, and its "It" points at nothing.
_TITLE_WORD_RE = re.compile(rf"\b{UPPER}{LOWER}[\w'-]*")
# What a name may hold besides capitalised words: particles ("Ludwig van Beethoven", "Bank of America",
# "Johnson & Johnson") and numbers ("Atlas 2", "v2"). A status is no name ("OOO", "OK", "TBD").
_NAME_PARTICLES = frozenset(("de", "van", "von", "der", "den", "da", "di", "del", "du", "la", "le", "of", "the", "&", "and", "y", "bin"))
# The particles of places' names between their capitalised parts: "Newcastle upon Tyne", "Frankfurt am
# Main", "Boulogne-sur-Mer", "Stratford-upon-Avon", "Weston-super-Mare". Written apart, one needs a
# capitalised word on each side that is no day or month ("Berlin on Monday" says when); joined by
# hyphens, these and a few more ("Ashton-under-Lyne", "Stoke-by-Nayland") are one name.
_PLACE_PARTICLES = frozenset(("upon", "on", "am", "im", "an", "sur", "sous", "en", "les", "lès", "aux", "au", "op", "ter", "ten", "zum", "zur", "vor", "ob", "bei",
                              "dos", "das", "do", "della", "dello", "dei", "degli", "des", "los", "las"))
_JOINED_PARTICLES = _PLACE_PARTICLES | _NAME_PARTICLES | frozenset(("in", "under", "by", "super", "next", "sub", "lez"))
TIME_WORD_RE = re.compile(r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|august|september"
                           r"|october|november|december")
_STATUS_ABBREVIATIONS = frozenset(("ooo", "ok", "okay", "wfh", "afk", "pto", "tbd", "tba", "asap", "n/a", "eta", "eod", "fyi", "wip", "brb", "ooto"))
# Objects that name something on the table in this conversation: "your suggestion", "option B",
# "the second approach", "the above", "... right now". Liking one is a reply, not a standing taste
# ("your answers short" still says how the user wants answers). "its packaging", "their docs":
# what it belongs to was said in another clause.
_ON_THE_TABLE_RE = re.compile(
    r"(?i)^(?:(?:your|the|this|that)\s+(?:(?:first|second|third|last|previous|other|new|original|latest|earlier|current|"
    r"updated|revised|proposed|suggested|alternative)\s+)?(?:suggestion|idea|answer|approach|proposal|solution|version|"
    r"option|draft|plan|response|reply|explanation|fix|change|edit|rewrite|one)s?|"
    r"(?:the\s+)?(?:option|choice|approach|alternative|variant|plan|version)\s+(?:[a-d]|\d+)|the\s+(?:above|former|latter))$"
    r"|\b(?:right\s+now|at\s+the\s+moment|for\s+the\s+moment)$|^(?:its|their)\b"
    # the assistant's own work or manner, liked as such: a compliment ("your work", "how you explain it")
    r"|^your\s+(?:[\w'-]+\s+)?(?:work|style|help|code|writing|tone|enthusiasm|patience|attitude|effort|thinking|reasoning|"
    r"analysis|feedback|review|summary|summaries|output|take|ideas?|answers?|explanations?|suggestions?|responses?|replies|"
    r"solutions?|approach(?:es)?|changes|edits?|fix(?:es)?)(?:\s+(?:a\s+lot|so\s+much|very\s+much|too|better|more))?$"
    r"|^(?:how|what|the\s+way)\s+you\b"
    # a proposal for what to do now: "I prefer we go with option 2 / this", "... that we ship on Friday"; not a
    # convention of the team's ("I prefer we keep PRs small", "... we use Postgres for new services")
    r"|^(?:that\s+|if\s+)?(?-i:we|us|let's|let\s+us)\s+(?:go|stick|roll|run|move\s+forward)\s+with\b"
    r"|^(?:that\s+|if\s+)?(?-i:we|us|let's|let\s+us)\b.*\bon\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|\b(?:option|choice|approach|alternative)\s+(?:[a-d]|\d+)\b"
)
# "I'm such an idiot", "I'm so dumb": a sigh at oneself, not a profile fact.
_SELF_DEPRECATING_RE = re.compile(
    r"(?i)^(?:(?:I\s+am|I'm|Im)\s+)?(?:(?:an?|such|so|total|complete|absolute|real|right|utter|big|huge|really|just)\s+)*"
    r"(?:idiot|moron|dummy|fool|dumbass|dunce|klutz|numpty|muppet|clown|doofus|dork|noob|loser|dumb|stupid|useless|hopeless)\b"
)


def of_the_moment(text: str) -> bool:
    """Whether ``text`` (a liked thing, a value, a habit's object) is of this conversation or of a
    time that passes: it points at something shown ("below", "above", "here", "this API", "how fast
    this is") or names a stretch that ends ("this sprint", "today", "right now"; "for now" says
    how long a standing value holds); "in this repo" names where the user works, which a standing
    preference may be scoped to. Only the statement's own clause is read, not the reason given
    after it: "typer over click — we moved all our CLIs to typer last month" stands."""
    if _CONTRAST_RE.search(text):
        return True
    text = own_clause(text)
    if _MOMENT_RE.search(text):
        return True
    # As typed: a capital makes a word a title's ("I love This Is Us"), which points at nothing.
    words = [w.strip(".,;:!?()\"'") for w in text.split()]
    for i, word in enumerate(words):
        after = words[i + 1].lower() if i + 1 < len(words) else ""
        if word == "here" or (word in _SHOWN and (not after or after in _NOT_NOUNS)):
            return True  # "my code is below", not "my office is above the bakery"
        if word in ("this", "these") and after != "days" and not _scoped(after, words[i:]):
            return True
    return False


def _scoped(after: str, words: list[str]) -> bool:
    """Whether "this" before ``after`` names where the user works: "this repo's CI", "this git repo"."""
    return after.removesuffix("'s") in SCOPES or re.match(THIS_PROJECT, " ".join(words), re.IGNORECASE) is not None


# A contrast with what was just said ("I don't want a 10 minute leeway though, 30 seconds is plenty",
# "..., however."): an answer to a proposal in the conversation, about the task at hand. Not "even
# though" or "although", which open a concession of the statement's own.
_CONTRAST_RE = re.compile(r"(?i)(?<!even\s)\b(?:though|however)\s*(?=[,.;:!?)\u2013\u2014-]|$)")


# Where a reason or an aside after a statement starts: a dash, a semicolon, a word that gives a
# cause ("since npm broke our lockfile last time"); "as of" and "since when" date the statement.
_REASON_RE = re.compile(
    r"(?i)\s*(?:[\u2013\u2014;]|\s-\s)\s*|[\s,(]+(?:because|since(?!\s+when\b)|as(?!\s+(?:of|long|well|much|many|soon|far)\b)"
    r"|cause|'cause|cos|given\s+that|now\s+that|ever\s+since|seeing\s+(?:as|that))\s+(?=\S)"
)
# After a comma, a clause of its own in the past tense gives a reason: ", npm broke our lockfile
# last week", ", we moved all our CLIs to typer last month".
# The subject is one or two words ("we", "the team"), the verb the next.
_CLAUSE_AFTER_COMMA_RE = re.compile(r",\s+[\w'-]+\s+(?P<second>[\w'-]+)(?:\s+(?P<third>[\w'-]+))?")


def own_clause(text: str) -> str:
    """``text`` up to a reason or an aside given after it (see :data:`_REASON_RE`)."""
    reason = _REASON_RE.search(text)
    if reason is not None and reason.start() > 0:
        text = text[: reason.start()]
    for comma in _CLAUSE_AFTER_COMMA_RE.finditer(text):
        if any(word and is_past(word) for word in (comma.group("second"), comma.group("third"))):
            return text[: comma.start()]
    return text


# What is shown in the conversation: "the error above", "my code is below".
_SHOWN = frozenset(("below", "above", "attached", "following"))
# What "this" may name that a standing preference is scoped to: where the user works.
SCOPES = frozenset((
    "repo", "repos", "repository", "repositories", "project", "projects", "codebase", "codebases", "monorepo", "team", "company",
    "org", "organization", "organisation", "workspace", "machine", "laptop", "computer", "house", "household",
))
# Stretches of time that end: a statement of one is news, not a standing fact.
_MOMENT_RE = re.compile(
    r"(?i)\b(?:(?:this|next|last)\s+(?:sprint|week|weekend|month|quarter|morning|afternoon|evening|session|iteration|cycle|"
    r"release|time|round)|today|tonight|right\s+now|at\s+the\s+moment|for\s+(?:the\s+moment|today))\b"
)
# A sentence that takes itself back at its end: sarcasm ("- said no one ever", "... NOT!", "/s",
# "just kidding"); or that is hedged there (", I guess", ", I believe", ", maybe"), as one that
# opens with "I think" is (text.clauses): not the user's word either way.
_SARCASM = r"said\s+no\s*(?:one|body)\s+ever|not\s*!|jk|j/k|just\s+kidding|kidding|/s|as\s+if|yeah\s+right"
_HEDGE = r"I\s+(?:guess|think|suppose|believe)|maybe|probably|perhaps|or\s+not|(?:I'm\s+)?not\s+sure"
_TAKEN_BACK_RE = re.compile(rf"(?i)(?:[\s,;:\u2013\u2014-]+(?:{_SARCASM}|{_HEDGE}))[\s.!?)]*$")


# A sentence that only takes back the one before it: "I love meetings. NOT!", "... Just kidding."
_TAKING_BACK_RE = re.compile(r"(?i)^(?:not|jk|j/k|just\s+kidding|kidding|/s|yeah\s+right|as\s+if|said\s+no\s*(?:one|body)\s+ever)[\s.!?)]*$")


def taken_back(sentence: str, following: str = "") -> bool:
    """Whether ``sentence`` takes back what it says at its end ("I prefer tabs - said no one ever"),
    hedges it there ("my editor is Vim, I think", "..., I believe"), or the sentence ``following``
    it takes it back ("I love meetings... NOT!")."""
    return bool(_TAKEN_BACK_RE.search(sentence) or _TAKING_BACK_RE.match(following.strip()))


def points_back(text: str) -> bool:
    """Whether ``text`` leans on what was said before it for its meaning ("I need the VPN for it",
    "never use print here", "never do that again"); not "in this repo", where "this" names a thing,
    nor a name's word ("This Is Us", "It Follows", "US politics": :func:`names_something`)."""
    typed = [w.strip(".,;:!?") for w in text.split()]
    words = [w.lower() for w in typed]
    return any(
        (w in _PRONOUNS or (w in _DEMONSTRATIVES and (i + 1 == len(words) or words[i + 1] in _NOT_NOUNS))) and not names_something(typed, i)
        for i, w in enumerate(words)
    )


def names_something(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` (as typed) is a word of a name rather than a pronoun pointing back: an
    acronym ("US politics", "IT support"; not when every word is in capitals, which is shouting:
    "I LOVE IT") or a word of a title, capitalised beside another capitalised word ("This Is Us",
    "It Follows", "Us Weekly"). A capitalised word alone opens a sentence as often ("It works")."""
    word = words[i]
    if len(word) > 1 and word.isalpha() and word.isupper():
        return not all(w.isupper() for w in words if any(c.isalpha() for c in w))
    if not word[:1].isupper():
        return False
    return any(0 <= j < len(words) and words[j][:1].isupper() and words[j].lower() != "i" for j in (i - 1, i + 1))


_PRONOUNS = frozenset(("it", "them", "here", "there"))
_DEMONSTRATIVES = frozenset(("this", "that", "these", "those"))
# Words after "this" or "that" that make it a pronoun ("do that again", "how fast this is"), not a determiner.
_NOT_NOUNS = frozenset([
    "again", "too", "also", "either", "as", "for", "with", "to", "in", "on", "at", "please", "anymore",
    "is", "was", "are", "were", "does", "did", "looks", "feels", "seems", "works", "runs", "has",
])


def passing_value(key: str, value: str) -> bool:
    """Whether "my ``key`` is ``value``" tells how a thing is doing now rather than what it is:
    "my test is failing with a timeout", "my build is green", "my PR is #1234", "my manager is out";
    which piece of work the user is on ("my current ticket is PROJ-123"; not "my default branch is
    main"), or where a thing they carry is ("my laptop is at the office"; not "my laptop is a Mac")."""
    if _WORK_ITEM_RE.search(key) and key.split()[0] not in STANDING_KEYS:
        return True
    if _CARRIED_RE.search(key) and _WHERE_RE.match(value):
        return True
    said = _TITLE_WORD_RE.sub("", value).strip()
    if PASSING_STATE_RE.search(said) or _PASSING_TAIL_RE.search(said) or points_back(said) or of_the_moment(said):
        return True
    if _COLOUR_LEAD_RE.match(value) and _CHECKED_KEY_RE.search(key):
        return True
    return bool(_PASSING_LEAD_RE.match(value)) or (not _PURSUIT_KEY_RE.search(key) and bool(_PROGRESSIVE_RE.match(value)))


def passing_remark(clause: str) -> bool:
    """Whether ``clause`` is a remark of the moment that only sounds like a fact about the user:
    "my build is green", "my manager is out this week", "I'm such an idiot", "I'm on call", "I'm
    working on PROJ-123", "I left my laptop at the office"."""
    mine = MY_RE.match(clause)
    if self_deprecating(clause) or (bool(mine) and passing_value(" ".join(mine.group("k").lower().split()), mine.group("y"))):
        return True
    return bool(_SELF_NOW_RE.match(clause)) or happened(clause)


# How the user is or what they are doing now, said in the first person: a state that lasts a day or a
# task, not who they are. Being unwell, busy, away or out; on call, on leave, on a break; at a place
# named by a common noun ("at the dentist", "at home"; "at Google" may be an employer); in a meeting
# or a vehicle; doing something ("working on PROJ-123", "debugging the parser"): a verb in -ing that
# is no standing use or role ("I'm using Zed", "I'm running Arch", "I'm leading the platform team")
# nor a pursuit of months ("I'm learning Rust", "I'm training for a marathon", "I'm mentoring two juniors").
# So is a feeling ("I'm glad ...", "I'm so happy for you", "I'm proud of ...") and a readiness or an
# intent ("I'm happy to help", "I'm ready to ...", "I'm gonna ...", "I'm about to ..."): whatever follows,
# it says how the user is now, never who they are.
_SELF_NOW_RE = re.compile(
    r"(?i)^(?:I'm|I\s+am|Im)\s+(?:(?:still|currently|just|so|really|very|pretty|kinda|a\s+bit|totally|feeling|now|super|"
    r"always|also|not|too|quite|all|(?-i:[a-z]+ly))\s+)*(?:"
    r"(?:sick|ill|unwell|busy|tired|exhausted|sleepy|swamped|slammed|overloaded|free|available|unavailable|away|off|out|offline|"
    r"afk|ooo|wfh|late|behind|stuck|blocked|hungover|jet-?lagged|back|home|heading|on\s+my\s+way|(?:not\s+)?sure|unsure|undecided|"
    r"confused|lost"
    r"|glad|happy|excited|thrilled|stoked|pumped|proud|grateful|thankful|sorry|pleased|delighted|relieved|nervous|anxious|"
    r"scared|worried|upset|sad|bummed|frustrated|annoyed|angry|bored|tempted|honou?red|lucky|blessed|impressed|inspired|"
    r"amazed|surprised|shocked|ready|willing|eager|determined|gonna|gotta|wanna|(?:about|keen|supposed)\s+to"
    r")\b(?![\w-])"
    r"|on[\s-]call\b|on\s+(?:(?:a|my|the|parental|sick|medical|annual|paternity|maternity)\s+)?(?:vacation|holidays?|leave|pto|"
    r"break|lunch|call|phone|train|plane|bus|flight|sabbatical)\b"
    r"|at\s+(?:home|work|lunch|school|(?:a|an|the|my)\s+(?-i:[a-z])[\w-]+\b)"
    r"|in\s+(?:a|an|the)\s+(?:[\w-]+\s+)?(?:meeting|call|standup|hurry|rush|car|train|cab|taxi|queue|line|middle|hospital|"
    r"office|airport|lab|interview)s?\b"
    r"|(?!(?:using|running|rocking|coding|programming|developing|writing|living|leading|managing|maintaining|owning|teaching|"
    r"learning|studying|training|practi[cs]ing|mentoring|coaching|volunteering|freelancing|consulting|interning|contributing|"
    r"majoring|researching|going\s+by)\b|working\s+(?!on\b))(?-i:[a-z]){2,}ing\b(?<!\bthing)(?<!\bnothing)(?<!\bsomething))"
)
# First-person past tenses that tell of a life, lasting, rather than of a happening of the day:
# "I grew up in Porto", "I studied physics", "I switched to Emacs", "I was a teacher".
_LASTING_PAST = frozenset((
    "born", "raised", "grew", "studied", "graduated", "majored", "trained", "learned", "learnt", "worked", "lived", "taught",
    "used", "spent", "started", "began", "moved", "relocated", "switched", "migrated", "changed", "joined", "quit", "stopped",
    "became", "was", "were", "got",
))
_FIRST_PAST_RE = re.compile(r"(?i)^I(?:'ve|\s+have)?\s+(?P<rest>.+)$")


def happened(clause: str) -> bool:
    """Whether a first-person ``clause`` tells of something that happened, a note of its day rather
    than a fact about the user: "I left my laptop at the office", "I just deployed the billing
    service", "I've lost my keys"; not "I grew up in Porto", "I've used Vim for ten years"."""
    match = _FIRST_PAST_RE.match(clause)
    words = [w for w in (match.group("rest").split() if match else []) if not (w.lower().endswith("ly") or w.lower() in _SOON)]
    return bool(words) and is_past(words[0]) and words[0].lower() not in _LASTING_PAST


_SOON = frozenset(("just", "finally", "already", "also", "accidentally", "once", "even", "only", "still"))


# The words of an answer that states nothing: a hedge or an auxiliary and a pro-form ("I think so",
# "I guess", "I hope not", "I'm not sure", "I do too").
_NO_CONTENT = frozenset((
    "i", "i'm", "im", "i've", "i'd", "i'll", "think", "guess", "hope", "suppose", "believe", "expect", "reckon", "imagine",
    "doubt", "know", "see", "agree", "disagree", "understand", "mean", "bet", "assume", "presume", "fear", "feel", "do", "don't",
    "dont", "did", "didn't", "am", "will", "won't", "can", "can't", "cannot", "would", "wouldn't", "could", "couldn't", "should",
    "shouldn't", "have", "haven't", "so", "not", "too", "either", "neither", "yes", "no", "maybe", "perhaps", "probably",
    "really", "also", "still", "just", "as", "much", "well", "sure", "certain", "positive", "ok", "okay", "though", "it", "that", "this",
    # what agrees with what was said and adds nothing ("I know, right", "I see, exactly")
    "right", "exactly", "indeed", "totally", "absolutely", "definitely", "true", "of", "course",
))


def says_nothing(clause: str) -> bool:
    """Whether a first-person ``clause`` is an answer or a hedge with nothing in it to keep: "I
    think so", "I guess", "I hope not", "I suppose so", "I'm not sure", "I do too"."""
    words = [w.strip(".,;:!?\"'()").lower().replace("\u2019", "'") for w in clause.split()]
    return bool(words) and words[0] in ("i", "i'm", "im", "i've", "i'd", "i'll") and all(w in _NO_CONTENT for w in words if w)


def self_deprecating(text: str) -> bool:
    """"I'm such an idiot", "a total moron", "so dumb": what the user calls themself in a sigh."""
    return bool(_SELF_DEPRECATING_RE.match(text))


def on_the_table(obj: str) -> bool:
    """Whether a liked or preferred ``obj`` is something in this conversation ("your suggestion",
    "option B", "not to discuss it right now", "its packaging") rather than a standing taste."""
    return bool(_ON_THE_TABLE_RE.search(obj))


def looks_like_name(value: str) -> bool:
    """Whether ``value`` names someone or something: "Dana Lee", "Bank of America", "Atlas 2",
    "Newcastle upon Tyne", "Stratford-upon-Avon"; not "OOO until Monday", "2 weeks late",
    "GitHub-hosted", "US-based"."""
    words = [w for w in (w.strip(".,;:!?\"'()") for w in value.split()) if w]
    if not any(c.isupper() for w in words for c in w):
        return False
    for i, word in enumerate(words):
        if word.lower() in _STATUS_ABBREVIATIONS:
            return False
        if word.lower() in _NAME_PARTICLES:
            continue
        following = next((w for w in words[i + 1 :] if w.lower() not in _NAME_PARTICLES), "")  # ("an der Saale")
        if word.lower() in _PLACE_PARTICLES and i and following[:1].isupper() and not TIME_WORD_RE.fullmatch(following):
            continue  # "Newcastle upon Tyne"
        if not (word[0].isupper() or any(c.isdigit() for c in word)):
            return False  # a lowercase word of content: "with the delay", "until Monday"
        parts = word.split("-")
        for j, part in enumerate(parts[1:], start=1):
            joined = part.lower() in _JOINED_PARTICLES and parts[j + 1 : j + 2] != [] and parts[j + 1][:1].isupper()
            if part.isalpha() and part.islower() and not joined:
                return False  # "GitHub-hosted", "AI-first", "Auth0-based": a description; not "Stratford-upon-Avon"
    return True


# What a thing does wrong, said with "always" or "never", in English or in another language: a
# complaint of how things go ("The deploy always takes forever", "Tests always fail on CI", "This never
# works", "Nunca funciona"), never how to work (review rev21 #3, #4).
_COMPLAINT_RE = re.compile(
    r"(?i)\b(?:always|never|siempre|nunca|toujours|jamais|immer|nie|sempre|altijd|nooit|zawsze|nigdy|alltid|aldri|aldrig)\s+(?:\w+\s+)?"
    r"(?:fail|break|crash|hang|times?\s+out|take|flake|error|go\s+down|goes\s+down|happen|die|works?\b|stall|choke|blows?\s+up|freeze|get\s+stuck|"
    r"gets?\s+stuck|funciona|funktioniert|fonctionne|marche|werkt|działa|falla|falha|casse|kaputt|rompe|quebra)\w*"
)


def complains(said: str) -> bool:
    """Whether ``said`` tells what a thing always or never does wrong (see _COMPLAINT_RE), or only what
    it always or never does (:func:`only_what_it_does`)."""
    return bool(_COMPLAINT_RE.search(said)) or only_what_it_does(said)


def only_what_it_does(said: str) -> bool:
    """Whether ``said`` is only "always" or "never" and a verb of the third person, in any language:
    "Never compiles", "Always hangs", "Nunca compila", "Kompiliert nie", "Plante toujours". It tells
    what a thing left unsaid does; an instruction says what to do ("Never squash", "Always rebase":
    English's base form) and a habit of ours says who ("Usamos siempre tabs")."""
    from ov.sessions.memory.foreign import HABIT_RE, first_person_verb  # (foreign reads complaints here)

    words = [w.strip(".,!") for w in said.split()]
    if len(words) != 2 or not all(w.isalpha() and w[1:].islower() for w in words):
        return False
    first, second = words
    if first.lower() in ("always", "never"):
        return second.lower().endswith("s") and not second.lower().endswith("ss")
    return any(HABIT_RE.fullmatch(habit) and not first_person_verb(verb) for habit, verb in ((first, second), (second, first)))
