"""Random ArgMax/ArgMin and Hardmax problems against numpy, with the planner's thresholds
shrunk so that small tensors take every plan: rows shared by TPR threads, a workgroup per
output, interleaved lanes, columns a thread per output or a word of outputs with row
groups ("tilecol"), splits merged by a workgroup or a thread per output. Shapes, reduced
axes, views (offsets, steps, reversed dims, dims of one), dtypes, ops and tie directions
are drawn by hypothesis; every drawn problem must equal numpy's answer exactly.
"""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import arg_reference, assert_same, hardmax_reference, random_values

import dmlgpu as dg
from dmlgpu import tuning

# thresholds for tensors of a few thousand elements (each plan is still the one a large
# tensor of that layout gets, at a smaller scale)
SMALL = dict(ROW_MIN_RED=64, HARDMAX_ROW_MIN_RED=16, MIN_ROW_CHUNK=64, MIN_COL_CHUNK=4,
             TILECOL_MIN_ROWS=4, TARGET_THREADS=1 << 12, ROWS_TARGET_THREADS=1 << 12,
             MERGE_COL_MIN_OUT=16, PACKED_ROW_CHUNK_WORDS=16, ROWS_BYTES=16,
             PACKED_ROWS_BYTES={}, TILECOL_MIN_INNER_BITS=32, INTERLEAVE_BELOW_BITS=256)
DTYPES = ["uint8", "int8", "float16", "int16", "uint16", "float32", "int32", "int64"]
EXAMPLES = int(os.environ.get("DMLGPU_HYPOTHESIS_EXAMPLES", 100))
_devices: dict = {}


def small_device():
    """One device per test session planned with SMALL (its operators are cached per
    device, so the tuning must hold while they compile: set around each call)."""
    if "d" not in _devices:
        _devices["d"] = dg.Device()
    return _devices["d"]


class small_tuning:
    def __enter__(self):
        self.saved = {k: getattr(tuning, k) for k in SMALL}
        for k, v in SMALL.items():
            setattr(tuning, k, v)

    def __exit__(self, *exc):
        for k, v in self.saved.items():
            setattr(tuning, k, v)


@st.composite
def problems(draw, dtypes=DTYPES):
    ndim = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 64 if ndim <= 2 else 12)) for _ in range(ndim - 1)]
    # the last dim: a few elements (interleaved lanes), whole words of any 8/16-bit type
    # (word plans), or any size
    shape.append(draw(st.one_of(st.integers(1, 4), st.integers(1, 16).map(lambda k: 4 * k),
                                st.integers(1, 64))))
    shape = tuple(shape)
    axes = tuple(sorted(draw(st.sets(st.integers(0, ndim - 1), min_size=1))))
    # a view of a larger base: each dim starts at 0..2, steps 1, 2 or -1 (half the draws
    # keep the last dim whole: word-aligned strides)
    starts = [draw(st.integers(0, 2)) for _ in range(ndim)]
    steps = [draw(st.sampled_from([1, 1, 1, 1, 2, -1])) for _ in range(ndim)]
    if draw(st.booleans()):
        starts[-1], steps[-1] = 0, 1
    starts, steps = tuple(starts), tuple(steps)
    dtype = draw(st.sampled_from(dtypes))
    op = draw(st.sampled_from(["max", "min"]))
    descending = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shape, axes, starts, steps, dtype, op, descending, seed


def _view(shape, starts, steps, dtype, seed):
    base_shape = tuple(s0 + abs(k) * n for n, s0, k in zip(shape, starts, steps, strict=True))
    base = random_values(np.random.default_rng(seed), base_shape, dtype)
    index = tuple(slice(s0, s0 + k * n, k) if k > 0 else slice(s0 + n - 1, None if s0 == 0
                                                                else s0 - 1, -1)
                  for n, s0, k in zip(shape, starts, steps, strict=True))
    return base, index


@settings(max_examples=EXAMPLES, deadline=None,
          derandomize="DMLGPU_HYPOTHESIS_SEED" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(problems())
def test_random_reductions(problem):
    shape, axes, starts, steps, dtype, op, descending, seed = problem
    base, index = _view(shape, starts, steps, dtype, seed)
    x = base[index]
    assert x.shape == shape
    d = small_device()
    with small_tuning():
        t = dg.asarray(base, device=d)[index]
        fn = dg.argmax if op == "max" else dg.argmin
        got = fn(t, axes, axis_direction="decreasing" if descending else "increasing")
    assert_same(got, arg_reference(x, axes, op, descending))


@settings(max_examples=EXAMPLES // 2, deadline=None,
          derandomize="DMLGPU_HYPOTHESIS_SEED" not in os.environ,
          suppress_health_check=list(HealthCheck))
@given(problems(dtypes=["float32", "float16"]))
def test_random_hardmax(problem):
    shape, axes, starts, steps, dtype, _, _, seed = problem
    base, index = _view(shape, starts, steps, dtype, seed)
    x = base[index]
    d = small_device()
    with small_tuning():
        got = dg.hardmax(dg.asarray(base, device=d)[index], axes)
    assert_same(got, hardmax_reference(x, axes))


def test_small_tuning_reaches_every_plan():
    """The drawn problems can reach each strategy under SMALL (a plan the draws could not
    reach would go untested here)."""
    d = small_device()
    seen = set()
    with small_tuning():
        for dtype, shape, axes in (("float32", (5, 7), (1,)), ("float32", (3, 64), (1,)),
                                   ("float32", (40, 40), (1,)), ("uint8", (40, 40), (0,)),
                                   ("float32", (12, 12, 3), (0, 1)), ("float16", (40, 40), (0,)),
                                   ("float32", (40, 40), (0,)), ("uint8", (12, 12, 12, 12),
                                                                 (0, 2))):
            out = tuple(1 if i in axes else n for i, n in enumerate(shape))
            op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, shape),
                                         dg.TensorDesc("uint32", out), axes))
            n = op.plan.notes
            seen.add(n["strategy"])
            seen.add(("split", n["split"] > 1))
            seen |= {("merge", s.variables["strategy"]) for s in op.plan.steps[1:]}
            seen.add(("rows", 2 <= n["threads_per_row"] < tuning.REDUCE_WG))
    assert {"row", "col", "tilecol", "interleave", ("split", True), ("merge", "row"),
            ("merge", "col"), ("rows", True)} <= seen, seen
