"""ArgMax float16 where every tile may win (ascending rows, DECREASING ties): loop time a
call of 100 calls and one wait, ROW_LANE_BOUND off / on / off / on (with lane-bound.patch
applied), checked once each. `python every_tile.py IMPL`; SMALL=1 for lavapipe."""
import os
import sys
import time

import numpy as np

import dmlgpu as dg
from dmlgpu import tuning

impl = sys.argv[1]
SH = (2, 64, 512) if os.environ.get("SMALL") else (2, 4096, 8192)
n = SH[0] * SH[1] * SH[2]
asc = np.linspace(-60000, 60000, n).astype(np.float16).reshape(SH)
zeros = np.zeros(SH, np.float16)
rnd = np.random.default_rng(0).standard_normal(n, dtype=np.float32).astype(np.float16)
rnd = rnd.reshape(SH)
cases = [("ascending rows", asc, (2,), "increasing"),
         ("ascending (1, 2)", asc, (1, 2), "increasing"),
         ("zeros rows decreasing", zeros, (2,), "decreasing"),
         ("zeros (1, 2) decreasing", zeros, (1, 2), "decreasing"),
         ("normal rows", rnd, (2,), "increasing"), ("normal (1, 2)", rnd, (1, 2), "increasing")]
for lb in (False, True, False, True):
    tuning.ROW_LANE_BOUND = lb
    d = dg.Device(webgpu=impl)
    for name, data, axes, dirn in cases:
        x = dg.asarray(data, device=d)
        y = dg.argmax(x, axes, axis_direction=dirn).numpy()
        t = data.reshape(2, -1) if axes == (1, 2) else data
        ax = 1 if axes == (1, 2) else 2
        ref = np.argmax(t[..., ::-1], ax) if dirn == "decreasing" else np.argmax(t, ax)
        if dirn == "decreasing":
            ref = t.shape[ax] - 1 - ref
        ok = np.array_equal(y.ravel(), ref.ravel())
        best = 1e9
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(100):
                r = dg.argmax(x, axes, axis_direction=dirn)
            r.numpy()
            best = min(best, (time.perf_counter() - t0) / 100)
        print(f"{impl} lane_bound={lb} {name}: {best * 1e6:.1f} us a call, right={ok}", flush=True)
    del d
