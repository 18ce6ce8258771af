"""Readback latency: `t.numpy()` of a 16-byte tensor against a bare `queue.read_buffer` of
the same bytes, best of 5 loops of 300 calls each, in turns, 3 rounds.

    python -m bench.readback IMPL OUT.json

bench/results/h100-readback-*.json (H100, 2026-11-25) also hold a variant tried and dropped:
wgpu-native's map waited for on the reading thread ("reading thread": wgpuDevicePoll there
rather than wgpu-py's polling thread waking it), 167-178 us against 172-178 us.
"""

import json
import sys
import time

import numpy as np

import dmlgpu as dg

from . import clocks


def per_call(fn, n: int = 300, loops: int = 5) -> float:
    best = 1e9
    for _ in range(loops):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best


def main(impl: str, out: str) -> None:
    clocks.hold()
    dev = dg.Device(webgpu=impl)
    t = dg.asarray(np.arange(4, dtype=np.float32), device=dev)
    res = []
    for rnd in range(3):
        for name, fn in (("polling thread", t.numpy),  # (dmlgpu's readback)
                         ("bare read_buffer", lambda: dev.device.queue.read_buffer(t.buffer))):
            res.append({"round": rnd, "wait": name, "numpy_us": per_call(fn) * 1e6})
            print(json.dumps(res[-1]), flush=True)
    with open(out, "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
