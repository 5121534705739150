"""make's checks of Python: made when the virtual environment is made (every target after that runs
the environment's own Python), each stopping the set-up with one line that says what to install."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT

STAMP = ".venv/.installed"


def make_in_copy(tmp_path: Path, *targets: str, python: str) -> subprocess.CompletedProcess[str]:
    """make in a folder holding only the Makefile and pyproject.toml, with PYTHON=python."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copyfile(REPO_ROOT / name, tmp_path / name)
    return subprocess.run(["make", "-s", "--no-print-directory", f"PYTHON={python}", *targets], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


def fake_python(tmp_path: Path, name: str, script: str) -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{script}\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(("kind", "said"), [
    ("missing", "not found: install Python >= 3.11"),
    ("too old", "Python 3.9.2 is too old: install Python >= 3.11"),
    ("no venv", "Python's venv module is missing: apt-get install python3-venv"),
])
def test_the_set_up_stops_on_a_python_it_cannot_use_and_says_why(tmp_path: Path, kind: str, said: str) -> None:
    python = {
        "missing": str(tmp_path / "no-such-python"),
        "too old": fake_python(tmp_path, "old-python", '[ "$1" = --version ] && { echo "Python 3.9.2"; exit 0; }; exit 1'),
        "no venv": fake_python(tmp_path, "python-without-venv", 'case "$2" in *venv*) exit 1;; esac; exec python3 "$@"'),
    }[kind]
    ran = make_in_copy(tmp_path, STAMP, python=python)
    errors = [line for line in ran.stdout.splitlines() if line.startswith("error: ")]
    assert ran.returncode != 0 and len(errors) == 1 and said in errors[0], ran.stdout + ran.stderr
    assert not (tmp_path / ".venv").exists()


def test_a_target_after_the_set_up_starts_no_python_to_check_it(tmp_path: Path) -> None:
    """The checks every target runs need no Python (each once cost 0.3 s of every make): they pass with
    PYTHON naming nothing, where the set-up itself refuses it (above)."""
    ran = make_in_copy(tmp_path, "prereqs", "prereqs-verilator", python=str(tmp_path / "no-such-python"))
    assert ran.returncode == 0 and ran.stdout == "", ran.stdout + ran.stderr
