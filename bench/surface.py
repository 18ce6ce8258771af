"""The performance surface: `dmlgpu bench --surface [--quick] [--json F] [--plot F.png]`.

Shape grids per operator (the grids are data, below), each point timed on the GPU
(timestamp queries, the benchmark's policy), checked against numpy, set beside the copy
kernel's bandwidth at the same input bytes and torch's time where torch has the operation.
The summary quotes the WORST point of each grid: the lowest fraction of the copy kernel's
bandwidth and the lowest torch ratio; then each grid against the goals of issue 20 (GOALS:
how many points meet each, and the point furthest from it). --plot writes one heatmap per
operator and dtype (F-<op>-<dtype>.png). --quick shrinks every grid to sizes lavapipe runs
in seconds. `python -m bench.surface FILE.json ...` prints the summary of saved runs again
(recounted from their points, under the goals as they are now).
"""

from __future__ import annotations

import io
import itertools
import math
import time
import traceback

import numpy as np

import dmlgpu as dg
from dmlgpu.runtime import dispatch

from .peers import cuda_event_seconds

# -- the grids -------------------------------------------------------------------------------
# TopK: row lengths 2^5..2^23 in steps of 4x, rows so that a point holds 2^26 elements,
# K <= n/2 from this list, both directions, the last axis and the first.
TOPK_ELEMENTS = {"full": 1 << 26, "quick": 1 << 14}
TOPK_LOG2_N = {"full": range(5, 24, 2), "quick": range(5, 12, 3)}
TOPK_KS = (1, 2, 8, 32, 128, 1024)
TOPK_DTYPES = ("float32", "float16")
# ArgMax/ArgMin: every axes subset of these rank-3 and rank-4 shapes of 2^27 elements,
# whose subsets reduce 2 to 2^27 elements.
ARG_SHAPES = {"full": [(2, 1 << 12, 1 << 13), (1 << 9, 1 << 9, 1 << 9), (1 << 13, 1 << 12, 2),
                       (2, 1 << 8, 1 << 8, 1 << 10), (1 << 7, 1 << 7, 1 << 7, 1 << 6)],
              "quick": [(2, 16, 32), (4, 4, 2, 8)]}
ARG_DTYPES = ("float32", "float16", "int64", "uint8")
# Hardmax: every axes subset of a rank-3 tensor of 2^26 elements.
HARDMAX_SHAPES = {"full": [(1 << 9, 1 << 8, 1 << 9)], "quick": [(8, 4, 16)]}
HARDMAX_DTYPES = ("float32", "float16")
# NonZero: all ten dtypes, these densities, ranks 1 to 4 of 2^24 elements.
NONZERO_ELEMENTS = {"full": 1 << 24, "quick": 1 << 10}
NONZERO_DENSITIES = (0.0, 0.001, 0.1, 0.5, 1.0)
NONZERO_DTYPES = ("float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32",
                  "uint16", "uint8")
# Rows (reported beside the goals, none of their own): ArgMax over rows of lengths the
# ArgMax grid does not sample (it reduces powers of two), along the last axis and the
# first, this many elements a point: 10 classes, 1000 classes, odd lengths of 8/16-bit rows.
ROWS_ELEMENTS = {"full": 1 << 25, "quick": 1 << 12}
ROWS_LENGTHS = {"full": (3, 5, 7, 10, 12, 20, 33, 50, 100, 257, 1000, 1500, 5000),
                "quick": (3, 33, 1000)}
# ... and TopK over rows of these lengths, K of these (top-5 of 1000 classes, a sampling
# vocabulary of 50257), K <= n / 2, the last axis, largest first.
ROWS_TOPK_LENGTHS = {"full": (10, 100, 1000, 50257), "quick": (10, 100, 1000)}
ROWS_TOPK_KS = (1, 5, 10, 50)
GRIDS = ("topk", "argreduce", "hardmax", "nonzero", "rows")
# Full-size points check this many rows (or columns) against numpy; quick ones all of it.
CHECK_ROWS = 4
# Full-size ArgMax/ArgMin points are checked one in this many (a numpy reduction of 2^27
# elements takes a second; the test suite checks every layout at small sizes).
ARG_CHECK_EVERY = 8


def _split(n_log2: int, rank: int) -> tuple:
    """A shape of 2^n_log2 elements and `rank` dims, as even as possible."""
    base, extra = divmod(n_log2, rank)
    return tuple(1 << (base + (1 if i < extra else 0)) for i in range(rank))


def _subsets(rank: int):
    for r in range(1, rank + 1):
        yield from itertools.combinations(range(rank), r)


def _random(rng, n: int, dtype: str) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return rng.standard_normal(n, dtype=np.float32).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


class Stopped(BaseException):
    """A run stopped from outside (the CLI raises it on SIGTERM, as `timeout` sends): not an
    Exception, so that no point's own handler records it as that point's error."""


class Surface:
    def __init__(self, runner, quick: bool, progress, torch=None):
        self.runner, self.quick, self.progress, self.torch = runner, quick, progress, torch
        self.size = "quick" if quick else "full"
        self.dev = runner.dev
        self.rng = np.random.default_rng(20261123)
        self.points: list[dict] = []
        self.tag: dict = {}  # labels every point gets too (bench.tuning_sweep: its config)

    # -- measuring one point -------------------------------------------------------------
    def point(self, grid: str, dtype: str, labels: dict, call, check, torch_fn, in_bytes,
              checked: bool = True, out_bytes=None):
        """Time one call; out_bytes(outputs): the bytes it must write (default: the
        outputs' sizes)."""
        out_bytes = out_bytes or _out_nbytes
        labels = {**self.tag, **labels}
        rec = {"grid": grid, "dtype": dtype, **labels, "status": "error", "checked": checked}
        try:
            with dispatch.recording() as subs:
                outs = call()
            problem = check(outs)
            if problem:
                rec.update(status="wrong", error=problem)
            else:
                gpu, _, _ = self.runner.gpu_samples([[b for b, _ in subs]])
                rec["gpu_s"] = float(np.median(gpu))
                copy = self.runner.copy(in_bytes)
                out_b = int(out_bytes(outs))
                rec["input_bytes"], rec["output_bytes"] = int(in_bytes), out_b
                # bandwidth, as the main table counts it: (input read + outputs written) /
                # time, over the copy kernel's (reads + writes) / time at the input's size
                rec["copy_fraction"] = ((in_bytes + out_b) / rec["gpu_s"]
                                        / (copy["gb_per_s"] * 1e9))
                # time over a copy of the input's bytes (TopK's and Hardmax's goals)
                rec["copy_time_ratio"] = rec["gpu_s"] / (copy["gpu_s"] * in_bytes
                                                         / copy["bytes_copied"])
                rec["status"] = "ok"
                if torch_fn is not None and self.torch is not None:
                    rec["torch_s"] = self._torch_time(torch_fn)
                    rec["torch_ratio"] = rec["torch_s"] / rec["gpu_s"]
            del subs, outs
        except Exception as e:
            rec["error"] = f"{type(e).__name__}: {e}"
            rec["traceback"] = traceback.format_exc()
        self.points.append(rec)
        self.progress.note(f"{grid} {dtype} {labels}: " + (
            f"{rec['gpu_s'] * 1e3:.3f} ms, {100 * rec['copy_fraction']:.0f}% of copy"
            + (f", torch {rec['torch_ratio']:.2f}x" if "torch_ratio" in rec else "")
            if rec["status"] == "ok" else f"{rec['status'].upper()}: {rec.get('error')}"))

    def _torch_time(self, fn) -> float:
        torch = self.torch
        try:
            fn()
        except Exception:  # an op or dtype torch lacks on CUDA: no figure
            return math.nan
        torch.cuda.synchronize()
        return float(np.median([cuda_event_seconds(torch, fn) for _ in range(5)]))

    def _cuda(self, host):
        if self.torch is None:
            return None
        try:
            return self.torch.from_numpy(host).cuda()
        except Exception:  # a dtype torch cannot hold on CUDA
            return None

    # -- the grids -----------------------------------------------------------------------
    def topk(self, dtypes=TOPK_DTYPES, log_ns=None, axes=(-1, 0),
             directions=("decreasing", "increasing"), ks=TOPK_KS, elements=None, ns=None,
             grid="topk"):
        """The TopK grid (arguments: a part of it, or another; default the grid above; ns:
        row lengths instead of log_ns, the rows a point's elements hold, as grid `grid`)."""
        n_all = elements or TOPK_ELEMENTS[self.size]
        log_ns = TOPK_LOG2_N[self.size] if log_ns is None else log_ns
        for dtype in dtypes:
            host = _random(self.rng, n_all, dtype)
            flat = dg.asarray(host, device=self.dev)
            th = self._cuda(host)
            for n, axis, direction in itertools.product(
                    ns or [1 << log_n for log_n in log_ns], axes, directions):
                rows = n_all // n
                shape = (rows, n) if axis == -1 else (n, rows)
                x = flat[:rows * n].reshape(shape)
                h = host[:rows * n].reshape(shape)
                for k in (k for k in ks if k <= n // 2):
                    labels = {"n": n, "rows": rows, "k": k, "axis": axis,
                              "direction": direction}

                    def check(outs, h=h, k=k, axis=axis, direction=direction):
                        return _check_topk(outs, h, k, axis, direction, self.quick)
                    tfn = None
                    if th is not None:
                        tx = th[:rows * n].reshape(shape)

                        def tfn(tx=tx, k=k, axis=axis, d=direction):
                            return self.torch.topk(tx, k, dim=axis, largest=d == "decreasing")
                    self.point(grid, dtype, labels,
                               lambda x=x, k=k, axis=axis, d=direction:
                               dg.top_k(x, k, axis, axis_direction=d),
                               check, tfn, h.nbytes)
            del flat, th

    def argreduce(self, shapes=None, dtypes=ARG_DTYPES, ops=("argmax", "argmin"),
                  axes_sets=None, check_every=ARG_CHECK_EVERY):
        """The ArgMax/ArgMin grid; bench.tuning_sweep picks parts of it (axes_sets: the
        subsets to run, every one by default)."""
        for shape, dtype in itertools.product(shapes or ARG_SHAPES[self.size], dtypes):
            shape = tuple(shape)
            subsets = [a for a in _subsets(len(shape))
                       if axes_sets is None or list(a) in axes_sets]
            if not subsets:
                continue
            n = int(np.prod(shape))
            host = _random(self.rng, n, dtype).reshape(shape)
            x = dg.asarray(host, device=self.dev)
            th = self._cuda(host)
            for i, (axes, op) in enumerate(itertools.product(subsets, ops)):
                self._arg_point(op, dtype, host, x, th, axes, op,
                                self.quick or i % check_every == 0)
            del x, th

    def rows(self, dtypes=ARG_DTYPES, lengths=None, ops=("argmax",), elements=None,
             topk=True):
        """ArgMax over rows of ROWS_LENGTHS, along the last axis ((m, n) over 1) and the
        first ((n, m) over 0), ROWS_ELEMENTS a point, every point checked; then (topk) TopK
        over rows of ROWS_TOPK_LENGTHS (grid "topk-rows")."""
        elements = elements or ROWS_ELEMENTS[self.size]
        for n, dtype, axis in itertools.product(lengths or ROWS_LENGTHS[self.size], dtypes,
                                                (1, 0)):
            m = max(1, elements // n)
            shape = (m, n) if axis == 1 else (n, m)
            host = _random(self.rng, m * n, dtype).reshape(shape)
            x = dg.asarray(host, device=self.dev)
            th = self._cuda(host)
            for op in ops:
                self._arg_point("rows", dtype, host, x, th, (axis,), op, True)
            del x, th
        # TopK over such rows (the last axis, the K people ask of them), as grid "topk-rows"
        if not topk:
            return
        self.topk([d for d in dtypes if d in TOPK_DTYPES], axes=(-1,),
                  directions=("decreasing",), ks=ROWS_TOPK_KS, elements=elements,
                  ns=ROWS_TOPK_LENGTHS[self.size], grid="topk-rows")

    def _arg_point(self, grid, dtype, host, x, th, axes, op, checked):
        shape = host.shape
        red = int(np.prod([shape[a] for a in axes]))
        labels = {"shape": list(shape), "axes": list(axes), "reduced": red, "op": op}
        tfn = None
        if th is not None and (len(axes) == 1 or len(axes) == len(shape)):
            fn = getattr(self.torch, op)

            def tfn(fn=fn, th=th, axes=axes):
                if len(axes) == 1:
                    return fn(th, dim=axes[0], keepdim=True)
                return fn(th)
        self.point(grid, dtype, labels, lambda: getattr(dg, op)(x, axes),
                   _arg_checker(host, axes, op) if checked else (lambda y: None),
                   tfn, host.nbytes, checked)

    def hardmax(self, shapes=None, dtypes=HARDMAX_DTYPES, axes_sets=None):
        """The Hardmax grid (bench.tuning_sweep: other shapes, or some axes sets)."""
        for shape, dtype in itertools.product(shapes or HARDMAX_SHAPES[self.size], dtypes):
            shape = tuple(shape)
            host = _random(self.rng, int(np.prod(shape)), dtype).reshape(shape)
            x = dg.asarray(host, device=self.dev)
            th = self._cuda(host)
            for axes in _subsets(len(shape)):
                if axes_sets is not None and list(axes) not in axes_sets:
                    continue
                labels = {"shape": list(shape), "axes": list(axes),
                          "reduced": int(np.prod([shape[a] for a in axes]))}
                tfn = None
                if th is not None and len(axes) == 1:
                    def tfn(a=axes[0], th=th, torch=self.torch):
                        return torch.zeros_like(th).scatter_(
                            a, torch.argmax(th, dim=a, keepdim=True), 1)
                self.point("hardmax", dtype, labels, lambda x=x, axes=axes: dg.hardmax(x, axes),
                           _hardmax_checker(host, axes), tfn, host.nbytes)
            del x, th

    def nonzero(self, dtypes=NONZERO_DTYPES, densities=NONZERO_DENSITIES, ranks=range(1, 5),
                n_log2=None):
        """The NonZero grid (arguments: a part of it, or another; default the grid above)."""
        n_log2 = NONZERO_ELEMENTS[self.size].bit_length() - 1 if n_log2 is None else n_log2
        for dtype in dtypes:
            dense = _random(self.rng, 1 << n_log2, dtype)
            dense[dense == 0] = 1
            keep = self.rng.random(1 << n_log2)
            for density, rank in itertools.product(densities, ranks):
                shape = _split(n_log2, rank)
                host = np.where(keep < density, dense, 0).astype(dtype).reshape(shape)
                x = dg.asarray(host, device=self.dev)
                found = int(np.count_nonzero(host))
                th = self._cuda(host)
                tfn = (lambda th=th: self.torch.nonzero(th)) if th is not None else None
                self.point("nonzero", dtype, {"density": density, "rank": rank,
                                              "shape": list(shape)},
                           lambda x=x: dg.nonzero_coordinates(x),
                           _nonzero_checker(host), tfn, host.nbytes,
                           out_bytes=lambda outs, rank=rank, found=found:
                           4 + found * rank * outs[1].dtype.itemsize)
                del x, th

    def run(self, grids=None, dtypes=None):
        """The grids (default all), each over those of its dtypes in `dtypes` (default all;
        a grid with none of them is skipped): a run split to fit a time limit. A run
        stopped from outside (Stopped) returns its points so far, "partial" saying why."""
        t0 = time.perf_counter()
        stopped = None
        try:
            for g in grids or GRIDS:
                mine = [d for d in GRID_DTYPES[g] if dtypes is None or d in dtypes]
                if mine:
                    getattr(self, g)(dtypes=mine)
        except Stopped as e:
            stopped = f"{e} after {len(self.points)} point(s)"
        res = {"points": self.points, "worst": worst(self.points),
               "goals": goals(self.points), "seconds": time.perf_counter() - t0}
        if stopped:
            res["partial"] = stopped
        return res


GRID_DTYPES = {"topk": TOPK_DTYPES, "argreduce": ARG_DTYPES, "hardmax": HARDMAX_DTYPES,
               "nonzero": NONZERO_DTYPES, "rows": ARG_DTYPES}


# -- checks (exact, against numpy; full-size points check a few rows) ------------------------

def _check_topk(outs, h, k, axis, direction, quick):
    values, indices = outs
    if axis == 0:
        h = h.T
        values, indices = values.T, indices.T
    if not quick:
        h, values, indices = h[:CHECK_ROWS], values[:CHECK_ROWS], indices[:CHECK_ROWS]
    if direction == "increasing":
        key = h
    else:  # (an integer's complement reverses its order without -x's wrap-around)
        key = -h.astype(np.float64) if h.dtype.kind == "f" else ~h
    order = np.argsort(key, axis=-1, kind="stable")
    exp_i = order[:, :k].astype(np.uint32)
    got_i = indices.numpy()
    if not np.array_equal(got_i, exp_i):
        return "indices differ from numpy's stable sort"
    if not np.array_equal(values.numpy(), np.take_along_axis(h, exp_i.astype(np.int64), -1)):
        return "values differ"
    return None


def _arg_checker(host, axes, op):
    def check(y):
        kept = [a for a in range(host.ndim) if a not in axes]
        moved = np.transpose(host, kept + list(axes))
        flat = moved.reshape([host.shape[a] for a in kept] + [-1])
        exp = (np.argmax if op == "argmax" else np.argmin)(flat, axis=-1)
        got = y.numpy().reshape(exp.shape)
        return None if np.array_equal(got, exp) else f"{op} differs from numpy"
    return check


def _hardmax_checker(host, axes):
    def check(y):
        kept = [a for a in range(host.ndim) if a not in axes]
        moved = np.transpose(host, kept + list(axes))
        flat = moved.reshape([host.shape[a] for a in kept] + [-1])
        exp = np.zeros_like(flat)
        np.put_along_axis(exp, np.argmax(flat, axis=-1)[..., None], 1, axis=-1)
        red_shape = [host.shape[a] for a in axes]
        exp = exp.reshape([host.shape[a] for a in kept] + red_shape)
        exp = np.transpose(exp, np.argsort(kept + list(axes)))
        return None if np.array_equal(y.numpy(), exp) else "hardmax differs from numpy"
    return check


def _nonzero_checker(host):
    def check(outs):
        count, coords = outs
        exp = np.argwhere(host)
        n = int(count.numpy()[0])
        if n != len(exp):
            return f"count {n}, numpy {len(exp)}"
        return None if np.array_equal(coords[:n].numpy(), exp) else "coordinates differ"
    return check


def _out_nbytes(outs) -> int:
    return sum(t.nbytes for t in (outs if isinstance(outs, (tuple, list)) else (outs,)))


# The goals each grid's points are held to (issue 20): (measure, "min" or "max", bound,
# what it says, the points it applies to). Measures: the record's torch_ratio (torch's
# time over ours), copy_fraction (bandwidth over the copy kernel's) and copy_time_ratio
# (time over a copy of the input's bytes).
GOALS = {
    "topk": [("torch_ratio", "min", 2.0, "at least 2x torch.topk", None),
             ("copy_time_ratio", "max", 2.0, "K <= 8: at most 2x a copy's time",
              lambda p: p["k"] <= 8)],
    "argmax": [("copy_fraction", "min", 0.85, "2^24 elements or more: 85% of a copy's "
                "bandwidth", lambda p: math.prod(p["shape"]) >= 1 << 24)],
    "hardmax": [("copy_time_ratio", "max", 1.3, "at most 1.3x a copy's time", None)],
    "nonzero": [("torch_ratio", "min", 1.5, "at least 1.5x torch.nonzero", None)],
}
GOALS["argmin"] = GOALS["argmax"]


def goals(points) -> dict:
    """Per (grid, dtype) and goal: the points it applies to that have the measure, how many
    meet it, and the one furthest from it."""
    out = {}
    for p in points:
        for measure, side, bound, text, applies in GOALS.get(p["grid"], ()):
            g = out.setdefault(f"{p['grid']}/{p['dtype']}", {}).setdefault(
                text, {"measure": measure, "bound": bound, "points": 0, "met": 0})
            v = p.get(measure) if p["status"] == "ok" else None
            if v is None or math.isnan(v) or (applies is not None and not applies(p)):
                continue
            g["points"] += 1
            g["met"] += v >= bound if side == "min" else v <= bound
            if "worst" not in g or (v < g["worst"][measure] if side == "min"
                                    else v > g["worst"][measure]):
                g["worst"] = _brief(p)
    return out


def worst(points) -> dict:
    """Per (grid, dtype): the point of the lowest copy fraction and of the lowest torch
    ratio, and the counts."""
    out = {}
    for p in points:
        key = f"{p['grid']}/{p['dtype']}"
        w = out.setdefault(key, {"points": 0, "ok": 0, "wrong": 0, "error": 0})
        w["points"] += 1
        w[p["status"] if p["status"] in ("ok", "wrong") else "error"] += 1
        if p["status"] != "ok":
            continue
        if "copy" not in w or p["copy_fraction"] < w["copy"]["copy_fraction"]:
            w["copy"] = _brief(p)
        r = p.get("torch_ratio")
        if r is not None and not math.isnan(r) and ("torch" not in w
                                                    or r < w["torch"]["torch_ratio"]):
            w["torch"] = _brief(p)
    return out


def _brief(p: dict) -> dict:
    return {k: v for k, v in p.items() if k not in ("traceback", "status", "grid", "dtype")}


def report(result: dict) -> str:
    lines = ["dmlgpu surface: the worst point of each grid (lowest fraction of the copy "
             "kernel's bandwidth; lowest torch ratio)"]
    if "partial" in result:
        lines.append(f"  PARTIAL: {result['partial']}")
    for key, w in result["worst"].items():
        line = f"  {key}: {w['ok']}/{w['points']} points ok"
        if w["wrong"] or w["error"]:
            line += f" ({w['wrong']} WRONG, {w['error']} errors)"
        if "copy" in w:
            c = w["copy"]
            line += (f"; worst of copy {100 * c['copy_fraction']:.0f}% at "
                     f"{_where(c)} ({c['gpu_s'] * 1e3:.3f} ms)")
        if "torch" in w:
            t = w["torch"]
            line += f"; worst torch ratio {t['torch_ratio']:.2f}x at {_where(t)}"
        lines.append(line)
    lines.append("against the goals of issue 20 (points meeting each of those it applies to; "
                 "the furthest from it)")
    for key, gs in result.get("goals", {}).items():
        for text, g in gs.items():
            if g["points"]:
                w = g["worst"]
                lines.append(f"  {key}: {text}: {g['met']}/{g['points']}; furthest "
                             f"{w[g['measure']]:.2f} at {_where(w)}")
            else:
                lines.append(f"  {key}: {text}: no point measured (no torch there, or "
                             "none applies)")
    return "\n".join(lines)


def _where(p: dict) -> str:
    keys = [k for k in ("n", "rows", "k", "axis", "direction", "op", "shape", "axes",
                        "density", "rank") if k in p]
    return ", ".join(f"{k}={p[k]}" for k in keys)


def plot(result: dict, prefix: str) -> list[str]:
    """One heatmap per operator and dtype: fraction of copy, torch ratio in the cells."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    by = {}
    for p in result["points"]:
        by.setdefault((p["grid"], p["dtype"]), []).append(p)
    for (grid, dtype), pts in by.items():
        if grid in ("topk", "topk-rows"):
            panels = sorted({(p["axis"], p["direction"]) for p in pts})
            cols = lambda p: p["n"]  # noqa: E731
            rows = lambda p: p["k"]  # noqa: E731
            title = lambda a: f"axis {a[0]}, {a[1]}"  # noqa: E731
            pick = lambda p, a: (p["axis"], p["direction"]) == a  # noqa: E731
        elif grid == "nonzero":
            panels, cols, rows = [None], (lambda p: p["density"]), (lambda p: p["rank"])
            title, pick = (lambda a: "density x rank"), (lambda p, a: True)
        elif grid == "rows":  # a row of the map per axis and op, a column per row length
            panels, cols = [None], (lambda p: p["reduced"])

            def rows(p):
                return f"{'last' if p['axes'][0] == 1 else 'first'} axis {p['op']}"
            title, pick = (lambda a: "row length x axis"), (lambda p, a: True)
        else:
            panels = [None]
            cols = lambda p: p["reduced"]  # noqa: E731

            def rows(p):
                return ("x".join(map(str, p["shape"])) + f" {tuple(p['axes'])}"
                        + (f" {p['op']}" if "op" in p else ""))
            title, pick = (lambda a: "reduced elements x (shape, axes)"), (lambda p, a: True)
        fig, axs = plt.subplots(1, len(panels), squeeze=False,
                                figsize=(6 * len(panels), 0.3 * len({rows(p) for p in pts}) + 2))
        for ax, panel in zip(axs[0], panels, strict=True):
            sel = [p for p in pts if pick(p, panel)]
            xs = sorted({cols(p) for p in sel})
            ys = sorted({rows(p) for p in sel}, key=str)
            grid_v = np.full((len(ys), len(xs)), np.nan)
            for p in sel:
                if p["status"] == "ok":
                    grid_v[ys.index(rows(p)), xs.index(cols(p))] = p["copy_fraction"]
            im = ax.imshow(grid_v, aspect="auto", cmap="viridis", vmin=0, vmax=1.1)
            for p in sel:
                i, j = ys.index(rows(p)), xs.index(cols(p))
                text = (f"{100 * p['copy_fraction']:.0f}%" if p["status"] == "ok"
                        else p["status"][:5])
                if p.get("torch_ratio") is not None and not math.isnan(p["torch_ratio"]):
                    text += f"\n{p['torch_ratio']:.1f}x"
                ax.text(j, i, text, ha="center", va="center", fontsize=5, color="white")
            ax.set_xticks(range(len(xs)), [str(x) for x in xs], fontsize=6, rotation=45)
            ax.set_yticks(range(len(ys)), [str(y) for y in ys], fontsize=6)
            ax.set_title(title(panel), fontsize=8)
            fig.colorbar(im, ax=ax, fraction=0.03)
        fig.suptitle(f"dmlgpu {grid} {dtype}: fraction of the copy kernel's bandwidth "
                     "(and torch time / ours)", fontsize=9)
        fig.tight_layout()
        path = f"{prefix.removesuffix('.png')}-{grid}-{dtype}.png"
        buf = io.BytesIO()
        fig.savefig(buf, dpi=110)
        plt.close(fig)
        _save_palette_png(buf, path)
        written.append(path)
    return written


def _save_palette_png(buf, path: str) -> None:
    """The figure as a PNG of 256 colours (a third of its RGBA bytes: the results folder
    travels with the working tree to the GPU machines, 64 MiB in all)."""
    from PIL import Image  # (matplotlib's own dependency)

    buf.seek(0)
    with Image.open(buf) as im:
        im.convert("RGB").quantize(256, dither=Image.Dither.NONE).save(path, optimize=True)


def summary(paths) -> str:
    """The summary of saved runs (their JSON), recounted from their points."""
    import json

    out = []
    for path in paths:
        with open(path) as f:
            saved = json.load(f)
        pts = saved["points"]
        res = {"worst": worst(pts), "goals": goals(pts)}
        if "partial" in saved:  # (a run stopped before its end)
            res["partial"] = saved["partial"]
        out += [f"{path}:", report(res)]
    return "\n".join(out)


def main(argv=None) -> None:
    """python -m bench.surface FILE.json ... [--plot PREFIX.png]: the summary of saved runs;
    --plot draws their points (all files together) as `dmlgpu bench --surface --plot` does."""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m bench.surface", description=main.__doc__)
    ap.add_argument("files", nargs="+", metavar="FILE.json")
    ap.add_argument("--plot", metavar="PREFIX.png",
                    help="write PREFIX-<grid>-<dtype>.png heatmaps of the files' points")
    args = ap.parse_args(argv)
    print(summary(args.files))
    if args.plot:
        pts = []
        for path in args.files:
            with open(path) as f:
                pts += json.load(f)["points"]
        for path in plot({"points": pts}, args.plot):
            print("wrote", path)


if __name__ == "__main__":
    main()
