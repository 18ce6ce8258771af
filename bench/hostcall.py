"""Host CPU time a call of the functional API's hot path, and of its pieces: the least of 5
loops of N calls each (`time.thread_time`, the calling thread's CPU only, so a CPU adapter
running the work on other threads does not count), results dropped, one wait a loop.

    python -m bench.hostcall IMPL [N]

Small problems, so that the host's share is what is timed: ArgMax over 32 x 64 float32
whole and in pieces (the hot path `CompiledOp.hot`, the outputs, the bind, the encoding
into the open batch), then ArgMin over 4 x 150000 float32, Hardmax over 64 x 1000, TopK
top-5 of 1000 (README, "the host's share").
"""

import sys
import time

import numpy as np

import dmlgpu as dg
from dmlgpu.runtime import dispatch

from . import clocks


def per_call(dev, fn, n: int) -> float:
    best = 1e9
    for _ in range(5):
        c0 = time.thread_time()
        for _ in range(n):
            fn()
        best = min(best, (time.thread_time() - c0) / n)
        dev.synchronize()
    return best


def main(impl: str, n: int = 20000) -> None:
    clocks.hold()
    dev = dg.Device(webgpu=impl)
    rng = np.random.default_rng(0)

    def tensor(shape):
        return dg.asarray(rng.standard_normal(shape).astype(np.float32), device=dev)

    x = tensor((32, 64))
    for _ in range(200):
        dg.argmax(x, 1)
    dev.synchronize()
    op = next(o for o in dev._hot.values() if o.desc.input.sizes == (32, 64))
    ys = op.new_outputs()
    bound, _ = op._bind([x], ys)
    rows = [("argmax 32 x 64: a call", lambda: dg.argmax(x, 1)),
            ("  CompiledOp.hot", lambda: op.hot(x, None)),
            ("  new_outputs", op.new_outputs),
            ("  _bind", lambda: op._bind([x], ys)),
            ("  dispatch.enqueue", lambda: dispatch.enqueue(dev, bound, False))]
    vocab, wide, one = tensor((4, 150000)), tensor((64, 1000)), tensor((1, 1000))
    rows += [("argmin 4 x 150000", lambda: dg.argmin(vocab, -1)),
             ("hardmax 64 x 1000", lambda: dg.hardmax(wide, -1)),
             ("top_k 5 of 1000", lambda: dg.top_k(one, 5))]
    print(f"{dev.info['adapter']} ({dev.info['implementation']})")
    for name, fn in rows:
        for _ in range(100):
            fn()
        dev.synchronize()
        print(f"{name:28} {per_call(dev, fn, n) * 1e6:6.2f} us")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20000)
