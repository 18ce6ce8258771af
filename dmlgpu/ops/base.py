"""What every compiled operator shares: checking the tensors of a call against its
descriptions, allocating outputs and scratch, binding once per distinct buffers, and
submitting (eagerly, into a captured graph, or into a user's encoder with `record`).

The hot path of a repeated call: identity checks of each tensor against its description,
one allocator hit per output and scratch buffer, one dict hit for the bound dispatches
(bind groups and uniforms made once for these buffers), then encoding and one submit.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

from .. import dtypes, tuning
from .. import plan as planmod
from ..canon import contiguous_strides
from ..desc import TensorDesc
from ..runtime import dispatch
from ..runtime.dispatch import Launch
from ..runtime.graph import capturing
from ..runtime.tensor import Tensor, check_extent, extent

# Bound dispatches kept per compiled operator, by the buffers (and offsets) of a call: a
# loop whose outputs return to the allocator gets the same buffers back, so a few entries
# serve it; each holds a uniform buffer of a few hundred bytes.
BOUND_ENTRIES = 16
# a scratch entry's `what` for the device's tally buffer (Device.tally_block), which the
# allocator never hands out: its words must be 0 whenever no dispatch runs
TALLY = "tally"

# Every compiled operator of a device, so that empty_cache can drop their bound dispatches
# (bind groups hold the buffers they bind) before it destroys idle buffers.
_OPS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _drop_bound(device) -> None:
    for op in list(_OPS.get(device, ())):
        op._bound.clear()
        op._uniforms.clear()


def bind(device, tensor, max_windows: int, what: str):
    """(element offset relative to the binding base, windows) of a tensor's bytes."""
    isz = tensor._dt.itemsize
    lo, hi = tensor.element_span()
    base, wins = planmod.windows(tensor._buf, lo * isz, (hi + 1) * isz,
                                 device.window_bytes, max_windows, what)
    return tensor._off - base // isz, wins


def span_bytes(sizes, strides, itemsize: int) -> int:
    """Bytes between the first and the last element a tensor of these sizes touches."""
    lo, hi = extent(sizes, strides, 0)
    return (hi + 1 - lo) * itemsize


def n_windows(nbytes: int, device) -> int:
    """Storage windows (bindings) that `nbytes` from an aligned start take."""
    return max(1, -(-nbytes // device.window_bytes))


def windows_bound(device, desc) -> int:
    """The most storage windows a view of `desc` (at any offset) binds: its span from a
    start aligned down by up to WINDOW_ALIGN."""
    span = span_bytes(desc.sizes, desc.element_strides, dtypes.lookup(desc.dtype).itemsize)
    return n_windows(span + planmod.WINDOW_ALIGN, device)


def tally_fits(device, plan, src, dst) -> bool:
    """Whether `plan`'s share of the tally buffer fits a binding, and the binding fits
    beside any view of TensorDescs src and dst."""
    return (plan.tally_bytes <= device.window_bytes
            and windows_bound(device, src) + windows_bound(device, dst) + 1
            <= device.max_storage_bindings)


def unpack(tensors, count: int, arg: str) -> list:
    """The `count` tensors of a compiled operator's inputs= or outputs= argument."""
    if isinstance(tensors, (str, bytes, Tensor)) or not hasattr(tensors, "__len__"):
        raise TypeError(f"{arg}: expected a list of {count} tensor(s), "
                        f"got {type(tensors).__name__}")
    if len(tensors) != count:
        raise ValueError(f"{arg}: {len(tensors)} tensors given, the operator takes {count}")
    return list(tensors)


def tensor_desc(x, arg: str = "x"):
    """The TensorDesc of a dg.Tensor, or of what uploading array-like `x` would give, so that
    every check runs before anything is uploaded."""
    if isinstance(x, Tensor):
        return TensorDesc(x._dt.name, x._shape, x._strides)
    arr = np.asarray(x)
    dtypes.lookup(arr.dtype, f"{arg}.dtype")
    return TensorDesc(arr.dtype.name, arr.shape)


def effective_strides(sizes, strides) -> tuple:
    """Strides with those of size-1 dimensions zeroed (they address nothing)."""
    return tuple(0 if n == 1 else s for n, s in zip(sizes, strides, strict=True))


def check_tensor(t, desc, device, arg: str) -> None:
    """A tensor passed to a compiled operator must match its TensorDesc exactly."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{arg}: expected a dg.Tensor, got {type(t).__name__}")
    if t.device is not device:
        raise ValueError(f"{arg}: the tensor lives on another device ({t.device!r}) than the "
                         f"operator ({device!r})")
    if t._dt.name != desc.dtype:
        raise TypeError(f"{arg}: dtype {t._dt.name} does not match the description's "
                        f"{desc.dtype}")
    if t._shape != desc.sizes:
        raise ValueError(f"{arg}: shape {t._shape} does not match the description's sizes "
                         f"{desc.sizes}")
    if t.size > 1 and (effective_strides(t._shape, t._strides)
                       != effective_strides(desc.sizes, desc.element_strides)):
        raise ValueError(f"{arg}: strides {t._strides} do not match the description's "
                         f"{desc.element_strides}")


def check_output_layout(sizes, strides, arg: str) -> None:
    """Output elements must not overlap (DirectML rejects overlapping output layouts): each
    dimension's stride, by magnitude, passes the span of all smaller ones."""
    if any(n == 0 for n in sizes):
        return
    dims = sorted((abs(s), n) for n, s in zip(sizes, strides, strict=True) if n > 1)
    reach = 0
    for s, n in dims:
        if s <= reach:
            raise ValueError(f"{arg}: strides {tuple(strides)} for sizes {tuple(sizes)} make "
                             "elements overlap (a stride of 0, or one within the span of a "
                             "smaller one); outputs need one element per address")
        reach += (n - 1) * s


def _span(t: Tensor) -> tuple[int, int]:
    isz = t._dt.itemsize
    lo, hi = extent(t._shape, t._strides, t._off)
    return lo * isz, (hi + 1) * isz


class Recording:
    """What `op.record` encoded: its `outputs`, and the scratch and uniform buffers the
    dispatches use. Keep it until the encoder's submission has been made: until then its
    buffers are neither handed to another call nor released by empty_cache."""

    __slots__ = ("outputs", "_holds", "n_dispatches")

    def __init__(self, outputs, holds, n_dispatches):
        self.outputs, self._holds, self.n_dispatches = outputs, holds, n_dispatches


class CompiledOp:
    """Base of compiled operators. A subclass's __init__ validates its description, plans,
    builds its pipelines and then calls `_ready(inputs, outputs, scratch)` with its
    TensorDescs, their argument names, and its scratch buffers ((name, bytes, what) each,
    allocated per call). It implements `launches(xs, ys, scratch)` with scratch a dict of
    name -> buffer; `empty`: a zero-size problem that launches nothing."""

    device = desc = None
    label = "operator"
    empty = False

    def _ready(self, in_descs, out_descs, out_names, scratch=()) -> None:
        self.in_descs, self.out_descs = tuple(in_descs), tuple(out_descs)
        self.out_names = tuple(out_names)
        self.scratch = tuple((name, max(4, -(-n // 4) * 4), what) for name, n, what in scratch)
        self._in_sig = [(dtypes.DTYPES[d.dtype], d.sizes, d.element_strides) for d in in_descs]
        self._out_sig = [(dtypes.DTYPES[d.dtype], d.sizes, d.element_strides)
                         for d in out_descs]
        for d, name in zip(out_descs, out_names, strict=True):
            check_output_layout(d.sizes, d.element_strides, f"{type(self.desc).__name__}.{name}")
        # what new_outputs allocates: (dtype, sizes, strides, buffer size, packed)
        self._out_new = []
        for dt, sizes, strides in self._out_sig:
            n = 1
            for size in sizes:
                n *= size
            if n * dt.itemsize > self.device.max_buffer_size:
                n = 0  # never allocated as such: _alloc raises the limit's error
            self._out_new.append((dt, sizes, strides,
                                  self.device.allocator.buffer_size(n * dt.itemsize),
                                  strides == contiguous_strides(sizes) and n > 0))
        self._packed_out = all(packed for *_, packed in self._out_new)
        self._out_zeros = (0,) * len(self._out_new)
        # a call that moves this much is submitted at once; smaller ones are batched
        moved = 0
        for dt, sizes, _ in self._in_sig + self._out_sig:
            n = dt.itemsize
            for size in sizes:
                n *= size
            moved += n
        self.large = moved >= tuning.BATCH_LARGE_BYTES
        self._bound: dict = {}  # buffer ids and offsets -> dispatch.Bound
        self._uniforms: dict = {}  # offsets -> the uniform Block of their Bounds
        self._bound_lock = threading.Lock()
        ops = _OPS.get(self.device)
        if ops is None:
            ops = _OPS[self.device] = weakref.WeakSet()
            dev_ref = weakref.ref(self.device)  # (the hook keeps no device alive)

            def drop(dev_ref=dev_ref):
                d = dev_ref()
                if d is not None:
                    _drop_bound(d)
            self.device.allocator.on_release.append(drop)
        ops.add(self)

    # -- tensors -------------------------------------------------------------------------
    def _inputs(self, inputs) -> list:
        xs = unpack(inputs, len(self._in_sig), "inputs")
        dev = self.device
        for i, (t, (dt, sizes, strides)) in enumerate(zip(xs, self._in_sig, strict=True)):
            if not (type(t) is Tensor and t.device is dev and t._dt is dt
                    and t._shape == sizes and t._strides == strides):
                check_tensor(t, self.in_descs[i], dev, f"inputs[{i}]")
        return xs

    def new_outputs(self) -> list:
        """Fresh output tensors from the allocator (the descriptions' layouts)."""
        dev = self.device
        alloc, usage, make = dev.allocator.alloc_sized, dev.tensor_usage, Tensor._make
        ys = []
        for dt, sizes, strides, size, packed in self._out_new:
            if packed:
                b = alloc(size, usage, "output")
                ys.append(make(dev, b.buffer, b, dt, sizes, strides, 0))
            else:
                ys.append(self._alloc(self.out_descs[len(ys)]))
        return ys

    def _outputs(self, outputs, xs) -> list:
        dev = self.device
        if outputs is None:
            return self.new_outputs()
        ys = unpack(outputs, len(self._out_sig), "outputs")
        for i, (t, (dt, sizes, strides)) in enumerate(zip(ys, self._out_sig, strict=True)):
            if not (type(t) is Tensor and t.device is dev and t._dt is dt
                    and t._shape == sizes and t._strides == strides):
                check_tensor(t, self.out_descs[i], dev, f"outputs[{i}]")
                check_output_layout(t._shape, t._strides, f"outputs[{i}]")
        self._check_aliasing(xs, ys)
        return ys

    def _check_aliasing(self, xs, ys) -> None:
        """WebGPU cannot bind one buffer read-only and writable in a dispatch; outputs may
        share a buffer only where their bytes do not overlap."""
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                if y._buf is x._buf:
                    raise ValueError(
                        f"outputs[{i}]: shares its GPU buffer with inputs[{j}]; WebGPU cannot "
                        "bind one buffer both read-only and writable in a dispatch, so give "
                        "the output a buffer of its own")
            for j in range(i):
                z = ys[j]
                if y._buf is z._buf and y.size and z.size:
                    a0, a1 = _span(y)
                    b0, b1 = _span(z)
                    if a0 < b1 and b0 < a1:
                        raise ValueError(f"outputs[{i}]: its bytes overlap outputs[{j}]'s in "
                                         "the same buffer")

    def _alloc(self, desc: TensorDesc) -> Tensor:
        from ..runtime.tensor import _alloc  # noqa: PLC0415 - a private helper of tensor

        dt = dtypes.DTYPES[desc.dtype]
        strides = desc.element_strides
        if desc.strides is None or strides == contiguous_strides(desc.sizes):
            return _alloc(self.device, desc.sizes, dt, 0, "output")
        lo, hi = extent(desc.sizes, strides, 0)  # a strided output: its whole extent
        n = max(0, hi - lo + 1)
        base = _alloc(self.device, (n,), dt, 0, "output")
        return Tensor._make(self.device, base._buf, base._block, dt, desc.sizes, strides, -lo)

    # -- running -------------------------------------------------------------------------
    def __call__(self, inputs, outputs=None) -> list:
        xs = self._inputs(inputs)
        ys = self._outputs(outputs, xs)
        if not self.empty:
            bound, holds = self._bind(xs, ys)
            dispatch.submit(self.device, bound, holds, self.large)
        return ys

    def hot(self, x, outs) -> list:
        """hot_call's work (one input `x`; `outs` the out= tensors or None). Fresh packed
        outputs whose bind group was made before (a loop's calls) take _bind's lookup
        without its lists."""
        if outs is not None:
            self._check_aliasing([x], outs)
            self.run([x], outs)
            return outs
        ys = self.new_outputs()
        if not self._packed_out or self.empty:
            self.run([x], ys)
            return ys
        bufs = [x._buf, *[y._buf for y in ys]]
        blocks = self._scratch_blocks() if self.scratch else ()
        if blocks:
            bufs += [c.buffer for c in blocks]
        bound = self._bound.get(_bind_key(bufs, (x._off, *self._out_zeros)))
        if bound is None or not bound.matches(bufs):
            bound, holds = self._bind([x], ys, blocks)
        else:
            holds = (*blocks, x, *ys)
        dispatch.submit(self.device, bound, holds, self.large)
        return ys

    def run(self, xs: list, ys: list) -> None:
        """The hot path's entry, for tensors already checked against the descriptions."""
        if not self.empty:
            bound, holds = self._bind(xs, ys)
            dispatch.submit(self.device, bound, holds, self.large)

    def record(self, encoder, inputs, outputs=None) -> Recording:
        """Encode this operator's dispatches into the caller's GPUCommandEncoder (in a
        compute pass of its own) or open GPUComputePassEncoder (which then holds this
        operator's pipeline and bind group 0 afterwards); submits nothing. Dispatches run
        in encoding order, each seeing the writes before it. Returns a Recording with the
        outputs; keep it until you have submitted the encoder (see Recording)."""
        if capturing(self.device) is not None:
            raise ValueError("record: the device is capturing a graph on this thread; "
                             "record outside the capture block")
        xs = self._inputs(inputs)
        ys = self._outputs(outputs, xs)
        if self.empty:
            return Recording(ys, (), 0)
        bound, holds = self._bind(xs, ys)
        dispatch.record(self.device, encoder, [bound])
        return Recording(ys, holds + (bound,), bound.n_dispatches)

    def _scratch_blocks(self):
        """A call's scratch: its own Blocks, the device's tally buffer (or ())."""
        if not self.scratch:
            return ()
        dev = self.device
        return [dev.tally_block(n) if what == TALLY else dev.alloc(n, what=what)
                for _, n, what in self.scratch]

    def _bind(self, xs, ys, blocks=None):
        """(the Bound of these tensors and scratch blocks, made once per distinct buffers and
        offsets; what it must hold). `blocks`: the scratch, if the caller has taken it."""
        dev = self.device
        bufs = [t._buf for t in xs]
        bufs += [t._buf for t in ys]
        if blocks is None:
            blocks = self._scratch_blocks()
        if blocks:
            bufs += [b.buffer for b in blocks]
        key = _bind_key(bufs, [t._off for t in (*xs, *ys)])
        bound = self._bound.get(key)
        if bound is None or not bound.matches(bufs):
            for i, t in enumerate(xs):  # the views were checked when made; bindings again
                check_extent(t._shape, t._strides, t._off, t._dt.itemsize, t._buf.size,
                             f"inputs[{i}]")
            for i, t in enumerate(ys):
                check_extent(t._shape, t._strides, t._off, t._dt.itemsize, t._buf.size,
                             f"outputs[{i}]")
            scratch = {name: b.buffer for (name, _, _), b in zip(self.scratch, blocks,
                                                                 strict=True)}
            # the uniform values depend on the offsets alone: one uniform buffer serves every
            # buffer combination with these offsets (no allocation when outputs vary)
            ukey = key[len(bufs):]  # (the offsets: the uniforms' key)
            bound = dispatch.bind(dev, self.launches(xs, ys, scratch), self.label, bufs,
                                  self._uniforms.get(ukey))
            with self._bound_lock:
                for cache, k, v in ((self._bound, key, bound),
                                    (self._uniforms, ukey, bound.uniforms)):
                    while len(cache) >= BOUND_ENTRIES and k not in cache:
                        cache.pop(next(iter(cache)), None)
                    cache[k] = v
        return bound, (*blocks, *xs, *ys)

    def launches(self, xs, ys, scratch) -> list[Launch]:
        raise NotImplementedError


def _bind_key(bufs, offsets) -> tuple:
    """A Bound's key in CompiledOp._bound: its buffers' ids, then the tensors' offsets."""
    return (*[id(b) for b in bufs], *offsets)


def plan_launches(device, plan, x, out, scratch=None, scratch_tally=None) -> list[Launch]:
    """Launches of a one-input, one-output plan (ArgMax/ArgMin, Hardmax) whose first step
    reads `x` and whose last writes `out`; `scratch` holds the partials, `scratch_tally`
    is the device's tally buffer (plan.tally_bytes of it bound last)."""
    tally = [(scratch_tally, 0, plan.tally_bytes)] if plan.tally_bytes else []
    n_out_win_max = device.max_storage_bindings - 1 - len(tally)
    out_off, out_wins = bind(device, out, n_out_win_max, "output")
    in_off, in_wins = bind(device, x, device.max_storage_bindings - len(out_wins) - len(tally),
                           "input")
    # bind what the plan uses: a cached scratch buffer may be larger
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
        variables = step.variables
        if step.mid_word and src_off % variables["dt"].per_word:
            # words of a view that starts mid-word are not its runs: element loads instead
            variables = dict(variables, **step.mid_word)
        if step.skew and (src_off - dst_off) % variables["dt"].per_word:
            variables = dict(variables, **step.skew)
        if step.in_align and (src_off % step.in_align[0] or len(src) > 1):
            variables = dict(variables, **step.in_align[1])
        if step.out_align and dst_off % step.out_align[0]:
            variables = dict(variables, **step.out_align[1])
        pipeline, layout = device.pipelines.get(step.template, **variables,
                                                n_in_win=len(src), n_out_win=len(dst))
        params = planmod.pack_uniform(step.params, in_offset=src_off, out_offset=dst_off,
                                      win_words=device.window_bytes // 4)
        result.append(Launch(pipeline, layout, src + dst + (tally if step.tally else []),
                             params, step.n_groups))
    return result


class CompiledUnary(CompiledOp):
    """Compiled operators with one input and one output whose work is one plan
    (ArgMax/ArgMin, Hardmax1). Subclasses set desc, plan and empty, then call _ready."""

    plan = None

    def _ready_unary(self) -> None:
        scratch = [("partials", self.plan.partial_bytes, "partials")] \
            if self.plan.partial_bytes else []
        if self.plan.tally_bytes:
            scratch.append(("tally", self.plan.tally_bytes, TALLY))
        self._ready([self.desc.input], [self.desc.output], ["output"], scratch)

    def launches(self, xs, ys, scratch) -> list[Launch]:
        return plan_launches(self.device, self.plan, xs[0], ys[0], scratch.get("partials"),
                             scratch.get("tally"))


# -- the functional API's hot path --------------------------------------------------------
HOT_ENTRIES = 4096


def hot_lookup(device, key):
    """The compiled operator an earlier call with this signature used, or None."""
    try:
        return device._hot.get(key)
    except TypeError:  # an unhashable argument (a list of axes): the slow path
        return None


def hot_store(device, key, op) -> None:
    try:
        hash(key)
    except TypeError:
        return
    hot = device._hot
    if len(hot) >= HOT_ENTRIES:
        hot.clear()
    hot[key] = op


def hot_call(op, x, outs) -> list:
    """A repeated call's work: outputs allocated (or `outs` checked for aliasing), the
    bound dispatches submitted."""
    return op.hot(x, outs)


def out_tensors(out, count: int, arg: str = "out") -> list | None:
    """The tensors of an `out=` argument (one tensor, or a tuple of `count`)."""
    if out is None:
        return None
    if count == 1:
        if isinstance(out, (tuple, list)) and len(out) == 1:
            out = out[0]
        if not isinstance(out, Tensor):
            raise TypeError(f"{arg}: expected a dg.Tensor, got {type(out).__name__}")
        return [out]
    if not isinstance(out, (tuple, list)) or len(out) != count:
        raise TypeError(f"{arg}: expected a tuple of {count} dg.Tensors")
    for i, t in enumerate(out):
        if not isinstance(t, Tensor):
            raise TypeError(f"{arg}[{i}]: expected a dg.Tensor, got {type(t).__name__}")
    return list(out)


def out_signature(outs) -> tuple | None:
    if outs is None:
        return None
    return tuple((t._dt, t._shape, t._strides, t.device) for t in outs)


def out_descs(outs, expected: list[TensorDesc], arg: str = "out") -> list[TensorDesc]:
    """The output descriptions of a call: `expected` (dtype and sizes the call produces),
    with the strides of the given `out` tensors, which must match in type and shape."""
    if outs is None:
        return expected
    result = []
    for i, (t, d) in enumerate(zip(outs, expected, strict=True)):
        where = arg if len(outs) == 1 else f"{arg}[{i}]"
        if t._dt.name != d.dtype:
            raise TypeError(f"{where}: dtype {t._dt.name} does not match the result's "
                            f"{d.dtype}; dmlgpu does not convert types")
        if t._shape != d.sizes:
            raise ValueError(f"{where}: shape {t._shape} does not match the result's "
                             f"{d.sizes}")
        check_output_layout(t._shape, t._strides, where)
        result.append(TensorDesc(d.dtype, d.sizes, t._strides))
    return result


def input_tensor(x, device):
    """`x` as a Tensor on `device`: uploaded if it is host data (not while capturing: a
    replay would not see new host data)."""
    if isinstance(x, Tensor):
        return x
    if capturing(device) is not None:
        raise ValueError(f"x: a {type(x).__name__} (host data) given while capturing a graph; "
                         "replays would not see new host data: upload it with dg.asarray "
                         "before the capture and update it with tensor.copy_()")
    from ..runtime.tensor import asarray  # noqa: PLC0415

    return asarray(x, device=device)

