"""make mutants' verdicts beyond one task, rule by rule (make mutation's tests for rtl_mutants.py and kill_matrix.py).

The rule (docs/mutants-and-coverage.md, rtl_mutants.py): a mutant is caught when a bench or a sweep killed it
at every seed run and, where a proof reads its file, a proof killed it with a counterexample (or the catalogue
says why none can), and it built; a layer over several seeds is killed only when each seed killed it; the
proof layer tries the catalogue's tasks, then the fastest while their make prove times fit the budget, and the
first counterexample kills; every pass is a survival, a bounded pass or an unclosed one unknown, a failure
without a trace an error. The kill matrix counts what the run's document says. No solver or simulator runs.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from kill_rule_fakes import SEQUENTIAL, TASKS, FakeProver, failed, not_closed

from roofline_core.tools import ToolError
from roofline_flows import kill_matrix, rtl_mutants, sby
from roofline_flows.rtl_mutant_catalogue import load_catalogue
from roofline_flows.rtl_mutants import Cell, Row, judge_proofs, merge_seeds

MUTANT = next(m for m in load_catalogue() if m.id == "div0_one_bit_short")
UNPROVABLE = dataclasses.replace(MUTANT, proof_survives="its bug is in a block no proof reads")
NA = Cell("n/a", "x", by_seed={"1": "n/a"})


def killed_at(*seeds: int) -> Cell:
    return Cell("killed", "k", by_seed={str(seed): "killed" for seed in seeds})


def survived_at(*seeds: int) -> Cell:
    return Cell("survived", "s", by_seed={str(seed): "survived" for seed in seeds})


# ---------------------------------------------------------------- a row's verdict


def test_simulation_killed_needs_every_seed_and_a_row_where_nothing_ran_killed_nothing() -> None:
    assert not Row(MUTANT, {}).simulation_killed  # nothing ran: nothing killed
    assert not Row(MUTANT, {"bench": Cell("n/a"), "sweep": Cell("n/a")}).simulation_killed  # no seed ran
    assert Row(MUTANT, {"bench": killed_at(1, 2)}).simulation_killed
    assert Row(MUTANT, {"sweep": killed_at(1, 2)}).simulation_killed
    assert not Row(MUTANT, {"bench": Cell("killed", by_seed={"1": "killed", "2": "survived"})}).simulation_killed
    assert not Row(MUTANT, {"bench": killed_at(1), "sweep": survived_at(2)}).simulation_killed  # seed 2: no layer
    assert not Row(MUTANT, {"proof": Cell("killed", by_seed={"1": "killed"})}).simulation_killed  # a proof is no simulation


def test_the_closing_line_counts_only_kills_per_layer_and_only_caught_rows() -> None:
    rows = [Row(MUTANT, {"bench": killed_at(1), "sweep": NA, "proof": Cell("killed", "t: failed")}),
            Row(MUTANT, {"bench": killed_at(1), "sweep": killed_at(1), "proof": Cell("error", "TIMEOUT")}),
            Row(MUTANT, {"bench": survived_at(1), "sweep": Cell("error", "build"), "proof": Cell("unknown", "x")}),
            Row(MUTANT, {"bench": killed_at(1)})]  # no sweep or proof cell at all
    assert rtl_mutants.closing_line(rows) == (
        "make mutants: hand-written 2/4 caught (a bench or sweep at every seed, and a proof with a counterexample where "
        "one applies); killed by bench 3, sweep 1, proof 1")


@pytest.mark.parametrize(("proof", "mutant", "gap"), [
    (None, MUTANT, ""), (Cell("killed", "t"), MUTANT, ""), (Cell("n/a", "no proof reads it"), MUTANT, ""),
    (Cell("unknown", "induction did not close"), MUTANT, "proof unknown (induction did not close)"),
    (Cell("survived", "3 tasks passed"), MUTANT, "proof survived (3 tasks passed)"),
    (Cell("error", "TIMEOUT"), MUTANT, "proof error (TIMEOUT)"),
    (Cell("survived", "3 tasks passed"), UNPROVABLE, ""),  # the catalogue says why no proof can
])
def test_the_proof_gap_is_a_proof_that_read_the_file_and_held_no_counterexample(proof: Cell | None, mutant: object,
                                                                                 gap: str) -> None:
    cells = {"bench": killed_at(1)} | ({"proof": proof} if proof else {})
    row = Row(mutant, cells)  # type: ignore[arg-type]
    assert row.proof_gap == gap and row.caught is (gap == "")


@pytest.mark.parametrize(("detail", "broken"), [
    ("did not build: syntax error", True), ("not applied: the original text is not in the file", True),
    ("the bench stopped", False),
])
def test_a_mutant_that_did_not_build_or_apply_is_broken_and_never_caught(detail: str, broken: bool) -> None:
    row = Row(MUTANT, {"bench": killed_at(1), "sweep": Cell("error", detail, by_seed={"1": "error"}), "proof": Cell("n/a")})
    assert row.broken is broken and row.caught is not broken
    assert not Row(MUTANT, {"bench": killed_at(1), "sweep": Cell("survived", "did not build")}).broken  # not an error


# ---------------------------------------------------------------- seeds


def test_a_layer_over_seeds_is_killed_only_when_each_seed_killed_it() -> None:
    one = merge_seeds({7: Cell("killed", "first", 1.5)})
    assert (one.outcome, one.detail, one.seconds, one.by_seed) == ("killed", "first (killed at seed 7)", 1.5, {"7": "killed"})
    both = merge_seeds({1: Cell("killed", "a", 1.0), 2: Cell("killed", "b", 2.0)})
    assert (both.outcome, both.detail, both.seconds) == ("killed", "a (killed at seeds 1, 2)", 3.0)
    split = merge_seeds({1: Cell("killed", "a", 1.0), 2: Cell("survived", "b", 0.5)})
    assert (split.outcome, split.detail, split.seconds) == ("survived", "seed 1: killed (a); seed 2: survived (b)", 1.5)
    error = merge_seeds({1: Cell("killed", "a"), 2: Cell("error", "did not build")})
    assert error.outcome == "error" and error.by_seed == {"1": "killed", "2": "error"}
    na = merge_seeds({1: Cell("n/a", "no bench", 0.25), 2: Cell("n/a", "no bench", 0.25)})
    assert (na.outcome, na.detail, na.seconds) == ("n/a", "no bench", 0.5)
    half = merge_seeds({1: Cell("n/a", "no bench"), 2: Cell("killed", "k")})
    assert half.outcome == "survived"  # not killed at every seed


# ---------------------------------------------------------------- the proof layer's tasks and budget


def times_file(tmp_path: Path, times: dict[str, float], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "times.json"
    path.write_text(json.dumps(times))
    monkeypatch.setattr(rtl_mutants, "PROVE_TIMES", path)


def passing(task: sby.Task) -> sby.Outcome:
    return sby.Outcome(task, True, 1.0, "k-induction, depth 2")


def intensity_tasks() -> list[str]:
    return [name for name, task in TASKS.items() if name.startswith("roofline_intensity.") and task.mode != "cover"]


def test_the_proof_layer_tries_the_fastest_tasks_that_fit_the_budget_and_says_how_many_it_left(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = intensity_tasks()[:3]
    assert len(names) == 3, intensity_tasks()
    plain = dataclasses.replace(MUTANT, proof=())
    times_file(tmp_path, {names[0]: 30.0, names[1]: 10.0, names[2]: 20.0}, monkeypatch)
    prover = FakeProver(passing)
    cell = rtl_mutants.proof_layer(plain, tmp_path / "roofline_intensity.sv", 60.0, 30.0, prover)
    assert [name for name, _, _ in prover.calls] == [n.split(".")[1] for n in (names[1], names[2])]  # 10 + 20 = 30 fits
    assert (cell.outcome, cell.detail) == ("survived", "2 tasks passed; 1 slower ones beyond the --proof-budget not run")
    everything = FakeProver(passing)
    all_in = rtl_mutants.proof_layer(plain, tmp_path / "roofline_intensity.sv", 60.0, 60.0, everything)
    assert len(everything.calls) == 3 and all_in.detail == "3 tasks passed"


def test_the_catalogues_tasks_run_first_and_whatever_they_cost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = intensity_tasks()[:3]
    times_file(tmp_path, {names[0]: 500.0, names[1]: 10.0, names[2]: 20.0}, monkeypatch)
    chosen = dataclasses.replace(MUTANT, proof=(names[0],))
    prover = FakeProver(passing)
    cell = rtl_mutants.proof_layer(chosen, tmp_path / "roofline_intensity.sv", 60.0, 10.0, prover)
    assert [name for name, _, _ in prover.calls] == [names[0].split(".")[1], names[1].split(".")[1]]
    assert cell.detail == "2 tasks passed; 1 slower ones beyond the --proof-budget not run"
    order = [f"{t.unit}.{t.name}" for t in rtl_mutants.proof_tasks(chosen)]
    assert order == [names[0], names[1], names[2]]


def test_a_task_make_prove_never_timed_is_not_tried_and_without_the_times_the_layer_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = intensity_tasks()[:2]
    times_file(tmp_path, {names[1]: 1.0}, monkeypatch)
    assert [f"{t.unit}.{t.name}" for t in rtl_mutants.proof_tasks(MUTANT)] == [names[1]]
    monkeypatch.setattr(rtl_mutants, "PROVE_TIMES", tmp_path / "missing.json")
    cell = rtl_mutants.proof_layer(MUTANT, tmp_path / "x.sv", 60.0, 60.0, FakeProver(failed))
    assert cell.outcome == "error" and "run make prove first" in cell.detail
    times_file(tmp_path, {"roofline_round_cap.verdict": 1.0}, monkeypatch)  # no timed task reads the mutated file
    assert rtl_mutants.proof_layer(MUTANT, tmp_path / "x.sv", 60.0, 60.0, FakeProver(failed)).outcome == "n/a"


# ---------------------------------------------------------------- over several tasks


def judge_all(tasks: list[sby.Task], prover: FakeProver, skipped: int = 0) -> Cell:
    return judge_proofs(tasks, Path("/work/m/roofline_intensity.sv"), Path("/work/prove"), 60.0, prover, skipped)


def by_task(answers: dict[str, object]) -> object:
    return lambda task: answers[task.name](task)  # type: ignore[operator]


def test_the_first_counterexample_kills_and_no_later_task_runs() -> None:
    tasks = [TASKS[n] for n in intensity_tasks()[:3]]
    prover = FakeProver(by_task({tasks[0].name: passing, tasks[1].name: failed, tasks[2].name: failed}))
    cell = judge_all(tasks, prover)
    assert cell.outcome == "killed" and cell.detail.startswith(f"roofline_intensity.{tasks[1].name}: failed: ")
    assert len(prover.calls) == 2 and cell.evidence[-1].startswith("replay: make sim TOP=roofline_intensity")


def test_a_bounded_pass_and_a_failure_without_a_trace_are_reported_together_as_an_error() -> None:
    tasks = [TASKS[n] for n in intensity_tasks()[:3]]
    bounded = lambda task: sby.Outcome(task, True, 1.0, "no failure in 20 cycles", bounded=True)  # noqa: E731
    timeout = lambda task: sby.Outcome(task, False, 60.0, "TIMEOUT")  # noqa: E731
    cell = judge_all(tasks, FakeProver(by_task({tasks[0].name: bounded, tasks[1].name: timeout, tasks[2].name: passing})))
    assert cell.outcome == "error"
    assert cell.detail == (f"roofline_intensity.{tasks[1].name}: TIMEOUT (never a kill: no counterexample); "
                           f"roofline_intensity.{tasks[0].name}: no failure in 20 cycles")
    unknown = judge_all(tasks, FakeProver(by_task({tasks[0].name: passing, tasks[1].name: bounded,
                                                   tasks[2].name: passing})), skipped=4)
    assert (unknown.outcome, unknown.detail) == ("unknown", f"roofline_intensity.{tasks[1].name}: no failure in 20 cycles")


def test_an_unclosed_induction_whose_rerun_fails_otherwise_is_unknown_with_the_reruns_summary() -> None:
    cell = judge_all([SEQUENTIAL], FakeProver(not_closed, lambda task: sby.Outcome(task, False, 1.0, "TIMEOUT")))
    assert cell.outcome == "unknown"
    assert cell.detail == ("roofline_intensity.data_uq2_2_c5: induction did not close (no trace from reset); "
                           "BMC from reset without the invariants: TIMEOUT")


def test_no_task_is_no_verdict_but_a_survival_of_nothing_says_it_tried_none() -> None:
    assert (judge_all([], FakeProver(passing)).outcome, judge_all([], FakeProver(passing)).detail) == ("survived",
                                                                                                     "0 tasks passed")


# ---------------------------------------------------------------- the kill matrix's table


def cell(outcome: str, detail: str = "x", seeds: tuple[str, ...] = ("1",)) -> dict[str, object]:
    return {"outcome": outcome, "detail": detail, "seconds": 1.0, "evidence": [], "by_seed": dict.fromkeys(seeds, outcome)}


def test_the_matrix_is_written_with_its_command_layers_and_seeds(tmp_path: Path) -> None:
    path = tmp_path / "build" / "mutants" / "m.json"  # folders that are not there yet
    document = kill_matrix.write_matrix([], "make mutants SEEDS=3,4", False, path, seeds=(3, 4))
    assert json.loads(path.read_text()) == document == {"command": "make mutants SEEDS=3,4", "complete": False,
                                                        "layers": ["bench", "sweep", "proof"], "seeds": [3, 4],
                                                        "mutants": []}
    assert kill_matrix.kill_matrix_table(path) == kill_matrix.table(document)
    assert kill_matrix.write_matrix([], "make mutants", True, path)["seeds"] == [1]  # one seed unless told


def test_the_table_names_the_killing_proof_its_property_or_why_none_can_and_counts_each_layer(tmp_path: Path) -> None:
    entries = [
        {"id": "a", "class": "c1", "layers": {"bench": cell("killed"), "sweep": cell("survived"),
                                              "proof": cell("killed", "u.t: BMC from reset found it: failed: p.sv:3.1")},
         "caught": True},
        {"id": "b", "class": "c2", "layers": {"bench": cell("killed"), "sweep": cell("killed"),
                                              "proof": cell("killed", "u.t2: no property named")}, "caught": True},
        {"id": "c", "class": "c3", "layers": {"bench": cell("survived"), "sweep": cell("n/a"), "proof": cell("survived")},
         "proof_survives": "outside every proof", "caught": False},
    ]
    document = kill_matrix.write_matrix(entries, "make mutants", True, tmp_path / "m.json", seeds=(5,))
    lines = kill_matrix.table(document).splitlines()
    assert lines[:2] == ["| mutant | class | bench | sweep | proof | proof that kills it (counterexample) |",
                         "|---|---|---|---|---|---|"]
    assert lines[2] == "| `a` | c1 | killed | survived | killed | u.t (p.sv:3.1) |"
    assert lines[3] == "| `b` | c2 | killed | killed | killed | u.t2 |"
    assert lines[4] == "| `c` | c3 | survived | n/a | survived | none can: outside every proof |"
    assert lines[6] == ("From `make mutants`, bench and sweep at seed 5 (killed: at every one): 3 mutants, 2 caught by a "
                        "bench or sweep at every seed and, where a proof reads the file, by a proof with a counterexample; "
                        "killed by bench 2, sweep 1, proof 2.")


def test_an_old_matrix_without_seeds_counts_kills_anywhere_and_says_a_kill_needed_no_counterexample() -> None:
    document = {"command": "make mutants", "layers": ["bench", "proof"], "mutants": [
        {"id": "a", "class": "c", "layers": {"bench": cell("killed"), "proof": cell("killed", "u.t")}},
        {"id": "b", "class": "c", "layers": {"bench": cell("survived"), "proof": cell("killed", "u.t")}},
        {"id": "c", "class": "c", "layers": {"bench": cell("killed"), "proof": cell("killed", "u.t")}},
        {"id": "d", "class": "c", "layers": {"bench": cell("survived"), "proof": cell("unknown")}}]}
    lines = kill_matrix.table(document).splitlines()
    assert lines[1] == "|---|---|---|---|---|"
    assert lines[-1] == ("From `make mutants`, one seed, a proof's kill not yet required to hold a counterexample: "
                         "4 mutants, 3 killed by some layer; killed by bench 2, proof 3.")


def test_a_task_a_second_over_the_budget_is_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = intensity_tasks()[:2]
    times_file(tmp_path, {names[0]: 10.0, names[1]: 21.0}, monkeypatch)  # 31 s: one over the 30 s budget
    prover = FakeProver(passing)
    cell = rtl_mutants.proof_layer(dataclasses.replace(MUTANT, proof=()), tmp_path / "x.sv", 60.0, 30.0, prover)
    assert len(prover.calls) == 1 and cell.detail == "1 tasks passed; 1 slower ones beyond the --proof-budget not run"


def test_the_catalogues_tasks_cost_nothing_of_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = intensity_tasks()[:3]
    times_file(tmp_path, {names[0]: 500.0, names[1]: 10.0, names[2]: 21.0}, monkeypatch)
    prover = FakeProver(passing)
    cell = rtl_mutants.proof_layer(dataclasses.replace(MUTANT, proof=(names[0],)), tmp_path / "x.sv", 60.0, 30.0, prover)
    assert len(prover.calls) == 2 and cell.detail.endswith("; 1 slower ones beyond the --proof-budget not run")


def test_without_a_solver_the_proof_layer_is_an_error_that_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    times_file(tmp_path, {intensity_tasks()[0]: 1.0}, monkeypatch)

    def no_toolchain() -> None:
        raise ToolError("no SymbiYosys: pip install -e '.[dev]'")

    monkeypatch.setattr(rtl_mutants.sby, "toolchain", no_toolchain)
    cell = rtl_mutants.proof_layer(MUTANT, tmp_path / "x.sv", 60.0, 60.0)
    assert (cell.outcome, cell.detail) == ("error", "no SymbiYosys: pip install -e '.[dev]'")


def test_judging_without_a_count_of_tasks_left_out_says_nothing_of_them() -> None:
    assert judge_proofs([SEQUENTIAL], Path("/m.sv"), Path("/w"), 60.0, FakeProver(passing)).detail == "1 tasks passed"


def test_a_task_left_unknown_or_without_a_trace_does_not_stop_a_later_task_from_killing() -> None:
    tasks = [TASKS[n] for n in intensity_tasks()[:2]]
    clean = lambda task: sby.Outcome(task, True, 1.0, "no failure in 20 cycles from reset")  # noqa: E731
    after_unknown = judge_all(tasks, FakeProver(by_task({tasks[0].name: not_closed, tasks[1].name: failed}), clean))
    assert after_unknown.outcome == "killed" and after_unknown.detail.startswith(f"roofline_intensity.{tasks[1].name}: ")
    timeout = lambda task: sby.Outcome(task, False, 60.0, "TIMEOUT")  # noqa: E731
    after_timeout = judge_all(tasks, FakeProver(by_task({tasks[0].name: timeout, tasks[1].name: failed})))
    assert after_timeout.outcome == "killed" and after_timeout.detail.startswith(f"roofline_intensity.{tasks[1].name}: ")


@pytest.mark.parametrize("answer", [failed, passing])
def test_a_verdict_takes_the_time_from_its_start_to_its_end(answer: object, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([100.0, 102.5])
    monkeypatch.setattr(rtl_mutants, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    assert judge_all([SEQUENTIAL], FakeProver(answer)).seconds == 2.5
