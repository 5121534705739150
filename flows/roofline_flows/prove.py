"""`make prove`: properties of the RTL, proved two ways, and one table of every verdict.

- Combinational properties with Yosys's SAT solver (`sat -prove-asserts`): each an assertion in
  flows/formal/props_*.sv, enabled by its own macro, proved in its own Yosys run.
- Sequential ones with SymbiYosys (flows/formal/sby/*.sby, run by sby.py): k-induction, so they
  hold in every cycle, and covers that must all be reached.

A failure prints the counterexample, decoded into the format's units (and for SymbiYosys the
path of its waveform).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from roofline_golden import QFormat, format_fraction
from roofline_tb.contract import PORT_UNITS, modules_with, sources_of
from roofline_tb.paths import BUILD_ROOT, FORMAL_DIR
from roofline_tb.sources import rtl_sources
from roofline_tb.tools import ToolError, tool_version, yosys_command

from . import sby


@dataclass(frozen=True)
class Property:
    name: str
    claim: str
    top: str
    macro: str
    params: dict[str, int]
    cut_multipliers: bool = False  # products become free inputs: every product, not only ai * bw
    depth: int = 0  # > 0: bounded model checking from reset to this many cycles
    units: dict[str, str] = field(default_factory=dict)  # input name -> unit, for counterexamples

    @property
    def fmt(self) -> QFormat:
        return QFormat(self.params.get("INT_BITS", 24), self.params.get("FRAC_BITS", 16))

    @property
    def where(self) -> str:
        extra = ", ".join(f"{k}={v}" for k, v in self.params.items() if k not in ("INT_BITS", "FRAC_BITS"))
        if "INT_BITS" not in self.params:
            return f"{self.top}, {extra}"
        return f"{self.top}, {self.fmt.name}" + (f", {extra}" if extra else "")


DEFAULT = {"INT_BITS": 24, "FRAC_BITS": 16}
RATES = PORT_UNITS

PROPERTIES = (
    Property("round_cap.cap_le_peak", "cap <= peak, for every peak and every full-precision product",
             "props_round_cap", "PROP_CAP_LE_PEAK", DEFAULT, units=RATES),
    Property("round_cap.verdict", "mem_bound == (product < peak * 2^F), every peak and product",
             "props_round_cap", "PROP_VERDICT", DEFAULT, units=RATES),
    Property("round_cap.cap_is_a_term", "cap == round(product) (ties up) when memory-bound, else peak",
             "props_round_cap", "PROP_CAP_IS_A_TERM", DEFAULT, units=RATES),
    Property("attainable.cap_le_peak", "cap_o <= peak_i for every input, multiplier included",
             "props_attainable", "PROP_CAP_LE_PEAK", DEFAULT, units=RATES),
    Property("attainable.verdict", "mem_bound_o == (ai_i * bw_i < peak_i * 2^F) for every input",
             "props_attainable", "PROP_VERDICT", DEFAULT, units=RATES),
    Property("attainable.cap_is_a_term", "cap_o == round(ai_i * bw_i) when memory-bound, else peak_i",
             "props_attainable", "PROP_CAP_IS_A_TERM", DEFAULT, units=RATES),
    Property("hierarchy.cap_le_peak", "cap_o <= peak_i, every input and every level product",
             "props_hierarchy", "PROP_CAP_LE_PEAK", {**DEFAULT, "LEVELS": 3}, cut_multipliers=True, units=RATES),
    Property("hierarchy.compute_binds_iff_none_bound", "binding_o == LEVELS exactly when no level is memory-bound; "
             "then cap_o == peak_i", "props_hierarchy", "PROP_COMPUTE_BINDS_IFF_NO_LEVEL_IS_MEMORY_BOUND",
             {**DEFAULT, "LEVELS": 3}, cut_multipliers=True, units=RATES),
    Property("hierarchy.binding_cap_is_its_level_cap", "cap_o == level_cap_o[binding_o] when a level binds",
             "props_hierarchy", "PROP_BINDING_CAP_IS_ITS_LEVEL_CAP", {**DEFAULT, "LEVELS": 3}, cut_multipliers=True,
             units=RATES),
    Property("hierarchy.binding_cap_is_the_lowest", "cap_o <= level_cap_o[l] for every level l",
             "props_hierarchy", "PROP_BINDING_CAP_IS_THE_LOWEST", {**DEFAULT, "LEVELS": 3}, cut_multipliers=True,
             units=RATES),
    Property("div_step.divides", "2 * remainder + bit == quotient bit * divisor + new remainder < divisor, "
             "when remainder < divisor", "props_div_step", "PROP_DIVIDES", {"WIDTH": 64, "QUOTIENT_W": 41}),
    Property("div_step.shifts", "the quotient moves up one bit, its top bit to carry_out_o", "props_div_step",
             "PROP_SHIFTS", {"WIDTH": 64, "QUOTIENT_W": 41}),
    *(
        Property(f"pipe.equals_combinational.mul{stages}",
                 f"roofline_hierarchy_pipe (MUL_STAGES={stages}) == roofline_hierarchy, LATENCY cycles later",
                 "props_pipe_equiv", "PROP_PIPE_EQUALS_COMBINATIONAL",
                 {"INT_BITS": 3, "FRAC_BITS": 3, "LEVELS": 2, "MUL_STAGES": stages}, depth=3 + stages + 3, units=RATES)
        for stages in (1, 2, 3, 4)
    ),
    Property("pipe.one_result_per_clock", "always ready, and a result on every clock after the latency",
             "props_pipe_equiv", "PROP_ONE_RESULT_PER_CLOCK", {"INT_BITS": 3, "FRAC_BITS": 3, "LEVELS": 2, "MUL_STAGES": 1},
             depth=8, units=RATES),
)


@dataclass(frozen=True)
class Verdict:
    prop: Property
    proved: bool
    seconds: float
    detail: str


def yosys_script(prop: Property, drop_in: str | None = None) -> str:
    by_name = {path.name.removesuffix(".v").removesuffix(".sv"): path for path in rtl_sources(drop_in)}
    files = " ".join(str(by_name[stem]) for stem in sources_of(modules_with("prove")))
    chparams = " ".join(f"-set {name} {value}" for name, value in prop.params.items())
    steps = [
        f"read_verilog -sv -formal -D{prop.macro} {files} {FORMAL_DIR / (prop.top + '.sv')}",
        f"chparam {chparams} {prop.top}",
        f"prep -top {prop.top}",
        "flatten",
    ]
    if prop.cut_multipliers:
        steps.append("cutpoint t:$mul")
    steps += ["opt -full", "async2sync"]
    if prop.depth:
        steps.append(f"sat -prove-asserts -seq {prop.depth} -set-init-zero -show-inputs")
    else:
        steps.append("sat -prove-asserts -show-inputs")
    return "; ".join(steps)


def prove(prop: Property, log_dir: Path, timeout: float, drop_in: str | None = None,
          yosys: list[str] | None = None) -> Verdict:
    started = time.monotonic()
    try:
        run = subprocess.run([*(yosys or ["yosys"]), "-p", yosys_script(prop, drop_in)], capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return Verdict(prop, False, time.monotonic() - started, f"TIMEOUT: no verdict within {timeout:.0f} s")
    seconds = time.monotonic() - started
    log = log_dir / f"{prop.name}.log"
    log.write_text(run.stdout + run.stderr)
    output = run.stdout + run.stderr
    if "SAT proof finished - no model found: SUCCESS!" in output and run.returncode == 0:
        return Verdict(prop, True, seconds, "")
    if "SAT proof finished - model found: FAIL!" in output or "SAT temporal induction proof finished" in output:
        return Verdict(prop, False, seconds, counterexample(prop, output) + f"\n    log: {log}")
    errors = [line for line in output.splitlines() if "ERROR" in line]
    return Verdict(prop, False, seconds, "Yosys could not run the proof: " + ("; ".join(errors) or f"see {log}"))


_ROW = re.compile(r"^\s*(?:(\d+)\s+)?\\(\S+)\s+(\S+)\s+([0-9a-fA-FxX-]+)\s+([01xz-]+)\s*$")


def counterexample(prop: Property, output: str) -> str:
    """The input values of Yosys's model, in hex and decoded in units."""
    fmt = prop.fmt
    lines = ["counterexample:"]
    for row in output.splitlines():
        match = _ROW.match(row)
        if not match:
            continue
        step, name, _, _, bits = match.groups()
        if name not in prop.units or "x" in bits or "-" in bits:
            continue
        value = int(bits, 2)
        when = f"step {step}: " if step else ""
        lines.append(f"    {when}{name} = {decode(fmt, name, value, len(bits), prop.units[name])}")
    return "\n".join(lines) if len(lines) > 1 else "counterexample: (Yosys printed no input values; see the log)"


def decode(fmt: QFormat, name: str, value: int, width: int, unit: str) -> str:
    """A bus of one or more W-bit fields (or a full-precision 2W-bit product) in hex and units."""
    if name.startswith("product"):  # a full-precision ai * bw, 2W bits
        return f"{value:#x} (ai*bw = {format_fraction(Fraction(value, 1 << (2 * fmt.frac_bits)))} {unit})"
    fields = [(value >> (i * fmt.width)) & fmt.max_raw for i in range(max(1, width // fmt.width))]
    described = [fmt.describe(f, unit) for f in fields]
    return described[0] if len(described) == 1 else "; ".join(f"[{i}] {d}" for i, d in enumerate(described))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make prove", description=__doc__)
    parser.add_argument("-k", "--only", default=None, help="run only properties and tasks whose name contains this")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per property or task")
    parser.add_argument("--rtl", default=None, help="drop-in RTL file(s) or folder (RTL=)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="SymbiYosys tasks run at once")
    args = parser.parse_args(argv)
    chosen = [p for p in PROPERTIES if args.only is None or args.only in p.name]
    sby_tasks = [t for t in sby.tasks() if args.only is None or args.only in f"{t.unit}.{t.name}"]
    if not chosen and not sby_tasks:
        print(f"error: no property or task name contains {args.only!r}", file=sys.stderr)
        return 2
    try:
        yosys = yosys_command()
        command, tools = sby.toolchain() if sby_tasks else ([], "")
    except ToolError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    log_dir = BUILD_ROOT / "prove"
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"make prove: {len(chosen)} Yosys SAT properties ({tool_version(yosys)}) and {len(sby_tasks)} SymbiYosys tasks "
          f"({tools}); logs in {log_dir}", flush=True)
    rows: list[tuple[str, str, str, str, bool, str, float, list[str]]] = []
    for prop in chosen:
        verdict = prove(prop, log_dir, args.timeout, args.rtl, yosys)
        mode = f"BMC from reset, depth {prop.depth}" if prop.depth else "SAT, every input" + (
            " (products free)" if prop.cut_multipliers else "")
        rows.append((prop.name, prop.top.removeprefix("props_"), prop.where.split(", ", 1)[-1], mode, verdict.proved,
                     "proved" if verdict.proved else "FAILED", verdict.seconds, verdict.detail.splitlines()))
        print(f"  {'PROVED' if verdict.proved else 'FAILED'} {prop.name} ({verdict.seconds:.1f} s)", flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(lambda t: sby.run(t, log_dir / "sby", command, args.timeout, args.rtl), sby_tasks):
            task = outcome.task
            mode = {"prove": "k-induction", "bmc": "BMC from reset"}.get(task.mode, task.mode)
            rows.append((task.name, task.unit, task.where, mode, outcome.passed, outcome.summary, outcome.seconds,
                         outcome.detail))
            print(f"  {'PROVED' if outcome.passed else 'FAILED'} {task.unit}.{task.name} ({outcome.seconds:.1f} s)",
                  flush=True)
    print_table(rows)
    failed = sum(1 for row in rows if not row[4])
    print(f"make prove: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


def print_table(rows: list[tuple[str, str, str, str, bool, str, float, list[str]]]) -> None:
    header = ("property", "unit", "parameters", "mode", "result", "time")
    cells = [(name, unit, where, mode, summary if ok else f"FAILED: {summary}", f"{seconds:.1f} s")
             for name, unit, where, mode, ok, summary, seconds, _ in rows]
    widths = [max(len(str(c[i])) for c in [header, *cells]) for i in range(len(header))]
    print()
    for row in [header, tuple("-" * w for w in widths), *cells]:
        print("  " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    for name, unit, _, _, ok, _, _, detail in rows:
        if not ok:
            print(f"\n{unit}.{name}:")
            for line in detail:
                print(f"    {line}")


if __name__ == "__main__":
    sys.exit(main())
