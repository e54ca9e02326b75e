"""Writers from many processes at once (hooks of parallel agent sessions) lose nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from dulwich.repo import Repo

WRITERS = 16

WAIT_THEN_WRITE = """
import os, sys, time
from pathlib import Path
start = Path(sys.argv[1])
while not start.exists():
    time.sleep(0.001)
from ov.cli.main import main
main(sys.argv[2:])
"""


def test_sixteen_processes_writing_sixteen_uris(ov_home: Path, tmp_path: Path):
    script = tmp_path / "writer.py"
    script.write_text(WAIT_THEN_WRITE)
    start = tmp_path / "go"
    env = dict(os.environ)
    procs = [
        subprocess.Popen(
            [sys.executable, str(script), str(start), "write", f"viking://resources/parallel/w{i:02d}.md", "--content", f"writer {i}\n"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for i in range(WRITERS)
    ]
    time.sleep(0.5)  # let every interpreter start and block on the start file
    start.touch()
    results = [p.communicate(timeout=120) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0] * WRITERS, [r[1].decode() for r in results]

    root = ov_home / "accounts" / "default"
    for i in range(WRITERS):
        assert (root / f"resources/parallel/w{i:02d}.md").read_text() == f"writer {i}\n"
    repo = Repo(str(root))
    messages = [w.commit.message.decode().splitlines()[0] for w in repo.get_walker()]
    writes = [m for m in messages if m.startswith("ov write")]
    assert len(writes) == WRITERS
    assert sorted(writes) == sorted(f"ov write viking://resources/parallel/w{i:02d}.md" for i in range(WRITERS))
    head_tree = repo[repo.head()].tree
    files = [e.path for e in repo.object_store.iter_tree_contents(head_tree)]
    assert len([f for f in files if f.startswith(b"resources/parallel/")]) == WRITERS
