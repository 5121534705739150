"""The RTL regression: every cocotb bench on Icarus and Verilator, over every parameter set.

ROOFLINE_RTL=<file or folder> (make test RTL=...) swaps in another implementation.
"""

from __future__ import annotations

import os

import pytest

from roofline_bench import coverage
from roofline_core.config import SIMS, BenchConfig
from roofline_core.contract import DEFAULT_SET, PADDED_TOP, PADDING_SETS, PARAM_SETS, TOPS, ParamSet
from roofline_core.runner import run_bench
from roofline_core.simulator import BenchResult


def run_or_fail(cfg: BenchConfig) -> BenchResult:
    try:
        return run_bench(cfg)
    except SystemExit as stop:  # cocotb-test's way of saying the build or simulator failed
        pytest.fail(f"{cfg.top} on {cfg.sim} ({cfg.param_set.tag}) did not build or run: {stop}")


def everyday(top: str, param_set: ParamSet, sim: str) -> bool:
    """make test's share: every bench on both simulators at the default set, and the pipeline at its
    deepest multiply on Verilator (and at the padding sets on Icarus, below); the other sets run in
    make test-all."""
    deepest = max(p.mul_stages for p in PARAM_SETS)
    return param_set == DEFAULT_SET or (top == "roofline_hierarchy_pipe" and param_set.mul_stages == deepest
                                        and sim == "verilator")


CASES = [pytest.param(top, p, sim, id=f"{top}-{p.tag}-{sim}", marks=() if everyday(top, p, sim) else pytest.mark.full)
         for top in TOPS for p in PARAM_SETS for sim in SIMS]
# The sum tree with a padded top slice at each MUL_STAGES above 1: everyday on Icarus, both simulators in full.
CASES += [pytest.param(PADDED_TOP, p, sim, id=f"{PADDED_TOP}-{p.tag}-{sim}", marks=() if sim == "icarus" else pytest.mark.full)
          for p in PADDING_SETS for sim in SIMS]


@pytest.mark.sim
@pytest.mark.rtl
@pytest.mark.parametrize(("top", "param_set", "sim"), CASES)
def test_rtl(top: str, param_set: ParamSet, sim: str, seed: int) -> None:
    cfg = BenchConfig(top, sim, param_set, seed, rtl=os.environ.get("ROOFLINE_RTL") or None)
    result = run_or_fail(cfg)
    assert result.failed == 0 and result.passed > 0, (
        f"{result.failed} cocotb test(s) failed; log and results: {result.build_dir}\n" + "\n\n".join(result.failures)
    )
    never = coverage.missed(result.build_dir, top, param_set.levels)
    assert not never, f"functional coverage: {len(never)} bin(s) never hit: {', '.join(never)}"


def test_the_padding_sets_run_in_the_everyday_tier_on_icarus() -> None:
    everyday = {param.id for param in CASES if not param.marks}
    assert {f"{PADDED_TOP}-{p.tag}-icarus" for p in PADDING_SETS} <= everyday
    assert not {f"{PADDED_TOP}-{p.tag}-verilator" for p in PADDING_SETS} & everyday  # make test-all runs those
