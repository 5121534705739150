"""The class's table: what grading each entry gave, one row per entry, kept across runs.

`read_result` turns a grader's result.json into a `Graded` after checking its shape (the
grader ran next to student code, so a malformed, inconsistent or oversized document is a
'grader error' row, never a score). Rows live in <class folder>/rows.json, keyed by a digest of
the entry's exact name bytes (two names that print alike stay two rows); scores.csv is a view of
them in which every cell is neutralised (no formulas, no control characters, one line each).
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import json
import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from roofline_course.cohort import lateness as late
from roofline_course.labs.definitions import Lab
from roofline_course.reports.neutralise import one_line, printable, slug, spreadsheet_cell
from roofline_course.reports.result import first_failure, first_problem
from roofline_course.results import MARK_DECIMALS, shown_marks

STATE = "rows.json"
TABLE = "scores.csv"
NOT_GRADED, GRADER_ERROR, GRADER_TIMEOUT = "not graded", "grader error", "grader timeout"
UNSCORED = (NOT_GRADED, GRADER_ERROR, GRADER_TIMEOUT)  # rows the grader gave no score: left out of the statistics
VALUE_FAILURE = "value failure"
MAX_RESULT_BYTES = 32 << 20
LOCATION = re.compile(r"^\S+?:\d+:\s*")  # "file.sv:12: " before a compile error or a forbidden call
MAX_PROBLEM_CHARS = 120


class ResultError(ValueError):
    """A result.json that is not what the grader writes; the message says what is wrong."""


class TableError(ValueError):
    """The class folder's rows.json cannot be read; the message says what to do, in one line."""


@dataclass
class Graded:
    """What grading one entry gave, checked."""

    status: str
    score: float = 0.0
    problem: str = ""  # the most telling line
    first_failure: str = ""  # the first failing case by name
    groups: dict[str, float] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (kind, what): the dashboard's common problems
    seconds: float = 0.0
    folder: str = ""  # the report folder


def entry_id(name: str) -> str:
    """A short name for an entry that no other name shares: readable part, then a digest of its exact bytes."""
    readable = slug(printable(name), empty="").lstrip("-.")[:40] or "entry"  # never a formula's or a hidden file's start
    return f"{readable}-{hashlib.sha1(os.fsencode(name)).hexdigest()[:8]}"


def failed(status: str, problem: str) -> Graded:
    """A row for an entry the grader gave no score: not graded, a grader error or timeout."""
    return Graded(status, problem=problem, problems=[(status, one_line(problem)[:MAX_PROBLEM_CHARS])])


def _number(value: object, where: str, low: float = 0.0, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not low <= value <= high:
        raise ResultError(f"{where} is not a number from {low:g} to {high:g}")
    return float(value)


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ResultError(f"{where} is not a list of strings")
    return value


def _checked(lab: Lab, document: object) -> dict[str, Any]:
    """The result's keys this table reads, each of the right type and consistent with the lab."""
    if not isinstance(document, dict):
        raise ResultError("not a JSON object")
    if not isinstance(document.get("status"), str) or not document["status"]:
        raise ResultError("status is not a string")
    _strings(document.get("problems"), "problems")
    if not math.isclose(_number(document.get("max_score"), "max_score"), lab.max_score):
        raise ResultError(f"max_score is {document['max_score']}, the lab's is {lab.max_score:g}")
    score = _number(document.get("score"), "score", high=lab.max_score + 1e-6)
    groups = document.get("groups")
    if not isinstance(groups, list):
        raise ResultError("groups is not a list")
    weights = {g.name: g.weight for g in lab.groups}
    for index, group in enumerate(groups):
        where = f"groups[{index}]"
        if not isinstance(group, dict) or group.get("name") not in weights:
            raise ResultError(f"{where} is not one of the lab's groups")
        _number(group.get("score"), f"{where}.score", high=weights[group["name"]] + 1e-6)
        _strings(group.get("detail"), f"{where}.detail")
        _strings(group.get("failing"), f"{where}.failing")
        if not isinstance(group.get("status"), str) or not isinstance(group.get("hidden"), bool):
            raise ResultError(f"{where} lacks a status or hidden flag")
        group["weight"] = weights[group["name"]]  # the lab's, not the document's
    if len({g["name"] for g in groups}) != len(groups):
        raise ResultError("a group appears twice")
    if not math.isclose(score, sum(g["score"] for g in groups), abs_tol=0.01):
        raise ResultError(f"score {score:g} is not the sum of its groups' scores")
    return document


def problem_kinds(result: dict[str, Any]) -> list[tuple[str, str]]:
    """Each problem of a checked result as (kind, what), for the class's most common problems:
    a refusal before the tests (no files, compile error, forbidden call, port mismatch...) by its
    message without the file and line, a timeout or crash by group, a value failure by case."""
    found: list[tuple[str, str]] = []
    if result["problems"]:
        message = result["problems"][0].splitlines()[0] if result["problems"][0].strip() else "(no message)"
        found.append((result["status"], LOCATION.sub("", message.strip())[:MAX_PROBLEM_CHARS]))
    for group in result["groups"]:
        if group["score"] >= group["weight"] or group["status"] == "not run":
            continue
        if group["failing"]:
            found += [(VALUE_FAILURE, case[:MAX_PROBLEM_CHARS]) for case in group["failing"]]
        elif group["status"] in ("fail", "partial"):
            found.append((VALUE_FAILURE, f"{group['name']} (no case named)"))
        else:
            found.append((group["status"], group["name"]))
    return list(dict.fromkeys(found))


def read_result(lab: Lab, result_file: Path, seconds: float) -> Graded:
    """The grader's result.json as a Graded. Raises ResultError when it is not one."""
    try:
        too_large = result_file.stat().st_size > MAX_RESULT_BYTES
        document = None if too_large else json.loads(result_file.read_bytes())
    except (OSError, ValueError, RecursionError) as problem:
        raise ResultError(f"unreadable ({type(problem).__name__})") from None
    if too_large:  # outside the try: a ResultError is a ValueError, and its message would be lost there
        raise ResultError(f"larger than {MAX_RESULT_BYTES >> 20} MiB")
    result = _checked(lab, document)
    return Graded(result["status"], float(result["score"]), first_problem(result), first_failure(result),
                  {g["name"]: float(g["score"]) for g in result["groups"]}, problem_kinds(result), round(seconds, 1),
                  str(result_file.parent))


def make_row(lab: Lab, name: str, graded: Graded, lateness: late.Lateness, submitters: str,
             time_limit_s: float) -> dict[str, Any]:
    """A row as stored: raw values, the name exactly as the entry (bytes that were not UTF-8 kept)."""
    final = shown_marks(lateness.apply(graded.score), lab.max_score)  # at the precision of every other score
    return {"id": entry_id(name), "submission": name, "submitters": submitters, "status": graded.status,
            "score": graded.score, "max_score": lab.max_score, "late_days": lateness.days, "late_note": lateness.note,
            "late_penalty": lateness.penalty, "final_score": final, "groups": graded.groups,
            "problems": [list(p) for p in graded.problems], "first_problem": graded.problem,
            "first_failure": graded.first_failure, "seconds": graded.seconds, "time_limit_s": time_limit_s,
            "graded_at": datetime.now(UTC).isoformat(timespec="seconds"), "folder": graded.folder}


@contextmanager
def locked(out: Path) -> Iterator[None]:
    """One writer of the class folder's table at a time (two grade-all runs on one class)."""
    with (out / ".rows.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def load_rows(out: Path) -> dict[str, dict[str, Any]]:
    path = out / STATE
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text())
        rows = document["rows"]
        if not isinstance(rows, dict) or not all(isinstance(row, dict) for row in rows.values()):
            raise TypeError("rows is not an object of rows")
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as problem:
        raise TableError(f"{path}: unreadable ({type(problem).__name__}); move it away to start the class's table anew") from None
    return rows


def save_rows(out: Path, lab: Lab, rows: dict[str, dict[str, Any]]) -> None:
    """rows.json, then scores.csv from it; each replaced whole, so a reader never sees half a table."""
    state = out / STATE
    temporary = state.with_suffix(".tmp")
    temporary.write_text(json.dumps({"lab": lab.number, "rows": rows}, indent=1) + "\n")
    temporary.replace(state)
    write_csv(out / TABLE, lab, rows)


def ordered(rows: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows in the order of their names as shown, the id breaking ties between names that print alike."""
    return sorted(rows.values(), key=lambda row: (printable(row["submission"]), row["id"]))


def points(value: float) -> str:
    """Marks as the table writes them: the shown marks (a tenth), without trailing zeros (99.9, 100)."""
    return f"{round(value, MARK_DECIMALS):g}"


def csv_cells(lab: Lab, row: dict[str, Any]) -> dict[str, str]:
    cells = {"submission": row["submission"], "submitters": row["submitters"], "status": row["status"],
             "score": points(row["score"]), "max_score": points(row["max_score"]),
             "percent": f"{100 * row['score'] / row['max_score']:.1f}",
             "late_days": row["late_note"] if row["late_days"] is None else str(row["late_days"]),
             "late_penalty": points(row["late_penalty"]), "final_score": points(row["final_score"]),
             "first problem": one_line(row["first_problem"]), "first failing case": one_line(row["first_failure"]),
             "seconds": points(row["seconds"]), "time_limit_s": points(row["time_limit_s"]),
             "graded_at": row["graded_at"], "report": str(Path(row["folder"]) / "score.txt") if row["folder"] else "",
             "id": row["id"]}
    cells |= {group.name: points(row["groups"].get(group.name, 0.0)) for group in lab.groups}
    return {column: spreadsheet_cell(text) for column, text in cells.items()}


def columns(lab: Lab) -> list[str]:
    return ["submission", "submitters", "status", "score", "max_score", "percent", "late_days", "late_penalty",
            "final_score", *(g.name for g in lab.groups), "first problem", "first failing case", "seconds",
            "time_limit_s", "graded_at", "report", "id"]


def write_csv(path: Path, lab: Lab, rows: dict[str, dict[str, Any]]) -> None:
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, columns(lab), quoting=csv.QUOTE_ALL)
        writer.writeheader()
        for row in ordered(rows):
            writer.writerow(csv_cells(lab, row))
    temporary.replace(path)
