"""make mutation runs each mutant's tests in a session of its own and ends the whole session after
them: a process the tests forked (a pool's worker) is gone once the mutant is judged, whether its
tests passed, failed or ran out of time (a timed-out similarity mutant's worker once lived on, asleep,
for the rest of the run). The verdict and the output's tail are those of pytest itself."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from roofline_flows.python_mutation import Target, run_tests

FORKING_TEST = """
import os, time
from pathlib import Path

def test_forks_a_worker_then_{how}():
    child = os.fork()
    if child == 0:  # the worker: it outlives its test unless its session is ended
        time.sleep(300)
        os._exit(0)
    Path("worker.pid").write_text(str(child))
    print("the test's own words")
    {end}
"""
ENDS = {"passed": "assert True", "failed": "assert False", "timeout": "time.sleep(300)"}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"  # a zombie is dead, waiting for init to reap it


@pytest.mark.parametrize("how", list(ENDS))
def test_a_worker_the_tests_left_is_gone_once_the_mutant_is_judged(tmp_path: Path, how: str) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_forks.py").write_text(FORKING_TEST.format(how=how, end=ENDS[how]))
    outcome, seconds, tail = run_tests(Target("unused.py", ("tests/test_forks.py", "-s")), tmp_path,
                                       timeout=3 if how == "timeout" else 120)
    worker = int((tmp_path / "worker.pid").read_text())
    deadline = time.monotonic() + 5
    while alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(worker), f"the tests' worker {worker} outlived its mutant ({outcome})"
    assert outcome == how and seconds < 100, tail
    assert "the test's own words" in tail, tail
    assert {"passed": "1 passed", "failed": "1 failed", "timeout": "the test's own words"}[how] in tail, tail


def test_the_tail_is_the_last_2000_bytes_of_what_pytest_said(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_says.py").write_text(
        "def test_says_much():\n    print('x' * 5000 + 'the end')\n    assert False\n")
    outcome, _, tail = run_tests(Target("unused.py", ("tests/test_says.py",)), tmp_path, timeout=120)
    assert outcome == "failed" and "1 failed" in tail and len(tail.encode()) <= 2000, tail
    assert "x" * 100 in tail and "the end" in tail  # the tail of what it printed, its start cut
