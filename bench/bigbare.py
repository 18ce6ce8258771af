"""Host cost of a bare one-workgroup dispatch whose bindings span buffers of 4 KiB to 1 GiB.

Tests whether a large call's host time comes from the size of the buffers it binds:
`python -m bench.bigbare IMPL OUT.json` (results: bench/results/h100-bigbare-*.json).
"""

from __future__ import annotations

import json
import sys

import dmlgpu as dg

from . import clocks
from .runner import copy_bound, loop_calls, submit_alone

SIZES = (4096, 1 << 20, 1 << 26, 1 << 28, 1 << 30)


def main(impl: str, path: str) -> None:
    clocks.hold()
    dev = dg.Device(webgpu=impl)
    gpu = dev.device
    out = []
    for size in SIZES:
        src = dev.create_buffer(size, what="src")
        dst = dev.create_buffer(size, what="dst")
        span = min(size, gpu.limits["max-storage-buffer-binding-size"] // 4 * 4)
        bound = copy_bound(dev, src, dst, span, 1, "bare")

        def bare(bound=bound):
            submit_alone(gpu, bound)
        rows = [loop_calls(bare, dev.synchronize, 0.2) for _ in range(3)]
        best = min(rows, key=lambda r: r["issue_cpu_s"])
        out.append({"size": size, **best})
        print(impl, f"{size:>12d} B: issue {best['issue_s'] * 1e6:6.1f} us, cpu "
              f"{best['issue_cpu_s'] * 1e6:6.1f} us, loop {best['loop_s'] * 1e6:6.1f} us",
              flush=True)
        del bound
        src.destroy()
        dst.destroy()
    with open(path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
