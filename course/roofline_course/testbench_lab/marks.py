"""The marks of a testbench lab, from its runs: no false alarm, the share of bugs caught, coverage.

A run *behaved correctly* when the design's outputs were the correct design's on every vector
the testbench applied: a correct design always does, a faulty one does when the vectors never
reach its bug. The rules:
- On a run that behaved correctly the testbench must pass; failing there is a false alarm,
  whatever the design was. A false alarm among the visible runs, or a run of the correct design
  whose inputs never changed, scores the whole lab 0; one among a hidden group's runs scores that
  group 0.
- A faulty design is caught when the testbench failed it (or did not finish on it) on a run that
  exposed it: its outputs differed from the correct design's on a vector the testbench applied.
- A run on which the testbench wrote to the grader's port channel itself counts for nothing (on a
  run that behaved correctly, it is a false alarm).
- `no false alarm` scores only when the testbench also caught a visible bug: a testbench that
  passes every design checks nothing.
Feedback names kinds of bugs (the mutant's class) and the student's own tests, never a design,
its source, a difference or a vector of a faulty design. A false alarm says why (diagnosis): a
wrong check, on the vector the student's test failed on the correct design, or a verdict or
stimulus that is not a function of the ports. A grader error is named as the grader's, never with
its own text (that names the grading machine's files); designs.json and grader-error.txt keep it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from roofline_bench.coverage import expected_bins, table
from roofline_course.labs.definitions import Group
from roofline_course.labs.designs import KIND_HINTS
from roofline_course.results import GroupScore
from roofline_course.testbench_lab.diagnosis import describe_format, wrong_verdicts
from roofline_course.testbench_lab.port_shell import SHELL_TOP
from roofline_course.testbench_lab.run import RunResult

NOT_SCORED = "not scored: the visible runs of the correct design score nothing (see no false alarm)"
GRADER_FAULT = "the grader could not run your testbench (its fault, not yours: ask for a regrade)"


@dataclass
class Gate:
    """Whether the visible runs allow any marks: no false alarm, and the inputs driven."""

    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    log: str = ""
    tag: str = ""  # the kind of problem, for the class's most common problems

    @property
    def ok(self) -> bool:
        return not self.problems


def caught(run: RunResult) -> bool:
    return (not run.design.correct and run.transcript.exposed and not run.transcript.violation
            and (run.claim == "fail" or run.timed_out or run.crashed))


def false_alarm(run: RunResult) -> str:
    """Why this run is a false alarm, or "" when it is not one; a failed verdict is explained by diagnosis."""
    if not run.behaved_correctly:
        return ""
    if why := run_problem(run):
        return why
    if run.claim == "pass":
        return ""
    return f"your testbench failed {where(run)}"


def where(run: RunResult) -> str:
    return "the correct design" if run.design.correct else \
        "a faulty design that answered every vector your testbench applied exactly as the correct design does"


def run_problem(run: RunResult) -> str:
    """What went wrong with a run besides its verdict: the channel written to, a time limit, no results."""
    if run.transcript.violation:
        return f"on {where(run)}, {run.transcript.violation}: drive the design only through dut's ports"
    if run.timed_out:
        return f"your testbench did not finish on {where(run)} within the time limit ({run.seconds:.0f} s)"
    if run.crashed and run.tests is None:
        return f"your testbench was stopped by a limit (memory, processes, output or CPU time) on {where(run)}"
    if run.claim == "pass":
        return ""
    if run.problem:
        return f"on {where(run)}: {run.problem}"
    if run.tests is None:
        return f"your testbench gave no results on {where(run)}: cocotb did not run it (see the log)"
    if not [t for t in run.tests if t.outcome != "skipped"]:
        return f"your testbench ran no test on {where(run)}: decorate each test with @cocotb.test()"
    return ""


def alarm_lines(runs: list[RunResult], every: list[RunResult]) -> tuple[list[str], str]:
    """The false alarms among `runs`, as feedback lines, and the log to show (the correct design's first)."""
    lines: list[str] = []
    problems: dict[str, list[RunResult]] = {}
    judged = []
    for run in sorted(runs, key=lambda r: not r.design.correct):
        if not run.behaved_correctly:
            continue
        if why := run_problem(run):
            problems.setdefault(why, []).append(run)
        elif run.claim == "fail":
            judged.append(run)
    for why, same in problems.items():
        lines.append(why + (f" (on {len(same)} runs)" if len(same) > 1 else ""))
    lines += wrong_verdicts(judged, every)
    alarms = [*(same[0] for same in problems.values()), *judged]
    log = next((run.log for run in alarms if run.design.correct), alarms[0].log if alarms else "")
    return lines, log


def gate(visible: list[RunResult]) -> Gate:
    found = Gate()
    if any(run.grader_error for run in visible):
        found.problems.append(GRADER_FAULT)
        found.tag = "grader error"
        return found
    found.problems, found.log = alarm_lines(visible, visible)
    if found.problems:
        found.tag = "false alarm"
    correct = [run for run in visible if run.design.correct]
    if any(not run.transcript.toggled and not run.transcript.violation for run in correct):
        found.tag = found.tag or "does not drive the design"
        found.problems.append("your testbench never changed the design's inputs on the correct design: a testbench must "
                              "drive the inputs (dut.peak_i.value = ...) with several vectors and check the outputs")
    by_format: dict[object, set[str]] = {}
    for run in visible:
        if run.behaved_correctly and not run.timed_out:
            by_format.setdefault(run.design.param_set, set()).add(run.transcript.digest)
    if any(len(digests) > 1 for digests in by_format.values()):
        found.notes.append("note: your testbench applied different vectors on runs where the design answered alike: it is "
                           "not deterministic. The grader fixes COCOTB_RANDOM_SEED (cocotb seeds `random` with it) and "
                           "PYTHONHASHSEED; seed anything else yourself (numpy.random.default_rng(seed)), never the time")
    return found


def score_reference(group: Group, runs: list[RunResult], verdict: Gate, visible_bugs: list[RunResult]) -> GroupScore:
    correct = [run for run in runs if run.design.correct]
    vectors = sum(run.transcript.known for run in correct)
    formats = ", ".join(dict.fromkeys(describe_format(run) for run in correct))
    seconds = max((run.seconds for run in runs), default=0.0)
    if not verdict.ok:
        return GroupScore(group, 0.0, "fail", [*verdict.problems, *verdict.notes, "a testbench that fails the correct "
                                               "design, or does not drive it, scores nothing in this lab"],
                          seconds, [verdict.tag], log=verdict.log)
    detail = [f"your testbench passed the correct design on all {len(correct)} runs ({formats}), "
              f"{vectors // max(1, len(correct)):,} vectors a run", *verdict.notes]
    if not any(caught(run) for run in visible_bugs):
        detail.append("but it also passed every example bug: it drives the design and checks nothing that tells a faulty "
                      "one apart. Compare cap_o and mem_bound_o with the values the contract gives, on every vector.")
        return GroupScore(group, 0.0, "fail", detail, seconds, ["checks nothing"])
    return GroupScore(group, group.weight, "pass", detail if verdict.notes else [], seconds)


def score_bugs(group: Group, runs: list[RunResult], verdict: Gate, every: list[RunResult]) -> GroupScore:
    """A group of faulty designs (and the correct design, whose runs must pass); `every` is the grading's runs."""
    faulty = [run for run in runs if not run.design.correct]
    seconds = max((run.seconds for run in runs), default=0.0)
    if not verdict.ok:
        return GroupScore(group, 0.0, "not run", [NOT_SCORED], seconds)
    if any(run.grader_error for run in runs):
        return GroupScore(group, 0.0, "error", [GRADER_FAULT], seconds)
    alarms, log = alarm_lines(runs, every)
    if alarms:
        return GroupScore(group, 0.0, "fail", [*alarms, "a false alarm scores this group nothing"], seconds,
                          ["false alarm"], log=log)
    hits = [run for run in faulty if caught(run)]
    marks = group.weight * len(hits) / len(faulty) if faulty else 0.0
    status = "pass" if len(hits) == len(faulty) else ("partial" if hits else "fail")
    detail = [f"caught {len(hits)} of {len(faulty)} faulty designs"] + by_kind(faulty)
    missed = [f"missed: {run.design.kind}" for run in faulty if not caught(run)]
    return GroupScore(group, marks, status, detail if status != "pass" else detail[:1], seconds, missed)


def by_kind(faulty: list[RunResult]) -> list[str]:
    """One line per kind of bug: how many were caught, by which of the student's tests; why the rest were not."""
    kinds = sorted({run.design.kind for run in faulty})
    width = max((len(kind) for kind in kinds), default=0)
    lines = []
    for kind in kinds:
        of_kind = [run for run in faulty if run.design.kind == kind]
        hits = [run for run in of_kind if caught(run)]
        tests = Counter(test.name.rpartition(".")[2] for run in hits for test in run.failed_tests)
        line = f"  {kind:<{width}}  {len(hits)} of {len(of_kind)} caught"
        if tests:
            line += " (by " + ", ".join(name for name, _ in tests.most_common(3)) + ")"
        unreached = sum(1 for run in of_kind if not run.transcript.exposed)
        let_through = len(of_kind) - len(hits) - unreached
        if unreached:
            line += f"; {unreached} never misbehaved on your vectors"
        if let_through:
            line += f"; {let_through} misbehaved on your vectors and your testbench passed it: a check is missing or too loose"
        lines.append(line)
        if len(hits) < len(of_kind) and kind in KIND_HINTS:
            lines.append(f"  {'':<{width}}  what to test: {KIND_HINTS[kind]}")
    return lines


def score_coverage(group: Group, runs: list[RunResult]) -> GroupScore:
    """The contract's functional bins the testbench's vectors reached on the correct design: shown, not scored."""
    hits: Counter[str] = Counter()
    correct = [run for run in runs if run.design.correct]
    for run in correct:
        hits.update(run.transcript.coverage)
    bins = {name: hits.get(name, 0) for name in expected_bins(SHELL_TOP, 1)}
    reached = sum(1 for count in bins.values() if count)
    detail = [f"your vectors on the correct design reached {reached} of the contract's {len(bins)} functional bins "
              f"(shown, not scored; hits over its {len(correct)} runs)", *table(bins)]
    return GroupScore(group, 0.0, "shown", detail, 0.0)
