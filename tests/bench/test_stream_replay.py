"""A proof's counterexample on the pipe, replayed as a bench (counterexample.StreamReplay), holds the
valid/ready rule cycle by cycle: a result not taken must stay as it is until it is, so a design whose
held result changes while out_ready_i is low fails the replay as a handshake, even when the result is
right whenever it is taken; the same trace on a right design passes. A cycle model stands in for the
design (tests/support/sequential_design.py)."""

from __future__ import annotations

from sequential_design import LOG, ClockedPorts, PipeModel

from roofline_bench.counterexample import StreamReplay, Witness
from roofline_bench.coverage import Coverage
from roofline_bench.run import Run, execute
from roofline_bench.run import tests as bench_tests
from roofline_bench.tape import Tape, run_to_end
from roofline_core.config import BenchConfig
from roofline_core.contract import RESET_PORT, ParamSet
from roofline_core.scoreboard import Verdict

TOP = "roofline_hierarchy_pipe"
CFG = BenchConfig(TOP, "icarus", ParamSet(8, 8, 2), 5)
ONE = 1 << 8


def step(valid: int, ready: int, ai: int = 0, reset: int = 1) -> dict[str, int]:
    return {RESET_PORT: reset, "in_valid_i": valid, "out_ready_i": ready, "peak_i": 100 * ONE,
            "bw_i": ONE | (2 * ONE) << 16, "ai_i": (ai * ONE) | ((ai + 1) * ONE) << 16}


# Reset; two inputs in; the sink not ready for six cycles while they reach the end; then it takes them.
TRACE = (step(0, 0, reset=0), step(1, 0, ai=3), step(1, 0, ai=5), *[step(0, 0)] * 6, step(0, 1), step(0, 1))


def replayed(bug: str) -> Verdict:
    params = CFG.params
    values = {"W": params.fmt.width, "LEVELS": params.levels, "INT_BITS": params.fmt.int_bits,
              "FRAC_BITS": params.fmt.frac_bits, "COUNT_BITS": params.count_bits}
    ports = ClockedPorts(PipeModel(params.fmt, params.levels, 1, bug), TOP, values, Tape("replay", {}), False)
    witness = Witness(TRACE, {}, {})

    async def counterexample(run: Run) -> None:
        await StreamReplay(run, witness).drive()

    (test,) = bench_tests(counterexample).values()
    return run_to_end(execute(test, Run(CFG, "counterexample", ports, Coverage(), LOG)))


def test_the_trace_passes_on_a_design_that_holds_its_result() -> None:
    verdict = replayed("")
    assert verdict.passed and verdict.checked >= 1, verdict.reports


def test_a_held_result_that_changes_fails_the_replay_as_a_handshake() -> None:
    verdict = replayed("flickers while stalled")
    assert not verdict.passed and dict(verdict.kinds) == {"handshake": 1}, (verdict.kinds, verdict.reports[:1])
    assert "a result not taken (out_ready_i low) changed or was dropped" in verdict.reports[0]
