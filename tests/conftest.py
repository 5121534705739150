"""Shared pytest setup: one seed per regression run, printed, and reproducible with SEED=<n>."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from roofline_tb.paths import RTL_DIR


def pytest_configure(config: pytest.Config) -> None:
    # Set before xdist starts its workers, so every worker inherits the same seed.
    if not os.environ.get("ROOFLINE_SEED"):
        os.environ["ROOFLINE_SEED"] = str(random.randrange(1 << 31))


def pytest_report_header(config: pytest.Config) -> str:
    seed = os.environ["ROOFLINE_SEED"]
    rtl = os.environ.get("ROOFLINE_RTL") or "rtl/ (the project's)"
    return f"roofline-hw: seed {seed} (rerun: make test SEED={seed}); RTL: {rtl}"


@pytest.fixture(scope="session")
def seed() -> int:
    return int(os.environ["ROOFLINE_SEED"])


RIDGE_MUTANT_FILE = "roofline_round_cap.sv"
# The ridge counted as memory-bound: a bug that random sweeps find within a few thousand vectors.
RIDGE_MUTANT_ORIGINAL, RIDGE_MUTANT_BUG = "product_i < peak_scaled", "product_i <= peak_scaled"


@pytest.fixture
def ridge_mutant(tmp_path: Path) -> Path:
    """The project's RTL with one bug (the compute roof taken at the ridge), as a drop-in file."""
    source = (RTL_DIR / RIDGE_MUTANT_FILE).read_text()
    assert source.count(RIDGE_MUTANT_ORIGINAL) == 1
    mutant = tmp_path / RIDGE_MUTANT_FILE
    mutant.write_text(source.replace(RIDGE_MUTANT_ORIGINAL, RIDGE_MUTANT_BUG))
    return mutant
