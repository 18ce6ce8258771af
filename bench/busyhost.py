"""Where a large call's host time goes: the issuing thread's CPU time per wgpu call of a
bare dispatch and of a 1 GiB copy, with the GPU idle and busy, one and four dispatches to
a command buffer.

`python -m bench.busyhost IMPL OUT.json` (results: bench/results/h100-busyhost-*.json).
Cases, each a loop of N iterations then one wait (as the benchmark's loop):
- bare: a one-workgroup dispatch binding two 1 GiB buffers (the GPU idles);
- copy: the 1 GiB copy, a submission each (the GPU stays busy, the queue fills);
- busy_bare: the copy, then the bare dispatch in a command buffer of its own: only the
  bare dispatch's calls are reported, so its cost with a busy GPU compares with "bare";
- copy_x4: four copy dispatches in one command buffer (per command buffer; divide by 4).
"""

from __future__ import annotations

import json
import sys
import time

import dmlgpu as dg

from . import clocks
from .runner import copy_bound

SIZE = 1 << 30
STEPS = ("encoder", "pass", "finish", "submit")


def _issue(gpu, bounds, cpu: dict | None) -> None:
    """One command buffer of `bounds`' dispatches, each wgpu step's thread CPU added to
    `cpu` (None: not counted)."""
    t0 = time.thread_time()
    enc = gpu.create_command_encoder()
    t1 = time.thread_time()
    cpass = enc.begin_compute_pass()
    for b in bounds:
        b.encode(cpass)
    cpass.end()
    t2 = time.thread_time()
    cb = enc.finish()
    t3 = time.thread_time()
    gpu.queue.submit([cb])
    t4 = time.thread_time()
    if cpu is not None:
        for k, v in zip(STEPS, (t1 - t0, t2 - t1, t3 - t2, t4 - t3), strict=True):
            cpu[k] += v


def main(impl: str, path: str) -> None:
    clocks.hold()
    dev = dg.Device(webgpu=impl)
    gpu = dev.device
    span = min(SIZE, gpu.limits["max-storage-buffer-binding-size"] // 16 * 16)
    src = dev.create_buffer(SIZE, what="src")
    dst = dev.create_buffer(SIZE, what="dst")
    bare = copy_bound(dev, src, dst, span, 1, "busyhost bare")
    copy = copy_bound(dev, src, dst, span, span // 16, "busyhost copy")
    cases = {
        "bare": (400, lambda cpu: _issue(gpu, [bare], cpu)),
        "copy": (150, lambda cpu: _issue(gpu, [copy], cpu)),
        "busy_bare": (150, lambda cpu: (_issue(gpu, [copy], None), _issue(gpu, [bare], cpu))),
        "copy_x4": (60, lambda cpu: _issue(gpu, [copy] * 4, cpu)),
    }
    out = {"implementation": impl, "adapter": dev.adapter_info.get("device", ""),
           "bytes": span, "cases": {}}
    for name, (n, fn) in cases.items():
        best = None
        for _ in range(3):
            fn(None)
            dev.synchronize()
            cpu = dict.fromkeys(STEPS, 0.0)
            c0, t0 = time.thread_time(), time.perf_counter()
            for _ in range(n):
                fn(cpu)
            c1, t1 = time.thread_time(), time.perf_counter()
            dev.synchronize()
            t2 = time.perf_counter()
            rec = {"n": n, "issue_cpu_us": (c1 - c0) / n * 1e6, "issue_us": (t1 - t0) / n * 1e6,
                   "loop_us": (t2 - t0) / n * 1e6,
                   **{f"{k}_cpu_us": v / n * 1e6 for k, v in cpu.items()}}
            if best is None or rec["issue_cpu_us"] < best["issue_cpu_us"]:
                best = rec
        out["cases"][name] = best
        print(impl, f"{name:10s}", "  ".join(f"{k} {v:8.1f}" for k, v in best.items()
                                             if k != "n"), flush=True)
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
