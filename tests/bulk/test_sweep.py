"""`make sweep`'s exit paths without a simulator (roofline_bulk.sweep): what it checked decides its exit
status, bad input is one line, and the command line becomes its config. Fast, so that `make mutation`
runs it per mutant; tests/project/test_exit_status.py runs the real command."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import pytest

from roofline_bulk import sweep
from roofline_core.tools import ToolError


@dataclass
class Swept:
    """What run_sweep gives back, as far as the exit status reads it."""

    passed: int
    failed: int
    failures: list[object] = field(default_factory=list)


@pytest.fixture
def sweeping(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, object]:
    """The sweep's outcome, as the test sets it: (vectors passed, vectors failed), and the summary's verdict."""
    outcome: dict[str, object] = {"result": Swept(200, 0), "summary": True, "raise": None}

    def run_sweep(cfg: object, quiet: bool) -> tuple[Swept, dict[str, int]]:
        outcome["quiet"] = quiet
        if outcome["raise"] is not None:
            raise outcome["raise"]  # type: ignore[misc]
        return outcome["result"], {}  # type: ignore[return-value]

    monkeypatch.setattr(sweep, "run_sweep", run_sweep)
    monkeypatch.setattr(sweep, "sweep_build", lambda cfg: SimpleNamespace(folder=tmp_path))
    def summarize(*args: object) -> object:
        outcome["log"] = args[-1]  # where the simulator's output went: a log file, or the terminal (None)
        outcome["seconds"] = args[-2]  # how long the sweep took
        return outcome["summary"]

    @contextlib.contextmanager
    def progress() -> Iterator[None]:
        outcome["progress"] = True
        yield

    monkeypatch.setattr(sweep, "summarize", summarize)
    monkeypatch.setattr(sweep, "progress_on_terminal", progress)
    return outcome


def test_a_quiet_sweep_logs_the_simulator_and_shows_progress_and_a_verbose_one_shows_the_simulator(
        sweeping: dict[str, object], tmp_path: Path) -> None:
    assert sweep.main(SWEEP) == 0
    assert (sweeping["log"], sweeping.get("progress"), sweeping["quiet"]) == (tmp_path / "sim.log", True, True)
    assert 0 <= sweeping["seconds"] < 60  # type: ignore[operator]  # the time since the sweep started
    sweeping.pop("progress")
    assert sweep.main([*SWEEP, "--verbose"]) == 0
    assert (sweeping["log"], sweeping.get("progress"), sweeping["quiet"]) == (None, None, False)

SWEEP = ["--sim", "icarus", "--top", "roofline_attainable", "-n", "200", "--seed", "1"]


@pytest.mark.parametrize(("result", "summary", "status"), [
    (Swept(200, 0), True, 0),
    (Swept(199, 1), True, 1),  # a mismatched vector, whatever the summary says
    (Swept(200, 0), False, 1),  # the summary found a problem (coverage, a bound)
    (Swept(0, 0), True, 1),  # nothing checked is no pass
    (Swept(1, 0), True, 0),  # one vector checked is a pass (N=1)
], ids=["passed", "a-mismatch", "summary-failed", "nothing-checked", "one-vector"])
def test_the_sweep_exits_by_what_it_checked(sweeping: dict[str, object], result: Swept, summary: bool, status: int) -> None:
    sweeping.update(result=result, summary=summary)
    assert sweep.main(SWEEP) == status


def test_a_build_that_stops_exits_1_and_bad_input_exits_2(sweeping: dict[str, object],
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    sweeping["raise"] = SystemExit("verilator: %Error")
    assert sweep.main(SWEEP) == 1
    assert "error: the build or the simulator failed (verilator: %Error)" in capsys.readouterr().err
    sweeping["raise"] = ToolError("iverilog not found")
    assert sweep.main(SWEEP) == 2
    assert capsys.readouterr().err.strip() == "error: iverilog not found"


@pytest.mark.parametrize(("arguments", "message"), [
    (["-n", "0"], "error: N must be at least 1"),
    (["--only", "200"], "error: ONLY=200: this sweep numbers its vectors 0..199"),
    (["--only", "-1"], "error: ONLY=-1: this sweep numbers its vectors 0..199"),
    (["--shard", "2/4"], "error: SHARD=2/4: the sweep's 200 vector(s) are cut into shards of whole blocks of 65,536, "
                         "1 block(s) here, and this shard gets none: give at most 1 shard(s), or a larger N"),
    (["--shard", "0/2"], "error: SHARD=0/2: the sweep's 200 vector(s) are cut into shards of whole blocks of 65,536, "
                         "1 block(s) here, and this shard gets none: give at most 1 shard(s), or a larger N"),
])
def test_an_impossible_sweep_is_one_line_and_exit_2(sweeping: dict[str, object], arguments: list[str], message: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert sweep.main([*SWEEP, *arguments]) == 2
    assert capsys.readouterr().err.strip() == message


@pytest.mark.parametrize(("count", "shard"), [(200, "1/2"), (200, "3/4"), (65_537, "0/2"), (65_537, "1/2")])
def test_a_shard_that_holds_vectors_runs(sweeping: dict[str, object], count: int, shard: str) -> None:
    """Shards are cut on blocks: of one block the last shard holds it; of two blocks, each of two shards one."""
    assert sweep.main([*SWEEP[:4], "-n", str(count), "--seed", "1", "--shard", shard]) == 0


def test_the_last_vector_may_be_run_alone(sweeping: dict[str, object]) -> None:
    assert sweep.main([*SWEEP, "--only", "199"]) == 0


def test_every_top_must_pass(sweeping: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    verdicts = iter([0, 1])
    monkeypatch.setattr(sweep, "run_one", lambda cfg, verbose: next(verdicts))
    assert sweep.main([*SWEEP[:2], "--top", "all", *SWEEP[4:]]) == 1


@pytest.fixture
def configs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The configurations main hands to run_one, which passes."""
    seen: list[object] = []
    monkeypatch.setattr(sweep, "run_one", lambda cfg, verbose: seen.append(cfg) or 0)
    return seen


def test_the_smallest_sweep_and_the_first_vector_are_allowed(configs: list[object]) -> None:
    assert sweep.main(["--sim", "icarus", "--top", "roofline_attainable", "-n", "1", "--seed", "1"]) == 0
    assert sweep.main([*SWEEP, "--only", "0"]) == 0
    assert [(c.count, c.only) for c in configs] == [(1, None), (200, 0)]  # type: ignore[attr-defined]


def test_a_seed_given_is_used_and_one_not_given_is_drawn_from_31_bits(configs: list[object],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """31 bits, as every other random run draws its seed (tests/conftest.py, make sim)."""
    drawn: list[int] = []
    monkeypatch.setattr(sweep.random, "randrange", lambda stop: drawn.append(stop) or 12345)
    assert sweep.main(SWEEP) == 0 and sweep.main(SWEEP[:-2]) == 0
    assert [c.seed for c in configs] == [1, 12345] and drawn == [1 << 31]  # type: ignore[attr-defined]


def test_the_command_line_is_read_from_argv(configs: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["sweep.py", *SWEEP])
    assert sweep.main() == 0 and configs[0].count == 200  # type: ignore[attr-defined]


@pytest.mark.parametrize(("sim", "top", "lanes"), [("verilator", "roofline_attainable", 64),
                                                   ("verilator", "roofline_hierarchy", 8), ("icarus", "roofline_attainable", 1)])
def test_lanes_default_per_simulator_and_module(configs: list[object], sim: str, top: str, lanes: int) -> None:
    """--lanes's help: on Verilator 64 for a one-level module, 8 for one with memory levels; on Icarus 1."""
    assert sweep.main(["--sim", sim, "--top", top, "-n", "200", "--seed", "1"]) == 0
    assert configs[0].lanes == lanes  # type: ignore[attr-defined]


def test_the_lanes_help_gives_the_defaults_a_sweep_takes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        sweep.parse_args(["--help"])
    help_text = "".join(capsys.readouterr().out.split())  # however argparse wrapped it
    assert "(default on Verilator: 64 for a one-level module, 8 for one with memory levels; on Icarus: 1)".replace(" ", "") \
        in help_text
