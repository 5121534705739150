"""Mutants made by machine: Yosys `mutate` on each module's netlist, each one judged by the benches.

For each target, Yosys elaborates the module at a small format (UQ4.4, so the products are 8 x 8
bits and an equivalence proof is quick) and lists mutations of its word-level netlist: a bit of
a cell's port inverted, tied to 0 or 1, or XORed with a neighbour. Each mutation becomes its own
Verilog netlist and runs through the module's cocotb bench on Icarus. The unmutated netlist must
pass first, or nothing is concluded. A mutant the bench does not kill goes to a formal check:
- combinational modules: Yosys SAT on a miter of original against mutant, for every input;
- sequential modules: Yosys `equiv_make`/`equiv_induct` over the two netlists' registers, an
  induction that holds in every cycle from any state in which the registers agree.
Proved equivalent, no test can kill it. Otherwise the mutant is a test gap and the run fails; for
a sequential one, a bounded search from reset looks for the input trace that tells them apart.
"""

from __future__ import annotations

import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from roofline_core.config import BenchConfig
from roofline_core.contract import CLOCK_PORT, CLOCK_PORTS, MODULES, RESET_PORT, ParamSet, sources_of, tops_with
from roofline_core.paths import BUILD_ROOT, RTL_DIR
from roofline_core.runner import exact_build
from roofline_core.simulator import run_build
from roofline_core.tools import yosys_command

SMALL = ParamSet(4, 4, 2, 16)
TOPS = tops_with("mutants")
# Every test but the documents' cases (their rates do not fit UQ4.4) and the coverage closure.
TESTS = r"^(?!.*(document|functional_coverage)).*$"
SWEEP = 3000
# Cycles searched from reset for a sequential survivor's distinguishing trace: one operation of
# the slowest module at SMALL (roofline_counts: LEVELS * (COUNT_BITS + W + 2) + 2 = 54), and some.
SEARCH_CYCLES = 64


def sequential(top: str) -> bool:
    return any(port in MODULES[top].port_bits(SMALL.for_module(top)) for port in CLOCK_PORTS)


@dataclass(frozen=True)
class Mechanical:
    top: str
    index: int
    command: str  # the `mutate` line Yosys listed

    @property
    def id(self) -> str:
        return f"{self.top.removeprefix('roofline_')}-{self.index:02d}"

    @property
    def describe(self) -> str:
        """mode, cell and bit in a few words: 'inv $mul (roofline_level.sv:27) port B bit 4'."""
        mode = _option(self.command, "mode")
        cell = _option(self.command, "cell")
        kind = re.search(r"\$(\w+)\$", cell)
        where = re.search(r"([\w.]+\.sv):(\d+)", cell)
        text = f"{mode} ${kind.group(1) if kind else cell}"
        if where:
            text += f" ({where.group(1)}:{where.group(2)})"
        return text + f" port {_option(self.command, 'port')} bit {_option(self.command, 'portbit')}"


@dataclass(frozen=True)
class MechanicalVerdict:
    mutant: Mechanical
    outcome: str  # killed, equivalent, test gap, error
    detail: str
    seconds: float


def _option(command: str, name: str) -> str:
    match = re.search(rf"-{name} (\S+)", command)
    return match.group(1) if match else "?"


def elaborate_script(top: str) -> str:
    files = " ".join(str(RTL_DIR / f"{stem}.sv") for stem in sources_of([top]))
    params = " ".join(f"-set {k} {v}" for k, v in SMALL.for_module(top).items())
    return f"read_verilog -sv {files}; chparam {params} {top}; hierarchy -top {top}; proc; flatten; opt"


def yosys(script: str, log: Path) -> subprocess.CompletedProcess:
    run = subprocess.run([*yosys_command(), "-q", "-p", script], capture_output=True, text=True)
    log.write_text(run.stdout + run.stderr)
    return run


def list_mutations(top: str, count: int, seed: int, folder: Path) -> list[Mechanical]:
    yosys_command()  # or a one-line ToolError saying how to get Yosys
    folder.mkdir(parents=True, exist_ok=True)
    listing = folder / "mutations.ys"
    run = yosys(f"{elaborate_script(top)}; mutate -list {count} -seed {seed} -o {listing}", folder / "list.log")
    if run.returncode:
        raise RuntimeError(f"yosys could not list mutations of {top}: {run.stderr[-400:]}")
    lines = [line.strip() for line in listing.read_text().splitlines() if line.startswith("mutate ")]
    return [Mechanical(top, index, line) for index, line in enumerate(lines)]


def netlist(top: str, mutation: str | None, path: Path) -> None:
    step = f"{mutation}; opt_clean; " if mutation else ""
    run = yosys(f"{elaborate_script(top)}; {step}write_verilog -noattr {path}", path.with_suffix(".log"))
    if run.returncode:
        raise RuntimeError(f"yosys could not write {path.name}: {run.stderr[-400:]}")


def simulate(top: str, source: Path, seed: int) -> tuple[bool, str]:
    """(killed, first failure): the module's bench against one netlist."""
    folder = source.parent / "sim"
    cfg = BenchConfig(top, "icarus", SMALL, seed, sweep=SWEEP, gates=True)
    build = exact_build(cfg, [source], folder, parameters={})  # the netlist has no parameters left
    try:
        result = run_build(build, testcase=TESTS, quiet=True)
    except SystemExit:
        return True, f"did not build or run (see {folder / 'sim.log'})"
    if result.passed == 0 and result.failed == 0:
        return True, "no test ran"
    return result.failed > 0, (result.failures[0].splitlines()[0] if result.failures else f"{result.passed} tests passed")


def equivalent(top: str, original: Path, mutant: Path) -> tuple[bool, str]:
    return (_equivalent_sequential if sequential(top) else _equivalent_combinational)(top, original, mutant)


def _equivalent_combinational(top: str, original: Path, mutant: Path) -> tuple[bool, str]:
    """Yosys SAT on a miter: True when no input tells the two netlists apart."""
    script = (f"{_gold_and_gate(top, original, mutant)}; "
              "miter -equiv -flatten -make_assert gold gate miter; hierarchy -top miter; "
              "sat -prove-asserts -show-inputs miter")
    run = subprocess.run([*yosys_command(), "-p", script], capture_output=True, text=True, timeout=600)
    if "no model found: SUCCESS" in run.stdout:
        return True, "proved equivalent by SAT (miter of original and mutant)"
    if "model found: FAIL" not in run.stdout:
        raise RuntimeError(f"the equivalence check gave no verdict: {run.stdout[-300:]}{run.stderr[-300:]}")
    return False, f"differs from the original at {_inputs(run.stdout)} (UQ4.4 raw)"


def _equivalent_sequential(top: str, original: Path, mutant: Path) -> tuple[bool, str]:
    """Registers matched by name, then induction: equal registers and inputs give equal outputs and
    equal next registers. Else a bounded search from reset for the trace that tells them apart."""
    # Only ports and register outputs keep their names, so only they are matched: an internal
    # wire the mutation changed need not be equal, only what it drives.
    proof = (f"{_gold_and_gate(top, original, mutant)}; select -set keep i:* o:* %u t:*dff* %co:+[Q] w:* %i %u; "
             "rename -hide w:* @keep %d; async2sync; equiv_make gold gate equiv; hierarchy -top equiv; "
             "equiv_simple -seq 4; equiv_induct -seq 4; equiv_status -assert")
    run = subprocess.run([*yosys_command(), "-p", proof], capture_output=True, text=True, timeout=600)
    if run.returncode == 0:
        return True, "proved equivalent by induction over the matched registers (equiv_induct)"
    if "unproven $equiv cells in 'equiv_status -assert'" not in run.stdout + run.stderr:
        raise RuntimeError(f"the equivalence proof did not run: {run.stdout[-300:]}{run.stderr[-300:]}")
    search = (f"{_gold_and_gate(top, original, mutant)}; miter -equiv -flatten -make_assert -ignore_gold_x gold gate miter; "
              f"hierarchy -top miter; async2sync; sat -seq {SEARCH_CYCLES} -prove-asserts -set-init-zero "
              f"-set-at 1 in_{RESET_PORT} 0 -show-inputs miter")
    run = subprocess.run([*yosys_command(), "-p", search], capture_output=True, text=True, timeout=900)
    if "model found: FAIL" in run.stdout:
        return False, f"differs from the original after reset: {_trace(run.stdout)}"
    if "no model found: SUCCESS" not in run.stdout:
        raise RuntimeError(f"the search from reset gave no verdict: {run.stdout[-300:]}{run.stderr[-300:]}")
    return False, f"not proved equivalent, and no difference within {SEARCH_CYCLES} cycles of reset"


def _gold_and_gate(top: str, original: Path, mutant: Path) -> str:
    return f"read_verilog {original}; rename {top} gold; read_verilog {mutant}; rename {top} gate; proc"


def _input_rows(output: str) -> list[tuple[int, str, str]]:
    """(step, input, hex value) of each row Yosys's `sat -show-inputs` printed (step 0 when combinational)."""
    rows = re.findall(r"^\s*(\d+\s+)?\\in_(\w+)\s+\d+\s+([0-9a-fx]+)\s", output, re.MULTILINE)
    return [(int(step or 0), name, value) for step, name, value in rows]


def _trace(output: str) -> str:
    """The inputs of a counterexample from reset, one group per clock where any of them changed."""
    steps: dict[int, dict[str, str]] = {}
    for step, name, value in _input_rows(output):
        if name != CLOCK_PORT:
            steps.setdefault(step, {})[name] = value
    shown, last = [], {}
    for step in sorted(steps):
        changed = {name: value for name, value in steps[step].items() if last.get(name) != value}
        last = steps[step]
        if changed:
            shown.append(f"clock {step}: " + " ".join(f"{name}=0x{value}" for name, value in changed.items()))
    return "; ".join(shown) if shown else "see the Yosys log"


def _inputs(output: str) -> str:
    rows = _input_rows(output)[:12]
    return ", ".join(f"{name} = 0x{value}" for _, name, value in rows) or "see the Yosys log"


def judge(mutant: Mechanical, original: Path, seed: int) -> MechanicalVerdict:
    started = time.monotonic()
    folder = BUILD_ROOT / "mutants-yosys" / mutant.id
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / f"{mutant.top}.v"
    try:
        netlist(mutant.top, mutant.command, source)
        killed, detail = simulate(mutant.top, source, seed)
        if killed:
            return MechanicalVerdict(mutant, "killed", detail, time.monotonic() - started)
        same, proof = equivalent(mutant.top, original, source)
    except (RuntimeError, subprocess.TimeoutExpired) as problem:
        return MechanicalVerdict(mutant, "error", str(problem), time.monotonic() - started)
    return MechanicalVerdict(mutant, "equivalent" if same else "test gap", proof, time.monotonic() - started)


def baseline(top: str, seed: int) -> tuple[Path | None, str]:
    """The unmutated netlist, and whether the bench passes it (mutants prove nothing otherwise)."""
    folder = BUILD_ROOT / "mutants-yosys" / f"{top}-original"
    folder.mkdir(parents=True, exist_ok=True)
    original = folder / f"{top}.v"
    netlist(top, None, original)
    failed, detail = simulate(top, original, seed)
    return (None, detail) if failed else (original, detail)
