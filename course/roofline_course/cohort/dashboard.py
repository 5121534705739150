"""The class dashboard: one self-contained HTML page (no scripts, no files beside it), from templates.

Every number on it comes from the class's rows, the same rows scores.csv is written from, and
is counted once: the entries and their statuses (which add up to the entries), the scored
entries (every entry but those not graded or stopped by a grader error or timeout: the
histogram, the mean and the pass rates are over these), each score in one format. The
histogram has a bucket of its own for full marks. The most common problems are listed for every
kind, compile errors, forbidden calls, port mismatches, timeouts and value failures always (a
kind no student has says so). The similarity table covers every graded submission's staged
files, zips included, says how many pairs it leaves out, and similarity.csv holds them all.
Text students control is made printable, then HTML-escaped by jinja2's autoescaping.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from roofline_course.cohort.similarity import FLOOR, Similarity, similarity
from roofline_course.cohort.table import UNSCORED, VALUE_FAILURE, ordered
from roofline_course.intake.precheck import STAGES
from roofline_course.labs.definitions import Lab
from roofline_course.reports.neutralise import one_line, printable, spreadsheet_cell
from roofline_course.results import score_text

PAGE = "dashboard.html"
PAIRS_FILE = "similarity.csv"
PAIRS_SHOWN = 25
PROBLEMS_SHOWN = 8  # per kind
FIRST_PROBLEM_CHARS = 160
ALWAYS_SHOWN = (STAGES["compile"], STAGES["forbidden"], STAGES["ports"], "timeout", VALUE_FAILURE)
KIND_ORDER = (*STAGES.values(), "timeout", "crash", "error", VALUE_FAILURE)
BUCKETS = [f"{low}–{low + 9}" for low in range(0, 100, 10)] + ["100"]


def bucket(final: float, max_score: float) -> int:
    """Full marks have a bucket of their own; below, buckets of ten percent."""
    if final >= max_score:
        return len(BUCKETS) - 1
    return min(len(BUCKETS) - 2, int(100 * final / max_score // 10))


@dataclass(frozen=True)
class Bar:
    label: str
    count: int
    x: float
    y: float
    height: float


PLOT_TOP, PLOT_HEIGHT, PLOT_LEFT, SLOT_WIDTH, BAR_WIDTH = 24, 150, 56, 44, 38  # the histogram's geometry, px


def histogram(counts: list[int]) -> list[Bar]:
    tallest = max(counts) or 1
    bars = []
    for index, (label, count) in enumerate(zip(BUCKETS, counts, strict=True)):
        height = PLOT_HEIGHT * count / tallest
        x = PLOT_LEFT + index * SLOT_WIDTH + (SLOT_WIDTH - BAR_WIDTH) / 2
        bars.append(Bar(label, count, x, PLOT_TOP + PLOT_HEIGHT - height, height))
    return bars


def kind_rank(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index(kind), "") if kind in KIND_ORDER else (len(KIND_ORDER) + (kind in UNSCORED), kind)


def common_problems(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per kind of problem: how many entries have one, and its most common messages or cases."""
    by_kind: dict[str, Counter[str]] = {kind: Counter() for kind in ALWAYS_SHOWN}
    entries: Counter[str] = Counter()
    for row in rows:
        kinds = set()
        for kind, what in row["problems"]:
            by_kind.setdefault(kind, Counter())[what] += 1
            kinds.add(kind)
        entries.update(kinds)
    return [{"kind": kind, "entries": entries[kind], "total": len(counter),
             "top": [(printable(what), count) for what, count in sorted(counter.items(), key=lambda i: (-i[1], i[0]))
                     [:PROBLEMS_SHOWN]]}
            for kind, counter in sorted(by_kind.items(), key=lambda item: kind_rank(item[0]))]


def summary(lab: Lab, rows: dict[str, dict[str, Any]], similar: Similarity) -> dict[str, Any]:
    """Every number and line the page shows."""
    everyone = ordered(rows)
    scored = [row for row in everyone if row["status"] not in UNSCORED]
    counts = [0] * len(BUCKETS)
    for row in scored:
        counts[bucket(row["final_score"], lab.max_score)] += 1
    percents = [100 * row["final_score"] / lab.max_score for row in scored]
    statuses = sorted(Counter(row["status"] for row in everyone).items(), key=lambda item: (-item[1], item[0]))
    names = {row["id"]: printable(row["submission"]) for row in everyone}
    rates = []
    for group in lab.groups:
        if group.weight == 0:  # shown to students, never scored: no one earns its full marks, or misses them
            rates.append({"name": group.name, "hidden": group.hidden, "full": None, "rate": "not scored"})
            continue
        full = sum(1 for row in scored if row["groups"].get(group.name, 0.0) >= group.weight)
        rates.append({"name": group.name, "hidden": group.hidden, "full": full,
                      "rate": f"{100 * full / len(scored):.0f}%" if scored else "-"})
    return {
        "lab": lab, "entries": len(everyone), "statuses": statuses, "scored": len(scored),
        "unscored": len(everyone) - len(scored), "mean": f"{sum(percents) / len(percents):.1f}%" if percents else "-",
        "bars": histogram(counts), "tallest": max(counts), "plot_top": PLOT_TOP,
        "plot_bottom": PLOT_TOP + PLOT_HEIGHT, "bar_width": BAR_WIDTH, "rates": rates, "kinds": common_problems(everyone),
        "students": [{"id": row["id"], "name": names[row["id"]], "submitters": printable(row["submitters"]),
                      "status": printable(row["status"]), "score": score_text(row["final_score"], lab.max_score),
                      "scored": row["status"] not in UNSCORED,
                      "late": row["late_note"] if row["late_days"] is None else str(row["late_days"]),
                      "seconds": f"{row['seconds']:.1f} s", "problem": one_line(row["first_problem"])[:FIRST_PROBLEM_CHARS]}
                     for row in everyone],
        "pairs": [(f"{100 * pair.share:.0f}%", pair.tokens, names[pair.first], names[pair.second])
                  for pair in similar.pairs[:PAIRS_SHOWN]],
        "pairs_found": len(similar.pairs), "compared": len(similar.compared), "floor": f"{100 * FLOOR:.0f}%",
        "left_out": [(names[key], why) for key, why in similar.left_out], "pairs_file": PAIRS_FILE,
    }


def render(lab: Lab, rows: dict[str, dict[str, Any]], similar: Similarity) -> str:
    environment = Environment(loader=PackageLoader("roofline_course.cohort", "templates"), autoescape=True,
                              undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    return environment.get_template("dashboard.html.j2").render(summary(lab, rows, similar))


def compared_folders(rows: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The report folders of every graded submission, whatever its score (a copy that fails is a copy)."""
    return {row["id"]: row["folder"] for row in rows.values() if row["status"] not in UNSCORED and row["folder"]}


def write_pairs(path: Path, rows: dict[str, dict[str, Any]], similar: Similarity) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(["shared", "tokens", "submission", "submission"])
        for pair in similar.pairs:
            writer.writerow([f"{100 * pair.share:.0f}%", pair.tokens, spreadsheet_cell(rows[pair.first]["submission"]),
                             spreadsheet_cell(rows[pair.second]["submission"])])


def write(out: Path, lab: Lab, rows: dict[str, dict[str, Any]]) -> Path:
    similar = similarity(compared_folders(rows), lab.starter)
    write_pairs(out / PAIRS_FILE, rows, similar)
    page = out / PAGE
    page.write_text(render(lab, rows, similar), encoding="utf-8")
    return page
