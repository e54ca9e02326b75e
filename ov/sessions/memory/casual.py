"""What casual typing leaves out, put back before the rules read a message.

The rules read "I'm based in Lisbon" and "my shell is fish"; a user typing fast writes "im based in
lisbon", "Shell's fish, terminal is WezTerm" or "bullet points > paragraphs". The words are the
same statements with their apostrophes, their "my" or their verb dropped:

- a contraction typed without its apostrophe ("im", "ive", "dont", "doesnt", "isnt") is the
  contraction; never one that is a word of its own ("its", "id", "ill", "were", "wont"), nor "im"
  between a place's capitalised words ("Freiburg im Breisgau");
- asked to remember, a clause that opens on a key of the user's setup with no determiner ("Shell's
  fish", "terminal is WezTerm", "default shell is zsh", or as a label: "shell: zsh", "OS - Arch") is
  the user's ("my shell is fish"): said of a system, it would name it ("the shell is", "our CI's
  shell is"). Only when asked, since in a session "shell is bash" is as often the container's; so
  is "Name's Dana" before a capitalised word ("my name is Dana"; "name is required" is a field's),
  and a change opening a clause with its "I" dropped ("switched to fish last week", "moved over to
  Neovim a while ago": "I switched to fish ...");
- "I'm Dana, a backend engineer" (a capitalised name of one or two words, then "a" or "an" and
  a role) is "my name is Dana, and I'm a backend engineer": a self-introduction says both, in a
  session too; "I'm German, a developer" is "I'm German, and I'm a developer" (:func:`introduced`).
  So is a name, then a shorter one that will do ("I'm Priyanka, Pri is fine too"): "my name is
  Priyanka, and I go by Pri". So is a name, then a first-person clause of its own ("I'm Tomás, I
  work on payments", "I'm Tomás and my team owns checkout"): "my name is Tomás, and I work on
  payments"; but not when the word is a state of the moment ("I'm Stuck, I can't get the tests to
  pass", "I'm Sorry, I meant Postgres 15", "I'm Done, I pushed it"): a stored name must not become "Stuck";
- asked to remember, "A > B" alone in its clause, A and B words without digits, is "I prefer A over
  B" ("bullet points > paragraphs"; not "latency > 200ms"); so is "A over B" ("tabs over spaces,
  always") and a thing asked for alone, "dark mode please", "I prefer dark mode": A, B and the
  thing short noun phrases, never opening on a pronoun or a determiner, nor (what is chosen) on a
  verb ("moved over to uv", "run the tests please", "the logs please" are no choice; what it is
  chosen over may open on a participle: "early returns over nested ifs").
"""

from __future__ import annotations

import re

from ov.sessions.memory.capitals import LOWER, NAME_WORD
from ov.sessions.memory.peoples import is_people
from ov.sessions.memory.standing import passing_remark, says_nothing
from ov.sessions.memory.verbs import INSTRUCTION_VERBS, is_past

_CONTRACTIONS = {
    "im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't", "cant": "can't", "isnt": "isn't",
    "arent": "aren't", "wasnt": "wasn't", "havent": "haven't", "hasnt": "hasn't", "wouldnt": "wouldn't", "couldnt": "couldn't",
    "shouldnt": "shouldn't", "youre": "you're", "theyre": "they're", "thats": "that's", "whats": "what's"
}
# As a word on its own, in lower case or capitalised ("IM" is instant messaging), and "i" alone.
_CONTRACTION_RE = re.compile(r"(?<![\w'/.-])(?:" + "|".join(sorted(_CONTRACTIONS, key=len, reverse=True)) + r"|i)(?![\w'/.-])", re.IGNORECASE)
# Keys of the user's own setup, which a profile line is keyed by ("Shell: fish").
_SETUP_KEYS = (
    r"editor|ide|shell|terminal|terminal\s+emulator|os|distro|browser|font|theme|colou?r\s?scheme|keyboard|keyboard\s+layout|"
    r"timezone|time\s+zone|window\s+manager|wm|multiplexer|prompt|package\s+manager|laptop|machine|desktop|daily\s+driver|pronouns"
)
# Where a clause opens: the start of the text, after a sentence's end, a comma, a dash or "and".
_CLAUSE_START = r"(?:^|(?<=[.!?;,]\s)|(?<=\sand\s)|(?<=\s[\u2013\u2014-]\s)|(?<=\n))"
# "Shell's fish", "terminal is WezTerm", and the key said as a label ("shell: zsh", "OS - Arch").
_BARE_KEY_RE = re.compile(
    rf"{_CLAUSE_START}(?P<key>(?:(?:default|main|preferred|usual|primary|current)\s+)?(?:{_SETUP_KEYS}))"
    r"(?:'s|\s+(?P<verb>is|are)|\s*:|\s+[\u2013\u2014-])\s+(?=\S)",
    re.IGNORECASE,
)
# "Name's Dana", "name is Dana Lee" (the "my" dropped): only before a capitalised word, since "name is
# required" is said of a form's field.
_BARE_NAME_RE = re.compile(rf"{_CLAUSE_START}(?i:name(?:'s|\u2019s|\s+is))\s+(?=[A-Z])")
_RATHER_THAN_RE = re.compile(r"^(?P<a>[^\W\d][^<>=\d]{0,40}?)\s*>{1,2}\s*(?P<b>[^\W\d][^<>=\d]{0,40})$")


# "pls", "plz" opening a clause: the "please" an instruction may open on ("pls dont add semicolons").
_PLEASE_TYPED_RE = re.compile(rf"(?i){_CLAUSE_START}(?:pls|plz|pleeease|pleease)(?=\s+\w)")


def spelled_out(text: str) -> str:
    """``text`` with the apostrophes of its contractions back ("im based in lisbon" -> "I'm based in
    lisbon"), and a clause's "pls" as "please" ("pls dont add semicolons" -> "please don't add semicolons")."""
    text = _PLEASE_TYPED_RE.sub("please", text)

    def put_back(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.isupper() and len(word) > 1:
            return word  # "IM", "OS": an abbreviation
        if word == "im" and _between_name_words(match):
            return word  # "we moved to Freiburg im Breisgau": a place's particle
        return "I" if word.lower() == "i" else _CONTRACTIONS[word.lower()]

    return _CONTRACTION_RE.sub(put_back, text)


def _between_name_words(match: re.Match[str]) -> bool:
    """The word stands between capitalised words, the first not opening a sentence ("to Freiburg im
    Breisgau"; "Yes im Bob" says "I'm")."""
    before = match.string[max(0, match.start() - 80) : match.start()].split()
    after = match.string[match.end() : match.end() + 2]
    opens = len(before) < 2 or before[-2].endswith((".", "!", "?"))
    return not opens and before[-1][:1].isupper() and after[:1] == " " and after[1:].isupper()


# "switched to fish last week", "moved over to Neovim": a change the user made, with its "I" dropped
# (a verb with an object, "moved the tests to unit/", is a step of the work, and keeps its shape).
_BARE_CHANGE_RE = re.compile(
    rf"{_CLAUSE_START}(?=(?:(?:just|recently|finally|actually)\s+)?(?:switched|moved|migrated|went|jumped|relocated)"
    r"(?:\s+(?:over|back))?\s+(?:to|from)\s)",
    re.IGNORECASE,
)


# "I'm a freelancer with two clients at the moment: ...", "I work at Acme right now": the user's role
# or work, said to hold now, as "now" says it (markers); a state's "at the moment" ("I'm busy at the
# moment") is of the moment, and "for now" says it will end (both kept). A role is no amount ("a couple
# of commits", "an hour", "a few minutes") and no place in a course ("behind", "late", "into debugging"):
# "I'm a few minutes late right now" is a state, kept with its "right now".
_AMOUNT = r"bit|little|tad|lot|mess|wreck|couple|few|handful|bunch|number|dozen|half|quarter|hour|minute|second|moment|day|week|month|year|step|mile|way|long"
_UNDER_WAY = r"behind|late|ahead|early|into|away|short|overdue|halfway|through|past|done|stuck|busy"
_ROLE_NOW_RE = re.compile(
    rf"(?i)\b(?P<role>I(?:'m|\u2019m|\s+am)\s+(?:a|an)\s+(?!(?:{_AMOUNT})\b)(?![^.;:!?()]*?\b(?:{_UNDER_WAY})\b)[^.;:!?()]*?|"
    r"I\s+work\s+(?:at|for|as|on|with)\s+[^.;:!?()]*?)"
    r"\s*,?\s+(?:at\s+the\s+moment|right\s+now|currently)\b(?!\s+(?:busy|free|away|out|off))"
)


# "I've given up on Emacs, my editor is Zed now": the half of a switch that names what was left, before
# the half that says what holds now, is "I no longer use Emacs" (a rule would read "Has given up on
# Emacs" beside the new line; with no second half, what was left keeps its own words). What was left
# is a name or a word, never one with a determiner after it ("I dropped Alice a message": a message sent);
# the second half says what holds, not what one will do ("..., I'll wait for her answer"), and is read
# as a sentence of its own ("I ditched Slack, now I'm on Discord": "Is on Discord" too).
_DETERMINER = r"the|a|an|my|our|your|this|that|it|them|some|all|any|everything|her|his|their"
_LEFT_THEN_RE = re.compile(
    r"(?i)(?:^|(?<=[.!;]\s))I(?:'ve|\u2019ve|\s+have)?\s+(?:(?:just|finally|recently)\s+)?(?:ditched|dropped|gave\s+up(?:\s+on)?|"
    r"given\s+up(?:\s+on)?|abandoned|got\s+rid\s+of|stopped\s+using|uninstalled|dumped)\s+"
    rf"(?P<x>(?-i:[A-Z])[\w.+#-]*(?:\s+(?!(?:{_DETERMINER})\b)[\w.+#-]+){{0,2}}?|(?!(?:{_DETERMINER})\b)[\w.+#-]+)"
    r"\s*[,;]\s+(?=(?:my|I|I'm|we|we're|now)\b)(?!I['\u2019](?:ll|d)\b|I\s+(?:will|would|might|may|should|could|can|must|shall)\b|"
    r"we['\u2019](?:ll|d)\b|we\s+(?:will|would|might|may|should|could|can|must|shall)\b)"
)


def a_thing_left(x: str) -> bool:
    """Whether ``x``, named as what the user left ("I dropped X"), is a thing: no determiner after
    its first word ("I dropped Alice a message" sent one; remember._left_behind asks too)."""
    return not re.search(rf"(?i)\s(?:{_DETERMINER})\b", x)


def owned(text: str) -> str:
    """``text`` (given to be remembered) with "my" before a key of the user's setup that opens a
    clause bare: "Shell's fish, terminal is WezTerm" -> "my shell is fish, my terminal is WezTerm";
    and with "I" before a change that opens one ("switched to fish" -> "I switched to fish")."""
    text = _ROLE_NOW_RE.sub(lambda m: m.group("role"), text)
    text = _LEFT_THEN_RE.sub(lambda m: f"I no longer use {m.group('x')}. ", text)
    text = _BARE_CHANGE_RE.sub("I ", text)
    text = _BARE_NAME_RE.sub("my name is ", text)
    return _BARE_KEY_RE.sub(lambda m: f"my {m.group('key')} {m.group('verb') or 'is'} ", text)


# A bare choice's words: a noun phrase of up to four words, none a digit's.
_CHOICE = r"[^\W\d][\w'/+#.-]*(?:\s+[\w'/+#.-]+){0,3}?"
# How a bare choice may end: for whom or how often it holds ("tabs over spaces for me, always").
_CHOICE_TAIL = r"(?:[\s,]+(?:for\s+me|always|please|pls|plz|thanks|every\s+time|any\s+day|by\s+default))*[\s.!]*"
# "tabs over spaces", "early returns over nested ifs": A over B alone in its clause.
_OVER_RE = re.compile(rf"(?i)^(?P<a>{_CHOICE})\s+over\s+(?P<b>{_CHOICE}){_CHOICE_TAIL}$")
# "Hypothesis beats hand-written examples every time", "pytest is better than unittest": one thing
# ranked above another, alone in its clause, is the user's choice of it (what beat what, in the past,
# is a happening, and a figure is a measurement: "the new build beats the old one by 20%").
_BEATS_RE = re.compile(
    rf"(?i)^(?P<a>{_CHOICE})\s+(?:beats|trumps|wins\s+over|is\s+(?:way\s+|much\s+|far\s+)?better\s+than|are\s+(?:way\s+|much\s+|far\s+)?better\s+than)"
    rf"\s+(?P<b>{_CHOICE})(?:[\s,]+(?:hands\s+down|by\s+far))?{_CHOICE_TAIL}$"
)
# What a saying ranks, not a thing one chooses: a time, an amount or a quality said alone ("Done is better
# than perfect", "Something is better than nothing", "Late is better than never", "Simple is better than complex").
_SAID_OF_ANYTHING = frozenset((
    "something", "nothing", "anything", "everything", "none", "never", "always", "late", "later", "early", "sooner", "soon", "now",
    "less", "more", "done", "perfect", "good", "bad", "better", "worse", "simple", "complex", "slow", "fast", "safe", "sorry",
    "explicit", "implicit", "flat", "nested", "sparse", "dense", "beautiful", "ugly", "small", "big", "right", "wrong", "enough",
))
# "dark mode please", "spaces pls": a thing asked for alone, as a standing choice.
_PLEASE_RE = re.compile(rf"(?i)^(?P<a>{_CHOICE})[\s,]+(?:please|pls|plz)(?:[\s,]+(?:always|by\s+default|for\s+me))*[\s.!]*$")
# Words a bare choice never opens on: who or what is pointed at, a verb (what is asked for now, or
# a happening: "moved over to uv", "run the tests please", "the logs please"), or a count.
_NOT_A_CHOICE = frozenset((
    "i", "we", "you", "it", "this", "that", "these", "those", "the", "my", "your", "our", "their", "his", "her", "a", "an",
    "some", "any", "more", "less", "one", "all", "no", "not", "yes", "ok", "okay", "sure", "thanks", "help", "just", "also",
    "game", "go", "come", "let", "get", "give", "send", "tell", "try", "fix", "look", "see", "hand", "roll", "turn", "take",
    "pass", "move", "switch", "bring", "carry", "think", "talk", "read", "win", "stop", "continue", "again", "next", "same",
    "remember", "note", "fyi", "btw", "hi", "hello", "hey", "thank",
))


# Words no bare choice holds: someone who does something ("actually I prefer Go over Python").
_SOMEONE = frozenset(("i", "i'm", "we", "we're", "you", "they", "he", "she", "me", "us", "prefer", "like", "love", "want"))


def _a_choice(words: str, *, chosen: bool = True) -> bool:
    """Whether ``words`` may be a bare choice: the one ``chosen``, or (not ``chosen``) the one it is
    chosen over, which may open on a participle ("early returns over nested ifs", "named exports
    over default ones"), as a happening never opens what is chosen over ("moved over to uv")."""
    said = [w.lower().strip("'.,").replace("\u2019", "'").split("'")[0] for w in words.split()]  # "I've" is "i"
    first = said[0]
    if first in _NOT_A_CHOICE or (chosen and (re.fullmatch(INSTRUCTION_VERBS, first) or is_past(first))):
        return False
    return not any(w in _SOMEONE for w in said)


def preferred(clause: str) -> str:
    """"bullet points > paragraphs", "tabs over spaces" and "dark mode please" (given to be
    remembered, alone in their clause) as "I prefer bullet points over paragraphs", "I prefer tabs
    over spaces", "I prefer dark mode"; any other clause as it is ("moved over to uv", "run the
    tests please", "the logs please")."""
    match = _RATHER_THAN_RE.match(clause)
    if match:
        return f"I prefer {match.group('a').strip()} over {match.group('b').strip()}"
    for shape in (_OVER_RE, _BEATS_RE):
        if (over := shape.match(clause)) and _a_choice(over.group("a")) and _a_choice(over.group("b"), chosen=False) and (shape is _OVER_RE or not re.search(r"\d", clause)):
            if shape is _BEATS_RE and a_saying(clause):
                return clause
            return f"I prefer {over.group('a')} over {over.group('b')}"
    return clause


def a_saying(clause: str) -> bool:
    """Whether ``clause`` ranks what a saying ranks, a time, an amount or a quality, not a thing
    ("Done is better than perfect", "Something is better than nothing")."""
    ranked = _BEATS_RE.match(clause.strip().rstrip(".!"))
    return bool(ranked) and any(side.lower() in _SAID_OF_ANYTHING or is_past(side) for side in (ranked.group("a"), ranked.group("b")))


# "No emojis in commit messages, thanks", "please, no trailing commas", "no more console.log calls in
# committed code, please": a thing not wanted, for good,
# which "avoid" says as an instruction. Not an answer's "no" ("No worries, thanks", "No need, thanks",
# "No luck so far, thanks", "No hard feelings, thanks"), nor one of the moment ("no errors this time, thanks"),
# nor a report: what a check finds ("No errors in the logs", "No warnings"), one's own plans, or a clause
# with its verb ("No tests failed", "No harm done").
_NO_THANKS_RE = re.compile(
    r"(?i)^(?:(?P<please>please|pls|plz)[,\s]+)?no\s+(?:more\s+(?=\w))?(?P<x>[^\W\d][^,;:!?]{0,80}?)"
    r"(?:(?P<thanks>(?:[\s,]+(?:thanks|thank\s+you|thx|please|pls|plz|for\s+me))+)[\s.!]*|[\s.!]*)$"
)
_NOT_UNWANTED = frozenset((
    "worries", "worry", "problem", "problems", "prob", "probs", "idea", "luck", "way", "thanks", "need", "rush", "hurry", "clue",
    "pressure", "doubt", "one", "longer", "more", "matter", "wonder", "kidding", "change", "changes", "offense", "offence", "big",
    "biggie", "sweat", "stress", "reason", "questions", "question", "comment", "comments", "objection", "objections", "difference",
    "chance", "time", "help", "issue", "issues", "i", "it", "that", "this", "not", "go", "dice", "joke", "deal", "bother",
    "hard", "harm", "feelings", "plan", "plans", "error", "errors", "failure", "failures", "warning", "warnings", "bug", "bugs",
    "crash", "crashes", "complaints", "complaint",
))
# The participles a report's clause ends on beyond the "-ed" of verbs.is_past ("No harm done", "nothing seen").
_PARTICIPLES = frozenset(("done", "seen", "taken", "broken", "gone", "given", "made", "written", "shown", "known", "run", "left"))
_OF_THE_MOMENT = re.compile(r"(?i)\b(?:this|that|now|today|yet|so\s+far|any\s?more|anymore|here|there|left|found|again)\b")
# An offer declined in chat is no thing not wanted for good: "No coffee for me, thanks", "No sugar, thanks".
_OFFERED = re.compile(r"(?i)^(?:coffee|tea|sugar|milk|cream|ice|water|beer|wine|dessert|cake|snacks?|food|lunch|dinner|breakfast|seconds)$")


def asked_for(clause: str) -> str | None:
    """"dark mode please" (given to be remembered, before its "please" is taken off as a courtesy)
    as "I prefer dark mode"; "No emojis in commit messages, thanks" as "Avoid emojis in commit
    messages"; None for any other clause."""
    please = _PLEASE_RE.match(clause)
    if please and _a_choice(please.group("a")):
        return f"I prefer {please.group('a')}"
    unwanted = _NO_THANKS_RE.match(clause)
    if unwanted and (unwanted.group("please") or unwanted.group("thanks")):
        x = unwanted.group("x").strip()
        # (what is not wanted may open on a verb's word: "no print statements", "no force pushes")
        words = x.split()
        said = len(words) > 1 and (is_past(words[1]) or words[1].lower() in _PARTICIPLES)  # "No tests failed": a report
        if (words[0].lower() not in _NOT_UNWANTED and len(words) <= 10 and not _OF_THE_MOMENT.search(x) and not _OFFERED.match(x)
                and not said and _a_choice(x, chosen=False)):
            return f"Avoid {x}"
    return None


# ... or a shorter name that will do ("Pri is fine too", "Pri works", "Pri for short").
_SHORTER = (
    rf"(?P<short>(?-i:{NAME_WORD}))\s+(?:is\s+(?:fine|ok|okay|good|great)|works|for\s+short|also\s+works)"
    r"(?:\s+(?:too|as\s+well|also))?[.!]*"
)
# "I'm Dana, a backend engineer", "Hi, I am Dana Lee, an SRE at Acme": a name, then a role.
_INTRODUCED_RE = re.compile(
    r"^(?P<lead>(?:(?:hi|hello|hey)(?:\s+(?:all|everyone|there))?[,!]?\s+)?)(?:I'm|I\s+am)\s+"
    rf"(?P<name>(?-i:{NAME_WORD})(?:\s+(?-i:{NAME_WORD}))?)\s*(?:,\s*(?:(?P<role>an?\s+\S.*)|{_SHORTER})|"
    r"(?:,|\s+and)\s+(?P<own>(?:I|I'm|I've|I'd|my)\s+\S.*))$",
    re.IGNORECASE,
)
# Capitalised words that open "I'm X, I ..." as a state, not a name, beyond the states a passing remark
# is (:func:`ov.sessions.memory.standing.passing_remark`: "I'm Stuck, ...", "I'm Sorry, ...").
_NO_NAME = frozenset((
    "done", "here", "there", "new", "fine", "good", "ok", "okay", "finished", "almost", "afraid", "aware", "curious",
    "wondering", "confused", "kidding", "joking", "serious", "honest", "right", "wrong", "correct", "also", "still",
    "actually", "just", "really", "currently", "now", "trying", "thinking", "guessing", "assuming", "going", "looking",
))


def introduced(sentence: str) -> str:
    """"I'm Dana, a backend engineer" as "My name is Dana, and I'm a backend engineer", which the
    rules read as two statements; "I'm German, a developer", "I'm Brazilian, a designer" and "I'm
    Italian-speaking, a designer" as "I'm German, and I'm a developer": a people's word
    (:mod:`ov.sessions.memory.peoples`) or a description, with the role; "I'm Certain, a developer"
    as "I'm certain, and I'm a developer", of which the first says nothing; any other sentence as it is."""
    m = _INTRODUCED_RE.match(sentence)
    if m is None:
        return sentence
    if m.group("own"):
        # "I'm Tomás, I work on payments": a name, then a clause of its own, only where the word is
        # no state of the moment ("I'm Stuck, I can't get the tests to pass", "I'm Sorry, I meant ...").
        word = m.group("name")
        if word.lower() in _NO_NAME or passing_remark(f"I'm {word.lower()}") or says_nothing(f"I'm {word}"):
            return sentence
        if is_people(word.split()[-1]) or re.search(rf"-{LOWER}", word):  # "I'm German, I live in Berlin": two statements
            return f"{m.group('lead')}I'm {word}, and {m.group('own')}"
        return f"{m.group('lead')}My name is {word}, and {m.group('own')}"
    rest = f"I'm {m.group('role')}" if m.group("role") else f"I go by {m.group('short')}"
    if says_nothing(f"I'm {m.group('name')}"):  # "I'm Certain, ...", "I'm Sure, ...": an answer's word, no one's name
        return f"{m.group('lead')}I'm {m.group('name').lower()}, and {rest}"
    # A people's word ("Sri Lankan": the last word) or a description ("Italian-speaking"; not "Anne-Sophie") is no name.
    if is_people(m.group("name").split()[-1]) or re.search(rf"-{LOWER}", m.group("name")):
        if m.group("short") or re.search(r"(?i)\b(?:one|native)\b", m.group("role") or ""):
            return sentence  # "I'm Polish, a proud one", "I'm Japanese, a native speaker": no role of its own
        return f"{m.group('lead')}I'm {m.group('name')}, and {rest}"
    return f"{m.group('lead')}My name is {m.group('name')}, and {rest}"


# An apology or a blame taken for the moment, said alone: "my bad", "sorry, I dropped the ball",
# "oops, I messed up, that's on me". Nothing of it holds later.
_APOLOGY = (r"(?:so\s+)?sorry(?:\s+about\s+that)?|oops|whoops|apologies|my\s+(?:bad|b|mistake|fault|apologies|bad\s+again)|"
            r"that's\s+on\s+me|that\s+was\s+(?:my\s+(?:bad|mistake|fault)|on\s+me)|(?:I|I've|I\s+have)\s+(?:totally\s+|completely\s+|really\s+)?"
            r"(?:dropped\s+the\s+ball|messed\s+(?:it\s+|that\s+|this\s+)?up|screwed\s+(?:it\s+|that\s+|this\s+)?up|goofed(?:\s+up)?|blew\s+it|"
            # a slip of one's own earlier words: "I misspoke earlier", "I mistyped that", "I got that wrong before"
            r"(?:misspoke|mistyped|misremembered|got\s+(?:it|that|this)\s+wrong)(?:\s+(?:it|that|this))?(?:\s+(?:earlier|before|above|there))?)")
_APOLOGY_RE = re.compile(rf"(?i)^(?:(?:{_APOLOGY})(?:\s+(?:again|there|here))?[\s,.!;:\u2014-]*)+$")


def apology(text: str) -> bool:
    """Whether ``text`` is only an apology or a blame taken ("my bad", "I dropped the ball, my bad")."""
    return bool(_APOLOGY_RE.match(text.strip()))


# (a bare "sorry," or "oops," stays: "sorry, MySQL" says what was meant, meant.apologised)
_APOLOGY_LEAD_RE = re.compile(rf"(?i)^(?:(?:sorry|oops|whoops)\s*[,:;\u2014-]+\s*)?(?:(?!(?:sorry|oops|whoops)\b)(?:{_APOLOGY})(?:\s+(?:again|there|here))?\s*[,:;\u2014-]+\s*)+(?=\S)")


def without_apology(sentence: str) -> str:
    """``sentence`` without the apology that opens it ("my bad, the staging DB runs on port 5433" ->
    "the staging DB runs on port 5433"); read as the user's, it was "The user's bad, ..."."""
    return _APOLOGY_LEAD_RE.sub("", sentence, count=1)

