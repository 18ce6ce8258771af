"""Measuring one case: data, first call (compile), correctness, GPU time, host overhead,
the copy kernel of the same size, and the peers."""

from __future__ import annotations

import gc
import math
import time
import traceback

import numpy as np

import dmlgpu as dg
from dmlgpu import codegen
from dmlgpu.runtime import dispatch

from .cases import OPS, Case, exact
from .timing import Policy

COPY_TEMPLATE = "copy.wgsl.j2"
COPY_WG = 256  # threads per workgroup of the copy kernel, as the reductions use
SEED = 20240
# Timestamps whose every sample is a multiple of this many ns are quantized (an unquantized
# timer gives nanoseconds that share no such factor).
MIN_QUANTUM_NS = 1000
MAX_RUNS_PER_PASS = 64
# "loop": N back-to-back calls with results dropped, then one wait; N fills this budget
LOOP_BUDGET_S = 0.25
LOOP_MIN, LOOP_MAX = 3, 2000
# a call's host time goal: at most this many bare dispatches' host time per dispatch
HOST_GOAL_FACTOR = 1.3


def copy_bound(dev, src, dst, span: int, n_vec: int, label: str):
    """The copy kernel bound over bytes [0, span) of src and dst, copying n_vec 16-byte
    words (n_vec 1: one workgroup that does almost nothing, the bare dispatch)."""
    pipeline, layout = dev.pipelines.get(COPY_TEMPLATE, wg=COPY_WG)
    groups = -(-n_vec // COPY_WG)
    return dispatch.bind(dev, [dispatch.Launch(
        pipeline, layout, [(src, 0, span), (dst, 0, span)],
        codegen.pack_params(n_groups=groups, aux0=n_vec), groups)], label)


def submit_alone(gpu, bound) -> None:
    """`bound`'s dispatches in a compute pass and a command buffer of their own, submitted:
    what a bare dispatch costs the host."""
    encoder = gpu.create_command_encoder()
    cpass = encoder.begin_compute_pass()
    bound.encode(cpass)
    cpass.end()
    gpu.queue.submit([encoder.finish()])


def loop_calls(fn, sync, budget_s: float = LOOP_BUDGET_S) -> dict:
    """Per-call seconds of N back-to-back calls of fn (results dropped) and one wait:
    `loop_s` (issue + wait, over N), `issue_s` (the issuing alone, over N) and `issue_cpu_s`
    (the issuing thread's CPU time over N: host work, without the time a submission spends
    blocked behind a busy GPU). One timed call first sets N."""
    fn()
    sync()
    t0 = time.perf_counter()
    fn()
    sync()
    one = time.perf_counter() - t0
    n = max(LOOP_MIN, min(LOOP_MAX, int(budget_s / max(one, 1e-6))))
    c0, t0 = time.thread_time(), time.perf_counter()
    for _ in range(n):
        fn()
    t1, c1 = time.perf_counter(), time.thread_time()
    sync()
    t2 = time.perf_counter()
    return {"n": n, "loop_s": (t2 - t0) / n, "issue_s": (t1 - t0) / n,
            "issue_cpu_s": (c1 - c0) / n}


def best_loop(fn, sync, repeats: int = 3, budget_s: float = LOOP_BUDGET_S) -> dict:
    """loop_calls `repeats` times (budget_s shared among them), each figure the least of
    the repeats: the same statistic as the bare dispatch it is judged against (a single
    loop moves with the host's state by up to 2x between moments of one run)."""
    runs = [loop_calls(fn, sync, budget_s / repeats) for _ in range(repeats)]
    best = min(runs, key=lambda r: r["issue_s"])
    return dict(best, loop_s=min(r["loop_s"] for r in runs),
                issue_cpu_s=min(r["issue_cpu_s"] for r in runs))


class Data:
    """A case's input: the numpy array and its upload (and, lazily, the peers' copies).
    Cases with equal `key` share one Data; it is dropped before the next one is made."""

    def __init__(self, key, host: np.ndarray, x: dg.Tensor):
        self.key, self.host, self.x = key, host, x
        self._cache = {}

    def cached(self, name: str, make):
        if name not in self._cache:
            self._cache[name] = make()
        return self._cache[name]


def data_key(case: Case, quick: bool) -> tuple:
    """Cases with equal keys run on the same input."""
    return case.sizes(quick), case.dtype, case.data


def make_host(case: Case, quick: bool) -> np.ndarray:
    shape = case.sizes(quick)
    rng = np.random.default_rng(SEED)
    x = rng.standard_normal(shape, dtype=np.float32)
    if case.data.startswith("density="):
        x[rng.random(shape, dtype=np.float32) >= float(case.data.split("=", 1)[1])] = 0
    elif case.data != "normal":
        raise ValueError(f"case {case.name}: unknown data {case.data!r}")
    return x.astype(case.dtype, copy=False)


def _median(v) -> float:
    return float(np.median(v)) if len(v) else math.nan


class Runner:
    """Runs cases on one device; `timer` is "timestamp-query" or "wall"."""

    def __init__(self, dev, *, quick: bool, timer: str, policy: Policy, peers: list,
                 progress, runs_per_pass: int = 1):
        self.dev, self.quick, self.timer_kind, self.policy = dev, quick, timer, policy
        # timestamp-timed passes run the work this many times back to back (at least), each
        # sample the pass's time over the runs: a fixed cost of the timed pass itself (its
        # timestamps' placement, the first dispatch's start) spread over them
        self.runs_per_pass = max(1, int(runs_per_pass))
        self.peers = {p.name: p for p in peers}
        self.progress = progress
        self.gpu_timer = dispatch.GpuTimer(dev) if timer == "timestamp-query" else None
        self._sync_buffer = dev.create_buffer(4, what="sync")
        self.copies: dict[int, dict] = {}
        self.quantum_ns: int | None = None  # set when timestamps turn out quantized
        self._data: Data | None = None
        self._bare: dict | None = None
        self._bare_bound = None  # (Bound, its buffers) of the bare dispatch

    # -- primitives ----------------------------------------------------------------------
    def sync(self) -> None:
        """Wait for all submitted work (a 4-byte readback queues behind it)."""
        self.dev.download(self._sync_buffer, 0, 4)

    def bare_dispatch(self, fresh: bool = False) -> dict:
        """The host cost of one bare dispatch through this implementation: a loop of
        (command encoder, compute pass, pipeline, bind group, one workgroup, end, finish,
        submit) of a copy kernel bound once, as loop_calls measures a case. `fresh`:
        measure again now (each case does, beside its own loop: the figure moves with the
        host's state by up to 2x between moments of one run); the result holds this
        measurement and `host_s_min`, the least of the run so far, which the host goals use
        (the strictest reference)."""
        if self._bare is None or fresh:
            dev = self.dev
            if self._bare_bound is None:
                src = dev.create_buffer(4096, what="bare source")
                dst = dev.create_buffer(4096, what="bare destination")
                self._bare_bound = (copy_bound(dev, src, dst, 4096, 1, "bare dispatch"),
                                    src, dst)
            bound = self._bare_bound[0]
            gpu = dev.device

            def bare():
                submit_alone(gpu, bound)
            best = min((loop_calls(bare, self.sync, 0.1) for _ in range(3)),
                       key=lambda r: r["issue_s"])
            old = self._bare or {}
            self._bare = {"host_s": best["issue_s"],
                          "host_s_min": min(best["issue_s"], old.get("host_s_min", 1e9)),
                          "cpu_s": best["issue_cpu_s"],
                          "cpu_s_min": min(best["issue_cpu_s"], old.get("cpu_s_min", 1e9)),
                          "loop_s": best["loop_s"], "n": best["n"]}
        return self._bare

    def _run_once(self, submissions, runs: int, timestamps: bool) -> float:
        if timestamps:
            return sum(self.gpu_timer.run(s * runs) for s in submissions) / runs
        t0 = time.perf_counter()
        for s in submissions:
            dispatch.encode_and_submit(self.dev, s)
        self.sync()
        return time.perf_counter() - t0

    def _samples(self, submissions, runs: int = 1, timestamps: bool = False) -> list[float]:
        return self.policy.sample(lambda: self._run_once(submissions, runs, timestamps))

    def gpu_samples(self, submissions) -> tuple[list[float], int, str]:
        """(seconds per run of the submissions after warm-up, runs per timed pass, timer).

        Timestamp queries around each compute pass, or wall time around submit + readback.
        Each pass runs the work runs_per_pass times back to back (at least); where
        timestamps are quantized (Dawn's timestamp_quantization toggle rounds them to
        65.5 us) and a run is short against the quantum, each pass runs the work `runs`
        times back to back, so that the rounding stays below 1% of a sample.
        """
        if self.gpu_timer is None:
            return self._samples(submissions), 1, "wall"
        runs = self.runs_per_pass
        samples = self._samples(submissions, runs, True)
        quantum = math.gcd(*(round(v * 1e9) for v in samples))
        if not 0 < quantum < MIN_QUANTUM_NS:
            # a few samples may share a multiple of the quantum: the smallest gcd seen is
            # the best estimate of it
            if quantum and (self.quantum_ns is None or quantum < self.quantum_ns):
                self.quantum_ns = quantum
            quantum = self.quantum_ns or 0
            med = _median(samples)
            need = MAX_RUNS_PER_PASS if med <= 0 or not quantum else min(
                MAX_RUNS_PER_PASS, math.ceil(100 * quantum * 1e-9 / med))
            if need > runs:
                runs = need
                samples = self._samples(submissions, runs, True)
        if _median(samples) <= 0:  # the timer reads nothing: wall time rather than no figure
            return self._samples(submissions), 1, "wall (timestamps read 0)"
        return samples, runs, "timestamp-query"

    # -- the copy kernel -----------------------------------------------------------------
    def copy(self, nbytes: int) -> dict:
        """Bandwidth of a WGSL copy of `nbytes` (rounded to 16-byte words, capped at one
        storage binding), measured once per size."""
        dev = self.dev
        size = max(16 * COPY_WG, -(-int(nbytes) // 16) * 16)
        capped = None
        limit = min(dev.window_bytes, dev.max_buffer_size) // 16 * 16
        if size > limit:
            size, capped = limit, "max-storage-buffer-binding-size"
        if size in self.copies:
            return self.copies[size]
        self.progress.phase(f"copy {size / 2**20:.3g} MiB")
        words = np.arange(size // 4, dtype=np.uint32)
        src = dev.create_buffer(size, what="copy source")
        dst = dev.create_buffer(size, what="copy destination")
        dev.upload(src, words)
        c0 = dev.pipelines.compile_seconds
        bound = copy_bound(dev, src, dst, size, size // 16, "copy")
        samples, runs, timer = self.gpu_samples([[bound]])
        head = np.frombuffer(dev.download(dst, 0, 4096), np.uint32)
        tail = np.frombuffer(dev.download(dst, size - 4096, 4096), np.uint32)
        if not (np.array_equal(head, words[:1024]) and np.array_equal(tail, words[-1024:])):
            raise RuntimeError("the copy kernel did not copy its input: its bandwidth would "
                               "be meaningless")
        gpu_s = _median(samples)
        rec = {"bytes_copied": size, "bytes_moved": 2 * size, "gpu_s": gpu_s,
               "gb_per_s": 2 * size / gpu_s / 1e9, "samples": samples, "runs_per_pass": runs,
               "timer": timer,
               "compile_s": dev.pipelines.compile_seconds - c0, "capped_by": capped}
        self.copies[size] = rec
        del bound, src, dst, words
        gc.collect()
        return rec

    # -- data ----------------------------------------------------------------------------
    def data(self, case: Case) -> Data:
        key = data_key(case, self.quick)
        if self._data is not None and self._data.key == key:
            return self._data
        self.release_data()
        self.progress.phase("data")
        host = make_host(case, self.quick)
        self._data = Data(key, host, dg.asarray(host, device=self.dev))
        return self._data

    def release_data(self) -> None:
        self._data = None
        gc.collect()
        if "torch" in self.peers:
            self.peers["torch"].release()

    # -- one case ------------------------------------------------------------------------
    def run_case(self, case: Case) -> dict:
        op = OPS[case.op]
        shape = case.sizes(self.quick)
        rec = {"name": case.name, "op": case.op, "shape": list(shape), "dtype": case.dtype,
               "params": dict(case.params), "data": case.data, "status": "error",
               "correct": False, "error": None}
        try:
            self._measure(case, op, rec)
        except Exception as e:  # a case that breaks is reported; the suite goes on
            rec["status"] = "error"
            rec["error"] = f"{type(e).__name__}: {e}"
            rec["traceback"] = traceback.format_exc()
        return rec

    def _measure(self, case, op, rec) -> None:
        dev, p = self.dev, case.params
        data = self.data(case)
        x = data.x

        # first call: pipelines are built here (unless an earlier case built them)
        self.progress.phase("first call")
        c0, m0 = dev.pipelines.compile_seconds, dev.pipelines.misses
        t0 = time.perf_counter()
        with dispatch.recording() as subs:
            outs = op.call(x, **p)
        self.sync()
        rec["first_call_s"] = time.perf_counter() - t0
        rec["compile_s"] = dev.pipelines.compile_seconds - c0
        rec["pipelines_built"] = dev.pipelines.misses - m0
        rec["submissions"] = len(subs)
        rec["dispatches"] = sum(b.n_dispatches for b, _ in subs)
        if not subs:
            raise RuntimeError(f"{case.op} submitted no work through dmlgpu's dispatch.submit; "
                               "the benchmark cannot time it")

        self.progress.phase("check")
        t0 = time.perf_counter()
        expected = op.expected(data.host, **p)
        expected_s = time.perf_counter() - t0
        problem = (op.compare or exact)(outs, expected, **p)
        if problem:
            rec["status"] = "wrong"
            rec["error"] = f"wrong result: {problem}"
            self.progress.loud(f"{case.name}: WRONG RESULT: {problem}")
            return
        rec["correct"] = True
        del outs

        self.progress.phase("gpu")
        # one submission per recorded call (the holds keep its buffers to it meanwhile)
        gpu, runs, timer = self.gpu_samples([[b] for b, _ in subs])
        del subs
        rec["gpu_s"] = _median(gpu)
        rec["gpu_s_min"] = float(min(gpu))
        rec["gpu_samples"] = gpu
        rec["runs_per_pass"] = runs
        rec["timer"] = timer

        self.progress.phase("host")

        def call():
            t0 = time.perf_counter()
            outs = op.call(x, **p)
            t1 = time.perf_counter()
            self.sync()
            del outs
            return t1 - t0, time.perf_counter() - t0

        host, wall = (list(v) for v in zip(*self.policy.sample(call), strict=True))
        rec["host_call_s"] = _median(host)
        rec["wall_s"] = _median(wall)
        rec["host_samples"] = host
        rec["wall_samples"] = wall

        # what a user's loop sees: N calls, results dropped, one wait; buffers it creates
        self.progress.phase("loop")
        gc.collect()
        stats = getattr(dev, "memory_stats", None)
        m0 = stats() if stats else None
        lp = best_loop(lambda: op.call(x, **p), self.sync)
        rec["loop_s"], rec["loop_issue_s"], rec["loop_calls"] = lp["loop_s"], lp["issue_s"], lp["n"]
        rec["loop_issue_cpu_s"] = lp["issue_cpu_s"]
        if m0 is not None:
            rec["loop_buffers_created"] = stats()["misses"] - m0["misses"]
        bare = self.bare_dispatch(fresh=True)
        rec["bare_dispatch_s"] = bare["host_s"]  # measured beside this case (goals: cli.py)
        rec["bare_dispatch_cpu_s"] = bare["cpu_s"]

        written = (op.written or _nbytes)(expected, **p)
        rec["input_bytes"] = int(data.host.nbytes)
        rec["output_bytes"] = int(written)
        rec["bytes"] = int(data.host.nbytes + written)
        rec["gb_per_s"] = rec["bytes"] / rec["gpu_s"] / 1e9
        copy = self.copy(data.host.nbytes)
        rec["copy_bytes"] = copy["bytes_copied"]
        rec["copy_gb_per_s"] = copy["gb_per_s"]
        rec["copy_fraction"] = rec["gb_per_s"] / copy["gb_per_s"]
        rec["status"] = "ok"

        rec["peers"] = {}
        for name, peer in self.peers.items():
            if peer.info["status"] == "ok":
                self.progress.phase(name)
            try:
                r = peer.measure(op, data, p, expected, rec, expected_s)
            except Exception as e:  # a peer's failure is its own, not the case's
                r = {"status": "error", "reason": f"{type(e).__name__}: {e}"}
            rec["peers"][name] = r


def _nbytes(expected, **_) -> int:
    return sum(int(e.nbytes) for e in expected)
