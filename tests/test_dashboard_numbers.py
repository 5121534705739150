"""The class dashboard's numbers from rows made as make grade-all makes them: the statuses, most
common first, and each group's full-marks rate (the share of scored entries with the group's whole
weight). Fast, so that `make mutation` runs it per mutant of the dashboard."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from roofline_course import class_table, dashboard, late, similarity
from roofline_course.labs import load_lab

LAB = load_lab(1)
FIRST, SECOND = LAB.groups[0], LAB.groups[1]  # lab1/lab.toml: "ports and widths" (10), "document cases" (30)


def row(name: str, status: str = "graded", groups: dict[str, float] | None = None) -> dict[str, Any]:
    graded = class_table.Graded(status, sum((groups or {}).values()), groups=groups or {})
    return class_table.make_row(LAB, name, graded, late.ON_TIME, "", 10.0)


def numbers(rows: list[dict[str, Any]], lab: object = LAB) -> dict[str, Any]:
    return dashboard.summary(lab, {r["id"]: r for r in rows}, similarity.Similarity())  # type: ignore[arg-type]


def test_statuses_are_counted_most_common_first_then_by_name() -> None:
    """Named so that the rows' own order (by name) is not the statuses' order."""
    rows = [row(f"g{i}") for i in range(3)] + [row("a", "timeout"), row("b", "grader error"), row("c", "compile error")]
    assert numbers(rows)["statuses"] == [("graded", 3), ("compile error", 1), ("grader error", 1), ("timeout", 1)]


def test_each_groups_full_marks_rate_counts_the_scored_entries() -> None:
    """Three scored entries (the grader error is not scored): the first group in full for one (33%),
    the second for two (67%); a score a hair (1e-9) below the weight is full marks, half a mark below is not."""
    rows = [row("a", groups={FIRST.name: FIRST.weight, SECOND.name: SECOND.weight}),
            row("b", groups={FIRST.name: FIRST.weight - 0.5, SECOND.name: SECOND.weight - 1e-9}),
            row("c", groups={}),
            row("x", "grader error", groups={FIRST.name: FIRST.weight, SECOND.name: SECOND.weight})]
    rates = {rate["name"]: (rate["full"], rate["rate"]) for rate in numbers(rows)["rates"]}
    assert rates[FIRST.name] == (1, "33%") and rates[SECOND.name] == (2, "67%")
    assert set(rates) == {g.name for g in LAB.groups} and all(rate == (0, "0%") for name, rate in rates.items()
                                                              if name not in (FIRST.name, SECOND.name))


def test_a_group_a_row_does_not_hold_is_not_full_marks_whatever_its_weight() -> None:
    light = replace(LAB, groups=(replace(FIRST, weight=1.0),))
    rows = [row("a", groups={})]
    assert [(r["full"], r["rate"]) for r in numbers(rows, light)["rates"]] == [(0, "0%")]


def test_a_group_worth_nothing_is_full_for_everyone() -> None:
    """A testbench lab's coverage group weighs 0 (shown only): every scored entry has all 0 of it."""
    shown_only = replace(LAB, groups=(replace(FIRST, weight=0.0), SECOND))
    rates = numbers([row("a", groups={}), row("b", groups={SECOND.name: SECOND.weight})], shown_only)["rates"]
    assert [(r["full"], r["rate"]) for r in rates] == [(2, "100%"), (1, "50%")]


def test_with_no_scored_entry_every_rate_is_a_dash() -> None:
    rates = numbers([row("x", "grader error")])["rates"]
    assert rates and all((rate["full"], rate["rate"]) == (0, "-") for rate in rates)
