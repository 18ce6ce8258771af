"""The GPU's clocks held up while a tool times work: on NVIDIA, a CUDA context open in the
process keeps the driver from lowering the clocks between the tool's bursts of work (the
host's pauses between timed passes). H100 through Vulkan, 2026-11-28: without one the SM
clock sat at 480-1500 MHz instead of 1980 and kernels ran 1.5-3x slower
(bench/results/tilecol-read/)."""

from __future__ import annotations

import functools


@functools.cache
def hold():
    """torch, with a CUDA context open in this process, or None where torch is missing or
    sees no CUDA device (then nothing holds the clocks). Tried once a process."""
    try:
        import torch
        torch.zeros(1).cuda()
        return torch
    except Exception:  # no torch, or no CUDA
        return None
