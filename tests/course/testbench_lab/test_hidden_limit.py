"""The hidden runs' time limit at each of its edges, as labs/README.md documents it: 4x the slowest visible
run of the correct design, at least 10 s, at most the lab's own limit; the incorrect designs' runs do not count."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from roofline_course.testbench_lab.grade import hidden_limit

LAB = SimpleNamespace(timeout_s=60.0)


def runs(correct: float, wrong: float = 100.0) -> list[SimpleNamespace]:
    return [SimpleNamespace(seconds=correct, design=SimpleNamespace(correct=True)),
            SimpleNamespace(seconds=wrong, design=SimpleNamespace(correct=False))]


@pytest.mark.parametrize(("slowest", "seconds"), [
    (2.4, 10.0), (2.5, 10.0), (2.6, 10.4),  # the floor: 4 x 2.5 s = 10 s
    (14.9, 59.6), (15.0, 60.0), (15.1, 60.0),  # the ceiling: 4 x 15 s = the lab's 60 s
])
def test_the_hidden_limit_is_four_times_the_correct_designs_slowest_between_ten_seconds_and_the_labs(
        slowest: float, seconds: float) -> None:
    assert hidden_limit(LAB, runs(slowest, wrong=slowest * 3)) == pytest.approx(seconds)  # type: ignore[arg-type]


def test_without_a_visible_run_of_the_correct_design_the_labs_limit_holds() -> None:
    assert hidden_limit(LAB, runs(1.0)[1:]) == 60.0  # type: ignore[arg-type]
