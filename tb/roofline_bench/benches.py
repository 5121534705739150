"""Every top-level module's bench: its tests, in the order a run takes them."""

from __future__ import annotations

from roofline_bench import attainable, counts, hierarchy, intensity, pipe
from roofline_bench.run import BenchTest
from roofline_core.contract import TOPS

TESTS: dict[str, dict[str, BenchTest]] = {
    "roofline_attainable": attainable.TESTS,
    "roofline_hierarchy": hierarchy.TESTS,
    "roofline_intensity": intensity.TESTS,
    "roofline_hierarchy_pipe": pipe.TESTS,
    "roofline_counts": counts.TESTS,
}
assert set(TESTS) == set(TOPS), "every top-level module of the contract table has a bench here"
