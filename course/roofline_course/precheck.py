"""Before any test: are the files there, does the design compile, are the ports the contract's?

Each problem comes back as a few lines a student can act on: the file and line of a compile
error, the name of a missing port, the width a port has against the width it should have.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from roofline_tb.contract import MODULES, ParamSet
from roofline_tb.sources import DropInError, drop_in_files

MAX_ERRORS = 5
COMPILE_TIMEOUT_S = 60
# iverilog: "file.sv:12: syntax error", "file.sv:12: error: ...", "file.sv:12: sorry: ..."
ERROR_LINE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):\s*(?P<what>(?:syntax error|error|sorry).*)$")
MODULE_DECL = re.compile(r"^\s*module\s+(\w+)", re.MULTILINE)
# System tasks a synthesizable design has no use for; some touch files or the grading machine.
SIMULATION_ONLY = re.compile(
    r"\$(system|fopen|fwrite|fdisplay|fclose|readmem[bh]|writemem[bh]|display|monitor|finish|stop|random|urandom)\b"
)


@dataclass
class Precheck:
    stage: str  # "files", "compile", "forbidden" (a $system call...), "ports" when it failed there, else "ok"
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.stage == "ok"


def expected_parameters(top: str, p: ParamSet) -> dict[str, int]:
    return p.for_module(top)


def expected_ports(top: str, p: ParamSet) -> dict[str, tuple[str, int]]:
    """Port name -> (direction, width) at these parameters, from the contract table."""
    return MODULES[top].port_bits(p.for_module(top))


def find_files(rtl: str) -> tuple[list[Path], str | None]:
    try:
        return drop_in_files(rtl), None
    except DropInError as problem:
        return [], str(problem)


def summarize_compile_errors(output: str, root: Path) -> list[str]:
    """The first few errors as 'file:line: message', paths relative to the submission."""
    errors = []
    for line in output.splitlines():
        if match := ERROR_LINE.match(line.strip()):
            path = Path(match["file"])
            shown = path.relative_to(root) if path.is_absolute() and path.is_relative_to(root) else path.name
            where = f"{shown}:{match['line']}"
            quoted = "" if any(e.startswith(where + ":") for e in errors) else _source_line(path, int(match["line"]))
            errors.append(f"{where}: {match['what']}{quoted}")
    if not errors:
        errors = [line.strip() for line in output.splitlines() if line.strip()][:MAX_ERRORS] or ["(no message)"]
    unique = list(dict.fromkeys(errors))
    extra = len(unique) - MAX_ERRORS
    return unique[:MAX_ERRORS] + ([f"... and {extra} more"] if extra > 0 else [])


def _source_line(path: Path, number: int) -> str:
    """The offending line itself, so the student sees it without opening the file."""
    try:
        text = path.read_text(errors="replace").splitlines()[number - 1].strip()
    except (OSError, IndexError):
        return ""
    return f"\n      | {text[:100]}" if text else ""


SIDE_EFFECT = re.compile(r": \$(system|fopen|fwrite|fdisplay|fclose|writemem[bh]) is")


def simulation_only_calls(files: list[Path], root: Path) -> list[str]:
    """Warnings for system tasks the contract rules out: not synthesizable, and not the grader's business."""
    found = []
    for path in files:
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//", 1)[0]
            if match := SIMULATION_ONLY.search(code):
                shown = path.relative_to(root) if path.is_relative_to(root) else path.name
                found.append(f"{shown}:{number}: ${match[1]} is not synthesizable; the contract allows no $ calls "
                             "except elaboration-time checks")
    return found[:MAX_ERRORS]


def compile_check(top: str, files: list[Path], root: Path) -> list[str]:
    """Icarus compiles the files with `top` as the root; [] when it succeeds."""
    declared = {name for path in files for name in MODULE_DECL.findall(path.read_text(errors="replace"))}
    if top not in declared:
        found = ", ".join(sorted(declared)) or "no module at all"
        return [f"no module named {top} in your files (found: {found}); the file must be {top}.sv "
                f"and declare 'module {top}'"]
    try:
        run = subprocess.run(["iverilog", "-g2012", "-o", "/dev/null", "-s", top, *map(str, files)],
                             capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return [f"Icarus did not finish compiling within {COMPILE_TIMEOUT_S} s (a runaway generate loop?)"]
    if run.returncode == 0:
        return []
    return summarize_compile_errors(run.stdout + run.stderr, root)


def _yosys_module(top: str, files: list[Path], chparams: dict[str, int], folder: Path) -> tuple[dict | None, str]:
    out = folder / "ports.json"
    sets = " ".join(f"-chparam {name} {value}" for name, value in chparams.items())
    script = f"read_verilog -sv {' '.join(map(str, files))}; hierarchy -top {top} {sets}; write_json {out}"
    run = subprocess.run(["yosys", "-q", "-p", script], capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
    if run.returncode:
        error = next((line for line in (run.stdout + run.stderr).splitlines() if "ERROR" in line), "yosys failed")
        return None, error.strip()
    return json.loads(out.read_text())["modules"].get(top), ""


def port_check(top: str, files: list[Path], param_sets: list[ParamSet], folder: Path) -> tuple[list[str], list[str]]:
    """(problems, warnings): every parameter and port the contract names, at every graded parameter set."""
    if shutil.which("yosys") is None:
        return [], ["port check skipped: Yosys is not installed (the tests still check the widths)"]
    folder.mkdir(parents=True, exist_ok=True)
    module, error = _yosys_module(top, files, {}, folder)
    if module is None:
        return [], [f"Yosys could not read your design, so the ports were not checked before the tests: {error}. "
                    "The contract asks for RTL that Yosys accepts."]
    declared = set(module.get("parameter_default_values", {}))
    wanted = list(expected_parameters(top, param_sets[0]))
    missing = [name for name in wanted if name not in declared]
    if missing:
        return [f"parameter {name} is missing: {top} must declare "
                f"{', '.join(wanted)} (see the handout)" for name in missing], []
    problems: list[str] = []
    for p in param_sets:
        module, error = _yosys_module(top, files, expected_parameters(top, p), folder)
        if module is None:
            return [f"the design does not elaborate at {_describe(top, p)}: {error}"], []
        problems += _compare_ports(top, p, module["ports"])
        if problems:
            break  # one parameter set's worth is enough to act on
    return problems, []


def _compare_ports(top: str, p: ParamSet, actual_ports: dict) -> list[str]:
    where = _describe(top, p)
    expected = expected_ports(top, p)
    actual = {name: (port["direction"], len(port["bits"])) for name, port in actual_ports.items()}
    problems = [f"port {name} is missing (an {direction} of {width} bit{'s' * (width != 1)} at {where})"
                for name, (direction, width) in expected.items() if name not in actual]
    for name, (direction, width) in expected.items():
        if name not in actual:
            continue
        got_direction, got_width = actual[name]
        if got_direction != direction:
            problems.append(f"port {name} is an {got_direction}; the contract makes it an {direction}")
        elif got_width != width:
            problems.append(f"port {name} is {got_width} bits wide at {where}; the contract says {width}")
    problems += [f"port {name} is not in the contract (remove it or make it internal)"
                 for name in actual if name not in expected]
    return problems


def _describe(top: str, p: ParamSet) -> str:
    return ", ".join(f"{name}={value}" for name, value in expected_parameters(top, p).items())


def precheck(top: str, rtl: str, param_sets: list[ParamSet], folder: Path) -> Precheck:
    files, problem = find_files(rtl)
    if problem:
        return Precheck("files", [problem])
    root = Path(rtl).expanduser().resolve()
    root = root if root.is_dir() else root.parent
    errors = compile_check(top, files, root)
    if errors:
        return Precheck("compile", errors, files=files)
    problems, warnings = port_check(top, files, param_sets, folder)
    calls = simulation_only_calls(files, root)
    side_effects = [call for call in calls if SIDE_EFFECT.search(call)]
    if side_effects:
        return Precheck("forbidden", [*side_effects, "not simulated: these calls reach the grading machine"], warnings, files)
    return Precheck("ports" if problems else "ok", problems, warnings + calls, files)
