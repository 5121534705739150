"""A verdict needs evidence (core/roofline_core/scoreboard.py): a test that checked nothing is no
pass and earns nothing, in the bench's own verdict and in a lab's marks (design_lab.judge and
scoring), whatever it planned and however it ended."""

from __future__ import annotations

import logging

import pytest

from roofline_bench.tape import Reply
from roofline_core.config import BenchConfig
from roofline_core.contract import SMALL_SET
from roofline_core.scoreboard import Field, Scoreboard, Verdict
from roofline_course.design_lab import judge, scoring
from roofline_course.labs.definitions import load_lab

PLANNED = 2000  # the case: 0 of 2,000 vectors


def test_a_verdict_with_nothing_checked_is_no_pass_and_earns_nothing() -> None:
    nothing = Verdict("random_sweep", 0, (), PLANNED, ())
    assert not nothing.passed and nothing.credit == 0.0 and nothing.cases_passed == 0
    assert "nothing was checked" in nothing.message()
    unplanned = Verdict("random_sweep", 0, (), 0, ())
    assert not unplanned.passed and unplanned.credit == 0.0
    one = Verdict("random_sweep", 1, (), 1, ())  # the control: one check, right, is a pass
    assert one.passed and one.credit == 1.0


def test_a_scoreboard_that_checked_nothing_fails_its_test() -> None:
    board = Scoreboard(BenchConfig("roofline_attainable", "icarus", SMALL_SET, seed=1), "random_sweep",
                       logging.getLogger("test_scoreboard"))
    board.plan(PLANNED)
    with pytest.raises(AssertionError, match="0 checked, 0 failed"):
        board.finish()
    board.check(0, "v0", [], [Field("cap_o", 1, 1)])  # the control: a check, right
    assert board.verdict().checked == 1 and board.verdict().passed


@pytest.mark.parametrize("number", [1, 2, 3, 4, 5])
def test_a_group_whose_tests_checked_nothing_scores_nothing_in_every_lab(number: int) -> None:
    lab = load_lab(number, with_hidden=False)
    for group in (g for g in lab.groups if g.tests):
        found = {test: Verdict(test, 0, (), PLANNED, ()) for test in group.tests}
        assert scoring.earned(lab, group, list(found.values())) == 0.0, group.name
        assert scoring.earned(lab, group, []) == 0.0  # no verdict at all: nothing earned
        result = judge.score(lab, group, found, Reply(), judge.RunFacts(1.0, False, 60.0, False, "log"), "make check")
        assert result.score == 0.0 and result.status == "fail", (group.name, result)
        assert any(f"0 of {PLANNED} passed" in line for line in result.detail), result.detail


def test_a_mismatch_reclassified_as_a_handshake_keeps_the_fail_and_counts_as_the_event() -> None:
    board = Scoreboard(BenchConfig("roofline_hierarchy_pipe", "icarus", SMALL_SET, seed=1), "random_stalls_both_sides",
                       logging.getLogger("test"))
    board.check(7, "log_uniform", ["inputs"], [Field("cap_o", 5, 9)])
    board.check(8, "log_uniform", ["inputs"], [Field("cap_o", 9, 9)])
    assert not board.reclassify(8, "handshake", "not a mismatch")  # a vector that passed has nothing to reclassify
    assert board.reclassify(7, "handshake", "BACK-PRESSURE: input 7's result is input 8's")
    verdict = board.verdict()
    assert verdict.failed == ("7",) and verdict.checked == 2
    assert verdict.broke(("handshake",)) == ("handshake",) and verdict.count("mismatch") == 0
    assert [f.kind for f in verdict.failures] == ["handshake"]
    assert any("input 7's result is input 8's" in report for report in verdict.reports)
    with pytest.raises(ValueError, match="unknown failure kind"):
        board.reclassify(7, "no such kind", "")
