"""NonZeroCoordinates against numpy.argwhere, exact (only the first `count` rows count).

dtype x rank x density; -0.0, NaN, denormals and 64-bit values with one word set; views
(strided, transposed, reversed, offset, misaligned 8/16-bit, broadcast); coordinate_rank;
more than 2^24 elements; tensors and scratch bound as several windows; several scan
levels and 2-D grids (tuning and grid limits shrunk so that small inputs reach them);
the DirectML-style layer and its errors.

Each dtype needs few pipelines: a contiguous and a strided count kernel; the scan and
scatter kernels are shared by all dtypes.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from reference import ALL_DTYPES, rng_for

import dmlgpu as dg
from dmlgpu import tuning
from dmlgpu.ops.nonzero import CompiledNonZeroCoordinates

FLOATS = ("float32", "float16")


def nonzero_values(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    """n non-zero values: ordinary ones and the type's specials (NaN, +-inf, denormals,
    extremes; for 64-bit types values with only the high or only the low word set)."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        v = rng.standard_normal(n).astype(dt)
        v[v == 0] = 1
        specials = np.array([np.nan, -np.nan, np.inf, -np.inf, np.finfo(dt).max,
                             np.finfo(dt).min, np.finfo(dt).smallest_subnormal,
                             -np.finfo(dt).smallest_subnormal, 1, -1], dt)
    else:
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[v == 0] = 1
        specials = [info.min, info.max, 1]
        if dt.itemsize == 8:
            specials += [1 << 32, 1 << 63 if dt.kind == "u" else -(1 << 32), 0xFFFFFFFF]
        specials = np.array(specials, dt)
    if n:
        k = max(1, n // 20)
        v[rng.integers(0, n, k)] = specials[rng.integers(0, specials.size, k)]
    return v


def zero_values(rng: np.random.Generator, n: int, dtype: str) -> np.ndarray:
    """n zeros; floats mix +0.0 and -0.0."""
    z = np.zeros(n, dtype)
    if np.dtype(dtype).kind == "f":
        z[rng.random(n) < 0.5] = -0.0
    return z


def sample(rng, shape, dtype, density: float) -> np.ndarray:
    n = int(np.prod(shape))
    mask = rng.random(n) < density
    return np.where(mask, nonzero_values(rng, n, dtype), zero_values(rng, n, dtype)).reshape(shape)


def expected(x: np.ndarray, n_coords: int | None = None) -> np.ndarray:
    n_coords = x.ndim if n_coords is None else n_coords
    return np.argwhere(x.reshape(x.shape[x.ndim - n_coords:])).astype(np.uint32)


def got(count, coords) -> np.ndarray:
    """The defined rows: the first `count` (downloads only those)."""
    assert count.shape == (1,) and count.dtype == np.uint32
    n = int(count.numpy()[0])
    assert n <= coords.shape[0]
    return coords[:n].numpy() if n else np.zeros((0, coords.shape[1]), np.uint32)


def check(x: np.ndarray, tensor=None, coordinate_rank=None) -> None:
    t = dg.asarray(x) if tensor is None else tensor
    count, coords = dg.nonzero_coordinates(t, coordinate_rank)
    n = t.ndim if coordinate_rank is None else coordinate_rank
    assert coords.shape == (x.size, n) and coords.dtype == np.uint32
    exp, res = expected(x, coordinate_rank), got(count, coords)
    assert res.shape == exp.shape, f"count {res.shape[0]} != {exp.shape[0]}"
    if not (res == exp).all():
        bad = np.argwhere((res != exp).any(axis=1))[:5, 0]
        raise AssertionError(f"{len(bad)}+ rows differ, e.g. row {bad[0]}: got "
                             f"{res[bad[0]]} expected {exp[bad[0]]}")


# -- the spec's test vector ---------------------------------------------------------------

SPEC_X = np.array([[[[1.0, 0.0, 0.0, 2.0], [-0.0, 3.5, 0.0, -5.2]]]], np.float32)
SPEC_ROWS = np.array([[0, 0, 0], [0, 0, 3], [0, 1, 1], [0, 1, 3]], np.uint32)


def test_spec_example(dev):
    count, coords = dg.nonzero_coordinates(SPEC_X, coordinate_rank=3)
    assert count.numpy().tolist() == [4]
    assert coords.shape == (8, 3)
    np.testing.assert_array_equal(coords.numpy()[:4], SPEC_ROWS)


def test_spec_example_desc(dev):
    desc = dg.NonZeroCoordinatesDesc(input=dg.TensorDesc("float32", (1, 1, 2, 4)),
                                     output_count=dg.TensorDesc("uint32", (1, 1, 1, 1)),
                                     output_coordinates=dg.TensorDesc("uint32", (1, 1, 8, 3)))
    op = dev.compile(desc)
    count = dg.asarray(np.full((1, 1, 1, 1), 99, np.uint32))
    coords = dg.asarray(np.full((1, 1, 8, 3), 77, np.uint32))
    out = op(inputs=[dg.asarray(SPEC_X)], outputs=[count, coords])
    assert out[0] is count and out[1] is coords
    assert count.numpy().reshape(-1).tolist() == [4]
    np.testing.assert_array_equal(coords.numpy()[0, 0, :4], SPEC_ROWS)
    count2, coords2 = op(inputs=[dg.asarray(SPEC_X)])
    assert coords2.shape == (1, 1, 8, 3)
    np.testing.assert_array_equal(coords2.numpy()[0, 0, :4], SPEC_ROWS)


# -- dtype x rank x density ---------------------------------------------------------------

# 9000..21000 elements: whole mask blocks (8192 elements) and a partial one.
SHAPES = {1: (20011,), 2: (97, 211), 3: (7, 40, 51), 4: (3, 5, 29, 31),
          5: (2, 3, 5, 7, 53), 6: (2, 3, 2, 5, 7, 37), 7: (2, 2, 3, 2, 5, 7, 19),
          8: (2, 2, 2, 3, 2, 5, 7, 13)}
DENSITIES = {"zero": 0.0, "sparse": 0.003, "medium": 0.1, "dense": 0.6, "full": 1.0}


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("rank", sorted(SHAPES))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dtypes_ranks_densities(dev, dtype, rank, density):
    x = sample(rng_for("nz", dtype, rank, density), SHAPES[rank], dtype, DENSITIES[density])
    check(x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("n", [1, 2, 3, 5, 255, 256, 257, 8191, 8192, 8193, 32768, 32769])
def test_sizes_around_blocks_and_tiles(dev, dtype, n):
    """Lengths around a workgroup (256), a mask block (8192) and the 8-bit tile (32768),
    with non-zeros planted at both ends."""
    rng = rng_for("sizes", dtype, n)
    x = sample(rng, (n,), dtype, 0.3)
    x[0] = x[-1] = nonzero_values(rng, 1, dtype)[0]
    check(x)


@pytest.mark.parametrize("dtype", ["float32", "uint8"])
@pytest.mark.parametrize("k", [1, 255, 256, 257, 300])
def test_sparse_tile_threshold(dev, dtype, k):
    """Tiles of up to 256 non-zeros take the scatter's sparse path, others the dense one:
    k non-zeros spread over the blocks of the first tile, k+1 over the second."""
    op = dev.compile(desc((3, 40000), coords=(120000, 2), dtype=dtype))
    tile = op.plan.notes["tile_elements"]
    rng = rng_for("threshold", dtype, k)
    x = np.zeros(3 * tile, dtype)
    for t, n in ((0, k), (1, k + 1)):
        x[t * tile + rng.choice(tile, n, replace=False)] = 1
    x[-1] = 2
    check(x)


# -- special values -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_float_specials(dev, dtype):
    """+-0.0 are zero; NaN (any payload, either sign), +-inf and denormals are not."""
    bits = np.dtype(dtype).itemsize * 8
    u = np.dtype(f"uint{bits}")
    sign = 1 << (bits - 1)
    exp_mask = 0x7F800000 if bits == 32 else 0x7C00
    raw = np.array([0, sign, 1, sign | 1, exp_mask | 1, sign | exp_mask | 1, exp_mask | 0x40,
                    exp_mask, sign | exp_mask, sign - 1, 0, sign, 0x100, sign | 0x100, 0,
                    sign], u)
    x = np.tile(raw, 700).view(dtype)  # 11200 elements: a whole block and a partial one
    check(x)
    assert int(dg.nonzero_coordinates(x)[0].numpy()[0]) == 10 * 700
    x2 = x.reshape(700, 16)
    check(x2, dg.asarray(np.ascontiguousarray(x2.T)).T)  # strided count kernel


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_64bit_words(dev, dtype):
    """A 64-bit value is non-zero when either word is: only-high-word values count."""
    words = np.array([[0, 0], [0, 1], [1, 0], [0, 0x80000000], [0xFFFFFFFF, 0], [0, 0]],
                     np.uint32)
    x = np.tile(words, (1500, 1)).reshape(-1).view(dtype)  # (lo, hi) little-endian
    check(x)
    assert int(dg.nonzero_coordinates(x)[0].numpy()[0]) == 4 * 1500


# -- views --------------------------------------------------------------------------------

VIEWS = {
    "strided": lambda a: a[:, ::3],
    "transposed": lambda a: a.T,
    "reversed": lambda a: a[::-1, ::-2],
    "offset": lambda a: a[3:, 5:],
    "misaligned": lambda a: a.reshape(-1)[1:],  # contiguous, starting mid-word (8/16-bit)
    "misaligned3": lambda a: a.reshape(-1)[3:-2],
    "row": lambda a: a[7],
}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "int16"])
def test_views(dev, dtype, view):
    x = sample(rng_for("view", dtype, view), (90, 123), dtype, 0.4)
    t = VIEWS[view](dg.asarray(x))
    check(np.ascontiguousarray(VIEWS[view](x)), t)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "uint64"])
def test_broadcast(dev, dtype):
    rng = rng_for("bcast", dtype)
    row = sample(rng, (1, 300), dtype, 0.5)
    check(np.broadcast_to(row, (40, 300)), dg.broadcast_to(row, (40, 300)))
    col = sample(rng, (50, 1), dtype, 0.5)
    check(np.broadcast_to(col[:, None], (50, 7, 40)), dg.broadcast_to(dg.asarray(col)[:, None],
                                                                      (50, 7, 40)))
    one = nonzero_values(rng, 1, dtype).reshape(1, 1)
    check(np.broadcast_to(one, (3, 9000)), dg.broadcast_to(one, (3, 9000)))
    zero = zero_values(rng, 1, dtype).reshape(1)
    check(np.broadcast_to(zero, (9000,)), dg.broadcast_to(zero, (9000,)))


def test_same_op_different_offsets(dev):
    """One compiled op serves tensors of one layout at different offsets."""
    x = sample(rng_for("offsets"), (64, 100), "uint8", 0.5)
    t = dg.asarray(x)
    for i in (0, 1, 2, 3, 5):
        check(x[i:i + 50], t[i:i + 50])


# -- coordinate_rank ----------------------------------------------------------------------

@pytest.mark.parametrize("shape, ranks", [
    ((1, 1, 2, 4), (2, 3, 4)), ((1, 300), (1, 2)), ((1, 1, 1), (1, 2, 3)),
    ((5, 1, 7), (3,)), ((1, 2, 1, 1, 3, 1, 1, 50), (7, 8))])
def test_coordinate_rank(dev, shape, ranks):
    x = sample(rng_for("crank", shape), shape, "float32", 0.5)
    for n in ranks:
        check(x, coordinate_rank=n)


@pytest.mark.parametrize("shape, value", [
    ((1, 1, 2, 4), 1), ((1, 1, 2, 4), 5), ((3, 4), 0), ((3, 4), -1), ((6,), 2)])
def test_coordinate_rank_out_of_range(dev, shape, value):
    with pytest.raises(ValueError, match=rf"coordinate_rank: {value} .*{re.escape(str(shape))}"
                                         r".*allowed"):
        dg.nonzero_coordinates(np.ones(shape, np.float32), value)


@pytest.mark.parametrize("value", [2.0, "2", True])
def test_coordinate_rank_type(dev, value):
    with pytest.raises(TypeError, match="coordinate_rank"):
        dg.nonzero_coordinates(np.ones((3, 4), np.float32), value)


# -- sizes --------------------------------------------------------------------------------

def test_more_than_2_24_elements(dev):
    """16.8M uint8 elements (> 2^24), sparse, with non-zeros around index 2^24 and at the
    end; the coordinates (134 MB) span two bindings of the default 128 MiB limit."""
    shape = (4099, 4099)
    n = shape[0] * shape[1]
    rng = rng_for("big")
    flat = np.zeros(n, np.uint8)
    idx = np.unique(np.concatenate([rng.integers(0, n, 3000), [0, 2**24 - 1, 2**24,
                                                               2**24 + 1, n - 1]]))
    flat[idx] = rng.integers(1, 256, idx.size).astype(np.uint8)
    check(flat.reshape(shape))


def test_empty_input(dev):
    count, coords = dg.nonzero_coordinates(np.zeros((3, 0, 2), np.float32))
    assert count.numpy().tolist() == [0]
    assert coords.shape == (0, 3)


def test_single_element(dev):
    for v in (0.0, -0.0, 2.0, np.nan):
        count, coords = dg.nonzero_coordinates(np.full((1, 1), v, np.float32))
        n = 0 if v == 0 else 1
        assert count.numpy().tolist() == [n]
        assert got(count, coords).tolist() == [[0, 0]] * n


def shrunk(monkeypatch, span: int, tile_loads: int = 1) -> None:
    """Small scan segments and one mask block per tile: small inputs need several scan
    levels. Ops are compiled without the device's cache (tuning is read at compile time).
    The tests use int64, whose tiles are one block anyway: no extra pipelines."""
    monkeypatch.setattr(tuning, "NONZERO_SCAN_SPAN", span)
    monkeypatch.setattr(tuning, "NONZERO_TILE_LOADS", tile_loads)


def run_uncached(dev, x: np.ndarray, tensor=None):
    t = dg.asarray(x, device=dev) if tensor is None else tensor
    n = x.ndim
    desc = dg.NonZeroCoordinatesDesc(dg.TensorDesc.of(t), dg.TensorDesc("uint32", (1,)),
                                     dg.TensorDesc("uint32", (x.size, n)))
    op = CompiledNonZeroCoordinates(dev, desc)
    count, coords = op(inputs=[t])
    res = got(count, coords)
    np.testing.assert_array_equal(res, expected(x))
    return op


# non-zeros per mask block: either side of the staging threshold (1024), none, the sparse
# tile threshold, a full block
BLOCK_COUNTS = [1024, 1025, 0, 300, 8192, 1, 4000, 1023, 2, 257, 5000, 1024]


# the scatter's blocks as coordinates of 3 columns (word stores), 4 (vectors of 4) and 2
BLOCK_SHAPES = {3: (len(BLOCK_COUNTS), 128, 64), 4: (len(BLOCK_COUNTS), 128, 8, 8),
                2: (len(BLOCK_COUNTS) * 128, 64)}


@pytest.mark.parametrize("dtype", ["float32", "float16", "uint8", "int64"])
@pytest.mark.parametrize("stage", [0, 1024])
@pytest.mark.parametrize("pool", [True, False])
@pytest.mark.parametrize("rank", [3, 4, 2])
def test_scatter_block_paths(dev, monkeypatch, dtype, stage, pool, rank):
    """The scatter's two ways through a block of a dense tile: staged (at most
    NONZERO_STAGE non-zeros) and rounds (more; every block when the stage is 0). Blocks of
    the counts above, so that tiles of 8 (uint8), 4 (float16), 2 (float32) and 1 (int64)
    blocks mix both ways and each block's offset adds its tile's earlier blocks. `pool`:
    the workgroup arrays in one (NONZERO_SCATTER_POOL_MAX_COORDS) or apart; `rank`: rows
    stored a word (3), a vector of 4 (4) or of 2 (2) at a time."""
    monkeypatch.setattr(tuning, "NONZERO_STAGE", stage)
    monkeypatch.setattr(tuning, "NONZERO_SCATTER_POOL_MAX_COORDS", 8 if pool else 0)
    block = 32 * tuning.NONZERO_WG
    rng = rng_for("block-paths", dtype, stage)
    x = zero_values(rng, len(BLOCK_COUNTS) * block, dtype)
    for b, n in enumerate(BLOCK_COUNTS):
        x[b * block + rng.choice(block, n, replace=False)] = nonzero_values(rng, n, dtype)
    op = run_uncached(dev, x.reshape(BLOCK_SHAPES[rank]))
    assert op.plan.steps[-1].variables["vec"] == {3: 1, 4: 4, 2: 2}[rank]


def scatter_vecs(monkeypatch, dev) -> list:
    """The `vec` of every scatter pipeline `dev` is asked for from now on."""
    seen, get = [], dev.pipelines.get

    def spy(template, **variables):
        if template == "nonzero_scatter.wgsl.j2":
            seen.append(variables["vec"])
        return get(template, **variables)
    monkeypatch.setattr(dev.pipelines, "get", spy)
    return seen


@pytest.mark.parametrize("shape", [(1, 350, 200), (1, 30, 50, 40), (1, 4, 5, 6, 7, 8, 9),
                                   (1, 9, 7, 5, 4, 2, 2, 6)])
def test_scatter_vec_stores(dev, monkeypatch, shape):
    """Coordinates of 2 / 4 / 6 / 8 columns (NONZERO_VEC_STORES; a leading 1 lets the
    coordinate rank be one less) at word offsets that are whole vectors (a vector store
    each) and that are not (word stores, the same plan), from a sparse tile, staged blocks
    and rounds; rows strided: word stores. The first and the last element non-zero."""
    rng = rng_for("vec stores", shape)
    x = sample(rng, shape, "float32", 0.05)  # (blocks of ~400: staged)
    flat_x = x.reshape(-1)
    flat_x[:16384] = 0  # a sparse first tile (float32: 2 blocks of 8192)
    flat_x[rng.choice(16384, 100, replace=False)] = 3
    flat_x[8192 * 5: 8192 * 6] = 2  # a full block (rounds)
    flat_x[0] = flat_x[-1] = 1
    t = dg.asarray(x, device=dev)
    m = x.size
    for cols in (x.ndim, x.ndim - 1):
        vec = next(v for v in (4, 2, 1) if cols % v == 0)
        exp = expected(x, cols)
        flat = dg.empty((m + 1) * cols, "uint32", device=dev)
        for off in sorted({0, vec, 1}):  # (whole vectors, and one word in)
            seen = scatter_vecs(monkeypatch, dev)
            out = (dg.empty(1, "uint32", device=dev), flat[off:off + m * cols].reshape(m, cols))
            count, coords = dg.nonzero_coordinates(t, cols, out=out)
            np.testing.assert_array_equal(got(count, coords), exp)
            assert seen and set(seen) == {vec if off % vec == 0 else 1}, (cols, off, seen)
            monkeypatch.undo()
    n = x.ndim
    rows = dg.empty((m, n + 1), "uint32", device=dev)[:, :n]  # (row stride n + 1: words)
    seen = scatter_vecs(monkeypatch, dev)
    count, coords = dg.nonzero_coordinates(t, n, out=(dg.empty(1, "uint32", device=dev), rows))
    np.testing.assert_array_equal(got(count, coords), expected(x, n))
    assert set(seen) == {1}, seen


@pytest.mark.parametrize("sums", [True, False])
@pytest.mark.parametrize("fused", [True, False])
def test_subgroup_sums(dev, monkeypatch, sums, fused):
    """The count's and the scatter's workgroup sums by subgroup (NONZERO_SUBGROUP_SUMS,
    where the device has subgroups) and by the portable scan: tile counts, the offsets of
    the tiles before a scatter workgroup (the scan folded in or not) and the count, from
    empty, sparse and full tiles of 8/32/64-bit inputs."""
    monkeypatch.setattr(tuning, "NONZERO_SUBGROUP_SUMS", sums)
    monkeypatch.setattr(tuning, "NONZERO_FUSED_SCAN", fused)
    rng = rng_for("subgroup sums", sums, fused)
    for dtype in ("uint8", "float32", "int64"):
        x = sample(rng, (37, 3001), dtype, 0.3)
        x.reshape(-1)[: 70000] = 0  # empty tiles, then a sparse one
        x.reshape(-1)[70000: 70000 + 200: 2] = 1
        x.reshape(-1)[-20000:] = 1  # full tiles
        op = run_uncached(dev, x)
        sg = {s.template: s.variables.get("sg") for s in op.plan.steps}
        want = bool(sums and dev.subgroup_size)
        assert sg["nonzero_count.wgsl.j2"] == sg["nonzero_scatter.wgsl.j2"] == want, sg
        assert op.plan.notes["fused_scan"] == fused
    if sums:
        assert dev.subgroup_size, "the test device has no subgroups: only the scan is tested"


@pytest.mark.parametrize("times", [1, 2, 0])
def test_subgroup_scan(dev, monkeypatch, times):
    """The scatter's block ranks by subgroup sums (NONZERO_SUBGROUP_SCAN set to the test
    device's lanes: 4 on lavapipe as scripts/test.sh runs it, 8 as it comes), by the portable
    scan in the same kernel where the subgroups are smaller than asked (twice its lanes: its
    per-workgroup check sends every workgroup to the fallback) and with it off: dense and
    staged blocks, the arrays pooled or apart (ranks 2 and 4), 8/32/64-bit inputs, the scan
    folded in or not."""
    assert dev.subgroup_size >= 4, "the test device has subgroups (lavapipe has): both ways run"
    least = times * dev.subgroup_size
    monkeypatch.setattr(tuning, "NONZERO_SUBGROUP_SCAN", least)
    monkeypatch.setattr(tuning, "NONZERO_SUBGROUP_SCAN_MAX_COORDS", 4)
    rng = rng_for("subgroup scan", least)
    for dtype, shape, density in (("uint8", (300, 700), 0.9), ("float32", (30, 7, 10, 100), 0.3),
                                  ("int64", (2, 50000), 0.05)):
        for fused in (True, False):
            monkeypatch.setattr(tuning, "NONZERO_FUSED_SCAN", fused)
            x = sample(rng, shape, dtype, density)
            x.reshape(-1)[:9000] = 1  # a full block
            op = run_uncached(dev, x)
            assert op.plan.steps[-1].variables["sg_scan"] == least
    # (by default: up to NONZERO_SUBGROUP_SCAN_MAX_COORDS columns)
    monkeypatch.setattr(tuning, "NONZERO_SUBGROUP_SCAN_MAX_COORDS", 2)
    for shape, on in (((5000,), True), ((70, 80), True), ((10, 20, 30), False)):
        op = run_uncached(dev, sample(rng, shape, "float32", 0.5))
        assert op.plan.steps[-1].variables["sg_scan"] == (least if on else 0), shape


def test_scatter_pool_by_coordinates(dev):
    """The scatter's arrays in one for coordinates of up to 3 columns, apart for more."""
    for shape, pool in (((70000,), True), ((50, 40, 30), True), ((10, 9, 8, 7), False)):
        x = sample(rng_for("pool", len(shape)), shape, "float32", 0.7)
        op = run_uncached(dev, x)
        assert op.plan.steps[-1].variables["pool"] == pool


def test_scatter_scan_bound(dev, monkeypatch):
    """Tiles too long for the scatter's packed 32-bit scan are refused by the plan."""
    monkeypatch.setattr(tuning, "NONZERO_TILE_LOADS", 8 * 64)
    with pytest.raises(ValueError, match="NONZERO_TILE_LOADS: 512"):
        CompiledNonZeroCoordinates(dev, desc((4, 4), coords=(16, 2), dtype="uint8"))


@pytest.mark.parametrize("span, levels", [(2, 5), (4, 3), (8, 2), (64, 1)])
@pytest.mark.parametrize("density", [0.0005, 0.5])
@pytest.mark.parametrize("fused", [False, True])
def test_scan_levels(dev, monkeypatch, span, levels, density, fused):
    """23 tiles: segments of 2 need levels of 23, 12, 6, 3 and 2 values; one level of 64
    is folded into the scatter pass where NONZERO_FUSED_SCAN is on (no scan dispatch)."""
    shrunk(monkeypatch, span)
    monkeypatch.setattr(tuning, "NONZERO_FUSED_SCAN", fused)
    rng = rng_for("levels", span, density)
    x = sample(rng, (23 * 8192 - 100,), "int64", density)
    x[8191] = x[8192] = x[4 * 8192] = x[-1] = 1  # tile and segment boundaries
    op = run_uncached(dev, x)
    folded = fused and levels == 1
    assert op.plan.notes["scan_levels"] == (0 if folded else levels)
    scans = [s for s in op.plan.steps if s.template == "nonzero_scan.wgsl.j2"]
    assert len(scans) == (0 if folded else levels)


@pytest.mark.parametrize("tiles", [1, 31, 32, 33, 300, 512, 513])
@pytest.mark.parametrize("density", [0.0, 0.0005, 0.5, 1.0])
@pytest.mark.parametrize("pool", [True, False])
def test_fused_scan(dev, monkeypatch, tiles, density, pool):
    """The scan folded into the scatter (NONZERO_FUSED_SCAN): workgroups of 32 threads and
    tiles of one 1024-element block, so that 300 tiles take 10 of a thread's 16 loads; up
    to 512 tiles (the span) fused, 513 through two scan levels. Every tile's offset and
    the count (workgroup 0's sum of every tile; 0 where all are zero) exact."""
    shrunk(monkeypatch, 512)
    monkeypatch.setattr(tuning, "NONZERO_WG", 32)
    monkeypatch.setattr(tuning, "NONZERO_SCATTER_POOL_MAX_COORDS", 8 if pool else 0)
    rng = rng_for("fused", tiles, density)
    x = sample(rng, (tiles * 1024 - 7,), "int64", density)
    if density:
        x[min(1023, x.size - 1)] = x[-1] = 1  # tile boundaries
        x[rng.integers(0, x.size, 3)] = 0
    op = run_uncached(dev, x)
    scatter = op.plan.steps[-1]
    assert scatter.template == "nonzero_scatter.wgsl.j2"
    assert scatter.variables["fused_items"] == (16 if tiles <= 512 else 0)
    assert op.plan.notes["scan_levels"] == (0 if tiles <= 512 else 2)


def test_grid_past_dispatch_limit(dev, monkeypatch):
    """More tiles and scan segments than a grid dimension holds (the limit shrunk to 5):
    2-D grids whose last row has idle workgroups."""
    shrunk(monkeypatch, 4)
    monkeypatch.setattr(dev, "max_workgroups", 5)
    rng = rng_for("grid")
    x = sample(rng, (23, 8192), "int64", 0.01)
    op = run_uncached(dev, x)
    assert max(s.n_groups for s in op.plan.steps) > 5
    op = run_uncached(dev, x[:, ::2], dg.asarray(x)[:, ::2])  # strided count kernel too


# -- several bindings ---------------------------------------------------------------------

def windows_of(t, dev) -> int:
    lo, hi = t.element_span()
    return -(-(hi + 1 - lo) * t.dtype.itemsize // dev.window_bytes)


WINDOW_VIEWS = {"none": lambda a: a, "offset": lambda a: a[1:, 3:], "transposed": lambda a: a.T}


@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
@pytest.mark.parametrize("view", WINDOW_VIEWS)
def test_windows(windowed_dev, dtype, view):
    """Input and coordinates several 4 KiB bindings each."""
    x = sample(rng_for("win", dtype, view), (40, 60), dtype, 0.6)
    x[-1, -1] = x[0, 0] = 1
    t = WINDOW_VIEWS[view](dg.asarray(x, device=windowed_dev))
    x = np.ascontiguousarray(WINDOW_VIEWS[view](x))
    assert windows_of(t, windowed_dev) >= 2
    count, coords = dg.nonzero_coordinates(t)
    assert coords.nbytes > 2 * windowed_dev.window_bytes
    np.testing.assert_array_equal(got(count, coords), expected(x))


@pytest.mark.parametrize("dtype", ["float16"])
def test_windows_whole_blocks(windowed_dev, dtype):
    """Whole mask blocks (the count kernel's fast path) read across bindings."""
    x = sample(rng_for("win-blocks", dtype), (8500,), dtype, 0.5)
    x[-1] = x[8191] = 1
    t = dg.asarray(x, device=windowed_dev)
    assert windows_of(t, windowed_dev) >= 4
    count, coords = dg.nonzero_coordinates(t)
    np.testing.assert_array_equal(got(count, coords), expected(x))


def test_windows_scratch(windowed_dev):
    """An 8-bit tile's mask is 4 KiB: the tile counts and offsets land in a second binding
    of the scratch buffer."""
    x = sample(rng_for("win-scratch"), (11000,), "uint8", 0.5)
    x[-1] = 3
    op = run_uncached(windowed_dev, x)
    assert op.plan.partial_bytes > windowed_dev.window_bytes


def test_fused_scan_leaves_the_count_a_binding(windowed_dev):
    """The scatter that takes the scan's place binds the count too: coordinates that would
    leave it no binding (or the one window more a view at an offset needs) keep the scan's
    own dispatch; a little less and the scan is folded in. Both right, at offset 0 and at an
    offset."""
    budget, win = windowed_dev.max_storage_bindings, windowed_dev.window_bytes
    seen = set()
    for spare in range(4):
        m = (budget - 2 - spare) * 1024 - 100  # coordinates in budget - 2 - spare windows
        x = sample(rng_for("count binding", spare), (m + 50,), "float32", 0.7)
        x[-1] = 1
        op = run_uncached(windowed_dev, x[:m])
        scratch = -(-op.plan.partial_bytes // win)
        fits = (budget - 2 - spare) + 1 + scratch + 1 <= budget  # (+1: a view's extra window)
        assert op.plan.notes["fused_scan"] == fits and op.plan.notes["tiles"] >= 1
        seen.add(fits)
        check(x[50:m + 50], dg.asarray(x, device=windowed_dev)[50:m + 50])
    assert seen == {False, True}


# -- the DirectML-style layer -------------------------------------------------------------

def desc(sizes=(2, 3), count=(1,), coords=(6, 2), dtype="float32", count_dtype="uint32",
         coords_dtype="uint32", coords_strides=None):
    return dg.NonZeroCoordinatesDesc(dg.TensorDesc(dtype, sizes),
                                     dg.TensorDesc(count_dtype, count),
                                     dg.TensorDesc(coords_dtype, coords, coords_strides))


def test_desc_strided_outputs(dev):
    """Coordinates written through strides (column-major) and a count at an offset."""
    x = sample(rng_for("desc-out"), (30, 40), "int32", 0.3)
    m = x.size
    op = dev.compile(desc((30, 40), (1, 1), (m, 2), "int32", coords_strides=(1, m)))
    coords = dg.empty((2, m), "uint32").T
    big = dg.asarray(np.full(5, 7, np.uint32))
    count = big[3:4].reshape(1, 1)
    op(inputs=[dg.asarray(x)], outputs=[count, coords])
    n = int(big.numpy()[3])
    assert big.numpy().tolist()[:3] + big.numpy().tolist()[4:] == [7, 7, 7, 7]
    np.testing.assert_array_equal(coords.numpy()[:n], expected(x))


def test_desc_zero_count_overwrites(dev):
    op = dev.compile(desc())
    count = dg.asarray(np.array([12345], np.uint32))
    op(inputs=[dg.asarray(np.zeros((2, 3), np.float32))],
       outputs=[count, dg.empty((6, 2), "uint32")])
    assert count.numpy().tolist() == [0]


@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(count_dtype="int32"), TypeError, r"output_count.dtype: int32 .*uint32"),
    (dict(coords_dtype="uint64"), TypeError, r"output_coordinates.dtype: uint64 .*uint32"),
    (dict(count=(1, 2)), ValueError, r"output_count.sizes: \(1, 2\)"),
    (dict(coords=(5, 2)), ValueError, r"output_coordinates.sizes: \(5, 2\) .*M = 6.*N in 2..2"),
    (dict(coords=(6, 3)), ValueError, r"output_coordinates.sizes: \(6, 3\) .*N in 2..2"),
    (dict(coords=(6,)), ValueError, r"output_coordinates.sizes: \(6,\)"),
    (dict(coords=(2, 6, 2)), ValueError, r"output_coordinates.sizes: \(2, 6, 2\)"),
    (dict(sizes=(1,) * 9, coords=(1, 9)), ValueError, r"input: rank 9 .*1..8"),
    (dict(dtype="bool"), TypeError, r"TensorDesc.dtype"),
])
def test_desc_errors(dev, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        dev.compile(desc(**kwargs))


def test_call_errors(dev):
    op = dev.compile(desc())
    x = dg.asarray(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"inputs\[0\]: shape \(3, 2\)"):
        op(inputs=[dg.asarray(np.ones((3, 2), np.float32))])
    with pytest.raises(TypeError, match=r"inputs\[0\]: dtype int32"):
        op(inputs=[dg.asarray(np.ones((2, 3), np.int32))])
    with pytest.raises(ValueError, match=r"outputs: 1 tensors given, the operator takes 2"):
        op(inputs=[x], outputs=[dg.empty((1,), "uint32")])
    with pytest.raises(ValueError, match=r"outputs\[1\]: shape \(6, 3\)"):
        op(inputs=[x], outputs=[dg.empty((1,), "uint32"), dg.empty((6, 3), "uint32")])


def test_rank_error(dev):
    with pytest.raises(ValueError, match=r"x: rank 9 .*1..8"):
        dg.nonzero_coordinates(np.ones((1,) * 9, np.float32))
