"""The prompt hook in a project added as a resource, beside other projects added too
(ov.ingest.origins): the project's own files answer a file the prompt names, and another
project's entries say whose they are."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def full_text_only(ov):
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0


def _project(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    (folder / ".git").mkdir(exist_ok=True)
    return folder


_SESSIONS = itertools.count(1)


def _block(cwd: Path, prompt: str) -> str:
    """What one prompt gets, in a session of its own: never left out as given to an earlier prompt of the test."""
    from ov.hosts.runtime import run

    answer = run("claude", "prompt-submit", json.dumps({"session_id": f"s-{next(_SESSIONS)}", "cwd": str(cwd), "prompt": prompt}).encode())
    return json.loads(answer)["hookSpecificOutput"]["additionalContext"] if answer.strip() not in ("", "{}") else ""


def _entries(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("<context ")]


@pytest.fixture
def two_projects(ov, tmp_path):
    """Project A (a long README, docs about hosts) added first, then project B (its own short ones)."""
    install = "\n\n".join(f"## Install step {k}\n\nInstall the package and update the install section {k}." for k in range(6))
    a = _project(tmp_path / "alpha", {"README.md": f"# Alpha\n\n{install}\n", "docs/hosts.md": "# Hosts\n\nAlpha hosts: the hosts it runs on.\n\n## More hosts\n\nhosts hosts hosts\n"})
    b = _project(tmp_path / "beta", {"README.md": "# Beta\n\n## Install\n\npip install beta\n", "docs/hosts.md": "# Hosts\n\nBeta runs on web-1.\n", "app.py": "def main():\n    return 1\n"})
    for folder in (a, b):
        assert ov("add-resource", str(folder)).exit_code == 0
    return a, b


@pytest.mark.parametrize(("prompt", "want"), [("update the install section of README.md", "README.md"), ("what does docs/hosts.md say about hosts?", "docs/hosts.md")])
def test_a_file_named_in_a_project_is_its_own_copy_first(two_projects, prompt, want):
    """In project B, "README.md" was answered by four entries of A's README before B's, and
    "docs/hosts.md" by A's alone."""
    _, b = two_projects
    for cwd in (b, b / "docs"):  # the folder added, or one in it
        first = _entries(_block(cwd, prompt))[0]
        assert f'uri="viking://resources/beta/{want}"' in first and "project=" not in first


def test_another_projects_entries_say_so(two_projects, tmp_path):
    """In a folder no resource was added from, every entry of a project added from another folder
    is marked; in project B, A's entries are, B's are not."""
    _, b = two_projects
    elsewhere = _project(tmp_path / "gamma", {"app.py": "print(1)\n"})
    entries = _entries(_block(elsewhere, "how do I install alpha?"))
    assert entries and all('project="other"' in e for e in entries)
    mixed = _entries(_block(b, "what does docs/hosts.md say about hosts?"))
    assert any("resources/alpha/" in e for e in mixed)
    assert all(('project="other"' in e) == ('resources/alpha"' in e or "resources/alpha/" in e) for e in mixed), mixed


def test_a_resource_not_added_from_a_folder_is_nobodys_project(ov, tmp_path):
    """A file added alone (or a URL) is reference, not a project: never marked."""
    (tmp_path / "notes.md").write_text("# Notes\n\nThe zebrafish tank is cleaned on Wednesdays.\n", encoding="utf-8")
    assert ov("add-resource", str(tmp_path / "notes.md")).exit_code == 0
    entries = _entries(_block(_project(tmp_path / "proj", {"a.py": "x = 1\n"}), "when is the zebrafish tank cleaned?"))
    assert entries and not any("project=" in e for e in entries)


def test_a_manifest_whose_source_is_not_at_its_end_is_read_whole(tmp_path):
    from ov.ingest.origin import _source_folder

    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"source": {"kind": "directory", "uri": "/home/me/shop"}, "files": {f"f{k}": {"uri": "x" * 50} for k in range(200)}}), encoding="utf-8")
    assert _source_folder(str(manifest)) == "/home/me/shop"
    manifest.write_text(json.dumps({"files": {}, "source": {"kind": "url", "uri": "https://example.com/"}}, sort_keys=True), encoding="utf-8")
    assert _source_folder(str(manifest)) is None


def test_a_project_added_below_a_folder_of_resources_is_found(ov, tmp_path):
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.ingest.origin import projects
    from ov.store.store import Store

    shop = _project(tmp_path / "shop", {"README.md": "# Shop\n\nThe shop.\n"})
    assert ov("add-resource", str(shop), "--to", "viking://resources/work/shop").exit_code == 0

    home = Home.from_env()
    store = Store(home, Identity(), load_config(home).config)
    assert projects(store, str(shop / "src")).home == ("resources/work/shop",)
    assert projects(store, str(tmp_path)).elsewhere == ("resources/work/shop",)
    assert projects(store, None) == projects(store, "") and not projects(store, None).home
