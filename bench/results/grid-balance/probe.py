"""Copy yardstick vs grid shape; ArgMax time vs size (intercept); empty-group cost."""

import json
import os
import sys

import numpy as np

import dmlgpu as dg
from bench import report
from bench.runner import COPY_WG, Policy, Runner
from bench.steps import timer_kind
from dmlgpu import codegen
from dmlgpu.runtime import dispatch

try:
    import torch

    torch.zeros(1).cuda()
except Exception:
    torch = None

impl = sys.argv[1]
out = {}
dev = dg.Device(webgpu=impl)
r = Runner(
    dev,
    quick=False,
    timer=timer_kind(dev),
    policy=Policy(2, 5, 0.05, 0.0),
    peers=[],
    progress=report.Progress(0),
)
MiB = 1 << 20

sizes = (
    [1, 2] if os.environ.get("SMALL") else [32, 64, 128, 192, 255, 256, 257, 384, 512, 768, 1024]
)
out["max_wg"] = dev.max_workgroups
out["copy_old"] = {s: r.copy(s * MiB)["gpu_s"] * 1e6 for s in sizes}
old_grid = dispatch.grid


def balanced(n, m):
    if n <= m:
        return n, 1
    y = -(-n // m)
    return -(-n // y), y


dispatch.grid = balanced
r.copies.clear()
out["copy_bal"] = {s: r.copy(s * MiB)["gpu_s"] * 1e6 for s in sizes}
dispatch.grid = old_grid
print(json.dumps(out), flush=True)
# empty groups: copy pipeline with n_groups param 1, launched over G groups
src = dev.create_buffer(1 << 16, what="s")
dst = dev.create_buffer(1 << 16, what="d")
pipeline, layout = dev.pipelines.get("copy.wgsl.j2", wg=COPY_WG)
out["empty"] = {}
for G in [1, 1024, 16384, 65535, 65536, 131072]:
    b = dispatch.bind(
        dev,
        [
            dispatch.Launch(
                pipeline,
                layout,
                [(src, 0, 1 << 16), (dst, 0, 1 << 16)],
                codegen.pack_params(n_groups=1, aux0=1),
                G,
            )
        ],
        "e",
    )
    s, _, _ = r.gpu_samples([[b]])
    out["empty"][G] = float(np.median(s)) * 1e6
print(json.dumps(out["empty"]), flush=True)
# argmax vs size
rng = np.random.default_rng(1)
out["arg"] = []
for dt in ["float32", "float16", "uint8"]:
    for lg in [14, 15] if os.environ.get("SMALL") else [22, 23, 24, 25, 26, 27, 28]:
        n = 1 << lg
        if n * np.dtype(dt).itemsize > (1 << 30):
            continue
        h = (rng.standard_normal(n, dtype=np.float32) * 50).astype(dt)
        x = dg.asarray(h, device=dev)
        for label, shape, axes in [
            ("full", (n,), (0,)),
            ("rows8192", (n // 8192, 8192), (1,)),
            ("cols2", (n // 2, 2), (0,)),
        ]:
            xv = x.reshape(shape)
            with dispatch.recording() as subs:
                y = dg.argmax(xv, axes)
            s, _, _ = r.gpu_samples([[b for b, _ in subs]])
            rec = dict(
                dt=dt,
                lg=lg,
                kind=label,
                us=float(np.median(s)) * 1e6,
                n_disp=sum(b.n_dispatches for b, _ in subs),
            )
            if torch is not None:
                th = torch.from_numpy(h).cuda().reshape(shape)
                f = (
                    (lambda th=th: torch.argmax(th))
                    if label == "full"
                    else (lambda th=th, axes=axes: torch.argmax(th, dim=axes[0]))
                )
                f()
                torch.cuda.synchronize()
                ts = []
                for _ in range(5):
                    e0 = torch.cuda.Event(enable_timing=True)
                    e1 = torch.cuda.Event(enable_timing=True)
                    e0.record()
                    f()
                    e1.record()
                    torch.cuda.synchronize()
                    ts.append(e0.elapsed_time(e1) * 1e3)
                rec["torch_us"] = float(np.median(ts))
                del th
            out["arg"].append(rec)
            print(rec, flush=True)
            del subs, y
        del x
json.dump(out, open(sys.argv[2], "w"), indent=1)
