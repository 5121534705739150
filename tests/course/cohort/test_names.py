"""grade-all over awkwardly named submissions: every name kept apart, one regraded in place, an unknown
student one clear line."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from real_grading import LAB1_FILES, SLOT, needs_sandbox, reference_copy, sandbox_processes  # noqa: F401

from roofline_core.paths import REPO_ROOT, RTL_DIR

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all


NAMES = ["jose@1", "jose_1", "Zoë", "Zoé", "kim.sv", "kim", "a b", "c:d", "e;f"]


@needs_sandbox
@pytest.mark.sim
def test_grade_all_keeps_every_name_apart_and_regrades_one_in_place(tmp_path: Path) -> None:
    room = tmp_path / "class"
    room.mkdir()
    broken = "module roofline_attainable(input logic a_i); assign = ; endmodule\n"
    for name in NAMES:
        if name.endswith(".sv"):
            (room / name).write_text(broken)
        else:
            (room / name).mkdir()
            (room / name / "roofline_attainable.sv").write_text(broken)
    reference_copy(room / "correct")
    shutil.copytree(room / "correct", room / "copied")
    with zipfile.ZipFile(room / "zipped.zip", "w") as bundle:
        bundle.writestr("roofline_attainable.sv", broken)
    (room / ".hidden").mkdir()
    (room / "notes.txt").write_text("not a submission")
    (room / "late").mkdir()
    (room / "late" / "roofline_attainable.sv").write_text(broken)
    # Lateness comes from the platform's export beside the class (never from a file in a submission)
    (room / "submission_metadata.yml").write_text("late:\n  :created_at: 2026-11-03 10:00:00 +00:00\n")
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "roofline_course.cohort.grade_all",
        "--lab",
        "1",
        "--submissions",
        str(room),
        "--out",
        str(out),
        "--timeout",
        "20",
        "--jobs",
        "2",
        "--due",
        "2026-11-01T23:59:00+00:00",
        "--late-penalty",
        "10",
    ]
    run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    everything = {p.name for p in room.iterdir()} - {"submission_metadata.yml"}
    assert set(rows) == everything, set(rows) ^ everything
    assert rows["correct"]["score"] == "100" and rows["jose@1"]["status"] == "compile error"
    assert rows[".hidden"]["status"] == "not graded" and "dot" in rows[".hidden"]["first problem"]
    assert rows["notes.txt"]["status"] == "not graded"
    assert rows["late"]["late_days"] == "2" and rows["late"]["late_penalty"] == "20"
    page = (out / "dashboard.html").read_text()
    for section in ("Scores", "Pass rate per group", "Most common problems", "Students", "Similar submissions"):
        assert f"<h2>{section}</h2>" in page
    assert re.search(r"<td>100%</td><td>copied</td><td>correct</td>", page), (
        "identical submissions are not listed as similar"
    )
    first_run = sorted((out / "runs").iterdir())
    (room / "kim" / "roofline_attainable.sv").write_text("".join((RTL_DIR / n).read_text() for n in LAB1_FILES))
    run = subprocess.run([*command, "--student", "kim"], cwd=REPO_ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    again = {row["submission"]: row for row in csv.DictReader((out / "scores.csv").open())}
    assert again["kim"]["score"] == "100" and again["kim.sv"] == rows["kim.sv"] and again["correct"] == rows["correct"]
    assert all(run_dir.exists() for run_dir in first_run) and len(list((out / "runs").iterdir())) == 2
    assert not sandbox_processes()


def test_an_unknown_student_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "class").mkdir()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_course.cohort.grade_all",
            "--lab",
            "1",
            "--submissions",
            str(tmp_path / "class"),
            "--student",
            "nobody",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "STUDENT=nobody" in run.stderr and run.stderr.count("\n") == 1
