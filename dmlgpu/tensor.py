"""dg.Tensor: a GPU buffer seen through a dtype, sizes, element strides and an offset.

Strides count elements, as DirectML's DML_BUFFER_TENSOR_DESC does; 0 broadcasts a
dimension, and negative strides (from reversed slices) are allowed. Views share the buffer.
"""

from __future__ import annotations

import operator

import numpy as np

from . import dtypes
from .device import Device, default_device


class Tensor:
    __slots__ = ("device", "buffer", "_dt", "shape", "strides", "offset")

    def __init__(self, device: Device, buffer, dtype, shape, strides, offset: int = 0):
        self.device = device
        self.buffer = buffer
        self._dt = dtype if isinstance(dtype, dtypes.DType) else dtypes.lookup(dtype)
        self.shape = tuple(int(s) for s in shape)
        self.strides = tuple(int(s) for s in strides)
        self.offset = int(offset)

    # -- description ---------------------------------------------------------------------
    @property
    def dtype(self) -> np.dtype:
        return self._dt.np

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self._dt.itemsize

    def element_span(self) -> tuple[int, int]:
        """Smallest and largest element offset this view touches (inclusive)."""
        lo = hi = self.offset
        if self.size == 0:
            return lo, lo
        for n, s in zip(self.shape, self.strides, strict=True):
            if s > 0:
                hi += (n - 1) * s
            else:
                lo += (n - 1) * s
        return lo, hi

    def is_contiguous(self) -> bool:
        return self.strides == contiguous_strides(self.shape) or self.size <= 1

    def __repr__(self):
        return (f"dg.Tensor(shape={self.shape}, dtype={self.dtype.name}, "
                f"strides={self.strides}, offset={self.offset})")

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    # -- transfers -----------------------------------------------------------------------
    def numpy(self) -> np.ndarray:
        """Download to a new C-contiguous numpy array."""
        isz = self._dt.itemsize
        if self.size == 0:
            return np.zeros(self.shape, self.dtype)
        lo, hi = self.element_span()
        b0 = lo * isz // 4 * 4
        b1 = -(-((hi + 1) * isz) // 4) * 4
        raw = self.device.download(self.buffer, b0, b1 - b0)
        span = raw[lo * isz - b0:(hi + 1) * isz - b0].view(self.dtype)
        view = np.lib.stride_tricks.as_strided(
            span[self.offset - lo:], shape=self.shape,
            strides=tuple(s * isz for s in self.strides), writeable=False)
        return np.array(view, copy=True, order="C")

    __array__ = None  # set below: np.asarray(tensor) downloads

    # -- views ---------------------------------------------------------------------------
    def _view(self, shape, strides, offset) -> Tensor:
        return Tensor(self.device, self.buffer, self._dt, shape, strides, offset)

    def transpose(self, *axes) -> Tensor:
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim - 1, -1, -1))
        axes = tuple(normalize_axis(a, self.ndim, "axes") for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes: {axes} is not a permutation of 0..{self.ndim - 1}")
        return self._view([self.shape[a] for a in axes], [self.strides[a] for a in axes],
                          self.offset)

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def reshape(self, *shape) -> Tensor:
        """A view with a new shape; only for contiguous tensors (no copies are made)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) == 1:
            known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
            shape[shape.index(-1)] = self.size // known if known else 0
        if int(np.prod(shape, dtype=np.int64)) != self.size:
            raise ValueError(f"shape: {tuple(shape)} does not hold {self.size} elements")
        if not self.is_contiguous():
            raise ValueError("reshape: only contiguous tensors can be reshaped without a copy")
        return self._view(shape, contiguous_strides(shape), self.offset)

    def __getitem__(self, key) -> Tensor:
        if not isinstance(key, tuple):
            key = (key,)
        n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
        if n_real > self.ndim:
            raise IndexError(f"index: {n_real} indices for a rank-{self.ndim} tensor")
        if sum(1 for k in key if k is Ellipsis) > 1:
            raise IndexError("index: only one Ellipsis is allowed")
        expanded = []
        for k in key:
            if k is Ellipsis:
                expanded.extend([slice(None)] * (self.ndim - n_real))
            else:
                expanded.append(k)
        expanded.extend([slice(None)] * (self.ndim - sum(1 for k in expanded if k is not None)))
        shape, strides, offset, d = [], [], self.offset, 0
        for k in expanded:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = self.shape[d], self.strides[d]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                shape.append(count)
                strides.append(s * step)
                if count:
                    offset += start * s
            else:
                try:
                    i = operator.index(k)
                except TypeError:
                    raise TypeError(f"index: {k!r} is not supported (basic indexing: ints, "
                                    "slices, None, Ellipsis)") from None
                if not -n <= i < n:
                    raise IndexError(f"index: {i} is out of range for axis {d} of size {n}")
                offset += (i % n) * s
            d += 1
        return self._view(shape, strides, offset)


def _tensor_array(self, dtype=None, copy=None):
    a = self.numpy()
    return a if dtype is None else a.astype(dtype)


Tensor.__array__ = _tensor_array


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= int(n)
    return tuple(reversed(strides))


def normalize_axis(axis, ndim: int, arg: str = "axis") -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{arg}: {axis!r} is not an integer") from None
    if not -ndim <= a < ndim:
        raise ValueError(f"{arg}: {a} is out of range for a rank-{ndim} tensor "
                         f"(allowed {-ndim}..{ndim - 1})")
    return a % ndim


def asarray(data, dtype=None, *, device: Device | None = None) -> Tensor:
    """Upload `data` (anything numpy.asarray accepts) or pass a dg.Tensor through."""
    if isinstance(data, Tensor):
        if dtype is not None and dtypes.lookup(dtype).name != data._dt.name:
            raise TypeError(f"dtype: {np.dtype(dtype).name} differs from the tensor's "
                            f"{data.dtype.name}; dmlgpu does not convert types")
        if device is not None and data.device is not device:
            raise ValueError("device: the tensor lives on another device")
        return data
    arr = np.asarray(data, dtype=dtype)
    dt = dtypes.lookup(arr.dtype, "dtype")
    dev = device or default_device()
    arr = np.require(arr, requirements="C")  # ascontiguousarray would make 0-d arrays 1-d
    buf = dev.create_buffer(arr.nbytes)
    dev.upload(buf, arr)
    return Tensor(dev, buf, dt, arr.shape, contiguous_strides(arr.shape), 0)


def empty(shape, dtype, *, device: Device | None = None) -> Tensor:
    """A new contiguous tensor with unspecified contents."""
    if isinstance(shape, int):
        shape = (shape,)
    dt = dtypes.lookup(dtype, "dtype")
    dev = device or default_device()
    n = int(np.prod(shape, dtype=np.int64))
    buf = dev.create_buffer(n * dt.itemsize)
    return Tensor(dev, buf, dt, shape, contiguous_strides(shape), 0)


def broadcast_to(x, shape) -> Tensor:
    """A view of `x` broadcast to `shape` with stride 0 along repeated dimensions."""
    x = asarray(x)
    shape = tuple(int(s) for s in shape)
    if len(shape) < x.ndim:
        raise ValueError(f"shape: {shape} has fewer dimensions than the tensor's {x.shape}")
    pad = len(shape) - x.ndim
    src_shape = (1,) * pad + x.shape
    src_strides = (0,) * pad + x.strides
    strides = []
    for n_to, n_from, s in zip(shape, src_shape, src_strides, strict=True):
        if n_from == n_to:
            strides.append(s)
        elif n_from == 1:
            strides.append(0)
        else:
            raise ValueError(f"shape: cannot broadcast {x.shape} to {shape}")
    return Tensor(x.device, x.buffer, x._dt, shape, strides, x.offset)
