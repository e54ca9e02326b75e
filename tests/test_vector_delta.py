"""The vector delta: an update that changes few vectors writes them beside the generation
(ov.index.vector_delta), searches read both, and a larger delta folds into a new generation."""

from __future__ import annotations

import json
import sys

import pytest

from tests.test_find import found, index_dir, uris, write

QUERIES = ("tomato soup", "risotto stock", "rotate keys", "deploy main", "basil", "onion bread")


def _unit_rows(count: int, dimension: int, seed: int):
    import numpy as np

    matrix = np.random.default_rng(seed).standard_normal((count, dimension)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _scenario():
    """A generation of 40 records (7 and 9 of two passages) and the change made since: records
    3, 7 and 60 (added, then removed) gone, 50-59 added (52 of three passages)."""
    from ov.index.vectors import part_labels

    generation = {}
    rows = iter(_unit_rows(200, 16, 11))
    for record in range(40):
        for part in part_labels(record, 2 if record in (7, 9) else 1):
            generation[part] = next(rows)
    added = {part: next(rows) for record in range(50, 61) for part in part_labels(record, 3 if record == 52 else 1)}
    return generation, added, next(rows)


def _expected(generation: dict, added: dict) -> dict:
    from ov.index.vectors import record_label

    return {label: row for label, row in (generation | added).items() if record_label(label) not in (3, 7, 60)}


@pytest.mark.parametrize("kind", ["flat", "hnswlib", "grouped"])
def test_a_generation_and_its_delta_search_as_one_index_of_what_is_live(tmp_path, kind, monkeypatch):
    import numpy as np

    from ov.index import vector_groups
    from ov.index.vector_delta import Delta, DeltaVectors
    from ov.index.vectors import ExactVectors, VectorIndex, part_labels, record_label

    generation, added, query = _scenario()
    if kind == "flat":
        base = ExactVectors.from_bytes(base_bytes(generation), 16, len(generation), "base")
    elif kind == "grouped":
        vector_groups.write(tmp_path / "g.groups", generation, 16)
        base = vector_groups.GroupedVectors.load(tmp_path / "g.groups", 16, len(generation))
    else:
        base = VectorIndex.create(16, len(generation))
        base.add(np.stack(list(generation.values())), list(generation))
    early = lambda label: record_label(label) < 55 or record_label(label) == 60  # noqa: E731
    first = Delta.empty(16, base.live).changed([3], {label: row for label, row in added.items() if early(label)}, base)
    first.write(tmp_path / "d.delta")
    delta = Delta.load(tmp_path / "d.delta", 16).changed([7, 60], {label: row for label, row in added.items() if not early(label)}, base)
    assert delta.removed == {3, 7} and delta.removed_parts == 3  # 60 was added since: forgotten, not removed
    whole = DeltaVectors(base, delta)
    expected = _expected(generation, added)
    truth = ExactVectors.from_bytes(base_bytes(expected), 16, len(expected), "truth")
    assert whole.live == len(expected) and whole.labels() == set(expected)
    assert whole.passage_counts([3, 7, 9, 52, 60, 99]) == {9: 2, 52: 3}
    assert np.allclose(whole.rows_of([9, 52 + part_labels(0, 2)[1], 0]), np.stack([expected[9], expected[part_labels(52, 2)[1]], expected[0]]), atol=1e-3)
    for allowed in (None, {3, 7, 9, 52, 55, 20}, {3}):
        for limit in (1, 5, 25, 200):
            got, want = whole.search(query, limit, allowed), truth.search(query, limit, allowed)
            if kind == "flat":
                assert got == want, (allowed, limit)
            elif kind == "hnswlib" and (allowed is not None or limit == 200):
                # hnswlib compares in float32, the flat copy in 16 bits: the same vectors, near-ties aside
                assert sorted(label for label, _ in got) == sorted(label for label, _ in want), (allowed, limit)
            assert all(record_label(label) not in (3, 7, 60) for label, _ in got)


def test_a_delta_is_searched_without_numpy(tmp_path, monkeypatch):
    from ov.index.vector_delta import Delta, DeltaVectors
    from ov.index.vectors import ExactVectors

    generation, added, query = _scenario()
    base = ExactVectors.from_bytes(base_bytes(generation), 16, len(generation), "base")
    Delta.empty(16, base.live).changed([3, 7], added, base).changed([60], {}, base).write(tmp_path / "d.delta")
    expected = _expected(generation, added)
    want = ExactVectors.from_bytes(base_bytes(expected), 16, len(expected), "truth").search(query, 10)
    query, data = [float(x) for x in query], base_bytes(generation)
    monkeypatch.setitem(sys.modules, "numpy", None)  # what a cold `ov find` has
    whole = DeltaVectors(ExactVectors.from_bytes(data, 16, len(generation), "base"), Delta.load(tmp_path / "d.delta", 16))
    got = whole.search(query, 10)
    assert [label for label, _ in got] == [label for label, _ in want]
    assert [sim for _, sim in got] == pytest.approx([sim for _, sim in want], abs=1e-3)


def base_bytes(rows: dict) -> bytes:
    from ov.index.vectors import ExactVectors

    return b"".join(bytes(b) for b in ExactVectors.blocks(rows, 16))


def test_a_damaged_delta_file_is_refused(tmp_path):
    from ov.index.vector_delta import Delta
    from ov.index.vectors import ExactVectors

    generation, added, _ = _scenario()
    base = ExactVectors.from_bytes(base_bytes(generation), 16, len(generation), "base")
    path = tmp_path / "d.delta"
    Delta.empty(16, base.live).changed([3], added, base).write(path)
    data = path.read_bytes()
    for damaged in (data[:20], data[:-4], b"ovdeltaX" + data[8:], data + b"\0"):
        path.write_bytes(damaged)
        with pytest.raises(ValueError):
            Delta.load(path, 16)
    path.write_bytes(data)
    with pytest.raises(ValueError):
        Delta.load(path, 32)  # another dimension


@pytest.fixture
def hashed(ov):
    """A store searched once with the hashing embedder (the index built, with vectors)."""
    assert ov("config", "set", "embedding.provider", "hash").exit_code == 0
    write(ov, "viking://resources/handbook/security.md", "# Security\n\nRotate API keys every 90 days.\n")
    write(ov, "viking://resources/handbook/deploy.md", "# Deploy\n\nWe deploy from main after a green CI run.\n")
    write(ov, "viking://resources/notes/cooking.md", "# Cooking\n\nA risotto needs patience and warm stock.\n")
    assert found(ov, "risotto")["retrieval"]["mode"] == "hybrid"
    return ov


def _rankings(ov) -> dict:
    return {query: uris(found(ov, query)) for query in QUERIES}


def _meta(ov_home) -> dict:
    return json.loads((index_dir(ov_home) / "meta.json").read_text())


def test_an_update_writes_a_delta_and_finds_what_a_rebuilt_index_finds(hashed, ov_home):
    before = _meta(ov_home)
    generation = sorted(p.name for p in index_dir(ov_home).glob("vectors-*"))
    write(hashed, "viking://resources/notes/soup.md", "A tomato soup with basil")
    assert uris(found(hashed, "tomato soup"))[0] == "viking://resources/notes/soup.md"
    write(hashed, "viking://resources/notes/bread.md", "Onion bread, slow proof")
    assert hashed("rm", "viking://resources/handbook/deploy.md").exit_code == 0
    write(hashed, "viking://resources/notes/cooking.md", "# Cooking\n\nA risotto needs warm stock; basil at the end.\n")  # replaced
    ranked = _rankings(hashed)
    meta = _meta(ov_home)
    # The generation was not written again: a delta beside it holds the change.
    assert meta["vectors_file"] == before["vectors_file"] and meta["vectors_delta"].endswith(".delta")
    assert sorted(p.name for p in index_dir(ov_home).glob("vectors-*")) == sorted(generation + [meta["vectors_delta"]])
    assert meta["vectors"] == meta["records"]
    checked = hashed("fsck", "--json").json["result"]
    assert checked["findings"] == [] and checked["checked"]["vectors"] == meta["records"]
    assert "viking://resources/handbook/deploy.md" not in [uri for found_ in ranked.values() for uri in found_]
    assert hashed("reindex").exit_code == 0
    assert _meta(ov_home)["vectors_delta"] is None
    assert _rankings(hashed) == ranked


def test_a_delta_past_its_limit_folds_into_a_new_generation(hashed, ov_home, monkeypatch):
    monkeypatch.setattr("ov.index.vector_delta.DELTA_LIMIT", 3)
    first = _meta(ov_home)["vectors_file"]
    seen = []
    for n, text in enumerate(["A tomato soup with basil", "Onion bread, slow proof", "Basil pesto", "Stock from bones", "Soup of the day"]):
        write(hashed, f"viking://resources/notes/n{n}.md", text)
        found(hashed, "soup")
        meta = _meta(ov_home)
        seen.append((meta["vectors_file"], meta["vectors_delta"]))
        names = sorted(p.name for p in index_dir(ov_home).glob("vectors-*"))
        assert meta["vectors_delta"] is None or meta["vectors_delta"] in names
        assert meta["vectors_file"] in names and len(names) == 2 + (meta["vectors_delta"] is not None)  # generation, flat copy, delta
    assert seen[2] == (first, seen[2][1]) and seen[2][1] is not None  # three changes: still a delta
    assert seen[3][0] != first and seen[3][1] is None  # the fourth folds
    assert seen[4][0] == seen[3][0] and seen[4][1] is not None
    assert hashed("fsck", "--json").json["result"]["findings"] == []
    ranked = _rankings(hashed)
    assert hashed("reindex").exit_code == 0 and _rankings(hashed) == ranked


def test_a_damaged_delta_rebuilds_the_vectors_and_a_killed_updates_files_are_swept(hashed, ov_home):
    write(hashed, "viking://resources/notes/soup.md", "A tomato soup with basil")
    found(hashed, "soup")
    delta = index_dir(ov_home) / _meta(ov_home)["vectors_delta"]
    delta.write_bytes(delta.read_bytes()[:-10])
    assert hashed("fsck").exit_code != 0
    result = found(hashed, "tomato soup")
    assert result["retrieval"]["mode"] == "hybrid" and "vectors rebuilt" in result["index"]["actions"]
    assert uris(result)[0] == "viking://resources/notes/soup.md"
    assert hashed("fsck", "--json").json["result"]["findings"] == []
    # What an update killed before its meta.json left: swept by the next one.
    (index_dir(ov_home) / "vectors-000099.delta").write_bytes(b"left")
    (index_dir(ov_home) / "vectors-000098.hnsw.tmp").write_bytes(b"left")
    write(hashed, "viking://resources/notes/bread.md", "Onion bread")
    found(hashed, "bread")
    assert not list(index_dir(ov_home).glob("vectors-00009*"))


def test_a_delta_gone_is_damage_fsck_reports_and_only_the_vectors_are_rebuilt(hashed, ov_home):
    # (found by a review: it read as an incompatible index, a note, and rebuilt the full text too)
    write(hashed, "viking://resources/notes/soup.md", "A tomato soup with basil")
    found(hashed, "soup")
    (index_dir(ov_home) / _meta(ov_home)["vectors_delta"]).unlink()
    checked = hashed("fsck", "--json")
    assert checked.exit_code != 0 and [f["severity"] for f in checked.json["result"]["findings"]] == ["problem"]
    result = found(hashed, "tomato soup")
    assert result["index"]["actions"] == ["vectors rebuilt"] and result["retrieval"]["mode"] == "hybrid"
    assert uris(result)[0] == "viking://resources/notes/soup.md"
    assert hashed("fsck", "--json").json["result"]["findings"] == []


def test_an_update_killed_after_its_full_text_commit_leaves_no_vectors_behind(hashed, ov_home, monkeypatch):
    # (found by a review: the replay found the new records' labels, not those the vectors held for
    # the records they replaced, and those vectors stayed: "202 vectors for 46 records")
    from ov.index import sync

    write(hashed, "viking://resources/handbook/deploy.md", "# Deploy\n\nWe deploy on Fridays now.\n")  # replaces a record
    real = sync.Meta.write

    def killed(self, path):
        raise KeyboardInterrupt  # as a SIGKILL between the full-text commit and meta.json

    monkeypatch.setattr(sync.Meta, "write", killed)
    with pytest.raises(KeyboardInterrupt):
        sync.Indices(_store(ov_home)).open()
    monkeypatch.setattr(sync.Meta, "write", real)
    result = found(hashed, "deploy fridays")
    # Undone from the update's note and replayed: the vectors are the meta's own, and not rebuilt.
    assert result["index"]["actions"] == ["updated 1 path"] and uris(result)[0] == "viking://resources/handbook/deploy.md"
    checked = hashed("fsck", "--json").json["result"]
    assert checked["findings"] == [] and checked["checked"]["vectors"] == _meta(ov_home)["records"]


def _store(ov_home):
    from ov.config import load_config
    from ov.home import Home
    from ov.identity import resolve_identity
    from ov.store.store import Store

    home = Home(ov_home)
    return Store(home, resolve_identity({}, {}, {}), load_config(home).config)


@pytest.mark.parametrize("static", [True, False])
def test_the_index_tells_the_vectors_it_loads_whether_a_static_model_made_them(hashed, ov_home, monkeypatch, static):
    """A static model's grouped copy is searched comparing fewer vectors (vector_groups): the
    index passes what its embedder is, on opening and on the update's load alike."""
    from ov.index import sync, vectors
    from ov.index.embedders.hashing import HashEmbedder

    monkeypatch.setattr(HashEmbedder, "static", static)
    seen = []
    real = vectors.load_for_search
    monkeypatch.setattr(vectors, "load_for_search", lambda path, dimension, live, static=False: seen.append(static) or real(path, dimension, live, static))
    sync.Indices(_store(ov_home)).open()
    write(hashed, "viking://resources/notes/soup.md", "A tomato soup with basil")
    sync.Indices(_store(ov_home)).open()  # an update, then the search's load
    assert seen and set(seen) == {static}
