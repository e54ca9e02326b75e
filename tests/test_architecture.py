"""Layers stay apart and the CLI starts fast."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ov"
CLI_ONLY = {"typer", "click", "rich", "questionary"}
# Imported only inside the commands that need them (hooks run on every prompt).
HEAVY = {"litellm", "numpy", "tantivy", "hnswlib", "pypdf", "dulwich", "pydantic", "rich", "yaml", "model2vec", "markdownify", "bs4"}


def _imports(path: Path, depth: int = 1) -> set[str]:
    """Every module a file imports anywhere, cut to its first ``depth`` dotted parts."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(".".join(alias.name.split(".")[:depth]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(".".join(node.module.split(".")[:depth]))
    return names


def _module_level_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


# The core is everything but the CLI adapter and the `python -m ov` entry point.
CORE_MODULES = sorted(
    p for p in PACKAGE.rglob("*.py") if "cli" not in p.relative_to(PACKAGE).parts and p.name != "__main__.py"
)


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_never_imports_the_cli_stack(path: Path):
    assert not (_imports(path) & CLI_ONLY), f"{path.name} imports {_imports(path) & CLI_ONLY}"
    assert "ov.cli" not in _imports(path, depth=2)


@pytest.mark.parametrize("path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_heavy_modules_are_imported_lazily(path: Path):
    assert not (_module_level_imports(path) & HEAVY), f"{path.name} imports {_module_level_imports(path) & HEAVY} at module level"


PROBE = """
import sys, json
from ov.cli.main import run
code = run(sys.argv[1:])
sys.stdout.flush()
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})), file=sys.stderr)
"""


@pytest.mark.parametrize("argv", [["--help"], ["ls"], ["ls", "viking://resources"], ["read", "viking://resources/a.md"]])
def test_light_commands_do_not_load_heavy_modules(ov, argv):
    assert ov("write", "viking://resources/a.md", "--content", "x\n").exit_code == 0
    assert ov("config", "set", "store.lock_timeout", "3").exit_code == 0
    ov("ls")  # let the validated config cache be written
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=True)
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not (loaded & HEAVY), f"`ov {' '.join(argv)}` imported {sorted(loaded & HEAVY)}"
