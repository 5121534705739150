"""A design lab's grading: the submission checked, its groups simulated in sandboxes, each judged here.

First the submission is staged and checked (files, compile, the design as the tools build it,
ports), then the lab's test groups run in sandboxes with a time limit. A sandbox only runs the
design and sends back what the bench read at its ports; this process judges that reply with the
golden model (judge), so nothing the design does in its sandbox can decide a score. Groups with
the same visibility, parameter set and seed share one simulation (schedule); every visible group
runs before any hidden one, so no hidden run is ever alive beside a visible one. A design that
hangs or crashes costs the groups of that simulation and nothing else, and once one has timed
out, later simulations get AFTER_A_HANG_S. A simulation whose reply falls silent for a quarter of
its time limit, once it has begun, is stopped then as hung (STALL_FRACTION): a bench's tape grows
many times a second, and logic that never settles would spin to the limit.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from roofline_bench.benches import TESTS
from roofline_bench.remote import Channel, drive
from roofline_bench.tape import Reply
from roofline_core.config import DEFAULT_SIM, BenchConfig
from roofline_core.paths import COCOTB_TESTS_DIR
from roofline_core.runner import PUPPET_MODULE, puppet_build
from roofline_course import sandbox
from roofline_course.design_lab import judge, pictures
from roofline_course.design_lab.progress import Progress
from roofline_course.design_lab.schedule import batches, run_in_order_of_needs
from roofline_course.design_lab.synthesis import SYNTH_TIMEOUT_FACTOR, score_synthesis, synthesis_tools
from roofline_course.intake.precheck import Precheck, precheck
from roofline_course.labs.definitions import Group, Lab
from roofline_course.reports.neutralise import slug
from roofline_course.results import Grade, GroupScore

VERILATOR_BUILD_S = 120.0  # added to every time limit on Verilator: the C++ build is not the design's time
AFTER_A_HANG_S = 5.0  # the time limit of every simulation after one that timed out
STALL_FRACTION = 0.25  # a simulation whose reply falls silent this share of its time limit has hung
MIN_STALL_S = 1.0
PARALLEL = min(2, os.cpu_count() or 1)  # simulations of one submission at a time (grade-all runs one per submission)


def rerun_hint(lab: Lab, group: Group, rtl: str, sim: str) -> str:
    """The commands that rerun a group, with `rtl` as the student names their folder: make check (a
    visible group) and make sim of the group's tests, both of which run on the student's own copy."""
    tests = BenchConfig(lab.top, sim, group.param_set, group.seed, sweep=group.sweep, rtl=rtl).rerun_command(None)
    if group.hidden:
        return tests
    return f"make check LAB={lab.number} RTL={rtl}  (this group's tests alone: {tests})"


@dataclass(frozen=True)
class Settings:
    sim: str = DEFAULT_SIM
    limits: sandbox.Limits = field(default_factory=sandbox.Limits)
    unsafe: bool = False
    slot: int = 0
    parallel: int = PARALLEL
    shown_rtl: str = ""  # what rerun lines call the submission ("<your folder>" on a platform); "": as given


def group_timeout(lab: Lab, group: Group) -> float:
    return lab.timeout_s * (SYNTH_TIMEOUT_FACTOR if group.kind == "synthesis" else 1)


def stall_limit(timeout: float) -> float:
    """The silence after which a simulation has hung: a bench's tape grows many times a second."""
    return max(MIN_STALL_S, STALL_FRACTION * timeout)


JOB = "roofline_course.design_lab.sandbox_job"


@functools.cache
def simulation_harness() -> tuple[Path, ...]:
    """The only files of the checkout a simulation's sandbox holds: the job, the puppet and the simulator
    runner, with what they import. No bench, stimulus, seed, golden model, reference or lab is among them."""
    return (*sandbox.harness_files(JOB, "roofline_cocotb.puppet", "roofline_cocotb.signals"),
            COCOTB_TESTS_DIR / f"{PUPPET_MODULE}.py")


def staged(check: Precheck) -> tuple[list[str], tuple[str, ...]]:
    """The canonical design's files and include folders (what the precheck checked), as a step sees them
    (sandbox.relocate moves them if need be)."""
    submission = check.design
    assert submission is not None
    root = sandbox.SUBMISSION
    return ([str(root / submission.relative(f)) for f in submission.files],
            tuple(str(root / submission.relative(f)) for f in submission.folders))


def run_step(job: dict, check: Precheck, settings: Settings, folder: Path, timeout: float, eda: tuple[str, ...] = (),
             converse: Callable[[int, int], str] | None = None, harness: tuple[Path, ...] | None = None) -> sandbox.Outcome:
    """One job in a fresh sandbox on the canonical design alone, its log kept in the group's folder with the
    student's own files and lines."""
    submission, design = check.design, check.canonical
    assert submission is not None and design is not None
    limits = replace(settings.limits, cpu_s=int(timeout) + 5)
    verilator = settings.sim == "verilator" and job["kind"] == "sim"
    cache = sandbox.verilator_cache(settings.unsafe) if verilator else sandbox.CacheStep()
    env = {**sandbox.simulator_env(settings.sim == "verilator"), **cache.env}
    outcome = sandbox.run([sys.executable, "-m", JOB], submission=submission.root, timeout_s=timeout, limits=limits,
                          stdin=json.dumps(job).encode(), slot=settings.slot, env=env, result_pipe=True,
                          unsafe=settings.unsafe, eda=eda, converse=converse, harness=harness, extra_ro=cache.extra_ro)
    outcome = replace(outcome, stdout=design.to_source(outcome.stdout), stderr=design.to_source(outcome.stderr))
    if job["kind"] == "synthesis":  # its reply is the tools' figures or their error
        outcome = replace(outcome, result=design.to_source(outcome.result.decode(errors="replace")).encode())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sim.log").write_text(outcome.stdout + ("\n" + outcome.stderr if outcome.stderr.strip() else ""))
    return outcome


def run_simulation(lab: Lab, group: Group, check: Precheck, shown: str, settings: Settings, folder: Path, timeout: float,
                   stall_s: float) -> tuple[sandbox.Outcome, Reply]:
    """The group's tests, run here against the design simulated in a fresh sandbox (roofline_bench.remote):
    the sandbox gets the design and a puppet of its ports, and this process writes down what it read. Their
    rerun lines name the submission as `shown` (a platform's student: their own folder)."""
    files, includes = staged(check)
    build = puppet_build(lab.top, settings.sim, group.param_set, [Path(f) for f in files], sandbox.WORK / "build", includes)
    cfg = judge.bench_config(lab, group, settings.sim, shown)
    tests = [TESTS[lab.top][test] for test in group.tests]
    replies: list[Reply] = []

    def converse(commands: int, answers: int) -> str:
        channel = Channel(commands, answers, time.monotonic() + timeout, stall_s)
        replies.append(drive(channel, cfg, tests))
        return "stalled" if channel.stalled else ("void" if replies[-1].problem else "")

    outcome = run_step({"kind": "sim", "build": build.to_json()}, check, settings, folder, timeout, converse=converse,
                       harness=None if settings.unsafe else simulation_harness())
    return outcome, (replies[0] if replies else Reply(problem="the simulation could not be started"))


def run_synthesis(lab: Lab, group: Group, check: Precheck, settings: Settings, folder: Path, timeout: float) -> sandbox.Outcome:
    files, includes = staged(check)
    job = {"kind": "synthesis", "top": lab.top, "param_set": asdict(group.param_set), "device": group.device,
           "files": files, "folder": str(sandbox.WORK / "build"), "includes": list(includes)}
    return run_step(job, check, settings, folder, timeout, eda=synthesis_tools(group))


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
    shown = settings.shown_rtl or rtl  # reports name the submission as its student does, never a path of this machine
    log = str(folder.relative_to(out) / "sim.log")  # relative to the report: no path of the grading machine
    if first.kind == "synthesis":
        if first.tests and (wrong := synthesized_design_wrong(lab, first, check, shown, settings, folder, log)):
            return [wrong]
        return [score_synthesis(first, run_synthesis(lab, first, check, settings, folder, timeout), log)]
    assert stall_s is not None
    outcome, reply = run_simulation(lab, joint, check, shown, settings, folder, timeout, stall_s)
    shared = tuple(g.name for g in batch) if len(batch) > 1 else ()
    facts = judge.RunFacts(outcome.seconds / len(batch), outcome.timed_out, timeout, outcome.crashed, log, shared,
                           simulator_stop(outcome.stdout), stall_s if outcome.stalled else None)
    scores = []
    for group in batch:
        rerun = rerun_hint(lab, group, shown, settings.sim)
        found = judge.verdicts(lab, group, reply, settings.sim, shown)
        score = judge.score(lab, group, found, reply, facts, rerun)
        score.pictures, notes = pictures.draw(lab, group, found, reply, settings.sim, shown, out, folder)
        score.detail += notes
        scores.append(score)
    return scores


def synthesized_design_wrong(lab: Lab, group: Group, check: Precheck, shown: str, settings: Settings, folder: Path,
                             log: str) -> GroupScore | None:
    """The synthesis group's tests, simulated at the synthesis's own parameters first: a design can
    build another circuit there than at the simulated groups' (a generate on INT_BITS), and the cost
    scored must be that of a circuit shown right. None when every test passed in full; else the
    group's score, nothing, with what failed."""
    timeout = lab.timeout_s + (VERILATOR_BUILD_S if settings.sim == "verilator" else 0)
    stall_s = stall_limit(lab.timeout_s)
    outcome, reply = run_simulation(lab, group, check, shown, settings, folder, timeout, stall_s)
    found = judge.verdicts(lab, group, reply, settings.sim, shown)
    if not (outcome.timed_out or outcome.crashed) and all(v.passed for v in found.values()):
        return None
    facts = judge.RunFacts(outcome.seconds, outcome.timed_out, timeout, outcome.crashed, log, (),
                           simulator_stop(outcome.stdout), stall_s if outcome.stalled else None)
    simulated = judge.score(lab, group, found, reply, facts, rerun_hint(lab, group, shown, settings.sim))
    params = " ".join(f"{name}={value}" for name, value in group.param_set.for_module(lab.top).items())
    first = (f"not synthesized: the circuit whose cost is scored must first pass {', '.join(group.tests)} in "
             f"simulation at the synthesis's own parameters ({params}), and it did not")
    return GroupScore(group, 0.0, "fail", [first, *simulated.detail], outcome.seconds, simulated.failing, simulated.rerun, log)


def simulator_stop(log_text: str) -> str:
    """Why the simulator itself stopped, when its log says: Verilator names a combinational loop."""
    match = re.search(r"%Error-DIDNOTCONVERGE: (\S+?):(\d+): .*", log_text)
    if match:
        return (f"the simulator stopped: the logic did not settle ({Path(match[1]).name}:{match[2]}): a "
                "combinational loop, a signal that depends on itself through assign or always @*")
    return ""


def grade(lab: Lab, rtl: str, out: Path, settings: Settings, progress: bool = True) -> Grade:
    out.mkdir(parents=True, exist_ok=True)
    param_sets = list(dict.fromkeys(g.param_set for g in lab.groups if g.kind == "sim"))
    check = precheck(lab.top, rtl, param_sets, out, limits=settings.limits, unsafe=settings.unsafe,
                     verilator=settings.sim == "verilator", slot=settings.slot)
    if not check.ok:
        scores = [GroupScore(g, 0.0, "not run", [f"not run: the {check.stage} check failed"]) for g in lab.groups]
        return Grade(lab, rtl, check, scores, settings.sim)
    hung = threading.Event()
    told = Progress(lab, lambda line: print(line, flush=True)) if progress else None

    def run(batch: list[Group], earlier: dict[str, GroupScore]) -> list[GroupScore]:
        if told:
            told.started(batch)
        timeout = group_timeout(lab, batch[0])
        if hung.is_set() and batch[0].kind == "sim":
            timeout = min(timeout, AFTER_A_HANG_S)  # a design that hung once costs little more
        scores = grade_batch(lab, batch, check, rtl, settings, out, earlier, timeout)
        if any(score.status == "timeout" for score in scores):
            hung.set()
        if told:
            told.ended(scores)
        return scores

    todo = batches(lab.groups)
    scored: dict[str, GroupScore] = {}
    for hidden in (False, True):  # every visible simulation ends before the first hidden one starts
        scored = run_in_order_of_needs([b for b in todo if b[0].hidden == hidden], run, settings.parallel, scored)
    return Grade(lab, rtl, check, [scored[group.name] for group in lab.groups], settings.sim)

