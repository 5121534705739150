"""`make grade-all LAB=<n> SUBMISSIONS=<folder>`: grade a whole class into one table and one page.

Every entry of the folder is one submission in any form `make check` takes for the lab (a folder,
a .zip, or one file: a .sv/.v design, or a lab 6 testbench's .py) and gets one row, named exactly
as the entry, whatever its bytes; an entry that cannot be graded (a hidden
folder, some other file) gets a row that says why, and so does one whose grading failed (a
grader error or timeout): no entry stops the class. Each submission is graded by its own
`make grade` process, in its own sandbox, several at a time (JOBS=). Results accumulate:
`STUDENT=<name>` regrades one submission and updates its row in place; every run's reports are
kept under runs/<time>/, and scores.csv and the dashboard always show each student's latest.
The class has one time limit, chosen by its first run and recorded (see calibration).
Lateness comes from the platform's metadata beside the submissions, never from inside one (late).

With CLUSTER=<Dask scheduler> (or local:K) each submission is a Dask task instead, graded by the
same `make grade` process and sandbox on a worker. The workers must see the class folder and the
output folder at the same paths (a shared filesystem) and run the same labs, reference and grader
as this machine: a worker that does not is refused with a line that names it. When a worker dies,
Dask grades its submissions again elsewhere; each gets exactly one row.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from queue import Queue
from typing import Any

from roofline_core.config import DEFAULT_SIM, SIMS
from roofline_core.paths import BUILD_ROOT, REPO_ROOT, RTL_DIR
from roofline_core.workers import ClusterError, code_digest, connect, worker_count, worker_name
from roofline_course import sandbox
from roofline_course.cohort import calibration, dashboard, lateness, table
from roofline_course.cohort.table import Graded, entry_id, failed
from roofline_course.intake import testbench
from roofline_course.intake.submission import HDL_SUFFIXES
from roofline_course.labs.definitions import Lab, LabError, load_lab
from roofline_course.reports.neutralise import one_line, printable

ARCHIVE = ".zip"
GRADER_SLACK_S = 180  # what grading a submission may take beyond its simulations' limits
GRADER = ("-m", "roofline_course.grade")  # `make grade`: grades one entry into <out>/result.json


def entries(folder: Path) -> list[Path]:
    """The class folder's entries, less the platform's metadata file beside them (not a submission)."""
    found = [p for p in folder.iterdir() if not (p.name == lateness.EXPORT_METADATA and p.is_file())]
    return sorted(found, key=lambda p: os.fsencode(p.name))


def file_forms(lab: Lab) -> tuple[str, ...]:
    """The files (besides a folder) that the lab's intake takes as a submission, as `make check` does."""
    return (*(testbench.FILE_SUFFIXES if lab.kind == "testbench" else HDL_SUFFIXES), ARCHIVE)


def not_gradable(entry: Path, lab: Lab) -> str | None:
    """Why an entry gets a row but no grade, or None when it is a submission."""
    if entry.name.startswith("."):
        return "a hidden entry (its name starts with a dot): not graded; rename it to grade it"
    if entry.is_symlink():
        return "a symbolic link: not graded"
    forms = file_forms(lab)
    if entry.is_dir() or entry.suffix.lower() in forms:
        return None
    return f"not a folder, {', '.join(forms[:-1])} or {forms[-1]} file ({entry.suffix or 'no extension'}): not graded"


def grade_one(lab: Lab, entry: Path, out: Path, args: argparse.Namespace, slot: int) -> Graded:
    command = [sys.executable, *GRADER, "--lab", str(lab.number), "--rtl", str(entry),
               "--out", str(out), "--quiet", "--sim", args.sim, "--slot", str(slot), "--parallel", "1"]
    command += ["--hidden", str(args.hidden)] if args.hidden else []
    command += ["--timeout", str(args.timeout)] if args.timeout else []
    command += ["--unsafe-no-sandbox"] if args.unsafe_no_sandbox else []
    # A group runs once (three times as long for synthesis), a testbench lab's group once per design.
    limit_s = sum((args.timeout or lab.timeout_s) * (3 if g.kind == "synthesis" else max(1, len(g.designs)))
                  for g in lab.groups) + GRADER_SLACK_S
    started = time.monotonic()
    try:
        run = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, errors="replace", timeout=limit_s,
                             env={**os.environ, "ROOFLINE_BUILD": str(out / "build")}, preexec_fn=_die_with_parent)
    except subprocess.TimeoutExpired:
        return failed(table.GRADER_TIMEOUT, f"grading took longer than {limit_s:.0f} s")
    result_file = out / "result.json"
    if run.returncode not in (0, 1, 2) or not result_file.exists():
        tail = (run.stderr or run.stdout).strip().splitlines()[-1:] or ["no output"]
        return failed(table.GRADER_ERROR, f"exit {run.returncode}: {tail[0]}")
    try:
        return table.read_result(lab, result_file, time.monotonic() - started)
    except table.ResultError as problem:
        return failed(table.GRADER_ERROR, f"the grader's result.json: {problem}")


def _die_with_parent() -> None:
    """A grader whose parent (a Dask worker, say) is killed stops too, rather than grade on unseen."""
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def class_digest(lab: Lab) -> str:
    """What a grade depends on besides the submission: the lab, its hidden tests, the reference, the grader."""
    files = [*sorted(lab.folder.glob("*.toml")), *([lab.hidden_file] if lab.hidden_file else []), *sorted(RTL_DIR.glob("*.sv"))]
    return code_digest(files, ("roofline_course", "roofline_core", "roofline_cocotb", "roofline_golden"))


def grade_task(lab: Lab, entry: Path, out: Path, args: argparse.Namespace, digest: str) -> Graded:
    """One submission, on a Dask worker: the same grade_one, after checking that this worker can."""
    worker = worker_name()
    if (found := class_digest(lab)) != digest:
        raise ClusterError(f"worker {worker} has other labs, reference or grader code than the client ({found} != {digest})")
    if not entry.exists() and not entry.is_symlink():
        raise ClusterError(f"worker {worker} cannot see {entry}: grading on a cluster needs a shared filesystem")
    shutil.rmtree(out, ignore_errors=True)  # what a killed earlier attempt left
    return grade_one(lab, entry, out, args, 1)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make grade-all", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", type=int, required=True)
    parser.add_argument("--submissions", type=Path, required=True, help="a folder with one entry per student")
    parser.add_argument("--student", default=None,
                        help="regrade only this entry (its exact name, or its name or id as scores.csv shows them)")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--sim", default=DEFAULT_SIM, choices=SIMS)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once (JOBS=)")
    parser.add_argument("--timeout", type=float, default=None,
                        help="the class's time limit per simulation, in seconds (TIMEOUT=; default: calibrated once, recorded)")
    parser.add_argument("--out", type=Path, default=None, help="the class folder (default build/grade/labN-all)")
    parser.add_argument("--metadata", type=Path, default=None,
                        help=f"the platform's metadata (METADATA=; default: {lateness.EXPORT_METADATA} in SUBMISSIONS)")
    parser.add_argument("--due", default=None, help="the due date, ISO 8601 with a time zone (DUE=)")
    parser.add_argument("--late-penalty", type=float, default=0.0, help="percent of the score lost per day late (LATE=)")
    parser.add_argument("--late-max-days", type=float, default=None, help="past this many days late, the score is 0")
    parser.add_argument("--unsafe-no-sandbox", action="store_true", help="grade without bubblewrap: trusted code only")
    parser.add_argument("--cluster", default=None, help="grade on Dask: a scheduler address or file, or local:K (CLUSTER=)")
    return parser.parse_args(argv)


class UsageError(ValueError):
    """A command that cannot run as given; the message is its one-line error."""


def chosen_entries(args: argparse.Namespace) -> list[Path]:
    found = entries(args.submissions)
    if args.student is not None:
        exact = [entry for entry in found if entry.name == args.student]
        found = exact or [entry for entry in found if args.student in (printable(entry.name), entry_id(entry.name))]
        if not found:
            raise UsageError(f"STUDENT={printable(args.student)}: no entry of that name in {args.submissions}")
        if len(found) > 1:
            raise UsageError(f"STUDENT={printable(args.student)}: {len(found)} entries print as that name; "
                             f"give one's id from scores.csv ({', '.join(entry_id(e.name) for e in found)})")
    if not found:
        raise UsageError(f"SUBMISSIONS={args.submissions} is empty")
    return found


def late_policy(args: argparse.Namespace) -> tuple[lateness.Policy, dict[str, dict[str, Any]]]:
    """The late policy and the platform's records by entry name (none without its metadata)."""
    metadata = args.metadata or args.submissions / lateness.EXPORT_METADATA
    records = lateness.load_export(metadata) if args.metadata or metadata.is_file() else {}
    try:
        due = lateness.parse_time(args.due, "DUE=") if args.due else None
    except ValueError as problem:
        raise UsageError(f"{problem}: give it as 2026-11-01T23:59:00-05:00") from None
    if (args.late_penalty or args.late_max_days is not None) and not (records and due):
        raise UsageError(f"LATE= needs the platform's metadata ({metadata}: "
                         f"{'found' if records else 'none'}) and DUE= ({args.due or 'not given'})")
    return lateness.Policy(args.late_penalty, args.late_max_days, due), records


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        lab = load_lab(args.lab, args.hidden)
        if not args.submissions.is_dir():
            raise UsageError(f"SUBMISSIONS={args.submissions}: not a folder")
        if not args.unsafe_no_sandbox and (problem := sandbox.available()):
            raise UsageError(f"grading runs student code in a sandbox, and {problem}")
        found = chosen_entries(args)
        policy, records = late_policy(args)
        out = (args.out or BUILD_ROOT / "grade" / f"lab{lab.number}-all").resolve()
        out.mkdir(parents=True, exist_ok=True)
        table.load_rows(out)  # an unreadable table stops the run before any grading, not after
        client = connect(args.cluster) if args.cluster else None
    except (LabError, UsageError, lateness.MetadataError, table.TableError, ClusterError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    run_dir = out / "runs" / datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    run_dir.mkdir(parents=True)
    where = f"on Dask ({args.cluster}, {worker_count(client)} worker(s))" if client else f"{max(1, args.jobs)} at a time"
    print(f"make grade-all: lab {lab.number} ({lab.top}), {len(found)} entries, {where}; reports in {run_dir}", flush=True)
    try:
        return grade_class(lab, args, found, out, run_dir, client, policy, records)
    except calibration.CalibrationError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    finally:
        if client is not None:
            client.close()


def time_limit(lab: Lab, args: argparse.Namespace, out: Path, run_dir: Path, client: Any, digest: str
               ) -> calibration.TimeLimit:
    def grade_reference() -> dict[str, Any]:
        probe = argparse.Namespace(**{**vars(args), "timeout": None})
        folder = run_dir / "reference"
        graded = (client.submit(grade_task, lab, lab.reference, folder, probe, digest, pure=False).result() if client
                  else grade_one(lab, lab.reference, folder, probe, 0))
        return {"score": graded.score if graded.status not in table.UNSCORED else None, "result": str(folder / "result.json")}

    return calibration.class_limit(out, args.sim, args.timeout, args.student is not None, lab.timeout_s, lab.max_score,
                                   lab.has_reference, grade_reference)


def grade_class(lab: Lab, args: argparse.Namespace, found: list[Path], out: Path, run_dir: Path, client: Any,
                policy: lateness.Policy, records: dict[str, dict[str, Any]]) -> int:
    digest = class_digest(lab)
    limit = time_limit(lab, args, out, run_dir, client, digest)
    args.timeout = limit.seconds
    print(f"time limit per simulation: {limit.describe()}; recorded in {out / calibration.RECORD}", flush=True)
    graded_entries = (graded_on_cluster(client, lab, found, run_dir, args, digest) if client
                      else graded_here(lab, found, run_dir, args))
    started = time.monotonic()
    for entry, graded in graded_entries:
        record = records.get(entry.name)
        row = table.make_row(lab, entry.name, graded, policy.lateness(record), lateness.submitters(record), limit.seconds)
        with table.locked(out):
            rows = table.load_rows(out)  # re-read: another run may have written rows meanwhile
            rows[row["id"]] = row
            table.save_rows(out, lab, rows)
        score = dashboard.score_text(row["final_score"], lab.max_score) if graded.status not in table.UNSCORED else "-"
        print(f"  {printable(entry.name):<28} {printable(graded.status):<15} {score:>11}  "
              f"{one_line(graded.problem)[:80]}", flush=True)
    page = dashboard.write(out, lab, table.load_rows(out))
    print(f"graded {len(found)} in {time.monotonic() - started:.0f} s\nscores: {out / 'scores.csv'}\ndashboard: {page}")
    return 0


Entry = tuple[Path, Graded]


def not_graded(entry: Path, lab: Lab) -> Entry | None:
    reason = not_gradable(entry, lab)
    return (entry, failed(table.NOT_GRADED, reason)) if reason else None


def graded_here(lab: Lab, found: list[Path], run_dir: Path, args: argparse.Namespace) -> Iterator[Entry]:
    """JOBS= submissions at a time on this machine, each in its own sandbox slot; rows in name order."""
    jobs = max(1, args.jobs)
    slots: Queue[int] = Queue()
    for slot in range(jobs):
        slots.put(slot + 1)

    def work(entry: Path) -> Entry:
        try:
            if (row := not_graded(entry, lab)) is not None:
                return row
            slot = slots.get()
            try:
                return entry, grade_one(lab, entry, run_dir / entry_id(entry.name), args, slot)
            finally:
                slots.put(slot)
        except Exception as problem:  # noqa: BLE001 - one entry's failure is its row's status, never the class's
            return entry, failed(table.GRADER_ERROR, f"{type(problem).__name__}: {problem}")

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(work, found)


def graded_on_cluster(client: Any, lab: Lab, found: list[Path], run_dir: Path, args: argparse.Namespace,
                      digest: str) -> Iterator[Entry]:
    """Each submission as a Dask task; rows as they finish. A task that fails outright (not a worker
    that died: Dask reruns those) gets a grader-error row that says why."""
    from distributed import as_completed

    futures = {}
    for entry in found:
        if (row := not_graded(entry, lab)) is not None:
            yield row
            continue
        future = client.submit(grade_task, lab, entry, run_dir / entry_id(entry.name), args, digest, pure=False,
                               key=f"grade-{entry_id(entry.name)}-{run_dir.name}")
        futures[future] = entry
    for future in as_completed(futures):
        try:
            yield futures[future], future.result()
        except Exception as problem:  # noqa: BLE001 - as above: the row says why
            yield futures[future], failed(table.GRADER_ERROR, f"{type(problem).__name__}: {problem}")


if __name__ == "__main__":
    sys.exit(main())
