"""Grading where no namespace can be created, as in Gradescope's and PrairieLearn's containers.

Every test runs the grader under tests/support/no_namespaces.py, a seccomp filter that refuses namespaces
as Docker's default profile does, in a copy of the checkout (the fallback changes the copy's
file permissions). There bubblewrap cannot start, so the grader runs each step as another user
with the same limits (sandbox.mode() == "uid"); the judge stays in the grader's process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from places import HOSTILE_DIR, SUPPORT_DIR

from roofline_core.paths import REPO_ROOT
from roofline_course.sandbox.users import SANDBOX_UID

pytestmark = [pytest.mark.full, pytest.mark.sim,
              pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None or shutil.which("setpriv") is None,
                                 reason="the fallback isolation needs root, bwrap and setpriv (apt-get install bubblewrap)")]
LAUNCHER = SUPPORT_DIR / "no_namespaces.py"
PARTS = ("core", "tb", "model", "course", "flows", "cli", "labs", "rtl")
SLOT = 20 + os.getpid() % 60
ZERO = """module roofline_attainable #(parameter int INT_BITS = 24, parameter int FRAC_BITS = 16) (
  input  logic [INT_BITS+FRAC_BITS-1:0] peak_i, bw_i, ai_i,
  output logic [INT_BITS+FRAC_BITS-1:0] cap_o,
  output logic mem_bound_o);
  assign cap_o = '0;
  assign mem_bound_o = 1'b0;
endmodule
"""


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout's code, labs and RTL, with this checkout's venv borrowed through links."""
    root = tmp_path_factory.mktemp("container") / "roofline-hw"
    for part in PARTS:
        shutil.copytree(REPO_ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "tests").mkdir()
    shutil.copy(REPO_ROOT / "pyproject.toml", root)
    (root / ".venv").mkdir()
    for part in ("bin", "lib", "pyvenv.cfg"):
        (root / ".venv" / part).symlink_to(REPO_ROOT / ".venv" / part)
    return root


def in_container(copy: Path, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    python_path = os.pathsep.join(str(copy / part) for part in ("model", "core", "tb", "course", "flows", "cli"))
    return subprocess.run([sys.executable, str(LAUNCHER), *argv], cwd=copy, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": python_path, "ROOFLINE_BUILD": str(copy / "build"),
                               **(env or {})})


def grade(copy: Path, rtl: Path, out: Path) -> tuple[int, dict, str]:
    run = in_container(copy, str(copy / ".venv" / "bin" / "python"), "-m", "roofline_course.grade", "--lab", "1",
                       "--rtl", str(rtl), "--out", str(out), "--slot", str(SLOT), "--timeout", "30")
    result = json.loads((out / "result.json").read_text()) if (out / "result.json").exists() else {}
    return run.returncode, result, run.stdout + run.stderr


def test_the_container_refuses_namespaces(copy: Path) -> None:
    """The premise: under the filter bubblewrap cannot start (so the fallback is what gets tested)."""
    run = in_container(copy, "bwrap", "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net", "true")
    assert run.returncode != 0 and "Operation not permitted" in run.stderr, run.stderr
    run = in_container(copy, str(copy / ".venv" / "bin" / "python"), "-c",
                       "from roofline_course import sandbox; print(sandbox.mode())")
    assert run.stdout.strip() == "uid", run.stdout + run.stderr


def test_grading_runs_as_another_user_and_judges_as_it_does_with_bubblewrap(copy: Path, tmp_path: Path) -> None:
    code, result, output = grade(copy, copy / "rtl", tmp_path / "reference")
    assert code == 0 and result["score"] == 100, output
    assert "isolation: another user" in output
    zero = tmp_path / "zero"
    zero.mkdir()
    (zero / "roofline_attainable.sv").write_text(ZERO)
    code, result, output = grade(copy, zero, tmp_path / "zero-out")
    ports = sum(g["weight"] for g in result["groups"] if g["name"].startswith("ports"))
    assert code == 1 and result["score"] == ports, output
    code, result, output = grade(copy, HOSTILE_DIR / "read_hidden", tmp_path / "hostile")
    assert code == 2 and result["status"] == "not allowed", output


PROBE = textwrap.dedent("""
    import ctypes, json, os, sys
    found = {"uid": os.getuid()}
    for name, path in (("hidden", sys.argv[1]), ("reference", sys.argv[2]), ("report", sys.argv[3])):
        try:
            open(path).read(1)
            found[name] = "read"
        except OSError as problem:
            found[name] = problem.errno
    try:
        open(os.path.join(os.path.dirname(sys.argv[3]), "forged.json"), "w").write("{}")
        found["write"] = "wrote"
    except OSError as problem:
        found["write"] = problem.errno
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(434, int(sys.argv[4]), 0)  # pidfd_open(the grader)
    taken = libc.syscall(438, pidfd, 0, 0) if pidfd >= 0 else -1  # pidfd_getfd(its fd 0)
    found["pidfd_getfd"] = ctypes.get_errno() if taken < 0 else "took"
    print(json.dumps(found))
""")


def test_the_sandbox_user_reaches_neither_the_judge_nor_its_files(copy: Path, tmp_path: Path) -> None:
    """As grading would leave it: the labs, the reference and the reports unreadable to the step,
    the report folder unwritable, and the grader's descriptors out of reach."""
    report = tmp_path / "out" / "result.json"
    script = textwrap.dedent(f"""
        import os, sys
        from roofline_course import grade, sandbox
        from roofline_course.labs.definitions import load_lab
        grade.guard_for_the_uid_isolation(load_lab(1))
        os.makedirs({str(report.parent)!r}, exist_ok=True)
        open({str(report)!r}, "w").write("{{}}")
        outcome = sandbox.run([sys.executable, "-c", {PROBE!r}, {str(copy / "labs/lab1/hidden.toml")!r},
                               {str(copy / "rtl/roofline_attainable.sv")!r}, {str(report)!r}, str(os.getpid())],
                              submission=None, timeout_s=30, slot={SLOT})
        print(outcome.stdout, outcome.stderr)
    """)
    run = in_container(copy, str(copy / ".venv" / "bin" / "python"), "-c", script)
    found = json.loads(run.stdout.splitlines()[0]) if run.stdout.strip().startswith("{") else {}
    assert found, run.stdout + run.stderr
    assert found["uid"] >= SANDBOX_UID and found["uid"] != 0
    assert found["hidden"] == found["reference"] == found["report"] == 13, found  # EACCES
    assert found["write"] == 13, found
    assert found["pidfd_getfd"] in (1, 13), found  # EPERM: another user's process


def test_no_run_finds_what_an_earlier_one_left_in_the_shared_scratch_folders(copy: Path) -> None:
    """Without namespaces /tmp is the machine's: whatever the step's user leaves there goes with the run."""
    script = textwrap.dedent(f"""
        import sys
        from roofline_course import sandbox
        write = "open('/tmp/left-by-a-run', 'w').write('state'); import os; os.mkdir('/tmp/left-dir')"
        first = sandbox.run([sys.executable, "-c", write], submission=None, timeout_s=30, slot={SLOT})
        look = "import os; print(os.path.exists('/tmp/left-by-a-run'), os.path.exists('/tmp/left-dir'))"
        second = sandbox.run([sys.executable, "-c", look], submission=None, timeout_s=30, slot={SLOT})
        print(first.returncode, second.stdout.strip())
    """)
    run = in_container(copy, str(copy / ".venv" / "bin" / "python"), "-c", script)
    assert run.stdout.strip() == "0 False False", run.stdout + run.stderr


def test_a_testbench_lab_refuses_to_grade_without_private_mounts(copy: Path, tmp_path: Path) -> None:
    run = in_container(copy, str(copy / ".venv" / "bin" / "python"), "-m", "roofline_course.grade", "--lab", "6",
                       "--rtl", str(copy / "labs" / "lab6" / "starter"), "--out", str(tmp_path / "out"))
    assert run.returncode == 2 and "bubblewrap only" in run.stderr, run.stdout + run.stderr
