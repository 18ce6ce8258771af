"""Exceptions raised by dmlgpu beyond plain ValueError/TypeError."""


class DmlgpuError(RuntimeError):
    """A failure on the GPU side (shader compilation, device loss, allocation)."""


class ShaderCompileError(DmlgpuError):
    """A generated shader failed to compile; the message names the template and its key."""


class DeviceLimitError(ValueError):
    """A tensor or buffer exceeds a limit of the device; the message names the limit."""
