"""Ablation: read-only split kernel (u32 loads, 256 threads, unroll 16) + per-element
argmax work of dmlgpu's row kernels (uint8 packed tile max, float32 keys + take_next,
float16 packed) + the workgroup tree; time vs size."""

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
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
const NONE = 0xFFFFFFFFu;
fn f32_key(b: u32) -> u32 {
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
    if tree:
        fin += """
  shk[lid] = bk; shi[lid] = bi;
  workgroupBarrier();
  for (var h = 128u; h > 0u; h >>= 1u) {
    if (lid < h) {
      let k1 = shk[lid + h]; let i1 = shi[lid + h];
      if (k1 > bk || (k1 == bk && i1 < bi)) { bk = k1; bi = i1; }
      shk[lid] = bk; shi[lid] = bi;
    }
    workgroupBarrier();
  }
  if (lid == 0u) { dst[gi] = bk ^ bi; }
"""
    else:
        fin += "\n  if ((bk ^ bi) == 0x12345u) { dst[gi] = bi; }\n"
    return (
        HDR
        + f"""
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
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


sizes = [4] if small else [64, 128, 256, 1024]
big = max(sizes) * MiB
src = g.create_buffer(size=big, usage=W.BufferUsage.STORAGE | W.BufferUsage.COPY_DST)
rng = np.random.default_rng(0)
blk = rng.standard_normal(4 * MiB, dtype=np.float32).view(np.uint32)
for o in range(0, big, 16 * MiB):
    g.queue.write_buffer(src, o, blk[: min(16 * MiB, big - o) // 4])
dst = g.create_buffer(size=1 << 20, usage=W.BufferUsage.STORAGE)
out = []
for s in sizes:
    nb = s * MiB
    rec = {"MiB": s}
    for work in ("max", "u8", "f16", "f32", "f32b", "f32t"):
        for tree in (False, True):
            for cb in (16384, 65536):
                chunk = cb // 4
                ng = nb // cb
                rec[f"{work} {'tree' if tree else 'flat'} {cb // 1024}K"] = timed(
                    pipe((work, tree), kernel(work, tree)), nb, 1 << 20, [nb // 4, chunk], ng
                )
    print(json.dumps(rec), flush=True)
    out.append(rec)
json.dump(out, open(sys.argv[2], "w"), indent=1)
