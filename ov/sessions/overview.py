"""An archive's working-memory overview: how `ov commit` writes it, and its text as the index matches it.

Every archive overview is laid out the same way: a title (the first sentence the user wrote, not
pasted), a brief ("12 messages (2026-11-30 to 2026-12-01). The user asked: ..."), then the sections
Current State, Task & Goals, Key Facts & Decisions, Files & Context, Errors & Corrections and Open
Issues, each a list, "- none" when empty. The brief is also the archive's L0. Those fixed words
say how ov lays a summary out, not what the session was about, and the index leaves them out
(:func:`searchable`): kept, "any open issues?" or "what is the current state?" matched every
archived session, and the count "15 messages" a question about "August 15". The overview is
written from the words here and the index reads them from here, so the two agree.

Without a model the sections are picked by kind, and a section with nothing of its kind says
"none" rather than holding the nearest thing: a courtesy or an acknowledgement ("thanks", "You're
welcome.", "ok go ahead") fills none; the current state is the agent's last word that says
something; a goal is what the user asked for, a decision or a change they state ("we switched from
ruff to black", "the server moved to ...") is a key fact; an open issue is a question the agent
did not answer.
"""

from __future__ import annotations

import re
from itertools import dropwhile, islice, takewhile

from ov import tracebacks
from ov.regex import LazyPattern
from ov.sessions.messages import SUCCESS_SAID, courtesy_only, message_text, stored_parts
from ov.store import sidecar
from ov.summaries.text import as_sentence, asks, clipped, truncate_generated

# The sections, in the order they are written.
CURRENT_STATE, TASK, FACTS, FILES, ERRORS, OPEN_ISSUES = SECTIONS = (
    "Current State",
    "Task & Goals",
    "Key Facts & Decisions",
    "Files & Context",
    "Errors & Corrections",
    "Open Issues",
)
NONE = "- none"  # the item of an empty section
MESSAGES_WORD = "messages"  # "12 messages (2026-11-30 to 2026-12-01)."
SPAN_TO = "to"
ASKED = "The user asked:"
UNTITLED = "Session"  # the title of an archive without a user message: "Session {id}"

_PATH_RE = LazyPattern(r"(?<![\w/.-])(?:\.{0,2}/)?(?:[\w.-]+/)+[\w.-]+\.\w{1,8}\b|\b[\w-]+\.(?:py|md|ts|js|json|yaml|yml|toml|go|rs|java|sql|sh|txt)\b")
# An error named ("failed", "crashed") or raised: "TypeError: ...", "KeyError", "NullPointerException".
_ERROR_RE = LazyPattern(r"\b(error|exception|traceback|failed|failure|crash(?:ed)?)\b|\b(?-i:[A-Z]\w*(?:Error|Exception))\b", re.IGNORECASE)
# A decision by its verb ("we decided", "agreed", "settled on", "let's go with", "we'll use"), a
# change stated ("we switched from ruff to black", "the server moved to ...", "the docs are now on
# ...", "no longer", "not ... anymore"), or a rule from here on ("from now on", "always use").
# "Let's" and "we'll" decide only with a choice after them ("let's go with Postgres", "we'll keep
# v1"); "let's fix the test" and "we'll need retries" open a goal, and "the CI is now failing" is news.
_CHOICE = r"(?:go with|use|keep|stick with|stay with|switch to|move to|drop|adopt|not)"
_DECISION_RE = LazyPattern(
    rf"\b(?:decided|decision|agreed|(?:let's|we'll|we will|we(?:'re| are) going to) {_CHOICE}"
    r"|go(?:ing)? with|went with|chose|choose|picked(?! up)|settled on|opted for|standardi[sz]ed on"
    r"|(?:switch|migrat|mov|chang|upgrad|downgrad|renam|port)(?:ed|ing) (?:[\w.:/@-]+ ){0,4}?(?:from|to|over to)"
    r"|(?:is|are) now (?:at|in|on|under|called|named|set to|handled by|hosted on|served from)"
    r"|now (?:prefer|use|using|uses|live|lives|run|runs)|no longer|any ?more|from now on|going forward|(?:always|never) use)\b",
    re.IGNORECASE,
)
# What the agent says when it has not answered yet: "Let me check.", "I'll look into it.", "Looking."
_DEFERRAL_RE = LazyPattern(
    r"^(?:let me|i'll|i will|i'm going to|i am going to) (?:check|look|see|find out|investigate|dig|take a look|have a look)\b"
    r"|^(?:looking|checking|investigating|one moment|give me a)\b",
    re.IGNORECASE,
)
# The words that introduce what was pasted below them, as a sentence's last clause ("..., here's
# the log:", "..., stack below:", "... and I got this:"): with the paste left out, they point at nothing.
_INTRODUCES = LazyPattern(
    r"(?:^|[,;\u2013\u2014]\s*|\s+-\s+|\s+(?:and|so)\s+)"
    r"(?:(?:here(?:'s| is| are)?|see|this is|these are|below is|the following|(?:i|we) (?:got|get|see|saw) (?:this|these|the following)|it says)\b[^,;.!?]*"
    r"|[^,;.!?]*\b(?:below|here|follows|attached|above))\s*:$",
    re.IGNORECASE,
)
# A fenced block: pasted code or output, never a goal.
_FENCED_RE = LazyPattern(r"^[ \t]*(`{3,}|~{3,}).*?(?:^[ \t]*\1|\Z)", re.MULTILINE | re.DOTALL)
# A line that was pasted, not written: a log line (a timestamp, a level, a traceback or test runner
# line, "file.py:12"), a prompt, or code (a definition, an import, an assignment, a line opening or
# closing a block or ending in ";"). Case matters: "ERROR: ..." is a log, "Error handling is slow" a sentence.
_PASTED_RE = LazyPattern(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[ T]\d|\[?\d{1,2}:\d{2}:\d{2}|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE|FATAL|CRITICAL|FAILED|PASSED)\b"
    r"|Traceback \(most recent call last\)|File \"[^\"]+\", line \d|at [\w$.]+\(|E {2,}|[=_-]{3,}|\$ |>>> |[\w.]+(?:Error|Exception):"
    r"|[\w./-]+\.\w{1,8}:\d+|def \w+\s*\(|class \w+\s*[:({]|import [\w.]+(?: as \w+)?\s*;?$|from [\w.]+ import |(?:const|let|var) \w+\s*=|function\s*\w*\s*\("
    r"|#include\b|[{}\]]|</?[a-zA-Z][\w-]*[\s/>])|[;{]\s*$"
)
# A test runner's summary banner ("=== 1 failed, 141 passed in 4.21s ===") and a frame that only
# names where the error was ("tests/test_auth.py:89: AssertionError"): the error's own line says it.
_ERROR_FRAME_RE = LazyPattern(r"^\s*(?:\[tool [^\]]*\]\s*)?(?:[=_*-]{3,}.*[=_*-]{3,}|[\w./\\-]+:\d+:\s*[\w.]+)\s*$")
# What the user opens a remark with ("ah right, they rotated it", "oh I see, it was the cache"):
# an interjection, then a subject. Such a line tells how things are, and asks nothing.
_REMARK_RE = LazyPattern(
    r"^(?:(?:ah|oh|aha|ahh|ohh|right|i see|ok|okay|hm+|huh|yeah|yes|no|well|lol|got it|makes sense)\b[\s,.!:;-]*)+"
    r"(?:they|it|that|this|these|those|he|she|we|i|there)(?:'s|'re|'ve|'d|'ll)?\b",
    re.IGNORECASE,
)
_WANTED_RE = LazyPattern(r"\b(?:please|pls|can you|could you|would you|let's|i want|i need|we need|should)\b", re.IGNORECASE)
# A user's word that something is to be kept: "remember that ...", "for the record ...", "note that ...".
_NOTED_RE = LazyPattern(r"\b(?:remember that|remember:|for the record|note that|keep in mind|fyi|fwiw|don't forget)\b", re.IGNORECASE)
# The agent's word about what it will do ("I'll remember to use pytest -x -q from now on"): its
# promise, not the session's decision (the user's words hold that).
_PROMISE_RE = LazyPattern(r"^(?:i'll|i will|i'm going to|i am going to|will do|i'll make sure|i'll remember)\b", re.IGNORECASE)
_CORRECTION_RE = LazyPattern(r"^\s*(actually|no[,.]|correction|that's wrong|not quite)\b", re.IGNORECASE)
# The brief's frame: the count around the span, then "The user asked:". The span's dates stay: they
# say when the session was, which a question may name ("what did Maria do in July 2023?").
_FRAME = LazyPattern(rf"^\d+ {MESSAGES_WORD}(?: \((?P<span>[^()\n]*)\))?\.(?P<asked> {re.escape(ASKED)}(?: |$))?")
_HEADINGS = tuple(f"## {heading}" for heading in SECTIONS)


def working_memory(messages: list[dict], session_id: str) -> str:
    """An extractive working-memory overview of archived messages (no LLM)."""
    # What was said (a tool call's output is no one's words), in order, by whom.
    said = [(m["role"], text) for m in messages if m.get("role") in ("user", "assistant") and (text := message_text(m, said_only=True).strip())]
    user_texts = [text for role, text in said if role == "user"]
    asked = _asked(user_texts)
    title = clipped(asked, 80) if asked else f"{UNTITLED} {session_id}"
    # Lines an older ov or a hand edit wrote may have no time.
    days = [stamp[:10] for m in messages if isinstance(stamp := m.get("created_at"), str)]
    span = "" if not days else f" ({days[0]})" if days[0] == days[-1] else f" ({days[0]} {SPAN_TO} {days[-1]})"
    brief = f"{len(messages)} {MESSAGES_WORD}{span}."
    if asked:
        brief += f" {ASKED} {asked}"
    all_lines = [line.strip() for m in messages for line in message_text(m).splitlines() if line.strip()]
    sections = {
        CURRENT_STATE: _current_state(said),
        TASK: [goal for text in user_texts[:8] if (goal := _gist(_written(text))) and not _decides(goal) and not _remark(goal)],
        FACTS: _decisions(said)[:8],
        FILES: sorted({p for m in messages for p in _PATH_RE.findall(message_text(m))} | _context_uris(messages))[:20],
        ERRORS: [line for line in all_lines if (_ERROR_RE.search(line) and not tracebacks.is_header(line) and not _ERROR_FRAME_RE.match(line)) or _CORRECTION_RE.match(line)][:8],
        OPEN_ISSUES: _open_questions(said)[-5:],
    }
    out = [f"# {title}", "", brief, ""]
    for heading, items in sections.items():
        out.append(f"## {heading}")
        out.extend(f"- {item[:300]}" for item in dict.fromkeys(items)) if items else out.append(NONE)
        out.append("")
    return truncate_generated("\n".join(out).strip() + "\n", sidecar.OVERVIEW_MAX_CHARS)


def _asked(user_texts: list[str]) -> str:
    """What the session was asked: the first sentence the user wrote that says something ("hi" and
    a pasted traceback are passed over: "The hook crashes, here's the log:" over the log's first
    line). A session whose user only pasted: the first sentence of that paste, its traceback read
    for its error (``TypeError: ...``) rather than its frames."""
    asked = next((gist for text in user_texts if (gist := _gist(_written(text)))), "")
    if asked or not user_texts:
        return asked
    focused = tracebacks.focus(user_texts[0])
    return _first_sentence(focused.splitlines()[0] if focused != user_texts[0] else focused)  # a traceback's error line


def _gist(text: str) -> str:
    """The first sentence of ``text`` that says something (not "great.", "ok go ahead.")."""
    from ov.sessions.memory.text import split_sentences

    # A line of its own that says nothing ("hey", "Morning!") would open the first sentence.
    flat = " ".join(" ".join(line.split()) for line in text.splitlines() if not courtesy_only(line))
    sentences = (as_sentence(_INTRODUCES.sub("", sentence)) if sentence.endswith(":") else sentence for sentence in split_sentences(flat, semicolon=False))
    return next((sentence[:240] for sentence in sentences if not courtesy_only(sentence)), "")


def _current_state(said: list[tuple[str, str]]) -> list[str]:
    """The session's last word: the agent's last sentence that says something ("You're welcome."
    does not), unless the user spoke after it and said how it went ("That fixed it, tests pass
    now" outranks the "I'll look at ..." before it)."""
    if said and said[-1][0] == "user":
        # Imported here: the index imports this module for searchable(), the rules only a commit needs.
        from ov.sessions.memory.experience import verdict

        if (word := verdict(said[-1][1])) is not None:
            return [word[1] if word[1].endswith((".", "!")) else word[1] + "."]
    return next(([gist] for role, text in reversed(said) if role == "assistant" and (gist := _gist(_written(text)))), [])


def _decides(line: str) -> bool:
    """Whether ``line`` decides or states a change (:data:`_DECISION_RE`); a question never does
    ("should we go with Postgres?" is asked, not decided)."""
    return bool(_DECISION_RE.search(line)) and not asks(line) and not courtesy_only(line)


def _decisions(said: list[tuple[str, str]]) -> list[str]:
    """The lines that decide or state a change, a paste's never. The agent's line that opens with
    an acknowledgement ("Got it: 4-space indentation from now on.") says again what the user
    decided, which is kept already."""
    from ov.sessions.memory.text import split_sentences

    found = []
    for role, text in said:
        for line in _written(text).splitlines():
            line = line.strip()
            if role == "user" and _NOTED_RE.search(line):
                # What the user asked to be remembered is a fact of the session, decided or not
                # ("remember that staging Postgres is on db.staging.internal port 5432").
                found.extend(sentence for sentence in split_sentences(line, semicolon=False) if _NOTED_RE.search(sentence))
                continue
            if role == "assistant":
                line = " ".join(sentence for sentence in split_sentences(line, semicolon=False) if not _PROMISE_RE.search(sentence))
            if not _decides(line):
                continue
            if role == "assistant" and courtesy_only(re.split(r"[:,;.!\u2013\u2014-]", line, maxsplit=1)[0]):
                continue
            found.append(line)
    return found


def _remark(goal: str) -> bool:
    """Whether a user's sentence is a remark, not a goal: it hands over a secret (redacted, it says
    nothing to do: "my github token is [REDACTED:github_token] if you need it"), is a note ("fyi
    the bucket is ...": a key fact), or opens with an
    interjection and a subject (:data:`_REMARK_RE`) or says how the work went ("that fixed it"),
    and neither asks nor wants anything."""
    if "[REDACTED" in goal or _NOTED_RE.search(goal):
        return True  # (a note is a key fact)
    said = bool(_REMARK_RE.search(goal) or SUCCESS_SAID.search(goal))  # "that fixed it": a verdict, no goal
    return said and not asks(goal) and not _WANTED_RE.search(goal)


def _open_questions(said: list[tuple[str, str]]) -> list[str]:
    """The user's questions the agent did not answer: no reply of its own that says something other
    than a question back or "let me check", before the user spoke again (after the messages the
    user sent in a row: one reply may answer them all)."""
    unanswered = []
    for i, (role, text) in enumerate(said):
        if role != "user" or not asks(text):
            continue
        replies = dropwhile(lambda message: message[0] == "user", islice(said, i + 1, None))
        if not any(_answers(reply) for _, reply in takewhile(lambda message: message[0] == "assistant", replies)):
            unanswered.append(text)
    return unanswered


def _answers(reply: str) -> bool:
    """Whether the agent's ``reply`` says something that can answer: a sentence other than a
    courtesy, a question of its own ("Do you want me to rotate it?") or a deferral ("Let me check.")."""
    from ov.sessions.memory.text import split_sentences

    return any(
        not (courtesy_only(sentence) or asks(sentence) or _DEFERRAL_RE.search(sentence))
        for sentence in split_sentences(" ".join(_written(reply).split()), semicolon=False)
    )


def _written(text: str) -> str:
    """What the user wrote of a message, without what they pasted: fenced blocks, a traceback
    (its frames' source lines too), log and code lines."""
    lines = _FENCED_RE.sub("\n", text).splitlines()
    if (pasted := tracebacks.span(lines)) is not None:
        lines = lines[: pasted[0]] + lines[pasted[1] + 1 :]
    return "\n".join(line for line in lines if line.strip() and not _PASTED_RE.search(line)).strip()


def searchable(body: str) -> str:
    """An archive's overview (L1) or brief (L0) as the index matches it: without the template's words.

    The brief keeps only the dates of its span and what the user asked ("12 messages (2026-11-30 to
    2026-12-01). The user asked: X" gives "2026-11-30 2026-12-01 X"); an overview in the template's
    shape also loses its section headings, the "- none" of an empty section, and the "Session" of a
    title made of the session id. What the user and the agent said (the title, the asked sentence,
    the items: goals, decisions, file paths, errors, questions) stays. Text in any other shape (an
    overview someone rewrote) is returned as it is.
    """
    lines = body.strip().splitlines()
    if not lines:
        return ""
    if _FRAME.match(lines[0]):  # the L0: the brief alone (perhaps cut short)
        return "\n".join([_unframed(lines[0]), *lines[1:]]).strip()
    if not _in_template_shape(lines):
        return body
    asked = bool(_FRAME.match(lines[2]).group("asked"))
    out = [lines[0] if asked else lines[0].replace(f"# {UNTITLED} ", "# ", 1), "", _unframed(lines[2])]
    out += [line for line in lines[3:] if line.strip() not in (*_HEADINGS, NONE)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def shown(body: str) -> str:
    """An archive's overview as a context block shows it: without what its brief already says, nor
    its empty sections. The title is the user's first sentence and the brief ends with it ("The
    user asked: ..."), and so does the first item under Task & Goals: the same sentence three times
    in a few lines. The title and an item that is the asked sentence are left out, and a section
    they leave empty with them. A section that holds only "- none" says nothing to an agent, and
    "Key Facts & Decisions: none" read as a fact; it is left out too. Text in any other shape (an
    overview someone rewrote) is returned as it is."""
    lines = body.strip().splitlines()
    if not _in_template_shape(lines):
        return body
    frame = _FRAME.match(lines[2])
    if not frame.group("asked"):
        return body  # "Session {id}": a title the brief does not hold
    asked = " ".join(lines[2][frame.end() :].split())

    def said(line: str, *, cut: bool = False) -> bool:
        """Whether ``line`` is the asked sentence (``cut``: or its start, as the title is, with "..." when cut)."""
        words = " ".join(line.split())
        return bool(words) and (words == asked or (cut and asked.startswith(words.removesuffix("..."))))

    out = [] if said(lines[0][2:], cut=True) else [lines[0], ""]
    out += [lines[2], ""]
    section: list[str] = []
    for line in [*lines[3:], "## "]:
        if line.startswith("## "):
            if any(item.strip() not in ("", NONE) for item in section[1:]):
                out += section
            section = [line]
        elif not (line.startswith("- ") and said(line[2:])):
            section.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _unframed(brief: str) -> str:
    """The brief without its frame: its dates, then what the user asked."""
    return _FRAME.sub(lambda m: (m.group("span") or "").replace(f" {SPAN_TO} ", " ") + " ", brief).strip()


def _in_template_shape(lines: list[str]) -> bool:
    """Whether an overview is laid out as :func:`working_memory` lays it out: a title, the brief, and
    the sections in their order (the last ones may be cut off)."""
    if len(lines) < 3 or not lines[0].startswith("# ") or lines[1].strip() or not _FRAME.match(lines[2]):
        return False
    # The sections are its only "## " lines (another is a rewrite); any other line continues the
    # item above it (a question with a pasted log, which may hold a "# ..." line of its own).
    headings = [line.strip() for line in lines[3:] if line.startswith("## ")]
    return headings == list(_HEADINGS[: len(headings)])


def _context_uris(messages: list[dict]) -> set[str]:
    return {p["uri"] for m in messages for p in stored_parts(m) if p.get("type") == "context" and isinstance(p.get("uri"), str)}


def _first_sentence(text: str) -> str:
    """``text`` up to its first sentence end (a ``.``, ``!`` or ``?`` before a space, not after an
    abbreviation: "Dr. Smith"), at most 240 characters. One scan for the end: a lazy pattern searched
    from every position took minutes on a pasted log with no sentence end."""
    # Cut as statements are: one notion of where a sentence ends.
    from ov.sessions.memory.text import split_sentences

    flat = " ".join(text.split())
    return next(split_sentences(flat, semicolon=False), flat)[:240]
