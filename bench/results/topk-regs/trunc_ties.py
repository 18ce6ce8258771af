"""Wall time per call of 200 back-to-back TopK calls (GPU-bound), strategy "regs" with and
without truncated float32 keys, on rows whose top bits decide the top K (normal values,
half zeros) and rows where they tie (seven levels, values 64 ulps apart: every row
reselected). python trunc_ties.py IMPL OUT.json"""
import json
import sys
import time

import numpy as np

import dmlgpu as dg
from dmlgpu import tuning

impl = sys.argv[1]
rng = np.random.default_rng(0)
out = []
for trunc in (True, False):
    tuning.TOPK_REGS_TRUNC = trunc
    d = dg.Device(webgpu=impl)
    for n in (32, 128):
        rows = (1 << 26) // n
        normal = rng.standard_normal((rows, n)).astype(np.float32)
        close = 1 + rng.integers(0, 64, (rows, n)) * 2.0**-23
        datas = {"normal": normal,
                 "levels": rng.integers(-3, 4, (rows, n)).astype(np.float32),
                 "relu": np.maximum(normal, 0), "close": close.astype(np.float32)}
        for name, x in datas.items():
            t = dg.asarray(x, device=d)
            for k in (5, 8):
                for _ in range(5):
                    dg.top_k(t, k)
                dg.top_k(t, k)[0].numpy()
                t0 = time.perf_counter()
                for _ in range(200):
                    v, i = dg.top_k(t, k)
                v.numpy()
                dt = (time.perf_counter() - t0) / 200
                out.append(dict(trunc=trunc, n=n, data=name, k=k, us=dt * 1e6))
                print(out[-1], flush=True)
json.dump(out, open(sys.argv[2], "w"), indent=1)
