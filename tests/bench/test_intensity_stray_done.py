"""A roofline_intensity whose done_o stays high (the lab-3 bug `done_d = done_o`) or comes twice leaves the
design dividing while the bench has nothing in flight, and a held done_o makes each of those cycles a stray
pulse. The bench takes those cycles in one hold of the ports per division (hold_while_busy_alone) rather
than one exchange per cycle, which through a grader's channel cost 46 s for the 71,385 cycles of one test.
Here the same runs are made both ways on the cycle model of tests/support/sequential_design.py: the verdict
is the same to the last event, X/Z included, and the hold asks for far fewer exchanges."""

from __future__ import annotations

from typing import Any

import pytest
from sequential_design import LOG, ClockedPorts, IntensityModel

from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.intensity import IntensityTB
from roofline_bench.run import Run, execute
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import ParamSet

CFG = BenchConfig("roofline_intensity", "icarus", ParamSet(int_bits=8, frac_bits=8, count_bits=16), 11)
VALUES = {"W": 16, "LEVELS": 1, "INT_BITS": 8, "FRAC_BITS": 8, "COUNT_BITS": 16}


class CountingPorts(ClockedPorts):
    """The model's ports, counting what a remote design answers in one exchange each: a falling edge the
    bench waits for itself, a hold, a wait for a rise."""

    def __init__(self, bug: str) -> None:
        super().__init__(IntensityModel(CFG.params.fmt, CFG.params.count_bits, bug), CFG.top, VALUES, Tape("t", {}), False)
        self.exchanges = 0
        self.holding = False

    async def falling_edge(self) -> None:
        self.exchanges += not self.holding
        await super().falling_edge()

    async def hold(self, watch: dict[str, int], writes: list[list[tuple[str, int]]]) -> tuple[int, dict[str, int] | None]:
        self.exchanges += 1
        self.holding = True
        try:
            return await super().hold(watch, writes)
        finally:
            self.holding = False

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        self.exchanges += 1
        return await super().periods_until_rise(name, periods, period_ns)


def run(test: str, bug: str) -> tuple[Any, int]:
    ports = CountingPorts(bug)
    verdict = run_to_end(execute(TESTS[CFG.top][test], Run(CFG, test, ports, Coverage(), LOG)))
    return verdict, ports.exchanges


def edge_by_edge(monkeypatch: pytest.MonkeyPatch) -> None:
    async def no_hold(self: IntensityTB, noise_rng: object, edge: int, edges: int, done: bool) -> tuple[int, None]:
        return 0, None

    monkeypatch.setattr(IntensityTB, "hold_while_busy_alone", no_hold)


@pytest.mark.parametrize("bug", ["done held", "double done", "done held then busy X", "done held then done X"])
@pytest.mark.parametrize("test", ["back_to_back", "random_sweep", "edge_cases"])
def test_a_done_o_left_high_gets_the_verdict_of_the_cycle_loop_in_far_fewer_exchanges(test: str, bug: str,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    held, held_exchanges = run(test, bug)
    with monkeypatch.context() as patch:
        edge_by_edge(patch)
        looped, looped_exchanges = run(test, bug)
    assert held == looped
    assert held.events and set(dict(held.kinds)) >= {"pulse"}
    assert ("unresolved" in dict(held.kinds)) == bug.endswith(" X")
    # A run stopped early by its X/Z, or one of few operations (edge_cases): fewer exchanges; the long ones
    # (back_to_back: 1,873 against 22,705 with done_o held, 2,741 with it twice): far fewer.
    long_run = bug in ("done held", "double done") and test != "edge_cases"
    assert held_exchanges * (5 if long_run else 2) < looped_exchanges, (held_exchanges, looped_exchanges)


def test_a_design_whose_done_falls_is_run_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference model never enters the hold: its verdict and exchanges are the cycle loop's."""
    passed, exchanges = run("back_to_back", "")
    with monkeypatch.context() as patch:
        edge_by_edge(patch)
        assert run("back_to_back", "") == (passed, exchanges)
    assert passed.passed
