"""Simulation of "wide"'s rank-by-bins cost (the sum over the bins that start below K of
(candidates in it)^2, per K; the kernel ranks a row by bins where it is at most RANK_COST x
K, else sorts it) on rows of n normal (uniform, exponential, lognormal) values, K best.

- key: kernels/topk_wide.wgsl.j2's bin_of, log-linear in key - T (octaves of the span's bit
  length, the rest linear; float keys: order-preserving bits);
- value: bins linear in the value, T to the row's largest (not in the kernel).

`python bench/results/topk-wide-rows/bins_sim.py N K`. Rows of 2048 at K = 1024 (2026-11-26):
float32 normal 4 octaves 138 per K (most rows over RANK_COST 32: sorted), 2 octaves 52-64,
value-linear 4.9; float16 normal 18 / 11 / 4.9; lognormal: 2 octaves 7.7, value-linear 24.
With T near 0 (a normal row's median) and below it, the positive candidates' keys sit ~2^30
above T's (every tiny magnitude lies between), so key bins hold a binade each.
"""
import sys

import numpy as np


def keys(x):
    if x.dtype == np.float32:
        b = x.view(np.uint32).astype(np.uint64)
        return np.where(b >> 31 == 1, (~b) & 0xFFFFFFFF, b | 0x80000000)
    b = x.view(np.uint16).astype(np.uint64)
    return np.where(b >> 15 == 1, (~b) & 0xFFFF, b | 0x8000)


def bin_of(d, lb, rbins, octaves):
    """The kernel's bin_of: log-linear in d over `octaves`, bin 0 the greatest."""
    sb = (rbins.bit_length() - 1) - (octaves.bit_length() - 1)
    e = np.array([int(v).bit_length() for v in d])
    lo = max(lb + 1, octaves) - octaves
    o = np.maximum(e, lo) - lo
    lin = d >> max(lo, sb) - sb
    oct_ = (d >> (np.maximum(e, sb + 1) - (sb + 1)).astype(np.uint64)) & (2**sb - 1)
    return rbins - 1 - np.where(o == 0, lin, o * 2**sb + oct_)


def ranked_cost(b, k, rbins):
    cnt = np.bincount(np.asarray(b, np.int64), minlength=rbins)
    first = np.concatenate([[0], np.cumsum(cnt)[:-1]])
    return (cnt[first < k] ** 2).sum() / k


def cost_key(row, k, rbins, octaves):
    kk = np.sort(keys(row))[::-1]
    d = kk[kk >= kk[k - 1]] - kk[k - 1]
    return ranked_cost(bin_of(d, int(d.max()).bit_length(), rbins, octaves), k, rbins)


def cost_value(row, k, rbins):
    v = np.sort(row.astype(np.float64))[::-1]
    c = v[v >= v[k - 1]] - v[k - 1]
    b = np.minimum(rbins - 1, (c / c.max() * rbins).astype(np.int64)) if c.max() > 0 else 0 * c
    return ranked_cost(rbins - 1 - np.asarray(b, np.int64), k, rbins)


if __name__ == "__main__":
    n, k = int(sys.argv[1]), int(sys.argv[2])
    rng = np.random.default_rng(1)
    gens = {"normal": lambda: rng.standard_normal(n), "uniform": lambda: rng.random(n),
            "exponential": lambda: rng.exponential(size=n),
            "lognormal": lambda: rng.lognormal(size=n)}
    for dt in (np.float32, np.float16):
        for name, gen in gens.items():
            rows = [gen().astype(dt) for _ in range(20)]
            figs = [("key, 4 octaves", [cost_key(r, k, 512, 4) for r in rows]),
                    ("key, 2 octaves", [cost_key(r, k, 512, 2) for r in rows]),
                    ("value-linear", [cost_value(r, k, 512) for r in rows])]
            print(dt.__name__, name, "; ".join(f"{t} mean {np.mean(c):.1f} max {np.max(c):.1f}"
                                                for t, c in figs))
