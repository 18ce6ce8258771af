"""dmlgpu.numpy: numpy's and torch's conventions (int64 indices, squeezed axes, flat
indices, nonzero's tuple, torch.topk) over the kernels, against numpy, with ties, NaN,
-0.0, negative axes, several dtypes and ranks."""

from __future__ import annotations

import numpy as np
import pytest
from reference import random_values, rng_for

import dmlgpu as dg
from dmlgpu import numpy as dnp

DTYPES = ["float32", "float16", "int64", "int8", "uint16", "uint64"]
SHAPES = [(7,), (3, 5), (2, 3, 4), (2, 1, 3, 2)]


def same(got, expected):
    g = np.asarray(got)
    e = np.asarray(expected)
    assert g.shape == e.shape and g.dtype == e.dtype, f"{g.shape} {g.dtype} vs {e.shape} {e.dtype}"
    if g.dtype.kind == "f":
        assert np.array_equal(g.view(f"u{g.itemsize}"), e.view(f"u{e.itemsize}")) or \
            np.array_equal(g, e, equal_nan=True)
    else:
        assert np.array_equal(g, e)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_argmax_argmin(dev, dtype, shape):
    a = random_values(rng_for("dnp arg", dtype, shape), shape, dtype)  # ties, NaN, extremes
    x = dg.asarray(a)
    for fn, ref in ((dnp.argmax, np.argmax), (dnp.argmin, np.argmin)):
        same(fn(a), ref(a))
        same(fn(x, keepdims=True), ref(a, keepdims=True))
        for axis in range(-a.ndim, a.ndim):
            same(fn(x, axis), ref(a, axis=axis))
            same(fn(x, axis, keepdims=True), ref(a, axis=axis, keepdims=True))


def test_argmax_nan_zero_and_0d(dev):
    a = np.array([1.0, -0.0, 0.0, np.nan, 3.0, np.nan], np.float32)
    same(dnp.argmax(a), np.argmax(a))
    same(dnp.argmin(a), np.argmin(a))
    b = np.array([0.0, -0.0, -1.0, -1.0], np.float32)
    same(dnp.argmin(b), np.argmin(b))
    same(dnp.argmax(np.float32(2.0)), np.argmax(np.float32(2.0)))
    with pytest.raises(ValueError, match=r"axis: 2 is out of range"):
        dnp.argmax(np.ones((2, 2), np.float32), 2)
    with pytest.raises(ValueError):
        dnp.argmax(np.zeros((0, 3), np.float32))


def torch_topk_reference(a, k, dim, largest):
    """torch.topk's results, with equal values in ascending index order (the order torch
    leaves unspecified, and dmlgpu fixes): NaN above +inf, -0.0 equal to +0.0."""
    moved = np.moveaxis(a, dim, -1)
    key = moved.astype(np.float64) if a.dtype.kind == "f" else moved.astype(object)
    idx = np.empty(moved.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        row = list(key[pos])

        def rank(i, row=row):
            v = row[i]
            nan = isinstance(v, float) and np.isnan(v)
            v = 0 if nan else v
            if largest:
                return (0 if nan else 1, -v, i)
            return (1 if nan else 0, v, i)
        idx[pos] = sorted(range(len(row)), key=rank)[:k]
    vals = np.take_along_axis(moved, idx, -1)
    return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int8", "uint32"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk(dev, dtype, largest):
    a = random_values(rng_for("dnp topk", dtype), (4, 9, 6), dtype)
    for dim in (-1, 0, 1):
        k = min(3, a.shape[dim])
        ev, ei = torch_topk_reference(a, k, dim, largest)
        v, i = dnp.topk(a, k, dim=dim, largest=largest, sorted=True)
        same(i, ei)
        same(v, ev)
    with pytest.raises(ValueError, match=r"k: 7 is out of range"):
        dnp.topk(a, 7, dim=-1)
    with pytest.raises(TypeError, match=r"largest and sorted"):
        dnp.topk(a, 1, largest=1)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "int16"])
@pytest.mark.parametrize("shape", [(9,), (4, 5), (2, 3, 4), (1, 3, 1, 5)])
def test_nonzero_and_argwhere(dev, dtype, shape):
    a = random_values(rng_for("dnp nonzero", dtype, shape), shape, dtype)
    a[np.random.default_rng(1).random(shape) < 0.4] = 0
    if a.dtype.kind == "f":
        a.flat[0] = -0.0  # zero
    got = dnp.nonzero(dg.asarray(a))
    exp = np.nonzero(a)
    assert len(got) == len(exp)
    for g, e in zip(got, exp, strict=True):
        same(g, e.astype(np.int64))
    same(dnp.argwhere(a), np.argwhere(a).astype(np.int64))


def test_nonzero_empty_and_full(dev):
    z = np.zeros((3, 4), np.float32)
    assert [np.asarray(t).shape for t in dnp.nonzero(z)] == [(0,), (0,)]
    same(dnp.argwhere(z), np.zeros((0, 2), np.int64))
    o = np.ones((2, 3), np.int8)
    same(dnp.argwhere(o), np.argwhere(o))


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_hardmax(dev, dtype):
    a = random_values(rng_for("dnp hardmax", dtype), (3, 4, 5), dtype)
    for axis in (-1, 0, 1):
        exp = np.zeros_like(a)
        np.put_along_axis(exp, np.expand_dims(np.argmax(a, axis=axis), axis), 1, axis=axis)
        same(dnp.hardmax(a, axis), exp)
        same(dnp.one_hot_argmax(dg.asarray(a), axis), exp)


def test_results_are_tensors_and_array_protocol(dev):
    y = dnp.argmax(np.arange(6, dtype=np.float32).reshape(2, 3), 1)
    assert isinstance(y, dg.Tensor)
    np.testing.assert_array_equal(np.asarray(y), [2, 2])
    np.testing.assert_array_equal(np.asarray(y, dtype=np.float64), [2.0, 2.0])
    with pytest.raises(ValueError, match=r"cannot view it without a copy"):
        np.asarray(y, copy=False)
    assert "dg.Tensor(shape=(2,), dtype=int64" in repr(y)
