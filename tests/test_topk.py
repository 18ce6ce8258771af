"""TopK1 (dg.top_k, dg.TopK1Desc) against a numpy reference, for every strategy.

Sizes are chosen per strategy on the default device (lavapipe: 1024 invocations, 32 KiB of
workgroup memory): "sort" for rows up to 2048; for longer rows "threshold" when K <= 128
(and the row fits a tile or there are many rows), whose fallback ("select" or "candidates")
redoes rows with heavy ties; "select" up to 16384 with K <= 2048 (1024 for 64-bit types),
"candidates" above, "radix" for larger K; "wide" for 128 < K <= 1024 (a `tuned` device
takes it further). Each test asserts the strategy its sizes are meant
to reach, so that a change of thresholds cannot silently skip one; `tuned` makes a device
whose plans see other tuning numbers (to reach "select" with a small K, or to force the
threshold kernel's fallback on rows without ties).
"""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from reference import ALL_DTYPES, assert_same, random_values, rng_for, topk_reference

import dmlgpu as dg
from dmlgpu import tuning
from dmlgpu.ops.topk import GATHERED, bitonic_rounds
from dmlgpu.runtime import dispatch
from dmlgpu.sizes import ceil_div


def compiled(x: dg.Tensor, k: int, axis: int = -1, direction: str = "decreasing",
             index_dtype: str = "uint32"):
    """The compiled operator dg.top_k uses for these arguments (to read its plan)."""
    ax = axis % x.ndim
    shape = tuple(k if i == ax else n for i, n in enumerate(x.shape))
    return x.device.compile(dg.TopK1Desc(dg.TensorDesc.of(x), dg.TensorDesc(x.dtype.name, shape),
                                         dg.TensorDesc(index_dtype, shape), ax, k, direction))


def check(x, k, axis=-1, direction="decreasing", index_dtype="uint32", strategy=None,
          device=None):
    """dg.top_k on x (numpy array or dg.Tensor) equals the reference; returns the plan notes."""
    host = x.numpy() if isinstance(x, dg.Tensor) else np.asarray(x)
    t = x if isinstance(x, dg.Tensor) else dg.asarray(host, device=device)
    values, indices = dg.top_k(t, k, axis, axis_direction=direction, index_dtype=index_dtype)
    ev, ei = topk_reference(host, k, axis, direction == "decreasing", index_dtype)
    assert_same(indices, ei)
    assert_same(values, ev)
    notes = compiled(t, k, axis, direction, index_dtype).plan.notes
    if strategy is not None:
        assert notes["strategy"] == strategy, notes
    return notes


# short rows with K <= 8 to the other strategies instead of "regs"
NO_REGS = dict(TOPK_REGS=False)
# K from 65 over rows up to 16384 to "sort"/"threshold" instead of "wide"
NO_WIDE_FIRST = dict(TOPK_WIDE_FROM_K=1 << 30)
# short rows (K <= 32) to "sort"/"threshold" instead, long ones not in chunks either
NO_ROWS = dict(TOPK_ROWS_MAX_K=0, TOPK_ROWS_SORTED_MAX_K=0, TOPK_ROWS_CHUNK_MAX_K=0,
               **NO_REGS, **NO_WIDE_FIRST)
# few long rows with K <= 32 to "threshold"/"candidates" instead of the rows kernel's chunks
NO_CHUNKS = dict(TOPK_ROWS_CHUNK_BELOW_ROWS=0, TOPK_ROWS_CHUNK_BELOW_ROWS_STRIDED=0,
                 **NO_REGS, **NO_WIDE_FIRST)
# the rows kernel's chunks at lavapipe's sizes: rows past 64 in chunks of 64 to 512
SMALL_CHUNKS = dict(TOPK_ROWS_MAX_N=64, TOPK_ROWS_CHUNK=64, TOPK_ROWS_CHUNK_PER_K=4,
                    TOPK_ROWS_CHUNK_MAX=512, **NO_REGS)
NO_THRESHOLD = dict(TOPK_THRESHOLD_MAX_K=0, TOPK_WIDE_MAX_SLOTS=0, **NO_ROWS)  # "select"
# The select kernel's capacity follows workgroup memory (2048 32-bit pairs on lavapipe, 4096
# on 48-KiB GPUs): capped at 1024, the "radix" cases (K >= 1500) reach "radix" on both.
RADIX_CAP = 1024
WIDE = dict(TOPK_WIDE_MAX_SLOTS=4096)  # strategy "wide" also for K past 1024
# "wide" with lanes (subgroup shuffles and scans; lavapipe's subgroups hold 4 lanes as
# scripts/test.sh runs it, 8 at its native width: test_eight_lane_subgroups), with
# fewer, and without (the path of devices without subgroups)
LANES = {"lanes": {}, "2 lanes": dict(TOPK_WIDE_LANE_BITS=2),
         "no lanes": dict(TOPK_WIDE_LANE_BITS=0)}


def lane_bits(d, lanes: str) -> int:
    """The lane bits a "wide" plan of slots >= 256 takes on device d with LANES[lanes]."""
    if lanes == "no lanes" or not d.subgroup_size:
        return 0
    return min(2 if lanes == "2 lanes" else 5, d.subgroup_size.bit_length() - 1)


# -- the spec's examples --------------------------------------------------------------

X1 = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], np.float32)
X2 = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], np.float32)


@pytest.mark.parametrize("x, axis, k, direction, values, indices", [
    (X1, 3, 2, "decreasing", [[11, 10], [9, 8], [7, 6]], [[3, 2], [2, 3], [3, 2]]),
    (X1, 2, 2, "decreasing", [[4, 5, 10, 11], [3, 2, 9, 8]], [[2, 2, 0, 0], [1, 1, 1, 1]]),
    (X2, 3, 3, "decreasing", [[3, 2, 2], [5, 5, 4], [6, 6, 6]], [[3, 1, 2], [2, 3, 1], [0, 1, 2]]),
    (X2, 3, 3, "increasing", [[1, 2, 2], [3, 4, 5], [6, 6, 6]], [[0, 1, 2], [0, 1, 2], [0, 1, 2]]),
])
def test_spec_examples(dev, x, axis, k, direction, values, indices):
    v, i = dg.top_k(x, k, axis, axis_direction=direction)
    assert_same(v, np.array(values, np.float32).reshape(v.shape))
    assert_same(i, np.array(indices, np.uint32).reshape(i.shape))
    # the same through the DirectML-style layer, with preallocated outputs
    xt = dg.asarray(x)
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc.of(xt), dg.TensorDesc.of(v),
                                  dg.TensorDesc.of(i), axis, k, direction))
    v2, i2 = dg.empty(v.shape, "float32"), dg.empty(i.shape, "uint32")
    assert op(inputs=[xt], outputs=[v2, i2]) == [v2, i2]
    assert_same(v2, v.numpy())
    assert_same(i2, i.numpy())
    assert op.plan.notes["strategy"] == "regs"


# -- strategy "sort": every dtype, ranks, axes, views ---------------------------------

@pytest.mark.parametrize("direction", ["decreasing", "increasing"])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sort_dtypes(tuned, dtype, direction):
    d = tuned(**NO_ROWS)
    rng = rng_for("sort", dtype, direction)
    x = random_values(rng, (5, 3, 37), dtype)  # ties, extremes, NaN/inf/-0.0
    for k in (1, 6, 37):
        check(x, k, -1, direction, strategy="sort", device=d)
    check(x, 2, 0, direction, strategy="sort", device=d)  # the outer axis: rows are strided


@pytest.mark.parametrize("items", [1, 2, 4, 8])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8"])
def test_sort_register_blocks(tuned, dtype, items):
    """The bitonic sort with blocks of `items` entries in registers: segments shorter than a
    block (rows of 1 to 7, several per workgroup), as long as one, and up to the capacity;
    both directions, ties, specials, the outer axis."""
    d = tuned(TOPK_SORT_ITEMS=items, **NO_ROWS)
    rng = rng_for("sort blocks", dtype, items)
    for n in (1, 2, 3, 5, 8, 13, 64, 200, 1000):
        x = random_values(rng, (3, n), dtype)  # ties, extremes, NaN/inf/-0.0
        for k in sorted({min(2, n), (n + 1) // 2, n}):  # (K = 1 over long rows: reduced)
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="sort", device=d)
        assert notes["segment"] == 1 << (n - 1).bit_length()
    x = random_values(rng, (300, 40), dtype)
    check(x, 20, 0, "decreasing", strategy="sort", device=d)  # strided rows


@pytest.mark.parametrize("group, per_thread", [(256, 4), (512, 8), (2048, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_sort_geometry(tuned, dtype, group, per_thread):
    """The whole-row sort with other workgroup sizes (TOPK_SORT_GROUP entries a workgroup,
    TOPK_SORT_PER_THREAD a thread): rows shorter than a group, as long, longer (a group of
    one row), a last group of fewer rows."""
    d = tuned(TOPK_SORT_GROUP=group, TOPK_SORT_PER_THREAD=per_thread, TOPK_SORT_ROWS_MAX=2048,
              **NO_ROWS)
    rng = rng_for("sort geometry", dtype, group)
    for rows, n in ((7, 37), (3, group), (5, 1000)):
        x = random_values(rng, (rows, n), dtype)
        for direction in ("decreasing", "increasing"):
            notes = check(x, min(n, 64), -1, direction, strategy="sort", device=d)
        assert notes["rows_per_group"] == max(1, min(rows, group // (1 << (n - 1).bit_length())))


def test_sort_items_checked(tuned):
    d = tuned(TOPK_SORT_ITEMS=3, **NO_ROWS)
    with pytest.raises(ValueError, match="TOPK_SORT_ITEMS: 3"):
        check(np.zeros((2, 5), np.float32), 2, device=d)


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64bit_values_differ_in_low_bits(dev, tuned, dtype):
    rng = rng_for("low bits", dtype)
    base = np.array(1 << 40, dtype)
    x = (base + rng.integers(0, 4, (4, 3000))).astype(dtype)
    x[:, 100] = base + 3  # ties with others
    x[:, 5] = np.iinfo(dtype).max
    x[:, 6] = np.iinfo(dtype).max - 1
    for direction in ("decreasing", "increasing"):
        check(x[:, :1000], 9, -1, direction, strategy="rows", device=dev)
    d = tuned(**NO_ROWS)  # (plans from here on: tuning numbers are global)
    for direction in ("decreasing", "increasing"):
        check(x[:, :1000], 9, -1, direction, strategy="sort", device=d)
        check(x, 9, -1, direction, strategy="threshold", device=d)


@pytest.mark.parametrize("shape, axis", [
    ((7,), 0), ((6, 5), 0), ((4, 3, 5), 1), ((2, 3, 4, 5), -2), ((2, 1, 3, 1, 4), 2),
    ((2, 2, 1, 2, 2, 3), 5), ((1, 2, 2, 2, 2, 1, 3), 3), ((2, 1, 2, 1, 2, 1, 2, 3), 0),
])
def test_sort_ranks_and_axes(dev, tuned, shape, axis):
    x = random_values(rng_for("ranks", shape), shape, "float32")
    n = shape[axis]
    ks = sorted({1, (n + 1) // 2, n})
    for k in ks:
        check(x, k, axis, "decreasing", strategy="regs", device=dev)
    d = tuned(**NO_ROWS)  # (plans from here on: tuning numbers are global)
    for k in ks:
        check(x, k, axis, "decreasing", strategy="sort", device=d)
    check(x, n, axis, "increasing", strategy="sort", device=d)


def test_sort_views(dev):
    host = random_values(rng_for("views"), (6, 40), "float32")
    t = dg.asarray(host)
    check(t.T, 3, 1)  # transposed: rows of stride 40
    check(t.T, 4, 0)
    check(t[:, ::3], 5, 1)  # sliced
    check(t[::-1, ::-2], 5, 1)  # negative strides
    check(t[1:5, 7:30], 4, 0)  # offset
    check(dg.broadcast_to(t[2:3, :], (4, 40)), 6, 1)  # stride 0 over rows
    check(dg.broadcast_to(t[:, 3:4], (6, 9)), 6, 1)  # stride 0 along the axis: all ties
    check(t.reshape(2, 3, 40).transpose(2, 0, 1), 7, 0)  # middle-strided, axis first


def test_many_short_rows(tuned):
    # many rows share a workgroup (segments of 4): row and segment boundaries
    d = tuned(**NO_ROWS)
    x = random_values(rng_for("short rows"), (1000, 3), "int16")
    for k in (1, 2, 3):
        notes = check(x, k, -1, "increasing", strategy="sort", device=d)
    assert notes["rows_per_group"] > 1


# -- strategy "regs": K <= 8 over short rows, each thread's K best in registers --------

def regs_rows(rng, dtype, n, rows):
    """Rows of n: ties with the type's specials, distinct-ish values, one value throughout
    and two values (1 in 3 positions the first)."""
    x = np.concatenate([random_values(rng, (rows - 3, n), dtype),
                        random_values(rng, (3, n), dtype, ties=False)])
    x[-1] = x[-1, 0]
    x[-2] = np.where(np.arange(n) % 3 == 0, x[-2, 0], x[-2, 1])
    return x


# a thread a row (more only below TOPK_REGS_TARGET_THREADS); as many as MIN_ELEMS allow
ONE_THREAD = dict(TOPK_REGS_TARGET_THREADS=0)
MANY_THREADS = dict(TOPK_REGS_MIN_ELEMS=2)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("threads", ["one", "many"])
def test_regs_dtypes(tuned, dtype, threads):
    d = tuned(**(ONE_THREAD if threads == "one" else MANY_THREADS))
    rng = rng_for("regs", dtype)
    bits = np.dtype(dtype).itemsize * 8
    # rows of 5 to 256, 70 of them (a workgroup's rows partial); 8/16-bit rows of 77 off
    # word boundaries (staged by element), of 32 to 256 by word; 8/16-bit keys from K = 5
    # eight elements at a time (batch)
    # (K = 2 over rows past TOPK_REGS_MAX_N in (key, position) pairs: "rows")
    for n, ks in ((5, (1, 3)), (32, (1, 2, 8)), (77, (3, 8)), (128, (7,)),
                  (256, (1, 2) if bits <= 16 else (1,))):
        x = regs_rows(rng, dtype, n, 70)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="regs", device=d)
            # (float32 from K = 5: the keys' top bits with the position, test_regs_truncated_keys)
            assert notes["trunc"] == (dtype == "float32" and k >= 5), notes
            assert notes["regs_mode"] == "stage", notes
            assert notes["pk"] == (bits <= 16 or notes["trunc"]), notes
            assert notes["batch"] == (bits <= 16 and k >= 5 or notes["trunc"] and k <= 7), notes
            assert notes["packed"] == (bits < 32 and n % (32 // bits) == 0), notes
            assert (notes["threads_per_row"] == 1) == (threads == "one" or n < 2 * k), notes
    # rows side by side (the first axis): "direct"
    for n, ks in ((32, (1, 8)), (77, (2, 5))):
        x = np.ascontiguousarray(regs_rows(rng, dtype, n, 70).T)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, 0, direction, strategy="regs", device=d)
            assert notes["regs_mode"] == "direct" and notes["rows_first"] == (k > 1), notes
            # (batched word lanes keep TOPK_REGS_BATCH_MIN_ELEMS a thread: one a row here)
            assert (notes["threads_per_row"] == 1) == (threads == "one" or notes["batch"]
                                                       and notes["word_lanes"]), notes


@pytest.mark.parametrize("dtype", ["float16", "float32", "uint8", "int64"])
def test_regs_whole_chunks(tuned, dtype):
    """Contiguous rows that fill every chunk of "regs"'s stage skip the checks against a
    row's end (TOPK_REGS_WHOLE_CHUNKS), rows that end mid-chunk keep them, and so does a
    single row that ends mid-word (packed whatever its length, its last word's units filling
    the chunks): a thread a row and several, K = 1 and 8 (8/16-bit: eight at a time), both
    directions, and rows that fill them read from a view one element in (8/16-bit: element
    loads, chosen when bound)."""
    rng = rng_for("regs whole", dtype)
    size = np.dtype(dtype).itemsize
    per_word = max(1, 4 // size)
    seen = set()
    for threads in (ONE_THREAD, MANY_THREADS):
        for on in (True, False):
            d = tuned(TOPK_REGS_WHOLE_CHUNKS=on, **threads)
            for n, rows in ((64, 70), (37, 70), (64 - per_word + 1, 1)):
                x = random_values(rng, (1, n), dtype) if rows == 1 else regs_rows(rng, dtype,
                                                                                 n, rows)
                flat = np.concatenate([x[:1, :1].reshape(-1), x.reshape(-1)])
                mid = dg.asarray(flat, device=d)[1:].reshape(x.shape)
                for k in (1, 8):
                    for direction in ("decreasing", "increasing"):
                        notes = check(x, k, -1, direction, strategy="regs", device=d)
                        check(mid, k, -1, direction, strategy="regs", device=d)
                    units = (-(-n // per_word) if notes["packed"]
                             else n * (2 if size == 8 else 1))
                    whole = (units % (notes["threads_per_row"] * notes["stage_words"]) == 0
                             and (not notes["packed"] or n % per_word == 0))
                    assert notes["whole_chunks"] == (on and whole), notes
                    seen.add((notes["whole_chunks"], n, notes["packed"]))
    assert {(True, 64, size < 4), (False, 37, False), (False, 64, size < 4)} <= seen, seen
    if size < 4:  # (the single row ending mid-word: packed, not whole)
        assert (False, 64 - per_word + 1, True) in seen, seen


def test_regs_bounds(tuned):
    # K <= TOPK_REGS_MAX_K over rows of TOPK_REGS_MAX_N (8/16-bit: _PK), K <=
    # TOPK_REGS_SMALL_K over rows of TOPK_REGS_MAX_N_SMALL_K; beyond them "rows" (or
    # "sort": short rows, K > 8)
    d = tuned(TOPK_REGS_MAX_N=40, TOPK_REGS_MAX_N_PK=60, TOPK_REGS_MAX_N_SMALL_K=300)
    rng = rng_for("regs bounds")
    for dtype, n, k, last, first in (
            ("float32", 40, 8, "regs", "regs"), ("float32", 41, 8, "rows", "rows"),
            ("float32", 40, 9, "sort", "sort"), ("float16", 60, 8, "regs", "regs"),
            ("float16", 61, 8, "rows", "rows"), ("float32", 300, 1, "regs", "regs"),
            ("float32", 301, 1, "rows", "rows"), ("float16", 300, 2, "regs", "regs"),
            ("float32", 300, 3, "rows", "rows"),
            # K = 2 in (key, position) pairs along a contiguous axis: TOPK_REGS_MAX_N
            ("float32", 300, 2, "rows", "regs"), ("float32", 40, 2, "regs", "regs")):
        x = regs_rows(rng, dtype, n, 20)
        check(x, k, -1, "decreasing", strategy=last, device=d)
        check(np.ascontiguousarray(x.T), k, 0, "increasing", strategy=first, device=d)
    tuned(TOPK_REGS=False)
    check(regs_rows(rng, "float32", 40, 20), 2, -1, strategy="rows", device=dg.Device())


@pytest.mark.parametrize("dtype", ["float16", "int16"])
def test_regs_long_rows(tuned, dtype):
    # long contiguous 16-bit rows: K = 2 up to TOPK_REGS_LONG_MAX_N, K > 2 past the "rows"
    # kernel's TOPK_ROWS_MAX_N up to it, K = 1 up to TOPK_REGS_LONG_K1_MAX_N ("rows" in
    # chunks beyond, these being few); up to TOPK_REGS_MAX_TPR threads a row (128),
    # their lists merged in 7 rounds
    d = tuned(TOPK_ROWS_MAX_N=2500, TOPK_REGS_LONG_K1_MAX_N=3000)
    rng = rng_for("regs long", dtype)
    for n, k, strategy in ((3000, 1, "regs"), (3001, 1, "rows"), (2500, 2, "regs"),
                           (2500, 8, "rows"), (5000, 2, "regs"), (5000, 8, "regs"),
                           (5000, 5, "regs"), (32768, 2, "regs"), (32769, 2, "rows")):
        x = regs_rows(rng, dtype, n, 4)
        for direction in ("decreasing", "increasing"):
            notes = check(x, k, -1, direction, strategy=strategy, device=d)
        if strategy == "regs" and n >= 4096:
            assert notes["threads_per_row"] == 128 and notes["batch"] == (k >= 5), notes
    # rows side by side in whole words too (TOPK_REGS_LONG_WORDS)
    x = np.ascontiguousarray(regs_rows(rng, dtype, 5000, 4).T)
    assert check(x, 2, 0, strategy="regs", device=d)["word_lanes"]
    d = tuned(TOPK_ROWS_MAX_N=2500, TOPK_REGS_LONG_WORDS=False)
    check(x, 2, 0, strategy="rows", device=d)


@pytest.mark.parametrize("dtype", ["float16", "int8", "uint16"])
@pytest.mark.parametrize("threads", ["one", "many"])
def test_regs_word_lanes(tuned, dtype, threads):
    # 8/16-bit rows side by side in whole words: a thread takes a word of them, a list each
    # (batched lists from rows of TOPK_REGS_WORD_LANES_BATCH_MIN_N); at least LANE_ROWS
    # rows a workgroup; rows not in whole words, or a view starting mid-word (checked when
    # bound), take element loads
    d = tuned(**(ONE_THREAD if threads == "one" else MANY_THREADS),
              TOPK_REGS_WORD_LANES_BATCH_MIN_N=60)
    rng = rng_for("regs word lanes", dtype, threads)
    for n, ks in ((32, (1, 2, 5)), (77, (3, 8)), (200, (2, 8))):
        x = np.ascontiguousarray(regs_rows(rng, dtype, n, 72).T)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, 0, direction, strategy="regs", device=d)
            assert notes["word_lanes"] == (k < 5 or n >= 60), notes
            assert notes["regs_mode"] == "direct" and notes["rows_first"] == (k > 1), notes
    # more rows than threads in a workgroup (a thread a word of them)
    x = np.ascontiguousarray(regs_rows(rng, dtype, 64, 1200).T)
    for k in (2, 8):
        notes = check(x, k, 0, "increasing", strategy="regs", device=d)
        assert notes["word_lanes"], notes
    assert threads == "many" or notes["rows_per_group"] > notes["regs_wg"], notes
    x = np.ascontiguousarray(regs_rows(rng, dtype, 100, 73).T)  # rows not in whole words
    assert not check(x, 5, 0, strategy="regs", device=d)["word_lanes"]
    t = dg.asarray(np.ascontiguousarray(regs_rows(rng, dtype, 100, 81).T), device=d)
    for view in (t[:, 1:], t[3:, :80], t[::-1, 4:]):  # mid-word, offset rows, reversed
        for k in (2, 8):
            check(view, k, 0, "decreasing", strategy="regs", device=d)
    # mid-word, more rows than the element loads' workgroups hold a workgroup of word lanes'
    # worth: as many more workgroups (rows past them were left unwritten)
    t = dg.asarray(np.ascontiguousarray(regs_rows(rng, dtype, 64, 2052).T), device=d)
    for k in (1, 2, 8):
        notes = check(t[:, 1:2049], k, 0, "increasing", strategy="regs", device=d)
        assert notes["word_lanes"], notes
        assert -(-2048 // notes["rows_per_group"]) < -(-2048 * notes["threads_per_row"]
                                                         // notes["regs_wg"]), notes
    x3 = random_values(rng, (3, 90, 8), dtype)  # a middle axis: rows in words of the last
    assert check(x3, 6, 1, strategy="regs", device=d)["word_lanes"]


@pytest.mark.parametrize("axis", [1, 0])
def test_regs_values_from_keys(tuned, axis):
    # 8/16-bit outputs take their values from the entries' keys; where a key stands for
    # several values (float16 +-0.0, NaN of any payload) the value is read again: every
    # value bit for bit, NaN payloads and the zeros' signs included
    d = tuned(TOPK_REGS_WORD_LANES_BATCH_MIN_N=32, TOPK_REGS_VALUES_FROM_KEYS_MIN_N=32)
    rng = rng_for("regs values", axis)
    pool = np.array([0x7E01, 0xFE17, 0x7C01, 0xFFFF, 0x8000, 0x0000, 0x3C00, 0xC000, 0x7C00,
                     0xFC00, 0x0001, 0x8001], np.uint16)
    bits = pool[rng.integers(0, pool.size, (64, 40))]
    x = bits.view(np.float16)
    x = x if axis == 1 else np.ascontiguousarray(x.T)
    for k in (1, 3, 8):
        for direction in ("decreasing", "increasing"):
            notes = check(x, k, axis, direction, strategy="regs", device=d)
            values, _ = dg.top_k(dg.asarray(x, device=d), k, axis, axis_direction=direction)
            ev, _ = topk_reference(x, k, axis, direction == "decreasing", "uint32")
            assert np.array_equal(values.numpy().view(np.uint16), ev.view(np.uint16))
        assert notes["pk"] and notes["word_lanes"] == (axis == 0), notes
        assert notes["values_from_keys"], notes
    for dtype in ("int8", "uint16"):
        xi = random_values(rng, (64, 40), dtype)
        xi = xi if axis == 1 else np.ascontiguousarray(xi.T)
        check(xi, 5, axis, "increasing", strategy="regs", device=d)


@pytest.mark.parametrize("dtype", ["float16", "uint8", "int64"])
def test_regs_layouts(tuned, dtype):
    d = tuned()
    rng = rng_for("regs layouts", dtype)
    t = dg.asarray(random_values(rng, (60, 50), dtype), device=d)
    # sliced (the axis strided: direct), negative strides, offsets (8/16-bit rows off word
    # boundaries: staged by element), transposed, broadcast rows, a stride of 0 along the
    # axis (all ties), rank 5 with a middle axis
    for view, k, axis, mode in ((t[:, ::3], 5, 1, "direct"), (t[::-1, ::-2], 5, 1, "direct"),
                                (t[7:55, 3:41], 6, 0, "direct"), (t[3:, 1:], 4, 1, "stage"),
                                (t.T, 3, 1, "direct"), (t.T, 8, 0, "stage"),
                                (dg.broadcast_to(t[2:3, :], (9, 50)), 8, 1, "stage"),
                                (dg.broadcast_to(t[:, 3:4], (60, 45)), 6, 1, "direct")):
        for direction in ("decreasing", "increasing"):
            notes = check(view, k, axis, direction, strategy="regs", device=d)
        assert notes["regs_mode"] == mode, notes
    x5 = random_values(rng, (3, 4, 37, 2, 5), dtype)
    assert check(x5, 4, 2, strategy="regs", device=d)["regs_mode"] == "direct"
    assert check(x5, 2, 4, "increasing", strategy="regs", device=d)["regs_mode"] == "stage"


def trunc_rows(rng, n: int, k: int) -> np.ndarray:
    """float32 rows of n whose keys' low bits (below 2^bit_length(n)) decide or do not
    decide the top K: normal values (they rarely do), a top cluster within one block of
    low bits, shuffled (the K sorted again by whole keys), a cluster of 2K (ties past the
    K-th: the exact reselection), seven levels, half zeros, and rows of -inf with fewer
    than K + 1 finite values (the K-th and the next tie exactly)."""
    block = 1 << n.bit_length()
    base = np.float32(1.0 + block * 2.0**-23 * 3)  # (its key on a block boundary)
    x = rng.standard_normal((12, n)).astype(np.float32)
    for r, size in ((2, k), (3, k), (4, 2 * k), (5, 2 * k)):
        x[r] = np.float32(0.5)
        pos = rng.permutation(n)[:size]
        bits = (int(base.view(np.uint32)) + rng.permutation(block)[:size]).astype(np.uint32)
        x[r, pos] = bits.view(np.float32)
    x[[3, 5]] = -x[[3, 5]]  # (the clusters as INCREASING sees them)
    x[6:8] = rng.integers(-3, 4, (2, n)).astype(np.float32)
    x[8:10] = np.maximum(x[8:10], 0)
    x[10:12] = -np.inf
    x[10, rng.permutation(n)[:k - 1]] = 1.5
    x[11, rng.permutation(n)[:k]] = -1.5
    return x


@pytest.mark.parametrize("threads", ["one", "many"])
def test_regs_truncated_keys(tuned, threads):
    d = tuned(**(ONE_THREAD if threads == "one" else MANY_THREADS))
    rng = rng_for("regs trunc", threads)
    for n in (32, 77, 128):
        for k in (5, 7, 8):
            x = trunc_rows(rng, n, k)
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="regs", device=d)
                assert notes["trunc"] and notes["batch"] == (k <= 7), notes
    # not for other types, other layouts, smaller K or longer rows
    x = trunc_rows(rng, 128, 8)
    ints = rng.integers(-3, 4, x.shape).astype(np.int32)
    assert not check(ints, 8, -1, strategy="regs", device=d)["trunc"]
    assert not check(np.ascontiguousarray(x.T), 8, 0, strategy="regs", device=d)["trunc"]
    assert not check(x, 4, -1, strategy="regs", device=d)["trunc"]
    assert check(trunc_rows(rng, 256, 8), 8, -1, device=d)["strategy"] == "rows"


@pytest.mark.parametrize("dtype", ["float16", "int64"])
@pytest.mark.parametrize("k", [2, 5, 8])
def test_regs_memory(dev, dtype, k):
    # the plan shrinks the workgroup until the kernel's workgroup arrays (stage, merge
    # entries: 8 slots a thread for batched 8/16-bit lists, outputs, row offsets) fit the
    # device's memory; the kernel it renders declares no more than that, and compiles
    import re

    from dmlgpu import codegen, dtypes
    from dmlgpu.ops.topk import canonical, plan_topk
    dt = dtypes.DTYPES[dtype]
    for smem in (2048, 4096, dev.limits["max-compute-workgroup-storage-size"]):
        limits = dict(dev.limits, **{"max-compute-workgroup-storage-size": smem})
        # (float16 rows side by side take a word of them a thread, and batched lists at
        # least TOPK_REGS_BATCH_MIN_ELEMS elements a thread: longer rows for T > 1)
        n = 1024 if dtype == "float16" else 128
        for sizes, axis in (((64, 128), 1), ((n, 64), 0)):
            strides = (sizes[1], 1)
            out = tuple(k if i == axis else n for i, n in enumerate(sizes))
            shape = canonical(sizes, axis, strides, (out[1], 1), (out[1], 1))
            plan = plan_topk(shape, dt, k, True, 1, limits)
            notes = plan.notes
            assert notes["strategy"] == "regs" and notes["threads_per_row"] > 1, notes
            (step,) = plan.steps
            v = dict(step.variables, win_x=1, win_i=1, win_v=1)
            wgsl = codegen.render(step.template, v)
            consts = dict(re.findall(r"const (\w+) = (\d+)u;", wgsl))
            declared = sum(int(consts.get(m, m)) for m in re.findall(
                r"var<workgroup> \w+: array<u32, (\w+)>", wgsl))
            assert 0 < 4 * declared <= smem, (smem, declared, notes)
            if smem == 4096:
                assert dev.pipelines.get(step.template, **v)[0] is not None


def check_into(d, xt, axis, k, direction, off):
    """TopK of xt into outputs inside larger buffers, from element `off` of a flat one
    (None: every other element of each row of one twice as wide) equals the reference, the
    elements around them untouched; returns the plan notes."""
    x = xt.numpy()
    ev, ei = topk_reference(x, k, axis, direction == "decreasing", "uint32")
    big = (ev.size + 8,) if off is not None else (ev.shape[0], 2 * ev.shape[1])
    vbig = random_values(rng_for("regs fill", x.dtype.name), big, x.dtype.name)
    ibig = np.arange(int(np.prod(big)), dtype=np.uint32).reshape(big)
    vt, it = dg.asarray(vbig, device=d), dg.asarray(ibig, device=d)
    want_v, want_i = vbig.copy(), ibig.copy()
    if off is not None:
        vv = vt[off:off + ev.size].reshape(ev.shape)
        iv = it[off:off + ev.size].reshape(ev.shape)
        want_v[off:off + ev.size], want_i[off:off + ev.size] = ev.ravel(), ei.ravel()
    else:
        vv, iv = vt[:, 1::2], it[:, 1::2]
        want_v[:, 1::2], want_i[:, 1::2] = ev, ei
    op = d.compile(dg.TopK1Desc(dg.TensorDesc.of(xt), dg.TensorDesc.of(vv),
                                dg.TensorDesc.of(iv), axis, k, direction))
    op(inputs=[xt], outputs=[vv, iv])
    assert_same(vt, want_v)
    assert_same(it, want_i)
    return op.plan.notes


@pytest.mark.parametrize("dtype", ["float16", "int8", "float32"])
@pytest.mark.parametrize("axis", [1, 0])
def test_regs_outputs(tuned, dtype, axis):
    # outputs a row's K apart (j first) or rows apart (rows first): 8/16-bit values written
    # a word at a time (vwords), the words a workgroup shares with its neighbours merged,
    # here at every offset within a word; strided outputs element by element; the
    # elements around the outputs untouched
    d = tuned(**ONE_THREAD)  # (256 rows a workgroup: 600 rows take three)
    rng = rng_for("regs outputs", dtype, axis)
    x = regs_rows(rng, dtype, 32, 600)
    x = x if axis == 1 else np.ascontiguousarray(x.T)
    xt = dg.asarray(x, device=d)
    for k in (1, 3, 8):
        for off in (0, 1, 2, None):  # contiguous from element `off`; None: every other one
            notes = check_into(d, xt, axis, k, "decreasing", off)
            assert notes["strategy"] == "regs" and notes["threads_per_row"] == 1, notes
            assert notes["vwords"] == (np.dtype(dtype).itemsize < 4 and off is not None), notes
            assert notes["rows_first"] == (axis == 0 and k > 1), notes


def register_rows(rng, dtype):
    """(n, rows of n) for the outputs-from-registers tests: rows of 32 (one unrolled step),
    77 and 128 (float16: +-0.0 and NaN at every fifth place of every third row)."""
    for n, rows in ((32, 600), (77, 601), (128, 66)):
        x = regs_rows(rng, dtype, n, rows)
        if dtype == "float16" and n == 128:
            x.view(np.uint16)[::3, ::5] = rng.choice(np.array([0x8000, 0, 0x7E01, 0xFE17],
                                                              np.uint16), (22, 26))
        yield n, x


@pytest.mark.parametrize("dtype", ["float16", "int8", "float32", "int64"])
def test_regs_outputs_from_registers(tuned, dtype):
    # a thread a row, rows side by side, their j-th outputs adjacent: each thread writes its
    # K outputs from its registers (8/16-bit values a word of W rows at a time, merged where
    # the outputs start mid-word: every offset within a word, and odd row counts, whose
    # runs alternate); rows of 32 (one unrolled step), 77 (steps of 32 and 8, then one at a
    # time) and 128 (float16: values from the keys, +-0.0 and NaN read again); the
    # elements around the outputs untouched
    d = tuned(**ONE_THREAD)
    small = np.dtype(dtype).itemsize < 4
    rng = rng_for("regs outputs from registers", dtype)
    for n, x in register_rows(rng, dtype):
        x = np.ascontiguousarray(x.T)  # (rows side by side)
        rows = x.shape[1]
        xt = dg.asarray(x, device=d)
        for k in (2, 5, 8):
            for direction in ("decreasing", "increasing"):
                for off in (0, 1, 3):
                    notes = check_into(d, xt, 0, k, direction, off)
                    assert notes["strategy"] == "regs" and notes["regs_mode"] == "direct", notes
                    assert notes["threads_per_row"] == 1 and notes["rows_first"], notes
                    assert notes["reg_out"] == (not small or notes["word_lanes"]), notes
                    assert notes["word_lanes"] == (small and rows % (4 // x.itemsize) == 0), notes
        assert notes["values_from_keys"] == (small and n >= 128), notes
    # int64 indices (two words an index)
    x = np.ascontiguousarray(regs_rows(rng, dtype, 32, 128).T)
    assert check(x, 8, 0, "increasing", "int64", strategy="regs", device=d)["reg_out"]
    # a view one element in: element loads, the outputs through workgroup memory again
    t = dg.asarray(np.ascontiguousarray(regs_rows(rng, dtype, 40, 129).T), device=d)
    for k in (2, 8):
        check(t[:, 1:], k, 0, "decreasing", strategy="regs", device=d)


@pytest.mark.parametrize("dtype", ["float16", "int8", "float32", "int64"])
def test_regs_stage_outputs_from_registers(tuned, dtype):
    # a thread a contiguous row (stage) writes its row's K outputs from its registers;
    # 8/16-bit values where K fills value words (K = 8, not 5): a row's words whole where
    # its outputs start on a word, else each value merged (every offset within a word);
    # strided outputs (None) element by element (8/16-bit: through workgroup memory);
    # rows of 32, 77 (not whole chunks) and 128 (float16: values from the keys, +-0.0 and
    # NaN read again); not float32 at K > 4 (truncated keys) nor 64-bit types: through
    # workgroup memory; the elements around the outputs untouched
    d = tuned(**ONE_THREAD)
    small, wide = np.dtype(dtype).itemsize < 4, np.dtype(dtype).itemsize > 4
    per_word = max(1, 4 // np.dtype(dtype).itemsize)
    rng = rng_for("regs stage outputs from registers", dtype)
    for n, x in register_rows(rng, dtype):
        xt = dg.asarray(x, device=d)
        for k in (2, 5, 8):
            for direction in ("decreasing", "increasing"):
                for off in (0, 1, 3, None):
                    notes = check_into(d, xt, 1, k, direction, off)
                    assert notes["strategy"] == "regs" and notes["regs_mode"] == "stage", notes
                    assert notes["threads_per_row"] == 1, notes
                    want = (not notes["trunc"] and not wide
                            and (not small or off is not None and k % per_word == 0))
                    assert notes["reg_out"] == want, notes
        assert notes["values_from_keys"] == (small and n >= 128), notes
    # int64 indices (two words an index); a view one element in (element loads)
    x = regs_rows(rng, dtype, 32, 128)
    notes = check(x, 8 if small else 4, 1, "increasing", "int64", strategy="regs", device=d)
    assert notes["reg_out"] == (not wide), notes
    t = dg.asarray(regs_rows(rng, dtype, 129, 40), device=d)
    for k in (2, 4):
        notes = check(t[:, 1:], k, 1, "decreasing", strategy="regs", device=d)
        assert notes["reg_out"] == (not wide and (not small or k % per_word == 0)), notes


# -- strategy "rows": several short rows per workgroup, the bound of 2K bucket bests ----

def rows_cases(rng, dtype, n, rows=6):
    """Rows of n: distinct-ish values with specials (few candidates), random ties (ties at T,
    often within the cap), and one value throughout (n candidates: past the cap when n is,
    so the kernel's K-round fallback takes the row)."""
    x = np.concatenate([random_values(rng, (rows - 2, n), dtype, ties=False),
                        random_values(rng, (2, n), dtype)])
    x[-1] = x[-1, 0]
    return x


# the rows kernel also where short rows with K > TOPK_ROWS_SHORT_MAX_K go to the sort
SHORT_ROWS = dict(TOPK_ROWS_MIN_N_PER_K=0, **NO_REGS)


def tie_rows(rng, dtype: str, n: int) -> np.ndarray:
    """Five rows of n: 0-2 distinct-ish values with the type's extremes (few candidates),
    3 one value throughout and 4 two values, so that their ties at T overflow the
    candidate slots into a fallback."""
    x = np.concatenate([random_values(rng, (3, n), dtype, ties=False),
                        random_values(rng, (2, n), dtype)])
    x[3] = x[3, 0]
    x[4] = np.where(np.arange(n) % 3 == 0, x[4, 0], x[4, 1])
    return x


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_rows_dtypes(tuned, dtype):
    dev = tuned(**SHORT_ROWS)
    rng = rng_for("rows", dtype)
    for n, ks in ((3, (1, 2, 3)), (40, (1, 2, 7, 32)), (300, (1, 5, 17, 32)),
                  (2100, (2, 8, 32))):
        x = rows_cases(rng, dtype, n)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="rows", device=dev)
            assert not notes["interleave"] and notes["buckets"] >= k
            # the last row's n candidates overflow the slots: its rows take the fallback
            assert n <= 40 or n > notes["rows_cap"], notes
    # an outer axis of many rows: lanes over rows
    x = rows_cases(rng, dtype, 200, rows=40)
    for k in (1, 3, 32):
        notes = check(np.ascontiguousarray(x.T), k, 0, "decreasing", strategy="rows",
                      device=dev)
        assert notes["interleave"], notes
    notes = check(np.ascontiguousarray(x.T), 9, 0, "increasing", strategy="rows", device=dev)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8"])
def test_rows_lanes(tuned, dtype):
    # over an outer axis, lanes over 32 bytes of neighbouring rows; from rows of
    # TOPK_ROWS_LANE_WIDE_N on over TOPK_ROWS_LANE_ROWS rows (at most LANE_MAX_BYTES, and
    # no more than 2K buckets' threads per lane allow); the last workgroup's rows partial
    d = tuned(**NO_REGS)
    rng = rng_for("rows lanes", dtype)
    bits = np.dtype(dtype).itemsize * 8
    narrow = 32 * 8 // bits
    for n, rows in ((300, 45), (600, 45), (600, 70)):
        x = np.ascontiguousarray(rows_cases(rng, dtype, n, rows=rows).T)
        for k, direction in ((1, "decreasing"), (8, "increasing"), (32, "decreasing")):
            notes = check(x, k, 0, direction, strategy="rows", device=d)
            wide = max(narrow, min(32, 128 * 8 // bits)) if n >= 512 else narrow
            cap = max(1, d.limits["max-compute-invocations-per-workgroup"] // (2 * k))
            assert notes["interleave"] and notes["lane_rows"] == min(wide, cap), notes


def test_rows_short_large_k(tuned):
    # rows shorter than TOPK_ROWS_MIN_N_PER_K x K, K > TOPK_ROWS_SHORT_MAX_K: the sort
    d = tuned(**NO_REGS)
    rng = rng_for("rows short")
    x = rows_cases(rng, "float16", 128, rows=20)
    for k, strategy in ((8, "rows"), (16, "rows"), (17, "sort"), (32, "sort")):
        check(x, k, -1, "decreasing", strategy=strategy, device=d)
        check(np.ascontiguousarray(x.T), k, 0, "increasing", strategy=strategy, device=d)
    check(x[:, :32], 16, -1, "increasing", strategy="sort", device=d)
    check(x[:, :32], 8, -1, "increasing", strategy="rows", device=d)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "int16"])
def test_rows_sorted_range_k(tuned, dtype):
    """K above TOPK_ROWS_MAX_K up to TOPK_ROWS_SORTED_MAX_K over rows the whole-row sort
    would take (at most TOPK_SORT_ROWS_MAX) that hold TOPK_ROWS_SORTED_MIN_N_PER_K x K:
    the rows kernel (its last rows' ties past the slots to the fallback), both directions,
    the last axis and the first; larger K, shorter rows and longer ones keep their plans
    ("wide", the sort, "threshold")."""
    d = tuned(**NO_REGS)
    rng = rng_for("rows sorted k", dtype)
    n_per_k = tuning.TOPK_ROWS_SORTED_MIN_N_PER_K
    for n, k in ((1000, 50), (1000, 64), (1024, 33), (n_per_k * 40, 40)):
        x = rows_cases(rng, dtype, n, rows=5)
        notes = check(x, k, -1, "decreasing", strategy="rows", device=d)
        assert notes["buckets"] >= k and not notes["interleave"], notes
        check(x, k, -1, "increasing", strategy="rows", device=d)
        check(np.ascontiguousarray(x.T), k, 0, "decreasing", device=d)
    x = rows_cases(rng, dtype, 1000, rows=3)
    assert check(x, 65, -1, "decreasing", device=d)["strategy"] != "rows"  # K past it
    check(x[:, :n_per_k * 40 - 1], 40, -1, "decreasing", strategy="sort", device=d)
    check(rows_cases(rng, dtype, 2048, rows=3), 40, -1, "decreasing", strategy="threshold",
          device=d)


def test_rows_layouts(tuned):
    dev = tuned(**SHORT_ROWS)
    rng = rng_for("rows layouts")
    # many rows per workgroup (TPR 2: 128 rows), more threads than elements (K = 32 of 40)
    x = rows_cases(rng, "float32", 33, rows=300)
    notes = check(x, 1, -1, "decreasing", strategy="rows", device=dev)
    assert notes["rows_per_group"] > 64, notes
    x = rows_cases(rng, "int8", 40)
    notes = check(x, 32, -1, "increasing", strategy="rows", device=dev)
    assert notes["threads_per_row"] > 40, notes
    # views: transposed, sliced, negative strides, an offset, broadcast rows and a stride
    # of 0 along the axis (all ties: the fallback), rank 5 with a middle axis
    t = dg.asarray(random_values(rng, (60, 50), "float16"), device=dev)
    check(t.T, 3, 1, device=dev)
    check(t.T, 4, 0, device=dev)
    check(t[:, ::3], 5, 1, strategy="rows", device=dev)
    check(t[::-1, ::-2], 5, 1, strategy="rows", device=dev)
    check(t[7:55, 3:41], 6, 0, strategy="rows", device=dev)
    check(dg.broadcast_to(t[2:3, :], (9, 50)), 8, 1, strategy="rows", device=dev)
    check(dg.broadcast_to(t[:, 3:4], (60, 45)), 6, 1, "increasing", strategy="rows",
          device=dev)
    x5 = random_values(rng, (3, 4, 37, 2, 5), "uint16")
    check(x5, 4, 2, strategy="rows", device=dev)
    check(x5, 2, 4, "increasing", strategy="rows", device=dev)


def test_rows_long_outer_axis_and_small_memory(tuned):
    # over an outer axis any length with enough rows (thresholds lowered to reach it), and
    # candidate slots shrunk to 2K by the byte budget
    d = tuned(TOPK_ROWS_MAX_N=64, TOPK_ROWS_MIN_ROWS=16, TOPK_ROWS_CAND_BYTES=256,
              TOPK_ROWS_CHUNK=1024, TOPK_ROWS_CHUNK_PER_K=4)
    rng = rng_for("rows long")
    x = np.ascontiguousarray(rows_cases(rng, "float32", 3000, rows=20).T)
    for k in (1, 6, 32):
        notes = check(x, k, 0, "decreasing", strategy="rows", device=d)
        assert notes["interleave"] and notes["rows_cap"] < max(32, 4 * k), notes
    # K past TOPK_ROWS_MAX_K over rows of lanes long enough for it (4 K)
    notes = check(x, 64, 0, "increasing", strategy="rows", device=d)
    assert notes["interleave"] and notes["chunks"] == 1, notes
    x = rows_cases(rng, "int64", 3000, rows=3)
    notes = check(x, 4, -1, "decreasing", strategy="rows", device=d)  # contiguous: chunks
    assert notes["chunks"] > 1 and not notes["interleave"], notes


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_rows_chunks_dtypes(tuned, dtype):
    # few long rows: each chunk's K best (sorted, missing entries past a short last chunk)
    # merged; the all-equal row overflows a chunk's slots (K rounds per chunk); K = 1 over
    # contiguous rows is chunked where they are too few for "threshold"
    d = tuned(**SMALL_CHUNKS)
    rng = rng_for("rows chunks", dtype)
    # last chunks of 3 (chunks of 64) and 21 positions (of 128, 512: K past TOPK_ROWS_MAX_K)
    for n, ks in ((1027, (2, 5, 16)), (1045, (32, 100))):
        x = rows_cases(rng, dtype, n, rows=5)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="rows", device=d)
            assert notes["chunks"] > 1 and not notes["interleave"], notes
    for direction in ("decreasing", "increasing"):
        notes = check(x, 1, -1, direction, strategy="rows", device=d)
    assert notes["chunks"] > 1, notes
    # ...from TOPK_THRESHOLD_LONG_MIN_ROWS rows on, a reduction
    d = tuned(**SMALL_CHUNKS, TOPK_THRESHOLD_LONG_MIN_ROWS=5)
    notes = check(x, 1, -1, "increasing", strategy="threshold", device=d)
    d = tuned(**SMALL_CHUNKS)
    # an outer axis: lanes over 40 rows side by side, and 3 rows (strided, no lanes); K <= 2
    # over at least TOPK_ROWS_CHUNK_OUTER_MIN_ROWS rows in chunks half as long (of 32)
    x = rows_cases(rng, dtype, 1045, rows=40)
    for k, direction in ((1, "decreasing"), (2, "increasing"), (3, "increasing"),
                         (32, "decreasing"), (70, "increasing")):
        notes = check(np.ascontiguousarray(x.T), k, 0, direction, strategy="rows", device=d)
        assert notes["chunks"] > 1 and notes["interleave"], notes
        if k <= 3:
            assert notes["chunks"] == ceil_div(1045, 32 if k <= 2 else 64), notes
    for k in (2, 4):
        notes = check(np.ascontiguousarray(x[:3].T), k, 0, "increasing", strategy="rows",
                      device=d)
        assert notes["chunks"] == ceil_div(1045, 64) and not notes["interleave"], notes


def test_rows_chunks_layouts(tuned):
    d = tuned(**SMALL_CHUNKS)
    rng = rng_for("rows chunks layouts")
    t = dg.asarray(random_values(rng, (700, 45), "float16"), device=d)
    # transposed, reversed and mid-word, sliced with a step, an offset, broadcast rows,
    # rank 4 with a middle axis, 64-bit indices
    for view, k, axis in ((t.T, 6, 1), (t[::-1, 1:], 9, 0), (t[5:690:2, 3:40], 7, 0),
                          (t[3:, 7:8].T, 2, 1), (dg.broadcast_to(t[:, 4:5], (700, 3)), 5, 0)):
        notes = check(view, k, axis, "decreasing", strategy="rows", device=d)
        assert notes["chunks"] > 1, notes
    x4 = random_values(rng, (2, 3, 300, 5), "int32")
    notes = check(x4, 8, 2, "increasing", "int64", strategy="rows", device=d)
    assert notes["chunks"] > 1, notes
    notes = check(x4[:, :, ::-1, :].transpose(0, 3, 2, 1), 3, 2, "decreasing", "uint64",
                  strategy="rows", device=d)
    assert notes["chunks"] > 1, notes
    # lots of tasks: more merge inputs than one select workgroup takes
    x = random_values(rng, (2, 40000), "float32", ties=False)
    notes = check(x, 4, -1, "decreasing", strategy="rows", device=d)
    assert notes["chunks"] == 625 and notes["merge_passes"] == 1, notes


# -- 8/16-bit rows read a word at a time ("rows" and "threshold", variable packed) -------

PACKED_DTYPES = ["float16", "int16", "uint16", "int8", "uint8"]


@pytest.mark.parametrize("dtype", PACKED_DTYPES)
def test_packed_rows(tuned, dtype):
    # rows of whole words and rows whose last word is partial (n = 301, 2102 of rows of a
    # multiple of 4 elements: the lanes past n are the next row's or padding); the
    # random-ties and all-equal rows take the K rounds, which read words too
    d = tuned(**NO_REGS)
    rng = rng_for("packed rows", dtype)
    for n, ks in ((40, (1, 4)), (301, (2, 17, 32)), (2102, (8, 32))):
        x = rows_cases(rng, dtype, n)
        x = dg.asarray(np.pad(x, ((0, 0), (0, -n % 4 + 4))), device=d)[:, :n]
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy="rows", device=d)
            assert notes["packed"], notes
    # chunks of long rows (a chunk starts on a word: chunks are 64 long here)
    d = tuned(**SMALL_CHUNKS)
    x = rows_cases(rng, dtype, 1028, rows=5)  # a last chunk of 4: fewer than K = 8
    for k, direction in ((2, "decreasing"), (8, "increasing")):
        notes = check(x, k, -1, direction, strategy="rows", device=d)
        assert notes["packed"] and notes["chunks"] > 1, notes


@pytest.mark.parametrize("dtype", PACKED_DTYPES)
def test_rows_word_lanes(tuned, dtype):
    # over an outer axis, rows side by side a word of rows at a time: whole rows (rows of
    # 40 and 600: narrow and wide lanes), an all-equal row beside distinct ones in one word
    # (its K rounds alone), chunks of long rows with their merge, and the element path
    # where the rows are not whole words (odd count, a view starting mid-word, tuning off)
    d = tuned(**SHORT_ROWS)
    rng = rng_for("word lanes", dtype)
    for n, ks in ((40, (1, 3, 8)), (600, (2, 17, 32))):
        x = np.ascontiguousarray(rows_cases(rng, dtype, n, rows=40).T)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, 0, direction, strategy="rows", device=d)
            assert notes["interleave"] and notes["word_lanes"], notes
            assert n <= 40 or n > notes["rows_cap"], notes  # (the all-equal row's rounds)
    # a rank-3 view: rows over two kept dims, the axis in the middle
    x3 = random_values(rng, (3, 50, 8), dtype)
    notes = check(x3, 5, 1, "increasing", strategy="rows", device=d)
    assert notes["word_lanes"], notes
    dc = tuned(**SMALL_CHUNKS, TOPK_ROWS_MIN_ROWS=1 << 20)
    x = np.ascontiguousarray(rows_cases(rng, dtype, 1030, rows=16).T)
    for k, direction in ((1, "decreasing"), (2, "increasing"), (8, "decreasing")):
        notes = check(x, k, 0, direction, strategy="rows", device=dc)
        assert notes["word_lanes"] and notes["chunks"] > 1, notes
        assert notes["merge_wg"] < notes["wg"], notes  # (a merge no larger than it needs)
    t = dg.asarray(np.ascontiguousarray(rows_cases(rng, dtype, 300, rows=42).T), device=d)
    per_word = 4 // np.dtype(dtype).itemsize
    # (8-bit: rows 42 apart are not whole words; 16-bit: 1:41 starts mid-word, planned as
    # words and bound as elements)
    for view in (t[:, :41], t[:, 1:41], t[:, 2:42]):
        notes = check(view, 4, 0, "decreasing", strategy="rows", device=d)
        words = view.shape[1] % per_word == 0 and 42 % per_word == 0
        assert notes["word_lanes"] is words, notes
    off = tuned(**SHORT_ROWS, TOPK_ROWS_WORD_LANES=False)
    notes = check(t, 8, 0, "increasing", strategy="rows", device=off)
    assert notes["interleave"] and not notes["word_lanes"], notes


@pytest.mark.parametrize("dtype", PACKED_DTYPES)
def test_packed_threshold(tuned, dtype):
    # as test_threshold_dtypes, on rows of whole words (4100) and a partial last word (4102:
    # 8-bit); rows 3-4 tie at T past the cap (the fallback)
    d = tuned(**NO_CHUNKS)
    rng = rng_for("packed threshold", dtype)
    for n in (4100, 4102):
        x = tie_rows(rng, dtype, n)
        t = dg.asarray(np.pad(x, ((0, 0), (0, -n % 4))), device=d)[:, :n]
        for direction in ("decreasing", "increasing"):
            for k in (1, 8, 100):
                notes = check(t, k, -1, direction, strategy="threshold", device=d)
                assert notes["packed"], notes
        assert list(fallback_flags(t, 8, device=d)[3:]) == [1, 1]


def test_packed_views_and_off(tuned):
    d = tuned(**NO_CHUNKS)
    rng = rng_for("packed views")
    x = rows_cases(rng, "float16", 4098, rows=6)
    t = dg.asarray(x, device=d)
    # rows starting mid-word (the binding's offset, checked when bound: element loads), an
    # offset of whole words, a strided axis and odd rows (element loads by the plan)
    for view, k in ((t[:, 1:], 8), (t[:, 3:], 100), (t[1:, 2:], 8), (t[:, 2:300], 6)):
        check(view, k, -1, "decreasing", device=d)
        check(view, k, -1, "increasing", device=d)
    notes = check(t[:, ::2], 8, -1, device=d)
    assert not notes["packed"], notes
    notes = check(x[:, :301], 8, -1, device=d)
    assert not notes["packed"], notes
    # bindings split into windows: words across a window's end
    w = dg.Device(max_binding_size=4096)
    notes = check(random_values(rng, (3, 4500), "float16"), 7, -1, device=w)
    assert notes["packed"], notes
    # the element path for the same rows where tuning turns words off
    d = tuned(TOPK_PACKED=False)
    for k in (1, 8):
        notes = check(x, k, -1, device=d)
        assert not notes.get("packed"), notes


# -- strategy "select": one workgroup per row, rows in registers ----------------------

@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8"])
def test_select(tuned, dtype):
    d = tuned(**NO_THRESHOLD)
    rng = rng_for("select", dtype)
    x = random_values(rng, (3, 5000), dtype)
    for direction in ("decreasing", "increasing"):
        for k in (2, 37, 1000):
            check(x, k, -1, direction, strategy="select", device=d)


@pytest.mark.parametrize("direction", ["decreasing", "increasing"])
def test_select_k1(tuned, direction):
    d = tuned(**NO_THRESHOLD)
    x = random_values(rng_for("select k1", direction), (4, 16384), "float32")
    x[1] = x[1, 77]  # a row of one value: the first index wins
    check(x, 1, -1, direction, strategy="select", device=d)
    check(x[:, :3001], 1, -1, direction, strategy="select", device=d)  # a partial tile


def test_select_full_tile_and_distinct(tuned):
    d = tuned(**NO_THRESHOLD)
    x = random_values(rng_for("select tile"), (2, 16384), "float32", ties=False, specials=False)
    check(x, 1000, -1, "decreasing", strategy="select", device=d)
    check(x, 2048, -1, "increasing", strategy="select", device=d)


@pytest.mark.parametrize("strategy", ["threshold", "select"])
def test_select_middle_axis(dev, tuned, strategy):
    d = tuned(**NO_ROWS) if strategy == "threshold" else tuned(**NO_THRESHOLD)
    x = random_values(rng_for("select middle"), (3, 2500, 4), "float32")
    check(x, 11, 1, "decreasing", strategy=strategy, device=d)
    t = dg.asarray(x, device=d)
    check(t.transpose(2, 1, 0), 5, 1, "increasing", strategy=strategy)


# -- strategy "threshold": the K-th best thread maximum bounds the candidates ----------

def row_flags(x, k, direction="decreasing", device=None, strategy="threshold"):
    """Runs the "threshold" (or "wide") plan on x and returns its per-row flag words (per
    chunk for a chunked "wide", row-major)."""
    t = x if isinstance(x, dg.Tensor) else dg.asarray(x, device=device)
    op = compiled(t, k, -1, direction)
    assert op.plan.notes["strategy"] == strategy
    with dispatch.recording() as calls:  # keeps the call's scratch from other calls
        op(inputs=[t])
    _, holds = calls[-1]
    ctl = holds[[name for name, _, _ in op.scratch].index("ctl")]
    return op.device.download(ctl.buffer, 0, op.plan.scratch["ctl"]).view(np.uint32)


def fallback_flags(x, k, direction="decreasing", device=None, strategy="threshold"):
    """Per row (chunk): 1 where it had too many candidates and the fallback kernels redid it."""
    return row_flags(x, k, direction, device, strategy) & 1


def bitonic_flags(x, k, direction="decreasing", device=None):
    """Per row of a "wide" plan: 1 where its K best were sorted by the bitonic sort (steps
    6-7) rather than ranked by bins (step 5), or it fell back."""
    f = row_flags(x, k, direction, device, "wide")
    return (f >> 1 | f) & 1


# T and the candidates' order by ranking each against all (tuning's choice for small K) or
# by bitonic sorts
T_BY = {"rank": dict(TOPK_THRESHOLD_SORT_T_MIN_BUCKETS=1 << 30,
                     TOPK_THRESHOLD_SORT_CANDS_MIN_K=1 << 30),
        "sort": dict(TOPK_THRESHOLD_SORT_T_MIN_BUCKETS=0, TOPK_THRESHOLD_SORT_CANDS_MIN_K=0)}


@pytest.mark.parametrize("t_by", T_BY)
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_threshold_dtypes(tuned, dtype, t_by):
    # rows 0-2: distinct-ish values with extremes (and NaN/inf/-0.0): few candidates;
    # rows 3-4: one or two values, so their ties at T overflow into the fallback
    d = tuned(**NO_CHUNKS, **T_BY[t_by])
    rng = rng_for("threshold", dtype)
    x = tie_rows(rng, dtype, 4099)
    for direction in ("decreasing", "increasing"):
        for k in (1, 8, 64):
            notes = check(x, k, -1, direction, strategy="threshold", device=d)
    assert notes["fallback"] == "select"
    flags = fallback_flags(x, 64, device=d)
    assert list(flags[3:]) == [1, 1]
    if np.dtype(dtype).itemsize > 1:  # (8-bit rows of 4099 tie at the top even so)
        assert list(flags[:3]) == [0, 0, 0]


@pytest.mark.parametrize("t_by", T_BY)
@pytest.mark.parametrize("n", [2049, 2304, 4096, 16384])
def test_threshold_sizes_and_k(tuned, n, t_by):
    # n around the unrolled step (256 x 8) and up to a whole tile; K up to the largest
    d = tuned(**NO_ROWS, **T_BY[t_by])
    x = random_values(rng_for("threshold n", n), (3, n), "float32", ties=False, specials=False)
    for k in (1, 2, 63, 128):
        check(x, k, -1, "decreasing", strategy="threshold", device=d)
    check(x, 128, -1, "increasing", strategy="threshold", device=d)
    check(x, 129, -1, "decreasing", strategy="wide", device=d)  # above TOPK_THRESHOLD_MAX_K


@pytest.mark.parametrize("t_by", T_BY)
def test_threshold_ties_at_t(tuned, t_by):
    # few distinct values: many candidates tie at T, within the cap or past it (fallback)
    d = tuned(**NO_CHUNKS, **T_BY[t_by])
    rng = rng_for("threshold ties")
    x = np.stack([rng.integers(0, 2000, 9000), rng.integers(0, 40, 9000),
                  rng.integers(0, 3, 9000), np.zeros(9000)]).astype(np.int32)
    for direction in ("decreasing", "increasing"):
        for k in (1, 10, 100):
            check(x, k, -1, direction, strategy="threshold", device=d)


@pytest.mark.parametrize("cap", [16, 128])
def test_threshold_fallback_rows(tuned, cap):
    # a small cap sends some rows without ties to the fallback: both kinds in one call
    d = tuned(TOPK_THRESHOLD_CAP=cap, **NO_CHUNKS)
    x = random_values(rng_for("fallback", cap), (24, 5000), "float32", ties=False,
                      specials=False)
    for k in (3, 12, 40):
        notes = check(x, k, -1, "decreasing", strategy="threshold", device=d)
        assert notes["threshold_cap"] == cap
    # K near the cap: the expected candidates, about -B ln(1 - K/B) with B buckets (32 for
    # K = 12: 15.0; 256 for K = 100: 126.6), straddle it
    flags = fallback_flags(x, 12 if cap == 16 else 100, device=d)
    assert 0 < flags.sum() < len(flags), flags  # both kinds of rows


def test_threshold_long_rows_fallback_candidates(tuned):
    # rows longer than a tile take "threshold" when there are many of them; rows that fall
    # back go through the candidate lists and merge passes
    d = tuned(TOPK_THRESHOLD_LONG_MIN_ROWS=2, TOPK_THRESHOLD_CAP=32, **NO_CHUNKS)
    rng = rng_for("threshold long")
    x = random_values(rng, (3, 40000), "float32", ties=False, specials=False)
    x[1] = np.round(x[1])  # heavy ties: this row falls back
    for direction in ("decreasing", "increasing"):
        notes = check(x, 20, -1, direction, strategy="threshold", device=d)
    assert notes["fallback"] == "candidates"
    assert list(fallback_flags(x, 20, device=d)) == [0, 1, 0]
    check(np.ascontiguousarray(x.T), 7, 0, "decreasing", strategy="threshold", device=d)


@pytest.mark.parametrize("min_groups", [1, 3])
def test_guard_blocks(tuned, min_groups):
    # the fallback select takes its groups in blocks (all 40 rows in one workgroup, two
    # words of flags, at min_groups 1; 13 a workgroup at 3): flagged rows at a block's (a
    # word's) first, middle and last place, in the last, partial block, and blocks with none
    d = tuned(TOPK_GUARD_MIN_GROUPS=min_groups, **NO_CHUNKS)
    rng = rng_for("guard blocks", min_groups)
    x = random_values(rng, (40, 5000), "float32", ties=False, specials=False)
    tied = [0, 13, 14, 31, 32, 39]
    x[tied] = x[tied] > 0  # two values: their ties at T overflow the slots, the rows fall back
    for direction in ("decreasing", "increasing"):
        check(x, 12, -1, direction, strategy="threshold", device=d)
    assert list(np.flatnonzero(fallback_flags(x, 12, device=d))) == tied
    t = dg.asarray(x, device=d)
    (sel,) = [s for s in compiled(t, 12, -1, "decreasing", "uint32").plan.steps
              if s.template == "topk_select.wgsl.j2"]
    per = 40 if min_groups == 1 else 13
    assert sel.params["aux0"] == per and sel.n_groups == -(-40 // per)
    # chunk flags (a chunked "wide") and row flags over candidate lists (merge passes)
    d = tuned(TOPK_GUARD_MIN_GROUPS=min_groups, TOPK_THRESHOLD_LONG_MIN_ROWS=2,
              TOPK_THRESHOLD_CAP=32, **NO_CHUNKS)
    x = random_values(rng, (3, 2 * 16384 + 700), "float32", ties=False, specials=False)
    x[1, 16384:2 * 16384] = x[1, 16384]
    check(x, 129, -1, "decreasing", strategy="wide", device=d)
    x[0] = np.round(x[0])
    notes = check(x, 20, -1, "increasing", strategy="threshold", device=d)
    assert notes["fallback"] == "candidates"


# -- strategy "wide": the K-th best of 2K bucket bests bounds the candidates ------------

def test_bitonic_rounds():
    # the rounds run exactly the bitonic network's stages, in order, each inside its window
    for log_n in range(1, 13):
        for log_e in range(1, min(log_n, 4) + 1):
            rounds = bitonic_rounds(log_n, log_e)
            stages = [(s, lo + q) for lo, s, qh, ql in rounds for q in range(qh, ql - 1, -1)]
            assert stages == [(s, b) for s in range(1, log_n + 1) for b in range(s - 1, -1, -1)]
            assert all(0 <= ql <= qh < log_e and lo + log_e <= log_n
                       for lo, _, qh, ql in rounds), rounds
            assert rounds[-1][0] == 0  # the last round holds consecutive slots: the outputs
    assert len(bitonic_rounds(11, 3)) == 26


def test_subgroups_on_lavapipe(dev):
    # the lanes path must not go untested where the suite runs (lavapipe has subgroups
    # through both implementations): a device without them plans no lanes
    if "llvmpipe" in dev.info["adapter"]:
        assert dev.subgroups and dev.subgroup_size >= 4
    plain = dg.Device(features=("timestamp-query",))
    assert not plain.subgroups and plain.subgroup_size == 0
    x = random_values(rng_for("wide plain"), (3, 3000), "float32")
    notes = check(x, 300, -1, "decreasing", strategy="wide", device=plain)
    assert notes["wide_lane_bits"] == 0


# What test_eight_lane_subgroups runs again on 8-lane subgroups: "wide" with 3 lane bits
# (32- and 8-bit keys, sorted by bitonic windows across lanes) and NonZero's block ranks by
# subgroup sums, and its fallback where the subgroups are smaller than asked.
EIGHT_LANE_TESTS = ("tests/test_topk.py::test_wide_dtypes[float32-lanes]",
                    "tests/test_topk.py::test_wide_dtypes[uint8-lanes]",
                    "tests/test_nonzero.py::test_subgroup_scan[1]",
                    "tests/test_nonzero.py::test_subgroup_scan[2]")


def test_eight_lane_subgroups(dev):
    """scripts/test.sh runs lavapipe at 128-bit vectors (LP_NATIVE_VECTOR_WIDTH=128, for
    shorter compiles): subgroups of 4 lanes, so "wide" plans 2 lane bits. The subgroup paths
    run again in a process of its own at lavapipe's native 256 bits: 8 lanes, 3 lane bits.
    On a GPU the variable is ignored and the same tests run on its subgroups."""
    root = pathlib.Path(__file__).resolve().parent.parent
    env = dict(os.environ, LP_NATIVE_VECTOR_WIDTH="256")
    probe = subprocess.run(
        [sys.executable, "-c", "import dmlgpu as dg; print(dg.default_device().subgroup_size)"],
        env=env, cwd=root, capture_output=True, text=True, timeout=300)
    assert probe.returncode == 0, probe.stderr
    lanes = int(probe.stdout.split()[-1])
    if "llvmpipe" in dev.info["adapter"]:
        assert lanes == 8, probe.stdout
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         *EIGHT_LANE_TESTS], env=env, cwd=root, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0 and f"{len(EIGHT_LANE_TESTS)} passed" in run.stdout, \
        run.stdout[-3000:] + run.stderr[-2000:]


@pytest.mark.parametrize("dtype, lanes", [(d, "lanes") for d in ALL_DTYPES] + [
    (d, "no lanes") for d in ("float32", "float16", "int64", "uint8")])
def test_wide_dtypes(tuned, dtype, lanes):
    # rows 0-2: distinct-ish values with extremes (and NaN/inf/-0.0); rows 3-4: one or two
    # values, so their ties at T overflow the slots into the fallback
    rng = rng_for("wide", dtype)
    big = 1000  # about 1390 candidates: the K best of them are selected (step 4)
    x = tie_rows(rng, dtype, 4099)
    d = tuned(**WIDE, **LANES[lanes])
    for direction in ("decreasing", "increasing"):
        for k in (300, big):  # (K just above "threshold"'s: test_wide_sizes_and_k)
            notes = check(x, k, -1, direction, strategy="wide", device=d)
    assert notes["fallback"] == "select" and notes["buckets"] == 1 << (2 * big - 1).bit_length()
    assert notes["wide_slots"] == 1024 and notes["wide_cap"] == 1536
    assert notes["wide_lane_bits"] == lane_bits(d, lanes)
    flags = fallback_flags(x, big, device=d, strategy="wide")
    assert flags[3] == 1
    if np.dtype(dtype).itemsize > 1:  # (8-bit rows of 4099 tie at the top even so)
        assert list(flags[:3]) == [0, 0, 0]


@pytest.mark.parametrize("dtype, lanes", [(d, "lanes") for d in (
    "float32", "uint8")] + [("float32", "no lanes")])
def test_wide_first(tuned, dtype, lanes):
    # K from 65 (tuning.TOPK_WIDE_FROM_K) over rows up to 16384: "wide" (128 or 256 slots)
    # where "sort" (rows up to 1024) or "threshold" took them; rows whose buckets are fewer
    # than 2K keep those; rows of ties fall back (the K of every slot count: test_wide_*)
    d = tuned(**NO_REGS, **LANES[lanes])
    rng = rng_for("wide first", dtype)
    for n, k, direction in ((300, 100, "increasing"), (512, 256, "decreasing"),
                            (2049, 65, "decreasing")):
        x = tie_rows(rng, dtype, n)
        notes = check(x, k, -1, direction, strategy="wide", device=d)
        assert notes["wide_slots"] == max(64, 1 << (k - 1).bit_length())
        # (a dense row taken whole has no candidate slots to overflow: its ties sort)
        flag = 2 if notes["wide_dense_all"] else 1
        assert row_flags(x, k, direction, device=d, strategy="wide")[3] == flag
    check(np.ascontiguousarray(x.T), 128, 0, "increasing", strategy="wide", device=d)
    x = random_values(rng, (4, 300), dtype)
    assert check(x, 129, -1, strategy="sort", device=d)  # 256 buckets: too few for K = 129
    assert check(x, 64, -1, strategy="sort", device=d)  # below TOPK_WIDE_FROM_K


@pytest.mark.parametrize("n, lanes", [(n, "lanes") for n in (512, 2049, 4095, 16384)] + [
    (2049, "no lanes"), (16384, "no lanes"), (4095, "2 lanes")])
def test_wide_sizes_and_k(tuned, n, lanes):
    # n from the fewest elements (one per bucket: rows of 512 once "sort" stops at 256) past
    # a tile, around the unrolled step (256 x 16); K just above "threshold"'s, K/B = 1/2 (K a
    # power of two: the candidates exceed the sort's slots), as far as n >= B allows
    d = tuned(TOPK_SORT_MAX=256, **WIDE, **LANES[lanes])
    x = random_values(rng_for("wide n", n), (3, n), "float32", ties=False, specials=False)
    for k in (129, 256, 1024):
        if 2 * k <= n:
            notes = check(x, k, -1, "decreasing", strategy="wide", device=d)
            assert notes["wide_lane_bits"] == lane_bits(d, lanes)
    check(x, 129, -1, "increasing", strategy="wide", device=d)
    assert list(fallback_flags(x, 129, device=d, strategy="wide")) == [0, 0, 0]


@pytest.mark.parametrize("wg", [32, 128, 512])
def test_wide_entries_per_thread(tuned, wg):
    # slots / threads entries in each thread's registers (2 to 16): other round layouts
    d = tuned(TOPK_WIDE_WG=wg, **WIDE)
    x = random_values(rng_for("wide wg", wg), (4, 3000), "float32")
    for k, direction in ((200, "decreasing"), (500, "increasing"))[:1 if wg < 64 else 2]:
        notes = check(x, k, -1, direction, strategy="wide", device=d)
        assert notes["wide_wg"] == min(wg, notes["wide_slots"] // 2)
        assert 2 <= notes["wide_slots"] // notes["wide_wg"] <= 16
        assert notes["buckets"] // notes["wide_wg"] <= 16
        assert -(-notes["wide_cap"] // notes["wide_wg"]) <= 32


@pytest.mark.parametrize("lanes", ["lanes", "no lanes"])
def test_wide_ties_at_t(tuned, lanes):
    # few distinct values: many candidates tie at T, within the slots or past them; with
    # more candidates than the sort's slots the K best are chosen among the ties by index
    # digits (rows 1-3 for K = 1000)
    d = tuned(**LANES[lanes])
    rng = rng_for("wide ties")
    x = np.stack([rng.integers(0, 20000, 9000), rng.integers(0, 3000, 9000),
                  rng.integers(0, 300, 9000), rng.integers(0, 40, 9000),
                  np.zeros(9000)]).astype(np.int32)
    for direction in ("decreasing", "increasing"):
        for k in (150, 1000):
            check(x, k, -1, direction, strategy="wide", device=d)
    assert list(fallback_flags(x, 1000, device=d, strategy="wide")) == [0, 0, 0, 0, 1]


def test_wide_subgroups_unlike_assumed(tuned):
    # a plan for more lanes than the device's subgroups hold: the kernel's check sends every
    # row to the fallback kernels, whose results are exact all the same
    real = dg.default_device().subgroup_size
    if not real:
        pytest.skip("the device has no subgroups (test_subgroups_on_lavapipe: lavapipe has)")
    bits = real.bit_length()  # twice the real lanes
    d = tuned(TOPK_WIDE_LANE_BITS=bits)
    d._subgroup_size = 2 * real  # as if measured
    x = random_values(rng_for("wide lanes"), (4, 3000), "float32")
    for direction in ("decreasing", "increasing"):
        notes = check(x, 500, -1, direction, strategy="wide", device=d)
    assert notes["wide_lane_bits"] == bits
    assert list(fallback_flags(x, 500, device=d, strategy="wide")) == [1, 1, 1, 1]


@pytest.mark.parametrize("lanes", ["lanes", "no lanes"])
@pytest.mark.parametrize("dtype", PACKED_DTYPES)
def test_wide_packed(tuned, dtype, lanes):
    # 8/16-bit rows read a word at a time: rows of whole words (4100) and with a partial last
    # word (4101, of rows of 4104), rows that tie at T past the cap (the fallback), chunks of
    # few long rows, and a view starting mid-word (element loads, chosen when bound)
    d = tuned(**WIDE, **LANES[lanes])
    rng = rng_for("wide packed", dtype)
    x = tie_rows(rng, dtype, 4104)
    t = dg.asarray(x, device=d)
    for n in (4100, 4101):
        for direction, k in (("decreasing", 300), ("increasing", 500)):
            notes = check(t[:, :n], k, -1, direction, strategy="wide", device=d)
            assert notes["packed"] and notes["wide_lane_bits"] == lane_bits(d, lanes), notes
        assert fallback_flags(t[:, :n], 300, device=d, strategy="wide")[3] == 1
    check(t[:, 1:], 300, -1, "decreasing", strategy="wide", device=d)
    y = random_values(rng, (2, 20000), dtype)
    notes = check(y, 200, -1, "increasing", strategy="wide", device=d)
    assert notes["packed"] and notes["chunks"] > 1, notes


def test_wide_views_and_long_rows(tuned):
    w = tuned(**WIDE)
    x = random_values(rng_for("wide views"), (3, 2500, 4), "float32")
    check(x, 300, 1, "decreasing", strategy="wide", device=w)  # a strided axis
    check(dg.asarray(x, device=w).transpose(2, 1, 0), 200, 1, "increasing", strategy="wide")
    # rows longer than a tile take "wide" when there are many of them; rows that fall back
    # go through the candidate lists and merge passes
    d = tuned(TOPK_THRESHOLD_MIN_ROWS=2, **WIDE)
    y = random_values(rng_for("wide long"), (3, 40000), "float32", ties=False, specials=False)
    y[1] = np.round(y[1])  # heavy ties: this row falls back
    for direction in ("decreasing", "increasing"):
        notes = check(y, 300, -1, direction, strategy="wide", device=d)
    assert notes["fallback"] == "candidates"
    assert list(fallback_flags(y, 300, device=d, strategy="wide")) == [0, 1, 0]


# "wide" ranking its candidates by bins (step 5) wherever it can, or never (the bitonic sort
# of steps 6-7 for every row), or as planned
SORTS = {"ranked": dict(TOPK_WIDE_RANK_COST=1 << 20, TOPK_WIDE_STAGE_MARGIN=1024),
         "bitonic": dict(TOPK_WIDE_RANK_COST=0), "planned": {}}


def octave_rows(dtype: str, n: int) -> tuple[np.ndarray, int]:
    """Two rows and K: their K best (decreasing: row 0; increasing: row 1) are T and T +- each
    2^j + (-2..2) that fits, in distinct buckets, so that T is exactly the K-th best bucket
    best and step 5's d = key - T falls on and around each of its bins' octave bounds."""
    info = np.iinfo(dtype)
    span = min(int(info.max) - int(info.min), 2 ** 62) // 2
    offs = np.unique([0] + [2 ** j + e for j in range(1, span.bit_length() - 1)
                            for e in (-2, -1, 0, 1, 2)]).astype(np.int64)
    rng = rng_for("octaves", dtype)
    mid = int(info.min) + span  # (T: the rows' other values lie on the far side of it)
    up = rng.integers(int(info.min), mid, n, endpoint=False, dtype=np.int64)
    down = rng.integers(mid + 1, mid + span, n, endpoint=True, dtype=np.int64)
    up[:offs.size], down[:offs.size] = mid + offs, mid - offs
    return np.stack([up, down]).astype(dtype), offs.size


@pytest.mark.parametrize("dtype, lanes, sort", [
    (d, "lanes", s) for d in ("float32", "float16", "int64", "uint8") for s in SORTS] + [
    ("float32", "no lanes", s) for s in SORTS] + [("int32", "lanes", "ranked")])
def test_wide_sorts(tuned, dtype, lanes, sort):
    # both ways of sorting the K best, on rows of distinct keys (normal: crowded just above
    # T; exponential), an outlier above them, few values (ties: the bins' work is too much
    # for "planned"), and values in every octave of d (integer types)
    d = tuned(**WIDE, **LANES[lanes], **SORTS[sort])
    rng = rng_for("wide sorts", dtype)
    n = 4099
    normal = random_values(rng, (n,), dtype, ties=False, specials=False)
    expo = rng.exponential(size=n) * (30 if dtype == "uint8" else 1000)
    outlier = normal.copy()
    outlier[77] = np.iinfo(dtype).max if dtype in ("int64", "uint8") else 60000
    few = random_values(rng, (n,), dtype)
    x = np.stack([normal, expo.astype(dtype), outlier, few])
    for direction in ("decreasing", "increasing"):
        for k in (300, 1000):
            check(x, k, -1, direction, strategy="wide", device=d)
    # rows of at most 4K (TOPK_WIDE_DENSE_SHARE): T in the bulk of the values, 2 octaves
    dense = x[:, :2049]
    for direction in ("decreasing", "increasing"):
        notes = check(dense, 600, -1, direction, strategy="wide", device=d)
        assert notes["wide_octaves"] == 2 and notes["wide_slots"] == 1024
    bitonic = bitonic_flags(x, 300, device=d)
    if sort == "bitonic":
        assert list(bitonic) == [1, 1, 1, 1]
    elif sort == "ranked":  # (ties at T overflow the candidate slots: the fallback's)
        assert list(bitonic[:3]) == [0, 0, 0]
    elif dtype != "uint8":  # (8-bit rows: 256 keys for 4099 elements, ties throughout)
        assert list(bitonic) == [0, 0, 0, 1]
    if np.dtype(dtype).kind in "iu" and dtype != "uint8":
        y, k = octave_rows(dtype, 3000)
        check(y[:1], k, -1, "decreasing", strategy="wide", device=d)
        check(y[1:], k, -1, "increasing", strategy="wide", device=d)
        if sort == "ranked":
            assert bitonic_flags(y[:1], k, device=d)[0] == 0
            assert bitonic_flags(y[1:], k, "increasing", device=d)[0] == 0
        # the dense rows' 2 octaves: rows of 2K (to a power of two) + 10; one-word keys
        # take such rows whole (T the least key), so the bounds around the K-th best are
        # held to again with that switched off
        y, k = octave_rows(dtype, (1 << (2 * k - 1).bit_length()) + 10)
        whole = np.dtype(dtype).itemsize < 8
        for off in (False, True) if whole else (False,):
            dv = tuned(TOPK_WIDE_DENSE_ALL=0) if off else d
            notes = check(y[:1], k, -1, "decreasing", strategy="wide", device=dv)
            assert notes["wide_octaves"] == 2 and notes["wide_dense_all"] == (whole and not off)
            check(y[1:], k, -1, "increasing", strategy="wide", device=dv)
            if sort == "ranked":
                assert bitonic_flags(y[:1], k, device=dv)[0] == 0
                assert bitonic_flags(y[1:], k, "increasing", device=dv)[0] == 0


def dense_rows(rng, dtype: str, n: int) -> np.ndarray:
    """Rows for a dense "wide" plan: 0 normal (floats: keys of both signs), 1 of one sign,
    2 a narrow range (few distinct keys in many bins), 3 with the type's specials (floats:
    NaN, +-inf, -0.0, the extremes), 4 one value throughout."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        normal = rng.standard_normal(n)
        one_sign = rng.lognormal(size=n)
        narrow = 1000 + rng.integers(0, 9, n)
    else:
        info = np.iinfo(dt)
        mid = (int(info.min) + int(info.max)) // 2
        normal = np.clip(mid + rng.standard_normal(n) * min(1e6, info.max / 8), info.min, info.max)
        one_sign = np.clip(mid + np.abs(rng.standard_normal(n)) * min(1e6, info.max / 8),
                           info.min, info.max)
        narrow = mid + rng.integers(0, 3, n)
    rows = [np.asarray(r).astype(dt) for r in (normal, one_sign, narrow)]
    rows.append(random_values(rng, (n,), dtype, ties=False))
    rows.append(np.full(n, rows[0][5], dt))
    return np.stack(rows)


@pytest.mark.parametrize("dtype, lanes", [(d, "lanes") for d in (
    "float32", "float16", "int32", "uint8", "int16")] + [("float32", "no lanes"),
                                                        ("float16", "2 lanes")])
def test_wide_dense_all(tuned, dtype, lanes):
    # dense rows (K x TOPK_WIDE_DENSE_SHARE >= n) taken whole: no T, every element a
    # candidate, float rows ranked in bins linear in the value where every key is finite
    # (bin_of's log-linear ones elsewhere); rows of 300 (a partial register), 512, 2048
    # and 2049 (9 registers a thread), both directions, and a strided axis
    d = tuned(**NO_REGS, **LANES[lanes])
    rng = rng_for("wide dense", dtype)
    for n, k in ((300, 100), (512, 128), (2048, 1024), (2049, 600)):
        x = dense_rows(rng, dtype, n)
        for direction in ("decreasing", "increasing"):
            notes = check(x, k, -1, direction, strategy="wide", device=d)
            assert notes["wide_dense_all"]
            # (8/16-bit keys: an entry one word, and finer bins where 256 threads take them)
            assert notes["wide_ent_pack"] == (np.dtype(dtype).itemsize <= 2)
            flags = row_flags(x, k, direction, device=d, strategy="wide")
            assert not (flags & 1).any()  # (no candidate slots to overflow: no fallback)
            # normal and one-sign rows ranked (float32's normal rows by the value bins only:
            # log-linear bins of key - T crowd them past RANK_COST), one value sorted (8-bit
            # rows: 256 keys, ties enough to sort)
            ranked = [0, 0] if np.dtype(dtype).itemsize > 1 else list(flags[[0, 1]])
            assert list(flags[[0, 1, 4]]) == ranked + [2], (n, k, direction, flags)
    check(np.ascontiguousarray(x.T), 600, 0, "increasing", strategy="wide", device=d)
    # 64-bit keys (two words) and chunked rows keep steps 1-3
    if dtype == "int32":
        y = dense_rows(rng, "int64", 2048)
        assert not check(y, 1024, -1, strategy="wide", device=d)["wide_dense_all"]
    off = tuned(**NO_REGS, **LANES[lanes], TOPK_WIDE_DENSE_ALL=0)
    assert not check(x, 600, -1, strategy="wide", device=off)["wide_dense_all"]
    if np.dtype(dtype).itemsize <= 2:  # the entries unpacked too
        apart = tuned(**NO_REGS, **LANES[lanes], TOPK_WIDE_DENSE_ALL=1,
                      TOPK_WIDE_DENSE_PACK=0)
        for direction in ("decreasing", "increasing"):
            notes = check(x, 600, -1, direction, strategy="wide", device=apart)
            assert notes["wide_dense_all"] and not notes["wide_ent_pack"]


@pytest.mark.parametrize("dtype, lanes, major", [
    ("float32", "lanes", 1), ("float32", "no lanes", 1), ("int64", "lanes", 1),
    ("uint8", "lanes", 1), ("float32", "lanes", 0), ("uint8", "lanes", 0)])
def test_wide_chunks(tuned, dtype, lanes, major):
    # a few rows longer than a tile: "wide" per chunk of 16384 (its candidate lists, then
    # the merge passes); the last chunk is shorter than B (empty buckets: every element is
    # a candidate) and, below, than K; chunks of heavy ties fall back to the select kernel
    # alone (a flag per chunk): chunk 1 of row 1 (one value), row 2 (nine values). The
    # workgroups take the rows' first chunks first (TOPK_WIDE_CHUNK_MAJOR), or a row's in
    # turn: each chunk's list and flag where the merges and the fallback look for them.
    d = tuned(**LANES[lanes], TOPK_WIDE_CHUNK_MAJOR=major)
    rng = rng_for("wide chunks", dtype)
    x = random_values(rng, (3, 2 * 16384 + 700), dtype, ties=False)
    x[1, 16384:2 * 16384] = x[1, 16384]
    x[2] = random_values(rng, (2 * 16384 + 700,), dtype)
    for direction in ("decreasing", "increasing"):
        for k in (129, 1000):
            notes = check(x, k, -1, direction, strategy="wide", device=d)
            assert notes["chunks"] == 3 and notes["merge_passes"] == 1
    assert notes["fallback"] == "candidates"
    assert notes["wide_lane_bits"] == lane_bits(d, lanes)
    flags = fallback_flags(x, 1000, device=d, strategy="wide").reshape(3, 3)
    assert flags[1, 1] == 1 and list(flags[2, :2]) == [1, 1] and list(flags[:, 2]) == [0] * 3
    if np.dtype(dtype).itemsize > 1:  # (8-bit chunks tie at the top even so)
        assert list(flags[0]) == [0, 0, 0] and flags[1, 0] == 0
    # a strided axis, and a single row of 3 chunks with K past the last chunk's length
    check(np.ascontiguousarray(x[:2].T), 700, 0, "decreasing", strategy="wide", device=d)
    check(x[:1, :2 * 16384 + 100], 300, -1, "increasing", strategy="wide", device=d)


@pytest.mark.parametrize("lanes, major", [("lanes", 1), ("no lanes", 1), ("lanes", 0)])
def test_wide_tile_chunks(tuned, lanes, major):
    # chunks of several tiles (3 of 16384 here: 9 tiles a row, 3 chunks): a flagged chunk's
    # fallback takes its 3 tiles, their lists merged into the chunk's one, the rows' lists
    # then merged as the others'; the last chunk shorter; flagged chunks of one value (row
    # 1, chunk 1) and of nine values (row 2, every chunk); chunk-major workgroups or not
    d = tuned(TOPK_WIDE_CHUNKS=2, **LANES[lanes], TOPK_WIDE_CHUNK_MAJOR=major)
    rng = rng_for("wide tile chunks", lanes)
    n = 8 * 16384 + 700
    x = random_values(rng, (3, n), "float32", ties=False, specials=False)
    x[1, 3 * 16384:6 * 16384] = x[1, 3 * 16384]
    x[1, 5 * 16384 + 7:5 * 16384 + 40] = x[1].max() + 1  # in the flagged chunk's last tile
    x[2] = rng.integers(0, 9, n)
    for c in range(3):  # each chunk's last tile one level up: a fallback keeps all its tiles
        x[2, (3 * c + 2) * 16384:(3 * c + 3) * 16384] += 1
    for direction in ("decreasing", "increasing"):
        for k in (129, 1000):
            notes = check(x, k, -1, direction, strategy="wide", device=d)
            assert notes["chunks"] == 9 and notes["merge_passes"] == 1, notes
    assert notes["fallback"] == "candidates"
    t = dg.asarray(x, device=d)
    op = compiled(t, 1000, -1, "decreasing")
    wide, sel, merge_f, merge = op.plan.steps
    assert wide.params["chunk"] == 3 * 16384 and wide.n_groups == 9
    assert sel.params["aux1"] == 3 and merge_f.variables["guard"] == "row"
    flags = fallback_flags(x, 1000, device=d, strategy="wide").reshape(3, 3)
    assert list(flags[1]) == [0, 1, 0] and list(flags[2]) == [1, 1, 1] and list(flags[0]) == [0] * 3
    check(np.ascontiguousarray(x.T), 700, 0, "decreasing", strategy="wide", device=d)


# -- strategy "candidates": per-chunk candidate lists and merge passes ----------------

def test_candidates_long_rows(tuned):
    # rows of 2^20: 64 chunks of 16384 -> 64 lists -> 1 (K = 100: 163 lists per merge), or
    # -> 4 -> 1 (K = 1000: 16 per merge); above "threshold"'s K the lists come from a
    # chunked "wide"
    d = tuned(**NO_CHUNKS)
    x = random_values(rng_for("2^20"), (2, 1 << 20), "float32")
    notes = check(x, 100, -1, "decreasing", strategy="candidates", device=d)
    assert notes["merge_passes"] == 1
    check(x, 1, -1, "increasing", strategy="candidates", device=d)
    notes = check(x, 1000, -1, "decreasing", strategy="wide", device=d)
    assert notes["merge_passes"] >= 2 and notes["chunks"] == 64


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_candidates(tuned, dtype):
    d = tuned(**NO_CHUNKS)  # (K <= 32 over few long rows: the rows kernel's chunks)
    rng = rng_for("candidates", dtype)
    x = random_values(rng, (3, 40000), dtype)
    for direction in ("decreasing", "increasing"):
        check(x, 50, -1, direction, strategy="candidates", device=d)
    check(x[:, :16385], 16, -1, "decreasing", strategy="candidates", device=d)  # 1-element chunk
    check(np.ascontiguousarray(x.T), 7, 0, "increasing", strategy="candidates", device=d)


# -- strategy "radix": global radix select, survivors sorted and merged ---------------

@pytest.fixture
def radix_dev(tuned):
    return tuned(TOPK_SELECT_CAP=RADIX_CAP)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_radix(radix_dev, dtype):
    rng = rng_for("radix", dtype)
    x = random_values(rng, (2, 9000), dtype)
    for direction in ("decreasing", "increasing"):
        notes = check(x, 5000, -1, direction, strategy="radix", device=radix_dev)
    assert notes["merge_passes"] >= 1
    check(x[:1, :5000], 5000, -1, "decreasing", strategy="radix", device=radix_dev)  # K = N
    check(x[:, :2600], 2500, -1, "increasing", strategy="radix", device=radix_dev)  # two runs


def test_radix_single_run(radix_dev):
    # 64-bit keys: K above the select kernel's capacity but within one sorted run
    x = random_values(rng_for("radix run"), (2, 3000), "int64")
    for direction in ("decreasing", "increasing"):
        notes = check(x, 1500, -1, direction, strategy="radix", device=radix_dev)
    assert notes["runs"] == 1 and notes["merge_passes"] == 0


def test_radix_middle_axis(radix_dev):
    x = random_values(rng_for("radix middle"), (2, 4500, 3), "float32")
    check(x, 4000, 1, "decreasing", strategy="radix", device=radix_dev)


# -- rows of a strided axis gathered into contiguous scratch first --------------------

# strategy: (tuning, shape, axis, K values); at least TOPK_GATHER_MIN_ROWS rows (in the
# views too), several 32-row tiles and axis tiles
GATHER_CASES = {
    "sort": (NO_ROWS, (301, 70), 0, (2, 20, 301)),
    "threshold": (NO_ROWS, (3000, 45), 0, (8, 100)),
    "wide": (NO_ROWS, (2100, 5, 11), 0, (300,)),
    "select": (NO_THRESHOLD, (4, 5001, 11), 1, (37,)),
    "candidates": (NO_THRESHOLD, (20000, 33), 0, (50,)),
}


@pytest.mark.parametrize("strategy", GATHER_CASES)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int8", "int64"])
def test_gathered_rows(tuned, dtype, strategy):
    """A strided axis: its rows copied into contiguous scratch (a tiled transpose, rows
    padded to whole words), then the contiguous kernels; against the same kernels reading
    the strided rows (TOPK_GATHER off), both directions, reversed and sliced views."""
    knobs, shape, axis, ks = GATHER_CASES[strategy]
    x = random_values(rng_for("gathered", dtype, strategy), shape, dtype)
    for gather in (True, False):
        d = tuned(TOPK_GATHER=gather, **knobs)
        t = dg.asarray(x, device=d)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(t, k, axis, direction, strategy=strategy, device=d)
                assert notes.get("gathered", False) is gather, notes
        view = (slice(None, None, -1),) + (slice(1, None),) * (len(shape) - 1)
        notes = check(t[view], ks[0], axis, "decreasing", device=d, index_dtype="int64")
        assert notes.get("gathered", False) is (gather and notes["strategy"] in GATHERED), notes


def test_gathered_rows_limits(tuned):
    """No gather along a contiguous axis, for the "rows" strategy (lanes along strided
    rows), below TOPK_GATHER_MIN_ROWS rows, or where the scratch would pass
    TOPK_GATHER_MAX_BYTES."""
    y = random_values(rng_for("gather limits rows"), (2048, 256), "float16")
    assert "gathered" not in check(y, 8, 0, strategy="rows")  # (before any tuned device)
    x = random_values(rng_for("gather limits"), (2999, 45), "float16")
    d = tuned(**NO_ROWS)
    assert "gathered" not in check(np.ascontiguousarray(x.T), 100, -1, device=d)
    for limit, gathered in ((45 * 3000 * 2, True), (45 * 3000 * 2 - 4, False)):
        d = tuned(TOPK_GATHER_MAX_BYTES=limit, **NO_ROWS)  # 45 rows of 2999 pad to 3000
        notes = check(x, 100, 0, strategy="threshold", device=d)
        assert notes.get("gathered", False) is gathered, notes
    for rows, gathered in ((45, True), (46, False)):
        d = tuned(TOPK_GATHER_MIN_ROWS=rows, TOPK_GATHER_MAX_BYTES=1 << 30, **NO_ROWS)
        assert check(x, 100, 0, device=d).get("gathered", False) is gathered


# -- 8/16-bit sort entries as one u32 (ops.topk.entries_pack) -------------------------

# strategy: (tuning, shape, K values); every kernel that bitonic-sorts entries
PACK_CASES = {
    "sort": (NO_ROWS, (3, 1000), (2, 500, 1000)),
    "threshold": (NO_ROWS, (3, 5000), (8, 100)),  # candidates ranked (K = 8), sorted (100)
    "select": (NO_THRESHOLD, (3, 5000), (37, 1000)),
    "candidates": (NO_THRESHOLD, (2, 40000), (50,)),  # the merge passes' entries
    "radix": (dict(TOPK_SELECT_CAP=RADIX_CAP), (2, 9000), (5000,)),  # runs of survivors
}


@pytest.mark.parametrize("strategy", PACK_CASES)
@pytest.mark.parametrize("dtype", ["float16", "int8", "uint16"])
def test_packed_entries(tuned, dtype, strategy):
    """Entries packed (key over the complemented index) and as (key, index) pairs: the same
    outputs, ties to the lowest index, specials, both directions."""
    knobs, shape, ks = PACK_CASES[strategy]
    x = random_values(rng_for("packed entries", dtype, strategy), shape, dtype)
    for pack in (True, False):
        d = tuned(TOPK_PACK_ENTRIES=pack, **knobs)
        for k in ks:
            for direction in ("decreasing", "increasing"):
                notes = check(x, k, -1, direction, strategy=strategy, device=d)
                assert notes["packed_entries"] == pack, notes


@pytest.mark.parametrize("n, pack", [(65535, True), (65536, False)])
def test_packed_entries_index_limit(tuned, n, pack):
    """float16 rows pack up to 65535 elements: index 65534 is the last whose entry stays
    above a missing one's (0); a row one longer takes (key, index) pairs."""
    d = tuned(**NO_THRESHOLD)
    x = np.zeros((2, n), np.float16)  # ties everywhere: the lowest indices win
    x[:, -1] = 1  # the best at the last index
    x[:, -2] = -1  # the worst next to it
    x[1, :: 7] = -0.0
    for direction in ("decreasing", "increasing"):
        notes = check(x, 5, -1, direction, strategy="candidates", device=d)
        assert notes["packed_entries"] == pack, notes
    notes = check(x[:, -2000:], 1000, -1, "decreasing", strategy="select", device=d)
    assert notes["packed_entries"]


# -- ties, specials, and no sentinel values --------------------------------------------

@pytest.mark.parametrize("n, k, strategy", [
    (40, 7, "regs"), (128, 8, "regs"), (40, 7, "rows"), (3000, 32, "rows"), (40, 7, "sort"),
    (5000, 37, "threshold"),
    (5000, 1, "threshold"), (5000, 200, "wide"),
    (5000, 700, "wide"), (5000, 1100, "select"),
    (40000, 50, "candidates"),
    (5000, 3000, "radix"),
])
def test_heavy_ties_and_extremes(dev, tuned, n, k, strategy):
    numbers = {"regs": {}, "rows": NO_REGS}.get(strategy, NO_ROWS)
    if strategy == "radix":
        numbers["TOPK_SELECT_CAP"] = RADIX_CAP
    d = tuned(**numbers) if numbers else dev
    notes = None
    rows = [
        np.zeros(n, np.float32),  # one value
        np.full(n, -np.inf, np.float32),  # the lowest value: no sentinel may beat it
        np.full(n, np.inf, np.float32),
        np.full(n, np.nan, np.float32),
        np.tile(np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, 1.0], np.float32), n)[:n],
        np.where(np.arange(n) % 3 == 0, -0.0, 0.0).astype(np.float32),
    ]
    x = np.stack(rows)
    for direction in ("decreasing", "increasing"):
        check(x, k, -1, direction, strategy=strategy, device=d)
    for dtype in ("int32", "uint16"):  # rows of the type's minimum and maximum
        info = np.iinfo(dtype)
        xi = np.stack([np.full(n, info.min, dtype), np.full(n, info.max, dtype),
                       np.where(np.arange(n) % 5 == 1, info.min, info.max).astype(dtype)])
        for direction in ("decreasing", "increasing"):
            notes = check(xi, k, -1, direction, strategy=strategy, device=d)
    if strategy == "regs":  # (float32 keys' top bits: every row above reselected)
        assert check(x, k, -1, strategy=strategy, device=d)["trunc"] == (k >= 5), notes


@pytest.mark.parametrize("index_dtype", ["uint64", "int32", "int64"])
def test_index_dtypes(dev, tuned, index_dtype):
    x = random_values(rng_for("index", index_dtype), (3, 2500), "float32")
    check(x, 5, -1, "decreasing", index_dtype, strategy="rows", device=dev)
    check(x, 300, -1, "increasing", index_dtype, strategy="wide", device=dev)
    check(x, 700, -1, "decreasing", index_dtype, strategy="wide", device=dev)  # (K of cands)
    check(x, 1100, -1, "increasing", index_dtype, strategy="select", device=dev)
    d = tuned(**NO_ROWS)
    check(x, 5, -1, "decreasing", index_dtype, strategy="threshold", device=d)
    check(x[:, :50], 5, -1, "increasing", index_dtype, strategy="sort", device=d)


def test_deterministic(dev):
    x = dg.asarray(random_values(rng_for("repeat"), (4, 30000), "float16"))
    first = [t.numpy() for t in dg.top_k(x, 300)]
    for _ in range(2):
        again = [t.numpy() for t in dg.top_k(x, 300)]
        for a, b in zip(first, again, strict=True):  # bit for bit (the values hold NaNs)
            assert np.array_equal(a.view(np.uint8), b.view(np.uint8))


# -- outputs: preallocated, strided, packed -------------------------------------------

@pytest.mark.parametrize("dtype, n, k", [("float16", 30, 4), ("uint8", 30, 4),
                                         ("int8", 3000, 9), ("float32", 3000, 9)])
def test_strided_outputs(dev, dtype, n, k):
    # outputs are every other element of larger tensors: sub-word 8/16-bit values of
    # neighbouring rows share words, and the elements in between must stay untouched
    x = random_values(rng_for("strided out", dtype), (5, n), dtype)
    xt = dg.asarray(x)
    vbig = random_values(rng_for("fill", dtype), (5, 2 * k + 1), dtype)
    ibig = np.arange(5 * 3 * k, dtype=np.uint64).reshape(5, 3 * k)
    vt, it = dg.asarray(vbig), dg.asarray(ibig)
    vv, iv = vt[:, 1::2], it[:, ::3]
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc.of(xt), dg.TensorDesc.of(vv),
                                  dg.TensorDesc.of(iv), 1, k, "increasing"))
    op(inputs=[xt], outputs=[vv, iv])
    ev, ei = topk_reference(x, k, 1, False, "uint64")
    expected_v, expected_i = vbig.copy(), ibig.copy()
    expected_v[:, 1::2], expected_i[:, ::3] = ev, ei
    assert_same(vt, expected_v)
    assert_same(it, expected_i)


# -- bindings split into windows, and 2D grids ----------------------------------------

@pytest.mark.parametrize("shape, k, strategy", [
    ((3, 900), 5, "sort"), ((3, 901), 5, "rows"), ((3, 3000), 40, "threshold"),
    ((3, 3000), 400, "wide"),
    ((2, 3000), 1100, "select"), ((2, 4500), 7, "rows"),
    ((1, 5000), 2100, "radix"),
])
def test_windowed(windowed_dev, monkeypatch, shape, k, strategy):
    if strategy == "sort":  # (the desc differs from the "rows" case's: its direction)
        monkeypatch.setattr(tuning, "TOPK_ROWS_MAX_K", 0)
        monkeypatch.setattr(tuning, "TOPK_ROWS_SORTED_MAX_K", 0)
    if strategy == "radix":
        monkeypatch.setattr(tuning, "TOPK_SELECT_CAP", RADIX_CAP)
    x = random_values(rng_for("windowed", shape), shape, "float32")
    assert x.nbytes > 2 * windowed_dev.window_bytes
    check(x, k, -1, "decreasing", strategy=strategy, device=windowed_dev)
    check(x, k, -1, "increasing", strategy=strategy, device=windowed_dev)


@pytest.fixture(scope="module")
def small_grid_dev():
    """A device whose grid is capped at 7 workgroups per dimension, so that small problems
    take the 2D grid path that real ones take past 65535 workgroups."""
    d = dg.Device()
    d.max_workgroups = 7
    return d


@pytest.mark.parametrize("shape, k, strategy", [
    ((40, 600), 3, "rows"), ((40, 601), 3, "sort"), ((9, 3001), 5, "threshold"),
    ((9, 3000), 300, "wide"),
    ((9, 3000), 1100, "select"),
    ((2, 70000), 9, "candidates"), ((3, 70000), 9, "rows"),
    ((5, 5000), 2100, "radix"),
])
def test_2d_grid(small_grid_dev, monkeypatch, shape, k, strategy):
    if strategy in ("sort", "threshold"):  # (shapes of their own: the device caches plans)
        monkeypatch.setattr(tuning, "TOPK_ROWS_MAX_K", 0)
        monkeypatch.setattr(tuning, "TOPK_ROWS_SORTED_MAX_K", 0)
    if strategy == "candidates":
        for name, value in NO_CHUNKS.items():
            monkeypatch.setattr(tuning, name, value)
    if strategy == "radix":
        monkeypatch.setattr(tuning, "TOPK_SELECT_CAP", RADIX_CAP)
    x = random_values(rng_for("grid", shape), shape, "float32")
    check(x, k, -1, "decreasing", strategy=strategy, device=small_grid_dev)


# -- errors -----------------------------------------------------------------------------

def test_errors(dev):
    x = dg.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(ValueError,
                       match=r"k: 5 is out of range for axis 1 of size 4 \(allowed 1..4\)"):
        dg.top_k(x, 5)
    with pytest.raises(ValueError, match=r"k: 0 is out of range"):
        dg.top_k(x, 0, 0)
    with pytest.raises(TypeError, match=r"k: 2.5 is not an integer"):
        dg.top_k(x, 2.5)
    with pytest.raises(ValueError, match=r"axis: 2 is out of range for a rank-2 tensor"):
        dg.top_k(x, 1, 2)
    with pytest.raises(TypeError, match=r"index_dtype: 'float32' is not a supported type"):
        dg.top_k(x, 1, index_dtype="float32")
    with pytest.raises(TypeError, match=r"index_dtype: 'int16'"):
        dg.top_k(x, 1, index_dtype="int16")
    with pytest.raises(ValueError, match=r"axis_direction: 'up' is not a direction"):
        dg.top_k(x, 1, axis_direction="up")
    with pytest.raises(ValueError, match=r"axis 0 is empty"):
        dg.top_k(np.zeros((0, 3), np.float32), 1, 0)
    # an index type too small for the largest index (checked before anything is allocated)
    big = dg.TensorDesc("uint8", (2**31 + 1,))
    with pytest.raises(ValueError, match=r"output_index.dtype: int32 cannot hold the largest "
                                         r"index 2147483648"):
        dev.compile(dg.TopK1Desc(big, dg.TensorDesc("uint8", (1,)), dg.TensorDesc("int32", (1,)),
                                 0, 1))
    desc = dict(input=dg.TensorDesc("float32", (3, 4)),
                output_value=dg.TensorDesc("float32", (3, 2)),
                output_index=dg.TensorDesc("uint32", (3, 2)), axis=1, k=2)
    with pytest.raises(ValueError,
                       match=r"TopK1Desc.output_index.sizes: \(3, 3\) should be \(3, 2\)"):
        dev.compile(dg.TopK1Desc(**dict(desc, output_index=dg.TensorDesc("uint32", (3, 3)))))
    with pytest.raises(TypeError, match=r"TopK1Desc.output_value.dtype: float16 should be"):
        dev.compile(dg.TopK1Desc(**dict(desc, output_value=dg.TensorDesc("float16", (3, 2)))))
    with pytest.raises(ValueError, match=r"TopK1Desc.k: 4 is out of range for axis 0 of size 3"):
        dev.compile(dg.TopK1Desc(**dict(desc, axis=0, k=4)))
    with pytest.raises(ValueError, match=r"TopK1Desc.axis: -3 is out of range"):
        dev.compile(dg.TopK1Desc(**dict(desc, axis=-3)))
    op = dev.compile(dg.TopK1Desc(**desc))
    with pytest.raises(ValueError, match=r"outputs\[1\]: shape \(3, 4\)"):
        op(inputs=[x], outputs=[dg.empty((3, 2), "float32"), dg.empty((3, 4), "uint32")])


def test_empty_rows(dev):
    v, i = dg.top_k(np.zeros((0, 5), np.float32), 2)
    assert v.shape == (0, 2) and i.shape == (0, 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_k1_short_rows(dev, tuned, dtype):
    """K=1 over rows of 256..2048: "regs" (a thread's best in registers), without it
    "rows" (several rows a workgroup), and without both a reduction of each row
    ("threshold" with K = 1) rather than a whole-row sort: every dtype, both directions,
    ties, NaN, the outer axis."""
    rng = rng_for("k1 short rows", dtype)
    xs = [random_values(rng, (5, n), dtype) for n in (256, 1000, 2048)]
    xo = random_values(rng, (700, 6), dtype)
    for x in xs:
        for direction in ("decreasing", "increasing"):
            check(x, 1, -1, direction, strategy="regs", device=dev)
    check(xo, 1, 0, "decreasing", strategy="regs", device=dev)  # strided rows
    d = tuned(**NO_REGS)
    for x in xs:
        check(x, 1, -1, "increasing", strategy="rows", device=d)
    check(xo, 1, 0, "decreasing", strategy="rows", device=d)
    d = tuned(**NO_ROWS)  # (plans from here on: tuning numbers are global)
    for x in xs:
        for direction in ("decreasing", "increasing"):
            check(x, 1, -1, direction, strategy="threshold", device=d)
    check(xo, 1, 0, "decreasing", strategy="threshold", device=d)
    check(xo[:255], 1, 0, "increasing", strategy="sort", device=d)  # shorter: sorted


def test_default_limits(default_limits_dev, monkeypatch):
    # a device the user requested with WebGPU's default limits (256 invocations a
    # workgroup, 16 KiB of workgroup memory): the select kernel's tile is 4096, "wide", the
    # fallback's flag words and the sort's padded entries (at most 1024 of float32 pairs)
    # fit the smaller memory; the guarded fallback in blocks, "wide" from K = 65, chunks
    # of several tiles, the merge passes and the "radix" sort (K = 1000), all exact
    d = default_limits_dev
    monkeypatch.setattr(tuning, "TOPK_GUARD_MIN_GROUPS", 4)
    monkeypatch.setattr(tuning, "TOPK_WIDE_CHUNKS", 2)
    rng = rng_for("default limits")
    for dtype in ("float32", "float16"):
        rows = random_values(rng, (40, 5000), dtype, ties=False, specials=False)
        rows[[0, 9, 10, 39]] = rows[[0, 9, 10, 39]] > 0  # ties at T: the fallback
        short = tie_rows(rng, dtype, 512)
        long = random_values(rng, (3, 9 * 4096 + 100), dtype, ties=False)
        long[1, 4096:3 * 4096] = long[1, 4096]
        for direction in ("decreasing", "increasing"):
            check(rows, 12, -1, direction, device=d)
            check(short, 128, -1, direction, strategy="wide", device=d)
            notes = check(long, 300, -1, direction, device=d)
            assert notes["strategy"] == "wide" and notes["merge_passes"] >= 1, notes
        check(long, 1000, -1, "decreasing", device=d)
        check(np.ascontiguousarray(short.T), 100, 0, "increasing", device=d)
    # rows gathered from a strided axis: uint8's tile of 32 x 32 words (16.5 KiB) halved
    for dtype, tr in (("uint8", 16), ("float16", 32), ("int64", 32)):
        x = random_values(rng, (64, 64, 64), dtype)
        t = dg.asarray(x, device=d)
        notes = check(t, 20, 0, "decreasing", device=d)
        assert notes["gathered"], notes
        gather = compiled(t, 20, 0, "decreasing").plan.steps[0]
        assert gather.variables["tr"] == tr
