"""`ov refile` and `ov fsck`: the dated notes an older ov made of what ov files elsewhere now."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

# A dated note as ov before 1d3df58 wrote it (`ov remember` there, e.g. at 14aeede): the user's words, one bullet.
OLD_NOTE = """- {text}

<!-- MEMORY_FIELDS
{{
  "created_at": "2026-11-20T09:55:33Z",
  "event": "{event}",
  "memory_type": "events",
  "sources": [
    "ov remember"
  ],
  "updated_at": "2026-11-20T09:55:33Z",
  "version": 1
}}
-->
"""
MISFILED = {
    "run_linter": "Always run the linter before committing",
    "staging_database": "The staging database is at db-staging.internal:5432",
    "push_to_main": "Never push to main on Fridays",
    "ci_runner": "The CI runner is at ci.internal:8080",
    "go_version": "Our team uses Go 1.22 for new services",
}
# What an older ov's note says that today's ov keeps as a note too: no rule reads it whole.
NOTES = {
    "build_took": "The build took 20 minutes on Tuesday",
    "deploy_broke": "The deploy broke on 2026-11-30 because of a missing env var",
}


@pytest.fixture
def memories(ov, ov_home) -> Path:
    folder = ov_home / "accounts/default/user/default/memories"
    day = folder / "events/2026/11/20"
    day.mkdir(parents=True)
    for event, text in {**MISFILED, **NOTES}.items():
        (day / f"{event}.md").write_text(OLD_NOTE.format(text=text, event=event))
    assert ov("snapshot", "commit", "-m", "what an older ov remembered").exit_code == 0
    return folder


def _files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text() for p in sorted(folder.rglob("*.md")) if not p.name.startswith(".")}


def _commits(ov_home: Path) -> int:
    repo = ov_home / "accounts/default"
    return int(subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"], capture_output=True, text=True, check=True).stdout)


def test_fsck_names_the_misfiled_notes_and_refile_moves_them_in_one_commit(ov, ov_home, memories):
    checked = ov("fsck", "--json").json["result"]
    assert checked["ok"]  # a note, not a problem
    (note,) = [f for f in checked["findings"] if "dated note" in f["message"]]
    assert note["severity"] == "note" and "`ov refile`" in note["fix"]
    assert all(f"events/2026/11/20/{event}.md" in note["message"] for event in MISFILED)
    assert not any(f"events/2026/11/20/{event}.md" in note["message"] for event in NOTES)

    before, commits = _files(memories), _commits(ov_home)
    dry = ov("refile", "--dry-run", "--json").json["result"]
    assert dry["commit"] is None and len(dry["moved"]) == len(MISFILED)
    assert _files(memories) == before and _commits(ov_home) == commits

    done = ov("refile", "--json").json["result"]
    assert done["changed"] and _commits(ov_home) == commits + 1
    assert {m["from"].rpartition("/")[2][:-3] for m in done["moved"]} == set(MISFILED)
    after = _files(memories)
    assert sorted(p for p in after if p.startswith("events/")) == sorted(f"events/2026/11/20/{e}.md" for e in NOTES)
    assert "- Always run the linter before committing" in after["preferences/default/run_linter.md"]
    assert "- Is at db-staging.internal:5432" in after["entities/systems/staging_database.md"]
    assert "- Team uses Go 1.22 for new services" in after["profile.md"]

    # The same words again are already remembered, and nothing is left to name or move.
    assert ov("remember", "Always run the linter before committing").stdout.startswith("already remembered")
    assert ov("remember", "The CI runner is at ci.internal:8080").stdout.startswith("already remembered")
    assert not [f for f in ov("fsck", "--json").json["result"]["findings"] if "dated note" in f["message"]]
    again = ov("refile")
    assert again.exit_code == 0 and "no dated note to re-file" in again.stderr and _commits(ov_home) == commits + 1


def test_a_later_correction_holds_over_the_older_note(ov, ov_home, memories):
    assert ov("remember", "Always push to main on Fridays").exit_code == 0  # said after the note's "Never ..."
    assert ov("refile").exit_code == 0
    kept = (memories / "preferences/default/push_to_main.md").read_text()
    assert "- Always push to main on Fridays" in kept and "Never push" not in kept


def test_the_notes_todays_ov_makes_are_never_named(ov, ov_home):
    assert ov("remember", "Remember that we shipped the release on Monday").exit_code == 0
    assert ov("remember", "I prefer tabs. The office plants need water on Fridays, and the printer jams a lot.").exit_code == 0
    assert not [f for f in ov("fsck", "--json").json["result"]["findings"] if "dated note" in f["message"]]
    assert "no dated note to re-file" in ov("refile").stderr


def test_named_notes_move_alone_and_one_made_on_purpose_stays(ov, ov_home, memories):
    made = ov("remember", "Our staging DB is read-only", "--type", "events", "--json").json["result"]["uris"][0]
    # (found by a review: fsck named a note made on purpose as an older ov's misfiled one)
    assert f"{len(MISFILED)} dated notes" in ov("fsck").stdout and made.rpartition("memories/")[2] not in ov("fsck").stdout
    old = "viking://user/default/memories/events/2026/11/20/run_linter.md"
    done = ov("refile", old, "--json").json["result"]
    assert [m["from"] for m in done["moved"]] == [old] and done["changed"]
    assert ov("read", made).exit_code == 0 and ov("read", old).exit_code != 0
    assert (memories / "events/2026/11/20/staging_database.md").exists()
    assert made not in [m["from"] for m in ov("refile", "--json").json["result"]["moved"]]  # every misfiled note moves, not it
    assert ov("read", made).exit_code == 0
    # named, it moves all the same: the user changed their mind
    assert [m["from"] for m in ov("refile", made, "--json").json["result"]["moved"]] == [made]

    refused = ov("refile", "viking://user/default/memories/events/2026/11/20/build_took.md")
    assert refused.exit_code == 2 and "is not a dated note of words `ov remember` files elsewhere now" in refused.stderr


def test_with_nothing_to_write_a_home_without_a_store_is_left_without_one(ov, ov_home):
    """A dry run, a refile with no note to move and a snapshot with no hand edit write nothing:
    they made the account's repository (an "ov init" commit) only to say there was nothing to do."""
    for args in (["refile", "--dry-run"], ["refile"], ["snapshot", "commit", "-m", "x"]):
        result = ov(*args)
        assert result.exit_code == 0, args
        assert not (ov_home / "accounts").exists() and not (ov_home / "state").exists(), args
    named = ov("refile", "viking://user/default/memories/events/2026/11/20/x.md")
    assert named.exit_code == 2 and "is not a dated note" in named.stderr
    assert not (ov_home / "accounts").exists()


# Notes the fallback before mem22 kept of what no rule reads: standing facts and conventions filed as
# events. Today's ov remember files them by standing_note's reading, and refile by the same code.
FALLBACK = {
    "sentry": "Log all errors to Sentry",
    "bob_berlin": "Bob is in Berlin",
    "nightly_build": "The nightly build takes 40 minutes",
}


def test_notes_the_old_fallback_kept_move_as_remember_files_them_today(ov, ov_home):
    folder = ov_home / "accounts/default/user/default/memories"
    day = folder / "events/2026/11/21"
    day.mkdir(parents=True)
    for event, text in {**FALLBACK, "deploy_broke": "The deploy broke on 2026-11-30 because of a missing env var",
                        "thanks": "Thanks, that worked great!"}.items():
        (day / f"{event}.md").write_text(OLD_NOTE.format(text=text, event=event))
    assert ov("snapshot", "commit", "-m", "what the old fallback remembered").exit_code == 0

    done = ov("refile", "--json").json["result"]
    assert {m["from"].rpartition("/")[2][:-3] for m in done["moved"]} == set(FALLBACK)
    after = _files(folder)
    # a happening stays a note, and so does chatter the user kept once (today's remember refuses it; refile deletes nothing)
    assert sorted(p for p in after if p.startswith("events/")) == ["events/2026/11/21/deploy_broke.md", "events/2026/11/21/thanks.md"]
    assert "- Log all errors to Sentry" in after["preferences/default/log_all_errors.md"]
    assert "- Bob is in Berlin" in after["entities/people/bob.md"]
    assert any("nightly build takes 40 minutes" in text for path, text in after.items() if path.startswith("entities/systems/"))
    for text in FALLBACK.values():
        assert ov("remember", text).stdout.startswith("already remembered")
