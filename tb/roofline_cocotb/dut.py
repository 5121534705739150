"""The benches under a simulator: a design's real ports, and the cocotb tests made from a bench.

`cocotb_tests(top, namespace)` turns the bench's TESTS (roofline_bench) into cocotb tests in the
namespace of a test module (tb/cocotb_tests/test_<module>.py). Each test reads the run's settings,
runs its body on `CocotbPorts`, saves the run's functional coverage beside the results, and
fails with its verdict's message. (A grader runs no bench under the simulator: its sandbox runs
the puppet, roofline_cocotb.puppet, and the bench stays in the grader.)
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, Timer

from roofline_bench.benches import TESTS, UNIT_TESTS
from roofline_bench.counterexample import REPLAY_TEST
from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports, Unresolved
from roofline_bench.run import BenchTest, Run, execute
from roofline_cocotb.signals import periods_until_rise, read_bits
from roofline_core.config import CONFIG_VARIABLE, BenchConfig
from roofline_core.contract import CLOCK_PORT, MODULES

COVERAGE = Coverage()  # one bench run: every test of this simulator process


class CocotbPorts(Ports):
    """The design's ports through cocotb; writes are cut to each port's width."""

    def __init__(self, dut: Any, top: str) -> None:
        self.dut = dut
        self.handles: dict[str, Any] = {}
        self.widths = {}
        for port in MODULES[top].ports:
            handle = getattr(dut, port.name, None)
            self.handles[port.name] = handle
            self.widths[port.name] = None if handle is None else len(handle)

    def read(self, name: str) -> int:
        self.require(name)
        bits = read_bits(self.handles[name])
        try:
            value = int(bits, 2)
        except ValueError:
            raise Unresolved(f"{name} holds X/Z: {bits}") from None
        return value

    def write(self, name: str, value: int) -> None:
        self.require(name)
        self.handles[name].value = value & ((1 << self.widths[name]) - 1)  # type: ignore[operator]

    def start_clock(self, period_ns: int) -> None:
        self.require(CLOCK_PORT)
        cocotb.start_soon(Clock(self.handles[CLOCK_PORT], period_ns, unit="ns", impl="gpi").start())

    async def wait_ns(self, ns: int) -> None:
        await Timer(ns, "ns")

    async def falling_edge(self) -> None:
        await FallingEdge(self.handles[CLOCK_PORT])

    async def rising_edges(self, count: int) -> None:
        await ClockCycles(self.handles[CLOCK_PORT], count)

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        self.require(name)
        return await periods_until_rise(self.handles[name], periods, period_ns)

def cocotb_test(top: str, test: BenchTest, module: str) -> Any:
    async def body(dut: Any) -> None:
        cfg = BenchConfig.from_env()
        try:
            verdict = await execute(test, Run(cfg, test.name, CocotbPorts(dut, top), COVERAGE, dut._log))
        finally:
            COVERAGE.save(Path.cwd(), top, cfg.params.levels)  # cocotb runs the simulator in the build folder
        if not verdict.passed:
            raise AssertionError(verdict.message())

    body.__name__ = body.__qualname__ = test.name
    body.__module__ = module  # cocotb names the test after its module: test_<top>.<test>
    body.__doc__ = test.doc
    return cocotb.test(name=test.name)(body)


def cocotb_tests(top: str, namespace: dict[str, Any]) -> None:
    """Every test of `top`'s bench as a cocotb test of the calling module, in order; with REPLAY=
    (a proof's counterexample), the replay of that trace alone."""
    replaying = os.environ.get(CONFIG_VARIABLE) and BenchConfig.from_env().replay
    tests = {REPLAY_TEST.name: REPLAY_TEST} if replaying else TESTS[top]
    for name, test in tests.items():
        namespace[name] = cocotb_test(top, test, namespace["__name__"])


def unit_tests(top: str, namespace: dict[str, Any]) -> None:
    """Every test of a building block's unit bench (roofline_bench.benches.UNIT_TESTS) as a cocotb test;
    each draws its stimulus from the run's seed and its own name."""
    for name, body in UNIT_TESTS[top].items():
        async def run(dut: Any, name: str = name, body: Any = body) -> None:
            dut._log.info("%s: seed %d", name, cocotb.RANDOM_SEED)
            await body(CocotbPorts(dut, top), random.Random(f"{cocotb.RANDOM_SEED}:{name}"))

        run.__name__ = run.__qualname__ = name
        run.__module__ = namespace["__name__"]
        namespace[name] = cocotb.test(name=name)(run)
