"""Encodes planned launches into one compute pass and submits them.

One of three modules (with `device` and `pipelines`) that touch wgpu. Dispatches inside
one compute pass are ordered, and each sees the writes of the ones before it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import numpy as np

from . import codegen
from .errors import DmlgpuError

_GROUPS_X = codegen._OFFSETS["groups_x"][0]


@dataclass
class Launch:
    pipeline: object
    layout: object
    resources: list  # (buffer, offset, size) for bindings 1..n
    params: np.ndarray  # the uniform block; groups_x is filled in here
    n_groups: int


def grid(n_groups: int, max_per_dim: int) -> tuple[int, int]:
    """Workgroup grid for n_groups (past the per-dimension limit, a second dimension)."""
    if n_groups <= max_per_dim:
        return n_groups, 1
    y = -(-n_groups // max_per_dim)
    if y > max_per_dim:
        raise ValueError(f"{n_groups} workgroups exceed the device's grid "
                         f"({max_per_dim} x {max_per_dim})")
    return max_per_dim, y


def encode(device, encoder, launches: list[Launch], timestamp_writes=None) -> list:
    """Record the launches in one compute pass; returns the pool buffers it took (the
    uniforms), to give back with device.recycle once the encoder's work is submitted."""
    gpu = device.device
    live = [ln for ln in launches if ln.n_groups]
    grids = [grid(ln.n_groups, device.max_workgroups) for ln in live]  # checked before any
    for ln, (gx, _) in zip(live, grids, strict=True):  # allocation
        ln.params[_GROUPS_X] = gx
    ubuf, slot = device.uniforms([ln.params for ln in live]) if live else (None, 0)
    try:
        cpass = encoder.begin_compute_pass(timestamp_writes=timestamp_writes)
        for i, (ln, (gx, gy)) in enumerate(zip(live, grids, strict=True)):
            entries = [{"binding": 0, "resource": {"buffer": ubuf, "offset": i * slot,
                                                   "size": ln.params.nbytes}}]
            for b, (buf, off, size) in enumerate(ln.resources, 1):
                entries.append({"binding": b,
                                "resource": {"buffer": buf, "offset": off, "size": size}})
            group = gpu.create_bind_group(layout=ln.layout, entries=entries)
            cpass.set_pipeline(ln.pipeline)
            cpass.set_bind_group(0, group)
            cpass.dispatch_workgroups(gx, gy, 1)
        cpass.end()
    except BaseException:
        device.recycle([ubuf])
        raise
    return [ubuf]


def _raise_gpu_error(device, launches, e: Exception):
    """Errors of our own checks pass through; anything the WebGPU implementation raises
    while encoding or submitting (validation, out of memory, a lost device) becomes a
    DmlgpuError that names the kernels."""
    if isinstance(e, (ValueError, TypeError, DmlgpuError)):
        raise e
    names = sorted({getattr(ln.pipeline, "label", "") or "?" for ln in launches})
    raise DmlgpuError(f"submitting {len(launches)} dispatch(es) of {', '.join(names)} failed "
                      f"on {device.implementation} (the device may be lost): "
                      f"{type(e).__name__}: {e}") from e


_recorders: list[list] = []


@contextlib.contextmanager
def recording():
    """Collects the launches of every run() inside the block (they still run), so that a
    benchmark can resubmit an operator's work under a timer whatever its signature."""
    subs: list[list[Launch]] = []
    _recorders.append(subs)
    try:
        yield subs
    finally:
        _recorders.remove(subs)


def run(device, launches: list[Launch]) -> None:
    """Submit the launches; results stay on the GPU."""
    launches = list(launches)
    for rec in list(_recorders):  # another thread may leave its block meanwhile
        rec.append(launches)
    used = []
    try:
        with device.lock:
            encoder = device.device.create_command_encoder()
            used = encode(device, encoder, launches)
            device.device.queue.submit([encoder.finish()])
    except Exception as e:
        _raise_gpu_error(device, launches, e)
    finally:
        device.recycle(used)  # queued: later uses are ordered after this submission


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

    def run(self, launches: list[Launch]) -> float:
        """Run the launches once; returns GPU seconds between the pass's start and end."""
        dev = self.device
        used = []
        try:
            with dev.lock:
                encoder = dev.device.create_command_encoder()
                used = encode(dev, encoder, launches, timestamp_writes={
                    "query_set": self.query_set, "beginning_of_pass_write_index": 0,
                    "end_of_pass_write_index": 1})
                encoder.resolve_query_set(self.query_set, 0, 2, self.resolve, 0)
                dev.device.queue.submit([encoder.finish()])
                t = np.frombuffer(dev.device.queue.read_buffer(self.resolve, 0, 16), np.uint64)
        except Exception as e:
            _raise_gpu_error(dev, launches, e)
        finally:
            dev.recycle(used)
        return float(int(t[1]) - int(t[0])) * 1e-9
