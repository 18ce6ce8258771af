"""GPU time of each dispatch of Hardmax and ArgMax calls over non-trailing axes (or of
NonZero's passes), beside the whole call and a copy of the input's bytes (timestamp
queries, one dispatch at a time).

`python -m bench.steps IMPL [--quick] [--nonzero]`: shows which pass of a multi-dispatch
plan takes the time (it found Hardmax's zero fill at half a copy's write rate:
tuning.FILL_WORDS).
"""

from __future__ import annotations

import sys

import numpy as np

import dmlgpu as dg
from dmlgpu.runtime import dispatch

from . import report
from .runner import Runner
from .timing import Policy


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


def nonzero(impl: str, quick: bool) -> None:
    dev = dg.Device(webgpu=impl)
    runner = Runner(dev, quick=quick, timer=timer_kind(dev), policy=Policy(3, 10, 1.0, 0.1),
                    peers=[], progress=report.Progress(1))
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


def main(impl: str, quick: bool) -> None:
    dev = dg.Device(webgpu=impl)
    runner = Runner(dev, quick=quick, timer=timer_kind(dev), policy=Policy(3, 10, 1.0, 0.1),
                    peers=[], progress=report.Progress(1))
    shape = (64, 32, 64) if quick else (512, 256, 512)
    for dtype in ("float32", "float16"):
        host = np.random.default_rng(0).standard_normal(shape).astype(dtype)
        x = dg.asarray(host, device=dev)
        copy = runner.copy(host.nbytes)
        t_copy = copy["gpu_s"] * host.nbytes / copy["bytes_copied"]
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
    (nonzero if "--nonzero" in sys.argv[2:] else main)(sys.argv[1], "--quick" in sys.argv[2:])
