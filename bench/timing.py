"""How many times each figure is measured: one policy for dmlgpu and every peer."""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    """warmup untimed runs, then timed ones: at least 3 (1 when one run outlasts the
    budget), more while `budget_s` of wall time lasts, at most `repeats`. A slow run cuts
    the warm-up short too, so that a slow case on a CPU adapter stays bounded."""

    warmup: int
    repeats: int
    budget_s: float

    def sample(self, fn, first=None) -> list:
        """The values fn() returns (usually seconds), one per timed run. `first`, when
        given, is seconds already measured (after a warm-up): it counts as the first sample
        and against the budget, and there is no further warm-up."""
        t0 = time.perf_counter()
        for _ in range(self.warmup if first is None else 0):
            fn()
            if time.perf_counter() - t0 > self.budget_s / 2:
                break
        samples = [] if first is None else [first]
        spent = first if isinstance(first, float) else 0.0
        end = time.perf_counter() + self.budget_s - spent
        minimum = 1 if spent > self.budget_s else 3
        while len(samples) < self.repeats:
            t = time.perf_counter()
            if samples and t >= end and len(samples) >= minimum:
                break
            samples.append(fn())
            if len(samples) == 1 and time.perf_counter() - t > self.budget_s:
                minimum = 1
        return samples


def wall(fn):
    """A function running fn() and returning its wall seconds."""

    def run():
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    return run
