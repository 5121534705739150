"""`make grade LAB=<n> RTL=<file, folder or .zip>`: grade one submission of a course lab.

First the submission is staged and checked (files, compile, the calls its design makes, ports),
then the lab's test groups run in sandboxes with a time limit. Groups with the same visibility,
parameter set and seed share one simulation (a hidden group never shares with a visible one);
a design that hangs or crashes costs the groups of that simulation and nothing else, and once
one has timed out, later simulations get AFTER_A_HANG_S. One canonical result (result.json)
feeds every report: the terminal, JUnit XML, Gradescope, PrairieLearn and the class CSV.
`make check` runs only the groups students can see.

Exit status: 0 full marks, 1 fewer marks, 2 could not grade (no files, a compile error, a
forbidden call, a port mismatch, a resource limit) or a wrong command. The last line says which.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from roofline_core.config import SIMS, BenchConfig
from roofline_core.paths import BUILD_ROOT
from roofline_core.tools import ToolError
from roofline_flows.synth import DEVICE_NAMES, DEVICES

from . import reports, sandbox
from .hints import hints_for
from .labs import Group, Lab, LabError, load_lab
from .precheck import INSIDE, Precheck, precheck
from .results import Grade, GroupScore

MAX_REPORTS_SHOWN = 3
MAX_REPORT_LINES = 14
SYNTH_TIMEOUT_FACTOR = 3  # place and route takes longer than a simulation
VERILATOR_BUILD_S = 120.0  # added to every time limit on Verilator: the C++ build is not the design's time
AFTER_A_HANG_S = 5.0  # the time limit of every simulation after one that timed out
COUNTS = re.compile(r"(\d+) checked, (\d+) failed")
FAILING = re.compile(r"^failing: (.*)$", re.M)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "submission"


def default_out(lab: Lab, rtl: str) -> Path:
    path = Path(rtl).expanduser().resolve()
    return BUILD_ROOT / "grade" / f"lab{lab.number}" / slug(path.stem if path.is_file() else path.name)


def rerun_hint(lab: Lab, group: Group, rtl: str, sim: str) -> str:
    return BenchConfig(lab.top, sim, group.param_set, group.seed, sweep=group.sweep, rtl=rtl).rerun_command(None)


@dataclass(frozen=True)
class Settings:
    sim: str = "icarus"
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    unsafe: bool = False
    slot: int = 0
    parallel: int = 2  # simulations of one submission at a time (grade-all runs one per submission)


def synthesis_tools(group: Group) -> tuple[str, str]:
    return "yosys", DEVICES[group.device][1]


def group_timeout(lab: Lab, group: Group) -> float:
    return lab.timeout_s * (SYNTH_TIMEOUT_FACTOR if group.kind == "synthesis" else 1)


def run_group(lab: Lab, group: Group, check: Precheck, rtl: str, settings: Settings, folder: Path, timeout: float
              ) -> tuple[dict | None, sandbox.Outcome]:
    """The group's job in a fresh sandbox; its result comes back on the result pipe, its log on stdout."""
    submission = check.submission
    assert submission is not None
    work = Path("/run") if not settings.unsafe else folder / "run"
    root = INSIDE if not settings.unsafe else submission.root
    job = {"kind": group.kind, "top": lab.top, "sim": settings.sim, "param_set": asdict(group.param_set),
           "seed": group.seed, "sweep": group.sweep, "tests": list(group.tests), "rtl": rtl, "device": group.device,
           "files": [str(root / submission.relative(f)) for f in submission.files], "folder": str(work / "build"),
           "includes": [str(root / submission.relative(f)) for f in submission.folders]}
    if settings.sim == "verilator":
        timeout += VERILATOR_BUILD_S  # Verilator compiles C++ before it simulates
    limits = replace(settings.limits, cpu_s=int(timeout) + 5)
    env = sandbox.simulator_env(settings.sim == "verilator")
    eda = synthesis_tools(group) if group.kind == "synthesis" else ()
    outcome = sandbox.run([sys.executable, "-m", "roofline_course.grade_job"], submission=submission.root,
                          timeout_s=timeout, limits=limits, stdin=json.dumps(job).encode(), slot=settings.slot,
                          env=env, result_pipe=True, unsafe=settings.unsafe, eda=eda)
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "sim.log"
    log.write_text(outcome.stdout + ("\n" + outcome.stderr if outcome.stderr.strip() else ""))
    try:
        result = json.loads(outcome.result) if outcome.result else None
    except json.JSONDecodeError:
        result = None
    return result, outcome


def batches(groups: tuple[Group, ...]) -> list[list[Group]]:
    """Groups that can share one simulation: same visibility, parameter set, seed and sweep.

    A hidden group never shares a run with a visible one (state a design keeps between tests
    could carry a hidden vector into a visible report); a group that requires another runs alone.
    """
    keyed: dict[object, list[Group]] = {}
    for group in groups:
        key = (group.hidden, group.param_set, group.seed, group.sweep) if group.kind == "sim" and not group.requires \
            else group.name
        keyed.setdefault(key, []).append(group)
    return list(keyed.values())


def grade_batch(lab: Lab, batch: list[Group], check: Precheck, rtl: str, settings: Settings, out: Path,
                earlier: dict[str, GroupScore], timeout: float) -> list[GroupScore]:
    first = batch[0]
    unmet = [name for name in first.requires if name not in earlier or not earlier[name].full]
    if unmet:
        return [GroupScore(first, 0.0, "skipped", [f"scored only once {', '.join(unmet)} passes in full"])]
    joint = replace(first, tests=tuple(dict.fromkeys(test for group in batch for test in group.tests)))
    folder = out / "groups" / slug(first.name if len(batch) == 1 else "+".join(g.name for g in batch))
    result, outcome = run_group(lab, joint, check, rtl, settings, folder, timeout)
    log = str(folder.relative_to(out) / "sim.log")  # relative to the report: no path of the grading machine
    rerun = rerun_hint(lab, first, rtl, settings.sim) if first.kind == "sim" else "make synth RTL=<your folder>"
    shared = len(batch) > 1
    if outcome.timed_out:
        what = "synthesis" if first.kind == "synthesis" else "the simulation"
        limit = timeout + (VERILATOR_BUILD_S if settings.sim == "verilator" else 0)
        detail = [f"TIMEOUT: {what} did not finish within {limit:.0f} s and was stopped.",
                  "A combinational loop (a signal that depends on itself through assign or always @*) or a",
                  "handshake that never completes does this. Look for one, then run the group yourself:", f"  {rerun}"]
        detail += [f"(this simulation ran the groups {', '.join(g.name for g in batch)} together)"] if shared else []
        return [GroupScore(g, 0.0, "timeout", detail, outcome.seconds, rerun=rerun, log=log) for g in batch]
    if result is None:
        why = "was stopped by a limit" if outcome.crashed else f"stopped (exit {outcome.returncode})"
        detail = [f"the grading process {why} without a result: the design used more memory, processes or output "
                  f"than allowed ({settings.limits.describe()})", f"log: {log}"]
        return [GroupScore(g, 0.0, "crash", detail, outcome.seconds, rerun=rerun, log=log) for g in batch]
    if "stopped" in result:
        detail = [f"{result['stopped']}; no result of this run counts.", f"log: {log}", f"run it yourself: {rerun}"]
        return [GroupScore(g, 0.0, "crash", detail, outcome.seconds, rerun=rerun, log=log) for g in batch]
    if "error" in result:
        return [GroupScore(g, 0.0, "error", [result["error"], f"log: {log}"], outcome.seconds, log=log) for g in batch]
    if first.kind == "synthesis":
        return [_score_synthesis(first, result, outcome.seconds)]
    scores = []
    for group in batch:
        mine = {"passed": sum(1 for test in result["passed_tests"] if test in group.tests),
                "failures": [f for f in result["failures"] if f.partition(": ")[0] in group.tests]}
        scores.append(_score_sim(group, mine, outcome.seconds / len(batch), rerun_hint(lab, group, rtl, settings.sim),
                                 log, outcome.stdout))
    return scores


def simulator_stop(log_text: str) -> str:
    """Why the simulator itself stopped, when its log says: Verilator names a combinational loop."""
    match = re.search(r"%Error-DIDNOTCONVERGE: (\S+?):(\d+): .*", log_text)
    if match:
        return (f"the simulator stopped: the logic did not settle ({Path(match[1]).name}:{match[2]}): a "
                "combinational loop, a signal that depends on itself through assign or always @*")
    return ""


def test_credit(failure: str) -> float:
    """The share of a failed test's vectors or cases that passed (0 when it stopped without a count)."""
    if match := COUNTS.search(failure):
        checked, failed = int(match[1]), int(match[2])
        return max(0.0, (checked - failed) / checked) if checked else 0.0
    return 0.0


def failure_reports(failure: str) -> list[str]:
    """A failed test's reports: the mismatches, timeouts and protocol errors it printed."""
    _, _, message = failure.partition(": ")
    blocks = [block.strip("\n") for block in message.split("\n\n")]
    return [block for block in blocks[1:] if block] or [blocks[0]]


def _score_sim(group: Group, result: dict, seconds: float, rerun: str, log: str, log_text: str) -> GroupScore:
    total = len(group.tests)
    failures: list[str] = result["failures"]
    ran = result["passed"] + len(failures)
    credits = [1.0] * min(result["passed"], total) + [test_credit(f) for f in failures]
    earned = sum(credits[:total]) / total if group.scoring == "proportional" else float(not failures and ran >= total)
    score = group.weight * earned
    status = "pass" if not failures and ran >= total else ("partial" if score > 0 else "fail")
    detail: list[str] = []
    failing: list[str] = []
    all_reports: list[str] = []
    for failure in failures:
        name, _, message = failure.partition(": ")
        headline = message.splitlines()[0].removeprefix(f"{name}: ") if message else "failed"
        named = FAILING.search(message)
        failing += [f"{name}: {case}" for case in (named[1].split(", ") if named else [])]
        detail.append(f"{name}: {headline}" + (f"\n    failing: {named[1]}" if named else ""))
        all_reports += failure_reports(failure)
    for report in all_reports[:MAX_REPORTS_SHOWN]:
        lines = report.splitlines()
        detail += ["    " + line.strip() if i else "  " + line.strip() for i, line in enumerate(lines[:MAX_REPORT_LINES])]
        if len(lines) > MAX_REPORT_LINES:
            detail.append("    ...")
    if len(all_reports) > MAX_REPORTS_SHOWN:
        detail.append(f"  ... {len(all_reports) - MAX_REPORTS_SHOWN} more report(s) in the log: {log}")
    if ran < total:
        stop = simulator_stop(log_text)
        detail.append(f"{total - ran} test(s) did not run: {stop or 'the simulator stopped early'} (log: {log})")
    if detail:
        detail += hints_for(all_reports, group.hint)
        detail.append(f"run it yourself: {rerun}")
    return GroupScore(group, score, status, detail, seconds, failing, rerun, log)


def _score_synthesis(group: Group, result: dict, seconds: float) -> GroupScore:
    fmax = result.get("fmax_mhz") or 0.0
    ratio = min(1.0, fmax / group.min_fmax_mhz) if group.min_fmax_mhz else 1.0
    tools = f"; ran on {' and '.join(result['tools'])}" if result.get("tools") else ""
    line = (f"{DEVICE_NAMES[group.device]}: {result['luts']:,} LUT4, {result['ffs']:,} flip-flops, "
            f"Fmax {fmax:.1f} MHz (target {group.min_fmax_mhz:.0f} MHz){tools}")
    status = "pass" if ratio >= 1.0 else "partial"
    detail = [line] + ([] if ratio >= 1.0 else ["below the target clock rate: scored in proportion; "
                                               "register the long paths (the products and the binding search)"])
    return GroupScore(group, group.weight * ratio, status, detail, seconds)


def grade(lab: Lab, rtl: str, out: Path, settings: Settings, progress: bool = True) -> Grade:
    out.mkdir(parents=True, exist_ok=True)
    param_sets = list(dict.fromkeys(g.param_set for g in lab.groups if g.kind == "sim"))
    check = precheck(lab.top, rtl, param_sets, out, limits=settings.limits, unsafe=settings.unsafe,
                     verilator=settings.sim == "verilator", slot=settings.slot)
    if not check.ok:
        scores = [GroupScore(g, 0.0, "not run", [f"not run: the {check.stage} check failed"]) for g in lab.groups]
        return Grade(lab, rtl, check, scores, settings.sim)
    hung = threading.Event()

    def run(batch: list[Group], earlier: dict[str, GroupScore]) -> list[GroupScore]:
        if progress:
            print(f"  running {', '.join(g.name for g in batch)} ...", flush=True)
        timeout = group_timeout(lab, batch[0])
        if hung.is_set() and batch[0].kind == "sim":
            timeout = min(timeout, AFTER_A_HANG_S)  # a design that hung once costs little more
        scores = grade_batch(lab, batch, check, rtl, settings, out, earlier, timeout)
        if any(score.status == "timeout" for score in scores):
            hung.set()
        return scores

    scored = run_in_order_of_needs(batches(lab.groups), run, settings.parallel)
    return Grade(lab, rtl, check, [scored[group.name] for group in lab.groups], settings.sim)


def run_in_order_of_needs(todo: list[list[Group]], run: Callable[[list[Group], dict[str, GroupScore]], list[GroupScore]],
                          parallel: int) -> dict[str, GroupScore]:
    """Run every batch, `parallel` at a time; a batch that requires other groups starts as soon as
    they are scored, ahead of the batches still queued (in the labs it is the synthesis, the longest job)."""
    scored: dict[str, GroupScore] = {}
    workers = max(1, parallel)
    waiting = [batch for batch in todo if batch[0].requires]
    ready = [batch for batch in todo if not batch[0].requires]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running: dict[Future[list[GroupScore]], list[Group]] = {}
        while waiting or ready or running:
            unblocked = [batch for batch in waiting if all(name in scored for name in batch[0].requires)]
            if not (unblocked or ready or running):
                unblocked = waiting[:1]  # requirements that can never be scored (a cycle): it is skipped
            for batch in reversed(unblocked):
                waiting.remove(batch)
                ready.insert(0, batch)
            while ready and len(running) < workers:
                batch = ready.pop(0)
                running[pool.submit(run, batch, dict(scored))] = batch
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                del running[future]
                scored.update((score.group.name, score) for score in future.result())
    return scored


def exit_status(result: Grade) -> int:
    if not result.gradable:
        return 2
    return 0 if result.score >= result.lab.max_score else 1


def final_line(result: Grade) -> str:
    status = exit_status(result)
    if status == 2:
        return f"could not grade: {result.status} (exit 2); the problem is above"
    if status == 1:
        return f"graded: {result.score:.1f}/{result.lab.max_score:g}, fewer than full marks (exit 1)"
    return f"graded: {result.score:.1f}/{result.lab.max_score:g}, full marks (exit 0)"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make grade", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lab", type=int, required=True, help="the lab number (LAB=)")
    parser.add_argument("--rtl", required=True, help="the submission: a .sv/.v file, a folder, or a .zip (RTL=)")
    parser.add_argument("--hidden", type=Path, default=None, help="the hidden groups' file (default labs/labN/hidden.toml)")
    parser.add_argument("--visible-only", action="store_true", help="only the groups students see (make check)")
    parser.add_argument("--sim", default="icarus", choices=SIMS)
    parser.add_argument("--out", type=Path, default=None, help="report folder (default build/grade/labN/<submission>)")
    parser.add_argument("--timeout", type=float, default=None, help="seconds allowed per group")
    parser.add_argument("--quiet", action="store_true", help="no table on the terminal (grade-all)")
    parser.add_argument("--student-view", action="store_true",
                        help="the terminal shows the visible groups only (Gradescope's stdout, which students see)")
    parser.add_argument("--slot", type=int, default=0, help=argparse.SUPPRESS)  # grade-all: a sandbox user per worker
    parser.add_argument("--parallel", type=int, default=min(2, os.cpu_count() or 1),
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
    out = (args.out or default_out(lab, args.rtl)).resolve()
    settings = Settings(args.sim, sandbox.Limits(step_s=min(60.0, lab.timeout_s)), args.unsafe_no_sandbox, args.slot,
                        args.parallel)
    if not args.quiet:
        print(f"grading lab {lab.number} ({lab.top}) on {args.sim}: {args.rtl}", flush=True)
    result = grade(lab, args.rtl, out, settings, progress=not args.quiet)
    canonical = reports.canonical(result)
    paths = reports.write_all(canonical, out)
    if not args.quiet:
        print("\n" + "\n".join(reports.terminal(canonical, visible_only=args.student_view)))
        print(f"\nreports: {paths['result']} (and junit.xml, gradescope.json, prairielearn.json in that folder)")
        print(final_line(result))
    return exit_status(result)


if __name__ == "__main__":
    sys.exit(main())
