"""Hardmax1 against a numpy reference: one-hot of the first maximum over the axes."""

import numpy as np
import pytest
from reference import assert_same, hardmax_reference, random_values

import dmlgpu as dg
from dmlgpu import tuning

X = np.array([[[12, 0], [-101, 11]], [[3, 234], [0, -101]]], np.float32)


@pytest.mark.parametrize("axes, expected", [
    ((1,), [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]),
    ((0,), [[[1, 0], [0, 1]], [[0, 1], [1, 0]]]),
    ((0, 2), [[[0, 0], [0, 1]], [[0, 1], [0, 0]]]),
])
def test_spec_examples(dev, axes, expected):
    assert_same(dg.hardmax(X, axes), np.array(expected, np.float32))


def test_last_axis_is_default(dev):
    x = np.array([[1, 3, 3], [-np.inf, -np.inf, -np.inf]], np.float32)
    assert_same(dg.hardmax(x), np.array([[0, 1, 0], [1, 0, 0]], np.float32))


SHAPES = [  # (shape, axes): fused rows, odd rows sharing 16-bit words, middle and split axes
    ((7,), (0,)), ((5, 300), (1,)), ((5, 301), (1,)), ((9, 3), (1,)), ((300, 5), (0,)),
    ((3, 4, 5), (0, 2)), ((2, 3, 4, 5), (1, 2)), ((65, 33), (0,)), ((4, 1, 6), (1,)),
    ((2, 3, 4, 1, 5), (4,)), ((3, 1, 2, 4, 2, 3), (0, 3, 5)), ((2, 2, 3, 1, 2, 3, 2), (6, 2)),
    ((2, 3, 1, 2, 3, 2, 1, 3), (0, 3, 7)), ((3, 2, 2, 1, 2, 2, 3, 2), (1, 2, 5, 6)),
    ((2, 3, 4), (0, 1, 2)),
]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape, axes", SHAPES)
def test_matches_numpy(dev, dtype, shape, axes):
    rng = np.random.default_rng(hash((shape, axes)) % 2**32)
    a = random_values(rng, shape, dtype)
    assert_same(dg.hardmax(a, axes), hardmax_reference(a, axes))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_nan_ties_and_signed_zero(dev, dtype):
    x = np.array([[0.0, -0.0, 0.0], [-0.0, 0.0, -1.0], [1, np.nan, np.nan],
                  [-np.inf, -np.inf, -np.inf], [np.inf, 2, np.inf]], dtype)
    assert_same(dg.hardmax(x, 1), np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 0, 0],
                                            [1, 0, 0]], dtype))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape, axes", [((300_001,), (0,)), ((3, 100_003), (1,)),
                                         ((70_001, 3), (0,))])
def test_long_subsets(dev, dtype, shape, axes):
    """Long or middle-axis subsets: a zero fill, then the winners' ones."""
    rng = np.random.default_rng(7)
    a = random_values(rng, shape, dtype)
    assert_same(dg.hardmax(a, axes), hardmax_reference(a, axes))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_strided_and_broadcast_inputs(dev, dtype):
    rng = np.random.default_rng(3)
    a = random_values(rng, (6, 10, 3), dtype)
    x = dg.asarray(a)
    for view, ref in [(x[:, ::2, 1], a[:, ::2, 1]), (x.T, a.T), (x[::-1, 3:, :], a[::-1, 3:, :])]:
        for axes in [(0,), (-1,), (0, 1)]:
            assert_same(dg.hardmax(view, axes), hardmax_reference(ref, axes))
    b = dg.broadcast_to(dg.asarray(a[0, :, 0]), (4, 10))
    assert_same(dg.hardmax(b, 1), hardmax_reference(np.broadcast_to(a[0, :, 0], (4, 10)), (1,)))
    assert_same(dg.hardmax(b, 0), hardmax_reference(np.broadcast_to(a[0, :, 0], (4, 10)), (0,)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape, axes", [((5, 301), (1,)), ((301, 5), (0,)), ((3, 9_001), (1,)),
                                         ((3, 2), (0,)), ((2, 3), (0,)), ((700, 13), (0,))])
def test_output_views_leave_neighbours_alone(dev, dtype, shape, axes):
    """A preallocated output that starts mid-word, or strided: words shared with elements
    outside the view keep those elements (no torn 16-bit writes). The zero fill's
    contiguous views: within one word, across blocks of its workgroups, every start."""
    rng = np.random.default_rng(5)
    a = random_values(rng, shape, dtype)
    x = dg.asarray(a)
    sentinel = np.full(shape[0] * shape[1] * 2 + 1, 7, dtype)
    for start, step in [(1, 1), (0, 2), (1, 2), (2, 1), (3, 1)]:
        buf = dg.asarray(sentinel)
        n = shape[0] * shape[1]
        view = buf[start:start + n * step:step]
        view = dg.Tensor(buf.device, buf.buffer, dtype, shape,
                         (shape[1] * step, step), start)
        desc = dg.Hardmax1Desc(dg.TensorDesc.of(x), dg.TensorDesc.of(view), axes)
        dev.compile(desc)(inputs=[x], outputs=[view])
        got = buf.numpy()
        expected = sentinel.copy()
        expected[start:start + n * step:step] = hardmax_reference(a, axes).reshape(-1)
        assert_same(got, expected)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_segmented_rows(tuned, dtype):
    """Short contiguous subsets: TPR threads each, several per workgroup, fused; a
    contiguous output is written as one block per workgroup (words shared at its ends by
    atomics; subsets crossing words, an invocation's place carried from word to word), a
    strided one subset by subset. Ties, NaN, the last workgroup partly idle, an output view
    starting mid-word, the winner at either end of a subset."""
    # (else few subsets take a workgroup each; streamed zeros off: the write loops this tests
    # are still the variant for inputs and outputs at different places in their words)
    d = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, HARDMAX_STREAM=False)
    rng = np.random.default_rng(11)
    for n in (33, 65, 129, 700, 1500):
        a = random_values(rng, (41, n), dtype)
        a[3] = a[3, 0]
        a[5, -1] = np.inf  # winners at a subset's last element and at its first
        a[6, 0] = np.inf
        x = dg.asarray(a, device=d)
        buf = dg.empty((41 * n + 2,), dtype, device=d)
        for out, block in ((None, True), (dg.empty((n, 41), dtype, device=d).T, False),
                           (dg.Tensor(d, buf.buffer, dtype, a.shape, (n, 1), 1), True)):
            desc = dg.Hardmax1Desc(dg.TensorDesc.of(x),
                                   dg.TensorDesc.of(out) if out is not None
                                   else dg.TensorDesc(dtype, a.shape), (1,))
            plan = d.compile(desc).plan
            var = plan.steps[0].variables
            assert plan.notes["fused"] and 2 <= var["tpr"] < var["wg"], plan.notes
            assert var["block_out"] == block
            got = dg.hardmax(x, 1, out=out)
            assert_same(got, hardmax_reference(a, (1,)))
        assert_same(dg.hardmax(x[:, 1:], 1), hardmax_reference(a[:, 1:], (1,)))  # mid-word
        assert_same(dg.hardmax(x[:, ::-1], 1), hardmax_reference(a[:, ::-1], (1,)))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_streamed_rows(tuned, dtype, monkeypatch):
    """Fused row plans store their zeros as they read ("loop": a contiguous last axis, runs
    of at least HARDMAX_STREAM_MIN_TPR threads) or a workgroup's block of them before the
    reads ("block"), and the winners' ones after the tree: rows of a workgroup each and
    several a workgroup, odd lengths (16-bit subsets starting mid-word: the words at their
    ends shared, atomics), ties (the first), NaN (the first), the winner at either end;
    outputs and input views at other places in their words than the input's (when bound:
    the block's zeros first, or the writes after the tree), neighbours of an output view
    left alone; kept strides unlike the output's (16-bit: no loop); the switch off."""
    d = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1)
    rng = np.random.default_rng(13)
    pw = 4 // np.dtype(dtype).itemsize
    seen, modes = [], set()
    get = d.pipelines.get

    def spy(template, **variables):
        seen.append(variables.get("stream_hot"))
        return get(template, **variables)
    monkeypatch.setattr(d.pipelines, "get", spy)

    def run(x, ref, out=None, skewed=False, loop=True):
        desc = dg.Hardmax1Desc(dg.TensorDesc.of(x), dg.TensorDesc.of(out) if out is not None
                               else dg.TensorDesc(dtype, x.shape), (1,))
        op = d.compile(desc)
        var = op.plan.steps[0].variables
        block = var["tpr"] < var["wg"]  # (the output is contiguous)
        mode = "loop" if loop and var["tpr"] >= 8 else "block" if block else ""
        assert op.plan.notes["fused"] and op.plan.notes["streamed"] == mode, op.plan.notes
        # a row's partial last tile taken whole (ROW_MASKED_TAIL) but where zeros are stored
        # as read (a clamped duplicate would store one twice) and in packed rows (by default);
        # rows of whole tiles have no tail (their kernel no tail branch)
        tile = var["tpr"] * var["unroll"] * (pw if var["packed_rows"] else 1)
        whole = (mode != "loop" and (not var["packed_rows"] or tuning.ROW_MASKED_TAIL_PACKED)
                 and x.shape[1] % tile != 0)
        assert var["masked_tail"] == (tuning.ROW_MASKED_TAIL if whole else 0), (mode, var)
        if mode == "loop" and skewed:
            mode = "block" if block else ""
        seen.clear()
        (y,) = op(inputs=[x], outputs=[out] if out is not None else None)
        assert seen == [mode], (seen, mode, x.shape, x.offset)
        modes.add(mode)
        assert_same(y, hardmax_reference(ref, (1,)))

    for n in (64, 65, 129, 700, 1501, 5001, 9001):
        a = random_values(rng, (41, n), dtype)
        a[3] = a[3, 0]
        a[4, [n // 3, n // 2]] = np.nan
        a[5, -1] = np.inf  # winners at a subset's last element and at its first
        a[6, 0] = np.inf
        x = dg.asarray(a, device=d)
        run(x, a)
        for start in range(1, pw + 1):  # an output at each place in a word, sentinels beside
            buf = dg.asarray(np.full(41 * n + 2 * pw, 7, dtype), device=d)
            out = dg.Tensor(d, buf.buffer, dtype, a.shape, (n, 1), start)
            run(x, a, out, skewed=start % pw != 0)
            got = buf.numpy()
            assert (got[:start] == 7).all() and (got[start + 41 * n:] == 7).all()
            assert_same(got[start:start + 41 * n].reshape(a.shape), hardmax_reference(a, (1,)))
        run(x[1:], a[1:], skewed=n % pw != 0)  # a row further: odd rows start mid-word
        run(x[:, 1:], a[:, 1:], loop=pw == 1)  # kept strides n, the output's n - 1
    assert modes == ({"loop", "block", ""} if pw > 1 else {"loop", "block"}), modes
    # rows of 128: 8 threads a row (16-bit: 8 words each, HARDMAX_STREAM_MIN_WORDS; else 4)
    t = dg.TensorDesc(dtype, (41, 128))
    tpr = d.compile(dg.Hardmax1Desc(t, t, (1,))).plan.steps[0].variables["tpr"]
    assert tpr == 8, tpr
    t64 = dg.TensorDesc(dtype, (41, 64))  # (too few words for 8 threads: as without it)
    tpr = d.compile(dg.Hardmax1Desc(t64, t64, (1,))).plan.steps[0].variables["tpr"]
    assert tpr == (2 if pw == 2 else 4), tpr
    off = tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1, HARDMAX_STREAM=False)
    op = off.compile(dg.Hardmax1Desc(dg.TensorDesc(dtype, (41, 700)),
                                     dg.TensorDesc(dtype, (41, 700)), (1,)))
    assert op.plan.notes["fused"] and op.plan.notes["streamed"] == "", op.plan.notes
    tpr = off.compile(dg.Hardmax1Desc(t, t, (1,))).plan.steps[0].variables["tpr"]
    assert tpr == (4 if pw == 2 else 8), tpr


@pytest.mark.parametrize("split", [False, True], ids=["fused", "fill-and-split"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_interleaved_lanes(tuned, dtype, split):
    """Subsets over the leading axes with a small contiguous kept dim: lanes interleaved
    over it (fused, writing every element; or split, after a zero fill). Ties and NaN."""
    d = tuned(MIN_ROW_CHUNK=512) if split else tuned(TARGET_THREADS=1, ROWS_TARGET_THREADS=1)
    rng = np.random.default_rng(11)
    for shape, axes in (((2500, 2), (0,)), ((30, 50, 3), (0, 1)), ((2, 1200, 5), (1,))):
        a = random_values(rng, shape, dtype)
        lead = (slice(None),) * axes[0]  # along the first reduced axis:
        a[(*lead, 7)] = a[(*lead, 3)]  # ties within every subset
        a[(*lead, 11, ..., 0)] = np.nan  # a NaN in the first column's subsets
        desc = dg.Hardmax1Desc(dg.TensorDesc(dtype, shape), dg.TensorDesc(dtype, shape), axes)
        p = d.compile(desc).plan
        assert p.notes["strategy"] == "interleave" and p.notes["fused"] is not split, p.notes
        assert_same(dg.hardmax(dg.asarray(a, device=d), axes), hardmax_reference(a, axes))


def test_tile_columns(tuned):
    """float16 subsets over leading axes with a contiguous kept dim of whole words: a zero
    fill, then words of columns per thread, row groups merged in workgroup memory ("tilecol",
    its winners' ones set by atomic ORs), in one pass or split and merged; ties, NaN, input
    views starting mid-word, an output view starting mid-word."""
    rng = np.random.default_rng(13)
    for shape, axes, split in (((61, 300), (0,), False), ((700, 512), (0,), False),
                               ((700, 512), (0,), True), ((3, 1999, 64), (1,), True),
                               ((40, 30, 70, 64), (0, 2), True)):
        d = tuned(MERGE_COL_MIN_OUT=64, TILECOL_MIN_ROWS=64, TILECOL_MIN_RED=0,
                  TARGET_THREADS=1 << (20 * split))
        a = random_values(rng, shape, "float16")
        lead = (slice(None),) * axes[0]
        a[(*lead, 7)] = a[(*lead, 3)]  # ties within every subset
        a[(*lead, 11, ..., 0)] = np.nan
        desc = dg.Hardmax1Desc(dg.TensorDesc("float16", shape),
                               dg.TensorDesc("float16", shape), axes)
        p = d.compile(desc).plan
        assert p.notes["strategy"] == "tilecol" and not p.notes["fused"], p.notes
        assert (p.notes["split"] > 1) is split, p.notes
        assert shape[0] < 64 or p.notes["row_groups"] > 1, p.notes
        assert_same(dg.hardmax(dg.asarray(a, device=d), axes), hardmax_reference(a, axes))
    a = random_values(rng, (700, 70), "float16")
    x = dg.asarray(a, device=d)
    for lo in (1, 2):
        assert_same(dg.hardmax(x[:, lo:lo + 64], 0), hardmax_reference(a[:, lo:lo + 64], (0,)))
    sentinel = np.full(700 * 64 + 2, 7, np.float16)
    buf = dg.asarray(sentinel, device=d)
    out = dg.Tensor(buf.device, buf.buffer, "float16", (700, 64), (64, 1), 1)
    dg.hardmax(x[:, :64], 0, out=out)
    expected = sentinel.copy()
    expected[1:1 + 700 * 64] = hardmax_reference(a[:, :64], (0,)).reshape(-1)
    assert_same(buf.numpy(), expected)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_column_outputs_per_thread(tuned, dtype):
    """Short subsets over a leading axis, 4 neighbouring subsets a thread (COL_VOUT) writing
    their winners' ones; ties, NaN, a reversed kept dim, an output view starting mid-word."""
    d = tuned(COL_VOUT={16: 4, 32: 4}, TILECOL_MIN_RED=64, HARDMAX_ROW_MIN_RED=1 << 20)
    rng = np.random.default_rng(17)
    for shape, axes in (((2, 24, 16), (0,)), ((5, 8, 12), (1,))):
        a = random_values(rng, shape, dtype)
        a[(slice(None),) * axes[0] + (1,)] = a[(slice(None),) * axes[0] + (0,)]  # ties
        a[..., 3] = np.nan
        x = dg.asarray(a, device=d)
        desc = dg.Hardmax1Desc(dg.TensorDesc(dtype, shape), dg.TensorDesc(dtype, shape), axes)
        p = d.compile(desc).plan
        assert p.notes["outputs_per_thread"] == 4, p.notes
        assert_same(dg.hardmax(x, axes), hardmax_reference(a, axes))
        assert_same(dg.hardmax(x[..., ::-1], axes), hardmax_reference(a[..., ::-1], axes))
    a = random_values(rng, (3, 64), dtype)
    sentinel = np.full(3 * 64 + 1, 7, dtype)
    buf = dg.asarray(sentinel, device=d)
    out = dg.Tensor(buf.device, buf.buffer, dtype, (3, 64), (64, 1), 1)
    dg.hardmax(dg.asarray(a, device=d), 0, out=out)
    expected = sentinel.copy()
    expected[1:] = hardmax_reference(a, (0,)).reshape(-1)
    assert_same(buf.numpy(), expected)


def test_fused_and_split_plans(dev):
    def plan(shape, axes, dtype="float32"):
        desc = dg.Hardmax1Desc(dg.TensorDesc(dtype, shape), dg.TensorDesc(dtype, shape), axes)
        return dev.compile(desc).plan

    assert plan((4096, 4096), (1,)).notes["fused"]
    assert len(plan((4096, 4096), (1,)).steps) == 1
    assert not plan((4096, 4096), (0,)).notes["fused"]
    assert [s.template for s in plan((1, 1 << 20), (1,)).steps][0] == "fill.wgsl.j2"


@pytest.mark.parametrize("bad, match", [
    (dict(x=np.zeros(3, np.int32)), "x.dtype: .*int32.*allowed: float32, float16"),
    (dict(x=np.zeros(3, np.float32), axes=1), "axes: 1 is out of range"),
    (dict(x=np.zeros(3, np.float32), axes=(0, 0)), "repeats"),
    (dict(x=np.zeros((), np.float32)), "rank 0"),
])
def test_errors(dev, bad, match):
    with pytest.raises((ValueError, TypeError), match=match):
        dg.hardmax(**bad)


def test_desc_errors(dev):
    with pytest.raises(ValueError, match="Hardmax1Desc.output"):
        dev.compile(dg.Hardmax1Desc(dg.TensorDesc("float32", (2, 3)),
                                    dg.TensorDesc("float16", (2, 3)), (1,)))
