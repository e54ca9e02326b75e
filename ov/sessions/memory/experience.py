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
           "Sure." or "OK."), at most ``MAX_STEPS``: past that, the calls
           that changed something (an edit, a write, a command that ran the
           tests) are kept first, then what was said, then the searches and
           reads, later ones before earlier ones, in their order
outcome    the last user message says it works ("that fixed it", "it works
           now", "tests pass now", "problem solved", ...), with no "not",
           "still", "but", "if", "before", "yesterday" or question in that
           sentence and nothing anywhere in the message that says it failed
           ("fails", "error", "broke", "CI is red") or that the agent's
           change is not what works ("revert", "I rewrote it myself",
           "forget it"): an unclear outcome is no experience, never a wrong
           "success"; a failure named as over ("that fixed the error", "the
           failing test passes now") is no failure
=========  ==================================================================

The experience is ``experiences/{verb}_{topic}.md`` with the schema's
three sections: Situation (the goal, as the user put it), Approach (the
steps, numbered) and Reflect (the outcome, quoting the user). The topic is
the goal's words without articles, prepositions and fillers, a file it names
by its name without extension ("fix the failing test in tests/test_auth.py"
gives ``fix_failing_test_test_auth``): a goal about another file or thing is
another experience. Only ``user``, ``assistant`` and ``tool`` messages count;
what they say is never read as a statement about the user. A later session
with the same goal replaces it, as the schema's ``replace`` merge says.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ov.sessions.memory import text as tx
from ov.sessions.memory.statement import informative
from ov.sessions.messages import FAILURE_SAID as _FAILED_RE
from ov.sessions.messages import SUCCESS_SAID as _SUCCESS_RE
from ov.sessions.messages import message_text

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
# A success sentence with one of these is hedged or negated: "not fixed", "still fails", "but", "if";
# or it says how things were, not how they are: "the tests passed before your edit", "that worked on
# my machine yesterday".
_HEDGE_RE = re.compile(
    r"(?i)\b(?:not|no(?!\s+(?:more|longer)\b)|never|still|but|if|unless|until|almost|partly|except|"
    r"before|earlier|previously|yesterday|used\s+to|last\s+(?:time|week|night)|on\s+my\s+machine)\b|n't\b"
)
# Anywhere in the closing message, a failure (_FAILED_RE: "That fixed it. The e2e test fails
# though.", "now CI is red") leaves the outcome unclear, and so does what says the agent's change is not what works:
# undone ("revert it", "I rolled it back and it works now") or done by the user instead ("forget it,
# I rewrote the test myself").
_UNDONE_RE = re.compile(
    r"(?i)\b(?:revert(?:s|ed|ing)?|roll(?:ed|ing)?\s+(?:it\s+|that\s+|this\s+)?back|undo|undid|"
    r"forget\s+(?:it|that|this)|never\s*mind|give\s+up|gave\s+up|"
    r"(?:re)?(?:wrote|written|did|done|doing|fixed|solved|changed|redid|handled|sorted|patched|edited)(?:\s+\S+){0,3}\s+myself)\b"
)
# ... except a failure named as what is over now: "that fixed the error", "the crash is gone", "the
# failing test passes now", "no more errors". Only a failure: "reverting it fixed it" is still undone.
_RESOLVED_RE = re.compile(
    r"(?i)\b(?:fixed|fixes|solved|resolved|gone|went\s+away|disappeared|no\s+(?:more|longer)|"
    r"pass(?:es|ed|ing)?|green|works|working)\b"
)
_NEGATED_RE = re.compile(r"(?i)\b(?:not|never|still|hardly|barely)\b|n't\b")
# Where one part of a verdict ends and the next begins: "That fixed the error, but now the build fails".
_VERDICT_PART_RE = re.compile(r"(?i)\s*[,;:.!?]\s*|\s+(?:and|but|though|although|however|yet|while)\s+")


def _says_failed(text: str) -> bool:
    """Whether ``text`` says the task failed, was undone or was done without the agent."""
    if _UNDONE_RE.search(text):
        return True
    return any(
        _FAILED_RE.search(part) and (not _RESOLVED_RE.search(part) or _NEGATED_RE.search(part))
        for part in _VERDICT_PART_RE.split(text)
    )


# How much a step says about what was done, when there are too many: a call that changed something
# or ran the tests, then what the agent said, then a search or a read.
_CHANGE_TOOL_RE = re.compile(r"(?i)^(?!.*todo).*(?:edit|write|patch|replace|create|insert|delete|remove|move|rename)")
_COMMAND_TOOL_RE = re.compile(r"(?i)bash|shell|exec|command|terminal|run")
_TEST_COMMAND_RE = re.compile(
    r"(?i)\b(?:pytest|tox|nox|unittest|jest|vitest|mocha|rspec|phpunit|ctest|"
    r"(?:go|cargo|npm|yarn|pnpm|bun|deno|make|mvn|gradle|dotnet|mix|swift)\s+(?:run\s+)?test)\b"
)
_CHANGE, _SAID, _LOOKED = 2, 1, 0
# A file the goal names is named by its name without extension: "tests/test_auth.py" -> "test_auth".
_PATH_RE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*(?P<stem>[\w-]+)\.[a-z]{1,8}\b")
# Words of a goal that do not say what it is about: articles, prepositions, pronouns, fillers.
_TOPIC_SKIP = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "it", "its", "my", "our", "your", "their", "me", "us", "to",
    "in", "on", "at", "of", "for", "from", "with", "without", "into", "onto", "by", "via", "about", "over", "under",
    "and", "or", "so", "some", "any", "all", "again", "now", "please", "properly", "quickly", "also", "too", "here",
    "there", "just", "up", "real", "quick", "asap",
))
MAX_TOPIC_WORDS = 5
_INPUT_KEYS = ("command", "cmd", "file_path", "path", "pattern", "query", "url")
# "Sure." opening an assistant's text is no step: the sentence after it is.
_ACK_RE = re.compile(r"(?i)^(?:sure|ok|okay|alright|all\s+right|certainly|of\s+course|got\s+it|great|absolutely|will\s+do|on\s+it)[.!,]*$")


def _said(message: Mapping[str, Any]) -> str:
    return message_text(message, said_only=True)


def extract_experience(messages: Sequence[Mapping[str, Any]], *, when: datetime) -> tuple[dict[str, str], list[str]] | None:
    """The fields of the experience a session shows and its source message ids, or None when
    goal, steps or outcome is missing."""
    users = [(i, m) for i, m in enumerate(messages) if m.get("role") == "user" and _said(m).strip()]
    goal = next(((i, m, g) for i, m in users[:GOAL_WINDOW] if (g := _goal(_said(m)))), None)
    if goal is None or users[-1][0] == goal[0]:
        return None
    start, goal_message, (verb, task) = goal
    last_index, last = users[-1]
    said_last = verdict(_said(last))
    steps = _steps(messages[start + 1 : last_index])
    if said_last is None or not said_last[0] or not steps:
        return None
    outcome = said_last[1]
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
    name = "_".join(verb.lower().split()) + "_" + _topic(task)
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


def _topic(task: str) -> str:
    """The goal's words that say what it is about, for the file name: the same goal gives the same
    name, a goal about another file or thing another one."""
    text = _PATH_RE.sub(lambda m: " " + m.group("stem") + " ", task.lower())
    words = [re.sub(r"'s$", "", w).strip("'-+#") for w in re.findall(r"[a-z0-9][a-z0-9_+#'-]*", text)]
    kept = [w for w in words if w and w not in _TOPIC_SKIP]
    return "_".join(kept[:MAX_TOPIC_WORDS]) or "task"


def verdict(text: str) -> tuple[bool, str] | None:
    """The user's word on how a task went, read from what they said last: ``(True, the sentence
    saying it works)``, ``(False, what they said up to the sentence saying it failed, was undone or was
    done without the agent)``, or None when it says neither or hedges: an unclear outcome is no
    verdict, never a success."""
    masked, spans = tx.strip_code(text)
    said = [s for s in tx.sentences(masked) if not tx.is_question(s) and not tx.is_quoted(s)]
    if _says_failed(masked):
        last_failed = max((n for n, s in enumerate(said) if _says_failed(s)), default=None)
        return None if last_failed is None else (False, tx.clean(tx.unmask(" ".join(said[: last_failed + 1]), spans)))
    found = None
    for sentence in said:
        if _SUCCESS_RE.search(sentence):
            if _HEDGE_RE.search(sentence):
                return None  # "it works now but the other test fails": not a clear outcome
            found = tx.clean(sentence)
    return None if found is None else (True, found)


def _steps(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    steps: list[str] = []
    kinds: list[int] = []  # how much each step says about what was done
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
                # A step is the first sentence of an assistant text; unlike a statement it runs on past "; ".
                sentences = tx.split_sentences(" ".join(masked.split()), semicolon=False)
                first = next((s for s in sentences if not tx.is_question(s) and not _ACK_RE.match(s.strip())), "")
                if first:
                    steps.append(_cut(tx.clean(tx.unmask(first, spans))))
                    kinds.append(_SAID)
                    said = True
            elif part.get("type") == "tool":
                _tool_step(part, steps, kinds, by_tool_id)
    deduped = [(s, kinds[n]) for n, s in enumerate(steps) if s and (n == 0 or s != steps[n - 1])]
    if len(deduped) > MAX_STEPS:  # keep what changed things, then the latest; never just the first searches
        ranked = sorted(range(len(deduped)), key=lambda n: (deduped[n][1], n), reverse=True)
        deduped = [deduped[n] for n in sorted(ranked[:MAX_STEPS])]
    return [s for s, _kind in deduped]


def _tool_step(part: Mapping[str, Any], steps: list[str], kinds: list[int], by_tool_id: dict[str, int]) -> None:
    failed = part.get("tool_status") == "error"
    if "tool_input" not in part:  # a result: it tells how its call went
        index = by_tool_id.get(str(part.get("tool_id")))
        if failed and index is not None and not steps[index].endswith("(error)"):
            steps[index] += " (error)"
        return
    name = str(part.get("tool_name") or "tool")
    step = _cut(f"{name}: {_input_summary(part.get('tool_input'))}")
    steps.append(step + (" (error)" if failed else ""))
    kinds.append(_tool_kind(name, part.get("tool_input")))
    if "tool_id" in part:
        by_tool_id[str(part["tool_id"])] = len(steps) - 1


def _tool_kind(name: str, tool_input: Any) -> int:
    """A call that changed something (an edit, a write) or ran the tests counts most; another command
    as much as what the agent said (it may have built or installed); a search or a read least."""
    if _CHANGE_TOOL_RE.search(name):
        return _CHANGE
    if _COMMAND_TOOL_RE.search(name):
        command = tool_input.get("command") or tool_input.get("cmd") if isinstance(tool_input, Mapping) else tool_input
        command = " ".join(command) if isinstance(command, list) else str(command or "")
        return _CHANGE if _TEST_COMMAND_RE.search(command) else _SAID
    return _LOOKED


def _input_summary(value: Any) -> str:
    if isinstance(value, Mapping):
        for key in _INPUT_KEYS:
            if isinstance(value.get(key), str) and value[key].strip():
                return "`" + _cut(" ".join(value[key].split()).replace("`", "'"), MAX_INPUT_CHARS) + "`"
        return _cut(json.dumps(value, ensure_ascii=False, sort_keys=True), MAX_INPUT_CHARS)
    return _cut(" ".join(str(value).split()), MAX_INPUT_CHARS) if value is not None else ""


def _cut(text: str, limit: int = MAX_STEP_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
