"""The benchmark's cases, as data: one `Op` per operator (how to call it, check it and run
it on the peers) and the `Case`s that use it.

To add an operator: write its section below (an `Op` and its cases) guarded by
`hasattr(dg, "<public function>")`, so that the suite only lists what the library has.
Nothing else in the benchmark changes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import dmlgpu as dg


@dataclass(frozen=True)
class OnnxNode:
    """A one-node ONNX graph equivalent to a case: `op_type` applied to the input (reshaped
    to `x_shape`, None: as it is) and to int64 constants `consts` (name -> values), with
    integer attributes `attrs`; `outputs` are the outputs' dtypes (None: the input's)."""

    op_type: str
    attrs: dict = field(default_factory=dict)
    x_shape: tuple | None = None
    consts: dict = field(default_factory=dict)
    outputs: tuple = ("int64",)


@dataclass(frozen=True)
class Op:
    """How the benchmark runs one operator. Every function takes the case's params as
    keyword arguments.

    call(x, **p): the public dmlgpu call on the dg.Tensor x -> tuple of dg.Tensor outputs.
    expected(x, **p): numpy result for the numpy array x -> tuple of arrays; it is the
        correctness reference and the figure of the numpy peer.
    compare(got, expected, **p): None when the outputs (dg.Tensor) are right, else a
        message. Default: every output equals its expected array exactly.
    written(expected, **p): bytes the outputs must take. Default: the expected arrays' bytes.
    torch(torch, xt, **p): a function running the same work on the CUDA tensor xt, or None.
    onnx(shape, dtype, **p): the equivalent OnnxNode, or None.
    """

    call: Callable
    expected: Callable
    compare: Callable | None = None
    written: Callable | None = None
    torch: Callable | None = None
    onnx: Callable | None = None


@dataclass(frozen=True)
class Case:
    """One benchmark case: `op` on `shape` (`quick_shape` under --quick) of `dtype`.

    data: how the input is drawn: "normal" (standard normal) or "density=D" (a fraction D
    of the elements non-zero, standard normal).
    """

    name: str
    op: str
    shape: tuple
    quick_shape: tuple
    dtype: str
    params: dict = field(default_factory=dict)
    data: str = "normal"

    def sizes(self, quick: bool) -> tuple:
        return self.quick_shape if quick else self.shape


OPS: dict[str, Op] = {}
CASES: list[Case] = []


def register(name: str, op: Op, cases) -> None:
    if name in OPS:
        raise ValueError(f"operator {name!r} is registered twice")
    OPS[name] = op
    for c in cases:
        if any(c.name == d.name for d in CASES):
            raise ValueError(f"case {c.name!r} is registered twice")
        CASES.append(c)


def differs(i: int, a: np.ndarray, e: np.ndarray) -> str | None:
    """None when output i, downloaded as `a`, equals `e` exactly (NaN equals NaN)."""
    if a.shape != e.shape or a.dtype != e.dtype:
        return f"output {i}: got shape {a.shape} {a.dtype}, expected {e.shape} {e.dtype}"
    bad = a != e
    if a.dtype.kind == "f":
        bad &= ~(np.isnan(a) & np.isnan(e))
    if bad.any():
        where = tuple(int(v) for v in np.argwhere(bad)[0])
        return (f"output {i}: {int(bad.sum())} of {a.size} elements differ, first at "
                f"{where}: got {a[where]!r}, expected {e[where]!r}")
    return None


def exact(got, expected, **_) -> str | None:
    if len(got) != len(expected):
        return f"{len(got)} outputs, expected {len(expected)}"
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        msg = differs(i, g.numpy(), e)
        if msg:
            return msg
    return None


def _ours(tensors) -> tuple:
    return tuple(tensors) if isinstance(tensors, (tuple, list)) else (tensors,)


_SHORT = {"float32": "f32", "float16": "f16"}

# --- ArgMax / ArgMin ----------------------------------------------------------------------
# params: axes (None: all axes, i.e. the flat index).


def _arg_op(name: str) -> Op:
    dg_fn = getattr(dg, name)
    np_fn = getattr(np, name)

    def expected(x, axes=None):
        if axes is None:
            return (np.asarray(np_fn(x), np.uint32).reshape((1,) * x.ndim),)
        return (np_fn(x, axis=axes, keepdims=True).astype(np.uint32),)

    def torch_fn(torch, xt, axes=None):
        fn = getattr(torch, name)
        if axes is None:
            return lambda: fn(xt)
        return lambda: fn(xt, dim=axes, keepdim=True)

    def onnx(shape, dtype, axes=None):
        node = "ArgMax" if name == "argmax" else "ArgMin"
        if axes is None:
            return OnnxNode(node, {"axis": 0, "keepdims": 1}, x_shape=(int(np.prod(shape)),))
        return OnnxNode(node, {"axis": axes, "keepdims": 1})

    return Op(call=lambda x, axes=None: _ours(dg_fn(x, axes)), expected=expected,
              torch=torch_fn, onnx=onnx)


_ARG_SHAPES = [  # (label, full shape, quick shape, axes, dtypes)
    ("flat", (1 << 28,), (1 << 22,), None, ("float32", "float16")),
    ("rows", (16384, 16384), (2048, 2048), -1, ("float32", "float16")),
    ("cols", (16384, 16384), (2048, 2048), 0, ("float32",)),
    # latency: a batch of a few rows over a large vocabulary, where host cost dominates
    ("vocab", (4, 150000), (4, 150000), -1, ("float32",)),
]
for _name in ("argmax", "argmin"):
    register(_name, _arg_op(_name), [
        Case(f"{_name}/{label}/{_SHORT[dt]}", _name, full, quick, dt, {"axes": axes})
        for label, full, quick, axes, dts in _ARG_SHAPES for dt in dts])

# --- Hardmax ------------------------------------------------------------------------------
# params: axes. The torch peer is the usual two-kernel spelling (argmax, then a scatter).

if hasattr(dg, "hardmax"):
    def _hardmax_expected(x, axes=-1):
        y = np.zeros_like(x)
        np.put_along_axis(y, np.argmax(x, axis=axes, keepdims=True), 1, axis=axes)
        return (y,)

    def _hardmax_torch(torch, xt, axes=-1):
        return lambda: torch.zeros_like(xt).scatter_(
            axes, torch.argmax(xt, dim=axes, keepdim=True), 1)

    register("hardmax", Op(
        call=lambda x, axes=-1: _ours(dg.hardmax(x, axes)),
        expected=_hardmax_expected,
        torch=_hardmax_torch,
        onnx=lambda shape, dtype, axes=-1: OnnxNode("Hardmax", {"axis": axes},
                                                    outputs=(None,)),
    ), [Case("hardmax/rows/f32", "hardmax", (4096, 4096), (1024, 1024), "float32",
             {"axes": -1}),
        # latency: a small call where host cost dominates, and a 1 GiB output, which a
        # user's loop allocates on every iteration unless the allocator reuses it
        Case("hardmax/small/f32", "hardmax", (64, 1000), (64, 1000), "float32", {"axes": -1}),
        Case("hardmax/1gib/f16", "hardmax", (32768, 16384), (256, 1024), "float16",
             {"axes": -1})])

# --- TopK ---------------------------------------------------------------------------------
# params: k, axis (the last one in every case). Largest first; equal values in ascending
# index order.


def topk_reference(x: np.ndarray, k: int, axis: int = -1):
    """(values, uint32 indices) of the k largest along `axis`, largest first, ties in
    ascending index order; without a full sort (argpartition, then the tied rows fixed)."""
    x = np.moveaxis(x, axis, -1)
    n = x.shape[-1]
    flat = x.reshape(-1, n)
    part = np.argpartition(flat, n - k, axis=-1)[:, n - k:]
    vals = np.take_along_axis(flat, part, axis=-1)
    # the k-th largest value may be tied with elements argpartition left out; the spec
    # wants the lowest indices among equals
    kth = vals.min(axis=-1, keepdims=True)
    tied_rows = np.nonzero((flat == kth).sum(-1) != (vals == kth).sum(-1))[0]
    for r in tied_rows:
        above = np.nonzero(flat[r] > kth[r])[0]
        equal = np.nonzero(flat[r] == kth[r])[0][:k - above.size]
        part[r] = np.concatenate([above, equal])
        vals[r] = flat[r, part[r]]
    order = np.lexsort((part, -vals), axis=-1)
    idx = np.take_along_axis(part, order, axis=-1)
    vals = np.take_along_axis(vals, order, axis=-1)
    shape = x.shape[:-1] + (k,)
    return (np.moveaxis(vals.reshape(shape), -1, axis),
            np.moveaxis(idx.astype(np.uint32).reshape(shape), -1, axis))


if hasattr(dg, "top_k"):
    register("topk", Op(
        call=lambda x, k, axis=-1: _ours(dg.top_k(x, k, axis)),
        expected=topk_reference,
        torch=lambda torch, xt, k, axis=-1: (lambda: torch.topk(xt, k, dim=axis)),
        onnx=lambda shape, dtype, k, axis=-1: OnnxNode(
            "TopK", {"axis": axis, "largest": 1, "sorted": 1}, consts={"k": [k]},
            outputs=(None, "int64")),
    ), [Case(f"topk/rows/f32/k{k}", "topk", (16384, 16384), (64, 2048), "float32",
             {"k": k, "axis": -1}) for k in (1, 8, 64, 1024)] + [
        Case("topk/long/f32/k1000", "topk", (1, 1 << 24), (1, 1 << 18), "float32",
             {"k": 1000, "axis": -1}),
        Case("topk/vocab/f32/k50", "topk", (32, 50257), (4, 50257), "float32",
             {"k": 50, "axis": -1}),
        # latency: a top-k of a few over about a thousand
        Case("topk/small/f32/k5", "topk", (1, 1000), (1, 1000), "float32",
             {"k": 5, "axis": -1}),
        # many short rows (issue #20's workloads): mixture-of-experts routing, top-8 of 256
        # experts over 65536 tokens, and a top-2 of 128 over 16384 rows
        Case("topk/moe/f32/k8", "topk", (65536, 256), (4096, 256), "float32",
             {"k": 8, "axis": -1}),
        Case("topk/moe/f16/k8", "topk", (65536, 256), (4096, 256), "float16",
             {"k": 8, "axis": -1}),
        Case("topk/route/f32/k2", "topk", (16384, 128), (2048, 128), "float32",
             {"k": 2, "axis": -1}),
    ])

# --- NonZeroCoordinates -------------------------------------------------------------------
# The input's density comes from Case.data. Only the first `count` rows of the
# coordinates are defined, so only those are checked (and downloaded) and counted as
# written.

if hasattr(dg, "nonzero_coordinates"):
    def _nonzero_expected(x):
        coords = np.argwhere(x).astype(np.uint32)
        return (np.array([coords.shape[0]], np.uint32), coords)

    def _nonzero_compare(got, expected):
        count, coords = got
        n = int(count.numpy()[0])
        if n != expected[0][0]:
            return f"count: got {n}, expected {int(expected[0][0])}"
        rows = coords[:n].numpy() if n else np.zeros((0, coords.shape[1]), np.uint32)
        return differs(1, rows, expected[1])

    register("nonzero", Op(
        call=lambda x: _ours(dg.nonzero_coordinates(x)),
        expected=_nonzero_expected,
        compare=_nonzero_compare,
        torch=lambda torch, xt: (lambda: torch.nonzero(xt)),
        onnx=lambda shape, dtype: OnnxNode("NonZero"),
    ), [Case(f"nonzero/f32/d{d:g}", "nonzero", (8192, 8192), (1024, 1024), "float32",
             data=f"density={d:g}") for d in (0.001, 0.1, 0.5, 1)] + [
        # latency: 1 GiB of coordinates (2^27 rows of 2), allocated per call unless reused
        Case("nonzero/1gib/f32/d0.001", "nonzero", (16384, 8192), (512, 512), "float32",
             data="density=0.001")])
