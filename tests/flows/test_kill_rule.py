"""The proof layer of make mutants, on a fake proof runner that gives each outcome sby.run can: a
kill needs a counterexample from reset. A base case that fails a port property kills with its trace;
an induction that does not close, or a failure of the project's internal invariants alone, is rerun
as BMC from reset without them and kills only when that finds a trace; a timeout or a harness that
cannot attach is never a kill. No solver runs here (tests/flows/test_sby.py runs the real ones)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kill_rule_fakes import DECODED, SEQUENTIAL, TASKS, FakeProver, failed, not_closed

from roofline_flows import counterexamples, kill_matrix, rtl_mutants, sby
from roofline_flows.rtl_mutant_catalogue import load_catalogue
from roofline_flows.rtl_mutants import Cell, Row, judge_proofs, merge_seeds

COMBINATIONAL = TASKS["roofline_round_cap.verdict"]


def judge(prover: FakeProver, task: sby.Task = SEQUENTIAL) -> Cell:
    return judge_proofs([task], Path("/work/mutant/roofline_intensity.sv"), Path("/work/prove"), 60.0, prover)


def test_a_base_case_that_fails_a_port_property_kills_with_its_trace_decoded() -> None:
    prover = FakeProver(failed)
    cell = judge(prover)
    assert cell.outcome == "killed"
    assert cell.detail == "roofline_intensity.data_uq2_2_c5: failed: props_intensity.sv:113.7-113.32"
    assert "trace: /work/data_uq2_2_c5/engine_0/trace.vcd" in cell.evidence and DECODED[1] in cell.evidence
    assert prover.calls == [("data_uq2_2_c5", "prove", True)]  # no rerun needed


def test_induction_that_does_not_close_is_no_kill_until_bmc_from_reset_finds_a_trace() -> None:
    prover = FakeProver(not_closed, failed)
    cell = judge(prover)
    assert cell.outcome == "killed"
    assert prover.calls == [("data_uq2_2_c5", "prove", True), ("data_uq2_2_c5", "bmc", False)]
    assert "induction did not close" in cell.detail and "BMC from reset" in cell.detail and "depth 20" in cell.detail
    assert all("induct" not in line for line in cell.evidence)  # the induction step's trace is not evidence


def test_induction_that_does_not_close_and_a_clean_bmc_is_unknown_not_a_kill() -> None:
    cell = judge(FakeProver(not_closed, lambda task: sby.Outcome(task, True, 1.0, "no failure in 20 cycles from reset")))
    assert cell.outcome == "unknown"
    assert "no failure in 20 cycles from reset" in cell.detail and not cell.evidence


def test_a_failure_of_internal_invariants_alone_is_rerun_from_reset_without_them() -> None:
    unknown = judge(FakeProver(lambda task: failed(task, invariants_only=True),
                               lambda task: sby.Outcome(task, True, 1.0, "no failure")))
    assert unknown.outcome == "unknown" and "internal invariants" in unknown.detail
    killed = judge(FakeProver(lambda task: failed(task, invariants_only=True), failed))
    assert killed.outcome == "killed"


@pytest.mark.parametrize("summary", ["TIMEOUT", "cannot attach"])
def test_a_proof_that_timed_out_or_could_not_attach_is_never_a_kill(summary: str) -> None:
    prover = FakeProver(lambda task: sby.Outcome(task, False, 1.0, summary, ["no verdict within 60 s"]))
    cell = judge(prover)
    assert cell.outcome == "error" and "never a kill" in cell.detail
    assert len(prover.calls) == 1


def test_a_run_that_stopped_with_an_error_is_rerun_without_the_invariants_and_kills_only_with_a_trace() -> None:
    error = lambda task: sby.Outcome(task, False, 1.0, "ERROR", ["ERROR: Failed to parse set rhs expression"])  # noqa: E731
    assert judge(FakeProver(error, failed)).outcome == "killed"
    again = judge(FakeProver(error, error))
    assert again.outcome == "unknown" and "stopped with an error" in again.detail


def test_a_failure_without_a_trace_from_reset_is_never_a_kill() -> None:
    no_trace = judge(FakeProver(lambda task: sby.Outcome(task, False, 1.0, "assertion fails", ["failed: x.sv:1.1"]),
                                lambda task: sby.Outcome(task, True, 1.0, "no failure")))
    assert no_trace.outcome == "unknown"


def test_every_task_passing_survives_and_a_bounded_pass_is_unknown() -> None:
    assert judge(FakeProver(lambda task: sby.Outcome(task, True, 1.0, "k-induction, depth 2"))).outcome == "survived"
    bounded = judge(FakeProver(lambda task: sby.Outcome(task, True, 1.0, "no failure in 20 cycles", bounded=True)))
    assert bounded.outcome == "unknown"


def test_the_bmc_rerun_is_the_task_from_reset_at_its_ports_only_depth() -> None:
    rerun = counterexamples.bmc_task(SEQUENTIAL)
    assert rerun.mode == "bmc" and "mode bmc" in rerun.options and "mode prove" not in rerun.options
    assert rerun.depth_for(False) == SEQUENTIAL.ports_only_depth == 20


def test_the_replay_line_names_the_unit_its_parameters_the_trace_and_the_mutant() -> None:
    line = counterexamples.replay_command(SEQUENTIAL, Path("/w/trace.vcd"), "/m/roofline_intensity.sv")
    assert line == ("make sim TOP=roofline_intensity INT_BITS=2 FRAC_BITS=2 COUNT_BITS=5 REPLAY=/w/trace.vcd "
                    "RTL=/m/roofline_intensity.sv")
    assert counterexamples.replay_command(COMBINATIONAL, Path("/w/trace.vcd"), None) == ""  # a block with no bench


def test_simulation_must_kill_at_every_seed_and_the_proof_must_hold_a_counterexample() -> None:
    mutant = next(m for m in load_catalogue() if m.id == "div0_one_bit_short")
    both = merge_seeds({1: Cell("killed", "x"), 2: Cell("killed", "y")})
    one = merge_seeds({1: Cell("killed", "x"), 2: Cell("survived", "z")})
    assert both.outcome == "killed" and one.outcome == "survived" and one.by_seed == {"1": "killed", "2": "survived"}
    na = Cell("n/a", by_seed={"1": "n/a", "2": "n/a"})
    assert Row(mutant, {"bench": both, "sweep": na, "proof": Cell("killed", "t: failed")}).caught
    assert not Row(mutant, {"bench": one, "sweep": na, "proof": Cell("killed", "t: failed")}).caught
    assert not Row(mutant, {"bench": both, "sweep": na, "proof": Cell("unknown", "induction")}).caught
    assert Row(mutant, {"bench": both, "sweep": na, "proof": Cell("n/a")}).caught  # no proof reads the file
    # the bench at one seed and the sweep at the other: a simulation kills it at every seed
    split = {"bench": merge_seeds({1: Cell("killed"), 2: Cell("survived")}),
             "sweep": merge_seeds({1: Cell("survived"), 2: Cell("killed")}), "proof": Cell("n/a")}
    assert Row(mutant, split).simulation_killed


def test_the_table_shows_the_counterexample_and_counts_what_the_run_said(tmp_path: Path) -> None:
    cell = {"outcome": "killed", "detail": "roofline_round_cap.verdict: failed: props_round_cap.sv:30.1-30.9",
            "seconds": 1.0, "evidence": [], "by_seed": {}}
    gap = {"outcome": "unknown", "detail": "induction", "seconds": 1.0, "evidence": [], "by_seed": {}}
    sim = {"outcome": "killed", "detail": "x", "seconds": 1.0, "evidence": [], "by_seed": {"1": "killed", "2": "killed"}}
    document = kill_matrix.write_matrix([
        {"id": "a", "class": "c", "layers": {"bench": sim, "sweep": sim, "proof": cell}, "caught": True},
        {"id": "b", "class": "c", "layers": {"bench": sim, "sweep": sim, "proof": gap}, "caught": False}],
        "make mutants", True, tmp_path / "m.json", seeds=(1, 2))
    lines = kill_matrix.table(document).splitlines()
    assert lines[2] == "| `a` | c | killed | killed | killed | roofline_round_cap.verdict (props_round_cap.sv:30.1-30.9) |"
    assert lines[3] == "| `b` | c | killed | killed | unknown |  |"
    assert "seeds 1, 2" in lines[-1] and "2 mutants, 1 caught" in lines[-1] and "proof 1" in lines[-1]


def test_the_layer_that_runs_proofs_uses_the_rule(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    times = tmp_path / "times.json"
    times.write_text('{"roofline_intensity.data_uq2_2_c5": 10.0}')
    monkeypatch.setattr(rtl_mutants, "PROVE_TIMES", times)
    mutant = next(m for m in load_catalogue() if m.id == "div0_one_bit_short")
    cell = rtl_mutants.proof_layer(mutant, tmp_path / "roofline_intensity.sv", 60.0, 120.0, FakeProver(not_closed, failed))
    assert cell.outcome == "killed" and "BMC from reset" in cell.detail


def test_an_induction_steps_trace_is_no_counterexample() -> None:
    """A failure whose only waveform is the induction step's starts from a state no run may reach."""
    induction_only = lambda task: failed(task, trace="engine_0/trace_induct.vcd")  # noqa: E731
    assert counterexamples.from_outcome(induction_only(SEQUENTIAL)) is None
    cell = judge(FakeProver(induction_only, lambda task: sby.Outcome(task, True, 1.0, "no failure")))
    assert cell.outcome == "unknown" and not cell.evidence


def test_a_mutant_no_simulation_ran_at_any_seed_is_not_caught() -> None:
    """Caught means a bench or a sweep killed it at every seed run: with no seed run, nothing was checked."""
    mutant = next(m for m in load_catalogue() if m.id == "div0_one_bit_short")
    nothing = {"bench": Cell("n/a"), "sweep": Cell("n/a"), "proof": Cell("killed", "t: failed")}
    assert not Row(mutant, nothing).simulation_killed and not Row(mutant, nothing).caught
    assert not Row(mutant, {"proof": Cell("killed", "t: failed")}).caught  # no simulation layer at all
