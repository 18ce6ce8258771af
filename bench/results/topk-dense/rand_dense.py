"""Random TopK problems on the "wide" kernel's dense and chunked paths, each checked against
the tests' numpy reference (lavapipe, either implementation):

    DMLGPU_WEBGPU=wgpu python bench/results/topk-dense/rand_dense.py SEED COUNT

Dense rows: n 260-4096, K from max(65, n/4) to n/2; chunked rows: n 16385-70000, K 129-1024,
1-3 rows; eight dtypes; ties, specials, normal values; both directions and both axes.
Prints how many ran and how many took the dense and chunked paths."""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
from reference import random_values  # noqa: E402
from test_topk import check, compiled  # noqa: E402

import dmlgpu as dg  # noqa: E402

DTYPES = ["float32", "float16", "int32", "uint32", "int16", "uint16", "int8", "uint8"]


def main(seed: int, count: int) -> None:
    rng = np.random.default_rng(seed)
    ran = dense = chunked = 0
    for _ in range(count):
        dt = DTYPES[rng.integers(len(DTYPES))]
        if rng.random() < 0.75:
            n = int(rng.integers(260, 4097))
            k = int(rng.integers(max(65, (n + 3) // 4), n // 2 + 1))
            rows = int(rng.integers(1, 6))
        else:
            n, k = int(rng.integers(16385, 70000)), int(rng.integers(129, 1025))
            rows = int(rng.integers(1, 4))
        kind = rng.integers(4)
        if kind == 2:
            x = (rng.standard_normal((rows, n)) * (3 if dt[0] == "f" else 30)).astype(dt)
        else:
            x = random_values(rng, (rows, n), dt, ties=kind == 0, specials=kind != 1)
        axis = -1 if rng.random() < 0.6 else 0
        if axis == 0:
            x = np.ascontiguousarray(x.T)
        direction = "decreasing" if rng.random() < 0.5 else "increasing"
        t = dg.asarray(x)
        notes = compiled(t, k, axis, direction).plan.notes
        dense += bool(notes.get("wide_dense_all"))
        chunked += notes.get("strategy") == "wide" and notes.get("chunks", 1) > 1
        check(t, k, axis, direction)
        ran += 1
    print("ran", ran, "dense", dense, "chunked", chunked)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
