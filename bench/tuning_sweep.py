"""Surface points under several tunings, one device per tuning, torch in the same run: the
measurements behind tuning.py's TOPK_ROWS_CHUNK* numbers, the NONZERO_* sweep and the
ArgMax/ArgMin TILECOL_*, PACKED_ROW* and MERGE_UNROLL numbers.

    python -m bench.tuning_sweep IMPL OUT.json CONFIGS SPEC

CONFIGS: JSON [[name, {TUNING_NAME: value, ...}, optional SPEC overrides], ...]; where torch
has CUDA, a first pass under the first config, named "NAME (torch pass)", times torch too
(the configs' own points are taken without torch beside them). SPEC: JSON; TopK (the
default "grid"): {"dtypes": [...], "log_n": [...] or "ns": [...], "axes": [-1, 0], "ks":
[...], "elements": 2^26}: row length 2^log_n (or n), rows so that a point holds `elements`, as the
surface's TopK grid; NonZero: {"grid": "nonzero", "dtypes": [...], "densities": [...],
"ranks": [...], "log2": 24}; ArgMax/ArgMin: {"grid": "argreduce", "dtypes": [...],
"shapes": [...], "axes": [[0], [0, 2], ...] or "points": [[shape, axes], ...], "ops":
["argmax"], "check_every": 1}; Hardmax: {"grid": "hardmax", "dtypes": [...], "points":
[[shape, axes], ...]}; the rows grid: {"grid": "rows", "dtypes": [...], "lengths": [...],
"elements": 2^25, "ops": [...], "topk": false}; any spec may say "torch": false (no torch
pass) and "runs_per_pass": N (each timed pass runs the work N times, as `dmlgpu bench
--runs-per-pass`; a config's spec overrides may set it). Each point (bench.surface's
record, checked against numpy; TopK and ArgMax/ArgMin with the plan's notes) goes to
OUT.json, rewritten after each config.
"""
import json
import sys

import dmlgpu as dg
from dmlgpu import tuning

from . import clocks, report, surface
from .runner import Policy, Runner
from .steps import timer_kind

torch = clocks.hold()  # (None: no torch on CUDA, our times only)


def _int_keys(v):
    """JSON's string keys that are numbers as ints, at any depth (COL_VOUT's keys are bit
    widths, COL_REPS's under each implementation's name)."""
    if not isinstance(v, dict):
        return v
    return {int(a) if isinstance(a, str) and a.isdigit() else a: _int_keys(b)
            for a, b in v.items()}


def sweep(impl: str, configs: list, spec: dict, out: str | None = None) -> list[dict]:
    """Every config's points; written to `out` after each pass too (a run cut short keeps
    the passes it finished)."""
    defaults = {k: getattr(tuning, k) for _, c, *_ in configs for k in c}
    points = []
    # torch is timed in a pass of its own (the first configuration again, its points named
    # "NAME (torch pass)"): our figures taken beside torch's read up to 25% high at some
    # points (H100: 1.55 against 1.24 ms for the same code)
    passes = [(f"{configs[0][0]} (torch pass)", *configs[0][1:])] \
        if torch is not None and spec.get("torch", True) else []
    try:
        for ci, (name, cfg, *over) in enumerate(passes + list(configs)):
            sp = dict(spec, **(over[0] if over else {}))
            for k, v in {**defaults, **cfg}.items():
                setattr(tuning, k, _int_keys(v))
            dev = dg.Device(webgpu=impl)  # plans are cached per device: one per config
            prog = report.Progress(0)
            runner = Runner(dev, quick=False, timer=timer_kind(dev),
                            policy=Policy(2, 5, 0.05, 0.0), peers=[], progress=prog,
                            runs_per_pass=sp.get("runs_per_pass", 1))
            sf = surface.Surface(runner, False, prog, torch if ci < len(passes) else None)
            sf.tag = {"cfg": name}
            if sp.get("grid") == "argreduce":
                # "points": [[shape, axes], ...], else every "axes" set of every shape
                per_shape = {}
                for shape, axes in sp.get("points", []):
                    per_shape.setdefault(tuple(shape), []).append(list(axes))
                for shape, axes in (per_shape.items() or
                                    [(s, sp.get("axes")) for s in sp.get("shapes") or [None]]):
                    sf.argreduce([shape] if shape else None, sp["dtypes"],
                                 sp.get("ops", ("argmax",)), axes, sp.get("check_every", 1))
                for p in sf.points:
                    p["notes"] = _arg_notes(dev, p)
            elif sp.get("grid") == "hardmax":
                # "points": [[shape, axes], ...]
                for shape, axes in sp["points"]:
                    sf.hardmax([shape], sp["dtypes"], [list(axes)])
                for p in sf.points:
                    p["notes"] = _hardmax_notes(dev, p)
            elif sp.get("grid") == "rows":
                # the surface's rows grid: "lengths", "elements" (default its own), "ops",
                # "topk" (default false: ArgMax/ArgMin only)
                sf.rows(sp["dtypes"], sp.get("lengths"), tuple(sp.get("ops", ("argmax",))),
                        sp.get("elements"), sp.get("topk", False))
                for p in sf.points:
                    p["notes"] = _arg_notes(dev, p)
            elif sp.get("grid") == "nonzero":
                sf.nonzero(sp["dtypes"], sp["densities"], sp["ranks"], sp.get("log2", 24))
            else:
                sf.topk(sp["dtypes"], sp.get("log_n"), sp["axes"], ("decreasing",), sp["ks"],
                        sp.get("elements", 1 << 26), ns=sp.get("ns"))
                for p in sf.points:
                    p["notes"] = _topk_notes(dev, p)
            points += sf.points
            del sf, runner, dev
            if out:
                with open(out, "w") as f:
                    json.dump(points, f, indent=1)
    finally:
        for k, v in defaults.items():
            setattr(tuning, k, v)
    return points


def _scalar_notes(plan) -> dict:
    """A plan's notes that JSON keeps as they are (numbers, strings, flags)."""
    return {a: b for a, b in plan.notes.items() if isinstance(b, (int, str, bool, float))}


def _arg_notes(dev, p: dict) -> dict:
    """The plan notes of an ArgMax/ArgMin surface point's call."""
    shape, axes = tuple(p["shape"]), tuple(p["axes"])
    out = tuple(1 if i in axes else n for i, n in enumerate(shape))
    desc = dg.ArgMaxDesc if p["op"] == "argmax" else dg.ArgMinDesc
    op = dev.compile(desc(dg.TensorDesc(p["dtype"], shape), dg.TensorDesc("uint32", out), axes))
    return _scalar_notes(op.plan)


def _hardmax_notes(dev, p: dict) -> dict:
    """The plan notes of a Hardmax surface point's call, with its input pass's threads."""
    t = dg.TensorDesc(p["dtype"], tuple(p["shape"]))
    op = dev.compile(dg.Hardmax1Desc(t, t, tuple(p["axes"])))
    var = next(s for s in op.plan.steps if s.source == "input").variables
    return dict(_scalar_notes(op.plan), wg=var["wg"], tpr=var.get("tpr", 0),
                unroll=var.get("unroll", 0))


def _topk_notes(dev, p: dict) -> dict:
    """The plan notes of a TopK surface point's call (its operator, from the device's
    cache)."""
    shape = (p["rows"], p["n"]) if p["axis"] == -1 else (p["n"], p["rows"])
    ax = p["axis"] % 2
    out = tuple(p["k"] if i == ax else s for i, s in enumerate(shape))
    op = dev.compile(dg.TopK1Desc(dg.TensorDesc(p["dtype"], shape),
                                  dg.TensorDesc(p["dtype"], out), dg.TensorDesc("uint32", out),
                                  ax, p["k"], p["direction"]))
    return _scalar_notes(op.plan)


if __name__ == "__main__":
    impl, out = sys.argv[1], sys.argv[2]
    sweep(impl, json.loads(sys.argv[3]), json.loads(sys.argv[4]), out)
