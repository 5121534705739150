"""A design without a simulator, for judging tests: combinational ports answered by a model of the
unit (the golden model's arithmetic with one bug put in by name), its reads written on a Tape exactly
as the grader writes a simulated design's (roofline_bench.remote), so the real bench, judge and hints
run on what it "did"."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from roofline_bench.benches import TESTS
from roofline_bench.coverage import Coverage
from roofline_bench.ports import Ports, Unresolved
from roofline_bench.run import Run, execute
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import MODULES
from roofline_golden import QFormat

LOG = logging.getLogger("model_design")
BUGS = ("", "zero", "ridge", "truncate", "narrow product", "tie to the last", "x on zero")


@dataclass(frozen=True)
class ModelDesign:
    """roofline_attainable or roofline_hierarchy, right or with one bug:
    zero: computes nothing; ridge: memory-bound at the ridge (<= for <); truncate: drops the
    fraction instead of rounding; narrow product: ai*bw kept to W bits; tie to the last: the last
    of equal levels binds; x on zero: cap_o is X when ai is 0."""

    fmt: QFormat
    bug: str = ""

    def level(self, peak: int, bw: int, ai: int) -> tuple[int, bool, int]:
        """(cap, memory-bound, the product compared) of one level."""
        f = self.fmt.frac_bits
        product = ai * bw
        if self.bug == "narrow product":
            product &= (1 << self.fmt.width) - 1
        memory = product <= peak << f if self.bug == "ridge" else product < peak << f
        rounded = (product >> f) if self.bug == "truncate" else (product + (1 << (f - 1))) >> f
        return (min(rounded, self.fmt.max_raw, peak) if memory else peak), memory, product

    def outputs(self, peak: int, bws: tuple[int, ...], ais: tuple[int, ...]) -> dict[str, int | str]:
        if self.bug == "zero":
            return {"cap_o": 0, "mem_bound_o": 0, "binding_o": 0, "level_cap_o": 0}
        levels = [self.level(peak, bw, ai) for bw, ai in zip(bws, ais, strict=True)]
        binding = len(levels)
        for index, (_, memory, product) in enumerate(levels):
            if not memory:
                continue
            lower = binding == len(levels) or product < levels[binding][2]
            if lower or (self.bug == "tie to the last" and product == levels[binding][2]):
                binding = index
        cap: int | str = levels[binding][0] if binding < len(levels) else peak
        if self.bug == "x on zero" and 0 in ais:
            cap = "x" * self.fmt.width
        packed = sum(level[0] << (i * self.fmt.width) for i, level in enumerate(levels))
        return {"cap_o": cap, "mem_bound_o": int(binding < len(levels)), "binding_o": binding, "level_cap_o": packed}


class ModelPorts(Ports):
    """The model's ports: inputs held as written, outputs computed when read, every read on the tape."""

    def __init__(self, design: ModelDesign, top: str, levels: int, tape: Tape) -> None:
        self.design, self.levels, self.tape = design, levels, tape
        width = design.fmt.width
        values = {"W": width, "LEVELS": levels, "INT_BITS": design.fmt.int_bits, "FRAC_BITS": design.fmt.frac_bits}
        self.widths = {port.name: port.bits(values) for port in MODULES[top].ports}
        self.inputs = {"peak_i": 0, "bw_i": 0, "ai_i": 0}

    def _levels(self, name: str) -> tuple[int, ...]:
        width = self.design.fmt.width
        return tuple((self.inputs[name] >> (level * width)) & self.design.fmt.max_raw for level in range(self.levels))

    def read(self, name: str) -> int:
        value = self.design.outputs(self.inputs["peak_i"], self._levels("bw_i"), self._levels("ai_i"))[name]
        if isinstance(value, str):
            self.tape.entries.append(("x", value))
            raise Unresolved(f"{name} holds X/Z: {value}")
        self.tape.entries.append(value)
        return value

    def write(self, name: str, value: int) -> None:
        self.require(name)
        self.inputs[name] = value

    def start_clock(self, period_ns: int) -> None: ...
    async def wait_ns(self, ns: int) -> None: ...
    async def falling_edge(self) -> None: ...
    async def rising_edges(self, count: int) -> None: ...

    async def periods_until_rise(self, name: str, periods: int, period_ns: int) -> int:
        raise AssertionError("a combinational bench does not wait on a clock")


def record(cfg: BenchConfig, test: str, design: ModelDesign) -> Tape:
    """The tape a run of `test` against `design` leaves, as the grader writes a simulated design's."""
    levels = cfg.params.levels if "LEVELS" in MODULES[cfg.top].parameters else 1
    tape = Tape(test, {})
    ports = ModelPorts(design, cfg.top, levels, tape)
    tape.widths = dict(ports.widths)
    run_to_end(execute(TESTS[cfg.top][test], Run(cfg, test, ports, Coverage(), LOG)))
    tape.complete = True
    return tape
