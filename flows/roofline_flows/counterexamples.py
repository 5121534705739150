"""What a failed proof must show before it counts as a bug found: a counterexample.

A task's failure is a counterexample only when a property of the harness fails in a trace that
starts from reset (SymbiYosys's base case, or BMC): the trace file is kept and its inputs are
decoded (sby.decoded_trace). An induction step that does not close proves nothing either way: its
trace starts from a state no run may reach, and an equivalent design that breaks one of the
project's internal invariants fails it too. Such a task, and one that fails only those invariants,
is rerun as BMC from reset without them (`bmc_task`) to look for a real trace. A timeout or a
harness that cannot attach is never a counterexample.

A counterexample of a unit with a bench is replayed by it: `replay_command` is the `make sim` line
that drives the trace's inputs, clock by clock, into the bench of that unit (REPLAY=).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from roofline_core.contract import MODULES, TOPS
from roofline_flows import sby

# Outcomes worth a rerun from reset without the internal invariants: induction did not close, only
# internal invariants failed, or the run stopped with an error (a probed register the mutant lets Yosys
# remove no longer connects). A timeout or a failed attach is not rerun: never a kill.
RERUN_FROM_RESET = ("induction did not close", "assertion fails", "ERROR")
INVARIANTS_NOTE = "note: only internal invariants failed"


@dataclass(frozen=True)
class Counterexample:
    failed: str  # "failed: props_round_cap.sv:30.7-30.60", the first property that fails
    trace: Path  # the waveform of the trace from reset
    decoded: tuple[str, ...]  # its inputs clock by clock, in the format's units


def from_outcome(outcome: sby.Outcome) -> Counterexample | None:
    """The counterexample a failed task holds, or None: a failed assertion of the harness (not only
    the project's internal invariants) with a trace from reset (not an induction step's)."""
    if outcome.passed or outcome.summary != "assertion fails":
        return None
    if any(line.startswith(INVARIANTS_NOTE) for line in outcome.detail):
        return None
    failed = [line for line in outcome.detail if line.startswith("failed: ")]
    traces = [Path(line.removeprefix("waveform: ")) for line in outcome.detail if line.startswith("waveform: ")]
    traces = [trace for trace in traces if "induct" not in trace.name]
    if not failed or not traces:
        return None
    decoded = tuple(line for line in outcome.detail if line.startswith(("counterexample", "  ")))
    return Counterexample(failed[0], traces[0], decoded)


def why_rerun(outcome: sby.Outcome) -> str:
    if outcome.summary == "induction did not close":
        return "induction did not close (no trace from reset)"
    if any(line.startswith(INVARIANTS_NOTE) for line in outcome.detail):
        return "only the project's internal invariants failed"
    if outcome.summary == "ERROR":
        return "the run with the internal invariants stopped with an error"
    return f"{outcome.summary} with no trace from reset"


def bmc_task(task: sby.Task) -> sby.Task:
    """The task as bounded model checking from reset, to its ports-only depth (what it checks a
    drop-in without the project's registers to), meant to run without the internal invariants."""
    options = tuple("mode bmc" if line.split()[:1] == ["mode"] else line for line in task.options)
    return dataclasses.replace(task, mode="bmc", options=options)


def replay_command(task: sby.Task, trace: Path, rtl: str | None) -> str:
    """`make sim` replaying this trace in the bench of the task's unit, at the task's parameters
    ('' when the unit has no bench: a building block's counterexample is shown decoded)."""
    if task.unit not in TOPS:
        return ""
    module = MODULES[task.unit]
    values = " ".join(f"{name}={task.params.get(name, default)}" for name, default in module.parameters.items())
    return f"make sim TOP={task.unit} {values} REPLAY={trace}" + (f" RTL={rtl}" if rtl else "")
