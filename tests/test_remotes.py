"""Git remotes: two homes share an account through a bare repository on disk or dulwich's HTTP server."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
from pathlib import Path

import pytest
import typer

from tests.conftest import git_state
from tests.hostile_trees import FILE, GITLINK, LINK, add_commit


@pytest.fixture(autouse=True)
def remote_commands(monkeypatch):
    """Use `ov remote/push/pull` whether or not ov.cli.main registers them yet."""
    from ov.cli import main, remote_cmd

    if "push" not in {c.name for c in main.app.registered_commands}:
        probe = typer.Typer()
        remote_cmd.register(probe)
        monkeypatch.setattr(main.app, "registered_commands", main.app.registered_commands + probe.registered_commands)
        monkeypatch.setattr(main.app, "registered_groups", main.app.registered_groups + probe.registered_groups)


@pytest.fixture
def homes(tmp_path, monkeypatch, ov):
    """`run("a", *args)` runs ov in home A (or B); `state("a")` is that home's (HEAD, files)."""
    paths = {"a": tmp_path / "home-a", "b": tmp_path / "home-b"}

    def run(home, *args, stdin=None):
        monkeypatch.setenv("OV_HOME", str(paths[home]))
        return ov(*args, stdin=stdin)

    run.path = paths
    run.state = lambda home: git_state(paths[home])
    return run


@pytest.fixture
def bare(tmp_path) -> Path:
    from dulwich.repo import Repo

    path = tmp_path / "shared.git"
    path.mkdir()
    Repo.init_bare(str(path)).close()
    return path


@pytest.fixture
def http_url(bare):
    """dulwich's own smart-HTTP server over the bare repository, on a free loopback port."""
    from wsgiref.simple_server import make_server

    from dulwich.repo import Repo
    from dulwich.server import DictBackend
    from dulwich.web import WSGIRequestHandlerLogger, WSGIServerLogger, make_wsgi_chain

    repo = Repo(str(bare))
    app = make_wsgi_chain(DictBackend({"/": repo}))
    server = make_server("127.0.0.1", 0, app, handler_class=WSGIRequestHandlerLogger, server_class=WSGIServerLogger)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()
    thread.join(5)
    repo.close()


@pytest.fixture(params=["path", "file", "http"])
def url(request, bare):
    if request.param == "http":
        return request.getfixturevalue("http_url")
    return str(bare) if request.param == "path" else bare.as_uri()


def write(homes, home, uri, text):
    result = homes(home, "write", uri, "--content", text)
    assert result.exit_code == 0, result.stderr


def shared_start(homes, url):
    """A writes a first file and pushes; B adds the remote and pulls it."""
    write(homes, "a", "viking://resources/notes.md", "first\n")
    write(homes, "a", "viking://resources/other.md", "other\n")
    assert homes("a", "remote", "add", "origin", url).exit_code == 0
    pushed = homes("a", "push", "--json")
    assert pushed.exit_code == 0, pushed.stderr
    assert homes("b", "remote", "add", "origin", url).exit_code == 0
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    return pushed.json["result"], pulled.json["result"]


# --- remote add / list / remove ------------------------------------------------------


def test_remote_add_list_remove(ov, tmp_path, bare):
    assert ov("remote", "list", "--json").json["result"] == []
    added = ov("remote", "add", "origin", str(bare))
    assert added.exit_code == 0 and added.stdout.count("\n") == 1
    assert ov("remote", "add", "backup", "https://example.com/team/ctx.git").exit_code == 0
    assert ov("remote", "add", "laptop", "me@laptop:ctx.git").exit_code == 0
    listed = ov("remote", "list", "--json").json["result"]
    assert listed == [
        {"name": "backup", "url": "https://example.com/team/ctx.git", "push_url": None},
        {"name": "laptop", "url": "me@laptop:ctx.git", "push_url": None},
        {"name": "origin", "url": str(bare), "push_url": None},
    ]
    config = (tmp_path / "ovhome" / "accounts" / "default" / ".git" / "config").read_text()
    assert '[remote "origin"]' in config
    assert ov("remote", "remove", "backup").exit_code == 0
    assert [r["name"] for r in ov("remote", "list", "--json").json["result"]] == ["laptop", "origin"]


def test_relative_path_url_becomes_absolute(ov, tmp_path, bare, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert ov("remote", "add", "origin", "shared.git").exit_code == 0
    assert ov("remote", "list", "--json").json["result"][0]["url"] == str(bare)


def test_adding_an_existing_name_or_removing_a_missing_one_is_a_clear_error(ov, bare, store_state):
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    before = store_state()
    again = ov("remote", "add", "origin", "/elsewhere", "--json")
    assert again.exit_code == 1 and again.error["code"] == "already_exists"
    missing = ov("remote", "remove", "nope", "--json")
    assert missing.exit_code == 1 and missing.error["code"] == "not_found"
    assert store_state() == before


@pytest.mark.parametrize("name", ["-x", "a b", "../up", "a..b", "x.lock", "", "a/b", "ü" * 3])
def test_bad_remote_name_exits_2(ov, bare, name, store_state):
    before = store_state()
    result = ov("remote", "add", "--json", "--", name, str(bare))
    assert result.exit_code == 2, result.stderr
    assert store_state() == before


@pytest.mark.parametrize("bad_url", ["", "ftp://host/x.git", "a\nb"])
def test_bad_remote_url_exits_2(ov, bad_url):
    result = ov("remote", "add", "origin", bad_url, "--json")
    assert result.exit_code == 2
    assert result.error["code"] == "invalid_input"


@pytest.mark.parametrize("bad_url", ["-oProxyCommand=touch /tmp/pwned:r.git", "ssh://-oProxyCommand=touch%20x/r.git", "ssh://me@-oProxy/r"])
def test_a_url_whose_host_ssh_would_read_as_an_option_is_refused_at_add(ov, bad_url, store_state):
    before = store_state()
    result = ov("remote", "add", "--json", "--", "origin", bad_url)
    assert result.exit_code == 2 and result.error["code"] == "invalid_input"
    assert "option" in result.error["message"] and store_state() == before


def test_push_and_pull_need_a_remote(ov):
    write_result = ov("write", "viking://resources/a.md", "--content", "x\n")
    assert write_result.exit_code == 0
    for verb in ("push", "pull"):
        result = ov(verb, "--json")
        assert result.exit_code == 1 and "ov remote add" in result.error["hint"]
    assert ov("push", "nope", "--json").error["code"] == "not_found"
    assert ov("pull", "bad name", "--json").exit_code == 2


# --- push and pull ---------------------------------------------------------------------


def test_push_then_pull_fast_forwards_into_another_home(homes, url):
    pushed, pulled = shared_start(homes, url)
    assert pushed["old_head"] is None and pushed["pushed"]
    head_a, files_a = homes.state("a")
    assert pushed["new_head"] == head_a
    # B had only the init commit of `ov remote add`: replaced by A's history (a fast-forward when
    # both init commits fell in the same second, and so are one commit).
    assert pulled["outcome"] in ("replaced", "fast-forward") and not pulled["merged"]
    head_b, files_b = homes.state("b")
    assert head_b == head_a and files_b == files_a
    assert homes("b", "read", "viking://resources/notes.md").stdout == "first\n"
    assert homes("b", "status", "--json").json["result"]["clean"]

    # Nothing new either way.
    again = homes("b", "pull")
    assert again.exit_code == 0 and "up to date" in again.stdout and again.stdout.count("\n") == 1
    assert homes("b", "push", "--json").json["result"]["pushed"] is False

    # A later change travels back the other way and only touches what changed.
    write(homes, "b", "viking://resources/notes.md", "second\n")
    assert homes("b", "push").exit_code == 0
    other = homes.path["a"] / "accounts" / "default" / "resources" / "other.md"
    mtime = other.stat().st_mtime_ns
    pulled = homes("a", "pull", "--json").json["result"]
    assert pulled["outcome"] == "fast-forward" and pulled["changed"] == ["resources/notes.md"]
    assert homes("a", "read", "viking://resources/notes.md").stdout == "second\n"
    assert other.stat().st_mtime_ns == mtime
    assert homes.state("a") == homes.state("b")


def test_diverged_pull_merges_changes_to_different_files(homes, url):
    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "first\nfrom a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/other.md", "other\nfrom b\n")
    write(homes, "b", "viking://resources/new-b.md", "new in b\n")
    head_b, _ = homes.state("b")

    result = homes("b", "pull", "--json")
    assert result.exit_code == 0, result.stderr
    pulled = result.json["result"]
    assert pulled["outcome"] == "merged" and pulled["merged"] and pulled["conflicts"] == []
    assert pulled["old_head"] == head_b
    assert homes("b", "read", "viking://resources/notes.md").stdout == "first\nfrom a\n"
    assert homes("b", "read", "viking://resources/other.md").stdout == "other\nfrom b\n"
    assert homes("b", "read", "viking://resources/new-b.md").stdout == "new in b\n"
    from dulwich.repo import Repo

    repo = Repo(str(homes.path["b"] / "accounts" / "default"))
    merge = repo[repo.refs[b"refs/heads/main"]]
    repo.close()
    assert [p.decode() for p in merge.parents] == [head_b, pulled["remote_head"]]
    # The merge says which way it came, as every commit ov makes (found by an audit: it did not).
    assert [(e["command"], e["via"]) for e in homes("b", "snapshot", "log", "-n", "1", "--json").json["result"]] == [("pull", "cli")]
    assert b"\nOv-Command: pull\nOv-Via: cli\n" in merge.message
    status = homes("b", "status", "--json").json["result"]
    assert status["clean"]
    findings = homes("b", "fsck", "--json").json["result"]["findings"]
    assert [f for f in findings if f["area"] != "index"] == []  # the index is built by the first search

    # The merge pushes as a fast-forward, and A then fast-forwards to it.
    assert homes("b", "push").exit_code == 0
    assert homes("a", "pull", "--json").json["result"]["outcome"] == "fast-forward"
    assert homes.state("a") == homes.state("b")


def test_a_file_changed_on_both_sides_keeps_both_versions(homes, url):
    from ov.history import remotes

    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "version a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/notes.md", "version b\n")

    result = homes("b", "pull", "--json")
    assert result.exit_code == 0, result.stderr
    pulled = result.json["result"]
    sha = pulled["remote_head"][:7]
    copy = f"resources/notes.theirs-{sha}.md"
    assert pulled["conflicts"] == [{"path": "resources/notes.md", "kind": "both-changed", "copy": copy}]
    assert homes("b", "read", "viking://resources/notes.md").stdout == "version b\n"
    assert homes("b", "read", f"viking://{copy}").stdout == "version a\n"
    human = homes("b", "pull")  # already merged: up to date
    assert "up to date" in human.stdout

    # Reported until resolved.
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    store = Store(Home(homes.path["b"]), Identity(), Config())
    assert remotes.conflicts(store) == [copy]
    assert homes("b", "status", "--json").json["result"]["conflicts"] == [f"viking://{copy}"]
    assert f"conflict  viking://{copy}" in homes("b", "status").stdout
    assert homes("b", "rm", f"viking://{copy}").exit_code == 0
    assert remotes.conflicts(store) == []
    assert homes("b", "status", "--json").json["result"]["conflicts"] == []


def test_a_file_named_like_a_conflict_copy_is_not_a_conflict(homes, bare):
    from ov.history import remotes

    shared_start(homes, str(bare))
    write(homes, "b", "viking://resources/x.theirs-1234567.md", "my own file\n")
    assert homes("b", "status", "--json").json["result"]["conflicts"] == []
    assert "conflict" not in homes("b", "status").stdout
    # A real conflict, recorded by the merge, is still listed; the look-alike is not.
    write(homes, "a", "viking://resources/notes.md", "version a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/notes.md", "version b\n")
    pulled = homes("b", "pull", "--json").json["result"]
    [conflict] = pulled["conflicts"]
    assert homes("b", "status", "--json").json["result"]["conflicts"] == [f"viking://{conflict['copy']}"]
    from ov.config import Config
    from ov.home import Home
    from ov.identity import Identity
    from ov.store.store import Store

    assert remotes.conflicts(Store(Home(homes.path["b"]), Identity(), Config())) == [conflict["copy"]]


def test_pull_into_a_fresh_store_says_it_replaced_the_empty_history(homes, bare):
    write(homes, "a", "viking://resources/notes.md", "first\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("a", "push").exit_code == 0
    # Creates B with its init commit; another author, so never the same commit as A's.
    assert homes("b", "remote", "add", "origin", str(bare), "--user", "bob").exit_code == 0
    result = homes("b", "pull")
    assert result.exit_code == 0, result.stderr
    assert "fast-forward" not in result.stdout
    assert "replaced the empty local history with origin's" in result.stdout
    assert homes.state("a") == homes.state("b")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
def test_git_clone_of_a_fresh_bare_remote_checks_out_main(ov, bare, tmp_path):
    """A bare repository made by `git init --bare` names master as HEAD; ov pushes main only."""
    from dulwich.repo import Repo

    with Repo(str(bare)) as repo:
        assert repo.refs.read_ref(b"HEAD") == b"ref: refs/heads/master"
    assert ov("write", "viking://resources/notes.md", "--content", "shared\n").exit_code == 0
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    assert ov("push").exit_code == 0
    with Repo(str(bare)) as repo:
        assert repo.refs.read_ref(b"HEAD") == b"ref: refs/heads/main"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    clone = tmp_path / "clone"
    proc = subprocess.run(["git", "clone", str(bare), str(clone)], env=env, capture_output=True, text=True)
    assert proc.returncode == 0 and "nonexistent ref" not in proc.stderr, proc.stderr
    assert (clone / "resources" / "notes.md").read_text() == "shared\n"


def test_push_leaves_a_remote_head_that_names_an_existing_branch_alone(ov, bare):
    from dulwich.objects import Commit, Tree
    from dulwich.repo import Repo

    with Repo(str(bare)) as repo:  # someone else's branch `trunk` is the remote's HEAD
        tree = Tree()
        commit = Commit()
        commit.tree = tree.id
        commit.author = commit.committer = b"x <x@example.com>"
        commit.author_time = commit.commit_time = 0
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"trunk"
        repo.object_store.add_objects([(tree, None), (commit, None)])
        repo.refs[b"refs/heads/trunk"] = commit.id
        repo.refs.set_symbolic_ref(b"HEAD", b"refs/heads/trunk")
    assert ov("write", "viking://resources/notes.md", "--content", "x\n").exit_code == 0
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    assert ov("push").exit_code == 0
    with Repo(str(bare)) as repo:
        assert repo.refs.read_ref(b"HEAD") == b"ref: refs/heads/trunk" and b"refs/heads/main" in repo.refs


def test_human_merge_output_is_one_line_naming_the_copy(homes, url):
    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "version a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/notes.md", "version b\n")
    result = homes("b", "pull")
    assert result.exit_code == 0
    assert result.stdout.count("\n") == 1
    assert "1 conflict(s)" in result.stdout and ".theirs-" in result.stdout


def test_deleted_on_one_side_changed_on_the_other_drops_nothing(homes, url):
    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "changed in a\n")
    assert homes("a", "rm", "viking://resources/other.md").exit_code == 0
    assert homes("a", "push").exit_code == 0
    assert homes("b", "rm", "viking://resources/notes.md").exit_code == 0
    write(homes, "b", "viking://resources/other.md", "changed in b\n")

    pulled = homes("b", "pull", "--json").json["result"]
    kinds = {c["path"]: c for c in pulled["conflicts"]}
    assert kinds["resources/other.md"]["kind"] == "deleted-by-them"
    assert homes("b", "read", "viking://resources/other.md").stdout == "changed in b\n"
    copy = kinds["resources/notes.md"]["copy"]
    assert kinds["resources/notes.md"]["kind"] == "deleted-by-us"
    assert homes("b", "read", f"viking://{copy}").stdout == "changed in a\n"
    # The one kept at its path is named by `ov status` until it changes again.
    status = homes("b", "status")
    assert "viking://resources/other.md" in status.stdout and "deleted on the remote" in status.stdout
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == ["viking://resources/other.md"]
    write(homes, "b", "viking://resources/other.md", "settled\n")
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == []


def _plain_git_commits(repo_path, n: int) -> None:
    """``n`` commits on top of main, each with its parent's tree, made as plain git makes them."""
    from dulwich.objects import Commit
    from dulwich.repo import Repo

    with Repo(str(repo_path)) as repo:
        head = repo.refs[b"refs/heads/main"]
        tree = repo[head].tree
        commits = []
        for i in range(n):
            commit = Commit()
            commit.tree, commit.parents = tree, [head]
            commit.author = commit.committer = b"someone <s@example.com>"
            commit.author_time = commit.commit_time = 1_900_000_000 + i
            commit.author_timezone = commit.commit_timezone = 0
            commit.message = f"commit {i}\n".encode()
            commits.append((commit, None))
            head = commit.id
        repo.object_store.add_objects(commits)
        repo.refs[b"refs/heads/main"] = head


def test_a_deletion_kept_by_a_pull_is_named_however_many_commits_came_since(homes, bare):
    """(an audit: `ov status` looked for the last pull's merge in the last 500 commits only, so a
    deletion kept longer ago was forgotten.) Named after 700 commits, with or without what status
    remembers of its last look; not once the history was reset to before that merge."""
    shared_start(homes, str(bare))
    assert homes("a", "rm", "viking://resources/other.md").exit_code == 0
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/other.md", "changed in b\n")
    before_merge = homes.state("b")[0]
    assert homes("b", "pull").exit_code == 0
    kept = ["viking://resources/other.md"]
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == kept
    repo = homes.path["b"] / "accounts" / "default"
    _plain_git_commits(repo, 700)
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == kept  # read since the last look
    for i in range(3):
        write(homes, "b", f"viking://resources/n{i}.md", f"{i}\n")
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == kept
    (homes.path["b"] / "state" / "default" / "last-merge.json").unlink()
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == kept  # the whole history read
    (repo / ".git" / "refs" / "heads" / "main").write_text(before_merge + "\n")  # a reset with plain git
    assert homes("b", "status", "--json").json["result"]["kept_deleted_there"] == []


def test_a_change_kept_against_the_remotes_deletion_is_named_by_the_pull(homes, bare):
    shared_start(homes, str(bare))
    assert homes("a", "rm", "viking://resources/other.md").exit_code == 0
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/other.md", "changed in b\n")
    pulled = homes("b", "pull")
    assert pulled.exit_code == 0 and "resources/other.md" in pulled.stdout and "deleted there" in pulled.stdout


def test_tags_travel_with_main_and_are_never_moved(homes, url):
    shared_start(homes, url)
    assert homes("a", "snapshot", "tag", "v1").exit_code == 0
    write(homes, "a", "viking://resources/notes.md", "second\n")
    pushed = homes("a", "push", "--json").json["result"]
    assert pushed["tags"] == ["v1"] and pushed["pushed"]
    pulled = homes("b", "pull", "--json").json["result"]
    assert pulled["tags"] == ["v1"]
    tag_a = homes("a", "snapshot", "tag", "--json").json["result"]
    assert homes("b", "snapshot", "tag", "--json").json["result"] == tag_a
    assert homes("b", "snapshot", "show", "v1", "--uri", "viking://resources/notes.md").stdout == "first\n"
    # Already there: not sent or created again.
    assert homes("a", "push", "--json").json["result"]["tags"] == []
    assert homes("b", "pull", "--json").json["result"]["tags"] == []
    # A tag of the same name elsewhere is left as it is.
    assert homes("b", "snapshot", "tag", "v2").exit_code == 0
    assert homes("a", "snapshot", "tag", "v2", "HEAD~1").exit_code == 0
    pushed = homes("b", "push", "--json")
    assert pushed.json["result"]["tags"] == ["v2"] and pushed.json["result"]["diverged_tags"] == []
    pulled = homes("a", "pull", "--json")
    assert pulled.json["result"]["tags"] == [] and pulled.json["result"]["diverged_tags"] == ["v2"]
    assert "v2" in pulled.stderr and "different commits" in pulled.stderr
    pushed = homes("a", "push", "--json")  # said both ways, never moved
    assert pushed.json["result"]["diverged_tags"] == ["v2"] and "v2" in pushed.stderr
    assert homes("a", "snapshot", "show", "v2", "--json").json["result"]["commit"] != homes("b", "snapshot", "show", "v2", "--json").json["result"]["commit"]


def test_push_rejected_as_non_fast_forward_says_pull_first(homes, url, bare):
    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "from a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/other.md", "from b\n")
    remote_before = (bare / "refs" / "heads" / "main").read_text()
    before = homes.state("b")

    result = homes("b", "push")
    assert result.exit_code == 1
    assert "the remote" in result.stderr and "run `ov pull` first" in result.stderr
    as_json = homes("b", "push", "--json")
    assert as_json.exit_code == 1 and as_json.error["code"] == "push_rejected"
    assert (bare / "refs" / "heads" / "main").read_text() == remote_before
    assert homes.state("b") == before

    # Pull, then the push goes through.
    assert homes("b", "pull").exit_code == 0
    assert homes("b", "push").exit_code == 0


def test_pull_refuses_hand_edits(homes, url):
    shared_start(homes, url)
    write(homes, "a", "viking://resources/notes.md", "from a\n")
    assert homes("a", "push").exit_code == 0
    edited = homes.path["b"] / "accounts" / "default" / "resources" / "other.md"
    edited.write_text("edited by hand\n")
    before = homes.state("b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1 and result.error["code"] == "hand_edit_conflict"
    assert "ov snapshot commit" in result.error["hint"]
    assert homes.state("b") == before
    assert homes("b", "snapshot", "commit", "-m", "keep it").exit_code == 0
    assert homes("b", "pull", "--json").json["result"]["outcome"] == "merged"
    assert homes("b", "read", "viking://resources/other.md").stdout == "edited by hand\n"
    assert homes("b", "read", "viking://resources/notes.md").stdout == "from a\n"


def test_pull_from_an_empty_remote_does_nothing(ov, bare, store_state):
    assert ov("write", "viking://resources/a.md", "--content", "x\n").exit_code == 0
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    before = store_state()
    result = ov("pull", "--json")
    assert result.exit_code == 0 and result.json["result"]["outcome"] == "empty-remote"
    assert store_state() == before


def test_unrelated_histories_merge_without_losing_either_side(homes, bare):
    write(homes, "a", "viking://resources/a.md", "a\n")
    write(homes, "a", "viking://resources/same.md", "from a\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/b.md", "b\n")
    write(homes, "b", "viking://resources/same.md", "from b\n")
    assert homes("b", "remote", "add", "origin", str(bare)).exit_code == 0
    before = homes.state("b")
    refused = homes("b", "pull", "--json")  # a typo'd URL, another team's repository: git refuses too
    assert refused.exit_code == 2 and refused.error["code"] == "unrelated_histories"
    assert "--allow-unrelated" in refused.error["hint"] and homes.state("b") == before
    pulled = homes("b", "pull", "--allow-unrelated", "--json").json["result"]
    assert pulled["outcome"] == "merged"
    assert [c["path"] for c in pulled["conflicts"]] == ["resources/same.md"]
    for uri, text in (("a.md", "a\n"), ("b.md", "b\n"), ("same.md", "from b\n")):
        assert homes("b", "read", f"viking://resources/{uri}").stdout == text


# --- unreachable remotes -------------------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("kind", ["missing-path", "closed-port", "not-a-repo"])
@pytest.mark.parametrize("verb", ["push", "pull"])
def test_unreachable_remote_is_a_clear_error_and_changes_nothing(ov, tmp_path, store_state, kind, verb):
    target = {
        "missing-path": str(tmp_path / "nowhere.git"),
        "closed-port": f"http://127.0.0.1:{_closed_port()}/x.git",
        "not-a-repo": str(tmp_path),
    }[kind]
    assert ov("write", "viking://resources/a.md", "--content", "x\n").exit_code == 0
    assert ov("remote", "add", "origin", target).exit_code == 0
    before = store_state()
    result = ov(verb, "--json")
    assert result.exit_code == 1, result.stderr
    assert result.error["code"] == "remote_unreachable"
    assert "origin" in result.error["message"]
    human = ov(verb)
    assert human.exit_code == 1 and human.stderr.startswith("error: cannot reach remote 'origin'")
    assert store_state() == before


# --- helpers of the core ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("resources/notes.md", "resources/notes.theirs-abcdef1.md"),
        ("resources/README", "resources/README.theirs-abcdef1"),
        ("resources/d/.abstract.md", "resources/d/.abstract.theirs-abcdef1.md"),
        ("a.tar.gz", "a.tar.theirs-abcdef1.gz"),
    ],
)
def test_conflict_copy_name(path, expected):
    from ov.history.remotes import conflict_copy_name, is_conflict_copy

    assert conflict_copy_name(path, "abcdef1234567890") == expected
    assert is_conflict_copy(expected)
    assert not is_conflict_copy(path)


def test_an_interrupted_pull_is_rolled_back_by_recover(homes, bare):
    """A crash after the journal and some work-tree writes, before the ref moved: recover undoes it."""
    import json
    import time

    from ov.store.gitstore import JOURNAL_NAME

    shared_start(homes, str(bare))
    write(homes, "a", "viking://resources/notes.md", "from a\n")
    assert homes("a", "push").exit_code == 0
    before = homes.state("b")
    root = homes.path["b"] / "accounts" / "default"
    state = homes.path["b"] / "state" / "default"
    journal = {"version": 1, "old": before[0], "new": "0" * 40, "paths": ["resources/notes.md"], "started": time.time()}
    (state / JOURNAL_NAME).write_text(json.dumps(journal))
    (root / "resources" / "notes.md").write_text("half applied\n")
    status = homes("b", "status", "--json").json["result"]
    assert status["recovered"].startswith("rolled back") and status["clean"]
    assert homes.state("b") == before


def test_conflict_copy_name_when_taken():
    from ov.history.remotes import conflict_copy_name, is_conflict_copy

    name = conflict_copy_name("resources/notes.md", "abcdef1234", 2)
    assert name == "resources/notes.theirs-abcdef1-2.md" and is_conflict_copy(name)


@pytest.mark.parametrize("dir_side", ["a", "b"])
def test_a_file_against_a_directory_is_refused_and_changes_nothing(homes, bare, dir_side):
    shared_start(homes, str(bare))
    file_side = "b" if dir_side == "a" else "a"
    write(homes, dir_side, "viking://resources/d/e.md", "in a directory\n")
    write(homes, file_side, "viking://resources/d", "a file\n")
    pusher, puller = ("a", "b")
    assert homes(pusher, "push").exit_code == 0
    before = homes.state(puller)
    result = homes(puller, "pull", "--json")
    assert result.exit_code == 1, result.stdout
    assert result.error["code"] == "merge_impossible"
    assert homes.state(puller) == before


def test_the_search_index_follows_a_pull(homes, url):
    def found(home, query):
        result = homes(home, "find", query, "--json")
        assert result.exit_code == 0, result.stderr
        return [h["uri"] for h in result.json["result"]["resources"]]

    shared_start(homes, url)
    write(homes, "b", "viking://resources/mine.md", "zucchini harvest notes\n")
    assert found("b", "zucchini")[0] == "viking://resources/mine.md"
    write(homes, "a", "viking://resources/theirs.md", "kohlrabi planting notes\n")
    assert homes("a", "push").exit_code == 0
    # (Vectors may bring the other vegetable along; the file that was pulled is what matters.)
    assert "viking://resources/theirs.md" not in found("b", "kohlrabi")
    assert homes("b", "pull", "--json").json["result"]["outcome"] == "merged"
    assert found("b", "kohlrabi")[0] == "viking://resources/theirs.md"
    assert found("b", "zucchini")[0] == "viking://resources/mine.md"


def test_with_several_remotes_the_default_is_origin_or_must_be_named(ov, bare, tmp_path):
    from dulwich.repo import Repo

    other = tmp_path / "other.git"
    other.mkdir()
    Repo.init_bare(str(other)).close()
    assert ov("write", "viking://resources/a.md", "--content", "x\n").exit_code == 0
    assert ov("remote", "add", "second", str(other)).exit_code == 0
    assert ov("remote", "add", "third", str(bare)).exit_code == 0
    ambiguous = ov("push", "--json")
    assert ambiguous.exit_code == 2 and "second, third" in ambiguous.error["message"]
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    pushed = ov("push", "--json").json["result"]
    assert pushed["remote"] == "origin"
    assert not (other / "refs" / "heads" / "main").exists()
    assert ov("push", "second").exit_code == 0
    assert (other / "refs" / "heads" / "main").exists()


def test_removing_a_remote_drops_its_tracking_refs(ov, bare, tmp_path):
    assert ov("write", "viking://resources/a.md", "--content", "x\n").exit_code == 0
    assert ov("remote", "add", "origin", str(bare)).exit_code == 0
    assert ov("push").exit_code == 0
    refs = tmp_path / "ovhome" / "accounts" / "default" / ".git" / "refs" / "remotes" / "origin"
    assert (refs / "main").exists()
    assert ov("remote", "remove", "origin").exit_code == 0
    assert not (refs / "main").exists()
    assert "[remote" not in (tmp_path / "ovhome" / "accounts" / "default" / ".git" / "config").read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
def test_real_git_agrees_with_a_merge(homes, bare):
    """Compat check: git itself sees a valid, clean merge in the account and in the remote."""
    shared_start(homes, str(bare))
    write(homes, "a", "viking://resources/notes.md", "version a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", "viking://resources/notes.md", "version b\n")
    assert homes("b", "pull").exit_code == 0
    assert homes("b", "push").exit_code == 0
    account = homes.path["b"] / "accounts" / "default"
    env = {"PATH": os.environ["PATH"], "HOME": str(account.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    for repo in (account, bare):
        subprocess.run(["git", "-C", str(repo), "fsck", "--strict"], check=True, env=env, capture_output=True)
    status = subprocess.run(["git", "-C", str(account), "status", "--porcelain"], check=True, env=env, capture_output=True, text=True)
    assert status.stdout == ""
    parents = subprocess.run(["git", "-C", str(bare), "log", "-1", "--format=%P", "main"], check=True, env=env, capture_output=True, text=True)
    assert len(parents.stdout.split()) == 2


# --- trees ov never writes: a hostile or broken remote ------------------------------------


def _account_git(homes, home) -> dict[str, bytes]:
    """What a refused pull must leave as it was besides HEAD and the files: the git index, the
    config, and the tracking ref of origin."""
    git_dir = homes.path[home] / "accounts" / "default" / ".git"
    tracking = git_dir / "refs" / "remotes" / "origin" / "main"
    return {
        "index": (git_dir / "index").read_bytes(),
        "config": (git_dir / "config").read_bytes(),
        "tracking": tracking.read_bytes() if tracking.exists() else b"",
    }


HOSTILE = {
    # The audit's: up out of the account to a file the user owns.
    "dot-dot": ((b"..", b"..", b"..", b"victim", b"authorized_keys"), FILE, b"ssh-ed25519 AAAA attacker\n"),
    # The account's own git config, whose core.fsmonitor runs a command on every `git status`.
    "dot-git": ((b".git", b"config"), FILE, b"[core]\n\tfsmonitor = touch PWNED\n"),
    "dot-git-upper": ((b".GIT", b"config"), FILE, b"[core]\n\tfsmonitor = touch PWNED\n"),
    "dot-git-ntfs-short": ((b"resources", b"git~1", b"config"), FILE, b"x\n"),
    "dot-git-trailing-dot": ((b"resources", b".git.", b"config"), FILE, b"x\n"),
    "dot": ((b"resources", b".", b"x.md"), FILE, b"x\n"),
    "slash-in-a-name": ((b"resources", b"a/b.md"), FILE, b"x\n"),
    "not-utf8": ((b"resources", b"\xff.md"), FILE, b"x\n"),
    "symlink": ((b"resources", b"passwd.md"), LINK, b"/etc/passwd"),
    "gitlink": ((b"resources", b"sub"), GITLINK, b"0123456789abcdef0123456789abcdef01234567"),
    "temp-file": ((b"resources", b"a.md.ov-tmp-1"), FILE, b"x\n"),
    "too-long": ((b"resources", *[b"d" * 200] * 16, b"x.md"), FILE, b"x\n"),
    # git refuses these names when they are not plain files; inside a scope ov never writes one at all.
    "gitmodules-link": ((b".gitmodules",), LINK, b"/etc/passwd"),
    "gitattributes-folder": ((b".gitattributes", b"x"), FILE, b"x\n"),
    "gitattributes-ntfs-short-link": ((b"gitatt~1",), LINK, b"../x"),
    "gitattributes-in-a-scope": ((b"resources", b".gitattributes"), FILE, b"*.md filter=lfs\n"),
}


@pytest.mark.parametrize("merge", [False, True], ids=["fast-forward", "merge"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_pull_refuses_a_tree_with_a_path_ov_never_writes_and_changes_nothing(homes, bare, tmp_path, kind, merge):
    names, mode, data = HOSTILE[kind]
    victim = tmp_path / "victim" / "authorized_keys"  # where ../../../ leads from home-b/accounts/default
    victim.parent.mkdir()
    victim.write_bytes(b"original\n")
    shared_start(homes, str(bare))
    if merge:  # local commits: the pull would merge
        write(homes, "b", "viking://resources/mine.md", "local\n")
    bad = add_commit(bare, {names: (mode, data)})
    before, git_before = homes.state("b"), _account_git(homes, "b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1, result.stdout
    assert result.error["code"] == "unsafe_tree"
    assert bad.decode()[:10] in result.error["message"] and "nothing was changed" in result.error["hint"]
    assert homes.state("b") == before and _account_git(homes, "b") == git_before
    assert victim.read_bytes() == b"original\n"
    account = homes.path["b"] / "accounts" / "default"
    assert not (account / "PWNED").exists() and not (account / ".GIT").exists()
    assert homes("b", "fsck").exit_code == 0 and homes("b", "status", "--json").json["result"]["clean"]


def test_the_refusal_names_the_path_and_what_is_wrong_with_it(homes, bare):
    shared_start(homes, str(bare))
    bad = add_commit(bare, {(b"resources", b".Git", b"hooks", b"post-merge"): (FILE, b"#!/bin/sh\n")})
    error = homes("b", "pull", "--json").error
    assert error["message"] == (
        f"refused to pull 'origin': its commit {bad.decode()[:10]} holds 'resources/.Git', "
        "segment '.Git' is reserved: git reserves this name in a tree (any case, and spellings such as '.git.' or 'git~1')"
    )


def test_a_name_with_a_nul_makes_a_tree_git_cannot_read_and_the_pull_is_refused(homes, bare):
    shared_start(homes, str(bare))
    add_commit(bare, {(b"resources", b"a\x00b.md"): (FILE, b"x\n")})
    before = homes.state("b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1 and result.error["code"] == "unsafe_tree"
    assert "not well-formed git" in result.error["message"]
    assert homes.state("b") == before


def test_a_bad_path_in_any_new_commit_is_refused_even_when_the_tip_no_longer_holds_it(homes, bare):
    """A later `ov snapshot restore` of that commit would write it: the whole new history is checked."""
    from dulwich.repo import Repo

    shared_start(homes, str(bare))
    bad = add_commit(bare, {(b".git", b"config"): (FILE, b"[core]\n\tfsmonitor = touch PWNED\n")})
    with Repo(str(bare)) as repo:  # the next commit puts the tree back as it was
        clean_tree = repo[repo[repo[bad].parents[0]].tree]
    add_commit(bare, {})  # a commit on top...
    with Repo(str(bare)) as repo:
        tip = repo[repo.refs[b"refs/heads/main"]]
        tip.tree = clean_tree.id  # ...holding the tree before the bad one
        repo.object_store.add_object(tip)
        repo.refs[b"refs/heads/main"] = tip.id
    before = homes.state("b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1 and bad.decode()[:10] in result.error["message"]
    assert homes.state("b") == before


def test_once_the_remote_drops_the_bad_commit_pulls_work_again(homes, bare):
    from dulwich.repo import Repo

    shared_start(homes, str(bare))
    good = Repo(str(bare)).refs[b"refs/heads/main"]
    add_commit(bare, {(b"..", b"x.md"): (FILE, b"x\n")})
    assert homes("b", "pull").exit_code == 1
    with Repo(str(bare)) as repo:
        repo.refs[b"refs/heads/main"] = good  # the remote's owner removes it
    write(homes, "a", "viking://resources/notes.md", "fixed\n")
    assert homes("a", "push").exit_code == 0
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0 and pulled.json["result"]["outcome"] == "fast-forward"
    assert homes("b", "read", "viking://resources/notes.md").stdout == "fixed\n"
    assert homes.state("a") == homes.state("b")


def test_an_executable_file_from_plain_git_is_pulled_as_a_regular_file(homes, bare):
    shared_start(homes, str(bare))
    add_commit(bare, {(b"resources", b"run.md"): (0o100755, b"# notes\n")})
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    assert homes("b", "read", "viking://resources/run.md").stdout == "# notes\n"


def test_a_conflict_copy_whose_name_would_be_too_long_refuses_the_merge_and_changes_nothing(homes, bare):
    long = "viking://resources/" + "n" * 250 + ".md"  # 253 bytes: its copy adds ".theirs-<sha>"
    write(homes, "a", long, "first\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("a", "push").exit_code == 0
    assert homes("b", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("b", "pull").exit_code == 0
    write(homes, "a", long, "from a\n")
    assert homes("a", "push").exit_code == 0
    write(homes, "b", long, "from b\n")
    before = homes.state("b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1 and result.error["code"] == "merge_impossible"
    assert "bytes long" in result.error["message"]
    assert homes.state("b") == before


def test_a_tag_of_a_refused_commit_is_not_adopted_by_a_later_pull(homes, bare):
    from dulwich.repo import Repo

    shared_start(homes, str(bare))
    good = Repo(str(bare)).refs[b"refs/heads/main"]
    bad = add_commit(bare, {(b".git", b"config"): (FILE, b"[core]\n\tfsmonitor = touch PWNED\n")})
    assert homes("b", "pull").exit_code == 1  # its objects are fetched all the same
    with Repo(str(bare)) as repo:
        repo.refs[b"refs/heads/main"] = good
        repo.refs[b"refs/tags/evil"] = bad
    write(homes, "a", "viking://resources/notes.md", "later\n")
    assert homes("a", "snapshot", "tag", "fine").exit_code == 0
    assert homes("a", "push").exit_code == 0
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0 and pulled.json["result"]["tags"] == ["fine"]
    assert b"refs/tags/evil" not in Repo(str(homes.path["b"] / "accounts" / "default")).refs


class _CountingReads:
    """A repository whose tree reads by :func:`ov.store.treepaths.unsafe_paths` are counted."""

    def __init__(self, repo) -> None:
        self.repo, self.reads = repo, []
        self.object_store = self

    def get_walker(self, **kwargs):
        return self.repo.get_walker(**kwargs)

    def __getitem__(self, sha: bytes):
        self.reads.append(sha)
        return self.repo.object_store[sha]


def test_a_shared_clean_set_reads_no_tree_twice_and_a_walk_that_finds_a_bad_path_marks_nothing_safe(ov, ov_home):
    from dulwich.repo import Repo

    from ov.store.treepaths import first_unsafe

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    account = ov_home / "accounts" / "default"
    good = add_commit(account, {(b"resources", b"b.md"): (FILE, b"b\n")})
    bad = add_commit(account, {(b"resources", b".git", b"config"): (FILE, b"[core]\n\tfsmonitor = x\n")})
    with Repo(str(account)) as repo:
        counted = _CountingReads(repo)
        clean: set = set()
        assert first_unsafe(counted, [bad], clean=clean).commit == bad.decode()
        assert first_unsafe(counted, [bad], clean=clean).commit == bad.decode(), "the failed walk left nothing marked safe"
        assert first_unsafe(counted, [good], clean=clean) is None
        counted.reads.clear()
        assert first_unsafe(counted, [good], clean=clean) is None
        assert counted.reads == [], "every tree of a history found safe is read once"
        assert first_unsafe(counted, [bad], clean=clean).commit == bad.decode()
        assert repo[repo[good].tree].id not in counted.reads and repo[bad].tree in counted.reads


@pytest.mark.parametrize("fine, evil", [(b"a-fine", b"b-evil"), (b"b-fine", b"a-evil")])
def test_tags_checked_together_still_leave_out_each_whose_history_holds_a_bad_path(ov, ov_home, fine, evil):
    from dulwich.repo import Repo

    from ov.history.remotes import _adopt_tags

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    account = ov_home / "accounts" / "default"
    with Repo(str(account)) as repo:
        head = repo.refs[b"refs/heads/main"]
    good = add_commit(account, {(b"resources", b"b.md"): (FILE, b"b\n")})
    bad = add_commit(account, {(b"..", b"outside.md"): (FILE, b"x\n")})
    with Repo(str(account)) as repo:
        repo.refs[b"refs/heads/main"] = head  # fetched, not pulled
        tags = {b"refs/tags/" + fine: good, b"refs/tags/" + evil: bad, b"refs/tags/" + evil + b"2": bad}
        assert _adopt_tags(repo, tags, head) == ([fine.decode()], [])
        assert set(repo.refs.as_dict(b"refs/tags")) == {fine}


def test_a_file_found_safe_in_a_newer_commit_hides_no_link_of_the_same_name_further_back(ov, ov_home):
    from dulwich.repo import Repo

    from ov.store.treepaths import first_unsafe

    assert ov("write", "viking://resources/a.md", "--content", "a\n").exit_code == 0
    account = ov_home / "accounts" / "default"
    linked = add_commit(account, {(b"resources", b"x.md"): (LINK, b"/etc/passwd")})
    replaced = add_commit(account, {(b"resources", b"x.md"): (FILE, b"a file now\n")})
    with Repo(str(account)) as repo:
        found = first_unsafe(repo, [replaced])
    assert found is not None and (found.commit, found.path) == (linked.decode(), "resources/x.md") and "symbolic link" in found.problem


# --- a history an older ov made: names ov no longer makes, never an escape --------------------

OLDER_OVS = {
    # ov before c49ddda kept a source's names as they were; up to 5679124 it took `--user .bob`
    # and `session new --id .hidden`.
    (b"resources", b"src", b"todo "): (FILE, b"buy milk\n"),
    (b"resources", b"src", b" lead.txt"): (FILE, b"lead\n"),
    (b"resources", b"dir ", b"x.md"): (FILE, b"x\n"),
    (b"user", b".bob", b"memories", b"preferences", b"emacs.md"): (FILE, b"I prefer emacs\n"),
    (b"user", b"default", b"sessions", b".hidden", b".meta.json"): (FILE, b'{"session_id": ".hidden", "user": "default", "version": 1}\n'),
}


def test_a_history_with_names_an_older_ov_stored_is_pulled_backed_up_restored_and_renamed(homes, bare, tmp_path):
    # (an upgrade audit: c49ddda allowed such names one by one, but the whole-path check still
    # refused the history for good, and a backup holding one could not be restored)
    shared_start(homes, str(bare))
    add_commit(bare, OLDER_OVS, b"ov add-resource viking://resources/src\n")
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    account = homes.path["b"] / "accounts" / "default"
    assert (account / "resources/src/todo ").read_text() == "buy milk\n" and (account / "resources/dir /x.md").exists()
    assert homes("b", "status", "--json").json["result"]["clean"]
    fsck = homes("b", "fsck", "--json")
    assert fsck.exit_code == 0
    [note] = [f for f in fsck.json["result"]["findings"] if "older ov" in f["message"]]
    assert note["severity"] == "note" and note["message"].startswith("5 files of HEAD have names an older ov stored")
    assert "ov session delete .hidden" in note["fix"]
    assert "ov mv viking://user/.bob/FOLDER viking://user/bob/FOLDER" in note["fix"]
    assert homes("b", "read", "viking://user/.bob/memories/preferences/emacs.md").stdout == "I prefer emacs\n"
    assert homes("b", "read", "viking://resources/src/todo ").stdout == "buy milk\n"
    assert homes("b", "session", "show", ".hidden").exit_code == 0  # the session an older ov made, by its id
    assert homes("b", "session", "new", "--id", ".other").exit_code == 2  # but no new one
    # a backup of it comes back whole in another home
    pack = tmp_path / "b.ovpack"
    assert homes("b", "backup", str(pack)).exit_code == 0
    restored = homes("a", "restore", str(pack), "--json")
    assert restored.exit_code == 0, restored.stderr
    assert (homes.path["a"] / "accounts/default/resources/src/ lead.txt").read_text() == "lead\n"
    # the fix fsck gives works, and then fsck no longer names the id
    assert homes("b", "mv", "viking://user/.bob/memories", "viking://user/bob/memories").exit_code == 0
    assert homes("b", "read", "viking://user/bob/memories/preferences/emacs.md").stdout == "I prefer emacs\n"
    after = homes("b", "fsck", "--json").json["result"]["findings"]
    assert next(f["message"] for f in after if "older ov" in f["message"]).startswith("4 files of HEAD")
    # and the history pushes and pulls on: the pushed merge is no commit ov refuses
    assert homes("b", "push").exit_code == 0 and homes("a", "remote", "add", "origin", str(bare)).exit_code in (0, 1)
    assert homes("a", "pull", "--json").exit_code == 0


def test_a_push_of_a_history_no_pull_takes_says_so(homes, bare):
    # (an upgrade audit: ov at 5b929ee's time stored "git~1"; `ov push` sent it without a word and
    # every pull of it was refused, its hint saying ov never makes such a commit)
    shared_start(homes, str(bare))
    bad = add_commit(homes.path["a"] / "accounts" / "default", {(b"resources", b"src", b"git~1"): (FILE, b"tilde\n")}).decode()
    pushed = homes("a", "push")
    assert pushed.exit_code == 0, pushed.stderr  # the remote is the account's own copy too
    assert f"`ov pull` of what was pushed is refused: its commit {bad[:10]} holds 'resources/src/git~1'" in pushed.stderr
    again = homes("a", "push", "--json").json["result"]  # nothing new is sent, nothing is said
    assert again["pushed"] is False and again["refused_by_pull"] is None
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 1 and pulled.error["code"] == "unsafe_tree"
    assert "an older ov stored is pulled as it is" in pulled.error["hint"]


# --- what the audit of sharing found --------------------------------------------------------


def test_a_push_into_an_account_with_main_checked_out_is_refused_and_moves_nothing(homes):
    """Pushing straight into the other machine's account would move its main under its files
    (git refuses it: receive.denyCurrentBranch); a bare repository is the way."""
    write(homes, "a", "viking://resources/p/a.md", "a\n")
    account_a = homes.path["a"] / "accounts" / "default"
    assert homes("b", "remote", "add", "alice", str(account_a)).exit_code == 0
    assert homes("b", "pull").exit_code == 0
    write(homes, "b", "viking://resources/p/b.md", "from b\n")
    before = homes.state("a")
    result = homes("b", "push", "--json")
    assert result.exit_code == 2 and result.error["code"] == "remote_not_bare"
    assert "git init --bare" in result.error["hint"]
    assert homes.state("a") == before and homes("a", "status", "--json").json["result"]["clean"]


def test_files_outside_the_scopes_on_the_remote_are_kept_in_the_tree_and_ignored(homes, bare):
    """A README.md a hosting service or a teammate committed is what `ov status` ignores in the work
    tree: a pull takes it into the tree without writing it, a push gives it back, and removing it
    on the remote (in a later commit) leaves nothing blocked."""
    from dulwich.repo import Repo

    shared_start(homes, str(bare))
    # A plain .gitattributes or .gitmodules too: git reserves those names only for what is not a plain file.
    add_commit(
        bare,
        {
            (b"README.md",): (FILE, b"# team context\n"),
            (b".github", b"ci.yml"): (FILE, b"on: push\n"),
            (b".gitattributes",): (FILE, b"* text=auto\n"),
            (b".GITMODULES",): (FILE, b""),
        },
    )
    write(homes, "b", "viking://resources/mine.md", "local\n")  # the pull merges
    for home in ("a", "b"):  # a: fast-forward, b: merge
        pulled = homes(home, "pull", "--json")
        assert pulled.exit_code == 0, pulled.stderr
        assert "README.md" not in pulled.json["result"]["changed"]
        account = homes.path[home] / "accounts" / "default"
        assert not [p for p in ("README.md", ".github", ".gitattributes", ".GITMODULES") if (account / p).exists()]
        assert homes(home, "status", "--json").json["result"]["clean"]
        assert homes(home, "fsck").exit_code == 0
    assert homes("b", "push").exit_code == 0
    with Repo(str(bare)) as repo:
        tree = repo[repo[repo.refs[b"refs/heads/main"]].tree]
        assert {b"README.md", b".gitattributes", b".GITMODULES", b"resources"} <= set(tree)


def test_a_merge_writes_the_generated_summaries_again_instead_of_conflict_copies(homes, bare, tmp_path):
    (tmp_path / "alerts.md").write_text("# Alerts\nPagerDuty alert routing rules.\n")
    (tmp_path / "backups.md").write_text("# Backups\nNightly restic backups.\n")
    write(homes, "a", "viking://resources/docs/readme.md", "# Readme\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0 and homes("a", "push").exit_code == 0
    assert homes("b", "remote", "add", "origin", str(bare)).exit_code == 0 and homes("b", "pull").exit_code == 0
    assert homes("a", "add-resource", str(tmp_path / "alerts.md"), "--to", "viking://resources/docs/alerts.md").exit_code == 0
    assert homes("b", "add-resource", str(tmp_path / "backups.md"), "--to", "viking://resources/docs/backups.md").exit_code == 0
    assert homes("a", "push").exit_code == 0
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    result = pulled.json["result"]
    assert result["outcome"] == "merged" and result["conflicts"] == []
    assert homes("b", "status", "--json").json["result"]["clean"]
    assert not [p for p in _files(homes.path["b"]) if ".theirs-" in p]
    overview = homes("b", "overview", "viking://resources/docs").stdout
    assert "alerts" in overview.lower() and "backups" in overview.lower()
    # One commit: the merge itself holds the summaries written again.
    account = homes.path["b"] / "accounts" / "default"
    env = {"PATH": os.environ["PATH"], "HOME": str(account.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    parents = subprocess.run(["git", "-C", str(account), "log", "-1", "--format=%P"], check=True, env=env, capture_output=True, text=True)
    assert len(parents.stdout.split()) == 2
    assert subprocess.run(["git", "-C", str(account), "status", "--porcelain"], check=True, env=env, capture_output=True, text=True).stdout == ""


def _files(home: Path) -> list[str]:
    root = home / "accounts" / "default"
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts]


def test_a_remote_made_with_a_readme_is_merged_and_removing_the_readme_later_blocks_nothing(homes, bare):
    """A hosting service's "initialize with a README": a history of its own that holds nothing of
    ov's, so no --allow-unrelated is needed; neither is rewriting it when the README goes later."""
    from dulwich.objects import Blob, Commit, Tree
    from dulwich.repo import Repo

    with Repo(str(bare)) as repo:
        blob = Blob.from_string(b"# team context\n")
        tree = Tree()
        tree.add(b"README.md", FILE, blob.id)
        commit = Commit()
        commit.tree, commit.parents, commit.message = tree.id, [], b"Initial commit\n"
        commit.author = commit.committer = b"host <h@example.com>"
        commit.author_time = commit.commit_time = 1
        commit.author_timezone = commit.commit_timezone = 0
        for obj in (blob, tree, commit):
            repo.object_store.add_object(obj)
        repo.refs[b"refs/heads/main"] = commit.id
    write(homes, "a", "viking://resources/notes.md", "mine\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    pulled = homes("a", "pull", "--json")
    assert pulled.exit_code == 0 and pulled.json["result"]["outcome"] == "merged", pulled.stderr
    assert homes("a", "push").exit_code == 0
    with Repo(str(bare)) as repo:  # the teammate's README stays, ov's files join it
        assert {b"README.md", b"resources"} <= set(repo[repo[repo.refs[b"refs/heads/main"]].tree])
    add_commit(bare, {(b"resources", b"theirs.md"): (FILE, b"theirs\n")})
    assert homes("a", "pull").exit_code == 0
    assert homes("a", "read", "viking://resources/theirs.md").stdout == "theirs\n"


def test_a_remote_whose_main_is_no_commit_or_is_locked_or_has_bad_packed_refs_is_a_clear_error(homes, bare):
    from dulwich.repo import Repo

    shared_start(homes, str(bare))
    with Repo(str(bare)) as repo:
        head = repo.refs[b"refs/heads/main"]
        tree = repo[head].tree
    (bare / "refs" / "heads" / "main").write_bytes(tree + b"\n")
    before = homes.state("b")
    for verb in ("pull", "push"):
        result = homes("b", verb, "--json")
        assert result.exit_code == 2 and result.error["code"] == "bad_remote", (verb, result.stderr)
        assert "tree" in result.error["message"]
    assert homes.state("b") == before
    (bare / "refs" / "heads" / "main").write_bytes(head + b"\n")
    write(homes, "b", "viking://resources/new.md", "new\n")
    (bare / "refs" / "heads" / "main.lock").write_bytes(b"")  # a killed git left it
    result = homes("b", "push", "--json")
    assert result.exit_code == 1 and result.error["code"] == "store_locked"
    assert "main.lock" in result.error["message"]
    (bare / "refs" / "heads" / "main.lock").unlink()
    (bare / "packed-refs").write_bytes(head + b" refs/tags/../../x\n")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 2 and result.error["code"] == "bad_remote", result.stderr


def test_push_uses_the_push_url_git_was_given(homes, bare, tmp_path):
    from dulwich.repo import Repo

    elsewhere = tmp_path / "push-here.git"
    elsewhere.mkdir()
    Repo.init_bare(str(elsewhere)).close()
    write(homes, "a", "viking://resources/notes.md", "first\n")
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    account = homes.path["a"] / "accounts" / "default"
    env = {"PATH": os.environ["PATH"], "HOME": str(account.parent), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(account), "remote", "set-url", "--push", "origin", str(elsewhere)], check=True, env=env)
    pushed = homes("a", "push", "--json")
    assert pushed.exit_code == 0 and pushed.json["result"]["url"] == str(elsewhere)
    with Repo(str(elsewhere)) as repo:
        assert b"refs/heads/main" in repo.refs
    with Repo(str(bare)) as repo:
        assert b"refs/heads/main" not in repo.refs
    # the list names where a push goes, as `git remote -v` does
    listed = homes("a", "remote", "list", "--json").json["result"]
    assert listed == [{"name": "origin", "url": str(bare), "push_url": str(elsewhere)}]
    human = homes("a", "remote", "list").stdout
    assert f"origin\t{bare} (fetch)" in human and f"origin\t{elsewhere} (push)" in human


def test_a_file_ov_ignores_where_a_pull_needs_a_folder_is_named_and_nothing_moves(homes, bare):
    shared_start(homes, str(bare))
    add_commit(bare, {(b"user", b"foo", b"memories", b"profile.md"): (FILE, b"- Shell: zsh\n")})
    stray = homes.path["b"] / "accounts" / "default" / "user" / "foo"
    stray.parent.mkdir(exist_ok=True)
    stray.write_bytes(b"made by hand\n")  # where no file may be: `ov status` lists it as ignored
    assert "user/foo" in homes("b", "status", "--json").json["result"]["ignored"]
    before = homes.state("b")
    result = homes("b", "pull", "--json")
    assert result.exit_code == 1 and "'user/foo'" in result.error["message"] and str(stray) in result.error["hint"]
    assert homes.state("b") == before
    stray.unlink()
    assert homes("b", "pull").exit_code == 0


def test_two_machines_remembering_profile_facts_merge_per_key_without_a_conflict(homes, bare):
    assert homes("a", "remember", "My editor is Neovim").exit_code == 0
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0 and homes("a", "push").exit_code == 0
    assert homes("b", "remote", "add", "origin", str(bare)).exit_code == 0 and homes("b", "pull").exit_code == 0
    assert homes("a", "remember", "My shell is zsh").exit_code == 0
    assert homes("b", "remember", "My favourite language is Rust").exit_code == 0
    assert homes("a", "push").exit_code == 0
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0 and pulled.json["result"]["conflicts"] == [], pulled.stdout
    profile = homes("b", "read", "viking://user/default/memories/profile.md").stdout
    for fact in ("Editor: Neovim", "Shell: zsh", "Favourite language: Rust"):
        assert fact in profile
    assert homes("b", "status", "--json").json["result"]["clean"]


def _drop_on_remote(bare, path: bytes) -> None:
    """A new commit on the remote's main without ``path``, as `git rm` and a push would make it."""
    from dulwich.object_store import commit_tree_changes
    from dulwich.objects import Commit
    from dulwich.repo import Repo

    with Repo(str(bare)) as repo:
        tip = repo[repo.refs[b"refs/heads/main"]]
        commit = Commit()
        commit.tree = commit_tree_changes(repo.object_store, tip.tree, [(path, None, None)])
        commit.parents, commit.message = [tip.id], b"rm\n"
        commit.author = commit.committer = b"g <g@example.com>"
        commit.author_time = commit.commit_time = tip.commit_time + 1
        commit.author_timezone = commit.commit_timezone = 0
        repo.object_store.add_object(commit)
        repo.refs[b"refs/heads/main"] = commit.id


def test_a_pull_refuses_one_name_in_two_unicode_forms_until_the_remote_renames_one(homes, bare):
    import unicodedata

    shared_start(homes, str(bare))
    composed, decomposed = (unicodedata.normalize(form, "café.md").encode() for form in ("NFC", "NFD"))
    add_commit(bare, {(b"resources", b"n", composed): (FILE, b"composed\n"), (b"resources", b"n", decomposed): (FILE, b"decomposed\n")})
    before = homes.state("b")
    refused = homes("b", "pull", "--json")
    assert refused.exit_code == 1 and refused.error["code"] == "unsafe_tree"
    assert "one name in two Unicode forms" in refused.error["message"] and homes.state("b") == before
    _drop_on_remote(bare, b"resources/n/" + decomposed)
    assert homes("b", "pull").exit_code == 0
    assert homes("b", "read", "viking://resources/n/café.md").stdout == "composed\n"


def test_a_pull_and_an_import_say_so_of_one_name_in_two_cases(homes, bare, tmp_path, caplog):
    shared_start(homes, str(bare))
    add_commit(bare, {(b"resources", b"d", b"Notes.md"): (FILE, b"upper\n"), (b"resources", b"d", b"notes.md"): (FILE, b"lower\n")})
    pulled = homes("b", "pull")
    assert pulled.exit_code == 0 and "'resources/d/Notes.md' and 'resources/d/notes.md', one name in two cases" in pulled.stderr
    assert homes("b", "export", "viking://resources/d", str(tmp_path / "r.ovpack")).exit_code == 0
    assert homes("b", "mkdir", "viking://resources/again").exit_code == 0
    imported = homes("b", "import", str(tmp_path / "r.ovpack"), "viking://resources/again")
    assert imported.exit_code == 0, imported.stderr
    assert "one name in two cases" in caplog.text


@pytest.mark.parametrize("merge", [False, True], ids=["fast-forward", "merge"])
def test_a_pulled_summary_over_its_limit_is_cut_as_an_import_cuts_it(homes, bare, merge):
    shared_start(homes, str(bare))
    if merge:
        write(homes, "b", "viking://resources/mine.md", "local\n")
    big = "---\ndirectory: viking://resources/\n---\n\n" + "Borealis quasar abstract. " * 800 + "\n"
    add_commit(bare, {(b"resources", b".abstract.md"): (FILE, big.encode())})
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    assert pulled.json["result"]["shortened"] == ["resources/.abstract.md"] and "cut 1 summary" in pulled.stderr
    assert len(homes("b", "abstract", "viking://resources").stdout.strip()) <= 256
    assert homes("b", "status", "--json").json["result"]["clean"]


def test_a_pulled_file_over_the_file_limit_is_named_with_the_check_an_import_refuses_it_by(homes, bare):
    shared_start(homes, str(bare))
    assert homes("b", "config", "set", "store.max_file_bytes", "1000").exit_code == 0
    add_commit(bare, {(b"resources", b"huge.md"): (FILE, b"x" * 2000), (b"user", b"default", b"sessions", b"s1", b"messages.jsonl"): (FILE, b"{}\n" * 700)})
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0, pulled.stderr
    warnings = pulled.json["result"]["warnings"]
    assert len(warnings) == 1 and "'resources/huge.md': 2000 bytes, over the 1000-byte limit" in warnings[0]
    assert "ov config set store.max_file_bytes 2000" in warnings[0] and warnings[0] in pulled.stderr


@pytest.mark.parametrize("merge", [False, True])
def test_a_pull_that_removes_a_session_takes_what_redaction_remembers_of_it(homes, bare, merge):
    """A session deleted on another machine, pulled here (fast-forward or merged): what redaction
    remembered of its secrets on this machine went on for good."""
    assert homes("b", "session", "add", "s", "--text", "the new db password is Tr0ub4dor&3zz").exit_code == 0
    [state] = list(homes.path["b"].rglob("redacted/default/s.json"))
    assert homes("b", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("b", "push").exit_code == 0
    assert homes("a", "remote", "add", "origin", str(bare)).exit_code == 0
    assert homes("a", "pull").exit_code == 0
    assert homes("a", "session", "delete", "s").exit_code == 0
    assert homes("a", "push").exit_code == 0
    if merge:
        write(homes, "b", "viking://resources/mine.md", "written here meanwhile\n")
    pulled = homes("b", "pull", "--json")
    assert pulled.exit_code == 0 and pulled.json["result"]["outcome"] == ("merged" if merge else "fast-forward"), pulled.stderr
    assert not state.exists()
