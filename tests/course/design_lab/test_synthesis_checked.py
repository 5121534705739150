"""The circuit whose cost the synthesis group scores is simulated first, at the synthesis's own
parameters: a design that builds another circuit there (a generate on its parameters) than at the
parameters the simulation groups use earned lab 5's synthesis marks for a circuit nothing checked
(1 LUT4, 521 MHz, 100/100). It now scores nothing there, and says why; the reference is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest
from pipe_wrapper import pipe_wrapper
from real_grading import grade, needs_sandbox

from roofline_core.contract import MODULES
from roofline_core.paths import RTL_DIR
from roofline_course.labs.definitions import load_lab

LAB5 = load_lab(5, with_hidden=False)
SYNTHESIS = next(g for g in LAB5.groups if g.kind == "synthesis")

# The reference pipe, renamed, behind a wrapper that outputs its inputs at the synthesis's parameters only.
WRAPPER = pipe_wrapper("""  if (INT_BITS == {int_bits} && FRAC_BITS == {frac_bits} && LEVELS == {levels}) begin : gen_cheap
    logic valid_q;
    always_ff @(posedge clk_i or negedge rst_ni) if (!rst_ni) valid_q <= 1'b0; else valid_q <= in_valid_i;
    assign in_ready_o  = 1'b1;
    assign out_valid_o = valid_q;
    assign cap_o       = peak_i;
    assign level_cap_o = bw_i;
    assign mem_bound_o = 1'b0;
    assign binding_o   = '0;
  end else begin : gen_real
    real_pipe #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS), .MUL_STAGES(MUL_STAGES)) u_pipe (.*);
  end
""")


def test_lab5s_synthesis_names_the_tests_its_circuit_must_pass_and_they_differ_from_the_gate_groups_parameters() -> None:
    assert SYNTHESIS.tests and SYNTHESIS.requires
    required = [g for g in LAB5.groups if g.name in SYNTHESIS.requires]
    assert all(g.param_set != SYNTHESIS.param_set for g in required)  # why the requirement alone was not enough


@pytest.mark.full
@pytest.mark.sim
@needs_sandbox
def test_a_design_that_builds_another_circuit_at_the_synthesis_parameters_scores_no_synthesis(tmp_path: Path) -> None:
    submission = tmp_path / "submission"
    submission.mkdir()
    for stem in MODULES[LAB5.top].sources:
        text = (RTL_DIR / f"{stem}.sv").read_text()
        if stem == LAB5.top:
            assert text.count("module roofline_hierarchy_pipe #(") == 1, "the reference changed: update this test"
            text = text.replace("module roofline_hierarchy_pipe #(", "module real_pipe #(")
        (submission / f"{stem}.sv").write_text(text)
    p = SYNTHESIS.param_set
    cheap_here = {"{int_bits}": p.int_bits, "{frac_bits}": p.frac_bits, "{levels}": p.levels}
    text = WRAPPER
    for name, value in cheap_here.items():
        text = text.replace(name, str(value))
    (submission / "wrapper.sv").write_text(text)
    status, result, output = grade(submission, tmp_path / "out", "--visible-only", lab=5, timeout=LAB5.timeout_s)
    scores = {g["name"]: (g["score"], g["status"]) for g in result["groups"]}
    assert scores.pop(SYNTHESIS.name) == (0.0, "fail"), output
    assert all(score == (g.weight, "pass") for g in LAB5.groups if (score := scores.get(g.name))), output
    detail = next(g["detail"] for g in result["groups"] if g["name"] == SYNTHESIS.name)
    assert detail[0].startswith("not synthesized: the circuit whose cost is scored must first pass"), detail
    assert f"INT_BITS={p.int_bits} FRAC_BITS={p.frac_bits} LEVELS={p.levels}" in detail[0]
    assert status == 1 and "fewer than full marks (exit 1)" in output, output
