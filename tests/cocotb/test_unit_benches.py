"""The building blocks' unit benches (flow "unit"): the project's register passes its bench on both
simulators at every lint set, and each of the catalogue's register bugs fails it with a message that
names what went wrong (make mutants counts them killed by this bench)."""

from __future__ import annotations

import os

import pytest
from places import INDEPENDENT_DIR

from roofline_bench.benches import UNIT_TESTS
from roofline_core.config import SIMS
from roofline_core.contract import modules_with
from roofline_core.runner import run_units
from roofline_flows.rtl_mutant_catalogue import Mutant, apply, load_catalogue

UNITS = modules_with("unit")
UNIT_MUTANTS = [mutant for mutant in load_catalogue() if mutant.top in UNITS]


@pytest.mark.sim
@pytest.mark.parametrize("sim", SIMS)
@pytest.mark.parametrize("top", UNITS)
def test_the_rtl_passes_its_unit_bench(top: str, sim: str, seed: int) -> None:
    results = run_units(top, sim, seed, os.environ.get("ROOFLINE_RTL") or None, quiet=True)
    for result in results:
        assert result.failed == 0, "\n\n".join(result.failures)
        assert set(result.passed_tests) == set(UNIT_TESTS[top]), result.build_dir


@pytest.mark.sim
def test_an_independent_register_passes_the_unit_bench(seed: int) -> None:
    """The bench holds the register's documented behaviour, not this implementation's."""
    for result in run_units("roofline_pipe_reg", "icarus", seed, str(INDEPENDENT_DIR / "roofline_pipe_reg.sv"), quiet=True):
        assert result.failed == 0 and result.passed == len(UNIT_TESTS["roofline_pipe_reg"]), "\n\n".join(result.failures)


def test_every_register_bug_of_the_catalogue_says_what_its_bench_must_name() -> None:
    assert len(UNIT_MUTANTS) >= 4
    assert all(mutant.expect_in_failure for mutant in UNIT_MUTANTS)


@pytest.mark.sim
@pytest.mark.parametrize("mutant", UNIT_MUTANTS, ids=lambda m: m.id)
def test_a_register_bug_fails_its_unit_bench_naming_it(mutant: Mutant, seed: int, tmp_path) -> None:
    mutated = apply(mutant, tmp_path / mutant.id)
    failures = [f for result in run_units(mutant.top, "icarus", seed, str(mutated), quiet=True) for f in result.failures]
    assert failures, f"{mutant.id} ({mutant.bug}) passed the unit bench"
    assert any(mutant.expect_in_failure in failure for failure in failures), failures[0]
