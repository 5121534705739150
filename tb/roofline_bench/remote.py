"""Remote ports: a bench here drives a design simulated elsewhere, where nothing of the bench is.

A grader runs the bench in its own process, against `RemotePorts`: each write, clock and wait
goes to a puppet beside the design (roofline_cocotb.puppet, in the grading sandbox), and each read
comes back from it. The stimulus, the seed, the expected values and the golden model never leave
this process; the sandbox learns one command at a time. What the bench read is written down here,
on a Tape per test, exactly as a recording bench writes it (roofline_bench.tape), so the judge
replays it and the pictures trace it as before; but the only writer of the tape is this process.

The sandbox's answers are held to the protocol: one JSON document per line, each the answer to the
next question asked, in order, with exactly its fields, and values a port of its width can hold.
Anything else (a line that is not JSON, an answer out of turn or unasked, a field too many, a value
too wide) is a ProtocolError and voids the whole reply: no test of it counts. A line the job around
the simulator adds after the simulation ({"job": "..."}) ends the answers and is kept as a note.
"""

from __future__ import annotations

import json
import logging
import os
import select
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports, Unresolved
from roofline_bench.run import BenchTest, Run, execute
from roofline_bench.tape import MAX_LINE, MAX_WIDTH, Entry, Reply, Tape, TapeEnded, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import CLOCK_PORT, MODULES

BITS = frozenset("01xzXZuUwWlLhH-")  # what a 4-state (or 9-state) simulator prints for one bit


class ProtocolError(Exception):
    """The sandbox said something the protocol does not allow: its whole reply is void."""


class ChannelClosed(TapeEnded):
    """The simulation stopped answering (it ended, crashed or was stopped): the test in progress
    ends there, like a tape that runs out, and fails."""


class Stalled(ChannelClosed):
    """An answer did not come within the stall limit once the simulation had begun."""


@dataclass
class Channel:
    """The grader's end: questions out on `commands`, answers in on `answers` (file descriptors)."""

    commands: int
    answers: int
    deadline: float  # time.monotonic() past which nothing more is waited for
    stall_s: float | None = None  # once one answer came, the longest wait for the next
    asked: int = 0
    begun: bool = False  # an answer came: the simulation runs
    closed: bool = False  # the answers ended, or one did not come in time: nothing more is asked
    stalled: bool = False  # ... because one did not come within stall_s

    def __post_init__(self) -> None:
        self.pending: list[dict[str, Any]] = []
        self.buffer = b""
        self.notes: list[str] = []
        # A sandbox that stops reading must not hold the grader: writes wait only as long as reads do.
        os.set_blocking(self.commands, False)

    def _wait(self) -> float:
        """How long the next answer (or the room to send a question) is waited for."""
        wait = self.deadline - time.monotonic()
        if self.begun and self.stall_s is not None:
            wait = min(wait, self.stall_s)
        return max(0.0, wait)

    def _closed(self, stalled: bool = False) -> ChannelClosed:
        self.closed, self.stalled = True, self.stalled or stalled
        return Stalled(0, 0) if self.stalled else ChannelClosed(0, 0)

    def post(self, document: dict[str, Any]) -> None:
        self.pending.append(document)

    def flush(self) -> None:
        """Send what is pending, as one line (a JSON list of commands): one write, and one parse there."""
        if self.closed:
            raise self._closed()
        data, self.pending = json.dumps(self.pending, separators=(",", ":")).encode() + b"\n", []
        while data:
            _, room, _ = select.select([], [self.commands], [], self._wait())
            if not room:  # the sandbox stopped reading: as an answer that did not come
                raise self._closed(stalled=self.begun and time.monotonic() < self.deadline)
            try:
                data = data[os.write(self.commands, data):]
            except BlockingIOError:  # less room than select saw: wait again
                continue
            except OSError:  # the sandbox is gone (a broken pipe)
                raise self._closed() from None

    def ask(self, document: dict[str, Any], fields: Iterable[str]) -> dict[str, Any]:
        """Send `document` (and whatever is pending) and return its answer, which must hold exactly
        "n" (its turn) and `fields`."""
        self.post(document)
        self.flush()
        answer = self._next_line()
        expected = {"n", *fields}
        if not isinstance(answer, dict) or set(answer) != expected or type(answer["n"]) is not int \
                or answer["n"] != self.asked:
            raise ProtocolError(f"answer {self.asked} was not what was asked: {str(answer)[:80]}")
        self.asked += 1
        self.begun = True
        return answer

    def _next_line(self) -> Any:
        while b"\n" not in self.buffer:
            if len(self.buffer) > MAX_LINE:
                raise ProtocolError("an answer longer than any answer can be")
            ready, _, _ = select.select([self.answers], [], [], self._wait())
            if not ready:
                if self.buffer:  # the puppet writes each answer whole: a fragment left is someone else's
                    raise ProtocolError("an answer cut short")
                raise self._closed(stalled=self.begun and time.monotonic() < self.deadline)
            chunk = os.read(self.answers, 1 << 16)
            if not chunk:
                if self.buffer:
                    raise ProtocolError("the answers end in the middle of a line")
                raise self._closed()
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        if len(line) > MAX_LINE:  # however the line came in reads
            raise ProtocolError("an answer longer than any answer can be")
        try:
            document = json.loads(line)
        except (ValueError, RecursionError):
            raise ProtocolError("an answer that is not JSON") from None
        if isinstance(document, dict) and set(document) == {"job"} and isinstance(document["job"], str):
            self.notes.append(document["job"][:2000])
            self._notes_only()
            raise self._closed()
        return document

    def finish(self) -> None:
        """After the last test: nothing may come back but the job's notes, until the sandbox closes."""
        self.post({"done": 1})
        self.flush()
        try:
            document = self._next_line()
        except ChannelClosed:
            return
        raise ProtocolError(f"an answer nobody asked for: {str(document)[:80]}")

    def _notes_only(self) -> None:
        """After the job's first note nothing but notes may follow (the simulation is over)."""
        for line in self.buffer.split(b"\n"):
            if not line.strip():
                continue
            try:
                document = json.loads(line)
            except (ValueError, RecursionError):
                raise ProtocolError("a line after the job's note that is not JSON") from None
            if not (isinstance(document, dict) and set(document) == {"job"} and isinstance(document["job"], str)):
                raise ProtocolError("an answer after the simulation ended")
            self.notes.append(document["job"][:2000])
        self.buffer = b""


def _value(raw: Any, width: int) -> Entry:
    """One read value as the sandbox gave it, held to the port's width."""
    if type(raw) is int and 0 <= raw < 1 << width:
        return raw
    if (isinstance(raw, list) and len(raw) == 2 and raw[0] == "x" and isinstance(raw[1], str) and len(raw[1]) == width
            and set(raw[1]) <= BITS and not set(raw[1]) <= {"0", "1"}):
        return ("x", raw[1])
    raise ProtocolError(f"a value a {width}-bit port cannot hold: {str(raw)[:40]}")


class RemotePorts(Ports):
    """The design's ports through the channel; every value read also goes on `tape`.

    Outputs are asked for all at once and kept until the design's inputs or time change, so a
    bench that reads four outputs of one vector costs one question, not four."""

    def __init__(self, channel: Channel, tape: Tape, outputs: tuple[str, ...]) -> None:
        self.channel, self.tape = channel, tape
        self.widths = dict(tape.widths)
        self.outputs = tuple(name for name in outputs if self.widths.get(name) is not None)
        self.seen: dict[str, Entry] = {}

    def read(self, name: str) -> int:
        self.require(name)
        if name not in self.seen:
            asked = self.outputs if name in self.outputs else (name,)
            values = self.channel.ask({"r": list(asked)}, ("v",))["v"]
            if not isinstance(values, list) or len(values) != len(asked):
                raise ProtocolError("an answer with another number of values than asked")
            self.seen = {port: _value(value, self.width(port)) for port, value in zip(asked, values, strict=True)}
        value = self.seen[name]
        self.tape.entries.append(value)
        if isinstance(value, tuple):
            raise Unresolved(f"{name} holds X/Z: {value[1]}")
        return value

    def write(self, name: str, value: int) -> None:
        self.require(name)
        self._changed({"w": [name, value & ((1 << self.width(name)) - 1)]})

    def start_clock(self, period_ns: int) -> None:
        self.require(CLOCK_PORT)
        self._changed({"clock": period_ns})

    async def wait_ns(self, ns: int) -> None:
        self._changed({"wait": ns})

    async def falling_edge(self) -> None:
        self._changed({"fall": 1})

    async def rising_edges(self, count: int) -> None:
        self._changed({"rise": count})

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        self.require(name)
        self.seen = {}
        elapsed = self.channel.ask({"until": [name, periods, period_ns]}, ("v",))["v"]
        if type(elapsed) is not int or not 0 <= elapsed <= periods:
            raise ProtocolError(f"{elapsed!r} periods, of at most {periods}")
        self.tape.entries.append(elapsed)
        return elapsed

    async def hold(self, watch: dict[str, int], writes: list[list[tuple[str, int]]]) -> tuple[int, dict[str, int] | None]:
        """In one exchange; the tape gets every edge's reads, as the edge-by-edge hold would read them."""
        for name in watch:
            self.require(name)
        masked = [[[name, value & ((1 << self.width(name)) - 1)] for name, value in entry] for entry in writes]
        for entry in writes:
            for name, _ in entry:
                self.require(name)
        self.seen = {}
        found = self.channel.ask({"hold": [list(watch), list(watch.values()), masked]}, ("v",))["v"]
        if not (isinstance(found, list) and len(found) == 2 and type(found[0]) is int and 0 <= found[0] <= len(writes)):
            raise ProtocolError(f"a hold that held {str(found)[:40]} edges of {len(writes)}")
        held, stopped = found
        for _ in range(held):
            self.tape.entries += list(watch.values())
        if held == len(writes):
            if stopped is not None:
                raise ProtocolError("a hold that held every edge and stopped too")
            return held, None
        if not isinstance(stopped, list) or len(stopped) != len(watch):
            raise ProtocolError("a hold that stopped without its values")
        values = {}
        for name, raw in zip(watch, stopped, strict=True):
            value = _value(raw, self.width(name))
            self.tape.entries.append(value)
            if isinstance(value, tuple):
                problem = Unresolved(f"{name} holds X/Z: {value[1]}")
                problem.held, problem.port = held, name
                raise problem
            values[name] = value
        if values == watch:
            raise ProtocolError("a hold that stopped where its values held")
        return held, values

    def _changed(self, command: dict[str, Any]) -> None:
        self.seen = {}
        self.channel.post(command)


_QUIET = logging.getLogger("roofline_bench.remote")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def drive(channel: Channel, cfg: BenchConfig, tests: list[BenchTest]) -> Reply:
    """Run each test of the bench, in order, on the design behind the channel; the reply holds
    their tapes, written here. A ProtocolError voids it (no tape, the problem said); a simulation
    that stops answering ends the test in progress, and no later test runs."""
    ports = MODULES[cfg.top].ports
    names = [port.name for port in ports]
    outputs = tuple(port.name for port in ports if port.output)
    reply = Reply()
    try:
        for test in tests:
            widths = channel.ask({"begin": test.name, "ports": names}, ("widths",))["widths"]
            if not isinstance(widths, dict) or set(widths) != set(names) or not all(
                    width is None or (type(width) is int and 0 < width <= MAX_WIDTH) for width in widths.values()):
                raise ProtocolError("port widths that no design has")
            tape = reply.tapes[test.name] = Tape(test.name, {name: widths[name] for name in names})
            verdict = run_to_end(execute(test, Run(cfg, test.name, RemotePorts(channel, tape, outputs), Coverage(), _QUIET)))
            reply.judged[test.name] = verdict
            if channel.ask({"end": test.name}, ("ended",))["ended"] != test.name:
                raise ProtocolError("the end of another test")
            tape.complete = True
        channel.finish()
    except ChannelClosed:
        pass  # the test in progress has the tape it got; the judge fails it where it ends
    except ProtocolError as problem:
        reply = Reply(problem=f"the simulation's answers broke the protocol ({problem}): every test of the group is void")
    reply.notes += channel.notes
    return reply
