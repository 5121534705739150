"""`make grade-all LAB=<n> SUBMISSIONS=<folder>`: grade a whole class into one table and one page.

Every entry of the folder is one submission (a folder, a .sv/.v file or a .zip) and gets one
row, named exactly as the entry, whatever its characters; an entry that cannot be graded (a
hidden folder, some other file) gets a row that says why. Each submission is graded by its own
`make grade` process, in its own sandbox, several at a time (JOBS=). Results accumulate:
`STUDENT=<name>` regrades one submission and updates its row in place; every run's reports are
kept under runs/<time>/, and scores.csv and the dashboard always show each student's latest.

With CLUSTER=<Dask scheduler> (or local:K) each submission is a Dask task instead, graded by the
same `make grade` process and sandbox on a worker. The workers must see the class folder and the
output folder at the same paths (a shared filesystem) and run the same labs, reference and grader
as this machine: a worker that does not is refused with a line that names it. When a worker dies,
Dask grades its submissions again elsewhere; each gets exactly one row.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from queue import Queue
from typing import Any

from roofline_core.config import SIMS
from roofline_core.paths import BUILD_ROOT, REPO_ROOT, RTL_DIR
from roofline_core.workers import ClusterError, code_digest, connect, worker_count, worker_name

from . import dashboard, late, sandbox
from .grade import slug
from .labs import Lab, LabError, load_lab
from .reports import first_failure, first_problem

GRADABLE_SUFFIXES = (".sv", ".v", ".zip")
CALIBRATION = 5  # a simulation may take this many times what the reference takes
MIN_TIMEOUT_S = 10.0


def entries(folder: Path) -> list[Path]:
    return sorted(folder.iterdir(), key=lambda p: p.name)


def not_gradable(entry: Path) -> str | None:
    """Why an entry gets a row but no grade, or None when it is a submission."""
    if entry.name.startswith("."):
        return "a hidden entry (its name starts with a dot): not graded; rename it to grade it"
    if entry.is_symlink():
        return "a symbolic link: not graded"
    if entry.is_dir() or entry.suffix.lower() in GRADABLE_SUFFIXES:
        return None
    return f"not a folder, .sv, .v or .zip file ({entry.suffix or 'no extension'}): not graded"


def folder_name(name: str) -> str:
    """A folder per submission that no other name shares: readable part, then a digest of the exact name."""
    return f"{slug(name)[:40]}-{hashlib.sha1(name.encode()).hexdigest()[:8]}"


def grade_one(lab: Lab, entry: Path, out: Path, args: argparse.Namespace, slot: int) -> dict[str, Any]:
    command = [sys.executable, "-m", "roofline_course.grade", "--lab", str(lab.number), "--rtl", str(entry),
               "--out", str(out), "--quiet", "--sim", args.sim, "--slot", str(slot), "--parallel", "1"]
    command += ["--hidden", str(args.hidden)] if args.hidden else []
    command += ["--timeout", str(args.timeout)] if args.timeout else []
    command += ["--unsafe-no-sandbox"] if args.unsafe_no_sandbox else []
    limit_s = sum((args.timeout or lab.timeout_s) * (3 if g.kind == "synthesis" else 1) for g in lab.groups) + 180
    started = time.monotonic()
    try:
        run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=limit_s,
                             env={**os.environ, "ROOFLINE_BUILD": str(out / "build")}, preexec_fn=_die_with_parent)
    except subprocess.TimeoutExpired:
        return {"status": "grader timeout", "score": 0.0, "problem": f"grading took longer than {limit_s:.0f} s"}
    result_file = out / "result.json"
    if run.returncode not in (0, 1, 2) or not result_file.exists():
        tail = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"status": "grader error", "score": 0.0, "problem": f"exit {run.returncode}: {tail[0]}"}
    result = json.loads(result_file.read_text())
    return {"status": result["status"], "score": result["score"], "problem": first_problem(result),
            "first_failure": first_failure(result), "groups": {g["name"]: g["score"] for g in result["groups"]},
            "seconds": round(time.monotonic() - started, 1), "report": str(out / "score.txt"),
            "result": str(result_file)}


def _die_with_parent() -> None:
    """A grader whose parent (a Dask worker, say) is killed stops too, rather than grade on unseen."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def class_digest(lab: Lab) -> str:
    """What a grade depends on besides the submission: the lab, its hidden tests, the reference, the grader."""
    files = [*sorted(lab.folder.glob("*.toml")), *([lab.hidden_file] if lab.hidden_file else []), *sorted(RTL_DIR.glob("*.sv"))]
    return code_digest(files, ("roofline_course", "roofline_core", "roofline_tb", "roofline_golden"))


def grade_task(lab: Lab, entry: Path, out: Path, args: argparse.Namespace, digest: str) -> dict[str, Any]:
    """One submission, on a Dask worker: the same grade_one, after checking that this worker can."""
    worker = worker_name()
    if (found := class_digest(lab)) != digest:
        raise ClusterError(f"worker {worker} has other labs, reference or grader code than the client ({found} != {digest})")
    if not entry.exists() and not entry.is_symlink():
        raise ClusterError(f"worker {worker} cannot see {entry}: grading on a cluster needs a shared filesystem")
    shutil.rmtree(out, ignore_errors=True)  # what a killed earlier attempt left
    return {**grade_one(lab, entry, out, args, 1), "worker": worker}


def calibrated_timeout(lab: Lab, args: argparse.Namespace, out: Path,
                       grade: Callable[..., dict[str, Any]] = grade_one) -> float | None:
    """The time limit per simulation for this class: CALIBRATION x what the reference design takes,
    at least MIN_TIMEOUT_S and at most the lab's own limit, so a class with hanging designs
    does not wait out the lab's generous limit for each. None when rtl/ holds no reference."""
    if args.timeout or not (RTL_DIR / f"{lab.top}.sv").exists():
        return args.timeout
    probe = argparse.Namespace(**{**vars(args), "timeout": None})
    reference = grade(lab, RTL_DIR, out / "reference", probe, 0)
    if reference.get("score") != lab.max_score:
        print(f"note: the reference in rtl/ scores {reference.get('score')}: the lab's time limit stands", flush=True)
        return None
    slowest = max(json.loads(Path(reference["result"]).read_text())["groups"], key=lambda g: g["seconds"])["seconds"]
    return round(min(lab.timeout_s, max(MIN_TIMEOUT_S, CALIBRATION * slowest)), 1)


def load_rows(path: Path) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    with path.open(newline="") as handle:
        return {row["submission"]: row for row in csv.DictReader(handle)}


def write_rows(path: Path, lab: Lab, rows: dict[str, dict[str, str]]) -> None:
    groups = [g.name for g in lab.groups]
    columns = ["submission", "status", "score", "max_score", "percent", "late_days", "late_penalty", "final_score",
               *groups, "first problem", "first failing case", "seconds", "graded_at", "report"]
    temporary = path.with_suffix(".tmp")
    with temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        writer.writeheader()
        for name in sorted(rows):
            writer.writerow(rows[name])
    temporary.replace(path)  # a reader never sees half a table


def row_for(lab: Lab, name: str, graded: dict[str, Any], lateness: late.Lateness) -> dict[str, str]:
    score = float(graded.get("score", 0.0))
    final = lateness.apply(score)
    row = {"submission": name, "status": graded["status"], "score": f"{score:g}", "max_score": f"{lab.max_score:g}",
           "percent": f"{100 * score / lab.max_score:.1f}", "late_days": lateness.days_text,
           "late_penalty": f"{lateness.penalty:g}", "final_score": f"{final:g}",
           "first problem": graded.get("problem", ""), "first failing case": graded.get("first_failure", ""),
           "seconds": f"{graded.get('seconds', 0):g}", "graded_at": datetime.now(UTC).isoformat(timespec="seconds"),
           "report": graded.get("report", "")}
    for group in lab.groups:
        row[group.name] = f"{graded.get('groups', {}).get(group.name, 0):g}"
    return row


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make grade-all", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", type=int, required=True)
    parser.add_argument("--submissions", type=Path, required=True, help="a folder with one entry per student")
    parser.add_argument("--student", default=None, help="regrade only this entry (exactly as named) and update its row")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--sim", default="icarus", choices=SIMS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once (JOBS=)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per group (default: the lab's)")
    parser.add_argument("--out", type=Path, default=None, help="the class folder (default build/grade/labN-all)")
    parser.add_argument("--late-penalty", type=float, default=0.0, help="percent of the score lost per day late (LATE=)")
    parser.add_argument("--late-max-days", type=float, default=None, help="past this many days late, the score is 0")
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help="grade without bubblewrap: trusted code only")
    parser.add_argument("--cluster", default=None, help="grade on Dask: a scheduler address or file, or local:K (CLUSTER=)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        lab = load_lab(args.lab, args.hidden)
    except LabError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if not args.submissions.is_dir():
        print(f"error: SUBMISSIONS={args.submissions}: not a folder", file=sys.stderr)
        return 2
    if not args.unsafe_no_sandbox and (problem := sandbox.available()):
        print(f"error: grading runs student code in a sandbox, and {problem}", file=sys.stderr)
        return 2
    found = entries(args.submissions)
    if args.student is not None:
        found = [entry for entry in found if entry.name == args.student]
        if not found:
            print(f"error: STUDENT={args.student}: no entry of that exact name in {args.submissions}", file=sys.stderr)
            return 2
    if not found:
        print(f"error: SUBMISSIONS={args.submissions} is empty", file=sys.stderr)
        return 2
    out = (args.out or BUILD_ROOT / "grade" / f"lab{lab.number}-all").resolve()
    run_dir = out / "runs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    run_dir.mkdir(parents=True)
    jobs = max(1, args.jobs)
    client = None
    if args.cluster:
        try:
            client = connect(args.cluster)
        except ClusterError as problem:
            print(f"error: {problem}", file=sys.stderr)
            return 2
    where = f"on Dask ({args.cluster}, {worker_count(client)} worker(s))" if client else f"{jobs} at a time"
    print(f"make grade-all: lab {lab.number} ({lab.top}), {len(found)} entries, {where}; reports in {run_dir}", flush=True)
    try:
        return grade_class(lab, args, found, out, run_dir, client)
    finally:
        if client is not None:
            client.close()


def grade_class(lab: Lab, args: argparse.Namespace, found: list[Path], out: Path, run_dir: Path, client: Any) -> int:
    digest = class_digest(lab)

    def on_cluster(lab: Lab, entry: Path, folder: Path, args: argparse.Namespace, slot: int) -> dict[str, Any]:
        return client.submit(grade_task, lab, entry, folder, args, digest, pure=False).result()

    given = args.timeout
    args.timeout = calibrated_timeout(lab, args, run_dir, on_cluster if client else grade_one)
    source = ("TIMEOUT=" if given else f"{CALIBRATION}x the reference's slowest simulation, at least {MIN_TIMEOUT_S:g} s"
              if args.timeout else "the lab's")
    print(f"time limit per simulation: {args.timeout or lab.timeout_s:g} s ({source})", flush=True)
    policy = late.Policy(args.late_penalty, args.late_max_days)
    graded_entries = (graded_on_cluster(client, lab, found, run_dir, args, digest) if client
                      else graded_here(lab, found, run_dir, args))
    csv_path = out / "scores.csv"
    started = time.monotonic()
    for entry, graded in graded_entries:
        rows = load_rows(csv_path)  # re-read: the table holds every earlier run's rows too
        rows[entry.name] = row_for(lab, entry.name, graded, policy.lateness(entry))
        write_rows(csv_path, lab, rows)
        print(f"  {entry.name!r:<28} {graded['status']:<15} {graded['score']:6.1f}/{lab.max_score:g}  "
              f"{graded.get('problem', '')[:80]}", flush=True)
    page = dashboard.write(out, lab, load_rows(csv_path), args.submissions)
    print(f"graded {len(found)} in {time.monotonic() - started:.0f} s\nscores: {csv_path}\ndashboard: {page}")
    return 0


Graded = tuple[Path, dict[str, Any]]


def not_graded(entry: Path) -> Graded | None:
    reason = not_gradable(entry)
    return (entry, {"status": "not graded", "score": 0.0, "problem": reason}) if reason else None


def graded_here(lab: Lab, found: list[Path], run_dir: Path, args: argparse.Namespace) -> Iterator[Graded]:
    """JOBS= submissions at a time on this machine, each in its own sandbox slot; rows in name order."""
    jobs = max(1, args.jobs)
    slots: Queue[int] = Queue()
    for slot in range(jobs):
        slots.put(slot + 1)

    def work(entry: Path) -> Graded:
        if (row := not_graded(entry)) is not None:
            return row
        slot = slots.get()
        try:
            return entry, grade_one(lab, entry, run_dir / folder_name(entry.name), args, slot)
        finally:
            slots.put(slot)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(work, found)


def graded_on_cluster(client: Any, lab: Lab, found: list[Path], run_dir: Path, args: argparse.Namespace,
                      digest: str) -> Iterator[Graded]:
    """Each submission as a Dask task; rows as they finish. A task that fails outright (not a worker
    that died: Dask reruns those) gets a grader-error row that says why."""
    from distributed import as_completed

    futures = {}
    for entry in found:
        if (row := not_graded(entry)) is not None:
            yield row
            continue
        future = client.submit(grade_task, lab, entry, run_dir / folder_name(entry.name), args, digest, pure=False,
                               key=f"grade-{folder_name(entry.name)}-{run_dir.name}")
        futures[future] = entry
    for future in as_completed(futures):
        try:
            yield futures[future], future.result()
        except Exception as problem:
            yield futures[future], {"status": "grader error", "score": 0.0, "problem": f"{type(problem).__name__}: {problem}"}


if __name__ == "__main__":
    sys.exit(main())
