"""The class dashboard's numbers from rows made as make grade-all makes them: the statuses, most
common first, and each group's full-marks rate (the share of scored entries with the group's whole
weight). Fast, so that `make mutation` runs it per mutant of the dashboard."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from roofline_course.cohort import dashboard, similarity, table
from roofline_course.cohort import lateness as late
from roofline_course.labs.definitions import load_lab

LAB = load_lab(1)
FIRST, SECOND = LAB.groups[0], LAB.groups[1]  # lab1/lab.toml: "ports and widths" (10), "document cases" (30)


def row(name: str, status: str = "graded", groups: dict[str, float] | None = None) -> dict[str, Any]:
    graded = table.Graded(status, sum((groups or {}).values()), groups=groups or {})
    return table.make_row(LAB, name, graded, late.ON_TIME, "", 10.0)


def numbers(rows: list[dict[str, Any]], lab: object = LAB) -> dict[str, Any]:
    return dashboard.summary(lab, {r["id"]: r for r in rows}, similarity.Similarity())  # type: ignore[arg-type]


def test_statuses_are_counted_most_common_first_then_by_name() -> None:
    """Named so that the rows' own order (by name) is not the statuses' order."""
    rows = [row(f"g{i}") for i in range(3)] + [row("a", "timeout"), row("b", "grader error"), row("c", "compile error")]
    assert numbers(rows)["statuses"] == [("graded", 3), ("compile error", 1), ("grader error", 1), ("timeout", 1)]


def test_each_groups_full_marks_rate_counts_the_scored_entries() -> None:
    """Three scored entries (the grader error is not scored): the first group in full for one (33%),
    the second for two (67%); the weight is full marks, a tenth of a mark below it (the least a
    group short of its weight shows: results.shown_marks) is not."""
    rows = [row("a", groups={FIRST.name: FIRST.weight, SECOND.name: SECOND.weight}),
            row("b", groups={FIRST.name: FIRST.weight - 0.1, SECOND.name: SECOND.weight}),
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


def test_a_group_worth_nothing_is_not_scored_not_full_marks_for_everyone() -> None:
    """A testbench lab's coverage group weighs 0 (shown only): no entry earns or misses its marks,
    so it is "not scored", never "full marks, 100%" (a starter that covers nothing would have them)."""
    shown_only = replace(LAB, groups=(replace(FIRST, weight=0.0), SECOND))
    rates = numbers([row("a", groups={}), row("b", groups={SECOND.name: SECOND.weight})], shown_only)["rates"]
    assert [(r["full"], r["rate"]) for r in rates] == [(None, "not scored"), (1, "50%")]
    page = dashboard.render(shown_only, {r["id"]: r for r in [row("a", groups={})]}, similarity.Similarity())
    assert f'data-group="{FIRST.name}">-</td><td class="number">not scored' in page


def test_with_no_scored_entry_every_rate_is_a_dash() -> None:
    rates = numbers([row("x", "grader error")])["rates"]
    assert rates and all((rate["full"], rate["rate"]) == (0, "-") for rate in rates)


def test_the_histograms_bars_stand_on_its_bottom_line() -> None:
    found = numbers([row("a", groups={FIRST.name: FIRST.weight}), row("b", groups={})])
    assert found["plot_bottom"] > found["plot_top"]
    assert [bar.y + bar.height for bar in found["bars"]] == [found["plot_bottom"]] * len(found["bars"])
    assert max(bar.height for bar in found["bars"]) == found["plot_bottom"] - found["plot_top"]  # the tallest fills the plot


def test_the_late_column_shows_days_late_or_why_there_are_none() -> None:
    lateness = {"a": late.Lateness(2, 10.0), "b": late.ON_TIME, "c": late.Lateness(None, note="no record")}
    rows = [table.make_row(LAB, name, table.Graded("graded", 10.0), how, "", 10.0) for name, how in lateness.items()]
    assert [s["late"] for s in numbers(rows)["students"]] == ["2", "", "no record"]


def test_similar_pairs_show_their_share_and_the_floor_is_half() -> None:
    """labs/README.md: pairs sharing at least half (50%) of their tokens."""
    rows = [row("a"), row("b")]
    pair = similarity.Pair(0.9, 120, rows[0]["id"], rows[1]["id"])
    found = dashboard.summary(LAB, {r["id"]: r for r in rows}, similarity.Similarity([pair], [r["id"] for r in rows]))
    assert (found["pairs"], found["pairs_found"], found["compared"]) == ([("90%", 120, "a", "b")], 1, 2)
    assert found["floor"] == "50%"
    page = dashboard.render(LAB, {r["id"]: r for r in rows}, similarity.Similarity([pair], [r["id"] for r in rows]))
    assert "Pairs sharing at least 50% of their tokens" in page
