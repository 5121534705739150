"""`make grade LAB=<n> RTL=<file, folder or .zip>`: grade one submission of a course lab.

A design lab (labs 1 to 5) is graded by design_lab, a testbench lab (lab 6) by testbench_lab;
this module reads the command line, sets up the sandbox, dispatches, and writes the reports. One
canonical result (result.json) feeds every report: the terminal, JUnit XML, Gradescope,
PrairieLearn and the class CSV. `make check` runs only the groups students can see.

Exit status: 0 full marks, 1 fewer marks, 2 could not grade (no files, a compile error, a
construct the grader does not run, a missing port, a resource limit) or a wrong command. The
last line says which.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from roofline_core.config import DEFAULT_SIM, SIMS
from roofline_core.paths import BUILD_ROOT, LABS_DIR, RTL_DIR
from roofline_core.tools import ToolError
from roofline_course import sandbox
from roofline_course.design_lab import grade as design_lab
from roofline_course.design_lab import hints
from roofline_course.labs.definitions import Lab, LabError, load_lab
from roofline_course.reports.neutralise import slug
from roofline_course.reports.result import canonical, write_all
from roofline_course.reports.terminal import terminal
from roofline_course.results import Grade, score_text, total
from roofline_course.testbench_lab import grade as testbench_lab


def default_out(lab: Lab, rtl: str) -> Path:
    path = Path(rtl).expanduser().resolve()
    return BUILD_ROOT / "grade" / f"lab{lab.number}" / slug(path.stem if path.is_file() else path.name)


def grade(lab: Lab, rtl: str, out: Path, settings: design_lab.Settings, progress: bool = True) -> Grade:
    """The lab's grading of one submission: a design, or (lab 6) a testbench."""
    if lab.kind == "testbench":
        return testbench_lab.grade(lab, rtl, out, limits=settings.limits, unsafe=settings.unsafe, slot=settings.slot,
                                   parallel=settings.parallel, progress=progress)
    return design_lab.grade(lab, rtl, out, settings, progress)


def exit_status(result: Grade) -> int:
    if not result.gradable:
        return 2
    return 0 if result.score >= result.lab.max_score else 1


def final_line(result: Grade, student_view: bool = False) -> str:
    """The verdict line, from the marks every report shows (results.shown_marks). A student's view
    counts the visible groups only: a total with the hidden groups in it would tell, before the
    due date, how the hidden groups went."""
    status = exit_status(result)
    if status == 2:
        return f"could not grade: {result.status} (exit 2); the problem is above"
    if student_view and any(s.group.hidden for s in result.scores):
        visible = [s for s in result.scores if not s.group.hidden]
        shown = score_text(total([s.marks for s in visible]), sum(s.group.weight for s in visible))
        return f"graded: {shown} in the visible groups; the hidden groups are shown after the due date"
    verdict = "fewer than full marks (exit 1)" if status == 1 else "full marks (exit 0)"
    return f"graded: {score_text(result.score, result.lab.max_score)}, {verdict}"


def guard_for_the_uid_isolation(lab: Lab) -> None:
    """Without namespaces the sandbox user sees the machine's files: the grader's own files become
    unreadable to other users (umask), and so do what no step may see (sandbox.NEVER_SEEN: the labs,
    the reference RTL, the tests, the formal reference, the mutant list) and the reports of other runs."""
    os.umask(0o077)
    sandbox.protect([*sandbox.NEVER_SEEN, LABS_DIR, RTL_DIR, BUILD_ROOT / "grade",
                     *([lab.hidden_file] if lab.hidden_file else [])])
    for needed in sandbox.step_paths():  # what a step runs: searchable folders down to it (never listable)
        sandbox.passable(needed)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", type=int, required=True, help="the lab number (LAB=)")
    parser.add_argument("--rtl", "--tb", dest="rtl", required=True,
                        help="the submission: a .sv/.v file, a folder, or a .zip (RTL=); a testbench lab's testbench (TB=)")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--visible-only", action="store_true", help="only the groups students see (make check)")
    parser.add_argument("--sim", default=DEFAULT_SIM, choices=SIMS)
    parser.add_argument("--out", type=Path, default=None, help="report folder (default build/grade/labN/<submission>)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per group")
    parser.add_argument("--quiet", action="store_true", help="no table on the terminal (grade-all)")
    parser.add_argument("--student-view", action="store_true",
                        help="the terminal shows the visible groups only (Gradescope's stdout, which students see)")
    parser.add_argument("--rerun-rtl", default="", metavar="NAME",
                        help="what rerun lines call the submission (a platform: '<your folder>'); default the path given")
    parser.add_argument("--slot", type=int, default=0, help=argparse.SUPPRESS)  # grade-all: a sandbox user per worker
    parser.add_argument("--parallel", type=int, default=design_lab.PARALLEL,
                        help="simulations of this submission run at once (grade-all uses 1 per submission)")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade without bubblewrap: only for code you trust; student code must not run this way")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        lab = load_lab(args.lab, args.hidden, with_hidden=not args.visible_only)
    except LabError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if lab.kind == "design" and (unworded := hints.unknown_kinds(lab.hints, lab.top)):
        print(f"error: labs/lab{lab.number}/lab.toml: hints {', '.join(unworded)} have no words for {lab.top}",
              file=sys.stderr)
        return 2
    if not args.unsafe_no_sandbox and (problem := sandbox.available()):
        print(f"error: grading runs student code in a sandbox, and {problem}", file=sys.stderr)
        return 2
    try:
        sandbox.simulator_env(args.sim == "verilator")
    except (sandbox.SandboxUnavailable, ToolError) as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.timeout:
        lab = replace(lab, timeout_s=args.timeout)
    sandbox.compile_bytecode()  # before the uid isolation's umask: a step must be able to read it
    if args.sim == "verilator" and lab.kind == "design":
        sandbox.verilator_cache(args.unsafe_no_sandbox)  # filled here, before that umask and any group's clock
    if not args.unsafe_no_sandbox and sandbox.mode() == "uid":
        if lab.kind == "testbench":  # its runs must share no file: only private mounts give that
            print("error: a testbench lab grades under bubblewrap only, and namespaces cannot be created here "
                  "(grade it on a machine where bubblewrap starts)", file=sys.stderr)
            return 2
        guard_for_the_uid_isolation(lab)
        if not args.quiet:
            print(sandbox.describe_mode(), flush=True)
    out = (args.out or default_out(lab, args.rtl)).resolve()
    settings = design_lab.Settings(args.sim, sandbox.Limits(step_s=min(60.0, lab.timeout_s)), args.unsafe_no_sandbox, args.slot,
                                   args.parallel, args.rerun_rtl)
    # A platform's student reads stdout: it names the submission as they do, never a path of this machine.
    named = (args.rerun_rtl or "<your folder>") if args.student_view else args.rtl
    if not args.quiet:
        print(f"grading lab {lab.number} ({lab.top}) on {args.sim}: {named}", flush=True)
    result = grade(lab, args.rtl, out, settings, progress=not args.quiet)
    document = canonical(result)
    paths = write_all(document, out)
    if not args.quiet:
        print("\n" + "\n".join(terminal({**document, "submission": named}, visible_only=args.student_view)))
        if not args.student_view:  # a platform's student cannot open the grading machine's folders
            print(f"\nreports: {paths['result']} (and junit.xml, gradescope.json, prairielearn.json in that folder)")
        print(final_line(result, args.student_view))
    return exit_status(result)



if __name__ == "__main__":
    sys.exit(main())
