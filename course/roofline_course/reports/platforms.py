"""The result as each platform reads it: JUnit XML, Gradescope's results.json, PrairieLearn's.

Gradescope's and PrairieLearn's results carry a failing group's pictures inline (PNG data: URIs),
while the whole file stays within MAX_RESULTS_BYTES; a picture left out is named in its group's output.
"""

from __future__ import annotations

import base64
import html
import json
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from roofline_course.reports.neutralise import printable, terminal_lines
from roofline_course.results import mark_text, score_text


def junit(result: dict[str, Any], path: Path) -> None:
    root = ET.Element("testsuites")
    failures = sum(g["score"] < g["weight"] for g in result["groups"])
    suite = ET.SubElement(root, "testsuite", name=f"lab{result['lab']}", tests=str(len(result["groups"])),
                          failures=str(failures))
    for g in result["groups"]:
        case = ET.SubElement(suite, "testcase", classname=f"lab{result['lab']}.{'hidden' if g['hidden'] else 'visible'}",
                             name=printable(g["name"]), time=f"{g['seconds']:.1f}")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="score", value=mark_text(g["score"]))
        ET.SubElement(props, "property", name="weight", value=f"{g['weight']:g}")
        if g["score"] < g["weight"]:
            failure = ET.SubElement(case, "failure", message=f"{g['status']}: {score_text(g['score'], g['weight'])}")
            failure.text = "\n".join(terminal_lines(g["detail"] or result["problems"]))
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)


def gradescope(result: dict[str, Any], folder: Path | None = None, limit: int | None = None) -> dict[str, Any]:
    """Gradescope's format. Gradescope sums the tests' scores; a hidden group's score and output
    are `after_due_date`, and the visible output (stdout, `output`) never names a hidden result.
    With the report folder, a group's pictures go into its output as HTML (output_format "html":
    the text in a <pre>, each picture a PNG data: URI), the visible groups' first, while the whole
    file stays within `limit` bytes (MAX_RESULTS_BYTES); a picture left out is named instead."""
    return _within(lambda images: _gradescope(result, images, folder), result, folder, limit)


def _gradescope(result: dict[str, Any], images: dict[str, list[tuple[str, str]]], folder: Path | None) -> dict[str, Any]:
    header = "\n".join(terminal_lines(result["problems"] + result["warnings"])) or f"lab {result['lab']}: {result['status']}"
    tests = []
    for g in result["groups"]:
        text = "\n".join(terminal_lines([g["covers"], *g["detail"], *left_out(g, images, folder)]))
        test = {
            "name": g["name"],
            "score": g["score"],
            "max_score": g["weight"],
            "status": "passed" if g["score"] >= g["weight"] else "failed",
            "output": text,
            "visibility": "after_due_date" if g["hidden"] else "visible",
        }
        if images.get(g["name"]):
            figures = "".join(f'<p>{html.escape(caption)}</p><img alt="{html.escape(caption)}" width="100%" src="{uri}">'
                              for caption, uri in images[g["name"]])  # width: an attribute survives Gradescope's sanitizer
            test.update(output=f"<pre>{html.escape(text)}</pre>{figures}", output_format="html")
        tests.append(test)
    return {"output": header, "stdout_visibility": "visible", "tests": tests}


def prairielearn(result: dict[str, Any], folder: Path | None = None, limit: int | None = None) -> dict[str, Any]:
    """PrairieLearn's format: score 0..1; a submission that cannot be graded is `gradable: false`
    with its problems as format errors, so it costs the student no attempt. PrairieLearn shows a
    student everything at once (it has no after-the-due-date visibility), so hidden groups are left
    out altogether, their points and pictures too; the instructor grades them after the deadline
    (make grade-all). With the report folder, a test's pictures are its `images` (PNG data: URIs),
    while the whole file stays within `limit` bytes (MAX_RESULTS_BYTES)."""
    if not result["gradable"]:
        return {"gradable": False, "format_errors": result["problems"]}
    shown = {**result, "groups": [g for g in result["groups"] if not g["hidden"]]}
    return _within(lambda images: _prairielearn(shown, images, folder), shown, folder, limit)


def _prairielearn(result: dict[str, Any], images: dict[str, list[tuple[str, str]]], folder: Path | None) -> dict[str, Any]:
    document: dict[str, Any] = {"gradable": True}
    most = sum(g["weight"] for g in result["groups"])
    document["score"] = round(sum(g["score"] for g in result["groups"]) / most, 6) if most else 0.0
    document["output"] = "\n".join(result["warnings"])
    document["tests"] = [{"name": g["name"], "points": g["score"], "max_points": g["weight"],
                          "output": "\n".join([*g["detail"], *left_out(g, images, folder)]), "message": g["status"],
                          **({"images": [{"label": caption, "url": uri} for caption, uri in images[g["name"]]]}
                             if images.get(g["name"]) else {})} for g in result["groups"]]
    return document


# A results file a platform reads, pictures included, at most: Gradescope and PrairieLearn each load
# it whole into a student's page (PrairieLearn refuses more than 1 MB). With pictures of about 15 to
# 40 kB each (PNG, 64 colours), four to eight fit; the rest are named in their group's output.
MAX_RESULTS_BYTES = 200_000
Images = dict[str, list[tuple[str, str]]]


def size(document: dict[str, Any]) -> int:
    """The bytes of a results file as write_all writes it."""
    return len((json.dumps(document, indent=2) + "\n").encode())


def _within(build: Callable[[Images], dict[str, Any]], result: dict[str, Any], folder: Path | None,
            limit: int | None) -> dict[str, Any]:
    """The document with as many of the groups' pictures as fit within the limit, visible groups
    first, each in turn: a picture that does not fit is left out (and named), a smaller one after it
    may still go in."""
    limit = MAX_RESULTS_BYTES if limit is None else limit
    images: Images = {}
    document = build(images)
    for name, caption, uri in pictures(result, folder):
        trial = {**images, name: [*images.get(name, []), (caption, uri)]}
        bigger = build(trial)
        if size(bigger) <= limit:
            images, document = trial, bigger
    return document


def pictures(result: dict[str, Any], folder: Path | None) -> list[tuple[str, str, str]]:
    """Every picture of the result the report folder holds, as (group, caption, PNG data: URI), visible groups first."""
    if folder is None:
        return []
    return [(g["name"], picture["caption"], data_uri(folder, picture["png"]))
            for g in sorted(result["groups"], key=lambda group: group["hidden"]) for picture in g.get("pictures", [])
            if (folder / picture["png"]).is_file()]


def data_uri(folder: Path, relative: str) -> str:
    """A PNG of the report folder as a data: URI, as Gradescope's HTML and PrairieLearn's images take it."""
    return "data:image/png;base64," + base64.b64encode((folder / relative).read_bytes()).decode("ascii")


def left_out(group: dict[str, Any], images: Images, folder: Path | None) -> list[str]:
    """A line for each of the group's pictures that a results file embedding pictures could not carry
    (beyond MAX_RESULTS_BYTES, or missing from the report folder)."""
    if folder is None:
        return []
    carried = {caption for caption, _ in images.get(group["name"], [])}
    return [f"picture not included in this results file (it would pass {MAX_RESULTS_BYTES // 1000} kB): {p['caption']}"
            for p in group.get("pictures", []) if p["caption"] not in carried]
