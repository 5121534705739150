"""The harness accepts any correct implementation and rejects one with a single real bug.

An independent implementation (tests/dropin/independent) must pass; each mutant of
mutants/catalogue.toml is the project's RTL with one bug of a class the contract rules out,
and the bench of its module must fail, unless the catalogue says why today's bench cannot (the
proofs kill those: tests/flows/test_sby.py, and `make mutants`' kill matrix). Icarus only, on the
parameter set that can expose the bug: the full matrix is `make test RTL=...`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from places import INDEPENDENT_DIR

from roofline_core.config import BenchConfig
from roofline_core.contract import CONTRACT_TOPS, PARAM_SETS, TOPS
from roofline_core.runner import run_bench
from roofline_flows import kill_matrix, rtl_mutants
from roofline_flows.rtl_mutant_catalogue import Mutant, load_catalogue
from roofline_flows.rtl_mutants import run_mutant

INDEPENDENT = INDEPENDENT_DIR
OTHER_FORMAT_SET = PARAM_SETS[1]


MUTANTS = load_catalogue()


def sweep_size() -> int:
    return int(os.environ.get("ROOFLINE_MUTANT_SWEEP", "300"))


@pytest.mark.sim
@pytest.mark.parametrize("top", CONTRACT_TOPS)
def test_an_independent_correct_implementation_passes(top: str, seed: int) -> None:
    cfg = BenchConfig(top, "icarus", OTHER_FORMAT_SET, seed, sweep=sweep_size(), rtl=str(INDEPENDENT))
    result = run_bench(cfg)
    assert result.failed == 0 and result.passed > 0, "\n\n".join(result.failures)


@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("mutant", [m for m in MUTANTS if m.top in TOPS and not m.bench_survives], ids=lambda m: m.id)
def test_a_single_bug_is_caught(mutant: Mutant, seed: int) -> None:
    verdict = run_mutant(mutant, seed, sweep_size())
    assert verdict.killed, f"{mutant.id} ({mutant.bug}): {verdict.detail}"


def test_the_catalogue_covers_the_bug_classes_the_course_needs() -> None:
    classes = {m.bug_class for m in MUTANTS}
    needed = {"comparison direction", "ridge tie", "rounding constant", "truncation", "narrowed product",
              "hard-coded format", "level skipped", "tie rule", "sentinel", "divider rounding", "saturation",
              "division by zero", "stuck bit", "reset", "handshake",
              # issue 25's classes
              "readiness ignoring state", "stage loads while stalled", "tree shift", "done pulsing twice",
              "saturation one step early", "register not cleared at start",
              # issue 34's: the formal reviewer's classes, and the fresh set's
              "floored width", "zero test one bit short", "missing reset term", "comparison one bit short",
              "synchronous reset", "off-by-one width", "wrong tie-break", "a stall that loads", "misaligned stage"}
    assert needed <= classes, needed - classes
    assert len(MUTANTS) >= 60
    # The sum tree's floored slice width, at a set whose W is not a multiple of its slices.
    floored = next(m for m in MUTANTS if m.id == "tree_chunk_width_floored").param_set
    assert (floored.int_bits + floored.frac_bits) % (1 << (floored.mul_stages - 1))
    # A tree shift in the MUL_STAGES = 4 sum, run at a parameter set that has that stage.
    assert any(m.bug_class == "tree shift" and m.param_set.mul_stages == 4 for m in MUTANTS)
    # Every bug class has two mutants or more: a second bug of the class is the test of the first's layer.
    issue_classes = {"readiness ignoring state", "stage loads while stalled", "tree shift", "done pulsing twice",
                     "saturation one step early", "register not cleared at start"}
    assert all(sum(m.bug_class == c for m in MUTANTS) >= 2 for c in issue_classes)


def test_the_kill_matrix_runs_each_layer_where_it_applies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    by_id = {m.id: m for m in MUTANTS}
    assert rtl_mutants.sweep_top(by_id["ridge_memory_bound"]) == "roofline_attainable"  # a combinational top
    assert rtl_mutants.sweep_top(by_id["last_level_left_out"]) == "roofline_hierarchy"
    assert rtl_mutants.sweep_top(by_id["pipe_reg_loads_while_full"]) == "roofline_attainable"  # the bulk testbench's registers
    assert rtl_mutants.sweep_top(by_id["intensity_saturates_early"]) is None
    times = tmp_path / "times.json"
    times.write_text(json.dumps({"roofline_hierarchy_pipe.data_uq2_2_l2_mul1": 150.0,
                                 "roofline_hierarchy_pipe.control_uq24_16_l3_mul1": 7.0,
                                 "roofline_round_cap.verdict": 1.0}))
    monkeypatch.setattr(rtl_mutants, "PROVE_TIMES", times)
    # The catalogue's task first (the one that reaches the stalled stage), then the fastest.
    stalled = [f"{t.unit}.{t.name}" for t in rtl_mutants.proof_tasks(by_id["pipe_round_stage_loads_while_stalled"])]
    assert stalled == ["roofline_hierarchy_pipe.data_uq2_2_l2_mul1", "roofline_hierarchy_pipe.control_uq24_16_l3_mul1"]
    # Only tasks the project's RTL passed (in times.json), only tasks that read the file, fastest first.
    assert [f"{t.unit}.{t.name}" for t in rtl_mutants.proof_tasks(by_id["verdict_direction"])] == [
        "roofline_round_cap.verdict", "roofline_hierarchy_pipe.control_uq24_16_l3_mul1",
        "roofline_hierarchy_pipe.data_uq2_2_l2_mul1"]
    assert rtl_mutants.proof_tasks(by_id["div0_result_zero"]) == []


def test_the_kill_matrix_table_shows_every_layer(tmp_path: Path) -> None:
    killed = {"outcome": "killed", "detail": "roofline_round_cap.verdict: failed: props_round_cap.sv:30", "seconds": 1.0}
    document = {"command": "make mutants", "complete": True, "layers": ["bench", "sweep", "proof"], "mutants": [
        {"id": "ridge_memory_bound", "class": "ridge tie", "layers": {
            "bench": {"outcome": "killed", "detail": "x", "seconds": 1.0},
            "sweep": {"outcome": "survived", "detail": "y", "seconds": 1.0}, "proof": killed}},
        {"id": "pipe_reg_loads_while_full", "class": "stage loads while stalled", "layers": {
            "bench": {"outcome": "n/a", "detail": "", "seconds": 0.0},
            "sweep": {"outcome": "killed", "detail": "z", "seconds": 1.0}, "proof": killed}}]}
    path = tmp_path / "kill-matrix.json"
    path.write_text(json.dumps(document))
    table = kill_matrix.kill_matrix_table(path).splitlines()
    assert table[0] == "| mutant | class | bench | sweep | proof | proof that kills it (counterexample) |"
    assert table[2] == ("| `ridge_memory_bound` | ridge tie | killed | survived | killed | roofline_round_cap.verdict "
                        "(props_round_cap.sv:30) |")
    assert table[3].startswith("| `pipe_reg_loads_while_full` | stage loads while stalled | n/a | killed | killed |")
    assert "2 mutants, 2 killed by some layer; killed by bench 1, sweep 1, proof 2" in table[-1]
