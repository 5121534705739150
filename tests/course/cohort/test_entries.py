"""Which entries of a class's folder grade-all sends to the grader (cohort/grade_all.not_gradable): a
link is never followed, whatever it points at and however it looks (a folder, a .sv, a .zip, a link
that leads nowhere); a hidden entry and a file of another kind get a row saying why and no grade."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_course.cohort import grade_all
from roofline_course.labs.definitions import load_lab

LAB1 = load_lab(1)


@pytest.fixture
def room(tmp_path: Path) -> Path:
    room = tmp_path / "room"
    (room / "ana").mkdir(parents=True)
    (room / "design.sv").write_text("module m; endmodule\n")
    (room / "bundle.zip").write_bytes(b"PK\x05\x06" + b"\0" * 18)
    for name, target in (("to-a-folder", "ana"), ("to-a-design.sv", "design.sv"), ("to-a-zip.zip", "bundle.zip"),
                         ("to-nowhere", "gone"), ("to-the-grader", "/work")):
        (room / name).symlink_to(target)
    return room


@pytest.mark.parametrize("name", ["to-a-folder", "to-a-design.sv", "to-a-zip.zip", "to-nowhere", "to-the-grader"])
def test_a_link_is_never_graded_whatever_it_leads_to(room: Path, name: str) -> None:
    assert grade_all.not_gradable(room / name, LAB1) == "a symbolic link: not graded"


@pytest.mark.parametrize(("name", "why"), [
    ("ana", None), ("design.sv", None), ("bundle.zip", None),
    (".hidden", "a hidden entry (its name starts with a dot): not graded; rename it to grade it"),
])
def test_a_submission_is_graded_and_a_hidden_entry_is_not(room: Path, name: str, why: str | None) -> None:
    if name == ".hidden":
        (room / name).mkdir()
    assert grade_all.not_gradable(room / name, LAB1) == why
