"""A/B of two configs of a tuning sweep: python ab.py FILE.json A B (GPU us of each run,
the best % of a copy, B's speedup over A from the better runs)."""
import json
import statistics
import sys
from collections import defaultdict


def cfg_name(cfg: str) -> str:
    """A config's name without its point group or run number ("loop2/uint8" -> "loop")."""
    return cfg.split("/")[0].rstrip("2")


def ab(path: str, a: str, b: str) -> None:
    pts = json.load(open(path))
    pts = pts["points"] if isinstance(pts, dict) else pts
    by_point = defaultdict(lambda: defaultdict(list))
    for p in pts:
        if p["status"] != "ok":
            print("BAD", p.get("cfg"), p["status"], p.get("error", "")[:200])
            continue
        key = (p["dtype"], tuple(p["shape"]), tuple(p["axes"]), p["op"])
        by_point[key][cfg_name(p["cfg"])].append(p)
    print(path)
    ratios = []
    for (dtype, shape, axes, op), by in by_point.items():
        if a not in by or b not in by:
            continue
        us = {c: [p["gpu_s"] * 1e6 for p in by[c]] for c in (a, b)}
        frac = {c: max(p["copy_fraction"] for p in by[c]) for c in (a, b)}
        r = min(us[a]) / min(us[b])
        ratios.append(r)
        cells = "  ".join(f"{c}: {' '.join(f'{x:7.1f}' for x in us[c])} ({frac[c] * 100:3.0f}%)"
                          for c in (a, b))
        print(f"{dtype:8} {str(shape):18} {str(axes):6} {op:6} {cells}  x{r:.3f}")
    if ratios:
        print(f"speedup {b} over {a}: min {min(ratios):.3f} median "
              f"{statistics.median(ratios):.3f} max {max(ratios):.3f}; faster > 2%: "
              f"{sum(r > 1.02 for r in ratios)}, slower > 2%: "
              f"{sum(r < 0.98 for r in ratios)} of {len(ratios)}")


if __name__ == "__main__":
    ab(sys.argv[1], sys.argv[2], sys.argv[3])
