"""One canonical result per grading run, and every report made from it.

`canonical` turns a Grade into plain data (result.json). The terminal table, JUnit XML,
Gradescope's results.json, PrairieLearn's results.json and the class CSV row are each a view of
that one document, so they cannot disagree. A hidden group's details (failing cases, seeds,
rerun lines, pictures) go only where they stay hidden until the due date. The pictures of a
failing group (pictures) are files of the report folder: result.json and the terminal name
them, Gradescope's and PrairieLearn's results carry the PNGs inline.
"""

from __future__ import annotations

import base64
import html
import json
import xml.etree.ElementTree as ET
from dataclasses import asdict
from pathlib import Path
from typing import Any

from roofline_course.neutralise import printable, terminal_lines
from roofline_course.results import Grade

SCHEMA = 1


def canonical(grade: Grade) -> dict[str, Any]:
    check = grade.check
    groups = [{
        "name": s.group.name, "hidden": s.group.hidden, "kind": s.group.kind, "covers": s.group.covers,
        "weight": s.group.weight, "score": round(s.score, 3), "status": s.status, "scoring": s.group.scoring,
        "detail": s.detail, "failing": s.failing, "rerun": s.rerun, "log": s.log, "seconds": round(s.seconds, 2),
        "pictures": [asdict(picture) for picture in s.pictures],
    } for s in grade.scores]
    return {
        "schema": SCHEMA, "lab": grade.lab.number, "title": grade.lab.title, "top": grade.lab.top,
        "submission": grade.submission, "sim": grade.sim, "status": grade.status, "gradable": grade.gradable,
        "score": round(grade.score, 3), "max_score": grade.lab.max_score, "stage": check.stage,
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


def terminal(result: dict[str, Any], visible_only: bool = False) -> list[str]:
    lines = [f"lab {result['lab']}: {result['title']} ({result['top']})", f"submission: {result['submission']}"]
    if not result["gradable"]:
        lines += ["", result["status"].upper() + ":"] + [f"  {p}" for p in result["problems"]]
    lines += [w if w.startswith(("ignored:", "note:")) else f"note: {w}" for w in result["warnings"]]
    lines += [f"note: {n}" for n in result["notes"]]
    width = max(len(g["name"]) for g in result["groups"]) + 2
    lines += ["", f"  {'group':<{width}} {'':<7} {'score':>11}  {'status':<8} covers"]
    for g in result["groups"]:
        where = "hidden" if g["hidden"] else "visible"
        if visible_only and g["hidden"]:
            lines.append(f"  {g['name']:<{width}} {where:<7} {'':>11}  {'':<8} (after the due date)")
            continue
        lines.append(f"  {g['name']:<{width}} {where:<7} {g['score']:5.1f}/{g['weight']:<5g}  {g['status']:<8} {g['covers']}")
    if not visible_only:
        lines.append(f"  {'total':<{width}} {'':<7} {result['score']:5.1f}/{result['max_score']:<5g}")
    for g in result["groups"]:
        if visible_only and g["hidden"]:
            continue
        if g["detail"] and (g["status"] not in ("pass", "not run") or g["kind"] == "synthesis"):
            lines += ["", f"{g['name']} ({g['status']}):"] + [f"  {line}" for line in g["detail"]]
            if g["log"]:
                lines.append(f"  full simulator log: {g['log']} (in the report folder)")
            lines += picture_lines(g)
    return terminal_lines(lines)  # a name or a compile error with an ANSI escape shows as text


def picture_lines(group: dict[str, Any]) -> list[str]:
    """Where a group's pictures are, relative to the report folder."""
    return [f"  picture of {p['caption']}: {p['svg']} (and {Path(p['png']).name})" for p in group.get("pictures", [])]


def junit(result: dict[str, Any], path: Path) -> None:
    root = ET.Element("testsuites")
    failures = sum(g["score"] < g["weight"] for g in result["groups"])
    suite = ET.SubElement(root, "testsuite", name=f"lab{result['lab']}", tests=str(len(result["groups"])),
                          failures=str(failures))
    for g in result["groups"]:
        case = ET.SubElement(suite, "testcase", classname=f"lab{result['lab']}.{'hidden' if g['hidden'] else 'visible'}",
                             name=printable(g["name"]), time=f"{g['seconds']:.1f}")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="score", value=f"{g['score']:g}")
        ET.SubElement(props, "property", name="weight", value=f"{g['weight']:g}")
        if g["score"] < g["weight"]:
            failure = ET.SubElement(case, "failure", message=f"{g['status']}: {g['score']:g}/{g['weight']:g}")
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


def write_all(result: dict[str, Any], out: Path) -> dict[str, Path]:
    paths = {"result": out / "result.json", "junit": out / "junit.xml", "gradescope": out / "gradescope.json",
             "prairielearn": out / "prairielearn.json", "table": out / "score.txt"}
    paths["result"].write_text(json.dumps(result, indent=2) + "\n")
    junit(result, paths["junit"])
    paths["gradescope"].write_text(json.dumps(gradescope(result, out), indent=2) + "\n")
    paths["prairielearn"].write_text(json.dumps(prairielearn(result, out), indent=2) + "\n")
    paths["table"].write_text("\n".join(terminal(result)) + "\n")
    return paths
