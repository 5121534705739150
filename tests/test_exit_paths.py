"""`make prove`'s exit path without a solver: its tasks' outcomes given, what prove.main returns and
says. Fast, so that `make mutation` runs it per mutant; tests/test_exit_status.py runs the real
command, with SymbiYosys, on a proof that holds and on a ridge bug."""

from __future__ import annotations

from pathlib import Path

import pytest

from roofline_flows import prove, sby

TASKS = [sby.Task(Path("roofline_round_cap.sby"), "verdict", "prove", 4, {}),
         sby.Task(Path("roofline_round_cap.sby"), "cover", "cover", 8, {})]


@pytest.fixture
def proving(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, tuple[bool, bool]]:
    """Each task's (passed, bounded), as the test sets them; logs and times into tmp_path."""
    results = {task.name: (True, False) for task in TASKS}
    monkeypatch.setattr(prove, "BUILD_ROOT", tmp_path)
    monkeypatch.setattr(sby, "tasks", lambda: TASKS)
    monkeypatch.setattr(sby, "toolchain", lambda: (["sby"], "a fake sby"))
    monkeypatch.setattr(prove, "describe_design", lambda rtl: [])
    monkeypatch.setattr(sby, "run", lambda task, *rest: sby.Outcome(task, results[task.name][0], 1.0, "a summary",
                                                                   bounded=results[task.name][1]))
    return results


def test_every_task_proved_exits_0(proving: dict[str, tuple[bool, bool]], capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main([]) == 0
    out = capsys.readouterr().out
    assert "PROVED roofline_round_cap.verdict" in out and "REACHED roofline_round_cap.cover" in out
    assert out.rstrip().endswith("make prove: 2 passed, 0 failed")


def test_one_failed_task_exits_1(proving: dict[str, tuple[bool, bool]], capsys: pytest.CaptureFixture[str]) -> None:
    proving["cover"] = (False, False)
    assert prove.main([]) == 1
    out = capsys.readouterr().out
    assert "FAILED roofline_round_cap.cover" in out and out.rstrip().endswith("make prove: 1 passed, 1 failed")
    assert "roofline_round_cap.cover: FAILED, a summary" in out and "rerun: make prove" in out


def test_a_bounded_proof_passes_and_says_it_is_bounded(proving: dict[str, tuple[bool, bool]],
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    proving["verdict"] = (True, True)
    assert prove.main([]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("make prove: 1 passed, 1 bounded only (port properties from reset, no internal "
                                 "invariants), 0 failed")
    assert "roofline_round_cap.verdict: BOUNDED, a summary" in out


def test_no_such_task_exits_2(proving: dict[str, tuple[bool, bool]], capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main(["-k", "no_such_task"]) == 2
    assert capsys.readouterr().err.strip() == "error: no task name (unit.task) contains 'no_such_task'"


def test_only_the_named_tasks_run(proving: dict[str, tuple[bool, bool]], capsys: pytest.CaptureFixture[str]) -> None:
    proving["cover"] = (False, False)  # not run: -k picks the verdict
    assert prove.main(["-k", "round_cap.verdict"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("make prove: 1 passed, 0 failed")
