"""Turning a plan plus concrete tensors into launches: bindings, offsets, scratch."""

from __future__ import annotations

import contextlib

import numpy as np

from . import dispatch, dtypes, tensor
from . import plan as planmod
from .desc import TensorDesc
from .dispatch import Launch


def bind(device, tensor, max_windows: int, what: str):
    """(element offset relative to the binding base, windows) of a tensor's bytes."""
    isz = tensor._dt.itemsize
    lo, hi = tensor.element_span()
    base, wins = planmod.windows(tensor.buffer, lo * isz, (hi + 1) * isz,
                                 device.window_bytes, max_windows, what)
    return tensor.offset - base // isz, wins


def unpack(tensors, count: int, arg: str) -> list:
    """The `count` tensors of a compiled operator's inputs= or outputs= argument."""
    if isinstance(tensors, (str, bytes)) or not hasattr(tensors, "__len__"):
        raise TypeError(f"{arg}: expected a list of {count} tensor(s), "
                        f"got {type(tensors).__name__}")
    if len(tensors) != count:
        raise ValueError(f"{arg}: {len(tensors)} tensors given, the operator takes {count}")
    return list(tensors)


def tensor_desc(x, arg: str = "x"):
    """The TensorDesc of a dg.Tensor, or of what uploading array-like `x` would give, so that
    every check runs before anything is uploaded."""
    if isinstance(x, tensor.Tensor):
        return TensorDesc.of(x)
    arr = np.asarray(x)
    dtypes.lookup(arr.dtype, f"{arg}.dtype" if arg != "x" else "x")
    return TensorDesc(arr.dtype.name, arr.shape)


def check_tensor(t, desc, device, arg: str) -> None:
    """A tensor passed to a compiled operator must match its TensorDesc exactly."""
    if not isinstance(t, tensor.Tensor):
        raise TypeError(f"{arg}: expected a dg.Tensor, got {type(t).__name__}")
    if t.device is not device:
        raise ValueError(f"{arg}: the tensor lives on another device ({t.device!r}) than the "
                         f"operator ({device!r})")
    if t.dtype.name != desc.dtype:
        raise TypeError(f"{arg}: dtype {t.dtype.name} does not match the description's "
                        f"{desc.dtype}")
    if t.shape != desc.sizes:
        raise ValueError(f"{arg}: shape {t.shape} does not match the description's sizes "
                         f"{desc.sizes}")
    pairs = zip(t.strides, desc.element_strides, t.shape, strict=True)
    if t.size > 1 and any(s != d for s, d, n in pairs if n > 1):
        raise ValueError(f"{arg}: strides {t.strides} do not match the description's "
                         f"{desc.element_strides}")


def launches(device, plan, x, out, scratch=None) -> list[Launch]:
    """Launches of a plan whose first step reads `x` and whose last writes `out`."""
    if out.buffer is x.buffer:
        raise ValueError("outputs[0]: shares its GPU buffer with inputs[0]; WebGPU cannot bind "
                         "one buffer both read-only and writable in a dispatch, so give the "
                         "output a buffer of its own")
    n_out_win_max = device.max_storage_bindings - 1
    out_off, out_wins = bind(device, out, n_out_win_max, "output")
    in_off, in_wins = bind(device, x, device.max_storage_bindings - len(out_wins), "input")
    # bind what the plan uses: a pooled scratch buffer may be larger
    scratch_bytes = max(4, -(-plan.partial_bytes // 4) * 4)
    result = []
    for step in plan.steps:
        if step.source == "none":  # writes only (Hardmax's zero fill)
            src, src_off = [], 0
        elif step.source == "input":
            src, src_off = in_wins, in_off
        else:
            src, src_off = [(scratch, 0, scratch_bytes)], 0
        if step.sink == "output":
            dst, dst_off = out_wins, out_off
        else:
            dst, dst_off = [(scratch, 0, scratch_bytes)], 0
        pipeline, layout = device.pipelines.get(step.template, **step.variables,
                                                n_in_win=len(src), n_out_win=len(dst))
        params = planmod.pack_uniform(step.params, in_offset=src_off, out_offset=dst_off,
                                      win_words=device.window_bytes // 4)
        result.append(Launch(pipeline, layout, src + dst, params, step.n_groups))
    return result


class CompiledUnary:
    """Base of compiled operators with one input and one output whose work is one plan
    (ArgMax/ArgMin, Hardmax1). Subclasses set desc, plan and _empty in __init__."""

    device = desc = plan = None
    _empty = False

    def launches(self, x, y, scratch=None) -> list[Launch]:
        """The launches for x -> y; without `scratch`, a partials buffer of their own."""
        if scratch is None and self.plan.partial_bytes:
            scratch = self.device.create_buffer(self.plan.partial_bytes, what="partials")
        return launches(self.device, self.plan, x, y, scratch)

    def __call__(self, inputs, outputs=None) -> list:
        (x,) = unpack(inputs, 1, "inputs")
        check_tensor(x, self.desc.input, self.device, "inputs[0]")
        if outputs is None:
            y = tensor.empty(self.desc.output.sizes, self.desc.output.dtype, device=self.device)
        else:
            (y,) = unpack(outputs, 1, "outputs")
        check_tensor(y, self.desc.output, self.device, "outputs[0]")
        if not self._empty:
            with pooled_scratch(self.device, self.plan.partial_bytes, "partials") as scratch:
                dispatch.run(self.device, self.launches(x, y, scratch))
        return [y]


@contextlib.contextmanager
def pooled_scratch(device, nbytes: int, what: str):
    """A scratch buffer from the device's pool (None for 0 bytes) for one call's work, given
    back when the block ends: after dispatch.run has queued the submission using it, so
    that every later use is ordered after it (see pool.py)."""
    buf = device.scratch(nbytes, what) if nbytes else None
    try:
        yield buf
    finally:
        device.recycle([buf])
