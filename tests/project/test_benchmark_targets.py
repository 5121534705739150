"""The benchmark's targets (issue 36), on both sides of each: a row at its target meets it, a row
past it does not, and the docs' table says which (benchmark/run.py, roofline_flows.docs)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

import pytest

from roofline_core.paths import REPO_ROOT
from roofline_flows.docs import benchmark_table


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_run", REPO_ROOT / "benchmark" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_targets_are_the_issue_s(bench: ModuleType) -> None:
    assert (bench.TIER_TARGET_S, bench.FRESH_TARGET_S, bench.CHECK_TARGET_S, bench.BULK_TARGET_RATIO) == (90, 150, 10, 2)


@pytest.mark.parametrize(("runs", "met"), [([9.0, 10.0, 30.0], True), ([10.0, 10.0, 1.0], True), ([10.01, 10.2, 1.0], False)])
def test_a_wait_meets_its_target_by_its_median(bench: ModuleType, runs: list[float], met: bool) -> None:
    timing = bench.Timing.of("make check LAB=5, first answer", runs, bench.CHECK_TARGET_S)
    assert timing.met is met and timing.seconds == sorted(runs)[1]
    assert bench.Timing.of("make check LAB=5, whole", runs).met is None


@pytest.mark.parametrize(("bulk_rate", "met"), [(5_000_000, True), (4_999_999, False), (7_000_000, True)])
def test_bulk_meets_its_target_at_half_the_native_rate_and_not_below(bench: ModuleType, bulk_rate: float, met: bool) -> None:
    n = 1_000_000
    native = bench.Measurement("native", "verilator", n, n / 10_000_000, 10_000_000, 0.1)
    bulk = bench.Measurement("bulk", "verilator", n, n / bulk_rate, bulk_rate, 2.0)
    small = bench.Measurement("bulk", "verilator", 1000, 0.01, 100_000, 2.0)  # no target below 10^6
    marked = {(m.path, m.n): m for m in bench.with_targets([native, bulk, small])}
    assert marked[("bulk", n)].met is met and marked[("native", n)].target is None and marked[("bulk", 1000)].target is None
    lines = bench.target_lines(list(marked.values()), [bench.Timing.of("make test, warm", [91.0], bench.TIER_TARGET_S)])
    assert lines[0] == "target: make test, warm within 90 s on 2 CPUs: 91.0 s, NOT met"
    assert lines[1].endswith("met" if met else "NOT met") and f"{10_000_000 / bulk_rate:.2f}x" in lines[1]


def test_the_docs_table_shows_each_target_and_whether_it_was_met(bench: ModuleType) -> None:
    native = bench.Measurement("native", "verilator", 10**6, 0.1, 10**7, 0.1)
    bulk = bench.Measurement("bulk", "verilator", 10**6, 0.3, 3_333_333, 2.0)
    timings = [bench.Timing.of("make check LAB=5, first answer", [6.0], 10.0), bench.Timing.of("make check LAB=5, whole", [19.0])]
    document = {"results": [bench.asdict(m) for m in bench.with_targets([native, bulk])],
                "timings": [bench.asdict(t) for t in timings]}
    table = benchmark_table(document)
    assert "| bulk | verilator | 1,000,000 |" in table
    assert "of the native loop's verified vectors/s in the same run: **not met** |" in table
    assert "| make check LAB=5, first answer | 6.0 | 6.0 | at most 10 s on 2 CPUs: met |" in table
    assert "| make check LAB=5, whole | 19.0 | 19.0 |  |" in table
