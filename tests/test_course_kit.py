"""The course kit against hostile and ordinary students: the sandbox, intake, scoring, feedback,
reports, the student copy and a class of awkwardly named submissions."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from commands import run_command

from roofline_bench.tape import Reply
from roofline_core.contract import ParamSet
from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_core.scoreboard import Failure, Verdict
from roofline_core.tools import tool_available
from roofline_course import grade as grading
from roofline_course import hints, intake, judge, reports, sandbox, testbench_intake
from roofline_course.labs import load_lab
from roofline_course.precheck import Precheck, Runner, port_check, precheck
from roofline_flows.catalogue import ridge_mutant_edit
from roofline_golden import cases, fixed
from roofline_golden.cases import Params

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all

HOSTILE = REPO_ROOT / "tests" / "hostile"
CASES = tomllib.loads((HOSTILE / "cases.toml").read_text())
LAB1_FILES = ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")
needs_sandbox = pytest.mark.skipif(
    sandbox.available() is not None, reason="bubblewrap not installed (apt-get install bubblewrap)"
)


def secrets() -> list[str]:
    """Lines that must never reach any output: the hidden groups' files and the machine's passwords."""
    lines = []
    for path in [*LABS_DIR.glob("lab*/hidden.toml"), Path("/etc/passwd")]:
        if path.exists():
            lines += [
                line.strip()
                for line in path.read_text().splitlines()
                if len(line.strip()) >= 10 and not line.strip().startswith("#")
            ]
    return lines


SECRETS = secrets()


def all_output(out: Path, *texts: str) -> str:
    files = [
        p.read_text(errors="replace")
        for p in out.rglob("*")
        if p.is_file() and p.suffix in (".json", ".txt", ".xml", ".log")
    ]
    return "\n".join([*texts, *files])


# Each pytest worker grades as its own sandbox user, so a check for leftover processes sees only its own.
# (another pytest run on the same machine, say a CI run beside a developer's, picks others).
SLOT = 10 + os.getpid() % 80


def sandbox_processes(slot: int = SLOT) -> list[str]:
    """Processes of this worker's sandbox user still alive."""
    run = subprocess.run(["ps", "-e", "-o", "uid=,pid=,args="], capture_output=True, text=True)
    return [
        line for line in run.stdout.splitlines() if line.split() and int(line.split()[0]) == sandbox.SANDBOX_UID + slot
    ]


def grade(rtl: Path, out: Path, *extra: str, lab: int = 1, timeout: float = 20) -> tuple[int, dict, str]:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_course.grade",
            "--lab",
            str(lab),
            "--rtl",
            str(rtl),
            "--out",
            str(out),
            "--timeout",
            str(timeout),
            "--slot",
            str(SLOT),
            *extra,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    result = json.loads((out / "result.json").read_text()) if (out / "result.json").exists() else {}
    return run.returncode, result, run.stdout + run.stderr


def reference_copy(folder: Path, edit: tuple[str, str, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    for name in LAB1_FILES:
        text = (RTL_DIR / name).read_text()
        if edit and edit[0] == name:
            text = text.replace(edit[1], edit[2])
        (folder / name).write_text(text)
    return folder


# ---------------------------------------------------------------- hostile submissions


def ports_group(lab: int) -> float:
    """The most a design that computes nothing may score: the weight of the lab's port groups."""
    return sum(g.weight for g in load_lab(lab).groups if all(t.startswith("port_widths") for t in g.tests))


@needs_sandbox
@pytest.mark.sim
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_submission_is_stopped_and_leaks_nothing(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    lab = case.get("lab", 1)
    code, result, stdout = grade(HOSTILE / name, tmp_path / "out", "--sim", case.get("sim", "icarus"),
                                 timeout=case.get("timeout", 20), lab=lab)
    assert result, stdout
    assert result["status"] == case["status"], stdout
    assert result["score"] <= ports_group(lab), stdout  # each one computes nothing
    if "problem" in case:
        assert case["problem"] in result["problems"][0], result["problems"]
    if not case.get("limits"):
        assert code == 2 and "could not grade" in stdout.splitlines()[-1]
    text = all_output(tmp_path / "out", stdout)
    leaked = [line for line in SECRETS if line in text]
    assert not leaked, f"{name} leaked {leaked[:3]}"
    for log in (tmp_path / "out").rglob("sim.log"):
        assert log.stat().st_size < 25 << 20
    assert not sandbox_processes(), "a sandboxed process outlived its grading run"


@needs_sandbox
def test_symbolic_links_out_of_the_submission_are_not_followed(tmp_path: Path) -> None:
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "roofline_attainable.sv").symlink_to("/etc/passwd")
    (folder / "hidden.sv").symlink_to(LABS_DIR / "lab1" / "hidden.toml")
    code, result, stdout = grade(folder, tmp_path / "out")
    assert code == 2 and result["status"] == "no files"
    assert not [line for line in SECRETS if line in all_output(tmp_path / "out", stdout)]


def test_the_sandbox_holds_no_grader_files_no_network_and_no_proc(tmp_path: Path) -> None:
    if sandbox.available():
        pytest.skip("bubblewrap not installed")
    probe = (
        "import os, socket; print(sorted(os.listdir('/'))); print(os.path.exists('/proc/self'), "
        f"os.path.exists('/etc/passwd'), os.path.exists({str(LABS_DIR)!r}), os.path.exists({str(RTL_DIR)!r}), os.getuid());"
        "s = socket.socket(); s.settimeout(2)\ntry:\n    s.connect(('1.1.1.1', 53)); print('network')\n"
        "except OSError: print('no network')"
    )
    outcome = sandbox.run([sys.executable, "-c", probe], submission=None, timeout_s=30, slot=SLOT)
    assert outcome.returncode == 0, outcome.stderr
    lines = outcome.stdout.splitlines()
    assert lines[1] == f"False False False False {sandbox.SANDBOX_UID + SLOT}" and lines[2] == "no network"


def test_the_sandbox_limits_memory_files_processes_and_time(tmp_path: Path) -> None:
    if sandbox.available():
        pytest.skip("bubblewrap not installed")
    limits = sandbox.Limits(memory_mib=512, file_mib=1, processes=16, output_mib=1)
    memory = sandbox.run(
        [sys.executable, "-c", "b = bytearray(1 << 30)"], submission=None, timeout_s=30, limits=limits, slot=SLOT
    )
    assert memory.returncode != 0 and "MemoryError" in memory.stderr
    big = sandbox.run(
        ["sh", "-c", "head -c 5000000 /dev/zero > /run/big; echo $?"],
        submission=None,
        timeout_s=30,
        limits=limits,
        slot=SLOT,
    )
    assert big.stdout.strip() != "0"
    forks = sandbox.run(
        ["sh", "-c", "for i in $(seq 40); do sleep 3 & done; wait"],
        submission=None,
        timeout_s=30,
        limits=limits,
        slot=SLOT,
    )
    assert "fork" in forks.stderr.lower()
    flood = sandbox.run(["sh", "-c", "yes flood; sleep 100"], submission=None, timeout_s=3, limits=limits, slot=SLOT)
    assert flood.timed_out and flood.output_truncated == ["stdout"] and len(flood.stdout) <= 1 << 20
    assert not sandbox_processes()


def test_grading_refuses_without_bubblewrap_in_one_line(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("iverilog", "yosys", "sh"):
        if shutil.which(tool):
            (bare / tool).symlink_to(shutil.which(tool))
    run = subprocess.run(
        [sys.executable, "-m", "roofline_course.grade", "--lab", "1", "--rtl", str(LABS_DIR / "lab1" / "starter")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bare)},
    )
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "apt-get install bubblewrap" in run.stderr


# ---------------------------------------------------------------- intake and the port check


def test_intake_takes_sub_folders_and_one_zip_and_ignores_a_testbench(tmp_path: Path) -> None:
    nested = tmp_path / "download" / "student" / "src"
    reference_copy(nested)
    (nested.parent / "tb_mine.sv").write_text('module tb_mine; integer f; initial f = $fopen("x"); endmodule\n')
    submission = intake.select_design(intake.stage(str(tmp_path / "download"), tmp_path / "s1"), "roofline_attainable")
    assert sorted(p.name for p in submission.files) == sorted(LAB1_FILES)
    assert any("tb_mine.sv" in line for line in submission.ignored)
    archive = tmp_path / "hand_in.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for name in LAB1_FILES:
            bundle.write(RTL_DIR / name, f"lab1/{name}")
        bundle.writestr("../escape.sv", "module escape; endmodule")
    zipped = intake.select_design(intake.stage(str(archive), tmp_path / "s2"), "roofline_attainable")
    assert len(zipped.files) == 4 and any("outside the archive" in note for note in zipped.notes)
    assert not (tmp_path / "escape.sv").exists()


@pytest.mark.parametrize(("suffix", "count", "size", "refused"), [
    (".sv", 200, 1, False), (".sv", 201, 1, True), (".sv", 2, 10 << 20, False), (".sv", 2, (10 << 20) + 1, True),
    (".py", 50, 1, False), (".py", 51, 1, True), (".py", 2, 1 << 20, False), (".py", 2, (1 << 20) + 1, True),
])
def test_intake_caps_the_files_and_bytes_labs_readme_states(tmp_path: Path, suffix: str, count: int, size: int,
                                                            refused: bool) -> None:
    """labs/README.md: at most 200 Verilog files, 20 MiB together; a lab 6 testbench 50 Python files, 2 MiB."""
    folder = tmp_path / "many"
    folder.mkdir()
    for index in range(count):
        (folder / f"test_{index}{suffix}").write_text("#" * size)
    stage = intake.stage if suffix == ".sv" else testbench_intake.stage
    if refused:
        with pytest.raises(intake.IntakeError, match=r"holds more than (200 Verilog files or 20|50 Python files or 2) MiB"):
            stage(str(folder), tmp_path / "staged")
    else:
        stage(str(folder), tmp_path / "staged")


def test_two_definitions_of_one_module_name_both_files(tmp_path: Path) -> None:
    folder = reference_copy(tmp_path / "twice")
    (folder / "copy.sv").write_text((RTL_DIR / "roofline_level.sv").read_text())
    with pytest.raises(
        intake.IntakeError, match=r"roofline_level is defined twice: in copy.sv and in roofline_level.sv"
    ):
        intake.select_design(intake.stage(str(folder), tmp_path / "s"), "roofline_attainable")


ALWAYS_COMB = """module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic mem_bound_o
);
  always_comb begin
    mem_bound_o = 1'b0;
    cap_o = peak_i;
  end
endmodule
"""


def use_eda(monkeypatch: pytest.MonkeyPatch, eda: str) -> None:
    """Yosys and nextpnr from apt (native) or from pip (yowasp) for this test, or skip it."""
    monkeypatch.setenv("ROOFLINE_EDA", eda)
    if not tool_available("yosys"):
        pytest.skip(f"no {eda} Yosys here")


EDA_PATHS = ["native", "yowasp"]


@needs_sandbox
@pytest.mark.parametrize("eda", EDA_PATHS)
@pytest.mark.parametrize("style", ["always_comb", "always_ff"])
def test_the_port_check_reads_every_design_style(style: str, eda: str, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    use_eda(monkeypatch, eda)
    if style == "always_comb":
        top, text, files = "roofline_attainable", ALWAYS_COMB, {}
        misnamed = ALWAYS_COMB.replace("cap_o", "cap_out")
        sets = [ParamSet()]
    else:
        top, files = (
            "roofline_intensity",
            {n: (RTL_DIR / n).read_text() for n in ("roofline_param_check.sv", "roofline_div_step.sv")},
        )
        text = (RTL_DIR / "roofline_intensity.sv").read_text()
        misnamed = text.replace("done_o", "finished_o")
        sets = [ParamSet(), ParamSet(8, 8, 1, 16)]
    for variant, body in (("correct", text), ("misnamed", misnamed)):
        folder = tmp_path / variant
        folder.mkdir()
        (folder / f"{top}.sv").write_text(body)
        for name, other in files.items():
            (folder / name).write_text(other)
        check = precheck(top, str(folder), sets, tmp_path / f"pre-{variant}")
        if variant == "correct":
            assert check.ok and not [w for w in check.warnings if "could not read" in w], check.warnings
        else:
            assert check.stage == "ports" and any("is missing" in p for p in check.problems), check.problems


@needs_sandbox
@pytest.mark.parametrize("eda", EDA_PATHS)
def test_a_design_too_big_for_yosys_stops_at_the_memory_limit(eda: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    use_eda(monkeypatch, eda)
    folder = tmp_path / "hog"
    folder.mkdir()
    (folder / "roofline_attainable.sv").write_text(ALWAYS_COMB.replace("endmodule", """
  logic [7:0] chain [0:4000000];
  for (genvar i = 0; i < 4000000; i++) begin : g
    assign chain[i + 1] = chain[i] + 8'd1;
  end
endmodule"""))
    submission = intake.select_design(intake.stage(str(folder), tmp_path / "staged"), "roofline_attainable")
    runner = Runner(submission, sandbox.Limits(memory_mib=512), slot=SLOT)
    stage, problems, _ = port_check("roofline_attainable", submission, [ParamSet()], runner)
    assert stage == "resources" and problems[0].startswith("Yosys ran out of its limits (512 MiB"), problems
    assert not sandbox_processes()


# ---------------------------------------------------------------- scoring, feedback, reports


@needs_sandbox
@pytest.mark.sim
def test_a_ridge_bug_loses_only_its_vectors_is_named_hinted_and_reruns(tmp_path: Path) -> None:
    buggy = reference_copy(tmp_path / "ridge", ridge_mutant_edit())
    code, result, stdout = grade(buggy, tmp_path / "out", "--visible-only")
    assert code == 1 and stdout.splitlines()[-1].startswith("graded:") and "fewer than full marks (exit 1)" in stdout
    document = next(g for g in result["groups"] if g["name"] == "document cases")
    assert document["failing"] == ["document_cases: calculator_check_2_ridge"]
    # Proportional, beyond chance: 9 of the 10 cases pass, and the commonest expected output (the
    # golden model's) is shared by `same` of them, which a constant design would pass.
    wants = [fixed.attainable(v.params.fmt, v.peak, v.bws[0], v.ais[0]) for v in lab1_document_vectors()]
    outputs = [(want.cap, int(want.mem_bound)) for want in wants]
    same = max(outputs.count(o) for o in outputs) / len(outputs)
    assert document["score"] == pytest.approx(document["weight"] * (9 / 10 - same) / (1 - same), abs=1e-3), document
    assert any("hint (ridge tie)" in line for line in document["detail"])
    rerun = re.search(r"rerun: (make sim [^\n]*ONLY=calculator_check_2_ridge[^\n]*)", stdout)
    assert rerun, stdout
    words = rerun[1].split()[2:]
    run = run_command(["make", "-s", "sim", *words])
    assert run.returncode != 0 and "calculator_check_2_ridge" in run.stdout and "1 checked, 1 failed" in run.stdout


@dataclass(frozen=True)
class RatesVector:
    params: Params
    peak: int
    bws: tuple[int, ...]
    ais: tuple[int, ...]


def lab1_document_vectors() -> list[RatesVector]:
    """Lab 1's document cases, one vector per level, as the golden model states them."""
    params = ParamSet().params
    vectors = []
    for case in cases.load_cases():
        if case.group == "document" and case.has_rates:
            rated = cases.rates(case, params)
            vectors += [RatesVector(params, rated.peak, (rated.bws[i],), (rated.ais[i],)) for i in range(rated.used_levels)]
    return vectors


def test_all_or_nothing_scoring_is_the_instructors_choice() -> None:
    lab = load_lab(1)
    group = next(g for g in lab.groups if g.name == "edge cases")
    one_failed = Verdict("edge_cases", checked=16, failed=("zero_peak",), planned=16, reports=("MISMATCH",))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    proportional = judge.score(lab, group, {"edge_cases": one_failed}, Reply(), facts, "make sim")
    strict = judge.score(lab, replace(group, scoring="all-or-nothing"), {"edge_cases": one_failed}, Reply(), facts, "make sim")
    assert proportional.score == pytest.approx(group.weight * 15 / 16) and strict.score == 0
    assert proportional.failing == ["edge_cases: zero_peak"] and (proportional.status, strict.status) == ("partial", "fail")


def failure(kind: str, *differs: tuple[str, int, int], regimes: tuple[str, ...] = ()) -> Failure:
    return Failure("v", "label", kind, differs, regimes)


@pytest.mark.parametrize(
    ("top", "found", "kind"),
    [
        ("roofline_attainable", failure("mismatch", ("mem_bound_o", 0, 1), regimes=("ridge (ai*bw == peak)",)), "ridge tie"),
        ("roofline_attainable", failure("mismatch", ("cap_o", 16, 15)), "rounding"),
        ("roofline_attainable", failure("mismatch", ("cap_o", 1, 7), regimes=("product above the format",)), "product width"),
        ("roofline_intensity", failure("mismatch", ("sat_o", 1, 0)), "saturation"),
        ("roofline_intensity", failure("timeout"), "latency"),
        ("roofline_intensity", failure("pulse"), "pulse"),
        ("roofline_hierarchy_pipe", failure("handshake"), "handshake"),
        ("roofline_hierarchy_pipe", failure("timeout"), "handshake"),
        ("roofline_hierarchy", failure("mismatch", ("binding_o", 0, 1)), "binding level"),
        ("roofline_intensity", failure("reset"), "reset"),
        ("roofline_attainable", failure("unresolved"), "unknown value"),
        ("roofline_intensity", failure("latency"), "latency"),
    ],
)
def test_hints_follow_the_kind_of_failure(top: str, found: Failure, kind: str) -> None:
    assert hints.kind_of(found, top) == kind
    assert hints.hints_for([found], top) == [f"hint ({kind}): {hints.HINTS[kind]}"]


@needs_sandbox
@pytest.mark.sim
def test_hidden_means_hidden_in_every_student_facing_report(tmp_path: Path) -> None:
    starter = LABS_DIR / "lab1" / "starter"
    code, result, stdout = grade(starter, tmp_path / "out", "--student-view")
    hidden = [g for g in result["groups"] if g["hidden"]]
    assert hidden and all(g["detail"] for g in hidden)  # the instructor's result has them
    assert "SEED=4242" not in stdout and "random sweep (" not in stdout and "(after the due date)" in stdout
    gradescope = json.loads((tmp_path / "out" / "gradescope.json").read_text())
    assert "score" not in gradescope  # Gradescope sums the tests, applying each one's visibility
    for test in gradescope["tests"]:
        hidden_group = any(g["name"] == test["name"] and g["hidden"] for g in result["groups"])
        assert test["visibility"] == ("after_due_date" if hidden_group else "visible")
    prairie = json.loads((tmp_path / "out" / "prairielearn.json").read_text())
    assert prairie["gradable"] and 0 <= prairie["score"] < 1
    assert all("SEED=4242" not in t["output"] for t in prairie["tests"])


def test_a_broken_upload_costs_no_prairielearn_attempt() -> None:
    result = {"gradable": False, "problems": ["roofline_attainable.sv:2: syntax error"], "score": 0, "max_score": 100}
    assert reports.prairielearn(result) == {
        "gradable": False,
        "format_errors": ["roofline_attainable.sv:2: syntax error"],
    }


# ---------------------------------------------------------------- the student copy


@needs_sandbox
@pytest.mark.sim
def test_the_student_copy_holds_no_answer_and_make_check_works_in_it(tmp_path: Path) -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = tmp_path / "student.tar.gz"
    subprocess.run(
        [sys.executable, "-m", "roofline_course.handout", "--out", str(archive)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path, filter="data")
    copy = tmp_path / "roofline-hw"
    assert not [n for n in names if n.endswith("hidden.toml") or "/dropin/" in n or n.endswith("catalogue.toml")]
    readme = (copy / "README.md").read_text()
    assert readme == (LABS_DIR / "STUDENTS.md").read_text() and "make test" not in readme and "make check LAB=" in readme
    reference = {p.name for p in RTL_DIR.glob("*.sv")}
    for name in reference & {p.name for p in (copy / "rtl").glob("*.sv")}:
        assert (copy / "rtl" / name).read_text() != (RTL_DIR / name).read_text(), f"rtl/{name} is the reference"
    # The copy borrows this checkout's interpreter without touching its install: a .venv whose bin/
    # is ours and whose stamp is fresh, so make installs nothing; PYTHONPATH puts the copy's code first.
    (copy / ".venv").mkdir()
    for part in ("bin", "lib", "pyvenv.cfg"):
        (copy / ".venv" / part).symlink_to(REPO_ROOT / ".venv" / part)
    (copy / ".venv" / ".installed").touch()
    python_path = os.pathsep.join(str(copy / part) for part in ("model", "core", "tb", "course", "flows", "cli"))
    env = {**os.environ, "PYTHONPATH": python_path, "ROOFLINE_BUILD": str(tmp_path / "build")}
    run = subprocess.run(
        ["make", "-s", "check", "LAB=1", "RTL=labs/lab1/starter"], cwd=copy, capture_output=True, text=True, env=env
    )
    assert "could not grade" not in run.stdout and "graded:" in run.stdout, run.stdout + run.stderr
    for number in (1, 2, 3, 4, 5):
        lab = load_lab(number, with_hidden=False)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "roofline_course.grade",
                "--lab",
                str(number),
                "--rtl",
                "rtl",
                "--visible-only",
                "--timeout",
                "20",
                "--out",
                str(tmp_path / f"g{number}"),
            ],
            cwd=copy,
            capture_output=True,
            text=True,
            env=env,
        )
        assert run.returncode != 0, f"lab {number}: the student copy's rtl/ passes:\n{run.stdout}"
        assert lab.top


# ---------------------------------------------------------------- a class


NAMES = ["jose@1", "jose_1", "Zoë", "Zoé", "kim.sv", "kim", "a b", "c:d", "e;f"]


@needs_sandbox
@pytest.mark.sim
def test_grade_all_keeps_every_name_apart_and_regrades_one_in_place(tmp_path: Path) -> None:
    room = tmp_path / "class"
    room.mkdir()
    broken = "module roofline_attainable(input logic a_i); assign = ; endmodule\n"
    for name in NAMES:
        if name.endswith(".sv"):
            (room / name).write_text(broken)
        else:
            (room / name).mkdir()
            (room / name / "roofline_attainable.sv").write_text(broken)
    reference_copy(room / "correct")
    shutil.copytree(room / "correct", room / "copied")
    with zipfile.ZipFile(room / "zipped.zip", "w") as bundle:
        bundle.writestr("roofline_attainable.sv", broken)
    (room / ".hidden").mkdir()
    (room / "notes.txt").write_text("not a submission")
    (room / "late").mkdir()
    (room / "late" / "roofline_attainable.sv").write_text(broken)
    # Lateness comes from the platform's export beside the class (never from a file in a submission)
    (room / "submission_metadata.yml").write_text("late:\n  :created_at: 2026-11-03 10:00:00 +00:00\n")
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "roofline_course.grade_all",
        "--lab",
        "1",
        "--submissions",
        str(room),
        "--out",
        str(out),
        "--timeout",
        "20",
        "--jobs",
        "2",
        "--due",
        "2026-11-01T23:59:00+00:00",
        "--late-penalty",
        "10",
    ]
    run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    everything = {p.name for p in room.iterdir()} - {"submission_metadata.yml"}
    assert set(rows) == everything, set(rows) ^ everything
    assert rows["correct"]["score"] == "100" and rows["jose@1"]["status"] == "compile error"
    assert rows[".hidden"]["status"] == "not graded" and "dot" in rows[".hidden"]["first problem"]
    assert rows["notes.txt"]["status"] == "not graded"
    assert rows["late"]["late_days"] == "2" and rows["late"]["late_penalty"] == "20"
    page = (out / "dashboard.html").read_text()
    for section in ("Scores", "Pass rate per group", "Most common problems", "Students", "Similar submissions"):
        assert f"<h2>{section}</h2>" in page
    assert re.search(r"<td>100%</td><td>copied</td><td>correct</td>", page), (
        "identical submissions are not listed as similar"
    )
    first_run = sorted((out / "runs").iterdir())
    (room / "kim" / "roofline_attainable.sv").write_text("".join((RTL_DIR / n).read_text() for n in LAB1_FILES))
    run = subprocess.run([*command, "--student", "kim"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    again = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    assert again["kim"]["score"] == "100" and again["kim.sv"] == rows["kim.sv"] and again["correct"] == rows["correct"]
    assert all(run_dir.exists() for run_dir in first_run) and len(list((out / "runs").iterdir())) == 2
    assert not sandbox_processes()


def test_an_unknown_student_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_course.grade_all",
            "--lab",
            "1",
            "--submissions",
            str(tmp_path / "class"),
            "--student",
            "nobody",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "STUDENT=nobody" in run.stderr and run.stderr.count("\n") == 1


def test_zip_members_cannot_escape_and_bombs_are_refused(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr("big.sv", "0" * (intake.MAX_ARCHIVE_BYTES + 1))
    with pytest.raises(intake.IntakeError, match="too large"):
        intake.stage(str(bomb), tmp_path / "s")


@needs_sandbox
@pytest.mark.sim
def test_grading_on_verilator_runs_in_the_sandbox_and_refuses_c_code(tmp_path: Path) -> None:
    code, result, stdout = grade(RTL_DIR, tmp_path / "out", "--visible-only", "--sim", "verilator")
    assert code == 0 and result["score"] == result["max_score"], stdout
    folder = reference_copy(
        tmp_path / "c_code", ("roofline_attainable.sv", "endmodule", '  initial $c("system(\\"id\\");");\nendmodule')
    )
    check = precheck("roofline_attainable", str(folder), [ParamSet()], tmp_path / "pre", verilator=True)
    assert check.stage == "forbidden" and any("$c" in problem for problem in check.problems), check.problems


def test_no_hidden_simulation_is_alive_beside_a_visible_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every visible batch ends before the first hidden one starts, however many run at once."""
    import threading
    import time

    lab = load_lab(4)
    events: list[tuple[str, bool, float]] = []
    lock = threading.Lock()

    def fake_batch(lab_, batch, check, rtl, settings, out, earlier, timeout):  # noqa: ANN001, ANN202
        with lock:
            events.append(("start", batch[0].hidden, time.monotonic()))
        time.sleep(0.05)
        with lock:
            events.append(("end", batch[0].hidden, time.monotonic()))
        return [grading.GroupScore(group, group.weight, "pass") for group in batch]

    monkeypatch.setattr(grading, "grade_batch", fake_batch)
    monkeypatch.setattr(grading, "precheck", lambda *args, **kwargs: Precheck("ok"))
    grading.grade(lab, "x", tmp_path, grading.Settings(parallel=4), progress=False)
    visible_end = max(t for what, hidden, t in events if what == "end" and not hidden)
    hidden_start = min(t for what, hidden, t in events if what == "start" and hidden)
    assert sum(1 for what, hidden, _ in events if what == "start" and hidden) >= 2  # several hidden batches ran
    assert visible_end <= hidden_start, events
