"""Where the project's files are. Every tool takes its paths from here.

ROOFLINE_BUILD moves every build product (simulator builds, reports, grades) out of the
checkout; nothing else writes outside it.

Installed from a wheel rather than run from a checkout, the package carries the RTL and the
roofline command's cocotb job itself (roofline_core.rtl, roofline_core.cocotb_tests: see pyproject.toml),
and builds go to the user's cache folder.
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parents[1]
IN_CHECKOUT = (REPO_ROOT / "pyproject.toml").is_file() and (REPO_ROOT / "rtl").is_dir()
RTL_DIR = REPO_ROOT / "rtl" if IN_CHECKOUT else PACKAGE_DIR / "rtl"
TB_DIR = REPO_ROOT / "tb"
# Every cocotb test module: the checkout's (a grading sandbox holds tb/ but not rtl/ or pyproject.toml), else the wheel's.
COCOTB_TESTS_DIR = TB_DIR / "cocotb_tests" if (TB_DIR / "cocotb_tests").is_dir() else PACKAGE_DIR / "cocotb_tests"
TB_HDL_DIR = TB_DIR / "hdl"  # the testbenches' own SystemVerilog and C++: the bulk streamer, FuseSoC's bench
FLOWS_DIR = REPO_ROOT / "flows"
FORMAL_DIR = FLOWS_DIR / "formal"
MUTANT_CATALOGUE = FLOWS_DIR / "mutants" / "catalogue.toml"
LABS_DIR = REPO_ROOT / "labs"
EXAMPLES_DIR = REPO_ROOT / "examples"
_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "roofline-hw" / "build"
BUILD_ROOT = Path(os.environ.get("ROOFLINE_BUILD") or (REPO_ROOT / "build" if IN_CHECKOUT else _CACHE)).resolve()


def bench_dir(top: str) -> Path:
    """The folder of a top-level module's cocotb testbench, tb/cocotb_tests/test_<module>.py."""
    return COCOTB_TESTS_DIR


def shown(path: Path) -> str:
    """A path as a person reads it: relative to the checkout when it is inside."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def yowasp_cache() -> Path:
    """Where the YoWASP runtime keeps each tool's compiled machine code (YOWASP_CACHE_DIR overrides it).
    Here, not in roofline_core.tools, because the YoWASP launcher reads it on every start."""
    import platformdirs

    return Path(os.environ.get("YOWASP_CACHE_DIR") or platformdirs.user_cache_dir("YoWASP", appauthor=False))
