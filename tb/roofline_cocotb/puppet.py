"""The puppet: a design's ports, worked from another process, for a grader that keeps the bench to itself.

A grading sandbox runs the student's design under a simulator with this one cocotb test
(tb/cocotb_tests/test_puppet.py). It holds no bench, no stimulus, no seed and no model: it reads
commands from the grader (roofline_bench.remote), a JSON list of them per line, applies each to
the design's ports, and answers each question in turn:

    {"begin": test, "ports": [...]}   -> {"n": k, "widths": {port: bits or null}}
    {"w": [port, value]}               a write; {"clock": ns} starts the clock; {"wait": ns},
    {"fall": 1}, {"rise": count}       let simulated time pass
    {"r": [port, ...]}                 -> {"n": k, "v": [value or ["x", bits], ...]}
    {"until": [port, periods, ns]}     -> {"n": k, "v": whole periods until the port rose}
    {"hold": [ports, values, writes]}  -> {"n": k, "v": [edges held, values where it stopped or null]}
    {"end": test}                      -> {"n": k, "ended": test}  (the test's clocks stop)
    {"done": 1}                        the simulation ends

It imports cocotb and roofline_cocotb.signals only, and those when it serves: a sandbox that runs
it holds nothing else of the harness, and the job that starts the simulator (with a stand-in for
cocotb) reads its names here. The commands and answers travel on two pipes the simulator inherits
(their descriptors in COMMANDS_FD and ANSWERS_FD); `claim` takes them when the test module is
imported, before simulated time begins, so that nothing the design might start inherits them.
"""

from __future__ import annotations

import json
import os
from typing import Any

COMMANDS_FD, ANSWERS_FD = "ROOFLINE_PUPPET_COMMANDS_FD", "ROOFLINE_PUPPET_ANSWERS_FD"  # the pipes' descriptors
CLOCK_PORT = "clk_i"  # the contract's clock (roofline_core.contract.CLOCK_PORT; not imported here)


class Puppet:
    """The design's ports, worked command by command; `answers` is where each answer goes."""

    def __init__(self, dut: Any, answers: Any) -> None:
        import cocotb  # here, not at the top: the job that starts the simulator imports this module without cocotb
        from cocotb.clock import Clock
        from cocotb.triggers import ClockCycles, FallingEdge, Timer

        from roofline_cocotb.signals import periods_until_rise, read_bits

        self.start_soon, self.clock, self.cycles, self.falling, self.timer = (cocotb.start_soon, Clock, ClockCycles,
                                                                             FallingEdge, Timer)
        self.until, self.bits = periods_until_rise, read_bits
        self.dut, self.answers = dut, answers
        self.asked = 0
        self.handles: dict[str, Any] = {}
        self.clocks: list[Any] = []

    def answer(self, document: dict[str, Any]) -> None:
        self.answers.write((json.dumps({"n": self.asked, **document}, separators=(",", ":")) + "\n").encode())
        self.asked += 1

    async def apply(self, command: dict[str, Any]) -> bool:
        """One command; True when the simulation is to end."""
        handles = self.handles
        if "w" in command:
            name, value = command["w"]
            handles[name].value = value
        elif "r" in command:
            self.answer({"v": [self.value(handles[name]) for name in command["r"]]})
        elif "wait" in command:
            await self.timer(command["wait"], "ns")
        elif "fall" in command:
            await self.falling(handles[CLOCK_PORT])
        elif "rise" in command:
            await self.cycles(handles[CLOCK_PORT], command["rise"])
        elif "until" in command:
            name, periods, period_ns = command["until"]
            self.answer({"v": await self.until(handles[name], periods, period_ns)})
        elif "hold" in command:
            self.answer({"v": await self.hold(*command["hold"])})
        elif "clock" in command:
            clock = self.clock(handles[CLOCK_PORT], command["clock"], unit="ns", impl="gpi")
            self.clocks.append(self.start_soon(clock.start()))
        elif "begin" in command:
            self.handles = {name: getattr(self.dut, name, None) for name in command["ports"]}
            self.answer({"widths": {name: None if h is None else len(h) for name, h in self.handles.items()}})
        elif "end" in command:
            for clock in self.clocks:
                clock.cancel()
            self.clocks.clear()
            self.answer({"ended": command["end"]})
        return "done" in command

    async def hold(self, names: list[str], expected: list[int], writes: list[list[list[Any]]]) -> list[Any]:
        """roofline_bench.ports.Ports.hold here, edge by edge: [edges held, the values where it stopped or null]."""
        for held, entry in enumerate(writes):
            await self.falling(self.handles[CLOCK_PORT])
            values = [self.value(self.handles[name]) for name in names]
            if values != expected:
                return [held, values]
            for name, value in entry:
                self.handles[name].value = value
        return [len(writes), None]

    def value(self, handle: Any) -> int | list[str]:
        bits = self.bits(handle)
        try:
            return int(bits, 2)
        except ValueError:
            return ["x", bits]


_CHANNEL: list[tuple[Any, Any]] = []


def claim() -> None:
    """Take the two pipes, not inheritable from here on (a process the design started would not get them)."""
    fds = [int(os.environ[name]) for name in (COMMANDS_FD, ANSWERS_FD)]
    for fd in fds:
        os.set_inheritable(fd, False)
    _CHANNEL.append((os.fdopen(fds[0], "rb"), os.fdopen(fds[1], "wb", buffering=0)))


async def serve(dut: Any) -> None:
    """Until the grader says done (or its commands end): apply each command, answer each question."""
    commands, answers = _CHANNEL[0]
    with commands, answers:
        puppet = Puppet(dut, answers)
        for line in commands:
            for command in json.loads(line):
                if await puppet.apply(command):
                    return
