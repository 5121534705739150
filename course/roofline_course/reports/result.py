"""One canonical result per grading run, and every report made from it.

`canonical` turns a Grade into plain data (result.json), every mark as results.shown_marks gives
it (a tenth of a mark; a group short of its weight never shows its weight). The terminal table, JUnit XML,
Gradescope's results.json, PrairieLearn's results.json and the class CSV row are each a view of
that one document, so they cannot disagree. A hidden group's details (failing cases, seeds,
rerun lines, pictures) go only where they stay hidden until the due date. The pictures of a
failing group (pictures) are files of the report folder: result.json and the terminal name
them, Gradescope's and PrairieLearn's results carry the PNGs inline.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from roofline_course.reports.platforms import gradescope, junit, prairielearn
from roofline_course.reports.terminal import terminal
from roofline_course.results import Grade

SCHEMA = 1


def canonical(grade: Grade) -> dict[str, Any]:
    check = grade.check
    groups = [{
        "name": s.group.name, "hidden": s.group.hidden, "kind": s.group.kind, "covers": s.group.covers,
        "weight": s.group.weight, "score": s.marks, "status": s.shown_status, "scoring": s.group.scoring,
        "detail": s.detail, "failing": s.failing, "rerun": s.rerun, "log": s.log, "seconds": round(s.seconds, 2),
        "pictures": [asdict(picture) for picture in s.pictures],
    } for s in grade.scores]
    return {
        "schema": SCHEMA, "lab": grade.lab.number, "title": grade.lab.title, "top": grade.lab.top,
        "submission": grade.submission, "sim": grade.sim, "status": grade.status, "gradable": grade.gradable,
        "score": grade.score, "max_score": grade.lab.max_score, "stage": check.stage,
        "problems": check.problems, "warnings": check.warnings, "notes": grade.lab.notes, "groups": groups,
        "seconds": round(sum(s.seconds for s in grade.scores), 2),
    }


def first_problem(result: dict[str, Any], visible_only: bool = False) -> str:
    """The most telling line: the precheck's problem, else the first group that lost marks."""
    if result["problems"]:
        return result["problems"][0]
    for group in result["groups"]:
        if group["score"] < group["weight"] and group["detail"] and not (visible_only and group["hidden"]):
            return f"{group['name']}: {group['detail'][0].strip()}"
    return ""


def first_failure(result: dict[str, Any]) -> str:
    """The first failing case by name ("test: case"), for the class's most common failures."""
    for group in result["groups"]:
        if group["failing"]:
            return group["failing"][0]
    return ""


def write_all(result: dict[str, Any], out: Path) -> dict[str, Path]:
    paths = {"result": out / "result.json", "junit": out / "junit.xml", "gradescope": out / "gradescope.json",
             "prairielearn": out / "prairielearn.json", "table": out / "score.txt"}
    paths["result"].write_text(json.dumps(result, indent=2) + "\n")
    junit(result, paths["junit"])
    paths["gradescope"].write_text(json.dumps(gradescope(result, out), indent=2) + "\n")
    paths["prairielearn"].write_text(json.dumps(prairielearn(result, out), indent=2) + "\n")
    paths["table"].write_text("\n".join(terminal(result)) + "\n")
    return paths
