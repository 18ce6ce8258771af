"""Fixed cost of read-only kernels against the copy: GPU us at 16..256 MiB (MIBS=a,b,..) of
copy / read1 (a vec4 a thread, a workgroup per 4 KiB) / readloop (N workgroups looping,
16 vec4 loads a thread a tile, T tiles a workgroup) / uint8 flat ArgMax, four runs a timed pass.
Run from the repository root: PYTHONPATH=. python bench/results/read-floor/readf.py IMPL OUT.json"""
import json
import os
import statistics
import sys

import numpy as np

import dmlgpu as dg
from bench import clocks
from bench.runner import copy_bound
from dmlgpu import codegen
from dmlgpu.runtime import dispatch

# the uniform block as every kernel declares it (codegen.PARAMS: pack_params' layout)
PARAMS = ("struct Params {\n" + "".join(
    f"  {name}: {f'array<vec4<u32>, {count // 4}>' if count > 1 else 'u32'},\n"
    for name, count in codegen.PARAMS) + "}\n"
    + "@group(0) @binding(0) var<uniform> u: Params;\n")
HEAD = PARAMS + """@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
"""
READ1 = HEAD + """
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = wid.x + wid.y * u.groups_x;
  if (g >= u.n_groups) { return; }
  let i = g * 256u + lid;
  if (i < u.aux0) {
    let v = src[i];
    if (v.x == 0x12345678u && v.y == 0x9abcdef0u) { dst[lid] = v; }
  }
}
"""
LOOP = HEAD + """
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let g = wid.x + wid.y * u.groups_x;
  if (g >= u.n_groups) { return; }
  let per = u.aux0 / u.n_groups;
  let base = g * per;
  var m = vec4<u32>(0u);
  for (var t = 0u; t < per; t += 4096u) {
    let a = base + t + lid;
""" + "".join(f"    let v{j} = src[a + {j * 256}u];\n" for j in range(16)) + """
    m = max(m, max(max(max(max(v0, v1), max(v2, v3)), max(max(v4, v5), max(v6, v7))),
                   max(max(max(v8, v9), max(v10, v11)), max(max(v12, v13), max(v14, v15)))));
  }
  if (m.x == 0x12345678u && m.y == 0x9abcdef0u) { dst[lid] = m; }
}
"""


def main(impl: str, out: str) -> None:
    orig = codegen.render

    def render(template, variables):
        if template == "read1.wgsl":
            return READ1
        if template == "readloop.wgsl":
            return LOOP
        return orig(template, variables)
    codegen.render = render
    clocks.hold()  # (the runs below had no CUDA context: see ../tilecol-read/README.md)
    dev = dg.Device(webgpu=impl)
    timer = dispatch.GpuTimer(dev)

    def t(bounds, n=9, runs=4):
        xs = [timer.run(bounds * runs) / runs for _ in range(n + 2)][2:]
        return statistics.median(xs) * 1e6

    rec = []
    for mib in tuple(int(v) for v in os.environ.get("MIBS", "16,32,64,128,256").split(",")):
        size = mib << 20
        n_vec = size // 16
        src = dev.create_buffer(size, what="src")
        dst = dev.create_buffer(size, what="dst")
        dev.upload(src, np.arange(size // 4, dtype=np.uint32))
        small = dev.create_buffer(4096, what="small")
        row = {"mib": mib}
        row["copy"] = t([copy_bound(dev, src, dst, size, n_vec, "copy")])
        for name, groups in (("read1", -(-n_vec // 256)),
                             *((f"loopT{T}", n_vec // (4096 * T)) for T in (1, 2, 8))):
            tmpl = "read1.wgsl" if name == "read1" else "readloop.wgsl"
            if groups < 1 or (name != "read1" and n_vec % (groups * 4096)):
                row[name] = None
                continue
            pipeline, layout = dev.pipelines.get(tmpl)
            b = dispatch.bind(dev, [dispatch.Launch(
                pipeline, layout, [(src, 0, size), (small, 0, 4096)],
                codegen.pack_params(n_groups=groups, aux0=n_vec), groups)], name)
            row[name] = t([b])
        x = dg.asarray(np.random.default_rng(0).integers(0, 255, size, dtype=np.uint8), device=dev)
        dg.argmax(x).numpy()  # (a first call's one-time work stays out of the recording)
        with dispatch.recording() as subs:
            y = dg.argmax(x)
        row["argmax_u8"] = t([b for b, _ in subs])
        print(row, flush=True)
        rec.append(row)
        del x, y, subs, src, dst, small
    json.dump(rec, open(out, "w"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
