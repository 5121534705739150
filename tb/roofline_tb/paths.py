"""Where the project's files are. Every tool takes its paths from here.

ROOFLINE_BUILD moves every build product (simulator builds, reports, grades) out of the
checkout; nothing else writes outside it.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
RTL_DIR = REPO_ROOT / "rtl"
TB_DIR = REPO_ROOT / "tb"
FLOWS_DIR = REPO_ROOT / "flows"
FORMAL_DIR = FLOWS_DIR / "formal"
MUTANT_CATALOGUE = FLOWS_DIR / "mutants" / "catalogue.toml"
LABS_DIR = REPO_ROOT / "labs"
EXAMPLES_DIR = REPO_ROOT / "examples"
BUILD_ROOT = Path(os.environ.get("ROOFLINE_BUILD") or REPO_ROOT / "build").resolve()


def bench_dir(top: str) -> Path:
    """The cocotb testbench of a top-level module: tb/<module>/test_<module>.py."""
    return TB_DIR / top


def shown(path: Path) -> str:
    """A path as a person reads it: relative to the checkout when it is inside."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
