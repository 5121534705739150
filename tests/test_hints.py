"""Each kind of bug, in each lab where it can happen, gets its hint and no other.

The combinational labs (1, 2 and 4) run here without a simulator: each group's tests are
recorded from a model of the unit with one bug (tests/model_design.py) and judged by the real
judge, as a sandboxed simulation's tapes are. The sequential labs (3 and 5) grade real RTL
with one bug, in the sandbox.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from model_design import ModelDesign, record

from roofline_bench.tape import parse
from roofline_core.contract import MODULES
from roofline_course import judge
from roofline_course.labs import load_lab

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
        lines = [line for test in group.tests
                 for line in record(folder, cfg, test, ModelDesign(cfg.params.fmt, bug))]
        reply = parse(lines, group.tests, [port.name for port in MODULES[lab.top].ports])
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
