"""Remote ports (roofline_bench.remote): the bench drives a design elsewhere, and writes its tapes itself.

The far end here is a puppet made of the design models of tests/support/model_design.py, in a
thread, speaking the puppet's protocol (roofline_cocotb.puppet) on real pipes: the tapes the
grader writes are those of the same bench reading the same design's ports directly; and every answer that breaks
the protocol (a line that is not JSON, an answer out of turn or unasked, a second writer, a field
too many, a value too wide) voids the whole reply. The real puppet under both simulators is graded
end to end in tests/course/.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from model_design import ModelDesign, record

from roofline_bench.benches import TESTS
from roofline_bench.ports import Ports
from roofline_bench.remote import Channel, ProtocolError, RemotePorts, drive
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import DEFAULT_SET, MODULES

TOP = "roofline_attainable"
CFG = BenchConfig(TOP, "icarus", DEFAULT_SET, 7, sweep=60)
PORTS = [port.name for port in MODULES[TOP].ports]

Answer = Callable[[int, dict[str, Any]], list[bytes]]  # (turn, command) -> the lines to send back
QUESTIONS = {"begin", "r", "until", "end"}  # the commands that are answered, each taking one turn


def model_answer(design: ModelDesign) -> Answer:
    """A faithful puppet of `design`: every question answered, in turn, as the protocol says."""
    inputs = {"peak_i": 0, "bw_i": 0, "ai_i": 0}
    widths = {name: design.fmt.width if name != "mem_bound_o" else 1 for name in PORTS}

    def answer(turn: int, command: dict[str, Any]) -> list[bytes]:
        if "w" in command:
            inputs[command["w"][0]] = command["w"][1]
            return []
        if "begin" in command:
            found: dict[str, Any] = {"widths": {name: widths.get(name) for name in command["ports"]}}
        elif "r" in command:
            outputs = design.outputs(inputs["peak_i"], (inputs["bw_i"],), (inputs["ai_i"],))
            found = {"v": [["x", value] if isinstance(value, str) else value for value in (outputs[n] for n in command["r"])]}
        elif "end" in command:
            found = {"ended": command["end"]}
        else:
            return []  # time passes; the model has no time
        return [json.dumps({"n": turn, **found}).encode() + b"\n"]

    return answer


@contextmanager
def puppet(answer: Answer, after: bytes = b"") -> Iterator[Channel]:
    """A channel to a thread that answers each command with `answer`, and writes `after` once told done."""
    commands_read, commands_write = os.pipe()
    answers_read, answers_write = os.pipe()

    def serve() -> None:
        turn = 0
        with os.fdopen(commands_read, "rb") as commands, os.fdopen(answers_write, "wb", buffering=0) as answers:
            for line in commands:
                for command in json.loads(line):
                    if "done" in command:
                        answers.write(after)
                        return
                    for reply in answer(turn, command):
                        answers.write(reply)
                    turn += int(bool(QUESTIONS & set(command)))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield Channel(commands_write, answers_read, time.monotonic() + 30, stall_s=1.0)
    finally:
        os.close(commands_write)
        thread.join(timeout=10)
        os.close(answers_read)


def tapes_read_directly(design: ModelDesign) -> dict[str, list]:
    return {test: record(CFG, test, design).entries for test in TESTS[TOP]}


@pytest.mark.parametrize("bug", ["", "ridge", "truncate", "x on zero"])
def test_the_tapes_written_here_are_those_of_the_bench_reading_the_ports_directly(bug: str) -> None:
    design = ModelDesign(DEFAULT_SET.params.fmt, bug)
    with puppet(model_answer(design)) as channel:
        reply = drive(channel, CFG, list(TESTS[TOP].values()))
    assert not reply.problem and set(reply.tapes) == set(TESTS[TOP])
    assert all(tape.complete for tape in reply.tapes.values())
    assert {test: tape.entries for test, tape in reply.tapes.items()} == tapes_read_directly(design)


def breaking(rule: str) -> Answer:
    """A puppet that answers faithfully but breaks one rule of the protocol at its tenth answer."""
    faithful = model_answer(ModelDesign(DEFAULT_SET.params.fmt))

    def answer(turn: int, command: dict[str, Any]) -> list[bytes]:
        lines = faithful(turn, command)
        if turn != 10 or not lines:
            return lines
        document = json.loads(lines[0])
        broken = {
            "not json": [b"{not json\n"],
            "out of turn": [json.dumps({**document, "n": turn + 1}).encode() + b"\n"],
            "a second writer": [*lines, *lines],
            "a field too many": [json.dumps({**document, "cheat": 1}).encode() + b"\n"],
            "a value too wide": [json.dumps({**document, "v": [1 << 40, 0]}).encode() + b"\n"],
            "a bad X": [json.dumps({**document, "v": [["x", "1" * 40], 0]}).encode() + b"\n"],
            "an X of another width": [json.dumps({**document, "v": [["x", "x" * 39], 0]}).encode() + b"\n"],
            "a cut line": [lines[0][:5]],
        }[rule]
        return broken

    return answer


@pytest.mark.parametrize("rule", ["not json", "out of turn", "a second writer", "a field too many", "a value too wide",
                                  "a bad X", "an X of another width", "a cut line"])
def test_an_answer_against_the_protocol_voids_the_whole_reply(rule: str) -> None:
    with puppet(breaking(rule)) as channel:
        reply = drive(channel, CFG, list(TESTS[TOP].values()))
    assert reply.tapes == {} and "every test of the group is void" in reply.problem


def test_a_line_nobody_asked_for_after_the_last_test_voids_the_reply() -> None:
    extra = json.dumps({"n": 999, "v": [0, 0]}).encode() + b"\n"
    with puppet(model_answer(ModelDesign(DEFAULT_SET.params.fmt)), after=extra) as channel:
        reply = drive(channel, CFG, list(TESTS[TOP].values()))
    assert reply.tapes == {} and "an answer nobody asked for" in reply.problem


def test_the_jobs_note_after_the_simulation_is_kept_and_voids_nothing() -> None:
    note = json.dumps({"job": "the simulator stopped with status 3"}).encode() + b"\n"
    with puppet(model_answer(ModelDesign(DEFAULT_SET.params.fmt)), after=note) as channel:
        reply = drive(channel, CFG, list(TESTS[TOP].values()))
    assert not reply.problem and reply.notes == ["the simulator stopped with status 3"] and len(reply.tapes) == len(TESTS[TOP])


def test_a_simulation_that_falls_silent_is_stalled_and_its_test_ends_where_it_stopped() -> None:
    faithful = model_answer(ModelDesign(DEFAULT_SET.params.fmt))

    def silent_after_twenty(turn: int, command: dict[str, Any]) -> list[bytes]:
        return faithful(turn, command) if turn < 20 else []

    with puppet(silent_after_twenty) as channel:
        reply = drive(channel, CFG, list(TESTS[TOP].values()))
        assert channel.stalled
    *finished, stopped = reply.tapes.values()
    assert not reply.problem and list(reply.tapes) == list(TESTS[TOP])[:len(reply.tapes)]
    assert all(tape.complete for tape in finished) and not stopped.complete


# ---------------------------------------------------------------- a hold: many edges in one exchange

WATCH = {"done_o": 0, "busy_o": 1}
EDGES = [(0, 1), (0, 1), (0, 1), (1, 0), (0, 0)]  # (done_o, busy_o) at each falling edge: busy three edges, then done


class EdgePorts(Ports):
    """A clocked design's outputs edge by edge from a script; each read goes on a tape, as the grader's do."""

    def __init__(self, edges: list[tuple[int, int]]) -> None:
        self.widths = {name: 1 for name in ("clk_i", "done_o", "busy_o", "start_i")}
        self.edges, self.edge, self.tape, self.written = edges, -1, Tape("t", dict(self.widths)), []

    def read(self, name: str) -> int:
        value = self.edges[self.edge][("done_o", "busy_o").index(name)]
        self.tape.entries.append(value)
        return value

    def write(self, name: str, value: int) -> None:
        self.written.append((self.edge, name, value))

    def start_clock(self, period_ns: int) -> None: ...
    async def wait_ns(self, ns: int) -> None: ...
    async def rising_edges(self, count: int) -> None: ...
    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int: raise AssertionError

    async def falling_edge(self) -> None:
        self.edge += 1


def hold_answer(edges: list[tuple[int, int]], writes_seen: list) -> Answer:
    def answer(turn: int, command: dict[str, Any]) -> list[bytes]:
        if "begin" in command:
            return [json.dumps({"n": turn, "widths": {name: 1 for name in command["ports"]}}).encode() + b"\n"]
        names, expected, writes = command["hold"]
        for held, entry in enumerate(writes):
            values = list(edges[held])
            if values != expected:
                return [json.dumps({"n": turn, "v": [held, values]}).encode() + b"\n"]
            writes_seen.extend((held, name, value) for name, value in entry)
        return [json.dumps({"n": turn, "v": [len(writes), None]}).encode() + b"\n"]

    return answer


@pytest.mark.parametrize("entries", [2, 3, 6])
def test_a_hold_in_one_exchange_reads_and_writes_as_the_edge_by_edge_hold_does(entries: int) -> None:
    writes = [[("start_i", k % 2)] for k in range(entries)]
    local = EdgePorts(EDGES)
    expected = run_to_end(local.hold(WATCH, writes))
    seen: list = []
    with puppet(hold_answer(EDGES, seen)) as channel:
        widths = channel.ask({"begin": "t", "ports": list(local.widths)}, ("widths",))["widths"]
        remote = RemotePorts(channel, Tape("t", widths), ())
        found = run_to_end(remote.hold(WATCH, writes))
    assert found == expected == ((entries, None) if entries <= 3 else (3, {"done_o": 1, "busy_o": 0}))
    assert remote.tape.entries == local.tape.entries
    assert seen == local.written == [(k, "start_i", k % 2) for k in range(min(entries, 3))]


@pytest.mark.parametrize("answer", [[4, None], [-1, None], [1, [0, 1]], [1, None], [3, [1]], [1, [2, 0]]])
def test_a_hold_answered_against_what_was_asked_voids_the_reply(answer: list) -> None:
    def lying(turn: int, command: dict[str, Any]) -> list[bytes]:
        if "begin" in command:
            return [json.dumps({"n": turn, "widths": {name: 1 for name in command["ports"]}}).encode() + b"\n"]
        return [json.dumps({"n": turn, "v": answer}).encode() + b"\n"]

    with puppet(lying) as channel:
        widths = channel.ask({"begin": "t", "ports": ["clk_i", "done_o", "busy_o", "start_i"]}, ("widths",))["widths"]
        remote = RemotePorts(channel, Tape("t", widths), ())
        with pytest.raises(ProtocolError):
            run_to_end(remote.hold(WATCH, [[("start_i", 1)]] * 3))
