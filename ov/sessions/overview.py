"""An archive's working-memory overview: how `ov commit` writes it, and its text as the index matches it.

Every archive overview is laid out the same way: a title (the user's first sentence), a brief
("12 messages (2026-11-30 to 2026-12-01). The user asked: ..."), then the sections Current State,
Task & Goals, Key Facts & Decisions, Files & Context, Errors & Corrections and Open Issues, each a
list, "- none" when empty. The brief is also the archive's L0. Those fixed words say how ov lays a
summary out, not what the session was about, and the index leaves them out (:func:`searchable`):
kept, "any open issues?" or "what is the current state?" matched every archived session, and the
count "15 messages" a question about "August 15". The overview is written from the words here and
the index reads them from here, so the two agree.
"""

from __future__ import annotations

import re

from ov.regex import LazyPattern
from ov.sessions.messages import message_text, stored_parts
from ov.store import sidecar
from ov.summaries.text import truncate_generated

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
_ERROR_RE = LazyPattern(r"\b(error|exception|traceback|failed|failure|crash(?:ed)?)\b", re.IGNORECASE)
# "Let's" opens a decision only with a choice after it ("let's go with Postgres"); "let's fix the
# test" opens a goal.
_DECISION_RE = LazyPattern(
    r"\b(decided|decision|agreed|we will|we'll|let's (?:go with|use|keep|stick with|stay with|switch to|not)|going with|chose|choose|settled on)\b",
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
_CORRECTION_RE = LazyPattern(r"^\s*(actually|no[,.]|correction|that's wrong|not quite)\b", re.IGNORECASE)
# The brief's frame: the count around the span, then "The user asked:". The span's dates stay: they
# say when the session was, which a question may name ("what did Maria do in July 2023?").
_FRAME = LazyPattern(rf"^\d+ {MESSAGES_WORD}(?: \((?P<span>[^()\n]*)\))?\.(?P<asked> {re.escape(ASKED)}(?: |$))?")
_HEADINGS = tuple(f"## {heading}" for heading in SECTIONS)


def working_memory(messages: list[dict], session_id: str) -> str:
    """An extractive working-memory overview of archived messages (no LLM)."""
    user_texts = [message_text(m).strip() for m in messages if m.get("role") == "user" and message_text(m).strip()]
    assistant_texts = [message_text(m).strip() for m in messages if m.get("role") == "assistant" and message_text(m).strip()]
    title = _first_sentence(user_texts[0])[:80] if user_texts else f"{UNTITLED} {session_id}"
    # Lines an older ov or a hand edit wrote may have no time.
    days = [stamp[:10] for m in messages if isinstance(stamp := m.get("created_at"), str)]
    span = "" if not days else f" ({days[0]})" if days[0] == days[-1] else f" ({days[0]} {SPAN_TO} {days[-1]})"
    brief = f"{len(messages)} {MESSAGES_WORD}{span}."
    if user_texts:
        brief += f" {ASKED} {_first_sentence(user_texts[0])}"
    all_lines = [line.strip() for m in messages for line in message_text(m).splitlines() if line.strip()]
    sections = {
        CURRENT_STATE: _current_state(messages, assistant_texts),
        TASK: [_first_sentence(goal) for t in user_texts[:8] if (goal := _written(t))],
        FACTS: [line for line in all_lines if _DECISION_RE.search(line)][:8],
        FILES: sorted({p for m in messages for p in _PATH_RE.findall(message_text(m))} | _context_uris(messages))[:20],
        ERRORS: [line for line in all_lines if _ERROR_RE.search(line) or _CORRECTION_RE.match(line)][:8],
        OPEN_ISSUES: [t for t in user_texts[-5:] if t.rstrip().endswith("?")][:5],
    }
    out = [f"# {title}", "", brief, ""]
    for heading, items in sections.items():
        out.append(f"## {heading}")
        out.extend(f"- {item[:300]}" for item in dict.fromkeys(items)) if items else out.append(NONE)
        out.append("")
    return truncate_generated("\n".join(out).strip() + "\n", sidecar.OVERVIEW_MAX_CHARS)


def _current_state(messages: list[dict], assistant_texts: list[str]) -> list[str]:
    """The session's last word: the assistant's last sentence, unless the user spoke after it and
    said how it went ("That fixed it, tests pass now" outranks the "I'll look at ..." before it)."""
    said = [m for m in messages if m.get("role") in ("user", "assistant") and message_text(m).strip()]
    if said and said[-1].get("role") == "user":
        # Imported here: the index imports this module for searchable(), the rules only a commit needs.
        from ov.sessions.memory.experience import verdict

        if (word := verdict(message_text(said[-1]))) is not None:
            return [word[1] if word[1].endswith((".", "!")) else word[1] + "."]
    return [_first_sentence(assistant_texts[-1])] if assistant_texts else []


def _written(text: str) -> str:
    """What the user wrote of a message, without what they pasted: fenced blocks, log and code lines."""
    unfenced = _FENCED_RE.sub("\n", text)
    return "\n".join(line for line in unfenced.splitlines() if line.strip() and not _PASTED_RE.search(line)).strip()


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
    """An archive's overview as a context block shows it: without what its brief already says. The
    title is the user's first sentence and the brief ends with it ("The user asked: ..."), and so
    does the first item under Task & Goals: the same sentence three times in a few lines. The title
    and an item that is the asked sentence are left out, and a section they leave empty with them. Text in any other shape (an overview someone rewrote) is returned as it is."""
    lines = body.strip().splitlines()
    if not _in_template_shape(lines):
        return body
    frame = _FRAME.match(lines[2])
    if not frame.group("asked"):
        return body  # "Session {id}": a title the brief does not hold
    asked = " ".join(lines[2][frame.end() :].split())

    def said(line: str, *, cut: bool = False) -> bool:
        """Whether ``line`` is the asked sentence (``cut``: or its start, as the title is)."""
        words = " ".join(line.split())
        return bool(words) and (words == asked or (cut and asked.startswith(words)))

    out = [] if said(lines[0][2:], cut=True) else [lines[0], ""]
    out += [lines[2], ""]
    section: list[str] = []
    for line in [*lines[3:], "## "]:
        if line.startswith("## "):
            if any(item.strip() for item in section[1:]):
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
