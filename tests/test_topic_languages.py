"""The prompt hook's reading of prompts in other languages than English: courtesies are chatter,
and a word they share with English is a topic where it is asked about (ov.hosts.topic)."""

from __future__ import annotations

import json

import pytest

from ov.hosts import recall
from ov.hosts.runtime import run
from ov.hosts.topic import about

# Prompt -> whether recall searches the store for it (has a topic), as `ov`'s prompt hook reads it.
TABLE = [
    # A courtesy after full-width punctuation, or exclaimed
    ("好的！谢谢。", False),
    ("ありがとう！", False),
    ("了解です！", False),
    ("thanks!!", False),
    ("ok thanks!!", False),
    # ... and beside a topic, without a comma: the topic stays
    ("I prefer tabs 谢谢", True),
    ("ありがとう、設定ファイルはどこ？", True),
    # An acknowledgement made of a verb of understanding
    ("ok, je vois", False),
    ("d'accord, je vois", False),
    ("ah ok ich verstehe", False),
    ("vale, entiendo", False),
    ("ok je comprends", False),
    ("ok capisco", False),
    ("ah entendo", False),
    ("ok ik snap het", False),
    ("понимаю", False),
    ("ah I see", False),
    ("aha", False),
    # ... the same verbs in a sentence about something
    ("je vois le problème avec le cache", True),
    ("ich verstehe den Fehler im Parser nicht", True),
    ("ya veo el error en la base de datos", True),
    # A courtesy spelled as an English noun, alone: asked about, unless exclaimed or thanked with
    ("legal", True),
    ("legal?", True),
    ("suite", True),
    ("nickel", True),
    ("snap", True),
    ("legal!", False),
    ("Legal！", False),
    ("ok, legal!", False),
    ("legal, obrigado", False),
    ("suite!", False),
    # ... the others are thanks or yes far more often than a subject
    ("super", False),
    ("bravo", False),
    ("sim", False),
    ("top", False),
]


@pytest.mark.parametrize(("prompt", "searched"), TABLE)
def test_what_the_prompt_hook_searches_for(prompt, searched):
    assert recall.is_trivial(prompt) is not searched


@pytest.mark.parametrize(
    ("prompt", "read"),
    [
        ("I prefer tabs 谢谢", "I prefer tabs"),
        ("I prefer tabs, 谢谢", "I prefer tabs"),
        ("I prefer tabs. 谢谢！", "I prefer tabs"),
        ("好的，这个索引怎么用？", "这个索引怎么用？"),
        ("ありがとう、設定します", "設定します"),
        ("네, 계속 진행해 주세요 cart.py", "cart.py"),
        # lines stay lines: a traceback pasted after it is still one
        ("谢谢！为什么失败？\nTraceback (most recent call last):\n  File \"app/cart.py\", line 3", "为什么失败？\nTraceback (most recent call last):\n  File \"app/cart.py\", line 3"),
        # nothing else: left whole (and read as no topic)
        ("好的！谢谢。", "好的！谢谢。"),
        ("I prefer tabs", "I prefer tabs"),
    ],
)
def test_the_search_leaves_out_a_cjk_courtesy_said_beside_a_topic(prompt, read):
    assert about(prompt) == read


@pytest.mark.parametrize("prompt", ["I prefer tabs 谢谢", "tabs 谢谢"])
def test_a_cjk_courtesy_beside_a_topic_leaves_the_topic_and_brings_no_note_of_its_language(ov, tmp_path, prompt):
    # "谢谢" is in any Chinese note that thanks someone: searched for beside "tabs", it brought the
    # meeting notes, which say nothing about tabs, or took the relevance under the cut-off (nothing).
    assert ov("write", "viking://resources/zh/meeting.md", "--content", "# 会议\n\n谢谢大家参加今天的会议，谢谢。\n").exit_code == 0
    assert ov("write", "viking://resources/style.md", "--content", "# Style\n\nIndent with tabs, never spaces.\n").exit_code == 0
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    answer = run("claude", "prompt-submit", json.dumps({"session_id": "s-1", "cwd": str(project), "prompt": prompt}).encode())
    context = json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer else ""
    assert "style.md" in context and "meeting.md" not in context
