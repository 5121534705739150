"""The bench of roofline_intensity, the sequential divider.

A driver issues operations whenever busy_o is low (back to back, or after random gaps) and,
in noisy tests, raises start_i with other operands while busy_o is high, which the contract
says must be ignored (drawn from a stream of their own, a division's worth at a time, so that
a remote design is driven through a busy division in one exchange: Ports.hold). A monitor takes
each done_o pulse in order and checks it against the golden model, the documents and the latency
bound; a missing done_o times out.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass
from fractions import Fraction

from roofline_bench.coverage import Coverage
from roofline_bench.ports import Unresolved
from roofline_bench.rates import check_widths
from roofline_bench.run import Run, Stopped, tests
from roofline_bench.stimulus import count_vectors
from roofline_core.edges import count_edges
from roofline_core.scoreboard import Field, selected
from roofline_golden import QFormat, cases, exact, fixed, format_fraction

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
    def __init__(self, run: Run) -> None:
        self.run, self.ports, self.sb, self.cfg = run, run.ports, run.sb, run.cfg
        params = self.cfg.params
        # The contract's latency bound (spec section 3), whatever the implementation.
        self.max_latency = params.count_bits + params.fmt.frac_bits + 4
        self.latencies: list[int] = []
        self.start_value = -1  # unknown until the first write
        self.ports.start_clock(CLOCK_NS)

    async def reset(self) -> None:
        self.set_start(0)
        self.ports.write("ops_i", 0)
        self.ports.write("bytes_i", 0)
        self.ports.write("rst_ni", 0)
        await self.ports.rising_edges(2)
        await self.ports.falling_edge()
        self.ports.write("rst_ni", 1)
        self.expect_idle("after reset")

    def expect_idle(self, when: str) -> None:
        unknown = []
        for name in ("busy_o", "done_o"):
            try:
                high = self.ports.read_bool(name)
            except Unresolved as problem:  # X or Z is not low: the reset left the register without a value
                self.sb.fail(when.replace(" ", "_"), f"{problem} {when}; it must be low", kind="reset", event=True)
                unknown.append(str(problem))
                continue
            if high:
                self.sb.fail(when.replace(" ", "_"), f"{name} is high {when}; it must be low", kind="reset", event=True)
        if unknown:
            raise Stopped(f"{'; '.join(unknown)} {when}")

    async def run_ops(self, operations: list[Operation], rng: random.Random | None = None, noise: bool = False) -> None:
        """Issue every operation, check every result in order; rng adds idle gaps, noise adds starts while busy."""
        pending = deque(op for op in operations if selected(self.cfg, op.vector_id))
        self.sb.plan(len(pending))
        in_flight: deque[InFlight] = deque()
        noise_rng = random.Random(f"{self.cfg.seed}:{self.sb.test}:noise") if noise and rng else None
        edge = 0
        gap = 0
        busy_since = 0  # the last edge busy_o was low
        sampled: dict[str, int] | None = None  # done_o and busy_o, when a hold read them at its last edge
        while pending or in_flight:
            if sampled is None:
                await self.ports.falling_edge()
                done = self.ports.read_bool("done_o")
            else:
                done = bool(sampled["done_o"])
            edge += 1
            if done:
                if not in_flight:
                    self.stray_done(edge)
                else:
                    self.check_result(in_flight.popleft(), edge)
            busy = self.ports.read_bool("busy_o") if sampled is None else bool(sampled["busy_o"])
            sampled = None
            busy_since = busy_since if busy else edge
            if not in_flight and edge - busy_since > self.max_latency:
                self.sb.fail(f"cycle_{edge}", f"TIMEOUT {self.cfg.top}: busy_o high for {edge - busy_since} cycles "
                                   "with no operation started", kind="timeout", event=True)
                return
            if in_flight and edge - in_flight[0].accepted_at > self.max_latency:
                op = in_flight[0].operation
                self.sb.fail(
                    op.vector_id,
                    f"TIMEOUT {self.cfg.top}: no done_o within {self.max_latency} cycles of start for "
                    f"ops = {op.ops:#x}, bytes = {op.bytes:#x} ({op.label})", kind="timeout", label=op.label,
                )
                return
            issued = self.drive(pending, in_flight, edge, noise_rng, gap, busy, done)
            gap = rng.choice((0, 0, 1, 3)) if rng and issued else max(0, gap - 1)
            if in_flight and noise_rng is not None and busy and not done and not issued:
                held, sampled = await self.hold_while_busy(noise_rng, in_flight[0].accepted_at + self.max_latency - edge)
                edge += held
                gap = max(0, gap - held)
            elif in_flight and not noise and not issued and edge > in_flight[0].accepted_at:
                edge = await self.skip_to_done(edge, in_flight[0].accepted_at)
            elif pending and not in_flight and busy and not issued:  # (the loop goes on only for pending)
                held, sampled = await self.hold_while_busy_alone(noise_rng, edge, busy_since + self.max_latency - edge, done)
                edge += held
                gap = max(0, gap - held)
        await self.ports.falling_edge()
        if self.ports.read_bool("done_o"):
            self.sb.fail("after_the_last_operation", "done_o pulsed after every operation had completed", kind="pulse",
                         event=True)

    async def hold_while_busy(self, noise_rng: random.Random, edges: int) -> tuple[int, dict[str, int] | None]:
        """While busy_o stays high and done_o low (at most `edges` edges, until the latency bound), raise
        start_i with other operands at random, as drive does edge by edge, in one hold of the ports.
        Returns the edges that held and, when one did not, done_o and busy_o as read there."""
        if edges <= 0:
            return 0, None
        starts, writes = [self.start_value], []
        for _ in range(edges):
            entry, start = self.noise(noise_rng, starts[-1])
            writes.append(entry)
            starts.append(start)
        held, sampled = await self.ports.hold({"done_o": 0, "busy_o": 1}, writes)
        self.start_value = starts[held]
        return held, sampled

    def stray_done(self, edge: int) -> None:
        self.sb.fail(f"cycle_{edge}", f"done_o pulsed in cycle {edge} with no operation in flight", kind="pulse", event=True)

    async def hold_while_busy_alone(self, noise_rng: random.Random | None, edge: int, edges: int, done: bool
                                    ) -> tuple[int, dict[str, int] | None]:
        """With no operation in flight while busy_o stays high and done_o as it is (a design still dividing
        after a result the bench took: a done_o that stays high, or comes twice), the next edges (at most
        `edges`, until the busy timeout fires) in one hold of the ports: each held edge driven as drive
        drives a busy edge and, with done_o high, failed as a stray pulse as the cycle loop fails it. Edge by
        edge, a lab-3 design holding done_o took each of its 71,385 stray cycles through a grader's channel
        one exchange at a time."""
        if edges <= 0:
            return 0, None
        starts, writes = [self.start_value], []
        for _ in range(edges):
            entry, start = self.idle_edge(noise_rng, starts[-1])
            writes.append(entry)
            starts.append(start)
        try:
            held, sampled = await self.ports.hold({"done_o": int(done), "busy_o": 1}, writes)
        except Unresolved as problem:
            # The X/Z fails the test as a read of it does, and the stray pulses before it stand; so does the
            # X/Z edge's own when done_o read 1 there (the cycle loop fails it before it reads busy_o).
            if done:
                self.stray_done_edges(edge, problem.held + (problem.port == "busy_o"))
            raise
        self.start_value = starts[held]
        if done:
            self.stray_done_edges(edge, held)
        return held, sampled

    def stray_done_edges(self, edge: int, count: int) -> None:
        for stray in range(edge + 1, edge + count + 1):
            self.stray_done(stray)

    def idle_edge(self, noise_rng: random.Random | None, start: int) -> tuple[list[tuple[str, int]], int]:
        """The writes of an edge that starts nothing, and start_i after them: noise while busy when the test
        makes noise (noise_rng), else start_i low (written only when it changes)."""
        if noise_rng is not None:
            return self.noise(noise_rng, start)
        return ([("start_i", 0)] if start != 0 else []), 0

    def noise(self, noise_rng: random.Random, start: int) -> tuple[list[tuple[str, int]], int]:
        """One busy edge's writes, and start_i after them: half the time start_i with other operands
        (the contract says they are ignored while busy), else start_i low; start_i written only when
        it changes, as set_start writes it."""
        if noise_rng.random() < 0.5:
            count_bits = self.cfg.params.count_bits
            entry = [("start_i", 1)] if start != 1 else []
            return [*entry, ("ops_i", noise_rng.getrandbits(count_bits)), ("bytes_i", noise_rng.getrandbits(count_bits))], 1
        return ([("start_i", 0)] if start != 0 else []), 0

    async def skip_to_done(self, edge: int, accepted_at: int) -> int:
        """With a division running and start_i low, wait for done_o to rise (or for the latency
        bound to pass) instead of sampling every cycle. Returns the edge count just before the
        falling edge that samples it, so the cycle loop picks up exactly where it would have."""
        bound = accepted_at + self.max_latency + 1 - edge  # the loop's timeout fires at this edge
        return edge + await self.ports.periods_until_rise("done_o", bound, CLOCK_NS)

    def drive(self, pending: deque[Operation], in_flight: deque[InFlight], edge: int,
              noise_rng: random.Random | None, gap: int, busy: bool, done: bool) -> bool:
        """Set start_i for the coming rising edge, which samples it only while busy_o is low
        (busy and done: as sampled at this edge); with noise_rng, start_i with other operands while busy."""
        if not busy and pending and gap == 0:
            if done:
                self.run.coverage.hit("start in the done_o cycle")
            op = pending.popleft()
            self.set_start(1)
            self.ports.write("ops_i", op.ops)
            self.ports.write("bytes_i", op.bytes)
            in_flight.append(InFlight(op, edge))
            return True
        entry, self.start_value = self.idle_edge(noise_rng if busy else None, self.start_value)
        for name, value in entry:
            self.ports.write(name, value)
        return False

    def set_start(self, value: int) -> None:
        """start_i, written only when it changes (a write per cycle is most of an idle cycle's cost)."""
        if value != self.start_value:
            self.ports.write("start_i", value)
            self.start_value = value

    def check_result(self, flight: InFlight, done_edge: int) -> None:
        op, cfg = flight.operation, self.cfg
        fmt, count_bits = cfg.params.fmt, cfg.params.count_bits
        inputs = [f"ops_i = {op.ops:#x} ({op.ops} FLOP)", f"bytes_i = {op.bytes:#x} ({op.bytes} B)"]
        try:
            ai, sat, div0 = self.ports.read("ai_o"), self.ports.read_bool("sat_o"), self.ports.read_bool("div0_o")
        except Unresolved as problem:
            self.sb.fail(op.vector_id, f"X/Z {cfg.top} [{self.sb.test} {op.vector_id}: {op.label}] with done_o high: "
                         f"{problem}\n  inputs  : " + ", ".join(inputs), kind="unresolved", label=op.label)
            return
        latency = done_edge - flight.accepted_at  # from the cycle start_i is sampled in to the done_o cycle
        self.latencies.append(latency)
        want = fixed.intensity(fmt, count_bits, op.ops, op.bytes)
        self.run.coverage.sample_division(fmt, count_bits, op.ops, op.bytes, want.sat)
        fields = [
            Field("ai_o", want.ai, ai, "FLOP/B"),
            Field("sat_o", int(want.sat), int(sat)),
            Field("div0_o", int(want.div0), int(div0)),
        ]
        doc = op.document
        if doc is not None:
            if doc.expect_sat is not None:
                fields.append(Field("sat_o (the documents' verdict)", int(doc.expect_sat), int(sat)))
            if doc.expect_div0 is not None:
                fields.append(Field("div0_o (the documents' verdict)", int(doc.expect_div0), int(div0)))
        real = exact.intensity(op.ops, op.bytes)
        context = [
            f"exact  : ops / bytes = {'unbounded (bytes = 0)' if real is None else format_fraction(real)} FLOP/B",
            f"done_o came {latency} cycles after start_i (the contract allows at most {self.max_latency})",
        ]
        self.sb.check(op.vector_id, op.label, inputs, fields, context,
                      lambda: division_regimes(fmt, count_bits, op.ops, op.bytes, want.sat))
        if latency > self.max_latency:
            self.sb.fail(op.vector_id, f"LATENCY {latency} cycles exceeds the contract's {self.max_latency}",
                         kind="latency", label=op.label)
        if doc is not None and doc.expect_ai is not None and not sat:
            allowed = max(doc.expect_ai_within, fmt.lsb / 2)
            if abs(Fraction(ai, fmt.one) - doc.expect_ai) > allowed:
                self.sb.fail(op.vector_id, f"ai_o = {fmt.describe(ai, 'FLOP/B')} is not the documents' "
                             f"{format_fraction(doc.expect_ai)} within {format_fraction(allowed)} ({op.label})",
                             kind="document", label=op.label)
        if real is not None and not want.sat and abs(Fraction(ai, fmt.one) - real) > fmt.lsb / 2:
            self.sb.fail(op.vector_id, f"ERROR BOUND: ai_o = {fmt.describe(ai, 'FLOP/B')} is more than "
                         f"2^-{fmt.frac_bits + 1} from the exact {format_fraction(real)}", kind="error bound", label=op.label)

    def finish(self) -> None:
        if self.latencies:
            self.run.log.info("latency: min %d, max %d cycles", min(self.latencies), max(self.latencies))


def division_regimes(fmt: QFormat, count_bits: int, ops: int, moved: int, saturated: bool) -> tuple[str, ...]:
    """What a division was, in the coverage bins' words: by zero, saturated, a rounding tie ..."""
    seen = Coverage()
    seen.sample_division(fmt, count_bits, ops, moved, saturated)
    return tuple(sorted(seen.hits))


def directed(run: Run, group: str) -> list[Operation]:
    operations = []
    for case in cases.load_cases():
        if case.group != group:
            continue
        try:
            resolved = cases.counts(case, run.params)
        except cases.NotRepresentable as why:
            run.log.info("skipped %s: %s", case.id, why)
            continue
        for item in resolved:
            operations.append(Operation(case.id, case.title, item.ops, item.bytes, item))
    return operations


def sweep(run: Run) -> tuple[list[Operation], random.Random]:
    rng = random.Random(f"{run.cfg.seed}:{run.test}")
    vectors = count_vectors(rng, run.params.fmt, run.params.count_bits, run.cfg.sweep)
    run.log.info("%s: seed %d, %d operations over kinds %s", run.test, run.cfg.seed, len(vectors),
                 sorted({v.kind for v in vectors}))
    return [Operation(i, v.kind, v.ops, v.bytes) for i, v in enumerate(vectors)], rng


async def port_widths_and_reset(run: Run) -> None:
    """Port widths follow the parameters; busy_o and done_o are low out of reset."""
    params = run.params
    check_widths(run, {"ops_i": params.count_bits, "bytes_i": params.count_bits, "ai_o": params.fmt.width,
                       "busy_o": 1, "done_o": 1, "sat_o": 1, "div0_o": 1})
    tb = IntensityTB(run)
    await tb.reset()
    run.sb.checked += 1


async def document_cases(run: Run) -> None:
    """The documents' kernels by their counts: dot product, stencils, tiled GEMM."""
    tb = IntensityTB(run)
    await tb.reset()
    await tb.run_ops(directed(run, "document"))
    tb.finish()


async def edge_cases(run: Run) -> None:
    """bytes = 0, saturation at and just below 2^W, rounding ties, all ones."""
    tb = IntensityTB(run)
    await tb.reset()
    await tb.run_ops(directed(run, "edge"))
    tb.finish()


async def back_to_back(run: Run) -> None:
    """A seeded sweep issued with no idle cycle: each start is sampled as soon as busy_o falls."""
    tb = IntensityTB(run)
    await tb.reset()
    operations, _ = sweep(run)
    await tb.run_ops(operations)
    tb.finish()


async def random_sweep(run: Run) -> None:
    """A seeded sweep with random idle gaps and start_i raised with other operands while busy."""
    tb = IntensityTB(run)
    await tb.reset()
    operations, rng = sweep(run)
    await tb.run_ops(operations, rng=rng, noise=True)
    tb.finish()


async def reset_mid_operation(run: Run) -> None:
    """An asynchronous reset during a division returns to idle with no done_o; the next one works."""
    tb = IntensityTB(run)
    ports = run.ports
    await tb.reset()
    await ports.falling_edge()
    tb.set_start(1)
    ports.write("ops_i", 13)
    ports.write("bytes_i", 16)
    await ports.falling_edge()
    tb.set_start(0)
    # Half a cycle after start_i was sampled: mid-operation for any design whose latency exceeds
    # one cycle, however fast (the coverage bin records that busy_o was high).
    await ports.wait_ns(CLOCK_NS // 4)  # between edges: the reset is asynchronous
    if ports.read_bool("busy_o"):
        run.coverage.hit("reset mid-operation")
    ports.write("rst_ni", 0)
    await ports.wait_ns(1)
    tb.expect_idle("during reset, asserted mid-operation")
    await ports.falling_edge()
    ports.write("rst_ni", 1)
    for _ in range(tb.max_latency + 2):
        await ports.falling_edge()
        if ports.read_bool("done_o"):
            run.sb.fail("after_the_reset", "done_o pulsed for an operation that a reset cancelled", kind="reset", event=True)
            break
    await tb.run_ops([Operation("after_reset", "stencil after reset", 13, 16)])
    tb.finish()


def edge_operations(run: Run) -> list[Operation]:
    edges = count_edges(run.params.fmt, run.params.count_bits)
    run.log.info("%s: %d directed divisions (the same at every seed)", run.test, len(edges))
    return [Operation(index, edge.kind, edge.ops, edge.bytes) for index, edge in enumerate(edges)]


async def boundaries(run: Run) -> None:
    """ops and bytes at every power-of-two and all-ones boundary (bytes = 0 with every kind of ops),
    quotients at every bit of the result with rounding ties, the saturation threshold and a step either
    side (roofline_core.edges), back to back: the same at every seed."""
    tb = IntensityTB(run)
    await tb.reset()
    await tb.run_ops(edge_operations(run))
    tb.finish()


async def reset_in_every_state(run: Run) -> None:
    """rst_ni asserted between clock edges in every cycle of a division, from the cycle start_i is
    sampled in to past the contract's latency bound (the done_o cycle included): busy_o and done_o fall
    at once and are low, never X, after the reset; no done_o comes for the cancelled division; the
    division started next is right. The same at every seed."""
    tb = IntensityTB(run)
    ports, top_count = run.ports, (1 << run.params.count_bits) - 1
    await tb.reset()
    after = edge_operations(run)
    for cycle in range(tb.max_latency + 1):
        if not selected(run.cfg, f"reset_in_cycle_{cycle}"):
            continue
        await ports.falling_edge()
        tb.set_start(1)
        ports.write("ops_i", top_count - cycle)  # a whole division (bytes > 0), different each time
        ports.write("bytes_i", 3 + cycle)
        await ports.falling_edge()  # start_i was sampled at the rising edge just gone: cycle 0
        tb.set_start(0)
        if cycle:
            await ports.rising_edges(cycle)
            await ports.falling_edge()
        await ports.wait_ns(CLOCK_NS // 4)  # between edges: the reset is asynchronous
        if ports.read_bool("busy_o"):
            run.coverage.hit("reset mid-operation")
        ports.write("rst_ni", 0)
        await ports.wait_ns(1)
        tb.expect_idle(f"during a reset asserted {cycle} cycles after start_i was sampled")
        await ports.falling_edge()
        ports.write("rst_ni", 1)
        tb.expect_idle(f"after a reset asserted {cycle} cycles after start_i was sampled")
        op = after[cycle % len(after)]
        await tb.run_ops([Operation(f"reset_in_cycle_{cycle}", f"after a reset in cycle {cycle}: {op.label}", op.ops,
                                    op.bytes)])
    tb.finish()


TESTS = tests(port_widths_and_reset, document_cases, edge_cases, boundaries, back_to_back, random_sweep,
              reset_mid_operation, reset_in_every_state)
