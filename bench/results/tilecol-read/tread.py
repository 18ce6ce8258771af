"""Bare reads of column-reduction geometries against the copy (GPU us, four runs a timed pass).

Every pattern reads each byte of an R x C matrix (C bytes a row) exactly once and folds it
with max (no keys, codes, tree or merge): what the access pattern alone costs. A pattern:
vw words a load (1, 2, 4), wx threads side by side in a row (a block wx * vw words wide),
256 / wx row groups, the rows split s ways (a workgroup a block and split), u loads a thread
a tile, and the order of a tile's rows: "tile" (a thread's u loads are u neighbouring rows,
tiles y, y + ry, ..: the tile-column kernel's) or "il" (load q of every row group at once
covers ry neighbouring rows). Beside them: the copy, the flat read loop of read-floor, and the
uint8 ArgMax of the same shapes.
A row pitch other than C (bytes from one row to the next) tests power-of-two strides.
Run from the repository root:
PYTHONPATH=. python bench/results/tilecol-read/tread.py IMPL OUT.json"""
import importlib.util
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import dmlgpu as dg
from bench import clocks
from bench.runner import copy_bound
from dmlgpu import codegen
from dmlgpu.runtime import dispatch

# the copy's yardsticks from read-floor: its uniform block and its flat read loop
_spec = importlib.util.spec_from_file_location(
    "readf", Path(__file__).resolve().parents[1] / "read-floor" / "readf.py")
readf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readf)
HEAD = readf.PARAMS


# a tile's work on its words v0 .. (one word a load): the lanes' (key, place) codes of
# the tile-column kernel (uint8, ArgMax, first index: key << 24 | 2^24 - 1 - row), "codes4",
# its running best a lane taken where the tile's key is larger; "nat": each lane's key left
# where it sits in the word (lanes 1-3), the code under it; "codes1": lane 3 only
CODES = {
    "codes4": [("(w << 24u)", 24), ("((w << 16u) & 0xFF000000u)", 24),
               ("((w << 8u) & 0xFF000000u)", 24), ("(w & 0xFF000000u)", 24)],
    "nat": [("(w << 24u)", 24), ("(w & 0xFF00u)", 8), ("(w & 0xFF0000u)", 16),
            ("(w & 0xFF000000u)", 24)],
    "codes1": [("(w & 0xFF000000u)", 24)],
}


def work(kind, u):
    """WGSL of a tile's work (see CODES) and of the running state's declarations."""
    lanes = CODES[kind]
    decl = "".join(f"  var tb{j} = 0u;\n  var tt{j} = 0xFFFFFFFFu;\n" for j in range(len(lanes)))
    body = "".join(f"      var pk{j} = 0u;\n" for j in range(len(lanes)))
    for q in range(u):
        body += f"      {{ let w = v{q};"
        for j, (key, sh) in enumerate(lanes):
            body += f" pk{j} = max(pk{j}, {key} | {(1 << min(sh, 8)) - 1 - q}u);"
        body += " }\n"
    for j, (_, sh) in enumerate(lanes):
        body += (f"      let take{j} = (tt{j} == 0xFFFFFFFFu)"
                 f" | ((pk{j} >> {sh}u) > (tb{j} >> {sh}u));\n"
                 f"      tb{j} = select(tb{j}, pk{j}, take{j});\n"
                 f"      tt{j} = select(tt{j}, t, take{j});\n")
    end = "  m = " + " ^ ".join(f"tb{j} ^ tt{j}" for j in range(len(lanes))) + ";\n"
    return decl, body, end


def pattern(vw, wx, u, order, kind="max"):
    """WGSL of a bare tile read; aux0: words a row, aux1: rows a split, aux2: the row pitch in
    words (uniforms)."""
    vt = {1: "u32", 2: "vec2<u32>", 4: "vec4<u32>"}[vw]
    ry = 256 // wx
    loads = "".join(
        f"      let v{q} = src[({row(q, ry, u, order)}) * cv + col];\n" for q in range(u))
    fold = "      " + " ".join(f"m = max(m, v{q});" for q in range(u)) + "\n"
    decl, end = "", ""
    pf = kind.endswith("-pf")
    kind = kind.removesuffix("-pf")
    if kind != "max":
        decl, fold, end = work(kind, u)
    if pf:  # (the next tile's words loaded before this tile's are folded)
        assert order == "tile"
        nxt = loads.replace("let v", "n").replace("t * ", f"(t + {ry}u) * ")
        decl += "".join(f"  var n{q} = 0u;\n" for q in range(u))
        decl += "  if (y < n_tiles) {\n" + loads.replace("let v", "n").replace(
            "t * ", "y * ") + "  }\n"
        loads = ("".join(f"      let v{q} = n{q};\n" for q in range(u))
                 + f"      if (t + {ry}u < n_tiles) {{\n" + nxt + "      }\n")
    zero = "0u" if vw == 1 else f"{vt}(0u)"
    loop = (f"var t = y; t < n_tiles; t += {ry}u" if order == "tile"
            else f"var t = 0u; t < n_tiles / {ry}u; t++")
    test = "m == 0x12345678u" if vw == 1 else "m.x == 0x12345678u && m.y == 0x9abcdef0u"
    return HEAD + f"""@group(0) @binding(1) var<storage, read> src: array<{vt}>;
@group(0) @binding(2) var<storage, read_write> dst: array<{vt}>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let g = wid.x + wid.y * u.groups_x;
  if (g >= u.n_groups) {{ return; }}
  let cv = u.aux2 / {vw}u;
  let blocks = u.aux0 / {vw * wx}u;
  let s = g / blocks;
  let x = lid % {wx}u;
  let y = lid / {wx}u;
  let col = (g - s * blocks) * {wx}u + x;
  let r0 = s * u.aux1;
  let n_tiles = u.aux1 / {u}u;
  var m = {zero};
{decl}  for ({loop}) {{
{loads}{fold}  }}
{end}  if ({test}) {{ dst[lid] = m; }}
}}
"""


def row(q, ry, u, order):
    if order == "tile":
        return f"r0 + t * {u}u + {q}u"
    return f"r0 + t * {u * ry}u + {q * ry}u + y"


PATTERNS = {}
orig = codegen.render


def render(template, variables):
    if template in PATTERNS:
        return PATTERNS[template]
    return orig(template, variables)


codegen.render = render

# (name, rows, bytes a row, vw, wx, splits, u, order[, row pitch in bytes[, work]])
CASES = [
    # 8192 x 8192 (the grid's (8192, 4096, 2) over axis 0, (2, 4096, 8192) over (0, 1))
    ("cur",       8192, 8192, 1, 32, 4, 16, "tile"),
    ("cur-il",    8192, 8192, 1, 32, 4, 16, "il"),
    ("codes4",    8192, 8192, 1, 32, 4, 16, "tile", 8192, "codes4"),
    ("nat",       8192, 8192, 1, 32, 4, 16, "tile", 8192, "nat"),
    ("codes1",    8192, 8192, 1, 32, 4, 16, "tile", 8192, "codes1"),
    ("codes4-pf", 8192, 8192, 1, 32, 4, 16, "tile", 8192, "codes4-pf"),
    ("max-pf",    8192, 8192, 1, 32, 4, 16, "tile", 8192, "max-pf"),
    ("codes4-u8pf", 8192, 8192, 1, 32, 4, 8, "tile", 8192, "codes4-pf"),
    ("codes4-u32", 8192, 8192, 1, 32, 4, 32, "tile", 8192, "codes4"),
    ("codes4-s8", 8192, 8192, 1, 32, 8, 16, "tile", 8192, "codes4"),
    ("codes4-s2", 8192, 8192, 1, 32, 2, 16, "tile", 8192, "codes4"),
    ("cur-p8320", 8192, 8192, 1, 32, 4, 16, "tile", 8320),
    ("s8-p8320",  8192, 8192, 1, 32, 8, 16, "tile", 8320),
    ("s2",        8192, 8192, 1, 32, 2, 16, "tile"),
    ("s8",        8192, 8192, 1, 32, 8, 16, "tile"),
    ("s8-il",     8192, 8192, 1, 32, 8, 16, "il"),
    ("s16",       8192, 8192, 1, 32, 16, 16, "tile"),
    ("u8",        8192, 8192, 1, 32, 4, 8, "tile"),
    ("u32",       8192, 8192, 1, 32, 4, 32, "tile"),
    ("wx64-s8",   8192, 8192, 1, 64, 8, 16, "tile"),
    ("v2x16-s4",  8192, 8192, 2, 16, 4, 16, "tile"),
    ("v4x8-s4",   8192, 8192, 4, 8, 4, 16, "tile"),
    ("v4x8-s4il", 8192, 8192, 4, 8, 4, 16, "il"),
    ("v4x8-s8",   8192, 8192, 4, 8, 8, 16, "tile"),
    ("v4x32-s16", 8192, 8192, 4, 32, 16, 16, "tile"),
    ("v4x32-s32", 8192, 8192, 4, 32, 32, 16, "tile"),
    ("band-s128", 8192, 8192, 4, 256, 128, 16, "tile"),
    ("band-s256", 8192, 8192, 4, 256, 256, 16, "tile"),
    # 2^21 x 64 (the grid's (128, 128, 128, 64) over (0, 1, 2)), 128 MiB
    ("n-cur",     1 << 21, 64, 1, 16, 256, 16, "tile"),
    ("n-cur-il",  1 << 21, 64, 1, 16, 256, 16, "il"),
    ("n-s512",    1 << 21, 64, 1, 16, 512, 16, "tile"),
    ("n-v4x4",    1 << 21, 64, 4, 4, 256, 16, "tile"),
    ("n-v4x4-il", 1 << 21, 64, 4, 4, 256, 16, "il"),
    ("n-v4x4s512", 1 << 21, 64, 4, 4, 512, 16, "il"),
]
PATTERNS["loopT2.wgsl"] = readf.LOOP
clocks.hold()  # (the GPU's clocks up: see README.md)
impl, out = sys.argv[1], sys.argv[2]
dev = dg.Device(webgpu=impl)
timer = dispatch.GpuTimer(dev)


def t(bounds, n=9, runs=4, warm_s=0.05):
    # (runs for warm_s first: after the host's pauses between cases the GPU's clocks are
    # down, and a few runs do not bring them back: a first run saw up to 3x the time)
    end = time.perf_counter() + warm_s
    while time.perf_counter() < end:
        timer.run(bounds)
    xs = [timer.run(bounds * runs) / runs for _ in range(n + 2)][2:]
    return round(statistics.median(xs) * 1e6, 2)


def launch(tmpl, groups, bufs, **params):
    pipeline, layout = dev.pipelines.get(tmpl)
    return dispatch.bind(dev, [dispatch.Launch(
        pipeline, layout, bufs, codegen.pack_params(n_groups=groups, **params), groups)], tmpl)


items = []  # (record, bounds): everything uploaded and bound before any timing
bufs = {}
for size in sorted({r * (c[6] if len(c) > 6 else c[0]) for _, r, *c in CASES}):
    src = dev.create_buffer(size, what="src")
    dst = dev.create_buffer(size, what="dst")
    dev.upload(src, np.random.default_rng(0).integers(0, 2**32, size // 4, dtype=np.uint32))
    bufs[size] = (src, dst)
    n_vec = size // 16
    items.append(({"case": f"copy-{size >> 20}MiB"},
                  [copy_bound(dev, src, dst, size, n_vec, "copy")]))
    items.append(({"case": f"loopT2-{size >> 20}MiB"}, [launch(
        "loopT2.wgsl", n_vec // 8192, [(src, 0, size), (dst, 0, 4096)], aux0=n_vec)]))
only = os.environ.get("CASES")
for name, rows, cb, vw, wx, splits, u, order, *more in CASES:
    if only and name not in only.split(","):
        continue
    pitch = more[0] if more else cb
    kind = more[1] if len(more) > 1 else "max"
    size = rows * pitch
    src, dst = bufs[size]
    tmpl = f"tread-{name}.wgsl"
    PATTERNS[tmpl] = pattern(vw, wx, u, order, kind)
    groups = (cb // 4) // (wx * vw) * splits
    items.append(({"case": name, "rows": rows, "row_bytes": cb, "vw": vw, "wx": wx,
                   "splits": splits, "u": u, "order": order, "pitch": pitch, "work": kind,
                   "groups": groups},
                  [launch(tmpl, groups, [(src, 0, size), (dst, 0, 4096)], aux0=cb // 4,
                          aux1=rows // splits, aux2=pitch // 4)]))
keep = []
for shape, axes in (((1 << 26,), None), ((8192, 8192), 0), ((1 << 21, 64), 0)):
    a = np.random.default_rng(1).integers(0, 255, shape, dtype=np.uint8)
    x = dg.asarray(a, device=dev)
    got = dg.argmax(x, axes).numpy()
    with dispatch.recording() as subs:
        y = dg.argmax(x, axes)
    keep.append((x, y))
    items.append(({"case": f"argmax-u8-{shape}-axes{axes}",
                   "right": bool(np.array_equal(got.reshape(-1),
                                                np.argmax(a, axis=axes).reshape(-1)))},
                  [b for b, _ in subs]))
# every case in turn, REPS times (default 2): a pass's cases ran close together in time
rec = []
for rep in range(int(os.environ.get("REPS", "2"))):
    for meta, bounds in items:
        rec.append(dict(meta, rep=rep, us=t(bounds)))
        print(rec[-1], flush=True)
json.dump(rec, open(out, "w"), separators=(",", ":"))
