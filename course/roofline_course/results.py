"""What grading a submission produces: a score per group, and the grade that holds them.

The orchestrator (grade) makes these; every report (reports) is a view of them. Marks are shown,
stored and compared at one precision, MARK_DECIMALS, rounded here and nowhere else
(`shown_marks`): every report, the exit status and the class table read the same number.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from roofline_core.config import DEFAULT_SIM
from roofline_course.intake.precheck import STAGES, Precheck
from roofline_course.labs.definitions import Group, Lab

MARK_DECIMALS = 1  # a tenth of a mark
MARK_STEP = 10.0 ** -MARK_DECIMALS


def shown_marks(marks: float, weight: float) -> float:
    """Marks at the precision every report shows: to the nearest tenth, except that marks short of
    the weight stay short of it (99.98 of 100 is 99.9, never 100.0: full marks are only ever earned)."""
    shown = round(marks, MARK_DECIMALS)
    if marks < weight and shown >= weight:
        shown = round(weight - MARK_STEP, MARK_DECIMALS)
    return max(0.0, shown)


def mark_text(marks: float) -> str:
    """Marks as every report writes them: 99.9, 100.0, 0.0."""
    return f"{marks:.{MARK_DECIMALS}f}"


def score_text(marks: float, out_of: float) -> str:
    """A score out of its marks, as every report writes it: 77.7/100."""
    return f"{mark_text(marks)}/{out_of:g}"


def total(marks: list[float]) -> float:
    """A sum of shown marks, at their precision (tenths added as floats drift in the last bit)."""
    return round(math.fsum(marks), MARK_DECIMALS)


@dataclass(frozen=True)
class Picture:
    """A picture of where one test of a group went wrong (pictures): its files, relative to the report folder."""

    test: str
    caption: str
    svg: str
    png: str


@dataclass
class GroupScore:
    group: Group
    score: float
    status: str  # pass, partial, fail, timeout, crash, error, skipped, not run
    detail: list[str] = field(default_factory=list)
    seconds: float = 0.0
    failing: list[str] = field(default_factory=list)  # every failing case or vector, "test: name"
    rerun: str = ""
    log: str = ""
    pictures: list[Picture] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return self.score >= self.group.weight

    @property
    def marks(self) -> float:
        """The score as every report shows it (shown_marks)."""
        return shown_marks(self.score, self.group.weight)

    @property
    def shown_status(self) -> str:
        """The status, agreeing with the marks shown: a partial score that shows as 0.0 is a fail."""
        return "fail" if self.status == "partial" and self.marks == 0 else self.status


@dataclass
class Grade:
    lab: Lab
    submission: str
    check: Precheck
    scores: list[GroupScore]
    sim: str = DEFAULT_SIM

    @property
    def score(self) -> float:
        """The total of the marks shown (so the total, the verdict and the exit status agree with the table)."""
        return total([s.marks for s in self.scores])

    @property
    def gradable(self) -> bool:
        return self.check.ok

    @property
    def status(self) -> str:
        if not self.check.ok:
            return STAGES[self.check.stage]
        if any(s.status == "timeout" for s in self.scores):
            return "timeout"
        if any(s.status == "crash" for s in self.scores):
            return "crash"
        return "graded"
