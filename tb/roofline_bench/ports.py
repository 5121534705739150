"""The one way a bench touches a design: its ports, and the passing of simulated time.

A bench is written against `Ports`, never against a simulator. Under a simulator, the cocotb
harness (roofline_cocotb.dut) gives it the design's real ports. A grader that must not trust the
process the design ran in gives it a `ReplayPorts` (roofline_bench.tape) instead, which returns
what that process said it saw: the same bench code then judges, outside, the values observed.
Only reads return anything from the design, so a reply is a sequence of read values, a "tape".
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Unresolved(AssertionError):
    """An output held X or Z where the contract requires a defined value."""

    # Raised by a hold: the edges that held before the one that read X or Z, and the port that read it.
    held = 0
    port = ""


class PortError(AssertionError):
    """The bench reached for a port the design does not have."""


class Ports(ABC):
    """A design's ports as a bench sees them. Reads return raw unsigned integers (Unresolved on
    X/Z); writes take raw values, cut to the port's width; `widths` says how wide each port of the
    contract is in this design (None: the design has no such port)."""

    widths: dict[str, int | None]

    @abstractmethod
    def read(self, name: str) -> int: ...

    @abstractmethod
    def write(self, name: str, value: int) -> None: ...

    @abstractmethod
    def start_clock(self, period_ns: int) -> None:
        """A free-running clock on the contract's clock port."""

    @abstractmethod
    async def wait_ns(self, ns: int) -> None: ...

    @abstractmethod
    async def falling_edge(self) -> None:
        """Until the clock's next falling edge: the benches drive and sample there."""

    @abstractmethod
    async def rising_edges(self, count: int) -> None: ...

    @abstractmethod
    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        """From a falling edge: wait until `name` rises, or until `periods` clock periods less a
        quarter have passed (so the next falling edge is the periods-th); return the whole
        periods elapsed. A clocked bench waits this way rather than waking every cycle."""

    async def hold(self, watch: dict[str, int], writes: list[list[tuple[str, int]]]) -> tuple[int, dict[str, int] | None]:
        """From a falling edge, for each entry of `writes`: wait for the next falling edge and read the
        `watch` ports in order; while every one holds its value, make that entry's writes and go on.
        Returns how many edges held and the values read at the first edge where one did not (every
        watch port read there, an X/Z raising Unresolved as a read does), or None when every entry
        held. A bench that would wait this way edge by edge (a busy divider, start_i raised with other
        operands) says so in one call, which a remote design answers in one exchange (roofline_bench.remote)."""
        for held, entry in enumerate(writes):
            await self.falling_edge()
            values = {}
            for name in watch:
                try:
                    values[name] = self.read(name)
                except Unresolved as problem:
                    problem.held, problem.port = held, name
                    raise
            if values != watch:
                return held, values
            for name, value in entry:
                self.write(name, value)
        return len(writes), None

    def read_bool(self, name: str) -> bool:
        return self.read(name) != 0

    def width(self, name: str) -> int:
        found = self.widths.get(name)
        if found is None:
            raise PortError(f"the design has no port {name}")
        return found

    def require(self, name: str) -> None:
        """PortError unless the design has this port (writes check it, so replays stop where runs did)."""
        if self.widths.get(name) is None:
            raise PortError(f"the design has no port {name}")
