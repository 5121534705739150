"""The contract table: what the project knows about each RTL module, in one place.

For every module: its parameters and defaults, its ports (name, direction, width as an
expression over the parameters), whether it is clocked, its source files, its functional
coverage, and which flows apply. Every tool reads this table; no other file lists modules or
ports. `tests/core/test_contract.py` checks the table against the RTL (Yosys reads the same ports),
the benches and the flows.

Adding a top-level module: its RTL in rtl/, its bench in tb/cocotb_tests/test_<module>.py, and one
`Module` entry below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field

from roofline_golden import QFormat, cases, defaults
from roofline_golden.cases import Params

# ---------------------------------------------------------------- parameter sets


@dataclass(frozen=True)
class ParamSet:
    """One parameterization of the RTL; `tag` names its build folder and test id."""

    int_bits: int = defaults.INT_BITS
    frac_bits: int = defaults.FRAC_BITS
    levels: int = defaults.LEVELS
    count_bits: int = defaults.COUNT_BITS
    mul_stages: int = defaults.MUL_STAGES  # roofline_hierarchy_pipe's multiplication stages

    @property
    def tag(self) -> str:
        tag = f"uq{self.int_bits}_{self.frac_bits}-l{self.levels}-c{self.count_bits}"
        return tag + (f"-m{self.mul_stages}" if self.mul_stages != 1 else "")

    @property
    def params(self) -> Params:
        return Params(QFormat(self.int_bits, self.frac_bits), self.levels, self.count_bits)

    def for_parameters(self) -> dict[str, int]:
        """Every parameter this set gives, by its Verilog name."""
        return {name.upper(): value for name, value in dataclasses.asdict(self).items()}

    def for_module(self, top: str) -> dict[str, int]:
        """The Verilog parameters that `top` takes, at this set's values."""
        return {name: getattr(self, name.lower()) for name in MODULES[top].parameters}


# The regression's parameter sets: the default format (always first), a FRAC_BITS other than 16,
# a small format, and the deepest multiply; LEVELS 3, 4, 1 and 2; counts of 64, 48, 16 and 32 bits;
# the pipeline's multiply in 1, 2, 3 and 4 stages. UQ20.12 has 32 bits, so MUL_STAGES 4 splits ai
# into eight 4-bit slices with no padding: every stage of its sum tree carries real bits.
PARAM_SETS = (
    ParamSet(),
    ParamSet(16, 12, 4, 48, mul_stages=2),
    ParamSet(8, 8, 1, 16, mul_stages=3),
    ParamSet(20, 12, 2, 32, mul_stages=4),
)
DEFAULT_SET = PARAM_SETS[0]
SMALL_SET = PARAM_SETS[2]
# The pipeline's sum tree pads ai to CHUNKS = 2^(MUL_STAGES-1) slices of ceil(W / CHUNKS) bits. Every
# regression set's W is a multiple of its CHUNKS, so these sets, one per MUL_STAGES above 1, give W
# that is not: 9 bits in 2 slices, 10 in 4, 13 in 8 (the top slice is part padding). The pipeline's
# bench runs them (make test on Icarus, make test-all on both simulators); make lint lints them.
PADDING_SETS = (
    ParamSet(5, 4, 2, mul_stages=2),
    ParamSet(6, 4, 3, mul_stages=3),
    ParamSet(9, 4, 1, mul_stages=4),
)
PADDED_TOP = "roofline_hierarchy_pipe"

# ---------------------------------------------------------------- ports

def clog2(value: int) -> int:
    """Verilog's $clog2: bits needed to count value things (0 for 0 and 1)."""
    return max(0, (value - 1).bit_length())


def evaluate(expression: str, values: Mapping[str, int]) -> int:
    """A width expression: integers, + - *, the module's parameters and the RTL's derived widths,
    W = INT_BITS + FRAC_BITS and IDX_W = $clog2(LEVELS + 1)."""
    names = dict(values)
    if "INT_BITS" in names and "FRAC_BITS" in names:
        names["W"] = names["INT_BITS"] + names["FRAC_BITS"]
    if "LEVELS" in names:
        names["IDX_W"] = clog2(names["LEVELS"] + 1)
    return cases.evaluate(expression, names)


@dataclass(frozen=True)
class Port:
    name: str
    direction: str  # "input" or "output"
    width: str = "1"  # an expression over the module's parameters, W and IDX_W (see `evaluate`)

    @property
    def output(self) -> bool:
        return self.direction == "output"

    def bits(self, values: Mapping[str, int]) -> int:
        return evaluate(self.width, values)


def _inputs(*names_widths: tuple[str, str]) -> tuple[Port, ...]:
    return tuple(Port(name, "input", width) for name, width in names_widths)


def _outputs(*names_widths: tuple[str, str]) -> tuple[Port, ...]:
    return tuple(Port(name, "output", width) for name, width in names_widths)


CLOCK = _inputs(("clk_i", "1"), ("rst_ni", "1"))
CLOCK_PORTS = tuple(port.name for port in CLOCK)
CLOCK_PORT, RESET_PORT = CLOCK_PORTS  # the reset is active low
# The unit of each rate port's value, for reports and decoded counterexamples.
PORT_UNITS = {"peak_i": "GFLOP/s", "bw_i": "GB/s", "ai_i": "FLOP/B", "product_i": "GFLOP/s", "cap_o": "GFLOP/s",
              "level_cap_o": "GFLOP/s", "ops_i": "FLOP", "bytes_i": "B", "ai_o": "FLOP/B"}
RATES_IN = _inputs(("peak_i", "W"), ("bw_i", "LEVELS*W"), ("ai_i", "LEVELS*W"))
HIERARCHY_OUT = _outputs(("cap_o", "W"), ("level_cap_o", "LEVELS*W"), ("mem_bound_o", "1"),
                         ("binding_o", "IDX_W"))

# ---------------------------------------------------------------- modules

FLOWS = (
    "bench",  # a cocotb bench in tb/cocotb_tests/, run by make sim and make test at every parameter set
    "unit",  # a building block's own cocotb bench (tb/roofline_bench/<unit>.py), at each of its lint sets
    "bulk",  # make sweep streams it through the bulk testbench
    "gates",  # make sim GATES=1 simulates its Yosys netlist
    "prove",  # make prove has a property harness (flows/formal) around it
    "synth",  # make synth: generic synthesis at the default and the small set
    "mutants",  # make mutants: Yosys mutate mutants of its word-level netlist, survivors judged formally
    "lab",  # a course lab may grade it
    "shell",  # lab 6's port shell stands in for it: students' testbenches drive its ports, the grader answers
)


@dataclass(frozen=True)
class FpgaRun:
    label: str
    param_set: ParamSet
    device: str = "hx8k"  # hx8k, up5k (iCE40) or ecp5-85k
    seeds: tuple[int, ...] = (1,)  # nextpnr placer seeds; with several, the median Fmax is reported


@dataclass(frozen=True)
class Module:
    name: str
    summary: str
    parameters: dict[str, int]  # name -> default, in declaration order
    ports: tuple[Port, ...]  # in declaration order, clk_i and rst_ni included
    sources: tuple[str, ...]  # rtl/ file stems it needs, dependencies first, itself last
    flows: frozenset[str] = frozenset()
    coverage: tuple[str, ...] = ()  # functional-coverage bin sets (roofline_cocotb.functional_coverage)
    fpga: tuple[FpgaRun, ...] = ()  # make synth's place-and-route runs (iCE40, ECP5)
    lint_sets: tuple[dict[str, int], ...] = ()  # modules without a bench: the values make lint uses
    cli: str = ""  # what `roofline place --rtl` sends through it: "rates" or "counts"

    @property
    def clocked(self) -> bool:
        return any(port.name == "clk_i" for port in self.ports)

    @property
    def top(self) -> bool:
        """A top-level module: it has a bench and runs in the regression."""
        return "bench" in self.flows

    def port_bits(self, values: Mapping[str, int]) -> dict[str, tuple[str, int]]:
        """Port name -> (direction, width in bits) at these parameter values."""
        return {port.name: (port.direction, port.bits(values)) for port in self.ports}

    def uses(self, flow: str) -> bool:
        if flow not in FLOWS:
            raise ValueError(f"unknown flow {flow!r}")
        return flow in self.flows


FORMAT = {"INT_BITS": defaults.INT_BITS, "FRAC_BITS": defaults.FRAC_BITS}
LEVELS = {"LEVELS": defaults.LEVELS}
COUNTS = {"COUNT_BITS": defaults.COUNT_BITS}
MUL = {"MUL_STAGES": defaults.MUL_STAGES}
ALL_TOP_FLOWS = frozenset({"bench", "synth", "lab"})

_TABLE = (
    # Building blocks: no bench of their own; linted at the values given.
    Module("roofline_param_check", "the parameter guard: an out-of-range value stops elaboration with its name",
           {"INT_BITS": 1, "FRAC_BITS": 1, "LEVELS": 1, "COUNT_BITS": 1, "MUL_STAGES": 1, "WIDTH": 1, "QUOTIENT_W": 2}, (),
           ("roofline_param_check",),
           lint_sets=({**DEFAULT_SET.for_parameters(), "MUL_STAGES": 2},)),
    Module("roofline_round_cap", "one level's verdict and rounded cap, from its full-precision product",
           FORMAT, (*_inputs(("peak_i", "W"), ("product_i", "2*W")), *_outputs(("mem_bound_o", "1"), ("cap_o", "W"))),
           ("roofline_param_check", "roofline_round_cap"), frozenset({"prove"}), lint_sets=({"INT_BITS": 8, "FRAC_BITS": 8},)),
    Module("roofline_level", "one level against the compute roof, with its full-precision product",
           FORMAT, (*_inputs(("peak_i", "W"), ("bw_i", "W"), ("ai_i", "W")),
                    *_outputs(("product_o", "2*W"), ("mem_bound_o", "1"), ("cap_o", "W"))),
           ("roofline_param_check", "roofline_round_cap", "roofline_level"),
           lint_sets=({"INT_BITS": 8, "FRAC_BITS": 8},)),
    Module("roofline_binding", "the binding level: the lowest memory-bound product, lowest index on a tie",
           {**FORMAT, **LEVELS},
           (*_inputs(("peak_i", "W"), ("product_i", "LEVELS*2*W"), ("mem_bound_i", "LEVELS"), ("level_cap_i", "LEVELS*W")),
            *_outputs(("cap_o", "W"), ("binding_o", "IDX_W"))),
           ("roofline_param_check", "roofline_binding"), frozenset({"prove"}),
           lint_sets=({"INT_BITS": 8, "FRAC_BITS": 8, "LEVELS": 1}, {**FORMAT, "LEVELS": 4})),
    Module("roofline_pipe_reg", "one valid/ready register stage", {"WIDTH": 1},
           (*CLOCK, *_inputs(("valid_i", "1")), *_outputs(("ready_o", "1")), *_inputs(("data_i", "WIDTH")),
            *_outputs(("valid_o", "1")), *_inputs(("ready_i", "1")), *_outputs(("data_o", "WIDTH"))),
           ("roofline_param_check", "roofline_pipe_reg"), frozenset({"prove", "unit"}), lint_sets=({"WIDTH": 1}, {"WIDTH": 81})),
    Module("roofline_div_step", "one restoring-division step, shared by both dividers", {"WIDTH": 8, "QUOTIENT_W": 8},
           (*_inputs(("remainder_i", "WIDTH"), ("next_bit_i", "1"), ("divisor_i", "WIDTH"), ("quotient_i", "QUOTIENT_W")),
            *_outputs(("remainder_o", "WIDTH"), ("quotient_o", "QUOTIENT_W"), ("carry_out_o", "1"))),
           ("roofline_param_check", "roofline_div_step"), frozenset({"prove"}),
           lint_sets=({"WIDTH": 1, "QUOTIENT_W": 2}, {"WIDTH": 64, "QUOTIENT_W": 41})),
    # Top-level modules: each has a bench and runs at every regression parameter set.
    Module("roofline_attainable", "attainable performance of one kernel against one memory level",
           FORMAT, (*_inputs(("peak_i", "W"), ("bw_i", "W"), ("ai_i", "W")), *_outputs(("cap_o", "W"), ("mem_bound_o", "1"))),
           ("roofline_param_check", "roofline_round_cap", "roofline_level", "roofline_attainable"),
           ALL_TOP_FLOWS | {"bulk", "gates", "prove", "mutants", "shell"}, ("rates",),
           fpga=(FpgaRun("small", SMALL_SET),)),
    Module("roofline_hierarchy", "attainable performance against every memory level; the lowest binds",
           {**FORMAT, **LEVELS}, (*RATES_IN, *HIERARCHY_OUT),
           ("roofline_param_check", "roofline_round_cap", "roofline_level", "roofline_binding", "roofline_hierarchy"),
           ALL_TOP_FLOWS | {"bulk", "gates", "prove", "mutants"}, ("rates", "binding", "level ties"), cli="rates",
           fpga=(FpgaRun("small", SMALL_SET), FpgaRun("default-l1", ParamSet(levels=1)))),
    Module("roofline_intensity", "arithmetic intensity from operation and byte counts (a sequential divider)",
           {**FORMAT, **COUNTS},
           (*CLOCK, *_inputs(("start_i", "1"), ("ops_i", "COUNT_BITS"), ("bytes_i", "COUNT_BITS")),
            *_outputs(("busy_o", "1"), ("done_o", "1"), ("ai_o", "W"), ("sat_o", "1"), ("div0_o", "1"))),
           ("roofline_param_check", "roofline_div_step", "roofline_intensity"), ALL_TOP_FLOWS | {"prove", "mutants"},
           ("intensity",),
           fpga=(FpgaRun("small", SMALL_SET),)),
    Module("roofline_hierarchy_pipe", "the hierarchy as a valid/ready pipeline, one result per clock",
           {**FORMAT, **LEVELS, **MUL},
           (*CLOCK, *_inputs(("in_valid_i", "1")), *_outputs(("in_ready_o", "1")), *RATES_IN,
            *_outputs(("out_valid_o", "1")), *_inputs(("out_ready_i", "1")), *HIERARCHY_OUT),
           ("roofline_param_check", "roofline_round_cap", "roofline_binding", "roofline_hierarchy_pipe"),
           ALL_TOP_FLOWS | {"prove", "mutants"}, ("rates", "binding", "level ties", "handshake"),
           fpga=(FpgaRun("small", SMALL_SET), FpgaRun("small", SMALL_SET, "up5k"),
                  FpgaRun("default-l1", ParamSet(levels=1)),
                  FpgaRun("default-l1-mul2", ParamSet(levels=1, mul_stages=2)),
                  FpgaRun("default-l1-mul4", ParamSet(levels=1, mul_stages=4), seeds=(1, 2, 3, 4, 5)),
                  FpgaRun("default", DEFAULT_SET, "ecp5-85k"))),
    Module("roofline_counts", "the hierarchy placed from counts, rounding once", {**FORMAT, **LEVELS, **COUNTS},
           (*CLOCK, *_inputs(("start_i", "1"), ("peak_i", "W"), ("bw_i", "LEVELS*W"), ("ops_i", "COUNT_BITS"),
                             ("bytes_i", "LEVELS*COUNT_BITS")),
            *_outputs(("busy_o", "1"), ("done_o", "1")), *HIERARCHY_OUT),
           ("roofline_param_check", "roofline_div_step", "roofline_counts"), ALL_TOP_FLOWS | {"prove", "mutants"},
           ("counts", "binding"), cli="counts",
           fpga=(FpgaRun("small", SMALL_SET),)),
)

MODULES: dict[str, Module] = {module.name: module for module in _TABLE}
# The modules with a bench, in the order the regression and make sim run them.
TOPS: tuple[str, ...] = tuple(name for name, module in MODULES.items() if module.top)
# The three modules the specification names; the others are the project's own.
CONTRACT_TOPS = ("roofline_attainable", "roofline_hierarchy", "roofline_intensity")


def tops_with(flow: str) -> tuple[str, ...]:
    return tuple(name for name in TOPS if MODULES[name].uses(flow))


def modules_with(flow: str) -> tuple[str, ...]:
    return tuple(name for name, module in MODULES.items() if module.uses(flow))


def cli_module(role: str) -> str:
    (name,) = (name for name, module in MODULES.items() if module.cli == role)
    return name


def sources_of(names: tuple[str, ...] | list[str]) -> list[str]:
    """The rtl/ file stems these modules need, each once, dependencies first."""
    return list(dict.fromkeys(stem for name in names for stem in MODULES[name].sources))


@dataclass(frozen=True)
class LintTarget:
    module: str
    tag: str
    values: dict[str, int] = field(default_factory=dict)


def lint_targets() -> list[LintTarget]:
    """Every module at every set it is linted at: the regression's sets for a top, its own otherwise."""
    targets = []
    for name, module in MODULES.items():
        if module.top:
            sets = PARAM_SETS + (PADDING_SETS if name == PADDED_TOP else ())
            targets += [LintTarget(name, p.tag, p.for_module(name)) for p in sets]
        else:
            targets += [LintTarget(name, "-".join(f"{k.lower()}{v}" for k, v in values.items()), values)
                        for values in module.lint_sets]
    return targets
