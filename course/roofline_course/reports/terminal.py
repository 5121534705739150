"""The terminal's view of a result: the table of groups, each failing group's detail, where its pictures are.

Also score.txt, the same lines in the report folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from roofline_course.reports.neutralise import terminal_lines
from roofline_course.results import mark_text


def terminal(result: dict[str, Any], visible_only: bool = False) -> list[str]:
    """The table and each failing group's detail. visible_only: a student's view on a platform
    (Gradescope's stdout), which shows no hidden group and names no file of the grading machine."""
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
        score = f"{mark_text(g['score']):>5}/{g['weight']:<5g}"
        lines.append(f"  {g['name']:<{width}} {where:<7} {score}  {g['status']:<8} {g['covers']}")
    if not visible_only:
        lines.append(f"  {'total':<{width}} {'':<7} {mark_text(result['score']):>5}/{result['max_score']:<5g}")
    for g in result["groups"]:
        if visible_only and g["hidden"]:
            continue
        if g["detail"] and (g["status"] not in ("pass", "not run") or g["kind"] == "synthesis"):
            lines += ["", f"{g['name']} ({g['status']}):"] + [f"  {line}" for line in g["detail"]]
            if visible_only:
                continue  # a platform's page: the report folder stays on the grading machine, so name none of it
            if g["log"]:
                lines.append(f"  full simulator log: {g['log']} (in the report folder)")
            lines += picture_lines(g)
    return terminal_lines(lines)  # a name or a compile error with an ANSI escape shows as text


def picture_lines(group: dict[str, Any]) -> list[str]:
    """Where a group's pictures are, relative to the report folder."""
    return [f"  picture of {p['caption']}: {p['svg']} (and {Path(p['png']).name})" for p in group.get("pictures", [])]
