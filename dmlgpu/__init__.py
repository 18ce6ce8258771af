"""dmlgpu: DirectML's selection operators as portable WebGPU compute kernels."""

from ._version import __version__
from .desc import (
    ArgMaxDesc,
    ArgMinDesc,
    Hardmax1Desc,
    NonZeroCoordinatesDesc,
    TensorDesc,
    TopK1Desc,
)
from .errors import (
    DeviceLimitError,
    DeviceLostError,
    DmlgpuError,
    OutOfMemoryError,
    ShaderCompileError,
    WebGPUValidationError,
)
from .ops.argreduce import argmax, argmin
from .ops.hardmax import hardmax
from .ops.nonzero import nonzero_coordinates
from .ops.topk import top_k
from .runtime.device import Device, default_device
from .runtime.graph import Graph
from .runtime.tensor import Tensor, asarray, broadcast_to, empty

__all__ = [
    "__version__",
    "ArgMaxDesc", "ArgMinDesc", "Device", "DeviceLimitError", "DeviceLostError", "DmlgpuError",
    "Graph", "OutOfMemoryError", "ShaderCompileError", "Tensor", "TensorDesc",
    "WebGPUValidationError", "argmax", "argmin", "asarray", "broadcast_to", "default_device",
    "empty", "NonZeroCoordinatesDesc", "nonzero_coordinates", "TopK1Desc", "top_k",
    "Hardmax1Desc", "hardmax",
]
