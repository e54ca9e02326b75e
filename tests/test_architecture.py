"""Layers stay apart, in their order, and the CLI starts fast."""

from __future__ import annotations

import ast
import json
import re
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


# The layers, lowest first (docs/architecture.md draws them). A module may import
# modules of its own component and of any lower layer. Components that share a layer
# are independent of each other. "ov" is the basics: the modules at the package root.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("basics", frozenset({"ov"})),
    ("configuration", frozenset({"config"})),  # the schema of config.yaml, its loading and editing
    ("redaction", frozenset({"redact"})),  # the LLM client scrubs what servers say with it
    ("foundations", frozenset({"store", "llm"})),
    ("summaries", frozenset({"summaries"})),
    ("content", frozenset({"ingest", "sessions"})),
    ("index", frozenset({"index"})),
    ("queries", frozenset({"retrieval", "history", "ovpack", "health"})),
    ("agent adapters", frozenset({"hosts", "mcp"})),
    ("command line", frozenset({"cli"})),
)
LAYER_OF = {component: rank for rank, (_, components) in enumerate(LAYERS) for component in components}
ADAPTERS = {"hosts", "mcp", "cli"}
ALL_MODULES = sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def component(module: str) -> str:
    """The component a dotted ``ov`` module belongs to: its package under ``ov``, or "ov" for the basics."""
    parts = module.split(".")
    if module == "ov.__main__":
        return "cli"  # `python -m ov` is the command line's entry point
    if len(parts) == 1 or (len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").is_file()):
        return "ov"
    return parts[1]


def _is_module(dotted: str) -> bool:
    path = PACKAGE.parent.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()


def _ov_imports(module: str, source: str, is_package: bool) -> list[tuple[str, int]]:
    """Every ``ov`` module that ``source`` (the text of ``module``) imports, anywhere in it, with its line."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing package
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from ov.sessions import session` imports the module ov.sessions.session
            found += [(f"{base}.{alias.name}" if _is_module(f"{base}.{alias.name}") else base, node.lineno) for alias in node.names]
    return [(name, line) for name, line in found if name == "ov" or name.startswith("ov.")]


def layer_violations(module: str, source: str, is_package: bool = False) -> list[str]:
    """Why each ``ov`` import in ``source`` goes against the layer order, naming both modules."""
    own = component(module)
    if own not in LAYER_OF:
        return [f"{module}: its package ov.{own} is in no layer; place it in LAYERS (tests/test_architecture.py)"]
    problems = []
    for imported, line in _ov_imports(module, source, is_package):
        theirs = component(imported)
        if theirs == own:
            continue
        if theirs not in LAYER_OF:
            problems.append(f"{module} (line {line}) imports {imported}, whose package is in no layer")
        elif LAYER_OF[theirs] >= LAYER_OF[own]:
            how = "a sibling of the same layer" if LAYER_OF[theirs] == LAYER_OF[own] else "a higher layer"
            problems.append(
                f"{module} (line {line}) imports {imported}: {own} ({LAYERS[LAYER_OF[own]][0]}) may not import "
                f"{theirs} ({how}, {LAYERS[LAYER_OF[theirs]][0]})"
            )
    return problems


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_follow_the_layer_order(path: Path):
    problems = layer_violations(_module_name(path), path.read_text(encoding="utf-8"), path.name == "__init__.py")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("module", "source", "named"),
    [
        ("ov.store.lock", "from ov.index.sync import Indices", "ov.index.sync"),  # down the order: store below index
        ("ov.ingest.resource", "def f():\n    from ov.sessions import session", "ov.sessions.session"),  # siblings, even lazily
        ("ov.uri", "import ov.store.store", "ov.store.store"),  # the basics import no package
        ("ov.retrieval.find", "from ov.cli.output import emit", "ov.cli.output"),  # the core never imports an adapter
        ("ov.hosts.hook", "from ov.cli import main", "ov.cli.main"),  # an agent adapter never imports the command line
        ("ov.sessions.session", "from .. import index", "ov.index"),  # relative imports are resolved
    ],
)
def test_a_wrong_way_import_fails_with_both_module_names(module, source, named):
    problems = layer_violations(module, source)
    assert len(problems) == 1 and module in problems[0] and named in problems[0], problems


def test_imports_down_the_order_and_within_a_component_pass():
    assert not layer_violations("ov.retrieval.search", "from ov.index.sync import Indices\nfrom ov.retrieval.find import find\nfrom ov import errors")
    assert not layer_violations("ov.cli.main", "from ov.hosts import hook\nfrom ov.mcp import server")
    assert not layer_violations("ov.config", "from ov.home import Home\nimport ov")


def test_every_package_is_placed_in_a_layer_and_has_a_docstring():
    for path in sorted(PACKAGE.rglob("__init__.py")):
        assert component(_module_name(path)) in LAYER_OF, f"{path.parent.name}/ is in no layer of LAYERS"
        assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), f"{path.relative_to(PACKAGE.parent)} has no docstring"


def _undocumented_dataclasses(source: str) -> list[str]:
    def is_dataclass(decorator) -> bool:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        return getattr(target, "id", getattr(target, "attr", None)) == "dataclass"

    return [
        node.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ClassDef) and any(is_dataclass(d) for d in node.decorator_list) and ast.get_docstring(node) is None
    ]


def test_every_dataclass_has_a_docstring():
    """Besides saying what it holds: for a class without one, dataclass() builds a docstring from
    inspect.signature when the module is imported, ~0.25 ms a class, and a hook imports some 50."""
    missing = [f"{p.relative_to(PACKAGE.parent)}: {name}" for p in ALL_MODULES for name in _undocumented_dataclasses(p.read_text(encoding="utf-8"))]
    assert not missing, "dataclasses without a docstring:\n" + "\n".join(missing)
    assert _undocumented_dataclasses("@dataclasses.dataclass(frozen=True)\nclass A:\n    x: int\n") == ["A"]
    assert _undocumented_dataclasses('@dataclass\nclass B:\n    """B."""\n') == []


_PLACEHOLDER = re.compile(r"\{[a-z_]+(=[^}]*)?\}")


def _hints_with_unlisted_placeholders(source: str) -> list[int]:
    """Lines of calls whose ``hint`` names an argument as a placeholder (``{type}``,
    ``{type=events}``) without listing it in ``arguments``: the edges spell only the listed ones."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        hint = keywords.get("hint")
        if hint is None or "arguments" in keywords:
            continue
        if isinstance(hint, ast.JoinedStr):  # an f-string: its literal parts (a placeholder is {{type}} there)
            text = "".join(part.value for part in hint.values if isinstance(part, ast.Constant)).replace("{{", "{").replace("}}", "}")
        else:
            text = hint.value if isinstance(hint, ast.Constant) and isinstance(hint.value, str) else ""
        if _PLACEHOLDER.search(text):
            lines.append(node.lineno)
    return lines


def test_every_hint_lists_the_arguments_it_names():
    """(a hint printed "or as a dated note ({type=events})" to a CLI user) A placeholder the error
    does not list in ``arguments`` reaches the user as it is written, not as ``--type events``."""
    unlisted = [f"{p.relative_to(PACKAGE.parent)}:{line}" for p in ALL_MODULES for line in _hints_with_unlisted_placeholders(p.read_text(encoding="utf-8"))]
    assert not unlisted, "hints with placeholders their error does not list in arguments:\n" + "\n".join(unlisted)
    assert _hints_with_unlisted_placeholders('raise InvalidInput("x", hint="as a note ({type=events})")\n') == [1]
    assert _hints_with_unlisted_placeholders('raise InvalidInput("x", hint=f"pick another {{type}} than {t}")\n') == [1]
    assert _hints_with_unlisted_placeholders('raise InvalidInput("x", hint="use {mode=replace}", arguments={"mode"})\n') == []


# The core is everything but the adapters and the `python -m ov` entry point.
CORE_MODULES = [p for p in ALL_MODULES if component(_module_name(p)) not in ADAPTERS]


@pytest.mark.parametrize("path", CORE_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_core_never_imports_the_cli_stack(path: Path):
    assert not (_imports(path) & CLI_ONLY), f"{path.name} imports {_imports(path) & CLI_ONLY}"


@pytest.mark.parametrize("path", ALL_MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
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


def test_a_cold_find_with_the_built_in_models_vectors_loads_no_numerical_stack(ov):
    """A small store's vectors are searched from their flat copy and the query is embedded in
    plain Python: importing numpy, tokenizers and hnswlib would cost a cold find ~130 ms."""
    assert ov("write", "viking://resources/car.md", "--content", "The automobile would not start; the battery was flat.\n").exit_code == 0
    assert ov("write", "viking://resources/tax.md", "--content", "Quarterly tax returns are filed with the revenue office.\n").exit_code == 0
    assert ov("find", "warm up").exit_code == 0  # builds the index and its vectors
    proc = subprocess.run([sys.executable, "-c", PROBE, "find", "my vehicle broke down", "--json"], capture_output=True, text=True, check=True)
    found = json.loads(proc.stdout)["result"]
    assert found["retrieval"]["mode"] == "hybrid" and found["resources"][0]["uri"] == "viking://resources/car.md"
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not loaded & {"numpy", "hnswlib", "tokenizers", "safetensors", "model2vec", "torch", "litellm"}, sorted(loaded)
