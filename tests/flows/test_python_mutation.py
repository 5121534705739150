"""`make mutation` itself, on a bounded sample (CI runs it; about a minute on 2 CPUs): it makes and
runs mutants, a module's fast tests kill at least its threshold of them, a run that made no mutant
or left a survivor fails, and the checkout is never changed (the mutants are written into a copy,
so the other tests of the same run, on other pytest-xdist workers, never import one).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from roofline_core.paths import REPO_ROOT

pytestmark = pytest.mark.full
SAMPLE = "course/roofline_course/results.py"  # small (30 mutants), and test_results.py alone kills them in seconds each
ROW = re.compile(r"^\| `(?P<module>[^`]+)` \| (?P<mutants>\d+) \| (?P<killed>\d+) \| (?P<survived>\d+) \| (?P<timed_out>\d+) \| "
                 r"(?P<equivalent>\d+) \| (?P<score>\d+)% \|", re.M)


def run_mutation(build: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(("MUTATION_", "PYTEST_"))}
    env["ROOFLINE_BUILD"] = str(build)
    return subprocess.run([sys.executable, "-m", "roofline_flows.python_mutation", *arguments], cwd=REPO_ROOT,
                          capture_output=True, text=True, env=env, timeout=600)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_sample_module_makes_mutants_and_its_tests_kill_them(tmp_path: Path) -> None:
    before = digest(REPO_ROOT / SAMPLE)
    table = tmp_path / "mutation.toml"  # the sample's own fast tests: the project's table runs eight files per mutant
    table.write_text(f'[[module]]\npath = "{SAMPLE}"\ntests = ["tests/course/test_results.py"]\n')
    run = run_mutation(tmp_path, "--modules", SAMPLE, "--table", str(table), "--budget", "300")
    shown = run.stdout[-4000:] + run.stderr[-2000:]
    rows = {m["module"]: m for m in ROW.finditer(run.stdout)}
    assert SAMPLE in rows, shown
    row = rows[SAMPLE]
    mutants, killed, timed_out, equivalent = (int(row[k]) for k in ("mutants", "killed", "timed_out", "equivalent"))
    assert mutants >= 10 and killed + timed_out >= 1, shown  # it made mutants and ran them: never a pass of nothing
    assert (killed + timed_out) / (mutants - equivalent) >= 0.9 and int(row["survived"]) == 0, shown
    assert run.returncode == 0 and "make mutation: 1 of 1 modules pass" in run.stdout, shown
    assert digest(REPO_ROOT / SAMPLE) == before  # never touched
    assert digest(tmp_path / "mutation" / "checkout" / SAMPLE) == before  # the copy's put back after each mutant


def test_a_run_that_makes_no_mutant_fails(tmp_path: Path) -> None:
    table = tmp_path / "mutation.toml"
    table.write_text(f'[[module]]\npath = "{SAMPLE}"\nfunctions = ["no_such_function"]\n'
                     'tests = ["tests/course/test_results.py"]\n')
    run = run_mutation(tmp_path, "--modules", SAMPLE, "--table", str(table))
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"FAIL {SAMPLE}: no mutants" in run.stdout


def test_tests_that_check_nothing_of_the_module_leave_survivors_and_fail(tmp_path: Path) -> None:
    """The model's format tests never touch the grade's status: every mutant of `Grade.status` survives."""
    table = tmp_path / "mutation.toml"
    table.write_text(f'[[module]]\npath = "{SAMPLE}"\nfunctions = ["status"]\n'
                     'tests = ["tests/model/test_qformat.py", "-k", "round"]\n')
    before = digest(REPO_ROOT / SAMPLE)
    run = run_mutation(tmp_path, "--modules", SAMPLE, "--table", str(table))
    assert run.returncode == 1, run.stdout + run.stderr
    assert re.search(rf"FAIL {re.escape(SAMPLE)}: survivors not recorded as equivalent: \w+", run.stdout), run.stdout
    assert "SURVIVED" in run.stdout and digest(REPO_ROOT / SAMPLE) == before
