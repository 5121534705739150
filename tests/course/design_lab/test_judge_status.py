"""A group's status when one of its tests' simulations stopped before it ended (design_lab/judge.score):
"crash", whichever test it was and however the others did, with the marks the others and its cases
earned; a group whose tests all ended is "pass", "partial" or "fail" by its marks."""

from __future__ import annotations

import pytest
from outcomes import LAB1  # noqa: F401

from roofline_bench.tape import Reply
from roofline_core.contract import ParamSet
from roofline_core.scoreboard import Verdict
from roofline_course.design_lab import judge
from roofline_course.labs.definitions import Group

GROUP = Group("three tests", 30, False, "covers", ParamSet(8, 8), tests=("edge_cases", "document_cases", "random_sweep"))
FACTS = judge.RunFacts(2.0, timed_out=False, limit_s=60, crashed=False, log="log")


def passing(test: str) -> Verdict:
    return Verdict(test, 10, (), 10, ())


def ran_out(test: str) -> Verdict:
    return Verdict(test, 4, (), 10, (), stopped="the simulation stopped answering", ran_out=True)


@pytest.mark.parametrize("stopped", GROUP.tests)
def test_one_test_that_ran_out_makes_the_group_a_crash_whichever_it_was(stopped: str) -> None:
    verdicts = {test: ran_out(test) if test == stopped else passing(test) for test in GROUP.tests}
    scored = judge.score(LAB1, GROUP, verdicts, Reply(), FACTS, "make sim")
    assert scored.status == "crash" and scored.score == pytest.approx(30 * (2 + 0.4) / 3)


@pytest.mark.parametrize(("verdicts", "status"), [
    ({test: passing(test) for test in GROUP.tests}, "pass"),
    ({**{test: passing(test) for test in GROUP.tests}, "edge_cases": Verdict("edge_cases", 10, ("1",), 10, ())},
     "partial"),
])
def test_a_group_whose_tests_all_ended_is_graded_by_its_marks(verdicts: dict[str, Verdict], status: str) -> None:
    assert judge.score(LAB1, GROUP, verdicts, Reply(), FACTS, "make sim").status == status
