"""The handouts' "What is graded" is written from the scoring code and the lab's groups, so it cannot
drift from what the grader does: each handout holds the current block, and the block's example is
the rule's own arithmetic."""

from __future__ import annotations

from dataclasses import replace

import pytest

from roofline_core.scoreboard import Verdict
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


@pytest.mark.parametrize("scoring_method", ["proportional", "all-or-nothing"])
def test_a_group_whose_tests_gave_no_verdict_earns_nothing(scoring_method: str) -> None:
    """No verdict is nothing checked: it must never count as a full (or any) score."""
    lab = load_lab(DESIGN_LABS[0])
    group = replace(lab.groups[0], scoring=scoring_method)
    assert scoring.earned(lab, group, []) == 0.0
    passing = Verdict("t", 10, (), 10, ())  # the control: one test that passed earns the whole group
    assert scoring.earned(lab, group, [passing]) == 1.0


@pytest.mark.parametrize(("times", "words"), [(1, "(1 time)"), (2, "(2 times)"), (3, "(3 times)")])
def test_the_rule_line_counts_each_broken_event_in_words(times: int, words: str) -> None:
    lab = next(load_lab(n) for n in DESIGN_LABS if load_lab(n).events)
    kind = lab.events[0]
    broke = Verdict("t", 10, ("cycle 3",), 10, (), events=("cycle 3",), kinds=((kind, times),))
    line = scoring.rule_line(lab, broke)
    assert f"it broke {scoring.EVENT_WORDS[kind]} {words}:" in line
    assert "earns nothing" in line
    assert scoring.rule_line(lab, Verdict("t", 10, (), 10, ())) == ""  # nothing broken: no rule line


def test_the_events_sentence_never_splits_a_hyphenated_word_across_lines() -> None:
    """With the reset and the pulse, in that order, the wrap falls inside "one-cycle": a handout
    line must not end on "one-" (the sentence is read in a terminal and in Markdown alike)."""
    lab = replace(load_lab(DESIGN_LABS[0]), events=("reset", "pulse"))
    lines = scoring.handout_text(lab).splitlines()
    assert not [line for line in lines if line.endswith("-")], lines
    assert "one-cycle" in scoring.handout_text(lab)


def test_all_or_nothing_pays_only_for_tests_that_passed_not_for_one_that_stopped_with_every_case_right() -> None:
    """The group's rule is every test passed, not every test's credit full: a test that stopped before its
    end (the simulation ran out, a port went missing) after every planned case was right earns 1.0 of
    credit alone (proportional pays it), yet it did not pass, so an all-or-nothing group earns nothing."""
    lab = load_lab(DESIGN_LABS[0])
    group = replace(lab.groups[0], scoring="all-or-nothing")
    passing = Verdict("a", 10, (), 10, ())
    stopped = Verdict("b", 10, (), 10, (), stopped="the simulation stopped", ran_out=True)
    assert scoring.credit(lab, stopped) == 1.0 and not stopped.passed  # the premise
    assert scoring.earned(lab, group, [passing, stopped]) == 0.0
    assert scoring.earned(lab, replace(group, scoring="proportional"), [passing, stopped]) == 1.0
    assert scoring.earned(lab, group, [passing, passing]) == 1.0
    nothing = Verdict("c", 0, (), 0, ())  # no failure, never stopped, and nothing checked: no pass either
    assert scoring.earned(lab, group, [passing, nothing]) == 0.0
