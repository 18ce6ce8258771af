"""GPU time of each dispatch of Hardmax and ArgMax calls over non-trailing axes (or of
NonZero's passes), beside the whole call and a copy of the input's bytes (timestamp
queries, one dispatch at a time).

`python -m bench.steps IMPL [--quick] [--nonzero]`: shows which pass of a multi-dispatch
plan takes the time (it found Hardmax's zero fill at half a copy's write rate:
tuning.FILL_WORDS). `python -m bench.steps IMPL --arg POINTS`: ArgMax at the given points,
POINTS a JSON list of [dtype, shape, axes], with the plan's strategy and the fraction of a
copy's bandwidth as the surface counts it; `--topk POINTS`: TopK, [dtype, shape, axis, k].
"""

from __future__ import annotations

import json
import sys

import numpy as np

import dmlgpu as dg
from dmlgpu.runtime import dispatch

from . import clocks, report
from .runner import Runner
from .timing import Policy

torch = clocks.hold()  # (None: no torch on CUDA, our times only)


def timer_kind(dev) -> str:
    """Timestamp queries where the device has them, else wall time (submit + wait)."""
    return "timestamp-query" if "timestamp-query" in dev.features else "wall"


def _steps(runner, subs) -> tuple[float, list[float]]:
    """The whole call's GPU time and each of its dispatches'."""
    total = float(np.median(runner.gpu_samples([[b for b, _ in subs]])[0]))
    steps = []
    for b, _ in subs:
        for c in b.commands:
            one = dispatch.Bound([c], b.uniforms, b.refs, b.label)
            steps.append(float(np.median(runner.gpu_samples([[one]])[0])))
    return total, steps


def _setup(impl: str, quick: bool = False):
    """A device of the implementation and a runner timing one dispatch at a time."""
    dev = dg.Device(webgpu=impl)
    return dev, Runner(dev, quick=quick, timer=timer_kind(dev),
                       policy=Policy(3, 10, 1.0, 0.1), peers=[], progress=report.Progress(1))


def _copy_time(runner, nbytes: int) -> float:
    """Seconds the copy kernel takes for nbytes (its bandwidth at that size)."""
    copy = runner.copy(nbytes)
    return copy["gpu_s"] * nbytes / copy["bytes_copied"]


def nonzero(impl: str, quick: bool) -> None:
    dev, runner = _setup(impl, quick)
    n_log2 = 12 if quick else 24
    rng = np.random.default_rng(0)
    for dtype in ("float16", "float32", "uint8", "int64"):
        copy = runner.copy((1 << n_log2) * np.dtype(dtype).itemsize)
        for density in (0.001, 0.1, 0.5, 1.0):
            for rank in (1, 2, 4):
                shape = tuple(1 << (n_log2 // rank + (i < n_log2 % rank)) for i in range(rank))
                host = (rng.random(shape) < density).astype(dtype)
                x = dg.asarray(host, device=dev)
                with dispatch.recording() as subs:
                    y = dg.nonzero_coordinates(x)
                total, steps = _steps(runner, subs)
                t_copy = copy["gpu_s"] * host.nbytes / copy["bytes_copied"]
                print(f"{impl} nonzero {dtype} density {density} rank {rank}: total "
                      f"{total * 1e3:.3f} ms ({total / t_copy:.1f}x a copy of the input); "
                      f"steps {' + '.join(f'{s * 1e3:.3f}' for s in steps)} ms", flush=True)
                del y, x


def arg_points(impl: str, points: list) -> None:
    dev, runner = _setup(impl)
    rng = np.random.default_rng(0)
    for dtype, shape, axes in points:
        shape, axes = tuple(shape), tuple(axes)
        n = int(np.prod(shape))
        if np.dtype(dtype).kind == "f":
            host = rng.standard_normal(n, dtype=np.float32).astype(dtype).reshape(shape)
        else:
            host = rng.integers(0, 256, n, dtype=np.int64).astype(dtype).reshape(shape)
        x = dg.asarray(host, device=dev)
        t_copy = _copy_time(runner, host.nbytes)
        with dispatch.recording() as subs:
            y = dg.argmax(x, axes)
        total, steps = _steps(runner, subs)
        op = dev.compile(dg.ArgMaxDesc(dg.TensorDesc(dtype, shape), dg.TensorDesc(
            "uint32", tuple(1 if i in axes else s for i, s in enumerate(shape))), axes))
        frac = (host.nbytes + y.nbytes) / total / (2 * host.nbytes / t_copy)
        print(f"{impl} argmax {dtype} {shape} {axes} {op.plan.notes.get('strategy')}: "
              f"total {total * 1e6:.1f} us = {100 * frac:.0f}% of copy (copy "
              f"{t_copy * 1e6:.1f} us); steps {' + '.join(f'{t * 1e6:.1f}' for t in steps)} us",
              flush=True)
        del y, x


def topk_points(impl: str, points: list) -> None:
    dev, runner = _setup(impl)
    rng = np.random.default_rng(0)
    for dtype, shape, axis, k in points:
        host = rng.standard_normal(int(np.prod(shape)), dtype=np.float32).astype(dtype)
        x = dg.asarray(host.reshape(shape), device=dev)
        t_copy = _copy_time(runner, host.nbytes)
        with dispatch.recording() as subs:
            outs = dg.top_k(x, k, axis)
        total, steps = _steps(runner, subs)
        names = [getattr(c[0], "label", "") or "?" for b, _ in subs for c in b.commands]
        print(f"{impl} topk {dtype} {tuple(shape)} axis {axis} k {k}: total {total * 1e6:.1f} us "
              f"= {total / t_copy:.2f}x copy; steps {' + '.join(f'{t * 1e6:.1f}' for t in steps)}"
              f" us {names}", flush=True)
        del outs, x


def main(impl: str, quick: bool) -> None:
    dev, runner = _setup(impl, quick)
    shape = (64, 32, 64) if quick else (512, 256, 512)
    for dtype in ("float32", "float16"):
        host = np.random.default_rng(0).standard_normal(shape).astype(dtype)
        x = dg.asarray(host, device=dev)
        t_copy = _copy_time(runner, host.nbytes)
        for name, fn in (("hardmax", dg.hardmax), ("argmax", dg.argmax)):
            for axes in ((0,), (1,), (0, 2), (0, 1)):
                with dispatch.recording() as subs:
                    y = fn(x, axes)
                total, steps = _steps(runner, subs)
                print(f"{impl} {dtype} {name:8s} {axes!s:8s} total {total * 1e3:.3f} ms = "
                      f"{total / t_copy:.2f}x copy; steps "
                      f"{' + '.join(f'{s * 1e3:.3f}' for s in steps)} ms", flush=True)
                del y


if __name__ == "__main__":
    if "--topk" in sys.argv[2:]:
        topk_points(sys.argv[1], json.loads(sys.argv[sys.argv.index("--topk") + 1]))
        sys.exit()
    if "--arg" in sys.argv[2:]:
        arg_points(sys.argv[1], json.loads(sys.argv[sys.argv.index("--arg") + 1]))
        sys.exit()
    (nonzero if "--nonzero" in sys.argv[2:] else main)(sys.argv[1], "--quick" in sys.argv[2:])
