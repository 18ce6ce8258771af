"""tuning.BATCH_LARGE_CALLS at 8, 16 and 32, alternating in one process: issuing time
(wall and thread CPU) and loop time per call of large one-dispatch calls (1 GiB float32,
512 MiB float16), least of 3 loops, beside a bare dispatch's issuing time, 3 rounds.

    python -m bench.batch_ab IMPL OUT.json

(bench/results/batchk/h100-{dawn,wgpu}-batch-ab.json; tuning.py cites them.)
"""
import json
import sys

import numpy as np

import dmlgpu as dg
from dmlgpu import tuning

from . import clocks
from .runner import best_loop, copy_bound, loop_calls, submit_alone

impl, out = sys.argv[1], sys.argv[2]
clocks.hold()
dev = dg.Device(webgpu=impl)
sb = dev.create_buffer(4, what="sync")


def sync():
    dev.download(sb, 0, 4)


src = dev.create_buffer(4096, what="s")
dst = dev.create_buffer(4096, what="d")
bare_b = copy_bound(dev, src, dst, 4096, 1, "bare")


def bare():
    return min(loop_calls(lambda: submit_alone(dev.device, bare_b), sync, 0.1)["issue_s"]
               for _ in range(3))


rng = np.random.default_rng(0)
x32 = dg.asarray(rng.random((16384, 16384), dtype=np.float32), device=dev)
x16 = dg.asarray(rng.random((16384, 16384), dtype=np.float32).astype(np.float16), device=dev)
cases = {
    "argmin/rows/f32": lambda: dg.argmin(x32, axes=1),
    "argmax/rows/f16": lambda: dg.argmax(x16, axes=1),
    "topk/rows/f32/k1": lambda: dg.top_k(x32, 1),
    "hardmax/rows/f16 (512 MiB)": lambda: dg.hardmax(x16, axes=1),
}
res = []
for rep in range(3):
    for name, fn in cases.items():
        for b in (8, 16, 32):
            tuning.BATCH_LARGE_CALLS = b
            lp = best_loop(fn, sync, 3, 0.6)
            r = dict(rep=rep, case=name, batch=b, issue_us=lp["issue_s"] * 1e6,
                     cpu_us=lp["issue_cpu_s"] * 1e6, loop_us=lp["loop_s"] * 1e6,
                     bare_us=bare() * 1e6)
            res.append(r)
            print(json.dumps(r), flush=True)
json.dump(res, open(out, "w"), indent=1)
