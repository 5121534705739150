"""The events rule graded for real: the project's RTL with one event of the contract broken, through
`make grade` in the sandbox, hidden groups included. Each test that checks the broken event earns
nothing, every other test keeps its share (labs/labN/lab.toml `events`; the handout's "What is
graded"), and the report names the event and hints its kind. The everyday tier holds the same rule
on cycle models (test_events.py)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pipe_wrapper import pipe_wrapper
from real_grading import SLOT, needs_sandbox

from roofline_core.contract import MODULES
from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_course.labs.definitions import load_lab

pytestmark = [pytest.mark.full, pytest.mark.sim]
HINT = re.compile(r"^hint \(([\w ]+)\):")

PIPE_FINAL_STAGE = """  always_ff @(posedge clk_i) begin
    if (advance) begin
      cap_o       <= best_cap;
      level_cap_o <= s3_level_cap;
      mem_bound_o <= |s3_mem_bound;
      binding_o   <= best_index;
    end
  end
"""
PIPE_FINAL_STAGE_COMBINATIONAL = """  assign cap_o       = best_cap;  // the last stage's register left out: one cycle early
  assign level_cap_o = s3_level_cap;
  assign mem_bound_o = |s3_mem_bound;
  assign binding_o   = best_index;
"""
# One multiplication stage more than asked for: every result one cycle late, every value right.
LATE_WRAPPER = pipe_wrapper("""  roofline_hierarchy_pipe_core #(.INT_BITS(INT_BITS), .FRAC_BITS(FRAC_BITS), .LEVELS(LEVELS),
    .MUL_STAGES(MUL_STAGES + 1)) u_core (.*);
""")

# (lab, name, {file: [(the reference's text, the bug's text)]}, files added, the tests that check the event, the hint)
BUGS = [
    (5, "a late pipe", {"roofline_hierarchy_pipe.sv": [("module roofline_hierarchy_pipe #(",
                                                         "module roofline_hierarchy_pipe_core #(")]},
     {"roofline_hierarchy_pipe_wrapper.sv": LATE_WRAPPER}, {"one_result_per_clock"}, "latency"),
    (5, "an early pipe", {"roofline_hierarchy_pipe.sv": [("localparam int STAGES    = 3 + MUL_STAGES;",
                                                           "localparam int STAGES    = 2 + MUL_STAGES;"),
                                                          (PIPE_FINAL_STAGE, PIPE_FINAL_STAGE_COMBINATIONAL)]},
     {}, {"one_result_per_clock"}, "latency"),
    (5, "a synchronous reset", {"roofline_hierarchy_pipe.sv": [("always_ff @(posedge clk_i or negedge rst_ni)",
                                                                 "always_ff @(posedge clk_i)")]},
     {}, {"reset_during_traffic"}, "reset"),
    (3, "a synchronous reset", {"roofline_intensity.sv": [("always_ff @(posedge clk_i or negedge rst_ni)",
                                                            "always_ff @(posedge clk_i)")]},
     {}, {"reset_mid_operation"}, "reset"),
    (3, "a double done_o", {"roofline_intensity.sv": [
        ("    done_d       = 1'b0;", "    done_d       = done_o && !done_prev_q;  // done_o high a second cycle"),
        ("  logic                  busy_d, done_d, sat_d, div0_d;", "  logic                  busy_d, done_d, sat_d, div0_d;\n"
                                                                    "  logic                  done_prev_q;"),
        ("      done_o       <= 1'b0;\n", "      done_o       <= 1'b0;\n      done_prev_q  <= 1'b0;\n"),
        ("      done_o       <= done_d;\n", "      done_o       <= done_d;\n      done_prev_q  <= done_o;\n")]},
     {}, {"document_cases", "edge_cases", "back_to_back", "random_sweep", "reset_mid_operation"}, "pulse"),
]


def plant(number: int, edits: dict[str, list[tuple[str, str]]], added: dict[str, str], folder: Path) -> Path:
    folder.mkdir()
    for stem in MODULES[load_lab(number).top].sources:
        text = (RTL_DIR / f"{stem}.sv").read_text()
        for original, broken in edits.get(f"{stem}.sv", []):
            assert text.count(original) == 1, f"the reference's {stem}.sv changed: update this bug"
            text = text.replace(original, broken)
        (folder / f"{stem}.sv").write_text(text)
    for name, text in added.items():
        (folder / name).write_text(text)
    return folder


@needs_sandbox
@pytest.mark.parametrize(("number", "bug", "edits", "added", "lost", "hint"),
                         [pytest.param(*b, id=f"{b[0]}-{b[1]}") for b in BUGS])
def test_a_design_that_breaks_an_event_loses_each_test_that_checks_it_and_is_told_which(
        number: int, bug: str, edits: dict, added: dict, lost: set[str], hint: str, tmp_path: Path) -> None:
    submission = plant(number, edits, added, tmp_path / "submission")
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(number), "--rtl", str(submission),
                          "--out", str(out), "--slot", str(SLOT)], cwd=REPO_ROOT, capture_output=True, text=True, timeout=1500)
    result = json.loads((out / "result.json").read_text())
    lab = load_lab(number)
    scores = {g["name"]: g["score"] for g in result["groups"] if g["kind"] == "sim"}
    # The rule as the handout states it: a test that checks the broken event earns nothing, every
    # other test its share (the values are the reference's), shown to a tenth.
    want = {g.name: round(g.weight * sum(t not in lost for t in g.tests) / len(g.tests), 1) for g in lab.groups
            if g.kind == "sim"}
    assert scores == want, run.stdout
    assert run.returncode == 1 and "fewer than full marks (exit 1)" in run.stdout.splitlines()[-1]
    losing = [g for g in result["groups"] if g["kind"] == "sim" and g["score"] < g["weight"]]
    assert losing and all(any("so this test earns nothing" in line for line in g["detail"]) for g in losing), run.stdout
    given = {m[1] for g in losing for line in g["detail"] if (m := HINT.match(line))}
    assert given == {hint}, given
