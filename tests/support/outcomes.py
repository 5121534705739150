"""Made-up grading outcomes (a sandbox's Outcome, a group's score, a grade) for the fast tests of what
would go wrong silently."""

from __future__ import annotations

from dataclasses import replace

from roofline_core.contract import ParamSet
from roofline_course.intake.precheck import Precheck
from roofline_course.labs.definitions import Group, load_lab
from roofline_course.results import Grade, GroupScore

LAB5 = load_lab(5, with_hidden=False)

SYNTHESIS = next(g for g in LAB5.groups if g.kind == "synthesis")  # lab5/lab.toml: weight 15, 40 MHz for full marks

LAB1 = load_lab(1, with_hidden=False)


def group_score(weight: float, score: float, status: str, hidden: bool = False) -> GroupScore:
    group = Group(f"g{weight}-{status}-{hidden}", weight, hidden, "covers", ParamSet(8, 8))
    return GroupScore(group, score, status)


def a_grade(*scores: GroupScore, stage: str = "ok") -> Grade:
    lab = replace(LAB1, groups=tuple(s.group for s in scores))
    return Grade(lab, "submission", Precheck(stage), list(scores))
