"""`python bench/results/argreduce-tally/table.py FILE.json`: a tuning sweep's ArgMax points,
one row a point, each config's GPU time (* where the merge ran in the split pass) and
fraction of a copy's bandwidth."""
import json
import sys

r = json.load(open(sys.argv[1]))
pts = r if isinstance(r, list) else r.get("points", r)
rows, cfgs = {}, []
for p in pts:
    if p["cfg"] not in cfgs:
        cfgs.append(p["cfg"])
    rows.setdefault((p["dtype"], tuple(p["shape"]), tuple(p["axes"])), {})[p["cfg"]] = p
print("not ok", sum(p.get("status") != "ok" for p in pts))
print(f"{'':8} {'shape':20} {'axes':12} {'strategy':9} {'split':>5} "
      + " ".join(f"{c:>14}" for c in cfgs))
for (dtype, shape, axes), v in rows.items():
    t = v[cfgs[0]]["notes"]
    cells = [f"{v[c]['gpu_s'] * 1e6:7.1f}{'*' if v[c]['notes'].get('tally_merge') else ' '}"
             f"({v[c]['copy_fraction'] * 100:3.0f}%)" for c in cfgs]
    print(f"{dtype:8} {str(shape):20} {str(axes):12} {t['strategy']:9} {t['split']:5} "
          + " ".join(cells))
