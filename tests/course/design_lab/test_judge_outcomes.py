"""What the judge makes of outcomes that would go wrong silently: a run that died, a partial group, a
test lost to constant outputs, reports cut to size. Fast (no simulator, no sandbox): make mutation
runs it per mutant."""

from __future__ import annotations

from dataclasses import replace

import pytest
from outcomes import LAB1  # noqa: F401

from roofline_bench.tape import Reply
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Failure, Verdict
from roofline_course.design_lab import hints, judge
from roofline_course.labs.definitions import Group, load_lab
from roofline_course.results import GroupScore


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
        "  ... and 1 more report(s): each failing case's rerun line (make sim ... ONLY=<case>) prints its own",
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
    assert hints_shown == [f"hint (rounding): {hints.text('rounding', LAB1.top)}"]  # the group's own hint only when no kind fits
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
    lab3 = load_lab(3, with_hidden=False)
    shown = [line for line in judge.score(lab3, two_test_group(), found, Reply(), facts, "r").detail if "hint" in line]
    assert shown == [f"hint (latency): {hints.text('latency', lab3.top)}"]


def test_counts_of_cases_agree_with_their_totals_and_events_are_counted_apart() -> None:
    """The issue's "sink_waits_for_valid: 0 of 200 passed ... and 238 more": 200 cases, and 50
    results out of nowhere (events of no case) on top. The headline counts the cases, the failing
    line names cases only (never more than the total), the events get a line of their own."""
    events = tuple(f"cycle_{n}" for n in range(50))
    stalled = Verdict("sink_waits_for_valid", 200, tuple(f"{i}" for i in range(200)) + events, 200, ("R1",),
                      events=events, kinds=(("handshake", 50), ("mismatch", 200)))
    group = Group("heavy back-pressure", 10, False, "covers", ParamSet(8, 8), tests=("sink_waits_for_valid",))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    detail = judge.score(LAB1, group, {"sink_waits_for_valid": stalled}, Reply(), facts, "r").detail
    assert detail[0] == "0 of 200 passed, first failing: 0; 50 event(s) failed, the first cycle_0"
    assert detail[1] == "    failing: " + ", ".join(str(i) for i in range(12)) + " and 188 more"
    assert detail[2] == "    events that failed: " + ", ".join(events[:12]) + " and 38 more"
    assert 12 + 188 == 200 and 12 + 38 == len(events)


def test_a_case_that_timed_out_is_counted_once_and_not_as_passed() -> None:
    """Four divisions planned, three checked and right, the fourth never came (a timeout): 3 of 4."""
    waited = Verdict("document_cases", 3, ("gemm",), 4, (), kinds=(("timeout", 1),), unchecked=("gemm",))
    assert waited.cases_passed == 3 and waited.credit == pytest.approx(0.75)
    group = Group("document intensities", 10, False, "covers", ParamSet(8, 8), tests=("document_cases",))
    facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
    assert judge.score(LAB1, group, {"document_cases": waited}, Reply(), facts, "r").detail[0] == (
        "3 of 4 passed, first failing: gemm")
