"""The handouts' "What is graded" is written from the scoring code and the lab's groups, so it cannot
drift from what the grader does: each handout holds the current block, and the block's example is
the rule's own arithmetic."""

from __future__ import annotations

import pytest

from roofline_course.design_lab import scoring
from roofline_course.labs.definitions import available, load_lab

DESIGN_LABS = [n for n in available() if load_lab(n).kind == "design"]


@pytest.mark.parametrize("number", DESIGN_LABS)
def test_each_handout_holds_the_scoring_text_the_code_writes_today(number: int) -> None:
    lab = load_lab(number)
    block = scoring.current_block((lab.folder / "handout.md").read_text())
    assert block == scoring.handout_block(lab), (
        f"labs/lab{number}/handout.md is stale: run python -m roofline_course.design_lab.scoring")


@pytest.mark.parametrize("number", DESIGN_LABS)
def test_the_block_lists_every_group_with_its_weight_and_every_event_of_the_rule(number: int) -> None:
    lab = load_lab(number)
    text = scoring.handout_text(lab)
    for group in lab.groups:
        assert f"| {group.name} | {'hidden' if group.hidden else 'yes'} | {group.weight:g} | {group.covers}" in text
    for kind in lab.events:
        assert " ".join(scoring.EVENT_WORDS[kind].split()) in " ".join(text.split())
    assert ("no events" in text) == (not lab.events)


def test_the_example_is_the_rules_own_arithmetic() -> None:
    """labs/README.md's rule: (p - b) / (1 - b), never below 0; 30 marks, b = 1/2: 9 of 10 earns
    30 x 0.8 = 24, 5 of 10 earns 0 (the issue's numbers: the old handout said 9 of 10 gave 27)."""
    text = scoring.handout_text(load_lab(1))
    assert "9 of 10 passed earns 24.0, 5 of 10 earns 0.0" in text
    assert "share of its tests that pass" not in text
