"""Read-only streaming ceilings: u32 vs vec4 loads, bytes per workgroup, grid-stride; copy."""

import json
import os
import sys

import numpy as np

import dmlgpu as dg

impl = sys.argv[1]
dev = dg.Device(webgpu=impl)
g = dev.device
W = dev.wgpu
small = bool(os.environ.get("SMALL"))
MiB = 1 << 20
qs = g.create_query_set(type=W.QueryType.timestamp, count=2)
res = g.create_buffer(size=16, usage=W.BufferUsage.QUERY_RESOLVE | W.BufferUsage.COPY_SRC)

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
pipes = {}


def pipe(key, code):
    if key not in pipes:
        m = g.create_shader_module(code=code)
        pipes[key] = g.create_compute_pipeline(
            layout="auto", compute={"module": m, "entry_point": "main"}
        )
    return pipes[key]


def grid(n):
    if n <= 65535:
        return n, 1
    y = -(-n // 65535)
    return -(-n // y), y


def timed(p, nsrc, ndst, params, ngroups, reps=9):
    gx, gy = grid(ngroups)
    params = [params[0], params[1], gx, ngroups]
    ub = g.create_buffer_with_data(
        data=np.array(params, np.uint32).tobytes(), usage=W.BufferUsage.UNIFORM
    )
    bg = g.create_bind_group(
        layout=p.get_bind_group_layout(0),
        entries=[
            {"binding": 0, "resource": {"buffer": ub, "offset": 0, "size": 16}},
            {"binding": 1, "resource": {"buffer": src, "offset": 0, "size": nsrc}},
            {"binding": 2, "resource": {"buffer": dst, "offset": 0, "size": ndst}},
        ],
    )
    ts = []
    for r in range(reps):
        enc = g.create_command_encoder()
        cp = enc.begin_compute_pass(
            timestamp_writes={
                "query_set": qs,
                "beginning_of_pass_write_index": 0,
                "end_of_pass_write_index": 1,
            }
        )
        cp.set_pipeline(p)
        cp.set_bind_group(0, bg)
        cp.dispatch_workgroups(gx, gy)
        cp.end()
        enc.resolve_query_set(qs, 0, 2, res, 0)
        g.queue.submit([enc.finish()])
        t = np.frombuffer(g.queue.read_buffer(res), np.uint64)
        if r >= 2:
            ts.append((int(t[1]) - int(t[0])) * 1e-3)
    return float(np.median(ts))


sizes = [4] if small else [64, 128, 256, 512, 1024]
big = max(sizes) * MiB
src = g.create_buffer(size=big, usage=W.BufferUsage.STORAGE | W.BufferUsage.COPY_DST)
blk = (np.arange(16 * MiB // 4, dtype=np.uint64) * 2654435761 & 0x7FFFFFFF).astype(np.uint32)
for o in range(0, big, 16 * MiB):
    g.queue.write_buffer(src, o, blk[: min(16 * MiB, big - o) // 4])
dst = g.create_buffer(size=big, usage=W.BufferUsage.STORAGE)
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
json.dump(out, open(sys.argv[2], "w"), indent=1)
