"""Lab 6's feedback on a false alarm, on made-up runs (the everyday tier): a wrong check is told from
nondeterminism, the vector a test failed on is named in units with the contract's clause there, and no
traceback or path of the grading machine reaches the student. The real gradings (the wrong-model
testbench of tests/testbenches/wrong_model) are in test_lab6.py, the full tier.

The expected numbers are the handout's: the documents' platform (peak 100 GFLOP/s, DRAM 20 GB/s), whose
ridge is at 5 FLOP/B (cap 100, compute-bound) and whose calculator check 1 (0.5 FLOP/B) is memory-bound
with cap 10.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from roofline_core.contract import ParamSet
from roofline_core.paths import LABS_DIR, REPO_ROOT
from roofline_course.intake.precheck import Precheck
from roofline_course.labs.definitions import load_lab
from roofline_course.labs.designs import resolve
from roofline_course.reports.result import canonical, write_all
from roofline_course.reports.terminal import terminal
from roofline_course.results import Grade
from roofline_course.testbench_lab import grade as testbench_lab
from roofline_course.testbench_lab import marks
from roofline_course.testbench_lab.diagnosis import contract_clause, student_message
from roofline_course.testbench_lab.port_channel import Transcript, read_query
from roofline_course.testbench_lab.run import RanTest, RunResult
from roofline_golden import QFormat

FMT = QFormat()
ONE = FMT.one
DEFAULT = ParamSet()
# What a cocotb failure looks like when a testbench formats its own traceback into the message.
MESSAGE = (f"AssertionError: cap_o, mem_bound_o = (6553600, 0), expected (6553600, 1)\n"
           f"Traceback (most recent call last):\n  File \"/submission/test_mine.py\", line 24, in check\n"
           f"    assert got == want\n  File \"{REPO_ROOT}/.venv/lib/python3.11/site-packages/cocotb/_base.py\", line 9\n"
           f"    raise\nsee {REPO_ROOT}/build/grade/lab6/x/runs/run-00.log and /submission/helpers.py")


def line(peak: int, bw: int, ai: int, time_ps: int) -> bytes:
    return f"{peak:010x} {bw:010x} {ai:010x} {time_ps}".encode()


def transcript(digest: str = "same", x_last: bool = False) -> Transcript:
    """The documents' calculator check 1 at 0 ns, then the ridge at 5 ns (or an X vector there)."""
    found = Transcript(queries=2, known=2, toggled=True, digest=digest)
    found.record(read_query(line(100 * ONE, 20 * ONE, ONE // 2, 0), FMT))
    found.record(read_query(b"xxxxxxxxxx 0000140000 0000050000 5000" if x_last else line(100 * ONE, 20 * ONE, 5 * ONE, 5000),
                            FMT))
    return found


def run(design: str, claim: str, digest: str = "same", message: str = MESSAGE, x_last: bool = False) -> RunResult:
    tests = [RanTest("test_mine.test_ridge", "failed", message, stop_ps=6000)] if claim == "fail" else \
        [RanTest("test_mine.test_ridge", "passed", stop_ps=6000)]
    return RunResult(resolve(design, DEFAULT, LABS_DIR / "lab6", "roofline_attainable"), "g", transcript(digest, x_last), tests,
                     1.0, False, False, "runs/run-00.log")


def test_a_wrong_check_is_named_on_its_vector_with_the_correct_outputs_in_units_and_the_contracts_clause() -> None:
    visible = [run("model:reference", "fail"), run("model:reference", "fail"), run("example:no_compute_roof", "fail")]
    found = marks.gate(visible)
    text = "\n".join(found.problems)
    assert found.problems[0] == "FALSE ALARM: your testbench failed the correct design (UQ24.16, 2 runs): its check is " \
                                "wrong there, not the design"
    assert "(and 1 faulty design(s) whose answers to your vectors were the correct design's: the same check)" in text
    assert "test_mine.test_ridge failed:\n    it failed at 6 ns, on the last vector it applied: peak_i 0x0000640000 " \
           "(100 GFLOP/s), bw_i 0x0000140000 (20 GB/s), ai_i 0x0000050000 (5 FLOP/B)" in text
    assert "the correct design gives cap_o 0x0000640000 (100 GFLOP/s) and mem_bound_o 0 (compute-bound)" in text
    assert "the contract there: at the ridge (ai x bw == peak exactly) the compute roof binds" in text
    assert "your test said: AssertionError: cap_o, mem_bound_o = (6553600, 0), expected (6553600, 1)" in text
    assert "depends on something besides the ports" not in text and "Traceback" not in text and str(REPO_ROOT) not in text
    assert found.log == "runs/run-00.log" and found.tag == "false alarm"


def test_the_same_vectors_judged_two_ways_is_nondeterminism_not_a_wrong_check() -> None:
    text = "\n".join(marks.gate([run("model:reference", "pass"), run("model:reference", "fail")]).problems)
    assert text.startswith("your testbench judged the same vectors two ways (UQ24.16): on 2 runs the design answered "
                           "every vector alike, and your testbench failed 1 of them and passed 1: its verdict depends on "
                           "something besides the ports")
    assert "its check is wrong" not in text and "on the last vector it applied" in text  # where it failed, once
    hidden = run("example:no_compute_roof", "fail")  # a hidden group's run, after the gate passed the correct design
    scored = marks.score_bugs(load_lab(6).groups[1], [hidden], marks.Gate(), [run("model:reference", "pass"), hidden])
    assert scored.score == 0 and "judged the same vectors two ways" in scored.detail[0]
    assert "your test said" not in "\n".join(scored.detail)  # a faulty design's run never shows the student's message


def test_a_failure_on_vectors_the_correct_design_never_saw_blames_the_stimulus() -> None:
    text = "\n".join(marks.gate([run("model:reference", "pass"), run("example:no_compute_roof", "fail", "other")]).problems)
    assert "on vectors it never applied to the correct design: its vectors depend on something besides the ports" in text


def test_a_test_that_failed_on_an_x_vector_is_told_to_drive_known_values() -> None:
    text = "\n".join(marks.gate([run("model:reference", "fail", x_last=True)]).problems)
    assert "the last vector it applied holds an X or Z (peak_i xxxxxxxxxx, bw_i 0000140000, ai_i 0000050000)" in text
    assert "drive known values before you check" in text


def test_a_students_message_loses_its_traceback_and_the_grading_machines_paths() -> None:
    shown = student_message(MESSAGE)
    assert shown == ["AssertionError: cap_o, mem_bound_o = (6553600, 0), expected (6553600, 1)",
                     "see <path> and helpers.py"]
    assert student_message("ratio 1/2 of 3/4, at /tmp") == ["ratio 1/2 of 3/4, at /tmp"]


def test_the_contract_clause_names_each_region_of_the_handout() -> None:
    f = FMT.frac_bits
    peak = 100 * ONE
    assert contract_clause(FMT, 0, 20 * ONE, ONE).startswith("peak = 0 gives cap 0, compute-bound")
    assert contract_clause(FMT, peak, 0, ONE).startswith("ai = 0 or bw = 0 gives cap 0, memory-bound")
    assert contract_clause(FMT, peak, FMT.max_raw, FMT.max_raw).startswith("a product wider than W bits is compute-bound")
    assert contract_clause(FMT, peak, 20 * ONE, 5 * ONE).startswith("at the ridge")
    assert contract_clause(FMT, peak, 1, (peak << f) - 1).startswith("one full-precision step below the ridge")
    assert contract_clause(FMT, peak, 1 << (f - 1), 1).endswith("(this one is a tie: exactly half an LSB, so it rounds up)")
    assert contract_clause(FMT, peak, 20 * ONE, ONE // 2).startswith("memory-bound (ai x bw < peak at full precision)")
    assert contract_clause(FMT, peak, 20 * ONE, 20 * ONE).startswith("compute-bound (ai x bw > peak)")


REPORTS = ("score.txt", "junit.xml", "gradescope.json", "prairielearn.json")


@pytest.mark.parametrize("case", ["a wrong check", "a grader error"])
def test_no_traceback_or_grading_machine_path_reaches_any_view_a_student_has(tmp_path: Path, case: str) -> None:
    """Every report of a lab-6 grading (the terminal, result.json's feedback, score.txt, JUnit, Gradescope,
    PrairieLearn) from runs whose messages and errors name the grading machine."""
    lab = load_lab(6)
    visible = [run("model:reference", "fail"), run("model:reference", "fail"), run("example:verdict_inverted", "fail")]
    visible[2].transcript.exposed_at = 0
    if case == "a grader error":
        visible[0].grader_error = f"the RTL bank did not compile: {REPO_ROOT}/build/testbench-lab/lab6-x/bank0/d3/edited.sv:9"
    for result in visible:
        result.group = next(g.name for g in lab.groups if result.design.id in g.designs)
    verdict = marks.gate(visible)
    grade = Grade(lab, "submission", Precheck("ok"), [testbench_lab.score(group, visible, verdict) for group in lab.groups])
    document = canonical(grade)
    write_all(document, tmp_path)
    views = {"terminal": "\n".join(terminal(document, visible_only=True)),
             "result.json": json.dumps([document[key] for key in ("problems", "warnings", "notes", "groups")]),
             **{name: (tmp_path / name).read_text() for name in REPORTS}}
    expected = marks.GRADER_FAULT if case == "a grader error" else "its check is wrong there, not the design"
    for view, text in views.items():
        assert expected in text, view
        assert "Traceback" not in text and 'File "' not in text and str(REPO_ROOT) not in text, view
        assert "edited.sv" not in text and "bank0" not in text, view  # nor the grader's own files
