"""Time ArgMax points under WGSL surgery that removes one piece of the kernel at a time
(timing only: the pieces removed make the answers wrong).
PYTHONPATH=. python bench/results/argreduce-wg-pack/pieces.py IMPL OUT.json [pack]"""
import json
import re
import sys

import bench.surface as S
from bench import tuning_sweep
from dmlgpu import codegen

orig = codegen.render
CUR = {"v": ()}

def main_part(src, f):
    i = src.index("fn main(")
    return src[:i] + f(src[i:])

def nomerge(src):
    return src.replace("seen == u.n_split - 1u", "false")

def notree(src):
    def f(m):
        m = m.replace("workgroupBarrier();", "")
        m = re.sub(r"if \((sub|y|lid % \d+u) < \d+u\)", "if (false)", m)
        return m
    return main_part(src, f)

def lanes1(src):
    lines = [l for l in src.splitlines()
             if not (re.search(r"pk\w* = max\(pk\w*, ", l) and "& 0xFF000000u" in l)]
    return "\n".join(lines)

def atree(src):
    # packed row kernels (tally_pack, one output a workgroup): the tree by a workgroup atomicMax
    m = re.search(r"atomicMax\(&tally\[o\], (.*)\);", src)
    a = src.find("  shk[lid] = bk;\n  shi[lid] = bi;\n  workgroupBarrier();")
    b = src.find("  if (sub == 0u && live) { emit(")
    if not m or a < 0 or b < 0 or "const R = 1u;" not in src:
        return src
    e = src.index("\n", b)
    new = ("  if (bi != NONE) { let i = bi; let k = bk; atomicMax(&t_wg, " + m.group(1) + "); }\n"
           "  workgroupBarrier();\n"
           "  if (sub == 0u && live) { let w = atomicLoad(&t_wg); if (w != 0u) { "
           "let old = atomicMax(&tally[o], w); atomicMax(&t_dep, old); } }\n")
    src = src[:a] + new + src[e + 1:]
    at = "  let s = g % u.n_split;\n"
    src = src.replace(at, at + "  if (lid == 0u) { atomicStore(&t_wg, 0u); }\n"
                      "  workgroupBarrier();\n", 1)
    return src.replace("var<workgroup> shk:",
                       "var<workgroup> t_wg: atomic<u32>;\nvar<workgroup> shk:", 1)

SURG = {"nomerge": nomerge, "notree": notree, "lanes1": lanes1, "atree": atree}

def render(t, v):
    src = orig(t, v)
    if t.startswith("argreduce"):
        for s in CUR["v"]:
            src = SURG[s](src)
    return src

codegen.render = render
orig_point = S.Surface.point
def point(self, grid, dtype, labels, call, check, *a, **k):
    return orig_point(self, grid, dtype, labels, call,
                      (lambda outs: None) if CUR["v"] else check, *a, **k)
S.Surface.point = point

impl, out = sys.argv[1], sys.argv[2]
which = sys.argv[3] if len(sys.argv) > 3 else "pieces"
if which == "pieces":
    pts = [[[2, 4096, 8192], [0, 1, 2]], [[2, 4096, 8192], [1, 2]], [[8192, 4096, 2], [0]],
           [[2, 4096, 8192], [1]], [[8192, 4096, 2], [0, 1]], [[128, 128, 128, 64], [0, 1, 2]],
           [[8192, 4096, 2], [1]], [[2, 256, 256, 1024], [0, 2]]]
    specs = [{"dtypes": ["uint8"], "points": pts, "ops": ["argmax"]}]
    variants = [("base", (), {}), ("nomerge", ("nomerge",), {}), ("notree", ("notree",), {}),
                ("lanes1", ("lanes1",), {}), ("nm+nt", ("nomerge", "notree"), {}),
                ("nm+nt+l1", ("nomerge", "notree", "lanes1"), {}), ("base", (), {})]
else:  # packing first
    pu = [[[2, 4096, 8192], [0, 1, 2]], [[2, 4096, 8192], [1, 2]], [[8192, 4096, 2], [0, 1, 2]],
          [[8192, 4096, 2], [0]], [[2, 4096, 8192], [1]], [[8192, 4096, 2], [0, 1]]]
    pf = [[[2, 4096, 8192], [0, 1, 2]], [[2, 4096, 8192], [1, 2]], [[8192, 4096, 2], [0, 1, 2]]]
    specs = [{"dtypes": ["uint8"], "points": pu, "ops": ["argmax", "argmin"]},
             {"dtypes": ["float16"], "points": pf, "ops": ["argmax", "argmin"]}]
    R = {"TALLY_PACK_FIRST": ["row"]}
    A = {"TALLY_PACK_FIRST": ["row", "tilecol", "lanes"]}
    variants = [("base", (), {}), ("pf-row", (), R), ("pf-row+atree", ("atree",), R),
                ("pf-all", (), A), ("base", (), {}), ("pf-row", (), R),
                ("pf-row+atree", ("atree",), R), ("pf-all", (), A)]
res = []
for rnd, (name, v, cfg) in enumerate(variants):
    CUR["v"] = v
    for sp in specs:
        spec = dict(sp, grid="argreduce", check_every=1, torch=False, runs_per_pass=4)
        for p in tuning_sweep.sweep(impl, [[f"{name}#{rnd}", cfg]], spec):
            res.append(p)
            print(f"{name:14s} {p['dtype']:8s} {p['op']} {str(p['shape']):20s} "
                  f"{str(p['axes']):10s} "
                  f"{p.get('gpu_s', 0) * 1e6:7.1f} us {100 * p.get('copy_fraction', 0):5.1f}% "
                  f"{p['status']}", flush=True)
    with open(out, "w") as f:
        json.dump(res, f, separators=(",", ":"))
