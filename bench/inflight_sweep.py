# ruff: noqa: E501, E702, B007 - an experiment's script, kept as it ran
"""Host CPU and wall time per call of loops of large calls, by the bound on submissions in
flight (runtime/inflight.py): `python -m bench.inflight_sweep IMPL OUT.json` on a GPU."""
import gc
import json
import sys

import numpy as np

import dmlgpu as dg
from bench.runner import loop_calls
from dmlgpu.runtime.inflight import InFlight

impl, out = sys.argv[1], sys.argv[2]
dev = dg.Device(webgpu=impl)
rng = np.random.default_rng(1)
f32 = dg.asarray(rng.standard_normal(1 << 28, dtype=np.float32), device=dev)
sq16 = dg.asarray(rng.standard_normal((16384, 16384), dtype=np.float32).astype(np.float16), device=dev)

big16 = dg.asarray(rng.standard_normal((32768, 16384), dtype=np.float32).astype(np.float16), device=dev)
sparse = np.zeros((16384, 8192), np.float32); sparse.flat[rng.integers(0, sparse.size, sparse.size // 1000)] = 1
nz = dg.asarray(sparse, device=dev); del sparse
cases = {
    "argmax/flat/f32": lambda: dg.argmax(f32, 0),
    "argmax/rows/f16": lambda: dg.argmax(sq16, 1),
    "hardmax/1gib/f16": lambda: dg.hardmax(big16),
    "topk/rows/f16/k1024": lambda: dg.top_k(sq16, 1024),
    "nonzero/1gib/f32": lambda: dg.nonzero_coordinates(nz),
}
bare_sync = dev.synchronize
res = {"impl": impl, "rows": []}
for limit in (0, 1, 2, 4, 8, 32):
    dev.synchronize()
    dev.in_flight = InFlight(dev.device, limit)
    for name, fn in cases.items():
        gc.collect()
        best = None
        for rep in range(2):
            w0, ws0, wc0 = dev.in_flight.waits, dev.in_flight.wait_s, dev.in_flight.wait_cpu_s
            lp = loop_calls(fn, bare_sync, 0.25)
            n = lp["n"] + 2
            row = dict(limit=limit, case=name, n=lp["n"], loop_us=lp["loop_s"] * 1e6,
                       issue_us=lp["issue_s"] * 1e6, cpu_us=lp["issue_cpu_s"] * 1e6,
                       wait_us=(dev.in_flight.wait_s - ws0) / n * 1e6,
                       wait_cpu_us=(dev.in_flight.wait_cpu_s - wc0) / n * 1e6)
            if best is None or row["cpu_us"] < best["cpu_us"]:
                best = row
        res["rows"].append(best)
        print(f"{impl} limit {limit:3d} {name:22s} loop {best['loop_us']:8.1f} issue {best['issue_us']:7.1f} cpu {best['cpu_us']:7.1f} wait {best['wait_us']:7.1f} wait_cpu {best['wait_cpu_us']:7.1f} us (n={best['n']})", flush=True)
json.dump(res, open(out, "w"), indent=1)
