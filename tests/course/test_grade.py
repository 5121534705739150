"""make grade's exit status and last line (roofline_course.grade): a failed check exits 2, full marks 0,
one mark short 1; a student's last line counts the visible groups only."""

from __future__ import annotations

from pathlib import Path

import pytest
from outcomes import LAB1, a_grade, group_score  # noqa: F401

from roofline_course import grade


@pytest.mark.parametrize(("stage", "says"), [("files", "no files"), ("compile", "compile error"), ("ports", "missing port"),
                                            ("forbidden", "not allowed"), ("resources", "resource limit")])
def test_a_failed_check_is_the_grades_status_and_exit_2(stage: str, says: str) -> None:
    result = a_grade(group_score(10, 10.0, "pass"), stage=stage)
    assert (result.status, result.gradable, grade.exit_status(result)) == (says, False, 2)
    assert grade.final_line(result) == f"could not grade: {says} (exit 2); the problem is above"


def test_full_marks_exit_0_and_one_mark_short_exits_1() -> None:
    full = a_grade(group_score(10, 10.0, "pass"), group_score(5, 5.0, "pass"))
    short = a_grade(group_score(10, 10.0, "pass"), group_score(5, 4.0, "partial"))
    assert (full.score, full.lab.max_score, grade.exit_status(full)) == (15.0, 15.0, 0)
    assert grade.final_line(full) == "graded: 15.0/15, full marks (exit 0)"
    assert (short.score, grade.exit_status(short)) == (14.0, 1)
    assert grade.final_line(short) == "graded: 14.0/15, fewer than full marks (exit 1)"


def test_the_students_last_line_counts_the_visible_groups_only() -> None:
    result = a_grade(group_score(10, 10.0, "pass"), group_score(5, 0.0, "fail", hidden=True))
    assert grade.final_line(result, student_view=True) == (
        "graded: 10.0/10 in the visible groups; the hidden groups are shown after the due date")
    assert grade.final_line(result) == "graded: 10.0/15, fewer than full marks (exit 1)"


@pytest.mark.parametrize("name", ["...sv", "..sv", ".sv", "..", ".", "./..", "a/.."])
def test_a_submission_named_with_dots_gets_its_report_folder_inside_the_labs(name: str, tmp_path: Path) -> None:
    """A file `...sv` (stem "..") once put its report, canonical design and copy in build/grade itself."""
    parent = tmp_path / "subs"
    parent.mkdir()
    rtl = parent / name
    if name.endswith(".sv"):
        rtl.write_text("module m; endmodule\n")
    out = grade.default_out(LAB1, str(rtl))
    lab_folder = grade.BUILD_ROOT / "grade" / f"lab{LAB1.number}"
    assert out.parent == lab_folder and out.name not in ("", ".", "..") and not out.name.startswith("."), out
