"""The class dashboard: one self-contained HTML page (no scripts, no files beside it).

It shows the score histogram, each group's pass rate, the most common first failures across
the class by case name, every student's status and time, and a similarity table of the
submissions' design files. Similarity comes from copydetect's winnowed fingerprints (it
tokenizes Verilog), with the lab's starter as boilerplate, so shared starter code does not count.
"""

from __future__ import annotations

import html
import io
from collections import Counter
from itertools import combinations
from pathlib import Path

from .intake import HDL_SUFFIXES
from .labs import Lab

BINS = 10
SIMILARITY_SHOWN = 25
SIMILARITY_FLOOR = 0.5  # pairs below this share of tokens are not listed
NOISE_TOKENS = 25  # copydetect's k: shorter shared runs do not count


def _design_text(entry: Path) -> str:
    if entry.is_file():
        return entry.read_text(errors="replace") if entry.suffix in HDL_SUFFIXES else ""
    if not entry.is_dir():
        return ""
    files = sorted(p for p in entry.rglob("*") if p.suffix in HDL_SUFFIXES and p.is_file() and not p.is_symlink())
    return "\n".join(p.read_text(errors="replace") for p in files)


def similarity(submissions: Path, names: list[str], starter: Path) -> list[tuple[float, str, str]]:
    """(share of tokens in common, name, name) for the most similar pairs, highest first."""
    try:
        from copydetect import CodeFingerprint, compare_files
    except ImportError:
        return []
    boilerplate = CodeFingerprint("starter.sv", NOISE_TOKENS, 1, fp=io.StringIO(_design_text(starter))).hashes
    prints = {}
    for name in names:
        text = _design_text(submissions / name)
        if text.strip():
            prints[name] = CodeFingerprint("design.sv", NOISE_TOKENS, 1, boilerplate=list(boilerplate), fp=io.StringIO(text))
    pairs = []
    for first, second in combinations(sorted(prints), 2):
        _, shares, _ = compare_files(prints[first], prints[second])
        share = float(max(shares))
        if share >= SIMILARITY_FLOOR:
            pairs.append((share, first, second))
    return sorted(pairs, reverse=True)[:SIMILARITY_SHOWN]


def _histogram(percents: list[float]) -> str:
    counts = [0] * BINS
    for percent in percents:
        counts[min(BINS - 1, int(percent // (100 / BINS)))] += 1
    top = max(counts) or 1
    width, height, bar = 440, 160, 40
    bars = []
    for index, count in enumerate(counts):
        h = int((height - 40) * count / top)  # room above the tallest bar for its count
        x = 10 + index * (bar + 3)
        bars.append(f'<rect x="{x}" y="{height - 20 - h}" width="{bar}" height="{h}" fill="#4a78b5">'
                    f"<title>{index * 10}-{index * 10 + 10}%: {count}</title></rect>"
                    f'<text x="{x + bar / 2}" y="{height - 24 - h}" font-size="11" text-anchor="middle">{count or ""}</text>'
                    f'<text x="{x + bar / 2}" y="{height - 6}" font-size="10" text-anchor="middle">{index * 10}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
            f'aria-label="score histogram">{"".join(bars)}</svg>')


def _table(head: list[str], rows: list[list[str]]) -> str:
    header = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows)
    return f"<table><tr>{header}</tr>{body}</table>"


def render(lab: Lab, rows: dict[str, dict[str, str]], pairs: list[tuple[float, str, str]]) -> str:
    graded = [row for row in rows.values() if row["status"] not in ("not graded", "grader error", "grader timeout")]
    percents = [float(row["percent"]) for row in graded]
    mean = sum(percents) / len(percents) if percents else 0.0
    rates = []
    for group in lab.groups:
        full = sum(1 for row in graded if float(row.get(group.name) or 0) >= group.weight)
        rates.append([html.escape(group.name), "hidden" if group.hidden else "visible",
                      f"{full}/{len(graded)}", f"{100 * full / len(graded):.0f}%" if graded else "-"])
    failures = Counter(row["first failing case"] for row in rows.values() if row.get("first failing case"))
    problems = Counter(row["status"] for row in rows.values())
    students = [[html.escape(name), html.escape(row["status"]), f"{float(row['final_score'] or 0):g}/{row['max_score']}",
                 html.escape(row.get("late_days", "")), f"{row.get('seconds', '')} s",
                 html.escape(row.get("first problem", ""))[:160]] for name, row in sorted(rows.items())]
    similar = [[f"{100 * share:.0f}%", html.escape(a), html.escape(b)] for share, a, b in pairs]
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Lab {lab.number}: class dashboard</title>
<style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}}
table{{border-collapse:collapse;margin:.5em 0 1.5em}} td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left;
vertical-align:top}} th{{background:#f2f2f2}} h2{{margin-top:1.5em}}</style></head><body>
<h1>Lab {lab.number}: {html.escape(lab.title)}</h1>
<p>{len(rows)} entries, {len(graded)} graded; mean {mean:.1f}%; statuses:
{", ".join(f"{html.escape(k)} {v}" for k, v in problems.most_common())}.</p>
<h2>Scores</h2>{_histogram(percents)}
<h2>Pass rate per group</h2>{_table(["group", "", "full marks", "rate"], rates)}
<h2>Most common first failures</h2>{_table(["first failing case", "students"],
    [[html.escape(case), str(count)] for case, count in failures.most_common(15)]) if failures else "<p>None.</p>"}
<h2>Students</h2>{_table(["submission", "status", "score", "days late", "time", "first problem"], students)}
<h2>Similar submissions</h2>
<p>Pairs sharing at least {100 * SIMILARITY_FLOOR:.0f}% of their tokens (copydetect, the starter as boilerplate).
A high share is a reason to look, not a verdict.</p>
{_table(["shared", "submission", "submission"], similar) if similar else "<p>No pair above the threshold.</p>"}
</body></html>
"""


def write(out: Path, lab: Lab, rows: dict[str, dict[str, str]], submissions: Path) -> Path:
    names = [name for name, row in rows.items() if row["status"] != "not graded" and (submissions / name).exists()]
    page = out / "dashboard.html"
    page.write_text(render(lab, rows, similarity(submissions, names, lab.starter)))
    return page
