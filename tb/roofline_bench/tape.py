"""Tapes: what a bench read from a design, written down where it ran and judged elsewhere.

When a bench runs for a grader (ROOFLINE_TAPE names a file), every value it reads is recorded,
in order, one JSON document per line:

    {"test": "random_sweep", "widths": {"peak_i": 40, ...}}    a test starts; the design's port widths
    {"v": [17, 0, ["x", "01x0"], ...]}                           values read (["x", bits]: X or Z)
    {"end": "random_sweep"}                                      the test finished

The grader replays the same bench against `ReplayPorts`, which hands back the recorded values:
the bench is deterministic given what it reads, so it drives, expects and judges exactly as it
did in the simulator, but in the grader's own process. Whatever wrote the file is not trusted:
`parse` takes only well-formed lines, bounded in size, and a replay that meets a value a port
cannot hold, or runs out of values, stops that test, which then fails. A reply can make a
design look like one that computes the right outputs; producing those is the assignment.

A failing test can be replayed once more with a trace of every value (roofline_bench.trace).
"""

from __future__ import annotations

import json
import time
from collections.abc import Coroutine, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from roofline_bench.ports import PortError, Ports, Unresolved
from roofline_core.scoreboard import Verdict

TAPE_VARIABLE = "ROOFLINE_TAPE"  # the file a recording bench appends to
Entry = int | tuple[str, str]
CHUNK = 4096  # values per line
FLUSH_S = 0.05  # a recording reaches the file at least this often while the simulation runs
MAX_LINE = 1 << 20  # characters a line may hold
MAX_ENTRIES = 20_000_000  # values a whole reply may hold
MAX_WIDTH = 1 << 16
MAX_STEPS = 50_000_000  # clock edges and waits a replay takes before it gives up


class TapeError(AssertionError):
    """The reply cannot be what a simulator saw: a value too wide for its port, a wrong type."""


class TapeEnded(AssertionError):
    """The reply ran out before the bench did: the simulation stopped, or the design never answered."""

    def __init__(self, cycles: int, values: int) -> None:
        super().__init__(f"the simulation stopped answering after {cycles} clock cycles and {values} values read"
                         if values else "the design never answered: no output was read before the simulation stopped")
        self.cycles, self.values = cycles, values


# ---------------------------------------------------------------------------------- recording


class Recorder:
    """Appends a bench's reads to the tape file, flushed often enough that a simulation killed at
    its time limit leaves all but the last moments behind."""

    def __init__(self, path: Path) -> None:
        self.out: TextIO = path.open("a")
        self.pending: list[Any] = []
        self.flushed = time.monotonic()

    def begin(self, test: str, widths: dict[str, int | None]) -> None:
        self._line({"test": test, "widths": widths})
        self.out.flush()  # a run that hangs in its first step still shows the test began

    def value(self, entry: Any) -> None:
        self.pending.append(entry)
        if len(self.pending) >= CHUNK:
            self.flush()

    def tick(self) -> None:
        """Called before simulated time passes: flush when the last flush is a while ago."""
        if self.pending and time.monotonic() - self.flushed > FLUSH_S:
            self.flush()

    def end(self, test: str) -> None:
        self.flush()
        self._line({"end": test})

    def flush(self) -> None:
        if self.pending:
            entries, self.pending = self.pending, []
            self._line({"v": entries})
        self.out.flush()
        self.flushed = time.monotonic()

    def _line(self, document: dict[str, Any]) -> None:
        self.out.write(json.dumps(document, separators=(",", ":")) + "\n")


# ---------------------------------------------------------------------------------- reading


@dataclass
class Tape:
    test: str
    widths: dict[str, int | None]
    entries: list[Entry] = field(default_factory=list)
    complete: bool = False  # the recording said the test finished (a replay does not rely on it)


@dataclass
class Reply:
    tapes: dict[str, Tape] = field(default_factory=dict)
    problem: str = ""  # why the rest of the reply was dropped, when it was
    notes: list[str] = field(default_factory=list)  # lines the job inside added ({"job": ...}), untrusted
    # The verdicts a bench in this process reached while it wrote the tapes (roofline_bench.remote):
    # what a replay of them gives, so the judge need not replay them again.
    judged: dict[str, Verdict] = field(default_factory=dict)


def parse(lines: Iterable[str], tests: Iterable[str], ports: Iterable[str]) -> Reply:
    """The tapes of the named tests; the first malformed line ends the reply (later lines are dropped)."""
    wanted, known_ports = set(tests), tuple(ports)
    reply = Reply()
    current: Tape | None = None
    count = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE:
                raise TapeError("a line is too long")
            document = json.loads(line)
            if not isinstance(document, dict) or len(document) not in (1, 2):
                raise TapeError("not a tape line")
            if "test" in document:
                current = _begin(document, wanted, known_ports, reply)
            elif "v" in document and len(document) == 1:
                if current is None:
                    raise TapeError("values outside a test")
                values = _entries(document["v"])
                count += len(values)
                if count > MAX_ENTRIES:
                    raise TapeError(f"more than {MAX_ENTRIES} values")
                current.entries += values
            elif "end" in document and len(document) == 1:
                if current is None or document["end"] != current.test:
                    raise TapeError("the end of a test that did not start")
                current.complete, current = True, None
            elif "job" in document and len(document) == 1 and isinstance(document["job"], str):
                reply.notes.append(document["job"][:2000])
            else:
                raise TapeError("not a tape line")
        except (TapeError, ValueError, RecursionError) as problem:
            reply.problem = f"line {number} of the reply is malformed ({problem}); the rest was dropped"
            break
    return reply


def _begin(document: dict[str, Any], wanted: set[str], ports: tuple[str, ...], reply: Reply) -> Tape:
    test, widths = document.get("test"), document.get("widths")
    if not isinstance(test, str) or test not in wanted or not isinstance(widths, dict):
        raise TapeError("a test this job did not run")
    if test in reply.tapes:
        raise TapeError(f"test {test} twice")
    shown: dict[str, int | None] = {}
    for name in ports:
        width = widths.get(name)
        if width is not None and (type(width) is not int or not 0 < width <= MAX_WIDTH):
            raise TapeError(f"an impossible width for {name}")
        shown[name] = width
    reply.tapes[test] = Tape(test, shown)
    return reply.tapes[test]


def _entries(values: Any) -> list[Entry]:
    if not isinstance(values, list):
        raise TapeError("values are not a list")
    entries: list[Entry] = []
    for value in values:
        if type(value) is int:
            if value < 0:
                raise TapeError("a negative value")
            entries.append(value)
        elif (isinstance(value, list) and len(value) == 2 and value[0] == "x" and isinstance(value[1], str)
              and len(value[1]) <= MAX_WIDTH):
            entries.append(("x", value[1]))
        else:
            raise TapeError("a value that is neither a number nor X/Z")
    return entries


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


__all__ = ["PortError", "Recorder", "Reply", "ReplayPorts", "Tape", "TapeEnded", "TapeError", "parse", "run_to_end"]
