"""Read-only streaming ceilings: u32 vs vec4 loads, bytes per workgroup, grid-stride; copy."""

import json

import numpy as np
from harness import SMALL, MiB, Probe, args

HDR = """
struct P { n: u32, chunk: u32, gx: u32, ng: u32 }
@group(0) @binding(0) var<uniform> u: P;
@group(0) @binding(1) var<storage, read> src: array<{T}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{D}>;
"""


def split_kernel(T, unroll):
    body = f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let gi = wid.x + wid.y * u.gx;
  if (gi >= u.ng) {{ return; }}
  let base = gi * u.chunk + lid;
  var m = {T}();
  var j = idx(0);
  for (var k = 0u; k < u.chunk; k += {256 * unroll}u) {{
    {"".join(f"let v{i} = src[base + k + {256 * i}u];" for i in range(unroll))}
    {"".join(f"m = max(m, v{i});" for i in range(unroll))}
  }}
  if (all(m == {T}(0xffffffffu))) {{ dst[gi] = {T}(1u); }}
}}
"""
    return HDR.replace("{T}", T).replace("{D}", T) + "fn idx(i: u32) -> u32 { return i; }\n" + body


def gs_kernel(T, unroll):
    return (
        HDR.replace("{T}", T).replace("{D}", T)
        + f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let gi = wid.x + wid.y * u.gx;
  let stride = u.ng * 256u;
  var m = {T}();
  var i = gi * 256u + lid;
  for (; i + {unroll - 1}u * stride < u.n; i += {unroll}u * stride) {{
    {"".join(f"let v{k} = src[i + {k}u * stride];" for k in range(unroll))}
    {"".join(f"m = max(m, v{k});" for k in range(unroll))}
  }}
  for (; i < u.n; i += stride) {{ m = max(m, src[i]); }}
  if (all(m == {T}(0xffffffffu))) {{ dst[gi] = {T}(1u); }}
}}
"""
    )


COPY = (
    HDR.replace("{T}", "vec4<u32>").replace("{D}", "vec4<u32>")
    + """
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let gi = wid.x + wid.y * u.gx;
  if (gi >= u.ng) { return; }
  let i = gi * 256u + lid;
  if (i < u.n) { dst[i] = src[i]; }
}
"""
)
impl, out_path, _ = args()
sizes = [4] if SMALL else [64, 128, 256, 512, 1024]
big = max(sizes) * MiB
probe = Probe(
    impl,
    big,
    big,
    (np.arange(16 * MiB // 4, dtype=np.uint64) * 2654435761 & 0x7FFFFFFF).astype(np.uint32),
)
timed, pipe = probe.timed, probe.pipe
out = []
for s in sizes:
    nb = s * MiB
    rec = {"MiB": s}
    n16 = nb // 16
    rec["copy"] = timed(pipe("copy", COPY), nb, nb, [n16, 0], -(-n16 // 256))
    for T, unit in (("u32", 4), ("vec4<u32>", 16)):
        nu = nb // unit
        for unroll in (4, 16):
            for cb in (4096, 16384, 65536, 262144):
                chunk = cb // unit
                if chunk < 256 * unroll:
                    continue
                ng = nu // chunk
                rec[f"split {T} u{unroll} {cb // 1024}K"] = timed(
                    pipe(("s", T, unroll), split_kernel(T, unroll)),
                    nb,
                    max(256, ng * unit),
                    [nu, chunk],
                    ng,
                )
            for ng in (528, 1056, 2112, 4224):
                rec[f"gs {T} u{unroll} g{ng}"] = timed(
                    pipe(("g", T, unroll), gs_kernel(T, unroll)), nb, ng * unit, [nu, 0], ng
                )
    print(json.dumps(rec), flush=True)
    out.append(rec)
json.dump(out, open(out_path, "w"), indent=1)
