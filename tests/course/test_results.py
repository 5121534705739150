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
