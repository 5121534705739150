"""The outcomes that would go wrong silently: a grading job that dies, a status that hides a hang,
a limit that no longer binds, a checker that stops applying its bound. Each test is fast (no
simulator, no sandbox) so that `make mutation` can run it once per mutant; each expected value
comes from the lab files, the spec or the arithmetic of the roofline, never from the code under test.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from roofline_bench.tape import Reply
from roofline_core import judge as bulk_judge
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Failure, Verdict
from roofline_course import grade, hints, judge, sandbox
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


def crashed_group(lab_group: Group, timed_out: bool, stalled_s: float | None = None) -> GroupScore:
    facts = judge.RunFacts(3.0, timed_out=timed_out, limit_s=60, crashed=not timed_out, log="log", stalled_s=stalled_s)
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
    stuck = crashed_group(group, timed_out=True, stalled_s=15.0)  # stopped early: its reply fell silent
    assert (stuck.score, stuck.status) == (0.0, "timeout")
    assert stuck.detail[0].startswith("TIMEOUT: the simulation sent nothing for 15 s once it had begun (its limit is 60 s)")


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


@pytest.mark.parametrize(("mib", "answer"), [(1024, "granted"), (4 * 1024 + 64, "refused"), (400 * 1024, "refused")])
def test_the_default_memory_limit_is_four_gib_of_address_space(mib: int, answer: str) -> None:
    """The default (4096 MiB per process, docs/threat-model.md; sandbox.Limits, said by every
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


# ---------------------------------------------------------------- every default limit, as documented

DOCUMENTED_LIMITS = ("4096 MiB address space and 300 s CPU per process, 20 MiB per file, 64 processes, /tmp 256 MiB, "
                     "/run 768 MiB, output kept up to 20 MiB per stream, no network, no /proc")  # docs/threat-model.md
MIB = 1 << 20
RLIMITS = """
import resource
from roofline_course import sandbox
sandbox._apply_limits(sandbox.Limits(), wasm={wasm})
print([resource.getrlimit(getattr(resource, name)) for name in ("RLIMIT_AS", "RLIMIT_DATA", "RLIMIT_CPU", "RLIMIT_FSIZE",
                                                                 "RLIMIT_NPROC", "RLIMIT_CORE")])
"""


def test_the_default_limits_are_the_documented_ones() -> None:
    threat_model = " ".join((sandbox.REPO_ROOT / "docs" / "threat-model.md").read_text().split())
    assert DOCUMENTED_LIMITS in threat_model
    assert sandbox.Limits().describe() == DOCUMENTED_LIMITS
    assert sandbox.Limits().step_s == 60.0 and "gets 60 s of wall-clock time" in threat_model


@pytest.mark.parametrize("wasm", [False, True])
def test_every_limit_reaches_the_process(wasm: bool) -> None:
    run = subprocess.run([sys.executable, "-c", RLIMITS.format(wasm=wasm)], capture_output=True, text=True, timeout=60)
    address_space = sandbox.WASM_ADDRESS_SPACE if wasm else 4096 * MIB  # a WebAssembly runtime reserves more, and says so
    expected = [address_space, 4096 * MIB, 300, 20 * MIB, 64, 0]
    assert run.stdout.strip() == str([(value, value) for value in expected]), run.stdout + run.stderr


def test_the_scratch_folders_have_their_documented_sizes() -> None:
    line = sandbox.command(["true"], None, sandbox.Limits())
    mounts = {line[i + 1]: line[i - 4:i] for i, word in enumerate(line) if word == "--tmpfs"}
    assert mounts == {"/tmp": ["--size", str(256 * MIB), "--perms", "01777"],
                      "/run": ["--size", str(768 * MIB), "--perms", "01777"]}
    assert "--unshare-net" in line


# ---------------------------------------------------------------- more of a job's outcome

def test_a_synthesis_group_with_no_target_clock_scores_in_full() -> None:
    untimed = replace(SYNTHESIS, min_fmax_mhz=0.0)
    score = grade._score_synthesis(untimed, outcome(b'{"fmax_mhz": 12.5, "luts": 10, "ffs": 2}'), "log")
    assert (score.score, score.status) == (15.0, "pass")


def test_a_group_whose_requirement_did_not_pass_is_skipped_took_no_time_and_ran_nothing(tmp_path: Path) -> None:
    """lab5/lab.toml: synthesis requires "documents through the pipe" in full; with that group short of
    full marks the synthesis is skipped (no sandbox, no tools) and says why."""
    short = GroupScore(next(g for g in LAB5.groups if g.name == "documents through the pipe"), 1.0, "partial")
    [skipped] = grade.grade_batch(LAB5, [SYNTHESIS], Precheck("ok"), "rtl", grade.Settings(), tmp_path,
                                  {short.group.name: short}, timeout=1)
    assert (skipped.score, skipped.status, skipped.seconds) == (0.0, "skipped", 0.0)
    assert skipped.detail == ['scored only once documents through the pipe passes in full']
    assert not list(tmp_path.iterdir())  # nothing ran


# ---------------------------------------------------------------- the bound on both of its paths

def test_the_64_bit_path_is_not_taken_where_a_scaled_cap_can_pass_2_to_the_63() -> None:
    """UQ32.16 (48 bits; 48 + 16 = 64): ai 2^32 raw x bw 2^31 raw is 2^63, memory-bound under the
    largest peak, so the cap is 2^63 / 2^16 = 2^47 raw. A cap of 0 is 2^47 LSBs away: outside the
    bound, whatever a signed 64-bit subtraction would make of it."""
    fmt = QFormat(32, 16)
    product = (np.array([0], dtype=np.uint64), np.array([1 << 63], dtype=np.uint64))
    peak = np.array([fmt.max_raw], dtype=np.uint64)
    for cap, outside in ((0, True), (1, True), (1 << 47, False)):
        assert bool(bulk_judge.outside_error_bound(fmt, peak, product, np.array([cap], dtype=np.uint64))[0]) is outside, cap


def test_the_128_bit_distance_borrows_across_the_low_word() -> None:
    """UQ40.23: ai (2^32 - 1) x bw (2^32 + 1) = 2^64 - 1 raw, so the cap is (2^64 - 1) / 2^23 =
    2^41 - 2^-23, which rounds to 2^41 raw: its scaled value 2^64 is one above the product, across
    the low word. 2^41 + 1 and 2^41 - 1 are a whole LSB away."""
    fmt = QFormat(40, 23)
    product = (np.array([0], dtype=np.uint64), np.array([(1 << 64) - 1], dtype=np.uint64))
    peak = np.array([fmt.max_raw], dtype=np.uint64)
    for cap, outside in ((1 << 41, False), ((1 << 41) + 1, True), ((1 << 41) - 1, True)):
        assert bool(bulk_judge.outside_error_bound(fmt, peak, product, np.array([cap], dtype=np.uint64))[0]) is outside, cap


# ---------------------------------------------------------------- what a student reads about a group's marks

def two_test_group(weight: float = 10, hint: str = "check the rounding") -> Group:
    return Group("edges and documents", weight, False, "covers", ParamSet(8, 8), tests=("edge_cases", "document_cases"),
                 hint=hint)


def verdict(test: str, checked: int, failed: int, planned: int, reports: tuple[str, ...] = (), stopped: str = "",
            baseline: float = 0.0) -> Verdict:
    return Verdict(test, checked, tuple(f"f{i}" for i in range(failed)), planned, reports, stopped, baseline=baseline)


def test_a_partial_group_tells_how_much_passed_why_it_stopped_and_what_failed() -> None:
    """edge_cases: 3 of 20 planned passed (16 checked, 13 failed): credit 3/20; document_cases all
    passed: credit 1. Proportional over the two tests: 10 x (0.15 + 1) / 2 = 5.75."""
    long_report = "\n".join(f"line {i}" for i in range(16))
    edges = verdict("edge_cases", 16, 13, 20, (long_report, "R2", "R3", "R4"), stopped="the simulation stopped")
    documents = verdict("document_cases", 4, 0, 4)
    reply = Reply(problem="line 7: not a tape", notes=["n" * 400, "second", "third", "fourth"])
    facts = judge.RunFacts(2.0, timed_out=False, limit_s=60, crashed=False, log="groups/g/sim.log",
                           shared_with=("a", "b"), explanation="the simulator stopped: a loop")
    scored = judge.score(LAB1, two_test_group(), {"edge_cases": edges, "document_cases": documents}, reply, facts, "make sim X")
    assert (scored.score, scored.status) == (pytest.approx(5.75), "partial")
    assert scored.failing == [f"edge_cases: f{i}" for i in range(13)]
    assert scored.detail == [
        "the simulation's reply could not all be read: line 7: not a tape",
        "the simulator stopped: a loop",
        "note from the simulation: " + "n" * 300, "note from the simulation: second", "note from the simulation: third",
        "edge_cases: 3 of 20 passed, first failing: f0; it stopped early: the simulation stopped (4 not checked)",
        "    failing: " + ", ".join(f"f{i}" for i in range(12)) + " and 1 more",
        "  line 0", *(f"    line {i}" for i in range(1, 14)), "    ...",
        "  R2", "  R3",
        "  ... 1 more report(s) in the log: groups/g/sim.log",
        "hint: check the rounding",
        "run it yourself: make sim X",
        "(this simulation ran the groups a, b together)",
    ]


@pytest.mark.parametrize(("failed", "failing_line"), [(1, None), (2, "    failing: f0, f1"),
                                                      (12, "    failing: " + ", ".join(f"f{i}" for i in range(12)))])
def test_a_group_of_one_test_is_named_by_the_group_and_lists_more_than_one_failure(failed: int, failing_line: str | None) -> None:
    group = Group("edge cases", 10, False, "covers", ParamSet(8, 8), tests=("edge_cases",))
    edges = verdict("edge_cases", 20, failed, 20, ("MISMATCH one",), stopped="a missing port")
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    scored = judge.score(LAB1, group, {"edge_cases": edges}, Reply(), facts, "make sim Y")
    passed = 20 - failed
    assert scored.detail[0] == f"{passed} of 20 passed, first failing: f0; it stopped early: a missing port"
    assert scored.detail[1:] == ([failing_line] if failing_line else []) + ["  MISMATCH one", "run it yourself: make sim Y"]
    assert (scored.score, scored.status) == (pytest.approx(10 * passed / 20), "partial")


def test_less_than_one_mark_is_still_partial_and_none_is_a_fail() -> None:
    group = two_test_group(weight=1)
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    some = {"edge_cases": verdict("edge_cases", 10, 9, 10), "document_cases": verdict("document_cases", 4, 4, 4)}
    none = {"edge_cases": verdict("edge_cases", 10, 10, 10), "document_cases": verdict("document_cases", 4, 4, 4)}
    partly = judge.score(LAB1, group, some, Reply(), facts, "r")
    assert (partly.status, partly.score) == ("partial", pytest.approx(0.05))
    assert judge.score(LAB1, group, none, Reply(), facts, "r").status == "fail"


def test_a_group_that_passed_says_nothing_even_with_notes() -> None:
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log", shared_with=("a", "b"))
    found = {"edge_cases": verdict("edge_cases", 16, 0, 16), "document_cases": verdict("document_cases", 4, 0, 4)}
    scored = judge.score(LAB1, two_test_group(), found, Reply(notes=["from the design"]), facts, "r")
    assert (scored.score, scored.status, scored.detail) == (10.0, "pass", [])


def test_the_bulk_checker_flags_a_wrong_verdict_at_the_ridge_where_the_cap_is_right() -> None:
    """UQ8.8: peak 2, ai 1 FLOP/B, bw 2 B/cycle: ai*bw == peak, the ridge, where the spec has the
    compute roof bind (mem_bound 0) and the cap is 2.0 either way (raw 512). A design that says
    memory-bound there has the right cap, inside the bound: only the verdict's comparison flags it."""
    cfg = bulk_judge_shape()
    one = np.array([1 << 8], dtype=np.uint64)
    vectors = bulk_judge.Vectors(np.array([0]), np.array([2 << 8], dtype=np.uint64), 2 * one[:, None], one[:, None])
    cap, no_levels = np.array([512], dtype=np.uint64), np.zeros((1, 0), dtype=np.uint64)
    want = bulk_judge.Outputs(cap, np.array([False]), np.array([1]), no_levels)
    for mem_bound, bad in ((True, True), (False, False)):
        actual = bulk_judge.Outputs(cap, np.array([mem_bound]), np.array([1]), no_levels)
        assert bool(bulk_judge.failing(cfg, vectors, want, actual, bulk_judge.products(vectors))[0]) is bad, mem_bound


def test_a_test_that_passed_before_one_that_failed_does_not_hide_it() -> None:
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    found = {"document_cases": verdict("document_cases", 4, 0, 4), "edge_cases": verdict("edge_cases", 16, 1, 16, ("R1",))}
    scored = judge.score(LAB1, two_test_group(hint=""), found, Reply(), facts, "r")
    assert scored.detail == ["edge_cases: 15 of 16 passed, first failing: f0", "  R1", "run it yourself: r"]


CONSTANT = "check that every output is computed from the inputs, on every path"


def test_tests_passed_no_better_than_constant_outputs_are_told_so_with_the_groups_hint() -> None:
    """Credit 0 (nothing beyond what a constant design passes) says nothing of the kind of bug."""
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    found = {"edge_cases": verdict("edge_cases", 10, 10, 10), "document_cases": verdict("document_cases", 4, 3, 4, baseline=0.25)}
    scored = judge.score(LAB1, two_test_group(hint="check the rounding"), found, Reply(), facts, "r")
    told = f"hint: no case of edge_cases, document_cases passed beyond what constant outputs would pass: {CONSTANT}"
    assert scored.detail[-3:] == [told, "hint: check the rounding", "run it yourself: r"]
    no_hint = judge.score(LAB1, two_test_group(hint=""), found, Reply(), facts, "r")
    assert no_hint.detail[-2:] == [f"hint: no case of edge_cases, document_cases passed beyond what constant outputs would pass: "
                                   f"{CONSTANT}", "run it yourself: r"]


def test_a_test_with_some_credit_decides_the_hint_and_the_constant_one_is_not_named() -> None:
    rounding = Failure("v1", "label", "mismatch", (("cap_o", 16, 15),))
    partly = replace(verdict("edge_cases", 10, 1, 10), failures=(rounding,))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    found = {"edge_cases": partly, "document_cases": verdict("document_cases", 4, 4, 4)}
    hints_shown = [line for line in judge.score(LAB1, two_test_group(), found, Reply(), facts, "r").detail if "hint" in line]
    assert hints_shown == [f"hint (rounding): {hints.HINTS['rounding']}"]  # the group's own hint only when no kind fits
    found["edge_cases"] = verdict("edge_cases", 10, 1, 10)  # some credit, no failure of a kind; a test lost beside it
    hints_shown = [line for line in judge.score(LAB1, two_test_group(), found, Reply(), facts, "r").detail if "hint" in line]
    assert hints_shown == []  # the rule today: with a test lost beside it, no fallback and no "no case of" line
    found["document_cases"] = verdict("document_cases", 4, 0, 4)  # nothing lost: the group's own hint
    hints_shown = [line for line in judge.score(LAB1, two_test_group(), found, Reply(), facts, "r").detail if "hint" in line]
    assert hints_shown == ["hint: check the rounding"]


def test_a_test_that_checked_nothing_is_not_a_constant_design() -> None:
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    found = {"edge_cases": verdict("edge_cases", 0, 1, 4, stopped="a missing port"),
             "document_cases": verdict("document_cases", 4, 0, 4)}
    detail = judge.score(LAB1, two_test_group(hint=""), found, Reply(), facts, "r").detail
    assert detail == ["edge_cases: 0 of 4 passed, first failing: f0; it stopped early: a missing port (4 not checked)",
                      "run it yourself: r"]


def test_reports_are_cut_past_fourteen_lines_and_past_three_reports_only() -> None:
    fourteen = "\n".join(f"line {i}" for i in range(14))
    edges = verdict("edge_cases", 10, 3, 10, (fourteen, "R2", "R3"))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    detail = judge.score(LAB1, two_test_group(hint=""), {"edge_cases": edges}, Reply(), facts, "r").detail
    assert "    ..." not in detail and not any("more report(s)" in line for line in detail)
    assert detail[2:18] == ["  line 0", *(f"    line {i}" for i in range(1, 14)), "  R2", "  R3"]


def test_a_failure_that_names_its_kind_is_hinted_even_in_a_test_lost_to_constant_outputs() -> None:
    """judge._hints: a timeout says its kind by itself (hints.EVIDENT), however little else passed."""
    timed_out = replace(verdict("edge_cases", 10, 10, 10), failures=(Failure("v1", "label", "timeout"),))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    found = {"edge_cases": timed_out, "document_cases": verdict("document_cases", 4, 0, 4)}
    shown = [line for line in judge.score(LAB1, two_test_group(), found, Reply(), facts, "r").detail if "hint" in line]
    assert shown == [f"hint (latency): {hints.HINTS['latency']}"]
