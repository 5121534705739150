"""cocotb testbench of roofline_hierarchy_pipe, the valid/ready pipeline around the hierarchy.

Each clock, on the falling edge, the driver offers the next vector (or a gap) and the sink
decides whether it is ready; a moment later both handshakes are read, so the test knows
which transfers the next rising edge makes. Results are checked in order against the golden
model. Stalls on both sides, the latency, one result per clock, outputs held under
back-pressure, and a reset in the middle of traffic are each a test.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, Timer

from roofline_core.config import BenchConfig
from roofline_core.describe import inputs_text
from roofline_core.scoreboard import Scoreboard, selected
from roofline_tb import functional_coverage as functional
from roofline_tb.checkers import bench_rng, directed, drive_rates, hierarchy_batch, read_hierarchy_outputs, report_unresolved
from roofline_tb.signals import UnresolvedOutput, check_width, read_bool
from roofline_tb.stimulus import RateVector, rate_vectors

CLOCK_NS = 10
SETTLE_NS = 1  # after the falling edge, before the rising edge: handshakes have settled


@dataclass(frozen=True)
class Item:
    vector_id: str | int
    label: str
    vector: RateVector


class PipeTB:
    """Clock, reset, and a cycle loop that drives, samples and checks in order."""

    def __init__(self, dut: Any, test: str) -> None:
        self.dut = dut
        self.cfg = BenchConfig.from_env()
        self.sb = Scoreboard(self.cfg, test, dut._log)
        self.latency = 3 + self.cfg.param_set.mul_stages  # the module's documented latency
        self.expected: deque[Item] = deque()
        self.cycle = 0
        self.out_fires: list[int] = []
        self.last_in_fire = -2
        self.batch = hierarchy_batch(self.sb)
        cocotb.start_soon(Clock(dut.clk_i, CLOCK_NS, unit="ns", impl="gpi").start())

    async def reset(self, cycles: int = 2) -> None:
        dut = self.dut
        dut.in_valid_i.value = 0
        dut.out_ready_i.value = 0
        dut.peak_i.value = 0
        dut.bw_i.value = 0
        dut.ai_i.value = 0
        dut.rst_ni.value = 0
        await ClockCycles(dut.clk_i, cycles)
        await FallingEdge(dut.clk_i)
        dut.rst_ni.value = 1
        self.expected.clear()  # a reset drops whatever was in flight
        if read_bool(dut.out_valid_o):
            self.sb.fail("reset", "out_valid_o is high right after reset; the pipeline must be empty", event=True)

    async def run(
        self, items: list[Item], rng: random.Random | None = None, p_valid: float = 1.0, p_ready: float = 1.0,
        reset_after: int | None = None,
    ) -> None:
        """Stream `items`; with an rng, offer each cycle with p_valid and be ready with p_ready."""
        dut = self.dut
        pending = deque(item for item in items if selected(self.cfg, item.vector_id))
        sent = 0
        held: tuple[int, tuple[int, bool, int, int]] | None = None  # a stalled result and its cycle
        idle_limit = self.latency + 64
        idle = 0
        while pending or self.expected:
            await FallingEdge(dut.clk_i)
            self.cycle += 1
            offer = bool(pending) and (rng is None or rng.random() < p_valid)
            ready = rng is None or rng.random() < p_ready
            if offer:
                drive_rates(dut, self.cfg.params.fmt.width, pending[0].vector)
            dut.in_valid_i.value = int(offer)
            dut.out_ready_i.value = int(ready)
            await Timer(SETTLE_NS, "ns")
            in_fire = offer and read_bool(dut.in_ready_o)
            out_valid = read_bool(dut.out_valid_o)
            self.sample_handshake(offer, in_fire, out_valid, ready, bool(pending))
            took = False  # a result that was in flight left: progress (a phantom one is not)
            if out_valid:
                held = self.check_held(held)
                if ready:
                    took = self.take_result()
                    held = None
                elif held is None:
                    held = (self.cycle, read_hierarchy_outputs(dut))
            if in_fire:
                self.expected.append(pending.popleft())
                sent += 1
            idle = 0 if (in_fire or took) else idle + 1
            if idle > idle_limit and (self.expected or pending) and (rng is None or p_ready > 0):
                waiting = (f"{len(self.expected)} in flight" if self.expected
                           else f"in_ready_o low with {len(pending)} inputs waiting")
                self.sb.fail((self.expected or pending)[0].vector_id,
                             f"TIMEOUT {self.cfg.top}: no transfer for {idle} cycles, {waiting}")
                self.batch.flush()
                return
            if reset_after is not None and sent == reset_after:
                reset_after = None
                if self.expected:
                    functional.hit("reset with results in flight")
                await self.reset(cycles=1)
                held = None
        dut.in_valid_i.value = 0
        self.batch.flush()  # every result taken is judged before the test finishes

    def sample_handshake(self, offer: bool, in_fire: bool, out_valid: bool, ready: bool, waiting: bool) -> None:
        if offer and not in_fire:
            functional.hit("input stall (in_valid_i, not in_ready_o)")
        if out_valid and not ready:
            functional.hit("output stall (out_valid_o, not out_ready_i)")
        if waiting and not offer:
            functional.hit("input gap (no in_valid_i)")
        if in_fire and self.last_in_fire == self.cycle - 1:
            functional.hit("back-to-back transfers")
        if in_fire:
            self.last_in_fire = self.cycle

    def check_held(self, held: tuple[int, tuple[int, bool, int, int]] | None) -> tuple[int, tuple[int, bool, int, int]] | None:
        """A result the sink did not take must stay put, unchanged, until it is taken."""
        if held is None:
            return None
        since, outputs = held
        now = read_hierarchy_outputs(self.dut)
        if now != outputs:
            item = self.expected[0] if self.expected else None
            self.sb.fail(
                item.vector_id if item else "stall",
                f"BACK-PRESSURE {self.cfg.top}: the outputs changed while out_ready_i was low "
                f"(held since cycle {since}, changed by cycle {self.cycle}): {outputs} -> {now}",
                event=item is None,
            )
        return held

    def take_result(self) -> bool:
        """Judge the result the sink takes; False when nothing was in flight (no progress)."""
        self.out_fires.append(self.cycle)
        if not self.expected:
            self.sb.fail(self.cycle, f"out_valid_o was high in cycle {self.cycle} with nothing in flight: a result out of "
                                     f"nowhere (a duplicate, or a valid with less than the {self.latency}-cycle latency)",
                         event=True)
            return False
        item = self.expected.popleft()
        fmt = self.cfg.params.fmt
        try:
            outputs = read_hierarchy_outputs(self.dut)
        except UnresolvedOutput as problem:
            inputs = inputs_text(fmt, item.vector.peak, item.vector.bws, item.vector.ais)
            report_unresolved(self.sb, item.vector_id, item.label, problem, inputs)
            return True
        self.batch.add(item.vector_id, item.label, item.vector, outputs)
        return True


def sweep_items(tb: PipeTB, test: str) -> list[Item]:
    cfg = tb.cfg
    vectors = rate_vectors(bench_rng(cfg, test), cfg.params.fmt, cfg.params.levels, cfg.sweep)
    tb.dut._log.info("%s: seed %d, %d vectors", test, cfg.seed, len(vectors))
    return [Item(index, vector.kind, vector) for index, vector in enumerate(vectors)]


@cocotb.test()
async def port_widths(dut: Any) -> None:
    """Every data port has the width the parameters give it."""
    params = BenchConfig.from_env().params
    width, levels = params.fmt.width, params.levels
    for port in (dut.peak_i, dut.cap_o):
        check_width(port, width)
    for port in (dut.bw_i, dut.ai_i, dut.level_cap_o):
        check_width(port, levels * width)
    check_width(dut.binding_o, levels.bit_length())


@cocotb.test()
async def document_and_edge_cases(dut: Any) -> None:
    """The documents' cases and the spec's edge cases, streamed back to back."""
    tb = PipeTB(dut, "document_and_edge_cases")
    await tb.reset()
    items = [
        Item(r.case.id, r.case.title, RateVector(r.case.id, r.peak, r.bws, r.ais))
        for group in ("document", "edge") for r in directed(tb.cfg, group, dut._log)
    ]
    await tb.run(items)
    tb.sb.finish()


@cocotb.test()
async def one_result_per_clock(dut: Any) -> None:
    """With the sink always ready, N inputs give N results on N consecutive clocks, after the latency."""
    tb = PipeTB(dut, "one_result_per_clock")
    await tb.reset()
    items = sweep_items(tb, "one_result_per_clock")
    first_cycle = tb.cycle + 1
    await tb.run(items)
    fires = tb.out_fires
    if len(fires) != len(items):
        tb.sb.fail("throughput", f"{len(items)} inputs gave {len(fires)} results", event=True)
    elif fires != list(range(fires[0], fires[0] + len(items))):
        gaps = sum(1 for a, b in zip(fires, fires[1:], strict=False) if b != a + 1)
        tb.sb.fail("throughput", f"results were not on consecutive clocks: {gaps} gap(s) in {len(items)} results", event=True)
    elif fires[0] - first_cycle != tb.latency:
        tb.sb.fail("latency", f"the first result came {fires[0] - first_cycle} cycles after its input; "
                              f"the module documents {tb.latency}", event=True)
    dut._log.info("%d results on %d consecutive clocks, latency %d", len(fires), len(fires), tb.latency)
    tb.sb.finish()


@cocotb.test()
async def random_stalls_both_sides(dut: Any) -> None:
    """Random gaps at the input and random back-pressure at the output: nothing lost, duplicated or changed."""
    tb = PipeTB(dut, "random_stalls_both_sides")
    await tb.reset()
    rng = bench_rng(tb.cfg, "random_stalls_both_sides:handshake")
    await tb.run(sweep_items(tb, "random_stalls_both_sides"), rng, p_valid=0.7, p_ready=0.6)
    tb.sb.finish()


@cocotb.test()
async def heavy_back_pressure(dut: Any) -> None:
    """A sink that is ready one cycle in five: the pipeline fills, stalls and drains in order."""
    tb = PipeTB(dut, "heavy_back_pressure")
    await tb.reset()
    rng = bench_rng(tb.cfg, "heavy_back_pressure:handshake")
    await tb.run(sweep_items(tb, "heavy_back_pressure")[:200], rng, p_valid=1.0, p_ready=0.2)
    tb.sb.finish()


@cocotb.test()
async def reset_during_traffic(dut: Any) -> None:
    """A reset with results in flight empties the pipeline; traffic after it is checked as usual."""
    tb = PipeTB(dut, "reset_during_traffic")
    await tb.reset()
    rng = bench_rng(tb.cfg, "reset_during_traffic:handshake")
    items = sweep_items(tb, "reset_during_traffic")[:300]
    await tb.run(items[:150], rng, p_valid=0.9, p_ready=0.7, reset_after=rng.randint(20, 100))
    await tb.run(items[150:], rng, p_valid=0.9, p_ready=0.7)
    tb.sb.finish()


@cocotb.test()
async def functional_coverage(dut: Any) -> None:
    """Runs last: every regime of the contract was reached by the tests above (see roofline_tb.functional)."""
    cfg = BenchConfig.from_env()
    functional.close(cfg.top, cfg.params.levels, cfg.only is not None, dut._log)
