"""cocotb testbench of roofline_intensity, the sequential divider.

A driver issues operations whenever busy_o is low (back to back, or after random gaps) and,
in noisy tests, raises start_i with other operands while busy_o is high, which the contract
says must be ignored. A monitor takes each done_o pulse in order and checks it against the
golden model, the documents and the latency bound; a missing done_o times out.
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
from roofline_core.scoreboard import Field, Scoreboard, selected
from roofline_golden import cases, exact, fixed, format_fraction
from roofline_tb import functional_coverage as functional
from roofline_tb.signals import UnresolvedOutput, check_width, periods_until_rise, read_bool, read_uint
from roofline_tb.stimulus import count_vectors

CLOCK_NS = 10


@dataclass(frozen=True)
class Operation:
    vector_id: str | int
    label: str
    ops: int
    bytes: int
    document: cases.CountsCase | None = None


@dataclass(frozen=True)
class InFlight:
    operation: Operation
    accepted_at: int  # the cycle (falling-edge index) in which start_i was high and sampled


class IntensityTB:
    def __init__(self, dut: Any, test: str) -> None:
        self.dut = dut
        self.cfg = BenchConfig.from_env()
        self.sb = Scoreboard(self.cfg, test, dut._log)
        params = self.cfg.params
        # The contract's latency bound (spec section 3), whatever the implementation.
        self.max_latency = params.count_bits + params.fmt.frac_bits + 4
        self.latencies: list[int] = []
        self.done, self.busy, self.start = dut.done_o, dut.busy_o, dut.start_i
        self.start_value = -1  # unknown until the first write
        cocotb.start_soon(Clock(dut.clk_i, CLOCK_NS, unit="ns", impl="gpi").start())

    async def reset(self) -> None:
        self.set_start(0)
        self.dut.ops_i.value = 0
        self.dut.bytes_i.value = 0
        self.dut.rst_ni.value = 0
        await ClockCycles(self.dut.clk_i, 2)
        await FallingEdge(self.dut.clk_i)
        self.dut.rst_ni.value = 1
        self.expect_idle("after reset")

    def expect_idle(self, when: str) -> None:
        for name in ("busy_o", "done_o"):
            if read_bool(getattr(self.dut, name)):
                self.sb.fail(when, f"{name} is high {when}; it must be low", event=True)

    async def run(self, operations: list[Operation], rng: random.Random | None = None, noise: bool = False) -> None:
        """Issue every operation, check every result in order; rng adds idle gaps, noise adds starts while busy."""
        pending = deque(op for op in operations if selected(self.cfg, op.vector_id))
        in_flight: deque[InFlight] = deque()
        edge = 0
        gap = 0
        busy_since = 0  # the last edge busy_o was low
        while pending or in_flight:
            await FallingEdge(self.dut.clk_i)
            edge += 1
            done = read_bool(self.done)
            if done:
                if not in_flight:
                    self.sb.fail(edge, f"done_o pulsed at edge {edge} with no operation in flight", event=True)
                else:
                    self.check_result(in_flight.popleft(), edge)
            busy = read_bool(self.busy)
            busy_since = busy_since if busy else edge
            if not in_flight and edge - busy_since > self.max_latency:
                self.sb.fail(edge, f"TIMEOUT {self.cfg.top}: busy_o high for {edge - busy_since} cycles "
                                   "with no operation started", event=True)
                return
            if in_flight and edge - in_flight[0].accepted_at > self.max_latency:
                op = in_flight[0].operation
                self.sb.fail(
                    op.vector_id,
                    f"TIMEOUT {self.cfg.top}: no done_o within {self.max_latency} cycles of start for "
                    f"ops = {op.ops:#x}, bytes = {op.bytes:#x} ({op.label})",
                )
                return
            issued = self.drive(pending, in_flight, edge, rng, noise, gap, busy, done)
            gap = rng.choice((0, 0, 1, 3)) if rng and issued else max(0, gap - 1)
            if in_flight and not noise and not issued and edge > in_flight[0].accepted_at:
                edge = await self.skip_to_done(edge, in_flight[0].accepted_at)
        await FallingEdge(self.dut.clk_i)
        if read_bool(self.done):
            self.sb.fail("end", "done_o pulsed after every operation had completed", event=True)

    async def skip_to_done(self, edge: int, accepted_at: int) -> int:
        """With a division running and start_i low, wait for done_o to rise (or for the latency
        bound to pass) instead of sampling every cycle. Returns the edge count just before the
        falling edge that samples it, so the cycle loop picks up exactly where it would have."""
        bound = accepted_at + self.max_latency + 1 - edge  # the loop's timeout fires at this edge
        return edge + await periods_until_rise(self.done, bound, CLOCK_NS)

    def drive(
        self, pending: deque[Operation], in_flight: deque[InFlight], edge: int,
        rng: random.Random | None, noise: bool, gap: int, busy: bool, done: bool,
    ) -> bool:
        """Set start_i for the coming rising edge, which samples it only while busy_o is low
        (busy and done: as sampled at this edge)."""
        if not busy and pending and gap == 0:
            if done:
                functional.hit("start in the done_o cycle")
            op = pending.popleft()
            self.set_start(1)
            self.dut.ops_i.value = op.ops
            self.dut.bytes_i.value = op.bytes
            in_flight.append(InFlight(op, edge))
            return True
        if busy and noise and rng is not None and rng.random() < 0.5:
            self.set_start(1)
            self.dut.ops_i.value = rng.getrandbits(self.cfg.params.count_bits)
            self.dut.bytes_i.value = rng.getrandbits(self.cfg.params.count_bits)
        else:
            self.set_start(0)
        return False

    def set_start(self, value: int) -> None:
        """start_i, written only when it changes (a write per cycle is most of an idle cycle's cost)."""
        if value != self.start_value:
            self.start.value = value
            self.start_value = value

    def check_result(self, flight: InFlight, done_edge: int) -> None:
        op, cfg = flight.operation, self.cfg
        fmt, count_bits = cfg.params.fmt, cfg.params.count_bits
        inputs = [f"ops_i = {op.ops:#x} ({op.ops} FLOP)", f"bytes_i = {op.bytes:#x} ({op.bytes} B)"]
        try:
            ai, sat, div0 = read_uint(self.dut.ai_o), read_bool(self.dut.sat_o), read_bool(self.dut.div0_o)
        except UnresolvedOutput as problem:
            self.sb.fail(op.vector_id, f"X/Z {cfg.top} [{self.sb.test} {op.vector_id}: {op.label}] with done_o high: "
                         f"{problem}\n  inputs  : " + ", ".join(inputs))
            return
        latency = done_edge - flight.accepted_at  # from the cycle start_i is sampled in to the done_o cycle
        self.latencies.append(latency)
        want = fixed.intensity(fmt, count_bits, op.ops, op.bytes)
        functional.sample_division(fmt, count_bits, op.ops, op.bytes, want.sat)
        fields = [
            Field("ai_o", want.ai, ai, "FLOP/B"),
            Field("sat_o", int(want.sat), int(sat)),
            Field("div0_o", int(want.div0), int(div0)),
        ]
        doc = op.document
        if doc is not None:
            if doc.expect_sat is not None:
                fields.append(Field("sat_o vs documents", int(doc.expect_sat), int(sat)))
            if doc.expect_div0 is not None:
                fields.append(Field("div0_o vs documents", int(doc.expect_div0), int(div0)))
        real = exact.intensity(op.ops, op.bytes)
        context = [
            f"exact  : ops / bytes = {'unbounded (bytes = 0)' if real is None else format_fraction(real)} FLOP/B",
            f"latency: {latency} cycles (contract: at most {self.max_latency})",
        ]
        self.sb.check(op.vector_id, op.label, inputs, fields, context)
        if latency > self.max_latency:
            self.sb.fail(op.vector_id, f"LATENCY {latency} cycles exceeds the contract's {self.max_latency}")
        if doc is not None and doc.expect_ai is not None and not sat:
            allowed = max(doc.expect_ai_within, fmt.lsb / 2)
            if abs(fmt.to_real(ai) - doc.expect_ai) > allowed:
                self.sb.fail(op.vector_id, f"ai_o = {fmt.describe(ai, 'FLOP/B')} is not the documents' "
                             f"{format_fraction(doc.expect_ai)} within {format_fraction(allowed)} ({op.label})")
        if real is not None and not want.sat and abs(fmt.to_real(ai) - real) > fmt.lsb / 2:
            self.sb.fail(op.vector_id, f"ERROR BOUND: ai_o = {fmt.describe(ai, 'FLOP/B')} is more than "
                         f"2^-{fmt.frac_bits + 1} from the exact {format_fraction(real)}")

    def finish(self) -> None:
        if self.latencies:
            self.dut._log.info("latency: min %d, max %d cycles", min(self.latencies), max(self.latencies))
        self.sb.finish()


def directed(cfg: BenchConfig, group: str, log: Any) -> list[Operation]:
    operations = []
    for case in cases.load_cases():
        if case.group != group:
            continue
        try:
            resolved = cases.counts(case, cfg.params)
        except cases.NotRepresentable as why:
            log.info("skipped %s: %s", case.id, why)
            continue
        for item in resolved:
            operations.append(Operation(case.id, case.title, item.ops, item.bytes, item))
    return operations


def sweep(cfg: BenchConfig, test: str, log: Any) -> tuple[list[Operation], random.Random]:
    rng = random.Random(f"{cfg.seed}:{test}")
    vectors = count_vectors(rng, cfg.params.fmt, cfg.params.count_bits, cfg.sweep)
    log.info("%s: seed %d, %d operations over kinds %s", test, cfg.seed, len(vectors), sorted({v.kind for v in vectors}))
    return [Operation(i, v.kind, v.ops, v.bytes) for i, v in enumerate(vectors)], rng


@cocotb.test()
async def port_widths_and_reset(dut: Any) -> None:
    """Port widths follow the parameters; busy_o and done_o are low out of reset."""
    tb = IntensityTB(dut, "port_widths_and_reset")
    params = tb.cfg.params
    check_width(dut.ops_i, params.count_bits)
    check_width(dut.bytes_i, params.count_bits)
    check_width(dut.ai_o, params.fmt.width)
    for port in (dut.busy_o, dut.done_o, dut.sat_o, dut.div0_o):
        check_width(port, 1)
    await tb.reset()
    tb.sb.checked += 1
    tb.finish()


@cocotb.test()
async def document_cases(dut: Any) -> None:
    """The documents' kernels by their counts: dot product, stencils, tiled GEMM."""
    tb = IntensityTB(dut, "document_cases")
    await tb.reset()
    await tb.run(directed(tb.cfg, "document", dut._log))
    tb.finish()


@cocotb.test()
async def edge_cases(dut: Any) -> None:
    """bytes = 0, saturation at and just below 2^W, rounding ties, all ones."""
    tb = IntensityTB(dut, "edge_cases")
    await tb.reset()
    await tb.run(directed(tb.cfg, "edge", dut._log))
    tb.finish()


@cocotb.test()
async def back_to_back(dut: Any) -> None:
    """A seeded sweep issued with no idle cycle: each start is sampled as soon as busy_o falls."""
    tb = IntensityTB(dut, "back_to_back")
    await tb.reset()
    operations, _ = sweep(tb.cfg, "back_to_back", dut._log)
    await tb.run(operations)
    tb.finish()


@cocotb.test()
async def random_sweep(dut: Any) -> None:
    """A seeded sweep with random idle gaps and start_i raised with other operands while busy."""
    tb = IntensityTB(dut, "random_sweep")
    await tb.reset()
    operations, rng = sweep(tb.cfg, "random_sweep", dut._log)
    await tb.run(operations, rng=rng, noise=True)
    tb.finish()


@cocotb.test()
async def reset_mid_operation(dut: Any) -> None:
    """An asynchronous reset during a division returns to idle with no done_o; the next one works."""
    tb = IntensityTB(dut, "reset_mid_operation")
    await tb.reset()
    await FallingEdge(dut.clk_i)
    tb.set_start(1)
    dut.ops_i.value = 13
    dut.bytes_i.value = 16
    await FallingEdge(dut.clk_i)
    tb.set_start(0)
    # Half a cycle after start_i was sampled: mid-operation for any design whose latency exceeds
    # one cycle, however fast (the coverage bin records that busy_o was high).
    await Timer(CLOCK_NS // 4, "ns")  # between edges: the reset is asynchronous
    if read_bool(dut.busy_o):
        functional.hit("reset mid-operation")
    dut.rst_ni.value = 0
    await Timer(1, "ns")
    tb.expect_idle("during reset, asserted mid-operation")
    await FallingEdge(dut.clk_i)
    dut.rst_ni.value = 1
    for _ in range(tb.max_latency + 2):
        await FallingEdge(dut.clk_i)
        if read_bool(dut.done_o):
            tb.sb.fail("reset", "done_o pulsed for an operation that a reset cancelled", event=True)
            break
    await tb.run([Operation("after_reset", "stencil after reset", 13, 16)])
    tb.finish()


@cocotb.test()
async def functional_coverage(dut: Any) -> None:
    """Runs last: every regime of the contract was reached by the tests above (see roofline_tb.functional)."""
    cfg = BenchConfig.from_env()
    functional.close(cfg.top, cfg.params.levels, cfg.only is not None, dut._log)
