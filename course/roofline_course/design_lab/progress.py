"""What a design lab's grading prints while it runs, so a student reads the answer as it comes.

Each batch is announced as it starts and each group's marks as it ends. Once every simulation group
a student can see is scored while a slow group (synthesis) is still running, the answer so far is
printed: the simulations' marks are final, and the slow group's follow. A hidden group's marks are
never printed here: the report decides what is shown of them, and when.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from roofline_course.labs.definitions import Group, Lab
from roofline_course.results import GroupScore, score_text, total

SO_FAR = "so far:"  # how the answer before the slow groups begins (benchmark/grading.py times it)


class Progress:
    def __init__(self, lab: Lab, say: Callable[[str], None]) -> None:
        self.lab, self.say = lab, say
        self.scored: dict[str, GroupScore] = {}
        self.answered = False
        self.lock = threading.Lock()

    def started(self, batch: list[Group]) -> None:
        self.say(f"  running {', '.join(g.name for g in batch)} ...")

    def ended(self, scores: list[GroupScore]) -> None:
        with self.lock:
            for score in scores:
                self.scored[score.group.name] = score
                shown = "" if score.group.hidden else f": {score_text(score.marks, score.group.weight)} {score.shown_status}"
                self.say(f"  done {score.group.name}{shown}")
            self._answer_so_far()

    def _answer_so_far(self) -> None:
        visible = [g for g in self.lab.groups if not g.hidden]
        simulations = [g for g in visible if g.kind == "sim"]
        waiting = [g for g in visible if g.name not in self.scored]
        if self.answered or not simulations or not waiting or any(g in waiting for g in simulations):
            return
        self.answered = True
        marks = total([self.scored[g.name].marks for g in simulations])
        self.say(f"{SO_FAR} {score_text(marks, sum(g.weight for g in simulations))} in the simulation groups; "
                 f"still running: {', '.join(g.name for g in waiting)} ({sum(g.weight for g in waiting):g} marks)")
