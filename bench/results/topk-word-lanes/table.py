"""Time over a copy's per point and configuration of a tuning_sweep JSON (TopK), and the
K <= 8 points within 2x a copy's time per configuration.

    python bench/results/topk-word-lanes/table.py FILE.json
"""
import json
import sys

pts = json.load(open(sys.argv[1]))
cfgs: list[str] = []
by = {}
for p in pts:
    if p["cfg"] not in cfgs:
        cfgs.append(p["cfg"])
    by[(p["cfg"], p["dtype"], p["n"], p["k"])] = p
print("not ok:", sum(p["status"] != "ok" for p in pts), "of", len(pts))
print("dtype n k |", " | ".join(cfgs))
for key in sorted({(p["dtype"], p["n"], p["k"]) for p in pts}):
    cells = [f"{by[(c, *key)]['copy_time_ratio']:5.2f}" if (c, *key) in by else "  -  "
             for c in cfgs]
    print(f"{key[0]} {key[1]:8d} {key[2]:3d} |", " ".join(cells))
for c in cfgs:
    ps = [p for p in pts if p["cfg"] == c and p["k"] <= 8]
    ok = [p for p in ps if p["copy_time_ratio"] <= 2]
    print(c, "K <= 8 within 2x a copy:", len(ok), "of", len(ps),
          "(float16", sum(p["dtype"] == "float16" for p in ok), ")")
