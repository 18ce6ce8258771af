"""Tabulate a tuning sweep: python table.py FILE.json ... (GPU us / % of a copy a config)."""
import json
import sys


def table(path: str) -> None:
    d = json.load(open(path))
    points = d["points"] if isinstance(d, dict) else d
    rows, cfgs = {}, []
    for p in points:
        if p.get("cfg") not in cfgs:
            cfgs.append(p.get("cfg"))
        rows.setdefault((p["dtype"], tuple(p["shape"]), tuple(p["axes"])), {})[p.get("cfg")] = p
    print(path)
    print(" " * 42, " ".join(f"{c[:10]:>10}" for c in cfgs))
    for (dtype, shape, axes), by in rows.items():
        cells = []
        for c in cfgs:
            p = by.get(c)
            if p is None or p["status"] != "ok":
                cells.append(f"{'-' if p is None else p['status'][:5]:>10}")
            else:
                cells.append(f"{p['gpu_s'] * 1e6:6.1f}/{p['copy_fraction'] * 100:3.0f}")
        print(f"{dtype:8} {str(shape):22} {str(axes):10}", " ".join(cells))


if __name__ == "__main__":
    for f in sys.argv[1:]:
        table(f)
