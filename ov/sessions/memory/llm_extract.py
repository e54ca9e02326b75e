"""Memory extraction with a language model: one bounded call per ``ov commit``.

The model sees the memory types (from the schemas), the relevant memories that
already exist, and the archived transcript, and answers with a JSON object::

    {"memories": [{"memory_type": ..., "fields": {...}, "source_message_ids": [...]}]}

The answer only proposes candidates; :func:`ov.sessions.memory.plan.plan_memory_writes`
decides what is written, exactly as for the deterministic extractor. A
candidate that breaks its schema is dropped on its own; an answer that is not
that JSON shape at all gets one repair call, and then fails the model's
extraction: the commit extracts with the offline rules instead and names the
error in ``.done`` (``model_failed``).
"""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from ov.llm.client import LLMError, UnusableAnswer, complete_json
from ov.llm.prompts import CONTRACTS, PromptTemplate, load_prompt
from ov.sessions.memory.candidate import Candidate
from ov.sessions.memory.llm_answer import parse_answer, validate_candidates
from ov.sessions.memory.schema import MemorySchema, as_utc
from ov.sessions.session import message_text
from ov.tokens import estimate_tokens
from ov.wording import counted

if TYPE_CHECKING:
    from ov.config import LLMConfig
    from ov.llm.usage import UsageLog
    from ov.waiting import Stop

log = logging.getLogger(__name__)

PROMPT = "memory_extraction"
VARIABLES, REQUIRED = CONTRACTS[PROMPT]
ANSWER_SHAPE = '{"memories": [{"memory_type": "...", "fields": {...}, "source_message_ids": ["..."]}]}'
PURPOSE = "memory extraction"
# estimate_tokens never counts fewer than a quarter token per character, so a
# token budget of chars // 4 can never let the prompt outgrow max_prompt_chars.
CHARS_PER_TOKEN = 4
# Existing memories are context, not the subject: they may take this share of the budget.
EXISTING_SHARE = 0.25
EXISTING_FILE_MAX_CHARS = 2000
# Below this the newest message would be cut to nothing useful; a tiny cap is then exceeded.
MIN_TRANSCRIPT_TOKENS = 64
CUT_MARK = " [...]"
_WORD_RE = re.compile(r"[^\W_]+")
# The schema's merge op names mean little to a model; say what happens to a stored value.
_MERGE_WORDS = {"patch": "new lines are added to the stored ones", "replace": "replaces the stored value"}


class ExtractionError(LLMError):
    """The model's answer could not be used, even after a repair call."""

    code = "llm_extraction_error"

    def __init__(self, message: str, *, tokens: dict[str, int], hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        # The calls were made and billed even though the answer is useless.
        self.tokens = tokens


def extract_with_llm(
    config: LLMConfig,
    schemas: Mapping[str, MemorySchema],
    messages: list[dict],
    existing: Mapping[str, str],
    *,
    user: str,
    when: datetime,
    prompts_dir: Path | None,
    peer: str | None = None,
    usage: UsageLog | None = None,
    stop: Stop | None = None,
) -> tuple[list[Candidate], dict[str, int]]:
    """Candidates proposed by the model for ``messages``, and the tokens its calls used.

    ``existing`` maps memory paths (relative to the memories root) to their
    visible text; ``usage`` logs each call; ``stop`` may end the wait for an answer
    (:func:`~ov.llm.client.complete`). Every failure is an :class:`LLMError`.
    """
    prompt = load_prompt(PROMPT, prompts_dir=prompts_dir, provides=VARIABLES, requires=REQUIRED)
    chat = build_messages(prompt, config.max_prompt_chars, schemas, messages, existing, user=user, when=when)
    if peer:
        chat[-1] = {**chat[-1], "content": chat[-1]["content"] + PEER_NOTE.format(peer=peer)}
    tokens = {"prompt_tokens": 0, "completion_tokens": 0}
    try:
        items = complete_json(config, chat, parse_answer, shape=ANSWER_SHAPE, purpose=PURPOSE, spent=tokens, temperature=prompt.temperature, usage=usage, stop=stop)
    except UnusableAnswer as exc:
        raise ExtractionError(
            exc.message,
            tokens=tokens,
            hint="try a stronger model (llm.model), or raise llm.max_output_tokens if the answer was cut off",
        ) from None
    except LLMError as exc:  # a call failed after one that was answered (and billed): callers log both
        exc.tokens = tokens
        raise
    known_ids = [str(m.get("id")) for m in messages if m.get("id")]
    candidates, warnings = validate_candidates(items, schemas, when=when, known_ids=known_ids, user=user, peer=peer)
    for warning in warnings:
        log.warning("memory extraction: %s", warning)
    if items and not candidates:
        # An answer whose every memory breaks its schema would lose the session's memories for
        # good (its messages are archived, never extracted again): it fails like an unusable one,
        # and the commit extracts with the offline rules instead.
        raise ExtractionError(
            f"{config.model} proposed {counted(len(items), 'memory', 'memories')} and every one broke its schema ({warnings[0]})",
            tokens=tokens,
            hint="try a stronger model (llm.model), or check a memory_extraction prompt override",
        )
    return candidates, tokens


PEER_NOTE = (
    "\n\nThis conversation is with the peer {peer}. For a memory about {peer} (their facts, "
    'preferences or events) add "about": "peer" to the item; memories about the user need no "about".'
)


# --- the prompt ----------------------------------------------------------------


def build_messages(
    prompt: PromptTemplate,
    max_prompt_chars: int,
    schemas: Mapping[str, MemorySchema],
    messages: list[dict],
    existing: Mapping[str, str],
    *,
    user: str,
    when: datetime,
) -> list[dict[str, str]]:
    """The chat messages: the template filled so that it fits ``max_prompt_chars`` (unless the template alone does not)."""
    budget = max(max_prompt_chars // CHARS_PER_TOKEN, 1)
    texts = [message_text(m) for m in messages]
    values = {
        "user": user,
        "today": as_utc(when).strftime("%Y-%m-%d"),
        "memory_types": types_block(schemas),
        "existing_memories": existing_block(existing, " ".join(texts), int(budget * EXISTING_SHARE)),
        "transcript": "",
    }
    fixed = _tokens(prompt.render(values))
    # A template may use $transcript more than once; measure how often it repeats.
    uses = max(prompt.template.count("$transcript") + prompt.template.count("${transcript}"), 1)
    room = max((budget - fixed) // uses, MIN_TRANSCRIPT_TOKENS)
    values["transcript"] = transcript_block(messages, texts, room)
    return prompt.render(values)


def types_block(schemas: Mapping[str, MemorySchema]) -> str:
    blocks = []
    for schema in schemas.values():
        mode = "one new file per memory, never merged" if schema.add_only else "merged into the file with the same identity"
        lines = [f"### {schema.memory_type}", schema.description, f"File: {schema.filename_template} ({mode})", "Fields:"]
        names = set(schema.placeholders)
        for spec in schema.fields:
            tag = "identity, never changes" if spec.merge_op == "immutable" or spec.name in names else _MERGE_WORDS.get(spec.merge_op, spec.merge_op)
            lines.append(f"- {spec.name} ({tag}): {spec.description or 'text'}")
        if schema.content_sections:
            lines.append("The content must have exactly these sections, in order: " + ", ".join(f"## {s}" for s in schema.content_sections))
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def existing_block(existing: Mapping[str, str], transcript: str, budget: int) -> str:
    """The most relevant existing memories, each shortened, all within ``budget`` tokens.

    The profile comes first (it is about everything); then memories whose path
    words occur in the transcript, most matching words first.
    """
    if not existing:
        return "(none yet)"
    said = {w.lower() for w in _WORD_RE.findall(transcript)}

    def rank(path: str) -> tuple:
        words = {w.lower() for w in _WORD_RE.findall(path.rsplit(".", 1)[0])} - {"preferences", "entities"}
        return (path != "profile.md", -len(words & said), path)

    shown, left_out, used = [], 0, 0
    for path in sorted(existing, key=rank):
        body = _cut(existing[path].strip(), EXISTING_FILE_MAX_CHARS)
        entry = f'<memory path="{html.escape(path)}">\n{body}\n</memory>'
        cost = estimate_tokens(entry) + 1
        if used + cost > budget:
            left_out += 1
            continue
        shown.append(entry)
        used += cost
    if left_out:
        shown.append(f"({left_out} less relevant existing memories are not shown.)")
    return "\n".join(shown) if shown else "(none shown)"


def transcript_block(messages: list[dict], texts: list[str], budget: int) -> str:
    """The newest messages that fit ``budget`` tokens, whole; the oldest are dropped first.

    Only the newest message is ever cut, when it alone is over the budget.
    """
    kept: list[str] = []
    used = 0
    omitted = 0
    note_cost = 40  # room for the omission note, which goes in front
    for index in range(len(messages) - 1, -1, -1):
        entry = _message_entry(messages[index], texts[index])
        cost = estimate_tokens(entry) + 1
        if used + cost + (note_cost if index else 0) <= budget:
            kept.append(entry)
            used += cost
            continue
        if kept:
            omitted = index + 1
        else:
            frame = estimate_tokens(_message_entry(messages[index], "")) + 1
            kept.append(_message_entry(messages[index], _cut_to_tokens(texts[index], budget - note_cost - frame)))
            omitted = index
        break
    kept.reverse()
    if omitted:
        word = "message was" if omitted == 1 else "messages were"
        kept.insert(0, f"(The {omitted} earliest {word} omitted to fit the prompt; extract only from what is shown.)")
    return "\n".join(kept) if kept else "(no messages)"


def _message_entry(message: dict, text: str) -> str:
    attrs = f'id="{html.escape(str(message.get("id", "")))}" role="{html.escape(str(message.get("role", "")))}"'
    if message.get("created_at"):
        attrs += f' time="{html.escape(str(message["created_at"]))}"'
    return f"<message {attrs}>\n{text.strip()}\n</message>"


def _cut(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[: max_chars - len(CUT_MARK)].rstrip() + CUT_MARK


def _cut_to_tokens(text: str, budget: int) -> str:
    if estimate_tokens(text) <= budget:
        return text
    low, high = 0, len(text)  # the longest prefix that fits lies in [low, high)
    while high - low > 1:
        middle = (low + high) // 2
        if estimate_tokens(text[:middle] + CUT_MARK) <= budget:
            low = middle
        else:
            high = middle
    return text[:low].rstrip() + CUT_MARK


def _tokens(chat: list[dict[str, str]]) -> int:
    return sum(estimate_tokens(m["content"]) for m in chat)
