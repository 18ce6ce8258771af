"""The implementations each case is compared with, in the same run on the same data:
torch on CUDA, onnxruntime's WebGPU execution provider and numpy on the CPU.

Each peer's measure(op, data, params, expected, ours, expected_s) gets the case's Op,
its Data, params, the numpy result and its seconds, and dmlgpu's record so far. A peer that
cannot run says why (`{"status": "skipped", "reason": ...}`) instead of failing the case;
every measured record names its method and which of dmlgpu's figures
its ratio divides (`versus`): ratio = peer seconds / dmlgpu seconds, above 1 when dmlgpu
is faster.
"""

from __future__ import annotations

import gc
import platform
import time

import numpy as np

from . import onnx_model
from .timing import Policy, wall

# Cycles of torch's sleep kernel queued before the start event: about 1 ms on an H100
# (1.98 GHz), longer than any case's host-side launch of its kernels.
BUSY_CYCLES = 2_000_000


def cuda_event_seconds(torch, fn) -> float:
    """One call of fn timed on the GPU by CUDA events around it (seconds). The GPU is kept
    busy by a sleep kernel while the host launches fn's kernels, so that the events time
    the device's work alone: on an idle GPU the start event fires at once and the span
    also holds the host's launch latency (H100: 6-25 us per call, e.g. argmax of 2^28
    float32 386 vs 363 us), which dmlgpu's timestamp queries, written inside a command
    buffer submitted whole, never include."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(BUSY_CYCLES)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop) * 1e-3


def skipped(reason: str) -> dict:
    return {"status": "skipped", "reason": reason}


def _record(samples, method: str, versus: str, ours: float | None, **extra) -> dict:
    s = float(np.median(samples))
    return dict(status="ok", seconds=s, samples=[float(v) for v in samples], method=method,
                versus=versus, ratio=(s / ours) if ours else None, **extra)


class NumpyPeer:
    """numpy on the CPU: the case's reference computation (Op.expected), timed."""

    name = "numpy"

    def __init__(self, policy: Policy):
        # at most 5: numpy on a full-size case takes a good part of a second
        self.policy = Policy(policy.warmup, min(5, policy.repeats), policy.budget_s)
        self.info = {"status": "ok", "version": np.__version__,
                     "device": platform.processor() or platform.machine()}

    def measure(self, op, data, params, expected, ours: dict, expected_s: float) -> dict:
        samples = self.policy.sample(wall(lambda: op.expected(data.host, **params)),
                                     first=expected_s)
        return _record(samples, "wall time of the numpy reference (Op.expected), median",
                       "wall_s", ours.get("wall_s"))


class TorchPeer:
    """torch on CUDA: the same work on a copy of the input in CUDA memory, timed with CUDA
    events (device time, like dmlgpu's gpu_s)."""

    name = "torch"

    def __init__(self, policy: Policy):
        self.policy = policy
        self.torch = None
        try:
            import torch
        except ImportError as e:
            self.info = skipped(f"torch is not importable ({e})")
            return
        if not torch.cuda.is_available():
            self.info = skipped(f"torch {torch.__version__} sees no CUDA device "
                                "(torch.cuda.is_available() is False)")
            return
        self.torch = torch
        # Create the CUDA context before any case is timed, not during the first one: on
        # the H200 the GPU ran the Vulkan work of every case before that moment in a slower
        # state (argmax over 2^28 float32: 1.10 ms; the same launches after it: 0.32 ms),
        # which would tilt the first cases against dmlgpu and the rest in its favour.
        torch.zeros(1, device="cuda").add_(1)
        torch.cuda.synchronize()
        self.info = {"status": "ok", "version": torch.__version__,
                     "device": torch.cuda.get_device_name()}

    def measure(self, op, data, params, expected, ours: dict, expected_s: float) -> dict:
        if self.torch is None:
            return skipped(self.info["reason"])
        if op.torch is None:
            return skipped("the operator has no torch equivalent in the case registry")
        torch = self.torch
        xt = data.cached("torch", lambda: torch.from_numpy(data.host).to("cuda"))
        fn = op.torch(torch, xt, **params)

        samples = self.policy.sample(lambda: cuda_event_seconds(torch, fn))
        result = _record(samples, "CUDA events around the call, GPU kept busy while it "
                         "is launched (no launch latency inside), median", "gpu_s",
                         ours.get("gpu_s"))
        # the user's view: N calls back to back, then torch.cuda.synchronize(), as dmlgpu's
        # loop_s is measured
        from .runner import best_loop  # noqa: PLC0415 - runner imports this module

        lp = best_loop(fn, torch.cuda.synchronize)
        result["loop_seconds"] = lp["loop_s"]
        result["loop_calls"] = lp["n"]
        ours_loop = ours.get("loop_s")
        result["loop_ratio"] = lp["loop_s"] / ours_loop if ours_loop else None
        return result

    def release(self) -> None:
        if self.torch is not None:
            self.torch.cuda.empty_cache()


class OrtPeer:
    """onnxruntime with the WebGPU execution provider: a one-node model whose input is an
    initializer (resident on the GPU), outputs downloaded by each run (onnxruntime does
    not wait for the GPU otherwise): compared with dmlgpu's wall_s (call + wait)."""

    name = "onnxruntime"

    def __init__(self, policy: Policy):
        self.policy = policy
        self.ort = None
        try:
            import onnxruntime as ort
        except ImportError as e:
            self.info = skipped(f"onnxruntime is not importable ({e}; the WebGPU build is "
                                "the package onnxruntime-webgpu)")
            return
        providers = ort.get_available_providers()
        if "WebGpuExecutionProvider" not in providers:
            self.info = skipped(f"onnxruntime {ort.__version__} has no "
                                f"WebGpuExecutionProvider (it has {', '.join(providers)})")
            return
        ort.set_default_logger_severity(4)  # a refused model is recorded, not logged
        self.ort = ort
        try:
            import onnx  # noqa: F401

            builder = "onnx.helper"
        except ImportError:
            builder = "dmlgpu.bench.onnx_model (onnx is not importable)"
        self.info = {"status": "ok", "version": ort.__version__,
                     "provider": "WebGpuExecutionProvider", "model_builder": builder}

    def measure(self, op, data, params, expected, ours: dict, expected_s: float) -> dict:
        if self.ort is None:
            return skipped(self.info["reason"])
        node = op.onnx(data.host.shape, data.host.dtype.name, **params) if op.onnx else None
        if node is None:
            return skipped("the operator has no ONNX equivalent in the case registry")
        ort = self.ort
        so = ort.SessionOptions()
        # a node the WebGPU EP lacks would silently run on the CPU: refuse instead
        so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        t0 = time.perf_counter()
        model = onnx_model.build(node, data.host)
        try:
            sess = ort.InferenceSession(model, so, providers=["WebGpuExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types
            return skipped(f"WebGpuExecutionProvider does not run {node.op_type} on "
                           f"{data.host.dtype.name}: {str(e).splitlines()[0][:300]}")
        finally:
            del model
        session_s = time.perf_counter() - t0
        rec = self._time(sess, expected, ours, session_s)
        del sess  # the model's copy of the input, on the GPU and the host
        gc.collect()
        return rec

    def _time(self, sess, expected, ours, session_s) -> dict:
        io = sess.io_binding()
        for o in sess.get_outputs():
            io.bind_output(o.name, "cpu")
        run = wall(lambda: sess.run_with_iobinding(io))
        warm = run()  # builds onnxruntime's shaders
        agrees = _agrees(io.copy_outputs_to_cpu(), expected)
        samples = self.policy.sample(run, first=run() if warm > self.policy.budget_s else None)
        return _record(samples, "wall time of run_with_iobinding (input resident, outputs "
                       "downloaded), median", "wall_s", ours.get("wall_s"),
                       session_s=session_s, agrees=agrees)


def _agrees(outputs, expected) -> bool | None:
    """Whether onnxruntime's outputs hold dmlgpu's expected values (None: not comparable)."""
    if len(outputs) != len(expected):
        return None
    for o, e in zip(outputs, expected, strict=True):
        o = np.asarray(o)
        if o.size != e.size:
            return None
        if not np.array_equal(o.reshape(e.shape).astype(e.dtype), e):
            return False
    return True


class OnnxFrontPeer:
    """The case's one-node ONNX model through dmlgpu.onnx and through onnxruntime's WebGPU
    execution provider, both host to host on the same data: the input fed from a numpy
    array each run, the outputs returned as numpy arrays. `seconds` is dmlgpu.onnx's,
    `ort_seconds` onnxruntime's, ratio = onnxruntime / dmlgpu.onnx."""

    name = "onnx"

    def __init__(self, policy: Policy):
        self.policy = policy
        self.ort = None
        try:
            import onnx  # noqa: F401

            from dmlgpu import onnx as donnx
        except ImportError as e:
            self.info = skipped(f"onnx is not importable ({e}; pip install 'dmlgpu[onnx]')")
            return
        self.donnx = donnx
        try:
            import onnxruntime as ort

            if "WebGpuExecutionProvider" in ort.get_available_providers():
                self.ort = ort
        except ImportError:
            pass
        self.info = {"status": "ok", "version": onnx.__version__,
                     "onnxruntime": self.ort.__version__ if self.ort else None}

    def measure(self, op, data, params, expected, ours: dict, expected_s: float) -> dict:
        if self.info.get("status") != "ok":
            return skipped(self.info["reason"])
        node = op.onnx(data.host.shape, data.host.dtype.name, **params) if op.onnx else None
        if node is None:
            return skipped("the operator has no ONNX equivalent in the case registry")
        model, x = onnx_model.build_io(node, data.host)
        rep = self.donnx.Backend.prepare(model, dmlgpu_device=data.x.device)
        out = rep.run([x])
        agrees = _agrees(list(out), expected)
        samples = self.policy.sample(wall(lambda: rep.run([x])))
        rec = _record(samples, "wall time of Backend.prepare(model).run([x]): upload, "
                      "compute, download", "wall_s", None, agrees=agrees)
        rec["ratio"] = None
        if self.ort is not None:
            so = self.ort.SessionOptions()
            so.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
            try:
                sess = self.ort.InferenceSession(model.SerializeToString(), so,
                                                 providers=["WebGpuExecutionProvider"])
                sess.run(None, {"x": x})
                ort_s = self.policy.sample(wall(lambda: sess.run(None, {"x": x})))
                rec["ort_seconds"] = float(np.median(ort_s))
                rec["ratio"] = rec["ort_seconds"] / rec["seconds"]
            except Exception as e:  # onnxruntime refuses the node on this EP
                rec["ort_skipped"] = str(e).splitlines()[0][:300]
        return rec
