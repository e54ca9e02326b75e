"""The topic a preference or a note is filed under: a file name of at most three words of what it is about."""

from __future__ import annotations

import re

from ov.sessions.memory.verbs import base_form, is_past
from ov.uri import nfc

# Who says a note, with the verb it opens on ("I'm on call", "we've got a cold"): no word of what it is about.
_SPEAKERS = frozenset(("i", "i'm", "im", "i've", "ive", "i'll", "i'd", "we", "we're", "we've", "we'll", "we'd", "am", "it's"))
# Words that start a slug without saying what it is about.
_SLUG_SKIP = _SPEAKERS | frozenset(
    "a an the my our your their his her its to not no using use used uses prefer like love enjoy want be being "
    "having have working work do doing get getting got make making some any very really always never that you".split()
)
# Words that start a qualifier or a predicate; the slug is the phrase before them.
_SLUG_CUT = frozenset(
    "over than instead because when whenever while if unless for in on at with without before after rather "
    "so but and or not from by during since as whereas via into onto is are was were will would has have had "
    "can should must needs need e.g i.e etc vs though although till until except uses".split()
)
# Words that say how far the qualifier after them holds ("tabs even though ...", "tabs only when
# ...", "ruff especially for CI"): they start it, and are no word of the topic.
_BEFORE_CUT = frozenset(
    ("even", "only", "just", "especially", "particularly", "mostly", "mainly", "usually", "generally", "also", "still", "except")
)
# Words that start the alternative of a preference ("X over Y"): never where its topic starts.
_ALTERNATIVE = frozenset(("over", "instead", "rather", "than"))
# The words of _SLUG_SKIP that never name a thing (the others are verbs, as a tool may be named: Make).
_FUNCTION_WORDS = _SPEAKERS | frozenset((
    "a", "an", "the", "my", "our", "your", "their", "his", "her", "its", "to", "not", "no", "some", "any", "very", "really",
    "always", "never", "that", "you",
))
_ARTICLES = frozenset(("a", "an", "the"))
SLUG_MAX_WORDS = 3
# Where another clause starts: after ";", a dash between spaces, or a comma before a subject or a
# conjunction ("tabs, my editor is ...", "tabs, which ..."; not "short, focused commits").
_CLAUSE_END_RE = re.compile(
    r";(?=\s|$)|\s[-\u2013\u2014]+\s|,\s*(?=(?:I|I'm|I've|I'd|my|we|our|you|your|he|she|they|it|it's|that's|this|which|who|"
    r"because|since|so|but|and|or)\b)",
    re.IGNORECASE,
)


def slug(text: str, fallback: str = "general") -> str:
    """A topic of at most three words: the phrase before the first qualifier.

    "tabs over spaces" -> ``tabs``; "short commit messages" -> ``short_commit_messages``;
    "to use type hints everywhere" -> ``type_hints_everywhere``. A word that starts a qualifier
    starts no topic: it is passed over as the words of :data:`_SLUG_SKIP` are ("need coffee" ->
    ``coffee``, as "have tea" -> ``tea``), unless it starts a name (:func:`_qualifies`).
    When every word is passed over, the last names the thing ("I prefer Make" -> ``make``, as
    "Make over CMake"); ``fallback`` only when that is a word that never names one ("the").
    Words are in every script and in NFC, as file names are ("café" typed either way is
    ``café``, "Я предпочитаю табы" is ``я_предпочитаю_табы``); a language's trailing "+" or "#"
    is spelled out (``cpp``, ``csharp``), where a file name would drop it and C++ and C# would
    share one file. Only the words of the first clause count: "tabs, my editor is Emacs" is
    ``tabs``, as "tabs - said no one ever" and "tabs; they line up" are.
    """
    return _topic(_spelled(_first_clause(text)), fallback)


def _first_clause(text: str) -> str:
    """The words of ``text`` up to where another clause starts: :data:`_CLAUSE_END_RE`, or a comma
    before a subject and its verb in the past ("pnpm, npm broke too often", "Vim, Emacs felt
    slow"), not a list of qualities ("short, focused commits", "small, well tested PRs")."""
    first = _CLAUSE_END_RE.split(text, maxsplit=1)[0]
    for comma in re.finditer(r",\s*", first):
        words = first[comma.end() :].split()[:3]
        subject = words[:1] if len(words) > 1 and _is_event_verb(words[1]) else words[:2] if len(words) > 2 and _is_event_verb(words[2]) else []
        if subject and not any(w.lower().endswith("ly") or w.lower() in ("well", "very", "not") for w in subject):
            return first[: comma.start()]
    return first


# Words that only join what follows them: a note's name, cut at three words, does not end on one.
_JOINING = frozenset(("to", "of", "and", "or", "my", "our", "your", "their", "his", "her", "its", "that", "not", "no", "about"))
# Words after which a form in "-ed" says a state, not what happened: "so tired", "I'm bored", "got married".
_BEFORE_A_STATE = frozenset((
    "am", "i'm", "im", "is", "are", "was", "were", "be", "been", "being", "so", "very", "too", "really", "pretty", "quite",
    "feel", "feeling", "felt", "get", "got", "getting",
))


def _is_event_verb(word: str, *, first: bool = False, after: str = "") -> bool:
    """Whether ``word`` as typed is a verb telling what happened: in the past ("broke", "met",
    "failed"; not "need", "embed", nor a short "-ed" word: "red", "bed"), and in lower case, as a
    capital makes it a name's ("Fred", "Ted"), but for the ``first`` word of a text, whose capital
    is the sentence's unless the word ``after`` it is the verb ("Shipped the fix", "Ahmed fixed it")."""
    bare = word.rstrip(".,;:!?").lower()
    if not is_past(bare) or (bare.endswith("ed") and len(bare) < 5):
        return False
    return word[:1].islower() or (first and not _is_event_verb(after))


# What says when, not what: a dated note is filed under its day (events/YYYY/MM/DD/) and its text
# keeps the date, so in its name a date says nothing more, and "tomorrow" is wrong from the next day
# (with the date the text was given after it, and the part of the day: "tomorrow (2026-12-06) morning").
_WHEN_RE = re.compile(
    r"(?i)\(?\b\d{4}-\d{2}-\d{2}\b\)?|\b(?:yesterday|today|tomorrow|tonight)(?:\s*\(\d{4}-\d{2}-\d{2}\))?(?:\s+(?:morning|afternoon|evening|night)\b)?"
    r"|\b(?:next|last|this)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|week(?:end)?|month|year|sprint|morning|afternoon|evening|night)\b"
)


def event_name(text: str) -> str:
    """A dated note's name: the :func:`slug` of its text without the days it names ("dentist
    tomorrow (2026-12-06) at 3pm" -> ``dentist``), and without the verb of what happened: it names
    what it happened to ("the deploy failed today" -> ``deploy``, "pnpm/npm broke the build" ->
    ``pnpm_npm``; "shipped the billing rewrite" -> ``billing_rewrite``)."""
    when = _WHEN_RE.sub(" ", text)
    return _topic(_spelled(_first_clause(when)), "note", said=when)


def names_topic(text: str, topic: str) -> bool:
    """Whether ``text`` names ``topic`` in so many words: its words, spelled as :func:`slug` spells
    them, hold the topic's in a row, case and articles aside. "Prefers C++" names ``cpp`` and
    "Prefers .NET" ``net``, as their files are named; "Prefers C" does not name ``cpp``, nor
    "Prefers ASP.NET" ``net``, nor "Prefers Node.js" ``node``: a word is matched whole.
    """
    words = [w.lower() for w in _spelled(text) if w.lower() not in _ARTICLES]
    wanted = nfc(topic).lower().split("_")
    return any(words[i : i + len(wanted)] == wanted for i in range(len(words) - len(wanted) + 1))


def former_slug(text: str) -> tuple[tuple[str, ...], str] | None:
    """The topics an older ov named ``text``'s file (before topics kept letters of every script
    and spelled out C++), when not :func:`slug`'s, and the word as typed that a file of such a
    name must mention to be this topic's: "café over tea" was ``caf`` typed composed and ``cafe``
    decomposed (only ASCII letters and digits made words), "C++ for systems code" ``c++`` (a file
    ``c.md``, which "C" and "C#" shared: hence the word); "Make over CMake" was ``cmake``; "running
    tests" was ``running_tests`` (before :func:`_activity`)."""
    import unicodedata

    new = slug(text)
    names = []
    typed = _spelled(text)
    for form in ("NFC", "NFD", None):
        words = typed if form is None else [w.strip(".'-") for w in re.findall(r"[a-z0-9][a-z0-9+#.'-]*", unicodedata.normalize(form, text).lower())]
        if (old := _topic(words, "general", alternative=False, activity=False)) not in (new, "general", *names):
            names.append(old)
    if (said := _topic(typed, "general", activity=False)) not in (new, "general", *names):
        names.append(said)  # "running_tests", before a topic was named by its verb's base form
    typed = [w.lstrip("+#.'-").strip(".'-") for w in _slug_words(nfc(text))]
    word = next((w for w in typed if _activity(_slug_word(w).lower()) == new.split("_")[0]), None)
    return (tuple(names), word) if names and word else None


def _topic(typed: list[str], fallback: str, *, alternative: bool = True, activity: bool = True, said: str = "") -> str:
    """The topic of the words ``typed``; ``said``: the text of an event they are from, whose verbs
    in the past are no words of its name (see :func:`event_name`)."""
    typed = [w for w in typed if w and w.lower() not in _ARTICLES]
    words = said.split()
    happened = {w.strip(".,;:!?()\"'") for n, w in enumerate(words) if _is_event_verb(w, first=not n, after=" ".join(words[n + 1 : n + 2]))
                and not (n and words[n - 1].lower() in _BEFORE_A_STATE)}
    start = 0
    while start < len(typed) and (typed[start].lower() in _SLUG_SKIP or _qualifies(typed[start], first=not start) or typed[start] in happened):
        if alternative and start and typed[start].lower() in _ALTERNATIVE and _names_a_thing(typed, start - 1):
            # "Make over CMake", "using Make instead of CMake": what comes after "over" is what
            # the user does not prefer, so the word passed over was the topic, a name after all.
            return typed[start - 1].lower()
        start += 1
    if start == len(typed) and typed and typed[-1].lower() not in _FUNCTION_WORDS:
        # Every word passed over ("Make", "using Make"): the last is the one thing it is about,
        # named by a verb as a tool may be, as in "Make over CMake".
        return typed[-1].lower()
    kept: list[str] = []
    for n, typed_word in enumerate(typed[start:], start):
        word = typed_word.lower()
        # A capitalised word after a capitalised one goes on with a title ("This Is Us"), cut word or not.
        titled = typed_word[:1].isupper() and typed[n - 1][:1].isupper()
        if (kept and word in _SLUG_CUT and not titled) or len(kept) == SLUG_MAX_WORDS or (kept and typed_word in happened):
            break
        if kept and word in _BEFORE_CUT and n + 1 < len(typed) and typed[n + 1].lower() in _SLUG_CUT:
            break  # "tabs even though ...": the qualifier starts at "even"
        kept.append(_activity(word) if activity and not kept else word)
    while said and len(kept) > 1 and kept[-1] in _JOINING:
        kept.pop()  # "we deployed the payments gateway to production": payments_gateway, not payments_gateway_to
    return "_".join(kept) or fallback


def _activity(word: str) -> str:
    """A topic's first word as the verb it names: "running tests" is about what "run tests" is
    (one file for "I prefer running tests with pytest" and "Run tests with pytest"). Only an -ing
    form: a first word in -s or -ed is a plural or an adjective there ("tests in CI", "typed
    Python"), and a word no verb of the work makes ("morning", "string") stays as it is."""
    return (base_form(word) or word) if word.endswith("ing") else word


def _names_a_thing(typed: list[str], at: int) -> bool:
    """Whether ``typed[at]``, a word of :data:`_SLUG_SKIP` before "over", is the thing preferred
    ("Make over CMake"), not a verb of what is done over something: "working over SSH", "used
    over the weekend", "to work over the weekend" (there the topic is what follows, SSH)."""
    word = typed[at].lower()
    verb = word.endswith(("ing", "ed", "es")) or (at > 0 and typed[at - 1].lower() == "to")
    return word in _SLUG_SKIP - _FUNCTION_WORDS and not verb


def _qualifies(word: str, *, first: bool) -> bool:
    """Whether ``word``, before a topic, starts a qualifier rather than a name: "need coffee", not
    "VS Code", "AT&T", "CAN bus" or "prefer Will Smith" ("vs" starts a topic only as a name)."""
    return word.lower() in _SLUG_CUT - {"vs"} and not (word.isupper() or (word[:1].isupper() and not first))


def _spelled(text: str) -> list[str]:
    """The words of ``text`` as topics spell them: NFC, marks at their ends dropped ("Node.js." is
    "Node.js", ".NET" "NET"), a language's trailing "+" or "#" spelled out (:func:`_slug_word`)."""
    return [_slug_word(w.lstrip("+#.'-").strip(".'-")) for w in _slug_words(nfc(text))]


def _slug_words(text: str) -> list[str]:
    """The runs of letters (of any script, with their combining marks), digits and ``+#.'-`` in
    ``text``: for ASCII text the words topics were always named from, so old files are found."""
    import unicodedata

    text = re.sub(r"(?<=\w)\u2019(?=\w)", "'", text)  # "I’m" is "I'm", one word
    kept = "".join(ch if ch.isalnum() or ch in "+#.'-" or unicodedata.category(ch).startswith("M") else " " for ch in text)
    return kept.split()


def _slug_word(word: str) -> str:
    """``word`` with a trailing run of "+" or "#" spelled out: c++ -> cpp, c# -> csharp."""
    stem = word.rstrip("+#")
    if not stem or stem == word:
        return word
    tail = word[len(stem) :]
    return stem + "".join("p" if ch == "+" else "sharp" for ch in tail)
