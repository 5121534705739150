"""sby.run's verdict from what SymbiYosys printed, with no solver (tests/flows/test_sby.py runs the
real ones): PROVED only when k-induction closed; an induction that does not close on a drop-in
checked by its ports alone is BOUNDED, never PROVED; on the project's RTL, or with the invariants
attached, it is a failure; a timeout, an error or an output with no verdict never passes, and a
cover task passes only when every cover is reached."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from roofline_core.paths import RTL_DIR
from roofline_flows import sby

TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
PROVE = TASKS["roofline_intensity.data_uq2_2_c5"]  # k-induction, with a ports-only depth of its own
COVER = TASKS["roofline_intensity.cover_uq2_2_c5"]
PROJECT = RTL_DIR / "roofline_intensity.sv"
BASECASE_PASSED = "summary: engine_0 (smtbmc z3) returned pass for basecase\n"
NOT_CLOSED = BASECASE_PASSED + "engine_0: ##   0:00:01  Status: failed\nDONE (UNKNOWN, rc=4)\n"


def outcome(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, task: sby.Task, printed: str, design: Path = PROJECT,
            probes: tuple[str, ...] = (), timeout: bool = False) -> sby.Outcome:
    lacking = [] if probes or design.is_relative_to(RTL_DIR) else ["probe_count"]  # a drop-in without the invariants
    attachment = sby.Attachment(design, list(probes), lacking, properties=3)
    monkeypatch.setattr(sby, "attach", lambda *args, **options: attachment)
    monkeypatch.setattr(sby, "staged", lambda *args: tmp_path / "task.sby")

    def ran(argv: list[str], **options: object) -> subprocess.CompletedProcess[str]:
        if timeout:
            raise subprocess.TimeoutExpired(argv, 60)
        return subprocess.CompletedProcess(argv, 0, printed, "")

    monkeypatch.setattr(sby.subprocess, "run", ran)
    drop_in = None if design.is_relative_to(RTL_DIR) else str(design)
    return sby.run(task, tmp_path, ["sby"], timeout=60, drop_in=drop_in)


def test_a_closed_induction_is_proved(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, "DONE (PASS, rc=0)\n", probes=("probe_count",))
    assert found.passed and not found.bounded and found.verdict == "PROVED"
    assert found.summary == f"k-induction, depth {PROVE.depth_for(True)}"


def test_an_induction_that_does_not_close_on_a_drop_in_by_its_ports_alone_is_bounded_never_proved(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, NOT_CLOSED, design=tmp_path / "roofline_intensity.sv")
    assert found.passed and found.bounded and found.verdict == "BOUNDED"
    assert found.summary.startswith(f"no failure in {PROVE.depth_for(False)} cycles from reset; induction does not close")


@pytest.mark.parametrize("where", ["the project's RTL", "the project's RTL, --no-probes", "a drop-in with the invariants"])
def test_an_induction_that_does_not_close_on_the_project_rtl_or_with_the_invariants_is_a_failure(
        where: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    design = tmp_path / "roofline_intensity.sv" if "drop-in" in where else PROJECT
    probes = () if "--no-probes" in where else ("probe_count",)
    found = outcome(monkeypatch, tmp_path, PROVE, NOT_CLOSED, design=design, probes=probes)
    assert not found.passed and not found.bounded and found.verdict == "FAILED"
    assert found.summary == "induction did not close"


def test_an_induction_whose_base_case_fails_is_a_failure_even_by_the_ports_alone(monkeypatch: pytest.MonkeyPatch,
                                                                               tmp_path: Path) -> None:
    printed = "failed assertion props_intensity.sv:113.7-113.32 at step 3\nDONE (UNKNOWN, rc=4)\n"  # no passed base case
    found = outcome(monkeypatch, tmp_path, PROVE, printed, design=tmp_path / "roofline_intensity.sv")
    assert not found.passed and found.verdict == "FAILED"


@pytest.mark.parametrize("printed", ["", "DONE (ERROR, rc=16)\n", "DONE (FAIL, rc=2)\n", "PASS\n"])
def test_an_output_without_a_passing_verdict_never_passes(printed: str, monkeypatch: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, printed, design=tmp_path / "roofline_intensity.sv")
    assert not found.passed and not found.bounded and found.verdict == "FAILED"


def test_a_timeout_never_passes(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    found = outcome(monkeypatch, tmp_path, PROVE, "", timeout=True)
    assert not found.passed and found.summary == "TIMEOUT" and found.verdict == "FAILED"


def test_a_cover_passes_only_when_every_cover_is_reached(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    reached = "".join(f"summary:   reached cover statement props_intensity.c{line} at props_intensity.sv:{line}.5-{line}.20 "
                      "step 4\n" for line in (200, 201))
    found = outcome(monkeypatch, tmp_path, COVER, reached + "DONE (PASS, rc=0)\n")
    assert found.passed and found.verdict == "REACHED" and found.summary == "2 covers reached"
    missed = reached + "summary:   unreached cover statement props_intensity.c202 at props_intensity.sv:202.5-202.20\n"
    found = outcome(monkeypatch, tmp_path, COVER, missed + "DONE (PASS, rc=0)\n")
    assert not found.passed and found.detail == ["cover not reached: props_intensity.sv:202.5-202.20"]


def test_a_cover_task_that_reached_nothing_is_no_pass(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PASS whose output names no reached cover (a format the reader does not know) checked nothing it can show."""
    found = outcome(monkeypatch, tmp_path, COVER, "DONE (PASS, rc=0)\n")
    assert not found.passed and found.verdict == "FAILED" and found.summary == "0 covers reached"
