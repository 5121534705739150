"""The port shell: the module the student's testbench drives, with the contract's ports and nothing behind them.

A student's testbench never runs in the same simulator as the design it tests. Its simulator
holds the *shell*: a module `roofline_attainable` with the contract's ports and nothing else,
whose outputs come from the grader. Each time an input changes, a second top-level module of the
shell (the plumbing, not under `dut`) writes the inputs to a FIFO and reads the outputs back
(port_channel answers them from the design bank). A query is one line: each input as `%h` prints
it (exactly `digits(fmt)` hex digits, an X or Z nibble as x, X, z or Z) and the simulation time in
picoseconds (`%0d`), which lets the grader name the vector a failing test was checking.
"""

from __future__ import annotations

import math
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from roofline_core.contract import MODULES, ParamSet, tops_with
from roofline_golden import QFormat

TIMESCALE = "+timescale+1ns/1ps"
ORACLE_PLUSARG = "channel"
(SHELL_TOP,) = tops_with("shell")  # lab 6's module: the shell has its parameters and ports, from the contract table
PLUMBING_TOP = "roofline_port_channel"
# the inputs the shell sends the grader, in the order of its $fdisplay, and the outputs it reads back, in the
# order of its $fscanf (the contract's)
SHELL_INPUTS = tuple(port.name for port in MODULES[SHELL_TOP].ports if not port.output)
SHELL_OUTPUTS = tuple(port.name for port in MODULES[SHELL_TOP].ports if port.output)


def _range(width: str) -> str:
    """A contract width (`W`, `LEVELS*W`, `1`) as a Verilog range over the module's parameters."""
    if width == "1":
        return ""
    return "[" + re.sub(r"\bW\b", "(INT_BITS+FRAC_BITS)", width) + "-1:0]"


def shell_source(top: str = SHELL_TOP) -> str:
    """The shell: `top` with the contract's parameters and ports and nothing behind them, and the plumbing.
    The plumbing is not synthesizable and does not try to be: file I/O on every input change."""
    module = MODULES[top]
    inputs = [port for port in module.ports if not port.output]
    outputs = [port for port in module.ports if port.output]
    parameters = ",\n".join(f"  parameter int {name} = {value}" for name, value in module.parameters.items())
    ports = ",\n".join(f"  {'output reg ' if port.output else 'input  wire'} {_range(port.width):<24} {port.name}"
                        for port in module.ports)
    ins = ", ".join(f"{top}.{port.name}" for port in inputs)
    outs = ", ".join(f"{top}.{port.name}" for port in outputs)
    return f"""`timescale 1ns/1ps
`default_nettype none
// The ports of {top} and nothing else: the design behind them runs in the grader.
module {top} #(
{parameters}
) (
{ports}
);
endmodule

// A second top level: each change of the inputs goes to the grader, the outputs come back.
// Its time unit is 1 ps, so $time counts picoseconds whatever step the testbench takes.
`timescale 1ps/1ps
module {PLUMBING_TOP};
  integer query, answer, got;
  reg [8*512-1:0] folder;
  initial begin
    if (!$value$plusargs("{ORACLE_PLUSARG}=%s", folder)) $fatal(1, "no +{ORACLE_PLUSARG}=<folder>");
    query  = $fopen({{folder, "/query"}}, "w");
    answer = $fopen({{folder, "/answer"}}, "r");
  end
  always @({ins}) begin
    $fdisplay(query, "{' '.join(['%h'] * len(inputs))} %0d", {ins}, $time);
    $fflush(query);
    got = $fscanf(answer, "{' '.join(['%h'] * len(outputs))}", {outs});
  end
endmodule
`default_nettype wire
"""


SHELL = shell_source()


@dataclass(frozen=True)
class Query:
    """One line of the shell, as the grader read it (port_channel.read_query)."""

    vector: tuple[str, str, str]  # the inputs as %h printed them
    values: tuple[int, int, int] | None  # their values; None when any input holds an X or Z
    time_ps: int


class GraderSideError(RuntimeError):
    """The grader's own designs could not be built or stopped answering: a grader error, never the student's."""


def digits(fmt: QFormat) -> int:
    """Hex digits of one W-bit port, as Icarus prints it with %h."""
    return math.ceil(fmt.width / 4)


def build(command: list[str], what: str) -> None:
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode:
        raise GraderSideError(f"{what} did not compile: {(run.stdout + run.stderr).strip()[-1500:]}")


def build_shell(param_set: ParamSet, folder: Path) -> Path:
    """The shell at this format, compiled once: every run of every design reads the same bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "shell.sv"
    source.write_text(SHELL)
    target = folder / "shell.vvp"
    params = [f"-P{SHELL_TOP}.{name}={value}" for name, value in param_set.for_module(SHELL_TOP).items()]
    build(["iverilog", "-g2012", "-o", str(target), "-s", SHELL_TOP, "-s", PLUMBING_TOP, *params, str(source)], "the port shell")
    target.chmod(0o644)
    return target
