"""What grading a submission produces: a score per group, and the grade that holds them.

The orchestrator (grade) makes these; every report (reports) is a view of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from roofline_core.config import DEFAULT_SIM
from roofline_course.intake.precheck import STAGES, Precheck
from roofline_course.labs.definitions import Group, Lab


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


@dataclass
class Grade:
    lab: Lab
    submission: str
    check: Precheck
    scores: list[GroupScore]
    sim: str = DEFAULT_SIM

    @property
    def score(self) -> float:
        return sum(s.score for s in self.scores)

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
