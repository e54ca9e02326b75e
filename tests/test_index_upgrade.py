"""An index an older ov wrote, or whose meta.json is not what this ov writes: searched while it is
rebuilt where it can be, rebuilt cleanly where it cannot."""

from __future__ import annotations

import json

import pytest

from ov.index.lexical import SCHEMA_VERSION
from tests.old_indexes import as_schema_11

INDEX = "state/default/index"


def _write(ov, uri: str, text: str) -> None:
    assert ov("write", uri, "--content", text).exit_code == 0


def _found(ov, query: str) -> dict:
    result = ov("find", query, "--json")
    assert result.exit_code == 0, result.stderr
    return result.json["result"]


def _uris(result: dict) -> list[str]:
    return [hit["uri"] for hit in result["resources"]]


@pytest.fixture
def tank(ov):
    assert ov("config", "set", "embedding.provider", "none").exit_code == 0
    _write(ov, "viking://resources/fish/tank.md", "# Tank\n\nThe zebrafish tank is cleaned every Wednesday.\n")
    _write(ov, "viking://resources/code/billing.py", '"""Billing helpers."""\n\n\ndef refund_invoice(amount):\n    return -amount\n')
    assert _found(ov, "zebrafish")["resources"]  # built, at this ov's schema
    return ov


def test_a_schema_11_index_is_searched_as_it_is_while_another_process_rebuilds_it(tank, ov_home, index_held):
    """tantivy opens an index only with the schema it was written with: after the upgrade to
    schema 12 (a field added) `ov find` during the job's rebuild waited for the lock and failed,
    and the prompt hook got nothing, until the rebuild was done."""
    as_schema_11(ov_home)
    index_held()  # the job, rebuilding it
    result = _found(tank, "when is the zebrafish tank cleaned")
    assert _uris(result)[0] == "viking://resources/fish/tank.md"
    assert f"index schema 11, ov needs {SCHEMA_VERSION}" in result["index"]["behind"]
    assert _uris(_found(tank, "refund invoice"))[0] == "viking://resources/code/billing.py"


def test_a_schema_11_index_is_rebuilt_by_the_next_search_that_may(tank, ov_home):
    root = as_schema_11(ov_home)
    result = _found(tank, "zebrafish")
    assert result["index"]["actions"] == [f"rebuilt: index schema 11, ov needs {SCHEMA_VERSION}"]
    assert _uris(result)[0] == "viking://resources/fish/tank.md"
    assert json.loads((root / "meta.json").read_text())["schema_version"] == SCHEMA_VERSION


def test_the_oldest_readable_schema_has_this_ovs_analyzer_and_the_fields_it_names():
    """What READABLE_SCHEMA promises, checked against what each schema since wrote: 10 is the
    first whose analyzer is this one (9 cut words at combining marks and indexed text as typed)."""
    from ov.index import lexical

    assert lexical.READABLE_SCHEMA == 10
    assert lexical._lacks(11) == lexical._lacks(10) == {"about", "defines", "identifiers"}
    assert lexical._lacks(12) == {"defines", "identifiers"} and not lexical._lacks(lexical.SCHEMA_VERSION)


_MALFORMED = {
    "string": lambda meta: {**meta, "schema_version": str(meta["schema_version"])},
    "null": lambda meta: {**meta, "schema_version": None},
    "missing": lambda meta: {k: v for k, v in meta.items() if k != "schema_version"},
    "bool": lambda meta: {**meta, "schema_version": True},
    "float": lambda meta: {**meta, "schema_version": 11.5},
    "language": lambda meta: {**meta, "language": 7},
    "labels": lambda meta: {**meta, "next_label": str(meta["next_label"])},
    "embedder": lambda meta: {**meta, "embedder": "builtin"},
    "commit": lambda meta: {**meta, "commit": 12},
    "list": lambda meta: [meta],
    "not-json": lambda meta: "{not json",
}


def _prompt(project, question: str) -> tuple[str, dict]:
    from ov.home import Home
    from ov.hosts.runtime import run

    answer = run("claude", "prompt-submit", json.dumps({"session_id": "s-1", "cwd": str(project), "prompt": question}).encode())
    log = [json.loads(line) for line in Home.from_env().hook_log.read_text().splitlines()]
    return answer, [r for r in log if r.get("event") == "prompt-submit"][-1]


@pytest.mark.parametrize("malformed", _MALFORMED, ids=list(_MALFORMED))
def test_a_malformed_meta_reads_as_an_index_to_rebuild(tank, ov_home, tmp_path, malformed):
    """A meta.json whose schema_version is a string ("12") raised TypeError on every prompt (the
    hook failed open, gave nothing and logged it each time): each malformed meta is an index not
    built, which the next search (or the hook, for a small store) rebuilds."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.sync import Indices
    from ov.store.store import Store

    path = ov_home / INDEX / "meta.json"
    changed = _MALFORMED[malformed](json.loads(path.read_text(encoding="utf-8")))
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed), encoding="utf-8")
    store = Store(Home(ov_home), Identity(), load_config(Home(ov_home)).config)
    assert Indices(store).unready() == "not built"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    answer, record = _prompt(project, "when is the zebrafish tank cleaned?")
    assert "Wednesday" in answer and record["outcome"] == "injected", record
    assert json.loads(path.read_text())["schema_version"] == SCHEMA_VERSION and Indices(store).unready() is None


@pytest.mark.parametrize("malformed", ["string", "not-json"])
def test_find_rebuilds_an_index_of_a_malformed_meta(tank, ov_home, malformed):
    path = ov_home / INDEX / "meta.json"
    changed = _MALFORMED[malformed](json.loads(path.read_text(encoding="utf-8")))
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed), encoding="utf-8")
    result = _found(tank, "zebrafish")
    assert _uris(result)[0] == "viking://resources/fish/tank.md" and result["index"]["actions"][0].startswith("rebuilt: ")


_MALFORMED_EMBEDDER = {
    "dimension-string": lambda block: {**block, "dimension": str(block["dimension"])},
    "dimension-float": lambda block: {**block, "dimension": float(block["dimension"])},
    "dimension-bool": lambda block: {**block, "dimension": True},
    "dimension-zero": lambda block: {**block, "dimension": 0},
    "dimension-missing": lambda block: {k: v for k, v in block.items() if k != "dimension"},
    "provider-number": lambda block: {**block, "provider": 7},
    "model-missing": lambda block: {k: v for k, v in block.items() if k != "model"},
    "recipe-string": lambda block: {**block, "recipe": "1"},
    "recipe-bool": lambda block: {**block, "recipe": True},
}


@pytest.mark.parametrize("malformed", _MALFORMED_EMBEDDER, ids=list(_MALFORMED_EMBEDDER))
def test_a_malformed_embedder_in_meta_reads_as_an_index_to_rebuild(ov, ov_home, malformed):
    """The embedder recorded in meta.json is read as the schema is: a dimension of 256.0 passed
    every comparison, and `ov fsck` ended in "internal error" where it loaded the vectors with it."""
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import Identity
    from ov.index.sync import Indices
    from ov.store.store import Store

    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    _write(ov, "viking://resources/fish/tank.md", "# Tank\n\nThe zebrafish tank is cleaned every Wednesday.\n")
    assert _found(ov, "zebrafish")["resources"]
    path = ov_home / INDEX / "meta.json"
    meta = json.loads(path.read_text(encoding="utf-8"))
    made = meta["embedder"]
    path.write_text(json.dumps({**meta, "embedder": _MALFORMED_EMBEDDER[malformed](made)}), encoding="utf-8")
    store = Store(Home(ov_home), Identity(), load_config(Home(ov_home)).config)
    assert Indices(store).unready() == "not built"
    checked = ov("fsck", "--json")
    assert "internal" not in checked.stderr, checked.stderr
    result = _found(ov, "when is the zebrafish tank cleaned")
    assert result["index"]["actions"][0].startswith("rebuilt: ") and _uris(result)[0] == "viking://resources/fish/tank.md"
    assert json.loads(path.read_text(encoding="utf-8"))["embedder"] == made and Indices(store).unready() is None


def test_a_schema_11_index_on_a_read_only_mount_is_searched_by_its_full_text(tank, ov_home, read_only_mount, tmp_path, monkeypatch):
    """The read-only view opens the older index with its own schema, as a writable open does."""
    import tempfile

    as_schema_11(ov_home)
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setenv("OV_HOME", str(read_only_mount(ov_home)))
    result = _found(tank, "when is the zebrafish tank cleaned")
    assert _uris(result)[0] == "viking://resources/fish/tank.md"
    assert f"index schema 11, ov needs {SCHEMA_VERSION}" in result["index"]["behind"]
    assert list(temporary.iterdir()) == []
