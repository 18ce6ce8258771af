"""Tuning numbers, as data. Each says which measurement it rests on.

Until the first GPU runs (bench/results/), values are the conventional starting points of
reduction kernels (CUB's and CuPy's defaults); the comment says so where that is the case.
"""

import os


# Threads per workgroup of the reduction kernels. 256 is CUB's default for block
# reductions and fits every WebGPU adapter (the core limit is 256 invocations).
REDUCE_WG = 256

# Independent loads each thread issues before comparing (memory-level parallelism: one
# load per thread in flight cannot cover HBM latency at 3+ TB/s; CUB loads 4 items/thread).
REDUCE_UNROLL = 4

# A reduction whose innermost reduced dim is contiguous gets one workgroup per output when
# the reduction has at least this many elements; below it a thread per output wastes less
# (a workgroup of 256 threads over 32 elements leaves 7/8 of the threads idle).
ROW_MIN_RED = 64

# Threads the GPU needs in flight to saturate memory: an H100/H200 holds 132 SMs x 2048
# threads; half of that, with several loads in flight each, is CUB's occupancy target.
TARGET_THREADS = 1 << 17

# Least work for one workgroup/thread of a split reduction: below this the second pass and
# the partials cost more than the extra parallelism gives.
MIN_ROW_CHUNK = 8192  # elements per workgroup (32 per thread at 256 threads)
MIN_COL_CHUNK = 64  # elements per thread
MAX_SPLIT = 1024  # partials per output; the merge pass reads them with one workgroup

# The merge pass reads partials with a thread per output once there are this many outputs.
MERGE_COL_MIN_OUT = 4096


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
