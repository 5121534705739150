"""`make prove`'s exit paths without a solver (roofline_flows.prove): the outcomes given, what main
returns and says, which tasks --within runs. Fast, so that `make mutation` runs it per mutant;
tests/project/test_exit_status.py runs the real command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from roofline_core.paths import RTL_DIR
from roofline_core.tools import ToolError
from roofline_flows import prove, sby

TASKS = [sby.Task(Path("roofline_round_cap.sby"), "verdict", "prove", 4, {}),
         sby.Task(Path("roofline_round_cap.sby"), "cover", "cover", 8, {})]
BMC_TASK = sby.Task(Path("roofline_round_cap.sby"), "data", "bmc", 6, {})

BUILD = "deep/build"  # below tmp_path, not there yet: make prove makes it


class Proving(dict[str, tuple[bool, bool]]):
    """Each task's (passed, bounded), as the test sets them, and whether each run was asked to attach the probes."""

    probed: list[bool]
    seconds: float = 1.0  # every task's time


@pytest.fixture
def proving(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Proving:
    """Every task passes unless the test says otherwise; logs and times into tmp_path/BUILD."""
    results = Proving({task.name: (True, False) for task in TASKS})
    results.probed = []
    monkeypatch.setattr(prove, "BUILD_ROOT", tmp_path / BUILD)
    monkeypatch.setattr(prove, "RECORDED_TIMES", tmp_path / "prove-times.json")  # a complete run rewrites it
    monkeypatch.setattr(sby, "tasks", lambda: TASKS)
    monkeypatch.setattr(sby, "toolchain", lambda: (["sby"], "a fake sby"))

    def run(task: sby.Task, log_dir: Path, command: list[str], timeout: float, rtl: str | None, probes: bool) -> sby.Outcome:
        passed, bounded = results[task.name]
        results.probed.append(probes)
        design = Path(rtl) if rtl else RTL_DIR / "roofline_round_cap.sv"
        return sby.Outcome(task, passed, results.seconds, "a summary", [] if passed else ["step 3: assert failed"], bounded,
                           sby.Attachment(design))

    monkeypatch.setattr(sby, "run", run)
    return results


def test_every_task_proved_exits_0(proving: Proving, capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main([]) == 0
    out = capsys.readouterr().out
    assert "PROVED roofline_round_cap.verdict" in out and "REACHED roofline_round_cap.cover" in out
    assert out.rstrip().endswith("make prove: 2 passed, 0 failed")


def test_one_failed_task_exits_1(proving: Proving, capsys: pytest.CaptureFixture[str]) -> None:
    proving["cover"] = (False, False)
    assert prove.main([]) == 1
    out = capsys.readouterr().out
    assert "FAILED roofline_round_cap.cover (1.0 s)" in out and out.rstrip().endswith("make prove: 1 passed, 1 failed")
    assert ("roofline_round_cap.cover: FAILED, a summary\n    step 3: assert failed\n"
            '    rerun: make prove ARGS="-k roofline_round_cap.cover"') in out
    assert "roofline_round_cap.verdict: PROVED" not in out  # a proof that held is not listed again


def test_a_bmc_task_passes_as_bounded_and_the_last_line_says_it_is_no_proof(proving: Proving,
                                                                          monkeypatch: pytest.MonkeyPatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sby, "tasks", lambda: [*TASKS, BMC_TASK])
    proving["data"] = (True, False)
    assert prove.main([]) == 0
    out = capsys.readouterr().out
    assert "BOUNDED roofline_round_cap.data" in out and "PROVED roofline_round_cap.data" not in out
    assert "BMC from reset  rtl/    BOUNDED: a summary" in out  # the table says it too
    assert out.rstrip().endswith("make prove: 3 passed (1 of them BMC: no failure to its depth from reset, "
                                 "not a proof), 0 failed")


def test_the_table_shows_a_bounded_drop_in_as_bounded_and_a_proof_by_its_summary(proving: Proving,
                                                                                capsys: pytest.CaptureFixture[str]) -> None:
    proving["verdict"] = (True, True)
    assert prove.main([]) == 0
    cells = {row[0]: row for line in capsys.readouterr().out.splitlines()
             if (row := re.split(r"\s{2,}", line.strip()))[0] in ("verdict", "cover")}
    assert cells["verdict"][-2] == "BOUNDED: a summary" and cells["cover"][-2] == "a summary", cells


def test_a_task_that_cannot_attach_is_a_failure_and_exits_1(proving: Proving, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A drop-in whose ports are not the contract's proves nothing: sby.run gives no attachment, and the
    task counts as failed (never left out of the count, so never a green run of nothing)."""
    def cannot_attach(task: sby.Task, *_: object) -> sby.Outcome:
        return sby.Outcome(task, False, 0.2, "cannot attach", ["cannot attach the port properties to x.sv: no port cap_o"])

    monkeypatch.setattr(sby, "run", cannot_attach)
    assert prove.main(["--rtl", str(RTL_DIR)]) == 1
    out = capsys.readouterr().out
    assert out.rstrip().endswith("make prove: 0 passed, 2 failed"), out
    assert "FAILED roofline_round_cap.verdict" in out and "cannot attach the port properties to x.sv" in out


def test_the_project_rtl_is_named_and_its_proof_times_are_kept(proving: Proving, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    proving["cover"] = (False, False)
    assert prove.main([]) == 1
    assert "checking the project's RTL (" in capsys.readouterr().out
    times = (tmp_path / BUILD / "prove" / "times.json").read_text()
    assert '"roofline_round_cap.verdict": 1.0' in times and "cover" not in times  # only what passed
    assert prove.main([]) == 1  # a second run in the same build folder


def test_a_drop_in_is_named_its_times_are_not_kept_and_its_rerun_carries_it(
        proving: Proving, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drop_in = tmp_path / "roofline_round_cap.sv"
    drop_in.write_text((RTL_DIR / "roofline_round_cap.sv").read_text())
    proving["verdict"] = (False, False)
    assert prove.main(["--rtl", str(drop_in), "--jobs", "0"]) == 1
    out = capsys.readouterr().out
    assert f"checking RTL={drop_in}:" in out and "FAILED roofline_round_cap.verdict [drop-in] (1.0 s)" in out
    assert f'rerun: make prove ARGS="-k roofline_round_cap.verdict" RTL="{drop_in}"' in out
    assert not (tmp_path / BUILD / "prove" / "times.json").exists()


def test_a_missing_drop_in_or_toolchain_exits_2(proving: Proving, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main(["--rtl", "/no/such/rtl.sv"]) == 2
    assert capsys.readouterr().err.strip() == "error: RTL=/no/such/rtl.sv: no such file or folder"

    def no_sby() -> tuple[list[str], str]:
        raise ToolError("yowasp-sby not found")

    monkeypatch.setattr(sby, "toolchain", no_sby)
    assert prove.main([]) == 2
    assert capsys.readouterr().err.strip() == "error: yowasp-sby not found"


def test_a_bounded_proof_passes_and_says_it_is_bounded(proving: Proving,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    proving["verdict"] = (True, True)
    assert prove.main([]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith("make prove: 1 passed, 1 bounded only (port properties from reset, no internal "
                                 "invariants), 0 failed")
    assert "roofline_round_cap.verdict: BOUNDED, a summary" in out


def test_no_such_task_exits_2(proving: Proving, capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main(["-k", "no_such_task"]) == 2
    assert capsys.readouterr().err.strip() == "error: no task name (unit.task) contains 'no_such_task'"


def test_only_the_named_tasks_run(proving: Proving, capsys: pytest.CaptureFixture[str]) -> None:
    proving["cover"] = (False, False)  # not run: -k picks the verdict
    assert prove.main(["-k", "round_cap.verdict"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("make prove: 1 passed, 0 failed")


def test_the_internal_invariants_are_attached_unless_no_probes_is_given(proving: Proving,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    proving["verdict"] = (False, False)
    assert prove.main(["-k", "verdict"]) == 1
    assert prove.main(["-k", "verdict", "--no-probes"]) == 1
    assert proving.probed == [True, False]
    assert 'rerun: make prove ARGS="-k roofline_round_cap.verdict --no-probes"' in capsys.readouterr().out


def test_a_complete_run_that_proved_everything_records_its_times(proving: Proving, tmp_path: Path) -> None:
    recorded = tmp_path / "prove-times.json"
    assert prove.main(["-k", "verdict"]) == 0 and not recorded.exists()  # not every task: not a complete run
    proving["cover"] = (False, False)
    assert prove.main([]) == 1 and not recorded.exists()  # a failed task: nothing recorded
    proving["cover"] = (True, False)
    proving.seconds = 1.26
    assert prove.main([]) == 0
    assert json.loads(recorded.read_text()) == {"roofline_round_cap.cover": 1.3, "roofline_round_cap.verdict": 1.3}  # a tenth


def test_within_runs_a_task_at_the_limit_and_one_never_recorded(proving: Proving, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prove-times.json").write_text('{"roofline_round_cap.verdict": 60.0}')  # the cover: never recorded
    assert prove.main(["--within", "60"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("make prove: 2 passed, 0 failed")
    assert prove.main(["--within", "0", "-k", "cover"]) == 0  # recorded as nothing: it runs
    assert capsys.readouterr().out.rstrip().endswith("make prove: 1 passed, 0 failed")
    assert prove.main(["--within", "-1", "-k", "cover"]) == 2  # nothing (0 s) is longer than -1 s: skipped


@pytest.mark.parametrize("within", ["-1", "-0.5", "-0.001"])
def test_within_below_zero_is_refused_as_a_wrong_command(proving: Proving, within: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert prove.main(["--within", within]) == 2
    assert f"error: --within {float(within):g}: a number of seconds, 0 or more" in capsys.readouterr().err


def test_within_skips_the_tasks_slower_than_it_and_says_which(proving: Proving, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "prove-times.json").write_text('{"roofline_round_cap.verdict": 300.0, "roofline_round_cap.cover": 2.0}')
    proving["verdict"] = (False, False)  # skipped, so it cannot fail the run
    assert prove.main(["--within", "60"]) == 0
    out = capsys.readouterr().out
    assert "\nnot run (over 60 s each in the last complete run; make prove runs them): roofline_round_cap.verdict\n" in out
    assert out.rstrip().endswith("make prove: 1 passed, 0 failed, 1 not run (--within 60)")
    assert prove.main(["--within", "1"]) == 2
    assert capsys.readouterr().err.strip() == ("error: every task chosen took over 1 s in the last complete run: "
                                               "nothing to prove")


@pytest.mark.parametrize(("summary", "waveform", "shown"), [
    ("assertion fails", "engine_0/trace.vcd", True),  # a trace from reset: its replay is printed
    ("induction did not close", "engine_0/trace_induct.vcd", False),  # an induction step's: nothing to replay
])
def test_a_counterexample_of_a_unit_with_a_bench_prints_its_replay(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str], summary: str,
                                                                  waveform: str, shown: bool) -> None:
    task = sby.Task(Path("roofline_attainable.sby"), "verdict", "prove", 1, {"INT_BITS": 8, "FRAC_BITS": 8})
    monkeypatch.setattr(prove, "BUILD_ROOT", tmp_path / BUILD)
    monkeypatch.setattr(sby, "tasks", lambda: [task])
    monkeypatch.setattr(sby, "toolchain", lambda: (["sby"], "a fake sby"))
    monkeypatch.setattr(sby, "run", lambda task, *_: sby.Outcome(
        task, False, 1.0, summary, ["failed: props_attainable.sv:27.5-27.68", f"waveform: /w/{waveform}"],
        attachment=sby.Attachment(RTL_DIR / "roofline_attainable.sv")))
    assert prove.main([]) == 1
    out = capsys.readouterr().out
    line = "    as a bench: make sim TOP=roofline_attainable INT_BITS=8 FRAC_BITS=8 REPLAY=/w/engine_0/trace.vcd\n"
    assert (line in out) == shown and ("as a bench" in out) == shown
