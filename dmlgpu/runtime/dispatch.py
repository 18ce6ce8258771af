"""Binding planned launches once, encoding them, submitting them.

One of the runtime modules that touch wgpu. A `Launch` is one planned dispatch (pipeline,
resources, uniform values, workgroups). `bind` turns a call's launches into a `Bound`:
bind groups and one uniform buffer written once, never rewritten, so a Bound can be
encoded again and again, by any thread, into our submissions, a captured graph or a
user's encoder. Dispatches inside one compute pass are ordered, and each sees the writes
of the ones before it.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from dataclasses import dataclass

import numpy as np

from .. import codegen, tuning

_GROUPS_X = codegen._OFFSETS["groups_x"][0]
# Uniform blocks of one call share a buffer at offsets of this many bytes (WebGPU's largest
# allowed min-uniform-buffer-offset-alignment, so valid on every device).
UNIFORM_ALIGN = 256


@dataclass
class Launch:
    pipeline: object
    layout: object
    resources: list  # (buffer, offset, size) for bindings 1..n
    params: np.ndarray  # the uniform block; groups_x is filled in by bind()
    n_groups: int


def grid(n_groups: int, max_per_dim: int) -> tuple[int, int]:
    """Workgroup grid for n_groups: past the per-dimension limit, y rows of x groups, x
    as small as y rows allow (the groups past n_groups return at once, but each still
    costs a launch: on an H200 65,535 empty groups took 44 us, and the (limit, 2) grid of
    65,536 groups made a 256 MiB copy 168 us against 130 us balanced, bench/results/
    grid-balance/)."""
    if n_groups <= max_per_dim:
        return n_groups, 1
    y = -(-n_groups // max_per_dim)
    if y > max_per_dim:
        raise ValueError(f"{n_groups} workgroups exceed the device's grid "
                         f"({max_per_dim} x {max_per_dim})")
    return -(-n_groups // y), y


class Bound:
    """A call's dispatches ready to encode: (pipeline, bind group, grid) each, and the
    uniform buffer they read (a Block, held here). `buffers` are weak references to every
    buffer the bind groups hold, in the order of the key they were made for."""

    __slots__ = ("commands", "uniforms", "refs", "label", "n_dispatches")

    def __init__(self, commands, uniforms, refs, label):
        self.commands, self.uniforms, self.refs, self.label = commands, uniforms, refs, label
        self.n_dispatches = len(commands)

    def matches(self, buffers) -> bool:
        """Whether the bind groups were made for exactly these (living) buffers."""
        refs = self.refs
        if len(refs) != len(buffers):
            return False
        for r, b in zip(refs, buffers, strict=True):
            if r() is not b:
                return False
        return True

    def encode(self, cpass, encode=None) -> None:
        (encode or encode_commands)(cpass, self.commands)


def encode_commands(cpass, commands, last=None):
    """Encode (pipeline, bind group, gx, gy) commands into a pass through wgpu-py's
    methods; a pipeline already set (by the command before, or `last`: the pass's current
    one) is not set again. Returns the pass's pipeline after them."""
    set_pipeline, set_group = cpass.set_pipeline, cpass.set_bind_group
    dispatch = cpass.dispatch_workgroups
    for pipeline, group, gx, gy in commands:
        if pipeline is not last:
            set_pipeline(pipeline)
            last = pipeline
        set_group(0, group)
        dispatch(gx, gy, 1)
    return last


class RawEncoder:
    """encode_commands through the implementation's C functions (webgpu.h), skipping
    wgpu-py's per-call wrapping: wgpu-native's set_bind_group builds a cffi array for the
    dynamic offsets and every call goes through an error-capturing proxy. Lavapipe host,
    wgpu-native: 5.07 -> 1.67 us per encoded dispatch (a replayed graph of 13 dispatches;
    finish adds 3.7 either way). Errors are not lost: a pass records a bad command's error
    and reports it at end(), which still goes through wgpu-py. Objects stay alive while
    the pass is open: both implementations' passes keep a reference to what was set, and
    the Bound and Batch hold the Python objects until submission too."""

    __slots__ = ("set_pipeline", "set_group", "dispatch", "null")

    def __init__(self, api):
        lib = api.lib
        self.set_pipeline = lib.wgpuComputePassEncoderSetPipeline
        self.set_group = lib.wgpuComputePassEncoderSetBindGroup
        self.dispatch = lib.wgpuComputePassEncoderDispatchWorkgroups
        self.null = api.ffi.NULL

    def __call__(self, cpass, commands, last=None):
        h = cpass._internal
        set_pipeline, set_group, dispatch, null = (self.set_pipeline, self.set_group,
                                                   self.dispatch, self.null)
        for pipeline, group, gx, gy in commands:
            if pipeline is not last:
                set_pipeline(h, pipeline._internal)
                last = pipeline
            set_group(h, 0, group._internal, 0, null)
            dispatch(h, gx, gy, 1)
        return last


def command_encoder(gpu, raw: bool = True):
    """The encode_commands to use for passes of `gpu`: a RawEncoder where wgpu-py's backend
    module exposes the C functions and handles it wraps (wgpu-native's and Dawn's do), else
    wgpu-py's methods. DMLGPU_RAW_ENCODE=0 (or raw=False) picks the methods."""
    import os  # noqa: PLC0415 - read once per device
    import sys  # noqa: PLC0415

    if not raw or os.environ.get("DMLGPU_RAW_ENCODE", "1") == "0":
        return encode_commands
    api = sys.modules.get(type(gpu).__module__)
    lib, ffi = getattr(api, "lib", None), getattr(api, "ffi", None)
    names = ("wgpuComputePassEncoderSetPipeline", "wgpuComputePassEncoderSetBindGroup",
             "wgpuComputePassEncoderDispatchWorkgroups")
    if lib is None or ffi is None or not all(hasattr(lib, n) for n in names):
        return encode_commands
    return RawEncoder(api)


def bind(device, launches: list[Launch], label: str, buffers=(), uniforms=None) -> Bound:
    """Bind groups and the uniform buffer of `launches` (made once per distinct buffers).
    `buffers`: the buffers the caller keys the Bound on (weakly referenced). `uniforms`: a
    Block an earlier Bound of the same uniform values wrote (reused as it is), or None."""
    live = [ln for ln in launches if ln.n_groups]
    grids = [grid(ln.n_groups, device.max_workgroups) for ln in live]
    for ln, (gx, _) in zip(live, grids, strict=True):
        ln.params[_GROUPS_X] = gx
    commands, ublock = [], None
    if live:
        size = max(ln.params.nbytes for ln in live)
        slot = -(-size // UNIFORM_ALIGN) * UNIFORM_ALIGN
        data = np.zeros(slot * len(live), np.uint8)
        for i, ln in enumerate(live):
            data[i * slot:i * slot + ln.params.nbytes] = ln.params.view(np.uint8)
        ublock = uniforms if uniforms is not None else device.uniform_block(data)
        gpu = device.device
        for i, (ln, (gx, gy)) in enumerate(zip(live, grids, strict=True)):
            entries = [{"binding": 0, "resource": {"buffer": ublock.buffer, "offset": i * slot,
                                                   "size": ln.params.nbytes}}]
            for b, (buf, off, size_) in enumerate(ln.resources, 1):
                entries.append({"binding": b,
                                "resource": {"buffer": buf, "offset": off, "size": size_}})
            try:
                with device.lock:
                    group = gpu.create_bind_group(layout=ln.layout, entries=entries)
            except Exception as e:
                where = ", ".join(f"binding {b}: {buf.size}-byte buffer at {off} (+{sz})"
                                  for b, (buf, off, sz) in enumerate(ln.resources, 1))
                name = getattr(ln.pipeline, "label", "") or "?"
                raise device.error(e, f"{label}: binding {name} ({where})") from e
            commands.append((ln.pipeline, group, gx, gy))
    return Bound(commands, ublock, tuple(weakref.ref(b) for b in buffers), label)


# -- submission ----------------------------------------------------------------------------
_recorders: list[list] = []
_local = threading.local()


@contextlib.contextmanager
def recording():
    """Collects (Bound, holds) of every call inside the block (they still run), so that a
    benchmark can resubmit an operator's work under a timer whatever its signature;
    `holds` keeps the call's scratch and tensors alive as long as the entry."""
    subs: list = []
    _recorders.append(subs)
    try:
        yield subs
    finally:
        _recorders.remove(subs)


def submit(device, bound: Bound, holds: tuple = (), large: bool = True) -> None:
    """Run a call's dispatches: recorded into the graph this thread captures on `device`,
    if any; else encoded into the device's open batch, which is submitted at once for the
    first `large` call since the last wait (readback or synchronize), when it holds
    tuning.BATCH_LARGE_CALLS large calls or tuning.BATCH_DISPATCHES dispatches, or at the
    next flush point (Device.flush: every upload, readback, copy, wait, recording, buffer
    release, and `tensor.buffer`). `holds`: what must stay alive while the work may be
    resubmitted (scratch Blocks, tensors); batched or submitted work needs nothing kept,
    as the allocator only destroys a buffer after a flush (allocator.py says why reuse is
    safe)."""
    if _recorders:
        for rec in list(_recorders):  # another thread may leave its block meanwhile
            rec.append((bound, holds))
    graph = device._captures.graph
    if graph is not None:
        graph._add(bound, holds, large)
        return
    enqueue(device, bound, large)


def enqueue(device, bound, large: bool) -> None:
    """Encode `bound` (a Bound, or anything with commands, label and n_dispatches) into the
    device's open batch; submit the batch if `large` or full (see submit)."""
    with device.lock:
        pending = device._pending
        try:
            if pending is None:
                encoder = device.device.create_command_encoder()
                pending = device._pending = Batch(encoder, encoder.begin_compute_pass())
            pending.pipeline = device.encode_commands(pending.cpass, bound.commands,
                                                      pending.pipeline)
        except Exception as e:
            device._pending = None
            raise device.error(e, f"encoding {bound.label}") from e
        pending.labels.add(bound.label)
        pending.keep.append(bound)
        pending.dispatches += bound.n_dispatches
        now = pending.dispatches >= tuning.BATCH_DISPATCHES
        if large:
            # the first large call since the last wait starts the GPU at once; later ones
            # (the GPU is then busy with it) share submissions, BATCH_LARGE_CALLS to one
            pending.large += 1
            device._large_streak += 1
            now |= device._large_streak == 1 or pending.large >= tuning.BATCH_LARGE_CALLS
        if now:
            flush(device)


class Batch:
    """The open compute pass of a device's batched calls."""

    __slots__ = ("encoder", "cpass", "dispatches", "large", "labels", "pipeline", "keep")

    def __init__(self, encoder, cpass):
        self.encoder, self.cpass, self.dispatches, self.labels = encoder, cpass, 0, set()
        self.large = 0  # large calls in it
        self.pipeline = None  # the pass's current pipeline (not set again for the next call)
        self.keep = []  # the encoded Bounds: their bind groups live until the submission


def flush(device) -> None:
    """Submit the device's batched calls, if any."""
    with device.lock:
        pending = device._pending
        if pending is None:
            return
        device._pending = None
        try:
            pending.cpass.end()
            device.device.queue.submit([pending.encoder.finish()])
        except Exception as e:
            raise device.error(e, f"submitting {', '.join(sorted(pending.labels))}") from e


def encode_and_submit(device, bounds, timestamp_writes=None, after=None) -> None:
    """Encode the Bounds in one compute pass of one command buffer and submit it, after the
    batched calls; `after(encoder)` may add commands after the pass (query resolution)."""
    try:
        with device.lock:
            flush(device)
            encoder = device.device.create_command_encoder()
            cpass = encoder.begin_compute_pass(timestamp_writes=timestamp_writes)
            for b in bounds:
                b.encode(cpass, device.encode_commands)
            cpass.end()
            if after is not None:
                after(encoder)
            device.device.queue.submit([encoder.finish()])
    except Exception as e:
        names = ", ".join(sorted({b.label for b in bounds}))
        raise device.error(e, f"submitting {names}") from e


def record(device, encoder, bounds) -> None:
    """Encode the Bounds into the caller's command encoder (a compute pass of its own) or
    into the caller's open compute pass; nothing is submitted."""
    # the C functions only for the device's own implementation's objects (a foreign
    # encoder goes through its wgpu-py methods, which reject it with an error, not a crash)
    same = type(encoder).__module__ == type(device.device).__module__
    encode = device.encode_commands if same else encode_commands
    try:
        with device.lock:
            flush(device)  # the batched calls run first: the caller submits later
            if hasattr(encoder, "begin_compute_pass"):
                cpass = encoder.begin_compute_pass()
                for b in bounds:
                    b.encode(cpass, encode)
                cpass.end()
            elif hasattr(encoder, "dispatch_workgroups"):
                for b in bounds:
                    b.encode(encoder, encode)
            else:
                raise TypeError(f"encoder: {type(encoder).__name__} is neither a "
                                "GPUCommandEncoder nor a GPUComputePassEncoder")
    except TypeError:
        raise
    except Exception as e:
        names = ", ".join(sorted({b.label for b in bounds}))
        raise device.error(e, f"recording {names}") from e


class GpuTimer:
    """Times whole submissions with timestamp queries (needs the timestamp-query feature)."""

    def __init__(self, device):
        if "timestamp-query" not in device.features:
            raise RuntimeError("the device has no timestamp-query feature")
        self.device = device
        w = device.wgpu
        self.query_set = device.device.create_query_set(type=w.QueryType.timestamp, count=2)
        self.resolve = device.device.create_buffer(
            size=16, usage=w.BufferUsage.QUERY_RESOLVE | w.BufferUsage.COPY_SRC)

    def run(self, work) -> float:
        """Run the recorded calls once (Bounds, (Bound, holds) pairs, or a list of Launch
        to bind first); returns GPU seconds between the pass's start and end."""
        dev = self.device
        work = list(work)
        if work and isinstance(work[0], Launch):
            bounds = [bind(dev, work, "timed launches")]
        else:
            bounds = [w[0] if isinstance(w, tuple) else w for w in work]
        encode_and_submit(
            dev, bounds, timestamp_writes={"query_set": self.query_set,
                                           "beginning_of_pass_write_index": 0,
                                           "end_of_pass_write_index": 1},
            after=lambda enc: enc.resolve_query_set(self.query_set, 0, 2, self.resolve, 0))
        t = dev.download(self.resolve, 0, 16).view(np.uint64)
        return float(int(t[1]) - int(t[0])) * 1e-9
