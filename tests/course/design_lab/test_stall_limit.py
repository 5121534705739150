"""The stall limit at its edge, as labs/README.md documents it: a simulation whose reply falls silent for a
quarter of its time limit is stopped as hung. (Its floor of 1 s is grade.py's MIN_STALL_S, not a documented figure.)"""

from __future__ import annotations

import pytest

from roofline_course.design_lab.grade import stall_limit


@pytest.mark.parametrize(("timeout", "stall"), [(3.9, 1.0), (4.0, 1.0), (4.4, 1.1), (60.0, 15.0), (120.0, 30.0)])
def test_the_stall_limit_is_a_quarter_of_the_time_limit_and_at_least_a_second(timeout: float, stall: float) -> None:
    assert stall_limit(timeout) == pytest.approx(stall)
