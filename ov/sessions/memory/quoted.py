"""Words in a user message that are not the user's own: what they quote, dictate or paste.

"Add a fixture user whose bio reads: I am a data scientist", "The log says:" over a pasted line,
"the user says I prefer tabs", "she said my editor is old", "... "I work at Initech" ...": the
first person in them is someone else's, or no one's. Each such stretch is masked as one span
(:func:`ov.sessions.memory.text.mask`), as code is, so that no clause starts inside it and no
rule reads it; what a rule reads around it is put back whole.

- what was pasted: an email, a chat log, a letter, a git log (:mod:`ov.sessions.memory.pasted`);
- a quotation: "...", '...' (an apostrophe inside a word is none: "'I'm a teapot'" is one), «...»;
- after a colon whose lead reports words (says, said, sent, commented, reads, wrote, prints, told, ...) or names
  a text (bio, log, message, output, error, description, ...): the rest of the line, and when the
  colon ends the line, the lines after it (past blank lines before them) up to a blank line;
- after a verb of saying whose subject is someone else ("the user says", "Bob told me", "the
  README says that"), a first-person clause (I, I'm, my, we, our, ...), to the end of the sentence.

A sentence framed as made up is no one's either: "In the test fixture, my name is John and I work
at Initech", "my name is John in this example", "Suppose I work at Initech" (:func:`framed`).

What the user says they said is theirs: "I said I prefer tabs", "as I mentioned, my editor is
Vim", "I told you my shell is fish" are read as "I prefer tabs", ... (:func:`own_words`), and so is
what follows a colon after the user's own heading: "Two things: I prefer tabs", "Some context: I
work at Acme" (not after a speaker: "Bob: I work at Acme").
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory.pasted import mask_pasted

_QUOTATION_RE = re.compile(
    r"(?<![\w\"])\"(?=\S)[^\"\n]*?(?<=\S)\"(?!\w)"
    r"|(?<![\w'])'(?=[^\s'])(?:[^'\n]|(?<=\w)'(?=\w))*?(?<=[^\s'])'(?!\w)"
    r"|«[^»\n]+»"
)
# Verbs that report what someone says or thinks: "Bob says my ..." is Bob's word, not the user's.
# Not the forms that are nouns as well: "My answer: I prefer tabs", "My thought: ..." are the user's.
_SAYING = (
    r"say|says|said|saying|reads|writes?|wrote|written|replied|answered|respond(?:s|ed)?|ask(?:s|ed)?|"
    r"tells?|told|claimed|quoted|mention(?:s|ed)?|thinks|believes?|believed|insist(?:s|ed)?|complain(?:s|ed)?"
)
# Before a colon, verbs that show a text as well: "the log prints:", "the file contains:".
_REPORTING = (
    rf"{_SAYING}|read|reading|writing|prints?|printed|printing|outputs?|outputted|shows?|showed|shown|showing|returns?|"
    r"returned|returning|logs?|logged|logging|stat(?:es|ed)|goes|went|contains?|contained|containing|typed|pasted|"
    r"displays?|displayed|warn(?:s|ed)?|sent|forward(?:s|ed)?|posted|shared|comment(?:s|ed)|suggest(?:s|ed)|reviewed"
)
# Nouns that name a text someone else wrote, or no one: what follows "this bio:" is its words.
_TEXT_NOUNS = frozenset((
    "bio", "biography", "log", "output", "error", "message", "text", "description", "docstring", "comment", "string",
    "prompt", "quote", "quotation", "example", "sample", "template", "caption", "placeholder", "transcript", "email",
    "tweet", "post", "input", "fixture", "copy", "testimonial", "lyrics", "line", "sentence", "paragraph", "banner",
    "tagline", "slogan", "excerpt", "snippet", "stdout", "stderr", "traceback", "response",
))
_REPORTING_WORD_RE = re.compile(rf"(?i)\b(?:{_REPORTING})\b")
_WORD_RE = re.compile(r"[\w']+")
# How far before a colon its lead is read: a reporting verb or a text's name is a few words from it.
_LEAD_CHARS = 80
# A colon that introduces: not "12:30", "db.internal:5432" or "https://".
_COLON_RE = re.compile(r":(?=\s|$)")
# "the user says I prefer tabs", "Bob told me that my ...": the verb, then where the reported clause starts.
# It runs to the end of the sentence, or to ", but": "the README says we use tabs, but I prefer spaces".
_REPORTED_RE = re.compile(
    rf"(?i)\b(?P<verb>{_SAYING})\s+(?:that\s+)?(?:(?:me|us|you|him|her|them|everyone)\s+(?:that\s+)?)?"
    r"(?P<said>(?:I|I'm|I've|I'd|I'll|Im|my|mine|me|we|we're|we've|our)\b.*?)(?=,\s*but\s|$)"
)
# "I said", "I just told you", "let me tell you": the user reports their own words.
_BY_THE_USER_RE = re.compile(r"(?i)\b(?:I(?:'ve|'d)?|let\s+me)\s+(?:(?:just|already|also|even|have|had|never)\s+)*$")
# A colon (a dash, a comma) after a heading, then the user speaking: "Two things: I prefer tabs",
# "Preferences: my ...", "Big news - I moved to Porto", "Quick update, I ...".
_HEADING_RE = re.compile(
    r"^(?P<lead>[^:,\n\u2013\u2014]{1,40}?)(?::|,|\s+[-\u2013\u2014]|\u2013|\u2014)\s+(?=(?:I|I'm|I've|I'd|I'll|my|we|we're|we've|our)\b)"
)
# What the user's own heading is made of, every word of it: a word that names a part of the
# message (at least one), and words that count or qualify it. An allow-list, since a heading naming
# another source or artefact ("Ticket details:", "Interview notes:", "Customer feedback summary:",
# "User story details:") introduces that source's words, however it is phrased.
_HEADING_NOUNS = frozenset((
    "thing", "things", "point", "points", "note", "notes", "context", "background", "preference", "preferences", "reminder",
    "reminders", "info", "summary", "tldr", "ps", "fact", "facts", "detail", "details", "aside", "addendum",
    "clarification", "bonus", "setup", "basics", "about", "news", "update", "updates", "announcement",
))  # Not "Update:" alone or "Correction:": the markers of a correction (ov.sessions.memory.markers) read those.
_HEADING_QUALIFIERS = frozenset((
    "a", "an", "the", "some", "my", "our", "me", "myself", "us", "one", "two", "three", "four", "five", "few", "couple",
    "of", "quick", "short", "brief", "little", "small", "more", "other", "another", "important", "final", "last",
    "further", "extra", "random", "personal", "general", "side", "main", "key", "relevant", "additional", "useful",
    "big", "huge", "good", "great", "exciting", "sad", "bad", "fun", "life",
))
_OWN_WORDS_RE = re.compile(
    r"(?i)^(?:(?:as|like)\s+I(?:'ve|\s+have)?\s+(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier|already))?\s*[,:]?\s+"
    r"|I(?:'ve|\s+have)?\s+(?:(?:just|already|also)\s+)?(?:said|mentioned|told\s+you)(?:\s+(?:before|earlier|already))?"
    r"(?:\s+that)?\s*[,:]?\s+)"
)


def mask_quoted(text: str, spans: list[str]) -> str:
    """``text`` with what was pasted into it (:func:`ov.sessions.memory.pasted.mask_pasted`), its
    quotations, and what a colon introduces as someone else's words, masked."""
    text = _QUOTATION_RE.sub(lambda m: _masked_quotation(m.group(0), spans), mask_pasted(text, spans))
    lines, carrying, pasted = [], False, False  # after "The log says:" alone, up to the blank line after its words
    for line in text.split("\n"):
        if not line.strip():
            carrying = carrying and not pasted
        elif carrying:
            line, pasted = tx.mask(line, spans), True
        else:
            line, carrying = _masked_line(line, spans)
            pasted = False
        lines.append(line)
    return "\n".join(lines)


def _masked_line(line: str, spans: list[str]) -> tuple[str, bool]:
    """``line`` with what each colon introduces masked to the end of its first sentence ("Error:
    none. My editor is Vim": the user speaks again after it), and whether its last colon ends it."""
    done = ""
    while (cut := _introduced(line)) is not None:
        rest = line[cut:]
        if not rest.strip():
            return done + line, True
        end = next((gap.start() for gap in tx.sentence_gaps(rest, semicolon=False)), len(rest))
        said = rest[:end].strip()
        mark = said[-1] if end < len(rest) and len(said) > 1 else ""  # the sentence still ends after the token
        done, line = done + line[:cut] + " " + tx.mask(said[: len(said) - len(mark)], spans) + mark, rest[end:]
    return done + line, False


def _masked_quotation(quotation: str, spans: list[str]) -> str:
    """The token for ``quotation``, and its final mark after it: 'He said "I like jazz." I prefer
    tabs.' still ends a sentence after the quotation."""
    mark = quotation[-2] if len(quotation) > 2 and quotation[-2] in ".!?" else ""
    return tx.mask(quotation, spans) + mark


def _introduced(line: str) -> int | None:
    """Where the words that a colon of ``line`` introduces start, or None when no colon does.

    Only the lead of the colon's sentence, at most :data:`_LEAD_CHARS` before it, decides: a
    line of many colons ("key: value, key: value, ...") is read once, not once per colon."""
    for colon in _COLON_RE.finditer(line):
        lead = line[max(0, colon.start() - _LEAD_CHARS) : colon.start()]
        lead = lead[next((gap.end() for gap in reversed(list(tx.sentence_gaps(lead, semicolon=False)))), 0) :]
        words = _WORD_RE.findall(lead.lower())
        reporting = _REPORTING_WORD_RE.search(lead)
        if reporting and not _BY_THE_USER_RE.search(lead[: reporting.start()]):
            return colon.end()
        if words and (words[-1] in _TEXT_NOUNS or words[-1].rstrip("s") in _TEXT_NOUNS):
            return colon.end()
    return None


def mask_reported(sentence: str, spans: list[str]) -> str:
    """``sentence`` with the first-person clause someone else is reported to say masked to its end:
    "the user says I prefer tabs", "Bob told me my editor is old"; not "I said I prefer tabs"."""
    match = _REPORTED_RE.search(sentence)
    if match is None or _BY_THE_USER_RE.search(sentence[: match.start("verb")]):
        return sentence
    return sentence[: match.start("said")] + tx.mask(match.group("said"), spans) + sentence[match.end("said") :]


def own_words(clause: str) -> str:
    """``clause`` without the user's report that they said it: "I said I prefer tabs" -> "I prefer
    tabs", and without the user's own heading before a colon: "Two things: I prefer tabs" -> "I
    prefer tabs" (a colon after a verb of saying or a text's name was masked: its words are not
    read; see :func:`mask_quoted`)."""
    heading = _HEADING_RE.match(clause)
    if heading is not None:
        words = _WORD_RE.findall(heading.group("lead").lower())
        # A heading of the message's own ("Two things", "Some context", "My preferences"), never
        # a speaker or a source: "Bob:", "User:", "Bob's notes:", "Sample facts:", "Ticket details:".
        if len(words) <= 5 and any(w in _HEADING_NOUNS for w in words) and words != ["update"] and all(
            w in _HEADING_NOUNS or w in _HEADING_QUALIFIERS for w in words
        ):
            clause = clause[heading.end() :]
    return _OWN_WORDS_RE.sub("", clause, count=1)


# A frame that sets a sentence apart from the user: what is made up for a test, an example or a
# story ("In the test fixture, ...", "... in this mock."), or supposed ("Suppose I ...").
_FRAME_NOUNS = (
    r"fixture|mock|mockup|stub|fake|example|sample|demo|dummy|placeholder|template|scenario|story|persona|role-?play|"
    r"test\s+data|seed\s+data|test\s+user|test\s+case|user\s+story"
)
_FRAME_RE = re.compile(
    rf"(?i)\b(?:in|for|inside|within|from)\s+(?:the|this|that|a|an|our|my|your)\s+(?:[\w-]+\s+){{0,2}}?(?:{_FRAME_NOUNS})s?"
    r"(?=\s*(?:[,.;:!?)]|$))|^(?:suppose|supposing|imagine|pretend|assume|assuming|hypothetically|let's\s+say|let\s+us\s+say|say\s+that)\b"
)


def framed(sentence: str) -> bool:
    """Whether ``sentence`` is framed as made up, so none of it is the user's: "In the test fixture,
    my name is John", "my name is John in the example", "Let's say I work at Initech"; not "I use
    pytest for the mock server", where the frame's noun names a thing."""
    return bool(_FRAME_RE.search(sentence))


def is_quotation(sentence: str, spans: list[str]) -> bool:
    """Whether ``sentence`` opens with a quotation mark, masked or not."""
    return tx.is_quoted(tx.unmask(sentence, spans))
