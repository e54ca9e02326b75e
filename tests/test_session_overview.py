"""An archive's overview and abstract written without a model: each section holds what is of its kind.

The sessions here were written after the rules, in other words than the ones the rules were made
from (an audit's week of sessions), so that they test the rules and not their examples.
"""

from __future__ import annotations

import pytest

from ov.sessions.overview import (
    CURRENT_STATE,
    FACTS,
    NONE,
    OPEN_ISSUES,
    TASK,
    shown,
    working_memory,
)
from ov.store import sidecar
from ov.summaries.layers import derive_abstract

JS_STACK = """TypeError: Cannot read properties of undefined (reading 'total')
    at computeTotal (/srv/shop/src/cart.js:41:18)
    at Cart.render (/srv/shop/src/cart.js:88:12)
    at processTicksAndRejections (node:internal/process/task_queues:95:5)"""

PY_TRACEBACK = """Traceback (most recent call last):
  File "/home/lee/proj/billing/invoice.py", line 212, in render
    amount = line.qty * line.unit_price
  File "/home/lee/proj/billing/money.py", line 19, in __mul__
    return Money(self.cents * other)
TypeError: unsupported operand type(s) for *: 'int' and 'NoneType'"""


def _msg(role: str, text: str, when: str = "2026-10-14T08:00:00Z") -> dict:
    return {"role": role, "created_at": when, "parts": [{"type": "text", "text": text}]}


def _section(overview: str, heading: str) -> list[str]:
    return overview.split(f"## {heading}\n", 1)[1].split("\n\n", 1)[0].splitlines()


def _items(overview: str, heading: str) -> list[str]:
    return [line[2:] for line in _section(overview, heading) if line != NONE]


@pytest.mark.parametrize(
    ("first", "asked"),
    [
        (f"Checkout blows up on an empty cart, here is the stack:\n{JS_STACK}", "Checkout blows up on an empty cart."),
        (f"{PY_TRACEBACK}\n\nInvoices with a free line crash like this since Monday. Can you find why?", "Invoices with a free line crash like this since Monday."),
        (f"Got this when rendering invoice 88:\n```\n{PY_TRACEBACK}\n```", "Got this when rendering invoice 88."),
        (f"hey\n\nthe cart total is NaN after a coupon. This is the trace:\n{JS_STACK}", "the cart total is NaN after a coupon."),
    ],
)
def test_a_session_opening_with_a_paste_is_titled_and_abstracted_by_what_the_user_wrote(first, asked):
    said = [_msg("user", first), _msg("assistant", "The coupon path leaves the price unset; I guarded it."), _msg("user", "thanks!")]
    overview = working_memory(said, "s")
    assert overview.startswith(f"# {asked}\n")
    abstract = derive_abstract(overview)
    assert abstract == f"3 messages (2026-10-14). The user asked: {asked}"
    for frame_word in ("File \"", "at computeTotal", "Traceback", "amount = line.qty"):
        assert frame_word not in abstract and frame_word not in _section(overview, TASK)[0]


def test_a_session_of_pastes_only_is_titled_by_its_error():
    overview = working_memory([_msg("user", PY_TRACEBACK), _msg("assistant", "Fixed the None price.")], "s")
    assert overview.startswith("# TypeError: unsupported operand type(s) for *: 'int' and 'NoneType'\n")
    assert "The user asked: TypeError: unsupported operand" in derive_abstract(overview)


def test_an_abstract_keeps_what_was_asked_when_the_question_is_longer_than_it_fits():
    long_ask = (
        "The nightly export to the warehouse bucket writes every partition twice when the job is retried after a"
        " timeout, which doubles the row counts in the finance dashboards and makes the reconciliation step fail"
        " the next morning, so please make the writer idempotent per partition key"
    )
    overview = working_memory([_msg("user", long_ask + "."), _msg("assistant", "Made the writer idempotent.")], "s")
    abstract = derive_abstract(overview)
    assert len(abstract) <= sidecar.ABSTRACT_MAX_CHARS
    assert abstract.startswith("2 messages (2026-10-14). The user asked: The nightly export to the warehouse bucket writes")
    assert abstract.endswith("...") and len(abstract) > sidecar.ABSTRACT_MAX_CHARS // 2
    # The title is cut on a word and says so; a context block still knows it for the asked sentence.
    title = overview.splitlines()[0]
    assert len(title) <= 2 + 80 and title.endswith("...") and long_ask.startswith(title[2:-3])
    assert not shown(overview).startswith("# ")


@pytest.mark.parametrize(
    "courtesy",
    ["Cheers, much appreciated!", "perfect, go ahead", "ok sounds good", "Thank you so much :)", "yep, do it"],
)
def test_a_courtesy_fills_no_section(courtesy):
    said = [
        _msg("user", "Make the retry delay in sync/client.py exponential."),
        _msg("assistant", "Switched the retry delay to exponential backoff capped at 30 s."),
        _msg("user", courtesy),
        _msg("assistant", "Anytime! Happy to help."),
    ]
    overview = working_memory(said, "s")
    assert _section(overview, CURRENT_STATE) == ["- Switched the retry delay to exponential backoff capped at 30 s."]
    assert _items(overview, TASK) == ["Make the retry delay in sync/client.py exponential."]
    assert courtesy not in overview and "Anytime" not in overview


def test_a_goal_is_the_first_sentence_that_says_something():
    said = [
        _msg("user", "Morning! The signup form accepts an empty e-mail."),
        _msg("assistant", "Added a required check to forms/signup.py."),
        _msg("user", "Nice. Now add a test that posts a blank address."),
        _msg("assistant", "Added tests/test_signup.py::test_blank_email."),
    ]
    assert _items(working_memory(said, "s"), TASK) == ["The signup form accepts an empty e-mail.", "Now add a test that posts a blank address."]


def test_key_facts_are_decisions_and_stated_changes_not_goals():
    said = [
        _msg("user", "Set up the release workflow for the CLI."),
        _msg("assistant", "Do you want wheels for Windows too?"),
        _msg("user", "We agreed with the team to ship Linux and macOS wheels only."),
        _msg("user", "Also the package registry has moved from Artifactory to GitHub Packages."),
        _msg("assistant", "Got it, GitHub Packages from now on."),
        _msg("user", "Going forward, every tag must be signed."),
        _msg("user", "Should we switch the changelog to towncrier?"),
        _msg("user", "Or should we go with git-cliff?"),
        _msg("assistant", "Not yet: towncrier needs a fragment per PR. Let's stick with the hand-written changelog."),
    ]
    overview = working_memory(said, "s")
    assert _items(overview, FACTS) == [
        "We agreed with the team to ship Linux and macOS wheels only.",
        "Also the package registry has moved from Artifactory to GitHub Packages.",
        "Going forward, every tag must be signed.",
        "Not yet: towncrier needs a fragment per PR. Let's stick with the hand-written changelog.",
    ]
    # What was asked for stays a goal; a decision or a change stated is not one.
    # A question about a choice is asked, not decided: a goal, never a key fact.
    assert _items(overview, TASK) == ["Set up the release workflow for the CLI.", "Should we switch the changelog to towncrier?", "Or should we go with git-cliff?"]


def test_an_open_issue_is_a_question_left_unanswered():
    said = [
        _msg("user", "Why does the importer skip rows with a BOM?"),
        _msg("assistant", "csv.reader sees the BOM as part of the first header, so the column lookup misses it."),
        _msg("user", "Is utf-8-sig safe for files without a BOM?"),
        _msg("assistant", "Let me check."),
        _msg("user", "And do we still need the latin-1 fallback?"),
        _msg("assistant", "Do you have a sample file that needs it?"),
    ]
    overview = working_memory(said, "s")
    assert _items(overview, OPEN_ISSUES) == ["Is utf-8-sig safe for files without a BOM?", "And do we still need the latin-1 fallback?"]
    # A reply to what the user said next answers that, not the question left before it.
    moved_on = said[:4] + [_msg("user", "Meanwhile rename load_rows to read_rows."), _msg("assistant", "Renamed it in importer/rows.py.")]
    assert _items(working_memory(moved_on, "s"), OPEN_ISSUES) == ["Is utf-8-sig safe for files without a BOM?"]
    # Two messages in a row, one reply: it answers both.
    in_a_row = [_msg("user", "Which encoding does the exporter use?"), _msg("user", "And the importer?"), _msg("assistant", "Both use utf-8.")]
    assert _section(working_memory(in_a_row, "s"), OPEN_ISSUES) == [NONE]
    answered = said[:2] + [_msg("user", "ok, switch to utf-8-sig then"), _msg("assistant", "Done: the importer opens files as utf-8-sig.")]
    assert _section(working_memory(answered, "s"), OPEN_ISSUES) == [NONE]
    # Chinese and Japanese end a question with a full-width mark (found by a review: left out).
    cjk = [_msg("user", "服务器用的是哪个端口？"), _msg("assistant", "你是说生产环境的服务器吗？"), _msg("user", "サーバーのポートは何番ですか？")]
    assert _items(working_memory(cjk, "s"), OPEN_ISSUES) == ["服务器用的是哪个端口？", "サーバーのポートは何番ですか？"]


def test_errors_name_the_raised_error_not_the_traceback_header():
    overview = working_memory([_msg("user", f"Invoice rendering broke:\n{PY_TRACEBACK}"), _msg("assistant", "Fixed.")], "s")
    errors = _items(overview, "Errors & Corrections")
    assert "TypeError: unsupported operand type(s) for *: 'int' and 'NoneType'" in errors
    assert not [line for line in errors if line.startswith("Traceback")]


def test_the_abstract_of_a_committed_session_opening_with_a_traceback_says_what_was_asked(ov):
    text = f"Rendering an invoice with a free line crashes, log below:\n{PY_TRACEBACK}"
    assert ov("session", "add", "s", "--text", text).exit_code == 0
    assert ov("session", "add", "s", "--role", "assistant", "--text", "Money.__mul__ now treats a missing price as zero.").exit_code == 0
    assert ov("commit", "s").exit_code == 0
    abstract = ov("abstract", "viking://~/sessions/s/history/archive_001").stdout.strip()
    assert abstract.endswith("The user asked: Rendering an invoice with a free line crashes.")
    overview = ov("overview", "viking://~/sessions/s/history/archive_001").stdout
    assert overview.startswith("# Rendering an invoice with a free line crashes.\n")


@pytest.mark.parametrize(
    ("said", "decided"),
    [
        ("After a long thread we went with Redis for the session cache.", True),
        ("We picked Redis over Memcached.", True),
        ("The billing service no longer calls the ledger directly.", True),
        ("I changed the default timeout from 30 to 60 seconds.", True),
        ("We'll keep the v1 endpoint alive until March.", True),
        ("The API docs are now hosted on Read the Docs.", True),
        ("Going forward, squash-merge every PR.", True),
        # news, a goal, a request, a question: no decision
        ("The nightly build is now failing on Windows, fix it.", False),
        ("We will need to handle retries as well.", False),
        ("Please move the date helpers to utils/dates.py.", False),
        ("Should we go with Redis here?", False),
        ("I picked up the new laptop, set up the repo on it.", False),
    ],
)
def test_a_key_fact_is_known_by_its_kind(said, decided):
    overview = working_memory([_msg("user", said), _msg("assistant", "Okay.")], "s")
    assert (said in _items(overview, FACTS)) is decided
    assert (said in _items(overview, TASK)) is not decided  # a goal or a decision, not both


def _tool(name: str, output: str) -> dict:
    return {"role": "tool", "created_at": "2026-10-14T08:00:00Z", "parts": [{"type": "tool", "tool_name": name, "tool_status": "completed", "tool_output": output}]}


def test_an_audits_sessions_keep_the_users_facts_and_no_remarks_banners_or_promises():
    # An audit (finding 13): Key Facts held the agent's promise ("I'll remember to use `pytest -x -q`
    # from now on"), or "none" beside "remember that ..."; Errors the runner's banner and the frame
    # line; Goals "ah right, they rotated it." and a redacted token handed over.
    debugging = working_memory(
        [
            _msg("user", "test_login_rejects_expired started failing after the pyjwt bump, can you figure out why?"),
            _tool("Bash", "tests/test_auth.py:89: AssertionError\nE   AssertionError: assert 200 == 401\n======== 1 failed, 141 passed in 4.21s ========"),
            _msg("user", "ok makes sense. I don't want a 10 minute leeway though. And for the record I always run tests with `pytest -x -q`."),
            _msg("assistant", "All 14 auth tests pass now with a 30-second leeway. I'll remember to use `pytest -x -q` from now on."),
            _msg("user", "great, thanks. that fixed it"),
        ],
        "s1",
    )
    assert _items(debugging, FACTS) == ["And for the record I always run tests with `pytest -x -q`."]
    assert _items(debugging, "Errors & Corrections") == ["E   AssertionError: assert 200 == 401"]
    assert "that fixed it" not in _items(debugging, TASK)
    secrets = working_memory(
        [
            _msg("user", "The staging deploy can't reach Postgres."),
            _msg("assistant", "Password authentication fails for user `payments`."),
            _msg("user", "ah right, they rotated it. the new db password is [REDACTED:password]."),
            _msg("user", "my github token is [REDACTED:github_token] if you need to push the fix. And remember that staging Postgres is on db.staging.internal port 5432."),
        ],
        "s6",
    )
    assert _items(secrets, TASK) == ["The staging deploy can't reach Postgres."]
    assert _items(secrets, FACTS) == ["And remember that staging Postgres is on db.staging.internal port 5432."]
    # Written after the rules: a remark that asks or wants something is a goal; a user's note is a
    # fact; an agent's decision stated beside its promise stays a decision.
    more = working_memory(
        [
            _msg("user", "Set up the nightly export job."),
            _msg("user", "oh, it needs to run at 2am, can you also add a retry?"),
            _msg("user", "ok now add a lint job too"),
            _msg("user", "fyi the export bucket is s3://acme-exports"),
            _msg("assistant", "We switched from cron to systemd timers. I'll keep an eye on it going forward."),
            _msg("user", "hmm, that was the old bucket"),
        ],
        "s9",
    )
    assert _items(more, TASK) == ["Set up the nightly export job.", "oh, it needs to run at 2am, can you also add a retry?", "ok now add a lint job too"]
    assert _items(more, FACTS) == ["fyi the export bucket is s3://acme-exports", "We switched from cron to systemd timers."]
