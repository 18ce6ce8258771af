"""DirectML-style operator descriptions (field names as in directml.h, in snake_case).

`Device.compile(desc)` checks every constraint up front and builds the pipelines once; the
compiled operator is then called with `inputs=[...]` and optional preallocated `outputs`.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from . import dtypes, validate
from .tensor import contiguous_strides


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
            try:
                st = tuple(operator.index(s) for s in self.strides)
            except TypeError:
                raise TypeError(f"TensorDesc.strides: {self.strides!r} is not a sequence of "
                                "integers") from None
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
        axes = (self.axes,) if isinstance(self.axes, int) else tuple(self.axes)
        object.__setattr__(self, "axes", axes)
        object.__setattr__(self, "axis_direction", _dir_field(self.axis_direction))


@dataclass(frozen=True)
class ArgMinDesc(ArgMaxDesc):
    """DML_ARGMIN_OPERATOR_DESC."""
