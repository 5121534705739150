"""Clocked designs without a simulator, for judging tests: roofline_hierarchy_pipe and
roofline_intensity as cycle models in Python (the contract's behaviour, or one bug put in by
name), driven by the real bench through a clock of their own and recorded on a tape exactly as the
grader's puppet records a simulated design's (roofline_bench.tape.Tape), so the real judge, hints and
pictures run on what they "did".

The clock is cocotb's: rising edges at 0, 10, 20 ... ns, falling edges halfway. State changes at
a rising edge; outputs are read from the state (and, for in_ready_o, the inputs). The reset is
asynchronous unless the bug is "synchronous reset".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from model_design import ModelDesign

from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports, Unresolved
from roofline_bench.run import Run, execute
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES
from roofline_golden import QFormat, fixed

LOG = logging.getLogger("sequential_design")
LOG.addHandler(logging.NullHandler())
LOG.propagate = False
PERIOD_PS = 10_000
VALUE_BUGS = ("truncate", "ridge", "narrow product", "tie to the last")  # model_design's, on every result
PIPE_BUGS = ("", "late", "early", "synchronous reset", "ready waits for the sink", "valid never reset", "cap X when shown",
             "late and duplicated", *VALUE_BUGS)
INTENSITY_BUGS = ("", "late", "double done", "synchronous reset", "truncate", "div0 not saturated", "never done",
                  "busy never reset", "busy X while dividing", "done held", "done held then busy X", "done held then done X")


@dataclass
class PipeModel:
    """roofline_hierarchy_pipe: LATENCY = 3 + MUL_STAGES register stages moving together.
    late/early: one stage more/less; ready waits for the sink: in_ready_o = out_ready_i; valid never
    reset: out_valid_o and in_ready_o are X (no reset gives the valid bits a value); late and
    cap X when shown: the reset is right, and cap_o is X whenever a result is on show (a data register
    never loaded); late and duplicated: one stage more, and each result shown for a second cycle (the pipe holding its input
    meanwhile); flickers while stalled: a result not taken changes its cap's low bit each stalled cycle, and
    is right whenever it is taken; VALUE_BUGS: the value bugs of model_design, on every result."""

    fmt: QFormat
    levels: int
    mul_stages: int = 1
    bug: str = ""
    stages: list[dict[str, int] | None] = field(init=False)
    shown: dict[str, int] = field(init=False)
    repeated: bool = False  # the result on show has been taken once (late and duplicated)

    def __post_init__(self) -> None:
        depth = 3 + self.mul_stages + {"late": 1, "early": -1, "late and duplicated": 1}.get(self.bug, 0)
        self.stages = [None] * depth
        self.shown = {"cap_o": 0, "mem_bound_o": 0, "binding_o": 0, "level_cap_o": 0}
        self.values = ModelDesign(self.fmt, self.bug if self.bug in VALUE_BUGS else "")

    def advance(self, inputs: dict[str, int]) -> bool:
        if self.bug == "ready waits for the sink":
            return bool(inputs["out_ready_i"])
        if self.bug == "late and duplicated" and self.stages[-1] is not None and not self.repeated:
            return False  # the result stays for a second cycle, taken or not
        return self.stages[-1] is None or bool(inputs["out_ready_i"])

    def output(self, name: str, inputs: dict[str, int]) -> int | str:
        if self.bug == "valid never reset" and name in ("in_ready_o", "out_valid_o"):
            return "x"
        if self.bug == "cap X when shown" and name == "cap_o" and self.stages[-1] is not None:
            return "x"
        if name == "in_ready_o":
            return int(self.advance(inputs))
        if name == "out_valid_o":
            return int(self.stages[-1] is not None)
        return self.shown[name]

    def clock(self, inputs: dict[str, int]) -> None:
        if not self.advance(inputs):
            self.repeated = self.repeated or (self.stages[-1] is not None and bool(inputs["out_ready_i"]))
            if self.bug == "flickers while stalled" and self.stages[-1] is not None:  # right again when taken
                held = self.stages[-1]
                self.shown = {**held, "cap_o": held["cap_o"] ^ 1} if self.shown == held else dict(held)
            return
        self.repeated = False
        entering = None
        if inputs["in_valid_i"]:
            width = self.fmt.width
            unpack = [(inputs[name] >> (level * width)) & self.fmt.max_raw for name in ("bw_i", "ai_i")
                      for level in range(self.levels)]
            entering = self.values.outputs(inputs["peak_i"], tuple(unpack[:self.levels]), tuple(unpack[self.levels:]))
        self.stages = [entering, *self.stages[:-1]]
        if self.stages[-1] is not None:
            self.shown = dict(self.stages[-1])

    def reset(self) -> None:
        self.stages = [None] * len(self.stages)
        self.repeated = False


@dataclass
class IntensityModel:
    """roofline_intensity: a division takes COUNT_BITS + FRAC_BITS + 2 cycles (1 when bytes = 0).
    late: one cycle past the contract's bound; double done: done_o high for two cycles; never
    done: busy for ever; truncate: the quotient rounded down; div0 not saturated: sat_o low on bytes = 0;
    busy never reset: busy_o is X (its register has no reset, so it never gets a value); busy X while
    dividing: the reset is right, and busy_o is X from the fifth cycle of every division; done held: done_o
    stays high from the first result until a reset (its register loads itself); done held then busy X (done
    X): so, and busy_o (done_o) is X from the fifth cycle of every division from the third result on."""

    fmt: QFormat
    count_bits: int
    bug: str = ""
    busy: bool = False
    done: int = 0  # cycles done_o stays high
    left: int = 0
    result: tuple[int, int, int] = (0, 0, 0)
    pending: tuple[int, int, int] = (0, 0, 0)
    finished: int = 0  # results since the last reset

    @property
    def latency(self) -> int:
        bound = self.count_bits + self.fmt.frac_bits + 4
        return bound + 1 if self.bug == "late" else bound - 2

    def output(self, name: str, inputs: dict[str, int]) -> int | str:
        if self.bug == "busy never reset" and name == "busy_o":
            return "x"
        if self.bug == "busy X while dividing" and name == "busy_o" and self.busy and self.left <= self.latency - 5:
            return "x"
        if self.bug == f"done held then {name.removesuffix('_o')} X" and self.busy and self.finished >= 3 \
                and self.left <= self.latency - 5:
            return "x"
        held = self.bug.startswith("done held") and self.finished > 0
        return {"busy_o": int(self.busy), "done_o": int(self.done > 0 or held), "ai_o": self.result[0], "sat_o": self.result[1],
                "div0_o": self.result[2]}[name]

    def quotient(self, ops: int, moved: int) -> tuple[int, int, int]:
        want = fixed.intensity(self.fmt, self.count_bits, ops, moved)
        ai, sat = want.ai, want.sat
        if self.bug == "truncate" and moved and not want.sat:
            ai = min((ops << self.fmt.frac_bits) // moved, self.fmt.max_raw)
        if self.bug == "div0 not saturated" and want.div0:
            sat = False
        return ai, int(sat), int(want.div0)

    def clock(self, inputs: dict[str, int]) -> None:
        self.done = max(0, self.done - 1)
        if self.busy:
            self.left -= 1
            if self.left == 0 and self.bug != "never done":
                self.finish()
            return
        if inputs["start_i"]:
            self.pending = self.quotient(inputs["ops_i"], inputs["bytes_i"])
            self.busy, self.left = True, 1 if inputs["bytes_i"] == 0 else self.latency
            self.left -= 1
            if self.left == 0:
                self.finish()

    def finish(self) -> None:
        self.busy, self.result = False, self.pending
        self.done = 2 if self.bug == "double done" else 1
        self.finished += 1

    def reset(self) -> None:
        self.busy, self.done, self.left, self.finished = False, 0, 0, 0


@dataclass
class CountsModel:
    """roofline_counts: a placement's result after `cycles` cycles from the one start_i is sampled in
    (every placement alike), done_o high for one cycle; the outputs hold until the next result."""

    fmt: QFormat
    count_bits: int
    levels: int
    cycles: int
    again_after: int = 0  # a bug: done_o pulses again this many cycles after each result (0: never)
    busy: bool = False
    done: bool = False
    left: int = 0
    since: int = -1  # cycles since the last result
    result: dict[str, int] = field(default_factory=dict)
    pending: dict[str, int] = field(default_factory=dict)

    def output(self, name: str, inputs: dict[str, int]) -> int:
        if name in ("busy_o", "done_o"):
            return int(self.busy if name == "busy_o" else self.done)
        return self.result.get(name, 0)

    def placed(self, inputs: dict[str, int]) -> dict[str, int]:
        w, c = self.fmt.width, self.count_bits
        bws = [(inputs["bw_i"] >> (level * w)) & self.fmt.max_raw for level in range(self.levels)]
        moved = [(inputs["bytes_i"] >> (level * c)) & ((1 << c) - 1) for level in range(self.levels)]
        want = fixed.counts_hierarchy(self.fmt, c, inputs["peak_i"], bws, inputs["ops_i"], moved)
        packed = sum(cap << (level * w) for level, cap in enumerate(want.level_caps))
        return {"cap_o": want.cap, "level_cap_o": packed, "mem_bound_o": int(want.mem_bound), "binding_o": want.binding}

    def clock(self, inputs: dict[str, int]) -> None:
        self.done = False
        self.since = self.since + 1 if self.since >= 0 else -1
        if self.again_after and self.since == self.again_after:
            self.done = True  # the bug: a second pulse, with no new start
        if not self.busy and inputs["start_i"]:
            self.pending, self.busy, self.left = self.placed(inputs), True, self.cycles
        if self.busy:
            self.left -= 1
            if self.left == 0:
                self.busy, self.done, self.result, self.since = False, True, self.pending, 0

    def reset(self) -> None:
        self.busy, self.done, self.left, self.since = False, False, 0, -1


class ClockedPorts(Ports):
    """A cycle model's ports on a clock of its own; every read is recorded, as the harness does."""

    def __init__(self, model: Any, top: str, values: dict[str, int], tape: Tape, synchronous_reset: bool) -> None:
        self.model, self.tape, self.synchronous = model, tape, synchronous_reset
        self.widths = {port.name: port.bits(values) for port in MODULES[top].ports}
        self.inputs = {port.name: 0 for port in MODULES[top].ports if not port.output}
        self.now = 0  # ps

    def read(self, name: str) -> int:
        self.require(name)
        value = self.model.output(name, self.inputs)
        if isinstance(value, str):
            bits = value * self.width(name)
            self.tape.entries.append(("x", bits))
            raise Unresolved(f"{name} holds X/Z: {bits}")
        self.tape.entries.append(value)
        return value

    def write(self, name: str, value: int) -> None:
        self.require(name)
        self.inputs[name] = value & ((1 << self.widths[name]) - 1)  # type: ignore[operator]
        if name == "rst_ni" and not value and not self.synchronous:
            self.model.reset()

    def start_clock(self, period_ns: int) -> None:
        assert period_ns * 1000 == PERIOD_PS

    def _until(self, then: int) -> None:
        """Time passes to `then`; the model is clocked at every rising edge on the way (then included)."""
        edge = (self.now // PERIOD_PS + 1) * PERIOD_PS
        while edge <= then:
            self._rise()
            edge += PERIOD_PS
        self.now = then

    def _rise(self) -> None:
        if not self.inputs["rst_ni"]:
            self.model.reset()  # an asynchronous reset has already acted; a synchronous one acts here
            return
        self.model.clock(self.inputs)

    async def wait_ns(self, ns: int) -> None:
        self._until(self.now + ns * 1000)

    async def falling_edge(self) -> None:
        half = PERIOD_PS // 2
        self._until(((self.now - half) // PERIOD_PS + 1) * PERIOD_PS + half)

    async def rising_edges(self, count: int) -> None:
        self._until((self.now // PERIOD_PS + count) * PERIOD_PS)

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        started = self.now
        limit = started + periods * PERIOD_PS - PERIOD_PS // 4
        edge = (self.now // PERIOD_PS + 1) * PERIOD_PS
        while edge <= limit and self.model.output(name, self.inputs) != 1:
            self.now = edge
            self._rise()
            edge += PERIOD_PS
        if self.model.output(name, self.inputs) != 1:
            self.now = max(self.now, limit)  # a wait of no period passes no time (never back)
        elapsed = (self.now - started) // PERIOD_PS
        self.tape.entries.append(elapsed)
        return elapsed


def model_for(cfg: BenchConfig, bug: str) -> Any:
    params = cfg.params
    if cfg.top == "roofline_hierarchy_pipe":
        return PipeModel(params.fmt, params.levels, cfg.param_set.mul_stages, bug)
    if cfg.top == "roofline_intensity":
        return IntensityModel(params.fmt, params.count_bits, bug)
    raise ValueError(f"no cycle model of {cfg.top}")


def record(cfg: BenchConfig, test: str, bug: str = "") -> Tape:
    """The tape a run of `test` against the model with `bug` leaves, as the grader writes a simulated design's."""
    params = cfg.params
    values = {"W": params.fmt.width, "LEVELS": params.levels, "INT_BITS": params.fmt.int_bits,
              "FRAC_BITS": params.fmt.frac_bits, "COUNT_BITS": params.count_bits}
    tape = Tape(test, {})
    ports = ClockedPorts(model_for(cfg, bug), cfg.top, values, tape, bug == "synchronous reset")
    tape.widths = dict(ports.widths)
    run_to_end(execute(TESTS[cfg.top][test], Run(cfg, test, ports, Coverage(), LOG)))
    tape.complete = True
    return tape
