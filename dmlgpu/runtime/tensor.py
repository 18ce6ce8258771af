"""dg.Tensor: a GPU buffer seen through a dtype, sizes, element strides and an offset.

Strides count elements, as DirectML's DML_BUFFER_TENSOR_DESC does; 0 broadcasts a
dimension, and negative strides (from reversed slices) are allowed. Views share the buffer.
Every tensor's extent (the first and last byte any element reaches) is checked against its
buffer when it is made, so no kernel ever reads or writes outside the buffer.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from .. import dtypes
from ..canon import contiguous_strides
from ..errors import DeviceLimitError
from ..validate import normalize_axis, shape_arg
from .device import _WRAPPERS, Device, default_device


def extent(shape, strides, offset: int) -> tuple[int, int]:
    """Smallest and largest element offset a view touches (inclusive; (offset, offset - 1)
    for an empty one)."""
    lo = hi = offset
    for n, s in zip(shape, strides, strict=True):
        if n == 0:
            return offset, offset - 1
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi


def check_extent(shape, strides, offset: int, itemsize: int, nbytes: int, arg: str) -> None:
    """The view's elements all lie within a buffer of `nbytes` bytes."""
    lo, hi = extent(shape, strides, offset)
    if hi < lo:
        return
    if lo < 0:
        raise ValueError(f"{arg}: the view reaches element {lo}, before the start of its "
                         f"buffer (offset {offset}, sizes {tuple(shape)}, strides "
                         f"{tuple(strides)})")
    if (hi + 1) * itemsize > nbytes:
        raise ValueError(f"{arg}: the view reaches byte {(hi + 1) * itemsize - 1}, past the "
                         f"end of its {nbytes}-byte buffer (element offset {offset}, sizes "
                         f"{tuple(shape)}, strides {tuple(strides)}, {itemsize}-byte elements)")


def _strides_arg(value, ndim: int, arg: str) -> tuple[int, ...]:
    try:
        st = tuple(value)
    except TypeError:
        raise TypeError(f"{arg}: {value!r} is not a sequence of integers") from None
    if any(isinstance(s, bool) for s in st):
        raise TypeError(f"{arg}: {value!r} holds a bool, not an integer")
    try:
        st = tuple(operator.index(s) for s in st)
    except TypeError:
        raise TypeError(f"{arg}: {value!r} is not a sequence of integers") from None
    if len(st) != ndim:
        raise ValueError(f"{arg}: {st} has {len(st)} entries for a rank-{ndim} shape")
    return st


class Tensor:
    """An n-dimensional array in GPU memory: `buffer` (a wgpu GPUBuffer) seen as `dtype`
    elements of `shape`, `strides` (in elements; 0 broadcasts, negative reverses) from
    byte `offset`. Operators take and return Tensors without copies; `numpy()` (or
    `np.asarray(t)`) reads one back, `numpy_async()` awaits it, `copy_()` writes new data
    in place. Views (`t.T`, `t[...]`, `transpose`, `reshape`) share the buffer.

    Buffers that dmlgpu allocates return to the device's cache when the last tensor over
    them goes. `Tensor(device, buffer, dtype, shape, strides, offset)` takes an element
    offset (DirectML's view); `Tensor.from_buffer` a byte offset.
    """

    __slots__ = ("device", "_buf", "_block", "_dt", "_shape", "_strides", "_off",
                 "_graph", "__weakref__")

    def __init__(self, device: Device, buffer, dtype, shape, strides, offset: int = 0):
        if not isinstance(device, Device):
            raise TypeError(f"device: {type(device).__name__} is not a dg.Device")
        dt = dtype if isinstance(dtype, dtypes.DType) else dtypes.lookup(dtype)
        shape = shape_arg(shape, "shape")
        strides = _strides_arg(strides, len(shape), "strides")
        if isinstance(offset, bool):
            raise TypeError(f"offset: {offset!r} is not an integer")
        offset = operator.index(offset)
        _check_buffer(device, buffer, "buffer")
        check_extent(shape, strides, offset, dt.itemsize, buffer.size, "Tensor")
        self._init(device, buffer, None, dt, shape, strides, offset)

    def _init(self, device, buffer, block, dt, shape, strides, offset) -> Tensor:
        self.device, self._buf, self._block, self._dt = device, buffer, block, dt
        self._shape, self._strides, self._off = shape, strides, offset
        self._graph = None
        return self

    @classmethod
    def _make(cls, device, buffer, block, dt, shape, strides, offset) -> Tensor:
        """A tensor whose arguments are known valid (views, allocations)."""
        return cls.__new__(cls)._init(device, buffer, block, dt, shape, strides, offset)

    @classmethod
    def from_buffer(cls, buffer, dtype: DTypeLike, shape: Sequence[int],
                    strides: Sequence[int] | None = None, offset: int = 0, *,
                    device: Device | None = None) -> Tensor:
        """A tensor over a GPUBuffer the caller made (wgpu-native's or Dawn's): `strides`
        in elements (None: contiguous), `offset` in bytes (a multiple of the element size).
        Checked before any GPU work: the buffer's device, its STORAGE usage, and that
        every element lies within it. The caller keeps the buffer alive."""
        dt = dtypes.lookup(dtype, "dtype")
        shape = shape_arg(shape, "shape")
        strides = (contiguous_strides(shape) if strides is None
                   else _strides_arg(strides, len(shape), "strides"))
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)):
            raise TypeError(f"offset: {offset!r} is not an integer")
        offset = int(offset)
        if offset < 0 or offset % dt.itemsize:
            raise ValueError(f"offset: {offset} bytes is not a non-negative multiple of the "
                             f"{dt.itemsize}-byte {dt.name} element")
        dev = _device_of(buffer, device)
        check_extent(shape, strides, offset // dt.itemsize, dt.itemsize, buffer.size,
                     "from_buffer")
        return cls._make(dev, buffer, None, dt, shape, strides, offset // dt.itemsize)

    # -- description ---------------------------------------------------------------------
    @property
    def buffer(self):
        """The GPUBuffer behind the tensor. Asking for it submits the calls dmlgpu has
        batched (Device.flush), so that work the caller submits afterwards sees them."""
        dev = self.device
        if dev._pending is not None:
            dev.flush()
        return self._buf

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def strides(self) -> tuple[int, ...]:
        """Element strides (DirectML's convention, not numpy's bytes)."""
        return self._strides

    @property
    def offset(self) -> int:
        """Byte offset of the first element in `buffer`."""
        return self._off * self._dt.itemsize

    @property
    def element_offset(self) -> int:
        return self._off

    @property
    def dtype(self) -> np.dtype:
        return self._dt.np

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self._dt.itemsize

    def element_span(self) -> tuple[int, int]:
        """Smallest and largest element offset this view touches (inclusive)."""
        lo, hi = extent(self._shape, self._strides, self._off)
        return (lo, lo) if hi < lo else (lo, hi)

    def is_contiguous(self) -> bool:
        return self._strides == contiguous_strides(self._shape) or self.size <= 1

    def __repr__(self):
        extra = ""
        if not self.is_contiguous():
            extra += f", strides={self._strides}"
        if self._off:
            extra += f", offset={self.offset}"
        return (f"dg.Tensor(shape={self._shape}, dtype={self._dt.name}{extra}, "
                f"device=#{self.device.serial} {self.device.implementation})")

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    # -- transfers -----------------------------------------------------------------------
    def _span(self) -> tuple[int, int, int, int]:
        """(first byte, bytes) of the words holding this view, and its element span."""
        isz = self._dt.itemsize
        lo, hi = extent(self._shape, self._strides, self._off)
        b0 = lo * isz // 4 * 4
        b1 = -(-((hi + 1) * isz) // 4) * 4
        return b0, b1 - b0, lo, hi

    def _assemble(self, raw: np.ndarray, b0: int, lo: int, hi: int) -> np.ndarray:
        isz = self._dt.itemsize
        span = raw[lo * isz - b0:(hi + 1) * isz - b0].view(self.dtype)
        view = np.lib.stride_tricks.as_strided(
            span[self._off - lo:], shape=self._shape,
            strides=tuple(s * isz for s in self._strides), writeable=False)
        return np.array(view, copy=True, order="C")

    def _check_readable(self):
        if self._graph is not None:
            self._graph._check_readable(self)
        if not self._buf.usage & self.device.usage.COPY_SRC:
            raise ValueError("tensor: its buffer lacks COPY_SRC usage, so it cannot be read "
                             "back (create it with wgpu.BufferUsage.COPY_SRC)")

    def numpy(self) -> np.ndarray:
        """Download to a new C-contiguous numpy array (waits for the work that writes it).
        Only the bytes the view spans are read."""
        if self.size == 0:
            return np.zeros(self._shape, self.dtype)
        self._check_readable()
        b0, n, lo, hi = self._span()
        return self._assemble(self.device.download(self._buf, b0, n), b0, lo, hi)

    async def numpy_async(self) -> np.ndarray:
        """As numpy(), awaiting the GPU (asyncio) so that other host work runs meanwhile."""
        if self.size == 0:
            return np.zeros(self._shape, self.dtype)
        self._check_readable()
        b0, n, lo, hi = self._span()
        raw = await self.device.download_async(self._buf, b0, n)
        return self._assemble(raw, b0, lo, hi)

    def __array__(self, dtype=None, copy=None):
        if copy is False:
            raise ValueError("a dg.Tensor lives in GPU memory: numpy cannot view it without a "
                             "copy (use np.asarray(t) or t.numpy())")
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def copy_(self, src) -> Tensor:
        """Write `src` (a numpy array or anything numpy.asarray takes, or a dg.Tensor of the
        same device) into this tensor in place: same shape and dtype, nothing converted.
        Ordered after all work queued so far and before all work queued later, so it may
        feed a captured graph's next replay. Returns self."""
        if isinstance(src, Tensor):
            return self._copy_tensor(src)
        arr = np.asarray(src)
        if arr.dtype != self.dtype:
            if arr.dtype.kind in "iub" and self.dtype.kind in "iuf" and arr.ndim == 0:
                arr = arr.astype(self.dtype)  # a Python scalar
            else:
                raise TypeError(f"src: dtype {arr.dtype.name} differs from the tensor's "
                                f"{self.dtype.name}; dmlgpu does not convert types")
        if arr.shape != self._shape:
            try:
                arr = np.broadcast_to(arr, self._shape)
            except ValueError:
                raise ValueError(f"src: shape {arr.shape} does not match the tensor's "
                                 f"{self._shape}") from None
        if self.size == 0:
            return self
        self._check_writable()
        b0, n, lo, hi = self._span()
        isz = self._dt.itemsize
        contiguous = self.is_contiguous() and (hi - lo + 1) == self.size
        edges = (lo * isz) % 4 or ((hi + 1) * isz) % 4
        if contiguous and not edges:
            self.device.upload(self._buf, np.ascontiguousarray(arr), lo * isz)
            return self
        # a strided view or one that starts/ends mid-word: rewrite the words it spans,
        # keeping the bytes of elements outside it
        raw = self.device.download(self._buf, b0, n).copy()
        span = raw[lo * isz - b0:(hi + 1) * isz - b0].view(self.dtype)
        view = np.lib.stride_tricks.as_strided(
            span[self._off - lo:], shape=self._shape,
            strides=tuple(s * isz for s in self._strides))
        if any(s == 0 and d > 1 for s, d in zip(self._strides, self._shape, strict=True)):
            raise ValueError("copy_: the tensor broadcasts (a stride of 0), so its elements "
                             "overlap and cannot each be written")
        view[...] = arr
        self.device.upload(self._buf, raw, b0)
        return self

    def _copy_tensor(self, src: Tensor) -> Tensor:
        if src.device is not self.device:
            raise ValueError(f"src: the tensor lives on another device ({src.device!r}) "
                             f"than this one ({self.device!r})")
        if src._dt is not self._dt or src._shape != self._shape:
            raise TypeError(f"src: {src._dt.name}{list(src._shape)} does not match the "
                            f"tensor's {self._dt.name}{list(self._shape)}")
        if self.size == 0:
            return self
        isz = self._dt.itemsize
        ok = (self.is_contiguous() and src.is_contiguous() and (self._off * isz) % 4 == 0
              and (src._off * isz) % 4 == 0 and self.nbytes % 4 == 0)
        if not ok:
            return self.copy_(src.numpy())
        self._check_writable()
        src._check_readable()
        dev = self.device
        dev.flush()
        try:
            with dev.lock:
                enc = dev.device.create_command_encoder()
                enc.copy_buffer_to_buffer(src._buf, src._off * isz, self._buf,
                                          self._off * isz, self.nbytes)
                dev.device.queue.submit([enc.finish()])
        except Exception as e:
            raise dev.error(e, "copy_") from e
        return self

    def _check_writable(self):
        if not self._buf.usage & self.device.usage.COPY_DST:
            raise ValueError("tensor: its buffer lacks COPY_DST usage, so it cannot be "
                             "written from the host (create it with wgpu.BufferUsage.COPY_DST)")

    # -- views ---------------------------------------------------------------------------
    def _view(self, shape, strides, offset) -> Tensor:
        return Tensor._make(self.device, self._buf, self._block, self._dt, tuple(shape),
                            tuple(strides), offset)

    def transpose(self, *axes) -> Tensor:
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = tuple(axes[0])
        if not axes:
            axes = tuple(range(self.ndim - 1, -1, -1))
        axes = tuple(normalize_axis(a, self.ndim, "axes") for a in axes)
        if sorted(axes) != list(range(self.ndim)):
            raise ValueError(f"axes: {axes} is not a permutation of 0..{self.ndim - 1}")
        return self._view([self._shape[a] for a in axes], [self._strides[a] for a in axes],
                          self._off)

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def reshape(self, *shape) -> Tensor:
        """A view with a new shape; only for contiguous tensors (no copies are made)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) == 1:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            shape[shape.index(-1)] = self.size // known if known else 0
        shape = shape_arg(shape, "shape")
        n = 1
        for s in shape:
            n *= s
        if n != self.size:
            raise ValueError(f"shape: {shape} does not hold {self.size} elements")
        if not self.is_contiguous():
            raise ValueError("reshape: only contiguous tensors can be reshaped without a copy")
        return self._view(shape, contiguous_strides(shape), self._off)

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
        shape, strides, offset, d = [], [], self._off, 0
        for k in expanded:
            if k is None:
                shape.append(1)
                strides.append(0)
                continue
            n, s = self._shape[d], self._strides[d]
            if isinstance(k, slice):
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                shape.append(count)
                strides.append(s * step)
                if count:
                    offset += start * s
            else:
                if isinstance(k, bool):
                    raise TypeError(f"index: {k!r} is a bool (basic indexing: ints, slices, "
                                    "None, Ellipsis)")
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


def _check_buffer(device: Device, buffer, arg: str) -> None:
    if not hasattr(buffer, "usage") or not hasattr(buffer, "size"):
        raise TypeError(f"{arg}: {type(buffer).__name__} is not a GPUBuffer")
    owner = getattr(buffer, "_device", None)
    if owner is not None and owner is not device.device:
        raise ValueError(f"{arg}: the buffer belongs to another GPU device than {device!r}")
    if not buffer.usage & device.usage.STORAGE:
        raise ValueError(f"{arg}: the buffer lacks STORAGE usage (has {buffer.usage}); "
                         "kernels bind tensors as storage buffers")


def _device_of(buffer, device: Device | None) -> Device:
    if device is None:
        owner = getattr(buffer, "_device", None)
        device = _WRAPPERS.get(id(owner)) if owner is not None else None
        if device is None or device.device is not owner:
            d = default_device()
            if owner is d.device:
                device = d
            else:
                raise ValueError("buffer: it belongs to a GPU device dmlgpu does not know; "
                                 "wrap that device with dg.Device.from_wgpu(device) and pass "
                                 "device=")
    _check_buffer(device, buffer, "buffer")
    return device


def asarray(data: ArrayLike | Tensor, dtype: DTypeLike | None = None, *,
            device: Device | None = None) -> Tensor:
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
    t = _alloc(dev, arr.shape, dt, 0, "data")
    dev.upload(t._buf, arr)
    return t


def _alloc(dev: Device, shape: tuple, dt, usage: int, what: str) -> Tensor:
    n = 1
    for s in shape:
        n *= s
    nbytes = n * dt.itemsize
    if nbytes > dev.max_buffer_size:
        raise DeviceLimitError(f"{what}: shape {shape} of {dt.name} takes {nbytes} bytes, which "
                               f"exceeds the device's max-buffer-size limit "
                               f"({dev.max_buffer_size} bytes)")
    block = dev.alloc(nbytes, usage=usage, what=what)
    return Tensor._make(dev, block.buffer, block, dt, shape, contiguous_strides(shape), 0)


def empty(shape: int | Sequence[int], dtype: DTypeLike, *, device: Device | None = None,
          usage: int = 0) -> Tensor:
    """A new contiguous tensor with unspecified contents. Its buffer has STORAGE, COPY_SRC
    and COPY_DST usage, plus the wgpu.BufferUsage flags in `usage` (e.g. VERTEX, so that a
    renderer can draw from it); it comes from the device's caching allocator."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    shape = shape_arg(shape, "shape")
    dt = dtypes.lookup(dtype, "dtype")
    dev = device or default_device()
    if isinstance(usage, bool) or not isinstance(usage, (int, np.integer)) or usage < 0:
        raise TypeError(f"usage: {usage!r} is not a combination of wgpu.BufferUsage flags")
    return _alloc(dev, shape, dt, int(usage), "empty")


def broadcast_to(x: Tensor | ArrayLike, shape: Sequence[int]) -> Tensor:
    """A view of `x` broadcast to `shape` with stride 0 along repeated dimensions."""
    x = asarray(x)
    shape = shape_arg(shape, "shape")
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
    return x._view(shape, strides, x._off)
