"""The dtype table: how each of the ten types is stored, loaded, compared and written.

Every operator reaches a dtype only through its entry here. Values live in buffers of u32
words (core WGSL has no 8/16/64-bit integers): 8- and 16-bit values are packed 4 or 2 to a
word, little-endian as numpy lays them out; 64-bit values take two words (low, high).

Comparisons use order-preserving unsigned *keys* built from the raw bits, never float
compares (WGSL implementations may assume no NaN/inf): for every pair of values, the
ordering of keys is the ordering of values, -0.0 and +0.0 share one key, and every NaN
maps to the largest key (`KEY_NAN`), so "the first NaN wins" falls out of "the first
maximum wins". Keys of 64-bit types are `vec2<u32>(high, low)`, compared lexicographically.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    bits: int  # storage width of one element
    storage: str  # "x8", "x16", "x32", "x64": how raw bits are pulled out of u32 words
    # WGSL expression of the order-preserving key, from `b` (raw bits, zero-extended to u32)
    # or, for 64-bit types, from `lo` and `hi`.
    key: str
    is_float: bool = False
    # raw bits of the value 1 (Hardmax writes 1 and 0), None where the op does not write it
    one_bits: int | None = None
    # 8/16-bit types: WGSL expression of the keys of every element of word `w` at once, each
    # in its own lane (lane-wise equal to `key`, NaN lanes all ones), complemented by FLIP
    # (0 or ~0u: ArgMin's reversed order); one expression per word instead of one per element
    lanes: str | None = None
    # ...where a NaN lane costs most of that: `lanes_finite`, the lanes' keys of a word
    # without NaN lanes, and `lanes_nan`, an expression whose lanes' top bits are set where a
    # lane is NaN (a row loop ORs it over a tile and keys the tile again, with `lanes`, only
    # where one is set)
    lanes_finite: str | None = None
    lanes_nan: str | None = None
    # ...and `lanes_rough`, cheaper finite keys exact but for a value's two codes (float16
    # -0.0 one under +0.0): the loop keys a tile again where its best is either
    # (`rough_tops`, the two keys' lane values), as for NaN
    lanes_rough: str | None = None
    rough_tops: tuple[int, int] | None = None
    # integer lanes: `lanes_min`, the complement of `lanes` under ArgMin's FLIP (`lanes`
    # without its final complement), for loops that take the least of it instead
    lanes_min: str | None = None
    # 8/16-bit types: WGSL expression of the raw bits whose key is `k` (the inverse of `key`),
    # and a bool expression that holds where `k` has one value only (floats: not the key of
    # +-0.0, not NaN's); elsewhere the value is read again (TopK writes values from keys)
    key_raw: str | None = None
    key_raw_exact: str = "true"

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.name)

    @property
    def itemsize(self) -> int:
        return self.bits // 8

    @property
    def key_words(self) -> int:
        return 2 if self.bits == 64 else 1

    @property
    def mask(self) -> str:
        """WGSL literal masking one element's bits out of a word (packed types)."""
        return hex((1 << min(self.bits, 32)) - 1)

    @property
    def lane_tops(self) -> str:
        """WGSL literal of every lane's top bit in a word (packed types)."""
        return hex(sum(1 << (self.bits * (j + 1) - 1) for j in range(self.per_word)))

    @property
    def per_word(self) -> int:
        """Elements per u32 word (1 for 32- and 64-bit types)."""
        return max(1, 32 // self.bits)

    @property
    def nonzero(self) -> str:
        """WGSL bool expression: the value is non-zero, from `b` (raw bits, zero-extended)
        or, for 64-bit types, `lo` and `hi`. Floats ignore the sign bit, so -0.0 is zero
        while NaN and denormals are non-zero; a 64-bit value is non-zero if either word is."""
        if self.bits == 64:
            return "(lo | hi) != 0u"
        if self.is_float:
            return f"(b & 0x{(1 << (self.bits - 1)) - 1:X}u) != 0u"
        return "b != 0u"


_TABLE = [
    DType("float32", 32, "x32", "f32_key(b)", is_float=True, one_bits=0x3F800000),
    DType("float16", 16, "x16", "f16_key(b)", is_float=True, one_bits=0x3C00,
          lanes="f16x2_keys(w)", lanes_finite="f16x2_finite_keys(w)",
          lanes_nan="f16x2_nan_bits(w)", lanes_rough="f16x2_rough_keys(w)",
          rough_tops=(0x7FFF, 0x8000),
          key_raw="select(~k & 0xFFFFu, k & 0x7FFFu, (k & 0x8000u) != 0u)",
          key_raw_exact="(k != 0x8000u) && (k != 0xFFFFu)"),
    DType("int64", 64, "x64", "vec2<u32>(hi ^ 0x80000000u, lo)"),
    DType("int32", 32, "x32", "b ^ 0x80000000u"),
    DType("int16", 16, "x16", "b ^ 0x8000u", lanes="w ^ 0x80008000u ^ FLIP",
          lanes_min="w ^ 0x80008000u",
          key_raw="k ^ 0x8000u"),
    DType("int8", 8, "x8", "b ^ 0x80u", lanes="w ^ 0x80808080u ^ FLIP",
          lanes_min="w ^ 0x80808080u", key_raw="k ^ 0x80u"),
    DType("uint64", 64, "x64", "vec2<u32>(hi, lo)"),
    DType("uint32", 32, "x32", "b"),
    DType("uint16", 16, "x16", "b", lanes="w ^ FLIP", lanes_min="w", key_raw="k"),
    DType("uint8", 8, "x8", "b", lanes="w ^ FLIP", lanes_min="w", key_raw="k"),
]
DTYPES: dict[str, DType] = {d.name: d for d in _TABLE}

# Index types of ArgMax/ArgMin/TopK outputs: name -> largest representable index.
INDEX_DTYPES: dict[str, int] = {
    "uint32": 2**32 - 1,
    "int32": 2**31 - 1,
    "uint64": 2**64 - 1,
    "int64": 2**63 - 1,
}


def lookup(value, arg: str = "dtype", allowed=None) -> DType:
    """Resolve a numpy dtype or its name to the table entry; errors name `arg`."""
    allowed = list(DTYPES) if allowed is None else list(allowed)
    try:
        name = np.dtype(value).name
    except TypeError:
        name = None
    if name not in allowed:
        raise TypeError(f"{arg}: {value!r} is not a supported type (allowed: {', '.join(allowed)})")
    return DTYPES[name]
