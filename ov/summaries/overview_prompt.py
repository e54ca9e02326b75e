"""Filling the directory-overview prompt (``overview.yaml``) within ``llm.max_prompt_chars``."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from ov.llm.prompts import CONTRACTS, PromptTemplate, load_prompt
from ov.store import sidecar

if TYPE_CHECKING:
    from ov.summaries.layers import ChildInfo

OVERVIEW_PROMPT = "overview"
OVERVIEW_VARIABLES, OVERVIEW_REQUIRED = CONTRACTS[OVERVIEW_PROMPT]
TRUNCATION_MARK = " [...]"


def load_overview_prompt(prompts_dir: Path | None) -> PromptTemplate:
    return load_prompt(OVERVIEW_PROMPT, prompts_dir=prompts_dir, provides=OVERVIEW_VARIABLES, requires=OVERVIEW_REQUIRED)


def overview_messages(
    prompt: PromptTemplate,
    *,
    dir_uri: str,
    dir_name: str,
    sample: list[ChildInfo],
    sampled: bool,
    description: str | None,
    max_prompt_chars: int,
) -> list[dict[str, str]] | None:
    """The chat messages, at most ``max_prompt_chars`` long in all; None when no entry fits."""
    note = " ".join(description.split()) if description else ""
    values = {
        "dir_name": dir_name,
        "dir_uri": dir_uri,
        "description_note": f"The user describes it as: {note}" if note else "",
        "coverage": (
            "Only a sample of its entries is shown below, so do not claim the list is complete; hedge where it "
            'matters ("the sample shows", "mainly covers").'
            if sampled
            else "All of its entries are shown below."
        ),
        "entries": "",
        "abstract_chars": str(sidecar.ABSTRACT_MAX_CHARS),
        "max_chars": str(sidecar.OVERVIEW_MAX_CHARS),
    }
    budget = max_prompt_chars - prompt_chars(prompt.render(values))
    messages = prompt.render(values)
    for _attempt in range(3):  # a template may use $entries more than once
        values["entries"] = entries_block(sample, budget)
        messages = prompt.render(values)
        overflow = prompt_chars(messages) - max_prompt_chars
        if overflow <= 0 or not values["entries"]:
            break
        budget -= overflow
    return None if sample and not values["entries"] else messages


def prompt_chars(messages: list[dict[str, str]]) -> int:
    return sum(len(m["content"]) for m in messages)


def entries_block(sample: list[ChildInfo], budget: int) -> str:
    """The children as ``<entry>`` elements, at most ``budget`` characters in all.

    Each entry keeps its tags; the room left is shared so that short texts stay whole
    and only the longest are cut (a fair share, not a proportional one: a small file
    should not lose its only paragraph because a large one sits next to it).
    """
    heads, bodies = [], []
    for i, child in enumerate(sample, start=1):
        attrs = f'n="{i}" kind="{"directory" if child.is_dir else "file"}" name="{html.escape(child.name + ("/" if child.is_dir else ""))}"'
        if child.title and not child.is_dir:
            attrs += f' title="{html.escape(" ".join(child.title.split()))}"'
        heads.append(f"<entry {attrs}>\n")
        bodies.append(((child.abstract or "(no summary yet)") if child.is_dir else child.text).strip())
    tail = "\n</entry>"
    fixed = [len(h) + len(tail) for h in heads]
    separators = max(0, len(heads) - 1) * 2
    while heads and sum(fixed) + separators > budget:
        heads.pop(), bodies.pop(), fixed.pop()  # not even the tags fit: fewer entries
        separators = max(0, len(heads) - 1) * 2
    shares = _fair_shares([len(b) for b in bodies], max(0, budget - sum(fixed) - separators))
    parts = [head + _cut(body, share) + tail for head, body, share in zip(heads, bodies, shares, strict=True)]
    return "\n\n".join(parts)


def _fair_shares(lengths: list[int], room: int) -> list[int]:
    if sum(lengths) <= room:
        return list(lengths)
    shares = [0] * len(lengths)
    pending = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    while pending:
        share = room // len(pending)
        smallest = pending[0]
        if lengths[smallest] > share:
            for i in pending:
                shares[i] = share
            break
        shares[smallest] = lengths[smallest]
        room -= lengths[smallest]
        pending.pop(0)
    return shares


def _cut(text: str, share: int) -> str:
    if len(text) <= share:
        return text
    if share < len(TRUNCATION_MARK) + 20:
        return ""
    head = text[: share - len(TRUNCATION_MARK)]
    space = head.rfind(" ")
    if space > len(head) * 3 // 4:
        head = head[:space]
    return head.rstrip() + TRUNCATION_MARK
