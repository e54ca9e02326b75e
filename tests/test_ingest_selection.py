"""Which files of a folder `ov add-resource` takes: what git ignores, environments, files for
machines, hidden paths an --include names, and what it says about the rest."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo


def skipped(data: dict) -> dict[str, str]:
    return {s["path"]: s["reason"] for s in data["skipped"]}


def stored(home: Path, name: str) -> set[str]:
    root = home / "accounts/default/resources" / name
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")}


def test_a_sub_folder_of_a_work_tree_leaves_out_what_the_work_trees_gitignore_names(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / "docs/_build/html").mkdir(parents=True)
    (project / "docs/guide").mkdir()
    Repo.init(str(project)).close()
    (project / ".gitignore").write_text("docs/_build/\n*.log\n")
    (project / "docs/.gitignore").write_text("drafts/\n")  # one between the top and the folder added
    (project / "docs/guide/intro.md").write_text("# Guide\n\nHow to start.\n")
    (project / "docs/_build/html/index.html").write_text("<html><body>built page</body></html>\n")
    (project / "docs/debug.log").write_text("debug log\n")
    (project / "docs/guide/drafts").mkdir()
    (project / "docs/guide/drafts/wip.md").write_text("# WIP\n")
    data = ov("add-resource", str(project / "docs"), "--json").json["result"]
    assert stored(ov_home, "docs") == {"guide/intro.md"}
    assert skipped(data) == {".gitignore": "hidden", "_build/": "ignored by git", "debug.log": "ignored by git", "guide/drafts/": "ignored by git"}


def test_a_folder_git_ignores_named_on_purpose_is_taken(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / "build/docs").mkdir(parents=True)
    Repo.init(str(project)).close()
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "build/docs/page.md").write_text("# Page\n\nBuilt docs.\n")
    (project / "build/docs/run.log").write_text("log\n")
    (project / "build/docs/.gitignore").write_text("tmp/\n")
    (project / "build/docs/tmp").mkdir()
    (project / "build/docs/tmp/x.md").write_text("# X\n")
    # As `git add -f` would: the rules above the folder, which ignore all of it, are set aside; the
    # .gitignore files inside it still count.
    data = ov("add-resource", str(project / "build/docs"), "--json").json["result"]
    assert stored(ov_home, "docs") == {"page.md", "run.log"}
    assert skipped(data) == {".gitignore": "hidden", "tmp/": "ignored by git"}


def test_git_info_exclude_and_the_users_excludes_file_are_honoured(ov, ov_home, tmp_path, monkeypatch):
    home = Path.home()
    project = tmp_path / "proj"
    project.mkdir()
    Repo.init(str(project)).close()
    (project / ".git/info").mkdir(exist_ok=True)
    (project / ".git/info/exclude").write_text("notes.local\n")
    (project / "app.py").write_text("print(1)\n")
    (project / "notes.local").write_text("my own notes\n")
    (project / "keys.private").write_text("private stuff\n")
    (project / "scratch.tmp").write_text("scratch\n")
    (home / "gitignore_global").parent.mkdir(parents=True, exist_ok=True)
    (home / "gitignore_global").write_text("*.private\n")
    (home / ".gitconfig").write_text(f"[core]\n\texcludesFile = {home / 'gitignore_global'}\n")
    data = ov("add-resource", str(project), "--json").json["result"]
    assert stored(ov_home, "proj") == {"app.py", "scratch.tmp"}
    assert skipped(data) == {".git/": "version-control folder", "notes.local": "ignored by git", "keys.private": "ignored by git"}

    # Without core.excludesFile, git reads ~/.config/git/ignore.
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    (home / ".gitconfig").unlink()
    (home / ".config/git").mkdir(parents=True)
    (home / ".config/git/ignore").write_text("*.tmp\n")
    data = ov("add-resource", str(project), "--json").json["result"]
    assert stored(ov_home, "proj") == {"app.py", "keys.private"}
    assert skipped(data)["scratch.tmp"] == "ignored by git"


@pytest.mark.parametrize("name", ["venv", "env", ".tox_py312", "whatever"])
def test_a_python_environment_is_skipped_whatever_its_name(ov, ov_home, tmp_path, name):
    project = tmp_path / "proj"
    (project / name / "lib/python3.11/site-packages/pip").mkdir(parents=True)
    (project / "app.py").write_text("def main(): pass\n")
    (project / name / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    (project / name / "lib/python3.11/site-packages/pip/__init__.py").write_text('"""pip"""\n')
    data = ov("add-resource", str(project), "--json").json["result"]
    assert stored(ov_home, "proj") == {"app.py"}
    reason = skipped(data)[f"{name}/"]
    assert reason == ("hidden" if name.startswith(".") else "Python virtual environment (holds pyvenv.cfg)")


def test_a_conda_environment_is_skipped(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / "envs/ml/conda-meta").mkdir(parents=True)
    (project / "envs/ml/conda-meta/history").write_text("==> 2024 <==\n")
    (project / "envs/ml/README.txt").write_text("conda env\n")
    (project / "notes.md").write_text("# Notes\n")
    data = ov("add-resource", str(project), "--json").json["result"]
    assert stored(ov_home, "proj") == {"notes.md"}
    assert skipped(data) == {"envs/ml/": "conda environment (holds conda-meta/)"}


def test_lockfiles_minified_bundles_and_source_maps_are_skipped_unless_included(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / "dist").mkdir(parents=True)
    (project / "app.py").write_text("def main(): pass\n")
    (project / "dist/app.min.js").write_text("var x=1,y=2;\n")
    (project / "dist/app.min.css").write_text("a{b:c}\n")
    (project / "dist/app.min.js.map").write_text('{"version":3,"mappings":"AAAA"}\n')
    (project / "dist/app.js").write_text("var x = 1;\n")
    for lock in ("uv.lock", "package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "Gemfile.lock", "composer.lock", "go.sum"):
        (project / lock).write_text("locked\n")
    data = ov("add-resource", str(project), "--json").json["result"]
    assert stored(ov_home, "proj") == {"app.py", "dist/app.js"}
    reasons = skipped(data)
    assert reasons["dist/app.min.js"] == reasons["dist/app.min.css"] == "minified bundle (--include takes it)"
    assert reasons["dist/app.min.js.map"] == "source map (--include takes it)"
    assert reasons["go.sum"] == reasons["uv.lock"] == "lockfile (--include takes it)" and len(reasons) == 12

    data = ov("add-resource", str(project), "--include", "uv.lock,*.min.js", "--to", "viking://resources/locks", "--json").json["result"]
    assert stored(ov_home, "locks") == {"uv.lock", "dist/app.min.js"}


def test_an_include_that_names_a_hidden_path_takes_it(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / ".github/workflows").mkdir(parents=True)
    (project / ".venv/lib").mkdir(parents=True)
    (project / "app.py").write_text("print(1)\n")
    (project / ".github/workflows/ci.yml").write_text("on: push\n")
    (project / ".github/CODEOWNERS").write_text("* @team\n")
    (project / ".pre-commit-config.yaml").write_text("repos: []\n")
    (project / ".venv/lib/x.yml").write_text("a: 1\n")
    (project / ".env").write_text("A=1\n")
    data = ov("add-resource", str(project), "--include", ".github/workflows/*.yml", "--include", ".pre-commit-config.yaml,*.py", "--json").json["result"]
    # Stored with a `_` before the dot, as a hidden file added on its own is: ls and the summaries
    # show them (ov's own files are the hidden ones), and the name says the source's.
    assert stored(ov_home, "proj") == {"_.github/workflows/ci.yml", "_.pre-commit-config.yaml", "app.py"}
    reasons = skipped(data)
    assert reasons[".github/CODEOWNERS"] == "not matched by --include"
    assert reasons[".venv/"] == reasons[".env"] == "hidden", "a pattern that does not spell the dot takes no hidden path"


def test_a_hidden_path_is_stored_apart_from_its_shown_twin(ov, ov_home, tmp_path):
    # Found by a review: `.github/` was stored as `github/`, so a `github/` beside it was renamed
    # `github_2/` (sorted after it) and neither name said which was which.
    project = tmp_path / "proj"
    for rel, text in {".github/workflows/ci.yml": "on: push\n", "github/workflows/ci.yml": "name: mirror\n", ".env": "A=1\n", "env": "B=2\n", "_.cache": "c\n"}.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text)
    (project / ".env.production").write_text("DB_PASSWORD=hunter2-but-longer\n")
    data = ov("add-resource", str(project), "--include", ".github/**,github/**,.env*,env,_.cache", "--json").json["result"]
    assert stored(ov_home, "proj") == {
        "_.github/workflows/ci.yml", "github/workflows/ci.yml", "_.env", "env", "_.env.production", "__.cache",
    }

    def read(rel: str) -> str:
        return ov("read", f"viking://resources/proj/{rel}").stdout

    assert (read("_.github/workflows/ci.yml"), read("github/workflows/ci.yml")) == ("on: push\n", "name: mirror\n")
    assert (read("_.env"), read("env")) == ("A=1\n", "B=2\n")
    # A hidden settings file in a folder is redacted as one, by the name it has on disk.
    assert read("_.env.production") == "DB_PASSWORD=[REDACTED:assigned_secret]\n" and data["redacted"] == 1


def test_a_python_file_is_read_in_the_encoding_it_declares(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "cp_1251_coded.py").write_bytes('#!/usr/bin/python\n# -*- coding: cp1251 -*-\n"""Привет, мир."""\nX = "Ђ"\n'.encode("cp1251"))
    (project / "menu.py").write_bytes('# vim: set fileencoding=latin-1 :\n"""Café menu prices."""\n\nPRICE = 3\n'.encode("latin-1"))
    (project / "wrong.py").write_bytes('# -*- coding: ascii -*-\n"""Café."""\n'.encode("latin-1"))
    (project / "notes.txt").write_bytes("Café\n".encode("latin-1"))  # no declaration: still not UTF-8 text
    data = ov("add-resource", str(project), "--json").json["result"]
    root = ov_home / "accounts/default/resources/proj"
    # Stored as UTF-8, its declaration saying so, so that Python reads the stored copy as it did the file.
    assert (root / "cp_1251_coded.py").read_text() == '#!/usr/bin/python\n# -*- coding: utf-8 -*-\n"""Привет, мир."""\nX = "Ђ"\n'
    assert (root / "menu.py").read_text() == '# vim: set fileencoding=utf-8 :\n"""Café menu prices."""\n\nPRICE = 3\n'
    failed = {s["path"]: s["reason"] for s in data["skipped"] if s["failed"]}
    assert set(failed) == {"wrong.py", "notes.txt"} and all(r.startswith("not UTF-8 text") for r in failed.values())
    assert "Café menu prices." in ov("abstract", "viking://resources/proj").stdout + ov("overview", "viking://resources/proj").stdout


def test_names_in_two_cases_are_stored_with_a_warning(ov, ov_home, tmp_path):
    project = tmp_path / "proj"
    (project / "Docs").mkdir(parents=True)
    (project / "docs").mkdir()
    (project / "README.md").write_text("# Upper\n")
    (project / "readme.md").write_text("# lower\n")
    (project / "Docs/a.md").write_text("# A\n")
    (project / "docs/b.md").write_text("# B\n")
    (project / "notes.md").write_text("# Notes\n")
    out = ov("add-resource", str(project))
    assert out.exit_code == 0
    assert "warning: added 'Docs' and 'docs', one name in two cases (one file on macOS and Windows)" in out.stderr
    assert "warning: added 'README.md' and 'readme.md', one name in two cases" in out.stderr
    assert stored(ov_home, "proj") == {"README.md", "readme.md", "Docs/a.md", "docs/b.md", "notes.md"}
    assert ov("add-resource", str(project), "--json").json["result"]["warnings"] == [
        "added 'Docs' and 'docs', one name in two cases (one file on macOS and Windows)",
        "added 'README.md' and 'readme.md', one name in two cases (one file on macOS and Windows)",
    ]


def test_a_skill_keeps_its_lockfiles_and_bundles(ov, tmp_path):
    # A skill's scripts run with them; an environment in it is still left out.
    folder = tmp_path / "fill"
    (folder / "scripts/venv").mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: fill\ndescription: Fill in PDF forms when asked to complete one.\n---\n")
    (folder / "scripts/package-lock.json").write_text("{}\n")
    (folder / "scripts/fill.min.js").write_text("var a=1;\n")
    (folder / "scripts/venv/pyvenv.cfg").write_text("home = /usr/bin\n")
    data = ov("add-skill", str(folder), "--json").json["result"]
    assert ov("read", "viking://agent/skills/fill/scripts/fill.min.js").stdout == "var a=1;\n"
    assert ov("read", "viking://agent/skills/fill/scripts/package-lock.json").exit_code == 0
    assert skipped(data) == {"scripts/venv/": "Python virtual environment (holds pyvenv.cfg)"}


def test_a_linked_work_trees_folder_leaves_out_what_the_shared_info_exclude_names(ov, ov_home, tmp_path):
    # git reads info/exclude from the common folder ($GIT_COMMON_DIR), shared by every work tree.
    project = tmp_path / "proj"
    project.mkdir()
    repo = Repo.init(str(project))
    (project / ".git/info").mkdir(exist_ok=True)
    (project / ".git/info/exclude").write_text("notes.local\n")
    (project / "readme.md").write_text("# Proj\n")
    repo.get_worktree().stage(["readme.md"])
    repo.get_worktree().commit(message=b"one", committer=b"a <a@b>", author=b"a <a@b>")
    from dulwich.worktree import add_worktree

    linked = tmp_path / "linked"
    add_worktree(repo, str(linked), branch=b"side").close()
    repo.close()
    assert (linked / ".git").is_file()
    (linked / "docs").mkdir()
    (linked / "docs/page.md").write_text("# Page\n\nText.\n")
    (linked / "docs/notes.local").write_text("my own notes\n")
    data = ov("add-resource", str(linked / "docs"), "--json").json["result"]
    assert stored(ov_home, "docs") == {"page.md"}
    assert skipped(data) == {"notes.local": "ignored by git"}


@pytest.mark.parametrize("where", ["above", "inside"])
def test_a_gitignore_that_cannot_be_read_is_said_and_its_rules_not_applied(ov, ov_home, tmp_path, where):
    # As git does ("unable to access"): the walk goes on without that file's rules and says so.
    project = tmp_path / "proj"
    (project / "docs/inner/sub").mkdir(parents=True)
    Repo.init(str(project)).close()
    (project / ".gitignore").write_text("*.log\n")
    unreadable = project / ("docs" if where == "above" else "docs/inner/sub") / ".gitignore"
    unreadable.mkdir()  # a folder: unreadable as a file, even by root
    (project / "docs/inner/page.md").write_text("# Page\n\nText.\n")
    (project / "docs/inner/run.log").write_text("log\n")
    (project / "docs/inner/sub/x.md").write_text("# X\n")
    result = ov("add-resource", str(project / "docs/inner"), "--json")
    assert result.exit_code == 0, result.stderr
    data = result.json["result"]
    assert stored(ov_home, "inner") == {"page.md", "sub/x.md"}
    assert skipped(data)["run.log"] == "ignored by git"
    shown = str(project / "docs/.gitignore") if where == "above" else "sub/.gitignore"
    assert skipped(data)[shown] == "unreadable .gitignore (its rules not applied)"
