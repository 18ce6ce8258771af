"""Argument checks at the API boundary. Every error names the argument, the value given
and what is allowed; nothing is clamped or converted silently (a bool is never an int)."""

from __future__ import annotations

import operator

import numpy as np

from . import dtypes

MAX_RANK = 8
DIRECTIONS = ("increasing", "decreasing")


def integer(value, arg: str) -> int:
    """An int (or numpy integer), never a bool or a float."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{arg}: {value!r} is not an integer (a bool)")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{arg}: {value!r} is not an integer") from None


def normalize_axis(axis, ndim: int, arg: str = "axis") -> int:
    a = integer(axis, arg)
    if not -ndim <= a < ndim:
        raise ValueError(f"{arg}: {a} is out of range for a rank-{ndim} tensor "
                         f"(allowed {-ndim}..{ndim - 1})")
    return a % ndim


def rank(shape, arg: str = "x") -> None:
    if not 1 <= len(shape) <= MAX_RANK:
        raise ValueError(f"{arg}: rank {len(shape)} (shape {tuple(shape)}) is not supported "
                         f"(allowed 1..{MAX_RANK})")


def sizes(value, arg: str) -> tuple[int, ...]:
    """A tuple of non-negative ints (a shape)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{arg}: {value!r} is not a sequence of integers")
    out = tuple(integer(s, arg) for s in value)
    if any(s < 0 for s in out):
        raise ValueError(f"{arg}: {out} has a negative size")
    return out


def shape_arg(value, arg: str = "shape") -> tuple[int, ...]:
    """A tensor's shape: non-negative ints (operators check their ranks)."""
    return sizes(value, arg)


def axes(value, ndim: int, arg: str = "axes") -> tuple[int, ...]:
    """A non-empty set of distinct axes, normalised to 0..ndim-1; None means all axes."""
    if value is None:
        return tuple(range(ndim))
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{arg}: {value!r} is a bool, not an axis")
    if hasattr(value, "__index__") and np.ndim(value) == 0:  # numpy arrays have __index__
        seq = (value,)
    else:
        try:
            seq = tuple(value)
        except TypeError:
            raise TypeError(f"{arg}: {value!r} is not an integer or a sequence of "
                            "integers") from None
    if not seq:
        raise ValueError(f"{arg}: () is empty (give at least one axis, or None for all)")
    norm = tuple(normalize_axis(a, ndim, arg) for a in seq)
    if len(set(norm)) != len(norm):
        raise ValueError(f"{arg}: {tuple(seq)} repeats an axis (axes must be distinct)")
    return tuple(sorted(norm))


def direction(value, arg: str = "axis_direction") -> bool:
    """True for DECREASING."""
    v = value.lower() if isinstance(value, str) else value
    if isinstance(v, str) and v.startswith("dml_axis_direction_"):
        v = v[len("dml_axis_direction_"):]
    if not isinstance(v, str) or v not in DIRECTIONS:
        raise ValueError(f"{arg}: {value!r} is not a direction (allowed: 'increasing', "
                         "'decreasing')")
    return v == "decreasing"


# Reduced indices and element counts are 32-bit on the GPU (NONE = 2^32 - 1 is reserved).
MAX_ELEMENTS = 2**32 - 1


def count(n: int, what: str) -> None:
    if n > MAX_ELEMENTS:
        raise ValueError(f"{what}: {n} elements exceed the limit of {MAX_ELEMENTS} (2**32 - 1) "
                         "that 32-bit GPU index arithmetic allows")


def index_dtype(value, largest: int, arg: str = "index_dtype") -> dtypes.DType:
    dt = dtypes.lookup(value, arg, dtypes.INDEX_DTYPES)
    if largest > dtypes.INDEX_DTYPES[dt.name]:
        raise ValueError(f"{arg}: {dt.name} cannot hold the largest index {largest} "
                         f"(its maximum is {dtypes.INDEX_DTYPES[dt.name]}); use a wider type")
    return dt
