"""Text the user pasted into a message: an email, a chat log, a letter, a git log.

None of it is the user speaking to the agent, whatever its "I" says ("From: Dana ... I always use
single quotes", "Bob Smith  10:42 AM / I prefer tabs"): each of its lines is masked as one span
(:func:`ov.sessions.memory.text.mask`), as code is, so that no rule reads it.

- an email's or a commit's headers: two header lines in a row ("From:", "To:", "Subject:",
  "Date:", "Author:", ...), one "From:" or "Author:" naming an address ("From: Dana
  <dana@acme.com>"), or a git log's "commit 3f2a9c1": from there to the end of the message;
- a chat log's speaker line: a name and a time ("Bob Smith  10:42 AM", "Bob — Today at 10:42",
  "[10:42] Bob: ...", "[5/1/26, 10:42:01] Bob: ..."): from there to the end of the message. Never a
  day's plan ("Monday 9:30", "Standup 10:42"); and one capitalised word and a time ("Bob 10:42")
  only with another speaker line below it;
- a letter: a greeting line that names someone other than the agent ("Hi Priya,", "Dear team,";
  not "Hi,", "Hey Claude,", "Hi there,") and, below it, a sign-off that names another, its writer
  ("Best, Sarah", "Thanks,\\nSarah"): from the greeting to the name. "Hi,\\n...\\nThanks,\\nBob" is
  the user signing their own message;
- a traceback (Python, pytest, JavaScript, Java, Rust: :func:`ov.tracebacks.span`, as retrieval
  reads one): from its header or first frame to its error lines;
- a text given to be worked on: after a colon whose clause asks for a text to be changed or
  repeated ("Translate to German:", "proofread this:", "Here is the README intro, tighten it:",
  "Can you make it sound friendlier:"), from the colon to the end of the message. The clause opens
  with the verb (after "please", "can you", "I want you to", ...): "I edit the docs: I prefer short
  pages" is the user's.

The user's words before a paste stay theirs ("Can you reply to this?"); after a header block or a
chat log, the rest of the message is taken as pasted, since neither says where it ends: a
statement lost there is missed, where one read from it would be a false memory.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx
from ov.sessions.memory.capitals import UPPER
from ov.tracebacks import span

_HEADER_RE = re.compile(
    r"(?i)^\s*(?:from|to|cc|bcc|subject|date|sent|reply-to|author|commit|merge|authordate|commitdate)\s*:\s*\S"
)
_ADDRESSED_RE = re.compile(r"(?i)^\s*(?:from|author)\s*:.*?[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_GIT_COMMIT_RE = re.compile(r"^\s*commit\s+[0-9a-f]{7,40}\b")
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?"
_DATE = r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?"
# Who speaks: a person's name (two capitalised words, or one), or a handle ("@bob", "**Bob**", "<bob>").
_HANDLE = r"@[\w.-]+|\*\*[^*\n]{1,40}\*\*|<[^<>\n]{1,40}>"
_SPEAKER = rf"(?P<who>@?{UPPER}[\w.'-]*(?:\s+{UPPER}[\w.'-]*){{0,3}}|{_HANDLE})"
_WHEN = rf"\[?(?:(?:(?i:today|yesterday)\s+at\s+)?(?:{_DATE}\s*)?{_TIME})\]?"
_SPEAKER_LINE_RE = re.compile(rf"^\s*{_SPEAKER}\s*(?:[,\u2013\u2014-]\s*)?{_WHEN}\s*:?\s*$")  # "Bob Smith  10:42 AM"
_SAID_LINE_RE = re.compile(rf"^\s*{_WHEN}\s*[\u2013\u2014-]?\s*{_SPEAKER}\s*:")  # "[10:42] Bob: hi": a message of its own
# Words of a day's plan, not of a name: "Monday 9:30", "Standup 10:42", "Lunch 12:00" (not "May", "Jan": names too).
_NOT_SPEAKERS = frozenset((
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "mon", "tue", "tues",
    "wed", "thu", "thurs", "fri", "sat", "sun", "today", "tomorrow", "tonight", "yesterday", "morning",
    "afternoon", "evening", "noon", "midnight", "january", "february", "march", "april", "june",
    "july", "august", "september", "october", "november", "december", "feb", "mar", "apr", "jun",
    "jul", "aug", "sep", "sept", "oct", "nov", "dec", "standup", "stand-up", "sync", "meeting", "call",
    "lunch", "breakfast", "dinner", "break", "review", "demo", "retro", "planning", "interview",
    "deadline", "start", "end", "update", "kickoff",
))
_GREETING_RE = re.compile(
    r"(?i)^\s*(?:hi|hello|hey|dear|greetings|good\s+(?:morning|afternoon|evening))\b\s*(?P<to>[^\n.?,:!]{0,40}?)\s*[,:!]?\s*$"
)
# Whom a user greets in their own message: the agent ("Hey Claude,"), or no one ("Hi there,").
ADDRESSEES = frozenset(("claude", "codex", "gemini", "cursor", "opencode", "copilot", "assistant", "there"))
_SIGN_OFF_RE = re.compile(
    r"(?i)^\s*(?:best(?:\s+(?:regards|wishes))?|(?:kind|warm|warmest|many)\s+(?:regards|thanks)|regards|thanks(?:\s+again)?|"
    r"thank\s+you|cheers|sincerely|yours(?:\s+(?:truly|sincerely))?|all\s+the\s+best|take\s+care|talk\s+soon|love|--|\u2014)"
    rf"\s*[,!.]?\s*(?P<name>(?-i:{UPPER})[\w.'-]*(?:\s+(?-i:{UPPER})[\w.'-]*){{0,2}})?\s*$"
)
_NAME_LINE_RE = re.compile(rf"^\s*[-\u2013\u2014~]*\s*{UPPER}[\w.'-]*(?:\s+{UPPER}[\w.'-]*){{0,2}}\s*$")
# Verbs whose object is a text to change or repeat; "make", "fix", "turn" only with a text's
# words after them ("make it shorter", "fix the grammar", "turn this into a tweet").
_EDIT_VERBS = (
    r"translate|proof-?read|tighten|rewrite|re-write|rephrase|reword|paraphrase|edit|copy-?edit|polish|shorten|condense|"
    r"summari[sz]e|simplify|improve|correct|critique|trim|soften|refine|reformat|transcribe|quote|repeat|locali[sz]e|"
    r"spell-?check|(?:clean|tidy|punch|smooth|spruce)\s+(?:\w+\s+)?up|make\s+(?:it|this|that|these|them)\b|"
    r"(?:fix|check)\s+(?:the\s+)?(?:grammar|typos|spelling|wording|phrasing|tone|punctuation)|turn\s+(?:it|this|that)\s+into"
)
# What may stand before the verb in its clause: courtesy, a request to the agent, a sequence word.
_ASKING = (
    r"(?:(?:please|pls|kindly|now|then|also|just|and|so|(?:can|could|would|will)\s+you|help\s+me"
    r"|(?:i|we)(?:'d|\s+would)?\s+(?:want|need|like)\s+you\s+to)\s+)*"
)
# The verb with words after it: "Edit: I meant tabs" is the user's own correction.
_EDIT_ASKED_RE = re.compile(rf"(?i)^\s*{_ASKING}(?:{_EDIT_VERBS})\b\s+[^:\s][^:]*$")
_INTRODUCING_COLON_RE = re.compile(r":(?=\s|$)")
# Where a clause of the colon's line starts: after a sentence's end, a comma, a semicolon or a dash.
_CLAUSE_START_RE = re.compile(r"(?:[.!?;,]|\s[-\u2013\u2014])\s+")


def mask_pasted(text: str, spans: list[str]) -> str:
    """``text`` with the lines of each paste it holds masked (see the module's notes)."""
    lines = text.split("\n")
    start = next((i for i in range(len(lines)) if _opens_a_log(lines, i)), len(lines))
    pasted = set(range(start, len(lines)))
    for first, last in _letters(lines[:start]):
        pasted.update(range(first, last + 1))
    traceback = span(lines)
    if traceback is not None:
        pasted.update(range(traceback[0], traceback[1] + 1))
    to_edit = _text_to_edit(lines)
    if to_edit is not None:
        row, column = to_edit
        pasted.update(range(row + 1, len(lines)))
        rest = lines[row][column:].lstrip()
        if rest and row not in pasted:
            lines[row] = lines[row][: len(lines[row]) - len(rest)] + tx.mask(rest, spans)
    return "\n".join(tx.mask(line, spans) if i in pasted and line.strip() else line for i, line in enumerate(lines))


def wholly_pasted(text: str) -> bool:
    """Whether every word of ``text`` is in what was pasted (see the module's notes): nothing of it
    is the user's to remember."""
    spans: list[str] = []
    masked = mask_pasted(text, spans)
    return not re.search(r"\w", tx.unmask(masked, [""] * len(spans)))  # what is left once each paste is taken out


def _text_to_edit(lines: list[str]) -> tuple[int, int] | None:
    """The line and the column after the first colon that asks for the text after it to be worked
    on ("Translate to German:", "Here is the intro, tighten it:"), or None."""
    for row, line in enumerate(lines):
        for colon in _INTRODUCING_COLON_RE.finditer(line):
            lead = line[: colon.start()]
            clause = lead[max((m.end() for m in _CLAUSE_START_RE.finditer(lead)), default=0) :]
            if _EDIT_ASKED_RE.match(clause):
                return row, colon.end()
    return None


def _opens_a_log(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` opens an email's or a commit's headers, or a chat log."""
    line = lines[i]
    if _GIT_COMMIT_RE.match(line) or _ADDRESSED_RE.match(line):
        return True
    speaker = _speaker(line)
    if speaker is not None:
        # One capitalised word and a time ("Alice — Today at 10:42") opens a log only with another
        # speaker below: alone, it is as likely a heading of the user's own.
        return speaker or any(_speaker(other) is not None for other in lines[i + 1 :])
    return bool(_HEADER_RE.match(line)) and i + 1 < len(lines) and bool(_HEADER_RE.match(lines[i + 1]))


def _speaker(line: str) -> bool | None:
    """Whether ``line`` is a chat log's speaker line: None when not, True when surely (a message on
    the line, a handle, a full name), False when it only may be (one word: "Alice 10:42")."""
    said = _SAID_LINE_RE.match(line)
    match = said or _SPEAKER_LINE_RE.match(line)
    if match is None:
        return None
    who = match.group("who")
    if _NOT_SPEAKERS.intersection(re.findall(r"[a-z-]+", who.lower())):
        return None
    return bool(said) or not who[:1].isupper() or len(who.split()) > 1


def _letters(lines: list[str]) -> list[tuple[int, int]]:
    """The (first, last) line of each letter: a greeting, then a sign-off that names its writer."""
    found, greeting = [], None
    for i, line in enumerate(lines):
        if greeting is None:
            hello = _GREETING_RE.match(line)
            to = hello.group("to").lower() if hello else ""
            # a letter greets someone other than the agent ("Hi Priya,"): "Hi," or "Hey Claude," opens the user's own message
            greeting, to = (i, to) if to and to.split()[0] not in ADDRESSEES else (None, "")
            continue
        sign_off = _SIGN_OFF_RE.match(line)
        if sign_off is None:
            continue
        writer, last = sign_off.group("name"), i
        if not writer:  # "Thanks,\nSarah"
            last = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
            writer = lines[last] if last is not None and _NAME_LINE_RE.match(lines[last]) else ""
        if writer and writer.strip(" -\u2013\u2014~").lower() != to:
            found.append((greeting, last))
            greeting = None
    return found
