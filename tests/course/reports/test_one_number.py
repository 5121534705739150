"""One number everywhere: the terminal's total, the verdict line, result.json, score.txt, JUnit,
Gradescope, PrairieLearn, the class table and the dashboard show a grade to the same digit, rounded
once (results.shown_marks), and a grade short of full marks never shows as full marks. Fast, no
sandbox: the issue's case is a group that earned 99.98% of its marks."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from roofline_core.contract import ParamSet
from roofline_course import grade as grading
from roofline_course.cohort import dashboard, similarity, table
from roofline_course.cohort import lateness as late
from roofline_course.intake.precheck import Precheck
from roofline_course.labs.definitions import Group, load_lab
from roofline_course.reports import result as reports
from roofline_course.reports import terminal
from roofline_course.results import Grade, GroupScore, shown_marks

LAB = load_lab(1)


def a_grade(*earned: float) -> Grade:
    """The lab's groups with these marks, one each, in order."""
    groups = LAB.groups[:len(earned)]
    lab = replace(LAB, groups=groups)
    return Grade(lab, "ada", Precheck("ok"), [GroupScore(g, e, "pass" if e >= g.weight else "partial", ["d"])
                                             for g, e in zip(groups, earned, strict=True)])


@pytest.mark.parametrize(("marks", "weight", "shown"), [
    (99.98, 100, 99.9), (99.95, 100, 99.9), (100, 100, 100.0), (14.96, 15, 14.9), (6.12345, 10, 6.1), (6.15, 10, 6.2),
    (0.04, 10, 0.0), (0.05, 10, 0.1), (0.0, 0, 0.0), (9.94, 10, 9.9)])
def test_marks_round_to_a_tenth_and_short_of_the_weight_stay_short(marks: float, weight: float, shown: float) -> None:
    assert shown_marks(marks, weight) == pytest.approx(shown)


def test_a_grade_a_hair_short_of_full_marks_shows_the_same_short_number_in_every_view(tmp_path: Path) -> None:
    weights = [g.weight for g in LAB.groups]
    earned = list(weights)
    earned[1] = weights[1] * 0.9998  # the 99.98: one latency check among a thousand cases
    result = a_grade(*earned)
    document = reports.canonical(result)
    total = sum(weights) - 0.1  # every other group in full, the one short of it shown a tenth short
    assert document["score"] == pytest.approx(total) and document["groups"][1]["score"] == pytest.approx(weights[1] - 0.1)
    text = f"{total:.1f}/{sum(weights):g}"
    # the terminal's table and its total line (and score.txt, which is the same lines)
    lines = terminal.terminal(document)
    assert any(line.split()[:2] == ["total", text] for line in lines), lines
    paths = reports.write_all(document, tmp_path)
    assert any(line.split()[:2] == ["total", text] for line in paths["table"].read_text().splitlines())
    assert "100.0/100" not in paths["table"].read_text()
    # the verdict line and the exit status
    assert grading.final_line(result) == f"graded: {text}, fewer than full marks (exit 1)" and grading.exit_status(result) == 1
    # JUnit: the group's score as the table shows it, and a failure
    suite = ET.parse(paths["junit"]).getroot().find("testsuite")
    case = next(c for c in suite.iter("testcase") if c.get("name") == LAB.groups[1].name)  # type: ignore[union-attr]
    assert case.find("properties/property[@name='score']").get("value") == f"{weights[1] - 0.1:.1f}"  # type: ignore[union-attr]
    assert case.find("failure") is not None
    # Gradescope: its tests' scores add up to the total shown
    gradescope = json.loads(paths["gradescope"].read_text())
    assert sum(t["score"] for t in gradescope["tests"]) == pytest.approx(total)
    assert [t["status"] for t in gradescope["tests"]].count("failed") == 1
    # PrairieLearn: the share of the visible marks, never 1 when a mark is missing
    prairielearn = json.loads(paths["prairielearn"].read_text())
    visible = [g for g in LAB.groups if not g.hidden]
    assert prairielearn["score"] < 1 and sum(t["points"] for t in prairielearn["tests"]) == pytest.approx(
        sum(g.weight for g in visible) - 0.1)
    # the class table and the dashboard, from the same result.json
    graded = table.read_result(LAB, paths["result"], 1.0)
    row = table.make_row(LAB, "ada", graded, late.ON_TIME, "", 10.0)
    cells = table.csv_cells(LAB, row)
    assert (cells["score"], cells["final_score"], cells["percent"]) == (f"{total:g}", f"{total:g}", f"{total:.1f}")
    page = dashboard.summary(LAB, {row["id"]: row}, similarity.Similarity())
    assert page["students"][0]["score"] == text and page["bars"][-1].count == 0  # not in the full-marks bucket


def test_a_late_penalty_is_rounded_by_the_same_rule() -> None:
    """70% of 99.9 is 69.93: the table and the dashboard both show 69.9."""
    graded = table.Graded("graded", 99.9, groups={})
    row = table.make_row(LAB, "late", graded, late.Lateness(3, 30.0), "", 10.0)
    assert row["final_score"] == pytest.approx(69.9)
    assert table.csv_cells(LAB, row)["final_score"] == "69.9"
    page = dashboard.summary(LAB, {row["id"]: row}, similarity.Similarity())
    assert page["students"][0]["score"] == "69.9/100"


def test_a_group_worth_nothing_shows_no_marks_and_is_not_scored(tmp_path: Path) -> None:
    shown_only = Group("coverage", 0.0, False, "covers", ParamSet(8, 8), kind="sim")
    lab = replace(LAB, groups=(LAB.groups[0], shown_only))
    result = Grade(lab, "ada", Precheck("ok"), [GroupScore(lab.groups[0], 10.0, "pass"), GroupScore(shown_only, 0.0, "pass")])
    document = reports.canonical(result)
    assert document["groups"][1]["score"] == 0.0 and document["score"] == 10.0
