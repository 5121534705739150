"""The sweep engine: the bulk testbench's build for one sweep, and one run of it.

`make sweep` (roofline_bulk.sweep), the cluster's shards (roofline_bulk.cluster) and the
benchmark all run sweeps through here.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from roofline_bulk.config import SweepConfig, default_lanes
from roofline_core.paths import BUILD_ROOT, COCOTB_TESTS_DIR, TB_HDL_DIR
from roofline_core.simulator import BenchResult, Build, run_build
from roofline_core.sources import rtl_sources, sources_digest

__all__ = ["BULK_FILES", "BULK_TB", "default_lanes", "run_sweep", "sweep_build"]  # default_lanes: where callers found it first

BULK_TB = TB_HDL_DIR / "roofline_bulk_tb.sv"  # the streaming testbench
BULK_IO = (TB_HDL_DIR / "roofline_bulk_io.cpp", TB_HDL_DIR / "roofline_bulk_tb.vlt")  # Verilator's DPI file I/O; what is public
BULK_TEST_MODULE = "test_roofline_bulk"  # in tb/cocotb_tests
BULK_FILES = (BULK_TB, *BULK_IO, COCOTB_TESTS_DIR / f"{BULK_TEST_MODULE}.py")  # everything a sweep runs besides the RTL

def sweep_build(cfg: SweepConfig, variant: str = "") -> Build:
    """The build of one sweep; `variant` keeps concurrent runs of the same design apart."""
    sources = [*rtl_sources(cfg.rtl), BULK_TB]
    if cfg.sim == "verilator":
        sources += BULK_IO
    tag = f"{cfg.top}-{cfg.param_set.tag}-x{cfg.lanes}-{sources_digest(sources)}"
    # A drop-in's sweep (a student's design, a test's planted bug) builds apart from the project's:
    # make report shows the project's own sweeps, build/<sim>/bulk-*, and no drop-in's.
    folder = BUILD_ROOT / ("dropin" if cfg.rtl else "") / cfg.sim / f"bulk-{tag}{'-' + variant if variant else ''}"
    cfg = replace(cfg, out_dir=str(folder))
    return Build(
        sim=cfg.sim,
        toplevel="roofline_bulk_tb",
        test_module=BULK_TEST_MODULE,
        test_dir=COCOTB_TESTS_DIR,
        sources=sources,
        parameters={
            "INT_BITS": cfg.param_set.int_bits,
            "FRAC_BITS": cfg.param_set.frac_bits,
            "LEVELS": cfg.levels,
            "HIERARCHY": int(cfg.hierarchy),
            "LANES": cfg.lanes,
        },
        # numpy's OpenBLAS threads spin between calls, on the cores the simulator and helpers need.
        env={**cfg.to_env(), "OPENBLAS_NUM_THREADS": "1"},
        folder=folder,
        seed=cfg.seed,
        # The wrapper makes its own clock (#delays): Verilator needs --timing, hence C++20.
        verilator_args=("--timing", "-CFLAGS", "-std=c++20", "-CFLAGS", "-O2"),
        plus_args=(f"+roofline_dir={folder}",),
        top_only=True,
    )


def run_sweep(cfg: SweepConfig, variant: str = "", quiet: bool = False) -> tuple[BenchResult, dict[str, Any] | None]:
    """quiet: the simulator's output goes to sim.log in the build folder."""
    build = sweep_build(cfg, variant)
    stats_file = build.folder / "sweep_stats.json"
    stats_file.unlink(missing_ok=True)
    result = run_build(build, testcase="bulk_sweep", quiet=quiet)
    stats = json.loads(stats_file.read_text()) if stats_file.exists() else None
    return result, stats
