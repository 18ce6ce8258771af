"""Host cost of a bare one-workgroup dispatch whose bindings span buffers of 4 KiB to 1 GiB.

Tests whether a large call's host time comes from the size of the buffers it binds:
`python -m bench.bigbare IMPL OUT.json` (results: bench/results/h100-bigbare-*.json).
"""

from __future__ import annotations

import json
import sys

import dmlgpu as dg
from dmlgpu import codegen
from dmlgpu.runtime import dispatch

from .runner import COPY_TEMPLATE, COPY_WG, loop_calls

SIZES = (4096, 1 << 20, 1 << 26, 1 << 28, 1 << 30)


def main(impl: str, path: str) -> None:
    dev = dg.Device(webgpu=impl)
    gpu = dev.device
    pipeline, layout = dev.pipelines.get(COPY_TEMPLATE, wg=COPY_WG)
    out = []
    for size in SIZES:
        src = dev.create_buffer(size, what="src")
        dst = dev.create_buffer(size, what="dst")
        span = min(size, gpu.limits["max-storage-buffer-binding-size"] // 4 * 4)
        launch = dispatch.Launch(pipeline, layout, [(src, 0, span), (dst, 0, span)],
                                 codegen.pack_params(n_groups=1, aux0=1), 1)
        bound = dispatch.bind(dev, [launch], "bare")

        def bare(bound=bound):
            enc = gpu.create_command_encoder()
            cpass = enc.begin_compute_pass()
            bound.encode(cpass)
            cpass.end()
            gpu.queue.submit([enc.finish()])
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
