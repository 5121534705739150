"""Before any test: the files, the design as the tools build it, the compile, and the ports.

Every step runs in the sandbox, and none runs the submission's code: only tools read its text.
The design check reads the staged submission and writes it out as the canonical design
(intake.canonical); from then on every tool is given that text alone, mounted by itself: the
compile, the port check, every graded group and synthesis. The compile's program (Icarus's vvp)
and the port check's netlist (Yosys's) are held to the allow-list again (intake.tool_outputs), as
Verilator's own parse is in the design check.

Each problem comes back as a few lines a student can act on: the file and line of a compile error
(the canonical lines mapped back to the student's own, quoting only the student's own files), a
construct outside the allow-list (design_check, or a tool's output, naming the tool), a design that
differs between the tools, a missing port. A port of the wrong width is a warning: the tests run,
and the ports group and whatever the width breaks lose their marks.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from roofline_core.contract import MODULES, ParamSet
from roofline_core.tools import eda_command, yosys_available
from roofline_course import sandbox
from roofline_course.intake import canonical
from roofline_course.intake.submission import IntakeError, Submission, select_design, stage
from roofline_course.intake.tool_outputs import icarus_problems, yosys_problems

MAX_ERRORS = 5
DESIGN_FOLDER = "design"  # beside the staged submission: the canonical design, alone in its folder
INSIDE = sandbox.SUBMISSION
# iverilog: "file.sv:12: syntax error", "file.sv:12: error: ...", "file.sv:12: sorry: ..."
ERROR_LINE = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+):\s*(?P<what>(?:syntax error|error|sorry).*)$")
STAGES = {"files": "no files", "compile": "compile error", "forbidden": "not allowed", "ports": "missing port",
          "resources": "resource limit"}


@dataclass
class Precheck:
    stage: str  # a key of STAGES when it failed there, else "ok"
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    submission: Submission | None = None  # the student's files, as staged
    design: Submission | None = None  # the canonical design: what every tool builds
    canonical: canonical.Canonical | None = None

    @property
    def ok(self) -> bool:
        return self.stage == "ok"

    @property
    def files(self) -> list[Path]:
        return self.submission.files if self.submission else []


def expected_parameters(top: str, p: ParamSet) -> dict[str, int]:
    return p.for_module(top)


def expected_ports(top: str, p: ParamSet) -> dict[str, tuple[str, int]]:
    """Port name -> (direction, width) at these parameters, from the contract table."""
    return MODULES[top].port_bits(p.for_module(top))


def inside(submission: Submission, path: Path) -> str:
    return str(INSIDE / submission.relative(path))


def include_flags(submission: Submission) -> list[str]:
    return [f"-I{INSIDE / submission.relative(folder)}" for folder in submission.folders]


def shown_name(submission: Submission, reported: str) -> tuple[str, Path | None]:
    """How a file an error names is shown, and its staged copy when it is one of the student's
    (named as the sandbox sees it, or relative to the submission)."""
    path = Path(reported)
    if path.is_relative_to(INSIDE) or not path.is_absolute():
        path = INSIDE / path
        staged = submission.root / path.relative_to(INSIDE)
        if staged.is_file() and staged.resolve().is_relative_to(submission.root.resolve()):
            return str(path.relative_to(INSIDE)), staged
    return f"{path.name} (not one of your files)", None


def summarize_compile_errors(output: str, submission: Submission) -> list[str]:
    """The first few errors as 'file:line: message'; a line is quoted only from the student's own files."""
    errors: list[str] = []
    said: set[str] = set()  # each message once, however often the tool repeats it
    quoted_at: set[str] = set()  # each line of the student's quoted once, under its first message
    for line in output.splitlines():
        if match := ERROR_LINE.match(line.strip()):
            name, staged = shown_name(submission, match["file"])
            where = f"{name}:{match['line']}"
            message = f"{where}: {match['what']}"
            if message in said:
                continue
            said.add(message)
            quoted = "" if staged is None or where in quoted_at else _source_line(staged, int(match["line"]))
            quoted_at.add(where)
            errors.append(message + quoted)
    if not errors:
        lines = [line.strip() for line in output.splitlines() if line.strip()]
        errors = [line.replace(str(INSIDE) + "/", "") for line in lines] or ["(no message)"]
    unique = list(dict.fromkeys(errors))
    extra = len(unique) - MAX_ERRORS
    return unique[:MAX_ERRORS] + ([f"... and {extra} more"] if extra > 0 else [])


def _source_line(path: Path, number: int) -> str:
    if number < 1:  # a tool's line 0 is no line of the file (and [-1] would quote its last)
        return ""
    try:
        text = path.read_text(errors="replace").splitlines()[number - 1].strip()
    except (OSError, IndexError):
        return ""
    return f"\n      | {text[:100]}" if text else ""


def _limit_problem(outcome: sandbox.Outcome, what: str, limits: sandbox.Limits) -> str | None:
    if outcome.timed_out:
        return f"{what} did not finish within {limits.step_s:.0f} s (a runaway generate loop or a huge memory?)"
    killed = outcome.crashed or (outcome.returncode or 0) > 128  # a shell reports a signal as 128 + its number
    said = outcome.stderr.lower()
    if killed or outcome.output_truncated or "cannot allocate memory" in said or "out of memory" in said:
        return (f"{what} ran out of its limits ({limits.memory_mib} MiB of memory, {limits.output_mib} MiB of "
                "output): a very large memory, a huge generate loop, or a flood of messages?")
    return None


def compile_check(top: str, built: Built, param_sets: list[ParamSet]) -> tuple[str, list[str]]:
    """Icarus compiles the canonical design with `top` as the root at every graded parameter set,
    and its programs call nothing outside the allow-list; ("ok", []) when both hold."""
    file = inside(built.design, built.design.files[0])
    script = "; ".join(f'iverilog -g2012 -o /run/compiled.vvp -s {top} {_icarus_parameters(top, p)} "{file}" >&2 '
                       "&& cat /run/compiled.vvp || exit 1" for p in param_sets)
    outcome = built.run(["sh", "-c", script])
    limit = _limit_problem(outcome, "Icarus", built.run.limits)
    if limit:
        return "resources", [limit]
    if outcome.returncode:
        return "compile", built.errors(outcome.stderr + (outcome.stdout if not outcome.stderr.strip() else ""))
    if problems := icarus_problems(outcome.stdout, built.canonical.place):
        return "forbidden", [*problems[:MAX_ERRORS], "not built: the grader builds only the constructs a lab design needs"]
    return "ok", []


def _icarus_parameters(top: str, p: ParamSet) -> str:
    return " ".join(f"-P{top}.{name}={value}" for name, value in expected_parameters(top, p).items())


def design_check(submission: Submission, run: Runner, tools: list[str]
                 ) -> tuple[str, list[str], list[str], canonical.Canonical | None]:
    """(stage, problems, notes, the canonical design) of the design as the tools build it
    (roofline_course.intake.design_check, in the sandbox): stage "forbidden" for a construct outside
    the allow-list, "compile" when the design does not parse, "ok" with its canonical design."""
    job = {"files": [run.path(f) for f in submission.files], "includes": [run.path(f) for f in submission.folders],
           "tools": tools, "root": run.path(submission.root)}
    outcome = run([sys.executable, "-m", "roofline_course.intake.design_check"], use_verilator="verilator" in tools,
                  stdin=json.dumps(job).encode())
    limit = _limit_problem(outcome, "the design check", run.limits)
    if limit:
        return "resources", [limit], [], None
    try:
        reply = json.loads(outcome.stdout)
        if "compile" in reply:
            return "compile", summarize_compile_errors(str(reply["compile"]), submission), [], None
        problems, notes = [str(p) for p in reply["problems"]], [str(n) for n in reply["notes"]]
        design = canonical.Canonical.from_json(reply["canonical"]) if not problems else None
    except (ValueError, KeyError, TypeError, IndexError):
        tail = (outcome.stderr.strip().splitlines() or ["no output"])[-1]
        return "forbidden", [f"the design could not be read: {tail.replace(str(INSIDE) + '/', '')[:300]}"], [], None
    return ("forbidden" if problems else "ok"), problems, notes, design



def _yosys_module(top: str, built: Built, chparams: dict[str, int]) -> tuple[dict | None, str]:
    """The design as Yosys reads it (after `proc`, so always_comb and always_ff designs read too);
    a netlist holding a cell outside the allow-list is a problem ("FORBIDDEN ...")."""
    file = f'"{inside(built.design, built.design.files[0])}"'
    sets = " ".join(f"-chparam {name} {value}" for name, value in chparams.items())
    script = f"read_verilog -sv {file}; hierarchy -top {top} {sets}; proc; write_json /run/ports.json"
    outcome = built.run(["sh", "-c", '"$@" >&2 && cat /run/ports.json', "sh", *eda_command("yosys"), "-q", "-p", script],
                        eda=("yosys",))
    limit = _limit_problem(outcome, "Yosys", built.run.limits)
    if limit:
        return None, "LIMIT " + limit
    if outcome.returncode:
        error = next((line for line in outcome.stderr.splitlines() if "ERROR" in line), "yosys failed")
        return None, built.canonical.to_source(error).replace(str(INSIDE) + "/", "").strip()
    netlist = json.loads(outcome.stdout)
    if problems := yosys_problems(netlist):
        return None, "FORBIDDEN " + problems[0]
    return netlist["modules"].get(top), ""


def port_check(top: str, built: Built, param_sets: list[ParamSet]) -> tuple[str, list[str], list[str]]:
    """(stage, problems, warnings): every parameter and port the contract names, at every graded parameter set."""
    if not yosys_available():
        return "ok", [], ["port check skipped: no Yosys (pip install -e '.[eda]', or apt-get install yosys); "
                          "the tests still check the widths"]
    module, error = _yosys_module(top, built, {})
    if error.startswith(("LIMIT ", "FORBIDDEN ")):
        return _stopped(error)
    if module is None:
        return "ok", [], [f"Yosys could not read your design, so the ports were not checked before the tests: {error}. "
                          "The contract asks for RTL that Yosys accepts."]
    declared = set(module.get("parameter_default_values", {}))
    wanted = list(expected_parameters(top, param_sets[0]))
    missing = [name for name in wanted if name not in declared]
    if missing:
        return "ports", [f"parameter {name} is missing: {top} must declare {', '.join(wanted)} (see the handout)"
                         for name in missing], []
    first_widths: list[str] = []  # the first set's wrong widths: a later set may still miss a port or not elaborate
    for p in param_sets:
        module, error = _yosys_module(top, built, expected_parameters(top, p))
        if error.startswith(("LIMIT ", "FORBIDDEN ")):
            return _stopped(error)
        if module is None:
            return "ports", [f"the design does not elaborate at {_describe(top, p)}: {error}"], []
        missing, widths = _compare_ports(top, p, module["ports"])
        if missing:
            return "ports", missing, []  # one parameter set's worth is enough to act on
        first_widths = first_widths or widths
    if first_widths:
        return "ok", [], first_widths + ["the tests run anyway: the ports group, and the tests a wrong width breaks, "
                                         "lose their marks"]
    return "ok", [], []


def _stopped(error: str) -> tuple[str, list[str], list[str]]:
    if error.startswith("LIMIT "):
        return "resources", [error.removeprefix("LIMIT ")], []
    return "forbidden", [error.removeprefix("FORBIDDEN "), "not built: the grader builds only the constructs a lab design "
                         "needs"], []


def _compare_ports(top: str, p: ParamSet, actual_ports: dict) -> tuple[list[str], list[str]]:
    """(problems that stop grading, widths that do not): a missing port, a wrong direction or an
    extra port stop it; a wrong width is reported with its fix and the tests still run."""
    where = _describe(top, p)
    expected = expected_ports(top, p)
    actual = {name: (port["direction"], len(port["bits"])) for name, port in actual_ports.items()}
    problems = [f"port {name} is missing: declare it as an {direction} of {width} bit{'s' * (width != 1)} at {where} "
                "(see the handout's port list)" for name, (direction, width) in expected.items() if name not in actual]
    widths = []
    for name, (direction, width) in expected.items():
        if name not in actual:
            continue
        got_direction, got_width = actual[name]
        if got_direction != direction:
            problems.append(f"port {name} is an {got_direction}; the contract makes it an {direction}: change its direction")
        elif got_width != width:
            widths.append(f"port {name} is {got_width} bits wide at {where}; the contract says {width}: derive its width "
                          "from the parameters (the handout gives each port's width)")
    problems += [f"port {name} is not in the contract: remove it or make it an internal signal"
                 for name in actual if name not in expected]
    return problems, widths


def _describe(top: str, p: ParamSet) -> str:
    return ", ".join(f"{name}={value}" for name, value in expected_parameters(top, p).items())


@dataclass
class Runner:
    """Runs one precheck step in the sandbox on the staged submission."""

    submission: Submission
    limits: sandbox.Limits
    unsafe: bool = False
    slot: int = 0

    def __call__(self, argv: list[str], *, eda: tuple[str, ...] = (), use_verilator: bool = False,
                 stdin: bytes = b"") -> sandbox.Outcome:
        env = sandbox.simulator_env(use_verilator)
        return sandbox.run(argv, submission=self.submission.root, timeout_s=self.limits.step_s, limits=self.limits,
                           slot=self.slot, unsafe=self.unsafe, eda=eda, env=env, stdin=stdin)

    def path(self, staged: Path) -> str:
        """Where a staged file is as the step sees it."""
        return inside(self.submission, staged)


@dataclass
class Built:
    """The canonical design, as the later steps see it: mounted alone, with the map back to the
    student's files (submission) that its messages are read through."""

    design: Submission
    canonical: canonical.Canonical
    submission: Submission
    run: Runner

    def errors(self, output: str) -> list[str]:
        """A tool's errors on the canonical design, as the student's files and lines."""
        return summarize_compile_errors(self.canonical.to_source(output, f"{INSIDE}/"), self.submission)


def write_design(design: canonical.Canonical, folder: Path, submission: Submission, run: Runner,
                 unsafe: bool) -> Built:
    """The canonical design in a folder of its own: what the compile, the port check and every group mount."""
    shutil.rmtree(folder, ignore_errors=True)
    path = design.write(folder)
    path.chmod(0o644)
    folder.chmod(0o755)
    built = Submission(folder, [path])
    if not unsafe and sandbox.mode() == "uid":
        sandbox.passable(folder)
    return Built(built, design, submission, Runner(built, run.limits, run.unsafe, run.slot))


def precheck(top: str, rtl: str, param_sets: list[ParamSet], folder: Path, *, limits: sandbox.Limits | None = None,
             unsafe: bool = False, verilator: bool = False, slot: int = 0) -> Precheck:
    try:
        submission = select_design(stage(rtl, folder / "submission"), top)
    except IntakeError as problem:
        return Precheck("files", [str(problem)])
    warnings = [f"ignored: {name}" for name in submission.ignored] + [f"note: {note}" for note in submission.notes]
    if not unsafe and sandbox.mode() == "uid":
        sandbox.passable(submission.root)  # the sandbox user reads it where it is
    run = Runner(submission, limits or sandbox.Limits(), unsafe, slot)
    # The design check comes first: whatever a compiler accepts or not, a construct outside the
    # allow-list is named as such.
    tools = ["verilator" if verilator else "icarus", "yosys"]
    stage_name, problems, notes, design = design_check(submission, run, tools)
    if stage_name == "forbidden":
        problems.append("not built: the grader builds only the constructs a lab design needs")
    if stage_name != "ok" or design is None:
        return Precheck(stage_name, problems, warnings + notes, submission)
    built = write_design(design, folder / DESIGN_FOLDER, submission, run, unsafe)
    stage_name, errors = compile_check(top, built, param_sets)
    if errors:
        return Precheck(stage_name, errors, warnings + notes, submission)
    stage_name, problems, port_warnings = port_check(top, built, param_sets)
    return Precheck(stage_name, problems, warnings + notes + port_warnings, submission, built.design, design)
