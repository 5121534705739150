"""What the course kit's end-to-end tests share: a real `make grade` in a sandbox, the hostile cases, and the
secrets no output may hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from skip_policy import SANDBOX_REASON

from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_course import sandbox
from roofline_course.sandbox.users import SANDBOX_UID

LAB1_FILES = ("roofline_attainable.sv", "roofline_level.sv", "roofline_round_cap.sv", "roofline_param_check.sv")

# Every test that grades, or runs a step, in the sandbox: without it, it skips saying why (a security skip).
needs_sandbox = pytest.mark.skipif(sandbox.available() is not None, reason=f"{SANDBOX_REASON}: {sandbox.available()}")

# Each pytest worker grades as its own sandbox user, so a check for leftover processes sees only its own.
# (another pytest run on the same machine, say a CI run beside a developer's, picks others).
SLOT = 10 + os.getpid() % 80


def sandbox_processes(slot: int = SLOT) -> list[str]:
    """Processes of this worker's sandbox user still alive."""
    run = subprocess.run(["ps", "-e", "-o", "uid=,pid=,args="], capture_output=True, text=True)
    return [
        line for line in run.stdout.splitlines() if line.split() and int(line.split()[0]) == SANDBOX_UID + slot
    ]


def grade(rtl: Path, out: Path, *extra: str, lab: int = 1, timeout: float = 20) -> tuple[int, dict, str]:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "roofline_course.grade",
            "--lab",
            str(lab),
            "--rtl",
            str(rtl),
            "--out",
            str(out),
            "--timeout",
            str(timeout),
            "--slot",
            str(SLOT),
            *extra,
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    result = json.loads((out / "result.json").read_text()) if (out / "result.json").exists() else {}
    return run.returncode, result, run.stdout + run.stderr


def reference_copy(folder: Path, edit: tuple[str, str, str] | None = None) -> Path:
    folder.mkdir(parents=True)
    for name in LAB1_FILES:
        text = (RTL_DIR / name).read_text()
        if edit and edit[0] == name:
            text = text.replace(edit[1], edit[2])
        (folder / name).write_text(text)
    return folder
