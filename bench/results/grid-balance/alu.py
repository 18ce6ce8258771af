"""Ablation: read-only split kernel (u32 loads, 256 threads, unroll 16) + per-element
argmax work of dmlgpu's row kernels (uint8 packed tile max, float32 keys + take_next,
float16 packed) + the workgroup tree; time vs size. `alu.py IMPL OUT.json` -> alu-wgpu.json;
`alu.py IMPL OUT.json tree` (the tree at the end four ways) -> tree-wgpu.json."""

import json

import numpy as np
from harness import HEAD, SMALL, TREE, MiB, Probe, args

HDR = HEAD + """fn f32_key(b: u32) -> u32 {
  let c = select(b, 0u, b == 0x80000000u);
  return select(c | 0x80000000u, ~c, (c & 0x80000000u) != 0u);
}
fn is_nan(b: u32) -> bool { return (b & 0x7FFFFFFFu) > 0x7F800000u; }
fn key_bits(b: u32) -> u32 { return select(f32_key(b), 0xFFFFFFFFu, is_nan(b)); }
fn key2(b: u32) -> u32 {
  let c = select(b, 0u, b == 0x80000000u);
  let k = c ^ (u32(i32(c) >> 31u) | 0x80000000u);
  return select(k, 0xFFFFFFFFu, (b & 0x7FFFFFFFu) > 0x7F800000u);
}
fn take_next(k: u32, i: u32, best: ptr<function, u32>, best_i: ptr<function, u32>) {
  let t = (k > *best) | ((*best_i == NONE) & (k == *best));
  *best = select(*best, k, t);
  *best_i = select(*best_i, i, t);
}
fn f16x2_keys(w: u32) -> u32 {
  let a = w & 0x7FFF7FFFu;
  let s = w & (a + 0x7FFF7FFFu) & 0x80008000u;
  let nan = (a + 0x03FF03FFu) & 0x80008000u;
  let key = (w | 0x80008000u) ^ s ^ (s - (s >> 15u));
  return key | nan | (nan - (nan >> 15u));
}
var<workgroup> shk: array<u32, 256>;
var<workgroup> shi: array<u32, 256>;
"""
U = 16


def kernel(work, tree):
    loads = "".join(f"    let w{i} = src[base + k + {256 * i}u];\n" for i in range(U))
    if work == "max":
        body = "".join(f"    m = max(m, w{i});\n" for i in range(U))
        fin = "bk = m; bi = 7u;"
    elif work == "u8":
        body = "    var pk = 0u;\n"
        for i in range(U):
            body += f"    let q{i} = w{i} ^ 0u;\n"
            for l in range(4):
                sh = [
                    f"(q{i} << 24u)",
                    f"((q{i} << 16u) & 0xFF000000u)",
                    f"((q{i} << 8u) & 0xFF000000u)",
                    f"(q{i} & 0xFF000000u)",
                ][l]
                body += f"    pk = max(pk, {sh} | {16777215 - 4 * i - l}u);\n"
        body += "    if ((pk >> 24u) > bk) { bk = pk >> 24u; bi = k + (pk & 0xFFFFFFu); }\n"
        fin = ""
    elif work == "f16":
        body = "    var pk = 0u;\n"
        for i in range(U):
            body += f"    let q{i} = f16x2_keys(w{i});\n"
            body += f"    pk = max(pk, (q{i} << 16u) | {65535 - 2 * i}u);\n"
            body += f"    pk = max(pk, (q{i} & 0xFFFF0000u) | {65535 - 2 * i - 1}u);\n"
        body += "    if ((pk >> 16u) > bk) { bk = pk >> 16u; bi = k + (pk & 0xFFFFu); }\n"
        fin = ""
    elif work in ("f32", "f32b"):
        kf = "key_bits" if work == "f32" else "key2"
        body = "".join(f"    take_next({kf}(w{i}), k + {256 * i}u, &bk, &bi);\n" for i in range(U))
        fin = ""
    elif work == "f32t":  # tile max of cheap keys, locate on a win
        body = "".join(f"    let q{i} = key2(w{i});\n" for i in range(U))
        body += "    var tm = q0;\n" + "".join(f"    tm = max(tm, q{i});\n" for i in range(1, U))
        body += "    if (tm > bk || bi == NONE) {\n      bk = tm;\n"
        body += "".join(
            f"      if (q{i} == tm) {{ bi = k + {256 * i}u; }}\n" for i in reversed(range(U))
        )
        body += "    }\n"
        fin = ""
    if tree == "sg":
        fin += """
  let sm = subgroupMax(bk);
  let mi = subgroupMin(select(NONE, bi, bk == sm));
  if (sgl == 0u) { shk[lid / sgs] = sm; shi[lid / sgs] = mi; }
  workgroupBarrier();
  if (lid < 32u) {
    let nsg = 256u / sgs;
    let k2 = select(0u, shk[lid], lid < nsg);
    let i2 = select(NONE, shi[lid], lid < nsg);
    let m2 = subgroupMax(k2);
    let mi2 = subgroupMin(select(NONE, i2, k2 == m2));
    if (lid == 0u) { dst[gi] = m2 ^ mi2; }
  }
"""
    elif tree == "unrolled":
        fin += "\n  shk[lid] = bk; shi[lid] = bi;\n  workgroupBarrier();\n"
        h = 128
        while h >= 1:
            fin += f"""  if (lid < {h}u) {{
    let k1 = shk[lid + {h}u]; let i1 = shi[lid + {h}u];
    if (k1 > bk || (k1 == bk && i1 < bi)) {{ bk = k1; bi = i1; }}
    shk[lid] = bk; shi[lid] = bi;
  }}
  workgroupBarrier();
"""
            h //= 2
        fin += "  if (lid == 0u) { dst[gi] = bk ^ bi; }\n"
    elif tree:
        fin += TREE
    else:
        fin += "\n  if ((bk ^ bi) == 0x12345u) { dst[gi] = bi; }\n"
    SGARGS = (
        ", @builtin(subgroup_invocation_id) sgl: u32, @builtin(subgroup_size) sgs: u32"
        if tree == "sg"
        else ""
    )
    pre = "enable subgroups;\n" if (tree == "sg" and impl == "dawn") else ""
    return (
        pre
        + HDR
        + f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32{SGARGS}) {{
  let gi = wid.x + wid.y * u.gx;
  if (gi >= u.ng) {{ return; }}
  let base = gi * u.chunk + lid;
  var bk = 0u; var bi = NONE; var m = 0u;
  for (var k = 0u; k < u.chunk; k += {256 * U}u) {{
{loads}{body}  }}
{fin}
}}
"""
    )


impl, out_path, rest = args()
mode = rest[0] if rest else "alu"
if mode == "tree":  # the tree at the end: none, a loop, unrolled, subgroup reductions
    sizes, works, trees = [128, 1024], ("f32t", "u8", "f16"), (False, True, "unrolled", "sg")
else:  # the per-element work, with and without the tree
    sizes, works = [64, 128, 256, 1024], ("max", "u8", "f16", "f32", "f32b", "f32t")
    trees = (False, True)
sizes = [4] if SMALL else sizes
rng = np.random.default_rng(0)
probe = Probe(
    impl, max(sizes) * MiB, 1 << 20, rng.standard_normal(4 * MiB, dtype=np.float32).view(np.uint32)
)
out = []
for s in sizes:
    nb = s * MiB
    rec = {"MiB": s}
    for work in works:
        for tree in trees:
            for cb in (16384, 65536):
                name = tree if isinstance(tree, str) else ("tree" if tree else "flat")
                p = probe.pipe((work, tree), kernel(work, tree))
                rec[f"{work} {name} {cb // 1024}K"] = probe.timed(
                    p, nb, 1 << 20, [nb // 4, cb // 4], nb // cb
                )
    print(json.dumps(rec), flush=True)
    out.append(rec)
json.dump(out, open(out_path, "w"), indent=1)
