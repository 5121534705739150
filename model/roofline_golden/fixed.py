"""Bit-exact mirror of the RTL, one vector at a time, on Python integers (raw values).

Written from the specification, not from the RTL's structure: products at full precision,
one rounding to nearest with ties up, saturation to all ones. The vectorized mirror in
`vector.py` is checked against this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from roofline_golden.qformat import QFormat


@dataclass(frozen=True)
class AttainableOut:
    cap: int
    mem_bound: bool


@dataclass(frozen=True)
class HierarchyOut:
    cap: int
    level_caps: tuple[int, ...]
    mem_bound: bool
    binding: int  # level index, or the level count when the compute roof binds


@dataclass(frozen=True)
class IntensityOut:
    ai: int
    sat: bool
    div0: bool


def memory_roof(ai: int, bw: int) -> int:
    """ai * bw at full precision: raw in UQ(2I).(2F)."""
    return ai * bw


def attainable(fmt: QFormat, peak: int, bw: int, ai: int) -> AttainableOut:
    for name, raw in (("peak", peak), ("bw", bw), ("ai", ai)):
        fmt.check_raw(raw, name)
    product = memory_roof(ai, bw)
    if product < peak << fmt.frac_bits:
        return AttainableOut(round_shift(product, fmt.frac_bits), True)
    return AttainableOut(peak, False)


def hierarchy(fmt: QFormat, peak: int, bws: Sequence[int], ais: Sequence[int]) -> HierarchyOut:
    if len(bws) != len(ais) or not bws:
        raise ValueError("hierarchy needs one bandwidth and one intensity per level, at least one level")
    levels = [attainable(fmt, peak, bw, ai) for bw, ai in zip(bws, ais, strict=True)]
    products = [memory_roof(ai, bw) for bw, ai in zip(bws, ais, strict=True)]
    binding = len(levels)
    for index, level in enumerate(levels):
        if level.mem_bound and (binding == len(levels) or products[index] < products[binding]):
            binding = index
    cap = levels[binding].cap if binding < len(levels) else peak
    return HierarchyOut(cap, tuple(level.cap for level in levels), binding < len(levels), binding)


def intensity(fmt: QFormat, count_bits: int, ops: int, bytes_moved: int) -> IntensityOut:
    """round(ops * 2^F / bytes), ties up; all ones with sat on overflow; sat and div0 on bytes == 0."""
    limit = (1 << count_bits) - 1
    for name, count in (("ops", ops), ("bytes", bytes_moved)):
        if not 0 <= count <= limit:
            raise ValueError(f"{name} = {count} does not fit {count_bits} bits")
    if bytes_moved == 0:
        return IntensityOut(fmt.max_raw, True, True)
    numerator = ops << fmt.frac_bits
    quotient = (2 * numerator + bytes_moved) // (2 * bytes_moved)  # floor(n/d + 1/2)
    if quotient > fmt.max_raw:
        return IntensityOut(fmt.max_raw, True, False)
    return IntensityOut(quotient, False, False)


def cap_from_counts(fmt: QFormat, peak: int, bw: int, ops: int, bytes_moved: int) -> AttainableOut:
    """min(peak, ops * bw / bytes) rounded once, never a cap of an already-rounded intensity."""
    if bytes_moved == 0:
        raise ValueError("bytes = 0: the intensity is unbounded; the compute roof binds")
    # Compare ops * bw / bytes with peak exactly: ops * bw < peak * bytes.
    if ops * bw < peak * bytes_moved:
        return AttainableOut((2 * ops * bw + bytes_moved) // (2 * bytes_moved), True)
    return AttainableOut(peak, False)


def counts_hierarchy(
    fmt: QFormat, count_bits: int, peak: int, bws: Sequence[int], ops: int, bytes_per_level: Sequence[int]
) -> HierarchyOut:
    """A kernel placed from counts, each level's cap rounded once (roofline_counts).

    A level with no traffic (bytes = 0) is never memory-bound. The binding level is the
    memory-bound level with the smallest ops * bw / bytes, exactly, the lowest index on a tie.
    """
    if len(bws) != len(bytes_per_level) or not bws:
        raise ValueError("counts need one bandwidth and one byte count per level, at least one level")
    limit = (1 << count_bits) - 1
    for name, count in (("ops", ops), *((f"bytes[{i}]", b) for i, b in enumerate(bytes_per_level))):
        if not 0 <= count <= limit:
            raise ValueError(f"{name} = {count} does not fit {count_bits} bits")
    fmt.check_raw(peak, "peak")
    levels = []
    for bw, moved in zip(bws, bytes_per_level, strict=True):
        fmt.check_raw(bw, "bw")
        levels.append(AttainableOut(peak, False) if moved == 0 else cap_from_counts(fmt, peak, bw, ops, moved))
    binding = len(levels)
    for index, level in enumerate(levels):
        if not level.mem_bound:
            continue
        if binding == len(levels):
            binding = index
        elif ops * bws[index] * bytes_per_level[binding] < ops * bws[binding] * bytes_per_level[index]:
            binding = index
    cap = levels[binding].cap if binding < len(levels) else peak
    return HierarchyOut(cap, tuple(level.cap for level in levels), binding < len(levels), binding)


def round_shift(value: int, shift: int) -> int:
    """value / 2^shift rounded to nearest, ties up."""
    return (value + (1 << (shift - 1))) >> shift
