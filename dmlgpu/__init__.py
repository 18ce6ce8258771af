"""dmlgpu: DirectML's selection operators as portable WebGPU compute kernels."""

from .argreduce import argmax, argmin
from .desc import ArgMaxDesc, ArgMinDesc, Hardmax1Desc, NonZeroCoordinatesDesc, TensorDesc
from .device import Device, default_device
from .errors import DeviceLimitError, DmlgpuError, ShaderCompileError
from .hardmax import hardmax
from .nonzero import nonzero_coordinates
from .tensor import Tensor, asarray, broadcast_to, empty
from .topk import TopK1Desc, top_k

__version__ = "0.1.0"

__all__ = [
    "ArgMaxDesc", "ArgMinDesc", "Device", "DeviceLimitError", "DmlgpuError",
    "ShaderCompileError", "Tensor", "TensorDesc", "argmax", "argmin", "asarray",
    "broadcast_to", "default_device", "empty",
    "NonZeroCoordinatesDesc", "nonzero_coordinates",
    "TopK1Desc", "top_k",
    "Hardmax1Desc", "hardmax",
]
