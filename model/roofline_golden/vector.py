"""Vectorized bit-exact mirror for sweeps: numpy uint64 arrays of raw values.

A 2W-bit product does not fit 64 bits (80 bits at the default UQ24.16), so products are
formed exactly as 128-bit (hi, lo) pairs from 32-bit limbs. Formats up to W = 63 bits
and counts up to 64 bits are supported; `fixed.py` handles anything wider.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from roofline_golden.qformat import QFormat

U64 = np.uint64
Array = NDArray[np.uint64]

_LOW32 = U64(0xFFFF_FFFF)
_32 = U64(32)
MAX_WIDTH = 63


def _as_u64(values: ArrayLike) -> Array:
    return np.asarray(values, dtype=np.uint64)


def _check_format(fmt: QFormat) -> None:
    if fmt.width > MAX_WIDTH:
        raise ValueError(f"{fmt.name}: vectorized model supports W <= {MAX_WIDTH}; use fixed.py")


def _check_raw(fmt: QFormat, name: str, values: Array) -> None:
    if values.size and int(values.max()) > fmt.max_raw:
        raise ValueError(f"{name}: a raw value exceeds {fmt.name} ({fmt.max_raw:#x})")


def mul_wide(a: Array, b: Array) -> tuple[Array, Array]:
    """Exact 64 x 64 -> 128-bit product as (hi, lo), from 32-bit limbs.

    Written with in-place operations on fresh temporaries: sweeps call this on millions of
    elements, where allocation is most of the cost.
    """
    a_lo, a_hi = a & _LOW32, a >> _32
    b_lo, b_hi = b & _LOW32, b >> _32
    low = a_lo * b_lo
    cross1 = np.multiply(a_lo, b_hi, out=a_lo)
    cross2 = np.multiply(a_hi, b_lo, out=b_lo)
    high = np.multiply(a_hi, b_hi, out=a_hi)
    middle = low >> _32  # plus two 32-bit halves below: < 3 * 2^32, no overflow
    middle += cross1 & _LOW32
    middle += cross2 & _LOW32
    lo = np.bitwise_and(low, _LOW32, out=low)
    lo |= middle << _32
    high += cross1 >> _32
    high += cross2 >> _32
    high += middle >> _32
    return high, lo


def less_wide(a_hi: Array, a_lo: Array, b_hi: Array, b_lo: Array) -> NDArray[np.bool_]:
    return (a_hi < b_hi) | ((a_hi == b_hi) & (a_lo < b_lo))


def shift_left_wide(value: Array, shift: int) -> tuple[Array, Array]:
    """value << shift as (hi, lo), for 0 < shift < 64."""
    return value >> U64(64 - shift), value << U64(shift)


def round_shift_wide(hi: Array, lo: Array, shift: int) -> Array:
    """(hi, lo) / 2^shift, rounded to nearest with ties up; the result must fit 64 bits."""
    half = U64(1) << U64(shift - 1)
    lo_sum = lo + half
    hi_sum = hi + (lo_sum < lo).astype(np.uint64)
    return (lo_sum >> U64(shift)) | (hi_sum << U64(64 - shift))


Wide = tuple[Array, Array]  # a 128-bit value as (hi, lo), as mul_wide gives it


def attainable(fmt: QFormat, peak: ArrayLike, bw: ArrayLike, ai: ArrayLike,
               product: Wide | None = None) -> tuple[Array, NDArray[np.bool_]]:
    """(cap, mem_bound) arrays; the same rules as fixed.attainable. `product`: mul_wide(ai, bw), when
    the caller has it already (a sweep's checker needs it too)."""
    _check_format(fmt)
    peak, bw, ai = np.broadcast_arrays(_as_u64(peak), _as_u64(bw), _as_u64(ai))
    for name, values in (("peak", peak), ("bw", bw), ("ai", ai)):
        _check_raw(fmt, name, values)
    product_hi, product_lo = mul_wide(ai, bw) if product is None else product
    f = fmt.frac_bits
    if fmt.width + f <= 63:
        # peak * 2^F fits 63 bits, so a memory-bound product has no high word and rounding it
        # cannot carry out of the low one: the same comparison and rounding on 64 bits.
        mem_bound = product_hi == 0
        mem_bound &= product_lo < (peak << U64(f))
        rounded = product_lo + (U64(1) << U64(f - 1))
        rounded >>= U64(f)
    else:
        peak_hi, peak_lo = shift_left_wide(peak, f)
        mem_bound = less_wide(product_hi, product_lo, peak_hi, peak_lo)
        rounded = round_shift_wide(product_hi, product_lo, f)
    # Outside mem_bound the rounded product may not fit 64 bits; it is discarded there.
    cap = np.where(mem_bound, rounded, peak)
    return cap, mem_bound


def hierarchy(
    fmt: QFormat, peak: ArrayLike, bws: ArrayLike, ais: ArrayLike, products: list[Wide] | None = None
) -> tuple[Array, Array, NDArray[np.bool_], NDArray[np.int64]]:
    """(cap, level_caps[N, L], mem_bound, binding) for bws and ais of shape (N, L); `products`: each
    level's mul_wide(ai, bw), when the caller has them already."""
    _check_format(fmt)
    bws, ais = _as_u64(bws), _as_u64(ais)
    if bws.ndim != 2 or bws.shape != ais.shape or bws.shape[1] < 1:
        raise ValueError("bws and ais must both have shape (vectors, levels) with at least one level")
    peak = np.broadcast_to(_as_u64(peak), bws.shape[:1])
    levels = bws.shape[1]
    level_caps = np.empty_like(bws)
    cap = peak.copy()
    binding = np.full(bws.shape[0], levels, dtype=np.int64)
    best_hi = np.full(bws.shape[0], np.iinfo(np.uint64).max, dtype=np.uint64)
    best_lo = best_hi.copy()
    for level in range(levels):
        product_hi, product_lo = mul_wide(ais[:, level], bws[:, level]) if products is None else products[level]
        level_cap, mem_bound = attainable(fmt, peak, bws[:, level], ais[:, level], (product_hi, product_lo))
        level_caps[:, level] = level_cap
        leads = mem_bound & less_wide(product_hi, product_lo, best_hi, best_lo)
        best_hi = np.where(leads, product_hi, best_hi)
        best_lo = np.where(leads, product_lo, best_lo)
        cap = np.where(leads, level_cap, cap)
        binding = np.where(leads, level, binding)
    return cap, level_caps, binding < levels, binding


def intensity(
    fmt: QFormat, count_bits: int, ops: ArrayLike, bytes_moved: ArrayLike
) -> tuple[Array, NDArray[np.bool_], NDArray[np.bool_]]:
    """(ai, sat, div0): round(ops * 2^F / bytes) ties up, by exact long division on uint64."""
    _check_format(fmt)
    if not 1 <= count_bits <= 64:
        raise ValueError("vectorized intensity supports 1 <= COUNT_BITS <= 64")
    ops, divisor = np.broadcast_arrays(_as_u64(ops), _as_u64(bytes_moved))
    limit = (1 << count_bits) - 1
    if ops.size and max(int(ops.max()), int(divisor.max())) > limit:
        raise ValueError(f"a count exceeds {count_bits} bits")
    div0 = divisor == 0
    safe_divisor = np.where(div0, U64(1), divisor)
    # Quotient of ops * 2^(F+1) / bytes, keeping W+1 bits and a sticky overflow above them.
    keep = fmt.width + 1
    keep_mask = U64((1 << keep) - 1)
    remainder = np.zeros_like(ops)
    quotient = np.zeros_like(ops)
    overflow = np.zeros(ops.shape, dtype=bool)
    for step in range(count_bits + fmt.frac_bits + 1):
        bit_index = count_bits - 1 - step
        next_bit = (ops >> U64(bit_index)) & U64(1) if bit_index >= 0 else U64(0)
        carry = (remainder >> U64(63)).astype(bool)  # the 65th bit of 2 * remainder
        remainder = (remainder << U64(1)) | next_bit
        fits = carry | (remainder >= safe_divisor)
        remainder = np.where(fits, remainder - safe_divisor, remainder)
        overflow |= ((quotient >> U64(keep - 1)) & U64(1)).astype(bool)
        quotient = ((quotient << U64(1)) | fits.astype(np.uint64)) & keep_mask
    saturates = overflow | (quotient == keep_mask) | div0
    ai = np.where(saturates, U64(fmt.max_raw), (quotient + U64(1)) >> U64(1))
    return ai, saturates, div0
