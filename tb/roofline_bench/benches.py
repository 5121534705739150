"""Every top-level module's bench: its tests, in the order a run takes them; and the unit benches of
the building blocks that have one (flow "unit")."""

from __future__ import annotations

from roofline_bench import attainable, counts, hierarchy, intensity, pipe, pipe_reg
from roofline_bench.run import BenchTest
from roofline_core.contract import TOPS, modules_with

TESTS: dict[str, dict[str, BenchTest]] = {
    "roofline_attainable": attainable.TESTS,
    "roofline_hierarchy": hierarchy.TESTS,
    "roofline_intensity": intensity.TESTS,
    "roofline_hierarchy_pipe": pipe.TESTS,
    "roofline_counts": counts.TESTS,
}
assert set(TESTS) == set(TOPS), "every top-level module of the contract table has a bench here"

UNIT_TESTS: dict[str, dict[str, pipe_reg.UnitTest]] = {
    "roofline_pipe_reg": pipe_reg.TESTS,
}
assert set(UNIT_TESTS) == set(modules_with("unit")), "every module with a unit bench in the contract table has one here"
