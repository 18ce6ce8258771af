"""tab.py FILE: GPU us (and % of a copy) a point a configuration, configurations as columns."""
import json
import sys
from collections import defaultdict

pts = json.load(open(sys.argv[1]))
pts = pts["points"] if isinstance(pts, dict) else pts
cfgs, rows = [], defaultdict(dict)
for p in pts:
    c = p.get("cfg", "?")
    if c not in cfgs:
        cfgs.append(c)
    key = (p["dtype"], str(p.get("op", p.get("grid"))), str(p["shape"]), str(p["axes"]))
    rows[key][c] = (f"{p['gpu_s'] * 1e6:.1f} ({100 * p['copy_fraction']:.0f}%)"
                    if p.get("status") == "ok" else p.get("status", "?"))
print(" | ".join(["dtype", "op", "shape", "axes"] + cfgs))
for k, v in rows.items():
    print(" | ".join(list(k) + [v.get(c, "") for c in cfgs]))
