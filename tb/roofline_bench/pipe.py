"""The bench of roofline_hierarchy_pipe, the valid/ready pipeline around the hierarchy.

Four small parts, in the shape of cocotb's matrix_multiplier example and cocotbext-axi's
stream benches, wired by the cycle loop in `Stream.run`:
- a `Source` offers the vectors in order on the input side; once it raises in_valid_i it holds
  it, and the payload, until the pipe takes them (as AXI asks); an idle pattern decides the
  cycles between vectors;
- a `Sink` decides out_ready_i each cycle from its pattern: always, at random, in bursts, or,
  as an AXI sink may, only once it sees out_valid_o (it waits for valid before raising ready);
- a `Monitor` reads both handshakes a moment after the falling edge, so the loop knows which
  transfers the next rising edge makes, and the outputs;
- the checker (`Stream.on_result`) judges every result taken, in order, against the golden
  model, and holds the protocol: a result not taken stays put, valid does not fall without a
  transfer, nothing comes out of nowhere, nothing is lost (every input comes out).
The idle x back-pressure matrix is one test body multiplied over both patterns.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count
from typing import TYPE_CHECKING

from roofline_bench.ports import Ports, Unresolved
from roofline_bench.rates import bench_rng, check_widths, directed, drive_rates, edge_vectors, rate_batch, read_hierarchy_outputs
from roofline_bench.run import Run, Stopped, matrix, tests
from roofline_bench.stimulus import RateVector, rate_vectors
from roofline_core.scoreboard import selected
from roofline_golden import fixed

if TYPE_CHECKING:
    from roofline_bench.batch import RateBatch

CLOCK_NS = 10
SETTLE_NS = 1  # after the falling edge, before the rising edge: handshakes have settled
MATRIX_VECTORS = 200  # each point of the idle x back-pressure matrix
SWAPS_CHECKED = 200  # wrong results looked at for another input's result, per stream

Pattern = Callable[[], bool]  # called once a cycle: True means "this cycle, yes"


def pattern(kind: str, rng: random.Random, probability: float = 0.5) -> Pattern:
    """A pause or readiness pattern: never, always, at random, or in bursts of 3 in 8."""
    if kind == "never":
        return lambda: False
    if kind == "always":
        return lambda: True
    if kind == "random":
        return lambda: rng.random() < probability
    if kind == "bursts":
        phase = count()
        return lambda: next(phase) % 8 < 3
    raise ValueError(f"unknown pattern {kind!r}")


@dataclass(frozen=True)
class Item:
    vector_id: str | int
    label: str
    vector: RateVector


class Source:
    """Offers items in order; holds valid and the payload until the pipe accepts them."""

    def __init__(self, ports: Ports, width: int, items: list[Item], idle: Pattern) -> None:
        self.ports, self.width, self.idle = ports, width, idle
        self.pending = deque(items)
        self.offering = False

    def drive(self) -> None:
        if not self.offering and self.pending and not self.idle():
            self.offering = True
            drive_rates(self.ports, self.width, self.pending[0].vector)
        self.ports.write("in_valid_i", int(self.offering))

    def accept(self) -> Item:
        self.offering = False
        return self.pending.popleft()


class Sink:
    """Decides out_ready_i each cycle; "waits_for_valid" raises it only once out_valid_o is high."""

    def __init__(self, ports: Ports, mode: str, rng: random.Random, probability: float = 0.6) -> None:
        self.ports, self.mode = ports, mode
        self.ready_now = pattern("always" if mode == "waits_for_valid" else mode, rng, probability)
        self.ready = False

    def drive(self) -> None:
        """At the falling edge, before the monitor's moment: out_valid_o is a register's output here."""
        self.ready = self.ready_now() and (self.mode != "waits_for_valid" or self.ports.read_bool("out_valid_o"))
        self.ports.write("out_ready_i", int(self.ready))


@dataclass(frozen=True)
class Sample:
    in_ready: bool
    out_valid: bool
    outputs: tuple[int, ...] | None  # read when out_valid_o is high


class Monitor:
    def __init__(self, ports: Ports) -> None:
        self.ports = ports

    def sample(self) -> Sample:
        in_ready, out_valid = self.ports.read_bool("in_ready_o"), self.ports.read_bool("out_valid_o")
        return Sample(in_ready, out_valid, read_hierarchy_outputs(self.ports) if out_valid else None)


class Stream:
    """The cycle loop: drive, sample, check; one instance per test (its cycle count runs on)."""

    def __init__(self, run: Run) -> None:
        self.run, self.ports, self.sb, self.cfg = run, run.ports, run.sb, run.cfg
        self.width = self.cfg.params.fmt.width
        self.latency = 3 + self.cfg.param_set.mul_stages  # the module's documented latency
        self.expected: deque[Item] = deque()
        self.accepted: deque[int] = deque()  # the cycle each result in flight was accepted in, as `expected`
        self.measured: int | None = None  # the last result's latency, in cycles from its input's acceptance
        self.first_measured: int | None = None  # the first result's: what the pipe's latency is, before any mix-up
        self.exact_latency = False  # every result must come `latency` cycles after its input (a sink always ready)
        self.cycle = 0
        self.out_fires: list[int] = []
        self.last_in_fire = -2
        self.batch: RateBatch = rate_batch(run, hierarchy=True)
        self.taken: list[tuple[Item, tuple[int, ...]]] = []  # every result taken, in order, with its input
        self.monitor = Monitor(self.ports)
        self.ports.start_clock(CLOCK_NS)

    async def reset(self, cycles: int = 2, *, showing: bool = False) -> None:
        """Reset for `cycles` rising edges. showing: a reset between clock edges during traffic, so
        the contract's asynchronous reset must lower out_valid_o before the next clock edge."""
        for name in ("in_valid_i", "out_ready_i", "peak_i", "bw_i", "ai_i", "rst_ni"):
            self.ports.write(name, 0)
        if showing:
            await self.ports.wait_ns(SETTLE_NS)
            self.expect_empty("during_the_reset", "after rst_ni fell between clock edges; the contract's reset is "
                              "asynchronous (it acts at once, not at the next rising edge)")
        await self.ports.rising_edges(cycles)
        await self.ports.falling_edge()
        self.ports.write("rst_ni", 1)
        self.expected.clear()  # a reset drops whatever was in flight
        self.accepted.clear()
        self.expect_empty("after_the_reset", "right after reset; the pipeline must be empty")

    def expect_empty(self, event: str, when: str) -> None:
        """out_valid_o low: high, or X/Z (a valid bit the reset gave no value), breaks the reset."""
        try:
            high = self.ports.read_bool("out_valid_o")
        except Unresolved as problem:
            self.sb.fail(event, f"{problem} {when}", kind="reset", event=True)
            raise Stopped(f"{problem} {when}") from None
        if high:
            self.sb.fail(event, f"out_valid_o is high {when}", kind="reset", event=True)

    async def run_items(self, items: list[Item], idle: str = "never", sink: str = "always", *,
                        rng: random.Random | None = None, p_idle: float = 0.3, p_ready: float = 0.6,
                        reset_after: int | None = None, reset_in_cycle: int | None = None) -> None:
        """Stream `items` through the pipe with the source's idle pattern and the sink's readiness.
        reset_after: a reset once that many inputs went in and a result is on show; reset_in_cycle: a
        reset in that cycle of the stream (counted from 0), whatever the pipeline holds."""
        rng = rng or random.Random(0)
        chosen = [item for item in items if selected(self.cfg, item.vector_id)]
        self.sb.plan(len(chosen))
        source = Source(self.ports, self.width, chosen, pattern(idle, rng, p_idle))
        receiver = Sink(self.ports, sink, rng, p_ready)
        held: Sample | None = None  # a result the sink did not take
        idle_limit = self.latency + 64
        quiet = 0
        sent = 0
        first_cycle = self.cycle + 1
        while source.pending or self.expected:
            await self.ports.falling_edge()
            self.cycle += 1
            source.drive()
            receiver.drive()
            await self.ports.wait_ns(SETTLE_NS)
            try:
                now = self.monitor.sample()
            except Unresolved as problem:
                self.sb.fail(f"cycle_{self.cycle}", f"X/Z {self.cfg.top} in cycle {self.cycle}: {problem}", kind="unresolved",
                             event=True)
                raise Stopped(f"{problem} in cycle {self.cycle}") from None
            in_fire = source.offering and now.in_ready
            self.cover(source, receiver, now, in_fire)
            held = self.check_held(held, now)
            took = False  # a result in flight left: progress (a phantom one is not)
            if now.out_valid and receiver.ready:
                took = self.on_result(now)
                held = None
            elif now.out_valid:
                held = held or now
            if in_fire:
                self.expected.append(source.accept())
                self.accepted.append(self.cycle)
                sent += 1
            quiet = 0 if (in_fire or took) else quiet + 1
            if quiet > idle_limit:
                self.timeout(source, receiver, quiet)
                break
            on_show = reset_after is not None and sent >= reset_after and now.out_valid
            if on_show or (reset_in_cycle is not None and self.cycle - first_cycle == reset_in_cycle):
                reset_after = reset_in_cycle = None
                if self.expected:
                    self.run.coverage.hit("reset with results in flight")
                await self.reset(cycles=1, showing=True)
                source.offering, held = False, None
        self.ports.write("in_valid_i", 0)
        self.batch.flush()  # every result taken is judged before the test ends
        self.name_swapped_results(stalled=idle != "never" or sink != "always" or reset_after is not None
                                  or reset_in_cycle is not None)

    def timeout(self, source: Source, receiver: Sink, quiet: int) -> None:
        if self.expected:
            waiting = f"{len(self.expected)} result(s) in flight never came out"
            first = self.expected[0]
        else:
            waiting = f"in_ready_o stayed low with {len(source.pending)} input(s) waiting"
            first = source.pending[0]
        sink = " (the sink raises out_ready_i only once it sees out_valid_o, as an AXI sink may)" \
            if receiver.mode == "waits_for_valid" else ""
        self.sb.fail(first.vector_id, f"TIMEOUT {self.cfg.top}: no transfer for {quiet} cycles: {waiting}{sink}",
                     kind="timeout", label=first.label)

    def cover(self, source: Source, receiver: Sink, now: Sample, in_fire: bool) -> None:
        hit = self.run.coverage.hit
        if source.offering and not in_fire:
            hit("input stall (in_valid_i, not in_ready_o)")
        if now.out_valid and not receiver.ready:
            hit("output stall (out_valid_o, not out_ready_i)")
        if source.pending and not source.offering:
            hit("input gap (no in_valid_i)")
        if in_fire and self.last_in_fire == self.cycle - 1:
            hit("back-to-back transfers")
        if in_fire:
            self.last_in_fire = self.cycle

    def check_held(self, held: Sample | None, now: Sample) -> Sample | None:
        """A result the sink did not take stays, valid and unchanged, until it is taken."""
        if held is None:
            return None
        item = self.expected[0] if self.expected else None
        where = item.vector_id if item else f"cycle_{self.cycle}"
        if not now.out_valid:
            self.sb.fail(where, f"BACK-PRESSURE {self.cfg.top}: out_valid_o fell in cycle {self.cycle} while its result "
                                "had not been taken (out_ready_i was low): a result was dropped", kind="handshake",
                         event=item is None)
            return None
        if now.outputs != held.outputs:
            self.sb.fail(where, f"BACK-PRESSURE {self.cfg.top}: the outputs changed while out_ready_i was low "
                                f"(by cycle {self.cycle}): {held.outputs} -> {now.outputs}", kind="handshake",
                         event=item is None)
        return held

    def on_result(self, now: Sample) -> bool:
        """Judge the result the sink takes; False when nothing was in flight (no progress)."""
        self.out_fires.append(self.cycle)
        if not self.expected:
            last = (f"the first result came {self.first_measured} cycles after its input was accepted; the module "
                    f"documents {self.latency}" if self.first_measured is not None else "no input had been accepted yet")
            self.sb.fail(f"cycle_{self.cycle}", f"out_valid_o was high in cycle {self.cycle} with nothing in flight: a "
                         f"result out of nowhere, a duplicate or one with no input ({last})", kind="handshake", event=True)
            return False
        item = self.expected.popleft()
        accepted = self.accepted.popleft()
        self.measured = self.cycle - accepted
        self.first_measured = self.measured if self.first_measured is None else self.first_measured
        if self.exact_latency and self.measured != self.latency and not self.sb.kinds["latency"]:
            self.sb.fail(item.vector_id, f"LATENCY {self.cfg.top}: the result of {item.vector_id} ({item.label}) came "
                         f"{self.measured} cycles after its input was accepted (in cycle {accepted}); the module documents "
                         f"{self.latency} (3 + MUL_STAGES)", kind="latency", label=item.label, since=self.measured)
        assert now.outputs is not None
        self.batch.add(item.vector_id, item.label, item.vector, now.outputs)
        self.taken.append((item, now.outputs))
        return True

    def name_swapped_results(self, stalled: bool) -> None:
        """Wrong results that are, exactly, other inputs' nearby in a stream that stalled are no arithmetic
        bug: a stage was overwritten while stalled, or a result skipped or repeated. When most of the wrong
        results checked are such (two at least), their mismatches are marked handshake failures
        (roofline_core.scoreboard.reclassify): the feedback names the handshake, and a lab that scores
        the handshake as an event (lab.toml `events`) scores it so. A wrong result that is its own
        input's but for an LSB of a cap, or for the verdict alone (a rounding or ridge bug), is never one."""
        taken, self.taken = self.taken, []
        if not stalled:
            return
        window = self.latency + 2
        wrong = [n for n, (item, _) in enumerate(taken) if str(item.vector_id) in self.sb.failed][:SWAPS_CHECKED]
        swaps = [(n, m) for n in wrong if (m := self._whose_result(taken, n, window)) is not None]
        if len(swaps) < 2 or 2 * len(swaps) < len(wrong):
            return
        for n, m in swaps:
            item, other = taken[n][0], taken[m][0]
            self.sb.reclassify(item.vector_id, "handshake", (
                f"BACK-PRESSURE {self.cfg.top}: the result taken for input {item.vector_id} is exactly the result of "
                f"input {other.vector_id}, {abs(m - n)} {'later' if m > n else 'earlier'} in the stream ({len(swaps)} of "
                f"the {len(wrong)} wrong results are another input's): a stage was overwritten while the pipe stalled, "
                "or a result was skipped or repeated (each stage must hold its values until the next takes them)"))

    def _whose_result(self, taken: list[tuple[Item, tuple[int, ...]]], n: int, window: int) -> int | None:
        """The stream position of the other input whose expected outputs the n-th result is, or None."""
        outputs, own = taken[n][1], self.expected_outputs(taken[n][0])
        if _off_by_an_lsb_or_verdict(self.cfg.params.fmt.width, self.cfg.params.levels, outputs, own):
            return None
        for m in range(max(0, n - window), min(len(taken), n + window + 1)):
            if m != n and outputs == self.expected_outputs(taken[m][0]):
                return m
        return None

    def expected_outputs(self, item: Item) -> tuple[int, ...]:
        """The golden model's outputs for an input, packed as the design's ports carry them."""
        fmt, vector = self.cfg.params.fmt, item.vector
        want = fixed.hierarchy(fmt, vector.peak, vector.bws, vector.ais)
        packed = sum(cap << (level * fmt.width) for level, cap in enumerate(want.level_caps))
        return want.cap, int(want.mem_bound), want.binding, packed


def _off_by_an_lsb_or_verdict(width: int, levels: int, outputs: tuple[int, ...], own: tuple[int, ...]) -> bool:
    """Every cap (cap_o and each packed level cap) within an LSB of its own input's expected value."""
    mask = (1 << width) - 1
    caps = [(outputs[0], own[0])] + [((outputs[3] >> (level * width)) & mask, (own[3] >> (level * width)) & mask)
                                     for level in range(levels)]
    return all(abs(got - want) <= 1 for got, want in caps)


def sweep_items(run: Run, count: int | None = None) -> list[Item]:
    cfg = run.cfg
    vectors = rate_vectors(bench_rng(cfg, run.test), cfg.params.fmt, cfg.params.levels, cfg.sweep if count is None else count)
    run.log.info("%s: seed %d, %d vectors", run.test, cfg.seed, len(vectors))
    return [Item(index, vector.kind, vector) for index, vector in enumerate(vectors)]


async def port_widths(run: Run) -> None:
    """Every data port has the width the parameters give it."""
    width, levels = run.params.fmt.width, run.params.levels
    check_widths(run, {"peak_i": width, "bw_i": levels * width, "ai_i": levels * width, "cap_o": width,
                       "level_cap_o": levels * width, "mem_bound_o": 1, "binding_o": levels.bit_length(),
                       "in_valid_i": 1, "in_ready_o": 1, "out_valid_o": 1, "out_ready_i": 1})


async def document_and_edge_cases(run: Run) -> None:
    """The documents' cases and the spec's edge cases, streamed back to back."""
    stream = Stream(run)
    await stream.reset()
    items = [Item(r.case.id, r.case.title, RateVector(r.case.id, r.peak, r.bws, r.ais))
             for group in ("document", "edge") for r in directed(run, group)]
    await stream.run_items(items)


async def one_result_per_clock(run: Run) -> None:
    """With the sink always ready, N inputs give N results on N consecutive clocks, each the latency after its input."""
    stream = Stream(run)
    await stream.reset()
    items = sweep_items(run)
    stream.exact_latency = True  # the sink is always ready: each result comes exactly `latency` cycles after its input
    await stream.run_items(items)
    fires = stream.out_fires
    if len(fires) != len(items):
        run.sb.fail("throughput", f"{len(items)} inputs gave {len(fires)} results", kind="throughput", event=True)
    elif fires != list(range(fires[0], fires[0] + len(items))):
        gaps = sum(1 for a, b in zip(fires, fires[1:], strict=False) if b != a + 1)
        run.sb.fail("throughput", f"results were not on consecutive clocks: {gaps} gap(s) in {len(items)} results",
                    kind="throughput", event=True)
    run.log.info("%d results on %d consecutive clocks, latency %d", len(fires), len(fires), stream.latency)


async def random_stalls_both_sides(run: Run) -> None:
    """Random gaps at the input and random back-pressure at the output: nothing lost, duplicated or changed."""
    stream = Stream(run)
    await stream.reset()
    await stream.run_items(sweep_items(run), "random", "random", rng=bench_rng(run.cfg, f"{run.test}:handshake"))


async def heavy_back_pressure(run: Run) -> None:
    """A sink that is ready one cycle in five: the pipeline fills, stalls and drains in order."""
    stream = Stream(run)
    await stream.reset()
    await stream.run_items(sweep_items(run)[:200], "never", "random", rng=bench_rng(run.cfg, f"{run.test}:handshake"),
                           p_ready=0.2)


async def sink_waits_for_valid(run: Run) -> None:
    """An AXI sink that raises out_ready_i only after it sees out_valid_o still gets every result."""
    stream = Stream(run)
    await stream.reset()
    await stream.run_items(sweep_items(run)[:200], "random", "waits_for_valid", rng=bench_rng(run.cfg, f"{run.test}:handshake"))


async def reset_during_traffic(run: Run) -> None:
    """A reset with results in flight empties the pipeline; traffic after it is checked as usual."""
    stream = Stream(run)
    await stream.reset()
    rng = bench_rng(run.cfg, f"{run.test}:handshake")
    items = sweep_items(run)[:300]
    await stream.run_items(items[:150], "random", "random", rng=rng, p_idle=0.1, p_ready=0.7,
                           reset_after=rng.randint(20, 100))
    await stream.run_items(items[150:], "random", "random", rng=rng, p_idle=0.1, p_ready=0.7)


async def boundaries(run: Run) -> None:
    """The contract's boundaries (roofline_core.edges), streamed back to back: every input at every
    power-of-two and all-ones boundary, products on and off the ridge and the rounding tie at every bit
    position, the binding comparison at every bit. The same at every seed."""
    stream = Stream(run)
    await stream.reset()
    items = [Item(index, vector.kind, vector) for index, vector in enumerate(edge_vectors(run, run.params.levels))]
    await stream.run_items(items)


async def reset_in_every_state(run: Run) -> None:
    """rst_ni asserted between clock edges in each cycle of a stream's way through the pipeline (every
    stage filling, a result on show, one held by back-pressure): out_valid_o falls at once and stays low
    after the reset, and the transfers after it are all right. The same at every seed."""
    stream = Stream(run)
    await stream.reset()
    vectors = edge_vectors(run, run.params.levels)
    for cycle in range(stream.latency + 3):
        items = [Item(f"reset_in_cycle_{cycle}.{n}", vector.kind, vector)
                 for n, vector in enumerate(vectors[cycle * 16:(cycle + 1) * 16])]
        await stream.run_items(items, "never", "always" if cycle % 2 == 0 else "bursts", reset_in_cycle=cycle)


async def stalls(run: Run, idle: str, sink: str) -> None:
    """Every idle pattern at the input against every readiness pattern at the output."""
    stream = Stream(run)
    await stream.reset()
    await stream.run_items(sweep_items(run, MATRIX_VECTORS), idle, sink, rng=bench_rng(run.cfg, f"{run.test}:handshake"))


TESTS = {
    **tests(port_widths, document_and_edge_cases, one_result_per_clock, random_stalls_both_sides, heavy_back_pressure,
            sink_waits_for_valid, reset_during_traffic, boundaries, reset_in_every_state),
    **matrix("stalls", stalls, idle=("never", "random", "bursts"), sink=("always", "random", "bursts", "waits_for_valid")),
}
