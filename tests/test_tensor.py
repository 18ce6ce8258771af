"""dg.Tensor: uploads and downloads of every dtype, element strides, views without copies
(transpose, slices with steps, offsets, integer indices, newaxis, broadcast), asarray
passthrough and the errors of each."""

from __future__ import annotations

import numpy as np
import pytest
from reference import ALL_DTYPES, assert_same, random_values, rng_for

import dmlgpu as dg


def full_range(dtype: str, n: int, key=()) -> np.ndarray:
    """Every bit pattern is fair game (NaN payloads, -0.0, subnormals included)."""
    dt = np.dtype(dtype)
    raw = rng_for("bits", dtype, n, key).integers(0, 256, n * dt.itemsize, dtype=np.uint8)
    return raw.view(dt)


def same_bits(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape and got.dtype == expected.dtype
    u = f"u{expected.dtype.itemsize}"
    np.testing.assert_array_equal(got.view(u), np.ascontiguousarray(expected).view(u))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 7, 13, 1001])
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_round_trip_bits(dev, dtype, n):
    x = full_range(dtype, n)
    t = dg.asarray(x)
    assert t.shape == (n,) and t.dtype == np.dtype(dtype) and t.strides == (1,)
    same_bits(t.numpy(), x)


SLICES = [
    lambda a: a[1:],
    lambda a: a[3:],
    lambda a: a[1:-1],
    lambda a: a[5:6],
    lambda a: a[::3],
    lambda a: a[2::4],
    lambda a: a[::-1],
    lambda a: a[-2::-3],
    lambda a: a[20:3:-2],
    lambda a: a[4:4],
]


@pytest.mark.parametrize("case", range(len(SLICES)))
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_sliced_views_round_trip(dev, dtype, case):
    """Odd offsets and steps of 8/16-bit types start and end mid-word."""
    x = full_range(dtype, 37, case)
    t = dg.asarray(x)
    v, nv = SLICES[case](t), SLICES[case](x)
    assert v.buffer is t.buffer
    assert v.shape == nv.shape
    assert v.strides == tuple(s // x.itemsize for s in nv.strides)
    same_bits(v.numpy(), nv)


VIEWS_2D = {
    "T": lambda a: a.T,
    "transpose()": lambda a: a.transpose(),
    "transpose(2,0,1)": lambda a: a.transpose(2, 0, 1),
    "transpose((1,2,0))": lambda a: a.transpose((1, 2, 0)),
    "int": lambda a: a[1],
    "negative int": lambda a: a[-1, 2],
    "int last": lambda a: a[:, :, 3],
    "steps": lambda a: a[::2, 1::2, ::-3],
    "ellipsis": lambda a: a[..., 1:4],
    "ellipsis front": lambda a: a[1, ...],
    "newaxis": lambda a: a[:, None, 2, None],
    "chained": lambda a: a[1:][::-1].T[2:, ::2],
    "full": lambda a: a[:],
}


@pytest.mark.parametrize("view", list(VIEWS_2D))
@pytest.mark.parametrize("dtype", ["uint8", "float16", "int32", "uint64"])
def test_views_match_numpy(dev, dtype, view):
    x = random_values(rng_for("views2d", dtype, view), (3, 5, 7), dtype, ties=False)
    t = dg.asarray(x)
    v, nv = VIEWS_2D[view](t), VIEWS_2D[view](x)
    assert v.buffer is t.buffer
    assert v.shape == nv.shape
    assert v.ndim == nv.ndim and v.size == nv.size
    assert v.strides == tuple(s // x.itemsize for s in nv.strides) or nv.size <= 1
    assert_same(v.numpy(), np.ascontiguousarray(nv))


def test_strides_are_in_elements(dev):
    t = dg.asarray(np.zeros((2, 3, 4), np.int16))
    assert t.strides == (12, 4, 1)
    assert t.T.strides == (1, 4, 12)
    assert t[:, ::2, ::-1].strides == (12, 8, -1)
    assert dg.asarray(np.zeros((2, 3), np.uint64)).strides == (3, 1)
    assert dg.empty((4, 5), "float16").strides == (5, 1)


def test_offset_views_download_only_their_elements(dev):
    x = np.arange(100, dtype=np.uint8)
    t = dg.asarray(x)
    assert t[97:].numpy().tolist() == [97, 98, 99]
    assert t[1:2].numpy().tolist() == [1]
    assert t[99:0:-33].numpy().tolist() == [99, 66, 33]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_broadcast_to(dev, dtype):
    x = random_values(rng_for("bc", dtype), (3, 1), dtype)
    t = dg.asarray(x)
    b = dg.broadcast_to(t, (2, 3, 4))
    assert b.buffer is t.buffer
    assert b.shape == (2, 3, 4) and b.strides == (0, 1, 0)
    assert_same(b.numpy(), np.broadcast_to(x, (2, 3, 4)).copy())
    # a broadcast of a view keeps its offset and strides
    base = dg.asarray(random_values(rng_for("bc2", dtype), (4, 6), dtype))
    v = dg.broadcast_to(base[1:, ::-2], (5, 3, 3))
    assert v.strides == (0, 6, -2)
    assert_same(v.numpy(), np.broadcast_to(base.numpy()[1:, ::-2], (5, 3, 3)).copy())


def test_broadcast_to_from_numpy(dev):
    b = dg.broadcast_to(np.array([1, 2, 3], np.int8), (2, 3))
    assert b.strides == (0, 1)
    assert b.numpy().tolist() == [[1, 2, 3], [1, 2, 3]]


@pytest.mark.parametrize("shape, match", [
    ((3,), r"shape: \(3,\) has fewer dimensions"),
    ((2, 5), r"shape: cannot broadcast \(3, 1\) to \(2, 5\)"),
    ((4, 2, 1), r"cannot broadcast"),
])
def test_broadcast_to_errors(dev, shape, match):
    t = dg.asarray(np.zeros((3, 1), np.float32))
    with pytest.raises(ValueError, match=match):
        dg.broadcast_to(t, shape)


def test_asarray_passthrough(dev, windowed_dev):
    t = dg.asarray(np.zeros((2, 3), np.float16))
    assert dg.asarray(t) is t
    assert dg.asarray(t, "float16") is t
    assert dg.asarray(t, np.float16, device=dev) is t
    v = t.T
    assert dg.asarray(v) is v
    with pytest.raises(TypeError, match=r"dtype: float32 differs from the tensor's float16"):
        dg.asarray(t, "float32")
    with pytest.raises(ValueError, match=r"device"):
        dg.asarray(t, device=windowed_dev)


def test_asarray_conversions(dev, windowed_dev):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = dg.asarray(a.T)  # non-contiguous numpy input is uploaded packed
    assert t.shape == (4, 3) and t.strides == (3, 1)
    assert_same(t, a.T.copy())
    assert dg.asarray([1, 2, 3]).dtype == np.int64
    assert dg.asarray([1, 2], dtype="int16").dtype == np.int16
    assert dg.asarray(np.float16(2.5)).shape == ()
    w = dg.asarray(a, device=windowed_dev)
    assert w.device is windowed_dev
    assert_same(w, a)
    assert dg.asarray(a).device is dev


@pytest.mark.parametrize("value, match", [
    (np.zeros(2), r"float64"),
    (np.zeros(2, bool), r"bool"),
    ([1.5], r"float64"),
    (np.zeros(2, np.complex128), r"complex128"),
])
def test_asarray_refuses_unsupported_types(dev, value, match):
    with pytest.raises(TypeError, match=rf"dtype: .*{match}.*not a supported type"):
        dg.asarray(value)


def test_empty(dev):
    e = dg.empty(5, "int8")
    assert e.shape == (5,) and e.dtype == np.int8 and e.strides == (1,)
    e = dg.empty((2, 0, 3), np.uint64)
    assert e.shape == (2, 0, 3) and e.size == 0 and e.numpy().shape == (2, 0, 3)
    with pytest.raises(TypeError, match=r"dtype: .*float64"):
        dg.empty((2,), "float64")


def test_buffer_too_large_names_the_limit(dev):
    with pytest.raises(dg.DeviceLimitError, match=r"max-buffer-size"):
        dg.empty((2**31,), "uint64")
    assert issubclass(dg.DeviceLimitError, ValueError)


def test_tensor_properties(dev):
    t = dg.asarray(np.zeros((2, 3, 4), np.uint16))
    assert (t.ndim, t.size, t.nbytes, len(t)) == (3, 24, 48, 2)
    assert t.dtype == np.dtype("uint16")
    assert "shape=(2, 3, 4)" in repr(t) and "uint16" in repr(t)
    assert_same(np.asarray(t), np.zeros((2, 3, 4), np.uint16))
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    with pytest.raises(TypeError):
        len(dg.asarray(np.float32(1)))


def test_reshape(dev):
    x = np.arange(24, dtype=np.int16)
    t = dg.asarray(x)
    r = t.reshape(2, 3, 4)
    assert r.buffer is t.buffer and r.strides == (12, 4, 1)
    assert_same(r, x.reshape(2, 3, 4))
    assert t.reshape((4, -1)).shape == (4, 6)
    assert_same(t[4:].reshape(4, 5), x[4:].reshape(4, 5))
    with pytest.raises(ValueError, match=r"shape: \(5, 5\) does not hold 24"):
        t.reshape(5, 5)
    with pytest.raises(ValueError, match=r"reshape: only contiguous"):
        r.T.reshape(24)


@pytest.mark.parametrize("key, exc, match", [
    ((0, 0, 0, 0), IndexError, r"index: 4 indices for a rank-3 tensor"),
    ((5,), IndexError, r"index: 5 is out of range for axis 0 of size 3"),
    ((0, -6), IndexError, r"index: -6 is out of range for axis 1 of size 5"),
    ((Ellipsis, Ellipsis), IndexError, r"one Ellipsis"),
    (([0, 1],), TypeError, r"index: \[0, 1\] is not supported"),
    ((1.0,), TypeError, r"index: 1\.0 is not supported"),
])
def test_getitem_errors(dev, key, exc, match):
    t = dg.asarray(np.zeros((3, 5, 7), np.float32))
    with pytest.raises(exc, match=match):
        t[key]


@pytest.mark.parametrize("axes, match", [
    ((0, 1), r"axes: \(0, 1\) is not a permutation of 0\.\.2"),
    ((0, 0, 1), r"not a permutation"),
    ((0, 1, 3), r"axes: 3 is out of range"),
])
def test_transpose_errors(dev, axes, match):
    t = dg.asarray(np.zeros((3, 5, 7), np.float32))
    with pytest.raises(ValueError, match=match):
        t.transpose(*axes)


def test_views_see_later_writes(dev):
    """Views alias the buffer: an operator writing into a view of it is seen by others."""
    big = dg.asarray(np.full((2, 4), 7, np.uint32))
    row = big[1, ::-1]
    op = dev.compile(dg.ArgMaxDesc(dg.TensorDesc("float32", (2, 4)),
                                   dg.TensorDesc("uint32", (2, 1), (4, 1)), axes=(1,)))
    x = np.array([[0, 0, 9, 0], [0, 5, 0, 0]], np.float32)
    op(inputs=[dg.asarray(x)], outputs=[big[:, 3:]])
    assert big.numpy().tolist() == [[7, 7, 7, 2], [7, 7, 7, 1]]
    assert row.numpy().tolist() == [1, 7, 7, 7]
