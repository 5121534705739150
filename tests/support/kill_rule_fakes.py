"""A fake proof runner and the outcomes sby.run can give, for the kill rule's tests without a solver
(tests/flows/test_kill_rule.py and test_kill_rule_mutants.py)."""

from __future__ import annotations

from pathlib import Path

from roofline_flows import counterexamples, sby

TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
SEQUENTIAL = TASKS["roofline_intensity.data_uq2_2_c5"]  # k-induction with a ports-only depth of 20
DECODED = ["counterexample, inputs at each clock (a bus shown when it changes):", "  clock 0: rst_ni=0 start_i=1"]


def failed(task: sby.Task, trace: str = "engine_0/trace.vcd", invariants_only: bool = False) -> sby.Outcome:
    detail = ["failed: props_intensity.sv:113.7-113.32", *DECODED, f"waveform: /work/{task.name}/{trace}"]
    if invariants_only:
        detail.insert(1, counterexamples.INVARIANTS_NOTE + ", attached because the drop-in has signals named like ...")
    return sby.Outcome(task, False, 1.0, "assertion fails", detail)


def not_closed(task: sby.Task) -> sby.Outcome:
    return sby.Outcome(task, False, 1.0, "induction did not close",
                       ["failed: props_intensity.sv:170.9-170.40", f"waveform: /work/{task.name}/engine_0/trace_induct.vcd"])


class FakeProver:
    """Answers the first run of a task with `first`, a rerun without probes with `rerun`."""

    def __init__(self, first: object, rerun: object = None) -> None:
        self.first, self.rerun = first, rerun
        self.calls: list[tuple[str, str, bool]] = []

    def __call__(self, task: sby.Task, work: Path, timeout: float, drop_in: str, use_probes: bool) -> sby.Outcome:
        self.calls.append((task.name, task.mode, use_probes))
        answer = self.first if use_probes else self.rerun
        assert answer is not None, "no rerun expected"
        return answer(task) if callable(answer) else answer  # type: ignore[return-value]
