"""`ov snapshot log` and `show` as an audit reads them: "what did the agent learn, and when"."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from dulwich.repo import Repo

from tests.conftest import numbered_notes

DAY = 86400
# Noon, ten days from now: the commits made at such times are newer than the init below them, as
# on a machine whose clock is right.
NOON = (int(time.time()) // DAY + 10) * DAY + DAY // 2


def day(n: int, at: str = "") -> str:
    """The date (``at``: and time) ``n`` days after NOON's, as one types it."""
    return time.strftime("%Y-%m-%d", time.gmtime(NOON + n * DAY)) + at


def ok(result):
    assert result.exit_code == 0, result.stderr
    return result.json["result"] if result.stdout.lstrip().startswith("{") else result


def account(home: Path) -> Path:
    return home / "accounts" / "default"


def commit_at(home: Path, when: int, name: str, trailers: str, parents: list[bytes] | None = None, author: str = "default <default@default.ov>") -> bytes:
    """A commit made at ``when`` (as a machine whose clock said so, or plain git) on top of main,
    adding ``resources/NAME``, with ``trailers`` as its message's body; main moves to it."""
    from dulwich.objects import Blob, Commit

    with Repo(str(account(home))) as repo:
        head = repo.refs[b"refs/heads/main"]
        blob = Blob.from_string(f"{name}\n".encode())
        repo.object_store.add_object(blob)
        tree = repo.object_store[repo[head].tree]
        resources = repo.object_store[tree[b"resources"][1]] if b"resources" in tree else None
        from dulwich.objects import Tree

        resources = resources.copy() if resources is not None else Tree()
        resources.add(name.encode(), 0o100644, blob.id)
        repo.object_store.add_object(resources)
        tree = tree.copy()
        tree.add(b"resources", 0o040000, resources.id)
        repo.object_store.add_object(tree)
        commit = Commit()
        commit.tree, commit.parents = tree.id, parents if parents is not None else [head]
        commit.author = commit.committer = author.encode()
        commit.author_time = commit.commit_time = when
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = f"ov write viking://resources/{name}\n\n{trailers}".encode()
        repo.object_store.add_object(commit)
        repo.refs[b"refs/heads/main"] = commit.id
    return commit.id


@pytest.fixture
def dated(ov, ov_home):
    """Four commits on top of init, a day apart: the user's write, a hook's, an MCP client's, the user's."""
    assert ov("init").exit_code == 0
    for day, (name, command, via) in enumerate(
        [("mine.md", "write", "cli"), ("hooked.md", "commit", "hook claude"), ("told.md", "remember", "mcp claude-code"), ("late.md", "write", "cli")]
    ):
        commit_at(ov_home, NOON + day * DAY, name, f"Ov-Command: {command}\nOv-Via: {via}\nOv-Uri: viking://resources/{name}\n")
    return ov


def subjects(entries: list[dict]) -> list[str]:
    """Each commit by the file it wrote (init by its command)."""
    return [e["uris"][0].rsplit("/", 1)[-1] if e["uris"] else e["command"] for e in entries]


def test_log_filters_by_time_adapter_and_command(dated):
    """`--after`/`--before` read times as `ov find` does (both ends included); `--via hook` takes
    `hook claude` and `--via mcp` any client; filters combine, and each option may repeat."""
    def log(*args):
        return subjects(ok(dated("snapshot", "log", "--json", *args)))

    assert log("--after", day(1)) == ["late.md", "told.md", "hooked.md"]
    assert log("--after", day(1), "--before", day(2, "T12:00:00Z")) == ["told.md", "hooked.md"]
    assert log("--before", day(0, "T12:00:00+00:00")) == ["mine.md", "init"]
    assert log("--via", "hook", "--via", "mcp") == ["told.md", "hooked.md"]
    assert log("--via", "hook claude") == ["hooked.md"] and log("--via", "hook gemini") == []
    assert log("--command", "write", "--after", day(0, "T13:00:00Z")) == ["late.md"]
    assert log("--via", "cli", "--uri", "viking://resources/mine.md") == ["mine.md"]
    assert log("--after", day(1), "-n", "1") == ["late.md"]
    refused = dated("snapshot", "log", "--after", "monday")
    assert refused.exit_code == 2 and "'monday' is not a time" in refused.stderr
    empty = dated("snapshot", "log", "--via", "mcp", "--before", day(0))
    assert empty.exit_code == 0 and empty.stdout == "" and "no commits matched the filters" in empty.stderr


@pytest.mark.parametrize("option, value, said, hint", [
    ("--via", "hooks", "no commit is made via 'hooks'", "via is one of cli, mcp, hook"),
    ("--via", "hoo", "no commit is made via 'hoo'", "via is one of cli, mcp, hook"),
    ("--command", "remeber", "no ov command commits as 'remeber': did you mean 'remember'?", "the commands that commit are: add-resource, "),
    ("--command", "snap", "no ov command commits as 'snap': did you mean 'snapshot'?", "snapshot commit"),
    ("--command", "zzz", "no ov command commits as 'zzz'", "remember"),
])
def test_a_log_filter_value_no_commit_can_have_is_bad_input(dated, option, value, said, hint):
    """A one-letter typo read as "no commits matched": an audit of what agents wrote would read "nothing"."""
    refused = dated("snapshot", "log", option, value, "--json")
    assert refused.exit_code == 2 and refused.error["code"] == "invalid_input"
    assert refused.error["message"] == said and hint in refused.error["hint"]


def test_a_command_only_an_older_ov_wrote_is_still_a_filter_while_its_commits_are_there(dated, ov_home):
    commit_at(ov_home, NOON + 5 * DAY, "old.md", "Ov-Command: session commit\nOv-Via: cli\nOv-Uri: viking://resources/old.md\n")
    assert subjects(ok(dated("snapshot", "log", "--json", "--command", "session commit"))) == ["old.md"]
    assert subjects(ok(dated("snapshot", "log", "--json", "--command", "session"))) == ["old.md"]


def test_every_command_ov_commits_with_is_one_the_log_filter_takes():
    """COMMIT_COMMANDS is the list `--command` checks a value against: each literal command a commit
    of ov's is made with (``tx.commit("remember", ...)``, ``commit_message("pull", ...)``) is in it."""
    import re
    from pathlib import Path

    from ov.store.store import COMMIT_COMMANDS

    source = Path(__file__).resolve().parents[1] / "ov"
    used = {m.group(1) for path in source.rglob("*.py") for m in re.finditer(r"(?:\.commit|commit_message)\(\s*\"([^\"]+)\"", path.read_text(encoding="utf-8"))}
    assert used and used <= COMMIT_COMMANDS, used - COMMIT_COMMANDS


def test_a_reflog_time_is_no_revision_and_the_hint_names_log_after(dated):
    for rev in ("HEAD@{yesterday}", "@{2026-11-30}"):
        refused = dated("snapshot", "diff", rev, "--json")
        assert refused.exit_code == 2
        assert "snapshot log --after" in refused.error["hint"]


def test_log_is_in_commit_time_order_across_a_merge_and_lists_both_sides(ov, ov_home):
    """A merge made by plain git, or by ov's pull: the commits of both sides, newest first."""
    assert ov("init").exit_code == 0
    base = Repo(str(account(ov_home))).head()
    ours = commit_at(ov_home, NOON + 2 * DAY, "ours.md", "Ov-Command: write\nOv-Via: cli\n")
    theirs = commit_at(ov_home, NOON + DAY, "theirs.md", "Ov-Command: commit\nOv-Via: hook codex\n", parents=[base])
    commit_at(ov_home, NOON + 3 * DAY, "both.md", "Ov-Command: pull\nOv-Via: cli\n", parents=[ours, theirs])
    entries = ok(ov("snapshot", "log", "--json"))
    assert [(e["command"], e["via"]) for e in entries] == [("pull", "cli"), ("write", "cli"), ("commit", "hook codex"), ("init", "cli")]
    # theirs.md came in by the merge as that side made it: the side's commit made it, not the merge;
    # both.md is the merge's own.
    assert [e["command"] for e in ok(ov("snapshot", "log", "--uri", "viking://resources/theirs.md", "--json"))] == ["commit"]
    assert [e["command"] for e in ok(ov("snapshot", "log", "--uri", "viking://resources/both.md", "--json"))] == ["pull"]
    assert [e["command"] for e in ok(ov("snapshot", "log", "--uri", "viking://resources", "--json"))] == ["pull", "write", "commit"]


def test_log_after_reads_on_past_a_commit_whose_clock_ran_slow(dated, ov_home):
    """(a review: `--after` stopped at the first older commit, and a commit made on a machine whose
    clock was a week slow hid every commit it was made on top of, those of the days asked for.)"""
    commit_at(ov_home, NOON - 7 * DAY, "slow.md", "Ov-Command: write\nOv-Via: cli\nOv-Uri: viking://resources/slow.md\n")  # on top of late.md
    commit_at(ov_home, NOON + 5 * DAY, "after.md", "Ov-Command: write\nOv-Via: cli\nOv-Uri: viking://resources/after.md\n")
    assert subjects(ok(dated("snapshot", "log", "--after", day(1), "--json"))) == ["after.md", "late.md", "told.md", "hooked.md"]
    assert subjects(ok(dated("snapshot", "log", "--after", day(1), "--uri", "viking://resources/late.md", "--json"))) == ["late.md"]
    # The slow commit itself is listed by the time it says.
    assert subjects(ok(dated("snapshot", "log", "--after", day(-8), "--before", day(-6), "--json"))) == ["slow.md"]


# Zones without summer time, so the offsets hold whenever the test runs (Etc/GMT+8 is UTC-8).
@pytest.mark.parametrize(("zone", "shown"), [("Asia/Tokyo", "T21:00:00+09:00"), ("Etc/GMT+8", "T04:00:00-08:00"), ("UTC", "T12:00:00+00:00")])
def test_log_and_show_give_times_in_the_users_zone_and_json_in_utc(dated, zone, shown, time_zone):
    """(a review: the text log gave UTC times while events are filed by the user's day: a commit
    made in the evening of the 5th in California read as the 6th.)"""
    time_zone(zone)
    late = time.strftime("%Y-%m-%d", time.localtime(NOON + 3 * DAY)) + shown
    assert ok(dated("snapshot", "log", "-n", "1")).stdout.split()[1] == late
    assert ok(dated("snapshot", "show", "HEAD")).stdout.splitlines()[1].startswith(late + "  default")
    utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(NOON + 3 * DAY))
    assert ok(dated("snapshot", "log", "-n", "1", "--json"))[0]["time"] == utc
    assert ok(dated("snapshot", "show", "HEAD", "--json"))["time"] == utc


@pytest.mark.parametrize("zone", ["Asia/Tokyo", "Etc/GMT+8"])
def test_a_time_without_a_zone_is_read_in_the_users_zone_as_the_log_shows_times(dated, zone, time_zone):
    """(review) `--after` read 2026-..T09:00 as UTC while the log shows times in the user's zone:
    a time copied from the log without its offset was hours off. A zone said is kept."""
    time_zone(zone)
    shown = ok(dated("snapshot", "log", "-n", "1")).stdout.split()[1]  # its offset at the end
    (newest,) = subjects(ok(dated("snapshot", "log", "-n", "1", "--json")))
    local = shown[:19]
    assert newest in subjects(ok(dated("snapshot", "log", "--after", local, "--json")))
    later = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(NOON + 3 * DAY + 60))
    assert newest not in subjects(ok(dated("snapshot", "log", "--after", later, "--json")))
    assert newest in subjects(ok(dated("snapshot", "log", "--after", shown, "--json")))
    day = time.strftime("%Y-%m-%d", time.localtime(NOON + 3 * DAY))
    assert newest in subjects(ok(dated("snapshot", "log", "--after", day, "--before", day + "T23:59:59", "--json")))


def test_show_of_a_merge_says_so_and_what_it_brought_into_its_first_parent(ov, ov_home):
    """(a review: `show` of a merge gave its changes against its first parent as a commit's own,
    never saying it joined two lines.)"""
    assert ov("init").exit_code == 0
    base = Repo(str(account(ov_home))).head()
    ours = commit_at(ov_home, NOON + 2 * DAY, "ours.md", "Ov-Command: write\nOv-Via: cli\n")
    theirs = commit_at(ov_home, NOON + DAY, "theirs.md", "Ov-Command: commit\nOv-Via: hook codex\n", parents=[base])
    merge = commit_at(ov_home, NOON + 3 * DAY, "both.md", "Ov-Command: pull\nOv-Via: cli\n", parents=[ours, theirs])
    shown = ok(ov("snapshot", "show", "HEAD", "--json"))
    assert (shown["merge"], shown["against"], shown["parents"]) == (True, ours.decode(), [ours.decode(), theirs.decode()])
    # What came in from the other line (theirs.md) and the merge's own (both.md); ours.md was there.
    assert [(c["uri"], c["change"]) for c in shown["changes"]] == [("viking://resources/both.md", "added"), ("viking://resources/theirs.md", "added")]
    text = ok(ov("snapshot", "show", "HEAD", "--stat")).stdout.splitlines()
    assert text[0] == f"commit {merge.decode()}" and text[1] == f"Merge: {ours.decode()[:10]} {theirs.decode()[:10]}"
    assert f"    (a merge: the changes it brought into its first parent, {ours.decode()[:10]})" in text
    single = ok(ov("snapshot", "show", "HEAD~1", "--json"))
    assert (single["merge"], single["against"]) == (False, base.decode())
    assert "Merge:" not in ok(ov("snapshot", "show", "HEAD~1")).stdout
    assert ok(ov("snapshot", "show", base.decode(), "--json"))["against"] is None  # the first commit


@pytest.fixture
def homes(tmp_path, monkeypatch, ov):
    paths = {"a": tmp_path / "home-a", "b": tmp_path / "home-b"}

    def run(home, *args):
        monkeypatch.setenv("OV_HOME", str(paths[home]))
        result = ov(*args)
        assert result.exit_code == 0, result.stderr
        return result

    run.path = paths
    return run


def test_after_a_merging_pull_the_log_credits_the_other_machines_session(homes, tmp_path):
    # (found by an audit: `log --uri` followed first parents only, so a memory a session wrote
    # on machine A was credited on machine B to "ov pull (via cli)")
    (tmp_path / "shared.git").mkdir()
    Repo.init_bare(str(tmp_path / "shared.git")).close()
    remote = str(tmp_path / "shared.git")
    homes("a", "remember", "I prefer tabs")
    homes("a", "remote", "add", "origin", remote)
    homes("a", "push")
    homes("b", "remote", "add", "origin", remote)
    homes("b", "pull")
    homes("b", "remember", "I prefer pytest over unittest")  # B diverges
    homes("a", "session", "add", "s1", "--text", "Remember that the prod cluster is in eu-west-1")
    homes("a", "commit", "s1")
    homes("a", "push")
    assert ok(homes("b", "pull", "--json"))["outcome"] == "merged"
    entries = ok(homes("b", "snapshot", "log", "--uri", "viking://~/memories/entities", "--json"))
    assert [(e["command"], e["via"]) for e in entries] == [("commit", "cli")]
    assert any("entities/" in u for u in entries[0]["uris"])
    whole = [e["command"] for e in ok(homes("b", "snapshot", "log", "--json"))]
    assert whole[0] == "pull" and "commit" in whole and whole.count("remember") == 2


def test_show_uri_of_the_commit_that_removed_it_shows_the_deletion(ov):
    # (found by an audit: `log --uri` listed the removing commit, `show` of it said "did not exist")
    assert ov("write", "viking://resources/hb/a.md", "--content", "# A\n").exit_code == 0
    assert ov("write", "viking://resources/hb/b.md", "--content", "# B\n").exit_code == 0
    assert ov("rm", "-r", "viking://resources/hb").exit_code == 0
    for uri in ("viking://resources/hb", "viking://resources/hb/a.md"):
        rev = ok(ov("snapshot", "log", "--uri", uri, "-n", "1", "--json"))[0]["commit"]
        shown = ok(ov("snapshot", "show", rev, "--uri", uri, "--json"))
        assert shown["command"] == "rm" and {c["change"] for c in shown["changes"]} == {"deleted"}
        assert "-# A" in shown["changes"][0]["diff"]
    assert len(ok(ov("snapshot", "show", "HEAD", "--uri", "viking://resources/hb", "--json"))["changes"]) == 2
    stat = ok(ov("snapshot", "show", "HEAD", "--uri", "viking://resources/hb/a.md", "--stat"))
    assert "deleted   viking://resources/hb/a.md  +0 -1" in stat.stdout
    missing = ov("snapshot", "show", "HEAD~1", "--uri", "viking://resources/hb/nothing.md")
    assert missing.exit_code == 1 and "did not exist" in missing.stderr


def test_show_of_a_file_with_stat_counts_what_the_commit_changed_in_it(ov):
    assert ov("write", "viking://resources/a.md", "--content", "one\ntwo\n").exit_code == 0
    assert ov("edit", "viking://resources/a.md", "--old", "two", "--new", "three\nfour").exit_code == 0
    assert ok(ov("snapshot", "show", "HEAD", "--uri", "viking://resources/a.md")).stdout == "one\nthree\nfour\n"
    counted = ok(ov("snapshot", "show", "HEAD", "--uri", "viking://resources/a.md", "--stat", "--json"))
    assert counted["changes"] == [{"uri": "viking://resources/a.md", "change": "modified", "added": 2, "removed": 1}]
    assert counted["stat"] == {"files": 1, "added": 2, "removed": 1}


def test_log_counts_the_uris_a_commit_names_beyond_its_messages_list(ov, ov_home):
    # (found by an audit: the JSON gave 200 URIs with no sign of more, the text "(+195 more)" for 245)
    assert ov("init").exit_code == 0
    numbered_notes(account(ov_home) / "resources" / "bulk", 250, lambda i: f"n {i}\n")
    assert ok(ov("snapshot", "commit", "-m", "bulk notes", "--json"))["uris"].__len__() == 250
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    assert len(entry["uris"]) == 200 and entry["uris_more"] == 50
    lines = ok(ov("snapshot", "log", "-n", "1")).stdout.splitlines()
    assert lines[-1] == "    (+245 more)" and len(lines) == 7
    assert ok(ov("snapshot", "show", "HEAD", "--stat", "--json"))["uris_more"] == 50


def test_a_hand_edit_a_session_commit_took_in_is_named_in_log_and_show(ov, ov_home):
    # (found by an audit: the user's line showed as the session's, only `.done` said otherwise)
    assert ov("remember", "My name is Dana").exit_code == 0
    profile = account(ov_home) / "user" / "default" / "memories" / "profile.md"
    profile.write_text(profile.read_text().replace("- Name: Dana", "- Name: Dana\n- Role: staff engineer", 1))
    assert ov("session", "add", "s1", "--text", "I work at Initech").exit_code == 0
    committed = ok(ov("commit", "s1", "--json"))
    uri = "viking://user/default/memories/profile.md"
    assert committed["hand_edits"] == [uri]
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    assert entry["command"] == "commit" and entry["hand_edits"] == [uri]
    assert ok(ov("snapshot", "show", "HEAD", "--json"))["hand_edits"] == [uri]
    assert f"    hand edit kept: {uri}" in ok(ov("snapshot", "log", "-n", "1")).stdout.splitlines()
    assert f"hand edit kept: {uri}" in ok(ov("snapshot", "show", "HEAD", "--stat")).stdout
    # A commit that took in none says so by an empty list.
    assert ok(ov("snapshot", "log", "-n", "1", "--json", "--command", "remember"))[0]["hand_edits"] == []


def test_a_tag_with_folders_made_by_plain_git_is_a_revision(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    first = Repo(str(account(ov_home))).head()
    assert ov("write", "viking://resources/a.md", "--content", "two\n").exit_code == 0
    with Repo(str(account(ov_home))) as repo:
        repo.refs[b"refs/tags/release/1.0"] = first
    assert ok(ov("snapshot", "show", "release/1.0", "--json"))["tags"] == ["release/1.0"]
    assert ok(ov("snapshot", "show", "release/1.0~0", "--uri", "viking://resources/a.md")).stdout == "one\n"
    assert ok(ov("snapshot", "diff", "release/1.0", "--json"))["from"] == first.decode()
    refused = ov("snapshot", "tag", "mine/1.0")  # ov makes none: plain names only
    assert refused.exit_code == 2


def test_an_unfiltered_log_says_when_it_stops_at_its_cap(ov, monkeypatch):
    from ov.history import snapshots

    for i in range(3):
        assert ov("write", f"viking://resources/n{i}.md", "--content", f"{i}\n").exit_code == 0
    monkeypatch.setattr(snapshots, "MAX_LOG", 2)
    capped = ov("snapshot", "log", "--json")
    assert len(ok(capped)) == 2 and "only the newest 2 commits are listed" in capped.stderr
    whole = ov("snapshot", "log", "-n", "2", "--json")
    assert len(ok(whole)) == 2 and whole.stderr == ""
    monkeypatch.setattr(snapshots, "MAX_LOG", 4)  # init and three writes: all of them, nothing to say
    assert ov("snapshot", "log", "--json").stderr == ""


def test_the_log_lists_the_newest_commits_and_says_when_older_ones_are_left(ov):
    # An audit (scale, finding 7): a year of use printed 3,153 commits (393 KB) without -n; the
    # default is the newest 50, as `ov session list` lists the 50 most recently active sessions.
    from ov.cli.snapshot import LISTED_COMMITS

    assert LISTED_COMMITS == 50
    for i in range(3):
        assert ov("write", f"viking://resources/n{i}.md", "--content", f"{i}\n").exit_code == 0
    every = ok(ov("snapshot", "log", "--json"))
    assert len(every) == 4  # init and three writes: all under the default
    newest = ov("snapshot", "log", "-n", "2", "--json")
    assert ok(newest) == every[:2] and "older commits not listed (the newest 2 are)" in newest.stderr and "--all" in newest.stderr
    assert ov("snapshot", "log", "-n", "4").stderr == ""  # none left: nothing to say
    assert ok(ov("snapshot", "log", "--all", "--json")) == ok(ov("snapshot", "log", "-n", "0", "--json")) == every


def test_log_and_show_json_of_a_session_commit_snapshot(ov, ov_home, snapshot):
    """The shape scripts read: a session commit's log entry (hand edits and the URI count
    included) and show's fields around it; ids and times masked."""
    assert ov("remember", "My name is Dana").exit_code == 0
    profile = account(ov_home) / "user" / "default" / "memories" / "profile.md"
    profile.write_text(profile.read_text().replace("- Name: Dana", "- Name: Dana\n- Role: staff engineer", 1))
    assert ov("session", "add", "s1", "--text", "I work at Initech").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    shown = ok(ov("snapshot", "show", "HEAD", "--stat", "--json"))
    masked = {"commit": "<commit>", "time": "<time>"}
    assert {**entry, **masked} == snapshot
    # The diffs are the session's and the memory's own (their formats have their snapshots).
    fields = {k: v for k, v in shown.items() if k not in ("changes", "stat")}
    assert {**fields, **masked, "parents": ["<parent>"] * len(shown["parents"]), "against": "<parent>"} == snapshot


def test_a_snapshot_commits_message_keeps_its_body_as_git_does(ov, ov_home):
    """(audit hist14) `-m "subject\\n\\nbody"` and a second `-m` lost everything after the first
    line. The first paragraph is the subject (its line breaks spaces), the rest the body."""
    readme = account(ov_home) / "resources" / "readme.md"
    assert ov("write", "viking://resources/readme.md", "--content", "one\n").exit_code == 0
    readme.write_text("two\n")
    message = "Fixed the install step\nfor macOS\n\nbrew moved the formula.   \n\n\n\nOv-Command: remember\nchecked by hand"
    assert ok(ov("snapshot", "commit", "-m", message, "-m", "Second paragraph.", "--json"))["changed"]
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    assert entry["subject"] == "Fixed the install step for macOS"
    assert entry["body"] == "brew moved the formula.\n\nOv-Command: remember\nchecked by hand\n\nSecond paragraph."
    # A body line that looks like a trailer is the user's text: the commit is still a snapshot commit.
    assert entry["command"] == "snapshot commit" and entry["uris"] == ["viking://resources/readme.md"]
    assert ok(ov("snapshot", "show", "HEAD", "--json"))["body"] == entry["body"]
    shown = ok(ov("snapshot", "show", "HEAD")).stdout.splitlines()
    start = shown.index("    Fixed the install step for macOS")
    assert shown[start + 1 : start + 8] == [
        "",
        "    brew moved the formula.",
        "",
        "    Ov-Command: remember",
        "    checked by hand",
        "",
        "    Second paragraph.",
    ]
    with Repo(str(account(ov_home))) as repo:  # plain git reads the same subject and body
        assert repo[repo.head()].message.decode().startswith("Fixed the install step for macOS\n\nbrew moved the formula.\n\n")
    # ov's own commits have none.
    assert ok(ov("snapshot", "log", "-n", "2", "--json"))[1]["body"] == ""
    readme.write_text("three\n")
    assert ok(ov("snapshot", "commit", "-m", "one line", "--json"))["changed"]
    assert ok(ov("snapshot", "show", "HEAD", "--json"))["body"] == ""
    refused = ov("snapshot", "commit", "-m", " \n\n ", "-m", "")
    assert refused.exit_code == 2


def test_log_aligns_authors_by_the_cells_their_names_take(ov, ov_home):
    """A teammate's commit pulled from a remote may carry any name: "山田太郎" takes eight cells of
    a terminal, and the subjects after it started four cells to the right of the others'."""
    from rich.cells import cell_len

    assert ov("init").exit_code == 0
    commit_at(ov_home, NOON, "a.md", "Ov-Command: write\n", author="山田太郎 <taro@example.com>")
    commit_at(ov_home, NOON + DAY, "b.md", "Ov-Command: write\n", author="Łukasz Żółć-Brzęczyszczykiewicz <l@example.com>")
    lines = [line for line in ok(ov("snapshot", "log")).stdout.splitlines() if not line.startswith(" ")]
    assert len(lines) == 3
    assert len({cell_len(line[: line.index(" ov ")]) for line in lines}) == 1, lines
    assert "Łukasz Żółć-Brzęczy…" in lines[0]  # a long name cut to the column, marked
