"""Lab 6's intake of a testbench (intake/testbench.py) never follows a link: a testbench handed in as a
link, to a file, a folder or an archive, is refused in one line naming it, whatever the link points at
(a grader-side folder would otherwise be staged as the student's); the same testbench handed in as
itself is staged."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_course.intake import testbench
from roofline_course.intake.submission import IntakeError

TEST = "import cocotb\n\n@cocotb.test()\nasync def test_a(dut):\n    pass\n"


def handed_in(tmp_path: Path) -> dict[str, Path]:
    """The same testbench as a file, a folder and a zip, and a link to each."""
    import zipfile

    folder = tmp_path / "tb"
    folder.mkdir()
    (folder / "test_mine.py").write_text(TEST)
    archive = tmp_path / "tb.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("test_mine.py", TEST)
    made = {"file": folder / "test_mine.py", "folder": folder, "zip": archive}
    for kind, target in list(made.items()):
        link = tmp_path / f"link-to-{kind}{target.suffix}"
        link.symlink_to(target, target_is_directory=target.is_dir())
        made[f"a link to the {kind}"] = link
    return made


@pytest.mark.parametrize("kind", ["file", "folder", "zip"])
def test_a_testbench_handed_in_as_itself_is_staged(kind: str, tmp_path: Path) -> None:
    staged = testbench.stage(str(handed_in(tmp_path)[kind]), tmp_path / "staged")
    assert (tmp_path / "staged" / "test_mine.py").read_text() == TEST and staged is not None


@pytest.mark.parametrize("kind", ["a link to the file", "a link to the folder", "a link to the zip"])
def test_a_testbench_handed_in_as_a_link_is_refused_naming_it(kind: str, tmp_path: Path) -> None:
    link = handed_in(tmp_path)[kind]
    with pytest.raises(IntakeError) as refused:
        testbench.stage(str(link), tmp_path / "staged")
    assert str(refused.value) == f"{link.name}: a symbolic link; hand in the file itself"
    assert not any((tmp_path / "staged").iterdir())  # nothing of what it points at was staged
