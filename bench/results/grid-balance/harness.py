"""Shared by the probes here: one device, kernels by WGSL text, timestamp-query timing of a
dispatch binding (uniform P, `src` bytes [0, nsrc), `dst` bytes [0, ndst))."""

import os
import sys

import numpy as np

import dmlgpu as dg

MiB = 1 << 20
SMALL = bool(os.environ.get("SMALL"))  # lavapipe-sized runs


class Probe:
    def __init__(self, impl: str, src_bytes: int, dst_bytes: int, words: np.ndarray):
        self.dev = dg.Device(webgpu=impl)
        g, W = self.g, self.W = self.dev.device, self.dev.wgpu
        self.qs = g.create_query_set(type=W.QueryType.timestamp, count=2)
        self.res = g.create_buffer(
            size=16, usage=W.BufferUsage.QUERY_RESOLVE | W.BufferUsage.COPY_SRC
        )
        self.src = g.create_buffer(
            size=src_bytes, usage=W.BufferUsage.STORAGE | W.BufferUsage.COPY_DST
        )
        step = words.nbytes
        for o in range(0, src_bytes, step):  # `words` repeated over the source
            g.queue.write_buffer(self.src, o, words[: min(step, src_bytes - o) // 4])
        self.dst = g.create_buffer(size=dst_bytes, usage=W.BufferUsage.STORAGE)
        self.pipes = {}

    def pipe(self, key, code: str):
        if key not in self.pipes:
            m = self.g.create_shader_module(code=code)
            self.pipes[key] = self.g.create_compute_pipeline(
                layout="auto", compute={"module": m, "entry_point": "main"}
            )
        return self.pipes[key]

    @staticmethod
    def grid(n: int) -> tuple[int, int]:
        if n <= 65535:
            return n, 1
        y = -(-n // 65535)
        return -(-n // y), y

    def timed(self, p, nsrc: int, ndst: int, params, ngroups: int, reps: int = 9) -> float:
        """Median microseconds of the dispatch (the first two runs dropped); params: the
        uniform's first two words (its others: the grid's x and the group count)."""
        g, W = self.g, self.W
        gx, gy = self.grid(ngroups)
        ub = g.create_buffer_with_data(
            data=np.array([params[0], params[1], gx, ngroups], np.uint32).tobytes(),
            usage=W.BufferUsage.UNIFORM,
        )
        bg = g.create_bind_group(
            layout=p.get_bind_group_layout(0),
            entries=[
                {"binding": 0, "resource": {"buffer": ub, "offset": 0, "size": 16}},
                {"binding": 1, "resource": {"buffer": self.src, "offset": 0, "size": nsrc}},
                {"binding": 2, "resource": {"buffer": self.dst, "offset": 0, "size": ndst}},
            ],
        )
        ts = []
        for r in range(reps):
            enc = g.create_command_encoder()
            cp = enc.begin_compute_pass(
                timestamp_writes={
                    "query_set": self.qs,
                    "beginning_of_pass_write_index": 0,
                    "end_of_pass_write_index": 1,
                }
            )
            cp.set_pipeline(p)
            cp.set_bind_group(0, bg)
            cp.dispatch_workgroups(gx, gy)
            cp.end()
            enc.resolve_query_set(self.qs, 0, 2, self.res, 0)
            g.queue.submit([enc.finish()])
            t = np.frombuffer(g.queue.read_buffer(self.res), np.uint64)
            if r >= 2:
                ts.append((int(t[1]) - int(t[0])) * 1e-3)
        return float(np.median(ts))


# The probes' bindings (the uniform P, the u32 words read and written) and "no index".
HEAD = """
struct P { n: u32, chunk: u32, gx: u32, ng: u32 }
@group(0) @binding(0) var<uniform> u: P;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
const NONE = 0xFFFFFFFFu;
"""
# The probes' workgroup tree at the end: each thread's (bk, bi) through shk/shi (256 entries
# each), the best (larger key, then smaller index) to dst[gi].
TREE = """
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


def args() -> tuple[str, str, list[str]]:
    """(implementation, output JSON path, the rest of the command line)."""
    return sys.argv[1], sys.argv[2], sys.argv[3:]
