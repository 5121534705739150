"""The outcomes that would go wrong silently: a grading job that dies, a status that hides a hang,
a limit that no longer binds, a checker that stops applying its bound. Each test is fast (no
simulator, no sandbox) so that `make mutation` can run it once per mutant; each expected value
comes from the lab files, the spec or the arithmetic of the roofline, never from the code under test.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from roofline_bench.tape import Reply
from roofline_core import judge as bulk_judge
from roofline_core.contract import ParamSet
from roofline_course import grade, judge, sandbox
from roofline_course.labs import Group, load_lab
from roofline_course.precheck import Precheck
from roofline_course.results import Grade, GroupScore
from roofline_golden import QFormat

LAB5 = load_lab(5, with_hidden=False)
SYNTHESIS = next(g for g in LAB5.groups if g.kind == "synthesis")  # lab5/lab.toml: weight 15, 40 MHz for full marks
LAB1 = load_lab(1, with_hidden=False)


def outcome(result: bytes = b"", returncode: int | None = 0, timed_out: bool = False) -> sandbox.Outcome:
    return sandbox.Outcome(returncode, "", "", result, 2.0, timed_out)


# ---------------------------------------------------------------- a job that dies, hangs or answers

def test_the_lab_file_is_what_these_tests_read() -> None:
    assert (SYNTHESIS.weight, SYNTHESIS.min_fmax_mhz) == (15, 40)


@pytest.mark.parametrize("died", [outcome(b"", returncode=-9), outcome(b"", returncode=1), outcome(b"{not json", returncode=0),
                                  outcome(b'{"fmax_mhz": 55.0}', returncode=0)],
                         ids=["killed-no-result", "failed-no-result", "garbled", "no-luts"])
def test_a_synthesis_job_that_gives_no_result_scores_nothing(died: sandbox.Outcome) -> None:
    score = grade._score_synthesis(SYNTHESIS, died, "groups/synthesis/sim.log")
    assert (score.score, score.status, score.full) == (0.0, "error", False)
    assert score.detail == ["synthesis gave no result", "log: groups/synthesis/sim.log"]


def test_a_synthesis_job_that_says_why_it_failed_is_told_so() -> None:
    score = grade._score_synthesis(SYNTHESIS, outcome(b'{"error": "nextpnr: no route"}'), "log")
    assert (score.score, score.status, score.detail[0]) == (0.0, "error", "nextpnr: no route")


def test_a_synthesis_job_that_hangs_scores_nothing() -> None:
    score = grade._score_synthesis(SYNTHESIS, outcome(b'{"fmax_mhz": 90, "luts": 1, "ffs": 1}', None, timed_out=True), "log")
    assert (score.score, score.status) == (0.0, "timeout")


@pytest.mark.parametrize(("fmax", "marks", "status"), [(40.0, 15.0, "pass"), (80.0, 15.0, "pass"),
                                                      (30.0, 15 * 30 / 40, "partial"), (0.0, 0.0, "partial")])
def test_synthesis_scores_in_proportion_below_the_target_clock(fmax: float, marks: float, status: str) -> None:
    result = f'{{"fmax_mhz": {fmax}, "luts": 1234, "ffs": 56, "tools": ["yosys 0.70"]}}'.encode()
    score = grade._score_synthesis(SYNTHESIS, outcome(result), "log")
    assert (score.score, score.status) == (pytest.approx(marks), status)
    assert score.detail[0] == (f"iCE40 HX8K: 1,234 LUT4, 56 flip-flops, Fmax {fmax:.1f} MHz (target 40 MHz); "
                               "ran on yosys 0.70")
    assert (len(score.detail) == 1) == (status == "pass")


def crashed_group(lab_group: Group, timed_out: bool) -> GroupScore:
    facts = judge.RunFacts(3.0, timed_out=timed_out, limit_s=60, crashed=not timed_out, log="log")
    found = judge.verdicts(LAB1, lab_group, Reply(), "icarus", "rtl")
    return judge.score(LAB1, lab_group, found, Reply(), facts, "make sim")


@pytest.mark.parametrize("group", [g for g in LAB1.groups if g.kind == "sim"], ids=lambda g: g.name)
def test_a_simulation_that_dies_with_no_reply_scores_nothing(group: Group) -> None:
    died = crashed_group(group, timed_out=False)
    assert (died.score, died.status) == (0.0, "crash")
    assert "the simulation was stopped by a limit (memory, processes, output or CPU time) before it finished" in died.detail
    hung = crashed_group(group, timed_out=True)
    assert (hung.score, hung.status) == (0.0, "timeout")
    assert hung.detail[0].startswith("TIMEOUT: the simulation did not finish within 60 s")


# ---------------------------------------------------------------- the grade's status and the exit status

def group_score(weight: float, score: float, status: str, hidden: bool = False) -> GroupScore:
    group = Group(f"g{weight}-{status}-{hidden}", weight, hidden, "covers", ParamSet(8, 8))
    return GroupScore(group, score, status)


def a_grade(*scores: GroupScore, stage: str = "ok") -> Grade:
    lab = replace(LAB1, groups=tuple(s.group for s in scores))
    return Grade(lab, "submission", Precheck(stage), list(scores))


@pytest.mark.parametrize(("statuses", "status"), [
    (("pass", "pass"), "graded"), (("pass", "partial", "fail"), "graded"), (("pass", "timeout"), "timeout"),
    (("crash", "pass"), "crash"), (("crash", "timeout"), "timeout"), (("timeout", "crash"), "timeout"),
    (("skipped", "not run"), "graded"),
])
def test_a_hang_or_a_crash_in_any_group_is_the_grades_status(statuses: tuple[str, ...], status: str) -> None:
    assert a_grade(*(group_score(10, 0.0, s) for s in statuses)).status == status


@pytest.mark.parametrize(("stage", "says"), [("files", "no files"), ("compile", "compile error"), ("ports", "missing port"),
                                            ("forbidden", "not allowed"), ("resources", "resource limit")])
def test_a_failed_check_is_the_grades_status_and_exit_2(stage: str, says: str) -> None:
    result = a_grade(group_score(10, 10.0, "pass"), stage=stage)
    assert (result.status, result.gradable, grade.exit_status(result)) == (says, False, 2)
    assert grade.final_line(result) == f"could not grade: {says} (exit 2); the problem is above"


def test_full_marks_exit_0_and_one_mark_short_exits_1() -> None:
    full = a_grade(group_score(10, 10.0, "pass"), group_score(5, 5.0, "pass"))
    short = a_grade(group_score(10, 10.0, "pass"), group_score(5, 4.0, "partial"))
    assert (full.score, full.lab.max_score, grade.exit_status(full)) == (15.0, 15.0, 0)
    assert grade.final_line(full) == "graded: 15.0/15, full marks (exit 0)"
    assert (short.score, grade.exit_status(short)) == (14.0, 1)
    assert grade.final_line(short) == "graded: 14.0/15, fewer than full marks (exit 1)"


def test_the_students_last_line_counts_the_visible_groups_only() -> None:
    result = a_grade(group_score(10, 10.0, "pass"), group_score(5, 0.0, "fail", hidden=True))
    assert grade.final_line(result, student_view=True) == (
        "graded: 10.0/10 in the visible groups; the hidden groups are shown after the due date")
    assert grade.final_line(result) == "graded: 10.0/15, fewer than full marks (exit 1)"


@pytest.mark.parametrize(("score", "full"), [(10.0, True), (10.5, True), (9.999, False), (0.0, False)])
def test_a_group_is_full_only_at_its_weight(score: float, full: bool) -> None:
    assert group_score(10, score, "pass").full is full


# ---------------------------------------------------------------- the sandbox's memory limit binds

MAP = """
import mmap, sys
from roofline_course import sandbox
sandbox._apply_limits(sandbox.Limits(), wasm=False)
try:
    mmap.mmap(-1, int(sys.argv[1]) << 20)
except OSError:
    print("refused")
else:
    print("granted")
"""


@pytest.mark.parametrize(("mib", "answer"), [(3 * 1024, "granted"), (4 * 1024 + 64, "refused"), (400 * 1024, "refused")])
def test_the_default_memory_limit_is_four_gib_of_address_space(mib: int, answer: str) -> None:
    """The default (4096 MiB per process, course/roofline_course/sandbox.py's Limits, said by every
    grade's `describe` line) refuses a mapping just above it and grants one well below it. A
    mapping reserves address space without touching memory, so the control costs nothing."""
    run = subprocess.run([sys.executable, "-c", MAP, str(mib)], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == answer, run.stdout + run.stderr


# ---------------------------------------------------------------- the bulk checker applies its error bound

def test_the_bulk_checker_flags_a_cap_outside_the_bound_even_when_the_model_agrees() -> None:
    """UQ8.8, one level: peak 100, ai 1 FLOP/B, bw 2 B/cycle, so the cap is min(100, 1 x 2) = 2.0
    (raw 512). A model and a design that both say 514 (two LSBs off, beyond half an LSB) agree with
    each other: only the error bound, checked without the model, catches it. 512 passes."""
    cfg = bulk_judge_shape()
    one = np.array([1 << 8], dtype=np.uint64)
    vectors = bulk_judge.Vectors(np.array([0]), np.array([100 << 8], dtype=np.uint64), 2 * one[:, None], one[:, None])
    products = bulk_judge.products(vectors)
    for raw, bad in ((514, True), (513, True), (512, False)):
        cap = np.array([raw], dtype=np.uint64)
        outputs = bulk_judge.Outputs(cap, np.array([True]), np.array([0]), np.zeros((1, 0), dtype=np.uint64))
        assert bool(bulk_judge.failing(cfg, vectors, outputs, outputs, products)[0]) is bad, raw


def bulk_judge_shape() -> object:
    class Shape:
        fmt = QFormat(8, 8)
        levels = 1
        hierarchy = False

    return Shape()
