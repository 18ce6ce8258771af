"""numpy's and torch's conventions over dmlgpu's kernels: `from dmlgpu import numpy as dnp`.

The operators underneath follow DirectML (keepdims layouts, uint32 indices by default);
these functions give what numpy or torch code expects instead: int64 indices, squeezed
axes, `axis=None` as a flat index, numpy's nonzero tuple, torch's topk. Inputs are numpy
arrays (uploaded) or dg.Tensors; results are dg.Tensors on the GPU (np.asarray(t) reads
one back). Everything runs on the GPU; only nonzero/argwhere read back their count (4
bytes), as the size of their result depends on it.

Conventions kept from the kernels (and numpy's): NaN counts as the largest value in
argmax and argmin alike (the first NaN wins), -0.0 equals +0.0. topk returns equal values
in ascending index order (torch leaves their order unspecified); NaN ranks above +inf, so
it comes first for largest=True and last for largest=False, as in torch.
"""

from __future__ import annotations

from . import validate
from .ops import argreduce
from .ops import hardmax as _hardmax
from .ops import nonzero as _nonzero
from .ops import topk as _topk
from .ops.convert import coords_to_indices
from .runtime.device import default_device
from .runtime.tensor import Tensor, asarray

__all__ = ["argmax", "argmin", "argwhere", "hardmax", "nonzero", "one_hot_argmax", "topk"]


def _tensor(a) -> Tensor:
    return a if isinstance(a, Tensor) else asarray(a, device=default_device())


def _arg(fn, a, axis, keepdims: bool) -> Tensor:
    x = _tensor(a)
    if x.ndim == 0:
        x = x.reshape(1)
    if axis is None:
        y = fn(x, None, index_dtype="int64")  # the flat index, shape (1,) * ndim
        return y.reshape((1,) * x.ndim if keepdims else ())
    ax = validate.normalize_axis(axis, x.ndim, "axis")
    y = fn(x, ax, index_dtype="int64")
    if keepdims:
        return y
    return y.reshape(tuple(n for i, n in enumerate(y.shape) if i != ax))


def argmax(a, axis=None, keepdims: bool = False) -> Tensor:
    """numpy.argmax: int64 indices of the maxima along `axis` (None: into the flattened
    array), the axis removed unless keepdims; the first of equal maxima; NaN wins."""
    return _arg(argreduce.argmax, a, axis, keepdims)


def argmin(a, axis=None, keepdims: bool = False) -> Tensor:
    """numpy.argmin: as argmax, for the minima (a NaN still wins, as in numpy)."""
    return _arg(argreduce.argmin, a, axis, keepdims)


def topk(a, k, dim: int = -1, largest: bool = True, sorted: bool = True):  # noqa: A002
    """torch.topk: (values, int64 indices) of the k largest (or smallest) along `dim`,
    sorted best first (also when sorted=False: sorting costs nothing extra here)."""
    x = _tensor(a)
    if not isinstance(largest, bool) or not isinstance(sorted, bool):
        raise TypeError("largest and sorted: expected bools")
    return _topk.top_k(x, k, dim, axis_direction="decreasing" if largest else "increasing",
                       index_dtype="int64")


def _coords(a):
    x = _tensor(a)
    if x.ndim == 0:
        x = x.reshape(1)
    count, coords = _nonzero.nonzero_coordinates(x)
    return x, int(count.numpy()[0]), coords


def nonzero(a) -> tuple:
    """numpy.nonzero: a tuple of int64 index arrays, one per dimension, of the non-zero
    elements in row-major order (-0.0 is zero; NaN is not)."""
    x, n, coords = _coords(a)
    idx = coords_to_indices(coords, n, per_dim=True)
    return tuple(idx[d] for d in range(x.ndim))


def argwhere(a) -> Tensor:
    """numpy.argwhere: int64 (nnz, ndim) coordinates of the non-zero elements."""
    _, n, coords = _coords(a)
    return coords_to_indices(coords, n, per_dim=False)


def hardmax(a, axis: int = -1) -> Tensor:
    """1 at the first maximum along `axis`, 0 elsewhere (float32/float16; NaN wins)."""
    x = _tensor(a)
    return _hardmax.hardmax(x, validate.normalize_axis(axis, x.ndim, "axis"))


one_hot_argmax = hardmax
