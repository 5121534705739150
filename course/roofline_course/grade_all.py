"""`make grade-all LAB=<n> SUBMISSIONS=<folder of folders>`: grade a whole class, one CSV.

Each sub-folder is one student's submission. Each is graded by its own `make grade` process,
in its own build folder, several at a time; a submission that does not compile, hangs or
crashes the grader costs only its own row.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from roofline_tb.config import SIMS
from roofline_tb.paths import BUILD_ROOT, REPO_ROOT
from roofline_tb.sources import HDL_SUFFIXES

from .grade import slug
from .labs import LabError, load_lab


def submissions(folder: Path) -> list[Path]:
    """Every sub-folder (one per student), and any loose .sv/.v file as a one-file submission."""
    found = [p for p in sorted(folder.iterdir()) if not p.name.startswith(".")]
    return [p for p in found if p.is_dir() or p.suffix in HDL_SUFFIXES]


def grade_one(lab: int, submission: Path, out: Path, args: argparse.Namespace, limit_s: float) -> dict:
    command = [sys.executable, "-m", "roofline_course.grade", "--lab", str(lab), "--rtl", str(submission),
               "--out", str(out), "--quiet", "--sim", args.sim]
    if args.hidden:
        command += ["--hidden", str(args.hidden)]
    if args.timeout:
        command += ["--timeout", str(args.timeout)]
    started = time.monotonic()
    try:
        run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=limit_s,
                             env={**os.environ, "ROOFLINE_BUILD": str(out / "build")})
    except subprocess.TimeoutExpired:
        return {"status": "grader timeout", "score": 0.0, "problem": f"grading took longer than {limit_s:.0f} s"}
    summary_file = out / "summary.json"
    if run.returncode not in (0, 1) or not summary_file.exists():
        tail = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"status": "grader error", "score": 0.0, "problem": f"exit {run.returncode}: {tail[0]}"}
    summary = json.loads(summary_file.read_text())
    summary["seconds"] = time.monotonic() - started
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make grade-all", description=__doc__)
    parser.add_argument("--lab", type=int, required=True)
    parser.add_argument("--submissions", type=Path, required=True, help="a folder with one sub-folder per student")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--sim", default="icarus", choices=SIMS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per group (default: the lab's)")
    parser.add_argument("--out", type=Path, default=None, help="report folder (default build/grade/labN-all)")
    args = parser.parse_args(argv)
    try:
        lab = load_lab(args.lab, args.hidden)
    except LabError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not args.submissions.is_dir():
        print(f"error: SUBMISSIONS={args.submissions}: not a folder", file=sys.stderr)
        return 2
    found = submissions(args.submissions)
    if not found:
        print(f"error: SUBMISSIONS={args.submissions} holds no sub-folders or .sv/.v files", file=sys.stderr)
        return 2
    out = (args.out or BUILD_ROOT / "grade" / f"lab{lab.number}-all").resolve()
    # Generous: every group at its own time limit, plus compile and start-up.
    limit_s = sum((args.timeout or lab.timeout_s) * (3 if g.kind == "synthesis" else 1) for g in lab.groups) + 120
    print(f"make grade-all: lab {lab.number} ({lab.top}), {len(found)} submissions, {args.jobs} at a time", flush=True)
    names = [slug(p.stem if p.is_file() else p.name) for p in found]
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {name: pool.submit(grade_one, lab.number, path, out / name, args, limit_s)
                   for name, path in zip(names, found, strict=True)}
        rows = {}
        for name, future in futures.items():
            rows[name] = future.result()
            row = rows[name]
            print(f"  {name:<24} {row['status']:<15} {row['score']:6.1f}/{lab.max_score:g}  {row.get('problem', '')[:90]}",
                  flush=True)
    csv_path = out / "scores.csv"
    out.mkdir(parents=True, exist_ok=True)
    group_names = [g.name for g in lab.groups]
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["submission", "status", "score", "max_score", "percent", *group_names, "first problem"])
        for name, row in rows.items():
            groups = row.get("groups", {})
            writer.writerow([name, row["status"], f"{row['score']:g}", f"{lab.max_score:g}",
                             f"{100 * row['score'] / lab.max_score:.1f}", *(f"{groups.get(g, 0):g}" for g in group_names),
                             row.get("problem", "")])
    print(f"scores: {csv_path}\nper-submission reports: {out}/<submission>/ (score.txt, junit.xml, results.json)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
