"""Shared pytest setup: one seed per regression run, printed, and reproducible with SEED=<n>."""

from __future__ import annotations

import os
import random

import pytest


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
