"""`make prove`'s and `make sweep`'s exit paths without a solver or a simulator: the outcomes given,
what main returns and says. Fast, so that `make mutation` runs it per mutant; tests/test_exit_status.py
runs the real commands (SymbiYosys, Icarus) on a passing and a failing input."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from roofline_bulk import sweep
from roofline_core.paths import RTL_DIR
from roofline_core.tools import ToolError
from roofline_flows import prove, sby

TASKS = [sby.Task(Path("roofline_round_cap.sby"), "verdict", "prove", 4, {}),
         sby.Task(Path("roofline_round_cap.sby"), "cover", "cover", 8, {})]


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
            '    rerun: make prove PROVE_ARGS="-k roofline_round_cap.cover"') in out
    assert "roofline_round_cap.verdict: PROVED" not in out  # a proof that held is not listed again


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
    assert f'rerun: make prove PROVE_ARGS="-k roofline_round_cap.verdict" RTL="{drop_in}"' in out
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
    assert 'rerun: make prove PROVE_ARGS="-k roofline_round_cap.verdict --no-probes"' in capsys.readouterr().out


# ---------------------------------------------------------------- make sweep's exit path, without a simulator

@dataclass
class Swept:
    """What run_sweep gives back, as far as the exit status reads it."""

    passed: int
    failed: int
    failures: list[object] = field(default_factory=list)


@pytest.fixture
def sweeping(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, object]:
    """The sweep's outcome, as the test sets it: (vectors passed, vectors failed), and the summary's verdict."""
    outcome: dict[str, object] = {"result": Swept(200, 0), "summary": True, "raise": None}

    def run_sweep(cfg: object, quiet: bool) -> tuple[Swept, dict[str, int]]:
        outcome["quiet"] = quiet
        if outcome["raise"] is not None:
            raise outcome["raise"]  # type: ignore[misc]
        return outcome["result"], {}  # type: ignore[return-value]

    monkeypatch.setattr(sweep, "run_sweep", run_sweep)
    monkeypatch.setattr(sweep, "sweep_build", lambda cfg: SimpleNamespace(folder=tmp_path))
    def summarize(*args: object) -> object:
        outcome["log"] = args[-1]  # where the simulator's output went: a log file, or the terminal (None)
        outcome["seconds"] = args[-2]  # how long the sweep took
        return outcome["summary"]

    @contextlib.contextmanager
    def progress() -> Iterator[None]:
        outcome["progress"] = True
        yield

    monkeypatch.setattr(sweep, "summarize", summarize)
    monkeypatch.setattr(sweep, "progress_on_terminal", progress)
    return outcome


def test_a_quiet_sweep_logs_the_simulator_and_shows_progress_and_a_verbose_one_shows_the_simulator(
        sweeping: dict[str, object], tmp_path: Path) -> None:
    assert sweep.main(SWEEP) == 0
    assert (sweeping["log"], sweeping.get("progress"), sweeping["quiet"]) == (tmp_path / "sim.log", True, True)
    assert 0 <= sweeping["seconds"] < 60  # type: ignore[operator]  # the time since the sweep started
    sweeping.pop("progress")
    assert sweep.main([*SWEEP, "--verbose"]) == 0
    assert (sweeping["log"], sweeping.get("progress"), sweeping["quiet"]) == (None, None, False)


SWEEP = ["--sim", "icarus", "--top", "roofline_attainable", "-n", "200", "--seed", "1"]


@pytest.mark.parametrize(("result", "summary", "status"), [
    (Swept(200, 0), True, 0),
    (Swept(199, 1), True, 1),  # a mismatched vector, whatever the summary says
    (Swept(200, 0), False, 1),  # the summary found a problem (coverage, a bound)
    (Swept(0, 0), True, 1),  # nothing checked is no pass
    (Swept(1, 0), True, 0),  # one vector checked is a pass (N=1)
], ids=["passed", "a-mismatch", "summary-failed", "nothing-checked", "one-vector"])
def test_the_sweep_exits_by_what_it_checked(sweeping: dict[str, object], result: Swept, summary: bool, status: int) -> None:
    sweeping.update(result=result, summary=summary)
    assert sweep.main(SWEEP) == status


def test_a_build_that_stops_exits_1_and_bad_input_exits_2(sweeping: dict[str, object],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    sweeping["raise"] = SystemExit("verilator: %Error")
    assert sweep.main(SWEEP) == 1
    assert "error: the build or the simulator failed (verilator: %Error)" in capsys.readouterr().err
    sweeping["raise"] = ToolError("iverilog not found")
    assert sweep.main(SWEEP) == 2
    assert capsys.readouterr().err.strip() == "error: iverilog not found"


@pytest.mark.parametrize(("arguments", "message"), [
    (["-n", "0"], "error: N must be at least 1"),
    (["--only", "200"], "error: ONLY=200: this sweep numbers its vectors 0..199"),
    (["--only", "-1"], "error: ONLY=-1: this sweep numbers its vectors 0..199"),
])
def test_an_impossible_sweep_is_one_line_and_exit_2(sweeping: dict[str, object], arguments: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert sweep.main([*SWEEP, *arguments]) == 2
    assert capsys.readouterr().err.strip() == message


def test_the_last_vector_may_be_run_alone(sweeping: dict[str, object]) -> None:
    assert sweep.main([*SWEEP, "--only", "199"]) == 0


def test_every_top_must_pass(sweeping: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = iter([0, 1])
    monkeypatch.setattr(sweep, "run_one", lambda cfg, verbose: next(verdicts))
    assert sweep.main([*SWEEP[:2], "--top", "all", *SWEEP[4:]]) == 1


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


@pytest.fixture
def configs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The configurations main hands to run_one, which passes."""
    seen: list[object] = []
    monkeypatch.setattr(sweep, "run_one", lambda cfg, verbose: seen.append(cfg) or 0)
    return seen


def test_the_smallest_sweep_and_the_first_vector_are_allowed(configs: list[object]) -> None:
    assert sweep.main(["--sim", "icarus", "--top", "roofline_attainable", "-n", "1", "--seed", "1"]) == 0
    assert sweep.main([*SWEEP, "--only", "0"]) == 0
    assert [(c.count, c.only) for c in configs] == [(1, None), (200, 0)]  # type: ignore[attr-defined]


def test_a_seed_given_is_used_and_one_not_given_is_drawn_from_31_bits(configs: list[object],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """31 bits, as every other random run draws its seed (tests/conftest.py, make sim)."""
    drawn: list[int] = []
    monkeypatch.setattr(sweep.random, "randrange", lambda stop: drawn.append(stop) or 12345)
    assert sweep.main(SWEEP) == 0 and sweep.main(SWEEP[:-2]) == 0
    assert [c.seed for c in configs] == [1, 12345] and drawn == [1 << 31]  # type: ignore[attr-defined]


def test_the_command_line_is_read_from_argv(configs: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["sweep.py", *SWEEP])
    assert sweep.main() == 0 and configs[0].count == 200  # type: ignore[attr-defined]


@pytest.mark.parametrize(("sim", "top", "lanes"), [("verilator", "roofline_attainable", 32),
                                                   ("verilator", "roofline_hierarchy", 8), ("icarus", "roofline_attainable", 1)])
def test_lanes_default_per_simulator_and_module(configs: list[object], sim: str, top: str, lanes: int) -> None:
    """--lanes's help: on Verilator 32 for a one-level module, 8 for one with memory levels; on Icarus 1."""
    assert sweep.main(["--sim", sim, "--top", top, "-n", "200", "--seed", "1"]) == 0
    assert configs[0].lanes == lanes  # type: ignore[attr-defined]
