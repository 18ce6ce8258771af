"""Shape canonicalization for reductions: drop size-1 dims, merge mergeable neighbours.

A reduction reads in[base + sum(k_i * kin_i) + sum(r_j * rin_j)] and writes
out[base + sum(k_i * kout_i)]. The output index walks the kept dims row-major; the
reduced (flattened) index walks the reduced dims row-major, as DirectML defines it.
Two neighbours of one class merge when the outer one's stride is the inner one's stride
times its size in every tensor involved, which preserves every address: fewer dims means
cheaper address arithmetic and a more specialised kernel.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dim:
    size: int
    strides: tuple[int, ...]  # one stride per tensor (input[, output])


@dataclass(frozen=True)
class Reduction:
    kept: tuple[Dim, ...]  # outer -> inner; strides (in, out)
    red: tuple[Dim, ...]  # outer -> inner; strides (in,)

    @property
    def n_out(self) -> int:
        n = 1
        for d in self.kept:
            n *= d.size
        return n

    @property
    def n_red(self) -> int:
        n = 1
        for d in self.red:
            n *= d.size
        return n


def merge(dims: list[Dim]) -> tuple[Dim, ...]:
    out: list[Dim] = []
    for d in dims:
        if d.size == 1:
            continue
        if out and all(a == b * d.size for a, b in zip(out[-1].strides, d.strides, strict=True)):
            out[-1] = Dim(out[-1].size * d.size, d.strides)
        else:
            out.append(d)
    return tuple(out)


def reduction(shape, in_strides, out_strides, axes, *, red_out=None) -> Reduction:
    """Canonical form of reducing `axes` of a tensor into an output of the same rank.

    red_out: strides of a same-shape output along the reduced dims too (Hardmax writes the
    whole subset); reduced dims then carry strides (in, red_out) and merge only where both do.
    """
    axes = set(axes)
    dims = list(enumerate(zip(shape, in_strides, out_strides, strict=True)))
    kept = [Dim(n, (si, so)) for i, (n, si, so) in dims if i not in axes]
    if red_out is None:
        red = [Dim(n, (si,)) for i, (n, si, _) in dims if i in axes]
    else:
        red = [Dim(n, (si, so)) for (i, (n, si, _)), so in zip(dims, red_out, strict=True)
               if i in axes]
    return Reduction(merge(kept), merge(red))


def contiguous_strides(shape) -> tuple[int, ...]:
    """Row-major element strides of a packed tensor of `shape`."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= int(n)
    return tuple(reversed(strides))
