"""Host cost of small operator calls four ways, beside torch: `python -m dmlgpu.bench.replay`.

Ten small calls (argmax over 8x150000, top-k 5 of 1000, hardmax 64x1000, ...) run as
(1) eager dmlgpu calls, and the same as compiled operators ("compiled"), (2) one captured
graph replayed (`dev.capture()`), (3) the compiled operators recorded by `op.record` into
the caller's open compute pass ("record"; also the time inside op.record alone) or into
the caller's command encoder, a pass each ("record_passes"), one encoder and one
submission per round, outputs allocated per call as eager calls do, (4) torch on CUDA
eagerly and (5) under a CUDA graph. Each figure is wall time per operator call of N
rounds issued back to back and one wait; `host` is the issuing alone. Then a soak: 10,000
mixed calls with results dropped, reporting buffers created after warm-up, RSS and the
allocator's bytes before and after.

Options: --webgpu, --adapter, --json FILE, --rounds N, --quick (fewer rounds and calls).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

import numpy as np

import dmlgpu as dg

from . import clocks


def _rss_mib() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return float("nan")


def _inputs(rng):
    return {
        "a": rng.standard_normal((8, 150000), dtype=np.float32),
        "b": rng.standard_normal((1, 1000), dtype=np.float32),
        "c": rng.standard_normal((64, 1000), dtype=np.float32),
        "d": rng.standard_normal((16, 4096), dtype=np.float32).astype(np.float16),
    }


# ten calls: (dmlgpu call on tensors, torch call on CUDA tensors)
CALLS = [
    (lambda t: dg.argmax(t["a"], 1), lambda t, torch: torch.argmax(t["a"], 1)),
    (lambda t: dg.top_k(t["b"], 5), lambda t, torch: torch.topk(t["b"], 5)),
    (lambda t: dg.hardmax(t["c"]), lambda t, torch: torch.zeros_like(t["c"]).scatter_(
        -1, torch.argmax(t["c"], -1, keepdim=True), 1)),
    (lambda t: dg.argmin(t["c"], 0), lambda t, torch: torch.argmin(t["c"], 0)),
    (lambda t: dg.top_k(t["d"], 8), lambda t, torch: torch.topk(t["d"], 8)),
    (lambda t: dg.argmax(t["d"], 1), lambda t, torch: torch.argmax(t["d"], 1)),
    (lambda t: dg.top_k(t["c"], 2), lambda t, torch: torch.topk(t["c"], 2)),
    (lambda t: dg.hardmax(t["d"]), lambda t, torch: torch.zeros_like(t["d"]).scatter_(
        -1, torch.argmax(t["d"], -1, keepdim=True), 1)),
    (lambda t: dg.argmax(t["b"], 1), lambda t, torch: torch.argmax(t["b"], 1)),
    (lambda t: dg.argmin(t["a"], 1), lambda t, torch: torch.argmin(t["a"], 1)),
]


# the descriptions of the same ten calls, from their input and eager outputs: (input, desc)
_D = dg.TensorDesc.of
DESCS = [
    ("a", lambda x, o: dg.ArgMaxDesc(_D(x), _D(o[0]), axes=(1,))),
    ("b", lambda x, o: dg.TopK1Desc(_D(x), _D(o[0]), _D(o[1]), axis=1, k=5)),
    ("c", lambda x, o: dg.Hardmax1Desc(_D(x), _D(o[0]), axes=(1,))),
    ("c", lambda x, o: dg.ArgMinDesc(_D(x), _D(o[0]), axes=(0,))),
    ("d", lambda x, o: dg.TopK1Desc(_D(x), _D(o[0]), _D(o[1]), axis=1, k=8)),
    ("d", lambda x, o: dg.ArgMaxDesc(_D(x), _D(o[0]), axes=(1,))),
    ("c", lambda x, o: dg.TopK1Desc(_D(x), _D(o[0]), _D(o[1]), axis=1, k=2)),
    ("d", lambda x, o: dg.Hardmax1Desc(_D(x), _D(o[0]), axes=(1,))),
    ("b", lambda x, o: dg.ArgMaxDesc(_D(x), _D(o[0]), axes=(1,))),
    ("a", lambda x, o: dg.ArgMinDesc(_D(x), _D(o[0]), axes=(1,))),
]


def timed(fn, sync, rounds: int) -> dict:
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(rounds):
        fn()
    t1 = time.perf_counter()
    sync()
    t2 = time.perf_counter()
    n = rounds * len(CALLS)
    return {"per_call_s": (t2 - t0) / n, "host_per_call_s": (t1 - t0) / n, "rounds": rounds}


def run(dev, rounds: int, soak_calls: int) -> dict:
    rng = np.random.default_rng(7)
    host = _inputs(rng)
    t = {k: dg.asarray(v, device=dev) for k, v in host.items()}
    res = {"device": dev.info["adapter"], "implementation": dev.implementation}

    def eager():
        for c, _ in CALLS:
            c(t)
    res["eager"] = timed(eager, dev.synchronize, rounds)
    with dev.capture() as graph:
        eager()
    res["replay"] = timed(graph.replay, dev.synchronize, rounds)
    res["replay"]["dispatches"] = graph.dispatches
    # recorded into the caller's encoder: the same calls as compiled operators
    ops = []
    for (c, _), (key, make) in zip(CALLS, DESCS, strict=True):
        outs = c(t)
        outs = outs if isinstance(outs, tuple) else (outs,)
        ops.append((dev.compile(make(t[key], outs)), [t[key]]))
    gpu = dev.device

    def compiled():  # the same compiled operators, called eagerly (the hot path)
        for op, xs in ops:
            op(xs)
    res["compiled"] = timed(compiled, dev.synchronize, rounds)
    inside = [0.0, 0]  # seconds inside op.record, calls

    def recorded():  # into the caller's open compute pass
        encoder = gpu.create_command_encoder()
        cpass = encoder.begin_compute_pass()
        t0 = time.perf_counter()
        recs = [op.record(cpass, xs) for op, xs in ops]
        inside[0] += time.perf_counter() - t0
        inside[1] += len(ops)
        cpass.end()
        gpu.queue.submit([encoder.finish()])
        return recs

    def recorded_passes():  # into the caller's encoder, a compute pass each
        encoder = gpu.create_command_encoder()
        recs = [op.record(encoder, xs) for op, xs in ops]
        gpu.queue.submit([encoder.finish()])
        return recs
    recorded()  # the first records bind; the figure is of the rounds after
    dev.synchronize()
    inside[:] = [0.0, 0]
    res["record"] = timed(recorded, dev.synchronize, rounds)
    # op.record alone, without the caller's encoder, pass, finish and submit (once a round
    # here; eager calls share a batch's submission among more calls)
    res["record"]["record_call_s"] = inside[0] / inside[1]
    res["record_passes"] = timed(recorded_passes, dev.synchronize, rounds)
    same = True
    for (c, _), rec in zip(CALLS, recorded(), strict=True):
        eager_outs = c(t)
        eager_outs = eager_outs if isinstance(eager_outs, tuple) else (eager_outs,)
        same &= all(np.array_equal(a.numpy(), b.numpy(), equal_nan=a.dtype.kind == "f")
                    for a, b in zip(rec.outputs, eager_outs, strict=True))
    res["record"]["same_as_eager"] = bool(same)
    # replays see new data
    for k, v in host.items():
        t[k].copy_(v[..., ::-1].copy())
    graph.replay()
    try:
        import torch

        if not torch.cuda.is_available():
            raise ImportError("no CUDA device")
    except ImportError as e:
        res["torch"] = {"status": "skipped", "reason": str(e)}
    else:
        tt = {k: torch.from_numpy(v).cuda() for k, v in host.items()}

        def teager():
            for _, c in CALLS:
                c(tt, torch)
        res["torch_eager"] = timed(teager, torch.cuda.synchronize, rounds)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                teager()
        torch.cuda.current_stream().wait_stream(stream)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            teager()
        res["torch_graph"] = timed(g.replay, torch.cuda.synchronize, rounds)
    # the soak: outputs dropped, nothing created after warm-up, memory flat
    calls = [c for c, _ in CALLS]
    for i in range(200):
        calls[i % len(calls)](t)
    dev.synchronize()
    gc.collect()
    m0, r0 = dev.memory_stats(), _rss_mib()
    t0 = time.perf_counter()
    for i in range(soak_calls):
        calls[i % len(calls)](t)
    dev.synchronize()
    gc.collect()
    m1, r1 = dev.memory_stats(), _rss_mib()
    res["soak"] = {"calls": soak_calls, "seconds": time.perf_counter() - t0,
                   "buffers_created": m1["misses"] - m0["misses"],
                   "allocated_bytes": [m0["allocated_bytes"], m1["allocated_bytes"]],
                   "cached_bytes": [m0["cached_bytes"], m1["cached_bytes"]],
                   "rss_mib": [r0, r1]}
    return res


def report(res: dict) -> str:
    lines = [f"dmlgpu replay: {res['device']} via {res['implementation']}, "
             f"{len(CALLS)} small calls per round"]
    for name in ("eager", "compiled", "replay", "record", "record_passes", "torch_eager",
                 "torch_graph"):
        r = res.get(name)
        if r:
            inside = (f"; inside op.record {r['record_call_s'] * 1e6:.1f} us"
                      if "record_call_s" in r else "")
            lines.append(f"  {name:13s} {r['per_call_s'] * 1e6:8.1f} us per call "
                         f"(host {r['host_per_call_s'] * 1e6:.1f} us{inside})")
    s = res["soak"]
    lines.append(f"  soak: {s['calls']} calls, {s['buffers_created']} buffers created after "
                 f"warm-up, allocated {s['allocated_bytes'][0]} -> {s['allocated_bytes'][1]} "
                 f"bytes, RSS {s['rss_mib'][0]:.1f} -> {s['rss_mib'][1]:.1f} MiB")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m dmlgpu.bench.replay", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--webgpu")
    p.add_argument("--adapter")
    p.add_argument("--json")
    p.add_argument("--rounds", type=int, default=None)
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    clocks.hold()  # (dmlgpu's figures are taken before torch's: the clocks up from the start)
    try:
        dev = dg.Device(webgpu=args.webgpu, adapter=args.adapter)
    except (ValueError, TypeError, dg.DmlgpuError) as e:
        print(f"dmlgpu: error: {e}", file=sys.stderr)
        return 2
    rounds = args.rounds or (5 if args.quick else 300)
    res = run(dev, rounds, 200 if args.quick else 10_000)
    print(report(res))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
