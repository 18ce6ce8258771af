"""`dmlgpu bench`: argument parsing, case selection and the run of the suite."""

from __future__ import annotations

import argparse
import fnmatch
import os
import platform
import signal
import sys
from datetime import datetime, timezone

import numpy as np

import dmlgpu as dg

from . import clocks, report, surface
from .cases import CASES, Case
from .peers import NumpyPeer, OnnxFrontPeer, OrtPeer, TorchPeer
from .runner import HOST_GOAL_FACTOR, Runner, data_key
from .timing import Policy

SCHEMA = "dmlgpu-bench/1"
PEER_CLASSES = {"torch": TorchPeer, "onnxruntime": OrtPeer, "numpy": NumpyPeer,
                "onnx": OnnxFrontPeer}
PEERS = tuple(PEER_CLASSES)
# adapters that run on the CPU: full sizes would take minutes there
SOFTWARE_ADAPTERS = ("llvmpipe", "lavapipe", "swiftshader", "softpipe", "warp",
                     "microsoft basic render")
# (max repeats, seconds a measurement may take before it stops at 3 samples)
REPEATS = {"full": (30, 2.0), "quick": (10, 0.5)}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dmlgpu bench",
        description="Benchmark dmlgpu's operators: GPU time, bandwidth against a copy kernel, "
                    "host overhead, compile time, and peers (torch on CUDA, onnxruntime's "
                    "WebGPU provider, numpy) on the same data.")
    p.add_argument("patterns", nargs="*", metavar="CASE",
                   help="case names or glob patterns (e.g. 'argmax/*', '*/rows/*', "
                        "'*f16'); an operator's name selects its cases; default: all")
    size = p.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true",
                      help="small sizes (the default on a CPU adapter such as lavapipe)")
    size.add_argument("--full", action="store_true",
                      help="full sizes even on a CPU adapter")
    p.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    p.add_argument("--plot", metavar="FILE.png",
                   help="draw each case's bandwidth as a fraction of the copy kernel's "
                        "(needs matplotlib: pip install 'dmlgpu[plot]')")
    p.add_argument("--webgpu", choices=("wgpu", "dawn"), type=str.lower,
                   help="WebGPU implementation (default: $DMLGPU_WEBGPU, else wgpu)")
    p.add_argument("--adapter", metavar="NAME",
                   help="adapter whose name contains NAME (default: $DMLGPU_ADAPTER)")
    p.add_argument("--timer", choices=("auto", "timestamp", "wall"), default="auto",
                   help="GPU time from timestamp queries, or wall time around submit + "
                        "readback (auto: timestamps when the adapter has them)")
    p.add_argument("--peers", default=",".join(PEERS), metavar="LIST",
                   help=f"peers to compare with, comma-separated from {', '.join(PEERS)}, "
                        "or 'none' (default: all; a peer that is not installed is skipped)")
    p.add_argument("--repeats", type=int, metavar="N",
                   help="at most N timed repeats per figure (default 30, quick 10)")
    p.add_argument("--warmup", type=int, default=3, metavar="N",
                   help="untimed runs before timing (default 3)")
    p.add_argument("--warmup-seconds", type=float, default=None, metavar="S",
                   help="warm up for at least S seconds too (default 0.3 on full sizes, "
                        "0 on quick ones): GPU clocks ramp after uploads and idle time")
    p.add_argument("--runs-per-pass", type=int, default=1, metavar="N",
                   help="with timestamp queries: each timed pass runs the work N times back "
                        "to back, a sample its time over N (default 1: the pass's own fixed "
                        "cost, e.g. Dawn's, in every sample)")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("--surface", action="store_true",
                   help="sweep the shape grids of every operator instead of the cases "
                        "(bench/surface.py); --plot F.png writes F-<op>-<dtype>.png heatmaps")
    p.add_argument("--grids", default=",".join(surface.GRIDS), metavar="LIST",
                   help="with --surface: the grids to sweep (default: all of "
                        f"{','.join(surface.GRIDS)}; rows: ArgMax over rows of lengths that are "
                        "no power of two, reported without a goal)")
    p.add_argument("--dtypes", default="", metavar="LIST",
                   help="with --surface: only these dtypes of each grid (default: all), "
                        "e.g. to split a run across time limits")
    return p


def select(patterns) -> tuple[list[Case], list[str]]:
    """(the cases any pattern matches, in registry order; the patterns matching none)."""
    if not patterns:
        return list(CASES), []

    def hit(name, pat):
        return name == pat or name.startswith(pat + "/") or fnmatch.fnmatchcase(name, pat)

    unmatched = [p for p in patterns if not any(hit(c.name, p) for c in CASES)]
    return [c for c in CASES if any(hit(c.name, p) for p in patterns)], unmatched


def _adapter_text(info: dict) -> str:
    """The adapter's name and vendor, lower case, to match names in."""
    return f"{info.get('adapter', '')} {info.get('vendor', '')}".lower()


def is_software(info: dict) -> bool:
    name = _adapter_text(info)
    return (str(info.get("adapter_type", "")).lower() == "cpu"
            or any(s in name for s in SOFTWARE_ADAPTERS))


def clock_note(info: dict, held: bool) -> str | None:
    """Why this run's GPU figures may read slow, or None: an NVIDIA GPU with no CUDA
    context in the process (`held`: clocks.hold made one), whose driver lowers its clocks
    between the bench's bursts of work (see bench/clocks.py)."""
    if "nvidia" not in _adapter_text(info) or held:
        return None
    return ("an NVIDIA GPU with no CUDA context in this process (torch with CUDA would hold "
            "one): its driver lowers the clocks between this bench's bursts of work, and GPU "
            "times can read up to 3x slow")


def _fail(msg: str) -> int:
    print(f"dmlgpu bench: {msg}", file=sys.stderr)
    return 2


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    cases, unmatched = select(args.patterns)
    if unmatched:
        return _fail(f"no case matches {', '.join(map(repr, unmatched))} (cases: "
                     f"{', '.join(c.name for c in CASES)})")
    if args.list:
        for c in cases:
            print(c.name)
        return 0
    if args.plot and (msg := report.check_plot_available()):
        return _fail(msg)
    peer_names = [] if args.peers.strip() == "none" else [
        p.strip() for p in args.peers.split(",") if p.strip()]
    if bad := [p for p in peer_names if p not in PEERS]:
        return _fail(f"--peers: {', '.join(bad)} is not a peer (allowed: "
                     f"{', '.join(PEERS)}, or none)")
    if args.repeats is not None and args.repeats < 1:
        return _fail(f"--repeats: {args.repeats} should be at least 1")
    if args.warmup < 0:
        return _fail(f"--warmup: {args.warmup} should be at least 0")

    try:
        dev = dg.Device(webgpu=args.webgpu, adapter=args.adapter)
    except (ValueError, TypeError, ImportError, dg.DmlgpuError) as e:
        return _fail(str(e))
    info = dev.info
    if args.quick or args.full:
        quick = args.quick
        reason = "--quick" if quick else "--full"
    else:
        quick = is_software(info)
        reason = ("CPU adapter: --full to override" if quick else "GPU adapter")
    has_ts = "timestamp-query" in dev.features
    if args.timer == "timestamp" and not has_ts:
        return _fail("--timer timestamp: the adapter has no timestamp-query feature")
    timer = "timestamp-query" if args.timer != "wall" and has_ts else "wall"
    timer_note = ("GPU time from timestamp queries around the compute pass" +
                  (f", {args.runs_per_pass} runs of the work a pass (its time over them)"
                   if args.runs_per_pass > 1 else "")
                  if timer == "timestamp-query" else
                  "WALL time around submit + readback (" +
                  ("--timer wall" if args.timer == "wall" else
                   "the adapter has no timestamp-query") + "), host work included")
    max_repeats, budget = REPEATS["quick" if quick else "full"]
    repeats = args.repeats or max_repeats

    progress = report.Progress(len(cases))
    progress.note(f"dmlgpu bench: {info['adapter']} ({info['backend']}) via "
                  f"{info['implementation']}; {'quick' if quick else 'full'} sizes "
                  f"({reason}); {timer_note}")
    warmup_s = args.warmup_seconds if args.warmup_seconds is not None else (0.0 if quick else 0.3)
    policy = Policy(args.warmup, repeats, budget, warmup_s)
    peers = [PEER_CLASSES[name](policy) for name in peer_names]
    for p in peers:
        if p.info["status"] != "ok":
            progress.note(f"{p.name}: skipped: {p.info['reason']}")
    if args.runs_per_pass < 1:
        return _fail(f"--runs-per-pass: {args.runs_per_pass}; allowed: 1 or more")
    clock = clock_note(info, clocks.hold() is not None)
    if clock:
        progress.note(f"dmlgpu bench: note: {clock}")
    runner = Runner(dev, quick=quick, timer=timer, policy=policy, peers=peers,
                    progress=progress, runs_per_pass=args.runs_per_pass)
    if args.surface:
        return _surface(args, dev, runner, progress, peers, quick, reason, timer_note,
                        clock)
    # cases on the same input run one after the other (one upload, one input held at a
    # time); the records keep the registry's order
    first = {}
    for i, c in enumerate(cases):
        first.setdefault(data_key(c, quick), i)
    records = [None] * len(cases)
    for i in sorted(range(len(cases)), key=lambda i: (first[data_key(cases[i], quick)], i)):
        progress.start(cases[i].name)
        records[i] = runner.run_case(cases[i])
        progress.done(records[i])
    runner.release_data()
    # host goals: HOST_GOAL_FACTOR x the least bare dispatch of the run x the dispatches
    bare = runner.bare_dispatch()
    for r in records:
        if r.get("status") == "ok":
            r["host_goal_s"] = HOST_GOAL_FACTOR * bare["host_s_min"] * r["dispatches"]
            r["host_cpu_goal_s"] = HOST_GOAL_FACTOR * bare["cpu_s_min"] * r["dispatches"]

    result = {
        "schema": SCHEMA,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "command": ["dmlgpu", "bench", *(sys.argv[2:] if argv is None else argv)],
        "implementation": info["implementation"],
        "device": info,
        "versions": _versions(dev, peers),
        "environment": {k: v for k, v in sorted(os.environ.items()) if k.startswith("DMLGPU_")},
        "sizes": "quick" if quick else "full",
        "sizes_reason": reason,
        "timer": timer,
        "timer_note": timer_note,
        "clock_note": clock,
        "runs_per_pass": runner.runs_per_pass,
        "timestamp_quantum_s": runner.quantum_ns * 1e-9 if runner.quantum_ns else None,
        "warmup": args.warmup,
        "warmup_seconds": warmup_s,
        "max_repeats": repeats,
        "copy": [runner.copies[k] for k in sorted(runner.copies)],
        "bare_dispatch": bare,
        "peers": {p.name: p.info for p in peers},
        "cases": records,
        "summary": {"cases": len(records),
                    "ok": sum(r["status"] == "ok" for r in records),
                    "wrong": sum(r["status"] == "wrong" for r in records),
                    "error": sum(r["status"] == "error" for r in records)},
    }
    print(report.table(result))
    if args.json:
        report.write_json(result, args.json)
        progress.note(f"wrote {args.json}")
    if args.plot:
        report.plot(result, args.plot)
        progress.note(f"wrote {args.plot}")
    failed = [r["name"] for r in records if r["status"] != "ok"]
    if failed:
        progress.note(f"dmlgpu bench: {len(failed)} case(s) failed: {', '.join(failed)}")
    return 1 if failed else 0


def _surface(args, dev, runner, progress, peers, quick, reason, timer_note, clock) -> int:
    torch_peer = next((p for p in peers if p.name == "torch" and p.torch is not None), None)
    # hundreds of points: a lighter policy than the cases' (the median of 5 after 2)
    runner.policy = Policy(2, 5, 0.05, 0.0)
    sweep = surface.Surface(runner, quick, progress, torch_peer.torch if torch_peer else None)
    grids = [g.strip() for g in args.grids.split(",") if g.strip()]
    if bad := [g for g in grids if g not in surface.GRIDS]:
        return _fail(f"--grids: {', '.join(bad)} is not a grid (allowed: "
                     f"{', '.join(surface.GRIDS)})")
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()] or None
    known = {d for g in grids for d in surface.GRID_DTYPES[g]}
    if bad := [d for d in dtypes or () if d not in known]:
        return _fail(f"--dtypes: {', '.join(bad)} is not a dtype of the grids "
                     f"{', '.join(grids)} (allowed: {', '.join(sorted(known))})")
    # (a run stopped by SIGTERM, as `timeout` sends, still writes the points it has)
    def stop(signum, frame):
        raise surface.Stopped(f"stopped by signal {signum}")

    old = signal.signal(signal.SIGTERM, stop)
    try:
        res = sweep.run(grids, dtypes)
    finally:
        signal.signal(signal.SIGTERM, old)
    info = dev.info
    res.update(schema=SCHEMA, kind="surface", implementation=info["implementation"],
               device=info, sizes="quick" if quick else "full", sizes_reason=reason,
               timer_note=timer_note, clock_note=clock, runs_per_pass=runner.runs_per_pass,
               versions=_versions(dev, peers),
               timestamp=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    print(surface.report(res))
    if args.json:
        report.write_json(res, args.json)
        progress.note(f"wrote {args.json}")
    if args.plot:
        for path in surface.plot(res, args.plot):
            progress.note(f"wrote {path}")
    bad = [p for p in res["points"] if p["status"] != "ok"]
    if bad:
        progress.note(f"dmlgpu bench --surface: {len(bad)} point(s) failed")
    if "partial" in res:
        progress.note(f"dmlgpu bench --surface: {res['partial']}: the grids are partial")
    return 1 if bad or "partial" in res else 0


def _versions(dev, peers) -> dict:
    import jinja2

    v = {"dmlgpu": dg.__version__, "python": platform.python_version(),
         "numpy": np.__version__, "jinja2": jinja2.__version__,
         dev.wgpu.__name__: getattr(dev.wgpu, "__version__", "?"),
         "platform": platform.platform()}
    for p in peers:
        if p.name != "numpy" and p.info.get("status") == "ok":
            v[p.name] = p.info["version"]
    return v
