"""A tuning sweep's points under several configs: python table.py FILE.json A,B,.. (GPU us
of the better run / the best % of a copy, per config)."""
import json
import sys
from collections import defaultdict


def table(path: str, cfgs: list[str]) -> None:
    pts = json.load(open(path))
    pts = pts["points"] if isinstance(pts, dict) else pts
    by_point = defaultdict(dict)
    for p in pts:
        if p["status"] != "ok":
            print("BAD", p["cfg"], p["status"])
            continue
        key = (p["dtype"], tuple(p["shape"]), tuple(p["axes"]), p["op"])
        by_point[key].setdefault(p["cfg"].split("/")[0], []).append(p)
    print(path)
    print(" " * 52 + "".join(f"{c:>16}" for c in cfgs))
    for (dtype, shape, axes, op), by in by_point.items():
        cells = []
        for c in cfgs:
            ps = by.get(c)
            if not ps:
                cells.append(" " * 16)
                continue
            us = min(p["gpu_s"] for p in ps) * 1e6
            frac = max(p["copy_fraction"] for p in ps) * 100
            cells.append(f"{us:8.1f}/{frac:4.0f}%  ")
        print(f"{dtype:8} {str(shape):24} {str(axes):6} {op:6}" + "".join(cells))


if __name__ == "__main__":
    table(sys.argv[1], sys.argv[2].split(","))
