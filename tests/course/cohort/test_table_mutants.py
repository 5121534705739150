"""The class table's reading of a grader's result and its rows (make mutation's tests for cohort/table.py).

The rules (table.py's docstring, docs/threat-model.md row 8): a result.json is a score only when it has the
grader's shape and agrees with the lab: a status, a max_score that is the lab's, a score from 0 to it that
is the sum of its groups' scores, each group one of the lab's (once) with a score from 0 to the lab's weight;
anything else is a grader error, never a score. A row's final score is the late policy applied to the score at
the precision every report shows; the table writes marks to a tenth without trailing zeros. Lab 1's groups
and weights are its lab.toml's.
"""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from roofline_course.cohort import lateness as late
from roofline_course.cohort import table
from roofline_course.labs.definitions import load_lab

LAB = load_lab(1)  # max 100: ports and widths 10, document cases 30, edge cases 25, random sweep 20, another format 15
WEIGHTS = {"ports and widths": 10.0, "document cases": 30.0, "edge cases": 25.0, "random sweep": 20.0, "another format": 15.0}


def group(name: str, score: float, status: str = "pass", failing: list[str] | None = None,
          detail: list[str] | None = None, hidden: bool = False) -> dict[str, Any]:
    return {"name": name, "score": score, "status": status, "detail": detail or [], "failing": failing or [],
            "hidden": hidden}


def full() -> dict[str, Any]:
    return {"status": "pass", "score": 100.0, "max_score": 100.0, "problems": [],
            "groups": [group(name, weight) for name, weight in WEIGHTS.items()]}


def read(tmp_path: Path, document: object, seconds: float = 3.14159) -> table.Graded:
    path = tmp_path / "out" / "result.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(document))
    return table.read_result(LAB, path, seconds)


def test_the_lab_is_the_one_these_rules_are_written_for() -> None:
    assert LAB.max_score == 100.0 and {g.name: g.weight for g in LAB.groups} == WEIGHTS


def test_a_full_result_is_read_with_its_groups_seconds_and_folder(tmp_path: Path) -> None:
    graded = read(tmp_path, full())
    assert (graded.status, graded.score, graded.problem, graded.first_failure, graded.problems) == ("pass", 100.0, "", "",
                                                                                                   [])
    assert graded.groups == WEIGHTS and graded.seconds == 3.1 and graded.folder == str(tmp_path / "out")


def broken(change: str) -> object:
    document = full()
    groups = document["groups"]
    if change == "not an object":
        return [document]
    if change == "no status":
        del document["status"]
    elif change == "empty status":
        document["status"] = ""
    elif change == "problems not strings":
        document["problems"] = [3]
    elif change == "problems not a list":
        document["problems"] = "x"
    elif change == "another max_score":
        document["max_score"] = 80.0
    elif change == "max_score a bool":
        document["max_score"] = True
    elif change == "score above max":
        document["score"] = 100.01
    elif change == "negative score":
        document["score"], groups[0]["score"] = -0.5, 9.5 - 10.0
    elif change == "score not finite":
        document["score"] = float("nan")
    elif change == "score a string":
        document["score"] = "100"
    elif change == "groups not a list":
        document["groups"] = {}
    elif change == "unknown group":
        groups[0]["name"] = "bonus"
    elif change == "group not an object":
        groups[0] = "ports and widths"
    elif change == "group above its weight":
        groups[0]["score"], groups[1]["score"] = 10.5, 29.5
    elif change == "group detail not strings":
        groups[0]["detail"] = [1]
    elif change == "group failing not a list":
        groups[0]["failing"] = "a"
    elif change == "group without status":
        del groups[0]["status"]
    elif change == "group hidden not a bool":
        groups[0]["hidden"] = 1
    elif change == "group twice":
        groups[1] = copy.deepcopy(groups[0])
        document["score"] = 80.0
    elif change == "score not the sum":
        document["score"] = 99.9
    return document


@pytest.mark.parametrize(("change", "says"), [
    ("not an object", "not a JSON object"), ("no status", "status is not a string"),
    ("empty status", "status is not a string"), ("problems not strings", "problems is not a list of strings"),
    ("problems not a list", "problems is not a list of strings"),
    ("another max_score", "max_score is 80.0, the lab's is 100"), ("max_score a bool", "max_score is not a number"),
    ("score above max", "score is not a number from 0 to 100"), ("negative score", "score is not a number from 0 to 100"),
    ("score not finite", "score is not a number"), ("score a string", "score is not a number"),
    ("groups not a list", "groups is not a list"), ("unknown group", r"groups\[0\] is not one of the lab's groups"),
    ("group not an object", r"groups\[0\] is not one of the lab's groups"),
    ("group above its weight", r"groups\[0\].score is not a number from 0 to 10"),
    ("group detail not strings", r"groups\[0\].detail is not a list of strings"),
    ("group failing not a list", r"groups\[0\].failing is not a list of strings"),
    ("group without status", r"groups\[0\] lacks a status or hidden flag"),
    ("group hidden not a bool", r"groups\[0\] lacks a status or hidden flag"),
    ("group twice", "a group appears twice"), ("score not the sum", "score 99.9 is not the sum of its groups' scores"),
])
def test_a_result_that_is_not_the_graders_is_refused_never_scored(tmp_path: Path, change: str, says: str) -> None:
    with pytest.raises(table.ResultError, match=says):
        read(tmp_path, broken(change))


def test_the_bounds_hold_at_their_edges(tmp_path: Path) -> None:
    edge = full()
    edge["score"] = 100.0 + 1e-7  # within the grader's rounding of the maximum
    assert read(tmp_path, edge).score == pytest.approx(100.0)
    near = full()
    near["score"] = 100.005  # within a hundredth of the groups' sum, but above the lab's maximum
    with pytest.raises(table.ResultError, match="score is not a number from 0 to 100"):
        read(tmp_path, near)
    zero = full()
    zero["score"] = 0.0
    zero["groups"] = [group(name, 0.0, "fail") for name in WEIGHTS]
    assert read(tmp_path, zero).score == 0.0
    summed = full()
    summed["score"] = 99.995  # within a hundredth of 100: the groups' sum, rounded
    assert read(tmp_path, summed).score == 99.995
    apart = full()
    apart["score"] = 99.98
    with pytest.raises(table.ResultError, match="is not the sum"):
        read(tmp_path, apart)


def test_the_group_weight_is_the_labs_not_the_documents(tmp_path: Path) -> None:
    document = full()
    document["groups"][0]["weight"] = 1000.0
    document["groups"][0]["score"], document["groups"][1]["score"] = 5.0, 30.0
    document["score"] = 95.0
    graded = read(tmp_path, document)
    assert ("value failure", "ports and widths (no case named)") not in graded.problems  # a pass status: not a failure
    assert graded.groups["ports and widths"] == 5.0


def test_an_unreadable_or_oversized_result_is_a_grader_error(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text("{")
    with pytest.raises(table.ResultError, match=r"unreadable \(JSONDecodeError\)"):
        table.read_result(LAB, path, 1.0)
    with pytest.raises(table.ResultError, match=r"unreadable \(FileNotFoundError\)"):
        table.read_result(LAB, tmp_path / "none.json", 1.0)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(table.ResultError, match=r"unreadable \(RecursionError\)"):
        table.read_result(LAB, path, 1.0)
    with path.open("wb") as handle:
        handle.truncate(32 * 1024 * 1024 + 1)
    with pytest.raises(table.ResultError, match="larger than 32 MiB"):
        table.read_result(LAB, path, 1.0)
    text = json.dumps(full()).encode()
    path.write_bytes(text + b" " * (32 * 1024 * 1024 - len(text)))  # a result of exactly 32 MiB: read, and a score
    assert table.read_result(LAB, path, 1.0).score == 100.0


def test_the_common_problems_are_the_refusal_then_each_group_that_lost_marks(tmp_path: Path) -> None:
    document = full()
    document["status"], document["problems"] = "compile error", ["m.sv:12: syntax error near x\nmore"]
    groups = document["groups"]
    groups[0].update(score=0.0, status="not run")
    groups[1].update(score=20.0, status="partial", failing=["document cases: ridge", "document cases: dram"])
    groups[2].update(score=0.0, status="fail")
    groups[3].update(score=0.0, status="timeout")
    groups[4].update(score=15.0, status="pass", failing=["ignored: full marks"])
    document["score"] = 35.0
    graded = read(tmp_path, document)
    assert graded.problems == [("compile error", "syntax error near x"), ("value failure", "document cases: ridge"),
                               ("value failure", "document cases: dram"), ("value failure", "edge cases (no case named)"),
                               ("timeout", "random sweep")]
    assert graded.problem == "m.sv:12: syntax error near x\nmore" and graded.first_failure == "document cases: ridge"


def test_a_blank_problem_is_named_so_and_long_ones_are_cut() -> None:
    result = {"status": "refused", "problems": ["   "], "groups": []}
    assert table.problem_kinds(result) == [("refused", "(no message)")]
    long = {"status": "refused", "problems": ["x" * 200], "groups": [
        {"name": "g", "score": 0.0, "weight": 1.0, "status": "fail", "failing": ["c" * 200, "c" * 200]}]}
    assert table.problem_kinds(long) == [("refused", "x" * 120), ("value failure", "c" * 120)]  # the same case once


@pytest.mark.parametrize(("score", "penalty", "final"), [
    (100.0, 0.0, 100.0), (80.0, 20.0, 64.0), (99.96, 0.0, 99.9), (99.94, 0.0, 99.9), (50.0, 100.0, 0.0), (33.35, 10.0, 30.0),
])
def test_a_rows_final_score_is_the_late_policy_at_the_shown_precision(score: float, penalty: float, final: float) -> None:
    graded = table.Graded("pass", score, groups={"ports and widths": 10.0}, seconds=2.5, folder="/r/ana")
    lateness = late.Lateness(2, penalty, "")
    row = table.make_row(LAB, "ana", graded, lateness, "Ana (17)", 60.0)
    assert row["final_score"] == final and row["score"] == score and row["late_penalty"] == penalty
    assert (row["late_days"], row["submitters"], row["max_score"], row["time_limit_s"], row["folder"]) == (
        2, "Ana (17)", 100.0, 60.0, "/r/ana")


@pytest.mark.parametrize(("value", "text"), [(100.0, "100"), (99.94, "99.9"), (99.96, "100"), (0.05, "0.1"), (0.0, "0"),
                                             (12.5, "12.5")])
def test_marks_are_written_to_a_tenth_without_trailing_zeros(value: float, text: str) -> None:
    assert table.points(value) == text


def test_the_csv_row_shows_the_percent_the_late_days_or_why_not_and_every_group() -> None:
    graded = table.Graded("partial", 62.5, groups={"ports and widths": 10.0, "edge cases": 2.5}, folder="/r/x")
    row = table.make_row(LAB, "=cmd", graded, late.Lateness(None, 0.0, "not counted: no zone"), "", 30.0)
    cells = table.csv_cells(LAB, row)
    assert (cells["percent"], cells["late_days"], cells["score"], cells["final_score"]) == ("62.5", "not counted: no zone",
                                                                                             "62.5", "62.5")
    assert (cells["ports and widths"], cells["edge cases"], cells["document cases"]) == ("10", "2.5", "0")
    assert cells["submission"].startswith("'") and cells["report"] == "/r/x/score.txt"
    assert table.csv_cells(LAB, {**row, "late_days": 0, "folder": ""})["late_days"] == "0"
    assert table.csv_cells(LAB, {**row, "folder": ""})["report"] == ""
    assert set(cells) == set(table.columns(LAB))


def test_an_entry_id_keeps_names_that_print_alike_apart_and_never_starts_a_formula() -> None:
    assert table.entry_id("kim\x1b") != table.entry_id("kim\x07")
    assert table.entry_id("...") .startswith("entry-") and not table.entry_id("-=x").startswith(("-", "="))
    assert len(table.entry_id("a" * 100).split("-")[0]) == 40


def test_a_row_the_grader_could_not_score_carries_its_kind_and_one_line() -> None:
    row = table.failed(table.GRADER_TIMEOUT, "ran out of time\nafter 60 s" + "x" * 200)
    assert (row.status, row.score, row.problem.startswith("ran out")) == ("grader timeout", 0.0, True)
    assert row.problems == [("grader timeout", row.problems[0][1])] and len(row.problems[0][1]) == 120
    assert "\n" not in row.problems[0][1]


def test_rows_sort_by_the_name_shown_and_their_id(tmp_path: Path) -> None:
    rows = {"b": {"submission": "bo", "id": "bo-2"}, "a": {"submission": "ana", "id": "ana-9"},
            "c": {"submission": "bo", "id": "bo-1"}}
    assert [row["id"] for row in table.ordered(rows)] == ["ana-9", "bo-1", "bo-2"]


@pytest.mark.parametrize("content", ['{"rows": []}', '{"rows": {"a": 1}}', '{"nope": {}}', "{", "[" * 100_000])
def test_a_rows_file_that_cannot_be_read_is_one_line_saying_what_to_do(tmp_path: Path, content: str) -> None:
    (tmp_path / table.STATE).write_text(content)
    with pytest.raises(table.TableError, match="move it away to start the class's table anew"):
        table.load_rows(tmp_path)
    (tmp_path / table.STATE).write_text('{"rows": {"a": {"id": "a"}}}')
    assert table.load_rows(tmp_path) == {"a": {"id": "a"}}
    assert table.load_rows(tmp_path / "none") == {}


def test_the_highest_score_the_grader_may_round_to_is_accepted(tmp_path: Path) -> None:
    document = full()
    document["score"] = 100.0 + 1e-6  # the lab's maximum plus the grader's rounding allowance, exactly
    document["groups"][0]["score"] = 10.0 + 1e-6  # a group's weight plus the same allowance, exactly
    assert read(tmp_path, document).score == 100.0 + 1e-6


def test_an_entry_id_is_its_readable_name_and_the_first_eight_hex_digits_of_the_names_sha1() -> None:
    """rows.json is kept across runs by these ids: another length would orphan every row a class has."""
    assert table.entry_id("ana") == "ana-" + hashlib.sha1(b"ana").hexdigest()[:8]
    assert table.entry_id("caf\udce9").endswith("-" + hashlib.sha1(b"caf\xe9").hexdigest()[:8])  # the name's own bytes


def test_the_first_problem_alone_names_the_refusal() -> None:
    assert table.problem_kinds({"status": "refused", "problems": ["m.sv:3: no module", " "], "groups": []}) == [
        ("refused", "no module")]
    assert table.problem_kinds({"status": "refused", "problems": [" ", "m.sv:3: no module"], "groups": []}) == [
        ("refused", "(no message)")]
