"""dmlgpu: DirectML's selection operators as portable WebGPU compute kernels."""

from .argreduce import argmax, argmin
from .desc import ArgMaxDesc, ArgMinDesc, TensorDesc
from .device import Device, default_device
from .errors import DeviceLimitError, DmlgpuError, ShaderCompileError
from .tensor import Tensor, asarray, broadcast_to, empty

__version__ = "0.1.0"

__all__ = [
    "ArgMaxDesc", "ArgMinDesc", "Device", "DeviceLimitError", "DmlgpuError",
    "ShaderCompileError", "Tensor", "TensorDesc", "argmax", "argmin", "asarray",
    "broadcast_to", "default_device", "empty",
]
