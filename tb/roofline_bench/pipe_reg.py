"""The unit bench of roofline_pipe_reg, the valid/ready register the project's streams are built of.

The register is no module of the contract, so its reference is its own documented behaviour, a
cycle model (`RegisterModel`): ready_o is high whenever the register is empty or the sink is
ready; a beat offered while ready_o is high is taken and shows on valid_o and data_o from the next
cycle; a beat the sink does not take stays, unchanged. The parts, as in cocotbext-axi's stream
benches, are wired by the cycle loop in `stream`:
- a `Source` offers random beats in order, holding valid_i and data_i until they are taken, with
  an idle pattern between beats;
- a `Sink` drives ready_i from its readiness pattern;
- the `Checker` compares ready_o, valid_o and data_o with the model every cycle, and at the end
  that every beat came out once, in order.
The idle x back-pressure matrix is one test body multiplied over both patterns; a reset during
traffic empties the register at once (the reset is asynchronous).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import product

from roofline_bench.pipe import CLOCK_NS, SETTLE_NS, Pattern, pattern
from roofline_bench.ports import Ports

BEATS = 300  # each test's beats


class Mismatch(AssertionError):
    """The register did not do what the model says, in a named cycle."""


@dataclass
class RegisterModel:
    """The one-entry register the module documents."""

    valid: bool = False
    data: int = 0

    def ready(self, sink_ready: bool) -> bool:
        return not self.valid or sink_ready

    def clock(self, valid_in: bool, data_in: int, sink_ready: bool) -> None:
        if self.ready(sink_ready):
            if valid_in:
                self.data = data_in
            self.valid = valid_in


class Source:
    """Offers beats in order; holds valid_i and data_i until the register takes them."""

    def __init__(self, ports: Ports, beats: list[int], idle: Pattern) -> None:
        self.ports, self.idle = ports, idle
        self.pending = deque(beats)
        self.offering = False

    def drive(self) -> None:
        if not self.offering and self.pending and not self.idle():
            self.offering = True
            self.ports.write("data_i", self.pending[0])
        self.ports.write("valid_i", int(self.offering))

    def taken(self) -> int:
        self.offering = False
        return self.pending.popleft()


class Sink:
    def __init__(self, ports: Ports, ready: Pattern) -> None:
        self.ports, self.ready_now = ports, ready
        self.ready = False

    def drive(self) -> None:
        self.ready = self.ready_now()
        self.ports.write("ready_i", int(self.ready))


@dataclass
class Checker:
    """Each cycle's outputs against the model; the beats out against the beats in."""

    ports: Ports
    model: RegisterModel = field(default_factory=RegisterModel)
    sent: list[int] = field(default_factory=list)
    received: list[int] = field(default_factory=list)

    def check(self, cycle: int, source: Source, sink: Sink) -> None:
        ready, valid = self.ports.read_bool("ready_o"), self.ports.read_bool("valid_o")
        if valid != self.model.valid:
            raise Mismatch(f"cycle {cycle}: valid_o is {int(valid)}, the register should be "
                           f"{'full' if self.model.valid else 'empty'} ({self._story()})")
        expected_ready = self.model.ready(sink.ready)
        if ready != expected_ready:
            why = "empty" if not self.model.valid else f"full and ready_i is {int(sink.ready)}"
            raise Mismatch(f"cycle {cycle}: ready_o is {int(ready)} with the register {why}; it must be "
                           f"{int(expected_ready)} (ready_o = !valid || ready_i: a beat is taken whenever the "
                           "register is empty or its beat leaves)")
        if valid and (data := self.ports.read("data_o")) != self.model.data:
            raise Mismatch(f"cycle {cycle}: data_o is {data:#x}, the beat it holds is {self.model.data:#x} "
                           f"({self._story()})")
        if valid and sink.ready:
            self.received.append(self.model.data)
        if source.offering and ready:
            self.sent.append(source.pending[0])
        self.model.clock(source.offering, source.pending[0] if source.offering else 0, sink.ready)

    def _story(self) -> str:
        return f"{len(self.sent)} beats taken so far, {len(self.received)} passed on"

    def drained(self) -> None:
        if self.received != self.sent:
            lost = next((n for n, (a, b) in enumerate(zip(self.sent, self.received, strict=False)) if a != b),
                        min(len(self.sent), len(self.received)))
            raise Mismatch(f"{len(self.sent)} beats went in, {len(self.received)} came out; they differ from beat {lost}")


async def reset(ports: Ports, checker: Checker) -> None:
    for name in ("valid_i", "ready_i", "data_i", "rst_ni"):
        ports.write(name, 0)
    await ports.rising_edges(2)
    await ports.falling_edge()
    ports.write("rst_ni", 1)
    checker.model = RegisterModel()
    checker.sent, checker.received = [], []


async def stream(ports: Ports, rng: random.Random, idle: str, sink_mode: str, *, reset_from_cycle: int | None = None,
                 beats: int = BEATS) -> None:
    """Stream random beats through the register, checking every cycle; drain it; check nothing was lost.

    reset_from_cycle: a reset between clock edges in the first cycle from then on in which the register
    holds a beat (an empty register shows nothing of when its reset acts)."""
    checker = Checker(ports)
    await reset(ports, checker)
    top = (1 << ports.width("data_i")) - 1
    source = Source(ports, [rng.randint(0, top) for _ in range(beats)], pattern(idle, rng, 0.3))
    sink = Sink(ports, pattern(sink_mode, rng, 0.5))
    cycle = 0
    while source.pending or checker.model.valid:
        await ports.falling_edge()
        cycle += 1
        if reset_from_cycle is not None and cycle >= reset_from_cycle and checker.model.valid:
            reset_from_cycle = None
            ports.write("rst_ni", 0)
            await ports.wait_ns(SETTLE_NS)
            if ports.read_bool("valid_o"):
                raise Mismatch(f"cycle {cycle}: valid_o stayed high after rst_ni fell between clock edges; the "
                               "register's reset is asynchronous")
            await reset(ports, checker)
            source.offering = False
            continue
        source.drive()
        sink.drive()
        if not source.pending:  # draining: the sink takes what is left
            sink.ready = True
            ports.write("ready_i", 1)
        await ports.wait_ns(SETTLE_NS)
        checker.check(cycle, source, sink)
        if source.offering and ports.read_bool("ready_o"):
            source.taken()
        if cycle > 20 * beats:
            raise Mismatch(f"cycle {cycle}: {len(source.pending)} beats still waiting: the stream stopped")
    if reset_from_cycle is not None:
        raise RuntimeError(f"the bench's own failure: no beat was held from cycle {reset_from_cycle} on, so no reset ran")
    checker.drained()


UnitTest = Callable[[Ports, random.Random], Awaitable[None]]


async def stalls(ports: Ports, rng: random.Random, idle: str, sink: str) -> None:
    """Every idle pattern at the input against every readiness pattern at the output."""
    ports.start_clock(CLOCK_NS)
    await stream(ports, rng, idle, sink)


def _matrix() -> dict[str, UnitTest]:
    return {f"stalls_idle_{idle}_sink_{sink}": partial(stalls, idle=idle, sink=sink)
            for idle, sink in product(("never", "random", "bursts"), ("always", "random", "bursts"))}


async def reset_during_traffic(ports: Ports, rng: random.Random) -> None:
    """A reset between clock edges with a beat held empties the register; the stream after it is checked anew."""
    ports.start_clock(CLOCK_NS)
    await stream(ports, rng, "random", "random", reset_from_cycle=rng.randint(10, 40))
    await stream(ports, rng, "random", "random")


TESTS: dict[str, UnitTest] = {**_matrix(), "reset_during_traffic": reset_during_traffic}
