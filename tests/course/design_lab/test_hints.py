"""Each kind of bug, in each lab where it can happen, gets its hint and no other, and the hint says
the contract's rule in the words of the lab's handout, naming only the lab's own ports.

Without a simulator (the everyday tier): each group's tests are recorded from a model of the unit
with one bug, the combinational labs' from tests/support/model_design.py and the clocked labs'
(3 and 5) from the cycle models of tests/support/sequential_design.py, and judged by the real
judge, as a sandboxed simulation's tapes are. The full tier grades the project's RTL with one bug
planted, in the sandbox, through `make grade`'s command.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from model_design import ModelDesign, record
from real_grading import needs_sandbox
from sequential_design import record as record_clocked

from roofline_bench.tape import Reply
from roofline_core.contract import MODULES
from roofline_core.paths import LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_course.design_lab import hints, judge
from roofline_course.labs.definitions import available, load_lab

HINT = re.compile(r"^hint \(([\w ]+)\): (.*)$")
CLOCKED = (3, 5)
SWEEP = 60  # vectors of each random sweep here: a bug's kind does not depend on how many (the full tier runs the lab's)
DESIGN_LABS = [n for n in available() if load_lab(n).kind == "design"]


def hints_given(number: int, bug: str, folder: Path) -> tuple[dict[str, str], float]:
    """The hints (kind: text) every group of lab `number` gives a design with `bug`, and its score."""
    lab = load_lab(number)
    given: dict[str, str] = {}
    total = 0.0
    for group in lab.groups:
        if group.kind != "sim":
            continue
        group = replace(group, sweep=min(group.sweep, SWEEP))
        cfg = judge.bench_config(lab, group, "icarus", "mine")
        reply = Reply({test: record_clocked(cfg, test, bug) if number in CLOCKED
                       else record(cfg, test, ModelDesign(cfg.params.fmt, bug)) for test in group.tests})
        facts = judge.RunFacts(1.0, timed_out=False, limit_s=60, crashed=False, log="log")
        score = judge.score(lab, group, judge.verdicts(lab, group, reply, "icarus", "mine"), reply, facts, "make sim")
        given |= {match[1]: match[2] for line in score.detail if (match := HINT.match(line))}
        total += score.score
    return given, total


def sim_marks(number: int) -> float:
    return sum(g.weight for g in load_lab(number).groups if g.kind == "sim")


@pytest.mark.parametrize("number", DESIGN_LABS)
def test_the_model_without_a_bug_gets_full_marks_and_no_hint(number: int, tmp_path: Path) -> None:
    """The premise: the model is the contract, so each bug below is the only thing wrong."""
    given, total = hints_given(number, "", tmp_path)
    assert total == pytest.approx(sim_marks(number)) and not given


# The handouts a lab's handout builds on ("as in lab 4", "labs 1 and 2"): where its rules are stated.
BUILDS_ON = {1: (1,), 2: (2, 1), 3: (3,), 4: (4, 1, 2), 5: (5, 4, 1, 2)}


def said(text: str) -> str:
    """Text as a rule reads, whatever its markup: no backticks or bold, hyphens as spaces, one space, lower case."""
    return " ".join(text.replace("`", "").replace("*", "").replace("-", " ").split()).lower()


# Each bug a lab teaches, the one kind of hint it must get, the rule that hint must state (in the
# words of the lab's handout: the phrase is in both), and words it must not say (another method's).
TAUGHT = [
    (1, "ridge", "ridge tie", "the compute roof binds", ()),
    (1, "truncate", "rounding", "add half an LSB", ()),
    (1, "narrow product", "product width", "full precision", ()),
    (1, "x on zero", "unknown value", "every output", ()),
    (2, "ridge", "ridge tie", "the compute roof binds", ()),
    (2, "truncate", "rounding", "add half an LSB", ()),
    (2, "narrow product", "product width", "full precision", ()),
    (2, "x on zero", "unknown value", "every output", ()),
    (3, "truncate", "rounding", "(q + 1) >> 1", ("half an LSB",)),  # the divider's method: the extra quotient bit
    (3, "div0 not saturated", "saturation", "all ones", ()),
    (3, "never done", "latency", "COUNT_BITS + FRAC_BITS + 4", ()),
    (3, "late", "latency", "COUNT_BITS + FRAC_BITS + 4", ()),
    (3, "double done", "pulse", "one-cycle pulse", ()),
    (3, "synchronous reset", "reset", "no done_o", ()),
    (3, "busy never reset", "reset", "busy_o and done_o are low", ()),  # X out of reset is not low: the reset's failure
    (3, "busy X while dividing", "unknown value", "every output", ()),
    (4, "ridge", "ridge tie", "the compute roof binds", ()),
    (4, "truncate", "rounding", "add half an LSB", ()),
    (4, "narrow product", "product width", "full precision", ()),
    (4, "tie to the last", "binding level", "on a tie the lowest index wins", ()),
    (4, "x on zero", "unknown value", "every output", ()),
    (5, "late", "latency", "3 + MUL_STAGES cycles after its input", ("done_o",)),
    (5, "early", "latency", "3 + MUL_STAGES cycles after its input", ("done_o",)),
    (5, "synchronous reset", "reset", "asynchronous", ("product",)),  # not the product width of what a reset left behind
    (5, "ready waits for the sink", "handshake", "the last stage is empty", ()),
    (5, "truncate", "rounding", "add half an LSB", ()),
    (5, "ridge", "ridge tie", "the compute roof binds", ()),
    (5, "narrow product", "product width", "full precision", ()),
    (5, "tie to the last", "binding level", "on a tie the lowest index wins", ()),
    (5, "valid never reset", "reset", "asynchronous", ()),  # X out of reset is not low: the reset's failure
    (5, "cap X when shown", "unknown value", "every output", ()),
]
NO_HANDOUT_RULE = {"unknown value"}  # the handouts state no rule for X/Z; the hint says what to drive


@pytest.mark.parametrize(("number", "bug", "kind", "rule", "never"), [pytest.param(*t, id=f"{t[0]}-{t[1]}") for t in TAUGHT])
def test_a_bug_a_lab_teaches_gets_exactly_its_hint_which_states_the_handouts_rule(
        number: int, bug: str, kind: str, rule: str, never: tuple[str, ...], tmp_path: Path) -> None:
    given, total = hints_given(number, bug, tmp_path)
    assert set(given) == {kind}, given
    assert total < sim_marks(number)
    text = said(given[kind])
    assert said(rule) in text, f"lab {number}'s {kind} hint does not state {rule!r}: {given[kind]}"
    assert not [word for word in never if said(word) in text], given[kind]
    if kind not in NO_HANDOUT_RULE:
        handouts = " ".join(said((LABS_DIR / f"lab{n}" / "handout.md").read_text()) for n in BUILDS_ON[number])
        assert said(rule) in handouts, f"the rule {rule!r} of lab {number}'s {kind} hint is in none of its handouts"


def test_every_lab_teaches_every_kind_it_lists() -> None:
    """Each kind of hint a lab.toml lists has a planted bug above that gets it."""
    for number in DESIGN_LABS:
        taught = {kind for lab, _, kind, _, _ in TAUGHT if lab == number}
        assert set(load_lab(number).hints) == taught, number


PORT = re.compile(r"\b[a-z][a-z0-9_]*_[io]\b")


@pytest.mark.parametrize("number", DESIGN_LABS)
def test_every_hint_a_lab_can_give_names_only_its_own_ports(number: int) -> None:
    """Lab 5 has no done_o, lab 3 no out_valid_o: a hint that names either misleads."""
    lab = load_lab(number)
    ports = {port.name for port in MODULES[lab.top].ports}
    assert not hints.unknown_kinds(lab.hints, lab.top)
    for kind in lab.hints:
        assert set(PORT.findall(hints.text(kind, lab.top))) <= ports, (kind, hints.text(kind, lab.top))
    for group in lab.groups:
        assert set(PORT.findall(group.hint)) <= ports, (group.name, group.hint)


def test_a_design_that_computes_nothing_is_not_told_a_wrong_kind(tmp_path: Path) -> None:
    given, total = hints_given(1, "zero", tmp_path)
    assert not set(given) & {"rounding", "ridge tie", "product width"}, given
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
    (3, "busy_o never reset", "roofline_intensity.sv", "      busy_o       <= 1'b0;\n", "", "reset"),
    (5, "in_ready_o waits for the sink", "roofline_hierarchy_pipe.sv",
     "assign advance     = !valid_q[STAGES-1] || out_ready_i;", "assign advance     = out_ready_i;", "handshake"),
    (5, "a stage loads while stalled", "roofline_hierarchy_pipe.sv", "    if (advance) begin\n      s3_peak      <= s2_peak;",
     "    if (1'b1) begin\n      s3_peak      <= s2_peak;", "handshake"),
    (5, "synchronous reset", "roofline_hierarchy_pipe.sv", "always_ff @(posedge clk_i or negedge rst_ni)",
     "always_ff @(posedge clk_i)", "reset"),
    (5, "truncates", "roofline_round_cap.sv", "product_i[ROUND_W-1:0] + ROUND_HALF;", "product_i[ROUND_W-1:0];", "rounding"),
    (5, "ridge counted as memory-bound", "roofline_round_cap.sv", "< peak_i);", "<= peak_i);", "ridge tie"),
    (5, "a tie goes to the last level", "roofline_binding.sv", "< best_product)) begin", "<= best_product)) begin",
     "binding level"),
    (5, "a W-bit product", "roofline_hierarchy_pipe.sv", "PRODUCT_W'(mul_q[node(MUL_STAGES - 1, l, 0) +: NODE_W]);",
     "PRODUCT_W'(mul_q[node(MUL_STAGES - 1, l, 0) +: W]);", "product width"),
    (5, "out_valid_o never reset", "roofline_hierarchy_pipe.sv", "      valid_q <= '0;\n    end else if (advance) begin",
     "    end else if (advance) begin", "reset"),
]


@pytest.mark.full
@pytest.mark.sim
@needs_sandbox
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
