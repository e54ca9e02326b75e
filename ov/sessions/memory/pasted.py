"""Text the user pasted into a message: an email, a chat log, a letter, a git log.

None of it is the user speaking to the agent, whatever its "I" says ("From: Dana ... I always use
single quotes", "Bob Smith  10:42 AM / I prefer tabs"): each of its lines is masked as one span
(:func:`ov.sessions.memory.text.mask`), as code is, so that no rule reads it.

- an email's or a commit's headers: two header lines in a row ("From:", "To:", "Subject:",
  "Date:", "Author:", ...), one "From:" or "Author:" naming an address ("From: Dana
  <dana@acme.com>"), or a git log's "commit 3f2a9c1": from there to the end of the message;
- a chat log's speaker line: a name and a time ("Bob Smith  10:42 AM", "Bob — Today at 10:42",
  "[10:42] Bob: ...", "[5/1/26, 10:42:01] Bob: ..."): from there to the end of the message;
- a letter: a greeting line ("Hi Priya,", "Dear team,") and, below it, a sign-off that names
  its writer ("Best, Sarah", "Thanks,\\nSarah"): from the greeting to the name.

The user's words before a paste stay theirs ("Can you reply to this?"); after a header block or a
chat log, the rest of the message is taken as pasted, since neither says where it ends: a
statement lost there is missed, where one read from it would be a false memory.
"""

from __future__ import annotations

import re

from ov.sessions.memory import text as tx

_HEADER_RE = re.compile(
    r"(?i)^\s*(?:from|to|cc|bcc|subject|date|sent|reply-to|author|commit|merge|authordate|commitdate)\s*:\s*\S"
)
_ADDRESSED_RE = re.compile(r"(?i)^\s*(?:from|author)\s*:.*?[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_GIT_COMMIT_RE = re.compile(r"^\s*commit\s+[0-9a-f]{7,40}\b")
_TIME = r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?"
_DATE = r"\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?"
_SPEAKER = r"(?:@?[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}|\*\*[^*\n]{1,40}\*\*|<[^<>\n]{1,40}>|@[\w.-]+)"
_WHEN = rf"\[?(?:(?:(?i:today|yesterday)\s+at\s+)?(?:{_DATE}\s*)?{_TIME})\]?"
_SPEAKER_LINE_RE = re.compile(
    rf"^\s*{_SPEAKER}\s*(?:[,\u2013\u2014-]\s*)?{_WHEN}\s*:?\s*$"  # "Bob Smith  10:42 AM"
    rf"|^\s*{_WHEN}\s*[\u2013\u2014-]?\s*{_SPEAKER}\s*:"  # "[10:42] Bob: hi"
)
_GREETING_RE = re.compile(r"(?i)^\s*(?:hi|hello|hey|dear|greetings|good\s+(?:morning|afternoon|evening))\b[^\n.?]{0,40}[,:!]?\s*$")
_SIGN_OFF_RE = re.compile(
    r"(?i)^\s*(?:best(?:\s+(?:regards|wishes))?|(?:kind|warm|warmest|many)\s+(?:regards|thanks)|regards|thanks(?:\s+again)?|"
    r"thank\s+you|cheers|sincerely|yours(?:\s+(?:truly|sincerely))?|all\s+the\s+best|take\s+care|talk\s+soon|love|--|\u2014)"
    r"\s*[,!.]?\s*(?P<name>(?-i:[A-Z])[\w.'-]*(?:\s+(?-i:[A-Z])[\w.'-]*){0,2})?\s*$"
)
_NAME_LINE_RE = re.compile(r"^\s*[-\u2013\u2014~]*\s*[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}\s*$")


def mask_pasted(text: str, spans: list[str]) -> str:
    """``text`` with the lines of each paste it holds masked (see the module's notes)."""
    lines = text.split("\n")
    start = next((i for i in range(len(lines)) if _opens_a_log(lines, i)), len(lines))
    pasted = set(range(start, len(lines)))
    for first, last in _letters(lines[:start]):
        pasted.update(range(first, last + 1))
    return "\n".join(tx.mask(line, spans) if i in pasted and line.strip() else line for i, line in enumerate(lines))


def _opens_a_log(lines: list[str], i: int) -> bool:
    """Whether ``lines[i]`` opens an email's or a commit's headers, or a chat log."""
    line = lines[i]
    if _GIT_COMMIT_RE.match(line) or _ADDRESSED_RE.match(line) or _SPEAKER_LINE_RE.match(line):
        return True
    return bool(_HEADER_RE.match(line)) and i + 1 < len(lines) and bool(_HEADER_RE.match(lines[i + 1]))


def _letters(lines: list[str]) -> list[tuple[int, int]]:
    """The (first, last) line of each letter: a greeting, then a sign-off that names its writer."""
    found, greeting = [], None
    for i, line in enumerate(lines):
        if greeting is None:
            greeting = i if _GREETING_RE.match(line) else None
            continue
        sign_off = _SIGN_OFF_RE.match(line)
        if sign_off is None:
            continue
        if sign_off.group("name"):
            found.append((greeting, i))
            greeting = None
            continue
        following = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if following is not None and _NAME_LINE_RE.match(lines[following]):
            found.append((greeting, following))
            greeting = None
    return found
