"""L0/L1 directory summaries: derivation and truncation rules, the extractive summariser,
sampling, sidecar rendering, prompt templates, and the LLM path through litellm against
a loopback OpenAI-compatible server."""

from __future__ import annotations

import json
import logging
import os
import random
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ov.config import LLMConfig
from ov.errors import ConfigError, InvalidInput
from ov.llm.client import LLMError, complete
from ov.llm.prompts import load_prompt, parse_prompt
from ov.store import sidecar
from ov.summaries.layers import (
    SAMPLE_LIMIT,
    ChildInfo,
    DirectorySummary,
    clean_overview,
    derive_abstract,
    render_sidecars,
    sample_children,
    summarize_directory,
    truncate_generated,
)
from ov.summaries.extractive import key_terms
from ov.summaries.overview_prompt import OVERVIEW_VARIABLES as OVERVIEW_VARS
from ov.summaries.overview_prompt import entries_block
from tests.llm_server import API_KEY, API_KEY_ENV, LLMServer, llm_config, llm_server, make_llm_config  # noqa: F401  (fixtures)

GENERATOR = ("SemanticProcessor", "resource_ingest")
DIR = "viking://resources/handbook/"


def handbook() -> list[ChildInfo]:
    return [
        ChildInfo(
            "README.md",
            False,
            "Handbook",
            "# Handbook\n\nThe handbook explains how the team ships code. It covers deploys, rollbacks and access.\n\n"
            "## Layout\n\nOne page per topic.\n",
        ),
        ChildInfo("access", True, abstract="How engineers get production access with short-lived tokens."),
        ChildInfo(
            "deploys.md",
            False,
            "Deploys",
            "# Deploys\n\nDeploys go out through a canary stage before reaching every region.\n\n"
            "```sh\nov deploy --canary\n```\n\nA deploy is blocked when the canary error rate rises.\n",
        ),
        ChildInfo(
            "rollbacks.md",
            False,
            "Rollbacks",
            "# Rollbacks\n\nA rollback restores the previous release. Rollbacks run automatically when canary checks fail.\n",
        ),
    ]


# --- derive_abstract and truncate_generated ---------------------------------------


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("# T\n\nBrief.\n\n## Contents\n- a", "Brief."),
        ("# T\nLine one.\nLine two.\n## Contents", "Line one.\nLine two."),
        ("Brief without a title.\n## Contents", "Brief without a title."),
        ("\n\n# T\n# Second heading\n\n   Brief.   \n", "Brief."),
        ("# T\n\nFirst paragraph.\n\nSecond paragraph.\n\n## X\nno", "First paragraph.\nSecond paragraph."),
        ("# T\n\nEverything is brief.", "Everything is brief."),
        ("# T\n\nBrief.\n### Deeper heading stops it too\nmore", "Brief."),
        ("# Only a title", ""),
        ("", ""),
        # Upstream quirk, kept: headings before any text are skipped like the title.
        ("# T\n## Contents\n- a\n- b", "- a\n- b"),
        ("# T\n\n中文简介。\n\n## 目录", "中文简介。"),
    ],
)
def test_derive_abstract(body, expected):
    assert derive_abstract(body) == expected


def test_derive_abstract_truncates_to_256_at_a_sentence_end():
    brief = " ".join(f"Sentence number {i} says something useful." for i in range(20))
    abstract = derive_abstract(f"# T\n\n{brief}\n\n## Contents\n")
    assert len(abstract) <= sidecar.ABSTRACT_MAX_CHARS
    assert abstract.endswith("useful.")
    assert brief.startswith(abstract)


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Short enough.", 100, "Short enough."),
        ("One. Two. Three.", 10, "One. Two."),
        ("One. Two. Three.", 9, "One. Two."),
        ("One. Two. Three.", 8, "One."),
        ("Really? Yes! More text follows here", 14, "Really? Yes!"),
        ("第一句。第二句。第三句很长很长", 8, "第一句。第二句。"),
        ("第一句。第二句。第三句很长很长", 7, "第一句。"),
        # A dot between digits or inside a word is not a sentence end.
        ("Version 1.5 is out now", 15, "Version 1.5..."),
        ("see example.com for more words here", 20, "see example.com..."),
        # No sentence end within the limit: a word boundary and "...".
        ("no punctuation at all in this text", 17, "no punctuation..."),
        ("no punctuation at all in this text", 16, "no..."),
        ("abcdefghij", 6, "abc..."),
        ("abcdef", 3, "abc"),
        # OpenViking keeps an over-long first sentence; ov's limits are hard.
        ("A first sentence far longer than the limit. Then more.", 20, "A first sentence..."),
        # A sentence end that would keep less than half the room is not worth the rest: "12 messages
        # (2026-11-29)." was a whole abstract, what the user asked cut away.
        ("Done. Then a much longer sentence follows here.", 30, "Done. Then a much longer..."),
        ("2 messages (2026-11-29). The user asked: Why does the nightly export run twice", 60, "2 messages (2026-11-29). The user asked: Why does the..."),
        # A word cut drops the comma it leaves at the end.
        ("first, second, third words", 12, "first..."),
        ("", 10, ""),
    ],
)
def test_truncate_generated(text, limit, expected):
    assert truncate_generated(text, limit) == expected


def test_truncate_generated_never_exceeds_the_limit():
    rng = random.Random(7)
    alphabet = "abc de. f!g?h 。中文\n"
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        limit = rng.randint(1, 60)
        out = truncate_generated(text, limit)
        assert len(out) <= limit, (text, limit, out)
        if len(text) <= limit:
            assert out == text


# --- the extractive summariser ---------------------------------------------------


def test_extractive_summary_shape_and_content():
    summary = summarize_directory(DIR, handbook())
    assert summary.total_entries == summary.sampled_entries == 4
    assert summary.tokens == {}
    lines = summary.overview.splitlines()
    assert lines[0] == "# handbook"
    assert "## Contents" in lines and "## Key terms" in lines
    assert "- README.md: The handbook explains how the team ships code. Sections: Layout." in lines
    assert "- access/: How engineers get production access with short-lived tokens." in lines
    assert "- deploys.md: Deploys go out through a canary stage before reaching every region." in lines
    abstract = derive_abstract(summary.overview)
    assert abstract.startswith("The handbook explains how the team ships code.")  # the README leads
    # then what the directory holds, counted by kind (all children, not just the sample)
    assert abstract.endswith(" Holds 3 Markdown docs (README.md, deploys.md and rollbacks.md) and 1 subdirectory (access/).")
    terms = lines[lines.index("## Key terms") + 2]
    assert "canary" in terms and "rollback" in terms


def test_extractive_summary_is_deterministic():
    first = summarize_directory(DIR, handbook())
    second = summarize_directory(DIR, [ChildInfo(**vars(c)) for c in handbook()])
    assert first == second
    a1 = render_sidecars(DIR, first, source=None, generated_by=GENERATOR)
    a2 = render_sidecars(DIR, second, source=None, generated_by=GENERATOR)
    assert a1 == a2


def test_description_becomes_the_brief():
    summary = summarize_directory(DIR, handbook(), description="  Team runbooks for shipping\nand operating the service.  ")
    assert derive_abstract(summary.overview) == "Team runbooks for shipping and operating the service."


def test_representative_child_is_the_largest_file_without_a_readme():
    children = [c for c in handbook() if c.name != "README.md"]
    abstract = derive_abstract(summarize_directory(DIR, children).overview)
    assert "Deploys go out through a canary stage before reaching every region." in abstract


def test_empty_directory():
    summary = summarize_directory("viking://resources/empty", [])
    assert summary.overview == "# empty\n\nThis directory is empty."
    assert (summary.total_entries, summary.sampled_entries) == (0, 0)


def test_children_without_text_still_give_a_sentence():
    children = [ChildInfo(n, False) for n in ("a.bin", "b.bin", "c.bin", "d.bin")]
    abstract = derive_abstract(summarize_directory(DIR, children).overview)
    assert abstract == "Holds 4 .bin files (a.bin, b.bin, c.bin and d.bin)."


def test_frontmatter_description_leads_and_markdown_is_plain():
    skill = "---\nname: pdf\ndescription: Extract tables from PDF files.\n---\n# PDF\n\nBody text.\n"
    readme = "# Tools\n\n[![badge](https://x/y.svg)](https://x)\n\nUse **the** [`tools`](https://e.com) wisely. Really.\n"
    children = [ChildInfo("SKILL.md", False, text=skill), ChildInfo("README.md", False, text=readme)]
    summary = summarize_directory("viking://agent/skills/pdf/", children)
    assert "- SKILL.md: Extract tables from PDF files." in summary.overview
    assert "- README.md: Use the tools wisely." in summary.overview


def test_limits_hold_for_huge_directories():
    rng = random.Random(1)
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"]
    children = []
    for i in range(60):
        name = f"{'very_long_name_' * 12}{i:03d}.md"
        text = ". ".join(" ".join(rng.choice(words) for _ in range(30)) for _ in range(40))
        children.append(ChildInfo(name, False, f"Title {i}", text))
    children += [ChildInfo(f"sub{i}", True, abstract="x" * 300) for i in range(10)]
    summary = summarize_directory(DIR, children)
    assert len(summary.overview) <= sidecar.OVERVIEW_MAX_CHARS
    assert (summary.total_entries, summary.sampled_entries) == (70, SAMPLE_LIMIT)
    assert "Only a sample of the entries is listed." in summary.overview or "## Contents" in summary.overview
    abstract_text, overview_text = render_sidecars(DIR, summary, source=None, generated_by=GENERATOR)
    assert len(sidecar.body(abstract_text)) <= sidecar.ABSTRACT_MAX_CHARS
    assert len(sidecar.body(overview_text)) <= sidecar.OVERVIEW_MAX_CHARS
    assert sidecar.body(abstract_text)


def test_long_lead_sentence_is_cut_to_fit_l0():
    text = "# X\n\n" + "word " * 200 + "end."
    summary = summarize_directory(DIR, [ChildInfo("README.md", False, text=text)])
    brief = summary.overview.split("\n\n")[1]
    assert len(brief) <= sidecar.ABSTRACT_MAX_CHARS
    assert derive_abstract(summary.overview) == brief


def test_cjk_content_yields_cjk_key_terms_and_a_chinese_brief():
    children = [
        ChildInfo("部署指南.md", False, "部署指南", "# 部署指南\n\n本文介绍如何把服务部署到生产环境。部署前需要通过灰度发布检查。\n\n部署流程包括构建、测试和发布。"),
        ChildInfo("回滚.md", False, "回滚", "# 回滚\n\n当灰度检查失败时，系统会自动回滚到上一个版本。回滚操作会保留日志。\n\n手动回滚需要管理员权限。"),
        ChildInfo("认证", True, abstract="认证模块使用令牌。令牌在一小时后过期，部署需要有效的令牌。"),
    ]
    terms = key_terms(children)
    assert {"部署", "回滚", "灰度"} <= set(terms)
    assert all(re.fullmatch(r"[\u4e00-\u9fff]{2}", t) for t in terms)
    assert "署指" not in terms  # a fragment across two words
    summary = summarize_directory("viking://resources/运维手册/", children)
    abstract = derive_abstract(summary.overview)
    assert summary.overview.startswith("# 运维手册\n\n")
    assert abstract.startswith("该目录包含关于")
    assert "本文介绍如何把服务部署到生产环境。" in abstract
    assert len(abstract) <= sidecar.ABSTRACT_MAX_CHARS


def test_key_terms_prefer_plain_words_and_fold_plurals():
    children = [
        ChildInfo("a.md", False, text="The API returns tokens. Tokens expire. The API is documented."),
        ChildInfo("b.md", False, text="Each token is signed. A token can be revoked through the API."),
    ]
    terms = key_terms(children, limit=3)
    assert terms[:2] == ["API", "token"] or terms[:2] == ["token", "API"]
    assert "the" not in [t.lower() for t in terms]


def test_key_terms_tie_break_is_alphabetical():
    children = [ChildInfo("x.md", False, text="zebra yak xylophone zebra yak xylophone")]
    assert key_terms(children) == ["xylophone", "yak", "zebra"]


# --- sampling ----------------------------------------------------------------------


def test_sampling_keeps_order_and_introductions():
    children = [ChildInfo(f"page{i:02d}.md", False, text=f"Page {i}.") for i in range(50)]
    children.insert(17, ChildInfo("README.md", False, text="Start here."))
    sample = sample_children(children)
    assert len(sample) == SAMPLE_LIMIT
    assert any(c.name == "README.md" for c in sample)
    positions = [children.index(c) for c in sample]
    assert positions == sorted(positions)
    assert sample == sample_children(list(children))
    summary = summarize_directory(DIR, children)
    assert (summary.total_entries, summary.sampled_entries) == (51, 32)
    assert summary.overview.count("\n- ") == 32
    assert "Only a sample of the entries is listed." in summary.overview


def test_no_sampling_at_the_limit():
    children = [ChildInfo(f"p{i}.md", False) for i in range(SAMPLE_LIMIT)]
    assert sample_children(children) == children


def test_adding_a_child_changes_at_most_one_sampled_entry():
    base = [ChildInfo(f"note-{i:03d}.md", False) for i in range(60)]
    before = {c.name for c in sample_children(base)}
    changed = 0
    for extra in range(40):
        grown = sorted([*base, ChildInfo(f"added-{extra}.md", False)], key=lambda c: c.name)
        after = {c.name for c in sample_children(grown)}
        assert len(after) == SAMPLE_LIMIT
        assert len(after - before) <= 1 and len(before - after) <= 1
        changed += len(after - before)
    assert changed > 0  # some additions do enter the sample


# --- sidecars --------------------------------------------------------------------


def test_render_sidecars_snapshot(snapshot):
    summary = summarize_directory(DIR, handbook())
    abstract_text, overview_text = render_sidecars(
        "viking://resources/handbook",
        summary,
        source={"kind": "file", "uri": "/home/me/handbook", "lines": [1, 9]},
        generated_by=GENERATOR,
    )
    assert abstract_text == snapshot(name="abstract")
    assert overview_text == snapshot(name="overview")


def test_render_sidecars_frontmatter():
    summary = DirectorySummary("# d\n\nBrief.\n\n## Contents\n\n- a", total_entries=40, sampled_entries=32)
    abstract_text, overview_text = render_sidecars("viking://resources/d", summary, source=None, generated_by=("ov", "mkdir"))
    meta, body = sidecar.parse(abstract_text)
    assert body == "Brief."
    assert meta == {
        "directory": "viking://resources/d/",
        "generated_by": {"component": "ov", "trigger": "mkdir"},
        "freshness": {"total_entries": 40, "sampled_entries": 32, "unsampled_entries": 8, "pending_child_changes": 0},
    }
    assert sidecar.parse(overview_text) == (meta, "# d\n\nBrief.\n\n## Contents\n\n- a")
    assert overview_text.endswith("- a\n")


def test_render_sidecars_enforces_l1_limit():
    long = "# d\n\nBrief.\n\n## Details\n\n" + "A sentence of details. " * 400
    _, overview_text = render_sidecars(DIR, DirectorySummary(long, 1, 1), source=None, generated_by=GENERATOR)
    assert len(sidecar.body(overview_text)) <= sidecar.OVERVIEW_MAX_CHARS
    assert sidecar.body(overview_text).endswith("details.")


@pytest.mark.parametrize(
    ("source", "generated_by"),
    [({"kind": "file"}, GENERATOR), ({"kind": "http", "uri": "x" * 5000}, GENERATOR), (None, ("", "t")), (None, ("c", "t" * 129))],
)
def test_render_sidecars_rejects_bad_metadata(source, generated_by):
    with pytest.raises(InvalidInput):
        render_sidecars(DIR, DirectorySummary("# d\n\nB.", 1, 1), source=source, generated_by=generated_by)


# --- prompt templates ------------------------------------------------------------

def test_builtin_overview_template_is_valid():
    prompt = load_prompt("overview", provides=OVERVIEW_VARS, requires=("dir_name", "entries"))
    assert prompt.id == "semantic.overview"
    assert prompt.temperature == 0.0
    text = prompt.render({v: f"<{v}>" for v in OVERVIEW_VARS})[-1]["content"]
    for needle in ("# <dir_name>", "## Contents", "## Details", "<entries>", "<max_chars>", "invent"):
        assert needle in text


GOOD = """
metadata: {id: my.overview, version: 2, description: mine}
variables: [dir_name, entries]
template: "Summarise $dir_name: $entries"
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("metadata: [unclosed", "does not parse as YAML"),
        ("- a list", "must be a mapping"),
        ("variables: [dir_name]\ntemplate: x", "metadata"),
        (GOOD.replace("version: 2, ", ""), "metadata.version"),
        (GOOD.replace("variables: [dir_name, entries]", "variables: dir_name"), "'variables' must be a list"),
        (GOOD.replace('template: "Summarise $dir_name: $entries"', "template: ''"), "'template' must be non-empty"),
        (GOOD.replace("$entries", "$entries $secret"), "undeclared variables: $secret"),
        (GOOD.replace("[dir_name, entries]", "[dir_name, entries, secret]"), "does not provide: secret"),
        (GOOD.replace(": $entries", ""), "must use $entries"),
        (GOOD.replace("$entries", "$entries costs $5"), "not a placeholder"),
        (GOOD + "llm: {temperature: 9}\n", "llm.temperature"),
        (GOOD + "llm: {temperature: true}\n", "llm.temperature"),
        (GOOD + "system: [1]\n", "'system' must be text"),
    ],
)
def test_bad_templates_are_config_errors(text, message):
    with pytest.raises(ConfigError) as info:
        parse_prompt(text, "/x/overview.yaml", provides=OVERVIEW_VARS, requires=("dir_name", "entries"))
    assert message in info.value.message
    assert "/x/overview.yaml" in info.value.message


def test_template_variables_may_be_mappings_and_dollars_escaped():
    text = GOOD.replace("[dir_name, entries]", "[{name: dir_name, description: d}, entries]").replace("$entries", "$entries $$5")
    prompt = parse_prompt(text, "t", provides=OVERVIEW_VARS, requires=("entries",))
    assert prompt.render({"dir_name": "d", "entries": "E"}) == [{"role": "user", "content": "Summarise d: E $5"}]


def test_non_utf8_template(tmp_path):
    (tmp_path / "overview.yaml").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_prompt("overview", prompts_dir=tmp_path, provides=OVERVIEW_VARS)


# --- the LLM path ----------------------------------------------------------------

GOOD_ANSWER = (
    "# Handbook Overview\n\nHow the team ships code: deploys through a canary stage and automatic rollbacks.\n\n"
    "## Contents\n\n- README.md: entry point.\n\n## Details\n\nDeploys and rollbacks are described."
)


def test_llm_summary_through_litellm(llm_server, llm_config):
    llm_server.chat(GOOD_ANSWER, prompt_tokens=321, completion_tokens=54)
    summary = summarize_directory(DIR, handbook(), llm=llm_config)
    assert summary.overview == GOOD_ANSWER.replace("# Handbook Overview", "# handbook")
    assert summary.tokens == {"prompt_tokens": 321, "completion_tokens": 54}
    assert (summary.total_entries, summary.sampled_entries) == (4, 4)
    [request] = llm_server.chat_requests()
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {API_KEY}"
    body = request.json
    assert body["model"] == "test-model"
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == llm_config.max_output_tokens
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    prompt = request.prompt
    assert '"handbook"' in prompt and DIR in prompt
    for child in handbook():
        assert child.name in prompt
    assert "The handbook explains how the team ships code." in prompt
    assert "short-lived tokens" in prompt  # a subdirectory's abstract
    assert "All of its entries are shown" in prompt
    abstract_text, _ = render_sidecars(DIR, summary, source=None, generated_by=GENERATOR)
    assert sidecar.body(abstract_text) == "How the team ships code: deploys through a canary stage and automatic rollbacks."


def test_llm_prompt_mentions_sampling_and_description(llm_server, llm_config):
    llm_server.chat(GOOD_ANSWER)
    children = [ChildInfo(f"p{i:02d}.md", False, text=f"Page {i}.") for i in range(40)]
    summary = summarize_directory(DIR, children, description="Pages of notes.", llm=llm_config)
    assert (summary.total_entries, summary.sampled_entries) == (40, 32)
    prompt = llm_server.chat_requests()[-1].prompt
    assert "Only a sample of its entries" in prompt
    assert "The user describes it as: Pages of notes." in prompt
    assert prompt.count("<entry n=") == 32


def test_llm_prompt_respects_max_prompt_chars(llm_server, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    cap = 6000
    config = make_llm_config(llm_server, max_prompt_chars=cap)
    llm_server.chat(GOOD_ANSWER)
    children = [
        ChildInfo("big-a.md", False, text="alpha " * 5000),
        ChildInfo("small.md", False, text="A small file that must survive whole."),
        ChildInfo("big-b.md", False, text="beta " * 3000),
        ChildInfo("sub", True, abstract="A subdirectory abstract."),
    ]
    summarize_directory(DIR, children, llm=config)
    messages = llm_server.chat_requests()[-1].messages
    assert sum(len(m["content"]) for m in messages) <= cap
    prompt = llm_server.chat_requests()[-1].prompt
    assert "A small file that must survive whole." in prompt
    assert "A subdirectory abstract." in prompt
    entries = prompt[prompt.index("<entry n=") : prompt.rindex("</entry>")]
    assert entries.count("[...]") == 2
    assert prompt.count("alpha") > 100 and prompt.count("beta") > 100  # the cut is shared, not all from one


def test_entries_block_never_exceeds_its_budget():
    rng = random.Random(3)
    for _ in range(300):
        children = [
            ChildInfo(f"f{i}", rng.random() < 0.3, text="w " * rng.randint(0, 400), abstract="a " * rng.randint(0, 50))
            for i in range(rng.randint(0, 12))
        ]
        budget = rng.randint(0, 3000)
        assert len(entries_block(children, budget)) <= budget


def test_tiny_prompt_cap_falls_back_to_extractive(llm_server, monkeypatch, caplog):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    config = make_llm_config(llm_server, max_prompt_chars=100)
    with caplog.at_level(logging.WARNING, logger="ov.summaries.layers"):
        summary = summarize_directory(DIR, handbook(), llm=config)
    assert summary == summarize_directory(DIR, handbook())
    assert llm_server.chat_requests() == []
    assert "max_prompt_chars" in caplog.text


@pytest.mark.parametrize(
    "answer",
    [
        "Sure! Here is an overview of the directory.",
        "# handbook\n\n## Contents\n\n- a",
        "# handbook",
        "## handbook\n\nBrief.",
    ],
)
def test_invalid_llm_output_falls_back_to_extractive(llm_server, llm_config, caplog, answer):
    llm_server.chat(answer, prompt_tokens=100, completion_tokens=9)
    with caplog.at_level(logging.WARNING, logger="ov.summaries.layers"):
        summary = summarize_directory(DIR, handbook(), llm=llm_config)
    extractive = summarize_directory(DIR, handbook())
    assert summary.overview == extractive.overview
    assert summary.tokens == {"prompt_tokens": 100, "completion_tokens": 9}  # spent all the same
    assert "using the extractive summary" in caplog.text


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("```markdown\n# x\n\nBrief.\n\n## Contents\n```", "# dir\n\nBrief.\n\n## Contents"),
        ("<think>Let me see.\n# no</think>\n# x\n\nBrief.", "# dir\n\nBrief."),
        ("#   Anything\nBrief on the next line.", "# dir\n\nBrief on the next line."),
        ("Preamble.\n# x\n\nBrief.", None),
    ],
)
def test_clean_overview(answer, expected):
    assert clean_overview(answer, "dir") == expected


def test_llm_timeout_is_an_llm_error(llm_server, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    llm_server.delay(5)
    with pytest.raises(LLMError) as info:
        summarize_directory(DIR, handbook(), llm=make_llm_config(llm_server, timeout=0.5))
    assert "timed out after 0.5s" in info.value.message
    assert info.value.code == "llm_error" and info.value.exit_code == 1
    assert len(llm_server.chat_requests()) == 1  # no hidden retries multiplying the timeout


def test_llm_http_500_is_an_llm_error(llm_server, llm_config):
    llm_server.error(500, "the model crashed")
    with pytest.raises(LLMError) as info:
        summarize_directory(DIR, handbook(), llm=llm_config)
    assert "HTTP 500" in info.value.message and "the model crashed" in info.value.message
    assert len(llm_server.chat_requests()) == 1


@pytest.mark.parametrize(("status", "needle"), [(401, "credentials"), (404, "does not know"), (429, "rate limiting")])
def test_llm_http_errors_say_what_to_fix(llm_server, llm_config, status, needle):
    llm_server.error(status, "nope")
    with pytest.raises(LLMError) as info:
        complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test")
    assert needle in info.value.message
    assert info.value.hint


def test_llm_invalid_json_and_empty_answers_are_llm_errors(llm_server, llm_config):
    llm_server.invalid_json()
    with pytest.raises(LLMError):
        complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test")
    llm_server.chat("   ")
    with pytest.raises(LLMError, match="empty answer"):
        complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test")
    llm_server.chat(None)
    with pytest.raises(LLMError, match="empty answer"):
        complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test")


def test_llm_connection_refused_is_an_llm_error(monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    server = LLMServer().start()
    server.close()  # nothing listens on that port any more
    config = LLMConfig(model="openai/test-model", api_base=server.base_url, api_key_env=API_KEY_ENV, timeout=5)
    with pytest.raises(LLMError, match="cannot reach"):
        complete(config, [{"role": "user", "content": "hi"}], purpose="test")


def test_llm_missing_key_variable(llm_server, monkeypatch):
    monkeypatch.delenv(API_KEY_ENV, raising=False)
    with pytest.raises(LLMError, match=API_KEY_ENV):
        complete(make_llm_config(llm_server), [{"role": "user", "content": "hi"}], purpose="test")
    assert llm_server.requests == []


def test_complete_returns_text_and_usage(llm_server, llm_config):
    llm_server.chat("An answer.", prompt_tokens=3, completion_tokens=2, model="served-model")
    result = complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test", temperature=0.3, max_tokens=17)
    assert (result.text, result.prompt_tokens, result.completion_tokens) == ("An answer.", 3, 2)
    assert result.model
    body = llm_server.chat_requests()[-1].json
    assert (body["temperature"], body["max_tokens"]) == (0.3, 17)


def test_disabled_llm_config_is_extractive(llm_server):
    summary = summarize_directory(DIR, handbook(), llm=LLMConfig())
    assert summary == summarize_directory(DIR, handbook())
    assert llm_server.requests == []


def test_user_prompt_override_is_used(llm_server, llm_config, tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "overview.yaml").write_text(
        textwrap.dedent(
            """\
            metadata: {id: custom.overview, version: 1, description: Terse}
            variables: [dir_name, entries]
            template: |
              CUSTOM OVERVIEW PROMPT for $dir_name
              $entries
            llm: {temperature: 0.5}
            """
        ),
        encoding="utf-8",
    )
    llm_server.chat(GOOD_ANSWER)
    summarize_directory(DIR, handbook(), llm=llm_config, prompts_dir=prompts)
    body = llm_server.chat_requests()[-1].json
    assert body["messages"] == [{"role": "user", "content": body["messages"][0]["content"]}]
    assert body["messages"][0]["content"].startswith("CUSTOM OVERVIEW PROMPT for handbook\n<entry ")
    assert body["temperature"] == 0.5


def test_missing_prompts_dir_uses_the_builtin(llm_server, llm_config, tmp_path):
    llm_server.chat(GOOD_ANSWER)
    summarize_directory(DIR, handbook(), llm=llm_config, prompts_dir=tmp_path / "absent")
    assert "Answer with Markdown in exactly this structure" in llm_server.chat_requests()[-1].prompt


def test_bad_user_template_is_a_config_error(llm_server, llm_config, tmp_path):
    (tmp_path / "overview.yaml").write_text("metadata: {id: x, version: 1, description: y}\nvariables: [dir_name]\ntemplate: $dir_name\n")
    with pytest.raises(ConfigError) as info:
        summarize_directory(DIR, handbook(), llm=llm_config, prompts_dir=tmp_path)
    assert "must use $entries" in info.value.message
    assert str(tmp_path / "overview.yaml") in info.value.message
    assert llm_server.requests == []


NO_NETWORK_PROBE = """
import json, socket, sys

seen = []
LOOPBACK = ("127.0.0.1", "::1", "localhost")
real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

def connect(self, address):
    seen.append(str(address[0] if isinstance(address, tuple) else address))
    if seen[-1] not in LOOPBACK:
        raise OSError("blocked")
    return real_connect(self, address)

def getaddrinfo(host, *args, **kwargs):
    seen.append(str(host))
    if host not in LOOPBACK:
        raise socket.gaierror("blocked")
    return real_getaddrinfo(host, *args, **kwargs)

socket.socket.connect = connect
socket.getaddrinfo = getaddrinfo

from ov.config import LLMConfig
from ov.llm.client import complete

config = LLMConfig(model="openai/test-model", api_base=sys.argv[1], api_key_env=sys.argv[2], timeout=20)
result = complete(config, [{"role": "user", "content": "hi"}], purpose="probe")
print(json.dumps({"text": result.text, "seen": seen}))
"""


def test_no_connection_leaves_loopback(llm_server, llm_config):
    """litellm fetches model catalogues from GitHub at import unless told not to; ov tells it."""
    llm_server.chat("probe answer")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LITELLM_")}
    proc = subprocess.run(
        [sys.executable, "-c", NO_NETWORK_PROBE, llm_server.base_url, API_KEY_ENV],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["text"] == "probe answer"
    assert report["seen"], "the probe saw no connection at all"
    assert set(report["seen"]) <= {"127.0.0.1", "localhost", "::1"}, report["seen"]
    assert "LiteLLM" not in proc.stderr  # no warnings or banners


def test_unknown_provider_is_an_llm_error(monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    with pytest.raises(LLMError) as info:
        complete(LLMConfig(model="no-such-model", api_key_env=API_KEY_ENV), [{"role": "user", "content": "hi"}], purpose="test")
    assert "provider" in info.value.message and "openai/" in (info.value.hint or "")


def test_server_handler_and_embeddings_work_through_litellm(llm_server, llm_config):
    """The fake also serves embeddings (scripted or deterministic) and handler-made replies."""
    from ov.llm.client import import_litellm
    from tests.llm_server import Reply, chat_body

    litellm = import_litellm()
    common = {"api_base": llm_server.base_url, "api_key": API_KEY, "timeout": 10}
    llm_server.embeddings([[1.0, 0.0], [0.0, 1.0]])
    scripted = litellm.embedding(model="openai/test-embedding", input=["a", "b"], **common)
    assert [d["embedding"] for d in scripted.data] == [[1.0, 0.0], [0.0, 1.0]]
    again = [litellm.embedding(model="openai/test-embedding", input=["same"], **common).data[0]["embedding"] for _ in range(2)]
    assert again[0] == again[1] and len(again[0]) == llm_server.embedding_dim
    assert llm_server.requests[0].json["input"] == ["a", "b"]

    llm_server.handler = lambda request: Reply(body=chat_body(f"echo {len(request.messages)}"))
    result = complete(llm_config, [{"role": "user", "content": "hi"}], purpose="test")
    assert result.text == "echo 1"


def test_a_parent_summary_is_about_its_children_content_not_their_generated_wording():
    children = [
        ChildInfo("billing", True, abstract="This directory holds files about invoices, refunds and taxes. Invoices are sent monthly."),
        ChildInfo("payroll", True, abstract="This directory holds files about salaries, invoices and bonuses. Salaries are paid monthly."),
    ]
    terms = key_terms(children)
    assert "Invoices" in terms and not {"holds", "directory", "files", "subdirectories"} & {t.lower() for t in terms}
    abstract = derive_abstract(summarize_directory("viking://resources/finance", children).overview)
    assert "This directory holds" not in abstract  # the children's layout sentences are not repeated
    assert "are sent monthly." in abstract or "are paid monthly." in abstract
