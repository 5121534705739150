"""Grading a testbench lab: the student's cocotb testbench against correct and faulty designs.

What runs where, and what is trusted:
- The student's testbench (Python, untrusted) runs in a fresh sandbox for every design, in an
  Icarus simulation of the port shell (design_bank): the contract's ports and nothing else.
  It sees the same files, paths, environment and seeds whatever the design, and cannot import
  the grader (run).
- The designs (trusted: the golden model, the example bugs, the reference RTL and its mutants)
  run outside the sandbox, side by side in the bank; the server (port_channel) answers the
  shell's queries with the served design's outputs and records, out of the testbench's reach,
  what the run did: the vectors, whether they ever changed, whether they exposed the bug.
- From each sandbox only the testbench's claim comes back: passed or failed, on that design.
  The judge (marks) combines claims with the channel server's transcripts: a claim of failure
  counts as a catch only on a run that exposed a bug, and as a false alarm on one that did not.
The visible groups run first, in random order; the hidden groups only if the testbench passed
the correct design, also in random order, with a time limit taken from the visible runs.
"""

from __future__ import annotations

import json
import random
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from roofline_core.contract import ParamSet
from roofline_core.paths import BUILD_ROOT
from roofline_course import sandbox
from roofline_course.intake.precheck import Precheck
from roofline_course.intake.submission import IntakeError
from roofline_course.intake.testbench import Testbench, stage
from roofline_course.labs.definitions import MIN_CALIBRATED_TIMEOUT_S, Group, Lab
from roofline_course.labs.designs import Design, DesignError, resolve
from roofline_course.results import Grade, GroupScore
from roofline_course.testbench_lab import marks
from roofline_course.testbench_lab.design_bank import DesignBank, build_bank
from roofline_course.testbench_lab.port_shell import GraderSideError, build_shell
from roofline_course.testbench_lab.run import RunResult, run_design

GRADER_ERROR_FILE = "grader-error.txt"
HIDDEN_RUN_FACTOR = 4  # a hidden run may take this many times the slowest visible run of the correct design


@dataclass(frozen=True)
class PlannedRun:
    group: Group
    design: Design


def designs_of(lab: Lab, group: Group) -> list[Design]:
    """The designs a group names, resolved; raises DesignError."""
    return [resolve(text, group.param_set, lab.folder, lab.top) for text in group.designs]


def plan(lab: Lab, groups: list[Group]) -> list[PlannedRun]:
    runs = [PlannedRun(group, design) for group in groups for design in designs_of(lab, group)]
    random.SystemRandom().shuffle(runs)  # no design's place in the order is fixed
    return runs


class Workshop:
    """The builds one grading shares: a shell and a bank per format, in a private folder removed at the end."""

    def __init__(self, lab: Lab, runs: list[PlannedRun]) -> None:
        root = BUILD_ROOT / "testbench-lab"
        root.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f"lab{lab.number}-", dir=root))  # mode 0700: mutants stay ours
        formats: dict[ParamSet, list[Design]] = {}
        for run in runs:
            formats.setdefault(run.design.param_set, []).append(run.design)
        self.shells: dict[ParamSet, Path] = {}
        self.banks: dict[ParamSet, DesignBank] = {}
        for index, (param_set, designs) in enumerate(formats.items()):
            self.shells[param_set] = build_shell(param_set, self.folder / f"shell{index}")
            self.banks[param_set] = build_bank(designs, param_set, self.folder / f"bank{index}")

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def grade(lab: Lab, spec: str, out: Path, *, limits: sandbox.Limits, unsafe: bool, slot: int, parallel: int,
          progress: bool = True) -> Grade:
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "runs", ignore_errors=True)  # an earlier grading's logs
    try:
        testbench = stage(spec, out / "submission")
    except IntakeError as problem:
        check = Precheck("files", [str(problem)])
        return Grade(lab, spec, check, [GroupScore(g, 0.0, "not run", ["not run: the files check failed"])
                                        for g in lab.groups])
    check = Precheck("ok", warnings=[f"ignored: {name}" for name in testbench.ignored] + [f"note: {n}" for n in testbench.notes],
                     submission=testbench.as_submission())
    visible = [g for g in lab.groups if not g.hidden]
    hidden = [g for g in lab.groups if g.hidden]
    try:
        todo = plan(lab, visible + hidden)
        workshop = Workshop(lab, todo)
    except (DesignError, GraderSideError) as problem:
        write_designs(out, [], f"the grader could not build its designs: {problem}")
        return Grade(lab, spec, check, [GroupScore(g, 0.0, "error", [marks.GRADER_FAULT]) for g in lab.groups])
    runner = Runner(lab, testbench, workshop, out, limits, unsafe, slot, parallel, progress)
    try:
        results = runner.phase([r for r in todo if not r.group.hidden], lab.timeout_s)
        verdict = marks.gate(results)
        if hidden and verdict.ok:
            results += runner.phase([r for r in todo if r.group.hidden], hidden_limit(lab, results))
    finally:
        workshop.close()
    write_designs(out, results)
    rerun = f"make check LAB={lab.number} TB={spec}"
    return Grade(lab, spec, check, [replace(score(group, results, verdict), rerun=rerun) for group in lab.groups])


def hidden_limit(lab: Lab, visible: list[RunResult]) -> float:
    slowest = max((run.seconds for run in visible if run.design.correct), default=lab.timeout_s)
    return min(lab.timeout_s, max(MIN_CALIBRATED_TIMEOUT_S, HIDDEN_RUN_FACTOR * slowest))


def score(group: Group, results: list[RunResult], verdict: marks.Gate) -> GroupScore:
    own = [run for run in results if run.group == group.name]
    if group.kind == "coverage":
        return marks.score_coverage(group, [run for run in results if not run.group_hidden])
    if group.kind == "reference":
        visible_bugs = [run for run in results if not run.group_hidden and not run.design.correct]
        return marks.score_reference(group, own, verdict, visible_bugs)
    if group.hidden and not verdict.ok:
        return GroupScore(group, 0.0, "not run", [marks.NOT_SCORED])
    return marks.score_bugs(group, own, verdict, results)


@dataclass
class Runner:
    lab: Lab
    testbench: Testbench
    workshop: Workshop
    out: Path
    limits: sandbox.Limits
    unsafe: bool
    slot: int
    parallel: int
    progress: bool
    count: int = 0

    def phase(self, runs: list[PlannedRun], timeout_s: float) -> list[RunResult]:
        if self.progress and runs:
            names = ", ".join(dict.fromkeys(run.group.name for run in runs))
            print(f"  running {names}: {len(runs)} runs of your testbench, one design each ...", flush=True)
        numbered = [(self.count + index, run) for index, run in enumerate(runs)]
        self.count += len(runs)
        with ThreadPoolExecutor(max_workers=max(1, self.parallel)) as pool:
            return list(pool.map(lambda item: self.one(item[0], item[1], timeout_s), numbered))

    def one(self, number: int, planned: PlannedRun, timeout_s: float) -> RunResult:
        design = planned.design
        log = self.out / "runs" / f"run-{number:02d}.log"
        result = run_design(design, planned.group.name, self.workshop.banks[design.param_set],
                            self.workshop.shells[design.param_set], self.testbench, self.lab.seed, timeout_s,
                            self.limits, self.slot, self.unsafe, log)
        result.log = str(log.relative_to(self.out))
        result.group_hidden = planned.group.hidden
        return result


def write_designs(out: Path, results: list[RunResult], grader_error: str = "") -> None:
    """designs.json, for instructors only (no student view reads it): which design each run served and how it went,
    and grader-error.txt when the grader failed (its text names the grading machine's files: no student sees it)."""
    (out / GRADER_ERROR_FILE).unlink(missing_ok=True)
    errors = [grader_error, *(f"{run.log}: {run.grader_error}" for run in results if run.grader_error)]
    if any(errors):
        (out / GRADER_ERROR_FILE).write_text("\n".join(error for error in errors if error) + "\n")
    rows = [{"log": run.log, "group": run.group, "design": run.design.id, "kind": run.design.kind, "what": run.design.what,
             "claim": run.claim, "failed_tests": [t.name for t in run.failed_tests], "exposed_at": run.transcript.exposed_at,
             "differs": sorted(run.transcript.differs), "vectors": run.transcript.queries,
             "violation": run.transcript.violation, "timed_out": run.timed_out, "seconds": round(run.seconds, 2),
             "caught": marks.caught(run), "false_alarm": marks.false_alarm(run),
             "grader_error": run.grader_error} for run in sorted(results, key=lambda r: r.log)]
    (out / "designs.json").write_text(json.dumps(rows, indent=2) + "\n")
