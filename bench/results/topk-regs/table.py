"""Time over a copy's (--us: GPU microseconds) per TopK point and configuration of a
tuning_sweep file: python bench/results/topk-regs/table.py FILE [--us] ("!" marks a point
not checked right, "err" one that did not run)."""
import collections
import json
import sys

points = json.load(open(sys.argv[1]))
us = "--us" in sys.argv[2:]
cfgs, tab = [], collections.defaultdict(dict)
for p in points:
    if p["cfg"] not in cfgs:
        cfgs.append(p["cfg"])
    ok = "" if p.get("status") == "ok" and p.get("checked") else "!"
    strategy = p.get("notes", {}).get("strategy", "?")[:4]
    if "gpu_s" not in p:
        cell = "err"
    else:
        cell = f"{p['gpu_s'] * 1e6:.1f}{ok}" if us else f"{p['copy_time_ratio']:.2f}{ok}"
    tab[(p["dtype"], p["n"], p["axis"], p["k"])][p["cfg"]] = (cell, strategy)
print(f"{'dtype':8} {'n':>6} {'ax':>3} {'k':>4} " + " ".join(f"{c:>14}" for c in cfgs))
for key in sorted(tab, key=lambda t: (t[0], t[2], t[1], t[3])):
    cells = " ".join(f"{r:>9} {s:>4}" for r, s in (tab[key].get(c, ("-", "")) for c in cfgs))
    print(f"{key[0]:8} {key[1]:6d} {key[2]:3d} {key[3]:4d} {cells}")
