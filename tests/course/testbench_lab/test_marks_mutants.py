"""Lab 6's marks on made-up runs, rule by rule (make mutation's tests for testbench_lab/marks.py).

The rules are marks.py's docstring and lab 6's handout: a run that behaved correctly must pass (else a
false alarm); a faulty design is caught when the testbench failed it, timed out or crashed on a run that
exposed it, without writing to the grader's channel; a false alarm among the visible runs, or a correct
design never driven, scores the lab 0; `no false alarm` scores only with a visible bug caught; a bugs
group scores its weight times the share caught. Every expected number is that arithmetic.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from roofline_core.contract import ParamSet
from roofline_core.paths import LABS_DIR
from roofline_course.labs.definitions import load_lab
from roofline_course.labs.designs import Design, resolve
from roofline_course.testbench_lab import grade as tb_grade
from roofline_course.testbench_lab import marks
from roofline_course.testbench_lab.port_channel import Transcript
from roofline_course.testbench_lab.run import RanTest, RunResult

LAB = load_lab(6)
REFERENCE_GROUP = next(g for g in LAB.groups if g.kind == "reference")  # no false alarm, 10 marks
BUGS_GROUP = next(g for g in LAB.groups if g.name == "example bugs")  # 20 marks
DEFAULT_FORMAT, OTHER_FORMAT = ParamSet(), ParamSet(int_bits=16, frac_bits=12)


def design(name: str, fmt: ParamSet = DEFAULT_FORMAT) -> Design:
    return resolve(name, fmt, LABS_DIR / "lab6", "roofline_attainable")


CORRECT, FAULTY, OTHER_FAULTY = "model:reference", "example:verdict_inverted", "example:no_memory_roof"


def run(name: str, claim: str = "pass", *, exposed: bool = False, toggled: bool = True, violation: str = "",
        timed_out: bool = False, crashed: bool = False, tests: list[RanTest] | None | str = "claim", problem: str = "",
        grader_error: str = "", known: int = 5, digest: str = "d1", seconds: float = 1.0, fmt: ParamSet = DEFAULT_FORMAT,
        log: str = "runs/run.log", failed: str = "test_x.test_ridge") -> RunResult:
    if tests == "claim":
        tests = [RanTest(failed, "failed", "assert 3 == 4")] if claim == "fail" else [RanTest("test_x.test_a", "passed")]
    transcript = Transcript(queries=known, known=known, toggled=toggled, exposed_at=2 if exposed else None,
                            violation=violation, digest=digest)
    return RunResult(design(name, fmt), "g", transcript, tests, seconds, timed_out, crashed, log, problem, grader_error)


# ---------------------------------------------------------------- caught


@pytest.mark.parametrize(("made", "expected"), [
    (dict(name=FAULTY, claim="fail", exposed=True), True),
    (dict(name=FAULTY, claim="pass", exposed=True, timed_out=True), True),  # did not finish on it: caught
    (dict(name=FAULTY, claim="pass", exposed=True, crashed=True), True),
    (dict(name=FAULTY, claim="pass", exposed=True), False),
    (dict(name=FAULTY, claim="fail", exposed=False), False),  # never reached the bug
    (dict(name=FAULTY, claim="fail", exposed=True, violation="the grader's port channel received x"), False),
    (dict(name=CORRECT, claim="fail", exposed=True), False),  # the correct design is never a catch
    (dict(name=CORRECT, claim="pass", exposed=True, timed_out=True, crashed=True), False),
])
def test_a_catch_is_a_failure_timeout_or_crash_on_a_run_that_exposed_a_faulty_design(made: dict, expected: bool) -> None:
    assert marks.caught(run(**made)) is expected


# ---------------------------------------------------------------- false alarms and a run's problems

ON_CORRECT = "the correct design"
ON_HIDDEN = "a faulty design that answered every vector your testbench applied exactly as the correct design does"


@pytest.mark.parametrize(("made", "expected"), [
    (dict(name=CORRECT), ""),
    (dict(name=CORRECT, claim="fail"), f"your testbench failed {ON_CORRECT}"),
    (dict(name=FAULTY, claim="fail"), f"your testbench failed {ON_HIDDEN}"),  # not exposed: behaved correctly
    (dict(name=FAULTY, claim="fail", exposed=True), ""),  # a catch, not an alarm
    (dict(name=FAULTY, claim="pass", exposed=True, timed_out=True), ""),
    (dict(name=CORRECT, violation="the grader's port channel received x"),
     f"on {ON_CORRECT}, the grader's port channel received x: drive the design only through dut's ports"),
    (dict(name=CORRECT, timed_out=True, seconds=12.6),
     f"your testbench did not finish on {ON_CORRECT} within the time limit (13 s)"),
    (dict(name=CORRECT, crashed=True, tests=None),
     f"your testbench was stopped by a limit (memory, processes, output or CPU time) on {ON_CORRECT}"),
    (dict(name=CORRECT, crashed=True), ""),  # crashed after its tests passed: their results stand
    (dict(name=CORRECT, crashed=True, claim="fail"), f"your testbench failed {ON_CORRECT}"),
    (dict(name=CORRECT, tests=None, problem="the run's reply could not be read"),
     f"on {ON_CORRECT}: the run's reply could not be read"),
    (dict(name=CORRECT, tests=None), f"your testbench gave no results on {ON_CORRECT}: cocotb did not run it (see the log)"),
    (dict(name=CORRECT, tests=[]), f"your testbench ran no test on {ON_CORRECT}: decorate each test with @cocotb.test()"),
    (dict(name=CORRECT, tests=[RanTest("t.a", "skipped")]),
     f"your testbench ran no test on {ON_CORRECT}: decorate each test with @cocotb.test()"),
])
def test_a_run_that_behaved_correctly_and_did_not_pass_is_a_false_alarm_that_says_why(made: dict, expected: str) -> None:
    assert marks.false_alarm(run(**made)) == expected


def test_a_run_problem_outranks_the_verdict_and_a_passing_run_has_none() -> None:
    both = run(CORRECT, "fail", violation="v", timed_out=True, crashed=True, tests=None, problem="p")
    assert marks.run_problem(both).startswith(f"on {ON_CORRECT}, v:")
    assert marks.run_problem(run(CORRECT, timed_out=True, crashed=True, tests=None)).startswith("your testbench did not finish")
    assert marks.run_problem(run(CORRECT, problem="p")) == f"on {ON_CORRECT}: p"  # an unread reply is no pass
    assert marks.run_problem(run(CORRECT, "fail")) == ""  # a plain failed verdict: diagnosis explains it


# ---------------------------------------------------------------- the gate over the visible runs


def test_the_gate_passes_clean_visible_runs() -> None:
    gate = marks.gate([run(CORRECT), run(CORRECT, fmt=OTHER_FORMAT, digest="d2"), run(FAULTY, "fail", exposed=True)])
    assert gate.ok and (gate.problems, gate.notes, gate.tag, gate.log) == ([], [], "", "")


def test_a_grader_error_stops_the_gate_as_the_graders_fault_alone() -> None:
    gate = marks.gate([run(CORRECT, "fail", toggled=False), run(FAULTY, grader_error="bank broke")])
    assert not gate.ok and gate.problems == [marks.GRADER_FAULT] and gate.tag == "grader error"


def test_a_visible_false_alarm_stops_the_gate_and_shows_the_correct_designs_log() -> None:
    gate = marks.gate([run(FAULTY, "fail", log="runs/faulty.log"), run(CORRECT, "fail", log="runs/correct.log"),
                       run(FAULTY, "fail", exposed=True)])
    assert not gate.ok and gate.tag == "false alarm" and gate.log == "runs/correct.log"
    assert any("FALSE ALARM" in line for line in gate.problems)


def test_a_problem_on_several_runs_is_one_line_counting_them() -> None:
    gate = marks.gate([run(CORRECT, timed_out=True, seconds=5.0, log="a.log"), run(CORRECT, timed_out=True, seconds=5.0),
                       run(FAULTY, timed_out=True, seconds=5.0, log="f.log")])
    expected = f"your testbench did not finish on {ON_CORRECT} within the time limit (5 s) (on 2 runs)"
    assert gate.problems == [expected, f"your testbench did not finish on {ON_HIDDEN} within the time limit (5 s)"]
    assert gate.log == "a.log"
    only_faulty = marks.gate([run(CORRECT), run(FAULTY, timed_out=True, log="f.log")])
    assert only_faulty.log == "f.log"  # no correct design among the alarms: the first alarm's log


@pytest.mark.parametrize("violation", ["", "the grader's port channel received x"])
def test_a_correct_design_never_driven_stops_the_gate_unless_the_channel_was_the_problem(violation: str) -> None:
    gate = marks.gate([run(CORRECT, toggled=False, violation=violation), run(FAULTY, "fail", exposed=True)])
    idle = [p for p in gate.problems if "never changed the design's inputs" in p]
    assert not gate.ok and len(idle) == (0 if violation else 1)
    assert gate.tag == ("false alarm" if violation else "does not drive the design")
    undriven_faulty = marks.gate([run(CORRECT), run(FAULTY, "fail", exposed=True, toggled=False)])
    assert undriven_faulty.ok  # only the correct design's runs must be driven


def test_one_correct_run_never_driven_among_driven_ones_stops_the_gate() -> None:
    """Each correct design's run must be driven, not one of them: lab 6 shows three correct runs, and a
    testbench that leaves one format undriven checked nothing there."""
    driven, idle = run(CORRECT, digest="a"), run(CORRECT, fmt=OTHER_FORMAT, toggled=False, digest="b")
    gate = marks.gate([driven, idle, run(FAULTY, "fail", exposed=True)])
    assert not gate.ok and gate.tag == "does not drive the design"
    assert marks.gate([driven, run(CORRECT, fmt=OTHER_FORMAT, digest="b"), run(FAULTY, "fail", exposed=True)]).ok


def test_a_false_alarm_and_no_driving_keep_the_alarms_tag_and_both_lines() -> None:
    gate = marks.gate([run(CORRECT, "fail", toggled=False)])
    assert gate.tag == "false alarm" and len(gate.problems) >= 2
    assert "never changed the design's inputs" in gate.problems[-1]


def test_different_vectors_on_alike_runs_of_one_format_are_noted_not_scored() -> None:
    noted = marks.gate([run(CORRECT, digest="a"), run(CORRECT, digest="b")])
    assert noted.ok and len(noted.notes) == 1 and "not deterministic" in noted.notes[0]
    for runs in ([run(CORRECT, digest="a"), run(CORRECT, digest="b", fmt=OTHER_FORMAT)],  # two formats
                 [run(CORRECT, digest="a"), run(FAULTY, "fail", exposed=True, digest="b")],  # the bug showed
                 [run(CORRECT, digest="a"), run(CORRECT, digest="a")],
                 [run(CORRECT, digest="a"), run(CORRECT, digest="b", timed_out=True)]):  # cut short
        assert not [n for n in marks.gate(runs).notes if "not deterministic" in n], runs
    assert marks.gate([run(CORRECT, digest="a"), run(FAULTY, digest="b")]).notes  # the bug never showed: alike


# ---------------------------------------------------------------- no false alarm (the reference group)


def test_no_false_alarm_scores_its_weight_when_a_visible_bug_is_caught() -> None:
    correct = [run(CORRECT, known=40, seconds=2.0), run(CORRECT, known=21, seconds=3.5, fmt=OTHER_FORMAT)]
    bugs = [run(FAULTY, "pass", exposed=True), run(OTHER_FAULTY, "fail", exposed=True)]
    gate = marks.gate(correct + bugs)
    scored = marks.score_reference(REFERENCE_GROUP, correct, gate, bugs)
    assert (scored.score, scored.status, scored.detail, scored.seconds) == (10.0, "pass", [], 3.5)


def test_no_false_alarm_detail_counts_the_runs_formats_and_vectors_a_run() -> None:
    correct = [run(CORRECT, known=4000, digest="a"), run(CORRECT, known=1001, digest="b"),
               run(CORRECT, known=7, fmt=OTHER_FORMAT), run(FAULTY, known=999, exposed=True, claim="fail")]
    gate = marks.gate(correct)
    assert gate.notes  # alike runs, two digests: the note makes the detail shown
    scored = marks.score_reference(REFERENCE_GROUP, correct, gate, [correct[-1]])
    assert scored.score == 10.0 and scored.detail[0] == (
        "your testbench passed the correct design on all 3 runs (UQ24.16, UQ16.12), 1,669 vectors a run")  # 5008 // 3
    assert scored.detail[1:] == gate.notes


def test_no_false_alarm_scores_nothing_when_every_visible_bug_passed() -> None:
    correct = [run(CORRECT, known=10, seconds=4.0)]
    lenient = [run(FAULTY, "pass", exposed=True), run(OTHER_FAULTY, "fail", exposed=False)]
    scored = marks.score_reference(REFERENCE_GROUP, correct, marks.Gate(), lenient)
    assert (scored.score, scored.status, scored.failing, scored.seconds) == (0.0, "fail", ["checks nothing"], 4.0)
    assert scored.detail[0] == "your testbench passed the correct design on all 1 runs (UQ24.16), 10 vectors a run"
    assert "checks nothing that tells a faulty one apart" in scored.detail[1]
    assert marks.score_reference(REFERENCE_GROUP, correct, marks.Gate(), []).score == 0.0  # no bug to catch


def test_no_false_alarm_scores_nothing_through_a_stopped_gate_and_says_why() -> None:
    gate = marks.Gate(problems=["p1"], notes=["n1"], log="runs/x.log", tag="false alarm")
    scored = marks.score_reference(REFERENCE_GROUP, [], gate, [run(FAULTY, "fail", exposed=True)])
    assert (scored.score, scored.status, scored.failing, scored.log, scored.seconds) == (0.0, "fail", ["false alarm"],
                                                                                         "runs/x.log", 0.0)
    assert scored.detail[:2] == ["p1", "n1"] and "scores nothing in this lab" in scored.detail[2]


def test_the_vectors_a_run_never_divide_by_zero_runs() -> None:
    scored = marks.score_reference(REFERENCE_GROUP, [], marks.Gate(), [run(FAULTY, "fail", exposed=True)])
    assert scored.score == 10.0  # no correct run in this group: nothing to divide, nothing failed


# ---------------------------------------------------------------- a group of bugs


@pytest.mark.parametrize(("claims", "score", "status"), [
    (("fail", "fail", "fail"), 20.0, "pass"), (("fail", "pass", "pass"), 20 / 3, "partial"),
    (("fail", "fail", "pass"), 40 / 3, "partial"), (("pass", "pass", "pass"), 0.0, "fail"),
])
def test_a_bugs_group_scores_its_weight_times_the_share_caught(claims: tuple[str, ...], score: float, status: str) -> None:
    names = (FAULTY, OTHER_FAULTY, "example:no_compute_roof")
    runs = [run(CORRECT, seconds=7.0)] + [run(n, c, exposed=True, seconds=1.0) for n, c in zip(names, claims, strict=True)]
    scored = marks.score_bugs(BUGS_GROUP, runs, marks.Gate(), runs)
    assert (scored.score, scored.status, scored.seconds) == (pytest.approx(score), status, 7.0)
    caught = claims.count("fail")
    assert scored.detail[0] == f"caught {caught} of 3 faulty designs"
    assert len(scored.detail) == (1 if status == "pass" else 1 + len(marks.by_kind(runs[1:])))
    assert len(scored.failing) == 3 - caught and all(line.startswith("missed: ") for line in scored.failing)


def test_a_bugs_group_without_faulty_designs_scores_nothing() -> None:
    scored = marks.score_bugs(BUGS_GROUP, [run(CORRECT)], marks.Gate(), [run(CORRECT)])
    assert (scored.score, scored.status, scored.detail[0]) == (0.0, "pass", "caught 0 of 0 faulty designs")


def test_a_bugs_group_is_not_run_through_a_stopped_gate_and_errors_on_the_graders_fault() -> None:
    runs = [run(FAULTY, "fail", exposed=True, seconds=2.5)]
    stopped = marks.score_bugs(BUGS_GROUP, runs, marks.Gate(problems=["x"]), runs)
    assert (stopped.score, stopped.status, stopped.detail, stopped.seconds) == (0.0, "not run", [marks.NOT_SCORED], 2.5)
    broken = [*runs, run(OTHER_FAULTY, "fail", exposed=True, grader_error="bank")]
    error = marks.score_bugs(BUGS_GROUP, broken, marks.Gate(), broken)
    assert (error.score, error.status, error.detail) == (0.0, "error", [marks.GRADER_FAULT])


def test_a_false_alarm_in_a_hidden_group_scores_that_group_nothing() -> None:
    runs = [run(CORRECT, "fail", log="runs/c.log"), run(FAULTY, "fail", exposed=True), run(OTHER_FAULTY, "fail", exposed=True)]
    scored = marks.score_bugs(BUGS_GROUP, runs, marks.Gate(), runs)
    assert (scored.score, scored.status, scored.failing, scored.log) == (0.0, "fail", ["false alarm"], "runs/c.log")
    assert scored.detail[-1] == "a false alarm scores this group nothing"
    faulty_alarm = [run(FAULTY, "fail"), run(OTHER_FAULTY, "fail", exposed=True)]  # failed a design that behaved
    assert marks.score_bugs(BUGS_GROUP, faulty_alarm, marks.Gate(), faulty_alarm).score == 0.0


def test_a_caught_design_needs_its_own_exposure_not_another_runs() -> None:
    runs = [run(FAULTY, "fail", exposed=True), replace(run(OTHER_FAULTY, "fail", exposed=True),
                                                       transcript=Transcript(known=5, toggled=True, exposed_at=0))]
    assert marks.score_bugs(BUGS_GROUP, runs, marks.Gate(), runs).score == 20.0  # exposed at query 0 is exposed


def test_a_false_alarm_after_a_caught_design_is_still_an_alarm() -> None:
    """Every run that behaved correctly is judged, wherever it comes among the runs that exposed a bug."""
    runs = [run(CORRECT), run(FAULTY, "fail", exposed=True), run(OTHER_FAULTY, "fail")]
    scored = marks.score_bugs(BUGS_GROUP, runs, marks.Gate(), runs)
    assert (scored.score, scored.status, scored.failing) == (0.0, "fail", ["false alarm"])
    assert not marks.gate(runs).ok


def test_without_the_correct_design_among_the_alarms_the_first_alarms_log_is_shown() -> None:
    runs = [run(CORRECT), run(FAULTY, timed_out=True, log="runs/first.log"), run(OTHER_FAULTY, "fail", log="runs/second.log")]
    lines, log = marks.alarm_lines(runs, runs)
    assert log == "runs/first.log" and len(lines) >= 2


def test_a_group_with_no_run_took_no_time() -> None:
    assert marks.score_bugs(BUGS_GROUP, [], marks.Gate(), []).seconds == 0.0
    assert marks.score_bugs(BUGS_GROUP, [], marks.Gate(problems=["x"]), []).seconds == 0.0


# ---------------------------------------------------------------- grade.score: each group to its own rule

GROUPS = {group.name: group for group in LAB.groups}
HIDDEN_GROUP = next(g for g in LAB.groups if g.hidden)  # hidden bugs, 60 marks
COVERAGE_GROUP = next(g for g in LAB.groups if g.kind == "coverage")


def in_group(made: RunResult, group: str) -> RunResult:
    return replace(made, group=group, group_hidden=GROUPS[group].hidden)


def test_no_false_alarm_counts_only_the_visible_bugs_caught() -> None:
    """The reference group's rule needs a visible bug caught: a catch among the hidden designs does not count
    (before the due date it would tell the student a hidden design was caught)."""
    correct = in_group(run(CORRECT), REFERENCE_GROUP.name)
    lenient_visible = in_group(run(FAULTY, "pass", exposed=True), BUGS_GROUP.name)
    caught_hidden = in_group(run(OTHER_FAULTY, "fail", exposed=True), HIDDEN_GROUP.name)
    runs = [correct, lenient_visible, caught_hidden]
    assert tb_grade.score(REFERENCE_GROUP, runs, marks.Gate()).score == 0.0
    caught_visible = in_group(run(OTHER_FAULTY, "fail", exposed=True), BUGS_GROUP.name)
    assert tb_grade.score(REFERENCE_GROUP, [*runs, caught_visible], marks.Gate()).score == REFERENCE_GROUP.weight


def test_a_bugs_group_scores_only_its_own_runs() -> None:
    """Example bugs (20 marks, visible): one of its two designs caught is 10 marks; a catch in another group adds nothing."""
    own = [in_group(run(FAULTY, "fail", exposed=True), BUGS_GROUP.name),
           in_group(run(OTHER_FAULTY, "pass", exposed=True), BUGS_GROUP.name)]
    elsewhere = in_group(run(OTHER_FAULTY, "fail", exposed=True), HIDDEN_GROUP.name)
    scored = tb_grade.score(BUGS_GROUP, [*own, elsewhere, in_group(run(CORRECT), REFERENCE_GROUP.name)], marks.Gate())
    assert scored.score == pytest.approx(BUGS_GROUP.weight / 2)


def test_a_hidden_group_behind_a_stopped_gate_is_not_run_and_scores_nothing() -> None:
    caught = in_group(run(FAULTY, "fail", exposed=True), HIDDEN_GROUP.name)
    stopped = marks.Gate(problems=["your testbench failed the correct design"])
    scored = tb_grade.score(HIDDEN_GROUP, [caught], stopped)
    assert (scored.score, scored.status, scored.detail) == (0.0, "not run", [marks.NOT_SCORED])
    assert tb_grade.score(HIDDEN_GROUP, [caught], marks.Gate()).score == HIDDEN_GROUP.weight  # the control: gate open


def test_coverage_is_shown_from_the_visible_runs_of_the_correct_design_alone() -> None:
    bins = list(marks.expected_bins(marks.SHELL_TOP, 1))
    visible = in_group(run(CORRECT), REFERENCE_GROUP.name)
    visible.transcript.coverage.update({bins[0]: 3})
    hidden = in_group(run(CORRECT), HIDDEN_GROUP.name)
    hidden.transcript.coverage.update({name: 1 for name in bins})
    scored = tb_grade.score(COVERAGE_GROUP, [visible, hidden], marks.Gate())
    assert (scored.score, scored.status) == (0.0, "shown")
    assert scored.detail[0].startswith(f"your vectors on the correct design reached 1 of the contract's {len(bins)} "
                                       "functional bins (shown, not scored; hits over its 1 runs)")


def test_the_plan_runs_every_design_of_every_group_once() -> None:
    planned = tb_grade.plan(LAB, list(LAB.groups))
    for group in LAB.groups:
        ids = sorted(run.design.id for run in planned if run.group == group)
        assert ids == sorted(group.designs), group.name  # the lab names each design by its id


def test_a_visible_bugs_group_behind_a_stopped_gate_ran_and_shows_its_time() -> None:
    """The visible runs all ran before the gate stopped: the group scores nothing but its runs' time is shown."""
    ran = in_group(run(FAULTY, "fail", exposed=True, seconds=3.0), BUGS_GROUP.name)
    stopped = marks.Gate(problems=["your testbench failed the correct design"])
    scored = tb_grade.score(BUGS_GROUP, [ran], stopped)
    assert (scored.score, scored.status, scored.detail, scored.seconds) == (0.0, "not run", [marks.NOT_SCORED], 3.0)
