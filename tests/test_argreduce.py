"""ArgMax/ArgMin against numpy (tests/reference.py), exact.

The dtype x rank x axes x direction x op matrix; ties, NaN, +-inf, -0.0, integer extremes
and 64-bit word patterns; index types; views without copies; sizes around the workgroup
and dispatch limits; split and column reductions; tensors bound as several windows.

Shapes are chosen so that each dtype needs only a few distinct plans (pipelines): short
reductions take the thread-per-output path, longer ones the workgroup-per-output path.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from reference import (
    ALL_DTYPES,
    arg_reference,
    assert_same,
    hardmax_reference,
    mixed_values,
    random_values,
    rng_for,
)

import dmlgpu as dg
from dmlgpu import canon, dtypes, plan, tuning
from dmlgpu.ops import base
from dmlgpu.sizes import pow2_floor

OPS = {"max": dg.argmax, "min": dg.argmin}
FLOATS = ("float32", "float16")
INTS = [d for d in ALL_DTYPES if d not in FLOATS]
PACKED = ("float16", "int16", "uint16", "int8", "uint8")  # (read as words where aligned)

ALL_COMBOS = (("max", "increasing"), ("max", "decreasing"),
              ("min", "increasing"), ("min", "decreasing"))
HALF = (("max", "increasing"), ("min", "decreasing"))  # both ops, both directions
# Plans with one workgroup per output cost a slow shader compile each on lavapipe (~0.5 s
# cold), so long reductions run every op x direction for one dtype of each storage width
# and HALF for the others (the key code is per dtype, the merge logic per key width).
FULL_DTYPES = ("float32", "float16", "uint8", "int64")


def combos_for(dtype: str):
    return ALL_COMBOS if dtype in FULL_DTYPES else HALF


def check(x: np.ndarray, axes, *, tensor=None, index_dtype="uint32", combos=ALL_COMBOS) -> None:
    """Each (op, direction) of `combos` over `axes` of `tensor` (default: `x` uploaded)
    equals numpy's answer on `x`; all mismatches are reported together."""
    t = dg.asarray(x) if tensor is None else tensor
    ref_axes = range(x.ndim) if axes is None else ((axes,) if isinstance(axes, int) else axes)
    failures = []
    for op, direction in combos:
        expected = arg_reference(x, ref_axes, op, direction == "decreasing", index_dtype)
        got = OPS[op](t, axes, axis_direction=direction, index_dtype=index_dtype)
        try:
            assert_same(got, expected)
        except AssertionError as e:
            failures.append(f"arg{op} {direction} axes={axes} {x.dtype} {x.shape}: {e}")
    assert not failures, "\n".join(failures)


# -- the matrix ---------------------------------------------------------------------------

# Small shapes: the largest (all axes of rank 8) has 384 elements.
SHAPES = {1: (37,), 2: (5, 7), 3: (3, 4, 5), 4: (2, 3, 4, 3), 5: (2, 3, 2, 3, 2),
          6: (2, 2, 3, 2, 2, 3), 7: (2, 2, 2, 3, 2, 2, 2), 8: (2, 2, 2, 2, 2, 2, 2, 3)}


def compile_arg(device, dtype: str, shape, axes, desc=dg.ArgMaxDesc):
    """ArgMax (or `desc`'s operator) of a `dtype` tensor of `shape` over `axes` (uint32
    indices, reduced dims kept) compiled on `device`: its plan, without uploading anything."""
    out = tuple(1 if i in axes else n for i, n in enumerate(shape))
    return device.compile(desc(dg.TensorDesc(dtype, shape), dg.TensorDesc("uint32", out), axes))


def arg_notes(device, dtype: str, shape, axes) -> dict:
    """The plan notes of compile_arg's ArgMax."""
    return compile_arg(device, dtype, shape, axes).plan.notes


def axes_cases(r: int) -> list:
    """First, middle, last axis; all axes (None); negative and unordered sets; non-adjacent
    sets; all axes listed out of order."""
    cases = [(0,), (r // 2,), (r - 1,), None]
    if r == 1:
        cases.append((-1,))
    else:
        cases.append((-1, 0))
    if r >= 3:
        cases += [(0, 2), (-1, 1, -r)]
    if r >= 5:
        cases.append((3, 1, -1))
    out = []
    for c in cases:
        if c not in out:
            out.append(c)
    return out


MATRIX = [(dt, r, ax) for dt in ALL_DTYPES for r in SHAPES for ax in axes_cases(r)]


@pytest.mark.parametrize("dtype, rank, axes", MATRIX,
                         ids=[f"{d}-r{r}-{ax}" for d, r, ax in MATRIX])
def test_matrix(dev, dtype, rank, axes):
    rng = rng_for("matrix", dtype, rank, axes)
    shape = SHAPES[rank]
    # alternate tie-heavy data with data mixing full-range values (64-bit high/low words)
    if axes_cases(rank).index(axes) % 2 == 0:
        x = random_values(rng, shape, dtype)
    else:
        x = mixed_values(rng, shape, dtype)
    check(x, axes)


def test_matrix_keeps_rank_and_index_dtype(dev):
    x = np.zeros(SHAPES[8], np.float32)
    y = dg.argmax(x, (1, 5, -1))
    assert y.shape == (2, 1, 2, 2, 2, 1, 2, 1)
    assert y.dtype == np.uint32
    assert y.ndim == 8


# -- special values -----------------------------------------------------------------------

def float_rows(dtype: str) -> list[np.ndarray]:
    dt = np.dtype(dtype)
    f = np.finfo(dt)
    ubits = np.uint32 if dt.itemsize == 4 else np.uint16
    nan_bits = ([0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FFFFFFF]
                if dt.itemsize == 4 else [0x7E00, 0xFE00, 0x7C01, 0xFFFF, 0x7FFF])
    payload_nans = np.array(nan_bits, ubits).view(dt)
    inf, nan = np.inf, np.nan
    rows = [
        [1, nan, 3, nan, -inf],
        [nan, nan, nan],
        [-inf, -inf, -inf],
        [inf, inf],
        [-0.0, 0.0, -0.0],
        [0.0, -0.0],
        [-0.0, -1.0, 0.0, 1.0, -0.0],
        [-inf, inf, 3, inf, -inf],
        [f.max, f.min, f.tiny, -f.tiny, 0.0, f.max, f.min],
        [2.0, 2.0, 2.0, 2.0],
        [-inf, nan, inf, -inf, nan],
        [f.smallest_subnormal, -f.smallest_subnormal, 0.0, -0.0],
    ]
    out = [np.array(r, dt) for r in rows]
    out.append(np.concatenate([np.array([1, -inf, inf], dt), payload_nans]))
    return out


def int_rows(dtype: str) -> list[np.ndarray]:
    dt = np.dtype(dtype)
    info = np.iinfo(dt)
    bits = dt.itemsize * 8
    ubits = np.dtype(f"u{dt.itemsize}")
    top = 1 << (bits - 1)
    ones = (1 << bits) - 1
    # the same bit patterns read as signed and unsigned: >= 2^(bits-1) is large unsigned,
    # negative signed
    patterns = [
        [top, top - 1, ones, 0, 1],
        [ones, top, top - 1, 1, 0, ones - 1, top + 1],
        [0, 0, 0],
        [ones, ones, ones, ones],
        [top, top, top],
    ]
    rows = [np.array(p, ubits).view(dt) for p in patterns]
    rows += [
        np.array([info.max, info.min, 0, info.max, info.min], dt),
        np.array([info.min] * 5, dt),
        np.array([info.max] * 5, dt),
        np.array([info.min, info.max, info.min], dt),
    ]
    if bits == 64:
        big = [
            # differ only in the low word
            [(1 << 40) + 1, (1 << 40) + 3, (1 << 40) + 2, (1 << 40) + 3],
            [(1 << 63) + 5, (1 << 63) + 9, (1 << 63) + 7],
            # differ only in the high word
            [(1 << 33) | 5, (1 << 34) | 5, (1 << 32) | 5, (1 << 34) | 5],
            [(7 << 60) | 0xFFFFFFFF, (5 << 60) | 0xFFFFFFFF, (6 << 60) | 0xFFFFFFFF],
            # low word larger, high word smaller: 0xFFFFFFFF < 0x1_00000000
            [0xFFFFFFFF, 1 << 32, 0xFFFFFFFE, (1 << 32) + 1],
            # negatives (two's complement) that share a high word
            [ones - (1 << 32), ones - (1 << 32) + 1, ones, ones - (1 << 32) - 1],
        ]
        rows += [np.array(p, np.uint64).view(dt) for p in big]
    return rows


def pattern_matrix(rows: list[np.ndarray], length: int) -> np.ndarray:
    """One row per pattern, each repeated to `length` elements."""
    return np.stack([np.resize(r, length) for r in rows])


# 7: thread per output; 301: workgroup per output (packed 8/16-bit rows, misaligned rows);
# 20001: split into several workgroups per output plus a merge pass.
SPECIAL_LENGTHS = (7, 301, 20001)


@pytest.mark.parametrize("length", SPECIAL_LENGTHS)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_special_values(dev, dtype, length):
    rows = float_rows(dtype) if dtype in FLOATS else int_rows(dtype)
    combos = combos_for(dtype) if length > 8192 else ALL_COMBOS
    check(pattern_matrix(rows, length), 1, combos=combos)


@pytest.mark.parametrize("dtype", ["float16", "int16", "uint8"])
def test_packed_rows_many_tiles(tuned, dtype):
    """The packed 8/16-bit row loop with many tiles per thread (one workgroup per row, two
    words per thread per tile): the best tile is kept by key alone and the index rebuilt
    from the winner's code, so ties within a tile, across a thread's tiles and across
    threads must all resolve as numpy does."""
    dev = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, REDUCE_UNROLL=2)
    n = 20001  # misaligned ends, ~19 tiles of 512 words for 16-bit, ~10 for 8-bit
    rows = float_rows(dtype) if dtype in FLOATS else int_rows(dtype)
    rng = rng_for(dtype, "many tiles")
    few = rng.integers(0, 3, (4, n)).astype(dtype)  # ties everywhere
    lone = np.zeros((2, n), dtype)
    lone[0, [3, 9000, 19999]] = 1  # one winner per thread of distant tiles
    lone[1, [1030, 1030 + 512 * 8]] = 1  # the same thread and position, two tiles apart
    x = np.concatenate([pattern_matrix(rows, n), few, lone])
    check(x, 1, tensor=dg.asarray(x, device=dev))
    x1 = np.ascontiguousarray(x[2:3, 5:])  # an odd start: head and tail words
    check(x1, 1, tensor=dg.asarray(x1, device=dev))
    step = dev.compile(dg.ArgMaxDesc(dg.TensorDesc.of(dg.asarray(x, device=dev)),
                                     dg.TensorDesc("uint32", (x.shape[0], 1)), (1,),
                                     "increasing")).plan.steps[0]
    assert step.variables["packed_rows"] and step.params["n_split"] == 1, step


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_first_or_last(dev, dtype):
    x = np.array([1, np.nan, 3, np.nan, -np.inf], dtype)
    for fn in (dg.argmax, dg.argmin):
        assert fn(x).numpy().tolist() == [1]
        assert fn(x, axis_direction="decreasing").numpy().tolist() == [3]
    # NaN wins also against +inf and in long rows (one workgroup per output, split)
    for n in (300, 20001):
        x = np.full(n, np.inf, dtype)
        x[[5, n - 7]] = np.nan
        for fn in (dg.argmax, dg.argmin):
            assert fn(x).numpy().tolist() == [5]
            assert fn(x, axis_direction="decreasing").numpy().tolist() == [n - 7]


@pytest.mark.parametrize("dtype", FLOATS)
def test_signed_zeros_tie(dev, dtype):
    x = np.array([[-0.0, 0.0, -0.0], [0.0, -0.0, 0.0]], dtype)
    for fn in (dg.argmax, dg.argmin):
        assert fn(x, 1).numpy().tolist() == [[0], [0]]
        assert fn(x, 1, axis_direction="decreasing").numpy().tolist() == [[2], [2]]


@pytest.mark.parametrize("n", [5, 300, 20001])
@pytest.mark.parametrize("dtype", FLOATS)
def test_all_minus_inf_gives_valid_index(dev, dtype, n):
    """No value sentinel: a row of -inf (argmax) or +inf (argmin) has a real index."""
    lo, hi = np.full((2, n), -np.inf, dtype), np.full((2, n), np.inf, dtype)
    assert dg.argmax(lo, 1).numpy().tolist() == [[0], [0]]
    assert dg.argmax(lo, 1, axis_direction="decreasing").numpy().tolist() == [[n - 1]] * 2
    assert dg.argmin(hi, 1).numpy().tolist() == [[0], [0]]
    assert dg.argmin(hi, 1, axis_direction="decreasing").numpy().tolist() == [[n - 1]] * 2


@pytest.mark.parametrize("dtype, n", [(d, n) for d in INTS for n in (5, 300, 20001)
                                      if n < 8192 or d in FULL_DTYPES])
def test_integer_extremes_rows(dev, dtype, n):
    info = np.iinfo(dtype)
    lo, hi = np.full((2, n), info.min, dtype), np.full((2, n), info.max, dtype)
    assert dg.argmax(lo, 1).numpy().tolist() == [[0], [0]]
    assert dg.argmax(lo, 1, axis_direction="decreasing").numpy().tolist() == [[n - 1]] * 2
    assert dg.argmin(hi, 1).numpy().tolist() == [[0], [0]]
    assert dg.argmin(hi, 1, axis_direction="decreasing").numpy().tolist() == [[n - 1]] * 2
    x = np.full(n, 1 if info.min == 0 else -1, dtype)
    x[[1, n - 2]] = info.max
    x[[2, n - 3]] = info.min
    assert dg.argmax(x).numpy().tolist() == [1]
    assert dg.argmax(x, axis_direction="decreasing").numpy().tolist() == [n - 2]
    assert dg.argmin(x).numpy().tolist() == [2]
    assert dg.argmin(x, axis_direction="decreasing").numpy().tolist() == [n - 3]


def test_signed_vs_unsigned_64bit(dev):
    bits = np.array([1 << 63, (1 << 63) - 1, (1 << 64) - 1, 0, 1], np.uint64)
    u, s = bits, bits.view(np.int64)
    assert dg.argmax(u).numpy().tolist() == [2]  # 2^64 - 1
    assert dg.argmin(u).numpy().tolist() == [3]  # 0
    assert dg.argmax(s).numpy().tolist() == [1]  # 2^63 - 1
    assert dg.argmin(s).numpy().tolist() == [0]  # -2^63


def test_64bit_low_and_high_words(dev):
    lo = np.array([(1 << 40) + 1, (1 << 40) + 3, (1 << 40) + 2], np.int64)
    hi = np.array([(1 << 33) | 5, (1 << 34) | 5, (1 << 32) | 5], np.uint64)
    assert dg.argmax(lo).numpy().tolist() == [1]
    assert dg.argmin(lo).numpy().tolist() == [0]
    assert dg.argmax(hi).numpy().tolist() == [1]
    assert dg.argmin(hi).numpy().tolist() == [2]
    # would tie if compared as float (2^53 + 1 rounds to 2^53)
    x = np.array([2**53, 2**53 + 1, 2**53], np.int64)
    assert dg.argmax(x).numpy().tolist() == [1]
    assert dg.argmax(x, axis_direction="decreasing").numpy().tolist() == [1]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_ties_everywhere(dev, dtype):
    """All-equal tensors: INCREASING gives index 0, DECREASING the last index, on every
    plan (thread per output, workgroup per output, split)."""
    for shape, axes, long in [((4, 9), 1, False), ((9, 4), 0, False), ((3, 300), 1, False),
                              ((60, 3), 0, False), ((3, 4, 5), (0, 2), False),
                              ((300, 3), 0, True), ((2, 20001), 1, True)]:
        x = np.full(shape, 3, dtype)
        n = int(np.prod([shape[a] for a in np.atleast_1d(axes)]))
        # long: split into partials and merged (a slow compile per combo)
        for op, direction in combos_for(dtype) if long else ALL_COMBOS:
            y = OPS[op](x, axes, axis_direction=direction).numpy()
            assert (y == (0 if direction == "increasing" else n - 1)).all(), (op, direction, shape)


# -- index types --------------------------------------------------------------------------

@pytest.mark.parametrize("index_dtype", ["uint32", "int32", "uint64", "int64"])
def test_index_dtypes(dev, index_dtype):
    rng = rng_for("index", index_dtype)
    # long rows: indices past 2^16 (split path); short rows and a column reduction
    x = rng.standard_normal((2, 70001)).astype(np.float32)
    x[0, 70000] = 100.0
    x[1, 65537] = -100.0
    combos = ALL_COMBOS if index_dtype.endswith("32") else HALF
    check(x, 1, index_dtype=index_dtype, combos=combos)
    check(x, None, index_dtype=index_dtype, combos=combos[:1])
    small = random_values(rng, (6, 5, 4), "int64")
    check(small, (0, 2), index_dtype=index_dtype)
    y = dg.argmax(x, 1, index_dtype=index_dtype)
    assert y.dtype == np.dtype(index_dtype)
    assert y.numpy().tolist() == [[70000], [int(np.argmax(x[1]))]]


@pytest.mark.parametrize("index_dtype", ["uint64", "int64"])
def test_64bit_index_high_word_written(dev, index_dtype):
    """The whole 64-bit index is written: garbage in a preallocated output is overwritten."""
    x = np.array([[1, 5, 2], [7, 7, 0]], np.float32)
    desc = dg.ArgMaxDesc(dg.TensorDesc("float32", (2, 3)), dg.TensorDesc(index_dtype, (2, 1)),
                         axes=(1,), axis_direction="decreasing")
    y = dg.asarray(np.full((2, 1), -1, np.int64).view(index_dtype))
    dev.compile(desc)(inputs=[dg.asarray(x)], outputs=[y])
    assert_same(y, np.array([[1], [1]], index_dtype))


@pytest.mark.parametrize("index_dtype", ["uint32", "int32", np.uint64, np.dtype("int64")])
def test_index_dtype_accepts_numpy_types(dev, index_dtype):
    y = dg.argmin(np.array([3, 1, 2], np.int16), index_dtype=index_dtype)
    assert y.dtype == np.dtype(index_dtype)
    assert y.numpy().tolist() == [1]


# -- views --------------------------------------------------------------------------------

BASE_SHAPE = (4, 6, 10)

VIEWS = {
    "T": lambda a, bc: a.T,
    "transpose": lambda a, bc: a.transpose(1, 2, 0),
    "steps": lambda a, bc: a[:, ::2, 1::3],
    "negative_steps": lambda a, bc: a[::-1, :, ::-2],
    "offset": lambda a, bc: a[3:],
    "offset_negative": lambda a, bc: a[3:0:-1, 1:, 5:],
    "index_and_slice": lambda a, bc: a[2, 1:9:3],
    "newaxis": lambda a, bc: a[:, None, 1:7, 3],
    "transposed_steps": lambda a, bc: a[1::2, ::-3].transpose(2, 0, 1),
    "broadcast": lambda a, bc: bc(a[1, :, 3:4], (4, 6, 5)),
    "broadcast_leading": lambda a, bc: bc(a[:, 2:4], (3, 4, 2, 10)),
}


def view_axes(ndim: int) -> list:
    out = [None, (0,), (-1,)]
    if ndim >= 3:
        out.append((0, 2))
    if ndim >= 4:
        out.append((3, 1))
    return out


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_views(dev, dtype, view):
    base = random_values(rng_for("views", dtype, view), BASE_SHAPE, dtype)
    t = dg.asarray(base)
    tv = VIEWS[view](t, dg.broadcast_to)
    nv = VIEWS[view](base, np.broadcast_to)
    assert tv.buffer is t.buffer  # no copy
    assert tv.shape == nv.shape
    x = np.ascontiguousarray(nv)
    for axes in view_axes(nv.ndim):
        # all axes takes a workgroup per output (slow compiles): fewer combos there
        combos = ALL_COMBOS if axes is not None else HALF[:2 if dtype in FULL_DTYPES else 1]
        check(x, axes, tensor=tv, combos=combos)


# -- sizes: workgroup and dispatch limits, split and column reductions ---------------------

def planted(rng, shape, dtype):
    """Random values with the type's max at the middle and end of every row, and its min
    at index 1 and next-to-last (first/last of ties sit far apart)."""
    x = random_values(rng, shape, dtype, ties=False, specials=False)
    n = shape[-1]
    if dtype in FLOATS:
        top, bottom = np.finfo(dtype).max, np.finfo(dtype).min
    else:
        top, bottom = np.iinfo(dtype).max, np.iinfo(dtype).min
    x[..., [n // 2, n - 1]] = top
    x[..., [1, n - 2]] = bottom
    return x


ROW_SIZES = (63, 64, 65, 255, 256, 257, 511, 4097, 8193, 16385)


@pytest.mark.parametrize("n", ROW_SIZES)
@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_sizes_around_workgroup(dev, dtype, n):
    rng = rng_for("sizes", dtype, n)
    x = planted(rng, (3, n), dtype)
    x[2] = random_values(rng, (n,), dtype)  # tie-heavy row
    check(x, 1)
    check(x[0], None)
    # rows starting mid-word (8/16-bit packing) through an offset view
    t = dg.asarray(x)
    check(x[1:, 1:], 1, tensor=t[1:, 1:], combos=ALL_COMBOS[:2])


@pytest.mark.parametrize("strategy", ["row", "stage"])
def test_more_workgroups_than_dispatch_limit(tuned, strategy):
    """One workgroup per output and more outputs than a grid dimension holds (rows of 64
    take a workgroup each once ROW_MIN_RED allows it, staged rows of 32 a one-thread
    workgroup each under a block of 32 words: a small input reaches the limit)."""
    if strategy == "row":  # (no rows sharing a workgroup)
        d, shape = tuned(ROW_MIN_RED=64, ROWS_BYTES=0, ARG_STAGE_WORDS={}), (70000, 64)
    else:
        d, shape = tuned(ARG_STAGE_BLOCK_WORDS=32, ARG_STAGE_THREAD_WORDS=32,
                         ARG_STAGE_MIN_WG=1), (70000, 32)
    x = random_values(rng_for("dispatch"), shape, "float32", ties=False, specials=False)
    x[-1, -1] = 10.0
    x[-2, 0] = -10.0
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc("float32", shape),
                                 dg.TensorDesc("uint32", (shape[0], 1)), axes=(1,)))
    assert op.plan.notes["strategy"] == strategy
    assert max(s.n_groups for s in op.plan.steps) > d.max_workgroups  # test is meaningful
    for fn, ref in ((dg.argmax, np.argmax), (dg.argmin, np.argmin)):
        got = fn(dg.asarray(x, device=d), 1).numpy()
        np.testing.assert_array_equal(got, ref(x, axis=1, keepdims=True).astype(np.uint32))


@pytest.mark.parametrize("masked", [1 << 16, 4, 0], ids=["whole", "by-size", "loop"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16", "int8"])
def test_row_tails(tuned, dtype, masked):
    """Row plans' last, partial tile: taken whole, its indices (packed rows: words) clamped
    to the last one (ROW_MASKED_TAIL: any tail, or one of a quarter of a tile or more; packed
    rows where ROW_MASKED_TAIL_PACKED) or an element at a time; element loads (32/64-bit
    rows, strided rows), packed 8/16-bit rows with partial words at both ends and starting
    mid-word, rows that share a workgroup and long rows split over several (the tail in one
    of them); the winner at each of the last 8 elements (in the last whole word, the
    partial one after it, a clamped duplicate's place), tied between the tail and the tiles
    and inside the tail, NaN in the tail."""
    d = tuned(ROW_MASKED_TAIL=masked, ROW_MASKED_TAIL_PACKED=True, TARGET_THREADS=1,
              ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    rng = rng_for("row tails", dtype)
    info = np.finfo(dtype) if dtype in FLOATS else np.iinfo(dtype)
    odd = 1 if np.dtype(dtype).itemsize < 4 else 0  # (8/16-bit rows: a partial last word)
    for rows, n in ((37, 2101 + odd * 2), (13, 3333), (13, 5000 + odd), (13, 20001)):
        x = random_values(rng, (rows, n), dtype, ties=False, specials=False)
        for r in range(8):
            x[r, -1 - r] = info.max  # the winner at each of the last 8 places
        x[8, [0, -2]] = info.max  # tied: a tile's and the tail's
        x[9, [-9, -6]] = info.max  # tied inside the tail
        x[10, [-5, -4]] = info.min  # (ArgMin)
        if dtype in FLOATS:
            x[11, -2] = np.nan
        t = dg.asarray(x, device=d)
        for view, contiguous in ((t, True), (t[:, ::2], False), (t[:, 1:], True)):
            op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, view.shape, view.strides),
                                         dg.TensorDesc("uint32", (rows, 1)), (1,)))
            notes, var = op.plan.notes, op.plan.steps[0].variables
            assert notes["strategy"] == "row" and var["masked_tail"] == masked, (n, notes)
            assert notes["packed"] is (contiguous and odd == 1), (n, notes)
        check(x, 1, tensor=t, combos=combos_for(dtype))
        check(x[:, ::2], 1, tensor=t[:, ::2], combos=HALF)  # strided rows
        check(x[:, 1:], 1, tensor=t[:, 1:], combos=HALF, index_dtype="int64")
        if odd:  # packed rows keep the loop unless ROW_MASKED_TAIL_PACKED
            assert arg_notes(tuned(ROW_MASKED_TAIL_PACKED=False), dtype, x.shape, (1,)) \
                ["packed"] is True
            op = compile_arg(tuned(ROW_MASKED_TAIL_PACKED=False), dtype, x.shape, (1,))
            assert op.plan.steps[0].variables["masked_tail"] == 0
            d = tuned(ROW_MASKED_TAIL=masked, ROW_MASKED_TAIL_PACKED=True, TARGET_THREADS=1,
                      ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    # a long row split over several workgroups: the tail in one of them
    d = tuned(ROW_MASKED_TAIL=masked, ROW_MASKED_TAIL_PACKED=True, TARGET_THREADS=1 << 16,
              ROWS_TARGET_THREADS=1 << 19, MIN_ROW_CHUNK=1024, PACKED_ROW_CHUNK_WORDS=512)
    x = random_values(rng, (2, 30007 + odd), dtype, ties=False, specials=False)
    x[0, -7] = info.max
    x[1, [5, -1]] = info.min
    t = dg.asarray(x, device=d)
    for view, ref in ((t, x), (t[:, ::2], x[:, ::2])):  # (strided: element loads)
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, view.shape, view.strides),
                                     dg.TensorDesc("uint32", (2, 1)), (1,)))
        assert op.plan.notes["split"] > 1 and op.plan.steps[0].variables["masked_tail"] == masked
        check(ref, 1, tensor=view, combos=HALF)
    # rows of whole tiles (each split's range too): no tail, the kernel without its branch;
    # the same rows starting mid-word have a partial word at each end, which the loop takes
    d = tuned(ROW_MASKED_TAIL=masked, ROW_MASKED_TAIL_PACKED=True, TARGET_THREADS=1,
              ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    x = random_values(rng, (9, 4096), dtype, ties=False, specials=False)
    x[3, -1], x[4, -2] = info.max, info.min
    op = compile_arg(d, dtype, x.shape, (1,))
    var = op.plan.steps[0].variables
    tile = var["tpr"] * var["unroll"] * (dtypes.lookup(dtype).per_word
                                         if var["packed_rows"] else 1)
    assert op.plan.notes["strategy"] == "row" and 4096 % tile == 0, op.plan.notes
    assert var["masked_tail"] == 0, var
    check(x, 1, tensor=dg.asarray(x, device=d), combos=HALF)
    # (the same plan at an offset; 8/16-bit rows then start mid-word: a partial last word)
    check(x, 1, tensor=at_offset(x, 1, d), combos=HALF)


@pytest.mark.parametrize("dtype", PACKED + ("float32", "int32", "uint32"))
def test_row_vector_loads(tuned, dtype):
    """Contiguous rows of whole vectors of four words (8/16-bit rows read as words, 32-bit
    elements), each starting on one, read a vector a load (tuning.ROW_VLOAD): rows of a few
    threads each and rows of a workgroup, whole tiles and a last tile taken whole (its
    vectors clamped), long rows split; the winner at each place of the last vectors, ties,
    NaN, extremes; views at an offset that is a whole vector (vector loads), whole words or
    mid-word (word loads, the plan's variant), strided and reversed rows, a caller's buffer
    of no whole number of vectors, several bindings (word loads); the variant asserted at
    every call, off: word loads."""
    dt = dtypes.lookup(dtype)
    vec = plan.VEC_WORDS * dt.per_word  # elements a vector holds

    def first_loads(v):  # a split's merge pass: None
        return v.get("src_vec", 1) if v["source"] == "input" else None
    every = {8: True, 16: True, 32: True}
    tune = dict(ROW_VLOAD=every, TARGET_THREADS=1, ROWS_TARGET_THREADS=1, ROW_MIN_RED=64,
                ARG_STAGE_WORDS={}, ROW_MASKED_TAIL_PACKED=True)
    rng = rng_for("row vector loads", dtype)
    info = np.finfo(dtype) if dtype in FLOATS else np.iinfo(dtype)

    def planted_rows(rows, n):
        x = random_values(rng, (rows, n), dtype, ties=False, specials=False)
        for r in range(min(rows, 2 * vec)):
            x[r, -1 - r] = info.max  # the winner at each place of the last two vectors
        x[rows - 1, [0, n // 2, -1]] = info.max  # tied: the first tile's, the last's
        x[rows - 2, [-vec, -vec + 1]] = info.min  # (ArgMin) tied inside a vector
        if dtype in FLOATS:
            x[rows - 3, [3, -3]] = np.nan
        return x

    for rows, n, extra in ((40, 32 * vec, {}),  # a few threads a row, whole tiles
                           (37, 33 * vec, {}),  # ... the last tile clamped
                           (6, 160 * vec, dict(ROWS_TARGET_THREADS=1 << 19)),  # a workgroup
                           (2, 1875 * vec, dict(TARGET_THREADS=1 << 16,  # split
                                                ROWS_TARGET_THREADS=1 << 19,
                                                MIN_ROW_CHUNK=1024,
                                                PACKED_ROW_CHUNK_WORDS=512))):
        d = tuned(**dict(tune, **extra))
        x = planted_rows(rows, n)
        op = compile_arg(d, dtype, x.shape, (1,))
        var = op.plan.steps[0].variables
        assert op.plan.notes["strategy"] == "row", op.plan.notes
        assert var["packed_rows"] is (dt.per_word > 1), op.plan.notes
        assert var["src_vec"] == plan.VEC_WORDS, op.plan.notes
        assert (var["masked_tail"] > 0) is (n % (var["tpr"] * var["unroll"] * dt.per_word)
                                            != 0), (n, var["masked_tail"])
        if n == 1875 * vec:
            assert op.plan.notes["split"] > 1, op.plan.notes
        seen = spy_variables(d, first_loads)
        t = dg.asarray(x, device=d)
        check(x, 1, tensor=t, combos=ALL_COMBOS)
        check(x[::-1], 1, tensor=t[::-1], combos=HALF, index_dtype="int64")
        assert set(seen) - {None} == {plan.VEC_WORDS}, seen
        # a view at an offset: whole vectors keep vector loads, else the word-load variant
        for off in (vec, dt.per_word, 1):
            seen.clear()
            check(x, 1, tensor=at_offset(x, off, d), combos=HALF)
            assert set(seen) - {None} == {plan.VEC_WORDS if off == vec else 1}, (off, seen)
        check(x[:, ::2], 1, tensor=t[:, ::2], combos=HALF)  # strided: element loads
        del d.pipelines.get
        off = compile_arg(tuned(**dict(tune, **extra, ROW_VLOAD={})), dtype, x.shape, (1,))
        assert off.plan.steps[0].variables["src_vec"] == 1
    # rows that are no whole vectors, or start off one: word loads
    d = tuned(**tune)
    for n in (32 * vec + dt.per_word, 32 * vec + 1):
        assert compile_arg(d, dtype, (40, n), (1,)).plan.steps[0].variables["src_vec"] == 1
    x = planted_rows(40, 32 * vec + vec // 2)
    wide = dg.asarray(x, device=d)  # rows of a wider array, each starting off a vector
    assert d.compile(dg.ArgMaxDesc(
        dg.TensorDesc(dtype, (40, 32 * vec), wide[:, :32 * vec].strides),
        dg.TensorDesc("uint32", (40, 1)), (1,))).plan.steps[0].variables["src_vec"] == 1
    check(x[:, :32 * vec], 1, tensor=wide[:, :32 * vec], combos=HALF)
    # a caller's buffer whose size is no whole number of vectors (its last word's vector
    # runs past it): the rows' whole vectors still read as vectors
    u = d.wgpu.BufferUsage
    x = planted_rows(8, 32 * vec)
    raw = np.concatenate([x.view(np.uint8).ravel(), np.zeros(4, np.uint8)])
    buf = d.device.create_buffer_with_data(data=raw.tobytes(),
                                           usage=u.STORAGE | u.COPY_SRC | u.COPY_DST)
    assert buf.size % 16 == 4
    seen = spy_variables(d, first_loads)
    check(x, 1, tensor=dg.Tensor.from_buffer(buf, dtype, x.shape, device=d), combos=HALF)
    assert set(seen) - {None} == {plan.VEC_WORDS}, seen
    del d.pipelines.get
    # an input bound as several windows (4 KiB each): the word-load variant
    d = dg.Device(max_binding_size=4096)  # (planned under `tune`, still set)
    seen = spy_variables(d, lambda v: (first_loads(v), v["n_in_win"]))
    x = planted_rows(4, 1024 * vec // 4)
    op = compile_arg(d, dtype, x.shape, (1,))
    assert op.plan.steps[0].variables["src_vec"] == plan.VEC_WORDS, op.plan.notes
    check(x, 1, tensor=dg.asarray(x, device=d), combos=HALF)
    # (compiling builds a one-window pipeline ahead: the plan's)
    assert {(v, n) for v, n in seen if v} == {(plan.VEC_WORDS, 1), (1, 4)}, seen


@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_segmented_rows(tuned, dtype):
    """Contiguous rows shorter than a workgroup's share: TPR threads per row, several rows
    per workgroup (the last one partly idle): planted extremes, a tie-heavy row, a row of
    one value, packed 8/16-bit rows starting mid-word, negative strides."""
    # (else few rows take a workgroup each; whole-word rows up to 32 words are staged)
    d = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    rng = rng_for("segmented", dtype)
    dt = np.dtype(dtype)
    short_tiles, raised = set(), set()
    for n in (100, 133, 200, 257, 1000, 1500):
        x = planted(rng, (37, n), dtype)
        x[5] = random_values(rng, (n,), dtype)
        x[6] = x[6, 3]
        op = d.compile(dg.ArgMaxDesc(
            dg.TensorDesc(dtype, x.shape), dg.TensorDesc("uint32", (37, 1)), (1,)))
        tpr = op.plan.notes["threads_per_row"]
        assert op.plan.notes["strategy"] == "row" and 2 <= tpr < tuning.REDUCE_WG, op.plan.notes
        elems = max(tuning.REDUCE_UNROLL, plan.rows_bytes(dtypes.lookup(dtype)) // dt.itemsize)
        # at least ROWS_MIN_TPR threads a row while each keeps ROWS_MIN_WORDS words and an
        # unrolled iteration's elements (at least 2)
        least = max(2, min(tuning.ROWS_MIN_TPR,
                           pow2_floor(n * dt.itemsize // 4 // tuning.ROWS_MIN_WORDS)))
        assert tpr == max(pow2_floor(n // elems),
                          min(least, pow2_floor(n // tuning.REDUCE_UNROLL))), op.plan.notes
        raised.add(tpr > max(2, pow2_floor(n // elems)))
        short_tiles.add(op.plan.steps[0].variables["unroll"] < tuning.REDUCE_UNROLL)
        t = dg.asarray(x, device=d)
        check(x, 1, tensor=t)
        check(x[1:, 1:], 1, tensor=t[1:, 1:], combos=ALL_COMBOS[:2])
        check(x[:, ::-1], 1, tensor=t[:, ::-1], combos=ALL_COMBOS[2:])
    # packed rows shorter than TPR x REDUCE_UNROLL words take shorter tiles (n = 100)
    assert (True in short_tiles) is (dt.itemsize <= 2), short_tiles
    # rows given more threads than their bytes a thread ask (ROWS_MIN_TPR; 64-bit rows
    # this long take as many by their bytes)
    assert (True in raised) is (dt.itemsize < 8), raised


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "int16", "float32"])
def test_rows_whole_tiles(tuned, dtype):
    """ARG_ROWS_WHOLE_TARGET_THREADS: 8/16-bit rows (contiguous, over two reduced dims, word
    lanes) take as many threads each as it asks where each thread's share of a row is whole
    tiles, more than ROWS_TARGET_THREADS gives; rows a tile longer keep their threads, and
    so do 32-bit rows. Both ops and directions, ties, extremes; views starting mid-word and
    reversed."""
    rng = rng_for("rows whole tiles", dtype)
    base = dict(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    packed = np.dtype(dtype).itemsize < 4
    cases = (  # shape, axes, target (threads in all), raised (8/16-bit)
        ((6, 4096), (1,), 384, True),
        ((6, 4160), (1,), 384, False),  # (a tile more: part of one a thread)
        ((2, 6, 2048), (0, 2), 384, True),
        ((4096, 2), (0,), 128, True),  # (word lanes)
    )
    for shape, axes, target, raised in cases:
        off = arg_notes(tuned(**base, ARG_ROWS_WHOLE_TARGET_THREADS=0), dtype, shape, axes)
        d = tuned(**base, ARG_ROWS_WHOLE_TARGET_THREADS=target)
        on = arg_notes(d, dtype, shape, axes)
        lanes = shape[-1] == 2
        assert on["strategy"] == off["strategy"] == (
            ("lanes" if packed else "interleave") if lanes else "row"), (shape, on)
        n_out = int(np.prod([n for i, n in enumerate(shape) if i not in axes]))
        units = n_out // (2 if lanes else 1)
        want = pow2_floor(target // units) if raised and packed else off["threads_per_row"]
        assert on["threads_per_row"] == want > 0, (shape, off, on)
        assert (want > off["threads_per_row"]) is (raised and packed), (shape, off, on)
        x = planted(rng, shape, dtype)
        t = dg.asarray(x, device=d)
        check(x, axes, tensor=t)
        check(x, axes, tensor=at_offset(x, 1, d), combos=HALF)
        if len(shape) == 2 and axes == (1,):
            check(x[:, ::-1], axes, tensor=t[:, ::-1], combos=HALF)


@pytest.mark.parametrize("radix", [4, 8])
@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_tree_radix(tuned, dtype, radix):
    """The row tree taking the best of `radix` entries a level (REDUCE_TREE_RADIX), with a
    last level of fewer when log2(TPR) is no multiple of log2(radix): lone winners at
    different threads' shares of a row, ties across shares, a row of one value."""
    d = tuned(REDUCE_TREE_RADIX=radix, TARGET_THREADS=1, ROWS_TARGET_THREADS=1)
    rng = rng_for("radix", dtype, radix)
    tprs = set()
    for n in (70, 130, 300, 1000, 5000, 40000):
        x = planted(rng, (9, n), dtype)
        x[3] = x[3, 0]
        x[4, ::n // 7] = x[4].max()  # ties spread over threads' shares
        for r in range(5, 9):  # one winner, a quarter further along each row
            x[r] = random_values(rng, (n,), dtype, ties=False, specials=False)
            x[r, (r - 5) * n // 4 + 3] = x[0, -1]
        op = d.compile(dg.ArgMaxDesc(
            dg.TensorDesc(dtype, x.shape), dg.TensorDesc("uint32", (9, 1)), (1,)))
        assert op.plan.notes["strategy"] == "row", op.plan.notes
        assert op.plan.steps[0].variables["radix"] == radix
        tprs.add(op.plan.notes["threads_per_row"])
        check(x, 1, tensor=dg.asarray(x, device=d))
    # a tree of one level and of several, the last one short for some TPR
    assert any(t <= radix for t in tprs) and any(t > radix for t in tprs), tprs
    assert any((t.bit_length() - 1) % (radix.bit_length() - 1) for t in tprs), tprs


@pytest.mark.parametrize("dtype, split", [
    pytest.param(d, False, id=f"{d}-one-pass") for d in ALL_DTYPES] + [
    pytest.param(d, True, id=f"{d}-split") for d in FULL_DTYPES + ("int8",)])
def test_interleaved_lanes(tuned, dtype, split):
    """A small contiguous kept dim right under the reduced ones ((n, 2) over n, (b, n, 3)
    over n, (h, w, 4) over h and w): its outputs share a workgroup, lanes interleaved over
    them (3: a lane of four idle). Planted extremes and ties in every column, NaN, a row
    of one value; one pass, or split over workgroups and merged (FULL_DTYPES and int8). Every
    dtype (the others than FULL_DTYPES at two of the shapes: their key code, not the
    lanes', differs)."""
    d = tuned(MIN_ROW_CHUNK=512, WORD_LANES=False) if split else \
        tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, WORD_LANES=False)
    rng = rng_for("interleave", dtype)
    cases = [((3001, 2), (0,)), ((2, 1500, 3), (1,)), ((40, 31, 4), (0, 1)),
             ((1100, 5), (0,))]
    if dtype not in FULL_DTYPES:
        cases = cases[:2]
    for shape, axes in cases:
        n = int(np.prod([shape[a] for a in axes]))
        x = planted(rng, shape[::-1], dtype).T.copy() if len(shape) == 2 else \
            random_values(rng, shape, dtype)
        if len(shape) == 2:
            x[:, 1] = x[0, 1]  # a column of one value
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        assert notes["strategy"] == "interleave", (shape, notes)
        assert (notes["split"] > 1) is split, (shape, notes)
        assert n >= tuning.ROW_MIN_RED
        check(x, axes, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))


WORD_LANE_DTYPES = ("uint8", "int8", "float16", "int16", "uint16")


def at_offset(x: np.ndarray, off: int, device) -> dg.Tensor:
    """`x` on `device` as a view starting `off` elements into its buffer (mid-word for 8/16-bit
    types where off is not a multiple of a word's elements)."""
    flat = np.concatenate([np.zeros(off, x.dtype), x.reshape(-1)])
    return dg.asarray(flat, device=device)[off:].reshape(x.shape)


def word_lane_input(rng, n: int, cols: int, dtype: str) -> np.ndarray:
    """(n, cols): random values; per column, the type's max at two places (first and last
    of a tie far apart, at different threads' words), a column of one value, NaN planted
    in float16."""
    x = random_values(rng, (n, cols), dtype, ties=False, specials=False)
    top = np.finfo(dtype).max if dtype == "float16" else np.iinfo(dtype).max
    for c in range(cols - 1):
        x[[(c + 1) * n // (cols + 2) + c, n - 1 - 3 * c], c] = top
    x[:, -1] = x[0, -1]
    if dtype == "float16":
        x[n // 3, 0] = np.nan
    return x


@pytest.mark.parametrize("dtype", WORD_LANE_DTYPES)
def test_word_lanes(tuned, dtype):
    """8/16-bit reductions under a narrow contiguous kept dim that divides a word ((n, 2)
    over n; uint8 (n, 4)): whole words, a max per output lane. One block a workgroup or
    several, split over workgroups, whole tiles and partial ones, views starting mid-word
    (two words joined per load), NaN, ties and a column of one value."""
    pw = 4 // np.dtype(dtype).itemsize
    rng = rng_for("word lanes", dtype)
    combos = combos_for(dtype)
    tprs = set()
    for cols in [c for c in (2, 4) if pw % c == 0]:
        g = pw // cols
        # (tuning, blocks, reduced length, split expected)
        for numbers, blocks, n, split in (
                (dict(ROWS_TARGET_THREADS=1, TARGET_THREADS=1), 5, 2000 * g, False),
                (dict(ROWS_TARGET_THREADS=1 << 19, TARGET_THREADS=1), 1, 1500 * g + g, False),
                (dict(PACKED_ROW_CHUNK_WORDS=64, TARGET_THREADS=1 << 20,
                      ROWS_TARGET_THREADS=1 << 20), 3, 5000 * g, True)):
            d = tuned(**numbers)
            x = np.stack([word_lane_input(rng, n, cols, dtype) for _ in range(blocks)])
            op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape),
                                         dg.TensorDesc("uint32", (blocks, 1, cols)), (1,)))
            notes, first = op.plan.notes, op.plan.steps[0].variables
            assert notes["strategy"] == "lanes" and first["cols"] == cols, notes
            assert (notes["split"] > 1) is split, notes
            tprs.add(notes["threads_per_row"])
            check(x, 1, tensor=dg.asarray(x, device=d), combos=combos)
            # the same values at element offsets 1 .. pw - 1 of a flat buffer
            for off in range(1, pw):
                check(x, 1, tensor=at_offset(x, off, d), combos=combos[:2])
    assert min(tprs) < tuning.REDUCE_WG, tprs  # (several blocks a workgroup)
    if pw == 4:  # the element lanes where the reduced length is no multiple of a word's rows
        x = word_lane_input(rng, 3001, 2, dtype)
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape),
                                     dg.TensorDesc("uint32", (1, 2)), (0,)))
        assert op.plan.notes["strategy"] == "interleave", op.plan.notes


@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_short_runs_under_kept_dims(tuned, dtype):
    """A short contiguous reduced run right under the kept dims, more reduced dims above
    ((n, m, 2) over n and the 2): threads per output as many as the run's power-of-two
    floor, several outputs per workgroup, split over workgroups and merged (8/16-bit runs
    that divide a word too, with their word lanes off: test_short_runs_as_word_lanes)."""
    dev = tuned(TILECOL_RUNS=False)
    rng = rng_for("short runs", dtype)
    for shape, axes, tpr in (((700, 40, 2), (0, 2), 2), ((80, 300, 5, 3), (0, 2, 3), 8)):
        op = compile_arg(dev, dtype, shape, axes)
        notes = op.plan.notes
        assert notes["strategy"] == "row" and notes["threads_per_row"] == tpr, (shape, notes)
        assert notes["split"] > 1, (shape, notes)
        x = random_values(rng, shape, dtype)
        check(x, axes, combos=combos_for(dtype))


@pytest.mark.parametrize("dtype", WORD_LANE_DTYPES)
def test_short_runs_as_word_lanes(tuned, dtype):
    """8/16-bit short reduced runs under the innermost kept dim, where the run divides a
    word ((n, m, 2) over n and the 2; 8-bit runs of 4): "tilecol" with a run's lanes of a
    word per output. One walked reduced dim or two (apart, a kept dim between them; their
    inner one whole tiles, a tile placed once in its run, or not), one row group or
    several, split and merged or not, views starting mid-word, the outer reduced dim
    reversed; extremes planted at both ends of the runs (first and last of ties far
    apart), NaN."""
    # (short runs from 128 elements: a reduction of one row group)
    d = tuned(MERGE_COL_MIN_OUT=64, ARG_TILECOL_MIN_ROWS=64, ARG_TILECOL_RUN_MIN_ROWS={},
              TILECOL_MIN_RED=0, ROW_MIN_RED=128)
    pw = 4 // np.dtype(dtype).itemsize
    rng = rng_for("short run lanes", dtype)
    combos = combos_for(dtype)
    top = np.finfo(dtype).max if dtype == "float16" else np.iinfo(dtype).max
    cases = [((1500, 64, 2), (0, 2)), ((100, 256, 2), (0, 2)),
             ((20, 5, 64, 32, 2), (0, 2, 4)), ((20, 5, 70, 32, 2), (0, 2, 4))]
    if pw == 4:
        cases.append(((700, 64, 4), (0, 2)))
    seen = set()
    for shape, axes in cases:
        run = shape[-1]
        x = random_values(rng, shape, dtype, ties=False, specials=False)
        x[7, ..., 0] = top
        x[-3, ..., run - 1] = top
        if dtype == "float16":
            x[11, ..., 1][..., ::3] = np.nan
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        assert notes["strategy"] == "tilecol" and notes["lanes_per_output"] == run, notes
        if len(shape) == 5:  # (two walked dims, 20 and 64 or 70, besides the run)
            v = op.plan.steps[0].variables
            assert len(op.reduction.red) == 3 and v["multi_red"], op.reduction
            assert v["tile_run"] == (shape[2] == 64), v["tile_run"]
        seen.add((notes["row_groups"] > 1, notes["split"] > 1))
        check(x, axes, tensor=dg.asarray(x, device=d), combos=combos)
        for off in range(1, pw):  # the same values at element offsets 1 .. pw - 1
            check(x, axes, tensor=at_offset(x, off, d), combos=combos[:2])
        check(x[::-1], axes, tensor=dg.asarray(x, device=d)[::-1], combos=combos[2:])
    assert seen == {(True, True), (False, True)}, seen
    # one pass: no partials
    d = tuned(TARGET_THREADS=1)
    x = random_values(rng, (1500, 64, 2), dtype)
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape),
                                 dg.TensorDesc("uint32", (1, 64, 1)), (0, 2)))
    assert op.plan.notes["split"] == 1 and op.plan.notes["lanes_per_output"] == 2, op.plan.notes
    check(x, (0, 2), tensor=dg.asarray(x, device=d), combos=combos)


@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_several_reduced_dims_carry(dev, dtype):
    """Two or three reduced dims that do not merge: the loops walk the innermost with a
    carry into the outer ones (no division per element); row and column plans, inner runs
    shorter and longer than a workgroup's stride, splits that start mid-run."""
    rng = rng_for("carry", dtype)
    for shape, axes, strategy, nr in (((3, 700, 1000), (0, 2), "row", 2),
                                      ((5000, 4, 3), (0, 2), "row", 2),
                                      ((30, 5, 40, 7, 50), (0, 2, 4), "row", 3),
                                      ((50, 30, 40, 128), (0, 2), "col", 2),
                                      ((9, 20, 11, 3, 6, 128), (0, 2, 4), "col", 3)):
        op = compile_arg(dev, dtype, shape, axes)
        if strategy == "col" and np.dtype(dtype).itemsize < 4:
            strategy = "tilecol"  # (8/16-bit columns: test_tile_columns)
        assert op.plan.notes["strategy"] == strategy, (shape, op.plan.notes)
        assert len(op.reduction.red) == nr, (shape, op.reduction)
        if strategy != "row" or shape[-1] == 3:
            assert op.plan.notes["split"] > 1, (shape, op.plan.notes)
        x = random_values(rng, shape, dtype)
        check(x, axes, combos=combos_for(dtype))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "uint16"])
def test_several_reduced_dims_packed(dev, dtype):
    """8/16-bit inputs whose reduced runs, outer reduced strides and kept strides are whole
    words read a word per load with several reduced dims too; a view starting mid-word
    takes element loads (the same plan, checked when bound); runs that are not whole words
    never take words."""
    rng = rng_for("packed multi", dtype)
    pw = 4 if np.dtype(dtype).itemsize == 1 else 2
    for shape, axes, packed in (((3, 700, 1000), (0, 2), True),
                                ((20, 50, 2048), (0, 2), True),
                                ((6, 20, 300, 8), (0, 3), True),
                                ((30, 5, 40, 7, 52), (0, 2, 4), True),
                                ((5000, 4, 3), (0, 2), False)):
        op = compile_arg(dev, dtype, shape, axes)
        assert op.plan.notes["packed"] is packed, (shape, op.plan.notes)
        x = random_values(rng, shape, dtype)
        check(x, axes, combos=combos_for(dtype))
    # the same plan's strides, a view starting one element into a word
    big = random_values(rng, (20, 30, 1000 + pw), dtype)
    # extremes just past the view's end: a word load that strayed there would take them
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    big[::2, :, 1001:], big[1::2, :, 1001:] = info.max, info.min
    t = dg.asarray(big, device=dev)[:, :, 1:1 + 1000]
    op = dev.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, (20, 30, 1000), t.strides),
                                   dg.TensorDesc("uint32", (1, 30, 1)), (0, 2)))
    assert op.plan.notes["packed"] is True  # (whole-word strides: the offset decides)
    check(big[:, :, 1:1 + 1000], (0, 2), tensor=t, combos=combos_for(dtype))


# (shape, axes): row plans over two reduced dims (three: the last) under
# WALK_TUNING, each walk taken by some dtype: "stride" (TPR a multiple of the inner run),
# "steps" (the run a multiple of TPR, runs a multiple of the tile's steps or dividing them;
# split for 32/64-bit), "tile" (the run a multiple of TPR only; three reduced dims)
WALK_CASES = (((5, 7, 64), (0, 2)), ((40, 6, 16), (0, 2)), ((64, 8, 32), (0, 2)),
              ((6, 40, 64), (0, 2)), ((3, 5, 7, 256), (0, 1, 3)), ((3, 40, 256), (0, 2)),
              ((4, 64, 4096), (0, 2)), ((3, 4, 16384), (0, 2)), ((9, 3, 2048), (0, 2)),
              ((4, 30, 96), (0, 2)),
              ((2, 8, 16, 384), (1, 3)), ((2, 6, 5, 128), (0, 2, 3)),
              ((3, 4, 5, 6, 256), (0, 2, 4)))
# (ARG_ROWS_WHOLE_TARGET_THREADS as ROWS_TARGET_THREADS: (4, 64, 4096) keeps its 128 threads
# a row, not a workgroup)
WALK_TUNING = dict(TARGET_THREADS=1 << 12, ROWS_TARGET_THREADS=1 << 10,
                   ARG_ROWS_WHOLE_TARGET_THREADS=1 << 10)


def sparse_extremes(rng, shape, dtype):
    """Distinct random values with the type's max (and, floats, NaN) at a few random
    places: every run's winner sits elsewhere, some tie with another's."""
    x = random_values(rng, shape, dtype, ties=False, specials=False)
    flat = x.reshape(-1)
    hot = rng.integers(0, flat.size, max(2, flat.size // 300))
    top = np.finfo(dtype).max if dtype in FLOATS else np.iinfo(dtype).max
    flat[hot] = top
    if dtype in FLOATS:
        flat[hot[::7]] = np.nan
    return x


def tied_ends(rng, shape, dtype, axes):
    """sparse_extremes with, over `axes`, every output's best at its first and last index
    tied, and the first output's best at its last index alone."""
    e = np.ascontiguousarray(np.moveaxis(sparse_extremes(rng, shape, dtype), axes,
                                         range(len(axes))))
    m = e.reshape(int(np.prod([shape[a] for a in axes])), -1)  # (reduced, kept)
    m[0] = m[-1] = m.max(axis=0)
    m[:, 0] = 0
    m[-1, 0] = 1
    return np.ascontiguousarray(np.moveaxis(e, range(len(axes)), axes))


@pytest.mark.parametrize("dtype", FULL_DTYPES + ("int8", "int16", "uint32"))
def test_row_walks(tuned, dtype):
    """Row plans over several reduced dims walking them without per-thread carries
    (plan._walk): every walk, partial tiles, a split, planted extremes and ties at the
    runs' ends, NaN, a sliced view; 8/16-bit views starting mid-word take the element
    loads' own walk."""
    d = tuned(**WALK_TUNING)
    rng = rng_for("walks", dtype)
    walks, ks, splits = set(), set(), set()
    for shape, axes in WALK_CASES:
        op = compile_arg(d, dtype, shape, axes)
        v = op.plan.steps[0].variables
        assert v["strategy"] == "row" and v["multi_red"], (shape, op.plan.notes)
        walks.add(v["walk"])
        if v["walk"] == "steps":
            ks.add(v["ks"] == v["unroll"])
            splits.add(op.plan.notes["split"] > 1)
        x = sparse_extremes(rng, shape, dtype)
        x[..., :3] = x[..., 1:2]  # ties at the start of every run
        t = dg.asarray(x, device=d)
        check(x, axes, tensor=t, combos=combos_for(dtype))
        sl = (slice(1, None),) + (slice(None),) * (len(shape) - 1)
        if shape[0] > 2:  # (a view of the same strides, starting a row further)
            check(x[sl], axes, tensor=t[sl], combos=combos_for(dtype)[:2])
    assert walks == {"stride", "steps", "tile"} | ({"carry"} if dtype in PACKED else set()), walks
    assert ks == {True, False}, ks  # runs of several tiles' steps, and tiles of several runs
    if np.dtype(dtype).itemsize >= 4:
        assert True in splits, splits
    if dtype in PACKED:  # a view starting one element into a word: element loads
        pw = 4 // np.dtype(dtype).itemsize
        big = sparse_extremes(rng, (3, 40, 256 + pw), dtype)
        t = dg.asarray(big, device=d)[:, :, 1:257]
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, (3, 40, 256), t.strides),
                                     dg.TensorDesc("uint32", (1, 40, 1)), (0, 2)))
        step = op.plan.steps[0]
        assert step.variables["packed_rows"] and step.variables["walk"] == "steps"
        assert step.mid_word["walk"] == "steps" and not step.mid_word["packed_rows"]
        check(big[:, :, 1:257], (0, 2), tensor=t, combos=combos_for(dtype))


# (shape, axes, tuning, walk): columns a thread an output ("col", one output a thread; 8/16-
# bit ones kept from "tilecol"): one reduced dim split, each split's last tile partial; two
# reduced dims whose inner run is whole tiles (walk "tile"): splits of whole runs, splits
# starting mid-run, splits starting mid-run and crossing runs; an inner run of no whole
# tiles (walk "carry")
COL_TILE_CASES = (((1000, 40), (0,), {}, "carry"),
                  ((5, 8, 32, 64), (0, 2), {}, "tile"),
                  ((5, 8, 32, 64), (0, 2), dict(MIN_COL_CHUNK=16), "tile"),
                  ((5, 8, 32, 64), (0, 2), dict(MIN_COL_CHUNK=40), "tile"),
                  ((3, 64, 5, 32), (0, 2), {}, "carry"))


@pytest.mark.parametrize("dtype, on", [(d, on) for on in (True, "select") for d in ALL_DTYPES]
                         + [(d, False) for d in FULL_DTYPES])  # (off: every other column test)
def test_column_tiles(tuned, dtype, on):
    """Columns a thread an output take a tile's best key and search the tile only where it
    wins (COL_TILE_MAX True), or find its place by a select an element and take it without
    a branch ("select"), and over two reduced dims whose inner run is whole tiles find a
    tile's place in its run once (COL_TILE_RUNS); off, an element at a time. Splits of
    whole runs, starting mid-run and crossing runs, partial tiles, ties at every run's
    ends, NaN and extremes, reversed and sliced views, 64-bit indices."""
    rng = rng_for("column tiles", dtype)
    for shape, axes, more, walk in COL_TILE_CASES:
        d = tuned(COL_TILE_MAX=on, COL_TILE_RUNS=bool(on), TILECOL=False, **more)
        op = compile_arg(d, dtype, shape, axes)
        v = op.plan.steps[0].variables
        assert (v["strategy"], v["vout"], v["tile_max"], v["walk"]) == \
            ("col", 1, on, walk if on else "carry"), (shape, axes, more, op.plan.notes)
        split, chunk = op.plan.notes["split"], op.plan.notes["chunk"]
        if walk == "tile" and on:
            assert split > 1 and chunk % 16 == 0, op.plan.notes
            if more:  # (splits that start mid-run)
                assert chunk % shape[2] != 0, op.plan.notes
        x = tied_ends(rng, shape, dtype, axes)
        t = dg.asarray(x, device=d)
        check(x, axes, tensor=t, combos=combos_for(dtype))
        y = random_values(rng, shape, dtype)
        check(y, axes, tensor=dg.asarray(y, device=d), combos=HALF, index_dtype="int64")
        rev = (slice(None),) * axes[-1] + (slice(None, None, -1),)
        check(x[rev], axes, tensor=t[rev], combos=HALF)  # (the inner reduced dim reversed)
        check(x[1:], axes, tensor=t[1:], combos=HALF)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "int16", "uint16"])
def test_tile_columns(tuned, dtype):
    """8/16-bit column reductions ("tilecol") read a word of neighbouring outputs per
    thread, row groups of a workgroup over the reduced range, merged in workgroup memory:
    one row group (two rows) or several, a reduction not a whole number of tiles, split over
    workgroups and merged (output- and split-major partials), one, two and three reduced
    dims, a kept dim under a workgroup's width; views starting mid-word (two words joined per
    load), reversed views (negative strides). Odd or narrow kept widths stay "col" /
    "interleave" / "lanes"."""
    # (the row groups the cases below expect; splits merged in the split pass)
    d = tuned(MERGE_COL_MIN_OUT=64, ARG_TILECOL_MIN_ROWS=64, TILECOL_MIN_RED=0)
    rng = rng_for("tile columns", dtype)
    pw = 4 if np.dtype(dtype).itemsize == 1 else 2
    full = dtype in FULL_DTYPES  # (the others: the lane code, on fewer plans: lavapipe time)
    cases = (((2, 4096), (0,), 1, False),
             ((61, 3000), (0,), 1, False),
             ((700, 512), (0,), 8, True),
             ((5000, 96), (0,), 8, True),
             ((4000, 32), (0,), None, True),
             ((3, 1999, 32), (1,), 16, True),
             ((2, 30, 4, 128), (0, 2), 1, False),
             ((40, 30, 70, 64), (0, 2), None, True),
             ((3, 20, 2, 3, 2, 128), (0, 2, 4), 1, False),
             ((9, 20, 11, 3, 6, 128), (0, 2, 4), None, True),
             ((61, 129), (0,), 0, False),
             ((3000, 2), (0,), 0, False))
    for shape, axes, ry, split in cases if full else cases[1:8:3]:
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        if ry == 0:
            assert notes["strategy"] in ("col", "interleave", "lanes"), (shape, notes)
        else:
            assert notes["strategy"] == "tilecol" and notes["packed"], (shape, notes)
            assert ry is None or notes["row_groups"] == ry, (shape, notes)
            assert ry != 1 or notes["row_groups"] == 1
            assert (notes["split"] > 1) is split, (shape, notes)
        x = random_values(rng, shape, dtype)
        check(x, axes, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
    # splits merged by a pass of their own (TALLY_MERGE off): a thread an output over
    # split-major partials ("col", MERGE_COL_MIN_OUT outputs or more), a workgroup an output
    # over output-major ones ("row")
    dm = tuned(MERGE_COL_MIN_OUT=64, ARG_TILECOL_MIN_ROWS=64, TILECOL_MIN_RED=0,
               TALLY_MERGE=False)
    for shape, merge, smajor in (((700, 512), "col", True), ((4000, 32), "row", False)):
        steps = compile_arg(dm, dtype, shape, (0,)).plan.steps
        assert [s.variables["strategy"] for s in steps] == ["tilecol", merge], shape
        assert steps[1].variables["source"] == "partials", shape
        assert steps[0].variables["smajor"] is steps[1].variables["smajor"] is smajor, shape
        x = random_values(rng, shape, dtype)
        check(x, (0,), tensor=dg.asarray(x, device=dm), combos=combos_for(dtype))
    # row groups in one pass; a column of one value, a column of extremes at its last row
    d = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1)
    x = random_values(rng, (700, 512), dtype)
    x[:, 5] = x[0, 5]
    info = np.finfo(dtype) if np.dtype(dtype).kind == "f" else np.iinfo(dtype)
    x[:, 6], x[-1, 6] = info.min, info.max
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape),
                                 dg.TensorDesc("uint32", (1, 512)), (0,)))
    assert op.plan.notes["row_groups"] == 8 and op.plan.notes["split"] == 1, op.plan.notes
    check(x, 0, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
    big = random_values(rng, (700, 64 + pw), dtype)
    # extremes just past the view's columns: a word that strayed there would take them
    big[::2, 65:], big[1::2, 65:] = info.max, info.min
    t = dg.asarray(big, device=d)
    for lo in range(1, pw):
        check(big[:, lo:lo + 64], 0, tensor=t[:, lo:lo + 64], combos=combos_for(dtype))
    check(big[::-1, :64], 0, tensor=t[::-1, :64], combos=combos_for(dtype))
    check(big[:61, 1:1 + 64], 0, tensor=t[:61, 1:1 + 64], combos=combos_for(dtype))
    # two reduced dims, both reversed (negative word strides), 64-bit indices
    x = random_values(rng, (40, 3, 70, 64), dtype)
    t = dg.asarray(x, device=d)[::-1, :, ::-1]
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, t.shape, t.strides),
                                 dg.TensorDesc("int64", (1, 3, 1, 64)), (0, 2)))
    assert op.plan.notes["strategy"] == "tilecol", op.plan.notes
    check(x[::-1, :, ::-1], (0, 2), tensor=t, index_dtype="int64", combos=HALF)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16"])
def test_tile_column_runs(tuned, dtype):
    """TILECOL_TILE_RUNS: tile columns over several reduced dims whose innermost is whole
    tiles (every split's range too) place a tile once, its rows a stride apart: two reduced
    dims and three, split (merged in the pass or by a merge pass) and not, the winner at the
    first and last row of a run and of a tile, ties, NaN, extremes; views mid-word (a row at
    a time) and reversed (negative strides). Not: an innermost reduced dim of no whole tiles
    (its split ranges then not rounded to tiles); off."""
    rng = rng_for("tile column runs", dtype)
    top = np.finfo(dtype).max if dtype == "float16" else np.iinfo(dtype).max
    base = dict(MERGE_COL_MIN_OUT=64, ARG_TILECOL_MIN_ROWS=64, TILECOL_MIN_RED=0,
                ARG_TILECOL_FEW_SPLITS={}, TILECOL_TILE_RUNS=True, TILECOL_DEEP={},
                TARGET_THREADS=tuning.TARGET_THREADS, COL_TARGET_THREADS=tuning.COL_TARGET_THREADS,
                TALLY_MERGE=tuning.TALLY_MERGE)
    one = dict(base, TARGET_THREADS=1, COL_TARGET_THREADS=1)
    seen = set()
    for numbers, shape, axes in ((one, (8, 20, 64, 64), (0, 2)),
                                 (base, (40, 20, 64, 64), (0, 2)),
                                 (dict(base, TALLY_MERGE=False), (40, 20, 64, 64), (0, 2)),
                                 (base, (3, 64, 4, 32, 128), (0, 1, 3))):
        d = tuned(**numbers)
        op = compile_arg(d, dtype, shape, axes)
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "tilecol" and v["multi_red"] and v["tile_run"], notes
        unroll = v["unroll"]
        assert notes["chunk"] % unroll == 0, notes  # (a split's range: whole tiles)
        seen.add((notes["split"] > 1, notes["tally_merge"]))
        x = random_values(rng, shape, dtype)
        red = np.moveaxis(x, axes, range(len(axes)))  # (a view: reduced dims first)
        red[..., 0, :, :] = top  # every run's first row ...
        red[1, ..., -1, 3, :] = top  # ... and last, and a tile's last row
        red[0, ..., unroll - 1, 2, :] = top
        if dtype == "float16":
            red[-1, ..., unroll, 1, :] = np.nan
        t = dg.asarray(x, device=d)
        check(x, axes, tensor=t, combos=combos_for(dtype))
        check(x, axes, tensor=at_offset(x, 1, d), combos=HALF)
        check(x[::-1, :, ::-1], axes, tensor=t[::-1, :, ::-1], combos=HALF)
    assert seen == {(False, False), (True, True), (True, False)}, seen
    # an innermost reduced dim of no whole tiles (a split's range then of any length); off
    d = tuned(**base)
    op = compile_arg(d, dtype, (40, 20, 70, 64), (0, 2))
    assert not op.plan.steps[0].variables["tile_run"] and op.plan.notes["chunk"] % unroll, \
        op.plan.notes
    d = tuned(**dict(base, TILECOL_TILE_RUNS=False))
    assert not compile_arg(d, dtype, (40, 20, 64, 64), (0, 2)).plan.steps[0].variables["tile_run"]


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16", "int8"])
def test_tile_columns_deep(tuned, dtype):
    """TILECOL_DEEP: tile columns that run few threads take 32 rows a thread's tile: one
    reduced dim with a partial last tile, one split or two (merged in the pass, or by a
    pass of their own), tile runs over two reduced dims (a split's range whole tiles of 32;
    an innermost dim of whole tiles of 16 but not of 32 walks without them), 8-bit short
    runs as lanes, views starting mid-word and reversed; ties at both ends, NaN, extremes,
    both ops and directions. Plans of more threads keep REDUCE_UNROLL."""
    rng = rng_for("tile columns deep", dtype)
    bits = np.dtype(dtype).itemsize * 8
    base = dict(MERGE_COL_MIN_OUT=64, ARG_TILECOL_MIN_ROWS=64, TILECOL_MIN_RED=0,
                ARG_TILECOL_FEW_SPLITS={}, TILECOL_DEEP={bits: (1 << 40, 32)})
    # (tuning, shape, axes, what the plan shows: splits, steps, tile runs)
    cases = [(base, (61, 3000), (0,), dict(split=1, steps=1)),
             (base, (700, 512), (0,), dict(split=2, steps=1)),
             (dict(base, TALLY_MERGE=False), (700, 512), (0,), dict(split=2, steps=2)),
             (base, (3, 1999, 32), (1,), dict(split=2)),
             (base, (40, 20, 64, 64), (0, 2), dict(tile_run=True)),
             (base, (40, 20, 48, 64), (0, 2), dict(tile_run=False))]
    if bits == 8:  # (runs of 2 under the kept dim: a word's lanes)
        cases.append((base, (520, 128, 2), (0, 2), dict(run=2)))

    def deep_plan(d, t, axes, expect):
        out = tuple(1 if i in axes else n for i, n in enumerate(t.shape))
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, t.shape, t.strides),
                                     dg.TensorDesc("int64", out), axes))
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "tilecol" and v["unroll"] == 32, (t.shape, notes)
        shown = dict(split=notes["split"], steps=len(op.plan.steps),
                     tile_run=v.get("tile_run"), run=v.get("run"))
        assert {k: shown[k] for k in expect} == expect, (t.shape, notes)
        assert not shown["tile_run"] or notes["chunk"] % 32 == 0, notes

    for numbers, shape, axes, expect in cases:
        d = tuned(**numbers)
        x = tied_ends(rng, shape, dtype, axes)
        t = dg.asarray(x, device=d)
        deep_plan(d, t, axes, expect)
        check(x, axes, tensor=t, combos=combos_for(dtype))
        y = random_values(rng, shape, dtype)
        check(y, axes, tensor=dg.asarray(y, device=d), combos=HALF, index_dtype="int64")
        rev = (slice(None, None, -1),) * (axes[-1] + 1)
        check(x[rev], axes, tensor=t[rev], combos=HALF)
        if len(axes) == 1:  # (a view starting mid-word: the joined loads' variant)
            mid = at_offset(x, 1, d)
            deep_plan(d, mid, axes, expect)
            check(x, axes, tensor=mid, combos=HALF)
    # (every split's threads at the rule's bound or more: REDUCE_UNROLL)
    op = compile_arg(tuned(**dict(base, TILECOL_DEEP={bits: (64, 32)})), dtype, (700, 512),
                     (0,))
    assert op.plan.steps[0].variables["unroll"] == tuning.REDUCE_UNROLL, op.plan.notes


@pytest.mark.parametrize("vout", [2, 4, 8])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_column_outputs_per_thread(tuned, dtype, vout):
    """Short column reductions with COL_VOUT neighbouring outputs a thread: rows of 2, 3
    and 4 over many rows, two- and five-element columns (8/16-bit ones kept from "tilecol";
    8/16-bit columns read as words where the outputs fill whole words, element loads for
    views starting mid-word), reversed and strided kept dims, a split with a merge, 64-bit
    indices; an innermost kept dim that is not a multiple of COL_VOUT keeps one output a
    thread (without COL_VOUT_RAGGED: test_column_ragged_outputs)."""
    every = dict.fromkeys((8, 16, 32, 64), vout)
    # (vector stores and ragged threads: the tests below)
    d = tuned(COL_VOUT=every, TILECOL_MIN_RED=64, ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={},
              COL_VOUT_WORDS={}, COL_VOUT_RAGGED=False, COL_VSTORE=False, ARG_STAGE_ODD=False)
    rng = rng_for("vout", dtype, vout)
    pw = 4 // min(4, np.dtype(dtype).itemsize)
    # (shape, axes, words where the outputs' columns fill them; rows stay element loads:
    # whole rows to a word measured slower, bench/results/argreduce-colwords/)
    cases = [((96, 2), (1,), False), ((24, 4), (1,), False), ((4, 40, 3), (2,), False),
             ((2, 24, 16), (0,), vout % pw == 0), ((5, 8, 16), (0,), vout % pw == 0)]
    for shape, axes, words in cases:
        x = random_values(rng, shape, dtype)
        t = dg.asarray(x, device=d)
        op = compile_arg(d, dtype, shape, axes)
        assert op.plan.notes["outputs_per_thread"] == vout, (shape, op.plan.notes)
        words = words and pw > 1
        assert op.plan.notes["packed"] is words, (shape, op.plan.notes)
        check(x, axes, tensor=t, combos=combos_for(dtype))
        check(x[..., ::-1, :], axes, tensor=t[..., ::-1, :], combos=HALF)  # negative strides
        check(x[::-1], axes, tensor=t[::-1], combos=HALF)
        check(x[::2], axes, tensor=t[::2], combos=HALF, index_dtype="int64")
        for off in range(1, pw) if words else ():  # views starting mid-word: element loads
            check(x, axes, tensor=at_offset(x, off, d), combos=HALF)
    x = random_values(rng, (5, 7, 2), dtype)  # 35 kept: one output a thread
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape), dg.TensorDesc("uint32", (5, 7, 1)),
                                 (2,)))
    assert op.plan.notes["outputs_per_thread"] == 1
    check(x, 2, tensor=dg.asarray(x, device=d), combos=HALF)
    d = tuned(COL_VOUT=every, COL_VOUT_WORDS={}, TILECOL_MIN_RED=64, MIN_COL_CHUNK=4,
              COL_TARGET_THREADS=1 << 14)
    x = random_values(rng, (40, 64), dtype)  # 40 rows split into 10 runs, then merged
    op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape), dg.TensorDesc("uint32", (1, 64)),
                                 (0,)))
    assert op.plan.notes["outputs_per_thread"] == vout and op.plan.notes["split"] > 1
    check(x, 0, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))


def spy_variables(d, pick) -> list:
    """pick(variables) of every pipeline `d` is asked for from now on (until
    `del d.pipelines.get`)."""
    seen, get = [], d.pipelines.get

    def spy(template, **variables):
        seen.append(pick(variables))
        return get(template, **variables)
    d.pipelines.get = spy
    return seen


def vstore_spy(d) -> list:
    """The (vstore, dst_vec) of every argreduce pipeline `d` is asked for from now on."""
    return spy_variables(d, lambda v: (v.get("vstore"), v.get("dst_vec", 1)))


@pytest.mark.parametrize("vout", [2, 4, 8])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_column_vector_stores(tuned, dtype, vout):
    """Column plans' COL_VOUT neighbouring indices stored as whole vectors of words
    (tuning.COL_VSTORE): uint32 and int64 indices (vectors of two or four words), outputs
    in several windows' worth of vectors, reversed and strided inputs; outputs (out=) at
    offsets that are not whole vectors take the scalar variant, strided outputs and a split
    with a merge none; every result exact, the variant asserted."""
    every = dict.fromkeys((8, 16, 32, 64), vout)
    d = tuned(COL_VOUT=every, COL_VOUT_WORDS={}, COL_VSTORE=True, TILECOL_MIN_RED=64,
              ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={})
    rng = rng_for("vstore", dtype, vout)
    seen = vstore_spy(d)
    for shape, axes in (((96, 8), (1,)), ((3, 40, 16), (0,)), ((5, 8, 16), (0,))):
        x = random_values(rng, shape, dtype)
        t = dg.asarray(x, device=d)
        out = tuple(1 if i in axes else n for i, n in enumerate(shape))
        for idx in ("uint32", "int64"):
            op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, shape), dg.TensorDesc(idx, out),
                                         axes))
            words = vout * (2 if idx == "int64" else 1)
            assert op.plan.notes["outputs_per_thread"] == vout, (shape, op.plan.notes)
            assert op.plan.steps[0].variables["vstore"], (shape, idx)
            assert op.plan.steps[0].variables["dst_vec"] == min(4, words)
            seen.clear()
            check(x, axes, tensor=t, index_dtype=idx, combos=combos_for(dtype))
            check(x[::-1], axes, tensor=t[::-1], index_dtype=idx, combos=HALF)
            assert set(seen) == {(True, min(4, words))}, seen
            # into out= views: at offsets of 1 .. a vector's outputs (the scalar variant
            # where the offset is not whole vectors), and strided (no vector stores)
            n_vec = min(4, words) // (2 if idx == "int64" else 1)
            for off in range(n_vec + 1):
                flat = dg.empty((off + int(np.prod(out)),), idx, device=d)
                dst = flat[off:].reshape(out)
                seen.clear()
                got = dg.argmin(t, axes, index_dtype=idx, out=dst)
                assert_same(got, arg_reference(x, axes, "min", False, idx))
                assert set(seen) == {(off % n_vec == 0, min(4, words) if off % n_vec == 0
                                      else 1)}, (off, seen)
            wide = dg.empty(out[:-1] + (2 * out[-1],), idx, device=d)
            got = dg.argmax(t, axes, index_dtype=idx, out=wide[..., ::2])
            assert_same(got, arg_reference(x, axes, "max", False, idx))
    # outputs bound as several windows (4 KiB each, whole vectors)
    d = dg.Device(max_binding_size=4096)
    seen = vstore_spy(d)
    x = random_values(rng, (2, 1200), dtype)  # (8-byte indices: 3 windows)
    check(x, 0, tensor=dg.asarray(x, device=d), combos=HALF, index_dtype="int64")
    assert set(seen) == {(True, min(4, 2 * vout))}, seen
    d = tuned(COL_VOUT=every, COL_VOUT_WORDS={}, COL_VSTORE=True, TILECOL_MIN_RED=64,
              MIN_COL_CHUNK=4, COL_TARGET_THREADS=1 << 14)
    x = random_values(rng, (40, 64), dtype)  # 40 rows split into 10 runs, then merged
    op = compile_arg(d, dtype, x.shape, (0,))
    assert op.plan.notes["split"] > 1 and not op.plan.steps[0].variables["vstore"]
    check(x, 0, tensor=dg.asarray(x, device=d), combos=HALF)


@pytest.mark.parametrize("reps", [2, 4])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_column_groups_per_thread(tuned, dtype, reps):
    """Column plans with COL_REPS groups of COL_VOUT outputs a thread, a workgroup's width
    apart: whole words of columns, element loads (rows of 2 and 3, strided kept dims that do
    not merge, a view starting mid-word), rows of whole words; outputs that end inside a
    thread's later groups (those groups loaded but never stored), int64 indices, out= at an
    offset that is no whole vector (scalar stores) and strided; the groups asserted, and the
    rule's floor on threads."""
    every = dict.fromkeys(("wgpu", "dawn"), dict.fromkeys((8, 16, 32, 64), reps))
    d = tuned(COL_REPS=every, COL_REPS_MIN_THREADS=1, COL_REPS_MAX_RED=64,
              COL_VOUT_WORDS={}, TILECOL_MIN_RED=64, ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={},
              ARG_STAGE_ODD=False)
    rng = rng_for("reps", dtype, reps)
    pw = 4 // min(4, np.dtype(dtype).itemsize)
    wg = tuning.REDUCE_WG
    # (shape, axes, a view): outputs past a workgroup's reps * wg * vout, not a multiple of it
    cases = [((2, 2 * wg * 4 * reps + 4 * 37), (0,)), ((9000, 2), (1,)), ((6000, 3), (1,)),
             ((3000, 4), (1,)), ((5, 12, 1600), (0,))]
    for shape, axes in cases:
        x = random_values(rng, shape, dtype)
        t = dg.asarray(x, device=d)
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        assert (notes["strategy"], notes["col_reps"]) == ("col", reps), (shape, notes)
        assert op.plan.steps[0].variables["reps"] == reps
        check(x, axes, tensor=t, combos=combos_for(dtype))
        check(x, axes, tensor=t, combos=HALF, index_dtype="int64")
        if shape[-1] == 1600:  # kept (12, 800) with strides (1600, 2): two kept dims
            check(x[..., ::2], axes, tensor=t[..., ::2], combos=HALF)
        for off in range(1, pw):  # views starting mid-word: element loads
            check(x, axes, tensor=at_offset(x, off, d), combos=HALF)
        out = tuple(1 if i in axes else n for i, n in enumerate(shape))
        n_out = int(np.prod(out))
        # (into a larger buffer: what lies past the outputs, where a thread's last groups
        # would land, stays as it was)
        host = np.full(1 + n_out + 4 * wg * 4 * reps, 0xA5A5A5A5, np.uint32)
        flat = dg.asarray(host, device=d)
        got = dg.argmin(t, axes, index_dtype="uint32", out=flat[1:1 + n_out].reshape(out))
        assert_same(got, arg_reference(x, axes, "min", False, "uint32"))
        after = flat.numpy()
        assert after[0] == host[0] and (after[1 + n_out:] == host[1 + n_out:]).all(), shape
        wide = dg.empty(out[:-1] + (2 * out[-1],), "uint32", device=d)
        got = dg.argmax(t, axes, index_dtype="uint32", out=wide[..., ::2])
        assert_same(got, arg_reference(x, axes, "max", False, "uint32"))
    # fewer threads than reps * COL_REPS_MIN_THREADS: fewer groups a thread
    d = tuned(COL_REPS=every, COL_REPS_MIN_THREADS=1000, TILECOL_MIN_RED=64)
    vout = tuning.COL_VOUT[np.dtype(dtype).itemsize * 8]
    x = random_values(rng, (2, vout * (1000 * reps - 1)), dtype)  # (reps - 1) * 1000 threads+
    assert compile_arg(d, dtype, x.shape, (0,)).plan.notes["col_reps"] == reps // 2
    check(x, 0, tensor=dg.asarray(x, device=d), combos=HALF)


@pytest.mark.parametrize("reps", [1, 4])
@pytest.mark.parametrize("dtype", ["uint8", "int8"])
def test_sub_word_rows(tuned, dtype, reps):
    """8-bit rows of 2 back to back, two to a word, read a word at a time (ARG_SUB_ROWS):
    ties within a row (the direction picks), the type's extremes, one and four groups a
    thread, two kept dims of whole words; views starting mid-word (half a word included:
    element loads), reversed kept or reduced dims, kept strides of half a word and ragged
    outputs take the element loads; int64 indices and out= at an offset. The path asserted."""
    every = dict.fromkeys(("wgpu", "dawn"), dict.fromkeys((8, 16, 32, 64), reps))
    d = tuned(COL_REPS=every, COL_REPS_MIN_THREADS=1, ROWS_TARGET_THREADS=1,
              ARG_STAGE_WORDS={}, ARG_STAGE_ODD=False, TILECOL_MIN_RED=64)
    rng = rng_for("subrows", dtype, reps)
    info = np.iinfo(dtype)
    seen = spy_variables(d, lambda v: v.get("sub_rows"))

    def rows(shape):
        x = random_values(rng, shape, dtype)
        flat = x.reshape(-1, 2)
        flat[::5, 1] = flat[::5, 0]  # ties
        flat[1::7] = (info.max, info.max)
        flat[2::7] = (info.min, info.max)
        flat[3::7] = (info.max, info.min)
        return x

    for shape, view, sub in (((9000, 2), None, 2), ((6, 1000, 2), None, 2),
                             ((12, 1000, 2), np.s_[::2], 2), ((7, 999, 2), None, 0),
                             ((5, 999, 2), np.s_[:, :996], 0), ((9000, 2), np.s_[::-1], 0),
                             ((9000, 2), np.s_[:, ::-1], 0)):
        x = rows(shape)
        t = dg.asarray(x, device=d)
        if view is not None:
            x, t = x[view], t[view]
        seen.clear()
        check(x, x.ndim - 1, tensor=t, combos=ALL_COMBOS)
        assert set(seen) == {sub}, (shape, view, seen)
        if sub:
            check(x, x.ndim - 1, tensor=t, combos=HALF, index_dtype="int64")
            out = x.shape[:-1] + (1,)
            n_out = int(np.prod(out))
            flat = dg.empty((3 + n_out,), "uint32", device=d)
            got = dg.argmax(t, x.ndim - 1, axis_direction="decreasing",
                            out=flat[3:].reshape(out))
            assert_same(got, arg_reference(x, (x.ndim - 1,), "max", True, "uint32"))
    x = rows((4000, 2))
    for off in (1, 2, 3):  # (half a word in too: the thread's first row not on a word)
        seen.clear()
        check(x, 1, tensor=at_offset(x, off, d), combos=ALL_COMBOS)
        assert 0 in seen, (off, seen)  # (the variant bound; the plan's own is compiled too)


def test_column_tiles_rule():
    """The tuned rule (plans only): wgpu-native's 32-bit columns a thread an output take a
    tile's max and its place without a branch (COL_TILE_MAX "select"); its 64-bit ones,
    Dawn's and Hardmax's (planned without the implementation) an element at a time."""
    shape = (128, 128, 128, 64)
    st = canon.contiguous_strides(shape)
    out = canon.contiguous_strides((1, 128, 1, 64))
    red = canon.reduction(shape, st, out, (0, 2))
    hot = canon.reduction(shape, st, st, (0, 2), red_out=st)
    for webgpu in ("wgpu", "dawn"):
        for dtype in ("float32", "int32", "uint32", "int64", "uint64"):
            dt = dtypes.DTYPES[dtype]
            p = plan.argreduce(red, dt, "max", False, 1, webgpu=webgpu)
            v = p.steps[0].variables
            want = "select" if webgpu == "wgpu" and dt.bits == 32 else False
            assert (v["strategy"], v["tile_max"], v["walk"]) == ("col", want, "carry"), \
                (webgpu, dtype, p.notes)
    p = plan.argreduce(hot, dtypes.DTYPES["float32"], "max", False, 1, sink="onehot",
                       extra=dict(dst_atomic=False))
    v = next(s.variables for s in p.steps if s.variables.get("source") == "input")
    assert (v["strategy"], v["tile_max"]) == ("col", False), p.notes


def test_column_groups_rule():
    """The tuned rule (plans only): two-element columns and rows of 2 over 2^22 outputs take
    the implementation's COL_REPS groups a thread; three-element ones (past
    COL_REPS_MAX_RED), ragged ones and Hardmax's one-hot columns take one."""
    d = dg.Device()
    for dtype in ALL_DTYPES:
        most = tuning.COL_REPS[d.webgpu][np.dtype(dtype).itemsize * 8]
        assert most > 1, (d.webgpu, dtype)
        for shape, axes in (((2, 1 << 22), (0,)), ((1 << 22, 2), (1,))):
            assert compile_arg(d, dtype, shape, axes).plan.notes["col_reps"] == most, shape
        for shape, axes in (((3, 1 << 22), (0,)), ((2, (1 << 22) + 1), (0,))):
            notes = compile_arg(d, dtype, shape, axes).plan.notes
            assert notes["strategy"] == "col" and notes["col_reps"] == 1, (shape, notes)
        if dtype in ("float32", "float16"):
            t = dg.TensorDesc(dtype, (2, 1 << 22))
            op = d.compile(dg.Hardmax1Desc(t, t, (0,)))
            assert all(s.variables.get("reps", 1) == 1 for s in op.plan.steps)


@pytest.mark.parametrize("vstore", [False, True], ids=["scalar", "vector"])
@pytest.mark.parametrize("vout", [2, 4, 8])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_column_ragged_outputs(tuned, dtype, vout, vstore):
    """Column plans of COL_VOUT outputs a thread over one kept dim that is no multiple of
    it (tuning.COL_VOUT_RAGGED): the last thread's outputs fewer, its loads clamped, its
    stores only its own (scalar where vectors would run past the end); 8/16-bit words
    where the kept dim is whole words; views of wider rows and reversed ones, 64-bit
    indices, out= at an offset with its neighbours untouched, a split merged by a pass
    and in the split pass; the plan asserted each time."""
    every = dict.fromkeys((8, 16, 32, 64), vout)
    tune = dict(COL_VOUT=every, COL_VOUT_RAGGED=True, COL_VSTORE=vstore, TILECOL_MIN_RED=64,
                ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={}, ARG_STAGE_ODD=False,
                COL_VOUT_RAGGED_MAX_RED={}, COL_VOUT_WORDS={}, COL_JOIN=False)
    d = tuned(**tune)
    rng = rng_for("ragged", dtype, vout, vstore)
    pw = 4 // min(4, np.dtype(dtype).itemsize)
    for n, m in ((3, vout * 37 + 1), (5, vout * 11 + vout - 1), (2, 2 * vout + 2), (7, 3)):
        if m % vout == 0:
            continue
        x = random_values(rng, (n, m), dtype)
        t = dg.asarray(x, device=d)
        op = compile_arg(d, dtype, x.shape, (0,))
        notes, var = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "col" and notes["outputs_per_thread"] == vout, notes
        assert var["ragged"] and var["vstore"] is vstore
        assert var["col_words"] is (pw > 1 and vout % pw == 0 and m % pw == 0), (m, var)
        check(x, 0, tensor=t, combos=combos_for(dtype))
        check(x[::-1], 0, tensor=t[::-1], combos=HALF, index_dtype="int64")
        wide = random_values(rng, (n, m + 2 * pw + 1), dtype)  # rows of a wider array
        check(wide[:, 1:m + 1], 0, tensor=dg.asarray(wide, device=d)[:, 1:m + 1], combos=HALF)
        # out= inside a larger buffer, at whole vectors and not: the outputs' neighbours
        # keep their sentinel
        for off in (4, 3):
            flat = dg.asarray(np.full(m + 9, 77, np.uint32), device=d)
            got = dg.argmax(t, 0, out=flat[off:off + m].reshape(1, m))
            assert_same(got, arg_reference(x, (0,), "max", False, "uint32"))
            rest = flat.numpy()
            assert (rest[:off] == 77).all() and (rest[off + m:] == 77).all(), rest
    for tally in (False, True):  # a split: a merge pass, or the merge in the split pass
        d = tuned(**tune, MIN_COL_CHUNK=4, COL_TARGET_THREADS=1 << 14, TALLY_MERGE=tally,
                  TALLY_STRATEGIES=("row", "lanes", "tilecol", "col"), TALLY_BITS=(8, 16, 32, 64),
                  TALLY_MAX_PER_THREAD=1 << 20)
        x = random_values(rng, (40, 8 * vout + 3), dtype)
        op = compile_arg(d, dtype, x.shape, (0,))
        assert op.plan.notes["split"] > 1 and op.plan.notes["tally_merge"] is tally
        assert op.plan.steps[0].variables["ragged"], op.plan.notes
        check(x, 0, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
    # ragged only up to COL_VOUT_RAGGED_MAX_RED rows for the element bits
    d = tuned(**dict(tune, COL_VOUT_RAGGED_MAX_RED={8: 16, 16: 16}))
    bits = np.dtype(dtype).itemsize * 8
    for n in (16, 17):
        notes = compile_arg(d, dtype, (n, 2 * vout + 1), (0,)).plan.notes
        assert notes["outputs_per_thread"] == (1 if n > 16 and bits <= 16 else vout), notes


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "uint16", "float32"])
def test_column_words_outputs(tuned, dtype):
    """8/16-bit columns read as words take COL_VOUT_WORDS outputs a thread from
    COL_VOUT_WORDS_MIN_RED to COL_VOUT_WORDS_MAX_RED rows, COL_VOUT outside that and where
    they are element loads (a kept dim that is not whole words); other types keep
    COL_VOUT."""
    d = tuned(COL_VOUT={8: 4, 16: 4, 32: 4, 64: 2}, COL_VOUT_WORDS={8: 8, 16: 8},
              COL_VOUT_WORDS_MIN_RED=4, COL_VOUT_RAGGED=True, COL_JOIN=False, TILECOL_MIN_RED=64,
              ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={}, ARG_STAGE_ODD=False)
    rng = rng_for("col words vout", dtype)
    narrow = np.dtype(dtype).itemsize < 4
    for n, m, vout, words in ((4, 64, 8, True), (9, 40, 8, True), (3, 64, 4, True),
                              (tuning.COL_VOUT_WORDS_MAX_RED + 1, 64, 4, True),
                              (4, 66, 4 if dtype in ("uint8", "int8") else 8,
                               dtype not in ("uint8", "int8"))):
        x = random_values(rng, (n, m), dtype)
        op = compile_arg(d, dtype, x.shape, (0,))
        want = (vout, words) if narrow else (4, False)
        got = (op.plan.notes["outputs_per_thread"], op.plan.steps[0].variables["col_words"])
        assert got == want, (n, m, op.plan.notes)
        check(x, 0, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))


@pytest.mark.parametrize("vout", [4, 8])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "int16", "uint16"])
def test_column_joined_words(tuned, dtype, vout):
    """8/16-bit columns whose rows do not start on a word (tuning.COL_JOIN): an odd kept
    dim, rows of a wider array, views at each place in a word, reversed rows (each row's
    shift its own), short columns and long ones split (merged by a pass and in the split
    pass), the last thread's outputs ragged, 64-bit indices, ties, NaN and extremes; the
    plan asserted each time, off it takes element loads."""
    tune = dict(COL_JOIN=True, COL_JOIN_VOUT={8: vout, 16: vout}, COL_JOIN_MAX_RED=1 << 30,
                TILECOL_MIN_RED=1 << 20, ROWS_TARGET_THREADS=1, ARG_STAGE_WORDS={},
                ARG_STAGE_ODD=False)
    d = tuned(**tune)
    rng = rng_for("joined words", dtype, vout)
    pw = 4 // np.dtype(dtype).itemsize

    def joined(x, t, idx="uint32", combos=HALF):
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, t.shape, t.strides),
                                     dg.TensorDesc(idx, (1,) + t.shape[1:]), (0,)))
        v = op.plan.steps[0].variables
        assert op.plan.notes["strategy"] == "col" and v["col_join"], op.plan.notes
        assert op.plan.notes["outputs_per_thread"] == vout, op.plan.notes
        check(x, 0, tensor=t, combos=combos, index_dtype=idx)
        return op

    for n, m in ((3, 8 * vout + 1), (7, 2 * vout + pw + 1), (70, 4 * vout + 3)):
        x = random_values(rng, (n, m), dtype)
        t = dg.asarray(x, device=d)
        joined(x, t, combos=combos_for(dtype))
        joined(x[::-1], t[::-1], idx="int64")  # (a negative row stride)
        for off in range(1, pw):  # views at each place in a word
            joined(x, at_offset(x, off, d))
        wide = random_values(rng, (n, m + pw + 2), dtype)  # rows of a wider array
        joined(wide[:, 1:m + 1], dg.asarray(wide, device=d)[:, 1:m + 1])
    v = compile_arg(tuned(**dict(tune, COL_JOIN=False)), dtype, (3, 8 * vout + 1),
                    (0,)).plan.steps[0].variables
    assert not v.get("col_join") and not v.get("col_words"), v  # (element loads)
    for n in (32, 33):  # columns up to COL_JOIN_MAX_RED rows
        v = compile_arg(tuned(**dict(tune, COL_JOIN_MAX_RED=32)), dtype, (n, 8 * vout + 1),
                        (0,)).plan.steps[0].variables
        assert bool(v.get("col_join")) is (n <= 32), (n, v)
    # past it, rows of a wider array keep COL_VOUT element loads (not a thread an output)
    op = tuned(**dict(tune, COL_JOIN_MAX_RED=32)).compile(dg.ArgMaxDesc(
        dg.TensorDesc(dtype, (40, 64), (65, 1)), dg.TensorDesc("uint32", (1, 64)), (0,)))
    assert op.plan.notes["outputs_per_thread"] == tuning.COL_VOUT[8 * np.dtype(dtype).itemsize]
    assert not op.plan.steps[0].variables["col_join"]
    # a long column split: merged by a pass, then in the split pass
    for tally in (False, True):
        d = tuned(**tune, MIN_COL_CHUNK=4, COL_TARGET_THREADS=1 << 14, TALLY_MERGE=tally,
                  TALLY_STRATEGIES=("row", "lanes", "tilecol", "col"), TALLY_BITS=(8, 16, 32, 64),
                  TALLY_MAX_PER_THREAD=1 << 20)
        x = random_values(rng, (301, 4 * vout + 1), dtype)
        op = joined(x, dg.asarray(x, device=d), combos=combos_for(dtype))
        assert op.plan.notes["split"] > 1 and op.plan.notes["tally_merge"] is tally


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "int16", "uint16"])
def test_tile_columns_joined_rows(tuned, dtype):
    """Tile columns over rows that do not start on a word (tuning.TILECOL_JOIN): an odd
    kept dim (the last word's outputs ragged), rows of a wider array, reversed rows, views
    at each place in a word; one row group and several, splits merged by a pass and in the
    split pass (unpacked and packed); ties, NaN, extremes, both ops and directions, 64-bit
    indices; the plan asserted each time, off it keeps element loads."""
    tune = dict(TILECOL_JOIN={8: 1, 16: 1}, ARG_TILECOL_MIN_ROWS=4, TILECOL_MIN_ROWS=4,
                ARG_TILECOL_JOIN_MIN_ROWS={}, TILECOL_MIN_RED=16, COL_JOIN=False)
    d = tuned(**tune)
    rng = rng_for("tile columns joined", dtype)
    pw = 4 // np.dtype(dtype).itemsize

    def joined(x, t, idx="uint32", combos=HALF, ry=None):
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, t.shape, t.strides),
                                     dg.TensorDesc(idx, (1,) + t.shape[1:]), (0,)))
        v = op.plan.steps[0].variables
        assert op.plan.notes["strategy"] == "tilecol" and v["row_join"], op.plan.notes
        if ry is not None:
            assert (v["ry"] > 1) is ry, op.plan.notes
        check(x, 0, tensor=t, combos=combos, index_dtype=idx)
        return op

    for n, m, ry in ((20, 8 * pw + 1, False), (300, 37, True), (130, 8 * pw + pw + 1, True)):
        # (one row group: at least 16 rows each)
        d = tuned(**dict(tune, ARG_TILECOL_MIN_ROWS=4 if ry else 16))
        x = random_values(rng, (n, m), dtype)
        t = dg.asarray(x, device=d)
        joined(x, t, combos=combos_for(dtype), ry=ry)
        joined(x[::-1], t[::-1], idx="int64")  # (a negative row stride)
        for off in range(1, pw):  # views at each place in a word
            joined(x, at_offset(x, off, d))
        wide = random_values(rng, (n, m + pw + 2), dtype)  # rows of a wider array
        joined(wide[:, 1:m + 1], dg.asarray(wide, device=d)[:, 1:m + 1])
        # out= inside a larger buffer: the last word's lanes past the outputs not stored
        flat = dg.asarray(np.full(m + 9, 77, np.uint32), device=d)
        got = dg.argmin(t, 0, out=flat[4:4 + m].reshape(1, m))
        assert_same(got, arg_reference(x, (0,), "min", False, "uint32"))
        rest = flat.numpy()
        assert (rest[:4] == 77).all() and (rest[4 + m:] == 77).all(), rest
    off = tuned(**dict(tune, TILECOL_JOIN={}))
    assert arg_notes(off, dtype, (300, 37), (0,))["strategy"] == "col"
    # joined rows' own least rows a row group (ARG_TILECOL_JOIN_MIN_ROWS, by element bits):
    # more row groups for them, none for rows that start on words
    few = dict(tune, ARG_TILECOL_MIN_ROWS=64)
    # (as many row groups as a workgroup has beside its block's words: 10 or 19 words wide)
    for shape, ry in (((300, 37), 16 if pw == 4 else 8), ((300, 36 if pw == 4 else 38), 4)):
        assert arg_notes(tuned(**few), dtype, shape, (0,))["row_groups"] == 4, shape
        d = tuned(**dict(few, ARG_TILECOL_JOIN_MIN_ROWS={32 // pw: 8}))
        assert arg_notes(d, dtype, shape, (0,))["row_groups"] == ry, shape
        x = random_values(rng, shape, dtype)
        check(x, 0, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
    # a long column split, each split's best packed into one word an output in the split
    # pass (tuning.TALLY_PACK, as such columns are planned at these splits) ...
    d = tuned(**tune)
    x = random_values(rng, (2001, 45), dtype)
    op = joined(x, dg.asarray(x, device=d), combos=combos_for(dtype))
    assert op.plan.notes["split"] > 1 and op.plan.notes["tally_pack"], op.plan.notes
    for tally in (False, True):  # ... merged by a pass, unpacked in the split pass
        d = tuned(**tune, COL_TARGET_THREADS=1 << 14, TARGET_THREADS=1 << 14,
                  TALLY_MERGE=tally, TALLY_STRATEGIES=("row", "lanes", "tilecol", "col"),
                  TALLY_BITS=(8, 16, 32, 64), TALLY_MAX_PER_THREAD=1 << 20)
        x = random_values(rng, (2001, 45), dtype)
        op = joined(x, dg.asarray(x, device=d), combos=combos_for(dtype))
        assert op.plan.notes["split"] > 1 and op.plan.notes["tally_merge"] is tally
        assert not op.plan.notes["tally_pack"], op.plan.notes


@pytest.mark.parametrize("dtype", FULL_DTYPES)
def test_split_reductions(dev, dtype):
    """Long rows with few outputs: several workgroups per output, then a merge pass."""
    rng = rng_for("split", dtype)
    x = planted(rng, (3, 300001), dtype)
    check(x, 1)
    check(x[1], None)
    check(x[:, 1:], 1, tensor=dg.asarray(x)[:, 1:], combos=ALL_COMBOS[2:])


# Split plans of each strategy at lavapipe sizes (splits forced by the tuning below):
# (shape, axes, the strategies the dtypes' plans take)
TALLY_CASES = (((1, 50001), (1,), {"row"}),              # a row of one output
               ((3, 20001), (1,), {"row"}),              # rows of several
               ((20000, 7), (0,), {"interleave"}),       # a narrow inner kept dim
               ((30000, 2), (0,), {"interleave", "lanes"}),  # (8/16-bit: word lanes)
               ((5000, 300), (0,), {"col", "tilecol"}),  # columns, a block past the last
               ((64, 40, 64), (0, 1), {"col", "tilecol"}),   # two reduced dims
               ((2000, 33, 4), (0, 2), {"row", "tilecol"}))  # short runs under a kept
# dim (8-bit: as lanes of words, which the unpacked merge cannot key again: a merge pass;
# packed, nothing is keyed again: one pass)


TALLY_MERGE_CASES = {"tally-batch": (True, 8, True), "tally-loop": (True, 0, True),
                     "tally-keyed": (True, 8, False), "merge-pass": (False, 0, True)}


# (the merge pass for one dtype of 32 and of 8 bits here: 16-bit keys and column splits
# take it by default, TALLY_MERGE=False elsewhere in this file)
@pytest.mark.parametrize("dtype, tally, batch, codes", [
    pytest.param(d, *case, id=f"{d}-{c}") for d in FULL_DTYPES + ("int8",)
    for c, case in TALLY_MERGE_CASES.items() if c != "merge-pass" or d in ("float32", "uint8")])
def test_tally_merge(tuned, dtype, tally, batch, codes):
    """Split plans merge in the split pass (tuning.TALLY_MERGE): each workgroup stores its
    outputs' partials in the device's tally buffer and counts itself in; the last of a
    block's workgroups merges them, taking their keys from the partials' words (8/16-bit
    keys, TALLY_CODES: the key over the index's code) or from the input again. Every
    strategy that splits, a thread merging one partial or several (loaded together,
    TALLY_BATCH, or one at a time), blocks past the last output, ties, NaN and extremes,
    both ops and directions; the plan's choice asserted each way (the merge pass
    otherwise), and the tally buffer all 0 again after the calls."""
    rng = rng_for("tally", dtype)
    bits = np.dtype(dtype).itemsize * 8
    d = tuned(TALLY_MERGE=tally, TALLY_BATCH=batch, TALLY_CODES=codes,
              TALLY_MAX_PER_THREAD=1 << 20,
              TALLY_CAP_SPLIT=False, TALLY_PACK={},
              TALLY_BITS=(8, 16, 32, 64), TALLY_STRATEGIES=("row", "lanes", "tilecol", "col"),
              TARGET_THREADS=1 << 16, MIN_ROW_CHUNK=1024,
              PACKED_ROW_CHUNK_WORDS=512, MIN_COL_CHUNK=16, ARG_TILECOL_MIN_ROWS=16,
              ARG_TILECOL_RUN_MIN_ROWS={},
              COL_VOUT=dict.fromkeys((8, 16, 32, 64), 1), COL_VOUT_WORDS={})
    seen, batched = set(), set()
    for shape, axes, strategies in TALLY_CASES:
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        assert notes["strategy"] in strategies and notes["split"] > 1, (shape, notes)
        runs = notes["lanes_per_output"] > 1
        assert notes["tally_merge"] is (tally and not runs), (shape, notes)
        assert notes["tally_codes"] is (tally and not runs and codes and bits <= 16), notes
        assert len(op.plan.steps) == 2 - notes["tally_merge"], (shape, notes)
        seen.add(notes["strategy"])
        batched.add(op.plan.steps[0].variables.get("tally_n", 0))
        x = random_values(rng, shape, dtype)
        check(x, axes, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
    assert seen >= ({"row", "interleave", "col"} if dtype in ("float32", "int64") else
                    {"row", "tilecol", "lanes"} if dtype == "float16" else
                    {"row", "tilecol", "interleave"}), seen
    # (batches of one and of several partials a thread; none where TALLY_BATCH is 0)
    assert (batched - {0, 1} and 1 in batched) if tally and batch else batched == {0}, batched
    if tally:  # every word read and set back to 0 (a bound plan's share: its tally_bytes)
        assert d._tally is not None and not d.download(d._tally.buffer, 0, d._tally.size).any()
    if tally and codes and bits == 16:  # (the longest reduction whose indices fit: 2^16 - 1)
        for n, fits in ((65535, True), (65536, False)):
            op = compile_arg(d, dtype, (2, n), (1,))
            assert op.plan.notes["tally_merge"], op.plan.notes
            assert op.plan.notes["tally_codes"] is fits, (n, op.plan.notes)
            x = planted(rng, (2, n), dtype)  # (the max at the last index too)
            check(x, 1, tensor=dg.asarray(x, device=d))
    # several partials a thread in the merge, an odd number of them: columns, a block of
    # outputs a workgroup
    for n in (624, 1200, 2000, 2800):
        op = d.compile(dg.ArgMinDesc(dg.TensorDesc(dtype, (n, 256)),
                                     dg.TensorDesc("int64", (1, 256)), (0,)))
        notes, var = op.plan.notes, op.plan.steps[0].variables
        assert notes["tally_merge"] is tally, notes
        per = -(-notes["split"] // var.get("tally_tpo", 1))
        if per >= 3 and per % 2 == 1:
            assert var.get("tally_n", 0) == (per if tally and per <= batch else 0), var
            break
    else:
        raise AssertionError(f"no odd number of partials a thread: {notes}")
    x = random_values(rng, (n, 256), dtype)
    check(x, 0, tensor=dg.asarray(x, device=d), index_dtype="int64", combos=HALF)


@pytest.mark.parametrize("dtype", ("uint8", "int8", "float16", "uint16", "int16"))
def test_tally_pack(tuned, dtype):
    """8/16-bit keys whose indices fit beside them (tuning.TALLY_PACK): each split's best
    of an output folded into one tally word by atomicMax, (key << (32 - bits)) | the
    index's code; the last workgroup of a block decodes the words. Every strategy that
    splits, blocks past the last output, ties, NaN and extremes, both ops and directions,
    the largest index range that fits (16-bit: 65536, 8-bit: 2^24, its last index the
    answer), ranges whose indices' top bits stand in the word (TALLY_PACK_SHIFT: 16-bit 2^17
    to 2^19 indices, 8-bit 2^24 + 1; ties within the elements one code stands for) and the
    first too long for that (a merge pass, or the unpacked merge in the pass); the tally
    buffer all 0 again after the calls. A wrong code, the key's shift or a word left set
    fails it (one reduction of the buffer's stale words into the next call's)."""
    rng = rng_for("tally pack", dtype)
    d = tuned(TALLY_MERGE=True, TALLY_PACK={8: True, 16: True}, TALLY_BITS=(32, 64),
              TALLY_ROW_BITS=(), TALLY_PACK_SHIFT=3,
              TALLY_STRATEGIES=("row", "lanes", "tilecol", "col"),
              TARGET_THREADS=1 << 16, MIN_ROW_CHUNK=1024,
              PACKED_ROW_CHUNK_WORDS=512, MIN_COL_CHUNK=16, ARG_TILECOL_MIN_ROWS=16,
              ARG_TILECOL_RUN_MIN_ROWS={},
              COL_VOUT=dict.fromkeys((8, 16, 32, 64), 1), COL_VOUT_WORDS={})
    combos = ALL_COMBOS if dtype in ("uint8", "float16") else HALF
    seen, runs = set(), False
    for shape, axes, strategies in TALLY_CASES:
        op = compile_arg(d, dtype, shape, axes)
        notes = op.plan.notes
        assert notes["strategy"] in strategies and notes["split"] > 1, (shape, notes)
        assert notes["tally_pack"] and notes["tally_merge"], (shape, notes)  # (runs too)
        runs |= notes["lanes_per_output"] > 1
        assert len(op.plan.steps) == 2 - notes["tally_merge"], (shape, notes)
        if notes["tally_pack"]:
            n_out = int(np.prod([n for i, n in enumerate(shape) if i not in axes]))
            # (a word an output, and a counter a block)
            assert n_out < op.plan.tally_bytes // 4 <= 2 * n_out, (shape, op.plan.tally_bytes)
        seen.add(notes["strategy"])
        for _ in range(2):  # (a second call reads what the first left in the buffer)
            x = random_values(rng, shape, dtype)
            check(x, axes, tensor=dg.asarray(x, device=d), combos=combos)
    assert runs is dtype.endswith("8"), dtype  # (8-bit short runs as lanes of words)
    assert seen >= {"row", "tilecol", "lanes" if dtype.endswith("16") else "interleave"}, seen
    bits = np.dtype(dtype).itemsize * 8
    # 2^(32 - bits) indices fit; past that the word holds their top bits (a shift of 1, 2, 3:
    # the merge finds the index among the 2^shift they stand for). 16-bit up to
    # 2^(16 + TALLY_PACK_SHIFT); 8-bit to 2^24 + 1, the default plan of such a row
    for shift in range(4 if bits == 16 else 2):
        n = (1 << (31 - bits + shift)) + 1 if shift else 1 << (32 - bits)
        x = np.zeros((5, n), dtype)
        x[0, -1] = x[1, 0] = x[1, -1] = 1  # the last index wins, then a tie at the ends
        g = (n // 3) >> shift << shift  # a group of 2^shift indices mid-row
        x[2, 7::5000] = 3
        x[2, [g, g + (1 << shift) - 1]] = 4  # a tie within one group (its ends)
        x[3] = random_values(rng, n, dtype)  # ties, NaN, extremes
        x[4] = 2
        x[4, [g, g + (1 << shift) - 1]] = 0  # (ArgMin) a tie at a group's ends
        op = compile_arg(d, dtype, x.shape, (1,))
        notes = op.plan.notes
        assert notes["tally_pack"] and notes["split"] > 1, (shift, notes)
        assert op.plan.steps[0].variables["pack_shift"] == shift, shift
        check(x, 1, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
    if bits == 16:
        # short runs as lanes of words (their walk leaves the run's dim out, so nothing of
        # them can be keyed again): packed while the indices fit, a merge pass past that
        for shape, packed in (((30000, 64, 2), True), ((40000, 64, 2), False)):
            notes = compile_arg(d, dtype, shape, (0, 2)).plan.notes
            assert (notes["lanes_per_output"], notes["tally_pack"]) == (2, packed), notes
            x = random_values(rng, shape, dtype)
            check(x, (0, 2), tensor=dg.asarray(x, device=d), combos=combos)
        # ... under the other strategies that split (their decode through red_offset)
        for shape, axes, strategy, shift in (((1 << 17, 2), (0,), "lanes", 1),
                                             ((300, 300, 2), (0, 1), "lanes", 1),
                                             ((70001, 8), (0,), "interleave", 1),
                                             ((140000, 32), (0,), "tilecol", 2)):
            notes = compile_arg(d, dtype, shape, axes).plan
            assert (notes.notes["strategy"], notes.notes["tally_pack"],
                    notes.steps[0].variables["pack_shift"]) == (strategy, True, shift), shape
            x = random_values(rng, shape, dtype)
            check(x, axes, tensor=dg.asarray(x, device=d), combos=combos)
        # more bits than a thread an output keys (TALLY_PACK_SHIFT): a block's outputs share
        # the last workgroup (64 threads here), each thread keying up to
        # TALLY_PACK_COOP_LOADS of a code's elements; a row of 2^23 + 1 (8 bits, 4 a thread)
        # and word lanes of 2^20 (4 bits, 1 a thread)
        dc = tuned(REDUCE_WG=64)
        for shape, axes, shift, tpo in ((((1 << 23) + 1,), (0,), 8, 64),
                                        ((1 << 20, 2), (0,), 4, 32)):
            v = compile_arg(dc, dtype, shape, axes).plan.steps[0].variables
            assert (v["tally_pack"], v["pack_shift"], v["pack_tpo"]) == (True, shift, tpo), v
            x = np.zeros(shape, dtype)
            flat = x.reshape(-1)
            flat[rng.integers(0, flat.size, 50)] = 3  # ties far apart, some in one code
            g = flat.size // 3 >> shift << shift
            flat[[g + 5, g + (1 << shift) - 2, flat.size - 1]] = 3
            flat[rng.integers(0, flat.size, 20)] = 0  # (ArgMin: zeros everywhere else)
            check(x, axes, tensor=dg.asarray(x, device=dc), combos=ALL_COMBOS)
            x = random_values(rng, shape, dtype)
            check(x, axes, tensor=dg.asarray(x, device=dc), combos=ALL_COMBOS)
        assert not dc.download(dc._tally.buffer, 0, dc._tally.size).any()
        # ... both decodes keying through an input in several bindings of 1 MiB
        dw = dg.Device(max_binding_size=1 << 20)
        for shape, axes, tpo in (((3, 1 << 19), (1,), 1), ((1 << 20, 2), (0,), 32)):
            assert compile_arg(dw, dtype, shape, axes).plan.steps[0].variables["pack_tpo"] == tpo
            x = random_values(rng, shape, dtype)
            t = dg.asarray(x, device=dw)
            assert n_windows(t, dw) >= 3
            check(x, axes, tensor=t, combos=combos)
        dn = tuned(REDUCE_WG=256, TALLY_PACK_COOP_LOADS=0)  # (none shared: a merge pass)
        assert not compile_arg(dn, dtype, ((1 << 23) + 1,), (0,)).plan.notes["tally_pack"]
        op = compile_arg(dn, dtype, (3, (1 << 19) + 1), (1,))
        assert not op.plan.notes["tally_pack"] and op.plan.notes["split"] > 1, op.plan.notes
        assert not op.plan.notes["tally_merge"], op.plan.notes  # (not in TALLY_BITS)
    # every word read and set back to 0
    assert d._tally is not None and not d.download(d._tally.buffer, 0, d._tally.size).any()


def test_tally_merge_choice(tuned):
    """Where the merge runs: in the split pass where one workgroup merges a block's
    partials in at most TALLY_MAX_PER_THREAD loads a thread, for the strategies and
    element bits tuning names (with TALLY_CAP_SPLIT a row of one output splits at most
    512 ways, where that leaves TALLY_CAP_MIN_THREADS running); a merge pass elsewhere and
    for Hardmax's one-hot. (PACKED_ROW_GROUPS off: it caps uint8's splits too.)"""
    def notes(d, dtype, shape, axes):
        return compile_arg(d, dtype, shape, axes).plan
    d = tuned(TALLY_CAP_SPLIT=False, PACKED_ROW_GROUPS=0, TALLY_ROW_BITS=(), TALLY_PACK={})
    p = notes(d, "uint8", (1 << 22,), (0,))  # (a plan only: nothing is uploaded)
    assert p.notes["tally_merge"] and p.notes["split"] == 32 and len(p.steps) == 1, p.notes
    assert p.tally_bytes == (32 + 1) * 4
    assert notes(d, "float32", (1 << 22,), (0,)).notes["tally_merge"]
    assert notes(d, "int64", (1 << 22,), (0,)).notes["tally_merge"]
    for dtype, shape in (("float16", (1 << 22,)), ("uint16", (1 << 22,)),  # (bits)
                         ("uint8", (1 << 28,)),  # (2048 ways: 8 partials a thread)
                         ("float32", (1 << 16, 512))):  # (columns: not a strategy named)
        p = notes(d, dtype, shape, (0,))
        assert not p.notes["tally_merge"] and len(p.steps) == 2, (dtype, p.notes)
    # ... where packed (TALLY_PACK): 1024 ways, the index's top 24 of 27 bits, a thread an
    # output keying the 8 its code stands for; 2^28: 4 bits over, the workgroup keying 16;
    # 16-bit 2^22: 6 bits, 64
    d = tuned(TALLY_PACK={8: True, 16: True}, TALLY_PACK_SHIFT=3, TALLY_PACK_COOP_LOADS=4)
    for dtype, n, shift, tpo in (("uint8", 1 << 27, 3, 1), ("uint8", 1 << 28, 4, 256),
                                 ("float16", 1 << 22, 6, 256)):
        v = notes(d, dtype, (n,), (0,)).steps[0].variables
        assert (v["tally_pack"], v["pack_shift"], v["pack_tpo"]) == (True, shift, tpo), v
    d = tuned(TALLY_STRATEGIES=("col",), TALLY_BITS=(32,), COL_TARGET_THREADS=1 << 20)
    p = notes(d, "float32", (1 << 16, 512), (0,))  # split 1024 ways, 256 outputs a block
    assert not p.notes["tally_merge"] and p.notes["split"] == 1024, p.notes
    t = dg.TensorDesc("float32", (1, 1 << 22))
    assert not d.compile(dg.Hardmax1Desc(t, t, (1,))).plan.tally_bytes
    d = tuned(TALLY_CAP_SPLIT=True, TALLY_STRATEGIES=("row",), TALLY_BITS=(8,))
    p = notes(d, "uint8", (1 << 27,), (0,))
    assert p.notes["tally_merge"] and p.notes["split"] == 512 and len(p.steps) == 1, p.notes
    d = tuned(TALLY_CAP_SPLIT=True, TALLY_CAP_MIN_THREADS=1 << 30, TALLY_PACK={})
    p = notes(d, "uint8", (1 << 27,), (0,))
    assert not p.notes["tally_merge"] and p.notes["split"] > 512, p.notes
    # 8/16-bit keys packed with their indices (TALLY_PACK) where the unpacked merge in the
    # pass is not taken (more loads a thread, or bits not TALLY_BITS), and the indices fit
    d = tuned(TALLY_PACK={8: True, 16: True}, TALLY_CAP_SPLIT=False, TALLY_BITS=(8, 32, 64),
              TALLY_STRATEGIES=("row", "lanes", "tilecol"), COL_TARGET_THREADS=1 << 17,
              TALLY_PACK_FIRST=())
    for dtype, shape, axes, pack in (("uint8", (2, 4096, 8192), (1,), False),  # 2 a thread
                                     ("uint8", (2, 256, 256, 1024), (1, 2), True),  # 32 ways
                                     ("float16", (2, 4096, 8192), (1,), True),  # 16-bit
                                     ("uint8", (1 << 25,), (0,), False),  # 2^25 indices
                                     ("float32", (1 << 16, 512), (0,), False)):  # 32-bit
        p = notes(d, dtype, shape, axes)
        assert p.notes["split"] > 1 and p.notes["tally_pack"] is pack, (dtype, shape, p.notes)
        assert p.notes["tally_merge"] is (pack or dtype == "uint8"), (dtype, shape, p.notes)
    # ... and rows packed first (TALLY_PACK_FIRST) where they split at least _MIN_SPLIT ways
    d = tuned(TALLY_PACK_FIRST=("row",), TALLY_PACK_FIRST_MIN_SPLIT=4)
    p = notes(d, "uint8", (1 << 25,), (0,))
    assert (p.notes["split"], p.notes["tally_pack"]) == (256, True), p.notes
    d = tuned(TALLY_PACK_FIRST_MIN_SPLIT=512)
    assert notes(d, "uint8", (1 << 25,), (0,)).notes["tally_pack"] is False
    d = tuned(TALLY_PACK={16: True}, TALLY_PACK_FIRST_MIN_SPLIT=4)
    assert not notes(d, "uint8", (2, 256, 256, 1024), (1, 2)).notes["tally_pack"]
    # 16-bit row plans merged in the pass unpacked (TALLY_ROW_BITS), other plans not
    for row_bits in ((), (16,)):
        d = tuned(TALLY_ROW_BITS=row_bits, TALLY_PACK={})
        p = notes(d, "float16", (2, 4096, 8192), (1, 2))  # two rows of 2^25, split
        assert p.notes["strategy"] == "row" and p.notes["split"] > 1, p.notes
        assert p.notes["tally_merge"] is bool(row_bits), p.notes
        p = notes(d, "float16", (2, 4096, 8192), (1,))  # tile columns, split
        assert p.notes["strategy"] == "tilecol" and not p.notes["tally_merge"], p.notes


def test_col_target_threads(tuned):
    """ArgMax/ArgMin's columns and short runs under a kept dim split until about
    COL_TARGET_THREADS threads run, other plans (Hardmax's columns among them) until
    TARGET_THREADS (plans only: nothing is uploaded)."""
    others = set()
    for target in (1 << 17, 1 << 19):
        d = tuned(COL_TARGET_THREADS=target)
        col = arg_notes(d, "float32", (2, 4096, 8192), (0, 1))  # 8192 outputs, a thread each
        assert (col["strategy"], col["split"]) == ("col", target // 8192), col
        run = arg_notes(d, "float32", (8192, 4096, 2), (0, 2))  # runs of 2: 2 threads an output
        assert (run["strategy"], run["threads_per_row"], run["split"]) == \
            ("row", 2, target // 8192), run
        flat = arg_notes(d, "float32", (1 << 18, 64), (0, 1))  # (not columns: TARGET_THREADS)
        tile = arg_notes(d, "uint8", (2, 4096, 8192), (0, 1))  # (tile columns: TARGET_THREADS)
        assert (flat["strategy"], tile["strategy"]) == ("row", "tilecol")
        t = dg.TensorDesc("float32", (512, 256, 512))
        hard = d.compile(dg.Hardmax1Desc(t, t, (0, 1))).plan.notes
        assert hard["strategy"] == "col", hard
        others.add((flat["split"], tile["split"], hard["split"]))
    assert len(others) == 1, others
    # ... to the nearest whole split (COL_SPLIT_ROUND): 130561 columns of 257 (a thread
    # each, short of 2^17 by 0.4%) one pass, not a split in two and a merge pass; 43690
    # columns (3.0 ways) three, 36000 (3.6 ways) four
    for rounded in (True, False):
        d = tuned(COL_TARGET_THREADS=1 << 17, COL_SPLIT_ROUND=rounded)
        for m, ways in ((130561, (1, 2)), (43690, (3, 4)), (36000, (4, 4))):
            col = arg_notes(d, "float32", (257, m), (0,))
            assert (col["strategy"], col["split"]) == ("col", ways[not rounded]), (m, col)


def test_packed_row_groups(tuned):
    """Split packed (8/16-bit) rows take chunks of PACKED_ROW_CHUNK_WORDS words, or longer
    where that would run over PACKED_ROW_GROUPS workgroups in all; word lanes keep the
    chunk. Plans of the grid's sizes, then small rows under shrunk numbers, exact."""
    for groups, flat_split, rows_split in ((0, 1024, 2), (512, 512, 1)):
        d = tuned(PACKED_ROW_GROUPS=groups, PACKED_ROW_CHUNK_WORDS=32768, TALLY_PACK={})
        flat = arg_notes(d, "uint8", (128, 128, 128, 64), (0, 1, 2, 3))  # 2^25 words
        rows = arg_notes(d, "uint8", (512, 512, 512), (1, 2))  # 512 rows of 2^16 words
        lanes = arg_notes(d, "float16", (8192, 4096, 2), (0, 1))
        assert (flat["strategy"], rows["strategy"], lanes["strategy"]) == ("row", "row", "lanes")
        assert (flat["split"], rows["split"], lanes["split"]) == \
            (flat_split, rows_split, 1024), (groups, flat, rows, lanes)
        assert flat["tally_merge"] == (flat_split == 512), flat  # (two partials a thread)
    rng = rng_for("packed row groups")
    for dtype in ("uint8", "float16"):
        pw = 4 // np.dtype(dtype).itemsize
        n = 1000 * pw
        x = np.stack([random_values(rng, (n,), dtype), random_values(rng, (n,), dtype),
                      random_values(rng, (n,), dtype, specials=False)])
        x[1, n // 2:] = x[1, 0]  # ties with the first element over half the row
        splits = []
        for groups in (0, 6):  # 3000 words: chunks of 64, or of 500 (split 2 a row)
            d = tuned(PACKED_ROW_GROUPS=groups, PACKED_ROW_CHUNK_WORDS=64)
            split = arg_notes(d, dtype, x.shape, (1,))["split"]
            splits.append(split)
            check(x, 1, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
        assert splits[0] > 2 and splits[1] == 2, splits


def test_min_fold(tuned):
    """ArgMin over 8/16-bit integer words by the least of the unflipped lanes
    (ARG_MIN_FOLD): by default uint8's tile columns only; with every integer type and
    strategy named, rows, word lanes, tile columns and staged rows exact for both directions
    (ties, extremes, a view starting mid-word), the first pass folded where named and not
    otherwise."""
    # (rows: two whole tiles of 256 x 16 words and a tail, for 8-bit elements; staged rows
    # of 16 elements, more than a workgroup's)
    cases = (((4, 40000), (1,), "row"), ((3000, 2), (0,), "lanes"), ((600, 64), (0,), "tilecol"),
             ((700, 16), (1,), "stage"))

    def first(d, dtype, shape, axes):
        op = compile_arg(d, dtype, shape, axes, dg.ArgMinDesc)
        return op.plan.notes["strategy"], op.plan.steps[0].variables["min_fold"]
    d = tuned()
    got = {(dt, strat): first(d, dt, shape, axes) for dt in ("uint8", "int8", "uint16", "int16")
           for shape, axes, strat in cases}
    assert {k for k, (strat, fold) in got.items() if fold} == {("uint8", "tilecol")}, got
    assert all(strat == k[1] for k, (strat, _) in got.items()), got
    rng = rng_for("min fold")
    for names in (("row", "lanes", "tilecol", "stage"), ("row",)):
        d = tuned(ARG_MIN_FOLD=dict.fromkeys(("uint8", "int8", "uint16", "int16"), names))
        for dtype in ("uint8", "int8", "uint16", "int16"):
            for shape, axes, strat in cases:
                assert first(d, dtype, shape, axes) == (strat, strat in names), (dtype, strat)
                x = random_values(rng, shape, dtype)
                check(x, axes[0], tensor=dg.asarray(x, device=d),
                      combos=(("min", "increasing"), ("min", "decreasing")))
                check(x, axes[0], tensor=at_offset(x, 1, d), combos=(("min", "increasing"),))


@pytest.mark.parametrize("tree", [True, False], ids=["tree", "fold"])
def test_min_fold_tree(tuned, tree):
    """ArgMin's uint8 tile columns whose splits merge unpacked in the pass fold by max and
    take the workgroup atomic tree (ARG_MIN_FOLD_TREE); those with tile runs, rows joined
    at their own shift, one split or packed partials keep the min fold. Exact for both
    directions (ties, extremes, a view starting mid-word)."""
    split = dict(TALLY_MERGE=True, TALLY_BITS=(8, 32, 64), TALLY_PACK={},
                 TALLY_MAX_PER_THREAD=1 << 20, TARGET_THREADS=1 << 16,
                 COL_TARGET_THREADS=1 << 16, ARG_TILECOL_MIN_ROWS=16, ARG_TILECOL_FEW_SPLITS={},
                 ARG_TILECOL_JOIN_MIN_ROWS={}, TILECOL_JOIN={8: 64},
                 ARG_WG_PACK_TILECOL={"wgpu": ("uint8",), "dawn": ("uint8",)},
                 ARG_MIN_FOLD_TREE=tree)
    cases = (  # tuning, shape, axes, (split, tile runs, joined rows), whether it takes the tree
        (split, (3000, 512), (0,), (True, False, False), tree),
        (split, (40, 30, 64, 64), (0, 2), (True, True, False), False),
        (split, (3000, 513), (0,), (True, False, True), False),
        (dict(split, TARGET_THREADS=1, COL_TARGET_THREADS=1), (3000, 512), (0,),
         (False, False, False), False),
        (dict(split, TALLY_PACK={8: True}, TALLY_PACK_FIRST=("row", "tilecol"),
              TALLY_PACK_FIRST_MIN_SPLIT=2), (3000, 512), (0,), (True, False, False), False))
    rng = rng_for("min fold tree")
    for numbers, shape, axes, (split_, runs, joined), taken in cases:
        d = tuned(**numbers)
        op = compile_arg(d, "uint8", shape, axes, dg.ArgMinDesc)
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "tilecol" and notes["row_groups"] > 1, (shape, notes)
        assert (notes["split"] > 1, v["tile_run"], v["row_join"]) == (split_, runs, joined), notes
        assert notes["tally_merge"] is split_, notes  # (in the pass: unpacked, or packed)
        assert (not v["min_fold"], v["wg_pack"] > 0) == (taken, taken), (shape, v["wg_pack"])
        x = random_values(rng, shape, "uint8")
        check(x, axes, tensor=dg.asarray(x, device=d), combos=HALF)
        if taken:
            ends = tied_ends(rng, shape, "uint8", axes)
            check(ends, axes, tensor=dg.asarray(ends, device=d),
                  combos=(("min", "increasing"), ("min", "decreasing")))
            check(ends, axes, tensor=at_offset(ends, 1, d), combos=(("min", "increasing"),))



@pytest.mark.parametrize("on", [True, False], ids=["tree", "no-tree"])
def test_min_fold_tree_runs(tuned, on):
    """ArgMin's uint8 short runs as lanes of a word keep the min fold and take the workgroup
    atomic tree (ARG_MIN_FOLD_WG_PACK_RUNS), split (packed partials) or not; other tile
    columns with the min fold take no tree. Exact for both directions (ties, extremes, a
    view starting mid-word)."""
    d = tuned(ARG_MIN_FOLD_WG_PACK_RUNS=on, ARG_TILECOL_MIN_ROWS=16,
              ARG_TILECOL_RUN_MIN_ROWS={8: 16},
              ARG_WG_PACK_TILECOL={"wgpu": ("uint8",), "dawn": ("uint8",)})
    rng = rng_for("min fold tree runs")
    for shape, axes, run, tree in (((512, 64, 2), (0, 2), 2, on), ((600, 64, 4), (0, 2), 4, on),
                                   ((2, 600, 256), (1,), 1, False)):
        op = compile_arg(d, "uint8", shape, axes, dg.ArgMinDesc)
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "tilecol" and notes["row_groups"] > 1, (shape, notes)
        assert v["run"] == run and v["min_fold"], (shape, v)
        assert (v["wg_pack"] > 0) is tree, (shape, v["wg_pack"])
        x = random_values(rng, shape, "uint8")
        check(x, axes, tensor=dg.asarray(x, device=d), combos=HALF)
        ends = tied_ends(rng, shape, "uint8", axes)
        check(ends, axes, tensor=dg.asarray(ends, device=d),
              combos=(("min", "increasing"), ("min", "decreasing")))
        check(ends, axes, tensor=at_offset(ends, 1, d), combos=(("min", "increasing"),))

def test_tilecol_min_rows(tuned):
    """ArgMax/ArgMin's tile columns take at least ARG_TILECOL_MIN_ROWS rows a row group
    (fewer row groups and splits as it grows), their 8-bit short runs as lanes
    ARG_TILECOL_RUN_MIN_ROWS; Hardmax's tile columns TILECOL_MIN_ROWS (plans only)."""
    seen = {}
    for rows in (128, 512):
        d = tuned(ARG_TILECOL_MIN_ROWS=rows, ARG_TILECOL_RUN_MIN_ROWS={8: 256},
                  TILECOL_MIN_ROWS=128, ARG_TILECOL_FEW_SPLITS={})
        cols = arg_notes(d, "float16", (512, 512, 512), (0,))  # 262144 rows of words
        runs16 = arg_notes(d, "float16", (8192, 4096, 2), (0, 2))  # runs of 2: rows as lanes
        runs8 = arg_notes(d, "uint8", (8192, 4096, 2), (0, 2))
        t = dg.TensorDesc("float16", (512, 256, 512))
        hard = d.compile(dg.Hardmax1Desc(t, t, (0,))).plan.notes
        assert {cols["strategy"], runs16["strategy"], runs8["strategy"], hard["strategy"]} \
            == {"tilecol"}
        assert runs8["lanes_per_output"] == runs16["lanes_per_output"] == 2
        seen[rows] = [(n["split"], n["row_groups"]) for n in (cols, runs16, runs8, hard)]
    (c1, r1, e1, h1), (c2, r2, e2, h2) = seen[128], seen[512]
    assert c1[1] == 4 * c2[1] and r1[0] == 4 * r2[0], seen  # fewer row groups, fewer splits
    assert e1 == e2 and h1 == h2, seen  # (8-bit runs: their own figure; Hardmax: its own)
    d = tuned(ARG_TILECOL_RUN_MIN_ROWS={8: 512})
    assert arg_notes(d, "uint8", (8192, 4096, 2), (0, 2))["split"] * 2 == e1[0], seen


@pytest.mark.parametrize("dtype", ["float16", "uint16"])
def test_tilecol_few_splits(tuned, dtype):
    """ARG_TILECOL_FEW_SPLITS: on its implementation, a dtype's tile columns take its fewer
    rows a row group where that splits them at most its number of ways (more splits, each
    shorter), else ARG_TILECOL_MIN_ROWS; not on the other implementation, not its short
    runs as lanes, not other dtypes; exact both ways (splits merged in the pass), both ops
    and directions."""
    rng = rng_for("tilecol few splits", dtype)
    seen = []  # (the plans of each shape, under each setting in turn)
    impl = tuned().webgpu
    other = "dawn" if impl == "wgpu" else "wgpu"
    for few in ({other: {"float16": (128, 16)}}, {impl: {"float16": (128, 16)}},
                {impl: {"float16": (128, 2)}}):
        d = tuned(ARG_TILECOL_MIN_ROWS=256, ARG_TILECOL_FEW_SPLITS=few)
        got = []
        for shape, axes in (((4096, 256), (0,)), ((2, 2048, 256), (0, 1)),
                            ((4096, 128, 2), (0, 2))):
            n = arg_notes(d, dtype, shape, axes)
            assert n["strategy"] == "tilecol"
            got.append((n["split"], n["row_groups"], n["lanes_per_output"]))
            x = random_values(rng, shape, dtype, ties=True, specials=True)
            check(x, axes, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
        seen.append(got)
    base, few, capped = seen[0], seen[1], seen[2]
    if dtype == "float16":  # 4096 rows over 8 row groups: 256 -> 128 rows, 2 -> 4 ways
        assert [s for s, _, _ in few[:2]] == [2 * s for s, _, _ in base[:2]], seen
    else:  # (another dtype: its own figure)
        assert few[:2] == base[:2], seen
    assert capped[:2] == base[:2] and few[2] == base[2], seen  # (past 2 ways; runs)
    assert base[2][2] == 2  # (runs of 2 as lanes)


@pytest.mark.parametrize("dtype", ["uint8", "int8", "uint16"])
def test_tilecol_pack_max_split(tuned, dtype):
    """ARG_TILECOL_PACK_MAX_SPLIT: tile columns whose partials would be packed split at most
    their element bits' number of ways (each split longer), other bits as many as before;
    exact both ways, both ops and directions, ties and each type's extremes."""
    rng = rng_for("tilecol pack max split", dtype)
    seen = []  # (the splits of each shape, uncapped then capped)
    for cap in ({}, {8: 16}):
        d = tuned(ARG_TILECOL_MIN_ROWS=16, ARG_TILECOL_PACK_MAX_SPLIT=cap)
        got = []
        for shape, axes in (((8192, 64), (0,)), ((64, 16, 8, 64), (0, 1, 2))):
            n = arg_notes(d, dtype, shape, axes)
            assert n["strategy"] == "tilecol" and n["tally_pack"], n  # (capped: packed still)
            got.append(n["split"])
            x = random_values(rng, shape, dtype, ties=True, specials=True)
            check(x, axes, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
        seen.append(got)
    assert all(s > 16 for s in seen[0]), seen  # (32 / 64 ways uncapped)
    assert seen[1] == ([16, 16] if dtypes.lookup(dtype).bits == 8 else seen[0]), seen


def test_tally_merge_binding_limits(monkeypatch):
    """The tally's binding comes last: where it would not fit beside the input's and the
    output's windows (max-storage-buffers-per-shader-stage), or a plan's share of it is
    larger than a binding, the plan keeps its merge pass (and the right answer)."""
    monkeypatch.setattr(tuning, "MIN_ROW_CHUNK", 512)
    d = dg.Device(max_binding_size=4096)  # 4 KiB windows
    # (as a device that allows 10 bindings: fewer windows, shorter shaders to compile)
    d.max_storage_bindings = min(d.max_storage_bindings, 10)
    rng = rng_for("tally windows")
    room = d.max_storage_bindings - 1  # beside the output's one window
    for windows, tally in ((room - 1, True), (room, False)):
        n = (windows * 4096 - plan.WINDOW_ALIGN) // 4  # a row of float32 in that many
        op = d.compile(dg.ArgMaxDesc(dg.TensorDesc("float32", (1, n)),
                                     dg.TensorDesc("uint32", (1, 1)), (1,)))
        assert op.plan.notes["tally_merge"] is tally and op.plan.notes["split"] > 1, n
        x = random_values(rng, (1, n), "float32")
        check(x, 1, tensor=dg.asarray(x, device=d), combos=HALF)
        t = dg.asarray(x, device=d)[:, 1:]  # at an offset: the same windows
        check(x[:, 1:], 1, tensor=t, combos=HALF)
    # 16 bytes and 4 bytes, at any offset: 5 windows of 64 bytes each at most
    small = types.SimpleNamespace(window_bytes=64, max_storage_bindings=11)
    src, dst = dg.TensorDesc("float32", (4,)), dg.TensorDesc("uint32", (1,))
    assert base.tally_fits(small, plan.Plan([], tally_bytes=64), src, dst)
    assert not base.tally_fits(small, plan.Plan([], tally_bytes=68), src, dst)
    small.max_storage_bindings = 10
    assert not base.tally_fits(small, plan.Plan([], tally_bytes=64), src, dst)


@pytest.mark.parametrize("shape", [(20000, 7), (5000, 300), (200, 5000)])
@pytest.mark.parametrize("dtype", ["float32", "uint8", "int64"])
def test_column_reductions(dev, dtype, shape):
    """Tall matrices over axis 0 (thread per output, split over rows, both merges)."""
    rng = rng_for("column", dtype, shape)
    x = planted(rng, shape[::-1], dtype).T.copy()
    check(x, 0)


def test_empty_kept_axis(dev):
    """An empty output is fine (nothing to reduce into); only an empty reduction is not."""
    y = dg.argmax(np.zeros((0, 5), np.float32), 1)
    assert y.shape == (0, 1) and y.dtype == np.uint32
    assert y.numpy().shape == (0, 1)


# -- several storage windows (bindings capped at 4 KiB) ----------------------------------
# Every window count is a distinct pipeline: the cases share a few (input, output) window
# counts, and use short reductions (thread per output, cheap compiles) but for one case.

def n_windows(t, dev) -> int:
    lo, hi = t.element_span()
    return -(-(hi + 1 - lo) * t.dtype.itemsize // dev.window_bytes)


WINDOW_VIEWS = {
    "contiguous": lambda a: a,
    "offset": lambda a: a[7:, 1:],
    "negative": lambda a: a[::-1, ::-1],
    "steps": lambda a: a[1::2, ::-2],
}


@pytest.mark.parametrize("view", list(WINDOW_VIEWS))
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "int64"])
def test_windows(windowed_dev, dtype, view):
    """Inputs of 4 windows, (rows, 3) over axis 1 and its views; the uint32 indices span
    several windows too but for int64 (8 windows of input would compile slowly)."""
    rows = 4 * windowed_dev.window_bytes // (3 * np.dtype(dtype).itemsize) + 11
    x = random_values(rng_for("windows", dtype, view), (rows, 3), dtype)
    t = WINDOW_VIEWS[view](dg.asarray(x, device=windowed_dev))
    assert n_windows(t, windowed_dev) >= 2
    check(np.ascontiguousarray(WINDOW_VIEWS[view](x)), 1, tensor=t)
    # transposed: the reduced axis is the strided one
    tt = dg.asarray(np.ascontiguousarray(x.T), device=windowed_dev).T
    check(x, 1, tensor=tt, combos=HALF)


@pytest.mark.parametrize("dtype", ["uint8", "int16", "float32", "uint64"])
def test_windows_long_row(windowed_dev, dtype):
    """One long reduction over 4 windows (split for 8-bit), the winner in the last."""
    n = 3 * windowed_dev.window_bytes // np.dtype(dtype).itemsize + 3
    x = np.zeros(n, dtype)
    x[[3, n - 2]] = 7
    x[[5, n - 4]] = 0 if dtype.startswith("u") else -1
    t = dg.asarray(x, device=windowed_dev)
    assert n_windows(t, windowed_dev) == 4
    check(x, None, tensor=t, combos=HALF)
    check(x[5:], None, tensor=t[5:], combos=HALF[:1])


@pytest.mark.parametrize("dtype", ["uint8", "float16"])
def test_windows_tile_columns(windowed_dev, dtype):
    """8/16-bit columns ("tilecol") over an input of several windows: whole words, a view
    starting mid-word (joined words may come from two windows), reversed rows; 64-bit
    indices."""
    x = random_values(rng_for("win-tilecol", dtype), (301, 64), dtype)
    t = dg.asarray(x, device=windowed_dev)
    assert n_windows(t, windowed_dev) >= 3
    op = windowed_dev.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, x.shape),
                                            dg.TensorDesc("uint32", (1, 64)), (0,)))
    assert op.plan.notes["strategy"] == "tilecol", op.plan.notes
    check(x, 0, tensor=t, combos=HALF)
    check(x[:, 1:61], 0, tensor=t[:, 1:61], combos=HALF)
    check(x[::-1], 0, tensor=t[::-1], index_dtype="int64", combos=HALF)


@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "int64"])
def test_windows_staged_rows(windowed_dev, dtype):
    """Staged rows (16 words each) over an input of several windows, a block's loads
    crossing from one to the next (the scalar layout: vectors need one binding); a view
    starting one row in, and for 8/16-bit types one element in (joined words from two
    windows); 64-bit indices over several windows."""
    n = 16 * 4 // np.dtype(dtype).itemsize
    rows = 5 * windowed_dev.window_bytes // (n * np.dtype(dtype).itemsize) + 37
    x = stage_rows_input(rng_for("win-stage", dtype), rows, n, dtype)
    t = dg.asarray(x, device=windowed_dev)
    assert n_windows(t, windowed_dev) >= 5
    assert arg_notes(windowed_dev, dtype, x.shape, (1,))["strategy"] == "stage"
    seen = spy_variables(windowed_dev, lambda v: (v["n_in_win"], v.get("src_vec")))
    try:
        check(x, 1, tensor=t, combos=HALF)
        check(x[1:], 1, tensor=t[1:], combos=HALF[:1], index_dtype="int64")
        if np.dtype(dtype).itemsize < 4:
            check(x, 1, tensor=at_offset(x, 1, windowed_dev), combos=HALF[1:])
    finally:
        del windowed_dev.pipelines.get
    # (bound over several windows: the scalar layout, ARG_STAGE_VEC's variant)
    assert {v for w, v in seen if w > 1} == {1}, seen


@pytest.mark.parametrize("dtype", ["uint8", "float16", "int16"])
def test_windows_staged_odd_rows(windowed_dev, dtype, monkeypatch):
    """Staged rows that are not whole words (ARG_STAGE_ODD), a word's worth of rows a unit,
    over an input of several windows; views starting a row and an element in."""
    monkeypatch.setattr(tuning, "ARG_STAGE_ODD", True)
    monkeypatch.setattr(tuning, "ARG_STAGE_ODD_WORDS", {8: (3, 32), 16: (3, 32)})
    n = 7  # (3.5 / 1.75 words: a unit of 2 / 4 rows is 7 words)
    rows = 5 * windowed_dev.window_bytes // (n * np.dtype(dtype).itemsize) + 41
    x = stage_rows_input(rng_for("win-stage-odd", dtype), rows, n, dtype)
    t = dg.asarray(x, device=windowed_dev)
    assert n_windows(t, windowed_dev) >= 5
    op = compile_arg(windowed_dev, dtype, x.shape, (1,))
    assert op.plan.steps[0].variables["odd_rows"], op.plan.notes
    check(x, 1, tensor=t, combos=HALF)
    check(x[1:], 1, tensor=t[1:], combos=HALF[:1], index_dtype="int64")
    check(x, 1, tensor=at_offset(x, 1, windowed_dev), combos=HALF[1:])


@pytest.mark.parametrize("dtype", ["float32", "uint8", "float16"])
def test_windows_row_tails(windowed_dev, dtype, monkeypatch):
    """Rows whose last, partial tile is taken whole (packed 8/16-bit rows too) over an input
    of several windows: the clamped loads and their duplicates cross windows."""
    monkeypatch.setattr(tuning, "ROW_MASKED_TAIL", 1 << 16)
    monkeypatch.setattr(tuning, "ROW_MASKED_TAIL_PACKED", True)
    monkeypatch.setattr(tuning, "ARG_STAGE_WORDS", {})
    n = 3001
    rows = 5 * windowed_dev.window_bytes // (n * np.dtype(dtype).itemsize) + 3
    x = random_values(rng_for("win-tails", dtype), (rows, n), dtype, ties=False, specials=False)
    x[:, -1] = x.max()  # (the winner at the last element: a duplicate's place)
    x[1::2, -5] = x.max()
    t = dg.asarray(x, device=windowed_dev)
    assert n_windows(t, windowed_dev) >= 5
    op = compile_arg(windowed_dev, dtype, x.shape, (1,))
    assert op.plan.notes["strategy"] == "row" and op.plan.steps[0].variables["masked_tail"]
    check(x, 1, tensor=t, combos=HALF)
    check(x[:, 1:], 1, tensor=t[:, 1:], combos=HALF[:1])


@pytest.mark.parametrize("index_dtype", ["uint32", "int64"])
def test_windows_output_spans_windows(windowed_dev, index_dtype):
    x = random_values(rng_for("win-out", index_dtype), (3000, 2), "float32")
    t = dg.asarray(x, device=windowed_dev)
    check(x, 1, tensor=t, index_dtype=index_dtype, combos=HALF)
    y = dg.argmax(t, 1, index_dtype=index_dtype)
    assert n_windows(y, windowed_dev) >= 2


def test_windows_preallocated_output_at_an_offset(windowed_dev):
    """An output view at an unaligned offset of a larger buffer, over two windows: only
    its elements are written."""
    x = random_values(rng_for("win-out-offset"), (1500, 3), "float32")
    big = dg.asarray(np.full(3000, 123, np.uint32), device=windowed_dev)
    y = big[777:2277].reshape(1500, 1)
    assert n_windows(y, windowed_dev) == 2
    op = windowed_dev.compile(dg.ArgMinDesc(dg.TensorDesc("float32", (1500, 3)),
                                            dg.TensorDesc("uint32", (1500, 1)), axes=(1,),
                                            axis_direction="decreasing"))
    op(inputs=[dg.asarray(x, device=windowed_dev)], outputs=[y])
    got = big.numpy()
    assert (got[:777] == 123).all() and (got[2277:] == 123).all()
    assert_same(y, arg_reference(x, (1,), "min", True))


def test_too_many_windows_names_the_limit(windowed_dev):
    n_bind = windowed_dev.max_storage_bindings
    x = dg.empty(((n_bind + 1) * windowed_dev.window_bytes // 4,), "float32",
                 device=windowed_dev)
    with pytest.raises(dg.DeviceLimitError, match="max-storage-buffers-per-shader-stage"):
        dg.argmax(x)


@pytest.mark.parametrize("tile_max, nan_by_tile, rough", [(True, True, True),
                                                          (True, True, False),
                                                          (False, False, False)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16", "uint16"])
def test_row_loop_variants(tuned, dtype, tile_max, nan_by_tile, rough):
    """The row loops' ways with each tuning: element loads by a tile's max and a search
    of the tile (ROW_TILE_MAX) or a (key, index) comparison an element; packed float16
    keyed without NaN and the tile again where one is (ROW_NAN_BY_TILE), by rough keys
    first (ROW_ROUGH_KEYS: the tile again where its best is +-0.0 too) or every word in
    full. Rows, a split full reduction, two reduced dims, ties, NaN and extremes, a view
    starting mid-word (element loads), both directions."""
    d = tuned(ROW_TILE_MAX=tile_max, ROW_NAN_BY_TILE=nan_by_tile, ROW_ROUGH_KEYS=rough)
    want = "rough" if nan_by_tile and rough and dtype == "float16" else nan_by_tile
    rng = rng_for("row loops", dtype)
    for shape, axes in (((37, 3000), (1,)), ((200000,), (0,)), ((6, 40, 512), (0, 2))):
        op = compile_arg(d, dtype, shape, axes)
        v = op.plan.steps[0].variables
        assert v["strategy"] == "row"
        assert (v["tile_max"], v["nan_by_tile"]) == (tile_max, want)
        for x in (sparse_extremes(rng, shape, dtype),
                  random_values(rng, shape, dtype, ties=True, specials=True)):
            check(x, axes, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
    if np.dtype(dtype).itemsize < 4:  # a view one element into a word: element loads
        big = sparse_extremes(rng, (9, 3001), dtype)
        t = dg.asarray(big, device=d)[:, 1:]
        check(big[:, 1:], (1,), tensor=t, combos=ALL_COMBOS)


def signed_zero_extremes(rng, shape) -> list[np.ndarray]:
    """float16 arrays whose extreme is a zero: values of one sign (ArgMax of data at most
    0, then ArgMin of data at least 0) with 1% zeros of one sign or both, the last also
    beside 0.1% NaN."""
    n = int(np.prod(shape))
    out = []
    for side in (-1.0, 1.0):  # zero the greatest, then the least
        for signs, nan in (("both", 0.0), ("-", 0.0), ("+", 0.0), ("both", 0.001)):
            x = (side * rng.uniform(0.5, 4.0, n)).astype(np.float16)
            zero = rng.random(n) < 0.01
            neg = {"both": rng.random(n) < 0.5, "-": np.ones(n, bool),
                   "+": np.zeros(n, bool)}[signs]
            x[zero] = np.where(neg[zero], np.float16(-0.0), np.float16(0.0))
            x[rng.random(n) < nan] = np.nan
            out.append(x.reshape(shape))
    return out


@pytest.mark.parametrize("rough", [True, False])
def test_rough_keys_signed_zero(tuned, rough):
    """float16 row loops by rough keys (ROW_ROUGH_KEYS: -0.0 keyed one under +0.0) key a
    tile again where its best is +-0.0, so zeros of both signs stay equal: zero the extreme
    (ArgMax of data at most 0, ArgMin of data at least 0) with zeros of one sign or both,
    first or last of them in a tile, in several of a thread's tiles and across threads and
    splits, beside rare NaN; both ops and directions; rows, staged rows of 64, a split full
    reduction, two reduced dims."""
    d = tuned(ROW_ROUGH_KEYS=rough)
    rng = rng_for("rough keys", "float16")
    for shape, axes in (((37, 3000), (1,)), ((4096, 64), (1,)), ((200000,), (0,)),
                        ((6, 40, 512), (0, 2))):
        op = compile_arg(d, "float16", shape, axes)
        assert op.plan.steps[0].variables["nan_by_tile"] == ("rough" if rough else True)
        for x in signed_zero_extremes(rng, shape):
            check(x, axes, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)


@pytest.mark.parametrize("rough", [True, False])
def test_rough_keys_lanes_tilecol(tuned, rough):
    """float16 word lanes and tile columns by rough keys first (ARG_ROUGH_KEYS, by
    implementation: the other's entry ignored; lanes split more than
    ARG_ROUGH_LANES_MAX_SPLIT ways not by default): a tile's codes keyed again where it holds a
    NaN or any output's best there is +-0.0, so zeros of both signs stay equal: zero the
    extreme with zeros of one sign or both, beside rare NaN, and random values with ties and
    specials; lanes one workgroup a block and split, tile columns over one and two reduced
    dims, split, and short runs as lanes; a view starting mid-word (element loads); both
    ops and directions."""
    impl = tuned().webgpu
    other = "dawn" if impl == "wgpu" else "wgpu"
    on = {impl if rough else other: ("lanes", "tilecol")}  # (only the other's: off)
    # split lanes too by rough keys only past ARG_ROUGH_LANES_MAX_SPLIT's default
    d = tuned(ARG_ROUGH_KEYS=on)
    for shape, split in (((40, 4096, 2), 1), ((2, 100000, 2), 4)):
        op = compile_arg(d, "float16", shape, (1,))
        assert (op.plan.notes["split"], op.plan.steps[0].variables["rough_keys"]) == (
            split, rough and split <= tuning.ARG_ROUGH_LANES_MAX_SPLIT)
    d = tuned(ARG_ROUGH_KEYS=on, ARG_ROUGH_LANES_MAX_SPLIT=1 << 30)
    rng = rng_for("rough lanes", "float16")
    for shape, axes, strategy in (((40, 4096, 2), (1,), "lanes"),
                                  ((2, 100000, 2), (1,), "lanes"),
                                  ((4096, 64), (0,), "tilecol"),
                                  ((64, 3, 64, 128), (0, 2), "tilecol"),
                                  ((2048, 64, 2), (0, 2), "tilecol")):
        op = compile_arg(d, "float16", shape, axes)
        v = op.plan.steps[0].variables
        assert (v["strategy"], v["rough_keys"]) == (strategy, rough), (shape, axes)
        # (two reduced dims apart: 64 and 64, a kept 3 between them)
        assert v["multi_red"] is (len(shape) == 4), (shape, v["multi_red"])
        for x in (random_values(rng, shape, "float16", ties=True, specials=True),
                  *signed_zero_extremes(rng, shape)):
            check(x, axes, tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
    big = sparse_extremes(rng, (4096 * 64 + 1,), "float16")  # one element into a word
    t = dg.asarray(big, device=d)[1:].reshape(4096, 64)
    check(big[1:].reshape(4096, 64), (0,), tensor=t, combos=HALF)


@pytest.mark.parametrize("on", [True, False])
@pytest.mark.parametrize("dtype", ["float16", "int16", "uint16", "uint8", "int8"])
def test_word_rows(tuned, dtype, on):
    """ARG_WORD_ROWS: column plans over rows of 1 to ARG_WORD_ROWS_MAX_WORDS whole words
    (16-bit rows of 2, 4, 6, 8-bit rows of 4, 8, 12) key a word's lanes at once and take the
    row's best lane code as its index: rows back to back, rows a whole number of words apart
    (a strided view), several kept dims, a last thread with fewer outputs; ties, NaN, +-0.0,
    extremes; both ops and directions; a view starting mid-word takes the element loop (the
    variant asserted); rows past the cap, or off: the loop."""
    most = 3
    d = tuned(ARG_WORD_ROWS=on, ARG_WORD_ROWS_MAX_WORDS=most)
    rng = rng_for("word rows", dtype)
    pw = 4 // np.dtype(dtype).itemsize
    for m in range(1, most + 2):
        n = m * pw
        for shape, axes, view in (((1001, n), (1,), None), ((6, 40, n), (2,), None),
                                  ((300, 3, n), (2,), (slice(None), slice(None, None, 2)))):
            for x in (sparse_extremes(rng, shape, dtype),
                      random_values(rng, shape, dtype, ties=True, specials=True)):
                t = dg.asarray(x, device=d)
                if view is not None:
                    x, t = x[view], t[view]
                op = compile_arg(d, dtype, x.shape, axes)
                v = op.plan.steps[0].variables
                if m <= most:  # (longer rows: staged, no word rows)
                    assert (v["strategy"], v["vout"] > 1) == ("col", True)
                assert v.get("word_rows", 0) == (m if on and m <= most else 0)
                check(x, axes, tensor=t, combos=ALL_COMBOS)

    def bound_word_rows(cols: int, view: slice) -> list:
        """word_rows of every pipeline asked for by the calls over rows `view` of a
        (257, cols) array (checked)."""
        big = random_values(rng, (257, cols), dtype, ties=True, specials=True)
        seen = spy_variables(d, lambda v: v.get("word_rows"))
        try:
            check(big[:, view], (1,), tensor=dg.asarray(big, device=d)[:, view], combos=HALF)
        finally:
            del d.pipelines.get
        return seen

    # rows of a word a word apart, starting an element into one: the element loop
    seen = bound_word_rows(pw + 1, slice(1, None))
    if pw == 2:  # (16-bit: the view's rows are 3 elements apart, not whole words: no word
        assert not any(seen)  # rows planned at all)
    for m in (1, most):  # rows of m words, m + 1 apart, starting an element into a word
        op = compile_arg(d, dtype, (257, m * pw), (1,))  # (the plan: the layout on a word)
        assert op.plan.steps[0].mid_word == ({"word_rows": 0} if on else None)
        seen = bound_word_rows((m + 1) * pw, slice(1, m * pw + 1))
        assert 0 in seen, seen  # (bound: the element loop's variant)
    # few outputs split (chunks of 3 elements: ranges that need not start on a word): a
    # thread keys a whole row, so split plans take the element loop
    d = tuned(ARG_WORD_ROWS=on, ARG_WORD_ROWS_MAX_WORDS=most, MIN_COL_CHUNK=3,
              COL_TARGET_THREADS=1 << 12, ARG_STAGE_WORDS={}, ARG_STAGE_ODD=False)
    for rows in (2, 5):
        x = random_values(rng, (rows, 2 * pw), dtype, ties=True, specials=True)
        notes = arg_notes(d, dtype, x.shape, (1,))
        assert notes["split"] > 1 and notes["outputs_per_thread"] > 1, notes
        check(x, (1,), tensor=dg.asarray(x, device=d), combos=ALL_COMBOS)
        assert compile_arg(d, dtype, x.shape, (1,)).plan.steps[0].variables["word_rows"] == 0


def stage_layout(words: int) -> tuple[int, int, int, int]:
    """A staged row of `words` words under the ARG_STAGE_* numbers: (its places, a power of
    two; a thread's places; a workgroup's threads; a workgroup's rows)."""
    slots = 1 << (words - 1).bit_length()
    thread_slots = max(tuning.ARG_STAGE_THREAD_WORDS, slots)
    wg = max(tuning.ARG_STAGE_MIN_WG, tuning.ARG_STAGE_BLOCK_WORDS // thread_slots)
    return slots, thread_slots, wg, wg * thread_slots // slots


def op_wg(op) -> int:
    """Threads a workgroup of a compiled operator's first step."""
    return op.plan.steps[0].variables["wg"]


def check_joined(d, op, x: np.ndarray, pw: int, combos) -> None:
    """`x`'s staged rows (op: its plan) as views starting at each element of a word but the
    first: the plan's joined variant taken (a spy on the pipeline cache), exact."""
    if pw == 1:
        return
    assert op.plan.steps[0].mid_word == {"joined": True}
    seen = spy_variables(d, lambda v: v.get("joined"))
    try:
        for off in range(1, pw):
            check(x, 1, tensor=at_offset(x, off, d), combos=combos)
    finally:
        del d.pipelines.get
    assert set(seen) == {True}, seen


def stage_rows_input(rng, rows: int, n: int, dtype: str) -> np.ndarray:
    """(rows, n) of random values (specials included), and rows whose best sits at both
    ends (a tie far apart), in the middle of a tie run, or everywhere (one value); NaN
    first / last / beside the type's max for floats; the type's extremes for integers."""
    x = random_values(rng, (rows, n), dtype)
    top = np.finfo(dtype).max if dtype.startswith("float") else np.iinfo(dtype).max
    low = -np.inf if dtype.startswith("float") else np.iinfo(dtype).min
    x[0, [0, n - 1]] = top
    x[1, [1, n - 2]] = low
    x[2, n // 3: n // 2] = top
    x[3] = x[3, n // 2]
    x[4, [0, n - 1]] = [top, low]
    if dtype.startswith("float"):
        x[5, 0] = x[6, n - 1] = np.nan
        x[7, [min(2, n - 2), min(3, n - 1)]] = [top, np.nan]
    x[-1, [n // 2, n - 1]] = top  # the last block's last row
    return x


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_staged_rows(tuned, dtype):
    """Short contiguous rows back to back, of each power of two words in ARG_STAGE_WORDS's
    range, staged through workgroup memory (ARG_STAGE_*: the workgroup's threads asserted,
    ARG_STAGE_MIN_WG where a block would hold fewer), a thread reducing whole rows there:
    whole workgroups and a last one of a few rows, ties, NaN, extremes, both ops and
    directions, 64-bit indices, views starting mid-word (two words joined a load; the plan's
    variant asserted); rows not whole words, not a power of two words, outside the range or
    not back to back take other plans, exact all the same."""
    d = tuned()
    rng = rng_for("staged rows", dtype)
    bits = np.dtype(dtype).itemsize * 8
    pw = max(1, 32 // bits)
    combos = combos_for(dtype)
    lo, hi = tuning.ARG_STAGE_WORDS[bits]
    for words in (w for w in (2, 4, 8, 16, 32, 64) if lo <= w <= hi):
        n = words * 32 // bits
        _, thread_words, wg, per_group = stage_layout(words)
        assert op_wg(compile_arg(d, dtype, (3, n), (1,))) == wg
        op = compile_arg(d, dtype, (2 * per_group + 9, n), (1,))  # (the last group 9 rows)
        assert op.plan.notes["strategy"] == "stage", op.plan.notes
        assert op.plan.notes["outputs_per_thread"] == thread_words // words, op.plan.notes
        assert op.plan.steps[0].n_groups == 3
        x = stage_rows_input(rng, 2 * per_group + 9, n, dtype)
        t = dg.asarray(x, device=d)
        check(x, 1, tensor=t, combos=combos)
        check(x, 1, tensor=t, combos=combos[:1], index_dtype="int64")
        check(x[: per_group - 1], 1, tensor=t[: per_group - 1], combos=combos[:1])  # one group
        check_joined(d, op, x, pw, combos[:2])
    # not staged: rows not whole words or not a power of two of them, too long, not back to
    # back (a column slice), reduced over a strided axis; ARG_STAGE_WORDS empty: off
    others = [((64, 3 * 32 // bits), (1,)), ((64, 2 * hi * 32 // bits), (1,)),
              ((16, 8 * 32 // bits), (0,))]
    others.append(((64, lo * 16 // bits), (1,)))  # (half the range's shortest)
    if pw > 1:
        others.append(((64, 8 * pw + 1), (1,)))
    for shape, axes in others:
        assert arg_notes(d, dtype, shape, axes)["strategy"] != "stage", (shape, axes)
        check(random_values(rng, shape, dtype), axes[0], combos=combos[:2])
    x = stage_rows_input(rng, 300, 2 * 8 * 32 // bits, dtype)
    t = dg.asarray(x, device=d)
    n = 8 * 32 // bits
    assert compile_arg(d, dtype, (300, n), (1,)).plan.notes["strategy"] == "stage"
    check(x[:, :n], 1, tensor=t[:, :n], combos=combos[:2])  # rows of n, stride 2n
    off = tuned(ARG_STAGE_WORDS={})
    assert arg_notes(off, dtype, (300, n), (1,))["strategy"] != "stage"


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16", "int16", "uint16"])
def test_staged_odd_rows(tuned, dtype):
    """ARG_STAGE_ODD: 8/16-bit rows that are not whole words staged a word's worth of rows
    (a unit: 4 / 2 rows, n words for rows of n elements) at a time: whole workgroups and a
    last one whose last unit is part full, ties, NaN, extremes, both ops and directions,
    64-bit indices, views starting at each element of a word (two words joined a load: the
    plan's variant asserted); off (the default), they take the other plans."""
    bits = np.dtype(dtype).itemsize * 8
    pw = 32 // bits
    lo, hi = tuning.ARG_STAGE_ODD_WORDS[bits]  # (the defaults' range)
    # (every length the kernel takes, whatever range the defaults stage)
    every = dict(ARG_STAGE_ODD=True, ARG_STAGE_ODD_WORDS={8: (3, 32), 16: (3, 32)})
    d = tuned(**every)
    rng = rng_for("staged odd rows", dtype)
    for n in (3, 5, 6, 7, 10, 13, 31) if pw == 4 else (3, 5, 7, 9, 15, 31):
        slots, _, wg, units = stage_layout(n)
        rows = 2 * units * pw + pw + 1  # (the last workgroup: a full unit and one row)
        op = compile_arg(d, dtype, (rows, n), (1,))
        v = op.plan.steps[0].variables
        assert (op.plan.notes["strategy"], v["odd_rows"], v["row_slots"], v["wg"],
                op.plan.steps[0].n_groups) == ("stage", True, slots, wg, 3), (n, op.plan.notes)
        x = stage_rows_input(rng, rows, n, dtype)
        t = dg.asarray(x, device=d)
        check(x, 1, tensor=t, combos=combos_for(dtype))
        check(x, 1, tensor=t, combos=HALF[:1], index_dtype="int64")
        check(x[:pw + 1], 1, tensor=t[:pw + 1], combos=HALF)  # one workgroup, a unit and a row
        check_joined(d, op, x, pw, HALF)
        assert arg_notes(tuned(ARG_STAGE_ODD=False), dtype, x.shape, (1,))["strategy"] \
            != "stage"
        d = tuned(**every)
    # outside the range (the defaults' too), or whole words: not this plan
    longer = next(m for m in range(33, 41) if m % pw)  # (not whole words)
    assert arg_notes(d, dtype, (64, longer), (1,))["strategy"] != "stage"
    d = tuned(ARG_STAGE_ODD=True, ARG_STAGE_ODD_WORDS={bits: (lo, hi)})
    for n in (lo - 1, lo, hi, hi + 1):
        step = compile_arg(d, dtype, (64, n), (1,)).plan.steps[0]
        odd = step.variables.get("odd_rows", False)
        assert odd is (lo <= n <= hi and n % pw != 0), (n, lo, hi)
    assert not compile_arg(d, dtype, (64, 4 * pw), (1,)).plan.steps[0].variables["odd_rows"]


@pytest.mark.parametrize("dtype", ["float32", "float16", "uint8", "int64"])
def test_staged_rows_any_words(tuned, dtype):
    """ARG_STAGE_ANY_WORDS: rows of words that are no power of two, each in the power of
    two of places above it (its last places unused), staged like the others: whole
    workgroups and a last one of a few rows, ties, NaN, extremes, both ops and directions,
    views starting mid-word; off, they take the other plans."""
    bits = np.dtype(dtype).itemsize * 8
    pw = max(1, 32 // bits)
    lo, hi = tuning.ARG_STAGE_WORDS[bits]
    d = tuned(ARG_STAGE_ANY_WORDS=True)
    rng = rng_for("staged any words", dtype)
    for words in (w for w in (5, 6, 12, 24) if lo <= w <= hi and w * 32 % bits == 0):
        n = words * 32 // bits
        slots, _, wg, per_group = stage_layout(words)
        op = compile_arg(d, dtype, (2 * per_group + 9, n), (1,))
        v = op.plan.steps[0].variables
        assert (op.plan.notes["strategy"], v["row_slots"], v["wg"], op.plan.steps[0].n_groups) \
            == ("stage", slots, wg, 3), (words, op.plan.notes, v["row_slots"])
        x = stage_rows_input(rng, 2 * per_group + 9, n, dtype)
        check(x, 1, tensor=dg.asarray(x, device=d), combos=combos_for(dtype))
        for off in range(1, pw):
            check(x, 1, tensor=at_offset(x, off, d), combos=HALF)
        assert arg_notes(tuned(ARG_STAGE_ANY_WORDS=False), dtype, x.shape, (1,))["strategy"] \
            != "stage"
        d = tuned(ARG_STAGE_ANY_WORDS=True)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_staged_rows_vectors(tuned, dtype):
    """ARG_STAGE_VEC: staged rows of a power of two words, whole vectors of 4, read and staged
    a vector at a time (the plan's variables and notes asserted): whole workgroups and a last
    one of a few rows, ties, NaN, extremes, both ops and directions, 64-bit indices; a view
    starting a row in (whole vectors still), and views starting inside a vector (an element
    in, a word in, half a vector in) take the scalar variant (src_vec 1, asserted by a spy on
    the pipeline cache) and stay exact; rows of no power of two of words, or
    ARG_STAGE_VEC off take the scalar layout."""
    bits = np.dtype(dtype).itemsize * 8
    pw = max(1, 32 // bits)
    lo, hi = tuning.ARG_STAGE_WORDS[bits]
    rng = rng_for("staged vectors", dtype)
    d = tuned(ARG_STAGE_VEC=True)
    for words in (w for w in (4, 8, 16, 32, 64) if lo <= w <= hi):
        n = words * 32 // bits
        _, thread_words, wg, per_group = stage_layout(words)
        op = compile_arg(d, dtype, (2 * per_group + 9, n), (1,))
        v = op.plan.steps[0].variables
        assert (op.plan.notes["strategy"], op.plan.notes["stage_vec"], v["src_vec"], v["wg"],
                op.plan.steps[0].n_groups) == ("stage", True, 4, wg, 3), (words, op.plan.notes)
        x = stage_rows_input(rng, 2 * per_group + 9, n, dtype)
        t = dg.asarray(x, device=d)
        seen = spy_variables(d, lambda v: v.get("src_vec"))
        try:
            check(x, 1, tensor=t, combos=combos_for(dtype))
            check(x, 1, tensor=t, combos=HALF[:1], index_dtype="int64")
            check(x[1:], 1, tensor=t[1:], combos=HALF)  # (a row in: whole vectors)
            check(x[: per_group - 1], 1, tensor=t[: per_group - 1], combos=HALF[:1])
        finally:
            del d.pipelines.get
        assert set(seen) == {4}, seen
        # views inside a vector: an element (mid-word where pw > 1), a word, half a vector
        offsets = sorted({1, pw, 2 * pw} - {4 * pw}) if bits < 64 else [1]
        seen = spy_variables(d, lambda v: v.get("src_vec"))
        try:
            for off in offsets:
                check(x, 1, tensor=at_offset(x, off, d), combos=HALF)
        finally:
            del d.pipelines.get
        assert set(seen) == {1}, (offsets, seen)
    # the scalar layout: rows not a power of two words, ARG_STAGE_VEC off
    n = (6 if lo <= 6 <= hi else 12) * 32 // bits
    op = compile_arg(d, dtype, (300, n), (1,))
    assert op.plan.notes["strategy"] == "stage" and op.plan.steps[0].variables["src_vec"] == 1
    words = max(lo, 4)
    n = words * 32 // bits
    off = tuned(ARG_STAGE_VEC=False)
    op = compile_arg(off, dtype, (300, n), (1,))
    assert (op.plan.notes["stage_vec"], op.plan.steps[0].variables["src_vec"]) == (False, 1)
    x = stage_rows_input(rng, 300, n, dtype)
    check(x, 1, tensor=dg.asarray(x, device=off), combos=HALF)
    # a workgroup narrower than the pads' spacing (4 threads of 16 words: a pad every 8
    # vectors, every thread's stores at its own lane's place)
    small = tuned(ARG_STAGE_VEC=True, ARG_STAGE_BLOCK_WORDS=64, ARG_STAGE_MIN_WG=2)
    n = 16 * 32 // bits
    op = compile_arg(small, dtype, (37, n), (1,))
    v = op.plan.steps[0].variables
    assert (v["wg"], v["src_vec"], op.plan.steps[0].n_groups) == (4, 4, 10), op.plan.notes
    x = stage_rows_input(rng, 37, n, dtype)
    check(x, 1, tensor=dg.asarray(x, device=small), combos=combos_for(dtype))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float16"])
def test_wg_pack_tile_columns(tuned, dtype):
    """ARG_WG_PACK_TILECOL: tile columns of the listed dtypes on the listed implementation take
    their row groups' best by a workgroup atomicMax an output (wg_pack: a row's words' outputs
    of a workgroup) where their split's partials are not packed and their lanes fold by max:
    one pass, the unpacked merge in the pass, a merge pass, two reduced dims, short runs as
    lanes (with a packed tally too: ARG_WG_PACK_TILECOL_RUNS), any packed tally on the
    implementations of ARG_WG_PACK_TILECOL_PACKED; the first and last index tied, ties,
    NaN, extremes, both directions, views mid-word and reversed. Not: a packed tally
    elsewhere (but short runs'; not those with ARG_WG_PACK_TILECOL_RUNS off), ArgMin's min
    fold (uint8; but short runs': ARG_MIN_FOLD_WG_PACK_RUNS), rows joined at their own shift
    (an odd kept dim), one row group, the other implementation, another dtype."""
    rng = rng_for("wg pack tile columns", dtype)
    pw = 4 // np.dtype(dtype).itemsize
    impl = tuned().webgpu
    other = "dawn" if impl == "wgpu" else "wgpu"
    on = dict(ARG_WG_PACK_TILECOL={impl: (dtype,)}, ARG_WG_PACK_TILECOL_RUNS=True,
              ARG_WG_PACK_TILECOL_PACKED=(), TALLY_PACK={}, TALLY_MERGE=True,
              TALLY_BITS=(8, 16), TILECOL_JOIN={8: 1500, 16: 1500},
              TARGET_THREADS=tuning.TARGET_THREADS, COL_TARGET_THREADS=tuning.COL_TARGET_THREADS)
    one = dict(on, TARGET_THREADS=1, COL_TARGET_THREADS=1)
    passed = dict(on, TALLY_MERGE=False)
    packed = dict(on, TALLY_PACK={8: True, 16: True}, TALLY_PACK_FIRST=("row", "tilecol"),
                  TALLY_PACK_FIRST_MIN_SPLIT=2)
    cases = [  # tuning, shape, axes, (split > 1, tally: "pack" / "merge" / ""), atomic tree
        (on, (3000, 512), (0,), (True, "merge"), True),
        (one, (3000, 512), (0,), (False, ""), True),
        (passed, (3000, 512), (0,), (True, ""), True),
        (on, (40, 30, 70, 64), (0, 2), (True, "merge"), True),
        (on, (1500, 64, 2), (0, 2), (True, ""), True),  # (short runs: a merge pass)
        (on, (3000, 513), (0,), (True, "merge"), False),  # (rows joined)
        (packed, (3000, 512), (0,), (True, "pack"), False),
        (packed, (1500, 64, 2), (0, 2), (True, "pack"), True),  # (short runs)
        (dict(packed, ARG_WG_PACK_TILECOL_RUNS=False), (1500, 64, 2), (0, 2), (True, "pack"),
         False),
        (dict(packed, ARG_WG_PACK_TILECOL_PACKED=(impl,)), (3000, 512), (0,), (True, "pack"),
         True),
        (dict(packed, ARG_WG_PACK_TILECOL_PACKED=(other,)), (3000, 512), (0,), (True, "pack"),
         False),
        (dict(on, ARG_WG_PACK_TILECOL={other: (dtype,)}), (3000, 512), (0,), (True, "merge"),
         False),
        (dict(on, ARG_WG_PACK_TILECOL={impl: ("uint16",)}), (3000, 512), (0,),
         (True, "merge"), False),
    ]
    for numbers, shape, axes, (split, tally), tree in cases:
        d = tuned(**numbers)
        op = compile_arg(d, dtype, shape, axes)
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert notes["strategy"] == "tilecol" and notes["row_groups"] > 1, (shape, notes)
        assert (notes["split"] > 1, notes["tally_merge"] and ("pack" if notes["tally_pack"]
                                                              else "merge") or "") \
            == (split, tally), (shape, notes)
        assert v["row_join"] is (shape == (3000, 513)), (shape, v["row_join"])
        block = tuning.REDUCE_WG // notes["row_groups"] * (pw // notes["lanes_per_output"])
        assert v["wg_pack"] == (block if tree else 0), (shape, v["wg_pack"], numbers)
        amin = compile_arg(d, dtype, shape, axes, desc=dg.ArgMinDesc).plan.steps[0].variables
        # (ArgMin's min fold takes no tree, but for short runs: ARG_MIN_FOLD_WG_PACK_RUNS)
        runs = notes["lanes_per_output"] > 1 and tuning.ARG_MIN_FOLD_WG_PACK_RUNS
        assert amin["wg_pack"] == (0 if amin["min_fold"] and not runs else v["wg_pack"]), \
            (shape, amin["wg_pack"])
        if tree or numbers is packed:
            x, ends = random_values(rng, shape, dtype), tied_ends(rng, shape, dtype, axes)
            for a in (x, ends):
                check(a, axes, tensor=dg.asarray(a, device=d), combos=ALL_COMBOS)
            check(ends, axes, tensor=at_offset(ends, 1, d), combos=HALF)  # (mid-word)
            check(ends[::-1], axes, tensor=dg.asarray(ends, device=d)[::-1], combos=HALF)
    # one row group: no tree to replace
    d = tuned(**dict(one, ARG_TILECOL_MIN_ROWS=4096, ARG_TILECOL_FEW_SPLITS={}))
    op = compile_arg(d, dtype, (3000, 512), (0,))
    assert op.plan.notes["row_groups"] == 1 and op.plan.steps[0].variables["wg_pack"] == 0


# (off: the tree everywhere, for one dtype of each width; the others' keys take it in the
# rest of the suite)
@pytest.mark.parametrize("dtype, on", [(d, True) for d in (
    "uint8", "int8", "float16", "uint16", "int16")] + [("uint8", False), ("float16", False)])
def test_wg_pack(tuned, dtype, on):
    """ARG_WG_PACK: the row and word-lane plans of 8/16-bit keys take a workgroup's best of
    each output by one workgroup atomicMax of (key << (32 - bits)) | the index's code: the
    index complemented (DECREASING: + 1) where it fits beside the key, decoded again (split 1,
    the unpacked merge in the pass, a merge pass), or the packed tally's code (TALLY_PACK_FIRST
    rows split 4 ways or more; 16-bit codes of an index's top bits). Rows of one output a
    workgroup and of several, word lanes of 2 and 4 outputs, the longest 16-bit rows that fit
    (65535: the last index the answer) and the first that does not (the tree); the first and
    last index tied, ties, NaN, +-0.0, extremes, both ops and directions, views starting
    mid-word; a Hardmax split (its partials); off: the tree everywhere."""
    rng = rng_for("wg pack", dtype)
    bits = np.dtype(dtype).itemsize * 8
    wp = ("row", "lanes") if on else ()
    first = dict(ARG_WG_PACK=wp, TALLY_PACK_FIRST=("row",), TALLY_PACK_FIRST_MIN_SPLIT=4,
                 TALLY_MERGE=True)
    split1 = dict(first, TARGET_THREADS=1, COL_TARGET_THREADS=1)
    split2 = dict(first, TARGET_THREADS=512, MIN_ROW_CHUNK=1024, PACKED_ROW_CHUNK_WORDS=512)
    packed = dict(first, TARGET_THREADS=1 << 16, MIN_ROW_CHUNK=1024, PACKED_ROW_CHUNK_WORDS=512)
    passed = dict(packed, TALLY_MERGE=False)
    cases = [  # tuning, shape, axes, strategy, split > 1, tally: "pack" / "merge" / "", wg_pack
        (split1, (64, 4096), (1,), "row", False, "", 1),
        (split1, (3000, 37), (1,), "row", False, "", 2),  # (two rows a workgroup)
        (split1, (8, 65535), (1,), "row", False, "", 1),
        (split1, (8, 65536), (1,), "row", False, "", 1 if bits == 8 else 0),
        (split1, (30, 300, 2), (0, 1), "lanes", False, "", 2),
        (split2, (1, 50000), (1,), "row", True, "merge", 1),  # (2 ways: unpacked)
        (packed, (3, 20000), (1,), "row", True, "pack", 1),
        (packed, (2, 1 << 17), (1,), "row", True, "pack", 1),  # (16-bit: a code's top bits)
        (packed, (40000, 2), (0,), "lanes", True, "merge" if bits == 8 else "pack", 2),
        (passed, (3, 20000), (1,), "row", True, "", 1),  # (a merge pass)
        (passed, (40000, 2), (0,), "lanes", True, "", 2),
    ]
    if bits == 8:
        cases.append((packed, (20000, 4), (0,), "lanes", True, "merge", 4))
    for numbers, shape, axes, strategy, split, tally, wg_pack in cases:
        d = tuned(**numbers)  # (plans take the tuning when compiled: a device each)
        op = compile_arg(d, dtype, shape, axes)
        notes, v = op.plan.notes, op.plan.steps[0].variables
        assert (notes["strategy"], notes["split"] > 1) == (strategy, split), (shape, notes)
        assert (notes["tally_merge"] and ("pack" if notes["tally_pack"] else "merge")
                or "") == tally, (shape, notes)
        assert v["wg_pack"] == (wg_pack if on else 0), (shape, v["wg_pack"])
        x, ends = random_values(rng, shape, dtype), tied_ends(rng, shape, dtype, axes)
        for a in (x, ends):
            check(a, axes, tensor=dg.asarray(a, device=d), combos=ALL_COMBOS)
        check(ends, axes, tensor=at_offset(ends, 1, d), combos=HALF)  # (a view mid-word)
    if dtype == "float16":  # Hardmax split (its partials' codes; a merge pass writes the one-hot)
        d = tuned(**packed)
        x = random_values(rng, (3, 20000), dtype)
        t = dg.TensorDesc(dtype, x.shape)
        steps = d.compile(dg.Hardmax1Desc(t, t, (1,))).plan.steps
        step = next(s for s in steps if s.source == "input")
        assert (step.sink, step.params["n_split"] > 1) == ("partials", True)
        assert step.variables["wg_pack"] == (1 if on else 0)
        assert_same(dg.hardmax(dg.asarray(x, device=d), 1), hardmax_reference(x, (1,)))
