"""The testbench intake's limits at the limit and one past it, as labs/README.md documents them (lab 6:
50 Python files, 2 MiB): a testbench at a limit is staged whole, one file or one byte more is refused in
one line. (The design intake's limits have theirs in test_submission.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_course.intake import testbench
from roofline_course.intake.submission import IntakeError

FILES, MIB = 50, 2  # labs/README.md


def tree(folder: Path, count: int, total: int = 0) -> Path:
    """`count` test modules (comments only), `total` bytes in the first."""
    folder.mkdir()
    for index in range(count):
        (folder / f"test_part{index:02d}.py").write_bytes(b"#" * (total if index == 0 else 0))
    return folder


def test_the_file_count_limit_admits_its_last_file_and_refuses_the_next(tmp_path: Path) -> None:
    staged = testbench.stage(str(tree(tmp_path / "at", FILES)), tmp_path / "staged-at")
    assert len(list(staged.root.rglob("*.py"))) == FILES
    with pytest.raises(IntakeError, match=rf"^the testbench holds more than {FILES} Python files or {MIB} MiB$"):
        testbench.stage(str(tree(tmp_path / "over", FILES + 1)), tmp_path / "staged-over")


def test_the_byte_limit_admits_its_last_byte_and_refuses_the_next(tmp_path: Path) -> None:
    staged = testbench.stage(str(tree(tmp_path / "at", 2, MIB << 20)), tmp_path / "staged-at")
    assert sum(path.stat().st_size for path in staged.root.rglob("*.py")) == MIB << 20
    with pytest.raises(IntakeError, match=rf"more than {FILES} Python files or {MIB} MiB$"):
        testbench.stage(str(tree(tmp_path / "over", 2, (MIB << 20) + 1)), tmp_path / "staged-over")
