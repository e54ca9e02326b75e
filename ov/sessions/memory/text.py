"""Small, deterministic English text helpers for rule-based extraction, and the text of a message.

None of this tries to understand language; each helper is a rule simple
enough to predict from its docstring, because a memory written from a
misread sentence is worse than no memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from ov.sessions.memory.capitals import UPPER
from ov.summaries.text import QUESTION_MARKS, asks

_FENCE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)
# Like CommonMark, a code span may run over a line break.
_INLINE_CODE_RE = re.compile(r"(`+)(?!`)([\s\S]+?)(?<!`)\1(?!`)")
_MASK_RE = re.compile("\x00(\\d+)\x00")
_BULLET_RE = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_LIST_ITEM_RE = re.compile(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
# A sentence ends at . ! ? (any question mark: "？", "؟", ...; or ;) followed by space; the mark stays with the sentence. A period
# inside a word ("v1.2", "3.5 GB", "config.py") has no space after it, and one after an
# abbreviation ends no sentence (see _ends_sentence).
_GAP_RE = re.compile(rf"(?<=[.!;{''.join(QUESTION_MARKS)}])\s+")
# Abbreviations inside a sentence ("e.g.", "vs."), which never end one.
_INNER_ABBREVIATIONS = frozenset(("e.g", "i.e", "vs", "cf", "approx", "ca", "viz"))
# Titles, which a name follows ("Dr. Smith", "St. Louis") as it follows an initial (see _OPENERS).
_TITLES = frozenset(("dr", "mr", "mrs", "ms", "mx", "prof", "st", "mt", "gen", "col", "capt", "sgt", "rev", "hon"))
# Abbreviations that may end a sentence as well as a name or a list: they end one before a capital.
_FINAL_ABBREVIATIONS = frozenset(("inc", "ltd", "llc", "co", "corp", "jr", "sr", "etc", "al"))
_NEAR = 40  # characters either side of a period that decide whether it ends a sentence
# Words that open a sentence; a capitalised word after an initial or a title that is none of these is
# a name going on ("J. Smith", "J. R. R. Tolkien", "Dr. Smith"), while "plan B. Then ..." and
# "Main St. My ..." end at the period.
_OPENERS = frozenset((
    "i", "i'm", "i've", "i'd", "i'll", "im", "my", "me", "we", "we're", "we've", "our", "you", "you're", "your", "he",
    "she", "it", "it's", "its", "they", "they're", "their", "this", "that", "these", "those", "there", "here", "the",
    "a", "an", "and", "but", "so", "or", "nor", "then", "also", "now", "please", "let's", "lets", "if", "when",
    "whenever", "while", "because", "though", "although", "what", "why", "how", "where", "who", "which", "can", "could",
    "would", "should", "will", "shall", "must", "may", "might", "do", "does", "did", "don't", "is", "are", "was",
    "were", "has", "have", "had", "not", "no", "yes", "ok", "okay", "thanks", "thank", "sorry", "actually", "anyway",
    "btw", "fyi", "use", "run", "add", "fix", "make", "try", "check", "keep", "never", "always", "remember", "note",
    "update", "write", "create", "remove", "delete", "change", "move", "set", "go", "see", "look", "just", "maybe",
))
_QUOTES = "\"'“”‘’«»"
_TRAILING = " \t.,;:!"
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
# Fillers, sighs and asides at the start of a clause ("Also, ...", "Ugh, ...", "By the way, ...", "FYI: ...") and
# asides at its end ("My manager is Dana by the way", "I prefer tabs, btw") are no part of what is
# said. Only the abbreviations match in any case at the end: "My favourite album is By the Way" names one.
_FILLER_RE = re.compile(
    r"^(?:(?:also|and|oh|ok|okay|so|well|ugh+|argh+|sigh|meh|welp|phew|btw|by the way|fyi|fwiw|for the record|for what it's worth|just so you know|"
    r"hey|hi|hello|anyway|just|(?:as\s+)?(?:a\s+)?heads[\s-]up)\b[,:]?\s+)+",
    re.IGNORECASE,
)
_ASIDE_TAIL_RE = re.compile(
    r"(?:(?:^|\s*,\s*|\s+)(?:[Jj]ust\s+)?(?:(?i:btw|fyi|fwiw)|[Bb]y the way|[Ff]or what it's worth|[Jj]ust so you know|"
    r"[Ff]or the record|(?:[Aa]s\s+)?a heads[\s-]up))+$"
)

# A thanks or a please that signs off what is said, in the common languages: no part of it ("I prefer
# tabs, thanks!", "..., danke.", "..., merci !", "..., 谢谢"). Only after a comma, and only the whole
# of what follows it: "no thanks" or "thanks to CI" are said. A quotation keeps it (an experience's
# 'the user confirmed "That fixed it, thanks"'): only without_aside drops it.
COURTESY = (
    r"(?:many\s+)?thanks(?:\s+(?:a\s+lot|again|in\s+advance|so\s+much))?|thank\s+you(?:\s+(?:very|so)\s+much)?|thx|ty|tia|"
    r"(?-i:cheers)|please|pls|plz|danke(?:\s+(?:sch[öo]n|sehr))?|vielen\s+dank|bitte|merci(?:\s+beaucoup)?|"
    r"s'il\s+(?:te|vous)\s+pla[iî]t|svp|stp|(?:muchas\s+)?gracias|por\s+favor|grazie(?:\s+mille)?|per\s+favore|"
    r"obrigad[oa]|dank\s+(?:je|u)(?:\s+wel)?|bedankt|alsjeblieft|alstublieft|(?:большое\s+)?спасибо|пожалуйста|"
    r"dzi[eę]kuj[eę]|dzi[eę]ki|tack|takk|kiitos|te[sş]ekk[üu]rler|d[eě]kuji|d[ií]ky|"
    r"谢谢|謝謝|多谢|ありがとう(?:ございます)?|お願いします|감사합니다|고맙습니다|شكرا|תודה"
)
_COURTESY_TAIL_RE = re.compile(rf"(?i)\s*[,\uff0c\u3001]\s*(?:{COURTESY})$")

_RELATIVE_DAYS = {"yesterday": -1, "today": 0, "tomorrow": 1}
_RELATIVE_RE = re.compile(r"\b(yesterday|today|tomorrow)\b(?!\s*\(\d{4}-\d{2}-\d{2}\))", re.IGNORECASE)
# "X and I Y", "X, but my Y", "X, so my Y", "X - my Y", "X, I Y": where a first-person clause
# starts after a join, a dash or a comma; "always X, and never Y": where an instruction does.
_FIRST_PERSON_AHEAD = r"(?=(?:I|I'm|I've|I'd|Im|my)\b)"
# "this repo uses ...", "in this codebase we ...": the project at hand (see ov.sessions.commit), as the
# subject of a clause (a verb after it) or the place its statement holds in.
# One pattern wherever the project at hand is told apart: the split, the fronting ("in this repo, we
# ...": facts) and the filing (candidate.said_of_this_project).
THIS_PROJECT = r"(?:this|(?:the\s+)?current)\s+(?:git\s+)?(?:repo|repository|project|codebase|code\s*base|monorepo|workspace)\b"
_THIS_PROJECT_AHEAD = rf"(?=(?:in\s+)?{THIS_PROJECT}(?:'s\s+[\w-]+)?\s+(?!and\b|or\b|to\b|of\b|for\b)[\w'])"
_CLAUSE_JOIN_RE = re.compile(
    rf"(?:,\s*|\s+)(?:and|but)\s+{_FIRST_PERSON_AHEAD}"
    rf"|,\s*so\s+{_FIRST_PERSON_AHEAD}"
    rf"|\s+[-\u2013\u2014]+\s+{_FIRST_PERSON_AHEAD}"
    rf"|(?P<comma>,)\s+{_FIRST_PERSON_AHEAD}"
    # "we no longer deploy with helm, we deploy with argocd": the team's statement after the team's
    # (see clauses; not after a scope: "in the payments service, we use Kafka" is one statement)
    r"|(?P<team>,)\s+(?=(?:we|we're|we've|our)\b)"
    r"|(?P<colon>:)\s+(?=(?:I|I'm|I've|I'd|Im|my|we|we're|we've|our)\b)"  # "I changed jobs: I now work at Globex"
    # an empty group that marks the join before an instruction (see clauses)
    r"|(?:,\s*|\s+)and\s+(?P<rule>(?=(?:always|never)\b))"
    # "I like short commits, and this repo uses conventional commits": what holds in the project at
    # hand only is a clause of its own, filed apart from the user's own (a session's peer's); not after
    # "while", "though": "never deploy while this repo's freeze is on" is one instruction with its condition
    rf"|(?:,\s*(?:and|but|whereas)?|\s+(?:and|but|whereas))\s+{_THIS_PROJECT_AHEAD}",
    re.IGNORECASE,
)
# "I left Acme and now work at Initech": a second statement whose "I" is left out.
_ELIDED_RE = re.compile(
    r"^(?P<a>I\s+.+?)\s+and\s+(?P<b>(?:now|also|still)\s+(?:work|use|live|prefer|like|love|enjoy|hate)\b.+)$", re.IGNORECASE
)
# "and always ..." / "and never ..." splits only a sentence that is itself an instruction.
_INSTRUCTION_START_RE = re.compile(r"(?i)^(?:please\s+)?(?:always|never|don't|do\s+not)\b")
# A comma splits only after a clause of its own: four words, or a first-person statement of three
# ("I prefer tabs, my editor is Emacs"); "Actually, I ...", "No, I meant ...", "For the record,
# I ..." and "I was wrong, my ..." are one clause led by a marker.
_MIN_SPLICE_WORDS = 4
_OWN_CLAUSE_RE = re.compile(r"(?i)^(?:I|I'm|I've|I'd|my|we|we're|our)\s+(?!(?:mean|meant|was\s+wrong)\b)\S+\s+\S")
# A sentence that opens with one of these is subordinate or hedged as a whole: none of its clauses is a statement.
_SUBORDINATE_RE = re.compile(
    r"(?i)^(?:if|when|whenever|unless|because|although|though|while|whether|once|until|before|after|since|as\s+long\s+as|"
    r"maybe|perhaps|probably|possibly|I\s+think|I\s+guess|I\s+suppose|I\s+believe|I\s+wonder)\b"
)


def strip_code(text: str) -> tuple[str, list[str]]:
    """``text`` without code blocks, and inline code spans masked.

    Fenced code (and an unclosed fence to the end) is dropped, and so is an indented block (lines
    of four spaces or a tab, after a blank line or at the start, as in Markdown: a pasted log's
    indented message is one): nothing in them is a statement. Inline spans become
    ``\\x00N\\x00`` tokens so no pattern can match inside them; :func:`unmask` puts them back
    into what was extracted.
    """
    text = _without_indented_code(_FENCE_RE.sub("\n", text.translate(_APOSTROPHES)))
    spans: list[str] = []
    return _INLINE_CODE_RE.sub(lambda m: mask(m.group(0), spans), text), spans


def _without_indented_code(text: str) -> str:
    """``text`` with each indented code block (see :func:`strip_code`) left as blank lines.

    Inside a Markdown list, an indented block goes on with the item above it ("- Editors:" then,
    after a blank line, "    - My editor is Emacs"): it is code only when indented four more than
    the item's text. The list ends at a paragraph that starts after a blank line, left of that text.
    """
    lines, code, after_blank = text.split("\n"), False, True
    content: int | None = None  # in a list: the column its latest item's text starts at
    for i, line in enumerate(lines):
        if not line.strip():
            after_blank = True  # a blank line inside a block does not end it
            continue
        expanded = line.expandtabs(4)
        indent = len(expanded) - len(expanded.lstrip())
        item = _LIST_ITEM_RE.match(expanded[indent:])
        if content is not None and indent < content and after_blank and not item:
            content = None  # a paragraph after the list
        margin = 4 if content is None else content + 4
        code = indent >= margin and (code or after_blank)
        if item and not code:
            content = indent + item.end()
        lines[i], after_blank = ("" if code else line), False
    return "\n".join(lines)


def mask(fragment: str, spans: list[str]) -> str:
    """The token that stands for ``fragment`` (added to ``spans``) until :func:`unmask` puts it back."""
    spans.append(unmask(fragment, spans))  # a span masked inside it is put back first: one unmask restores all
    return f"\x00{len(spans) - 1}\x00"


def unmask(text: str, spans: list[str]) -> str:
    return _MASK_RE.sub(lambda m: spans[int(m.group(1))], text)


def sentences(text: str) -> Iterator[str]:
    """Sentences of prose, each with its final mark; block quotes are skipped; "; " ends one too."""
    for line in text.splitlines():
        if line.lstrip().startswith(">"):
            continue
        yield from split_sentences(_BULLET_RE.sub("", line).strip())


def split_sentences(text: str, *, semicolon: bool = True) -> Iterator[str]:
    """``text`` cut after each sentence end (and after "; " when ``semicolon``), each piece stripped,
    one at a time (a caller may want only the first of a long paste).

    Not after an abbreviation: "My mentor is Dr. Smith.", "tabs, e.g. in Go", "J. R. R. Tolkien"
    and "Acme Inc. in Berlin" are one sentence each; "Acme Inc. The office ..." is two.
    """
    start = 0
    for gap in sentence_gaps(text, semicolon=semicolon):
        if text[start : gap.start()].strip():
            yield text[start : gap.start()].strip()
        start = gap.end()
    if text[start:].strip():
        yield text[start:].strip()


def sentence_gaps(text: str, *, semicolon: bool = True) -> Iterator[re.Match[str]]:
    """The spaces in ``text`` after the end of each sentence (see :func:`split_sentences`)."""
    start = 0
    for gap in _GAP_RE.finditer(text):
        # Only the words next to the gap decide, so a long paste full of "e.g." stays linear.
        before, after = text[max(start, gap.start() - _NEAR) : gap.start()], text[gap.end() : gap.end() + _NEAR]
        if not (before.endswith(";") and not semicolon) and not (before.endswith(".") and not _ends_sentence(before, after)):
            yield gap
            start = gap.end()


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the period that ends ``before`` ends its sentence, given the text ``after`` it."""
    word = before.split()[-1].lstrip("(\"'[")
    bare = word[:-1].lower()
    following = after.split(None, 1)[0].strip("\"'(),") if after.strip() else ""
    if bare in _INNER_ABBREVIATIONS:
        return False
    if bare in _FINAL_ABBREVIATIONS:
        return not following[:1].islower()
    if bare in _TITLES or re.fullmatch(rf"{UPPER}\.", word):  # a name goes on after it, or another initial
        earlier = before.split()[-2:-1]
        initial_near = bool(re.fullmatch(rf"{UPPER}\.", following)) or bool(earlier and re.fullmatch(rf"{UPPER}\.", earlier[0]))
        name_goes_on = following[:1].isupper() and following.lower() not in _OPENERS
        return not (initial_near or name_goes_on or following[:1].islower())
    return True


def clauses(sentence: str) -> list[str]:
    """The first-person clauses of a sentence: split before " and I", ", and my", " but I'm",
    ", so my", " - my", and at a comma before "I" or "my" that ends a clause of four words or more
    ("I don't use VS Code anymore, I use Cursor") or a first-person one of three ("I prefer tabs,
    my editor is Emacs"), at a comma before "we" or "our" that ends a first-person or team clause
    ("we no longer deploy with helm, we deploy with argocd"), and at a colon that ends a first-person clause before another ("I changed
    jobs: I now work at Globex"); "I left Acme and now work at Initech" is "I left Acme" and "I now work
    at Initech".

    Only a join followed by "I", "I'm", "I've", "I'd" or "my" splits, so lists
    ("red, green, and blue") and qualifiers ("tabs, but only in Go") stay
    whole; a sentence opening with "if", "when", "because", "maybe", "I think",
    ... is not split.
    """
    if _SUBORDINATE_RE.match(sentence):
        return [sentence]
    parts, start = [], 0
    for join in _CLAUSE_JOIN_RE.finditer(sentence):
        left = sentence[start : join.start()]
        if join.group("comma") and len(left.split()) < _MIN_SPLICE_WORDS and not _OWN_CLAUSE_RE.match(left.strip()):
            continue
        if join.group("team") and not _OWN_CLAUSE_RE.match(left.strip()):
            continue
        if join.group("colon") and not _OWN_CLAUSE_RE.match(left.strip()):
            continue  # "Note: I ...", "Correction: my ...": a heading of what follows, read with it
        if join.group("rule") is not None and not _INSTRUCTION_START_RE.match(sentence):
            continue  # "they brighten our day and always make us smile" is no instruction
        parts.append(left)
        start = join.end()
    parts.append(sentence[start:])
    out = []
    for part in parts:
        elided = _ELIDED_RE.match(part.strip())
        out.extend((elided.group("a"), "I " + elided.group("b")) if elided else (part,))
    return [part for part in out if part.strip()]


def named(value: str) -> str:
    """A pattern finding ``value`` as a whole name in a text, never as part of a longer one: "C" is
    not in "C++", "C#" or "Objective-C", "Go" not in "golang", "Node" not in "Node.js", ".NET" not in
    "ASP.NET". A name's marks ("+", "#", "-", and a dot before a letter) join it to what it touches;
    a dot before a space or the end ends a sentence. Whitespace inside ``value`` matches as one space."""
    return rf"(?<![\w+#-])(?<!\w\.){re.escape(' '.join(value.split()))}(?![\w+#-])(?!\.\w)"


def is_question(sentence: str) -> bool:
    """Whether ``sentence`` ends in a question mark, before closing quotes: "?", "？", "؟", ... (see
    :data:`ov.summaries.text.QUESTION_MARKS`)."""
    return asks(sentence.rstrip().rstrip(_QUOTES + ")"))


def is_quoted(sentence: str) -> bool:
    return sentence[:1] in _QUOTES


def clean(text: str) -> str:
    """Punctuation at either end and ", please" removed, whitespace collapsed; a dot that starts a
    name stays (".NET", ".env": "I prefer .NET" is not "Prefers NET")."""
    text = _trimmed(" ".join(text.split()))
    text = re.sub(r",?\s+please$", "", text, flags=re.IGNORECASE)
    return _trimmed(text)


def _trimmed(text: str) -> str:
    text = text.rstrip(_TRAILING)
    body = text.lstrip(_TRAILING)
    lead = text[: len(text) - len(body)]
    # One dot right before a word: a name's ("...so my editor" is an ellipsis, ". my editor" a stray mark).
    return "." + body if lead.endswith(".") and not lead.endswith("..") and body[:1].isalnum() else body


def without_fillers(text: str) -> str:
    """``text`` without the fillers at its start: "Also, by the way, my editor is Vim" -> "my editor is Vim"."""
    return _FILLER_RE.sub("", text)


# What a value is given to the agent for, said after it: "k-nakamura if you need it for the CODEOWNERS
# file", "a@b.io, in case you need it": no part of the value.
_FOR_YOUR_USE_RE = re.compile(
    r"(?i)\s*,?\s+(?:just\s+)?(?:if|in\s+case|for\s+when|whenever)\s+you\s+(?:ever\s+)?(?:need|want|have\s+to\s+use)\s+(?:it|that|this|them|one)\b.*$"
)


def without_aside(text: str) -> str:
    """``text`` without the asides and the sign-off at its end: "Vim, by the way" -> "Vim", "FYI"
    alone -> "", "tabs, thanks" and "tabs, merci" -> "tabs", "k-nakamura if you need it" -> "k-nakamura"."""
    return _ASIDE_TAIL_RE.sub("", _COURTESY_TAIL_RE.sub("", _FOR_YOUR_USE_RE.sub("", text)))


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


# Initialisms a key may hold, in capitals however typed: "OS: Arch", not "Os: Arch".
_INITIALISMS = frozenset((
    "os", "ci", "cd", "db", "ide", "ui", "ux", "api", "cli", "vm", "vpn", "dns", "ssh",
    "gpu", "cpu", "ram", "ssd", "url", "sdk", "orm", "cdn", "pc", "ai", "llm",
))


def key_name(typed: str) -> str:
    """A key as a line shows it ("my OS", "my ide", "my GPG key" -> "OS", "IDE", "GPG key"):
    capitalised, an initialism or a word typed in capitals in capitals."""
    words = [w.upper() if w.lower() in _INITIALISMS or (len(w) > 1 and w.isupper()) else w.lower() for w in typed.split()]
    return capitalise(" ".join(words))


# The user's first person in a line said of them ("they") or to the agent ("you"). Lowercase
# only ("My Chemical Romance" is a name), and never inside a quotation, code or a hyphenated name.
_FIRST_PERSON = {"they": {"my": "their", "mine": "theirs", "me": "them", "myself": "themselves"},
                 "you": {"my": "your", "mine": "yours", "me": "you", "myself": "yourself"},
                 "team": {"our": "their", "ours": "theirs", "us": "them", "ourselves": "themselves"}}  # (what "we" say of the team)
_FIRST_PERSON_RE = re.compile(r"`[^`]*`|\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)|(?<![\w-])(my|mine|me|myself|our|ours|us|ourselves)(?![\w-])")  # not "oh-my-zsh"


def voiced(text: str, person: str) -> str:
    """``text``, said by the user, as a line about them (``person`` "they": "review my own PRs" ->
    "review their own PRs"), an instruction to the agent ("you": "review your own PRs"), or a line
    about their team ("team": "moved our standup to Thursday" -> "moved their standup ...")."""
    words = _FIRST_PERSON[person]
    return _FIRST_PERSON_RE.sub(lambda m: words.get(m.group(1), m.group(1)) if m.group(1) else m.group(0), text)


def absolute_dates(text: str, day: datetime) -> str:
    """"the release is tomorrow" -> "the release is tomorrow (2026-04-22)", relative to ``day``
    on the user's calendar (this machine's time zone): said at 18:00 in Los Angeles, "tomorrow" is
    the next day there, not the day after the UTC date, which has already turned."""
    day = (day.replace(tzinfo=timezone.utc) if day.tzinfo is None else day).astimezone()

    def stamp(match: re.Match[str]) -> str:
        date = (day + timedelta(days=_RELATIVE_DAYS[match.group(1).lower()])).strftime("%Y-%m-%d")
        return f"{match.group(1)} ({date})"

    return _RELATIVE_RE.sub(stamp, text)


def message_time(message: Mapping[str, Any], when: datetime) -> datetime:
    """The message's ``created_at``, or ``when`` if it has none that parses."""
    stamp = message.get("created_at")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            pass
    return when


# British and American spellings of words a profile key often holds: one key, whichever is used.
_OTHER_SPELLING = {"favourite": "favorite", "colour": "color", "organisation": "organization", "licence": "license"}
_OTHER_SPELLING |= {american: british for british, american in _OTHER_SPELLING.items()}


def other_spellings(key: str) -> tuple[str, ...]:
    """``key`` with each word of :data:`_OTHER_SPELLING` in its other spelling ("Favourite
    language:" -> "favorite language:"), for the stored line a new one replaces; () when none."""
    other = re.sub(r"[A-Za-z]+", lambda m: _OTHER_SPELLING.get(m.group().lower(), m.group()), key)
    return (other,) if other != key else ()
