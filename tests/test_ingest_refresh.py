"""Adding a source again (ov.ingest.refresh): which import it updates, and that it writes and removes
only what an earlier add wrote and the user has not changed since (audit22 #01 #02 #07 #09 #10 #15)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_ingest import commits

ROOT = "viking://resources/proj"


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nalpha\n")
    (folder / "t.csv").write_text("name,val\n1,2\n")
    return folder


def manifest(ov_home: Path, root: str = "resources/proj") -> dict:
    return json.loads((ov_home / "accounts/default" / root / ".sources.json").read_text())


def add(ov, *args: str):
    result = ov("add-resource", *args, "--json")
    assert result.exit_code == 0, result.stderr
    return result.json["result"]


# --- where a refresh goes (#01) -----------------------------------------------------------


def test_an_import_made_with_to_is_refreshed_by_the_same_to_and_found_without_it(ov, ov_home, proj):
    target = "viking://resources/team/notes"
    add(ov, str(proj), "--to", target)
    (proj / "c.md").write_text("# C\ngamma\n")
    again = add(ov, str(proj), "--to", target)
    assert again["root"] == target and again["added"] == [f"{target}/c.md"] and again["unchanged"] == 2
    (proj / "d.md").write_text("# D\ndelta\n")
    found = add(ov, str(proj))  # no --to: the earlier import, not a second copy at resources/proj
    assert found["root"] == target and found["added"] == [f"{target}/d.md"]
    assert ov("stat", ROOT).exit_code == 1


def test_an_import_moved_with_mv_is_refreshed_where_it_is_now(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("mv", ROOT, "viking://resources/archive/proj2").exit_code == 0
    (proj / "a.md").write_text("# A\nalpha, revised\n")
    data = add(ov, str(proj))
    assert data["root"] == "viking://resources/archive/proj2" and data["updated"] == ["viking://resources/archive/proj2/a.md"]
    assert ov("stat", ROOT).exit_code == 1


def test_a_source_added_in_two_places_is_refreshed_only_where_it_is_named(ov, ov_home, proj, store_state):
    add(ov, str(proj), "--to", "viking://resources/one")
    add(ov, str(proj), "--to", "viking://resources/two")
    before = store_state()
    result = ov("add-resource", str(proj), "--json")
    assert result.exit_code == 1 and result.error["code"] == "already_exists"
    assert "viking://resources/one, viking://resources/two" in result.error["message"] and "--to" in result.error["hint"]
    assert store_state() == before


def test_to_an_import_of_another_source_is_refused(ov, ov_home, proj, tmp_path, store_state):
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\n")
    add(ov, str(other), "--to", "viking://resources/team/notes")
    before = store_state()
    result = ov("add-resource", str(proj), "--to", "viking://resources/team/notes", "--json")
    assert result.exit_code == 1 and f"(it was added from {other})" in result.error["message"]
    assert store_state() == before


@pytest.mark.parametrize(
    "option, target",
    [
        ("--to", "viking://~/memories/preferences/web"),
        ("--to", "viking://~/sessions/fake"),
        ("--to", "viking://agent/skills/x"),
        ("--to", "viking://~/skills/x"),
        ("--parent", "viking://~/memories"),
        ("--parent", "viking://~"),
    ],
)
def test_resources_go_only_where_resources_are(ov, ov_home, proj, store_state, option, target):
    assert ov("init").exit_code == 0
    before = store_state()
    result = ov("add-resource", str(proj), option, target, "--json")
    assert (result.exit_code, result.error["code"]) == (2, "invalid_input")
    assert "viking://resources/ or viking://~/resources/" in result.error["message"]
    assert store_state() == before
    assert add(ov, str(proj), "--to", "viking://~/resources/proj")["root"] == "viking://user/default/resources/proj"


# --- what a refresh may touch (#02 #09 #10) ---------------------------------------------


def test_an_edit_whose_source_did_not_change_is_kept_and_named(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("edit", f"{ROOT}/t.csv", "--old", "1,2", "--new", "1,3").exit_code == 0
    (proj / "b.md").write_text("# B\nbeta\n")
    result = ov("add-resource", str(proj))
    assert result.exit_code == 0 and "1 kept as you changed them" in result.stdout
    assert f"'{ROOT}/t.csv' was changed in the store since the last add, and its source did not change" in result.stdout
    assert ov("read", f"{ROOT}/t.csv").stdout == "name,val\n1,3\n"
    data = add(ov, str(proj))  # nothing more to do: no commit, the edit named again
    assert data["commit"] is None and [k["uri"] for k in data["kept"]] == [f"{ROOT}/t.csv"] and data["conflicts"] == []


def test_a_hand_edit_recorded_with_snapshot_commit_is_the_users_too(ov, ov_home, proj):
    add(ov, str(proj))
    (ov_home / "accounts/default/resources/proj/t.csv").write_text("name,val\n9,9\n")
    assert ov("snapshot", "commit", "-m", "my numbers").exit_code == 0
    (proj / "a.md").write_text("# A\nalpha, revised\n")
    data = add(ov, str(proj))
    assert data["updated"] == [f"{ROOT}/a.md"] and [k["uri"] for k in data["kept"]] == [f"{ROOT}/t.csv"]
    assert (ov_home / "accounts/default/resources/proj/t.csv").read_text() == "name,val\n9,9\n"


def test_an_edit_whose_source_changed_too_is_a_conflict_kept_and_said(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("edit", f"{ROOT}/a.md", "--old", "alpha", "--new", "ALPHA").exit_code == 0
    (proj / "a.md").write_text("# A\nalpha changed at the source\n")
    (proj / "t.csv").write_text("name,val\n5,6\n")
    result = ov("add-resource", str(proj))
    assert result.exit_code == 0  # as for a skipped file: the rest is committed
    assert f"warning: not updated: '{ROOT}/a.md' was changed in the store since the last add and at its source too" in result.stderr
    assert "1 updated" in result.stdout and "1 conflict," in result.stdout
    assert ov("read", f"{ROOT}/a.md").stdout == "# A\nALPHA\n" and ov("read", f"{ROOT}/t.csv").stdout == "name,val\n5,6\n"
    data = add(ov, str(proj))  # named again while the two differ
    assert [c["uri"] for c in data["conflicts"]] == [f"{ROOT}/a.md"] and data["commit"] is None
    # Removed, it is the source's again.
    assert ov("rm", f"{ROOT}/a.md").exit_code == 0
    data = add(ov, str(proj))
    assert data["added"] == [f"{ROOT}/a.md"] and data["conflicts"] == []
    assert ov("read", f"{ROOT}/a.md").stdout == "# A\nalpha changed at the source\n"


def test_a_file_the_user_wrote_is_never_written_over_by_a_new_source_file(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("write", f"{ROOT}/notes.md", "-c", "MY OWN NOTES").exit_code == 0
    (proj / "notes.md").write_text("# Notes from the source\n")
    data = add(ov, str(proj))
    assert ov("read", f"{ROOT}/notes.md").stdout == "MY OWN NOTES"
    (conflict,) = data["conflicts"]
    assert conflict["uri"] == f"{ROOT}/notes.md" and "a file you made in the import" in conflict["reason"]
    assert "notes.md" not in manifest(ov_home)["files"]  # still the user's: the next add says so again
    assert [c["uri"] for c in add(ov, str(proj))["conflicts"]] == [f"{ROOT}/notes.md"]
    (proj / "notes.md").unlink()
    (proj / "a.md").unlink()
    data = add(ov, str(proj))
    assert data["removed"] == [f"{ROOT}/a.md"] and ov("read", f"{ROOT}/notes.md").stdout == "MY OWN NOTES"


def test_a_changed_file_whose_source_is_gone_is_kept_and_becomes_the_users(ov, ov_home, proj):
    (proj / "b.md").write_text("# B\nbeta\n")
    add(ov, str(proj))
    assert ov("edit", f"{ROOT}/b.md", "--old", "beta", "--new", "BETA").exit_code == 0
    (proj / "b.md").unlink()
    (proj / "t.csv").unlink()
    data = add(ov, str(proj))
    assert data["removed"] == [f"{ROOT}/t.csv"] and [k["uri"] for k in data["kept"]] == [f"{ROOT}/b.md"]
    assert ov("read", f"{ROOT}/b.md").stdout == "# B\nBETA\n" and "b.md" not in manifest(ov_home)["files"]
    assert add(ov, str(proj))["kept"] == []  # yours now: nothing left to say


def test_a_folder_made_with_mkdir_description_survives_the_refresh(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("mkdir", f"{ROOT}/meeting-notes", "--description", "Notes from our weekly syncs").exit_code == 0
    (proj / "b.md").write_text("# B\nbeta\n")
    data = add(ov, str(proj))
    assert data["added"] == [f"{ROOT}/b.md"]
    assert ov("abstract", f"{ROOT}/meeting-notes").stdout.strip() == "Notes from our weekly syncs"


def test_every_file_of_an_add_records_the_blob_it_wrote(ov, ov_home, proj):
    from ov.store.gitstore import GitStore

    add(ov, str(proj))
    files = manifest(ov_home)["files"]
    assert manifest(ov_home)["version"] == 2
    for rel in ("a.md", "t.csv"):
        data = (ov_home / "accounts/default/resources/proj" / rel).read_bytes()
        assert files[rel]["blob"] == GitStore.blob_id(data).decode()
    stat = ov("stat", f"{ROOT}/a.md", "--json").json["result"]
    assert "blob" not in stat["source"] and stat["source"]["uri"] == str(proj / "a.md")


def test_an_import_an_older_ov_made_takes_what_its_last_add_wrote_from_the_history(ov, ov_home, proj):
    add(ov, str(proj))
    path = ov_home / "accounts/default/resources/proj/.sources.json"
    older = manifest(ov_home)
    older["version"] = 1
    for entry in older["files"].values():
        del entry["blob"]
    path.write_text(json.dumps(older, indent=2, sort_keys=True) + "\n")
    assert ov("snapshot", "commit", "-m", "as an older ov wrote it").exit_code == 0
    assert ov("edit", f"{ROOT}/t.csv", "--old", "1,2", "--new", "1,3").exit_code == 0
    (proj / "a.md").write_text("# A\nalpha, revised\n")
    data = add(ov, str(proj))
    assert data["updated"] == [f"{ROOT}/a.md"] and [k["uri"] for k in data["kept"]] == [f"{ROOT}/t.csv"]
    assert ov("read", f"{ROOT}/t.csv").stdout == "name,val\n1,3\n"
    assert all("blob" in entry for entry in manifest(ov_home)["files"].values())


def test_a_refresh_with_conflicts_is_one_commit(ov, ov_home, proj):
    add(ov, str(proj))
    assert ov("edit", f"{ROOT}/a.md", "--old", "alpha", "--new", "ALPHA").exit_code == 0
    before = len(commits(ov_home))
    (proj / "a.md").write_text("# A\nnew\n")
    (proj / "t.csv").write_text("name,val\n7,8\n")
    assert add(ov, str(proj))["commit"] is not None
    assert len(commits(ov_home)) == before + 1


# --- recorded options (#07) ---------------------------------------------------------------


def test_a_refresh_keeps_the_recorded_exclude_until_new_patterns_are_given(ov, ov_home, tmp_path):
    folder = tmp_path / "proj"
    (folder / "private").mkdir(parents=True)
    (folder / "docs").mkdir()
    (folder / "docs" / "a.md").write_text("# Doc\n")
    (folder / "private" / "creds.md").write_text("db passwords: see vault\n")
    (folder / "scratch.md").write_text("# Scratch\n")
    add(ov, str(folder), "--exclude", "private/**", "--reason", "team docs")
    (folder / "docs" / "b.md").write_text("# Doc 2\n")
    data = add(ov, str(folder))
    assert data["added"] == [f"{ROOT}/docs/b.md"]
    assert manifest(ov_home)["exclude"] == ["private/**"] and manifest(ov_home)["reason"] == "team docs"
    # New patterns replace the recorded ones; an empty one drops them.
    data = add(ov, str(folder), "--exclude", "scratch.md")
    assert data["added"] == [f"{ROOT}/private/creds.md"] and data["removed"] == [f"{ROOT}/scratch.md"]
    assert manifest(ov_home)["exclude"] == ["scratch.md"]
    data = add(ov, str(folder), "--exclude", "")
    assert data["added"] == [f"{ROOT}/scratch.md"] and manifest(ov_home)["exclude"] == []
