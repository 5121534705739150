"""Hidden means hidden, report by report, without a sandbox: one grade with a visible group that
lost marks and a hidden one that lost marks with a secret in its detail, seen through every
student-facing view (course/roofline_course/reports/result.py's docstring and docs/threat-model.md, row 6).
Fast, so that `make mutation` runs it per mutant of the reports."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from roofline_core.contract import ParamSet
from roofline_course.intake.precheck import Precheck
from roofline_course.labs.definitions import Group, load_lab
from roofline_course.reports import platforms, terminal
from roofline_course.reports import result as reports
from roofline_course.results import Grade, GroupScore, Picture

SECRET = "SEED=4242 hidden vector 17"
LAB1 = load_lab(1, with_hidden=False)


def group(name: str, weight: float, hidden: bool) -> Group:
    return Group(name, weight, hidden, f"{name} covers", ParamSet(8, 8))


def result(stage: str = "ok", problems: tuple[str, ...] = ()) -> dict[str, Any]:
    """visible: 6 of 10, its detail "visible: 6 of 10 passed"; hidden: 1 of 5 with the secret; a
    visible group in full."""
    scores = [GroupScore(group("shown", 10, False), 6.0, "partial", ["visible: 6 of 10 passed"], 1.5, ["t: a"], "make sim A",
                         "a.log"),
              GroupScore(group("secret", 5, True), 1.0, "partial", [SECRET], 2.5, [f"t: {SECRET}"], f"make sim {SECRET}",
                         "b.log"),
              GroupScore(group("full", 5, False), 5.0, "pass", [], 0.5)]
    lab = replace(LAB1, groups=tuple(s.group for s in scores))
    return reports.canonical(Grade(lab, "ada", Precheck(stage, list(problems)), scores))


def test_the_canonical_result_holds_everything_for_the_instructor() -> None:
    canonical = result()
    assert (canonical["score"], canonical["max_score"], canonical["seconds"], canonical["status"]) == (12.0, 20.0, 4.5, "graded")
    assert [g["hidden"] for g in canonical["groups"]] == [False, True, False]
    assert canonical["groups"][1]["detail"] == [SECRET]


def test_the_student_terminal_shows_no_hidden_result_and_no_total() -> None:
    shown = "\n".join(terminal.terminal(result(), visible_only=True))
    assert SECRET not in shown and "total" not in shown
    assert "(after the due date)" in shown and "  visible: 6 of 10 passed" in shown
    assert "  6.0/10" in shown and "  1.0/5" not in shown
    instructor = "\n".join(terminal.terminal(result()))
    assert SECRET in instructor and "  1.0/5" in instructor
    totals = [line.split() for line in instructor.splitlines() if line.strip().startswith("total")]
    assert totals == [["total", "12.0/20"]]


def test_first_problem_for_a_student_skips_the_hidden_groups() -> None:
    assert reports.first_problem(result(), visible_only=True) == "shown: visible: 6 of 10 passed"
    hidden_first = result()
    hidden_first["groups"] = [hidden_first["groups"][1], hidden_first["groups"][0]]
    assert reports.first_problem(hidden_first, visible_only=True) == "shown: visible: 6 of 10 passed"
    assert reports.first_problem(hidden_first) == f"secret: {SECRET}"
    assert reports.first_problem(result("compile", ("line 3: syntax error",))) == "line 3: syntax error"
    full = result()
    full["groups"] = [full["groups"][2]]
    assert reports.first_problem(full) == ""


def test_gradescope_shows_a_hidden_group_only_after_the_due_date() -> None:
    document = platforms.gradescope(result())
    tests = {t["name"]: t for t in document["tests"]}
    assert {name: (t["visibility"], t["status"], t["score"], t["max_score"]) for name, t in tests.items()} == {
        "shown": ("visible", "failed", 6.0, 10), "secret": ("after_due_date", "failed", 1.0, 5),
        "full": ("visible", "passed", 5.0, 5)}
    assert "score" not in document and SECRET not in document["output"] and document["stdout_visibility"] == "visible"
    assert all(SECRET not in t["output"] for t in tests.values() if t["visibility"] == "visible")


def test_prairielearn_leaves_the_hidden_groups_out_and_scores_the_visible_ones() -> None:
    document = platforms.prairielearn(result())
    assert [t["name"] for t in document["tests"]] == ["shown", "full"]
    assert document["score"] == pytest.approx(11 / 15, abs=1e-6) and document["gradable"] is True
    assert SECRET not in str(document)
    failed = platforms.prairielearn(result("compile", ("line 3: syntax error",)))
    assert failed == {"gradable": False, "format_errors": ["line 3: syntax error"]}


def test_junit_counts_the_groups_short_of_their_weight(tmp_path: Path) -> None:
    platforms.junit(result(), tmp_path / "junit.xml")
    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert cases["secret"].get("classname") == "lab1.hidden" and cases["shown"].get("classname") == "lab1.visible"
    assert cases["full"].find("failure") is None and cases["shown"].find("failure").get("message") == "partial: 6.0/10"


def test_the_result_keeps_marks_to_a_tenth_never_the_weight_of_a_group_short_of_it_and_times_to_a_hundredth() -> None:
    """labs/README.md: marks to a tenth (rounded once, results.shown_marks), times to a hundredth of a
    second; 9.98 of 10 is 9.9, not 10.0, and 0.04 of a partial group shows as a fail of 0.0."""
    scores = [GroupScore(group("shown", 10, False), 6.12345, "partial", ["d"], 1.23456),
              GroupScore(group("full", 5, False), 4.0004, "partial", ["d"], 2.00444),
              GroupScore(group("almost", 10, False), 9.98, "partial", ["d"], 0.001),
              GroupScore(group("nearly none", 10, False), 0.04, "partial", ["d"], 0.004)]  # the total: 3.244 s
    lab = replace(LAB1, groups=tuple(s.group for s in scores))
    canonical = reports.canonical(Grade(lab, "ada", Precheck("ok"), scores))
    assert [(g["score"], g["status"], g["seconds"]) for g in canonical["groups"]] == [
        (6.1, "partial", 1.23), (4.0, "partial", 2.0), (9.9, "partial", 0.0), (0.0, "fail", 0.0)]
    assert (canonical["score"], canonical["seconds"]) == (20.0, 3.24)


# ---------------------------------------------------------------- the terminal table, line by line

def kinded(name: str, weight: float, hidden: bool, kind: str = "sim") -> Group:
    return Group(name, weight, hidden, f"{name} covers", ParamSet(8, 8), kind=kind)


def table_result() -> dict[str, Any]:
    """Four groups: one partial with a log and a picture, a hidden partial, a synthesis pass (its
    figures are its detail), a pass with a note that is not shown; a warning, an ignored file, a lab note."""
    scores = [GroupScore(kinded("shown", 10, False), 6.0, "partial", ["first line", "second line"], 1.5, ["t: a"], "make sim A",
                         "groups/shown/sim.log",
                         [Picture("t", "the first failure", "groups/shown/pictures/t.svg", "groups/shown/pictures/t.png")]),
              GroupScore(kinded("secret", 5, True), 1.0, "partial", ["SECRET"], 2.5, [], "", "groups/secret/sim.log"),
              GroupScore(kinded("synthesis", 5, False, "synthesis"), 5.0, "pass", ["iCE40 HX8K: 100 LUT4"], 0.5),
              GroupScore(kinded("ok", 5, False), 5.0, "pass", ["a passing group's note"], 0.5)]
    lab = replace(LAB1, groups=tuple(s.group for s in scores), notes=("the lab's note",))
    return reports.canonical(Grade(lab, "ada", Precheck("ok", [], ["ignored: tb.sv (a testbench)", "a warning"]), scores))


HEAD = ["lab 1: Combinational attainable performance (roofline_attainable)", "submission: ada",
        "ignored: tb.sv (a testbench)", "note: a warning", "note: the lab's note", "",
        "  group                     score  status   covers"]
SHOWN = ["shown (partial):", "  first line", "  second line", "  full simulator log: groups/shown/sim.log (in the report folder)",
         "  picture of the first failure: groups/shown/pictures/t.svg (and t.png)"]


def test_the_instructors_table_shows_every_group_the_total_and_the_details_that_matter() -> None:
    assert [line.rstrip() for line in terminal.terminal(table_result())] == [
        *HEAD,
        "  shown       visible   6.0/10     partial  shown covers",
        "  secret      hidden    1.0/5      partial  secret covers",
        "  synthesis   visible   5.0/5      pass     synthesis covers",
        "  ok          visible   5.0/5      pass     ok covers",
        "  total                17.0/25",
        "", *SHOWN,
        "", "secret (partial):", "  SECRET", "  full simulator log: groups/secret/sim.log (in the report folder)",
        "", "synthesis (pass):", "  iCE40 HX8K: 100 LUT4",
    ]


def test_the_students_table_leaves_the_hidden_group_for_after_the_due_date_and_names_no_file_of_the_grader() -> None:
    """A platform's page (Gradescope's stdout): the report folder stays on the grading machine."""
    assert [line.rstrip() for line in terminal.terminal(table_result(), visible_only=True)] == [
        *HEAD,
        "  shown       visible   6.0/10     partial  shown covers",
        "  secret      hidden                        (after the due date)",
        "  synthesis   visible   5.0/5      pass     synthesis covers",
        "  ok          visible   5.0/5      pass     ok covers",
        "", *SHOWN[:3],
        "", "synthesis (pass):", "  iCE40 HX8K: 100 LUT4",
    ]


def test_a_submission_that_could_not_be_graded_lists_its_problems_first() -> None:
    lab = replace(LAB1, groups=(kinded("shown", 10, False),), notes=())
    scores = [GroupScore(lab.groups[0], 0.0, "not run", ["not run: the compile check failed"])]
    result = reports.canonical(Grade(lab, "bob", Precheck("compile", ["line 3: syntax error", "line 9: another"]), scores))
    assert [line.rstrip() for line in terminal.terminal(result)][:9] == [
        "lab 1: Combinational attainable performance (roofline_attainable)", "submission: bob", "",
        "COMPILE ERROR:", "  line 3: syntax error", "  line 9: another", "", "  group                 score  status   covers",
        "  shown   visible   0.0/10     not run  shown covers"]
    assert reports.first_problem(result) == "line 3: syntax error"
    assert platforms.gradescope(result)["output"] == "line 3: syntax error\nline 9: another"


def test_first_problem_is_the_first_line_of_the_first_group_short_of_its_weight() -> None:
    assert reports.first_problem(table_result()) == "shown: first line"
    result = table_result()
    result["groups"] = result["groups"][2:]  # the synthesis group has detail but its full weight
    assert reports.first_problem(result) == ""


def test_junit_says_why_a_group_failed_and_declares_its_xml(tmp_path: Path) -> None:
    platforms.junit(table_result(), tmp_path / "junit.xml")
    text = (tmp_path / "junit.xml").read_text()
    assert text.startswith("<?xml version='1.0' encoding")
    shown = next(case for case in ET.fromstring(text).iter("testcase") if case.get("name") == "shown")
    assert shown.find("failure").text == "first line\nsecond line"  # type: ignore[union-attr]
    lab = replace(LAB1, groups=(kinded("shown", 10, False),), notes=())
    not_run = [GroupScore(lab.groups[0], 0.0, "not run")]
    failed = reports.canonical(Grade(lab, "bob", Precheck("compile", ["line 3: syntax error"]), not_run))
    platforms.junit(failed, tmp_path / "failed.xml")
    case = ET.parse(tmp_path / "failed.xml").getroot().find("testsuite/testcase")
    assert case is not None and case.find("failure").text == "line 3: syntax error"  # type: ignore[union-attr]


def test_gradescope_without_problems_or_warnings_says_the_status() -> None:
    result = table_result()
    result["warnings"] = []
    assert platforms.gradescope(result)["output"] == "lab 1: graded"


def test_prairielearn_scores_to_six_decimals_and_a_lab_with_no_visible_marks_scores_0() -> None:
    lab = replace(LAB1, groups=(kinded("a", 3, False), kinded("b", 5, True)), notes=())
    third = reports.canonical(Grade(lab, "ada", Precheck("ok"), [GroupScore(lab.groups[0], 1.0, "partial", ["d"]),
                                                                 GroupScore(lab.groups[1], 5.0, "pass")]))
    assert platforms.prairielearn(third)["score"] == 0.333333
    hidden_only = replace(lab, groups=(lab.groups[1],))
    nothing = reports.canonical(Grade(hidden_only, "ada", Precheck("ok"), [GroupScore(lab.groups[1], 5.0, "pass")]))
    assert platforms.prairielearn(nothing)["score"] == 0.0 and platforms.prairielearn(nothing)["tests"] == []
