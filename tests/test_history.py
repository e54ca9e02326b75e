"""History: `ov snapshot log|show|diff|restore|tag` and revisions."""

from __future__ import annotations


import pytest
from dulwich.repo import Repo

from tests.conftest import numbered_notes

MEMORY = "viking://user/default/memories/preferences/default/tea.md"


def ok(result):
    assert result.exit_code == 0, result.stderr
    return result.json["result"] if result.stdout.lstrip().startswith("{") else result


@pytest.fixture
def history(ov):
    """Four commits: init, write a.md, edit a.md, remember a preference (which an agent regrets)."""
    assert ov("write", "viking://resources/a.md", "--content", "one\ntwo\n").exit_code == 0
    assert ov("edit", "viking://resources/a.md", "--old", "two", "--new", "three").exit_code == 0
    assert ov("remember", "I like tea").exit_code == 0
    return ov


def head(ov_home) -> str:
    return Repo(str(ov_home / "accounts/default")).head().decode()


def test_log_is_newest_first_with_command_and_uris(history):
    entries = ok(history("snapshot", "log", "--json"))
    assert [e["command"] for e in entries] == ["remember", "edit", "write", "init"]
    assert entries[1]["uris"] == ["viking://resources/a.md"] and entries[0]["uris"] == [MEMORY]
    assert entries[0]["time"].endswith("Z") and entries[0]["author"].startswith("default <")
    assert [e["command"] for e in ok(history("snapshot", "log", "-n", "2", "--json"))] == ["remember", "edit"]
    scoped = ok(history("snapshot", "log", "--uri", "viking://resources", "--json"))
    assert [e["command"] for e in scoped] == ["edit", "write"]
    text = history("snapshot", "log").stdout
    assert "ov remember" in text.splitlines()[0]


def test_revisions_by_short_hash_relative_and_tag(history, ov_home):
    full = head(ov_home)
    for rev in (full, full[:7], "HEAD", "HEAD~0"):
        assert ok(history("snapshot", "show", rev, "--json"))["commit"] == full
    parent = ok(history("snapshot", "show", "HEAD~1", "--json"))
    assert parent["command"] == "edit" and ok(history("snapshot", "show", "HEAD^", "--json"))["commit"] == parent["commit"]
    assert ok(history("snapshot", "tag", "before-tea", "HEAD~1", "--json")) == {"tag": "before-tea", "commit": parent["commit"]}
    assert ok(history("snapshot", "show", "before-tea", "--json"))["tags"] == ["before-tea"]
    assert ok(history("snapshot", "show", "before-tea~1", "--json"))["command"] == "write"
    assert ok(history("snapshot", "tag", "--json")) == [{"tag": "before-tea", "commit": parent["commit"]}]


@pytest.mark.parametrize(
    ("args", "code"),
    [
        # A revision that names no commit is bad input, like a malformed one.
        (("snapshot", "show", "nosuchtag"), 2),
        (("snapshot", "show", "HEAD~99"), 2),
        (("snapshot", "show", "deadbeef"), 2),
        (("snapshot", "show", "a b"), 2),
        (("snapshot", "diff", "HEAD", "nope"), 2),
        (("snapshot", "diff", "nope"), 2),
        (("snapshot", "restore", "nope"), 2),
        (("snapshot", "restore", "nope", "--dry-run"), 2),
        (("snapshot", "tag", "v1", "nope"), 2),
        (("snapshot", "tag", "../x"), 2),
        (("snapshot", "tag", "abcdef"), 2),
        (("snapshot", "tag", "release.lock"), 2),
        (("snapshot", "tag", "x."), 2),
        (("snapshot", "tag", "a..b"), 2),
        (("snapshot", "show", "HEAD", "--uri", "viking://resources/missing.md"), 1),
    ],
)
def test_bad_revisions_and_names_are_refused_and_change_nothing(history, store_state, args, code):
    before = store_state()
    result = history(*args, "--json")
    assert result.exit_code == code, result.stdout
    assert result.error["message"] and result.error["hint"]
    assert store_state() == before


def test_an_unknown_revision_has_its_own_code(history):
    result = history("snapshot", "show", "nosuchtag", "--json")
    assert result.error["code"] == "unknown_revision" and "nosuchtag" in result.error["message"]
    assert "ov snapshot log" in result.error["hint"]


def test_a_tag_cannot_be_created_twice(history):
    assert history("snapshot", "tag", "v1").exit_code == 0
    again = history("snapshot", "tag", "v1", "HEAD~1", "--json")
    assert again.exit_code == 1 and "already exists" in again.error["message"]


def test_a_tag_can_be_deleted_and_an_unknown_one_is_refused(history, ov_home):
    """(`ov snapshot tag -d NAME` did not exist: a mistaken tag stayed for good.)"""
    repo = Repo(str(ov_home / "accounts/default"))
    parent = ok(history("snapshot", "show", "HEAD~1", "--json"))["commit"]
    assert history("snapshot", "tag", "v1", "HEAD~1").exit_code == 0 and history("snapshot", "tag", "v2").exit_code == 0
    repo.refs[b"refs/tags/release/1.0"] = repo.head()  # plain git's, with a folder
    commits = len(ok(history("snapshot", "log", "--json")))
    assert ok(history("snapshot", "tag", "-d", "v1", "--json")) == {"tag": "v1", "commit": parent, "deleted": True}
    assert history("snapshot", "tag", "--delete", "release/1.0").stdout == f"deleted tag release/1.0 (was {head(ov_home)[:10]})\n"
    assert ok(history("snapshot", "tag", "--json")) == [{"tag": "v2", "commit": head(ov_home)}]
    assert len(ok(history("snapshot", "log", "--json"))) == commits  # the commits stay; a tag is no commit
    for name in ("v1", "nosuch", "../v2"):
        refused = history("snapshot", "tag", "-d", name, "--json")
        assert refused.exit_code == 1 and refused.error == {"code": "not_found", "message": f"no tag '{name}'", "hint": "`ov snapshot tag` lists the tags"}
    for argv in (("-d",), ("-d", "v2", "HEAD")):
        assert history("snapshot", "tag", *argv, "--json").exit_code == 2
    assert ok(history("snapshot", "tag", "--json")) == [{"tag": "v2", "commit": head(ov_home)}]
    assert history("snapshot", "tag", "v1").exit_code == 0  # the name is free again


def test_a_tag_moved_while_it_is_deleted_stays_and_is_said_to_have_moved(history, ov_home, monkeypatch):
    """(review) A tag another process moved between the read and the removal was kept, as it
    should be, but the error said there was no such tag."""
    from ov.history import snapshots

    repo = Repo(str(ov_home / "accounts/default"))
    assert history("snapshot", "tag", "v1").exit_code == 0
    parent = ok(history("snapshot", "show", "HEAD~1", "--json"))["commit"]
    peel = snapshots._peel

    def moved_meanwhile(git, sha):
        repo.refs[b"refs/tags/v1"] = parent.encode()  # `git tag -f v1 HEAD~1` by another process
        return peel(git, sha)

    monkeypatch.setattr(snapshots, "_peel", moved_meanwhile)
    refused = history("snapshot", "tag", "-d", "v1", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "already_exists"
    assert refused.error["message"] == f"tag 'v1' was moved meanwhile (it names {parent[:10]} now): it was not deleted"
    assert ok(history("snapshot", "tag", "--json")) == [{"tag": "v1", "commit": parent}]


def test_an_annotated_tag_moved_while_it_is_deleted_is_said_to_name_its_commit(history, ov_home, monkeypatch):
    """(review) A tag moved meanwhile with `git tag -a -f` was said to name its tag object, an id
    no ov command shows, not the commit it marks."""
    from dulwich.objects import Tag

    from ov.history import snapshots

    repo = Repo(str(ov_home / "accounts/default"))
    assert history("snapshot", "tag", "v1").exit_code == 0
    parent = ok(history("snapshot", "show", "HEAD~1", "--json"))["commit"]
    annotated = Tag()
    annotated.name, annotated.object, annotated.message = b"v1", (repo[parent.encode()].__class__, parent.encode()), b"moved\n"
    annotated.tagger, annotated.tag_time, annotated.tag_timezone = b"other <o@example.com>", 1_700_000_000, 0
    repo.object_store.add_object(annotated)
    peel = snapshots._peel

    def moved_meanwhile(git, sha):
        repo.refs[b"refs/tags/v1"] = annotated.id  # `git tag -a -f v1 HEAD~1` by another process
        return peel(git, sha)

    monkeypatch.setattr(snapshots, "_peel", moved_meanwhile)
    refused = history("snapshot", "tag", "-d", "v1", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "already_exists"
    assert refused.error["message"] == f"tag 'v1' was moved meanwhile (it names {parent[:10]} now): it was not deleted"


def test_a_tag_named_as_a_branch_is_refused(history, ov_home):
    """(an audit: `ov snapshot tag main` was taken, and plain git then read "main" as the stale tag.)"""
    Repo(str(ov_home / "accounts/default")).refs[b"refs/heads/side"] = Repo(str(ov_home / "accounts/default")).head()
    for name in ("main", "side"):
        refused = history("snapshot", "tag", name, "--json")
        assert refused.exit_code == 2 and refused.error["message"] == f"'{name}' is the name of a branch", refused.stderr
    assert ok(history("snapshot", "tag", "--json")) == []
    assert history("snapshot", "tag", "main-before").exit_code == 0


def test_a_tag_made_with_git_on_a_tree_or_a_file_is_a_bad_revision(history, ov_home):
    """(an audit: "internal error: AttributeError: 'Tree' object has no attribute 'tree'".)"""
    repo = Repo(str(ov_home / "accounts/default"))
    head = repo[repo.head()]
    repo.refs[b"refs/tags/treetag"] = head.tree
    for argv in (("diff", "treetag"), ("restore", "treetag"), ("show", "treetag~1"), ("restore", "treetag", "--dry-run")):
        result = history("snapshot", *argv, "--json")
        assert result.exit_code == 2 and result.error["code"] == "unknown_revision", result.stderr
        assert result.error["message"] == "the tag treetag names a tree, not a commit"
    blob = repo[repo[head.tree][b"resources"][1]][b"a.md"][1]
    repo.refs[b"refs/tags/blobtag"] = blob
    assert history("snapshot", "diff", "blobtag", "--json").error["message"] == "the tag blobtag names a file, not a commit"
    # the list says what each names (it gave the tree's or file's id under "commit")
    assert ok(history("snapshot", "tag", "--json")) == [
        {"tag": "blobtag", "commit": None, "kind": "file", "object": blob.decode()},
        {"tag": "treetag", "commit": None, "kind": "tree", "object": head.tree.decode()},
    ]
    assert ok(history("snapshot", "tag")).stdout == (
        f"blobtag (names a file, {blob.decode()[:10]}, not a commit)\ntreetag (names a tree, {head.tree.decode()[:10]}, not a commit)\n"
    )


def test_a_tag_whose_object_is_gone_is_a_bad_revision_and_log_and_tags_still_list(history, ov_home):
    """(a review: a tag naming an object the store lacks, which fsck passes over, made `snapshot
    log`, `snapshot tag` and every revision through it an internal KeyError.)"""
    ghost = ov_home / "accounts/default/.git/refs/tags/ghost"
    ghost.write_text("1234567890123456789012345678901234567890\n")
    for argv in (("restore", "ghost"), ("diff", "ghost"), ("restore", "ghost", "--dry-run")):
        result = history("snapshot", *argv, "--json")
        assert result.exit_code == 2 and result.error["code"] == "unknown_revision", result.stderr
        assert result.error["message"] == "the tag ghost names 1234567890, which this store does not hold"
    assert len(ok(history("snapshot", "log", "--json"))) == 4
    assert ok(history("snapshot", "tag", "--json")) == [{"tag": "ghost", "commit": None, "gone": "names 1234567890, which this store does not hold"}]
    assert ok(history("snapshot", "tag")).stdout == "ghost (names 1234567890, which this store does not hold)\n"
    assert ok(history("fsck", "--json"))["ok"]


def test_show_lists_what_a_commit_changed_and_a_file_as_it_was(history):
    shown = ok(history("snapshot", "show", "HEAD~1", "--json"))
    [change] = shown["changes"]
    assert change["uri"] == "viking://resources/a.md" and change["change"] == "modified"
    assert "-two\n+three\n" in change["diff"]
    old = history("snapshot", "show", "HEAD~2", "--uri", "viking://resources/a.md")
    assert old.exit_code == 0 and old.stdout == "one\ntwo\n"
    assert ok(history("snapshot", "show", "HEAD~2", "--uri", "viking://resources/a.md", "--json"))["content"] == "one\ntwo\n"


def test_diff_between_revisions_since_a_revision_and_of_hand_edits(history, ov_home):
    since = ok(history("snapshot", "diff", "HEAD~2", "--json"))
    assert [(c["uri"], c["change"]) for c in since["changes"]] == [("viking://resources/a.md", "modified"), (MEMORY, "added")]
    assert since["to"] == head(ov_home)
    scoped = ok(history("snapshot", "diff", "HEAD~3", "HEAD~1", "--uri", "viking://resources", "--json"))
    assert [c["change"] for c in scoped["changes"]] == ["added"] and "+three\n" in scoped["changes"][0]["diff"]
    assert ok(history("snapshot", "diff", "--json"))["changes"] == []
    (ov_home / "accounts/default/resources/a.md").write_text("one\nfour\n")
    edits = ok(history("snapshot", "diff", "--json"))
    assert edits["to"] == "work tree" and "-three\n+four\n" in edits["changes"][0]["diff"]
    assert "+four" in history("snapshot", "diff").stdout


def test_show_diff_and_restore_give_their_changes_in_one_shape(history, ov_home):
    """(a review: a restore gave `written`/`deleted` where show and diff give `changes`, and a diff
    with the work tree said so only by a sentinel in `to`.) Each keeps its own keys as well."""
    assert history("write", "viking://resources/b.md", "--content", "b\n").exit_code == 0
    (ov_home / "accounts/default/resources/a.md").write_text("by hand\n")
    edits = ok(history("snapshot", "diff", "--json"))
    assert (edits["to"], edits["work_tree"]) == ("work tree", True)
    assert [(c["uri"], c["change"]) for c in edits["changes"]] == [("viking://resources/a.md", "modified")]
    assert ok(history("snapshot", "diff", "HEAD~1", "--json"))["work_tree"] is False
    (ov_home / "accounts/default/resources/a.md").write_text("one\nthree\n")
    expected = [{"uri": "viking://resources/a.md", "change": "modified"}, {"uri": "viking://resources/b.md", "change": "deleted"}]
    shown = ok(history("snapshot", "diff", "HEAD", "HEAD~3", "--uri", "viking://resources", "--json"))
    assert [{k: c[k] for k in ("uri", "change")} for c in shown["changes"]] == expected
    for argv in (("--dry-run",), ()):
        plan = ok(history("snapshot", "restore", "HEAD~3", "--uri", "viking://resources", *argv, "--json"))
        assert plan["changes"] == expected
        assert (plan["written"], plan["rolled_back"], plan["deleted"]) == (["viking://resources/a.md"], ["viking://resources/a.md"], ["viking://resources/b.md"])
    back = ok(history("snapshot", "restore", "HEAD~1", "--uri", "viking://resources", "--json"))
    assert back["changes"] == [{"uri": "viking://resources/a.md", "change": "modified"}, {"uri": "viking://resources/b.md", "change": "added"}]


def test_stat_lists_each_changed_file_with_its_lines_instead_of_the_diffs(history):
    """An add-resource commit's diffs run to tens of thousands of lines."""
    shown = history("snapshot", "show", "HEAD~1", "--stat").stdout.splitlines()
    assert shown[-2:] == ["modified  viking://resources/a.md  +1 -1", "1 file changed, 1 line added, 1 line removed"]
    since = history("snapshot", "diff", "HEAD~3", "--stat").stdout.splitlines()
    assert since[-3] == "added     viking://resources/a.md  +2 -0" and since[-1].startswith("2 files changed, ")
    assert not any(line.startswith(("@@", "+", "-")) for line in since)
    # Lines that open with --- or +++ (front matter, SQL comments) are lines, not the diff's header.
    assert history("write", "viking://resources/fm.md", "--content", "---\ntitle: a\n---\nbody\n-- sql\n").exit_code == 0
    assert history("write", "viking://resources/fm.md", "--content", "body\n++i\n").exit_code == 0
    assert "modified  viking://resources/fm.md  +1 -4" in history("snapshot", "show", "HEAD", "--stat").stdout


def test_stat_with_json_gives_each_files_line_counts_instead_of_its_diff(history):
    """--stat was ignored with --json: the whole diff came back, no counts."""
    shown = ok(history("snapshot", "show", "HEAD~1", "--stat", "--json"))
    assert shown["changes"] == [{"uri": "viking://resources/a.md", "change": "modified", "added": 1, "removed": 1}]
    assert shown["stat"] == {"files": 1, "added": 1, "removed": 1} and shown["subject"]
    since = ok(history("snapshot", "diff", "HEAD~3", "--stat", "--json"))
    assert [(c["uri"], c["added"], c["removed"]) for c in since["changes"]] == [("viking://resources/a.md", 2, 0), (MEMORY, since["changes"][1]["added"], 0)]
    assert since["stat"] == {"files": 2, "added": 2 + since["changes"][1]["added"], "removed": 0}
    assert since["changes"][1]["added"] > 1 and not any("diff" in c for c in since["changes"])
    assert "stat" not in ok(history("snapshot", "diff", "HEAD~3", "--json"))  # without --stat: the diffs, as before


def test_restore_dry_run_lists_and_changes_nothing(history, store_state):
    before = store_state()
    plan = ok(history("snapshot", "restore", "HEAD~1", "--dry-run", "--json"))
    assert plan["deleted"] == [MEMORY] and plan["written"] == [] and plan["commit"] is None and plan["dry_run"]
    assert store_state() == before


def test_restore_undoes_a_memory_as_a_new_commit_and_search_follows(history, ov_home):
    assert ok(history("find", "tea", "--json"))["total"] == 1
    old_head = head(ov_home)
    plan = ok(history("snapshot", "restore", "HEAD~1", "--uri", "viking://user/default/memories", "--json"))
    assert plan["deleted"] == [MEMORY] and plan["commit"]
    repo = Repo(str(ov_home / "accounts/default"))
    assert repo[repo.head()].parents == [old_head.encode()]  # on top: history is never rewritten
    assert not (ov_home / "accounts/default/user/default/memories/preferences/default/tea.md").exists()
    assert ok(history("find", "tea", "--json"))["total"] == 0
    assert ok(history("snapshot", "log", "-n", "1", "--json"))[0]["command"] == "snapshot restore"
    # The undo can itself be undone.
    ok(history("snapshot", "restore", old_head[:8], "--json"))
    assert (ov_home / "accounts/default/user/default/memories/preferences/default/tea.md").exists()
    assert ok(history("find", "tea", "--json"))["total"] == 1


def test_a_revision_or_tag_read_from_a_file_keeps_its_newline_out(history, ov_home):
    """(a review: `ov snapshot restore "REV<newline>"` cut the restore's commit subject in two, and
    `ov snapshot tag "v1<newline>"` was an internal RefFormatError.)"""
    assert ok(history("snapshot", "tag", "v1\n", "HEAD~1\n", "--json"))["tag"] == "v1"
    assert ok(history("snapshot", "show", " v1\n", "--json"))["command"] == "edit"
    plan = ok(history("snapshot", "restore", "v1\n", "--uri", "viking://user/default/memories", "--json"))
    assert plan["rev"] == "v1"
    message = Repo(str(ov_home / "accounts/default"))[plan["commit"].encode()].message.decode()
    subject, blank = message.split("\n")[:2]
    assert subject.startswith("ov snapshot restore viking://user/default/memories to v1 (") and blank == ""
    assert ok(history("snapshot", "log", "-n", "1", "--json"))[0]["subject"] == subject
    assert ok(history("snapshot", "tag", "-d", "v1\n", "--json"))["tag"] == "v1"
    # Whitespace inside is no revision and no tag's name.
    for argv in (("show", "HEAD\n~1"), ("tag", "v\n2"), ("tag", "v2", "HEAD\nx")):
        assert history("snapshot", *argv, "--json").exit_code == 2
    assert ok(history("snapshot", "tag", "--json")) == []


def test_restore_of_a_file_brings_its_content_back(history, ov_home):
    plan = ok(history("snapshot", "restore", "HEAD~2", "--uri", "viking://resources/a.md", "--json"))
    assert plan["written"] == ["viking://resources/a.md"]
    assert (ov_home / "accounts/default/resources/a.md").read_text() == "one\ntwo\n"
    # HEAD~1 is now the commit before that restore: a.md as edited.
    again = ok(history("snapshot", "restore", "HEAD~1", "--uri", "viking://resources/a.md", "--json"))
    assert again["written"] == ["viking://resources/a.md"]
    assert (ov_home / "accounts/default/resources/a.md").read_text() == "one\nthree\n"
    assert ok(history("snapshot", "restore", "HEAD", "--uri", "viking://resources/a.md", "--json"))["commit"] is None


def test_restore_names_apart_the_files_whose_later_changes_it_undoes(history):
    """(an audit: the docs said the --dry-run list names a file whose later changes a restore
    undoes; it listed it like a file brought back, which loses nothing.)"""
    assert history("write", "viking://resources/b.md", "--content", "bee\n").exit_code == 0
    assert history("snapshot", "tag", "with-b").exit_code == 0
    assert history("rm", "viking://resources/b.md").exit_code == 0
    assert history("edit", "viking://resources/a.md", "--old", "three", "--new", "four").exit_code == 0
    dry = ok(history("snapshot", "restore", "with-b", "--uri", "viking://resources", "--dry-run", "--json"))
    assert dry["written"] == ["viking://resources/a.md", "viking://resources/b.md"] and dry["deleted"] == []
    assert dry["rolled_back"] == ["viking://resources/a.md"]
    text = ok(history("snapshot", "restore", "with-b", "--uri", "viking://resources", "--dry-run")).stdout.splitlines()
    assert text[:2] == ["would roll back viking://resources/a.md (changed since with-b: those changes are undone)", "would write viking://resources/b.md"]
    assert ok(history("snapshot", "restore", "with-b", "--uri", "viking://resources", "--json"))["rolled_back"] == dry["rolled_back"]


def test_restore_refuses_to_overwrite_hand_edits(history, ov_home, store_state):
    (ov_home / "accounts/default/resources/a.md").write_text("edited by hand\n")
    before = store_state()
    result = history("snapshot", "restore", "HEAD~2", "--uri", "viking://resources/a.md", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert store_state() == before


@pytest.mark.parametrize("uri", ["viking://resources/fd", None])
def test_restore_of_a_folder_back_to_a_file_refuses_a_file_made_in_it_by_hand(ov, ov_home, store_state, uri):
    """(an audit: "internal error: IsADirectoryError" where an import or `ov restore` says what the
    hand-made file is; `--dry-run` showed no problem.)"""
    assert ov("write", "viking://resources/fd/x", "--content", "x as a file").exit_code == 0
    assert ov("snapshot", "tag", "fd-file").exit_code == 0
    assert ov("rm", "viking://resources/fd/x").exit_code == 0
    assert ov("write", "viking://resources/fd/x/y.md", "--content", "y in a folder").exit_code == 0
    hand_made = ov_home / "accounts/default/resources/fd/x/z.md"
    hand_made.write_text("by hand\n")
    before = store_state()
    where = ("--uri", uri) if uri else ()
    for dry in ((), ("--dry-run",)):
        result = ov("snapshot", "restore", "fd-file", *where, *dry, "--json")
        assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict", result.stderr
        assert "viking://resources/fd/x/z.md was created outside ov" in result.error["message"]
    assert store_state() == before
    # the same for a hand edit of a file it writes: the dry run says what the restore would
    (ov_home / "accounts/default/resources/fd/x/y.md").write_text("edited\n")
    assert ov("snapshot", "restore", "fd-file", *where, "--dry-run", "--json").error["code"] == "hand_edit_conflict"
    # once the hand-made file is gone, the restore goes through
    hand_made.unlink()
    (ov_home / "accounts/default/resources/fd/x/y.md").write_text("y in a folder")
    assert ok(ov("snapshot", "restore", "fd-file", *where, "--json"))["written"] == ["viking://resources/fd/x"]
    assert ov("read", "viking://resources/fd/x").stdout == "x as a file"


def test_history_of_an_empty_store(ov):
    assert ok(ov("snapshot", "log", "--json")) == []
    assert ov("snapshot", "diff", "--json").exit_code == 1
    assert ok(ov("snapshot", "tag", "--json")) == []



def _stored_objects(account) -> int:
    """Objects in the repository, counting each copy (loose files and every pack's entries)."""
    from dulwich.repo import Repo

    objects = account / ".git" / "objects"
    loose = sum(1 for sub in objects.iterdir() if len(sub.name) == 2 for _ in sub.iterdir())
    repo = Repo(str(account))
    try:
        return loose + sum(len(pack.index) for pack in repo.object_store.packs)
    finally:
        repo.close()


def test_restoring_many_files_stores_none_of_their_content_again(ov, ov_home, tmp_path):
    """A restore brings back content the store holds already: its commit adds trees and the
    commit object, not a second copy of each file."""
    source = tmp_path / "docs"
    source.mkdir()
    for i in range(80):
        (source / f"d{i:02d}.md").write_text(f"document {i}\n" * 20)
    assert ov("add-resource", str(source), "--to", "viking://resources/docs").exit_code == 0
    assert ov("rm", "-r", "viking://resources/docs").exit_code == 0
    account = ov_home / "accounts/default"
    before = _stored_objects(account)
    assert ok(ov("snapshot", "restore", "HEAD~1", "--json"))["commit"]
    assert (account / "resources/docs/d07.md").read_text() == "document 7\n" * 20
    assert _stored_objects(account) - before < 20  # trees and a commit; 80 files would be 80 more


def test_a_diff_cuts_lines_at_newlines_only(history):
    """A form feed or U+2028 inside a line is part of it, as git and patch read it: the hunk's line
    numbers and its "No newline at end of file" marks stay where they belong."""
    assert history("write", "viking://resources/d/f.md", "--content", "one\nsec\x0cond\u2028half\nlast").exit_code == 0
    assert history("write", "viking://resources/d/f.md", "--content", "one\nsec\x0cond\u2028half\nLAST").exit_code == 0
    [change] = ok(history("snapshot", "show", "HEAD", "--json"))["changes"]
    assert change["diff"].split("\n")[2:] == [
        "@@ -1,3 +1,3 @@", " one", " sec\x0cond\u2028half", "-last", "\\ No newline at end of file", "+LAST", "\\ No newline at end of file", "",
    ]
    shown = history("snapshot", "show", "HEAD").stdout.split("\n")
    assert "-last" in shown and " sec\x0cond\u2028half" in shown


def test_restore_turns_a_folder_back_into_the_file_it_was(history, ov_home):
    assert history("write", "viking://resources/t/x", "--content", "a file").exit_code == 0
    assert history("snapshot", "tag", "v1").exit_code == 0
    assert history("rm", "viking://resources/t/x").exit_code == 0
    assert history("write", "viking://resources/t/x/y.md", "--content", "a folder").exit_code == 0
    restored = history("snapshot", "restore", "v1", "--uri", "viking://resources/t", "--json")
    assert restored.exit_code == 0, restored.stderr
    assert history("read", "viking://resources/t/x").stdout == "a file" and history("fsck").exit_code == 0
    assert not (ov_home / "accounts/default/resources/t/x").is_dir()


def test_nothing_is_created_under_a_file_deleted_by_hand(history, ov_home):
    assert history("write", "viking://resources/q/a", "--content", "a").exit_code == 0
    (ov_home / "accounts/default/resources/q/a").unlink()
    refused = history("write", "viking://resources/q/a/b", "--content", "b", "--json")
    assert refused.exit_code == 1 and "is a file in the last commit" in refused.error["message"]
    assert "ov status" in refused.error["hint"]


def test_a_file_no_uri_can_name_is_never_recorded_and_the_backup_restores(history, ov_home, tmp_path, monkeypatch):
    """A file copied in by hand whose name no URI can hold (`.gitattributes`, a backslash, a drive
    letter) is ignored by `ov snapshot commit`: recorded, no command could remove it and no backup
    of the store would restore."""
    folder = ov_home / "accounts/default/resources/proj"
    folder.mkdir(parents=True)
    for name in (".gitattributes", "back\\slash.md", "c:odd.md"):
        (folder / name).write_text("x\n")
    (folder / "fine.md").write_text("fine\n")
    for rel in ("user/Bad User/x.md", "user/bob/memories", "user/default/sessions/s1"):  # no URI, or where a folder belongs
        (ov_home / "accounts/default" / rel).parent.mkdir(parents=True, exist_ok=True)
        (ov_home / "accounts/default" / rel).write_text("x\n")
    status = ok(history("status", "--json"))
    assert status["added"] == ["viking://resources/proj/fine.md"] and len(status["ignored"]) == 6
    assert history("snapshot", "commit", "-m", "files copied in").exit_code == 0
    assert history("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    assert history("restore", str(tmp_path / "all.ovpack")).exit_code == 0
    assert history("read", "viking://resources/proj/fine.md").stdout == "fine\n"


def test_a_whole_scope_or_a_users_tree_can_be_restored(history, ov_home):
    assert history("write", "viking://resources/b.md", "--content", "later").exit_code == 0
    plan = ok(history("snapshot", "restore", "HEAD~1", "--uri", "viking://resources", "--dry-run", "--json"))
    assert plan["deleted"] == ["viking://resources/b.md"] and plan["written"] == []
    assert ok(history("snapshot", "restore", "HEAD~1", "--uri", "viking://resources", "--json"))["commit"]
    assert history("read", "viking://resources/b.md").exit_code == 1
    assert ok(history("snapshot", "restore", "HEAD~3", "--uri", "viking://~", "--dry-run", "--json"))["deleted"] == [MEMORY]


def test_restore_leaves_live_sessions_as_they_are_and_says_so(ov, ov_home):
    """(an audit: restoring viking://~ to a tag before a live session deleted its captured turns,
    or cut them back to the tag's, and the host's next capture read on past them: lost for good.)
    A session whose messages no `ov commit` archived yet is no history to roll back."""
    sessions = "viking://user/default/sessions"
    assert ov("session", "add", "grown", "--text", "alpha is one").exit_code == 0
    assert ov("session", "new", "--id", "idle").exit_code == 0  # no message: nothing live to lose
    assert ov("snapshot", "tag", "before").exit_code == 0
    assert ov("session", "add", "grown", "--text", "beta is two").exit_code == 0
    assert ov("session", "add", "fresh", "--text", "the release train leaves on Thursdays").exit_code == 0
    assert ov("remember", "I like tea").exit_code == 0
    assert ov("session", "new", "--id", "later").exit_code == 0

    dry = ok(ov("snapshot", "restore", "before", "--uri", "viking://~", "--dry-run", "--json"))
    assert dry["kept_live"] == [f"{sessions}/fresh", f"{sessions}/grown"]
    assert not any("/grown/" in u or "/fresh/" in u for u in dry["written"] + dry["deleted"])
    text = ok(ov("snapshot", "restore", "before", "--uri", "viking://~", "--dry-run")).stdout
    assert f"would keep {sessions}/fresh: a live session" in text
    plan = ok(ov("snapshot", "restore", "before", "--uri", "viking://~", "--json"))
    assert plan["kept_live"] == dry["kept_live"] and plan["commit"]
    assert f"{sessions}/later/.meta.json" in plan["deleted"] and MEMORY in plan["deleted"]  # the rest is restored
    def texts(sid):
        return [m["parts"][0]["text"] for m in ok(ov("session", "show", sid, "--json"))["messages"]]

    assert texts("grown") == ["alpha is one", "beta is two"] and texts("fresh") == ["the release train leaves on Thursdays"]
    # Only what is kept differs from the tag: the restore says so.
    again = ok(ov("snapshot", "restore", "before", "--uri", "viking://~"))
    assert f"kept {sessions}/grown: a live session" in again.stdout and "nothing else differs from before" in again.stdout
    # Named, a live session (or a file of it: a damaged .meta.json, as its error's hint says) is restored.
    part = ok(ov("snapshot", "restore", "before", "--uri", f"{sessions}/grown/.meta.json", "--json"))
    assert part["kept_live"] == [] and part["written"] == [f"{sessions}/grown/.meta.json"]
    named = ok(ov("snapshot", "restore", "before", "--uri", f"{sessions}/grown", "--json"))
    assert named["kept_live"] == [] and named["written"] == [f"{sessions}/grown/messages.jsonl"]
    assert texts("grown") == ["alpha is one"]


def test_restore_writes_again_the_summaries_above_what_it_brings_back(ov, tmp_path):
    """(an audit: undoing `ov rm -r` brought the folder back, but the summary above it, which rm
    had written again, still said "This directory is empty.")"""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "auth.md").write_text("# Auth\n\nAuth uses JWT tokens issued by the gateway.\n")
    assert ov("add-resource", str(docs), "--to", "viking://resources/hb").exit_code == 0
    before = ok(ov("abstract", "viking://resources")).stdout
    assert "hb/" in before and ov("snapshot", "tag", "before-rm").exit_code == 0
    assert ov("rm", "-r", "viking://resources/hb").exit_code == 0
    assert "hb/" not in ok(ov("abstract", "viking://resources")).stdout
    plan = ok(ov("snapshot", "restore", "before-rm", "--uri", "viking://resources/hb", "--json"))
    assert ok(ov("abstract", "viking://resources")).stdout == before
    # in the restore's own commit, which names the files it restored as before
    shown = ok(ov("snapshot", "show", plan["commit"], "--json"))
    assert "viking://resources/.abstract.md" in [c["uri"] for c in shown["changes"]]
    assert "viking://resources/.abstract.md" not in plan["written"]
    # the folder a move left, brought back: the summary lists both places
    assert ov("mv", "viking://resources/hb", "viking://resources/moved").exit_code == 0
    ok(ov("snapshot", "restore", "before-rm", "--uri", "viking://resources/hb", "--json"))
    assert "Holds 2 subdirectories (hb/ and moved/)" in ok(ov("abstract", "viking://resources")).stdout


def test_a_work_tree_diff_waits_for_a_write_in_progress_and_never_shows_its_files(ov, ov_home):
    """(an audit: `snapshot diff` run while a restore moved its 2,000 files into place listed them
    as hand edits, where `ov status` waits for the write lock and never does.)"""
    import threading

    from ov.store.lock import WriteLock

    assert ov("write", "viking://resources/a.md", "--content", "one\n").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "0.5").exit_code == 0
    written = ov_home / "accounts/default/resources/a.md"
    held, done = threading.Event(), threading.Event()

    def writer():  # a write of ov's, half applied while it holds the lock, then rolled back
        lock = WriteLock(ov_home / "state/default/write.lock", 5)
        lock.acquire()
        try:
            written.write_text("half applied\n")
            held.set()
            done.wait(10)
            written.write_text("one\n")
        finally:
            lock.release()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        assert held.wait(5)
        locked = ov("snapshot", "diff", "--json")
        assert locked.exit_code != 0 and locked.error["code"] == "store_locked", locked.stdout
        assert "write in progress" in locked.error["message"] and "half applied" not in locked.stdout
        # Waited for, the write ends before the diff reads: no hand edit to show.
        assert ov("config", "set", "store.lock_timeout", "10").exit_code == 0
        threading.Timer(0.3, done.set).start()
        assert ok(ov("snapshot", "diff", "--json"))["changes"] == []
    finally:
        done.set()
        thread.join()
    written.write_text("by hand\n")  # a hand edit, as before, once nothing writes
    assert [c["uri"] for c in ok(ov("snapshot", "diff", "--json"))["changes"]] == ["viking://resources/a.md"]


def test_log_names_who_made_each_commit_in_one_column(history):
    """Several users may share an account: the text log names each commit's author (as --json
    does), by name alone and padded, so that the subjects still start in one column."""
    assert history("write", "viking://resources/b.md", "--content", "b", "--user", "alice").exit_code == 0
    lines = [line for line in ok(history("snapshot", "log")).stdout.splitlines() if not line.startswith(" ")]
    assert [line.split()[2] for line in lines] == ["alice", "default", "default", "default", "default"]
    assert "<" not in lines[0]  # the name, not the e-mail address
    assert len({line.index(" ov ") for line in lines}) == 1, lines


def test_log_says_which_way_each_commit_came(history, ov_home):
    # (found by an audit: a CLI `remember` and an agent's MCP `remember` made identical commits)
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    hook = Store(Home(ov_home), Identity(), Config(), via="hook claude")
    hook.write(hook.uri("viking://resources/h.md"), b"h\n")
    library = Store(Home(ov_home), Identity(), Config())
    library.write(library.uri("viking://resources/lib.md"), b"l\n")
    entries = ok(history("snapshot", "log", "--json"))
    assert [(e["command"], e["via"]) for e in entries] == [
        ("write", None),  # the library used directly says nothing
        ("write", "hook claude"),
        ("remember", "cli"),
        ("edit", "cli"),
        ("write", "cli"),
        ("init", "cli"),  # made by the first command, which it names (found by an audit: it named none)
    ]
    lines = [line for line in ok(history("snapshot", "log")).stdout.splitlines() if not line.startswith(" ")]
    assert lines[1].endswith("ov write viking://resources/h.md (via hook claude)") and lines[2].endswith("(via cli)")
    assert "via" not in lines[0] and lines[-1].endswith("(via cli)")
    assert ok(history("snapshot", "show", "HEAD~1", "--json"))["via"] == "hook claude"


def test_colour_always_colours_a_diff_sent_to_a_pipe(history, monkeypatch):
    """`ov snapshot diff HEAD~2 | less -R` is the case `always` is for: the output is not a
    terminal (here neither), and NO_COLOR is set (conftest) but an explicit setting wins."""
    monkeypatch.setenv("TERM", "xterm")  # rich gives a "dumb" terminal no colours at all
    piped = ok(history("snapshot", "diff", "HEAD~2")).stdout
    assert "\x1b[" not in piped and "-two\n+three\n" in piped
    monkeypatch.setenv("OV_COLOR", "always")
    coloured = ok(history("snapshot", "diff", "HEAD~2")).stdout
    assert "\x1b[31m-two\x1b[0m" in coloured and "\x1b[32m+three\x1b[0m" in coloured
    monkeypatch.delenv("OV_COLOR")
    assert history("config", "set", "output.color", "always").exit_code == 0
    assert "\x1b[32m+three" in ok(history("snapshot", "diff", "HEAD~2")).stdout
    monkeypatch.setenv("OV_COLOR", "never")  # the variable wins over the file
    assert ok(history("snapshot", "diff", "HEAD~2")).stdout == piped


# --- a large restore and the writes of others -------------------------------------------------


@pytest.fixture
def big_removed(ov, ov_home, tmp_path):
    """A 300-file folder added, tagged ``with-big``, then removed; other writers give up after 1 s."""
    source = numbered_notes(tmp_path / "big", 300, lambda i: f"# note {i}\n\ntoken{i}\n")
    assert ov("add-resource", str(source), "--to", "viking://resources/big").exit_code == 0
    assert ov("snapshot", "tag", "with-big").exit_code == 0
    assert ov("rm", "-r", "viking://resources/big").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "1").exit_code == 0
    return ov_home / "accounts/default"


def test_a_write_while_a_large_restore_is_prepared_lands_and_the_restore_goes_on_top(ov, ov_process, big_removed, during_preparation):
    """The audit's case: a hook's write during a large restore waited for the lock and failed
    with store_locked. Now it lands; the restore, of the whole store, commits on top of it, so
    it also takes back what came since the tag (the write too)."""
    done = during_preparation(lambda: ov_process("write", "viking://resources/during.md", "--content", "an agent's write", "--json"))
    plan = ok(ov("snapshot", "restore", "with-big", "--json"))
    [write] = done
    assert write.exit_code == 0, write.stderr
    repo = Repo(str(big_removed))
    assert repo[repo.head()].parents == [write.json["result"]["commit"].encode()]
    assert plan["deleted"] == ["viking://resources/during.md"]
    assert not (big_removed / "resources/during.md").exists()
    assert all((big_removed / f"resources/big/pkg{i // 100}/n{i:03d}.md").read_text() == f"# note {i}\n\ntoken{i}\n" for i in range(300))
    assert ok(ov("status", "--json"))["clean"]


def test_writes_during_a_subtree_restore_outside_it_stay_and_inside_it_are_restored(ov, ov_process, big_removed, during_preparation):
    def two_writes():
        inside = ov_process("write", "viking://resources/big/pkg0/n007.md", "--content", "written meanwhile")
        outside = ov_process("write", "viking://resources/other.md", "--content", "kept")
        return inside, outside

    done = during_preparation(two_writes)
    plan = ok(ov("snapshot", "restore", "with-big", "--uri", "viking://resources/big", "--json"))
    assert [w.exit_code for w in done[0]] == [0, 0]
    assert "viking://resources/big/pkg0/n007.md" in plan["written"] and plan["deleted"] == []
    assert (big_removed / "resources/big/pkg0/n007.md").read_text() == "# note 7\n\ntoken7\n"
    assert (big_removed / "resources/other.md").read_text() == "kept"
    assert [e["command"] for e in ok(ov("snapshot", "log", "-n", "3", "--json"))] == ["snapshot restore", "write", "write"]
    assert ok(ov("status", "--json"))["clean"]


def test_a_session_that_becomes_live_while_a_large_restore_is_prepared_is_kept(ov, ov_process, big_removed, during_preparation):
    """The draft chose the files of the sessions live when it looked: one whose first turn a hook
    captured meanwhile is planned again under the lock, and kept."""
    done = during_preparation(lambda: ov_process("session", "add", "meanwhile", "--text", "captured during the restore", "--json"))
    plan = ok(ov("snapshot", "restore", "with-big", "--json"))
    assert done[0].exit_code == 0, done[0].stderr
    assert plan["kept_live"] == ["viking://user/default/sessions/meanwhile"]
    assert not any("/sessions/" in u for u in plan["deleted"])
    shown = ok(ov("session", "show", "meanwhile", "--json"))
    assert [m["parts"][0]["text"] for m in shown["messages"]] == ["captured during the restore"]


def test_a_file_committed_at_a_subtree_restores_own_path_while_it_is_prepared_is_replaced_by_the_folder(ov, ov_process, big_removed, during_preparation):
    # A commit at the scope itself (or above it) was not seen as stale: the restore failed with
    # "is a file in the last commit", where a restore run a moment later succeeds (a review).
    done = during_preparation(lambda: ov_process("write", "viking://resources/big", "--content", "a file where the folder was"))
    plan = ok(ov("snapshot", "restore", "with-big", "--uri", "viking://resources/big", "--json"))
    assert done[0].exit_code == 0, done[0].stderr
    assert "viking://resources/big" in plan["deleted"]
    assert (big_removed / "resources/big/pkg2/n250.md").read_text() == "# note 250\n\ntoken250\n"
    assert ok(ov("status", "--json"))["clean"]


def test_a_hand_edit_made_while_a_large_restore_is_prepared_is_not_overwritten(ov, big_removed, during_preparation, store_state):
    by_hand = big_removed / "resources/big/pkg1/n150.md"

    def edit():
        by_hand.parent.mkdir(parents=True)
        by_hand.write_text("made by hand\n")

    during_preparation(edit)
    before = store_state()[0]
    result = ov("snapshot", "restore", "with-big", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    head, files = store_state()
    assert head == before and by_hand.read_text() == "made by hand\n"
    assert [p for p in files if p.startswith("resources/big/")] == ["resources/big/pkg1/n150.md"]
    assert not any((big_removed.parent.parent / "state/default/staging").glob("*"))  # nothing staged is left


NFC_CAFE, NFD_CAFE = "caf\u00e9.txt", "cafe\u0301.txt"  # é as one character; e and a combining accent


@pytest.mark.parametrize("typed", [NFC_CAFE, NFD_CAFE], ids=["typed-nfc", "typed-nfd"])
def test_a_name_stored_decomposed_has_a_history_once_gone_from_the_work_tree(ov, ov_home, typed):
    """A typed URI is NFC; the trees of an older store (or a restored backup) hold the name
    decomposed. Once the file was gone, diff said "no differences", show "did not exist",
    and log and restore found nothing."""
    menu = ov_home / "accounts/default/resources/menu"
    assert ov("init").exit_code == 0
    menu.mkdir(parents=True)
    (menu / NFD_CAFE).write_text("espresso\n")
    (menu / "tea.txt").write_text("green\n")
    assert ov("snapshot", "commit", "-m", "as an older ov stored it").exit_code == 0
    assert ov("snapshot", "tag", "before").exit_code == 0
    assert ov("rm", f"viking://resources/menu/{NFD_CAFE}").exit_code == 0
    uri = f"viking://resources/menu/{typed}"
    diff = ok(ov("snapshot", "diff", "before", "--uri", uri, "--json"))
    assert [(c["uri"], c["change"]) for c in diff["changes"]] == [(f"viking://resources/menu/{NFD_CAFE}", "deleted")]
    assert ok(ov("snapshot", "show", "before", "--uri", uri, "--json"))["content"] == "espresso\n"
    assert [e["command"] for e in ok(ov("snapshot", "log", "--uri", uri, "--json"))] == ["rm", "snapshot commit"]
    plan = ok(ov("snapshot", "restore", "before", "--uri", uri, "--json"))
    assert plan["written"] == [f"viking://resources/menu/{NFD_CAFE}"]
    assert sorted(p.name for p in menu.iterdir() if not p.name.startswith(".")) == [NFD_CAFE, "tea.txt"]
    # Renamed to its NFC spelling, it is one file whose log goes on through both names.
    assert ov("mv", f"viking://resources/menu/{NFD_CAFE}", f"viking://resources/menu/{NFC_CAFE}").exit_code == 0
    assert [e["command"] for e in ok(ov("snapshot", "log", "--uri", uri, "--json"))] == ["mv", "snapshot restore", "rm", "snapshot commit"]
    assert ok(ov("snapshot", "show", "before", "--uri", f"viking://resources/menu/{NFC_CAFE}", "--json"))["content"] == "espresso\n"


@pytest.mark.parametrize("place", ["resources/big", "resources/big/pkg1"])
def test_a_file_made_by_hand_where_a_large_restore_makes_a_folder_is_refused_and_nothing_changes(ov, big_removed, during_preparation, store_state, place):
    # It failed the work tree's mkdir after every check, as an internal FileExistsError (a
    # review); the commit now sees it before anything is written. The folder grafted whole
    # (its tree built ahead) is checked, and, when a folder is there already, each below it.
    def make():
        (big_removed / place).parent.mkdir(parents=True, exist_ok=True)
        (big_removed / place).write_text("made by hand\n")
        return store_state()

    made = during_preparation(make)
    result = ov("snapshot", "restore", "with-big", "--json")
    assert result.exit_code == 1 and result.error["code"] == "not_directory", result.stdout
    assert result.error["message"] == f"viking://{place} is a file made outside ov, so nothing can be created under it"
    assert store_state() == made[0]
    assert not any((big_removed.parent.parent / "state/default/staging").glob("*"))
    again = ov("snapshot", "restore", "with-big", "--json")  # the same, with the file there from the start
    assert (again.exit_code, again.error) == (result.exit_code, result.error)


# --- a history holding a path ov never writes (a pull before pulls were checked) -------------


def test_restore_refuses_a_revision_with_an_escaping_path_and_restoring_one_before_it_drops_it(history, ov_home, store_state):
    from tests.hostile_trees import FILE, add_commit

    victim = ov_home.parent / "victim.md"  # where ../../ leads from the account
    victim.write_bytes(b"original\n")
    before = head(ov_home)
    bad = add_commit(ov_home / "accounts/default", {(b"..", b"..", b"victim.md"): (FILE, b"attacker\n")}).decode()
    restored = history("snapshot", "restore", before, "--json")
    assert restored.exit_code == 0, restored.stderr
    assert restored.json["result"]["deleted"] == ["viking://../../victim.md"]
    assert victim.read_bytes() == b"original\n"
    assert history("status", "--json").json["result"]["clean"] and history("fsck").exit_code == 0
    state = store_state()
    refused = history("snapshot", "restore", bad, "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree"
    assert refused.error["message"] == f"{bad} holds '../../victim.md', which ov never writes: it holds a '..' name, which leads out of its folder"
    assert store_state() == state and victim.read_bytes() == b"original\n"


def test_restore_writes_back_the_names_an_older_ov_stored_and_they_stay_addressable(history, ov_home):
    # (an upgrade audit: restore wrote them back although main refused them everywhere else)
    from tests.hostile_trees import FILE, add_commit

    older = add_commit(
        ov_home / "accounts/default",
        {(b"resources", b"src", b"todo "): (FILE, b"buy milk\n"), (b"user", b".bob", b"memories", b"emacs.md"): (FILE, b"emacs\n")},
    ).decode()
    assert history("snapshot", "commit", "-m", "drop what the work tree lacks").exit_code == 0
    account = ov_home / "accounts/default"
    assert not (account / "resources/src/todo ").exists()
    restored = history("snapshot", "restore", older, "--json")
    assert restored.exit_code == 0, restored.stderr
    assert (account / "resources/src/todo ").read_text() == "buy milk\n"
    assert history("read", "viking://resources/src/todo ").stdout == "buy milk\n"
    assert history("read", "viking://user/.bob/memories/emacs.md").stdout == "emacs\n"
    assert history("rm", "viking://resources/src/todo ").exit_code == 0 and not (account / "resources/src/todo ").exists()
    assert history("mv", "viking://user/.bob/memories", "viking://user/bob/memories").exit_code == 0
    assert history("status", "--json").json["result"]["clean"] and history("fsck").exit_code == 0
    # ov itself makes neither, nor records a new hidden id made by hand
    assert history("write", "viking://resources/src/new ", "--content", "x").exit_code == 2
    assert history("write", "viking://user/.eve/notes.md", "--content", "x").exit_code == 2
    (account / "user/.eve").mkdir()
    (account / "user/.eve/notes.md").write_text("by hand\n")
    status = history("status", "--json").json["result"]
    assert status["clean"] and "user/.eve/notes.md" in status["ignored"]


def test_restore_refuses_a_revision_holding_a_path_no_pull_or_restore_takes(history, ov_home, store_state):
    from tests.hostile_trees import FILE, add_commit

    bad = add_commit(ov_home / "accounts/default", {(b"resources", b"x.md.ov-tmp-1"): (FILE, b"x\n")}).decode()
    assert history("snapshot", "commit", "-m", "drop it").exit_code == 0
    state = store_state()
    refused = history("snapshot", "restore", bad, "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree" and "'resources/x.md.ov-tmp-1'" in refused.error["message"]
    assert store_state() == state and not (ov_home / "accounts/default/resources/x.md.ov-tmp-1").exists()


def test_a_file_outside_the_scopes_in_a_revision_is_ignored_by_restore_status_and_fsck(history, ov_home, store_state):
    """What plain git committed outside the scopes (README.md, docs/) is what `ov status` ignores
    in the work tree: never written, read or indexed, never a hand edit."""
    from tests.hostile_trees import FILE, add_commit

    rev = add_commit(ov_home / "accounts/default", {(b"docs", b"x.md"): (FILE, b"x\n"), (b"README.md",): (FILE, b"# r\n")}).decode()
    assert history("status", "--json").json["result"]["clean"] and history("fsck").exit_code == 0
    state = store_state()
    restored = history("snapshot", "restore", rev, "--json")
    assert restored.exit_code == 0 and restored.json["result"]["written"] == []
    assert store_state() == state and not (ov_home / "accounts/default/docs").exists()


def test_restore_refuses_a_link_or_a_submodule_and_show_and_diff_name_them_not_their_contents(history, ov_home, store_state):
    """(a review: a restore wrote a symbolic link's target and a submodule's commit id as files,
    and show/diff printed them as file contents; a pull refuses such trees.)"""
    from tests.hostile_trees import GITLINK, LINK, add_commit

    account = ov_home / "accounts/default"
    target = head(ov_home).encode()
    bad = add_commit(account, {(b"resources", b"link"): (LINK, b"/etc/passwd"), (b"resources", b"sub"): (GITLINK, target)}).decode()
    assert history("snapshot", "commit", "-m", "drop them").exit_code == 0  # not in the work tree: dropped
    state = store_state()
    refused = history("snapshot", "restore", bad, "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree", refused.stdout
    assert refused.error["message"].startswith(f"{bad} holds 'resources/link', which ov never writes: a symbolic link")
    assert store_state() == state and not (account / "resources/link").exists() and not (account / "resources/sub").exists()
    part = history("snapshot", "restore", bad, "--uri", "viking://resources/sub", "--json")
    assert part.exit_code == 1 and "a submodule" in part.error["message"]
    # a part of the store without them is restored as usual
    assert history("snapshot", "restore", bad, "--uri", "viking://resources/a.md").exit_code == 0
    shown = history("snapshot", "show", bad, "--json").json["result"]["changes"]
    assert {c["uri"]: (c["change"], c["diff"]) for c in shown} == {"viking://resources/link": ("added", ""), "viking://resources/sub": ("added", "")}
    assert [c["refused"].split(" (")[0] for c in shown] == ["a symbolic link", "a submodule"]
    text = history("snapshot", "show", bad).stdout
    assert "/etc/passwd" not in text and target.decode() not in text
    assert "added: viking://resources/link (ov never writes it: a symbolic link" in text
    one = history("snapshot", "show", bad, "--uri", "viking://resources/link", "--json").json["result"]
    assert "content" not in one and one["refused"].startswith("a symbolic link")
    assert "not shown, ov never writes it: a symbolic link" in history("snapshot", "show", bad, "--uri", "viking://resources/link").stdout
    diff = history("snapshot", "diff", bad, "HEAD", "--json").json["result"]["changes"]
    assert {c["uri"]: c["change"] for c in diff if c.get("refused")} == {"viking://resources/link": "deleted", "viking://resources/sub": "deleted"}
    assert "/etc/passwd" not in history("snapshot", "diff", bad, "HEAD").stdout
    assert "deleted   viking://resources/sub  (ov never writes it: a submodule" in history("snapshot", "diff", bad, "HEAD", "--stat").stdout
