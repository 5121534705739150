"""The course labs: every starter compiles and fails, every reference gets full marks, and the
grader survives a class of broken, hanging and mismatched submissions."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

import pytest
from commands import command_env
from real_grading import needs_sandbox

from roofline_core.contract import ParamSet
from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_core.tools import tool_available
from roofline_course.design_lab import grade as grading
from roofline_course.design_lab.grade import simulator_stop
from roofline_course.design_lab.schedule import batches, run_in_order_of_needs
from roofline_course.intake.precheck import _compare_ports, summarize_compile_errors
from roofline_course.intake.submission import stage
from roofline_course.labs import definitions
from roofline_course.labs.definitions import LabError, available, load_lab
from roofline_course.reports.platforms import MAX_RESULTS_BYTES
from roofline_flows.rtl_mutant_catalogue import ridge_mutant_edit

LABS = [number for number in available() if load_lab(number).kind == "design"]  # lab 6 grades testbenches: test_lab6
HAS_YOSYS = tool_available("yosys") and tool_available("nextpnr-ice40")


def test_five_labs_each_with_handout_starter_and_hidden_groups() -> None:
    assert LABS == [1, 2, 3, 4, 5]
    for number in LABS:
        lab = load_lab(number)
        folder = LABS_DIR / f"lab{number}"
        handout = (folder / "handout.md").read_text()
        assert (lab.starter / f"{lab.top}.sv").exists()
        assert any(g.hidden for g in lab.groups) and any(not g.hidden for g in lab.groups)
        assert lab.max_score == 100, f"lab {number}: weights add up to {lab.max_score}"
        for group in lab.groups:  # the handout says what every group covers, hidden ones included
            assert f"| {group.name} |" in handout, f"lab {number}: the handout does not list group {group.name!r}"


def test_visible_only_leaves_hidden_groups_out() -> None:
    lab = load_lab(1, with_hidden=False)
    assert lab.groups and not any(g.hidden for g in lab.groups)


def test_lab_errors_are_named(tmp_path: Path) -> None:
    with pytest.raises(LabError, match="labs available: 1, 2, 3, 4, 5, 6"):
        load_lab(9)
    with pytest.raises(LabError, match="no such file"):
        load_lab(1, tmp_path / "missing.toml")
    bad = tmp_path / "hidden.toml"
    bad.write_text('[[group]]\nname = "x"\ncovers = "y"\nweight = 1\ntests = ["no_such_test"]\n')
    with pytest.raises(LabError, match="no_such_test"):
        load_lab(1, bad)


@pytest.mark.parametrize(("weight", "refused"), [("0", False), ("0.0", False), ("5", True), ("-0.5", True), ("-1", True)])
def test_a_coverage_group_with_a_weight_is_refused(weight: str, refused: bool, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Coverage is shown, never scored: a weight of 5 would be 5 marks no student can earn."""
    folder = tmp_path / "lab6"
    shutil.copytree(LABS_DIR / "lab6", folder)
    spec = (folder / "lab.toml").read_text()
    start = spec.index('[[group]]\nname = "coverage')
    coverage = spec[start:].replace("weight = 0\n", f"weight = {weight}\n", 1)
    (folder / "lab.toml").write_text(spec[:start] + coverage)
    monkeypatch.setattr(definitions, "LABS_DIR", tmp_path)
    if refused:
        with pytest.raises(LabError, match=f"is coverage \\(shown, not scored\\): its weight must be 0, not {float(weight):g}"):
            load_lab(6)
    else:
        assert next(g for g in load_lab(6).groups if g.kind == "coverage").weight == 0.0


def test_a_lab_whose_groups_all_score_nothing_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Coverage groups carry no marks; a lab of only those would grade every student 0 of 0."""
    folder = tmp_path / "lab6"
    shutil.copytree(LABS_DIR / "lab6", folder)
    spec = (folder / "lab.toml").read_text()
    coverage = spec[spec.index('[[group]]\nname = "coverage'):]
    (folder / "lab.toml").write_text(spec[: spec.index("[[group]]")] + coverage)
    (folder / "hidden.toml").write_text("")
    monkeypatch.setattr(definitions, "LABS_DIR", tmp_path)
    with pytest.raises(LabError, match="every group has weight 0"):
        load_lab(6)
    assert [g.weight for g in load_lab(6, with_hidden=False).groups] == [0.0]  # make check: the visible part alone
    (folder / "hidden.toml").write_text((LABS_DIR / "lab6" / "hidden.toml").read_text())
    assert load_lab(6).max_score == 70  # with the hidden groups' marks it grades


def test_compile_errors_quote_only_the_students_own_lines(tmp_path: Path) -> None:
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "roofline_attainable.sv").write_text("module roofline_attainable (input logic a_i, output logic b_o);\n"
                                                   "  assign b_o = = a_i;\nendmodule\n")
    submission = stage(str(folder), tmp_path / "staged")
    errors = summarize_compile_errors("/submission/roofline_attainable.sv:2: syntax error\n"
                                      "/etc/passwd:1: syntax error\n", submission)
    assert errors[0].startswith("roofline_attainable.sv:2:") and "assign b_o = = a_i;" in errors[0]
    assert errors[1] == "passwd (not one of your files):1: syntax error"
    many = "\n".join(f"/submission/f.sv:{n}: error: bad" for n in range(1, 12))
    summary = summarize_compile_errors(many, submission)
    assert len(summary) == 6 and summary[-1] == "... and 6 more"


def test_port_comparison_names_each_problem() -> None:
    p = ParamSet(8, 8, 1, 16)
    ports = {"peak_i": ("input", 16), "bw_i": ("input", 15), "ai_i": ("output", 16), "cap": ("output", 16),
             "mem_bound_o": ("output", 1)}
    problems, widths = _compare_ports("roofline_attainable", p,
                                      {n: {"direction": d, "bits": [0] * w} for n, (d, w) in ports.items()})
    text = "\n".join(problems)
    assert "port cap_o is missing: declare it as an output of 16 bits" in text
    assert "port ai_i is an output; the contract makes it an input" in text
    assert "port cap is not in the contract" in text
    # a wrong width does not stop grading: it costs the ports group and what it breaks, with its fix
    assert len(widths) == 1 and "port bw_i is 15 bits wide" in widths[0] and "says 16" in widths[0]
    assert "derive its width from the parameters" in widths[0] and "bw_i" not in text


def run_grade(number: int, rtl: Path, out: Path, *extra: str) -> tuple[int, dict, str]:
    run = subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(number), "--rtl", str(rtl),
                          "--out", str(out), *extra], cwd=REPO_ROOT, capture_output=True, text=True)
    result = out / "result.json"
    assert result.is_file(), f"the grader wrote no result.json (exit {run.returncode}): {run.stdout}{run.stderr}"
    return run.returncode, json.loads(result.read_text()), run.stdout


# make test grades lab 1 (one grade as a smoke test of the grader); make test-all grades them all.
EVERYDAY_LAB = 1


@needs_sandbox
@pytest.mark.sim
@pytest.mark.parametrize("number", [pytest.param(n, marks=() if n == EVERYDAY_LAB else pytest.mark.full) for n in LABS])
def test_reference_gets_full_marks(number: int, tmp_path: Path) -> None:
    if number == 5 and not HAS_YOSYS:
        pytest.skip("lab 5 grades synthesis: needs yosys and nextpnr-ice40 (pip install -e '.[eda]')")
    code, summary, stdout = run_grade(number, RTL_DIR, tmp_path)
    assert code == 0 and summary["score"] == 100, stdout
    results = json.loads((tmp_path / "gradescope.json").read_text())
    assert sum(t["score"] for t in results["tests"]) == 100 and all(t["status"] == "passed" for t in results["tests"])
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_due_date"}
    assert "failures=\"0\"" in (tmp_path / "junit.xml").read_text()


# What each starter's report must say: the teaching message the student reads first.
STARTER_MESSAGES = {
    1: "MISMATCH roofline_attainable [document_cases calculator_check_1",
    2: "rounds up to peak",
    3: "TIMEOUT roofline_intensity: no done_o within 84 cycles",
    4: re.compile(r"binding_o +expected 0  actual 3"),
    5: "a result out of nowhere",
}


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("number", LABS)
def test_starter_compiles_and_fails_with_a_teaching_message(number: int, tmp_path: Path) -> None:
    lab = load_lab(number)
    code, summary, stdout = run_grade(number, lab.starter, tmp_path, "--visible-only")
    assert summary["status"] == "graded", stdout  # it compiled and its ports are the contract's
    assert code == 1 and summary["score"] < 60, stdout
    message = STARTER_MESSAGES[number]
    assert (message.search(stdout) if isinstance(message, re.Pattern) else message in stdout), stdout
    # a visible group reruns on the student's own copy: make check, and make sim for its tests alone
    assert f"run it yourself: make check LAB={number} RTL=" in stdout and "(this group's tests alone: make sim TOP=" in stdout


def write_submission(folder: Path, files: dict[str, str]) -> None:
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)


HANGING = """module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic                          mem_bound_o
);
  bit toggle, echo;  // a combinational loop: once peak_i is not zero, the time step never ends
  always @(echo or peak_i) toggle = (peak_i != '0) && !echo;
  always @(toggle) echo = toggle;
  assign cap_o = peak_i & bw_i & ai_i & {(INT_BITS+FRAC_BITS){toggle}};
  assign mem_bound_o = toggle;
endmodule
"""


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_grade_all_over_a_mixed_class(tmp_path: Path) -> None:
    reference = {name: (RTL_DIR / name).read_text() for name in
                 ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")}
    classroom = tmp_path / "submissions"
    write_submission(classroom / "correct", reference)
    write_submission(classroom / "ridge_bug", {**reference, "roofline_round_cap.sv": reference["roofline_round_cap.sv"]
                                               .replace(*ridge_mutant_edit()[1:])})
    write_submission(classroom / "syntax", {**reference, "roofline_level.sv": reference["roofline_level.sv"]
                                            .replace("endmodule", "  wire [3:0] = 4'd1;\nendmodule")})
    write_submission(classroom / "hangs", {"roofline_attainable.sv": HANGING})
    starter = (LABS_DIR / "lab1" / "starter" / "roofline_attainable.sv").read_text()
    write_submission(classroom / "wrong_port", {"roofline_attainable.sv": starter.replace("cap_o", "cap_out")})
    (classroom / "empty").mkdir()
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "roofline_course.cohort.grade_all", "--lab", "1", "--submissions", str(classroom),
                          "--out", str(out), "--timeout", "25"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    assert set(rows) == {"correct", "ridge_bug", "syntax", "hangs", "wrong_port", "empty"}
    assert (rows["correct"]["status"], rows["correct"]["score"]) == ("graded", "100")
    assert rows["ridge_bug"]["status"] == "graded" and 0 < float(rows["ridge_bug"]["score"]) < 100
    assert "calculator_check_2_ridge" in rows["ridge_bug"]["first problem"]
    assert rows["syntax"]["status"] == "compile error" and "roofline_level.sv:" in rows["syntax"]["first problem"]
    assert rows["hangs"]["status"] == "timeout" and float(rows["hangs"]["score"]) < 100
    assert "TIMEOUT" in rows["hangs"]["first problem"]
    assert rows["wrong_port"]["status"] == "missing port" and "port cap_o is missing" in rows["wrong_port"]["first problem"]
    assert rows["empty"]["status"] == "no files"
    assert not subprocess.run(["pgrep", "-f", str(out)], capture_output=True).stdout, "a simulator outlived its timeout"


def test_a_group_that_requires_others_starts_once_they_are_scored_ahead_of_the_queue() -> None:
    lab = load_lab(5)
    started: list[str] = []

    def run(batch: list, earlier: dict) -> list:
        first = batch[0]
        started.append(first.name)
        assert all(name in earlier for name in first.requires), (first.name, sorted(earlier))
        return [grading.GroupScore(group, group.weight, "pass", []) for group in batch]

    scored = run_in_order_of_needs(batches(lab.groups), run, parallel=1)
    assert set(scored) == {group.name for group in lab.groups}
    assert started[1] == "synthesis", started  # right after the batch it requires, not after every hidden group


def test_groups_that_require_each_other_are_skipped_not_waited_for_forever(tmp_path: Path) -> None:
    lab = load_lab(1)
    base = next(group for group in lab.groups if not group.hidden)
    circle = [replace(base, name="a", requires=("b",)), replace(base, name="b", requires=("a",))]

    def run(batch: list, earlier: dict) -> list:  # a skipped batch returns before it needs a submission
        return grading.grade_batch(lab, batch, None, "", grading.Settings(), tmp_path, earlier, 1.0)

    scored = run_in_order_of_needs(batches(tuple(circle)), run, parallel=2)
    assert {name: score.status for name, score in scored.items()} == {"a": "skipped", "b": "skipped"}


def test_handout_archive_leaves_hidden_groups_out() -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    subprocess.run(["make", "-s", "handout"], cwd=REPO_ROOT, check=True, capture_output=True, env=command_env())
    names = tarfile.open(REPO_ROOT / "build" / "handout" / "roofline-hw-student.tar.gz").getnames()
    assert "roofline-hw/labs/lab1/lab.toml" in names and "roofline-hw/labs/lab1/starter/roofline_attainable.sv" in names
    assert not [n for n in names if n.endswith("hidden.toml")]


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_gradescope_run_autograder_on_a_mock_layout(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "source").symlink_to(REPO_ROOT)
    shutil.copy(LABS_DIR / "lab1" / "starter" / "roofline_attainable.sv", root / "submission")
    run = subprocess.run(["bash", str(LABS_DIR / "gradescope" / "run_autograder")], capture_output=True, text=True,
                         env={**os.environ, "AUTOGRADER_ROOT": str(root), "LAB": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert 0 < sum(t["score"] for t in results["tests"]) < 100
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_due_date"}
    assert "SEED=4242" not in run.stdout and "(after the due date)" in run.stdout  # stdout: the visible groups only
    # What a student reads runs on their own copy and names no file of the grading machine.
    shown = json.dumps(results) + run.stdout
    assert "make check LAB=1 RTL=<your folder>" in shown and str(root) not in shown and "/autograder" not in shown
    assert "sim.log" not in shown and "groups/" not in shown
    assert (root / "results" / "results.json").stat().st_size <= MAX_RESULTS_BYTES


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_prairielearn_run_on_a_mock_layout_shows_the_visible_groups_only(tmp_path: Path) -> None:
    root = tmp_path / "grade"
    (root / "student").mkdir(parents=True)
    shutil.copy(LABS_DIR / "lab1" / "starter" / "roofline_attainable.sv", root / "student")
    run = subprocess.run(["bash", str(LABS_DIR / "prairielearn" / "run")], capture_output=True, text=True,
                         env={**os.environ, "PRAIRIELEARN_ROOT": str(root), "ROOFLINE_SOURCE": str(REPO_ROOT), "LAB": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    visible = [g for g in load_lab(1).groups if not g.hidden]
    assert results["gradable"] and [t["name"] for t in results["tests"]] == [g.name for g in visible]
    earned = sum(t["points"] for t in results["tests"])
    assert results["score"] == pytest.approx(earned / sum(g.weight for g in visible), abs=1e-6) and earned < 65
    hidden = [g.name for g in load_lab(1).groups if g.hidden]
    assert not [name for name in hidden if name in json.dumps(results)], "a hidden group reached PrairieLearn"
    shown = json.dumps(results)
    assert "make check LAB=1 RTL=<your folder>" in shown and str(root) not in shown and "sim.log" not in shown
    assert (root / "results" / "results.json").stat().st_size <= MAX_RESULTS_BYTES


def test_verilator_loop_is_named_in_the_report() -> None:
    log = "INFO %Error-DIDNOTCONVERGE: /x/roofline_attainable.sv:2: Active region did not converge\n"
    assert "combinational loop" in simulator_stop(log) and "roofline_attainable.sv:2" in simulator_stop(log)
    assert simulator_stop("INFO all fine\n") == ""


@pytest.mark.sim
def test_make_sim_prints_the_summary_and_failures_and_keeps_the_log_in_a_file() -> None:
    run = subprocess.run([sys.executable, "-m", "roofline_cocotb.sim", "--top", "roofline_attainable", "--rtl",
                          str(LABS_DIR / "lab1" / "starter"), "--seed", "3"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert len(lines) < 80, f"{len(lines)} lines"
    assert any("MISMATCH roofline_attainable" in line for line in lines) and "summary:" in lines
    log = next(line.split()[-1] for line in lines if line.strip().endswith("sim.log"))
    assert Path(log).stat().st_size > 10_000  # the simulator's whole output went there


@pytest.mark.parametrize("script", ["gradescope/run_autograder", "prairielearn/run"])
def test_a_platforms_rerun_lines_name_the_students_folder_not_the_grading_machines(script: str) -> None:
    """The platform scripts grade with --rerun-rtl '<your folder>': a visible group's rerun line is
    make check on the student's own copy, and the tests' own line reruns on it too."""
    assert "--rerun-rtl '<your folder>'" in (LABS_DIR / script).read_text()
    lab = load_lab(1)
    visible = next(g for g in lab.groups if not g.hidden and g.tests == ("document_cases",))
    line = grading.rerun_hint(lab, visible, "<your folder>", "icarus")
    assert line.startswith("make check LAB=1 RTL=<your folder>  (this group's tests alone: make sim TOP=roofline_attainable")
    assert line.endswith("RTL=<your folder>)")
    hidden = next(g for g in lab.groups if g.hidden)
    assert grading.rerun_hint(lab, hidden, "<your folder>", "icarus").startswith("make sim TOP=roofline_attainable")
