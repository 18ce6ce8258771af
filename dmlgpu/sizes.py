"""Integer helpers of the planners (ArgMax/ArgMin/Hardmax in plan.py, TopK, NonZero)."""

from __future__ import annotations


def ceil_div(a: int, b: int) -> int:
    """a / b rounded up (b > 0)."""
    return -(-a // b)


def pow2_floor(n: int) -> int:
    """The power of two at or below n (1 for n < 2)."""
    return 1 << max(0, n.bit_length() - 1)


def pow2_ceil(n: int) -> int:
    """The power of two at or above n (1 for n < 2)."""
    return 1 << max(0, n - 1).bit_length()
