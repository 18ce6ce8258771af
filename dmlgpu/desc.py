"""DirectML-style operator descriptions (field names as in directml.h, in snake_case).

`Device.compile(desc)` checks every constraint up front and builds the pipelines once; the
compiled operator is then called with `inputs=[...]` and optional preallocated `outputs`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import dtypes, validate
from .canon import contiguous_strides


@dataclass(frozen=True)
class TensorDesc:
    """DML_BUFFER_TENSOR_DESC: data type, sizes, and element strides (None: packed)."""

    dtype: str
    sizes: tuple
    strides: tuple | None = None

    def __post_init__(self):
        object.__setattr__(self, "dtype", dtypes.lookup(self.dtype, "TensorDesc.dtype").name)
        object.__setattr__(self, "sizes", validate.sizes(self.sizes, "TensorDesc.sizes"))
        if self.strides is not None:
            if isinstance(self.strides, (str, bytes)) or not hasattr(self.strides, "__iter__"):
                raise TypeError(f"TensorDesc.strides: {self.strides!r} is not a sequence of "
                                "integers")
            st = tuple(validate.integer(s, "TensorDesc.strides") for s in self.strides)
            if len(st) != len(self.sizes):
                raise ValueError(f"TensorDesc.strides: {st} has {len(st)} entries for "
                                 f"{len(self.sizes)} sizes {self.sizes}")
            object.__setattr__(self, "strides", st)

    @property
    def element_strides(self) -> tuple[int, ...]:
        return self.strides if self.strides is not None else contiguous_strides(self.sizes)

    @classmethod
    def of(cls, tensor) -> TensorDesc:
        return cls(tensor.dtype.name, tensor.shape, tensor.strides)


def _axes_field(value, arg: str) -> tuple:
    """Axes as a tuple of ints (bools and floats rejected), so that equal descs are equally
    valid: the compile cache compares descs, and must not accept what a fresh device rejects."""
    if hasattr(value, "__index__") and np.ndim(value) == 0:  # numpy arrays have __index__
        return (validate.integer(value, arg),)
    if isinstance(value, np.ndarray):
        value = value.reshape(-1).tolist()
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{arg}: {value!r} is not an integer or a sequence of integers")
    try:
        seq = tuple(value)
    except TypeError:
        raise TypeError(f"{arg}: {value!r} is not an integer or a sequence of integers") from None
    return tuple(validate.integer(a, arg) for a in seq)


def _tensor_fields(desc) -> None:
    """Every tensor field of an operator description is a TensorDesc."""
    for name, value in vars(desc).items():
        if name in ("input",) or name.startswith("output"):
            if not isinstance(value, TensorDesc):
                raise TypeError(f"{type(desc).__name__}.{name}: {type(value).__name__} is not "
                                "a TensorDesc")


def _dir_field(value: str) -> str:
    return "decreasing" if validate.direction(value) else "increasing"


@dataclass(frozen=True)
class ArgMaxDesc:
    """DML_ARGMAX_OPERATOR_DESC."""

    input: TensorDesc
    output: TensorDesc
    axes: tuple
    axis_direction: str = "increasing"

    def __post_init__(self):
        _tensor_fields(self)
        object.__setattr__(self, "axes", _axes_field(self.axes, f"{type(self).__name__}.axes"))
        object.__setattr__(self, "axis_direction", _dir_field(self.axis_direction))


@dataclass(frozen=True)
class ArgMinDesc(ArgMaxDesc):
    """DML_ARGMIN_OPERATOR_DESC."""


@dataclass(frozen=True)
class Hardmax1Desc:
    """DML_ACTIVATION_HARDMAX1_OPERATOR_DESC: output has the input's type and sizes."""

    input: TensorDesc
    output: TensorDesc
    axes: tuple = (-1,)

    def __post_init__(self):
        _tensor_fields(self)
        object.__setattr__(self, "axes", _axes_field(self.axes, f"{type(self).__name__}.axes"))


@dataclass(frozen=True)
class NonZeroCoordinatesDesc:
    """DML_NONZERO_COORDINATES_OPERATOR_DESC: output_count (UINT32, all sizes 1) and
    output_coordinates (UINT32, sizes {1,...,1,M,N}, M = the input's element count)."""

    input: TensorDesc
    output_count: TensorDesc
    output_coordinates: TensorDesc

    def __post_init__(self):
        _tensor_fields(self)


@dataclass(frozen=True)
class TopK1Desc:
    """DML_TOP_K1_OPERATOR_DESC: the K largest (DECREASING) or smallest (INCREASING)
    elements along `axis`, sorted, and their indices along it (ties: lowest index first)."""

    input: TensorDesc
    output_value: TensorDesc
    output_index: TensorDesc
    axis: int
    k: int
    axis_direction: str = "decreasing"

    def __post_init__(self):
        _tensor_fields(self)
        object.__setattr__(self, "axis", validate.integer(self.axis, "TopK1Desc.axis"))
        object.__setattr__(self, "k", validate.integer(self.k, "TopK1Desc.k"))
        object.__setattr__(self, "axis_direction", _dir_field(self.axis_direction))
