"""`ov snapshot revert REV`: one commit taken back, every later change kept."""

from __future__ import annotations

import time

import pytest
from dulwich.objects import Commit
from dulwich.repo import Repo

from tests.conftest import numbered_notes
from tests.test_history import head, ok

TEA = "viking://user/default/memories/preferences/default/tea.md"
TEA_FILE = "accounts/default/user/default/memories/preferences/default/tea.md"


def _remember_three(ov):
    """Three updates of one memory, each a commit (a second apart: their updated_at differ)."""
    for text in ("I like tea", "I like tea with milk", "I like tea with lemon"):
        assert ov("remember", text).exit_code == 0
        time.sleep(1.05)


def test_revert_takes_back_one_memory_update_and_keeps_the_later_one(ov, ov_home):
    _remember_three(ov)
    milk = ok(ov("snapshot", "log", "-n", "2", "--json"))[1]["commit"]
    old_head = head(ov_home)
    result = ok(ov("snapshot", "revert", milk[:8], "--json"))
    assert result["reverted"] == milk and result["merged"] == [TEA] and result["written"] == [TEA]
    assert result["changes"] == [{"uri": TEA, "change": "modified"}]
    text = (ov_home / TEA_FILE).read_text()
    assert "with lemon" in text and "with milk" not in text and "- Likes tea\n" in text
    repo = Repo(str(ov_home / "accounts/default"))
    assert repo[repo.head()].parents == [old_head.encode()]  # a new commit on top
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    assert entry["command"] == "snapshot revert" and entry["subject"].startswith(f"ov snapshot revert {milk[:10]}: ov remember")
    assert entry["uris"] == [TEA]
    assert ok(ov("status", "--json"))["clean"]
    # The revert itself can be reverted: the line comes back.
    ok(ov("snapshot", "revert", "HEAD", "--json"))
    assert "with milk" in (ov_home / TEA_FILE).read_text()


def test_the_revert_commit_names_the_commit_it_took_back_by_its_full_id(ov, ov_home):
    """The subject names it by 10 digits, which a store with enough commits may share; the
    Ov-Reverts trailer holds the full id, as git's "This reverts commit ..." line does."""
    assert ov("remember", "I like tea").exit_code == 0
    taken = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]["commit"]
    ok(ov("snapshot", "revert", "HEAD"))
    message = Repo(str(ov_home / "accounts/default"))[head(ov_home).encode()].message.decode()
    assert f"\nOv-Reverts: {taken}\n" in message.split("\n\n")[-1]  # a trailer, in the trailers' paragraph
    entry = ok(ov("snapshot", "log", "-n", "1", "--json"))[0]
    assert entry["reverts"] == taken and entry["command"] == "snapshot revert"
    assert ok(ov("snapshot", "show", "HEAD", "--json"))["reverts"] == taken
    assert f"This reverts commit {taken}." in ok(ov("snapshot", "show", "HEAD")).stdout
    assert ok(ov("snapshot", "log", "-n", "2", "--json"))[1]["reverts"] is None  # other commits name none


def test_revert_of_the_commit_that_made_a_memory_removes_it_and_search_follows(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "apples\n").exit_code == 0
    memory = ok(ov("remember", "I like oolong tea", "--json"))["uris"][0]
    assert memory in [r["uri"] for r in ok(ov("find", "oolong", "--json"))["memories"]]
    result = ok(ov("snapshot", "revert", "HEAD", "--json"))
    assert result["deleted"] == [memory] and result["changes"] == [{"uri": memory, "change": "deleted"}]
    assert memory not in [r["uri"] for r in ok(ov("find", "oolong", "--json"))["memories"]]
    assert (ov_home / "accounts/default/resources/a.md").read_text() == "apples\n"


def test_revert_keeps_the_later_changes_to_other_files(ov, ov_home):
    assert ov("write", "viking://resources/a.md", "--content", "a1\n").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "b1\n").exit_code == 0
    assert ov("write", "viking://resources/a.md", "--content", "a2\n").exit_code == 0
    assert ov("write", "viking://resources/c.md", "--content", "c1\n").exit_code == 0
    result = ok(ov("snapshot", "revert", "HEAD~2", "--json"))  # the write of b.md
    assert result["deleted"] == ["viking://resources/b.md"] and result["written"] == []
    root = ov_home / "accounts/default/resources"
    assert not (root / "b.md").exists()
    assert (root / "a.md").read_text() == "a2\n" and (root / "c.md").read_text() == "c1\n"
    # A restore of the same revision would have taken a.md and c.md back too.
    assert ok(ov("snapshot", "show", "HEAD", "--json"))["changes"][0]["uri"] == "viking://resources/b.md"


def test_a_file_changed_again_later_is_a_conflict_and_nothing_changes(ov, store_state):
    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "bee\n").exit_code == 0
    assert ov("edit", "viking://resources/a.md", "--old", "one", "--new", "two").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "wasp\n").exit_code == 0
    assert ov("edit", "viking://resources/a.md", "--old", "two", "--new", "three").exit_code == 0
    before = store_state()
    # HEAD~2 edited a.md; HEAD edited it again.
    result = ov("snapshot", "revert", "HEAD~2", "--json")
    assert result.exit_code == 1 and result.error["code"] == "revert_conflict"
    assert result.error["conflicts"] == ["viking://resources/a.md"]
    assert "viking://resources/a.md" in result.error["message"] and "nothing was changed" in result.error["message"]
    assert store_state() == before
    text = ov("snapshot", "revert", "HEAD~2")
    assert text.exit_code == 1 and "viking://resources/a.md" in text.stderr
    assert store_state() == before


def test_the_first_commit_and_a_merge_are_refused_and_nothing_changes(ov, ov_home, store_state):
    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    repo = Repo(str(ov_home / "accounts/default"))
    first = [e.commit.id for e in repo.get_walker()][-1].decode()
    before = store_state()
    result = ov("snapshot", "revert", first, "--json")
    assert result.exit_code == 2 and result.error["code"] == "not_revertible" and "first commit" in result.error["message"]
    assert store_state() == before
    # A merge as a pull makes one: two parents, HEAD's tree.
    tip = repo[repo.head()]
    merge = Commit()
    merge.tree, merge.parents = tip.tree, [tip.id, tip.parents[0]]
    merge.author = merge.committer = tip.author
    merge.author_time = merge.commit_time = tip.commit_time + 1
    merge.author_timezone = merge.commit_timezone = 0
    merge.message = b"ov pull origin: merge 1234567890\n"
    repo.object_store.add_object(merge)
    repo.refs[b"refs/heads/main"] = merge.id
    before = store_state()
    result = ov("snapshot", "revert", "HEAD", "--json")
    assert result.exit_code == 2 and result.error["code"] == "not_revertible" and "merge" in result.error["message"]
    assert store_state() == before


def test_dry_run_lists_and_changes_nothing_and_a_retry_finds_nothing_to_do(ov, store_state):
    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    assert ov("write", "viking://resources/a.md", "--content", "two\n").exit_code == 0
    assert ov("write", "viking://resources/b.md", "--content", "bee\n").exit_code == 0
    before = store_state()
    dry = ok(ov("snapshot", "revert", "HEAD~1", "--dry-run", "--json"))
    assert dry["written"] == ["viking://resources/a.md"] and dry["commit"] is None and dry["dry_run"]
    assert ok(ov("snapshot", "revert", "HEAD~1", "--dry-run")).stdout.startswith("would write viking://resources/a.md")
    assert store_state() == before
    done = ok(ov("snapshot", "revert", "HEAD~1", "--json"))
    assert done["written"] == dry["written"] and done["commit"]
    # Once it landed, the same commit has nothing left to take back (a retry after a crash).
    again = ok(ov("snapshot", "revert", done["reverted"], "--json"))
    assert again["commit"] is None and again["unchanged"] == ["viking://resources/a.md"]
    assert "nothing to revert" in ok(ov("snapshot", "revert", done["reverted"])).stdout


def test_a_hand_edit_in_the_way_is_refused(ov, ov_home, store_state):
    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    (ov_home / "accounts/default/resources/a.md").write_text("by hand\n")
    before = store_state()
    for dry in ((), ("--dry-run",)):
        result = ov("snapshot", "revert", "HEAD", *dry, "--json")
        assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert store_state() == before


def test_uri_takes_back_only_that_part_of_the_commit(ov, ov_home):
    assert ov("write", "viking://resources/d/a.md", "--content", "a\n").exit_code == 0
    assert ov("write", "viking://resources/d/b.md", "--content", "b\n").exit_code == 0
    assert ov("rm", "-r", "viking://resources/d").exit_code == 0
    result = ok(ov("snapshot", "revert", "HEAD", "--uri", "viking://resources/d/b.md", "--json"))
    assert result["written"] == ["viking://resources/d/b.md"] and result["changes"] == [{"uri": "viking://resources/d/b.md", "change": "added"}]
    assert (ov_home / "accounts/default/resources/d/b.md").exists() and not (ov_home / "accounts/default/resources/d/a.md").exists()
    untouched = ov("snapshot", "revert", "HEAD~3", "--uri", "viking://resources/d/b.md", "--json")
    assert untouched.exit_code == 1 and untouched.error["code"] == "not_found"


def test_reverting_an_add_resource_removes_its_folder_and_the_summary_above_forgets_it(ov, tmp_path):
    for name in ("hb", "other"):
        docs = tmp_path / name
        docs.mkdir()
        (docs / "auth.md").write_text(f"# Auth {name}\n\nAuth uses JWT tokens issued by the gateway.\n")
        assert ov("add-resource", str(docs), "--to", f"viking://resources/{name}").exit_code == 0
    assert "hb/" in ok(ov("abstract", "viking://resources")).stdout
    ok(ov("snapshot", "revert", "HEAD~1", "--json"))
    summary = ok(ov("abstract", "viking://resources")).stdout
    assert "hb/" not in summary and "other/" in summary
    assert ov("stat", "viking://resources/hb").exit_code == 1
    assert ov("fsck").exit_code == 0 and ok(ov("status", "--json"))["clean"]


def test_a_session_commits_memories_alone_can_be_taken_back(ov, ov_home):
    """The auditor's case: what one session taught is wrong; its archive stays as the record."""
    messages = '[{"role":"user","text":"I prefer dark mode in every editor."},{"role":"assistant","text":"Noted."}]'
    assert ov("session", "add-messages", "S1", messages).exit_code == 0
    assert ov("commit", "S1").exit_code == 0
    learned = [u for u in ok(ov("snapshot", "log", "-n", "1", "--json"))[0]["uris"] if "/memories/" in u]
    assert learned
    result = ok(ov("snapshot", "revert", "HEAD", "--uri", "viking://~/memories", "--json"))
    assert result["deleted"] == learned and result["written"] == []
    account = ov_home / "accounts/default"
    assert not any((account / u.removeprefix("viking://")).exists() for u in learned)
    assert (account / "user/default/sessions/S1/history/archive_001/memory_diff.json").exists()
    assert ok(ov("status", "--json"))["clean"] and ov("fsck").exit_code == 0


DARK = '[{"role":"user","text":"I prefer dark mode in every editor."},{"role":"assistant","text":"Noted."}]'
S1 = "viking://user/default/sessions/S1"


def _learned(ov) -> list[str]:
    """The memory files the newest commit (a session commit) wrote."""
    return [u for u in ok(ov("snapshot", "log", "-n", "1", "--json"))[0]["uris"] if "/memories/" in u]


def test_a_whole_session_commit_reverted_takes_back_its_memories_and_its_messages_stay_archived(ov, ov_home):
    """(audit hist14) The session's messages came back live, so the next `ov commit` learned again
    what the revert took back. A later capture in the session no longer stops the revert either."""
    assert ov("session", "add-messages", "S1", DARK).exit_code == 0
    assert ov("commit", "S1").exit_code == 0
    learned = _learned(ov)
    assert learned
    assert ov("session", "add", "S1", "--text", "And one more thing about tabs.").exit_code == 0  # captured since
    dry = ok(ov("snapshot", "revert", "HEAD~1", "--dry-run"))
    assert f"would keep {S1} as it is" in dry.stdout and "stay archived" in dry.stdout and "--uri" in dry.stdout
    result = ok(ov("snapshot", "revert", "HEAD~1", "--json"))
    assert result["deleted"] == learned and result["written"] == [] and result["kept_archived"] == [S1] and result["relived"] == []
    account = ov_home / "accounts/default"
    assert not any((account / u.removeprefix("viking://")).exists() for u in learned)
    assert (account / "user/default/sessions/S1/history/archive_001/messages.jsonl").exists()
    shown = ok(ov("session", "show", "S1", "--json"))
    assert [m["parts"][0]["text"] for m in shown["messages"]] == ["And one more thing about tabs."]  # only the later turn is live
    # The next commit archives the later turn only: what was taken back is not learned again.
    assert ok(ov("commit", "S1", "--json"))["archived"] == 1
    assert not any((account / u.removeprefix("viking://")).exists() for u in learned)
    assert "dark" not in " ".join(r["uri"] for r in ok(ov("find", "dark mode editor", "--json"))["memories"])
    assert ok(ov("status", "--json"))["clean"] and ov("fsck").exit_code == 0
    # Run again, it finds its memories already gone and says the session stays as it is.
    again = ok(ov("snapshot", "revert", result["reverted"]))
    assert "nothing else to revert" in again.stdout and f"kept {S1} as it is" in again.stdout


def test_a_session_named_with_uri_is_reverted_as_asked_and_the_revert_says_its_messages_are_live_again(ov, ov_home):
    assert ov("session", "add-messages", "S1", DARK).exit_code == 0
    assert ov("commit", "S1").exit_code == 0
    learned = _learned(ov)
    text = ok(ov("snapshot", "revert", "HEAD", "--uri", S1, "--dry-run")).stdout
    assert "live again" in text and "`ov commit S1` learns from them again" in text
    result = ok(ov("snapshot", "revert", "HEAD", "--uri", S1, "--json"))
    assert result["relived"] == [S1] and result["kept_archived"] == []
    assert f"{S1}/messages.jsonl" in result["written"] and f"{S1}/history/archive_001/messages.jsonl" in result["deleted"]
    # Only the session was asked for: the memories stay, and the messages are live again.
    account = ov_home / "accounts/default"
    assert all((account / u.removeprefix("viking://")).exists() for u in learned)
    assert len(ok(ov("session", "show", "S1", "--json"))["messages"]) == 2
    assert ok(ov("status", "--json"))["clean"] and ov("fsck").exit_code == 0


def test_reverting_other_session_commits_is_unchanged(ov, ov_home):
    """Only a commit that archived messages keeps its session: a capture reverted takes its turn back."""
    assert ov("session", "add", "S1", "--text", "first turn").exit_code == 0
    assert ov("session", "add", "S1", "--text", "a turn to take back").exit_code == 0
    result = ok(ov("snapshot", "revert", "HEAD", "--json"))
    assert result["kept_archived"] == [] and f"{S1}/messages.jsonl" in result["written"]
    assert [m["parts"][0]["text"] for m in ok(ov("session", "show", "S1", "--json"))["messages"]] == ["first turn"]


# --- a large revert and the writes of others --------------------------------------------------


@pytest.fixture
def big_added(ov, ov_home, tmp_path):
    """A 300-file folder added (the commit to revert, tagged ``big``), then another file written;
    other writers give up after 1 s."""
    source = numbered_notes(tmp_path / "big", 300, lambda i: f"# note {i}\n\ntoken{i}\n")
    assert ov("add-resource", str(source), "--to", "viking://resources/big").exit_code == 0
    assert ov("snapshot", "tag", "big").exit_code == 0
    assert ov("write", "viking://resources/other.md", "--content", "kept\n").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "1").exit_code == 0
    return ov_home / "accounts/default"


def test_a_write_while_a_large_revert_is_planned_lands_and_the_revert_goes_on_top(ov, ov_process, big_added, during_preparation):
    """(audit hist14) The revert planned its thousands of deletions under the write lock, so a
    hook's write meanwhile timed out. Planned in a draft, the write lands and the revert commits
    on top of it."""
    done = during_preparation(lambda: ov_process("write", "viking://resources/during.md", "--content", "an agent's write", "--json"))
    result = ok(ov("snapshot", "revert", "big", "--json"))
    [write] = done
    assert write.exit_code == 0, write.stderr
    repo = Repo(str(big_added))
    assert repo[repo.head()].parents == [write.json["result"]["commit"].encode()]
    assert len(result["deleted"]) >= 300 and not (big_added / "resources/big").exists()
    assert (big_added / "resources/during.md").read_text() == "an agent's write" and (big_added / "resources/other.md").read_text() == "kept\n"
    assert ok(ov("status", "--json"))["clean"] and ov("fsck").exit_code == 0


def test_a_commit_to_a_file_of_the_revert_while_it_is_planned_is_kept_and_refuses_it(ov, ov_process, big_added, during_preparation, store_state):
    """Planned against the HEAD before that commit, the revert would have deleted the newer
    content without a word; judged again under the lock, it is a conflict, and nothing changes."""
    edited = "viking://resources/big/pkg1/n150.md"
    done = during_preparation(lambda: ov_process("write", edited, "--content", "newer knowledge\n", "--json"))
    result = ov("snapshot", "revert", "big", "--json")
    assert done[0].exit_code == 0, done[0].stderr
    assert result.exit_code == 1 and result.error["code"] == "revert_conflict" and result.error["conflicts"] == [edited]
    head, files = store_state()
    assert head == done[0].json["result"]["commit"] and files["resources/big/pkg1/n150.md"] == b"newer knowledge\n"
    assert len([p for p in files if p.startswith("resources/big/pkg") and p.rsplit("/", 1)[1].startswith("n")]) == 300
    assert not any((big_added.parent.parent / "state/default/staging").glob("*"))  # nothing staged is left


def test_a_hand_edit_made_while_a_large_revert_is_planned_is_not_deleted(ov, big_added, during_preparation, store_state):
    by_hand = big_added / "resources/big/pkg2/n250.md"
    during_preparation(lambda: by_hand.write_text("edited by hand\n"))
    before = store_state()[0]
    result = ov("snapshot", "revert", "big", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert store_state()[0] == before and by_hand.read_text() == "edited by hand\n"
    assert (big_added / "resources/big/pkg0/n007.md").exists()


PROFILE_URI = "viking://user/default/memories/profile.md"


def _session_commit_into_a_hand_edit(ov, ov_home):
    """A session commit that merged what it learned (Initech) into the user's hand edit of the
    profile (a Role line): the commit took the edit in. The profile's path."""
    assert ov("remember", "My name is Dana").exit_code == 0
    profile = ov_home / "accounts/default/user/default/memories/profile.md"
    profile.write_text(profile.read_text().replace("- Name: Dana", "- Name: Dana\n- Role: staff engineer", 1))
    assert ov("session", "add", "s1", "--text", "I work at Initech").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    assert "Initech" in profile.read_text()
    return profile


def test_a_revert_keeps_the_lines_of_a_hand_edit_the_commit_took_in(ov, ov_home):
    """(audit hist15) A session commit merged its memory into the user's hand edit of the file;
    reverting it took the user's lines back too (it only said so). Now only the commit's lines go:
    the user's, those it took in and those written by hand since, stay."""
    profile = _session_commit_into_a_hand_edit(ov, ov_home)
    said = ok(ov("snapshot", "revert", "HEAD", "--dry-run")).stdout
    assert f"would merge {PROFILE_URI} (the hand edit" in said and "only its own lines go" in said
    # A line written by hand after the commit, and committed, stays too.
    profile.write_text(profile.read_text().replace("- Works at Initech", "- Works at Initech\n- Editor: helix", 1))
    assert ov("snapshot", "commit", "-m", "my editor").exit_code == 0
    result = ok(ov("snapshot", "revert", "HEAD~1", "--json"))
    assert result["hand_edits"] == [PROFILE_URI] and result["kept_hand_edits"] == [] and result["written"] == [PROFILE_URI]
    text = profile.read_text()
    assert "- Name: Dana\n- Role: staff engineer\n- Editor: helix\n" in text and "Initech" not in text
    assert ok(ov("status", "--json"))["clean"] and ov("fsck").exit_code == 0
    # Run again, there is nothing left to take back.
    assert ok(ov("snapshot", "revert", result["reverted"], "--json"))["commit"] is None
    # A commit that took in no hand edit says none.
    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    assert ok(ov("snapshot", "revert", "HEAD", "--json"))["hand_edits"] == []


def test_a_hand_edit_whose_lines_cannot_be_told_from_the_commits_is_kept_as_it_is(ov, ov_home, store_state):
    """Where the merge cannot decide (the file's trailer broken by a later hand edit), the file
    stays as it is, and the revert says so rather than lose the user's lines."""
    profile = _session_commit_into_a_hand_edit(ov, ov_home)
    profile.write_text(profile.read_text().replace('"memory_type": "profile",', '"memory_type": "profile"', 1))
    assert ov("snapshot", "commit", "-m", "broke its trailer").exit_code == 0
    kept = profile.read_text()
    before = store_state()[0]
    said = ok(ov("snapshot", "revert", "HEAD~1"))
    assert f"kept {PROFILE_URI} as it is" in said.stdout and "could not be told from yours" in said.stdout
    assert profile.read_text() == kept and store_state()[0] == before  # nothing else to revert: no commit
    result = ok(ov("snapshot", "revert", "HEAD~1", "--json"))
    assert result["kept_hand_edits"] == [PROFILE_URI] and result["hand_edits"] == [] and result["commit"] is None



@pytest.mark.parametrize("key", ["deleted_content", "before"])
def test_a_deleted_memorys_text_is_read_under_its_key_or_an_older_ovs(ov_home, key):
    # memory_diff.json writes a delete's text as deleted_content (OpenViking's key); an ov before
    # 2026-12-06 wrote it as before. A revert reads the hand edit a commit took in from either.
    import json

    from ov.config import Config
    from ov.history.revert import _hand_edited_before
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    store = Store(Home(ov_home), Identity(), Config())
    store.init()
    memory = "user/default/memories/preferences/default/make.md"
    diff = {"operations": {"adds": [], "updates": [], "deletes": [{"uri": f"viking://{memory}", "memory_type": "preferences", key: "- Prefers Make"}]}}
    with store.transaction() as tx:
        uri = store.uri("viking://user/default/sessions/s1/history/archive_001/memory_diff.json")
        tx.put(uri, json.dumps(diff).encode())
        tx.commit("session commit", [uri])
    repo = Repo(str(ov_home / "accounts/default"))
    assert _hand_edited_before(store.git, repo[repo.head()], {memory}) == {memory: "- Prefers Make"}


def test_a_revert_brings_back_the_hand_edit_of_a_note_a_commit_moved_to_its_day(ov, ov_home, store_day, monkeypatch):
    # A note given a new value on a later day moves to that day's folder: its update names the
    # file its before was read from (before_uri), where the revert puts the hand edit back.
    from datetime import timedelta

    from ov.sessions import clock

    assert ov("remember", "The team offsite is in Porto").exit_code == 0
    old = ov_home / f"accounts/default/user/default/memories/events/{store_day.astimezone():%Y/%m/%d}/team_offsite.md"
    old.write_text(old.read_text().replace("in Porto", "in Porto, at the old mill", 1))
    monkeypatch.setattr(clock, "now", lambda: store_day + timedelta(days=2))
    assert ov("session", "add", "s1", "--text", "Remember that the team offsite is in Lisbon now.").exit_code == 0
    assert ov("commit", "s1").exit_code == 0
    assert not old.exists()
    result = ok(ov("snapshot", "revert", "HEAD", "--json"))
    assert result["hand_edits"] == ["viking://" + str(old.relative_to(ov_home / "accounts/default"))]
    assert old.read_text().startswith("- The team offsite is in Porto, at the old mill\n")
