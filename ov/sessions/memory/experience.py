"""An experience from a session that shows a task done: goal, steps, outcome (no LLM).

Three things must all be there, or nothing is extracted:

=========  ==================================================================
goal       a user message, among the first three, opening with a task: "let's
           / please / can you / help me / I need to / we need to" (two at
           most: "can you help me add ...") and a verb
           such as fix, add, debug, implement, refactor, migrate ... ("Let's
           fix the flaky login test"), or that verb alone ("Fix the build")
steps      assistant and tool messages after the goal: each tool call
           (its name and command, path or query; "(error)" when it failed)
           and the first sentence of each assistant text (past a bare
           "Sure." or "OK."), at most
           ``MAX_STEPS``
outcome    the last user message says it worked ("that fixed it", "it works
           now", "tests pass now", "problem solved", ...), with no "not",
           "still", "but", "if" or question in that sentence and no "fails",
           "error", "broke", ... anywhere in the message
=========  ==================================================================

The experience is ``experiences/{verb}_{slug(goal)}.md`` with the schema's
three sections: Situation (the goal, as the user put it), Approach (the
steps, numbered) and Reflect (the outcome, quoting the user). Only ``user``,
``assistant`` and ``tool`` messages count; what they say is never read as a
statement about the user. A later session
with the same goal replaces it, as the schema's ``replace`` merge says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ov.sessions.memory import text as tx
from ov.sessions.memory.rules import informative

MAX_STEPS = 10
# A step or a goal longer than this is cut: an experience is a distillate, not a log.
MAX_STEP_CHARS = 160
MAX_INPUT_CHARS = 100
GOAL_WINDOW = 3  # the goal is stated in one of the first user messages, or the session is not about one task

_TASK_VERBS = (
    "fix|debug|add|implement|write|refactor|update|remove|delete|migrate|upgrade|investigate|speed up|optimi[sz]e|"
    "set up|configure|rename|port|create|build|resolve|repair|clean up|improve|convert|deploy|document|make"
)
_GOAL_RE = re.compile(
    r"^(?:(?:ok|okay|so|hey|hi|hello|now|alright)\b[,!]?\s+)*"
    r"(?:(?:let's|let\s+us|please|can\s+you|could\s+you|would\s+you|help\s+me|I\s+need\s+to|I\s+want\s+to|"
    r"we\s+need\s+to|I'd\s+like\s+to|I\s+would\s+like\s+to|we\s+should)\s+){0,2}"
    rf"(?:please\s+)?(?P<verb>{_TASK_VERBS})\s+(?P<x>.+)$",
    re.I,
)
_SUCCESS_RE = re.compile(
    r"(?i)\b(?:(?:that|this|it|you)\s+(?:fixed|solved|did)\s+it|(?:that|this|it)\s+(?:works|worked|did\s+the\s+trick)|"
    r"works\s+now|working\s+now|(?:it's|it\s+is|that's|that\s+is)\s+(?:fixed|solved|working)|fixed\s+now|problem\s+solved|"
    r"(?:all\s+)?(?:the\s+)?(?:tests?|ci|build|checks?)\s+(?:pass|passes|passed|are\s+passing|is\s+passing|is\s+green|are\s+green)\b)"
)
# A success sentence with one of these is hedged or negated: "not fixed", "still fails", "but", "if".
_HEDGE_RE = re.compile(r"(?i)\b(?:not|no|never|still|but|if|unless|until|almost|partly|except)\b|n't\b")
# Anywhere in the closing message, these leave the outcome unclear: "That fixed it. The e2e test fails though."
_FAILURE_RE = re.compile(r"(?i)\b(?:fail(?:s|ed|ing|ure)?|broken|broke|error|errors|crash(?:es|ed)?|regress(?:ed|ion)?)\b")
# A step is the first sentence of an assistant text; unlike a statement it runs on past "; ".
_SENTENCE_RE = re.compile(r"[^.!?]+(?:[.!?]+|$)")
_INPUT_KEYS = ("command", "cmd", "file_path", "path", "pattern", "query", "url")
# "Sure." opening an assistant's text is no step: the sentence after it is.
_ACK_RE = re.compile(r"(?i)^(?:sure|ok|okay|alright|all\s+right|certainly|of\s+course|got\s+it|great|absolutely|will\s+do|on\s+it)[.!,]*$")


def extract_experience(messages: Sequence[Mapping[str, Any]], *, when: datetime) -> tuple[dict[str, str], list[str]] | None:
    """The fields of the experience a session shows and its source message ids, or None when
    goal, steps or outcome is missing."""
    users = [(i, m) for i, m in enumerate(messages) if m.get("role") == "user" and tx.message_text(m).strip()]
    goal = next(((i, m, g) for i, m in users[:GOAL_WINDOW] if (g := _goal(tx.message_text(m)))), None)
    if goal is None or users[-1][0] == goal[0]:
        return None
    start, goal_message, (verb, task) = goal
    last_index, last = users[-1]
    outcome = _success(tx.message_text(last))
    steps = _steps(messages[start + 1 : last_index])
    if outcome is None or not steps:
        return None
    day = tx.message_time(last, when).strftime("%Y-%m-%d")
    content = "\n".join(
        [
            "## Situation",
            "",
            f"Goal: {verb.lower()} {task}.",
            "",
            "## Approach",
            "",
            *(f"{n}. {step}" for n, step in enumerate(steps, start=1)),
            "",
            "## Reflect",
            "",
            f"Outcome: success; the user confirmed \"{outcome}\" ({day}).",
        ]
    )
    name = "_".join(verb.lower().split()) + "_" + tx.slug(task, fallback="task")
    sources = [str(m.get("id")) for m in (goal_message, last) if m.get("id")]
    return {"name": name, "content": content}, sources


def _goal(text: str) -> tuple[str, str] | None:
    masked, spans = tx.strip_code(text)
    first = next(iter(tx.sentences(masked)), "")
    if tx.is_quoted(first):
        return None
    match = _GOAL_RE.match(tx.clean(first.rstrip("?")))
    if not match:
        return None
    task = tx.clean(tx.unmask(match.group("x"), spans))[:MAX_STEP_CHARS]
    return (match.group("verb"), task) if informative(task) else None


def _success(text: str) -> str | None:
    masked, _spans = tx.strip_code(text)
    if _FAILURE_RE.search(masked):
        return None
    found = None
    for sentence in tx.sentences(masked):
        if tx.is_question(sentence) or tx.is_quoted(sentence):
            continue
        if _SUCCESS_RE.search(sentence):
            if _HEDGE_RE.search(sentence):
                return None  # "it works now but the other test fails": not a clear outcome
            found = tx.clean(sentence)
    return found


def _steps(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    steps: list[str] = []
    by_tool_id: dict[str, int] = {}
    for message in messages:
        if message.get("role") not in ("assistant", "tool"):
            continue
        said = False  # an assistant message adds its first sentence, then its tool calls, in order
        for part in message.get("parts") or ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "text" and message.get("role") == "assistant" and not said:
                masked, spans = tx.strip_code(str(part.get("text") or ""))
                sentences = _SENTENCE_RE.findall(" ".join(masked.split()))
                first = next((s for s in sentences if not tx.is_question(s) and not _ACK_RE.match(s.strip())), "")
                if first:
                    steps.append(_cut(tx.clean(tx.unmask(first, spans))))
                    said = True
            elif part.get("type") == "tool":
                _tool_step(part, steps, by_tool_id)
    deduped = [s for n, s in enumerate(steps) if s and (n == 0 or s != steps[n - 1])]
    return deduped[:MAX_STEPS]


def _tool_step(part: Mapping[str, Any], steps: list[str], by_tool_id: dict[str, int]) -> None:
    failed = part.get("tool_status") == "error"
    if "tool_input" not in part:  # a result: it tells how its call went
        index = by_tool_id.get(str(part.get("tool_id")))
        if failed and index is not None and not steps[index].endswith("(error)"):
            steps[index] += " (error)"
        return
    step = _cut(f"{part.get('tool_name') or 'tool'}: {_input_summary(part.get('tool_input'))}")
    steps.append(step + (" (error)" if failed else ""))
    if "tool_id" in part:
        by_tool_id[str(part["tool_id"])] = len(steps) - 1


def _input_summary(value: Any) -> str:
    if isinstance(value, Mapping):
        for key in _INPUT_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return "`" + _cut(" ".join(value[key].split()).replace("`", "'"), MAX_INPUT_CHARS) + "`"
        return _cut(json.dumps(value, ensure_ascii=False, sort_keys=True), MAX_INPUT_CHARS)
    return _cut(" ".join(str(value).split()), MAX_INPUT_CHARS) if value is not None else ""


def _cut(text: str, limit: int = MAX_STEP_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
