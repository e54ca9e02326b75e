"""A value that changed, as said: "I switched from Neovim to Zed", "we replaced Jest with Vitest".

The stored lines naming the old value name the new one (merge's "swap" op); :func:`value_of` is
the value as said, without the reason, the aside or the time after it, which the other rules
that read a value use too.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory import verbs
from ov.sessions.memory.places import is_place
from ov.sessions.memory.probes import anycase
from ov.sessions.memory.statement import Statement, informative

# "I switched from Neovim to Zed", "I've moved over from Vim to Helix": the value changed, whatever its key.
_CHANGE_FROM_TO_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:switched|moved|migrated|changed|gone|went|jumped)"
    # (what was moved may be said: "we moved everything from Jira to Linear", "we migrated the repos from GitHub to GitLab")
    r"(?:\s+(?:everything|all|it|them|(?:all\s+)?(?:the|our|my)\s+[\w-]+(?:\s+[\w-]+)?))?(?:\s+over)?\s+from\s+(?P<old>.+?)\s+to\s+(?P<new>.+)$",
    re.I,
)
# "we replaced ArgoCD with Flux", "I swapped Jest for Vitest"; and the verbs that leave one thing for
# another: "I've ditched VS Code for Cursor", "we dropped Jenkins in favour of Buildkite", "I gave up
# Vim for Helix", "we moved off Heroku to Fly.io", "I traded my Pixel for an iPhone". What is left is
# a thing of its own (never "support", "the table", "it"), and what it is left for one too, not
# a purpose or a time ("for the release", "for now", "for good": what a drop is for is no
# replacement, so the drop is no switch).
_NOT_A_THING = r"(?!(?:support|the|a|an|this|that|these|those|it|them|everything|all)\b)"
_NOT_A_CHOICE = r"(?!\s+(?:now|good|ever|a\s+while|the|this|that|these|those|it|them|some|my|our|today|a|an)\b)"
# ("to" only after a move: "I dropped Vim to focus on Rust" says why, not what came instead)
_LEFT = (rf"(?:ditched|dropped|traded|abandoned|gave\s+up(?:\s+on)?)\s+{_NOT_A_THING}(?P<left>.+?)\s+(?:for|in\s+favou?r\s+of)|"
         rf"(?:moved|switched|migrated|went)\s+(?:off(?:\s+of)?|away\s+from)\s+{_NOT_A_THING}(?P<off>.+?)\s+(?:to|for)")
_REPLACED_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|since\s+)?"
    rf"(?:(?:replaced|swapped(?:\s+out)?)\s+(?P<old>.+?)(?:\s+out)?\s+(?:with|for|by)|{_LEFT}){_NOT_A_CHOICE}\s+(?P<new>.+)$",
    re.I,
)
# "I went with Zed over VS Code", "we settled on pnpm rather than yarn": the new value named first. A
# choice as often as a change ("we picked option A over B"), so it only corrects the lines naming
# the old value (with none, ov remember keeps the text as a dated note).
_CHOSE_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|since\s+)?(?P<chosen>went\s+with|settled\s+on|opted\s+for|picked|chose)"
    rf"\s+{_NOT_A_THING}(?P<new>.+?)\s+(?:over|instead\s+of|rather\s+than)\s+{_NOT_A_THING}(?P<old>.+)$",
    re.IGNORECASE,
)
# "we renamed master to main": the lines naming the old name name the new one.
_RENAMED_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?P<renamed>renamed)\s+(?P<old>.+?)\s+(?:to|as)\s+(?P<new>.+)$", re.IGNORECASE
)
# "I use zsh now instead of bash", "we use Linear rather than Jira".
_USE_INSTEAD_RE = re.compile(
    r"^(?P<who>I|we)\s+(?:now\s+)?use\s+(?P<new>.+?)\s+(?:now\s+)?(?:instead\s+of|rather\s+than)\s+(?P<old>.+)$", re.I
)
# A reason or an aside after a value is not part of it: "Vim because it's fast", "Vim, which ...",
# "Godot 4 after the pricing change" (what made the change, no part of what is used),
# "Aragorn, he grows ..." (and "Vim by the way": tx.without_aside). After a value " so " opens what
# follows from it, whatever the verb ("Neovim so keep lines short", "Europe/Berlin so schedule the
# cron for 06:00 my time", "fish so adjust the script"), but for the phrases "so" makes with the
# word after it ("so far", "so much", "and so on").
_SO_PHRASES = r"far|much|many|long|little|few|on|forth|called|to\s+speak|yet|often|too"
# "fish, not bash", "fish and not zsh": the choice said against another is no part of the value (the
# other's line ends as any other value of the key's does); not "not only", "not just", "not yet".
_NOT_OTHER = r",?\s+(?:and\s+|but\s+)?not\s+(?!(?:only|just|yet|sure|too|very|always|really|quite|so|that|much|many|all)\b)(?=[\w'])"
VALUE_END_RE = re.compile(  # (and a leading "actually": "my editor is actually Emacs")
    r"(?i)^(?:actually|really)\s+(?=\S)|\s*(?:,\s*(?:which|who|since|as|so|he|she|they|it|it's|that's)\b|,?\s+(?:because|since|due\s+to|thanks\s+to|after\s+(?:the|a|an|our|their|its|his|her|my)\s)\b|"
    rf"\s+so\s+(?!(?:{_SO_PHRASES})\b)(?=[\w'])|\s+[-\u2013\u2014]+\s|{_NOT_OTHER}).*$"
)

# "I switched to typer for CLIs", "I've moved over to uv for packaging": another choice for a purpose,
# said as a change, without the old one (a tool of a known kind is kinds.switched's: "Editor: Zed");
# or for a role, which says the same ("to typer as our CLI framework": rivals.ROLE).
_ROLE = r"as\s+(?:the|my|our|their|your)\s+"
_SWITCHED_FOR_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+)?(?:switched|moved|changed|gone|went|jumped|migrated)(?:\s+over)?\s+to\s+"
    rf"(?P<x>(?P<y>.+?)\s+(?:for|{_ROLE})\s*\S.*)$",
    re.IGNORECASE,
)
_PURPOSE_RE = re.compile(rf"(?i)^(?:for\s+(?:(?:the|our|my|their|a|an)\s+)?|{_ROLE})(?=\S)")


def switched_for(clause: str, restore) -> Statement | None:
    """"I switched to typer for CLIs": "Uses typer for CLIs", in place of the stored use of another
    thing for the same purpose, whatever it was ("Uses click for CLIs"; not "Uses Jest for unit
    tests" for "for e2e tests"), ending a preference for another choice for it (rivals); not a move
    of house ("I moved to Berlin for work")."""
    match = _SWITCHED_FOR_RE.match(clause)
    value = value_of(match.group("x"), restore) if match else ""
    if not match or not informative(value) or is_place(restore(match.group("y"))):
        return None
    purpose = value[len(restore(match.group("y"))) :].strip()  # "for CLIs", "as our CLI framework"
    said = _PURPOSE_RE.match(purpose)
    if not said:
        return None  # (the value's own "for" was cut as an aside's)
    # the purpose whatever its determiner: "for our CLI" is "for the CLI" ("Uses Go 1.21 for our CLI" moves to 1.22 too),
    # and a role the same purpose ("as the test runner" is what "for the test runner" is)
    what = purpose[said.end() :]
    # The team's switch ("we switched to argocd for deploys") replaces the team's use for the purpose,
    # as the user's replaces theirs: "Team uses helm for deploys" becomes "Team uses argocd for deploys".
    team = match.group("who").lower() == "we"
    leads = ("Team uses", "Team switched to", "Team moved to", "Team is using", "Team is on") if team else (
        "Uses", "Switched to", "Moved to", "Is using", "Is on")
    probes = tuple(f"{lead} * {prep} {det}{anycase(what)}" for lead in leads
                   for prep in ("for", "as") for det in ("", "[Tt]he ", "[Oo]ur ", "[Mm]y ", "[Tt]heir ")  # ("my" is stored as "their")
                   if prep == "for" or det)
    # In a session ("I've moved to Rust for the parser") it may be the code at hand's: it only corrects
    # a stored use, unless asked to be remembered (extract._read).
    lead, obj = ("Team ", f"uses {value}") if team else ("Uses ", value)
    return Statement("profile", lead, obj, ("profile", "fact", f"{lead}{obj}".lower()), {}, probes=probes, chooses=f"Use {value}",
                     only_amends=True)


# What a thing is left for when it is no thing: a while ("for two weeks", "for months"), an occasion
# ("for Lent"), or a purpose said as a verb ("to save money", "to focus").
_NO_THING_RE = re.compile(
    r"(?i)^(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|a|a\s+few|a\s+couple(?:\s+of)?|several|many|some|a\s+number\s+of)\s+)?"
    r"(?:(?:more\s+|whole\s+|full\s+)?(?:seconds?|minutes?|hours?|days?|nights?|weeks?|weekends?|fortnights?|months?|years?|sprints?|quarters?|"
    r"decades?|ages|while|bit|time|spell|moment|trial|experiment|test\s+run))\b|"
    r"(?i:lent|ramadan|advent|christmas|xmas|easter|passover|hanukkah|diwali|thanksgiving|new\s+year|holidays?|vacation|"
    r"summer|winter|spring|autumn|fall|work|fun|good|life|health|reasons?|practice|learning|now|later|today|tonight|lunch)$|"
    r"(?:save|cut|reduce|lower|learn|focus|try|test|see|get|keep|make|avoid|stay|simplify|speed|free|spend|concentrate|"
    r"experiment|play|clean|detox|rest|study)\b"
)


def _a_thing(new: str) -> bool:
    """Whether what a thing was left for is one too: a name ("WezTerm", "Fly.io"), a tool ("uv",
    "neovim"); not a while, an occasion or a purpose ("two weeks", "Lent", "save money", "local dev").
    When unsure (words in lower case that name no known tool), it is none: a switch overwrites."""
    if _NO_THING_RE.match(new):
        return False
    first = new.split()[0]
    if len(new.split()) == 1 or first[:1].isupper() or re.search(r"[\d.+#/_-]", first):
        return not (first.islower() and first.endswith("ing"))  # ("for testing", "for prototyping")
    from ov.sessions.memory.kinds import kind_of

    return kind_of(new) is not None


def change_match(clause: str) -> re.Match[str] | None:
    """"I switched from X to Y", "we replaced X with Y", "we use Y instead of X": a value that changed,
    said by "I" or "we" (group ``who``)."""
    return (_CHANGE_FROM_TO_RE.match(clause) or _REPLACED_RE.match(clause) or _USE_INSTEAD_RE.match(clause) or _RENAMED_RE.match(clause)
            or _CHOSE_RE.match(clause))


def changed_value(match: re.Match[str], clause: str, restore) -> Statement | None:
    """A value that changed ("from Neovim to Zed"): stored lines naming the old value name the new
    one; when none does, the statement itself is stored ("Switched from ...", "Team switched from ...")."""
    said = match.groupdict()
    old, new = value_of(said.get("left") or said.get("off") or match.group("old"), restore), value_of(match.group("new"), restore)
    old = re.sub(r"(?i)^(?:the|my|our)\s+", "", old)
    if not informative(new) or not informative(old) or len(old.split()) > 4 or len(new.split()) > 6:
        return None
    if old.casefold().split() == new.casefold().split():
        return None  # "from Go to Go" says no change
    if (said.get("left") or said.get("off")) and not _a_thing(new):
        return None  # "I dropped Vim for two weeks": a drop for a while or a purpose, no switch (the text is a note)
    verb, rest = verbs.third_person_parts(restore(clause[match.end("who") :]))
    said = without_when(f"{verb} {rest}".strip())  # (an undated line says what holds: "last year" would be wrong next year)
    lead = "Team " if match.group("who").lower() == "we" else ""
    if lead:
        said = said[:1].lower() + said[1:]
    # A rename only corrects the lines naming the old name: said in passing, it is the code's as often
    # ("we renamed parse to parse_args"); asked to be remembered, it is kept (extract._read)
    renamed = "renamed" in match.re.groupindex
    chosen = "chosen" in match.re.groupindex  # (a choice of the moment as often: asked or not, it only corrects)
    return Statement("profile", lead, said, ("profile", "chosen" if chosen else "swap", old.lower()), {}, swap=(old, new),
                     only_amends=renamed or chosen)


# When a value was taken up, said after it: "Zed last month", "fish yesterday", "Helix as of Monday".
# (employer.py's changes take the same tail: "I joined Globex two weeks ago")
WHEN_TAIL = (
    rf"\s+(?i:last|(?!{tx.THIS_PROJECT})this|a\s+few|recently|yesterday|today|since|as\s+of|in\s+\d{{4}}|(?:back\s+)?in\s+(?:(?:early|late|mid)[\s-]+)?(?:the\s+)?(?:"
    r"january|february|march|april|may|june|july|august|september|october|november|december|spring|summer|autumn|fall|winter)|"
    r"(?:\w+|a|a\s+couple\s+of|a\s+few|several)\s+(?:years?|months?|weeks?|days?)\s+(?:ago|back)|"
    # a time said loosely: "a while ago", "ages ago", "a while back", "not long ago", "over the summer"
    r"(?:quite\s+)?a\s+(?:while|bit)\s+(?:ago|back)|ages\s+ago|(?:not\s+)?long\s+ago|some\s+time\s+(?:ago|back)|"
    r"over\s+the\s+(?:summer|winter|holidays?|weekend|break|new\s+year)|"
    # when, said by what happened then: "when I started with the Pi", "after we migrated hosts"
    r"(?:when|after|once)\s+(?:I|we|they)\s+(?:(?:first|finally|just)\s+)?(?:[a-z]+ed|began|got|went|took|left|came|joined|made|set)\b)\b.*"
)
_WHEN_RE = re.compile(rf"{WHEN_TAIL}$")


def value_of(raw: str, restore) -> str:
    """A value as said, without the aside or the time that follows it ("Zed last month" -> "Zed")."""
    return without_when(tx.without_aside(VALUE_END_RE.sub("", restore(raw))))


def without_when(value: str) -> str:
    """``value`` without the time it was taken up, said after it ("fish yesterday" -> "fish")."""
    return _WHEN_RE.sub("", value).strip()


# "we upgraded to Postgres 16", "we moved to Flutter 3.22 last sprint", "I bumped to Node 22": the
# thing in use, at a new version. The stored line saying it was at another ("Team is on Postgres 14",
# "Uses Node 20") is replaced, however it was said; none stored, it is what holds now ("Team is on
# Postgres 16"), asked to be remembered (in a session it only corrects: extract._read).
_UPGRADED_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+|since\s+)?(?:upgraded|updated|bumped|moved|migrated|"
    r"switched|went|jumped|downgraded|rolled\s+back)(?:\s+(?:over|up|back|down))?\s+to\s+(?P<x>.+)$",
    re.IGNORECASE,
)


# "we upgraded Python to 3.12", "I bumped Node from 20 to 22": the thing named before its new version.
_UPGRADED_THING_RE = re.compile(
    r"^(?P<who>I|we)(?:'ve|\s+have)?\s+(?:just\s+|recently\s+|finally\s+|now\s+)?(?:upgraded|updated|bumped|downgraded)\s+(?:(?:our|the|my)\s+)?"
    r"(?P<t>[\w.+#-]+)\s+(?:from\s+v?\d[\w.]*\s+)?to\s+(?P<v>v?\d+(?:\.\d+)*)(?P<rest>\s.*)?$",
    re.IGNORECASE,
)


# What opens a "thing at a version" that names no thing: "version 2", "the 3", "step 4".
_NO_THING_NAMES = ("version", "v", "release", "the", "a", "an", "our", "my", "it", "level", "step", "phase", "page", "line")


def upgraded_to(clause: str, restore) -> Statement | None:
    """"we upgraded to Postgres 16" -> "Team is on Postgres 16", in place of the stored line putting the
    team on another version of Postgres; None for anything but a thing at a version ("to Buildkite",
    "to Berlin", "to version 2": no thing named). The thing may come before its version ("we
    upgraded Python to 3.12") when it is a name or a known tool, not a setting ("we bumped the
    timeout to 30"). Whoever said the stored line, the user or the team ("We use Node 20", then "I
    updated Node from 20 to 22"), and in whichever shape ("Python version: 3.10"), it is replaced;
    a system of the team's ("we upgraded the API to 3") has its version on its card ("Version is 3")."""
    from ov.sessions.memory.kinds import kind_of
    from ov.sessions.memory.systems import VERSIONED_RE, entity_fact, names_a_system

    match = _UPGRADED_RE.match(clause)
    said = match.group("x") if match else ""
    if match is None and (named := _UPGRADED_THING_RE.match(clause)) is not None:
        thing = named.group("t")
        if thing[:1].isupper() or kind_of(thing) is not None:
            match, said = named, f"{thing} {named.group('v')}{named.group('rest') or ''}"
    new = value_of(said, restore) if match else ""
    versioned = VERSIONED_RE.match(new)
    if not versioned or versioned.group("name").split()[0].lower() in _NO_THING_NAMES:
        return None
    name = versioned.group("name")
    if names_a_system(name.split()[-1]):  # ("the API": the card "Our API version is 2" made holds its version)
        card = entity_fact(name, f"Version is {new[len(name):].strip()}")
        card.probes, card.only_amends = ("Version is", "Version:", "Is on version", "Is at version"), True
        return card
    stated = on_version(name, new, team=match.group("who").lower() == "we")
    # (an upgrade replaces the version stored whoever said it: "We use Node 20", then "I updated Node to 22")
    stated.probes = tuple(dict.fromkeys((*stated.probes, *on_version(name, new, team=None).probes)))
    return stated


_VERSION_LEADS = ("Is using", "Upgraded to", "Updated to", "Moved to", "Migrated to", "Switched to", "Bumped to")


def on_version(name: str, new: str, *, team: bool | None) -> Statement:
    """"Is on Python 3.12" (``team``: "Team is on ..."), in place of each stored line that puts the user
    (``team`` False), the team (True) or either (None: "it's Python 3.12 now" names no one) on another
    version of ``name``, however it was said: "Uses Python 3.11", "Team is on Python 3.11", or a key
    naming the thing with a version alone ("Default python: 3.10", "Python version: 3.11")."""
    from ov.sessions.memory.systems import VERSION_LEADS

    leads = (*VERSION_LEADS, *_VERSION_LEADS)
    # The line says the thing and its version and nothing more: "Team is on Postgres 14 and Redis 7"
    # is left as it was, which a line for Postgres 16 beside it then corrects.
    whose = [False, True] if team is None else [team]
    probes = tuple(f"{'Team ' + lead[:1].lower() + lead[1:] if ours else lead} {name} #$" for ours in whose for lead in leads)
    key = f"*{anycase(name)}*: "
    versions = tuple(f"{key}{v}{form}" for v in ("", "v") for form in ("[0-9]", "[0-9][0-9]", "[0-9]*.[0-9]*")) if not team else ()
    lead = "Team " if team else ""
    return Statement("profile", lead, f"is on {new}" if team else f"Is on {new}", ("profile", "fact", f"{lead}is on {name}".lower()),
                     {}, probes=(*probes, *versions), only_amends=True)


# "it's Python 3.12 now", "we're on Node 22 these days", after a correction's lead or with "now": the
# thing is at that version, in place of the lines putting it at another (whoever was on it).
_AT_VERSION_RE = re.compile(r"(?i)^(?:it's|it\s+is|that's|that\s+is|(?P<we>we're|we\s+are)\s+on|(?P<i>I'm|I\s+am)\s+on|it\s+should\s+be)\s+(?P<x>.+?)[.!]*$")


def version_now(body: str, restore) -> Statement | None:
    """"it's Python 3.12" (what a correction or "now" says, its marker off): "Is on Python 3.12", in
    place of the stored lines naming Python at another version; None when the value is no named
    thing at a version ("it's 3.12": which thing, the line before says; "it's version 2")."""
    from ov.sessions.memory.systems import VERSIONED_RE

    match = _AT_VERSION_RE.match(body)
    new = value_of(match.group("x"), restore) if match else ""
    versioned = VERSIONED_RE.match(new)
    if not versioned or versioned.group("name").split()[0].lower() in _NO_THING_NAMES:
        return None
    return on_version(versioned.group("name"), new, team=True if match.group("we") else False if match.group("i") else None)


# "correction: it's Flutter 3.24, not 3.22": the version said last is the one, in the lines naming the other.
_NOT_THAT_VERSION_RE = re.compile(
    r"(?i)^(?:it's|it\s+is|that's|that\s+is|we're\s+on|we\s+are\s+on|I'm\s+on)\s+(?P<new>.+?),?\s+(?:and\s+)?not\s+(?P<old>v?\d[\w.]*)[.!]*$"
)


# "correction: it's Zed, not Helix", "no wait, it's zsh, not bash": any value, in the lines naming the other.
_NOT_THAT_RE = re.compile(r"(?i)^(?:it's|it\s+is|that's|that\s+is|it\s+should\s+be)\s+(?P<new>[^,]+?),?\s+(?:and\s+)?not\s+(?P<old>[^,]+?)[.!]*$")
# What "not" goes on with when it names no other value ("not yet", "not sure"), or a kind of thing ("a list, not a dict").
_NO_VALUE_RE = re.compile(r"(?i)^(?:only|just|yet|sure|too|very|always|really|quite|so|that|this|it|much|many|all|a|an|the|some|any|my|our|even|ever)\b")


def version_meant(body: str, restore) -> Statement | None:
    """"it's Flutter 3.24, not 3.22" (after a correction's lead): the stored lines naming Flutter 3.22
    name Flutter 3.24; "it's Zed, not Helix": those naming Helix name Zed. None for anything else;
    a value with no stored line naming the other is no line of its own (only_amends), but a version
    (the caller decides: "Is on Flutter 3.24" when asked)."""
    from ov.sessions.memory.systems import VERSIONED_RE

    match = _NOT_THAT_VERSION_RE.match(body)
    versioned = VERSIONED_RE.match(new := value_of(match.group("new"), restore)) if match else None
    if versioned:
        old = f"{versioned.group('name')} {match.group('old')}"
        return Statement("profile", "", f"Is on {new}", ("profile", "swap", old.lower()), {}, swap=(old, new), only_amends=True)
    match = _NOT_THAT_RE.match(body)
    if not match:
        return None
    new, old = value_of(match.group("new"), restore), restore(match.group("old")).strip()
    if any(not informative(v) or len(v.split()) > 4 or _NO_VALUE_RE.match(v) for v in (new, old)) or new.casefold() == old.casefold():
        return None
    return Statement("profile", "", f"It's {new}", ("profile", "swap", old.lower()), {}, swap=(old, new), only_amends=True)


# A thing left, said in one clause, and what took its place in the next ("we ditched CocoaPods,
# everything is on Swift Package Manager now", "We no longer use PagerDuty; alerts go to Opsgenie now",
# "we got rid of Jira; bugs live in Linear these days"): one switch, as "we switched from X to Y"
# says it, so that the lines naming the old thing name the new one wherever they are. The next
# clause says the new thing is in use now ("now", "instead", "these days"), of no one (with "we" or
# "my" it is a statement of its own, which the rules read: "I ditched CLion, my editor is Zed now").
# (or the thing itself said gone at the clause's start: "Jenkins is gone, it's all GitHub Actions now", "PBS got retired; ...")
_GONE = r"(?:is|was|got|has\s+been)\s+(?:gone|history|dead|retired|dropped|removed|decommissioned|sunset|turned\s+off)"
_LEFT_VERBS = (r"no\s+longer\s+use|stopped\s+using|quit\s+using|ditched|dropped|dumped|abandoned|retired|uninstalled|got\s+rid\s+of|"
               r"gave\s+up(?:\s+on)?|moved\s+(?:off(?:\s+of)?|away\s+from)|switched\s+away\s+from|migrated\s+off")
# (the subject may be dropped at the start: "ditched jenkins, the builds run on GameCI now"; a dot
# inside a name is no sentence's end: "fly.io", "Node.js")
_LEFT_THEN_RE = re.compile(
    r"(?i)(?:^|(?<=[.!?]\s))(?:(?P<who>I|we)(?:'ve|\s+have)?\s+|^)(?:(?:just|finally|recently|already|also|completely|totally)\s+)?"
    rf"(?:(?:{_LEFT_VERBS})\s+{_NOT_A_THING}(?P<x>[^,;.!?\s](?:[^,;.!?]|\.(?=\w))*?)|(?P<gone>(?-i:[A-Z])[\w.+#-]*(?:\s+[\w.+#-]+)?)\s+{_GONE})"
    r"\s*(?:[,;]|\s[-\u2013\u2014]+\s|\.\s+)\s*"
    r"(?P<then>(?:[^.;!?]|\.(?=\w))+?)(?P<end>[.!?]+(?!\w)|$)"
)
_NOW_WORDS = r"now|instead|these\s+days|nowadays|from\s+now\s+on"
_THEN_NOW_RE = re.compile(rf"(?i)^(?:(?:{_NOW_WORDS})\s*,?\s+)?(?P<said>.+?)(?:\s*,?\s+(?:{_NOW_WORDS}))?$")
# A clause with a subject of the user's or the team's is a statement of its own ("we use Buildkite
# now", "my editor is Zed now"), which the rules read beside the half that was left (remember._left_behind).
_THEN_OWN_RE = re.compile(r"(?i)^(?:now\s*,?\s+)?(?:I|I'm|I've|we|we're|we've|my|our)\s")
# The word before the new thing: a preposition or a verb of use ("is on Y", "go to Y", "we use Y").
_BEFORE_THING = frozenset(("on", "to", "in", "into", "with", "via", "through", "use", "uses", "using", "run", "runs", "running",
                           "is", "are", "'re", "handles", "handle", "does", "do"))


def _successor(then: str) -> str | None:
    """The thing ``then`` (the clause after one leaving a thing) says is used now: "everything is on
    Swift Package Manager now" -> "Swift Package Manager"; "Opsgenie now" -> "Opsgenie"; None when it
    says no such thing ("it was too slow", "that's all")."""
    said = _THEN_NOW_RE.match(then.strip())
    if said is None or said.group("said") == then.strip() or _THEN_OWN_RE.match(then.strip()):
        return None
    words = said.group("said").replace("we're", "we 're").split()
    # the first thing named after such a word: "is VS Code with PlatformIO" names VS Code (with its add-on)
    for at in [-1, *(i for i, w in enumerate(words) if w.lower() in _BEFORE_THING)]:
        thing = re.sub(r"(?i)^(?:the|a|an|all)\s+", "", " ".join(words[at + 1 :])).strip()
        if thing and len(thing.split()) <= 4 and (at >= 0 or len(words) <= 3) and _a_thing(thing) and informative(thing):
            return thing
    return None


def with_successor(text: str) -> str:
    """``text`` with a thing left and its successor said in the next clause put as the switch it is
    ("we ditched CocoaPods, everything is on SPM now" -> "we switched from CocoaPods to SPM."); any
    other text as it is."""

    def put(match: re.Match[str]) -> str:
        new = _successor(match.group("then"))
        old = (match.group("x") or match.group("gone")).strip()
        if new is None or len(old.split()) > 4 or old.casefold() == new.casefold():
            return match.group(0)
        return f"{match.group('who') or 'I'} switched from {old} to {new}{match.group('end') or ''}"

    return _LEFT_THEN_RE.sub(put, _PASSIVE_RE.sub(_active, text))


# "PBS was replaced by Slurm", "Jenkins got swapped out for Buildkite over the summer": the switch said
# of the thing left, in the passive. Said of no one, it is the team's ("we replaced PBS with Slurm"),
# but for the user's own thing ("my old laptop was replaced by ...": "I replaced ...").
_PASSIVE_RE = re.compile(
    r"(?i)(?:^|(?<=[.!?;]\s))(?P<old>(?:(?P<my>my|our|the)\s+)?(?!(?:it|this|that|they|he|she|which|who)\b)[\w.+#/-]+(?:\s+[\w.+#/-]+){0,3}?)"
    r"\s+(?:was|were|got|has\s+been|have\s+been)\s+(?:(?:just|finally|recently|since)\s+)?(?:replaced|swapped\s+out|superseded)\s+(?:by|with|for)\s+(?=\S)"
)


def _active(match: re.Match[str]) -> str:
    mine = (match.group("my") or "").lower() == "my"
    return f"{'I' if mine else 'we'} replaced {match.group('old')} with "
