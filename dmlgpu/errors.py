"""Exceptions raised by dmlgpu beyond plain ValueError/TypeError. Every one derives from
DmlgpuError, so that one `except dg.DmlgpuError` catches them all."""


class DmlgpuError(RuntimeError):
    """A failure on the GPU side (shader compilation, device loss, allocation)."""


class ShaderCompileError(DmlgpuError):
    """A generated shader failed to compile; the message names the template and its key."""


class DeviceLimitError(DmlgpuError, ValueError):
    """A tensor or buffer exceeds a limit of the device; the message names the limit."""


class OutOfMemoryError(DmlgpuError, MemoryError):
    """The device (or the allocator's memory_limit) could not hold a new buffer, even after
    the allocator released its cache; the message names the request and the device."""


class WebGPUValidationError(DmlgpuError):
    """The WebGPU implementation rejected a call (a buffer of another device, a usage it
    lacks, ...); the message names the operator and the binding where they are known."""


class DeviceLostError(DmlgpuError):
    """The GPU device was lost (driver reset, device destroyed); nothing more runs on it."""
