"""The trusted judge: a group's score from what the design did at its ports, decided here.

The group's tests ran in this process, their bench driving the design through the sandbox's
puppet (roofline_bench.remote): the reply holds the tapes this process wrote (every value the
bench read) and the verdicts it reached, which a replay of the tapes (roofline_bench.run.replay)
gives again. A test with no tape, a tape that runs out, a value a port cannot hold or a reply
the protocol voided is a failure, never a pass. The worst a design can do is make its ports
look like those of a correct design, which is the assignment.
"""

from __future__ import annotations

from dataclasses import dataclass

from roofline_bench.benches import TESTS
from roofline_bench.run import replay
from roofline_bench.tape import Reply
from roofline_core.config import BenchConfig
from roofline_core.scoreboard import Failure, Verdict
from roofline_course.design_lab import scoring
from roofline_course.design_lab.hints import EVIDENT, hints_for
from roofline_course.labs.definitions import Group, Lab
from roofline_course.results import GroupScore

MAX_REPORTS_SHOWN = 3
MAX_REPORT_LINES = 14
MAX_NAMED = 12  # failing cases (and events) named in a group's detail; the rest are counted


@dataclass(frozen=True)
class RunFacts:
    """What the sandbox's outcome says of the run, besides the reply: how it ended, where its log is."""

    seconds: float
    timed_out: bool
    limit_s: float
    crashed: bool
    log: str  # the simulator log, relative to the report folder
    shared_with: tuple[str, ...] = ()  # the other groups of the same simulation
    explanation: str = ""  # why the simulator stopped, when its log says (a loop Verilator names): words only
    stalled_s: float | None = None  # stopped early: its reply had been silent this long (a hang)


def bench_config(lab: Lab, group: Group, sim: str, rtl: str) -> BenchConfig:
    return BenchConfig(lab.top, sim, group.param_set, group.seed, sweep=group.sweep, rtl=rtl)


def verdicts(lab: Lab, group: Group, reply: Reply, sim: str, rtl: str) -> dict[str, Verdict]:
    """Each test's verdict: the one this process reached while it drove the design (the same as a replay
    of its tape), or the replay of a tape that came back."""
    cfg = bench_config(lab, group, sim, rtl)
    bench = TESTS[lab.top]
    return {test: reply.judged.get(test) or replay(bench[test], cfg, reply.tapes.get(test)) for test in group.tests}


def score(lab: Lab, group: Group, found: dict[str, Verdict], reply: Reply, facts: RunFacts, rerun: str) -> GroupScore:
    """The group's marks and what a student reads about them."""
    tests = list(found.values())
    marks = group.weight * scoring.earned(lab, group, tests)
    failing = [f"{v.test}: {name}" for v in tests for name in v.failed]
    detail: list[str] = []
    if facts.timed_out:
        status = "timeout"
        stopped = (f"sent nothing for {facts.stalled_s:g} s once it had begun (its limit is {facts.limit_s:.0f} s)"
                   if facts.stalled_s else f"did not finish within {facts.limit_s:.0f} s")
        detail += [f"TIMEOUT: the simulation {stopped} and was stopped; every test counts against all of its cases, "
                   "checked or not.",
                   "Logic that never settles (a combinational loop: a signal that depends on itself through assign or "
                   "always @*) or a handshake that never completes does this."]
    elif (facts.crashed and not reply.tapes) or any(v.ran_out for v in tests):
        status = "crash"  # the simulation stopped before the tests ended (a limit, a crash, an output flood)
    else:
        status = "pass" if all(v.passed for v in tests) else ("partial" if marks > 0 else "fail")
    if facts.crashed and not facts.timed_out:
        detail.append("the simulation was stopped by a limit (memory, processes, output or CPU time) before it finished")
    if reply.problem:
        detail.append(f"the simulation's reply could not all be read: {reply.problem}")
    if facts.explanation and any(v.stopped for v in tests):
        detail.append(facts.explanation)
    detail += [f"note from the simulation: {note[:300]}" for note in reply.notes if not all(v.passed for v in tests)][:3]
    reports: list[str] = []
    for verdict in tests:
        if verdict.passed:
            continue
        named = f"{verdict.test}: " if len(tests) > 1 else ""  # a group of one test is named by the group
        detail.append(f"{named}{_headline(verdict)}")
        if rule := scoring.rule_line(lab, verdict):
            detail.append(f"    {rule}")
        cases, events = verdict.cases_failed, verdict.events
        if len(cases) > 1:
            detail.append(f"    failing: {_listed(cases)}")
        if events:
            detail.append(f"    events that failed: {_listed(events)}")
        reports += verdict.reports
    for report in reports[:MAX_REPORTS_SHOWN]:
        lines = report.splitlines()
        detail += ["    " + line.strip() if i else "  " + line.strip() for i, line in enumerate(lines[:MAX_REPORT_LINES])]
        if len(lines) > MAX_REPORT_LINES:
            detail.append("    ...")
    if len(reports) > MAX_REPORTS_SHOWN:
        detail.append(f"  ... and {len(reports) - MAX_REPORTS_SHOWN} more report(s): each failing case's rerun line "
                      "(make sim ... ONLY=<case>) prints its own")
    if detail:
        detail += _hints(lab, group, tests)
        detail.append(f"run it yourself: {rerun}")
        if facts.shared_with:
            detail.append(f"(this simulation ran the groups {', '.join(facts.shared_with)} together)")
    return GroupScore(group, marks, status, detail, facts.seconds, failing, rerun, facts.log)


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join(names[:MAX_NAMED]) + (f" and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else "")


def _telling(verdict: Verdict) -> list[Failure]:
    """The failures of a test that say the kind of its bug. A broken event (a timeout, a second
    done_o, a reset not obeyed) says it by itself, and the wrong values that follow it in the same
    test are its consequences (a reset ignored leaves stale results, whatever their products)."""
    evident = [f for f in verdict.failures if f.kind in EVIDENT]
    return evident or list(verdict.failures)


def _hints(lab: Lab, group: Group, tests: list[Verdict]) -> list[str]:
    """A hint for each kind of failure, of the kinds the lab lists, from the tests the design got
    partly right: a wrong value in a test it got no case of beyond chance says nothing about the
    kind of its bug (an output wrong everywhere fails wide products, ties and ridges alike), so it
    is told that instead. A failure that names its kind (hints.EVIDENT) counts wherever it is."""
    failing = [v for v in tests if not v.passed]
    telling = [v for v in failing if v.credit > 0 and not scoring.broken(lab, v)]
    evident = [f for v in failing if v not in telling for f in v.failures if f.kind in EVIDENT]
    lost = [v for v in failing if v.credit == 0 and v.checked and not any(f.kind in EVIDENT for f in v.failures)]
    found = hints_for([f for v in telling for f in _telling(v)] + evident, lab.top, lab.hints, "" if lost else group.hint)
    if lost and not telling and not evident:
        found.append("hint: no case of " + ", ".join(v.test for v in lost) + " passed beyond what constant outputs "
                     "would pass: check that every output is computed from the inputs, on every path")
        found += [f"hint: {group.hint}"] if group.hint else []
    return found


def _headline(verdict: Verdict) -> str:
    """One line: how many of its cases passed (events are counted apart), and why the test stopped early when it did."""
    planned = max(verdict.planned, verdict.checked)
    line = f"{min(verdict.cases_passed, planned)} of {planned} passed" if planned else "nothing was checked"
    if verdict.cases_failed:
        line += f", first failing: {verdict.cases_failed[0]}"
    if verdict.events:
        line += f"; {len(verdict.events)} event(s) failed, the first {verdict.events[0]}"
    if verdict.stopped:
        line += f"; it stopped early: {verdict.stopped}"
        if verdict.checked < planned:
            line += f" ({planned - verdict.checked} not checked)"
    return line
