"""What a vector delta's size costs an update and a cold search (``ov.index.vector_delta``).

An update that changes few vectors writes them into a delta beside the generation: it reads the
delta, adds its change and writes the delta whole again (atomically, with an fsync). A search
compares the query with every vector the delta added, and a cold ``ov find`` does so without
numpy (``ExactVectors``' integer columns). Both grow with the delta, which is why it folds into a
new generation past ``DELTA_LIMIT`` changes. This times, for deltas of ``--sizes`` added vectors
of ``--dimension`` (256, the built-in model's) on synthetic unit vectors: one more vector added
and the delta written (p50 of ``--reps``), and the nearest 200 of a freshly loaded delta found
with numpy hidden, as a cold process has it (p50 of ``--reps``).

    .venv/bin/python bench/vector_delta.py [--sizes 64,256,512,1024] [--dimension 256] [--reps 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="64,256,512,1024", help="added vectors a delta holds (comma-separated)")
    parser.add_argument("--dimension", type=int, default=256)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()

    import numpy as np

    from ov.index.vector_delta import DELTA_LIMIT, Delta
    from ov.index.vectors import ExactVectors

    rng = np.random.default_rng(1)
    dim = args.dimension

    def rows(count: int, start: int) -> dict:
        matrix = rng.standard_normal((count, dim)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return dict(zip(range(start, start + count), matrix))

    base = ExactVectors.from_bytes(b"".join(bytes(b) for b in ExactVectors.blocks(rows(100, 0), dim)), dim, 100, "generation")
    print(f"vector_delta: {dim} dimensions, {args.reps} repetitions; DELTA_LIMIT is {DELTA_LIMIT}")
    print(f"{'added vectors':>13}  {'update p50':>10}  {'search without numpy, p50':>26}  {'file':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vectors-000001.delta"
        for size in (int(s) for s in args.sizes.split(",")):
            delta = Delta.empty(dim, base.live).changed([], rows(size - 1, 1_000), base)
            updates = []
            for rep in range(args.reps):
                started = time.perf_counter()
                delta.changed([], rows(1, 1_000_000 + rep), base).write(path)
                updates.append(time.perf_counter() - started)
            query = [float(x) for x in rng.standard_normal(dim)]
            searches = []
            for _ in range(args.reps):
                loaded = Delta.load(path, dim)
                numpy = sys.modules.pop("numpy")  # the search takes its plain-Python path, as in a cold `ov find`
                try:
                    started = time.perf_counter()
                    loaded.added.search(query, 200)
                    searches.append(time.perf_counter() - started)
                finally:
                    sys.modules["numpy"] = numpy
            print(f"{size:>13}  {statistics.median(updates) * 1000:>7.2f} ms  {statistics.median(searches) * 1000:>23.2f} ms  {path.stat().st_size // 1024:>5} KB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
