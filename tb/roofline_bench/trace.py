"""Traces: a failing test replayed once more, keeping every value written and read, by clock cycle.

A failing test can be replayed once more over `TracedPorts` (ReplayPorts that also keep a
`Trace`): every value written and read, by clock cycle, in a window of the last steps before the
first failure and a few after it, and each failure where it happened. The grader draws its
pictures from it; an ordinary replay (roofline_bench.tape) keeps nothing.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from roofline_bench.ports import Unresolved
from roofline_bench.tape import ReplayPorts, Tape
from roofline_core.contract import RESET_PORT

BEFORE_STEPS = 24  # steps (clock edges and waits) a trace keeps before its first failure
AFTER_STEPS = 6  # and after it
MAX_SAMPLES = 4096  # values a trace's window holds at most, whatever the bench does between steps
MAX_MARKED = 500  # vectors (or events) whose failures a trace keeps: where each happened, the inputs at that moment


@dataclass(frozen=True)
class Sample:
    """One thing the bench did at a port: wrote a value, read one ("x": X or Z), waited for it to rise
    (value: the periods that passed), or expected one (a check compared it with `value`)."""

    step: int
    cycle: int
    kind: str  # "write", "read", "wait" or "expect"
    port: str
    value: int | str


@dataclass(frozen=True)
class Mark:
    """A failure where it happened: the step and clock cycle, what the scoreboard recorded, and the
    last value written to each input at that moment (a combinational vector's inputs)."""

    step: int
    cycle: int
    vector_id: str
    kind: str
    label: str = ""
    fields: tuple[tuple[str, int, int, str], ...] = ()  # every output a check compared: (name, expected, actual, decode)
    message: str = ""  # the first line of a failure that is not a value mismatch
    inputs: tuple[tuple[str, int], ...] = ()
    event: bool = False  # of no one vector (a cycle, a reset, the end of the test): vector_id only names it
    since: int = 0  # the cycles before this one in which the failing case began (a late result's input), if any


@dataclass
class Trace:
    """What a traced replay saw: the values of a window of steps around the first failure, the
    failures, and the inputs' values as the window starts (`held`). Bounded: the window slides
    until the first failure, then stops `after` steps later (`complete`); at most `max_marked`
    vectors' failures are kept. `until_first`: stop there (a timing diagram); else go on gathering
    failures (a picture of every failing vector)."""

    widths: dict[str, int | None]
    before: int = BEFORE_STEPS
    after: int = AFTER_STEPS
    until_first: bool = True
    max_marked: int = MAX_MARKED
    samples: deque[Sample] = field(default_factory=deque)
    held: dict[str, int] = field(default_factory=dict)  # each input's value before the window's first sample
    written: dict[str, int] = field(default_factory=dict)  # each input's latest value
    marks: list[Mark] = field(default_factory=list)
    marked: set[str] = field(default_factory=set)  # the vectors (or events) with a mark
    step: int = 0
    cycle: int = 0
    released: int | None = None  # the cycle the bench first released the reset in (cycles are counted from it)

    @property
    def first(self) -> Mark | None:
        return self.marks[0] if self.marks else None

    @property
    def complete(self) -> bool:
        """Nothing more to keep: the window after the first failure is full, or the marks are."""
        if self.until_first:
            return self.first is not None and self.step > self.first.step + self.after
        return len(self.marked) >= self.max_marked

    def add(self, kind: str, port: str, value: int | str, cycle: int | None = None) -> None:
        if kind == "write" and isinstance(value, int):
            self.written[port] = value
            if port == RESET_PORT and value and self.released is None:
                self.released = self.cycle
        if self.first is not None and self.step > self.first.step + self.after:
            return  # past the window: only failures (and the inputs they had) are still gathered
        self.samples.append(Sample(self.step, self.cycle if cycle is None else cycle, kind, port, value))
        self._slide()

    def mark(self, vector_id: str, kind: str, label: str = "", fields: tuple[tuple[str, int, int, str], ...] = (),
             message: str = "", event: bool = False, since: int = 0) -> None:
        if vector_id in self.marked or len(self.marked) < self.max_marked:
            self.marked.add(vector_id)
            self.marks.append(Mark(self.step, self.cycle, vector_id, kind, label, fields, message,
                                   tuple(self.written.items()), event, since))

    def advance(self, step: int, cycle: int) -> None:
        self.step, self.cycle = step, cycle
        self._slide()

    def _slide(self) -> None:
        """Drop what is older than the window, remembering the inputs' values; the window stops
        sliding at the first failure (what came before it is what the picture shows)."""
        start = self.first.step - self.before if self.first is not None else self.step - self.before
        while self.samples and (self.samples[0].step < start or len(self.samples) > MAX_SAMPLES):
            old = self.samples.popleft()
            if old.kind == "write" and isinstance(old.value, int):
                self.held[old.port] = old.value


class TraceComplete(Exception):  # noqa: N818 - a signal, not an error: the traced replay has what it needs
    """Raised by TracedPorts once the trace is complete, to end the replay there."""


class TracedPorts(ReplayPorts):
    """ReplayPorts that keep a Trace of every write, read and wait, by step and clock cycle."""

    def __init__(self, tape: Tape, trace: Trace) -> None:
        super().__init__(tape)
        self.trace = trace

    def read(self, name: str) -> int:
        try:
            value = super().read(name)
        except Unresolved:
            self.trace.add("read", name, "x")
            raise
        self.trace.add("read", name, value)
        return value

    def write(self, name: str, value: int) -> None:
        super().write(name, value)
        self.trace.add("write", name, value & ((1 << self.width(name)) - 1))

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        start = self.cycles
        elapsed = await super().periods_until_rise(name, periods, period_ns)
        self.trace.add("wait", name, elapsed, cycle=start)
        return elapsed

    def _step(self) -> None:
        super()._step()
        self.trace.advance(self.steps, self.cycles)
        if self.trace.complete:
            raise TraceComplete
