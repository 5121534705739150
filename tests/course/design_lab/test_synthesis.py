"""A synthesis group's score from its job's outcome: no result, a reason, a hang, a clock below target.
Fast (no tools): make mutation runs it per mutant."""

from __future__ import annotations

from dataclasses import replace

import pytest
from outcomes import LAB5, SYNTHESIS  # noqa: F401

from roofline_course import sandbox
from roofline_course.design_lab.synthesis import score_synthesis


def outcome(result: bytes = b"", returncode: int | None = 0, timed_out: bool = False) -> sandbox.Outcome:
    return sandbox.Outcome(returncode, "", "", result, 2.0, timed_out)


def test_the_lab_file_is_what_these_tests_read() -> None:
    assert (SYNTHESIS.weight, SYNTHESIS.min_fmax_mhz) == (15, 40)


@pytest.mark.parametrize("died", [outcome(b"", returncode=-9), outcome(b"", returncode=1), outcome(b"{not json", returncode=0),
                                  outcome(b'{"fmax_mhz": 55.0}', returncode=0)],
                         ids=["killed-no-result", "failed-no-result", "garbled", "no-luts"])
def test_a_synthesis_job_that_gives_no_result_scores_nothing(died: sandbox.Outcome) -> None:
    score = score_synthesis(SYNTHESIS, died, "groups/synthesis/sim.log")
    assert (score.score, score.status, score.full) == (0.0, "error", False)
    assert score.detail == ["synthesis gave no result"] and score.log == "groups/synthesis/sim.log"  # the terminal names it


def test_a_synthesis_job_that_says_why_it_failed_is_told_so() -> None:
    score = score_synthesis(SYNTHESIS, outcome(b'{"error": "nextpnr: no route"}'), "log")
    assert (score.score, score.status, score.detail[0]) == (0.0, "error", "nextpnr: no route")


def test_a_synthesis_job_that_hangs_scores_nothing() -> None:
    score = score_synthesis(SYNTHESIS, outcome(b'{"fmax_mhz": 90, "luts": 1, "ffs": 1}', None, timed_out=True), "log")
    assert (score.score, score.status) == (0.0, "timeout")


@pytest.mark.parametrize(("fmax", "marks", "status"), [(40.0, 15.0, "pass"), (80.0, 15.0, "pass"),
                                                      (30.0, 15 * 30 / 40, "partial"), (0.0, 0.0, "partial")])
def test_synthesis_scores_in_proportion_below_the_target_clock(fmax: float, marks: float, status: str) -> None:
    result = f'{{"fmax_mhz": {fmax}, "luts": 1234, "ffs": 56, "tools": ["yosys 0.70"]}}'.encode()
    score = score_synthesis(SYNTHESIS, outcome(result), "log")
    assert (score.score, score.status) == (pytest.approx(marks), status)
    assert score.detail[0] == (f"iCE40 HX8K: 1,234 LUT4, 56 flip-flops, Fmax {fmax:.1f} MHz (target 40 MHz); "
                               "ran on yosys 0.70")
    assert (len(score.detail) == 1) == (status == "pass")


def test_a_synthesis_group_with_no_target_clock_scores_in_full() -> None:
    untimed = replace(SYNTHESIS, min_fmax_mhz=0.0)
    score = score_synthesis(untimed, outcome(b'{"fmax_mhz": 12.5, "luts": 10, "ffs": 2}'), "log")
    assert (score.score, score.status) == (15.0, "pass")
