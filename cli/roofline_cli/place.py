"""Placing each kernel: per level its intensity, cap and ridge; end to end the cap and binding roof."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from roofline_cli.platform import Kernel, Platform
from roofline_golden import exact, format_fraction


@dataclass(frozen=True)
class LevelRow:
    level: str
    intensity: Fraction  # FLOP/B
    cap: Fraction  # GFLOP/s
    ridge: Fraction  # FLOP/B: peak / bandwidth
    memory_bound: bool


@dataclass(frozen=True)
class Placement:
    kernel: Kernel
    peak: Fraction
    rows: tuple[LevelRow, ...]
    cap: Fraction
    binding: str  # a level name, or "compute"

    @property
    def fraction(self) -> Fraction | None:
        if self.kernel.measured is None or self.cap == 0:
            return None
        return self.kernel.measured / self.cap

    @property
    def above_roof(self) -> bool:
        return self.kernel.measured is not None and self.kernel.measured > self.cap


def place(platform: Platform, kernel: Kernel) -> Placement:
    peak = platform.peaks[kernel.precision]
    bws = [platform.level(name).bandwidth for name in kernel.levels]
    ais = [kernel.intensity[name] for name in kernel.levels]
    result = exact.hierarchy(peak, bws, ais)
    rows = tuple(
        LevelRow(name, ai, level_cap, peak / bw, ai * bw < peak)
        for name, ai, bw, level_cap in zip(kernel.levels, ais, bws, result.level_caps, strict=True)
    )
    binding = kernel.levels[result.binding] if result.binding < len(kernel.levels) else "compute"
    return Placement(kernel, peak, rows, result.cap, binding)


def number(value: Fraction) -> str:
    return format_fraction(value, 6).lstrip("~")


def describe(placement: Placement) -> list[str]:
    """Lines of the table for one kernel, model values only."""
    kernel = placement.kernel
    lines = [f"{kernel.name}  [{kernel.precision}: peak {number(placement.peak)} GFLOP/s; "
             f"{'counts' if kernel.by_counts else 'intensities'} given]"]
    lines.append(f"  {'level':<12} {'intensity FLOP/B':>17} {'cap GFLOP/s':>14} {'ridge FLOP/B':>13}  roof")
    for row in placement.rows:
        roof = "memory" if row.memory_bound else "compute"
        mark = "  <- binds" if row.level == placement.binding else ""
        lines.append(f"  {row.level:<12} {number(row.intensity):>17} {number(row.cap):>14} {number(row.ridge):>13}  {roof}{mark}")
    bound_by = "the compute roof" if placement.binding == "compute" else f"{placement.binding} (memory)"
    summary = f"  end to end: {number(placement.cap)} GFLOP/s, bound by {bound_by}"
    if kernel.measured is not None:
        fraction = placement.fraction
        share = f"{float(fraction) * 100:.1f}% of the cap" if fraction is not None else "the cap is 0"
        headroom = number(placement.cap - kernel.measured)
        summary += f"; measured {number(kernel.measured)} GFLOP/s = {share}, headroom {headroom} GFLOP/s"
    lines.append(summary)
    if placement.above_roof:
        lines.append(
            f"  DIAGNOSTIC: the measured {number(kernel.measured or Fraction(0))} GFLOP/s is above its roof of "
            f"{number(placement.cap)} GFLOP/s. Check the units, the operation and byte counts, and what was timed."
        )
    return lines
