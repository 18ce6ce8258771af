"""ArgMax and ArgMin: the compiled operator and the public functions."""

from __future__ import annotations

from collections.abc import Sequence

from numpy.typing import ArrayLike, DTypeLike

from .. import canon, dtypes, plan, validate
from ..desc import ArgMaxDesc, ArgMinDesc, TensorDesc
from ..runtime.device import default_device, register_operator
from ..runtime.tensor import Tensor
from . import base


class CompiledArgReduce(base.CompiledUnary):
    """A compiled ArgMax/ArgMin: constraints checked and pipelines built at construction."""

    def __init__(self, device, desc: ArgMaxDesc):
        self.device, self.desc = device, desc
        self.op = "min" if isinstance(desc, ArgMinDesc) else "max"
        name = self.label = type(desc).__name__
        src, dst = desc.input, desc.output
        validate.rank(src.sizes, f"{name}.input")
        self.axes = validate.axes(desc.axes, len(src.sizes), f"{name}.axes")
        self.dt = dtypes.lookup(src.dtype, f"{name}.input.dtype")
        expected = tuple(1 if i in self.axes else n for i, n in enumerate(src.sizes))
        if dst.sizes != expected:
            raise ValueError(f"{name}.output.sizes: {dst.sizes} should be {expected} (the input "
                             "sizes with every reduced axis set to 1)")
        n_red = 1
        for a in self.axes:
            n_red *= src.sizes[a]
        if n_red == 0:
            raise ValueError(f"{name}.input.sizes: {src.sizes} has an empty reduced axis; an "
                             "empty reduction has no arg-max/arg-min")
        self.idx = validate.index_dtype(dst.dtype, n_red - 1, f"{name}.output.dtype")
        validate.count(n_red, f"{name}.input.sizes {src.sizes} over axes {self.axes}")
        self.reduction = canon.reduction(src.sizes, src.element_strides, dst.element_strides,
                                         self.axes)
        args = (self.reduction, self.dt, self.op, desc.axis_direction == "decreasing",
                2 if self.idx.bits == 64 else 1)
        self.plan = plan.argreduce(*args, webgpu=device.webgpu)
        if self.plan.tally_bytes and not base.tally_fits(device, self.plan, src, dst):
            self.plan = plan.argreduce(*args, tally=False, webgpu=device.webgpu)
        self.empty = any(n == 0 for n in src.sizes)
        self._ready_unary()
        if not self.empty:  # build the pipelines now (packed tensors need no more windows)
            for step in self.plan.steps:
                device.pipelines.get(step.template, **step.variables, n_in_win=1, n_out_win=1)


register_operator(ArgMaxDesc, CompiledArgReduce)
register_operator(ArgMinDesc, CompiledArgReduce)


def _arg(cls, x, axes, axis_direction, index_dtype, out):
    outs = base.out_tensors(out, 1)
    if type(x) is Tensor:  # the hot path: a call like an earlier one
        key = (cls, x._dt, x._shape, x._strides, type(axes), axes, axis_direction,
               index_dtype, base.out_signature(outs))
        op = base.hot_lookup(x.device, key)
        if op is not None:
            return base.hot_call(op, x, outs)[0]
    else:
        key = None
    xd = base.tensor_desc(x)  # every check below runs before a numpy input is uploaded
    validate.rank(xd.sizes, "x")
    ax = validate.axes(axes, len(xd.sizes))
    out_shape = tuple(1 if i in ax else n for i, n in enumerate(xd.sizes))
    idx = dtypes.lookup(index_dtype, "index_dtype", dtypes.INDEX_DTYPES).name
    (od,) = base.out_descs(outs, [TensorDesc(idx, out_shape)])
    device = x.device if isinstance(x, Tensor) else default_device()
    op = device.compile(cls(xd, od, ax, axis_direction))
    (y,) = op(inputs=[base.input_tensor(x, device)], outputs=outs)
    if key is not None:  # after a call that passed every check
        base.hot_store(device, key, op)
    return y


def argmax(x: Tensor | ArrayLike, axes: int | Sequence[int] | None = None, *,
           axis_direction: str = "increasing", index_dtype: DTypeLike = "uint32",
           out: Tensor | None = None) -> Tensor:
    """Index of the largest element over `axes` (row-major over them); keeps the rank.

    Ties: the first (INCREASING) or last (DECREASING) index; NaN counts as the largest
    (the first/last NaN wins, as in numpy); -0.0 equals +0.0. `out`: the tensor to write
    (the result's shape and index_dtype; any non-overlapping strides).
    """
    return _arg(ArgMaxDesc, x, axes, axis_direction, index_dtype, out)


def argmin(x: Tensor | ArrayLike, axes: int | Sequence[int] | None = None, *,
           axis_direction: str = "increasing", index_dtype: DTypeLike = "uint32",
           out: Tensor | None = None) -> Tensor:
    """Index of the smallest element over `axes`; same conventions as `argmax` (NaN wins)."""
    return _arg(ArgMinDesc, x, axes, axis_direction, index_dtype, out)
