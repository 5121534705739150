"""The exact, real-valued roofline: Fractions, no rounding. The reference for error bounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class ExactPoint:
    cap: Fraction
    mem_bound: bool


@dataclass(frozen=True)
class ExactHierarchy:
    cap: Fraction
    level_caps: tuple[Fraction, ...]
    mem_bound: bool
    binding: int  # level index, or len(levels) when the compute roof binds


def attainable(peak: Fraction, bw: Fraction, ai: Fraction) -> ExactPoint:
    """cap = min(peak, ai * bw); memory-bound only when ai * bw is strictly below peak."""
    memory_roof = Fraction(ai) * Fraction(bw)
    if memory_roof < peak:
        return ExactPoint(memory_roof, True)
    return ExactPoint(Fraction(peak), False)


def hierarchy(peak: Fraction, bws: Sequence[Fraction], ais: Sequence[Fraction]) -> ExactHierarchy:
    """The lowest level cap binds; ties go to the lowest index; compute binds when none is lower."""
    if len(bws) != len(ais) or not bws:
        raise ValueError("hierarchy needs one bandwidth and one intensity per level, at least one level")
    points = [attainable(peak, bw, ai) for bw, ai in zip(bws, ais, strict=True)]
    binding = len(points)
    for index, point in enumerate(points):
        if point.mem_bound and (binding == len(points) or point.cap < points[binding].cap):
            binding = index
    cap = points[binding].cap if binding < len(points) else Fraction(peak)
    return ExactHierarchy(cap, tuple(p.cap for p in points), binding < len(points), binding)


def intensity(ops: int, bytes_moved: int) -> Fraction | None:
    """ops / bytes in FLOP/B; None when no bytes move (the intensity is unbounded)."""
    if bytes_moved == 0:
        return None
    return Fraction(ops, bytes_moved)


def ridge(peak: Fraction, bw: Fraction) -> Fraction:
    """The intensity where the slope meets the flat roof: peak / bandwidth, in FLOP/B."""
    if bw == 0:
        raise ValueError("zero bandwidth has no ridge point")
    return Fraction(peak) / Fraction(bw)
