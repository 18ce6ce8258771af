"""One real large tensor: 192+ MiB of float32, past lavapipe's 128 MiB storage binding
limit, so the input is bound as two windows of the device's own size."""

from __future__ import annotations

import numpy as np
from reference import assert_same

import dmlgpu as dg

# 6 rows of 2^23 + 1: 50_331_654 elements (192 MiB + 24 bytes); row 3 straddles 2^25
# elements (128 MiB), the end of the first window.
SHAPE = (6, 2**23 + 1)


def test_large_input_spans_two_bindings(dev):
    n = SHAPE[0] * SHAPE[1]
    assert n * 4 > 192 * 2**20
    rng = np.random.default_rng(20240601)
    x = rng.standard_normal(n, dtype=np.float32).reshape(SHAPE)
    # winners in the second window: the overall max next-to-last, row 3's min in its tail
    x[5, -2] = 100.0
    x[3, -1] = -100.0
    x[0, 5] = 50.0  # a large value early, in the first window
    t = dg.asarray(x)
    if dev.limits["max-storage-buffer-binding-size"] <= 128 * 2**20:  # lavapipe, WebGPU default
        assert t.nbytes > dev.window_bytes  # bound as two windows

    assert dg.argmax(t).numpy().tolist() == [[n - 2]]
    assert dg.argmax(t, axis_direction="decreasing").numpy().tolist() == [[n - 2]]
    # one axis: a thread per column reads both windows (axis 0); row 3 is split by the
    # window boundary (axis 1)
    # (np.argmax directly: the reference helper would copy the transposed 192 MiB)
    assert_same(dg.argmax(t, 0), np.argmax(x, axis=0)[None].astype(np.uint32))
    got = dg.argmin(t, 1, index_dtype="int64")
    assert_same(got, np.argmin(x, axis=1)[:, None].astype(np.int64))
    assert got.numpy()[3, 0] == SHAPE[1] - 1
