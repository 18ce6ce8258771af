"""Print a tuning_sweep JSON as a table: a row a point, a column a configuration, GPU us
(! marks a point not ok). python tab.py FILE"""
import json
import sys

points = json.load(open(sys.argv[1]))
rows, cfgs = {}, []
for p in points:
    if p["cfg"] not in cfgs:
        cfgs.append(p["cfg"])
    key = (p["dtype"], p["op"], str(p["shape"]), str(p["axes"]))
    rows.setdefault(key, {})[p["cfg"]] = (p.get("gpu_s", 0) * 1e6, p["status"])
print(" " * 52 + "".join(f"{c[:13]:>14s}" for c in cfgs))
for k, v in rows.items():
    cells = "".join(f"{v[c][0]:13.1f}{'' if v[c][1] == 'ok' else '!'} " if c in v else " " * 14
                    for c in cfgs)
    print(f"{k[0]:8s}{k[1]:7s}{k[2]:20s}{k[3]:12s}" + cells)
