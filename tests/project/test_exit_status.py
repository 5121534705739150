"""Every command's exit status is a contract: 0 when what it checks passed, non-zero when it failed
(1 a failed check, 2 input it cannot use), run for real through make, on small inputs.

make reports a failed recipe as its own status 2 and names the command's status in its last
line (`make: *** [Makefile:N: sim] Error 1`): both are checked. The grader commands are checked
from outside only: 0 full marks, 1 fewer marks, 2 could not grade, said again on the last line.
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from commands import command_env
from real_grading import needs_sandbox

from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_flows.rtl_mutant_catalogue import load_catalogue, ridge_mutant_edit

MAKE_ERROR = re.compile(r"^make: \*\*\* \[Makefile:\d+: ([\w-]+)\] Error (\d+)$", re.M)
ROOFLINE = Path(sys.executable).parent / "roofline"
LAB1_FILES = ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")


@dataclass(frozen=True)
class Ran:
    status: int | None  # the command's own exit status; None when make failed before running it
    make_status: int
    output: str  # stdout, then stderr

    @property
    def last_line(self) -> str:
        """The command's last line (make's error line, when there is one, comes after it)."""
        lines = [line for line in MAKE_ERROR.sub("", self.output).splitlines() if line.strip()]
        return lines[-1] if lines else ""


def run_make(target: str, variables: dict[str, str], build: Path, timeout: float = 900) -> Ran:
    """`make <target> VAR=value ...` in the checkout, its build products in `build`. The venv is
    this interpreter's and is not reinstalled (-o), whatever pyproject.toml's time stamp says."""
    env = command_env(ROOFLINE_BUILD=str(build))
    command = ["make", "-s", "--no-print-directory", "-o", ".venv/.installed", f"VPY={sys.executable}", target,
               *(f"{name}={value}" for name, value in variables.items())]
    run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, env=env, timeout=timeout)
    errors = [(name, int(code)) for name, code in MAKE_ERROR.findall(run.stderr)]
    status = 0 if run.returncode == 0 else next((code for name, code in errors if name == target), None)
    return Ran(status, run.returncode, run.stdout + run.stderr)


# ---------------------------------------------------------------- inputs, each written into a scratch folder

Input = Callable[[Path], str]


def ridge_bug(folder: Path) -> str:
    """The project's rounding unit with the ridge counted as memory-bound (the catalogue's ridge mutant)."""
    name, original, mutated = ridge_mutant_edit()
    (folder / name).write_text((RTL_DIR / name).read_text().replace(original, mutated))
    return str(folder / name)


def verdict_bug(folder: Path) -> str:
    """The verdict's comparison reversed: nearly every random vector mismatches."""
    mutant = next(m for m in load_catalogue() if m.id == "verdict_direction")
    (folder / mutant.file).write_text((RTL_DIR / mutant.file).read_text().replace(mutant.original, mutant.mutated))
    return str(folder / mutant.file)


def latch(folder: Path) -> str:
    source = (RTL_DIR / "roofline_round_cap.sv").read_text()
    assign = "  assign cap_o             = mem_bound_o ? rounded_sum[ROUND_W-1:FRAC_BITS] : peak_i;"
    assert source.count(assign) == 1
    (folder / "roofline_round_cap.sv").write_text(
        source.replace(assign, "  always @* if (mem_bound_o) cap_o = rounded_sum[ROUND_W-1:FRAC_BITS];"))
    return str(folder / "roofline_round_cap.sv")


def lint_warning(folder: Path) -> str:
    """A signal nothing drives or reads (named so that Verilator's *unused* waiver does not cover it)."""
    source = (RTL_DIR / "roofline_round_cap.sv").read_text()
    assert source.count("\nendmodule") == 1
    (folder / "roofline_round_cap.sv").write_text(source.replace("\nendmodule", "\n  logic spare;\nendmodule"))
    return str(folder / "roofline_round_cap.sv")


def surviving_catalogue(folder: Path) -> str:
    """A catalogue of one mutant no bench can kill: it changes a comment."""
    comment = "  // Round to nearest, ties up: add half an LSB, then truncate."
    assert (RTL_DIR / "roofline_round_cap.sv").read_text().count(comment) == 1
    (folder / "catalogue.toml").write_text(f"""[[mutant]]
id = "comment_only"
class = "no change"
bug = "a comment reworded: the design is the original"
file = "roofline_round_cap.sv"
original = "{comment}"
mutated = "{comment} (reworded)"
top = "roofline_attainable"
""")
    return f"--catalogue {folder / 'catalogue.toml'} -k comment_only --sweep 20 --layers bench --jobs 1"


def lab1_with_ridge_bug(folder: Path) -> str:
    for name in LAB1_FILES:
        shutil.copy(RTL_DIR / name, folder / name)
    ridge_bug(folder)
    return str(folder)


def nothing(folder: Path) -> str:
    (folder / "empty").mkdir()
    return str(folder / "empty")


def syntax_error(folder: Path) -> str:
    (folder / "roofline_attainable.sv").write_text("module roofline_attainable (input logic a_i); assign = ; endmodule\n")
    return str(folder / "roofline_attainable.sv")


def one_student(folder: Path) -> str:
    """A class of one: a copy of the reference."""
    student = folder / "class" / "ada"
    student.mkdir(parents=True)
    for name in LAB1_FILES:
        shutil.copy(RTL_DIR / name, student / name)
    return str(folder / "class")


MISSING = "/no/such/rtl.sv"


# ---------------------------------------------------------------- the table: command, input, status, what it says

@dataclass(frozen=True)
class Case:
    target: str
    variables: dict[str, str | Input]
    status: int
    says: tuple[str, ...]  # regular expressions the output must match: the verdict behind the status


def case(name: str, target: str, variables: dict[str, str | Input], status: int, says: str | tuple[str, ...],
         *marks: pytest.MarkDecorator) -> pytest.param:
    return pytest.param(Case(target, variables, status, (says,) if isinstance(says, str) else says),
                        id=f"{target}-{name}", marks=marks)


SIM = {"TOP": "roofline_attainable", "TESTCASE": "document_cases", "N": "10", "SEED": "1"}
SWEEP = {"N": "200", "SIM": "icarus", "TOP": "roofline_attainable", "SEED": "1"}
PROVE = {"ARGS": "-k roofline_round_cap.verdict"}
SYNTH = {"ARGS": "--only roofline_attainable --no-pnr"}
# make test runs each command's failing case and its bad inputs (a second or two each); the passing
# runs that take longer, and the grader's, run in make test-all.
full = pytest.mark.full
sim = pytest.mark.sim

CASES = [
    case("passes", "sim", SIM, 0, r"roofline_attainable\s+PASS\s+1 passed, 0 failed", sim),
    case("a-ridge-bug", "sim", {**SIM, "RTL": ridge_bug}, 1, (r"FAIL\s+0 passed, 1 failed", "calculator_check_2_ridge"), sim),
    case("no-such-test-checks-nothing", "sim", {**SIM, "TESTCASE": "no_such_test"}, 1, r"FAIL\s+0 passed, 0 failed", full, sim),
    case("unknown-top", "sim", {"TOP": "roofline_nothing"}, 2, r"TOP=roofline_nothing: use one of"),
    case("passes", "sweep", SWEEP, 0, r"200 vectors checked, 0 mismatched[\s\S]*\nPASS; seed 1;", full, sim),
    case("a-verdict-bug", "sweep", {**SWEEP, "RTL": verdict_bug}, 1,
         r"200 vectors checked, [1-9]\d* mismatched[\s\S]*\nFAIL; seed 1;", sim),
    case("no-vectors", "sweep", {**SWEEP, "N": "0"}, 2, r"error: N must be at least 1"),
    case("proves", "prove", PROVE, 0, r"PROVED roofline_round_cap.verdict[\s\S]*make prove: 1 passed, 0 failed"),
    case("a-ridge-bug", "prove", {**PROVE, "RTL": ridge_bug}, 1,
         r"FAILED roofline_round_cap.verdict \[drop-in\][\s\S]*counterexample[\s\S]*make prove: 0 passed, 1 failed"),
    case("no-such-task", "prove", {"ARGS": "-k no_such_task"}, 2,
         r"error: no task name \(unit.task\) contains 'no_such_task'"),
    case("missing-rtl", "prove", {**PROVE, "RTL": MISSING}, 2, rf"error: RTL={MISSING}: no such file or folder"),
    case("clean", "lint", {}, 0, r"\nlint: PASS", full),
    case("a-warning", "lint", {"RTL": lint_warning}, 1, r"UNUSEDSIGNAL[^\n]*'spare'[\s\S]*\nlint: FAIL", full),
    case("missing-rtl", "lint", {"RTL": MISSING}, 2, rf"error: RTL={MISSING}: no such file or folder"),
    case("clean", "synth", SYNTH, 0, r"make synth: 2 runs ok, 0 failed", full),
    case("a-latch", "synth", {**SYNTH, "RTL": latch}, 1, r"FAILED: a latch was inferred[\s\S]*make synth: 0 runs ok, 2 failed"),
    case("no-such-module", "synth", {"ARGS": "--only roofline_nothing"}, 2,
         r"error: no module name contains 'roofline_nothing'"),
    case("missing-rtl", "synth", {**SYNTH, "RTL": MISSING}, 2, rf"error: RTL={MISSING}: no such file or folder"),
    case("one-killed", "mutants", {"ARGS": "-k ridge_memory_bound --sweep 20 --layers bench --jobs 1"}, 0,
         r"caught\s+ridge_memory_bound\s+bench:killed[\s\S]*make mutants: hand-written (\d+)/\1 caught", full, sim),
    case("a-survivor", "mutants", {"ARGS": surviving_catalogue}, 1,
         r"GAP\s+comment_only[\s\S]*hand-written 0/1 caught[\s\S]*not caught: comment_only", full, sim),
    case("no-such-mutant", "mutants", {"ARGS": "-k no_such_mutant"}, 2, r"error: no mutant matches 'no_such_mutant'"),
    case("no-such-catalogue", "mutants", {"ARGS": "--catalogue /no/such/catalogue.toml"}, 2,
         r"error: --catalogue /no/such/catalogue.toml: .*No such file"),
    case("full-marks", "grade", {"LAB": "1", "RTL": str(RTL_DIR)}, 0, r"graded: 100.0/100, full marks \(exit 0\)$",
         needs_sandbox, full, sim),
    case("a-ridge-bug", "grade", {"LAB": "1", "RTL": lab1_with_ridge_bug}, 1, r"^graded: .*fewer than full marks \(exit 1\)$",
         needs_sandbox, full, sim),
    case("no-files", "grade", {"LAB": "1", "RTL": nothing}, 2, r"^could not grade: no files \(exit 2\)", needs_sandbox),
    case("no-lab", "grade", {"RTL": str(RTL_DIR)}, 2, r"error: LAB= is required"),
    case("full-marks", "check", {"LAB": "1", "RTL": str(RTL_DIR)}, 0, r"full marks \(exit 0\)$", needs_sandbox, full, sim),
    case("the-starter", "check", {"LAB": "1", "RTL": str(LABS_DIR / "lab1" / "starter")}, 1,
         r"^graded: .*fewer than full marks \(exit 1\)$", needs_sandbox, full, sim),
    case("a-syntax-error", "check", {"LAB": "1", "RTL": syntax_error}, 2, r"^could not grade: compile error \(exit 2\)",
         needs_sandbox, full),
    case("no-rtl", "check", {"LAB": "1"}, 2, r"error: RTL= is required"),
    case("not-a-folder", "grade-all", {"LAB": "1", "SUBMISSIONS": MISSING}, 2, rf"error: SUBMISSIONS={MISSING}: not a folder"),
    case("no-submissions", "grade-all", {"LAB": "1"}, 2, r"error: SUBMISSIONS= is required"),
]


@pytest.mark.parametrize("expected", CASES)
def test_the_exit_status_says_what_the_command_found(expected: Case, tmp_path: Path) -> None:
    scratch = tmp_path / "inputs"
    scratch.mkdir()
    variables = {name: value(scratch) if callable(value) else value for name, value in expected.variables.items()}
    ran = run_make(expected.target, variables, tmp_path / "build")
    shown = f"make {expected.target} {variables}:\n{ran.output[-4000:]}"
    assert ran.status == expected.status, shown
    assert ran.make_status == (0 if expected.status == 0 else 2), shown
    for says in expected.says:
        assert re.search(says, ran.output, re.M), f"no match for {says!r} in " + shown
    if expected.status == 2:  # input it cannot use: one clear line (a bench's own report may hold a traceback)
        assert "Traceback" not in ran.output, shown
    if expected.target in ("grade", "check") and "LAB" in variables and "RTL" in variables:
        assert re.search(expected.says[-1], ran.last_line), f"the last line does not say it: {ran.last_line!r}\n" + shown


@needs_sandbox
@pytest.mark.full
@pytest.mark.sim
def test_grade_all_scores_the_class_it_exits_0_for(tmp_path: Path) -> None:
    """Exit 0 means the class was graded: the table holds the student, with the reference's marks."""
    ran = run_make("grade-all", {"LAB": "1", "SUBMISSIONS": one_student(tmp_path), "JOBS": "1"}, tmp_path / "build")
    assert ran.status == 0, ran.output[-4000:]
    with (tmp_path / "build" / "grade" / "lab1-all" / "scores.csv").open(newline="") as table:
        rows = list(csv.DictReader(table))
    assert [(row["submission"], row["status"], row["score"]) for row in rows] == [("ada", "graded", "100")]


# ---------------------------------------------------------------- the roofline command

PLATFORM = """[platform]
peak = {{ FP64 = "100 GFLOP/s" }}
levels = [{{ name = "DRAM", bandwidth = "{bandwidth}" }}]
[[kernel]]
name = "k"
intensity = {{ DRAM = "1 FLOP/B" }}
"""


@pytest.mark.parametrize(("arguments", "status", "says"), [
    pytest.param(["place", "{good}"], 0, r"end to end: 20 GFLOP/s, bound by DRAM", id="places"),
    pytest.param(["place", "{negative}"], 2, r"bandwidth: '-20 GB/s' is negative", id="negative-bandwidth"),
    pytest.param(["plot", "{good}", "-o", "{folder}/out.txt"], 2, r"write a .png, a .svg or an .html", id="not-a-picture"),
    pytest.param([], 2, r"the following arguments are required: command", id="no-command"),
])
def test_the_roofline_command_exits_by_contract(arguments: list[str], status: int, says: str, tmp_path: Path) -> None:
    good, negative = tmp_path / "good.toml", tmp_path / "negative.toml"
    good.write_text(PLATFORM.format(bandwidth="20 GB/s"))
    negative.write_text(PLATFORM.format(bandwidth="-20 GB/s"))
    argv = [word.format(good=good, negative=negative, folder=tmp_path) for word in arguments]
    run = subprocess.run([str(ROOFLINE), *argv], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == status, run.stdout + run.stderr
    assert re.search(says, run.stdout + run.stderr), run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    if status:
        assert run.stderr.strip().splitlines()[-1].startswith(("roofline: ", "usage: ")), run.stderr
