"""The class's time limit at each of its edges, as labs/README.md documents it: 5x the reference's
slowest simulation, at least 10 s, at most the lab's own limit (60 s here)."""

from __future__ import annotations

from typing import Any

import pytest

from roofline_course.cohort import calibration

LAB_LIMIT_S = 60.0


@pytest.mark.parametrize(("slowest", "seconds"), [
    (1.9, 10.0), (2.0, 10.0), (2.1, 10.5),  # the floor: 5 x 2 s = 10 s
    (11.9, 59.5), (12.0, 60.0), (12.1, 60.0),  # the ceiling: 5 x 12 s = the lab's 60 s
])
def test_the_calibrated_limit_is_five_times_the_slowest_between_ten_seconds_and_the_labs(
        monkeypatch: pytest.MonkeyPatch, slowest: float, seconds: float) -> None:
    monkeypatch.setattr(calibration, "slowest_simulation", lambda _: slowest)

    def reference() -> dict[str, Any]:
        return {"score": 100.0, "result": "result.json"}

    assert calibration.calibrate(LAB_LIMIT_S, 100.0, reference).seconds == pytest.approx(seconds)
