"""Surface points under several tunings, one device per tuning, torch in the same run: the
measurements behind tuning.py's TOPK_ROWS_CHUNK* numbers (and the NONZERO_* sweep).

    python -m bench.tuning_sweep IMPL OUT.json CONFIGS SPEC

CONFIGS: JSON [[name, {TUNING_NAME: value, ...}, optional SPEC overrides], ...] (the first
config also times torch). SPEC: JSON; TopK (the default "grid"): {"dtypes": [...],
"log_n": [...], "axes": [-1, 0], "ks": [...], "elements": 2^26}: row length 2^log_n, rows
so that a point holds `elements`, as the surface's TopK grid; NonZero: {"grid": "nonzero",
"dtypes": [...], "densities": [...], "ranks": [...], "log2": 24}. Each point
(bench.surface's record, checked against numpy; TopK with the plan's notes) goes to
OUT.json.
"""
import itertools
import json
import sys

import numpy as np

import dmlgpu as dg
from dmlgpu import tuning

from . import report, surface
from .runner import Policy, Runner
from .steps import timer_kind

try:
    import torch
    torch.zeros(1).cuda()  # a CUDA context: GPU clocks up
except Exception:  # no torch, or no CUDA: our times only
    torch = None


def sweep(impl: str, configs: list, spec: dict) -> list[dict]:
    n_all = spec.get("elements", 1 << 26)
    defaults = {k: getattr(tuning, k) for _, c, *_ in configs for k in c}
    points = []
    for ci, (name, cfg, *over) in enumerate(configs):
        sp = dict(spec, **(over[0] if over else {}))
        for k, v in {**defaults, **cfg}.items():
            setattr(tuning, k, v)
        dev = dg.Device(webgpu=impl)  # plans are cached per device: a fresh one per config
        prog = report.Progress(0)
        runner = Runner(dev, quick=False, timer=timer_kind(dev),
                        policy=Policy(2, 5, 0.05, 0.0), peers=[], progress=prog)
        tq = torch if ci == 0 else None
        sf = surface.Surface(runner, False, prog, tq)
        rng = np.random.default_rng(20261123)
        if sp.get("grid") == "nonzero":
            _nonzero(sf, dev, rng, name, sp, tq)
            points += sf.points
            continue
        for dtype in sp["dtypes"]:
            host = surface._random(rng, n_all, dtype)
            flat = dg.asarray(host, device=dev)
            th = tq.from_numpy(host).cuda() if tq is not None else None
            for log_n, axis, k in itertools.product(sp["log_n"], sp["axes"], sp["ks"]):
                n = 1 << log_n
                if k > n // 2:
                    continue
                rows = n_all // n
                shape = (rows, n) if axis == -1 else (n, rows)
                x, h = flat.reshape(shape), host.reshape(shape)

                def check(outs, h=h, k=k, axis=axis):
                    return surface._check_topk(outs, h, k, axis, "decreasing", False)
                tfn = None
                if th is not None:
                    tx = th.reshape(shape)

                    def tfn(tx=tx, k=k, axis=axis, tq=tq):
                        return tq.topk(tx, k, dim=axis)
                sf.point("topk", dtype, {"cfg": name, "n": n, "rows": rows, "k": k,
                                         "axis": axis},
                         lambda x=x, k=k, axis=axis: dg.top_k(x, k, axis), check, tfn,
                         host.nbytes)
                ax = axis % 2
                osh = tuple(k if i == ax else s for i, s in enumerate(shape))
                op = dev.compile(dg.TopK1Desc(dg.TensorDesc.of(x), dg.TensorDesc(dtype, osh),
                                              dg.TensorDesc("uint32", osh), ax, k,
                                              "decreasing"))
                sf.points[-1]["notes"] = {a: b for a, b in op.plan.notes.items()
                                          if isinstance(b, (int, str, bool, float))}
            del flat, th
        points += sf.points
        del sf, runner, dev
    for k, v in defaults.items():
        setattr(tuning, k, v)
    return points


def _nonzero(sf, dev, rng, name, sp, tq) -> None:
    n_log2 = sp.get("log2", 24)
    for dtype in sp["dtypes"]:
        dense = surface._random(rng, 1 << n_log2, dtype)
        dense[dense == 0] = 1
        keep = rng.random(1 << n_log2)
        for density, rank in itertools.product(sp["densities"], sp["ranks"]):
            shape = surface._split(n_log2, rank)
            host = np.where(keep < density, dense, 0).astype(dtype).reshape(shape)
            x = dg.asarray(host, device=dev)
            found = int(np.count_nonzero(host))
            th = tq.from_numpy(host).cuda() if tq is not None else None
            tfn = (lambda th=th, tq=tq: tq.nonzero(th)) if th is not None else None
            sf.point("nonzero", dtype, {"cfg": name, "density": density, "rank": rank},
                     lambda x=x: dg.nonzero_coordinates(x), surface._nonzero_checker(host),
                     tfn, host.nbytes,
                     out_bytes=lambda outs, rank=rank, found=found: 4 + found * rank * 4)
            del x, th


if __name__ == "__main__":
    impl, out = sys.argv[1], sys.argv[2]
    with open(out, "w") as f:
        json.dump(sweep(impl, json.loads(sys.argv[3]), json.loads(sys.argv[4])), f, indent=1)
