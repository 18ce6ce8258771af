"""`python -m dmlgpu.bench.limits`: every operator on inputs as large as the device allows.

Builds inputs of the device's max-buffer-size (or --max-bytes): a flat uint8 tensor (indices
past 2^31 on a GPU with 4 GiB buffers), a flat float32 one and float32 rows; runs ArgMax,
ArgMin, TopK1, Hardmax1 and NonZeroCoordinates on them, checks each result against numpy,
and checks that a tensor or an output one byte past the limit raises DeviceLimitError. Prints
one line per check ("ok" or "WRONG") and exits non-zero if any check failed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import dmlgpu as dg


class Checks:
    def __init__(self):
        self.failed = 0

    def timed(self, label: str, f):
        t = time.perf_counter()
        r = f()
        print(f"  {label}: {time.perf_counter() - t:.2f} s", flush=True)
        return r

    def check(self, label: str, ok: bool, detail: str = "") -> None:
        self.failed += not ok
        print(f"  {label}: {'ok' if ok else 'WRONG'} {detail}".rstrip(), flush=True)

    def raises_limit(self, label: str, f) -> None:
        try:
            f()
        except dg.DeviceLimitError as e:
            self.check(label, "limit" in str(e), f"(DeviceLimitError: {e})")
        else:
            self.check(label, False, "(no error)")


def run(device: dg.Device, max_bytes: int) -> int:
    c = Checks()
    rng = np.random.default_rng(7)

    # uint8, flat: indices past 2^31 where the buffer allows (TopK and the index outputs
    # hold 32-bit indices, so at most 2^32 - 1 elements)
    n8 = min(max_bytes, (1 << 32) - 1) // 4 * 4
    print(f"uint8 flat, {n8} elements ({n8 / 2**30:.2f} GiB)", flush=True)
    x = np.zeros(n8, np.uint8)
    hot = rng.choice(n8, 50, replace=False)
    x[hot] = rng.integers(1, 200, hot.size, dtype=np.uint8)
    late, tie = n8 - 3, n8 - 2 * (n8 // 5)  # the maximum twice: the lower index wins
    x[late] = x[tie] = 255
    t = c.timed("upload", lambda: dg.asarray(x, device=device))
    i = c.timed("argmax", lambda: dg.argmax(t).numpy().ravel()[0])
    c.check("argmax (first of two maxima)", int(i) == tie, f"{int(i)} (expected {tie})")
    last_zero = n8 - 1 - int(np.argmin(x[::-1]))
    i = c.timed("argmin", lambda: dg.argmin(t, axis_direction="decreasing",
                                            index_dtype="uint64").numpy().ravel()[0])
    c.check("argmin decreasing (last of the zeros)", int(i) == last_zero,
            f"{int(i)} (expected {last_zero})")
    v, ix = c.timed("top_k 16", lambda: [a.numpy() for a in dg.top_k(t, 16)])
    nz = np.flatnonzero(x)
    order = nz[np.lexsort((nz, -x[nz].astype(np.int64)))][:16]
    c.check("top_k 16", np.array_equal(ix, order) and np.array_equal(v, x[order]),
            f"(first indices {ix[:3].tolist()})")
    if n8 * 4 > device.max_buffer_size:  # coordinates: n x 1 uint32, 4x the input
        c.raises_limit("nonzero: coordinates past the limit",
                       lambda: dg.nonzero_coordinates(t))
    t = None  # frees the GPU buffer before the next input

    # float32, flat and sparse: NonZeroCoordinates with input and output at the limit
    nf = max_bytes // 4
    print(f"float32 flat, {nf} elements ({nf * 4 / 2**30:.2f} GiB)", flush=True)
    xs = np.zeros(nf, np.float32)
    pos = np.sort(rng.choice(nf - 1, 999, replace=False))
    pos = np.append(pos, nf - 1)
    xs[pos] = 1.5
    xs[pos[:3]] = np.nan  # NaN is non-zero
    xs[pos[-1] - 1] = -0.0  # -0.0 is zero
    t = c.timed("upload", lambda: dg.asarray(xs, device=device))
    cnt, coords = c.timed("nonzero", lambda: dg.nonzero_coordinates(t))
    k = int(cnt.numpy().ravel()[0])
    c.check("nonzero", k == pos.size and np.array_equal(coords.numpy()[:k, 0], pos),
            f"count {k} (expected {pos.size})")
    t = cnt = coords = xs = None

    # float32 rows: ArgMax over rows and columns, TopK along rows, Hardmax (an output as
    # large as the input)
    cols = min(1 << 16, max(64, nf // 64))
    rows = nf // cols
    print(f"float32 {rows}x{cols} ({rows * cols * 4 / 2**30:.2f} GiB)", flush=True)
    xf = rng.standard_normal((rows, cols), dtype=np.float32)
    t = c.timed("upload", lambda: dg.asarray(xf, device=device))
    a = c.timed("argmax rows", lambda: dg.argmax(t, axes=[1]).numpy())
    c.check("argmax rows", np.array_equal(a.ravel(), xf.argmax(1)))
    a = c.timed("argmax columns", lambda: dg.argmax(t, axes=[0]).numpy())
    c.check("argmax columns", np.array_equal(a.ravel(), xf.argmax(0)))
    v, ix = c.timed("top_k 8 along rows", lambda: [q.numpy() for q in dg.top_k(t, 8)])
    some = rng.choice(rows, min(rows, 64), replace=False)
    ref = np.argsort(-xf[some], axis=1, kind="stable")[:, :8]
    c.check("top_k rows (64 rows checked)", np.array_equal(ix[some], ref))
    h = c.timed("hardmax", lambda: dg.hardmax(t, -1).numpy())
    c.check("hardmax", h.sum() == rows and np.array_equal(h.argmax(1), xf.argmax(1)))
    h = t = None

    c.raises_limit("a tensor one element past max-buffer-size",
                   lambda: dg.empty((device.max_buffer_size // 4 + 1,), "float32",
                                    device=device))
    print("all checks passed" if not c.failed else f"{c.failed} checks FAILED", flush=True)
    return 1 if c.failed else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m dmlgpu.bench.limits", description=__doc__)
    ap.add_argument("--max-bytes", type=int, default=None,
                    help="input size in bytes (default: the device's max-buffer-size)")
    ap.add_argument("--webgpu", choices=("wgpu", "dawn"), default=None)
    args = ap.parse_args(argv)
    device = dg.Device(webgpu=args.webgpu)
    limit = device.max_buffer_size
    max_bytes = min(args.max_bytes or limit, limit)
    lim = device.limits
    print(f"{device.info['adapter']} via {device.implementation}: max-buffer-size {limit}, "
          f"max-storage-buffer-binding-size {lim['max-storage-buffer-binding-size']}, "
          f"inputs of {max_bytes} bytes", flush=True)
    return run(device, max_bytes)


if __name__ == "__main__":
    sys.exit(main())
