"""The designs of one format side by side, outside the sandbox, and the port shell the student's testbench drives.

A student's testbench never runs in the same simulator as the design it tests. Its simulator
holds the *shell*: a module `roofline_attainable` with the contract's ports and nothing else,
whose outputs come from the grader. Each time an input changes, a second top-level module of the
shell (the plumbing, not under `dut`) writes the inputs to a FIFO and reads the outputs back.
The grader (testbench_relay) answers from the *panel*: every design of the grading, at that
format, evaluated on the same vector: the golden model and the example bugs in Python, the
reference RTL and its mutants side by side in one Icarus process. Every answer costs the same
work whichever design is being served, so neither the files, the hierarchy, the environment nor
the time an answer takes says which design is behind the ports.
"""

from __future__ import annotations

import math
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.contract import MODULES, ParamSet
from roofline_course.testbench_designs import Design, DesignError, reference, rtl_files
from roofline_golden import QFormat

TIMESCALE = "+timescale+1ns/1ps"
ORACLE_PLUSARG = "channel"

# The plumbing is not synthesizable and does not try to be: file I/O on every input change.
SHELL = """`timescale 1ns/1ps
`default_nettype none
// The ports of roofline_attainable and nothing else: the design behind them runs in the grader.
module roofline_attainable #(
  parameter int INT_BITS  = 24,
  parameter int FRAC_BITS = 16
) (
  input  wire [INT_BITS+FRAC_BITS-1:0] peak_i,
  input  wire [INT_BITS+FRAC_BITS-1:0] bw_i,
  input  wire [INT_BITS+FRAC_BITS-1:0] ai_i,
  output reg  [INT_BITS+FRAC_BITS-1:0] cap_o,
  output reg                           mem_bound_o
);
endmodule

// A second top level: each change of the inputs goes to the grader, the outputs come back.
module roofline_port_channel;
  integer query, answer, got;
  reg [8*512-1:0] folder;
  initial begin
    if (!$value$plusargs("channel=%s", folder)) $fatal(1, "no +channel=<folder>");
    query  = $fopen({folder, "/query"}, "w");
    answer = $fopen({folder, "/answer"}, "r");
  end
  always @(roofline_attainable.peak_i, roofline_attainable.bw_i, roofline_attainable.ai_i) begin
    $fdisplay(query, "%h %h %h", roofline_attainable.peak_i, roofline_attainable.bw_i, roofline_attainable.ai_i);
    $fflush(query);
    got = $fscanf(answer, "%h %h", roofline_attainable.cap_o, roofline_attainable.mem_bound_o);
  end
endmodule
`default_nettype wire
"""
# The shell's module is the one its template declares first (a module of the contract table).
SHELL_TOP = re.search(r"^module (\w+)", SHELL, re.M).group(1)
PLUMBING_TOP = re.findall(r"^module (\w+)", SHELL, re.M)[1]
PANEL_TOP = "roofline_panel"
# the outputs the shell reads back from the grader, in the order of its $fscanf (the contract's)
SHELL_OUTPUTS = tuple(port.name for port in MODULES[SHELL_TOP].ports if port.output)


class PanelError(RuntimeError):
    """The grader's own designs could not be built or stopped answering: a grader error, never the student's."""


def digits(fmt: QFormat) -> int:
    """Hex digits of one W-bit port, as Icarus prints it with %h."""
    return math.ceil(fmt.width / 4)


def build(command: list[str], what: str) -> None:
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode:
        raise PanelError(f"{what} did not compile: {(run.stdout + run.stderr).strip()[-1500:]}")


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


@dataclass
class Panel:
    """Every design of one format, in the order of `columns`; `vvp` holds the RTL ones."""

    fmt: QFormat
    columns: list[Design]
    vvp: Path | None = None
    rtl_columns: list[str] = field(default_factory=list)  # the columns the vvp answers, in its order

    def start(self) -> PanelRun:
        return PanelRun(self)


class PanelRun:
    """The panel during one run of a testbench: a fresh RTL process, stopped with close()."""

    def __init__(self, panel: Panel) -> None:
        self.panel = panel
        self.width = digits(panel.fmt)
        self.process = None
        if panel.vvp is not None:
            self.process = subprocess.Popen(["vvp", "-n", str(panel.vvp)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def answers(self, vector: tuple[str, str, str]) -> dict[str, tuple[str, str]]:
        """Each column's (cap_o, mem_bound_o), as %h prints them, for one vector of %h inputs."""
        found = {column.column: self._model(column, vector) for column in self.panel.columns if column.family == "model"}
        if self.process is not None:
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.write(" ".join(vector) + "\n")
            line = self.process.stdout.readline().split()
            if len(line) != 2 * len(self.panel.rtl_columns):
                raise PanelError("the RTL panel stopped answering")
            found |= {name: (line[2 * i], line[2 * i + 1]) for i, name in enumerate(self.panel.rtl_columns)}
        return found

    def _model(self, design: Design, vector: tuple[str, str, str]) -> tuple[str, str]:
        try:
            peak, bw, ai = (int(value, 16) for value in vector)
        except ValueError:  # an X or Z input: the models have no X propagation, so every output is X
            return "x" * self.width, "x"
        cap, mem_bound = design.model(self.panel.fmt, peak, bw, ai)
        return f"{cap:0{self.width}x}", str(int(mem_bound))

    def close(self) -> None:
        if self.process is not None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def build_panel(designs: list[Design], param_set: ParamSet, folder: Path) -> Panel:
    """The panel of these designs (all at `param_set`), with the reference of each family they need."""
    fmt = param_set.params.fmt
    columns: dict[str, Design] = {}
    for design in [reference("model", param_set), *designs]:
        columns.setdefault(design.column, design)
        columns.setdefault(reference(design.family, param_set).column, reference(design.family, param_set))
    rtl = [design for design in columns.values() if design.family == "rtl"]
    panel = Panel(fmt, list(columns.values()))
    if rtl:
        panel.vvp = _compile_rtl(rtl, param_set, folder)
        panel.rtl_columns = [design.column for design in rtl]
    return panel


def _compile_rtl(designs: list[Design], param_set: ParamSet, folder: Path) -> Path:
    """One Icarus build of every RTL design: each design's modules renamed d<k>_<name>, so they sit side by side."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = MODULES[SHELL_TOP].sources
    module_names = re.compile(r"\b(" + "|".join(map(re.escape, sources)) + r")\b")
    files: list[Path] = []
    for index, design in enumerate(designs):
        own = folder / f"d{index}"
        own.mkdir(exist_ok=True)
        try:
            originals = rtl_files(design, sources, own / "edited")
        except (DesignError, OSError) as problem:
            raise PanelError(f"{design.id}: {problem}") from None
        for path in originals:
            files.append(own / path.name)
            files[-1].write_text(module_names.sub(rf"d{index}_\1", path.read_text()))
    top = folder / "panel.sv"
    top.write_text(_panel_top(len(designs), param_set))
    target = folder / "panel.vvp"
    commands = folder / "cmds.f"
    commands.write_text(TIMESCALE + "\n")  # Icarus takes +timescale only from a command file
    build(["iverilog", "-g2012", "-f", str(commands), "-o", str(target), "-s", PANEL_TOP, str(top), *map(str, files)],
          "the RTL panel")
    return target


def _panel_top(count: int, param_set: ParamSet) -> str:
    params = ", ".join(f".{name}({value})" for name, value in param_set.for_module(SHELL_TOP).items())
    width = param_set.int_bits + param_set.frac_bits
    lines = ["`timescale 1ns/1ps", f"module {PANEL_TOP};", f"  reg [{width - 1}:0] peak, bw, ai;", "  integer got;"]
    for k in range(count):
        lines += [f"  wire [{width - 1}:0] cap_{k};", f"  wire mb_{k};",
                  f"  d{k}_{SHELL_TOP} #({params}) u{k} (.peak_i(peak), .bw_i(bw), .ai_i(ai), .cap_o(cap_{k}), "
                  f".mem_bound_o(mb_{k}));"]
    outputs = ", ".join(f"cap_{k}, mb_{k}" for k in range(count))
    lines += ["  initial forever begin", '    got = $fscanf(32\'h8000_0000, "%h %h %h", peak, bw, ai);',
              "    if (got != 3) $finish;", "    #1;", f'    $display("{" ".join(["%h %h"] * count)}", {outputs});',
              "    $fflush;", "  end", "endmodule", ""]
    return "\n".join(lines)
