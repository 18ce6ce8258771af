"""Probe: float16 ArgMax's per-word work with shader-f16 arithmetic (a tile's max of
bitcast<vec2<f16>> words, HMNMX2 on NVIDIA) beside the core-WGSL loops, in the read-only
split kernel of ../argreduce-f16-max/alu_f16.py (u32 loads, 256 threads, 16 words a thread
a tile, the workgroup tree at the end), on normal float16 data:
- max: a bare max of the words (the ceiling);
- f16: the row kernel's packed loop (keys without the NaN fix-up, a NaN test ORed over the
  tile, one max an element of (key << 16) | code);
- h16: the tile's max over vec2<f16> halves, NaN found by the tile's f16 sum (a NaN half, or
  inf - inf, makes it NaN: then the packed loop), a tile whose max is +-0.0 also keyed (a
  flushed subnormal reads as zero); a tile that beats the running best searched for the
  first half equal to its max;
- h16i: h16 with NaN found by the integer test ORed over the tile instead of the sum;
- h16n: h16 without any NaN test (what the test costs).
`PYTHONPATH=. python bench/results/argreduce-f16-native/alu_f16h.py IMPL OUT.json`."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "argreduce-f16-max"))
import alu_f16  # noqa: E402

U = alu_f16.U


def kernel(work):
    if not work.startswith("h16"):
        return alu_f16.kernel(work)
    loads = "".join(f"    let w{i} = src[base + k + {256 * i}u];\n" for i in range(U))
    body = "    var hm = bitcast<vec2<f16>>(w0);\n    var hs = hm;\n"
    for i in range(1, U):
        body += f"    {{ let v = bitcast<vec2<f16>>(w{i}); hm = max(hm, v);"
        body += " hs = hs + v; }\n" if work == "h16" else " }\n"
    body += "    let tm = max(hm.x, hm.y);\n"
    if work == "h16":
        nan = "(bitcast<u32>(hs) & 0x7FFF7FFFu) + 0x03FF03FFu"
        cond = f"(({nan}) & 0x80008000u) != 0u"
    elif work == "h16i":
        body += "    nn = 0u;\n" + "".join(f"    nn |= alu_nan_bits(w{i});\n" for i in range(U))
        cond = "(nn & 0x80008000u) != 0u"
    else:
        cond = "false"
    body += f"    if ({cond} || tm == 0.0h) {{\n" + alu_f16.packed("keys")
    body += "      bv = 65504.0h;\n    } else if (tm > bv || bi == NONE) {\n"
    body += "      bv = tm;\n" + alu_f16.search("bitcast<vec2<f16>>(w{i})", "vec2<f16>") + "    }\n"
    text = alu_f16.kernel_text(body.replace("alu_nan_bits", "nan_bits"),
                               "bk = pack2x16float(vec2<f32>(f32(bv), 0.0));", loads)
    return "enable f16;\n" + text.replace("var bv = 0.0;", "var bv = 0.0h;")


if __name__ == "__main__":
    alu_f16.run(kernel, ("max", "f16", "h16", "h16i", "h16n"))
