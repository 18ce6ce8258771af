"""What the benchmark shows: progress on stderr, the table, the JSON file and the plot."""

from __future__ import annotations

import json
import math
import sys
import time


class Progress:
    """One line per case on stderr, its phases appended as they start."""

    def __init__(self, total: int, stream=None):
        self.total, self.stream = total, stream or sys.stderr
        self.i = 0
        self.t0 = 0.0

    def _w(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()

    def start(self, name: str) -> None:
        self.i += 1
        self.t0 = time.perf_counter()
        self._w(f"[{self.i}/{self.total}] {name}:")

    def phase(self, name: str) -> None:
        self._w(f" {name}")

    def done(self, rec: dict) -> None:
        took = f"({time.perf_counter() - self.t0:.1f} s)"
        if rec["status"] == "ok":
            self._w(f" -> {_ms(rec['gpu_s'])} ms, {_num(rec['gb_per_s'])} GB/s {took}\n")
        else:
            self._w(f" -> {rec['status'].upper()}: {rec['error']} {took}\n")

    def note(self, text: str) -> None:
        self._w(text + "\n")

    def loud(self, text: str) -> None:
        self._w(f"\n{'!' * 72}\n{text}\n{'!' * 72}\n")


def _ms(s) -> str:
    return "-" if s is None or not math.isfinite(s) else f"{s * 1e3:.3f}"


def _num(v: float) -> str:
    """Three significant digits, without exponents for the usual range."""
    return f"{v:.0f}" if v >= 100 else f"{v:.3g}"


def _mib(n: int) -> str:
    return f"{_num(n / 2**20)} MiB"


def _ratio(peer: dict | None) -> str:
    if not peer or peer.get("status") != "ok" or peer.get("ratio") is None:
        return "-"
    return f"{peer['ratio']:.2f}x"


COLUMNS = ("case", "shape", "loop ms", "torch loop", "GPU ms", "torch GPU", "GB/s",
           "of copy", "host us", "host goal", "cpu us", "cpu goal", "wall ms", "compile s",
           "1st call ms", "ORT", "numpy")


def _loop_ratio(peer) -> str:
    if not peer or peer.get("status") != "ok" or not peer.get("loop_ratio"):
        return "-"
    return f"{peer['loop_ratio']:.2f}x"


def _us(v) -> str:
    return "-" if v is None else f"{v * 1e6:.0f}"


def table(result: dict) -> str:
    """The readable summary: one row per case, then what the figures mean here."""
    rows = []
    for r in result["cases"]:
        shape = "x".join(str(n) for n in r["shape"]) + " " + r["dtype"]
        if r["status"] != "ok":
            rows.append((r["name"], shape, f"{r['status'].upper()}: {r['error']}"))
            continue
        peers = r.get("peers", {})
        gpu = _ms(r["gpu_s"]) + ("*" if r.get("timer") != result["timer"] else "")
        rows.append((r["name"], shape, _ms(r.get("loop_s")), _loop_ratio(peers.get("torch")),
                     gpu, _ratio(peers.get("torch")), _num(r["gb_per_s"]),
                     f"{100 * r['copy_fraction']:.0f}%", _us(r.get("loop_issue_s")),
                     _us(r.get("host_goal_s")), _us(r.get("loop_issue_cpu_s")),
                     _us(r.get("host_cpu_goal_s")), _ms(r["wall_s"]), f"{r['compile_s']:.3f}",
                     _ms(r["first_call_s"]), _ratio(peers.get("onnxruntime")),
                     _ratio(peers.get("numpy"))))
    full = [r for r in rows if len(r) == len(COLUMNS)]
    widths = [max([len(c)] + [len(r[i]) for r in full]) for i, c in enumerate(COLUMNS)]
    for r in rows:  # a failed row spans the figures' columns
        widths[0], widths[1] = max(widths[0], len(r[0])), max(widths[1], len(r[1]))

    def line(cells):
        out = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        out += [c.rjust(w) for c, w in zip(cells[2:], widths[2:], strict=True)]
        return "  ".join(out).rstrip()

    d = result["device"]
    copies = ", ".join(f"{_mib(c['bytes_copied'])}: {_num(c['gb_per_s'])} GB/s"
                       + (f", capped by {c['capped_by']}" if c["capped_by"] else "")
                       for c in result["copy"])
    lines = [f"dmlgpu bench: {d['adapter']} ({d['backend']}) via {result['implementation']}, "
             f"{result['sizes']} sizes ({result['sizes_reason']})", "",
             line(COLUMNS), line(["-" * w for w in widths])]
    lines += [line(r) if len(r) == len(COLUMNS) else "  ".join(
        [r[0].ljust(widths[0]), r[1].ljust(widths[1]), r[2]]) for r in rows]
    lines += ["", f"GPU ms: {result['timer_note']}; median of the repeats after warm-up."]
    if any(r.get("timer") not in (None, result["timer"]) for r in result["cases"]):
        lines.append("  *: wall time around submit + readback: the timestamp queries read 0.")
    if result.get("timestamp_quantum_s"):
        lines.append(f"  Timestamps are quantized to {result['timestamp_quantum_s'] * 1e6:.1f} us "
                     "(Dawn's timestamp_quantization toggle): runs shorter than 100 quanta were "
                     "timed several to a pass (runs_per_pass in the JSON).")
    lines += [
              "GB/s: input read once + outputs written once, over GPU ms. "
              "of copy: that over the copy kernel's GB/s at the input's size "
              f"({copies or 'not measured'}).",
              "loop ms: wall time per call of N back-to-back calls (results dropped), then one "
              "wait, the least of 3 such loops; torch loop: torch's loop ms (the same, then "
              "torch.cuda.synchronize()) over ours.",
              "host us: issuing one call of that loop, the least of the 3 (not waiting; a GPU "
              "that falls behind makes submissions wait too); host goal: 1.3 x a bare "
              "dispatch's host time "
              f"({_us((result.get('bare_dispatch') or {}).get('host_s_min'))} us here, the "
              "least of the run's measurements, one beside each case) x the call's "
              "dispatches. cpu us, cpu goal: the same in the issuing thread's CPU time (host "
              "work, without the time a submission spends blocked behind a busy GPU).",
              "wall ms: one call + waiting for it; compile s: pipelines built by the first "
              "call (1st call ms includes them).",
              "torch GPU/ORT/numpy: peer time over dmlgpu's (above 1x: dmlgpu is faster); "
              "torch against GPU ms, ORT and numpy against wall ms."]
    for name, info in result["peers"].items():
        if info.get("status") != "ok":
            lines.append(f"{name}: skipped: {info['reason']}")
    skipped = {}
    for r in result["cases"]:
        for name, p in r.get("peers", {}).items():
            if p.get("status") != "ok" and result["peers"][name].get("status") == "ok":
                skipped.setdefault((name, p.get("reason", "")), []).append(r["name"])
    for (name, reason), cases in skipped.items():
        lines.append(f"{name} skipped {', '.join(cases)}: {reason}")
    return "\n".join(lines)


def _finite(v):
    """JSON without NaN/Infinity: non-finite numbers become null."""
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def write_json(result: dict, path: str) -> None:
    with open(path, "w") as f:
        json.dump(_finite(result), f, indent=2, allow_nan=False)
        f.write("\n")


PLOT_MISSING = ("--plot needs matplotlib, which is not importable here: "
                "pip install 'dmlgpu[plot]' (or pip install matplotlib)")


def check_plot_available() -> str | None:
    """None when --plot can work, else the message saying what to install."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return PLOT_MISSING
    return None


def plot(result: dict, path: str) -> None:
    """Bar chart: each case's bandwidth as a fraction of the copy kernel's."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = [r for r in result["cases"] if r["status"] == "ok"]
    names = [r["name"] for r in ok]
    fractions = [r["copy_fraction"] for r in ok]
    fig, ax = plt.subplots(figsize=(8, 0.35 * max(len(ok), 1) + 1.6))
    bars = ax.barh(range(len(ok)), fractions, color="#4477aa")
    for bar, r in zip(bars, ok, strict=True):
        ax.text(bar.get_width(), bar.get_y() + bar.get_height() / 2,
                f" {100 * r['copy_fraction']:.0f}% ({_num(r['gb_per_s'])} GB/s)",
                va="center", fontsize=8)
    ax.axvline(1.0, color="#999999", linewidth=1, linestyle="--")
    ax.set_yticks(range(len(ok)), names, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, max([1.0] + fractions) * 1.3)
    ax.set_xlabel("achieved bandwidth / copy kernel bandwidth (same size, same run)")
    d = result["device"]
    ax.set_title(f"dmlgpu on {d['adapter']} via {result['implementation']} "
                 f"({result['sizes']} sizes)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
