"""Property-based tests (hypothesis): every operator against its numpy reference on drawn
dtypes, ranks 1..8, sizes (1 and sizes around powers of two), axes, directions, K, index
types, and inputs that are strided, offset, reversed, transposed or broadcast views.

CI runs a fixed, reproducible set: `derandomize=True`, EXAMPLES examples per test (25, or
DMLGPU_HYPOTHESIS_EXAMPLES). DMLGPU_HYPOTHESIS_SEED=<int> draws random examples from that
seed instead (to explore; a failure prints the seed and a reproduction blob).

Sizes come from a short list and the tensors stay small, so that the same few plans (and
pipelines: each new one is a shader compile, ~0.3 s on lavapipe with a cold cache) recur
across examples. The last section draws ArgMax/ArgMin and Hardmax problems under planner
thresholds shrunk so that such small tensors take every plan a large one can.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from reference import (
    ALL_DTYPES,
    arg_reference,
    assert_same,
    hardmax_reference,
    mixed_values,
    nonzero_reference,
    random_values,
    topk_reference,
)

import dmlgpu as dg
from dmlgpu import tuning

EXAMPLES = int(os.environ.get("DMLGPU_HYPOTHESIS_EXAMPLES", "25"))
SEED = os.environ.get("DMLGPU_HYPOTHESIS_SEED")


def prop(examples: int = EXAMPLES):
    """hypothesis settings of this module: bounded, reproducible unless a seed is given."""
    def wrap(f):
        f = settings(max_examples=examples, deadline=None, derandomize=SEED is None,
                     database=None, print_blob=True,
                     suppress_health_check=[HealthCheck.too_slow,
                                            HealthCheck.data_too_large])(f)
        return seed(int(SEED))(f) if SEED is not None else f
    return wrap


# Sizes of view dimensions: 1, and values around powers of two (workgroup and tile edges
# in small).
SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
         255, 256, 257)
MAX_VIEW = 4096  # elements of a view
MAX_BASE = 1 << 15  # elements of the array uploaded under it


@dataclass
class View:
    """A dg.Tensor view and the numpy array it shows (same shape and values)."""

    tensor: dg.Tensor
    host: np.ndarray
    how: str  # what was drawn, for failure messages


def _values(rng, shape, dtype, kind):
    if kind == "ties":
        return random_values(rng, shape, dtype, ties=True)
    if kind == "distinct":
        return random_values(rng, shape, dtype, ties=False, specials=False)
    return mixed_values(rng, shape, dtype)


def dim_slice(n: int, start: int, step: int, tail: int = 0) -> tuple[int, slice]:
    """(the length of a base dim, the slice of it) showing n elements from `start`, `step`
    apart (negative: reversed, the first element shown the last of the run), `tail` more
    past the run's end."""
    size = start + (n - 1) * abs(step) + 1 + tail
    if step > 0:
        return size, slice(start, start + (n - 1) * step + 1, step)
    return size, slice(start + (n - 1) * -step, start - 1 if start else None, step)


@st.composite
def views(draw, dtypes=tuple(ALL_DTYPES), max_view=MAX_VIEW, density=False):
    """A view of rank 1..8: per dimension a size, a step (negative: reversed), a start
    offset and a few elements past its end, or a broadcast (stride 0); the uploaded array
    stores the dimensions in a drawn order (the view transposes it back)."""
    dtype = draw(st.sampled_from(dtypes))
    rank = draw(st.integers(1, 8))
    shape, base, slices, bcast = [], [], [], []
    budget, base_total = max_view, 1
    for i in range(rank):
        cap = max(1, budget >> (rank - 1 - i))  # leave room for 2 per later dim
        n = draw(st.sampled_from([s for s in SIZES if s <= cap]))
        budget //= n
        shape.append(n)
        if n > 1 and draw(st.integers(0, 7)) == 0:  # broadcast: one element, stride 0
            base.append(1)
            slices.append(slice(None))
            bcast.append(i)
            continue
        step = draw(st.sampled_from((1, 1, 1, 2, -1, -2)))
        start = draw(st.integers(0, 1))
        tail = draw(st.integers(0, 1))
        size, sl = dim_slice(n, start, step, tail)
        if base_total * size > MAX_BASE:  # keep the upload small: contiguous from here
            size, sl = dim_slice(n, 0, 1)
        base_total *= size
        base.append(size)
        slices.append(sl)
    order = draw(st.permutations(range(rank)))
    kind = draw(st.sampled_from(("ties", "mixed", "distinct")))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    stored = _values(rng, [base[d] for d in order], dtype, kind)
    if density:
        keep = draw(st.sampled_from((0.0, 0.02, 0.3, 0.9, 1.0)))
        zero = np.zeros(stored.shape, stored.dtype)
        if zero.dtype.kind == "f":
            zero[rng.random(zero.shape) < 0.5] = -0.0
        stored = np.where(rng.random(stored.shape) < keep, stored, zero).astype(dtype)
        kind += f", density {keep}"
    back = tuple(int(a) for a in np.argsort(order))
    host = np.broadcast_to(np.transpose(stored, back)[tuple(slices)], shape)
    t = dg.broadcast_to(dg.asarray(stored).transpose(back)[tuple(slices)], shape)
    how = (f"{dtype}{tuple(shape)} strides {t.strides} offset {t.offset} from stored "
           f"{stored.shape} order {tuple(order)} broadcast {bcast}, {kind} values")
    return View(t, host, how)


@st.composite
def axes_of(draw, rank: int, allow_none: bool = True):
    """None, one axis, or a set of distinct axes in any order, each maybe negative."""
    choice = draw(st.integers(0, 2 if allow_none else 1))
    if choice == 2:
        return None
    if choice == 0:
        return draw(st.integers(-rank, rank - 1))
    axes = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    return [a - rank if draw(st.booleans()) else a for a in axes]


def _norm(axes, rank):
    if axes is None:
        return tuple(range(rank))
    if isinstance(axes, int):
        axes = [axes]
    return tuple(sorted(a % rank for a in axes))


INDEX = ("uint32", "int32", "int64", "uint64")
DIRECTIONS = ("increasing", "decreasing")


@prop()
@given(v=views(), data=st.data())
def test_argmax_argmin(dev, v, data):
    rank = v.host.ndim
    axes = data.draw(axes_of(rank), label="axes")
    op = data.draw(st.sampled_from(("max", "min")), label="op")
    direction = data.draw(st.sampled_from(DIRECTIONS), label="direction")
    index = data.draw(st.sampled_from(INDEX), label="index_dtype")
    fn = dg.argmax if op == "max" else dg.argmin
    got = fn(v.tensor, axes, axis_direction=direction, index_dtype=index)
    assert_same(got, arg_reference(v.host, _norm(axes, rank), op, direction == "decreasing",
                                   index))


@prop()
@given(v=views(dtypes=("float32", "float16")), data=st.data())
def test_hardmax(dev, v, data):
    rank = v.host.ndim
    axes = data.draw(axes_of(rank, allow_none=False), label="axes")
    assert_same(dg.hardmax(v.tensor, axes), hardmax_reference(v.host, _norm(axes, rank)))


def _check_topk(v, axis, k, direction, index):
    values, indices = dg.top_k(v.tensor, k, axis, axis_direction=direction,
                               index_dtype=index)
    ev, ei = topk_reference(v.host, k, axis, direction == "decreasing", index)
    assert_same(indices, ei)
    assert_same(values, ev)


@st.composite
def k_for(draw, n: int):
    return draw(st.one_of(st.sampled_from(sorted({1, 2 if n > 1 else 1, max(1, n // 2), n})),
                          st.integers(1, n)))


@prop()
@given(v=views(), data=st.data())
def test_top_k(dev, v, data):
    rank = v.host.ndim
    axis = data.draw(st.integers(-rank, rank - 1), label="axis")
    k = data.draw(k_for(v.host.shape[axis]), label="k")
    _check_topk(v, axis, k, data.draw(st.sampled_from(DIRECTIONS), label="direction"),
                data.draw(st.sampled_from(INDEX), label="index_dtype"))


# Rows past the one-workgroup sort (2048 on lavapipe): the select, candidates and radix
# strategies. Fewer examples: each strategy builds several pipelines per dtype.
LONG = (2049, 3000, 4097, 16384, 16385, 20000)


@prop(max(1, EXAMPLES // 5))
@given(data=st.data())
def test_top_k_long_rows(dev, data):
    dtype = data.draw(st.sampled_from(("float32", "float16", "int64", "uint8")), label="dtype")
    n = data.draw(st.sampled_from(LONG), label="n")
    rows = data.draw(st.sampled_from((1, 2, 3)), label="rows")
    k = data.draw(st.one_of(st.sampled_from((1, 2, 100, 1024, 2048, 2049, n)),
                            st.integers(1, n)), label="k")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    host = _values(rng, (rows, n), dtype, data.draw(st.sampled_from(("ties", "mixed"))))
    v = View(dg.asarray(host), host, f"{dtype}{host.shape}")
    _check_topk(v, -1, k, data.draw(st.sampled_from(DIRECTIONS), label="direction"), "uint32")


@prop()
@given(v=views(density=True), data=st.data())
def test_nonzero_coordinates(dev, v, data):
    shape = v.host.shape
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    n = data.draw(st.one_of(st.none(), st.integers(max(1, len(shape) - lead), len(shape))),
                  label="coordinate_rank")
    count, coords = dg.nonzero_coordinates(v.tensor, n)
    cols = len(shape) if n is None else n
    assert coords.shape == (v.host.size, cols) and coords.dtype == np.uint32
    exp = nonzero_reference(v.host, n)
    got = int(count.numpy()[0])
    assert got == exp.shape[0], f"count {got} != {exp.shape[0]}"
    if got:
        np.testing.assert_array_equal(coords[:got].numpy(), exp)


@pytest.mark.parametrize("dtype", ["int8", "float16"])
def test_views_strategy_matches_numpy(dev, dtype):
    """The strategy's dg views show the same elements as its numpy views (else a
    reference mismatch could hide in the view arithmetic)."""
    @prop(10)
    @given(v=views(dtypes=(dtype,)))
    def check(v):
        assert_same(v.tensor, np.ascontiguousarray(v.host))
    check()


# -- every plan: the planner's thresholds shrunk ------------------------------------------------
# Under SMALL, tensors of a few thousand elements take every ArgMax/ArgMin plan: rows
# shared by TPR threads, a workgroup per output, interleaved lanes, columns a thread per
# output, several neighbouring outputs (COL_VOUT; the last thread's ragged, stored as
# vectors, rows not on a word joined; two-element columns in several groups a thread) or a
# word of outputs with row groups
# ("tilecol"), packed rows, short rows staged through workgroup memory (blocks of 64 words,
# rows of any number of words, 8/16-bit rows not whole words), splits merged by a workgroup
# or a thread per output (each the plan a large tensor of that layout gets), rows' partial
# last tiles taken whole (packed rows too), tile columns over rows that do not start on a
# word (joined at each row's shift). The drawn views favour whole-word last dims,
# which the word plans need.
SMALL = dict(ROW_MIN_RED=64, HARDMAX_ROW_MIN_RED=16, MIN_ROW_CHUNK=64, MIN_COL_CHUNK=4,
             TILECOL_MIN_ROWS=4, ARG_TILECOL_MIN_ROWS=4, ARG_TILECOL_RUN_MIN_ROWS={},
             TARGET_THREADS=1 << 12, COL_TARGET_THREADS=1 << 12, ROWS_TARGET_THREADS=1 << 12,
             COL_REPS_MIN_THREADS=8,
             MERGE_COL_MIN_OUT=16, PACKED_ROW_CHUNK_WORDS=16, PACKED_ROW_GROUPS=8, ROWS_BYTES=16,
             ARG_ROWS_BYTES={}, TILECOL_MIN_INNER_BITS=32, INTERLEAVE_BELOW_BITS=256,
             ARG_STAGE_BLOCK_WORDS=64, ARG_STAGE_MIN_WG=2, ARG_STAGE_ANY_WORDS=True,
             ARG_STAGE_ODD=True, ARG_STAGE_ODD_WORDS={8: (3, 32), 16: (3, 32)},
             ROW_MASKED_TAIL=1 << 16, ROW_MASKED_TAIL_PACKED=True,
             TILECOL_MIN_RED=16, TILECOL_JOIN={8: 16, 16: 16},
             ARG_TILECOL_JOIN_MIN_ROWS={8: 4, 16: 4},
             ARG_MIN_FOLD=dict.fromkeys(("uint8", "int8", "uint16", "int16"),
                                        ("row", "lanes", "tilecol", "stage")))
PLAN_DTYPES = ["uint8", "int8", "float16", "int16", "uint16", "float32", "int32", "int64"]
_small: dict = {}


def small_device():
    """One device per test session planned with SMALL (its operators are cached per
    device, so the tuning must hold while they compile: set around each call)."""
    if "d" not in _small:
        _small["d"] = dg.Device()
    return _small["d"]


@contextlib.contextmanager
def small_tuning():
    saved = {k: getattr(tuning, k) for k in SMALL}
    try:
        for k, v in SMALL.items():
            setattr(tuning, k, v)
        yield
    finally:
        for k, v in saved.items():
            setattr(tuning, k, v)


@st.composite
def problems(draw, dtypes=PLAN_DTYPES):
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
    values = draw(st.integers(0, 2**16))
    return shape, axes, starts, steps, dtype, op, descending, values


def _view(shape, starts, steps, dtype, values):
    dims = [dim_slice(n, s0, k) for n, s0, k in zip(shape, starts, steps, strict=True)]
    base = random_values(np.random.default_rng(values), [size for size, _ in dims], dtype)
    return base, tuple(sl for _, sl in dims)


@prop(4 * EXAMPLES)
@given(problems())
def test_every_plan_argmax_argmin(problem):
    shape, axes, starts, steps, dtype, op, descending, values = problem
    base, index = _view(shape, starts, steps, dtype, values)
    x = base[index]
    assert x.shape == shape
    d = small_device()
    with small_tuning():
        t = dg.asarray(base, device=d)[index]
        fn = dg.argmax if op == "max" else dg.argmin
        got = fn(t, axes, axis_direction="decreasing" if descending else "increasing")
    assert_same(got, arg_reference(x, axes, op, descending))


@prop(2 * EXAMPLES)
@given(problems(dtypes=["float32", "float16"]))
def test_every_plan_hardmax(problem):
    shape, axes, starts, steps, dtype, _, _, values = problem
    base, index = _view(shape, starts, steps, dtype, values)
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
                                   ("float32", (40, 40), (0,)), ("float32", (70, 13), (0,)),
                                   ("uint8", (12, 12, 12, 12), (0, 2)),
                                   ("float32", (40, 16), (1,)), ("uint8", (40, 7), (1,)),
                                   ("float32", (3, 4098), (0,)), ("uint8", (5, 4099), (0,)),
                                   ("uint8", (2, 64), (0,))):
            out = tuple(1 if i in axes else n for i, n in enumerate(shape))
            op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, shape),
                                         dg.TensorDesc("uint32", out), axes))
            n = op.plan.notes
            seen.add(n["strategy"])
            seen.add(("split", n["split"] > 1))
            seen |= {("merge", s.variables["strategy"]) for s in op.plan.steps[1:]}
            seen.add(("rows", 2 <= n["threads_per_row"] < tuning.REDUCE_WG))
            if n["strategy"] == "col":
                seen.add(("outputs a thread", n["outputs_per_thread"] > 1))
                v = op.plan.steps[0].variables
                if n["outputs_per_thread"] > 1:
                    seen |= {("ragged", v["ragged"]), ("vector stores", v["vstore"]),
                             ("joined words", v["col_join"]), ("groups", n["col_reps"] > 1)}
            if n["strategy"] == "stage":
                seen.add(("odd rows", op.plan.steps[0].variables["odd_rows"]))
                seen.add(("stage vectors", op.plan.steps[0].variables["src_vec"] > 1))
    assert {"row", "col", "tilecol", "interleave", "stage", ("split", True), ("merge", "row"),
            ("merge", "col"), ("rows", True), ("outputs a thread", True),
            ("outputs a thread", False), ("odd rows", True), ("odd rows", False),
            ("ragged", True), ("ragged", False), ("vector stores", True),
            ("joined words", True), ("groups", True), ("stage vectors", True),
            ("stage vectors", False)} <= seen, seen
