"""Facts of the project or its tooling said plainly, with no "I" and no "we" (given to be remembered).

What users of memory tools ask to keep is what stays true of their work (docs/sessions.md): a
fact said of the project is one, however it is worded, and a dated note of it would be recalled
as the day's event. Three shapes, each read only when asked to remember (``ov remember``,
"remember that ..."):

- a labelled convention: "Docs convention: headings are in sentence case", "Style rule: no
  abbreviations in public names" -> preferences/{user}/docs.md: "Docs convention: headings are in
  sentence case (team convention)";
- what a kind of the work is built with: "Firmware builds use arm-none-eabi-gcc 12.2 with CMake",
  "Release builds target Android 14" -> entities/systems/firmware_builds.md: "Use arm-none-eabi-gcc
  12.2 with CMake" (what it uses names a version or a name: "Tests use too much memory" is a
  complaint, kept as a note). The kind is a thing of the work said with what sort it is ("firmware
  builds", "backend services", "integration tests"): "Cats need Vitamin D", "Headphones need USB-C"
  and "Most tests use Mocks" name no kind of the work, and stay notes;
- a value the team set, and its changes: "Our target frame rate is 30 fps" -> profile: "Team's
  target frame rate: 30 fps"; "we raised the target frame rate to 60 fps" and a correction's "no,
  the target frame rate is 120 fps" (or "no wait, ...") put theirs in its place (one line per key).
  A value is a figure or a name: "our code is a mess" is a remark, kept as a note. A figure alone is
  the value of a measure ("our retry limit is 5"), a figure with its unit of any key ("30 fps",
  "two weeks"), a name of any key ("our tracker is Jira", "our CEO is Jane Doe", "our office is in
  Berlin"), a cadence ("weekly") or a code name ("us-east-1"). A day or a month is when something
  happens ("Our deadline is Friday"), unless it recurs or the key names a slot ("Our retro is every
  other Friday", "Our release day is Thursday"; review rev21). "Our son is 3", "Our kids are 5 and
  7", "Our dog is Max", "Our wedding is in September" say nothing of the team's work (a family, its
  pets, its home, its holidays): all stay notes.

A day, a passing state ("slow", "broken") or something that happened keeps the text a dated note:
"the build is slow today" is the day's, not the project's.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import topics
from ov.sessions.memory.standing import PASSING_STATE_RE, of_the_moment
from ov.sessions.memory.statement import Statement, informative
from ov.sessions.memory.systems import DAY_NAME, NOT_NAMES, entity_fact, names_a_system

_DAY_RE = re.compile(
    r"(?i)\b(?:today|tomorrow|yesterday|tonight|now|currently|at\s+the\s+moment|right\s+now|\d{4}-\d{2}-\d{2}|"
    r"(?:this|next|last)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|month|year|sprint|night|morning))\b"
)

# "Docs convention: ...", "Naming rules: ...", "Convention: ...", "House style - ...".
_LABELLED_RE = re.compile(
    r"(?i)^(?:(?P<what>(?!(?:my|your|the|this|that|a|an|our)\b)[\w-]+(?:\s+[\w-]+){0,2}?)\s+)?"
    r"(?P<label>conventions?|rules?|style|policy|standards?|guidelines?)\s*(?::|\s[\u2013\u2014-])\s*(?P<x>\S.{2,200})$"
)

# "Firmware builds use arm-none-eabi-gcc 12.2 ...": a kind of the work (a plural, no determiner, a word
# for its sort before it) and what it is built with.
_TOOLING_RE = re.compile(
    r"(?i)^(?P<kind>(?!(?:the|these|those|my|your|our|their|some|all|most|many|few|several|both|each|every|other|more|any|no|they|we|you|i|"
    r"people|users|kids)\b)[\w-]+(?:\s+[\w-]+){1,2}?s)\s+"
    r"(?P<pred>(?:use|run(?:\s+on)?|target|require|need|depend\s+on|are\s+built\s+(?:with|on)|build\s+with|compile\s+with)\s+(?P<x>\S.{0,150}))$"
)

# A value: a figure, or a name (a capital past the first word: "Rust", "Title Case").
_VALUE_RE = re.compile(
    r"\d|(?-i:[A-Z])|(?i:\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|"
    r"sixty|hundred|thousand|million|once|twice|daily|weekly|biweekly|fortnightly|monthly|quarterly|yearly|nightly|hourly)\b)"
)
_KEY = r"(?P<k>(?!(?:it|this|that|one|code|life|team|plan|day|week)\b)[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
# "our target frame rate is 30 fps"; (after a correction's lead) "the target frame rate is 120 fps".
_OUR_VALUE_RE = re.compile(rf"(?i)^(?P<det>our|the)\s+{_KEY}\s+(?:is|are)\s+(?P<v>[^,;]{{1,40}}?)[.!]*$")
# "we raised the target frame rate to 60 fps", "the team bumped our max PR size from 400 to 600 lines".
_SET_VALUE_RE = re.compile(
    rf"(?i)^(?:we|the\s+team|our\s+team)\s+(?:(?:just|recently|finally|have|'ve)\s+)?(?:raised|lowered|bumped|increased|decreased|reduced|cut|"
    rf"changed|set|dropped|upped|doubled|halved)\s+(?:the|our)\s+{_KEY}\s+(?:from\s+[^,;]{{1,30}}?\s+)?to\s+(?P<v>[^,;]{{1,40}}?)[.!]*$"
)
_NO_RE = re.compile(r"(?i)^no\s*[,.!-]*\s+")
# What a kind of the work is: a thing made, run or shipped ("firmware builds", "backend services").
_WORK_KINDS = frozenset((
    "build", "test", "suite", "image", "container", "release", "deploy", "deployment", "binary", "package", "module", "library",
    "script", "function", "lambda", "runner", "node", "pod", "task", "dag", "notebook", "client", "microservice", "tool", "check",
    "migration", "bundle", "artifact", "target", "crate", "plugin", "extension", "component", "project", "product", "device", "board",
    "pr", "mr", "commit", "branch", "ticket", "hotfix", "feature", "table", "query", "dashboard", "alert", "metric", "log", "secret",
    "key", "token", "cert", "certificate", "schema", "index", "topic", "route", "page", "screen", "view", "handler", "fixture", "flag",
))
# A figure with its unit ("30 fps", "two weeks", "99.9%"), not one alone or in a list ("3", "5 and 7").
_FIGURE_WITH_UNIT_RE = re.compile(
    r"(?i)(?:\d[\d.,]*|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|"
    r"hundred|thousand|million))\s*(?:%|(?!(?:and|or|to|old)\b)[^\W\d_])"
)
# What a figure alone is the value of: a measure ("retry limit", "max line length", "coverage threshold").
_MEASURE_RE = re.compile(
    r"(?i)\b(?:limit|size|length|rate|count|budget|threshold|timeout|ttl|quota|cap|max(?:imum)?|min(?:imum)?|target|goal|ratio|"
    r"coverage|version|level|interval|window|duration|frequency|cadence|port|sla|slo|number|amount|capacity|retention|depth|"
    r"concurrency|replicas|retries|score|latency|uptime|velocity|width|percentage)$"
)
# When something happens, not a value: a day or a month ("Friday", "in September").
_WHEN_RE = re.compile(rf"(?i)\b{DAY_NAME}\b|\b(?:weekend|tonight|noon|midnight)\b|\d{{1,2}}(?:st|nd|rd|th)\b")
# A day that comes round again is a value of the work's schedule, not when one thing happens: a key
# naming a day or a slot ("our release day", "our deploy window"), or a value said to recur ("every
# other Friday", "on Tuesdays", "weekly").
_RECURRING_RE = re.compile(r"(?i)\b(?:every|each|other|alternate)\b|\w+days\b|\b(?:daily|weekly|biweekly|fortnightly|monthly|quarterly|nightly)\b")
_SLOT_KEY_RE = re.compile(r"(?i)\b(?:day|days|time|slot|window|cadence|schedule|rotation)$")
# What "our" says of the user's home, not of the team's work: a family, its pets, its home and its
# holidays ("Our son is 3", "Our dog is Max", "Our wedding is in September", "Our flight is at 9").
_HOME_RE = re.compile(
    r"(?i)\b(?:sons?|daughters?|kids?|children|child|bab(?:y|ies)|twins|wife|husband|partner|spouse|fianc[ée]e?|boyfriend|girlfriend|"
    r"mom|mum|dad|mother|father|parents?|brothers?|sisters?|siblings?|grand\w+|family|dogs?|cats?|pupp(?:y|ies)|kittens?|pets?|"
    r"house|home|apartment|flat|garden|car|wedding|honeymoon|vacation|holidays?|trip|flight|hotel|anniversary|birthday)$"
)
# A name of code: letters and figures in one word ("us-east-1", "v2", "node18").
_CODE_NAME_RE = re.compile(r"(?i)(?<![\w.-])(?=[\w.-]*\d)(?=[\w.-]*[a-z])[a-z\d][\w.-]*")


def project_fact(body: str, restore, subject: str, *, corrected: bool = False) -> Statement | None:
    """What ``body`` (asked to be remembered) says of the project in one of the shapes above, else
    None. ``corrected``: it came after a correction's lead ("actually, ..."), which lets "the K is
    V" stand for the team's value."""
    if _DAY_RE.search(body) or PASSING_STATE_RE.search(body):
        return None
    return _labelled(body, restore, subject) or _tooling(body, restore) or _value(body, restore, corrected=corrected)


def _labelled(body: str, restore, subject: str) -> Statement | None:
    match = _LABELLED_RE.match(body)
    if match is None:
        return None
    what, rule = match.group("what"), restore(match.group("x")).rstrip(".!")
    if not informative(rule) or of_the_moment(rule) or (what and what.split()[0].lower() in NOT_NAMES):
        return None
    label = f"{tx.capitalise(restore(what))} {match.group('label').lower()}" if what else tx.capitalise(match.group("label").lower())
    topic = topics.slug(restore(what) if what else rule)
    return Statement("preferences", "", f"{label}: {rule} (team convention)", ("preferences", topic), {"subject": subject, "topic": topic})


def _tooling(body: str, restore) -> Statement | None:
    match = _TOOLING_RE.match(body)
    if match is None or not re.search(r"\d|(?-i:[A-Z])", match.group("x")) or re.search(r"(?i)\b(?:was|were|too|much|many)\b", match.group("x")):
        return None
    kind = restore(match.group("kind"))
    if not a_thing_of_the_work(kind.split()[-1]):
        return None  # ("Wireless headphones need USB-C": no thing of the work)
    return entity_fact(kind, restore(match.group("pred")).rstrip(".!"))


def a_thing_of_the_work(plural: str) -> bool:
    """Whether ``plural`` names things of the work: systems ("services", "databases") or what is made,
    run or shipped ("builds", "tests", "images", "libraries"); not "cats" nor "headphones"."""
    head = plural.lower()
    acronym = re.fullmatch(r"[A-Z]{2,}s", plural)  # ("APIs", "VMs", "PRs")
    return bool(acronym) or names_a_system(head) or bool({head[:-1], head[:-2], head[:-3] + "y"} & _WORK_KINDS)


def _value(body: str, restore, *, corrected: bool) -> Statement | None:
    said = _NO_RE.sub("", body) if corrected else body
    match = _SET_VALUE_RE.match(said) or _OUR_VALUE_RE.match(said)
    if match is None or (match.groupdict().get("det", "our").lower() == "the" and not corrected):
        return None
    key, value = restore(match.group("k")), restore(match.group("v")).strip()
    key = key[0].lower() + key[1:] if not key.split()[0].isupper() else key  # ("our API rate limit": its name kept)
    if names_a_system(key.split()[-1]) or not _VALUE_RE.search(value) or len(value.split()) > 6 or re.match(r"(?i)\w+(?:ed|ing)\b", value):
        return None  # (a system's fact is facts._system_fact's; "our code is a mess" names no value, "is rotated monthly" says what is done)
    if not a_value_of_the_work(key, value):
        return None  # ("Our son is 3", "Our dog is Max", "Our deadline is Friday": see the module's doc)
    return Statement("profile", f"Team's {key}: ", value, ("profile", f"team's {key}"), {})


def a_value_of_the_work(key: str, value: str) -> bool:
    """Whether ``value``, a figure or a name said of "our ``key``", is a value of the team's work (see
    the module's doc): "30 fps", a measure's "5", a convention's "Title Case"; not "our son"'s "3",
    "our dog"'s "Max", nor a day ("Friday", "in September")."""
    if _HOME_RE.search(key) or _WHEN_RE.search(value) and not (_RECURRING_RE.search(value) or _SLOT_KEY_RE.search(key)):
        return False
    # (a name of any key of the work's: "our CEO is Jane Doe", "our office is in Berlin"; review rev21 #8)
    return bool(_FIGURE_WITH_UNIT_RE.search(value) or _MEASURE_RE.search(key) or re.search(r"(?-i:[A-Z])", value) or _CODE_NAME_RE.search(value)
                or _RECURRING_RE.search(value))
