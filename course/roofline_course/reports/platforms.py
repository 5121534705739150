"""The result as each platform reads it: JUnit XML, Gradescope's results.json, PrairieLearn's.

Gradescope's and PrairieLearn's results carry a failing group's pictures inline (PNG data: URIs),
within MAX_EMBEDDED; a picture left out is named in its group's output.
"""

from __future__ import annotations

import base64
import html
import xml.etree.ElementTree as ET
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


def gradescope(result: dict[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """Gradescope's format. Gradescope sums the tests' scores; a hidden group's score and output
    are `after_due_date`, and the visible output (stdout, `output`) never names a hidden result.
    With the report folder, a group's pictures go into its output as HTML (output_format "html":
    the text in a <pre>, each picture a PNG data: URI), the visible groups' first."""
    header = "\n".join(terminal_lines(result["problems"] + result["warnings"])) or f"lab {result['lab']}: {result['status']}"
    images = embedded(result, folder)
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


def prairielearn(result: dict[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """PrairieLearn's format: score 0..1; a submission that cannot be graded is `gradable: false`
    with its problems as format errors, so it costs the student no attempt. PrairieLearn shows a
    student everything at once (it has no after-the-due-date visibility), so hidden groups are left
    out altogether, their points and pictures too; the instructor grades them after the deadline
    (make grade-all). With the report folder, a test's pictures are its `images` (PNG data: URIs)."""
    document: dict[str, Any] = {"gradable": result["gradable"]}
    if not result["gradable"]:
        document["format_errors"] = result["problems"]
        return document
    shown = [g for g in result["groups"] if not g["hidden"]]
    images = embedded({**result, "groups": shown}, folder)
    most = sum(g["weight"] for g in shown)
    document["score"] = round(sum(g["score"] for g in shown) / most, 6) if most else 0.0
    document["output"] = "\n".join(result["warnings"])
    document["tests"] = [{"name": g["name"], "points": g["score"], "max_points": g["weight"],
                          "output": "\n".join([*g["detail"], *left_out(g, images, folder)]), "message": g["status"],
                          **({"images": [{"label": caption, "url": uri} for caption, uri in images[g["name"]]]}
                             if images.get(g["name"]) else {})} for g in shown]
    return document
MAX_EMBEDDED = 600_000  # bytes of data: URIs a results file carries (PrairieLearn takes at most 1 MB in all)


def embedded(result: dict[str, Any], folder: Path | None) -> dict[str, list[tuple[str, str]]]:
    """Each group's pictures as (caption, PNG data: URI), visible groups first, while they fit in
    MAX_EMBEDDED; a picture left out stays in the report folder."""
    found: dict[str, list[tuple[str, str]]] = {}
    if folder is None:
        return found
    room = MAX_EMBEDDED
    for g in sorted(result["groups"], key=lambda group: group["hidden"]):
        for picture in g.get("pictures", []):
            if not (folder / picture["png"]).is_file():
                continue
            uri = data_uri(folder, picture["png"])
            if len(uri) > room:
                continue
            room -= len(uri)
            found.setdefault(g["name"], []).append((picture["caption"], uri))
    return found


def data_uri(folder: Path, relative: str) -> str:
    """A PNG of the report folder as a data: URI, as Gradescope's HTML and PrairieLearn's images take it."""
    return "data:image/png;base64," + base64.b64encode((folder / relative).read_bytes()).decode("ascii")


def left_out(group: dict[str, Any], images: dict[str, list[tuple[str, str]]], folder: Path | None) -> list[str]:
    """A line for each of the group's pictures that a results file embedding pictures could not carry
    (beyond MAX_EMBEDDED, or missing from the report folder)."""
    if folder is None:
        return []
    carried = {caption for caption, _ in images.get(group["name"], [])}
    return [f"picture not included in this results file: {p['caption']}"
            for p in group.get("pictures", []) if p["caption"] not in carried]
