"""Does vec2<f16> arithmetic on bitcast u32 words compute the right thing?

`python bitcast_probe.py wgpu|dawn` on any adapter with shader-f16: the max of 8192 float16
pairs (two words' halves) six ways, each against numpy; prints the wrong halves per way
("compile fail" where the WGSL is rejected, "no shader-f16" where the adapter lacks it).
"""

import sys

import numpy as np

WAYS = {
    "roundtrip": "let h = bitcast<vec2<f16>>(a); o[2u * i] = bitcast<u32>(h);",
    "max": "var h = bitcast<vec2<f16>>(a); h = max(h, bitcast<vec2<f16>>(b));"
           " o[2u * i] = bitcast<u32>(h);",
    "max of lets": "let ha = bitcast<vec2<f16>>(a); let hb = bitcast<vec2<f16>>(b);"
                   " o[2u * i] = bitcast<u32>(max(ha, hb));",
    "select": "let ha = bitcast<vec2<f16>>(a); let hb = bitcast<vec2<f16>>(b);"
              " o[2u * i] = bitcast<u32>(select(ha, hb, hb > ha));",
    "typed let": "let ha: vec2<f16> = bitcast<vec2<f16>>(a);"
                 " let hb: vec2<f16> = bitcast<vec2<f16>>(b);"
                 " o[2u * i] = bitcast<u32>(max(ha, hb));",
    "f16 binding": "let ha = s16[2u * i]; let hb = s16[2u * i + 1u];"
                   " o[2u * i] = bitcast<u32>(max(ha, hb));",
}
HEAD = """enable f16;
@group(0) @binding(0) var<storage, read_write> o: array<u32>;
@group(0) @binding(1) var<storage, read> s16: array<vec2<f16>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let i = g.x;
  let a = o[2u * i];
  let b = o[2u * i + 1u];
  let z = s16[0];
"""


def main(impl: str) -> None:
    if impl == "dawn":
        import wgpudawn as wgpu
    else:
        import wgpu
    adapter = wgpu.gpu.request_adapter_sync()
    if "shader-f16" not in adapter.features:
        print(impl, "no shader-f16:", sorted(adapter.features))
        return
    dev = adapter.request_device_sync(required_features=["shader-f16"])
    n = 64 * 64
    x = np.random.default_rng(0).standard_normal(4 * n).astype(np.float16)
    pairs = x.reshape(n, 2, 2)  # (word pair i, a or b, half)
    for name, body in WAYS.items():
        usage = wgpu.BufferUsage.STORAGE
        out = dev.create_buffer_with_data(data=x.view(np.uint32), usage=usage
                                          | wgpu.BufferUsage.COPY_SRC)
        halves = dev.create_buffer_with_data(data=x.view(np.uint32), usage=usage)
        try:
            module = dev.create_shader_module(code=HEAD + body + "\n}")
        except Exception as e:  # noqa: BLE001 (the compiler's message is the result)
            print(f"{impl} {name}: compile fail:", [s for s in str(e).splitlines() if s][-1])
            continue
        pipe = dev.create_compute_pipeline(layout="auto",
                                           compute={"module": module, "entry_point": "main"})
        bg = dev.create_bind_group(layout=pipe.get_bind_group_layout(0), entries=[
            {"binding": 0, "resource": {"buffer": out}},
            {"binding": 1, "resource": {"buffer": halves}}])
        enc = dev.create_command_encoder()
        cp = enc.begin_compute_pass()
        cp.set_pipeline(pipe)
        cp.set_bind_group(0, bg)
        cp.dispatch_workgroups(n // 64)
        cp.end()
        dev.queue.submit([enc.finish()])
        got = np.frombuffer(dev.queue.read_buffer(out), np.uint32)[0::2].copy().view(np.float16)
        want = pairs[:, 0, :] if name == "roundtrip" else np.maximum(pairs[:, 0], pairs[:, 1])
        print(f"{impl} {name}: {int((got != want.ravel()).sum())} of {2 * n} halves wrong")


if __name__ == "__main__":
    main(sys.argv[1])
