import json, sys, collections
f = sys.argv[1]; pairs = sys.argv[2].split(",")  # base,tt,base2,tt2
p = json.load(open(f))
t = collections.defaultdict(dict)
for q in p:
    if q.get("status") != "ok": 
        if "torch" not in q["cfg"]: print("BAD", q["cfg"], q.get("error")); 
        continue
    t[(q["dtype"], tuple(q["shape"]), tuple(q["axes"]), q["op"])][q["cfg"]] = (q["gpu_s"]*1e6, q["copy_fraction"]*100)
for k, v in t.items():
    s = " | ".join(f"{c} {v[c][0]:6.1f} ({v[c][1]:4.1f}%)" if c in v else f"{c} -" for c in pairs)
    print(f"{k[0]:6s} {str(k[1]):20s} {str(k[2]):12s} {k[3]:6s} {s}")
