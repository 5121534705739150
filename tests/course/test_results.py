"""A grade's status and a group's full marks (roofline_course.results): a hang or a crash anywhere is the
grade's status; a group is full only at its weight."""

from __future__ import annotations

import pytest
from outcomes import LAB1, a_grade, group_score  # noqa: F401


@pytest.mark.parametrize(("statuses", "status"), [
    (("pass", "pass"), "graded"), (("pass", "partial", "fail"), "graded"), (("pass", "timeout"), "timeout"),
    (("crash", "pass"), "crash"), (("crash", "timeout"), "timeout"), (("timeout", "crash"), "timeout"),
    (("skipped", "not run"), "graded"),
])
def test_a_hang_or_a_crash_in_any_group_is_the_grades_status(statuses: tuple[str, ...], status: str) -> None:
    assert a_grade(*(group_score(10, 0.0, s) for s in statuses)).status == status


@pytest.mark.parametrize(("score", "full"), [(10.0, True), (10.5, True), (9.999, False), (0.0, False)])
def test_a_group_is_full_only_at_its_weight(score: float, full: bool) -> None:
    assert group_score(10, score, "pass").full is full


@pytest.mark.parametrize(("marks", "weight", "shown"), [
    (99.98, 100, 99.9), (100.0, 100, 100.0), (12.34, 20, 12.3), (0.04, 10, 0.0), (-0.3, 10, 0.0), (-2.0, 10, 0.0),
    (0.951, 0.955, 0.9),  # a weight that is no whole tenth: short of it shows the tenth below it (0.955 - 0.1)
])
def test_marks_show_to_a_tenth_never_up_to_a_weight_they_missed_and_never_below_zero(marks: float, weight: float,
                                                                                    shown: float) -> None:
    from roofline_course.results import shown_marks

    assert shown_marks(marks, weight) == shown


@pytest.mark.parametrize(("score", "status", "shown"), [
    (0.04, "partial", "fail"),  # a partial score that shows as 0.0 reads as the fail it shows
    (0.06, "partial", "partial"), (1.0, "partial", "partial"), (5.0, "partial", "partial"),
    (0.0, "pass", "pass"), (0.0, "timeout", "timeout"), (0.0, "skipped", "skipped"), (0.0, "fail", "fail"),
])
def test_a_status_agrees_with_the_marks_it_shows(score: float, status: str, shown: str) -> None:
    assert group_score(10, score, status).shown_status == shown


def test_a_group_that_never_ran_took_no_time() -> None:
    """Reports add up the groups' seconds: a skipped or not-run group adds none."""
    assert group_score(10, 0.0, "skipped").seconds == 0.0
