"""Which paths of a testbench's message reach its student (testbench_lab/diagnosis.student_message): the
student's own files by their names in the submission, a lone folder name such as /tmp (it says nothing
of the grading machine), and nothing deeper: any path of two parts or more is <path>."""

from __future__ import annotations

import pytest

from roofline_course.testbench_lab.diagnosis import student_message


@pytest.mark.parametrize(("said", "shown"), [
    ("see /work/x", "see <path>"),
    ("see /ab/c.py", "see <path>"),
    ("see /work/main/labs/lab6/hidden.toml", "see <path>"),
    ("see /tmp", "see /tmp"),
    ("see /", "see /"),
    ("see /submission/test_mine.py", "see test_mine.py"),
    ("see /submission/deep/helpers.py", "see deep/helpers.py"),
    ("a ratio of 3/4", "a ratio of 3/4"),
])
def test_only_the_students_own_files_and_a_lone_folder_name_are_shown(said: str, shown: str) -> None:
    assert student_message(said) == [shown]
