"""The student copy (make handout): no answer in it, and make check works inside it."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from real_grading import needs_sandbox  # noqa: F401

from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_course.labs.definitions import load_lab

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all



@needs_sandbox
@pytest.mark.sim
def test_the_student_copy_holds_no_answer_and_make_check_works_in_it(tmp_path: Path) -> None:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("make handout archives the git HEAD")
    archive = tmp_path / "student.tar.gz"
    subprocess.run(
        [sys.executable, "-m", "roofline_course.handout", "--out", str(archive)],
        cwd=REPO_ROOT,
        check=True,
        capture_output=True,
    )
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        tar.extractall(tmp_path, filter="data")
    copy = tmp_path / "roofline-hw"
    assert not [n for n in names if n.endswith("hidden.toml") or "/dropin/" in n or n.endswith("catalogue.toml")]
    readme = (copy / "README.md").read_text()
    assert readme == (LABS_DIR / "STUDENTS.md").read_text() and "make test" not in readme and "make check LAB=" in readme
    reference = {p.name for p in RTL_DIR.glob("*.sv")}
    for name in reference & {p.name for p in (copy / "rtl").glob("*.sv")}:
        assert (copy / "rtl" / name).read_text() != (RTL_DIR / name).read_text(), f"rtl/{name} is the reference"
    # The copy borrows this checkout's interpreter without touching its install: a .venv whose bin/
    # is ours and whose stamp is fresh, so make installs nothing; PYTHONPATH puts the copy's code first.
    (copy / ".venv").mkdir()
    for part in ("bin", "lib", "pyvenv.cfg"):
        (copy / ".venv" / part).symlink_to(REPO_ROOT / ".venv" / part)
    (copy / ".venv" / ".installed").touch()
    python_path = os.pathsep.join(str(copy / part) for part in ("model", "core", "tb", "course", "flows", "cli"))
    env = {**os.environ, "PYTHONPATH": python_path, "ROOFLINE_BUILD": str(tmp_path / "build")}
    run = subprocess.run(
        ["make", "-s", "check", "LAB=1", "RTL=labs/lab1/starter"], cwd=copy, capture_output=True, text=True, env=env
    )
    assert "could not grade" not in run.stdout and "graded:" in run.stdout, run.stdout + run.stderr
    for number in (1, 2, 3, 4, 5):
        lab = load_lab(number, with_hidden=False)
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "roofline_course.grade",
                "--lab",
                str(number),
                "--rtl",
                "rtl",
                "--visible-only",
                "--timeout",
                "20",
                "--out",
                str(tmp_path / f"g{number}"),
            ],
            cwd=copy,
            capture_output=True,
            text=True,
            env=env,
        )
        assert run.returncode != 0, f"lab {number}: the student copy's rtl/ passes:\n{run.stdout}"
        assert lab.top
