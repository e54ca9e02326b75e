"""ovpack: export/import and backup/restore round trips, and hostile packs that must change nothing."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from ov.cli import main as cli_main
from ov.cli import pack_cmd
from ov.ovpack import format as ovpack
from tests.conftest import git_state


@pytest.fixture(autouse=True)
def pack_commands(monkeypatch):
    """Registers export/import/backup/restore for this test only, until ov/cli/main.py does it."""
    app = cli_main.app
    if not any(c.name == "export" for c in app.registered_commands):
        monkeypatch.setattr(app, "registered_commands", list(app.registered_commands))
        pack_cmd.register(app)


@pytest.fixture
def project(ov):
    """A small resources tree, a memory and a session in the default account."""
    assert ov("mkdir", "viking://resources/proj", "--description", "The project handbook.").exit_code == 0
    assert ov("write", "viking://resources/proj/intro.md", "--content", "# Intro\nDeploy on Tuesdays with the blue pipeline.\n").exit_code == 0
    assert ov("write", "viking://resources/proj/docs/auth.md", "--content", "# Auth\nTokens rotate every 30 days. Ünïcode ✓\n").exit_code == 0
    assert ov("write", "viking://resources/proj/docs/.overview.md", "--content", "# Docs\n\nAuthentication notes.\n").exit_code == 0
    assert ov("write", "viking://resources/other.md", "--content", "Not in the pack.\n").exit_code == 0
    assert ov("remember", "I prefer tabs over spaces").exit_code == 0
    return "viking://resources/proj"


def _export(ov, tmp_path, uri="viking://resources/proj", name="proj.ovpack", *extra):
    dest = tmp_path / name
    result = ov("export", uri, str(dest), "--json", *extra)
    assert result.exit_code == 0, result.stderr
    return dest, result.json["result"]


def _subtree(state, prefix: str) -> dict[str, bytes]:
    return {p: d for p, d in state[1].items() if p.startswith(prefix + "/")}


# --- export ------------------------------------------------------------------------------


def test_export_writes_an_ovpack_v3(ov, project, tmp_path):
    dest, result = _export(ov, tmp_path)
    assert result["files"] == 4 and result["uri"] == project and result["vectors"] == 0
    with zipfile.ZipFile(dest) as zf:
        names = zf.namelist()
        assert {n.split("/")[0] for n in names} == {"proj"}
        assert all(i.compress_type == zipfile.ZIP_DEFLATED for i in zf.infolist() if not i.is_dir())
        manifest = json.loads(zf.read("proj/_ovpack/manifest.json"))
        records = zf.read("proj/_ovpack/index_records.jsonl").decode().splitlines()
        intro = zf.read("proj/files/intro.md")
    assert manifest["kind"] == "openviking.ovpack" and manifest["format_version"] == 3
    assert manifest["root"] == {"name": "proj", "uri": "viking://resources/proj", "scope": "resources"}
    files = {e["path"]: e for e in manifest["entries"] if e["kind"] == "file"}
    assert set(files) == {".abstract.md", "intro.md", "docs/auth.md", "docs/.overview.md"}
    assert {e["path"] for e in manifest["entries"] if e["kind"] == "directory"} == {"", "docs"}
    assert files["intro.md"]["sha256"] == hashlib.sha256(intro).hexdigest() and files["intro.md"]["size"] == len(intro)
    expected = json.dumps(
        sorted(({"path": p, "size": e["size"], "sha256": e["sha256"]} for p, e in files.items()), key=lambda e: e["path"]),
        ensure_ascii=False, sort_keys=True, separators=(",", ":"),
    )
    assert manifest["content_sha256"] == hashlib.sha256(expected.encode()).hexdigest()
    assert manifest["index"]["records"]["count"] == len(records) > 0
    first = json.loads(records[0])
    assert list(first) == sorted(first) and {"record_id", "path", "kind", "level", "text"} <= set(first)
    assert any(json.loads(r)["path"] == "intro.md" and json.loads(r)["level"] == 2 for r in records)
    assert "dense" not in manifest["index"]


def test_export_human_output_is_one_line(ov, project, tmp_path):
    out = ov("export", project, str(tmp_path / "p.ovpack")).stdout
    assert out.count("\n") == 1 and out.startswith("exported viking://resources/proj to ")


def test_export_reads_what_is_committed(ov, project, tmp_path, ov_home):
    (ov_home / "accounts" / "default" / "resources" / "proj" / "intro.md").write_text("hand edit\n")
    dest, _ = _export(ov, tmp_path)
    with zipfile.ZipFile(dest) as zf:
        assert zf.read("proj/files/intro.md").startswith(b"# Intro")


def test_a_pack_says_what_hand_edits_it_leaves_out(ov, project, tmp_path, ov_home):
    # (found by an audit: `ov backup` left a hand edit out without a word)
    root = ov_home / "accounts" / "default"
    (root / "resources" / "proj" / "intro.md").write_text("hand edit\n")
    (root / "resources" / "proj" / "added.md").write_text("made by hand\n")
    (root / "resources" / "other.md").write_text("outside the folder\n")
    exported = ov("export", project, str(tmp_path / "p.ovpack"))
    assert exported.exit_code == 0 and "warning: 2 files changed by hand and not committed are not in the pack" in exported.stderr
    assert ov("export", project, str(tmp_path / "p.ovpack"), "--json").json["result"]["uncommitted"] == 2
    backed = ov("backup", str(tmp_path / "b.ovpack"), "--json")
    assert backed.exit_code == 0 and backed.json["result"]["uncommitted"] == 3 and "`ov snapshot commit`" in backed.stderr
    assert ov("snapshot", "commit", "-m", "mine").exit_code == 0
    clean = ov("backup", str(tmp_path / "b.ovpack"))
    assert clean.exit_code == 0 and "warning" not in clean.stderr


def test_a_pack_larger_than_a_reader_takes_is_refused_before_it_is_written(ov, project, tmp_path, monkeypatch):
    # (found by an audit: `ov backup` of 1.1 GB said "backed up", and no restore would ever take it)
    from ov.ovpack import format as pack_format

    monkeypatch.setattr(pack_format, "MAX_TOTAL_BYTES", 100)
    for argv, where in ((["backup", str(tmp_path / "b.ovpack")], "the account's files"), (["export", project, str(tmp_path / "p.ovpack")], "the files below viking://resources/proj")):
        result = ov(*argv, "--json")
        assert result.exit_code == 1 and result.error["code"] == "too_large", result.stderr
        assert result.error["message"].startswith(f"{where} come to more than ") and "one by one" in result.error["hint"]
    assert not list(tmp_path.glob("*.ovpack"))


def test_a_backup_of_an_account_without_files_is_refused(ov, tmp_path):
    # (found by an audit: the pack it wrote was one `ov restore` refuses as holding no files)
    assert ov("init").exit_code == 0
    result = ov("backup", str(tmp_path / "b.ovpack"), "--json")
    assert result.exit_code == 1 and result.error["code"] == "not_found" and "nothing to back up" in result.error["message"]
    assert not (tmp_path / "b.ovpack").exists()


@pytest.mark.parametrize(
    "uri, code",
    [
        ("viking://", "invalid_input"),
        ("viking://session/s1", "invalid_input"),
        ("viking://resources/missing", "not_found"),
        ("viking://resources/proj/intro.md", "not_directory"),  # as `ov abstract FILE` (exit 1)
    ],
)
def test_export_refuses(ov, project, tmp_path, uri, code):
    result = ov("export", uri, str(tmp_path / "x.ovpack"), "--json")
    assert result.exit_code != 0 and result.error["code"] == code
    assert not (tmp_path / "x.ovpack").exists()


def test_export_refuses_a_file_inside_the_home_or_without_the_extension(ov, project, tmp_path, ov_home):
    inside = ov("export", project, str(ov_home / "accounts" / "p.ovpack"), "--json")
    assert inside.exit_code == 2 and "inside ov's home" in inside.error["message"]
    assert ov("export", project, str(tmp_path / "p.zip")).exit_code == 2


def test_export_with_vectors_needs_an_embedder(ov, project, tmp_path):
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0
    result = ov("export", project, str(tmp_path / "v.ovpack"), "--include-vectors", "--json")
    assert result.exit_code == 1 and result.error["code"] == "vectors_unavailable"
    # The way out is the default embedder, not the hashing one (for tests: it matches spellings).
    assert "`ov reindex --embedder builtin`" in result.error["hint"] and "hash" not in result.error["hint"]
    assert not (tmp_path / "v.ovpack").exists()


@pytest.mark.parametrize(
    ("uri", "said"),
    [
        ("viking://~/sessions", "viking://user/default/sessions is the user's sessions folder;"),
        ("viking://~/sessions/s1", "viking://user/default/sessions/s1 is a session;"),
        ("viking://~/sessions/s1/history", "viking://user/default/sessions/s1/history is inside a session;"),
    ],
)
def test_export_of_sessions_says_what_the_uri_is(ov, project, tmp_path, uri, said):
    assert ov("session", "add", "s1", "--text", "hello").exit_code == 0
    result = ov("export", uri, str(tmp_path / "s.ovpack"), "--json")
    assert result.exit_code == 2 and result.error["message"].startswith(said), result.error
    assert "sessions are not exported" in result.error["message"]


# --- import round trips ------------------------------------------------------------------


def test_export_import_into_another_account_is_byte_identical(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path)
    result = ov("import", str(dest), "viking://resources", "--account", "other", "--json")
    assert result.exit_code == 0, result.stderr
    payload = result.json["result"]
    assert payload["uri"] == project and payload["action"] == "imported" and payload["files"] == 4 and payload["commit"]
    source = _subtree(store_state(), "resources/proj")
    target = _subtree(store_state("other"), "resources/proj")
    assert source == target and len(source) == 4
    assert "resources/other.md" not in store_state("other")[1]
    log = ov("snapshot", "log", "--account", "other", "--json", "--limit", "1")
    assert log.exit_code == 0 and "import" in json.dumps(log.json["result"])


def test_import_goes_below_the_parent_and_retargets_sidecars(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path)
    result = ov("import", str(dest), "viking://resources/archive/2026", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["uri"] == "viking://resources/archive/2026/proj"
    files = store_state()[1]
    assert files["resources/archive/2026/proj/intro.md"] == files["resources/proj/intro.md"]
    assert "viking://resources/archive/2026/proj" in files["resources/archive/2026/proj/.abstract.md"].decode()
    assert ov("ls", "viking://resources/archive/2026/proj/docs").exit_code == 0


def test_import_human_output_is_one_line(ov, project, tmp_path):
    dest, _ = _export(ov, tmp_path)
    out = ov("import", str(dest), "viking://resources", "--account", "other").stdout
    assert out.count("\n") == 1 and out.startswith("imported viking://resources/proj (4 files")


def test_on_conflict_fail_skip_overwrite(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path)
    before = store_state()
    fail = ov("import", str(dest), "viking://resources", "--json")
    assert fail.exit_code == 1 and fail.error["code"] == "already_exists"
    assert store_state() == before
    skip = ov("import", str(dest), "viking://resources", "--on-conflict", "skip", "--json")
    assert skip.exit_code == 0 and skip.json["result"]["action"] == "skipped" and skip.json["result"]["commit"] is None
    assert store_state() == before
    # overwrite replaces the subtree: a file only the target has is gone afterwards
    assert ov("import", str(dest), "viking://resources", "--account", "other").exit_code == 0
    assert ov("write", "viking://resources/proj/extra.md", "--content", "x\n", "--account", "other").exit_code == 0
    assert ov("write", "viking://resources/proj/intro.md", "--content", "changed\n", "--account", "other").exit_code == 0
    over = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--account", "other", "--json")
    assert over.exit_code == 0 and over.json["result"]["action"] == "overwritten" and over.json["result"]["deleted"] == 1
    assert _subtree(store_state("other"), "resources/proj") == _subtree(store_state(), "resources/proj")
    # (an audit: the terminal line did not say it, and memories learned since the export went quietly)
    assert ov("write", "viking://resources/proj/extra.md", "--content", "x\n", "--account", "other").exit_code == 0
    told = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--account", "other").stdout
    assert told.startswith("overwritten viking://resources/proj (4 files, ") and "; deleted 1 file the pack does not hold; " in told
    # overwritten with what it already holds: nothing written, and said so
    again = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--account", "other", "--json").json["result"]
    assert (again["action"], again["files"], again["commit"], again["vectors"]) == ("unchanged", 0, None, "none")
    said = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--account", "other").stdout
    assert said == "unchanged: viking://resources/proj already holds what the pack holds (nothing written)\n"


def _whole_home(home: Path) -> dict[str, bytes]:
    """Every file of the home, the repository's and the state's included, by path."""
    return {p.relative_to(home).as_posix(): p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file()}


def test_import_dry_run_says_what_would_be_written_replaced_and_deleted_and_changes_nothing(ov, ov_home, project, tmp_path):
    """(an audit: `ov import --on-conflict overwrite` had no --dry-run, which `ov snapshot restore`
    has, and an overwrite deletes what only the target holds.) Every check made, nothing changed."""
    dest, _ = _export(ov, tmp_path)
    assert ov("write", "viking://resources/proj/extra.md", "--content", "x\n").exit_code == 0
    assert ov("write", "viking://resources/proj/intro.md", "--content", "changed\n").exit_code == 0
    assert ov("rm", "viking://resources/proj/docs/auth.md").exit_code == 0
    before = _whole_home(ov_home)
    planned = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--dry-run", "--json")
    assert planned.exit_code == 0, planned.stderr
    result = planned.json["result"]
    assert (result["dry_run"], result["action"], result["commit"]) == (True, "overwritten", None)
    assert result["written"] == ["viking://resources/proj/docs/auth.md"]
    assert result["replaced"] == ["viking://resources/proj/intro.md"]
    assert result["removed"] == ["viking://resources/proj/extra.md"] and result["deleted"] == 1
    # and in the shape `ov snapshot restore` and `diff` give
    assert result["changes"] == [
        {"uri": "viking://resources/proj/docs/auth.md", "change": "added"},
        {"uri": "viking://resources/proj/extra.md", "change": "deleted"},
        {"uri": "viking://resources/proj/intro.md", "change": "modified"},
    ]
    human = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--dry-run").stdout
    assert "would replace viking://resources/proj/intro.md\n" in human and "would delete viking://resources/proj/extra.md\n" in human
    # what the import itself would refuse, the dry run refuses too
    refused = ov("import", str(dest), "viking://resources", "--dry-run", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "already_exists"
    (ov_home / "accounts/default/resources/proj/intro.md").write_text("edited by hand\n")
    edited = _whole_home(ov_home)
    assert ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--dry-run").exit_code == 1
    assert _whole_home(ov_home) == edited
    (ov_home / "accounts/default/resources/proj/intro.md").write_text("changed\n")
    assert _whole_home(ov_home) == before
    # and the import does what the dry run said
    done = ov("import", str(dest), "viking://resources", "--on-conflict", "overwrite", "--json").json["result"]
    assert (done["action"], done["deleted"]) == ("overwritten", 1) and "written" not in done
    # counted as the import counts them (the pack's files, unchanged ones too), not only the changed
    assert (done["files"], done["bytes"], done["vectors"]) == (result["files"], result["bytes"], result["vectors"])
    assert ov("read", "viking://resources/proj/intro.md").stdout.startswith("# Intro")


def test_memories_pack_imports_under_the_users_memories(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path, "viking://~/memories", "mem.ovpack")
    result = ov("import", str(dest), "viking://~", "--account", "other", "--user", "bob", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["uri"] == "viking://user/bob/memories"
    mine = {p.split("/", 2)[2]: d for p, d in _subtree(store_state(), "user/default/memories").items()}
    theirs = {p.split("/", 2)[2]: d for p, d in _subtree(store_state("other"), "user/bob/memories").items()}
    # preferences are filed under the user they are about: default's become bob's
    moved = {p.replace("memories/preferences/default/", "memories/preferences/bob/"): d for p, d in mine.items()}
    assert set(theirs) == set(moved) and "memories/preferences/bob/tabs.md" in theirs
    for path, data in theirs.items():
        if path.endswith("/tabs.md"):
            assert b'"subject": "bob"' in data and data.replace(b'"subject": "bob"', b'"subject": "default"') == moved[path]
        else:
            assert data == moved[path] or path.endswith((".abstract.md", ".overview.md")), path
    # and bob's own "I prefer spaces" then corrects the preference he brought
    assert ov("remember", "I prefer spaces over tabs", "--account", "other", "--user", "bob").exit_code == 0
    assert store_state("other")[1]["user/bob/memories/preferences/bob/tabs.md"].startswith(b"- No longer prefers tabs")
    # the same pack cannot land at another depth, or in another user's tree
    deeper = ov("import", str(dest), "viking://~/resources", "--account", "other", "--user", "bob", "--json")
    assert deeper.exit_code == 2
    foreign = ov("import", str(dest), "viking://user/carol", "--account", "other", "--user", "bob", "--json")
    assert foreign.exit_code == 2


def test_a_pack_of_a_users_own_preferences_folder_moves_to_the_importing_user(ov, project, tmp_path, store_state):
    """(an audit: a pack of viking://~/memories/preferences/alice stayed at preferences/alice with
    subject alice in bob's tree; a pack of the memories above it moved.)"""
    dest, _ = _export(ov, tmp_path, "viking://~/memories/preferences/default", "prefs.ovpack")
    result = ov("import", str(dest), "viking://~/memories/preferences", "--account", "other", "--user", "bob", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json["result"]["uri"] == "viking://user/bob/memories/preferences/bob"
    theirs = _subtree(store_state("other"), "user/bob/memories/preferences")
    assert "user/bob/memories/preferences/bob/tabs.md" in theirs and not any("/preferences/default/" in p for p in theirs)
    assert b'"subject": "bob"' in theirs["user/bob/memories/preferences/bob/tabs.md"]
    assert ov("remember", "I prefer spaces over tabs", "--account", "other", "--user", "bob").exit_code == 0
    assert store_state("other")[1]["user/bob/memories/preferences/bob/tabs.md"].startswith(b"- No longer prefers tabs")
    # into the same user's tree it lands where it was made
    again = ov("import", str(dest), "viking://~/memories/preferences", "--account", "third", "--json")
    assert again.json["result"]["uri"] == "viking://user/default/memories/preferences/default"


def test_vectors_are_packed_and_a_matching_pack_is_recomputed_not_reported_reused(ov, project, tmp_path, store_state):
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    dest, result = _export(ov, tmp_path, "viking://resources/proj", "v.ovpack", "--include-vectors")
    with zipfile.ZipFile(dest) as zf:
        manifest = json.loads(zf.read("proj/_ovpack/manifest.json"))
        dense = zf.read("proj/_ovpack/dense.f32")
        records = zf.read("proj/_ovpack/index_records.jsonl").decode().splitlines()
    info = manifest["index"]["dense"]
    assert info["embedding"] == {"provider": "hash", "model": "hash-v1", "dimension": 256}
    assert info["count"] == len(records) == result["vectors"] and len(dense) == len(records) * 256 * 4
    assert info["dtype"] == "float32" and info["byte_order"] == "little"
    assert json.loads(records[1])["vector"]["dense"] == {"offset": 256, "dimensions": 256}
    # The index embeds every passage again from the commit, so a matching pack says so, not "reused".
    matching = ov("import", str(dest), "viking://resources", "--account", "other", "--vector-mode", "require", "--json")
    assert matching.exit_code == 0 and matching.json["result"]["vectors"] == "recomputed"
    found = ov("find", "blue pipeline", "--account", "other", "--json").json["result"]
    assert "viking://resources/proj/intro.md" in json.dumps(found)
    recomputed = ov("import", str(dest), "viking://resources", "--account", "third", "--vector-mode", "recompute", "--json")
    assert recomputed.json["result"]["vectors"] == "recomputed"


def test_vector_mode_require_refuses_without_matching_vectors(ov, project, tmp_path, store_state):
    plain_pack, _ = _export(ov, tmp_path)
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    before = store_state("other")
    missing = ov("import", str(plain_pack), "viking://resources", "--account", "other", "--vector-mode", "require", "--json")
    assert missing.exit_code == 1 and missing.error["code"] == "vectors_unavailable"
    with_vectors, _ = _export(ov, tmp_path, "viking://resources/proj", "v.ovpack", "--include-vectors")
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0
    other = ov("import", str(with_vectors), "viking://resources", "--account", "other", "--vector-mode", "require", "--json")
    assert other.exit_code == 1 and other.error["code"] == "vectors_unavailable"
    assert store_state("other") == before
    auto = ov("import", str(with_vectors), "viking://resources", "--account", "other", "--json")
    assert auto.exit_code == 0 and auto.json["result"]["vectors"] == "none"


# --- backup and restore --------------------------------------------------------------------


def _find_uris(ov, query):
    result = ov("find", query, "--json", "--limit", "20")
    assert result.exit_code == 0, result.stderr
    payload = result.json["result"]
    return [(h["uri"], h.get("level")) for bucket in ("memories", "resources", "skills") for h in payload.get(bucket, [])]


def test_backup_restore_into_an_empty_home(ov, project, tmp_path, monkeypatch, ov_home):
    assert ov("session", "add", "s1", "--text", "hello there, the deploy is on Tuesday").exit_code == 0
    dest = tmp_path / "all.ovpack"
    result = ov("backup", str(dest), "--json")
    assert result.exit_code == 0, result.stderr
    with zipfile.ZipFile(dest) as zf:
        manifest = json.loads(zf.read("ov-backup/_ovpack/manifest.json"))
    assert manifest["root"]["scope"] == "root" and manifest["root"]["package_type"] == "backup"
    assert "resources" in manifest["scopes"] and "user" in manifest["scopes"]
    source = git_state(ov_home)[1]
    assert any("/sessions/s1/" in p for p in source)
    queries = ("blue pipeline", "tabs", "tokens rotate")
    found = {q: _find_uris(ov, q) for q in queries}
    assert any(found.values())
    second = tmp_path / "second-home"
    monkeypatch.setenv("OV_HOME", str(second))
    restored = ov("restore", str(dest), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert restored.json["result"]["files"] == len(source)
    assert git_state(second)[1] == source
    assert {q: _find_uris(ov, q) for q in queries} == found


def test_restore_conflicts_and_merge_upsert(ov, project, tmp_path, store_state):
    dest = tmp_path / "all.ovpack"
    assert ov("backup", str(dest)).exit_code == 0
    same = ov("restore", str(dest), "--json")  # everything already there, identical: nothing to do
    assert same.exit_code == 0 and same.json["result"]["commit"] is None
    # (an audit: it said "restored", vectors "recomputed"; an import that changes nothing says this)
    assert (same.json["result"]["action"], same.json["result"]["files"], same.json["result"]["vectors"]) == ("unchanged", 0, "none")
    assert ov("restore", str(dest)).stdout.startswith("unchanged: nothing to restore (")
    assert ov("write", "viking://resources/proj/intro.md", "--content", "changed\n").exit_code == 0
    assert ov("write", "viking://resources/only-here.md", "--content", "mine\n").exit_code == 0
    before = store_state()
    fail = ov("restore", str(dest), "--json")
    assert fail.exit_code == 1 and fail.error["code"] == "already_exists" and store_state() == before
    skip = ov("restore", str(dest), "--on-conflict", "skip", "--json")
    assert skip.exit_code == 0 and store_state() == before and skip.json["result"]["action"] == "unchanged"
    over = ov("restore", str(dest), "--on-conflict", "overwrite", "--json")
    assert over.exit_code == 0 and over.json["result"]["files"] == 1
    files = store_state()[1]
    assert files["resources/proj/intro.md"].startswith(b"# Intro") and files["resources/only-here.md"] == b"mine\n"


def test_restore_dry_run_says_what_would_be_written_and_replaced_and_changes_nothing(ov, ov_home, project, tmp_path, monkeypatch):
    """(an audit: `ov import` got --dry-run, `ov restore` had none.) Every check made, nothing changed."""
    dest = tmp_path / "all.ovpack"
    assert ov("backup", str(dest)).exit_code == 0
    assert ov("write", "viking://resources/proj/intro.md", "--content", "changed\n").exit_code == 0
    assert ov("rm", "viking://resources/proj/docs/auth.md").exit_code == 0
    before = _whole_home(ov_home)
    planned = ov("restore", str(dest), "--on-conflict", "overwrite", "--dry-run", "--json")
    assert planned.exit_code == 0, planned.stderr
    result = planned.json["result"]
    assert (result["dry_run"], result["action"], result["commit"], result["files"]) == (True, "restored", None, 2)
    assert result["written"] == ["viking://resources/proj/docs/auth.md"] and result["replaced"] == ["viking://resources/proj/intro.md"]
    assert result["removed"] == [] and _whole_home(ov_home) == before
    assert result["changes"] == [{"uri": "viking://resources/proj/docs/auth.md", "change": "added"}, {"uri": "viking://resources/proj/intro.md", "change": "modified"}]
    human = ov("restore", str(dest), "--on-conflict", "overwrite", "--dry-run").stdout
    assert "would write viking://resources/proj/docs/auth.md\n" in human and "would replace viking://resources/proj/intro.md\n" in human
    assert "nothing changed: --dry-run" in human
    skipping = ov("restore", str(dest), "--on-conflict", "skip", "--dry-run", "--json").json["result"]
    assert skipping["written"] == ["viking://resources/proj/docs/auth.md"] and skipping["replaced"] == []
    # what the restore itself would refuse, the dry run refuses too
    refused = ov("restore", str(dest), "--dry-run", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "already_exists"
    (ov_home / "accounts/default/resources/proj/intro.md").write_text("edited by hand\n")
    assert ov("restore", str(dest), "--on-conflict", "overwrite", "--dry-run").exit_code == 1
    (ov_home / "accounts/default/resources/proj/intro.md").write_text("changed\n")
    assert _whole_home(ov_home) == before
    # and the restore does what the dry run said
    done = ov("restore", str(dest), "--on-conflict", "overwrite", "--json").json["result"]
    assert (done["action"], done["files"]) == ("restored", 2) and "written" not in done
    # into an empty home: everything would be written, and no account is made
    second = tmp_path / "second-home"
    monkeypatch.setenv("OV_HOME", str(second))
    fresh = ov("restore", str(dest), "--dry-run", "--json")
    assert fresh.exit_code == 0, fresh.stderr
    assert fresh.json["result"]["replaced"] == [] and len(fresh.json["result"]["written"]) == fresh.json["result"]["files"] > 0
    assert not (second / "accounts" / "default").exists()


def test_backup_and_subtree_packs_are_not_interchangeable(ov, project, tmp_path, store_state):
    sub, _ = _export(ov, tmp_path)
    full = tmp_path / "all.ovpack"
    assert ov("backup", str(full)).exit_code == 0
    before = store_state()
    assert ov("restore", str(sub)).exit_code == 2
    assert ov("import", str(full), "viking://resources").exit_code == 2
    assert store_state() == before


def test_writing_and_reading_packs_say_how_far_along_they_are(ov, project, tmp_path):
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.ovpack import transfer
    from ov.store.store import Store
    from ov.uri import parse

    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    told: dict[str, list] = {}

    def progress(stage: str, done: int, total: int | None) -> None:
        told.setdefault(stage, []).append((done, total))

    backed = transfer.backup(store, tmp_path / "all.ovpack", progress=progress)
    n = backed.files
    # Reading a file and making its index records are one step, told as one stage.
    assert list(told) == ["reading files", "writing the pack"]
    for stage in told:
        assert told[stage] == [(done, n) for done in range(n + 1)], stage
    told.clear()
    restored = transfer.restore(store, tmp_path / "all.ovpack", progress=progress)
    assert restored.kept == n and restored.commit is None
    assert told["reading the pack"][-1] == (n, n) and told["writing files"] == [(0, 0)]  # all there already
    told.clear()
    exported = transfer.export(store, parse(project), tmp_path / "proj.ovpack", progress=progress)
    assert told["writing the pack"][-1] == (exported.files, exported.files) < (n, n)
    told.clear()
    imported = transfer.import_pack(store, tmp_path / "proj.ovpack", parse("viking://resources/copy"), progress=progress)
    assert imported.files == exported.files and imported.commit
    assert told["reading the pack"][-1] == told["writing files"][-1] == (exported.files, exported.files)
    # The commit that ends it writes the files to the work tree, each told (a summary above comes too).
    assert list(told)[-1] == "committing" and told["committing"][0][0] == 0
    assert told["committing"][-1][0] == told["committing"][-1][1] >= exported.files
    told.clear()
    (store.root / "resources/proj/intro.md").unlink()
    assert store.snapshot_commit("gone").commit
    again = transfer.restore(store, tmp_path / "all.ovpack", progress=progress)
    assert again.files == 1 and told["committing"][-1] == (1, 1)


def _peak_bytes(fn) -> int:
    """The most memory Python held at once while ``fn`` ran (tracemalloc, above what it held before)."""
    import tracemalloc

    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def test_a_backup_and_its_restore_do_not_hold_the_whole_store_in_memory(ov, tmp_path, monkeypatch):
    """(found by an audit: a backup's peak memory was 4-5 times the store's content, and its
    restore's as much: 1.1 GB of files took 4.8 GB to back up.) A backup reads one file at a
    time and keeps its index records on disk; a restore checks the records a piece at a time."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.ovpack import transfer
    from ov.store.store import Store

    assert ov("init").exit_code == 0
    store = Store(Home.from_env(), Identity(), load_config(Home.from_env()).config)
    line = "the deploy runs on tuesdays with the blue pipeline, and the tokens rotate monthly"
    files = {f"viking://resources/big/d{i % 4}/f{i:03d}.md": "".join(f"{line} ({i}, {n}).\n" for n in range(1200)).encode() for i in range(40)}
    with store.transaction() as tx:
        for uri, data in files.items():
            tx.put(store.uri(uri), data)
        tx.commit("seed", [store.uri("viking://resources/big")])
    content = sum(len(d) for d in files.values())  # ~4 MB, ~100 KB a file
    packs = tmp_path / "packs"
    packs.mkdir()
    transfer.backup(store, packs / "warm.ovpack")  # imports and caches, not measured
    backup_peak = _peak_bytes(lambda: transfer.backup(store, packs / "all.ovpack"))
    assert backup_peak < content / 2, (backup_peak, content)
    assert sorted(p.name for p in packs.iterdir()) == ["all.ovpack", "warm.ovpack"]  # the records' temporary file is gone
    pack = packs / "all.ovpack"
    with zipfile.ZipFile(pack) as zf:
        records = zf.getinfo("ov-backup/_ovpack/index_records.jsonl").file_size
    assert records > content  # the records repeat the text: held whole, they alone would pass the limit
    ovpack.read_pack(pack, 10**6)  # imports, not measured
    read_peak = _peak_bytes(lambda: ovpack.read_pack(pack, 10**6))
    assert read_peak < 1.5 * content, (read_peak, content)  # the files themselves, and no copy of the records
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    restored = ov("restore", str(pack), "--json")
    assert restored.exit_code == 0 and restored.json["result"]["files"] == len(files), restored.stderr
    assert all(ov("read", uri).stdout.encode() == data for uri, data in list(files.items())[::13])


def test_vectors_made_in_several_batches_are_the_vectors_made_in_one(ov, project, tmp_path, monkeypatch):
    """A pack's vectors are made a batch at a time while its records are read: the offsets the
    records give run on across batches, and the bytes are those of a single batch."""
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    one, _ = _export(ov, tmp_path, "viking://resources/proj", "one.ovpack", "--include-vectors")
    monkeypatch.setattr("ov.index.vector_writes.EMBED_BATCH", 2)
    batched, result = _export(ov, tmp_path, "viking://resources/proj", "batched.ovpack", "--include-vectors")
    assert result["vectors"] > 2  # more than one batch
    with zipfile.ZipFile(one) as a, zipfile.ZipFile(batched) as b:
        assert a.read("proj/_ovpack/dense.f32") == b.read("proj/_ovpack/dense.f32")
        assert a.read("proj/_ovpack/index_records.jsonl") == b.read("proj/_ovpack/index_records.jsonl")
        lines = b.read("proj/_ovpack/index_records.jsonl").decode().splitlines()
    assert [json.loads(r)["vector"]["dense"]["offset"] for r in lines] == [n * 256 for n in range(len(lines))]


# --- hostile packs -------------------------------------------------------------------------


def _entries(files: dict[str, bytes]) -> list[dict]:
    dirs = sorted({"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)})
    out = [{"path": "", "kind": "directory"}] + [{"path": d, "kind": "directory"} for d in dirs]
    out += [{"path": p, "kind": "file", "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for p, d in files.items()]
    return out


def build_pack(path: Path, *, root="evil", files=None, mutate=None, extra=(), skip=(), manifest=True, raw=None, records=b"") -> Path:
    """A pack written with zipfile directly; ``mutate`` edits the manifest, ``extra`` adds (ZipInfo|name, data)."""
    files = {"a.md": b"# A\nhello\n", "sub/b.md": b"# B\n"} if files is None else files
    entries = _entries(files)
    file_entries = [e for e in entries if e["kind"] == "file"]
    data = {
        "kind": "openviking.ovpack",
        "format_version": 3,
        "root": {"name": root, "uri": f"viking://resources/{root}", "scope": "resources"},
        "entries": entries,
        "content_sha256": ovpack.content_sha256(file_entries),
        "index": {"records": {"path": "_ovpack/index_records.jsonl", "count": records.count(b"\n"), "sha256": hashlib.sha256(records).hexdigest()}},
    }
    if mutate:
        mutate(data)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, content in (raw if raw is not None else files).items():
            if rel not in skip:
                zf.writestr(f"{root}/files/{rel}", content)
        if manifest:
            zf.writestr(f"{root}/_ovpack/manifest.json", json.dumps(data))
        zf.writestr(f"{root}/_ovpack/index_records.jsonl", records)
        for member, content in extra:
            zf.writestr(member, content)
    return path


def _symlink_member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info


def _set(path, value):
    def mutate(m):
        target = m
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _bad_file_entry(field, value):
    def mutate(m):
        for e in m["entries"]:
            if e["path"] == "a.md":
                e[field] = value
        m["content_sha256"] = ovpack.content_sha256([e for e in m["entries"] if e["kind"] == "file"])

    return mutate


HOSTILE = {
    "absolute path": dict(extra=[("/etc/evil.md", b"x")], expect="absolute"),
    "dot-dot": dict(extra=[("evil/files/../../escape.md", b"x")], expect="'..'"),
    "backslash": dict(extra=[("evil/files/sub\\c.md", b"x")], expect="backslash"),
    "drive letter": dict(extra=[("C:/evil/files/x.md", b"x")], expect="drive letter"),
    "drive letter inside": dict(extra=[("evil/files/C:x.md", b"x")], expect="drive letter"),
    "symlink member": dict(extra=[(_symlink_member("evil/files/link.md"), b"/etc/passwd")], expect="symbolic link"),
    "two roots": dict(extra=[("second/files/x.md", b"x")], expect="one root"),
    "missing manifest": dict(manifest=False, expect="manifest.json"),
    "wrong kind": dict(mutate=_set(["kind"], "something.else"), expect="kind"),
    "future version": dict(mutate=_set(["format_version"], 4), expect="format_version 4"),
    "old version": dict(mutate=_set(["format_version"], 2), expect="format_version 2"),
    "version as a float": dict(mutate=_set(["format_version"], 3.0), expect="format_version 3.0"),
    "no files": dict(files={}, expect="holds no files"),
    "root name mismatch": dict(mutate=_set(["root", "name"], "other"), expect="root"),
    "entry missing from manifest": dict(extra=[("evil/files/c.md", b"x")], expect="not in the manifest"),
    "entry missing from zip": dict(skip=("sub/b.md",), expect="missing from the ZIP"),
    "wrong sha256": dict(raw={"a.md": b"# A\nHELLO\n", "sub/b.md": b"# B\n"}, expect="sha256"),
    "wrong size": dict(mutate=_bad_file_entry("size", 3), expect="bytes"),
    "content_sha256 mismatch": dict(mutate=_set(["content_sha256"], "0" * 64), expect="content_sha256"),
    "declared size over the cap": dict(mutate=_bad_file_entry("size", 10**12), expect="limit"),
    "unexpected member": dict(extra=[("evil/notes.txt", b"x")], expect="unexpected member"),
    "unstorable name": dict(files={".git/config": b"x"}, expect="cannot store"),
    "git spelling": dict(files={".GIT./config": b"x"}, expect="cannot store"),
    "gitmodules": dict(files={".gitmodules": b'[submodule "../x"]\n\tpath = x\n'}, expect="cannot store"),
    # (found as a bug: imported, while `ov write` refuses them; `ov abstract` then printed the NUL)
    "binary abstract": dict(files={"a.md": b"# A\n", ".abstract.md": b"L0 \x00\x01"}, expect="not UTF-8 text"),
    "latin-1 overview": dict(files={"sub/.overview.md": "caf\xe9".encode("latin-1")}, expect="not UTF-8 text"),
    # (an audit: a memory or any other file was imported, and the hooks injected U+FFFD)
    "latin-1 file": dict(files={"a.md": "- Prefers caf\xe9".encode("latin-1")}, expect="'a.md' is not UTF-8 text"),
    # (found as a bug: "internal error: OSError: [Errno 36] File name too long")
    "path over PATH_MAX": dict(files={"/".join(["y" * 250] * 17): b"x"}, expect="bytes long"),
    "2,100 levels": dict(files={"/".join(["d"] * 2100): b"x"}, expect="bytes long"),
    "records hash": dict(mutate=_set(["index", "records", "sha256"], "0" * 64), expect="index_records"),
    # (found as a bug: "internal error: AssertionError" from dulwich)
    "a file and a folder": dict(files={"a": b"file", "a/b": b"child"}, mutate=lambda m: m.update(entries=[e for e in m["entries"] if e != {"path": "a", "kind": "directory"}]),
                                expect="both as a file and as a folder"),
}


@pytest.mark.parametrize("case", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_packs_change_nothing(ov, project, tmp_path, store_state, case):
    spec = dict(HOSTILE[case])
    expect = spec.pop("expect")
    pack = build_pack(tmp_path / "evil.ovpack", **spec)
    before = store_state()
    result = ov("import", str(pack), "viking://resources", "--json")
    assert result.exit_code == 2, result.stderr
    assert expect in result.error["message"], result.error
    assert len(result.error["message"]) < 1000
    assert store_state() == before
    assert not (tmp_path.parent / "escape.md").exists()
    assert ov("import", str(pack), "viking://resources").stderr.startswith("error: ")


def test_the_manifest_names_the_ov_that_wrote_it_and_readers_skip_what_they_do_not_know(ov, project, tmp_path):
    import ov as ov_package

    dest, _ = _export(ov, tmp_path)
    with zipfile.ZipFile(dest) as zf:
        manifest = json.loads(zf.read("proj/_ovpack/manifest.json"))
    assert manifest["created_by"] == "ov" and manifest["ov_version"] == ov_package.__version__
    # A field a newer ov adds is skipped, as every ov reader skipped ov_version before it was written.
    pack = build_pack(tmp_path / "newer.ovpack", mutate=lambda m: m.update(ov_version="9.9.9", made_with={"a": 1}))
    assert ov("import", str(pack), "viking://resources").exit_code == 0
    newer = build_pack(tmp_path / "newest.ovpack", root="newest", mutate=lambda m: m.update(format_version=4, ov_version="9.9.9"))
    refused = ov("import", str(newer), "viking://resources", "--json")
    assert refused.exit_code == 2 and "made by a newer version (ov '9.9.9')" in refused.error["hint"]


def test_a_well_formed_hand_built_pack_imports(ov, project, tmp_path, store_state):
    pack = build_pack(tmp_path / "good.ovpack")
    result = ov("import", str(pack), "viking://resources", "--json")
    assert result.exit_code == 0, result.stderr
    assert store_state()[1]["resources/evil/sub/b.md"] == b"# B\n"


def test_summaries_over_their_layers_limit_are_shortened_on_import_and_restore(ov, project, tmp_path, store_state):
    """A hand-made pack (or OpenViking configured past its limits) held an abstract of 5,000
    characters, which ov stored and injected at that size."""
    from ov.store import sidecar

    long_abstract = "---\ndirectory: viking://resources/evil\n---\n\n" + "An abstract far too long. " * 200 + "\n"
    files = {"a.md": b"# A\nhello\n", ".abstract.md": long_abstract.encode(), "sub/.overview.md": ("# sub\n\n" + "word " * 2000).encode(), "sub/.abstract.md": b"Short.\n"}
    pack = build_pack(tmp_path / "long.ovpack", files=files)
    result = ov("import", str(pack), "viking://resources")
    assert result.exit_code == 0 and "2 summaries shortened to the layer's limit" in result.stderr, result.stderr
    stored = store_state()[1]
    meta, abstract = sidecar.parse(stored["resources/evil/.abstract.md"].decode())
    assert meta["directory"] == "viking://resources/evil" and abstract.endswith("too long.") and len(abstract) <= 256
    _, overview = sidecar.parse(stored["resources/evil/sub/.overview.md"].decode())
    assert overview.startswith("# sub") and overview.endswith("...") and len(overview) <= 4000
    assert stored["resources/evil/sub/.abstract.md"] == b"Short.\n"  # within its limit: as it came

    def as_backup(m):
        m["root"] = {"name": "ov-backup", "uri": "viking://", "scope": "root", "package_type": "backup"}

    backup = build_pack(tmp_path / "backup.ovpack", root="ov-backup", files={"resources/kept/.abstract.md": long_abstract.encode(), "resources/kept/a.md": b"a\n"}, mutate=as_backup)
    restored = ov("restore", str(backup), "--json").json["result"]
    assert restored["shortened"] == 1 and len(sidecar.parse(store_state()[1]["resources/kept/.abstract.md"].decode())[1]) <= 256
    again = ov("restore", str(backup), "--json").json["result"]
    assert again["kept"] == 2 and again["shortened"] == 0  # the shortened text is what it compares with; nothing written

    # A store that holds a summary over its limit (hand-committed) matches its own backup.
    long_overview = "# Notes\n\n" + "word " * 2000 + "\n"
    assert ov("write", "viking://resources/notes/a.md", "--content", "a\n").exit_code == 0
    own = tmp_path / "own.ovpack"
    store_root = Path(os.environ["OV_HOME"]) / "accounts" / "default"
    (store_root / "resources" / "notes" / ".overview.md").write_text(long_overview)
    assert ov("snapshot", "commit", "-m", "a long overview by hand").exit_code == 0
    assert ov("backup", str(own)).exit_code == 0
    restored = ov("restore", str(own), "--json")
    assert restored.exit_code == 0 and restored.json["result"]["files"] == 0 and restored.json["result"]["shortened"] == 0, restored.json


def test_an_import_names_files_in_nfc_and_refuses_one_name_in_two_forms(ov, project, tmp_path, store_state):
    """A pack made on macOS names café.md decomposed; kept so, it sat beside a composed café.md
    that reads the same, and `ov read` of what the user typed missed it."""
    nfd, nfc = "cafe\u0301.md", "caf\u00e9.md"
    pack = build_pack(tmp_path / "mac.ovpack", root="menu", files={nfd: b"# Cafe\n"})
    assert ov("import", str(pack), "viking://resources").exit_code == 0
    assert store_state()[1][f"resources/menu/{nfc}"] == b"# Cafe\n"
    assert ov("read", f"viking://resources/menu/{nfc}").stdout.strip() == "# Cafe"
    both = build_pack(tmp_path / "both.ovpack", root="menu2", files={nfd: b"a\n", nfc: b"b\n"})
    before = store_state()
    refused = ov("import", str(both), "viking://resources", "--json")
    assert refused.exit_code == 2 and "one name in two Unicode forms" in refused.error["message"]
    assert store_state() == before
    # (an audit: `ov restore` wrote both, `ov ls` listed café.md twice, and one was unreachable)

    def whole(m):
        m["root"] = {"name": "ov-backup", "uri": "viking://", "scope": "root", "package_type": "backup"}

    twins = build_pack(tmp_path / "twins.ovpack", root="ov-backup", files={f"resources/u/{nfc}": b"a\n", f"resources/u/{nfd}": b"b\n"}, mutate=whole)
    refused = ov("restore", str(twins), "--json")
    assert refused.exit_code == 2 and "one name in two Unicode forms" in refused.error["message"]
    assert store_state() == before


def test_a_member_is_never_read_past_its_declared_size(tmp_path):
    # A ZIP whose member inflates to more than the size it declares (a zip bomb's shape) is
    # refused after reading one byte more than declared, never inflated in full.
    big = build_pack(tmp_path / "big.ovpack", files={"a.md": b"x" * 100}, raw={"a.md": b"x" * 5_000_000})
    with pytest.raises(ovpack.InvalidPack, match="the ZIP says 5000000"):
        ovpack.read_pack(big, max_file_bytes=10_000_000)
    with zipfile.ZipFile(big) as zf:
        with pytest.raises(ovpack.InvalidPack, match="more than its declared 100 bytes"):
            ovpack._read_member(zf, zf.getinfo("evil/files/a.md"), 100)


@pytest.mark.parametrize("kind", ["truncated", "not a zip", "empty zip", "missing file", "a directory"])
def test_broken_files_change_nothing(ov, project, tmp_path, store_state, kind):
    good, _ = _export(ov, tmp_path)
    target = tmp_path / "broken.ovpack"
    if kind == "truncated":
        target.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif kind == "not a zip":
        target.write_text("just some text\n")
    elif kind == "empty zip":
        zipfile.ZipFile(target, "w").close()
    elif kind == "a directory":
        target.mkdir()
    before = store_state()
    result = ov("import", str(target), "viking://resources", "--account", "default", "--json")
    assert result.exit_code == 2, result.stderr  # a missing local file is bad input too
    assert result.error["message"]
    assert store_state() == before


def test_corrupt_member_data_is_refused(ov, project, tmp_path, store_state):
    good, _ = _export(ov, tmp_path)
    data = bytearray(good.read_bytes())
    with zipfile.ZipFile(good) as zf:
        info = zf.getinfo("proj/files/intro.md")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for i in range(start, start + min(info.compress_size, 8)):
        data[i] ^= 0xFF
    bad = tmp_path / "corrupt.ovpack"
    bad.write_bytes(bytes(data))
    before = store_state("other")
    result = ov("import", str(bad), "viking://resources", "--account", "other", "--json")
    assert result.exit_code == 2 and store_state("other") == before


def test_scope_mismatch_is_refused(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path)
    before = store_state()
    result = ov("import", str(dest), "viking://~/resources", "--json")
    assert result.exit_code == 2 and "viking://resources" in result.error["message"]
    assert ov("import", str(dest), "viking://agent/x").exit_code == 2
    assert ov("import", str(dest), "viking://session/s1").exit_code == 2
    assert store_state() == before


def test_a_pack_is_not_imported_into_the_sessions_folder(ov, project, tmp_path, store_state):
    dest, _ = _export(ov, tmp_path, "viking://~/memories", "m.ovpack")
    before = store_state()
    result = ov("import", str(dest), "viking://~/sessions", "--json")
    assert result.exit_code == 2, result.stderr
    assert result.error["message"] == "viking://user/default/sessions is the user's sessions folder; packs are not imported into sessions"
    assert store_state() == before


def test_export_to_an_unwritable_place_is_a_clear_error(ov, project, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        result = ov("export", project, str(locked / "p.ovpack"), "--json")
    finally:
        locked.chmod(0o700)
    if result.exit_code == 0:
        pytest.skip("running as root: the directory is writable anyway")
    assert result.exit_code == 1 and "cannot write" in result.error["message"]
    assert list(locked.iterdir()) == []


def test_bad_option_values_are_usage_errors(ov, project, tmp_path):
    dest, _ = _export(ov, tmp_path)
    assert ov("import", str(dest), "viking://resources", "--on-conflict", "merge").exit_code == 2
    assert ov("import", str(dest), "viking://resources", "--vector-mode", "maybe").exit_code == 2


def test_a_pack_rooted_at_sessions_is_not_imported_over_the_users_sessions(ov, project, tmp_path, store_state):
    assert ov("session", "add", "s1", "--text", "a real conversation").exit_code == 0

    def as_user_sessions(m):
        m["root"] = {"name": "sessions", "uri": "viking://user/x/sessions", "scope": "user"}

    pack = build_pack(tmp_path / "sessions.ovpack", root="sessions", files={"evil/messages.jsonl": b"junk\n"}, mutate=as_user_sessions)
    before = store_state()
    for conflict in ("fail", "overwrite"):
        result = ov("import", str(pack), "viking://~", "--on-conflict", conflict, "--json")
        assert result.exit_code == 2 and "packs are not imported into sessions" in result.error["message"]
    assert store_state() == before


@pytest.mark.parametrize("path", ["user/default", "user/bob/memories", "user/bob/sessions/s9"])
def test_a_backup_with_a_file_where_a_users_folder_must_be_is_refused(ov, project, tmp_path, store_state, path):
    def as_backup(m):
        m["root"] = {"name": "ov-backup", "uri": "viking://", "scope": "root", "package_type": "backup"}

    pack = build_pack(tmp_path / "backup.ovpack", root="ov-backup", files={path: b"a file"}, mutate=as_backup)
    before = store_state()
    result = ov("restore", str(pack), "--json")
    assert result.exit_code == 2 and "cannot store as a file" in result.error["message"], result.error
    assert store_state() == before
    assert ov("remember", "I like tea").exit_code == 0


@pytest.mark.parametrize("path", ["resources/notes/todo ", "resources/notes\u00a0/a.md", "user/.bob/memories/m.md"])
def test_a_backup_holding_a_name_an_older_version_stored_restores_it_as_it_was(ov, project, tmp_path, path):
    """An older ov stored "todo " (add-resource) and ".bob" (--user); their backups still exist.
    (An upgrade audit: restoring one refused all of it.) They are stored names, restored as they
    were and reached by their URIs."""

    def as_backup(m):
        m["root"] = {"name": "ov-backup", "uri": "viking://", "scope": "root", "package_type": "backup"}

    pack = build_pack(tmp_path / "backup.ovpack", root="ov-backup", files={"resources/ok.md": b"fine\n", path: b"kept\n"}, mutate=as_backup)
    result = ov("restore", str(pack), "--json")
    assert result.exit_code == 0, result.stderr
    assert ov("read", f"viking://{path}").stdout == "kept\n"
    assert ov("status", "--json").json["result"]["clean"]


def test_a_backup_holding_names_an_older_ov_stored_with_spaces_restores_and_the_store_works(ov, ov_home, tmp_path, monkeypatch):
    """(found by a review: restore refused a whole backup that held a file "todo " or a folder
    "notes " an older ov had stored, so such a backup could never come back.) They are stored
    names: the backup restores them as they were, and the restored store lists, reads and
    removes them; an export of them imports too. A typed URI may not make a new one."""
    import subprocess

    assert ov("init").exit_code == 0
    repo = ov_home / "accounts/default"
    folder = repo / "resources/src"
    (folder / "notes ").mkdir(parents=True)
    (folder / "todo ").write_text("buy milk\n")
    (folder / "notes " / "a.md").write_text("inside\n")
    (folder / "\u00a0nbsp.md").write_text("no-break space\n")
    (folder / "plain.md").write_text("plain\n")
    for argv in (["add", "resources/src"], ["-c", "user.name=old", "-c", "user.email=old@ov", "commit", "-qm", "as an older ov stored it"]):
        assert subprocess.run(["git", "-C", str(repo), *argv], capture_output=True).returncode == 0
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    assert ov("export", "viking://resources/src", str(tmp_path / "src.ovpack")).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    restored = ov("restore", str(tmp_path / "all.ovpack"), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert restored.json["result"]["files"] == 4
    home = tmp_path / "second-home/accounts/default/resources/src"
    assert (home / "todo ").read_text() == "buy milk\n" and (home / "notes " / "a.md").read_text() == "inside\n"
    assert (home / "\u00a0nbsp.md").read_text() == "no-break space\n"
    listed = ov("ls", "-r", "--simple", "viking://resources/src").stdout.splitlines()
    assert {"viking://resources/src/todo ", "viking://resources/src/notes /a.md", "viking://resources/src/plain.md"} <= set(listed)
    assert ov("status", "--json").json["result"]["clean"]
    # reached by its URI (an upgrade audit), but ov makes no new such name
    assert ov("read", "viking://resources/src/todo ").stdout == "buy milk\n"
    assert ov("write", "viking://resources/src/new ", "--content", "x").exit_code == 2
    imported = ov("import", str(tmp_path / "src.ovpack"), "viking://resources/copy", "--json")
    assert imported.exit_code == 0, imported.stderr
    assert (tmp_path / "second-home/accounts/default/resources/copy/src/todo ").read_text() == "buy milk\n"
    assert ov("rm", "-r", "viking://resources/src").exit_code == 0
    assert not home.exists() and ov("status", "--json").json["result"]["clean"]


def test_records_are_checked_line_by_line_across_the_pieces_they_are_read_in(tmp_path):
    """The records are read a piece at a time (64 KB): a line longer than a piece, and lines
    that straddle two, are still one record each; a bad line after them is still found, and a
    wrong hash is still what is reported first."""
    long = json.dumps({"text": "word " * 40_000}).encode()  # ~200 KB, more than three pieces
    lines = [long] + [json.dumps({"n": n, "pad": "x" * 1000}).encode() for n in range(200)] + ['{"last": "\u2028\x85 kept"}'.encode()]
    good = build_pack(tmp_path / "good.ovpack", records=b"\n".join(lines) + b"\n")
    assert ovpack.read_pack(good, 10**6).records == len(lines)
    bad = build_pack(tmp_path / "bad.ovpack", records=b"\n".join([*lines, b"[1, 2]"]) + b"\n")
    with pytest.raises(ovpack.InvalidPack, match="a line that is not a JSON object"):
        ovpack.read_pack(bad, 10**6)
    altered = build_pack(tmp_path / "altered.ovpack", records=b"\n".join([*lines, b"not json"]) + b"\n", mutate=_set(["index", "records", "sha256"], "0" * 64))
    with pytest.raises(ovpack.InvalidPack, match="does not match its sha256"):
        ovpack.read_pack(altered, 10**6)


def test_text_with_line_separators_of_every_kind_survives_a_backup_and_an_export(ov, project, tmp_path, monkeypatch):
    """A record's text may hold U+2028, U+2029, U+0085 or a form feed (pasted from a web page or a
    PDF): JSON keeps them as they are, and the pack's records are still counted by line."""
    text = "pasted\u2028text\u2029with\x85odd\x0cline ends\n"
    assert ov("write", "viking://resources/web/page.md", "--content", text).exit_code == 0
    exported = ov("export", "viking://resources/web", str(tmp_path / "web.ovpack"))
    assert exported.exit_code == 0, exported.stderr
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    restored = ov("restore", str(tmp_path / "all.ovpack"), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert ov("read", "viking://resources/web/page.md").stdout == text
    imported = ov("import", str(tmp_path / "web.ovpack"), "viking://resources/copy", "--json")
    assert imported.exit_code == 0, imported.stderr


def test_a_file_and_a_folder_trade_places_on_import_and_restore(ov, project, tmp_path, store_state):
    """A pack's file where the store has a folder: import --on-conflict overwrite replaces the
    folder; a backup's restore (which keeps what only the account has) refuses, changing nothing."""
    assert ov("write", "viking://resources/pk/x", "--content", "file").exit_code == 0
    assert ov("export", "viking://resources/pk", str(tmp_path / "pk.ovpack")).exit_code == 0
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    assert ov("rm", "viking://resources/pk/x").exit_code == 0
    assert ov("write", "viking://resources/pk/x/y.md", "--content", "now a folder").exit_code == 0
    before = store_state()
    refused = ov("restore", str(tmp_path / "all.ovpack"), "--on-conflict", "overwrite", "--json")
    assert refused.exit_code == 1 and "is a folder, so a file cannot replace it" in refused.error["message"]
    assert store_state() == before
    imported = ov("import", str(tmp_path / "pk.ovpack"), "viking://resources", "--on-conflict", "overwrite", "--json")
    assert imported.exit_code == 0, imported.stderr
    assert ov("read", "viking://resources/pk/x").stdout == "file" and ov("fsck").exit_code == 0


def test_records_too_large_to_read_back_are_left_out_and_the_pack_still_restores(ov, project, tmp_path, monkeypatch, ov_home):
    """The index records repeat the files' text: past the reader's limit for them, a backup
    written whole could not be restored. They are left out; restore rebuilds the index."""
    assert ov("write", "viking://resources/long.md", "--content", "A long page of text.\n" * 1000).exit_code == 0
    monkeypatch.setattr("ov.ovpack.format.MAX_META_BYTES", 10_000)  # the manifest fits, the records do not
    dest = tmp_path / "all.ovpack"
    assert ov("backup", str(dest)).exit_code == 0
    with zipfile.ZipFile(dest) as zf:
        assert not any(n.endswith("index_records.jsonl") for n in zf.namelist())
        assert "index" not in json.loads(zf.read("ov-backup/_ovpack/manifest.json")) or not json.loads(zf.read("ov-backup/_ovpack/manifest.json"))["index"]
    source = git_state(ov_home)[1]
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second-home"))
    restored = ov("restore", str(dest), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert git_state(tmp_path / "second-home")[1] == source


def test_an_export_removes_what_a_killed_export_left_in_its_folder(ov, project, tmp_path):
    import os
    import time

    stale, fresh = tmp_path / ".ov-tmp-0123456789ab.ovpack", tmp_path / ".ov-tmp-ba9876543210.ovpack"
    for path in (stale, fresh):
        path.write_bytes(b"half a zip")
    old = time.time() - 7200
    os.utime(stale, (old, old))
    assert ov("export", project, str(tmp_path / "p.ovpack")).exit_code == 0
    assert not stale.exists() and fresh.exists()  # one still being written by another export is left


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_pack_ov_writes_is_readable_by_its_user_only(ov, project, tmp_path, umask_022):
    """A pack holds everything (a backup: every transcript and memory) and may lie in any folder."""
    exported, _ = _export(ov, tmp_path)
    assert ov("backup", str(tmp_path / "all.ovpack")).exit_code == 0
    assert (_mode(exported), _mode(tmp_path / "all.ovpack")) == (0o600, 0o600)


def test_a_pack_written_again_keeps_the_permissions_it_had(ov, project, tmp_path, umask_022):
    dest = tmp_path / "all.ovpack"
    assert ov("backup", str(dest)).exit_code == 0
    dest.chmod(0o640)  # the user shares backups with a group
    first = dest.read_bytes()
    assert ov("write", "viking://resources/new.md", "--content", "new\n").exit_code == 0
    assert ov("backup", str(dest)).exit_code == 0
    assert dest.read_bytes() != first and _mode(dest) == 0o640


@pytest.mark.parametrize("command", ["backup", "export"])
def test_a_pack_written_to_a_symbolic_link_goes_to_the_file_it_names(ov, project, tmp_path, umask_022, command):
    """As `tar -f` or `zip` would: the link (say into a synced folder) stays a link."""
    synced = tmp_path / "synced"
    synced.mkdir()
    link = tmp_path / "latest.ovpack"
    link.symlink_to(Path("synced") / "backup.ovpack")  # relative, and nothing there yet
    args = (command, str(link)) if command == "backup" else (command, project, str(link))
    for _ in range(2):  # made through the dangling link, then replaced through it
        result = ov(*args, "--json")
        assert result.exit_code == 0, result.stderr
        assert link.is_symlink() and os.readlink(link) == str(Path("synced") / "backup.ovpack")
        with zipfile.ZipFile(synced / "backup.ovpack") as zf:
            manifest = json.loads(zf.read(next(n for n in zf.namelist() if n.endswith("/_ovpack/manifest.json"))))
        assert manifest["root"]["uri"] == ("viking://" if command == "backup" else project)
        assert _mode(synced / "backup.ovpack") == 0o600
        assert result.json["result"]["package_bytes"] == (synced / "backup.ovpack").stat().st_size
    assert sorted(p.name for p in synced.iterdir()) == ["backup.ovpack"]  # no temporary left beside it
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("command", ["backup", "export"])
def test_a_link_into_a_missing_folder_names_that_folder_as_a_missing_folder_named_directly_does(ov, project, tmp_path, command):
    """(an audit: exit 1 and a hint to `ov ls`, a store command, for a folder of the file system.)"""
    link = tmp_path / "latest.ovpack"
    link.symlink_to(tmp_path / "gone" / "backup.ovpack")
    pack = (project,) if command == "export" else ()
    through = ov(command, *pack, str(link), "--json")
    assert through.exit_code == 2 and through.error["message"].startswith(f"the folder {tmp_path / 'gone'} does not exist"), through.stderr
    assert f"mkdir -p {tmp_path / 'gone'}" in through.error["hint"] and "ov ls" not in through.error["hint"]
    assert ov(command, *pack, str(tmp_path / "gone" / "x.ovpack")).exit_code == 2  # named directly


def test_a_symbolic_link_into_the_home_is_refused(ov, project, tmp_path, ov_home):
    link = tmp_path / "sneaky.ovpack"
    link.symlink_to(ov_home / "state" / "x.ovpack")
    refused = ov("backup", str(link), "--json")
    assert refused.exit_code == 2 and "inside ov's home" in refused.error["message"]
    assert not (ov_home / "state" / "x.ovpack").exists() and link.is_symlink()


def test_a_link_to_a_file_that_is_no_pack_or_to_anothers_file_hands_nothing_over(ov, project, tmp_path, umask_022):
    # (found by a review: a link x.ovpack -> ~/.bashrc had the pack replace it, and a link to a
    # world-writable file of another user's gave them a copy readable by all)
    victim = tmp_path / "bashrc"
    victim.write_text("alias ll='ls -l'\n")
    link = tmp_path / "x.ovpack"
    link.symlink_to(victim)
    refused = ov("backup", str(link), "--json")
    assert refused.exit_code == 2 and "does not end in .ovpack" in refused.error["message"]
    assert victim.read_text() == "alias ll='ls -l'\n"
    if os.geteuid() != 0:
        return  # the rest needs a file of another user's
    theirs = tmp_path / "shared.ovpack"
    theirs.write_bytes(b"")
    os.chmod(theirs, 0o666)
    os.chown(theirs, 65534, 65534)  # nobody's (the tests run as root)
    planted = tmp_path / "planted.ovpack"
    planted.symlink_to(theirs)
    assert ov("backup", str(planted)).exit_code == 0
    assert theirs.stat().st_mode & 0o777 == 0o600 and zipfile.is_zipfile(theirs)


def test_a_pack_of_an_internal_scope_is_refused_by_import_and_restore_without_a_circle(ov, tmp_path):
    """import said "a backup of a whole account: use ov restore", and restore said "not a backup:
    use ov import", for a pack of a scope nothing is imported into."""

    def temp_scope(m):
        m["root"] = {"name": "evil", "uri": "viking://temp/evil", "scope": "temp"}

    pack = build_pack(tmp_path / "temp.ovpack", mutate=temp_scope)
    imported = ov("import", str(pack), "viking://resources", "--json")
    assert imported.exit_code == 2 and "restore" not in imported.error["message"] + imported.error.get("hint", "")
    assert "viking://temp/evil" in imported.error["message"]
    assert ov("restore", str(pack)).exit_code == 2


def test_a_backup_of_a_session_log_past_the_file_limit_restores(ov, tmp_path, monkeypatch):
    """The hooks append every captured turn to a session's log, past store.max_file_bytes: its
    backup was written, then refused by restore ("declares 14400390 bytes, over the limit")."""
    assert ov("config", "set", "store.max_file_bytes", "2000").exit_code == 0
    messages = json.dumps([{"role": "user", "text": "word " * 1000}])
    assert ov("session", "add-messages", "s1", stdin=messages).exit_code == 0  # 5 KB: past the limit
    # and one `ov commit` archived (sessions/s2/history/archive_001/messages.jsonl)
    assert ov("session", "add-messages", "s2", stdin=messages).exit_code == 0
    assert ov("commit", "s2").exit_code == 0
    assert ov("write", "viking://resources/notes/a.md", "--content", "a note\n").exit_code == 0
    backup = tmp_path / "b.ovpack"
    assert ov("backup", str(backup)).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert ov("config", "set", "store.max_file_bytes", "2000").exit_code == 0
    restored = ov("restore", str(backup), "--json")
    assert restored.exit_code == 0, restored.error
    assert "word word" in ov("read", "viking://~/sessions/s1/messages.jsonl").stdout
    assert "word word" in ov("read", "viking://~/sessions/s2/history/archive_001/messages.jsonl").stdout



def test_a_backup_holding_a_file_past_the_file_limit_restores_and_an_import_says_how_to_take_it(ov, ov_home, tmp_path, monkeypatch):
    """(an audit: `ov backup` wrote a file committed by hand past store.max_file_bytes, exit 0, and
    every restore of it refused: "declares 11110000 bytes, over the limit".) A backup restores what
    the account held into a store of the same config; an export says what an import needs."""
    assert ov("config", "set", "store.max_file_bytes", "2000").exit_code == 0
    assert ov("write", "viking://resources/notes/a.md", "--content", "a note\n").exit_code == 0
    big = ov_home / "accounts/default/resources/notes/big.md"
    big.write_text("word " * 1000)
    assert ov("snapshot", "commit", "-m", "big notes by hand").exit_code == 0
    assert ov("fsck").exit_code == 0
    backup, pack = tmp_path / "b.ovpack", tmp_path / "notes.ovpack"
    backed = ov("backup", str(backup))
    assert backed.exit_code == 0 and "warning" not in backed.stderr
    exported = ov("export", "viking://resources/notes", str(pack), "--json")
    assert exported.exit_code == 0 and exported.json["result"]["oversized"] == [{"uri": "viking://resources/notes/big.md", "bytes": 5000}]
    assert "viking://resources/notes/big.md (5000 bytes)" in exported.stderr and "`ov config set store.max_file_bytes 5000`" in exported.stderr
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert ov("config", "set", "store.max_file_bytes", "2000").exit_code == 0
    restored = ov("restore", str(backup), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert ov("read", "viking://resources/notes/big.md").stdout.startswith("word word")
    refused = ov("import", str(pack), "viking://resources/copy", "--json")
    assert refused.exit_code == 2 and "over the 2000-byte limit" in refused.error["message"]
    assert "`ov config set store.max_file_bytes 5000`" in refused.error["hint"]  # the hint works
    assert ov("config", "set", "store.max_file_bytes", "5000").exit_code == 0
    assert ov("import", str(pack), "viking://resources/copy").exit_code == 0


def test_a_backup_or_a_memories_pack_holding_text_ov_does_not_store_is_refused(ov, tmp_path, store_state):
    """(an audit: a pack's Latin-1 preferences file was imported, and the session-start hook injected
    "Prefers \ufffd\ufffd latin-1 caf\ufffd".) The check every write makes: "ov stores text"."""
    latin = {"preferences/default/x.md": b"- Prefers \xff\xfe latin-1 caf\xe9\n"}

    def memories(m):
        m["root"] = {"name": "memories", "uri": "viking://user/default/memories", "scope": "user"}

    def whole(m):
        m["root"] = {"name": "ov-backup", "uri": "viking://", "scope": "root", "package_type": "backup"}

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    before = store_state()
    pack = build_pack(tmp_path / "m.ovpack", root="memories", files=latin, mutate=memories)
    backup = build_pack(tmp_path / "b.ovpack", root="ov-backup", files={f"user/default/memories/{p}": d for p, d in latin.items()}, mutate=whole)
    for argv in (["import", str(pack), "viking://~"], ["restore", str(backup)]):
        refused = ov(*argv, "--json")
        assert refused.exit_code == 2 and "preferences/default/x.md' is not UTF-8 text" in refused.error["message"], refused.stderr
        assert "ov stores text" in refused.error["hint"]
    assert store_state() == before


def test_a_pack_of_a_whole_scope_imports_into_the_root_as_openviking_does(ov, tmp_path, monkeypatch):
    """(an audit: OpenViking's `export viking://resources` landed at viking://resources/resources,
    and the parent upstream takes, viking://, was refused.) Reference: openviking.md §6.2."""

    def scope(name):
        return lambda m: m.update(root={"name": name, "uri": f"viking://{name}", "scope": name})

    pack = build_pack(tmp_path / "resources.ovpack", root="resources", files={"handbook/a.md": b"from openviking\n"}, mutate=scope("resources"))
    misplaced = ov("import", str(pack), "viking://resources", "--json")
    assert misplaced.exit_code == 2 and "imported into viking:// only" in misplaced.error["message"]
    imported = ov("import", str(pack), "viking://", "--json")
    assert imported.exit_code == 0 and imported.json["result"]["uri"] == "viking://resources", imported.stderr
    assert ov("read", "viking://resources/handbook/a.md").stdout == "from openviking\n"
    again = ov("import", str(pack), "viking://", "--json")  # the scope now holds something
    assert again.exit_code == 1 and again.error["code"] == "already_exists"
    assert ov("import", str(pack), "viking://", "--on-conflict", "skip", "--json").json["result"]["action"] == "skipped"
    users = build_pack(tmp_path / "user.ovpack", root="user", files={"default/memories/x.md": b"x\n"}, mutate=scope("user"))
    refused = ov("import", str(users), "viking://", "--json")
    assert refused.exit_code == 2 and "every user's tree" in refused.error["message"]


def test_what_fsck_calls_sound_a_backup_carries_and_a_restore_takes_into_a_fresh_home(ov, ov_home, tmp_path, monkeypatch):
    """The guarantee the writer's checks give: whatever a user committed by hand that `ov fsck`
    calls sound comes back from `ov backup` then `ov restore` exactly (an audit found two backups
    that no restore took, written with exit 0)."""
    assert ov("mkdir", "viking://resources/kb", "--description", "Team knowledge base").exit_code == 0
    assert ov("remember", "I prefer tabs over spaces").exit_code == 0
    assert ov("session", "add", "s1", "--text", "the deploy is on Tuesday").exit_code == 0
    account = ov_home / "accounts/default"
    by_hand = {
        "resources/kb/.abstract.md": b"---\ndirectory: [unclosed\n---\nEdited by hand.\n",
        "resources/kb/.overview.md": b"no frontmatter at all, and \xe2\x9c\x93 unicode\n",
        "resources/kb/big.md": b"word " * 3000,  # over the limit set below
        "resources/kb/empty.md": b"",
        "resources/kb/crlf.md": b"one\r\ntwo\r\n",
        "resources/kb/deep/er/still/file.txt": b"x\n",
    }
    for rel, data in by_hand.items():
        (account / rel).parent.mkdir(parents=True, exist_ok=True)
        (account / rel).write_bytes(data)
    assert ov("snapshot", "commit", "-m", "by hand").exit_code == 0
    assert ov("config", "set", "store.max_file_bytes", "10000").exit_code == 0
    assert ov("fsck").exit_code == 0
    source = git_state(ov_home)[1]
    backed = ov("backup", str(tmp_path / "all.ovpack"))
    assert backed.exit_code == 0 and "warning" not in backed.stderr
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("OV_HOME", str(fresh))
    assert ov("config", "set", "store.max_file_bytes", "10000").exit_code == 0
    restored = ov("restore", str(tmp_path / "all.ovpack"), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert git_state(fresh)[1] == source
    assert ov("fsck").exit_code == 0


def test_a_summary_edited_by_hand_with_broken_frontmatter_travels_as_text(ov, ov_home, tmp_path, monkeypatch):
    """(an audit: a backup holding one refused every restore, and no option got past it.) `ov abstract`
    reads it as text; so do a backup, a restore, an export and an import."""
    assert ov("mkdir", "viking://resources/kb", "--description", "Team knowledge base").exit_code == 0
    assert ov("write", "viking://resources/kb/a.md", "--content", "a\n").exit_code == 0
    edited = "---\ndirectory: [unclosed\n---\nTeam knowledge base, edited by hand.\n"
    (ov_home / "accounts/default/resources/kb/.abstract.md").write_text(edited)
    assert ov("snapshot", "commit", "-m", "edited the abstract by hand").exit_code == 0
    assert ov("fsck").exit_code == 0
    assert ov("backup", str(tmp_path / "b.ovpack")).exit_code == 0
    assert ov("export", "viking://resources/kb", str(tmp_path / "kb.ovpack")).exit_code == 0
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert ov("restore", str(tmp_path / "b.ovpack")).exit_code == 0
    assert ov("import", str(tmp_path / "kb.ovpack"), "viking://resources/copy").exit_code == 0
    for uri in ("viking://resources/kb/.abstract.md", "viking://resources/copy/kb/.abstract.md"):
        assert ov("read", uri).stdout == edited
    assert "edited by hand" in ov("abstract", "viking://resources/copy/kb").stdout


@pytest.mark.parametrize(("name", "data"), [(".abstract.md", b"L0 \x00\x01"), ("notes.md", "caf\xe9 in Latin-1\n".encode("latin-1"))])
def test_a_file_no_reader_takes_is_left_out_of_the_pack_named_and_the_rest_is_written(ov, ov_home, tmp_path, monkeypatch, name, data):
    """(an audit: one file not UTF-8 in HEAD made `ov backup` refuse the whole account, and a nightly
    backup stopped until someone fixed it.) As restic does with a file it cannot read: the pack is
    written with everything else, the file is named on stderr with why and the fix, `left_out` in
    --json, and the exit code is 3, written but incomplete. The pack restores cleanly."""
    assert ov("write", "viking://resources/kb/a.md", "--content", "a\n").exit_code == 0
    hand_made = ov_home / "accounts/default/resources/kb" / name
    hand_made.write_bytes(data)
    assert ov("snapshot", "commit", "-m", "by hand").exit_code == 0
    checked = ov("fsck", "--json")
    assert checked.exit_code == 1 and f"'resources/kb/{name}'" in json.dumps(checked.json)
    for argv, pack in ((["backup"], tmp_path / "b.ovpack"), (["export", "viking://resources/kb"], tmp_path / "kb.ovpack")):
        written = ov(*argv, str(pack), "--json")
        assert written.exit_code == 3, written.stderr
        assert written.json["result"]["left_out"] == [
            {"uri": f"viking://resources/kb/{name}", "problem": "its content is not UTF-8 text", "fix": written.json["result"]["left_out"][0]["fix"]}
        ]
        assert f"'resources/kb/{name}' is not in the pack: its content is not UTF-8 text" in written.stderr
        assert "ov snapshot commit" in written.stderr and "exit code 3" in written.stderr
        with zipfile.ZipFile(pack) as zf:
            assert not [n for n in zf.namelist() if n.endswith("/" + name)]
    human = ov("backup", str(tmp_path / "b.ovpack"))
    assert human.exit_code == 3 and human.stdout.startswith("backed up ") and f"'resources/kb/{name}'" in human.stderr
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert ov("restore", str(tmp_path / "b.ovpack")).exit_code == 0
    assert ov("read", "viking://resources/kb/a.md").stdout == "a\n"
    assert ov("import", str(tmp_path / "kb.ovpack"), "viking://resources/copy").exit_code == 0
    assert ov("read", "viking://resources/copy/kb/a.md").stdout == "a\n"


def test_a_pack_whose_every_file_no_reader_takes_is_refused_and_writes_nothing(ov, ov_home, tmp_path):
    """A pack without files is one every reader refuses: with nothing else to pack, the refusal
    stays, naming the file and the fix."""
    assert ov("write", "viking://resources/kb/a.md", "--content", "a\n").exit_code == 0
    (ov_home / "accounts/default/resources/bad").mkdir()
    (ov_home / "accounts/default/resources/bad/notes.md").write_bytes(b"caf\xe9\n")
    assert ov("snapshot", "commit", "-m", "by hand").exit_code == 0
    pack = tmp_path / "bad.ovpack"
    refused = ov("export", "viking://resources/bad", str(pack), "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unpackable_file", refused.stderr
    assert "'resources/bad/notes.md'" in refused.error["message"] and "ov snapshot commit" in refused.error["hint"]
    assert not pack.exists()


def test_a_backup_of_a_commit_holding_a_path_no_restore_takes_leaves_it_out(ov, ov_home, tmp_path, monkeypatch):
    """(an upgrade audit: ov at 5b929ee's time stored "git~1"; `ov backup` wrote it, exit 0, and
    every restore of that backup was refused.) The path is left out and named, exit 3; an export of
    its folder alone, which would hold nothing, is refused naming it."""
    from tests.hostile_trees import FILE, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    repo = ov_home / "accounts/default"
    add_commit(repo, {(b"resources", b"src", b"git~1"): (FILE, b"tilde\n")})
    (repo / "resources/src").mkdir()
    (repo / "resources/src/git~1").write_text("tilde\n")  # as the older version wrote it
    pack = tmp_path / "all.ovpack"
    written = ov("backup", str(pack), "--json")
    assert written.exit_code == 3 and [f["uri"] for f in written.json["result"]["left_out"]] == ["viking://resources/src/git~1"]
    assert "'resources/src/git~1' is not in the pack" in written.stderr
    refused = ov("export", "viking://resources/src", str(tmp_path / "src.ovpack"), "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree", refused.stderr
    assert "'resources/src/git~1'" in refused.error["message"] and "ov snapshot commit" in refused.error["hint"]
    assert not (tmp_path / "src.ovpack").exists()
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second"))
    assert ov("restore", str(pack)).exit_code == 0


@pytest.mark.parametrize("mode", ["link", "submodule", "not utf-8"])
def test_a_backup_of_a_head_holding_a_link_a_submodule_or_a_name_not_text_leaves_it_out(ov, ov_home, tmp_path, monkeypatch, mode):
    """(a review: backup packed a symbolic link's target and a submodule's commit as files, and a
    name that is not UTF-8 crashed it.) Left out as a pull refuses them, naming the path readably;
    the pack holds the rest and restores."""
    from dulwich.repo import Repo

    from tests.hostile_trees import FILE, GITLINK, LINK, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    repo = ov_home / "accounts/default"
    name, entry = {
        "link": (b"link", (LINK, b"/etc/passwd")),
        "submodule": (b"sub", (GITLINK, Repo(str(repo)).head())),
        "not utf-8": (b"bad\xff.md", (FILE, b"bytes\n")),
    }[mode]
    add_commit(repo, {(b"resources", b"src", name): entry})
    shown = "resources/src/" + name.decode("utf-8", "backslashreplace")
    pack = tmp_path / "all.ovpack"
    written = ov("backup", str(pack), "--json")
    assert written.exit_code == 3, written.stderr
    assert [f["uri"] for f in written.json["result"]["left_out"]] == [f"viking://{shown}"] and written.json["result"]["files"] == 1
    # the name as `shown` gives it, its bytes escaped once (quoting it doubled the backslash)
    assert f"'{shown}' is not in the pack: no restore or import takes its path: a " in written.stderr
    refused = ov("export", "viking://resources/src", str(tmp_path / "src.ovpack"), "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree", refused.stderr
    assert refused.error["message"].startswith(f"the last commit holds '{shown}': no restore or import takes its path: a ")
    # the fix it gives works: nothing is in the work tree, and a snapshot commit drops it
    assert ov("snapshot", "commit", "-m", "drop it").exit_code == 0
    assert ov("backup", str(pack), "--json").json["result"]["left_out"] == []
    monkeypatch.setenv("OV_HOME", str(tmp_path / "second"))
    assert ov("restore", str(pack)).exit_code == 0


@pytest.mark.parametrize("twin", ["file", "folder"])
def test_a_name_held_in_two_unicode_forms_packs_one_of_them_and_names_the_other(ov, ov_home, tmp_path, monkeypatch, twin):
    """(an audit: a backup of a HEAD holding café.md composed and decomposed, committed with plain
    git, was written, and every restore of it refused.) The one spelled as a typed URI spells it
    (NFC) is packed; the other is left out and named, exit 3, and the pack restores."""
    import unicodedata

    from tests.hostile_trees import FILE, add_commit

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    composed, decomposed = (unicodedata.normalize(form, "café") for form in ("NFC", "NFD"))
    if twin == "file":
        entries = {(b"resources", f"{composed}.md".encode()): (FILE, b"composed\n"), (b"resources", f"{decomposed}.md".encode()): (FILE, b"decomposed\n")}
        kept, gone = f"resources/{composed}.md", f"resources/{decomposed}.md"
    else:
        entries = {(b"resources", composed.encode(), b"x.md"): (FILE, b"composed\n"), (b"resources", decomposed.encode(), b"x.md"): (FILE, b"decomposed\n")}
        kept, gone = f"resources/{composed}/x.md", f"resources/{decomposed}/x.md"
    add_commit(ov_home / "accounts/default", entries)
    pack = tmp_path / "b.ovpack"
    written = ov("backup", str(pack), "--json")
    assert written.exit_code == 3, written.stderr
    assert [f["uri"] for f in written.json["result"]["left_out"]] == [f"viking://{gone}"]
    assert "one name in two Unicode forms" in written.json["result"]["left_out"][0]["problem"]
    monkeypatch.setenv("OV_HOME", str(tmp_path / "elsewhere"))
    assert ov("restore", str(pack)).exit_code == 0
    assert ov("read", f"viking://{kept}").stdout == "composed\n"


# --- Ctrl-C during an import ---------------------------------------------------------------


def test_ctrl_c_while_the_objects_are_written_is_an_interrupt_not_an_internal_error(ov, project, tmp_path, store_state, monkeypatch):
    """Ctrl-C inside dulwich's pack writing: closing the half-written pack raised BufferError in
    the KeyboardInterrupt's place, and ov called it an internal error to report (exit 1)."""
    from ov.store.gitstore import GitStore

    dest, _ = _export(ov, tmp_path)
    before = store_state()

    def interrupted_pack(disk, objects, along=None):
        try:
            raise KeyboardInterrupt
        finally:
            raise BufferError("cannot close exported pointers exist")  # as dulwich's Pack.close does

    monkeypatch.setattr(GitStore, "_store_objects", staticmethod(interrupted_pack))
    result = ov("import", str(dest), "viking://resources/copy")
    assert (result.exit_code, result.stdout) == (130, "")
    assert "internal error" not in result.stderr and "BufferError" not in result.stderr
    assert store_state() == before  # rolled back: nothing of the import is left


def test_ctrl_c_after_the_commit_landed_says_the_import_is_kept(ov, project, tmp_path, store_state, monkeypatch):
    from ov.store.gitstore import GitStore

    dest, _ = _export(ov, tmp_path)

    def interrupted(self, tree_id, paths, defer):
        raise KeyboardInterrupt  # the branch has moved: the git index comes next

    with monkeypatch.context() as patched:
        patched.setattr(GitStore, "update_index", interrupted)
        result = ov("import", str(dest), "viking://resources/copy", "--json")
    head = store_state()[0]
    assert result.exit_code == 130 and result.stdout == ""
    assert result.error["code"] == "interrupted_after_commit"
    assert result.error["message"] == f"interrupted after the commit landed: the change is kept (commit {head[:10]})"
    assert ov("read", "viking://resources/copy/proj/intro.md").stdout.startswith("# Intro")
    assert "import" in ov("snapshot", "log", "--limit", "1").stdout
