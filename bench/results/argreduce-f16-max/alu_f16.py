"""Probe: float16 ArgMax's per-word work in a read-only split kernel (u32 loads, 256
threads, 16 words a thread a tile, the workgroup tree at the end), on normal float16 data:
- max: a bare max of the words (the ceiling);
- f16: the row kernel's packed loop (keys of both halves without the NaN fix-up, a NaN test
  ORed over the tile, one max an element of (key << 16) | code);
- f16u: the tile's max over unpack2x16float's vec2<f32> (core WGSL), the NaN test; where
  the tile beats the running best, the first half equal to it (a search), where a half is
  NaN the packed loop above;
- f16u-nonan: f16u without the NaN test (what the test costs);
- f16s: f16u with NaN found by a sum of the tile's halves (float adds: a NaN half makes it
  NaN), and a tile whose max is zero also taken by the packed loop (a flushed subnormal
  reads as zero);
- f16s-search: f16s with the packed loop replaced by the search (timing only: the code size);
- f16t: f16u with the NaN test ORed over all of a thread's tiles and the packed loop run
  over its range again after the loop where one was NaN.
`PYTHONPATH=. python bench/results/argreduce-f16-max/alu_f16.py IMPL OUT.json`."""

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "grid-balance"))
from harness import HEAD, SMALL, TREE, MiB, Probe, args  # noqa: E402

HDR = HEAD + """fn finite_keys(w: u32) -> u32 {
  let a = w & 0x7FFF7FFFu;
  let s = w & (a + 0x7FFF7FFFu) & 0x80008000u;
  return (w | 0x80008000u) ^ s ^ (s - (s >> 15u));
}
fn nan_bits(w: u32) -> u32 { return (w & 0x7FFF7FFFu) + 0x03FF03FFu; }
fn keys(w: u32) -> u32 {
  let nan = nan_bits(w) & 0x80008000u;
  return finite_keys(w) | nan | (nan - (nan >> 15u));
}
var<workgroup> shk: array<u32, 256>;
var<workgroup> shi: array<u32, 256>;
"""
U = 16


def packed(kf):
    """(key << 16) | code over the tile's 32 halves, the best into (bk, bi)."""
    b = "    var pk = 0u;\n"
    for i in range(U):
        b += f"    let q{i} = {kf}(w{i});\n"
        b += f"    pk = max(pk, (q{i} << 16u) | {65535 - 2 * i}u);\n"
        b += f"    pk = max(pk, (q{i} & 0xFFFF0000u) | {65535 - 2 * i - 1}u);\n"
    b += ("    if ((pk >> 16u) > bk || bi == NONE) { bk = pk >> 16u; "
          "let m = 65535u - (pk & 0xFFFFu); bi = (k + (m / 2u) * 256u) * 2u + m % 2u; }\n")
    return b


def kernel(work):
    loads = "".join(f"    let w{i} = src[base + k + {256 * i}u];\n" for i in range(U))
    if work == "max":
        body = "".join(f"    m = max(m, w{i});\n" for i in range(U))
        fin = "bk = m; bi = 7u;"
    elif work == "f16":
        body = "    nn = 0u;\n" + "".join(f"    nn |= nan_bits(w{i});\n" for i in range(U))
        body += "    if ((nn & 0x80008000u) != 0u) {\n" + packed("keys") + "    } else {\n"
        body += packed("finite_keys") + "    }\n"
        fin = ""
    elif work.startswith("f16u"):
        body = "    var hm = unpack2x16float(w0);\n"
        body += "".join(f"    hm = max(hm, unpack2x16float(w{i}));\n" for i in range(1, U))
        body += "    let tm = max(hm.x, hm.y);\n"
        if work == "f16u":
            body += "    nn = 0u;\n" + "".join(
                f"    nn |= nan_bits(w{i});\n" for i in range(U))
            body += "    if ((nn & 0x80008000u) != 0u) {\n" + packed("keys") + \
                "      bv = 65504.0;\n    } else if (tm > bv || bi == NONE) {\n"
        else:
            body += "    if (tm > bv || bi == NONE) {\n"
        body += "      bv = tm;\n" + search()
        body += "    }\n"
        fin = "bk = bitcast<u32>(bv);"
    elif work.startswith("f16s"):
        body = "    var hm = unpack2x16float(w0);\n    var hs = hm;\n"
        for i in range(1, U):
            body += f"    {{ let v = unpack2x16float(w{i}); hm = max(hm, v); hs = hs + v; }}\n"
        body += "    let tm = max(hm.x, hm.y);\n"
        body += ("    if ((bitcast<u32>(hs.x + hs.y) & 0x7FFFFFFFu) > 0x7F800000u "
                 "|| tm == 0.0) {\n")
        body += (packed("keys") if work == "f16s" else search()) + \
            "      bv = 65504.0;\n    } else if (tm > bv || bi == NONE) {\n"
        body += "      bv = tm;\n" + search() + "    }\n"
        fin = "bk = bitcast<u32>(bv);"
    elif work == "f16t":
        body = "    var hm = unpack2x16float(w0);\n"
        body += "".join(f"    hm = max(hm, unpack2x16float(w{i}));\n" for i in range(1, U))
        body += "".join(f"    nn |= nan_bits(w{i});\n" for i in range(U))
        body += "    let tm = max(hm.x, hm.y);\n    if (tm > bv || bi == NONE) {\n"
        body += "      bv = tm;\n" + search() + "    }\n"
        fin = ("if ((nn & 0x80008000u) != 0u) {\n  for (var k = 0u; k < u.chunk; k += "
               f"{256 * U}u) {{\n{loads}{packed('keys')}  }}\n}}\n")
        fin += "bk = bitcast<u32>(bv);"
    return kernel_text(body, fin, loads)


def search(lanes: str = "unpack2x16float(w{i})", vec: str = "vec2<f32>"):
    """The first half of the tile equal to tm into bi (word i's halves: `lanes`, of type
    `vec`)."""
    body = f"      let v2 = {vec}(tm, tm);\n"
    for i in reversed(range(U)):
        body += (f"      {{ let e = {lanes.format(i=i)} == v2; "
                 f"bi = select(bi, (k + {256 * i}u) * 2u + 1u, e.y); "
                 f"bi = select(bi, (k + {256 * i}u) * 2u, e.x); }}\n")
    return body


def kernel_text(body, fin, loads):
    fin += TREE
    return HDR + f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let gi = wid.x + wid.y * u.gx;
  if (gi >= u.ng) {{ return; }}
  let base = gi * u.chunk + lid;
  var bk = 0u; var bi = NONE; var m = 0u; var bv = 0.0; var nn = 0u;
  for (var k = 0u; k < u.chunk; k += {256 * U}u) {{
{loads}{body}  }}
{fin}
}}
"""


def run(kernel_of, works) -> None:
    """Each work's kernel (kernel_of(work)) over 128 and 256 MiB of normal float16 (SMALL:
    4 MiB), 64 and 128 KiB a workgroup: median microseconds, printed and to OUT.json."""
    impl, out_path, rest = args()
    sizes = [4] if SMALL else [128, 256]
    rng = np.random.default_rng(0)
    words = rng.standard_normal(8 * MiB).astype(np.float16).view(np.uint32)
    probe = Probe(impl, max(sizes) * MiB, 1 << 20, words)
    out = []
    for s in sizes:
        nb = s * MiB
        rec = {"MiB": s}
        for work in works:
            for cb in (65536, 131072):
                p = probe.pipe(work, kernel_of(work))
                rec[f"{work} {cb // 1024}K"] = probe.timed(p, nb, 1 << 20, [nb // 4, cb // 4],
                                                           nb // cb)
        print(json.dumps(rec), flush=True)
        out.append(rec)
    json.dump(out, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    run(kernel, ("max", "f16", "f16u", "f16u-nonan", "f16s", "f16s-search", "f16t"))
