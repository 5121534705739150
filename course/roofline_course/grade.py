"""`make grade LAB=<n> RTL=<file, folder or .zip>`: grade one submission of a course lab.

First the submission is staged and checked (files, compile, the design as the tools build it,
ports), then the lab's test groups run in sandboxes with a time limit. A sandbox only runs the
design and sends back what the bench read at its ports; this process judges that reply with the
golden model (judge), so nothing the design does in its sandbox can decide a score. Groups with
the same visibility, parameter set and seed share one simulation; every visible group runs
before any hidden one, so no hidden run is ever alive beside a visible one. A design that hangs
or crashes costs the groups of that simulation and nothing else, and once one has timed out,
later simulations get AFTER_A_HANG_S. A simulation whose reply falls silent for a quarter of its
time limit, once it has begun, is stopped then as hung (STALL_FRACTION): a bench's tape grows
many times a second, and logic that never settles would spin to the limit. One canonical result
(result.json) feeds every report: the terminal, JUnit XML, Gradescope, PrairieLearn and the
class CSV. `make check` runs only the groups students can see.

Exit status: 0 full marks, 1 fewer marks, 2 could not grade (no files, a compile error, a
construct the grader does not run, a missing port, a resource limit) or a wrong command. The
last line says which.
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
from roofline_core.paths import BUILD_ROOT, LABS_DIR, REPO_ROOT, RTL_DIR
from roofline_core.tools import ToolError
from roofline_course import judge, pictures, reports, sandbox, testbench_lab
from roofline_course.labs import Group, Lab, LabError, load_lab
from roofline_course.precheck import Precheck, precheck
from roofline_course.results import Grade, GroupScore
from roofline_flows.synth import DEVICE_NAMES, DEVICES

SYNTH_TIMEOUT_FACTOR = 3  # place and route takes longer than a simulation
VERILATOR_BUILD_S = 120.0  # added to every time limit on Verilator: the C++ build is not the design's time
AFTER_A_HANG_S = 5.0  # the time limit of every simulation after one that timed out
STALL_FRACTION = 0.25  # a simulation whose reply falls silent this share of its time limit has hung
MIN_STALL_S = 1.0


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


def stall_limit(timeout: float) -> float:
    """The silence after which a simulation has hung: a bench's tape grows many times a second."""
    return max(MIN_STALL_S, STALL_FRACTION * timeout)


def run_group(lab: Lab, group: Group, check: Precheck, rtl: str, settings: Settings, folder: Path, timeout: float,
              stall_s: float | None = None) -> sandbox.Outcome:
    """The group's job in a fresh sandbox; its reply comes back on the result pipe, its log on stdout."""
    submission = check.submission
    assert submission is not None
    work, root = sandbox.WORK, sandbox.SUBMISSION  # as the step sees them (sandbox.relocate moves them if need be)
    job = {"kind": group.kind, "top": lab.top, "sim": settings.sim, "param_set": asdict(group.param_set),
           "seed": group.seed, "sweep": group.sweep, "tests": list(group.tests), "rtl": rtl, "device": group.device,
           "files": [str(root / submission.relative(f)) for f in submission.files], "folder": str(work / "build"),
           "includes": [str(root / submission.relative(f)) for f in submission.folders]}
    limits = replace(settings.limits, cpu_s=int(timeout) + 5)
    env = sandbox.simulator_env(settings.sim == "verilator")
    eda = synthesis_tools(group) if group.kind == "synthesis" else ()
    outcome = sandbox.run([sys.executable, "-m", "roofline_course.grade_job"], submission=submission.root,
                          timeout_s=timeout, limits=limits, stdin=json.dumps(job).encode(), slot=settings.slot,
                          env=env, result_pipe=True, unsafe=settings.unsafe, eda=eda, stall_s=stall_s)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim.log").write_text(outcome.stdout + ("\n" + outcome.stderr if outcome.stderr.strip() else ""))
    return outcome


def batches(groups: tuple[Group, ...]) -> list[list[Group]]:
    """Groups that can share one simulation: same visibility, parameter set, seed and sweep, the
    visible ones first. A hidden group never shares a run with a visible one (state a design keeps
    between tests could carry a hidden vector into a visible report); a group that requires
    another runs alone."""
    keyed: dict[object, list[Group]] = {}
    for group in sorted(groups, key=lambda g: g.hidden):
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
    stall_s = stall_limit(timeout) if first.kind == "sim" else None  # from the simulation's own limit
    if settings.sim == "verilator" and first.kind == "sim":
        timeout += VERILATOR_BUILD_S  # Verilator compiles C++ before it simulates (the tape begins after)
    outcome = run_group(lab, joint, check, rtl, settings, folder, timeout, stall_s)
    log = str(folder.relative_to(out) / "sim.log")  # relative to the report: no path of the grading machine
    if first.kind == "synthesis":
        return [_score_synthesis(first, outcome, log)]
    reply = judge.read_reply(outcome.result, lab, joint.tests)
    shared = tuple(g.name for g in batch) if len(batch) > 1 else ()
    facts = judge.RunFacts(outcome.seconds / len(batch), outcome.timed_out, timeout, outcome.crashed, log, shared,
                           simulator_stop(outcome.stdout), stall_s if outcome.stalled else None)
    scores = []
    for group in batch:
        rerun = rerun_hint(lab, group, rtl, settings.sim)
        found = judge.verdicts(lab, group, reply, settings.sim, rtl)
        score = judge.score(lab, group, found, reply, facts, rerun)
        score.pictures, notes = pictures.draw(lab, group, found, reply, settings.sim, rtl, out, folder)
        score.detail += notes
        scores.append(score)
    return scores


def simulator_stop(log_text: str) -> str:
    """Why the simulator itself stopped, when its log says: Verilator names a combinational loop."""
    match = re.search(r"%Error-DIDNOTCONVERGE: (\S+?):(\d+): .*", log_text)
    if match:
        return (f"the simulator stopped: the logic did not settle ({Path(match[1]).name}:{match[2]}): a "
                "combinational loop, a signal that depends on itself through assign or always @*")
    return ""


def _score_synthesis(group: Group, outcome: sandbox.Outcome, log: str) -> GroupScore:
    """Synthesis runs no design code: its figures come from the tools, read in the sandbox by the
    grader's own job."""
    if outcome.timed_out:
        return GroupScore(group, 0.0, "timeout", ["TIMEOUT: synthesis did not finish in time", f"log: {log}"],
                          outcome.seconds, log=log)
    try:
        result = json.loads(outcome.result)
        fmax, luts, ffs = float(result.get("fmax_mhz") or 0.0), int(result["luts"]), int(result["ffs"])
    except (ValueError, KeyError, TypeError, AttributeError):
        why = result.get("error") if isinstance(locals().get("result"), dict) else None
        return GroupScore(group, 0.0, "error", [why or "synthesis gave no result", f"log: {log}"], outcome.seconds, log=log)
    ratio = min(1.0, fmax / group.min_fmax_mhz) if group.min_fmax_mhz else 1.0
    tools = f"; ran on {' and '.join(result['tools'])}" if result.get("tools") else ""
    line = (f"{DEVICE_NAMES[group.device]}: {luts:,} LUT4, {ffs:,} flip-flops, "
            f"Fmax {fmax:.1f} MHz (target {group.min_fmax_mhz:.0f} MHz){tools}")
    status = "pass" if ratio >= 1.0 else "partial"
    detail = [line] + ([] if ratio >= 1.0 else ["below the target clock rate: scored in proportion; "
                                               "register the long paths (the products and the binding search)"])
    return GroupScore(group, group.weight * ratio, status, detail, outcome.seconds, log=log)


def grade(lab: Lab, rtl: str, out: Path, settings: Settings, progress: bool = True) -> Grade:
    if lab.kind == "testbench":  # the student wrote a testbench, not a design: testbench_lab grades it
        return testbench_lab.grade(lab, rtl, out, limits=settings.limits, unsafe=settings.unsafe, slot=settings.slot,
                                   parallel=settings.parallel, progress=progress)
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

    todo = batches(lab.groups)
    scored: dict[str, GroupScore] = {}
    for hidden in (False, True):  # every visible simulation ends before the first hidden one starts
        scored = run_in_order_of_needs([b for b in todo if b[0].hidden == hidden], run, settings.parallel, scored)
    return Grade(lab, rtl, check, [scored[group.name] for group in lab.groups], settings.sim)


def run_in_order_of_needs(todo: list[list[Group]], run: Callable[[list[Group], dict[str, GroupScore]], list[GroupScore]],
                          parallel: int, earlier: dict[str, GroupScore] | None = None) -> dict[str, GroupScore]:
    """Run every batch, `parallel` at a time; a batch that requires other groups starts as soon as
    they are scored, ahead of the batches still queued (in the labs it is the synthesis, the longest job).
    Returns every score, the `earlier` ones included."""
    scored: dict[str, GroupScore] = dict(earlier or {})
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


def final_line(result: Grade, student_view: bool = False) -> str:
    """The verdict line. A student's view counts the visible groups only: a total with the hidden
    groups in it would tell, before the due date, how the hidden groups went."""
    status = exit_status(result)
    if status == 2:
        return f"could not grade: {result.status} (exit 2); the problem is above"
    if student_view and any(s.group.hidden for s in result.scores):
        visible = [s for s in result.scores if not s.group.hidden]
        return (f"graded: {sum(s.score for s in visible):.1f}/{sum(s.group.weight for s in visible):g} in the visible "
                "groups; the hidden groups are shown after the due date")
    if status == 1:
        return f"graded: {result.score:.1f}/{result.lab.max_score:g}, fewer than full marks (exit 1)"
    return f"graded: {result.score:.1f}/{result.lab.max_score:g}, full marks (exit 0)"


def guard_for_the_uid_isolation(lab: Lab) -> None:
    """Without namespaces the sandbox user sees the machine's files: the grader's own files become
    unreadable to other users (umask), and so do the labs (hidden groups), the reference RTL, the
    tests and the reports of other runs."""
    os.umask(0o077)
    sandbox.protect([LABS_DIR, RTL_DIR, REPO_ROOT / "tests", REPO_ROOT / ".git", BUILD_ROOT / "grade",
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
    sandbox.compile_bytecode()  # before the uid isolation's umask: a step must be able to read it
    if not args.unsafe_no_sandbox and sandbox.mode() == "uid":
        if lab.kind == "testbench":  # its runs must share no file: only private mounts give that
            print("error: a testbench lab grades under bubblewrap only, and namespaces cannot be created here "
                  "(grade it on a machine where bubblewrap starts)", file=sys.stderr)
            return 2
        guard_for_the_uid_isolation(lab)
        if not args.quiet:
            print(sandbox.describe_mode(), flush=True)
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
        print(final_line(result, args.student_view))
    return exit_status(result)


if __name__ == "__main__":
    sys.exit(main())
