"""The design bank: every design of one format side by side, outside the sandbox, answering the shell's queries.

The student's testbench drives a port shell (port_shell); the grader (port_channel) answers its
queries from the *bank*: every design of the grading, at that format, evaluated on the same
vector: the golden model and the example bugs in Python, the reference RTL and its mutants side
by side in one Icarus process. Every answer costs the same work whichever design is being served,
so neither the files, the hierarchy, the environment nor the time an answer takes says which
design is behind the ports. The bank answers vectors of known inputs only: the channel answers a
vector with an X or Z itself, since each design spreads X its own way.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.contract import MODULES, ParamSet
from roofline_course.labs.designs import Design, DesignError, reference, rtl_files
from roofline_course.testbench_lab.port_shell import SHELL_TOP, TIMESCALE, GraderSideError, Query, build, digits
from roofline_golden import QFormat

BANK_TOP = "roofline_design_bank"


@dataclass
class DesignBank:
    """Every design of one format, in the order of `columns`; `vvp` holds the RTL ones."""

    fmt: QFormat
    columns: list[Design]
    vvp: Path | None = None
    rtl_columns: list[str] = field(default_factory=list)  # the columns the vvp answers, in its order

    def start(self) -> BankRun:
        return BankRun(self)


class BankRun:
    """The bank during one run of a testbench: a fresh RTL process, stopped with close()."""

    def __init__(self, bank: DesignBank) -> None:
        self.bank = bank
        self.width = digits(bank.fmt)
        self.process = None
        if bank.vvp is not None:
            self.process = subprocess.Popen(["vvp", "-n", str(bank.vvp)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def answers(self, query: Query) -> dict[str, tuple[str, str]]:
        """Each column's (cap_o, mem_bound_o), as %h prints them, for one vector of known inputs (the channel
        answers a vector with an X or Z itself: no design is asked)."""
        if query.values is None:
            raise GraderSideError("the bank was asked about a vector with an X or Z input")
        found = {column.column: self._model(column, query.values) for column in self.bank.columns if column.family == "model"}
        if self.process is not None:
            assert self.process.stdin is not None and self.process.stdout is not None
            self.process.stdin.write(" ".join(query.vector) + "\n")
            line = self.process.stdout.readline().split()
            if len(line) != 2 * len(self.bank.rtl_columns):
                raise GraderSideError("the RTL bank stopped answering")
            found |= {name: (line[2 * i], line[2 * i + 1]) for i, name in enumerate(self.bank.rtl_columns)}
        return found

    def _model(self, design: Design, values: tuple[int, int, int]) -> tuple[str, str]:
        cap, mem_bound = design.model(self.bank.fmt, *values)
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


def build_bank(designs: list[Design], param_set: ParamSet, folder: Path) -> DesignBank:
    """The bank of these designs (all at `param_set`), with the reference of each family they need."""
    fmt = param_set.params.fmt
    columns: dict[str, Design] = {}
    for design in [reference("model", param_set), *designs]:
        columns.setdefault(design.column, design)
        columns.setdefault(reference(design.family, param_set).column, reference(design.family, param_set))
    rtl = [design for design in columns.values() if design.family == "rtl"]
    bank = DesignBank(fmt, list(columns.values()))
    if rtl:
        bank.vvp = _compile_rtl(rtl, param_set, folder)
        bank.rtl_columns = [design.column for design in rtl]
    return bank


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
            raise GraderSideError(f"{design.id}: {problem}") from None
        for path in originals:
            files.append(own / path.name)
            files[-1].write_text(module_names.sub(rf"d{index}_\1", path.read_text()))
    top = folder / "bank.sv"
    top.write_text(_panel_top(len(designs), param_set))
    target = folder / "bank.vvp"
    commands = folder / "cmds.f"
    commands.write_text(TIMESCALE + "\n")  # Icarus takes +timescale only from a command file
    build(["iverilog", "-g2012", "-f", str(commands), "-o", str(target), "-s", BANK_TOP, str(top), *map(str, files)],
          "the RTL bank")
    return target


def _panel_top(count: int, param_set: ParamSet) -> str:
    params = ", ".join(f".{name}({value})" for name, value in param_set.for_module(SHELL_TOP).items())
    width = param_set.int_bits + param_set.frac_bits
    lines = ["`timescale 1ns/1ps", f"module {BANK_TOP};", f"  reg [{width - 1}:0] peak, bw, ai;", "  integer got;"]
    for k in range(count):
        lines += [f"  wire [{width - 1}:0] cap_{k};", f"  wire mb_{k};",
                  f"  d{k}_{SHELL_TOP} #({params}) u{k} (.peak_i(peak), .bw_i(bw), .ai_i(ai), .cap_o(cap_{k}), "
                  f".mem_bound_o(mb_{k}));"]
    outputs = ", ".join(f"cap_{k}, mb_{k}" for k in range(count))
    lines += ["  initial forever begin", '    got = $fscanf(32\'h8000_0000, "%h %h %h", peak, bw, ai);',
              "    if (got != 3) $finish;", "    #1;", f'    $display("{" ".join(["%h %h"] * count)}", {outputs});',
              "    $fflush;", "  end", "endmodule", ""]
    return "\n".join(lines)
