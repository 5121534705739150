"""Each kind of bug, in each lab where it can happen, gets its hint and no other.

The combinational labs (1, 2 and 4) run here without a simulator: each group's tests are
recorded from a model of the unit with one bug (tests/support/model_design.py) and judged by the real
judge, as a sandboxed simulation's tapes are. The sequential labs (3 and 5) grade the project's
RTL with one bug planted, in the sandbox, through `make grade`'s command (the full tier).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from model_design import ModelDesign, record

from roofline_bench.tape import Reply
from roofline_core.contract import MODULES
from roofline_core.paths import REPO_ROOT, RTL_DIR
from roofline_course import sandbox
from roofline_course.design_lab import judge
from roofline_course.labs.definitions import load_lab

HINT = re.compile(r"^hint \(([\w ]+)\):")


def hints_given(number: int, bug: str, folder: Path) -> tuple[set[str], float]:
    """The hint kinds every group of lab `number` gives a design with `bug`, and its score."""
    lab = load_lab(number)
    kinds: set[str] = set()
    total = 0.0
    for group in lab.groups:
        if group.kind != "sim":
            continue
        cfg = judge.bench_config(lab, group, "icarus", "mine")
        reply = Reply({test: record(cfg, test, ModelDesign(cfg.params.fmt, bug)) for test in group.tests})
        facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
        score = judge.score(lab, group, judge.verdicts(lab, group, reply, "icarus", "mine"), reply, facts, "make sim")
        kinds |= {match[1] for line in score.detail if (match := HINT.match(line))}
        total += score.score
    return kinds, total


@pytest.mark.parametrize("number", [1, 2, 4])
def test_the_model_without_a_bug_gets_full_marks_and_no_hint(number: int, tmp_path: Path) -> None:
    """The premise: the model is the contract, so each bug below is the only thing wrong."""
    kinds, total = hints_given(number, "", tmp_path)
    lab = load_lab(number)
    assert total == pytest.approx(sum(g.weight for g in lab.groups if g.kind == "sim")) and not kinds


@pytest.mark.parametrize(("number", "bug", "hint"), [
    (1, "ridge", "ridge tie"),
    (1, "truncate", "rounding"),
    (1, "narrow product", "product width"),
    (1, "x on zero", "unknown value"),
    (2, "ridge", "ridge tie"),
    (2, "truncate", "rounding"),
    (2, "narrow product", "product width"),
    (4, "ridge", "ridge tie"),
    (4, "truncate", "rounding"),
    (4, "narrow product", "product width"),
    (4, "tie to the last", "binding level"),
    (4, "x on zero", "unknown value"),
])
def test_a_bug_of_each_kind_gets_its_hint_and_no_other(number: int, bug: str, hint: str, tmp_path: Path) -> None:
    kinds, total = hints_given(number, bug, tmp_path)
    assert kinds == {hint}, kinds
    assert total < sum(g.weight for g in load_lab(number).groups if g.kind == "sim")


def test_a_design_that_computes_nothing_is_not_told_a_wrong_kind(tmp_path: Path) -> None:
    kinds, total = hints_given(1, "zero", tmp_path)
    assert not kinds & {"rounding", "ridge tie", "product width"}, kinds
    assert total == pytest.approx(sum(g.weight for g in load_lab(1).groups if g.tests == ("port_widths",)))


# ---------------------------------------------------------------- the sequential labs, on real RTL

SEQUENTIAL_BUGS = [
    # (lab, bug, file, the reference's text, the bug's text, the hint it must get)
    (3, "truncates", "roofline_intensity.sv", "quotient_plus_half[QUOTIENT_W-1:1];", "step_quotient[QUOTIENT_W-1:1];",
     "rounding"),
    (3, "div0 not saturated", "roofline_intensity.sv", "          sat_d  = 1'b1;", "          sat_d  = 1'b0;", "saturation"),
    (3, "counter never counts", "roofline_intensity.sv", "steps_left_d = steps_left_q - STEP_W'(1);",
     "steps_left_d = steps_left_q;", "latency"),
    (3, "done_o held", "roofline_intensity.sv", "    done_d       = 1'b0;", "    done_d       = done_o;", "pulse"),
    (3, "synchronous reset", "roofline_intensity.sv", "always_ff @(posedge clk_i or negedge rst_ni)",
     "always_ff @(posedge clk_i)", "reset"),
    (3, "busy_o never reset", "roofline_intensity.sv", "      busy_o       <= 1'b0;\n", "", "unknown value"),
    (5, "in_ready_o waits for the sink", "roofline_hierarchy_pipe.sv",
     "assign advance     = !valid_q[STAGES-1] || out_ready_i;", "assign advance     = out_ready_i;", "handshake"),
    (5, "synchronous reset", "roofline_hierarchy_pipe.sv", "always_ff @(posedge clk_i or negedge rst_ni)",
     "always_ff @(posedge clk_i)", "reset"),
    (5, "truncates", "roofline_round_cap.sv", "product_i[ROUND_W-1:0] + ROUND_HALF;", "product_i[ROUND_W-1:0];", "rounding"),
    (5, "ridge counted as memory-bound", "roofline_round_cap.sv", "< peak_i);", "<= peak_i);", "ridge tie"),
    (5, "a tie goes to the last level", "roofline_binding.sv", "< best_product)) begin", "<= best_product)) begin",
     "binding level"),
    (5, "a W-bit product", "roofline_hierarchy_pipe.sv", "PRODUCT_W'(mul_q[node(MUL_STAGES - 1, l, 0) +: NODE_W]);",
     "PRODUCT_W'(mul_q[node(MUL_STAGES - 1, l, 0) +: W]);", "product width"),
    (5, "out_valid_o never reset", "roofline_hierarchy_pipe.sv", "      valid_q <= '0;\n    end else if (advance) begin",
     "    end else if (advance) begin", "unknown value"),
]


@pytest.mark.full
@pytest.mark.sim
@pytest.mark.skipif(sandbox.available() is not None, reason=f"grading needs a sandbox: {sandbox.available()}")
@pytest.mark.parametrize(("number", "bug", "file", "original", "broken", "hint"),
                         [pytest.param(*bug, id=f"{bug[0]}-{bug[1]}") for bug in SEQUENTIAL_BUGS])
def test_a_real_rtl_bug_in_a_sequential_lab_gets_its_hint_and_no_other(number: int, bug: str, file: str, original: str,
                                                                        broken: str, hint: str, tmp_path: Path) -> None:
    """The bug's kind is named, and no group names another (lab 3's value bugs were once told to
    look for a stuck state, because every report prints the latency); a group the design got no
    case of may say that instead."""
    submission = tmp_path / "submission"
    submission.mkdir()
    for stem in MODULES[load_lab(number).top].sources:
        text = (RTL_DIR / f"{stem}.sv").read_text()
        if f"{stem}.sv" == file:
            assert text.count(original) == 1, f"the reference's {file} changed: update this bug"
            text = text.replace(original, broken)
        (submission / f"{stem}.sv").write_text(text)
    out = tmp_path / "out"
    subprocess.run([sys.executable, "-m", "roofline_course.grade", "--lab", str(number), "--rtl", str(submission),
                    "--out", str(out), "--slot", str(10 + os.getpid() % 80)], cwd=REPO_ROOT, capture_output=True,
                   text=True, timeout=900)
    result = json.loads((out / "result.json").read_text())
    given = {group["name"]: {m[1] for line in group["detail"] if (m := HINT.match(line))} for group in result["groups"]}
    failing = [group["name"] for group in result["groups"] if group["kind"] == "sim" and group["score"] < group["weight"]]
    assert failing, f"{bug}: no group failed"
    assert set().union(*given.values()) == {hint}, given
