"""The grouped copy of a vector index too large for the flat copy (ov.index.vector_groups): what a
cold process searches instead of importing numpy and hnswlib."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from ov.index import vector_groups
from ov.index import vectors as vectors_module
from ov.index.vector_groups import GroupedVectors
from ov.index.vectors import ExactVectors, VectorIndex, exact_path, groups_path, load_for_search, nearest_records, part_labels, record_similarities

DIM = 16


def _topics(count: int, seed: int, topics: int = 12):
    """Unit rows around a few directions, as texts on a few subjects give."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((topics, DIM))
    rows = centres[rng.integers(0, topics, count)] + 0.6 * rng.standard_normal((count, DIM))
    rows = rows.astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@pytest.fixture
def small_limits(monkeypatch):
    """The flat copy's limit at 100 vectors, the grouped copy's at 4,000, of 16 dimensions."""
    monkeypatch.setattr(vectors_module, "EXACT_COMPONENTS", 100 * DIM)
    monkeypatch.setattr(vector_groups, "GROUPED_COMPONENTS", 4000 * DIM)


def _saved(tmp_path, matrix, labels, name="vectors-000001.hnsw"):
    index = VectorIndex.create(DIM, len(labels))
    index.add(matrix, labels)
    index.save(tmp_path / name)
    return index, tmp_path / name


def _without_numpy(monkeypatch):
    monkeypatch.delitem(sys.modules, "numpy")  # what a cold process has


def test_past_the_flat_copys_limit_a_cold_search_reads_the_grouped_copy(tmp_path, monkeypatch, small_limits):
    matrix = _topics(1500, 1)
    labels = list(range(10, 1510))
    index, path = _saved(tmp_path, matrix, labels)
    assert groups_path(path).is_file() and not exact_path(path).exists()
    assert isinstance(load_for_search(path, DIM, index.live), VectorIndex)  # numpy is here: hnswlib's graph
    queries = _topics(20, 2)
    _without_numpy(monkeypatch)  # the searches take the plain-Python path
    grouped = load_for_search(path, DIM, index.live)
    assert isinstance(grouped, GroupedVectors) and grouped.labels() == set(labels)
    answers = [grouped.search(query.tolist(), 50) for query in queries]
    monkeypatch.setitem(sys.modules, "numpy", np)  # numpy's own functions below import it
    found, first = [], 0
    for query, got in zip(queries, answers):
        sims = matrix @ query
        exact = [labels[i] for i in np.argsort(-sims)[:50]]
        first += got[0][0] == exact[0]
        # The similarities are the vectors' own, to the flat copy's precision, best first.
        assert np.allclose([s for _, s in got], [sims[labels.index(label)] for label, _ in got], atol=1e-4)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        found.append(len({label for label, _ in got} & set(exact)) / 50)
    # Approximate, as hnswlib is: most of the nearest 50 (0.96 here), and the nearest itself for
    # nearly every query (19 of 20: a third of these vectors is compared).
    assert np.mean(found) >= 0.9 and first >= 18


def test_a_cold_process_searches_the_grouped_copy_without_importing_numpy(tmp_path, small_limits):
    matrix = _topics(1500, 3)
    index, path = _saved(tmp_path, matrix, list(range(1500)))
    script = f"""
import json, sys
from ov.index import vector_groups, vectors
vectors.EXACT_COMPONENTS = 100 * {DIM}
vector_groups.GROUPED_COMPONENTS = 4000 * {DIM}
found = vectors.load_for_search(vectors.Path({str(path)!r}), {DIM}, {index.live})
near = vectors.nearest_records(found, json.loads(sys.argv[1]), 10)
print(json.dumps([type(found).__name__, "numpy" in sys.modules, "hnswlib" in sys.modules, near]))
"""
    query = matrix[7] + 0.1 * matrix[8]
    run = subprocess.run([sys.executable, "-c", script, json.dumps(query.tolist())], capture_output=True, text=True, check=True)
    kind, numpy_loaded, hnswlib_loaded, near = json.loads(run.stdout)
    assert (kind, numpy_loaded, hnswlib_loaded) == ("GroupedVectors", False, False)
    assert near[0][0] == int(np.argmax(matrix @ query))


def test_a_search_among_allowed_records_reads_every_group_that_holds_one(tmp_path, monkeypatch, small_limits):
    """Exact among the allowed, however far from the query their groups lie, with and without numpy."""
    matrix = _topics(1200, 4)
    labels = part_labels(3, 4) + part_labels(5, 1) + list(range(20, 1215))
    _, path = _saved(tmp_path, matrix, labels)
    grouped = GroupedVectors.load(groups_path(path), DIM, len(labels))
    query = matrix[600]
    allowed = {3, 5, 25, 900, 99999}  # 99999 has no vector
    best = {}
    for row, label in enumerate(labels):
        record = label % vectors_module.PART_STRIDE
        if record in allowed:
            best[record] = max(best.get(record, -2.0), float(matrix[row] @ query))
    want = sorted(best, key=lambda record: -best[record])
    assert [label for label, _ in nearest_records(grouped, query.tolist(), 10, allowed)] == want
    _without_numpy(monkeypatch)
    cold = GroupedVectors.load(groups_path(path), DIM, len(labels))
    assert [label for label, _ in nearest_records(cold, query.tolist(), 10, allowed)] == want


def test_asking_again_for_more_neighbours_of_the_same_query_compares_more_groups(tmp_path, monkeypatch, small_limits):
    """nearest_records asks again with a larger limit for the same vector object: the groups
    compared for the first answer are reused only when they cover the larger one."""
    matrix = _topics(1500, 9)
    _, path = _saved(tmp_path, matrix, list(range(1500)))
    _without_numpy(monkeypatch)
    grouped = GroupedVectors.load(groups_path(path), DIM, 1500)
    query = matrix[40].tolist()
    for limit, allowed in ((10, None), (1200, None), (10, {5, 900}), (1500, None), (3, None)):
        fresh = GroupedVectors.load(groups_path(path), DIM, 1500)
        got = grouped.search(query, limit, allowed)
        assert got == fresh.search(query, limit, allowed) and len(got) == (2 if allowed else limit)


def test_allowed_records_scattered_over_the_store_are_searched_through_hnswlib(tmp_path, small_limits, monkeypatch):
    monkeypatch.setattr(vector_groups, "ALLOWED_PER_ROOT", 25)  # at 1,500 vectors 100 * sqrt(n) is the whole store
    matrix = _topics(1500, 10)
    _, path = _saved(tmp_path, matrix, list(range(1500)))
    grouped = GroupedVectors.load(groups_path(path), DIM, 1500)
    query = matrix[7]
    allowed = set(range(0, 1500, 3))  # in every group
    sims = matrix @ query
    want = sorted((sims[label] for label in allowed), reverse=True)[:20]
    got = grouped.search(query.tolist(), 20, allowed)
    assert {label for label, _ in got} <= allowed and np.allclose([sim for _, sim in got], want, atol=1e-5)
    assert isinstance(grouped._graph, VectorIndex)  # comparing nearly every group would cost more
    few = GroupedVectors.load(groups_path(path), DIM, 1500)
    assert [label for label, _ in few.search(query.tolist(), 3, {1, 2, 3})] == sorted({1, 2, 3}, key=lambda label: -sims[label])
    assert few._graph is None  # a few groups: compared in plain Python


def test_allowed_records_in_more_groups_than_a_search_compares_stay_in_plain_python(tmp_path, small_limits, monkeypatch):
    """How many vectors a search compares and when a filtered one goes to hnswlib are separate
    limits: fewer compared by a search sends no filtered search to numpy sooner."""
    matrix = _topics(1500, 10)
    _, path = _saved(tmp_path, matrix, list(range(1500)))
    _without_numpy(monkeypatch)
    monkeypatch.setattr(vector_groups, "COMPARED_PER_ROOT", 1)  # 39 vectors a search: every group holds more
    grouped = GroupedVectors.load(groups_path(path), DIM, 1500)
    query = matrix[7]
    allowed = set(range(0, 1500, 3))  # in every group: the whole store, under 100 * sqrt(n)
    got = grouped.search(query.tolist(), 20, allowed)
    monkeypatch.setitem(sys.modules, "numpy", np)
    sims = matrix @ query
    want = sorted((sims[label] for label in allowed), reverse=True)[:20]
    assert {label for label, _ in got} <= allowed and np.allclose([sim for _, sim in got], want, atol=1e-4)  # exact, to the copy's precision
    assert grouped._graph is None  # compared in plain Python, without hnswlib


def test_a_grouped_copy_whose_groups_do_not_add_up_is_refused(tmp_path, small_limits):
    import struct

    matrix = _topics(600, 11)
    _, path = _saved(tmp_path, matrix, list(range(600)))
    copy = groups_path(path)
    whole = bytearray(copy.read_bytes())
    head = struct.calcsize("<8sIIII")
    struct.pack_into("<I", whole, head + 4, 601)  # the second group's first row, past the end
    copy.write_bytes(bytes(whole))
    with pytest.raises(ValueError, match="do not add up"):
        GroupedVectors.load(copy, DIM, 600)


def test_the_grouped_copy_reads_a_records_passages_and_rows(tmp_path, small_limits):
    matrix = _topics(300, 5)
    labels = part_labels(3, 4) + part_labels(9, 2) + list(range(20, 314))
    _, path = _saved(tmp_path, matrix, labels)
    grouped = GroupedVectors.load(groups_path(path), DIM, len(labels))
    assert grouped.passage_counts([3, 9, 20, 999]) == {3: 4, 9: 2, 20: 1}
    assert np.allclose(grouped.rows_of([part_labels(3, 4)[2], 20]), matrix[[2, 6]], atol=1e-4)
    query = matrix[0] + matrix[5]
    got = record_similarities(grouped, query.tolist(), [3, 9, 999], {})
    sims = matrix @ query
    assert got.keys() == {3, 9} and got[3].passages == 4 and got[3].first == pytest.approx(sims[0], abs=1e-4)
    assert got[9].nearest == pytest.approx(max(sims[4:6]), abs=1e-4)


def test_an_update_keeps_each_vectors_group_and_makes_new_centroids_once_the_index_doubled(tmp_path, small_limits):
    matrix = _topics(2600, 6)
    _, path = _saved(tmp_path, matrix[:1000], list(range(1000)))
    first = GroupedVectors.load(groups_path(path), DIM, 1000)
    centroids = first.centroids()
    # One update: 200 added, 100 removed. The centroids stay and every kept vector keeps its group
    # and its row.
    index = VectorIndex.load(path, DIM, 1000, for_update=True)
    index.add(matrix[1000:1200], list(range(1000, 1200)))
    index.remove(list(range(100)))
    index.save(tmp_path / "vectors-000002.hnsw")
    second = GroupedVectors.load(groups_path(tmp_path / "vectors-000002.hnsw"), DIM, 1100)
    assert np.array_equal(second.centroids(), centroids) and second.trained == 1000
    assert all(second.group_of(label) == first.group_of(label) for label in range(100, 1000))
    assert second.labels() == set(range(100, 1200)) and second.group_of(5) is None
    near = np.argmax(matrix[1000:1200] @ centroids.T, axis=1)
    assert [second.group_of(label) for label in range(1000, 1200)] == near.tolist()  # a new vector joins its nearest
    rows = second.rows()
    assert np.allclose(np.stack([rows[label] for label in range(100, 1200)]), matrix[100:1200], atol=1e-4)
    # The same index object saved again: it searches what it wrote.
    index.add(matrix[1200:1201], [1200])
    index.save(tmp_path / "vectors-000003.hnsw")
    assert GroupedVectors.load(groups_path(tmp_path / "vectors-000003.hnsw"), DIM, 1101).labels() == set(range(100, 1201))
    # Past twice the vectors the centroids were made from, they are made again, for more groups.
    grown = VectorIndex.load(tmp_path / "vectors-000003.hnsw", DIM, 1101, for_update=True)
    grown.add(matrix[1201:2600], list(range(1201, 2600)))
    grown.remove([150])
    grown.save(tmp_path / "vectors-000004.hnsw")
    again = GroupedVectors.load(groups_path(tmp_path / "vectors-000004.hnsw"), DIM, 2499)
    assert again.trained == 2499 and again.groups > first.groups and again.labels() == set(range(100, 2600)) - {150}


def test_each_copy_gives_way_to_the_next_as_the_index_grows_and_shrinks(tmp_path, monkeypatch, small_limits):
    matrix = _topics(4200, 7)
    index, path = _saved(tmp_path, matrix[:50], list(range(50)))
    steps = [(exact_path(path).exists(), groups_path(path).exists())]
    for gen, (added, removed) in enumerate([(range(50, 1000), []), (range(1000, 4200), []), ([], range(200, 4200)), ([], range(100, 200))], start=2):
        index = VectorIndex.load(path, DIM, index.live, for_update=True)
        index.add(matrix[list(added)], list(added))
        index.remove(list(removed))
        path = tmp_path / f"vectors-{gen:06d}.hnsw"
        index.save(path)
        steps.append((exact_path(path).exists(), groups_path(path).exists()))
    # flat copy, grouped (1,000), neither (4,200: past the grouped limit), grouped (200), flat (100)
    assert steps == [(True, False), (False, True), (False, False), (False, True), (True, False)]
    _without_numpy(monkeypatch)
    assert isinstance(load_for_search(path, DIM, 100), ExactVectors)


def test_a_damaged_grouped_copy_is_passed_over_for_hnswlib(tmp_path, monkeypatch, small_limits):
    matrix = _topics(600, 8)
    index, path = _saved(tmp_path, matrix, list(range(600)))
    copy = groups_path(path)
    whole = copy.read_bytes()
    copy.write_bytes(whole[: len(whole) // 2])  # what an interrupted write would leave, were it not atomic
    _without_numpy(monkeypatch)
    searched = load_for_search(path, DIM, index.live)
    assert isinstance(searched, VectorIndex)
    with pytest.raises(ValueError, match="does not match"):
        GroupedVectors.load(copy, DIM, index.live + 1)


@pytest.mark.parametrize("count", [5, 6, 1])
def test_sixteen_bit_columns_give_the_same_similarities_as_thirty_two_bit_ones(monkeypatch, count):
    """The grouped copy stores 16-bit columns, which a cold search splits into even and odd rows:
    at the extremes (rows and queries that fill the fields to the top), for an odd number of rows
    as for an even one, every similarity is the one the flat copy's 32-bit columns give."""
    from array import array

    from ov.index.vectors import quantise

    dimension = 256
    ones = np.full(dimension, dimension**-0.5, dtype=np.float32)
    spike = np.zeros(dimension, dtype=np.float32)
    spike[3] = 1.0
    matrix = np.stack([ones, -ones, spike, np.zeros(dimension, dtype=np.float32), -spike, ones][:count])
    scales, columns = quantise(matrix)
    _without_numpy(monkeypatch)
    made = {size: ExactVectors(array("q", range(count)), array("f", scales.tolist()), memoryview(columns.astype(f"<u{size}").tobytes()), dimension, size=size) for size in (2, 4)}
    for query in (ones, -ones, spike, ones + spike):
        query = (query / np.linalg.norm(query)).tolist()
        assert made[2].search(query, count) == made[4].search(query, count)
        assert made[2]._plain_similarities(query) == pytest.approx((matrix @ np.asarray(query)).tolist(), abs=3e-3)


def test_a_grouped_copy_written_out_of_step_with_the_index_is_removed(tmp_path, monkeypatch, small_limits):
    """The hnswlib file is the authority: a copy whose count disagrees with it is not left for
    searches to read (they then take hnswlib)."""
    matrix = _topics(800, 12)
    _, path = _saved(tmp_path, matrix, list(range(800)))
    real = vector_groups.write_update
    monkeypatch.setattr(vector_groups, "write_update", lambda path, base, added, removed: real(path, base, added, set()))  # forgets the removals
    index = VectorIndex.load(path, DIM, 800, for_update=True)
    index.remove([1, 2, 3])
    index.save(tmp_path / "vectors-000002.hnsw")
    assert not groups_path(tmp_path / "vectors-000002.hnsw").exists()
    _without_numpy(monkeypatch)
    assert isinstance(load_for_search(tmp_path / "vectors-000002.hnsw", DIM, 797), VectorIndex)


@pytest.mark.parametrize("static", [True, False])
def test_a_static_models_copy_is_searched_comparing_fewer_vectors(tmp_path, monkeypatch, small_limits, static):
    """12 * sqrt(n) vectors of a static model's (whose cosine weighs little in a find), 25 * sqrt(n)
    of another's: the nearest groups until they hold that many."""
    matrix = _topics(1500, 13)
    _, path = _saved(tmp_path, matrix, list(range(1500)))
    _without_numpy(monkeypatch)
    grouped = load_for_search(path, DIM, 1500, static=static)
    assert isinstance(grouped, GroupedVectors) and grouped.static is static
    grouped.search(matrix[5].tolist(), 10)
    sizes = [grouped._starts[group + 1] - grouped._starts[group] for group in grouped._last[1]]
    wanted = round((vector_groups.STATIC_COMPARED_PER_ROOT if static else vector_groups.COMPARED_PER_ROOT) * 1500**0.5)
    assert sum(sizes) >= wanted > sum(sizes) - max(sizes)  # the last group chosen reached it
