"""The sandbox end to end, through a real grading: no grader file, no network, no /proc; its limits;
and a clear line where bubblewrap is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from real_grading import SLOT, sandbox_processes  # noqa: F401
from skip_policy import SANDBOX_REASON

from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_course import sandbox
from roofline_course.sandbox.users import SANDBOX_UID

pytestmark = pytest.mark.full  # the hostile submissions and the sandbox's limits: make test-all



def test_the_sandbox_holds_no_grader_files_no_network_and_no_proc(tmp_path: Path) -> None:
    if sandbox.available():
        pytest.skip(f"{SANDBOX_REASON}: {sandbox.available()}")
    probe = (
        "import os, socket; print(sorted(os.listdir('/'))); print(os.path.exists('/proc/self'), "
        f"os.path.exists('/etc/passwd'), os.path.exists({str(LABS_DIR)!r}), os.path.exists({str(RTL_DIR)!r}), os.getuid());"
        "s = socket.socket(); s.settimeout(2)\ntry:\n    s.connect(('1.1.1.1', 53)); print('network')\n"
        "except OSError: print('no network')"
    )
    outcome = sandbox.run([sys.executable, "-c", probe], submission=None, timeout_s=30, slot=SLOT)
    assert outcome.returncode == 0, outcome.stderr
    lines = outcome.stdout.splitlines()
    assert lines[1] == f"False False False False {SANDBOX_UID + SLOT}" and lines[2] == "no network"


def test_the_sandbox_limits_memory_files_processes_and_time(tmp_path: Path) -> None:
    if sandbox.available():
        pytest.skip(f"{SANDBOX_REASON}: {sandbox.available()}")
    limits = sandbox.Limits(memory_mib=512, file_mib=1, processes=16, output_mib=1)
    memory = sandbox.run(
        [sys.executable, "-c", "b = bytearray(1 << 30)"], submission=None, timeout_s=30, limits=limits, slot=SLOT
    )
    assert memory.returncode != 0 and "MemoryError" in memory.stderr
    big = sandbox.run(
        ["sh", "-c", "head -c 5000000 /dev/zero > /run/big; echo $?"],
        submission=None,
        timeout_s=30,
        limits=limits,
        slot=SLOT,
    )
    assert big.stdout.strip() != "0"
    forks = sandbox.run(
        ["sh", "-c", "for i in $(seq 40); do sleep 3 & done; wait"],
        submission=None,
        timeout_s=30,
        limits=limits,
        slot=SLOT,
    )
    assert "fork" in forks.stderr.lower()
    flood = sandbox.run(["sh", "-c", "yes flood; sleep 100"], submission=None, timeout_s=3, limits=limits, slot=SLOT)
    assert flood.timed_out and flood.output_truncated == ["stdout"] and len(flood.stdout) <= 1 << 20
    assert not sandbox_processes()


def test_grading_refuses_without_bubblewrap_in_one_line(tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("iverilog", "yosys", "sh"):
        if shutil.which(tool):
            (bare / tool).symlink_to(shutil.which(tool))
    run = subprocess.run(
        [sys.executable, "-m", "roofline_course.grade", "--lab", "1", "--rtl", str(LABS_DIR / "lab1" / "starter")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(bare)},
    )
    assert run.returncode == 2
    assert run.stderr.strip().count("\n") == 0 and "apt-get install bubblewrap" in run.stderr
