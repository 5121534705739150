"""Lab 6, verify the unit: the grader of students' testbenches, its marks, its feedback and its security.

The everyday tier: the lab's files, the judge's rules on made-up runs, the intake, the student
copy's listing (the port channel and the design bank have their own file, test_port_channel.py).
The full tier grades the testbenches of tests/testbenches/ and the lab's own (each once a
session): the solution to full marks, the starter and the hostile ones to 0, the weak one in
between, and checks that nothing tells one design from another but its ports.
"""

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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from commands import command_env
from places import TESTBENCHES_DIR
from real_grading import needs_sandbox
from skip_policy import SANDBOX_REASON

from roofline_core.contract import MODULES, ParamSet
from roofline_core.paths import LABS_DIR, MUTANT_CATALOGUE, REPO_ROOT
from roofline_course import sandbox
from roofline_course.handout import unpack
from roofline_course.intake.submission import IntakeError
from roofline_course.intake.testbench import stage
from roofline_course.labs.definitions import load_lab
from roofline_course.labs.designs import EXAMPLES, Design, resolve
from roofline_course.testbench_lab import grade as testbench_lab
from roofline_course.testbench_lab import marks
from roofline_course.testbench_lab import run as runs
from roofline_course.testbench_lab.port_channel import Transcript
from roofline_course.testbench_lab.port_shell import SHELL, SHELL_TOP
from roofline_course.testbench_lab.run import RanTest, RunResult, read_reply
from roofline_golden import QFormat, fixed

LAB = 6
FOLDER = LABS_DIR / "lab6"
TESTBENCHES = TESTBENCHES_DIR
SOLUTION, STARTER = FOLDER / "solution", FOLDER / "starter"
DEFAULT = ParamSet()
HIDES_THE_HARNESS = "its mounts hide the harness from a testbench (the uid isolation cannot)"
needs_bwrap = pytest.mark.skipif(sandbox.available() is not None or sandbox.mode() != "bwrap",
                                 reason=f"{SANDBOX_REASON}: {sandbox.available() or HIDES_THE_HARNESS}")


def mutants() -> list[dict]:
    """Every mutant a lab 6 group may name: the catalogue's and the lab's own."""
    files = (MUTANT_CATALOGUE, FOLDER / "mutants.toml")
    return [mutant for path in files for mutant in tomllib.loads(path.read_text())["mutant"]]


def hidden_design_words() -> list[str]:
    """What no student-facing view may hold: a design's id, its description, its source text."""
    words = []
    for mutant in mutants():
        words += [mutant["id"], mutant["bug"], mutant["mutated"].strip()[:30]]
    return [word for word in words if len(word) >= 6]


# ---------------------------------------------------------------- the lab's files


def test_lab6_is_a_testbench_lab_whose_handout_lists_every_group_and_names_no_hidden_design() -> None:
    lab = load_lab(LAB)
    assert lab.kind == "testbench" and lab.max_score == 100 and lab.reference == SOLUTION
    assert any(g.hidden for g in lab.groups) and any(not g.hidden for g in lab.groups)
    handout = (FOLDER / "handout.md").read_text()
    for group in lab.groups:
        assert f"| {group.name} |" in handout and group.covers in handout, group.name
        for text in group.designs:
            assert resolve(text, group.param_set, FOLDER, lab.top).id == text
    visible = (FOLDER / "lab.toml").read_text() + handout + STARTER.joinpath("test_roofline_attainable.py").read_text()
    assert not [word for word in hidden_design_words() if word in visible]
    assert all(not g.hidden for g in load_lab(LAB, with_hidden=False).groups)


def test_the_port_shell_has_the_contract_ports_of_the_labs_module() -> None:
    """The shell the student's testbench drives stands in for the lab's module: same name, same
    ports in the same order and direction, as the contract table gives them."""
    assert SHELL_TOP == load_lab("6").top
    declared = re.findall(r"^\s*(input|output)\s+(?:wire|reg)\s+(?:\[[^]]*\]\s*)?(\w+)", SHELL.split("endmodule")[0], re.M)
    expected = [("output" if port.output else "input", port.name) for port in MODULES[SHELL_TOP].ports]
    assert declared == expected


def test_the_student_copy_holds_lab6_without_its_answers(tmp_path: Path) -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = tmp_path / "student.tar.gz"
    subprocess.run([sys.executable, "-m", "roofline_course.handout", "--out", str(archive)], cwd=REPO_ROOT, check=True,
                   capture_output=True)
    names = set(tarfile.open(archive).getnames())
    for kept in ("lab.toml", "handout.md", "starter/test_roofline_attainable.py"):
        assert f"roofline-hw/labs/lab6/{kept}" in names
    answers = [n for n in names if "/labs/lab6/solution" in n or n.endswith(("lab6/mutants.toml", "lab6/hidden.toml"))]
    assert not answers and not [n for n in names if n.endswith("catalogue.toml")]


# ---------------------------------------------------------------- the judge's rules, on made-up runs


def model(name: str) -> Design:
    return resolve(name, DEFAULT, FOLDER, "roofline_attainable")


def run(design: str, claim: str, exposed: bool, *, toggled: bool = True, failed: str = "test_x.test_ridge",
        group: str = "g", violation: str = "") -> RunResult:
    tests = [RanTest(failed, "failed", "WEAK-MARKER 0x123")] if claim == "fail" else [RanTest("t.a", "passed")]
    transcript = Transcript(queries=5, known=5, toggled=toggled, exposed_at=2 if exposed else None, violation=violation)
    return RunResult(model(design), group, transcript, tests, 1.0, False, False, "runs/run-00.log")


GROUP = load_lab(LAB).groups[1]


def test_a_catch_needs_a_failure_on_a_run_that_exposed_the_bug() -> None:
    assert marks.caught(run("example:verdict_inverted", "fail", exposed=True))
    assert not marks.caught(run("example:verdict_inverted", "pass", exposed=True))
    unexposed = run("example:verdict_inverted", "fail", exposed=False)
    assert not marks.caught(unexposed) and "answered every vector your testbench applied exactly as the correct design" \
        in marks.false_alarm(unexposed)
    tampered = run("example:verdict_inverted", "fail", exposed=True, violation="the grader's port channel received x")
    assert not marks.caught(tampered)
    assert marks.false_alarm(run("model:reference", "fail", exposed=False)) == "your testbench failed the correct design"


@pytest.mark.parametrize("tests", [[], [RanTest("t.a", "skipped")], None])
def test_a_run_in_which_no_test_ran_claims_nothing_passed_and_is_a_false_alarm_on_the_correct_design(
        tests: list[RanTest] | None) -> None:
    """No test run is no pass: on the correct design it is the testbench's problem, on a faulty one no catch."""
    nothing = replace(run("model:reference", "pass", exposed=False), tests=tests)
    assert nothing.claim == "fail" and marks.false_alarm(nothing)
    exposed = replace(run("example:verdict_inverted", "pass", exposed=True), tests=tests)
    assert exposed.claim == "fail"  # no test passed it: a testbench that runs nothing says "fail" of every design
    assert not marks.gate([nothing, run("example:verdict_inverted", "fail", exposed=True)]).ok


def test_the_gate_stops_a_false_alarm_a_testbench_that_never_drives_and_one_that_checks_nothing() -> None:
    reference = GROUP.__class__(**{**GROUP.__dict__, "name": "r", "kind": "reference", "weight": 10})
    bugs = [run("example:verdict_inverted", "fail", exposed=True)]
    good = marks.gate([run("model:reference", "pass", False), *bugs])
    assert good.ok and marks.score_reference(reference, [run("model:reference", "pass", False)], good, bugs).score == 10
    alarm = marks.gate([run("model:reference", "fail", False), *bugs])
    assert not alarm.ok and any("WEAK-MARKER" in line for line in alarm.problems)  # the correct design's own message
    idle = marks.gate([run("model:reference", "pass", False, toggled=False), *bugs])
    assert not idle.ok and "never changed the design's inputs" in idle.problems[0]
    lenient = [run("example:verdict_inverted", "pass", exposed=True)]
    nothing = marks.score_reference(reference, [run("model:reference", "pass", False)], good, lenient)
    assert nothing.score == 0 and "checks nothing" in " ".join(nothing.detail)
    assert marks.score_bugs(GROUP, bugs, alarm, bugs).score == 0


def test_bug_feedback_names_kinds_and_the_students_tests_never_a_design_or_a_vector() -> None:
    runs = [run("example:verdict_inverted", "fail", exposed=True, failed="test_x.test_verdict"),
            run("example:no_memory_roof", "pass", exposed=True), run("example:no_compute_roof", "pass", exposed=False)]
    scored = marks.score_bugs(GROUP, runs, marks.Gate(), runs)
    text = "\n".join(scored.detail)
    assert scored.score == pytest.approx(20 / 3) and scored.status == "partial"
    assert "verdict       1 of 1 caught (by test_verdict)" in text
    assert "memory roof   0 of 1 caught; 1 misbehaved on your vectors and your testbench passed it" in text
    assert "compute roof  0 of 1 caught; 1 never misbehaved on your vectors" in text
    assert "what to test: right of the ridge cap_o is peak" in text
    assert scored.failing == ["missed: memory roof", "missed: compute roof"]
    shown = text + " ".join(scored.failing)
    assert not [name for name in EXAMPLES if name in shown] and "WEAK-MARKER" not in shown and "0x" not in shown


def test_a_reply_is_read_strictly() -> None:
    good = json.dumps({"returncode": 0, "tests": [{"name": "m.t", "outcome": "passed", "message": ""}]}).encode()
    assert read_reply(good) == ([RanTest("m.t", "passed", "")], "")
    assert read_reply(b"") == (None, "")
    for bad in (b"{", b"[]", json.dumps({"tests": [{"name": "m.t", "outcome": "won"}]}).encode(), b'{"tests": 3}'):
        tests, problem = read_reply(bad)
        assert tests is None and problem
    assert RunResult(model("model:reference"), "g", Transcript(), [], 0, False, False, "").claim == "fail"  # no test ran


def test_the_order_of_the_runs_is_random() -> None:
    lab = load_lab(LAB)
    orders = {tuple(r.design.id for r in testbench_lab.plan(lab, list(lab.groups))) for _ in range(3)}
    assert len(orders) > 1


# ---------------------------------------------------------------- intake


def test_intake_takes_a_file_a_folder_with_helpers_or_a_zip_and_says_what_it_cannot(tmp_path: Path) -> None:
    folder = tmp_path / "mine" / "tb"
    folder.mkdir(parents=True)
    (folder / "test_unit.py").write_text("import helpers\n")
    (folder / "helpers.py").write_text("")
    (folder / "notes.txt").write_text("")
    (folder / "link.py").symlink_to("/etc/passwd")
    staged = stage(str(tmp_path / "mine"), tmp_path / "s1")
    assert staged.modules == ["test_unit"] and staged.folder == "tb" and "tb/notes.txt (not a Python file)" in staged.ignored
    assert any("symbolic link" in note for note in staged.notes) and not (staged.root / "tb" / "link.py").exists()
    bundle = tmp_path / "tb.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        archive.writestr("test_a.py", "")
        archive.writestr("../escape.py", "")
    assert stage(str(bundle), tmp_path / "s2").modules == ["test_a"]
    assert stage(str(folder / "test_unit.py"), tmp_path / "s3").modules == ["test_unit"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "test_b.py").write_text("")
    (tmp_path / "mine" / "test_c.py").write_text("")
    problems = {"no test module": tmp_path / "mine" / "tb" / "helpers.py", "more than one folder": tmp_path / "mine",
                "no such file": tmp_path / "missing"}
    for expected, spec in problems.items():
        with pytest.raises(IntakeError, match=expected):
            stage(str(spec), tmp_path / "s4")


# ---------------------------------------------------------------- gradings


def grade(testbench: Path, out: Path, *extra: str) -> tuple[int, dict, str]:
    run_ = subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(LAB), "--tb", str(testbench),
                           "--out", str(out), *extra], cwd=REPO_ROOT, capture_output=True, text=True)
    result = json.loads((out / "result.json").read_text()) if (out / "result.json").exists() else {}
    return run_.returncode, result, run_.stdout + run_.stderr


@pytest.fixture(scope="session")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], tuple[int, dict, str, Path]]:
    """Each testbench graded once a session (every group): (exit status, result.json, output, report folder)."""
    done: dict[Path, tuple[int, dict, str, Path]] = {}

    def get(testbench: Path) -> tuple[int, dict, str, Path]:
        if testbench not in done:
            out = tmp_path_factory.mktemp(testbench.name)
            done[testbench] = (*grade(testbench, out), out)
        return done[testbench]

    return get


def groups(result: dict) -> dict[str, tuple[float, str]]:
    return {g["name"]: (g["score"], g["status"]) for g in result["groups"]}


def student_views(out: Path) -> str:
    """Everything a student is ever shown: Gradescope's results (hidden groups after the due date) and PrairieLearn's."""
    return (out / "gradescope.json").read_text() + (out / "prairielearn.json").read_text() + (out / "junit.xml").read_text()


@pytest.mark.full
@needs_sandbox
@pytest.mark.sim
def test_make_check_gives_the_solution_every_visible_mark(tmp_path: Path) -> None:
    code, result, output = grade(SOLUTION, tmp_path, "--visible-only")
    assert code == 0 and result["score"] == 30 and "full marks" in output, output
    assert groups(result)["coverage (not scored)"] == (0.0, "shown")
    assert "reached 8 of the contract's 8 functional bins" in output


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_the_solution_gets_full_marks_and_catches_every_design_on_a_run_that_exposed_it(graded: Callable) -> None:
    code, result, output, out = graded(SOLUTION)
    assert code == 0 and result["score"] == 100, output
    runs = json.loads((out / "designs.json").read_text())
    faulty = [r for r in runs if r["kind"]]
    assert len(faulty) == sum(1 for g in load_lab(LAB).groups for d in g.designs if d.split(":")[0] not in ("model", "rtl"))
    assert all(r["caught"] and r["exposed_at"] is not None for r in faulty)  # every mutant differs from the reference
    assert all(r["claim"] == "pass" and r["exposed_at"] is None for r in runs if not r["kind"])
    gradescope = json.loads((out / "gradescope.json").read_text())
    assert {t["visibility"] for t in gradescope["tests"]} == {"visible", "after_due_date"}


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_the_starter_checks_nothing_and_scores_nothing_and_is_told_so(graded: Callable) -> None:
    code, result, output, _ = graded(STARTER)
    assert code == 1 and result["score"] == 0, output
    assert "it also passed every example bug: it drives the design and checks nothing" in output
    assert "misbehaved on your vectors and your testbench passed it" in output


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_weak_testbench_scores_between_and_its_feedback_names_kinds_never_a_design(graded: Callable) -> None:
    code, result, output, out = graded(TESTBENCHES / "weak")
    scores = groups(result)
    assert code == 1 and 30 < result["score"] < 90, output
    assert scores["no false alarm"] == (10, "pass") and scores["example bugs"] == (20, "pass")
    assert 0 < scores["hidden bugs"][0] < 60 and scores["hidden bugs"][1] == "partial"
    hidden = next(g for g in result["groups"] if g["name"] == "hidden bugs")
    text = "\n".join(hidden["detail"])
    assert "ridge tie" in text and "1 of 1 caught (by test_documents)" in text
    assert "never misbehaved on your vectors" in text and "what to test: a tie (exactly half an LSB) rounds up" in text
    views = student_views(out)
    assert not [word for word in hidden_design_words() if word in views]
    assert "WEAK-MARKER" not in views and not re.search(r"0x[0-9a-f]{3,}", views)  # its messages on faulty designs: never
    gradescope = json.loads((out / "gradescope.json").read_text())
    assert all(t["visibility"] == "after_due_date" for t in gradescope["tests"] if t["name"] in ("hidden bugs", "another format"))
    prairielearn = json.loads((out / "prairielearn.json").read_text())
    assert {t["name"] for t in prairielearn["tests"]} == {g.name for g in load_lab(LAB).groups if not g.hidden}


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("name, said", [
    ("fail_all", "FALSE ALARM: your testbench failed the correct design (UQ24.16, 2 runs): its check is wrong there"),
    ("no_drive", "your testbench never changed the design's inputs on the correct design"),
    ("channel", "the grader's port channel received something that is not a vector of the design's inputs"),
])
def test_a_testbench_that_does_not_drive_and_check_the_design_scores_nothing_and_is_told_why(
        graded: Callable, name: str, said: str) -> None:
    code, result, output, _ = graded(TESTBENCHES / name)
    assert code == 1 and result["score"] == 0 and said in output, output
    assert groups(result)["hidden bugs"] == (0, "not run")  # a testbench that fails the gate meets no hidden design


def snoop_lines(out: Path, prefix: str) -> list[str]:
    return [line for log in sorted((out / "runs").glob("*.log")) for line in log.read_text().splitlines()
            if line.startswith(prefix)]


@needs_bwrap
@pytest.mark.sim
@pytest.mark.full
def test_a_testbench_sees_the_same_on_every_design_and_nothing_of_the_grader(graded: Callable) -> None:
    _, result, output, out = graded(TESTBENCHES / "snoop")
    prints = snoop_lines(out, "FINGERPRINT ")
    runs = json.loads((out / "designs.json").read_text())
    assert len(prints) == len(runs) > 20, output
    by_format: dict[str, set[str]] = {}
    for line in prints:
        _, fmt, digest = line.split()
        by_format.setdefault(fmt, set()).add(digest)
    assert set(by_format) == {"UQ24.16", "UQ16.12"} and all(len(d) == 1 for d in by_format.values()), by_format
    assert snoop_lines(out, "LEAK ") == [] and snoop_lines(out, "STATE ") == []
    seen = snoop_lines(out, "SEEN ")
    assert "SEEN root roofline_port_channel: found" in seen and "SEEN root roofline_level: none" in seen
    assert not [line for line in seen if re.match(r"SEEN (?!FRAC_BITS|INT_BITS)\w+ \w+Object$", line)
                and line.split()[1] not in ("peak_i", "bw_i", "ai_i", "cap_o", "mem_bound_o")]  # dut: the ports only


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_testbench_that_looks_for_the_design_anywhere_but_its_ports_gains_nothing(graded: Callable) -> None:
    code, result, output, out = graded(TESTBENCHES / "cheat")
    assert result["score"] == 0 and not snoop_lines(out, "CHEAT-MARKER"), output
    assert all(r["claim"] == "pass" for r in json.loads((out / "designs.json").read_text()))


@pytest.fixture(scope="session")
def x_oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The x_oracle testbench with the X/Z vectors it shares with x_probe beside it."""
    folder = tmp_path_factory.mktemp("x_oracle")
    for source in (TESTBENCHES / "x_oracle" / "test_x_oracle.py", TESTBENCHES / "x_probe" / "xz_vectors.py"):
        shutil.copyfile(source, folder / source.name)
    return folder


def same_print_on_every_run(out: Path, prefix: str, least: int) -> dict[str, set[str]]:
    """What each of at least `least` runs printed after `prefix` (`<format> <digest...>`), by format: one value
    per format, or the test fails."""
    runs = json.loads((out / "designs.json").read_text())
    prints = snoop_lines(out, prefix)
    assert len(prints) == len(runs) >= least, prints
    by_format: dict[str, set[str]] = {}
    for line in prints:
        _, fmt, rest = line.split(" ", 2)
        by_format.setdefault(fmt, set()).add(rest)
    assert set(by_format) == {"UQ24.16", "UQ16.12"} and all(len(seen) == 1 for seen in by_format.values()), by_format
    return by_format


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("name", ["x_probe", "x_oracle"])
def test_a_testbench_that_learns_from_x_and_z_inputs_sees_the_same_on_every_design_and_scores_nothing(
        graded: Callable, x_oracle: Path, name: str) -> None:
    """x_probe knows nothing and fails a design whose X answers show known bits; x_oracle knows the references'
    X answers of an earlier grader (it scored 39.6/100 there). Every design answers X and Z inputs alike now."""
    code, result, output, out = graded(x_oracle if name == "x_oracle" else TESTBENCHES / name)
    assert code == 1 and result["score"] == 0, output
    assert "it drives the design and checks nothing" in output
    same_print_on_every_run(out, "XPRINT ", 20)  # every design, the hidden ones too
    runs = json.loads((out / "designs.json").read_text())
    assert all(r["claim"] == "pass" for r in runs) and not snoop_lines(out, "XORACLE-MARKER"), output


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_testbench_that_writes_malformed_lines_to_the_channel_gets_the_same_nothing_on_every_design(
        graded: Callable) -> None:
    code, result, output, out = graded(TESTBENCHES / "malformed")
    assert code == 1 and result["score"] == 0, output
    assert "the grader's port channel received something that is not a vector of the design's inputs" in output
    same_print_on_every_run(out, "MPRINT ", 6)  # the visible designs: a run that writes to the channel fails the gate
    runs = json.loads((out / "designs.json").read_text())
    assert all(r["violation"] and not r["caught"] for r in runs)


def grading_machine(out: Path) -> list[str]:
    """Paths of the grading machine a student must never see: the checkout, the Python, the report folder."""
    return [str(REPO_ROOT), sys.prefix, sys.base_prefix, str(out), str(Path.home())]


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_a_wrong_model_is_told_its_check_is_wrong_on_which_vector_and_never_nondeterminism(tmp_path: Path) -> None:
    """Issue 33's testbench: it truncates, and counts the ridge memory-bound. The feedback a teacher would give:
    your check is wrong, here is the vector, the correct outputs in units, the contract's clause, your message."""
    testbench = tmp_path / "submission"
    shutil.copytree(TESTBENCHES / "wrong_model", testbench)
    out = tmp_path / "out"
    code, result, output = grade(testbench, out, "--student-view")
    assert code == 1 and result["score"] == 0, output
    shown = "\n".join(next(g for g in result["groups"] if g["name"] == "no false alarm")["detail"])
    assert "FALSE ALARM: your testbench failed the correct design (UQ24.16, 2 runs): its check is wrong there" in shown
    assert "FALSE ALARM: your testbench failed the correct design (UQ16.12): its check is wrong there" in shown
    assert "(and 1 faulty design(s) whose answers to your vectors were the correct design's: the same check)" in shown
    ridge = ("test_wrong_model.test_ridge failed:\n    it failed at 6.001 ns, on the last vector it applied: peak_i "
             "0x0000640000 (100 GFLOP/s), bw_i 0x0000140000 (20 GB/s), ai_i 0x0000050000 (5 FLOP/B)\n    the correct "
             "design gives cap_o 0x0000640000 (100 GFLOP/s) and mem_bound_o 0 (compute-bound)\n    the contract there: "
             "at the ridge (ai x bw == peak exactly) the compute roof binds: mem_bound_o = 0, cap_o = peak\n    your test "
             "said: AssertionError: cap_o, mem_bound_o = (6553600, 0), expected (6553600, 1)")
    assert ridge in shown, shown
    golden = fixed.attainable(QFormat(), *(QFormat().quantize(v) for v in ("100", "20.3", "0.8125")))
    assert golden.mem_bound and f"cap_o 0x{golden.cap:010x} (~16.49375916 GFLOP/s) and mem_bound_o 1 (memory-bound)" in shown
    assert "the contract there: memory-bound (ai x bw < peak at full precision): mem_bound_o = 1, cap_o = the product " \
           "rounded to nearest, ties up" in shown
    assert f"expected ({golden.cap - 1}, 1)" in shown  # the testbench's own expected value: the product truncated
    views = {"terminal": output, "result.json": (out / "result.json").read_text(), **{
        name: (out / name).read_text() for name in ("gradescope.json", "prairielearn.json", "junit.xml", "score.txt")}}
    for view, text in views.items():
        assert "depends on something besides the ports" not in text and "Traceback" not in text, view
        assert not [path for path in grading_machine(out) if path in student_facing(view, text)], view


OPERATOR_LINES = ("grading lab ", "submission: ", "reports: ")  # make grade's own lines: where it read and wrote


def student_facing(view: str, text: str) -> str:
    """The lab's feedback in a view: all of it, less the lines in which make grade names the paths it was given
    and wrote (the terminal's and score.txt's first lines, result.json's record of them: shared by every lab)."""
    if view == "result.json":
        document = json.loads(text)
        return json.dumps({key: document[key] for key in ("problems", "warnings", "notes", "groups")})
    return "\n".join(line for line in text.splitlines() if not line.startswith(OPERATOR_LINES))


@needs_bwrap
@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("broken", ["the design named in the environment", "the harness importable"])
def test_the_security_tests_see_a_guard_removed(broken: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Negative controls, on the visible groups: with a guard taken away, the tests above fail."""
    if broken == "the harness importable":
        monkeypatch.setattr(runs, "hidden_harness", lambda channel: [])
        testbench = TESTBENCHES / "snoop"
    else:  # every run's environment names the design it serves
        served: dict[str, str] = {}
        real_design, real_env = testbench_lab.run_design, runs.cocotb_env

        def remember(design: Design, *args: object, **kwargs: object) -> RunResult:
            served["id"] = design.id
            return real_design(design, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(testbench_lab, "run_design", remember)
        monkeypatch.setattr(runs, "cocotb_env", lambda *a: {**real_env(*a), "ROOFLINE_DESIGN": served["id"]})
        testbench = TESTBENCHES / "cheat"
    lab = load_lab(LAB, with_hidden=False)
    lab = replace(lab, groups=tuple(g for g in lab.groups if g.kind != "coverage"))
    result = testbench_lab.grade(lab, str(testbench), tmp_path, limits=sandbox.Limits(), unsafe=False, slot=0, parallel=1,
                                 progress=False)
    if broken == "the harness importable":
        assert snoop_lines(tmp_path, "LEAK import roofline_golden.fixed")
    else:
        assert result.score > 0  # the cheat now catches the example bugs without checking a thing


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_make_check_works_in_the_student_copy(tmp_path: Path) -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = tmp_path / "student.tar.gz"
    subprocess.run([sys.executable, "-m", "roofline_course.handout", "--out", str(archive)], cwd=REPO_ROOT, check=True,
                   capture_output=True)
    with tarfile.open(archive) as tar:
        unpack(tar, tmp_path)
    copy = tmp_path / "roofline-hw"
    (copy / ".venv").mkdir()
    for part in ("bin", "lib", "pyvenv.cfg"):
        (copy / ".venv" / part).symlink_to(REPO_ROOT / ".venv" / part)
    (copy / ".venv" / ".installed").touch()
    python_path = os.pathsep.join(str(copy / part) for part in ("model", "core", "tb", "course", "flows", "cli"))
    env = {**command_env(), "PYTHONPATH": python_path, "ROOFLINE_BUILD": str(tmp_path / "build")}
    scores = {}
    for testbench in ("labs/lab6/starter", str(TESTBENCHES / "weak")):
        run_ = subprocess.run(["make", "-s", "check", "LAB=6", f"TB={testbench}"], cwd=copy, capture_output=True, text=True,
                              env=env)
        scores[testbench] = run_.stdout.strip().splitlines()[-1] if run_.stdout.strip() else run_.stderr
    assert scores == {"labs/lab6/starter": "graded: 0.0/30, fewer than full marks (exit 1)",
                      str(TESTBENCHES / "weak"): "graded: 30.0/30, full marks (exit 0)"}, scores


@needs_sandbox
@pytest.mark.sim
@pytest.mark.full
def test_grade_all_takes_a_class_of_testbenches_in_every_form_and_gives_its_rows_its_dashboard_and_its_similarities(
        tmp_path: Path) -> None:
    """A folder, one test_*.py file and a .zip, as `make check` and the handout take them (and an entry with no test)."""
    classroom = tmp_path / "submissions"
    shutil.copytree(SOLUTION, classroom / "ada")
    classroom.joinpath("test_bo.py").write_text((TESTBENCHES / "weak" / "test_documents.py").read_text())
    with zipfile.ZipFile(classroom / "cy.zip", "w") as bundle:
        bundle.write(TESTBENCHES / "weak" / "test_documents.py", "test_documents.py")
    (classroom / "ed").mkdir()
    (classroom / "ed" / "notes.txt").write_text("no testbench here")
    out = tmp_path / "class"
    run_ = subprocess.run([sys.executable, "-m", "roofline_course.cohort.grade_all", "--lab", str(LAB), "--submissions",
                           str(classroom), "--out", str(out), "--jobs", "2"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run_.returncode == 0, run_.stdout + run_.stderr
    assert "5x the reference's slowest simulation" in (out / "time_limit.json").read_text()  # calibrated on the solution
    rows = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    assert {name: (rows[name]["status"], float(rows[name]["score"] or 0)) for name in ("ada", "ed")} == {
        "ada": ("graded", 100), "ed": ("no files", 0)}
    assert rows["test_bo.py"]["status"] == rows["cy.zip"]["status"] == "graded"
    assert rows["test_bo.py"]["score"] == rows["cy.zip"]["score"] and 30 < float(rows["cy.zip"]["score"]) < 90
    assert "no test module" in rows["ed"]["first problem"]
    page = (out / "dashboard.html").read_text()
    assert "hidden bugs" in page and "100.0/100" in page
    pairs = list(csv.reader((out / "similarity.csv").open()))[1:]  # shared, tokens, submission, submission
    assert [(pair[0], *sorted(pair[2:])) for pair in pairs] == [("100%", "cy.zip", "test_bo.py")], pairs  # the copy only
