"""Hardmax1: within every subset selected by the axes, 1 at the first maximum, 0 elsewhere."""

from __future__ import annotations

from collections.abc import Sequence

from numpy.typing import ArrayLike

from .. import canon, dtypes, plan, tuning, validate
from ..desc import Hardmax1Desc, TensorDesc
from ..runtime.device import default_device, register_operator
from ..runtime.tensor import Tensor
from ..sizes import ceil_div
from . import base

TYPES = ("float32", "float16")


def plan_hardmax(red: canon.Reduction, out_dims: tuple, dt) -> plan.Plan:
    """One fused dispatch where one workgroup owns a whole subset; else zero fill + one-hot.

    out_dims: the output's canonical dims (for the fill), each Dim(size, (stride,)).
    """
    atomic = dt.per_word > 1  # 16-bit elements share words with other invocations' elements
    p = plan.argreduce(red, dt, "max", False, 1, sink="onehot", extra=dict(dst_atomic=atomic))
    if not p.steps:
        return p
    first = p.steps[0]
    if len(p.steps) == 1 and first.variables["strategy"] == "row":
        reds = red.red
        var = first.variables
        block_out = var["tpr"] < var["wg"] and _block_out(red) and red.n_red >= dt.per_word
        stream = _stream(red, dt, var, block_out)
        var.update(
            sink="rowhot",
            hot_words=dt.per_word > 1 and len(reds) == 1 and reds[0].strides == (1, 1),
            # (a workgroup per subset keeps its own write loop: measured at full speed on
            # the benchmark's 1 GiB float16 case before this path existed)
            block_out=block_out and not stream, stream_hot=stream,
            # (zeros stored as read: a tail's clamped duplicates would store one twice)
            masked_tail=0 if stream == "loop" else var["masked_tail"])
        if stream == "loop":
            # an input and output at different places in their words: the block's zeros first,
            # or the writes after the tree
            first.skew = dict(stream_hot="block" if block_out else "", block_out=False)
        p.notes.update(fused=True, streamed=stream)
        return p
    wg = tuning.REDUCE_WG
    n = red.n_out * red.n_red
    span = len(out_dims) == 1 and out_dims[0].strides[0] == 1
    if span:  # whole words, tuning.FILL_WORDS per invocation (+2: partial words at the ends)
        words = n * 2 if dt.bits == 64 else n // dt.per_word + 2
        groups = ceil_div(words, wg * tuning.FILL_WORDS)
        variables = dict(mode="span", words=tuning.FILL_WORDS, dst_atomic=False)
    else:  # an invocation per element; 16-bit elements share words: atomics
        groups = ceil_div(n, wg)
        variables = dict(mode="strided", dst_atomic=atomic)
    fill = plan.Step(
        "fill.wgsl.j2",
        dict(dt=dt, op="max", descending=False, wg=wg, **variables),
        dict(ksize=[d.size for d in out_dims], kout=[d.strides[0] for d in out_dims],
             nk=len(out_dims), n_out=n, n_groups=groups),
        groups, "none", "output")
    p.steps.insert(0, fill)
    p.notes.update(fused=False, streamed="")
    return p


def _stream(red: canon.Reduction, dt, var: dict, block_out: bool) -> str:
    """How the fused row plan stores its zeros (the kernel's stream_hot): "loop", as the
    subset is read (one contiguous reduced dim in input and output, read by element (32-bit)
    or by whole words (packed_rows) at the same place in the output's words: every kept
    stride the same modulo a word, the offsets checked when bound; and runs of TPR words
    that fill a memory sector); "block", the workgroup's block (block_out) before its reads;
    "": written after the tree."""
    if not tuning.HARDMAX_STREAM:
        return ""
    loop = (not var["interleave"] and len(red.red) == 1 and red.red[0].strides == (1, 1)
            and (dt.bits == 32 or var["packed_rows"])
            and all((d.strides[0] - d.strides[1]) % dt.per_word == 0 for d in red.kept))
    if loop and var["tpr"] >= tuning.HARDMAX_STREAM_MIN_TPR:
        return "loop"
    return "block" if block_out else ""


def _block_out(red: canon.Reduction) -> bool:
    """Whether consecutive subsets are consecutive blocks of the output (one reduced dim,
    contiguous, and the kept dims row-major right after it): then a workgroup writes its
    subsets as one block (whole words where they are at least a word long: the kernel's
    word_hot)."""
    if len(red.red) != 1 or red.red[0].strides[1] != 1:
        return False
    expected = red.n_red
    for d in reversed(red.kept):
        if d.strides[1] != expected:
            return False
        expected *= d.size
    return True


class CompiledHardmax(base.CompiledUnary):
    """A compiled Hardmax1: constraints checked and pipelines built at construction."""

    label = "Hardmax1"

    def __init__(self, device, desc: Hardmax1Desc):
        self.device, self.desc = device, desc
        src, dst = desc.input, desc.output
        validate.rank(src.sizes, "Hardmax1Desc.input")
        self.dt = dtypes.lookup(src.dtype, "Hardmax1Desc.input.dtype", TYPES)
        self.axes = validate.axes(desc.axes, len(src.sizes), "Hardmax1Desc.axes")
        if dst.dtype != src.dtype or dst.sizes != src.sizes:
            raise ValueError(f"Hardmax1Desc.output: {dst.dtype}{list(dst.sizes)} should have the "
                             f"input's type and sizes ({src.dtype}{list(src.sizes)})")
        self.empty = any(n == 0 for n in src.sizes)
        red = canon.reduction(src.sizes, src.element_strides, dst.element_strides, self.axes,
                              red_out=dst.element_strides)
        out_dims = canon.merge([canon.Dim(n, (s,)) for n, s in
                                zip(dst.sizes, dst.element_strides, strict=True)])
        self.plan = plan_hardmax(red, out_dims or (canon.Dim(1, (1,)),), self.dt)
        self._ready_unary()
        if not self.empty:
            for step in self.plan.steps:
                device.pipelines.get(step.template, **step.variables,
                                     n_in_win=0 if step.source == "none" else 1, n_out_win=1)


register_operator(Hardmax1Desc, CompiledHardmax)


def hardmax(x: Tensor | ArrayLike, axes: int | Sequence[int] = -1, *,
            out: Tensor | None = None) -> Tensor:
    """One-hot of the first maximum over `axes` (NaN counts as the maximum, the first NaN
    wins; -0.0 equals +0.0); same shape and dtype as x (float32 or float16). `out`: the
    tensor to write (x's shape and dtype; any non-overlapping strides)."""
    outs = base.out_tensors(out, 1)
    key = None
    if type(x) is Tensor:  # the hot path: a call like an earlier one
        key = (Hardmax1Desc, x._dt, x._shape, x._strides, type(axes), axes,
               base.out_signature(outs))
        op = base.hot_lookup(x.device, key)
        if op is not None:
            return base.hot_call(op, x, outs)[0]
    xd = base.tensor_desc(x)  # every check below runs before a numpy input is uploaded
    validate.rank(xd.sizes, "x")
    dtypes.lookup(xd.dtype, "x.dtype", TYPES)
    ax = validate.axes(axes, len(xd.sizes))
    (od,) = base.out_descs(outs, [TensorDesc(xd.dtype, xd.sizes)])
    device = x.device if isinstance(x, Tensor) else default_device()
    op = device.compile(Hardmax1Desc(xd, od, ax))
    (y,) = op(inputs=[base.input_tensor(x, device)], outputs=outs)
    if key is not None:
        base.hot_store(device, key, op)
    return y
