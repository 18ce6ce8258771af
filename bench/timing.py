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
    # Warm-up lasts at least this long too: on an H200 the first case timed after an
    # upload ran 5x slow through 3 warm-ups and 15 repeats (clocks still ramping), while
    # the same launches timed a moment later ran at full speed (2026-11-22).
    warmup_s: float = 0.0

    def sample(self, fn, first=None) -> list:
        """The values fn() returns (usually seconds), one per timed run. `first`, when
        given, is seconds already measured (after a warm-up): it counts as the first sample
        and against the budget, and there is no further warm-up."""
        t0 = time.perf_counter()
        runs = 0
        while first is None and (runs < self.warmup or time.perf_counter() - t0 < self.warmup_s):
            fn()
            runs += 1
            if time.perf_counter() - t0 > max(self.budget_s / 2, self.warmup_s):
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
