"""A failing proof becomes a bench: the counterexample make mutants' proof layer finds for a mutant of
the catalogue is replayed by `make sim ... REPLAY=<trace>` on both simulators, and fails there with
a rerun line that replays it again; the project's RTL passes the same trace. One combinational unit
(roofline_attainable, a base-case counterexample) and one sequential (roofline_intensity, whose data
proof does not close on the mutant, so the trace comes from the BMC rerun from reset)."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from roofline_core.config import SIMS, BenchConfig
from roofline_core.contract import MODULES, ParamSet
from roofline_core.runner import run_bench
from roofline_core.tools import ToolError
from roofline_flows import rtl_mutants, sby
from roofline_flows.rtl_mutant_catalogue import apply, load_catalogue

pytestmark = [pytest.mark.full, pytest.mark.sim]
TASKS = {f"{t.unit}.{t.name}": t for t in sby.tasks()}
CASES = {"combinational": ("verdict_direction", "roofline_attainable.verdict"),
         "sequential": ("div0_one_bit_short", "roofline_intensity.data_uq2_2_c5")}


@pytest.fixture(scope="module")
def command() -> list[str]:
    try:
        return sby.toolchain()[0]
    except ToolError as problem:
        pytest.skip(str(problem))


def replay_words(line: str) -> dict[str, str]:
    """The NAME=value words of a `make sim` line."""
    return dict(word.split("=", 1) for word in shlex.split(line) if "=" in word)


@pytest.fixture(scope="module", params=sorted(CASES))
def killed(request: pytest.FixtureRequest, command: list[str], tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[dict[str, str], Path]:
    mutant_id, task_name = CASES[request.param]
    mutant = next(m for m in load_catalogue() if m.id == mutant_id)
    folder = tmp_path_factory.mktemp(mutant_id)
    mutated = apply(mutant, folder)
    cell = rtl_mutants.judge_proofs([TASKS[task_name]], mutated, folder / "prove", 900,
                                    rtl_mutants.partial(rtl_mutants._sby_prover, command))
    assert cell.outcome == "killed", cell.detail
    replay = next(line.removeprefix("replay: ") for line in cell.evidence if line.startswith("replay: "))
    words = replay_words(replay)
    assert words["TOP"] == TASKS[task_name].unit and Path(words["REPLAY"]).is_file() and words["RTL"] == str(mutated)
    return words, mutated


def config(words: dict[str, str], sim: str, rtl: str | None) -> BenchConfig:
    top = words["TOP"]
    values = {name.lower(): int(words[name]) for name in MODULES[top].parameters}
    return BenchConfig(top, sim, ParamSet(**values), 1, rtl=rtl, replay=words["REPLAY"])


@pytest.mark.parametrize("sim", SIMS)
def test_the_counterexample_fails_the_bench_on_both_simulators_and_reruns(killed: tuple[dict[str, str], Path],
                                                                          sim: str) -> None:
    words, mutated = killed
    result = run_bench(config(words, sim, str(mutated)))
    assert result.failed == 1 and result.passed == 0, result.failures
    assert f"REPLAY={words['REPLAY']}" in result.failures[0] and f"RTL={mutated}" in result.failures[0]
    assert f"SIM={sim}" in result.failures[0]


def test_the_project_rtl_passes_the_same_trace(killed: tuple[dict[str, str], Path]) -> None:
    words, _ = killed
    result = run_bench(config(words, "icarus", None))
    assert result.failed == 0 and result.passed == 1, result.failures
