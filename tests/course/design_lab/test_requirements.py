"""A group that requires another is skipped, takes no time and runs nothing when that one did not pass in full."""

from __future__ import annotations

from pathlib import Path

from outcomes import LAB5, SYNTHESIS  # noqa: F401

from roofline_course.design_lab import grade as design_lab
from roofline_course.intake.precheck import Precheck
from roofline_course.results import GroupScore


def test_a_group_whose_requirement_did_not_pass_is_skipped_took_no_time_and_ran_nothing(tmp_path: Path) -> None:
    """lab5/lab.toml: synthesis requires "documents through the pipe" in full; with that group short of
    full marks the synthesis is skipped (no sandbox, no tools) and says why."""
    short = GroupScore(next(g for g in LAB5.groups if g.name == "documents through the pipe"), 1.0, "partial")
    [skipped] = design_lab.grade_batch(LAB5, [SYNTHESIS], Precheck("ok"), "rtl", design_lab.Settings(), tmp_path,
                                  {short.group.name: short}, timeout=1)
    assert (skipped.score, skipped.status, skipped.seconds) == (0.0, "skipped", 0.0)
    assert skipped.detail == ['scored only once documents through the pipe passes in full']
    assert not list(tmp_path.iterdir())  # nothing ran
