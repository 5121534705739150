"""Tapes: what a bench read from a design, in order, judged again by replaying the bench.

The grader writes a test's tape while its bench drives the design (roofline_bench.remote): every
value read, an X or Z as ("x", bits), and what a clocked wait returned. The judge replays the same
bench against `ReplayPorts`, which hands back those values: the bench is deterministic given what
it reads, so it drives, expects and judges exactly as it did. A replay that meets a value a port
cannot hold, or runs out of values (the simulation stopped), stops that test, which then fails.

A failing test can be replayed once more with a trace of every value (roofline_bench.trace).
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from roofline_bench.ports import PortError, Ports, Unresolved
from roofline_core.scoreboard import Verdict

Entry = int | tuple[str, str]
MAX_LINE = 1 << 20  # characters an answer may hold (roofline_bench.remote)
MAX_WIDTH = 1 << 16  # bits a port may have
MAX_STEPS = 50_000_000  # clock edges and waits a replay takes before it gives up


class TapeError(AssertionError):
    """The reply cannot be what a simulator saw: a value too wide for its port, a wrong type."""


class TapeEnded(AssertionError):
    """The reply ran out before the bench did: the simulation stopped, or the design never answered."""

    def __init__(self, cycles: int, values: int) -> None:
        super().__init__(f"the simulation stopped answering after {cycles} clock cycles and {values} values read"
                         if values else "the design never answered: no output was read before the simulation stopped")
        self.cycles, self.values = cycles, values


@dataclass
class Tape:
    test: str
    widths: dict[str, int | None]
    entries: list[Entry] = field(default_factory=list)
    complete: bool = False  # the recording said the test finished (a replay does not rely on it)


@dataclass
class Reply:
    tapes: dict[str, Tape] = field(default_factory=dict)
    problem: str = ""  # why the reply is void, when it is
    notes: list[str] = field(default_factory=list)  # lines the job inside added ({"job": ...}), untrusted
    # The verdicts a bench in this process reached while it wrote the tapes (roofline_bench.remote):
    # what a replay of them gives, so the judge need not replay them again.
    judged: dict[str, Verdict] = field(default_factory=dict)


# ---------------------------------------------------------------------------------- replaying


class ReplayPorts(Ports):
    """Ports that answer from a tape; simulated time passes instantly."""

    def __init__(self, tape: Tape) -> None:
        self.widths = dict(tape.widths)
        self.entries = tape.entries
        self.position = 0
        self.cycles = 0
        self.steps = 0

    def read(self, name: str) -> int:
        width = self.width(name)
        entry = self._next()
        if isinstance(entry, tuple):
            raise Unresolved(f"{name} holds X/Z: {entry[1][:80]}")
        if entry >> width:
            raise TapeError(f"the reply says {name} read {entry:#x}, more than its {width} bits can hold")
        return entry

    def write(self, name: str, value: int) -> None:
        self.require(name)

    def start_clock(self, period_ns: int) -> None:
        pass

    async def wait_ns(self, ns: int) -> None:
        self._step()

    async def falling_edge(self) -> None:
        self.cycles += 1
        self._step()

    async def rising_edges(self, count: int) -> None:
        self.cycles += count
        self._step()

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        self.require(name)
        entry = self._next()
        if isinstance(entry, tuple) or not 0 <= entry <= periods:
            raise TapeError(f"the reply says {name} rose after {entry} periods of at most {periods}")
        self.cycles += entry
        self._step()
        return entry

    def _next(self) -> Entry:
        if self.position >= len(self.entries):
            raise TapeEnded(self.cycles, self.position)
        entry = self.entries[self.position]
        self.position += 1
        return entry

    def _step(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TapeEnded(self.cycles, self.position)



def run_to_end(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a bench coroutine over ReplayPorts, whose awaits never suspend, to its end."""
    try:
        coroutine.send(None)
    except StopIteration as finished:
        return finished.value
    coroutine.close()
    raise RuntimeError("a replayed bench awaited something other than its ports")


__all__ = ["PortError", "Reply", "ReplayPorts", "Tape", "TapeEnded", "TapeError", "run_to_end"]
