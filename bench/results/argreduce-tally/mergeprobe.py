"""Where the merge pass's time goes (H100, wgpu-native, 2026-11-26): per point, the GPU
time of the whole call, of its split pass alone, of the merge pass alone, of the split pass
followed by a near-empty dispatch (a 256-element argmax) in the merge's place, and of that
dispatch alone; under a few tunings. `PYTHONPATH=. python bench/results/argreduce-tally/
mergeprobe.py IMPL [--small]` -> h100-wgpu-mergeprobe.log (one JSON line a point). It ran
before TALLY_MERGE: run it with DMLGPU_TUNING=TALLY_MERGE=0 to see the two passes again."""
import json
import sys

import numpy as np

import dmlgpu as dg
from bench.steps import _setup
from dmlgpu import tuning
from dmlgpu.runtime import dispatch

impl = sys.argv[1]
pts = [("uint8", (512, 512, 512), (0, 1, 2)), ("uint8", (512, 512, 512), (0, 1)),
       ("uint8", (2, 4096, 8192), (1,)), ("float16", (512, 512, 512), (0, 1, 2)),
       ("float32", (512, 512, 512), (0, 1, 2))]
if "--small" in sys.argv:
    pts = [("uint8", (8, 64, 512), (0, 1, 2)), ("uint8", (8, 64, 512), (0, 1))]
for cfg in [{}, {"MAX_SPLIT": 256}, {"MAX_SPLIT": 512}, {"MERGE_UNROLL": 8},
            {"MERGE_COL_MIN_OUT": 256}]:
    saved = {k: getattr(tuning, k) for k in cfg}
    for k, v in cfg.items():
        setattr(tuning, k, v)
    dev, runner = _setup(impl)
    rng = np.random.default_rng(0)
    tx = dg.asarray(np.arange(256, dtype=np.uint8), device=dev)
    with dispatch.recording() as tsubs:
        ty = dg.argmax(tx, 0)
    tiny = list(tsubs[0][0].commands)
    for dtype, shape, axes in pts:
        host = rng.integers(0, 256, int(np.prod(shape)), dtype=np.uint8).astype(dtype)
        host = host.reshape(shape)
        x = dg.asarray(host, device=dev)
        with dispatch.recording() as subs:
            y = dg.argmax(x, axes)
        kept = [i for i in range(len(shape)) if i not in axes]
        rows = np.transpose(host, kept + list(axes)).reshape(-1, host.size // y.size)
        assert np.array_equal(y.numpy().reshape(-1), np.argmax(rows, axis=1)), "wrong"
        b = subs[0][0]
        cmds = b.commands

        def med(cs, b=b, runner=runner):
            bound = dispatch.Bound(cs, b.uniforms, b.refs, b.label)
            return float(np.median(runner.gpu_samples([[bound]])[0])) * 1e6
        res = {"cfg": cfg, "dtype": dtype, "shape": shape, "axes": axes,
               "n_cmds": len(cmds), "call": med(cmds), "first": med(cmds[:1])}
        if len(cmds) > 1:
            res.update(merge=med(cmds[1:]), **{"first+tiny": med(cmds[:1] + tiny)},
                       tiny=med(tiny))
        print(json.dumps(res), flush=True)
        del y, x
    for k, v in saved.items():
        setattr(tuning, k, v)
