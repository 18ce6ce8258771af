"""Tuning numbers, as data. Each says which measurement it rests on.

Until the first GPU runs (bench/results/), values are the conventional starting points of
reduction kernels (CUB's and CuPy's defaults); the comment says so where that is the case.
"""

import os


# Threads per workgroup of the reduction kernels. 256 is CUB's default for block
# reductions and fits every WebGPU adapter (the core limit is 256 invocations).
REDUCE_WG = 256

# Independent loads each thread issues before comparing (memory-level parallelism: one
# load per thread in flight cannot cover HBM latency at 3+ TB/s). Measured on an H200 via
# wgpu-native (2026-11-22, argmax as a fraction of the copy kernel's 3.97 TB/s):
#   unroll 2: rows f32 77%, cols f32 71%, flat f16 39%;  unroll 4: 91%, 78%, 44%;
#   unroll 8: 96%, 91%, 47% (flat int64: 102-104% at every setting).
REDUCE_UNROLL = 8

# A reduction whose innermost reduced dim is contiguous gets one workgroup per output when
# the reduction has at least this many elements; below it a thread per output wastes less
# (a workgroup of 256 threads over 32 elements leaves 7/8 of the threads idle).
ROW_MIN_RED = 64

# Threads the GPU needs in flight to saturate memory: an H100/H200 holds 132 SMs x 2048
# threads. At 2^17 (half of that), argmax over a flat 2^28 float32 on an H200 reached 8% of
# the copy kernel's bandwidth (2026-11-22, with branchy keys); raised to a full GPU.
TARGET_THREADS = 1 << 18

# Least work for one workgroup/thread of a split reduction: below this the second pass and
# the partials cost more than the extra parallelism gives.
MIN_ROW_CHUNK = 8192  # elements per workgroup (32 per thread at 256 threads)
MIN_COL_CHUNK = 64  # elements per thread
MAX_SPLIT = 1024  # partials per output; the merge pass reads them with one workgroup

# The merge pass reads partials with a thread per output once there are this many outputs.
MERGE_COL_MIN_OUT = 4096

# NonZeroCoordinates (conventional starting points until measured on the H200).
# Threads per workgroup of its three passes; a mask block is 32 x this many elements.
NONZERO_WG = 256
# Input words each thread of the count pass loads per tile (the tile is as many mask blocks
# as that takes: 8192 elements of 32/64-bit types, 16384 of 16-bit, 32768 of 8-bit). 32
# independent loads per thread keep HBM busy (CUB's select uses 8-16 items per thread), and
# tiles of 32+ KiB keep the scan small: 8192 tiles for 8192 x 8192 float32.
NONZERO_TILE_LOADS = 64
# Values one workgroup of the scan pass sums (8 per thread): 2048 tiles in one dispatch,
# 2048^2 tiles (more than 2^32 elements) in two levels.
NONZERO_SCAN_SPAN = 4096
# Rows the scatter pass stages in workgroup memory per round (8 KiB): a dense mask block
# (8192 elements) takes 4 rounds, a sparse one a single round.
NONZERO_STAGE = 2048


# TopK1 (dmlgpu/topk.py; conventional starting points until measured on the H200).
# Threads per workgroup of the in-workgroup sort and select kernels, where the device allows
# it (else 256, WebGPU's core limit): one row of 16384 (the benchmark's) in one workgroup.
TOPK_WG = 1024
# Elements each thread of the select kernel holds in registers: the tile (one read of the
# input, coalesced) is TOPK_WG x this; 16 independent loads per thread cover HBM latency
# (CUB's radix sort keeps 16-24 keys per thread). At most 32 (a thread's state is a bitmask).
TOPK_ELEMS_PER_THREAD = 16
# Digit width of the select kernel's radix passes: 2048 bins (8 KiB) take a float32 key in
# 3 passes; random data usually leaves few pending elements after the first.
TOPK_RADIX_BITS = 11
# Rows up to this many elements are bitonic-sorted whole in workgroup memory (several short
# rows per workgroup); longer rows go to the radix select.
TOPK_SORT_MAX = 2048
# Most survivors one workgroup sorts (K above it, or above what workgroup memory holds, goes
# to the multi-dispatch radix strategy). 4096 pairs = 32 KiB.
TOPK_SELECT_CAP = 4096
# Strategy "radix": digit width of its global histograms (256 counters per row keep the
# histograms small for many rows), threads per workgroup and elements per thread per chunk.
TOPK_GLOBAL_RADIX_BITS = 8
TOPK_GLOBAL_WG = 256
TOPK_GLOBAL_ELEMS_PER_THREAD = 16


def _apply_overrides(spec: str) -> None:
    """DMLGPU_TUNING="NAME=value,..." overrides numbers above (for tuning sweeps)."""
    for item in filter(None, (s.strip() for s in spec.split(","))):
        name, _, value = item.partition("=")
        if name not in globals() or not name.isupper():
            raise ValueError(f"DMLGPU_TUNING: {name!r} is not a tuning number "
                             f"(allowed: {', '.join(n for n in globals() if n.isupper())})")
        globals()[name] = int(value)


if os.environ.get("DMLGPU_TUNING"):
    _apply_overrides(os.environ["DMLGPU_TUNING"])
