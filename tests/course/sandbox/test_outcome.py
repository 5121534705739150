"""A step's outcome read from its exit status alike in every isolation: a signal that ended it is a
crash (a limit, a segmentation fault), whether the step's own status says so (negative, as Python
gives it) or bubblewrap's does (128 + the signal: bubblewrap is the step's parent); an exit, of any
status, is none, and a step stopped at its time limit has no status. tests/course/sandbox/test_run.py
shows bubblewrap's status for a killed step."""

from __future__ import annotations

import pytest

from roofline_course.sandbox.run import Outcome, killed_by


@pytest.mark.parametrize(("code", "isolation", "signal"), [
    (-9, "uid", 9), (-11, "bwrap", 11), (-9, "unsafe", 9),
    (137, "bwrap", 9), (139, "bwrap", 11), (129, "bwrap", 1), (192, "bwrap", 64),
    (128, "bwrap", 0), (193, "bwrap", 0), (255, "bwrap", 0),  # beyond the signals: an exit status
    (137, "uid", 0), (139, "unsafe", 0),  # setpriv execs the step: 137 there is the step's own exit
    (0, "bwrap", 0), (1, "uid", 0), (None, "bwrap", 0),
])
def test_the_signal_that_ended_a_step_is_read_as_its_isolation_reports_it(code: int | None, isolation: str,
                                                                         signal: int) -> None:
    assert killed_by(code, isolation) == signal


@pytest.mark.parametrize(("code", "signal", "crashed"), [
    (-9, 9, True), (137, 9, True), (0, 0, False), (1, 0, False), (137, 0, False), (None, 0, False),
])
def test_a_crash_is_a_step_a_signal_ended(code: int | None, signal: int, crashed: bool) -> None:
    assert Outcome(code, "", "", b"", 1.0, code is None, killed_by=signal).crashed is crashed
