"""One test of a bench: what it is given (`Run`), how it ends (a Verdict), how a recorded run
is judged again from its tape (`replay`), and how a failing one is replayed once more to see
where it went wrong (`trace`)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from typing import Any

from roofline_bench.coverage import Coverage
from roofline_bench.ports import PortError, Ports, Unresolved
from roofline_bench.tape import ReplayPorts, Tape, TapeEnded, TapeError, run_to_end
from roofline_bench.trace import MAX_MARKED, Trace, TracedPorts
from roofline_core.config import BenchConfig
from roofline_core.scoreboard import Field, Lines, Scoreboard, Verdict

# Vectors a per-vector bench's sweep judges at once (roofline_bench.batch). Kept here, not there: a bench
# that judges no rates (a divider, a counter, a register) imports neither numpy nor the batch judge.
BATCH = 4096


class Stopped(Exception):
    """The bench has recorded a failure after which nothing can be checked (an output X/Z at a reset,
    where the contract says low, or in a stream's cycle): the test ends here. Checking on would blame
    what follows the X (a result that never came) on another kind of bug."""


@dataclass
class Run:
    """What a bench test works with: the run's settings, the design's ports, its scoreboard,
    the run's coverage, and a log."""

    cfg: BenchConfig
    test: str
    ports: Ports
    coverage: Coverage
    log: logging.Logger
    batch_size: int = BATCH  # vectors a sweep judges at once (a trace judges each as it is sampled, at its cycle)
    sb: Scoreboard = field(init=False)

    def __post_init__(self) -> None:
        self.sb = Scoreboard(self.cfg, self.test, self.log)

    @property
    def params(self) -> Any:
        return self.cfg.params


TestBody = Callable[[Run], Awaitable[None]]


@dataclass(frozen=True)
class BenchTest:
    """A test of a bench: its name (what cocotb, TESTCASE= and a lab's groups call it) and body."""

    name: str
    body: TestBody
    doc: str


def tests(*bodies: TestBody) -> dict[str, BenchTest]:
    """A bench's tests, in order, named after their functions."""
    return {body.__name__: BenchTest(body.__name__, body, (body.__doc__ or "").strip()) for body in bodies}


def matrix(name: str, body: Callable[..., Awaitable[None]], **axes: tuple[str, ...]) -> dict[str, BenchTest]:
    """One test body multiplied over every combination of its options, as cocotbext-axi's benches
    multiply a test over idle and back-pressure inserters: `<name>_<option>_<value>_...`."""
    found = {}
    for values in product(*axes.values()):
        chosen = dict(zip(axes, values, strict=True))
        test = "_".join([name, *(f"{axis}_{value}" for axis, value in chosen.items())])
        found[test] = BenchTest(test, partial(body, **chosen), (body.__doc__ or "").strip() + f" ({chosen})")
    return found


async def execute(test: BenchTest, run: Run) -> Verdict:
    """Run the test to its end and give its verdict. A port the design lacks, an X/Z the bench
    did not expect, a failure the bench stopped at (Stopped), or (replaying) a reply that ran out or
    cannot be true ends the test early:
    it then fails, scored against everything it meant to check."""
    try:
        await test.body(run)
    except TapeEnded as problem:
        return run.sb.verdict(str(problem), ran_out=True)
    except Unresolved as problem:  # a failure of its own kind too, so that feedback can name it
        run.sb.fail("unknown_value", f"X/Z {run.cfg.top}: {problem}", kind="unresolved", event=True)
        return run.sb.verdict(str(problem))
    except (PortError, TapeError, Stopped) as problem:
        return run.sb.verdict(str(problem))
    return run.sb.verdict()


_QUIET = logging.getLogger("roofline_bench.replay")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def replay(test: BenchTest, cfg: BenchConfig, tape: Tape | None) -> Verdict:
    """Judge a recorded test again, here, from its tape; a test with no tape ran nothing."""
    if tape is None:
        return Scoreboard(cfg, test.name, _QUIET).verdict("the simulation did not run this test")
    run = Run(cfg, test.name, ReplayPorts(tape), Coverage(), _QUIET)
    try:
        return run_to_end(execute(test, run))
    except Exception as problem:  # noqa: BLE001 - a reply that breaks the judge fails, never passes
        return run.sb.verdict(f"the reply could not be judged ({type(problem).__name__}: {problem})")


class MarkingScoreboard(Scoreboard):
    """A scoreboard that also tells a Trace where each check and failure happened."""

    def __init__(self, cfg: BenchConfig, test: str, log: logging.Logger, trace: Trace) -> None:
        super().__init__(cfg, test, log)
        self.trace = trace

    def check(self, vector_id: str | int, label: str, inputs: Lines, fields: list[Field], context: Lines | None = None,
              regimes: Callable[[], tuple[str, ...]] | None = None, values: bool = True) -> bool:
        passed = super().check(vector_id, label, inputs, fields, context, regimes, values)
        for checked in fields:
            self.trace.add("expect", checked.name, checked.expected)
        if not passed:
            self.trace.mark(str(vector_id), "mismatch", label,
                            tuple((f.name, f.expected, f.actual, f.decode) for f in fields))
        return passed

    def fail(self, vector_id: str | int, message: str, *, kind: str, event: bool = False, label: str = "",
             regimes: tuple[str, ...] = (), since: int = 0) -> None:
        super().fail(vector_id, message, kind=kind, event=event, label=label, regimes=regimes, since=since)
        self.trace.mark(str(vector_id), kind, label, message=message.splitlines()[0] if message else "", event=event,
                        since=since)


def trace(test: BenchTest, cfg: BenchConfig, tape: Tape, *, until_first: bool = True, max_marked: int = MAX_MARKED) -> Trace:
    """Replay a test once more, keeping a Trace: the cycles around its first failure in time (the
    replay stops a few steps after it), or with until_first=False the failures of the first
    `max_marked` failing vectors and their inputs (it stops there). Sweeps are judged vector by
    vector here, so each failure is marked in the cycle it was sampled in; the verdict is the
    same as replay's, and is not kept."""
    found = Trace(dict(tape.widths), until_first=until_first, max_marked=max_marked)
    run = Run(cfg, test.name, TracedPorts(tape, found), Coverage(), _QUIET, batch_size=1)
    run.sb = MarkingScoreboard(cfg, test.name, _QUIET, found)
    # TraceComplete ends it once the trace has what it needs; a reply that breaks the judge (and so
    # fails its replay) ends it where it broke.
    with contextlib.suppress(Exception):
        run_to_end(execute(test, run))
    return found
