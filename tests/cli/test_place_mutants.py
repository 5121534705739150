"""The roofline command's placement, by the contract's rules (make mutation's tests for cli/roofline_cli/place.py).

The contract (docs and the spec's section 1): cap_l = min(peak, ai_l * bw_l); ridge_l = peak / bw_l (never
bw / peak); a level is memory-bound when ai_l * bw_l < peak strictly, so at the ridge the compute roof binds;
the binding level has the smallest ai_l * bw_l among the memory-bound ones (the lowest index on a tie), else
compute; headroom is cap - measured, and a measured point above its cap is a diagnostic. The numbers are that
arithmetic, done by hand.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from roofline_cli.place import describe, number, place
from roofline_cli.platform import Kernel, Level, Platform

F = Fraction
PEAK = F(100)


def platform(peak: Fraction = PEAK, **bandwidths: Fraction) -> Platform:
    levels = tuple(Level(name, bw) for name, bw in (bandwidths or {"DRAM": F(20)}).items())
    return Platform("test", "test.toml", {"FP64": peak, "FP32": 2 * peak}, levels, (), Path("test.toml"))


def kernel(measured: Fraction | None = None, precision: str = "FP64", counts: bool = False,
           **intensity: Fraction) -> Kernel:
    levels = tuple(intensity)
    return Kernel("k", precision, levels, dict(intensity), F(10) if counts else None,
                  {name: F(10) / ai for name, ai in intensity.items()} if counts else None, measured)


@pytest.mark.parametrize(("ai", "cap", "memory_bound", "binding"), [
    (F(49, 10), F(98), True, "DRAM"),  # below the ridge: the slope
    (F(5), F(100), False, "compute"),  # at the ridge (5 x 20 == 100): the compute roof binds
    (F(51, 10), F(100), False, "compute"),  # past it: the peak
])
def test_one_level_each_side_of_the_ridge_and_at_it(ai: Fraction, cap: Fraction, memory_bound: bool, binding: str) -> None:
    placed = place(platform(), kernel(DRAM=ai))
    (row,) = placed.rows
    assert (row.level, row.intensity, row.cap, row.ridge, row.memory_bound) == ("DRAM", ai, cap, F(5), memory_bound)
    assert (placed.cap, placed.binding, placed.peak) == (cap, binding, F(100))


def test_the_ridge_is_peak_over_bandwidth_per_level_and_the_lowest_memory_cap_binds() -> None:
    placed = place(platform(F(100), L1=F(400), L2=F(50), DRAM=F(20)), kernel(L1=F(1, 8), L2=F(1), DRAM=F(3)))
    assert [(r.level, r.cap, r.ridge, r.memory_bound) for r in placed.rows] == [
        ("L1", F(50), F(1, 4), True), ("L2", F(50), F(2), True), ("DRAM", F(60), F(5), True)]
    assert (placed.cap, placed.binding) == (F(50), "L1")  # L1 and L2 tie at 50: the lowest index


def test_a_later_level_binds_when_its_cap_is_lower_and_a_level_at_its_ridge_never_binds() -> None:
    placed = place(platform(F(100), L2=F(50), DRAM=F(20)), kernel(L2=F(2), DRAM=F(4)))  # L2 at its ridge, DRAM 80
    assert [r.memory_bound for r in placed.rows] == [False, True]
    assert (placed.cap, placed.binding) == (F(80), "DRAM")


def test_the_kernels_precision_picks_its_peak() -> None:
    placed = place(platform(F(100)), kernel(precision="FP32", DRAM=F(6)))  # FP32 peak 200, 6 x 20 = 120
    assert (placed.peak, placed.cap, placed.binding, placed.rows[0].ridge) == (F(200), F(120), "DRAM", F(10))


@pytest.mark.parametrize(("measured", "fraction", "above"), [
    (None, None, False), (F(49), F(1, 2), False), (F(98), F(1), False), (F(99), F(99, 98), True),
])
def test_the_fraction_of_the_cap_and_a_point_above_its_roof(measured: Fraction | None, fraction: Fraction | None,
                                                            above: bool) -> None:
    placed = place(platform(), kernel(measured, DRAM=F(49, 10)))  # cap 98
    assert (placed.fraction, placed.above_roof) == (fraction, above)


def test_a_zero_cap_has_no_fraction_and_any_measured_point_is_above_it() -> None:
    placed = place(platform(), kernel(F(1), DRAM=F(0)))
    assert (placed.cap, placed.fraction, placed.above_roof) == (0, None, True)
    assert "the cap is 0" in describe(placed)[-2]


def test_numbers_show_six_significant_digits_without_the_approximation_mark() -> None:
    assert (number(F(1, 3)), number(F(5)), number(F(2000, 3)), number(F(0))) == ("0.333333", "5", "666.667", "0")


def test_the_table_names_each_levels_roof_marks_the_binding_one_and_says_what_binds() -> None:
    placed = place(platform(F(100), L2=F(50), DRAM=F(20)), kernel(L2=F(2), DRAM=F(1)))  # L2 at its ridge; DRAM 20
    lines = describe(placed)
    assert lines[0] == "k  [FP64: peak 100 GFLOP/s; intensities given]"
    assert lines[1] == "  level         intensity FLOP/B    cap GFLOP/s  ridge FLOP/B  roof"
    assert lines[2] == f"  {'L2':<12} {'2':>17} {'100':>14} {'2':>13}  compute"
    assert lines[3] == f"  {'DRAM':<12} {'1':>17} {'20':>14} {'5':>13}  memory  <- binds"
    assert lines[4:] == ["  end to end: 20 GFLOP/s, bound by DRAM (memory)"]


def test_a_compute_bound_kernel_marks_no_row_and_is_bound_by_the_compute_roof() -> None:
    lines = describe(place(platform(), kernel(counts=True, DRAM=F(5))))
    assert lines[0].endswith("; counts given]") and not [line for line in lines if "<- binds" in line]
    assert lines[2].endswith("  compute") and lines[-1] == "  end to end: 100 GFLOP/s, bound by the compute roof"


def test_a_measured_point_gets_its_share_and_headroom_and_one_above_its_roof_a_diagnostic() -> None:
    lines = describe(place(platform(), kernel(F(49, 2), DRAM=F(49, 10))))  # 24.5 of 98
    assert lines[-1] == "  end to end: 98 GFLOP/s, bound by DRAM (memory); measured 24.5 GFLOP/s = 25.0% of the cap, " \
                        "headroom 73.5 GFLOP/s"
    at_roof = describe(place(platform(), kernel(F(98), DRAM=F(49, 10))))
    assert "= 100.0% of the cap, headroom 0 GFLOP/s" in at_roof[-1] and "DIAGNOSTIC" not in "\n".join(at_roof)
    above = describe(place(platform(), kernel(F(100), DRAM=F(49, 10))))
    assert above[-2].endswith("= 102.0% of the cap, headroom -2 GFLOP/s")
    assert above[-1] == ("  DIAGNOSTIC: the measured 100 GFLOP/s is above its roof of 98 GFLOP/s. Check the units, the "
                         "operation and byte counts, and what was timed.")
