"""Whether a stored line says what holds now, of the user or their team: the lines a change of value rewrites.

"We switched from Jenkins to Buildkite" makes "Team uses Jenkins for CI", "Uses Jenkins daily",
"CI: Jenkins" and "Always use Jenkins" name Buildkite; a line of another time or of someone else
stays as it was said, or the profile would tell a false past ("Used Buildkite at their previous
job"). Read from the line's verb, as ov words its lines (third person, no subject, or "Team"):

- a line in the past or the perfect ("Used ...", "Worked with ...", "Was on ...", "Has used ...");
- a line dated or set at another time ("... in 2019", "... (2026-05-01)", "... until May", "at their
  previous job", "used to"); not one saying since when it holds ("Uses Jenkins since 2019"), which
  the change rewrites without that time (:func:`without_since`): the new value holds since the change;
- a line whose subject is someone or something else ("Sarah uses ...", "Chris uses ...", "Sam's team
  uses ...", "The backend uses ...");
- a line saying not to use the value ("Never use ...", "Does not use ..."), which the change keeps true.

A line that names the old value only as what it says something of (:func:`said_of_it`: "Team's Sentry
DSN lives in Vault", "Is learning Terraform") is left as it was too.
"""

from __future__ import annotations

import re

from ov.sessions.memory.lines import KEY_RE
from ov.sessions.memory.verbs import is_past
from ov.uri import nfc

# The subject ov writes for the user's team; a line of the user has none.
# ("Team's deploys use Helm charts": a thing of the team's, as facts._ours words it)
_TEAM_RE = re.compile(r"(?i)^(?:(?:the|our|their)\s+)?(?:team|we)\s+|^Team's\s+[\w-]+(?:\s+[\w-]+){0,2}?\s+(?=(?:uses?|runs?|is|are|go|goes|lives?|live)\b)")
# The words of a key of another time ("Previous CI: Jenkins").
_OLD_KEY_RE = re.compile(r"(?i)\b(?:previous|former|old|past|prior|first|ex)\b")
# Dates, years, and the words that set a statement at another time than now.
_ANOTHER_TIME_RE = re.compile(
    r"(?i)\b(?:\d{4}-\d{2}-\d{2}|(?:19|20)\d{2}|previous(?:ly)?|former(?:ly)?|prior|until|till|ago|used\s+to|back\s+(?:then|in|when)|"
    r"in\s+the\s+past|at\s+the\s+time|(?:old|last|first)\s+(?:job|role|team|company|employer|gig|position))\b"
)
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec"
# Since when a line of now holds: "since 2019", "since March 2024", "since last year", "(since 2021-04)".
_SINCE_RE = re.compile(
    rf"(?i)\s*\(?,?\s*\bsince\s+(?:(?:early|late|mid)[\s-]+)?(?:(?:19|20)\d{{2}}(?:-\d{{2}}){{0,2}}|(?:{_MONTHS})\.?(?:\s+\d{{1,2}}(?:st|nd|rd|th)?)?"
    rf"(?:,?\s+(?:19|20)\d{{2}})?|(?:last|this)\s+(?:year|month|week|spring|summer|autumn|fall|winter|{_MONTHS}))\b\)?"
)
# Words before a verb that leave its tense as it is ("Always use", "Still uses", "Mostly uses").
_ADVERBS = frozenset(("always", "also", "still", "usually", "mostly", "often", "now", "currently", "only", "just", "generally", "normally"))
# Leads that say not to use, or that the user does not use, the value.
_REFUSING = frozenset(("never", "don't", "dont", "avoid", "not", "no", "stop"))
# Participles that do not end in -ed, after "has"/"have": "Has been on Jenkins", "Has written ...".
_PARTICIPLES = frozenset(("been", "done", "gone", "known", "seen", "taken", "given", "written", "grown", "begun", "run", "worn", "chosen"))
# Endings of a capitalised word that no verb in the third person has ("Chris", "Marcus", "Carlos",
# "Thomas", "Jess"; "is", "has", "was" aside): a name's, not the line's verb.
_NO_VERB_ENDINGS = ("ss", "us", "is", "os", "as")
# Verbs a named subject goes on with; a line's own verb never has one of them next ("Uses runs").
_THIRD_PERSON = frozenset((
    "uses", "runs", "prefers", "likes", "loves", "hates", "works", "lives", "writes", "codes", "deploys", "hosts", "keeps",
    "wants", "needs", "owns", "manages", "leads", "maintains", "builds", "tests", "ships", "reviews", "is", "has", "was", "does",
))
# Determiners opening a subject of its own ("The backend uses ...", "His team uses ...").
_DETERMINERS = frozenset(("the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their", "our", "my"))


def holds_now(body: str) -> bool:
    """Whether the line text ``body`` (no bullet) says what holds now of the user or their team (see
    the module's docstring): "Team uses Jenkins for CI" and "Editor: Emacs" do; "Used Jenkins at
    their previous job", "Worked with project-0023 using Go" and "Sarah uses Jenkins" do not."""
    if _ANOTHER_TIME_RE.search(without_since(body)):
        return False
    key = KEY_RE.match(body)
    if key and len(key.group("key").split()) <= 3:  # a key, not a statement going on after a colon
        return not _OLD_KEY_RE.search(key.group("key"))
    words = _TEAM_RE.sub("", body.strip(), count=1).split()
    while words and (words[0].lower() in _ADVERBS or (words[0].lower().endswith("ly") and len(words) > 1)):
        words = words[1:]
    if not words:
        return False
    verb = words[0].lower()
    after = words[1].lower() if len(words) > 1 else ""
    if verb in _REFUSING or after in ("not", "n't") or verb in ("doesn't", "isn't") or (verb, after) == ("do", "not"):
        return False
    if is_past(verb) or verb in ("had", "did") or (verb in ("has", "have") and (is_past(after) or after in _PARTICIPLES)):
        return False
    return verb not in _DETERMINERS and not _subject(words)


def without_since(body: str) -> str:
    """``body`` without the time it holds since: "Uses Buildkite since 2019" -> "Uses Buildkite"."""
    return _SINCE_RE.sub("", body)


def _subject(words: list[str]) -> bool:
    """Whether ``words`` open with a subject of their own, named ("Sarah uses Jenkins", "Manager Sam
    runs ...", "Project-0023 uses Go", "Chris uses Jenkins", "Sam's team uses ..."): capitalised
    words, the first no verb of the third person, then one; or a possessive."""
    first = words[0].lower()
    if not words[0][:1].isupper() or first in ("is", "has", "does", "was"):
        return False  # "(Always) run ...", "Is on Jenkins": the line's own verb
    if first.endswith(("'s", "s'")):
        return True  # "Sam's team uses ...", "James' laptop runs ..."
    if first.endswith("s") and not first.endswith(_NO_VERB_ENDINGS):
        # "Uses Jenkins", "Runs on Jenkins": the line's own verb, unless a verb follows it ("James uses ...").
        after = next((w.lower() for w in words[1:] if w.lower() not in _ADVERBS), "")
        return first not in _THIRD_PERSON and after in _THIRD_PERSON
    rest = iter(words[1:])
    word = next((w for w in rest if not w[:1].isupper()), "")
    return word in ("is", "has", "was", "were", "had", "does", "did") or is_past(word) or (word.endswith("s") and not word.endswith("ss"))


# What a line says of a thing, not that it is used: the thing's own part named before the verb ("Team's
# Sentry DSN lives in Vault", "Sentry DSN: in Vault"), or what one knows of it ("Is learning Terraform").
_OF_IT_BEFORE_RE = re.compile(r"(?i)(?:^|(?:^|\s)[\w-]+'s\s+)$")
_KNOWING_BEFORE_RE = re.compile(
    r"(?i)\b(?:learning|learns|learned|learnt|studying|studies|teaching|teaches|taught|knows|knowing|certified\s+in|mentoring|"
    r"(?:writes|wrote|writing|reads|reading|blogs|talks|talking)\s+about|(?:an?\s+)?(?:expert|certification|course|book)\s+(?:in|on))\s+$"
)
_VERB_AFTER_RE = re.compile(r"(?i)^\s*(?:[\w-]+(?:s|ed)|is|are|was|were|has|have|can|will|should|must|does|do)\b")


def said_of_it(body: str, pattern: re.Pattern[str]) -> bool:
    """Whether the line ``body`` names the value ``pattern`` finds only as what it says something of,
    not as the value used: a part of it named before the verb, or what one knows or learns of it. A
    switch away from the thing leaves such a line as it was ("we no longer use Sentry; errors go to
    Rollbar now" made "Team's Rollbar DSN lives in Vault", "Is learning Pulumi": review rev21 #7)."""
    key = KEY_RE.match(body)
    found = pattern.search(nfc(body))
    if found is None or key and found.start() < key.end("key"):
        return bool(found)
    before, after = nfc(body)[: found.start()], nfc(body)[found.end() :]
    if _KNOWING_BEFORE_RE.search(before):
        return True
    return not key and bool(_OF_IT_BEFORE_RE.search(before)) and bool(after.strip()) and not _VERB_AFTER_RE.match(after) \
        and not re.match(r"\s*[,;.(]", after)
