"""The git index splice: whatever it does, dulwich and git read back exactly what was meant."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from dulwich.index import Index
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ov.store import gitindex

segment = st.text(alphabet="abcdefghij_-.", min_size=1, max_size=6).filter(lambda s: s not in (".", ".."))
paths = st.lists(segment, min_size=1, max_size=3).map("/".join)
sha = st.binary(min_size=20, max_size=20).map(bytes.hex)


def read_back(git_dir: Path) -> dict[str, str]:
    return {name.decode(): entry.sha.decode() for name, entry in Index(str(git_dir / "index")).items()}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(head=st.dictionaries(paths, sha, max_size=30), batches=st.lists(st.dictionaries(paths, st.none() | sha, max_size=6), max_size=4))
def test_a_sequence_of_splices_reads_back_as_the_intended_entries(tmp_path: Path, head, batches):
    git_dir = tmp_path / "w/.git"
    shutil.rmtree(tmp_path / "w", ignore_errors=True)
    git_dir.mkdir(parents=True)
    # A file and a directory of the same name cannot both be in a tree; keep the model honest.
    def consistent(entries: dict[str, str]) -> bool:
        return not any(other.startswith(p + "/") for p in entries for other in entries)

    if not consistent(head):
        return
    assert gitindex.update(git_dir, tmp_path / "w", {}, sorted(head.items()))
    expected = dict(head)
    for batch in batches:
        after = {**expected, **{p: s for p, s in batch.items() if s is not None}}
        for p, s in batch.items():
            if s is None:
                after.pop(p, None)
        if not consistent(after):
            continue
        assert gitindex.update(git_dir, tmp_path / "w", batch, None)
        expected = after
        assert read_back(git_dir) == expected


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git executable")
def test_an_index_git_wrote_with_extensions_is_spliced_and_git_still_reads_it(tmp_path: Path):
    work = tmp_path / "w"
    work.mkdir()
    env = {"GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path), "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t", "PATH": "/usr/bin:/bin"}

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(work), *args], check=True, capture_output=True, text=True, env=env).stdout

    git("init", "-q", "-b", "main")
    for name in ("a.md", "d/b.md", "d/c.md"):
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(name)
    git("add", "-A")
    git("commit", "-qm", "one")  # leaves a cached-tree (TREE) extension in the index
    (work / "d/new.md").write_text("new")
    blob = git("hash-object", "-w", "d/new.md").strip()
    assert gitindex.update(work / ".git", work, {"d/new.md": blob, "a.md": None}, None)
    (work / "a.md").unlink()
    assert git("ls-files", "--stage").split("\n")[0].endswith("d/b.md")
    assert sorted(git("ls-files").split()) == ["d/b.md", "d/c.md", "d/new.md"]
    # The index now differs from git's HEAD exactly as meant, and from the work tree not at all.
    assert git("diff", "--cached", "--name-status").split() == ["D", "a.md", "A", "d/new.md"]
    assert git("diff", "--name-only") == ""
