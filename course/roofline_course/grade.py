"""`make grade LAB=<n> RTL=<file or folder>`: grade one submission of a course lab.

First the files, the compile and the ports (each problem named, with file and line); then every
test group of the lab, each in its own process with a time limit, so a design that hangs costs
its group and nothing else. Prints a score table; writes JUnit XML and a Gradescope-style
results.json. `make check` runs only the groups students can see.
Exit status: 0 full marks, 1 fewer, 2 the command itself was wrong.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from roofline_tb.config import SIMS, BenchConfig
from roofline_tb.paths import BUILD_ROOT, REPO_ROOT

from .labs import Group, Lab, LabError, load_lab
from .precheck import Precheck, precheck

MAX_FAILURES_SHOWN = 2
MAX_REPORT_LINES = 14
SYNTH_TIMEOUT_FACTOR = 3  # place and route takes longer than a simulation


@dataclass
class GroupScore:
    group: Group
    score: float
    status: str  # pass, partial, fail, timeout, error, skipped, not run
    detail: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def full(self) -> bool:
        return self.score >= self.group.weight


@dataclass
class Grade:
    lab: Lab
    submission: str
    check: Precheck
    scores: list[GroupScore]

    @property
    def score(self) -> float:
        return sum(s.score for s in self.scores)

    @property
    def status(self) -> str:
        if not self.check.ok:
            return {"files": "no files", "compile": "compile error", "ports": "port mismatch",
                    "forbidden": "forbidden call"}[self.check.stage]
        if any(s.status == "timeout" for s in self.scores):
            return "timeout"
        return "graded"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "submission"


def default_out(lab: Lab, rtl: str) -> Path:
    path = Path(rtl).expanduser().resolve()
    return BUILD_ROOT / "grade" / f"lab{lab.number}" / slug(path.stem if path.is_file() else path.name)


def run_job(job: dict, folder: Path, timeout_s: float) -> tuple[dict | None, float]:
    """Run one group in a child process group; None when it ran out of time (and was killed)."""
    folder.mkdir(parents=True, exist_ok=True)
    job_file, out_file = folder / "job.json", folder / "result.json"
    job_file.write_text(json.dumps(job))
    out_file.unlink(missing_ok=True)
    env = {**os.environ, "ROOFLINE_BUILD": str(folder / "build")}
    started = time.monotonic()
    child = subprocess.Popen([sys.executable, "-m", "roofline_course.grade_job", str(job_file), str(out_file)],
                             cwd=REPO_ROOT, env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=(folder / "stderr.txt").open("w"))
    try:
        child.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(child.pid, signal.SIGKILL)  # the simulator is a grandchild: kill the whole group
        child.wait()
        return None, time.monotonic() - started
    seconds = time.monotonic() - started
    if not out_file.exists():
        tail = (folder / "stderr.txt").read_text()[-400:]
        return {"error": f"the grading process stopped without a result (exit {child.returncode}): {tail}"}, seconds
    return json.loads(out_file.read_text()), seconds


def failure_excerpt(failure: str) -> list[str]:
    """A failed test's first report: what was driven, what was expected, what came out."""
    name, _, message = failure.partition(": ")
    blocks = message.split("\n\n")
    headline = blocks[0].splitlines()[0] if blocks[0] else "failed"
    headline = headline.removeprefix(f"{name}: ")
    report = blocks[1].splitlines() if len(blocks) > 1 else blocks[0].splitlines()[1:]
    lines = [f"{name}: {headline}", *("    " + line for line in report[:MAX_REPORT_LINES])]
    if len(report) > MAX_REPORT_LINES:
        lines.append("    ...")
    return lines


def rerun_hint(lab: Lab, group: Group, rtl: str, sim: str) -> str:
    return BenchConfig(lab.top, sim, group.param_set, group.seed, sweep=group.sweep, rtl=rtl).rerun_command(None)


def grade_group(lab: Lab, group: Group, files: list[Path], rtl: str, sim: str, out: Path,
                earlier: dict[str, GroupScore]) -> GroupScore:
    unmet = [name for name in group.requires if not earlier[name].full]
    if unmet:
        return GroupScore(group, 0.0, "skipped", [f"scored only once {', '.join(unmet)} passes in full"])
    folder = out / "groups" / slug(group.name)
    job = {"kind": group.kind, "top": lab.top, "sim": sim, "param_set": asdict(group.param_set),
           "seed": group.seed, "sweep": group.sweep, "tests": list(group.tests), "files": [str(f) for f in files],
           "rtl": rtl, "folder": str(folder / "sim"), "device": group.device}
    timeout = lab.timeout_s * (SYNTH_TIMEOUT_FACTOR if group.kind == "synthesis" else 1)
    result, seconds = run_job(job, folder, timeout)
    if result is None:
        what = "synthesis" if group.kind == "synthesis" else "the simulation"
        return GroupScore(group, 0.0, "timeout", [
            f"TIMEOUT: {what} did not finish within {timeout:.0f} s and was stopped.",
            "A combinational loop (a signal that depends on itself through assign or always @*) or a",
            "handshake that never completes does this. Look for one, then run the group yourself:",
            f"  {rerun_hint(lab, group, rtl, sim)}" if group.kind == "sim" else "  make synth RTL=<your folder>",
        ], seconds)
    if "error" in result:
        return GroupScore(group, 0.0, "error", [result["error"]], seconds)
    if group.kind == "synthesis":
        return _score_synthesis(group, result, seconds)
    return _score_sim(lab, group, result, rtl, sim, seconds)


def _score_sim(lab: Lab, group: Group, result: dict, rtl: str, sim: str, seconds: float) -> GroupScore:
    total = len(group.tests)
    passed = min(result["passed"], total)
    score = group.weight * passed / total
    status = "pass" if passed == total else ("partial" if passed else "fail")
    detail: list[str] = []
    for failure in result["failures"][:MAX_FAILURES_SHOWN]:
        detail += failure_excerpt(failure)
    if len(result["failures"]) > MAX_FAILURES_SHOWN:
        detail.append(f"... and {len(result['failures']) - MAX_FAILURES_SHOWN} more failing test(s)")
    ran = result["passed"] + len(result["failures"])
    if ran < total:
        detail.append(f"{total - ran} test(s) did not run (the simulator stopped early; log: {result['log']})")
    if detail:
        detail += [f"hint: {group.hint}"] if group.hint else []
        detail.append(f"run it yourself: {rerun_hint(lab, group, rtl, sim)}")
    return GroupScore(group, score, status, detail, seconds)


def _score_synthesis(group: Group, result: dict, seconds: float) -> GroupScore:
    fmax = result.get("fmax_mhz") or 0.0
    ratio = min(1.0, fmax / group.min_fmax_mhz) if group.min_fmax_mhz else 1.0
    line = (f"iCE40 {group.device.upper()}: {result['luts']:,} LUT4, {result['ffs']:,} flip-flops, "
            f"Fmax {fmax:.1f} MHz (target {group.min_fmax_mhz:.0f} MHz)")
    status = "pass" if ratio >= 1.0 else "partial"
    detail = [line] + ([] if ratio >= 1.0 else ["below the target clock rate: scored in proportion; "
                                               "register the long paths (the products and the binding search)"])
    return GroupScore(group, group.weight * ratio, status, detail, seconds)


def grade(lab: Lab, rtl: str, sim: str, out: Path, progress: bool = True) -> Grade:
    out.mkdir(parents=True, exist_ok=True)
    param_sets = list(dict.fromkeys(g.param_set for g in lab.groups if g.kind == "sim"))
    check = precheck(lab.top, rtl, param_sets, out / "precheck")
    scores: list[GroupScore] = []
    if not check.ok:
        scores = [GroupScore(g, 0.0, "not run", [f"not run: the {check.stage} check failed"]) for g in lab.groups]
        return Grade(lab, rtl, check, scores)
    earlier: dict[str, GroupScore] = {}
    for group in lab.groups:
        if progress:
            print(f"  running {group.name} ...", flush=True)
        score = grade_group(lab, group, check.files, rtl, sim, out, earlier)
        earlier[group.name] = score
        scores.append(score)
    return Grade(lab, rtl, check, scores)


# ---------------------------------------------------------------- reports


def score_table(grade: Grade) -> list[str]:
    lab = grade.lab
    lines = [f"lab {lab.number}: {lab.title} ({lab.top})", f"submission: {grade.submission}"]
    if not grade.check.ok:
        heading = {"files": "FILES", "compile": "COMPILE ERROR", "ports": "PORTS DO NOT MATCH THE CONTRACT",
                   "forbidden": "CALLS THE GRADER DOES NOT RUN"}
        lines += ["", heading[grade.check.stage] + ":"] + [f"  {p}" for p in grade.check.problems]
    lines += [f"note: {w}" for w in grade.check.warnings] + [f"note: {n}" for n in lab.notes]
    width = max(len(s.group.name) for s in grade.scores) + 2
    lines += ["", f"  {'group':<{width}} {'':<7} {'score':>11}  {'status':<8} covers"]
    for s in grade.scores:
        where = "hidden" if s.group.hidden else "visible"
        lines.append(f"  {s.group.name:<{width}} {where:<7} {s.score:5.1f}/{s.group.weight:<5g}  {s.status:<8} {s.group.covers}")
    lines.append(f"  {'total':<{width}} {'':<7} {grade.score:5.1f}/{lab.max_score:<5g}")
    for s in grade.scores:
        if s.detail and (s.status not in ("pass", "not run") or s.group.kind == "synthesis"):
            lines += ["", f"{s.group.name} ({s.status}):"] + [f"  {line}" for line in s.detail]
    return lines


def write_junit(grade: Grade, path: Path) -> None:
    root = ET.Element("testsuites")
    suite = ET.SubElement(root, "testsuite", name=f"lab{grade.lab.number}", tests=str(len(grade.scores)),
                       failures=str(sum(not s.full for s in grade.scores)))
    for s in grade.scores:
        case = ET.SubElement(suite, "testcase", classname=f"lab{grade.lab.number}.{'hidden' if s.group.hidden else 'visible'}",
                             name=s.group.name, time=f"{s.seconds:.1f}")
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="score", value=f"{s.score:g}")
        ET.SubElement(props, "property", name="weight", value=f"{s.group.weight:g}")
        if not s.full:
            failure = ET.SubElement(case, "failure", message=f"{s.status}: {s.score:g}/{s.group.weight:g}")
            failure.text = "\n".join(s.detail or grade.check.problems)
    ET.ElementTree(root).write(path, encoding="unicode", xml_declaration=True)


def gradescope_results(grade: Grade) -> dict:
    """Gradescope's autograder format: hidden groups are shown to students after the due date."""
    precheck_text = "\n".join(grade.check.problems + grade.check.warnings)
    return {
        "score": round(grade.score, 3),
        "output": precheck_text or f"lab {grade.lab.number}: {grade.status}",
        "stdout_visibility": "visible",
        "tests": [{
            "name": s.group.name,
            "score": round(s.score, 3),
            "max_score": s.group.weight,
            "status": "passed" if s.full else "failed",
            "output": "\n".join([s.group.covers, *s.detail]),
            "visibility": "after_due_date" if s.group.hidden else "visible",
        } for s in grade.scores],
    }


def first_problem(scores: list[GroupScore]) -> str:
    """The first group that lost marks, and its most telling line (the mismatch, not the count)."""
    for s in scores:
        if s.detail and not s.full:
            line = s.detail[1] if len(s.detail) > 1 and s.status in ("fail", "partial") else s.detail[0]
            return f"{s.group.name}: {line.strip()}"
    return ""


def write_reports(grade: Grade, out: Path, table: list[str]) -> dict[str, Path]:
    paths = {"junit": out / "junit.xml", "gradescope": out / "results.json", "summary": out / "summary.json",
             "table": out / "score.txt"}
    write_junit(grade, paths["junit"])
    paths["gradescope"].write_text(json.dumps(gradescope_results(grade), indent=2) + "\n")
    paths["table"].write_text("\n".join(table) + "\n")
    paths["summary"].write_text(json.dumps({
        "lab": grade.lab.number, "submission": grade.submission, "status": grade.status,
        "score": round(grade.score, 3), "max_score": grade.lab.max_score,
        "groups": {s.group.name: round(s.score, 3) for s in grade.scores},
        "problem": (grade.check.problems or [""])[0] or first_problem(grade.scores),
    }, indent=2) + "\n")
    return paths


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", type=int, required=True, help="the lab number (LAB=)")
    parser.add_argument("--rtl", required=True, help="the submission: a file or a folder of .sv/.v files (RTL=)")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--visible-only", action="store_true", help="only the groups students see (make check)")
    parser.add_argument("--sim", default="icarus", choices=SIMS)
    parser.add_argument("--out", type=Path, default=None, help="report folder (default build/grade/labN/<submission>)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per group")
    parser.add_argument("--quiet", action="store_true", help="no table on the terminal (grade-all)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        lab = load_lab(args.lab, args.hidden, with_hidden=not args.visible_only)
    except LabError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if args.timeout:
        lab = replace(lab, timeout_s=args.timeout)
    out = (args.out or default_out(lab, args.rtl)).resolve()
    if not args.quiet:
        print(f"grading lab {lab.number} ({lab.top}) on {args.sim}: {args.rtl}", flush=True)
    result = grade(lab, args.rtl, args.sim, out, progress=not args.quiet)
    table = score_table(result)
    paths = write_reports(result, out, table)
    if not args.quiet:
        print("\n" + "\n".join(table))
        print(f"\nreports: {paths['junit']}  {paths['gradescope']}")
    return 0 if result.score >= lab.max_score else 1


if __name__ == "__main__":
    sys.exit(main())
