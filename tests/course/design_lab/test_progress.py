"""What a grading prints as it runs: each group's marks as it ends, and the answer so far once the
simulations a student sees are scored while synthesis still runs (issue 36: an answer in seconds)."""

from __future__ import annotations

from dataclasses import replace

from roofline_course.design_lab.progress import SO_FAR, Progress
from roofline_course.labs.definitions import load_lab
from roofline_course.results import GroupScore

LAB5 = load_lab(5, with_hidden=False)


def scores(lab, status: str = "pass") -> dict[str, GroupScore]:  # type: ignore[no-untyped-def]
    return {g.name: GroupScore(g, g.weight if status == "pass" else 0.0, status, []) for g in lab.groups}


def printed(lab, order: list[str], status: str = "pass") -> list[str]:  # type: ignore[no-untyped-def]
    lines: list[str] = []
    progress, found = Progress(lab, lines.append), scores(lab, status)
    for name in order:
        progress.ended([found[name]])
    return lines


def test_the_answer_so_far_comes_once_the_simulations_end_and_synthesis_still_runs() -> None:
    simulations = [g.name for g in LAB5.groups if g.kind == "sim"]
    slow = [g for g in LAB5.groups if g.kind != "sim"]
    assert simulations and [g.kind for g in slow] == ["synthesis"]
    lines = printed(LAB5, [*simulations, slow[0].name])
    answers = [line for line in lines if line.startswith(SO_FAR)]
    weight = sum(g.weight for g in LAB5.groups if g.kind == "sim")
    assert answers == [f"{SO_FAR} {weight:.1f}/{weight:g} in the simulation groups; still running: synthesis "
                       f"({slow[0].weight:g} marks)"]
    assert lines.index(answers[0]) == len(simulations)  # after the last simulation, before synthesis ends
    assert lines[-1] == f"  done synthesis: {slow[0].weight:.1f}/{slow[0].weight:g} pass"


def test_no_answer_so_far_before_every_simulation_ends_nor_when_nothing_is_left() -> None:
    simulations = [g.name for g in LAB5.groups if g.kind == "sim"]
    early = printed(LAB5, ["synthesis", *simulations[:-1]])
    assert not [line for line in early if line.startswith(SO_FAR)]
    late = printed(LAB5, ["synthesis", *simulations])  # synthesis done first: the last line is the answer
    assert not [line for line in late if line.startswith(SO_FAR)]
    lab1 = load_lab(1, with_hidden=False)
    assert not [line for line in printed(lab1, [g.name for g in lab1.groups]) if line.startswith(SO_FAR)]


def test_a_failing_simulation_is_in_the_answer_and_a_hidden_group_s_marks_are_never_printed() -> None:
    simulations = [g.name for g in LAB5.groups if g.kind == "sim"]
    lines = printed(LAB5, simulations, status="fail")
    weight = sum(g.weight for g in LAB5.groups if g.kind == "sim")
    synthesis = LAB5.groups[-1].weight
    assert f"{SO_FAR} 0.0/{weight:g} in the simulation groups; still running: synthesis ({synthesis:g} marks)" in lines
    hidden = replace(LAB5, groups=tuple(replace(g, hidden=True) for g in LAB5.groups))
    lines = printed(hidden, [g.name for g in hidden.groups])
    assert lines == [f"  done {g.name}" for g in hidden.groups]
