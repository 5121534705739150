"""The benches' bounds on how late a result may come, at the bound and one cycle either side, without a
simulator: a cycle model of the unit (tests/support/sequential_design.py) answers the bench.

roofline-spec section 3: done_o comes at most COUNT_BITS + FRAC_BITS + 4 cycles after the cycle start_i is
sampled in. A divider that takes exactly that long passes every test of its bench; one cycle more fails
them with a latency or timeout verdict, never a pass. roofline_counts' documented bound (docs/design.md)
is LEVELS x (COUNT_BITS + W + 2) + 2 cycles: held the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sequential_design import LOG, ClockedPorts, CountsModel, IntensityModel

from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.run import Run, execute
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Verdict

DIVIDER = "roofline_intensity"
PARAMS = ParamSet()  # the defaults: COUNT_BITS 64, FRAC_BITS 16
BOUND = PARAMS.params.count_bits + PARAMS.params.fmt.frac_bits + 4  # the spec's figure, 84 at the defaults
# The tests where a division runs its full length (document_cases, edge_cases and boundaries divide by bytes > 0).
TIMED = ("document_cases", "edge_cases", "back_to_back", "random_sweep")


@dataclass
class Divider(IntensityModel):
    """The divider model with a latency of our choosing (cycles from start_i's sampling to done_o)."""

    cycles: int = 0

    @property
    def latency(self) -> int:
        return self.cycles


def judged(test: str, cycles: int) -> Verdict:
    cfg = BenchConfig(DIVIDER, "icarus", PARAMS, 11, sweep=40)
    params = cfg.params
    model = Divider(params.fmt, params.count_bits, cycles=cycles)
    values = {"W": params.fmt.width, "INT_BITS": params.fmt.int_bits, "FRAC_BITS": params.fmt.frac_bits,
              "COUNT_BITS": params.count_bits, "LEVELS": params.levels}
    ports = ClockedPorts(model, DIVIDER, values, Tape(test, {}), False)
    return run_to_end(execute(TESTS[DIVIDER][test], Run(cfg, test, ports, Coverage(), LOG)))


def test_the_bound_is_the_contracts() -> None:
    assert BOUND == 84


@pytest.mark.parametrize("test", TIMED)
@pytest.mark.parametrize("cycles", [BOUND - 1, BOUND])
def test_a_divider_within_the_bound_passes(test: str, cycles: int) -> None:
    verdict = judged(test, cycles)
    assert verdict.passed and verdict.checked == verdict.planned > 0, (cycles, verdict.summary)


@pytest.mark.parametrize("test", TIMED)
def test_a_divider_one_cycle_past_the_bound_fails_on_its_latency(test: str) -> None:
    verdict = judged(test, BOUND + 1)
    assert not verdict.passed, verdict.summary
    kinds = {failure.kind for failure in verdict.failures}
    assert kinds and kinds <= {"latency", "timeout"}, kinds


# ---------------------------------------------------------------- roofline_counts

COUNTS = "roofline_counts"
SMALL = ParamSet(8, 8, 2, 16)  # a short bound, so that a placement one cycle past it is quick to reach
COUNTS_BOUND = SMALL.levels * (SMALL.count_bits + SMALL.params.fmt.width + 2) + 2
COUNTS_TIMED = ("document_cases", "edge_cases", "boundaries", "back_to_back", "random_sweep")


def judged_counts(test: str, cycles: int) -> Verdict:
    cfg = BenchConfig(COUNTS, "icarus", SMALL, 11, sweep=40)
    params = cfg.params
    model = CountsModel(params.fmt, params.count_bits, params.levels, cycles)
    values = {"W": params.fmt.width, "INT_BITS": params.fmt.int_bits, "FRAC_BITS": params.fmt.frac_bits,
              "COUNT_BITS": params.count_bits, "LEVELS": params.levels}
    ports = ClockedPorts(model, COUNTS, values, Tape(test, {}), False)
    return run_to_end(execute(TESTS[COUNTS][test], Run(cfg, test, ports, Coverage(), LOG)))


def test_the_counts_bound_is_the_documented_one() -> None:
    assert COUNTS_BOUND == 2 * (16 + 16 + 2) + 2 == 70


@pytest.mark.parametrize("test", COUNTS_TIMED)
@pytest.mark.parametrize("cycles", [1, COUNTS_BOUND - 1, COUNTS_BOUND])
def test_a_counts_unit_within_its_bound_passes(test: str, cycles: int) -> None:
    verdict = judged_counts(test, cycles)
    assert verdict.passed and verdict.checked == verdict.planned > 0, (cycles, verdict.summary, verdict.reports[:1])


@pytest.mark.parametrize("test", COUNTS_TIMED)
def test_a_counts_unit_one_cycle_past_its_bound_fails_on_its_latency(test: str) -> None:
    verdict = judged_counts(test, COUNTS_BOUND + 1)
    assert not verdict.passed, verdict.summary
    kinds = {failure.kind for failure in verdict.failures}
    assert kinds and kinds <= {"latency", "timeout"}, kinds
    said = (f"no done_o within {COUNTS_BOUND} cycles", f"{COUNTS_BOUND + 1} cycles from the start sampled in cycle")
    assert any(words in report for report in verdict.reports for words in said), verdict.reports[:1]
