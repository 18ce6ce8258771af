"""Where the host time of one steady-state call goes.

`python -m dmlgpu.bench.breakdown [--webgpu IMPL] [--json FILE] [--quick]` times every
wgpu call (by wrapping wgpu-py's methods) over a loop of calls of each operator and prints
microseconds per call by wgpu method, the Python rest (validation, planning, bookkeeping,
and the wait of a readback's map), host and loop time per call, and GPU time. It also runs
against the runtime before dmlgpu/runtime/ (commit 9d0b835 on PYTHONPATH): the README's
before/after table came from both.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time

import numpy as np

import dmlgpu as dg

from . import clocks

NEW = hasattr(dg, "Graph")
if NEW:
    from dmlgpu.runtime import dispatch
else:  # the runtime before dmlgpu/runtime/
    from dmlgpu import dispatch

# (class getter, methods, label prefix): every wgpu call a dmlgpu call can make
_TARGETS = (
    (lambda g, e, p, b: type(g), ("create_command_encoder", "create_bind_group",
                                  "create_buffer"), "device."),
    (lambda g, e, p, b: type(g.queue), ("submit", "write_buffer", "read_buffer"), "queue."),
    (lambda g, e, p, b: type(e), ("begin_compute_pass", "finish", "copy_buffer_to_buffer"),
     "encoder."),
    (lambda g, e, p, b: type(p), ("set_pipeline", "set_bind_group", "dispatch_workgroups",
                                  "end"), "pass."),
    (lambda g, e, p, b: type(b), ("map_async", "read_mapped", "unmap", "destroy"), "buffer."),
)


def _cases(rng, quick: bool) -> list:
    sparse = rng.standard_normal((1024, 1024), dtype=np.float32)
    sparse[rng.random(sparse.shape) >= 0.01] = 0
    big = rng.standard_normal((512, 512) if quick else (16384, 8192), dtype=np.float32)
    big[rng.random(big.shape, dtype=np.float32) >= 0.001] = 0  # 1 GiB of coordinates
    half = rng.standard_normal((256, 1024) if quick else (32768, 16384), dtype=np.float32)
    return [
        ("argmax 4x150000", rng.standard_normal((4, 150000), dtype=np.float32),
         lambda x: dg.argmax(x, 1)),
        ("topk 1x1000 K=5", rng.standard_normal((1, 1000), dtype=np.float32),
         lambda x: dg.top_k(x, 5)),
        ("hardmax 64x1000", rng.standard_normal((64, 1000), dtype=np.float32), dg.hardmax),
        ("nonzero 1024^2 d=0.01", sparse, dg.nonzero_coordinates),
        ("hardmax f16 1 GiB", half.astype(np.float16), dg.hardmax),
        ("nonzero 1 GiB coords", big, dg.nonzero_coordinates),
        ("readback 16 B", None, None),
    ]


def run(dev, quick: bool) -> dict:
    gpu = dev.device
    sync_buf = dev.create_buffer(4)

    def sync():
        dev.download(sync_buf, 0, 4)
    encoder = gpu.create_command_encoder()
    cpass = encoder.begin_compute_pass()
    cpass.end()
    encoder.finish()
    acc, saved = collections.defaultdict(float), []

    def wrap(cls, name, label):
        f = getattr(cls, name)

        def timed(*a, **k):
            t0 = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                acc[label] += time.perf_counter() - t0
        saved.append((cls, name, f))
        setattr(cls, name, timed)

    timer = dispatch.GpuTimer(dev) if "timestamp-query" in dev.features else None
    rng = np.random.default_rng(0)
    out = {}
    for name, host, f in _cases(rng, quick):
        gpu_s = None
        if host is None:
            y = dg.argmax(dg.asarray(rng.standard_normal((4, 100), dtype=np.float32),
                                     device=dev), 1)

            def fn(y=y):
                return y.numpy()
            n = 5 if quick else 200
        else:
            x = dg.asarray(host, device=dev)

            def fn(f=f, x=x):
                return f(x)
            with dispatch.recording() as subs:
                fn()
            if timer is not None:
                if NEW:
                    work = [s[0] for s in subs]
                    gpu_s = statistics.median(timer.run(work) for _ in range(3))
                else:
                    gpu_s = statistics.median(sum(timer.run(w) for w in subs)
                                              for _ in range(3))
            del subs
            n = 5 if quick else 50 if host.nbytes > 1e8 else 300
        for _ in range(2 if quick else 5):
            fn()
        sync()
        for get, methods, prefix in _TARGETS:
            for m in methods:
                wrap(get(gpu, encoder, cpass, sync_buf), m, prefix + m)
        acc.clear()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        for cls, m, f0 in saved:
            setattr(cls, m, f0)
        saved.clear()
        sync()
        t2 = time.perf_counter()
        out[name] = {
            "gpu_us": None if gpu_s is None else gpu_s * 1e6,
            "host_per_call_us": (t1 - t0) / n * 1e6, "loop_per_call_us": (t2 - t0) / n * 1e6,
            "python_us": ((t1 - t0) - sum(acc.values())) / n * 1e6,
            "wgpu_calls_us": {k: v / n * 1e6 for k, v in sorted(acc.items())}}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m dmlgpu.bench.breakdown", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--webgpu")
    p.add_argument("--json")
    p.add_argument("--quick", action="store_true", help="small sizes, few calls")
    args = p.parse_args(argv)
    clocks.hold()
    try:
        dev = dg.Device(webgpu=args.webgpu)
    except (ValueError, TypeError, dg.DmlgpuError) as e:
        print(f"dmlgpu: error: {e}", file=sys.stderr)
        return 2
    out = run(dev, args.quick)
    for name, row in out.items():
        calls = ", ".join(f"{k} {v:.1f}" for k, v in row["wgpu_calls_us"].items() if v >= 0.5)
        gpu = "-" if row["gpu_us"] is None else f"{row['gpu_us']:.1f}"
        print(f"{name}: host {row['host_per_call_us']:.1f} us/call (python "
              f"{row['python_us']:.1f}; {calls}), loop {row['loop_per_call_us']:.1f}, "
              f"GPU {gpu}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
