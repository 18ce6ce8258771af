"""numpy references of the operators and the one comparison helper of the suite."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import dmlgpu as dg

ALL_DTYPES = ["float32", "float16", "int64", "int32", "int16", "int8",
              "uint64", "uint32", "uint16", "uint8"]


def arg_reference(x: np.ndarray, axes, op: str, descending: bool, index_dtype="uint32"):
    """ArgMax/ArgMin over `axes` as DirectML defines it, via numpy (first NaN wins)."""
    axes = tuple(sorted(a % x.ndim for a in axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = moved.reshape([x.shape[a] for a in kept] + [-1])
    fn = np.argmax if op == "max" else np.argmin
    if descending:
        idx = flat.shape[-1] - 1 - fn(flat[..., ::-1], axis=-1)
    else:
        idx = fn(flat, axis=-1)
    out_shape = tuple(1 if a in axes else n for a, n in enumerate(x.shape))
    return idx.reshape(out_shape).astype(index_dtype)


def assert_same(got, expected: np.ndarray) -> None:
    """Same shape, dtype and exact values (NaN equal to NaN, bit for bit)."""
    g = got.numpy() if isinstance(got, dg.Tensor) else np.asarray(got)
    assert g.shape == expected.shape, f"shape {g.shape} != {expected.shape}"
    assert g.dtype == expected.dtype, f"dtype {g.dtype} != {expected.dtype}"
    if g.dtype.kind == "f":
        gb, eb = g.view(f"u{g.itemsize}"), expected.view(f"u{g.itemsize}")
        same = (gb == eb) | (np.isnan(g) & np.isnan(expected))
    else:
        same = g == expected
    if not same.all():
        bad = np.argwhere(~same)[:5]
        detail = ", ".join(f"{tuple(i)}: got {g[tuple(i)]!r} expected {expected[tuple(i)]!r}"
                           for i in bad)
        raise AssertionError(f"{(~same).sum()} of {same.size} elements differ: {detail}")


def random_values(rng: np.random.Generator, shape, dtype: str, *, ties: bool = True,
                  specials: bool = True) -> np.ndarray:
    """Random data with many ties, the type's extremes and (floats) NaN, +-inf, -0.0."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        v = rng.integers(-4, 5, n).astype(dt) if ties else rng.standard_normal(n).astype(dt)
        if specials and n:
            sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, np.finfo(dt).max,
                           np.finfo(dt).min, np.finfo(dt).tiny], dt)
            k = max(1, n // 50)
            v[rng.integers(0, n, k)] = sp[rng.integers(0, sp.size, k)]
    else:
        info = np.iinfo(dt)
        if ties:
            v = rng.integers(-3, 4, n).astype(np.int64)
            v = (v if info.min < 0 else v + 3).astype(dt)
        else:
            v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        if specials and n:
            k = max(1, n // 50)
            v[rng.integers(0, n, k)] = np.array([info.min, info.max], dt)[rng.integers(0, 2, k)]
    return v.reshape(shape)


def rng_for(*key) -> np.random.Generator:
    """A generator seeded from `key` (e.g. a test's parameters): fixed, and independent of
    which tests run and in what order."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def mixed_values(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Per element, either a tie-heavy small value or a full-range one (64-bit values that
    differ in either word), with the extremes/specials of `random_values`."""
    a = random_values(rng, shape, dtype, ties=True)
    b = random_values(rng, shape, dtype, ties=False)
    return np.where(rng.random(shape) < 0.5, a, b).astype(dtype)


def hardmax_reference(x: np.ndarray, axes) -> np.ndarray:
    """Hardmax1: 1 at the first maximum (ArgMax, INCREASING) of every subset over `axes`."""
    idx = arg_reference(x, axes, "max", False, "int64")
    axes = tuple(sorted(a % x.ndim for a in axes))
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    flat = np.zeros(moved.reshape([x.shape[a] for a in kept] + [-1]).shape, x.dtype)
    np.put_along_axis(flat, idx.reshape([x.shape[a] for a in kept] + [1]), 1, axis=-1)
    return np.transpose(flat.reshape(moved.shape), np.argsort(kept + list(axes)))


def topk_reference(x: np.ndarray, k: int, axis: int = -1, descending: bool = True,
                   index_dtype: str = "uint32"):
    """numpy TopK1: a stable argsort of value ranks (-0.0 ranks with +0.0, NaN above +inf),
    descending ranks for DECREASING, so that ties keep ascending index order both ways."""
    x = np.asarray(x)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    # ranks from float16 values widened (exactly) to float32: numpy 2.4.6 sorted some float16
    # arrays wrongly here (np.sort of an np.where result left -4 after -3)
    v = rows.astype(np.float32) if rows.dtype == np.float16 else rows
    if v.dtype.kind == "f":
        nan = np.isnan(v)
        v = np.where(nan | (v == 0), np.zeros((), v.dtype), v)  # -0.0 -> +0.0
        uniq = np.unique(v[~nan])
        rank = np.searchsorted(uniq, v).astype(np.int64)
        rank[nan] = uniq.size
    else:
        rank = np.searchsorted(np.unique(v), v).astype(np.int64)
    order = np.argsort(-rank if descending else rank, axis=-1, kind="stable")[:, :k]
    shape = moved.shape[:-1] + (k,)
    values = np.take_along_axis(rows, order, -1).reshape(shape)
    indices = order.reshape(shape).astype(index_dtype)
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def nonzero_reference(x: np.ndarray, n_coords: int | None = None) -> np.ndarray:
    """NonZeroCoordinates' defined rows: the coordinates (over the last `n_coords` dims) of
    the non-zero elements in row-major order (-0.0 is zero, NaN is not)."""
    n_coords = x.ndim if n_coords is None else n_coords
    return np.argwhere(x.reshape(x.shape[x.ndim - n_coords:])).astype(np.uint32)


# Inputs of unsupported types and the fragment their error message must name: every
# operator refuses them with a TypeError before anything reaches the GPU.
UNSUPPORTED_INPUTS = [
    pytest.param(np.zeros(3, np.float64), r"float64", id="float64"),
    pytest.param(np.zeros(3, bool), r"bool", id="bool"),
    pytest.param(np.zeros(3, np.complex64), r"complex64", id="complex64"),
    pytest.param(np.array(["a", "b"]), r"<U1|str", id="str"),
    pytest.param(np.array([object(), 1]), r"object|'O'", id="object"),
    pytest.param(np.array(["2020-01-01"], "datetime64[D]"), r"datetime64|M8", id="datetime64"),
    # python floats are float64: never converted silently
    pytest.param([1.0, 2.0], r"float64", id="pylist-float"),
    pytest.param(None, r"object|'O'", id="None"),
]
UNSUPPORTED_INPUT_MESSAGE = r"(x|dtype).*({}).*not a supported.*allowed"
