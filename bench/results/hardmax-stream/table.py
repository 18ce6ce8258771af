"""GPU time (us) and time over a copy's (of the input's bytes, read and written) per point
and configuration of a Hardmax tuning_sweep JSON, and the worst ratio per configuration.

    python bench/results/hardmax-stream/table.py FILE.json
"""
import json
import sys

pts = json.load(open(sys.argv[1]))
cfgs: list[str] = []
by = {}
for p in pts:
    if p["cfg"] not in cfgs:
        cfgs.append(p["cfg"])
    by[(p["cfg"], p["dtype"], tuple(p["shape"]), tuple(p["axes"]))] = p
print("not ok:", sum(p["status"] != "ok" or not p["checked"] for p in pts), "of", len(pts))
print(f"{'dtype':8} {'shape':18} {'axes':8}|", " | ".join(f"{c[:16]:>16}" for c in cfgs))
for key in dict.fromkeys((p["dtype"], tuple(p["shape"]), tuple(p["axes"])) for p in pts):
    cells = []
    for c in cfgs:
        p = by.get((c, *key))
        cells.append(f"{p['gpu_s'] * 1e6:7.1f} {p['copy_time_ratio']:5.2f}x" if p else
                     f"{'-':>16}")
    shape = "x".join(map(str, key[1]))
    axes = ",".join(map(str, key[2]))
    print(f"{key[0]:8} {shape:18} {axes:8}|", " | ".join(f"{x:>16}" for x in cells))
for c in cfgs:
    ps = [p for p in pts if p["cfg"] == c]
    w = max(ps, key=lambda p: p["copy_time_ratio"])
    print(f"{c}: worst {w['copy_time_ratio']:.2f}x ({w['dtype']} {w['shape']} over {w['axes']}),",
          sum(p["copy_time_ratio"] <= 1.3 for p in ps), "of", len(ps), "within 1.3x")
