"""A failing proof's counterexample, replayed as a bench: `make sim TOP=<unit> ... REPLAY=<trace>`.

SymbiYosys writes each counterexample as a Yosys witness file (trace.yw, JSON) beside its waveform
(trace.vcd): the harness's inputs, which are the unit's inputs, at every clock step, and the
initial values of the registers the solver chose. The replay drives those inputs into the real
design, step by step, and judges what comes out by the bench's own rules, so the bug a proof found
fails in simulation on either simulator:
- a combinational unit: the trace's inputs as one vector, against the golden model and the error bound;
- roofline_intensity and roofline_counts: each start_i sampled while busy_o is low is an operation;
  every done_o must belong to one, within the latency bound, with the golden model's result;
  busy_o and done_o are low during a reset and in the cycle after it, never X;
- roofline_hierarchy_pipe: every input taken comes out once, in order, with the golden model's
  result; a result not taken stays; nothing comes out of an empty pipeline or during a reset.
A register the trace starts at a value of its choosing (the formal tools leave registers without a
reset free) is set to it before the first step when it is one of the unit's output ports.
After the trace, the inputs go idle for as long as the contract allows an answer to take.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from roofline_bench.ports import Unresolved
from roofline_bench.rates import RateChecker, read_hierarchy_outputs
from roofline_bench.run import BenchTest, Run
from roofline_bench.stimulus import RateVector
from roofline_core.contract import CLOCK_PORT, MODULES, RESET_PORT
from roofline_core.scoreboard import Field
from roofline_golden import fixed

CLOCK_NS = 10
SETTLE_NS = 1


class WitnessError(ValueError):
    """The trace cannot be replayed here (not a witness file, or made at other parameters)."""


@dataclass(frozen=True)
class Witness:
    steps: tuple[dict[str, int], ...]  # the unit's inputs at each clock step
    init: dict[str, int]  # the unit's output ports the trace starts at a chosen value
    widths: dict[str, int]


def witness_path(trace: str) -> Path:
    """The witness file of a trace: the .yw beside a .vcd, or the file itself."""
    path = Path(trace)
    found = path.with_suffix(".yw") if path.suffix == ".vcd" else path
    if not found.is_file():
        raise WitnessError(f"REPLAY={trace}: no witness file {found} (SymbiYosys writes trace.yw beside trace.vcd)")
    return found


def load(trace: str, top: str) -> Witness:
    """The unit's inputs at each step, and the output ports it starts at a value, from a witness file."""
    path = witness_path(trace)
    try:
        document = json.loads(path.read_text())
        signals, steps = document["signals"], document["steps"]
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise WitnessError(f"REPLAY={trace}: {path} is not a Yosys witness file ({problem})") from None
    ports = {port.name: port for port in MODULES[top].ports}
    values: list[dict[str, int]] = []
    init: dict[str, int] = {}
    widths: dict[str, int] = {}
    for index, step in enumerate(steps):
        bits = str(step.get("bits", ""))
        number = int(bits, 2) if bits else 0
        offset, found = 0, {}
        for signal in signals:
            if signal.get("init_only") and index:
                continue
            width = int(signal["width"])
            value = (number >> offset) & ((1 << width) - 1)
            offset += width
            names = [part.removeprefix("\\") for part in signal["path"]]
            if len(names) == 1 and names[0] in ports and not ports[names[0]].output and names[0] != CLOCK_PORT:
                found[names[0]] = value
                widths[names[0]] = width
            elif index == 0 and len(names) == 2 and names[0] == "dut" and names[1] in ports and ports[names[1]].output:
                init[names[1]] = value
        if offset != len(bits):
            raise WitnessError(f"REPLAY={trace}: step {index} holds {len(bits)} bits, its signals {offset}")
        values.append(found)
    if not values or not any(values):
        raise WitnessError(f"REPLAY={trace}: no input of {top} in the witness (is it a trace of {top}'s proofs?)")
    return Witness(tuple(values), init, widths)


def _check_widths(run: Run, witness: Witness) -> bool:
    for name, width in witness.widths.items():
        actual = run.ports.widths.get(name)
        if actual != width:
            run.sb.fail("replay", f"REPLAY: {name} is {width} bits in the trace and {actual} here: replay it at the "
                        "parameters of the proof that made it (its printed replay line gives them)", kind="other",
                        event=True)
            return False
    return True


async def replay(run: Run) -> None:
    """The counterexample of a failed proof (REPLAY=), driven into the design and judged by the bench."""
    try:
        witness = load(run.cfg.replay, run.cfg.top)
    except WitnessError as problem:
        run.sb.fail("replay", str(problem), kind="other", event=True)
        return
    if not _check_widths(run, witness):
        return
    run.log.info("replaying %s: %d steps", witness_path(run.cfg.replay), len(witness.steps))
    ports = {port.name for port in MODULES[run.cfg.top].ports}
    if not MODULES[run.cfg.top].clocked:
        last = witness.steps[-1]
        hierarchy = "binding_o" in ports
        levels = run.params.levels if hierarchy else 1
        width = run.params.fmt.width
        unpack = [(last.get(name, 0) >> (level * width)) & run.params.fmt.max_raw
                  for name in ("bw_i", "ai_i") for level in range(levels)]
        vector = RateVector("counterexample", last.get("peak_i", 0), tuple(unpack[:levels]), tuple(unpack[levels:]))
        run.sb.plan(1)
        await RateChecker(run, hierarchy=hierarchy).check("counterexample", "the proof's counterexample", vector)
        return
    if "in_valid_i" in ports:
        await StreamReplay(run, witness).drive()
    else:
        await StartDoneReplay(run, witness).drive()


class ClockedReplay:
    """Drives the trace's inputs at each falling edge and reads the outputs just after."""

    drain_cycles = 0

    def __init__(self, run: Run, witness: Witness) -> None:
        self.run, self.ports, self.sb, self.witness = run, run.ports, run.sb, witness
        self.step = 0
        self.ports.start_clock(CLOCK_NS)

    async def drive(self) -> None:
        for name, value in self.witness.init.items():
            self.ports.write(name, value)  # the register's start, before any edge
        schedule = list(self.witness.steps) + [self.idle()] * self.drain_cycles
        self.run.sb.plan(1)
        for self.step, inputs in enumerate(schedule):
            for name, value in inputs.items():
                self.ports.write(name, value)
            await self.ports.wait_ns(SETTLE_NS)
            try:
                if not self.observe(inputs):
                    return
            except Unresolved as problem:
                self.fail(f"{problem} in step {self.step} of the counterexample", "unresolved")
                return
            await self.ports.falling_edge()
        self.finish()

    def fail(self, message: str, kind: str) -> None:
        self.sb.fail(f"step_{self.step}", f"COUNTEREXAMPLE {self.run.cfg.top}: {message}", kind=kind, event=True)

    def idle(self) -> dict[str, int]:
        """The inputs after the trace: out of reset, nothing new started."""
        return {name: 0 for name in self.witness.steps[0]} | {RESET_PORT: 1}

    def observe(self, inputs: dict[str, int]) -> bool:
        raise NotImplementedError

    def finish(self) -> None:
        self.sb.checked += 1


class StartDoneReplay(ClockedReplay):
    """roofline_intensity and roofline_counts: start_i / busy_o / done_o, results checked at done_o."""

    def __init__(self, run: Run, witness: Witness) -> None:
        super().__init__(run, witness)
        p = run.params
        self.counts = "ai_o" not in {port.name for port in MODULES[run.cfg.top].ports}  # a placement, not an intensity
        counts = self.counts
        self.max_latency = p.levels * (p.count_bits + p.fmt.width + 2) + 2 if counts else p.count_bits + p.fmt.frac_bits + 4
        self.drain_cycles = self.max_latency + 2
        self.flight: deque[tuple[dict[str, int], int]] = deque()  # operands, the step start_i was sampled in
        self.was_reset = False
        self.last: dict[str, int] = {}

    def observe(self, inputs: dict[str, int]) -> bool:
        ports = self.ports
        busy, done = ports.read_bool("busy_o"), ports.read_bool("done_o")
        resetting = not inputs.get(RESET_PORT, 1)
        if resetting or self.was_reset:
            if busy or done:
                when = "during a reset" if resetting else "in the cycle after a reset"
                self.fail(f"{'busy_o' if busy else 'done_o'} is high {when}; it must be low", "reset")
                return False
            self.flight.clear()
        else:
            if done:
                if not self.flight:
                    self.fail("done_o pulsed with no operation in flight", "pulse")
                    return False
                operands, started = self.flight.popleft()
                if not self.judge(operands, self.step - started):
                    return False
            if self.flight and not busy:
                self.fail("busy_o is low while an operation runs: a start now would be taken", "handshake")
                return False
            if busy and not self.flight:
                self.fail("busy_o is high with no operation in flight", "handshake")
                return False
            if self.flight and self.step - self.flight[0][1] > self.max_latency:
                self.fail(f"no done_o within {self.max_latency} cycles of its start", "timeout")
                return False
        if not resetting and not busy and inputs.get("start_i", 0):
            self.flight.append((dict(inputs), self.step))
        self.was_reset = resetting
        return True

    def judge(self, operands: dict[str, int], latency: int) -> bool:
        p = self.run.params
        fmt = p.fmt
        if not self.counts:
            want = fixed.intensity(fmt, p.count_bits, operands.get("ops_i", 0), operands.get("bytes_i", 0))
            fields = [Field("ai_o", want.ai, self.ports.read("ai_o"), "FLOP/B"),
                      Field("sat_o", int(want.sat), int(self.ports.read_bool("sat_o"))),
                      Field("div0_o", int(want.div0), int(self.ports.read_bool("div0_o")))]
            inputs = [f"ops_i = {operands.get('ops_i', 0)} FLOP, bytes_i = {operands.get('bytes_i', 0)} B"]
        else:
            bws = [(operands.get("bw_i", 0) >> (level * fmt.width)) & fmt.max_raw for level in range(p.levels)]
            count_mask = (1 << p.count_bits) - 1
            moved = [(operands.get("bytes_i", 0) >> (level * p.count_bits)) & count_mask for level in range(p.levels)]
            want = fixed.counts_hierarchy(fmt, p.count_bits, operands.get("peak_i", 0), bws, operands.get("ops_i", 0),
                                          moved)
            packed = self.ports.read("level_cap_o")
            fields = [Field("cap_o", want.cap, self.ports.read("cap_o"), "GFLOP/s"),
                      Field("mem_bound_o", int(want.mem_bound), int(self.ports.read_bool("mem_bound_o"))),
                      Field("binding_o", want.binding, self.ports.read("binding_o"), "index")]
            fields += [Field(f"level_cap_o[{level}]", want.level_caps[level], (packed >> (level * fmt.width)) & fmt.max_raw,
                             "GFLOP/s") for level in range(p.levels)]
            inputs = [f"peak_i = {fmt.describe(operands.get('peak_i', 0), 'GFLOP/s')}, ops_i = {operands.get('ops_i', 0)}",
                      f"bw_i = {bws}, bytes_i = {moved}"]
        if latency > self.max_latency:
            self.fail(f"done_o came {latency} cycles after start_i; the bound is {self.max_latency}", "latency")
            return False
        return self.sb.check(f"step_{self.step}", f"the operation of the counterexample's step {self.step - latency}",
                             inputs, fields, [f"done_o came {latency} cycles after start_i"])

    def finish(self) -> None:
        if self.flight:
            self.fail(f"{len(self.flight)} operation(s) of the counterexample never answered", "timeout")
        elif not self.sb.failed:
            self.sb.checked += 1


class StreamReplay(ClockedReplay):
    """roofline_hierarchy_pipe: transfers in and out, in order, against the golden model."""

    def __init__(self, run: Run, witness: Witness) -> None:
        super().__init__(run, witness)
        self.drain_cycles = 3 + run.cfg.param_set.mul_stages + 4
        self.expected: deque[RateVector] = deque()
        self.held: tuple[int, ...] | None = None

    def idle(self) -> dict[str, int]:
        """After the trace: no new input, the sink always ready, so every result in flight comes out."""
        return {"in_valid_i": 0, "out_ready_i": 1, RESET_PORT: 1}

    def observe(self, inputs: dict[str, int]) -> bool:
        if self.step >= len(self.witness.steps):  # the drain keeps the trace's last data inputs
            inputs = {**self.witness.steps[-1], **inputs}
        ports, fmt, levels = self.ports, self.run.params.fmt, self.run.params.levels
        valid = ports.read_bool("out_valid_o")
        if not inputs.get(RESET_PORT, 1):
            if valid:
                self.fail("out_valid_o is high during a reset", "reset")
                return False
            self.expected.clear()
            self.held = None
            return True
        outputs = read_hierarchy_outputs(ports) if valid else None
        if self.held is not None and outputs != self.held:
            self.fail("a result not taken (out_ready_i low) changed or was dropped", "handshake")
            return False
        if valid and inputs.get("out_ready_i", 0):
            if not self.expected:
                self.fail("out_valid_o with nothing in flight", "handshake")
                return False
            vector = self.expected.popleft()
            self.held = None
            if not _judge_stream(self.run, self.step, vector, outputs):
                return False
        elif valid:
            self.held = outputs
        if inputs.get("in_valid_i", 0) and ports.read_bool("in_ready_o"):
            bws = tuple((inputs.get("bw_i", 0) >> (level * fmt.width)) & fmt.max_raw for level in range(levels))
            ais = tuple((inputs.get("ai_i", 0) >> (level * fmt.width)) & fmt.max_raw for level in range(levels))
            self.expected.append(RateVector("counterexample", inputs.get("peak_i", 0), bws, ais))
        return True

    def finish(self) -> None:
        if self.expected:
            self.fail(f"{len(self.expected)} input(s) of the counterexample never came out", "handshake")
        elif not self.sb.failed:
            self.sb.checked += 1


def _judge_stream(run: Run, step: int, vector: RateVector, outputs: tuple[int, ...] | None) -> bool:
    fmt, levels = run.params.fmt, run.params.levels
    assert outputs is not None
    cap, mem_bound, binding, packed = outputs
    want = fixed.hierarchy(fmt, vector.peak, vector.bws, vector.ais)
    fields = [Field("cap_o", want.cap, cap, "GFLOP/s"), Field("mem_bound_o", int(want.mem_bound), int(mem_bound)),
              Field("binding_o", want.binding, binding, "index")]
    fields += [Field(f"level_cap_o[{level}]", want.level_caps[level], (packed >> (level * fmt.width)) & fmt.max_raw,
                     "GFLOP/s") for level in range(levels)]
    inputs = [f"peak_i = {fmt.describe(vector.peak, 'GFLOP/s')}, bw_i = {list(vector.bws)}, ai_i = {list(vector.ais)}"]
    return run.sb.check(f"step_{step}", "a result of the counterexample", inputs, fields)


REPLAY_TEST = BenchTest("replay", replay, (replay.__doc__ or "").strip())

__all__ = ["REPLAY_TEST", "Witness", "WitnessError", "load", "replay"]
