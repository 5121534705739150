"""roofline_counts' done_o is one pulse per placement: a second pulse with no new start, in any idle cycle
its bench watches (each of the two after a boundary placement, the one after a placement that follows a
reset), fails the test as a pulse. A cycle model answers the bench (tests/support/sequential_design.py)."""

from __future__ import annotations

import pytest
from sequential_design import LOG, ClockedPorts, CountsModel

from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.run import Run, execute
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Verdict

COUNTS = "roofline_counts"
SMALL = ParamSet(8, 8, 2, 16)


def judged(test: str, again_after: int) -> Verdict:
    cfg = BenchConfig(COUNTS, "icarus", SMALL, 11, sweep=40)
    p = cfg.params
    model = CountsModel(p.fmt, p.count_bits, p.levels, cycles=5, again_after=again_after)
    values = {"W": p.fmt.width, "INT_BITS": p.fmt.int_bits, "FRAC_BITS": p.fmt.frac_bits, "COUNT_BITS": p.count_bits,
              "LEVELS": p.levels}
    return run_to_end(execute(TESTS[COUNTS][test], Run(cfg, test, ClockedPorts(model, COUNTS, values, Tape(test, {}), False),
                                                       Coverage(), LOG)))


@pytest.mark.parametrize("test", ["boundaries", "reset_in_every_state"])
def test_one_pulse_a_placement_passes(test: str) -> None:
    verdict = judged(test, 0)
    assert verdict.passed and verdict.checked == verdict.planned > 0, verdict.summary


@pytest.mark.parametrize(("test", "again_after"), [("boundaries", 1), ("boundaries", 2), ("reset_in_every_state", 1)])
def test_a_second_pulse_in_a_watched_idle_cycle_fails_as_a_pulse(test: str, again_after: int) -> None:
    verdict = judged(test, again_after)
    assert not verdict.passed and dict(verdict.kinds).get("pulse"), (verdict.summary, verdict.kinds)
    assert any(f"done_o pulsed again {again_after} cycle(s) after the result" in report for report in verdict.reports)
