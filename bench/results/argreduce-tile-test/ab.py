"""python ab.py FILE.json CFG,CFG,...: a bench.tuning_sweep run's ArgMax/ArgMin points, one
line a point, its GPU us (and % of a copy's bandwidth) under each named configuration."""
import collections
import json
import sys


def main(path: str, names: list[str]) -> None:
    with open(path) as f:
        points = json.load(f)
    table = collections.defaultdict(dict)
    for q in points:
        if q.get("status") != "ok":
            if "torch" not in q["cfg"]:
                print("NOT OK", q["cfg"], q.get("error"))
            continue
        key = (q["dtype"], tuple(q["shape"]), tuple(q["axes"]), q["op"])
        table[key][q["cfg"]] = (q["gpu_s"] * 1e6, q["copy_fraction"] * 100)
    for (dtype, shape, axes, op), got in table.items():
        cells = " | ".join(f"{c} {got[c][0]:6.1f} ({got[c][1]:4.1f}%)" if c in got else f"{c} -"
                           for c in names)
        print(f"{dtype:6s} {str(shape):20s} {str(axes):12s} {op:6s} {cells}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2].split(","))
